// sweep --idle SECONDS [--dry-run]: pauses the running workspaces idle longer than that, judged
// by the console's idle rule (idleSince), and says for each running workspace what it did.

#include "command.h"

#include "bulk.h"
#include "idlerule.h"

#include <QCoroTask>

#include <QLocale>

#include <functional>
#include <memory>

namespace Paddock::Ctl {

namespace {

// sessions/ folders read at once (one execd listing each on OpenSandbox).
constexpr int ActivityReads = 4;

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

// How the time was found, for the end of a line.
QString basisText(IdleBasis basis)
{
    switch (basis) {
    case IdleBasis::Listed:
        return Tr::tr("judged by its last activity");
    case IdleBasis::Seen:
        return Tr::tr("judged by its sessions/ folder");
    case IdleBasis::Created:
    case IdleBasis::CreatedAfterActivity:
        return Tr::tr("judged by its creation time");
    case IdleBasis::Unknown:
        break;
    }
    return {};
}

// One workspace's sessions/ activity into its slot; nothing known leaves the slot invalid.
QCoro::Task<Result<>> readActivity(ProfileSession *session, QString sandboxId, std::shared_ptr<QList<QDateTime>> seen,
                                   qsizetype index)
{
    auto activity = co_await session->sessionsActivity(sandboxId);
    if (!activity)
        co_return fail(activity.error());
    if (activity->has_value())
        (*seen)[index] = **activity;
    co_return Result<>{};
}

} // namespace

QCoro::Task<int> runSweep(Session &s)
{
    if (!s.has("idle"))
        co_return s.usage(Tr::tr("sweep needs --idle SECONDS"));
    const auto idle = parseCount(s.value("idle"));
    if (!idle)
        co_return s.usage(Tr::tr("--idle takes a whole number of seconds, not \"%1\"").arg(s.value("idle")));
    const std::chrono::seconds threshold(*idle);
    ListFilter filter;
    filter.states = {SandboxState::Running};
    auto listed = co_await s.session->list(filter);
    if (!listed)
        co_return s.failed({}, listed.error());
    const QList<SandboxInfo> running = *listed;

    // Every running workspace's sessions/ activity first, a few at once: an agent busy in its
    // sessions/ folder is not idle whatever the listing says. One that cannot be read is judged
    // without it, and the user is told.
    auto seen = std::make_shared<QList<QDateTime>>(running.size());
    QList<qsizetype> indexes;
    for (qsizetype index = 0; index < running.size(); ++index)
        indexes.append(index);
    ProfileSession *session = s.session.get();
    // A named function, never a lambda made into one inside the co_await: with GCC 12 that
    // temporary corrupted this frame (paddockctl crashed at the second pause after the reads).
    const std::function<QCoro::Task<Result<>>(const qsizetype &)> read = [session, seen,
                                                                          &running](const qsizetype &index) {
        return readActivity(session, running.at(index).sandboxId, seen, index);
    };
    const QList<Result<>> reads = co_await runBounded<qsizetype>(indexes, ActivityReads, read);
    for (qsizetype index = 0; index < reads.size(); ++index) {
        if (!reads.at(index)) {
            err(Tr::tr("cannot read the sessions/ activity of %1 (%2); it is judged without it")
                    .arg(running.at(index).workspaceId, reads.at(index).error().message));
        }
    }

    const QDateTime now = QDateTime::currentDateTimeUtc();
    const bool dryRun = s.has("dry-run");
    int exitCode = Success;
    for (qsizetype i = 0; i < running.size(); ++i) {
        const SandboxInfo &info = running.at(i);
        const IdleSince since = idleSince(info, seen->at(i));
        if (!since.isKnown()) {
            out(Tr::tr("%1 not judged: no activity or creation time to go by").arg(info.workspaceId));
            continue;
        }
        const std::chrono::seconds idleFor(std::max<qint64>(0, since.since.secsTo(now)));
        if (!since.idleLongerThan(threshold, now)) {
            out(Tr::tr("%1 not idle for long enough (idle %2 of %3, %4)")
                    .arg(info.workspaceId, idleText(idleFor), idleText(threshold), basisText(since.basis)));
            continue;
        }
        if (dryRun) {
            out(Tr::tr("%1 would be paused (idle %2, %3)")
                    .arg(info.workspaceId, idleText(idleFor), basisText(since.basis)));
            continue;
        }
        if (auto paused = co_await s.session->pause(info); !paused) {
            err(Tr::tr("%1 pause failed: %2").arg(info.workspaceId, paused.error().message));
            exitCode = Failure;
            continue;
        }
        out(Tr::tr("%1 paused (idle %2, %3)").arg(info.workspaceId, idleText(idleFor), basisText(since.basis)));
    }
    co_return exitCode;
}

} // namespace Paddock::Ctl
