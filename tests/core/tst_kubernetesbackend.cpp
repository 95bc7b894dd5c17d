// The Kubernetes backend against paddock-fake-kubernetes (TLS, a bearer token, a simulated kubelet,
// exec under bubblewrap): AgentScope's objects exactly, reattaching to what AgentScope made and
// AgentScope's reattach rules, early failures that leave nothing behind, the upstream defects of
// the reference fixed, Stopped and Resume without a second bootstrap, kill, the watch, the
// followed log, RBAC and credential errors, and the round trips an open costs. What every
// backend must do is the conformance suite's (tests/conformance).

#include "backends/kubernetes/kubeconfig.h"
#include "backends/kubernetes/kubernetesbackend.h"
#include "bootstraplog.h"
#include "bulk.h"
#include "fakekubernetesprocess.h"
#include "http/httpclient.h"
#include "provisioner.h"
#include "terminalrun.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace Paddock;
using namespace Paddock::Kubernetes;
using namespace std::chrono_literals;

namespace {

struct Answer
{
    int status = 0;
    QJsonObject json;
};

QJsonObject agentscopePvc(const QString &id)
{
    return QJsonDocument::fromJson(QStringLiteral(R"({"apiVersion":"v1","kind":"PersistentVolumeClaim",)"
                                                  R"("metadata":{"name":"%1","namespace":"agentscope",)"
                                                  R"("labels":{"app.kubernetes.io/managed-by":"agentscope",)"
                                                  R"("agentscope.workspace.id":"%2"}},)"
                                                  R"("spec":{"accessModes":["ReadWriteOnce"],)"
                                                  R"("resources":{"requests":{"storage":"1Gi"}}}})")
                                       .arg(safeName(id), id)
                                       .toUtf8())
        .object();
}

// The Pod exactly as AgentScope's K8sWorkspaceManager makes it (no owner, no gateway mount).
QJsonObject agentscopePod(const QString &id)
{
    return QJsonDocument::fromJson(
               QStringLiteral(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"%1","namespace":"agentscope",)"
                              R"("labels":{"app.kubernetes.io/managed-by":"agentscope","agentscope.workspace":"true",)"
                              R"("agentscope.workspace.id":"%2"}},"spec":{"restartPolicy":"OnFailure",)"
                              R"("containers":[{"name":"workspace","image":"python:3.11-slim",)"
                              R"("imagePullPolicy":"IfNotPresent","command":["sleep","infinity"],)"
                              R"("workingDir":"/workspace","ports":[{"containerPort":5600}],)"
                              R"("volumeMounts":[{"name":"workspace-data","mountPath":"/workspace"}]}],)"
                              R"("volumes":[{"name":"workspace-data","persistentVolumeClaim":{"claimName":"%1"}}]}})")
                   .arg(safeName(id), id)
                   .toUtf8())
        .object();
}

} // namespace

class TestKubernetesBackend final : public QObject
{
    Q_OBJECT

private:
    PaddockTest::FakeKubernetesProcess m_fake;
    QTemporaryDir m_logs;
    int m_serial = 0;

    QString newId() { return QStringLiteral("k8s%1%2").arg(QCoreApplication::applicationPid()).arg(++m_serial); }

    BackendOptions options(const ResolveOptions &resolve = {}) const
    {
        BackendOptions options;
        auto connection = lookupConnection(m_fake.kubeconfigPath(), QStringLiteral("paddock-fake"), resolve);
        if (!connection)
            qFatal("cannot use the fake's kubeconfig: %s", qPrintable(connection.error().message));
        options.cluster.connection = *connection;
        options.cluster.ns = QStringLiteral("agentscope");
        options.retry = {3, 20ms, 2.0, 100ms};
        options.pollFirst = 50ms;
        options.pollMax = 200ms;
        options.runningTimeout = 20s;
        options.unschedulableGrace = 1s;
        return options;
    }

    std::unique_ptr<KubernetesBackend> backend(const BackendOptions &given) const
    {
        return std::make_unique<KubernetesBackend>(given);
    }
    std::unique_ptr<KubernetesBackend> backend() const { return backend(options()); }

    Answer rest(const QByteArray &method, const QString &path, const QJsonObject &body = {}) const
    {
        QNetworkAccessManager network;
        QNetworkRequest request = m_fake.request(path);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        const QByteArray data = body.isEmpty() ? QByteArray() : QJsonDocument(body).toJson(QJsonDocument::Compact);
        std::unique_ptr<QNetworkReply> reply(network.sendCustomRequest(request, method, data));
        QSignalSpy finished(reply.get(), &QNetworkReply::finished);
        if (!reply->isFinished())
            finished.wait(30'000);
        return {reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(),
                QJsonDocument::fromJson(reply->readAll()).object()};
    }
    Answer pod(const QString &name) const
    {
        return rest("GET", QStringLiteral("/api/v1/namespaces/agentscope/pods/") + name);
    }
    Answer pvc(const QString &name) const
    {
        return rest("GET", QStringLiteral("/api/v1/namespaces/agentscope/persistentvolumeclaims/") + name);
    }
    // API requests since the last reset (the test-only /_fake routes are not among them).
    int requests() const
    {
        int count = 0;
        const QJsonObject byVerb = m_fake.stats().value(QLatin1String("byVerb")).toObject();
        for (auto it = byVerb.constBegin(); it != byVerb.constEnd(); ++it)
            count += it->toInt();
        return count;
    }
    void resetStats() const { m_fake.control("POST", QStringLiteral("/_fake/reset-stats")); }

    // Makes the workspace as AgentScope does, straight through the API.
    void makeAsAgentScope(const QString &id)
    {
        QCOMPARE(rest("POST", QStringLiteral("/api/v1/namespaces/agentscope/persistentvolumeclaims"), agentscopePvc(id))
                     .status,
                 201);
        QCOMPARE(rest("POST", QStringLiteral("/api/v1/namespaces/agentscope/pods"), agentscopePod(id)).status, 201);
        QTRY_COMPARE_WITH_TIMEOUT(pod(safeName(id)).json[u"status"_qs][u"phase"_qs].toString(), u"Running"_qs, 20'000);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_logs.isValid());
        QVERIFY2(m_fake.start({u"--pod-start-ms"_qs, u"100"_qs, u"--grace-ms"_qs, u"200"_qs}),
                 qPrintable(m_fake.error()));
    }

    // §1.3 exactly: the three labels, the container, the command, the /workspace mount; owners only
    // in annotations; Paddock's one addition the gateway home on the PVC (defect 2).
    void theObjectsAreAgentScopes()
    {
        auto k8s = backend();
        const QString id = newId();
        auto made = QCoro::waitFor(k8s->create(CreateSpec{id, u"alice"_qs, u"helper"_qs, {}}));
        QVERIFY2(made, qPrintable(made ? QString() : made.error().message));
        QCOMPARE(made->sandboxId, safeName(id));
        QCOMPARE(made->state, SandboxState::Running);
        QCOMPARE(made->userId, u"alice"_qs);

        const QJsonObject p = pod(safeName(id)).json;
        QCOMPARE(p[u"metadata"_qs][u"labels"_qs].toObject(),
                 (QJsonObject{{u"app.kubernetes.io/managed-by"_qs, u"agentscope"_qs},
                              {u"agentscope.workspace"_qs, u"true"_qs},
                              {u"agentscope.workspace.id"_qs, id}}));
        QCOMPARE(p[u"metadata"_qs][u"annotations"_qs][u"agentscope.user.id"_qs].toString(), u"alice"_qs);
        QCOMPARE(p[u"metadata"_qs][u"annotations"_qs][u"agentscope.agent.id"_qs].toString(), u"helper"_qs);
        const QJsonObject container = p[u"spec"_qs][u"containers"_qs].toArray().first().toObject();
        QCOMPARE(container[u"name"_qs].toString(), u"workspace"_qs);
        QCOMPARE(container[u"command"_qs].toArray(), (QJsonArray{u"sleep"_qs, u"infinity"_qs}));
        QCOMPARE(container[u"workingDir"_qs].toString(), u"/workspace"_qs);
        QCOMPARE(container[u"volumeMounts"_qs].toArray().first()[u"mountPath"_qs].toString(), u"/workspace"_qs);
        QCOMPARE(
            p[u"spec"_qs][u"volumes"_qs].toArray().first()[u"persistentVolumeClaim"_qs][u"claimName"_qs].toString(),
            safeName(id));
        QCOMPARE(p[u"spec"_qs][u"restartPolicy"_qs].toString(), u"OnFailure"_qs);
        const QJsonObject v = pvc(safeName(id)).json;
        QCOMPARE(
            v[u"metadata"_qs][u"labels"_qs].toObject(),
            (QJsonObject{{u"app.kubernetes.io/managed-by"_qs, u"agentscope"_qs}, {u"agentscope.workspace.id"_qs, id}}));
        QCOMPARE(v[u"spec"_qs][u"accessModes"_qs].toArray(), QJsonArray{u"ReadWriteOnce"_qs});
        QCOMPARE(v[u"spec"_qs][u"resources"_qs][u"requests"_qs][u"storage"_qs].toString(), u"1Gi"_qs);
        QVERIFY(QCoro::waitFor(k8s->kill(made->sandboxId, {})));
    }

    // A command whose time is up is closed on and killed with its group (closing the connection
    // alone would leave it running, as a container runtime does); its output so far is kept.
    void aCommandThatTimesOutIsKilledInThePod()
    {
        auto k8s = backend();
        const QString id = newId();
        auto made = QCoro::waitFor(k8s->create(CreateSpec{id, u"alice"_qs, u"helper"_qs, {}}));
        QVERIFY2(made, qPrintable(made ? QString() : made.error().message));
        ExecRequest slow;
        slow.argv = QStringList{u"sh"_qs, u"-c"_qs,
                                u"(while :; do date +%s%N > beat; sleep 0.1; done) & echo before; echo also >&2; "
                                "sleep 300"_qs};
        slow.timeout = 1s;
        auto timed = QCoro::waitFor(k8s->exec(made->sandboxId, slow));
        QVERIFY2(timed, qPrintable(timed ? QString() : timed.error().message));
        QVERIFY(timed->timedOut);
        QCOMPARE(timed->stdOut, QByteArray("before\n"));
        QCOMPARE(timed->stdErr, QByteArray("also\n")); // the pid announcement taken off
        ExecRequest check;
        check.argv = QStringList{u"sh"_qs, u"-c"_qs,
                                 u"a=$(cat beat); sleep 1; b=$(cat beat); echo \"$a $b\"; [ \"$a\" = \"$b\" ]"_qs};
        auto still = QCoro::waitFor(k8s->exec(made->sandboxId, check));
        QVERIFY2(still, qPrintable(still ? QString() : still.error().message));
        QVERIFY2(still->exitCode == 0, still->stdOut.constData());
        QVERIFY(QCoro::waitFor(k8s->kill(made->sandboxId, {})));
    }

    // Open Terminal's command: kubectl with only what the profile names, which really gives a
    // shell in /workspace of the Pod's container.
    void theTerminalCommandIsKubectlExecIntoTheWorkspace()
    {
        BackendOptions given = options();
        auto bare = backend(given);
        SandboxInfo sandbox;
        sandbox.sandboxId = u"as-ws-x"_qs;
        auto plain = bare->terminalCommand(sandbox);
        QVERIFY(plain);
        QCOMPARE(plain->program, u"kubectl"_qs);
        const QString shell = u"cd /workspace 2>/dev/null; command -v bash >/dev/null 2>&1 && exec bash; exec sh"_qs;
        QCOMPARE(plain->arguments,
                 (QStringList{u"-n"_qs, u"agentscope"_qs, u"exec"_qs, u"-it"_qs, u"as-ws-x"_qs, u"-c"_qs,
                              u"workspace"_qs, u"--"_qs, u"sh"_qs, u"-c"_qs, shell}));
        given.kubeconfigFile = m_fake.kubeconfigPath();
        given.contextName = u"paddock-fake"_qs;
        auto named = backend(given);
        auto command = named->terminalCommand(sandbox);
        QVERIFY(command);
        QCOMPARE(command->arguments.mid(0, 4),
                 (QStringList{u"--kubeconfig"_qs, m_fake.kubeconfigPath(), u"--context"_qs, u"paddock-fake"_qs}));
        QCOMPARE(command->arguments.mid(4), plain->arguments);
        // No credential on the command line, ever.
        QVERIFY(!command->arguments.join(u' ').contains(u"token"_qs));
        // A profile that cannot be connected with has none.
        BackendOptions broken = options();
        broken.configurationError = Error::invalidArgument(u"no such context"_qs);
        QVERIFY(!backend(broken)->terminalCommand(sandbox));

        if (!PaddockTest::canRunTerminalCommands() || QStandardPaths::findExecutable(u"kubectl"_qs).isEmpty())
            QSKIP("script (util-linux) or kubectl is not installed");
        const QString id = newId();
        auto made = QCoro::waitFor(named->create(CreateSpec{id, u"alice"_qs, u"helper"_qs, {}}));
        QVERIFY2(made, qPrintable(made ? QString() : made.error().message));
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.remove(u"KUBECONFIG"_qs); // --kubeconfig says which
        environment.insert(u"HOME"_qs, m_logs.path()); // no ~/.kube/config, no cache of another cluster
        const QByteArray shown = PaddockTest::runInTerminal(*named->terminalCommand(*made),
                                                            "pwd; echo paddock-$((6*7))\nexit\n", environment);
        QVERIFY2(shown.contains("/workspace"), shown.constData());
        QVERIFY2(shown.contains("paddock-42"), shown.constData());
        QVERIFY(QCoro::waitFor(named->kill(made->sandboxId, {})));
    }

    // What AgentScope made is found, shown without an owner, and attached to as it is.
    void aWorkspaceAgentScopeMadeIsReattached()
    {
        const QString id = newId();
        makeAsAgentScope(id);
        const QString uid = pod(safeName(id)).json[u"metadata"_qs][u"uid"_qs].toString();
        auto k8s = backend();
        auto found = QCoro::waitFor(k8s->list(ListFilter{id, {}}));
        QVERIFY(found);
        QCOMPARE(found->size(), 1);
        QCOMPARE(found->first().state, SandboxState::Running);
        QVERIFY(found->first().userId.isEmpty()); // the console groups it under "unknown"
        auto all = QCoro::waitFor(k8s->list(ListFilter{}));
        QVERIFY(all);
        QVERIFY(std::any_of(all->cbegin(), all->cend(), [&](const SandboxInfo &s) { return s.workspaceId == id; }));
        auto attached = QCoro::waitFor(k8s->connect(safeName(id)));
        QVERIFY2(attached, qPrintable(attached ? QString() : attached.error().message));
        auto ran = QCoro::waitFor(
            k8s->exec(safeName(id), ExecRequest{{u"sh"_qs, u"-c"_qs, u"pwd; echo hi"_qs}, {}, 10s, {}, {}, {}}));
        QVERIFY2(ran, qPrintable(ran ? QString() : ran.error().message));
        QCOMPARE(ran->stdOut, QByteArray("/workspace\nhi\n"));
        // An open (create) keeps the Running Pod: same uid.
        QVERIFY(QCoro::waitFor(k8s->create(CreateSpec{id, {}, {}, {}})));
        QCOMPARE(pod(safeName(id)).json[u"metadata"_qs][u"uid"_qs].toString(), uid);
        QVERIFY(QCoro::waitFor(k8s->kill(safeName(id), {})));
    }

    // A Failed Pod is deleted and made again; a terminating one is waited out.
    void failedPodsAreMadeAgainAndTerminatingOnesWaitedOut()
    {
        const QString id = newId();
        auto k8s = backend();
        QVERIFY(QCoro::waitFor(k8s->create(CreateSpec{id, {}, {}, {}})));
        const QString name = safeName(id);
        const QString first = pod(name).json[u"metadata"_qs][u"uid"_qs].toString();
        m_fake.control("POST", QStringLiteral("/_fake/pods/agentscope/%1/status").arg(name), R"({"phase":"Failed"})");
        auto states = QCoro::waitFor(k8s->list(ListFilter{id, {}}));
        QCOMPARE(states->first().state, SandboxState::Failed);
        auto again = QCoro::waitFor(k8s->create(CreateSpec{id, {}, {}, {}}));
        QVERIFY2(again, qPrintable(again ? QString() : again.error().message));
        const QString second = pod(name).json[u"metadata"_qs][u"uid"_qs].toString();
        QVERIFY(second != first);

        // Deleted by someone else with a grace period: the open waits until it is gone.
        QCOMPARE(rest("DELETE", QStringLiteral("/api/v1/namespaces/agentscope/pods/") + name,
                      QJsonObject{{u"gracePeriodSeconds"_qs, 30}})
                     .status,
                 200);
        auto third = QCoro::waitFor(k8s->create(CreateSpec{id, {}, {}, {}}));
        QVERIFY2(third, qPrintable(third ? QString() : third.error().message));
        QVERIFY(pod(name).json[u"metadata"_qs][u"uid"_qs].toString() != second);
        QVERIFY(QCoro::waitFor(k8s->kill(name, {})));
    }

    // The kubelet's verdict ends the wait at once, with its message, and the open leaves nothing:
    // its Pod goes, and the PVC it made for the workspace (empty) goes too.
    void anImageThatCannotBePulledFailsEarlyAndLeavesNothing()
    {
        BackendOptions given = options();
        given.pod.image = u"registry.invalid/nothing:missing"_qs;
        auto k8s = backend(given);
        const QString id = newId();
        auto made = QCoro::waitFor(k8s->create(CreateSpec{id, {}, {}, {}}));
        QVERIFY(!made);
        QVERIFY2(made.error().message.contains(u"ErrImagePull"_qs)
                     || made.error().message.contains(u"ImagePullBackOff"_qs),
                 qPrintable(made.error().message));
        QVERIFY2(made.error().message.contains(safeName(id)), qPrintable(made.error().message));
        QTRY_COMPARE_WITH_TIMEOUT(pod(safeName(id)).status, 404, 10'000);
        QTRY_COMPARE_WITH_TIMEOUT(pvc(safeName(id)).status, 404, 10'000);
    }

    // Defect 3: Unschedulable is the scheduler waiting for a while (here 1 s), then a failure
    // with its message; and the open leaves nothing.
    void unschedulableFailsAfterItsGracePeriodWithTheSchedulersMessage()
    {
        BackendOptions given = options();
        given.pod.nodeSelector = {{u"paddock.test/pool"_qs, u"none"_qs}};
        auto k8s = backend(given);
        const QString id = newId();
        QElapsedTimer timer;
        timer.start();
        auto made = QCoro::waitFor(k8s->create(CreateSpec{id, {}, {}, {}}));
        QVERIFY(!made);
        QVERIFY2(made.error().message.contains(u"cannot be scheduled"_qs)
                     && made.error().message.contains(u"didn't match"_qs),
                 qPrintable(made.error().message));
        QVERIFY(timer.elapsed() >= 1000); // not at the first sight of Unschedulable
        QTRY_COMPARE_WITH_TIMEOUT(pod(safeName(id)).status, 404, 10'000);
        QTRY_COMPARE_WITH_TIMEOUT(pvc(safeName(id)).status, 404, 10'000);
    }

    // A PVC that no volume is bound to (a storage class without a provisioner): the message says
    // so and names the class.
    void aPvcStuckPendingIsSaid()
    {
        BackendOptions given = options();
        given.pod.storageClass = u"no-provisioner"_qs;
        auto k8s = backend(given);
        const QString id = newId();
        auto made = QCoro::waitFor(k8s->create(CreateSpec{id, {}, {}, {}}));
        QVERIFY(!made);
        QVERIFY2(made.error().message.contains(u"is still Pending"_qs)
                     && made.error().message.contains(u"no-provisioner"_qs),
                 qPrintable(made.error().message));
        QTRY_COMPARE_WITH_TIMEOUT(pvc(safeName(id)).status, 404, 10'000);
    }

    // A PVC that was there holds files: a failed open keeps it, and says so.
    void aFailedOpenKeepsAPvcThatHoldsFiles()
    {
        const QString id = newId();
        auto good = backend();
        QVERIFY(QCoro::waitFor(good->create(CreateSpec{id, {}, {}, {}})));
        QVERIFY(QCoro::waitFor(good->pause(safeName(id))));
        BackendOptions given = options();
        given.pod.image = u"registry.invalid/nothing:missing"_qs;
        auto bad = backend(given);
        auto resumed = QCoro::waitFor(bad->resume(safeName(id)));
        QVERIFY(!resumed);
        QVERIFY2(resumed.error().message.contains(u"was kept"_qs), qPrintable(resumed.error().message));
        QCOMPARE(pvc(safeName(id)).status, 200);
        QVERIFY(QCoro::waitFor(good->kill(safeName(id), {})));
    }

    // Defect 1: an id that cannot be a label value is refused before any request.
    void anIdThatBreaksTheLabelRulesIsRefusedBeforeAnyRequest()
    {
        auto k8s = backend();
        resetStats();
        auto made = QCoro::waitFor(k8s->create(CreateSpec{u"team/alice"_qs, {}, {}, {}}));
        QVERIFY(!made);
        QCOMPARE(made.error().kind, Error::Kind::InvalidArgument);
        QVERIFY(made.error().message.contains(u"team/alice"_qs));
        QCOMPARE(requests(), 0);
    }

    // "A-B" and "a_b" share the name as-ws-a-b: the second is refused, not attached to the first.
    void idsThatShareANameAreToldApart()
    {
        auto k8s = backend();
        const QString stem = newId();
        const QString upper = stem.toUpper() + u"-X"_qs;
        const QString under = stem + u"_x"_qs;
        QCOMPARE(safeName(upper), safeName(under));
        QVERIFY(QCoro::waitFor(k8s->create(CreateSpec{upper, {}, {}, {}})));
        auto other = QCoro::waitFor(k8s->create(CreateSpec{under, {}, {}, {}}));
        QVERIFY(!other);
        QCOMPARE(other.error().kind, Error::Kind::Conflict);
        QVERIFY2(other.error().message.contains(upper), qPrintable(other.error().message));
        auto found = QCoro::waitFor(k8s->list(ListFilter{under, {}}));
        QVERIFY(found && found->isEmpty());
        QVERIFY(QCoro::waitFor(k8s->kill(safeName(upper), {})));
    }

    // Closed (the Pod deleted, the PVC kept) shows as Stopped; Resume makes the Pod again on the
    // same PVC, and the bootstrap does not run again: its marker is on the PVC (defect 2).
    void aStoppedWorkspaceResumesWithoutBootstrappingAgain()
    {
        auto k8s = backend();
        BootstrapLogStore logs(m_logs.path());
        ProvisionOptions provision;
        provision.bootstrap = {BootstrapCommand{u"echo booted >> /workspace/boots"_qs, 60s}};
        provision.readyTimeout = 20s;
        Provisioner provisioner(k8s.get(), &logs, provision);
        const QString id = newId();
        auto first = QCoro::waitFor(provisioner.provision(ProvisionRequest{id, u"u"_qs, u"a"_qs, {}}));
        QVERIFY2(first, qPrintable(first ? QString() : first.error().message));
        QVERIFY(QCoro::waitFor(k8s->pause(safeName(id))));
        QCOMPARE(pod(safeName(id)).status, 404);
        QCOMPARE(pvc(safeName(id)).status, 200);
        auto listed = QCoro::waitFor(k8s->list(ListFilter{id, {}}));
        QCOMPARE(listed->first().state, SandboxState::Paused);
        QCOMPARE(listed->first().rawState, u"Stopped"_qs);
        QCOMPARE(listed->first().userId, u"u"_qs); // from the PVC's annotation

        auto second = QCoro::waitFor(provisioner.provision(ProvisionRequest{id, u"u"_qs, u"a"_qs, {}}));
        QVERIFY2(second, qPrintable(second ? QString() : second.error().message));
        auto boots = QCoro::waitFor(
            k8s->exec(safeName(id), ExecRequest{{u"cat"_qs, u"/workspace/boots"_qs}, {}, 10s, {}, {}, {}}));
        QVERIFY(boots);
        QCOMPARE(boots->stdOut, QByteArray("booted\n")); // once
        QVERIFY(QCoro::waitFor(k8s->kill(safeName(id), {})));
    }

    // What AgentScope's own Pods keep outside /workspace goes with the Pod (its gateway home is
    // not on its PVC); Paddock's Pods keep the gateway home in the PVC's .agentscope folder.
    void theGatewayHomeLivesOnThePvcOnlyInPaddocksPods()
    {
        const QString id = newId();
        makeAsAgentScope(id);
        auto k8s = backend();
        const QString name = safeName(id);
        const ExecRequest write{
            {u"sh"_qs, u"-c"_qs, u"mkdir -p /root/.agentscope && echo x > /root/.agentscope/mark"_qs},
            {},
            10s,
            {},
            {},
            {}};
        QVERIFY(QCoro::waitFor(k8s->exec(name, write))->exitCode == 0);
        QVERIFY(QCoro::waitFor(k8s->pause(name)));
        QVERIFY(QCoro::waitFor(k8s->resume(name))); // made again by Paddock: with the mount
        const ExecRequest read{{u"sh"_qs, u"-c"_qs, u"ls /root/.agentscope; ls -a /workspace"_qs}, {}, 10s, {}, {}, {}};
        auto listed = QCoro::waitFor(k8s->exec(name, read));
        QVERIFY(listed);
        QVERIFY2(!listed->stdOut.contains("mark"), listed->stdOut.constData()); // AgentScope's Pod lost it
        QVERIFY2(listed->stdOut.contains(".agentscope"), listed->stdOut.constData()); // on the PVC now
        QVERIFY(QCoro::waitFor(k8s->exec(name, write))->exitCode == 0);
        QVERIFY(QCoro::waitFor(k8s->pause(name)));
        QVERIFY(QCoro::waitFor(k8s->resume(name)));
        listed = QCoro::waitFor(k8s->exec(name, read));
        QVERIFY2(listed->stdOut.contains("mark"), listed->stdOut.constData()); // kept across Pods
        QVERIFY(QCoro::waitFor(k8s->kill(name, {})));
    }

    // The overview's details: the Pod and the PVC, asked together (two requests); the workspace
    // container's requests and limits (requests defaulted from the limits by the API server), the
    // node, Pod IP, QoS class and restarts, the PVC; the kubelet's and the scheduler's own words
    // for a Pod that waits; never an env value or the token.
    void detailsSayWhatTheClusterSays()
    {
        BackendOptions given = options();
        given.pod.resources =
            QJsonObject{{u"limits"_qs, QJsonObject{{u"cpu"_qs, u"500m"_qs}, {u"memory"_qs, u"256Mi"_qs}}}};
        given.pod.env = {{u"OPENAI_API_KEY"_qs, u"sample-secret-env"_qs}};
        auto k8s = backend(given);
        const QString id = newId();
        auto made = QCoro::waitFor(k8s->create(CreateSpec{id, u"alice"_qs, u"helper"_qs, {}}));
        QVERIFY2(made, qPrintable(made ? QString() : made.error().message));
        const QString name = safeName(id);
        const auto removeIt = qScopeGuard([&] { QCoro::waitFor(k8s->kill(name, {})); });

        resetStats();
        auto details = QCoro::waitFor(k8s->details(name));
        QVERIFY2(details, qPrintable(details ? QString() : details.error().message));
        QCOMPARE(requests(), 2); // the Pod and the PVC
        auto got = QCoro::waitFor(k8s->get(name));
        QVERIFY(got);
        QCOMPARE(details->sandbox.fingerprint, got->fingerprint);
        QCOMPARE(details->sandbox.state, SandboxState::Running);
        QVERIFY(details->stateReason.isEmpty());
        QCOMPARE(details->resources,
                 (QList<std::pair<QString, QString>>{{u"requests.cpu"_qs, u"500m"_qs},
                                                     {u"requests.memory"_qs, u"256Mi"_qs},
                                                     {u"limits.cpu"_qs, u"500m"_qs},
                                                     {u"limits.memory"_qs, u"256Mi"_qs}}));
        const QJsonObject p = pod(name).json;
        const QString podIp = p[u"status"_qs][u"podIP"_qs].toString();
        QVERIFY(!podIp.isEmpty());
        QCOMPARE(details->endpoints,
                 (QList<std::pair<QString, QString>>{{u"API server"_qs, given.cluster.server().toString()},
                                                     {u"port 5600 (in the cluster)"_qs, podIp + u":5600"_qs}}));
        QHash<QString, QString> facts;
        for (const auto &[label, value] : details->facts)
            facts.insert(label, value);
        QCOMPARE(facts.value(u"Namespace"_qs), u"agentscope"_qs);
        QCOMPARE(facts.value(u"Node"_qs), p[u"spec"_qs][u"nodeName"_qs].toString());
        QCOMPARE(facts.value(u"Pod IP"_qs), podIp);
        QCOMPARE(facts.value(u"QoS class"_qs), u"Guaranteed"_qs);
        QCOMPARE(facts.value(u"Restarts"_qs), u"0"_qs);
        QCOMPARE(facts.value(u"Container"_qs),
                 p[u"status"_qs][u"containerStatuses"_qs].toArray().first()[u"containerID"_qs].toString());
        QCOMPARE(facts.value(u"PVC"_qs), name);
        QCOMPARE(facts.value(u"PVC phase"_qs), u"Bound"_qs);
        QCOMPARE(facts.value(u"Capacity"_qs), u"1Gi"_qs);
        QCOMPARE(facts.value(u"Storage class"_qs), pvc(name).json[u"spec"_qs][u"storageClassName"_qs].toString());
        const auto noSecret = [this](const SandboxDetails &shown) {
            QStringList all{shown.stateReason, shown.stateMessage};
            for (const auto &pairs : {shown.resources, shown.endpoints, shown.facts}) {
                for (const auto &[label, value] : pairs)
                    all << label << value;
            }
            for (const QString &text : std::as_const(all)) {
                QVERIFY2(!text.contains(u"sample-secret"_qs) && !text.contains(u"OPENAI"_qs), qPrintable(text));
                QVERIFY2(!text.contains(m_fake.token()), qPrintable(text));
            }
        };
        noSecret(*details);

        // Stopped: the PVC alone, and Paddock's words for it.
        QVERIFY(QCoro::waitFor(k8s->pause(name)));
        auto stopped = QCoro::waitFor(k8s->details(name));
        QVERIFY(stopped);
        QCOMPARE(stopped->sandbox.rawState, u"Stopped"_qs);
        QVERIFY(!stopped->stateMessage.isEmpty());
        QVERIFY(stopped->resources.isEmpty());
        QCOMPARE(stopped->endpoints.size(), 1); // the API server
        noSecret(*stopped);

        // A Pod whose image cannot be pulled, as another client made it: the kubelet's reason and
        // message, as it wrote them.
        const QString pulling = newId();
        QJsonObject badPod = agentscopePod(pulling);
        QJsonObject spec = badPod[u"spec"_qs].toObject();
        QJsonArray containers = spec[u"containers"_qs].toArray();
        QJsonObject container = containers.first().toObject();
        container[u"image"_qs] = u"registry.invalid/nothing:missing"_qs;
        containers[0] = container;
        spec[u"containers"_qs] = containers;
        badPod[u"spec"_qs] = spec;
        QCOMPARE(
            rest("POST", u"/api/v1/namespaces/agentscope/persistentvolumeclaims"_qs, agentscopePvc(pulling)).status,
            201);
        QCOMPARE(rest("POST", u"/api/v1/namespaces/agentscope/pods"_qs, badPod).status, 201);
        const auto removePulling = qScopeGuard([&] { QCoro::waitFor(k8s->kill(safeName(pulling), {})); });
        QTRY_VERIFY_WITH_TIMEOUT(
            !pod(safeName(pulling))
                 .json[u"status"_qs][u"containerStatuses"_qs][0][u"state"_qs][u"waiting"_qs][u"message"_qs]
                 .toString()
                 .isEmpty(),
            20'000);
        // The kubelet turns ErrImagePull into ImagePullBackOff and back as it retries: what
        // details() said must be what the Pod said just before or just after it.
        Result<SandboxDetails> waiting = fail(Error::backend(u"not read"_qs));
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                const auto stateNow = [&] {
                    return pod(safeName(pulling))
                        .json[u"status"_qs][u"containerStatuses"_qs][0][u"state"_qs][u"waiting"_qs]
                        .toObject();
                };
                const QJsonObject before = stateNow();
                waiting = QCoro::waitFor(k8s->details(safeName(pulling)));
                const QJsonObject after = stateNow();
                const auto same = [&](const QJsonObject &state) {
                    return waiting && waiting->stateReason == state[u"reason"_qs].toString()
                        && waiting->stateMessage == state[u"message"_qs].toString();
                };
                return same(before) || same(after);
            }(),
            20'000);
        QVERIFY2(waiting->stateReason == u"ErrImagePull"_qs || waiting->stateReason == u"ImagePullBackOff"_qs,
                 qPrintable(waiting->stateReason));

        // One the scheduler cannot place: its Unschedulable message.
        const QString unplaced = newId();
        QJsonObject pinned = agentscopePod(unplaced);
        QJsonObject pinnedSpec = pinned[u"spec"_qs].toObject();
        pinnedSpec[u"nodeSelector"_qs] = QJsonObject{{u"paddock.test/pool"_qs, u"none"_qs}};
        pinned[u"spec"_qs] = pinnedSpec;
        QCOMPARE(
            rest("POST", u"/api/v1/namespaces/agentscope/persistentvolumeclaims"_qs, agentscopePvc(unplaced)).status,
            201);
        QCOMPARE(rest("POST", u"/api/v1/namespaces/agentscope/pods"_qs, pinned).status, 201);
        const auto removeUnplaced = qScopeGuard([&] { QCoro::waitFor(k8s->kill(safeName(unplaced), {})); });
        QTRY_VERIFY_WITH_TIMEOUT(!pod(safeName(unplaced)).json[u"status"_qs][u"conditions"_qs].toArray().isEmpty(),
                                 20'000);
        auto unschedulable = QCoro::waitFor(k8s->details(safeName(unplaced)));
        QVERIFY(unschedulable);
        QCOMPARE(unschedulable->stateReason, u"Unschedulable"_qs);
        QVERIFY2(unschedulable->stateMessage.contains(u"didn't match"_qs), qPrintable(unschedulable->stateMessage));
    }

    void killDeletesThePodAndThePvc()
    {
        auto k8s = backend();
        const QString id = newId();
        QVERIFY(QCoro::waitFor(k8s->create(CreateSpec{id, {}, {}, {}})));
        SandboxInfo sandbox;
        sandbox.sandboxId = safeName(id);
        const QString warning = k8s->killWarning(sandbox);
        QVERIFY(warning.contains(u"Pod "_qs + safeName(id)));
        QVERIFY(warning.contains(u"PersistentVolumeClaim "_qs + safeName(id)));
        QVERIFY(QCoro::waitFor(k8s->kill(safeName(id), {})));
        QTRY_COMPARE_WITH_TIMEOUT(pod(safeName(id)).status, 404, 10'000);
        QTRY_COMPARE_WITH_TIMEOUT(pvc(safeName(id)).status, 404, 10'000);
        auto again = QCoro::waitFor(k8s->kill(safeName(id), {}));
        QCOMPARE(again.error().kind, Error::Kind::NotFound);
    }

    // Qt has OpenSSL keep every TLS session a server hands out in the manager's context for
    // the ticket's lifetime: a client that makes connection after connection lets go of a
    // manager after so many handshakes, and of its sessions once its requests have ended.
    void aClientLetsGoOfTheTlsSessionsOfItsConnections()
    {
        QNetworkAccessManager network;
        Http::HttpClient client(&network);
        client.setSslConfiguration(m_fake.sslConfiguration());
        const int requests = 2 * Http::HttpClient::RetireAfterHandshakes + 10;
        const QNetworkRequest signedIn = m_fake.request(u"/version"_qs);
        const QList<std::pair<QByteArray, QByteArray>> bearer{{"Authorization", signedIn.rawHeader("Authorization")}};
        for (int i = 0; i < requests; ++i) {
            Http::HttpRequest request;
            request.url = m_fake.request(u"/version"_qs).url();
            request.headers = bearer;
            request.retrySafe = true;
            request.headers.append(std::pair<QByteArray, QByteArray>("Connection", "close")); // a handshake each time
            const auto answered = QCoro::waitFor(client.send(request));
            QVERIFY2(answered, answered ? "" : qPrintable(answered.error().message));
        }
        QCOMPARE(client.retiredManagers(), 2);
        QTRY_COMPARE(client.liveManagers(), 1);
        // And the one in use still works.
        Http::HttpRequest again;
        again.url = m_fake.request(u"/version"_qs).url();
        again.headers = bearer;
        QVERIFY(QCoro::waitFor(client.send(again)));
    }

    // A kill whose DELETEs were carried out but whose answers were lost (the connection closed
    // first) finds nothing on its retries: it did the deleting, so it is done, not "no Pod".
    void aKillWhoseAnswersWereLostIsDone()
    {
        auto k8s = backend();
        const QString id = newId();
        QVERIFY(QCoro::waitFor(k8s->create(CreateSpec{id, {}, {}, {}})));
        const QString name = safeName(id);
        // A Pod that has ended is deleted at once (no grace period), so the retries find nothing.
        m_fake.control("POST", u"/_fake/pods/agentscope/%1/status"_qs.arg(name), R"({"phase":"Failed"})");
        m_fake.control("POST", u"/_fake/reset-stats"_qs);
        for (const char *resource : {"pods", "persistentvolumeclaims"}) {
            const QByteArray injected = m_fake.control(
                "POST", u"/_fake/inject"_qs,
                QJsonDocument(
                    QJsonObject{{u"method"_qs, u"DELETE"_qs},
                                {u"pathPrefix"_qs,
                                 u"/api/v1/namespaces/agentscope/%1/%2"_qs.arg(QLatin1String(resource), name)},
                                {u"injection"_qs, u"drop-handled"_qs}})
                    .toJson());
            QVERIFY2(injected.contains("pending"), injected.constData());
        }
        const auto killed = QCoro::waitFor(k8s->kill(name, {}));
        QVERIFY2(killed, killed ? "" : qPrintable(killed.error().message));
        QCOMPARE(pod(name).status, 404);
        QTRY_COMPARE_WITH_TIMEOUT(pvc(name).status, 404, 10'000);
        const QJsonObject byVerb = m_fake.stats().value(u"byVerb"_qs).toObject();
        QCOMPARE(byVerb.value(u"delete pods"_qs).toInt(), 2); // the lost one and its retry
        QCOMPARE(byVerb.value(u"delete persistentvolumeclaims"_qs).toInt(), 2);
    }

    // Live: a change on the cluster arrives as an event, also after the watch's resourceVersion
    // became too old (410: list again).
    void theWatchReportsChangesAndListsAgainWhenTooOld()
    {
        auto k8s = backend();
        QSignalSpy changed(k8s.get(), &Backend::sandboxChanged);
        QSignalSpy removed(k8s.get(), &Backend::sandboxRemoved);
        k8s->setWatching(true);
        QTRY_VERIFY_WITH_TIMEOUT(m_fake.stats().value(QLatin1String("watches")).toInt() >= 2, 10'000);
        const QString id = newId();
        makeAsAgentScope(id);
        const auto sawState = [&](SandboxState state) {
            for (const QList<QVariant> &arguments : std::as_const(changed)) {
                const auto info = arguments.first().value<SandboxInfo>();
                if (info.workspaceId == id && info.state == state)
                    return true;
            }
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(sawState(SandboxState::Running), 10'000);

        m_fake.control("POST", QStringLiteral("/_fake/compact"));
        changed.clear();
        QCOMPARE(rest("DELETE", QStringLiteral("/api/v1/namespaces/agentscope/pods/") + safeName(id),
                      QJsonObject{{u"gracePeriodSeconds"_qs, 0}})
                     .status,
                 200);
        QTRY_VERIFY_WITH_TIMEOUT(sawState(SandboxState::Paused), 15'000); // the PVC stays: Stopped
        QVERIFY(QCoro::waitFor(k8s->kill(safeName(id), {})));
        QTRY_VERIFY_WITH_TIMEOUT(removed.contains(QVariantList{safeName(id)}), 15'000);
        k8s->setWatching(false);
    }

    // A watch that starts reports whole workspaces: a Pod and its PVC listed one after the other
    // are never reported half known (a PVC alone would read Stopped).
    void theWatchNeverReportsHalfAWorkspace()
    {
        const QString id = newId();
        makeAsAgentScope(id);
        auto k8s = backend();
        QSignalSpy changed(k8s.get(), &Backend::sandboxChanged);
        for (int round = 0; round < 2; ++round) {
            changed.clear();
            k8s->setWatching(true);
            const auto reports = [&] {
                QList<SandboxInfo> out;
                for (const QList<QVariant> &arguments : std::as_const(changed)) {
                    const auto info = arguments.first().value<SandboxInfo>();
                    if (info.workspaceId == id)
                        out.append(info);
                }
                return out;
            };
            QTRY_VERIFY_WITH_TIMEOUT(!reports().isEmpty(), 10'000);
            QTRY_COMPARE_WITH_TIMEOUT(m_fake.stats().value(QLatin1String("watches")).toInt(), 2, 10'000);
            for (const SandboxInfo &info : reports()) {
                QCOMPARE(info.state, SandboxState::Running);
                QCOMPARE(info.metadata.value(u"kubernetes.pvc"_qs), safeName(id));
                QCOMPARE(info.metadata.value(u"kubernetes.pod"_qs), safeName(id));
            }
            k8s->setWatching(false);
            QTRY_COMPARE_WITH_TIMEOUT(m_fake.stats().value(QLatin1String("watches")).toInt(), 0, 10'000);
        }
        QVERIFY(QCoro::waitFor(k8s->kill(safeName(id), {})));
    }

    // A watch that is refused (RBAC allows list, not watch) is not live, so the console does
    // not wait on it; once allowed, it is.
    void aRefusedWatchIsNotLive()
    {
        m_fake.control("POST", QStringLiteral("/_fake/forbid"), R"({"rules":["watch pods"]})");
        const auto allow =
            qScopeGuard([this] { m_fake.control("POST", QStringLiteral("/_fake/forbid"), R"({"rules":[]})"); });
        auto k8s = backend();
        QVERIFY(!k8s->isWatchLive());
        k8s->setWatching(true);
        QTRY_COMPARE_WITH_TIMEOUT(m_fake.stats().value(QLatin1String("watches")).toInt(), 1, 10'000); // the PVCs'
        QTRY_VERIFY_WITH_TIMEOUT(
            m_fake.stats().value(QLatin1String("byVerb")).toObject().value(QLatin1String("watch pods")).toInt() > 0,
            10'000);
        QVERIFY(!k8s->isWatchLive());
        m_fake.control("POST", QStringLiteral("/_fake/forbid"), R"({"rules":[]})");
        QTRY_COMPARE_WITH_TIMEOUT(m_fake.stats().value(QLatin1String("watches")).toInt(), 2, 20'000);
        QTRY_VERIFY_WITH_TIMEOUT(k8s->isWatchLive(), 20'000);
        k8s->setWatching(false);
        QVERIFY(!k8s->isWatchLive());
    }

    // The container log as a stream: lines arrive as they are written, and cancel ends it.
    void theContainerLogIsFollowed()
    {
        auto k8s = backend();
        const QString id = newId();
        QVERIFY(QCoro::waitFor(k8s->create(CreateSpec{id, {}, {}, {}})));
        QByteArray received;
        auto cancel = std::make_shared<CancelToken>();
        auto following = k8s->followContainerLog(
            safeName(id), 10, [&received](QByteArrayView data) { received += data.toByteArray(); }, cancel);
        m_fake.control("POST", QStringLiteral("/_fake/pods/agentscope/%1/log").arg(safeName(id)), "first line\n");
        QTRY_VERIFY_WITH_TIMEOUT(received.contains("first line"), 10'000);
        m_fake.control("POST", QStringLiteral("/_fake/pods/agentscope/%1/log").arg(safeName(id)), "second line\n");
        QTRY_VERIFY_WITH_TIMEOUT(received.contains("second line"), 10'000);
        cancel->cancel();
        auto ended = QCoro::waitFor(std::move(following));
        QCOMPARE(ended.error().kind, Error::Kind::Cancelled);
        auto tail = QCoro::waitFor(k8s->containerLogs(safeName(id), 1));
        QVERIFY(tail);
        QVERIFY2(tail->contains("second line") && !tail->contains("first line"), tail->constData());
        QVERIFY(QCoro::waitFor(k8s->kill(safeName(id), {})));
    }

    // 403 names the verb and the resource RBAC refused; 401 the credentials that were refused.
    void refusalsSayWhatWasRefused()
    {
        auto k8s = backend();
        m_fake.control("POST", QStringLiteral("/_fake/forbid"), R"({"rules":["list pods"]})");
        auto listed = QCoro::waitFor(k8s->list(ListFilter{}));
        m_fake.control("POST", QStringLiteral("/_fake/forbid"), R"({"rules":[]})");
        QVERIFY(!listed);
        QCOMPARE(listed.error().httpStatus, 403);
        QVERIFY2(listed.error().message.contains(u"\"list\" on \"pods\""_qs), qPrintable(listed.error().message));

        ResolveOptions wrong;
        wrong.token = "not-the-token";
        auto refused = backend(options(wrong));
        listed = QCoro::waitFor(refused->list(ListFilter{}));
        QVERIFY(!listed);
        QCOMPARE(listed.error().httpStatus, 401);
        QVERIFY2(listed.error().message.contains(u"did not accept the credentials"_qs),
                 qPrintable(listed.error().message));
    }

    // A missing namespace is made, as AgentScope does.
    void aMissingNamespaceIsMade()
    {
        BackendOptions given = options();
        given.cluster.ns = QStringLiteral("made-by-paddock-%1").arg(QCoreApplication::applicationPid());
        auto k8s = backend(given);
        const QString id = newId();
        auto made = QCoro::waitFor(k8s->create(CreateSpec{id, {}, {}, {}}));
        QVERIFY2(made, qPrintable(made ? QString() : made.error().message));
        QCOMPARE(rest("GET", QStringLiteral("/api/v1/namespaces/") + given.cluster.ns).status, 200);
        QVERIFY(QCoro::waitFor(k8s->kill(made->sandboxId, {})));
    }

    // An open of a workspace whose Pod runs costs at most three round trips before its bootstrap:
    // the Pod by name, the layout, the marker (the performance target of issue 16).
    void openingARunningWorkspaceCostsThreeRoundTrips()
    {
        const QString id = newId();
        BootstrapLogStore logs(m_logs.path());
        {
            // Made and bootstrapped once (its marker written), by another "process".
            auto maker = backend();
            Provisioner first(maker.get(), &logs, ProvisionOptions{});
            QVERIFY(QCoro::waitFor(first.provision(ProvisionRequest{id, {}, {}, {}})));
        }
        auto k8s = backend();
        Provisioner provisioner(k8s.get(), &logs, ProvisionOptions{});
        resetStats();
        auto opened = QCoro::waitFor(provisioner.provision(ProvisionRequest{id, {}, {}, {}}));
        QVERIFY2(opened, qPrintable(opened ? QString() : opened.error().message));
        const QJsonObject byVerb = m_fake.stats().value(QLatin1String("byVerb")).toObject();
        qInfo().noquote() << "round trips to open a Running workspace:" << requests()
                          << QJsonDocument(byVerb).toJson(QJsonDocument::Compact);
        // The Pod by name, the layout's mkdir, the marker's test.
        QVERIFY2(requests() <= 3, QJsonDocument(byVerb).toJson(QJsonDocument::Compact).constData());
        QVERIFY(QCoro::waitFor(k8s->kill(safeName(id), {})));
    }

    // Destroyed while an open waits for Running: the wait ends inside the destructor.
    void aBackendDestroyedMidOpenEndsItsTasks()
    {
        auto k8s = backend();
        const QString id = newId();
        auto opening = k8s->create(CreateSpec{id, {}, {}, {}});
        QTRY_VERIFY_WITH_TIMEOUT(pod(safeName(id)).status == 200, 10'000);
        k8s.reset();
        auto ended = QCoro::waitFor(std::move(opening));
        QVERIFY(!ended);
        QCOMPARE(ended.error().kind, Error::Kind::Cancelled);
        auto cleanup = backend();
        QVERIFY(QCoro::waitFor(cleanup->kill(safeName(id), {})));
    }

    // CPU and memory from the metrics API: one list for the namespace's workspaces, each under
    // its Pod's name, an unknown one left out, no limit. A cluster without metrics-server (404):
    // Unsupported.
    void metricsFromTheMetricsApi()
    {
        auto k8s = backend();
        QVERIFY(k8s->capabilities().testFlag(Capability::Metrics));
        const QString id = newId();
        auto made = QCoro::waitFor(k8s->create(CreateSpec{id, {}, {}, {}}));
        QVERIFY2(made, qPrintable(made ? QString() : made.error().message));
        resetStats();
        auto metrics = QCoro::waitFor(k8s->metrics({made->sandboxId, u"nope"_qs}));
        QVERIFY2(metrics, qPrintable(metrics ? QString() : metrics.error().message));
        QCOMPARE(requests(), 1);
        QCOMPARE(metrics->size(), 1);
        const SandboxMetrics &one = metrics->first();
        QCOMPARE(one.sandboxId, made->sandboxId);
        QVERIFY(one.cpuPercent && *one.cpuPercent >= 0);
        QVERIFY(one.memoryBytes && *one.memoryBytes > 0);
        QCOMPARE(one.memoryLimitBytes, std::nullopt);
        QVERIFY(one.sampledAt.isValid());
        QVERIFY(QCoro::waitFor(k8s->kill(made->sandboxId, {})));

        PaddockTest::FakeKubernetesProcess bare;
        QVERIFY2(bare.start({u"--no-metrics-api"_qs}), qPrintable(bare.error()));
        BackendOptions without = options();
        auto connection = lookupConnection(bare.kubeconfigPath(), QStringLiteral("paddock-fake"), {});
        QVERIFY2(connection, qPrintable(connection ? QString() : connection.error().message));
        without.cluster.connection = *connection;
        auto old = backend(without);
        auto refused = QCoro::waitFor(old->metrics({made->sandboxId}));
        QVERIFY(!refused);
        QCOMPARE(refused.error().kind, Error::Kind::Unsupported);
        QCOMPARE(refused.error().httpStatus, 404);
    }
};

QTEST_GUILESS_MAIN(TestKubernetesBackend)
#include "tst_kubernetesbackend.moc"
