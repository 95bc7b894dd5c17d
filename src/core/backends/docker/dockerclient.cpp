#include "dockerclient.h"

#include "../../tr.h"

#include <QCoroTask>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>

namespace Paddock::Docker {

namespace {

QByteArray encoded(const QString &text)
{
    return QUrl::toPercentEncoding(text);
}

QByteArray json(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

} // namespace

DockerClient::DockerClient(CurlHttpClient *http, QObject *parent)
    : QObject(parent)
    , m_http(http)
{
}

const EngineAddress &DockerClient::address() const
{
    return m_http->address();
}

QByteArray DockerClient::target(const QString &path, const QByteArray &query) const
{
    QByteArray result = '/' + QByteArray(ApiVersion.data(), ApiVersion.size()) + path.toUtf8();
    if (!query.isEmpty())
        result += '?' + query;
    return result;
}

Error DockerClient::errorFor(const HttpResponse &response, const QByteArray &what) const
{
    QString message = QJsonDocument::fromJson(response.body).object().value(QLatin1String("message")).toString();
    if (message.isEmpty())
        message = QString::fromUtf8(response.body.left(300)).trimmed();
    Error error;
    error.kind = response.status == 404 ? Error::Kind::NotFound
        : response.status == 409        ? Error::Kind::Conflict
                                        : Error::Kind::Backend;
    error.httpStatus = response.status;
    error.message = Tr::tr("Docker engine at %1: %2 failed: %3 (HTTP %4)")
                        .arg(address().display(), QString::fromUtf8(what), message)
                        .arg(response.status);
    return error;
}

QCoro::Task<Result<HttpResponse>> DockerClient::call(HttpRequest request)
{
    auto response = co_await m_http->send(std::move(request));
    co_return response;
}

QCoro::Task<Result<>> DockerClient::ping()
{
    HttpRequest request;
    request.target = QByteArrayLiteral("/_ping");
    request.timeout = std::chrono::seconds(10);
    const auto response = co_await call(std::move(request));
    if (!response)
        co_return fail(response.error());
    if (response->status != 200)
        co_return fail(errorFor(*response, "ping"));
    co_return Result<>{};
}

QCoro::Task<Result<QList<ContainerInfo>>> DockerClient::list(QMap<QString, QString> labels)
{
    QJsonArray wanted;
    for (auto it = labels.cbegin(); it != labels.cend(); ++it)
        wanted.append(it.value().isEmpty() ? it.key() : it.key() + u'=' + it.value());
    QJsonObject filters;
    filters.insert(QStringLiteral("label"), wanted);
    HttpRequest request;
    request.target =
        target(QStringLiteral("/containers/json"), "all=1&filters=" + encoded(QString::fromUtf8(json(filters))));
    const auto response = co_await call(std::move(request));
    if (!response)
        co_return fail(response.error());
    if (response->status != 200)
        co_return fail(errorFor(*response, "list containers"));
    co_return parseContainerList(response->body);
}

QCoro::Task<Result<ContainerInfo>> DockerClient::inspect(QString id)
{
    HttpRequest request;
    request.target =
        target(QStringLiteral("/containers/") + QString::fromLatin1(encoded(id)) + QStringLiteral("/json"));
    const auto response = co_await call(std::move(request));
    if (!response)
        co_return fail(response.error());
    if (response->status != 200)
        co_return fail(errorFor(*response, "inspect container " + id.toUtf8()));
    co_return parseContainerInspect(response->body);
}

QCoro::Task<Result<bool>> DockerClient::imageExists(QString image)
{
    HttpRequest request;
    request.target = target(QStringLiteral("/images/") + QString::fromLatin1(encoded(image)) + QStringLiteral("/json"));
    const auto response = co_await call(std::move(request));
    if (!response)
        co_return fail(response.error());
    if (response->status == 404)
        co_return false;
    if (response->status != 200)
        co_return fail(errorFor(*response, "inspect image " + image.toUtf8()));
    co_return true;
}

QCoro::Task<Result<QString>> DockerClient::create(ContainerSpec spec)
{
    QJsonObject body;
    body.insert(QStringLiteral("Image"), spec.image);
    if (!spec.cmd.isEmpty())
        body.insert(QStringLiteral("Cmd"), QJsonArray::fromStringList(spec.cmd));
    if (!spec.workingDir.isEmpty())
        body.insert(QStringLiteral("WorkingDir"), spec.workingDir);
    QJsonObject labels;
    for (auto it = spec.labels.cbegin(); it != spec.labels.cend(); ++it)
        labels.insert(it.key(), it.value());
    body.insert(QStringLiteral("Labels"), labels);
    QStringList env;
    for (auto it = spec.env.cbegin(); it != spec.env.cend(); ++it)
        env.append(it.key() + u'=' + it.value());
    body.insert(QStringLiteral("Env"), QJsonArray::fromStringList(env));
    QJsonObject host;
    host.insert(QStringLiteral("Binds"), QJsonArray::fromStringList(spec.binds));
    if (!spec.networkMode.isEmpty())
        host.insert(QStringLiteral("NetworkMode"), spec.networkMode);
    body.insert(QStringLiteral("HostConfig"), host);
    HttpRequest request;
    request.method = QByteArrayLiteral("POST");
    request.target =
        target(QStringLiteral("/containers/create"), spec.name.isEmpty() ? QByteArray() : "name=" + encoded(spec.name));
    request.body = json(body);
    const auto response = co_await call(std::move(request));
    if (!response)
        co_return fail(response.error());
    if (response->status == 404) {
        Error error = errorFor(*response, "create container");
        error.message = Tr::tr("The image %1 is not on the Docker engine at %2: pull, build or import it there first.")
                            .arg(spec.image, address().display());
        co_return fail(error);
    }
    if (response->status != 201)
        co_return fail(errorFor(*response, "create container"));
    co_return QJsonDocument::fromJson(response->body).object().value(QLatin1String("Id")).toString();
}

namespace {

// POST /containers/<id>/<verb>: 204, or 304 when it already was so.
HttpRequest post(const QByteArray &target)
{
    HttpRequest request;
    request.method = QByteArrayLiteral("POST");
    request.target = target;
    return request;
}

} // namespace

QCoro::Task<Result<>> DockerClient::action(QString id, QByteArray verb, QByteArray query,
                                           std::chrono::milliseconds timeout, bool alreadyIsFine)
{
    HttpRequest request = post(target(
        QStringLiteral("/containers/") + QString::fromLatin1(encoded(id)) + u'/' + QString::fromLatin1(verb), query));
    request.timeout = timeout;
    const auto response = co_await call(std::move(request));
    if (!response)
        co_return fail(response.error());
    // 304: started or stopped already.
    if (response->status != 204 && !(alreadyIsFine && response->status == 304))
        co_return fail(errorFor(*response, verb + " container " + id.toUtf8()));
    co_return Result<>{};
}

QCoro::Task<Result<>> DockerClient::putArchive(QString id, QString folder, QByteArray tar)
{
    HttpRequest request;
    request.method = QByteArrayLiteral("PUT");
    request.target =
        target(QStringLiteral("/containers/") + QString::fromLatin1(encoded(id)) + QStringLiteral("/archive"),
               "path=" + encoded(folder));
    request.body = std::move(tar);
    request.contentType = QByteArrayLiteral("application/x-tar");
    request.timeout = std::chrono::minutes(10);
    const auto response = co_await call(std::move(request));
    if (!response)
        co_return fail(response.error());
    if (response->status != 200)
        co_return fail(errorFor(*response, "copy into container " + id.toUtf8()));
    co_return Result<>{};
}

QCoro::Task<Result<>> DockerClient::start(QString id)
{
    return action(std::move(id), QByteArrayLiteral("start"), {}, HttpRequest().timeout, true);
}

QCoro::Task<Result<>> DockerClient::pause(QString id)
{
    return action(std::move(id), QByteArrayLiteral("pause"), {}, HttpRequest().timeout, false);
}

QCoro::Task<Result<>> DockerClient::unpause(QString id)
{
    return action(std::move(id), QByteArrayLiteral("unpause"), {}, HttpRequest().timeout, false);
}

QCoro::Task<Result<>> DockerClient::stop(QString id, std::chrono::seconds grace)
{
    // The engine answers once the container stopped: after the grace, at worst, and its kill.
    return action(std::move(id), QByteArrayLiteral("stop"), "t=" + QByteArray::number(qint64(grace.count())),
                  grace + std::chrono::seconds(30), true);
}

QCoro::Task<Result<>> DockerClient::remove(QString id, bool force)
{
    HttpRequest request;
    request.method = QByteArrayLiteral("DELETE");
    request.target = target(QStringLiteral("/containers/") + QString::fromLatin1(encoded(id)),
                            force ? QByteArrayLiteral("force=1") : QByteArrayLiteral("force=0"));
    const auto response = co_await call(std::move(request));
    if (!response)
        co_return fail(response.error());
    if (response->status != 204)
        co_return fail(errorFor(*response, "remove container " + id.toUtf8()));
    co_return Result<>{};
}

QCoro::Task<Result<QByteArray>> DockerClient::logs(QString id, int tail)
{
    HttpRequest request;
    request.target = target(QStringLiteral("/containers/") + QString::fromLatin1(encoded(id)) + QStringLiteral("/logs"),
                            "stdout=1&stderr=1&timestamps=1&tail=" + QByteArray::number(std::max(1, tail)));
    const auto response = co_await call(std::move(request));
    if (!response)
        co_return fail(response.error());
    if (response->status != 200)
        co_return fail(errorFor(*response, "read the log of container " + id.toUtf8()));
    co_return logText(response->headers.value("content-type"), response->body);
}

QCoro::Task<Result<QByteArray>> DockerClient::stats(QString id)
{
    HttpRequest request;
    request.target = target(
        QStringLiteral("/containers/") + QString::fromLatin1(encoded(id)) + QStringLiteral("/stats"), "stream=false");
    const auto response = co_await call(std::move(request));
    if (!response)
        co_return fail(response.error());
    if (response->status != 200)
        co_return fail(errorFor(*response, "read the stats of container " + id.toUtf8()));
    QByteArray body = response->body;
    co_return body;
}

QCoro::Task<Result<int>> DockerClient::exec(QString id, QStringList argv, QString workingDir,
                                            std::function<void(OutputChannel, QByteArrayView)> onOutput,
                                            std::shared_ptr<CancelToken> stopReading)
{
    QJsonObject body;
    body.insert(QStringLiteral("Cmd"), QJsonArray::fromStringList(argv));
    body.insert(QStringLiteral("AttachStdout"), true);
    body.insert(QStringLiteral("AttachStderr"), true);
    if (!workingDir.isEmpty())
        body.insert(QStringLiteral("WorkingDir"), workingDir);
    HttpRequest create =
        post(target(QStringLiteral("/containers/") + QString::fromLatin1(encoded(id)) + QStringLiteral("/exec")));
    create.body = json(body);
    const auto created = co_await call(std::move(create));
    if (!created)
        co_return fail(created.error());
    if (created->status != 201)
        co_return fail(errorFor(*created, "exec in container " + id.toUtf8()));
    const QString execId = QJsonDocument::fromJson(created->body).object().value(QLatin1String("Id")).toString();

    // The output comes as one multiplexed stream that ends when the command does.
    QJsonObject startBody;
    startBody.insert(QStringLiteral("Detach"), false);
    startBody.insert(QStringLiteral("Tty"), false);
    HttpRequest startRequest = post(target(QStringLiteral("/exec/") + execId + QStringLiteral("/start")));
    startRequest.body = json(startBody);
    startRequest.timeout = std::chrono::milliseconds(0);
    startRequest.cancel = std::move(stopReading);
    auto demuxer = std::make_shared<StreamDemuxer>(onOutput);
    const std::function<void(QByteArrayView)> sink = [demuxer](QByteArrayView chunk) { demuxer->feed(chunk); };
    const auto streamed = co_await m_http->stream(std::move(startRequest), sink);
    if (!streamed)
        co_return fail(streamed.error());
    if (streamed->status != 200 && streamed->status != 101)
        co_return fail(errorFor(*streamed, "start exec in container " + id.toUtf8()));

    HttpRequest inspectRequest;
    inspectRequest.target = target(QStringLiteral("/exec/") + execId + QStringLiteral("/json"));
    const auto inspected = co_await call(std::move(inspectRequest));
    if (!inspected)
        co_return fail(inspected.error());
    if (inspected->status != 200)
        co_return fail(errorFor(*inspected, "inspect exec in container " + id.toUtf8()));
    const QJsonObject state = QJsonDocument::fromJson(inspected->body).object();
    co_return state.value(QLatin1String("ExitCode")).toInt(-1);
}

} // namespace Paddock::Docker
