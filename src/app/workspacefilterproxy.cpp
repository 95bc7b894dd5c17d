#include "workspacefilterproxy.h"

#include "workspacetreemodel.h"

using namespace Paddock;

WorkspaceFilterProxy::WorkspaceFilterProxy(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setRecursiveFilteringEnabled(true); // a group shows while any workspace under it matches
    // filterAcceptsRow() reads the records, not a role. A role no countdown tick sends keeps the
    // proxy from re-checking every changed row's groups once a second.
    setFilterRole(WorkspaceTreeModel::KeyRole);
    setSortRole(WorkspaceTreeModel::SortRole);
    setSortLocaleAware(true);
}

void WorkspaceFilterProxy::setText(const QString &text)
{
    const QString trimmed = text.trimmed();
    if (trimmed == m_text)
        return;
    m_text = trimmed;
    refilter();
}

void WorkspaceFilterProxy::setState(std::optional<SandboxState> state)
{
    if (state == m_state)
        return;
    m_state = state;
    refilter();
}

void WorkspaceFilterProxy::setBackend(const QString &backend)
{
    if (backend == m_backend)
        return;
    m_backend = backend;
    refilter();
}

void WorkspaceFilterProxy::refilter()
{
    // Groups sorted by what they show move when what they show changes.
    const int column = sortColumn();
    if (column == WorkspaceTreeModel::IdleColumn || column == WorkspaceTreeModel::ExpiryColumn
        || column == WorkspaceTreeModel::LastActivityColumn || column == WorkspaceTreeModel::CreatedColumn)
        invalidate();
    else
        invalidateRowsFilter();
}

bool WorkspaceFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (!isFiltering())
        return true;
    const auto *model = static_cast<const WorkspaceTreeModel *>(sourceModel());
    const WorkspaceRecord *record = model->record(model->index(sourceRow, 0, sourceParent));
    if (!record) // a group: shown through its matching workspaces; a profile's always (its problem, its counts)
        return !sourceParent.isValid() && model->hasProfileGroups();
    return accepts(*record);
}

bool WorkspaceFilterProxy::accepts(const WorkspaceRecord &record) const
{
    if (m_state && record.info.state != *m_state)
        return false;
    if (!m_backend.isEmpty() && record.info.backend != m_backend)
        return false;
    if (m_text.isEmpty())
        return true;
    const SandboxInfo &info = record.info;
    for (const QString *field : {&info.workspaceId, &info.userId, &info.agentId, &info.sandboxId, &info.image}) {
        if (field->contains(m_text, Qt::CaseInsensitive))
            return true;
    }
    return info.metadata.value(QStringLiteral("name")).contains(m_text, Qt::CaseInsensitive);
}

QVariant WorkspaceFilterProxy::data(const QModelIndex &index, int role) const
{
    // A group's counts are of what it shows.
    if (isFiltering() && index.column() == WorkspaceTreeModel::StateColumn
        && (role == Qt::DisplayRole || role == Qt::ToolTipRole)
        && index.data(WorkspaceTreeModel::KindRole).value<WorkspaceTreeModel::Kind>()
            != WorkspaceTreeModel::Kind::Workspace) {
        const auto *model = static_cast<const WorkspaceTreeModel *>(sourceModel());
        const auto accept = [this](const WorkspaceRecord &record) { return accepts(record); };
        return model->countsText(model->summarize(mapToSource(index), accept));
    }
    return QSortFilterProxyModel::data(index, role);
}

bool WorkspaceFilterProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    // Two groups under a filter: by the most urgent of the rows they show. (Without a filter the
    // model's own sort value says the same of all their rows.)
    const int column = left.column();
    if (isFiltering()
        && (column == WorkspaceTreeModel::IdleColumn || column == WorkspaceTreeModel::ExpiryColumn
            || column == WorkspaceTreeModel::LastActivityColumn || column == WorkspaceTreeModel::CreatedColumn)) {
        const auto *model = static_cast<const WorkspaceTreeModel *>(sourceModel());
        if (!model->record(left) && !model->record(right)) {
            const auto accept = [this](const WorkspaceRecord &record) { return accepts(record); };
            const QVariant a = WorkspaceTreeModel::groupSortValue(model->summarize(left, accept), column);
            const QVariant b = WorkspaceTreeModel::groupSortValue(model->summarize(right, accept), column);
            return QVariant::compare(a, b) == QPartialOrdering::Less;
        }
    }
    if (column == WorkspaceTreeModel::CpuColumn || column == WorkspaceTreeModel::MemoryColumn) {
        // An absent figure comes after every figure, in either order.
        const QVariant a = left.data(WorkspaceTreeModel::SortRole);
        const QVariant b = right.data(WorkspaceTreeModel::SortRole);
        const bool aAbsent = !a.isValid()
            && left.data(WorkspaceTreeModel::KindRole).value<WorkspaceTreeModel::Kind>()
                == WorkspaceTreeModel::Kind::Workspace;
        const bool bAbsent = !b.isValid()
            && right.data(WorkspaceTreeModel::KindRole).value<WorkspaceTreeModel::Kind>()
                == WorkspaceTreeModel::Kind::Workspace;
        if (aAbsent || bAbsent) {
            if (aAbsent == bAbsent)
                return false;
            return sortOrder() == Qt::AscendingOrder ? bAbsent : aAbsent;
        }
    }
    return QSortFilterProxyModel::lessThan(left, right);
}
