#pragma once

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QString>
#include <QStringList>

#include <chrono>
#include <functional>
#include <limits>
#include <optional>
#include <queue>
#include <vector>

class WorkspaceTreeModel;
class QModelIndex;

// Which workspaces cross a notice threshold before their expiry (10 and 1 minutes by default,
// per profile), each threshold once per deadline.
//
// It follows the tree model's rows (attach()): rows inserted, changed by a listing or a watch,
// removed, the model reset; never the countdown ticks. Each row with an expiry has the instant of
// its next threshold in a min-heap, so check() (once a second) costs a comparison when nothing is
// due, whatever the number of rows.
//
// - Once: a threshold fired for a deadline does not fire again for it, even when its row goes
//   and comes back (another profile shown meanwhile, a row moved to another group). A deadline
//   that moves by more than a second (a renewal) re-arms every threshold.
// - Folded: a workspace already past several thresholds when it is seen (first seen, or a clock
//   jump forward) gets one notice, for the shortest of them; a deadline already past gets none
//   (its workspace expired: the listing that drops its row says so).
// - A clock that jumps back fires nothing again: what fired stays fired for that deadline. A jump
//   (the wall clock moving more than JumpToleranceMs away from the monotonic one) is logged once
//   per jump (paddock.app.notify).
class ExpiryWatch final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExpiryWatch)

public:
    using Clock = std::function<qint64()>; // milliseconds
    static constexpr qint64 JumpToleranceMs = 5000;
    static constexpr qint64 RenewalToleranceMs = 1000;

    struct Crossing
    {
        QString profileId;
        std::chrono::seconds threshold{0};
        QStringList workspaceIds;
    };

    explicit ExpiryWatch(QObject *parent = nullptr);
    ~ExpiryWatch() override;

    // Wall time (ms since the epoch, UTC) and monotonic time; the system's without them.
    void setClocks(Clock wallMs, Clock monotonicMs);
    // A profile's thresholds (any order; empty: none). Without: the defaults, 10 and 1 minutes.
    void setThresholds(const QString &profileId, QList<std::chrono::seconds> thresholds);
    QList<std::chrono::seconds> thresholds(const QString &profileId) const;

    // Follows a model's rows from now on (those it has are read now).
    void attach(WorkspaceTreeModel *model);

    // A row as the model has it (expiresMs empty: it never expires, or its timer is stopped).
    void upsert(const QString &profileId, const QString &sandboxId, const QString &workspaceId,
                std::optional<qint64> expiresMs, bool running = true);
    void remove(const QString &profileId, const QString &sandboxId);

    // What crossed a threshold since the last check, grouped by profile and threshold.
    QList<Crossing> check();

    // Rows followed, running ones among them, and those that crossed a threshold and have not
    // expired yet (for the tray).
    qsizetype watchedCount() const { return m_present; }
    int runningCount() const { return m_running; }
    int soonCount() const;
    int jumps() const { return m_jumps; }

private:
    struct Entry
    {
        QString profileId;
        QString workspaceId;
        qint64 deadlineMs = 0; // 0: none
        qint64 firedBelowMs = std::numeric_limits<qint64>::max(); // the shortest threshold fired
        quint32 generation = 0;
        bool present = false; // a row of the model has it now
        bool running = false;
    };
    struct Due
    {
        qint64 atMs;
        quint32 generation;
        QString key;
        bool operator>(const Due &other) const { return atMs > other.atMs; }
    };
    static QString keyOf(const QString &profileId, const QString &sandboxId) { return profileId + u'\x1f' + sandboxId; }
    void schedule(const QString &key, Entry &entry);
    void readRows(const QModelIndex &parent, int first, int last, bool present, bool deep = true);
    void readAll();
    qint64 wallNow() const;
    qint64 monotonicNow() const;

    Clock m_wall;
    Clock m_monotonic;
    QHash<QString, QList<qint64>> m_thresholds; // profile -> thresholds in ms, the longest first
    QHash<QString, Entry> m_entries;
    std::priority_queue<Due, std::vector<Due>, std::greater<>> m_heap;
    QSet<QString> m_warned; // keys past a threshold, not expired: soonCount()
    QPointer<WorkspaceTreeModel> m_model;
    qsizetype m_present = 0;
    int m_running = 0;
    int m_jumps = 0;
    qint64 m_lastWall = 0;
    qint64 m_lastMonotonic = 0;
    int m_checks = 0;
};
