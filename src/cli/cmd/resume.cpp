// resume ID...: resumes each workspace's sandbox.

#include "lifecycle.h"

#include <QCoroTask>

namespace Paddock::Ctl {

namespace {

QCoro::Task<Result<QString>> resumeOne(Session &s, QString id, SandboxInfo sandbox)
{
    if (auto resumed = co_await s.session->resume(sandbox); !resumed)
        co_return fail(resumed.error());
    co_return Tr::tr("%1 resumed").arg(id);
}

} // namespace

QCoro::Task<int> runResume(Session &s)
{
    co_return co_await forEachWorkspace(s, resumeOne);
}

} // namespace Paddock::Ctl
