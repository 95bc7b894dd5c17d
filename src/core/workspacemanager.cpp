#include "workspacemanager.h"

#include "backend.h"
#include "broadcast.h"
#include "logging.h"
#include "tr.h"

#include <QCoroTask>

#include <vector>

namespace Paddock {

WorkspaceManager::WorkspaceManager(WorkspaceProvider *provider, ManagerOptions options, QObject *parent)
    : QObject(parent)
    , m_provider(provider)
    , m_options(std::move(options))
{
    if (!m_options.clock)
        m_options.clock = std::make_shared<SteadyClock>();
    m_sweepTimer.setInterval(m_options.sweepInterval);
    QObject::connect(&m_sweepTimer, &QTimer::timeout, this, &WorkspaceManager::onSweepTimer);
    if (Backend *backend = m_provider->backend())
        QObject::connect(backend, &Backend::sandboxLost, this, &WorkspaceManager::onSandboxLost);
}

bool WorkspaceManager::drop(const QString &workspaceId, const QString &sandboxId)
{
    const auto entry = m_cache.constFind(workspaceId);
    if (entry == m_cache.cend())
        return false;
    const auto *held = dynamic_cast<const SandboxWorkspace *>(entry->workspace.get());
    if (held && held->sandbox().sandboxId != sandboxId)
        return false; // the cache already holds a newer sandbox for this id
    m_cache.erase(entry);
    return true;
}

QCoro::Task<Result<>> WorkspaceManager::kill(QString workspaceId, QString sandboxId, KillOptions options)
{
    const auto hold = m_tasks.hold();
    Backend *backend = m_provider->backend();
    if (!backend)
        co_return fail(Error::unsupported(Tr::tr("this workspace provider has no backend to kill sandboxes in")));
    if (const auto running = m_inflight.value(workspaceId))
        co_await running->wait();
    if (drop(workspaceId, sandboxId))
        qCInfo(lcManager).noquote() << "workspace" << workspaceId << "is being killed; dropped from the cache";
    if (const auto closing = m_closing.value(workspaceId))
        co_await closing->wait(); // its pause first: a kill never races it
    Result<> killed = co_await backend->kill(sandboxId, options);
    if (killed)
        Q_EMIT workspaceKilled(workspaceId, sandboxId);
    co_return killed;
}

void WorkspaceManager::onSandboxLost(const QString &sandboxId, const QString &workspaceId)
{
    // Nothing to pause or close: the sandbox is gone. The next request provisions it again.
    if (!drop(workspaceId, sandboxId))
        return;
    qCWarning(lcManager).noquote() << QStringLiteral("workspace %1 lost sandbox %2; it is provisioned again on the "
                                                     "next request. Ephemeral workspace data may have been lost.")
                                          .arg(workspaceId, sandboxId);
    Q_EMIT workspaceLost(workspaceId, sandboxId);
}

WorkspaceManager::~WorkspaceManager() = default;

Result<QString> WorkspaceManager::assignWorkspaceId(const QString &userId, const QString &agentId,
                                                    const QString &sessionId) const
{
    if (auto ok = validatePrincipalId(Principal::User, userId); !ok)
        return fail(ok.error());
    if (auto ok = validatePrincipalId(Principal::Agent, agentId); !ok)
        return fail(ok.error());
    return Paddock::assignWorkspaceId(m_options.isolation, m_options.assignWithoutUser ? QString() : userId, agentId,
                                      sessionId);
}

Result<QString> WorkspaceManager::resolveWorkspaceId(const WorkspaceRequest &request) const
{
    if (!request.workspaceId)
        return assignWorkspaceId(request.userId, request.agentId, request.sessionId);
    if (auto ok = validatePrincipalId(Principal::User, request.userId); !ok)
        return fail(ok.error());
    if (auto ok = validatePrincipalId(Principal::Agent, request.agentId); !ok)
        return fail(ok.error());
    if (auto ok = validateWorkspaceId(*request.workspaceId); !ok)
        return fail(ok.error());
    return *request.workspaceId;
}

QCoro::Task<Result<WorkspacePtr>> WorkspaceManager::getWorkspace(WorkspaceRequest request)
{
    auto id = resolveWorkspaceId(request);
    if (!id)
        co_return fail(id.error());
    const auto stopping = [this] {
        return Error{Error::Kind::Cancelled, Tr::tr("not opened: the workspace manager is stopping")};
    };
    if (m_stopping)
        co_return fail(stopping());

    if (WorkspacePtr workspace = touch(*id))
        co_return workspace;
    if (const auto closing = m_closing.value(*id)) {
        // Close = pause, then evict: wait for the pause, then attach again (resume), unless the
        // manager began to stop meanwhile (it would hold a workspace after its stop()).
        co_await closing->wait();
        if (m_stopping)
            co_return fail(stopping());
        if (WorkspacePtr workspace = touch(*id))
            co_return workspace;
    }
    // Named, not a temporary: GCC 12 destroys class temporaries inside co_await twice.
    const ProvisionRequest provision{*id, std::move(request.userId), std::move(request.agentId),
                                     std::move(request.sessionId)};
    co_return co_await provisionShared(provision);
}

QCoro::Task<Result<WorkspacePtr>> WorkspaceManager::provisionShared(ProvisionRequest request)
{
    const QString id = request.workspaceId;
    if (const auto running = m_inflight.value(id)) {
        // Someone is building this id already: share their result.
        co_return co_await running->wait();
    }

    const auto pending = std::make_shared<Pending>();
    m_inflight.insert(id, pending);
    Q_EMIT provisioningStarted(id);

    Result<WorkspacePtr> result = co_await m_provider->provision(std::move(request));

    m_inflight.remove(id);
    if (result) {
        m_cache.insert(id, Entry{*result, m_options.clock->now()});
    } else {
        qCWarning(lcManager).noquote() << "provisioning" << id << "failed:" << result.error().message;
        Q_EMIT provisioningFailed(id, result.error());
    }
    Q_EMIT provisioningFinished(id, result.has_value());
    pending->set(result);
    co_return result;
}

WorkspacePtr WorkspaceManager::touch(const QString &workspaceId)
{
    // Returns a copy, never the member itself: GCC 12 moves from a member named in co_return.
    const auto it = m_cache.find(workspaceId);
    if (it == m_cache.end())
        return nullptr;
    it->lastAccess = m_options.clock->now();
    return it->workspace;
}

std::optional<std::chrono::milliseconds> WorkspaceManager::idleRemaining(const QString &workspaceId) const
{
    const auto it = m_cache.constFind(workspaceId);
    if (it == m_cache.cend())
        return std::nullopt;
    const auto idle = std::chrono::duration_cast<std::chrono::milliseconds>(m_options.clock->now() - it->lastAccess);
    return std::max(std::chrono::milliseconds(0), m_options.ttl - idle);
}

WorkspacePtr WorkspaceManager::cached(const QString &workspaceId) const
{
    const auto it = m_cache.constFind(workspaceId);
    return it == m_cache.cend() ? nullptr : it->workspace;
}

QStringList WorkspaceManager::cachedIds() const
{
    return m_cache.keys();
}

QCoro::Task<Result<>> WorkspaceManager::safeClose(WorkspacePtr workspace, bool swept)
{
    // The workspace has left the cache already; until its backend is paused, a request for the
    // same id waits here rather than attaching to a sandbox that is about to pause.
    const auto hold = m_tasks.hold();
    const QString id = workspace->id();
    const auto *held = dynamic_cast<const SandboxWorkspace *>(workspace.get());
    const QString sandboxId = held ? held->sandbox().sandboxId : QString();
    const auto done = std::make_shared<Broadcast<Result<>>>();
    m_closing.insert(id, done);
    Result<> closed = co_await workspace->close();
    if (!closed) {
        qCWarning(lcManager).noquote() << "Failed to close workspace" << id << closed.error().message;
        Q_EMIT closeFailed(id, sandboxId, closed.error());
    }
    if (m_closing.value(id) == done)
        m_closing.remove(id);
    done->set(closed);
    Q_EMIT workspaceClosed(id, sandboxId, swept);
    co_return closed;
}

QCoro::Task<Result<>> WorkspaceManager::close(QString workspaceId)
{
    if (const auto running = m_inflight.value(workspaceId))
        co_await running->wait();
    const auto it = m_cache.find(workspaceId);
    if (it == m_cache.end()) {
        // Being closed already (the sweeper, another Close): its result, not a second pause.
        if (const auto closing = m_closing.value(workspaceId))
            co_return co_await closing->wait();
        co_return Result<>{};
    }
    WorkspacePtr workspace = it->workspace;
    m_cache.erase(it);
    co_return co_await safeClose(std::move(workspace));
}

QCoro::Task<> WorkspaceManager::closeAll()
{
    while (!m_inflight.isEmpty()) {
        const auto running = *m_inflight.cbegin();
        co_await running->wait();
    }
    const auto entries = std::exchange(m_cache, {});
    std::vector<QCoro::Task<Result<>>> closing;
    closing.reserve(static_cast<size_t>(entries.size()));
    for (const Entry &entry : entries)
        closing.push_back(safeClose(entry.workspace)); // tasks start at once and run side by side
    for (auto &task : closing)
        co_await task;
}

QCoro::Task<QStringList> WorkspaceManager::sweepOnce()
{
    const Clock::TimePoint now = m_options.clock->now();
    QStringList expired;
    std::vector<WorkspacePtr> evicted;
    for (auto it = m_cache.begin(); it != m_cache.end();) {
        if (now - it->lastAccess > m_options.ttl) {
            expired.append(it.key());
            evicted.push_back(std::move(it->workspace));
            it = m_cache.erase(it);
        } else {
            ++it;
        }
    }
    if (evicted.empty())
        co_return expired;

    qCInfo(lcManager).noquote() << "sweeper evicts" << expired.join(QStringLiteral(", "));
    std::vector<QCoro::Task<Result<>>> closing;
    closing.reserve(evicted.size());
    for (auto &workspace : evicted)
        closing.push_back(safeClose(std::move(workspace), true));
    for (auto &task : closing)
        co_await task;
    co_return expired;
}

void WorkspaceManager::onSweepTimer()
{
    if (m_sweeping)
        return; // the previous tick is still closing workspaces
    auto done = std::make_shared<Broadcast<bool>>();
    m_sweeping = done;
    QCoro::connect(sweepOnce(), this, [this, done](const QStringList &evicted) {
        m_sweeping.reset();
        done->set(true);
        Q_EMIT sweepFinished(evicted);
    });
}

void WorkspaceManager::start()
{
    if (!m_sweepTimer.isActive())
        m_sweepTimer.start();
}

QCoro::Task<> WorkspaceManager::stop(StopMode mode)
{
    m_stopping = true;
    m_sweepTimer.stop();
    if (const auto sweeping = m_sweeping)
        co_await sweeping->wait();
    if (mode == StopMode::Close) {
        co_await closeAll();
    } else {
        while (!m_inflight.isEmpty()) {
            const auto running = *m_inflight.cbegin();
            co_await running->wait();
        }
        const QStringList left = m_cache.keys();
        m_cache.clear();
        if (!left.isEmpty())
            qCInfo(lcManager).noquote() << "left running:" << left.join(QStringLiteral(", "));
    }
    // A close(id) or kill started before stop() (the entry already out of the cache, so
    // closeAll() did not see it) still runs in the backend: it must end before anything is freed.
    co_await m_tasks.idle();
    m_stopping = false; // a manager stopped may be started again
}

} // namespace Paddock
