#include "activitytracker.h"

#include "profilesession.h"

#include <QCoroSignal>
#include <QCoroTask>

#include <QLoggingCategory>

Q_LOGGING_CATEGORY(lcActivity, "paddock.app.activity", QtInfoMsg)

using namespace Paddock;

ActivityTracker::ActivityTracker(QObject *parent)
    : QObject(parent)
{
}

ActivityTracker::~ActivityTracker() = default;

void ActivityTracker::setClock(Clock clock)
{
    m_clock = std::move(clock);
}

QDateTime ActivityTracker::now() const
{
    return m_clock ? m_clock() : QDateTime::currentDateTimeUtc();
}

QDateTime ActivityTracker::lastActivity(const QString &key) const
{
    const auto it = m_entries.constFind(key);
    if (it == m_entries.cend())
        return {};
    if (!it->access.isValid())
        return it->sessions;
    if (!it->sessions.isValid())
        return it->access;
    return std::max(it->access, it->sessions);
}

QHash<QString, QDateTime> ActivityTracker::activityOf(const QString &profile) const
{
    QHash<QString, QDateTime> known;
    const QString prefix = profile + u'\x1f';
    for (auto it = m_entries.cbegin(); it != m_entries.cend(); ++it) {
        if (!it.key().startsWith(prefix))
            continue;
        if (const QDateTime last = lastActivity(it.key()); last.isValid())
            known.insert(it.key().mid(prefix.size()), last);
    }
    return known;
}

void ActivityTracker::settle(const QString &key, const QDateTime &before)
{
    const QDateTime after = lastActivity(key);
    if (after.isValid() && (!before.isValid() || after > before))
        Q_EMIT activityChanged(key, after);
}

void ActivityTracker::noteAccess(const QString &key)
{
    const QDateTime before = lastActivity(key);
    m_entries[key].access = now();
    settle(key, before);
}

void ActivityTracker::clearCache()
{
    for (Entry &entry : m_entries) {
        if (!entry.queued)
            entry.readAt = QDateTime();
    }
}

void ActivityTracker::request(ProfileSession *session, const QList<Target> &targets)
{
    if (!session)
        return;
    const QDateTime fresh = now().addSecs(-MaxAgeSeconds);
    for (const Target &target : targets) {
        Entry &entry = m_entries[target.key];
        if (entry.queued || (entry.readAt.isValid() && entry.readAt > fresh))
            continue;
        entry.queued = true;
        m_queue.push_back(Job{session, target});
    }
    pump();
}

QCoro::Task<void> ActivityTracker::fetch(ProfileSession *session, QList<Target> targets)
{
    request(session, targets);
    const QPointer<ActivityTracker> self(this);
    const auto waiting = [this, &targets] {
        return std::any_of(targets.cbegin(), targets.cend(),
                           [this](const Target &target) { return m_entries.value(target.key).queued; });
    };
    while (self && waiting())
        co_await qCoro(this, &ActivityTracker::idle);
}

void ActivityTracker::pump()
{
    // A backend that answers at once finishes read() inside this loop; the loop goes on rather
    // than recursing once per target.
    if (m_pumping)
        return;
    m_pumping = true;
    while (m_running < Concurrency && !m_queue.empty()) {
        Job job = std::move(m_queue.front());
        m_queue.pop_front();
        ++m_running;
        read(std::move(job));
    }
    m_pumping = false;
    if (m_running == 0 && m_queue.empty())
        Q_EMIT idle();
}

QCoro::Task<void> ActivityTracker::read(Job job)
{
    const QPointer<ActivityTracker> self(this);
    Result<std::optional<QDateTime>> answer = fail(Error{Error::Kind::Cancelled, tr("the profile went away")});
    if (job.session)
        answer = co_await job.session->sessionsActivity(job.target.sandboxId);
    if (!self)
        co_return;
    --m_running;
    Entry &entry = m_entries[job.target.key];
    entry.queued = false;
    entry.readAt = now();
    if (answer && answer->has_value()) {
        const QDateTime before = lastActivity(job.target.key);
        entry.sessions = **answer;
        settle(job.target.key, before);
    } else if (!answer) {
        // Not fatal: the row keeps what the backend's listing says. Asked again after MaxAge.
        qCDebug(lcActivity).noquote() << "sessions activity of" << job.target.sandboxId
                                      << "unknown:" << answer.error().message;
    }
    pump();
}
