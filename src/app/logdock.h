#pragma once

#include "containerlogtail.h"

#include <QDockWidget>
#include <QPointer>
#include <QString>

namespace Paddock {
class BootstrapLogStore;
} // namespace Paddock
class LogViewer;
class QLabel;
class QStackedWidget;
class QTabWidget;
struct WorkspaceRecord;

// The window's Logs dock: one tab per log shown, a LogViewer each. A bootstrap log is read from
// the profile's BootstrapLogStore and gets its new lines as they are written; a container log is
// followed into a file of its own next to it (as a stream where the source streams it, else by
// polling) by a ContainerLogTail that its tab owns. The same log again is the same tab (a
// container log that is no longer followed is followed again). Closing the last tab hides the
// dock; shown with no tab (View > Logs, or its place remembered from the last run), it says how
// to open a log instead of showing an empty panel. Its texts follow the language (LanguageChange).
//
// Where logs come from is the profile's: the window sets it with setSource() whenever the
// profile shown changes (or loses its session). Tabs already open stay: a bootstrap log gets its
// new lines from the store set now, whichever profile's log it is (the console has one store), and
// a container log's tail reads from the source it was made with (one that stops working stops the
// tail, which says so in its footer).
class LogDock final : public QDockWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LogDock)

public:
    explicit LogDock(QWidget *parent = nullptr);
    ~LogDock() override;

    // Where the logs of the profile shown are: its bootstrap logs (`logs`, under `instanceKey`,
    // its backend's instance key) and its sandboxes' container logs. A null store or an empty key
    // shows nothing more (tabs open stay).
    void setSource(Paddock::BootstrapLogStore *logs, Paddock::ContainerLogSource containerLogs,
                   const QString &instanceKey);
    // Whether a log can be shown now (there is a source).
    bool canShowLogs() const;

    // Shows a workspace's bootstrap log, or its sandbox's container log, in a tab (the same tab
    // again if it is open), shows the dock and focuses the log; null if there is no source.
    LogViewer *showBootstrapLog(const WorkspaceRecord &record);
    LogViewer *showContainerLog(const WorkspaceRecord &record);
    // Shows a local file in the bootstrap log's line format (the inspector's masked copy of a
    // gateway.log) in a tab titled `title`; the same path again shows it anew in the same tab (the
    // file was written again). Needs no source.
    LogViewer *showLocalFile(const QString &path, const QString &title);
    // F6: shows the dock and focuses the log in front; false (and statusMessage()) if none is
    // open.
    bool focusLog();

    QTabWidget *tabs() const { return m_tabs; }
    // What the dock says while no log is open (shown instead of the empty tabs).
    QLabel *emptyText() const { return m_empty; }

Q_SIGNALS:
    // Something to say in the window's status bar.
    void statusMessage(const QString &message);

protected:
    void changeEvent(QEvent *event) override;

private:
    LogViewer *showLog(const WorkspaceRecord &record, bool container);
    void closeTab(int index);
    void retranslate();
    // The tabs when there are some, else the text saying how to open one.
    void showTabsOrText();

    QStackedWidget *m_pages;
    QTabWidget *m_tabs;
    QLabel *m_empty;
    QPointer<Paddock::BootstrapLogStore> m_logs;
    Paddock::ContainerLogSource m_containerLogs;
    QString m_instanceKey;
};
