#include "eventhistorymodel.h"

#include <QColor>
#include <QLocale>

#include <algorithm>
#include <utility>

EventHistoryModel::EventHistoryModel(int maxEvents, QObject *parent)
    : QAbstractTableModel(parent)
    , m_maxEvents(std::max(1, maxEvents))
{
}

int EventHistoryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_events.size());
}

int EventHistoryModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant EventHistoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case TimeColumn:
        return tr("Time");
    case ProfileColumn:
        return tr("Profile");
    case WorkspaceColumn:
        return tr("Workspace");
    case EventColumn:
        return tr("Event");
    case ActorColumn:
        return tr("By");
    case DetailColumn:
        return tr("Detail");
    default:
        break;
    }
    return {};
}

QVariant EventHistoryModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_events.size())
        return {};
    const ConsoleEvent &event = m_events.at(index.row());
    switch (role) {
    case SortRole:
        if (index.column() == TimeColumn)
            return QVariant::fromValue(qulonglong(m_order.at(index.row()))); // the true order, whatever the clock
        return data(index, Qt::DisplayRole);
    case ProfileIdRole:
        return event.profileId;
    case KindRole:
        return int(event.kind);
    case ActorRole:
        return int(event.actor);
    case SandboxIdRole:
        return event.sandboxId;
    case WorkspaceIdRole:
        return event.workspaceId;
    case FilterTextRole:
        return QStringList{event.profileName, event.profileId,  event.workspaceId,
                           event.sandboxId,   event.kindText(), ConsoleEvent::actorText(event.actor),
                           event.detailText()}
            .join(u'\n');
    default:
        break;
    }
    const int column = index.column();
    if (role == Qt::DisplayRole) {
        switch (column) {
        case TimeColumn: {
            // As the tree shows times: in full, local, with the seconds an event needs.
            const QLocale locale;
            const QDateTime local = event.time.toLocalTime();
            return QString(locale.toString(local.date(), QLocale::ShortFormat) + u' '
                           + local.time().toString(QStringLiteral("HH:mm:ss")));
        }
        case ProfileColumn:
            return event.profileName.isEmpty() ? event.profileId : event.profileName;
        case WorkspaceColumn:
            return event.workspaceId.isEmpty() ? event.sandboxId : event.workspaceId;
        case EventColumn:
            return event.kindText();
        case ActorColumn:
            return ConsoleEvent::actorText(event.actor);
        case DetailColumn:
            return event.detailText();
        default:
            break;
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (column) {
        case TimeColumn:
            return tr("%1 (UTC: %2)")
                .arg(QLocale().toString(event.time.toLocalTime(), QLocale::LongFormat),
                     event.time.toUTC().toString(Qt::ISODateWithMs));
        case WorkspaceColumn:
            return event.sandboxId.isEmpty() ? event.workspaceId
                                             : tr("%1 (sandbox %2)").arg(event.workspaceId, event.sandboxId);
        case DetailColumn:
            return event.detailText();
        default:
            break;
        }
    }
    if (role == Qt::ForegroundRole && column == EventColumn) {
        switch (event.kind) {
        case ConsoleEvent::Kind::OpenFailed:
        case ConsoleEvent::Kind::ActionFailed:
        case ConsoleEvent::Kind::Lost:
        case ConsoleEvent::Kind::Vanished:
        case ConsoleEvent::Kind::Expired:
            return QColor(0xb9, 0x1c, 0x1c);
        default:
            break;
        }
    }
    return {};
}

void EventHistoryModel::noteProfile(const ConsoleEvent &event)
{
    if (event.profileId.isEmpty())
        return;
    const QString name = event.profileName.isEmpty() ? event.profileId : event.profileName;
    for (auto &[id, known] : m_profiles) {
        if (id == event.profileId) {
            if (known != name) {
                known = name;
                Q_EMIT profilesChanged();
            }
            return;
        }
    }
    m_profiles.append({event.profileId, name});
    Q_EMIT profilesChanged();
}

void EventHistoryModel::append(const ConsoleEvent &event)
{
    const int row = int(m_events.size());
    beginInsertRows({}, row, row);
    m_events.append(event);
    m_order.append(++m_arrivals + (quint64(1) << 40)); // after every event loaded
    endInsertRows();
    noteProfile(event);
    trim();
}

void EventHistoryModel::appendLater(const ConsoleEvent &event)
{
    m_pending.append(event);
    if (m_insertQueued)
        return;
    m_insertQueued = true;
    QMetaObject::invokeMethod(this, &EventHistoryModel::insertPending, Qt::QueuedConnection);
}

void EventHistoryModel::insertPending()
{
    m_insertQueued = false;
    if (m_pending.isEmpty())
        return;
    const QList<ConsoleEvent> pending = std::exchange(m_pending, {});
    const int first = int(m_events.size());
    beginInsertRows({}, first, first + int(pending.size()) - 1);
    for (const ConsoleEvent &event : pending) {
        m_events.append(event);
        m_order.append(++m_arrivals + (quint64(1) << 40));
    }
    endInsertRows();
    for (const ConsoleEvent &event : pending)
        noteProfile(event);
    trim();
}

void EventHistoryModel::prepend(const QList<ConsoleEvent> &events)
{
    if (events.isEmpty())
        return;
    const int room = m_maxEvents - int(m_events.size());
    if (room <= 0)
        return;
    const QList<ConsoleEvent> kept = events.mid(std::max<qsizetype>(0, events.size() - room));
    beginInsertRows({}, 0, int(kept.size()) - 1);
    QList<quint64> order;
    order.reserve(kept.size());
    for (qsizetype i = 0; i < kept.size(); ++i)
        order.append(quint64(i + 1));
    m_events = kept + m_events;
    m_order = order + m_order;
    endInsertRows();
    // Profiles in the order they were first seen: the older first.
    QList<std::pair<QString, QString>> before = std::exchange(m_profiles, {});
    for (const ConsoleEvent &event : kept)
        noteProfile(event);
    for (const auto &[id, name] : before) {
        ConsoleEvent named;
        named.profileId = id;
        named.profileName = name;
        noteProfile(named);
    }
    Q_EMIT profilesChanged();
}

void EventHistoryModel::trim()
{
    // In steps, not one row per event: past the bound by a tenth of it, back to the bound.
    const int over = int(m_events.size()) - m_maxEvents;
    if (over <= m_maxEvents / 10)
        return;
    const int drop = over;
    beginRemoveRows({}, 0, drop - 1);
    m_events.remove(0, drop);
    m_order.remove(0, drop);
    endRemoveRows();
}

QList<std::pair<QString, QString>> EventHistoryModel::profiles() const
{
    return m_profiles;
}

void EventHistoryModel::retranslate()
{
    Q_EMIT headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
    if (!m_events.isEmpty())
        Q_EMIT dataChanged(index(0, 0), index(int(m_events.size()) - 1, ColumnCount - 1));
}

EventHistoryFilter::EventHistoryFilter(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(EventHistoryModel::SortRole);
    setDynamicSortFilter(true);
}

void EventHistoryFilter::setText(const QString &text)
{
    m_text = text.trimmed();
    invalidateRowsFilter();
}

void EventHistoryFilter::setProfile(const QString &profileId)
{
    m_profile = profileId;
    invalidateRowsFilter();
}

void EventHistoryFilter::setKind(std::optional<ConsoleEvent::Kind> kind)
{
    m_kind = kind;
    invalidateRowsFilter();
}

void EventHistoryFilter::setActor(std::optional<ConsoleEvent::Actor> actor)
{
    m_actor = actor;
    invalidateRowsFilter();
}

bool EventHistoryFilter::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const auto *model = qobject_cast<const EventHistoryModel *>(sourceModel());
    if (!model || sourceParent.isValid())
        return true;
    const ConsoleEvent &event = model->event(sourceRow);
    if (!m_profile.isEmpty() && event.profileId != m_profile)
        return false;
    if (m_kind && event.kind != *m_kind)
        return false;
    if (m_actor && event.actor != *m_actor)
        return false;
    if (m_text.isEmpty())
        return true;
    return model->index(sourceRow, 0)
        .data(EventHistoryModel::FilterTextRole)
        .toString()
        .contains(m_text, Qt::CaseInsensitive);
}

QList<ConsoleEvent> EventHistoryFilter::shownEvents() const
{
    const auto *model = qobject_cast<const EventHistoryModel *>(sourceModel());
    QList<ConsoleEvent> out;
    if (!model)
        return out;
    // In the history's order, whatever the view's sort.
    for (int row = 0; row < model->rowCount(); ++row) {
        if (filterAcceptsRow(row, {}))
            out.append(model->event(row));
    }
    return out;
}
