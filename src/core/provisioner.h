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
    // `bootstrap` is AgentScope's own (agentscopeBootstrapCommands), whose last
    // command puts the package's gateway script in place: the layout's agentscopeMarker then
    // marks completion. Any other bootstrap (a profile's file, `paddockctl --bootstrap`, none)
    // marks it with Paddock's own markerFile and never leaves a gateway script.
    bool agentscopeBootstrap = false;
};

// AgentScope's bootstrap, as its OpenSandbox and Kubernetes workspaces run it (apt, uv, venv,
// the gateway's requirements plus extraPip, agentscope), followed by two commands that put the
// glob helper and the gateway script from the agentscope package just installed into the gateway
// home, the script last. The script is the marker (give ProvisionOptions::agentscopeBootstrap
// with this list): a workspace bootstrapped here is one AgentScope attaches to without
// bootstrapping again, and the other way round. `timeout`: each command's (AgentScope's
// `_bootstrap_cmd_timeout` is 1800 s on Kubernetes; its OpenSandbox manager uses 600 s).
QList<BootstrapCommand> agentscopeBootstrapCommands(const QStringList &extraPip = {},
                                                    const QString &gatewayHome = QStringLiteral("/root/.agentscope"),
                                                    std::chrono::seconds timeout = std::chrono::seconds(1800));

// Parses a bootstrap file: one shell command per line; blank lines and lines starting
// with '#' are skipped; an empty file means no commands.
QList<BootstrapCommand> parseBootstrapCommands(const QString &text, std::chrono::seconds timeout);

// AgentScope's workspace initialise pipeline over any backend:
//   find the sandbox by its workspace id (newest wins) -> resume or connect, else create ->
//   wait until ready -> one mkdir -p of the layout -> bootstrap unless the marker exists ->
//   mark it complete last.
// The marker is AgentScope's (its gateway script, which must be non-empty) for AgentScope's own
// bootstrap, Paddock's own (WorkspaceLayout::markerFile) for any other. An empty gateway script
// (older Paddock versions wrote one as their marker) is never valid: it is removed, with a `sys`
// line saying so; for a bootstrap that is not AgentScope's it counted as complete then, so it
// is replaced by Paddock's marker and that bootstrap does not run again.
// Every step and every output line goes to the workspace's bootstrap log as it happens. When
// the preparation fails, the sandbox is paused; if that fails too, the error and the log say
// that the sandbox is still running.
//
// The backend may be destroyed while a provision() runs: its tasks end (as Cancelled) inside
// its destructor, and a wait of the provisioner's own (between readiness polls) that ends after
// it finds it gone, so nothing reaches for it again. The provisioner itself must outlive its
// tasks.
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
    QString m_key; // the backend's instanceKey(), which the logs are kept under
    BootstrapLogStore *m_logs;
    ProvisionOptions m_options;
};

} // namespace Paddock
