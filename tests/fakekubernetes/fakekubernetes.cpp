// The server: start and stop, authentication, RBAC refusals, latency and injected failures,
// routing, the test-only /_fake routes, and the kubeconfig it writes.

#include "fakekubernetes.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <QSslKey>
#include <QTemporaryDir>
#include <QWebSocket>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace PaddockFake::Kube {

namespace {

const QString UserName = u"paddock-fake-user"_s;

HttpResponse plainNotFound()
{
    return HttpResponse::text(404, "404 page not found\n", "text/plain; charset=utf-8");
}

QByteArray yamlQuoted(const QString &text)
{
    QByteArray out = "\"";
    for (const char c : text.toUtf8()) {
        if (c == '"' || c == '\\')
            out += '\\';
        out += c;
    }
    return out + '"';
}

} // namespace

QByteArray Version::withType() const
{
    QByteArray head;
    switch (kind) {
    case Kind::Namespace:
        head = R"({"kind":"Namespace","apiVersion":"v1")";
        break;
    case Kind::Pod:
        head = R"({"kind":"Pod","apiVersion":"v1")";
        break;
    case Kind::Pvc:
        head = R"({"kind":"PersistentVolumeClaim","apiVersion":"v1")";
        break;
    }
    if (json.size() > 2)
        return head + ',' + json.mid(1);
    return head + '}';
}

FakeKubernetes::FakeKubernetes(Options options, QObject *parent)
    : QObject(parent)
    , m_options(std::move(options))
    , m_websockets({u"v5.channel.k8s.io"_s, u"v4.channel.k8s.io"_s})
    , m_rng(m_options.failSeed)
{
    HttpServerSettings settings;
    settings.requestIdHeader = "Audit-Id";
    settings.commonHeaders = {{"Cache-Control", "no-cache, private"}};
    settings.refusal = [](int status, const QByteArray &message) {
        return HttpResponse::text(status, QByteArray::number(status) + ' ' + reasonPhrase(status) + ": " + message,
                                  "text/plain; charset=utf-8");
    };
    m_http.setSettings(settings);
    m_http.setHandler([this](HttpConnection *c, const HttpRequest &r) { onRequest(c, r); });
    m_http.setRecordAs("api"); // exec, attach and log upgrades included: they are API requests
}

FakeKubernetes::~FakeKubernetes()
{
    shutdown();
}

QString FakeKubernetes::baseUrl() const
{
    return u"%1://127.0.0.1:%2"_s.arg(m_options.tls ? u"https"_s : u"http"_s).arg(port());
}

bool FakeKubernetes::start(QString *error)
{
    if (m_options.bubblewrap) {
        QString why;
        const QString bwrap = findBubblewrap(&why);
        if (bwrap.isEmpty() || !(why = PersistentSandbox::probe(bwrap)).isEmpty()) {
            *error = why
                + u"; install bubblewrap (and util-linux), or pass --no-bwrap to run commands unconfined "
                  "on this machine (unsafe)"_s;
            return false;
        }
        m_bubblewrapPath = bwrap;
    }
    if (m_options.dataDir.isEmpty()) {
        m_tempDir = std::make_unique<QTemporaryDir>(QDir::tempPath() + u"/paddock-fake-kubernetes-XXXXXX"_s);
        if (!m_tempDir->isValid()) {
            *error = u"cannot create a temporary data directory: "_s + m_tempDir->errorString();
            return false;
        }
        m_dataDir = m_tempDir->path();
    } else {
        m_dataDir = QDir(m_options.dataDir).absolutePath();
    }
    for (const char *sub : {"tls", "pods", "volumes"}) {
        if (!QDir().mkpath(m_dataDir + u'/' + QLatin1StringView(sub))) {
            *error = u"cannot create %1/%2"_s.arg(m_dataDir, QLatin1StringView(sub));
            return false;
        }
    }

    QFile openApi(u":/fakekubernetes/api__v1_openapi.json"_s);
    if (!openApi.open(QIODevice::ReadOnly)) {
        *error = u"the core/v1 OpenAPI document is missing from the executable"_s;
        return false;
    }
    m_openApiBytes = openApi.readAll();
    m_openApiHash = QCryptographicHash::hash(m_openApiBytes, QCryptographicHash::Sha512).toHex().toUpper();
    m_schemas.load(QJsonDocument::fromJson(m_openApiBytes).object());

    if (m_options.tls) {
        if (!Certificates::loadOrGenerate(m_dataDir + u"/tls"_s, &m_certificates, error))
            return false;
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        tls.setLocalCertificate(QSslCertificate(m_certificates.serverCertPem));
        tls.setPrivateKey(QSslKey(m_certificates.serverKeyPem, QSsl::Ec));
        tls.setCaCertificates(QSslCertificate::fromData(m_certificates.caPem));
        // Ask for a client certificate without requiring one (Go's VerifyClientCertIfGiven).
        tls.setPeerVerifyMode(QSslSocket::QueryPeer);
        m_http.setTls(tls);
        m_clientCertDigest = QSslCertificate(m_certificates.clientCertPem).digest(QCryptographicHash::Sha256);
    }

    // A data folder of its own holds the state of the last run (persistence.cpp).
    if (!m_options.dataDir.isEmpty() && !loadState(error))
        return false;
    for (const QString &name : {u"default"_s, u"kube-system"_s, u"kube-public"_s, u"kube-node-lease"_s}) {
        if (!find(Kind::Namespace, QString(), name))
            makeNamespace(name);
    }
    for (const QString &name : std::as_const(m_options.namespaces)) {
        if (!name.isEmpty() && !find(Kind::Namespace, QString(), name))
            makeNamespace(name);
    }
    if (m_options.seed > 0 && !m_loaded) {
        if (!find(Kind::Namespace, QString(), m_options.seedNamespace))
            makeNamespace(m_options.seedNamespace);
        seed(m_options.seed);
    }
    // What was made before the server listened is not in the watch history; nor is what happened
    // before a restart (as an API server's watch cache starts at the current resourceVersion).
    m_history.clear();
    m_historyFloor = m_rv;
    if (m_loaded)
        resumeLoaded();
    m_persist = !m_options.dataDir.isEmpty();
    persist();

    if (!m_http.listen(m_options.port, error))
        return false;
    return m_options.kubeconfigPath.isEmpty() || writeKubeconfig(error);
}

void FakeKubernetes::shutdown()
{
    if (m_stopped)
        return;
    m_stopped = true;
    m_http.close();
    m_websockets.close();
    for (Watcher *watcher : std::vector<Watcher *>(m_watchers))
        endWatch(watcher);
    // A kept data folder keeps the Pods' folders (and state.json, written as it is) for the next
    // start; their containers and commands end here.
    persist();
    m_persist = false;
    const bool keepFiles = !m_options.dataDir.isEmpty();
    for (auto &[key, entry] : table(Kind::Pod)) {
        if (entry.pod)
            destroyPodState(entry.pod, !keepFiles);
        entry.pod = nullptr;
    }
}

QByteArray FakeKubernetes::kubeconfig() const
{
    const QByteArray ns = yamlQuoted(m_options.seedNamespace);
    QByteArray out = "apiVersion: v1\nkind: Config\nclusters:\n- name: paddock-fake\n  cluster:\n    server: "
        + baseUrl().toUtf8() + "\n";
    if (m_options.tls)
        out += "    certificate-authority-data: " + m_certificates.caPem.toBase64() + "\n";
    out += "contexts:\n- name: paddock-fake\n  context:\n    cluster: paddock-fake\n    user: paddock-fake\n"
           "    namespace: "
        + ns + "\n";
    if (m_options.tls) {
        out += "- name: paddock-fake-cert\n  context:\n    cluster: paddock-fake\n    user: paddock-fake-cert\n"
               "    namespace: "
            + ns + "\n";
    }
    out += "current-context: paddock-fake\nusers:\n- name: paddock-fake\n";
    if (m_options.token.isEmpty())
        out += "  user: {}\n";
    else
        out += "  user:\n    token: " + yamlQuoted(m_options.token) + "\n";
    if (m_options.tls) {
        out += "- name: paddock-fake-cert\n  user:\n    client-certificate-data: "
            + m_certificates.clientCertPem.toBase64()
            + "\n    client-key-data: " + m_certificates.clientKeyPem.toBase64() + "\n";
    }
    return out + "preferences: {}\n";
}

bool FakeKubernetes::writeKubeconfig(QString *error) const
{
    QSaveFile file(m_options.kubeconfigPath);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = u"cannot write %1: %2"_s.arg(m_options.kubeconfigPath, file.errorString());
        return false;
    }
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    file.write(kubeconfig());
    if (!file.commit()) {
        *error = u"cannot write %1: %2"_s.arg(m_options.kubeconfigPath, file.errorString());
        return false;
    }
    return true;
}

bool FakeKubernetes::authenticated(HttpConnection *connection, const HttpRequest &request) const
{
    if (m_options.token.isEmpty())
        return true;
    const QByteArray authorization = request.header("authorization");
    if (authorization.size() > 7 && authorization.left(7).toLower() == "bearer "
        && QString::fromUtf8(authorization.mid(7).trimmed()) == m_options.token)
        return true;
    if (!m_clientCertDigest.isEmpty() && connection->isEncrypted()) {
        const QSslCertificate peer = connection->peerCertificate();
        return !peer.isNull() && peer.digest(QCryptographicHash::Sha256) == m_clientCertDigest;
    }
    return false;
}

void FakeKubernetes::count(const QString &verb, const QString &resource)
{
    ++m_stats.byVerb[verb + u' ' + resource];
}

std::optional<StatusError> FakeKubernetes::refusedByRbac(const QString &verb, const QString &resource,
                                                         const QString &ns, const QString &name) const
{
    if (!m_options.forbidden.contains(verb + u' ' + resource))
        return std::nullopt;
    const QString base = resource.section(u'/', 0, 0);
    const QString subject = name.isEmpty() ? base : u"%1 \"%2\""_s.arg(base, name);
    const QString scope = ns.isEmpty() ? u"at the cluster scope"_s : u"in the namespace \"%1\""_s.arg(ns);
    StatusError error = forbidden(u"%1 is forbidden: User \"%2\" cannot %3 resource \"%4\" in API group \"\" %5"_s.arg(
        subject, UserName, verb, resource, scope));
    error.name = name;
    error.kind = base;
    return error;
}

FakeKubernetes::Injection FakeKubernetes::drawInjection()
{
    if (m_options.failRate <= 0)
        return Injection::None;
    std::uniform_real_distribution<double> coin(0.0, 1.0);
    if (coin(m_rng) >= m_options.failRate)
        return Injection::None;
    std::uniform_int_distribution<int> pick(0, 4);
    switch (pick(m_rng)) {
    case 0:
        return Injection::Status429;
    case 1:
        return Injection::Status500;
    case 2:
        return Injection::Status503;
    case 3:
        return Injection::DropHandled;
    default:
        return Injection::DropUnhandled;
    }
}

void FakeKubernetes::onRequest(HttpConnection *connection, const HttpRequest &request)
{
    // The test-only routes are not the API: a call of /_fake/stats does not count itself.
    if (request.path.startsWith("/_fake/")) {
        handleFake(connection, request);
        return;
    }
    ++m_stats.requests;
    if (m_options.verbose) {
        QByteArray line = request.method + ' ' + request.target;
        for (const char *name : {"accept", "content-type", "user-agent", "sec-websocket-protocol", "upgrade"}) {
            if (request.hasHeader(name))
                line += QByteArray(" [") + name + ": " + request.header(name) + ']';
        }
        qInfo("%s", line.constData());
    }
    if (!authenticated(connection, request)) {
        connection->send(unauthorized().response());
        return;
    }
    if (m_options.latencyMs > 0) {
        const QPointer<HttpConnection> guard(connection);
        QTimer::singleShot(m_options.latencyMs, this, [this, guard, request] {
            if (guard && !guard->isGone())
                handle(guard, request);
        });
        return;
    }
    handle(connection, request);
}

FakeKubernetes::Injection FakeKubernetes::scriptedInjection(const HttpRequest &request)
{
    for (qsizetype i = 0; i < m_scripted.size(); ++i) {
        if (m_scripted.at(i).method == request.method && request.path.startsWith(m_scripted.at(i).pathPrefix))
            return m_scripted.takeAt(i).injection;
    }
    return Injection::None;
}

void FakeKubernetes::handle(HttpConnection *connection, const HttpRequest &request)
{
    const Injection scripted = scriptedInjection(request);
    switch (scripted != Injection::None ? scripted : drawInjection()) {
    case Injection::None:
        break;
    case Injection::Status429: {
        StatusError error;
        error.code = 429;
        error.reason = u"TooManyRequests"_s;
        error.message = u"Too many requests, please try again later."_s;
        error.retryAfterSeconds = 1;
        connection->send(error.response());
        return;
    }
    case Injection::Status500:
        connection->send(internalError(u"injected failure"_s).response());
        return;
    case Injection::Status503: {
        StatusError error;
        error.code = 503;
        error.reason = u"ServiceUnavailable"_s;
        error.message = u"the server is currently unable to handle the request (injected failure)"_s;
        connection->send(error.response());
        return;
    }
    case Injection::DropUnhandled:
        connection->abort();
        return;
    case Injection::DropHandled: {
        // Carried out, then the connection drops before the answer leaves.
        const QPointer<HttpConnection> guard(connection);
        route(connection, request);
        if (guard)
            guard->abort();
        return;
    }
    }
    route(connection, request);
}

void FakeKubernetes::route(HttpConnection *connection, const HttpRequest &request)
{
    const QByteArray &method = request.method;
    const QByteArray &path = request.path;
    const auto getOnly = [&](const HttpResponse &response) {
        connection->send(method == "GET" ? response : methodNotAllowed().response());
    };
    if (path == "/version" || path == "/version/") {
        count(u"get"_s, u"/version"_s);
        return getOnly(version());
    }
    if (path == "/healthz" || path == "/livez" || path == "/readyz")
        return getOnly(HttpResponse::text(200, "ok", "text/plain; charset=utf-8"));
    if (path == "/api" || path == "/api/") {
        count(u"get"_s, u"/api"_s);
        return getOnly(coreGroup(request));
    }
    if (path == "/apis" || path == "/apis/") {
        count(u"get"_s, u"/apis"_s);
        return getOnly(groups(request));
    }
    if (path == "/api/v1" || path == "/api/v1/") {
        count(u"get"_s, u"/api/v1"_s);
        return getOnly(resourceList());
    }
    if (path == "/openapi/v3" || path == "/openapi/v3/") {
        count(u"get"_s, u"/openapi/v3"_s);
        return getOnly(openApiRoot());
    }
    if (path == "/openapi/v3/api/v1") {
        count(u"get"_s, u"/openapi/v3/api/v1"_s);
        return getOnly(openApiDocument(request));
    }
    const QStringList segments = request.pathSegments();
    if (m_options.metricsApi && segments.size() >= 2 && segments.at(0) == u"apis"_s
        && segments.at(1) == u"metrics.k8s.io"_s)
        return metricsRoute(connection, request, segments);
    if (segments.size() < 3 || segments.at(0) != u"api"_s || segments.at(1) != u"v1") {
        count(u"get"_s, u"other"_s);
        return connection->send(plainNotFound());
    }
    const QStringList rest = segments.mid(2);
    const auto notFoundResource = [&] {
        StatusError error;
        error.code = 404;
        error.reason = u"NotFound"_s;
        error.message = u"the server could not find the requested resource"_s;
        error.hasDetails = true;
        connection->send(error.response());
    };
    const auto resourceKind = [](const QString &name) -> std::optional<Kind> {
        if (name == u"pods"_s)
            return Kind::Pod;
        if (name == u"persistentvolumeclaims"_s)
            return Kind::Pvc;
        if (name == u"namespaces"_s)
            return Kind::Namespace;
        return std::nullopt;
    };
    // Collections: /api/v1/<resource> (every namespace) and /api/v1/namespaces/<ns>/<resource>.
    QString ns;
    QString resource;
    QString name;
    QString subresource;
    if (rest.at(0) == u"namespaces"_s && rest.size() >= 3) {
        ns = rest.at(1);
        resource = rest.at(2);
        name = rest.value(3);
        subresource = rest.value(4);
        if (rest.size() > 5 || (rest.size() >= 4 && name.isEmpty()))
            return notFoundResource();
    } else if (rest.at(0) == u"namespaces"_s) {
        resource = u"namespaces"_s;
        name = rest.value(1);
    } else {
        resource = rest.at(0);
        if (rest.size() > 1)
            return notFoundResource(); // cluster-wide reads only
    }
    if (resource == u"events"_s && name.isEmpty() && method == "GET" && !queryBool(request, u"watch"_s)) {
        // No events are recorded; `kubectl describe` lists them and shows none.
        count(u"list"_s, resource);
        return connection->send(
            HttpResponse::json(200,
                               R"({"kind":"EventList","apiVersion":"v1","metadata":{"resourceVersion":")"
                                   + QByteArray::number(m_rv) + R"("},"items":[]})"));
    }
    const std::optional<Kind> kind = resourceKind(resource);
    if (!kind || (*kind == Kind::Namespace && !ns.isEmpty()))
        return notFoundResource();
    const bool collection = name.isEmpty();
    const bool watch = collection && method == "GET" && queryBool(request, u"watch"_s);
    QString verb;
    if (method == "GET")
        verb = collection ? (watch ? u"watch"_s : u"list"_s) : u"get"_s;
    else if (method == "POST")
        verb = u"create"_s;
    else if (method == "DELETE")
        verb = u"delete"_s;
    else if (method == "PUT")
        verb = u"update"_s;
    else if (method == "PATCH")
        verb = u"patch"_s;
    else
        verb = QString::fromLatin1(method).toLower();
    const QString fullResource = subresource.isEmpty() ? resource : resource + u'/' + subresource;
    count(verb, fullResource);
    if (std::optional<StatusError> refusal = refusedByRbac(verb, fullResource, ns, name))
        return connection->send(refusal->response());
    // The websocket exec is a GET, which also needs `create` (AuthorizePodWebsocketUpgradeCreatePermission,
    // on by default since 1.31).
    if (fullResource == u"pods/exec"_s && verb == u"get"_s) {
        if (std::optional<StatusError> refusal = refusedByRbac(u"create"_s, fullResource, ns, name))
            return connection->send(refusal->response());
    }

    if (!subresource.isEmpty()) {
        if (*kind == Kind::Pod && subresource == u"exec"_s && (method == "GET" || method == "POST"))
            return exec(connection, request, ns, name);
        if (*kind == Kind::Pod && subresource == u"log"_s && method == "GET")
            return logs(connection, request, ns, name);
        if (subresource == u"status"_s && method == "GET")
            return getObject(connection, request, *kind, ns, name);
        if (subresource == u"exec"_s || subresource == u"log"_s || subresource == u"status"_s)
            return connection->send(methodNotAllowed().response());
        return notFoundResource();
    }
    if (collection) {
        if (method == "GET")
            return watch ? watchObjects(connection, request, *kind, ns) : listObjects(connection, request, *kind, ns);
        if (method == "POST" && (!ns.isEmpty() || *kind == Kind::Namespace))
            return createObject(connection, request, *kind, ns);
        return connection->send(methodNotAllowed().response());
    }
    if (method == "GET")
        return getObject(connection, request, *kind, ns, name);
    if (method == "DELETE" && *kind != Kind::Namespace)
        return deleteObject(connection, request, *kind, ns, name);
    connection->send(methodNotAllowed().response());
}

QJsonObject FakeKubernetes::statsJson() const
{
    QJsonObject byVerb;
    for (auto it = m_stats.byVerb.begin(); it != m_stats.byVerb.end(); ++it)
        byVerb.insert(it.key(), it.value());
    int execs = 0;
    for (const auto &[key, entry] : m_objects[static_cast<int>(Kind::Pod)]) {
        if (entry.pod)
            execs +=
                static_cast<int>(std::count_if(entry.pod->execs.begin(), entry.pod->execs.end(),
                                               [](const QPointer<QObject> &session) { return !session.isNull(); }));
    }
    return QJsonObject{
        {u"requests"_s, m_stats.requests},
        {u"byVerb"_s, byVerb},
        {u"watches"_s, static_cast<qint64>(m_watchers.size())},
        {u"execs"_s, execs},
        {u"resourceVersion"_s, QString::number(m_rv)},
        {u"historyFloor"_s, QString::number(m_historyFloor)},
        {u"namespaces"_s, static_cast<qint64>(m_objects[static_cast<int>(Kind::Namespace)].size())},
        {u"pods"_s, static_cast<qint64>(m_objects[static_cast<int>(Kind::Pod)].size())},
        {u"persistentVolumeClaims"_s, static_cast<qint64>(m_objects[static_cast<int>(Kind::Pvc)].size())}};
}

void FakeKubernetes::handleFake(HttpConnection *connection, const HttpRequest &request)
{
    const QStringList segments = request.pathSegments().mid(1); // after "_fake"
    const QByteArray &method = request.method;
    const auto json = [&](const QJsonObject &object) { connection->send(HttpResponse::json(200, object)); };
    const auto missing = [&](const QString &what) {
        connection->send(HttpResponse::json(404, QJsonObject{{u"error"_s, QString(what + u" not found"_s)}}));
    };
    const QString first = segments.value(0);
    if (first == u"stats"_s && method == "GET")
        return json(statsJson());
    if (first == u"reset-stats"_s && method == "POST") {
        m_stats = Stats();
        return json(statsJson());
    }
    if (first == u"info"_s && method == "GET") {
        return json(QJsonObject{{u"url"_s, baseUrl()},
                                {u"port"_s, port()},
                                {u"dataDir"_s, m_dataDir},
                                {u"caFile"_s, m_options.tls ? m_certificates.caFile() : QString()},
                                {u"kubeconfig"_s, m_options.kubeconfigPath},
                                {u"bubblewrap"_s, m_options.bubblewrap},
                                {u"resourceVersion"_s, QString::number(m_rv)},
                                {u"historyFloor"_s, QString::number(m_historyFloor)}});
    }
    if (first == u"compact"_s && method == "POST") {
        // Every resourceVersion before now is too old: watches from it get 410, and so do
        // continue tokens.
        m_history.clear();
        m_historyFloor = m_rv;
        m_snapshots.clear();
        return json(statsJson());
    }
    if (first == u"inject"_s && method == "POST") {
        static const QHash<QString, Injection> names{{u"429"_s, Injection::Status429},
                                                     {u"500"_s, Injection::Status500},
                                                     {u"503"_s, Injection::Status503},
                                                     {u"drop-handled"_s, Injection::DropHandled},
                                                     {u"drop-unhandled"_s, Injection::DropUnhandled}};
        const QJsonObject body = QJsonDocument::fromJson(request.body).object();
        ScriptedInjection scripted{body.value(u"method"_s).toString().toLatin1(),
                                   body.value(u"pathPrefix"_s).toString().toUtf8(),
                                   names.value(body.value(u"injection"_s).toString(), Injection::None)};
        if (scripted.method.isEmpty() || !scripted.pathPrefix.startsWith('/')
            || scripted.injection == Injection::None) {
            return connection->send(
                HttpResponse::json(400,
                                   QJsonObject{{u"error"_s,
                                                u"want {method, pathPrefix, injection: 429|500|503|drop-handled|"
                                                "drop-unhandled, count}"_s}}));
        }
        for (int i = 0, count = std::max(1, body.value(u"count"_s).toInt(1)); i < count; ++i)
            m_scripted.append(scripted);
        return json(QJsonObject{{u"pending"_s, int(m_scripted.size())}});
    }
    if (first == u"forbid"_s && method == "POST") {
        QStringList rules;
        for (const QJsonValue &rule : QJsonDocument::fromJson(request.body).object().value(u"rules"_s).toArray())
            rules.append(rule.toString());
        m_options.forbidden = rules;
        return json(QJsonObject{{u"rules"_s, QJsonArray::fromStringList(rules)}});
    }
    if (first == u"pvcs"_s && segments.size() == 3 && method == "GET") {
        const Entry *entry = find(Kind::Pvc, segments.at(1), segments.at(2));
        if (!entry)
            return missing(u"PVC"_s);
        return json(QJsonObject{{u"hostPath"_s, entry->volumeDir}});
    }
    if (first == u"pods"_s && segments.size() >= 3) {
        const QString ns = segments.at(1);
        const QString name = segments.at(2);
        Entry *entry = find(Kind::Pod, ns, name);
        if (!entry || !entry->pod)
            return missing(u"Pod"_s);
        PodState *pod = entry->pod;
        const QString action = segments.value(3);
        if (action.isEmpty() && method == "GET") {
            QJsonObject volumes;
            for (const SandboxBind &bind : podBinds(*entry->current, pod))
                volumes.insert(bind.sandboxPath, bind.hostPath);
            return json(QJsonObject{{u"uid"_s, pod->uid},
                                    {u"podDir"_s, pod->dir},
                                    {u"mounts"_s, volumes},
                                    {u"containerRunning"_s,
                                     (pod->sandbox && pod->sandbox->isRunning())
                                         || (pod->process && pod->process->state() != QProcess::NotRunning)},
                                    {u"execs"_s,
                                     static_cast<qint64>(std::count_if(
                                         pod->execs.begin(), pod->execs.end(),
                                         [](const QPointer<QObject> &session) { return !session.isNull(); }))},
                                    {u"logLines"_s, static_cast<qint64>(pod->log.size())}});
        }
        if (action == u"log"_s && method == "POST") {
            controlLog(ns, name, request.queryValue(u"stream"_s).value_or(QString()) == u"stderr"_s, request.body);
            return json(QJsonObject{{u"logLines"_s, static_cast<qint64>(pod->log.size())}});
        }
        if (action == u"status"_s && method == "POST") {
            const QJsonObject patch = QJsonDocument::fromJson(request.body).object();
            pod->frozen = true;
            pod->kubelet.stop();
            const VersionPtr changed = modify(Kind::Pod, ns, name, [&](QJsonObject &object) {
                QJsonObject status = object.value(u"status"_s).toObject();
                for (auto it = patch.begin(); it != patch.end(); ++it) {
                    if (it.value().isNull())
                        status.remove(it.key());
                    else
                        status.insert(it.key(), it.value());
                }
                object.insert(u"status"_s, status);
            });
            return connection->send(HttpResponse::json(200, changed->withType()));
        }
        if (action == u"crash"_s && method == "POST") {
            bool ok = false;
            const int code = request.queryValue(u"exitCode"_s).value_or(u"1"_s).toInt(&ok);
            if (pod->sandbox)
                pod->sandbox->kill();
            if (pod->process) {
                pod->process->disconnect(); // its end is the crash below, not a second one
                killProcessGroup(pod->process->processId());
                pod->process->waitForFinished(2000);
            }
            containerExited(entry->current->key, ok ? code : 1);
            const Entry *after = find(Kind::Pod, ns, name);
            return connection->send(HttpResponse::json(200, after ? after->current->withType() : QByteArray("{}")));
        }
    }
    connection->send(HttpResponse::json(404, QJsonObject{{u"error"_s, u"unknown test route"_s}}));
}

} // namespace PaddockFake::Kube
