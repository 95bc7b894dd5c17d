#pragma once

#include "../../backend.h"
#include "../../provisioner.h"
#include "e2bapi.h"
#include "envdclient.h"

#include <QCoroFwd>

#include <QHash>

#include <chrono>
#include <memory>

class QNetworkAccessManager;

namespace Paddock::E2B {

// Where AgentScope's E2B workspaces keep things (reference §6.1, `_constants.py`).
inline constexpr QLatin1String DefaultTemplate{"base"};
inline constexpr std::chrono::seconds DefaultTimeout{300};
inline constexpr QLatin1String DefaultWorkdir{"/home/user/workspace"};
inline constexpr QLatin1String DefaultGatewayHome{"/home/user/.agentscope"};
inline constexpr std::chrono::seconds BootstrapCommandTimeout{600}; // E2BWorkspace._bootstrap_cmd_timeout

// AgentScope's E2B bootstrap (reference §6.3 step 5): its apt and uv installs run through sudo
// (the sandbox's user is `user`), then the gateway venv and agentscope, then Paddock's two
// copies of the glob helper and the gateway script (AgentScope writes them with files.write;
// the script, its marker, last), 600 s per command.
QList<BootstrapCommand> agentscopeBootstrapCommands(const QStringList &extraPip = {});

struct BackendOptions
{
    ConnectionConfig connection;
    QString templateName = DefaultTemplate;
    // What create and connect (resume) ask for: always explicit, never the server's default.
    std::chrono::seconds timeout = DefaultTimeout;
    QMap<QString, QString> envVars; // AgentScope's `env`: every command's environment
    QString workdir = DefaultWorkdir;
    QString gatewayHome = DefaultGatewayHome;
    RetryPolicy retry;
    std::chrono::seconds keepalive{50}; // envd's Keepalive-Ping-Interval on command streams
};

// Workspaces as E2B sandboxes, as AgentScope's E2BWorkspaceManager keeps them (README.md): found
// by the metadata `agentscope.workspace.id` among running and paused sandboxes, resumed by
// connect (with an explicit timeout), created from the template otherwise; close pauses. The
// control plane over the core's HTTP layer (X-API-Key), envd over the same client (Connect RPC
// with the JSON codec, `/health`, `/files`), each sandbox's envd token kept in memory only.
class E2BBackend final : public Backend
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(E2BBackend)

public:
    explicit E2BBackend(BackendOptions options, QObject *parent = nullptr);
    ~E2BBackend() override;

    const BackendOptions &options() const { return m_options; }
    HttpClient *http() const { return m_http.get(); }
    ControlPlane *controlPlane() const { return m_api.get(); }

    QString name() const override;
    QString instanceKey() const override;
    WorkspaceLayout layout(const SandboxInfo &sandbox) const override;
    Capabilities capabilities() const override;
    // The key and the URLs, checked before anything is sent.
    Result<> checkConfiguration() const override;

    QCoro::Task<Result<QList<SandboxInfo>>> list(ListFilter filter) override;
    QCoro::Task<Result<SandboxInfo>> get(QString sandboxId) override;
    QCoro::Task<Result<SandboxDetails>> details(QString sandboxId) override;
    QCoro::Task<Result<SandboxInfo>> create(CreateSpec spec) override;
    // A running sandbox: connect (its deadline only extended); a paused one is refused.
    QCoro::Task<Result<SandboxInfo>> connect(QString sandboxId) override;
    // connect with the profile's timeout: a paused sandbox comes back with now + timeout.
    QCoro::Task<Result<SandboxInfo>> resume(QString sandboxId) override;
    QCoro::Task<Result<>> pause(QString sandboxId) override;
    QCoro::Task<Result<>> kill(QString sandboxId, KillOptions options) override;
    // POST /sandboxes/{id}/timeout: now + duration (the session never shortens unless asked);
    // the answer is the server's deadline (it clamps to the team's longest run).
    QCoro::Task<Result<SandboxInfo>> renew(QString sandboxId, std::chrono::seconds duration) override;
    QCoro::Task<Result<bool>> isReady(QString sandboxId) override;
    QCoro::Task<Result<ExecResult>> exec(QString sandboxId, ExecRequest request) override;
    QCoro::Task<Result<std::optional<QDateTime>>> sessionsActivity(QString sandboxId) override;
    // GET /sandboxes/metrics?sandbox_ids=... (100 ids a request): the sandbox's own view of its
    // CPU (of every core, turned into 100 = one core) and memory (used, and total as the limit),
    // as envd last reported them. A sandbox the server has no figures for (paused) is left out;
    // a server without the route (404, 405, 501): Unsupported.
    QCoro::Task<Result<QList<SandboxMetrics>>> metrics(QStringList sandboxIds) override;
    QCoro::Task<Result<QList<FileEntry>>> listFolder(QString sandboxId, QString path) override;
    QCoro::Task<Result<FileEntry>> stat(QString sandboxId, QString path) override;
    QCoro::Task<Result<FileChunk>> readFile(QString sandboxId, QString path, qint64 offset, qint64 length) override;
    QCoro::Task<Result<>> download(QString sandboxId, QString path, QString localPath) override;
    QCoro::Task<Result<>> upload(QString sandboxId, QString localPath, QString path) override;
    // `e2b sandbox connect <id>` (E2B's CLI, with its own login) where the profile uses E2B's
    // own service; nullopt for another API URL, which the CLI is not told.
    std::optional<TerminalCommand> terminalCommand(const SandboxInfo &sandbox) const override;
    // The listings under way end (a closing profile waits for actions, not for a silent server).
    void cancelReads() override;

private:
    // One POST /v2/sandboxes and what follows it (the workdir, the sandbox as listed).
    QCoro::Task<Result<SandboxInfo>> createOnce(CreateSpec spec);
    // The workspace's sandbox that a create whose answer was lost made, if any (connected to).
    QCoro::Task<Result<std::optional<SandboxInfo>>> findCreated(QString workspaceId);
    struct EnvdEntry
    {
        std::shared_ptr<EnvdClient> client;
        QString workspaceId;
    };
    // The envd client of a running sandbox (its token from the last create, connect or get).
    QCoro::Task<Result<std::shared_ptr<EnvdClient>>> envd(QString sandboxId);
    void remember(const SandboxRecord &record);
    // After an envd call failed: why, in the control plane's words (gone, paused, or envd not
    // answering in a running sandbox). A sandbox held here that is gone is reported lost.
    QCoro::Task<Error> explain(QString sandboxId, Error error);
    template<typename T, typename Work> QCoro::Task<Result<T>> onFiles(QString sandboxId, Work work);
    Error translate(const Error &error, const QString &sandboxId) const;

    BackendOptions m_options;
    std::unique_ptr<QNetworkAccessManager> m_network;
    std::unique_ptr<HttpClient> m_http;
    std::unique_ptr<ControlPlane> m_api;
    QHash<QString, EnvdEntry> m_envd;
};

} // namespace Paddock::E2B
