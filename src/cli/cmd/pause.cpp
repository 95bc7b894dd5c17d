// pause ID... | pause --all [filters]: pauses each workspace's sandbox. In parallel, through the
// core's bulk runner (selection.h).

#include "selection.h"

#include <QCoroTask>

namespace Paddock::Ctl {

QCoro::Task<int> runPause(Session &s)
{
    co_return co_await runBulk(s, BulkVerb::Pause);
}

} // namespace Paddock::Ctl
