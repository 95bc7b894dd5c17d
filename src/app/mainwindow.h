#pragma once

#include "allprofiles.h"
#include "bootstraplog.h"
#include "logdock.h"
#include "opendialog.h"
#include "profilesession.h"
#include "renewal.h"
#include "result.h"
#include "workspacetreemodel.h"

#include <QCoroFwd>

#include <QDateTime>
#include <QHash>
#include <QMainWindow>
#include <QPointer>
#include <QSet>
#include <QTimer>

#include <chrono>
#include <functional>
#include <memory>

namespace Ui {
class MainWindow;
}
namespace Paddock {
class BootstrapLogStore;
} // namespace Paddock
class ActivityTracker;
class CommandActions;
class ConsoleEvents;
class EventHistory;
class EventHistoryDock;
class ElidedLabel;
class InspectorDock;
class LiveUpdates;
class LogViewer;
class MetricsHistory;
class MetricsPoller;
class QActionGroup;
class SavedFilters;
class QLabel;
class QMenu;
class QSettings;
class WindowState;
class QTabWidget;
class WorkspaceActionController;
class WorkspaceFilterProxy;

// The console's window: one profile's workspaces as a tree grouped by user and agent (or a flat
// list), refreshed in place at the interval the user picks while the window is visible, with
// countdowns that tick every second and state-aware pause and resume on the selection (group
// rows included).
class MainWindow final : public QMainWindow
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MainWindow)

public:
    // A window over one profile's session; with none it shows nothing until setSession().
    explicit MainWindow(Paddock::ProfileSession *session = nullptr, QWidget *parent = nullptr);
    ~MainWindow() override;

    WorkspaceTreeModel *model() const { return m_model; }

    // The profiles the switcher offers (id, name) and the one shown.
    void setProfiles(const QList<std::pair<QString, QString>> &profiles, const QString &current);
    // Shows a profile's workspaces through its session: every read and action goes through it
    // (the previous profile's rows go). The session's problem (no key, no keychain...) shows in
    // place. A null session shows `profile` empty, with `problem`.
    void setSession(Paddock::ProfileSession *session, const QString &profile = {}, const QString &problem = {});
    Paddock::ProfileSession *session() const { return m_session; }
    // "All profiles" (the switcher's entry, AllProfiles::id()): every profile's workspaces at
    // once, each profile a top-level group with its own freshness and problem, each read and
    // action through that profile's own session. setSession() shows one profile again.
    void setAllProfiles(const QList<AllProfiles::Entry> &entries);
    bool showsAllProfiles() const { return m_profile == AllProfiles::id(); }
    AllProfiles *allProfiles() const { return m_all; }
    // The session a row of this profile goes through (null: that profile is not shown here).
    Paddock::ProfileSession *sessionOf(const QString &profileId) const;
    // A session that ends (its profile was saved, the console quits) is no longer used.
    void forgetSession(Paddock::ProfileSession *session);
    WorkspaceActionController *actions() const { return m_actions; }
    // Run Command and Open Terminal.
    CommandActions *commands() const { return m_commands; }
    // What keeps the tree live between listings where the backend watches.
    LiveUpdates *liveUpdates() const { return m_live; }
    ActivityTracker *activity() const { return m_activity; }
    QString profile() const { return m_profile; }
    QCoro::Task<void> refresh();
    // A refresh that decorates these workspaces' rows again (what the console knows of them
    // changed: opened, closed, evicted, lost).
    void refreshFor(const QStringList &workspaceIds);
    // Off (0), 5, 15, 30 or 60 seconds.
    void setRefreshInterval(std::chrono::seconds interval);
    std::chrono::seconds refreshInterval() const { return m_refreshInterval; }
    bool isRefreshTimerActive() const { return m_refreshTimer.isActive(); }
    // Which entry of View > Language is checked: a language code, or empty for the system's.
    void setLanguageChoice(const QString &code);
    // A read-only profile hides every action that changes anything.
    void setReadOnly(bool readOnly);
    bool isReadOnly() const { return m_readOnly; }
    // The shown profile's name, as the switcher shows it.
    QString profileName() const;
    // The freshness text in the status bar, and whether it is a warning.
    QString freshnessText() const;
    bool isStale() const;
    // What the last action reported in the status bar ("3 of 3 workspaces done; ...").
    QString lastActionSummary() const { return m_lastSummary; }
    // The log dock, and its tabs: one LogViewer per log shown.
    LogDock *logDock() const { return m_logDock; }
    QTabWidget *logTabs() const { return m_logDock->tabs(); }
    // The workspace inspector (View > Inspector): the tree's current workspace, read through the
    // shown profile's session.
    InspectorDock *inspectorDock() const { return m_inspector; }
    // The event history (View > Event History): the console's events, and those kept.
    EventHistoryDock *eventHistoryDock() const { return m_eventDock; }
    // Where the events come from (the tree's listings are watched for changes the console did
    // not make) and where they are kept.
    void setEvents(ConsoleEvents *events, EventHistory *history);
    // Selects a workspace's row in the tree if it is listed; whether it was.
    bool selectWorkspace(const QString &profileId, const QString &sandboxId, const QString &workspaceId);
    // Shows a workspace's bootstrap log, or its sandbox's container log, in a tab of the log
    // dock (the same tab again if it is open); null if there is no such log here.
    LogViewer *showLog(const WorkspaceRecord &record, bool container);

    // Closing the window (or File > Quit) asks first: quitRequested() is emitted and the window
    // stays until confirmQuit(). Off by default (a window alone just closes).
    void setQuitGuard(bool on) { m_quitGuard = on; }
    void confirmQuit() { m_quitConfirmed = true; }
    // Where the window's geometry, docks and columns are kept (restored now).
    void setSettings(QSettings *settings);
    // File > When Quitting (the QuitController's menu), above Quit.
    void addQuitMenu(QMenu *menu);
    // View > Appearance (ColorScheme's AppearanceMenu), after Language.
    void addAppearanceMenu(QMenu *menu);
    // More entries at the end of the View menu (the tray's).
    void addViewActions(const QList<QAction *> &actions);
    // Whether closing the window hides it instead (the tray's choice); File > Quit still quits.
    void setCloseHidesWindow(std::function<bool()> hides) { m_closeHides = std::move(hides); }
    // File > Quit: quits (asking about open workspaces) even where closing only hides.
    void requestQuit();
    // Selects these workspaces of a profile (a notification's Show), as soon as the profile is
    // shown and they are listed; those not listed (or filtered out) are not.
    void selectWorkspaces(const QString &profileId, const QStringList &workspaceIds);

    // The shown profile's problem (no key, an unreachable server, a refused key with its request
    // id), shown next to the profile switcher; empty when it works.
    QString profileProblem() const;

Q_SIGNALS:
    // The user picked a profile in the switcher.
    void profileChosen(const QString &profileId);
    // File > Profiles…
    void profilesRequested();
    // The user picked another refresh interval (the profile remembers it).
    void refreshIntervalChosen(std::chrono::seconds interval);
    // View > Language: a language code, or empty for the system's.
    void languageChosen(const QString &code);
    // The user closed the window or chose Quit, with the quit guard on.
    void quitRequested();
    // A refresh ended: `listed` when the server's listing came and is shown, false when it
    // failed and the failure is shown in place (the rows as last seen).
    void refreshed(bool listed);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;
    void changeEvent(QEvent *event) override;
    void closeEvent(QCloseEvent *event) override;

private:
    QList<const WorkspaceRecord *> selectedRecords() const;
    // The profile shown changed: a listing under way is for the one before (m_refreshGeneration).
    void newRefreshGeneration();
    QCoro::Task<void> runAction(Paddock::WorkspaceAction action, bool alwaysAsk = false);
    void onEvent(const Paddock::WorkspaceEvent &event);
    // Idle triage: selects the running workspaces idle longer than the minutes the user gives
    // (then pauses them, asking first, when `thenPause`).
    QCoro::Task<void> selectIdle(bool thenPause);
    void openWorkspace();
    // Opens into `profile` (a profile shown here that can open workspaces), else nothing.
    OpenDialog *openDialog(const OpenDialog::Request &prefill, const QString &profile);
    // Whether Open may open into this profile now.
    bool canOpenInto(const QString &profile) const;
    // The profiles Open opens into: the one shown; in "All profiles" the current row's (or
    // group's), or with none every profile shown that can (the user picks one).
    QStringList openTargets() const;
    // The current row if it is selected (and fits), else the first selected workspace that does.
    const WorkspaceRecord *chosenRecord(const std::function<bool(const WorkspaceRecord &)> &fits) const;
    void copyIds();
    void retryBootstrap();
    void switchFocus();
    void showAbout();
    void showSelectedLog(bool container);
    // Tells the log dock where the shown profile's logs are.
    void updateLogSource();
    // Tells the inspector which workspace is current (or why none is).
    void updateInspector();
    // Asks for the sessions/ activity of the running workspaces in view.
    void requestVisibleActivity();
    void updateActions();
    // The state filter's entries, as the shown profile names its states (Paused or Stopped).
    void nameStates();
    void setProfileProblem(const QString &problem);
    // Every text of the window again, in the language now installed.
    void retranslate();
    void updateTimers();
    // What completes a row of the shown profile (listed or reported by a watch) with what only
    // the console knows: the manager's idle deadline, the agents sharing it, the activity seen,
    // a failed bootstrap (as the last refresh read them).
    WorkspaceTreeModel::Decorate decorator(const QDateTime &now);
    void tick();
    void expandGroups(const QModelIndex &parent, int first, int last);
    void applyPendingSelection();

    // The profile of the current row (its group's, for a group row), in "All profiles".
    QString currentProfile() const;
    // The log dock's source: this profile's session (the shown one's, else the current row's).
    void updateLogSource(Paddock::ProfileSession *session);

    std::unique_ptr<Ui::MainWindow> m_ui;
    QPointer<Paddock::ProfileSession> m_session;
    bool m_destroying = false; // in ~MainWindow: coroutines resuming now touch nothing
    AllProfiles *m_all = nullptr; // the profiles shown under "All profiles"; empty otherwise
    bool m_fitAllRows = false; // "All profiles" entered: the columns fit its first rows, not its empty groups
    QPointer<Paddock::BootstrapLogStore> m_logs; // the session's
    ActivityTracker *m_activity;
    WorkspaceActionController *m_actions;
    CommandActions *m_commands;
    LiveUpdates *m_live;
    QString m_profile;
    WorkspaceTreeModel *m_model;
    WorkspaceFilterProxy *m_proxy;
    ElidedLabel *m_freshness; // never widens the window, whatever it says
    LogDock *m_logDock;
    InspectorDock *m_inspector;
    EventHistoryDock *m_eventDock;
    QActionGroup *m_languages;
    SavedFilters *m_savedFilters = nullptr;
    WindowState *m_windowState = nullptr;
    MetricsHistory *m_metricsHistory = nullptr; // CPU and memory of the last minutes, for the inspector
    MetricsPoller *m_metrics = nullptr; // reads them for the rows in view
    QTimer m_refreshTimer;
    QTimer m_tickTimer; // countdowns and the freshness text, once a second
    QTimer m_actionsTimer; // updateActions() once after a burst of state changes
    QTimer m_settleTimer; // a quick refresh while some workspace is between states
    QTimer m_visibleTimer; // reads the activity of the rows in view once scrolling stops
    QTimer m_inspectorTimer; // the inspector told once after a burst of changes to the rows
    std::chrono::seconds m_refreshInterval{15};
    QDateTime m_lastRefresh; // UTC; invalid until the first good listing
    bool m_refreshing = false; // a listing of the profile shown is under way
    bool m_refreshAgain = false; // asked for while one ran
    // Moves on whenever the profile shown changes: a listing of the previous one still under way
    // (a server that does not answer holds it for its retries) is dropped when it ends, and the
    // new profile's listing starts at once instead of waiting behind it.
    quint64 m_refreshGeneration = 0;
    bool m_readOnly = false;
    bool m_quitGuard = false;
    bool m_quitConfirmed = false;
    QString m_lastSummary;
    bool m_unreachable = false; // the last listing failed: the rows are as last seen
    bool m_cannotReach = false; // ... because no server answered (not a refusal, not a 500)
    QString m_sessionProblem; // what setSession() was told was wrong with the profile
    // Under PER_USER the agents of a user share one workspace: the ones seen opening it, by
    // profile and workspace id.
    QHash<QString, QStringList> m_agentsSeen;
    QSet<QString> m_stale; // workspace ids whose rows the next refresh decorates again
    QHash<QString, Paddock::BootstrapLogStore::Failure> m_failures; // as the last refresh read them
    int m_idleMinutes = 60;
    std::function<bool()> m_closeHides;
    QAction *m_viewExtras = nullptr; // the separator above the tray's entries in View
    bool m_quitChosen = false; // File > Quit, not the window's close button
    std::pair<QString, QStringList> m_pendingSelection; // a notification's workspaces, until listed
};
