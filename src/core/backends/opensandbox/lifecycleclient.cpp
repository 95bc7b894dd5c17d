#include "lifecycleclient.h"

#include "../../backoff.h"
#include "../../tr.h"
#include "metadatacodec.h"
#include "wire.h"

#include <QCoroTask>
#include <QCoroTimer>

#include <QDeadlineTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcessEnvironment>

namespace Paddock::OpenSandbox {

namespace {

constexpr int MaxPages = 10'000; // a server that always says hasNextPage cannot hold us forever

QJsonObject stringMap(const QMap<QString, QString> &map, bool encodeValues = false)
{
    QJsonObject json;
    for (auto it = map.cbegin(); it != map.cend(); ++it)
        json.insert(it.key(), encodeValues ? encodeMetadataValue(it.value()) : it.value());
    return json;
}

Result<QJsonObject> jsonObject(const HttpResponse &response)
{
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(response.body, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject()) {
        const QString type = QString::fromLatin1(response.headers.value(QByteArrayLiteral("content-type")));
        QString message = Tr::tr("the server's answer is not a JSON object (HTTP %1, %2)")
                              .arg(response.status)
                              .arg(type.isEmpty() ? Tr::tr("no content type") : type);
        if (!response.requestId.isEmpty())
            message += u' ' + Tr::tr("(request %1)").arg(response.requestId);
        message += u' ' + Tr::tr("- is this an OpenSandbox server?");
        return fail(Error::backend(message));
    }
    return document.object();
}

} // namespace

ConnectionConfig ConnectionConfig::resolved() const
{
    const QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    ConnectionConfig config = *this;
    if (config.domain.isEmpty())
        config.domain = env.value(QStringLiteral("OPEN_SANDBOX_DOMAIN"), QStringLiteral("localhost:8080"));
    if (config.apiKey.isEmpty())
        config.apiKey = env.value(QStringLiteral("OPEN_SANDBOX_API_KEY")).toUtf8();
    if (config.protocol.isEmpty())
        config.protocol = QStringLiteral("http");
    for (const QString &scheme : {QStringLiteral("http"), QStringLiteral("https")}) {
        if (config.domain.startsWith(scheme + QStringLiteral("://"))) {
            config.protocol = scheme;
            config.domain = config.domain.mid(scheme.size() + 3);
        }
    }
    while (config.domain.endsWith(u'/'))
        config.domain.chop(1);
    return config;
}

Result<> validateDomain(const ConnectionConfig &resolved)
{
    const QString &domain = resolved.domain;
    const auto bad = [&domain](const QString &why) {
        return fail(Error::invalidArgument(Tr::tr("invalid OpenSandbox domain \"%1\": %2").arg(domain, why)));
    };
    if (resolved.protocol != QLatin1String("http") && resolved.protocol != QLatin1String("https"))
        return fail(
            Error::invalidArgument(Tr::tr("invalid protocol \"%1\": use http or https").arg(resolved.protocol)));
    if (domain.isEmpty())
        return bad(Tr::tr("it is empty"));
    if (domain.contains(u'/') || domain.contains(u'?') || domain.contains(u'#'))
        return bad(Tr::tr("give host[:port] only, without a path (the client adds /v1)"));
    if (domain.contains(u'@') || domain.contains(u' '))
        return bad(Tr::tr("give host[:port] only"));
    // QUrl takes a port of 0 or one past 65535 as "no port"; say so instead.
    const qsizetype colon = domain.lastIndexOf(u':');
    if (colon > domain.lastIndexOf(u']')) {
        bool ok = false;
        const int port = domain.mid(colon + 1).toInt(&ok);
        if (!ok || port < 1 || port > 65535)
            return bad(Tr::tr("the port must be a number from 1 to 65535"));
    }
    const QUrl url(resolved.protocol + QStringLiteral("://") + domain, QUrl::StrictMode);
    if (!url.isValid() || url.host().isEmpty())
        return bad(Tr::tr("not a host name or address"));
    return {};
}

QUrl ConnectionConfig::baseUrl() const
{
    return QUrl(protocol + QStringLiteral("://") + domain + QStringLiteral("/v1"));
}

SandboxInfo parseSandbox(const QJsonObject &json)
{
    SandboxInfo info;
    info.sandboxId = json.value(QLatin1String("id")).toString();
    const QJsonObject status = json.value(QLatin1String("status")).toObject();
    info.rawState = status.value(QLatin1String("state")).toString();
    info.state = parseSandboxState(info.rawState);
    info.image = json.value(QLatin1String("image")).toObject().value(QLatin1String("uri")).toString();
    info.backend = QStringLiteral("opensandbox");
    if (const auto created = parseTimestamp(json.value(QLatin1String("createdAt")).toString()))
        info.createdAt = *created;
    if (const auto expires = parseTimestamp(json.value(QLatin1String("expiresAt")).toString()))
        info.expiresAt = *expires;
    const QJsonObject metadata = json.value(QLatin1String("metadata")).toObject();
    for (auto it = metadata.begin(); it != metadata.end(); ++it)
        info.metadata.insert(it.key(), decodeMetadataValue(it.value().toString()).text);
    info.workspaceId = info.metadata.value(WorkspaceIdKey);
    info.userId = info.metadata.value(UserIdKey);
    info.agentId = info.metadata.value(AgentIdKey);
    return info;
}

QByteArray createBody(const SandboxCreate &create)
{
    QJsonObject body{
        {QStringLiteral("image"), QJsonObject{{QStringLiteral("uri"), create.image}}},
        {QStringLiteral("entrypoint"), QJsonArray::fromStringList(create.entrypoint)},
        {QStringLiteral("resourceLimits"), stringMap(create.resourceLimits)},
        {QStringLiteral("metadata"), stringMap(create.metadata, true)},
    };
    body.insert(QStringLiteral("timeout"),
                create.timeout ? QJsonValue(qint64(create.timeout->count())) : QJsonValue(QJsonValue::Null));
    if (!create.env.isEmpty())
        body.insert(QStringLiteral("env"), stringMap(create.env));
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

QByteArray listQuery(const QStringList &states, const QMap<QString, QString> &metadata, int page, int pageSize)
{
    QByteArrayList parts;
    for (const QString &state : states)
        parts.append("state=" + QUrl::toPercentEncoding(state));
    if (!metadata.isEmpty()) {
        // One parameter whose value is itself "k=v&k2=v2", percent-encoded as a whole.
        QByteArrayList pairs;
        for (auto it = metadata.cbegin(); it != metadata.cend(); ++it)
            pairs.append(it.key().toUtf8() + '=' + encodeMetadataValue(it.value()).toUtf8());
        parts.append("metadata=" + QUrl::toPercentEncoding(QString::fromUtf8(pairs.join('&'))));
    }
    parts.append("page=" + QByteArray::number(page));
    parts.append("pageSize=" + QByteArray::number(pageSize));
    return parts.join('&');
}

LifecycleClient::LifecycleClient(HttpClient *http, ConnectionConfig config, QObject *parent)
    : QObject(parent)
    , m_http(http)
    , m_config(config.resolved())
{
}

QCoro::Task<Result<QJsonObject>> LifecycleClient::sendForJson(HttpRequest request)
{
    auto response = co_await m_http->send(std::move(request));
    if (!response)
        co_return fail(response.error());
    co_return jsonObject(*response);
}

QCoro::Task<Result<>> LifecycleClient::sendForNothing(HttpRequest request)
{
    auto response = co_await m_http->send(std::move(request));
    if (!response)
        co_return fail(response.error());
    co_return Result<>{};
}

HttpRequest LifecycleClient::request(const QByteArray &method, const QString &path, const QByteArray &query) const
{
    HttpRequest request;
    request.method = method;
    QUrl url = m_config.baseUrl();
    url.setPath(url.path() + path);
    if (!query.isEmpty())
        url.setQuery(QString::fromLatin1(query), QUrl::StrictMode);
    request.url = url;
    request.transferTimeout = m_config.requestTimeout;
    if (!m_config.apiKey.isEmpty())
        request.headers.append({QByteArrayLiteral("OPEN-SANDBOX-API-KEY"), m_config.apiKey});
    // GET, pause, resume and delete may be repeated; create and renew may not.
    request.retrySafe = method == "GET" || method == "DELETE" || path.endsWith(QLatin1String("/pause"))
        || path.endsWith(QLatin1String("/resume"));
    return request;
}

QCoro::Task<Result<QList<SandboxInfo>>> LifecycleClient::list(QStringList states, QMap<QString, QString> metadata)
{
    QList<SandboxInfo> all;
    for (int page = 1; page <= MaxPages; ++page) {
        const HttpRequest listing = request(QByteArrayLiteral("GET"), QStringLiteral("/sandboxes"),
                                            listQuery(states, metadata, page, PageSize));
        const auto json = co_await sendForJson(listing);
        if (!json)
            co_return fail(json.error());
        const QJsonArray items = json->value(QLatin1String("items")).toArray();
        for (const QJsonValue &item : items)
            all.append(parseSandbox(item.toObject()));
        if (!json->value(QLatin1String("pagination")).toObject().value(QLatin1String("hasNextPage")).toBool())
            break;
    }
    co_return all;
}

QCoro::Task<Result<SandboxInfo>> LifecycleClient::get(QString sandboxId)
{
    const HttpRequest fetch = request(QByteArrayLiteral("GET"), QStringLiteral("/sandboxes/") + sandboxId);
    const auto json = co_await sendForJson(fetch);
    if (!json)
        co_return fail(json.error());
    co_return parseSandbox(*json);
}

QCoro::Task<Result<SandboxInfo>> LifecycleClient::create(SandboxCreate create)
{
    HttpRequest post = request(QByteArrayLiteral("POST"), QStringLiteral("/sandboxes"));
    post.body = createBody(create);
    const auto json = co_await sendForJson(post);
    if (!json)
        co_return fail(json.error());
    SandboxInfo info = parseSandbox(*json);
    if (info.image.isEmpty())
        info.image = create.image; // CreateSandboxResponse carries no image
    co_return info;
}

QCoro::Task<Result<>> LifecycleClient::remove(QString sandboxId)
{
    const HttpRequest del = request(QByteArrayLiteral("DELETE"), QStringLiteral("/sandboxes/") + sandboxId);
    co_return co_await sendForNothing(del);
}

QCoro::Task<Result<>> LifecycleClient::pause(QString sandboxId)
{
    const HttpRequest post =
        request(QByteArrayLiteral("POST"), QStringLiteral("/sandboxes/") + sandboxId + QStringLiteral("/pause"));
    co_return co_await sendForNothing(post);
}

QCoro::Task<Result<>> LifecycleClient::resume(QString sandboxId)
{
    const HttpRequest post =
        request(QByteArrayLiteral("POST"), QStringLiteral("/sandboxes/") + sandboxId + QStringLiteral("/resume"));
    co_return co_await sendForNothing(post);
}

QCoro::Task<Result<QDateTime>> LifecycleClient::renew(QString sandboxId, std::chrono::seconds duration)
{
    const QDateTime expiresAt = QDateTime::currentDateTimeUtc().addSecs(duration.count());
    HttpRequest post = request(QByteArrayLiteral("POST"),
                               QStringLiteral("/sandboxes/") + sandboxId + QStringLiteral("/renew-expiration"));
    post.body = QJsonDocument(QJsonObject{{QStringLiteral("expiresAt"), formatTimestamp(expiresAt)}})
                    .toJson(QJsonDocument::Compact);
    const auto json = co_await sendForJson(post);
    if (!json)
        co_return fail(json.error());
    const auto granted = parseTimestamp(json->value(QLatin1String("expiresAt")).toString());
    co_return granted ? *granted : expiresAt;
}

QCoro::Task<Result<Endpoint>> LifecycleClient::endpoint(QString sandboxId, int port)
{
    const QByteArray query = QByteArrayLiteral("use_server_proxy=") + (m_config.useServerProxy ? "true" : "false");
    const HttpRequest fetch =
        request(QByteArrayLiteral("GET"), QStringLiteral("/sandboxes/%1/endpoints/%2").arg(sandboxId).arg(port), query);
    const auto json = co_await sendForJson(fetch);
    if (!json)
        co_return fail(json.error());
    Endpoint endpoint;
    endpoint.endpoint = json->value(QLatin1String("endpoint")).toString();
    const QJsonObject headers = json->value(QLatin1String("headers")).toObject();
    for (auto it = headers.begin(); it != headers.end(); ++it)
        endpoint.headers.insert(it.key().toUtf8(), it.value().toString().toUtf8());
    co_return endpoint;
}

QCoro::Task<Result<SandboxInfo>> LifecycleClient::patchMetadata(QString sandboxId,
                                                                QMap<QString, std::optional<QString>> patch)
{
    QJsonObject body;
    for (auto it = patch.cbegin(); it != patch.cend(); ++it)
        body.insert(it.key(), it.value() ? QJsonValue(encodeMetadataValue(*it.value())) : QJsonValue(QJsonValue::Null));
    HttpRequest request = this->request(QByteArrayLiteral("PATCH"),
                                        QStringLiteral("/sandboxes/") + sandboxId + QStringLiteral("/metadata"));
    request.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    const auto json = co_await sendForJson(request);
    if (!json)
        co_return fail(json.error());
    co_return parseSandbox(*json);
}

QCoro::Task<Result<SandboxInfo>> LifecycleClient::waitForState(QString sandboxId, QList<SandboxState> wanted,
                                                               std::chrono::milliseconds limit)
{
    const QDeadlineTimer deadline(limit);
    Backoff backoff;
    for (;;) {
        auto info = co_await get(sandboxId);
        if (!info)
            co_return info;
        if (wanted.contains(info->state))
            co_return info;
        if (info->state == SandboxState::Failed || info->state == SandboxState::Terminated) {
            co_return fail(Error::conflict(
                Tr::tr("sandbox %1 is %2 and cannot become %3")
                    .arg(sandboxId, info->rawState, sandboxStateName(wanted.value(0, SandboxState::Running)))));
        }
        if (deadline.hasExpired()) {
            co_return fail(Error::timeout(Tr::tr("sandbox %1 is still %2 after %3 s")
                                              .arg(sandboxId, info->rawState)
                                              .arg(std::chrono::duration<double>(limit).count())));
        }
        co_await QCoro::sleepFor(std::min(backoff.next(), std::chrono::milliseconds(deadline.remainingTime())));
    }
}

} // namespace Paddock::OpenSandbox
