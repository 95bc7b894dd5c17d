#include "workspace.h"

#include "backend.h"
#include "tr.h"

#include <QCoroTask>

namespace Paddock {

Workspace::Workspace(QString id, QString userId, QString agentId)
    : m_id(std::move(id))
    , m_userId(std::move(userId))
    , m_agentId(std::move(agentId))
{
}

SandboxWorkspace::SandboxWorkspace(Backend *backend, SandboxInfo sandbox, WorkspaceLayout layout)
    : Workspace(sandbox.workspaceId, sandbox.userId, sandbox.agentId)
    , m_backend(backend)
    , m_sandbox(std::move(sandbox))
    , m_layout(std::move(layout))
{
}

QCoro::Task<Result<>> SandboxWorkspace::close()
{
    if (!m_backend)
        co_return fail(Error::backend(Tr::tr("the backend of workspace %1 is gone").arg(id())));
    co_return co_await m_backend->pause(m_sandbox.sandboxId);
}

} // namespace Paddock
