// The provisioning pipeline against a scripted remote-style backend: the order of the steps,
// the exact command lines, reattach rules and readiness polling.

#include "bootstraplog.h"
#include "provisioner.h"

// moc cannot parse <concepts> and <coroutine>, and needs nothing from them.
#ifndef Q_MOC_RUN
#include "scriptedbackend.h"
#include <QCoroTask>
#endif

#include <QTemporaryDir>
#include <QTest>

using namespace Paddock;
using namespace PaddockTest;
using namespace std::chrono_literals;

namespace {

SandboxInfo existing(const QString &sandboxId, const QString &workspaceId, SandboxState state, const QDateTime &created)
{
    SandboxInfo info;
    info.sandboxId = sandboxId;
    info.workspaceId = workspaceId;
    info.state = state;
    info.createdAt = created;
    info.metadata.insert(WorkspaceIdKey, workspaceId);
    return info;
}

ProvisionRequest request(const QString &id)
{
    return {id, QStringLiteral("u"), QStringLiteral("a"), {}};
}

} // namespace

class TestProvisioner final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_logs;

private Q_SLOTS:
    void createsThenRunsTheExactCommandLines()
    {
        ScriptedBackend backend;
        BootstrapLogStore logs(m_logs.path());
        Provisioner provisioner(
            &backend, &logs,
            ProvisionOptions{{{QStringLiteral("uv pip install 'mcp<2.0.0' uvicorn"), 600s}}, {}, 30'000ms});
        const auto workspace = QCoro::waitFor(provisioner.provision(request(QStringLiteral("ws1"))));
        QVERIFY(workspace);
        QCOMPARE(backend.calls, QStringList({"create ws1", "ready? sbx-1"}));
        QCOMPARE(backend.commands,
                 QStringList({
                     "mkdir -p /workspace /workspace/data /workspace/skills /workspace/sessions /root/.agentscope",
                     "test -e /root/.agentscope/_mcp_gateway_app.py",
                     "sh -c 'uv pip install '\"'\"'mcp<2.0.0'\"'\"' uvicorn'",
                     "sh -c '[ -e /root/.agentscope/_mcp_gateway_app.py ] || : > "
                     "/root/.agentscope/_mcp_gateway_app.py'",
                 }));
        const auto lines = logs.read(backend.instanceKey(), QStringLiteral("ws1"));
        QVERIFY(lines);
        QVERIFY(std::any_of(lines->cbegin(), lines->cend(), [](const LogLine &line) {
            return line.kind == LogLine::Kind::Stdout && line.text.startsWith("ran uv pip install");
        }));

        // With the marker there, a second provisioning attaches and does not bootstrap.
        backend.commands.clear();
        QVERIFY(QCoro::waitFor(provisioner.provision(request(QStringLiteral("ws1")))));
        QCOMPARE(backend.calls.last(2), QStringList({"connect sbx-1", "ready? sbx-1"}));
        QCOMPARE(backend.commands.size(), 2); // mkdir -p, test -e
    }

    void newestMatchWinsWithAWarning()
    {
        ScriptedBackend backend;
        const QDateTime now = QDateTime::currentDateTimeUtc();
        backend.sandboxes = {
            existing(QStringLiteral("old"), QStringLiteral("ws"), SandboxState::Running, now.addDays(-2)),
            existing(QStringLiteral("new"), QStringLiteral("ws"), SandboxState::Paused, now.addDays(-1)),
            existing(QStringLiteral("dead"), QStringLiteral("ws"), SandboxState::Terminated, now),
            existing(QStringLiteral("other"), QStringLiteral("ws2"), SandboxState::Running, now)};
        BootstrapLogStore logs(m_logs.path());
        Provisioner provisioner(&backend, &logs, {});
        QTest::ignoreMessage(QtWarningMsg, "2 sandboxes match workspace_id=ws; attaching to most recent");
        const auto workspace = QCoro::waitFor(provisioner.provision(request(QStringLiteral("ws"))));
        QVERIFY(workspace);
        QCOMPARE(backend.calls.first(), QStringLiteral("resume new"));
        QCOMPARE(std::static_pointer_cast<SandboxWorkspace>(*workspace)->sandbox().sandboxId, QStringLiteral("new"));
    }

    void waitsUntilReadyWithBackoff()
    {
        ScriptedBackend backend;
        backend.notReadyPolls = 3;
        BootstrapLogStore logs(m_logs.path());
        Provisioner provisioner(&backend, &logs, {});
        QVERIFY(QCoro::waitFor(provisioner.provision(request(QStringLiteral("slow")))));
        QCOMPARE(backend.calls.count(QStringLiteral("ready? sbx-1")), 4);
    }

    void notReadyInTimeIsATimeoutAndPausesTheSandbox()
    {
        ScriptedBackend backend;
        backend.notReadyPolls = 1'000'000;
        BootstrapLogStore logs(m_logs.path());
        Provisioner provisioner(&backend, &logs, ProvisionOptions{{}, {}, 300ms});
        const auto workspace = QCoro::waitFor(provisioner.provision(request(QStringLiteral("never"))));
        QVERIFY(!workspace);
        QCOMPARE(workspace.error().kind, Error::Kind::Timeout);
        QVERIFY(workspace.error().message.contains(QLatin1String("did not become ready within 0.3 s")));
        QCOMPARE(backend.calls.last(), QStringLiteral("pause sbx-1"));
        QVERIFY(backend.commands.isEmpty()); // nothing ran in a sandbox that was not ready
    }

    void failedCommandStopsTheBootstrapBeforeTheMarker()
    {
        ScriptedBackend backend;
        backend.failing = {QStringLiteral("second")};
        BootstrapLogStore logs(m_logs.path());
        Provisioner provisioner(
            &backend, &logs,
            ProvisionOptions{
                {{QStringLiteral("first"), 60s}, {QStringLiteral("second"), 60s}, {QStringLiteral("third"), 60s}},
                {},
                30'000ms});
        const auto workspace = QCoro::waitFor(provisioner.provision(request(QStringLiteral("ws"))));
        QVERIFY(!workspace);
        QCOMPARE(workspace.error().message, QStringLiteral("bootstrap failed (exit 9) for: 'second'"));
        QCOMPARE(backend.commands.last(), QStringLiteral("sh -c second"));
        QVERIFY(backend.files.isEmpty());
        QCOMPARE(backend.calls.last(), QStringLiteral("pause sbx-1"));
        // The failure is kept next to the log, so a paused workspace can be told from a failed one.
        const QString folder = logs.folder(backend.instanceKey());
        QCOMPARE(BootstrapLogStore::readFailures(folder).value(QStringLiteral("ws")), workspace.error().message);

        // The next provisioning that succeeds clears it.
        backend.failing.clear();
        QVERIFY(QCoro::waitFor(provisioner.provision(request(QStringLiteral("ws")))));
        QVERIFY(!BootstrapLogStore::readFailures(folder).contains(QStringLiteral("ws")));
    }
};

QTEST_GUILESS_MAIN(TestProvisioner)
#include "tst_provisioner.moc"
