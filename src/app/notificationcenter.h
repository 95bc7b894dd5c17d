#pragma once

#include "notificationpolicy.h"

#include <QObject>
#include <QTimer>

#include <functional>

class ExpiryWatch;
class Notifier;
class WorkspaceTreeModel;
namespace Paddock {
struct Profile;
struct WorkspaceEvent;
class ProfileSession;
} // namespace Paddock

// The console's notifications: what happens (the profiles' sessions' events, the expiry
// thresholds the tree's rows cross, workspaces that vanished between listings) goes through
// the policy (grouping, rate limit, mute, never twice) to the desktop (Notifier). Clicking one
// asks for its workspaces to be shown (showWorkspaces()). Console wires it; MainWindow only
// selects what it is asked to.
//
// Its own timer checks once a second, whether the window is shown, hidden in the tray or
// minimized (the window's countdown tick stops then): a comparison when nothing is due.
class NotificationCenter final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(NotificationCenter)

public:
    using Clock = std::function<qint64()>;

    explicit NotificationCenter(QObject *parent = nullptr);
    ~NotificationCenter() override;

    Notifier *notifier() const { return m_notifier; }
    ExpiryWatch *expiry() const { return m_expiry; }
    NotificationPolicy &policy() { return m_policy; }

    // Wall time (ms since the epoch) and monotonic time (ms), for tests; the system's otherwise.
    void setClocks(Clock wallMs, Clock monotonicMs);
    // A profile's name, notice thresholds and mute, as saved.
    void setProfile(const Paddock::Profile &profile);
    // Follows a profile's session: a failed bootstrap, a lost workspace, the sweeper's closes.
    void observe(Paddock::ProfileSession *session);
    // The rows whose expiry is watched.
    void watch(WorkspaceTreeModel *model);
    // Workspaces that vanished (between listings, deleted elsewhere or expired): the event
    // history's source reports them here.
    void workspacesLost(const QString &profileId, const QStringList &workspaceIds,
                        NotificationEvent::LostReason reason = NotificationEvent::LostReason::Gone);
    void onEvent(const Paddock::WorkspaceEvent &event);
    // Checks the thresholds and sends what is due (the timer does this once a second).
    void tick();
    bool isTicking() const { return m_timer.isActive(); }

Q_SIGNALS:
    // A notification was clicked: show these workspaces of that profile.
    void showWorkspaces(const QString &profileId, const QStringList &workspaceIds);
    // Said once: notifications cannot go as they should (no service, no tray).
    void statusMessage(const QString &message);

private:
    Notifier *m_notifier;
    ExpiryWatch *m_expiry;
    NotificationPolicy m_policy;
    QTimer m_timer;
};
