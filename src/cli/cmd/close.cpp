// close ID... | close --all [filters]: ends each workspace's use through the profile session. A command line's session
// holds no workspace, so closing is pausing the sandbox. In parallel, through the
// core's bulk runner (selection.h).

#include "selection.h"

#include <QCoroTask>

namespace Paddock::Ctl {

QCoro::Task<int> runClose(Session &s)
{
    co_return co_await runBulk(s, BulkVerb::Close);
}

} // namespace Paddock::Ctl
