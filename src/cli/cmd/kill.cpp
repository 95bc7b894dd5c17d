// kill ID... [--delete-files]: deletes each workspace's sandbox through the profile session. A
// backend that keeps files on the host (Docker's host folder) deletes them too only with
// --delete-files; one whose sandbox is a host folder (local) deletes that folder.

#include "lifecycle.h"

#include "backendregistry.h"

#include <QCoroTask>

namespace Paddock::Ctl {

namespace {

QCoro::Task<Result<QString>> killOne(Session &s, QString id, SandboxInfo sandbox)
{
    ProfileSession *session = s.session.get();
    const QString folder = session->hostFolder(sandbox);
    const bool deleteFiles = s.has("delete-files");
    if (auto done = co_await session->kill(sandbox, KillOptions{.deleteFiles = deleteFiles}); !done)
        co_return fail(done.error());
    if (session->can(Capability::DeleteFilesOnKill)) {
        // The container is gone; its files stay on the host unless asked.
        co_return deleteFiles
            ? Tr::tr("%1 killed; deleted container %2 and %3").arg(id, sandbox.sandboxId.left(12), folder)
            : Tr::tr("%1 killed; deleted container %2, kept %3").arg(id, sandbox.sandboxId.left(12), folder);
    }
    co_return folder.isEmpty() ? Tr::tr("%1 killed; deleted sandbox %2").arg(id, sandbox.sandboxId)
                               : Tr::tr("%1 killed; deleted %2").arg(id, folder);
}

} // namespace

QCoro::Task<int> runKill(Session &s)
{
    if (s.has("delete-files") && !s.session->can(Capability::DeleteFilesOnKill)) {
        // A backend that keeps files on kill in one layout may delete them in another (Docker in
        // AgentScope's layout): there the option has nothing to add.
        const BackendFactory *own = BackendRegistry::instance().find(s.session->profile().kind);
        if (own && own->capabilities.testFlag(Capability::DeleteFilesOnKill))
            co_return s.usage(Tr::tr("--delete-files does not apply here: kill deletes the workspaces' files in this "
                                     "layout"));
        QStringList deleting; // the backends that can, as the message names them
        for (const BackendFactory &factory : BackendRegistry::instance().factories()) {
            if (factory.capabilities.testFlag(Capability::DeleteFilesOnKill))
                deleting.append(factory.id);
        }
        co_return s.usage(appliesOnlyTo(QStringLiteral("delete-files"), deleting));
    }
    co_return co_await forEachWorkspace(s, killOne);
}

} // namespace Paddock::Ctl
