// The Docker backend's time limit (backends/docker/timelimit.h) run by this machine's shells, no
// engine needed: dash (Debian's /bin/sh, what debian:bookworm-slim runs) and busybox ash (what
// the test image runs), each as the leader of its own process group, as runc starts an exec.
// When the time is up the command and every child it left are killed, whether or not they hold
// its output; a command that ends in time keeps its exit status, its output and its signals
// (SIGINT is not left ignored), and its watchdog ends with it.

#include "backends/docker/timelimit.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

using namespace Paddock::Docker;

namespace {

// Live processes whose command line (arguments joined by spaces) contains `marker`; zombies
// have none.
int processesWith(const QByteArray &marker)
{
    int count = 0;
    const QStringList pids = QDir(QStringLiteral("/proc")).entryList({QStringLiteral("[0-9]*")}, QDir::Dirs);
    for (const QString &pid : pids) {
        QFile file(QStringLiteral("/proc/%1/cmdline").arg(pid));
        if (!file.open(QIODevice::ReadOnly))
            continue;
        QByteArray line = file.readAll();
        line.replace('\0', ' ');
        if (line.contains(marker))
            ++count;
    }
    return count;
}

} // namespace

class TestDockerTimeLimit final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_applets; // busybox's applets, first on PATH for the busybox rows

    // The shell of the row, running `argv` under the limit, leading its own process group.
    void start(QProcess &process, const QStringList &argv, qint64 seconds)
    {
        QFETCH(QStringList, shell);
        QFETCH(bool, busybox);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        if (busybox)
            env.insert(QStringLiteral("PATH"), m_applets.path() + u':' + env.value(QStringLiteral("PATH")));
        process.setProcessEnvironment(env);
        process.setChildProcessModifier([] { ::setsid(); });
        // withTimeLimit() gives sh -c SCRIPT ...: the row's shell takes the place of "sh".
        const QStringList wrapped = withTimeLimit(argv, seconds);
        process.start(shell.constFirst(), shell.mid(1) + wrapped.mid(1));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_applets.isValid());
        if (QFile::exists(QStringLiteral("/bin/busybox"))) {
            for (const char *applet : {"sh", "setsid", "sleep", "kill", "grep", "cat", "echo"})
                QVERIFY(QFile::link(QStringLiteral("/bin/busybox"), m_applets.filePath(QLatin1String(applet))));
        }
    }

    void shells_data()
    {
        QTest::addColumn<QStringList>("shell");
        QTest::addColumn<bool>("busybox");
        QTest::newRow("dash") << QStringList{QStringLiteral("/bin/sh")} << false;
        if (QFile::exists(QStringLiteral("/bin/busybox")))
            QTest::newRow("busybox ash") << QStringList{QStringLiteral("/bin/busybox"), QStringLiteral("sh")} << true;
    }

    void timeUpKillsTheCommandAndItsChildren_data() { shells_data(); }
    void timeUpKillsTheCommandAndItsChildren()
    {
        // One child holds no stream (timeout(1) would leave it running), one holds stdout (it
        // would keep the exec open).
        const QByteArray marker = "sleep 987" + QByteArray::number(QCoreApplication::applicationPid() % 100);
        QProcess process;
        start(process,
              {QStringLiteral("sh"), QStringLiteral("-c"),
               QStringLiteral("%1 </dev/null >/dev/null 2>&1 & %1 & echo started; wait").arg(QLatin1String(marker))},
              1);
        QVERIFY(process.waitForStarted());
        QVERIFY(process.waitForFinished(60'000));
        QCOMPARE(process.exitStatus(), QProcess::CrashExit); // SIGKILL
        QCOMPARE(process.readAllStandardOutput(), QByteArray("started\n"));
        QTRY_COMPARE_WITH_TIMEOUT(processesWith(marker), 0, 60'000);
    }

    void inTimeKeepsStatusOutputAndSignals_data() { shells_data(); }
    void inTimeKeepsStatusOutputAndSignals()
    {
        // What this test process passes on: the command must get the same.
        QProcess plain;
        plain.start(QStringLiteral("grep"), {QStringLiteral("SigIgn"), QStringLiteral("/proc/self/status")});
        QVERIFY(plain.waitForFinished());
        const QByteArray inherited = plain.readAllStandardOutput();
        QVERIFY(inherited.startsWith("SigIgn:"));

        QProcess process;
        start(process,
              {QStringLiteral("sh"), QStringLiteral("-c"),
               QStringLiteral("echo out; echo err >&2; grep SigIgn /proc/self/status; exit 3")},
              30);
        QVERIFY(process.waitForStarted());
        const QByteArray watchdog = "paddock-watchdog 30 " + QByteArray::number(process.processId());
        QVERIFY(process.waitForFinished(60'000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 3);
        QCOMPARE(process.readAllStandardOutput(), "out\n" + inherited);
        QCOMPARE(process.readAllStandardError(), QByteArray("err\n"));
        QTRY_COMPARE_WITH_TIMEOUT(processesWith(watchdog), 0, 60'000); // a loaded machine is slow to reap
    }

    void withoutSetsidNothingRuns()
    {
        // An image without setsid (dash, with busybox's other applets; busybox's own ash always
        // finds its setsid): the command does not run without its limit.
        if (!QFile::exists(QStringLiteral("/bin/busybox")))
            QSKIP("needs /bin/busybox (busybox-static) for the applets");
        QTemporaryDir bare;
        for (const char *applet : {"sleep", "kill", "echo", "touch"})
            QVERIFY(QFile::link(QStringLiteral("/bin/busybox"), bare.filePath(QLatin1String(applet))));
        QProcess process;
        QProcessEnvironment env;
        env.insert(QStringLiteral("PATH"), bare.path());
        process.setProcessEnvironment(env);
        const QString ran = bare.filePath(QStringLiteral("ran"));
        const QStringList wrapped = withTimeLimit({QStringLiteral("touch"), ran}, 5);
        process.start(QStringLiteral("/bin/sh"), wrapped.mid(1));
        QVERIFY(process.waitForFinished(60'000));
        QCOMPARE(process.exitCode(), 127);
        QVERIFY(process.readAllStandardError().contains("setsid: not found"));
        QVERIFY(!QFile::exists(ran));
    }
};

QTEST_GUILESS_MAIN(TestDockerTimeLimit)
#include "tst_dockertimelimit.moc"
