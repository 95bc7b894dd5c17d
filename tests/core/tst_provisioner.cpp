// The provisioning pipeline against a scripted remote-style backend: the order of the steps,
// the exact command lines, reattach rules and readiness polling.

#include "bootstraplog.h"
#include "provisioner.h"
#include "shellquote.h"

// moc cannot parse <concepts> and <coroutine>, and needs nothing from them.
#ifndef Q_MOC_RUN
#include "scriptedbackend.h"
#include <QCoroTask>
#endif

#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

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

    // A create whose answer was lost looks the workspace up before it tries again: a sandbox
    // made anyway is taken, never made twice.
    void aLostCreateThatWentThroughIsTakenNotRepeated()
    {
        ScriptedBackend backend;
        backend.exactlyOnce = true;
        Error dropped = Error::unreachable(QStringLiteral("POST http://x/sandboxes failed: connection closed"));
        backend.createOutcomes = {{dropped, true}};
        auto made = QCoro::waitFor(
            backend.create(CreateSpec{QStringLiteral("ws-1"), QStringLiteral("u"), QStringLiteral("a"), {}}));
        QVERIFY2(made, qPrintable(made ? QString() : made.error().message));
        QCOMPARE(backend.createAttempts, 1);
        QCOMPARE(backend.lookups, 1);
        QCOMPARE(backend.sandboxes.size(), 1);
        QCOMPARE(made->sandboxId, backend.sandboxes.constFirst().sandboxId);
    }

    void aCreateRefusedOnTheWayIsTriedAgainAfterALookup()
    {
        ScriptedBackend backend;
        backend.exactlyOnce = true;
        for (const int status : {502, 503, 504, 429}) {
            Error refused = Error::backend(QStringLiteral("HTTP %1: injected failure (request r-%1)").arg(status));
            refused.httpStatus = status;
            backend.createOutcomes.append({refused, false});
        }
        auto made = QCoro::waitFor(
            backend.create(CreateSpec{QStringLiteral("ws-2"), QStringLiteral("u"), QStringLiteral("a"), {}}));
        QVERIFY2(made, qPrintable(made ? QString() : made.error().message));
        QCOMPARE(backend.createAttempts, 5);
        QCOMPARE(backend.lookups, 4);
        QCOMPARE(backend.sandboxes.size(), 1);
    }

    void aCreateThatCannotSucceedStopsAndSaysWhy()
    {
        // An answer that says what happened (400, 409) is not tried again, nor looked up.
        ScriptedBackend refusedOnce;
        refusedOnce.exactlyOnce = true;
        Error invalid = Error::invalidArgument(QStringLiteral("HTTP 400: bad image (request r-1)"));
        invalid.httpStatus = 400;
        refusedOnce.createOutcomes = {{invalid, false}};
        auto refused = QCoro::waitFor(refusedOnce.create(CreateSpec{QStringLiteral("ws-3"), {}, {}, {}}));
        QVERIFY(!refused);
        QCOMPARE(refused.error().message, invalid.message);
        QCOMPARE(refusedOnce.createAttempts, 1);
        QCOMPARE(refusedOnce.lookups, 0);

        // Lost every time, and never made: given up after CreateAttempts, saying so.
        ScriptedBackend lost;
        lost.exactlyOnce = true;
        Error unavailable = Error::backend(QStringLiteral("HTTP 503 GENERAL::UNAVAILABLE: busy (request r-9)"));
        unavailable.httpStatus = 503;
        for (int i = 0; i < Backend::CreateAttempts; ++i)
            lost.createOutcomes.append({unavailable, false});
        auto gaveUp = QCoro::waitFor(lost.create(CreateSpec{QStringLiteral("ws-4"), {}, {}, {}}));
        QVERIFY(!gaveUp);
        QCOMPARE(lost.createAttempts, Backend::CreateAttempts);
        QCOMPARE(lost.lookups, Backend::CreateAttempts);
        QVERIFY(lost.sandboxes.isEmpty());
        const QString message = gaveUp.error().message;
        QVERIFY2(message.contains(QLatin1String("workspace ws-4")), qPrintable(message));
        QVERIFY2(message.contains(QLatin1String("failed 5 time")), qPrintable(message));
        QVERIFY2(message.contains(QLatin1String("(request r-9)")), qPrintable(message));
        QCOMPARE(gaveUp.error().httpStatus, 503);

        // The lookup itself fails: whether the sandbox was made is not known, and the message
        // says so, and that the next open looks again.
        ScriptedBackend blind;
        blind.exactlyOnce = true;
        blind.createOutcomes = {{unavailable, true}};
        blind.lookupError = Error::unreachable(QStringLiteral("GET http://x/sandboxes failed: connection refused"));
        auto unknown = QCoro::waitFor(blind.create(CreateSpec{QStringLiteral("ws-5"), {}, {}, {}}));
        QVERIFY(!unknown);
        QCOMPARE(blind.createAttempts, 1);
        QVERIFY2(unknown.error().message.contains(QLatin1String("connection refused")),
                 qPrintable(unknown.error().message));
        QVERIFY2(unknown.error().message.contains(QLatin1String("the next open")), qPrintable(unknown.error().message));
    }
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
                     "sh -c 'if [ -f /root/.agentscope/_mcp_gateway_app.py ] && [ ! -s "
                     "/root/.agentscope/_mcp_gateway_app.py ]; then rm -f /root/.agentscope/_mcp_gateway_app.py && "
                     ": > /root/.agentscope/.bootstrap-complete && echo removed-empty-gateway-script; fi; "
                     "test -e /root/.agentscope/.bootstrap-complete'",
                     "sh -c 'uv pip install '\"'\"'mcp<2.0.0'\"'\"' uvicorn'",
                     "sh -c 'if [ -f /root/.agentscope/_mcp_gateway_app.py ] && [ ! -s "
                     "/root/.agentscope/_mcp_gateway_app.py ]; then rm -f /root/.agentscope/_mcp_gateway_app.py; fi; "
                     ": > /root/.agentscope/.bootstrap-complete'",
                 }));
        // Not AgentScope's bootstrap: Paddock's own marker, and no gateway script.
        QCOMPARE(backend.files.keys(), QStringList{ScriptedBackend::Marker});
        const auto lines = logs.read(backend.instanceKey(), QStringLiteral("ws1"));
        QVERIFY(lines);
        QVERIFY(std::any_of(lines->cbegin(), lines->cend(), [](const LogLine &line) {
            return line.kind == LogLine::Kind::Stdout && line.text.startsWith("ran uv pip install");
        }));

        // With the marker there, a second provisioning attaches and does not bootstrap.
        backend.commands.clear();
        QVERIFY(QCoro::waitFor(provisioner.provision(request(QStringLiteral("ws1")))));
        QCOMPARE(backend.calls.last(2), QStringList({"connect sbx-1", "ready? sbx-1"}));
        QCOMPARE(backend.commands.size(), 2); // mkdir -p, the marker test
    }

    void agentscopeBootstrapIsMarkedByItsGatewayScript()
    {
        ScriptedBackend backend;
        const QString install = QStringLiteral("cp package/_mcp_gateway_app.py /root/.agentscope/_mcp_gateway_app.py");
        backend.writes.insert(install, {{ScriptedBackend::Gateway, QByteArrayLiteral("# the gateway app\n")}});
        BootstrapLogStore logs(m_logs.path());
        ProvisionOptions options{{{install, 600s}}, {}, 30'000ms};
        options.agentscopeBootstrap = true;
        Provisioner provisioner(&backend, &logs, options);
        QVERIFY(QCoro::waitFor(provisioner.provision(request(QStringLiteral("as1")))));
        QCOMPARE(backend.commands.mid(1),
                 QStringList({
                     "sh -c 'if [ -f /root/.agentscope/_mcp_gateway_app.py ] && [ ! -s "
                     "/root/.agentscope/_mcp_gateway_app.py ]; then rm -f /root/.agentscope/_mcp_gateway_app.py && "
                     "echo removed-empty-gateway-script; fi; test -s /root/.agentscope/_mcp_gateway_app.py'",
                     "sh -c " + shellQuote(install),
                     "test -s /root/.agentscope/_mcp_gateway_app.py", // checked, never written by Paddock
                 }));
        // The package's script, as the bootstrap left it; no marker of Paddock's.
        QCOMPARE(backend.files, (QMap<QString, QByteArray>{{ScriptedBackend::Gateway, "# the gateway app\n"}}));

        backend.commands.clear();
        QVERIFY(QCoro::waitFor(provisioner.provision(request(QStringLiteral("as1")))));
        QCOMPARE(backend.commands.size(), 2); // mkdir -p, the marker test: not bootstrapped again
    }

    void agentscopeBootstrapWithoutItsScriptFails()
    {
        ScriptedBackend backend;
        BootstrapLogStore logs(m_logs.path());
        ProvisionOptions options{{{QStringLiteral("true"), 600s}}, {}, 30'000ms};
        options.agentscopeBootstrap = true;
        Provisioner provisioner(&backend, &logs, options);
        const auto workspace = QCoro::waitFor(provisioner.provision(request(QStringLiteral("as2"))));
        QVERIFY(!workspace);
        QCOMPARE(workspace.error().kind, Error::Kind::Bootstrap);
        QVERIFY2(workspace.error().message.contains(QLatin1String("/root/.agentscope/_mcp_gateway_app.py")),
                 qPrintable(workspace.error().message));
        QVERIFY(backend.files.isEmpty()); // nothing made up in its place
        QCOMPARE(backend.calls.last(), QStringLiteral("pause sbx-1"));
    }

    // An older Paddock marked every bootstrap that was not AgentScope's with an empty gateway
    // script, which AgentScope then started as its gateway.
    void anEmptyGatewayScriptIsRemoved_data()
    {
        QTest::addColumn<bool>("agentscope");
        QTest::newRow("AgentScope's bootstrap") << true;
        QTest::newRow("a custom bootstrap") << false;
    }

    void anEmptyGatewayScriptIsRemoved()
    {
        QFETCH(bool, agentscope);
        ScriptedBackend backend;
        backend.sandboxes = {existing(QStringLiteral("old"), QStringLiteral("poisoned"), SandboxState::Running,
                                      QDateTime::currentDateTimeUtc())};
        backend.files.insert(ScriptedBackend::Gateway, QByteArray());
        const QString install = QStringLiteral("install agentscope");
        backend.writes.insert(install, {{ScriptedBackend::Gateway, QByteArrayLiteral("# the gateway app\n")}});
        QTemporaryDir logRoot;
        BootstrapLogStore logs(logRoot.path());
        ProvisionOptions options{{{install, 600s}}, {}, 30'000ms};
        options.agentscopeBootstrap = agentscope;
        Provisioner provisioner(&backend, &logs, options);
        QTest::ignoreMessage(QtWarningMsg,
                             "poisoned had an empty gateway script /root/.agentscope/_mcp_gateway_app.py");
        QVERIFY(QCoro::waitFor(provisioner.provision(request(QStringLiteral("poisoned")))));
        const auto lines = logs.read(backend.instanceKey(), QStringLiteral("poisoned"));
        QVERIFY(lines);
        const auto said = std::find_if(lines->cbegin(), lines->cend(), [](const LogLine &line) {
            return line.kind == LogLine::Kind::Status && line.text.startsWith("removed the empty gateway script");
        });
        QVERIFY(said != lines->cend());
        if (agentscope) {
            // Not complete: AgentScope's bootstrap runs again and puts the real script there.
            QVERIFY2(said->text.contains("AgentScope's bootstrap runs again"), said->text.constData());
            QVERIFY(backend.commands.contains(QStringLiteral("sh -c 'install agentscope'")));
            QCOMPARE(backend.files.value(ScriptedBackend::Gateway), QByteArray("# the gateway app\n"));
        } else {
            // It marked that bootstrap complete: Paddock's marker takes its place, nothing runs.
            QVERIFY2(said->text.contains(".bootstrap-complete marks the bootstrap complete instead"),
                     said->text.constData());
            QVERIFY(!backend.commands.contains(QStringLiteral("sh -c 'install agentscope'")));
            QCOMPARE(backend.files.keys(), QStringList{ScriptedBackend::Marker});
        }
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
        const auto failure = BootstrapLogStore::readFailures(folder).value(QStringLiteral("ws"));
        QCOMPARE(failure.message, workspace.error().message);
        QVERIFY(qAbs(failure.at.secsTo(QDateTime::currentDateTimeUtc())) < 600);

        // The next provisioning that succeeds clears it.
        backend.failing.clear();
        QVERIFY(QCoro::waitFor(provisioner.provision(request(QStringLiteral("ws")))));
        QVERIFY(!BootstrapLogStore::readFailures(folder).contains(QStringLiteral("ws")));
    }

    // The clean-up pause after a failure fails too: the sandbox still runs (and costs), and the
    // error, the log and the recorded failure say so, with its id.
    void aSandboxThatCouldNotBePausedIsSaidToBeStillRunning()
    {
        ScriptedBackend backend;
        backend.failing = {QStringLiteral("boom")};
        backend.pauseError = Error::unreachable(QStringLiteral("POST /v1/sandboxes/sbx-1/pause failed: refused"));
        BootstrapLogStore logs(m_logs.path());
        Provisioner provisioner(&backend, &logs, ProvisionOptions{{{QStringLiteral("boom"), 60s}}, {}, 30'000ms});
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("^cannot pause sbx-1 ")));
        const auto workspace = QCoro::waitFor(provisioner.provision(request(QStringLiteral("stuck"))));
        QVERIFY(!workspace);
        QCOMPARE(backend.calls.last(), QStringLiteral("pause sbx-1"));
        QCOMPARE(workspace.error().kind, Error::Kind::Bootstrap); // the failure itself
        QCOMPARE(workspace.error().message,
                 QStringLiteral("bootstrap failed (exit 9) for: 'boom'; and sandbox sbx-1 is still running: it could "
                                "not be paused after the failure: POST /v1/sandboxes/sbx-1/pause failed: refused"));
        const auto lines = logs.read(backend.instanceKey(), QStringLiteral("stuck"));
        QVERIFY(lines);
        QCOMPARE(lines->constLast().kind, LogLine::Kind::Status);
        QCOMPARE(QString::fromUtf8(lines->constLast().text),
                 QStringLiteral("sandbox sbx-1 is still running: it could not be paused after the failure: POST "
                                "/v1/sandboxes/sbx-1/pause failed: refused"));
        const auto failure =
            BootstrapLogStore::readFailures(logs.folder(backend.instanceKey())).value(QStringLiteral("stuck"));
        QCOMPARE(failure.message, workspace.error().message);
    }

    // The backend is destroyed while the provisioner sleeps between readiness polls (its own
    // wait, not the backend's): the poll after it must not reach for the freed backend
    // (AddressSanitizer: heap-use-after-free in Provisioner::waitUntilReady before the fix).
    void aBackendDestroyedBetweenReadinessPollsEndsTheProvisioning()
    {
        auto backend = std::make_unique<ScriptedBackend>();
        backend->notReadyPolls = 1'000'000;
        const QString key = backend->instanceKey();
        BootstrapLogStore logs(m_logs.path());
        Provisioner provisioner(backend.get(), &logs, ProvisionOptions{{}, {}, 60'000ms});
        auto provisioning = provisioner.provision(request(QStringLiteral("orphan")));
        QTRY_VERIFY(backend->calls.count(QStringLiteral("ready? sbx-1")) >= 2); // now asleep until the next
        QVERIFY(!provisioning.isReady());
        backend.reset();
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("^cannot pause sbx-1 ")));
        QTRY_VERIFY(provisioning.isReady());
        const auto workspace = QCoro::waitFor(std::move(provisioning));
        QVERIFY(!workspace);
        QCOMPARE(workspace.error().kind, Error::Kind::Cancelled);
        QVERIFY2(
            workspace.error().message.startsWith(QLatin1String("cancelled: the backend of sandbox sbx-1 was closed; "
                                                               "and sandbox sbx-1 is still running")),
            qPrintable(workspace.error().message));
        const auto lines = logs.read(key, QStringLiteral("orphan"));
        QVERIFY(lines);
        QCOMPARE(QString::fromUtf8(lines->constLast().text),
                 QStringLiteral("sandbox sbx-1 is still running: it could not be paused after the failure: its "
                                "backend was closed"));
    }
};

QTEST_GUILESS_MAIN(TestProvisioner)
#include "tst_provisioner.moc"
