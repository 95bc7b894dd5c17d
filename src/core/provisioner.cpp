#include "provisioner.h"

#include "backend.h"
#include "backoff.h"
#include "bootstraplog.h"
#include "logging.h"
#include "shellquote.h"
#include "tr.h"

#include <QCoroTask>
#include <QCoroTimer>

#include <QDeadlineTimer>
#include <QPointer>

#include <algorithm>

namespace Paddock {

namespace {

// The last bytes of a command's output, for an error message.
QString tail(const QByteArray &output, qsizetype bytes = 2000)
{
    return QString::fromUtf8(output.right(bytes)).trimmed();
}

// GCC 12 cannot keep brace-initialised arrays alive across co_await, so the argument
// lists are built here, outside the coroutines.
QList<SandboxState> attachableStates()
{
    return {SandboxState::Running, SandboxState::Paused};
}

QString rootFolder()
{
    return QStringLiteral("/");
}

QStringList shellArgv(const QString &command)
{
    return {QStringLiteral("sh"), QStringLiteral("-c"), command};
}

QStringList layoutArgv(const WorkspaceLayout &layout)
{
    return QStringList{QStringLiteral("mkdir"), QStringLiteral("-p")} + layout.directories();
}

// What the marker check prints when it removed an empty gateway script.
constexpr QLatin1String RemovedEmptyGateway{"removed-empty-gateway-script"};

// Removes an empty gateway script, which is never valid: AgentScope would take it for its marker
// and start it as its gateway. Paths are quoted as shlex.quote would.
QString removeEmptyGateway(const WorkspaceLayout &layout, const QString &andThen)
{
    const QString gateway = shellQuote(layout.agentscopeMarker);
    return QStringLiteral("if [ -f ") + gateway + QStringLiteral(" ] && [ ! -s ") + gateway
        + QStringLiteral(" ]; then rm -f ") + gateway + andThen + QStringLiteral("; fi; ");
}

// Exit 0 when the bootstrap is complete: AgentScope's gateway script is there and not empty (for
// AgentScope's bootstrap), else Paddock's marker is there. An empty gateway script is removed on
// the way (printing RemovedEmptyGateway); for another bootstrap it was an older Paddock's marker
// of that bootstrap, so Paddock's marker takes its place.
QStringList markerTestArgv(const WorkspaceLayout &layout, bool agentscope)
{
    if (layout.agentscopeMarker.isEmpty())
        return {QStringLiteral("test"), QStringLiteral("-e"), layout.markerFile};
    const QString replace = agentscope ? QString() : QStringLiteral(" && : > ") + shellQuote(layout.markerFile);
    const QString test = agentscope ? QStringLiteral("test -s ") + shellQuote(layout.agentscopeMarker)
                                    : QStringLiteral("test -e ") + shellQuote(layout.markerFile);
    return shellArgv(removeEmptyGateway(layout, replace + QStringLiteral(" && echo ") + RemovedEmptyGateway) + test);
}

// After AgentScope's bootstrap: its last command put the package's gateway script in place.
QStringList gatewayCheckArgv(const WorkspaceLayout &layout)
{
    return {QStringLiteral("test"), QStringLiteral("-s"), layout.agentscopeMarker};
}

// After any other bootstrap: Paddock's marker, and no empty gateway script left behind.
QStringList markerWriteArgv(const WorkspaceLayout &layout)
{
    const QString write = QStringLiteral(": > ") + shellQuote(layout.markerFile);
    if (layout.agentscopeMarker.isEmpty())
        return shellArgv(write);
    return shellArgv(removeEmptyGateway(layout, {}) + write);
}

} // namespace

Provisioner::Provisioner(Backend *backend, BootstrapLogStore *logs, ProvisionOptions options)
    : m_backend(backend)
    , m_key(backend->instanceKey())
    , m_logs(logs)
    , m_options(std::move(options))
{
}

void Provisioner::status(const QString &workspaceId, const QString &text)
{
    qCInfo(lcProvision).noquote() << workspaceId << text;
    if (auto appended = m_logs->append(m_key, workspaceId, LogLine::Kind::Status, text.toUtf8()); !appended) {
        qCWarning(lcProvision).noquote() << appended.error().message;
    }
}

void Provisioner::outcome(const QString &workspaceId, bool succeeded, const QString &message)
{
    if (auto recorded = m_logs->recordOutcome(m_key, workspaceId, succeeded, message); !recorded)
        qCWarning(lcProvision).noquote() << recorded.error().message;
}

QCoro::Task<Result<WorkspacePtr>> Provisioner::provision(ProvisionRequest request)
{
    const QString id = request.workspaceId;
    // Whether the backend is still there after the waits that are not its own (readiness).
    const QPointer<Backend> backend = m_backend;
    // The log opens first: if it cannot be kept, nothing is created.
    if (auto opened = m_logs->open(m_key, id); !opened)
        co_return fail(opened.error());
    status(id, Tr::tr("provisioning workspace %1 on the %2 backend").arg(id, m_backend->name()));

    auto sandbox = co_await attachOrCreate(request);
    if (!sandbox) {
        status(id, Tr::tr("failed: %1").arg(sandbox.error().message));
        m_logs->close(m_key, id);
        co_return fail(sandbox.error());
    }

    const WorkspaceLayout layout = m_backend->layout(*sandbox);
    Result<> prepared = co_await waitUntilReady(*sandbox);
    if (prepared)
        prepared = co_await ensureLayout(*sandbox, layout);
    if (prepared)
        prepared = co_await bootstrap(*sandbox, layout);

    if (!prepared) {
        status(id, Tr::tr("failed: %1").arg(prepared.error().message));
        Error error = prepared.error();
        // Nothing will hold this sandbox, so it must not stay running. Its files stay, and the
        // missing marker makes the next open bootstrap again. If it cannot be paused, whoever
        // reads the error or the log must learn that it still runs (and costs).
        QString notPaused;
        if (!backend) {
            notPaused = Tr::tr("its backend was closed");
        } else if (auto paused = co_await m_backend->pause(sandbox->sandboxId); !paused) {
            notPaused = paused.error().message;
        }
        if (!notPaused.isEmpty()) {
            qCWarning(lcProvision).noquote() << "cannot pause" << sandbox->sandboxId << notPaused;
            status(id,
                   Tr::tr("sandbox %1 is still running: it could not be paused after the failure: %2")
                       .arg(sandbox->sandboxId, notPaused));
            error.message = Tr::tr("%1; and sandbox %2 is still running: it could not be paused after the failure: %3")
                                .arg(error.message, sandbox->sandboxId, notPaused);
        }
        outcome(id, false, error.message);
        m_logs->close(m_key, id);
        co_return fail(std::move(error));
    }

    status(id, Tr::tr("workspace %1 is ready").arg(id));
    outcome(id, true, {});
    m_logs->close(m_key, id);
    co_return std::make_shared<SandboxWorkspace>(m_backend, *sandbox, layout);
}

QCoro::Task<Result<SandboxInfo>> Provisioner::attachOrCreate(const ProvisionRequest &request)
{
    const QString id = request.workspaceId;
    const ListFilter attachable{id, attachableStates()};
    auto found = co_await m_backend->list(attachable);
    if (!found)
        co_return fail(found.error());

    const QList<SandboxInfo> &matches = *found;
    if (matches.isEmpty()) {
        status(id, Tr::tr("creating a new sandbox"));
        const CreateSpec spec{id, request.userId, request.agentId, m_options.metadata};
        co_return co_await m_backend->create(spec);
    }

    if (matches.size() > 1) {
        qCWarning(lcProvision).noquote() << QStringLiteral(
                                                "%1 sandboxes match workspace_id=%2; attaching to most recent")
                                                .arg(matches.size())
                                                .arg(id);
    }
    const SandboxInfo newest = newestOf(matches);
    if (newest.state == SandboxState::Paused) {
        status(id, Tr::tr("resuming paused sandbox %1").arg(newest.sandboxId));
        co_return co_await m_backend->resume(newest.sandboxId);
    }
    status(id, Tr::tr("connecting to running sandbox %1").arg(newest.sandboxId));
    co_return co_await m_backend->connect(newest.sandboxId);
}

QCoro::Task<Result<>> Provisioner::waitUntilReady(const SandboxInfo &sandbox)
{
    // The sleep between polls is the provisioner's own: the backend may be gone when it ends.
    const QPointer<Backend> backend = m_backend;
    const std::chrono::milliseconds limit = m_options.readyTimeout;
    const QDeadlineTimer deadline(limit);
    Backoff backoff;
    for (;;) {
        auto ready = co_await backend->isReady(sandbox.sandboxId);
        if (ready && *ready)
            co_return Result<>{};
        // An error counts as "not yet", as upstream does; but a backend that is closing says so
        // once and for all.
        if (!ready && ready.error().kind == Error::Kind::Cancelled)
            co_return fail(ready.error());
        if (deadline.hasExpired()) {
            co_return fail(Error::timeout(Tr::tr("sandbox %1 did not become ready within %2 s (workspace %3)")
                                              .arg(sandbox.sandboxId)
                                              .arg(std::chrono::duration<double>(limit).count())
                                              .arg(sandbox.workspaceId)));
        }
        const auto delay =
            std::min(backoff.next(), std::chrono::milliseconds(std::max<qint64>(deadline.remainingTime(), 0)));
        co_await QCoro::sleepFor(delay);
        if (!backend) {
            co_return fail(Error{Error::Kind::Cancelled,
                                 Tr::tr("cancelled: the backend of sandbox %1 was closed").arg(sandbox.sandboxId)});
        }
    }
}

QCoro::Task<Result<>> Provisioner::ensureLayout(const SandboxInfo &sandbox, const WorkspaceLayout &layout)
{
    ExecRequest makeDirs;
    makeDirs.argv = layoutArgv(layout);
    makeDirs.cwd = rootFolder();
    auto result = co_await m_backend->exec(sandbox.sandboxId, std::move(makeDirs));
    if (!result)
        co_return fail(result.error());
    if (result->exitCode != 0) {
        co_return fail(Error::backend(Tr::tr("cannot create the workspace layout (exit %1): %2")
                                          .arg(result->exitCode)
                                          .arg(tail(result->stdErr))));
    }
    co_return Result<>{};
}

QCoro::Task<Result<>> Provisioner::bootstrap(const SandboxInfo &sandbox, const WorkspaceLayout &layout)
{
    const QString id = sandbox.workspaceId;
    // AgentScope's marker only where the backend has one; elsewhere its bootstrap is marked as
    // any other.
    const bool agentscope = m_options.agentscopeBootstrap && !layout.agentscopeMarker.isEmpty();
    const QString marker = agentscope ? layout.agentscopeMarker : layout.markerFile;
    ExecRequest testMarker;
    testMarker.argv = markerTestArgv(layout, agentscope);
    auto tested = co_await m_backend->exec(sandbox.sandboxId, std::move(testMarker));
    if (!tested)
        co_return fail(tested.error());
    if (tested->stdOut.contains(QByteArray(RemovedEmptyGateway.data(), RemovedEmptyGateway.size()))) {
        qCWarning(lcProvision).noquote() << id << "had an empty gateway script" << layout.agentscopeMarker;
        status(id,
               agentscope ? Tr::tr("removed the empty gateway script %1, which an older Paddock left as its "
                                   "bootstrap marker (AgentScope would start it as its MCP gateway); "
                                   "AgentScope's bootstrap runs again")
                                .arg(layout.agentscopeMarker)
                          : Tr::tr("removed the empty gateway script %1, which an older Paddock left as its "
                                   "bootstrap marker (AgentScope would start it as its MCP gateway); "
                                   "%2 marks the bootstrap complete instead")
                                .arg(layout.agentscopeMarker, layout.markerFile));
    }
    if (tested->exitCode == 0) {
        status(id, Tr::tr("bootstrap already complete (%1 exists)").arg(marker));
        co_return Result<>{};
    }

    status(id, Tr::tr("bootstrap: %n command(s)", nullptr, int(m_options.bootstrap.size())));
    for (const BootstrapCommand &command : m_options.bootstrap) {
        if (auto ran = co_await runBootstrapCommand(sandbox, layout, command); !ran)
            co_return ran;
    }

    // Completion is marked last, so an interrupted bootstrap runs again on the next open.
    // AgentScope's bootstrap marks it itself (its last command puts the gateway script in place):
    // the script is checked, never made up.
    ExecRequest markDone;
    markDone.argv = agentscope ? gatewayCheckArgv(layout) : markerWriteArgv(layout);
    auto marked = co_await m_backend->exec(sandbox.sandboxId, std::move(markDone));
    if (!marked)
        co_return fail(marked.error());
    if (marked->exitCode != 0 && agentscope) {
        co_return fail(Error::bootstrap(
            Tr::tr("AgentScope's bootstrap did not put its gateway script %1 in place (it is missing or empty)")
                .arg(layout.agentscopeMarker)));
    }
    if (marked->exitCode != 0) {
        co_return fail(Error::bootstrap(Tr::tr("cannot write the bootstrap marker %1 (exit %2): %3")
                                            .arg(layout.markerFile)
                                            .arg(marked->exitCode)
                                            .arg(tail(marked->stdErr))));
    }
    status(id, Tr::tr("bootstrap complete"));
    co_return Result<>{};
}

QCoro::Task<Result<>> Provisioner::runBootstrapCommand(const SandboxInfo &sandbox, const WorkspaceLayout &layout,
                                                       const BootstrapCommand &command)
{
    const QString id = sandbox.workspaceId;
    const QString key = m_key;
    m_logs->append(key, id, LogLine::Kind::Command, command.command.toUtf8());

    ExecRequest request;
    request.argv = shellArgv(command.command);
    request.cwd = layout.workdir;
    request.timeout = command.timeout;
    BootstrapLogStore *logs = m_logs;
    request.onLine = [logs, key, id](OutputChannel channel, const QByteArray &line) {
        logs->append(key, id, channel == OutputChannel::Stdout ? LogLine::Kind::Stdout : LogLine::Kind::Stderr, line);
    };

    auto result = co_await m_backend->exec(sandbox.sandboxId, std::move(request));
    if (!result)
        co_return fail(result.error());
    if (result->timedOut) {
        co_return fail(Error::timeout(
            Tr::tr("bootstrap command timed out after %1 s: '%2'").arg(command.timeout.count()).arg(command.command)));
    }
    if (result->exitCode != 0) {
        QString message = Tr::tr("bootstrap failed (exit %1) for: '%2'").arg(result->exitCode).arg(command.command);
        if (const QString err = tail(result->stdErr); !err.isEmpty())
            message += u'\n' + Tr::tr("stderr: %1").arg(err);
        co_return fail(Error::bootstrap(message));
    }
    status(id, Tr::tr("command finished (exit 0)"));
    co_return Result<>{};
}

QList<BootstrapCommand> agentscopeBootstrapCommands(const QStringList &extraPip, const QString &gatewayHome,
                                                    std::chrono::seconds timeout)
{
    const QString python = gatewayHome + QStringLiteral("/.venv/bin/python");
    QString pip = QStringLiteral("uv pip install --python ") + shellQuote(python)
        + QStringLiteral(" 'mcp<2.0.0' uvicorn fastapi httpx");
    for (const QString &extra : extraPip)
        pip += u' ' + shellQuote(extra);
    // The package directory, found without importing it (agentscope is installed --no-deps).
    const QString package = QStringLiteral("\"$(") + shellQuote(python)
        + QStringLiteral(" -c 'import importlib.util, os; "
                         "print(os.path.dirname(importlib.util.find_spec(\"agentscope\").origin))')\"");
    const QStringList commands{
        QStringLiteral("apt-get update -qq && apt-get install -y --no-install-recommends curl ca-certificates "
                       "ripgrep && rm -rf /var/lib/apt/lists/*"),
        QStringLiteral("curl -LsSf https://astral.sh/uv/install.sh | env UV_INSTALL_DIR=/usr/local/bin "
                       "INSTALLER_NO_MODIFY_PATH=1 sh"),
        QStringLiteral("uv venv ") + shellQuote(gatewayHome + QStringLiteral("/.venv")),
        pip,
        QStringLiteral("uv pip install --python ") + shellQuote(python) + QStringLiteral(" --no-deps 'agentscope'"),
        QStringLiteral("cp ") + package + QStringLiteral("/tool/_builtin/_scripts/_glob_helper.py ")
            + shellQuote(gatewayHome + QStringLiteral("/_glob_helper.py")),
        // The gateway script is AgentScope's marker, so it is written last, through a temporary
        // name: it exists only complete.
        QStringLiteral("cp ") + package + QStringLiteral("/workspace/_mcp_gateway/_mcp_gateway_app.py ")
            + shellQuote(gatewayHome + QStringLiteral("/.gateway.tmp")) + QStringLiteral(" && mv ")
            + shellQuote(gatewayHome + QStringLiteral("/.gateway.tmp")) + u' '
            + shellQuote(gatewayHome + QStringLiteral("/_mcp_gateway_app.py")),
    };
    QList<BootstrapCommand> list;
    for (const QString &command : commands)
        list.append({command, timeout});
    return list;
}

} // namespace Paddock
