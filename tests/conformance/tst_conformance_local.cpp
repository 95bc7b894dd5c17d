// The backend contract on the local backend: workspaces are folders of a temporary basedir that
// every instance shares, commands real child processes.

#include "backends/local/localbackend.h"
#include "conformancetarget.h"

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
        expect.capabilities = {Capability::Files, Capability::Exec};
        expect.profileKind = Profile::Kind::Local;
        // Nothing watches the basedir; a pause only marks the workspace (its processes are the
        // commands', and they run on).
        expect.watchesLostSandboxes = false;
        expect.commandsCanLeaveProcesses = true;
        return expect;
    }

    std::unique_ptr<Backend> makeBackend(const QString &) override
    {
        return std::make_unique<LocalBackend>(LocalOptions{basedir(), false});
    }

    WorkspaceLayout expectedLayout(const SandboxInfo &sandbox) const override
    {
        // <basedir>/<workspace id>, the gateway home inside it; no AgentScope marker (AgentScope's
        // local workspaces have no gateway).
        const QString workdir = basedir() + u'/' + sandbox.workspaceId;
        const QString gatewayHome = workdir + QStringLiteral("/.agentscope");
        return {workdir, gatewayHome, gatewayHome + QStringLiteral("/.bootstrap-complete"), {}};
    }

    bool removeBehindTheBackendsBack(const SandboxInfo &sandbox, QString *why) override
    {
        // A local workspace is its folder: someone deleted it.
        const QString folder = basedir() + u'/' + sandbox.sandboxId;
        if (!QDir(folder).removeRecursively()) {
            *why = QStringLiteral("cannot delete ") + folder;
            return false;
        }
        return true;
    }

private:
    QString basedir() const { return m_dir.filePath(QStringLiteral("workspaces")); }

    QTemporaryDir m_dir;
};

} // namespace

PADDOCK_CONFORMANCE_MAIN(LocalTarget)
