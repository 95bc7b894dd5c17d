// The backend contract on the E2B backend, against one paddock-fake-e2b for the whole executable
// (its commands run under bubblewrap, one sandbox per E2B sandbox).

#include "backends/e2b/e2bbackend.h"
#include "conformancetarget.h"
#include "fakee2bprocess.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>

#include <memory>

using namespace Paddock;
using namespace Paddock::E2B;
using namespace std::chrono_literals;

namespace {

constexpr QByteArrayView ApiKey{"e2b_c0f0e2b0c0f0e2b0"};

class E2BTarget final : public PaddockTest::ConformanceTarget
{
public:
    bool setUp(QString *why) override
    {
        m_server = std::make_unique<PaddockTest::FakeE2bProcess>();
        if (!m_server->start({QStringLiteral("--api-key"), QString::fromLatin1(ApiKey)})) {
            *why = QStringLiteral("paddock-fake-e2b did not start: ") + m_server->error();
            return false;
        }
        return true;
    }

    void tearDown() override { m_server.reset(); }

    PaddockTest::ConformanceExpectations expectations(const QString &) const override
    {
        PaddockTest::ConformanceExpectations expect;
        expect.name = QStringLiteral("e2b");
        expect.capabilities = {Capability::Renew, Capability::Files, Capability::Exec, Capability::Metrics};
        expect.profileKind = Profile::Kind::E2B;
        // A 404 on delete counts as done: a retried DELETE whose first answer was lost.
        expect.killIsIdempotent = true;
        return expect;
    }

    std::unique_ptr<Backend> makeBackend(const QString &) override
    {
        BackendOptions options;
        options.connection.apiUrl = m_server->apiUrl().toString();
        options.connection.sandboxUrl = m_server->envdUrl().toString();
        options.connection.apiKey = ApiKey.toByteArray();
        options.connection.requestTimeout = 10s;
        options.retry = {4, 20ms, 2.0, 200ms};
        // Long enough that no sandbox of the suite expires while it runs.
        options.timeout = 3600s;
        return std::make_unique<E2BBackend>(options);
    }

    WorkspaceLayout expectedLayout(const SandboxInfo &) const override
    {
        // AgentScope's E2B constants; its gateway script is AgentScope's marker.
        return {QStringLiteral("/home/user/workspace"), QStringLiteral("/home/user/.agentscope"),
                QStringLiteral("/home/user/.agentscope/.bootstrap-complete"),
                QStringLiteral("/home/user/.agentscope/_mcp_gateway_app.py")};
    }

    bool removeBehindTheBackendsBack(const SandboxInfo &sandbox, QString *why) override
    {
        // Another client's DELETE, straight to the control plane.
        QNetworkAccessManager network;
        QNetworkRequest request(
            QUrl(m_server->apiUrl().toString() + QStringLiteral("/sandboxes/") + sandbox.sandboxId));
        request.setRawHeader("X-API-Key", ApiKey.toByteArray());
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

    QString unknownSandboxId() const override { return QStringLiteral("inosuchsandbox0000000"); }

private:
    std::unique_ptr<PaddockTest::FakeE2bProcess> m_server;
};

} // namespace

PADDOCK_CONFORMANCE_MAIN(E2BTarget)
