// The backend contract on the Kubernetes backend, against one paddock-fake-kubernetes for the
// whole executable (TLS with its own CA, a bearer token; its exec runs commands under bubblewrap
// with /workspace on a folder that stands for the PVC).

#include "backends/kubernetes/kubeconfig.h"
#include "backends/kubernetes/kubernetesbackend.h"
#include "conformancetarget.h"
#include "fakekubernetesprocess.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>

#include <memory>

using namespace Paddock;
using namespace Paddock::Kubernetes;
using namespace std::chrono_literals;

namespace {

class KubernetesTarget final : public PaddockTest::ConformanceTarget
{
public:
    bool setUp(QString *why) override
    {
        m_server = std::make_unique<PaddockTest::FakeKubernetesProcess>();
        if (!m_server->start({QStringLiteral("--pod-start-ms"), QStringLiteral("50"), QStringLiteral("--grace-ms"),
                              QStringLiteral("100")})) {
            *why = QStringLiteral("paddock-fake-kubernetes did not start: ") + m_server->error();
            return false;
        }
        return true;
    }

    // The fake needs bubblewrap, which CI always has.
    bool mustRun() const override { return qEnvironmentVariableIsSet("CI"); }

    void tearDown() override { m_server.reset(); }

    PaddockTest::ConformanceExpectations expectations(const QString &) const override
    {
        PaddockTest::ConformanceExpectations expect;
        expect.name = QStringLiteral("kubernetes");
        expect.capabilities = {Capability::ContainerLog,
                               Capability::ContainerLogStream,
                               Capability::StopInsteadOfPause,
                               Capability::Files,
                               Capability::Exec,
                               Capability::Watch,
                               Capability::Metrics};
        expect.profileKind = Profile::Kind::Kubernetes;
        // The watch sees a held Pod deleted by someone else.
        expect.watchesLostSandboxes = true;
        expect.lostWithin = 10s;
        // Every exec runs in a bubblewrap of its own, which ends what it left behind.
        expect.commandsCanLeaveProcesses = false;
        return expect;
    }

    std::unique_ptr<Backend> makeBackend(const QString &) override
    {
        BackendOptions options;
        auto connection = lookupConnection(m_server->kubeconfigPath(), QStringLiteral("paddock-fake"));
        if (!connection)
            qFatal("cannot use the fake's kubeconfig: %s", qPrintable(connection.error().message));
        options.cluster.connection = *connection;
        options.cluster.ns = QStringLiteral("agentscope");
        options.retry = {4, 20ms, 2.0, 200ms};
        options.pollFirst = 50ms;
        options.pollMax = 200ms;
        options.runningTimeout = 30s;
        auto backend = std::make_unique<KubernetesBackend>(options);
        // As the console does: the watch tells it about Pods deleted behind its back.
        backend->setWatching(true);
        return backend;
    }

    WorkspaceLayout expectedLayout(const SandboxInfo &) const override
    {
        // AgentScope's K8s constants; the gateway home is on the PVC too (Paddock's mount), so
        // the markers survive the Pod.
        return {QStringLiteral("/workspace"), QStringLiteral("/root/.agentscope"),
                QStringLiteral("/root/.agentscope/.bootstrap-complete"),
                QStringLiteral("/root/.agentscope/_mcp_gateway_app.py")};
    }

    bool removeBehindTheBackendsBack(const SandboxInfo &sandbox, QString *why) override
    {
        // Another client deletes the Pod and the PVC (a Pod alone is a closed workspace here).
        for (const QString &resource : {QStringLiteral("pods"), QStringLiteral("persistentvolumeclaims")}) {
            const QByteArray answer =
                deleteObject(QStringLiteral("/api/v1/namespaces/agentscope/%1/%2").arg(resource, sandbox.sandboxId));
            if (!answer.isEmpty()) {
                *why = QString::fromUtf8(answer);
                return false;
            }
        }
        return true;
    }

    QString unknownSandboxId() const override { return QStringLiteral("as-ws-conformance-no-such-workspace"); }

private:
    // Empty on success, else what went wrong.
    QByteArray deleteObject(const QString &path) const
    {
        QNetworkAccessManager network;
        QNetworkRequest request = m_server->request(path);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        std::unique_ptr<QNetworkReply> reply(
            network.sendCustomRequest(request, "DELETE", QByteArrayLiteral(R"({"gracePeriodSeconds":0})")));
        QSignalSpy finished(reply.get(), &QNetworkReply::finished);
        if (!reply->isFinished() && !finished.wait(30'000))
            return "no answer to DELETE " + path.toUtf8();
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status != 200 && status != 202)
            return "DELETE " + path.toUtf8() + " answered " + QByteArray::number(status) + ": " + reply->readAll();
        return {};
    }

    std::unique_ptr<PaddockTest::FakeKubernetesProcess> m_server;
};

} // namespace

PADDOCK_CONFORMANCE_MAIN(KubernetesTarget)
