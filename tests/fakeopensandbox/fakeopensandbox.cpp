// The lifecycle side of the fake server: listeners, the sandbox table (sorted for listing,
// persisted to state.json), expiry, seeding, failure injection, and the lifecycle routes.

#include "fakeopensandbox.h"
#include "sandbox.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QSaveFile>
#include <QTemporaryDir>

#include <algorithm>
#include <cmath>
#include <csignal>

using namespace Qt::StringLiterals;

namespace PaddockFake {

namespace {

constexpr int ExecdPort = 44772;

HttpResponse notFoundDetail()
{
    return HttpResponse::json(404, QJsonObject{{u"detail"_s, u"Not Found"_s}});
}

HttpResponse methodNotAllowed(const QByteArray &allow)
{
    HttpResponse response = HttpResponse::json(405, QJsonObject{{u"detail"_s, u"Method Not Allowed"_s}});
    response.setHeader("Allow", allow);
    return response;
}

HttpResponse sandboxNotFound(const QString &id)
{
    return HttpResponse::error(404, u"DOCKER::SANDBOX_NOT_FOUND"_s, u"Sandbox %1 not found."_s.arg(id));
}

HttpResponse unprocessable(const QJsonArray &detail)
{
    return HttpResponse::json(422, QJsonObject{{u"detail"_s, detail}});
}

QJsonArray loc(std::initializer_list<QJsonValue> parts)
{
    return QJsonArray(parts);
}

// FastAPI's reading of a JSON body: a missing body and malformed JSON are 422s.
std::optional<HttpResponse> parseJsonBody(const HttpRequest &request, QJsonValue *value)
{
    if (request.body.trimmed().isEmpty()) {
        return unprocessable({validationError(u"missing"_s, loc({u"body"_s}), u"Field required"_s, QJsonValue())});
    }
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(request.body, &error);
    if (error.error != QJsonParseError::NoError) {
        return unprocessable({validationError(u"json_invalid"_s, loc({u"body"_s, error.offset}), u"JSON decode error"_s,
                                              QJsonObject(), QJsonObject{{u"error"_s, error.errorString()}})});
    }
    *value = document.isObject() ? QJsonValue(document.object()) : QJsonValue(document.array());
    return std::nullopt;
}

QJsonObject notADict(const QJsonArray &where, const QJsonValue &input)
{
    return validationError(u"model_attributes_type"_s, where,
                           u"Input should be a valid dictionary or object to extract fields from"_s, input);
}

// pydantic's lax int from JSON: ints, integral floats and integer strings.
bool pyInt(const QJsonValue &value, const QJsonArray &where, qint64 *out, QJsonArray &errors)
{
    if (value.isDouble()) {
        const double d = value.toDouble();
        if (d != static_cast<double>(static_cast<qint64>(d))) {
            errors.append(validationError(u"int_from_float"_s, where,
                                          u"Input should be a valid integer, got a number with a fractional part"_s,
                                          value));
            return false;
        }
        *out = static_cast<qint64>(d);
        return true;
    }
    if (value.isString()) {
        bool ok = false;
        *out = value.toString().trimmed().toLongLong(&ok);
        if (ok)
            return true;
        errors.append(validationError(u"int_parsing"_s, where,
                                      u"Input should be a valid integer, unable to parse string as an integer"_s,
                                      value));
        return false;
    }
    errors.append(validationError(u"int_type"_s, where, u"Input should be a valid integer"_s, value));
    return false;
}

// A Dict[str, str] field (or Dict[str, Optional[str]]); nullopt when absent or null.
std::optional<QMap<QString, QString>> stringMap(const QJsonObject &body, const QString &field, bool allowNullValues,
                                                QJsonArray &errors)
{
    const QJsonValue value = body.value(field);
    if (value.isUndefined() || value.isNull())
        return std::nullopt;
    QMap<QString, QString> map;
    if (!value.isObject()) {
        errors.append(
            validationError(u"dict_type"_s, loc({u"body"_s, field}), u"Input should be a valid dictionary"_s, value));
        return map;
    }
    const QJsonObject object = value.toObject();
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (it.value().isString())
            map.insert(it.key(), it.value().toString());
        else if (!(allowNullValues && it.value().isNull()))
            errors.append(validationError(u"string_type"_s, loc({u"body"_s, field, it.key()}),
                                          u"Input should be a valid string"_s, it.value()));
    }
    return map;
}

std::optional<QString> optionalString(const QJsonObject &object, const QString &field, const QJsonArray &where,
                                      QJsonArray &errors)
{
    const QJsonValue value = object.value(field);
    if (value.isUndefined() || value.isNull())
        return std::nullopt;
    if (!value.isString()) {
        errors.append(validationError(u"string_type"_s, where, u"Input should be a valid string"_s, value));
        return std::nullopt;
    }
    return value.toString();
}

QString requiredString(const QJsonObject &object, const QString &field, const QJsonArray &where, QJsonArray &errors)
{
    const QJsonValue value = object.value(field);
    if (value.isUndefined()) {
        errors.append(validationError(u"missing"_s, where, u"Field required"_s, object));
        return {};
    }
    if (!value.isString()) {
        errors.append(validationError(u"string_type"_s, where, u"Input should be a valid string"_s, value));
        return {};
    }
    return value.toString();
}

QJsonObject valueError(const QString &message, const QJsonValue &input)
{
    return validationError(u"value_error"_s, loc({u"body"_s}), u"Value error, "_s + message, input,
                           QJsonObject{{u"error"_s, QJsonObject()}});
}

std::optional<HttpResponse> checkMetadataLabels(const QMap<QString, QString> &metadata)
{
    for (auto it = metadata.begin(); it != metadata.end(); ++it) {
        if (it.key().startsWith(ReservedLabelPrefix)) {
            return HttpResponse::error(
                400, u"SANDBOX::INVALID_METADATA_LABEL"_s,
                u"Metadata key '%1' uses the reserved prefix '%2'. Keys under this prefix are "
                "managed by the system and cannot be set via metadata."_s.arg(it.key(), ReservedLabelPrefix));
        }
        if (!isValidLabelKey(it.key())) {
            return HttpResponse::error(
                400, u"SANDBOX::INVALID_METADATA_LABEL"_s,
                u"Metadata key '%1' is invalid: must be either a name or a DNS-subdomain prefix and name separated by "
                "/, where the name is up to 63 characters and matches [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?, and "
                "the "
                "optional prefix is a valid DNS subdomain up to 253 characters."_s.arg(it.key()));
        }
        if (!isValidLabelValue(it.value())) {
            return HttpResponse::error(
                400, u"SANDBOX::INVALID_METADATA_LABEL"_s,
                u"Metadata value '%1' is invalid: must be 63 characters or less, start/end with an alphanumeric "
                "character, and contain only alphanumeric, '-', '_', or '.' characters."_s.arg(it.value()));
        }
    }
    return std::nullopt;
}

QJsonObject mapToObject(const QMap<QString, QString> &map)
{
    QJsonObject object;
    for (auto it = map.begin(); it != map.end(); ++it)
        object.insert(it.key(), it.value());
    return object;
}

QMap<QString, QString> objectToMap(const QJsonObject &object)
{
    QMap<QString, QString> map;
    for (auto it = object.begin(); it != object.end(); ++it)
        map.insert(it.key(), it.value().toString());
    return map;
}

bool sortsBefore(const Sandbox *a, const Sandbox *b)
{
    if (a->createdAtUs != b->createdAtUs)
        return a->createdAtUs > b->createdAtUs;
    return a->id < b->id;
}

std::optional<bool> pyBool(const QString &text)
{
    const QString lower = text.trimmed().toLower();
    for (const char *yes : {"1", "on", "t", "true", "y", "yes"}) {
        if (lower == QLatin1StringView(yes))
            return true;
    }
    for (const char *no : {"0", "off", "f", "false", "n", "no"}) {
        if (lower == QLatin1StringView(no))
            return false;
    }
    return std::nullopt;
}

} // namespace

FakeOpenSandbox::FakeOpenSandbox(Options options, QObject *parent)
    : QObject(parent)
    , m_options(std::move(options))
    , m_rng(m_options.failSeed)
{
    m_expiryTimer.setSingleShot(true);
    m_expiryTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_expiryTimer, &QTimer::timeout, this, &FakeOpenSandbox::expireDue);
    m_lifecycle.setHandler([this](HttpConnection *c, const HttpRequest &r) { onLifecycleRequest(c, r); });
    m_execd.setHandler([this](HttpConnection *c, const HttpRequest &r) { onExecdRequest(c, r); });
    m_lifecycle.setRecordAs("api"); // its server proxy too (/sandboxes/{id}/proxy/...): a lifecycle route
    m_execd.setRecordAs("execd");
    m_shell = (QFile::exists(u"/bin/bash"_s) || QFile::exists(u"/usr/bin/bash"_s)) ? u"bash"_s : u"sh"_s;
}

FakeOpenSandbox::~FakeOpenSandbox()
{
    shutdown();
}

QString FakeOpenSandbox::baseUrl() const
{
    return u"http://127.0.0.1:%1"_s.arg(lifecyclePort());
}

bool FakeOpenSandbox::start(QString *error)
{
    if (m_options.bubblewrap && m_options.bubblewrapPath.isEmpty()) {
        QString why;
        m_options.bubblewrapPath = findBubblewrap(&why);
        if (m_options.bubblewrapPath.isEmpty()) {
            *error =
                why + u"; install bubblewrap, or pass --no-bwrap to run commands unconfined on this machine (unsafe)"_s;
            return false;
        }
    }
    if (m_options.dataDir.isEmpty()) {
        m_tempDir = std::make_unique<QTemporaryDir>(QDir::tempPath() + u"/paddock-fake-opensandbox-XXXXXX"_s);
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
        m_persist = true;
        if (!load(error))
            return false;
    }
    if (m_sandboxes.empty() && m_options.seed > 0)
        seed(m_options.seed);
    if (!m_lifecycle.listen(m_options.port, error) || !m_execd.listen(m_options.execdPort, error))
        return false;
    persist();
    scheduleExpiry();
    return true;
}

void FakeOpenSandbox::shutdown()
{
    if (m_stopped)
        return;
    m_stopped = true;
    m_lifecycle.close();
    m_execd.close();
    m_expiryTimer.stop();
    const QList<Command *> commands = findChildren<Command *>(Qt::FindDirectChildrenOnly);
    for (Command *command : commands) {
        command->stream = nullptr;
        killCommand(command);
    }
    for (Command *command : commands) {
        if (command->process && command->process->state() != QProcess::NotRunning)
            command->process->waitForFinished(2000);
    }
    persist();
}

// ---- sandbox table ------------------------------------------------------------------------

Sandbox *FakeOpenSandbox::find(const QString &id) const
{
    const auto it = m_sandboxes.find(id);
    return it == m_sandboxes.end() ? nullptr : it->second.get();
}

Sandbox *FakeOpenSandbox::addSandbox(std::unique_ptr<Sandbox> sandbox)
{
    Sandbox *raw = sandbox.get();
    m_sandboxes.emplace(raw->id, std::move(sandbox));
    m_sorted.insert(std::lower_bound(m_sorted.begin(), m_sorted.end(), raw, sortsBefore), raw);
    if (raw->expiresAtUs)
        m_expiries.insert({*raw->expiresAtUs, raw->id});
    ++m_generation;
    return raw;
}

void FakeOpenSandbox::changed(Sandbox *sandbox)
{
    sandbox->jsonCache.clear();
    sandbox->persistCache.clear();
    ++m_generation;
    persist();
}

void FakeOpenSandbox::signalCommands(Sandbox &sandbox, int signal)
{
    for (const auto &[id, command] : sandbox.commands) {
        if (command->running && command->pgid > 0)
            ::kill(static_cast<pid_t>(-command->pgid), signal);
    }
}

void FakeOpenSandbox::resumed(Sandbox *sandbox)
{
    sandbox->state = u"Running"_s;
    signalCommands(*sandbox, SIGCONT);
    changed(sandbox);
    // The frozen execd answers what it was sent while paused.
    const QList<HeldCall> held = std::exchange(sandbox->held, {});
    const QString sandboxId = sandbox->id;
    QTimer::singleShot(0, this, [this, held, sandboxId] {
        for (const HeldCall &call : held) {
            Sandbox *current = find(sandboxId);
            if (!call.connection)
                continue;
            if (!current) {
                call.connection->abort();
                continue;
            }
            dispatchExecd(current, call.connection, call.request, call.checkToken);
        }
    });
}

void FakeOpenSandbox::killCommand(Command *command)
{
    if (command->running)
        killProcessGroup(command->pgid);
}

void FakeOpenSandbox::destroySandbox(Sandbox *sandbox)
{
    const QString id = sandbox->id;
    // The container is gone: its processes die, its connections break.
    for (const auto &[commandId, command] : sandbox->commands) {
        killCommand(command);
        if (command->stream)
            command->stream->abort();
        command->stream = nullptr;
        command->orphaned = true;
        if (command->ping)
            command->ping->stop();
        if (command->deadline)
            command->deadline->stop();
        if (!command->running)
            command->deleteLater();
    }
    for (const HeldCall &call : std::as_const(sandbox->held)) {
        if (call.connection)
            call.connection->abort();
    }
    if (sandbox->expiresAtUs)
        m_expiries.erase({*sandbox->expiresAtUs, id});
    const auto pos = std::lower_bound(m_sorted.begin(), m_sorted.end(), sandbox, sortsBefore);
    if (pos != m_sorted.end() && *pos == sandbox)
        m_sorted.erase(pos);
    else
        m_sorted.erase(std::remove(m_sorted.begin(), m_sorted.end(), sandbox), m_sorted.end());
    const QString dir = sandboxDir(*sandbox);
    m_sandboxes.erase(id);
    QDir(dir).removeRecursively();
    ++m_generation;
    persist();
    scheduleExpiry();
}

QString FakeOpenSandbox::sandboxDir(const Sandbox &sandbox) const
{
    return m_dataDir + u'/' + sandbox.id;
}

bool FakeOpenSandbox::ensureDirs(Sandbox &sandbox)
{
    if (sandbox.dirsReady)
        return true;
    const QString dir = sandboxDir(sandbox);
    for (const char *sub : {"workspace", "root", "tmp", "execd"}) {
        if (!QDir().mkpath(dir + u'/' + QLatin1StringView(sub)))
            return false;
    }
    QFile::setPermissions(dir + u"/tmp"_s,
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner
                              | QFileDevice::ReadGroup | QFileDevice::WriteGroup | QFileDevice::ExeGroup
                              | QFileDevice::ReadOther | QFileDevice::WriteOther | QFileDevice::ExeOther);
    sandbox.dirsReady = true;
    return true;
}

void FakeOpenSandbox::appendContainerLog(Sandbox &sandbox, const QByteArray &data)
{
    if (data.isEmpty() || !ensureDirs(sandbox))
        return;
    QFile log(sandboxDir(sandbox) + u"/container.log"_s);
    if (!log.open(QIODevice::WriteOnly | QIODevice::Append))
        return;
    // Like `docker logs --timestamps`: each line starts with its time.
    QByteArray out;
    const QByteArray stamp = formatGoTime(nowNs()).toLatin1() + ' ';
    for (const char c : data) {
        if (sandbox.logAtLineStart)
            out += stamp;
        out += c;
        sandbox.logAtLineStart = c == '\n';
    }
    log.write(out);
}

QJsonObject FakeOpenSandbox::sandboxObject(const Sandbox &sandbox, bool createResponse) const
{
    QString reason = u"CONTAINER_RUNNING"_s;
    QString message =
        createResponse ? u"Sandbox container started successfully."_s : u"Sandbox container is running."_s;
    if (sandbox.state == u"Paused"_s) {
        reason = u"CONTAINER_PAUSED"_s;
        message = u"Sandbox container is paused."_s;
    }
    // Docker reports no transition time for a container that never stopped; the server then
    // uses the creation time.
    const QJsonObject status{{u"state"_s, sandbox.state},
                             {u"reason"_s, reason},
                             {u"message"_s, message},
                             {u"lastTransitionAt"_s, formatPydanticTime(sandbox.createdAtUs)}};
    QJsonObject object{{u"id"_s, sandbox.id},
                       {u"status"_s, status},
                       {u"platform"_s, QJsonObject{{u"os"_s, sandbox.os}, {u"arch"_s, sandbox.arch}}},
                       {u"entrypoint"_s, QJsonArray::fromStringList(sandbox.entrypoint)},
                       {u"createdAt"_s, formatPydanticTime(sandbox.createdAtUs)}};
    if (!createResponse)
        object.insert(u"image"_s, QJsonObject{{u"uri"_s, sandbox.image}});
    if (!createResponse || sandbox.metadataGiven)
        object.insert(u"metadata"_s, mapToObject(sandbox.metadata));
    if (sandbox.expiresAtUs)
        object.insert(u"expiresAt"_s, formatPydanticTime(*sandbox.expiresAtUs));
    return object;
}

const QByteArray &FakeOpenSandbox::sandboxJson(Sandbox &sandbox)
{
    if (!sandbox.jsonCache.isEmpty())
        return sandbox.jsonCache;
    // Written by hand, in pydantic's field order: listing 10,000 sandboxes serialises each once.
    const bool paused = sandbox.state == u"Paused"_s;
    QByteArray &out = sandbox.jsonCache;
    out.reserve(512);
    out += "{\"id\":";
    appendJsonString(out, sandbox.id);
    out += ",\"image\":{\"uri\":";
    appendJsonString(out, sandbox.image);
    out += "},\"platform\":{\"os\":";
    appendJsonString(out, sandbox.os);
    out += ",\"arch\":";
    appendJsonString(out, sandbox.arch);
    out += "},\"status\":{\"state\":";
    appendJsonString(out, sandbox.state);
    out += paused ? ",\"reason\":\"CONTAINER_PAUSED\",\"message\":\"Sandbox container is paused.\""
                  : ",\"reason\":\"CONTAINER_RUNNING\",\"message\":\"Sandbox container is running.\"";
    const QByteArray created = formatPydanticTime(sandbox.createdAtUs).toLatin1();
    out += ",\"lastTransitionAt\":\"" + created + "\"},\"metadata\":{";
    for (auto it = sandbox.metadata.cbegin(); it != sandbox.metadata.cend(); ++it) {
        if (it != sandbox.metadata.cbegin())
            out += ',';
        appendJsonString(out, it.key());
        out += ':';
        appendJsonString(out, it.value());
    }
    out += "},\"entrypoint\":[";
    for (qsizetype i = 0; i < sandbox.entrypoint.size(); ++i) {
        if (i > 0)
            out += ',';
        appendJsonString(out, sandbox.entrypoint.at(i));
    }
    out += ']';
    if (sandbox.expiresAtUs)
        out += ",\"expiresAt\":\"" + formatPydanticTime(*sandbox.expiresAtUs).toLatin1() + '"';
    out += ",\"createdAt\":\"" + created + "\"}";
    return out;
}

void FakeOpenSandbox::setExpiry(Sandbox &sandbox, std::optional<qint64> expiresAtUs)
{
    if (sandbox.expiresAtUs)
        m_expiries.erase({*sandbox.expiresAtUs, sandbox.id});
    sandbox.expiresAtUs = expiresAtUs;
    if (expiresAtUs)
        m_expiries.insert({*expiresAtUs, sandbox.id});
    scheduleExpiry();
}

void FakeOpenSandbox::scheduleExpiry()
{
    if (m_stopped || m_expiries.empty()) {
        m_expiryTimer.stop();
        return;
    }
    const qint64 delayMs = (m_expiries.begin()->first - nowUs() + 999) / 1000;
    m_expiryTimer.start(static_cast<int>(std::clamp<qint64>(delayMs, 0, 3'600'000)));
}

void FakeOpenSandbox::expireDue()
{
    const qint64 now = nowUs();
    while (!m_expiries.empty() && m_expiries.begin()->first <= now) {
        Sandbox *sandbox = find(m_expiries.begin()->second);
        if (!sandbox) {
            m_expiries.erase(m_expiries.begin());
            continue;
        }
        qInfo("sandbox %s expired", qPrintable(sandbox->id));
        destroySandbox(sandbox);
    }
    scheduleExpiry();
}

void FakeOpenSandbox::seed(int count)
{
    const int userCount = count >= 2 ? std::max(2, count / 50) : 1;
    const int agentCount = std::clamp(count / 10, 1, 5);
    QStringList users;
    for (int i = 1; i < userCount; ++i)
        users.append(u"user-%1"_s.arg(i));
    // 运维 as our metadata codec stores it: a value outside the label alphabet, base32'd.
    users.append(userCount >= 2 ? u"b32-5c7zbz53wq"_s : u"user-1"_s);
    const qint64 now = nowUs();
    for (int i = 0; i < count; ++i) {
        auto sandbox = std::make_unique<Sandbox>();
        sandbox->id = newUuid();
        sandbox->image = u"python:3.11"_s;
        sandbox->entrypoint = QStringList{u"tail"_s, u"-f"_s, u"/dev/null"_s};
        sandbox->state = (i % 4 == 3) ? u"Paused"_s : u"Running"_s;
        sandbox->createdAtUs = now - static_cast<qint64>(count - i) * 1'000'000;
        sandbox->expiresAtUs = sandbox->createdAtUs + 86'400LL * 1'000'000;
        sandbox->token = newHexId();
        sandbox->metadata.insert(u"agentscope.workspace.id"_s, newHexId());
        sandbox->metadata.insert(u"agentscope.user.id"_s, users.at(i % users.size()));
        sandbox->metadata.insert(u"agentscope.agent.id"_s, u"agent-%1"_s.arg(i % agentCount + 1));
        sandboxJson(*addSandbox(std::move(sandbox)));
    }
}

bool FakeOpenSandbox::load(QString *error)
{
    QFile file(m_dataDir + u"/state.json"_s);
    if (!file.exists())
        return true;
    if (!file.open(QIODevice::ReadOnly)) {
        *error = u"cannot read "_s + file.fileName();
        return false;
    }
    QJsonParseError parseError{};
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject()) {
        *error = u"%1 is not valid JSON: %2"_s.arg(file.fileName(), parseError.errorString());
        return false;
    }
    const qint64 now = nowUs();
    const QJsonArray records = document.object().value(u"sandboxes"_s).toArray();
    for (const QJsonValue &value : records) {
        const QJsonObject record = value.toObject();
        auto sandbox = std::make_unique<Sandbox>();
        sandbox->id = record.value(u"id"_s).toString();
        if (sandbox->id.isEmpty() || find(sandbox->id))
            continue;
        sandbox->image = record.value(u"image"_s).toString();
        sandbox->metadata = objectToMap(record.value(u"metadata"_s).toObject());
        for (const QJsonValue &arg : record.value(u"entrypoint"_s).toArray())
            sandbox->entrypoint.append(arg.toString());
        sandbox->env = objectToMap(record.value(u"env"_s).toObject());
        sandbox->state = record.value(u"state"_s).toString(u"Running"_s);
        sandbox->createdAtUs = static_cast<qint64>(record.value(u"createdAtUs"_s).toDouble());
        if (record.value(u"expiresAtUs"_s).isDouble())
            sandbox->expiresAtUs = static_cast<qint64>(record.value(u"expiresAtUs"_s).toDouble());
        sandbox->os = record.value(u"os"_s).toString(u"linux"_s);
        sandbox->arch = record.value(u"arch"_s).toString(u"amd64"_s);
        sandbox->token = record.value(u"token"_s).toString(newHexId());
        if (sandbox->expiresAtUs && *sandbox->expiresAtUs <= now) {
            QDir(sandboxDir(*sandbox)).removeRecursively();
            continue;
        }
        sandboxJson(*addSandbox(std::move(sandbox)));
    }
    return true;
}

void FakeOpenSandbox::persist()
{
    if (!m_persist)
        return;
    QByteArray out = "{\"version\":1,\"sandboxes\":[";
    bool first = true;
    for (Sandbox *sandbox : m_sorted) {
        if (sandbox->persistCache.isEmpty()) {
            QJsonObject record{{u"id"_s, sandbox->id},
                               {u"image"_s, sandbox->image},
                               {u"metadata"_s, mapToObject(sandbox->metadata)},
                               {u"entrypoint"_s, QJsonArray::fromStringList(sandbox->entrypoint)},
                               {u"env"_s, mapToObject(sandbox->env)},
                               {u"state"_s, sandbox->state},
                               {u"createdAtUs"_s, static_cast<double>(sandbox->createdAtUs)},
                               {u"os"_s, sandbox->os},
                               {u"arch"_s, sandbox->arch},
                               {u"token"_s, sandbox->token}};
            if (sandbox->expiresAtUs)
                record.insert(u"expiresAtUs"_s, static_cast<double>(*sandbox->expiresAtUs));
            sandbox->persistCache = compactJson(record);
        }
        if (!first)
            out += ',';
        first = false;
        out += sandbox->persistCache;
    }
    out += "]}";
    QSaveFile file(m_dataDir + u"/state.json"_s);
    if (!file.open(QIODevice::WriteOnly) || file.write(out) != out.size() || !file.commit())
        qWarning("cannot write %s", qPrintable(file.fileName()));
}

// ---- lifecycle listener ---------------------------------------------------------------------

FakeOpenSandbox::Injection FakeOpenSandbox::drawInjection()
{
    if (m_options.failRate <= 0)
        return Injection::None;
    const double draw = static_cast<double>(m_rng()) / 4294967296.0;
    if (draw >= m_options.failRate)
        return Injection::None;
    switch (m_rng() % 4) {
    case 0:
        return Injection::Status502;
    case 1:
        return Injection::Status503;
    case 2:
        return Injection::Status504;
    default:
        return (m_rng() % 2) ? Injection::DropHandled : Injection::DropUnhandled;
    }
}

QJsonObject FakeOpenSandbox::statsJson() const
{
    return QJsonObject{{u"requests"_s, m_stats.requests},
                       {u"inflight"_s, m_stats.inflight},
                       {u"maxInflight"_s, m_stats.maxInflight},
                       {u"creates"_s, m_stats.creates},
                       {u"execdRequests"_s, m_stats.execdRequests},
                       {u"execdRequestsWithApiKey"_s, m_stats.execdRequestsWithApiKey},
                       {u"sandboxes"_s, static_cast<qint64>(m_sandboxes.size())}};
}

void FakeOpenSandbox::handleFake(HttpConnection *connection, const HttpRequest &request)
{
    if (request.path == "/_fake/stats") {
        if (request.method != "GET")
            return connection->send(methodNotAllowed("GET"));
        return connection->send(HttpResponse::json(200, statsJson()));
    }
    if (request.path == "/_fake/reset-stats") {
        if (request.method != "POST")
            return connection->send(methodNotAllowed("POST"));
        m_stats.requests = 0;
        m_stats.creates = 0;
        m_stats.execdRequests = 0;
        m_stats.execdRequestsWithApiKey = 0;
        m_stats.maxInflight = m_stats.inflight;
        return connection->send(HttpResponse::json(200, statsJson()));
    }
    if (request.path == "/_fake/info") {
        if (request.method != "GET")
            return connection->send(methodNotAllowed("GET"));
        return connection->send(HttpResponse::json(200,
                                                   QJsonObject{{u"lifecyclePort"_s, lifecyclePort()},
                                                               {u"execdPort"_s, execdPort()},
                                                               {u"dataDir"_s, m_dataDir},
                                                               {u"bubblewrap"_s, m_options.bubblewrap}}));
    }
    connection->send(notFoundDetail());
}

void FakeOpenSandbox::onLifecycleRequest(HttpConnection *connection, const HttpRequest &request)
{
    if (request.path.startsWith("/_fake/")) {
        handleFake(connection, request);
        return;
    }
    ++m_stats.requests;
    QStringList segments = request.pathSegments();
    if (!segments.isEmpty() && segments.first() == u"v1"_s)
        segments.removeFirst();
    const bool health = segments == QStringList{u"health"_s};
    const bool proxy = segments.size() >= 4 && segments.at(0) == u"sandboxes"_s && segments.at(2) == u"proxy"_s;

    Injection injection = Injection::None;
    bool counted = false;
    bool overloaded = false;
    if (!health && !proxy) {
        injection = drawInjection();
        if (m_options.maxInflight > 0 && m_stats.inflight >= m_options.maxInflight) {
            overloaded = true;
        } else {
            counted = true;
            m_stats.maxInflight = std::max(m_stats.maxInflight, ++m_stats.inflight);
        }
    }

    const QPointer<HttpConnection> guard(connection);
    auto run = [this, guard, request, segments, health, proxy, injection, counted, overloaded] {
        if (counted)
            --m_stats.inflight;
        if (!guard || m_stopped)
            return;
        if (proxy) {
            handleProxy(guard, request);
            return;
        }
        QElapsedTimer timer;
        timer.start();
        HttpResponse response;
        if (health) {
            response = HttpResponse::json(200, QJsonObject{{u"status"_s, u"healthy"_s}});
        } else if (overloaded) {
            response = HttpResponse::error(503, u"GENERAL::UNAVAILABLE"_s, u"too many requests in flight"_s);
        } else {
            switch (injection) {
            case Injection::Status502:
            case Injection::Status503:
            case Injection::Status504: {
                const int status = injection == Injection::Status502 ? 502
                    : injection == Injection::Status503              ? 503
                                                                     : 504;
                response = HttpResponse::error(status, u"GENERAL::UNAVAILABLE"_s, u"injected failure"_s);
                break;
            }
            case Injection::DropHandled:
                handleLifecycle(request, segments);
                guard->abort();
                return;
            case Injection::DropUnhandled:
                guard->abort();
                return;
            case Injection::None:
                response = handleLifecycle(request, segments);
                break;
            }
        }
        const bool timed = std::any_of(response.headers.cbegin(), response.headers.cend(),
                                       [](const auto &header) { return header.first == "X-Fake-Serve-Us"; });
        if (!timed)
            response.setHeader("X-Fake-Serve-Us", QByteArray::number(timer.nsecsElapsed() / 1000));
        guard->send(response);
    };
    if (m_options.latencyMs > 0)
        QTimer::singleShot(m_options.latencyMs, Qt::PreciseTimer, this, run);
    else
        run();
}

HttpResponse FakeOpenSandbox::handleLifecycle(const HttpRequest &request, const QStringList &segments)
{
    QElapsedTimer timer;
    timer.start();
    HttpResponse response;
    bool answered = false;
    if (!m_options.apiKey.isEmpty()) {
        const QByteArray key = request.header("open-sandbox-api-key");
        if (key.isEmpty()) {
            response = HttpResponse::error(
                401, u"MISSING_API_KEY"_s,
                u"Authentication credentials are missing. Provide API key via OPEN-SANDBOX-API-KEY header."_s);
            answered = true;
        } else if (QString::fromUtf8(key) != m_options.apiKey) {
            response = HttpResponse::error(401, u"INVALID_API_KEY"_s, u"Invalid API key."_s);
            answered = true;
        }
    }
    if (!answered)
        response = routeLifecycle(request, segments);
    response.setHeader("X-Fake-Serve-Us", QByteArray::number(timer.nsecsElapsed() / 1000));
    return response;
}

HttpResponse FakeOpenSandbox::routeLifecycle(const HttpRequest &request, const QStringList &segments)
{
    const QByteArray &method = request.method;
    if (segments.isEmpty())
        return notFoundDetail();
    if (segments.at(0) == u"snapshots"_s
        || (segments.size() == 3 && segments.at(2) == u"snapshots"_s && segments.at(0) == u"sandboxes"_s)) {
        return HttpResponse::error(501, u"SANDBOX::API_NOT_SUPPORTED"_s,
                                   u"Snapshots are not supported by this server."_s);
    }
    if (segments.at(0) != u"sandboxes"_s)
        return notFoundDetail();
    if (segments.size() == 1) {
        if (method == "GET")
            return listSandboxes(request);
        if (method == "POST")
            return createSandbox(request);
        return methodNotAllowed("GET, POST");
    }
    const QString &id = segments.at(1);
    if (id.isEmpty())
        return notFoundDetail();
    if (segments.size() == 2) {
        if (method != "GET" && method != "DELETE")
            return methodNotAllowed("GET, DELETE");
        Sandbox *sandbox = find(id);
        if (!sandbox)
            return sandboxNotFound(id);
        if (method == "GET")
            return HttpResponse::json(200, sandboxJson(*sandbox));
        destroySandbox(sandbox);
        return HttpResponse::empty(204);
    }
    const QString &action = segments.at(2);
    if (segments.size() == 3) {
        if (action == u"pause"_s || action == u"resume"_s || action == u"renew-expiration"_s) {
            if (method != "POST")
                return methodNotAllowed("POST");
            if (action == u"renew-expiration"_s) {
                // The body is validated before the sandbox is looked up.
                QJsonValue body;
                if (auto bad = parseJsonBody(request, &body))
                    return *bad;
                Sandbox *sandbox = find(id);
                QJsonArray errors;
                if (!body.isObject())
                    return unprocessable({notADict(loc({u"body"_s}), body)});
                const QJsonValue value = body.toObject().value(u"expiresAt"_s);
                if (value.isUndefined())
                    errors.append(
                        validationError(u"missing"_s, loc({u"body"_s, u"expiresAt"_s}), u"Field required"_s, body));
                else if (!value.isString() && !value.isDouble())
                    errors.append(validationError(u"datetime_type"_s, loc({u"body"_s, u"expiresAt"_s}),
                                                  u"Input should be a valid datetime"_s, value));
                else if (value.isString() && !parseDateTimeUs(value.toString()))
                    errors.append(
                        validationError(u"datetime_from_date_parsing"_s, loc({u"body"_s, u"expiresAt"_s}),
                                        u"Input should be a valid datetime or date, invalid datetime format"_s, value));
                if (!errors.isEmpty())
                    return unprocessable(errors);
                if (!sandbox)
                    return sandboxNotFound(id);
                return renewExpiration(*sandbox, request);
            }
            Sandbox *sandbox = find(id);
            if (!sandbox)
                return sandboxNotFound(id);
            if (action == u"pause"_s) {
                if (sandbox->state != u"Running"_s) {
                    return HttpResponse::error(409, u"DOCKER::SANDBOX_NOT_RUNNING"_s,
                                               u"Sandbox is not in a running state."_s);
                }
                if (m_options.pauseMs > 0) {
                    // The Kubernetes providers answer 202 at once and settle later.
                    sandbox->state = u"Pausing"_s;
                    changed(sandbox);
                    const QString sandboxId = sandbox->id;
                    QTimer::singleShot(m_options.pauseMs, this, [this, sandboxId] {
                        Sandbox *current = find(sandboxId);
                        if (!current || current->state != u"Pausing"_s)
                            return;
                        current->state = u"Paused"_s;
                        signalCommands(*current, SIGSTOP);
                        changed(current);
                    });
                    return HttpResponse::empty(202);
                }
                sandbox->state = u"Paused"_s;
                signalCommands(*sandbox, SIGSTOP);
                changed(sandbox);
                return HttpResponse::empty(202);
            }
            if (sandbox->state != u"Paused"_s) {
                return HttpResponse::error(409, u"DOCKER::SANDBOX_NOT_PAUSED"_s,
                                           u"Sandbox is not in a paused state."_s);
            }
            if (m_options.resumeMs > 0) {
                // As a pause there: 202 at once, Resuming, Running later.
                sandbox->state = u"Resuming"_s;
                changed(sandbox);
                const QString sandboxId = sandbox->id;
                QTimer::singleShot(m_options.resumeMs, this, [this, sandboxId] {
                    Sandbox *current = find(sandboxId);
                    if (current && current->state == u"Resuming"_s)
                        resumed(current);
                });
                return HttpResponse::empty(202);
            }
            resumed(sandbox);
            return HttpResponse::empty(202);
        }
        if (action == u"metadata"_s) {
            if (method != "PATCH")
                return methodNotAllowed("PATCH");
            QJsonValue body;
            if (auto bad = parseJsonBody(request, &body))
                return *bad;
            if (!body.isObject()) {
                return unprocessable(
                    {validationError(u"dict_type"_s, loc({u"body"_s}), u"Input should be a valid dictionary"_s, body)});
            }
            QJsonArray errors;
            const QJsonObject patch = body.toObject();
            for (auto it = patch.begin(); it != patch.end(); ++it) {
                if (!it.value().isString() && !it.value().isNull())
                    errors.append(validationError(u"string_type"_s, loc({u"body"_s, it.key()}),
                                                  u"Input should be a valid string"_s, it.value()));
            }
            if (!errors.isEmpty())
                return unprocessable(errors);
            Sandbox *sandbox = find(id);
            if (!sandbox)
                return sandboxNotFound(id);
            return patchMetadata(*sandbox, request);
        }
        return notFoundDetail();
    }
    if (segments.size() == 4 && action == u"endpoints"_s) {
        if (method != "GET")
            return methodNotAllowed("GET");
        return endpoint(id, segments.at(3), request);
    }
    if (segments.size() == 4 && action == u"diagnostics"_s && segments.at(3) == u"logs"_s) {
        if (method != "GET")
            return methodNotAllowed("GET");
        Sandbox *sandbox = find(id);
        if (!sandbox)
            return sandboxNotFound(id);
        return diagnosticLogs(*sandbox, request);
    }
    return notFoundDetail();
}

HttpResponse FakeOpenSandbox::listSandboxes(const HttpRequest &request)
{
    QJsonArray errors;
    qint64 page = 1;
    qint64 pageSize = 20;
    const auto intParam = [&](const QString &name, qint64 *out, std::optional<qint64> max) {
        const std::optional<QString> raw = request.queryValue(name);
        if (!raw)
            return;
        bool ok = false;
        const qint64 value = raw->trimmed().toLongLong(&ok);
        if (!ok) {
            errors.append(validationError(u"int_parsing"_s, loc({u"query"_s, name}),
                                          u"Input should be a valid integer, unable to parse string as an integer"_s,
                                          *raw));
        } else if (value < 1) {
            errors.append(validationError(u"greater_than_equal"_s, loc({u"query"_s, name}),
                                          u"Input should be greater than or equal to 1"_s, *raw,
                                          QJsonObject{{u"ge"_s, 1}}));
        } else if (max && value > *max) {
            errors.append(validationError(u"less_than_equal"_s, loc({u"query"_s, name}),
                                          u"Input should be less than or equal to %1"_s.arg(*max), *raw,
                                          QJsonObject{{u"le"_s, *max}}));
        } else {
            *out = value;
        }
    };
    intParam(u"page"_s, &page, std::nullopt);
    intParam(u"pageSize"_s, &pageSize, 200);
    if (!errors.isEmpty())
        return unprocessable(errors);

    QStringList states;
    for (const QString &state : request.queryValues(u"state"_s))
        states.append(state.toLower());
    states.sort();
    states.removeDuplicates();
    QMap<QString, QString> metadataFilter;
    if (const std::optional<QString> metadata = request.queryValue(u"metadata"_s); metadata && !metadata->isEmpty()) {
        QByteArray bad;
        const std::optional<QueryItems> pairs = parseQsl(metadata->toUtf8(), true, true, &bad);
        if (!pairs) {
            return HttpResponse::error(400, u"INVALID_METADATA_FORMAT"_s,
                                       u"Invalid metadata format: bad query field: '%1'"_s.arg(QString::fromUtf8(bad)));
        }
        for (const auto &[key, value] : *pairs)
            metadataFilter.insert(key, value);
    }

    const std::vector<Sandbox *> *items = &m_sorted;
    if (!states.isEmpty() || !metadataFilter.isEmpty()) {
        QString key = states.join(QChar(0x1f)) + QChar(0x1e);
        for (auto it = metadataFilter.begin(); it != metadataFilter.end(); ++it)
            key += it.key() + QChar(0x1f) + it.value() + QChar(0x1e);
        if (m_filterCache.key != key || m_filterCache.generation != m_generation) {
            m_filterCache.key = key;
            m_filterCache.generation = m_generation;
            m_filterCache.items.clear();
            for (Sandbox *sandbox : m_sorted) {
                if (!states.isEmpty() && std::none_of(states.cbegin(), states.cend(), [sandbox](const QString &state) {
                        return state.compare(sandbox->state, Qt::CaseInsensitive) == 0;
                    }))
                    continue;
                bool match = true;
                for (auto it = metadataFilter.begin(); match && it != metadataFilter.end(); ++it) {
                    const auto found = sandbox->metadata.constFind(it.key());
                    match = found != sandbox->metadata.cend() && *found == it.value();
                }
                if (match)
                    m_filterCache.items.push_back(sandbox);
            }
        }
        items = &m_filterCache.items;
    }

    const qint64 total = static_cast<qint64>(items->size());
    const qint64 totalPages = (total + pageSize - 1) / pageSize;
    const qint64 begin = std::min(total, (page - 1) * pageSize);
    const qint64 end = std::min(total, begin + pageSize);
    QByteArray body;
    body.reserve((end - begin) * 600 + 160);
    body += "{\"items\":[";
    for (qint64 i = begin; i < end; ++i) {
        if (i != begin)
            body += ',';
        body += sandboxJson(*(*items)[static_cast<size_t>(i)]);
    }
    body += "],\"pagination\":"
        + compactJson(QJsonObject{{u"page"_s, page},
                                  {u"pageSize"_s, pageSize},
                                  {u"totalItems"_s, total},
                                  {u"totalPages"_s, totalPages},
                                  {u"hasNextPage"_s, page < totalPages}})
        + '}';
    return HttpResponse::json(200, body);
}

HttpResponse FakeOpenSandbox::createSandbox(const HttpRequest &request)
{
    QJsonValue bodyValue;
    if (auto bad = parseJsonBody(request, &bodyValue))
        return *bad;
    if (!bodyValue.isObject())
        return unprocessable({notADict(loc({u"body"_s}), bodyValue)});
    const QJsonObject body = bodyValue.toObject();
    QJsonArray errors;

    // Field validation, as pydantic does it.
    std::optional<QString> imageUri;
    const QJsonValue image = body.value(u"image"_s);
    if (!image.isUndefined() && !image.isNull()) {
        if (!image.isObject()) {
            errors.append(notADict(loc({u"body"_s, u"image"_s}), image));
        } else {
            const QJsonObject imageObject = image.toObject();
            imageUri = requiredString(imageObject, u"uri"_s, loc({u"body"_s, u"image"_s, u"uri"_s}), errors);
            const QJsonValue auth = imageObject.value(u"auth"_s);
            if (!auth.isUndefined() && !auth.isNull()) {
                if (!auth.isObject()) {
                    errors.append(notADict(loc({u"body"_s, u"image"_s, u"auth"_s}), auth));
                } else {
                    for (const QString &field : {u"username"_s, u"password"_s})
                        requiredString(auth.toObject(), field, loc({u"body"_s, u"image"_s, u"auth"_s, field}), errors);
                }
            }
        }
    }
    const std::optional<QString> snapshotId =
        optionalString(body, u"snapshotId"_s, loc({u"body"_s, u"snapshotId"_s}), errors);
    QString os = u"linux"_s;
    QString arch = u"amd64"_s;
    const QJsonValue platform = body.value(u"platform"_s);
    const bool platformGiven = !platform.isUndefined() && !platform.isNull();
    if (platformGiven) {
        if (!platform.isObject()) {
            errors.append(notADict(loc({u"body"_s, u"platform"_s}), platform));
        } else {
            os = requiredString(platform.toObject(), u"os"_s, loc({u"body"_s, u"platform"_s, u"os"_s}), errors);
            arch = requiredString(platform.toObject(), u"arch"_s, loc({u"body"_s, u"platform"_s, u"arch"_s}), errors);
        }
    }
    std::optional<qint64> timeout;
    const QJsonValue timeoutValue = body.value(u"timeout"_s);
    if (!timeoutValue.isUndefined() && !timeoutValue.isNull()) {
        qint64 seconds = 0;
        if (pyInt(timeoutValue, loc({u"body"_s, u"timeout"_s}), &seconds, errors)) {
            if (seconds < 60) {
                errors.append(validationError(u"greater_than_equal"_s, loc({u"body"_s, u"timeout"_s}),
                                              u"Input should be greater than or equal to 60"_s, timeoutValue,
                                              QJsonObject{{u"ge"_s, 60}}));
            } else {
                timeout = seconds;
            }
        }
    }
    const auto resourceLimits = stringMap(body, u"resourceLimits"_s, false, errors);
    const auto env = stringMap(body, u"env"_s, true, errors);
    const auto metadata = stringMap(body, u"metadata"_s, false, errors);
    const auto extensions = stringMap(body, u"extensions"_s, false, errors);
    std::optional<QStringList> entrypoint;
    const QJsonValue entrypointValue = body.value(u"entrypoint"_s);
    if (!entrypointValue.isUndefined() && !entrypointValue.isNull()) {
        if (!entrypointValue.isArray()) {
            errors.append(validationError(u"list_type"_s, loc({u"body"_s, u"entrypoint"_s}),
                                          u"Input should be a valid list"_s, entrypointValue));
        } else {
            const QJsonArray array = entrypointValue.toArray();
            QStringList args;
            for (qsizetype i = 0; i < array.size(); ++i) {
                if (array.at(i).isString())
                    args.append(array.at(i).toString());
                else
                    errors.append(validationError(u"string_type"_s, loc({u"body"_s, u"entrypoint"_s, i}),
                                                  u"Input should be a valid string"_s, array.at(i)));
            }
            if (array.isEmpty()) {
                errors.append(validationError(
                    u"too_short"_s, loc({u"body"_s, u"entrypoint"_s}),
                    u"List should have at least 1 item after validation, not 0"_s, array,
                    QJsonObject{{u"field_type"_s, u"List"_s}, {u"min_length"_s, 1}, {u"actual_length"_s, 0}}));
            }
            entrypoint = args;
        }
    }
    const QJsonValue secureAccess = body.value(u"secureAccess"_s);
    if (!secureAccess.isUndefined() && !secureAccess.isBool()) {
        errors.append(validationError(u"bool_type"_s, loc({u"body"_s, u"secureAccess"_s}),
                                      u"Input should be a valid boolean"_s, secureAccess));
    }
    if (!errors.isEmpty())
        return unprocessable(errors);

    // The model validator.
    const bool poolRef = extensions && !extensions->value(u"poolRef"_s).trimmed().isEmpty();
    const bool hasImage = imageUri && !imageUri->trimmed().isEmpty();
    const bool hasSnapshot = snapshotId && !snapshotId->trimmed().isEmpty();
    if (!poolRef) {
        if (hasImage == hasSnapshot)
            return unprocessable({valueError(u"Exactly one of image or snapshotId must be provided."_s, body)});
        if (hasImage && (!entrypoint || entrypoint->isEmpty()))
            return unprocessable({valueError(u"Entrypoint is required when image is provided."_s, body)});
        if (!resourceLimits)
            return unprocessable({valueError(u"resourceLimits is required when poolRef is not provided."_s, body)});
    }

    // The Docker runtime.
    if (poolRef) {
        return HttpResponse::error(400, u"SANDBOX::UNSUPPORTED_POOL_REF"_s,
                                   u"poolRef is not supported by the Docker provider. Use Kubernetes BatchSandbox "
                                   "provider instead."_s);
    }
    if (hasSnapshot) {
        return HttpResponse::error(501, u"SANDBOX::API_NOT_SUPPORTED"_s,
                                   u"Restoring from snapshots is not supported by this server."_s);
    }
    if (metadata) {
        if (auto bad = checkMetadataLabels(*metadata))
            return *bad;
    }
    if (platformGiven) {
        const QString normalizedOs = os.trimmed().toLower();
        const QString normalizedArch = arch.trimmed().toLower();
        if (normalizedOs != u"linux"_s && normalizedOs != u"windows"_s) {
            return HttpResponse::error(
                400, u"SANDBOX::INVALID_PARAMETER"_s,
                u"Unsupported platform.os '%1'. Supported values: ['linux', 'windows']."_s.arg(os));
        }
        if (normalizedArch != u"amd64"_s && normalizedArch != u"arm64"_s) {
            return HttpResponse::error(
                400, u"SANDBOX::INVALID_PARAMETER"_s,
                u"Unsupported platform.arch '%1'. Supported values: ['amd64', 'arm64']."_s.arg(arch));
        }
        if (normalizedOs == u"windows"_s) {
            return HttpResponse::error(400, u"SANDBOX::INVALID_PARAMETER"_s,
                                       u"Windows sandboxes are not supported by this server."_s);
        }
        os = normalizedOs;
        arch = normalizedArch;
    }
    const qint64 createdAt = nowUs();
    if (timeout && *timeout > (maxPythonDatetimeUs() - createdAt) / 1'000'000) {
        return HttpResponse::error(400, u"SANDBOX::INVALID_PARAMETER"_s,
                                   u"Sandbox timeout %1s is too large to represent safely."_s.arg(*timeout));
    }
    if (secureAccess.toBool()) {
        return HttpResponse::error(400, u"SANDBOX::INVALID_PARAMETER"_s,
                                   u"secureAccess is only supported for Kubernetes sandboxes behind the ingress "
                                   "gateway."_s);
    }

    auto sandbox = std::make_unique<Sandbox>();
    sandbox->id = newUuid();
    sandbox->image = *imageUri;
    sandbox->metadata = metadata.value_or(QMap<QString, QString>());
    sandbox->metadataGiven = metadata.has_value();
    sandbox->entrypoint = *entrypoint;
    sandbox->env = env.value_or(QMap<QString, QString>());
    sandbox->state = u"Running"_s;
    sandbox->createdAtUs = createdAt;
    if (timeout)
        sandbox->expiresAtUs = createdAt + *timeout * 1'000'000;
    sandbox->os = os;
    sandbox->arch = arch;
    sandbox->token = newHexId();
    Sandbox *created = addSandbox(std::move(sandbox));
    ensureDirs(*created);
    ++m_stats.creates;
    persist();
    scheduleExpiry();
    // No Location: the real server sends one only for a snapshot, never for a sandbox.
    return HttpResponse::json(202, sandboxObject(*created, true));
}

HttpResponse FakeOpenSandbox::renewExpiration(Sandbox &sandbox, const HttpRequest &request)
{
    const QJsonValue value = QJsonDocument::fromJson(request.body).object().value(u"expiresAt"_s);
    qint64 expiresAt = 0;
    if (value.isDouble()) {
        // pydantic takes numbers as Unix time, in milliseconds when they are that large.
        const double number = value.toDouble();
        expiresAt = static_cast<qint64>(std::abs(number) > 2e10 ? number * 1000 : number * 1'000'000);
    } else {
        expiresAt = *parseDateTimeUs(value.toString());
    }
    if (expiresAt <= nowUs()) {
        return HttpResponse::error(400, u"DOCKER::INVALID_EXPIRATION"_s,
                                   u"New expiration time must be in the future."_s);
    }
    if (!sandbox.expiresAtUs) {
        return HttpResponse::error(409, u"DOCKER::INVALID_EXPIRATION"_s,
                                   u"Sandbox %1 does not have automatic expiration enabled."_s.arg(sandbox.id));
    }
    setExpiry(sandbox, expiresAt);
    changed(&sandbox);
    return HttpResponse::json(200, QJsonObject{{u"expiresAt"_s, formatPydanticTime(expiresAt)}});
}

HttpResponse FakeOpenSandbox::patchMetadata(Sandbox &sandbox, const HttpRequest &request)
{
    const QJsonObject patch = QJsonDocument::fromJson(request.body).object();
    QMap<QString, QString> additions;
    for (auto it = patch.begin(); it != patch.end(); ++it) {
        if (it.key().startsWith(ReservedLabelPrefix)) {
            return HttpResponse::error(400, u"INVALID_METADATA_LABEL"_s,
                                       u"Metadata key '%1' is reserved (opensandbox.io/ prefix)."_s.arg(it.key()));
        }
        if (it.value().isString())
            additions.insert(it.key(), it.value().toString());
    }
    if (auto bad = checkMetadataLabels(additions))
        return *bad;
    for (auto it = patch.begin(); it != patch.end(); ++it) {
        if (it.value().isNull())
            sandbox.metadata.remove(it.key());
        else
            sandbox.metadata.insert(it.key(), it.value().toString());
    }
    sandbox.metadataGiven = true;
    changed(&sandbox);
    return HttpResponse::json(200, sandboxJson(sandbox));
}

HttpResponse FakeOpenSandbox::endpoint(const QString &id, const QString &portText, const HttpRequest &request)
{
    QJsonArray errors;
    bool ok = false;
    const qint64 port = portText.trimmed().toLongLong(&ok);
    if (!ok) {
        errors.append(validationError(u"int_parsing"_s, loc({u"path"_s, u"port"_s}),
                                      u"Input should be a valid integer, unable to parse string as an integer"_s,
                                      portText));
    }
    bool useServerProxy = false;
    if (const std::optional<QString> raw = request.queryValue(u"use_server_proxy"_s)) {
        if (const std::optional<bool> parsed = pyBool(*raw))
            useServerProxy = *parsed;
        else
            errors.append(validationError(u"bool_parsing"_s, loc({u"query"_s, u"use_server_proxy"_s}),
                                          u"Input should be a valid boolean, unable to interpret input"_s, *raw));
    }
    const std::optional<QString> expires = request.queryValue(u"expires"_s);
    if (expires) {
        bool expiresOk = false;
        expires->trimmed().toLongLong(&expiresOk);
        if (!expiresOk) {
            errors.append(validationError(u"int_parsing"_s, loc({u"query"_s, u"expires"_s}),
                                          u"Input should be a valid integer, unable to parse string as an integer"_s,
                                          *expires));
        }
    }
    if (!errors.isEmpty())
        return unprocessable(errors);
    if (port < 1 || port > 65535)
        return HttpResponse::error(400, u"DOCKER::INVALID_PORT"_s, u"Port must be between 1 and 65535."_s);
    Sandbox *sandbox = find(id);
    if (!sandbox)
        return sandboxNotFound(id);
    if (expires) {
        return HttpResponse::error(
            400, u"SANDBOX::API_NOT_SUPPORTED"_s,
            useServerProxy ? u"expires cannot be combined with use_server_proxy."_s
                           : u"Signed endpoint routes (expires) are not supported by the Docker runtime."_s);
    }
    if (useServerProxy) {
        QString host = QString::fromUtf8(request.header("host"));
        if (host.isEmpty())
            host = u"127.0.0.1:%1"_s.arg(lifecyclePort());
        return HttpResponse::json(
            200, QJsonObject{{u"endpoint"_s, u"%1/sandboxes/%2/proxy/%3"_s.arg(host, sandbox->id).arg(port)}});
    }
    QString address = u"127.0.0.1:%1/%2"_s.arg(execdPort()).arg(sandbox->id);
    if (port != ExecdPort)
        address += u"/proxy/%1"_s.arg(port);
    return HttpResponse::json(200,
                              QJsonObject{{u"endpoint"_s, address},
                                          {u"headers"_s, QJsonObject{{u"X-EXECD-ACCESS-TOKEN"_s, sandbox->token}}}});
}

HttpResponse FakeOpenSandbox::diagnosticLogs(Sandbox &sandbox, const HttpRequest &request)
{
    if (request.queryValue(u"scope"_s)) {
        return HttpResponse::error(501, u"DIAGNOSTICS_NOT_IMPLEMENTED"_s,
                                   u"Diagnostics descriptors are not implemented."_s);
    }
    qint64 tail = 100;
    if (const std::optional<QString> raw = request.queryValue(u"tail"_s)) {
        bool ok = false;
        const qint64 value = raw->trimmed().toLongLong(&ok);
        if (!ok) {
            return unprocessable(
                {validationError(u"int_parsing"_s, loc({u"query"_s, u"tail"_s}),
                                 u"Input should be a valid integer, unable to parse string as an integer"_s, *raw)});
        }
        if (value < 1 || value > 10000) {
            return unprocessable({value < 1 ? validationError(u"greater_than_equal"_s, loc({u"query"_s, u"tail"_s}),
                                                              u"Input should be greater than or equal to 1"_s, *raw,
                                                              QJsonObject{{u"ge"_s, 1}})
                                            : validationError(u"less_than_equal"_s, loc({u"query"_s, u"tail"_s}),
                                                              u"Input should be less than or equal to 10000"_s, *raw,
                                                              QJsonObject{{u"le"_s, 10000}})});
        }
        tail = value;
    }
    QFile log(sandboxDir(sandbox) + u"/container.log"_s);
    QByteArray text;
    if (log.open(QIODevice::ReadOnly))
        text = log.readAll();
    qsizetype start = text.size();
    if (text.endsWith('\n'))
        --start;
    for (qint64 lines = 0; start > 0; --start) {
        if (text.at(start - 1) == '\n' && ++lines == tail)
            break;
    }
    HttpResponse response = HttpResponse::text(200, text.mid(start), "text/plain; charset=utf-8");
    response.setHeader("Deprecation", "true");
    return response;
}

void FakeOpenSandbox::handleProxy(HttpConnection *connection, const HttpRequest &request)
{
    ++m_stats.execdRequests;
    if (request.hasHeader("open-sandbox-api-key"))
        ++m_stats.execdRequestsWithApiKey;
    // /[v1/]sandboxes/{id}/proxy/{port}[/{path}], the path kept as sent.
    QList<QByteArray> raw = request.path.split('/');
    raw.removeFirst();
    if (raw.first() == "v1")
        raw.removeFirst();
    const QString id = QString::fromUtf8(QByteArray::fromPercentEncoding(raw.at(1)));
    const QString portText = QString::fromUtf8(QByteArray::fromPercentEncoding(raw.at(3)));
    Sandbox *sandbox = find(id);
    if (!sandbox) {
        connection->send(sandboxNotFound(id));
        return;
    }
    bool ok = false;
    const int port = portText.toInt(&ok);
    if (!ok || port != ExecdPort) {
        connection->send(
            HttpResponse::error(502, u"GENERAL::PROXY_ERROR"_s,
                                u"Failed to connect to sandbox %1 port %2: connection refused."_s.arg(id, portText)));
        return;
    }
    HttpRequest forwarded = request;
    forwarded.path = '/' + raw.mid(4).join('/');
    dispatchExecd(sandbox, connection, forwarded, false);
}

} // namespace PaddockFake
