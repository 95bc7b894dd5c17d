#include "kubeobjects.h"

#include "../../tr.h"

#include <QRegularExpression>
#include <QTimeZone>

#include <rapidjson/document.h>

#include <algorithm>

namespace Paddock::Kubernetes {

namespace {

QString text(const rapidjson::Value &value)
{
    return value.IsString() ? QString::fromUtf8(value.GetString(), qsizetype(value.GetStringLength())) : QString();
}

const rapidjson::Value *member(const rapidjson::Value &object, const char *name)
{
    if (!object.IsObject())
        return nullptr;
    const auto it = object.FindMember(name);
    return it == object.MemberEnd() ? nullptr : &it->value;
}

QString stringMember(const rapidjson::Value &object, const char *name)
{
    const rapidjson::Value *value = member(object, name);
    return value ? text(*value) : QString();
}

int intMember(const rapidjson::Value &object, const char *name, int fallback)
{
    const rapidjson::Value *value = member(object, name);
    return value && value->IsInt() ? value->GetInt() : fallback;
}

QMap<QString, QString> stringMap(const rapidjson::Value *object)
{
    QMap<QString, QString> map;
    if (!object || !object->IsObject())
        return map;
    for (auto it = object->MemberBegin(); it != object->MemberEnd(); ++it)
        map.insert(text(it->name), text(it->value));
    return map;
}

// Kubernetes writes RFC 3339 in UTC, to the second ("2026-12-01T10:00:00Z"); fractions and
// offsets are read too.
std::optional<QDateTime> timeMember(const rapidjson::Value &object, const char *name)
{
    const rapidjson::Value *value = member(object, name);
    if (!value || !value->IsString())
        return std::nullopt;
    QDateTime time = QDateTime::fromString(text(*value), Qt::ISODateWithMs);
    if (!time.isValid())
        return std::nullopt;
    return time.toUTC();
}

const rapidjson::Value *path(const rapidjson::Value &object, std::initializer_list<const char *> names)
{
    const rapidjson::Value *at = &object;
    for (const char *name : names) {
        at = member(*at, name);
        if (!at)
            return nullptr;
    }
    return at;
}

PodView podFrom(const rapidjson::Value &json)
{
    PodView pod;
    if (const rapidjson::Value *meta = member(json, "metadata")) {
        pod.name = stringMember(*meta, "name");
        pod.ns = stringMember(*meta, "namespace");
        pod.uid = stringMember(*meta, "uid");
        pod.resourceVersion = stringMember(*meta, "resourceVersion");
        pod.labels = stringMap(member(*meta, "labels"));
        pod.annotations = stringMap(member(*meta, "annotations"));
        if (const auto created = timeMember(*meta, "creationTimestamp"))
            pod.createdAt = *created;
        pod.deletionTimestamp = timeMember(*meta, "deletionTimestamp");
        pod.deletionGracePeriodSeconds = intMember(*meta, "deletionGracePeriodSeconds", 0);
    }
    if (const rapidjson::Value *spec = member(json, "spec")) {
        pod.terminationGracePeriodSeconds = intMember(*spec, "terminationGracePeriodSeconds", 30);
        if (const rapidjson::Value *containers = member(*spec, "containers"); containers && containers->IsArray()) {
            for (const rapidjson::Value &container : containers->GetArray()) {
                if (pod.image.isEmpty() || stringMember(container, "name") == ContainerName)
                    pod.image = stringMember(container, "image");
                if (stringMember(container, "name") != ContainerName)
                    continue;
                if (const rapidjson::Value *mounts = member(container, "volumeMounts"); mounts && mounts->IsArray()) {
                    for (const rapidjson::Value &mount : mounts->GetArray()) {
                        if (stringMember(mount, "mountPath") == PodGatewayHome)
                            pod.mountsGatewayHome = true;
                    }
                }
            }
        }
    }
    if (const rapidjson::Value *status = member(json, "status")) {
        pod.phase = stringMember(*status, "phase");
        if (const rapidjson::Value *conditions = member(*status, "conditions"); conditions && conditions->IsArray()) {
            for (const rapidjson::Value &condition : conditions->GetArray()) {
                if (stringMember(condition, "type") == QLatin1String("PodScheduled")
                    && stringMember(condition, "status") == QLatin1String("False")
                    && stringMember(condition, "reason") == QLatin1String("Unschedulable")) {
                    pod.hasUnschedulable = true;
                    pod.unschedulableMessage = stringMember(condition, "message");
                    if (const auto since = timeMember(condition, "lastTransitionTime"))
                        pod.unschedulableSince = *since;
                }
            }
        }
        if (const rapidjson::Value *statuses = member(*status, "containerStatuses"); statuses && statuses->IsArray()) {
            for (const rapidjson::Value &container : statuses->GetArray()) {
                const bool ours = stringMember(container, "name") == ContainerName;
                if (!ours && !pod.waitingReason.isEmpty())
                    continue;
                pod.restartCount = intMember(container, "restartCount", 0);
                if (const rapidjson::Value *waiting = path(container, {"state", "waiting"})) {
                    pod.waitingReason = stringMember(*waiting, "reason");
                    pod.waitingMessage = stringMember(*waiting, "message");
                }
                if (const rapidjson::Value *terminated = path(container, {"state", "terminated"}))
                    pod.terminatedReason = stringMember(*terminated, "reason");
                if (ours)
                    break;
            }
        }
    }
    return pod;
}

PvcView pvcFrom(const rapidjson::Value &json)
{
    PvcView pvc;
    if (const rapidjson::Value *meta = member(json, "metadata")) {
        pvc.name = stringMember(*meta, "name");
        pvc.uid = stringMember(*meta, "uid");
        pvc.resourceVersion = stringMember(*meta, "resourceVersion");
        pvc.labels = stringMap(member(*meta, "labels"));
        pvc.annotations = stringMap(member(*meta, "annotations"));
        if (const auto created = timeMember(*meta, "creationTimestamp"))
            pvc.createdAt = *created;
        pvc.deletionTimestamp = timeMember(*meta, "deletionTimestamp");
    }
    if (const rapidjson::Value *spec = member(json, "spec"))
        pvc.storageClass = stringMember(*spec, "storageClassName");
    if (const rapidjson::Value *status = member(json, "status")) {
        pvc.phase = stringMember(*status, "phase");
        if (const rapidjson::Value *storage = path(*status, {"capacity", "storage"}))
            pvc.capacity = text(*storage);
    }
    return pvc;
}

bool parse(rapidjson::Document &document, const char *data, qsizetype size)
{
    document.Parse(data, size_t(size));
    return !document.HasParseError() && document.IsObject();
}

Error notJson(const char *what)
{
    return Error::backend(
        Tr::tr("the API server's answer is not a JSON %1 - is this a Kubernetes API server?").arg(QLatin1String(what)));
}

template<typename View, typename From> Result<ListPage<View>> parseList(QByteArray buffer, From from, const char *what)
{
    // In place: a page is a megabyte or two, and RapidJSON then copies none of its strings (nor
    // the page, unless it is shared).
    buffer.detach();
    rapidjson::Document document;
    document.ParseInsitu(buffer.data());
    if (document.HasParseError() || !document.IsObject())
        return fail(notJson(what));
    ListPage<View> page;
    if (const rapidjson::Value *meta = member(document, "metadata")) {
        page.resourceVersion = stringMember(*meta, "resourceVersion");
        page.continueToken = stringMember(*meta, "continue");
    }
    if (const rapidjson::Value *items = member(document, "items"); items && items->IsArray()) {
        page.items.reserve(qsizetype(items->Size()));
        for (const rapidjson::Value &item : items->GetArray())
            page.items.append(from(item));
    }
    return page;
}

} // namespace

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

Result<PodView> parsePod(const QByteArray &json)
{
    rapidjson::Document document;
    if (!parse(document, json.constData(), json.size()))
        return fail(notJson("Pod"));
    return podFrom(document);
}

Result<PvcView> parsePvc(const QByteArray &json)
{
    rapidjson::Document document;
    if (!parse(document, json.constData(), json.size()))
        return fail(notJson("PersistentVolumeClaim"));
    return pvcFrom(document);
}

Result<ListPage<PodView>> parsePodList(QByteArray json)
{
    return parseList<PodView>(std::move(json), podFrom, "PodList");
}

Result<ListPage<PvcView>> parsePvcList(QByteArray json)
{
    return parseList<PvcView>(std::move(json), pvcFrom, "PersistentVolumeClaimList");
}

Result<WatchEvent> parseWatchEvent(QByteArrayView line, ObjectKind kind)
{
    rapidjson::Document document;
    if (!parse(document, line.data(), line.size()))
        return fail(notJson("watch event"));
    WatchEvent event;
    const QString type = stringMember(document, "type");
    if (type == QLatin1String("ADDED"))
        event.type = WatchEvent::Type::Added;
    else if (type == QLatin1String("MODIFIED"))
        event.type = WatchEvent::Type::Modified;
    else if (type == QLatin1String("DELETED"))
        event.type = WatchEvent::Type::Deleted;
    else if (type == QLatin1String("BOOKMARK"))
        event.type = WatchEvent::Type::Bookmark;
    else if (type == QLatin1String("ERROR"))
        event.type = WatchEvent::Type::Error;
    const rapidjson::Value *object = member(document, "object");
    if (!object)
        return event;
    if (event.type == WatchEvent::Type::Error) {
        event.errorCode = intMember(*object, "code", 0);
        event.errorReason = stringMember(*object, "reason");
        event.errorMessage = stringMember(*object, "message");
        return event;
    }
    if (const rapidjson::Value *meta = member(*object, "metadata"))
        event.resourceVersion = stringMember(*meta, "resourceVersion");
    if (event.type == WatchEvent::Type::Bookmark || event.type == WatchEvent::Type::Unknown)
        return event;
    if (kind == ObjectKind::Pod)
        event.pod = podFrom(*object);
    else
        event.pvc = pvcFrom(*object);
    return event;
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
