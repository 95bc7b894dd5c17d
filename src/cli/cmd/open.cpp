// open: provisions (or reattaches) a workspace through the manager, streaming its bootstrap log
// to stderr, and prints its id.

#include "command.h"

#include "backends/local/localbackend.h"
#include "workspacemanager.h"

#include <QCoroTask>

namespace Paddock::Ctl {

QCoro::Task<int> runOpen(Session &s)
{
    const auto policy = s.isolation();
    if (!policy)
        co_return s.usage(policy.error().message);
    if (!s.has("user") || !s.has("agent"))
        co_return s.usage(Tr::tr("open needs --user and --agent"));

    WorkspaceRequest request;
    request.userId = s.value("user");
    request.agentId = s.value("agent");
    request.sessionId = s.value("session");
    if (s.has("workspace-id"))
        request.workspaceId = s.value("workspace-id");

    Provisioner provisioner(s.backend.get(), s.logs.get(), std::move(s.provision));
    ManagerOptions managerOptions;
    managerOptions.isolation = *policy;
    WorkspaceManager manager(&provisioner, managerOptions);
    auto id = manager.resolveWorkspaceId(request);
    if (!id)
        co_return s.usage(id.error().message);
    if (s.local) {
        if (auto writable = s.local->checkWritable(); !writable)
            co_return s.usage(writable.error().message);
    }

    QObject::connect(
        s.logs.get(), &BootstrapLogStore::lineAppended, s.logs.get(),
        [](const QString &, const QString &, const LogLine &line) { write(stderr, line.serialize() + '\n'); });
    auto workspace = co_await manager.getWorkspace(request);
    if (!workspace)
        co_return s.failed(Tr::tr("cannot open workspace %1").arg(*id), workspace.error());
    // The workspace stays open (Running) for whoever uses it next; close or pause ends that.
    out((*workspace)->id());
    co_return Success;
}

} // namespace Paddock::Ctl
