#include "kubeclient.h"

#include "../../bulk.h"
#include "../../logging.h"
#include "../../tr.h"

#include <QCoroTask>

#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QUrlQuery>
#include <QtConcurrent>

#include <utility>

Q_LOGGING_CATEGORY(lcKubeClient, "paddock.core.kubernetes.client", QtInfoMsg)

namespace Paddock::Kubernetes {

namespace {

QJsonObject jsonObject(const QByteArray &body)
{
    return QJsonDocument::fromJson(body).object();
}

QString percentEncoded(const QString &value)
{
    return QString::fromLatin1(QUrl::toPercentEncoding(value));
}

} // namespace

QString statusReason(const QByteArray &body)
{
    const QJsonObject status = jsonObject(body);
    if (status.value(QLatin1String("kind")).toString() != QLatin1String("Status"))
        return {};
    return status.value(QLatin1String("reason")).toString();
}

Error decodeStatus(const Http::HttpResponse &response)
{
    const QJsonObject status = jsonObject(response.body);
    const bool isStatus = status.value(QLatin1String("kind")).toString() == QLatin1String("Status");
    if (!isStatus)
        return Http::defaultErrorDecoder(response);
    const QString reason = status.value(QLatin1String("reason")).toString();
    QString message = status.value(QLatin1String("message")).toString();
    // Invalid: the causes say which field and why.
    const QJsonArray causes =
        status.value(QLatin1String("details")).toObject().value(QLatin1String("causes")).toArray();
    if (message.isEmpty() && !causes.isEmpty()) {
        QStringList parts;
        for (const QJsonValue &cause : causes)
            parts.append(cause.toObject().value(QLatin1String("message")).toString());
        message = parts.join(QStringLiteral("; "));
    }
    Error error{Http::kindForStatus(response.status),
                reason.isEmpty() ? Tr::tr("HTTP %1: %2").arg(response.status).arg(message)
                                 : Tr::tr("HTTP %1 %2: %3").arg(response.status).arg(reason, message),
                response.status};
    return error;
}

KubeClient::KubeClient(ClusterTarget target, Http::RetryPolicy retry, QObject *parent)
    : QObject(parent)
    , m_target(std::move(target))
    , m_network(std::make_unique<QNetworkAccessManager>())
    , m_http(std::make_unique<Http::HttpClient>(m_network.get(), retry))
{
    m_http->setErrorDecoder(decodeStatus);
    m_http->setSslConfiguration(m_target.connection.ssl);
    if (!m_target.connection.peerVerifyName.isEmpty())
        m_http->setPeerVerifyName(m_target.connection.peerVerifyName);
    if (m_target.connection.proxy)
        m_network->setProxy(*m_target.connection.proxy);
    // A watch and a followed log each hold a connection for as long as they run.
    m_http->setMaxConnections(12);
}

KubeClient::~KubeClient()
{
    abortAll();
}

void KubeClient::abortAll()
{
    // A credential plugin that runs ends too (its authorization() as Cancelled).
    if (m_target.connection.credentials)
        m_target.connection.credentials->close();
    m_http->abortAll();
}

QUrl KubeClient::namespacedUrl(const QString &path) const
{
    QUrl url = m_target.connection.server;
    QString base = url.path();
    if (base.endsWith(u'/'))
        base.chop(1);
    url.setPath(base + QStringLiteral("/api/v1/namespaces/") + m_target.ns + u'/' + path);
    return url;
}

void KubeClient::useIdentity(const Authorization &authorization)
{
    // An exec plugin's client certificate: onto the TLS settings of every later request.
    if (authorization.pluginIdentity.isNull() || authorization.generation == m_identityGeneration)
        return;
    m_identityGeneration = authorization.generation;
    QSslConfiguration tls = m_target.connection.ssl;
    authorization.applyTo(tls);
    m_http->setSslConfiguration(tls);
}

QCoro::Task<Result<>> KubeClient::authorize(Http::HttpRequest &request)
{
    const std::shared_ptr<Credentials> credentials = m_target.connection.credentials;
    if (!credentials)
        co_return Result<>{};
    auto authorization = co_await credentials->authorization();
    if (m_http->isClosing())
        co_return fail(Http::HttpClient::closedError());
    if (!authorization)
        co_return fail(authorization.error());
    m_used = *authorization;
    useIdentity(m_used);
    if (!m_used.bearerToken.isEmpty()) {
        // Never to a server that is not https (kubeconfig.h refuses such a configuration too).
        if (request.url.scheme() != QLatin1String("https"))
            co_return fail(
                Error::invalidArgument(Tr::tr("credentials are sent only over https, and %1 is not")
                                           .arg(request.url.toString(QUrl::RemoveUserInfo | QUrl::RemoveQuery))));
        request.headers.append(std::make_pair(QByteArrayLiteral("Authorization"), m_used.headerValue()));
    }
    co_return Result<>{};
}

Error KubeClient::explain(const Error &error, const QString &verb, const QString &resource)
{
    Error explained = error;
    // The next request gets new credentials (a stream's are not sent again).
    if (error.httpStatus == 401 && m_target.connection.credentials)
        m_target.connection.credentials->reportUnauthorized(m_used);
    if (error.httpStatus == 401) {
        explained.message = Tr::tr("the API server at %1 did not accept the credentials of %2 (%3)")
                                .arg(m_target.connection.server.toString(QUrl::RemoveUserInfo),
                                     m_target.connection.description, error.message);
    } else if (error.httpStatus == 403) {
        explained.message = Tr::tr("the cluster does not allow %1 to %2 %3 in the namespace %4; its role (RBAC) needs "
                                   "the verb \"%2\" on \"%3\" (%5)")
                                .arg(m_target.connection.description, verb, resource, m_target.ns, error.message);
    }
    return explained;
}

QCoro::Task<Result<Http::HttpResponse>> KubeClient::send(Http::HttpRequest request, const char *verb,
                                                         const char *resource)
{
    const Http::HttpRequest unsigned_ = request;
    if (auto authorized = co_await authorize(request); !authorized)
        co_return fail(authorized.error());
    auto response = co_await m_http->send(request);
    if (!response && response.error().httpStatus == 401 && m_target.connection.credentials
        && m_target.connection.credentials->reportUnauthorized(m_used)) {
        // Expired credentials (a rotated token file, an exec plugin's token): once more with new ones.
        request = unsigned_;
        if (auto authorized = co_await authorize(request); !authorized)
            co_return fail(authorized.error());
        response = co_await m_http->send(request);
    }
    if (!response)
        co_return fail(explain(response.error(), QLatin1String(verb), QLatin1String(resource)));
    co_return response;
}

QCoro::Task<Result<bool>> KubeClient::namespaceExists()
{
    QUrl url = m_target.connection.server;
    url.setPath(url.path() + QStringLiteral("/api/v1/namespaces/") + m_target.ns);
    Http::HttpRequest request;
    request.url = url;
    request.retrySafe = true;
    auto response = co_await send(request, "get", "namespaces");
    if (!response) {
        if (response.error().kind == Error::Kind::NotFound)
            co_return false;
        co_return fail(response.error());
    }
    co_return true;
}

QCoro::Task<Result<>> KubeClient::createNamespace()
{
    QUrl url = m_target.connection.server;
    url.setPath(url.path() + QStringLiteral("/api/v1/namespaces"));
    Http::HttpRequest request;
    request.method = "POST";
    request.url = url;
    request.body =
        QJsonDocument(QJsonObject{{QStringLiteral("apiVersion"), QStringLiteral("v1")},
                                  {QStringLiteral("kind"), QStringLiteral("Namespace")},
                                  {QStringLiteral("metadata"), QJsonObject{{QStringLiteral("name"), m_target.ns}}}})
            .toJson(QJsonDocument::Compact);
    auto response = co_await send(request, "create", "namespaces");
    // Someone else made it meanwhile: as good.
    if (!response && response.error().kind != Error::Kind::Conflict)
        co_return fail(response.error());
    co_return Result<>{};
}

template<typename View>
QCoro::Task<Result<std::optional<View>>> KubeClient::getObject(const char *resource, QString name,
                                                               Result<View> (*parse)(const QByteArray &))
{
    Http::HttpRequest request;
    request.url = namespacedUrl(QLatin1String(resource) + u'/' + name);
    request.retrySafe = true;
    auto response = co_await send(request, "get", resource);
    if (!response) {
        if (response.error().kind == Error::Kind::NotFound)
            co_return std::optional<View>{};
        co_return fail(response.error());
    }
    auto object = parse(response->body);
    if (!object)
        co_return fail(object.error());
    co_return std::optional<View>(std::move(*object));
}

template<typename View>
QCoro::Task<Result<View>> KubeClient::createObject(const char *resource, QJsonObject manifest,
                                                   Result<View> (*parse)(const QByteArray &))
{
    Http::HttpRequest request;
    request.method = "POST";
    QUrl url = namespacedUrl(QLatin1String(resource));
    url.setQuery(QStringLiteral("fieldManager=paddock"));
    request.url = url;
    request.body = QJsonDocument(manifest).toJson(QJsonDocument::Compact);
    // Objects are made by name: sent again after a first one that went through, the create is
    // refused with AlreadyExists (409), which the backend takes as "look again" (ensurePod,
    // ensurePvc), never a second object.
    request.retrySafe = true;
    auto response = co_await send(request, "create", resource);
    if (!response)
        co_return fail(response.error());
    co_return parse(response->body);
}

QCoro::Task<Result<bool>> KubeClient::deleteObject(const char *resource, QString name,
                                                   std::optional<int> gracePeriodSeconds)
{
    Http::HttpRequest request;
    request.method = "DELETE";
    request.url = namespacedUrl(QLatin1String(resource) + u'/' + name);
    request.retrySafe = true; // deleting twice is deleting once (a 404 the second time, below)
    QJsonObject options{{QStringLiteral("kind"), QStringLiteral("DeleteOptions")},
                        {QStringLiteral("apiVersion"), QStringLiteral("v1")},
                        {QStringLiteral("propagationPolicy"), QStringLiteral("Background")}};
    if (gracePeriodSeconds)
        options.insert(QStringLiteral("gracePeriodSeconds"), *gracePeriodSeconds);
    request.body = QJsonDocument(options).toJson(QJsonDocument::Compact);
    auto response = co_await send(request, "delete", resource);
    if (!response) {
        if (response.error().kind != Error::Kind::NotFound)
            co_return fail(response.error());
        // Not there on a retry whose earlier attempt may have run (its answer lost): that attempt
        // deleted it, as far as anyone can tell. Otherwise it was not there to delete.
        if (response.error().earlierAttemptMayHaveRun) {
            qCInfo(lcKubeClient).noquote() << resource << name << "was gone on a retry: the earlier attempt deleted it";
            co_return true;
        }
        co_return false;
    }
    co_return true;
}

QCoro::Task<Result<std::optional<PodView>>> KubeClient::getPod(QString name)
{
    co_return co_await getObject<PodView>("pods", name, parsePod);
}

QCoro::Task<Result<std::optional<PvcView>>> KubeClient::getPvc(QString name)
{
    co_return co_await getObject<PvcView>("persistentvolumeclaims", name, parsePvc);
}

QCoro::Task<Result<std::optional<PodDetails>>> KubeClient::getPodDetails(QString name)
{
    co_return co_await getObject<PodDetails>("pods", name, parsePodDetails);
}

QCoro::Task<Result<PodView>> KubeClient::createPod(QJsonObject manifest)
{
    co_return co_await createObject<PodView>("pods", manifest, parsePod);
}

QCoro::Task<Result<PvcView>> KubeClient::createPvc(QJsonObject manifest)
{
    co_return co_await createObject<PvcView>("persistentvolumeclaims", manifest, parsePvc);
}

QCoro::Task<Result<bool>> KubeClient::deletePod(QString name, std::optional<int> gracePeriodSeconds)
{
    co_return co_await deleteObject("pods", name, gracePeriodSeconds);
}

QCoro::Task<Result<bool>> KubeClient::deletePvc(QString name)
{
    co_return co_await deleteObject("persistentvolumeclaims", name, std::nullopt);
}

namespace {

// A list's continue token, read from its metadata before the items without parsing the page, so
// that the next page can be asked for while this one is parsed. nullopt: not found there (the
// parse tells); an empty token: the last page.
std::optional<QString> peekContinue(const QByteArray &body)
{
    const qsizetype items = body.indexOf("\"items\"");
    const QByteArrayView head = QByteArrayView(body).first(items < 0 ? body.size() : items);
    const qsizetype key = head.indexOf(QByteArrayView("\"continue\":\""));
    if (key < 0)
        return items < 0 ? std::nullopt : std::optional<QString>(QString());
    const qsizetype start = key + 12;
    const qsizetype end = head.indexOf('"', start);
    if (end < 0)
        return std::nullopt;
    const QByteArrayView token = head.sliced(start, end - start);
    if (token.contains('\\'))
        return std::nullopt; // escaped: left to the parser
    return QString::fromLatin1(token);
}

} // namespace

template<typename View>
QCoro::Task<Result<ListPage<View>>> KubeClient::listAll(const char *resource, QString labelSelector, int pageSize,
                                                        Result<ListPage<View>> (*parse)(QByteArray))
{
    const auto pageRequest = [&](const QString &token) {
        QString query = QStringLiteral("limit=%1").arg(pageSize);
        if (!labelSelector.isEmpty())
            query += QStringLiteral("&labelSelector=") + percentEncoded(labelSelector);
        if (!token.isEmpty())
            query += QStringLiteral("&continue=") + percentEncoded(token);
        Http::HttpRequest request;
        QUrl url = namespacedUrl(QLatin1String(resource));
        url.setQuery(query, QUrl::StrictMode);
        request.url = url;
        request.retrySafe = true;
        request.cancel = m_reads;
        return request;
    };
    ListPage<View> all;
    QString token;
    bool restarted = false;
    Http::HttpRequest request = pageRequest(token);
    auto response = co_await send(request, "list", resource);
    for (;;) {
        if (!response) {
            // The continue token expired (the list took longer than the server keeps it): the
            // pages so far may be stale, so start again, once.
            if (response.error().httpStatus == 410 && !token.isEmpty() && !restarted) {
                restarted = true;
                token.clear();
                all = {};
                request = pageRequest(token);
                response = co_await send(request, "list", resource);
                continue;
            }
            co_return fail(response.error());
        }
        // Parsing 500 objects takes milliseconds: on a worker thread, while the next page is
        // on its way.
        auto parsed = std::make_shared<Result<ListPage<View>>>(fail(Error::backend(QString())));
        const std::optional<QString> next = peekContinue(response->body);
        // The page's only holder is the parse, so it parses the page in place without a copy.
        QFuture<void> parsing = QtConcurrent::run(
            [parsed, body = std::move(response->body), parse]() mutable { *parsed = parse(std::move(body)); });
        std::optional<QCoro::Task<Result<Http::HttpResponse>>> fetching;
        if (next && !next->isEmpty()) {
            request = pageRequest(*next);
            fetching.emplace(send(request, "list", resource));
        }
        const bool open = co_await m_http->waitFor(std::move(parsing));
        // A request that was started is always waited for.
        if (fetching)
            response = co_await std::move(*fetching);
        if (!open)
            co_return fail(Http::HttpClient::closedError());
        if (!*parsed)
            co_return fail(parsed->error());
        ListPage<View> &page = **parsed;
        all.items.append(std::move(page.items));
        all.resourceVersion = page.resourceVersion;
        token = page.continueToken;
        if (token.isEmpty())
            break;
        if (!fetching) {
            request = pageRequest(token);
            response = co_await send(request, "list", resource);
        }
    }
    co_return all;
}

QCoro::Task<Result<ListPage<PodView>>> KubeClient::listPods(QString labelSelector, int pageSize)
{
    co_return co_await listAll<PodView>("pods", labelSelector, pageSize, parsePodList);
}

QCoro::Task<Result<ListPage<PvcView>>> KubeClient::listPvcs(QString labelSelector, int pageSize)
{
    co_return co_await listAll<PvcView>("persistentvolumeclaims", labelSelector, pageSize, parsePvcList);
}

QCoro::Task<Result<WatchOutcome>> KubeClient::watch(Resource resource, QString labelSelector, QString resourceVersion,
                                                    std::chrono::seconds timeout,
                                                    std::function<void(const WatchEvent &)> onEvent,
                                                    std::shared_ptr<CancelToken> cancel, std::function<void()> onOpened)
{
    const QString path = resource == Resource::Pods ? QStringLiteral("pods") : QStringLiteral("persistentvolumeclaims");
    QString query = QStringLiteral("watch=true&allowWatchBookmarks=true&timeoutSeconds=%1").arg(timeout.count());
    if (!resourceVersion.isEmpty())
        query += QStringLiteral("&resourceVersion=") + percentEncoded(resourceVersion);
    if (!labelSelector.isEmpty())
        query += QStringLiteral("&labelSelector=") + percentEncoded(labelSelector);
    Http::HttpRequest request;
    QUrl url = namespacedUrl(path);
    url.setQuery(query, QUrl::StrictMode);
    request.url = url;
    request.transferTimeout = std::chrono::milliseconds(0);
    if (auto authorized = co_await authorize(request); !authorized)
        co_return fail(authorized.error());

    WatchOutcome outcome;
    outcome.resourceVersion = resourceVersion;
    QByteArray pending;
    const ObjectKind kind = resource == Resource::Pods ? ObjectKind::Pod : ObjectKind::Pvc;
    const std::function<void(QByteArrayView)> onData = [&](QByteArrayView data) {
        pending.append(data.data(), data.size());
        qsizetype start = 0;
        for (;;) {
            const qsizetype end = pending.indexOf('\n', start);
            if (end < 0)
                break;
            const QByteArrayView line = QByteArrayView(pending).sliced(start, end - start).trimmed();
            start = end + 1;
            if (line.isEmpty())
                continue;
            auto event = parseWatchEvent(line, kind);
            if (!event) {
                qCWarning(lcKubeClient) << "an unreadable watch event was skipped";
                continue;
            }
            if (event->type == WatchEvent::Type::Error) {
                if (event->errorCode == 410)
                    outcome.expired = true;
                else
                    qCWarning(lcKubeClient).noquote() << "watch error" << event->errorCode << event->errorMessage;
                continue;
            }
            if (!event->resourceVersion.isEmpty())
                outcome.resourceVersion = event->resourceVersion;
            if (event->type != WatchEvent::Type::Bookmark && onEvent)
                onEvent(*event);
        }
        pending.remove(0, start);
    };
    auto streamed = co_await m_http->stream(request, onData, cancel, onOpened);
    if (!streamed) {
        if (streamed.error().httpStatus == 410) {
            outcome.expired = true;
            co_return outcome;
        }
        co_return fail(explain(streamed.error(), QStringLiteral("watch"), path));
    }
    co_return outcome;
}

QCoro::Task<Result<QByteArray>> KubeClient::podLog(QString name, int tail)
{
    Http::HttpRequest request;
    QUrl url = namespacedUrl(QStringLiteral("pods/%1/log").arg(name));
    url.setQuery(QStringLiteral("container=%1&tailLines=%2&timestamps=true").arg(ContainerName).arg(tail));
    request.url = url;
    request.accept = "text/plain, application/json";
    request.retrySafe = true;
    auto response = co_await send(request, "get", "pods/log");
    if (!response)
        co_return fail(response.error());
    co_return response->body;
}

QCoro::Task<Result<QByteArray>> KubeClient::podMetrics(QString labelSelector)
{
    Http::HttpRequest request;
    QUrl url = m_target.connection.server;
    QString base = url.path();
    if (base.endsWith(u'/'))
        base.chop(1);
    url.setPath(base + QStringLiteral("/apis/metrics.k8s.io/v1beta1/namespaces/") + m_target.ns
                + QStringLiteral("/pods"));
    if (!labelSelector.isEmpty())
        url.setQuery(QStringLiteral("labelSelector=") + percentEncoded(labelSelector));
    request.url = url;
    request.retrySafe = true;
    auto response = co_await send(request, "list", "pods.metrics.k8s.io");
    if (!response)
        co_return fail(response.error());
    QByteArray body = response->body;
    co_return body;
}

QCoro::Task<Result<>> KubeClient::followPodLog(QString name, int tail, std::function<void(QByteArrayView)> onData,
                                               std::shared_ptr<CancelToken> cancel)
{
    Http::HttpRequest request;
    QUrl url = namespacedUrl(QStringLiteral("pods/%1/log").arg(name));
    url.setQuery(QStringLiteral("container=%1&follow=true&tailLines=%2&timestamps=true").arg(ContainerName).arg(tail));
    request.url = url;
    request.accept = "text/plain, application/json";
    request.transferTimeout = std::chrono::milliseconds(0);
    if (auto authorized = co_await authorize(request); !authorized)
        co_return fail(authorized.error());
    auto streamed = co_await m_http->stream(request, std::move(onData), std::move(cancel));
    if (!streamed)
        co_return fail(explain(streamed.error(), QStringLiteral("get"), QStringLiteral("pods/log")));
    co_return Result<>{};
}

QCoro::Task<Result<QNetworkRequest>> KubeClient::execRequest(QString name)
{
    QNetworkRequest request(namespacedUrl(QStringLiteral("pods/%1/exec").arg(name)));
    m_target.connection.prepare(request);
    const std::shared_ptr<Credentials> credentials = m_target.connection.credentials;
    if (!credentials)
        co_return request;
    auto authorization = co_await credentials->authorization();
    if (m_http->isClosing())
        co_return fail(Http::HttpClient::closedError());
    if (!authorization)
        co_return fail(authorization.error());
    m_used = *authorization;
    if (auto applied = authorization->applyTo(request); !applied)
        co_return fail(applied.error());
    co_return request;
}

} // namespace Paddock::Kubernetes
