#include "profilesession.h"

#include "bootstraplog.h"
#include "canceltoken.h"
#include "logging.h"
#include "provisioner.h"
#include "tr.h"

#include <QCoroTask>
#include <QCoroTimer>

#include <QFile>
#include <QLocale>
#include <QPointer>
#include <QScopeGuard>
#include <QTimer>

#include <algorithm>
#include <map>
#include <utility>

namespace Paddock {

ProfileSession::ProfileSession(Profile profile, QByteArray key, BootstrapLogStore *logs, BackendContext context,
                               QObject *parent)
    : QObject(parent)
    , m_profile(std::move(profile))
    , m_key(std::move(key))
    , m_logs(logs)
    , m_factory(BackendRegistry::instance().find(m_profile.kind))
{
    Q_ASSERT(m_factory); // every Profile::Kind has its registration
    BackendSetup setup = m_factory->create(m_profile, m_key, context);
    m_backend = std::move(setup.backend);
    setUp(std::move(setup.provision));
}

ProfileSession::ProfileSession(Profile profile, std::unique_ptr<Backend> backend, ProvisionOptions provision,
                               BootstrapLogStore *logs, QObject *parent)
    : QObject(parent)
    , m_profile(std::move(profile))
    , m_logs(logs)
    , m_factory(BackendRegistry::instance().find(m_profile.kind))
    , m_backend(std::move(backend))
{
    setUp(std::move(provision));
}

void ProfileSession::setUp(ProvisionOptions provision)
{
    qRegisterMetaType<WorkspaceEvent>();
    if (!m_profile.bootstrapFile.isEmpty()) {
        QFile file(m_profile.bootstrapFile);
        if (file.open(QIODevice::ReadOnly)) {
            provision.bootstrap =
                parseBootstrapCommands(QString::fromUtf8(file.readAll()), m_factory->bootstrapTimeout);
            provision.agentscopeBootstrap = false; // the profile's own: Paddock's marker, no gateway script
        } else {
            // Opening a workspace without the bootstrap the user asked for would leave it half
            // made: the profile shows the problem and nothing is opened.
            m_problem = Tr::tr("Cannot read the bootstrap file %1: %2").arg(file.fileName(), file.errorString());
            m_canOpen = false;
        }
    }
    m_provisioner = std::make_unique<Provisioner>(m_backend.get(), m_logs, std::move(provision));
    ManagerOptions managerOptions;
    managerOptions.isolation = m_profile.isolation;
    managerOptions.ttl = m_profile.ttl;
    managerOptions.sweepInterval = m_profile.sweepInterval;
    managerOptions.assignWithoutUser = m_backend->capabilities().testFlag(Capability::UserNotRecorded);
    m_manager = std::make_unique<WorkspaceManager>(m_provisioner.get(), managerOptions);

    // The manager's own news, as events.
    using Kind = WorkspaceEvent::Kind;
    const auto sandboxOf = [this](const QString &workspaceId) {
        const auto *held = dynamic_cast<const SandboxWorkspace *>(m_manager->cached(workspaceId).get());
        return held ? held->sandbox().sandboxId : QString();
    };
    connect(m_manager.get(), &WorkspaceManager::provisioningStarted, this,
            [this](const QString &id) { emitEvent(Kind::Opening, id, {}); });
    connect(m_manager.get(), &WorkspaceManager::provisioningFinished, this,
            [this, sandboxOf](const QString &id, bool ok) {
                if (ok)
                    emitEvent(Kind::Opened, id, sandboxOf(id));
            });
    connect(
        m_manager.get(), &WorkspaceManager::provisioningFailed, this,
        [this](const QString &id, const Error &error) { emitEvent(Kind::OpenFailed, id, {}, std::nullopt, error); });
    // A close this session asked for is reported with its action when it returns; the others
    // (the sweeper's, at shutdown) as the manager tells them, a failed one with its error.
    // The sweeper's closes say so (Actor::Sweeper); those of shutdown() are this session's own.
    const auto closer = [this](const QString &id) {
        return m_manager->isSweeperClosing(id) ? WorkspaceEvent::Actor::Sweeper : WorkspaceEvent::Actor::Console;
    };
    connect(m_manager.get(), &WorkspaceManager::closeFailed, this,
            [this, closer](const QString &id, const QString &sandboxId, const Error &error) {
                if (!m_releasing.contains(id))
                    emitEvent(Kind::ActionFailed, id, sandboxId, WorkspaceAction::Close, error, closer(id));
            });
    connect(m_manager.get(), &WorkspaceManager::workspaceClosed, this,
            [this, closer](const QString &id, const QString &sandboxId) {
                if (!m_releasing.contains(id))
                    emitEvent(Kind::Closed, id, sandboxId, std::nullopt, std::nullopt, closer(id));
            });
    connect(m_manager.get(), &WorkspaceManager::workspaceLost, this,
            [this](const QString &id, const QString &sandboxId) {
                emitEvent(Kind::Lost, id, sandboxId, std::nullopt, std::nullopt, WorkspaceEvent::Actor::Elsewhere);
            });
    // What the backend's watch reports (only while watched), passed on with the profile's id.
    connect(m_backend.get(), &Backend::sandboxChanged, this,
            [this](const SandboxInfo &sandbox) { Q_EMIT sandboxChanged(m_profile.id, sandbox); });
    connect(m_backend.get(), &Backend::sandboxRemoved, this, &ProfileSession::onSandboxRemoved);
    if (m_canOpen)
        m_manager->start();
}

ProfileSession::~ProfileSession()
{
    if (!m_shutDown && m_tasks.running() > 0) {
        // A coroutine would resume into what is freed here: the owner must co_await shutdown().
        qCCritical(lcSession).noquote() << "profile" << m_profile.id << "destroyed with" << m_tasks.running()
                                        << "task(s) still running; shutdown() was not awaited";
    }
    // The manager goes before the provisioner and the backend it uses.
    m_manager.reset();
    m_provisioner.reset();
    m_backend.reset();
}

Error ProfileSession::closedError() const
{
    return Error{Error::Kind::Cancelled, Tr::tr("not done: the profile %1 was closed").arg(m_profile.displayName())};
}

ProfileSession::Acting::Acting(QHash<QString, int> *on, QString id)
    : acting(on)
    , sandboxId(std::move(id))
{
    if (acting && !sandboxId.isEmpty())
        ++(*acting)[sandboxId];
    else
        acting = nullptr;
}

ProfileSession::Acting::Acting(Acting &&other) noexcept
    : acting(std::exchange(other.acting, nullptr))
    , sandboxId(std::move(other.sandboxId))
{
}

ProfileSession::Acting &ProfileSession::Acting::operator=(Acting &&other) noexcept
{
    if (this != &other) {
        release();
        acting = std::exchange(other.acting, nullptr);
        sandboxId = std::move(other.sandboxId);
    }
    return *this;
}

ProfileSession::Acting::~Acting()
{
    release();
}

void ProfileSession::Acting::release()
{
    if (!acting)
        return;
    const auto it = acting->find(sandboxId);
    if (it != acting->end() && --*it <= 0)
        acting->erase(it);
    acting = nullptr;
}

void ProfileSession::emitEvent(WorkspaceEvent::Kind kind, const QString &workspaceId, const QString &sandboxId,
                               std::optional<WorkspaceAction> action, std::optional<Error> error,
                               WorkspaceEvent::Actor actor)
{
    WorkspaceEvent event;
    event.time = QDateTime::currentDateTimeUtc();
    event.profileId = m_profile.id;
    event.workspaceId = workspaceId;
    event.sandboxId = sandboxId;
    event.kind = kind;
    event.action = action;
    event.error = std::move(error);
    event.actor = actor;
    Q_EMIT this->event(event);
}

void ProfileSession::report(WorkspaceAction action, const SandboxInfo &sandbox, const Result<> &result)
{
    using Kind = WorkspaceEvent::Kind;
    if (!result) {
        emitEvent(Kind::ActionFailed, sandbox.workspaceId, sandbox.sandboxId, action, result.error());
        return;
    }
    Kind kind = Kind::Closed;
    switch (action) {
    case WorkspaceAction::Close:
        kind = Kind::Closed;
        break;
    case WorkspaceAction::Pause:
        kind = Kind::Paused;
        break;
    case WorkspaceAction::Resume:
        kind = Kind::Resumed;
        break;
    case WorkspaceAction::Renew:
        kind = Kind::Renewed;
        break;
    case WorkspaceAction::Kill:
        kind = Kind::Killed;
        break;
    }
    emitEvent(kind, sandbox.workspaceId, sandbox.sandboxId, action);
}

Capabilities ProfileSession::capabilities() const
{
    return m_backend ? m_backend->capabilities() : Capabilities{};
}

QString ProfileSession::instanceKey() const
{
    return m_backend ? m_backend->instanceKey() : QString();
}

WorkspaceLayout ProfileSession::layout(const SandboxInfo &sandbox) const
{
    return m_backend ? m_backend->layout(sandbox) : WorkspaceLayout{};
}

QString ProfileSession::hostFolder(const SandboxInfo &sandbox) const
{
    return m_backend ? m_backend->hostFolder(sandbox) : QString();
}

QString ProfileSession::killWarning(const SandboxInfo &sandbox) const
{
    return m_backend ? m_backend->killWarning(sandbox) : QString();
}

Result<> ProfileSession::checkConfiguration() const
{
    if (!m_backend)
        return fail(closedError());
    return m_backend->checkConfiguration();
}

Result<QString> ProfileSession::resolveWorkspaceId(const WorkspaceRequest &request) const
{
    if (!m_manager)
        return fail(closedError());
    return m_manager->resolveWorkspaceId(request);
}

std::optional<std::chrono::milliseconds> ProfileSession::idleRemaining(const QString &workspaceId) const
{
    return m_manager ? m_manager->idleRemaining(workspaceId) : std::nullopt;
}

WorkspacePtr ProfileSession::cached(const QString &workspaceId) const
{
    return m_manager ? m_manager->cached(workspaceId) : nullptr;
}

bool ProfileSession::isProvisioning(const QString &workspaceId) const
{
    return m_manager && m_manager->isProvisioning(workspaceId);
}

int ProfileSession::openCount() const
{
    return m_manager ? int(m_manager->cachedCount() + m_manager->provisioningCount()) : 0;
}

bool ProfileSession::isWatchLive() const
{
    return m_watched && !m_shuttingDown && m_backend && m_backend->isWatchLive();
}

void ProfileSession::setWatched(bool watched)
{
    if (watched && (m_shuttingDown || !can(Capability::Watch)))
        return;
    if (watched == m_watched)
        return;
    m_watched = watched;
    qCDebug(lcSession).noquote() << "profile" << m_profile.id << (watched ? "watched" : "no longer watched");
    m_backend->setWatching(watched);
}

void ProfileSession::onSandboxRemoved(const QString &sandboxId)
{
    // A sandbox the manager still holds is lost: the backend says so first when it knows it held
    // it (then the cache no longer has it). If it did not, its loss takes the manager's one way,
    // as if the backend had said so (the manager drops it, the session reports Lost).
    if (m_manager) {
        const QStringList held = m_manager->cachedIds();
        for (const QString &workspaceId : held) {
            const auto *workspace = dynamic_cast<const SandboxWorkspace *>(m_manager->cached(workspaceId).get());
            if (workspace && workspace->sandbox().sandboxId == sandboxId) {
                Q_EMIT m_backend->sandboxLost(sandboxId, workspaceId);
                break;
            }
        }
    }
    Q_EMIT sandboxRemoved(m_profile.id, sandboxId);
}

bool ProfileSession::holds(const SandboxInfo &sandbox) const
{
    const auto *held = dynamic_cast<const SandboxWorkspace *>(cached(sandbox.workspaceId).get());
    return held && held->sandbox().sandboxId == sandbox.sandboxId;
}

QCoro::Task<Result<QList<SandboxInfo>>> ProfileSession::list(ListFilter filter)
{
    const auto hold = m_tasks.hold();
    if (m_shuttingDown)
        co_return fail(closedError());
    co_return co_await m_backend->list(std::move(filter));
}

QCoro::Task<Result<SandboxInfo>> ProfileSession::get(QString sandboxId)
{
    const auto hold = m_tasks.hold();
    if (m_shuttingDown)
        co_return fail(closedError());
    co_return co_await m_backend->get(std::move(sandboxId));
}

QCoro::Task<Result<SandboxInfo>> ProfileSession::find(QString workspaceId)
{
    const auto hold = m_tasks.hold();
    if (m_shuttingDown)
        co_return fail(closedError());
    ListFilter filter;
    filter.workspaceId = workspaceId;
    auto found = co_await m_backend->list(filter);
    if (!found)
        co_return fail(found.error());
    if (found->isEmpty())
        co_return fail(Error::notFound(Tr::tr("no workspace %1").arg(workspaceId)));
    // The newest wins, as AgentScope's managers pick.
    co_return newestOf(*found);
}

QCoro::Task<Result<std::optional<QDateTime>>> ProfileSession::sessionsActivity(QString sandboxId)
{
    const auto hold = m_tasks.hold();
    if (m_shuttingDown)
        co_return fail(closedError());
    co_return co_await m_backend->sessionsActivity(std::move(sandboxId));
}

QCoro::Task<Result<QByteArray>> ProfileSession::containerLogs(QString sandboxId, int tail)
{
    const auto hold = m_tasks.hold();
    if (m_shuttingDown)
        co_return fail(closedError());
    co_return co_await m_backend->containerLogs(std::move(sandboxId), tail);
}

QCoro::Task<Result<QList<SandboxMetrics>>> ProfileSession::metrics(QStringList sandboxIds)
{
    const auto hold = m_tasks.hold();
    if (m_shuttingDown)
        co_return fail(closedError());
    if (!m_backend->capabilities().testFlag(Capability::Metrics))
        co_return fail(Backend::metricsNotReported());
    co_return co_await m_backend->metrics(std::move(sandboxIds));
}

QCoro::Task<Result<QList<FileEntry>>> ProfileSession::listFolder(QString sandboxId, QString path)
{
    const auto hold = m_tasks.hold();
    if (m_shuttingDown)
        co_return fail(closedError());
    co_return co_await m_backend->listFolder(std::move(sandboxId), std::move(path));
}

QCoro::Task<Result<FileEntry>> ProfileSession::stat(QString sandboxId, QString path)
{
    const auto hold = m_tasks.hold();
    if (m_shuttingDown)
        co_return fail(closedError());
    co_return co_await m_backend->stat(std::move(sandboxId), std::move(path));
}

QCoro::Task<Result<SandboxDetails>> ProfileSession::details(QString sandboxId)
{
    const auto hold = m_tasks.hold();
    if (m_shuttingDown)
        co_return fail(closedError());
    co_return co_await m_backend->details(std::move(sandboxId));
}

QCoro::Task<Result<ExecResult>> ProfileSession::inspectExec(QString sandboxId, ExecRequest request)
{
    const auto hold = m_tasks.hold();
    if (m_shuttingDown)
        co_return fail(closedError());
    if (!can(Capability::Exec)) {
        const QString message = Tr::tr("the %1 backend cannot run commands in a workspace").arg(m_backend->name());
        co_return fail(Error::unsupported(message));
    }
    co_return co_await stoppableExec(std::move(sandboxId), std::move(request));
}

QCoro::Task<Result<FileChunk>> ProfileSession::readFile(QString sandboxId, QString path, qint64 offset, qint64 length)
{
    const auto hold = m_tasks.hold();
    if (m_shuttingDown)
        co_return fail(closedError());
    co_return co_await m_backend->readFile(std::move(sandboxId), std::move(path), offset, length);
}

QCoro::Task<Result<>> ProfileSession::download(QString sandboxId, QString path, QString localPath)
{
    const auto hold = m_tasks.hold();
    if (m_shuttingDown)
        co_return fail(closedError());
    co_return co_await m_backend->download(std::move(sandboxId), std::move(path), std::move(localPath));
}

QCoro::Task<Result<>> ProfileSession::upload(QString sandboxId, QString localPath, QString path)
{
    const auto hold = m_tasks.hold();
    if (m_shuttingDown)
        co_return fail(closedError());
    if (m_profile.readOnly) {
        co_return fail(Error::invalidArgument(
            Tr::tr("the profile %1 is read-only: nothing is uploaded").arg(m_profile.displayName())));
    }
    co_return co_await m_backend->upload(std::move(sandboxId), std::move(localPath), std::move(path));
}

bool ProfileSession::canExec() const
{
    return !m_shuttingDown && !m_profile.readOnly && can(Capability::Exec);
}

std::optional<TerminalCommand> ProfileSession::terminalCommand(const SandboxInfo &sandbox) const
{
    if (m_shuttingDown || m_profile.readOnly || !m_backend)
        return std::nullopt;
    return m_backend->terminalCommand(sandbox);
}

QCoro::Task<Result<ExecResult>> ProfileSession::exec(QString sandboxId, ExecRequest request)
{
    const auto hold = m_tasks.hold();
    if (m_shuttingDown)
        co_return fail(closedError());
    if (m_profile.readOnly) {
        co_return fail(Error::invalidArgument(
            Tr::tr("the profile %1 is read-only: no command is run").arg(m_profile.displayName())));
    }
    if (!can(Capability::Exec)) {
        const QString message = Tr::tr("the %1 backend cannot run commands in a workspace").arg(m_backend->name());
        co_return fail(Error::unsupported(message));
    }
    if (request.argv.isEmpty())
        co_return fail(Error::invalidArgument(Tr::tr("no command to run")));
    // The command runs only in a running sandbox; a paused one is said to be paused, and
    // resuming it is the caller's choice (a Resume the user sees), never a hidden one.
    auto sandbox = co_await m_backend->get(sandboxId);
    if (!sandbox)
        co_return fail(sandbox.error());
    if (m_shuttingDown)
        co_return fail(closedError());
    if (sandbox->state != SandboxState::Running) {
        const QString id = sandbox->workspaceId.isEmpty() ? sandboxId : sandbox->workspaceId;
        QString message;
        if (sandbox->state == SandboxState::Paused) {
            message = can(Capability::StopInsteadOfPause)
                ? Tr::tr("workspace %1 is stopped: resume it to run commands in it").arg(id)
                : Tr::tr("workspace %1 is paused: resume it to run commands in it").arg(id);
        } else {
            message = Tr::tr("workspace %1 is not running (%2): commands run only in a running workspace")
                          .arg(id, sandbox->rawState.isEmpty() ? sandboxStateName(sandbox->state) : sandbox->rawState);
        }
        co_return fail(Error::conflict(message));
    }
    co_return co_await stoppableExec(std::move(sandboxId), std::move(request));
}

QCoro::Task<Result<ExecResult>> ProfileSession::stoppableExec(QString sandboxId, ExecRequest request)
{
    const auto hold = m_tasks.hold();
    // The session's own token stops the command at shutdown; the caller's is passed on to it.
    const auto stop = std::make_shared<CancelToken>();
    const std::shared_ptr<CancelToken> given = request.cancel;
    int givenId = 0;
    if (given)
        givenId = given->onCancel([stop] { stop->cancel(); });
    m_execs.append(stop);
    const auto forget = qScopeGuard([this, stop, given, givenId] {
        m_execs.removeOne(stop);
        if (given && givenId != 0)
            given->remove(givenId);
    });
    request.cancel = stop;
    auto ran = co_await m_backend->exec(std::move(sandboxId), std::move(request));
    if (!ran && ran.error().kind == Error::Kind::Cancelled && m_shuttingDown && !(given && given->isCancelled()))
        co_return fail(
            Error{Error::Kind::Cancelled,
                  Tr::tr("stopped: the profile %1 was closed while the command ran").arg(m_profile.displayName())});
    co_return ran;
}

namespace {

Error sessionGone()
{
    return Error::unsupported(Tr::tr("its profile was closed"));
}

// A tail ends (an Unsupported error) once the session is gone or closing: nothing will answer.
QCoro::Task<Result<QByteArray>> sessionLogs(QPointer<ProfileSession> session, QString sandboxId, int tail)
{
    if (!session || session->isShuttingDown())
        co_return fail(sessionGone());
    co_return co_await session->containerLogs(std::move(sandboxId), tail);
}

QCoro::Task<Result<SandboxInfo>> sessionState(QPointer<ProfileSession> session, QString sandboxId)
{
    if (!session || session->isShuttingDown())
        co_return fail(sessionGone());
    co_return co_await session->get(std::move(sandboxId));
}

// The session's followed container log: it holds the session's tasks (`hold`; none once the
// session is closing: Cancelled at once). A stream has no end of its own, and the shutdown waits
// for it: the backend's token is cancelled once the reader's is or the session begins to shut
// down (looked at every 100 ms; the stream then ends within a second), and a stream ended so
// says that the profile was closed.
QCoro::Task<Result<>> sessionFollow(QPointer<ProfileSession> session, std::optional<TaskTracker::Hold> hold,
                                    Backend *backend, Error closed, QString sandboxId, int tail,
                                    ContainerLogSource::OnData onData, std::shared_ptr<CancelToken> cancel)
{
    // A local, not the parameter: parameters live as long as the task object, locals until the
    // coroutine returns.
    const std::optional<TaskTracker::Hold> held = std::move(hold);
    if (!held || !backend)
        co_return fail(closed);
    const auto ours = std::make_shared<CancelToken>();
    const auto closing = [session] { return !session || session->isShuttingDown(); };
    QTimer watch;
    watch.setInterval(std::chrono::milliseconds(100));
    QObject::connect(&watch, &QTimer::timeout, &watch, [closing, cancel, ours] {
        if (closing() || (cancel && cancel->isCancelled()))
            ours->cancel();
    });
    watch.start();
    auto followed = co_await backend->followContainerLog(std::move(sandboxId), tail, std::move(onData), ours);
    watch.stop();
    if (!followed && followed.error().kind == Error::Kind::Cancelled && !(cancel && cancel->isCancelled()) && closing())
        co_return fail(closed);
    co_return followed;
}

} // namespace

ContainerLogSource ProfileSession::containerLogSource()
{
    const QPointer<ProfileSession> guarded(this);
    ContainerLogSource source{
        [guarded](QString sandboxId, int tail) { return sessionLogs(guarded, std::move(sandboxId), tail); },
        [guarded](QString sandboxId) { return sessionState(guarded, std::move(sandboxId)); },
        {},
    };
    if (m_backend && m_backend->capabilities().testFlag(Capability::ContainerLogStream)) {
        // Through the backend while the session holds it, as its other reads go; Cancelled once
        // the session is closing or gone.
        source.follow = [guarded](QString sandboxId, int tail, ContainerLogSource::OnData onData,
                                  std::shared_ptr<CancelToken> cancel) {
            Error closed{Error::Kind::Cancelled, Tr::tr("its profile was closed")};
            std::optional<TaskTracker::Hold> hold;
            Backend *backend = nullptr;
            if (guarded) {
                closed = guarded->closedError();
                if (!guarded->m_shuttingDown && guarded->m_backend) {
                    hold.emplace(guarded->m_tasks.hold());
                    backend = guarded->m_backend.get();
                }
            }
            return sessionFollow(guarded, std::move(hold), backend, std::move(closed), std::move(sandboxId), tail,
                                 std::move(onData), std::move(cancel));
        };
    }
    return source;
}

QCoro::Task<Result<WorkspacePtr>> ProfileSession::open(WorkspaceRequest request)
{
    const auto hold = m_tasks.hold();
    if (m_shuttingDown)
        co_return fail(closedError());
    if (!m_canOpen)
        co_return fail(Error::invalidArgument(m_problem));
    co_return co_await m_manager->getWorkspace(std::move(request));
}

QCoro::Task<Result<>> ProfileSession::release(WorkspaceAction action, SandboxInfo sandbox)
{
    const auto hold = m_tasks.hold();
    if (m_shuttingDown) {
        const Result<> closed = fail(closedError());
        report(action, sandbox, closed);
        co_return closed;
    }
    Acting acting = actingOn(sandbox.sandboxId);
    Result<> done;
    if (holds(sandbox) || m_manager->isProvisioning(sandbox.workspaceId)) {
        // What the manager holds it releases itself: its cache never keeps a paused sandbox.
        m_releasing.insert(sandbox.workspaceId);
        done = co_await m_manager->close(sandbox.workspaceId);
        m_releasing.remove(sandbox.workspaceId);
    } else {
        done = co_await m_backend->pause(sandbox.sandboxId);
    }
    acting.release();
    report(action, sandbox, done);
    co_return done;
}

QCoro::Task<Result<>> ProfileSession::close(SandboxInfo sandbox)
{
    co_return co_await release(WorkspaceAction::Close, std::move(sandbox));
}

QCoro::Task<Result<>> ProfileSession::pause(SandboxInfo sandbox)
{
    co_return co_await release(WorkspaceAction::Pause, std::move(sandbox));
}

QCoro::Task<Result<SandboxInfo>> ProfileSession::resume(SandboxInfo sandbox)
{
    const auto hold = m_tasks.hold();
    if (m_shuttingDown) {
        report(WorkspaceAction::Resume, sandbox, fail(closedError()));
        co_return fail(closedError());
    }
    Acting acting = actingOn(sandbox.sandboxId);
    auto resumed = co_await m_backend->resume(sandbox.sandboxId);
    acting.release();
    report(WorkspaceAction::Resume, sandbox, resumed ? Result<>{} : Result<>(fail(resumed.error())));
    co_return resumed;
}

QCoro::Task<Result<SandboxInfo>> ProfileSession::renew(SandboxInfo sandbox, RenewRequest request)
{
    const auto hold = m_tasks.hold();
    const auto failed = [this, &sandbox](const Error &error) -> Result<SandboxInfo> {
        report(WorkspaceAction::Renew, sandbox, fail(error));
        return fail(error);
    };
    if (m_shuttingDown)
        co_return failed(closedError());
    if (request.amount.count() <= 0)
        co_return failed(Error::invalidArgument(Tr::tr("a renewal needs a positive duration")));
    auto current = co_await m_backend->get(sandbox.sandboxId);
    if (!current)
        co_return failed(current.error());
    const std::optional<QDateTime> expiresAt = current->expiresAt;
    const Renewal plan = planRenewal(expiresAt, QDateTime::currentDateTimeUtc(), request.mode, request.amount);
    if (plan.shortens && !request.allowShorter) {
        const QLocale locale;
        co_return failed(Error::conflict(Tr::tr("not renewed: it would expire sooner (%1) than it does now (%2)")
                                             .arg(locale.toString(plan.expiresAt.toLocalTime(), QLocale::ShortFormat),
                                                  locale.toString(expiresAt->toLocalTime(), QLocale::ShortFormat))));
    }
    auto renewed = co_await m_backend->renew(sandbox.sandboxId, std::max(plan.fromNow, std::chrono::seconds(1)));
    if (!renewed)
        co_return failed(renewed.error());
    report(WorkspaceAction::Renew, sandbox, Result<>{});
    co_return renewed;
}

QCoro::Task<Result<>> ProfileSession::kill(SandboxInfo sandbox, KillOptions options)
{
    const auto hold = m_tasks.hold();
    if (m_shuttingDown) {
        report(WorkspaceAction::Kill, sandbox, fail(closedError()));
        co_return fail(closedError());
    }
    Acting acting = actingOn(sandbox.sandboxId);
    Result<> killed = co_await m_manager->kill(sandbox.workspaceId, sandbox.sandboxId, options);
    acting.release();
    // A failed bootstrap of a sandbox that is gone says nothing about the next one of that id.
    if (killed && m_logs && !sandbox.workspaceId.isEmpty())
        m_logs->recordOutcome(instanceKey(), sandbox.workspaceId, true);
    report(WorkspaceAction::Kill, sandbox, killed);
    co_return killed;
}

QCoro::Task<Result<>> ProfileSession::apply(WorkspaceAction action, SandboxInfo sandbox, ActionOptions options)
{
    switch (action) {
    case WorkspaceAction::Close:
        co_return co_await close(std::move(sandbox));
    case WorkspaceAction::Pause:
        co_return co_await pause(std::move(sandbox));
    case WorkspaceAction::Resume: {
        auto resumed = co_await resume(std::move(sandbox));
        co_return resumed ? Result<>{} : Result<>(fail(resumed.error()));
    }
    case WorkspaceAction::Renew: {
        auto renewed = co_await renew(std::move(sandbox), options.renew);
        co_return renewed ? Result<>{} : Result<>(fail(renewed.error()));
    }
    case WorkspaceAction::Kill:
        co_return co_await kill(std::move(sandbox), options.kill);
    }
    co_return Result<>{};
}

QCoro::Task<QList<ItemResult>> ProfileSession::run(WorkspaceAction action, QList<SandboxInfo> items,
                                                   ActionOptions options, BulkProgress progress)
{
    const auto hold = m_tasks.hold();
    const std::shared_ptr<CancelToken> cancel = progress.cancel ? progress.cancel : std::make_shared<CancelToken>();
    const QList<SandboxInfo> given = items;
    const bool inTwoSteps = action == WorkspaceAction::Pause || action == WorkspaceAction::Close;
    qsizetype next = 0; // items start in their order
    QSet<qsizetype> applied; // the items whose action ran (it reported itself)
    QList<qsizetype> settling; // the pauses the server accepted, seen through together at the end
    QSet<qsizetype> deferred; // the same, to look up
    QHash<qsizetype, SandboxInfo> after; // what a resume or a renewal made of its item
    std::map<qsizetype, Acting> unsettled; // the accepted pauses, under way until they settle
    const std::function<QCoro::Task<Result<>>(const SandboxInfo &)> act =
        [this, action, options, cancel, inTwoSteps, &next, &applied, &settling, &deferred, &after, &unsettled,
         &progress](const SandboxInfo &sandbox) -> QCoro::Task<Result<>> {
        const qsizetype index = next++;
        if (m_shuttingDown) {
            cancel->cancel(); // the rest is not started either
            co_return fail(closedError());
        }
        if (progress.started)
            progress.started(index);
        if (cancel->isCancelled()) // the start said to stop (its window went away)
            co_return fail(Error{Error::Kind::Cancelled, Tr::tr("cancelled")});
        applied.insert(index);
        if (inTwoSteps && !holds(sandbox) && !m_manager->isProvisioning(sandbox.workspaceId)) {
            Acting acting = actingOn(sandbox.sandboxId);
            auto requested = co_await m_backend->requestPause(sandbox.sandboxId);
            if (requested && !*requested) {
                settling.append(index);
                deferred.insert(index);
                unsettled.insert_or_assign(index, std::move(acting));
                co_return Result<>{}; // reported once settled
            }
            acting.release();
            const Result<> done = requested ? Result<>{} : Result<>(fail(requested.error()));
            report(action, sandbox, done);
            co_return done;
        }
        // What a resume or a renewal gives back goes with the item's result.
        if (action == WorkspaceAction::Resume || action == WorkspaceAction::Renew) {
            Result<SandboxInfo> now;
            if (action == WorkspaceAction::Resume)
                now = co_await resume(sandbox);
            else
                now = co_await renew(sandbox, options.renew);
            if (!now)
                co_return fail(now.error());
            after.insert(index, *now);
            co_return Result<>{};
        }
        co_return co_await apply(action, sandbox, options);
    };
    // What was not done is said so alike everywhere: the profile closed, if that is why.
    const auto settled = [this](const Result<> &result) -> Result<> {
        if (!result && result.error().kind == Error::Kind::Cancelled && m_shuttingDown)
            return fail(closedError());
        return result;
    };
    const auto itemResult = [&given, &after](qsizetype index, const Result<> &result) {
        ItemResult item{given.at(index), result ? std::nullopt : std::optional<Error>(result.error()), std::nullopt};
        if (result && after.contains(index))
            item.after = after.value(index);
        return item;
    };
    const std::function<void(qsizetype, const Result<> &)> step = [this, action, &given, &progress, &applied, &deferred,
                                                                   settled,
                                                                   itemResult](qsizetype index, const Result<> &raw) {
        if (deferred.contains(index))
            return; // finished when it settles
        const Result<> result = settled(raw);
        if (!applied.contains(index))
            report(action, given.at(index), result); // never started: its event too
        if (progress.finished)
            progress.finished(index, itemResult(index, result));
    };
    const int concurrency = progress.concurrency > 0 ? progress.concurrency : BulkConcurrency;
    QList<Result<>> results = co_await runBounded<SandboxInfo>(std::move(items), concurrency, act, cancel, step);
    if (!settling.isEmpty()) {
        QStringList ids;
        for (const qsizetype index : std::as_const(settling))
            ids.append(given.at(index).sandboxId);
        // Each reported, and its item finished, as it settles.
        const Backend::PauseSettled onSettled = [this, action, &settling, &given, &results, &progress, &unsettled,
                                                 settled, itemResult](qsizetype i, const Result<> &raw) {
            const qsizetype index = settling.at(i);
            unsettled.erase(index);
            const Result<> outcome = settled(raw);
            results[index] = outcome;
            report(action, given.at(index), outcome);
            if (progress.finished)
                progress.finished(index, itemResult(index, outcome));
        };
        co_await m_backend->settlePauses(ids, onSettled);
    }
    QList<ItemResult> out;
    out.reserve(results.size());
    for (qsizetype i = 0; i < results.size(); ++i)
        out.append(itemResult(i, settled(results.at(i))));
    co_return out;
}

QCoro::Task<void> ProfileSession::shutdown(WorkspaceManager::StopMode mode)
{
    if (m_shuttingDown) {
        // A second call waits for the first one's end.
        const auto done = m_shutdownDone;
        co_await done->wait();
        co_return;
    }
    setWatched(false); // nothing more is reported
    m_shuttingDown = true;
    // Commands still running would keep the session open for as long as they run: stopped.
    const QList<std::shared_ptr<CancelToken>> running = m_execs;
    for (const std::shared_ptr<CancelToken> &command : running)
        command->cancel();
    const auto done = m_shutdownDone;
    qCInfo(lcSession).noquote() << "closing profile" << m_profile.id;
    co_await m_manager->stop(mode);
    // The reads under way are let go (a paused sandbox's execd, or a server that took a listing
    // and never answers, would hold them to their timeouts); the actions are waited for. (A bulk
    // pause still settling by listing, on OpenSandbox or Kubernetes, then reports its pauses as
    // cancelled: they were sent, and nothing shows the report of a quit.)
    m_backend->cancelReads();
    // Every action, read and bulk job under way ends before anything it uses is freed.
    co_await m_tasks.idle();
    // The last of them may have ended inside a signal of the backend (a reply's finished()):
    // the freeing waits for the event loop, as deleteLater() would, so that no stack is still
    // inside what is freed.
    co_await QCoro::sleepFor(std::chrono::milliseconds(0)); // one turn of the event loop, not a wait
    co_await m_tasks.idle(); // (what was refused meanwhile ended at once)
    m_manager.reset();
    m_provisioner.reset();
    m_backend.reset();
    m_shutDown = true;
    qCInfo(lcSession).noquote() << "profile" << m_profile.id << "closed";
    done->set(true);
}

} // namespace Paddock
