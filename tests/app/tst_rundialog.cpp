// Run Command and Open Terminal in the console, offscreen, over a local profile session: the
// output as it arrives (stderr apart, odd bytes visible), the exit code and the time, Stop that
// kills the command, the history kept per profile across dialogs and restarts, nothing offered on
// a read-only profile or a backend without Exec, and a paused workspace said to be paused with a
// Resume the user presses (never a hidden one). Open Terminal's emulator and arguments, and its
// messages when something is missing.

#include "backends/local/localbackend.h"
#include "commandactions.h"
#include "commandhistory.h"
#include "mainwindow.h"
#include "profilesession.h"
#include "rundialog.h"
#include "scriptedbackend.h"
#include "terminallauncher.h"
#include "testsession.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

using namespace Paddock;
using namespace PaddockTest;

namespace {

QModelIndex find(QAbstractItemModel *model, const QString &text, const QModelIndex &parent = {})
{
    for (int row = 0; row < model->rowCount(parent); ++row) {
        const QModelIndex index = model->index(row, 0, parent);
        if (index.data().toString() == text)
            return index;
        if (const QModelIndex inner = find(model, text, index); inner.isValid())
            return inner;
    }
    return {};
}

} // namespace

class TestRunDialog final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_basedir;
    std::unique_ptr<TestSession<LocalBackend>> m_session;
    CommandHistory m_history;

    SandboxInfo make(const QString &id)
    {
        auto made =
            QCoro::waitFor(m_session->backend.create(CreateSpec{id, QStringLiteral("u"), QStringLiteral("a"), {}}));
        if (!made)
            qFatal("cannot make %s: %s", qPrintable(id), qPrintable(made.error().message));
        return *made;
    }
    QString path(const QString &id, const QString &file) const { return m_basedir + u'/' + id + u'/' + file; }

private Q_SLOTS:
    void init()
    {
        QVERIFY(m_dir.isValid());
        m_basedir = m_dir.filePath(QString::fromLatin1(QTest::currentTestFunction()));
        Profile profile = Profile::local();
        profile.basedir = m_basedir;
        m_session = std::make_unique<TestSession<LocalBackend>>(
            std::make_unique<LocalBackend>(LocalOptions{m_basedir, false}), profile);
        m_history = CommandHistory();
    }
    void cleanup() { m_session.reset(); }

    void theOutputShowsAsItArrivesWithStderrApart()
    {
        const SandboxInfo sandbox = make(QStringLiteral("stream"));
        RunDialog dialog(m_session->get(), sandbox, &m_history);
        dialog.show();
        dialog.setCommand(QStringLiteral("echo one; echo two >&2; while [ ! -e go ]; do sleep 0.1; done; echo three"));
        dialog.run();
        QVERIFY(dialog.isRunning());
        QTRY_COMPARE(dialog.outputText(), QStringLiteral("one\ntwo"));
        QCOMPARE(dialog.stderrLines(), QStringList{QStringLiteral("two")});
        QVERIFY(dialog.isRunning()); // shown while it still runs
        QVERIFY2(dialog.statusText().startsWith(QLatin1String("Running")), qPrintable(dialog.statusText()));
        QVERIFY(!dialog.findChild<QPushButton *>(QStringLiteral("runButton"))->isEnabled());
        QVERIFY(dialog.findChild<QPushButton *>(QStringLiteral("cancelButton"))->isEnabled());
        QFile go(path(QStringLiteral("stream"), QStringLiteral("go")));
        QVERIFY(go.open(QIODevice::WriteOnly));
        go.close();
        QTRY_VERIFY(!dialog.isRunning());
        QCOMPARE(dialog.outputText(), QStringLiteral("one\ntwo\nthree"));
        QCOMPARE(dialog.lastExitCode(), std::optional<int>(0));
        QVERIFY2(QRegularExpression(QStringLiteral("^Exit code 0 after \\d+\\.\\d\\d s\\.$"))
                     .match(dialog.statusText())
                     .hasMatch(),
                 qPrintable(dialog.statusText()));
        // It ran in the workspace's folder.
        dialog.setCommand(QStringLiteral("pwd"));
        QCoro::waitFor(dialog.run());
        QCOMPARE(dialog.outputText(), m_basedir + QStringLiteral("/stream"));
        // Copy gives the output as text.
        dialog.findChild<QPushButton *>(QStringLiteral("copyButton"))->click();
        QCOMPARE(QApplication::clipboard()->text(), dialog.outputText());
    }

    void theExitCodeAndOddBytesAreShown()
    {
        const SandboxInfo sandbox = make(QStringLiteral("odd"));
        RunDialog dialog(m_session->get(), sandbox, &m_history);
        dialog.show();
        dialog.setCommand(QStringLiteral("printf 'a\\000b\\377c\\n'; exit 3"));
        QCoro::waitFor(dialog.run());
        QCOMPARE(dialog.lastExitCode(), std::optional<int>(3));
        QVERIFY2(dialog.statusText().startsWith(QLatin1String("Exit code 3 after")), qPrintable(dialog.statusText()));
        QCOMPARE(dialog.outputText(), QStringLiteral("a^@b\uFFFDc"));
        QVERIFY2(dialog.noteText().contains(QLatin1String("not UTF-8"))
                     && dialog.noteText().contains(QLatin1String("NUL")),
                 qPrintable(dialog.noteText()));
        // The next command starts clean.
        dialog.setCommand(QStringLiteral("echo fine"));
        QCoro::waitFor(dialog.run());
        QCOMPARE(dialog.outputText(), QStringLiteral("fine"));
        QVERIFY(dialog.noteText().isEmpty());
    }

    void stopKillsTheCommand()
    {
        const SandboxInfo sandbox = make(QStringLiteral("stop"));
        RunDialog dialog(m_session->get(), sandbox, &m_history);
        dialog.show();
        dialog.setCommand(QStringLiteral("echo $$ > pid; echo up; sleep 300; touch finished"));
        dialog.run();
        QTRY_COMPARE(dialog.outputText(), QStringLiteral("up"));
        const QByteArray pid = [&] {
            QFile file(path(QStringLiteral("stop"), QStringLiteral("pid")));
            return file.open(QIODevice::ReadOnly) ? file.readAll().trimmed() : QByteArray();
        }();
        QVERIFY(QFileInfo::exists(QStringLiteral("/proc/") + QString::fromLatin1(pid)));
        dialog.findChild<QPushButton *>(QStringLiteral("cancelButton"))->click();
        QTRY_VERIFY(!dialog.isRunning());
        QVERIFY2(dialog.statusText().startsWith(QLatin1String("Cancelled after")), qPrintable(dialog.statusText()));
        QVERIFY(!dialog.lastExitCode());
        QVERIFY(!QFileInfo::exists(QStringLiteral("/proc/") + QString::fromLatin1(pid)));
        QVERIFY(!QFileInfo::exists(path(QStringLiteral("stop"), QStringLiteral("finished"))));
        QCOMPARE(dialog.outputText(), QStringLiteral("up")); // what it printed stays
    }

    void closingTheDialogStopsTheCommand()
    {
        const SandboxInfo sandbox = make(QStringLiteral("closing"));
        auto *dialog = new RunDialog(m_session->get(), sandbox, &m_history);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
        dialog->setCommand(QStringLiteral("echo $$ > pid; echo up; sleep 300"));
        dialog->run();
        QTRY_COMPARE(dialog->outputText(), QStringLiteral("up"));
        QFile file(path(QStringLiteral("closing"), QStringLiteral("pid")));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString proc = QStringLiteral("/proc/") + QString::fromLatin1(file.readAll().trimmed());
        const QPointer<RunDialog> guard(dialog);
        dialog->close();
        QTRY_VERIFY(!guard);
        QTRY_VERIFY(!QFileInfo::exists(proc));
    }

    void theHistoryIsKeptPerProfile()
    {
        QSettings settings(m_dir.filePath(QStringLiteral("history.ini")), QSettings::IniFormat);
        CommandHistory history(&settings);
        const SandboxInfo sandbox = make(QStringLiteral("history"));
        {
            RunDialog dialog(m_session->get(), sandbox, &history);
            for (const char *command : {"echo first", "echo second", "echo first"}) {
                dialog.setCommand(QString::fromLatin1(command));
                QCoro::waitFor(dialog.run());
            }
        }
        // Newest first, each once, under this profile only; read back as a restart would.
        const QStringList expected{QStringLiteral("echo first"), QStringLiteral("echo second")};
        QCOMPARE(history.commands(m_session->get()->profileId()), expected);
        QVERIFY(history.commands(QStringLiteral("another/profile")).isEmpty());
        settings.sync();
        QSettings reread(m_dir.filePath(QStringLiteral("history.ini")), QSettings::IniFormat);
        QCOMPARE(CommandHistory(&reread).commands(m_session->get()->profileId()), expected);

        // A new dialog offers them; Down goes through them from the newest.
        RunDialog dialog(m_session->get(), sandbox, &history);
        dialog.show();
        auto *box = dialog.findChild<QComboBox *>(QStringLiteral("commandBox"));
        QCOMPARE(box->count(), 2);
        QCOMPARE(box->itemText(0), QStringLiteral("echo first"));
        QVERIFY(dialog.command().isEmpty());
        box->setFocus();
        QTest::keyClick(box, Qt::Key_Down);
        QCOMPARE(dialog.command(), QStringLiteral("echo first"));
        QTest::keyClick(box, Qt::Key_Down);
        QCOMPARE(dialog.command(), QStringLiteral("echo second"));
        QTest::keyClick(box, Qt::Key_Up);
        QCOMPARE(dialog.command(), QStringLiteral("echo first"));

        history.add(QStringLiteral("p"), QStringLiteral("   "));
        QVERIFY(history.commands(QStringLiteral("p")).isEmpty()); // blank: not kept
        for (int i = 0; i < CommandHistory::MaxEntries + 5; ++i)
            history.add(QStringLiteral("p"), QStringLiteral("c%1").arg(i));
        QCOMPARE(history.commands(QStringLiteral("p")).size(), CommandHistory::MaxEntries);
        QCOMPARE(history.commands(QStringLiteral("p")).first(),
                 QStringLiteral("c%1").arg(CommandHistory::MaxEntries + 4));
    }

    // A paused workspace: said, Run not offered, nothing runs; Resume is the user's, and then it runs.
    void aPausedWorkspaceIsSaidToBePausedAndResumedOnlyWhenAsked()
    {
        make(QStringLiteral("paused"));
        QVERIFY(QCoro::waitFor(m_session->backend.pause(QStringLiteral("paused"))));
        const SandboxInfo sandbox = *QCoro::waitFor(m_session->get()->get(QStringLiteral("paused")));
        QCOMPARE(sandbox.state, SandboxState::Paused);
        RunDialog dialog(m_session->get(), sandbox, &m_history);
        dialog.show();
        QVERIFY(dialog.saysNotRunning());
        QVERIFY(dialog.offersResume());
        QVERIFY2(dialog.findChild<QLabel *>(QStringLiteral("pausedLabel"))->text().contains(QLatin1String("paused")),
                 qPrintable(dialog.findChild<QLabel *>(QStringLiteral("pausedLabel"))->text()));
        dialog.setCommand(QStringLiteral("touch ran"));
        QVERIFY(!dialog.findChild<QPushButton *>(QStringLiteral("runButton"))->isEnabled());
        QCoro::waitFor(dialog.run());
        QVERIFY(!QFileInfo::exists(path(QStringLiteral("paused"), QStringLiteral("ran"))));
        QCOMPARE(QCoro::waitFor(m_session->get()->get(QStringLiteral("paused")))->state, SandboxState::Paused);

        dialog.findChild<QPushButton *>(QStringLiteral("resumeButton"))->click();
        QTRY_VERIFY(!dialog.saysNotRunning());
        QCOMPARE(QCoro::waitFor(m_session->get()->get(QStringLiteral("paused")))->state, SandboxState::Running);
        QVERIFY(dialog.findChild<QPushButton *>(QStringLiteral("runButton"))->isEnabled());
        QCoro::waitFor(dialog.run());
        QCOMPARE(dialog.lastExitCode(), std::optional<int>(0));
        QVERIFY(QFileInfo::exists(path(QStringLiteral("paused"), QStringLiteral("ran"))));
    }

    // Paused behind the dialog's back: the run is refused and says so, with Resume.
    void aWorkspacePausedMeanwhileIsSaidToBePaused()
    {
        const SandboxInfo sandbox = make(QStringLiteral("meanwhile"));
        RunDialog dialog(m_session->get(), sandbox, &m_history);
        dialog.show();
        QVERIFY(!dialog.saysNotRunning());
        QVERIFY(QCoro::waitFor(m_session->backend.pause(QStringLiteral("meanwhile"))));
        dialog.setCommand(QStringLiteral("touch ran"));
        QCoro::waitFor(dialog.run());
        QVERIFY(dialog.saysNotRunning());
        QVERIFY(dialog.offersResume());
        QVERIFY2(dialog.statusText().contains(QLatin1String("is paused")), qPrintable(dialog.statusText()));
        QVERIFY(!QFileInfo::exists(path(QStringLiteral("meanwhile"), QStringLiteral("ran"))));
    }

    // The window offers Run Command and Open Terminal for a workspace of a profile that may run
    // commands; a read-only profile and a backend without Exec get neither.
    void theWindowOffersThemOnlyWhereTheyMayRun()
    {
        make(QStringLiteral("shown"));
        MainWindow window(m_session->get());
        window.show();
        auto *run = window.findChild<QAction *>(QStringLiteral("actionRunCommand"));
        auto *terminal = window.findChild<QAction *>(QStringLiteral("actionOpenTerminal"));
        QVERIFY(run && terminal);
        QVERIFY(run->isVisible());
        QVERIFY(terminal->isVisible());
        QVERIFY(!run->isEnabled()); // nothing chosen
        auto *view = window.findChild<QTreeView *>(QStringLiteral("workspaceView"));
        QTRY_VERIFY(find(view->model(), QStringLiteral("shown")).isValid());
        const QModelIndex row = find(view->model(), QStringLiteral("shown"));
        view->selectionModel()->setCurrentIndex(row, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        QTRY_VERIFY(run->isEnabled());
        QVERIFY(terminal->isEnabled());
        QVERIFY(view->actions().contains(run) && view->actions().contains(terminal)); // the context menu too
        run->trigger();
        RunDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = window.findChild<RunDialog *>(QStringLiteral("runDialog"))) != nullptr);
        QVERIFY(dialog->windowTitle().contains(QLatin1String("shown")));
        dialog->close();

        window.setReadOnly(true);
        QVERIFY(!run->isVisible());
        QVERIFY(!terminal->isVisible());
        QVERIFY(!window.commands()->runCommand(
            *window.model()->recordOfWorkspace(m_session->get()->profileId(), QStringLiteral("shown"))));

        TestSession<ScriptedBackend> scripted(std::make_unique<ScriptedBackend>());
        MainWindow other(scripted.get());
        other.show();
        QVERIFY(!other.findChild<QAction *>(QStringLiteral("actionRunCommand"))->isVisible());
        QVERIFY(!other.findChild<QAction *>(QStringLiteral("actionOpenTerminal"))->isVisible());
    }

    void openTerminalStartsTheEmulatorWithTheCommand()
    {
        const SandboxInfo sandbox = make(QStringLiteral("term"));
        MainWindow window(m_session->get());
        QString started;
        QStringList arguments;
        QString workingDirectory;
        const auto which = [](const QString &name) -> QString {
            if (name == QLatin1String("konsole") || name == QLatin1String("sh"))
                return QStringLiteral("/usr/bin/") + name;
            return {};
        };
        window.commands()->setLauncher(TerminalLauncher(
            which, QString(), [&](const QString &program, const QStringList &args, const QString &dir) {
                started = program;
                arguments = args;
                workingDirectory = dir;
                return true;
            }));
        qputenv("SHELL", "/bin/sh");
        WorkspaceRecord record;
        record.profile = m_session->get()->profileId();
        record.info = sandbox;
        QVERIFY(window.commands()->openTerminal(record));
        qunsetenv("SHELL");
        const QString folder = m_basedir + QStringLiteral("/term");
        QCOMPARE(started, QStringLiteral("/usr/bin/konsole"));
        QCOMPARE(arguments,
                 (QStringList{QStringLiteral("--workdir"), folder, QStringLiteral("-e"), QStringLiteral("/bin/sh")}));
        QCOMPARE(workingDirectory, folder);

        // No emulator: a message naming every one looked for.
        window.commands()->setLauncher(
            TerminalLauncher([](const QString &) { return QString(); }, QString(),
                             [](const QString &, const QStringList &, const QString &) { return true; }));
        auto missing = window.commands()->openTerminal(record);
        QVERIFY(!missing);
        QMessageBox *box = window.commands()->lastMessage();
        QVERIFY(box);
        for (const char *name :
             {"$TERMINAL", "x-terminal-emulator", "gnome-terminal", "konsole", "xfce4-terminal", "xterm"})
            QVERIFY2(box->text().contains(QLatin1String(name)), qPrintable(box->text()));

        // A row of another profile, or a read-only profile: said as such, not as a backend
        // without a terminal, and nothing is started.
        started.clear();
        window.commands()->setLauncher(
            TerminalLauncher(which, QString(), [&](const QString &program, const QStringList &, const QString &) {
                started = program;
                return true;
            }));
        WorkspaceRecord elsewhere = record;
        elsewhere.profile = QStringLiteral("another-profile");
        QVERIFY(!window.commands()->openTerminal(elsewhere));
        QVERIFY2(window.commands()->lastMessage()->text().contains(QLatin1String("not in the profile")),
                 qPrintable(window.commands()->lastMessage()->text()));
        window.commands()->setReadOnly(true);
        QVERIFY(!window.commands()->openTerminal(record));
        QVERIFY2(window.commands()->lastMessage()->text().contains(QLatin1String("read-only")),
                 qPrintable(window.commands()->lastMessage()->text()));
        QVERIFY(started.isEmpty());
    }

    void everyEmulatorGetsTheCommandItsWay_data()
    {
        QTest::addColumn<QString>("emulator");
        QTest::addColumn<QStringList>("expected");
        const QStringList run{QStringLiteral("docker"), QStringLiteral("exec"), QStringLiteral("-it"),
                              QStringLiteral("c 1")};
        const QString dir = QStringLiteral("/w s");
        QTest::newRow("gnome-terminal")
            << QStringLiteral("/usr/bin/gnome-terminal")
            << (QStringList{QStringLiteral("--working-directory=/w s"), QStringLiteral("--")} + run);
        QTest::newRow("konsole") << QStringLiteral("konsole")
                                 << (QStringList{QStringLiteral("--workdir"), dir, QStringLiteral("-e")} + run);
        QTest::newRow("xfce4-terminal") << QStringLiteral(
            "xfce4-terminal") << (QStringList{QStringLiteral("--working-directory=/w s"), QStringLiteral("-x")} + run);
        QTest::newRow("xterm") << QStringLiteral("/usr/bin/xterm") << (QStringList{QStringLiteral("-e")} + run);
        QTest::newRow("x-terminal-emulator")
            << QStringLiteral("/usr/bin/x-terminal-emulator") << (QStringList{QStringLiteral("-e")} + run);
        QTest::newRow("kitty") << QStringLiteral("kitty") << (QStringList{QStringLiteral("--directory"), dir} + run);
        QTest::newRow("alacritty") << QStringLiteral(
            "alacritty") << (QStringList{QStringLiteral("--working-directory"), dir, QStringLiteral("-e")} + run);
        QTest::newRow("wezterm")
            << QStringLiteral("wezterm")
            << (QStringList{QStringLiteral("start"), QStringLiteral("--cwd"), dir, QStringLiteral("--")} + run);
        QTest::newRow("unknown") << QStringLiteral("/opt/myterm") << (QStringList{QStringLiteral("-e")} + run);
    }
    void everyEmulatorGetsTheCommandItsWay()
    {
        QFETCH(QString, emulator);
        QFETCH(QStringList, expected);
        TerminalCommand command;
        command.program = QStringLiteral("docker");
        command.arguments = QStringList{QStringLiteral("exec"), QStringLiteral("-it"), QStringLiteral("c 1")};
        command.workingDirectory = QStringLiteral("/w s");
        QCOMPARE(TerminalLauncher::argumentsFor(emulator, command), expected);
    }

    void theEmulatorIsFoundAsDesktopsFindIt()
    {
        QStringList installed{QStringLiteral("xterm"), QStringLiteral("konsole")};
        const auto which = [&installed](const QString &name) {
            return installed.contains(name) ? QStringLiteral("/usr/bin/") + name : QString();
        };
        const auto never = [](const QString &, const QStringList &, const QString &) { return false; };
        QCOMPARE(TerminalLauncher(which, QString(), never).find(),
                 std::optional<QString>(QStringLiteral("/usr/bin/konsole")));
        installed.append(QStringLiteral("x-terminal-emulator"));
        QCOMPARE(TerminalLauncher(which, QString(), never).find(),
                 std::optional<QString>(QStringLiteral("/usr/bin/x-terminal-emulator")));
        installed.append(QStringLiteral("kitty"));
        QCOMPARE(TerminalLauncher(which, QStringLiteral("kitty"), never).find(),
                 std::optional<QString>(QStringLiteral("/usr/bin/kitty")));
        // $TERMINAL that is not there: the next one.
        QCOMPARE(TerminalLauncher(which, QStringLiteral("nope"), never).find(),
                 std::optional<QString>(QStringLiteral("/usr/bin/x-terminal-emulator")));
        // The command's own program missing, and a terminal that does not start: said.
        TerminalCommand command;
        command.program = QStringLiteral("kubectl");
        auto noKubectl = TerminalLauncher(which, QString(), never).launch(command);
        QVERIFY(!noKubectl);
        QVERIFY2(noKubectl.error().message.contains(QLatin1String("kubectl is not installed")),
                 qPrintable(noKubectl.error().message));
        installed.append(QStringLiteral("kubectl"));
        QFile::copy(QStringLiteral("/bin/true"), m_dir.filePath(QStringLiteral("kubectl")));
        const auto whichWithKubectl = [&](const QString &name) {
            return name == QLatin1String("kubectl") ? m_dir.filePath(QStringLiteral("kubectl")) : which(name);
        };
        auto notStarted = TerminalLauncher(whichWithKubectl, QString(), never).launch(command);
        QVERIFY(!notStarted);
        QVERIFY2(notStarted.error().message.contains(QLatin1String("could not be started")),
                 qPrintable(notStarted.error().message));
    }
};

QTEST_MAIN(TestRunDialog)
#include "tst_rundialog.moc"
