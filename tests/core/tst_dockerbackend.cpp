// The Docker backend against a real Docker engine that the test starts for itself
// (PrivateDockerEngine: its own socket, data and exec roots in a temporary folder, no bridge, no
// iptables; containers with network "none"; a busybox image made by `docker import`). Where no
// engine can start, the test says why and is skipped; in CI it must run. What is Docker's own is
// here; what every backend must do (ids, layout, reattach, pause and resume with and without
// stopInsteadOfPause, commands, last activity, kill and its host folder, lost and unknown
// containers) is the conformance suite's, tests/conformance/tst_conformance_docker.

#include "backends/docker/dockerbackend.h"
#include "backends/docker/dockerclient.h"
#include "bootstraplog.h"
#include "containerlogtail.h"
#include "isolation.h"
#include "privatedocker.h"
#include "provisioner.h"
#include "terminalrun.h"
#include "workspacemanager.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace Paddock;
using namespace Paddock::Docker;
using namespace std::chrono_literals;

namespace {

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class TestDockerBackend final : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<PaddockTest::PrivateDockerEngine> m_engine;
    QString m_image;
    QTemporaryDir m_dir;

    DockerOptions options(const QString &name) const
    {
        DockerOptions options;
        options.dockerHost = m_engine->dockerHost();
        options.image = m_image;
        options.basedir = m_dir.filePath(name);
        return options;
    }

    // What `docker inspect -f FORMAT` says of a container, trimmed; empty when it is not there.
    QByteArray inspect(const QString &container, const QString &format)
    {
        QByteArray out;
        if (m_engine->docker({QStringLiteral("inspect"), QStringLiteral("-f"), format, container}, &out) != 0)
            return {};
        return out.trimmed();
    }

    // The container AgentScope's DockerWorkspace makes for a workspace
    // (`_docker_workspace.py`, _create_and_start_container), through the Engine API as aiodocker
    // sends it: as_ws_<id>, its two labels, `sleep infinity` in /workspace, the host folder bound
    // read-write there; then started. Only NetworkMode is this engine's (it has no bridge; AgentScope
    // sets none and gets the engine's default).
    bool makeAgentScopeContainer(const QString &workspaceId, const QString &hostFolder)
    {
        CurlHttpClient http(*EngineAddress::parse(m_engine->dockerHost()));
        const QJsonObject config{
            {QStringLiteral("Image"), m_image},
            {QStringLiteral("Cmd"), QJsonArray{QStringLiteral("sleep"), QStringLiteral("infinity")}},
            {QStringLiteral("WorkingDir"), QStringLiteral("/workspace")},
            {QStringLiteral("Labels"),
             QJsonObject{{QStringLiteral("agentscope.workspace"), QStringLiteral("true")},
                         {QStringLiteral("agentscope.workspace.id"), workspaceId}}},
            {QStringLiteral("HostConfig"),
             QJsonObject{{QStringLiteral("Binds"), QJsonArray{QString(hostFolder + QStringLiteral(":/workspace:rw"))}},
                         {QStringLiteral("NetworkMode"), QStringLiteral("none")}}},
        };
        HttpRequest create;
        create.method = "POST";
        create.target = "/v1.41/containers/create?name=as_ws_" + workspaceId.toUtf8();
        create.body = QJsonDocument(config).toJson(QJsonDocument::Compact);
        const auto created = QCoro::waitFor(http.send(create));
        if (!created || created->status != 201) {
            qWarning() << "create:" << (created ? created->body : created.error().message.toUtf8());
            return false;
        }
        HttpRequest start;
        start.method = "POST";
        start.target = "/v1.41/containers/as_ws_" + workspaceId.toUtf8() + "/start";
        const auto started = QCoro::waitFor(http.send(start));
        return started && started->status == 204;
    }

    // A container made through the Engine API with this config (the image and nothing else
    // filled in), then started unless told not to; its id, or empty.
    QString makeContainer(const QString &name, QJsonObject config, bool start = true)
    {
        CurlHttpClient http(*EngineAddress::parse(m_engine->dockerHost()));
        config.insert(QStringLiteral("Image"), m_image);
        HttpRequest create;
        create.method = "POST";
        create.target = "/v1.41/containers/create?name=" + name.toUtf8();
        create.body = QJsonDocument(config).toJson(QJsonDocument::Compact);
        const auto created = QCoro::waitFor(http.send(create));
        if (!created || created->status != 201) {
            qWarning() << "create:" << (created ? created->body : created.error().message.toUtf8());
            return {};
        }
        const QString id = QJsonDocument::fromJson(created->body).object().value(QLatin1String("Id")).toString();
        if (start) {
            HttpRequest starting;
            starting.method = "POST";
            starting.target = "/v1.41/containers/" + id.toUtf8() + "/start";
            QCoro::waitFor(http.send(starting)); // a start that fails is what some callers want
        }
        return id;
    }

    static bool writeFile(const QString &path, const QByteArray &bytes)
    {
        if (!QDir().mkpath(QFileInfo(path).path()))
            return false;
        QFile file(path);
        return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
    }

    int containerCount()
    {
        QByteArray out;
        if (m_engine->docker({QStringLiteral("ps"), QStringLiteral("-aq")}, &out) != 0)
            return -1;
        return out.trimmed().isEmpty() ? 0 : int(out.trimmed().split('\n').size());
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_engine = std::make_unique<PaddockTest::PrivateDockerEngine>();
        PADDOCK_START_PRIVATE_DOCKER(*m_engine);
        m_image = m_engine->busyboxImage();
        QVERIFY2(!m_image.isEmpty(), qPrintable(m_engine->error()));
    }

    void cleanupTestCase() { m_engine.reset(); }

    void badInputGetsOneClearMessage()
    {
        // No engine behind the address.
        DockerOptions none = options(QStringLiteral("none"));
        none.dockerHost = QStringLiteral("unix://") + m_dir.filePath(QStringLiteral("no-such.sock"));
        DockerBackend nowhere(none);
        const auto ping = QCoro::waitFor(nowhere.ping());
        QVERIFY(!ping.has_value());
        QVERIFY2(ping.error().message.contains(m_dir.filePath(QStringLiteral("no-such.sock"))),
                 qPrintable(ping.error().message));
        const auto listed = QCoro::waitFor(nowhere.list({}));
        QVERIFY(!listed.has_value());

        // A DOCKER_HOST we cannot speak to.
        DockerOptions ssh = options(QStringLiteral("ssh"));
        ssh.dockerHost = QStringLiteral("ssh://user@host");
        DockerBackend bad(ssh);
        const auto refused = QCoro::waitFor(bad.list({}));
        QVERIFY(!refused.has_value());
        QCOMPARE(refused.error().kind, Error::Kind::InvalidArgument);
        QVERIFY(refused.error().message.contains(QLatin1String("ssh://user@host")));

        // An image that is not on the engine: nothing is created, not even the folder.
        DockerOptions missing = options(QStringLiteral("missing"));
        missing.image = QStringLiteral("paddock-test/no-such-image:1");
        DockerBackend backend(missing);
        const int before = containerCount();
        const auto created = QCoro::waitFor(
            backend.create(CreateSpec{QStringLiteral("ws-missing"), QStringLiteral("u"), QStringLiteral("a"), {}}));
        QVERIFY(!created.has_value());
        QCOMPARE(created.error().kind, Error::Kind::NotFound);
        QVERIFY2(created.error().message.contains(missing.image), qPrintable(created.error().message));
        QCOMPARE(containerCount(), before);
        QVERIFY(!QFileInfo::exists(missing.basedir + QStringLiteral("/ws-missing")));

        // A container that cannot start (its command is not in the image) is removed again, with
        // the folder made for it; the engine's reason is told.
        DockerOptions broken = options(QStringLiteral("broken"));
        broken.command = {QStringLiteral("/no/such/program")};
        DockerBackend unstartable(broken);
        const auto failed = QCoro::waitFor(
            unstartable.create(CreateSpec{QStringLiteral("ws-broken"), QStringLiteral("u"), QStringLiteral("a"), {}}));
        QVERIFY(!failed.has_value());
        QVERIFY2(failed.error().message.contains(QLatin1String("/no/such/program")),
                 qPrintable(failed.error().message));
        QCOMPARE(containerCount(), before);
        QVERIFY(!QFileInfo::exists(broken.basedir + QStringLiteral("/ws-broken")));
    }

    void containerLifecycle()
    {
        DockerBackend backend(options(QStringLiteral("life")));
        QVERIFY(QCoro::waitFor(backend.ping()).has_value());
        const auto made = QCoro::waitFor(backend.create(
            CreateSpec{QStringLiteral("ws-life"), QStringLiteral("alice"), QStringLiteral("coder"), {}}));
        QVERIFY2(made.has_value(), qPrintable(made ? QString() : made.error().message));
        // Labelled, no network, /workspace from the host.
        QByteArray out;
        QCOMPARE(m_engine->docker({QStringLiteral("inspect"), QStringLiteral("-f"),
                                   QStringLiteral("{{.HostConfig.NetworkMode}} {{index .Config.Labels "
                                                  "\"agentscope.workspace.id\"}} {{(index .Mounts 0).Source}}"),
                                   made->sandboxId},
                                  &out),
                 0);
        QCOMPARE(out.trimmed(),
                 QByteArray("none ws-life ") + QFile::encodeName(*backend.hostFolder(QStringLiteral("ws-life"))));

        // What the container printed, as docker logs --timestamps has it (the tail of it).
        QCOMPARE(m_engine->docker({QStringLiteral("exec"), made->sandboxId, QStringLiteral("sh"), QStringLiteral("-c"),
                                   QStringLiteral("echo to the log > /proc/1/fd/1; echo on stderr > /proc/1/fd/2")}),
                 0);
        QByteArray logs;
        QTRY_VERIFY((logs = QCoro::waitFor(backend.containerLogs(made->sandboxId, 10)).value_or(QByteArray()))
                        .contains("on stderr"));
        const QList<QByteArray> logLines = logs.trimmed().split('\n');
        QCOMPARE(logLines.size(), 2);
        // stdout and stderr are two pipes: their order in the log is the order they were read.
        for (const QByteArray &line : logLines) {
            QVERIFY2(line.endsWith(" to the log") || line.endsWith(" on stderr"), logs.constData());
            QVERIFY(parseDockerTime(QString::fromLatin1(line.left(line.indexOf(' ')))).isValid());
        }
        QCOMPARE(QCoro::waitFor(backend.containerLogs(made->sandboxId, 1))->trimmed().split('\n').size(), 1);

        // A time limit ends the command's children too (the conformance suite checks the limit
        // itself): here one that holds no stream (timeout(1) would leave it running in the
        // container) and one that holds stdout (it would keep the exec open).
        ExecRequest slow;
        slow.timeout = 1s;
        slow.argv = {QStringLiteral("sh"), QStringLiteral("-c"),
                     QStringLiteral("sleep 300 </dev/null >/dev/null 2>&1 & sleep 301 & echo started; wait")};
        const auto family = QCoro::waitFor(backend.exec(made->sandboxId, slow));
        QVERIFY(family.has_value());
        QVERIFY(family->timedOut);
        QCOMPARE(family->exitCode, 137);
        QCOMPARE(family->stdOut, QByteArray("started\n"));
        ExecRequest ps;
        ps.argv = {QStringLiteral("ps")};
        const auto processes = QCoro::waitFor(backend.exec(made->sandboxId, ps));
        QVERIFY(processes.has_value());
        QVERIFY2(!processes->stdOut.contains("sleep 300") && !processes->stdOut.contains("sleep 301"),
                 processes->stdOut.constData());
        // A command that ends in time leaves no watchdog: it ends within a second of it.
        ExecRequest quick;
        quick.argv = {QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("exit 3")};
        quick.timeout = 20s;
        const auto done = QCoro::waitFor(backend.exec(made->sandboxId, quick));
        QVERIFY(done.has_value());
        QCOMPARE(done->exitCode, 3);
        QTRY_VERIFY([&] {
            const auto after = QCoro::waitFor(backend.exec(made->sandboxId, ps));
            return after.has_value() && !after->stdOut.contains("paddock-watchdog");
        }());
        QVERIFY(QCoro::waitFor(backend.kill(made->sandboxId, {})).has_value());
    }

    // The raw state says how a container was paused (the conformance suite checks the states
    // every backend reports); resume undoes either.
    void theTerminalCommandOpensAShellInTheContainer()
    {
        DockerBackend backend(options(QStringLiteral("term")));
        const auto made = QCoro::waitFor(backend.create(
            CreateSpec{QStringLiteral("ws-term"), QStringLiteral("alice"), QStringLiteral("coder"), {}}));
        QVERIFY2(made.has_value(), qPrintable(made ? QString() : made.error().message));
        const auto command = backend.terminalCommand(*made);
        QVERIFY(command);
        // The profile's engine named, whatever the docker CLI's context says; bash where there is one.
        QCOMPARE(command->program, QStringLiteral("docker"));
        QCOMPARE(command->arguments,
                 (QStringList{QStringLiteral("-H"), m_engine->dockerHost(), QStringLiteral("exec"),
                              QStringLiteral("-it"), QStringLiteral("-w"), QStringLiteral("/workspace"),
                              made->sandboxId, QStringLiteral("sh"), QStringLiteral("-c"),
                              QStringLiteral("command -v bash >/dev/null 2>&1 && exec bash; exec sh")}));
        QVERIFY(command->workingDirectory.isEmpty());
        // A backend whose engine address is bad has none.
        DockerOptions bad = options(QStringLiteral("term-bad"));
        bad.dockerHost = QStringLiteral("ssh://nowhere");
        QVERIFY(!DockerBackend(bad).terminalCommand(*made));

        // It really is a shell in /workspace of that container, through the docker CLI in a terminal.
        if (!PaddockTest::canRunTerminalCommands()
            || QStandardPaths::findExecutable(QStringLiteral("docker")).isEmpty())
            QSKIP("script (util-linux) or the docker CLI is not installed");
        QProcessEnvironment environment = m_engine->environment();
        environment.remove(QStringLiteral("DOCKER_HOST")); // -H says where
        const QByteArray shown =
            PaddockTest::runInTerminal(*command, "pwd; echo paddock-$((6*7))\nexit\n", environment);
        QVERIFY2(shown.contains("/workspace"), shown.constData());
        QVERIFY2(shown.contains("paddock-42"), shown.constData());
        QVERIFY(QCoro::waitFor(backend.kill(made->sandboxId, {})));
    }

    void rawStatesSayHowItWasPaused()
    {
        DockerBackend freezing(options(QStringLiteral("raw")));
        DockerOptions stopOptions = options(QStringLiteral("raw"));
        stopOptions.stopInsteadOfPause = true;
        DockerBackend stopping(stopOptions);
        const auto made = QCoro::waitFor(
            freezing.create(CreateSpec{QStringLiteral("ws-raw"), QStringLiteral("u"), QStringLiteral("a"), {}}));
        QVERIFY2(made.has_value(), qPrintable(made ? QString() : made.error().message));
        QVERIFY(QCoro::waitFor(freezing.pause(made->sandboxId)).has_value());
        QCOMPARE(QCoro::waitFor(freezing.get(made->sandboxId))->rawState, QStringLiteral("paused"));
        QCOMPARE(QCoro::waitFor(freezing.resume(made->sandboxId))->rawState, QStringLiteral("running"));
        QVERIFY(QCoro::waitFor(stopping.pause(made->sandboxId)).has_value());
        QCOMPARE(QCoro::waitFor(stopping.get(made->sandboxId))->rawState, QStringLiteral("exited"));
        QCOMPARE(QCoro::waitFor(stopping.resume(made->sandboxId))->rawState, QStringLiteral("running"));
        QVERIFY(QCoro::waitFor(freezing.kill(made->sandboxId, {})).has_value());
    }

    // The overview's details are one inspection: the engine's state (exit code, its error), the
    // limits HostConfig sets, the container's id, name, times, bind mount and network; never an
    // environment value. A closed workspace of AgentScope's layout is its folder.
    void detailsReadTheInspectionAndNoEnv()
    {
        DockerBackend backend(options(QStringLiteral("details")));
        const QString folder = m_dir.filePath(QStringLiteral("details/ws-details"));
        QVERIFY(QDir().mkpath(folder));
        const QJsonObject labels{{QStringLiteral("agentscope.workspace.id"), QStringLiteral("ws-details")},
                                 {QStringLiteral("agentscope.user.id"), QStringLiteral("alice")},
                                 {QStringLiteral("agentscope.agent.id"), QStringLiteral("coder")}};
        const QJsonObject limited{
            {QStringLiteral("Cmd"), QJsonArray{QStringLiteral("sleep"), QStringLiteral("infinity")}},
            {QStringLiteral("Env"), QJsonArray{QStringLiteral("OPENAI_API_KEY=sample-secret-env")}},
            {QStringLiteral("Labels"), labels},
            {QStringLiteral("HostConfig"),
             QJsonObject{{QStringLiteral("Binds"), QJsonArray{QString(folder + QStringLiteral(":/workspace:rw"))}},
                         {QStringLiteral("NetworkMode"), QStringLiteral("none")},
                         {QStringLiteral("NanoCpus"), 500'000'000},
                         {QStringLiteral("Memory"), 256 * 1024 * 1024},
                         {QStringLiteral("PidsLimit"), 64}}},
        };
        const QString id = makeContainer(QStringLiteral("paddock-ws-details"), limited);
        QVERIFY(!id.isEmpty());
        const auto cleanup = qScopeGuard([&] { QCoro::waitFor(backend.kill(id, {})); });

        auto details = QCoro::waitFor(backend.details(id));
        QVERIFY2(details, qPrintable(details ? QString() : details.error().message));
        auto got = QCoro::waitFor(backend.get(id));
        QVERIFY(got);
        QCOMPARE(details->sandbox.fingerprint, got->fingerprint);
        QCOMPARE(details->sandbox.state, SandboxState::Running);
        QCOMPARE(details->sandbox.userId, QStringLiteral("alice"));
        QVERIFY(details->stateReason.isEmpty());
        QVERIFY(details->stateMessage.isEmpty());
        // The limits as the engine kept them (an engine without the cgroup controllers drops one
        // with a warning: then it is not shown either).
        QList<std::pair<QString, QString>> resources;
        if (inspect(id, QStringLiteral("{{.HostConfig.NanoCpus}}")) == "500000000")
            resources.append({QStringLiteral("cpu"), QStringLiteral("0.5")});
        if (inspect(id, QStringLiteral("{{.HostConfig.Memory}}")) == "268435456")
            resources.append({QStringLiteral("memory"), QStringLiteral("256Mi")});
        if (inspect(id, QStringLiteral("{{.HostConfig.PidsLimit}}")) == "64")
            resources.append({QStringLiteral("pids"), QStringLiteral("64")});
        QVERIFY2(!resources.isEmpty(), "the engine kept none of the limits");
        qInfo() << "the limits this engine kept:" << resources;
        QCOMPARE(details->resources, resources);
        QCOMPARE(details->endpoints,
                 (QList<std::pair<QString, QString>>{
                     {QStringLiteral("Docker engine"), EngineAddress::parse(m_engine->dockerHost())->display()}}));
        QHash<QString, QString> facts;
        for (const auto &[label, value] : details->facts)
            facts.insert(label, value);
        QCOMPARE(facts.value(QStringLiteral("Container")), id.left(12));
        QCOMPARE(facts.value(QStringLiteral("Name")), QStringLiteral("paddock-ws-details"));
        QCOMPARE(facts.value(QStringLiteral("Host folder")), folder + QStringLiteral(" \u2192 /workspace"));
        QCOMPARE(facts.value(QStringLiteral("Network")), QStringLiteral("none"));
        QCOMPARE(facts.value(QStringLiteral("Started")),
                 parseDockerTime(QString::fromUtf8(inspect(id, QStringLiteral("{{.State.StartedAt}}"))))
                     .toString(Qt::ISODateWithMs));
        QVERIFY(!facts.contains(QStringLiteral("Finished")));
        const auto noEnv = [](const SandboxDetails &shown) {
            QStringList all{shown.stateReason, shown.stateMessage};
            for (const auto &pairs : {shown.resources, shown.endpoints, shown.facts}) {
                for (const auto &[label, value] : pairs)
                    all << label << value;
            }
            for (const QString &text : std::as_const(all))
                QVERIFY2(!text.contains(QLatin1String("sample-secret")) && !text.contains(QLatin1String("OPENAI")),
                         qPrintable(text));
        };
        noEnv(*details);

        // Exited: its exit code, when it ended; paused is not ended.
        QVERIFY(QCoro::waitFor(backend.pause(id)));
        auto paused = QCoro::waitFor(backend.details(id));
        QVERIFY(paused);
        QCOMPARE(paused->sandbox.rawState, QStringLiteral("paused"));
        QVERIFY(paused->stateReason.isEmpty());
        QJsonObject exiting = limited;
        exiting.insert(QStringLiteral("Cmd"),
                       QJsonArray{QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("exit 3")});
        exiting.insert(QStringLiteral("Labels"),
                       QJsonObject{{QStringLiteral("agentscope.workspace.id"), QStringLiteral("ws-exited")}});
        const QString exited = makeContainer(QStringLiteral("paddock-ws-exited"), exiting);
        QVERIFY(!exited.isEmpty());
        const auto removeExited = qScopeGuard([&] { QCoro::waitFor(backend.kill(exited, {})); });
        QTRY_COMPARE(inspect(exited, QStringLiteral("{{.State.Status}}")), QByteArray("exited"));
        auto ended = QCoro::waitFor(backend.details(exited));
        QVERIFY(ended);
        QCOMPARE(ended->stateReason, QStringLiteral("exit code 3"));
        QVERIFY(ended->stateMessage.isEmpty());
        facts.clear();
        for (const auto &[label, value] : ended->facts)
            facts.insert(label, value);
        QVERIFY(facts.contains(QStringLiteral("Started")));
        QVERIFY(facts.contains(QStringLiteral("Finished")));
        noEnv(*ended);

        // One that could not start: the engine's own error, as it said it.
        QJsonObject broken = limited;
        broken.insert(QStringLiteral("Cmd"), QJsonArray{QStringLiteral("/no/such/program")});
        broken.insert(QStringLiteral("Labels"),
                      QJsonObject{{QStringLiteral("agentscope.workspace.id"), QStringLiteral("ws-broken")}});
        const QString unstartable = makeContainer(QStringLiteral("paddock-ws-unstartable"), broken);
        QVERIFY(!unstartable.isEmpty());
        const auto removeUnstartable = qScopeGuard([&] { QCoro::waitFor(backend.kill(unstartable, {})); });
        auto failed = QCoro::waitFor(backend.details(unstartable));
        QVERIFY(failed);
        QCOMPARE(failed->stateMessage, QString::fromUtf8(inspect(unstartable, QStringLiteral("{{.State.Error}}"))));
        QVERIFY2(failed->stateMessage.contains(QLatin1String("/no/such/program")), qPrintable(failed->stateMessage));
        noEnv(*failed);

        // AgentScope's layout: a closed workspace (no container) is its folder, said as Paddock's words.
        DockerOptions agentscope = options(QStringLiteral("details-agentscope"));
        agentscope.layout = Profile::Layout::AgentScope;
        const QString closedFolder = agentscope.basedir + QStringLiteral("/alice/coder");
        QVERIFY(writeFile(closedFolder + QStringLiteral("/data/kept.txt"), "kept\n"));
        DockerBackend agentscopeBackend(agentscope);
        const QString closedId = QStringLiteral("as_ws_")
            + assignWorkspaceId(IsolationPolicy::PerAgent, QStringLiteral("alice"), QStringLiteral("coder"));
        auto closed = QCoro::waitFor(agentscopeBackend.details(closedId));
        QVERIFY2(closed, qPrintable(closed ? QString() : closed.error().message));
        QCOMPARE(closed->sandbox.rawState, QStringLiteral("Stopped"));
        QCOMPARE(closed->sandbox.fingerprint, QCoro::waitFor(agentscopeBackend.get(closedId))->fingerprint);
        QVERIFY(!closed->stateMessage.isEmpty());
        QCOMPARE(closed->facts,
                 (QList<std::pair<QString, QString>>{
                     {QStringLiteral("Host folder"), closedFolder + QStringLiteral(" \u2192 /workspace")}}));
    }

    // AgentScope's layout: a container AgentScope made is listed with its user and agent (read
    // from its bind mount) and a Paddock open of that (user, agent) reattaches to it; a close
    // removes it and keeps the folder, which then reads Stopped; open again makes the container
    // again as AgentScope does; a kill deletes the folder too.
    void agentscopeLayoutListsAndReattachesAgentScopesContainers()
    {
        DockerOptions options = this->options(QStringLiteral("agentscope"));
        options.layout = Profile::Layout::AgentScope;
        const QString basedir = options.basedir;
        const QString aliceFolder = basedir + QStringLiteral("/alice/coder");
        QVERIFY(writeFile(aliceFolder + QStringLiteral("/data/from-agentscope.txt"), "made by AgentScope\n"));
        QVERIFY(writeFile(basedir + QStringLiteral("/bob/writer/sessions/s1/context.jsonl"), "{}\n"));
        QVERIFY(QDir().mkpath(basedir + QStringLiteral("/carol/nothing-of-agentscope")));
        const QString aliceId =
            assignWorkspaceId(IsolationPolicy::PerAgent, QStringLiteral("alice"), QStringLiteral("coder"));
        const QString bobId =
            assignWorkspaceId(IsolationPolicy::PerAgent, QStringLiteral("bob"), QStringLiteral("writer"));
        QVERIFY(makeAgentScopeContainer(aliceId, aliceFolder));
        const QByteArray agentscopeContainer = inspect(QStringLiteral("as_ws_") + aliceId, QStringLiteral("{{.Id}}"));
        QVERIFY(!agentscopeContainer.isEmpty());
        // A container of Paddock's own layout on the same engine is not AgentScope's.
        DockerBackend paddock(this->options(QStringLiteral("agentscope-paddock")));
        const auto own = QCoro::waitFor(
            paddock.create(CreateSpec{QStringLiteral("ws-own"), QStringLiteral("u"), QStringLiteral("a"), {}}));
        QVERIFY(own);

        DockerBackend backend(options);
        QCOMPARE(backend.capabilities(),
                 Capabilities(Capability::ContainerLog | Capability::Files | Capability::Exec
                              | Capability::StopInsteadOfPause | Capability::Metrics));
        auto listed = QCoro::waitFor(backend.list({}));
        QVERIFY2(listed, qPrintable(listed ? QString() : listed.error().message));
        QCOMPARE(listed->size(), 2);
        const auto row = [&listed](const QString &sandboxId) {
            for (const SandboxInfo &info : *listed) {
                if (info.sandboxId == sandboxId)
                    return info;
            }
            return SandboxInfo{};
        };
        const SandboxInfo alice = row(QStringLiteral("as_ws_") + aliceId);
        QCOMPARE(alice.workspaceId, aliceId);
        QCOMPARE(alice.userId, QStringLiteral("alice"));
        QCOMPARE(alice.agentId, QStringLiteral("coder"));
        QCOMPARE(alice.state, SandboxState::Running);
        QCOMPARE(alice.rawState, QStringLiteral("running"));
        QCOMPARE(backend.hostFolder(alice), aliceFolder);
        const SandboxInfo bob = row(QStringLiteral("as_ws_") + bobId);
        QCOMPARE(bob.workspaceId, bobId);
        QCOMPARE(bob.userId, QStringLiteral("bob"));
        QCOMPARE(bob.agentId, QStringLiteral("writer"));
        QCOMPARE(bob.state, SandboxState::Paused);
        QCOMPARE(bob.rawState, QStringLiteral("Stopped"));
        QCOMPARE(QCoro::waitFor(backend.get(bob.sandboxId))->rawState, QStringLiteral("Stopped"));

        // Paddock opens (alice, coder): AgentScope's container, not a new one.
        const QString logs = m_dir.filePath(QStringLiteral("agentscope-logs"));
        BootstrapLogStore logStore(logs);
        Provisioner provisioner(&backend, &logStore, ProvisionOptions{});
        WorkspaceManager manager(&provisioner, {});
        const auto opened = QCoro::waitFor(
            manager.getWorkspace(WorkspaceRequest{QStringLiteral("alice"), QStringLiteral("coder"), {}, std::nullopt}));
        QVERIFY2(opened, qPrintable(opened ? QString() : opened.error().message));
        QCOMPARE((*opened)->id(), aliceId);
        QCOMPARE(inspect(QStringLiteral("as_ws_") + aliceId, QStringLiteral("{{.Id}}")), agentscopeContainer);
        const auto read =
            QCoro::waitFor(backend.readFile(alice.sandboxId, QStringLiteral("data/from-agentscope.txt"), 0, 1024));
        QVERIFY2(read, qPrintable(read ? QString() : read.error().message));
        QCOMPARE(read->data, QByteArray("made by AgentScope\n"));
        // Paddock's marker is in AgentScope's gateway home, in the container, not in the folder.
        QCOMPARE(QDir(aliceFolder).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
                 (QStringList{QStringLiteral("data"), QStringLiteral("sessions"), QStringLiteral("skills")}));

        // Closed as AgentScope closes: the container goes, the folder stays and reads Stopped.
        QVERIFY(QCoro::waitFor(manager.close(aliceId)));
        QVERIFY(inspect(QStringLiteral("as_ws_") + aliceId, QStringLiteral("{{.Id}}")).isEmpty());
        QVERIFY(QFileInfo::exists(aliceFolder + QStringLiteral("/data/from-agentscope.txt")));
        const auto closed = QCoro::waitFor(backend.get(alice.sandboxId));
        QVERIFY2(closed, qPrintable(closed ? QString() : closed.error().message));
        QCOMPARE(closed->state, SandboxState::Paused);
        QCOMPARE(closed->rawState, QStringLiteral("Stopped"));
        QCOMPARE(closed->userId, QStringLiteral("alice"));
        QCOMPARE(closed->agentId, QStringLiteral("coder"));

        // Opened again: the container as AgentScope makes it, over the same folder.
        const auto reopened = QCoro::waitFor(
            manager.getWorkspace(WorkspaceRequest{QStringLiteral("alice"), QStringLiteral("coder"), {}, std::nullopt}));
        QVERIFY2(reopened, qPrintable(reopened ? QString() : reopened.error().message));
        const QString name = QStringLiteral("as_ws_") + aliceId;
        QCOMPARE(inspect(name, QStringLiteral("{{json .Config.Labels}}")),
                 QByteArray("{\"agentscope.workspace\":\"true\",\"agentscope.workspace.id\":\"") + aliceId.toUtf8()
                     + "\"}");
        QCOMPARE(
            inspect(name, QStringLiteral("{{json .Config.Cmd}} {{.Config.WorkingDir}} {{json .HostConfig.Binds}}")),
            QByteArray("[\"sleep\",\"infinity\"] /workspace [\"") + QFile::encodeName(aliceFolder)
                + ":/workspace:rw\"]");
        QCOMPARE(inspect(name, QStringLiteral("{{.Config.Image}} {{.State.Status}}")), m_image.toUtf8() + " running");
        const auto again = QCoro::waitFor(backend.readFile(name, QStringLiteral("data/from-agentscope.txt"), 0, 1024));
        QVERIFY(again);
        QCOMPARE(again->data, QByteArray("made by AgentScope\n"));

        // A closed workspace that Paddock never held opens where AgentScope would put it.
        const auto resumed = QCoro::waitFor(backend.resume(bob.sandboxId));
        QVERIFY2(resumed, qPrintable(resumed ? QString() : resumed.error().message));
        QCOMPARE(resumed->state, SandboxState::Running);
        QCOMPARE(resumed->userId, QStringLiteral("bob"));
        QCOMPARE(inspect(bob.sandboxId, QStringLiteral("{{(index .Mounts 0).Source}}")),
                 QFile::encodeName(basedir + QStringLiteral("/bob/writer")));

        // Kill: the container and the folder (closing keeps it; killing does not).
        QVERIFY(backend.killWarning(*resumed).contains(basedir + QStringLiteral("/bob/writer")));
        const auto killed = QCoro::waitFor(manager.kill(aliceId, name));
        QVERIFY2(killed, qPrintable(killed ? QString() : killed.error().message));
        QVERIFY(inspect(name, QStringLiteral("{{.Id}}")).isEmpty());
        QVERIFY(!QFileInfo::exists(aliceFolder));
        QVERIFY(!QFileInfo::exists(basedir + QStringLiteral("/alice")));
        QVERIFY(QCoro::waitFor(backend.kill(bob.sandboxId, {})));
        QVERIFY(!QFileInfo::exists(basedir + QStringLiteral("/bob")));
        QCOMPARE(QCoro::waitFor(backend.get(bob.sandboxId)).error().kind, Error::Kind::NotFound);
        QVERIFY(QCoro::waitFor(backend.list({}))->isEmpty());
        QVERIFY(QCoro::waitFor(paddock.kill(own->sandboxId, {})));
    }

    void agentscopeLayoutRefusesIdsItCannotLayOut()
    {
        DockerOptions options = this->options(QStringLiteral("agentscope-bad"));
        options.layout = Profile::Layout::AgentScope;
        DockerBackend backend(options);
        const int before = containerCount();
        const std::initializer_list<std::pair<const char *, const char *>> bad{
            {"", "agent"}, {"user", ""}, {"..", "agent"}, {"user", ".seed"}, {"a/b", "agent"}, {"user", "a:b"}};
        for (const auto &[user, agent] : bad) {
            const QString userId = QString::fromUtf8(user);
            const QString agentId = QString::fromUtf8(agent);
            const auto created = QCoro::waitFor(backend.create(
                CreateSpec{assignWorkspaceId(IsolationPolicy::PerAgent, userId, agentId), userId, agentId, {}}));
            QVERIFY2(!created, user);
            QCOMPARE(created.error().kind, Error::Kind::InvalidArgument);
        }
        // A workspace id that no container name can hold.
        const auto named = QCoro::waitFor(backend.create(
            CreateSpec{QStringLiteral("not a name"), QStringLiteral("user"), QStringLiteral("agent"), {}}));
        QVERIFY(!named);
        QCOMPARE(named.error().kind, Error::Kind::InvalidArgument);
        QCOMPARE(containerCount(), before);
        QVERIFY(!QFileInfo::exists(options.basedir));
    }

    void containerLogIsTailed()
    {
        // The console's container log works on Docker as on OpenSandbox: polled, in order,
        // until the container is paused and the drain runs out.
        DockerBackend backend(options(QStringLiteral("tail")));
        const auto made = QCoro::waitFor(
            backend.create(CreateSpec{QStringLiteral("ws-tail"), QStringLiteral("u"), QStringLiteral("a"), {}}));
        QVERIFY(made.has_value());
        const QString path = m_dir.filePath(QStringLiteral("tail/ws-tail.container.log"));
        ContainerLogTail tail(&backend, made->sandboxId, path);
        tail.setInterval(50ms);
        tail.setDrain(300ms);
        QSignalSpy stopped(&tail, &ContainerLogTail::stopped);
        tail.start();
        QCOMPARE(m_engine->docker({QStringLiteral("exec"), made->sandboxId, QStringLiteral("sh"), QStringLiteral("-c"),
                                   QStringLiteral("for i in 1 2 3; do echo line $i > /proc/1/fd/1; done")}),
                 0);
        QTRY_VERIFY(readFile(path).contains("line 3"));
        const QByteArray text = readFile(path);
        QVERIFY(text.indexOf("out line 1") < text.indexOf("out line 2"));
        QCOMPARE(text.count("line 2"), 1);
        QVERIFY(QCoro::waitFor(backend.pause(made->sandboxId)).has_value());
        QVERIFY(stopped.wait(10'000));
        QVERIFY(QCoro::waitFor(backend.kill(made->sandboxId, {})).has_value());
    }
};

QTEST_GUILESS_MAIN(TestDockerBackend)
#include "tst_dockerbackend.moc"
