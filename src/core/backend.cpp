#include "backend.h"

#include "tr.h"

#include <QCoroTask>

namespace Paddock {

QCoro::Task<Result<std::optional<QDateTime>>> Backend::sessionsActivity(QString)
{
    co_return std::optional<QDateTime>();
}

QCoro::Task<Result<QByteArray>> Backend::containerLogs(QString, int)
{
    const QString message = Tr::tr("the %1 backend has no container logs").arg(name());
    co_return fail(Error::unsupported(message));
}

} // namespace Paddock
