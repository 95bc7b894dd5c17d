#pragma once

#include "bootstraplog.h"
#include "workspacetreemodel.h"

#include <QCoroFwd>

#include <QDateTime>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QString>
#include <QTimer>

#include <chrono>
#include <map>
#include <memory>

namespace Paddock {
class ProfileSession;
struct WorkspaceEvent;
template<typename T> class Broadcast;
} // namespace Paddock
class ActivityTracker;
class LiveUpdates;

// "All profiles" in the switcher: every profile's workspaces in one tree, each profile a
// top-level group (WorkspaceTreeModel::setProfileGroups) that says its own freshness ("updated
// 3 s ago") or problem ("cannot reach the server", no key). Each profile keeps its own session
// (every read and action goes through it), its own listing, its own live updates and its own
// state of the last listing; a profile that fails (a bad key, a server down) says so on its group
// and never holds the others back: every profile is listed at once, and each listing is applied
// as it comes. The window wires it (MainWindow::setAllProfiles) and asks it which session a row's
// profile has (session()).
class AllProfiles final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AllProfiles)

public:
    // The switcher's entry, remembered as the profile shown: never a profile's id (those are
    // letters, digits and dashes).
    static QString id() { return QStringLiteral("@all"); }

    struct Entry
    {
        QString profileId;
        QString name;
        Paddock::ProfileSession *session = nullptr; // null: it could not be opened (problem says why)
        QString problem;
    };

    AllProfiles(WorkspaceTreeModel *model, ActivityTracker *activity, QObject *parent = nullptr);
    ~AllProfiles() override;

    // The profiles shown, with their sessions: a profile no longer named goes with its rows and
    // group; a new one gets its group and is listed by the next refresh(); one whose session
    // changed starts again (its rows stay until its next listing replaces them).
    void setEntries(const QList<Entry> &entries);
    // Every profile's group and rows go (the window shows one profile again).
    void clear();
    bool isEmpty() const { return m_feeds.empty(); }
    QStringList profiles() const;
    // The session of a profile shown here (null: none, or it could not be opened).
    Paddock::ProfileSession *session(const QString &profileId) const;
    // A session that ends (its profile was saved, the console quits): nothing more goes to it;
    // its group says it is being opened again.
    void forget(Paddock::ProfileSession *session);

    // Lists every profile at once and applies the listings as they come, those that arrive
    // within ApplyWindow of each other in one pass (the view lays its rows out once, not once
    // per profile); ends when every one has answered (or failed). A profile whose listing is
    // under way is listed once more after it.
    static constexpr std::chrono::milliseconds ApplyWindow{50};
    QCoro::Task<void> refresh();
    // One profile's listing, decorating these workspaces' rows again (the manager opened,
    // closed or lost them).
    void refreshFor(const QString &profileId, const QStringList &workspaceIds);
    // The window is seen: each profile whose backend watches is watched while it is.
    void setActive(bool active);
    // For "(stale)": two intervals without a good listing (five minutes with refreshes off).
    void setRefreshInterval(std::chrono::seconds interval) { m_interval = interval; }
    // Every group's freshness again (once a second, with the countdowns).
    void tick();

    // A profile's freshness or problem, as its group row says it, and whether it is a warning.
    QString statusText(const QString &profileId) const;
    // What is wrong with a profile in full (it could not be opened, its last listing failed);
    // empty when nothing is.
    QString problem(const QString &profileId) const;
    bool isWarning(const QString &profileId) const;
    // The status bar's line over every profile: "4 profiles, updated 3 s ago" or "1 of 4
    // profiles cannot be listed".
    QString summaryText() const;
    bool anyWarning() const;
    // Whether any profile's listing is between states (the window looks again in a second).
    bool isSettling() const { return m_settling; }

Q_SIGNALS:
    // A round of refresh() ended: `listed` when every profile's listing came.
    void refreshed(bool listed);
    // One profile's listing was applied (or failed and is shown as such).
    void profileRefreshed(const QString &profileId, bool listed);

private:
    struct Feed;
    Feed *feed(const QString &profileId) const;
    QCoro::Task<bool> refreshOne(QString profileId);
    void onEvent(const QString &profileId, const Paddock::WorkspaceEvent &event);
    WorkspaceTreeModel::Decorate decorator(Feed *feed, const QDateTime &now) const;
    void showGroup(Feed *feed);
    bool isStale(const Feed *feed) const;

    WorkspaceTreeModel *m_model;
    ActivityTracker *m_activity;
    std::map<QString, std::unique_ptr<Feed>> m_feeds;
    std::chrono::seconds m_interval{15};
    bool m_active = false;
    bool m_settling = false;
    quint64 m_generation = 0; // each feed's: a listing for a feed since replaced is dropped
    // The listings waiting for the next pass: set (true) when ApplyWindow after the first ended,
    // (false) when this object goes.
    std::shared_ptr<Paddock::Broadcast<bool>> m_applyTurn;
    QTimer m_applyTimer;
    bool m_ending = false; // in the destructor
};
