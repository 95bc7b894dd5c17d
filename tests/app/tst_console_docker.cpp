// The console on a Docker profile, offscreen, against a private dockerd of its own
// (tests/support/privatedocker.h): a workspace opened from the Open dialog with its bootstrap
// log, then paused, resumed and killed from the window's actions, the container and its host
// folder checked on the engine and on disk after each. A Docker kill keeps the host folder unless
// the confirmation's box is ticked. A Docker host nobody answers on shows its problem in place.
// In AgentScope's layout the console shows AgentScope's containers with their user and agent and
// the folders of closed ones as Stopped.

#include "backends/docker/dockerbackend.h"
#include "confirmdialog.h"
#include "console.h"
#include "isolation.h"
#include "logmodel.h"
#include "logviewer.h"
#include "mainwindow.h"
#include "opendialog.h"
#include "privatedocker.h"
#include "profilesession.h"
#include "workspacemanager.h"
#include "workspacetreemodel.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QAction>
#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include <memory>

using namespace Paddock;

class TestConsoleDocker final : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<PaddockTest::PrivateDockerEngine> m_engine;
    QString m_image;

    // The engine's own word on a container: "running", "paused", or empty when it is gone.
    QString engineState(const QString &container)
    {
        QByteArray out;
        if (m_engine->docker(
                {QStringLiteral("inspect"), QStringLiteral("-f"), QStringLiteral("{{.State.Status}}"), container}, &out)
            != 0)
            return {};
        return QString::fromUtf8(out.trimmed());
    }

    // Opens a workspace for user kai and `agent` from the Open dialog; returns its id.
    static QString openFromDialog(MainWindow *window, const QString &agent)
    {
        window->findChild<QAction *>(QStringLiteral("actionOpen"))->trigger();
        OpenDialog *dialog = nullptr;
        [&] { QTRY_VERIFY((dialog = window->findChild<OpenDialog *>(QStringLiteral("openDialog"))) != nullptr); }();
        if (!dialog)
            return {};
        dialog->findChild<QLineEdit *>(QStringLiteral("userEdit"))->setText(QStringLiteral("kai"));
        dialog->findChild<QLineEdit *>(QStringLiteral("agentEdit"))->setText(agent);
        const QString id = dialog->resolvedId();
        dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Open)->click();
        bool opened = false;
        [&] {
            QTRY_VERIFY_WITH_TIMEOUT(dialog->statusText().contains(QLatin1String("is open")), 60'000);
            opened = true;
        }();
        const QString log = dialog->logText();
        dialog->close();
        dialog->deleteLater();
        if (!opened || !log.contains(QLatin1String("hello from docker")))
            qWarning().noquote() << "open failed:" << log;
        return opened ? id : QString();
    }

    // A Docker profile on the private engine with its folder in `dir`, not saved yet.
    Profile dockerProfile(const QTemporaryDir &dir, const QString &name) const
    {
        Profile profile;
        profile.kind = Profile::Kind::Docker;
        profile.name = name;
        profile.dockerHost = m_engine->dockerHost();
        profile.image = m_image;
        profile.basedir = dir.filePath(QStringLiteral("workspaces"));
        return profile;
    }

    // Saves `profile` under a new id (which it is given) in the settings the console will read.
    static bool save(QSettings &settings, Profile &profile)
    {
        ProfileStore store(&settings);
        profile.id = store.newId(profile.name);
        return store.save(profile).has_value();
    }

    static const WorkspaceRecord *recordOf(MainWindow *window, const QString &workspaceId)
    {
        for (const WorkspaceRecord *r : window->model()->recordsUnder({})) {
            if (r->info.workspaceId == workspaceId)
                return r;
        }
        return nullptr;
    }

    static bool select(MainWindow *window, const QString &key)
    {
        auto *view = window->findChild<QTreeView *>(QStringLiteral("workspaceView"));
        for (QModelIndex index = view->model()->index(0, 0); index.isValid(); index = view->indexBelow(index)) {
            if (index.data(WorkspaceTreeModel::KeyRole).toString() == key) {
                view->selectionModel()->select(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
                view->setCurrentIndex(index);
                return true;
            }
        }
        return false;
    }

    static QString stateText(MainWindow *window, const QString &key)
    {
        return window->model()->indexOfKey(key, WorkspaceTreeModel::StateColumn).data().toString();
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_engine = std::make_unique<PaddockTest::PrivateDockerEngine>();
        PADDOCK_START_PRIVATE_DOCKER(*m_engine);
        m_image = m_engine->busyboxImage();
        QVERIFY2(!m_image.isEmpty(), qPrintable(m_engine->error()));
    }

    void cleanupTestCase() { m_engine.reset(); }

    void openPauseResumeKill()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QFile bootstrap(dir.filePath(QStringLiteral("bootstrap.txt")));
        QVERIFY(bootstrap.open(QIODevice::WriteOnly));
        bootstrap.write("echo hello from docker; echo on stderr >&2; mkdir -p sessions/s1\n");
        bootstrap.close();
        QSettings settings(dir.filePath(QStringLiteral("paddock.ini")), QSettings::IniFormat);
        MemorySecretStore secrets;
        Profile profile = dockerProfile(dir, QStringLiteral("Docker"));
        profile.bootstrapFile = bootstrap.fileName();
        QVERIFY(save(settings, profile));
        Console console(&settings, &secrets, dir.filePath(QStringLiteral("logs")));
        console.window()->resize(1200, 800);
        console.window()->show();
        QCoro::waitFor(console.start());
        QCoro::waitFor(console.switchTo(profile.id));
        MainWindow *window = console.window();
        QVERIFY(console.session(profile.id));

        const QString id = openFromDialog(window, QStringLiteral("coder"));
        QVERIFY(!id.isEmpty());
        const QString folder = dir.filePath(QStringLiteral("workspaces/") + id);
        QVERIFY(QFileInfo(folder + QStringLiteral("/sessions/s1")).isDir());
        QTRY_VERIFY(recordOf(window, id) != nullptr);
        const QString key = recordOf(window, id)->key();
        const QString container = recordOf(window, id)->info.sandboxId;
        QCOMPARE(recordOf(window, id)->info.state, SandboxState::Running);
        QCOMPARE(engineState(container), QStringLiteral("running"));
        QVERIFY(window->profileProblem().isEmpty()); // listed, with no problem
        QVERIFY(console.session(profile.id)->cached(id)); // open: the manager holds it
        QVERIFY(select(window, key));

        // The bootstrap log in its tab, stdout and stderr both.
        window->findChild<QAction *>(QStringLiteral("actionShowLog"))->trigger();
        auto *log = qobject_cast<LogViewer *>(window->logTabs()->currentWidget());
        QVERIFY(log);
        const auto hasLine = [](LogViewer *viewer, const QString &text) {
            for (int i = 0; i < viewer->model()->rowCount(); ++i) {
                if (viewer->model()->index(i, LogModel::TextColumn).data().toString() == text)
                    return true;
            }
            return false;
        };
        QTRY_VERIFY(hasLine(log, QStringLiteral("hello from docker")));
        QVERIFY(hasLine(log, QStringLiteral("on stderr")));
        // The container log is offered on Docker as on OpenSandbox.
        QVERIFY(window->findChild<QAction *>(QStringLiteral("actionShowContainerLog"))->isEnabled());

        // Pause freezes the container; Resume thaws it.
        auto *pause = window->findChild<QAction *>(QStringLiteral("actionPause"));
        QTRY_VERIFY(pause->isEnabled());
        pause->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(stateText(window, key), QStringLiteral("Paused"), 30'000);
        QCOMPARE(engineState(container), QStringLiteral("paused"));
        QVERIFY(select(window, key));
        auto *resume = window->findChild<QAction *>(QStringLiteral("actionResume"));
        QTRY_VERIFY(resume->isEnabled());
        resume->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(stateText(window, key), QStringLiteral("Running"), 30'000);
        QCOMPARE(engineState(container), QStringLiteral("running"));

        // Kill without ticking the box: the container goes, the host folder stays.
        QVERIFY(select(window, key));
        auto *kill = window->findChild<QAction *>(QStringLiteral("actionKill"));
        QTRY_VERIFY(kill->isEnabled());
        kill->trigger();
        ConfirmDialog *confirm = nullptr;
        QTRY_VERIFY((confirm = window->findChild<ConfirmDialog *>(QStringLiteral("confirmAction"))) != nullptr
                    && confirm->isVisible());
        QVERIFY2(confirm->text().contains(QLatin1String("stay on this computer")), qPrintable(confirm->text()));
        auto *deleteBox = confirm->findChild<QCheckBox *>(QStringLiteral("deleteFoldersBox"));
        QVERIFY(deleteBox);
        QVERIFY(!deleteBox->isChecked());
        confirm->confirmButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(recordOf(window, id) == nullptr, 30'000);
        QCOMPARE(engineState(container), QString());
        QVERIFY(!console.session(profile.id)->cached(id)); // nothing left for the manager to close
        QVERIFY(QFileInfo(folder + QStringLiteral("/sessions/s1")).isDir());

        // A second workspace, killed with the box ticked: its folder goes too.
        const QString second = openFromDialog(window, QStringLiteral("reviewer"));
        QVERIFY(!second.isEmpty());
        const QString secondFolder = dir.filePath(QStringLiteral("workspaces/") + second);
        QVERIFY(QFileInfo(secondFolder).isDir());
        QTRY_VERIFY(recordOf(window, second) != nullptr);
        QVERIFY(select(window, recordOf(window, second)->key()));
        QTRY_VERIFY(kill->isEnabled());
        kill->trigger();
        QTRY_VERIFY((confirm = window->findChild<ConfirmDialog *>(QStringLiteral("confirmAction"))) != nullptr
                    && confirm->isVisible());
        deleteBox = confirm->findChild<QCheckBox *>(QStringLiteral("deleteFoldersBox"));
        QVERIFY(deleteBox);
        deleteBox->setChecked(true);
        confirm->confirmButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(recordOf(window, second) == nullptr, 30'000);
        QTRY_VERIFY(!QFileInfo::exists(secondFolder));
        QVERIFY(QFileInfo(folder).isDir()); // the first one's is still there

        QCoro::waitFor(console.shutdown());
    }

    void closingStopsWhenTheProfileSaysSo()
    {
        // "Stop containers instead of pausing them": quitting the console closes what it opened,
        // and the container is then stopped, not frozen.
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("paddock.ini")), QSettings::IniFormat);
        MemorySecretStore secrets;
        Profile profile = dockerProfile(dir, QStringLiteral("Docker, stopping"));
        profile.stopInsteadOfPause = true;
        QVERIFY(save(settings, profile));
        QString container;
        {
            Console console(&settings, &secrets, dir.filePath(QStringLiteral("logs")));
            console.window()->show();
            QCoro::waitFor(console.start());
            QCoro::waitFor(console.switchTo(profile.id));
            ProfileSession *session = console.session(profile.id);
            QVERIFY(session);
            const auto opened = QCoro::waitFor(
                session->open(WorkspaceRequest{QStringLiteral("kai"), QStringLiteral("stopper"), {}, std::nullopt}));
            QVERIFY2(opened.has_value(), qPrintable(opened ? QString() : opened.error().message));
            const QString id = (*opened)->id();
            QTRY_VERIFY(recordOf(console.window(), id) != nullptr);
            container = recordOf(console.window(), id)->info.sandboxId;
            QCOMPARE(engineState(container), QStringLiteral("running"));
            QCoro::waitFor(console.shutdown());
        }
        QCOMPARE(engineState(container), QStringLiteral("exited"));
        QCOMPARE(m_engine->docker({QStringLiteral("rm"), QStringLiteral("-f"), container}), 0);
    }

    // AgentScope's layout: a container AgentScope made shows with its user and agent (from its
    // bind mount), a closed workspace's folder as Stopped; Pause (close) removes the container and
    // the row reads Stopped; Resume makes it again; Kill says it deletes the folder, and does.
    void agentscopeLayoutShowsAgentScopesWorkspaces()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("paddock.ini")), QSettings::IniFormat);
        MemorySecretStore secrets;
        Profile profile = dockerProfile(dir, QStringLiteral("AgentScope on Docker"));
        profile.layout = Profile::Layout::AgentScope;
        QVERIFY(save(settings, profile));
        const QString basedir = profile.basedir;
        const QString folder = basedir + QStringLiteral("/alice/coder");
        QVERIFY(QDir().mkpath(folder + QStringLiteral("/data")));
        QVERIFY(QDir().mkpath(basedir + QStringLiteral("/bob/writer/sessions")));
        const QString aliceId =
            assignWorkspaceId(IsolationPolicy::PerAgent, QStringLiteral("alice"), QStringLiteral("coder"));
        const QString bobId =
            assignWorkspaceId(IsolationPolicy::PerAgent, QStringLiteral("bob"), QStringLiteral("writer"));
        const QString container = QStringLiteral("as_ws_") + aliceId;
        // As AgentScope's DockerWorkspace makes it (network none: this engine has no bridge).
        QCOMPARE(
            m_engine->docker({QStringLiteral("run"), QStringLiteral("--detach"), QStringLiteral("--name"), container,
                              QStringLiteral("--label"), QStringLiteral("agentscope.workspace=true"),
                              QStringLiteral("--label"), QStringLiteral("agentscope.workspace.id=") + aliceId,
                              QStringLiteral("--workdir"), QStringLiteral("/workspace"), QStringLiteral("--volume"),
                              folder + QStringLiteral(":/workspace:rw"), QStringLiteral("--network"),
                              QStringLiteral("none"), m_image, QStringLiteral("sleep"), QStringLiteral("infinity")}),
            0);

        Console console(&settings, &secrets, dir.filePath(QStringLiteral("logs")));
        console.window()->resize(1200, 800);
        console.window()->show();
        QCoro::waitFor(console.start());
        QCoro::waitFor(console.switchTo(profile.id));
        MainWindow *window = console.window();
        QTRY_VERIFY(recordOf(window, aliceId) != nullptr && recordOf(window, bobId) != nullptr);
        const WorkspaceRecord *alice = recordOf(window, aliceId);
        QCOMPARE(alice->info.userId, QStringLiteral("alice"));
        QCOMPARE(alice->info.agentId, QStringLiteral("coder"));
        QCOMPARE(alice->info.sandboxId, container);
        const QString key = alice->key();
        QCOMPARE(stateText(window, key), QStringLiteral("Running"));
        QCOMPARE(recordOf(window, bobId)->info.userId, QStringLiteral("bob"));
        QCOMPARE(stateText(window, recordOf(window, bobId)->key()), QStringLiteral("Stopped"));

        // Pause is AgentScope's close: the container goes, the row (the same) reads Stopped.
        QVERIFY(select(window, key));
        auto *pause = window->findChild<QAction *>(QStringLiteral("actionPause"));
        QTRY_VERIFY(pause->isEnabled());
        pause->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(stateText(window, key), QStringLiteral("Stopped"), 30'000);
        QCOMPARE(engineState(container), QString());
        QVERIFY(QFileInfo(folder + QStringLiteral("/data")).isDir());
        QVERIFY(select(window, key));
        auto *resume = window->findChild<QAction *>(QStringLiteral("actionResume"));
        QTRY_VERIFY(resume->isEnabled());
        resume->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(stateText(window, key), QStringLiteral("Running"), 30'000);
        QCOMPARE(engineState(container), QStringLiteral("running"));

        // Kill deletes the folder too, and says so; there is no box to keep it.
        QVERIFY(select(window, key));
        auto *kill = window->findChild<QAction *>(QStringLiteral("actionKill"));
        QTRY_VERIFY(kill->isEnabled());
        kill->trigger();
        ConfirmDialog *confirm = nullptr;
        QTRY_VERIFY((confirm = window->findChild<ConfirmDialog *>(QStringLiteral("confirmAction"))) != nullptr
                    && confirm->isVisible());
        QVERIFY(!confirm->findChild<QCheckBox *>(QStringLiteral("deleteFoldersBox")));
        QVERIFY2(confirm->warningText().contains(folder), qPrintable(confirm->warningText()));
        confirm->confirmButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(recordOf(window, aliceId) == nullptr, 30'000);
        QCOMPARE(engineState(container), QString());
        QVERIFY(!QFileInfo::exists(folder));
        QVERIFY(recordOf(window, bobId) != nullptr);
        QCoro::waitFor(console.shutdown());
    }

    void unreachableEngineShowsInPlace()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("paddock.ini")), QSettings::IniFormat);
        MemorySecretStore secrets;
        Profile profile = dockerProfile(dir, QStringLiteral("Nowhere"));
        profile.dockerHost = QStringLiteral("unix://") + dir.filePath(QStringLiteral("no-engine.sock"));
        QVERIFY(save(settings, profile));
        Console console(&settings, &secrets, dir.filePath(QStringLiteral("logs")));
        console.window()->show();
        QCoro::waitFor(console.start());
        QCoro::waitFor(console.switchTo(profile.id));
        QTRY_VERIFY(!console.window()->profileProblem().isEmpty());
        QVERIFY2(console.window()->profileProblem().contains(QLatin1String("no-engine.sock")),
                 qPrintable(console.window()->profileProblem()));
        QCOMPARE(console.window()->model()->workspaceCount(), 0);
        QCoro::waitFor(console.shutdown());
    }
};

QTEST_MAIN(TestConsoleDocker)
#include "tst_console_docker.moc"
