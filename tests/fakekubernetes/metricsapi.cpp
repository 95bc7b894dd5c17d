// The metrics API (metrics.k8s.io/v1beta1) as metrics-server serves it through the API server's
// aggregation: PodMetrics of the Pods whose container runs, measured on the container's
// processes (every process in its sandbox's PID namespace, or with --no-bwrap its process and its
// children) and its execs' (nsenter's and theirs), with CPU in nanocores and memory in KiB as
// metrics-server writes them. See README.md, "Metrics API".

#include "fakekubernetes.h"
#include "kubejson.h"
#include "selectors.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

#include <cmath>

using namespace Qt::StringLiterals;

namespace PaddockFake::Kube {

namespace {

QString queryValue(const HttpRequest &request, const QString &name)
{
    return request.queryValue(name).value_or(QString());
}

QString rfc3339(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODate);
}

} // namespace

QByteArray FakeKubernetes::metricsGroupJson(bool aggregatedForm)
{
    if (aggregatedForm) {
        return R"({"metadata":{"name":"metrics.k8s.io","creationTimestamp":null},"versions":[{"version":"v1beta1","resources":[)"
               R"({"resource":"nodes","responseKind":{"group":"metrics.k8s.io","version":"v1beta1","kind":"NodeMetrics"},"scope":"Cluster","singularResource":"","verbs":["get","list"]},)"
               R"({"resource":"pods","responseKind":{"group":"metrics.k8s.io","version":"v1beta1","kind":"PodMetrics"},"scope":"Namespaced","singularResource":"","verbs":["get","list"]}],"freshness":"Current"}]})";
    }
    return R"({"name":"metrics.k8s.io","versions":[{"groupVersion":"metrics.k8s.io/v1beta1","version":"v1beta1"}],)"
           R"("preferredVersion":{"groupVersion":"metrics.k8s.io/v1beta1","version":"v1beta1"}})";
}

std::optional<QJsonObject> FakeKubernetes::podMetricsOf(const Version &pod)
{
    Entry *entry = find(Kind::Pod, pod.ns, pod.name);
    PodState *state = entry ? entry->pod : nullptr;
    if (!state || !state->containerStarted)
        return std::nullopt;
    QList<qint64> roots;
    if (state->sandbox && state->sandbox->initPid() > 0)
        roots.append(state->sandbox->initPid());
    else if (state->process && state->process->processId() > 0)
        roots.append(state->process->processId());
    if (roots.isEmpty())
        return std::nullopt; // the container is not running (now)
    // And its execs (nsenter and what it started in the sandbox).
    for (const QPointer<QObject> &session : std::as_const(state->execs)) {
        if (!session)
            continue;
        const QList<QProcess *> processes = session->findChildren<QProcess *>();
        for (const QProcess *process : processes) {
            if (process->processId() > 0)
                roots.append(process->processId());
        }
    }
    const auto [cores, resident] = m_cpu.measure(pod.key, roots);
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const QJsonObject metadata = pod.object.value(u"metadata"_s).toObject();
    QJsonObject meta{{u"name"_s, pod.name}, {u"namespace"_s, pod.ns}, {u"creationTimestamp"_s, rfc3339(now)}};
    if (metadata.contains(u"labels"_s))
        meta.insert(u"labels"_s, metadata.value(u"labels"_s));
    const QJsonArray containers = pod.object.value(u"spec"_s).toObject().value(u"containers"_s).toArray();
    const QString container =
        containers.isEmpty() ? u"main"_s : containers.first().toObject().value(u"name"_s).toString();
    const QString cpu = QString::number(std::llround(cores * 1e9)) + u'n';
    const QString memory = QString::number((resident + 1023) / 1024) + u"Ki"_s;
    const QJsonObject usage{{u"cpu"_s, cpu}, {u"memory"_s, memory}};
    return QJsonObject{{u"metadata"_s, meta},
                       {u"timestamp"_s, rfc3339(now)},
                       {u"window"_s, u"10.5s"_s},
                       {u"containers"_s, QJsonArray{QJsonObject{{u"name"_s, container}, {u"usage"_s, usage}}}}};
}

void FakeKubernetes::metricsRoute(HttpConnection *connection, const HttpRequest &request, const QStringList &segments)
{
    count(u"get"_s, u"metrics.k8s.io"_s);
    // /apis/metrics.k8s.io[/v1beta1[/namespaces/<ns>]/pods[/<name>]]
    if (request.method != "GET")
        return connection->send(HttpResponse::text(405, "405: Method Not Allowed"));
    if (segments.size() == 2)
        return connection->send(
            HttpResponse::json(200, R"({"kind":"APIGroup","apiVersion":"v1",)" + metricsGroupJson(false).mid(1)));
    if (segments.value(2) != u"v1beta1"_s)
        return connection->send(HttpResponse::text(404, "404 page not found"));
    if (segments.size() == 3) {
        return connection->send(HttpResponse::json(
            200,
            R"({"kind":"APIResourceList","apiVersion":"v1","groupVersion":"metrics.k8s.io/v1beta1","resources":[)"
            R"({"name":"nodes","singularName":"","namespaced":false,"kind":"NodeMetrics","verbs":["get","list"]},)"
            R"({"name":"pods","singularName":"","namespaced":true,"kind":"PodMetrics","verbs":["get","list"]}]})"));
    }
    QString ns;
    QString name;
    const QStringList rest = segments.mid(3);
    if (rest.size() >= 3 && rest.at(0) == u"namespaces"_s && rest.at(2) == u"pods"_s && rest.size() <= 4) {
        ns = rest.at(1);
        name = rest.value(3);
    } else if (rest.size() == 1 && rest.at(0) == u"pods"_s) {
        // every namespace
    } else if (rest.size() == 1 && rest.at(0) == u"nodes"_s) {
        return connection->send(HttpResponse::json(
            200, R"({"kind":"NodeMetricsList","apiVersion":"metrics.k8s.io/v1beta1","metadata":{},"items":[]})"));
    } else {
        return connection->send(HttpResponse::text(404, "404 page not found"));
    }
    if (!name.isEmpty()) {
        Entry *entry = find(Kind::Pod, ns, name);
        std::optional<QJsonObject> metrics = entry && entry->current ? podMetricsOf(*entry->current) : std::nullopt;
        if (!metrics) {
            StatusError error;
            error.code = 404;
            error.reason = u"NotFound"_s;
            error.message = u"podmetrics.metrics.k8s.io \"%1\" not found"_s.arg(name);
            error.name = name;
            error.group = u"metrics.k8s.io"_s;
            error.kind = u"pods"_s;
            return connection->send(error.response());
        }
        metrics->insert(u"kind"_s, u"PodMetrics"_s);
        metrics->insert(u"apiVersion"_s, u"metrics.k8s.io/v1beta1"_s);
        return connection->send(HttpResponse::json(200, QJsonDocument(*metrics).toJson(QJsonDocument::Compact)));
    }
    QString error;
    const std::optional<LabelSelector> labels = LabelSelector::parse(queryValue(request, u"labelSelector"_s), &error);
    if (!labels)
        return connection->send(badRequest(error).response());
    QJsonArray items;
    const auto pods = snapshot(Kind::Pod);
    for (const VersionPtr &pod : *pods) {
        if (!ns.isEmpty() && pod->ns != ns)
            continue;
        if (!labels->matches(pod->object.value(u"metadata"_s).toObject().value(u"labels"_s).toObject()))
            continue;
        if (auto metrics = podMetricsOf(*pod))
            items.append(*metrics);
    }
    const QJsonObject list{{u"kind"_s, u"PodMetricsList"_s},
                           {u"apiVersion"_s, u"metrics.k8s.io/v1beta1"_s},
                           {u"metadata"_s, QJsonObject{}},
                           {u"items"_s, items}};
    connection->send(HttpResponse::json(200, QJsonDocument(list).toJson(QJsonDocument::Compact)));
}

} // namespace PaddockFake::Kube
