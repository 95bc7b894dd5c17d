// The backend contract on the Docker backend, against one private dockerd and one busybox image
// for the whole executable (tests/support/privatedocker.h). Where no engine can start the suite
// is skipped; under CI=true it fails instead. Built twice: in Paddock's layout
// (tst_conformance_docker) and in AgentScope's (tst_conformance_docker_agentscope, with
// PADDOCK_CONFORMANCE_AGENTSCOPE): the as_ws_<id> containers of AgentScope's
// DockerWorkspaceManager over <basedir>/<user id>/<agent id>.

#include "backends/docker/dockerbackend.h"
#include "conformancetarget.h"
#include "isolation.h"
#include "privatedocker.h"

#include <QDir>
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

    // "stop": the profile's "stop containers instead of pausing them" (AgentScope's layout
    // removes containers on close whatever it says).
    QStringList variants() const override
    {
        if (agentscope())
            return {QString()};
        return {QString(), QStringLiteral("stop")};
    }

    PaddockTest::ConformanceExpectations expectations(const QString &variant) const override
    {
        PaddockTest::ConformanceExpectations expect;
        expect.name = QStringLiteral("docker");
        if (agentscope()) {
            // A close removes the container and keeps its folder (Paused, raw state Stopped); a
            // kill deletes the folder too. Labelled only as AgentScope labels its containers (no
            // profile metadata), and AgentScope's gateway home is in the container: each new
            // container bootstraps again, as AgentScope's do.
            expect.capabilities = {Capability::ContainerLog, Capability::Files, Capability::Exec,
                                   Capability::StopInsteadOfPause, Capability::Metrics};
            expect.profileKind = Profile::Kind::Docker;
            expect.keepsProfileMetadata = false;
            expect.bootstrapSurvivesClose = false;
            return expect;
        }
        expect.capabilities = {Capability::ContainerLog, Capability::DeleteFilesOnKill, Capability::Files,
                               Capability::Exec, Capability::Metrics};
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
        options.basedir = basedir();
        options.stopInsteadOfPause = variant == QLatin1String("stop");
        options.layout = m_layout;
        return std::make_unique<DockerBackend>(options);
    }

    WorkspaceLayout expectedLayout(const SandboxInfo &) const override
    {
        // AgentScope's: /workspace is the folder of the user's agent, the gateway home is
        // AgentScope's own in the container (`_docker/_make_dockerfile.py`).
        if (agentscope()) {
            return {QStringLiteral("/workspace"),
                    QStringLiteral("/root/.agentscope"),
                    QStringLiteral("/root/.agentscope/.bootstrap-complete"),
                    {}};
        }
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
        // In AgentScope's layout a container gone alone is a closed workspace: a lost one has lost
        // its folder too (as a Kubernetes Pod and its PVC).
        const QString folder = basedir() + u'/' + sandbox.userId + u'/' + sandbox.agentId;
        if (agentscope() && !QDir(folder).removeRecursively()) {
            *why = QStringLiteral("cannot delete ") + folder;
            return false;
        }
        return true;
    }

    PaddockTest::WorkspaceIds workspaceIds(const QString &name, const QString &userId,
                                           const QString &agentId) const override
    {
        // AgentScope's DockerWorkspaceManager: assign_workspace_id(user, agent) under per_agent.
        if (agentscope())
            return {assignWorkspaceId(IsolationPolicy::PerAgent, userId, agentId), userId, agentId};
        return {name, userId, agentId};
    }

    QString unknownSandboxId() const override
    {
        // Shaped as AgentScope's container names are, so that its folders are looked through too.
        return agentscope() ? QStringLiteral("as_ws_0000000000000000") : QStringLiteral("conformance-no-such-sandbox");
    }

private:
    QString basedir() const { return m_dir.filePath(QStringLiteral("workspaces")); }
    bool agentscope() const { return m_layout == Profile::Layout::AgentScope; }

    QTemporaryDir m_dir;
    std::unique_ptr<PaddockTest::PrivateDockerEngine> m_engine;
    QString m_image;
#ifdef PADDOCK_CONFORMANCE_AGENTSCOPE
    const Profile::Layout m_layout = Profile::Layout::AgentScope;
#else
    const Profile::Layout m_layout = Profile::Layout::Paddock;
#endif
};

} // namespace

PADDOCK_CONFORMANCE_MAIN(DockerTarget)
