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
    invalidateRowsFilter();
}

void WorkspaceFilterProxy::setState(std::optional<SandboxState> state)
{
    if (state == m_state)
        return;
    m_state = state;
    invalidateRowsFilter();
}

void WorkspaceFilterProxy::setBackend(const QString &backend)
{
    if (backend == m_backend)
        return;
    m_backend = backend;
    invalidateRowsFilter();
}

bool WorkspaceFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (!isFiltering())
        return true;
    const auto *model = static_cast<const WorkspaceTreeModel *>(sourceModel());
    const WorkspaceRecord *record = model->record(model->index(sourceRow, 0, sourceParent));
    if (!record)
        return false; // a group: shown through its matching workspaces
    if (m_state && record->info.state != *m_state)
        return false;
    if (!m_backend.isEmpty() && record->info.backend != m_backend)
        return false;
    if (m_text.isEmpty())
        return true;
    const SandboxInfo &info = record->info;
    for (const QString *field : {&info.workspaceId, &info.userId, &info.agentId, &info.sandboxId, &info.image}) {
        if (field->contains(m_text, Qt::CaseInsensitive))
            return true;
    }
    return info.metadata.value(QStringLiteral("name")).contains(m_text, Qt::CaseInsensitive);
}
