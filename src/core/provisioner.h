#pragma once

#include "result.h"
#include "sandbox.h"
#include "workspace.h"

#include <QCoroFwd>

#include <QList>
#include <QMap>
#include <QString>

#include <chrono>

namespace Paddock {

class Backend;
class BootstrapLogStore;

struct ProvisionRequest
{
    QString workspaceId;
    QString userId;
    QString agentId;
    QString sessionId;
};

// Builds an initialised workspace for an id. The manager calls this on a cache miss.
class WorkspaceProvider
{
public:
    virtual ~WorkspaceProvider() = default;
    virtual QCoro::Task<Result<WorkspacePtr>> provision(ProvisionRequest request) = 0;
    // The backend the workspaces live in, if there is one to watch for lost sandboxes.
    virtual Backend *backend() const { return nullptr; }
};

struct BootstrapCommand
{
    QString command; // run as `sh -c <command>` in the workdir
    std::chrono::seconds timeout{1800};

    bool operator==(const BootstrapCommand &) const = default;
};

struct ProvisionOptions
{
    QList<BootstrapCommand> bootstrap;
    QMap<QString, QString> metadata; // profile metadata for new sandboxes
    std::chrono::milliseconds readyTimeout{30'000};
};

// Parses a bootstrap file: one shell command per line; blank lines and lines starting
// with '#' are skipped; an empty file means no commands.
QList<BootstrapCommand> parseBootstrapCommands(const QString &text, std::chrono::seconds timeout);

// AgentScope's workspace initialise pipeline over any backend:
//   find the sandbox by its workspace id (newest wins) -> resume or connect, else create ->
//   wait until ready -> one mkdir -p of the layout -> bootstrap unless the marker exists ->
//   write the marker last.
// Every step and every output line goes to the workspace's bootstrap log as it happens.
class Provisioner final : public WorkspaceProvider
{
public:
    Provisioner(Backend *backend, BootstrapLogStore *logs, ProvisionOptions options = {});

    Backend *backend() const override { return m_backend; }
    const ProvisionOptions &options() const { return m_options; }

    QCoro::Task<Result<WorkspacePtr>> provision(ProvisionRequest request) override;

private:
    QCoro::Task<Result<SandboxInfo>> attachOrCreate(const ProvisionRequest &request);
    QCoro::Task<Result<>> waitUntilReady(const SandboxInfo &sandbox);
    QCoro::Task<Result<>> ensureLayout(const SandboxInfo &sandbox, const WorkspaceLayout &layout);
    QCoro::Task<Result<>> bootstrap(const SandboxInfo &sandbox, const WorkspaceLayout &layout);
    QCoro::Task<Result<>> runBootstrapCommand(const SandboxInfo &sandbox, const WorkspaceLayout &layout,
                                              const BootstrapCommand &command);
    void status(const QString &workspaceId, const QString &text);
    // Kept next to the log: whether the workspace is ready, or why its preparation failed.
    void outcome(const QString &workspaceId, bool succeeded, const QString &message);

    Backend *m_backend;
    BootstrapLogStore *m_logs;
    ProvisionOptions m_options;
};

} // namespace Paddock
