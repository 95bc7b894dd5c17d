#include "lifecycleclient.h"

#include "../../backoff.h"
#include "../../bulk.h"
#include "../../tr.h"
#include "metadatacodec.h"
#include "sandboxjson.h"
#include "wire.h"

#include <QCoroTask>
#include <QCoroTimer>

#include <QDeadlineTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcessEnvironment>
#include <QSet>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

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
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return fail(notJsonError(response));
    return document.object();
}

} // namespace

ConnectionConfig ConnectionConfig::resolved() const
{
    const QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    ConnectionConfig config = *this;
    if (config.domain.isEmpty())
        config.domain = env.value(QStringLiteral("OPEN_SANDBOX_DOMAIN"), QStringLiteral("localhost:8080"));
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
    m_http->setErrorDecoder(decodeHttpError);
}

LifecycleClient::~LifecycleClient()
{
    m_http->abortAll();
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
    // GET, pause, resume, delete and renew (an absolute expiresAt: the same again) may be
    // repeated; a create may not (twice is two sandboxes: OpenSandboxBackend::create looks it up
    // by its metadata first).
    request.retrySafe = method == "GET" || method == "DELETE" || path.endsWith(QLatin1String("/pause"))
        || path.endsWith(QLatin1String("/resume")) || path.endsWith(QLatin1String("/renew-expiration"));
    return request;
}

QCoro::Task<Result<ListPage>> LifecycleClient::fetchPage(QStringList states, QMap<QString, QString> metadata, int page)
{
    HttpRequest listing =
        request(QByteArrayLiteral("GET"), QStringLiteral("/sandboxes"), listQuery(states, metadata, page, PageSize));
    listing.cancel = m_reads;
    auto response = co_await m_http->send(listing);
    if (!response)
        co_return fail(response.error());
    // 200 sandboxes take a few milliseconds to parse: a worker thread does it, so the caller's
    // thread (the GUI's) stays free and the next page's transfer overlaps the parsing. The page
    // travels by pointer: a QFuture hands out copies of its result. Awaited through the HTTP
    // client, whose closing ends the wait at once: the list goes on with `this`.
    const auto parse = [](const HttpResponse &answer) {
        return std::make_shared<Result<ListPage>>(parseListPage(answer));
    };
    const QFuture<std::shared_ptr<Result<ListPage>>> parsing = QtConcurrent::run(parse, std::move(*response));
    QFuture<void> parsed(parsing);
    if (!co_await m_http->waitFor(std::move(parsed)))
        co_return fail(HttpClient::closedError());
    const std::shared_ptr<Result<ListPage>> result = parsing.result();
    co_return std::move(*result);
}

QCoro::Task<Result<QList<SandboxInfo>>> LifecycleClient::list(QStringList states, QMap<QString, QString> metadata)
{
    auto first = co_await fetchPage(states, metadata, 1);
    if (!first)
        co_return fail(first.error());
    QList<QList<SandboxInfo>> pages;
    pages.append(std::move(first->items));
    bool more = first->hasNextPage;
    int fetched = 1;
    if (more && first->totalPages > 1) {
        // The first page says how many there are: the rest come a few at a time.
        const int total = std::min(first->totalPages, MaxPages);
        QList<int> rest;
        for (int page = 2; page <= total; ++page)
            rest.append(page);
        pages.resize(total);
        bool lastHasNext = false;
        const std::function<QCoro::Task<Result<>>(const int &)> fetch =
            [this, &states, &metadata, &pages, &lastHasNext, total](const int &page) -> QCoro::Task<Result<>> {
            auto fetched = co_await fetchPage(states, metadata, page);
            if (!fetched)
                co_return fail(fetched.error());
            pages[page - 1] = std::move(fetched->items);
            if (page == total)
                lastHasNext = fetched->hasNextPage;
            co_return Result<>{};
        };
        const auto results = co_await runBounded<int>(rest, ListConcurrency, fetch);
        for (const Result<> &result : results) {
            if (!result)
                co_return fail(result.error());
        }
        fetched = total;
        more = lastHasNext;
    }
    // The listing grew while we read it (or the server gave no page count): one page at a time.
    while (more && fetched < MaxPages) {
        auto page = co_await fetchPage(states, metadata, ++fetched);
        if (!page)
            co_return fail(page.error());
        pages.append(std::move(page->items));
        more = page->hasNextPage;
    }

    // Pages can overlap when sandboxes come and go meanwhile: each sandbox once. Joined on a
    // worker thread, like the parsing: 10,000 moves and a set of ids are ~10 ms of GUI time.
    const auto join = [](QList<QList<SandboxInfo>> pages) {
        qsizetype count = 0;
        for (const QList<SandboxInfo> &page : std::as_const(pages))
            count += page.size();
        QList<SandboxInfo> all;
        all.reserve(count);
        QSet<QString> seen;
        seen.reserve(count);
        for (QList<SandboxInfo> &page : pages) {
            for (SandboxInfo &info : page) {
                if (!seen.contains(info.sandboxId)) {
                    seen.insert(info.sandboxId);
                    all.append(std::move(info));
                }
            }
        }
        return all;
    };
    const QFuture<QList<SandboxInfo>> joining = QtConcurrent::run(join, std::move(pages));
    QFuture<void> joined(joining);
    if (!co_await m_http->waitFor(std::move(joined)))
        co_return fail(HttpClient::closedError());
    QList<SandboxInfo> all = joining.result();
    co_return all;
}

QCoro::Task<Result<SandboxInfo>> LifecycleClient::get(QString sandboxId)
{
    const HttpRequest fetch = request(QByteArrayLiteral("GET"), QStringLiteral("/sandboxes/") + sandboxId);
    const auto response = co_await m_http->send(fetch);
    if (!response)
        co_return fail(response.error());
    co_return parseSandboxResponse(*response);
}

QCoro::Task<Result<SandboxDetails>> LifecycleClient::details(QString sandboxId)
{
    const HttpRequest fetch = request(QByteArrayLiteral("GET"), QStringLiteral("/sandboxes/") + sandboxId);
    const auto response = co_await m_http->send(fetch);
    if (!response)
        co_return fail(response.error());
    co_return parseSandboxDetails(*response);
}

QCoro::Task<Result<SandboxInfo>> LifecycleClient::create(SandboxCreate create)
{
    HttpRequest post = request(QByteArrayLiteral("POST"), QStringLiteral("/sandboxes"));
    post.body = createBody(create);
    const auto response = co_await m_http->send(post);
    if (!response)
        co_return fail(response.error());
    auto parsed = parseSandboxResponse(*response);
    if (!parsed)
        co_return fail(parsed.error());
    SandboxInfo info = std::move(*parsed);
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

QCoro::Task<Result<Endpoint>> LifecycleClient::endpoint(QString sandboxId, int port, bool once)
{
    const QByteArray query = QByteArrayLiteral("use_server_proxy=") + (m_config.useServerProxy ? "true" : "false");
    HttpRequest fetch =
        request(QByteArrayLiteral("GET"), QStringLiteral("/sandboxes/%1/endpoints/%2").arg(sandboxId).arg(port), query);
    if (once)
        fetch.retrySafe = false;
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
    const auto response = co_await m_http->send(request);
    if (!response)
        co_return fail(response.error());
    co_return parseSandboxResponse(*response);
}

QCoro::Task<Result<QByteArray>> LifecycleClient::containerLogs(QString sandboxId, int tail)
{
    const QByteArray query = QByteArrayLiteral("tail=") + QByteArray::number(std::clamp(tail, 1, MaxLogTail));
    HttpRequest fetch = request(QByteArrayLiteral("GET"),
                                QStringLiteral("/sandboxes/") + sandboxId + QStringLiteral("/diagnostics/logs"), query);
    fetch.accept = QByteArrayLiteral("text/plain");
    auto response = co_await m_http->send(fetch);
    if (!response)
        co_return fail(response.error());
    QByteArray body = std::move(response->body);
    co_return body;
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
        // Through the client's sleep: ended at once when the backend goes away.
        const std::chrono::milliseconds left(std::max<qint64>(deadline.remainingTime(), 0));
        const std::chrono::milliseconds wait = std::min(backoff.next(), left);
        if (!co_await m_http->sleep(wait))
            co_return fail(HttpClient::closedError());
    }
}

} // namespace Paddock::OpenSandbox
