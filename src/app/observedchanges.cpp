#include "observedchanges.h"

using namespace Paddock;

namespace {

bool settled(SandboxState state)
{
    switch (state) {
    case SandboxState::Pending:
    case SandboxState::Pausing:
    case SandboxState::Resuming:
    case SandboxState::Stopping:
        return false;
    case SandboxState::Running:
    case SandboxState::Paused:
    case SandboxState::Terminated:
    case SandboxState::Failed:
    case SandboxState::Unknown:
        break;
    }
    return true;
}

QString keyOf(const QString &profile, const QString &sandboxId)
{
    return profile + u'\x1f' + sandboxId;
}

} // namespace

ObservedChanges::ObservedChanges(QObject *parent)
    : QObject(parent)
    , m_now([] { return QDateTime::currentDateTimeUtc(); })
{
}

void ObservedChanges::watch(WorkspaceTreeModel *model)
{
    if (m_model)
        disconnect(m_model, nullptr, this, nullptr);
    m_model = model;
    m_baselined.clear();
    m_before.clear();
    if (!model)
        return;
    connect(model, &WorkspaceTreeModel::listingApplied, this, &ObservedChanges::onApplied);
    connect(model, &WorkspaceTreeModel::profileCleared, this, &ObservedChanges::reset);
}

void ObservedChanges::reset(const QString &profileId)
{
    m_baselined.remove(profileId);
    if (m_model)
        m_model->setObserved(profileId, false);
    const QString prefix = profileId + u'\x1f';
    for (auto it = m_before.begin(); it != m_before.end();) {
        if (it.key().startsWith(prefix))
            it = m_before.erase(it);
        else
            ++it;
    }
}

void ObservedChanges::onApplied(const WorkspaceTreeModel::ListingDiff &diff)
{
    if (!m_baselined.contains(diff.profile)) {
        // A watch's report before the first listing is no baseline: what it shows is not known
        // to be new.
        if (!diff.complete)
            return;
        m_baselined.insert(diff.profile);
        if (m_model)
            m_model->setObserved(diff.profile, true);
        return;
    }
    if (!diff.collected)
        return;
    const QDateTime now = m_now();
    for (const SandboxInfo &info : diff.appeared) {
        ConsoleEvent event;
        event.time = now;
        event.profileId = diff.profile;
        event.workspaceId = info.workspaceId;
        event.sandboxId = info.sandboxId;
        event.kind = ConsoleEvent::Kind::Appeared;
        event.to = info.state;
        if (!settled(info.state))
            m_before.remove(keyOf(diff.profile, info.sandboxId)); // new: nothing settled before it
        emitSeen(std::move(event));
    }
    for (const WorkspaceTreeModel::ListingDiff::Change &change : diff.changed)
        settle(diff.profile, change.after, change.before, now);
    for (const SandboxInfo &info : diff.vanished) {
        const QString key = keyOf(diff.profile, info.sandboxId);
        const SandboxState before = m_before.contains(key) ? m_before.take(key) : info.state;
        ConsoleEvent event;
        event.time = now;
        event.profileId = diff.profile;
        event.workspaceId = info.workspaceId;
        event.sandboxId = info.sandboxId;
        event.from = before;
        const bool expired = info.expiresAt && info.expiresAt->isValid() && *info.expiresAt <= now;
        if (expired && m_clockTrusted) {
            event.kind = ConsoleEvent::Kind::Expired;
            event.detail = tr("It expired at %1.").arg(info.expiresAt->toUTC().toString(Qt::ISODate));
        } else {
            event.kind = ConsoleEvent::Kind::Vanished;
            if (expired)
                event.detail = tr("Deleted, or expired: the system clock changed, so which is not known.");
        }
        emitSeen(std::move(event));
    }
}

void ObservedChanges::settle(const QString &profile, const SandboxInfo &info, SandboxState before, const QDateTime &now)
{
    const QString key = keyOf(profile, info.sandboxId);
    if (!settled(info.state)) {
        // Into (or on through) a transition: what it was before it is said when it settles.
        if (settled(before) && !m_before.contains(key))
            m_before.insert(key, before);
        return;
    }
    const SandboxState from = m_before.contains(key) ? m_before.take(key) : before;
    if (from == info.state)
        return; // back where it was (a pause that did not happen)
    ConsoleEvent event;
    event.time = now;
    event.profileId = profile;
    event.workspaceId = info.workspaceId;
    event.sandboxId = info.sandboxId;
    event.kind = ConsoleEvent::Kind::StateChanged;
    event.from = from;
    event.to = info.state;
    emitSeen(std::move(event));
}

void ObservedChanges::emitSeen(ConsoleEvent event)
{
    event.actor = ConsoleEvent::Actor::Elsewhere;
    if (m_ours) {
        const Seen seen{event.profileId, event.workspaceId, event.sandboxId,
                        event.kind == ConsoleEvent::Kind::Expired ? ConsoleEvent::Kind::Vanished : event.kind,
                        event.to};
        if (m_ours(seen))
            return;
    }
    Q_EMIT observed(event);
}
