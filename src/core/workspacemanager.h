#pragma once

#include "backend.h"
#include "clock.h"
#include "isolation.h"
#include "provisioner.h"
#include "result.h"
#include "tasktracker.h"
#include "workspace.h"

#include <QCoroFwd>

#include <QHash>
#include <QObject>
#include <QSet>
#include <QTimer>

#include <chrono>
#include <memory>
#include <optional>

namespace Paddock {

template<typename T> class Broadcast;

struct ManagerOptions
{
    IsolationPolicy isolation = DefaultIsolationPolicy;
    std::chrono::milliseconds ttl{std::chrono::seconds(3600)};
    std::chrono::milliseconds sweepInterval{std::chrono::seconds(300)};
    std::shared_ptr<Clock> clock; // null: the steady clock
    // Ids are assigned with an empty user whoever asks (Capability::UserNotRecorded: AgentScope's
    // LocalWorkspaceManager calls assign_workspace_id with user_id=""). An explicit id still wins.
    bool assignWithoutUser = false;
};

struct WorkspaceRequest
{
    QString userId;
    QString agentId;
    QString sessionId;
    std::optional<QString> workspaceId; // set: wins over the isolation policy
};

// AgentScope's workspace manager contract, without its global lock:
// - a cache keyed by workspace id; a hit refreshes the idle clock and costs no I/O;
// - a miss provisions through the WorkspaceProvider; different ids provision concurrently,
//   concurrent requests for one id share one provisioning and get one instance;
// - a failed provisioning caches nothing and every waiter gets the same error;
// - the TTL sweeper evicts entries idle strictly longer than ttl, waking every sweepInterval;
//   eviction closes the workspace (close = pause in the backend, then evict: a request for an
//   id that is being closed waits for the pause, then attaches again);
// - kill() is the manager's too: the entry goes before the sandbox does, so the cache never
//   holds a killed sandbox;
// - closeAll() closes in parallel; stop() ends the sweeper, then closes everything (or, when
//   asked to, leaves every workspace running and just forgets it), and completes only when
//   every close and kill it started or found under way has ended.
// Runs on the thread that owns it; callers co_await its tasks there. co_await stop() before
// destroying it, so that no provisioning, close or kill is still running.
class WorkspaceManager final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WorkspaceManager)

public:
    WorkspaceManager(WorkspaceProvider *provider, ManagerOptions options, QObject *parent = nullptr);
    ~WorkspaceManager() override;

    const ManagerOptions &options() const { return m_options; }
    IsolationPolicy isolation() const { return m_options.isolation; }

    Result<QString> assignWorkspaceId(const QString &userId, const QString &agentId,
                                      const QString &sessionId = {}) const;
    // The id a request resolves to: its explicit id (validated), else the policy's.
    Result<QString> resolveWorkspaceId(const WorkspaceRequest &request) const;

    QCoro::Task<Result<WorkspacePtr>> getWorkspace(WorkspaceRequest request);

    WorkspacePtr cached(const QString &workspaceId) const;
    QStringList cachedIds() const;
    qsizetype cachedCount() const { return m_cache.size(); }
    bool isProvisioning(const QString &workspaceId) const { return m_inflight.contains(workspaceId); }
    qsizetype provisioningCount() const { return m_inflight.size(); }
    // How long until the sweeper may close a cached workspace for idleness (ttl minus the time
    // since its last access; zero once it is due; the sweeper acts on its next tick). nullopt
    // for a workspace that is not cached.
    std::optional<std::chrono::milliseconds> idleRemaining(const QString &workspaceId) const;

    // Evicts and closes one workspace (waiting for its provisioning if one runs). Closing an
    // id that is not cached does nothing.
    QCoro::Task<Result<>> close(QString workspaceId);
    // Kills the sandbox `sandboxId` of a workspace (the provider's backend's kill). If the cache
    // holds that sandbox, its entry is dropped first without a close (nothing is left to pause):
    // the next request provisions the workspace again. A provisioning or close of that id under
    // way is waited for first. Emits workspaceKilled on success.
    QCoro::Task<Result<>> kill(QString workspaceId, QString sandboxId, KillOptions options = {});
    // Evicts everything and closes it all in parallel; done when every close is done.
    QCoro::Task<void> closeAll();
    // One sweeper tick: returns the ids it evicted.
    QCoro::Task<QStringList> sweepOnce();
    // Whether the sweeper is closing this workspace for idleness: true while its close runs,
    // and so when workspaceClosed (or closeFailed) is emitted for it (who closed it, for events).
    bool isSweeperClosing(const QString &workspaceId) const { return m_sweeperClosing.contains(workspaceId); }

    void start();
    // What stop() does with the workspaces it holds.
    enum class StopMode {
        Close, // close them all (pause), as AgentScope's manager does at shutdown
        LeaveRunning, // forget them as they are: their sandboxes keep running
    };
    Q_ENUM(StopMode)
    // Ends the sweeper, waits for the provisionings under way, then closes (or leaves) everything.
    QCoro::Task<void> stop(StopMode mode = StopMode::Close);
    bool isStarted() const { return m_sweepTimer.isActive(); }

Q_SIGNALS:
    void provisioningStarted(const QString &workspaceId);
    void provisioningFinished(const QString &workspaceId, bool ok);
    // A provisioning failed: what waiters got.
    void provisioningFailed(const QString &workspaceId, const Paddock::Error &error);
    // A workspace left the cache and its close ended (sandboxId: its sandbox, when known); when
    // the close failed, closeFailed came first with the error. isSweeperClosing() says, while
    // this is emitted, whether the sweeper closed it.
    void workspaceClosed(const QString &workspaceId, const QString &sandboxId = {});
    void closeFailed(const QString &workspaceId, const QString &sandboxId, const Paddock::Error &error);
    void workspaceKilled(const QString &workspaceId, const QString &sandboxId);
    // One sweeper tick is done; evicted lists what it closed.
    void sweepFinished(const QStringList &evicted);
    // The backend lost the sandbox of a cached workspace; it was dropped from the cache.
    void workspaceLost(const QString &workspaceId, const QString &sandboxId = {});

private:
    struct Entry
    {
        WorkspacePtr workspace;
        Clock::TimePoint lastAccess;
    };
    using Pending = Broadcast<Result<WorkspacePtr>>;

    WorkspacePtr touch(const QString &workspaceId); // a cache hit refreshes the idle clock
    QCoro::Task<Result<WorkspacePtr>> provisionShared(ProvisionRequest request);
    QCoro::Task<Result<>> safeClose(WorkspacePtr workspace);
    void onSweepTimer();
    void onSandboxLost(const QString &sandboxId, const QString &workspaceId);
    // Erases the entry of workspaceId if it holds sandboxId; whether it did.
    bool drop(const QString &workspaceId, const QString &sandboxId);

    WorkspaceProvider *m_provider;
    ManagerOptions m_options;
    QHash<QString, Entry> m_cache;
    QHash<QString, std::shared_ptr<Pending>> m_inflight;
    QHash<QString, std::shared_ptr<Broadcast<Result<>>>> m_closing; // evicted, backend not yet paused
    QTimer m_sweepTimer;
    std::shared_ptr<Broadcast<bool>> m_sweeping; // set while a sweep runs
    QSet<QString> m_sweeperClosing; // the ids a sweep is closing
    TaskTracker m_tasks; // every close and kill under way
    bool m_stopping = false; // stop() runs: nothing is opened any more
};

} // namespace Paddock
