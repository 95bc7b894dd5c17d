#pragma once

// An in-memory Backend that stands in for a remote sandbox service in pipeline tests: it keeps
// sandboxes with metadata and states, records every command line it is asked to run (joined
// with shlex quoting, as a remote backend sends them), and answers `test -e`, `: > file` and
// `mkdir -p` against an in-memory file set. Other commands succeed unless listed in failing.

#include "backend.h"
#include "shellquote.h"

#include <QCoroTask>

#include <QSet>

namespace PaddockTest {

using namespace Paddock;

class ScriptedBackend final : public Backend
{
public:
    QString name() const override { return QStringLiteral("scripted"); }
    QString instanceKey() const override { return QStringLiteral("scripted-test"); }
    WorkspaceLayout layout(const SandboxInfo &) const override
    {
        return {QStringLiteral("/workspace"), QStringLiteral("/root/.agentscope"),
                QStringLiteral("/root/.agentscope/_mcp_gateway_app.py")};
    }

    QCoro::Task<Result<QList<SandboxInfo>>> list(ListFilter filter) override
    {
        QList<SandboxInfo> found;
        for (const SandboxInfo &info : std::as_const(sandboxes)) {
            if ((!filter.workspaceId || info.metadata.value(WorkspaceIdKey) == *filter.workspaceId)
                && (filter.states.isEmpty() || filter.states.contains(info.state)))
                found.append(info);
        }
        co_return found;
    }
    QCoro::Task<Result<SandboxInfo>> get(QString sandboxId) override { co_return *find(sandboxId); }
    QCoro::Task<Result<SandboxInfo>> create(CreateSpec spec) override
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
        co_return *find(sandboxId);
    }
    QCoro::Task<Result<SandboxInfo>> resume(QString sandboxId) override
    {
        calls.append(QStringLiteral("resume ") + sandboxId);
        find(sandboxId)->state = SandboxState::Running;
        co_return *find(sandboxId);
    }
    QCoro::Task<Result<>> pause(QString sandboxId) override
    {
        calls.append(QStringLiteral("pause ") + sandboxId);
        find(sandboxId)->state = SandboxState::Paused;
        co_return Result<>{};
    }
    QCoro::Task<Result<>> kill(QString sandboxId) override
    {
        calls.append(QStringLiteral("kill ") + sandboxId);
        co_return Result<>{};
    }
    QCoro::Task<Result<SandboxInfo>> renew(QString sandboxId, std::chrono::seconds) override
    {
        co_return *find(sandboxId);
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
        if (request.argv.value(0) == QLatin1String("test"))
            result.exitCode = files.contains(request.argv.value(2)) ? 0 : 1;
        else if (request.argv.value(2).startsWith(QLatin1String("[ -e ")))
            files.insert(QStringLiteral("/root/.agentscope/_mcp_gateway_app.py"));
        else if (failing.contains(request.argv.value(2)))
            result.exitCode = 9;
        if (request.onLine && request.argv.value(0) == QLatin1String("sh"))
            request.onLine(OutputChannel::Stdout, QByteArrayLiteral("ran ") + request.argv.value(2).toUtf8());
        co_return result;
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
    QSet<QString> files;
    QStringList failing;
    int notReadyPolls = 0;
};

} // namespace PaddockTest
