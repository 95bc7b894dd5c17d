// The OpenSandbox backend end to end against paddock-fake-opensandbox (a child process on
// 127.0.0.1 whose execd really runs commands inside bubblewrap): the workspace pipeline, metadata
// encoding, execd, leases, pagination, errors with request ids, and fault injection. What every
// backend must do (ids, layout, reattach, pause and resume, commands, last activity, renew, kill,
// lost and unknown sandboxes) is the conformance suite's, tests/conformance/tst_conformance_opensandbox.

#include "backends/opensandbox/metadatacodec.h"
#include "backends/opensandbox/opensandboxbackend.h"
#include "backends/opensandbox/wire.h"
#include "bootstraplog.h"
#include "fakeopensandboxprocess.h"
#include "profilesession.h"
#include "provisioner.h"
#include "scriptedhttpserver.h"
#include "testsession.h"
#include "workspacemanager.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QJsonArray>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace Paddock;
using namespace Paddock::OpenSandbox;
using namespace PaddockTest;
using namespace std::chrono_literals;

namespace {

QList<BootstrapCommand> commands(std::initializer_list<const char *> lines)
{
    QList<BootstrapCommand> list;
    for (const char *line : lines)
        list.append({QString::fromUtf8(line), 60s});
    return list;
}

// AgentScope's bootstrap as far as a sandbox without network can run it: the first five commands
// (apt, uv, pip) are replaced by a venv holding a stand-in agentscope package; the last two are
// AgentScope's, which copy the glob helper and the gateway script out of the package.
QList<BootstrapCommand> standInAgentscopeBootstrap()
{
    QList<BootstrapCommand> bootstrap =
        commands({"mkdir -p /root/.agentscope/.venv/bin && ln -sf /usr/bin/python3 /root/.agentscope/.venv/bin/python"
                  " && printf 'home = /usr/bin\\ninclude-system-site-packages = false\\n' > "
                  "/root/.agentscope/.venv/pyvenv.cfg"
                  " && sp=/root/.agentscope/.venv/lib/$(python3 -c 'import sys; print(\"python%d.%d\" % "
                  "sys.version_info[:2])')/site-packages"
                  " && mkdir -p $sp/agentscope/workspace/_mcp_gateway $sp/agentscope/tool/_builtin/_scripts"
                  " && touch $sp/agentscope/__init__.py"
                  " && echo '# the gateway app' > $sp/agentscope/workspace/_mcp_gateway/_mcp_gateway_app.py"
                  " && echo '# the glob helper' > $sp/agentscope/tool/_builtin/_scripts/_glob_helper.py"});
    return bootstrap + OpenSandbox::agentscopeBootstrapCommands().mid(5);
}

RetryPolicy quickRetries(int attempts = 4)
{
    return {attempts, 20ms, 2.0, 200ms};
}

BackendOptions optionsFor(const FakeOpenSandboxProcess &server, const QByteArray &key = "secret")
{
    BackendOptions options;
    options.connection.domain = server.domain();
    options.connection.apiKey = key;
    options.connection.requestTimeout = 10s;
    options.retry = quickRetries();
    options.settleTimeout = 10s;
    options.execdPingInterval = 3s;
    return options;
}

// One console "process": a backend, its log store and a manager.
struct Stack
{
    Stack(BackendOptions options, const QString &logRoot, QList<BootstrapCommand> bootstrap, bool agentscope = false)
        : backend(std::move(options))
        , logs(logRoot)
        , provisioner(&backend, &logs, ProvisionOptions{std::move(bootstrap), {}, 30'000ms, agentscope})
        , manager(&provisioner, {})
    {
    }
    ~Stack() { QCoro::waitFor(manager.stop()); }
    Q_DISABLE_COPY_MOVE(Stack)

    Result<WorkspacePtr> open(const QString &user, const QString &agent)
    {
        return QCoro::waitFor(manager.getWorkspace(WorkspaceRequest{user, agent, {}, std::nullopt}));
    }

    SandboxInfo sandboxOf(const WorkspacePtr &workspace) const
    {
        return static_cast<const SandboxWorkspace *>(workspace.get())->sandbox();
    }

    QList<LogLine> log(const QString &id) const
    {
        auto lines = logs.read(backend.instanceKey(), id);
        return lines ? *lines : QList<LogLine>{};
    }

    OpenSandboxBackend backend;
    BootstrapLogStore logs;
    Provisioner provisioner;
    WorkspaceManager manager;
};

QStringList texts(const QList<LogLine> &lines, LogLine::Kind kind)
{
    QStringList out;
    for (const LogLine &line : lines) {
        if (line.kind == kind)
            out.append(QString::fromUtf8(line.text));
    }
    return out;
}

// The raw JSON of a sandbox, as the server stores it (metadata still encoded).
QJsonObject rawSandbox(const FakeOpenSandboxProcess &server, const QString &sandboxId, const QByteArray &key,
                       int *status = nullptr)
{
    QNetworkAccessManager network;
    QNetworkRequest request(QUrl(server.base().toString() + QStringLiteral("/v1/sandboxes/") + sandboxId));
    request.setRawHeader("OPEN-SANDBOX-API-KEY", key);
    std::unique_ptr<QNetworkReply> reply(network.get(request));
    QSignalSpy finished(reply.get(), &QNetworkReply::finished);
    if (!reply->isFinished())
        finished.wait(30'000);
    if (status)
        *status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    return QJsonDocument::fromJson(reply->readAll()).object();
}

} // namespace

class TestOpenSandboxBackend : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_logs;

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_logs.isValid()); }

    void workspacePipelineEndToEnd()
    {
        FakeOpenSandboxProcess server;
        QVERIFY2(server.start({QStringLiteral("--api-key"), QStringLiteral("secret")}), qPrintable(server.error()));
        Stack stack(optionsFor(server), m_logs.path(),
                    commands({"echo hello from $(pwd); echo to stderr >&2", "test -w /workspace && test -w /root",
                              "echo 'data' > /workspace/data/kept.txt"}));

        // Chinese and e-mail ids: not label values, so they travel encoded (and come back decoded:
        // the conformance suite).
        const QString user = QStringLiteral("运维");
        const QString agent = QStringLiteral("alice@example.com");
        auto opened = stack.open(user, agent);
        QVERIFY2(opened, qPrintable(opened ? QString() : opened.error().message));
        const QString id = (*opened)->id();
        const SandboxInfo sandbox = stack.sandboxOf(*opened);
        QVERIFY(sandbox.expiresAt.has_value());

        const QJsonObject raw = rawSandbox(server, sandbox.sandboxId, "secret");
        const QJsonObject metadata = raw.value(QLatin1String("metadata")).toObject();
        QCOMPARE(metadata.value(QLatin1String("agentscope.user.id")).toString(), encodeMetadataValue(user));
        QCOMPARE(metadata.value(QLatin1String("agentscope.agent.id")).toString(), encodeMetadataValue(agent));
        QCOMPARE(metadata.value(QLatin1String("agentscope.workspace.id")).toString(), id);
        QCOMPARE(raw.value(QLatin1String("image")).toObject().value(QLatin1String("uri")).toString(),
                 QStringLiteral("python:3.11-slim"));

        // The bootstrap ran for real, streamed into the log line by line, stdout and stderr apart.
        const QList<LogLine> log = stack.log(id);
        QVERIFY(texts(log, LogLine::Kind::Stdout).contains(QStringLiteral("hello from /workspace")));
        QVERIFY(texts(log, LogLine::Kind::Stderr).contains(QStringLiteral("to stderr")));
        QCOMPARE(texts(log, LogLine::Kind::Command).size(), 3);
        QVERIFY(stack.backend.leasedSandboxes().contains(sandbox.sandboxId));

        // Close = pause, and the lease goes with it.
        QVERIFY(QCoro::waitFor(stack.manager.close(id)));
        QCOMPARE(rawSandbox(server, sandbox.sandboxId, "secret")
                     .value(QLatin1String("status"))
                     .toObject()
                     .value(QLatin1String("state"))
                     .toString(),
                 QStringLiteral("Paused"));
        QVERIFY(!stack.backend.leasedSandboxes().contains(sandbox.sandboxId));
        // Kill removes the sandbox for good; what comes after says the server's status and request.
        QVERIFY(QCoro::waitFor(stack.backend.kill(sandbox.sandboxId, {})));
        int status = 0;
        rawSandbox(server, sandbox.sandboxId, "secret", &status);
        QCOMPARE(status, 404);
        auto gone = QCoro::waitFor(stack.backend.pause(sandbox.sandboxId));
        QVERIFY(!gone);
        QCOMPARE(gone.error().kind, Error::Kind::NotFound);
        QVERIFY2(gone.error().message.contains(QLatin1String("HTTP 404"))
                     && gone.error().message.contains(QLatin1String("(request ")),
                 qPrintable(gone.error().message));

        // The lifecycle API key never went to execd.
        QCOMPARE(server.stats().value(QLatin1String("execdRequestsWithApiKey")).toInt(), 0);
        QVERIFY(server.stats().value(QLatin1String("execdRequests")).toInt() > 0);
    }

    void execdFilesAndBackgroundCommands()
    {
        FakeOpenSandboxProcess server;
        QVERIFY2(server.start({QStringLiteral("--api-key"), QStringLiteral("secret")}), qPrintable(server.error()));
        Stack stack(optionsFor(server), m_logs.path(), {});
        auto opened = stack.open(QStringLiteral("gina"), QStringLiteral("agent"));
        QVERIFY2(opened, qPrintable(opened ? QString() : opened.error().message));
        auto execd = QCoro::waitFor(stack.backend.execd(stack.sandboxOf(*opened).sandboxId));
        QVERIFY(execd);
        ExecdClient &client = **execd;

        // Upload (the metadata part carries a filename), then info, listing and download.
        const QByteArray script = "#!/bin/sh\nfor i in 1 2 3; do echo line $i; done\necho oops >&2\n";
        QList<UploadFile> files{{QStringLiteral("/workspace/bin/run.sh"), script, 755},
                                {QStringLiteral("/workspace/bin/数据.txt"), QByteArray("中文\n"), 644}};
        auto uploaded = QCoro::waitFor(client.upload(files));
        QVERIFY2(uploaded, qPrintable(uploaded ? QString() : uploaded.error().message));
        auto info = QCoro::waitFor(client.fileInfo({QStringLiteral("/workspace/bin/run.sh")}));
        QVERIFY2(info, qPrintable(info ? QString() : info.error().message));
        const FileInfo runInfo = info->value(QStringLiteral("/workspace/bin/run.sh"));
        QCOMPARE(runInfo.type, QStringLiteral("file"));
        QCOMPARE(runInfo.size, script.size());
        QCOMPARE(runInfo.mode, 755);
        auto listing = QCoro::waitFor(client.listDirectory(QStringLiteral("/workspace/bin")));
        QVERIFY2(listing, qPrintable(listing ? QString() : listing.error().message));
        QStringList names;
        for (const FileInfo &entry : std::as_const(*listing))
            names.append(entry.path.section(u'/', -1));
        QCOMPARE(names, (QStringList{QStringLiteral("run.sh"), QStringLiteral("数据.txt")}));
        auto chinese = QCoro::waitFor(client.download(QStringLiteral("/workspace/bin/数据.txt")));
        QVERIFY(chinese);
        QCOMPARE(*chinese, QByteArray("中文\n"));
        auto missing = QCoro::waitFor(client.download(QStringLiteral("/workspace/nope")));
        QVERIFY(!missing);
        QCOMPARE(missing.error().kind, Error::Kind::NotFound);

        QVERIFY(QCoro::waitFor(client.makeDirectories({QStringLiteral("/workspace/a/b/c")})));
        auto made = QCoro::waitFor(client.fileInfo({QStringLiteral("/workspace/a/b/c")}));
        QVERIFY(made);
        QCOMPARE(made->value(QStringLiteral("/workspace/a/b/c")).type, QStringLiteral("directory"));
        QVERIFY(QCoro::waitFor(client.removeDirectory(QStringLiteral("/workspace/a"))));
        QVERIFY(!QCoro::waitFor(client.fileInfo({QStringLiteral("/workspace/a")})));

        // A background command: its id at once, then its output by cursor until it is done.
        ExecdCommand command;
        command.command = QStringLiteral("sh /workspace/bin/run.sh");
        command.cwd = QStringLiteral("/workspace");
        auto id = QCoro::waitFor(client.start(command));
        QVERIFY2(id, qPrintable(id ? QString() : id.error().message));
        QByteArray output;
        QByteArray cursor;
        std::optional<CommandStatus> finished;
        QTRY_VERIFY_WITH_TIMEOUT(([&] {
                                     auto chunk = QCoro::waitFor(client.logs(*id, cursor));
                                     if (chunk) {
                                         output += chunk->data;
                                         cursor = chunk->cursor;
                                     }
                                     auto status = QCoro::waitFor(client.status(*id));
                                     if (status && !status->running)
                                         finished = *status;
                                     return finished.has_value() && output.contains("oops");
                                 }()),
                                 30'000);
        QCOMPARE(finished->exitCode, std::optional<int>(0));
        QVERIFY2(output.contains("line 1\nline 2\nline 3\n"), output.constData());
        // Asked again from the last cursor, nothing new.
        auto rest = QCoro::waitFor(client.logs(*id, cursor));
        QVERIFY(rest);
        QVERIFY(rest->data.isEmpty());

        // A long one, interrupted.
        command.command = QStringLiteral("sleep 600");
        auto sleeper = QCoro::waitFor(client.start(command));
        QVERIFY(sleeper);
        QVERIFY(QCoro::waitFor(client.interrupt(*sleeper)));
        QTRY_VERIFY_WITH_TIMEOUT(([&] {
                                     auto status = QCoro::waitFor(client.status(*sleeper));
                                     return status && !status->running;
                                 }()),
                                 30'000);

        // And a file goes.
        QVERIFY(QCoro::waitFor(client.removeFile(QStringLiteral("/workspace/bin/run.sh"))));
        QCOMPARE(QCoro::waitFor(client.download(QStringLiteral("/workspace/bin/run.sh"))).error().kind,
                 Error::Kind::NotFound);
    }

    void aClosingProfileDoesNotWaitForASilentListing()
    {
        // A server that takes the listing and never answers: closing the profile ends the
        // listing (Cancelled) instead of waiting out its timeouts (10 s, then once more).
        PaddockTest::ScriptedHttpServer api;
        api.script.enqueue(QByteArray()); // accept, never answer
        BackendOptions options;
        options.connection.domain = QStringLiteral("127.0.0.1:%1").arg(api.serverPort());
        options.connection.apiKey = "secret";
        options.connection.requestTimeout = 10s;
        options.retry = quickRetries();
        PaddockTest::TestSession<OpenSandboxBackend> session(
            std::make_unique<OpenSandboxBackend>(options),
            PaddockTest::testProfile(QStringLiteral("silent"), Profile::Kind::OpenSandbox));
        auto listing = session->list({});
        QTRY_COMPARE(api.requests.size(), 1);
        session.shutdown();
        const auto listed = QCoro::waitFor(std::move(listing));
        QVERIFY(!listed);
        QCOMPARE(listed.error().kind, Error::Kind::Cancelled);
        QCOMPARE(api.requests.size(), 1);
    }

    // The overview's details: the server's own reason and message, its facts, execd's endpoint
    // while the sandbox runs (asked beside the GET when it is not cached, so both are in flight at
    // once; taken from the cache when it is), and no secret: not the env, not a secret argument
    // of the entrypoint, not execd's access token, not the API key.
    void detailsSayWhatTheServerSaysAndNoSecret()
    {
        FakeOpenSandboxProcess server;
        // Every answer held 300 ms, so requests made together are seen in flight together.
        QVERIFY2(server.start({QStringLiteral("--api-key"), QStringLiteral("secret"), QStringLiteral("--latency-ms"),
                               QStringLiteral("300")}),
                 qPrintable(server.error()));
        BackendOptions options = optionsFor(server);
        options.keepLeases = false;
        options.sandbox.env.insert(QStringLiteral("OPENAI_API_KEY"), QStringLiteral("sample-secret-env"));
        options.sandbox.entrypoint =
            QStringList{QStringLiteral("tail"), QStringLiteral("-f"), QStringLiteral("/dev/null"),
                        QStringLiteral("--token=sample-secret-arg")};
        OpenSandboxBackend backend(options);
        const CreateSpec spec{QStringLiteral("details-1"), QStringLiteral("alice"), QStringLiteral("agent"), {}};
        auto made = QCoro::waitFor(backend.create(spec));
        QVERIFY2(made, qPrintable(made ? QString() : made.error().message));
        const QString id = made->sandboxId;
        const auto requests = [&server] { return server.stats().value(QLatin1String("requests")).toInt(); };
        QCOMPARE(server.stats().value(QLatin1String("maxInflight")).toInt(), 1);

        // No endpoint cached: the GET and endpoints/44772 together.
        int before = requests();
        auto details = QCoro::waitFor(backend.details(id));
        QVERIFY2(details, qPrintable(details ? QString() : details.error().message));
        QCOMPARE(requests() - before, 2);
        QCOMPARE(server.stats().value(QLatin1String("maxInflight")).toInt(), 2);

        auto got = QCoro::waitFor(backend.get(id));
        QVERIFY(got);
        QCOMPARE(details->sandbox.sandboxId, got->sandboxId);
        QCOMPARE(details->sandbox.fingerprint, got->fingerprint);
        QCOMPARE(details->sandbox.metadata, got->metadata);
        QCOMPARE(details->sandbox.state, SandboxState::Running);
        QCOMPARE(details->stateReason, QStringLiteral("CONTAINER_RUNNING"));
        QCOMPARE(details->stateMessage, QStringLiteral("Sandbox container is running."));
        QVERIFY(details->resources.isEmpty()); // the lifecycle API's Sandbox has no resourceLimits
        QHash<QString, QString> facts;
        for (const auto &[label, value] : details->facts)
            facts.insert(label, value);
        QCOMPARE(facts.value(QStringLiteral("Entrypoint")),
                 QStringLiteral("tail -f /dev/null --token=") + QStringLiteral("\u2022\u2022\u2022\u2022"));
        QCOMPARE(facts.value(QStringLiteral("Last transition")), got->createdAt.toString(Qt::ISODateWithMs));
        QCOMPARE(facts.value(QStringLiteral("Platform")), QStringLiteral("linux/amd64"));
        const QString execdPort = QString::number(server.info().value(QLatin1String("execdPort")).toInt());
        QCOMPARE(details->endpoints.size(), 1);
        QCOMPARE(details->endpoints.constFirst().first, QStringLiteral("execd"));
        QCOMPARE(details->endpoints.constFirst().second, QStringLiteral("http://127.0.0.1:%1/%2").arg(execdPort, id));

        auto execd = QCoro::waitFor(backend.execd(id)); // resolved and cached now
        QVERIFY(execd);
        const QByteArray token = (*execd)->target().headers.value("X-EXECD-ACCESS-TOKEN");
        QVERIFY(!token.isEmpty());
        const auto noSecret = [&](const SandboxDetails &shown) {
            QStringList all{shown.stateReason, shown.stateMessage};
            for (const auto &pairs : {shown.resources, shown.endpoints, shown.facts}) {
                for (const auto &[label, value] : pairs)
                    all << label << value;
            }
            for (const QString &text : std::as_const(all)) {
                QVERIFY2(!text.contains(QLatin1String("sample-secret")), qPrintable(text));
                QVERIFY2(!text.contains(QString::fromLatin1(token)), qPrintable(text));
                QVERIFY2(!text.contains(QLatin1String("secret")), qPrintable(text)); // the API key
            }
        };
        noSecret(*details);

        // Cached: the GET alone.
        before = requests();
        auto cached = QCoro::waitFor(backend.details(id));
        QVERIFY(cached);
        QCOMPARE(requests() - before, 1);
        QCOMPARE(cached->endpoints, details->endpoints);
        noSecret(*cached);

        // Paused: the server's reason for that, and no endpoint (its execd answers nothing).
        QVERIFY(QCoro::waitFor(backend.pause(id)));
        auto paused = QCoro::waitFor(backend.details(id));
        QVERIFY(paused);
        QCOMPARE(paused->sandbox.state, SandboxState::Paused);
        QCOMPARE(paused->stateReason, QStringLiteral("CONTAINER_PAUSED"));
        QCOMPARE(paused->stateMessage, QStringLiteral("Sandbox container is paused."));
        QVERIFY(paused->endpoints.isEmpty());

        // Gone: NotFound, as get() says it.
        QVERIFY(QCoro::waitFor(backend.kill(id, {})));
        auto gone = QCoro::waitFor(backend.details(id));
        QVERIFY(!gone);
        QCOMPARE(gone.error().kind, Error::Kind::NotFound);
    }

    void serverProxyReachesExecd()
    {
        FakeOpenSandboxProcess server;
        QVERIFY2(server.start(), qPrintable(server.error()));
        BackendOptions options = optionsFor(server, {});
        options.connection.useServerProxy = true;
        Stack stack(options, m_logs.path(), commands({"echo via proxy"}));
        auto opened = stack.open(QStringLiteral("bob"), QStringLiteral("agent"));
        QVERIFY2(opened, qPrintable(opened ? QString() : opened.error().message));
        QVERIFY(texts(stack.log((*opened)->id()), LogLine::Kind::Stdout).contains(QStringLiteral("via proxy")));
        auto execd = QCoro::waitFor(stack.backend.execd(stack.sandboxOf(*opened).sandboxId));
        QVERIFY(execd);
        QVERIFY((*execd)->target().base.path().contains(QLatin1String("/proxy/44772")));
    }

    void agentscopeMarkerIsItsOwnGatewayScript()
    {
        FakeOpenSandboxProcess server;
        QVERIFY2(server.start(), qPrintable(server.error()));
        const QList<BootstrapCommand> agentscope = OpenSandbox::agentscopeBootstrapCommands();
        QCOMPARE(agentscope.size(), 7);
        QVERIFY(agentscope.at(0).command.startsWith(QLatin1String("apt-get update -qq")));
        QCOMPARE(agentscope.at(4).command,
                 QStringLiteral("uv pip install --python /root/.agentscope/.venv/bin/python --no-deps 'agentscope'"));
        Stack stack(optionsFor(server, {}), m_logs.path(), standInAgentscopeBootstrap(), true);
        auto opened = stack.open(QStringLiteral("frank"), QStringLiteral("agent"));
        QVERIFY2(opened, qPrintable(opened ? QString() : opened.error().message));
        const QString id = (*opened)->id();
        auto execd = QCoro::waitFor(stack.backend.execd(stack.sandboxOf(*opened).sandboxId));
        QVERIFY(execd);
        auto gateway = QCoro::waitFor((*execd)->download(QStringLiteral("/root/.agentscope/_mcp_gateway_app.py")));
        QVERIFY2(gateway, qPrintable(gateway ? QString() : gateway.error().message));
        QCOMPARE(*gateway, QByteArray("# the gateway app\n")); // the package's, as AgentScope's bootstrap put it
        auto helper = QCoro::waitFor((*execd)->download(QStringLiteral("/root/.agentscope/_glob_helper.py")));
        QVERIFY(helper);
        QCOMPARE(*helper, QByteArray("# the glob helper\n"));
        // AgentScope's own marker marks it; Paddock's is not written.
        auto paddocks = QCoro::waitFor((*execd)->fileInfo({QStringLiteral("/root/.agentscope/.bootstrap-complete")}));
        QVERIFY(!paddocks);
        QCOMPARE(paddocks.error().kind, Error::Kind::NotFound);

        // Closed and opened again: not bootstrapped again.
        const qsizetype commandsRun = texts(stack.log(id), LogLine::Kind::Command).size();
        QCOMPARE(commandsRun, 3);
        QVERIFY(QCoro::waitFor(stack.manager.close(id)));
        QVERIFY(stack.open(QStringLiteral("frank"), QStringLiteral("agent")));
        QCOMPARE(texts(stack.log(id), LogLine::Kind::Command).size(), commandsRun);
        QVERIFY(
            texts(stack.log(id), LogLine::Kind::Status)
                .contains(QStringLiteral("bootstrap already complete (/root/.agentscope/_mcp_gateway_app.py exists)")));
    }

    // A workspace that an older Paddock marked with an empty gateway script (after a custom
    // bootstrap), which AgentScope would start as its gateway: AgentScope's bootstrap does not
    // take it for complete, removes it, says so, and leaves the package's script.
    void anEmptyGatewayScriptLeftByAnOlderPaddockIsReplaced()
    {
        FakeOpenSandboxProcess server;
        QVERIFY2(server.start(), qPrintable(server.error()));
        QString id;
        QString sandboxId;
        {
            Stack older(optionsFor(server, {}), m_logs.path(), {});
            auto opened = older.open(QStringLiteral("gail"), QStringLiteral("agent"));
            QVERIFY2(opened, qPrintable(opened ? QString() : opened.error().message));
            id = (*opened)->id();
            sandboxId = older.sandboxOf(*opened).sandboxId;
            ExecRequest poison;
            poison.argv = QStringList{QStringLiteral("sh"), QStringLiteral("-c"),
                                      QStringLiteral("rm /root/.agentscope/.bootstrap-complete && "
                                                     ": > /root/.agentscope/_mcp_gateway_app.py")};
            auto poisoned = QCoro::waitFor(older.backend.exec(sandboxId, poison));
            QVERIFY(poisoned && poisoned->exitCode == 0);
        }
        Stack stack(optionsFor(server, {}), m_logs.path(), standInAgentscopeBootstrap(), true);
        auto opened = stack.open(QStringLiteral("gail"), QStringLiteral("agent"));
        QVERIFY2(opened, qPrintable(opened ? QString() : opened.error().message));
        QCOMPARE(stack.sandboxOf(*opened).sandboxId, sandboxId);
        const QStringList said = texts(stack.log(id), LogLine::Kind::Status);
        QVERIFY2(said.contains(QStringLiteral(
                     "removed the empty gateway script /root/.agentscope/_mcp_gateway_app.py, which an older Paddock "
                     "left as its bootstrap marker (AgentScope would start it as its MCP gateway); AgentScope's "
                     "bootstrap runs again")),
                 qPrintable(said.join(u'\n')));
        auto execd = QCoro::waitFor(stack.backend.execd(sandboxId));
        QVERIFY(execd);
        auto gateway = QCoro::waitFor((*execd)->download(QStringLiteral("/root/.agentscope/_mcp_gateway_app.py")));
        QVERIFY2(gateway, qPrintable(gateway ? QString() : gateway.error().message));
        QCOMPARE(*gateway, QByteArray("# the gateway app\n"));
    }

    void failedBootstrapRunsAgainOnTheNextOpen()
    {
        FakeOpenSandboxProcess server;
        QVERIFY2(server.start(), qPrintable(server.error()));
        // AgentScope's own bootstrap fails harmlessly: there is no network inside the sandbox.
        Stack stack(optionsFor(server, {}), m_logs.path(), OpenSandbox::agentscopeBootstrapCommands(), true);
        auto opened = stack.open(QStringLiteral("carol"), QStringLiteral("agent"));
        QVERIFY(!opened);
        QVERIFY2(opened.error().message.contains(QLatin1String("bootstrap failed")),
                 qPrintable(opened.error().message));
        // The sandbox was paused, not left running, and nothing is cached.
        auto all = QCoro::waitFor(stack.backend.list({}));
        QVERIFY(all);
        QCOMPARE(all->size(), 1);
        QCOMPARE(all->constFirst().state, SandboxState::Paused);
        QCOMPARE(stack.manager.cachedCount(), 0);
        QVERIFY(stack.backend.leasedSandboxes().isEmpty());
    }

    // (A sandbox deleted behind the keeper's back: the conformance suite's aLostSandboxIsLetGo.)
    void leaseIsKeptWhileTheWorkspaceIsOpen()
    {
        FakeOpenSandboxProcess server;
        QVERIFY2(server.start(), qPrintable(server.error()));
        BackendOptions options = optionsFor(server, {});
        options.sandbox.timeout = 120s;
        options.leaseCheckInterval = 50ms;
        options.leaseRenewMargin = 119s; // due at once: every check renews
        Stack stack(options, m_logs.path(), {});
        QSignalSpy renewed(&stack.backend, &OpenSandboxBackend::leaseRenewed);
        auto opened = stack.open(QStringLiteral("dave"), QStringLiteral("agent"));
        QVERIFY2(opened, qPrintable(opened ? QString() : opened.error().message));
        const QString sandboxId = stack.sandboxOf(*opened).sandboxId;

        // The keeper renews the open workspace's sandbox to a full timeout from now.
        QVERIFY(renewed.wait(10'000));
        QCOMPARE(renewed.constFirst().at(0).toString(), sandboxId);
        const QDateTime granted = renewed.constFirst().at(1).toDateTime();
        QVERIFY(granted > QDateTime::currentDateTimeUtc().addSecs(100));
        QTRY_COMPARE_WITH_TIMEOUT(
            parseTimestamp(rawSandbox(server, sandboxId, {}).value(QLatin1String("expiresAt")).toString())
                    .value_or(QDateTime())
                >= granted.addMSecs(-1),
            true, 10'000);
    }

    // A paused sandbox's execd holds what it is asked. Pausing it lets this backend's reads of
    // it go at once (Cancelled), rather than at their transfer timeouts: a quit after a bulk
    // pause waited a minute for them.
    void pausingLetsTheReadsItsExecdHoldsGo()
    {
        FakeOpenSandboxProcess server;
        QVERIFY2(server.start(), qPrintable(server.error()));
        Stack stack(optionsFor(server), m_logs.path(), {});
        auto opened = stack.open(QStringLiteral("olga"), QStringLiteral("agent"));
        QVERIFY2(opened, qPrintable(opened ? QString() : opened.error().message));
        const QString sandboxId = stack.sandboxOf(*opened).sandboxId;
        QVERIFY(QCoro::waitFor(stack.backend.sessionsActivity(sandboxId))); // execd known, and cached

        // Paused by someone else: the next reads of this backend are held without an answer.
        OpenSandboxBackend elsewhere(optionsFor(server));
        QVERIFY(QCoro::waitFor(elsewhere.pause(sandboxId)));
        const auto execdRequests = [&server] { return server.stats().value(QLatin1String("execdRequests")).toInt(); };
        const int before = execdRequests();
        auto activity = stack.backend.sessionsActivity(sandboxId);
        auto listing = stack.backend.listFolder(sandboxId, QStringLiteral("."));
        QTRY_VERIFY(execdRequests() >= before + 2); // both held by the frozen execd
        QVERIFY(!activity.isReady());
        QVERIFY(!listing.isReady());

        QVERIFY(QCoro::waitFor(stack.backend.pause(sandboxId))); // already paused: done
        const auto read = QCoro::waitFor(std::move(activity));
        QVERIFY(!read);
        QCOMPARE(read.error().kind, Error::Kind::Cancelled);
        const auto listed = QCoro::waitFor(std::move(listing));
        QVERIFY(!listed);
        QCOMPARE(listed.error().kind, Error::Kind::Cancelled);

        // Resumed, it is read again through a new lookup of its execd.
        QVERIFY(QCoro::waitFor(stack.backend.resume(sandboxId)));
        QVERIFY(QCoro::waitFor(stack.backend.sessionsActivity(sandboxId)));
    }

    void theLeaseKeeperNeverCutsSomeoneElsesRenewalShort()
    {
        FakeOpenSandboxProcess server;
        QVERIFY2(server.start(), qPrintable(server.error()));
        BackendOptions options = optionsFor(server, {});
        options.sandbox.timeout = 120s;
        options.leaseCheckInterval = 1h; // this test runs the keeper itself
        options.leaseRenewMargin = 119s; // due at once by what this backend knows
        Stack stack(options, m_logs.path(), {});
        auto opened = stack.open(QStringLiteral("erin"), QStringLiteral("agent"));
        QVERIFY2(opened, qPrintable(opened ? QString() : opened.error().message));
        const QString sandboxId = stack.sandboxOf(*opened).sandboxId;

        // Another client gives it a day.
        OpenSandboxBackend other(optionsFor(server, {}));
        QVERIFY(QCoro::waitFor(other.lifecycle()->renew(sandboxId, std::chrono::seconds(86400))));
        const QDateTime aDay =
            parseTimestamp(rawSandbox(server, sandboxId, {}).value(QLatin1String("expiresAt")).toString())
                .value_or(QDateTime());
        QVERIFY(aDay > QDateTime::currentDateTimeUtc().addSecs(86000));

        // The keeper sees that and leaves it: the day stays.
        QCOMPARE(QCoro::waitFor(stack.backend.renewLeases()), 0);
        QCOMPARE(parseTimestamp(rawSandbox(server, sandboxId, {}).value(QLatin1String("expiresAt")).toString())
                     .value_or(QDateTime()),
                 aDay);
        QVERIFY(stack.backend.leasedSandboxes().contains(sandboxId));
    }

    void listFollowsEveryPage()
    {
        FakeOpenSandboxProcess server;
        QVERIFY2(server.start({QStringLiteral("--seed"), QStringLiteral("1000")}), qPrintable(server.error()));
        OpenSandboxBackend backend(optionsFor(server, {}));
        auto all = QCoro::waitFor(backend.list({}));
        QVERIFY2(all, qPrintable(all ? QString() : all.error().message));
        QCOMPARE(all->size(), 1000);
        QSet<QString> ids;
        for (const SandboxInfo &info : std::as_const(*all))
            ids.insert(info.sandboxId);
        QCOMPARE(ids.size(), 1000);
        // 1000 at 200 a page: five requests.
        QCOMPARE(server.stats().value(QLatin1String("requests")).toInt(), 5);

        // The state filter is applied by the server.
        ListFilter paused;
        paused.states = {SandboxState::Paused};
        auto pausedOnly = QCoro::waitFor(backend.list(paused));
        QVERIFY(pausedOnly);
        QVERIFY(!pausedOnly->isEmpty() && pausedOnly->size() < 1000);
        for (const SandboxInfo &info : std::as_const(*pausedOnly))
            QCOMPARE(info.state, SandboxState::Paused);
        // The seed's Chinese user arrives decoded.
        const bool chinese = std::any_of(all->cbegin(), all->cend(),
                                         [](const SandboxInfo &info) { return info.userId == QStringLiteral("运维"); });
        QVERIFY(chinese);
    }

    void metadataFilterWithAwkwardValues_data()
    {
        QTest::addColumn<QString>("value");
        QTest::newRow("spaces") << QStringLiteral("ml team");
        QTest::newRow("ampersand") << QStringLiteral("a&b");
        QTest::newRow("equals") << QStringLiteral("k=v");
        QTest::newRow("percent") << QStringLiteral("100%25 sure");
        QTest::newRow("plus") << QStringLiteral("c++");
        QTest::newRow("chinese") << QStringLiteral("机器学习 团队");
        QTest::newRow("plain") << QStringLiteral("plain-value_1.0");
    }

    void metadataFilterWithAwkwardValues()
    {
        QFETCH(QString, value);
        FakeOpenSandboxProcess server;
        QVERIFY2(server.start(), qPrintable(server.error()));
        OpenSandboxBackend backend(optionsFor(server, {}));
        LifecycleClient *client = backend.lifecycle();
        SandboxCreate create;
        create.metadata = {{QStringLiteral("team"), value}};
        auto wanted = QCoro::waitFor(client->create(create));
        QVERIFY2(wanted, qPrintable(wanted ? QString() : wanted.error().message));
        create.metadata = {{QStringLiteral("team"), value + QStringLiteral("x")}};
        QVERIFY(QCoro::waitFor(client->create(create)));

        const QStringList anyState;
        const QMap<QString, QString> filter{{QStringLiteral("team"), value}};
        auto found = QCoro::waitFor(client->list(anyState, filter));
        QVERIFY2(found, qPrintable(found ? QString() : found.error().message));
        QCOMPARE(found->size(), 1);
        QCOMPARE(found->constFirst().sandboxId, wanted->sandboxId);
        QCOMPARE(found->constFirst().metadata.value(QStringLiteral("team")), value);
    }

    void wrongApiKeyNamesStatusCodeAndRequest()
    {
        FakeOpenSandboxProcess server;
        QVERIFY2(server.start({QStringLiteral("--api-key"), QStringLiteral("right")}), qPrintable(server.error()));
        OpenSandboxBackend backend(optionsFor(server, "wrong"));
        auto all = QCoro::waitFor(backend.list({}));
        QVERIFY(!all);
        const QString message = all.error().message;
        QVERIFY2(message.contains(QLatin1String("HTTP 401 INVALID_API_KEY")), qPrintable(message));
        QVERIFY2(message.contains(QLatin1String("(request ")), qPrintable(message));
        QVERIFY2(!message.contains(QLatin1String("wrong")), qPrintable(message)); // the key is never shown
    }

    void faultInjectionNeverHangsOrCreatesTwice()
    {
        FakeOpenSandboxProcess server;
        QVERIFY2(server.start({QStringLiteral("--fail-rate"), QStringLiteral("0.35"), QStringLiteral("--fail-seed"),
                               QStringLiteral("7"), QStringLiteral("--latency-ms"), QStringLiteral("5")}),
                 qPrintable(server.error()));
        Stack stack(optionsFor(server, {}), m_logs.path(), commands({"true"}));
        QStringList opened;
        int failures = 0;
        for (int i = 0; i < 12; ++i) {
            const QString user = QStringLiteral("user-%1").arg(i);
            auto workspace = stack.open(user, QStringLiteral("agent"));
            if (workspace) {
                opened.append((*workspace)->id());
                continue;
            }
            ++failures;
            // Every failure that reaches the user says what happened, with the request id when
            // the server answered, or what could not be reached.
            const QString message = workspace.error().message;
            QVERIFY2(message.contains(QLatin1String("(request ")) || message.contains(QLatin1String("failed:")),
                     qPrintable(message));
        }
        QVERIFY(!opened.isEmpty());
        // Each workspace id has at most one sandbox, whatever was dropped on the way. The list
        // itself is retried through the faults.
        Result<QList<SandboxInfo>> all = fail(Error{});
        for (int attempt = 0; attempt < 20 && !all; ++attempt)
            all = QCoro::waitFor(stack.backend.list({}));
        QVERIFY2(all, qPrintable(all ? QString() : all.error().message));
        QHash<QString, int> perWorkspace;
        for (const SandboxInfo &info : std::as_const(*all))
            ++perWorkspace[info.workspaceId];
        for (auto it = perWorkspace.cbegin(); it != perWorkspace.cend(); ++it)
            QVERIFY2(it.value() == 1, qPrintable(it.key()));
        for (const QString &id : std::as_const(opened))
            QCOMPARE(perWorkspace.value(id), 1);
        qInfo() << opened.size() << "opened," << failures << "failed under injected faults";
    }

    void slowRepliesHitTheTransferTimeoutAndSaySo()
    {
        FakeOpenSandboxProcess server;
        QVERIFY2(server.start({QStringLiteral("--latency-ms"), QStringLiteral("1500")}), qPrintable(server.error()));
        BackendOptions options = optionsFor(server, {});
        options.connection.requestTimeout = 300ms;
        options.retry = quickRetries(2);
        OpenSandboxBackend impatient(options);
        auto listed = QCoro::waitFor(impatient.list({}));
        QVERIFY(!listed);
        QCOMPARE(listed.error().kind, Error::Kind::Unreachable);
        QVERIFY2(listed.error().message.contains(QLatin1String("no answer within 0.3 s")),
                 qPrintable(listed.error().message));
        // Provisioning fails the same way, and leaves at most one sandbox behind.
        Stack stack(options, m_logs.path(), {});
        auto opened = stack.open(QStringLiteral("hank"), QStringLiteral("agent"));
        QVERIFY(!opened);
        options.connection.requestTimeout = 10s;
        OpenSandboxBackend patient(options);
        auto all = QCoro::waitFor(patient.list({}));
        QVERIFY2(all, qPrintable(all ? QString() : all.error().message));
        QVERIFY(all->size() <= 1);
    }

    void serverRestartInTheMiddleOfAStream()
    {
        QTemporaryDir data;
        QVERIFY(data.isValid());
        quint16 port = 0;
        {
            QTcpServer probe;
            QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
            port = probe.serverPort();
        }
        const QStringList arguments{QStringLiteral("--port"), QString::number(port), QStringLiteral("--data-dir"),
                                    data.path()};
        auto server = std::make_unique<FakeOpenSandboxProcess>();
        QVERIFY2(server->start(arguments), qPrintable(server->error()));
        BackendOptions options = optionsFor(*server, {});
        options.execdPingInterval = 200ms;
        Stack stack(options, m_logs.path(), {});
        auto opened = stack.open(QStringLiteral("erin"), QStringLiteral("agent"));
        QVERIFY2(opened, qPrintable(opened ? QString() : opened.error().message));
        const QString sandboxId = stack.sandboxOf(*opened).sandboxId;

        // A command that runs until the server dies under it.
        ExecRequest request;
        request.argv =
            QStringList{QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("echo started; exec sleep 600")};
        bool started = false;
        request.onLine = [&started](OutputChannel, const QByteArray &line) { started = started || line == "started"; };
        auto task = stack.backend.exec(sandboxId, request);
        QTRY_VERIFY_WITH_TIMEOUT(started, 30'000);
        server->kill();
        auto result = QCoro::waitFor(std::move(task));
        QVERIFY2(!result,
                 result ? qPrintable(
                     QStringLiteral("exit %1, out %2").arg(result->exitCode).arg(QString::fromUtf8(result->stdOut)))
                        : ""); // an error, not a hang
        QVERIFY(!result.error().message.isEmpty());

        // The restarted server still knows the sandbox; the backend reattaches to it.
        server = std::make_unique<FakeOpenSandboxProcess>();
        QVERIFY2(server->start(arguments), qPrintable(server->error()));
        ExecRequest echo;
        echo.argv = QStringList{QStringLiteral("echo"), QStringLiteral("back")};
        auto after = QCoro::waitFor(stack.backend.exec(sandboxId, echo));
        QVERIFY2(after, qPrintable(after ? QString() : after.error().message));
        QCOMPARE(after->stdOut, QByteArray("back\n"));
    }

    // The server comes back on its own port and data, but its execd listens elsewhere: every
    // execd path finds the new endpoint in the first call after the restart (the cached one
    // refuses the connection, so the backend fetches the endpoint again and repeats at once).
    void execdIsFoundAgainAfterTheServerMovesIt()
    {
        QTemporaryDir data;
        QVERIFY(data.isValid());
        QList<quint16> ports;
        {
            QTcpServer probes[3];
            for (QTcpServer &probe : probes) {
                QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
                ports.append(probe.serverPort());
            }
        }
        const auto arguments = [&](quint16 execdPort) {
            return QStringList{QStringLiteral("--port"),       QString::number(ports[0]),
                               QStringLiteral("--data-dir"),   data.path(),
                               QStringLiteral("--execd-port"), QString::number(execdPort)};
        };
        auto server = std::make_unique<FakeOpenSandboxProcess>();
        QVERIFY2(server->start(arguments(ports[1])), qPrintable(server->error()));
        Stack stack(optionsFor(*server, {}), m_logs.path(), {});
        auto opened = stack.open(QStringLiteral("ivan"), QStringLiteral("agent"));
        QVERIFY2(opened, qPrintable(opened ? QString() : opened.error().message));
        const QString sandboxId = stack.sandboxOf(*opened).sandboxId;
        ExecRequest touch;
        touch.argv = QStringList{QStringLiteral("sh"), QStringLiteral("-c"),
                                 QStringLiteral("mkdir -p sessions/s1 && touch -d @1767600000 sessions/s1/a && "
                                                "touch -d @1767500000 sessions/s1")};
        auto touched = QCoro::waitFor(stack.backend.exec(sandboxId, touch));
        QVERIFY2(touched && touched->exitCode == 0, qPrintable(touched ? QString() : touched.error().message));
        QVERIFY(QCoro::waitFor(stack.backend.sessionsActivity(sandboxId)));
        auto before = QCoro::waitFor(stack.backend.execd(sandboxId));
        QVERIFY(before);
        const std::shared_ptr<ExecdClient> old = *before;
        QCOMPARE(old->target().base.port(), int(ports[1]));

        server->kill();
        server = std::make_unique<FakeOpenSandboxProcess>();
        QVERIFY2(server->start(arguments(ports[2])), qPrintable(server->error()));

        // Last activity: read again, through one new endpoint lookup.
        auto activity = QCoro::waitFor(stack.backend.sessionsActivity(sandboxId));
        QVERIFY2(activity, qPrintable(activity ? QString() : activity.error().message));
        QCOMPARE(*activity, std::optional(QDateTime::fromSecsSinceEpoch(1767600000, Qt::UTC)));
        QCOMPARE(server->stats().value(QLatin1String("requests")).toInt(), 1); // the endpoint, once
        auto now = QCoro::waitFor(stack.backend.execd(sandboxId));
        QVERIFY(now);
        QCOMPARE((*now)->target().base.port(), int(ports[2]));

        // Commands and readiness, each after the next move.
        const auto move = [&](quint16 execdPort) {
            server->kill();
            server = std::make_unique<FakeOpenSandboxProcess>();
            return server->start(arguments(execdPort));
        };
        QVERIFY(move(ports[1]));
        ExecRequest echo;
        echo.argv = QStringList{QStringLiteral("echo"), QStringLiteral("back")};
        auto after = QCoro::waitFor(stack.backend.exec(sandboxId, echo));
        QVERIFY2(after, qPrintable(after ? QString() : after.error().message));
        QCOMPARE(after->stdOut, QByteArray("back\n"));
        QVERIFY(move(ports[2]));
        auto ready = QCoro::waitFor(stack.backend.isReady(sandboxId));
        QVERIFY2(ready && *ready, qPrintable(ready ? QString() : ready.error().message));

        // A client someone kept (files): its failure says so, and the next execd() is new.
        QVERIFY(move(ports[1]));
        auto kept = QCoro::waitFor(stack.backend.execd(sandboxId));
        QVERIFY(kept);
        QCOMPARE((*kept)->target().base.port(), int(ports[2]));
        auto stale = QCoro::waitFor((*kept)->download(QStringLiteral("/workspace/sessions/s1/a")));
        QVERIFY(!stale);
        QVERIFY2(stale.error().notConnected, qPrintable(stale.error().message));
        auto fresh = QCoro::waitFor(stack.backend.execd(sandboxId));
        QVERIFY(fresh);
        QCOMPARE((*fresh)->target().base.port(), int(ports[1]));
        QVERIFY(QCoro::waitFor((*fresh)->download(QStringLiteral("/workspace/sessions/s1/a"))));
        QCOMPARE(server->stats().value(QLatin1String("execdRequestsWithApiKey")).toInt(), 0);
    }
};

QTEST_GUILESS_MAIN(TestOpenSandboxBackend)
#include "tst_opensandboxbackend.moc"
