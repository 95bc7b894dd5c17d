#pragma once

#include "backend.h"
#include "result.h"
#include "sandbox.h"

#include <QCoroFwd>

#include <QPointer>
#include <QString>

#include <memory>

namespace Paddock {

// An initialised workspace, as the manager caches it.
class Workspace
{
public:
    Workspace(QString id, QString userId, QString agentId);
    virtual ~Workspace() = default;
    Q_DISABLE_COPY_MOVE(Workspace)

    const QString &id() const { return m_id; }
    const QString &userId() const { return m_userId; }
    const QString &agentId() const { return m_agentId; }

    // Release what the workspace holds in its backend; files are kept.
    virtual QCoro::Task<Result<>> close() = 0;

private:
    QString m_id;
    QString m_userId;
    QString m_agentId;
};

using WorkspacePtr = std::shared_ptr<Workspace>;

// A workspace provisioned in a backend: close pauses its sandbox.
class SandboxWorkspace final : public Workspace
{
public:
    SandboxWorkspace(Backend *backend, SandboxInfo sandbox, WorkspaceLayout layout);

    const SandboxInfo &sandbox() const { return m_sandbox; }
    const WorkspaceLayout &layout() const { return m_layout; }
    Backend *backend() const { return m_backend; }

    QCoro::Task<Result<>> close() override;

private:
    QPointer<Backend> m_backend;
    SandboxInfo m_sandbox;
    WorkspaceLayout m_layout;
};

} // namespace Paddock
