// The backend contract on the OpenSandbox backend, against one paddock-fake-opensandbox for the
// whole executable (its execd runs commands under bubblewrap).

#include "backends/opensandbox/opensandboxbackend.h"
#include "conformancetarget.h"
#include "fakeopensandboxprocess.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>

#include <memory>

using namespace Paddock;
using namespace Paddock::OpenSandbox;
using namespace std::chrono_literals;

namespace {

constexpr QByteArrayView ApiKey{"conformance-key"};

class OpenSandboxTarget final : public PaddockTest::ConformanceTarget
{
public:
    bool setUp(QString *why) override
    {
        m_server = std::make_unique<PaddockTest::FakeOpenSandboxProcess>();
        if (!m_server->start({QStringLiteral("--api-key"), QString::fromLatin1(ApiKey)})) {
            *why = QStringLiteral("paddock-fake-opensandbox did not start: ") + m_server->error();
            return false;
        }
        return true;
    }

    void tearDown() override { m_server.reset(); }

    PaddockTest::ConformanceExpectations expectations(const QString &) const override
    {
        PaddockTest::ConformanceExpectations expect;
        expect.name = QStringLiteral("opensandbox");
        expect.capabilities = {Capability::ContainerLog, Capability::Renew, Capability::Files, Capability::Exec,
                               Capability::Metrics};
        expect.profileKind = Profile::Kind::OpenSandbox;
        // The lease keeper finds a held sandbox gone (404) at its next check.
        expect.watchesLostSandboxes = true;
        // The fake runs every command in a bubblewrap of its own, which ends what it left.
        expect.commandsCanLeaveProcesses = false;
        // A 404 on delete counts as done: a retried DELETE whose first answer was lost.
        expect.killIsIdempotent = true;
        return expect;
    }

    std::unique_ptr<Backend> makeBackend(const QString &) override
    {
        BackendOptions options;
        options.connection.domain = m_server->domain();
        options.connection.apiKey = ApiKey.toByteArray();
        options.connection.requestTimeout = 10s;
        options.retry = {4, 20ms, 2.0, 200ms};
        options.settleTimeout = 10s;
        // The lease keeper looks at every held sandbox twice a second (and renews it), so a
        // sandbox deleted behind the backend's back is noticed within a second.
        options.leaseCheckInterval = 500ms;
        options.leaseRenewMargin = *options.sandbox.timeout - 1s;
        return std::make_unique<OpenSandboxBackend>(options);
    }

    WorkspaceLayout expectedLayout(const SandboxInfo &) const override
    {
        // AgentScope's OpenSandbox constants; its gateway script is AgentScope's marker.
        return {QStringLiteral("/workspace"), QStringLiteral("/root/.agentscope"),
                QStringLiteral("/root/.agentscope/.bootstrap-complete"),
                QStringLiteral("/root/.agentscope/_mcp_gateway_app.py")};
    }

    bool removeBehindTheBackendsBack(const SandboxInfo &sandbox, QString *why) override
    {
        // Another client's DELETE, straight to the server.
        QNetworkAccessManager network;
        QNetworkRequest request(
            QUrl(m_server->base().toString() + QStringLiteral("/v1/sandboxes/") + sandbox.sandboxId));
        request.setRawHeader("OPEN-SANDBOX-API-KEY", ApiKey.toByteArray());
        std::unique_ptr<QNetworkReply> reply(network.deleteResource(request));
        QSignalSpy finished(reply.get(), &QNetworkReply::finished);
        if (!reply->isFinished() && !finished.wait(30'000)) {
            *why = QStringLiteral("no answer to DELETE");
            return false;
        }
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status != 204) {
            *why = QStringLiteral("DELETE answered %1: %2").arg(status).arg(QString::fromUtf8(reply->readAll()));
            return false;
        }
        return true;
    }

private:
    std::unique_ptr<PaddockTest::FakeOpenSandboxProcess> m_server;
};

} // namespace

PADDOCK_CONFORMANCE_MAIN(OpenSandboxTarget)
