#include "backend.h"

#include "backoff.h"
#include "http/httpclient.h"
#include "logging.h"
#include "tr.h"

#include <QCoroTask>
#include <QCoroTimer>
#include <QDir>
#include <QFileInfo>
#include <QPointer>

namespace Paddock {

QString Backend::hostFolder(const SandboxInfo &) const
{
    return {};
}

QCoro::Task<Result<std::optional<QDateTime>>> Backend::sessionsActivity(QString)
{
    co_return std::optional<QDateTime>();
}

QCoro::Task<Result<QByteArray>> Backend::containerLogs(QString, int)
{
    const QString message = Tr::tr("the %1 backend has no container logs").arg(name());
    co_return fail(Error::unsupported(message));
}

QCoro::Task<Result<QList<SandboxMetrics>>> Backend::metrics(QStringList)
{
    co_return fail(metricsNotReported());
}

Error Backend::metricsNotReported(int httpStatus)
{
    Error error = Error::unsupported(Tr::tr("CPU and memory are not reported by this server"));
    error.httpStatus = httpStatus;
    return error;
}

bool Backend::lacksRoute(int httpStatus)
{
    return httpStatus == 404 || httpStatus == 405 || httpStatus == 501;
}

QCoro::Task<Result<>> Backend::followContainerLog(QString, int, std::function<void(QByteArrayView)>,
                                                  std::shared_ptr<CancelToken>)
{
    const QString message = Tr::tr("the %1 backend cannot follow container logs").arg(name());
    co_return fail(Error::unsupported(message));
}

namespace {

Error noFiles(const QString &backend)
{
    return Error::unsupported(Tr::tr("the %1 backend cannot read a workspace's files").arg(backend));
}

} // namespace

QCoro::Task<Result<QList<FileEntry>>> Backend::listFolder(QString, QString)
{
    co_return fail(noFiles(name()));
}

QCoro::Task<Result<FileEntry>> Backend::stat(QString, QString)
{
    co_return fail(noFiles(name()));
}

QCoro::Task<Result<FileChunk>> Backend::readFile(QString, QString, qint64, qint64)
{
    co_return fail(noFiles(name()));
}

QCoro::Task<Result<>> Backend::download(QString, QString, QString)
{
    co_return fail(noFiles(name()));
}

QCoro::Task<Result<>> Backend::upload(QString, QString, QString)
{
    co_return fail(noFiles(name()));
}

QCoro::Task<Result<bool>> Backend::requestPause(QString sandboxId)
{
    auto paused = co_await pause(std::move(sandboxId));
    if (!paused)
        co_return fail(paused.error());
    co_return true;
}

QCoro::Task<QList<Result<>>> Backend::settlePauses(QStringList sandboxIds, PauseSettled settled)
{
    // Nothing was left pending by the default request.
    if (settled) {
        for (qsizetype i = 0; i < sandboxIds.size(); ++i)
            settled(i, Result<>{});
    }
    co_return QList<Result<>>(sandboxIds.size());
}

QList<Result<>> Backend::settledResults(const QList<std::optional<Result<>>> &results, const PauseSettled &settled)
{
    QList<Result<>> out;
    out.reserve(results.size());
    for (qsizetype i = 0; i < results.size(); ++i) {
        if (!results.at(i)) {
            const Result<> closed = fail(Http::HttpClient::closedError());
            if (settled)
                settled(i, closed);
            out.append(closed);
        } else {
            out.append(*results.at(i));
        }
    }
    return out;
}

bool Backend::outcomeUnknown(const Error &error)
{
    if (error.kind == Error::Kind::Unreachable)
        return true;
    return error.httpStatus == 429 || error.httpStatus == 502 || error.httpStatus == 503 || error.httpStatus == 504;
}

QCoro::Task<Result<SandboxInfo>> Backend::createExactlyOnce(QString workspaceId, CreateAttempt attempt,
                                                            CreatedLookup lookup)
{
    const QPointer<Backend> alive(this);
    Backoff backoff(std::chrono::milliseconds(250), 2.0, std::chrono::milliseconds(4000));
    for (int tried = 1;; ++tried) {
        auto created = co_await attempt();
        if (created || !outcomeUnknown(created.error()))
            co_return created;
        const Error error = created.error();
        // The answer was lost or refused on the way: the sandbox may exist. Look before
        // creating again.
        qCInfo(lcProvision).noquote() << "create for workspace" << workspaceId << "attempt" << tried
                                      << "left its outcome unknown; looking the workspace up by its metadata:"
                                      << error.message;
        auto found = co_await lookup();
        if (!found) {
            co_return fail(Error{error.kind,
                                 Tr::tr("creating a sandbox for workspace %1: %2; and looking it up by its metadata, "
                                        "to learn whether it was made, failed too: %3 (the next open of the "
                                        "workspace looks again, and uses it if it was made)")
                                     .arg(workspaceId, error.message, found.error().message),
                                 error.httpStatus});
        }
        if (*found) {
            qCInfo(lcProvision).noquote()
                << "the create for workspace" << workspaceId << "had gone through:" << (*found)->sandboxId;
            SandboxInfo made = **found;
            co_return made;
        }
        if (tried == CreateAttempts) {
            co_return fail(Error{error.kind,
                                 Tr::tr("creating a sandbox for workspace %1 failed %n time(s), and no sandbox was "
                                        "made (looked up by its metadata after each): %2",
                                        nullptr, tried)
                                     .arg(workspaceId, error.message),
                                 error.httpStatus});
        }
        co_await QCoro::sleepFor(backoff.next());
        if (!alive)
            co_return fail(Http::HttpClient::closedError());
    }
}

QCoro::Task<Result<SandboxDetails>> Backend::details(QString sandboxId)
{
    auto sandbox = co_await get(std::move(sandboxId));
    if (!sandbox)
        co_return fail(sandbox.error());
    SandboxDetails details;
    details.sandbox = std::move(*sandbox);
    co_return details;
}

std::optional<TerminalCommand> Backend::terminalCommand(const SandboxInfo &) const
{
    return std::nullopt;
}

QString Backend::killWarning(const SandboxInfo &) const
{
    return {};
}

void Backend::setWatching(bool) { }

std::optional<QDateTime> newestSessionsChange(const QString &sessionsFolder)
{
    const QFileInfo folder(sessionsFolder);
    if (!folder.isDir())
        return std::nullopt;
    // The folder itself changes when a session file comes or goes; the files change as the
    // agents write them. Two levels cover sessions/<id>.json and sessions/<id>/...; a cap
    // keeps a pathological folder cheap.
    QDateTime newest = folder.lastModified().toUTC();
    constexpr int Cap = 10'000;
    int seen = 0;
    const auto visit = [&newest, &seen](const QString &dir, int depth, const auto &self) -> void {
        const QFileInfoList entries =
            QDir(dir).entryInfoList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::NoSymLinks | QDir::Hidden);
        for (const QFileInfo &entry : entries) {
            if (++seen > Cap)
                return;
            newest = std::max(newest, entry.lastModified().toUTC());
            if (depth > 1 && entry.isDir())
                self(entry.filePath(), depth - 1, self);
        }
    };
    visit(sessionsFolder, 2, visit);
    return newest;
}

} // namespace Paddock
