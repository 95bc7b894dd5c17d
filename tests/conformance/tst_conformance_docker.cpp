// The backend contract on the Docker backend, against one private dockerd and one busybox image
// for the whole executable (tests/support/privatedocker.h). Where no engine can start the suite
// is skipped; under CI=true it fails instead.

#include "backends/docker/dockerbackend.h"
#include "conformancetarget.h"
#include "privatedocker.h"

#include <QTemporaryDir>

using namespace Paddock;
using namespace Paddock::Docker;

namespace {

class DockerTarget final : public PaddockTest::ConformanceTarget
{
public:
    bool setUp(QString *why) override
    {
        if (!m_dir.isValid()) {
            *why = QStringLiteral("cannot make a temporary folder: ") + m_dir.errorString();
            return false;
        }
        m_engine = std::make_unique<PaddockTest::PrivateDockerEngine>();
        if (!m_engine->start()) {
            *why = m_engine->error();
            return false;
        }
        m_image = m_engine->busyboxImage();
        if (m_image.isEmpty()) {
            *why = m_engine->error();
            return false;
        }
        return true;
    }

    bool mustRun() const override { return PaddockTest::PrivateDockerEngine::mustRun(); }
    void tearDown() override { m_engine.reset(); }

    // "stop": the profile's "stop containers instead of pausing them".
    QStringList variants() const override { return {QString(), QStringLiteral("stop")}; }

    PaddockTest::ConformanceExpectations expectations(const QString &variant) const override
    {
        PaddockTest::ConformanceExpectations expect;
        expect.name = QStringLiteral("docker");
        expect.capabilities = {Capability::ContainerLog, Capability::DeleteFilesOnKill, Capability::Files,
                               Capability::Exec};
        if (variant == QLatin1String("stop"))
            expect.capabilities |= Capability::StopInsteadOfPause;
        expect.profileKind = Profile::Kind::Docker;
        // Nothing watches the engine's events (yet).
        expect.watchesLostSandboxes = false;
        expect.commandsCanLeaveProcesses = true;
        return expect;
    }

    std::unique_ptr<Backend> makeBackend(const QString &variant) override
    {
        DockerOptions options;
        options.dockerHost = m_engine ? m_engine->dockerHost() : QString();
        options.image = m_image;
        options.basedir = m_dir.filePath(QStringLiteral("workspaces"));
        options.stopInsteadOfPause = variant == QLatin1String("stop");
        return std::make_unique<DockerBackend>(options);
    }

    WorkspaceLayout expectedLayout(const SandboxInfo &) const override
    {
        // /workspace is the host folder; the gateway home lives with the data (AgentScope's
        // Docker images bake theirs into /root/.agentscope and never share a container with these).
        return {QStringLiteral("/workspace"),
                QStringLiteral("/workspace/.agentscope"),
                QStringLiteral("/workspace/.agentscope/.bootstrap-complete"),
                {}};
    }

    bool removeBehindTheBackendsBack(const SandboxInfo &sandbox, QString *why) override
    {
        if (m_engine->docker({QStringLiteral("rm"), QStringLiteral("--force"), sandbox.sandboxId}) != 0) {
            *why = QStringLiteral("docker rm failed: ") + QString::fromLocal8Bit(m_engine->lastStandardError());
            return false;
        }
        return true;
    }

private:
    QTemporaryDir m_dir;
    std::unique_ptr<PaddockTest::PrivateDockerEngine> m_engine;
    QString m_image;
};

} // namespace

PADDOCK_CONFORMANCE_MAIN(DockerTarget)
