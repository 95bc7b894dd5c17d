// resume ID... | resume --all [filters]: resumes each workspace's sandbox. In parallel, through the
// core's bulk runner (selection.h).

#include "selection.h"

#include <QCoroTask>

namespace Paddock::Ctl {

QCoro::Task<int> runResume(Session &s)
{
    co_return co_await runBulk(s, BulkVerb::Resume);
}

} // namespace Paddock::Ctl
