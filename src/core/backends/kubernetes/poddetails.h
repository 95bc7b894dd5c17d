#pragma once

// What one Pod says beyond PodView, for the inspector's overview (Backend::details). Read apart
// from the listing's simdjson reading (kubeparse.cpp), which stays as lean as it is: a single Pod
// is parsed twice here (parsePod for the view, QJsonDocument for the rest), a few microseconds.

#include "../../result.h"
#include "../../sandbox.h"
#include "kubeobjects.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QString>
#include <QUrl>

#include <optional>
#include <utility>

namespace Paddock::Kubernetes {

// A container's state.terminated (or lastState.terminated).
struct ContainerTermination
{
    QString reason;
    QString message;
    int exitCode = 0;
    QDateTime finishedAt;
};

struct PodDetails
{
    PodView view; // exactly as parsePod reads it
    QString reason; // status.reason (Evicted, NodeLost...)
    QString message; // status.message
    QString nodeName;
    QString podIp;
    QString qosClass;
    QDateTime startTime; // status.startTime
    // Of the workspace container (else the first): spec resources, in the server's order, and its
    // container ports.
    QList<std::pair<QString, QString>> requests;
    QList<std::pair<QString, QString>> limits;
    QList<int> ports;
    // Its status: the runtime's container id, when it started running, and how it ended (now and
    // last time).
    QString containerId;
    QDateTime runningSince;
    std::optional<ContainerTermination> terminated;
    std::optional<ContainerTermination> lastTerminated;
};

// A single Pod's body (a GET). Neither env nor anything else of the spec than resources and
// ports is read.
Result<PodDetails> parsePodDetails(const QByteArray &json);

// The overview of a workspace: `sandbox` as workspaceState() made it of this Pod and PVC, the
// kubelet's or the scheduler's reason and message (or Paddock's words for a closed workspace),
// the workspace container's requests and limits, what reaches it (the API server, the Pod's
// ports inside the cluster) and the facts: namespace, node, Pod IP, QoS class, start, container
// id, restarts, the last termination, the PVC, its phase, capacity and storage class.
SandboxDetails workspaceDetails(SandboxInfo sandbox, const std::optional<PodDetails> &pod,
                                const std::optional<PvcView> &pvc, const QString &ns, const QUrl &server);

} // namespace Paddock::Kubernetes
