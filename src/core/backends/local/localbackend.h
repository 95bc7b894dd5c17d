#pragma once

#include "../../backend.h"
#include "../../profile.h"
#include "../../waitset.h"

#include <QString>

#include <memory>

namespace Paddock {

class LocalFileWork;
struct LocalPlace;
namespace Local {
struct MetricsHistory;
}

struct LocalOptions
{
    QString basedir; // empty: <XDG_DATA_HOME>/paddock/workspaces
    bool bubblewrap = false; // run commands inside bwrap with only the workspace writable
    // Paddock's layout, or AgentScope's LocalWorkspaceManager's (README.md).
    Profile::Layout layout = Profile::Layout::Paddock;
};

// The embedded default backend: a workspace is the folder <basedir>/<workspace id>.
// Its metadata lives inside it (.paddock/workspace.json), so a restarted process finds every
// workspace again by scanning basedir. Commands run as child processes in the folder.
// States: Running (open in a manager) and Paused (closed; files kept). Files are removed only
// by kill(), which deletes exactly workspacePath(id).
//
// In AgentScope's layout (LocalOptions::layout) a workspace is the folder <basedir>/<agent id>
// that AgentScope's LocalWorkspaceManager keeps, whoever the user: its sandbox id is the agent id,
// its workspace id the one AgentScope gives it, no user is recorded (Capability::UserNotRecorded),
// and Paddock's metadata is beside it, in <basedir>/.paddock/<agent id>. A folder that holds any
// of .mcp, skills/, sessions/, data/ is a workspace; until Paddock opens it, it is Idle (Paused,
// raw state "Idle").
//
// The file work runs on worker threads, never on the caller's (the console's GUI thread): a
// full list() and sessionsActivity() read there; create, connect, resume and pause write the
// metadata there, and kill deletes the folder there. The writes and the kill of one workspace
// run one after another in the order they were asked for (and a get, an isReady or a list of
// that one workspace asked meanwhile waits for them), so concurrent calls on one id end as they
// would one by one. That work takes copies and never touches this object; a backend destroyed
// while it runs waits for it, and its task reports what was really done.
class LocalBackend : public Backend
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LocalBackend)

public:
    explicit LocalBackend(LocalOptions options = {}, QObject *parent = nullptr);
    // Waits for the file work under way and stops the commands still running: every task this
    // backend handed out has completed when it returns (a stopped command with a Cancelled
    // error), and later calls fail at once the same way.
    ~LocalBackend() override;

    static QString defaultBasedir();

    QString basedir() const { return m_basedir; }
    bool usesBubblewrap() const { return m_options.bubblewrap; }
    // The folder of a workspace (by its sandbox id: the workspace id, or the agent id in
    // AgentScope's layout), or an error if the id is invalid or would escape basedir.
    Result<QString> workspacePath(const QString &sandboxId) const;
    // Whether new workspaces can be created under basedir (it exists or can be made, and is writable).
    Result<> checkWritable() const;

    QString name() const override;
    QString instanceKey() const override;
    WorkspaceLayout layout(const SandboxInfo &sandbox) const override;

    QCoro::Task<Result<QList<SandboxInfo>>> list(ListFilter filter) override;
    QCoro::Task<Result<SandboxInfo>> get(QString sandboxId) override;
    // get(), and as facts the folder, Paddock's metadata file, the layout and whether commands run
    // under bubblewrap. No server: no reason, resources or endpoints.
    QCoro::Task<Result<SandboxDetails>> details(QString sandboxId) override;
    QCoro::Task<Result<SandboxInfo>> create(CreateSpec spec) override;
    QCoro::Task<Result<SandboxInfo>> connect(QString sandboxId) override;
    QCoro::Task<Result<SandboxInfo>> resume(QString sandboxId) override;
    QCoro::Task<Result<>> pause(QString sandboxId) override;
    // Deletes the workspace's folder: a local workspace is nothing but its files.
    QCoro::Task<Result<>> kill(QString sandboxId, KillOptions options) override;
    Capabilities capabilities() const override;
    QString hostFolder(const SandboxInfo &sandbox) const override;
    QString killWarning(const SandboxInfo &sandbox) const override;
    Result<> checkConfiguration() const override;
    QCoro::Task<Result<SandboxInfo>> renew(QString sandboxId, std::chrono::seconds duration) override;
    QCoro::Task<Result<bool>> isReady(QString sandboxId) override;
    // request.cancel ends the command's whole process group (as a timeout does): Cancelled.
    QCoro::Task<Result<ExecResult>> exec(QString sandboxId, ExecRequest request) override;
    // The user's shell ($SHELL, else /bin/sh) in the workspace folder; under bubblewrap when
    // commands run under it, with the same confinement.
    std::optional<TerminalCommand> terminalCommand(const SandboxInfo &sandbox) const override;
    // Read on a worker thread: a large sessions/ folder never stalls the caller's thread.
    QCoro::Task<Result<std::optional<QDateTime>>> sessionsActivity(QString sandboxId) override;
    // The processes working in each workspace's folder (procmetrics.h: by their working
    // directory), from /proc on a worker thread: CPU over the time since the last call (within a
    // minute; else over a quarter of a second measured now), memory as their resident sets. No
    // limit. A workspace with no process uses nothing (0, measured); one whose folder is gone is
    // left out.
    QCoro::Task<Result<QList<SandboxMetrics>>> metrics(QStringList sandboxIds) override;
    // On worker threads: reads beside the other work, an upload in order with it.
    QCoro::Task<Result<QList<FileEntry>>> listFolder(QString sandboxId, QString path) override;
    QCoro::Task<Result<FileEntry>> stat(QString sandboxId, QString path) override;
    QCoro::Task<Result<FileChunk>> readFile(QString sandboxId, QString path, qint64 offset, qint64 length) override;
    QCoro::Task<Result<>> download(QString sandboxId, QString path, QString localPath) override;
    QCoro::Task<Result<>> upload(QString sandboxId, QString localPath, QString path) override;

private:
    Result<SandboxInfo> readInfo(const QString &sandboxId) const;
    QStringList bubblewrapArguments(const QString &workdir, const QString &cwd) const;
    // A read of one workspace: here and now when no work on it is under way, else after it.
    QCoro::Task<Result<SandboxInfo>> readOrdered(QString workspaceId);

    LocalOptions m_options;
    QString m_basedir;
    std::unique_ptr<LocalPlace> m_place; // basedir and layout, as the work on other threads gets them
    std::shared_ptr<LocalFileWork> m_work;
    WaitSet m_waits; // closed by the destructor
    std::shared_ptr<Local::MetricsHistory> m_metricsHistory; // the last scan of each workspace
};

} // namespace Paddock
