#include "backend.h"

#include <QCoroTask>

namespace Paddock {

QCoro::Task<Result<std::optional<QDateTime>>> Backend::sessionsActivity(QString)
{
    co_return std::optional<QDateTime>();
}

} // namespace Paddock
