// close ID...: ends each workspace's use through the profile session. A command line's session
// holds no workspace, so closing is pausing the sandbox.

#include "lifecycle.h"

#include <QCoroTask>

namespace Paddock::Ctl {

namespace {

QCoro::Task<Result<QString>> closeOne(Session &s, QString id, SandboxInfo sandbox)
{
    if (auto done = co_await s.session->close(sandbox); !done)
        co_return fail(done.error());
    co_return Tr::tr("%1 closed").arg(id);
}

} // namespace

QCoro::Task<int> runClose(Session &s)
{
    co_return co_await forEachWorkspace(s, closeOne);
}

} // namespace Paddock::Ctl
