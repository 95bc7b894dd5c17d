// What kubectl asks before it does anything: /version, discovery (aggregated v2 or the legacy
// documents), the core/v1 OpenAPI v3 document, and Table output for `kubectl get`.

#include "fakekubernetes.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace PaddockFake::Kube {

namespace {

constexpr QByteArrayView DiscoveryGroup = "apidiscovery.k8s.io";

// The discovery version an Accept header asks for ("v2", "v2beta1"), in the client's order of
// preference; empty for the legacy documents.
QByteArray aggregatedVersion(const HttpRequest &request)
{
    for (const QByteArray &accept : request.headerValues("accept")) {
        for (const QByteArray &mediaType : accept.split(',')) {
            QByteArray group;
            QByteArray version;
            QByteArray as;
            const QList<QByteArray> parts = mediaType.split(';');
            for (qsizetype i = 1; i < parts.size(); ++i) {
                const QByteArray parameter = parts.at(i).trimmed();
                if (parameter.startsWith("g="))
                    group = parameter.mid(2);
                else if (parameter.startsWith("v="))
                    version = parameter.mid(2);
                else if (parameter.startsWith("as="))
                    as = parameter.mid(3);
            }
            if (parts.value(0).trimmed() == "application/json" && group == DiscoveryGroup
                && as == "APIGroupDiscoveryList" && (version == "v2" || version == "v2beta1"))
                return version;
        }
    }
    return {};
}

HttpResponse aggregated(const QByteArray &version, const QByteArray &items)
{
    HttpResponse response = HttpResponse::json(200,
                                               R"({"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/)"
                                                   + version + R"(","metadata":{},"items":[)" + items + "]}");
    response.setHeader("Content-Type",
                       "application/json;g=apidiscovery.k8s.io;v=" + version + ";as=APIGroupDiscoveryList");
    response.setHeader("Vary", "Accept");
    return response;
}

const QByteArray CoreResources =
    R"({"resource":"namespaces","responseKind":{"group":"","version":"v1","kind":"Namespace"},"scope":"Cluster",)"
    R"("singularResource":"namespace","shortNames":["ns"],"verbs":["create","delete","get","list","patch","update","watch"],)"
    R"("subresources":[{"subresource":"status","responseKind":{"group":"","version":"v1","kind":"Namespace"},"verbs":["get","patch","update"]}]},)"
    R"({"resource":"persistentvolumeclaims","responseKind":{"group":"","version":"v1","kind":"PersistentVolumeClaim"},)"
    R"("scope":"Namespaced","singularResource":"persistentvolumeclaim","shortNames":["pvc"],)"
    R"("verbs":["create","delete","deletecollection","get","list","patch","update","watch"],)"
    R"("subresources":[{"subresource":"status","responseKind":{"group":"","version":"v1","kind":"PersistentVolumeClaim"},"verbs":["get","patch","update"]}]},)"
    R"({"resource":"pods","responseKind":{"group":"","version":"v1","kind":"Pod"},"scope":"Namespaced",)"
    R"("singularResource":"pod","shortNames":["po"],"categories":["all"],)"
    R"("verbs":["create","delete","deletecollection","get","list","patch","update","watch"],)"
    R"("subresources":[{"subresource":"exec","responseKind":{"group":"","version":"v1","kind":"PodExecOptions"},"verbs":["create","get"]},)"
    R"({"subresource":"log","responseKind":{"group":"","version":"v1","kind":"Pod"},"verbs":["get"]},)"
    R"({"subresource":"status","responseKind":{"group":"","version":"v1","kind":"Pod"},"verbs":["get","patch","update"]}]})";

QString podStatusText(const QJsonObject &pod, int *ready, int *total, int *restarts, qint64 *lastRestartMs)
{
    const QJsonObject status = pod.value(u"status"_s).toObject();
    QString reason = status.value(u"phase"_s).toString();
    if (!status.value(u"reason"_s).toString().isEmpty())
        reason = status.value(u"reason"_s).toString();
    *total = static_cast<int>(pod.value(u"spec"_s).toObject().value(u"containers"_s).toArray().size());
    *ready = 0;
    *restarts = 0;
    *lastRestartMs = 0;
    bool running = false;
    const QJsonArray containers = status.value(u"containerStatuses"_s).toArray();
    for (qsizetype i = containers.size() - 1; i >= 0; --i) {
        const QJsonObject container = containers.at(i).toObject();
        *restarts += container.value(u"restartCount"_s).toInt();
        const QString finished = container.value(u"lastState"_s)
                                     .toObject()
                                     .value(u"terminated"_s)
                                     .toObject()
                                     .value(u"finishedAt"_s)
                                     .toString();
        if (!finished.isEmpty()) {
            if (const std::optional<qint64> ns = parseTimeNs(finished))
                *lastRestartMs = std::max(*lastRestartMs, *ns / 1'000'000);
        }
        const QJsonObject state = container.value(u"state"_s).toObject();
        const QJsonObject waiting = state.value(u"waiting"_s).toObject();
        const QJsonObject terminated = state.value(u"terminated"_s).toObject();
        if (!waiting.value(u"reason"_s).toString().isEmpty()) {
            reason = waiting.value(u"reason"_s).toString();
        } else if (!terminated.isEmpty()) {
            if (!terminated.value(u"reason"_s).toString().isEmpty())
                reason = terminated.value(u"reason"_s).toString();
            else if (terminated.value(u"signal"_s).toInt() != 0)
                reason = u"Signal:%1"_s.arg(terminated.value(u"signal"_s).toInt());
            else
                reason = u"ExitCode:%1"_s.arg(terminated.value(u"exitCode"_s).toInt());
        } else if (container.value(u"ready"_s).toBool() && state.contains(u"running"_s)) {
            running = true;
            ++*ready;
        }
    }
    if (reason == u"Completed"_s && running)
        reason = u"Running"_s;
    if (!pod.value(u"metadata"_s).toObject().value(u"deletionTimestamp"_s).toString().isEmpty())
        reason = u"Terminating"_s;
    return reason;
}

QString orNone(const QString &value)
{
    return value.isEmpty() ? u"<none>"_s : value;
}

QByteArray columns(Kind kind)
{
    const auto column = [](const char *name, const char *type, const char *format, int priority) -> QByteArray {
        return QByteArray(R"({"name":")") + name + R"(","type":")" + type + R"(","format":")" + format
            + R"(","description":"","priority":)" + QByteArray::number(priority) + '}';
    };
    QList<QByteArray> list;
    switch (kind) {
    case Kind::Pod:
        list = {column("Name", "string", "name", 0),
                column("Ready", "string", "", 0),
                column("Status", "string", "", 0),
                column("Restarts", "string", "", 0),
                column("Age", "string", "", 0),
                column("IP", "string", "", 1),
                column("Node", "string", "", 1),
                column("Nominated Node", "string", "", 1),
                column("Readiness Gates", "string", "", 1)};
        break;
    case Kind::Pvc:
        list = {column("Name", "string", "name", 0),
                column("Status", "string", "", 0),
                column("Volume", "string", "", 0),
                column("Capacity", "string", "", 0),
                column("Access Modes", "string", "", 0),
                column("StorageClass", "string", "", 0),
                column("VolumeAttributesClass", "string", "", 0),
                column("Age", "string", "", 0),
                column("VolumeMode", "string", "", 1)};
        break;
    case Kind::Namespace:
        list = {column("Name", "string", "name", 0), column("Status", "string", "", 0), column("Age", "string", "", 0)};
        break;
    }
    return '[' + list.join(',') + ']';
}

} // namespace

HttpResponse FakeKubernetes::version() const
{
    // The API server writes this one indented (responsewriters.WriteRawJSON).
    const QByteArray body = R"({
  "major": "1",
  "minor": "32",
  "gitVersion": "v1.32.4",
  "gitCommit": "59526cd4867447956156ae3a602fcbac10a2c335",
  "gitTreeState": "clean",
  "buildDate": "2025-04-22T16:02:27Z",
  "goVersion": "go1.23.6",
  "compiler": "gc",
  "platform": "linux/amd64"
})";
    return HttpResponse::json(200, body);
}

HttpResponse FakeKubernetes::coreGroup(const HttpRequest &request) const
{
    const QByteArray version = aggregatedVersion(request);
    if (!version.isEmpty()) {
        return aggregated(version,
                          R"({"metadata":{"creationTimestamp":null},"versions":[{"version":"v1","resources":[)"
                              + CoreResources + R"(],"freshness":"Current"}]})");
    }
    return HttpResponse::json(
        200,
        R"({"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1:)"
            + QByteArray::number(port()) + R"("}]})");
}

HttpResponse FakeKubernetes::groups(const HttpRequest &request) const
{
    const QByteArray version = aggregatedVersion(request);
    if (!version.isEmpty())
        return aggregated(version, m_options.metricsApi ? metricsGroupJson(true) : QByteArray());
    return HttpResponse::json(200,
                              R"({"kind":"APIGroupList","apiVersion":"v1","groups":[)"
                                  + (m_options.metricsApi ? metricsGroupJson(false) : QByteArray()) + "]}");
}

HttpResponse FakeKubernetes::resourceList() const
{
    return HttpResponse::json(
        200,
        R"({"kind":"APIResourceList","groupVersion":"v1","resources":[)"
        R"({"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["create","delete","get","list","patch","update","watch"],"shortNames":["ns"]},)"
        R"({"name":"namespaces/status","singularName":"","namespaced":false,"kind":"Namespace","verbs":["get","patch","update"]},)"
        R"({"name":"persistentvolumeclaims","singularName":"persistentvolumeclaim","namespaced":true,"kind":"PersistentVolumeClaim","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["pvc"]},)"
        R"({"name":"persistentvolumeclaims/status","singularName":"","namespaced":true,"kind":"PersistentVolumeClaim","verbs":["get","patch","update"]},)"
        R"({"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["po"],"categories":["all"]},)"
        R"({"name":"pods/exec","singularName":"","namespaced":true,"kind":"PodExecOptions","verbs":["create","get"]},)"
        R"({"name":"pods/log","singularName":"","namespaced":true,"kind":"Pod","verbs":["get"]},)"
        R"({"name":"pods/status","singularName":"","namespaced":true,"kind":"Pod","verbs":["get","patch","update"]}]})");
}

HttpResponse FakeKubernetes::openApiRoot() const
{
    return HttpResponse::json(
        200, R"({"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=)" + m_openApiHash + R"("}}})");
}

HttpResponse FakeKubernetes::openApiDocument(const HttpRequest &request) const
{
    HttpResponse response = HttpResponse::json(200, m_openApiBytes);
    response.setHeader("Etag", '"' + m_openApiHash + '"');
    if (request.queryValue(u"hash"_s).value_or(QString()).toLatin1() == m_openApiHash) {
        response.setHeader("Cache-Control", "public, immutable");
        response.setHeader("Expires", QDateTime::currentDateTimeUtc().addYears(1).toString(Qt::RFC2822Date).toLatin1());
    }
    return response;
}

bool FakeKubernetes::wantsTable(const HttpRequest &request)
{
    for (const QByteArray &accept : request.headerValues("accept")) {
        for (const QByteArray &mediaType : accept.split(',')) {
            if (mediaType.contains("as=Table") && mediaType.contains("g=meta.k8s.io"))
                return true;
        }
    }
    return false;
}

QByteArray FakeKubernetes::tableRow(const Version &version, bool includeObject) const
{
    const QJsonObject &object = version.object;
    const QJsonObject metadata = object.value(u"metadata"_s).toObject();
    const QJsonObject spec = object.value(u"spec"_s).toObject();
    const QJsonObject status = object.value(u"status"_s).toObject();
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const std::optional<qint64> created = parseTimeNs(metadata.value(u"creationTimestamp"_s).toString());
    const QString age = created ? humanDuration(now - *created / 1'000'000) : u"<unknown>"_s;
    QJsonArray cells{version.name};
    switch (version.kind) {
    case Kind::Pod: {
        int ready = 0;
        int total = 0;
        int restarts = 0;
        qint64 lastRestart = 0;
        const QString text = podStatusText(object, &ready, &total, &restarts, &lastRestart);
        QString restartText = QString::number(restarts);
        if (lastRestart > 0)
            restartText += u" (%1 ago)"_s.arg(humanDuration(now - lastRestart));
        cells << u"%1/%2"_s.arg(ready).arg(total) << text << restartText << age
              << orNone(status.value(u"podIP"_s).toString()) << orNone(spec.value(u"nodeName"_s).toString())
              << orNone(status.value(u"nominatedNodeName"_s).toString()) << u"<none>"_s;
        break;
    }
    case Kind::Pvc: {
        QStringList modes;
        for (const QJsonValue &mode : status.value(u"accessModes"_s).toArray()) {
            const QString m = mode.toString();
            modes.append(m == u"ReadWriteOnce"_s          ? u"RWO"_s
                             : m == u"ReadOnlyMany"_s     ? u"ROX"_s
                             : m == u"ReadWriteMany"_s    ? u"RWX"_s
                             : m == u"ReadWriteOncePod"_s ? u"RWOP"_s
                                                          : m);
        }
        const QString phase =
            metadata.contains(u"deletionTimestamp"_s) ? u"Terminating"_s : status.value(u"phase"_s).toString();
        cells << phase << spec.value(u"volumeName"_s).toString()
              << status.value(u"capacity"_s).toObject().value(u"storage"_s).toString() << modes.join(u',')
              << spec.value(u"storageClassName"_s).toString() << u"<unset>"_s << age
              << spec.value(u"volumeMode"_s).toString();
        break;
    }
    case Kind::Namespace:
        cells << status.value(u"phase"_s).toString() << age;
        break;
    }
    QByteArray row = R"({"cells":)" + writeJson(cells);
    if (includeObject) {
        row += R"(,"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":)"
            + writeJson(metadata) + '}';
    }
    return row + '}';
}

QByteArray FakeKubernetes::tableJson(Kind kind, const std::vector<VersionPtr> &items, const QString &listMeta,
                                     bool includeObject) const
{
    QByteArray out = R"({"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":)" + listMeta.toUtf8()
        + R"(,"columnDefinitions":)" + columns(kind) + R"(,"rows":[)";
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0)
            out += ',';
        out += tableRow(*items[i], includeObject);
    }
    return out + "]}";
}

} // namespace PaddockFake::Kube
