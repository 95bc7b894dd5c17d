#include "execdclient.h"

#include "../../linesplitter.h"
#include "../../tr.h"
#include "execdstream.h"
#include "wire.h"

#include <QCoroNetworkReply>
#include <QCoroTask>

#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTimer>

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
    QJsonObject body{{QStringLiteral("command"), command.command}, {QStringLiteral("background"), false}};
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
}

QCoro::Task<Result<bool>> ExecdClient::ping()
{
    const HttpRequest request = pingRequest(m_target);
    auto response = co_await m_http->send(request);
    if (!response)
        co_return fail(response.error());
    co_return response->status == 200;
}

QCoro::Task<Result<ExecResult>> ExecdClient::run(ExecdCommand command,
                                                 std::function<void(OutputChannel, const QByteArray &)> onLine)
{
    const QNetworkRequest request = streamRequest(m_target);
    const QByteArray body = commandBody(command);
    std::unique_ptr<QNetworkReply, ReplyDeleter> reply(m_network->post(request, body));

    ExecResult result;
    QList<ExecdEvent> events;
    ExecdStreamParser parser;
    LineSplitter out(OutputChannel::Stdout, onLine, result.stdOut);
    LineSplitter err(OutputChannel::Stderr, onLine, result.stdErr);
    const auto take = [&](const QList<ExecdEvent> &arrived) {
        for (const ExecdEvent &event : arrived) {
            if (event.type == ExecdEvent::Type::Stdout)
                out.feed(event.text.toUtf8());
            else if (event.type == ExecdEvent::Type::Stderr)
                err.feed(event.text.toUtf8());
            events.append(event);
        }
    };

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

    co_await reply.get();
    watchdog.stop();

    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (dead) {
        co_return fail(Error::timeout(Tr::tr("the command stream from %1 went silent (no ping for %2 s)")
                                          .arg(m_target.base.toString(QUrl::RemoveUserInfo))
                                          .arg(std::chrono::duration<double>(3 * m_pingInterval).count())));
    }
    if (status != 200) {
        if (status == 0)
            co_return fail(
                Error::backend(Tr::tr("cannot reach execd at %1: %2")
                                   .arg(m_target.base.toString(QUrl::RemoveUserInfo), reply->errorString())));
        const ApiError api = parseApiError(status, reply->readAll(),
                                           QString::fromLatin1(reply->rawHeader(QByteArrayLiteral("X-Request-ID"))));
        co_return fail(Error{status == 404 ? Error::Kind::NotFound : Error::Kind::Backend, api.describe()});
    }
    take(parser.feed(reply->readAll()));
    take(parser.finish());
    out.finish();
    err.finish();
    result.exitCode = execdExitCode(events);
    co_return result;
}

} // namespace Paddock::OpenSandbox
