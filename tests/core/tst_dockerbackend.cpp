// The Docker backend against a real Docker engine that the test starts for itself
// (PrivateDockerEngine: its own socket, data and exec roots in a temporary folder, no bridge, no
// iptables; containers with network "none"; a busybox image made by `docker import`). Where no
// engine can start, the test says why and is skipped; in CI it must run.

#include "backends/docker/dockerbackend.h"
#include "backends/docker/dockerclient.h"
#include "bootstraplog.h"
#include "containerlogtail.h"
#include "isolation.h"
#include "privatedocker.h"
#include "provisioner.h"
#include "workspacemanager.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QDir>
#include <QFile>
#include <QSignalSpy>
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

        // A container removed behind our back.
        DockerBackend working(options(QStringLiteral("gone")));
        const auto made = QCoro::waitFor(
            working.create(CreateSpec{QStringLiteral("ws-gone"), QStringLiteral("u"), QStringLiteral("a"), {}}));
        QVERIFY2(made.has_value(), qPrintable(made ? QString() : made.error().message));
        QCOMPARE(m_engine->docker({QStringLiteral("rm"), QStringLiteral("-f"), made->sandboxId}), 0);
        const auto lost = QCoro::waitFor(working.get(made->sandboxId));
        QVERIFY(!lost.has_value());
        QCOMPARE(lost.error().kind, Error::Kind::NotFound);
        QVERIFY(QCoro::waitFor(working.list({QStringLiteral("ws-gone"), {}}))->isEmpty());
    }

    void containerLifecycle()
    {
        DockerBackend backend(options(QStringLiteral("life")));
        QVERIFY(QCoro::waitFor(backend.ping()).has_value());
        const auto made = QCoro::waitFor(backend.create(
            CreateSpec{QStringLiteral("ws-life"), QStringLiteral("alice"), QStringLiteral("coder"), {}}));
        QVERIFY2(made.has_value(), qPrintable(made ? QString() : made.error().message));
        QCOMPARE(made->state, SandboxState::Running);
        QCOMPARE(made->workspaceId, QStringLiteral("ws-life"));
        QCOMPARE(made->userId, QStringLiteral("alice"));
        QCOMPARE(made->agentId, QStringLiteral("coder"));
        QCOMPARE(made->backend, QStringLiteral("docker"));
        QVERIFY(made->createdAt.isValid());
        // Labelled, no network, /workspace from the host.
        QByteArray out;
        QCOMPARE(m_engine->docker({QStringLiteral("inspect"), QStringLiteral("-f"),
                                   QStringLiteral("{{.HostConfig.NetworkMode}} {{index .Config.Labels "
                                                  "\"agentscope.workspace.id\"}}"),
                                   made->sandboxId},
                                  &out),
                 0);
        QCOMPARE(out.trimmed(), QByteArray("none ws-life"));

        // Commands: stdout and stderr apart, line by line as they come, and the exit code.
        QList<std::pair<OutputChannel, QByteArray>> lines;
        ExecRequest request;
        request.argv = {QStringLiteral("sh"), QStringLiteral("-c"),
                        QStringLiteral("echo one; echo two >&2; printf 'three\\nfour'; echo data > here.txt; exit 5")};
        request.onLine = [&lines](OutputChannel channel, const QByteArray &line) { lines.append({channel, line}); };
        const auto ran = QCoro::waitFor(backend.exec(made->sandboxId, request));
        QVERIFY2(ran.has_value(), qPrintable(ran ? QString() : ran.error().message));
        QCOMPARE(ran->exitCode, 5);
        QVERIFY(!ran->timedOut);
        QCOMPARE(ran->stdOut, QByteArray("one\nthree\nfour"));
        QCOMPARE(ran->stdErr, QByteArray("two\n"));
        QVERIFY(lines.contains({OutputChannel::Stdout, QByteArray("four")}));
        QVERIFY(lines.contains({OutputChannel::Stderr, QByteArray("two")}));
        // In order within each stream (the two streams interleave as they come).
        QVERIFY(lines.indexOf({OutputChannel::Stdout, QByteArray("one")})
                < lines.indexOf({OutputChannel::Stdout, QByteArray("three")}));
        // The data lives on the host.
        const auto folder = backend.hostFolder(QStringLiteral("ws-life"));
        QVERIFY(folder.has_value());
        QCOMPARE(readFile(*folder + QStringLiteral("/here.txt")), QByteArray("data\n"));

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

        // A time limit.
        ExecRequest slow;
        slow.argv = {QStringLiteral("sleep"), QStringLiteral("30")};
        slow.timeout = 1s;
        const auto timed = QCoro::waitFor(backend.exec(made->sandboxId, slow));
        QVERIFY(timed.has_value());
        QVERIFY(timed->timedOut);
        // The command's children go too, here one that holds no stream (timeout(1) would leave it
        // running in the container) and one that holds stdout (it would keep the exec open).
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
        // A command that ends in time gives its own status and output, and leaves no watchdog.
        ExecRequest quick;
        quick.argv = {QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("echo out; echo err >&2; exit 3")};
        quick.timeout = 20s;
        const auto done = QCoro::waitFor(backend.exec(made->sandboxId, quick));
        QVERIFY(done.has_value());
        QVERIFY(!done->timedOut);
        QCOMPARE(done->exitCode, 3);
        QCOMPARE(done->stdOut, QByteArray("out\n"));
        QCOMPARE(done->stdErr, QByteArray("err\n"));
        // Its watchdog ends within a second of it.
        QTRY_VERIFY([&] {
            const auto after = QCoro::waitFor(backend.exec(made->sandboxId, ps));
            return after.has_value() && !after->stdOut.contains("paddock-watchdog");
        }());

        // Pause freezes; resume unpauses; both found by label again.
        QVERIFY(QCoro::waitFor(backend.pause(made->sandboxId)).has_value());
        auto paused = QCoro::waitFor(backend.get(made->sandboxId));
        QCOMPARE(paused->state, SandboxState::Paused);
        QCOMPARE(paused->rawState, QStringLiteral("paused"));
        const auto listed = QCoro::waitFor(backend.list({QStringLiteral("ws-life"), {SandboxState::Paused}}));
        QCOMPARE(listed->size(), 1);
        QCOMPARE(listed->constFirst().sandboxId, made->sandboxId);
        const auto resumed = QCoro::waitFor(backend.resume(made->sandboxId));
        QVERIFY(resumed.has_value());
        QCOMPARE(resumed->state, SandboxState::Running);
        QVERIFY(*QCoro::waitFor(backend.isReady(made->sandboxId)));
        QVERIFY(!QCoro::waitFor(backend.renew(made->sandboxId, 60s)).has_value());

        // Kill removes the container and keeps the folder, until asked.
        QVERIFY(QCoro::waitFor(backend.kill(made->sandboxId, {})).has_value());
        QCOMPARE(QCoro::waitFor(backend.get(made->sandboxId)).error().kind, Error::Kind::NotFound);
        QVERIFY(QFileInfo::exists(*folder + QStringLiteral("/here.txt")));
        QVERIFY(backend.deleteFolder(QStringLiteral("ws-life")).has_value());
        QVERIFY(!QFileInfo::exists(*folder));
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

    void stopInsteadOfPause()
    {
        DockerOptions stopping = options(QStringLiteral("stop"));
        stopping.stopInsteadOfPause = true;
        DockerBackend backend(stopping);
        const auto made = QCoro::waitFor(
            backend.create(CreateSpec{QStringLiteral("ws-stop"), QStringLiteral("u"), QStringLiteral("a"), {}}));
        QVERIFY(made.has_value());
        QVERIFY(QCoro::waitFor(backend.pause(made->sandboxId)).has_value());
        const auto stopped = QCoro::waitFor(backend.get(made->sandboxId));
        QCOMPARE(stopped->state, SandboxState::Paused);
        QCOMPARE(stopped->rawState, QStringLiteral("exited"));
        const auto started = QCoro::waitFor(backend.resume(made->sandboxId));
        QVERIFY2(started.has_value(), qPrintable(started ? QString() : started.error().message));
        QCOMPARE(started->state, SandboxState::Running);
        QVERIFY(QCoro::waitFor(backend.kill(made->sandboxId, {})).has_value());
    }

    void workspacePipeline()
    {
        DockerBackend backend(options(QStringLiteral("pipeline")));
        BootstrapLogStore logs(m_dir.filePath(QStringLiteral("logs")));
        ProvisionOptions provision;
        provision.bootstrap = {{QStringLiteral("echo installing; echo warning >&2; echo ok > data/ready"), 60s}};
        Provisioner provisioner(&backend, &logs, provision);
        WorkspaceManager manager(&provisioner, ManagerOptions{});
        const WorkspaceRequest request{QStringLiteral("alice"), QStringLiteral("coder"), {}, std::nullopt};
        const auto opened = QCoro::waitFor(manager.getWorkspace(request));
        QVERIFY2(opened.has_value(), qPrintable(opened ? QString() : opened.error().message));
        const QString id = (*opened)->id();
        QCOMPARE(id, assignWorkspaceId(IsolationPolicy::PerAgent, QStringLiteral("alice"), QStringLiteral("coder")));
        const QString folder = *backend.hostFolder(id);
        for (const char *sub : {"data", "skills", "sessions", ".agentscope"})
            QVERIFY2(QFileInfo(folder + u'/' + QLatin1String(sub)).isDir(), sub);
        QCOMPARE(readFile(folder + QStringLiteral("/data/ready")), QByteArray("ok\n"));
        QVERIFY(QFileInfo::exists(folder + QStringLiteral("/.agentscope/.bootstrap-complete")));
        QVERIFY(!QFileInfo::exists(folder + QStringLiteral("/.agentscope/_mcp_gateway_app.py")));
        const auto log = logs.read(backend.instanceKey(), id);
        QVERIFY(log.has_value());
        bool sawOut = false;
        bool sawErr = false;
        for (const LogLine &line : *log) {
            sawOut |= line.kind == LogLine::Kind::Stdout && line.text == "installing";
            sawErr |= line.kind == LogLine::Kind::Stderr && line.text == "warning";
        }
        QVERIFY(sawOut && sawErr);

        // Last activity comes from the host folder's sessions/.
        QVERIFY(QDir().mkpath(folder + QStringLiteral("/sessions/s1")));
        const auto activity =
            QCoro::waitFor(backend.sessionsActivity(QCoro::waitFor(backend.list({id, {}}))->constFirst().sandboxId));
        QVERIFY(activity.has_value() && activity->has_value());
        QVERIFY(**activity >= QDateTime::currentDateTimeUtc().addSecs(-60));

        // Close pauses; the next open finds the container by its label and resumes it, and the
        // bootstrap does not run again.
        const auto containers = QCoro::waitFor(backend.list({id, {}}));
        QCOMPARE(containers->size(), 1);
        const QString container = containers->constFirst().sandboxId;
        QVERIFY(QCoro::waitFor(manager.close(id)).has_value());
        QCOMPARE(QCoro::waitFor(backend.get(container))->rawState, QStringLiteral("paused"));
        QVERIFY(QFile::remove(folder + QStringLiteral("/data/ready")));
        const auto again = QCoro::waitFor(manager.getWorkspace(request));
        QVERIFY2(again.has_value(), qPrintable(again ? QString() : again.error().message));
        QCOMPARE(QCoro::waitFor(backend.get(container))->state, SandboxState::Running);
        QCOMPARE(QCoro::waitFor(backend.list({id, {}}))->size(), 1);
        QVERIFY(!QFileInfo::exists(folder + QStringLiteral("/data/ready"))); // no second bootstrap
        QCoro::waitFor(manager.stop());
        QVERIFY(QCoro::waitFor(backend.kill(container, {})).has_value());
    }
};

QTEST_GUILESS_MAIN(TestDockerBackend)
#include "tst_dockerbackend.moc"
