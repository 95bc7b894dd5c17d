#include "opensandboxbackend.h"

#include "../../bulk.h"

#include "../../backoff.h"
#include "../../canceltoken.h"
#include "../../inspect/secretmask.h"
#include "../../isolation.h"
#include "../../shellquote.h"
#include "../../tr.h"
#include "execdfiles.h"

#include <QCoroTask>

#include <QDeadlineTimer>
#include <QHash>
#include <QLoggingCategory>
#include <QNetworkAccessManager>

#include <algorithm>

Q_LOGGING_CATEGORY(lcOpenSandbox, "paddock.core.opensandbox", QtInfoMsg)

namespace Paddock::OpenSandbox {

namespace {

// Requests this backend may have on the wire at once: as many as the largest bulk job runs
// (paddockctl --concurrency 64). Qt opens six connections per host and manager, so without this a
// job of 16 had six in flight; runBounded keeps each job to its own concurrency.
constexpr int MaxConnections = 64;

// GCC 12 cannot keep brace-initialised lists alive across co_await: built out here.
QList<SandboxState> runningState()
{
    return {SandboxState::Running};
}

QList<SandboxState> pausedState()
{
    return {SandboxState::Paused};
}

QStringList stateNames(const QList<SandboxState> &states)
{
    QStringList names;
    for (const SandboxState state : states)
        names.append(sandboxStateName(state));
    return names;
}

QMap<QString, QString> workspaceFilter(const std::optional<QString> &workspaceId)
{
    QMap<QString, QString> filter;
    if (workspaceId)
        filter.insert(WorkspaceIdKey, *workspaceId);
    return filter;
}

} // namespace

QList<BootstrapCommand> agentscopeBootstrapCommands(const QStringList &extraPip, const QString &gatewayHome)
{
    return Paddock::agentscopeBootstrapCommands(extraPip, gatewayHome, BootstrapCommandTimeout);
}

OpenSandboxBackend::OpenSandboxBackend(BackendOptions options, QObject *parent)
    : Backend(parent)
    , m_options(std::move(options))
    , m_network(std::make_unique<QNetworkAccessManager>())
    , m_http(std::make_unique<HttpClient>(m_network.get(), m_options.retry))
    , m_lifecycle(std::make_unique<LifecycleClient>(m_http.get(), m_options.connection))
{
    m_options.connection = m_lifecycle->config(); // resolved: environment and defaults applied
    m_http->setMaxConnections(MaxConnections);
    m_leaseTimer.setInterval(m_options.leaseCheckInterval);
    QObject::connect(&m_leaseTimer, &QTimer::timeout, this, [this] {
        if (!m_renewing)
            QCoro::connect(renewLeases(), this, [](int) {});
    });
}

OpenSandboxBackend::~OpenSandboxBackend()
{
    // Every wait of this backend goes through m_http: requests, the sleeps between retries and
    // between polls of waitForState, the pages parsed on a worker. Closing it ends them all now,
    // as Cancelled, while everything their coroutines come back to still exists; otherwise they
    // would resume later into freed objects, or wait forever on replies the network manager
    // deletes. What those coroutines ask next fails at once.
    m_leaseTimer.stop();
    m_http->abortAll();
}

QString OpenSandboxBackend::name() const
{
    return QStringLiteral("opensandbox");
}

QString OpenSandboxBackend::instanceKey() const
{
    return QStringLiteral("opensandbox-") + blake2b64Hex(m_lifecycle->config().baseUrl().toString().toUtf8());
}

WorkspaceLayout OpenSandboxBackend::layout(const SandboxInfo &) const
{
    return {m_options.workdir, m_options.gatewayHome, m_options.gatewayHome + QStringLiteral("/.bootstrap-complete"),
            m_options.gatewayHome + QStringLiteral("/_mcp_gateway_app.py")};
}

QCoro::Task<Result<QList<SandboxInfo>>> OpenSandboxBackend::list(ListFilter filter)
{
    auto all = co_await m_lifecycle->list(stateNames(filter.states), workspaceFilter(filter.workspaceId));
    if (!all)
        co_return fail(all.error());
    // Only workspaces: sandboxes that carry the workspace id. An explicit filter also checks the
    // decoded id, since a hashed (`h-`) value could in principle be shared.
    // In place: no second list of 10,000 to allocate.
    QList<SandboxInfo> workspaces = std::move(*all);
    workspaces.removeIf([&filter](const SandboxInfo &info) {
        return info.workspaceId.isEmpty()
            || (filter.workspaceId && info.workspaceId != *filter.workspaceId
                && !info.workspaceId.startsWith(QLatin1String("h-")));
    });
    co_return workspaces;
}

QCoro::Task<Result<SandboxInfo>> OpenSandboxBackend::get(QString sandboxId)
{
    co_return co_await m_lifecycle->get(sandboxId);
}

QCoro::Task<Result<SandboxDetails>> OpenSandboxBackend::details(QString sandboxId)
{
    // execd's endpoint: the cached one costs nothing; otherwise it is asked at once, beside the
    // GET (a task runs as soon as it is made), so the overview still waits for one round trip.
    // It is not cached here: the GET may say the sandbox is not running, and the calls that use
    // execd resolve it themselves. Asked once: a server that has no endpoint for a sandbox that is
    // not running (a Kubernetes runtime releases a paused one's Pod) must not hold the overview
    // for the retries' back-off.
    QUrl execd;
    if (const std::shared_ptr<ExecdClient> cached = m_execd.value(sandboxId))
        execd = cached->target().base;
    std::optional<QCoro::Task<Result<Endpoint>>> asking;
    if (execd.isEmpty())
        asking.emplace(m_lifecycle->endpoint(sandboxId, ExecdTarget::Port, true));
    auto details = co_await m_lifecycle->details(sandboxId);
    if (asking) {
        // Always awaited: a task left behind would resume into a frame that is gone.
        auto endpoint = co_await std::move(*asking);
        if (endpoint)
            execd = ExecdTarget::fromEndpoint(*endpoint, m_options.connection.protocol).base;
    }
    if (!details)
        co_return fail(details.error());
    // A paused sandbox's execd does not answer: it reaches nothing then. The headers (an access
    // token) are never shown, nor what a URL might carry in its user info or query.
    if (details->sandbox.state == SandboxState::Running && !execd.isEmpty())
        details->endpoints.append({QStringLiteral("execd"), Inspect::maskUrl(execd.toString(QUrl::RemoveUserInfo))});
    co_return details;
}

QCoro::Task<Result<SandboxInfo>> OpenSandboxBackend::create(CreateSpec spec)
{
    const CreateAttempt attempt = [this, spec] { return createOnce(spec); };
    const CreatedLookup lookup = [this, spec] { return findCreated(spec.workspaceId); };
    co_return co_await createExactlyOnce(spec.workspaceId, attempt, lookup);
}

QCoro::Task<Result<std::optional<SandboxInfo>>> OpenSandboxBackend::findCreated(QString workspaceId)
{
    // The states a sandbox can be in just after its create (not one of the workspace's old,
    // terminated or failed ones the server still lists).
    const ListFilter made{workspaceId, {SandboxState::Pending, SandboxState::Running}};
    auto found = co_await list(made);
    if (!found)
        co_return fail(found.error());
    if (found->isEmpty())
        co_return std::optional<SandboxInfo>();
    const SandboxInfo sandbox = newestOf(*found);
    hold(sandbox);
    co_return std::optional<SandboxInfo>(sandbox);
}

QCoro::Task<Result<SandboxInfo>> OpenSandboxBackend::createOnce(CreateSpec spec)
{
    SandboxCreate create = m_options.sandbox;
    // As AgentScope's manager: user and agent first, profile metadata over them, and the
    // workspace id last, so nothing can override it.
    create.metadata.clear();
    create.metadata.insert(UserIdKey, spec.userId);
    create.metadata.insert(AgentIdKey, spec.agentId);
    for (auto it = spec.metadata.cbegin(); it != spec.metadata.cend(); ++it)
        create.metadata.insert(it.key(), it.value());
    create.metadata.insert(WorkspaceIdKey, spec.workspaceId);
    auto created = co_await m_lifecycle->create(create);
    if (created)
        hold(*created);
    co_return created;
}

QCoro::Task<Result<SandboxInfo>> OpenSandboxBackend::connect(QString sandboxId)
{
    auto info = co_await m_lifecycle->get(sandboxId);
    if (!info)
        co_return info;
    if (info->state != SandboxState::Running) {
        co_return fail(
            Error::conflict(Tr::tr("sandbox %1 is not attachable (state %2)").arg(sandboxId, info->rawState)));
    }
    hold(*info);
    co_return info;
}

QCoro::Task<Result<SandboxInfo>> OpenSandboxBackend::resume(QString sandboxId)
{
    auto resumed = co_await m_lifecycle->resume(sandboxId);
    // 409: not paused. If it is already running, that is what the caller wanted.
    if (!resumed && resumed.error().kind != Error::Kind::Conflict)
        co_return fail(resumed.error());
    auto info = co_await m_lifecycle->waitForState(sandboxId, runningState(), m_options.settleTimeout);
    if (!info) {
        co_return fail(resumed ? info.error() : resumed.error());
    }
    // After a resume execd may live elsewhere (Kubernetes): resolve it again.
    m_execd.remove(sandboxId);
    hold(*info);
    co_return info;
}

QCoro::Task<Result<>> OpenSandboxBackend::pause(QString sandboxId)
{
    release(sandboxId);
    auto paused = co_await m_lifecycle->pause(sandboxId);
    if (!paused && paused.error().kind != Error::Kind::Conflict)
        co_return paused;
    letExecdReadsGo(sandboxId);
    // 409: not running. Already paused is what the caller wanted; any other state is an error.
    auto info = co_await m_lifecycle->waitForState(sandboxId, pausedState(), m_options.settleTimeout);
    if (!info)
        co_return fail(paused ? info.error() : paused.error());
    co_return Result<>{};
}

namespace {
// Pauses left to settle that are asked after one by one rather than by listing every sandbox.
constexpr qsizetype SettleByGet = 4;
} // namespace

QCoro::Task<Result<bool>> OpenSandboxBackend::requestPause(QString sandboxId)
{
    release(sandboxId);
    auto paused = co_await m_lifecycle->pause(sandboxId);
    if (paused || paused.error().kind == Error::Kind::Conflict)
        letExecdReadsGo(sandboxId);
    if (paused) {
        m_pauseRefusals.remove(sandboxId);
        co_return false;
    }
    if (paused.error().kind != Error::Kind::Conflict)
        co_return fail(paused.error());
    // 409: not running. Paused already, or not pausable: the settling says which.
    m_pauseRefusals.insert(sandboxId, paused.error());
    co_return false;
}

QCoro::Task<QList<Result<>>> OpenSandboxBackend::settlePauses(QStringList sandboxIds, PauseSettled settled)
{
    QList<std::optional<Result<>>> results(sandboxIds.size());
    QHash<QString, QList<qsizetype>> pending; // sandbox id -> its indexes (an id given twice too)
    for (qsizetype i = 0; i < sandboxIds.size(); ++i)
        pending[sandboxIds.at(i)].append(i);
    const auto finish = [&](const QString &id, const Result<> &outcome) {
        for (const qsizetype index : pending.value(id)) {
            results[index] = outcome;
            if (settled)
                settled(index, outcome);
        }
        m_pauseRefusals.remove(id);
    };
    const QDeadlineTimer deadline(m_options.settleTimeout);
    Backoff backoff;
    QHash<QString, QString> lastState; // what each was when last seen, for the timeout's message
    QHash<QString, Error> lastError; // a read that failed for it (kept trying until the deadline)
    qsizetype lastPages = 1; // the pages of the last listing: fewer pauses left than that are asked one by one
    int failedListings = 0;
    while (!pending.isEmpty()) {
        QHash<QString, Result<SandboxInfo>> seen;
        const QStringList ids = pending.keys();
        if (ids.size() <= std::max(SettleByGet, lastPages)) {
            for (const QString &id : ids) {
                auto info = co_await m_lifecycle->get(id);
                seen.insert(id, std::move(info));
            }
        } else {
            const QStringList anyState;
            const QMap<QString, QString> anyMetadata;
            auto listed = co_await m_lifecycle->list(anyState, anyMetadata);
            if (!listed) {
                // A listing that failed says nothing of the pauses: tried again, given up only
                // after several in a row.
                if (++failedListings < 3 && !deadline.hasExpired()) {
                    if (!co_await m_http->sleep(std::min(
                            backoff.next(), std::chrono::milliseconds(std::max<qint64>(deadline.remainingTime(), 0)))))
                        break;
                    continue;
                }
                for (const QString &id : ids)
                    finish(id, fail(listed.error()));
                pending.clear();
                break;
            }
            failedListings = 0;
            lastPages = listed->size() / LifecycleClient::PageSize + 1;
            for (const SandboxInfo &info : std::as_const(*listed)) {
                if (pending.contains(info.sandboxId))
                    seen.insert(info.sandboxId, info);
            }
            // One missing from a listing taken page by page may have moved between two pages as
            // others came and went: asked for on its own before it counts as gone.
            for (const QString &id : ids) {
                if (!seen.contains(id)) {
                    auto info = co_await m_lifecycle->get(id);
                    seen.insert(id, std::move(info));
                }
            }
        }
        for (auto it = seen.cbegin(); it != seen.cend(); ++it) {
            const QString &id = it.key();
            const Result<SandboxInfo> &info = it.value();
            if (!info) {
                if (info.error().kind == Error::Kind::NotFound) {
                    finish(id, fail(Error::notFound(Tr::tr("sandbox %1 is gone").arg(id))));
                    pending.remove(id);
                } else {
                    lastError.insert(id, info.error()); // tried again until the deadline
                }
                continue;
            }
            lastError.remove(id);
            if (info->state == SandboxState::Paused) {
                finish(id, Result<>{});
                pending.remove(id);
            } else if (info->state == SandboxState::Failed || info->state == SandboxState::Terminated) {
                finish(id,
                       fail(m_pauseRefusals.value(
                           id,
                           Error::conflict(Tr::tr("sandbox %1 is %2 and cannot become %3")
                                               .arg(id, info->rawState, sandboxStateName(SandboxState::Paused))))));
                pending.remove(id);
            } else {
                lastState.insert(id, info->rawState);
            }
        }
        if (pending.isEmpty())
            break;
        if (deadline.hasExpired()) {
            const double limit = std::chrono::duration<double>(m_options.settleTimeout).count();
            for (auto it = pending.cbegin(); it != pending.cend(); ++it) {
                const QString &id = it.key();
                if (m_pauseRefusals.contains(id))
                    finish(id, fail(m_pauseRefusals.value(id)));
                else if (lastError.contains(id))
                    finish(id, fail(lastError.value(id)));
                else
                    finish(id,
                           fail(Error::timeout(
                               Tr::tr("sandbox %1 is still %2 after %3 s").arg(id, lastState.value(id)).arg(limit))));
            }
            pending.clear();
            break;
        }
        const std::chrono::milliseconds left(std::max<qint64>(deadline.remainingTime(), 0));
        if (!co_await m_http->sleep(std::min(backoff.next(), left)))
            break;
    }
    // What the loop left (the backend closing): not done.
    co_return settledResults(results, settled);
}

Capabilities OpenSandboxBackend::capabilities() const
{
    return {Capability::ContainerLog, Capability::Renew, Capability::Files, Capability::Exec, Capability::Metrics};
}

QCoro::Task<Result<QList<SandboxMetrics>>> OpenSandboxBackend::metrics(QStringList sandboxIds)
{
    auto found = std::make_shared<QHash<QString, SandboxMetrics>>();
    auto lacking = std::make_shared<int>(0); // the HTTP status of an execd without the route
    std::function<QCoro::Task<Result<>>(const QString &)> read = [this, found,
                                                                  lacking](const QString &id) -> QCoro::Task<Result<>> {
        const QString sandboxId = id;
        for (int attempt = 1;; ++attempt) {
            auto handle = co_await acquireExecd(sandboxId);
            if (!handle)
                co_return fail(handle.error());
            const auto body = co_await handle->client->metrics();
            if (body) {
                auto metrics = MetricsWire::parseExecdMetrics(*body);
                if (!metrics)
                    co_return fail(Error::backend(Tr::tr("execd sent metrics that cannot be read")));
                metrics->sandboxId = sandboxId;
                if (!metrics->sampledAt.isValid())
                    metrics->sampledAt = QDateTime::currentDateTimeUtc();
                found->insert(sandboxId, *metrics);
                co_return Result<>();
            }
            if (Backend::lacksRoute(body.error().httpStatus)) {
                *lacking = body.error().httpStatus;
                co_return fail(body.error());
            }
            if (!retryElsewhere(sandboxId, *handle, body.error()) || attempt > 1)
                co_return fail(body.error());
        }
    };
    const QList<Result<>> results = co_await runBounded<QString>(sandboxIds, 8, std::move(read));
    QList<SandboxMetrics> list;
    for (const QString &id : std::as_const(sandboxIds)) {
        if (const auto it = found->constFind(id); it != found->constEnd())
            list.append(it.value());
    }
    if (list.isEmpty() && *lacking != 0)
        co_return fail(Backend::metricsNotReported(*lacking));
    if (list.isEmpty()) {
        for (const Result<> &result : results) {
            // A sandbox that is gone or paused has no figures; any other failure is the answer.
            if (!result && result.error().kind != Error::Kind::NotFound && result.error().kind != Error::Kind::Conflict)
                co_return fail(result.error());
        }
    }
    co_return list;
}

QCoro::Task<Result<>> OpenSandboxBackend::kill(QString sandboxId, KillOptions)
{
    release(sandboxId);
    auto removed = co_await m_lifecycle->remove(sandboxId);
    // Kill is idempotent: a sandbox that is already gone (deleted by a retried DELETE whose
    // first answer was lost, or expired) counts as killed.
    if (!removed && removed.error().kind == Error::Kind::NotFound) {
        qCInfo(lcOpenSandbox).noquote() << "sandbox" << sandboxId << "is already gone";
        co_return Result<>{};
    }
    co_return removed;
}

QCoro::Task<Result<SandboxInfo>> OpenSandboxBackend::renew(QString sandboxId, std::chrono::seconds duration)
{
    auto renewed = co_await m_lifecycle->renew(sandboxId, duration);
    if (!renewed)
        co_return fail(renewed.error());
    if (auto lease = m_leases.find(sandboxId); lease != m_leases.end())
        lease->expiresAt = *renewed;
    auto info = co_await m_lifecycle->get(sandboxId);
    if (!info)
        co_return info;
    info->expiresAt = *renewed;
    co_return info;
}

QCoro::Task<Result<OpenSandboxBackend::ExecdHandle>> OpenSandboxBackend::acquireExecd(QString sandboxId)
{
    if (auto cached = m_execd.value(sandboxId))
        co_return ExecdHandle{cached, false};
    auto endpoint = co_await m_lifecycle->endpoint(sandboxId, ExecdTarget::Port);
    if (!endpoint)
        co_return fail(endpoint.error());
    // Two calls may have resolved it at once: the first one's client stays.
    if (auto cached = m_execd.value(sandboxId))
        co_return ExecdHandle{cached, true};
    auto client = std::make_shared<ExecdClient>(m_network.get(), m_http.get(),
                                                ExecdTarget::fromEndpoint(*endpoint, m_options.connection.protocol),
                                                m_options.execdPingInterval);
    ExecdClient *raw = client.get();
    QObject::connect(client.get(), &ExecdClient::unreachable, this,
                     [this, sandboxId, raw] { forgetExecd(sandboxId, raw); });
    m_liveExecd.insert(raw);
    QObject::connect(client.get(), &QObject::destroyed, this, [this, raw] { m_liveExecd.remove(raw); });
    m_execd.insert(sandboxId, client);
    co_return ExecdHandle{client, true};
}

QCoro::Task<Result<std::shared_ptr<ExecdClient>>> OpenSandboxBackend::execd(QString sandboxId)
{
    auto handle = co_await acquireExecd(sandboxId);
    if (!handle)
        co_return fail(handle.error());
    std::shared_ptr<ExecdClient> client = handle->client;
    co_return client;
}

void OpenSandboxBackend::forgetExecd(const QString &sandboxId, const ExecdClient *client)
{
    const auto it = m_execd.constFind(sandboxId);
    if (it == m_execd.cend() || it->get() != client)
        return; // already replaced
    qCInfo(lcOpenSandbox).noquote() << "execd of" << sandboxId << "at"
                                    << client->target().base.toString(QUrl::RemoveUserInfo)
                                    << "did not answer; its endpoint will be fetched again";
    m_execd.erase(it);
}

void OpenSandboxBackend::letExecdReadsGo(const QString &sandboxId)
{
    // A paused sandbox's execd holds what it is asked without answering: the reads of it under
    // way (an activity read, the inspector's files) end now rather than at their timeouts, which
    // would otherwise hold a quit after a bulk pause for a minute. Its address is resolved again
    // at the next use (a resumed sandbox's execd may live elsewhere).
    if (const std::shared_ptr<ExecdClient> client = m_execd.take(sandboxId))
        client->cancelReads();
}

void OpenSandboxBackend::cancelReads()
{
    // Each client's reads end from the event loop: nothing is resumed inside this loop. The
    // clients stay cached; a shutdown frees them with the backend, after abortAll().
    for (ExecdClient *client : std::as_const(m_liveExecd))
        client->cancelReads();
    // And the listings: a server that takes one and never answers held a quit for a minute.
    m_lifecycle->cancelReads();
}

bool OpenSandboxBackend::retryElsewhere(const QString &sandboxId, const ExecdHandle &used, const Error &error)
{
    if (error.kind == Error::Kind::Unreachable || error.kind == Error::Kind::Timeout)
        forgetExecd(sandboxId, used.client.get());
    return error.notConnected && !used.fresh;
}

QCoro::Task<Result<bool>> OpenSandboxBackend::isReady(QString sandboxId)
{
    for (int attempt = 1;; ++attempt) {
        auto handle = co_await acquireExecd(sandboxId);
        if (!handle)
            co_return fail(handle.error());
        auto pinged = co_await handle->client->ping();
        if (pinged || !retryElsewhere(sandboxId, *handle, pinged.error()) || attempt > 1)
            co_return pinged;
    }
}

QCoro::Task<Result<ExecResult>> OpenSandboxBackend::exec(QString sandboxId, ExecRequest request)
{
    if (request.argv.isEmpty())
        co_return fail(Error::invalidArgument(Tr::tr("no command to run")));
    if (request.cancel && request.cancel->isCancelled())
        co_return fail(Error{Error::Kind::Cancelled, Tr::tr("cancelled: the command was not started")});
    ExecdCommand command;
    command.command = shellJoin(request.argv);
    command.cwd = request.cwd.isEmpty() ? m_options.workdir : request.cwd;
    command.timeout = request.timeout;
    for (int attempt = 1;; ++attempt) {
        auto handle = co_await acquireExecd(sandboxId);
        if (!handle)
            co_return fail(handle.error());
        auto result = co_await handle->client->run(command, request.onLine, request.onData, request.cancel);
        if (!result) {
            // Could not connect: the command never left, so it may go to the new endpoint.
            if (retryElsewhere(sandboxId, *handle, result.error()) && attempt == 1)
                continue;
            co_return result;
        }
        // execd reports a command killed at its timeout with exit code -1 (reference §3.2).
        if (request.timeout.count() > 0 && result->exitCode == -1)
            result->timedOut = true;
        co_return result;
    }
}

template<typename T, typename Work> QCoro::Task<Result<T>> OpenSandboxBackend::onFiles(QString sandboxId, Work work)
{
    for (int attempt = 1;; ++attempt) {
        auto handle = co_await acquireExecd(sandboxId);
        if (!handle)
            co_return fail(handle.error());
        ExecdFiles files(handle->client, layout(SandboxInfo()));
        auto done = co_await work(files);
        if (done || attempt > 1 || !retryElsewhere(sandboxId, *handle, done.error()))
            co_return done;
    }
}

// The work lambdas are named, never temporaries in a co_await (GCC 12, README.md).
QCoro::Task<Result<QList<FileEntry>>> OpenSandboxBackend::listFolder(QString sandboxId, QString path)
{
    auto work = [path](ExecdFiles &files) { return files.listFolder(path); };
    co_return co_await onFiles<QList<FileEntry>>(std::move(sandboxId), std::move(work));
}

QCoro::Task<Result<FileEntry>> OpenSandboxBackend::stat(QString sandboxId, QString path)
{
    auto work = [path](ExecdFiles &files) { return files.stat(path); };
    co_return co_await onFiles<FileEntry>(std::move(sandboxId), std::move(work));
}

QCoro::Task<Result<FileChunk>> OpenSandboxBackend::readFile(QString sandboxId, QString path, qint64 offset,
                                                            qint64 length)
{
    auto work = [path, offset, length](ExecdFiles &files) { return files.readFile(path, offset, length); };
    co_return co_await onFiles<FileChunk>(std::move(sandboxId), std::move(work));
}

QCoro::Task<Result<>> OpenSandboxBackend::download(QString sandboxId, QString path, QString localPath)
{
    auto work = [path, localPath](ExecdFiles &files) { return files.download(path, localPath); };
    co_return co_await onFiles<void>(std::move(sandboxId), std::move(work));
}

QCoro::Task<Result<>> OpenSandboxBackend::upload(QString sandboxId, QString localPath, QString path)
{
    auto work = [localPath, path](ExecdFiles &files) { return files.upload(localPath, path); };
    co_return co_await onFiles<void>(std::move(sandboxId), std::move(work));
}

QCoro::Task<Result<std::optional<QDateTime>>> OpenSandboxBackend::sessionsActivity(QString sandboxId)
{
    const QString sessions = m_options.workdir + QStringLiteral("/sessions");
    for (int attempt = 1;; ++attempt) {
        auto handle = co_await acquireExecd(sandboxId);
        if (!handle)
            co_return fail(handle.error());
        auto activity = co_await readSessionsActivity(handle->client, sessions);
        if (activity || !retryElsewhere(sandboxId, *handle, activity.error()) || attempt > 1)
            co_return activity;
    }
}

QCoro::Task<Result<std::optional<QDateTime>>>
OpenSandboxBackend::readSessionsActivity(std::shared_ptr<ExecdClient> client, QString sessions)
{
    auto listed = co_await client->listDirectory(sessions, 2);
    if (!listed) {
        if (listed.error().kind == Error::Kind::NotFound)
            co_return std::optional<QDateTime>();
        co_return fail(listed.error());
    }
    // The listing holds the entries, not the folder itself: its own time comes with one more ask
    // only when the folder is empty.
    QDateTime newest;
    for (const FileInfo &entry : std::as_const(*listed)) {
        if (entry.modifiedAt.isValid() && (!newest.isValid() || entry.modifiedAt > newest))
            newest = entry.modifiedAt;
    }
    if (!newest.isValid()) {
        const QStringList paths{sessions};
        auto folder = co_await client->fileInfo(paths);
        if (!folder && folder.error().kind == Error::Kind::NotFound)
            co_return std::optional<QDateTime>();
        if (!folder)
            co_return fail(folder.error());
        if (folder->contains(sessions))
            newest = folder->value(sessions).modifiedAt;
    }
    co_return newest.isValid() ? std::optional<QDateTime>(newest.toUTC()) : std::nullopt;
}

QCoro::Task<Result<QByteArray>> OpenSandboxBackend::containerLogs(QString sandboxId, int tail)
{
    co_return co_await m_lifecycle->containerLogs(sandboxId, tail);
}

void OpenSandboxBackend::hold(const SandboxInfo &sandbox)
{
    if (!m_options.keepLeases || !m_options.sandbox.timeout)
        return;
    m_leases.insert(sandbox.sandboxId, {sandbox.workspaceId, sandbox.expiresAt});
    if (!m_leaseTimer.isActive())
        m_leaseTimer.start();
}

void OpenSandboxBackend::release(const QString &sandboxId)
{
    m_leases.remove(sandboxId);
    if (m_leases.isEmpty())
        m_leaseTimer.stop();
}

void OpenSandboxBackend::lost(const QString &sandboxId)
{
    const QString workspaceId = m_leases.value(sandboxId).workspaceId;
    release(sandboxId);
    m_execd.remove(sandboxId);
    qCWarning(lcOpenSandbox).noquote() << "workspace" << workspaceId << "lost its sandbox" << sandboxId;
    Q_EMIT sandboxLost(sandboxId, workspaceId);
}

QCoro::Task<int> OpenSandboxBackend::renewLeases()
{
    if (m_renewing || !m_options.sandbox.timeout)
        co_return 0;
    m_renewing = true;
    const std::chrono::seconds timeout = *m_options.sandbox.timeout;
    const std::chrono::seconds margin = m_options.leaseRenewMargin.value_or(timeout / 2);
    const QDateTime renewBefore = QDateTime::currentDateTimeUtc().addSecs(margin.count());
    QStringList due;
    for (auto it = m_leases.cbegin(); it != m_leases.cend(); ++it) {
        if (!it->expiresAt || *it->expiresAt < renewBefore)
            due.append(it.key());
    }
    int renewed = 0;
    for (const QString &sandboxId : std::as_const(due)) {
        if (!m_leases.contains(sandboxId))
            continue; // paused or killed meanwhile
        // Someone else may have renewed it further (another console, paddockctl, an SDK): a
        // renewal to now + timeout would then cut their time short. Looked at first.
        auto current = co_await m_lifecycle->get(sandboxId);
        if (!current && current.error().kind == Error::Kind::NotFound) {
            lost(sandboxId);
            continue;
        }
        if (current && (!current->expiresAt || *current->expiresAt >= renewBefore)) {
            if (auto lease = m_leases.find(sandboxId); lease != m_leases.end())
                lease->expiresAt = current->expiresAt.value_or(QDateTime::currentDateTimeUtc().addYears(100));
            continue;
        }
        if (!m_leases.contains(sandboxId))
            continue;
        auto granted = co_await m_lifecycle->renew(sandboxId, timeout);
        if (granted) {
            if (auto lease = m_leases.find(sandboxId); lease != m_leases.end())
                lease->expiresAt = *granted;
            ++renewed;
            Q_EMIT leaseRenewed(sandboxId, *granted);
        } else if (granted.error().kind == Error::Kind::NotFound) {
            lost(sandboxId);
        } else if (granted.error().kind == Error::Kind::Conflict) {
            // 409: a sandbox without expiry (manual cleanup) has no lease to keep.
            if (auto lease = m_leases.find(sandboxId); lease != m_leases.end())
                lease->expiresAt = QDateTime::currentDateTimeUtc().addYears(100);
        } else {
            qCWarning(lcOpenSandbox).noquote() << "cannot renew the lease of" << sandboxId << granted.error().message;
        }
    }
    m_renewing = false;
    co_return renewed;
}

} // namespace Paddock::OpenSandbox
