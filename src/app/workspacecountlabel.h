#pragma once

#include <QLabel>
#include <QPointer>
#include <QTimer>

class WorkspaceFilterProxy;
class WorkspaceTreeModel;

// The status bar's count of workspaces: "13 workspaces", or "6 of 13 workspaces shown" while a
// filter hides some. A widget of the status bar rather than its message, so that what passes
// there (a menu's or a button's status tip, "3 workspaces selected.", an error) covers it only
// for as long as it is said, instead of wiping it until the next listing. It follows the models:
// rows added or removed, a reset, a filter changed; a burst of those is counted once, on the next
// turn of the event loop (the walk over the filter's rows runs only while it filters). Its text
// follows the language.
class WorkspaceCountLabel final : public QLabel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WorkspaceCountLabel)

public:
    WorkspaceCountLabel(WorkspaceTreeModel *model, WorkspaceFilterProxy *proxy, QWidget *parent = nullptr);
    ~WorkspaceCountLabel() override;

    // Counts now (the models' signals count on the next turn of the event loop).
    void recount();
    qsizetype shownCount() const { return m_shown; }
    qsizetype totalCount() const { return m_total; }

protected:
    void changeEvent(QEvent *event) override;

private:
    void updateText();

    QPointer<WorkspaceTreeModel> m_model;
    QPointer<WorkspaceFilterProxy> m_proxy;
    QTimer m_later;
    qsizetype m_shown = 0;
    qsizetype m_total = 0;
};
