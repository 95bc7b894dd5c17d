#include "lifecycle.h"

#include <QCoroTask>

namespace Paddock::Ctl {

QCoro::Task<int> forEachWorkspace(Session &s, WorkspaceStep step)
{
    const QString command = QLatin1String(s.command->name);
    for (const QString &id : std::as_const(s.args)) {
        if (auto valid = validateWorkspaceId(id); !valid)
            co_return s.usage(valid.error().message);
    }
    int exitCode = Success;
    for (const QString &id : std::as_const(s.args)) {
        auto sandbox = co_await s.session->find(id);
        if (!sandbox) {
            s.failed(QStringLiteral("%1 %2").arg(command, id), sandbox.error());
            exitCode = Failure;
            continue;
        }
        const Result<QString> report = co_await step(s, id, *sandbox);
        if (!report) {
            s.failed(QStringLiteral("%1 %2").arg(command, id), report.error());
            exitCode = Failure;
            continue;
        }
        out(*report);
    }
    co_return exitCode;
}

} // namespace Paddock::Ctl
