#pragma once

#include "metrics.h"
#include "result.h"
#include "sandbox.h"
#include "workspacefiles.h"

#include <QCoroFwd>

#include <QByteArrayView>

#include <QFlags>

#include <QList>
#include <QObject>
#include <QStringList>
#include <functional>
#include <memory>
#include <optional>

namespace Paddock {

class CancelToken;

// What a backend can do beyond the calls every backend answers. The console and paddockctl ask
// this, never a backend's name or type.
enum class Capability {
    ContainerLog = 0x01, // containerLogs() answers: the server keeps the container's own log
    DeleteFilesOnKill = 0x02, // kill keeps the workspace's files unless KillOptions::deleteFiles
    StopInsteadOfPause = 0x04, // pause stops the sandbox (its processes end) instead of freezing it
    Renew = 0x08, // sandboxes expire, and renew() moves their expiry
    Files = 0x10, // the workspace's files can be reached from this computer or through the server
    Exec = 0x20, // exec() runs commands in the workspace
    Watch = 0x40, // with setWatching(true), sandboxChanged and sandboxRemoved report changes as they happen
    ContainerLogStream = 0x80, // followContainerLog() streams the container log as it is written
    // A workspace belongs to an agent whoever the user (AgentScope's LocalWorkspaceManager keeps
    // it at <basedir>/<agent_id>): no user is recorded or listed, and the manager assigns ids with
    // an empty user, as AgentScope's does.
    UserNotRecorded = 0x100,
    // metrics() answers: what the workspaces use now (CPU, memory), as far as the backend reports it.
    Metrics = 0x200,
};
Q_DECLARE_FLAGS(Capabilities, Capability)
Q_DECLARE_OPERATORS_FOR_FLAGS(Capabilities)

// A command that gives the user an interactive shell in a workspace from a terminal on this
// computer: `docker exec -it`, `kubectl exec -it`, a shell in the local folder.
struct TerminalCommand
{
    QString program;
    QStringList arguments;
    QString workingDirectory; // empty: anywhere
};

struct KillOptions
{
    // Capability::DeleteFilesOnKill: also delete the files kill would keep (Docker's host folder).
    bool deleteFiles = false;
};

// One interface for every place a workspace can live: a local folder, an OpenSandbox
// sandbox, a Docker container. Every call is asynchronous and returns errors as values.
// A backend is used from the thread that owns it.
class Backend : public QObject
{
    Q_OBJECT

public:
    using QObject::QObject;
    ~Backend() override = default;

    // Short name shown to users and written to `paddockctl list --json`: "local", ...
    virtual QString name() const = 0;
    // A stable key that tells this backend instance apart from others of its kind (a basedir,
    // a server); bootstrap logs are kept under it.
    virtual QString instanceKey() const = 0;

    virtual WorkspaceLayout layout(const SandboxInfo &sandbox) const = 0;
    // What this backend (as configured) can do. The default: nothing beyond the common calls.
    virtual Capabilities capabilities() const { return {}; }
    // The folder on this computer that holds a workspace's files, if there is one (the local
    // folder, Docker's bind-mounted host folder); empty: they live only in the sandbox.
    virtual QString hostFolder(const SandboxInfo &sandbox) const;
    // Whether new workspaces can be made with this configuration, without a round trip (a local
    // base folder that cannot be written): InvalidArgument errors, so callers report a usage
    // error. The default: nothing to check.
    virtual Result<> checkConfiguration() const { return {}; }

    virtual QCoro::Task<Result<QList<SandboxInfo>>> list(ListFilter filter) = 0;
    virtual QCoro::Task<Result<SandboxInfo>> get(QString sandboxId) = 0;
    // The sandbox with what the server says of it beyond get(): why it is in its state, its
    // resources, its endpoints. The default: get() and nothing more.
    virtual QCoro::Task<Result<SandboxDetails>> details(QString sandboxId);
    virtual QCoro::Task<Result<SandboxInfo>> create(CreateSpec spec) = 0;
    // Attach to a running sandbox.
    virtual QCoro::Task<Result<SandboxInfo>> connect(QString sandboxId) = 0;
    virtual QCoro::Task<Result<SandboxInfo>> resume(QString sandboxId) = 0;
    virtual QCoro::Task<Result<>> pause(QString sandboxId) = 0;
    // A pause in two steps, for bulk jobs (ProfileSession::run): the request alone, then one wait
    // shared by every request of the job, so that a server that pauses asynchronously is polled
    // once for all of them (a listing) instead of once per sandbox. requestPause() is true when
    // the sandbox is paused already (the request was the whole pause), false when the server
    // accepted it and settlePauses() must see it through. The defaults: the request is pause(),
    // and nothing is left to wait for.
    virtual QCoro::Task<Result<bool>> requestPause(QString sandboxId);
    // Waits until each of `sandboxIds` is paused, as pause() would: `settled(index, result)` as
    // each one is (in whatever order they settle), and one result per id, in their order, at the end.
    using PauseSettled = std::function<void(qsizetype, const Result<> &)>;
    virtual QCoro::Task<QList<Result<>>> settlePauses(QStringList sandboxIds, PauseSettled settled = {});
    // The end of a settling: each result, and for each left unsettled (the backend closing) a
    // closed error, reported through `settled` too.
    static QList<Result<>> settledResults(const QList<std::optional<Result<>>> &results, const PauseSettled &settled);
    // Whether a request's answer leaves open whether it ran: no answer (the connection dropped or
    // timed out), or 429, 502, 503 or 504 from the server or a gateway in front of it. A create
    // with such an answer may have made the sandbox.
    static bool outcomeUnknown(const Error &error);
    static constexpr int CreateAttempts = 5;
    // Removes the sandbox. What happens to its files is the backend's documented choice; with
    // Capability::DeleteFilesOnKill, options.deleteFiles deletes what it would keep.
    virtual QCoro::Task<Result<>> kill(QString sandboxId, KillOptions options) = 0;
    virtual QCoro::Task<Result<SandboxInfo>> renew(QString sandboxId, std::chrono::seconds duration) = 0;
    virtual QCoro::Task<Result<bool>> isReady(QString sandboxId) = 0;
    // A non-zero exit is a normal result; only a transport failure is an error.
    virtual QCoro::Task<Result<ExecResult>> exec(QString sandboxId, ExecRequest request) = 0;
    // When the workspace's sessions/ folder last changed (the folder and what is in it, two
    // levels deep): the agents' own activity, which the sandbox's metadata does not show. nullopt
    // when the backend cannot tell (the default), or the folder does not exist. Reading it may
    // cost a round trip; callers cache it.
    virtual QCoro::Task<Result<std::optional<QDateTime>>> sessionsActivity(QString sandboxId);
    // The last `tail` lines of the sandbox's container log as the server keeps it (docker logs
    // with timestamps: each line starts with an RFC 3339 time and a space), raw bytes; the last
    // line may still be incomplete. There is no streaming: callers poll (ContainerLogTail). The
    // default: an Error::Kind::Unsupported error, for backends that keep no container log.
    virtual QCoro::Task<Result<QByteArray>> containerLogs(QString sandboxId, int tail);
    // Capability::ContainerLogStream: the container log from `tail` lines back and then as it is
    // written (the same bytes as containerLogs), until the container stops, the connection
    // drops or `cancel`. The default: Unsupported.
    virtual QCoro::Task<Result<>> followContainerLog(QString sandboxId, int tail,
                                                     std::function<void(QByteArrayView)> onData,
                                                     std::shared_ptr<CancelToken> cancel);
    // Capability::Metrics: what each of `sandboxIds` uses now, one entry per sandbox the backend
    // has figures for (a sandbox it has none for, paused or gone, is left out; a figure it does
    // not report is nullopt). A server that does not have the route (404, 405, 501 for it) is an
    // Error::Kind::Unsupported error, "not reported by this server": callers stop asking. The
    // default: Unsupported.
    virtual QCoro::Task<Result<QList<SandboxMetrics>>> metrics(QStringList sandboxIds);
    // The error metrics() gives where the server (or the backend) reports no figures.
    static Error metricsNotReported(int httpStatus = 0);
    // Whether an HTTP status says the server has no such route (404, 405, 501).
    static bool lacksRoute(int httpStatus);
    // Capability::Files: the workspace's files. A path is a workspace path (confineWorkspacePath:
    // relative to the workdir, or absolute inside the workdir or the gateway home); one that
    // leads out, by `..` or through a symlink, is refused (InvalidArgument) and nothing is read
    // or written. A missing path is NotFound. The defaults: Unsupported.
    //
    // The entries of a folder (symlinks as themselves), in name order.
    virtual QCoro::Task<Result<QList<FileEntry>>> listFolder(QString sandboxId, QString path);
    // One entry (a symlink as itself: Kind::Symlink and its target).
    virtual QCoro::Task<Result<FileEntry>> stat(QString sandboxId, QString path);
    // At most `length` bytes (and never more than MaxFileChunk) from `offset`, and the file's size.
    virtual QCoro::Task<Result<FileChunk>> readFile(QString sandboxId, QString path, qint64 offset, qint64 length);
    // The file, streamed to `localPath` on this computer (never whole in memory) under a
    // temporary name that is renamed at the end: a failure leaves nothing at `localPath`.
    virtual QCoro::Task<Result<>> download(QString sandboxId, QString path, QString localPath);
    // A file of this computer into the workspace (its folder must exist), replacing a file there.
    virtual QCoro::Task<Result<>> upload(QString sandboxId, QString localPath, QString path);
    // The command that opens an interactive shell in this workspace from a terminal here (for the
    // console's Open Terminal); nullopt where there is none (the default: a server's sandbox that
    // no command-line tool on this computer reaches).
    virtual std::optional<TerminalCommand> terminalCommand(const SandboxInfo &sandbox) const;
    // What killing this sandbox deletes, for the confirmation, when that is more than its name
    // says (Kubernetes: the Pod and the PVC with the workspace's files). Empty: nothing to add.
    virtual QString killWarning(const SandboxInfo &sandbox) const;
    // Capability::Watch: start or stop reporting changes through sandboxChanged and
    // sandboxRemoved (a console that shows the list turns it on).
    virtual void setWatching(bool watching);
    // While watching: its reports arrive (the watch is up), as opposed to a watch that fails
    // (refused, say) and is being tried again, when what it reports cannot be relied on. The
    // default: never.
    virtual bool isWatchLive() const { return false; }
    // Ends the reads under way that a server may hold unanswered (the listings of OpenSandbox,
    // Kubernetes and E2B; OpenSandbox's execd of a paused sandbox), each with a Cancelled error,
    // and leaves actions alone. ProfileSession::shutdown() calls it once its manager has stopped,
    // so that a quit waits for actions, not for reads' timeouts. The default: nothing (where
    // every read ends on its own soon: local folders, the local Docker daemon).
    virtual void cancelReads() { }

protected:
    // Creating exactly once, for backends whose create is not idempotent (a POST that makes a
    // new sandbox each time). `attempt` creates; when its answer leaves the outcome unknown
    // (outcomeUnknown), `lookup` asks the server for the workspace's sandbox by its metadata (a
    // sandbox in a state it can be in just after its create, newest first, held as create would
    // hold it; nullopt: none). One found is the create's; none, and the create is tried again
    // after a backoff, at most CreateAttempts times in all. No path makes two sandboxes for one
    // workspace as long as the server lists a sandbox once its create has been answered.
    using CreateAttempt = std::function<QCoro::Task<Result<SandboxInfo>>()>;
    using CreatedLookup = std::function<QCoro::Task<Result<std::optional<SandboxInfo>>>()>;
    QCoro::Task<Result<SandboxInfo>> createExactlyOnce(QString workspaceId, CreateAttempt attempt,
                                                       CreatedLookup lookup);

Q_SIGNALS:
    // The backend found that a sandbox it was holding for a workspace is gone (deleted behind
    // our back, or expired). Whoever caches that workspace must drop it: the manager does.
    void sandboxLost(const QString &sandboxId, const QString &workspaceId);
    // Capability::Watch, while watching: a sandbox appeared or changed (as list() would report
    // it now), or is gone.
    void sandboxChanged(const Paddock::SandboxInfo &sandbox);
    void sandboxRemoved(const QString &sandboxId);
};

// The newest change in a sessions/ folder on this machine (the folder and what is in it, two
// levels deep, at most 10,000 entries); nullopt when there is no such folder. Reads the disk:
// call it on a worker thread.
std::optional<QDateTime> newestSessionsChange(const QString &sessionsFolder);

} // namespace Paddock
