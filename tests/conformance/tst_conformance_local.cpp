// The backend contract on the local backend: workspaces are folders of a temporary basedir that
// every instance shares, commands real child processes. Built twice: in Paddock's layout
// (tst_conformance_local) and in AgentScope's (tst_conformance_local_agentscope, with
// PADDOCK_CONFORMANCE_AGENTSCOPE): the folders <basedir>/<agent id> of AgentScope's
// LocalWorkspaceManager.

#include "backends/local/localbackend.h"
#include "conformancetarget.h"
#include "isolation.h"

#include <QDir>
#include <QTemporaryDir>

using namespace Paddock;

namespace {

class LocalTarget final : public PaddockTest::ConformanceTarget
{
public:
    bool setUp(QString *why) override
    {
        if (!m_dir.isValid()) {
            *why = QStringLiteral("cannot make a temporary folder: ") + m_dir.errorString();
            return false;
        }
        return true;
    }

    PaddockTest::ConformanceExpectations expectations(const QString &) const override
    {
        PaddockTest::ConformanceExpectations expect;
        expect.name = QStringLiteral("local");
        expect.capabilities = {Capability::Files, Capability::Exec, Capability::Metrics};
        // AgentScope's folders belong to their agent, whoever the user: none is recorded.
        if (agentscope())
            expect.capabilities |= Capability::UserNotRecorded;
        expect.profileKind = Profile::Kind::Local;
        // Nothing watches the basedir; a pause only marks the workspace (its processes are the
        // commands', and they run on).
        expect.watchesLostSandboxes = false;
        expect.commandsCanLeaveProcesses = true;
        return expect;
    }

    std::unique_ptr<Backend> makeBackend(const QString &) override
    {
        return std::make_unique<LocalBackend>(LocalOptions{basedir(), false, m_layout});
    }

    WorkspaceLayout expectedLayout(const SandboxInfo &sandbox) const override
    {
        // <basedir>/<workspace id>, the gateway home inside it; no AgentScope marker (AgentScope's
        // local workspaces have no gateway). In AgentScope's layout, <basedir>/<agent id>, and
        // Paddock's gateway home (its marker) beside it, with its metadata: nothing of Paddock's
        // is in what the agents see.
        if (agentscope()) {
            const QString home =
                basedir() + QStringLiteral("/.paddock/") + sandbox.agentId + QStringLiteral("/.agentscope");
            return {basedir() + u'/' + sandbox.agentId, home, home + QStringLiteral("/.bootstrap-complete"), {}};
        }
        const QString workdir = basedir() + u'/' + sandbox.workspaceId;
        const QString gatewayHome = workdir + QStringLiteral("/.agentscope");
        return {workdir, gatewayHome, gatewayHome + QStringLiteral("/.bootstrap-complete"), {}};
    }

    bool removeBehindTheBackendsBack(const SandboxInfo &sandbox, QString *why) override
    {
        // A local workspace is its folder: someone deleted it (in AgentScope's layout Paddock's
        // metadata beside it stays, and means nothing without the folder).
        const QString folder = basedir() + u'/' + sandbox.sandboxId;
        if (!QDir(folder).removeRecursively()) {
            *why = QStringLiteral("cannot delete ") + folder;
            return false;
        }
        return true;
    }

    PaddockTest::WorkspaceIds workspaceIds(const QString &name, const QString &userId,
                                           const QString &agentId) const override
    {
        // AgentScope's LocalWorkspaceManager: assign_workspace_id with user_id="" under per_agent.
        if (agentscope())
            return {assignWorkspaceId(IsolationPolicy::PerAgent, {}, agentId), userId, agentId};
        return {name, userId, agentId};
    }

private:
    QString basedir() const { return m_dir.filePath(QStringLiteral("workspaces")); }
    bool agentscope() const { return m_layout == Profile::Layout::AgentScope; }

    QTemporaryDir m_dir;
#ifdef PADDOCK_CONFORMANCE_AGENTSCOPE
    const Profile::Layout m_layout = Profile::Layout::AgentScope;
#else
    const Profile::Layout m_layout = Profile::Layout::Paddock;
#endif
};

} // namespace

PADDOCK_CONFORMANCE_MAIN(LocalTarget)
