#include "e2bbackend.h"

#include "../../canceltoken.h"
#include "../../isolation.h"
#include "../../shellquote.h"
#include "../../tr.h"
#include "e2bfiles.h"

#include <QCoroTask>

#include <QJsonObject>

#include <QLoggingCategory>
#include <QNetworkAccessManager>
#include <QStandardPaths>

#include <algorithm>

Q_LOGGING_CATEGORY(lcE2B, "paddock.core.e2b", QtInfoMsg)

namespace Paddock::E2B {

namespace {

QMap<QString, QString> workspaceFilter(const std::optional<QString> &workspaceId)
{
    QMap<QString, QString> filter;
    if (workspaceId)
        filter.insert(WorkspaceIdKey, *workspaceId);
    return filter;
}

} // namespace

QList<BootstrapCommand> agentscopeBootstrapCommands(const QStringList &extraPip)
{
    QList<BootstrapCommand> commands =
        Paddock::agentscopeBootstrapCommands(extraPip, DefaultGatewayHome, BootstrapCommandTimeout);
    // AgentScope's E2B commands: the sandbox's user is `user`, so the system installs use sudo.
    if (commands.size() >= 2) {
        commands[0].command = QStringLiteral("sudo apt-get update -qq && sudo apt-get install -y "
                                             "--no-install-recommends ripgrep && sudo rm -rf /var/lib/apt/lists/*");
        commands[1].command = QStringLiteral("curl -LsSf https://astral.sh/uv/install.sh | sudo env "
                                             "UV_INSTALL_DIR=/usr/local/bin INSTALLER_NO_MODIFY_PATH=1 sh");
    }
    return commands;
}

E2BBackend::E2BBackend(BackendOptions options, QObject *parent)
    : Backend(parent)
    , m_options(std::move(options))
    , m_network(std::make_unique<QNetworkAccessManager>())
    , m_http(std::make_unique<HttpClient>(m_network.get(), m_options.retry))
    , m_api(std::make_unique<ControlPlane>(m_http.get(), m_options.connection))
{
    m_options.connection = m_api->config(); // resolved: environment and defaults applied
    // As many requests on the wire as the largest bulk job runs (paddockctl --concurrency 64):
    // Qt opens six connections per host and manager, so a job of 16 had six in flight.
    m_http->setMaxConnections(64);
}

E2BBackend::~E2BBackend()
{
    // Every wait of this backend goes through m_http: closing it ends them all now, as
    // Cancelled, while what their coroutines come back to still exists.
    m_http->abortAll();
}

QString E2BBackend::name() const
{
    return QStringLiteral("e2b");
}

QString E2BBackend::instanceKey() const
{
    return QStringLiteral("e2b-") + blake2b64Hex(m_options.connection.apiUrl.toUtf8());
}

WorkspaceLayout E2BBackend::layout(const SandboxInfo &) const
{
    return {m_options.workdir, m_options.gatewayHome, m_options.gatewayHome + QStringLiteral("/.bootstrap-complete"),
            m_options.gatewayHome + QStringLiteral("/_mcp_gateway_app.py")};
}

Capabilities E2BBackend::capabilities() const
{
    return {Capability::Renew, Capability::Files, Capability::Exec, Capability::Metrics};
}

QCoro::Task<Result<QList<SandboxMetrics>>> E2BBackend::metrics(QStringList sandboxIds)
{
    QHash<QString, SandboxMetrics> found;
    // The route takes at most 100 ids.
    for (qsizetype from = 0; from < sandboxIds.size(); from += 100) {
        const QStringList some = sandboxIds.mid(from, 100);
        const auto body = co_await m_api->metrics(some);
        if (!body) {
            if (Backend::lacksRoute(body.error().httpStatus))
                co_return fail(Backend::metricsNotReported(body.error().httpStatus));
            co_return fail(body.error());
        }
        found.insert(MetricsWire::parseE2bSandboxesMetrics(*body));
    }
    QList<SandboxMetrics> list;
    for (const QString &id : std::as_const(sandboxIds)) {
        if (const auto it = found.constFind(id); it != found.constEnd()) {
            list.append(it.value());
            if (!list.last().sampledAt.isValid())
                list.last().sampledAt = QDateTime::currentDateTimeUtc();
        }
    }
    co_return list;
}

Result<> E2BBackend::checkConfiguration() const
{
    if (auto key = validateKey(m_options.connection.apiKey); !key)
        return key;
    if (auto api = validateUrl(m_options.connection.apiUrl, Tr::tr("the E2B API URL")); !api)
        return api;
    if (!m_options.connection.sandboxUrl.isEmpty()) {
        if (auto sandbox = validateUrl(m_options.connection.sandboxUrl, Tr::tr("the E2B sandbox URL")); !sandbox)
            return sandbox;
    }
    if (m_options.timeout.count() < 1)
        return fail(Error::invalidArgument(Tr::tr("an E2B sandbox's timeout is at least 1 second")));
    return {};
}

Error E2BBackend::translate(const Error &error, const QString &sandboxId) const
{
    if (error.kind == Error::Kind::NotFound && !sandboxId.isEmpty()) {
        return Error{
            Error::Kind::NotFound,
            Tr::tr("E2B sandbox %1 does not exist: it was killed, or it expired (%2)").arg(sandboxId, error.message),
            error.httpStatus};
    }
    return error;
}

void E2BBackend::remember(const SandboxRecord &record)
{
    if (record.info.sandboxId.isEmpty() || record.envdAccessToken.isEmpty()
        || record.info.state != SandboxState::Running)
        return;
    EnvdTarget target;
    target.base = m_options.connection.envdBase(record.info.sandboxId, record.domain);
    target.sandboxId = record.info.sandboxId;
    target.accessToken = record.envdAccessToken;
    const QString workspaceId =
        record.info.workspaceId.isEmpty() ? m_envd.value(record.info.sandboxId).workspaceId : record.info.workspaceId;
    m_envd.insert(
        record.info.sandboxId,
        {std::make_shared<EnvdClient>(m_http.get(), target, m_options.connection.requestTimeout), workspaceId});
}

QCoro::Task<Result<QList<SandboxInfo>>> E2BBackend::list(ListFilter filter)
{
    if (auto key = validateKey(m_options.connection.apiKey); !key)
        co_return fail(key.error());
    QStringList states;
    for (const SandboxState state : std::as_const(filter.states)) {
        if (state == SandboxState::Running && !states.contains(QLatin1String("running")))
            states.append(QStringLiteral("running"));
        if (state == SandboxState::Paused && !states.contains(QLatin1String("paused")))
            states.append(QStringLiteral("paused"));
    }
    // E2B has no other states: asked only for others, there is nothing to list.
    if (!filter.states.isEmpty() && states.isEmpty())
        co_return QList<SandboxInfo>();
    auto all = co_await m_api->list(states, workspaceFilter(filter.workspaceId));
    if (!all)
        co_return fail(all.error());
    // Only workspaces: sandboxes that carry the workspace id. In place, no second list.
    QList<SandboxInfo> workspaces = std::move(*all);
    workspaces.removeIf([](const SandboxInfo &info) { return info.workspaceId.isEmpty(); });
    co_return workspaces;
}

QCoro::Task<Result<SandboxInfo>> E2BBackend::get(QString sandboxId)
{
    if (auto key = validateKey(m_options.connection.apiKey); !key)
        co_return fail(key.error());
    auto record = co_await m_api->get(sandboxId);
    if (!record)
        co_return fail(translate(record.error(), sandboxId));
    if (record->info.state == SandboxState::Running)
        remember(*record);
    else
        m_envd.remove(sandboxId);
    SandboxInfo info = record->info;
    co_return info;
}

QCoro::Task<Result<SandboxDetails>> E2BBackend::details(QString sandboxId)
{
    if (auto key = validateKey(m_options.connection.apiKey); !key)
        co_return fail(key.error());
    auto record = co_await m_api->get(sandboxId);
    if (!record)
        co_return fail(translate(record.error(), sandboxId));
    SandboxDetails details;
    details.sandbox = record->info;
    if (record->cpuCount > 0)
        details.resources.append({QStringLiteral("cpu"), QString::number(record->cpuCount)});
    if (record->memoryMB > 0)
        details.resources.append({QStringLiteral("memory"), QStringLiteral("%1 MiB").arg(record->memoryMB)});
    if (record->diskSizeMB > 0)
        details.resources.append({QStringLiteral("disk"), QStringLiteral("%1 MiB").arg(record->diskSizeMB)});
    details.facts.append({Tr::tr("Template"),
                          record->alias.isEmpty() ? record->templateId
                                                  : QStringLiteral("%1 (%2)").arg(record->alias, record->templateId)});
    if (record->startedAt.isValid())
        details.facts.append({Tr::tr("Started"), record->startedAt.toUTC().toString(Qt::ISODateWithMs)});
    if (record->info.state == SandboxState::Running && record->endAt.isValid())
        details.facts.append({Tr::tr("Ends"), record->endAt.toUTC().toString(Qt::ISODateWithMs)});
    if (record->info.state == SandboxState::Paused && record->endAt.isValid()) {
        details.facts.append({Tr::tr("Paused since"),
                              Tr::tr("%1 (its timer is stopped until it is resumed)")
                                  .arg(record->endAt.toUTC().toString(Qt::ISODateWithMs))});
    }
    if (!record->onTimeout.isEmpty())
        details.facts.append({Tr::tr("When the time is up"),
                              record->onTimeout == QLatin1String("pause") ? Tr::tr("pause") : Tr::tr("kill")});
    if (!record->envdVersion.isEmpty())
        details.facts.append({Tr::tr("envd version"), record->envdVersion});
    details.facts.append({Tr::tr("Domain"), record->domain.isEmpty() ? m_options.connection.domain : record->domain});
    details.endpoints.append({Tr::tr("API"), m_options.connection.apiUrl});
    details.endpoints.append({QStringLiteral("envd"),
                              m_options.connection.envdBase(sandboxId, record->domain).toString(QUrl::RemoveUserInfo)});
    co_return details;
}

QCoro::Task<Result<SandboxInfo>> E2BBackend::create(CreateSpec spec)
{
    if (auto valid = checkConfiguration(); !valid)
        co_return fail(valid.error());
    const CreateAttempt attempt = [this, spec] { return createOnce(spec); };
    const CreatedLookup lookup = [this, spec] { return findCreated(spec.workspaceId); };
    co_return co_await createExactlyOnce(spec.workspaceId, attempt, lookup);
}

QCoro::Task<Result<std::optional<SandboxInfo>>> E2BBackend::findCreated(QString workspaceId)
{
    // A sandbox runs from its create on; a paused one is older than this create.
    const ListFilter made{workspaceId, {SandboxState::Running}};
    auto found = co_await list(made);
    if (!found)
        co_return fail(found.error());
    if (found->isEmpty())
        co_return std::optional<SandboxInfo>();
    const QString madeId = newestOf(*found).sandboxId;
    // Connected to as create would have: its envd token remembered, its deadline the profile's.
    auto connected = co_await resume(madeId);
    if (!connected)
        co_return fail(connected.error());
    co_return std::optional<SandboxInfo>(*connected);
}

QCoro::Task<Result<SandboxInfo>> E2BBackend::createOnce(CreateSpec spec)
{
    // User and agent first, the profile's metadata over them, and the workspace id last, so that
    // nothing can override it (AgentScope lets its caller's metadata override even that key, which
    // its own reattach then cannot find: README.md).
    QMap<QString, QString> metadata;
    metadata.insert(UserIdKey, spec.userId);
    metadata.insert(AgentIdKey, spec.agentId);
    for (auto it = spec.metadata.cbegin(); it != spec.metadata.cend(); ++it)
        metadata.insert(it.key(), it.value());
    metadata.insert(WorkspaceIdKey, spec.workspaceId);
    auto created = co_await m_api->create(m_options.templateName, metadata, m_options.timeout, m_options.envVars);
    if (!created) {
        Error error = created.error();
        if (error.kind == Error::Kind::NotFound && error.message.contains(QLatin1String("template"))) {
            co_return fail(Error::backend(Tr::tr("E2B has no template \"%1\" that this key may use: %2")
                                              .arg(m_options.templateName, error.message)));
        }
        if (error.httpStatus == 400 && error.message.contains(QLatin1String("Timeout"))) {
            co_return fail(Error::backend(Tr::tr("E2B refused a sandbox timeout of %1 s, more than your team's "
                                                 "longest run allows; lower the profile's sandbox timeout: %2")
                                              .arg(m_options.timeout.count())
                                              .arg(error.message)));
        }
        co_return fail(error);
    }
    if (created->info.sandboxId.isEmpty())
        co_return fail(Error::backend(Tr::tr("the E2B server created a sandbox but did not say its id")));
    remember(*created);
    // The template has the user's home, not the workdir, which commands run in unless told
    // otherwise: made at once (AgentScope's layout step makes it too, and the rest).
    if (auto client = co_await envd(created->info.sandboxId)) {
        std::shared_ptr<EnvdClient> held = *client;
        const QJsonObject makeDir{{QStringLiteral("path"), m_options.workdir}};
        auto made = co_await held->call(QStringLiteral("filesystem.Filesystem/MakeDir"), makeDir, true);
        if (!made && made.error().kind != Error::Kind::Conflict)
            qCInfo(lcE2B).noquote() << "cannot make the workdir of" << created->info.sandboxId << made.error().message;
    }
    // The create answer has only ids and envd's: the sandbox as listed (times, metadata).
    auto info = co_await get(created->info.sandboxId);
    co_return info;
}

QCoro::Task<Result<SandboxInfo>> E2BBackend::connect(QString sandboxId)
{
    auto current = co_await get(sandboxId);
    if (!current)
        co_return current;
    if (current->state != SandboxState::Running) {
        co_return fail(Error::conflict(
            Tr::tr("E2B sandbox %1 is %2, not running: resume it to attach").arg(sandboxId, current->rawState)));
    }
    // AgentScope's connect: on a running sandbox the deadline is only extended (E2B#1055).
    auto connected = co_await m_api->connect(sandboxId, m_options.timeout);
    if (!connected)
        co_return fail(translate(connected.error(), sandboxId));
    remember(*connected);
    auto info = co_await get(sandboxId);
    co_return info;
}

QCoro::Task<Result<SandboxInfo>> E2BBackend::resume(QString sandboxId)
{
    if (auto key = validateKey(m_options.connection.apiKey); !key)
        co_return fail(key.error());
    bool resumed = false;
    // Always an explicit timeout: without one a paused sandbox comes back with the server's 300 s.
    auto connected = co_await m_api->connect(sandboxId, m_options.timeout, &resumed);
    if (!connected) {
        Error error = translate(connected.error(), sandboxId);
        if (error.httpStatus == 400 && error.message.contains(QLatin1String("Timeout"))) {
            error.message = Tr::tr("E2B refused a sandbox timeout of %1 s, more than your team's longest run allows; "
                                   "lower the profile's sandbox timeout: %2")
                                .arg(m_options.timeout.count())
                                .arg(error.message);
        }
        co_return fail(std::move(error));
    }
    qCInfo(lcE2B).noquote() << "sandbox" << sandboxId << (resumed ? "resumed" : "was running; connected");
    remember(*connected);
    auto info = co_await get(sandboxId);
    co_return info;
}

QCoro::Task<Result<>> E2BBackend::pause(QString sandboxId)
{
    if (auto key = validateKey(m_options.connection.apiKey); !key)
        co_return fail(key.error());
    m_envd.remove(sandboxId);
    auto paused = co_await m_api->pause(sandboxId);
    if (paused)
        co_return Result<>{};
    if (paused.error().kind != Error::Kind::Conflict)
        co_return fail(translate(paused.error(), sandboxId));
    // 409: already paused is what the caller wanted; any other state is an error.
    auto info = co_await get(sandboxId);
    if (info && info->state == SandboxState::Paused)
        co_return Result<>{};
    co_return fail(paused.error());
}

void E2BBackend::cancelReads()
{
    m_api->cancelReads();
}

QCoro::Task<Result<>> E2BBackend::kill(QString sandboxId, KillOptions)
{
    if (auto key = validateKey(m_options.connection.apiKey); !key)
        co_return fail(key.error());
    m_envd.remove(sandboxId);
    auto killed = co_await m_api->kill(sandboxId);
    // Kill is idempotent: gone already (a retried DELETE whose first answer was lost, or expired).
    if (!killed && killed.error().kind == Error::Kind::NotFound) {
        qCInfo(lcE2B).noquote() << "sandbox" << sandboxId << "is already gone";
        co_return Result<>{};
    }
    co_return killed;
}

QCoro::Task<Result<SandboxInfo>> E2BBackend::renew(QString sandboxId, std::chrono::seconds duration)
{
    if (auto key = validateKey(m_options.connection.apiKey); !key)
        co_return fail(key.error());
    auto set = co_await m_api->setTimeout(sandboxId, duration);
    if (!set) {
        if (set.error().kind == Error::Kind::NotFound) {
            // A paused sandbox has no timer to set (404 too): say that, not "gone".
            auto info = co_await get(sandboxId);
            if (info && info->state == SandboxState::Paused) {
                co_return fail(Error::conflict(Tr::tr("E2B sandbox %1 is paused: its timer is stopped and cannot be "
                                                      "renewed; resuming it gives it a new timeout")
                                                   .arg(sandboxId)));
            }
        }
        co_return fail(translate(set.error(), sandboxId));
    }
    // The server's deadline, which it may have clamped to the team's longest run.
    auto info = co_await get(sandboxId);
    if (info && info->expiresAt) {
        const QDateTime asked = QDateTime::currentDateTimeUtc().addSecs(duration.count());
        if (*info->expiresAt < asked.addSecs(-60)) {
            qCInfo(lcE2B).noquote() << "the E2B server cut the renewal of" << sandboxId << "to"
                                    << info->expiresAt->toString(Qt::ISODate) << "(the team's longest run)";
        }
    }
    co_return info;
}

QCoro::Task<Result<std::shared_ptr<EnvdClient>>> E2BBackend::envd(QString sandboxId)
{
    if (const auto it = m_envd.constFind(sandboxId); it != m_envd.cend()) {
        std::shared_ptr<EnvdClient> cached = it->client;
        co_return cached;
    }
    if (auto key = validateKey(m_options.connection.apiKey); !key)
        co_return fail(key.error());
    auto record = co_await m_api->get(sandboxId);
    if (!record)
        co_return fail(translate(record.error(), sandboxId));
    if (record->info.state != SandboxState::Running) {
        co_return fail(Error::conflict(
            Tr::tr("E2B sandbox %1 is %2, not running: resume it first").arg(sandboxId, record->info.rawState)));
    }
    if (record->envdAccessToken.isEmpty() && m_options.connection.sandboxUrl.isEmpty())
        qCInfo(lcE2B).noquote() << "sandbox" << sandboxId << "has no envd access token";
    remember(*record);
    if (!m_envd.contains(sandboxId)) {
        // A sandbox without a token (a v1 create without `secure`): envd checks none.
        EnvdTarget target;
        target.base = m_options.connection.envdBase(sandboxId, record->domain);
        target.sandboxId = sandboxId;
        m_envd.insert(sandboxId,
                      {std::make_shared<EnvdClient>(m_http.get(), target, m_options.connection.requestTimeout),
                       record->info.workspaceId});
    }
    std::shared_ptr<EnvdClient> client = m_envd.value(sandboxId).client;
    co_return client;
}

QCoro::Task<Error> E2BBackend::explain(QString sandboxId, Error error)
{
    // Only what envd's proxy says when the sandbox is not there (502), or a refused token
    // (401: it changed), needs the control plane's word.
    if (error.httpStatus != 502 && error.httpStatus != 401)
        co_return error;
    const QString workspaceId = m_envd.value(sandboxId).workspaceId;
    m_envd.remove(sandboxId);
    auto record = co_await m_api->get(sandboxId);
    if (!record && record.error().kind == Error::Kind::NotFound) {
        if (!workspaceId.isEmpty()) {
            qCWarning(lcE2B).noquote() << "workspace" << workspaceId << "lost its sandbox" << sandboxId;
            Q_EMIT sandboxLost(sandboxId, workspaceId);
        }
        co_return Error{Error::Kind::NotFound,
                        Tr::tr("E2B sandbox %1 no longer exists: it expired or was killed").arg(sandboxId), 404};
    }
    if (record && record->info.state == SandboxState::Paused) {
        co_return Error{Error::Kind::Conflict, Tr::tr("E2B sandbox %1 is paused: resume it first").arg(sandboxId),
                        error.httpStatus};
    }
    if (error.httpStatus == 502) {
        co_return Error{
            Error::Kind::Unreachable,
            Tr::tr("envd in E2B sandbox %1 cannot be reached (the sandbox proxy answered HTTP 502 while the "
                   "sandbox runs): %2")
                .arg(sandboxId, error.message),
            502};
    }
    co_return error;
}

QCoro::Task<Result<bool>> E2BBackend::isReady(QString sandboxId)
{
    auto client = co_await envd(sandboxId);
    if (!client)
        co_return fail(client.error());
    std::shared_ptr<EnvdClient> held = *client;
    auto healthy = co_await held->health();
    if (!healthy) {
        Error explained = co_await explain(sandboxId, healthy.error());
        co_return fail(std::move(explained));
    }
    co_return healthy;
}

QCoro::Task<Result<ExecResult>> E2BBackend::exec(QString sandboxId, ExecRequest request)
{
    if (request.argv.isEmpty())
        co_return fail(Error::invalidArgument(Tr::tr("no command to run")));
    if (request.cancel && request.cancel->isCancelled())
        co_return fail(Error{Error::Kind::Cancelled, Tr::tr("cancelled: the command was not started")});
    ProcessRun process;
    process.command = shellJoin(request.argv);
    process.cwd = request.cwd.isEmpty() ? m_options.workdir : request.cwd;
    process.timeout = request.timeout;
    process.keepalive = m_options.keepalive;
    for (int attempt = 1;; ++attempt) {
        auto client = co_await envd(sandboxId);
        if (!client)
            co_return fail(client.error());
        std::shared_ptr<EnvdClient> held = *client; // kept alive while its stream runs
        auto ran = co_await held->run(process, request.onLine, request.onData, request.cancel);
        if (ran) {
            co_return ran;
        }
        // A refused token never started anything: once more with the control plane's token.
        if (ran.error().httpStatus == 401 && attempt == 1) {
            m_envd.remove(sandboxId);
            continue;
        }
        Error explained = co_await explain(sandboxId, ran.error());
        co_return fail(std::move(explained));
    }
}

template<typename T, typename Work> QCoro::Task<Result<T>> E2BBackend::onFiles(QString sandboxId, Work work)
{
    auto client = co_await envd(sandboxId);
    if (!client)
        co_return fail(client.error());
    E2BFiles files(*client, layout(SandboxInfo()));
    auto done = co_await work(files);
    if (!done) {
        Error explained = co_await explain(sandboxId, done.error());
        co_return fail(std::move(explained));
    }
    co_return done;
}

// The work lambdas are named, never temporaries in a co_await (GCC 12, README.md).
QCoro::Task<Result<QList<FileEntry>>> E2BBackend::listFolder(QString sandboxId, QString path)
{
    auto work = [path](E2BFiles &files) { return files.listFolder(path); };
    co_return co_await onFiles<QList<FileEntry>>(std::move(sandboxId), std::move(work));
}

QCoro::Task<Result<FileEntry>> E2BBackend::stat(QString sandboxId, QString path)
{
    auto work = [path](E2BFiles &files) { return files.stat(path); };
    co_return co_await onFiles<FileEntry>(std::move(sandboxId), std::move(work));
}

QCoro::Task<Result<FileChunk>> E2BBackend::readFile(QString sandboxId, QString path, qint64 offset, qint64 length)
{
    auto work = [path, offset, length](E2BFiles &files) { return files.readFile(path, offset, length); };
    co_return co_await onFiles<FileChunk>(std::move(sandboxId), std::move(work));
}

QCoro::Task<Result<>> E2BBackend::download(QString sandboxId, QString path, QString localPath)
{
    auto work = [path, localPath](E2BFiles &files) { return files.download(path, localPath); };
    co_return co_await onFiles<void>(std::move(sandboxId), std::move(work));
}

QCoro::Task<Result<>> E2BBackend::upload(QString sandboxId, QString localPath, QString path)
{
    auto work = [localPath, path](E2BFiles &files) { return files.upload(localPath, path); };
    co_return co_await onFiles<void>(std::move(sandboxId), std::move(work));
}

QCoro::Task<Result<std::optional<QDateTime>>> E2BBackend::sessionsActivity(QString sandboxId)
{
    auto client = co_await envd(sandboxId);
    if (!client)
        co_return fail(client.error());
    std::shared_ptr<EnvdClient> held = *client;
    const QString sessions = m_options.workdir + QStringLiteral("/sessions");
    auto listed = co_await held->listDir(sessions, 2);
    if (!listed) {
        if (listed.error().kind == Error::Kind::NotFound)
            co_return std::optional<QDateTime>();
        Error explained = co_await explain(sandboxId, listed.error());
        co_return fail(std::move(explained));
    }
    QDateTime newest;
    for (const QJsonObject &info : std::as_const(*listed)) {
        const FileEntry entry = E2BFiles::entryFrom(info);
        if (entry.modified.isValid() && (!newest.isValid() || entry.modified > newest))
            newest = entry.modified;
    }
    if (!newest.isValid()) {
        // Empty: the folder's own time.
        auto folder = co_await held->stat(sessions);
        if (!folder && folder.error().kind == Error::Kind::NotFound)
            co_return std::optional<QDateTime>();
        if (!folder)
            co_return fail(folder.error());
        newest = E2BFiles::entryFrom(*folder).modified;
    }
    co_return newest.isValid() ? std::optional<QDateTime>(newest.toUTC()) : std::nullopt;
}

std::optional<TerminalCommand> E2BBackend::terminalCommand(const SandboxInfo &sandbox) const
{
    // E2B's CLI reaches E2B's own service with its own login; it is not told another API URL.
    if (sandbox.sandboxId.isEmpty() || !m_options.connection.sandboxUrl.isEmpty()
        || m_options.connection.apiUrl != QStringLiteral("https://api.") + m_options.connection.domain)
        return std::nullopt;
    const QString cli = QStandardPaths::findExecutable(QStringLiteral("e2b"));
    if (cli.isEmpty())
        return std::nullopt;
    TerminalCommand command;
    command.program = cli;
    command.arguments = {QStringLiteral("sandbox"), QStringLiteral("connect"), sandbox.sandboxId};
    return command;
}

} // namespace Paddock::E2B
