// sweep --idle DURATION [FILTERS] [--dry-run] [--concurrency N] [--json]: pauses the running
// workspaces idle longer than that, judged by the console's idle rule (idleSince), and says for
// each running workspace what it did.

#include "command.h"

#include "bulk.h"
#include "duration.h"
#include "idlerule.h"
#include "selection.h"
#include "signals.h"

#include <QCoroTask>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>

#include <functional>
#include <memory>

namespace Paddock::Ctl {

namespace {

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
        co_return s.usage(Tr::tr("sweep needs --idle DURATION (such as %1)").arg(durationForms()));
    const auto idle = parseDuration(s.value("idle"));
    if (!idle) {
        co_return s.usage(Tr::tr("--idle takes a duration such as %1 (or whole seconds), not \"%2\"")
                              .arg(durationForms(), s.value("idle")));
    }
    const std::chrono::seconds threshold = *idle;
    const auto filters = parseFilters(s);
    if (!filters)
        co_return s.usage(filters.error().message);
    const auto concurrency = parseConcurrency(s);
    if (!concurrency)
        co_return s.usage(concurrency.error().message);
    ListFilter filter;
    filter.states = {SandboxState::Running};
    auto listed = co_await s.session->list(filter);
    if (!listed)
        co_return s.failed({}, listed.error());
    QList<SandboxInfo> running;
    const QDateTime listedAt = QDateTime::currentDateTimeUtc();
    for (const SandboxInfo &info : newestPerWorkspace(*listed)) {
        if (filters->matches(info, listedAt))
            running.append(info);
    }

    // The sessions/ activity of those the listing alone finds idle, --concurrency at once: an
    // agent busy in its sessions/ folder is not idle whatever the listing says (and a read can
    // only make a workspace less idle, so the others need none). One that cannot be read is
    // judged without it, and the user is told.
    const QDateTime listedNow = QDateTime::currentDateTimeUtc();
    auto seen = std::make_shared<QList<QDateTime>>(running.size());
    QList<qsizetype> indexes;
    for (qsizetype index = 0; index < running.size(); ++index) {
        if (idleSince(running.at(index)).idleLongerThan(threshold, listedNow))
            indexes.append(index);
    }
    ProfileSession *session = s.session.get();
    // A named function, never a lambda made into one inside the co_await: with GCC 12 that
    // temporary corrupted this frame (paddockctl crashed at the second pause after the reads).
    const std::function<QCoro::Task<Result<>>(const qsizetype &)> read = [session, seen,
                                                                          &running](const qsizetype &index) {
        return readActivity(session, running.at(index).sandboxId, seen, index);
    };
    const QList<Result<>> reads = co_await runBounded<qsizetype>(indexes, *concurrency, read);
    for (qsizetype i = 0; i < reads.size(); ++i) {
        if (!reads.at(i)) {
            err(Tr::tr("cannot read the sessions/ activity of %1 (%2); it is judged without it")
                    .arg(running.at(indexes.at(i)).workspaceId, reads.at(i).error().message));
        }
    }

    // Each running workspace judged; those left running said at once, in the listing's order.
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const bool dryRun = s.has("dry-run");
    const bool json = s.has("json");
    QJsonArray rows;
    QList<SandboxInfo> idleOnes;
    QList<QString> idleWhy; // "idle 2h 3m, judged by ..." for each of idleOnes
    QList<qint64> idleSeconds;
    for (qsizetype i = 0; i < running.size(); ++i) {
        const SandboxInfo &info = running.at(i);
        const IdleSince since = idleSince(info, seen->at(i));
        QJsonObject row{{QStringLiteral("workspaceId"), info.workspaceId},
                        {QStringLiteral("sandboxId"), info.sandboxId},
                        {QStringLiteral("action"), QStringLiteral("none")}};
        if (!since.isKnown()) {
            if (!json)
                out(Tr::tr("%1 not judged: no activity or creation time to go by").arg(info.workspaceId));
            row.insert(QStringLiteral("idleSeconds"), QJsonValue(QJsonValue::Null));
            rows.append(row);
            continue;
        }
        const std::chrono::seconds idleFor(std::max<qint64>(0, since.since.secsTo(now)));
        if (!since.idleLongerThan(threshold, now)) {
            if (!json) {
                out(Tr::tr("%1 not idle for long enough (idle %2 of %3, %4)")
                        .arg(info.workspaceId, formatDuration(idleFor), formatDuration(threshold),
                             basisText(since.basis)));
            }
            row.insert(QStringLiteral("idleSeconds"), qint64(idleFor.count()));
            rows.append(row);
            continue;
        }
        idleOnes.append(info);
        idleWhy.append(Tr::tr("idle %1, %2").arg(formatDuration(idleFor), basisText(since.basis)));
        idleSeconds.append(idleFor.count());
    }
    if (dryRun) {
        for (qsizetype i = 0; i < idleOnes.size(); ++i) {
            if (json) {
                rows.append(QJsonObject{{QStringLiteral("workspaceId"), idleOnes.at(i).workspaceId},
                                        {QStringLiteral("sandboxId"), idleOnes.at(i).sandboxId},
                                        {QStringLiteral("action"), QStringLiteral("pause")},
                                        {QStringLiteral("dryRun"), true},
                                        {QStringLiteral("idleSeconds"), idleSeconds.at(i)}});
            } else {
                out(Tr::tr("%1 would be paused (%2)").arg(idleOnes.at(i).workspaceId, idleWhy.at(i)));
            }
        }
        if (json)
            write(stdout, QJsonDocument(rows).toJson(QJsonDocument::Indented));
        co_return Success;
    }

    // The idle ones paused in parallel through the core's bulk runner (the accepted pauses seen
    // through together), each said in the listing's order as soon as it and those before it are
    // done.
    OrderedPrinter printer(idleOnes.size(), QStringLiteral("pause"), json);
    const auto cancel = std::make_shared<CancelToken>();
    const StopOnSignals stopper(cancel);
    BulkProgress progress;
    progress.cancel = cancel;
    progress.concurrency = *concurrency;
    progress.started = [&printer](qsizetype index) { printer.started(index); };
    progress.finished = [&printer, &idleWhy, &idleSeconds](qsizetype index, const ItemResult &result) {
        Outcome outcome{result.sandbox, result.error, {}, {}};
        if (result.ok())
            outcome.line = Tr::tr("%1 paused (%2)").arg(idOf(result.sandbox), idleWhy.at(index));
        outcome.extra.insert(QStringLiteral("idleSeconds"), idleSeconds.at(index));
        printer.done(index, std::move(outcome));
    };
    const ActionOptions options;
    co_await session->run(WorkspaceAction::Pause, idleOnes, options, progress);
    co_return printer.finish(json, stopper.signal(), Success, rows);
}

} // namespace Paddock::Ctl
