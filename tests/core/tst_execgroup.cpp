// How a command in a Docker container or a Pod is stopped (execgroup.h), run by this machine's
// shells, no engine needed: dash (Debian's /bin/sh) and busybox ash (the test image's), the
// command leading its own session, as runc starts every exec. The wrapper announces the pid on
// stderr and keeps it for the command; the second command kills the whole group (a background
// child too); the announcement is taken off stderr however the bytes arrive, and a stream that
// does not begin with it passes untouched.

#include "execgroup.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <unistd.h>

using namespace Paddock;

class TestExecGroup final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_applets; // busybox's applets, first on PATH for the busybox rows

    QProcessEnvironment environment() const
    {
        QFETCH(bool, busybox);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        if (busybox)
            env.insert(QStringLiteral("PATH"), m_applets.path() + u':' + env.value(QStringLiteral("PATH")));
        return env;
    }

    // `argv` (sh -c ... as the helpers make it) by the row's shell.
    void start(QProcess &process, const QStringList &argv, bool ownSession)
    {
        QFETCH(QStringList, shell);
        process.setProcessEnvironment(environment());
        if (ownSession)
            process.setChildProcessModifier([] { ::setsid(); });
        process.start(shell.constFirst(), shell.mid(1) + argv.mid(1));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_applets.isValid());
        if (QFile::exists(QStringLiteral("/bin/busybox"))) {
            for (const char *applet : {"sh", "sleep", "kill", "cat", "echo", "printf"})
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

    void theCommandKeepsThePidItAnnounced_data() { shells_data(); }
    void theCommandKeepsThePidItAnnounced()
    {
        // The pid on stderr is the command's own (exec, no fork): `sh -c 'echo $$'` says it again.
        QProcess process;
        start(process,
              announcingPid(
                  {QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("echo $$; echo err >&2; exit 7")}),
              true);
        QVERIFY(process.waitForStarted());
        const qint64 started = process.processId();
        QVERIFY(process.waitForFinished(30'000));
        QCOMPARE(process.exitCode(), 7);
        PidAnnouncement announcement;
        const QByteArray rest = announcement.feed(process.readAllStandardError());
        QCOMPARE(rest, QByteArray("err\n"));
        QVERIFY(announcement.pid());
        QCOMPARE(QByteArray::number(*announcement.pid()) + '\n', process.readAllStandardOutput());
        QCOMPARE(*announcement.pid(), started);
    }

    void theSecondCommandKillsTheWholeGroup_data() { shells_data(); }
    void theSecondCommandKillsTheWholeGroup()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString childPid = dir.filePath(QStringLiteral("child"));
        // A background child in the group, and the command itself asleep.
        QProcess command;
        start(command,
              announcingPid({QStringLiteral("sh"), QStringLiteral("-c"),
                             QStringLiteral("sleep 300 & echo $! > \"$1\"; echo started; wait"), QStringLiteral("x"),
                             childPid}),
              true);
        QVERIFY(command.waitForStarted());
        QTRY_VERIFY(command.readAllStandardOutput().contains("started") || QFile(childPid).size() > 0);
        QTRY_VERIFY(QFile(childPid).size() > 0);
        PidAnnouncement announcement;
        QTRY_VERIFY((announcement.feed(command.readAllStandardError()), announcement.pid().has_value()));
        QFile file(childPid);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const pid_t child = pid_t(file.readAll().trimmed().toLongLong());
        QVERIFY(child > 0);
        QCOMPARE(::kill(child, 0), 0);

        QProcess killer;
        start(killer, killGroupCommand(*announcement.pid()), false);
        QVERIFY(killer.waitForFinished(30'000));
        QCOMPARE(killer.exitCode(), 0);
        QVERIFY(command.waitForFinished(30'000));
        QCOMPARE(command.exitStatus(), QProcess::CrashExit); // SIGKILL
        // The child was in the group: gone too (reparented to init, which reaps it).
        QTRY_VERIFY(::kill(child, 0) != 0);
    }

    void aPidThatLeadsNoGroupIsKilledAlone_data() { shells_data(); }
    void aPidThatLeadsNoGroupIsKilledAlone()
    {
        // Not a group leader (no session of its own): `kill -pid` finds no group, the pid alone dies.
        QProcess command;
        start(command, announcingPid({QStringLiteral("sleep"), QStringLiteral("300")}), false);
        QVERIFY(command.waitForStarted());
        PidAnnouncement announcement;
        QTRY_VERIFY((announcement.feed(command.readAllStandardError()), announcement.pid().has_value()));
        QProcess killer;
        start(killer, killGroupCommand(*announcement.pid()), false);
        QVERIFY(killer.waitForFinished(30'000));
        QCOMPARE(killer.exitCode(), 0);
        QVERIFY(command.waitForFinished(30'000));
        QCOMPARE(command.exitStatus(), QProcess::CrashExit);
    }

    void theAnnouncementComesOffHoweverItIsCut_data()
    {
        QTest::addColumn<int>("cut");
        for (int cut = 1; cut <= 24; ++cut)
            QTest::addRow("%d", cut) << cut;
    }
    void theAnnouncementComesOffHoweverItIsCut()
    {
        QFETCH(int, cut);
        const QByteArray stream("paddock-exec-pid 4242\nan error\x00 \xff\nlast", 38);
        PidAnnouncement announcement;
        QByteArray passed;
        for (qsizetype at = 0; at < stream.size(); at += cut)
            passed += announcement.feed(stream.mid(at, cut));
        passed += announcement.finish();
        QCOMPARE(announcement.pid(), std::optional<qint64>(4242));
        QCOMPARE(passed, QByteArray("an error\x00 \xff\nlast", 16));
    }

    void aStreamWithoutTheAnnouncementPassesUntouched_data()
    {
        QTest::addColumn<QByteArray>("stream");
        QTest::newRow("other text") << QByteArray("sh: 1: exec: nope: not found\n");
        QTest::newRow("no newline, ended") << QByteArray("paddock-exec");
        QTest::newRow("no pid") << QByteArray("paddock-exec-pid \nrest\n");
        QTest::newRow("not a number") << QByteArray("paddock-exec-pid 12x\n");
        QTest::newRow("empty") << QByteArray();
    }
    void aStreamWithoutTheAnnouncementPassesUntouched()
    {
        QFETCH(QByteArray, stream);
        PidAnnouncement announcement;
        QByteArray passed;
        for (const char byte : std::as_const(stream))
            passed += announcement.feed(QByteArray(1, byte));
        passed += announcement.finish();
        QCOMPARE(passed, stream);
        QVERIFY(!announcement.pid());
    }
};

QTEST_GUILESS_MAIN(TestExecGroup)
#include "tst_execgroup.moc"
