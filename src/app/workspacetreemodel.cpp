#include "workspacetreemodel.h"

#include "colorscheme.h"

#include <QColor>
#include <QFontMetrics>
#include <QGuiApplication>
#include <QIcon>
#include <QLocale>
#include <QPainter>
#include <QPixmap>
#include <QScopeGuard>
#include <QSet>
#include <QThreadPool>

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <utility>

using namespace Paddock;

struct WorkspaceTreeModel::Node
{
    // First, in one cache line: what a refresh reads of an unchanged workspace row.
    quint64 pass = 0; // the last update() that listed this workspace row
    quint64 fingerprint = 0; // record.info.fingerprint; 0: compare in full (and decorate again)
    qint64 listedActivityMs = 0; // record.listedActivityMs
    Kind kind = Kind::Workspace;
    Node *parent = nullptr;
    int row = 0; // index in parent->children
    QString name; // a group's user id or agent label
    std::vector<std::unique_ptr<Node>> children;
    QHash<QString, Node *> groups; // child groups by name
    WorkspaceRecord record; // a workspace row's data
    StateCounts counts{}; // a group's workspaces per state
    int total = 0;
    qint64 idleMs = 0; // countdown deadlines of a workspace row, ms since the epoch (or none)
    qint64 expiryMs = 0;
    qint64 activityMs = 0; // its times shown as "3 min ago", ms since the epoch (or none)
    qint64 createdMs = 0;
    std::unique_ptr<Paddock::SandboxMetrics> metrics; // what it uses, as last reported (none: absent)
};

namespace {

// How many calendar days before the day that starts at `todayStartMs` (local midnight) the time
// `whenMs` is: 0 today, 1 yesterday.
qint64 daysBack(qint64 whenMs, qint64 todayStartMs)
{
    return whenMs >= todayStartMs ? 0 : 1 + (todayStartMs - 1 - whenMs) / 86400000;
}

// What a relative time shows changes with this bucket (formatRelative): "just now", minutes,
// hours, then calendar days.
qint64 relativeBucket(qint64 whenMs, qint64 nowMs, qint64 todayStartMs)
{
    if (whenMs == std::numeric_limits<qint64>::min())
        return whenMs;
    const qint64 age = (nowMs - whenMs) / 1000;
    if (age < 60)
        return 0;
    if (age < 3600)
        return 1000 + age / 60;
    if (age < 86400)
        return 100000 + age / 3600;
    return 1000000 + daysBack(whenMs, todayStartMs);
}

// A sandbox whose timer is stopped while it is paused (E2B): no deadline, yet not "never".
bool timerStopped(const SandboxInfo &info)
{
    return !info.expiresAt && info.pausedAt.isValid();
}

bool sameData(const WorkspaceRecord &a, const WorkspaceRecord &b)
{
    const SandboxInfo &x = a.info;
    const SandboxInfo &y = b.info;
    // Fingerprints made where the records were parsed stand for the backend's fields: an
    // unchanged row of a refresh costs no string reads (cold memory, with 10,000 rows).
    if (x.fingerprint != 0 && x.fingerprint == y.fingerprint)
        return x.lastActivityAt == y.lastActivityAt && a.idleDeadline == b.idleDeadline && a.agents == b.agents
            && a.bootstrapFailure == b.bootstrapFailure;
    return x.state == y.state && x.rawState == y.rawState && x.workspaceId == y.workspaceId && x.userId == y.userId
        && x.agentId == y.agentId && x.backend == y.backend && x.image == y.image && x.createdAt == y.createdAt
        && x.expiresAt == y.expiresAt && x.pausedAt == y.pausedAt && x.lastActivityAt == y.lastActivityAt
        && x.metadata == y.metadata && a.idleDeadline == b.idleDeadline && a.agents == b.agents
        && a.bootstrapFailure == b.bootstrapFailure;
}

// The first and last column whose shown value differs between two versions of a row (first >
// last: none).
std::pair<int, int> changedColumns(const WorkspaceRecord &a, const WorkspaceRecord &b)
{
    const SandboxInfo &x = a.info;
    const SandboxInfo &y = b.info;
    const std::array<bool, WorkspaceTreeModel::ColumnCount> changed{
        x.workspaceId != y.workspaceId
            || x.metadata.value(QStringLiteral("name")) != y.metadata.value(QStringLiteral("name")),
        x.state != y.state || x.rawState != y.rawState || a.bootstrapFailure != b.bootstrapFailure,
        x.userId != y.userId,
        x.agentId != y.agentId || a.agents != b.agents,
        x.backend != y.backend || a.profile != b.profile,
        a.idleDeadline != b.idleDeadline || x.state != y.state,
        x.expiresAt != y.expiresAt || x.pausedAt != y.pausedAt,
        x.lastActivityAt != y.lastActivityAt,
        x.createdAt != y.createdAt,
        x.image != y.image,
        x.sandboxId != y.sandboxId,
    };
    int first = WorkspaceTreeModel::ColumnCount;
    int last = -1;
    for (int column = 0; column < WorkspaceTreeModel::ColumnCount; ++column) {
        if (changed.at(size_t(column))) {
            first = std::min(first, column);
            last = column;
        }
    }
    return {first, last};
}

QColor stateColor(SandboxState state)
{
    switch (state) {
    case SandboxState::Running:
        return QColor(0x2e, 0x9e, 0x44);
    case SandboxState::Paused:
        return QColor(0x3b, 0x7d, 0xd8);
    case SandboxState::Pending:
    case SandboxState::Pausing:
    case SandboxState::Resuming:
    case SandboxState::Stopping:
        return QColor(0xd9, 0x9a, 0x1e);
    case SandboxState::Failed:
        return QColor(0xd0, 0x3b, 0x3b);
    case SandboxState::Terminated:
    case SandboxState::Unknown:
        break;
    }
    return QColor(0x88, 0x88, 0x88);
}

QIcon stateIcon(SandboxState state)
{
    static QHash<int, QIcon> cache;
    if (const auto it = cache.constFind(int(state)); it != cache.cend())
        return *it;
    QPixmap pixmap(16, 16);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(Qt::NoPen);
    painter.setBrush(stateColor(state));
    painter.drawEllipse(QRectF(3, 3, 10, 10));
    painter.end();
    const QIcon icon(pixmap);
    cache.insert(int(state), icon);
    return icon;
}

} // namespace

WorkspaceTreeModel::WorkspaceTreeModel(QObject *parent)
    : QAbstractItemModel(parent)
    , m_root(std::make_unique<Node>())
    , m_clock([] { return QDateTime::currentDateTimeUtc(); })
{
}

WorkspaceTreeModel::~WorkspaceTreeModel() = default;

QString WorkspaceTreeModel::stateText(SandboxState state, const QString &raw, Capabilities capabilities)
{
    // A backend that stops instead of pausing (Kubernetes deletes the Pod and keeps its PVC): its
    // processes end and its files stay, which is not what "paused" says.
    const bool stops = capabilities.testFlag(Capability::StopInsteadOfPause);
    switch (state) {
    case SandboxState::Pending:
        return WorkspaceTreeModel::tr("Pending");
    case SandboxState::Running:
        return WorkspaceTreeModel::tr("Running");
    case SandboxState::Pausing:
        return stops ? WorkspaceTreeModel::tr("Stopping") : WorkspaceTreeModel::tr("Pausing");
    case SandboxState::Paused:
        return stops ? WorkspaceTreeModel::tr("Stopped") : WorkspaceTreeModel::tr("Paused");
    case SandboxState::Resuming:
        return WorkspaceTreeModel::tr("Resuming");
    case SandboxState::Stopping:
        return WorkspaceTreeModel::tr("Stopping");
    case SandboxState::Terminated:
        return WorkspaceTreeModel::tr("Terminated");
    case SandboxState::Failed:
        return WorkspaceTreeModel::tr("Failed");
    case SandboxState::Unknown:
        break;
    }
    // A state this build does not know is shown as the server said it.
    return raw.isEmpty() ? WorkspaceTreeModel::tr("Unknown") : raw;
}

QString WorkspaceTreeModel::stateText(const WorkspaceRecord &record) const
{
    return stateText(record.info.state, record.info.rawState, capabilities(record.profile));
}

QString WorkspaceTreeModel::unknownText()
{
    return WorkspaceTreeModel::tr("unknown");
}

QString WorkspaceTreeModel::unknownToolTip(Kind kind)
{
    return kind == Kind::Agent ? WorkspaceTreeModel::tr("No agent is recorded for these workspaces: they were made "
                                                        "outside Paddock (AgentScope, for one, records no agent on "
                                                        "the cluster)")
                               : WorkspaceTreeModel::tr("No user is recorded for these workspaces: they were made "
                                                        "outside Paddock (AgentScope, for one, records no user on "
                                                        "the cluster)");
}

// --- QAbstractItemModel ---------------------------------------------------------------------

WorkspaceTreeModel::Node *WorkspaceTreeModel::nodeOf(const QModelIndex &index) const
{
    if (!index.isValid())
        return m_root.get();
    auto *parent = static_cast<Node *>(index.internalPointer());
    return parent->children.at(size_t(index.row())).get();
}

QModelIndex WorkspaceTreeModel::indexOf(const Node *node, int column) const
{
    if (!node || node == m_root.get())
        return {};
    return createIndex(node->row, column, node->parent);
}

QModelIndex WorkspaceTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (column < 0 || column >= ColumnCount || row < 0)
        return {};
    Node *node = nodeOf(parent);
    if (size_t(row) >= node->children.size())
        return {};
    return createIndex(row, column, node);
}

QModelIndex WorkspaceTreeModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    return indexOf(static_cast<Node *>(child.internalPointer()));
}

int WorkspaceTreeModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() && parent.column() != 0)
        return 0;
    return int(nodeOf(parent)->children.size());
}

int WorkspaceTreeModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

Qt::ItemFlags WorkspaceTreeModel::flags(const QModelIndex &index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    const Node *node = nodeOf(index);
    Qt::ItemFlags flags = Qt::ItemIsSelectable | Qt::ItemIsEnabled;
    if (node->kind == Kind::Workspace)
        flags |= Qt::ItemNeverHasChildren;
    return flags;
}

QVariant WorkspaceTreeModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const Node *node = nodeOf(index);
    if (role == KindRole)
        return QVariant::fromValue(node->kind);
    return node->kind == Kind::Workspace ? workspaceData(node, index.column(), role)
                                         : groupData(node, index.column(), role);
}

QVariant WorkspaceTreeModel::groupData(const Node *node, int column, int role) const
{
    if (node->kind == Kind::Profile) {
        // A profile's group: its name, and its own freshness or problem, on its row.
        const ProfileGroup info = m_profileInfo.value(node->name);
        const QString name = info.name.isEmpty() ? node->name : info.name;
        if (role == ProfileRole)
            return node->name;
        if (column == WorkspaceColumn) {
            switch (role) {
            case SortRole:
                return name;
            case Qt::DisplayRole:
                return info.status.isEmpty() ? name : tr("%1 — %2").arg(name, info.status);
            case Qt::ToolTipRole:
            case Qt::AccessibleDescriptionRole: {
                QStringList lines{tr("Profile %1").arg(name)};
                if (!info.backend.isEmpty())
                    lines.append(tr("Backend: %1").arg(info.backend));
                if (!info.status.isEmpty())
                    lines.append(info.status);
                if (!info.details.isEmpty() && info.details != info.status)
                    lines.append(info.details);
                return lines.join(u'\n');
            }
            case Qt::ForegroundRole:
                return info.warning ? QVariant(Tones::warning()) : QVariant();
            default:
                break;
            }
        }
        if (column == BackendColumn && (role == Qt::DisplayRole || role == SortRole))
            return info.backend;
    }
    if (role == SortRole) {
        switch (column) {
        case StateColumn:
            return node->total;
        case IdleColumn:
        case ExpiryColumn:
        case LastActivityColumn:
        case CreatedColumn:
            // Countdowns: the most urgent of its rows; times: the newest.
            return groupSortValue(summarize(indexOf(node)), column);
        default:
            return node->name; // by name under the other columns
        }
    }
    // Workspaces with no user or agent recorded (made outside Paddock) are grouped under
    // "unknown", in grey, and the tooltip says why. (Sorted by name, the group still sorts by
    // its empty name, and Open prefills no user from it.)
    const bool unknown = node->name.isEmpty();
    if (role == Qt::ForegroundRole && column == WorkspaceColumn && unknown)
        return Tones::dim();
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    if (column == WorkspaceColumn) {
        if (unknown)
            return role == Qt::ToolTipRole ? unknownToolTip(node->kind) : unknownText();
        if (role == Qt::ToolTipRole)
            return node->kind == Kind::User ? tr("User %1").arg(node->name) : tr("Agent %1").arg(node->name);
        return node->name;
    }
    if (column != StateColumn)
        return {};
    GroupSummary summary;
    summary.counts = node->counts;
    summary.shown = node->total;
    summary.total = node->total;
    return countsText(summary);
}

WorkspaceTreeModel::GroupSummary WorkspaceTreeModel::summarize(const QModelIndex &group, const Accept &accept) const
{
    GroupSummary summary;
    for (const WorkspaceRecord *record : recordsUnder(group)) {
        ++summary.total;
        if (accept && !accept(*record))
            continue;
        ++summary.shown;
        const SandboxInfo &info = record->info;
        ++summary.counts[countSlot(*record)];
        if (record->idleDeadline && info.state == SandboxState::Running) {
            const qint64 ms = record->idleDeadline->toMSecsSinceEpoch();
            summary.idleMs = summary.idleMs ? std::min(*summary.idleMs, ms) : ms;
        }
        if (info.expiresAt) {
            const qint64 ms = info.expiresAt->toMSecsSinceEpoch();
            summary.expiryMs = summary.expiryMs ? std::min(*summary.expiryMs, ms) : ms;
        }
        if (info.lastActivityAt.isValid()
            && (!summary.lastActivity.isValid() || info.lastActivityAt > summary.lastActivity))
            summary.lastActivity = info.lastActivityAt;
        if (info.createdAt.isValid() && (!summary.created.isValid() || info.createdAt > summary.created))
            summary.created = info.createdAt;
    }
    return summary;
}

QString WorkspaceTreeModel::countsText(const GroupSummary &summary) const
{
    // "3 Running · 1 Paused", in the order of the states; the stopped ones after the paused.
    QStringList parts;
    const QLocale &locale = m_locale;
    for (int state = 0; state <= int(SandboxState::Unknown); ++state) {
        if (const int count = summary.counts.at(size_t(state)))
            parts.append(locale.toString(count) + u' ' + stateText(SandboxState(state), {}));
        if (state != int(SandboxState::Paused))
            continue;
        if (const int count = summary.counts.at(StoppedSlot))
            parts.append(locale.toString(count) + u' '
                         + stateText(SandboxState::Paused, {}, Capability::StopInsteadOfPause));
    }
    QString text = parts.join(QStringLiteral(" · "));
    if (summary.shown != summary.total)
        text = summary.shown == 0 ? tr("none of %1").arg(locale.toString(summary.total))
                                  : tr("%1 (of %2)").arg(text, locale.toString(summary.total));
    return text;
}

QVariant WorkspaceTreeModel::groupSortValue(const GroupSummary &summary, int column)
{
    switch (column) {
    case IdleColumn:
        return summary.idleMs.value_or(std::numeric_limits<qint64>::max());
    case ExpiryColumn:
        return summary.expiryMs.value_or(std::numeric_limits<qint64>::max());
    case LastActivityColumn:
        return summary.lastActivity;
    case CreatedColumn:
        return summary.created;
    case StateColumn:
        return summary.shown;
    default:
        return {};
    }
}

QVariant WorkspaceTreeModel::workspaceData(const Node *node, int column, int role) const
{
    const WorkspaceRecord &record = node->record;
    const SandboxInfo &info = record.info;
    if ((column == CpuColumn || column == MemoryColumn)
        && (role == Qt::DisplayRole || role == Qt::ToolTipRole || role == SortRole || role == Qt::ForegroundRole
            || role == Qt::AccessibleDescriptionRole))
        return metricsData(node, column, role);
    switch (role) {
    case KeyRole:
        return record.key();
    case StateRole:
        return int(info.state);
    case WorkspaceIdRole:
        return info.workspaceId;
    case ProfileRole:
        return record.profile;
    case DeadlineRole:
        if (column == IdleColumn && record.idleDeadline)
            return *record.idleDeadline;
        if (column == ExpiryColumn && info.expiresAt)
            return *info.expiresAt;
        return QDateTime();
    case Qt::DecorationRole:
        if (column != StateColumn)
            return {};
        // Greyed as last seen while its server cannot be reached; red when its bootstrap failed.
        if (m_unreachable.contains(record.profile))
            return stateIcon(SandboxState::Unknown);
        return stateIcon(record.bootstrapFailure.isEmpty() ? info.state : SandboxState::Failed);
    case Qt::ForegroundRole:
        if (m_unreachable.contains(record.profile))
            return Tones::dim();
        if (column == StateColumn && !record.bootstrapFailure.isEmpty())
            return Tones::error();
        // No user or agent recorded: "unknown", in grey.
        if ((column == UserColumn && info.userId.isEmpty()) || (column == AgentColumn && agentLabel(record).isEmpty()))
            return Tones::dim();
        [[fallthrough]];
    case Qt::AccessibleDescriptionRole: {
        // Countdowns turn amber under five minutes and red under one, and say in words when.
        const std::optional<QDateTime> deadline = column == IdleColumn
            ? (info.state == SandboxState::Running ? record.idleDeadline : std::nullopt)
            : column == ExpiryColumn ? info.expiresAt
                                     : std::nullopt;
        if (column == ExpiryColumn && timerStopped(info)) {
            // Nothing counts down: grey, and said in words.
            if (role == Qt::AccessibleDescriptionRole)
                return timerStoppedText(info);
            return Tones::dim();
        }
        if (!deadline)
            return {};
        if (role == Qt::AccessibleDescriptionRole) {
            const QString when = m_locale.toString(deadline->toLocalTime(), QLocale::LongFormat);
            return column == IdleColumn ? tr("Paused for idleness at %1").arg(when) : tr("Expires at %1").arg(when);
        }
        const qint64 seconds = now().secsTo(*deadline);
        if (seconds < 60)
            return Tones::error();
        if (seconds < 300)
            return Tones::warning();
        return {};
    }
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
    case SortRole:
        break;
    default:
        return {};
    }

    const QLocale &locale = m_locale;
    const auto time = [&](const QDateTime &when) -> QVariant {
        if (role == SortRole)
            return when;
        if (!when.isValid())
            return QString();
        // "3 min ago", the time itself in the tooltip.
        if (role == Qt::ToolTipRole)
            return locale.toString(when.toLocalTime(), QLocale::LongFormat);
        return formatRelative(when, now(), locale);
    };
    const auto countdown = [&](const std::optional<QDateTime> &deadline, const QString &none) -> QVariant {
        if (!deadline) {
            if (role == SortRole)
                return std::numeric_limits<qint64>::max();
            return none;
        }
        const qint64 seconds = now().secsTo(*deadline);
        if (role == SortRole)
            return seconds;
        if (role == Qt::ToolTipRole)
            return locale.toString(deadline->toLocalTime(), QLocale::LongFormat);
        return seconds > 0 ? formatCountdown(seconds) : tr("due, waiting for the backend");
    };

    switch (column) {
    case WorkspaceColumn:
        if (role == Qt::ToolTipRole)
            return info.workspaceId;
        return info.metadata.value(QStringLiteral("name"), info.workspaceId);
    case StateColumn: {
        QString text = stateText(record);
        if (!record.bootstrapFailure.isEmpty())
            text = tr("%1, bootstrap failed").arg(text);
        const auto unreachable = m_unreachable.constFind(record.profile);
        if (unreachable != m_unreachable.cend()) {
            const QString seen = locale.toString(unreachable->toLocalTime(), QLocale::ShortFormat);
            if (role == Qt::ToolTipRole)
                return tr("The server's last listing failed: this is the workspace as it was listed at %1.").arg(seen);
            return tr("%1 (last seen %2)").arg(text, seen);
        }
        if (role == Qt::ToolTipRole && !record.bootstrapFailure.isEmpty())
            return (stopsInsteadOfPausing(record.profile)
                        ? tr("Its last bootstrap failed, so it was stopped: %1\nWorkspace > Retry Bootstrap runs it "
                             "again.")
                        : tr("Its last bootstrap failed, so it was paused: %1\nWorkspace > Retry Bootstrap runs it "
                             "again."))
                .arg(record.bootstrapFailure);
        return text;
    }
    case UserColumn:
    case AgentColumn: {
        const QString name = column == UserColumn ? info.userId : agentLabel(record);
        if (role == SortRole || !name.isEmpty())
            return name;
        return role == Qt::ToolTipRole ? unknownToolTip(column == UserColumn ? Kind::User : Kind::Agent)
                                       : unknownText();
    }
    case BackendColumn:
        return role == Qt::ToolTipRole ? tr("%1 (profile %2)").arg(info.backend, record.profile) : info.backend;
    case IdleColumn:
        // Only a workspace the console holds open has an idle deadline.
        return countdown(info.state == SandboxState::Running ? record.idleDeadline : std::nullopt, QString());
    case ExpiryColumn:
        if (timerStopped(info)) {
            // After every countdown and before "never", the longest stopped first.
            if (role == SortRole)
                return std::numeric_limits<qint64>::max() / 2 + info.pausedAt.toSecsSinceEpoch();
            return role == Qt::ToolTipRole ? timerStoppedText(info) : tr("timer stopped");
        }
        return countdown(info.expiresAt, tr("never"));
    case LastActivityColumn:
        return time(info.lastActivityAt);
    case CreatedColumn:
        return time(info.createdAt);
    case ImageColumn:
        return info.image;
    case SandboxIdColumn:
        return info.sandboxId;
    case CpuColumn:
    case MemoryColumn:
        return metricsData(node, column, role);
    default:
        return {};
    }
}

QVariant WorkspaceTreeModel::metricsData(const Node *node, int column, int role) const
{
    const SandboxMetrics *metrics = node->metrics.get();
    const bool cpu = column == CpuColumn;
    const bool present = metrics && (cpu ? metrics->cpuPercent.has_value() : metrics->memoryBytes.has_value());
    if (!present) {
        // Absent: sorts after every figure (WorkspaceFilterProxy), shown as a grey dash.
        if (role == SortRole)
            return QVariant();
        if (role == Qt::ForegroundRole)
            return QColor(0x8a, 0x8a, 0x8a);
        if (role == Qt::ToolTipRole || role == Qt::AccessibleDescriptionRole) {
            const QString note = m_metricsNotes.value(node->record.profile);
            if (!note.isEmpty())
                return note;
            if (!capabilities(node->record.profile).testFlag(Capability::Metrics))
                return tr("Not reported by this backend");
            if (metrics)
                return tr("Not reported for this workspace");
            if (node->record.info.state != SandboxState::Running)
                return tr("Not measured while the workspace is not running");
            return tr("Not measured yet: figures are read for the running workspaces in view");
        }
        if (role == Qt::DisplayRole)
            return QStringLiteral("\u2014");
        return {};
    }
    if (role == Qt::ForegroundRole)
        return {};
    if (role == SortRole)
        return cpu ? QVariant(*metrics->cpuPercent) : QVariant(*metrics->memoryBytes);
    if (role == Qt::ToolTipRole || role == Qt::AccessibleDescriptionRole) {
        const QString when = m_locale.toString(metrics->sampledAt.toLocalTime(), QLocale::LongFormat);
        return cpu ? tr("%1 of one CPU core, measured at %2").arg(formatCpu(*metrics->cpuPercent), when)
                   : tr("%1, measured at %2").arg(formatMemory(*metrics), when);
    }
    if (role == Qt::DisplayRole)
        return cpu ? formatCpu(*metrics->cpuPercent) : formatMemory(*metrics);
    return {};
}

QString WorkspaceTreeModel::formatCpu(double percent)
{
    return tr("%1%").arg(QLocale().toString(percent, 'f', 1));
}

QString WorkspaceTreeModel::formatBytes(qint64 bytes)
{
    // A decimal only where it says something: "9.5 MiB", "1 GiB", "256 MiB".
    double value = double(std::max<qint64>(bytes, 0));
    while (value >= 1024)
        value /= 1024;
    const bool fraction = value < 10 && std::abs(value * 10 - std::round(value) * 10) >= 0.5;
    return QLocale().formattedDataSize(bytes, fraction ? 1 : 0, QLocale::DataSizeIecFormat);
}

QString WorkspaceTreeModel::formatMemory(const SandboxMetrics &metrics)
{
    if (!metrics.memoryBytes)
        return {};
    if (!metrics.memoryLimitBytes)
        return formatBytes(*metrics.memoryBytes);
    return tr("%1 / %2").arg(formatBytes(*metrics.memoryBytes), formatBytes(*metrics.memoryLimitBytes));
}

const SandboxMetrics *WorkspaceTreeModel::metrics(const QString &key) const
{
    const Node *node = nodeOfKey(key);
    return node ? node->metrics.get() : nullptr;
}

void WorkspaceTreeModel::setMetrics(const QString &profile, const QStringList &asked,
                                    const QList<SandboxMetrics> &metrics)
{
    const auto rows = m_byProfile.constFind(profile);
    if (rows == m_byProfile.cend())
        return;
    std::vector<Node *> changed;
    QHash<QString, const SandboxMetrics *> byId;
    byId.reserve(metrics.size());
    for (const SandboxMetrics &entry : metrics)
        byId.insert(entry.sandboxId, &entry);
    for (const QString &id : asked) {
        Node *node = rows->value(id);
        if (!node)
            continue;
        const SandboxMetrics *now = byId.value(id);
        // Absent for it, before and now: nothing changed. (A new figure, one gone: announced.)
        if (!now && !node->metrics)
            continue;
        if (now && node->metrics && *node->metrics == *now)
            continue;
        if (now)
            node->metrics = std::make_unique<SandboxMetrics>(*now);
        else
            node->metrics.reset();
        changed.push_back(node);
    }
    // One dataChanged per run of neighbouring rows under one parent (the rows in view are mostly
    // neighbours), on the two columns only.
    std::sort(changed.begin(), changed.end(), [](const Node *a, const Node *b) {
        return a->parent != b->parent ? std::less<const Node *>()(a->parent, b->parent) : a->row < b->row;
    });
    const QList<int> roles{Qt::DisplayRole, Qt::ToolTipRole, SortRole, Qt::ForegroundRole};
    for (size_t first = 0; first < changed.size();) {
        size_t last = first;
        while (last + 1 < changed.size() && changed[last + 1]->parent == changed[first]->parent
               && changed[last + 1]->row == changed[last]->row + 1)
            ++last;
        Q_EMIT dataChanged(indexOf(changed[first], CpuColumn), indexOf(changed[last], MemoryColumn), roles);
        first = last + 1;
    }
}

void WorkspaceTreeModel::setMetricsNote(const QString &profile, const QString &note)
{
    if (m_metricsNotes.value(profile) == note)
        return;
    if (note.isEmpty())
        m_metricsNotes.remove(profile);
    else
        m_metricsNotes.insert(profile, note);
}

QString WorkspaceTreeModel::timerStoppedText(const SandboxInfo &info) const
{
    return tr("Paused since %1: its timer is stopped until it is resumed, which starts a new timeout.")
        .arg(m_locale.toString(info.pausedAt.toLocalTime(), QLocale::LongFormat));
}

QVariant WorkspaceTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::SizeHintRole
        && (section == CpuColumn || section == MemoryColumn)) {
        // Wide enough for a figure that arrives after the columns were fitted to their rows.
        const QFontMetrics metrics(QGuiApplication::font());
        const QString widest = section == CpuColumn
            ? formatCpu(888.8)
            : tr("%1 / %2").arg(formatBytes(qint64(888) << 20), formatBytes(qint64(88) << 30));
        return QSize(metrics.horizontalAdvance(widest) + 2 * metrics.height(), metrics.height() + 8);
    }
    if (orientation != Qt::Horizontal || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return {};
    switch (section) {
    case WorkspaceColumn:
        return tr("Workspace");
    case StateColumn:
        return tr("State");
    case UserColumn:
        return tr("User");
    case AgentColumn:
        return tr("Agent");
    case BackendColumn:
        return tr("Backend");
    case IdleColumn:
        return role == Qt::ToolTipRole ? tr("Time until the workspace is paused for being idle") : tr("Idle pause in");
    case ExpiryColumn:
        return role == Qt::ToolTipRole ? tr("Time until the server's expiry") : tr("Expires in");
    case LastActivityColumn:
        return tr("Last activity");
    case CreatedColumn:
        return tr("Created");
    case ImageColumn:
        return tr("Image");
    case SandboxIdColumn:
        return tr("Sandbox ID");
    case CpuColumn:
        return role == Qt::ToolTipRole
            ? tr("CPU the workspace uses now (100% is one core), where its backend reports it")
            : tr("CPU");
    case MemoryColumn:
        return role == Qt::ToolTipRole
            ? tr("Memory the workspace uses now, and its limit where it has one, where its backend reports it")
            : tr("Memory");
    default:
        return {};
    }
}

QString WorkspaceTreeModel::formatCountdown(qint64 seconds)
{
    const QLocale locale;
    const qint64 days = seconds / 86400;
    const qint64 hours = (seconds % 86400) / 3600;
    const qint64 minutes = (seconds % 3600) / 60;
    const qint64 secs = seconds % 60;
    const auto two = [&locale](qint64 value) {
        return value < 10 ? locale.zeroDigit() + locale.toString(value) : locale.toString(value);
    };
    if (days > 0)
        return tr("%1 d %2 h").arg(locale.toString(days), locale.toString(hours));
    if (hours > 0)
        return tr("%1 h %2 min").arg(locale.toString(hours), two(minutes));
    if (minutes > 0)
        return tr("%1 min %2 s").arg(locale.toString(minutes), two(secs));
    return tr("%1 s").arg(locale.toString(secs));
}

QString WorkspaceTreeModel::formatRelative(const QDateTime &when, const QDateTime &now, const QLocale &locale)
{
    const qint64 whenMs = when.toMSecsSinceEpoch();
    const qint64 age = (now.toMSecsSinceEpoch() - whenMs) / 1000;
    if (age < 60)
        return tr("just now");
    if (age < 3600)
        return tr("%n min ago", nullptr, int(age / 60));
    if (age < 86400)
        return tr("%n h ago", nullptr, int(age / 3600));
    const qint64 days = daysBack(whenMs, now.toLocalTime().date().startOfDay().toMSecsSinceEpoch());
    if (days <= 1)
        return tr("yesterday");
    if (days < 7)
        return tr("%n days ago", nullptr, int(days));
    return locale.toString(when.toLocalTime().date(), QLocale::ShortFormat);
}

// --- lookups ---------------------------------------------------------------------------------

const WorkspaceRecord *WorkspaceTreeModel::record(const QModelIndex &index) const
{
    if (!index.isValid())
        return nullptr;
    const Node *node = nodeOf(index);
    return node->kind == Kind::Workspace ? &node->record : nullptr;
}

WorkspaceTreeModel::Node *WorkspaceTreeModel::nodeOfKey(const QString &key) const
{
    const qsizetype separator = key.indexOf(u'\x1f');
    if (separator < 0)
        return nullptr;
    const auto profile = m_byProfile.constFind(key.left(separator));
    if (profile == m_byProfile.cend())
        return nullptr;
    return profile->value(key.mid(separator + 1));
}

QModelIndex WorkspaceTreeModel::indexOfKey(const QString &key, int column) const
{
    const Node *node = nodeOfKey(key);
    return node ? indexOf(node, column) : QModelIndex();
}

const WorkspaceRecord *WorkspaceTreeModel::recordOfWorkspace(const QString &profile, const QString &workspaceId) const
{
    const auto rows = m_byProfile.constFind(profile);
    if (rows == m_byProfile.cend())
        return nullptr;
    const WorkspaceRecord *found = nullptr;
    for (const Node *node : *rows) {
        const WorkspaceRecord &record = node->record;
        if (record.info.workspaceId == workspaceId && (!found || record.info.createdAt > found->info.createdAt))
            found = &record;
    }
    return found;
}

bool WorkspaceTreeModel::setState(const QString &key, SandboxState state)
{
    Node *node = nodeOfKey(key);
    if (!node)
        return false;
    if (node->record.info.state == state && node->record.info.rawState.isEmpty())
        return true;
    node->record.info.state = state;
    node->record.info.rawState.clear();
    node->record.info.fingerprint = 0; // no longer what the backend said: the next listing compares in full
    node->fingerprint = 0;
    Q_EMIT dataChanged(indexOf(node, StateColumn), indexOf(node, StateColumn));
    // The groups above count their rows per state.
    for (Node *group = node->parent; group && group != m_root.get(); group = group->parent) {
        recount(group);
        Q_EMIT dataChanged(indexOf(group, StateColumn), indexOf(group, StateColumn));
    }
    return true;
}

bool WorkspaceTreeModel::setLastActivity(const QString &key, const QDateTime &time)
{
    Node *node = nodeOfKey(key);
    if (!node)
        return false;
    QDateTime &last = node->record.info.lastActivityAt;
    if (time.isValid() && (!last.isValid() || time > last)) {
        last = time;
        node->activityMs = time.toMSecsSinceEpoch();
        Q_EMIT dataChanged(indexOf(node, LastActivityColumn), indexOf(node, LastActivityColumn),
                           {Qt::DisplayRole, Qt::ToolTipRole, SortRole});
    }
    return true;
}

QList<const WorkspaceRecord *> WorkspaceTreeModel::recordsUnder(const QModelIndex &index) const
{
    QList<const WorkspaceRecord *> records;
    std::vector<const Node *> stack{nodeOf(index)};
    while (!stack.empty()) {
        const Node *node = stack.back();
        stack.pop_back();
        if (node->kind == Kind::Workspace && node != m_root.get()) {
            records.append(&node->record);
            continue;
        }
        for (auto it = node->children.rbegin(); it != node->children.rend(); ++it)
            stack.push_back(it->get());
    }
    return records;
}

void WorkspaceTreeModel::retranslate()
{
    m_locale = QLocale();
    Q_EMIT headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
    // Every cell's text changes; no row moves. A layout change tells views to ask again, keeps
    // persistent indexes (selection, expanded groups) and lets a sorting proxy sort by the new
    // texts.
    Q_EMIT layoutAboutToBeChanged();
    Q_EMIT layoutChanged();
}

void WorkspaceTreeModel::setClock(Clock clock)
{
    m_clock = std::move(clock);
}

QDateTime WorkspaceTreeModel::now() const
{
    return m_clock();
}

// --- structure -------------------------------------------------------------------------------

void WorkspaceTreeModel::renumber(std::vector<std::unique_ptr<Node>> &children, size_t from)
{
    for (size_t i = from; i < children.size(); ++i)
        children[i]->row = int(i);
}

QString WorkspaceTreeModel::agentLabel(const WorkspaceRecord &record)
{
    return record.agents.isEmpty() ? record.info.agentId : record.agents.join(QStringLiteral(", "));
}

WorkspaceTreeModel::Node *WorkspaceTreeModel::groupFor(const WorkspaceRecord &record, bool create)
{
    Node *parent = m_root.get();
    if (m_profileGroups) {
        parent = profileNode(record.profile, create);
        if (!parent)
            return nullptr;
    }
    if (!m_grouped)
        return parent;
    const std::array<std::pair<Kind, QString>, 2> levels{
        {{Kind::User, record.info.userId}, {Kind::Agent, agentLabel(record)}}};
    for (const auto &[kind, name] : levels) {
        Node *group = parent->groups.value(name);
        if (!group) {
            if (!create)
                return nullptr;
            // Groups are kept in name order.
            const auto at = std::lower_bound(parent->children.begin(), parent->children.end(), name,
                                             [](const std::unique_ptr<Node> &node, const QString &key) {
                                                 return node->name.localeAwareCompare(key) < 0;
                                             });
            const int row = int(at - parent->children.begin());
            auto node = std::make_unique<Node>();
            node->kind = kind;
            node->parent = parent;
            node->name = name;
            group = node.get();
            if (!m_rebuilding)
                beginInsertRows(indexOf(parent), row, row);
            parent->children.insert(parent->children.begin() + row, std::move(node));
            renumber(parent->children, size_t(row));
            parent->groups.insert(name, group);
            if (!m_rebuilding)
                endInsertRows();
        }
        parent = group;
    }
    return parent;
}

WorkspaceTreeModel::Node *WorkspaceTreeModel::profileNode(const QString &profile, bool create)
{
    if (Node *group = m_root->groups.value(profile))
        return group;
    if (!create)
        return nullptr;
    // Profiles' groups are kept in the order of their names (their ids while they have none).
    const auto nameOf = [this](const QString &id) {
        const QString name = m_profileInfo.value(id).name;
        return name.isEmpty() ? id : name;
    };
    const QString name = nameOf(profile);
    const auto at = std::lower_bound(m_root->children.begin(), m_root->children.end(), name,
                                     [&nameOf](const std::unique_ptr<Node> &node, const QString &key) {
                                         return nameOf(node->name).localeAwareCompare(key) < 0;
                                     });
    const int row = int(at - m_root->children.begin());
    auto node = std::make_unique<Node>();
    node->kind = Kind::Profile;
    node->parent = m_root.get();
    node->name = profile;
    Node *group = node.get();
    if (!m_rebuilding)
        beginInsertRows({}, row, row);
    m_root->children.insert(m_root->children.begin() + row, std::move(node));
    renumber(m_root->children, size_t(row));
    m_root->groups.insert(profile, group);
    if (!m_rebuilding)
        endInsertRows();
    return group;
}

void WorkspaceTreeModel::setProfileGroups(bool on)
{
    if (on == m_profileGroups)
        return;
    m_profileGroups = on;
    rebuild();
}

void WorkspaceTreeModel::setProfileGroup(const QString &profile, const ProfileGroup &group)
{
    const auto known = m_profileInfo.constFind(profile);
    const bool renamed = known == m_profileInfo.cend() || known->name != group.name;
    const bool changed = known == m_profileInfo.cend() || !(*known == group);
    if (renamed && known != m_profileInfo.cend() && m_profileGroups && m_root->groups.contains(profile)) {
        // A new name: its group moves to its place (a rebuild keeps nothing cheaper for 4 rows).
        m_profileInfo.insert(profile, group);
        rebuild();
        return;
    }
    m_profileInfo.insert(profile, group);
    if (!m_profileGroups)
        return;
    Node *node = profileNode(profile, true);
    if (changed && known != m_profileInfo.cend()) {
        // Its texts only: named roles, so a proxy sorts and filters nothing again.
        Q_EMIT dataChanged(indexOf(node, WorkspaceColumn), indexOf(node, BackendColumn),
                           {Qt::DisplayRole, Qt::ToolTipRole, Qt::ForegroundRole, Qt::AccessibleDescriptionRole});
    }
}

void WorkspaceTreeModel::removeProfileGroup(const QString &profile)
{
    removeProfile(profile);
    m_profileInfo.remove(profile);
    if (Node *node = m_root->groups.value(profile); node && node->kind == Kind::Profile)
        removeNode(node);
}

QModelIndex WorkspaceTreeModel::indexOfProfileGroup(const QString &profile) const
{
    const Node *node = m_profileGroups ? m_root->groups.value(profile) : nullptr;
    return node ? indexOf(node) : QModelIndex();
}

void WorkspaceTreeModel::insertWorkspaces(Node *parent, std::vector<std::unique_ptr<Node>> nodes)
{
    if (nodes.empty())
        return;
    const int first = int(parent->children.size());
    if (!m_rebuilding)
        beginInsertRows(indexOf(parent), first, first + int(nodes.size()) - 1);
    for (auto &node : nodes) {
        setDeadlines(node.get());
        node->parent = parent;
        node->row = int(parent->children.size());
        m_byProfile[node->record.profile].insert(node->record.info.sandboxId, node.get());
        ++m_workspaceCount;
        parent->children.push_back(std::move(node));
    }
    if (!m_rebuilding)
        endInsertRows();
}

void WorkspaceTreeModel::removeNode(Node *node)
{
    removeNodes({node});
}

void WorkspaceTreeModel::liftEmptiedGroups(std::vector<Node *> &leaving,
                                           const std::unordered_map<Node *, std::vector<std::unique_ptr<Node>>> &added,
                                           QSet<Node *> &touched)
{
    // An agent group all of whose rows go (and that gets none) goes whole instead, and so does a
    // user group all of whose agent groups go: one removal where there were one for its rows and
    // one for each group.
    std::sort(leaving.begin(), leaving.end());
    leaving.erase(std::unique(leaving.begin(), leaving.end()), leaving.end());
    const auto emptied = [&added](Node *group, int going) {
        return group->kind != Kind::Profile && group->parent && going == int(group->children.size())
            && !added.count(group);
    };
    std::unordered_map<Node *, int> going; // a group -> its rows that go
    for (const Node *node : leaving)
        ++going[node->parent];
    std::unordered_map<Node *, int> goingAgents; // a user group -> its agent groups that go whole
    for (const auto &[group, count] : going) {
        if (group->kind == Kind::Agent && emptied(group, count))
            ++goingAgents[group->parent];
    }
    if (goingAgents.empty())
        return;
    QSet<Node *> whole; // the groups that go whole
    for (const auto &[user, count] : goingAgents) {
        if (user->kind == Kind::User && emptied(user, count)) {
            whole.insert(user);
            for (const auto &agent : user->children)
                touched.remove(agent.get());
            touched.remove(user);
            touched.insert(user->parent);
            continue;
        }
        for (const auto &agent : user->children) {
            const auto found = going.find(agent.get());
            if (found != going.end() && emptied(agent.get(), found->second)) {
                whole.insert(agent.get());
                touched.remove(agent.get());
                touched.insert(user);
            }
        }
    }
    std::vector<Node *> lifted;
    for (Node *node : leaving) {
        Node *agent = node->parent;
        if (whole.contains(agent) || whole.contains(agent->parent))
            continue; // its group goes whole
        lifted.push_back(node);
    }
    for (Node *group : std::as_const(whole))
        lifted.push_back(group);
    leaving = std::move(lifted);
}

void WorkspaceTreeModel::removeNodes(std::vector<Node *> nodes)
{
    // Each beginRemoveRows() costs every view and proxy a walk over all of its persistent indexes
    // (a tree view keeps one per expanded group: a thousand in "All profiles" with the same users
    // on four servers), whatever the number of rows it names. So rows go in runs: by parent, from
    // the bottom up (a run's removal leaves the rows above it where they are), one signal per run
    // of neighbouring rows.
    std::sort(nodes.begin(), nodes.end(), [](const Node *a, const Node *b) {
        return a->parent != b->parent ? std::less<const Node *>()(a->parent, b->parent) : a->row > b->row;
    });
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    for (size_t end = 0; end < nodes.size();) {
        const size_t start = end;
        Node *parent = nodes[start]->parent;
        while (++end < nodes.size() && nodes[end]->parent == parent && nodes[end]->row == nodes[end - 1]->row - 1) { }
        const int first = nodes[end - 1]->row;
        const int last = nodes[start]->row;
        beginRemoveRows(indexOf(parent), first, last);
        // A group goes with whatever it still holds.
        const std::function<void(const Node *)> forget = [&](const Node *node) {
            if (node->kind == Kind::Workspace) {
                auto profile = m_byProfile.find(node->record.profile);
                if (profile != m_byProfile.end() && profile->remove(node->record.info.sandboxId)) {
                    --m_workspaceCount;
                    if (profile->isEmpty())
                        m_byProfile.erase(profile);
                }
                return;
            }
            for (const auto &child : node->children)
                forget(child.get());
        };
        for (int row = first; row <= last; ++row) {
            const Node *node = parent->children[size_t(row)].get();
            forget(node);
            if (node->kind != Kind::Workspace)
                parent->groups.remove(node->name);
        }
        parent->children.erase(parent->children.begin() + first, parent->children.begin() + last + 1);
        renumber(parent->children, size_t(first));
        endRemoveRows();
    }
}

size_t WorkspaceTreeModel::countSlot(const WorkspaceRecord &record) const
{
    if (record.info.state == SandboxState::Paused && stopsInsteadOfPausing(record.profile))
        return StoppedSlot;
    return size_t(record.info.state);
}

void WorkspaceTreeModel::setCapabilities(const QString &profile, Capabilities capabilities)
{
    const bool stopped = stopsInsteadOfPausing(profile);
    m_capabilities.insert(profile, capabilities);
    // Only what the rows say matters here: Paused or Stopped.
    if (stopped == stopsInsteadOfPausing(profile) || !m_byProfile.contains(profile))
        return;
    announceRowsOf(m_root.get(), profile);
    recountGroups(m_root.get());
}

void WorkspaceTreeModel::recountGroups(Node *parent)
{
    for (const auto &child : parent->children) {
        if (child->kind == Kind::Workspace)
            continue;
        recountGroups(child.get()); // agents before their user
        recount(child.get());
        Q_EMIT dataChanged(indexOf(child.get(), StateColumn), indexOf(child.get(), StateColumn));
    }
}

void WorkspaceTreeModel::recountTree(Node *parent)
{
    for (const auto &child : parent->children) {
        if (child->kind == Kind::Workspace)
            continue;
        recountTree(child.get());
        recount(child.get());
    }
}

void WorkspaceTreeModel::recount(Node *group)
{
    group->counts.fill(0);
    group->total = 0;
    for (const auto &child : group->children) {
        if (child->kind == Kind::Workspace) {
            ++group->counts[countSlot(child->record)];
            ++group->total;
        } else {
            for (size_t i = 0; i < group->counts.size(); ++i)
                group->counts[i] += child->counts[i];
            group->total += child->total;
        }
    }
}

void WorkspaceTreeModel::update(const QString &profile, const QList<WorkspaceRecord> &records)
{
    apply(
        profile, records.size(), [&records](qsizetype i) -> const QString & { return records.at(i).info.sandboxId; },
        [&records](qsizetype i, Node &node) {
            if (!sameData(node.record, records.at(i)))
                return false;
            if (node.record.info.fingerprint == 0) {
                node.record.info.fingerprint = records.at(i).info.fingerprint;
                node.fingerprint = node.record.info.fingerprint;
            }
            return true;
        },
        [&records](qsizetype i, WorkspaceRecord &record, const Node *) {
            record = records.at(i);
            record.listedActivityMs =
                record.info.lastActivityAt.isValid() ? record.info.lastActivityAt.toMSecsSinceEpoch() : 0;
        });
}

void WorkspaceTreeModel::update(const QString &profile, QList<SandboxInfo> listing, const Decorate &decorate)
{
    applyListing(profile, std::move(listing), decorate, nullptr);
}

void WorkspaceTreeModel::applyChanges(const QString &profile, QList<SandboxInfo> changed, const QSet<QString> &removed,
                                      const Decorate &decorate)
{
    if (changed.size() > 1) {
        // One row per sandbox: the last report of each wins.
        QHash<QString, qsizetype> last;
        last.reserve(changed.size());
        for (qsizetype i = 0; i < changed.size(); ++i)
            last.insert(changed.at(i).sandboxId, i);
        if (last.size() != changed.size()) {
            QList<SandboxInfo> unique;
            unique.reserve(last.size());
            for (qsizetype i = 0; i < changed.size(); ++i) {
                if (last.value(changed.at(i).sandboxId) == i)
                    unique.append(std::move(changed[i]));
            }
            changed = std::move(unique);
        }
    }
    if (changed.isEmpty() && removed.isEmpty())
        return;
    applyListing(profile, std::move(changed), decorate, &removed);
}

void WorkspaceTreeModel::upsertSandbox(const QString &profile, SandboxInfo sandbox, const Decorate &decorate)
{
    QList<SandboxInfo> one;
    one.append(std::move(sandbox));
    const QSet<QString> none;
    applyListing(profile, std::move(one), decorate, &none);
}

void WorkspaceTreeModel::removeSandbox(const QString &profile, const QString &sandboxId)
{
    const QSet<QString> gone{sandboxId};
    applyListing(profile, {}, {}, &gone);
}

void WorkspaceTreeModel::applyListing(const QString &profile, QList<SandboxInfo> listing, const Decorate &decorate,
                                      const QSet<QString> *removed)
{
    // A row that is new, or whose listing changed, is made from the listing and decorated with
    // what only the console knows, starting from what its row had. An unchanged row (the same
    // fingerprint and the same listed activity, both on the node's first cache line) is left as
    // it is: what the console knows of it changes by events (setLastActivity, markStale).
    // A row made (and decorated) to be compared in full, kept for make() when it differs.
    WorkspaceRecord compared;
    qsizetype comparedRow = -1;
    const auto record = [&](qsizetype i, WorkspaceRecord &made, const Node *existing) {
        if (comparedRow == i) {
            comparedRow = -1;
            made = std::move(compared);
            return;
        }
        const SandboxInfo &info = listing.at(i);
        Decoration d;
        d.lastActivityAt = info.lastActivityAt;
        if (existing) {
            // The activity seen so far stays (the tracker's reads land on the row); the rest is
            // decorate's to say.
            const WorkspaceRecord &shown = existing->record;
            if (shown.info.lastActivityAt.isValid()
                && (!d.lastActivityAt.isValid() || shown.info.lastActivityAt > d.lastActivityAt))
                d.lastActivityAt = shown.info.lastActivityAt;
        }
        if (decorate)
            decorate(profile, info, d);
        made.profile = profile;
        made.listedActivityMs = info.lastActivityAt.isValid() ? info.lastActivityAt.toMSecsSinceEpoch() : 0;
        made.info = std::move(listing[i]); // the listing is ours; this row's copy is not needed again
        made.info.lastActivityAt = d.lastActivityAt;
        made.idleDeadline = std::move(d.idleDeadline);
        made.agents = std::move(d.agents);
        made.bootstrapFailure = std::move(d.bootstrapFailure);
    };
    const auto same = [&](qsizetype i, Node &node) {
        const SandboxInfo &info = listing.at(i);
        const qint64 listedMs = info.lastActivityAt.isValid() ? info.lastActivityAt.toMSecsSinceEpoch() : 0;
        // Fingerprints made where the records were parsed stand for the backend's fields: an
        // unchanged row costs its lookup and this line of its node, and no string reads (cold
        // memory, with 10,000 rows).
        if (info.fingerprint != 0 && node.fingerprint != 0)
            return node.fingerprint == info.fingerprint && node.listedActivityMs == listedMs;
        // A row changed here (an action's outcome), marked stale, or never fingerprinted: made and
        // compared in full once, then fingerprinted, so the next refresh takes the short way.
        WorkspaceRecord listed;
        record(i, listed, &node);
        if (!sameData(node.record, listed)) {
            compared = std::move(listed); // make() takes it as it is
            comparedRow = i;
            return false;
        }
        node.record.info.fingerprint = listed.info.fingerprint;
        node.record.listedActivityMs = listed.listedActivityMs;
        node.fingerprint = listed.info.fingerprint;
        node.listedActivityMs = listed.listedActivityMs;
        return true;
    };
    apply(
        profile, listing.size(), [&listing](qsizetype i) -> const QString & { return listing.at(i).sandboxId; }, same,
        record, removed);
    // The listing's records the model did not keep (an unchanged row's fresh copy; some 100,000
    // strings with 10,000 rows) are freed on a worker thread, not this one.
    if (listing.size() > 512)
        QThreadPool::globalInstance()->start([doomed = std::move(listing)]() mutable { doomed.clear(); });
}

void WorkspaceTreeModel::apply(const QString &profile, qsizetype count,
                               const std::function<const QString &(qsizetype)> &idOf,
                               const std::function<bool(qsizetype, Node &)> &same,
                               const std::function<void(qsizetype, WorkspaceRecord &, const Node *)> &make,
                               const QSet<QString> *removed)
{
    // One pass, one lookup per listed row (by sandbox id within the profile: no key strings to
    // build, no copy of the profile's index), one record at a time (no list of 10,000 to
    // allocate), and none at all for an unchanged row: found rows are stamped, changed ones
    // updated in place or moved, new ones collected per group. The unstamped rows vanished.
    const quint64 pass = ++m_pass;
    // Filling an empty model (the first listing) announces itself as one reset: there is no
    // selection, current row or expanded group to keep yet, and views lay out 10,000 rows once
    // instead of taking some 850 insertions.
    const bool filling = count > 0 && m_workspaceCount == 0;
    if (filling) {
        beginResetModel();
        m_rebuilding = true;
    }
    QSet<Node *> touched; // groups whose rows changed: pruned if empty, recounted
    std::unordered_map<Node *, std::vector<std::unique_ptr<Node>>> added;
    WorkspaceRecord record;
    // The diff for ObservedChanges, of the rows this pass touches anyway.
    const bool collect = !m_clearing && m_observed.contains(profile);
    ListingDiff diff;
    // Rows that go: those moving to another group, then those that vanished. They all go after
    // this pass, together, in runs (removeNodes()).
    std::vector<Node *> leaving;
    // The profile's rows by sandbox id (nothing is removed from it until the pass is over).
    const auto found = m_byProfile.constFind(profile);
    const QHash<QString, Node *> *rows = found == m_byProfile.cend() ? nullptr : &*found;
    for (qsizetype i = 0; i < count; ++i) {
        Node *node = rows ? rows->value(idOf(i)) : nullptr;
        if (node) {
            node->pass = pass;
            if (same(i, *node))
                continue;
        }
        make(i, record, node);
        Q_ASSERT(record.profile == profile);
        if (collect) {
            if (!node)
                diff.appeared.append(record.info);
            else if (node->record.info.state != record.info.state)
                diff.changed.append({node->record.info.state, record.info});
        }
        if (node) {
            const bool moves = m_grouped
                && (node->record.info.userId != record.info.userId || agentLabel(node->record) != agentLabel(record));
            if (!moves) {
                const bool stateChanged = node->record.info.state != record.info.state;
                // Only the columns that changed: a sorting proxy then re-sorts a row only when
                // its sort column changed, not for every state flip.
                const auto [first, last] = changedColumns(node->record, record);
                node->record = std::move(record);
                setDeadlines(node);
                if (first <= last)
                    Q_EMIT dataChanged(indexOf(node, first), indexOf(node, last));
                // Its groups count it by state, and sort by the most urgent of their rows.
                if (stateChanged || (first <= CreatedColumn && last >= IdleColumn))
                    touched.insert(node->parent);
                continue;
            }
            // It leaves its group with the rows that vanished (below), in runs.
            touched.insert(node->parent);
            leaving.push_back(node);
        }
        auto made = std::make_unique<Node>();
        made->kind = Kind::Workspace;
        made->pass = pass;
        Node *group = groupFor(record, true);
        made->record = std::move(record);
        added[group].push_back(std::move(made));
    }

    // Vanished rows go: those of a full listing that it did not list, or those named. (A row
    // moving to another group was stamped: it is not among them.)
    if (rows) {
        const auto vanish = [&](Node *node) {
            if (collect)
                diff.vanished.append(node->record.info);
            touched.insert(node->parent);
            leaving.push_back(node);
        };
        if (removed) {
            for (const QString &sandboxId : *removed) {
                Node *node = rows->value(sandboxId);
                if (node && node->pass != pass)
                    vanish(node);
            }
        } else {
            for (Node *node : *rows) {
                if (node->pass != pass)
                    vanish(node);
            }
        }
    }
    if (m_grouped && !leaving.empty())
        liftEmptiedGroups(leaving, added, touched);
    removeNodes(std::move(leaving));
    // Said once the rows are in place (at the end of this function).
    const auto report = qScopeGuard([&] {
        if (m_clearing || (!collect && removed))
            return;
        diff.profile = profile;
        diff.complete = !removed;
        diff.collected = collect;
        Q_EMIT listingApplied(diff);
    });
    for (auto &[group, nodes] : added) {
        touched.insert(group);
        insertWorkspaces(group, std::move(nodes));
    }
    if (filling) {
        recountTree(m_root.get());
        m_rebuilding = false;
        endResetModel();
        return;
    }

    if (!m_grouped && !m_profileGroups)
        return;
    // Empty agent groups go, then empty user groups (a profile's group stays, empty or not); the
    // rest are recounted, agents first, then users, then profiles. A user group whose agent groups
    // are all empty goes whole, with them: one removal, not one for each and one for it.
    const std::function<bool(const Node *)> holdsNoWorkspace = [&holdsNoWorkspace](const Node *group) {
        return std::none_of(group->children.cbegin(), group->children.cend(), [&](const std::unique_ptr<Node> &child) {
            return child->kind == Kind::Workspace || !holdsNoWorkspace(child.get());
        });
    };
    QSet<Node *> level = touched;
    for (const Kind kind : {Kind::Agent, Kind::User, Kind::Profile}) {
        QSet<Node *> parents; // the next level's, and the groups of a later level touched themselves
        QList<Node *> now;
        for (Node *group : std::as_const(level)) {
            if (group->kind == kind)
                now.append(group);
            else if (group != m_root.get() && group->kind != Kind::Workspace)
                parents.insert(group);
        }
        std::vector<Node *> empty; // they go together, in runs
        for (Node *group : std::as_const(now)) {
            Node *parent = group->parent;
            if (kind != Kind::Profile && holdsNoWorkspace(group)) {
                if (kind != Kind::Agent || parent->kind != Kind::User || !holdsNoWorkspace(parent))
                    empty.push_back(group);
            } else {
                recount(group);
                // Its name stays: only its counts and sort values change (and a proxy sorted by
                // name need not sort it again).
                Q_EMIT dataChanged(indexOf(group, StateColumn), indexOf(group, CreatedColumn));
            }
            if (parent && parent != m_root.get())
                parents.insert(parent);
        }
        removeNodes(std::move(empty));
        level = std::move(parents);
    }
}

void WorkspaceTreeModel::removeProfile(const QString &profile)
{
    m_clearing = true;
    update(profile, {});
    m_clearing = false;
    m_observed.remove(profile);
    Q_EMIT profileCleared(profile);
}

void WorkspaceTreeModel::setObserved(const QString &profile, bool observed)
{
    if (observed)
        m_observed.insert(profile);
    else
        m_observed.remove(profile);
}

void WorkspaceTreeModel::markStale(const QString &profile, const QSet<QString> &workspaceIds)
{
    if (workspaceIds.isEmpty())
        return;
    const auto rows = m_byProfile.constFind(profile);
    if (rows == m_byProfile.cend())
        return;
    for (Node *node : *rows) {
        if (workspaceIds.contains(node->record.info.workspaceId)) {
            node->fingerprint = 0;
            node->record.info.fingerprint = 0;
        }
    }
}

void WorkspaceTreeModel::setUnreachable(const QString &profile, const QDateTime &lastSeen)
{
    const bool was = m_unreachable.contains(profile);
    const QDateTime before = m_unreachable.value(profile);
    if (lastSeen.isValid())
        m_unreachable.insert(profile, lastSeen);
    else
        m_unreachable.remove(profile);
    // Only when what the rows say changes: a failure after a failure repaints nothing.
    if (was != lastSeen.isValid() || (was && lastSeen.isValid() && before != lastSeen))
        announceRowsOf(m_root.get(), profile);
}

void WorkspaceTreeModel::announceRowsOf(Node *parent, const QString &profile)
{
    // One dataChanged per run of the profile's rows under each parent.
    int runStart = -1;
    const auto flush = [&](int end) {
        if (runStart >= 0) {
            Q_EMIT dataChanged(createIndex(runStart, 0, parent), createIndex(end, ColumnCount - 1, parent));
            runStart = -1;
        }
    };
    for (const auto &child : parent->children) {
        if (child->kind != Kind::Workspace) {
            flush(child->row - 1);
            announceRowsOf(child.get(), profile);
            continue;
        }
        if (child->record.profile == profile) {
            if (runStart < 0)
                runStart = child->row;
        } else {
            flush(child->row - 1);
        }
    }
    flush(int(parent->children.size()) - 1);
}

void WorkspaceTreeModel::setGrouped(bool grouped)
{
    if (grouped == m_grouped)
        return;
    m_grouped = grouped;
    rebuild();
}

void WorkspaceTreeModel::rebuild()
{
    // Collect every record, in the order they are shown, then lay them out again.
    QList<WorkspaceRecord> all;
    all.reserve(m_workspaceCount);
    for (const WorkspaceRecord *record : recordsUnder({}))
        all.append(*record);
    beginResetModel();
    m_rebuilding = true; // a reset announces everything at once: no row signals meanwhile
    m_root = std::make_unique<Node>();
    m_byProfile.clear();
    m_workspaceCount = 0;
    std::unordered_map<Node *, std::vector<std::unique_ptr<Node>>> placed;
    if (m_profileGroups) {
        // Every profile's group, with rows or not (one whose server is down still says why).
        for (auto it = m_profileInfo.cbegin(); it != m_profileInfo.cend(); ++it)
            profileNode(it.key(), true);
    }
    for (const WorkspaceRecord &record : std::as_const(all)) {
        auto node = std::make_unique<Node>();
        node->record = record;
        placed[groupFor(record, true)].push_back(std::move(node));
    }
    for (auto &[group, nodes] : placed)
        insertWorkspaces(group, std::move(nodes));
    recountTree(m_root.get());
    m_rebuilding = false;
    endResetModel();
}

namespace {

constexpr qint64 NoDeadline = std::numeric_limits<qint64>::min();

// What a countdown shows changes with this bucket: days and hours, hours and minutes, or
// minutes and seconds (formatCountdown), and "due" at zero.
qint64 countdownBucket(qint64 deadlineMs, qint64 nowMs)
{
    if (deadlineMs == NoDeadline)
        return NoDeadline;
    const qint64 seconds = (deadlineMs - nowMs) / 1000;
    if (seconds <= 0)
        return -1;
    if (seconds >= 86400)
        return seconds / 3600;
    if (seconds >= 3600)
        return seconds / 60;
    return seconds;
}

} // namespace

void WorkspaceTreeModel::setDeadlines(Node *node)
{
    const WorkspaceRecord &record = node->record;
    node->fingerprint = record.info.fingerprint;
    node->listedActivityMs = record.listedActivityMs;
    node->idleMs = record.idleDeadline && record.info.state == SandboxState::Running
        ? record.idleDeadline->toMSecsSinceEpoch()
        : NoDeadline;
    node->expiryMs = record.info.expiresAt ? record.info.expiresAt->toMSecsSinceEpoch() : NoDeadline;
    node->activityMs =
        record.info.lastActivityAt.isValid() ? record.info.lastActivityAt.toMSecsSinceEpoch() : NoDeadline;
    node->createdMs = record.info.createdAt.isValid() ? record.info.createdAt.toMSecsSinceEpoch() : NoDeadline;
}

void WorkspaceTreeModel::tick()
{
    const qint64 nowMs = now().toMSecsSinceEpoch();
    const qint64 lastMs = std::exchange(m_lastTickMs, nowMs);
    // Local midnight, for "yesterday": once a tick, not once a row.
    const qint64 todayStartMs = now().toLocalTime().date().startOfDay().toMSecsSinceEpoch();
    const qint64 lastTodayStartMs = std::exchange(m_lastTodayStartMs, todayStartMs);
    // Relative times were made when their rows were shown: at the first tick, only what changed
    // in the last second is new.
    tickChildren(m_root.get(),
                 {lastMs, nowMs, lastMs ? lastMs : nowMs - 1000, lastTodayStartMs ? lastTodayStartMs : todayStartMs,
                  todayStartMs});
}

// In display order, so that views find each changed row next to the previous one. One
// dataChanged per run of neighbouring rows whose countdown text changes, countdown columns only,
// and one per run whose relative times ("3 min ago") change, those two columns only.
void WorkspaceTreeModel::tickChildren(Node *parent, const TickTimes &times)
{
    const qint64 lastMs = times.lastMs;
    const qint64 nowMs = times.nowMs;
    // Not SortRole: every countdown moves by the same second, so their order stays right and a
    // sorting proxy need not sort again.
    static const QList<int> roles{Qt::DisplayRole, Qt::ToolTipRole, Qt::ForegroundRole};
    static const QList<int> timeRoles{Qt::DisplayRole};
    int runStart = -1;
    int timeRunStart = -1;
    const auto flush = [&](int end) {
        if (runStart >= 0) {
            Q_EMIT dataChanged(createIndex(runStart, IdleColumn, parent), createIndex(end, ExpiryColumn, parent),
                               roles);
            runStart = -1;
        }
    };
    const auto flushTimes = [&](int end) {
        if (timeRunStart >= 0) {
            Q_EMIT dataChanged(createIndex(timeRunStart, LastActivityColumn, parent),
                               createIndex(end, CreatedColumn, parent), timeRoles);
            timeRunStart = -1;
        }
    };
    const auto relativeChanges = [&times](qint64 whenMs) {
        return relativeBucket(whenMs, times.lastTimesMs, times.lastTodayStartMs)
            != relativeBucket(whenMs, times.nowMs, times.todayStartMs);
    };
    for (const auto &child : parent->children) {
        if (child->kind != Kind::Workspace) {
            flush(child->row - 1);
            flushTimes(child->row - 1);
            tickChildren(child.get(), times);
            continue;
        }
        const bool changes = countdownBucket(child->idleMs, lastMs) != countdownBucket(child->idleMs, nowMs)
            || countdownBucket(child->expiryMs, lastMs) != countdownBucket(child->expiryMs, nowMs);
        if (changes && runStart < 0)
            runStart = child->row;
        else if (!changes)
            flush(child->row - 1);
        const bool timesChange = relativeChanges(child->activityMs) || relativeChanges(child->createdMs);
        if (timesChange && timeRunStart < 0)
            timeRunStart = child->row;
        else if (!timesChange)
            flushTimes(child->row - 1);
    }
    flush(int(parent->children.size()) - 1);
    flushTimes(int(parent->children.size()) - 1);
}
