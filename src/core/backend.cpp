#include "backend.h"

#include "http/httpclient.h"
#include "tr.h"

#include <QCoroTask>
#include <QDir>
#include <QFileInfo>

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
