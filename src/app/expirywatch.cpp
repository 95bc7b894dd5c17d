#include "expirywatch.h"

#include "workspacetreemodel.h"

#include <QDateTime>
#include <QLoggingCategory>

#include <cstdlib>

Q_DECLARE_LOGGING_CATEGORY(lcNotify)

using namespace Paddock;

namespace {

qint64 steadyMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

const QList<qint64> DefaultThresholdsMs{10 * 60 * 1000, 60 * 1000};

} // namespace

ExpiryWatch::ExpiryWatch(QObject *parent)
    : QObject(parent)
{
}

ExpiryWatch::~ExpiryWatch() = default;

void ExpiryWatch::setClocks(Clock wallMs, Clock monotonicMs)
{
    m_wall = std::move(wallMs);
    m_monotonic = std::move(monotonicMs);
    m_lastWall = 0;
    m_lastMonotonic = 0;
}

qint64 ExpiryWatch::wallNow() const
{
    return m_wall ? m_wall() : QDateTime::currentMSecsSinceEpoch();
}

qint64 ExpiryWatch::monotonicNow() const
{
    return m_monotonic ? m_monotonic() : steadyMs();
}

void ExpiryWatch::setThresholds(const QString &profileId, QList<std::chrono::seconds> thresholds)
{
    QList<qint64> ms;
    for (const std::chrono::seconds threshold : thresholds) {
        if (threshold.count() > 0 && !ms.contains(threshold.count() * 1000))
            ms.append(threshold.count() * 1000);
    }
    std::sort(ms.begin(), ms.end(), std::greater<>());
    if (m_thresholds.contains(profileId) && m_thresholds.value(profileId) == ms)
        return;
    m_thresholds.insert(profileId, ms);
    // Its rows wait for their next threshold of these (what fired stays fired).
    for (auto it = m_entries.begin(); it != m_entries.end(); ++it) {
        if (it->profileId == profileId && it->present)
            schedule(it.key(), *it);
    }
}

QList<std::chrono::seconds> ExpiryWatch::thresholds(const QString &profileId) const
{
    QList<std::chrono::seconds> out;
    for (const qint64 ms : m_thresholds.value(profileId, DefaultThresholdsMs))
        out.append(std::chrono::seconds(ms / 1000));
    return out;
}

void ExpiryWatch::attach(WorkspaceTreeModel *model)
{
    if (m_model)
        disconnect(m_model, nullptr, this, nullptr);
    m_model = model;
    if (!model)
        return;
    // Rows that come, change (a listing's or a watch's change, a state set by an action: those
    // name no roles; the countdown ticks and late activity do, and are skipped) and go.
    connect(model, &QAbstractItemModel::rowsInserted, this,
            [this](const QModelIndex &parent, int first, int last) { readRows(parent, first, last, true); });
    connect(model, &QAbstractItemModel::rowsAboutToBeRemoved, this,
            [this](const QModelIndex &parent, int first, int last) { readRows(parent, first, last, false); });
    connect(model, &QAbstractItemModel::dataChanged, this,
            [this](const QModelIndex &topLeft, const QModelIndex &bottomRight, const QList<int> &roles) {
                if (!roles.isEmpty() || !topLeft.isValid())
                    return;
                if (topLeft.column() > WorkspaceTreeModel::ExpiryColumn
                    || bottomRight.column() < WorkspaceTreeModel::StateColumn)
                    return; // neither the state nor the expiry
                // Only workspace rows: a group's counts change with its rows, which say so themselves.
                readRows(topLeft.parent(), topLeft.row(), bottomRight.row(), true, false);
            });
    connect(model, &QAbstractItemModel::modelReset, this, &ExpiryWatch::readAll);
    readAll();
}

void ExpiryWatch::readRows(const QModelIndex &parent, int first, int last, bool present, bool deep)
{
    if (!m_model)
        return;
    for (int row = first; row <= last; ++row) {
        const QModelIndex index = m_model->index(row, 0, parent);
        QList<const WorkspaceRecord *> records;
        if (deep) {
            records = m_model->recordsUnder(index);
        } else if (const WorkspaceRecord *record = m_model->record(index)) {
            records.append(record);
        }
        for (const WorkspaceRecord *record : std::as_const(records)) {
            const SandboxInfo &info = record->info;
            if (!present) {
                remove(record->profile, info.sandboxId);
                continue;
            }
            const bool expires = info.expiresAt && info.expiresAt->isValid() && info.state != SandboxState::Terminated;
            upsert(record->profile, info.sandboxId, info.workspaceId,
                   expires ? std::optional(info.expiresAt->toMSecsSinceEpoch()) : std::nullopt,
                   info.state == SandboxState::Running);
        }
    }
}

void ExpiryWatch::readAll()
{
    if (!m_model)
        return;
    // What the model has now, and nothing else.
    for (auto it = m_entries.begin(); it != m_entries.end(); ++it) {
        if (it->present)
            remove(it->profileId, it.key().section(u'\x1f', 1));
    }
    m_entries.reserve(m_entries.size() + m_model->workspaceCount());
    readRows({}, 0, m_model->rowCount() - 1, true);
}

void ExpiryWatch::upsert(const QString &profileId, const QString &sandboxId, const QString &workspaceId,
                         std::optional<qint64> expiresMs, bool running)
{
    const QString key = keyOf(profileId, sandboxId);
    auto it = m_entries.find(key);
    if (it == m_entries.end()) {
        Entry entry;
        entry.profileId = profileId;
        it = m_entries.insert(key, entry);
    }
    Entry &entry = *it;
    entry.workspaceId = workspaceId;
    const qint64 deadline = expiresMs.value_or(0);
    bool moved = false;
    if ((deadline == 0) != (entry.deadlineMs == 0) || std::abs(deadline - entry.deadlineMs) > RenewalToleranceMs) {
        // A new deadline (a renewal, an expiry that came or went): every threshold again.
        entry.deadlineMs = deadline;
        entry.firedBelowMs = std::numeric_limits<qint64>::max();
        m_warned.remove(key);
        moved = true;
    }
    const bool came = !entry.present;
    if (came) {
        entry.present = true;
        ++m_present;
    } else if (entry.running) {
        --m_running;
    }
    entry.running = running;
    if (running)
        ++m_running;
    if (moved || came)
        schedule(key, entry);
}

void ExpiryWatch::remove(const QString &profileId, const QString &sandboxId)
{
    const QString key = keyOf(profileId, sandboxId);
    const auto it = m_entries.find(key);
    if (it == m_entries.end() || !it->present)
        return;
    // Kept (absent) with what fired, so the same row coming back fires nothing again.
    it->present = false;
    --m_present;
    if (it->running)
        --m_running;
    it->running = false;
    ++it->generation; // its place in the heap is void
    m_warned.remove(key);
    // A profile whose rows are all dropped, when no row of it is listed any more: freed at the
    // next collection once their deadlines are past.
}

void ExpiryWatch::schedule(const QString &key, Entry &entry)
{
    ++entry.generation;
    if (entry.deadlineMs == 0)
        return;
    const QList<qint64> &thresholds =
        m_thresholds.contains(entry.profileId) ? *m_thresholds.constFind(entry.profileId) : DefaultThresholdsMs;
    // The next threshold not fired (the longest below the shortest fired), else the deadline
    // itself, where a warned row stops counting as soon to expire.
    qint64 at = 0;
    for (const qint64 threshold : thresholds) {
        if (threshold < entry.firedBelowMs) {
            at = entry.deadlineMs - threshold;
            break;
        }
    }
    if (at == 0) {
        if (entry.firedBelowMs == std::numeric_limits<qint64>::max())
            return; // no threshold at all
        at = entry.deadlineMs;
    }
    m_heap.push(Due{at, entry.generation, key});
}

QList<ExpiryWatch::Crossing> ExpiryWatch::check()
{
    const qint64 now = wallNow();
    const qint64 monotonic = monotonicNow();
    if (m_lastMonotonic != 0) {
        const qint64 drift = (now - m_lastWall) - (monotonic - m_lastMonotonic);
        if (std::abs(drift) > JumpToleranceMs) {
            ++m_jumps;
            qCInfo(lcNotify).noquote() << "the clock jumped" << (drift > 0 ? "forward" : "back") << "by"
                                       << std::abs(drift) / 1000
                                       << "s: thresholds it crossed are folded into one "
                                          "notice per workspace, and none fires twice";
        }
    }
    m_lastWall = now;
    m_lastMonotonic = monotonic;

    QList<Crossing> out;
    QHash<QString, qsizetype> outIndex; // profile + threshold -> index in out
    while (!m_heap.empty() && m_heap.top().atMs <= now) {
        const Due due = m_heap.top();
        m_heap.pop();
        const auto it = m_entries.find(due.key);
        if (it == m_entries.end() || it->generation != due.generation || !it->present)
            continue; // void: changed, gone, or scheduled again since
        Entry &entry = *it;
        if (now >= entry.deadlineMs) {
            m_warned.remove(due.key); // expired: nothing to tell before it any more
            continue;
        }
        const QList<qint64> &thresholds =
            m_thresholds.contains(entry.profileId) ? *m_thresholds.constFind(entry.profileId) : DefaultThresholdsMs;
        // The shortest threshold crossed and not fired: the ones above it are folded into it.
        qint64 fire = 0;
        for (const qint64 threshold : thresholds) {
            if (threshold < entry.firedBelowMs && entry.deadlineMs - threshold <= now)
                fire = threshold;
        }
        if (fire > 0) {
            entry.firedBelowMs = fire;
            m_warned.insert(due.key);
            const QString group = entry.profileId + u'\x1f' + QString::number(fire);
            auto found = outIndex.constFind(group);
            if (found == outIndex.cend()) {
                out.append(Crossing{entry.profileId, std::chrono::seconds(fire / 1000), {}});
                found = outIndex.insert(group, out.size() - 1);
            }
            out[*found].workspaceIds.append(entry.workspaceId);
        }
        schedule(due.key, entry);
    }

    // Now and then: rows gone for good (absent, their deadline an hour past), and a heap that
    // holds mostly void places.
    if (++m_checks % 600 == 0) {
        for (auto it = m_entries.begin(); it != m_entries.end();)
            it = !it->present && it->deadlineMs < now - 3600 * 1000 ? m_entries.erase(it) : std::next(it);
        if (m_heap.size() > size_t(4 * m_entries.size() + 1024)) {
            m_heap = {};
            for (auto it = m_entries.begin(); it != m_entries.end(); ++it) {
                if (it->present)
                    schedule(it.key(), *it);
            }
        }
    }
    return out;
}

int ExpiryWatch::soonCount() const
{
    const qint64 now = wallNow();
    int count = 0;
    for (const QString &key : m_warned) {
        const auto it = m_entries.constFind(key);
        if (it != m_entries.cend() && it->present && it->deadlineMs > now)
            ++count;
    }
    return count;
}
