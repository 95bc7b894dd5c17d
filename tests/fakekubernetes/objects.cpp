// Create, get and delete for namespaces, Pods and PVCs: decoding (content type, kind, unknown
// fields), validation, the server-side defaults, graceful Pod deletion, the pvc-protection
// finalizer, and the seeded workspaces.

#include "fakekubernetes.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QUuid>

using namespace Qt::StringLiterals;

namespace PaddockFake::Kube {

namespace {

const QString PvcProtection = u"kubernetes.io/pvc-protection"_s;

QString nowTime()
{
    return formatTime(QDateTime::currentMSecsSinceEpoch());
}

QString newUid()
{
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}

QString firstQueryValue(const HttpRequest &request, const QString &name)
{
    for (const auto &[key, value] : request.queryItems()) {
        if (key == name)
            return value;
    }
    return {};
}

bool hasQuery(const HttpRequest &request, const QString &name)
{
    for (const auto &[key, value] : request.queryItems()) {
        if (key == name)
            return true;
    }
    return false;
}

QByteArray warningHeader(const QString &text)
{
    QByteArray value = "299 - \"";
    for (const char c : text.toUtf8()) {
        if (c == '"' || c == '\\')
            value += '\\';
        value += c;
    }
    return value + '"';
}

// The QoS class the API server computes from the containers' requests and limits.
QString qosClass(const QJsonArray &containers)
{
    bool any = false;
    bool guaranteed = true;
    for (const QJsonValue &value : containers) {
        const QJsonObject resources = value.toObject().value(u"resources"_s).toObject();
        const QJsonObject requests = resources.value(u"requests"_s).toObject();
        const QJsonObject limits = resources.value(u"limits"_s).toObject();
        any = any || !requests.isEmpty() || !limits.isEmpty();
        for (const QString &resource : {u"cpu"_s, u"memory"_s}) {
            if (!limits.contains(resource)
                || (requests.contains(resource) && requests.value(resource) != limits.value(resource)))
                guaranteed = false;
        }
    }
    return !any ? u"BestEffort"_s : guaranteed ? u"Guaranteed"_s : u"Burstable"_s;
}

} // namespace

QString FakeKubernetes::randomSuffix(int length)
{
    // The alphabet of generateName and of the token volume's suffix (apimachinery util/rand).
    static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    std::uniform_int_distribution<int> pick(0, static_cast<int>(sizeof alphabet) - 2);
    QString out;
    for (int i = 0; i < length; ++i)
        out += QLatin1Char(alphabet[pick(m_names)]);
    return out;
}

void FakeKubernetes::makeNamespace(const QString &name)
{
    const QJsonObject object{{u"metadata"_s,
                              QJsonObject{{u"name"_s, name},
                                          {u"uid"_s, newUid()},
                                          {u"creationTimestamp"_s, nowTime()},
                                          {u"labels"_s, QJsonObject{{u"kubernetes.io/metadata.name"_s, name}}}}},
                             {u"spec"_s, QJsonObject{{u"finalizers"_s, QJsonArray{u"kubernetes"_s}}}},
                             {u"status"_s, QJsonObject{{u"phase"_s, u"Active"_s}}}};
    commit(Kind::Namespace, QString(), name, object, WatchEvent::Added);
}

std::optional<StatusError> FakeKubernetes::decodeBody(const HttpRequest &request, Kind kind, const QString &ns,
                                                      QJsonObject *object, QStringList *warnings) const
{
    const QString expected = kindName(kind);
    const QByteArray contentType = request.header("content-type").split(';').value(0).trimmed().toLower();
    if (contentType != "application/json") {
        StatusError error;
        error.code = 415;
        error.reason = u"UnsupportedMediaType"_s;
        error.message = u"the body of the request was in an unknown format - accepted media types include: "
                        "application/json, application/yaml, application/vnd.kubernetes.protobuf, application/cbor"_s;
        return error;
    }
    QJsonParseError parseError{};
    const QJsonDocument document = QJsonDocument::fromJson(request.body, &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject())
        return badRequest(u"couldn't get version/kind; json parse error: "_s
                          + (document.isObject() ? parseError.errorString() : u"the body is not a JSON object"_s));
    *object = document.object();
    const QString apiVersion = object->value(u"apiVersion"_s).toString();
    const QString bodyKind = object->value(u"kind"_s).toString();
    if (!apiVersion.isEmpty() && apiVersion != u"v1"_s)
        return badRequest(
            u"the API version in the data (%1) does not match the expected API version (v1)"_s.arg(apiVersion));
    if (!bodyKind.isEmpty() && bodyKind != expected) {
        return badRequest(u"%1 in version \"v1\" cannot be handled as a %2: the object provided is unrecognized "
                          "(must be of type %2)"_s.arg(bodyKind, expected));
    }
    const QString validation = firstQueryValue(request, u"fieldValidation"_s);
    if (!validation.isEmpty() && validation != u"Strict"_s && validation != u"Warn"_s && validation != u"Ignore"_s)
        return badRequest(u"fieldValidation parameter unsupported: "_s + validation);
    if (m_schemas.isLoaded()) {
        const SchemaIndex::Result checked = m_schemas.prune(*object, u"io.k8s.api.core.v1."_s + expected);
        if (!checked.typeError.isEmpty())
            return badRequest(u"%1 in version \"v1\" cannot be handled as a %1: %2"_s.arg(expected, checked.typeError));
        if (!checked.unknownFields.isEmpty()) {
            QStringList unknown;
            for (const QString &field : checked.unknownFields)
                unknown.append(u"unknown field \"%1\""_s.arg(field));
            // Warn is the default since field validation went GA (1.27).
            if (validation == u"Strict"_s) {
                return badRequest(u"%1 in version \"v1\" cannot be handled as a %1: strict decoding error: %2"_s.arg(
                    expected, unknown.join(u", "_s)));
            }
            if (validation != u"Ignore"_s)
                *warnings = unknown;
        }
    }
    object->remove(u"apiVersion"_s);
    object->remove(u"kind"_s);
    QJsonObject metadata = object->value(u"metadata"_s).toObject();
    const QString bodyNs = metadata.value(u"namespace"_s).toString();
    if (kind != Kind::Namespace && !bodyNs.isEmpty() && bodyNs != ns)
        return badRequest(u"the namespace of the provided object does not match the namespace sent on the request"_s);
    return std::nullopt;
}

void FakeKubernetes::defaultPod(QJsonObject &pod)
{
    QJsonObject spec = pod.value(u"spec"_s).toObject();
    const bool automount = spec.value(u"automountServiceAccountToken"_s).toBool(true);
    const QString tokenVolume = u"kube-api-access-"_s + randomSuffix(5);
    QJsonArray containers = spec.value(u"containers"_s).toArray();
    for (qsizetype i = 0; i < containers.size(); ++i) {
        QJsonObject container = containers.at(i).toObject();
        const QString image = container.value(u"image"_s).toString();
        const QString lastPart = image.section(u'/', -1);
        const bool latest = !lastPart.contains(u':') || lastPart.endsWith(u":latest"_s);
        if (!container.contains(u"imagePullPolicy"_s) && !image.contains(u'@'))
            container.insert(u"imagePullPolicy"_s, latest ? u"Always"_s : u"IfNotPresent"_s);
        else if (!container.contains(u"imagePullPolicy"_s))
            container.insert(u"imagePullPolicy"_s, u"IfNotPresent"_s);
        if (!container.contains(u"terminationMessagePath"_s))
            container.insert(u"terminationMessagePath"_s, u"/dev/termination-log"_s);
        if (!container.contains(u"terminationMessagePolicy"_s))
            container.insert(u"terminationMessagePolicy"_s, u"File"_s);
        if (!container.contains(u"resources"_s))
            container.insert(u"resources"_s, QJsonObject());
        // SetDefaults_Pod: a resource with a limit and no request is requested at its limit.
        QJsonObject resources = container.value(u"resources"_s).toObject();
        const QJsonObject limits = resources.value(u"limits"_s).toObject();
        if (!limits.isEmpty()) {
            QJsonObject requests = resources.value(u"requests"_s).toObject();
            for (auto it = limits.begin(); it != limits.end(); ++it) {
                if (!requests.contains(it.key()))
                    requests.insert(it.key(), it.value());
            }
            resources.insert(u"requests"_s, requests);
            container.insert(u"resources"_s, resources);
        }
        QJsonArray ports = container.value(u"ports"_s).toArray();
        for (qsizetype p = 0; p < ports.size(); ++p) {
            QJsonObject port = ports.at(p).toObject();
            if (!port.contains(u"protocol"_s))
                port.insert(u"protocol"_s, u"TCP"_s);
            ports[p] = port;
        }
        if (!ports.isEmpty())
            container.insert(u"ports"_s, ports);
        if (automount) {
            QJsonArray mounts = container.value(u"volumeMounts"_s).toArray();
            mounts.append(QJsonObject{{u"name"_s, tokenVolume},
                                      {u"readOnly"_s, true},
                                      {u"mountPath"_s, u"/var/run/secrets/kubernetes.io/serviceaccount"_s}});
            container.insert(u"volumeMounts"_s, mounts);
        }
        containers[i] = container;
    }
    spec.insert(u"containers"_s, containers);
    const auto fallback = [&](const QString &key, const QJsonValue &value) {
        if (!spec.contains(key))
            spec.insert(key, value);
    };
    fallback(u"restartPolicy"_s, u"Always"_s);
    fallback(u"terminationGracePeriodSeconds"_s, 30);
    fallback(u"dnsPolicy"_s, u"ClusterFirst"_s);
    fallback(u"securityContext"_s, QJsonObject());
    fallback(u"schedulerName"_s, u"default-scheduler"_s);
    fallback(u"serviceAccountName"_s, u"default"_s);
    spec.insert(u"serviceAccount"_s, spec.value(u"serviceAccountName"_s));
    fallback(u"enableServiceLinks"_s, true);
    fallback(u"preemptionPolicy"_s, u"PreemptLowerPriority"_s);
    fallback(u"priority"_s, 0);
    QJsonArray tolerations = spec.value(u"tolerations"_s).toArray();
    for (const QString &taint : {u"node.kubernetes.io/not-ready"_s, u"node.kubernetes.io/unreachable"_s}) {
        tolerations.append(QJsonObject{{u"key"_s, taint},
                                       {u"operator"_s, u"Exists"_s},
                                       {u"effect"_s, u"NoExecute"_s},
                                       {u"tolerationSeconds"_s, 300}});
    }
    spec.insert(u"tolerations"_s, tolerations);
    if (automount) {
        QJsonArray volumes = spec.value(u"volumes"_s).toArray();
        volumes.append(QJsonObject{
            {u"name"_s, tokenVolume},
            {u"projected"_s,
             QJsonObject{
                 {u"defaultMode"_s, 420},
                 {u"sources"_s,
                  QJsonArray{QJsonObject{{u"serviceAccountToken"_s,
                                          QJsonObject{{u"expirationSeconds"_s, 3607}, {u"path"_s, u"token"_s}}}},
                             QJsonObject{{u"configMap"_s,
                                          QJsonObject{{u"name"_s, u"kube-root-ca.crt"_s},
                                                      {u"items"_s,
                                                       QJsonArray{QJsonObject{{u"key"_s, u"ca.crt"_s},
                                                                              {u"path"_s, u"ca.crt"_s}}}}}}},
                             QJsonObject{
                                 {u"downwardAPI"_s,
                                  QJsonObject{{u"items"_s,
                                               QJsonArray{QJsonObject{
                                                   {u"path"_s, u"namespace"_s},
                                                   {u"fieldRef"_s,
                                                    QJsonObject{{u"apiVersion"_s, u"v1"_s},
                                                                {u"fieldPath"_s, u"metadata.namespace"_s}}}}}}}}}}}}}});
        spec.insert(u"volumes"_s, volumes);
    }
    pod.insert(u"spec"_s, spec);
    pod.insert(u"status"_s, QJsonObject{{u"phase"_s, u"Pending"_s}, {u"qosClass"_s, qosClass(containers)}});
}

void FakeKubernetes::defaultPvc(QJsonObject &pvc) const
{
    QJsonObject metadata = pvc.value(u"metadata"_s).toObject();
    QJsonArray finalizers = metadata.value(u"finalizers"_s).toArray();
    if (!finalizers.contains(PvcProtection))
        finalizers.append(PvcProtection);
    metadata.insert(u"finalizers"_s, finalizers);
    pvc.insert(u"metadata"_s, metadata);
    QJsonObject spec = pvc.value(u"spec"_s).toObject();
    if (!spec.contains(u"storageClassName"_s) && !m_options.storageClasses.isEmpty())
        spec.insert(u"storageClassName"_s, m_options.storageClasses.first()); // the default class
    if (!spec.contains(u"volumeMode"_s))
        spec.insert(u"volumeMode"_s, u"Filesystem"_s);
    pvc.insert(u"spec"_s, spec);
    pvc.insert(u"status"_s, QJsonObject{{u"phase"_s, u"Pending"_s}});
}

PodState *FakeKubernetes::addPodState(const QString &key, const QString &uid)
{
    auto *pod = new PodState(this);
    pod->key = key;
    pod->uid = uid;
    pod->dir = m_dataDir + u"/pods/"_s + uid;
    pod->kubelet.setSingleShot(true);
    pod->removal.setSingleShot(true);
    connect(&pod->kubelet, &QTimer::timeout, pod, [this, key] { kubeletStep(key); });
    connect(&pod->removal, &QTimer::timeout, pod, [this, key] { finishPodDeletion(key); });
    return pod;
}

void FakeKubernetes::createObject(HttpConnection *connection, const HttpRequest &request, Kind kind, const QString &ns)
{
    QJsonObject object;
    QStringList warnings;
    if (std::optional<StatusError> error = decodeBody(request, kind, ns, &object, &warnings))
        return connection->send(error->response());
    QJsonObject metadata = object.value(u"metadata"_s).toObject();
    QString name = metadata.value(u"name"_s).toString();
    const QString generateName = metadata.value(u"generateName"_s).toString();
    if (name.isEmpty() && !generateName.isEmpty()) {
        name = generateName + randomSuffix(5);
        metadata.insert(u"name"_s, name);
    }
    if (kind != Kind::Namespace)
        metadata.insert(u"namespace"_s, ns);
    object.insert(u"metadata"_s, metadata);

    QList<StatusCause> causes =
        validateMetadata(metadata, kind == Kind::Namespace ? &dns1123LabelErrors : &dns1123SubdomainErrors);
    if (kind == Kind::Pod)
        causes += validatePodSpec(object.value(u"spec"_s).toObject());
    else if (kind == Kind::Pvc)
        causes += validatePvcSpec(object.value(u"spec"_s).toObject());
    if (kind == Kind::Pvc) {
        const QJsonValue storage = object.value(u"spec"_s)
                                       .toObject()
                                       .value(u"resources"_s)
                                       .toObject()
                                       .value(u"requests"_s)
                                       .toObject()
                                       .value(u"storage"_s);
        if (storage.isString() && !parseQuantity(storage.toString())) {
            return connection->send(badRequest(u"PersistentVolumeClaim in version \"v1\" cannot be handled as a "
                                               "PersistentVolumeClaim: quantities must match the regular expression '"_s
                                               + QString(QuantityPattern) + u"'"_s)
                                        .response());
        }
    }
    if (!causes.isEmpty())
        return connection->send(invalid(kindName(kind), name, causes).response());
    if (kind != Kind::Namespace && !find(Kind::Namespace, QString(), ns))
        return connection->send(notFound(u"namespaces"_s, ns).response());
    if (find(kind, ns, name))
        return connection->send(alreadyExists(resourceName(kind), name).response());

    const QString uid = newUid();
    metadata.insert(u"uid"_s, uid);
    metadata.insert(u"creationTimestamp"_s, nowTime());
    metadata.remove(u"resourceVersion"_s);
    metadata.remove(u"deletionTimestamp"_s);
    metadata.remove(u"deletionGracePeriodSeconds"_s);
    if (kind == Kind::Namespace) {
        QJsonObject labels = metadata.value(u"labels"_s).toObject();
        labels.insert(u"kubernetes.io/metadata.name"_s, name);
        metadata.insert(u"labels"_s, labels);
        object.insert(u"spec"_s, QJsonObject{{u"finalizers"_s, QJsonArray{u"kubernetes"_s}}});
        object.insert(u"status"_s, QJsonObject{{u"phase"_s, u"Active"_s}});
    }
    object.insert(u"metadata"_s, metadata);
    if (kind == Kind::Pod)
        defaultPod(object);
    else if (kind == Kind::Pvc)
        defaultPvc(object);

    const bool dryRun = request.queryValues(u"dryRun"_s).contains(u"All"_s);
    VersionPtr version;
    if (dryRun) {
        auto preview = std::make_shared<Version>();
        preview->kind = kind;
        preview->ns = ns;
        preview->name = name;
        preview->json = writeJson(object);
        preview->object = object;
        version = preview;
    } else {
        version = commit(kind, ns, name, object, WatchEvent::Added);
        Entry *entry = find(kind, ns, name);
        if (kind == Kind::Pod) {
            entry->pod = addPodState(version->key, uid);
            const QString key = version->key;
            QTimer::singleShot(0, entry->pod, [this, key] { schedule(key); });
        } else if (kind == Kind::Pvc) {
            const QString key = version->key;
            entry->timer = new QTimer(this);
            entry->timer->setSingleShot(true);
            connect(entry->timer, &QTimer::timeout, this, [this, key] { bindPvc(key); });
            entry->timer->start(std::max(0, m_options.pvcBindMs));
        }
    }
    HttpResponse response = objectResponse(request, 201, *version);
    for (const QString &warning : std::as_const(warnings))
        response.headers.append({"Warning", warningHeader(warning)});
    connection->send(response);
}

void FakeKubernetes::getObject(HttpConnection *connection, const HttpRequest &request, Kind kind, const QString &ns,
                               const QString &name)
{
    const Entry *entry = find(kind, ns, name);
    if (!entry)
        return connection->send(notFound(resourceName(kind), name).response());
    connection->send(objectResponse(request, 200, *entry->current));
}

void FakeKubernetes::deleteObject(HttpConnection *connection, const HttpRequest &request, Kind kind, const QString &ns,
                                  const QString &name)
{
    Entry *entry = find(kind, ns, name);
    if (!entry)
        return connection->send(notFound(resourceName(kind), name).response());

    // The options: from the body when there is one, otherwise from the query (handlers/delete.go).
    std::optional<qint64> grace;
    bool dryRun = false;
    QString uidPrecondition;
    QString rvPrecondition;
    QString propagation;
    if (!request.body.trimmed().isEmpty()) {
        QJsonParseError parseError{};
        const QJsonDocument document = QJsonDocument::fromJson(request.body, &parseError);
        if (parseError.error != QJsonParseError::NoError || !document.isObject())
            return connection->send(
                badRequest(u"couldn't get version/kind; json parse error: "_s + parseError.errorString()).response());
        const QJsonObject options = document.object();
        if (options.value(u"gracePeriodSeconds"_s).isDouble())
            grace = options.value(u"gracePeriodSeconds"_s).toInteger();
        for (const QJsonValue &value : options.value(u"dryRun"_s).toArray())
            dryRun = dryRun || value.toString() == u"All"_s;
        const QJsonObject preconditions = options.value(u"preconditions"_s).toObject();
        uidPrecondition = preconditions.value(u"uid"_s).toString();
        rvPrecondition = preconditions.value(u"resourceVersion"_s).toString();
        propagation = options.value(u"propagationPolicy"_s).toString();
    } else {
        if (hasQuery(request, u"gracePeriodSeconds"_s)) {
            bool ok = false;
            grace = firstQueryValue(request, u"gracePeriodSeconds"_s).toLongLong(&ok);
            if (!ok)
                return connection->send(badRequest(u"invalid gracePeriodSeconds"_s).response());
        }
        dryRun = request.queryValues(u"dryRun"_s).contains(u"All"_s);
        propagation = firstQueryValue(request, u"propagationPolicy"_s);
    }
    const QStringList policies{u"Orphan"_s, u"Background"_s, u"Foreground"_s};
    if (!propagation.isEmpty() && !policies.contains(propagation)) {
        return connection->send(
            invalid(u"DeleteOptions"_s, QString(),
                    {{u"FieldValueNotSupported"_s, unsupportedValue(propagation, policies), u"propagationPolicy"_s}})
                .response());
    }
    const QJsonObject metadata = entry->current->object.value(u"metadata"_s).toObject();
    if (!uidPrecondition.isEmpty() && uidPrecondition != metadata.value(u"uid"_s).toString()) {
        return connection->send(conflict(resourceName(kind), name,
                                         u"Precondition failed: UID in precondition: %1, UID in object meta: %2"_s.arg(
                                             uidPrecondition, metadata.value(u"uid"_s).toString()))
                                    .response());
    }
    if (!rvPrecondition.isEmpty() && rvPrecondition != metadata.value(u"resourceVersion"_s).toString()) {
        return connection->send(
            conflict(resourceName(kind), name,
                     u"Precondition failed: ResourceVersion in precondition: %1, ResourceVersion in meta: %2"_s.arg(
                         rvPrecondition, metadata.value(u"resourceVersion"_s).toString()))
                .response());
    }
    if (dryRun)
        return connection->send(objectResponse(request, 200, *entry->current));

    if (kind == Kind::Pod) {
        const QJsonObject &pod = entry->current->object;
        const QJsonObject spec = pod.value(u"spec"_s).toObject();
        const QString phase = pod.value(u"status"_s).toObject().value(u"phase"_s).toString();
        // The Pod strategy's CheckGracefulDelete.
        qint64 period = grace ? *grace : spec.value(u"terminationGracePeriodSeconds"_s).toInteger(30);
        if (spec.value(u"nodeName"_s).toString().isEmpty() || phase == u"Failed"_s || phase == u"Succeeded"_s)
            period = 0;
        if (period < 0)
            period = 1;
        if (period == 0) {
            const VersionPtr last = entry->current;
            finishPodDeletion(last->key);
            return connection->send(objectResponse(request, 200, *last));
        }
        beginPodDeletion(entry->current->key, period);
        const Entry *after = find(kind, ns, name);
        return connection->send(objectResponse(request, 200, *after->current));
    }
    if (kind == Kind::Pvc) {
        const bool protectedPvc = metadata.value(u"finalizers"_s).toArray().contains(PvcProtection);
        if (!protectedPvc) {
            const VersionPtr last = entry->current;
            if (entry->timer)
                entry->timer->deleteLater();
            const QString dir = entry->volumeDir;
            remove(kind, ns, name);
            if (!dir.isEmpty())
                QDir(dir).removeRecursively();
            return connection->send(objectResponse(request, 200, *last));
        }
        if (!metadata.contains(u"deletionTimestamp"_s)) {
            modify(kind, ns, name, [](QJsonObject &object) {
                QJsonObject meta = object.value(u"metadata"_s).toObject();
                meta.insert(u"deletionTimestamp"_s, nowTime());
                meta.insert(u"deletionGracePeriodSeconds"_s, 0);
                object.insert(u"metadata"_s, meta);
            });
        }
        const VersionPtr marked = find(kind, ns, name)->current;
        // The finalizer goes (and the PVC with it) once no Pod uses it.
        QTimer::singleShot(0, this, [this, ns] { releasePvcs(ns); });
        return connection->send(objectResponse(request, 200, *marked));
    }
    connection->send(methodNotAllowed().response());
}

void FakeKubernetes::seed(int count)
{
    const QString ns = m_options.seedNamespace;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const int users = std::max(1, count / 50);
    for (int i = 0; i < count; ++i) {
        const QString id = QString::fromLatin1(
            QCryptographicHash::hash(QByteArray("paddock-fake-kubernetes-seed-" + QByteArray::number(i)),
                                     QCryptographicHash::Sha256)
                .toHex()
                .left(16));
        const QString name = u"as-ws-"_s + id;
        const qint64 created = now - qint64(count - i) * 1000;
        const QJsonObject labels{{u"app.kubernetes.io/managed-by"_s, u"agentscope"_s},
                                 {u"agentscope.workspace.id"_s, id}};
        QJsonObject annotations;
        if (i % 3 != 2) { // a third made by AgentScope itself, which records no owner
            annotations.insert(u"agentscope.user.id"_s, u"user-%1"_s.arg(i % users + 1));
            annotations.insert(u"agentscope.agent.id"_s, u"agent-%1"_s.arg(i % 5 + 1));
        }
        const QString pvcUid = newUid();
        QJsonObject pvcMeta{{u"name"_s, name},     {u"namespace"_s, ns},
                            {u"uid"_s, pvcUid},    {u"creationTimestamp"_s, formatTime(created)},
                            {u"labels"_s, labels}, {u"finalizers"_s, QJsonArray{PvcProtection}}};
        // Paddock records the owner on both objects (the PVC outlives the Pod); the volume
        // controller adds its own.
        QJsonObject pvcAnnotations = annotations;
        pvcAnnotations.insert(u"pv.kubernetes.io/bind-completed"_s, u"yes"_s);
        pvcAnnotations.insert(u"pv.kubernetes.io/bound-by-controller"_s, u"yes"_s);
        pvcAnnotations.insert(u"volume.kubernetes.io/storage-provisioner"_s, u"paddock.invalid/fake"_s);
        pvcMeta.insert(u"annotations"_s, pvcAnnotations);
        const QJsonObject pvc{
            {u"metadata"_s, pvcMeta},
            {u"spec"_s,
             QJsonObject{{u"accessModes"_s, QJsonArray{u"ReadWriteOnce"_s}},
                         {u"resources"_s, QJsonObject{{u"requests"_s, QJsonObject{{u"storage"_s, u"1Gi"_s}}}}},
                         {u"storageClassName"_s, m_options.storageClasses.value(0, u"standard"_s)},
                         {u"volumeMode"_s, u"Filesystem"_s},
                         {u"volumeName"_s, QString(u"pvc-"_s + pvcUid)}}},
            {u"status"_s,
             QJsonObject{{u"phase"_s, u"Bound"_s},
                         {u"accessModes"_s, QJsonArray{u"ReadWriteOnce"_s}},
                         {u"capacity"_s, QJsonObject{{u"storage"_s, u"1Gi"_s}}}}}};
        commit(Kind::Pvc, ns, name, pvc, WatchEvent::Added);
        find(Kind::Pvc, ns, name)->volumeDir = m_dataDir + u"/volumes/pvc-"_s + pvcUid;

        QJsonObject podLabels = labels;
        podLabels.insert(u"agentscope.workspace"_s, u"true"_s);
        QJsonObject podMeta{{u"name"_s, name},
                            {u"namespace"_s, ns},
                            {u"uid"_s, newUid()},
                            {u"creationTimestamp"_s, formatTime(created)},
                            {u"labels"_s, podLabels}};
        if (!annotations.isEmpty())
            podMeta.insert(u"annotations"_s, annotations);
        QJsonObject pod{
            {u"metadata"_s, podMeta},
            {u"spec"_s,
             QJsonObject{
                 {u"restartPolicy"_s, u"OnFailure"_s},
                 {u"containers"_s,
                  QJsonArray{QJsonObject{
                      {u"name"_s, u"workspace"_s},
                      {u"image"_s, u"python:3.11-slim"_s},
                      {u"imagePullPolicy"_s, u"IfNotPresent"_s},
                      {u"command"_s, QJsonArray{u"sleep"_s, u"infinity"_s}},
                      {u"workingDir"_s, u"/workspace"_s},
                      {u"ports"_s, QJsonArray{QJsonObject{{u"containerPort"_s, 5600}}}},
                      {u"volumeMounts"_s,
                       QJsonArray{QJsonObject{{u"name"_s, u"workspace-data"_s}, {u"mountPath"_s, u"/workspace"_s}}}}}}},
                 {u"volumes"_s,
                  QJsonArray{QJsonObject{{u"name"_s, u"workspace-data"_s},
                                         {u"persistentVolumeClaim"_s, QJsonObject{{u"claimName"_s, name}}}}}}}}};
        defaultPod(pod);
        QJsonObject spec = pod.value(u"spec"_s).toObject();
        spec.insert(u"nodeName"_s, u"node-1"_s);
        pod.insert(u"spec"_s, spec);
        pod.insert(u"status"_s, runningStatus(pod, created + 2000, 0, {}));
        const VersionPtr version = commit(Kind::Pod, ns, name, pod, WatchEvent::Added);
        Entry *entry = find(Kind::Pod, ns, name);
        entry->pod = addPodState(version->key, podMeta.value(u"uid"_s).toString());
        entry->pod->scheduled = true;
        entry->pod->containerStartedMs = created + 2000;
    }
}

} // namespace PaddockFake::Kube
