#include "idlerule.h"

namespace Paddock {

IdleSince idleSince(const SandboxInfo &info, const QDateTime &seen)
{
    IdleSince result;
    if (info.lastActivityAt.isValid())
        result = {info.lastActivityAt, IdleBasis::Listed};
    if (seen.isValid() && (!result.since.isValid() || seen > result.since))
        result = {seen, IdleBasis::Seen};
    if (!info.createdAt.isValid())
        return result;
    if (!result.since.isValid())
        result = {info.createdAt, IdleBasis::Created};
    else if (info.createdAt > result.since)
        result = {info.createdAt, IdleBasis::CreatedAfterActivity};
    return result;
}

} // namespace Paddock
