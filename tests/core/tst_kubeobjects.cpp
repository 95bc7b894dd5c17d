// The Kubernetes backend's objects as AgentScope makes them: names (the reference's vectors),
// label rules, the PVC and Pod manifests, reading Pods, PVCs, lists and watch events, and what
// their state means for a workspace.

#include "backends/kubernetes/kubeclient.h"
#include "backends/kubernetes/kubeobjects.h"
#include "backends/kubernetes/poddetails.h"

#include <QJsonDocument>
#include <QTest>

using namespace Paddock;
using namespace Paddock::Kubernetes;

namespace {

QByteArray json(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QJsonObject parse(const QByteArray &text)
{
    return QJsonDocument::fromJson(text).object();
}

// A Pod as the API server returns it, in the given phase.
QByteArray podJson(const QString &phase, const QString &extraStatus = {}, const QString &extraMeta = {})
{
    return QStringLiteral(R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"as-ws-0123456789abcdef",)"
                          R"("namespace":"agentscope","uid":"u1","resourceVersion":"48213",)"
                          R"("creationTimestamp":"2026-12-01T10:00:00Z",)"
                          R"("labels":{"agentscope.workspace":"true","agentscope.workspace.id":"0123456789abcdef",)"
                          R"("app.kubernetes.io/managed-by":"agentscope"}%3},)"
                          R"("spec":{"terminationGracePeriodSeconds":30,"containers":[{"name":"workspace",)"
                          R"("image":"python:3.11-slim"}]},"status":{"phase":"%1"%2}})")
        .arg(phase, extraStatus, extraMeta)
        .toUtf8();
}

} // namespace

class TestKubeObjects final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void namesFollowAgentScope_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<QString>("name");
        QTest::newRow("hex") << u"0123456789abcdef"_qs << u"as-ws-0123456789abcdef"_qs;
        QTest::newRow("mixed") << u"My_Workspace.ID"_qs << u"as-ws-my-workspace-id"_qs;
        QTest::newRow("punctuation") << u"team/alice:agent#1"_qs << u"as-ws-team-alice-agent-1"_qs;
        QTest::newRow("trailing dash") << u"abc-"_qs << u"as-ws-abc"_qs;
        QTest::newRow("empty") << QString() << u"as-ws"_qs;
        QTest::newRow("dashes") << u"-x-"_qs << u"as-ws--x"_qs;
        QTest::newRow("70 x") << QString(70, u'x') << (u"as-ws-"_qs + QString(57, u'x'));
        QTest::newRow("cut on a dash") << (QString(56, u'a') + u"-b"_qs + QString(10, u'c'))
                                       << (u"as-ws-"_qs + QString(56, u'a'));
        QTest::newRow("dotted capital I") << QStringLiteral("\u0130x") << u"as-ws-i-x"_qs;
        QTest::newRow("Kelvin sign") << QStringLiteral("\u212Aelvin") << u"as-ws-kelvin"_qs;
        QTest::newRow("sharp s") << QStringLiteral("Stra\u00DFe") << u"as-ws-stra-e"_qs;
        QTest::newRow("CJK") << QStringLiteral("\u65E5\u672C\u8A9E") << u"as-ws"_qs;
        QTest::newRow("astral") << QStringLiteral("a\U0001F600b") << u"as-ws-a-b"_qs; // one code point, one '-'
        QTest::newRow("A-B") << u"A-B"_qs << u"as-ws-a-b"_qs;
        QTest::newRow("a_b") << u"a_b"_qs << u"as-ws-a-b"_qs;
    }
    void namesFollowAgentScope()
    {
        QFETCH(QString, id);
        QFETCH(QString, name);
        QCOMPARE(safeName(id), name);
        QVERIFY(safeName(id).size() <= 63);
    }

    void labelValues_data()
    {
        QTest::addColumn<QString>("value");
        QTest::addColumn<bool>("valid");
        QTest::newRow("empty") << QString() << true;
        QTest::newRow("hex32") << u"0123456789abcdef0123456789abcdef"_qs << true;
        QTest::newRow("dots and underscores") << u"a.b_c-d"_qs << true;
        QTest::newRow("slash") << u"team/alice"_qs << false;
        QTest::newRow("trailing dash") << u"abc-"_qs << false;
        QTest::newRow("leading dot") << u".abc"_qs << false;
        QTest::newRow("63") << QString(63, u'a') << true;
        QTest::newRow("64") << QString(64, u'a') << false;
        QTest::newRow("non-ASCII") << QStringLiteral("caf\u00E9") << false;
    }
    void labelValues()
    {
        QFETCH(QString, value);
        QFETCH(bool, valid);
        QCOMPARE(isValidLabelValue(value), valid);
    }

    // Defect 1 of the reference: an id that cannot be a label value is refused before any
    // request, with a message that says why.
    void anIdThatIsNoLabelValueIsRefused()
    {
        QVERIFY(checkWorkspaceId(u"0123456789abcdef"_qs));
        const auto refused = checkWorkspaceId(u"team/alice"_qs);
        QVERIFY(!refused);
        QCOMPARE(refused.error().kind, Error::Kind::InvalidArgument);
        QVERIFY(refused.error().message.contains(u"team/alice"_qs));
        QVERIFY(refused.error().message.contains(u"agentscope.workspace.id"_qs));
        QVERIFY(!checkWorkspaceId(QString()));
    }

    // Byte for byte the manifests of §1.3 (field order aside), with the owner in annotations only.
    void manifestsAreAgentScopes()
    {
        PodSettings settings;
        settings.gatewayHomeOnVolume = false;
        const QJsonObject pvc = pvcManifest(u"0123456789abcdef"_qs, u"agentscope"_qs, settings, {});
        QCOMPARE(
            pvc,
            parse(
                R"({"apiVersion":"v1","kind":"PersistentVolumeClaim",)"
                R"("metadata":{"name":"as-ws-0123456789abcdef","namespace":"agentscope",)"
                R"("labels":{"app.kubernetes.io/managed-by":"agentscope","agentscope.workspace.id":"0123456789abcdef"}},)"
                R"("spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}})"));
        const QJsonObject pod = podManifest(u"0123456789abcdef"_qs, u"agentscope"_qs, settings, {});
        QCOMPARE(
            pod,
            parse(
                R"({"apiVersion":"v1","kind":"Pod",)"
                R"("metadata":{"name":"as-ws-0123456789abcdef","namespace":"agentscope",)"
                R"("labels":{"app.kubernetes.io/managed-by":"agentscope","agentscope.workspace":"true",)"
                R"("agentscope.workspace.id":"0123456789abcdef"}},)"
                R"("spec":{"restartPolicy":"OnFailure",)"
                R"("containers":[{"name":"workspace","image":"python:3.11-slim","imagePullPolicy":"IfNotPresent",)"
                R"("command":["sleep","infinity"],"workingDir":"/workspace","ports":[{"containerPort":5600}],)"
                R"("volumeMounts":[{"name":"workspace-data","mountPath":"/workspace"}]}],)"
                R"("volumes":[{"name":"workspace-data","persistentVolumeClaim":{"claimName":"as-ws-0123456789abcdef"}}]}})"));
    }

    void manifestsCarryWhatIsConfiguredAndTheOwner()
    {
        PodSettings settings;
        settings.storageClass = u"fast"_qs;
        settings.storageSize = u"5Gi"_qs;
        settings.serviceAccount = u"agent"_qs;
        settings.imagePullSecrets = {u"regcred"_qs};
        settings.nodeSelector = {{u"pool"_qs, u"agents"_qs}};
        settings.env = {{u"A"_qs, u"1"_qs}};
        const Owner owner{u"alice"_qs, u"helper"_qs, {}};
        const QJsonObject pvc = pvcManifest(u"w1"_qs, u"ns1"_qs, settings, owner);
        QCOMPARE(pvc[u"spec"_qs][u"storageClassName"_qs].toString(), u"fast"_qs);
        QCOMPARE(pvc[u"spec"_qs][u"resources"_qs][u"requests"_qs][u"storage"_qs].toString(), u"5Gi"_qs);
        QCOMPARE(pvc[u"metadata"_qs][u"annotations"_qs][u"agentscope.user.id"_qs].toString(), u"alice"_qs);
        // The three labels stay exactly AgentScope's: owners never become labels.
        const QJsonObject pod = podManifest(u"w1"_qs, u"ns1"_qs, settings, owner);
        QCOMPARE(pod[u"metadata"_qs][u"labels"_qs].toObject().size(), 3);
        QCOMPARE(pod[u"metadata"_qs][u"annotations"_qs][u"agentscope.agent.id"_qs].toString(), u"helper"_qs);
        QCOMPARE(pod[u"metadata"_qs][u"namespace"_qs].toString(), u"ns1"_qs);
        const QJsonObject spec = pod[u"spec"_qs].toObject();
        QCOMPARE(spec[u"serviceAccountName"_qs].toString(), u"agent"_qs);
        QCOMPARE(spec[u"imagePullSecrets"_qs].toArray().first()[u"name"_qs].toString(), u"regcred"_qs);
        QCOMPARE(spec[u"nodeSelector"_qs][u"pool"_qs].toString(), u"agents"_qs);
        const QJsonObject container = spec[u"containers"_qs].toArray().first().toObject();
        QCOMPARE(container[u"env"_qs].toArray().first()[u"value"_qs].toString(), u"1"_qs);
        // Defect 2: the gateway home lives on the PVC too, so the bootstrap survives the Pod.
        const QJsonArray mounts = container[u"volumeMounts"_qs].toArray();
        QCOMPARE(mounts.size(), 2);
        QCOMPARE(mounts.at(0)[u"mountPath"_qs].toString(), u"/workspace"_qs);
        QCOMPARE(mounts.at(1)[u"mountPath"_qs].toString(), u"/root/.agentscope"_qs);
        QCOMPARE(mounts.at(1)[u"subPath"_qs].toString(), u".agentscope"_qs);
        QCOMPARE(mounts.at(1)[u"name"_qs].toString(), u"workspace-data"_qs);
        QVERIFY(parsePod(json(pod))->mountsGatewayHome);
    }

    void aRunningPodIsRunning()
    {
        const auto pod = parsePod(podJson(u"Running"_qs));
        QVERIFY(pod);
        QCOMPARE(pod->name, u"as-ws-0123456789abcdef"_qs);
        QCOMPARE(pod->workspaceId(), u"0123456789abcdef"_qs);
        QCOMPARE(pod->resourceVersion, u"48213"_qs);
        QCOMPARE(pod->image, u"python:3.11-slim"_qs);
        const auto info = workspaceState(*pod, std::nullopt, u"agentscope"_qs, std::chrono::seconds(30),
                                         QDateTime::currentDateTimeUtc());
        QVERIFY(info);
        QCOMPARE(info->state, SandboxState::Running);
        QCOMPARE(info->sandboxId, u"as-ws-0123456789abcdef"_qs);
        QCOMPARE(info->workspaceId, u"0123456789abcdef"_qs);
        QCOMPARE(info->backend, u"kubernetes"_qs);
        QVERIFY(info->userId.isEmpty()); // AgentScope records none: the console groups it as unknown
        QCOMPARE(info->createdAt, QDateTime(QDate(2026, 12, 1), QTime(10, 0), Qt::UTC));
    }

    void statesAUserUnderstands()
    {
        const QDateTime now = QDateTime::currentDateTimeUtc();
        const auto state = [&](const QByteArray &podText, bool withPvc) {
            std::optional<PodView> pod;
            if (!podText.isEmpty())
                pod = *parsePod(podText);
            std::optional<PvcView> pvc;
            if (withPvc)
                pvc = *parsePvc(R"({"metadata":{"name":"as-ws-0123456789abcdef","resourceVersion":"1",)"
                                R"("labels":{"agentscope.workspace.id":"0123456789abcdef"},)"
                                R"("annotations":{"agentscope.user.id":"alice"}},"status":{"phase":"Bound"}})");
            return workspaceState(pod, pvc, u"agentscope"_qs, std::chrono::seconds(30), now);
        };
        // Closed by AgentScope (Pod deleted, PVC kept): paused, which this backend calls Stopped.
        auto closed = state({}, true);
        QCOMPARE(closed->state, SandboxState::Paused);
        QCOMPARE(closed->rawState, u"Stopped"_qs);
        QCOMPARE(closed->userId, u"alice"_qs); // from the PVC's annotation
        QVERIFY(!state({}, false));
        auto pulling = state(
            podJson(
                u"Pending"_qs,
                QString::fromUtf8(
                    R"(,"containerStatuses":[{"name":"workspace","state":{"waiting":{"reason":"ContainerCreating"}}}])")),
            true);
        QCOMPARE(pulling->state, SandboxState::Pending);
        QCOMPARE(pulling->rawState, u"Pending: ContainerCreating"_qs);
        auto stuck = state(
            podJson(
                u"Pending"_qs,
                QString::fromUtf8(
                    R"(,"containerStatuses":[{"name":"workspace","state":{"waiting":{"reason":"ImagePullBackOff","message":"Back-off pulling image nope:missing"}}}])")),
            true);
        QCOMPARE(stuck->state, SandboxState::Failed);
        QCOMPARE(stuck->rawState, u"ImagePullBackOff: Back-off pulling image nope:missing"_qs);
        QCOMPARE(state(podJson(u"Failed"_qs), true)->state, SandboxState::Failed);
        QCOMPARE(state(podJson(u"Unknown"_qs), true)->state, SandboxState::Failed);
        auto terminating = state(
            podJson(u"Running"_qs, {}, QString::fromUtf8(R"(,"deletionTimestamp":"2026-12-01T11:00:30Z")")), true);
        QCOMPARE(terminating->state, SandboxState::Stopping);
        // Defect 3: Unschedulable is only starting for a while (the PVC may be being bound).
        const QString since = now.addSecs(-5).toString(Qt::ISODate);
        const QString longAgo = now.addSecs(-300).toString(Qt::ISODate);
        const QString unschedulable = QString::fromUtf8(
            R"(,"conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable","message":"0/3 nodes are available","lastTransitionTime":"%1"}])");
        auto waiting = state(podJson(u"Pending"_qs, unschedulable.arg(since)), true);
        QCOMPARE(waiting->state, SandboxState::Pending);
        QVERIFY(waiting->rawState.contains(u"0/3 nodes are available"_qs));
        auto unscheduled = state(podJson(u"Pending"_qs, unschedulable.arg(longAgo)), true);
        QCOMPARE(unscheduled->state, SandboxState::Failed);
        QCOMPARE(unscheduled->rawState, u"Unschedulable: 0/3 nodes are available"_qs);
    }

    void stuckReasonsAreTheFourOfAgentScope_data()
    {
        QTest::addColumn<QString>("reason");
        QTest::addColumn<bool>("stuck");
        QTest::newRow("ImagePullBackOff") << u"ImagePullBackOff"_qs << true;
        QTest::newRow("ErrImagePull") << u"ErrImagePull"_qs << true;
        QTest::newRow("InvalidImageName") << u"InvalidImageName"_qs << true;
        QTest::newRow("CrashLoopBackOff") << u"CrashLoopBackOff"_qs << true;
        QTest::newRow("ContainerCreating") << u"ContainerCreating"_qs << false;
        QTest::newRow("PodInitializing") << u"PodInitializing"_qs << false;
    }
    void stuckReasonsAreTheFourOfAgentScope()
    {
        QFETCH(QString, reason);
        QFETCH(bool, stuck);
        const auto pod = parsePod(podJson(
            u"Pending"_qs,
            QString::fromUtf8(R"(,"containerStatuses":[{"name":"workspace","state":{"waiting":{"reason":"%1"}}}])")
                .arg(reason)));
        QCOMPARE(stuckMessage(*pod).has_value(), stuck);
        if (stuck)
            QCOMPARE(*stuckMessage(*pod), reason); // no message from the kubelet: its reason
    }

    // A single Pod read for the overview: the view exactly as parsePod reads it, the rest apart
    // (node, IP, QoS, the workspace container's resources, ports and how it ended); never env.
    void podDetailsForTheOverview()
    {
        const QByteArray pod =
            R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"as-ws-w1","namespace":"agentscope",
 "uid":"u1","creationTimestamp":"2026-12-01T10:00:00Z","labels":{"agentscope.workspace.id":"w1"}},
 "spec":{"nodeName":"node-7","containers":[
   {"name":"sidecar","image":"envoy","resources":{"limits":{"cpu":"9"}},"ports":[{"containerPort":9901}]},
   {"name":"workspace","image":"python:3.11-slim","env":[{"name":"OPENAI_API_KEY","value":"sample-secret-env"}],
    "resources":{"requests":{"cpu":"250m","memory":"1Gi"},"limits":{"memory":"2Gi"}},
    "ports":[{"containerPort":5600,"protocol":"TCP"}]}]},
 "status":{"phase":"Failed","reason":"Evicted","message":"The node was low on resource: memory.",
  "podIP":"fd00::7","qosClass":"Burstable","startTime":"2026-12-01T10:00:01Z",
  "containerStatuses":[
   {"name":"sidecar","restartCount":0,"state":{"running":{"startedAt":"2026-12-01T10:00:02Z"}}},
   {"name":"workspace","restartCount":2,"containerID":"containerd:\/\/abc",
    "state":{"terminated":{"reason":"Error","message":"boom","exitCode":137,"finishedAt":"2026-12-01T11:00:00Z"}},
    "lastState":{"terminated":{"reason":"OOMKilled","exitCode":137,"finishedAt":"2026-12-01T10:30:00Z"}}}]}})";
        const auto read = parsePodDetails(pod);
        QVERIFY(read);
        const auto view = parsePod(pod);
        QVERIFY(view);
        QCOMPARE(read->view.name, view->name);
        QCOMPARE(read->view.restartCount, 2);
        QCOMPARE(read->view.terminatedReason, view->terminatedReason);
        QCOMPARE(read->nodeName, QStringLiteral("node-7"));
        QCOMPARE(read->containerId, QStringLiteral("containerd://abc"));
        QCOMPARE(read->ports, QList<int>{5600});
        QVERIFY(read->terminated && read->lastTerminated);
        QCOMPARE(read->lastTerminated->reason, QStringLiteral("OOMKilled"));

        PvcView claim;
        claim.name = QStringLiteral("as-ws-w1");
        claim.phase = QStringLiteral("Bound");
        claim.capacity = QStringLiteral("1Gi");
        const SandboxInfo info = *workspaceState(read->view, claim, QStringLiteral("agentscope"),
                                                 std::chrono::seconds(30), QDateTime::currentDateTimeUtc());
        const SandboxDetails details = workspaceDetails(info, *read, claim, QStringLiteral("agentscope"),
                                                        QUrl(QStringLiteral("https://k8s.example:6443")));
        QCOMPARE(details.sandbox.fingerprint, info.fingerprint);
        // The Pod's own reason (an eviction) before the container's.
        QCOMPARE(details.stateReason, QStringLiteral("Evicted"));
        QCOMPARE(details.stateMessage, QStringLiteral("The node was low on resource: memory."));
        QCOMPARE(details.resources,
                 (QList<std::pair<QString, QString>>{{QStringLiteral("requests.cpu"), QStringLiteral("250m")},
                                                     {QStringLiteral("requests.memory"), QStringLiteral("1Gi")},
                                                     {QStringLiteral("limits.memory"), QStringLiteral("2Gi")}}));
        QCOMPARE(details.endpoints,
                 (QList<std::pair<QString, QString>>{
                     {QStringLiteral("API server"), QStringLiteral("https://k8s.example:6443")},
                     {QStringLiteral("port 5600 (in the cluster)"), QStringLiteral("[fd00::7]:5600")}}));
        QHash<QString, QString> facts;
        for (const auto &[label, value] : details.facts)
            facts.insert(label, value);
        QCOMPARE(facts.value(QStringLiteral("Terminated")),
                 QStringLiteral("Error, exit code 137, 2026-12-01T11:00:00.000Z"));
        QCOMPARE(facts.value(QStringLiteral("Last termination")),
                 QStringLiteral("OOMKilled, exit code 137, 2026-12-01T10:30:00.000Z"));
        QCOMPARE(facts.value(QStringLiteral("Restarts")), QStringLiteral("2"));
        QCOMPARE(facts.value(QStringLiteral("QoS class")), QStringLiteral("Burstable"));
        QCOMPARE(facts.value(QStringLiteral("Capacity")), QStringLiteral("1Gi"));
        for (const auto &pairs : {details.resources, details.endpoints, details.facts}) {
            for (const auto &[label, value] : pairs)
                QVERIFY2(!value.contains(QLatin1String("sample-secret")), qPrintable(value));
        }

        // Without the eviction: the container's end; a waiting one's reason wins over that.
        QByteArray ended = pod;
        ended.replace(R"("reason":"Evicted","message":"The node was low on resource: memory.",)", "");
        const auto endedRead = parsePodDetails(ended);
        QVERIFY(endedRead);
        const SandboxDetails endedDetails =
            workspaceDetails(info, *endedRead, claim, QStringLiteral("agentscope"), QUrl());
        QCOMPARE(endedDetails.stateReason, QStringLiteral("Error"));
        QCOMPARE(endedDetails.stateMessage, QStringLiteral("boom"));

        // No Pod (a closed workspace): Paddock's words, the PVC's facts, no resources.
        const SandboxDetails closed = workspaceDetails(info, std::nullopt, claim, QStringLiteral("agentscope"), QUrl());
        QVERIFY(closed.stateReason.isEmpty());
        QVERIFY(!closed.stateMessage.isEmpty());
        QVERIFY(closed.resources.isEmpty());
        QVERIFY(!parsePodDetails("not json"));
    }

    void listsAndWatchEvents()
    {
        const QByteArray list = QByteArray(
            R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"48290","continue":"abc"},"items":[)"
            + podJson(u"Running"_qs) + "]}");
        const auto page = parsePodList(list);
        QVERIFY(page);
        QCOMPARE(page->items.size(), 1);
        QCOMPARE(page->resourceVersion, u"48290"_qs);
        QCOMPARE(page->continueToken, u"abc"_qs);
        QVERIFY(!parsePodList("<html>proxy error</html>"));

        const QByteArray addedLine = R"({"type":"ADDED","object":)" + podJson(u"Pending"_qs) + "}";
        auto added = parseWatchEvent(addedLine, ObjectKind::Pod);
        QCOMPARE(added->type, WatchEvent::Type::Added);
        QCOMPARE(added->pod->phase, u"Pending"_qs);
        QCOMPARE(added->resourceVersion, u"48213"_qs);
        auto bookmark = parseWatchEvent(
            R"({"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"48400"}}})",
            ObjectKind::Pod);
        QCOMPARE(bookmark->type, WatchEvent::Type::Bookmark);
        QCOMPARE(bookmark->resourceVersion, u"48400"_qs);
        QVERIFY(!bookmark->pod);
        auto expired = parseWatchEvent(
            R"x({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 48290 (48350)","reason":"Expired","code":410}})x",
            ObjectKind::Pod);
        QCOMPARE(expired->type, WatchEvent::Type::Error);
        QCOMPARE(expired->errorCode, 410);
        QCOMPARE(expired->errorReason, u"Expired"_qs);
    }

    // The reader (simdjson On Demand, field by field) assumes no order of members, skips what it
    // does not read however deep, decodes escapes, reads a value of another type as absent, and
    // refuses what is not whole JSON.
    void podsAreReadInAnyOrderAndShape()
    {
        const QByteArray shuffled = QByteArrayLiteral(
            R"({"status":{"containerStatuses":[{"state":{"waiting":{"message":"pulling","reason":"ErrImagePull"}},)"
            R"("restartCount":2,"name":"workspace"}],"conditions":[{"lastTransitionTime":"2026-12-01T10:00:05+01:00",)"
            R"("message":"0/3 nodes are available","reason":"Unschedulable","status":"False","type":"PodScheduled"}],)"
            R"("phase":"Pending"},"extra":{"deep":[[{"a":[1,2,{"b":null}]}],)"
            "\"x\\\"y\"]},"
            R"("spec":{"containers":[{"image":"sidecar:1","name":"sidecar"},)"
            R"({"volumeMounts":[{"mountPath":"/root/.agentscope","name":"ws"}],"image":"python:3.11-slim","name":"workspace"}],)"
            R"("terminationGracePeriodSeconds":5},)"
            "\"metadata\":{\"labels\":{\"agentscope.workspace.id\":\"caf\\u00e9\",\"k\\\"ey\":\"v\\\\1\"},"
            R"("annotations":null,)"
            R"("deletionTimestamp":"2026-12-01T11:00:30.250Z","deletionGracePeriodSeconds":"thirty",)"
            R"("creationTimestamp":"2026-12-01T10:00:00Z","name":"as-ws-caf"},"kind":"Pod"})");
        const auto pod = parsePod(shuffled);
        QVERIFY(pod);
        QCOMPARE(pod->name, u"as-ws-caf"_qs);
        QCOMPARE(pod->workspaceId(), QStringLiteral("caf\u00e9"));
        QCOMPARE(pod->labels.value(QStringLiteral("k\"ey")), QStringLiteral("v\\1"));
        QVERIFY(pod->annotations.isEmpty());
        QCOMPARE(pod->phase, u"Pending"_qs);
        QCOMPARE(pod->image, u"python:3.11-slim"_qs); // the workspace container's, though listed second
        QVERIFY(pod->mountsGatewayHome);
        QCOMPARE(pod->terminationGracePeriodSeconds, 5);
        QCOMPARE(pod->deletionGracePeriodSeconds, 0); // not a number: absent
        QCOMPARE(pod->createdAt, QDateTime(QDate(2026, 12, 1), QTime(10, 0), Qt::UTC));
        QCOMPARE(pod->deletionTimestamp, QDateTime(QDate(2026, 12, 1), QTime(11, 0, 30, 250), Qt::UTC));
        QVERIFY(pod->hasUnschedulable);
        QCOMPARE(pod->unschedulableMessage, u"0/3 nodes are available"_qs);
        QCOMPARE(pod->unschedulableSince, QDateTime(QDate(2026, 12, 1), QTime(9, 0, 5), Qt::UTC));
        QCOMPARE(pod->waitingReason, u"ErrImagePull"_qs);
        QCOMPARE(pod->waitingMessage, u"pulling"_qs);
        QCOMPARE(pod->restartCount, 2);
        QCOMPARE(stuckMessage(*pod), u"ErrImagePull: pulling"_qs);

        // Only the workspace container mounting the gateway home counts; a bad time is no time.
        const auto sidecarOnly = parsePod(QByteArrayLiteral(
            R"({"metadata":{"name":"p","creationTimestamp":"2026-13-01T10:00:00Z"},"spec":{"containers":)"
            R"([{"name":"sidecar","image":"s:1","volumeMounts":[{"mountPath":"/root/.agentscope"}]}]}})"));
        QVERIFY(sidecarOnly);
        QVERIFY(!sidecarOnly->mountsGatewayHome);
        QCOMPARE(sidecarOnly->image, u"s:1"_qs); // no workspace container: the first one's
        QVERIFY(!sidecarOnly->createdAt.isValid());

        // Not whole JSON: refused, with the same message as any answer that is not a Pod.
        const QByteArray whole = podJson(u"Running"_qs);
        const auto truncated = parsePod(whole.left(whole.size() / 2));
        QVERIFY(!truncated);
        QVERIFY(truncated.error().message.contains(u"not a JSON Pod"_qs));
        QVERIFY(!parsePod("[1,2]"));
        QVERIFY(!parsePod(""));
        QVERIFY(!parsePodList(QByteArray(R"({"metadata":{},"items":[)" + whole + ",")));
        QVERIFY(!parsePvcList(R"({"items":[{"metadata":{"name":"x"}})"));
        // Nor is an object followed by more than whitespace (tests/fuzz/corpus/fuzz_kubelist).
        QVERIFY(!parsePod("{}}"));
        QVERIFY(!parsePod(whole + " {}"));
        QVERIFY(parsePod(whole + " \n"));
        QVERIFY(!parsePodList(R"({"items":[]}])"));
        QVERIFY(!parseWatchEvent(R"({"type":"ADDED","object":{}} x)", ObjectKind::Pod));

        // A list's items and a PVC's fields, in any order too.
        const auto claims = parsePvcList(QByteArrayLiteral(
            R"({"items":[{"status":{"capacity":{"storage":"10Gi"},"phase":"Bound"},"spec":{"storageClassName":"fast"},)"
            R"("metadata":{"annotations":{"agentscope.user.id":"u"},"labels":{"agentscope.workspace.id":"w1"},"name":"as-ws-w1"}},)"
            R"({"metadata":{"name":"as-ws-w2","labels":{"agentscope.workspace.id":"w2"}}}],)"
            R"("metadata":{"continue":"","resourceVersion":"7"},"kind":"PersistentVolumeClaimList"})"));
        QVERIFY(claims);
        QCOMPARE(claims->items.size(), 2);
        QCOMPARE(claims->resourceVersion, u"7"_qs);
        QVERIFY(claims->continueToken.isEmpty());
        QCOMPARE(claims->items[0].workspaceId(), u"w1"_qs);
        QCOMPARE(claims->items[0].phase, u"Bound"_qs);
        QCOMPARE(claims->items[0].capacity, u"10Gi"_qs);
        QCOMPARE(claims->items[0].storageClass, u"fast"_qs);
        QCOMPARE(claims->items[0].annotations.value(u"agentscope.user.id"_qs), u"u"_qs);
        QCOMPARE(claims->items[1].workspaceId(), u"w2"_qs);
        QVERIFY(claims->items[1].phase.isEmpty());
    }

    // A watch event's object may come before its type; an ERROR's Status is never read as a Pod,
    // and a Pod's own fields are never taken for a Status.
    void watchEventsInAnyOrder()
    {
        const QByteArray deleted = R"({"object":)" + podJson(u"Running"_qs) + R"(,"type":"DELETED"})";
        const auto event = parseWatchEvent(deleted, ObjectKind::Pod);
        QVERIFY(event);
        QCOMPARE(event->type, WatchEvent::Type::Deleted);
        QVERIFY(event->pod);
        QCOMPARE(event->pod->name, u"as-ws-0123456789abcdef"_qs);
        QCOMPARE(event->resourceVersion, u"48213"_qs);
        QCOMPARE(event->errorCode, 0);
        const auto gone = parseWatchEvent(
            R"({"object":{"code":410,"reason":"Gone","message":"too old","metadata":{"resourceVersion":"1"}},"type":"ERROR"})",
            ObjectKind::Pvc);
        QVERIFY(gone);
        QCOMPARE(gone->type, WatchEvent::Type::Error);
        QCOMPARE(gone->errorCode, 410);
        QCOMPARE(gone->errorMessage, u"too old"_qs);
        QVERIFY(!gone->pvc);
        const auto claim = parseWatchEvent(
            R"({"type":"MODIFIED","object":{"metadata":{"name":"as-ws-a","resourceVersion":"9"},"status":{"phase":"Lost"}}})",
            ObjectKind::Pvc);
        QVERIFY(claim && claim->pvc);
        QCOMPARE(claim->pvc->phase, u"Lost"_qs);
        QCOMPARE(claim->resourceVersion, u"9"_qs);
        const auto strange =
            parseWatchEvent(R"({"type":"SOMETHING","object":{"metadata":{"resourceVersion":"3"}}})", ObjectKind::Pod);
        QVERIFY(strange);
        QCOMPARE(strange->type, WatchEvent::Type::Unknown);
        QVERIFY(!strange->pod);
        QVERIFY(!parseWatchEvent(R"({"type":"ADDED","object":{"metadata":)", ObjectKind::Pod));
    }

    // The API server's Status bodies become messages that name the status, reason and message.
    void statusErrorsAreDecoded()
    {
        Http::HttpResponse notFound;
        notFound.status = 404;
        notFound.body =
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods nope not found","reason":"NotFound","details":{"name":"nope","kind":"pods"},"code":404})";
        Error error = decodeStatus(notFound);
        QCOMPARE(error.kind, Error::Kind::NotFound);
        QCOMPARE(error.message, u"HTTP 404 NotFound: pods nope not found"_qs);
        Http::HttpResponse exists = notFound;
        exists.status = 409;
        exists.body =
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods x already exists","reason":"AlreadyExists","code":409})";
        QCOMPARE(decodeStatus(exists).kind, Error::Kind::Conflict);
        QCOMPARE(statusReason(exists.body), u"AlreadyExists"_qs);
        Http::HttpResponse proxy;
        proxy.status = 502;
        proxy.body = "<html>Bad Gateway</html>";
        error = decodeStatus(proxy);
        QCOMPARE(error.httpStatus, 502);
        QCOMPARE(error.message, u"HTTP 502: <html>Bad Gateway</html>"_qs);
    }
};

QTEST_GUILESS_MAIN(TestKubeObjects)
#include "tst_kubeobjects.moc"
