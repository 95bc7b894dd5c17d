#include "notificationpolicy.h"

#include <algorithm>
#include <limits>

namespace {

qint64 steadyNow()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

QString kindName(NotificationEvent::Kind kind)
{
    switch (kind) {
    case NotificationEvent::Kind::ExpiresSoon:
        return QStringLiteral("expires");
    case NotificationEvent::Kind::BootstrapFailed:
        return QStringLiteral("bootstrap");
    case NotificationEvent::Kind::Lost:
        return QStringLiteral("lost");
    case NotificationEvent::Kind::SweeperClosed:
        return QStringLiteral("swept");
    }
    return {};
}

} // namespace

NotificationPolicy::NotificationPolicy(Clock clock)
    : m_clock(std::move(clock))
{
}

qint64 NotificationPolicy::now() const
{
    return m_clock ? m_clock() : steadyNow();
}

void NotificationPolicy::setMuted(const QString &profileId, bool muted)
{
    if (!muted) {
        m_muted.remove(profileId);
        return;
    }
    m_muted.insert(profileId, true);
    // What waits of it goes too.
    for (auto it = m_pending.begin(); it != m_pending.end();) {
        if (it->first.profileId == profileId) {
            m_order.removeAll(it.key());
            it = m_pending.erase(it);
        } else {
            ++it;
        }
    }
}

void NotificationPolicy::setProfileName(const QString &profileId, const QString &name)
{
    m_names.insert(profileId, name);
}

QString NotificationPolicy::groupOf(const NotificationEvent &event)
{
    QString group = event.profileId + u'\x1f' + kindName(event.kind);
    if (event.kind == NotificationEvent::Kind::ExpiresSoon)
        group += u'\x1f' + QString::number(event.threshold.count());
    else if (event.kind == NotificationEvent::Kind::Lost)
        group += u'\x1f' + QString::number(int(event.reason));
    return group;
}

QString NotificationPolicy::dedupeKey(const NotificationEvent &event, const QString &workspaceId) const
{
    // A workspace lost is one event however Paddock learnt it (the manager, a listing).
    return event.profileId + u'\x1f' + kindName(event.kind) + u'\x1f' + workspaceId;
}

void NotificationPolicy::submit(const NotificationEvent &event)
{
    if (event.workspaceIds.isEmpty() || isMuted(event.profileId))
        return;
    const qint64 at = now();
    QStringList fresh;
    for (const QString &id : event.workspaceIds) {
        if (id.isEmpty() || fresh.contains(id))
            continue;
        // An expiry threshold fires once per deadline (ExpiryWatch); a renewal re-arms it, so it
        // is not deduplicated here. The rest: the same event twice within the window is once.
        if (event.kind != NotificationEvent::Kind::ExpiresSoon
            && event.kind != NotificationEvent::Kind::BootstrapFailed) {
            const QString key = dedupeKey(event, id);
            const auto told = m_told.constFind(key);
            if (told != m_told.cend() && at - *told < DedupeWindowMs)
                continue;
            m_told.insert(key, at);
        }
        fresh.append(id);
    }
    if (m_told.size() > 4096) {
        for (auto it = m_told.begin(); it != m_told.end();)
            it = at - *it >= DedupeWindowMs ? m_told.erase(it) : std::next(it);
    }
    if (fresh.isEmpty())
        return;
    const QString group = groupOf(event);
    auto it = m_pending.find(group);
    if (it == m_pending.end()) {
        Pending pending;
        pending.first = event;
        pending.first.workspaceIds.clear();
        pending.sinceMs = at;
        it = m_pending.insert(group, pending);
        m_order.append(group);
    }
    for (const QString &id : std::as_const(fresh)) {
        if (!it->ids.contains(id))
            it->ids.append(id);
    }
    if (it->detail.isEmpty())
        it->detail = event.detail;
}

std::optional<qint64> NotificationPolicy::nextDueMs() const
{
    if (m_order.isEmpty())
        return std::nullopt;
    qint64 next = std::numeric_limits<qint64>::max();
    for (const QString &group : m_order)
        next = std::min(next, m_pending.value(group).sinceMs + GroupWindowMs);
    if (qsizetype(m_sent.size()) >= RateLimit)
        next = std::max(next, m_sent.front() + RateWindowMs);
    return next;
}

QList<Notification> NotificationPolicy::due()
{
    const qint64 at = now();
    while (!m_sent.empty() && at - m_sent.front() >= RateWindowMs)
        m_sent.pop_front();
    QStringList ready;
    for (const QString &group : std::as_const(m_order)) {
        if (at - m_pending.value(group).sinceMs >= GroupWindowMs)
            ready.append(group);
    }
    const int slots = RateLimit - int(m_sent.size());
    if (ready.isEmpty() || slots <= 0)
        return {};
    QList<Notification> out;
    // More groups than slots: the last slot carries the rest, one line each.
    const qsizetype singly = ready.size() <= slots ? ready.size() : slots - 1;
    for (qsizetype i = 0; i < singly; ++i) {
        const QString &group = ready.at(i);
        const Pending pending = m_pending.take(group);
        m_order.removeAll(group);
        QStringList ids = pending.ids;
        QString detail = pending.detail;
        bool replaces = false;
        // Its notification still shown: updated in place, with every id so far.
        if (const auto shown = m_shown.constFind(group);
            shown != m_shown.cend() && at - shown->atMs <= ReplaceWindowMs) {
            QStringList all = shown->ids;
            for (const QString &id : std::as_const(ids)) {
                if (!all.contains(id))
                    all.append(id);
            }
            ids = all;
            if (detail.isEmpty())
                detail = shown->detail;
            replaces = true;
        }
        Notification notification = make(group, pending.first, ids, detail);
        notification.replaces = replaces;
        m_shown.insert(group, Shown{at, ids, detail});
        m_sent.push_back(at);
        out.append(notification);
    }
    if (singly < ready.size()) {
        QStringList lines;
        QStringList ids;
        QString profile;
        bool critical = false;
        for (qsizetype i = singly; i < ready.size(); ++i) {
            const QString &group = ready.at(i);
            const Pending pending = m_pending.take(group);
            m_order.removeAll(group);
            m_shown.remove(group); // its next one is new: this one said it among others
            const Notification one = make(group, pending.first, pending.ids, pending.detail);
            lines.append(one.summary);
            critical = critical || one.critical;
            if (profile.isEmpty())
                profile = one.profileId;
            if (one.profileId == profile) {
                for (const QString &id : one.workspaceIds) {
                    if (!ids.contains(id))
                        ids.append(id);
                }
            }
        }
        Notification folded;
        folded.group = QStringLiteral("folded");
        folded.profileId = profile;
        folded.summary = tr("%n update(s) from Paddock", nullptr, int(lines.size()));
        folded.body = lines.join(u'\n');
        folded.workspaceIds = ids;
        folded.critical = critical;
        m_sent.push_back(at);
        out.append(folded);
    }
    return out;
}

void NotificationPolicy::closed(const QString &group)
{
    m_shown.remove(group);
}

QString NotificationPolicy::durationText(std::chrono::seconds duration)
{
    const qint64 seconds = duration.count();
    if (seconds >= 3600 && seconds % 3600 == 0)
        return tr("%n hour(s)", nullptr, int(seconds / 3600));
    if (seconds >= 60 && seconds % 60 == 0)
        return tr("%n minute(s)", nullptr, int(seconds / 60));
    return tr("%n second(s)", nullptr, int(seconds));
}

QString NotificationPolicy::idsText(const QStringList &ids) const
{
    if (ids.size() <= IdsShown)
        return ids.join(QStringLiteral(", "));
    return tr("%1 and %n more", nullptr, int(ids.size() - IdsShown))
        .arg(ids.mid(0, IdsShown).join(QStringLiteral(", ")));
}

Notification NotificationPolicy::make(const QString &group, const NotificationEvent &what, const QStringList &ids,
                                      const QString &detail) const
{
    using Kind = NotificationEvent::Kind;
    using Reason = NotificationEvent::LostReason;
    Notification n;
    n.group = group;
    n.profileId = what.profileId;
    n.workspaceIds = ids;
    const int count = int(ids.size());
    const QString one = ids.value(0);
    const QString name = m_names.value(what.profileId, what.profileId);
    QString body = count == 1 ? QString() : idsText(ids);
    switch (what.kind) {
    case Kind::ExpiresSoon: {
        const QString within = durationText(what.threshold);
        n.summary = count == 1 ? tr("Workspace %1 expires within %2").arg(one, within)
                               : tr("%n workspace(s) expire within %1", nullptr, count).arg(within);
        n.critical = what.threshold <= std::chrono::minutes(1);
        break;
    }
    case Kind::BootstrapFailed:
        n.summary = count == 1 ? tr("Bootstrap failed: %1").arg(one)
                               : tr("Bootstrap failed for %n workspace(s)", nullptr, count);
        if (count == 1 && !detail.isEmpty()) {
            // Its first line, as the tooltip of its row starts.
            QString first = detail.section(u'\n', 0, 0);
            if (first.size() > 300)
                first = first.left(299) + u'…';
            body = first;
        }
        break;
    case Kind::Lost:
        switch (what.reason) {
        case Reason::Gone:
            n.summary =
                count == 1 ? tr("Workspace %1 was lost").arg(one) : tr("%n workspace(s) were lost", nullptr, count);
            body += (body.isEmpty() ? QString() : QStringLiteral("\n"))
                + (count == 1 ? tr("Its sandbox is gone: deleted behind Paddock's back, or expired.")
                              : tr("Their sandboxes are gone: deleted behind Paddock's back, or expired."));
            break;
        case Reason::Expired:
            n.summary =
                count == 1 ? tr("Workspace %1 expired").arg(one) : tr("%n workspace(s) expired", nullptr, count);
            break;
        case Reason::DeletedElsewhere:
            n.summary = count == 1 ? tr("Workspace %1 was deleted outside Paddock").arg(one)
                                   : tr("%n workspace(s) were deleted outside Paddock", nullptr, count);
            break;
        }
        break;
    case Kind::SweeperClosed:
        n.summary = count == 1 ? tr("Workspace %1 was closed for idleness").arg(one)
                               : tr("%n workspace(s) were closed for idleness", nullptr, count);
        break;
    }
    n.body = (body.isEmpty() ? QString() : body + u'\n') + tr("Profile: %1").arg(name);
    return n;
}
