#pragma once

#include "sandbox.h"

struct WorkspaceRecord;

#include <QSortFilterProxyModel>

#include <optional>

// Sorts the workspace tree and filters it by text (workspace id or name, user, agent, sandbox id,
// image; case-insensitive), by state and by backend ("local", "opensandbox", "docker"). A group
// stays visible while one of its workspaces matches, and is hidden with its last match. While a
// filter is on, a group counts what it shows ("2 Running (of 7)"). Groups sort by the most urgent
// of the rows they show (the soonest countdown, the newest time).
class WorkspaceFilterProxy final : public QSortFilterProxyModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WorkspaceFilterProxy)

public:
    explicit WorkspaceFilterProxy(QObject *parent = nullptr);

    void setText(const QString &text);
    QString text() const { return m_text; }
    void setState(std::optional<Paddock::SandboxState> state);
    std::optional<Paddock::SandboxState> state() const { return m_state; }
    // Empty: every backend.
    void setBackend(const QString &backend);
    QString backend() const { return m_backend; }
    bool isFiltering() const { return !m_text.isEmpty() || m_state.has_value() || !m_backend.isEmpty(); }
    // Whether a workspace passes the filter.
    bool accepts(const WorkspaceRecord &record) const;

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    void refilter();

    QString m_text;
    std::optional<Paddock::SandboxState> m_state;
    QString m_backend;
};
