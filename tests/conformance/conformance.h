#pragma once

// The backend contract, written once against Paddock::Backend (and, where the contract is the
// manager's, a ProfileSession over that backend), run over every backend by its target
// (conformancetarget.h). README.md in this folder says what each check asks and why.

#include "conformancetarget.h"
#include "workspacemanager.h"

#include <QHash>
#include <QObject>
#include <QTemporaryDir>

#include <chrono>
#include <memory>
#include <optional>

namespace Paddock {
class BootstrapLogStore;
}

namespace PaddockTest {

class BackendConformance final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(BackendConformance)

public:
    explicit BackendConformance(ConformanceTarget *target, QObject *parent = nullptr);
    ~BackendConformance() override;

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void cleanupTestCase();

    // What the backend is.
    void capabilitiesAreWhatTheTargetExpects();
    // Create and find.
    void createKeepsTheIdsAndListFindsThem();
    void anotherInstanceFindsAndConnectsTheSandbox();
    // The inspector's overview.
    void detailsAreWhatGetSays();
    // Pause and resume.
    void pauseAndResume_data();
    void pauseAndResume();
    void pauseInTwoStepsAsABulkJobDoes();
    // Commands.
    void execExitCodes();
    void execKeepsStdoutAndStderrApartInOrder();
    void execStreamsLinesAsTheyArrive();
    void execPassesArgumentsAsGiven();
    void execRunsInTheWorkdirOrTheGivenFolder();
    void execTimeoutKeepsTheOutputSoFar();
    void execCancelStopsTheCommandAndItsGroup();
    // Last activity.
    void sessionsActivityIsTheNewestChangeUnderSessions();
    // Kill.
    void killRemovesTheSandboxAndItsFilesAsTheCapabilitySays();
    // What capabilities promise, or refuse.
    void renewAsTheCapabilitySays();
    void containerLogsAsTheCapabilitySays();
    void metricsAsTheCapabilitySays();
    // Bad input.
    void unknownIdsAreNotFound();

    void filesListStatAndReadWhatTheSandboxWrote();
    void filesDownloadAndUpload();
    void filesOutsideTheWorkspaceAreRefused();
    void filesMissingAreNotFound();
    void filesUploadIsRefusedOnAReadOnlyProfile();
    // The manager's contract over this backend (a ProfileSession).
    void openLaysTheWorkspaceOutAsAgentScopeDoes();
    void anotherProcessReattachesWithoutBootstrapping();
    void aLostSandboxIsLetGo();
    void killThroughTheSessionDropsTheWorkspace();
    // The inspector's reads (src/core/inspect/workspaceinspector.h) over this backend.
    void inspectorReadsAgentScopesWorkspace();

private:
    // A new workspace of the suite: its id (the target's for the name cf-<n>-<what>, the user
    // "conformance-user" and an agent of the same name), remembered with its user and agent.
    QString nextWorkspaceId(const char *what);
    // The same, for a user and an agent of the check's own.
    WorkspaceIds nextWorkspace(const char *what, const QString &userId, const QString &agentId);
    // Made with m_backend and killed by cleanup().
    Paddock::Result<Paddock::SandboxInfo> make(Paddock::Backend &backend, const QString &workspaceId);
    void remember(const QString &sandboxId);
    // One sandbox the command checks share (made once, killed by cleanupTestCase()).
    Paddock::Result<Paddock::SandboxInfo> commandSandbox();
    Paddock::Result<Paddock::ExecResult> shell(Paddock::Backend &backend, const Paddock::SandboxInfo &sandbox,
                                               const QString &script,
                                               std::chrono::milliseconds timeout = std::chrono::milliseconds(0));
    // Whether a file under the workdir exists, through the backend's exec.
    Paddock::Result<bool> exists(Paddock::Backend &backend, const Paddock::SandboxInfo &sandbox,
                                 const QString &relativePath);
    Paddock::Profile sessionProfile() const;
    // The command sandbox with a fresh folder of files for a file check (data/<folder>: a.txt
    // "hello world", sub/, link -> a.txt, out -> /etc); false: skipped or failed.
    bool prepareFiles(Paddock::SandboxInfo *sandbox, QString *folder);
    Paddock::WorkspaceRequest requestFor(const QString &workspaceId) const;

    ConformanceTarget *m_target;
    ConformanceExpectations m_expect; // the default variant's
    QTemporaryDir m_dir;
    std::unique_ptr<Paddock::BootstrapLogStore> m_logs;
    std::unique_ptr<Paddock::Backend> m_backend; // a fresh one for every check
    QStringList m_made; // sandboxes the current check made
    QHash<QString, WorkspaceIds> m_ids; // by workspace id, what nextWorkspace() gave
    std::optional<Paddock::SandboxInfo> m_commandSandbox;
    int m_counter = 0;
    bool m_ready = false;
};

} // namespace PaddockTest
