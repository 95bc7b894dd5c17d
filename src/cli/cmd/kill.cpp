// kill ID... [--delete-files]: deletes each workspace's sandbox. The local backend deletes the
// folder with it; Docker keeps the host folder unless --delete-files is given.

#include "lifecycle.h"

#include "backends/docker/dockerbackend.h"

#include <QCoroTask>

namespace Paddock::Ctl {

namespace {

QCoro::Task<Result<QString>> killOne(Session &s, QString id, SandboxInfo sandbox)
{
    const QString path = s.backend->layout(sandbox).workdir;
    if (auto done = co_await s.backend->kill(sandbox.sandboxId, KillOptions{}); !done)
        co_return fail(done.error());
    if (!s.docker) {
        co_return s.local ? Tr::tr("%1 killed; deleted %2").arg(id, path)
                          : Tr::tr("%1 killed; deleted sandbox %2").arg(id, sandbox.sandboxId);
    }
    // The container is gone; its files stay on the host unless asked.
    const QString folder = s.docker->hostFolder(id).value_or(QString());
    if (!s.has("delete-files"))
        co_return Tr::tr("%1 killed; deleted container %2, kept %3").arg(id, sandbox.sandboxId.left(12), folder);
    if (auto deleted = s.docker->deleteFolder(id); !deleted)
        co_return fail(deleted.error());
    co_return Tr::tr("%1 killed; deleted container %2 and %3").arg(id, sandbox.sandboxId.left(12), folder);
}

} // namespace

QCoro::Task<int> runKill(Session &s)
{
    co_return co_await forEachWorkspace(s, killOne);
}

} // namespace Paddock::Ctl
