#pragma once

// What the conformance suite needs from one backend (README.md in this folder): how to make
// instances of it on shared storage, what to do behind its back, and where it is allowed to
// differ from the others. One small subclass per backend, in tst_conformance_<backend>.cpp.

#include "backend.h"
#include "profile.h"
#include "sandbox.h"

#include <QDateTime>
#include <QString>
#include <QStringList>

#include <chrono>
#include <functional>
#include <memory>

namespace PaddockTest {

// Where a backend may differ from the others; everything else in the suite holds for all.
struct ConformanceExpectations
{
    QString name; // Backend::name()
    Paddock::Capabilities capabilities; // exactly what Backend::capabilities() says
    Paddock::Profile::Kind profileKind = Paddock::Profile::Kind::Local; // for the ProfileSession checks
    // The backend notices by itself that a sandbox it holds (made, connected to or resumed, not
    // paused) was removed behind its back, and emits sandboxLost within lostWithin.
    bool watchesLostSandboxes = false;
    std::chrono::milliseconds lostWithin{10'000};
    // A process that a command starts in the background runs on after the command ended. (The
    // OpenSandbox fake runs each command in a bubblewrap of its own, which ends them all.)
    bool commandsCanLeaveProcesses = true;
    // Killing a sandbox that does not exist (any more) succeeds, instead of NotFound.
    bool killIsIdempotent = false;
    // sessionsActivity() reads the sessions/ folder; false: it always answers nullopt.
    bool reportsSessionsActivity = true;
    // Where the backend has Capability::Files but its file calls are not written yet: why. The
    // file checks are skipped with it.
    QString filesMissing;
    // The profile's metadata (CreateSpec::metadata) comes back in the sandbox's metadata. False
    // where the backend labels its sandboxes only as AgentScope does (Docker in AgentScope's
    // layout).
    bool keepsProfileMetadata = true;
    // Paddock's bootstrap marker outlives a close: a workspace opened again does not bootstrap
    // again. False where a close removes the sandbox and AgentScope's gateway home with it, so
    // each new one bootstraps, as AgentScope's do (Docker in AgentScope's layout).
    bool bootstrapSurvivesClose = true;
};

// The ids of a workspace the suite makes: its workspace id, its user and its agent.
struct WorkspaceIds
{
    QString workspaceId;
    QString userId;
    QString agentId;
};

class ConformanceTarget
{
public:
    ConformanceTarget() = default;
    virtual ~ConformanceTarget() = default;
    ConformanceTarget(const ConformanceTarget &) = delete;
    ConformanceTarget &operator=(const ConformanceTarget &) = delete;

    // Once, before the first check: start what the backend needs (a server, an engine) and the
    // storage that every backend makeBackend() returns shares. false: *why says why the backend
    // cannot be tested on this machine, and the suite is skipped (failed when mustRun()).
    virtual bool setUp(QString *why) = 0;
    // Whether a setUp() that fails fails the suite instead of skipping it (Docker under CI=true).
    virtual bool mustRun() const { return false; }
    // Once, after the last check (the suite has killed what it made).
    virtual void tearDown() { }

    // The configurations the pause check runs over; "" is the default, the only one the other
    // checks use (Docker adds "stop": StopInsteadOfPause).
    virtual QStringList variants() const { return {QString()}; }
    virtual ConformanceExpectations expectations(const QString &variant = {}) const = 0;
    // A new, independent backend on the same storage or server as every other one made here:
    // what a second process (another console, paddockctl, a restart) would make.
    virtual std::unique_ptr<Paddock::Backend> makeBackend(const QString &variant = {}) = 0;
    // Where this backend keeps a workspace (workdir, gateway home and the markers), as
    // ../shared/reference/agentscope-workspace-contents.md §1 has it for this backend.
    virtual Paddock::WorkspaceLayout expectedLayout(const Paddock::SandboxInfo &sandbox) const = 0;

    // Removes the sandbox behind the backend's back, as another client, the server or a user
    // would (docker rm -f, a DELETE, rm -rf of a local folder). false: *why.
    virtual bool removeBehindTheBackendsBack(const Paddock::SandboxInfo &sandbox, QString *why) = 0;
    // Sets the modification time of <workdir>/sessions/<path> (empty path: the folder itself),
    // making it (a file, with its folders) if it is not there. The default runs mkdir and
    // `touch -d @<seconds>` through backend.exec().
    virtual bool touchInSessions(Paddock::Backend &backend, const Paddock::SandboxInfo &sandbox, const QString &path,
                                 const QDateTime &time, QString *why);
    // A sandbox id that no sandbox has, shaped as this backend's ids are.
    virtual QString unknownSandboxId() const { return QStringLiteral("conformance-no-such-sandbox"); }
    // The ids of the workspace the suite calls `name`, for a user and an agent (every workspace of
    // the suite has an agent of its own). The default: `name` is its workspace id. A backend whose
    // ids follow from the user and the agent (AgentScope's layouts, where a workspace is the
    // folder of an agent) gives the id it assigns them.
    virtual WorkspaceIds workspaceIds(const QString &name, const QString &userId, const QString &agentId) const
    {
        return {name, userId, agentId};
    }
};

// The suite over one target: the main() of a tst_conformance_<backend> executable. The target
// is made once the application exists, and destroyed before it.
int runConformance(int argc, char **argv, const std::function<std::unique_ptr<ConformanceTarget>()> &makeTarget);

} // namespace PaddockTest

// main() for a target file: PADDOCK_CONFORMANCE_MAIN(LocalTarget)
#define PADDOCK_CONFORMANCE_MAIN(TargetClass)                                                                          \
    int main(int argc, char **argv)                                                                                    \
    {                                                                                                                  \
        return PaddockTest::runConformance(argc, argv, [] { return std::make_unique<TargetClass>(); });                \
    }
