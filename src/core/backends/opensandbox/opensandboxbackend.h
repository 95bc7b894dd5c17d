#pragma once

#include "../../backend.h"
#include "../../provisioner.h"
#include "execdclient.h"
#include "http.h"
#include "lifecycleclient.h"

#include <QCoroFwd>

#include <QDateTime>
#include <QHash>
#include <QSet>
#include <QTimer>

#include <chrono>
#include <memory>

class QNetworkAccessManager;

namespace Paddock::OpenSandbox {

// Where AgentScope's OpenSandbox workspaces keep things (reference §3, OpenSandbox constants).
inline constexpr QLatin1String DefaultWorkdir{"/workspace"};
inline constexpr QLatin1String DefaultGatewayHome{"/root/.agentscope"};
inline constexpr std::chrono::seconds BootstrapCommandTimeout{600};

// AgentScope's bootstrap (Paddock::agentscopeBootstrapCommands) with OpenSandbox's time limit of
// BootstrapCommandTimeout per command.
QList<BootstrapCommand> agentscopeBootstrapCommands(const QStringList &extraPip = {},
                                                    const QString &gatewayHome = DefaultGatewayHome);

struct BackendOptions
{
    ConnectionConfig connection;
    // What new sandboxes get (image python:3.11-slim, entrypoint, timeout 1800 s, resources, env).
    // Its metadata is ignored: the workspace's comes from CreateSpec.
    SandboxCreate sandbox;
    QString workdir = DefaultWorkdir;
    QString gatewayHome = DefaultGatewayHome;
    RetryPolicy retry;
    // Pause and resume answer at once; how long to poll for the state to settle.
    std::chrono::milliseconds settleTimeout{60'000};
    // Keep the lease of every sandbox this backend attached to and has not paused: renew it when
    // less than half of the sandbox timeout is left. Checked every leaseCheckInterval.
    bool keepLeases = true;
    std::chrono::milliseconds leaseCheckInterval{15'000};
    // Renew when less than this is left; nullopt: half the sandbox timeout.
    std::optional<std::chrono::seconds> leaseRenewMargin;
    std::chrono::milliseconds execdPingInterval{3'000};
};

// Workspaces as OpenSandbox sandboxes, as AgentScope's OpenSandboxWorkspaceManager keeps them:
// found by the metadata `agentscope.workspace.id` (newest first), resumed when paused,
// connected to when running, created otherwise; close pauses. Metadata values are encoded to
// fit the server's label rules (metadatacodec.h) and decoded for display.
//
// A create that gets no answer (a dropped connection, a timeout, a 502 or 504) may have made
// the sandbox anyway, so it is never sent again blindly: the backend first looks the workspace
// up by its metadata and only creates when nothing is there.
class OpenSandboxBackend final : public Backend
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(OpenSandboxBackend)

public:
    explicit OpenSandboxBackend(BackendOptions options, QObject *parent = nullptr);
    ~OpenSandboxBackend() override;

    const BackendOptions &options() const { return m_options; }
    LifecycleClient *lifecycle() const { return m_lifecycle.get(); }
    // The HTTP client of the lifecycle API and every execd (for diagnostics and tests).
    HttpClient *http() const { return m_http.get(); }
    // The sandboxes whose lease this backend keeps.
    QStringList leasedSandboxes() const { return m_leases.keys(); }

    QString name() const override;
    QString instanceKey() const override;
    WorkspaceLayout layout(const SandboxInfo &sandbox) const override;

    QCoro::Task<Result<QList<SandboxInfo>>> list(ListFilter filter) override;
    QCoro::Task<Result<SandboxInfo>> get(QString sandboxId) override;
    // GET /sandboxes/{id} (status.reason and message, entrypoint masked, platform, last
    // transition; resourceLimits when the server sends them), and execd's endpoint while the
    // sandbox runs: the cached one, else `endpoints/44772` asked beside the GET (both in flight
    // at once, so one round trip), shown without its headers and not cached.
    QCoro::Task<Result<SandboxDetails>> details(QString sandboxId) override;
    QCoro::Task<Result<SandboxInfo>> create(CreateSpec spec) override;
    QCoro::Task<Result<SandboxInfo>> connect(QString sandboxId) override;
    QCoro::Task<Result<SandboxInfo>> resume(QString sandboxId) override;
    QCoro::Task<Result<>> pause(QString sandboxId) override;
    // Every execd client's reads end (Cancelled), those under way and those to come: called at
    // a session's shutdown, once nothing more is read.
    void cancelReads() override;
    // The POST alone (202: accepted), then the pauses of a job seen through together by one
    // listing polled with backoff until every one is Paused (or cannot be).
    QCoro::Task<Result<bool>> requestPause(QString sandboxId) override;
    QCoro::Task<QList<Result<>>> settlePauses(QStringList sandboxIds, PauseSettled settled = {}) override;
    QCoro::Task<Result<>> kill(QString sandboxId, KillOptions options) override;
    Capabilities capabilities() const override;
    QCoro::Task<Result<SandboxInfo>> renew(QString sandboxId, std::chrono::seconds duration) override;
    QCoro::Task<Result<bool>> isReady(QString sandboxId) override;
    QCoro::Task<Result<ExecResult>> exec(QString sandboxId, ExecRequest request) override;
    // Capability::Files through execd's files API (execdfiles.h).
    QCoro::Task<Result<QList<FileEntry>>> listFolder(QString sandboxId, QString path) override;
    QCoro::Task<Result<FileEntry>> stat(QString sandboxId, QString path) override;
    QCoro::Task<Result<FileChunk>> readFile(QString sandboxId, QString path, qint64 offset, qint64 length) override;
    QCoro::Task<Result<>> download(QString sandboxId, QString path, QString localPath) override;
    QCoro::Task<Result<>> upload(QString sandboxId, QString localPath, QString path) override;
    // One execd directory listing of <workdir>/sessions, two levels deep.
    QCoro::Task<Result<std::optional<QDateTime>>> sessionsActivity(QString sandboxId) override;
    // execd's GET /metrics of each sandbox (eight at once; execd takes a second to measure): the
    // sandbox's own view of its CPU (of every core, turned into 100 = one core) and memory
    // (used, and total as the limit). A sandbox whose execd cannot be reached (paused, gone) is
    // left out; execd without the route (404, 405, 501) and no figures at all: Unsupported.
    QCoro::Task<Result<QList<SandboxMetrics>>> metrics(QStringList sandboxIds) override;
    // The server's legacy container log endpoint (LifecycleClient::containerLogs).
    QCoro::Task<Result<QByteArray>> containerLogs(QString sandboxId, int tail) override;

    // execd of one sandbox, resolved through `endpoints/44772` and cached until the sandbox is
    // resumed or lost, or a request of that client gets no answer (ExecdClient::unreachable():
    // it could not connect, no answer in time, a stream that broke off), whoever made it; the
    // next call fetches the endpoint again. The backend's own execd calls (isReady, exec,
    // sessionsActivity) that could not connect to a cached endpoint fetch it again and repeat
    // once at once: the request never left, so even a command is safe to send again.
    QCoro::Task<Result<std::shared_ptr<ExecdClient>>> execd(QString sandboxId);

    // One pass of the lease keeper (the timer calls it); returns how many leases it renewed.
    QCoro::Task<int> renewLeases();

Q_SIGNALS:
    void leaseRenewed(const QString &sandboxId, const QDateTime &expiresAt);

private:
    struct Lease
    {
        QString workspaceId;
        std::optional<QDateTime> expiresAt;
    };

    struct ExecdHandle
    {
        std::shared_ptr<ExecdClient> client;
        bool fresh = false; // resolved just now, not taken from the cache
    };
    QCoro::Task<Result<ExecdHandle>> acquireExecd(QString sandboxId);
    // After a failed execd call: drops the endpoint if `used` is still the cached one; true when
    // the call should be made again with a new endpoint (it could not connect to a cached one).
    bool retryElsewhere(const QString &sandboxId, const ExecdHandle &used, const Error &error);
    // One file call on the sandbox's execd, made once more on a new endpoint when the first one
    // could not connect.
    template<typename T, typename Work> QCoro::Task<Result<T>> onFiles(QString sandboxId, Work work);
    void forgetExecd(const QString &sandboxId, const ExecdClient *client);
    // As the sandbox pauses: execd is forgotten and its reads under way end (Cancelled).
    void letExecdReadsGo(const QString &sandboxId);
    static QCoro::Task<Result<std::optional<QDateTime>>> readSessionsActivity(std::shared_ptr<ExecdClient> client,
                                                                              QString sessions);

    QCoro::Task<Result<SandboxInfo>> createOnce(CreateSpec spec);
    // The workspace's sandbox that a create whose answer was lost made, if any (held).
    QCoro::Task<Result<std::optional<SandboxInfo>>> findCreated(QString workspaceId);
    void hold(const SandboxInfo &sandbox);
    void release(const QString &sandboxId);
    void lost(const QString &sandboxId);

    BackendOptions m_options;
    std::unique_ptr<QNetworkAccessManager> m_network;
    std::unique_ptr<HttpClient> m_http;
    std::unique_ptr<LifecycleClient> m_lifecycle;
    // Every execd client alive, cached or not, for cancelReads(). Declared before m_execd, so
    // that it is still there while m_execd's clients go and say so (destroyed()).
    QSet<ExecdClient *> m_liveExecd;
    QHash<QString, std::shared_ptr<ExecdClient>> m_execd;
    QHash<QString, Lease> m_leases;
    // A pause request answered 409 (not running): its reason, for the settling to give when the
    // sandbox never gets to Paused (as pause() gives it).
    QHash<QString, Error> m_pauseRefusals;
    QTimer m_leaseTimer;
    bool m_renewing = false;
};

} // namespace Paddock::OpenSandbox
