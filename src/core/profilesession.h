#pragma once

#include "backend.h"
#include "backendregistry.h"
#include "bulk.h"
#include "containerlogtail.h"
#include "profile.h"
#include "renewal.h"
#include "result.h"
#include "tasktracker.h"
#include "workspacemanager.h"

#include <QCoroFwd>

#include <QDateTime>
#include <QHash>
#include <QObject>
#include <QSet>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

namespace Paddock {

class BootstrapLogStore;
class Provisioner;

// What can be done to a workspace from the outside (the console's buttons, paddockctl's verbs).
enum class WorkspaceAction {
    Close, // release it: the manager's close when it holds it, else a pause
    Pause, // the same, named as the user chose it
    Resume,
    Renew,
    Kill,
};

struct RenewRequest
{
    RenewMode mode = RenewMode::Extend;
    std::chrono::seconds amount{3600};
    bool allowShorter = false; // a renewal that would expire sooner fails (Conflict) unless set
};

struct ActionOptions
{
    RenewRequest renew;
    KillOptions kill;
};

// One item of a bulk job: the workspace as it was given, and what became of it (no error: done).
struct ItemResult
{
    SandboxInfo sandbox;
    std::optional<Error> error;
    std::optional<SandboxInfo> after; // a resume's or a renewal's sandbox as the backend has it now

    bool ok() const { return !error.has_value(); }
};

// How a bulk job is followed: cancel stops it between items (those not started report
// Cancelled); started(index) as an item's action begins, finished(index, result) as it ends.
struct BulkProgress
{
    std::shared_ptr<CancelToken> cancel;
    int concurrency = 0; // items in flight at most; 0: ProfileSession::BulkConcurrency
    std::function<void(qsizetype)> started;
    std::function<void(qsizetype, const ItemResult &)> finished;
};

// Something that happened to a workspace of a profile, whoever did it (an action of this
// session, the manager's sweeper, the backend losing a sandbox): one stream for the window, the
// event history and notifications.
struct WorkspaceEvent
{
    enum class Kind {
        Opening, // provisioning started
        Opened,
        OpenFailed,
        Closed, // released (the manager paused it: a Close, or the sweeper for idleness)
        Paused,
        Resumed,
        Renewed,
        Killed,
        Lost, // the backend found its sandbox gone
        ActionFailed, // `action` did not happen: `error` says why (Cancelled: not attempted)
    };
    // Who made it happen, as far as Paddock can tell.
    enum class Actor {
        Console, // this session: an action, an open, the manager's stop at quit
        Sweeper, // the manager's sweeper, closing a workspace idle for longer than the TTL
        Elsewhere, // the backend: a sandbox gone behind Paddock's back
    };
    QDateTime time; // UTC
    QString profileId;
    QString workspaceId;
    QString sandboxId; // empty when not known (an open that failed before a sandbox was found)
    Kind kind = Kind::Opened;
    std::optional<WorkspaceAction> action; // the action that made it, when one did
    std::optional<Error> error;
    // Console for the session's actions, opens and the closes at its shutdown; Sweeper for the
    // sweeper's closes (Closed, or ActionFailed with action Close); Elsewhere for Lost.
    Actor actor = Actor::Console;
};

// The one way into a profile, as qBittorrent's BitTorrent::Session is into its torrents: it owns
// the profile's backend (made by the BackendRegistry), provisioner and workspace manager, and every
// action on the profile's workspaces goes through it: open, close, pause, resume, renew, kill, and
// bulk jobs of them through the core's one bulk runner (runBounded). The reads the console makes
// (list, get, sessions activity, container logs) go through it too.
//
// Lifetime: every coroutine of the session holds its TaskTracker; shutdown() stops the sweeper,
// closes (or leaves) what the manager holds, lets the reads under way go (Backend::cancelReads:
// a read a server holds ends as cancelled), waits for every task still in flight, and only then
// frees the manager, the provisioner and the backend. After shutdown() began, new calls fail at
// once with a Cancelled error (what was not done is reported as not done). Delete the session
// only after shutdown() completed (deleteLater from its continuation is fine).
class ProfileSession final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ProfileSession)

public:
    static constexpr int BulkConcurrency = 8;

    // key: the profile's API key when its backend uses one. logs must outlive the session.
    ProfileSession(Profile profile, QByteArray key, BootstrapLogStore *logs, BackendContext context = {},
                   QObject *parent = nullptr);
    // Over a backend made elsewhere (a test's scripted backend, an embedder's own), provisioned
    // with `provision`; the profile's bootstrap file, if it names one, still wins.
    ProfileSession(Profile profile, std::unique_ptr<Backend> backend, ProvisionOptions provision,
                   BootstrapLogStore *logs, QObject *parent = nullptr);
    ~ProfileSession() override;

    const Profile &profile() const { return m_profile; }
    QString profileId() const { return m_profile.id; }
    const QByteArray &key() const { return m_key; }
    const BackendFactory *factory() const { return m_factory; }
    // Why the profile cannot be used as it should (shown in place of its workspaces); empty: none.
    QString problem() const { return m_problem; }
    void setProblem(const QString &problem) { m_problem = problem; }
    // Whether open() may make workspaces (a bootstrap file that cannot be read forbids it).
    bool canOpen() const { return m_canOpen && !m_shuttingDown; }
    bool isShuttingDown() const { return m_shuttingDown; }
    bool isShutDown() const { return m_shutDown; }

    Capabilities capabilities() const;
    bool can(Capability capability) const { return capabilities().testFlag(capability); }
    QString instanceKey() const;
    WorkspaceLayout layout(const SandboxInfo &sandbox) const;
    QString hostFolder(const SandboxInfo &sandbox) const;
    // What killing this sandbox deletes, for a confirmation, when that is more than its name says
    // (Kubernetes: its Pod and its PVC, with the workspace's files); empty when nothing is to be
    // added, and after shutdown.
    QString killWarning(const SandboxInfo &sandbox) const;
    Result<> checkConfiguration() const;
    BootstrapLogStore *logs() const { return m_logs; }

    // The manager's view.
    IsolationPolicy isolation() const { return m_profile.isolation; }
    Result<QString> resolveWorkspaceId(const WorkspaceRequest &request) const;
    std::optional<std::chrono::milliseconds> idleRemaining(const QString &workspaceId) const;
    WorkspacePtr cached(const QString &workspaceId) const;
    bool isProvisioning(const QString &workspaceId) const;
    // How many workspaces this session holds open or is opening.
    int openCount() const;
    // Whether an action of this session on this sandbox is under way (started, its event not yet
    // emitted; a pause the server accepted counts until it settled): a change seen in a listing
    // meanwhile is this session's doing.
    bool isActingOn(const QString &sandboxId) const { return m_acting.contains(sandboxId); }

    // Reads.
    QCoro::Task<Result<QList<SandboxInfo>>> list(ListFilter filter = {});
    QCoro::Task<Result<SandboxInfo>> get(QString sandboxId);
    // The sandbox with what the server says of it beyond get() (Backend::details).
    QCoro::Task<Result<SandboxDetails>> details(QString sandboxId);
    // The newest sandbox of a workspace id (NotFound when there is none).
    QCoro::Task<Result<SandboxInfo>> find(QString workspaceId);
    QCoro::Task<Result<std::optional<QDateTime>>> sessionsActivity(QString sandboxId);
    QCoro::Task<Result<QByteArray>> containerLogs(QString sandboxId, int tail);
    // What the sandboxes use now (Backend::metrics, Capability::Metrics); Unsupported without it.
    QCoro::Task<Result<QList<SandboxMetrics>>> metrics(QStringList sandboxIds);
    // A workspace's files (Backend::listFolder and the rest). upload() is refused on a read-only
    // profile (InvalidArgument), before anything is read or written.
    QCoro::Task<Result<QList<FileEntry>>> listFolder(QString sandboxId, QString path);
    QCoro::Task<Result<FileEntry>> stat(QString sandboxId, QString path);
    QCoro::Task<Result<FileChunk>> readFile(QString sandboxId, QString path, qint64 offset, qint64 length);
    QCoro::Task<Result<>> download(QString sandboxId, QString path, QString localPath);
    QCoro::Task<Result<>> upload(QString sandboxId, QString localPath, QString path);
    // One of Paddock's own read-only commands (the inspector's gateway probe), never a user's:
    // allowed on a read-only profile. Unsupported without Capability::Exec.
    QCoro::Task<Result<ExecResult>> inspectExec(QString sandboxId, ExecRequest request);
    // Runs a command in a workspace (Capability::Exec): the console's Run Command, paddockctl
    // exec. Refused before anything runs on a read-only profile (InvalidArgument), where the
    // backend cannot run commands (Unsupported), and for a sandbox that is not running
    // (Conflict, saying it is paused or stopped: resuming it is the caller's visible choice,
    // never done here). request.cancel stops the command; shutdown() stops those still running.
    QCoro::Task<Result<ExecResult>> exec(QString sandboxId, ExecRequest request);
    // Whether exec() may be offered: the backend runs commands and the profile is not read-only.
    bool canExec() const;
    // The command that opens an interactive shell in a workspace from a terminal here
    // (Backend::terminalCommand); nullopt where there is none, on a read-only profile, and after
    // shutdown.
    std::optional<TerminalCommand> terminalCommand(const SandboxInfo &sandbox) const;
    // Where a ContainerLogTail reads through this session (while it exists and is not shut down).
    ContainerLogSource containerLogSource();

    // Capability::Watch: while watched, the backend reports changes as they happen and the
    // session passes them on (sandboxChanged, sandboxRemoved). Does nothing for a backend
    // without the capability, or once shutdown() began (which turns it off).
    void setWatched(bool watched);
    bool isWatched() const { return m_watched; }
    // Watched, and the backend's watch is up: changes arrive as they happen.
    bool isWatchLive() const;

    // Actions; each emits its event.
    QCoro::Task<Result<WorkspacePtr>> open(WorkspaceRequest request);
    QCoro::Task<Result<>> close(SandboxInfo sandbox);
    // A workspace the manager holds is closed through it (so its cache never holds a paused
    // sandbox); any other is paused in the backend.
    QCoro::Task<Result<>> pause(SandboxInfo sandbox);
    QCoro::Task<Result<SandboxInfo>> resume(SandboxInfo sandbox);
    // Planned from the expiry the server has now, not the one given: someone may have renewed it
    // since, and a renewal sets an absolute time.
    QCoro::Task<Result<SandboxInfo>> renew(SandboxInfo sandbox, RenewRequest request);
    // The manager's kill; a failed bootstrap recorded for the workspace goes with its sandbox.
    QCoro::Task<Result<>> kill(SandboxInfo sandbox, KillOptions options = {});
    QCoro::Task<Result<>> apply(WorkspaceAction action, SandboxInfo sandbox, ActionOptions options = {});

    // A bulk job: `action` on every item, at most progress.concurrency (else BulkConcurrency) at
    // once, one result per item in their order (one failure does not stop the rest). Items not
    // started when progress.cancel is set or the session shuts down report Cancelled. Pauses and
    // closes of what the manager does not hold go in two steps (Backend::requestPause): the
    // requests at that concurrency, then the accepted ones seen through together
    // (Backend::settlePauses), each reported as it settles.
    QCoro::Task<QList<ItemResult>> run(WorkspaceAction action, QList<SandboxInfo> items, ActionOptions options = {},
                                       BulkProgress progress = {});

    // Ends the session: the sweeper stops, the workspaces it holds are closed (or left running),
    // every task in flight ends, then the backend, provisioner and manager are freed.
    QCoro::Task<void> shutdown(WorkspaceManager::StopMode mode = WorkspaceManager::StopMode::Close);

Q_SIGNALS:
    void event(const Paddock::WorkspaceEvent &event);
    // While watched: a sandbox of the profile appeared or changed (as list() would report it
    // now), or is gone. A removed sandbox the manager held is also a Lost event (the manager's
    // own handling of a lost sandbox).
    void sandboxChanged(const QString &profileId, const Paddock::SandboxInfo &sandbox);
    void sandboxRemoved(const QString &profileId, const QString &sandboxId);

private:
    void setUp(ProvisionOptions provision);
    Error closedError() const;
    void emitEvent(WorkspaceEvent::Kind kind, const QString &workspaceId, const QString &sandboxId,
                   std::optional<WorkspaceAction> action = std::nullopt, std::optional<Error> error = std::nullopt,
                   WorkspaceEvent::Actor actor = WorkspaceEvent::Actor::Console);
    // Counts an action on a sandbox as under way until the returned guard goes (isActingOn).
    struct Acting
    {
        QHash<QString, int> *acting = nullptr;
        QString sandboxId;
        Acting() = default;
        Acting(QHash<QString, int> *on, QString id);
        Acting(Acting &&other) noexcept;
        Acting &operator=(Acting &&other) noexcept;
        Acting(const Acting &) = delete;
        Acting &operator=(const Acting &) = delete;
        ~Acting();
        void release();
    };
    Acting actingOn(const QString &sandboxId) { return Acting(&m_acting, sandboxId); }
    void report(WorkspaceAction action, const SandboxInfo &sandbox, const Result<> &result);
    QCoro::Task<Result<>> release(WorkspaceAction action, SandboxInfo sandbox);
    bool holds(const SandboxInfo &sandbox) const;
    void onSandboxRemoved(const QString &sandboxId);

    // The backend's exec under the session's own token (kept in m_execs, so shutdown() stops
    // the command), with the caller's request.cancel passed on to it.
    QCoro::Task<Result<ExecResult>> stoppableExec(QString sandboxId, ExecRequest request);

    Profile m_profile;
    QByteArray m_key;
    BootstrapLogStore *m_logs;
    const BackendFactory *m_factory = nullptr;
    std::unique_ptr<Backend> m_backend;
    std::unique_ptr<Provisioner> m_provisioner;
    std::unique_ptr<WorkspaceManager> m_manager;
    QString m_problem;
    bool m_canOpen = true;
    bool m_shuttingDown = false;
    bool m_shutDown = false;
    bool m_watched = false;
    QSet<QString> m_releasing; // workspace ids this session is closing through the manager
    QHash<QString, int> m_acting; // sandbox ids with an action under way, and how many
    QList<std::shared_ptr<CancelToken>> m_execs; // the commands running: shutdown() stops them
    TaskTracker m_tasks;
    std::shared_ptr<Broadcast<bool>> m_shutdownDone = std::make_shared<Broadcast<bool>>();
};

} // namespace Paddock

Q_DECLARE_METATYPE(Paddock::WorkspaceEvent)
