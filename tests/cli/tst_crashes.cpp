// Crashes lose nothing: paddockctl and the console are killed with SIGKILL during a bootstrap and
// during a bulk pause, against paddock-fake-opensandbox (a real server process on 127.0.0.1).
// After a kill during a bootstrap, the bootstrap log holds every line received, each one whole,
// in order, and nothing else; the next open (paddockctl's, or a new console's) reattaches to the
// same sandbox and runs the bootstrap to its end; the server has exactly one sandbox for the
// workspace. After a kill during a bulk pause, the same pause again pauses the rest: every
// sandbox ends paused, none duplicated or lost.
//
// The console must be a process of its own to be killed: this executable runs itself as one
// ("console-child"), which builds the real Console and MainWindow offscreen and opens a workspace
// through the Open dialog, or pauses every workspace through the window's Pause action, exactly
// as a user would.

#include "confirmdialog.h"
#include "console.h"
#include "fakeopensandboxprocess.h"
#include "mainwindow.h"
#include "opendialog.h"
#include "profile.h"
#include "secretstore.h"
#include "workspacetreemodel.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QAction>
#include <QApplication>
#include <QDialogButtonBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSocketNotifier>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>

#include <sys/prctl.h>
#include <unistd.h>

using namespace Paddock;

namespace {

constexpr int BootstrapLines = 200;
// One command printing numbered lines, slowly enough to be killed in the middle.
const QByteArray SlowBootstrap = "for i in $(seq 1 200); do echo line-$i; sleep 0.02; done\n";

struct Run
{
    int exitCode = -1;
    QString out;
    QString err;
};

// One sandbox as the server lists it.
struct Listed
{
    QString sandboxId;
    QString workspaceId;
    QString state;
};

// ---- The console as a child process -------------------------------------------------------

void say(const QString &line)
{
    std::fprintf(stdout, "%s\n", qPrintable(line));
    std::fflush(stdout);
}

// Runs until stdin ends (the test closed it), then shuts the console down as quitting does
// (closing, i.e. pausing, what it holds).
void untilStdinEnds()
{
    QSocketNotifier notifier(STDIN_FILENO, QSocketNotifier::Read);
    bool ended = false;
    QObject::connect(&notifier, &QSocketNotifier::activated, [&] {
        char buffer[256];
        if (::read(STDIN_FILENO, buffer, sizeof buffer) <= 0) {
            notifier.setEnabled(false);
            ended = true;
        }
    });
    while (!ended)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
}

// console-child open SETTINGS PROFILE USER AGENT | console-child pause SETTINGS PROFILE COUNT
int consoleChild(const QStringList &args)
{
    if (args.size() < 6)
        return 2;
    const QString mode = args.at(2);
    QSettings settings(args.at(3), QSettings::IniFormat);
    const QString profileId = args.at(4);
    MemorySecretStore secrets;
    // The bootstrap logs where paddockctl keeps them: $XDG_DATA_HOME/paddock/logs.
    Console console(&settings, &secrets);
    console.window()->resize(1200, 800);
    console.window()->show();
    QCoro::waitFor(console.start());
    QCoro::waitFor(console.switchTo(profileId));
    MainWindow *window = console.window();
    if (!console.session(profileId)) {
        say(QStringLiteral("failed no session"));
        return 1;
    }

    if (mode == QLatin1String("open")) {
        window->findChild<QAction *>(QStringLiteral("actionOpen"))->trigger();
        OpenDialog *dialog = nullptr;
        if (!QTest::qWaitFor([&] { return (dialog = window->findChild<OpenDialog *>(QStringLiteral("openDialog"))); },
                             60'000)) {
            say(QStringLiteral("failed no open dialog"));
            return 1;
        }
        dialog->findChild<QLineEdit *>(QStringLiteral("userEdit"))->setText(args.at(5));
        dialog->findChild<QLineEdit *>(QStringLiteral("agentEdit"))->setText(args.value(6));
        const QString id = dialog->resolvedId();
        dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Open)->click();
        say(QStringLiteral("opening ") + id);
        (void)QTest::qWaitFor(
            [&] {
                return dialog->statusText().contains(QLatin1String("is open"))
                    || dialog->statusText().startsWith(QLatin1String("Could not open"));
            },
            300'000);
        say((dialog->statusText().contains(QLatin1String("is open")) ? QStringLiteral("opened ")
                                                                     : QStringLiteral("failed "))
            + dialog->statusText());
    } else if (mode == QLatin1String("pause")) {
        const int count = args.at(5).toInt();
        if (!QTest::qWaitFor([&] { return window->model()->workspaceCount() == count; }, 300'000)) {
            say(QStringLiteral("failed %1 workspaces listed").arg(window->model()->workspaceCount()));
            return 1;
        }
        window->findChild<QTreeView *>(QStringLiteral("workspaceView"))->selectAll();
        window->findChild<QAction *>(QStringLiteral("actionPause"))->trigger();
        ConfirmDialog *confirm = nullptr;
        if (!QTest::qWaitFor(
                [&] {
                    return (confirm = window->findChild<ConfirmDialog *>(QStringLiteral("confirmAction")))
                        && confirm->isVisible();
                },
                60'000)) {
            say(QStringLiteral("failed no confirmation"));
            return 1;
        }
        confirm->confirmButton()->click();
        say(QStringLiteral("pausing"));
        (void)QTest::qWaitFor([&] { return !window->lastActionSummary().isEmpty(); }, 300'000);
        say(QStringLiteral("paused ") + window->lastActionSummary());
    } else {
        return 2;
    }
    untilStdinEnds();
    QCoro::waitFor(console.shutdown());
    say(QStringLiteral("closed"));
    return 0;
}

} // namespace

class TestCrashes final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_home;
    std::unique_ptr<PaddockTest::FakeOpenSandboxProcess> m_server;

    QString dataHome() const { return m_home.filePath(QStringLiteral("data")); }
    QString settingsPath() const { return m_home.filePath(QStringLiteral("config/paddock.ini")); }

    QProcessEnvironment environment() const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("HOME"), m_home.filePath(QStringLiteral("home")));
        env.insert(QStringLiteral("XDG_DATA_HOME"), dataHome());
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_home.filePath(QStringLiteral("config")));
        env.insert(QStringLiteral("XDG_CACHE_HOME"), m_home.filePath(QStringLiteral("cache")));
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.insert(QStringLiteral("LANGUAGE"), QStringLiteral("en"));
        for (const char *name : {"OPEN_SANDBOX_API_KEY", "OPEN_SANDBOX_DOMAIN", "E2B_API_KEY", "E2B_DOMAIN",
                                 "QT_LOGGING_RULES", "COLUMNS"})
            env.remove(QLatin1String(name));
        return env;
    }

    QStringList global() const
    {
        return {QStringLiteral("--backend"), QStringLiteral("opensandbox"), QStringLiteral("--domain"),
                m_server->domain()};
    }

    std::unique_ptr<QProcess> start(const QString &program, const QStringList &args) const
    {
        auto process = std::make_unique<QProcess>();
        process->setProcessEnvironment(environment());
        // A test that fails must not leave a console or a paddockctl behind.
        process->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
        process->start(program, args);
        if (!process->waitForStarted())
            qFatal("%s did not start", qPrintable(program));
        return process;
    }

    std::unique_ptr<QProcess> startCtl(const QStringList &args) const
    {
        auto process = start(QStringLiteral(PADDOCKCTL_PATH), global() + args);
        process->closeWriteChannel();
        return process;
    }

    Run ctl(const QStringList &args) const
    {
        const auto process = startCtl(args);
        if (!process->waitForFinished(300'000))
            qFatal("paddockctl %s did not finish", qPrintable(args.join(u' ')));
        return {process->exitStatus() == QProcess::NormalExit ? process->exitCode() : -1,
                QString::fromUtf8(process->readAllStandardOutput()),
                QString::fromUtf8(process->readAllStandardError())};
    }

    // This executable as a console (see consoleChild); its stdin stays open until the test closes it.
    std::unique_ptr<QProcess> startConsole(const QStringList &args) const
    {
        return start(QCoreApplication::applicationFilePath(), QStringList{QStringLiteral("console-child")} + args);
    }

    // Waits for a line of the console child's stdout that starts with one of `prefixes`.
    static QString consoleSays(QProcess *console, const QStringList &prefixes)
    {
        QString found;
        (void)QTest::qWaitFor(
            [&] {
                while (console->canReadLine()) {
                    const QString line = QString::fromUtf8(console->readLine()).trimmed();
                    for (const QString &prefix : prefixes) {
                        if (line.startsWith(prefix)) {
                            found = line;
                            return true;
                        }
                    }
                }
                return console->state() == QProcess::NotRunning;
            },
            300'000);
        if (found.isEmpty())
            qWarning("the console said: %s", console->readAllStandardError().constData());
        return found;
    }

    static void killHard(QProcess *process)
    {
        ::kill(pid_t(process->processId()), SIGKILL);
        QVERIFY(process->waitForFinished(30'000));
        QCOMPARE(process->exitStatus(), QProcess::CrashExit);
    }

    // The server's sandboxes, asked of it directly (not through Paddock).
    QList<Listed> listed() const
    {
        QNetworkAccessManager network;
        std::unique_ptr<QNetworkReply> reply(network.get(
            QNetworkRequest(QUrl(m_server->base().toString() + QStringLiteral("/sandboxes?pageSize=200")))));
        QSignalSpy finished(reply.get(), &QNetworkReply::finished);
        if (!reply->isFinished() && !finished.wait(60'000))
            return {};
        QList<Listed> sandboxes;
        const QJsonArray items =
            QJsonDocument::fromJson(reply->readAll()).object().value(QLatin1String("items")).toArray();
        for (const QJsonValue &item : items) {
            sandboxes.append({item[QLatin1String("id")].toString(),
                              item[QLatin1String("metadata")][QLatin1String("agentscope.workspace.id")].toString(),
                              item[QLatin1String("status")][QLatin1String("state")].toString()});
        }
        return sandboxes;
    }

    QList<Listed> listedFor(const QString &workspaceId) const
    {
        QList<Listed> mine;
        for (const Listed &sandbox : listed()) {
            if (sandbox.workspaceId == workspaceId)
                mine.append(sandbox);
        }
        return mine;
    }

    QString bootstrapFile() const
    {
        QFile file(m_home.filePath(QStringLiteral("bootstrap.txt")));
        if (!file.open(QIODevice::WriteOnly) || file.write(SlowBootstrap) != SlowBootstrap.size())
            qFatal("cannot write the bootstrap file");
        return file.fileName();
    }

    // The OpenSandbox profile the console children use (no key: the fake asks for none).
    QString saveProfile(const QString &bootstrap) const
    {
        QSettings settings(settingsPath(), QSettings::IniFormat);
        ProfileStore store(&settings);
        Profile profile;
        profile.kind = Profile::Kind::OpenSandbox;
        profile.name = QStringLiteral("Crashes");
        profile.id = store.newId(profile.name);
        profile.domain = m_server->domain();
        profile.bootstrapFile = bootstrap;
        if (!store.save(profile))
            qFatal("cannot save the profile");
        settings.sync();
        return profile.id;
    }

    // The workspace's bootstrap log, wherever its backend instance's folder is.
    QString logPath(const QString &workspaceId) const
    {
        const QDir logs(dataHome() + QStringLiteral("/paddock/logs"));
        const QStringList instances = logs.entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        for (const QString &instance : instances) {
            const QString path = logs.filePath(instance + u'/' + workspaceId + QStringLiteral(".log"));
            if (QFileInfo::exists(path))
                return path;
        }
        return {};
    }

    QByteArray logBytes(const QString &workspaceId) const
    {
        const QString path = logPath(workspaceId);
        if (path.isEmpty())
            return {};
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    }

    int stdoutLines(const QString &workspaceId) const { return int(logBytes(workspaceId).count(" out line-")); }

    // One run of the provisioner in the log: its lines from `from` on, each checked to be whole
    // (a time, a tag, a text). Returns "tag text" per line.
    static QStringList entries(const QByteArray &bytes)
    {
        QStringList lines;
        for (const QByteArray &raw : bytes.split('\n')) {
            if (raw.isEmpty())
                continue;
            const LogLine line = LogLine::parse(raw);
            if (!line.time.isValid())
                return {QStringLiteral("malformed: ") + QString::fromUtf8(raw)};
            lines.append(QString::fromLatin1(LogLine::tag(line.kind)) + u' ' + QString::fromUtf8(line.text));
        }
        return lines;
    }

    // What an interrupted first run of the slow bootstrap leaves: the steps up to the command,
    // then line-1..line-k (returned), nothing else.
    static int checkInterruptedRun(const QByteArray &bytes, const QString &workspaceId)
    {
        // Every line whole: the file ends with the newline of its last line.
        if (!bytes.endsWith('\n')) {
            qWarning("the log does not end with a newline: %s", bytes.right(80).constData());
            return -1;
        }
        QStringList lines = entries(bytes);
        const QStringList steps{
            QStringLiteral("sys provisioning workspace %1 on the opensandbox backend").arg(workspaceId),
            QStringLiteral("sys creating a new sandbox"),
            QStringLiteral("sys bootstrap: 1 command"),
            QStringLiteral("cmd ") + QString::fromLatin1(SlowBootstrap).trimmed(),
        };
        // (The console child loads no translation: its plural reads "command(s)".)
        if (lines.value(2) == QLatin1String("sys bootstrap: 1 command(s)"))
            lines[2] = steps.at(2);
        if (lines.mid(0, steps.size()) != steps) {
            qWarning("unexpected steps: %s", qPrintable(lines.mid(0, steps.size()).join(u'\n')));
            return -1;
        }
        const QStringList out = lines.mid(steps.size());
        for (int i = 0; i < out.size(); ++i) {
            if (out.at(i) != QStringLiteral("out line-%1").arg(i + 1)) {
                qWarning("line %d of the output is %s", i + 1, qPrintable(out.at(i)));
                return -1;
            }
        }
        return int(out.size());
    }

    // The run that finished it, after the interrupted one: reattached to `sandboxId`, all the
    // lines, the completion.
    static bool checkFinishingRun(const QByteArray &bytes, const QString &workspaceId, const QString &sandboxId)
    {
        QStringList expected{
            QStringLiteral("sys provisioning workspace %1 on the opensandbox backend").arg(workspaceId),
            QStringLiteral("sys connecting to running sandbox %1").arg(sandboxId),
            QStringLiteral("sys bootstrap: 1 command"),
            QStringLiteral("cmd ") + QString::fromLatin1(SlowBootstrap).trimmed(),
        };
        for (int i = 1; i <= BootstrapLines; ++i)
            expected.append(QStringLiteral("out line-%1").arg(i));
        expected +=
            QStringList{QStringLiteral("sys command finished (exit 0)"), QStringLiteral("sys bootstrap complete"),
                        QStringLiteral("sys workspace %1 is ready").arg(workspaceId)};
        QStringList lines = entries(bytes);
        if (lines.value(2) == QLatin1String("sys bootstrap: 1 command(s)"))
            lines[2] = expected.at(2);
        if (lines != expected) {
            qWarning("the finishing run's log:\n%s", qPrintable(lines.join(u'\n')));
            return false;
        }
        return bytes.endsWith('\n');
    }

    QString markerOf(const QString &sandboxId) const
    {
        return m_server->info().value(QLatin1String("dataDir")).toString() + u'/' + sandboxId
            + QStringLiteral("/root/.agentscope/.bootstrap-complete");
    }

    bool restart(const QStringList &arguments = {})
    {
        m_server.reset();
        m_server = std::make_unique<PaddockTest::FakeOpenSandboxProcess>();
        return m_server->start(arguments);
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_home.isValid()); }

    void init()
    {
        // Every test from nothing: no logs, no profiles, a new server.
        QVERIFY(QDir(dataHome()).removeRecursively());
        QVERIFY(QDir(m_home.filePath(QStringLiteral("config"))).removeRecursively());
        QVERIFY(QDir().mkpath(m_home.filePath(QStringLiteral("config"))));
        QVERIFY(QDir().mkpath(m_home.filePath(QStringLiteral("home"))));
    }

    void paddockctlKilledDuringABootstrap()
    {
        QVERIFY2(restart(), qPrintable(m_server->error()));
        const QString bootstrap = bootstrapFile();
        const QStringList open{QStringLiteral("--bootstrap"), bootstrap,
                               QStringLiteral("open"),        QStringLiteral("--user"),
                               QStringLiteral("kai"),         QStringLiteral("--agent"),
                               QStringLiteral("crash")};
        const Run assigned =
            ctl({QStringLiteral("assign-id"), QStringLiteral("--isolation"), QStringLiteral("per_agent"),
                 QStringLiteral("--user"), QStringLiteral("kai"), QStringLiteral("--agent"), QStringLiteral("crash")});
        QCOMPARE(assigned.exitCode, 0);
        const QString id = assigned.out.trimmed();

        // Killed once some tens of lines are in the log.
        const auto first = startCtl(open);
        QTRY_VERIFY_WITH_TIMEOUT(stdoutLines(id) >= 30, 60'000);
        const int seen = stdoutLines(id);
        killHard(first.get());

        // The log: the steps, then line-1..line-k, whole, in order, and nothing after them.
        const QByteArray interrupted = logBytes(id);
        const int received = checkInterruptedRun(interrupted, id);
        QVERIFY2(received >= seen, qPrintable(QString::number(received)));
        QVERIFY2(received < BootstrapLines, "the kill came after the bootstrap: it proves nothing");
        QVERIFY(!QFileInfo::exists(logPath(id).chopped(4) + QStringLiteral(".failed")));
        // Its sandbox runs, unmarked; nothing holds it until the next open.
        const QList<Listed> left = listedFor(id);
        QCOMPARE(left.size(), 1);
        QCOMPARE(left.constFirst().state, QStringLiteral("Running"));
        QVERIFY(!QFileInfo::exists(markerOf(left.constFirst().sandboxId)));

        // The next open reattaches to that sandbox and runs the bootstrap to its end.
        const Run again = ctl(open);
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        QCOMPARE(again.out.trimmed(), id);
        const QByteArray whole = logBytes(id);
        QVERIFY(whole.startsWith(interrupted));
        QVERIFY(checkFinishingRun(whole.mid(interrupted.size()), id, left.constFirst().sandboxId));
        QVERIFY(QFileInfo::exists(markerOf(left.constFirst().sandboxId)));
        // One sandbox on the server, the workspace's, running for whoever uses it next (paddockctl
        // leaves an opened workspace open); one create in all.
        const QList<Listed> after = listed();
        QCOMPARE(after.size(), 1);
        QCOMPARE(after.constFirst().sandboxId, left.constFirst().sandboxId);
        QCOMPARE(after.constFirst().state, QStringLiteral("Running"));
        QCOMPARE(m_server->stats().value(QLatin1String("creates")).toInteger(), 1);
    }

    void paddockctlKilledDuringABulkPause()
    {
        // 16 workspaces (12 running, every fourth paused), each answer 200 ms late, paused two at
        // a time: a kill when some but not all are paused.
        QVERIFY2(restart({QStringLiteral("--seed"), QStringLiteral("16"), QStringLiteral("--latency-ms"),
                          QStringLiteral("200")}),
                 qPrintable(m_server->error()));
        const QList<Listed> before = listed();
        QCOMPARE(before.size(), 16);
        QHash<QString, QString> wasRunning; // sandbox id -> workspace id
        for (const Listed &sandbox : before) {
            if (sandbox.state == QLatin1String("Running"))
                wasRunning.insert(sandbox.sandboxId, sandbox.workspaceId);
        }
        QCOMPARE(wasRunning.size(), 12);
        const auto pausedOfThem = [&](const QList<Listed> &sandboxes) {
            int paused = 0;
            for (const Listed &sandbox : sandboxes)
                paused += wasRunning.contains(sandbox.sandboxId) && sandbox.state == QLatin1String("Paused");
            return paused;
        };

        const QStringList pauseAll{QStringLiteral("pause"), QStringLiteral("--all"), QStringLiteral("--concurrency"),
                                   QStringLiteral("2")};
        const auto first = startCtl(pauseAll);
        // (Not QTRY_VERIFY: it evaluates its condition again after it held, 200 ms later here.)
        QVERIFY(QTest::qWaitFor([&] { return pausedOfThem(listed()) > 0; }, 60'000));
        killHard(first.get());
        const QList<Listed> interrupted = listed();
        const int pausedThen = pausedOfThem(interrupted);
        QVERIFY2(pausedThen > 0 && pausedThen < 12, qPrintable(QString::number(pausedThen)));
        QCOMPARE(interrupted.size(), 16);

        // The same pause again: the rest are paused, those already paused are done.
        const Run again = ctl(pauseAll);
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        QCOMPARE(again.out.count(QStringLiteral(" paused\n")), 16);
        const QList<Listed> after = listed();
        QCOMPARE(after.size(), 16);
        QSet<QString> ids;
        for (const Listed &sandbox : after) {
            QCOMPARE(sandbox.state, QStringLiteral("Paused"));
            ids.insert(sandbox.sandboxId);
        }
        QSet<QString> idsBefore;
        for (const Listed &sandbox : before)
            idsBefore.insert(sandbox.sandboxId);
        QCOMPARE(ids, idsBefore);
        QCOMPARE(m_server->stats().value(QLatin1String("creates")).toInteger(), 0);
    }

    void consoleKilledDuringABootstrap()
    {
        QVERIFY2(restart(), qPrintable(m_server->error()));
        const QString profileId = saveProfile(bootstrapFile());
        const QStringList open{settingsPath(), profileId, QStringLiteral("kai"), QStringLiteral("console")};

        // The console opens the workspace through its Open dialog; killed once some tens of lines
        // are in the log.
        const auto first = startConsole(QStringList{QStringLiteral("open")} + open);
        const QString opening = consoleSays(first.get(), {QStringLiteral("opening "), QStringLiteral("failed")});
        QVERIFY2(opening.startsWith(QLatin1String("opening ")), qPrintable(opening));
        const QString id = opening.mid(8);
        QTRY_VERIFY_WITH_TIMEOUT(stdoutLines(id) >= 30, 60'000);
        const int seen = stdoutLines(id);
        killHard(first.get());

        const QByteArray interrupted = logBytes(id);
        const int received = checkInterruptedRun(interrupted, id);
        QVERIFY2(received >= seen, qPrintable(QString::number(received)));
        QVERIFY2(received < BootstrapLines, "the kill came after the bootstrap: it proves nothing");
        const QList<Listed> left = listedFor(id);
        QCOMPARE(left.size(), 1);
        QCOMPARE(left.constFirst().state, QStringLiteral("Running"));

        // A new console opens it again: the same sandbox, bootstrapped to its end.
        const auto second = startConsole(QStringList{QStringLiteral("open")} + open);
        const QString opened = consoleSays(second.get(), {QStringLiteral("opened "), QStringLiteral("failed")});
        QVERIFY2(opened.startsWith(QLatin1String("opened ")), qPrintable(opened));
        const QByteArray whole = logBytes(id);
        QVERIFY(whole.startsWith(interrupted));
        QVERIFY(checkFinishingRun(whole.mid(interrupted.size()), id, left.constFirst().sandboxId));
        QVERIFY(QFileInfo::exists(markerOf(left.constFirst().sandboxId)));
        QList<Listed> after = listed();
        QCOMPARE(after.size(), 1);
        QCOMPARE(after.constFirst().sandboxId, left.constFirst().sandboxId);
        QCOMPARE(after.constFirst().state, QStringLiteral("Running"));
        QCOMPARE(m_server->stats().value(QLatin1String("creates")).toInteger(), 1);

        // That console holds it: quitting closes (pauses) it, and nothing is left running.
        second->closeWriteChannel();
        QCOMPARE(consoleSays(second.get(), {QStringLiteral("closed")}), QStringLiteral("closed"));
        QVERIFY(second->state() == QProcess::NotRunning || second->waitForFinished(60'000));
        QCOMPARE(second->exitStatus(), QProcess::NormalExit);
        QCOMPARE(second->exitCode(), 0);
        after = listed();
        QCOMPARE(after.size(), 1);
        QCOMPARE(after.constFirst().state, QStringLiteral("Paused"));
    }

    void consoleKilledDuringABulkPause()
    {
        // 24 workspaces (18 running), each answer a second late; the console pauses eight at a
        // time, so a kill after the first pauses leaves some running.
        QVERIFY2(restart({QStringLiteral("--seed"), QStringLiteral("24"), QStringLiteral("--latency-ms"),
                          QStringLiteral("1000")}),
                 qPrintable(m_server->error()));
        const QString profileId = saveProfile({});
        const QList<Listed> before = listed();
        QCOMPARE(before.size(), 24);
        QHash<QString, QString> wasRunning;
        for (const Listed &sandbox : before) {
            if (sandbox.state == QLatin1String("Running"))
                wasRunning.insert(sandbox.sandboxId, sandbox.workspaceId);
        }
        QCOMPARE(wasRunning.size(), 18);
        const auto pausedOfThem = [&](const QList<Listed> &sandboxes) {
            int paused = 0;
            for (const Listed &sandbox : sandboxes)
                paused += wasRunning.contains(sandbox.sandboxId) && sandbox.state == QLatin1String("Paused");
            return paused;
        };

        const QStringList pause{QStringLiteral("pause"), settingsPath(), profileId, QStringLiteral("24")};
        const auto first = startConsole(pause);
        const QString pausing = consoleSays(first.get(), {QStringLiteral("pausing"), QStringLiteral("failed")});
        QCOMPARE(pausing, QStringLiteral("pausing"));
        // (Not QTRY_VERIFY: it evaluates its condition again after it held, a second later here.)
        QVERIFY(QTest::qWaitFor([&] { return pausedOfThem(listed()) > 0; }, 60'000));
        killHard(first.get());
        const QList<Listed> interrupted = listed();
        const int pausedThen = pausedOfThem(interrupted);
        QVERIFY2(pausedThen > 0 && pausedThen < 18, qPrintable(QString::number(pausedThen)));
        QCOMPARE(interrupted.size(), 24);

        // A new console pauses them all again: the rest are paused.
        const auto second = startConsole(pause);
        const QString paused = consoleSays(second.get(), {QStringLiteral("paused "), QStringLiteral("failed")});
        QVERIFY2(paused.startsWith(QLatin1String("paused ")) && !paused.contains(QLatin1String("failed")),
                 qPrintable(paused));
        const QList<Listed> after = listed();
        QCOMPARE(after.size(), 24);
        QSet<QString> ids;
        for (const Listed &sandbox : after) {
            QCOMPARE(sandbox.state, QStringLiteral("Paused"));
            ids.insert(sandbox.sandboxId);
        }
        QSet<QString> idsBefore;
        for (const Listed &sandbox : before)
            idsBefore.insert(sandbox.sandboxId);
        QCOMPARE(ids, idsBefore);
        QCOMPARE(m_server->stats().value(QLatin1String("creates")).toInteger(), 0);
        // That console holds nothing (a bulk pause holds no workspace), and it quits as asked. Its
        // sessions/ activity reads of rows that were running when listed are held unanswered by
        // the execd of each sandbox it paused: the pause let them go, so the quit does not wait
        // for their timeouts (it took three minutes, then one, before).
        QElapsedTimer quitting;
        quitting.start();
        second->closeWriteChannel();
        QVERIFY(second->state() == QProcess::NotRunning || second->waitForFinished(300'000));
        QCOMPARE(second->exitStatus(), QProcess::NormalExit);
        QCOMPARE(second->exitCode(), 0);
        qInfo("the console quit %lld ms after it was asked to", qint64(quitting.elapsed()));
        QCOMPARE(listed().size(), 24);
    }
};

int main(int argc, char **argv)
{
    if (argc > 1 && std::strcmp(argv[1], "console-child") == 0) {
        QApplication app(argc, argv);
        return consoleChild(QCoreApplication::arguments());
    }
    QApplication app(argc, argv);
    TestCrashes test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}

#include "tst_crashes.moc"
