#pragma once

#include "profilesession.h"

#include <QCoroFwd>

#include <QDateTime>
#include <QHash>
#include <QObject>
#include <QPointer>

#include <deque>
#include <functional>

// The console's view of when each workspace was last active: the newest of the console's own
// access (Open, Resume) and the workspace's sessions/ activity where the backend can report it.
//
// sessions/ activity is read on demand (the rows in view, or every candidate before idle
// triage), at most Concurrency reads at once, and cached for MaxAge; reads never block the
// caller, and answers arrive through activityChanged(). Keys are WorkspaceRecord::key().
class ActivityTracker final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ActivityTracker)

public:
    static constexpr int Concurrency = 4;
    static constexpr qint64 MaxAgeSeconds = 60;
    using Clock = std::function<QDateTime()>; // UTC now

    explicit ActivityTracker(QObject *parent = nullptr);
    ~ActivityTracker() override;

    void setClock(Clock clock);
    // The console itself used the workspace now.
    void noteAccess(const QString &key);
    // The newest activity known for a workspace; invalid when nothing is known.
    QDateTime lastActivity(const QString &key) const;
    // The newest activity known of every workspace of a profile that has any, by sandbox id (for
    // a refresh: a lookup by sandbox id per row, no key to build).
    QHash<QString, QDateTime> activityOf(const QString &profile) const;
    bool isEmpty() const { return m_entries.isEmpty(); }

    struct Target
    {
        QString key;
        QString sandboxId;
    };
    // Queues a read of each target's sessions/ activity unless one is cached (younger than
    // MaxAge) or already queued. Returns at once.
    void request(Paddock::ProfileSession *session, const QList<Target> &targets);
    // The same, and completes when every one of these targets has an answer (or failed).
    QCoro::Task<void> fetch(Paddock::ProfileSession *session, QList<Target> targets);
    // Forgets the cached reads (not the console's own accesses), e.g. when the profile changes.
    void clearCache();
    int pendingCount() const { return int(m_queue.size()) + m_running; }

Q_SIGNALS:
    // lastActivity(key) moved forward.
    void activityChanged(const QString &key, const QDateTime &lastActivity);
    // The queue ran empty.
    void idle();

private:
    struct Entry
    {
        QDateTime access; // the console's own
        QDateTime sessions; // sessions/ activity as last read
        QDateTime readAt; // when it was read; invalid: never
        bool queued = false;
    };
    struct Job
    {
        QPointer<Paddock::ProfileSession> session;
        Target target;
    };
    void pump();
    QCoro::Task<void> read(Job job);
    void settle(const QString &key, const QDateTime &before);
    QDateTime now() const;

    QHash<QString, Entry> m_entries;
    std::deque<Job> m_queue;
    int m_running = 0;
    bool m_pumping = false;
    Clock m_clock;
};
