// close ID...: ends each workspace's use. A command line keeps no manager cache to evict from,
// so closing is pausing the backend.

#include "lifecycle.h"

#include <QCoroTask>

namespace Paddock::Ctl {

namespace {

QCoro::Task<Result<QString>> closeOne(Session &s, QString id, SandboxInfo sandbox)
{
    if (auto done = co_await s.backend->pause(sandbox.sandboxId); !done)
        co_return fail(done.error());
    co_return Tr::tr("%1 closed").arg(id);
}

} // namespace

QCoro::Task<int> runClose(Session &s)
{
    co_return co_await forEachWorkspace(s, closeOne);
}

} // namespace Paddock::Ctl
