#pragma once

#include "sandbox.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QList>

// The workspaces of one backend as a flat table. update() applies a fresh listing in place
// (rows removed, changed and inserted; never a reset), so selection and scroll position survive.
class WorkspaceTableModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WorkspaceTableModel)

public:
    enum Column {
        WorkspaceColumn,
        StateColumn,
        UserColumn,
        AgentColumn,
        BackendColumn,
        CreatedColumn,
        LastActivityColumn,
        ColumnCount
    };
    enum Role {
        WorkspaceIdRole = Qt::UserRole,
        SortRole,
    };

    explicit WorkspaceTableModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    void update(const QList<Paddock::SandboxInfo> &workspaces);
    const Paddock::SandboxInfo *workspace(int row) const;

private:
    QList<Paddock::SandboxInfo> m_rows;
    QHash<QString, int> m_rowOf; // workspace id -> row
};
