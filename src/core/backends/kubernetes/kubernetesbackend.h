#pragma once

#include "../../backend.h"
#include "../../bulk.h"
#include "../../tasktracker.h"
#include "kubeclient.h"
#include "kubeobjects.h"

#include <QCoroFwd>

#include <QDateTime>
#include <QHash>
#include <QSet>
#include <QTimer>

#include <chrono>
#include <memory>

namespace Paddock::Kubernetes {

class PodExecClient;

struct BackendOptions
{
    ClusterTarget cluster;
    // As the profile names them (empty: not named), for the kubectl of terminalCommand().
    QString kubeconfigFile;
    QString contextName;
    // The profile cannot be connected with (a kubeconfig that does not parse, an unknown context):
    // every call fails with this, and checkConfiguration() says it.
    std::optional<Error> configurationError;
    PodSettings pod;
    // Make the namespace when it is missing, as AgentScope does (GET, then POST on 404); a role
    // that may not read namespaces (403) goes on without.
    bool ensureNamespace = true;
    Http::RetryPolicy retry;
    // AgentScope's waits (§1.4), and the margins Paddock adds (§1.7).
    std::chrono::milliseconds pvcDeletingTimeout{60'000};
    // A terminating Pod is waited for at least this long, and at least its grace period plus
    // terminatingMargin (`sleep infinity` ignores SIGTERM, so the grace period is spent whole).
    std::chrono::milliseconds podTerminatingTimeout{30'000};
    std::chrono::milliseconds terminatingMargin{15'000};
    std::chrono::milliseconds runningTimeout{120'000};
    // How long Unschedulable is only the scheduler waiting (a PVC that is being bound).
    std::chrono::seconds unschedulableGrace{30};
    std::chrono::milliseconds pollFirst{500};
    double pollFactor = 1.5;
    std::chrono::milliseconds pollMax{3'000};
    // Pause and kill delete the Pod with this grace period: `sleep infinity` as PID 1 ignores
    // SIGTERM, so a longer one only makes the next open wait (§1.7, defect 4).
    int deleteGracePeriodSeconds = 1;
    // How long the server may keep one watch request open.
    std::chrono::seconds watchTimeout{300};
};

// Workspaces as a Pod plus a PVC of the same name, exactly as AgentScope's K8sWorkspaceManager
// keeps them (kubernetes-protocol.md): opening makes the namespace, the PVC and the Pod, waits
// for Running and fails early on the kubelet's and the scheduler's verdicts; close (pause)
// deletes the Pod and keeps the PVC; resume makes the Pod again on it; kill deletes both.
// Commands run through the exec websocket (PodExec). With watching on, changes come from a
// watch of Pods and PVCs (sandboxChanged, sandboxRemoved) instead of polling.
class KubernetesBackend final : public Backend
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(KubernetesBackend)

public:
    explicit KubernetesBackend(BackendOptions options, QObject *parent = nullptr);
    ~KubernetesBackend() override;

    const BackendOptions &options() const { return m_options; }
    KubeClient *client() const { return m_client.get(); }

    QString name() const override;
    QString instanceKey() const override;
    WorkspaceLayout layout(const SandboxInfo &sandbox) const override;
    Capabilities capabilities() const override;
    Result<> checkConfiguration() const override;

    QCoro::Task<Result<QList<SandboxInfo>>> list(ListFilter filter) override;
    QCoro::Task<Result<SandboxInfo>> get(QString sandboxId) override;
    // The Pod and the PVC, both asked at once (one round trip), read as get() reads them and for
    // the overview (poddetails.h): the kubelet's or the scheduler's reason, the workspace
    // container's requests and limits, node, Pod IP, QoS class, restarts, the PVC. Never env.
    QCoro::Task<Result<SandboxDetails>> details(QString sandboxId) override;
    QCoro::Task<Result<SandboxInfo>> create(CreateSpec spec) override;
    QCoro::Task<Result<SandboxInfo>> connect(QString sandboxId) override;
    QCoro::Task<Result<SandboxInfo>> resume(QString sandboxId) override;
    QCoro::Task<Result<>> pause(QString sandboxId) override;
    // The Pod's DELETE alone, then the Pods of a job seen gone together: one listing of the
    // workspace Pods polled for all of them (a GET each when four or fewer are left).
    QCoro::Task<Result<bool>> requestPause(QString sandboxId) override;
    QCoro::Task<QList<Result<>>> settlePauses(QStringList sandboxIds, PauseSettled settled = {}) override;
    QCoro::Task<Result<>> kill(QString sandboxId, KillOptions options) override;
    QCoro::Task<Result<SandboxInfo>> renew(QString sandboxId, std::chrono::seconds duration) override;
    QCoro::Task<Result<bool>> isReady(QString sandboxId) override;
    // A command with a cancel or a time limit announces its pid first (execgroup.h): closing
    // the exec connection does not end it in a real Pod, so a cancel, and a time limit that
    // passes, kill its process group by a second exec.
    QCoro::Task<Result<ExecResult>> exec(QString sandboxId, ExecRequest request) override;
    // `kubectl [--kubeconfig F] [--context C] -n NS exec -it <pod> -c workspace -- sh -c '…'`,
    // with only the options the profile sets (a token typed into the profile is never put on a
    // command line: kubectl then uses the kubeconfig's own credentials).
    std::optional<TerminalCommand> terminalCommand(const SandboxInfo &sandbox) const override;
    // Capability::Files through pod exec (ExecFiles, src/core/execfiles.h).
    QCoro::Task<Result<QList<FileEntry>>> listFolder(QString sandboxId, QString path) override;
    QCoro::Task<Result<FileEntry>> stat(QString sandboxId, QString path) override;
    QCoro::Task<Result<FileChunk>> readFile(QString sandboxId, QString path, qint64 offset, qint64 length) override;
    QCoro::Task<Result<>> download(QString sandboxId, QString path, QString localPath) override;
    QCoro::Task<Result<>> upload(QString sandboxId, QString localPath, QString path) override;
    QCoro::Task<Result<std::optional<QDateTime>>> sessionsActivity(QString sandboxId) override;
    // The metrics API's PodMetrics of the workspaces' pods (one list by the managed-by label):
    // CPU and memory summed over each pod's containers, no limit. A pod the API has no figures for
    // (just started, paused) is left out; a cluster without the metrics API (404): Unsupported.
    QCoro::Task<Result<QList<SandboxMetrics>>> metrics(QStringList sandboxIds) override;
    QCoro::Task<Result<QByteArray>> containerLogs(QString sandboxId, int tail) override;
    QCoro::Task<Result<>> followContainerLog(QString sandboxId, int tail, std::function<void(QByteArrayView)> onData,
                                             std::shared_ptr<CancelToken> cancel) override;
    QString killWarning(const SandboxInfo &sandbox) const override;

    void setWatching(bool watching) override;
    // The listings under way end (a closing profile waits for actions, not for a silent server).
    void cancelReads() override;
    bool isWatching() const { return m_watching; }
    bool isWatchLive() const override;

    // Runs argv in the workspace container (no cwd wrapper), stdin given whole.
    QCoro::Task<Result<ExecResult>> execRaw(QString podName, QStringList argv, QByteArray stdinData,
                                            std::chrono::milliseconds timeout,
                                            std::function<void(OutputChannel, const QByteArray &)> onLine);
    // One exec in the Pod, as given (its container, stdin, callbacks).
    QCoro::Task<Result<ExecResult>> runInPod(QString podName, PodExecCommand command);

private:
    // The second exec that ends a command's process group, then lets its connection go.
    QCoro::Task<Result<>> killGroup(QString podName, qint64 pid, std::shared_ptr<CancelToken> letGo);
    template<typename T, typename Work> QCoro::Task<Result<T>> onFiles(QString podName, Work work);
    QCoro::Task<Result<SandboxInfo>> openWorkspace(QString workspaceId, Owner owner);
    QCoro::Task<Result<>> ensureNamespace();
    QCoro::Task<Result<PvcView>> ensurePvc(QString workspaceId, Owner owner, bool *created);
    QCoro::Task<Result<PodView>> ensurePod(QString workspaceId, Owner owner);
    QCoro::Task<Result<PodView>> waitForRunning(QString name);
    QCoro::Task<Result<>> waitForPodGone(QString name, std::chrono::milliseconds limit);
    QCoro::Task<Result<>> waitForPvcGone(QString name, std::chrono::milliseconds limit);
    std::chrono::milliseconds terminatingLimit(const PodView &pod) const;
    QCoro::Task<bool> sleep(std::chrono::milliseconds delay);
    SandboxInfo stateOf(const std::optional<PodView> &pod, const std::optional<PvcView> &pvc) const;
    void noteRunning(const PodView &pod);
    void forget(const QString &name);

    QCoro::Task<> watchLoop(Resource resource, std::shared_ptr<CancelToken> cancel);
    void applyEvent(const WatchEvent &event);
    void applyListing(const QList<PodView> &pods, const QList<PvcView> &pvcs, bool podsKnown, bool pvcsKnown);
    void publish(const QString &name);

    BackendOptions m_options;
    std::unique_ptr<KubeClient> m_client;
    std::unique_ptr<PodExecClient> m_exec;
    TaskTracker m_tasks;
    bool m_namespaceReady = false;
    // Pods this backend saw Running lately (isReady answers from it) and holds.
    QHash<QString, QDateTime> m_running;
    struct Seen
    {
        PodView pod;
        QDateTime at;
    };
    QHash<QString, Seen> m_recent; // Pods list() read for a workspace id, for connect()
    QSet<QString> m_held;
    QSet<QString> m_pausing; // deleted by us: their DELETED event is not a loss
    QHash<QString, std::chrono::milliseconds> m_pauseLimits; // requested pauses: how long each Pod may take
    bool m_watching = false;
    // Per kind (Pods, PVCs): its listing worked and its last watch did not fail.
    bool m_podsWatchUp = false;
    bool m_pvcsWatchUp = false;
    std::shared_ptr<CancelToken> m_watchCancel;
    // What the watches know (name → object).
    QHash<QString, PodView> m_pods;
    QHash<QString, PvcView> m_pvcs;
    // Until both kinds were listed once, a workspace is known only in part (a PVC without its
    // Pod reads Stopped): what changed meanwhile is reported once both are known.
    bool m_podsListed = false;
    bool m_pvcsListed = false;
    QSet<QString> m_unreported;
    bool m_closing = false;
};

} // namespace Paddock::Kubernetes
