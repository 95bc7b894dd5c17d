#include "notificationcenter.h"

#include "expirywatch.h"
#include "notifier.h"
#include "profile.h"
#include "profilesession.h"

using namespace Paddock;

NotificationCenter::NotificationCenter(QObject *parent)
    : QObject(parent)
    , m_notifier(new Notifier(this))
    , m_expiry(new ExpiryWatch(this))
{
    connect(m_notifier, &Notifier::activated, this, &NotificationCenter::showWorkspaces);
    connect(m_notifier, &Notifier::closed, this, [this](const QString &group) { m_policy.closed(group); });
    connect(m_notifier, &Notifier::degraded, this, &NotificationCenter::statusMessage);
    m_timer.setInterval(std::chrono::seconds(1));
    connect(&m_timer, &QTimer::timeout, this, &NotificationCenter::tick);
    m_timer.start();
}

NotificationCenter::~NotificationCenter() = default;

void NotificationCenter::setClocks(Clock wallMs, Clock monotonicMs)
{
    m_expiry->setClocks(wallMs, monotonicMs);
    m_policy.setClock(monotonicMs);
}

void NotificationCenter::setProfile(const Profile &profile)
{
    m_policy.setProfileName(profile.id, profile.displayName());
    m_policy.setMuted(profile.id, profile.muteNotifications);
    m_expiry->setThresholds(profile.id, profile.notifyBeforeExpiry);
}

void NotificationCenter::observe(ProfileSession *session)
{
    connect(session, &ProfileSession::event, this, &NotificationCenter::onEvent, Qt::UniqueConnection);
}

void NotificationCenter::watch(WorkspaceTreeModel *model)
{
    m_expiry->attach(model);
}

void NotificationCenter::workspacesLost(const QString &profileId, const QStringList &workspaceIds,
                                        NotificationEvent::LostReason reason)
{
    NotificationEvent event;
    event.profileId = profileId;
    event.kind = NotificationEvent::Kind::Lost;
    event.reason = reason;
    event.workspaceIds = workspaceIds;
    m_policy.submit(event);
}

void NotificationCenter::onEvent(const WorkspaceEvent &event)
{
    using Kind = WorkspaceEvent::Kind;
    NotificationEvent notice;
    notice.profileId = event.profileId;
    notice.workspaceIds = {event.workspaceId};
    switch (event.kind) {
    case Kind::OpenFailed:
        // Only a bootstrap's failure: an open that could not start (no server, cancelled at quit)
        // is said where it was asked for, in the Open dialog.
        if (!event.error || event.error->kind != Error::Kind::Bootstrap)
            return;
        notice.kind = NotificationEvent::Kind::BootstrapFailed;
        notice.detail = event.error->message;
        break;
    case Kind::Lost:
        notice.kind = NotificationEvent::Kind::Lost;
        notice.reason = NotificationEvent::LostReason::Gone;
        break;
    case Kind::Closed:
        if (event.actor != WorkspaceEvent::Actor::Sweeper)
            return; // the user's own Close, or the quit's
        notice.kind = NotificationEvent::Kind::SweeperClosed;
        break;
    default:
        return;
    }
    m_policy.submit(notice);
}

void NotificationCenter::tick()
{
    for (const ExpiryWatch::Crossing &crossing : m_expiry->check()) {
        NotificationEvent event;
        event.profileId = crossing.profileId;
        event.kind = NotificationEvent::Kind::ExpiresSoon;
        event.threshold = crossing.threshold;
        event.workspaceIds = crossing.workspaceIds;
        m_policy.submit(event);
    }
    if (m_policy.pendingGroups() == 0)
        return;
    for (const Notification &notification : m_policy.due())
        m_notifier->notify(notification);
}
