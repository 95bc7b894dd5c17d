// The control plane of the fake E2B server: listeners, the sandbox table (sorted for listing),
// the fake clock and eviction, seeding, failure injection, the API routes and /_fake/*.

#include "fakee2b.h"
#include "e2bwire.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QSaveFile>
#include <QTemporaryDir>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace Qt::StringLiterals;

namespace PaddockFake::E2b {

namespace {

constexpr qint64 NsPerSecond = 1'000'000'000;
constexpr int V2DefaultTimeout = 300;
constexpr int V1DefaultTimeout = 15; // SandboxTimeoutDefault, for POST /sandboxes and /resume
constexpr QLatin1StringView BaseTemplateId{"rki5dems9wqfm4r03t7g"};

bool sortsBefore(const Sandbox *a, const Sandbox *b)
{
    if (a->startedAtNs != b->startedAtNs)
        return a->startedAtNs > b->startedAtNs;
    return a->id < b->id;
}

HttpResponse notFound(const QString &id)
{
    return apiError(404, u"Sandbox \"%1\" doesn't exist or you don't have access to it"_s.arg(id));
}

HttpResponse validationError(const QString &detail)
{
    return apiError(400, u"validation error: "_s + detail);
}

// A JSON request body: nullopt with the 400 in *error when it is not a JSON object. An empty
// body is an empty object when `required` is false.
std::optional<QJsonObject> jsonBody(const HttpRequest &request, bool required, HttpResponse *error)
{
    if (request.body.trimmed().isEmpty()) {
        if (!required)
            return QJsonObject();
        *error = validationError(u"request body has an error: value is required but missing"_s);
        return std::nullopt;
    }
    QJsonParseError parseError{};
    const QJsonDocument document = QJsonDocument::fromJson(request.body, &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject()) {
        *error = validationError(
            u"request body has an error: failed to decode request body: "_s
            + (parseError.error != QJsonParseError::NoError ? parseError.errorString() : u"not a JSON object"_s));
        return std::nullopt;
    }
    return document.object();
}

// An int32 field: nullopt when absent; *bad when present but not an integer in range.
std::optional<qint64> intField(const QJsonObject &body, const QString &field, qint64 minimum, QString *bad)
{
    const QJsonValue value = body.value(field);
    if (value.isUndefined() || value.isNull())
        return std::nullopt;
    const double number = value.toDouble();
    if (!value.isDouble() || number != std::floor(number) || number > std::numeric_limits<qint32>::max()
        || number < std::numeric_limits<qint32>::min()) {
        *bad =
            u"request body has an error: doesn't match schema: Error at \"/%1\": value must be an int32"_s.arg(field);
        return std::nullopt;
    }
    if (number < static_cast<double>(minimum)) {
        *bad = u"request body has an error: doesn't match schema: Error at \"/%1\": number must be at least %2"_s
                   .arg(field)
                   .arg(minimum);
        return std::nullopt;
    }
    return static_cast<qint64>(number);
}

std::optional<bool> boolField(const QJsonObject &body, const QString &field, QString *bad)
{
    const QJsonValue value = body.value(field);
    if (value.isUndefined() || value.isNull())
        return std::nullopt;
    if (!value.isBool()) {
        *bad =
            u"request body has an error: doesn't match schema: Error at \"/%1\": value must be a boolean"_s.arg(field);
        return std::nullopt;
    }
    return value.toBool();
}

std::optional<QMap<QString, QString>> mapField(const QJsonObject &body, const QString &field, QString *bad)
{
    const QJsonValue value = body.value(field);
    if (value.isUndefined() || value.isNull())
        return std::nullopt;
    QMap<QString, QString> map;
    if (!value.isObject()) {
        *bad =
            u"request body has an error: doesn't match schema: Error at \"/%1\": value must be an object"_s.arg(field);
        return std::nullopt;
    }
    const QJsonObject object = value.toObject();
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (!it.value().isString()) {
            *bad =
                u"request body has an error: doesn't match schema: Error at \"/%1/%2\": value must be a string"_s.arg(
                    field, it.key());
            return std::nullopt;
        }
        map.insert(it.key(), it.value().toString());
    }
    return map;
}

// The API's sandbox id rules: `<id>` or the legacy `<id>-<clientID>` (the suffix dropped).
std::optional<QString> shortId(const QString &raw)
{
    const QString id = raw.section(u'-', 0, 0);
    if (id.isEmpty())
        return std::nullopt;
    for (const QChar c : id) {
        if (!((c >= u'a' && c <= u'z') || (c >= u'0' && c <= u'9')))
            return std::nullopt;
    }
    return id;
}

QString templateIdOf(const QString &alias)
{
    if (alias == u"base"_s)
        return BaseTemplateId;
    const QByteArray hash = QCryptographicHash::hash(alias.toUtf8(), QCryptographicHash::Sha256);
    QString id;
    for (int i = 0; i < 20; ++i)
        id += QLatin1Char("abcdefghijklmnopqrstuvwxyz0123456789"[static_cast<unsigned char>(hash.at(i)) % 36]);
    return id;
}

} // namespace

FakeE2b::FakeE2b(Options options, QObject *parent)
    : QObject(parent)
    , m_options(std::move(options))
    , m_rng(m_options.failSeed)
    , m_idRng(QRandomGenerator::global()->generate64())
{
    m_evictionTimer.setSingleShot(true);
    m_evictionTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_evictionTimer, &QTimer::timeout, this, &FakeE2b::evictDue);
    m_api.setHandler([this](HttpConnection *c, const HttpRequest &r) { onApiListener(c, r); });
    m_envd.setHandler([this](HttpConnection *c, const HttpRequest &r) { onEnvdListener(c, r); });
    // On a shared port, what onApiListener() hands to envd is envd's.
    m_api.setRecordAs([this](const HttpRequest &r) -> QByteArray {
        return m_options.envdPort < 0 && r.hasHeader("e2b-sandbox-id") ? "envd" : "api";
    });
    m_envd.setRecordAs("envd");
    // No request-id header (the real API sends none that clients read).
    HttpServerSettings settings;
    settings.requestIdHeader.clear();
    settings.refusal = [](int status, const QByteArray &message) {
        return apiError(status, QString::fromUtf8(message));
    };
    m_api.setSettings(settings);
    m_envd.setSettings(settings);
}

FakeE2b::~FakeE2b()
{
    shutdown();
}

QString FakeE2b::apiUrl() const
{
    return u"http://127.0.0.1:%1"_s.arg(m_api.port());
}

QString FakeE2b::envdUrl() const
{
    return u"http://127.0.0.1:%1"_s.arg(m_options.envdPort < 0 ? m_api.port() : m_envd.port());
}

bool FakeE2b::start(QString *error)
{
    if (m_options.bubblewrap && m_options.bubblewrapPath.isEmpty()) {
        QString why;
        const QString bwrap = findBubblewrap(&why);
        if (bwrap.isEmpty() || !(why = PersistentSandbox::probe(bwrap)).isEmpty()) {
            *error = why
                + u"; install bubblewrap (and util-linux), or pass --no-bwrap to run commands unconfined on this "
                  "machine (unsafe)"_s;
            return false;
        }
        m_options.bubblewrapPath = bwrap;
    }
    if (m_options.dataDir.isEmpty()) {
        m_tempDir = std::make_unique<QTemporaryDir>(QDir::tempPath() + u"/paddock-fake-e2b-XXXXXX"_s);
        if (!m_tempDir->isValid()) {
            *error = u"cannot create a temporary data directory: "_s + m_tempDir->errorString();
            return false;
        }
        m_dataDir = m_tempDir->path();
    } else {
        m_dataDir = QDir(m_options.dataDir).absolutePath();
        if (!QDir().mkpath(m_dataDir)) {
            *error = u"cannot create the data directory "_s + m_dataDir;
            return false;
        }
    }
    if (!m_options.dataDir.isEmpty())
        loadState();
    if (m_options.seed > 0)
        seed(m_options.seed);
    persist();
    if (!m_api.listen(m_options.port, error))
        return false;
    if (m_options.envdPort >= 0 && !m_envd.listen(static_cast<quint16>(m_options.envdPort), error))
        return false;
    scheduleEviction();
    return true;
}

void FakeE2b::shutdown()
{
    if (m_stopped)
        return;
    m_stopped = true;
    m_api.close();
    m_envd.close();
    m_evictionTimer.stop();
    for (auto &[id, sandbox] : m_sandboxes)
        killEverything(*sandbox);
}

// ---- clock, table, eviction -----------------------------------------------------------------

qint64 FakeE2b::now() const
{
    return nowNs() + m_clockOffsetNs;
}

Sandbox *FakeE2b::find(const QString &id) const
{
    const auto it = m_sandboxes.find(id);
    return it == m_sandboxes.end() ? nullptr : it->second.get();
}

QString FakeE2b::newSandboxId()
{
    // InstanceIDPrefix "i" + 20 of [a-z0-9].
    for (;;) {
        QString id = u"i"_s;
        for (int i = 0; i < 20; ++i)
            id += QLatin1Char("abcdefghijklmnopqrstuvwxyz0123456789"[m_idRng() % 36]);
        if (!find(id))
            return id;
    }
}

Sandbox *FakeE2b::addSandbox(std::unique_ptr<Sandbox> sandbox)
{
    Sandbox *raw = sandbox.get();
    m_sandboxes.emplace(raw->id, std::move(sandbox));
    m_sorted.insert(std::lower_bound(m_sorted.begin(), m_sorted.end(), raw, sortsBefore), raw);
    if (!raw->paused)
        m_deadlines.insert({raw->endAtNs, raw->id});
    ++m_generation;
    return raw;
}

void FakeE2b::removeSandbox(Sandbox *sandbox)
{
    killEverything(*sandbox);
    if (!sandbox->paused)
        m_deadlines.erase({sandbox->endAtNs, sandbox->id});
    const auto pos = std::lower_bound(m_sorted.begin(), m_sorted.end(), sandbox, sortsBefore);
    if (pos != m_sorted.end() && *pos == sandbox)
        m_sorted.erase(pos);
    else
        m_sorted.erase(std::remove(m_sorted.begin(), m_sorted.end(), sandbox), m_sorted.end());
    const QString dir = sandboxDir(*sandbox);
    const QString id = sandbox->id;
    m_sandboxes.erase(id);
    QDir(dir).removeRecursively();
    ++m_generation;
    scheduleEviction();
}

void FakeE2b::changed(Sandbox *sandbox)
{
    sandbox->listedJson.clear();
    ++m_generation;
}

void FakeE2b::setDeadline(Sandbox *sandbox, std::optional<qint64> endAtNs)
{
    if (!sandbox->paused)
        m_deadlines.erase({sandbox->endAtNs, sandbox->id});
    if (endAtNs) {
        sandbox->endAtNs = *endAtNs;
        m_deadlines.insert({sandbox->endAtNs, sandbox->id});
    }
    changed(sandbox);
    scheduleEviction();
}

void FakeE2b::scheduleEviction()
{
    if (m_stopped || m_deadlines.empty()) {
        m_evictionTimer.stop();
        return;
    }
    const qint64 delayMs = (m_deadlines.begin()->first - now() + 999'999) / 1'000'000;
    m_evictionTimer.start(static_cast<int>(std::clamp<qint64>(delayMs, 0, 3'600'000)));
}

void FakeE2b::persist()
{
    if (m_options.dataDir.isEmpty() || (m_generation == m_savedGeneration && m_clockOffsetNs == m_savedClockOffsetNs))
        return;
    QJsonArray sandboxes;
    for (const Sandbox *sandbox : std::as_const(m_sorted)) {
        QJsonObject metadata;
        for (auto it = sandbox->metadata.cbegin(); it != sandbox->metadata.cend(); ++it)
            metadata.insert(it.key(), it.value());
        QJsonObject envVars;
        for (auto it = sandbox->envVars.cbegin(); it != sandbox->envVars.cend(); ++it)
            envVars.insert(it.key(), it.value());
        QJsonObject entry{{u"id"_s, sandbox->id},
                          {u"templateId"_s, sandbox->templateId},
                          {u"alias"_s, sandbox->alias},
                          {u"metadata"_s, metadata},
                          {u"envVars"_s, envVars},
                          {u"paused"_s, sandbox->paused},
                          {u"startedAtNs"_s, QString::number(sandbox->startedAtNs)},
                          {u"endAtNs"_s, QString::number(sandbox->endAtNs)},
                          {u"autoPause"_s, sandbox->autoPause},
                          {u"autoResume"_s, sandbox->autoResume},
                          {u"token"_s, sandbox->token},
                          {u"cpuCount"_s, sandbox->cpuCount},
                          {u"memoryMB"_s, sandbox->memoryMB},
                          {u"diskSizeMB"_s, sandbox->diskSizeMB}};
        if (sandbox->allowInternetAccess)
            entry.insert(u"allowInternetAccess"_s, *sandbox->allowInternetAccess);
        sandboxes.append(entry);
    }
    const QByteArray out =
        QJsonDocument(QJsonObject{{u"clockOffsetNs"_s, QString::number(m_clockOffsetNs)}, {u"sandboxes"_s, sandboxes}})
            .toJson(QJsonDocument::Compact);
    QSaveFile file(m_dataDir + u"/state.json"_s);
    if (!file.open(QIODevice::WriteOnly) || file.write(out) != out.size() || !file.commit()) {
        qWarning("cannot write %s", qPrintable(file.fileName()));
        return;
    }
    m_savedGeneration = m_generation;
    m_savedClockOffsetNs = m_clockOffsetNs;
}

void FakeE2b::loadState()
{
    QFile file(m_dataDir + u"/state.json"_s);
    if (!file.open(QIODevice::ReadOnly))
        return;
    const QJsonObject state = QJsonDocument::fromJson(file.readAll()).object();
    m_clockOffsetNs = state.value(u"clockOffsetNs"_s).toString().toLongLong();
    const QJsonArray sandboxes = state.value(u"sandboxes"_s).toArray();
    for (const QJsonValue &value : sandboxes) {
        const QJsonObject entry = value.toObject();
        auto sandbox = std::make_unique<Sandbox>();
        sandbox->id = entry.value(u"id"_s).toString();
        if (sandbox->id.isEmpty() || find(sandbox->id))
            continue;
        sandbox->templateId = entry.value(u"templateId"_s).toString();
        sandbox->alias = entry.value(u"alias"_s).toString();
        const QJsonObject metadata = entry.value(u"metadata"_s).toObject();
        for (auto it = metadata.constBegin(); it != metadata.constEnd(); ++it)
            sandbox->metadata.insert(it.key(), it.value().toString());
        const QJsonObject envVars = entry.value(u"envVars"_s).toObject();
        for (auto it = envVars.constBegin(); it != envVars.constEnd(); ++it)
            sandbox->envVars.insert(it.key(), it.value().toString());
        sandbox->paused = entry.value(u"paused"_s).toBool();
        sandbox->startedAtNs = entry.value(u"startedAtNs"_s).toString().toLongLong();
        sandbox->endAtNs = entry.value(u"endAtNs"_s).toString().toLongLong();
        sandbox->autoPause = entry.value(u"autoPause"_s).toBool();
        sandbox->autoResume = entry.value(u"autoResume"_s).toBool();
        sandbox->token = entry.value(u"token"_s).toString();
        if (entry.contains(u"allowInternetAccess"_s))
            sandbox->allowInternetAccess = entry.value(u"allowInternetAccess"_s).toBool();
        sandbox->cpuCount = entry.value(u"cpuCount"_s).toInt(2);
        sandbox->memoryMB = entry.value(u"memoryMB"_s).toInt(512);
        sandbox->diskSizeMB = entry.value(u"diskSizeMB"_s).toInt(1024);
        addSandbox(std::move(sandbox));
    }
    m_savedGeneration = m_generation;
    m_savedClockOffsetNs = m_clockOffsetNs;
}

void FakeE2b::evictDue()
{
    const qint64 current = now();
    while (!m_deadlines.empty() && m_deadlines.begin()->first <= current) {
        Sandbox *sandbox = find(m_deadlines.begin()->second);
        if (!sandbox || sandbox->paused) {
            m_deadlines.erase(m_deadlines.begin());
            continue;
        }
        if (sandbox->autoPause) {
            qInfo("sandbox %s timed out: paused", qPrintable(sandbox->id));
            pause(sandbox);
        } else {
            qInfo("sandbox %s timed out: killed", qPrintable(sandbox->id));
            removeSandbox(sandbox);
        }
    }
    scheduleEviction();
    persist();
}

void FakeE2b::pause(Sandbox *sandbox)
{
    m_deadlines.erase({sandbox->endAtNs, sandbox->id});
    sandbox->paused = true;
    sandbox->endAtNs = now(); // a paused sandbox's endAt is when it was paused
    freeze(*sandbox, true);
    changed(sandbox);
    scheduleEviction();
}

void FakeE2b::resume(Sandbox *sandbox, qint64 timeoutSeconds)
{
    sandbox->paused = false;
    sandbox->startedAtNs = now(); // a new run
    const auto pos = std::find(m_sorted.begin(), m_sorted.end(), sandbox);
    if (pos != m_sorted.end())
        m_sorted.erase(pos);
    m_sorted.insert(std::lower_bound(m_sorted.begin(), m_sorted.end(), sandbox, sortsBefore), sandbox);
    sandbox->endAtNs = sandbox->startedAtNs + timeoutSeconds * NsPerSecond;
    m_deadlines.insert({sandbox->endAtNs, sandbox->id});
    freeze(*sandbox, false);
    changed(sandbox);
    scheduleEviction();
}

qint64 FakeE2b::maxEndAt(const Sandbox &sandbox) const
{
    return sandbox.startedAtNs + static_cast<qint64>(m_options.maxTimeoutHours) * 3600 * NsPerSecond;
}

const QByteArray &FakeE2b::listedJson(Sandbox &sandbox)
{
    if (!sandbox.listedJson.isEmpty())
        return sandbox.listedJson;
    // By hand, in the API's field order: listing 10,000 sandboxes serialises each once.
    QByteArray &out = sandbox.listedJson;
    out.reserve(512);
    out += "{\"templateID\":";
    appendJsonString(out, sandbox.templateId);
    out += ",\"alias\":";
    appendJsonString(out, sandbox.alias);
    out += ",\"sandboxID\":";
    appendJsonString(out, sandbox.id);
    out += ",\"clientID\":\"" + QByteArray(ClientId.data(), ClientId.size()) + "\",\"startedAt\":\""
        + formatTime(sandbox.startedAtNs).toLatin1() + "\",\"endAt\":\"" + formatTime(sandbox.endAtNs).toLatin1()
        + "\",\"cpuCount\":" + QByteArray::number(sandbox.cpuCount) + ",\"memoryMB\":"
        + QByteArray::number(sandbox.memoryMB) + ",\"diskSizeMB\":" + QByteArray::number(sandbox.diskSizeMB);
    if (!sandbox.metadata.isEmpty())
        out += ",\"metadata\":" + stringMapJson(sandbox.metadata);
    out += sandbox.paused ? ",\"state\":\"paused\"" : ",\"state\":\"running\"";
    out += ",\"envdVersion\":\"" + QByteArray(EnvdVersion.data(), EnvdVersion.size()) + "\",\"volumeMounts\":[]}";
    return out;
}

QByteArray FakeE2b::sandboxJson(const Sandbox &sandbox) const
{
    QByteArray out = "{\"templateID\":";
    appendJsonString(out, sandbox.templateId);
    out += ",\"sandboxID\":";
    appendJsonString(out, sandbox.id);
    out += ",\"alias\":";
    appendJsonString(out, sandbox.alias);
    out += ",\"clientID\":\"" + QByteArray(ClientId.data(), ClientId.size()) + "\",\"envdVersion\":\""
        + QByteArray(EnvdVersion.data(), EnvdVersion.size()) + '"';
    if (!sandbox.token.isEmpty()) {
        out += ",\"envdAccessToken\":";
        appendJsonString(out, sandbox.token);
    }
    out += ",\"trafficAccessToken\":null,\"domain\":null}";
    return out;
}

QByteArray FakeE2b::detailJson(const Sandbox &sandbox) const
{
    QByteArray out = "{\"templateID\":";
    appendJsonString(out, sandbox.templateId);
    out += ",\"alias\":";
    appendJsonString(out, sandbox.alias);
    out += ",\"sandboxID\":";
    appendJsonString(out, sandbox.id);
    out += ",\"clientID\":\"" + QByteArray(ClientId.data(), ClientId.size()) + "\",\"startedAt\":\""
        + formatTime(sandbox.startedAtNs).toLatin1() + "\",\"endAt\":\"" + formatTime(sandbox.endAtNs).toLatin1()
        + "\",\"envdVersion\":\"" + QByteArray(EnvdVersion.data(), EnvdVersion.size()) + '"';
    if (!sandbox.token.isEmpty()) {
        out += ",\"envdAccessToken\":";
        appendJsonString(out, sandbox.token);
    }
    out += ",\"allowInternetAccess\":";
    out += sandbox.allowInternetAccess ? (*sandbox.allowInternetAccess ? "true" : "false") : "null";
    out += ",\"domain\":null,\"cpuCount\":" + QByteArray::number(sandbox.cpuCount) + ",\"memoryMB\":"
        + QByteArray::number(sandbox.memoryMB) + ",\"diskSizeMB\":" + QByteArray::number(sandbox.diskSizeMB);
    if (!sandbox.metadata.isEmpty())
        out += ",\"metadata\":" + stringMapJson(sandbox.metadata);
    out += sandbox.paused ? ",\"state\":\"paused\"" : ",\"state\":\"running\"";
    out += ",\"lifecycle\":{\"autoResume\":";
    out += sandbox.autoResume ? "true" : "false";
    out += ",\"onTimeout\":";
    out += sandbox.autoPause ? "\"pause\"" : "\"kill\"";
    out += "},\"volumeMounts\":[]}";
    return out;
}

void FakeE2b::seed(int count)
{
    const int userCount = count >= 2 ? std::max(2, count / 50) : 1;
    const int agentCount = std::clamp(count / 10, 1, 5);
    const qint64 current = now();
    const qint64 maxRun = static_cast<qint64>(m_options.maxTimeoutHours) * 3600 * NsPerSecond;
    for (int i = 0; i < count; ++i) {
        auto sandbox = std::make_unique<Sandbox>();
        sandbox->id = newSandboxId();
        sandbox->alias = m_options.templates.value(0, u"base"_s);
        sandbox->templateId = templateIdOf(sandbox->alias);
        sandbox->startedAtNs = current - static_cast<qint64>(count - i) * NsPerSecond;
        sandbox->paused = i % 4 == 3;
        sandbox->endAtNs = sandbox->paused ? sandbox->startedAtNs + 60 * NsPerSecond
                                           : std::max(sandbox->startedAtNs + maxRun, current + 3600 * NsPerSecond);
        sandbox->token = newHexId();
        sandbox->metadata.insert(u"agentscope.workspace.id"_s, newHexId());
        sandbox->metadata.insert(u"agentscope.user.id"_s, u"user-%1"_s.arg(i % userCount + 1));
        sandbox->metadata.insert(u"agentscope.agent.id"_s, u"agent-%1"_s.arg(i % agentCount + 1));
        listedJson(*addSandbox(std::move(sandbox)));
    }
}

std::optional<QString> FakeE2b::templateIdFor(const QString &reference, QString *alias, HttpResponse *error) const
{
    const QString name = reference.section(u':', 0, 0);
    const QString tag = reference.contains(u':') ? reference.section(u':', 1) : QString();
    for (const QString &known : m_options.templates) {
        if (name == known || name == templateIdOf(known)) {
            if (!tag.isEmpty() && tag != u"default"_s) {
                *error = apiError(404, u"tag '%1' does not exist for template '%2'"_s.arg(tag, name));
                return std::nullopt;
            }
            *alias = known;
            return templateIdOf(known);
        }
    }
    *error = apiError(404, u"template '%1' not found"_s.arg(name));
    return std::nullopt;
}

// ---- listeners ------------------------------------------------------------------------------

void FakeE2b::onApiListener(HttpConnection *connection, const HttpRequest &request)
{
    if (m_options.verbose)
        qInfo("api %s %s", request.method.constData(), request.target.constData());
    if (request.path.startsWith("/_fake/"))
        return handleFake(connection, request);
    // Every envd request carries E2b-Sandbox-Id, no API request does: one port can serve both.
    if (m_options.envdPort < 0 && request.hasHeader("e2b-sandbox-id"))
        return handleEnvd(connection, request);
    handleApi(connection, request);
}

void FakeE2b::onEnvdListener(HttpConnection *connection, const HttpRequest &request)
{
    if (m_options.verbose)
        qInfo("envd %s %s", request.method.constData(), request.target.constData());
    if (request.path.startsWith("/_fake/"))
        return handleFake(connection, request);
    handleEnvd(connection, request);
}

FakeE2b::Injection FakeE2b::drawInjection()
{
    if (m_options.failRate <= 0)
        return Injection::None;
    const double draw = static_cast<double>(m_rng()) / 4294967296.0;
    if (draw >= m_options.failRate)
        return Injection::None;
    switch (m_rng() % 5) {
    case 0:
        return Injection::Status429;
    case 1:
        return Injection::Status502;
    case 2:
        return Injection::Status503;
    case 3:
        return Injection::Status504;
    default:
        return (m_rng() % 2) ? Injection::DropHandled : Injection::DropUnhandled;
    }
}

void FakeE2b::handleApi(HttpConnection *connection, const HttpRequest &request)
{
    ++m_stats.requests;
    const bool health = request.path == "/health";
    Injection injection = Injection::None;
    bool counted = false;
    bool overloaded = false;
    if (!health) {
        injection = drawInjection();
        if (m_options.maxInflight > 0 && m_stats.inflight >= m_options.maxInflight) {
            overloaded = true;
        } else {
            counted = true;
            m_stats.maxInflight = std::max(m_stats.maxInflight, ++m_stats.inflight);
        }
    }
    const QPointer<HttpConnection> guard(connection);
    auto run = [this, guard, request, injection, counted, overloaded] {
        if (counted)
            --m_stats.inflight;
        if (!guard || m_stopped)
            return;
        QElapsedTimer timer;
        timer.start();
        HttpResponse response;
        if (overloaded) {
            response = apiError(429, u"too many requests in flight"_s);
            response.setHeader("Retry-After", "1");
        } else {
            switch (injection) {
            case Injection::Status429:
                response = apiError(429, u"injected failure"_s);
                response.setHeader("Retry-After", "1");
                break;
            case Injection::Status502:
                response = apiError(502, u"injected failure"_s);
                break;
            case Injection::Status503:
                response = apiError(503, u"injected failure"_s);
                break;
            case Injection::Status504:
                response = apiError(504, u"injected failure"_s);
                break;
            case Injection::DropHandled:
                routeApi(request);
                persist();
                guard->abort();
                return;
            case Injection::DropUnhandled:
                guard->abort();
                return;
            case Injection::None:
                response = routeApi(request);
                persist();
                break;
            }
        }
        response.setHeader("X-Fake-Serve-Us", QByteArray::number(timer.nsecsElapsed() / 1000));
        guard->send(response);
    };
    if (m_options.latencyMs > 0 && !health)
        QTimer::singleShot(m_options.latencyMs, Qt::PreciseTimer, this, run);
    else
        run();
}

std::optional<HttpResponse> FakeE2b::checkApiKey(const HttpRequest &request) const
{
    if (!request.hasHeader("x-api-key")) {
        // Only an API key is accepted here (no bearer access tokens).
        return apiError(401, u"authorization header is missing"_s);
    }
    const QString key = QString::fromUtf8(request.header("x-api-key"));
    const QString invalid = u"Invalid API key, please visit https://e2b.dev/docs/api-key for more information.\n"_s;
    if (!key.startsWith(u"e2b_"_s))
        return apiError(401, invalid + u"invalid API key format: missing the e2b_ prefix"_s);
    const QString hex = key.mid(4);
    const bool isHex = !hex.isEmpty() && hex.size() % 2 == 0 && std::all_of(hex.begin(), hex.end(), [](QChar c) {
        return (c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'f') || (c >= u'A' && c <= u'F');
    });
    if (!isHex)
        return apiError(401, invalid + u"Invalid API key format: encoding/hex: invalid byte"_s);
    if (!m_options.apiKey.isEmpty() && key != m_options.apiKey)
        return apiError(401, invalid + u"team not found"_s);
    return std::nullopt;
}

HttpResponse FakeE2b::routeApi(const HttpRequest &request)
{
    const QStringList segments = request.pathSegments();
    const QByteArray &method = request.method;
    const auto methodNotAllowed = [] { return apiError(405, u"method not allowed"_s); };
    const auto notImplemented = [] { return apiError(501, u"not implemented by paddock-fake-e2b"_s); };

    if (segments == QStringList{u"health"_s}) {
        if (method != "GET")
            return methodNotAllowed();
        return HttpResponse::text(200, "Health check successful", "text/plain; charset=utf-8");
    }
    // Which route is it (and is the method one it has)?
    enum class Route {
        None,
        SandboxesMetrics,
        ListV1,
        CreateV1,
        ListV2,
        CreateV2,
        Get,
        Kill,
        Pause,
        Resume,
        ConnectV1,
        ConnectV2,
        Timeout,
        Refresh,
        Metrics,
        NotImplemented,
        WrongMethod
    };
    Route route = Route::None;
    QString rawId;
    const qsizetype n = segments.size();
    const QString s0 = segments.value(0);
    if (s0 == u"sandboxes"_s && n == 1) {
        route = method == "GET" ? Route::ListV1 : method == "POST" ? Route::CreateV1 : Route::WrongMethod;
    } else if (s0 == u"v2"_s && segments.value(1) == u"sandboxes"_s && n == 2) {
        route = method == "GET" ? Route::ListV2 : method == "POST" ? Route::CreateV2 : Route::WrongMethod;
    } else if (s0 == u"sandboxes"_s && n == 2 && segments.at(1) == u"metrics"_s) {
        route = method != "GET"      ? Route::WrongMethod
            : m_options.metricsRoute ? Route::SandboxesMetrics
                                     : Route::NotImplemented;
    } else if (s0 == u"sandboxes"_s && n == 2) {
        rawId = segments.at(1);
        route = method == "GET" ? Route::Get : method == "DELETE" ? Route::Kill : Route::WrongMethod;
    } else if (s0 == u"sandboxes"_s && n == 3) {
        rawId = segments.at(1);
        const QString action = segments.at(2);
        const auto post = [&](Route r) { return method == "POST" ? r : Route::WrongMethod; };
        if (action == u"pause"_s)
            route = post(Route::Pause);
        else if (action == u"resume"_s)
            route = post(Route::Resume);
        else if (action == u"connect"_s)
            route = post(Route::ConnectV1);
        else if (action == u"timeout"_s)
            route = post(Route::Timeout);
        else if (action == u"refreshes"_s)
            route = post(Route::Refresh);
        else if (action == u"metrics"_s)
            route = method == "GET" ? Route::Metrics : Route::WrongMethod;
        else if (action == u"logs"_s || action == u"fork"_s || action == u"snapshots"_s || action == u"network"_s)
            route = Route::NotImplemented;
    } else if (s0 == u"v2"_s && segments.value(1) == u"sandboxes"_s && n == 4 && segments.at(3) == u"connect"_s) {
        rawId = segments.at(2);
        route = method == "POST" ? Route::ConnectV2 : Route::WrongMethod;
    } else if (s0 == u"v2"_s && segments.value(1) == u"sandboxes"_s && n == 4 && segments.at(3) == u"logs"_s) {
        route = Route::NotImplemented;
    } else if (s0 == u"snapshots"_s || s0 == u"templates"_s || s0 == u"teams"_s || s0 == u"volumes"_s
               || (s0 == u"v2"_s && segments.value(1) == u"templates"_s)) {
        route = Route::NotImplemented;
    }
    if (route == Route::None)
        return apiError(404, u"no matching operation was found"_s);
    if (route == Route::WrongMethod)
        return methodNotAllowed();
    if (auto refused = checkApiKey(request))
        return *refused;
    if (route == Route::NotImplemented)
        return notImplemented();

    QString id;
    if (!rawId.isEmpty()) {
        const std::optional<QString> parsed = shortId(rawId);
        if (!parsed)
            return apiError(400, u"Invalid sandbox ID"_s);
        id = *parsed;
    }
    switch (route) {
    case Route::SandboxesMetrics:
        return sandboxesMetrics(request);
    case Route::ListV1:
        return listSandboxesV1(request);
    case Route::CreateV1:
        return createSandbox(request, false);
    case Route::ListV2:
        return listSandboxesV2(request);
    case Route::CreateV2:
        return createSandbox(request, true);
    case Route::Get:
        return getSandbox(id);
    case Route::Kill:
        return killSandbox(id);
    case Route::Pause:
        return pauseSandbox(id, request);
    case Route::Resume:
        return resumeSandbox(id, request);
    case Route::ConnectV1:
        return connectSandbox(id, request, false);
    case Route::ConnectV2:
        return connectSandbox(id, request, true);
    case Route::Timeout:
        return setTimeout(id, request);
    case Route::Refresh:
        return refreshSandbox(id, request);
    case Route::Metrics:
        return sandboxMetrics(id);
    default:
        return notImplemented();
    }
}

// ---- control-plane routes -------------------------------------------------------------------

HttpResponse FakeE2b::createSandbox(const HttpRequest &request, bool v2)
{
    HttpResponse error;
    const std::optional<QJsonObject> parsed = jsonBody(request, true, &error);
    if (!parsed)
        return error;
    const QJsonObject &body = *parsed;
    QString bad;
    const QJsonValue templateValue = body.value(u"templateID"_s);
    if (!templateValue.isString()) {
        return validationError(templateValue.isUndefined()
                                   ? u"request body has an error: doesn't match schema: Error at \"/templateID\": "
                                     "property \"templateID\" is missing"_s
                                   : u"request body has an error: doesn't match schema: Error at \"/templateID\": "
                                     "value must be a string"_s);
    }
    const std::optional<qint64> timeout = intField(body, u"timeout"_s, 0, &bad);
    const auto metadata = mapField(body, u"metadata"_s, &bad);
    const auto envVars = mapField(body, u"envVars"_s, &bad);
    const auto autoPause = boolField(body, u"autoPause"_s, &bad);
    const auto autoPauseMemory = boolField(body, u"autoPauseMemory"_s, &bad);
    const auto secure = boolField(body, u"secure"_s, &bad);
    const auto internet = boolField(body, u"allow_internet_access"_s, &bad);
    std::optional<bool> autoResume;
    const QJsonValue autoResumeValue = body.value(u"autoResume"_s);
    if (!autoResumeValue.isUndefined() && !autoResumeValue.isNull()) {
        if (!autoResumeValue.isObject() || !autoResumeValue.toObject().value(u"enabled"_s).isBool())
            bad = u"request body has an error: doesn't match schema: Error at \"/autoResume\": property \"enabled\" "
                  "is missing"_s;
        else
            autoResume = autoResumeValue.toObject().value(u"enabled"_s).toBool();
    }
    if (!bad.isEmpty())
        return validationError(bad);

    const qint64 seconds = timeout.value_or(v2 ? V2DefaultTimeout : V1DefaultTimeout);
    if (seconds <= 0)
        return apiError(400, u"Timeout must be greater than 0"_s);
    if (seconds > static_cast<qint64>(m_options.maxTimeoutHours) * 3600)
        return apiError(400, u"Timeout cannot be greater than %1 hours"_s.arg(m_options.maxTimeoutHours));
    if (autoPauseMemory == false && autoPause != true)
        return apiError(400, u"autoPauseMemory=false only applies when autoPause is true."_s);
    if (autoResume == true && autoPauseMemory == false)
        return apiError(400, u"autoResume cannot be enabled for a sandbox that auto-pauses without memory."_s);
    QString alias;
    const std::optional<QString> templateId = templateIdFor(templateValue.toString(), &alias, &error);
    if (!templateId)
        return error;

    auto sandbox = std::make_unique<Sandbox>();
    sandbox->id = newSandboxId();
    sandbox->templateId = *templateId;
    sandbox->alias = alias;
    sandbox->metadata = metadata.value_or(QMap<QString, QString>());
    sandbox->envVars = envVars.value_or(QMap<QString, QString>());
    sandbox->autoPause = autoPause.value_or(false);
    sandbox->autoResume = autoResume.value_or(false);
    sandbox->allowInternetAccess = internet;
    sandbox->startedAtNs = now();
    sandbox->endAtNs = sandbox->startedAtNs + seconds * NsPerSecond;
    // v2 sandboxes are always secured; a v1 one only when it asked.
    if (v2 || secure.value_or(false))
        sandbox->token = newHexId();
    Sandbox *created = addSandbox(std::move(sandbox));
    ensureDirs(*created);
    ++m_stats.creates;
    scheduleEviction();
    return HttpResponse::json(201, sandboxJson(*created));
}

HttpResponse FakeE2b::listSandboxesV2(const HttpRequest &request)
{
    // Filters. The metadata value is decoded three times: the query string, the whole value,
    // then each key and value (parseFilters).
    QMap<QString, QString> wanted;
    const std::optional<QString> metadataParam = request.queryValue(u"metadata"_s);
    if (metadataParam && !metadataParam->isEmpty()) {
        const std::optional<QString> whole = goQueryUnescape(metadataParam->toUtf8());
        if (!whole)
            return apiError(400, u"Error parsing metadata"_s);
        for (const QString &pair : whole->split(u'&')) {
            const QStringList parts = pair.split(u'=');
            if (parts.size() != 2)
                return apiError(400, u"Error parsing metadata"_s);
            const auto key = goQueryUnescape(parts.at(0).toUtf8());
            const auto value = goQueryUnescape(parts.at(1).toUtf8());
            if (!key || !value)
                return apiError(400, u"Error parsing metadata"_s);
            wanted.insert(*key, *value);
        }
    }
    bool running = true;
    bool paused = true;
    const QStringList stateParams = request.queryValues(u"state"_s);
    if (!stateParams.isEmpty()) {
        running = false;
        paused = false;
        for (const QString &param : stateParams) {
            for (const QString &state : param.split(u',')) {
                if (state == u"running"_s)
                    running = true;
                else if (state == u"paused"_s)
                    paused = true;
                else
                    return apiError(400,
                                    u"parameter \"state\" in query has an error: value is not one of the "
                                    "allowed values [\"running\",\"paused\"]"_s);
            }
        }
    }
    const QString order = request.queryValue(u"order"_s).value_or(u"desc"_s);
    if (order != u"asc"_s && order != u"desc"_s)
        return apiError(400,
                        u"parameter \"order\" in query has an error: value is not one of the allowed values "
                        "[\"asc\",\"desc\"]"_s);
    const bool ascending = order == u"asc"_s;
    std::optional<qint64> startedAfter;
    if (const auto text = request.queryValue(u"startedAfter"_s)) {
        startedAfter = parseTime(*text);
        if (!startedAfter)
            return apiError(400, u"parameter \"startedAfter\" in query has an error: invalid date-time"_s);
    }
    QString templateFilter = request.queryValue(u"template"_s).value_or(QString());
    if (templateFilter.contains(u':'))
        return apiError(400, u"template filter must not contain a tag"_s);
    qint64 limit = 100;
    if (const auto text = request.queryValue(u"limit"_s)) {
        bool ok = false;
        limit = text->toLongLong(&ok);
        if (!ok)
            return apiError(400, u"parameter \"limit\" in query has an error: value must be an integer"_s);
        if (limit < 1)
            return apiError(400, u"parameter \"limit\" in query has an error: number must be at least 1"_s);
        if (limit > 100)
            return apiError(400, u"parameter \"limit\" in query has an error: number must be at most 100"_s);
    }
    // The cursor: the last sandbox of the previous page.
    std::optional<std::pair<qint64, QString>> cursor;
    if (const auto token = request.queryValue(u"nextToken"_s); token && !token->isEmpty()) {
        const auto decoded = QByteArray::fromBase64Encoding(
            token->toLatin1(), QByteArray::Base64UrlEncoding | QByteArray::AbortOnBase64DecodingErrors);
        QStringList parts = decoded ? QString::fromUtf8(*decoded).split(u"__"_s) : QStringList();
        const bool tokenAscending = parts.size() == 3 && parts.at(2) == u"asc"_s;
        if ((parts.size() != 2 && !tokenAscending) || tokenAscending != ascending)
            return apiError(400, u"Invalid next token"_s);
        const std::optional<qint64> at = parseTime(parts.at(0));
        if (!at)
            return apiError(400, u"Invalid next token"_s);
        cursor = std::make_pair(*at, parts.at(1));
    }

    // The filtered list, newest first, cached until the table changes.
    QString key = QString::number(running) + QString::number(paused) + u'\x1f' + templateFilter + u'\x1f'
        + (startedAfter ? QString::number(*startedAfter) : QString());
    for (auto it = wanted.cbegin(); it != wanted.cend(); ++it)
        key += u'\x1f' + it.key() + u'\x1e' + it.value();
    if (m_filterCache.key != key || m_filterCache.generation != m_generation) {
        m_filterCache.key = key;
        m_filterCache.generation = m_generation;
        m_filterCache.items.clear();
        m_filterCache.running = 0;
        for (Sandbox *sandbox : m_sorted) {
            if (sandbox->paused ? !paused : !running)
                continue;
            if (!templateFilter.isEmpty() && templateFilter != sandbox->alias && templateFilter != sandbox->templateId)
                continue;
            if (startedAfter && sandbox->startedAtNs < *startedAfter)
                continue;
            bool matches = true;
            for (auto it = wanted.cbegin(); it != wanted.cend() && matches; ++it) {
                const auto found = sandbox->metadata.constFind(it.key());
                matches = found != sandbox->metadata.cend() && found.value() == it.value();
            }
            if (!matches)
                continue;
            m_filterCache.items.push_back(sandbox);
            if (!sandbox->paused)
                ++m_filterCache.running;
        }
    }
    const std::vector<Sandbox *> &items = m_filterCache.items;
    const auto before = [](const Sandbox *s, qint64 at, const QString &id, bool orEqual) {
        return s->startedAtNs > at || (s->startedAtNs == at && (orEqual ? s->id <= id : s->id < id));
    };
    std::vector<Sandbox *> page;
    bool more = false;
    if (!ascending) {
        auto it = items.begin();
        if (cursor) {
            it = std::partition_point(items.begin(), items.end(),
                                      [&](const Sandbox *s) { return before(s, cursor->first, cursor->second, true); });
        }
        for (; it != items.end(); ++it) {
            if (static_cast<qint64>(page.size()) == limit) {
                more = true;
                break;
            }
            page.push_back(*it);
        }
    } else {
        auto end = items.end();
        if (cursor) {
            end = std::partition_point(items.begin(), items.end(), [&](const Sandbox *s) {
                return before(s, cursor->first, cursor->second, false);
            });
        }
        for (auto it = end; it != items.begin();) {
            --it;
            if (static_cast<qint64>(page.size()) == limit) {
                more = true;
                break;
            }
            page.push_back(*it);
        }
    }
    QByteArray out = "[";
    for (Sandbox *sandbox : page) {
        if (out.size() > 1)
            out += ',';
        out += listedJson(*sandbox);
    }
    out += ']';
    HttpResponse response = HttpResponse::json(200, out);
    if (more && !page.empty()) {
        const Sandbox *last = page.back();
        QString raw = formatTime(last->startedAtNs) + u"__"_s + last->id;
        if (ascending)
            raw += u"__asc"_s;
        response.setHeader("X-Next-Token", raw.toUtf8().toBase64(QByteArray::Base64UrlEncoding));
    }
    if (running)
        response.setHeader("X-Total-Running", QByteArray::number(m_filterCache.running));
    return response;
}

HttpResponse FakeE2b::listSandboxesV1(const HttpRequest &request)
{
    // Running sandboxes only, one page, newest first; the same metadata filter.
    QMap<QString, QString> wanted;
    const std::optional<QString> metadataParam = request.queryValue(u"metadata"_s);
    if (metadataParam && !metadataParam->isEmpty()) {
        const std::optional<QString> whole = goQueryUnescape(metadataParam->toUtf8());
        if (!whole)
            return apiError(400, u"Error parsing metadata"_s);
        for (const QString &pair : whole->split(u'&')) {
            const QStringList parts = pair.split(u'=');
            const auto key = parts.size() == 2 ? goQueryUnescape(parts.at(0).toUtf8()) : std::nullopt;
            const auto value = parts.size() == 2 ? goQueryUnescape(parts.at(1).toUtf8()) : std::nullopt;
            if (!key || !value)
                return apiError(400, u"Error parsing metadata"_s);
            wanted.insert(*key, *value);
        }
    }
    QByteArray out = "[";
    for (Sandbox *sandbox : m_sorted) {
        if (sandbox->paused)
            continue;
        bool matches = true;
        for (auto it = wanted.cbegin(); it != wanted.cend() && matches; ++it)
            matches =
                sandbox->metadata.value(it.key(), QString()) == it.value() && sandbox->metadata.contains(it.key());
        if (!matches)
            continue;
        if (out.size() > 1)
            out += ',';
        out += listedJson(*sandbox);
    }
    out += ']';
    return HttpResponse::json(200, out);
}

HttpResponse FakeE2b::getSandbox(const QString &id)
{
    Sandbox *sandbox = find(id);
    if (!sandbox)
        return notFound(id);
    return HttpResponse::json(200, detailJson(*sandbox));
}

HttpResponse FakeE2b::killSandbox(const QString &id)
{
    Sandbox *sandbox = find(id);
    if (!sandbox)
        return notFound(id);
    removeSandbox(sandbox);
    return HttpResponse::empty(204);
}

HttpResponse FakeE2b::pauseSandbox(const QString &id, const HttpRequest &request)
{
    HttpResponse error;
    const std::optional<QJsonObject> body = jsonBody(request, false, &error);
    if (!body)
        return error;
    QString bad;
    boolField(*body, u"memory"_s, &bad);
    if (!bad.isEmpty())
        return validationError(bad);
    Sandbox *sandbox = find(id);
    if (!sandbox)
        return notFound(id);
    if (sandbox->paused)
        return apiError(409, u"Error pausing sandbox - sandbox '%1' is already paused"_s.arg(id));
    pause(sandbox);
    return HttpResponse::empty(204);
}

HttpResponse FakeE2b::connectSandbox(const QString &id, const HttpRequest &request, bool v2)
{
    HttpResponse error;
    const std::optional<QJsonObject> body = jsonBody(request, !v2, &error);
    if (!body)
        return error;
    QString bad;
    const std::optional<qint64> timeout = intField(*body, u"timeout"_s, v2 ? 1 : 0, &bad);
    boolField(*body, u"memory"_s, &bad);
    if (bad.isEmpty() && !v2 && !timeout)
        bad = u"request body has an error: doesn't match schema: Error at \"/timeout\": property \"timeout\" is "
              "missing"_s;
    if (!bad.isEmpty())
        return validationError(bad);
    const qint64 seconds = timeout.value_or(V2DefaultTimeout);
    if (seconds > static_cast<qint64>(m_options.maxTimeoutHours) * 3600)
        return apiError(400, u"Timeout cannot be greater than %1 hours"_s.arg(m_options.maxTimeoutHours));
    Sandbox *sandbox = find(id);
    if (!sandbox)
        return notFound(id);
    if (!sandbox->paused) {
        // Extend only, within the run's longest length.
        const qint64 wanted = std::min(now() + seconds * NsPerSecond, maxEndAt(*sandbox));
        if (wanted > sandbox->endAtNs)
            setDeadline(sandbox, wanted);
        return HttpResponse::json(200, sandboxJson(*sandbox));
    }
    resume(sandbox, seconds);
    if (seconds == 0)
        evictDue();
    return HttpResponse::json(201, sandboxJson(*sandbox));
}

HttpResponse FakeE2b::resumeSandbox(const QString &id, const HttpRequest &request)
{
    HttpResponse error;
    const std::optional<QJsonObject> body = jsonBody(request, false, &error);
    if (!body)
        return error;
    QString bad;
    const std::optional<qint64> timeout = intField(*body, u"timeout"_s, 0, &bad);
    const std::optional<bool> autoPause = boolField(*body, u"autoPause"_s, &bad);
    if (!bad.isEmpty())
        return validationError(bad);
    const qint64 seconds = timeout.value_or(V1DefaultTimeout);
    if (seconds > static_cast<qint64>(m_options.maxTimeoutHours) * 3600)
        return apiError(400, u"Timeout cannot be greater than %1 hours"_s.arg(m_options.maxTimeoutHours));
    Sandbox *sandbox = find(id);
    if (!sandbox)
        return notFound(id);
    if (!sandbox->paused)
        return apiError(409, u"Sandbox %1 is already running"_s.arg(id));
    if (autoPause)
        sandbox->autoPause = *autoPause;
    resume(sandbox, seconds);
    if (seconds == 0)
        evictDue();
    return HttpResponse::json(201, sandboxJson(*sandbox));
}

HttpResponse FakeE2b::setTimeout(const QString &id, const HttpRequest &request)
{
    HttpResponse error;
    const std::optional<QJsonObject> body = jsonBody(request, true, &error);
    if (!body)
        return error;
    QString bad;
    const std::optional<qint64> timeout = intField(*body, u"timeout"_s, 0, &bad);
    if (bad.isEmpty() && !timeout)
        bad = u"request body has an error: doesn't match schema: Error at \"/timeout\": property \"timeout\" is "
              "missing"_s;
    if (!bad.isEmpty())
        return validationError(bad);
    Sandbox *sandbox = find(id);
    if (!sandbox || sandbox->paused)
        return notFound(id);
    // It may shorten; it is clamped silently to the run's longest length.
    setDeadline(sandbox, std::min(now() + *timeout * NsPerSecond, maxEndAt(*sandbox)));
    if (*timeout == 0)
        evictDue();
    return HttpResponse::empty(204);
}

HttpResponse FakeE2b::refreshSandbox(const QString &id, const HttpRequest &request)
{
    HttpResponse error;
    const std::optional<QJsonObject> body = jsonBody(request, false, &error);
    if (!body)
        return error;
    QString bad;
    const std::optional<qint64> duration = intField(*body, u"duration"_s, 0, &bad);
    if (bad.isEmpty() && duration && *duration > 3600)
        bad = u"request body has an error: doesn't match schema: Error at \"/duration\": number must be at most "
              "3600"_s;
    if (!bad.isEmpty())
        return validationError(bad);
    Sandbox *sandbox = find(id);
    if (!sandbox || sandbox->paused)
        return notFound(id);
    const qint64 seconds = std::max<qint64>(duration.value_or(0), 15);
    const qint64 wanted = std::min(now() + seconds * NsPerSecond, maxEndAt(*sandbox));
    if (wanted > sandbox->endAtNs)
        setDeadline(sandbox, wanted);
    return HttpResponse::empty(204);
}

QJsonObject FakeE2b::measuredMetric(Sandbox &sandbox)
{
    // The sandbox is its namespace's processes (or, unconfined, each command's own).
    QList<qint64> roots;
    if (sandbox.box && sandbox.box->initPid() > 0)
        roots.append(sandbox.box->initPid());
    for (const auto &[pid, process] : sandbox.processes) {
        if (process->running && process->process && process->process->processId() > 0)
            roots.append(process->process->processId());
    }
    const auto [cores, resident] = m_cpu.measure(sandbox.id, roots);
    const qint64 current = now();
    // envd's figures: cpuUsedPct of every CPU of the sandbox together, memory in bytes.
    return QJsonObject{{u"timestamp"_s, formatTime(current)},
                       {u"timestampUnix"_s, current / NsPerSecond},
                       {u"cpuCount"_s, sandbox.cpuCount},
                       {u"cpuUsedPct"_s, std::min(100.0, cores * 100.0 / std::max(1, sandbox.cpuCount))},
                       {u"memUsed"_s, resident},
                       {u"memTotal"_s, qint64(sandbox.memoryMB) << 20},
                       {u"memCache"_s, 0},
                       {u"diskUsed"_s, 0},
                       {u"diskTotal"_s, qint64(sandbox.diskSizeMB) << 20}};
}

HttpResponse FakeE2b::sandboxMetrics(const QString &id)
{
    Sandbox *sandbox = find(id);
    if (!sandbox)
        return notFound(id);
    if (sandbox->paused)
        return HttpResponse::json(200, QByteArray("[]"));
    return HttpResponse::json(200, QJsonDocument(QJsonArray{measuredMetric(*sandbox)}).toJson(QJsonDocument::Compact));
}

HttpResponse FakeE2b::sandboxesMetrics(const HttpRequest &request)
{
    const QStringList ids = request.queryValue(u"sandbox_ids"_s).value_or(QString()).split(u',', Qt::SkipEmptyParts);
    if (ids.isEmpty())
        return apiError(400, u"sandbox_ids is required"_s);
    if (ids.size() > 100)
        return apiError(400, u"at most 100 sandbox ids"_s);
    QJsonObject sandboxes;
    for (const QString &raw : ids) {
        const std::optional<QString> id = shortId(raw);
        Sandbox *sandbox = id ? find(*id) : nullptr;
        // Unknown or paused: no entry.
        if (sandbox && !sandbox->paused)
            sandboxes.insert(raw, measuredMetric(*sandbox));
    }
    return HttpResponse::json(200,
                              QJsonDocument(QJsonObject{{u"sandboxes"_s, sandboxes}}).toJson(QJsonDocument::Compact));
}

// ---- test-only routes -----------------------------------------------------------------------

QJsonObject FakeE2b::statsJson() const
{
    qint64 running = 0;
    qint64 processes = 0;
    for (const auto &[id, sandbox] : m_sandboxes) {
        running += sandbox->paused ? 0 : 1;
        for (const auto &[pid, process] : sandbox->processes)
            processes += process->running ? 1 : 0;
    }
    return QJsonObject{{u"requests"_s, m_stats.requests},
                       {u"inflight"_s, m_stats.inflight},
                       {u"maxInflight"_s, m_stats.maxInflight},
                       {u"creates"_s, m_stats.creates},
                       {u"envdRequests"_s, m_stats.envdRequests},
                       {u"envdRequestsWithApiKey"_s, m_stats.envdRequestsWithApiKey},
                       {u"sandboxes"_s, static_cast<qint64>(m_sandboxes.size())},
                       {u"running"_s, running},
                       {u"paused"_s, static_cast<qint64>(m_sandboxes.size()) - running},
                       {u"processes"_s, processes}};
}

void FakeE2b::handleFake(HttpConnection *connection, const HttpRequest &request)
{
    const QStringList segments = request.pathSegments().mid(1);
    const QByteArray &method = request.method;
    const auto reply = [connection](const QJsonObject &object) { connection->send(HttpResponse::json(200, object)); };
    const auto body = QJsonDocument::fromJson(request.body).object();
    const auto clock = [this] {
        return QJsonObject{{u"now"_s, formatTime(now())}, {u"offsetMs"_s, m_clockOffsetNs / 1'000'000}};
    };
    if (segments == QStringList{u"stats"_s} && method == "GET")
        return reply(statsJson());
    if (segments == QStringList{u"reset-stats"_s} && method == "POST") {
        m_stats.requests = 0;
        m_stats.creates = 0;
        m_stats.envdRequests = 0;
        m_stats.envdRequestsWithApiKey = 0;
        m_stats.maxInflight = m_stats.inflight;
        return reply(statsJson());
    }
    if (segments == QStringList{u"info"_s} && method == "GET") {
        return reply(QJsonObject{{u"apiUrl"_s, apiUrl()},
                                 {u"envdUrl"_s, envdUrl()},
                                 {u"dataDir"_s, m_dataDir},
                                 {u"bubblewrap"_s, m_options.bubblewrap},
                                 {u"maxTimeoutHours"_s, m_options.maxTimeoutHours},
                                 {u"envdVersion"_s, QString(EnvdVersion)},
                                 {u"templates"_s, QJsonArray::fromStringList(m_options.templates)}});
    }
    if (segments == QStringList{u"clock"_s}) {
        if (method == "GET")
            return reply(clock());
        if (method == "POST") {
            const qint64 advanceMs = body.value(u"advanceMs"_s).toInteger()
                + static_cast<qint64>(body.value(u"advanceSeconds"_s).toDouble() * 1000);
            if (advanceMs < 0) {
                return connection->send(apiError(400, u"the clock only goes forward"_s));
            }
            m_clockOffsetNs += advanceMs * 1'000'000;
            evictDue();
            return reply(clock());
        }
    }
    if (segments == QStringList{u"envd"_s} && method == "POST") {
        m_envdUnreachable = body.value(u"unreachable"_s).toBool();
        return reply(QJsonObject{{u"unreachable"_s, m_envdUnreachable}});
    }
    if (segments.size() >= 2 && segments.at(0) == u"sandboxes"_s) {
        Sandbox *sandbox = find(segments.at(1));
        if (!sandbox)
            return connection->send(notFound(segments.at(1)));
        const QString action = segments.value(2);
        if (segments.size() == 2 && method == "GET") {
            QJsonArray pids;
            for (const auto &[pid, process] : sandbox->processes) {
                if (process->running)
                    pids.append(static_cast<qint64>(pid));
            }
            return reply(QJsonObject{{u"state"_s, sandbox->paused ? u"paused"_s : u"running"_s},
                                     {u"hostDir"_s, sandboxDir(*sandbox)},
                                     {u"token"_s, sandbox->token},
                                     {u"startedAt"_s, formatTime(sandbox->startedAtNs)},
                                     {u"endAt"_s, formatTime(sandbox->endAtNs)},
                                     {u"processes"_s, pids},
                                     {u"envdUnreachable"_s, sandbox->envdUnreachable},
                                     {u"boxRunning"_s, sandbox->box && sandbox->box->isRunning()}});
        }
        if (action == u"envd"_s && method == "POST") {
            sandbox->envdUnreachable = body.value(u"unreachable"_s).toBool();
            return reply(QJsonObject{{u"unreachable"_s, sandbox->envdUnreachable}});
        }
        if (action == u"break-streams"_s && method == "POST") {
            const QString modeText = body.value(u"mode"_s).toString(u"drop"_s);
            const BreakMode mode = modeText == u"truncate"_s ? BreakMode::Truncate
                : modeText == u"drop"_s                      ? BreakMode::Drop
                                                             : BreakMode::None;
            if (mode == BreakMode::None)
                return connection->send(apiError(400, u"mode must be drop or truncate"_s));
            int broken = 0;
            if (body.value(u"when"_s).toString(u"now"_s) == u"next"_s) {
                sandbox->breakNext = mode;
            } else {
                for (const auto &[pid, process] : sandbox->processes) {
                    for (const QPointer<RpcStream> &stream : std::as_const(process->streams)) {
                        if (stream && stream->isOpen()) {
                            stream->breakOff(mode);
                            ++broken;
                        }
                    }
                }
            }
            return reply(QJsonObject{{u"broken"_s, broken}, {u"mode"_s, modeText}});
        }
    }
    connection->send(apiError(404, u"no such test route"_s));
}

} // namespace PaddockFake::E2b
