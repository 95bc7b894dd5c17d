#pragma once

#include "profilesession.h"

#include <QCoroFwd>

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>

class ActivityTracker;
class QAction;
class QWidget;
struct WorkspaceRecord;
class WorkspaceTreeModel;

// The widget side of the actions on workspaces (Close, Pause, Resume, Renew, Kill): which rows an
// action fits, the Renew dialog and the confirmation (counts, the rows, Cancel first for a kill),
// the progress dialog with Cancel, each row's transition while its action runs, and the summary
// and per-item failures at the end. What is done is the profile session's bulk job; this class
// only asks, shows and reports. Where every workspace's backend stops instead of pausing
// (Capability::StopInsteadOfPause), Pause is called Stop, and its confirmation says what a stop
// does; a kill's confirmation names what it deletes for each workspace (the backend's killWarning).
class WorkspaceActionController final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WorkspaceActionController)

public:
    // Dialogs are shown over `window`; rows' transitions go to `model`; a resume is noted as the
    // console's own access in `activity`.
    WorkspaceActionController(QWidget *window, WorkspaceTreeModel *model, ActivityTracker *activity,
                              QObject *parent = nullptr);
    ~WorkspaceActionController() override;

    // The profile whose workspaces the actions go to (null: none).
    void setSession(Paddock::ProfileSession *session);
    Paddock::ProfileSession *session() const { return m_session; }
    // "All profiles": each workspace's action goes to its own profile's session (null: none, and
    // its row fits no action; nor does a row of a read-only profile). One run splits the
    // selection by profile, runs each part through its session's bulk job at once, and shows one
    // progress and one summary. Unset: every row goes to setSession()'s.
    using SessionOf = std::function<Paddock::ProfileSession *(const QString &profileId)>;
    void setSessionLookup(SessionOf lookup) { m_sessionOf = std::move(lookup); }
    Paddock::ProfileSession *sessionOf(const QString &profileId) const;
    // "All profiles": whether this row's profile is read-only (its rows are skipped, and said so).
    bool isReadOnlyProfile(const QString &profileId) const;

    // Whether `action` can be done to this workspace in its state, on this profile's backend.
    static bool fits(Paddock::WorkspaceAction action, const WorkspaceRecord &record,
                     Paddock::Capabilities capabilities);
    bool fits(Paddock::WorkspaceAction action, const WorkspaceRecord &record) const;
    // Whether Pause stops these workspaces rather than pausing them: every one's profile stops
    // instead of pausing (none given: whether the session's profile does).
    bool stopsInsteadOfPausing(const QList<const WorkspaceRecord *> &records) const;
    // Names the Pause action (its menu entry, toolbar button and context menu entry): Stop where
    // it stops.
    static void namePauseAction(QAction *pause, bool stops);
    // A bulk action is under way (nothing else is offered until it ends).
    bool isBusy() const { return m_busy; }

    // Asks (Renew's dialog; a confirmation for a kill, several workspaces, or `alwaysAsk`), then
    // runs `action` on the selected workspaces it fits; the others are skipped and counted.
    QCoro::Task<void> run(Paddock::WorkspaceAction action, QList<WorkspaceRecord> selected, bool alwaysAsk = false);

Q_SIGNALS:
    void busyChanged(bool busy);
    // A run ended (every item has its result); `summary` is what the status bar shows.
    void finished(const QString &summary);

private:
    QWidget *m_window;
    WorkspaceTreeModel *m_model;
    ActivityTracker *m_activity;
    QPointer<Paddock::ProfileSession> m_session;
    SessionOf m_sessionOf;
    bool m_busy = false;
};
