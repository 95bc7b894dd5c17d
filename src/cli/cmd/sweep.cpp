// sweep --idle SECONDS [--dry-run]: pauses the running workspaces idle longer than that.

#include "command.h"

#include <QCoroTask>

#include <QLocale>

namespace Paddock::Ctl {

namespace {

QString idleText(std::chrono::seconds idle)
{
    const auto hours = std::chrono::duration_cast<std::chrono::hours>(idle);
    const auto minutes = std::chrono::duration_cast<std::chrono::minutes>(idle - hours);
    const auto seconds = idle - hours - minutes;
    // In the user's language and number format ("5m 3s", "5 分 3 秒").
    const QLocale locale;
    if (hours.count() > 0)
        return Tr::tr("%1h %2m").arg(locale.toString(qint64(hours.count())), locale.toString(qint64(minutes.count())));
    if (minutes.count() > 0)
        return Tr::tr("%1m %2s").arg(locale.toString(qint64(minutes.count())),
                                     locale.toString(qint64(seconds.count())));
    return Tr::tr("%1s").arg(locale.toString(qint64(seconds.count())));
}

} // namespace

QCoro::Task<int> runSweep(Session &s)
{
    if (!s.has("idle"))
        co_return s.usage(Tr::tr("sweep needs --idle SECONDS"));
    const auto idle = parseCount(s.value("idle"));
    if (!idle)
        co_return s.usage(Tr::tr("--idle takes a whole number of seconds, not \"%1\"").arg(s.value("idle")));
    ListFilter running;
    running.states = {SandboxState::Running};
    auto all = co_await s.backend->list(running);
    if (!all)
        co_return s.failed({}, all.error());

    const QDateTime now = QDateTime::currentDateTimeUtc();
    const bool dryRun = s.has("dry-run");
    int exitCode = Success;
    for (const SandboxInfo &info : std::as_const(*all)) {
        const std::chrono::seconds idleFor(info.lastActivityAt.isValid() ? info.lastActivityAt.secsTo(now) : 0);
        if (idleFor.count() <= *idle)
            continue;
        if (dryRun) {
            out(Tr::tr("%1 would be paused (idle %2)").arg(info.workspaceId, idleText(idleFor)));
            continue;
        }
        if (auto paused = co_await s.backend->pause(info.sandboxId); !paused) {
            s.failed(QStringLiteral("pause %1").arg(info.workspaceId), paused.error());
            exitCode = Failure;
            continue;
        }
        out(Tr::tr("%1 paused (idle %2)").arg(info.workspaceId, idleText(idleFor)));
    }
    co_return exitCode;
}

} // namespace Paddock::Ctl
