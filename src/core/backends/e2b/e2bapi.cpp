#include "e2bapi.h"

#include "../../json/ondemand.h"
#include "../../tr.h"

#include <QCoroTask>

#include <QFuture>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string_view>

#ifdef Q_OS_LINUX
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace Paddock::E2B {

namespace {

// The domains whose sandboxes are reached through `https://sandbox.<domain>` with routing
// headers (JS ConnectionConfig.getSandboxUrl); others through `https://49983-<id>.<domain>`.
bool hasSandboxProxy(const QString &domain)
{
    return domain == QLatin1String("e2b.app") || domain == QLatin1String("e2b.dev")
        || domain == QLatin1String("e2b.pro") || domain == QLatin1String("e2b-staging.dev");
}

SandboxState stateOf(const QString &state)
{
    if (state == QLatin1String("running"))
        return SandboxState::Running;
    if (state == QLatin1String("paused") || state == QLatin1String("pausing"))
        return SandboxState::Paused;
    return state.isEmpty() ? SandboxState::Running : SandboxState::Unknown;
}

// The metadata values that are one sandbox's own (its workspace and session ids): read as they
// are instead of through the document's table of repeated strings, which they would only fill.
constexpr std::string_view WorkspaceIdKeyBytes(WorkspaceIdKey.data(), size_t(WorkspaceIdKey.size()));
constexpr std::string_view UserIdKeyBytes(UserIdKey.data(), size_t(UserIdKey.size()));
constexpr std::string_view AgentIdKeyBytes(AgentIdKey.data(), size_t(AgentIdKey.size()));

bool ownValue(std::string_view key)
{
    return key == WorkspaceIdKeyBytes || key == std::string_view("agentscope.session.id");
}

// The metadata keys AgentScope writes, as QStrings whose copies touch no reference count.
const QString &workspaceIdKeyText()
{
    static const QString key = QStringLiteral("agentscope.workspace.id");
    Q_ASSERT(key == WorkspaceIdKey);
    return key;
}
const QString &userIdKeyText()
{
    static const QString key = QStringLiteral("agentscope.user.id");
    Q_ASSERT(key == UserIdKey);
    return key;
}
const QString &agentIdKeyText()
{
    static const QString key = QStringLiteral("agentscope.agent.id");
    Q_ASSERT(key == AgentIdKey);
    return key;
}

// A sandbox's metadata, made as a std::map and handed to the QMap whole: keys in the order they
// come (the server sends them sorted, so each goes in after the last with one comparison; a
// wrong hint costs only a search), without QMap's detaching for each. AgentScope's keys are
// recognised as written (no unescaping) and the ids the record keeps are taken as they go by,
// not looked up again.
void readMetadata(Json::Reader &r, Json::od::value &value, SandboxInfo &info)
{
    Json::od::object object;
    if (value.get_object().get(object))
        return;
    std::map<QString, QString> map;
    for (auto entry : object) {
        Json::od::field field;
        if (std::move(entry).get(field)) {
            r.failed = true;
            return;
        }
        const Json::od::raw_json_string rawName = field.key();
        Json::od::value content = field.value();
        if (rawName == WorkspaceIdKeyBytes) {
            info.workspaceId = r.string(content);
            map.insert_or_assign(map.cend(), workspaceIdKeyText(), info.workspaceId);
        } else if (rawName == UserIdKeyBytes) {
            info.userId = r.shared(content);
            map.insert_or_assign(map.cend(), userIdKeyText(), info.userId);
        } else if (rawName == AgentIdKeyBytes) {
            info.agentId = r.shared(content);
            map.insert_or_assign(map.cend(), agentIdKeyText(), info.agentId);
        } else {
            std::string_view name;
            if (field.unescaped_key().get(name)) {
                r.failed = true;
                return;
            }
            QString text = ownValue(name) ? r.string(content) : r.shared(content);
            // An escaped spelling of one of AgentScope's keys is still that key.
            if (name == WorkspaceIdKeyBytes)
                info.workspaceId = text;
            else if (name == UserIdKeyBytes)
                info.userId = text;
            else if (name == AgentIdKeyBytes)
                info.agentId = text;
            map.insert_or_assign(map.cend(), r.shared(name), std::move(text));
        }
    }
    info.metadata = QMap<QString, QString>(std::move(map));
}

// A listed sandbox's member: only what a listing keeps (the SandboxInfo, and the template and
// times it is made from). The rest of a record (cpu, memory, disk, envd's version, the domain,
// the lifecycle) is for one sandbox's details, read by readMember from its GET; a listing of
// 10,000 skips it unread. The first letter of the name picks the one or three names to compare
// it with (a listing of 10,000 has 130,000 members).
void readListedMember(Json::Reader &r, Json::od::raw_json_string key, Json::od::value &value, SandboxInfo &info,
                      SandboxRecord &record)
{
    switch (key.raw()[0]) {
    case 's':
        if (key == "sandboxID")
            info.sandboxId = r.string(value);
        else if (key == "state")
            info.rawState = r.shared(value);
        else if (key == "startedAt")
            record.startedAt = r.time(value).value_or(QDateTime());
        break;
    case 't':
        if (key == "templateID")
            record.templateId = r.shared(value);
        break;
    case 'a':
        if (key == "alias")
            record.alias = r.shared(value);
        break;
    case 'e':
        if (key == "endAt")
            record.endAt = r.time(value).value_or(QDateTime());
        break;
    case 'm':
        if (key == "metadata")
            readMetadata(r, value, info);
        break;
    default:
        break;
    }
}

// One member of a sandbox's GET into its record: what only one sandbox's details show, else
// what a listing keeps too (readListedMember). `info` is record.info.
void readMember(Json::Reader &r, Json::od::raw_json_string key, Json::od::value &value, SandboxInfo &info,
                SandboxRecord &record)
{
    if (key == "envdVersion") {
        record.envdVersion = r.shared(value);
    } else if (key == "envdAccessToken") {
        const std::string_view token = r.view(value);
        record.envdAccessToken = QByteArray(token.data(), qsizetype(token.size()));
    } else if (key == "memoryMB") {
        record.memoryMB = r.integer(value, 0);
    } else if (key == "cpuCount") {
        record.cpuCount = r.integer(value, 0);
    } else if (key == "diskSizeMB") {
        record.diskSizeMB = r.integer(value, 0);
    } else if (key == "domain") {
        record.domain = r.shared(value);
    } else if (key == "lifecycle") {
        r.fields(value, [&](Json::od::raw_json_string field, Json::od::value &v) {
            if (field == "onTimeout")
                record.onTimeout = r.shared(v);
        });
    } else {
        readListedMember(r, key, value, info, record);
    }
}

// What is made of the members read. `raw` is the sandbox's JSON as the server wrote it: its hash
// is the fingerprint (equal records, equal fingerprints; the console compares a sandbox in full
// only when it changed), cheaper than hashing the UTF-16 SandboxInfo made from it.
void finishRecord(SandboxInfo &info, const SandboxRecord &record, std::string_view raw)
{
    info.backend = QStringLiteral("e2b");
    info.state = stateOf(info.rawState);
    info.image = record.alias.isEmpty() ? record.templateId : record.alias;
    // E2B's sandboxes start anew with every resume: startedAt is when this run began, which is
    // what AgentScope orders by (the newest wins).
    info.createdAt = record.startedAt;
    // A running sandbox counts down to endAt; a paused one's timer is stopped (its endAt is when
    // it was paused): no expiry, and pausedAt says since when.
    if (info.state == SandboxState::Running && record.endAt.isValid())
        info.expiresAt = record.endAt;
    if (info.state == SandboxState::Paused && record.endAt.isValid())
        info.pausedAt = record.endAt;
    while (!raw.empty()
           && (raw.back() == ',' || raw.back() == ']' || raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r'
               || raw.back() == '\t'))
        raw.remove_suffix(1);
    const size_t seed = qHashBits(raw.data(), raw.size(), 0x9e3779b9u);
    info.fingerprint = seed == 0 ? 1 : quint64(seed);
}

QJsonObject stringMap(const QMap<QString, QString> &map)
{
    QJsonObject json;
    for (auto it = map.cbegin(); it != map.cend(); ++it)
        json.insert(it.key(), it.value());
    return json;
}

Error notJson(const HttpResponse &response)
{
    return Error::backend(
        Tr::tr("the E2B server's answer is not JSON (HTTP %1) - is this an E2B API?").arg(response.status));
}

} // namespace

ConnectionConfig ConnectionConfig::resolved() const
{
    const QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    ConnectionConfig config = *this;
    config.domain = config.domain.trimmed();
    config.apiUrl = config.apiUrl.trimmed();
    config.sandboxUrl = config.sandboxUrl.trimmed();
    if (config.domain.isEmpty())
        config.domain = env.value(QStringLiteral("E2B_DOMAIN")).trimmed();
    if (config.domain.isEmpty())
        config.domain = DefaultDomain;
    if (config.apiUrl.isEmpty())
        config.apiUrl = env.value(QStringLiteral("E2B_API_URL")).trimmed();
    if (config.apiUrl.isEmpty())
        config.apiUrl = QStringLiteral("https://api.") + config.domain;
    if (config.sandboxUrl.isEmpty())
        config.sandboxUrl = env.value(QStringLiteral("E2B_SANDBOX_URL")).trimmed();
    while (config.apiUrl.endsWith(u'/'))
        config.apiUrl.chop(1);
    while (config.sandboxUrl.endsWith(u'/'))
        config.sandboxUrl.chop(1);
    return config;
}

QUrl ConnectionConfig::apiBase() const
{
    return QUrl(apiUrl);
}

QUrl ConnectionConfig::envdBase(const QString &sandboxId, const QString &sandboxDomain) const
{
    if (!sandboxUrl.isEmpty())
        return QUrl(sandboxUrl);
    const QString domain = sandboxDomain.isEmpty() ? this->domain : sandboxDomain;
    if (hasSandboxProxy(domain))
        return QUrl(QStringLiteral("https://sandbox.") + domain);
    return QUrl(QStringLiteral("https://%1-%2.%3").arg(EnvdPort).arg(sandboxId, domain));
}

Result<> validateKey(const QByteArray &key)
{
    if (key.isEmpty())
        return fail(Error::invalidArgument(Tr::tr("no E2B API key: give the profile one (it is kept in the keychain), "
                                                  "or set E2B_API_KEY for paddockctl")));
    static const QRegularExpression shape(QStringLiteral("^e2b_[0-9a-f]+$"));
    if (!key.startsWith("e2b_"))
        return fail(Error::invalidArgument(
            Tr::tr("the E2B API key does not start with \"e2b_\": it is not an E2B API key (an access token, "
                   "which starts with \"sk_e2b_\", is not one either); copy the key from the E2B dashboard")));
    if (!shape.match(QString::fromLatin1(key)).hasMatch())
        return fail(Error::invalidArgument(Tr::tr("the E2B API key is \"e2b_\" and hexadecimal digits; this one has "
                                                  "other characters after \"e2b_\"")));
    return {};
}

Result<> validateUrl(const QString &url, const QString &what)
{
    const QUrl parsed(url, QUrl::StrictMode);
    if (!parsed.isValid() || (parsed.scheme() != QLatin1String("http") && parsed.scheme() != QLatin1String("https"))
        || parsed.host().isEmpty()) {
        return fail(
            Error::invalidArgument(Tr::tr("%1 \"%2\" is not an http:// or https:// URL with a host").arg(what, url)));
    }
    if (parsed.hasQuery() || parsed.hasFragment() || !parsed.userInfo().isEmpty())
        return fail(
            Error::invalidArgument(Tr::tr("%1 \"%2\" must not have a query, a fragment or a user").arg(what, url)));
    return {};
}

Result<> validateDomainName(const QString &domain)
{
    static const QRegularExpression shape(QStringLiteral(R"(^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$)"));
    if (!shape.match(domain).hasMatch()) {
        return fail(Error::invalidArgument(
            Tr::tr("the E2B domain \"%1\" is a host name such as e2b.app, without a scheme, a port or a path")
                .arg(domain)));
    }
    return {};
}

QByteArray listQuery(const QStringList &states, const QMap<QString, QString> &metadata, int limit,
                     const QByteArray &nextToken)
{
    QByteArrayList parts;
    if (!metadata.isEmpty()) {
        // Three layers, as the SDKs send it and the server undoes it (reference §3.3).
        QByteArrayList pairs;
        for (auto it = metadata.cbegin(); it != metadata.cend(); ++it) {
            const QByteArray key = QUrl::toPercentEncoding(it.key());
            const QByteArray value = QUrl::toPercentEncoding(it.value());
            pairs.append(QUrl::toPercentEncoding(QString::fromLatin1(key)) + '='
                         + QUrl::toPercentEncoding(QString::fromLatin1(value)));
        }
        parts.append("metadata=" + QUrl::toPercentEncoding(QString::fromLatin1(pairs.join('&'))));
    }
    if (!states.isEmpty())
        parts.append("state=" + states.join(u',').toLatin1());
    parts.append("limit=" + QByteArray::number(limit));
    if (!nextToken.isEmpty())
        parts.append("nextToken=" + QUrl::toPercentEncoding(QString::fromLatin1(nextToken)));
    return parts.join('&');
}

Result<ListPage> parseListPage(const HttpResponse &response)
{
    // A copy of the body with simdjson's padding. Each sandbox is made in place at the end of the
    // page's list; the members that are not a SandboxInfo's go to one record reused for all. Its
    // JSON text runs from where its element starts to where the next one starts (the last one's
    // to the end): each is finished, with the fingerprint of that text, once the next begins.
    QByteArray body = response.body;
    ListPage page;
    page.sandboxes.reserve(ControlPlane::PageSize);
    SandboxRecord rest;
    const char *pendingStart = nullptr;
    const auto finishPending = [&](const char *to) {
        if (!pendingStart)
            return;
        finishRecord(page.sandboxes.last(), rest, std::string_view(pendingStart, size_t(to - pendingStart)));
        pendingStart = nullptr;
    };
    const bool read = Json::readArrayDocument(body, [&](Json::Reader &r, Json::od::value &element, const char *start) {
        finishPending(start);
        Json::od::object object;
        if (element.get_object().get(object))
            return; // not a sandbox: skipped
        SandboxInfo &info = page.sandboxes.emplaceBack();
        rest.templateId.clear();
        rest.alias.clear();
        rest.startedAt = {};
        rest.endAt = {};
        pendingStart = start;
        r.fields(object, [&](Json::od::raw_json_string key, Json::od::value &value) {
            readListedMember(r, key, value, info, rest);
        });
    });
    if (!read)
        return fail(notJson(response));
    finishPending(body.constData() + body.size());
    page.nextToken = response.headers.value(QByteArrayLiteral("x-next-token"));
    return page;
}

Result<SandboxRecord> parseSandbox(const QByteArray &json)
{
    QByteArray body = json;
    SandboxRecord record;
    const bool read =
        Json::readObjectDocument(body, [&](Json::Reader &r, Json::od::raw_json_string key, Json::od::value &value) {
            readMember(r, key, value, record.info, record);
        });
    if (!read)
        return fail(Error::backend(Tr::tr("the E2B server's answer is not a JSON object")));
    finishRecord(record.info, record, std::string_view(body.constData(), size_t(body.size())));
    return record;
}

Error decodeError(const HttpResponse &response)
{
    const QJsonObject body = QJsonDocument::fromJson(response.body).object();
    QString message = body.value(QLatin1String("message")).toString().trimmed();
    const QJsonValue code = body.value(QLatin1String("code"));
    Error::Kind kind = Http::kindForStatus(response.status);
    // Connect RPC errors name their code as a word.
    if (code.isString()) {
        const QString word = code.toString();
        if (word == QLatin1String("not_found"))
            kind = Error::Kind::NotFound;
        else if (word == QLatin1String("already_exists"))
            kind = Error::Kind::Conflict;
        if (!message.isEmpty())
            message = QStringLiteral("[%1] %2").arg(word, message);
    }
    if (message.isEmpty())
        message = QString::fromUtf8(response.body.left(300)).simplified();
    if (const QString errorCode = body.value(QLatin1String("error_code")).toString(); !errorCode.isEmpty())
        message += QStringLiteral(" (%1)").arg(errorCode);
    QString described;
    switch (response.status) {
    case 401:
        described = Tr::tr("the E2B server refused the API key (HTTP 401): %1").arg(message);
        break;
    case 403:
        described = Tr::tr("the E2B server refused access (HTTP 403): %1").arg(message);
        break;
    case 429:
        described = Tr::tr("the E2B server asks to slow down (HTTP 429): %1").arg(message);
        break;
    default:
        described = message.isEmpty() ? Tr::tr("HTTP %1").arg(response.status)
                                      : Tr::tr("HTTP %1: %2").arg(response.status).arg(message);
    }
    return Error{kind, described, response.status};
}

ControlPlane::ControlPlane(HttpClient *http, ConnectionConfig config, QObject *parent)
    : QObject(parent)
    , m_http(http)
    , m_config(config.resolved())
{
    m_http->setErrorDecoder(decodeError);
    m_parser.setMaxThreadCount(1);
}

HttpRequest ControlPlane::request(const QByteArray &method, const QString &path, const QByteArray &query) const
{
    HttpRequest request;
    request.method = method;
    QUrl url = m_config.apiBase();
    url.setPath(url.path() + path);
    if (!query.isEmpty())
        url.setQuery(QString::fromLatin1(query), QUrl::StrictMode);
    request.url = url;
    request.transferTimeout = m_config.requestTimeout;
    request.headers.append({QByteArrayLiteral("X-API-Key"), m_config.apiKey});
    // Reads, pause (409 when done already), kill (404 when done already), set timeout (the same
    // deadline again, a moment later) and connect (resuming a sandbox the first one resumed only
    // extends its deadline, never shortens it: E2B#1055) may be repeated; a create may not (twice
    // is two sandboxes: E2BBackend::create looks it up by its metadata first).
    request.retrySafe = method == "GET" || method == "DELETE" || path.endsWith(QLatin1String("/pause"))
        || path.endsWith(QLatin1String("/timeout")) || path.endsWith(QLatin1String("/connect"));
    return request;
}

QCoro::Task<Result<SandboxRecord>> ControlPlane::sendForSandbox(HttpRequest request, int *status)
{
    auto response = co_await m_http->send(std::move(request));
    if (!response)
        co_return fail(response.error());
    if (status)
        *status = response->status;
    auto record = parseSandbox(response->body);
    if (!record)
        co_return fail(notJson(*response));
    co_return record;
}

QCoro::Task<Result<>> ControlPlane::sendForNothing(HttpRequest request)
{
    auto response = co_await m_http->send(std::move(request));
    if (!response)
        co_return fail(response.error());
    co_return Result<>{};
}

namespace {

// The calling thread at the lowest priority a process may give itself, nice 19 (Linux keeps a
// nice value per thread), once per thread. Not SCHED_IDLE: a thread of that class, preempted while
// it holds a lock the GUI thread then wants (its pool's, its malloc arena's), can be kept off the
// CPU far longer on a busy machine, and it measured no better here.
void lowerThisThreadsPriority()
{
#ifdef Q_OS_LINUX
    static thread_local bool lowered = false;
    if (!lowered) {
        lowered = true;
        setpriority(PRIO_PROCESS, id_t(gettid()), 19); // failing is harmless: it runs as it is
    }
#endif
}

// A listed page on its way to being parsed, by whichever side claims it first: the low-priority
// parsing thread while the fetch goes on, or, once the fetch is over, the listing itself, which
// hands the page to a thread of normal priority.
struct PendingPage
{
    HttpResponse response;
    std::atomic<bool> claimed{false};
    std::shared_ptr<Result<ListPage>> parsed;

    bool claim() { return !claimed.exchange(true); }
    void parse()
    {
        parsed = std::make_shared<Result<ListPage>>(parseListPage(response));
        response = {};
    }
};

} // namespace

QCoro::Task<Result<QList<SandboxInfo>>> ControlPlane::list(QStringList states, QMap<QString, QString> metadata)
{
    QByteArray token;
    // Each page is parsed while the next one travels (the next page needs only this one's
    // X-Next-Token), on the control plane's one parsing thread, which runs at nice 19: it takes
    // little CPU from the fetch (this thread, Qt's network thread, a local server). At normal
    // priority it kept a woken network thread off its core until its page was done: 10,000
    // sandboxes took 1.23-1.57 times the bare fetch of their pages on two cores, at nice 19
    // 1.04-1.28 (src/core/backends/e2b/README.md). Once the last page is in, the pages that
    // thread has not begun are claimed here and parsed at normal priority on every core: a busy
    // machine delays a listing by at most the one page the low-priority thread is in.
    QList<std::shared_ptr<PendingPage>> pending;
    QList<QFuture<void>> parsing;
    for (int page = 0; page < MaxPages; ++page) {
        HttpRequest listing = request(QByteArrayLiteral("GET"), QStringLiteral("/v2/sandboxes"),
                                      listQuery(states, metadata, PageSize, token));
        listing.cancel = m_reads;
        auto response = co_await m_http->send(listing);
        if (!response) {
            // The pages already in are not parsed for nothing (nor waited for by a destructor).
            for (const std::shared_ptr<PendingPage> &left : std::as_const(pending))
                left->claim();
            co_return fail(response.error());
        }
        token = response->headers.value(QByteArrayLiteral("x-next-token"));
        auto next = std::make_shared<PendingPage>();
        next->response = std::move(*response);
        parsing.append(QtConcurrent::run(&m_parser, [next] {
            lowerThisThreadsPriority();
            if (next->claim())
                next->parse();
        }));
        pending.append(std::move(next));
        if (token.isEmpty())
            break;
    }
    // The parsing thread's task for a page claimed here runs later and does nothing.
    m_lastPagesLeft = 0;
    for (qsizetype i = 0; i < pending.size(); ++i) {
        const std::shared_ptr<PendingPage> &page = pending.at(i);
        if (page->claim()) {
            parsing[i] = QtConcurrent::run(&m_finisher, [page] { page->parse(); });
            ++m_lastPagesLeft;
        }
    }
    // Joined in order, into a list made once at its full size.
    qsizetype count = 0;
    for (qsizetype i = 0; i < pending.size(); ++i) {
        if (!co_await m_http->waitFor(parsing.at(i)))
            co_return fail(HttpClient::closedError());
        const Result<ListPage> &page = *pending.at(i)->parsed;
        if (!page)
            co_return fail(page.error());
        count += page->sandboxes.size();
    }
    if (pending.size() == 1)
        co_return std::move((*pending.first()->parsed)->sandboxes);
    QList<SandboxInfo> all;
    all.reserve(count);
    for (const std::shared_ptr<PendingPage> &page : std::as_const(pending)) {
        for (SandboxInfo &info : (*page->parsed)->sandboxes)
            all.append(std::move(info));
    }
    co_return all;
}

QCoro::Task<Result<SandboxRecord>> ControlPlane::get(QString sandboxId)
{
    const HttpRequest fetch =
        request(QByteArrayLiteral("GET"),
                QStringLiteral("/sandboxes/") + QString::fromLatin1(QUrl::toPercentEncoding(sandboxId)));
    co_return co_await sendForSandbox(fetch);
}

QCoro::Task<Result<SandboxRecord>> ControlPlane::create(QString templateName, QMap<QString, QString> metadata,
                                                        std::chrono::seconds timeout, QMap<QString, QString> envVars)
{
    QJsonObject body{{QStringLiteral("templateID"), templateName},
                     {QStringLiteral("metadata"), stringMap(metadata)},
                     {QStringLiteral("timeout"), qint64(timeout.count())}};
    if (!envVars.isEmpty())
        body.insert(QStringLiteral("envVars"), stringMap(envVars));
    HttpRequest post = request(QByteArrayLiteral("POST"), QStringLiteral("/v2/sandboxes"));
    post.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    co_return co_await sendForSandbox(post);
}

QCoro::Task<Result<SandboxRecord>> ControlPlane::connect(QString sandboxId, std::chrono::seconds timeout, bool *resumed)
{
    HttpRequest post =
        request(QByteArrayLiteral("POST"),
                QStringLiteral("/v2/sandboxes/") + QString::fromLatin1(QUrl::toPercentEncoding(sandboxId))
                    + QStringLiteral("/connect"));
    post.body =
        QJsonDocument(QJsonObject{{QStringLiteral("timeout"), qint64(timeout.count())}}).toJson(QJsonDocument::Compact);
    int status = 0;
    auto record = co_await sendForSandbox(post, &status);
    if (record && resumed)
        *resumed = status == 201;
    co_return record;
}

QCoro::Task<Result<>> ControlPlane::pause(QString sandboxId)
{
    HttpRequest post = request(QByteArrayLiteral("POST"),
                               QStringLiteral("/sandboxes/") + QString::fromLatin1(QUrl::toPercentEncoding(sandboxId))
                                   + QStringLiteral("/pause"));
    post.body = QByteArrayLiteral("{}");
    co_return co_await sendForNothing(post);
}

QCoro::Task<Result<QByteArray>> ControlPlane::metrics(QStringList sandboxIds)
{
    QByteArray ids;
    for (const QString &id : std::as_const(sandboxIds))
        ids += (ids.isEmpty() ? QByteArray() : QByteArray(",")) + QUrl::toPercentEncoding(id);
    const HttpRequest fetch =
        request(QByteArrayLiteral("GET"), QStringLiteral("/sandboxes/metrics"), "sandbox_ids=" + ids);
    auto response = co_await m_http->send(fetch);
    if (!response)
        co_return fail(response.error());
    QByteArray body = response->body;
    co_return body;
}

QCoro::Task<Result<>> ControlPlane::kill(QString sandboxId)
{
    const HttpRequest del =
        request(QByteArrayLiteral("DELETE"),
                QStringLiteral("/sandboxes/") + QString::fromLatin1(QUrl::toPercentEncoding(sandboxId)));
    co_return co_await sendForNothing(del);
}

QCoro::Task<Result<>> ControlPlane::setTimeout(QString sandboxId, std::chrono::seconds timeout)
{
    HttpRequest post = request(QByteArrayLiteral("POST"),
                               QStringLiteral("/sandboxes/") + QString::fromLatin1(QUrl::toPercentEncoding(sandboxId))
                                   + QStringLiteral("/timeout"));
    post.body =
        QJsonDocument(QJsonObject{{QStringLiteral("timeout"), qint64(timeout.count())}}).toJson(QJsonDocument::Compact);
    co_return co_await sendForNothing(post);
}

} // namespace Paddock::E2B
