#pragma once

// An in-memory Backend that stands in for a remote sandbox service in pipeline tests: it keeps
// sandboxes with metadata and states, records every command line it is asked to run (joined
// with shlex quoting, as a remote backend sends them), and answers the provisioner's own
// commands (`test -e`, `test -s`, `: > file`, the removal of an empty gateway script, `mkdir -p`)
// against an in-memory file set. Other commands succeed unless listed in failing; a command in
// writes puts its files in place. With Capability::Watch in reportedCapabilities, report() and reportRemoved()
// change a sandbox as the server would and, while watching, say so as a watch does.

#include "backend.h"
#include "shellquote.h"

#include <QCoroTask>

#include <QMap>

#include <functional>
#include <optional>

namespace PaddockTest {

using namespace Paddock;

class ScriptedBackend final : public Backend
{
public:
    QString name() const override { return QStringLiteral("scripted"); }
    QString instanceKey() const override { return QStringLiteral("scripted-test"); }
    Capabilities capabilities() const override { return reportedCapabilities; }
    QString killWarning(const SandboxInfo &sandbox) const override
    {
        return killWarningOf ? killWarningOf(sandbox) : QString();
    }
    // As OpenSandbox's: Paddock's marker and AgentScope's gateway script.
    static constexpr QLatin1String Marker{"/root/.agentscope/.bootstrap-complete"};
    static constexpr QLatin1String Gateway{"/root/.agentscope/_mcp_gateway_app.py"};
    WorkspaceLayout layout(const SandboxInfo &) const override
    {
        return {QStringLiteral("/workspace"), QStringLiteral("/root/.agentscope"), Marker, Gateway};
    }

    void setWatching(bool on) override { watching = on; }
    bool isWatchLive() const override { return watching && watchUp; }

    // The sandbox as it is now (a new one, or a change of the one with its id), reported while
    // watching.
    void report(const SandboxInfo &info)
    {
        bool known = false;
        for (SandboxInfo &sandbox : sandboxes) {
            if (sandbox.sandboxId == info.sandboxId) {
                sandbox = info;
                known = true;
            }
        }
        if (!known)
            sandboxes.append(info);
        if (watching)
            Q_EMIT sandboxChanged(info);
    }
    // The sandbox is gone, reported while watching.
    void reportRemoved(const QString &sandboxId)
    {
        sandboxes.removeIf([&sandboxId](const SandboxInfo &info) { return info.sandboxId == sandboxId; });
        if (watching)
            Q_EMIT sandboxRemoved(sandboxId);
    }

    QCoro::Task<Result<QList<SandboxInfo>>> list(ListFilter filter) override
    {
        ++lists;
        if (listError)
            co_return fail(*listError);
        QList<SandboxInfo> found;
        for (const SandboxInfo &info : std::as_const(sandboxes)) {
            if ((!filter.workspaceId || info.metadata.value(WorkspaceIdKey) == *filter.workspaceId)
                && (filter.states.isEmpty() || filter.states.contains(info.state)))
                found.append(info);
        }
        co_return found;
    }
    // A copy is returned, never *find(): GCC 12 moves from a non-local lvalue given to co_return,
    // which would empty the stored sandbox.
    QCoro::Task<Result<SandboxInfo>> get(QString sandboxId) override
    {
        const SandboxInfo info = *find(sandboxId);
        co_return info;
    }
    // Scripted creates, through Backend::createExactlyOnce as the OpenSandbox and E2B backends
    // create: each attempt takes the next outcome (its error, and whether the sandbox was made
    // before the answer was lost); with none left, it succeeds. The lookup fails with
    // lookupError when set.
    struct CreateOutcome
    {
        Error error;
        bool madeAnyway = false;
    };
    QList<CreateOutcome> createOutcomes;
    std::optional<Error> lookupError;
    int createAttempts = 0;
    int lookups = 0;
    bool exactlyOnce = false; // create through createExactlyOnce

    QCoro::Task<Result<SandboxInfo>> create(CreateSpec spec) override
    {
        if (!exactlyOnce)
            co_return co_await createNow(spec);
        const CreateAttempt attempt = [this, spec] { return attemptCreate(spec); };
        const CreatedLookup lookup = [this, spec] { return lookupCreated(spec.workspaceId); };
        co_return co_await createExactlyOnce(spec.workspaceId, attempt, lookup);
    }
    QCoro::Task<Result<SandboxInfo>> attemptCreate(CreateSpec spec)
    {
        ++createAttempts;
        if (createOutcomes.isEmpty())
            co_return co_await createNow(spec);
        const CreateOutcome outcome = createOutcomes.takeFirst();
        if (outcome.madeAnyway)
            co_await createNow(spec);
        co_return fail(outcome.error);
    }
    QCoro::Task<Result<std::optional<SandboxInfo>>> lookupCreated(QString workspaceId)
    {
        ++lookups;
        if (lookupError)
            co_return fail(*lookupError);
        for (const SandboxInfo &info : std::as_const(sandboxes)) {
            if (info.workspaceId == workspaceId && info.state == SandboxState::Running) {
                const SandboxInfo found = info;
                co_return std::optional<SandboxInfo>(found);
            }
        }
        co_return std::optional<SandboxInfo>();
    }
    QCoro::Task<Result<SandboxInfo>> createNow(CreateSpec spec)
    {
        SandboxInfo info;
        info.sandboxId = QStringLiteral("sbx-%1").arg(sandboxes.size() + 1);
        info.workspaceId = spec.workspaceId;
        info.state = SandboxState::Running;
        info.createdAt = QDateTime::currentDateTimeUtc();
        info.metadata = spec.metadata;
        info.metadata.insert(WorkspaceIdKey, spec.workspaceId);
        sandboxes.append(info);
        calls.append(QStringLiteral("create ") + spec.workspaceId);
        co_return info;
    }
    QCoro::Task<Result<SandboxInfo>> connect(QString sandboxId) override
    {
        calls.append(QStringLiteral("connect ") + sandboxId);
        const SandboxInfo info = *find(sandboxId);
        co_return info;
    }
    QCoro::Task<Result<SandboxInfo>> resume(QString sandboxId) override
    {
        calls.append(QStringLiteral("resume ") + sandboxId);
        find(sandboxId)->state = SandboxState::Running;
        const SandboxInfo info = *find(sandboxId);
        co_return info;
    }
    QCoro::Task<Result<>> pause(QString sandboxId) override
    {
        calls.append(QStringLiteral("pause ") + sandboxId);
        if (pauseError)
            co_return fail(*pauseError);
        find(sandboxId)->state = SandboxState::Paused;
        co_return Result<>{};
    }
    QCoro::Task<Result<>> kill(QString sandboxId, KillOptions) override
    {
        calls.append(QStringLiteral("kill ") + sandboxId);
        co_return Result<>{};
    }
    QCoro::Task<Result<SandboxInfo>> renew(QString sandboxId, std::chrono::seconds) override
    {
        const SandboxInfo info = *find(sandboxId);
        co_return info;
    }
    QCoro::Task<Result<bool>> isReady(QString sandboxId) override
    {
        calls.append(QStringLiteral("ready? ") + sandboxId);
        co_return notReadyPolls-- <= 0;
    }
    QCoro::Task<Result<ExecResult>> exec(QString sandboxId, ExecRequest request) override
    {
        Q_UNUSED(sandboxId);
        const QString line = shellJoin(request.argv);
        commands.append(line);
        ExecResult result;
        result.exitCode = 0;
        const QString script = request.argv.value(2);
        if (request.argv.value(0) == QLatin1String("test")) {
            result.exitCode = step(request.argv.join(u' '), result) ? 0 : 1;
        } else if (request.argv.value(0) == QLatin1String("sh")
                   && (script.startsWith(QLatin1String("if [ -f ")) || script.startsWith(QLatin1String(": > ")))) {
            result.exitCode = provisionerScript(script, result) ? 0 : 1;
        } else if (failing.contains(script)) {
            result.exitCode = 9;
        } else if (const auto it = writes.constFind(script); it != writes.cend()) {
            for (auto file = it->cbegin(); file != it->cend(); ++file)
                files.insert(file.key(), file.value());
        }
        if (request.onLine && request.argv.value(0) == QLatin1String("sh"))
            request.onLine(OutputChannel::Stdout, QByteArrayLiteral("ran ") + script.toUtf8());
        co_return result;
    }

    // One of `test -e P`, `test -s P`, `: > P`, `rm -f P`, `echo W`; false when it fails.
    bool step(const QString &command, ExecResult &result)
    {
        const QString path = command.section(u' ', 2);
        if (command.startsWith(QLatin1String("test -e ")))
            return files.contains(path);
        if (command.startsWith(QLatin1String("test -s ")))
            return !files.value(path).isEmpty();
        if (command.startsWith(QLatin1String(": > "))) {
            files.insert(path, QByteArray());
            return true;
        }
        if (command.startsWith(QLatin1String("rm -f "))) {
            files.remove(path);
            return true;
        }
        if (command.startsWith(QLatin1String("echo "))) {
            result.stdOut += command.mid(5).toUtf8() + '\n';
            return true;
        }
        qFatal("ScriptedBackend cannot run %s", qPrintable(command));
    }

    // `[if [ -f G ] && [ ! -s G ]; then A && B; fi; ]C`, the provisioner's marker steps.
    bool provisionerScript(QString script, ExecResult &result)
    {
        if (script.startsWith(QLatin1String("if [ -f "))) {
            const QString gateway = script.mid(8, script.indexOf(QLatin1String(" ]")) - 8);
            const qsizetype then = script.indexOf(QLatin1String("; then ")) + 7;
            const qsizetype fi = script.indexOf(QLatin1String("; fi; "));
            if (files.contains(gateway) && files.value(gateway).isEmpty()) {
                const QStringList steps = script.mid(then, fi - then).split(QStringLiteral(" && "));
                for (const QString &command : steps) {
                    if (!step(command, result))
                        break;
                }
            }
            script = script.mid(fi + 6);
        }
        return step(script, result);
    }

    SandboxInfo *find(const QString &sandboxId)
    {
        for (SandboxInfo &info : sandboxes) {
            if (info.sandboxId == sandboxId)
                return &info;
        }
        qFatal("no sandbox %s", qPrintable(sandboxId));
    }

    QList<SandboxInfo> sandboxes;
    QStringList calls;
    QStringList commands;
    QMap<QString, QByteArray> files; // path: contents
    QStringList failing;
    QMap<QString, QMap<QString, QByteArray>> writes; // command: the files it writes
    int notReadyPolls = 0;
    std::optional<Error> pauseError; // what every pause fails with
    Capabilities reportedCapabilities; // what capabilities() says (none by default)
    std::function<QString(const SandboxInfo &)> killWarningOf;
    bool watching = false; // what setWatching() said last
    bool watchUp = true; // false: a watch that fails (isWatchLive() says so)
    int lists = 0; // list() calls so far
    std::optional<Error> listError; // what every listing fails with (a server that is down)
};

} // namespace PaddockTest
