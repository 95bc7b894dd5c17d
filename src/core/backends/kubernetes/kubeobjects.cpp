#include "kubeobjects.h"

#include "../../tr.h"

#include <QRegularExpression>
#include <QTimeZone>

#include <algorithm>

namespace Paddock::Kubernetes {

QString safeName(const QString &workspaceId)
{
    // Python's str.lower() maps in full (U+0130 becomes "i" + U+0307); so does QString::toLower().
    const QString lower = workspaceId.toLower();
    QString name = NamePrefix;
    name.reserve(NamePrefix.size() + lower.size());
    for (const char32_t c : lower.toUcs4()) {
        const bool safe = (c >= U'a' && c <= U'z') || (c >= U'0' && c <= U'9') || c == U'-';
        name.append(safe ? QChar(char16_t(c)) : QChar(u'-'));
    }
    name.truncate(63);
    while (name.endsWith(u'-'))
        name.chop(1);
    return name;
}

bool isValidLabelValue(QStringView value)
{
    if (value.isEmpty())
        return true;
    if (value.size() > 63)
        return false;
    const auto alnum = [](QChar c) {
        return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || (c >= u'0' && c <= u'9');
    };
    if (!alnum(value.front()) || !alnum(value.back()))
        return false;
    return std::all_of(value.begin(), value.end(),
                       [&alnum](QChar c) { return alnum(c) || c == u'-' || c == u'_' || c == u'.'; });
}

Result<> checkWorkspaceId(const QString &workspaceId)
{
    if (workspaceId.isEmpty())
        return fail(Error::invalidArgument(Tr::tr("a Kubernetes workspace needs an id")));
    if (isValidLabelValue(workspaceId))
        return {};
    return fail(Error::invalidArgument(
        Tr::tr("the workspace id \"%1\" cannot be kept on Kubernetes: AgentScope puts the id in the label %2, whose "
               "value must be at most 63 characters of letters, digits, '-', '_' and '.', beginning and ending with "
               "a letter or digit (AgentScope itself could not create this workspace either)")
            .arg(workspaceId, WorkspaceIdKey)));
}

namespace {

QJsonObject metadataFor(const QString &name, const QString &ns, const QJsonObject &labels, const Owner &owner)
{
    QJsonObject metadata{
        {QStringLiteral("name"), name}, {QStringLiteral("namespace"), ns}, {QStringLiteral("labels"), labels}};
    QJsonObject annotations;
    for (auto it = owner.metadata.cbegin(); it != owner.metadata.cend(); ++it)
        annotations.insert(it.key(), it.value());
    if (!owner.userId.isEmpty())
        annotations.insert(UserIdKey, owner.userId);
    if (!owner.agentId.isEmpty())
        annotations.insert(AgentIdKey, owner.agentId);
    if (!annotations.isEmpty())
        metadata.insert(QStringLiteral("annotations"), annotations);
    return metadata;
}

} // namespace

QJsonObject pvcManifest(const QString &workspaceId, const QString &ns, const PodSettings &settings, const Owner &owner)
{
    const QJsonObject labels{{ManagedByKey, ManagedByValue}, {WorkspaceIdKey, workspaceId}};
    QJsonObject spec{
        {QStringLiteral("accessModes"), QJsonArray{QStringLiteral("ReadWriteOnce")}},
        {QStringLiteral("resources"),
         QJsonObject{{QStringLiteral("requests"), QJsonObject{{QStringLiteral("storage"), settings.storageSize}}}}},
    };
    if (!settings.storageClass.isEmpty())
        spec.insert(QStringLiteral("storageClassName"), settings.storageClass);
    return QJsonObject{
        {QStringLiteral("apiVersion"), QStringLiteral("v1")},
        {QStringLiteral("kind"), QStringLiteral("PersistentVolumeClaim")},
        {QStringLiteral("metadata"), metadataFor(safeName(workspaceId), ns, labels, owner)},
        {QStringLiteral("spec"), spec},
    };
}

QJsonObject podManifest(const QString &workspaceId, const QString &ns, const PodSettings &settings, const Owner &owner)
{
    const QString name = safeName(workspaceId);
    const QJsonObject labels{
        {ManagedByKey, ManagedByValue},
        {WorkspaceLabelKey, QStringLiteral("true")},
        {WorkspaceIdKey, workspaceId},
    };
    QJsonArray mounts{QJsonObject{{QStringLiteral("name"), VolumeName}, {QStringLiteral("mountPath"), PodWorkdir}}};
    if (settings.gatewayHomeOnVolume) {
        mounts.append(QJsonObject{{QStringLiteral("name"), VolumeName},
                                  {QStringLiteral("mountPath"), PodGatewayHome},
                                  {QStringLiteral("subPath"), GatewayHomeSubPath}});
    }
    QJsonObject container{
        {QStringLiteral("name"), ContainerName},
        {QStringLiteral("image"), settings.image},
        {QStringLiteral("imagePullPolicy"), settings.imagePullPolicy},
        {QStringLiteral("command"), QJsonArray{QStringLiteral("sleep"), QStringLiteral("infinity")}},
        {QStringLiteral("workingDir"), PodWorkdir},
        {QStringLiteral("ports"), QJsonArray{QJsonObject{{QStringLiteral("containerPort"), settings.gatewayPort}}}},
        {QStringLiteral("volumeMounts"), mounts},
    };
    if (!settings.resources.isEmpty())
        container.insert(QStringLiteral("resources"), settings.resources);
    if (!settings.env.isEmpty()) {
        QJsonArray env;
        for (const auto &[key, value] : settings.env)
            env.append(QJsonObject{{QStringLiteral("name"), key}, {QStringLiteral("value"), value}});
        container.insert(QStringLiteral("env"), env);
    }
    QJsonObject spec{
        {QStringLiteral("restartPolicy"), QStringLiteral("OnFailure")},
        {QStringLiteral("containers"), QJsonArray{container}},
        {QStringLiteral("volumes"),
         QJsonArray{QJsonObject{
             {QStringLiteral("name"), VolumeName},
             {QStringLiteral("persistentVolumeClaim"), QJsonObject{{QStringLiteral("claimName"), name}}},
         }}},
    };
    if (!settings.nodeSelector.isEmpty()) {
        QJsonObject selector;
        for (auto it = settings.nodeSelector.cbegin(); it != settings.nodeSelector.cend(); ++it)
            selector.insert(it.key(), it.value());
        spec.insert(QStringLiteral("nodeSelector"), selector);
    }
    if (!settings.tolerations.isEmpty())
        spec.insert(QStringLiteral("tolerations"), settings.tolerations);
    if (!settings.serviceAccount.isEmpty())
        spec.insert(QStringLiteral("serviceAccountName"), settings.serviceAccount);
    if (!settings.imagePullSecrets.isEmpty()) {
        QJsonArray secrets;
        for (const QString &secret : settings.imagePullSecrets)
            secrets.append(QJsonObject{{QStringLiteral("name"), secret}});
        spec.insert(QStringLiteral("imagePullSecrets"), secrets);
    }
    return QJsonObject{
        {QStringLiteral("apiVersion"), QStringLiteral("v1")},
        {QStringLiteral("kind"), QStringLiteral("Pod")},
        {QStringLiteral("metadata"), metadataFor(name, ns, labels, owner)},
        {QStringLiteral("spec"), spec},
    };
}

QMap<QString, QString> workspaceAnnotations(const QMap<QString, QString> &annotations)
{
    QMap<QString, QString> own;
    for (auto it = annotations.cbegin(); it != annotations.cend(); ++it) {
        if (!it.key().contains(QLatin1String("kubernetes.io/")) && !it.key().contains(QLatin1String("k8s.io/")))
            own.insert(it.key(), it.value());
    }
    return own;
}

QString PodView::workspaceId() const
{
    return labels.value(WorkspaceIdKey);
}

QString PvcView::workspaceId() const
{
    return labels.value(WorkspaceIdKey);
}

std::optional<QString> stuckMessage(const PodView &pod)
{
    static const QStringList stuck{QStringLiteral("ImagePullBackOff"), QStringLiteral("ErrImagePull"),
                                   QStringLiteral("InvalidImageName"), QStringLiteral("CrashLoopBackOff")};
    if (pod.phase != QLatin1String("Pending") && pod.phase != QLatin1String("Running"))
        return std::nullopt;
    if (!stuck.contains(pod.waitingReason))
        return std::nullopt;
    return pod.waitingMessage.isEmpty() ? pod.waitingReason
                                        : QStringLiteral("%1: %2").arg(pod.waitingReason, pod.waitingMessage);
}

std::optional<SandboxInfo> workspaceState(const std::optional<PodView> &pod, const std::optional<PvcView> &pvc,
                                          const QString &ns, std::chrono::seconds unschedulableGrace,
                                          const QDateTime &now)
{
    const bool pvcAlive = pvc && !pvc->terminating();
    if (!pod && !pvcAlive)
        return std::nullopt;
    SandboxInfo info;
    info.backend = QStringLiteral("kubernetes");
    info.sandboxId = pod ? pod->name : pvc->name;
    info.workspaceId = pod ? pod->workspaceId() : pvc->workspaceId();
    if (info.workspaceId.isEmpty() && pvc)
        info.workspaceId = pvc->workspaceId();
    // Owners: the Pod's annotations, else the PVC's (they outlive the Pod).
    const auto annotation = [&](QLatin1String key) {
        QString value = pod ? pod->annotations.value(key) : QString();
        if (value.isEmpty() && pvc)
            value = pvc->annotations.value(key);
        return value;
    };
    info.userId = annotation(UserIdKey);
    info.agentId = annotation(AgentIdKey);
    info.image = pod ? pod->image : QString();
    // The workspace is as old as its volume; a Pod made again later does not make it new.
    info.createdAt = pvc && pvc->createdAt.isValid() ? pvc->createdAt : (pod ? pod->createdAt : QDateTime());
    info.metadata.insert(QStringLiteral("kubernetes.namespace"), ns);
    // The workspace's own annotations (owners, a profile's metadata): the PVC's, then the Pod's.
    if (pvc) {
        const QMap<QString, QString> own = workspaceAnnotations(pvc->annotations);
        for (auto it = own.cbegin(); it != own.cend(); ++it)
            info.metadata.insert(it.key(), it.value());
    }
    if (pod) {
        const QMap<QString, QString> own = workspaceAnnotations(pod->annotations);
        for (auto it = own.cbegin(); it != own.cend(); ++it)
            info.metadata.insert(it.key(), it.value());
    }
    if (pod) {
        for (auto it = pod->labels.cbegin(); it != pod->labels.cend(); ++it)
            info.metadata.insert(it.key(), it.value());
        info.metadata.insert(QStringLiteral("kubernetes.pod"), pod->name);
    }
    if (pvc) {
        for (auto it = pvc->labels.cbegin(); it != pvc->labels.cend(); ++it)
            info.metadata.insert(it.key(), it.value());
        info.metadata.insert(QStringLiteral("kubernetes.pvc"), pvc->name);
        if (!pvc->capacity.isEmpty())
            info.metadata.insert(QStringLiteral("kubernetes.storage"), pvc->capacity);
    }

    if (!pod) {
        info.state = SandboxState::Paused;
        info.rawState = QStringLiteral("Stopped");
    } else if (pod->terminating()) {
        info.state = SandboxState::Stopping;
        info.rawState = QStringLiteral("Terminating");
    } else if (pod->phase == QLatin1String("Running")) {
        if (const auto stuck = stuckMessage(*pod)) {
            // Running, but its container restarts over and over.
            info.state = SandboxState::Failed;
            info.rawState = *stuck;
        } else {
            info.state = SandboxState::Running;
            info.rawState = pod->phase;
        }
    } else if (pod->phase == QLatin1String("Pending")) {
        // The scheduler also says Unschedulable for passing causes (a PVC not bound yet right
        // after it was made): only one that lasts is a failure (§1.7, defect 3).
        const bool unschedulableForGood = pod->hasUnschedulable && pod->unschedulableSince.isValid()
            && pod->unschedulableSince.secsTo(now) >= qint64(unschedulableGrace.count());
        if (const auto stuck = stuckMessage(*pod)) {
            info.state = SandboxState::Failed;
            info.rawState = *stuck;
        } else if (unschedulableForGood) {
            info.state = SandboxState::Failed;
            info.rawState = QStringLiteral("Unschedulable: %1").arg(pod->unschedulableMessage);
        } else {
            info.state = SandboxState::Pending;
            const QString why = pod->hasUnschedulable ? pod->unschedulableMessage : pod->waitingReason;
            info.rawState = why.isEmpty() ? pod->phase : QStringLiteral("Pending: %1").arg(why);
        }
    } else {
        // Failed, Succeeded, Unknown: the next open deletes the Pod and makes it again.
        info.state = SandboxState::Failed;
        info.rawState = pod->terminatedReason.isEmpty()
            ? pod->phase
            : QStringLiteral("%1: %2").arg(pod->phase, pod->terminatedReason);
    }
    info.fingerprint = fingerprintOf(info);
    return info;
}

} // namespace Paddock::Kubernetes
