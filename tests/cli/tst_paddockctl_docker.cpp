// paddockctl --backend docker against a private Docker engine the test starts for itself
// (skipped where none can start, except in CI): open with a bootstrap file, list, pause, resume,
// close, kill keeping the host folder and kill --delete-files, the usage errors, and the engine's
// socket refused to a user outside the docker group (nobody, through setpriv, when run as root).

#include "isolation.h"
#include "privatedocker.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

namespace {

struct Run
{
    int exitCode = -1;
    QString out;
    QString err;
};

} // namespace

class TestPaddockctlDocker final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_home;
    std::unique_ptr<PaddockTest::PrivateDockerEngine> m_engine;
    QString m_image;

    Run run(const QStringList &args) const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_home.path() + QStringLiteral("/data"));
        env.remove(QStringLiteral("DOCKER_HOST"));
        QProcess process;
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(PADDOCKCTL_PATH), args);
        if (!process.waitForFinished(120'000))
            qFatal("paddockctl %s did not finish", qPrintable(args.join(u' ')));
        return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
                QString::fromUtf8(process.readAllStandardOutput()), QString::fromUtf8(process.readAllStandardError())};
    }

    QStringList docker(const QStringList &args) const
    {
        return QStringList{QStringLiteral("--backend"),     QStringLiteral("docker"),
                           QStringLiteral("--docker-host"), m_engine->dockerHost(),
                           QStringLiteral("--image"),       m_image,
                           QStringLiteral("--basedir"),     m_home.filePath(QStringLiteral("workspaces"))}
        + args;
    }

    QJsonObject listed(const QString &id) const
    {
        const Run list = run(docker({QStringLiteral("list"), QStringLiteral("--json")}));
        for (const QJsonValue &value : QJsonDocument::fromJson(list.out.toUtf8()).array()) {
            if (value.toObject().value(QLatin1String("workspaceId")).toString() == id)
                return value.toObject();
        }
        return {};
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        m_engine = std::make_unique<PaddockTest::PrivateDockerEngine>();
        PADDOCK_START_PRIVATE_DOCKER(*m_engine);
        m_image = m_engine->busyboxImage();
        QVERIFY2(!m_image.isEmpty(), qPrintable(m_engine->error()));
    }

    void cleanupTestCase() { m_engine.reset(); }

    void socketWithoutPermission()
    {
        // The engine's socket as a user outside the docker group sees it: root opens any socket,
        // so as root paddockctl runs as nobody (setpriv, from util-linux).
        QStringList program{QStringLiteral(PADDOCKCTL_PATH)};
        QTemporaryDir home(QStringLiteral("/tmp/pdk-nobody-XXXXXX"));
        QVERIFY(home.isValid());
        QVERIFY(QFile::setPermissions(home.path(),
                                      QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner
                                          | QFileDevice::ReadOther | QFileDevice::WriteOther | QFileDevice::ExeOther));
        if (geteuid() == 0) {
            program =
                QStringList{QStringLiteral("setpriv"), QStringLiteral("--reuid=65534"), QStringLiteral("--regid=65534"),
                            QStringLiteral("--clear-groups"), QStringLiteral("--inh-caps=-all")}
                + program;
        }
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("HOME"), home.path());
        env.insert(QStringLiteral("XDG_DATA_HOME"), home.filePath(QStringLiteral("data")));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), home.filePath(QStringLiteral("config")));
        env.insert(QStringLiteral("XDG_STATE_HOME"), home.filePath(QStringLiteral("state")));
        env.insert(QStringLiteral("XDG_CACHE_HOME"), home.filePath(QStringLiteral("cache")));
        const auto runAs = [&](const QStringList &args) {
            QProcess process;
            process.setProcessEnvironment(env);
            process.start(program.constFirst(), program.mid(1) + args);
            if (!process.waitForFinished(120'000))
                qFatal("paddockctl %s did not finish", qPrintable(args.join(u' ')));
            return Run{process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
                       QString::fromUtf8(process.readAllStandardOutput()),
                       QString::fromUtf8(process.readAllStandardError())};
        };
        if (const Run version = runAs({QStringLiteral("--version")}); version.exitCode != 0)
            QSKIP(qPrintable(QStringLiteral("paddockctl cannot run as nobody here (%1)").arg(version.err.trimmed())));
        const Run listed = runAs({QStringLiteral("--backend"), QStringLiteral("docker"),
                                  QStringLiteral("--docker-host"), m_engine->dockerHost(), QStringLiteral("list")});
        QVERIFY2(listed.exitCode != 0, qPrintable(listed.out));
        QVERIFY2(listed.err.contains(QStringLiteral("permission denied on %1: add yourself to the docker group or set "
                                                    "DOCKER_HOST")
                                         .arg(m_engine->socketPath())),
                 qPrintable(listed.err));
        QCOMPARE(listed.err.count(u'\n'), 1); // one clear message
    }

    void usageErrors()
    {
        const Run bubblewrap = run(docker({QStringLiteral("--bubblewrap"), QStringLiteral("list")}));
        QCOMPARE(bubblewrap.exitCode, 2);
        QVERIFY2(bubblewrap.err.contains(QLatin1String("local backend only")), qPrintable(bubblewrap.err));
        const Run host = run({QStringLiteral("--docker-host"), QStringLiteral("unix:///x"), QStringLiteral("list")});
        QCOMPARE(host.exitCode, 2);
        QVERIFY2(host.err.contains(QLatin1String("docker backend only")), qPrintable(host.err));
        const Run bad = run({QStringLiteral("--backend"), QStringLiteral("docker"), QStringLiteral("--docker-host"),
                             QStringLiteral("ssh://me@there"), QStringLiteral("list")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains(QLatin1String("ssh://me@there")), qPrintable(bad.err));
        // No engine at the address: one clear line, exit 1.
        const Run none =
            run({QStringLiteral("--backend"), QStringLiteral("docker"), QStringLiteral("--docker-host"),
                 QStringLiteral("unix://") + m_home.filePath(QStringLiteral("none.sock")), QStringLiteral("list")});
        QCOMPARE(none.exitCode, 1);
        QVERIFY2(none.err.contains(m_home.filePath(QStringLiteral("none.sock"))), qPrintable(none.err));
        // An image the engine does not have.
        const Run image =
            run({QStringLiteral("--backend"), QStringLiteral("docker"), QStringLiteral("--docker-host"),
                 m_engine->dockerHost(), QStringLiteral("--image"), QStringLiteral("no/such:image"),
                 QStringLiteral("--basedir"), m_home.filePath(QStringLiteral("noimage")), QStringLiteral("open"),
                 QStringLiteral("--user"), QStringLiteral("u"), QStringLiteral("--agent"), QStringLiteral("a")});
        QCOMPARE(image.exitCode, 1);
        QVERIFY2(image.err.contains(QLatin1String("no/such:image")), qPrintable(image.err));
        QByteArray containers;
        QCOMPARE(m_engine->docker({QStringLiteral("ps"), QStringLiteral("-aq")}, &containers), 0);
        QVERIFY(containers.trimmed().isEmpty());
    }

    void lifecycle()
    {
        QFile bootstrap(m_home.filePath(QStringLiteral("bootstrap.txt")));
        QVERIFY(bootstrap.open(QIODevice::WriteOnly));
        bootstrap.write("echo hello from docker; echo careful >&2\n");
        bootstrap.close();
        const Run open = run(docker({QStringLiteral("--bootstrap"), bootstrap.fileName(), QStringLiteral("open"),
                                     QStringLiteral("--user"), QStringLiteral("alice"), QStringLiteral("--agent"),
                                     QStringLiteral("coder")}));
        QVERIFY2(open.exitCode == 0, qPrintable(open.err));
        const QString id = open.out.trimmed().split(u'\n').constLast();
        QVERIFY2(open.err.contains(QLatin1String("hello from docker")), qPrintable(open.err));
        const QString folder = m_home.filePath(QStringLiteral("workspaces/")) + id;
        QVERIFY(QFileInfo(folder + QStringLiteral("/sessions")).isDir());

        // The engine's own word for the state.
        QCOMPARE(listed(id).value(QLatin1String("state")).toString(), QStringLiteral("running"));
        QCOMPARE(listed(id).value(QLatin1String("backend")).toString(), QStringLiteral("docker"));
        QCOMPARE(run(docker({QStringLiteral("pause"), id})).exitCode, 0);
        QCOMPARE(listed(id).value(QLatin1String("state")).toString(), QStringLiteral("paused"));
        QCOMPARE(run(docker({QStringLiteral("resume"), id})).exitCode, 0);
        QCOMPARE(listed(id).value(QLatin1String("state")).toString(), QStringLiteral("running"));
        QCOMPARE(run(docker({QStringLiteral("close"), id})).exitCode, 0);
        QCOMPARE(listed(id).value(QLatin1String("state")).toString(), QStringLiteral("paused"));

        // kill keeps the host folder; --delete-files removes it too.
        const Run kill = run(docker({QStringLiteral("kill"), id}));
        QVERIFY2(kill.exitCode == 0, qPrintable(kill.err));
        QVERIFY2(kill.out.contains(folder), qPrintable(kill.out));
        QVERIFY(listed(id).isEmpty());
        QVERIFY(QFileInfo(folder + QStringLiteral("/sessions")).isDir());
        const Run again = run(docker({QStringLiteral("open"), QStringLiteral("--user"), QStringLiteral("alice"),
                                      QStringLiteral("--agent"), QStringLiteral("coder")}));
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        const Run wipe = run(docker({QStringLiteral("kill"), QStringLiteral("--delete-files"), id}));
        QVERIFY2(wipe.exitCode == 0, qPrintable(wipe.err));
        QVERIFY(!QFileInfo::exists(folder));
    }

    // --layout agentscope: the containers of AgentScope's DockerWorkspaceManager, their user and
    // agent read from the bind mount; close removes the container and keeps the folder (Stopped);
    // kill deletes the folder too.
    void agentscopeLayout()
    {
        const QString basedir = m_home.filePath(QStringLiteral("agentscope"));
        const QString folder = basedir + QStringLiteral("/alice/coder");
        QVERIFY(QDir().mkpath(folder + QStringLiteral("/sessions")));
        const QString id = Paddock::assignWorkspaceId(Paddock::IsolationPolicy::PerAgent, QStringLiteral("alice"),
                                                      QStringLiteral("coder"));
        const QString name = QStringLiteral("as_ws_") + id;
        // AgentScope's container as its DockerWorkspace makes it (another client than Paddock: the
        // docker CLI). Only the network is this engine's: it has no bridge.
        QCOMPARE(
            m_engine->docker({QStringLiteral("run"), QStringLiteral("--detach"), QStringLiteral("--name"), name,
                              QStringLiteral("--label"), QStringLiteral("agentscope.workspace=true"),
                              QStringLiteral("--label"), QStringLiteral("agentscope.workspace.id=") + id,
                              QStringLiteral("--workdir"), QStringLiteral("/workspace"), QStringLiteral("--volume"),
                              folder + QStringLiteral(":/workspace:rw"), QStringLiteral("--network"),
                              QStringLiteral("none"), m_image, QStringLiteral("sleep"), QStringLiteral("infinity")}),
            0);
        const auto containerId = [this, &name] {
            QByteArray out;
            return m_engine->docker({QStringLiteral("inspect"), QStringLiteral("-f"), QStringLiteral("{{.Id}}"), name},
                                    &out)
                    == 0
                ? out.trimmed()
                : QByteArray();
        };
        const QByteArray agentscopes = containerId();
        QVERIFY(!agentscopes.isEmpty());
        const QStringList options{QStringLiteral("--backend"),     QStringLiteral("docker"),
                                  QStringLiteral("--docker-host"), m_engine->dockerHost(),
                                  QStringLiteral("--image"),       m_image,
                                  QStringLiteral("--basedir"),     basedir,
                                  QStringLiteral("--layout"),      QStringLiteral("agentscope")};
        const auto row = [&] {
            const QJsonArray rows =
                QJsonDocument::fromJson(
                    run(options + QStringList{QStringLiteral("list"), QStringLiteral("--json")}).out.toUtf8())
                    .array();
            return rows.size() == 1 ? rows.first().toObject() : QJsonObject();
        };
        QJsonObject listed = row();
        QCOMPARE(listed.value(QLatin1String("workspaceId")).toString(), id);
        QCOMPARE(listed.value(QLatin1String("sandboxId")).toString(), name);
        QCOMPARE(listed.value(QLatin1String("userId")).toString(), QStringLiteral("alice"));
        QCOMPARE(listed.value(QLatin1String("agentId")).toString(), QStringLiteral("coder"));
        QCOMPARE(listed.value(QLatin1String("state")).toString(), QStringLiteral("running"));

        const Run opened = run(options
                               + QStringList{QStringLiteral("open"), QStringLiteral("--user"), QStringLiteral("alice"),
                                             QStringLiteral("--agent"), QStringLiteral("coder")});
        QVERIFY2(opened.exitCode == 0, qPrintable(opened.err));
        QCOMPARE(opened.out, id + u'\n');
        QCOMPARE(containerId(), agentscopes); // reattached, not replaced

        QCOMPARE(run(options + QStringList{QStringLiteral("close"), id}).exitCode, 0);
        QVERIFY(containerId().isEmpty());
        listed = row();
        QCOMPARE(listed.value(QLatin1String("state")).toString(), QStringLiteral("Stopped"));
        QCOMPARE(listed.value(QLatin1String("userId")).toString(), QStringLiteral("alice"));
        QVERIFY(QFileInfo(folder + QStringLiteral("/sessions")).isDir());

        const Run again = run(options
                              + QStringList{QStringLiteral("open"), QStringLiteral("--user"), QStringLiteral("alice"),
                                            QStringLiteral("--agent"), QStringLiteral("coder")});
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        QVERIFY(!containerId().isEmpty());
        QCOMPARE(row().value(QLatin1String("state")).toString(), QStringLiteral("running"));

        // kill deletes the folder anyway in this layout: --delete-files has nothing to add.
        const Run both = run(options + QStringList{QStringLiteral("kill"), QStringLiteral("--delete-files"), id});
        QCOMPARE(both.exitCode, 2);
        QVERIFY2(both.err.contains(QLatin1String("--delete-files does not apply here")), qPrintable(both.err));
        const Run killed = run(options + QStringList{QStringLiteral("kill"), id});
        QVERIFY2(killed.exitCode == 0, qPrintable(killed.err));
        QCOMPARE(killed.out, QStringLiteral("%1 killed; deleted %2\n").arg(id, folder));
        QVERIFY(containerId().isEmpty());
        QVERIFY(!QFileInfo::exists(folder));
        QCOMPARE(row(), QJsonObject());

        const Run bad =
            run(options + QStringList{QStringLiteral("--layout"), QStringLiteral("docker"), QStringLiteral("list")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains(QLatin1String("unknown layout \"docker\"")), qPrintable(bad.err));
    }

    void sweepPausesAnIdleContainer()
    {
        // The engine reports no last activity: sweep goes by the host's sessions/ folder and the
        // container's creation time, which the engine sets (so this one waits, about a second).
        const Run open = run(docker({QStringLiteral("open"), QStringLiteral("--user"), QStringLiteral("alice"),
                                     QStringLiteral("--agent"), QStringLiteral("sweeper")}));
        QVERIFY2(open.exitCode == 0, qPrintable(open.err));
        const QString id = open.out.trimmed().split(u'\n').constLast();
        const auto sweep = [this](const QStringList &args) {
            return run(docker(QStringList{QStringLiteral("sweep"), QStringLiteral("--idle")} + args));
        };

        Run swept = sweep({QStringLiteral("3600")});
        QVERIFY2(swept.exitCode == 0, qPrintable(swept.err));
        QVERIFY2(QRegularExpression(QStringLiteral("^%1 not idle for long enough \\(idle \\d+s of 1h 0m, judged by its "
                                                   "(sessions/ folder|creation time)\\)$")
                                        .arg(id),
                                    QRegularExpression::MultilineOption)
                     .match(swept.out)
                     .hasMatch(),
                 qPrintable(swept.out));
        QCOMPARE(listed(id).value(QLatin1String("state")).toString(), QStringLiteral("running"));

        // Once it has been idle for more than a second, --idle 1 pauses it.
        QTRY_VERIFY_WITH_TIMEOUT(sweep({QStringLiteral("1"), QStringLiteral("--dry-run")})
                                     .out.contains(id + QStringLiteral(" would be paused (idle ")),
                                 15'000);
        swept = sweep({QStringLiteral("1")});
        QVERIFY2(swept.exitCode == 0, qPrintable(swept.err));
        QVERIFY2(swept.out.contains(id + QStringLiteral(" paused (idle ")), qPrintable(swept.out));
        QCOMPARE(listed(id).value(QLatin1String("state")).toString(), QStringLiteral("paused"));
        QCOMPARE(run(docker({QStringLiteral("kill"), QStringLiteral("--delete-files"), id})).exitCode, 0);
    }
};

QTEST_GUILESS_MAIN(TestPaddockctlDocker)
#include "tst_paddockctl_docker.moc"
