#pragma once

// The objects AgentScope's K8sWorkspaceManager keeps for a workspace (a PVC and a Pod of the same
// name, kubernetes-protocol.md §1.2 and §1.3), built and read exactly as it does, and what their
// state means for a workspace (§3).

#include "../../result.h"
#include "../../sandbox.h"
#include "podexec.h" // PodWorkdir

#include <QByteArray>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>

#include <optional>
#include <utility>

namespace Paddock::Kubernetes {

inline constexpr QLatin1String NamePrefix{"as-ws-"};
inline constexpr QLatin1String ManagedByKey{"app.kubernetes.io/managed-by"};
inline constexpr QLatin1String ManagedByValue{"agentscope"};
inline constexpr QLatin1String WorkspaceLabelKey{"agentscope.workspace"}; // "true", on the Pod only
inline constexpr QLatin1String ContainerName{"workspace"};
inline constexpr QLatin1String VolumeName{"workspace-data"};
inline constexpr QLatin1String PodGatewayHome{"/root/.agentscope"};
// Where Paddock keeps the gateway home on the PVC (mounted over PodGatewayHome, see podManifest).
inline constexpr QLatin1String GatewayHomeSubPath{".agentscope"};
inline constexpr QLatin1String DefaultNamespace{"agentscope"};
inline constexpr QLatin1String DefaultImage{"python:3.11-slim"};
inline constexpr QLatin1String DefaultStorageSize{"1Gi"};
inline constexpr int DefaultGatewayPort = 5600;

// AgentScope's name of a workspace's Pod and PVC (§1.2): "as-ws-" + the id lower-cased with
// Python's full Unicode mapping, each code point outside [a-z0-9-] replaced by one "-", cut to 63
// characters, trailing "-" stripped. Different ids can share a name ("A-B", "a_b"); the
// `agentscope.workspace.id` label tells them apart.
QString safeName(const QString &workspaceId);

// apimachinery's IsValidLabelValue: at most 63 characters of
// (([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?
bool isValidLabelValue(QStringView value);
// A workspace id Paddock can keep on Kubernetes, where AgentScope puts the raw id in a label:
// InvalidArgument, saying why and what would do, for one that is not a valid label value
// (AgentScope's own create would fail with 422 after making the PVC's name: §1.7, defect 1).
Result<> checkWorkspaceId(const QString &workspaceId);

// What a profile configures for new workspaces (AgentScope's K8sWorkspaceManager parameters).
struct PodSettings
{
    QString image = DefaultImage;
    QString imagePullPolicy = QStringLiteral("IfNotPresent");
    QStringList imagePullSecrets;
    QJsonObject resources; // a ResourceRequirements object; empty: none
    QMap<QString, QString> nodeSelector;
    QJsonArray tolerations;
    QString serviceAccount;
    int gatewayPort = DefaultGatewayPort;
    QString storageClass; // empty: the cluster's default class
    QString storageSize = DefaultStorageSize;
    QList<std::pair<QString, QString>> env;
    // Mount the PVC's .agentscope folder over the gateway home too, so that the gateway, its
    // venv and the bootstrap marker survive the Pod (§1.7, defect 2). AgentScope finds its
    // gateway script there and skips its bootstrap as well.
    bool gatewayHomeOnVolume = true;
};

// Who a workspace belongs to: kept as annotations (AgentScope records no owner on the cluster and
// finds its objects by name only, so annotations do not disturb it).
struct Owner
{
    QString userId;
    QString agentId;
    // A profile's extra metadata, kept as annotations too.
    QMap<QString, QString> metadata;
};
// The annotations of an object that are the workspace's own (Owner::metadata and the ids), not
// the cluster's (keys under kubernetes.io/ or k8s.io/).
QMap<QString, QString> workspaceAnnotations(const QMap<QString, QString> &annotations);

// The manifests of §1.3, with Owner's annotations added when known.
QJsonObject pvcManifest(const QString &workspaceId, const QString &ns, const PodSettings &settings, const Owner &owner);
QJsonObject podManifest(const QString &workspaceId, const QString &ns, const PodSettings &settings, const Owner &owner);

// The parts of a Pod a client reads.
struct PodView
{
    QString name;
    QString ns;
    QString uid;
    QString resourceVersion;
    QMap<QString, QString> labels;
    QMap<QString, QString> annotations;
    QString phase;
    QDateTime createdAt;
    std::optional<QDateTime> deletionTimestamp;
    int deletionGracePeriodSeconds = 0;
    int terminationGracePeriodSeconds = 30;
    QString image;
    QString waitingReason; // of the workspace container (or the first), while it waits
    QString waitingMessage;
    QString unschedulableMessage; // PodScheduled False / Unschedulable
    bool hasUnschedulable = false;
    QDateTime unschedulableSince;
    QString terminatedReason;
    int restartCount = 0;
    bool mountsGatewayHome = false; // made by Paddock with gatewayHomeOnVolume

    bool terminating() const { return deletionTimestamp.has_value(); }
    QString workspaceId() const;
};

struct PvcView
{
    QString name;
    QString uid;
    QString resourceVersion;
    QMap<QString, QString> labels;
    QMap<QString, QString> annotations;
    QString phase; // Pending, Bound, Lost
    QDateTime createdAt;
    std::optional<QDateTime> deletionTimestamp;
    QString storageClass;
    QString capacity;

    bool terminating() const { return deletionTimestamp.has_value(); }
    QString workspaceId() const;
};

// One object of a list or a watch event, or a single GET's body (RapidJSON: a listing parses
// 10,000 of them).
Result<PodView> parsePod(const QByteArray &json);
Result<PvcView> parsePvc(const QByteArray &json);

template<typename T> struct ListPage
{
    QList<T> items;
    QString resourceVersion;
    QString continueToken;
};
// A page is parsed in place: given a body no one else shares (moved in), it is not copied first.
Result<ListPage<PodView>> parsePodList(QByteArray json);
Result<ListPage<PvcView>> parsePvcList(QByteArray json);

// One line of a watch stream.
struct WatchEvent
{
    enum class Type { Added, Modified, Deleted, Bookmark, Error, Unknown };
    Type type = Type::Unknown;
    QString resourceVersion; // of the object (a bookmark's too)
    std::optional<PodView> pod;
    std::optional<PvcView> pvc;
    int errorCode = 0; // ERROR: the Status code (410: too old, list again)
    QString errorReason;
    QString errorMessage;
};
enum class ObjectKind { Pod, Pvc };
Result<WatchEvent> parseWatchEvent(QByteArrayView line, ObjectKind kind);

// A Pending Pod that will not start by itself (§1.4 step 4): a container waiting on
// ImagePullBackOff, ErrImagePull, InvalidImageName or CrashLoopBackOff; the kubelet's message, or
// the reason when it gave none. nullopt: none of those.
std::optional<QString> stuckMessage(const PodView &pod);

// How a workspace looks from its Pod and PVC (§3, with the words: a workspace whose Pod
// was deleted and whose PVC is kept is Paused, which the console calls Stopped on this backend).
// nullopt: gone (neither, or only a PVC being deleted). `unschedulableGrace`: how long an
// Unschedulable Pending Pod is still only starting (§1.7, defect 3).
std::optional<SandboxInfo> workspaceState(const std::optional<PodView> &pod, const std::optional<PvcView> &pvc,
                                          const QString &ns, std::chrono::seconds unschedulableGrace,
                                          const QDateTime &now);

} // namespace Paddock::Kubernetes
