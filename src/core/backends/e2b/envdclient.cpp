#include "envdclient.h"

#include "../../canceltoken.h"
#include "../../linesplitter.h"
#include "../../tr.h"
#include "connectenvelope.h"

#include <QCoroTask>

#include <QJsonArray>
#include <QJsonDocument>
#include <QScopeGuard>
#include <QTimer>

#include <optional>

namespace Paddock::E2B {

namespace {

QJsonObject parseObject(const QByteArray &json, bool *ok = nullptr)
{
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (ok)
        *ok = error.error == QJsonParseError::NoError && document.isObject();
    return document.object();
}

QByteArray startMessage(const ProcessRun &process)
{
    QJsonObject spec{{QStringLiteral("cmd"), QStringLiteral("/bin/bash")},
                     {QStringLiteral("args"), QJsonArray{QStringLiteral("-l"), QStringLiteral("-c"), process.command}},
                     {QStringLiteral("envs"), QJsonObject()}};
    if (!process.cwd.isEmpty())
        spec.insert(QStringLiteral("cwd"), process.cwd);
    const QJsonObject message{{QStringLiteral("process"), spec}, {QStringLiteral("stdin"), false}};
    return QJsonDocument(message).toJson(QJsonDocument::Compact);
}

// A Connect error object {code, message} in words.
QString describeRpcError(const QJsonObject &error)
{
    const QString code = error.value(QLatin1String("code")).toString();
    const QString message = error.value(QLatin1String("message")).toString();
    return code.isEmpty() ? message : QStringLiteral("[%1] %2").arg(code, message);
}

Error::Kind kindForRpcCode(const QString &code)
{
    if (code == QLatin1String("not_found"))
        return Error::Kind::NotFound;
    if (code == QLatin1String("already_exists") || code == QLatin1String("aborted"))
        return Error::Kind::Conflict;
    if (code == QLatin1String("deadline_exceeded"))
        return Error::Kind::Timeout;
    if (code == QLatin1String("canceled"))
        return Error::Kind::Cancelled;
    return Error::Kind::Backend;
}

} // namespace

int exitCodeOf(const QJsonObject &end)
{
    // exitCode is left out when 0 (proto3 JSON); killed by a signal: -1.
    const QJsonValue code = end.value(QLatin1String("exitCode"));
    if (code.isDouble())
        return code.toInt();
    if (code.isString())
        return code.toString().toInt();
    return 0;
}

EnvdClient::EnvdClient(HttpClient *http, EnvdTarget target, std::chrono::milliseconds requestTimeout)
    : m_http(http)
    , m_target(std::move(target))
    , m_requestTimeout(requestTimeout)
{
}

HttpRequest EnvdClient::request(const QByteArray &method, const QString &path, const QByteArray &query) const
{
    HttpRequest request;
    request.method = method;
    request.url = m_target.base;
    request.url.setPath(m_target.base.path() + path);
    if (!query.isEmpty())
        request.url.setQuery(QString::fromLatin1(query), QUrl::StrictMode);
    request.transferTimeout = m_requestTimeout;
    request.headers.append({QByteArrayLiteral("E2b-Sandbox-Id"), m_target.sandboxId.toUtf8()});
    request.headers.append({QByteArrayLiteral("E2b-Sandbox-Port"), QByteArray::number(EnvdPort)});
    if (!m_target.accessToken.isEmpty())
        request.headers.append({QByteArrayLiteral("X-Access-Token"), m_target.accessToken});
    return request;
}

QCoro::Task<Result<bool>> EnvdClient::health()
{
    HttpRequest ping = request(QByteArrayLiteral("GET"), QStringLiteral("/health"));
    ping.accept = "*/*";
    ping.retrySafe = false; // readiness polling retries on its own schedule
    ping.transferTimeout = std::chrono::seconds(5);
    auto response = co_await m_http->send(ping);
    if (!response) {
        if (response.error().httpStatus == 502)
            co_return false; // the proxy: not running (yet)
        co_return fail(response.error());
    }
    co_return true;
}

QCoro::Task<Result<QJsonObject>> EnvdClient::call(QString method, QJsonObject message, bool retrySafe)
{
    HttpRequest rpc = request(QByteArrayLiteral("POST"), u'/' + method);
    rpc.body = QJsonDocument(message).toJson(QJsonDocument::Compact);
    rpc.retrySafe = retrySafe;
    rpc.headers.append({QByteArrayLiteral("Connect-Protocol-Version"), QByteArrayLiteral("1")});
    auto response = co_await m_http->send(rpc);
    if (!response)
        co_return fail(response.error());
    bool ok = false;
    QJsonObject answer = parseObject(response->body.isEmpty() ? QByteArrayLiteral("{}") : response->body, &ok);
    if (!ok)
        co_return fail(Error::backend(Tr::tr("envd's answer to %1 is not a JSON object").arg(method)));
    co_return answer;
}

QCoro::Task<Result<>> EnvdClient::signal(HttpClient *http, HttpRequest request)
{
    auto response = co_await http->send(std::move(request));
    if (!response) {
        // The process ended meanwhile: nothing left to stop.
        if (response.error().kind == Error::Kind::NotFound)
            co_return Result<>{};
        co_return fail(response.error());
    }
    co_return Result<>{};
}

QCoro::Task<Result<>> EnvdClient::kill(qint64 pid)
{
    HttpRequest rpc = request(QByteArrayLiteral("POST"), QStringLiteral("/process.Process/SendSignal"));
    const QJsonObject message{{QStringLiteral("process"), QJsonObject{{QStringLiteral("pid"), pid}}},
                              {QStringLiteral("signal"), QStringLiteral("SIGNAL_SIGKILL")}};
    rpc.body = QJsonDocument(message).toJson(QJsonDocument::Compact);
    rpc.headers.append({QByteArrayLiteral("Connect-Protocol-Version"), QByteArrayLiteral("1")});
    rpc.retrySafe = true; // a second SIGKILL changes nothing
    co_return co_await signal(m_http, rpc);
}

QCoro::Task<Result<ExecResult>> EnvdClient::run(ProcessRun process,
                                                std::function<void(OutputChannel, const QByteArray &)> onLine,
                                                std::function<void(OutputChannel, const QByteArray &)> onData,
                                                std::shared_ptr<CancelToken> cancel)
{
    if (cancel && cancel->isCancelled())
        co_return fail(Error{Error::Kind::Cancelled, Tr::tr("cancelled: the command was not started")});
    HttpRequest start = request(QByteArrayLiteral("POST"), QStringLiteral("/process.Process/Start"));
    start.contentType = "application/connect+json";
    start.accept = "application/connect+json";
    start.body = envelope(startMessage(process));
    start.transferTimeout = std::chrono::milliseconds(0); // a stream: keepalives say it lives
    start.headers.append({QByteArrayLiteral("Connect-Protocol-Version"), QByteArrayLiteral("1")});
    start.headers.append({QByteArrayLiteral("Keepalive-Ping-Interval"), QByteArray::number(process.keepalive.count())});
    if (process.timeout.count() > 0)
        start.headers.append({QByteArrayLiteral("Connect-Timeout-Ms"), QByteArray::number(process.timeout.count())});

    ExecResult result;
    LineSplitter out(OutputChannel::Stdout, onLine, result.stdOut, onData);
    LineSplitter err(OutputChannel::Stderr, onLine, result.stdErr, onData);
    EnvelopeParser parser;
    qint64 pid = -1;
    std::optional<QJsonObject> end;
    std::optional<QJsonObject> streamError;
    QString broken; // the protocol was broken: why
    bool cancelled = false;
    bool dead = false;
    auto stop = std::make_shared<CancelToken>(); // ends the stream (HttpClient::stream's cancel)
    std::optional<QCoro::Task<Result<>>> killing;

    const auto killNow = [&] {
        if (cancelled && pid >= 0 && !killing)
            killing.emplace(kill(pid));
    };
    const auto breakOff = [&](const QString &why) {
        if (broken.isEmpty())
            broken = why;
        stop->cancel();
    };

    // Three keepalive intervals without a byte: the stream is dead, whatever TCP thinks.
    QTimer watchdog;
    watchdog.setSingleShot(true);
    watchdog.setInterval(std::chrono::milliseconds(3 * process.keepalive));
    QObject::connect(&watchdog, &QTimer::timeout, &watchdog, [&] {
        dead = true;
        stop->cancel();
    });
    watchdog.start();

    std::function<void(QByteArrayView)> onBytes = [&](QByteArrayView bytes) {
        watchdog.start();
        QList<Envelope> envelopes;
        if (!parser.feed(bytes, envelopes)) {
            breakOff(Tr::tr("envd's stream is not made of Connect envelopes"));
            return;
        }
        for (const Envelope &message : std::as_const(envelopes)) {
            bool ok = false;
            const QJsonObject json = parseObject(message.payload, &ok);
            if (!ok) {
                breakOff(Tr::tr("a message of envd's stream is not a JSON object"));
                return;
            }
            if (message.isEnd()) {
                if (json.contains(QLatin1String("error")))
                    streamError = json.value(QLatin1String("error")).toObject();
                continue;
            }
            const QJsonObject event = json.value(QLatin1String("event")).toObject();
            if (pid < 0) {
                // The first event must be `start` (the SDK's "Expected start event").
                if (!event.contains(QLatin1String("start"))) {
                    breakOff(Tr::tr("envd's stream did not begin with the process's start"));
                    return;
                }
                pid = event.value(QLatin1String("start")).toObject().value(QLatin1String("pid")).toInteger(0);
                killNow();
                continue;
            }
            if (cancelled)
                continue; // nothing reaches the caller after a cancel
            if (const QJsonValue data = event.value(QLatin1String("data")); data.isObject()) {
                const QJsonObject chunk = data.toObject();
                if (const QJsonValue text = chunk.value(QLatin1String("stdout")); text.isString())
                    out.feed(QByteArray::fromBase64(text.toString().toLatin1()));
                if (const QJsonValue text = chunk.value(QLatin1String("stderr")); text.isString())
                    err.feed(QByteArray::fromBase64(text.toString().toLatin1()));
            } else if (event.contains(QLatin1String("end"))) {
                end = event.value(QLatin1String("end")).toObject();
            }
            // keepalive: only proof of life, which the watchdog already took.
        }
    };

    int cancelId = 0;
    if (cancel) {
        cancelId = cancel->onCancel([&] {
            cancelled = true;
            killNow();
        });
    }
    const auto forgetCancel = qScopeGuard([&cancel, cancelId] {
        if (cancel && cancelId != 0)
            cancel->remove(cancelId);
    });

    std::function<void()> onOpened;
    auto streamed = co_await m_http->stream(start, std::move(onBytes), stop, std::move(onOpened));
    watchdog.stop();
    // The kill under way is awaited whatever happens next: it uses the HTTP client.
    Result<> killed{};
    if (killing)
        killed = co_await *killing;
    if (m_http->isClosing())
        co_return fail(HttpClient::closedError());
    const QString where = m_target.sandboxId;
    if (cancelled) {
        if (pid < 0 && !streamed && streamed.error().kind != Error::Kind::Cancelled)
            co_return fail(streamed.error()); // it never started
        if (!killed) {
            co_return fail(Error::backend(
                Tr::tr("envd of sandbox %1 could not stop the command: %2").arg(where, killed.error().message)));
        }
        co_return fail(Error{Error::Kind::Cancelled, Tr::tr("cancelled: the command was stopped")});
    }
    if (!broken.isEmpty()) {
        co_return fail(Error::backend(
            Tr::tr("envd of sandbox %1 broke the protocol: %2; the command's outcome is unknown").arg(where, broken)));
    }
    const auto fateUnknown = [&](const QString &why) {
        return Error::unreachable(Tr::tr("the command stream of sandbox %1 broke off (%2): the command's fate is "
                                         "unknown; it may still be running in the sandbox")
                                      .arg(where, why));
    };
    if (dead) {
        co_return fail(fateUnknown(Tr::tr("no keepalive from envd for %1 s")
                                       .arg(std::chrono::duration<double>(3 * process.keepalive).count())));
    }
    if (!streamed) {
        const Error &error = streamed.error();
        // An answer other than 200, or no connection at all: nothing ran.
        if (error.httpStatus != 0 || pid < 0)
            co_return fail(error);
        co_return fail(fateUnknown(error.message));
    }
    if (streamError) {
        const QString code = streamError->value(QLatin1String("code")).toString();
        if (code == QLatin1String("deadline_exceeded") && process.timeout.count() > 0) {
            out.finish();
            err.finish();
            result.timedOut = true;
            result.exitCode = end ? exitCodeOf(*end) : -1;
            if (result.exitCode == 0)
                result.exitCode = -1;
            co_return result;
        }
        if (pid < 0) {
            Error refused{
                kindForRpcCode(code),
                Tr::tr("envd of sandbox %1 did not start the command: %2").arg(where, describeRpcError(*streamError))};
            co_return fail(std::move(refused));
        }
        if (!end) {
            co_return fail(fateUnknown(describeRpcError(*streamError)));
        }
    }
    if (!end) {
        co_return fail(fateUnknown(parser.pending() > 0 ? Tr::tr("it ended inside a message")
                                                        : Tr::tr("it ended without the command's end")));
    }
    out.finish();
    err.finish();
    result.exitCode = exitCodeOf(*end);
    co_return result;
}

QCoro::Task<Result<QJsonObject>> EnvdClient::stat(QString path)
{
    const QJsonObject message{{QStringLiteral("path"), path}};
    auto answer = co_await call(QStringLiteral("filesystem.Filesystem/Stat"), message, true);
    if (!answer)
        co_return fail(answer.error());
    QJsonObject entry = answer->value(QLatin1String("entry")).toObject();
    co_return entry;
}

QCoro::Task<Result<QList<QJsonObject>>> EnvdClient::listDir(QString path, int depth)
{
    const QJsonObject message{{QStringLiteral("path"), path}, {QStringLiteral("depth"), depth}};
    auto answer = co_await call(QStringLiteral("filesystem.Filesystem/ListDir"), message, true);
    if (!answer)
        co_return fail(answer.error());
    QList<QJsonObject> entries;
    const QJsonArray array = answer->value(QLatin1String("entries")).toArray();
    for (const QJsonValue &value : array)
        entries.append(value.toObject());
    co_return entries;
}

QCoro::Task<Result<>> EnvdClient::download(QString path, std::function<bool(QByteArrayView)> sink)
{
    HttpRequest fetch =
        request(QByteArrayLiteral("GET"), QStringLiteral("/files"), "path=" + QUrl::toPercentEncoding(path));
    fetch.accept = "application/octet-stream";
    auto stop = std::make_shared<CancelToken>();
    bool stopped = false;
    std::function<void(QByteArrayView)> onData = [&](QByteArrayView data) {
        if (!stopped && !sink(data)) {
            stopped = true;
            stop->cancel();
        }
    };
    std::function<void()> onOpened;
    auto streamed = co_await m_http->stream(fetch, std::move(onData), stop, std::move(onOpened));
    if (stopped)
        co_return fail(Error{Error::Kind::Cancelled, Tr::tr("the download was stopped")});
    if (!streamed)
        co_return fail(streamed.error());
    co_return Result<>{};
}

QCoro::Task<Result<>> EnvdClient::upload(QString path, QByteArray data)
{
    HttpRequest post =
        request(QByteArrayLiteral("POST"), QStringLiteral("/files"), "path=" + QUrl::toPercentEncoding(path));
    post.body = std::move(data);
    post.contentType = "application/octet-stream";
    // Also for an empty file, whose request has no body for HttpRequest to type.
    post.headers.append({QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/octet-stream")});
    post.retrySafe = false;
    post.transferTimeout = std::chrono::milliseconds(std::max<qint64>(m_requestTimeout.count(), 60'000));
    auto response = co_await m_http->send(post);
    if (!response)
        co_return fail(response.error());
    co_return Result<>{};
}

} // namespace Paddock::E2B
