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

    // Every running workspace's sessions/ activity first, --concurrency at once: an agent busy in
    // its sessions/ folder is not idle whatever the listing says. One that cannot be read is
    // judged without it, and the user is told.
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
    const QList<Result<>> reads = co_await runBounded<qsizetype>(indexes, *concurrency, read);
    for (qsizetype index = 0; index < reads.size(); ++index) {
        if (!reads.at(index)) {
            err(Tr::tr("cannot read the sessions/ activity of %1 (%2); it is judged without it")
                    .arg(running.at(index).workspaceId, reads.at(index).error().message));
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
                        {QStringLiteral("sandboxId"), info.sandboxId}};
        if (!since.isKnown()) {
            if (!json)
                out(Tr::tr("%1 not judged: no activity or creation time to go by").arg(info.workspaceId));
            row.insert(QStringLiteral("action"), QStringLiteral("none"));
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
            row.insert(QStringLiteral("action"), QStringLiteral("none"));
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
                                        {QStringLiteral("action"), QStringLiteral("would pause")},
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
    int exitCode = Success;
    QList<std::optional<ItemResult>> results(idleOnes.size());
    qsizetype printed = 0;
    const auto cancel = std::make_shared<CancelToken>();
    const StopOnSignals stopper(cancel);
    BulkProgress progress;
    progress.cancel = cancel;
    progress.concurrency = *concurrency;
    progress.finished = [&](qsizetype index, const ItemResult &result) {
        results[index] = result;
        while (printed < results.size() && results.at(printed)) {
            const ItemResult &done = *results.at(printed);
            const SandboxInfo &info = idleOnes.at(printed);
            if (done.ok()) {
                if (!json)
                    out(Tr::tr("%1 paused (%2)").arg(info.workspaceId, idleWhy.at(printed)));
            } else if (done.error->kind != Error::Kind::Cancelled) {
                err(Tr::tr("%1 pause failed: %2").arg(info.workspaceId, done.error->message));
            }
            ++printed;
        }
    };
    co_await session->run(WorkspaceAction::Pause, idleOnes, ActionOptions{}, progress);
    QStringList notStarted;
    qsizetype paused = 0;
    qsizetype failed = 0;
    for (qsizetype i = 0; i < results.size(); ++i) {
        const std::optional<ItemResult> &result = results.at(i);
        const bool cancelled = result && !result->ok() && result->error->kind == Error::Kind::Cancelled;
        if (json) {
            rows.append(QJsonObject{
                {QStringLiteral("workspaceId"), idleOnes.at(i).workspaceId},
                {QStringLiteral("sandboxId"), idleOnes.at(i).sandboxId},
                {QStringLiteral("action"), QStringLiteral("pause")},
                {QStringLiteral("idleSeconds"), idleSeconds.at(i)},
                {QStringLiteral("ok"), result && result->ok()},
                {QStringLiteral("error"),
                 result && !result->ok() ? QJsonValue(result->error->message) : QJsonValue(QJsonValue::Null)},
            });
        }
        if (result && result->ok())
            ++paused;
        else if (!result || cancelled)
            notStarted.append(idleOnes.at(i).workspaceId);
        else
            ++failed;
    }
    if (json)
        write(stdout, QJsonDocument(rows).toJson(QJsonDocument::Indented));
    if (failed > 0)
        exitCode = Failure;
    if (stopper.signal() != 0 || !notStarted.isEmpty()) {
        err(Tr::tr("interrupted: %1 done, %2 failed, %3 not started").arg(paused).arg(failed).arg(notStarted.size()));
        if (!notStarted.isEmpty())
            err(Tr::tr("not started: %1").arg(notStarted.join(u' ')));
        co_return stopper.signal() != 0 ? 128 + stopper.signal() : Failure;
    }
    co_return exitCode;
}

} // namespace Paddock::Ctl
