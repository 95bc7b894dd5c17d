// pause ID...: pauses each workspace's sandbox.

#include "lifecycle.h"

#include <QCoroTask>

namespace Paddock::Ctl {

namespace {

QCoro::Task<Result<QString>> pauseOne(Session &s, QString id, SandboxInfo sandbox)
{
    if (auto done = co_await s.session->pause(sandbox); !done)
        co_return fail(done.error());
    co_return Tr::tr("%1 paused").arg(id);
}

} // namespace

QCoro::Task<int> runPause(Session &s)
{
    co_return co_await forEachWorkspace(s, pauseOne);
}

} // namespace Paddock::Ctl
