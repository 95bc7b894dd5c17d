#include "poddetails.h"

#include "../../inspect/secretmask.h"
#include "../../tr.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace Paddock::Kubernetes {

namespace {

QDateTime timeOf(const QJsonValue &value)
{
    const QDateTime time = QDateTime::fromString(value.toString(), Qt::ISODateWithMs);
    return time.isValid() ? time.toUTC() : QDateTime();
}

QString utcText(const QDateTime &time)
{
    return time.toUTC().toString(Qt::ISODateWithMs);
}

// A quantity as the server wrote it (a string; a number only from a server that does not
// canonicalise).
QString quantityText(const QJsonValue &value)
{
    return value.isDouble() ? QString::number(value.toDouble()) : value.toString();
}

QList<std::pair<QString, QString>> quantities(const QJsonObject &object)
{
    QList<std::pair<QString, QString>> list;
    for (auto it = object.begin(); it != object.end(); ++it)
        list.append({it.key(), quantityText(it.value())});
    return list;
}

std::optional<ContainerTermination> terminationOf(const QJsonObject &state)
{
    if (!state.contains(QLatin1String("terminated")))
        return std::nullopt;
    const QJsonObject terminated = state.value(QLatin1String("terminated")).toObject();
    ContainerTermination termination;
    termination.reason = terminated.value(QLatin1String("reason")).toString();
    termination.message = terminated.value(QLatin1String("message")).toString();
    termination.exitCode = terminated.value(QLatin1String("exitCode")).toInt();
    termination.finishedAt = timeOf(terminated.value(QLatin1String("finishedAt")));
    return termination;
}

// The workspace container of a list of containers (or of their statuses), else the first.
QJsonObject ours(const QJsonArray &containers)
{
    for (const QJsonValue &container : containers) {
        if (container.toObject().value(QLatin1String("name")).toString() == ContainerName)
            return container.toObject();
    }
    return containers.isEmpty() ? QJsonObject() : containers.first().toObject();
}

QString terminationText(const ContainerTermination &termination)
{
    QString text = termination.reason.isEmpty()
        ? Tr::tr("exit code %1").arg(termination.exitCode)
        : Tr::tr("%1, exit code %2").arg(termination.reason).arg(termination.exitCode);
    if (termination.finishedAt.isValid())
        text += QStringLiteral(", ") + utcText(termination.finishedAt);
    return text;
}

} // namespace

Result<PodDetails> parsePodDetails(const QByteArray &json)
{
    auto view = parsePod(json);
    if (!view)
        return fail(view.error());
    PodDetails details;
    details.view = std::move(*view);
    // parsePod took it as a JSON object: this reads the same bytes.
    const QJsonObject pod = QJsonDocument::fromJson(json).object();
    const QJsonObject spec = pod.value(QLatin1String("spec")).toObject();
    const QJsonObject status = pod.value(QLatin1String("status")).toObject();
    details.reason = status.value(QLatin1String("reason")).toString();
    details.message = status.value(QLatin1String("message")).toString();
    details.nodeName = spec.value(QLatin1String("nodeName")).toString();
    details.podIp = status.value(QLatin1String("podIP")).toString();
    details.qosClass = status.value(QLatin1String("qosClass")).toString();
    details.startTime = timeOf(status.value(QLatin1String("startTime")));

    const QJsonObject container = ours(spec.value(QLatin1String("containers")).toArray());
    const QJsonObject resources = container.value(QLatin1String("resources")).toObject();
    details.requests = quantities(resources.value(QLatin1String("requests")).toObject());
    details.limits = quantities(resources.value(QLatin1String("limits")).toObject());
    for (const QJsonValue &port : container.value(QLatin1String("ports")).toArray()) {
        const int number = port.toObject().value(QLatin1String("containerPort")).toInt();
        if (number > 0)
            details.ports.append(number);
    }

    const QJsonObject containerStatus = ours(status.value(QLatin1String("containerStatuses")).toArray());
    details.containerId = containerStatus.value(QLatin1String("containerID")).toString();
    const QJsonObject state = containerStatus.value(QLatin1String("state")).toObject();
    details.runningSince = timeOf(state.value(QLatin1String("running")).toObject().value(QLatin1String("startedAt")));
    details.terminated = terminationOf(state);
    details.lastTerminated = terminationOf(containerStatus.value(QLatin1String("lastState")).toObject());
    return details;
}

SandboxDetails workspaceDetails(SandboxInfo sandbox, const std::optional<PodDetails> &pod,
                                const std::optional<PvcView> &pvc, const QString &ns, const QUrl &server)
{
    SandboxDetails details;
    details.sandbox = std::move(sandbox);

    // Why it is as it is: the Pod's own reason (an eviction), else the kubelet's for a container
    // that waits, else the scheduler's, else how the container ended; the server's words.
    if (!pod) {
        details.stateMessage = Tr::tr("closed: the Pod was deleted and the PVC keeps the workspace's files; Resume "
                                      "makes the Pod again");
    } else if (!pod->reason.isEmpty() || !pod->message.isEmpty()) {
        details.stateReason = pod->reason;
        details.stateMessage = pod->message;
    } else if (!pod->view.waitingReason.isEmpty()) {
        details.stateReason = pod->view.waitingReason;
        details.stateMessage = pod->view.waitingMessage;
    } else if (pod->view.hasUnschedulable && pod->view.phase == QLatin1String("Pending")) {
        details.stateReason = QStringLiteral("Unschedulable");
        details.stateMessage = pod->view.unschedulableMessage;
    } else if (pod->terminated) {
        details.stateReason = pod->terminated->reason;
        details.stateMessage = pod->terminated->message;
    }

    if (pod) {
        for (const auto &[resource, quantity] : pod->requests)
            details.resources.append({QStringLiteral("requests.") + resource, quantity});
        for (const auto &[resource, quantity] : pod->limits)
            details.resources.append({QStringLiteral("limits.") + resource, quantity});
    }

    details.endpoints.append({Tr::tr("API server"), Inspect::maskUrl(server.toString(QUrl::RemoveUserInfo))});
    if (pod && !pod->podIp.isEmpty()) {
        const QString host = pod->podIp.contains(u':') ? u'[' + pod->podIp + u']' : pod->podIp;
        for (const int port : pod->ports)
            details.endpoints.append(
                {Tr::tr("port %1 (in the cluster)").arg(port), host + u':' + QString::number(port)});
    }

    details.facts.append({Tr::tr("Namespace"), ns});
    if (pod) {
        if (!pod->nodeName.isEmpty())
            details.facts.append({Tr::tr("Node"), pod->nodeName});
        if (!pod->podIp.isEmpty())
            details.facts.append({Tr::tr("Pod IP"), pod->podIp});
        if (!pod->qosClass.isEmpty())
            details.facts.append({Tr::tr("QoS class"), pod->qosClass});
        if (pod->startTime.isValid())
            details.facts.append({Tr::tr("Started"), utcText(pod->startTime)});
        if (!pod->containerId.isEmpty())
            details.facts.append({Tr::tr("Container"), pod->containerId});
        details.facts.append({Tr::tr("Restarts"), QString::number(pod->view.restartCount)});
        if (pod->terminated)
            details.facts.append({Tr::tr("Terminated"), terminationText(*pod->terminated)});
        if (pod->lastTerminated)
            details.facts.append({Tr::tr("Last termination"), terminationText(*pod->lastTerminated)});
        if (pod->view.deletionTimestamp)
            details.facts.append({Tr::tr("Deletion requested"), utcText(*pod->view.deletionTimestamp)});
    }
    if (pvc) {
        details.facts.append({Tr::tr("PVC"), pvc->name});
        if (!pvc->phase.isEmpty())
            details.facts.append({Tr::tr("PVC phase"), pvc->phase});
        if (!pvc->capacity.isEmpty())
            details.facts.append({Tr::tr("Capacity"), pvc->capacity});
        if (!pvc->storageClass.isEmpty())
            details.facts.append({Tr::tr("Storage class"), pvc->storageClass});
    } else {
        details.facts.append({Tr::tr("PVC"), Tr::tr("none")});
    }
    return details;
}

} // namespace Paddock::Kubernetes
