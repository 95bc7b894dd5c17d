#pragma once

#include <QCoroFwd>

#include <QList>
#include <QPointer>
#include <QString>
#include <QToolButton>

class QComboBox;
class QItemSelectionModel;
class QLineEdit;
class QMenu;
class QSettings;
class WorkspaceFilterProxy;
class WorkspaceTreeModel;

// Named filters next to the filter field: the text, the state and the backend filters as they
// are, saved under a name ("Save Current Filter…"), picked again from the button's menu, deleted
// from it; kept in the settings ("savedFilters"). A saved filter is applied through the three
// widgets, so what they show is what filters.
class SavedFilters final : public QToolButton
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SavedFilters)

public:
    struct Filter
    {
        QString name;
        QString text;
        QString state; // sandboxStateName(); empty: every state
        QString backend; // a BackendFactory id; empty: every backend
        friend bool operator==(const Filter &, const Filter &) = default;
    };

    SavedFilters(QLineEdit *text, QComboBox *state, QComboBox *backend, QWidget *parent = nullptr);

    // Where they are kept (read now); null: for this run only.
    void setSettings(QSettings *settings);
    const QList<Filter> &filters() const { return m_filters; }
    // The filter the widgets show now, named `name`.
    Filter current(const QString &name) const;
    // Saves the current filter as `name` (trimmed; one of that name is replaced). False for an
    // empty name.
    bool saveCurrent(const QString &name);
    // Shows the filter `name`; false when there is none of that name.
    bool apply(const QString &name);
    void remove(const QString &name);

    // Selects every workspace row `proxy` shows (not the groups), under collapsed groups too; the
    // number selected. Used by Workspace > Select All Matching.
    static int selectAllMatching(WorkspaceFilterProxy *proxy, const WorkspaceTreeModel *model,
                                 QItemSelectionModel *selection);

Q_SIGNALS:
    // For the status bar: "Filter "running" saved.", "Filter "x" applied."
    void statusMessage(const QString &text);

protected:
    void changeEvent(QEvent *event) override;

private:
    QCoro::Task<void> askName();
    void fillMenu();
    void store();
    void retranslate();

    QLineEdit *m_text;
    QComboBox *m_state;
    QComboBox *m_backend;
    QSettings *m_settings = nullptr;
    QList<Filter> m_filters;
    QPointer<QMenu> m_deleteMenu; // the menu's Delete submenu, made again with it
};
