#pragma once

#include <QDialog>
#include <QList>
#include <QMessageBox>

class QCheckBox;
class QLabel;
class QPushButton;
class QTreeWidget;

// The confirmation of an action on workspaces: what will happen, in words, and the workspaces it
// goes to in a list whose columns are as wide as what they show (ids are never cut or wrapped;
// the sandbox id only where it differs from the workspace id). The confirming button names the
// action; a destructive one makes Cancel the default, so Enter does not confirm it. What the action
// does to a workspace beyond what the text says (a kill that deletes a Pod and its PVC) is its
// row's warning: said in full under the text when every row has the same one (one row: its own),
// else in a Warning column beside each row.
class ConfirmDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConfirmDialog)

public:
    struct Row
    {
        QString workspace; // id (or name)
        QString sandbox; // sandbox id; shown only when some row's differs from its workspace id
        QString user;
        QString agent;
        QString state;
        QString warning; // what the action does to this one beyond what the text says; empty: nothing
    };

    ConfirmDialog(QMessageBox::Icon icon, const QString &title, const QString &text, QWidget *parent = nullptr);
    ~ConfirmDialog() override;

    QString text() const;
    void setInformativeText(const QString &text);
    QString informativeText() const;
    // The warning said under the text (the rows' one warning); empty when there is none, or when
    // each row says its own in the list's Warning column.
    QString warningText() const;
    void setRows(const QList<Row> &rows);
    // Every listed row as a line of text (what Copy of the list gives).
    QString listText() const;
    void setConfirmText(const QString &text);
    // Cancel (rather than the confirming button) is what Enter presses.
    void setCancelIsDefault(bool cancel);
    QCheckBox *addCheckBox(const QString &text, const QString &objectName);

    QPushButton *confirmButton() const { return m_confirm; }
    QPushButton *cancelButton() const { return m_cancel; }
    QTreeWidget *list() const { return m_list; }

private:
    void fitToContents();

    QLabel *m_text;
    QLabel *m_informative;
    QLabel *m_warning;
    QTreeWidget *m_list;
    QPushButton *m_confirm;
    QPushButton *m_cancel;
    QList<QCheckBox *> m_boxes;
};
