#include "workspacetablemodel.h"

#include <QLocale>

#include <algorithm>

using namespace Paddock;

namespace {

bool sameRow(const SandboxInfo &a, const SandboxInfo &b)
{
    return a.state == b.state && a.rawState == b.rawState && a.userId == b.userId && a.agentId == b.agentId
        && a.lastActivityAt == b.lastActivityAt && a.createdAt == b.createdAt && a.expiresAt == b.expiresAt
        && a.metadata == b.metadata;
}

} // namespace

WorkspaceTableModel::WorkspaceTableModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

int WorkspaceTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int WorkspaceTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant WorkspaceTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const SandboxInfo &info = m_rows.at(index.row());
    if (role == WorkspaceIdRole)
        return info.workspaceId;
    if (role != Qt::DisplayRole && role != SortRole && role != Qt::ToolTipRole)
        return {};
    const QLocale locale;
    switch (index.column()) {
    case WorkspaceColumn:
        return info.metadata.value(QStringLiteral("name"), info.workspaceId);
    case StateColumn:
        return info.rawState.isEmpty() ? sandboxStateName(info.state) : info.rawState;
    case UserColumn:
        return info.userId;
    case AgentColumn:
        return info.agentId;
    case BackendColumn:
        return info.backend;
    case CreatedColumn:
        if (role == SortRole)
            return info.createdAt;
        return locale.toString(info.createdAt.toLocalTime(), QLocale::ShortFormat);
    case LastActivityColumn:
        if (role == SortRole)
            return info.lastActivityAt;
        return locale.toString(info.lastActivityAt.toLocalTime(), QLocale::ShortFormat);
    default:
        return {};
    }
}

QVariant WorkspaceTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
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
    case CreatedColumn:
        return tr("Created");
    case LastActivityColumn:
        return tr("Last activity");
    default:
        return {};
    }
}

const SandboxInfo *WorkspaceTableModel::workspace(int row) const
{
    return row >= 0 && row < m_rows.size() ? &m_rows.at(row) : nullptr;
}

void WorkspaceTableModel::update(const QList<SandboxInfo> &workspaces)
{
    QHash<QString, const SandboxInfo *> fresh;
    fresh.reserve(workspaces.size());
    for (const SandboxInfo &info : workspaces)
        fresh.insert(info.workspaceId, &info);

    // Remove vanished rows from the bottom up, in contiguous runs.
    for (int row = int(m_rows.size()) - 1; row >= 0;) {
        if (fresh.contains(m_rows.at(row).workspaceId)) {
            --row;
            continue;
        }
        int first = row;
        while (first > 0 && !fresh.contains(m_rows.at(first - 1).workspaceId))
            --first;
        beginRemoveRows({}, first, row);
        m_rows.remove(first, row - first + 1);
        endRemoveRows();
        row = first - 1;
    }
    m_rowOf.clear();
    for (int row = 0; row < m_rows.size(); ++row)
        m_rowOf.insert(m_rows.at(row).workspaceId, row);

    // Update changed rows in place.
    for (int row = 0; row < m_rows.size(); ++row) {
        const SandboxInfo &now = *fresh.value(m_rows.at(row).workspaceId);
        if (!sameRow(m_rows.at(row), now)) {
            m_rows[row] = now;
            Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
        }
    }

    // Append new rows in one batch.
    QList<SandboxInfo> added;
    for (const SandboxInfo &info : workspaces) {
        if (!m_rowOf.contains(info.workspaceId))
            added.append(info);
    }
    if (!added.isEmpty()) {
        const int first = int(m_rows.size());
        beginInsertRows({}, first, first + int(added.size()) - 1);
        for (const SandboxInfo &info : std::as_const(added)) {
            m_rowOf.insert(info.workspaceId, int(m_rows.size()));
            m_rows.append(info);
        }
        endInsertRows();
    }
}
