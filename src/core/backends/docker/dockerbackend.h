#pragma once

#include "../../backend.h"
#include "../../execfiles.h"
#include "../../profile.h"
#include "../../waitset.h"
#include "curlhttp.h"

#include <QString>
#include <QStringList>

#include <memory>

namespace Paddock::Docker {

class DockerClient;
struct ContainerInfo;

struct DockerOptions
{
    // What paddockctl and a console profile use when no image is named.
    static constexpr QLatin1String DefaultImage{"debian:bookworm-slim"};

    QString dockerHost; // empty: $DOCKER_HOST, else unix:///var/run/docker.sock
    QString image; // what new containers run; it must be on the engine already
    // Host folder whose <workspace id> subfolder is bind-mounted at /workspace, so the data
    // outlives the container. Empty: <XDG_DATA_HOME>/paddock/docker-workspaces.
    QString basedir;
    // Keeps the container alive; answers `docker stop` at once.
    QStringList command{QStringLiteral("sh"), QStringLiteral("-c"),
                        QStringLiteral("trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done")};
    QString networkMode = QStringLiteral("none"); // empty: the engine's default network
    bool stopInsteadOfPause = false; // pause (and so close) stops the container instead of freezing it
    // Paddock's layout, or AgentScope's DockerWorkspaceManager's (README.md): containers named
    // as_ws_<workspace id>, labelled only as AgentScope labels them, running `sleep infinity` over
    // <basedir>/<user id>/<agent id>, and removed on close (their folders, kept, read Stopped).
    // `command` and stopInsteadOfPause do not apply there.
    Profile::Layout layout = Profile::Layout::Paddock;
};

// Workspaces as Docker containers: labelled with the AgentScope ids and found again by label;
// /workspace is a host folder, so kill removes the container and keeps the files (say so to
// delete them too: deleteFolder()). Pause freezes the processes (`docker pause`); a stopped
// container counts as paused (its raw state says "exited") and resume starts it again.
//
// In AgentScope's layout (DockerOptions::layout) the backend shows and makes the containers of
// AgentScope's DockerWorkspaceManager: a sandbox id is the container's name, as_ws_<workspace id>;
// the user and the agent are read from its bind mount <basedir>/<user id>/<agent id>; pause (close)
// removes the container and keeps the folder, which is then listed under the same sandbox id as
// Stopped (Paused, raw state "Stopped", Capability::StopInsteadOfPause) until resume makes the
// container again; kill removes both.
class DockerBackend final : public Backend
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DockerBackend)

public:
    static constexpr QLatin1String Workdir{"/workspace"};
    // AgentScope's gateway home, baked into its images (`_docker/_make_dockerfile.py`).
    static constexpr QLatin1String AgentScopeGatewayHome{"/root/.agentscope"};

    // A bad DOCKER_HOST is reported by every call (and by ping()).
    explicit DockerBackend(DockerOptions options, QObject *parent = nullptr);
    // Ends the requests in flight (as Cancelled) and waits for the work on other threads (a
    // sessions folder being read, a host folder being deleted): every task this backend handed
    // out has completed when it returns.
    ~DockerBackend() override;

    static QString defaultBasedir();
    const DockerOptions &options() const { return m_options; }
    QString basedir() const { return m_basedir; }
    // The engine answers (a clear message when there is none, or the socket may not be opened).
    QCoro::Task<Result<>> ping();
    // The host folder of a workspace in Paddock's layout, which kill() keeps.
    Result<QString> hostFolder(const QString &workspaceId) const;
    // The host folder of a user's agent in AgentScope's layout, <basedir>/<user id>/<agent id>;
    // InvalidArgument for ids that cannot name its folders (as AgentScope's own refusals, or a
    // `:`, which Docker's bind syntax cannot carry).
    Result<QString> agentscopeFolder(const QString &userId, const QString &agentId) const;
    using Backend::hostFolder;
    // Removes a workspace's host folder (after kill(), when the user asks for it).
    Result<> deleteFolder(const QString &workspaceId) const;
    // The removal itself, for any thread (a big folder takes a while): what stays is named.
    static Result<> removeFolder(const QString &folder);

    QString name() const override;
    QString instanceKey() const override;
    WorkspaceLayout layout(const SandboxInfo &sandbox) const override;
    QCoro::Task<Result<QList<SandboxInfo>>> list(ListFilter filter) override;
    QCoro::Task<Result<SandboxInfo>> get(QString sandboxId) override;
    // One inspection (GET /containers/{id}/json): the state's exit code, OOM kill and the
    // engine's error, the limits set in HostConfig, the container's id, name, times, bind mount,
    // network and addresses. Never Config.Env. A closed workspace of AgentScope's layout (no
    // container) is its folder.
    QCoro::Task<Result<SandboxDetails>> details(QString sandboxId) override;
    QCoro::Task<Result<SandboxInfo>> create(CreateSpec spec) override;
    QCoro::Task<Result<SandboxInfo>> connect(QString sandboxId) override;
    QCoro::Task<Result<SandboxInfo>> resume(QString sandboxId) override;
    QCoro::Task<Result<>> pause(QString sandboxId) override;
    // Removes the container; its host folder stays unless options.deleteFiles.
    QCoro::Task<Result<>> kill(QString sandboxId, KillOptions options) override;
    Capabilities capabilities() const override;
    QString hostFolder(const SandboxInfo &sandbox) const override;
    QString killWarning(const SandboxInfo &sandbox) const override;
    QCoro::Task<Result<SandboxInfo>> renew(QString sandboxId, std::chrono::seconds duration) override;
    QCoro::Task<Result<bool>> isReady(QString sandboxId) override;
    // request.cancel kills the command's process group by a second exec (execgroup.h): the
    // engine cannot end an exec.
    QCoro::Task<Result<ExecResult>> exec(QString sandboxId, ExecRequest request) override;
    // `docker -H <the engine> exec -it -w /workspace <container> sh -c '<bash, else sh>'`.
    std::optional<TerminalCommand> terminalCommand(const SandboxInfo &sandbox) const override;
    // `docker logs --timestamps --tail N`: the console's container log tails it.
    QCoro::Task<Result<QByteArray>> containerLogs(QString sandboxId, int tail) override;
    // The engine's stats of each container (GET /containers/<id>/stats?stream=false, eight at
    // once): CPU and memory as `docker stats` shows them, the memory limit where it has one. A
    // container that is gone or has no figures (stopped) is left out.
    QCoro::Task<Result<QList<SandboxMetrics>>> metrics(QStringList sandboxIds) override;
    // Read from the host folder: no round trip to the engine.
    QCoro::Task<Result<std::optional<QDateTime>>> sessionsActivity(QString sandboxId) override;
    // Through the host folder, on worker threads: the layout keeps the gateway home inside
    // /workspace, so every path a workspace path may name is in the bind mount.
    QCoro::Task<Result<QList<FileEntry>>> listFolder(QString sandboxId, QString path) override;
    QCoro::Task<Result<FileEntry>> stat(QString sandboxId, QString path) override;
    QCoro::Task<Result<FileChunk>> readFile(QString sandboxId, QString path, qint64 offset, qint64 length) override;
    QCoro::Task<Result<>> download(QString sandboxId, QString path, QString localPath) override;
    QCoro::Task<Result<>> upload(QString sandboxId, QString localPath, QString path) override;

private:
    Result<> usable() const;
    bool agentscope() const { return m_options.layout == Profile::Layout::AgentScope; }
    // A container as this layout reports it (AgentScope's: named, its user and agent from its mount).
    SandboxInfo sandboxOf(const ContainerInfo &container) const;
    // AgentScope's layout: its containers, and the folders of closed workspaces (no container).
    QCoro::Task<Result<QList<SandboxInfo>>> listAgentScope(ListFilter filter);
    // AgentScope's layout: makes and starts as_ws_<id> over the folder of (user, agent), replacing
    // a container of that name that is not running, as AgentScope's create_or_replace does.
    QCoro::Task<Result<SandboxInfo>> startAgentScope(QString workspaceId, QString userId, QString agentId);
    // AgentScope's layout: what AgentScope's close does (the files given back to this user, then
    // the container killed and removed). A container that is gone already is fine.
    QCoro::Task<Result<>> removeAgentScope(SandboxInfo sandbox);
    // The host folder of a workspace: by its workspace id in Paddock's layout, by its user and
    // agent in AgentScope's.
    Result<QString> folderOf(const SandboxInfo &sandbox) const;
    // The second exec that ends a command's process group; then `stopReading` ends its stream.
    QCoro::Task<Result<>> killGroup(QString sandboxId, qint64 pid, std::shared_ptr<CancelToken> stopReading);
    // The files of a container's workspace, as its host folder holds them.
    QCoro::Task<Result<HostFolderFiles>> filesOf(QString sandboxId);
    // A file call on a path of the workspace: in the host folder on a worker thread (`onHost`), or,
    // for a path outside the bind mount (AgentScope's gateway home in its image), through
    // commands in the running container (`inContainer`, with the core's ExecFiles).
    template<typename T>
    QCoro::Task<Result<T>> onPath(QString sandboxId, QString path,
                                  std::function<Result<T>(const HostFolderFiles &)> onHost,
                                  std::function<QCoro::Task<Result<T>>(ExecFiles &)> inContainer);
    // ExecFiles' way into a container: the script through an exec, its stdin (an upload) put in
    // the container's /tmp through the archive route first and read from there.
    QCoro::Task<Result<ExecResult>> runFileScript(QString sandboxId, ScriptCommand command);
    template<typename T>
    QCoro::Task<Result<T>> onFiles(QString sandboxId, std::function<Result<T>(const HostFolderFiles &)> work);

    DockerOptions m_options;
    QString m_basedir;
    Result<EngineAddress> m_address;
    std::unique_ptr<CurlHttpClient> m_http;
    std::unique_ptr<DockerClient> m_client;
    WaitSet m_waits; // work on other threads; closed by the destructor
};

} // namespace Paddock::Docker
