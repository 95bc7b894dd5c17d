// The console started where it cannot work fully: the real binary, as a child process, with no
// display (a clear message and status 1, never an abort) and with a home it cannot write to (it
// starts, says what will not work, and quits cleanly on SIGTERM); and the window's warning for
// the latter, in process.

#include "mainwindow.h"
#include "storagebanner.h"
#include "storagecheck.h"

#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLayout>
#include <QProcess>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

class TestStartup final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_file; // a plain file: no path under it can be created, not even by root

    // A clean environment for the console: English, a writable home of its own, no session bus
    // (so no keychain), nothing from the caller's display or Qt settings.
    QProcessEnvironment environment() const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char *name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "QT_LOGGING_RULES", "LANGUAGE",
                                 "LC_ALL", "LC_MESSAGES", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
                                 "XDG_CACHE_HOME", "OPEN_SANDBOX_DOMAIN", "OPEN_SANDBOX_API_KEY"})
            env.remove(QLatin1String(name));
        env.insert(QStringLiteral("LANG"), QStringLiteral("C.UTF-8"));
        env.insert(QStringLiteral("HOME"), m_dir.filePath(QStringLiteral("home")));
        env.insert(QStringLiteral("DBUS_SESSION_BUS_ADDRESS"), QStringLiteral("unix:path=/nonexistent/paddock-no-bus"));
        return env;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("home")));
        m_file = m_dir.filePath(QStringLiteral("file"));
        QFile file(m_file);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("not a folder\n");
    }

    void withoutADisplayItSaysSoAndFails_data()
    {
        QTest::addColumn<QString>("display"); // DISPLAY; empty: unset
        QTest::addColumn<QString>("platform"); // QT_QPA_PLATFORM; empty: unset
        QTest::addColumn<QString>("message");
        QTest::newRow("no display at all") << QString() << QString() << QStringLiteral("paddock: no display found");
        // Qt's platform plugin fails (it would abort): Qt's reason, then ours, and status 1.
        QTest::newRow("a display nobody serves")
            << QStringLiteral(":4711") << QString() << QStringLiteral("the graphical interface could not start");
        QTest::newRow("an unknown platform") << QString() << QStringLiteral("no-such-platform")
                                             << QStringLiteral("the graphical interface could not start");
    }

    void withoutADisplayItSaysSoAndFails()
    {
        QFETCH(QString, display);
        QFETCH(QString, platform);
        QFETCH(QString, message);
        QProcessEnvironment env = environment();
        if (!display.isEmpty())
            env.insert(QStringLiteral("DISPLAY"), display);
        if (!platform.isEmpty())
            env.insert(QStringLiteral("QT_QPA_PLATFORM"), platform);
        QProcess paddock;
        paddock.setProcessEnvironment(env);
        paddock.start(QStringLiteral(PADDOCK_PATH), QStringList());
        QVERIFY(paddock.waitForFinished(120'000));
        const QString err = QString::fromUtf8(paddock.readAllStandardError());
        QVERIFY2(paddock.exitStatus() == QProcess::NormalExit, qPrintable(err)); // no abort, no signal
        QCOMPARE(paddock.exitCode(), 1);
        QVERIFY2(err.contains(message), qPrintable(err));
        QVERIFY2(err.contains(QLatin1String("paddockctl")), qPrintable(err));
        QCOMPARE(paddock.readAllStandardOutput(), QByteArray());
    }

    void versionNeedsNoDisplay()
    {
        QProcess paddock;
        paddock.setProcessEnvironment(environment());
        paddock.start(QStringLiteral(PADDOCK_PATH), {QStringLiteral("--version")});
        QVERIFY(paddock.waitForFinished(120'000));
        QCOMPARE(paddock.exitStatus(), QProcess::NormalExit);
        QCOMPARE(paddock.exitCode(), 0);
        QCOMPARE(paddock.readAllStandardOutput(), QByteArray("paddock " PADDOCK_VERSION "\n"));
    }

    void withAnUnwritableHomeItStartsAndSaysWhy_data()
    {
        QTest::addColumn<QString>("variable"); // what points under the plain file
        QTest::addColumn<QStringList>("expected");
        QTest::addColumn<QStringList>("unexpected");
        const QString settings = QStringLiteral("Settings cannot be saved");
        const QString logs = QStringLiteral("Workspaces cannot be opened");
        QTest::newRow("HOME") << QStringLiteral("HOME") << QStringList{settings, logs} << QStringList();
        QTest::newRow("XDG_CONFIG_HOME") << QStringLiteral("XDG_CONFIG_HOME") << QStringList{settings}
                                         << QStringList{logs};
        QTest::newRow("XDG_DATA_HOME") << QStringLiteral("XDG_DATA_HOME") << QStringList{logs} << QStringList{settings};
    }

    void withAnUnwritableHomeItStartsAndSaysWhy()
    {
        QFETCH(QString, variable);
        QFETCH(QStringList, expected);
        QFETCH(QStringList, unexpected);
        QProcessEnvironment env = environment();
        const QString unwritable = m_file + QStringLiteral("/home");
        env.insert(variable, unwritable);
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        QProcess paddock;
        paddock.setProcessEnvironment(env);
        QByteArray err;
        connect(&paddock, &QProcess::readyReadStandardError, this,
                [&paddock, &err] { err += paddock.readAllStandardError(); });
        paddock.start(QStringLiteral(PADDOCK_PATH), QStringList());
        QVERIFY(paddock.waitForStarted());
        // It is running with its window up (the message comes once the console is made); then
        // SIGTERM quits it as closing the window does.
        QTRY_VERIFY2_WITH_TIMEOUT(QString::fromUtf8(err).contains(expected.constLast()), err.constData(), 120'000);
        QCOMPARE(paddock.state(), QProcess::Running);
        paddock.terminate();
        QVERIFY(paddock.waitForFinished(120'000));
        err += paddock.readAllStandardError();
        const QString text = QString::fromUtf8(err);
        QVERIFY2(paddock.exitStatus() == QProcess::NormalExit, qPrintable(text));
        QCOMPARE(paddock.exitCode(), 0);
        for (const QString &message : std::as_const(expected)) {
            QVERIFY2(text.contains(QStringLiteral("paddock: ") + message), qPrintable(text));
            QVERIFY2(text.contains(unwritable), qPrintable(text));
        }
        for (const QString &message : std::as_const(unexpected))
            QVERIFY2(!text.contains(message), qPrintable(text));
        QVERIFY(QFileInfo(m_file).isFile());
    }

    void theWindowShowsTheProblems()
    {
        const QString unwritable = m_file + QStringLiteral("/home");
        const QSettings settings(unwritable + QStringLiteral("/.config/paddock/paddock.conf"), QSettings::IniFormat);
        const QList<StorageProblem> problems = checkStorage(settings, unwritable + QStringLiteral("/logs"));
        QCOMPARE(problems.size(), 2);
        QCOMPARE(problems.at(0).kind, StorageProblem::Kind::Settings);
        QCOMPARE(problems.at(0).path, unwritable + QStringLiteral("/.config/paddock"));
        QVERIFY(!problems.at(0).reason.isEmpty());
        QCOMPARE(problems.at(1).kind, StorageProblem::Kind::Logs);
        QCOMPARE(problems.at(1).path, unwritable + QStringLiteral("/logs"));

        MainWindow window;
        window.setSession(nullptr, QStringLiteral("local"));
        QVERIFY(!StorageBanner::addTo(&window, {}));
        StorageBanner *banner = StorageBanner::addTo(&window, problems);
        QVERIFY(banner);
        QCOMPARE(window.findChild<StorageBanner *>(), banner);
        QVERIFY(banner->isVisibleTo(&window));
        QVERIFY(banner->text().contains(problems.at(0).text()));
        QVERIFY(banner->text().contains(problems.at(1).text()));
        // Above the rest of the window.
        QCOMPARE(window.centralWidget()->layout()->indexOf(banner), 0);
        // A language switch (LanguageChange) writes it again from the problems.
        QEvent change(QEvent::LanguageChange);
        QCoreApplication::sendEvent(banner, &change);
        QVERIFY(banner->text().contains(unwritable + QStringLiteral("/logs")));
    }

    void aWritableHomeHasNoProblemAndKeepsNoProbe()
    {
        const QTemporaryDir home;
        QVERIFY(home.isValid());
        const QSettings settings(home.filePath(QStringLiteral("config/paddock.conf")), QSettings::IniFormat);
        QCOMPARE(checkStorage(settings, home.filePath(QStringLiteral("logs"))).size(), 0);
        QCOMPARE(QDir(home.filePath(QStringLiteral("config")))
                     .entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
                 QStringList());
        QCOMPARE(QDir(home.filePath(QStringLiteral("logs")))
                     .entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
                 QStringList());
        // A settings file that exists but is read-only (root may write anyway: not asserted then).
        QFile file(home.filePath(QStringLiteral("config/paddock.conf")));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.close();
        QVERIFY(file.setPermissions(QFileDevice::ReadOwner));
        const QList<StorageProblem> problems = checkStorage(settings, home.filePath(QStringLiteral("logs")));
        if (QFile probe(file.fileName()); probe.open(QIODevice::ReadWrite)) {
            QCOMPARE(problems.size(), 0); // root
        } else {
            QCOMPARE(problems.size(), 1);
            QCOMPARE(problems.at(0).path, file.fileName());
        }
    }
};

QTEST_MAIN(TestStartup)
#include "tst_startup.moc"
