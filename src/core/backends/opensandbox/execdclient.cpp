#include "execdclient.h"

#include "../../bulk.h"
#include "../../canceltoken.h"
#include "../../linesplitter.h"
#include "../../tr.h"
#include "execdstream.h"
#include "wire.h"

#include <QCoroNetworkReply>
#include <QCoroTask>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QScopeGuard>
#include <QTimer>
#include <QUuid>

#include <algorithm>
#include <memory>

namespace Paddock::OpenSandbox {

namespace {

QNetworkRequest streamRequest(const ExecdTarget &target)
{
    QUrl url = target.base;
    url.setPath(url.path() + QStringLiteral("/command"));
    QNetworkRequest request(url);
    request.setTransferTimeout(0); // a stream: liveness comes from execd's pings instead
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setRawHeader(QByteArrayLiteral("Accept"), QByteArrayLiteral("text/event-stream"));
    request.setRawHeader(QByteArrayLiteral("Cache-Control"), QByteArrayLiteral("no-cache"));
    for (auto it = target.headers.cbegin(); it != target.headers.cend(); ++it)
        request.setRawHeader(it.key(), it.value());
    return request;
}

HttpRequest pingRequest(const ExecdTarget &target)
{
    HttpRequest request;
    request.url = target.base;
    request.url.setPath(request.url.path() + QStringLiteral("/ping"));
    request.retrySafe = false; // readiness polling retries on its own schedule
    request.retryNotConnected = false;
    request.transferTimeout = std::chrono::seconds(5);
    for (auto it = target.headers.cbegin(); it != target.headers.cend(); ++it)
        request.headers.append({it.key(), it.value()});
    return request;
}

} // namespace

ExecdTarget ExecdTarget::fromEndpoint(const Endpoint &endpoint, const QString &protocol)
{
    return {QUrl(protocol + QStringLiteral("://") + endpoint.endpoint), endpoint.headers};
}

QByteArray commandBody(const ExecdCommand &command)
{
    QJsonObject body{{QStringLiteral("command"), command.command}, {QStringLiteral("background"), command.background}};
    if (!command.cwd.isEmpty())
        body.insert(QStringLiteral("cwd"), command.cwd);
    if (command.timeout.count() > 0)
        body.insert(QStringLiteral("timeout"), qint64(command.timeout.count()));
    if (!command.envs.isEmpty()) {
        QJsonObject envs;
        for (auto it = command.envs.cbegin(); it != command.envs.cend(); ++it)
            envs.insert(it.key(), it.value());
        body.insert(QStringLiteral("envs"), envs);
    }
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

ExecdClient::ExecdClient(QNetworkAccessManager *network, HttpClient *http, ExecdTarget target,
                         std::chrono::milliseconds pingInterval, QObject *parent)
    : QObject(parent)
    , m_network(network)
    , m_http(http)
    , m_target(std::move(target))
    , m_pingInterval(pingInterval)
{
    m_http->setErrorDecoder(decodeHttpError);
}

QCoro::Task<Result<bool>> ExecdClient::ping()
{
    const HttpRequest request = pingRequest(m_target);
    auto response = co_await send(request);
    if (!response)
        co_return fail(response.error());
    co_return response->status == 200;
}

QCoro::Task<Result<QByteArray>> ExecdClient::metrics()
{
    HttpRequest fetch = request(QByteArrayLiteral("GET"), QStringLiteral("/metrics"));
    // Worth it now or not at all: the next round asks again. A paused sandbox's execd answers
    // nothing until it is resumed, and a round waits for its slowest sandbox.
    fetch.retrySafe = false;
    fetch.transferTimeout = std::chrono::seconds(5);
    auto response = co_await send(fetch);
    if (!response)
        co_return fail(response.error());
    QByteArray body = response->body;
    co_return body;
}

QByteArray uploadBody(const QList<UploadFile> &files, const QByteArray &boundary)
{
    QByteArray body;
    for (const UploadFile &file : files) {
        const QJsonObject metadata{{QStringLiteral("path"), file.path}, {QStringLiteral("mode"), file.mode}};
        // As browsers write a file name (HTML's multipart/form-data encoding): a quote, a CR or
        // an LF would end the header or the value early.
        QByteArray name = file.path.section(u'/', -1).toUtf8();
        name.replace('"', "%22").replace('\r', "%0D").replace('\n', "%0A");
        body += "--" + boundary
            + "\r\nContent-Disposition: form-data; name=\"metadata\"; filename=\"metadata\"\r\n"
              "Content-Type: application/json\r\n\r\n"
            + QJsonDocument(metadata).toJson(QJsonDocument::Compact) + "\r\n";
        body += "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + name
            + "\"\r\nContent-Type: application/octet-stream\r\n\r\n" + file.data + "\r\n";
    }
    body += "--" + boundary + "--\r\n";
    return body;
}

FileInfo parseFileInfo(const QJsonObject &json)
{
    FileInfo info;
    info.path = json.value(QLatin1String("path")).toString();
    info.type = json.value(QLatin1String("type")).toString();
    info.size = json.value(QLatin1String("size")).toInteger();
    if (const auto modified = parseTimestamp(json.value(QLatin1String("modified_at")).toString()))
        info.modifiedAt = *modified;
    info.owner = json.value(QLatin1String("owner")).toString();
    info.group = json.value(QLatin1String("group")).toString();
    info.mode = json.value(QLatin1String("mode")).toInt();
    return info;
}

HttpRequest ExecdClient::request(const QByteArray &method, const QString &path, const QByteArray &query) const
{
    HttpRequest request;
    request.method = method;
    request.url = m_target.base;
    request.url.setPath(m_target.base.path() + path);
    if (!query.isEmpty())
        request.url.setQuery(QString::fromLatin1(query), QUrl::StrictMode);
    request.retrySafe = method == "GET";
    request.retryNotConnected = false; // the backend fetches the endpoint again instead
    if (method == "GET")
        request.cancel = m_reads;
    for (auto it = m_target.headers.cbegin(); it != m_target.headers.cend(); ++it)
        request.headers.append({it.key(), it.value()});
    return request;
}

namespace {

QByteArray pathQuery(const QString &path)
{
    return "path=" + QUrl::toPercentEncoding(path);
}

Result<QJsonDocument> jsonBody(const HttpResponse &response)
{
    QJsonParseError error{};
    QJsonDocument document = QJsonDocument::fromJson(response.body, &error);
    if (error.error != QJsonParseError::NoError) {
        return fail(Error::backend(
            Tr::tr("execd's answer is not JSON (HTTP %1, request %2)").arg(response.status).arg(response.requestId)));
    }
    return document;
}

} // namespace

void ExecdClient::cancelReads()
{
    m_reads->cancel();
}

void ExecdClient::noteFailure(const Error &error)
{
    if (error.kind == Error::Kind::Unreachable || error.kind == Error::Kind::Timeout)
        Q_EMIT unreachable();
}

QCoro::Task<Result<HttpResponse>> ExecdClient::send(HttpRequest request)
{
    auto response = co_await m_http->send(std::move(request));
    if (!response)
        noteFailure(response.error());
    co_return response;
}

QCoro::Task<Result<>> ExecdClient::sendForNothing(HttpRequest request)
{
    auto response = co_await send(std::move(request));
    if (!response)
        co_return fail(response.error());
    co_return Result<>{};
}

QCoro::Task<Result<QJsonDocument>> ExecdClient::sendForJson(HttpRequest request)
{
    auto response = co_await send(std::move(request));
    if (!response)
        co_return fail(response.error());
    co_return jsonBody(*response);
}

QCoro::Task<Result<QString>> ExecdClient::start(ExecdCommand command)
{
    command.background = true;
    auto streamed = co_await stream(std::move(command), {});
    if (!streamed)
        co_return fail(streamed.error());
    if (streamed->commandId.isEmpty())
        co_return fail(Error::backend(Tr::tr("execd started a background command but sent no id")));
    if (streamed->result.exitCode != 0) {
        co_return fail(
            Error::backend(Tr::tr("execd could not start the command (exit %1)").arg(streamed->result.exitCode)));
    }
    co_return streamed->commandId;
}

QCoro::Task<Result<CommandStatus>> ExecdClient::status(QString commandId)
{
    const HttpRequest fetch =
        request(QByteArrayLiteral("GET"),
                QStringLiteral("/command/status/") + QString::fromLatin1(QUrl::toPercentEncoding(commandId)));
    const auto json = co_await sendForJson(fetch);
    if (!json)
        co_return fail(json.error());
    const QJsonObject object = json->object();
    CommandStatus status;
    status.id = object.value(QLatin1String("id")).toString();
    status.running = object.value(QLatin1String("running")).toBool();
    if (object.contains(QLatin1String("exit_code")) && !object.value(QLatin1String("exit_code")).isNull())
        status.exitCode = object.value(QLatin1String("exit_code")).toInt();
    status.error = object.value(QLatin1String("error")).toString();
    co_return status;
}

QCoro::Task<Result<LogChunk>> ExecdClient::logs(QString commandId, QByteArray cursor)
{
    HttpRequest fetch =
        request(QByteArrayLiteral("GET"),
                QStringLiteral("/command/%1/logs").arg(QString::fromLatin1(QUrl::toPercentEncoding(commandId))),
                cursor.isEmpty() ? QByteArray() : "cursor=" + QUrl::toPercentEncoding(QString::fromLatin1(cursor)));
    fetch.accept = QByteArrayLiteral("text/plain");
    auto response = co_await send(fetch);
    if (!response)
        co_return fail(response.error());
    LogChunk chunk;
    chunk.data = response->body;
    chunk.cursor = response->headers.value(QByteArrayLiteral("execd-commands-tail-cursor"), cursor);
    co_return chunk;
}

QCoro::Task<Result<>> ExecdClient::interrupt(QString commandId)
{
    const HttpRequest del =
        request(QByteArrayLiteral("DELETE"), QStringLiteral("/command"), "id=" + QUrl::toPercentEncoding(commandId));
    co_return co_await sendForNothing(del);
}

QCoro::Task<Result<>> ExecdClient::upload(QList<UploadFile> files)
{
    const QByteArray boundary = "paddock-" + QUuid::createUuid().toByteArray(QUuid::Id128);
    HttpRequest post = request(QByteArrayLiteral("POST"), QStringLiteral("/files/upload"));
    post.body = uploadBody(files, boundary);
    post.contentType = "multipart/form-data; boundary=" + boundary;
    co_return co_await sendForNothing(post);
}

QCoro::Task<Result<QByteArray>> ExecdClient::download(QString path)
{
    HttpRequest fetch = request(QByteArrayLiteral("GET"), QStringLiteral("/files/download"), pathQuery(path));
    fetch.accept = QByteArrayLiteral("application/octet-stream");
    auto response = co_await send(fetch);
    if (!response)
        co_return fail(response.error());
    co_return response->body;
}

QCoro::Task<Result<QByteArray>> ExecdClient::downloadRange(QString path, qint64 offset, qint64 length)
{
    if (length <= 0)
        co_return QByteArray();
    HttpRequest fetch = request(QByteArrayLiteral("GET"), QStringLiteral("/files/download"), pathQuery(path));
    fetch.accept = QByteArrayLiteral("application/octet-stream");
    fetch.headers.append({QByteArrayLiteral("Range"),
                          "bytes=" + QByteArray::number(offset) + '-' + QByteArray::number(offset + length - 1)});
    auto response = co_await send(fetch);
    if (!response) {
        if (response.error().httpStatus == 416)
            co_return QByteArray(); // the offset is at or past the end
        co_return fail(response.error());
    }
    if (response->status == 206)
        co_return response->body.left(length);
    co_return response->body.mid(offset, length);
}

QCoro::Task<Result<>> ExecdClient::downloadTo(QString path, std::function<bool(QByteArrayView)> sink)
{
    HttpRequest fetch = request(QByteArrayLiteral("GET"), QStringLiteral("/files/download"), pathQuery(path));
    fetch.accept = QByteArrayLiteral("application/octet-stream");
    fetch.transferTimeout = std::chrono::milliseconds(30'000); // idle, not the whole transfer
    auto cancel = std::make_shared<CancelToken>();
    bool sinkFailed = false;
    // Named, never temporaries in a co_await (GCC 12, README.md).
    std::function<void(QByteArrayView)> onData = [&](QByteArrayView data) {
        if (!sinkFailed && !sink(data)) {
            sinkFailed = true;
            cancel->cancel();
        }
    };
    std::function<void()> onOpened;
    auto streamed = co_await m_http->stream(fetch, std::move(onData), cancel, std::move(onOpened));
    if (!streamed) {
        noteFailure(streamed.error());
        co_return fail(streamed.error());
    }
    if (sinkFailed)
        co_return fail(Error{Error::Kind::Cancelled, Tr::tr("the download was stopped")});
    co_return {};
}

QCoro::Task<Result<QMap<QString, FileInfo>>> ExecdClient::fileInfo(QStringList paths)
{
    QByteArrayList query;
    for (const QString &path : std::as_const(paths))
        query.append(pathQuery(path));
    const HttpRequest fetch = request(QByteArrayLiteral("GET"), QStringLiteral("/files/info"), query.join('&'));
    const auto json = co_await sendForJson(fetch);
    if (!json)
        co_return fail(json.error());
    QMap<QString, FileInfo> infos;
    const QJsonObject object = json->object();
    for (auto it = object.begin(); it != object.end(); ++it)
        infos.insert(it.key(), parseFileInfo(it.value().toObject()));
    co_return infos;
}

QCoro::Task<Result<QList<FileInfo>>> ExecdClient::listDirectory(QString path, int depth)
{
    const HttpRequest fetch = request(QByteArrayLiteral("GET"), QStringLiteral("/directories/list"),
                                      pathQuery(path) + "&depth=" + QByteArray::number(depth));
    const auto json = co_await sendForJson(fetch);
    if (!json)
        co_return fail(json.error());
    QList<FileInfo> entries;
    const QJsonArray array = json->array();
    for (const QJsonValue &value : array)
        entries.append(parseFileInfo(value.toObject()));
    co_return entries;
}

QCoro::Task<Result<>> ExecdClient::makeDirectories(QStringList paths, int mode)
{
    QJsonObject body;
    for (const QString &path : std::as_const(paths))
        body.insert(path, QJsonObject{{QStringLiteral("mode"), mode}});
    HttpRequest post = request(QByteArrayLiteral("POST"), QStringLiteral("/directories"));
    post.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    co_return co_await sendForNothing(post);
}

QCoro::Task<Result<>> ExecdClient::removeDirectory(QString path)
{
    const HttpRequest del = request(QByteArrayLiteral("DELETE"), QStringLiteral("/directories"), pathQuery(path));
    co_return co_await sendForNothing(del);
}

QCoro::Task<Result<>> ExecdClient::removeFile(QString path)
{
    const HttpRequest del = request(QByteArrayLiteral("DELETE"), QStringLiteral("/files"), pathQuery(path));
    co_return co_await sendForNothing(del);
}

QCoro::Task<Result<ExecResult>> ExecdClient::run(ExecdCommand command,
                                                 std::function<void(OutputChannel, const QByteArray &)> onLine,
                                                 std::function<void(OutputChannel, const QByteArray &)> onData,
                                                 std::shared_ptr<CancelToken> cancel)
{
    command.background = false;
    auto streamed = co_await stream(std::move(command), std::move(onLine), std::move(onData), std::move(cancel));
    if (!streamed)
        co_return fail(streamed.error());
    ExecResult result = streamed->result;
    co_return result;
}

QCoro::Task<Result<>> ExecdClient::interruptAndLetGo(QString commandId, QPointer<QNetworkReply> reply)
{
    auto interrupted = co_await interrupt(commandId);
    if (interrupted && reply) {
        // Queued: the stream's coroutine resumes from the event loop, not inside this one.
        QMetaObject::invokeMethod(reply.data(), &QNetworkReply::abort, Qt::QueuedConnection);
    }
    co_return interrupted;
}

QCoro::Task<Result<ExecdClient::Streamed>>
ExecdClient::stream(ExecdCommand command, std::function<void(OutputChannel, const QByteArray &)> onLine,
                    std::function<void(OutputChannel, const QByteArray &)> onData, std::shared_ptr<CancelToken> cancel)
{
    // A stream is sent outside HttpClient::send(): after abortAll() nothing would end it.
    if (m_http->isClosing())
        co_return fail(HttpClient::closedError());
    if (cancel && cancel->isCancelled())
        co_return fail(Error{Error::Kind::Cancelled, Tr::tr("cancelled: the command was not started")});
    const QNetworkRequest request = streamRequest(m_target);
    const QByteArray body = commandBody(command);
    // Sent once: a command must not run twice because a connection dropped.
    std::unique_ptr<QNetworkReply, ReplyDeleter> reply(sendOnce(m_network, request, QByteArrayLiteral("POST"), body));

    Streamed streamed;
    ExecResult &result = streamed.result;
    QList<ExecdEvent> events;
    ExecdStreamParser parser;
    LineSplitter out(OutputChannel::Stdout, onLine, result.stdOut, onData);
    LineSplitter err(OutputChannel::Stderr, onLine, result.stdErr, onData);
    // A cancel interrupts the command once its id is known (the stream's first event).
    bool cancelled = false;
    std::optional<QCoro::Task<Result<>>> interrupting;
    const auto interruptNow = [&] {
        if (cancelled && !interrupting && !streamed.commandId.isEmpty())
            interrupting.emplace(interruptAndLetGo(streamed.commandId, QPointer<QNetworkReply>(reply.get())));
    };
    const auto take = [&](const QList<ExecdEvent> &arrived) {
        for (const ExecdEvent &event : arrived) {
            if (event.type == ExecdEvent::Type::Stdout)
                out.feed(event.text.toUtf8());
            else if (event.type == ExecdEvent::Type::Stderr)
                err.feed(event.text.toUtf8());
            else if (event.type == ExecdEvent::Type::Init && streamed.commandId.isEmpty()) {
                streamed.commandId = event.text;
                interruptNow();
            }
            events.append(event);
        }
    };
    int cancelId = 0;
    if (cancel) {
        cancelId = cancel->onCancel([&cancelled, &interruptNow] {
            cancelled = true;
            interruptNow();
        });
    }
    const auto forgetCancel = qScopeGuard([&cancel, cancelId] {
        if (cancel && cancelId != 0)
            cancel->remove(cancelId);
    });

    // Three missed pings: the stream is dead, whatever TCP thinks.
    bool dead = false;
    QTimer watchdog;
    watchdog.setSingleShot(true);
    watchdog.setInterval(3 * m_pingInterval);
    QObject::connect(&watchdog, &QTimer::timeout, reply.get(), [&dead, &reply] {
        dead = true;
        reply->abort();
    });
    QObject::connect(reply.get(), &QNetworkReply::readyRead, reply.get(), [&] {
        watchdog.start();
        if (reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 200)
            take(parser.feed(reply->readAll()));
    });
    watchdog.start();

    m_http->track(reply.get());
    co_await reply.get();
    m_http->untrack(reply.get());
    watchdog.stop();
    // The interrupt under way is awaited whatever happens next: it uses this client.
    Result<> interrupted{};
    if (interrupting)
        interrupted = co_await *interrupting;
    if (m_http->isClosing())
        co_return fail(HttpClient::closedError());
    if (cancelled) {
        // Interrupted (or ended on its own meanwhile): what it printed went to onLine.
        out.finish();
        err.finish();
        if (!interrupted) {
            co_return fail(
                Error::backend(Tr::tr("execd at %1 could not stop the command: %2")
                                   .arg(m_target.base.toString(QUrl::RemoveUserInfo), interrupted.error().message)));
        }
        co_return fail(Error{Error::Kind::Cancelled, Tr::tr("cancelled: the command was stopped")});
    }

    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (dead) {
        const Error silent = Error::timeout(Tr::tr("the command stream from %1 went silent (no ping for %2 s)")
                                                .arg(m_target.base.toString(QUrl::RemoveUserInfo))
                                                .arg(std::chrono::duration<double>(3 * m_pingInterval).count()));
        noteFailure(silent);
        co_return fail(silent);
    }
    if (status != 200) {
        if (status == 0) {
            // Qt says "Unknown error" of a connection that ended without an answer and without
            // an error of its own (a server killed while it read the request).
            const QString reason =
                reply->error() == QNetworkReply::NoError || reply->error() == QNetworkReply::UnknownNetworkError
                ? Tr::tr("the connection ended without an answer")
                : reply->errorString();
            Error unreached = Error::unreachable(
                Tr::tr("cannot reach execd at %1: %2").arg(m_target.base.toString(QUrl::RemoveUserInfo), reason));
            // Refused: the command was never sent, so it did not run.
            unreached.notConnected = reply->error() == QNetworkReply::ConnectionRefusedError
                || reply->error() == QNetworkReply::HostNotFoundError;
            noteFailure(unreached);
            co_return fail(unreached);
        }
        const ApiError api = parseApiError(status, reply->readAll(),
                                           QString::fromLatin1(reply->rawHeader(QByteArrayLiteral("X-Request-ID"))));
        co_return fail(Error{status == 404 ? Error::Kind::NotFound : Error::Kind::Backend, api.describe(), status});
    }
    take(parser.feed(reply->readAll()));
    take(parser.finish());
    out.finish();
    err.finish();
    const bool ended = std::any_of(events.cbegin(), events.cend(), [](const ExecdEvent &event) {
        return event.type == ExecdEvent::Type::ExecutionComplete || event.type == ExecdEvent::Type::Error;
    });
    if (!ended) {
        // The stream broke off (the server went away, a proxy cut it): the command's fate is
        // unknown, which is not the same as a failed command.
        const QString reason = reply->error() != QNetworkReply::NoError
            ? reply->errorString()
            : Tr::tr("it ended without the command's result");
        const Error broke =
            Error::unreachable(Tr::tr("the command stream from %1 broke off: %2")
                                   .arg(m_target.base.toString(QUrl::RemoveUserInfo | QUrl::RemovePath), reason));
        noteFailure(broke);
        co_return fail(broke);
    }
    result.exitCode = execdExitCode(events);
    co_return streamed;
}

} // namespace Paddock::OpenSandbox
