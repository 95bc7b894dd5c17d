// renew ID... | renew --all [filters] --seconds DURATION [--allow-shorter]: sets each expiry to
// now + that, and never shortens one unless asked. In parallel, through the core's bulk runner
// (selection.h).

#include "selection.h"

#include <QCoroTask>

namespace Paddock::Ctl {

QCoro::Task<int> runRenew(Session &s)
{
    co_return co_await runBulk(s, BulkVerb::Renew);
}

} // namespace Paddock::Ctl
