// kill ID... | kill --all [filters] [--yes] [--delete-files]: deletes each workspace's sandbox through the profile
// session. A backend that keeps files on the host (Docker's host folder) deletes them too only with
// --delete-files; one whose sandbox is a host folder (local) deletes that folder.

#include "selection.h"

#include "backendregistry.h"

#include <QCoroTask>

namespace Paddock::Ctl {

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
    co_return co_await runBulk(s, BulkVerb::Kill);
}

} // namespace Paddock::Ctl
