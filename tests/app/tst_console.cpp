// The console's profiles end to end, offscreen: the OPEN_SANDBOX_DOMAIN/KEY import (key to the
// secret store, never to the settings file), switching between the Local profile and
// OpenSandbox profiles served by paddock-fake-opensandbox, a wrong key shown in place with its
// request id while the other profiles keep working, and the last profile remembered.

#include "backends/local/localbackend.h"
#include "broadcast.h"
#include "confirmdialog.h"
#include "console.h"
#include "fakeopensandboxprocess.h"
#include "inspectordock.h"
#include "logmodel.h"
#include "logviewer.h"
#include "mainwindow.h"
#include "opendialog.h"
#include "profilesdialog.h"
#include "profilesession.h"
#include "quitcontroller.h"
#include "renewdialog.h"
#include "scriptedhttpserver.h"
#include "workspacemanager.h"
#include "workspacetreemodel.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QAction>
#include <QCheckBox>
#include <QColor>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QProgressDialog>
#include <QPushButton>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabWidget>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

using namespace Paddock;

namespace {

// A machine without a keychain: every call fails the way KeychainSecretStore does then.
class NoKeychain final : public SecretStore
{
public:
    QCoro::Task<Result<std::optional<QByteArray>>> read(QString) override
    {
        co_return fail(Error::unsupported(QStringLiteral("No keychain could be reached (test)")));
    }
    QCoro::Task<Result<>> write(QString, QByteArray) override
    {
        co_return fail(Error::unsupported(QStringLiteral("No keychain could be reached (test)")));
    }
    QCoro::Task<Result<>> remove(QString) override
    {
        co_return fail(Error::unsupported(QStringLiteral("No keychain could be reached (test)")));
    }
};

// A keychain that answers only when told to (a slow Secret Service, a locked keyring asking for
// its password), counting the reads.
class GatedKeychain final : public SecretStore
{
public:
    QCoro::Task<Result<std::optional<QByteArray>>> read(QString account) override
    {
        ++reads;
        const auto gate = open;
        co_await gate->wait();
        co_return kept.value(account);
    }
    QCoro::Task<Result<>> write(QString account, QByteArray secret) override
    {
        kept.insert(account, secret);
        co_return Result<>{};
    }
    QCoro::Task<Result<>> remove(QString account) override
    {
        kept.remove(account);
        co_return Result<>{};
    }
    void release() { open->set(true); }

    int reads = 0;
    QHash<QString, std::optional<QByteArray>> kept;
    std::shared_ptr<Broadcast<bool>> open = std::make_shared<Broadcast<bool>>();
};

// The Local profile kept in `dir`/workspaces, and an OpenSandbox profile named `name` at
// 127.0.0.1:`port`: that profile's id (empty when a profile could not be saved).
QString saveLocalAndOpenSandbox(QSettings *settings, const QTemporaryDir &dir, const QString &name, quint16 port)
{
    ProfileStore store(settings);
    Profile local = store.profiles().constFirst();
    local.basedir = dir.filePath(QStringLiteral("workspaces"));
    if (!store.save(local))
        return {};
    Profile remote;
    remote.kind = Profile::Kind::OpenSandbox;
    remote.name = name;
    remote.id = store.newId(name);
    remote.domain = QStringLiteral("127.0.0.1:%1").arg(port);
    return store.save(remote) ? remote.id : QString();
}

// One running workspace, ws1, in the Local profile's folder (saveLocalAndOpenSandbox's).
bool leaveLocalWorkspace(const QTemporaryDir &dir)
{
    if (!QDir().mkpath(dir.filePath(QStringLiteral("workspaces/ws1/.paddock"))))
        return false;
    QFile metadata(dir.filePath(QStringLiteral("workspaces/ws1/.paddock/workspace.json")));
    return metadata.open(QIODevice::WriteOnly)
        && metadata.write(R"({"workspaceId":"ws1","userId":"u","agentId":"a","state":"Running"})") > 0;
}

} // namespace

class TestConsole final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void profilesKeysAndSwitching()
    {
        PaddockTest::FakeOpenSandboxProcess server;
        QVERIFY2(server.start({QStringLiteral("--api-key"), QStringLiteral("s3cret"), QStringLiteral("--seed"),
                               QStringLiteral("12")}),
                 qPrintable(server.error()));
        QTemporaryDir dir;
        const QString settingsPath = dir.filePath(QStringLiteral("paddock.ini"));
        qputenv("OPEN_SANDBOX_DOMAIN", server.domain().toUtf8());
        qputenv("OPEN_SANDBOX_API_KEY", "s3cret");
        // Gone however the test ends, so that no later test imports this server.
        const auto unset = qScopeGuard([] {
            qunsetenv("OPEN_SANDBOX_DOMAIN");
            qunsetenv("OPEN_SANDBOX_API_KEY");
        });
        MemorySecretStore secrets;
        QString importedId;
        {
            QSettings settings(settingsPath, QSettings::IniFormat);
            {
                // The Local profile's folder is this test's.
                ProfileStore store(&settings);
                Profile local = store.profiles().constFirst();
                local.basedir = dir.filePath(QStringLiteral("workspaces"));
                QVERIFY(store.save(local));
            }
            Console console(&settings, &secrets, dir.filePath(QStringLiteral("logs")));
            console.window()->show();
            QCoro::waitFor(console.start());
            qunsetenv("OPEN_SANDBOX_API_KEY"); // from here on the key comes from the store only
            MainWindow *window = console.window();
            QCOMPARE(window->profile(), QStringLiteral("local"));

            // The import made a profile and put its key in the secret store.
            QCOMPARE(console.profiles().profiles().size(), 2);
            importedId = console.profiles().profiles().at(1).id;
            QCOMPARE(QCoro::waitFor(secrets.read(importedId))->value_or(QByteArray()), QByteArray("s3cret"));
            auto *box = window->findChild<QComboBox *>(QStringLiteral("profileBox"));
            QCOMPARE(box->count(), 3); // "All profiles" first, with two profiles
            QCOMPARE(box->itemData(0).toString(), QStringLiteral("@all"));

            // Switching shows the server's workspaces.
            QCoro::waitFor(console.switchTo(importedId));
            QCOMPARE(window->profile(), importedId);
            QTRY_COMPARE(window->model()->workspaceCount(), 12);
            QCOMPARE(box->currentData().toString(), importedId);

            // Renew from a group row: the dialog shows each expiry before and after, then applies.
            auto *view = window->findChild<QTreeView *>(QStringLiteral("workspaceView"));
            const QModelIndex group = view->model()->index(0, 0);
            view->selectionModel()->select(group, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            auto *renew = window->findChild<QAction *>(QStringLiteral("actionRenew"));
            QVERIFY(renew->isEnabled());
            renew->trigger();
            RenewDialog *dialog = nullptr;
            QTRY_VERIFY((dialog = window->findChild<RenewDialog *>()) != nullptr && dialog->isVisible());
            // Two days from now: later than every seeded expiry (a day after creation), so nothing
            // is shortened and nothing more is asked.
            dialog->setMode(RenewMode::FromNow);
            dialog->setAmount(2, RenewDialog::Days);
            QCOMPARE(dialog->shorteningCount(), 0);
            QVERIFY(!dialog->previewBefore(0).isEmpty());
            QVERIFY(dialog->previewAfter(0) != dialog->previewBefore(0));
            dialog->accept();
            QTRY_VERIFY(window->lastActionSummary().contains(QLatin1String("done")));
            QVERIFY2(!window->lastActionSummary().contains(QLatin1String("failed")),
                     qPrintable(window->lastActionSummary()));
            // Every workspace of that user now expires about two days from now.
            const QString user = view->model()->index(0, 0).data().toString();
            int renewed = 0;
            for (int row = 0; row < window->model()->rowCount(); ++row) {
                const QModelIndex userIndex = window->model()->index(row, 0);
                if (userIndex.data().toString() != user)
                    continue;
                for (const WorkspaceRecord *record : window->model()->recordsUnder(userIndex)) {
                    if (record->info.state != SandboxState::Running && record->info.state != SandboxState::Paused)
                        continue;
                    QVERIFY(record->info.expiresAt.has_value());
                    QVERIFY(*record->info.expiresAt > QDateTime::currentDateTimeUtc().addSecs(47 * 3600));
                    ++renewed;
                }
            }
            QVERIFY(renewed > 0);

            // A profile with a wrong key says so in place, with the request id; the others work.
            Profile wrong = console.profiles().profiles().at(1);
            wrong.id = QStringLiteral("wrong");
            wrong.name = QStringLiteral("Wrong key");
            QVERIFY(console.profiles().save(wrong));
            QVERIFY(QCoro::waitFor(secrets.write(QStringLiteral("wrong"), "nope")));
            QCoro::waitFor(console.reload({QStringLiteral("wrong")}));
            QCoro::waitFor(console.switchTo(QStringLiteral("wrong")));
            QTRY_VERIFY(window->statusBar()->currentMessage().contains(QLatin1String("HTTP 401 INVALID_API_KEY")));
            QVERIFY(window->statusBar()->currentMessage().contains(QLatin1String("(request ")));
            // In place: next to the switcher, and on the profile's entry.
            QVERIFY(window->profileProblem().contains(QLatin1String("HTTP 401 INVALID_API_KEY")));
            QVERIFY(window->profileProblem().contains(QLatin1String("(request ")));
            QVERIFY(window->findChild<QLabel *>(QStringLiteral("profileProblemLabel"))->isVisible());
            QVERIFY(!box->itemIcon(box->findData(QStringLiteral("wrong"))).isNull());
            QCOMPARE(window->model()->workspaceCount(), 0);
            QCoro::waitFor(console.switchTo(importedId));
            QTRY_COMPARE(window->model()->workspaceCount(), 12);
            QVERIFY(window->profileProblem().isEmpty());
            QCoro::waitFor(console.shutdown());
        }
        // The settings file holds profiles, never a key; the last profile is remembered.
        QFile file(settingsPath);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();
        QVERIFY(!text.contains("s3cret"));
        QVERIFY(!text.contains("nope"));
        QSettings settings(settingsPath, QSettings::IniFormat);
        Console again(&settings, &secrets, dir.filePath(QStringLiteral("logs")));
        QCoro::waitFor(again.start());
        QCOMPARE(again.window()->profile(), importedId);
        QCOMPARE(again.profiles().profiles().size(), 3); // the import does not run twice
        QCoro::waitFor(again.shutdown());
    }

    void openAndPauseOnAServerWhosePauseTakesAWhile()
    {
        // Kubernetes-like: a pause answers at once and the sandbox shows Pausing for a while.
        PaddockTest::FakeOpenSandboxProcess server;
        QVERIFY2(server.start({QStringLiteral("--pause-ms"), QStringLiteral("1500")}), qPrintable(server.error()));
        QTemporaryDir dir;
        QFile bootstrap(dir.filePath(QStringLiteral("bootstrap.txt")));
        QVERIFY(bootstrap.open(QIODevice::WriteOnly));
        bootstrap.write("# one command\necho hello from bootstrap; mkdir -p sessions/s1\n");
        bootstrap.close();
        QSettings settings(dir.filePath(QStringLiteral("paddock.ini")), QSettings::IniFormat);
        MemorySecretStore secrets;
        Profile profile;
        {
            ProfileStore store(&settings);
            profile.kind = Profile::Kind::OpenSandbox;
            profile.name = QStringLiteral("K8s");
            profile.id = store.newId(profile.name);
            profile.domain = server.domain();
            profile.bootstrapFile = bootstrap.fileName();
            QVERIFY(store.save(profile));
        }
        Console console(&settings, &secrets, dir.filePath(QStringLiteral("logs")));
        console.window()->resize(1200, 800);
        console.window()->show();
        QCoro::waitFor(console.start());
        QCoro::waitFor(console.switchTo(profile.id));
        MainWindow *window = console.window();
        QVERIFY(console.session(profile.id));

        window->findChild<QAction *>(QStringLiteral("actionOpen"))->trigger();
        OpenDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = window->findChild<OpenDialog *>(QStringLiteral("openDialog"))) != nullptr);
        dialog->findChild<QLineEdit *>(QStringLiteral("userEdit"))->setText(QStringLiteral("kai"));
        dialog->findChild<QLineEdit *>(QStringLiteral("agentEdit"))->setText(QStringLiteral("agent"));
        const QString id = dialog->resolvedId();
        dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Open)->click();
        QTRY_VERIFY_WITH_TIMEOUT(dialog->statusText().contains(QLatin1String("is open")), 30'000);
        QVERIFY2(dialog->logText().contains(QLatin1String("hello from bootstrap")), qPrintable(dialog->logText()));
        dialog->close();

        // The opened workspace's row: running, counting down to its idle pause, and active.
        const WorkspaceRecord *record = nullptr;
        QTRY_VERIFY((record =
                         [&] {
                             for (const WorkspaceRecord *r : window->model()->recordsUnder({})) {
                                 if (r->info.workspaceId == id)
                                     return r;
                             }
                             return static_cast<const WorkspaceRecord *>(nullptr);
                         }())
                    != nullptr);
        const QString key = record->key();
        QCOMPARE(record->info.state, SandboxState::Running);
        // The profile's own bootstrap is marked with Paddock's marker; no gateway script is left
        // for AgentScope to take for its own.
        const QString home = server.info().value(QLatin1String("dataDir")).toString() + u'/' + record->info.sandboxId
            + QStringLiteral("/root/.agentscope");
        QVERIFY2(QFileInfo::exists(home + QStringLiteral("/.bootstrap-complete")), qPrintable(home));
        QVERIFY(!QFileInfo::exists(home + QStringLiteral("/_mcp_gateway_app.py")));
        // A listing that ran while it was being provisioned may show it before the manager held
        // it; the refresh that follows the opening brings the deadline.
        QTRY_VERIFY(window->model()->record(window->model()->indexOfKey(key))->idleDeadline.has_value());
        QTRY_VERIFY(window->model()->record(window->model()->indexOfKey(key))->info.lastActivityAt.isValid());

        // Pause: the row reads Pausing until the server says Paused, well before the next
        // regular refresh (15 s).
        auto *view = window->findChild<QTreeView *>(QStringLiteral("workspaceView"));
        auto *proxy = view->model();
        QModelIndex row;
        for (QModelIndex index = proxy->index(0, 0); index.isValid(); index = view->indexBelow(index)) {
            if (index.data(WorkspaceTreeModel::KeyRole).toString() == key)
                row = index;
        }
        QVERIFY(row.isValid());
        view->selectionModel()->select(row, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);

        // The sandbox's container log: polled from the server's diagnostics endpoint into a tab,
        // next to the bootstrap log's.
        auto *containerLog = window->findChild<QAction *>(QStringLiteral("actionShowContainerLog"));
        QVERIFY(containerLog->isEnabled());
        containerLog->trigger();
        auto *container = qobject_cast<LogViewer *>(window->logTabs()->currentWidget());
        QVERIFY(container);
        QCOMPARE(window->logTabs()->tabText(window->logTabs()->currentIndex()),
                 MainWindow::tr("Container: %1").arg(id));
        const auto hasLine = [](LogViewer *viewer, const QString &text) {
            for (int i = 0; i < viewer->model()->rowCount(); ++i) {
                if (viewer->model()->index(i, LogModel::TextColumn).data().toString() == text)
                    return true;
            }
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(hasLine(container, QStringLiteral("hello from bootstrap")), 10'000);
        QVERIFY(container->statusText().contains(MainWindow::tr("Polling the server for new lines.")));
        window->findChild<QAction *>(QStringLiteral("actionShowLog"))->trigger();
        QCOMPARE(window->logTabs()->count(), 2);
        auto *bootstrapLog = qobject_cast<LogViewer *>(window->logTabs()->currentWidget());
        QVERIFY(bootstrapLog && bootstrapLog != container);
        QTRY_VERIFY(hasLine(bootstrapLog, QStringLiteral("hello from bootstrap")));

        window->findChild<QAction *>(QStringLiteral("actionPause"))->trigger();
        // The progress names the action.
        QProgressDialog *progress = nullptr;
        QTRY_VERIFY((progress = window->findChild<QProgressDialog *>(QStringLiteral("actionProgress"))) != nullptr);
        QCOMPARE(progress->labelText(), QStringLiteral("Pausing 1 workspace(s)…"));
        QTRY_COMPARE(window->model()->indexOfKey(key, WorkspaceTreeModel::StateColumn).data().toString(),
                     QStringLiteral("Pausing"));
        QTRY_COMPARE_WITH_TIMEOUT(window->model()->indexOfKey(key, WorkspaceTreeModel::StateColumn).data().toString(),
                                  QStringLiteral("Paused"), 10'000);
        QCoro::waitFor(console.shutdown());
    }

    void unreachableServerShowsInPlace()
    {
        // A port nobody listens on (bound, then closed again).
        quint16 port = 0;
        {
            QTcpServer probe;
            QVERIFY(probe.listen(QHostAddress::LocalHost));
            port = probe.serverPort();
        }
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("paddock.ini")), QSettings::IniFormat);
        MemorySecretStore secrets;
        const QString goneId = saveLocalAndOpenSandbox(&settings, dir, QStringLiteral("Gone"), port);
        QVERIFY(!goneId.isEmpty());
        QVERIFY(leaveLocalWorkspace(dir));
        Console console(&settings, &secrets, dir.filePath(QStringLiteral("logs")));
        console.window()->show();
        QCoro::waitFor(console.start());
        MainWindow *window = console.window();
        QTRY_COMPARE(window->model()->workspaceCount(), 1);

        QCoro::waitFor(console.switchTo(goneId));
        QTRY_VERIFY(!window->profileProblem().isEmpty());
        QVERIFY2(window->profileProblem().contains(QLatin1String("127.0.0.1")), qPrintable(window->profileProblem()));
        QCOMPARE(window->model()->workspaceCount(), 0);
        // The Local profile still works.
        QCoro::waitFor(console.switchTo(QStringLiteral("local")));
        QTRY_COMPARE(window->model()->workspaceCount(), 1);
        QVERIFY(window->profileProblem().isEmpty());
        QCoro::waitFor(console.shutdown());
    }

    void aSilentServerDoesNotHoldBackTheNextProfilesListing()
    {
        // A server that takes the listing and never answers: the profile switched to next is
        // listed at once, not after that listing's retries and timeouts (it waited behind it).
        PaddockTest::ScriptedHttpServer silent;
        for (int i = 0; i < 8; ++i)
            silent.script.enqueue(QByteArray()); // accept, never answer
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("paddock.ini")), QSettings::IniFormat);
        MemorySecretStore secrets;
        const QString quietId = saveLocalAndOpenSandbox(&settings, dir, QStringLiteral("Silent"), silent.serverPort());
        QVERIFY(!quietId.isEmpty());
        QVERIFY(leaveLocalWorkspace(dir));
        Console console(&settings, &secrets, dir.filePath(QStringLiteral("logs")));
        console.window()->show();
        QCoro::waitFor(console.start());
        MainWindow *window = console.window();
        QTRY_COMPARE(window->model()->workspaceCount(), 1);

        QCoro::waitFor(console.switchTo(quietId));
        QTRY_VERIFY(!silent.requests.isEmpty()); // its listing is on the wire, unanswered
        QCOMPARE(window->model()->workspaceCount(), 0);
        QCoro::waitFor(console.switchTo(QStringLiteral("local")));
        QTRY_COMPARE(window->model()->workspaceCount(), 1);
        QVERIFY(window->profileProblem().isEmpty());
        // Listed while the silent server still holds the listing it took (30 s, then once more).
        for (const QByteArray &request : std::as_const(silent.requests))
            QVERIFY2(request.startsWith("GET "), request.constData());
        QCoro::waitFor(console.shutdown());
    }

    void rowsOfAServerThatGoesAwayShowAsLastSeen()
    {
        QTemporaryDir dir;
        PaddockTest::FakeOpenSandboxProcess server;
        const QString data = dir.filePath(QStringLiteral("server"));
        QVERIFY2(server.start({QStringLiteral("--seed"), QStringLiteral("3"), QStringLiteral("--data-dir"), data}),
                 qPrintable(server.error()));
        QSettings settings(dir.filePath(QStringLiteral("paddock.ini")), QSettings::IniFormat);
        MemorySecretStore secrets;
        Profile team;
        {
            ProfileStore store(&settings);
            team.kind = Profile::Kind::OpenSandbox;
            team.name = QStringLiteral("Team server");
            team.id = store.newId(team.name);
            team.domain = server.domain();
            QVERIFY(store.save(team));
        }
        Console console(&settings, &secrets, dir.filePath(QStringLiteral("logs")));
        console.window()->show();
        QCoro::waitFor(console.start());
        QCoro::waitFor(console.switchTo(team.id));
        MainWindow *window = console.window();
        QTRY_COMPARE(window->model()->workspaceCount(), 3);
        const WorkspaceRecord *first = window->model()->recordsUnder({}).constFirst();
        const QString key = first->key();
        const QString state =
            first->info.state == SandboxState::Running ? QStringLiteral("Running") : QStringLiteral("Paused");
        QVERIFY(!window->isStale());

        // The server stops: the rows stay as last seen, greyed and saying when; the status bar
        // names the profile; the freshness marker says stale at once.
        const int port = server.port();
        server.stop();
        window->refresh(); // (folded into the one running, if one is)
        QTRY_VERIFY(window->isStale());
        QVERIFY2(window->freshnessText().contains(QLatin1String("stale")), qPrintable(window->freshnessText()));
        QVERIFY2(window->statusBar()->currentMessage().contains(QLatin1String("Team server")),
                 qPrintable(window->statusBar()->currentMessage()));
        const QModelIndex stateCell = window->model()->indexOfKey(key, WorkspaceTreeModel::StateColumn);
        QVERIFY2(stateCell.data().toString().startsWith(state + QStringLiteral(" (last seen ")),
                 qPrintable(stateCell.data().toString()));
        QCOMPARE(stateCell.data(Qt::ForegroundRole).value<QColor>(), QColor(0x8a, 0x8a, 0x8a));
        QCOMPARE(window->model()->workspaceCount(), 3);

        // Back: live again.
        QVERIFY2(server.start({QStringLiteral("--port"), QString::number(port), QStringLiteral("--data-dir"), data}),
                 qPrintable(server.error()));
        window->refresh();
        QTRY_COMPARE(window->model()->indexOfKey(key, WorkspaceTreeModel::StateColumn).data().toString(), state);
        QTRY_VERIFY(!window->isStale());
        QCoro::waitFor(console.shutdown());
    }

    void aKeylessProfileSendsNoKeyFromTheEnvironment()
    {
        // The console was started with OPEN_SANDBOX_API_KEY for some server; a profile of another
        // server has no key, and sends none.
        PaddockTest::ScriptedHttpServer other;
        qputenv("OPEN_SANDBOX_API_KEY", "env-s3cret");
        const auto unset = qScopeGuard([] { qunsetenv("OPEN_SANDBOX_API_KEY"); });
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("paddock.ini")), QSettings::IniFormat);
        MemorySecretStore secrets;
        const QString keylessId =
            saveLocalAndOpenSandbox(&settings, dir, QStringLiteral("Other server"), other.serverPort());
        QVERIFY(!keylessId.isEmpty());
        other.script.enqueue(PaddockTest::ScriptedHttpServer::response(
            200,
            R"({"items":[],"pagination":{"page":1,"pageSize":200,"totalItems":0,"totalPages":0,)"
            R"("hasNextPage":false}})"));
        Console console(&settings, &secrets, dir.filePath(QStringLiteral("logs")));
        console.window()->show();
        QCoro::waitFor(console.start());
        QCoro::waitFor(console.switchTo(keylessId));
        QTRY_VERIFY(!other.requests.isEmpty());
        QVERIFY2(other.requests.constFirst().startsWith("GET /v1/sandboxes?"), other.requests.constFirst().constData());
        for (const QByteArray &request : std::as_const(other.requests)) {
            QVERIFY2(!request.toLower().contains("open-sandbox-api-key"), request.constData());
            QVERIFY2(!request.contains("env-s3cret"), request.constData());
        }
        QCoro::waitFor(console.shutdown());
    }

    void withoutAKeychainAKeyServesThisRunOnly()
    {
        PaddockTest::FakeOpenSandboxProcess server;
        QVERIFY2(server.start({QStringLiteral("--api-key"), QStringLiteral("k3y"), QStringLiteral("--seed"),
                               QStringLiteral("2")}),
                 qPrintable(server.error()));
        QTemporaryDir dir;
        const QString settingsPath = dir.filePath(QStringLiteral("paddock.ini"));
        QSettings settings(settingsPath, QSettings::IniFormat);
        Profile team;
        {
            ProfileStore store(&settings);
            team.kind = Profile::Kind::OpenSandbox;
            team.name = QStringLiteral("Team");
            team.id = store.newId(team.name);
            team.domain = server.domain();
            QVERIFY(store.save(team));
        }
        NoKeychain secrets;
        Console console(&settings, &secrets, dir.filePath(QStringLiteral("logs")));
        console.window()->show();
        QCoro::waitFor(console.start());
        QCoro::waitFor(console.switchTo(team.id));
        MainWindow *window = console.window();
        // Why it fails, in place: no keychain, hence no key, hence the server's 401.
        QTRY_VERIFY(window->profileProblem().contains(QLatin1String("401")));
        QVERIFY(window->profileProblem().contains(QLatin1String("No keychain")));

        // A key typed in the Profiles dialog serves this run, with a clear message, and is
        // written nowhere.
        window->findChild<QAction *>(QStringLiteral("actionProfiles"))->trigger();
        ProfilesDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = window->findChild<ProfilesDialog *>()) != nullptr && dialog->isVisible());
        QTRY_COMPARE(dialog->currentProfileId(), team.id);
        QTest::keyClicks(dialog->findChild<QLineEdit *>(QStringLiteral("apiKeyEdit")), QStringLiteral("k3y"));
        auto saving = dialog->save();
        QMessageBox *told = nullptr;
        QTRY_VERIFY((told = dialog->findChild<QMessageBox *>(QStringLiteral("keyNotStored"))) != nullptr);
        QVERIFY(told->text().contains(QLatin1String("memory only until it quits")));
        told->button(QMessageBox::Ok)->click();
        QVERIFY(QCoro::waitFor(std::move(saving)));
        QTRY_COMPARE(window->model()->workspaceCount(), 2);
        QTRY_VERIFY(window->profileProblem().isEmpty());
        QVERIFY(QCoro::waitFor(console.sessionKeys()->read(team.id))->has_value());
        dialog->close();
        QCoro::waitFor(console.shutdown());
        QFile file(settingsPath);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(!file.readAll().contains("k3y"));
    }

    void quittingAsksWhatToDoWithOpenWorkspaces()
    {
        QTemporaryDir dir;
        const QString basedir = dir.filePath(QStringLiteral("workspaces"));
        QSettings settings(dir.filePath(QStringLiteral("paddock.ini")), QSettings::IniFormat);
        {
            ProfileStore store(&settings);
            Profile local = store.profiles().constFirst();
            local.basedir = basedir;
            QVERIFY(store.save(local));
        }
        MemorySecretStore secrets;
        LocalBackend disk(LocalOptions{basedir, false}); // reads what the console left
        const auto stateOf = [&disk](const QString &id) {
            const auto listed = QCoro::waitFor(disk.list(ListFilter{id, {}}));
            return listed && listed->size() == 1 ? listed->constFirst().state : SandboxState::Unknown;
        };
        const auto openOne = [](Console &console, const QString &agent) {
            WorkspaceRequest request;
            request.userId = QStringLiteral("u");
            request.agentId = agent;
            auto opened = QCoro::waitFor(console.session(QStringLiteral("local"))->open(request));
            return opened ? (*opened)->id() : QString();
        };
        const auto question = [](Console &console) {
            QMessageBox *box = nullptr;
            [&] {
                QTRY_VERIFY((box = console.window()->findChild<QMessageBox *>(QStringLiteral("quitQuestion")))
                                != nullptr
                            && box->isVisible());
            }();
            return box;
        };
        {
            Console console(&settings, &secrets, dir.filePath(QStringLiteral("logs")));
            console.window()->show();
            QCoro::waitFor(console.start());
            QSignalSpy decided(&console, &Console::quitDecided);
            // Nothing open: quitting does not ask.
            QVERIFY(!console.window()->close());
            QCOMPARE(decided.count(), 1);
            QCOMPARE(decided.takeFirst().constFirst().value<WorkspaceManager::StopMode>(),
                     WorkspaceManager::StopMode::Close);

            const QString id = openOne(console, QStringLiteral("a"));
            QVERIFY(!id.isEmpty());
            QCOMPARE(stateOf(id), SandboxState::Running);
            QCOMPARE(console.openWorkspaceCount(), 1);
            // Ctrl+Q: the window stays while it asks; Cancel keeps everything as it was.
            console.window()->findChild<QAction *>(QStringLiteral("actionQuit"))->trigger();
            QMessageBox *box = question(console);
            QVERIFY(box);
            QVERIFY(box->text().contains(QLatin1String("1 workspace")));
            QVERIFY(console.window()->isVisible());
            box->button(QMessageBox::Cancel)->click();
            QTRY_VERIFY(!console.window()->findChild<QMessageBox *>(QStringLiteral("quitQuestion")));
            QCOMPARE(decided.count(), 0);
            QVERIFY(console.window()->isVisible());

            // Leave them running (not remembered): the workspace is still Running afterwards.
            console.window()->close();
            box = question(console);
            QVERIFY(box);
            box->findChild<QPushButton *>(QStringLiteral("quitLeaveButton"))->click();
            QTRY_COMPARE(decided.count(), 1);
            const auto mode = decided.takeFirst().constFirst().value<WorkspaceManager::StopMode>();
            QCOMPARE(mode, WorkspaceManager::StopMode::LeaveRunning);
            QCoro::waitFor(console.shutdown(mode));
            QCOMPARE(stateOf(id), SandboxState::Running);
            QCOMPARE(console.quitController()->preference(), QuitController::Preference::Ask);
        }
        {
            // Close them, remembered: the workspace is paused, and the next quit does not ask.
            Console console(&settings, &secrets, dir.filePath(QStringLiteral("logs")));
            console.window()->show();
            QCoro::waitFor(console.start());
            QSignalSpy decided(&console, &Console::quitDecided);
            const QString id = openOne(console, QStringLiteral("b"));
            console.window()->close();
            QMessageBox *box = question(console);
            QVERIFY(box);
            box->findChild<QCheckBox *>(QStringLiteral("quitRemember"))->setChecked(true);
            box->findChild<QPushButton *>(QStringLiteral("quitCloseButton"))->click();
            QTRY_COMPARE(decided.count(), 1);
            const auto mode = decided.takeFirst().constFirst().value<WorkspaceManager::StopMode>();
            QCOMPARE(mode, WorkspaceManager::StopMode::Close);
            QCoro::waitFor(console.shutdown(mode));
            QCOMPARE(stateOf(id), SandboxState::Paused);
            QCOMPARE(console.quitController()->preference(), QuitController::Preference::Close);
        }
        {
            Console console(&settings, &secrets, dir.filePath(QStringLiteral("logs")));
            console.window()->show();
            QCoro::waitFor(console.start());
            auto *whenQuitting = console.window()->findChild<QMenu *>(QStringLiteral("menuWhenQuitting"));
            QVERIFY(whenQuitting); // File > When Quitting shows what is remembered
            const QList<QAction *> choices = whenQuitting->actions();
            const auto checked = std::find_if(choices.cbegin(), choices.cend(),
                                              [](const QAction *action) { return action->isChecked(); });
            QVERIFY(checked != choices.cend());
            QCOMPARE((*checked)->objectName(), QStringLiteral("quitClose"));
            QSignalSpy decided(&console, &Console::quitDecided);
            QVERIFY(!openOne(console, QStringLiteral("c")).isEmpty());
            console.window()->close();
            QTRY_COMPARE(decided.count(), 1);
            QVERIFY(!console.window()->findChild<QMessageBox *>(QStringLiteral("quitQuestion")));
            // A signal never asks, whatever is remembered: it closes.
            console.quitController()->setPreference(QuitController::Preference::LeaveRunning);
            // ...and the log says so.
            QTest::ignoreMessage(QtInfoMsg,
                                 QRegularExpression(QStringLiteral("signal 15: quitting without asking; closing "
                                                                   "\\(pausing\\) the 1 workspace\\(s\\)")));
            console.quitOnSignal(15);
            QCOMPARE(decided.count(), 2);
            QCOMPARE(decided.at(1).constFirst().value<WorkspaceManager::StopMode>(), WorkspaceManager::StopMode::Close);
            QCoro::waitFor(console.shutdown());
        }
    }

    void switchingFastShowsTheLastChoiceAndMakesOneSession()
    {
        PaddockTest::FakeOpenSandboxProcess server;
        QVERIFY2(server.start({QStringLiteral("--seed"), QStringLiteral("2")}), qPrintable(server.error()));
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("paddock.ini")), QSettings::IniFormat);
        GatedKeychain keychain;
        Profile profile;
        {
            ProfileStore store(&settings);
            profile.kind = Profile::Kind::OpenSandbox;
            profile.name = QStringLiteral("Slow keychain");
            profile.id = store.newId(profile.name);
            profile.domain = server.domain();
            QVERIFY(store.save(profile));
        }
        Console console(&settings, &keychain, dir.filePath(QStringLiteral("logs")));
        console.window()->show();
        settings.setValue(QStringLiteral("currentProfile"), QStringLiteral("local"));
        QCoro::waitFor(console.start());
        MainWindow *window = console.window();
        QCOMPARE(window->profile(), QStringLiteral("local"));

        // A, and A again, while its key is being read; then Local.
        auto first = console.switchTo(profile.id);
        auto second = console.switchTo(profile.id);
        QCOMPARE(keychain.reads, 1); // one read, one session in the making
        QCoro::waitFor(console.switchTo(QStringLiteral("local")));
        QCOMPARE(window->profile(), QStringLiteral("local"));
        // The key arrives: A's session is made once, and Local stays (the last choice wins).
        keychain.release();
        QCoro::waitFor(first);
        QCoro::waitFor(second);
        QCOMPARE(window->profile(), QStringLiteral("local"));
        QCOMPARE(window->session(), console.session(QStringLiteral("local")));
        ProfileSession *made = console.session(profile.id);
        QVERIFY(made);
        QCOMPARE(keychain.reads, 1);
        // Shown later, it is that session, without reading the key again.
        QCoro::waitFor(console.switchTo(profile.id));
        QCOMPARE(window->profile(), profile.id);
        QCOMPARE(window->session(), made);
        QCOMPARE(keychain.reads, 1);
        QTRY_COMPARE(window->model()->workspaceCount(), 2);
        QCoro::waitFor(console.shutdown());
    }

    void quittingAndSavingWhileActionsRunLosesNoResult()
    {
        // Each pause takes 1.5 s: the profile is saved (its session ends and is made again) and
        // the console quits while the bulk pause runs. Nothing is freed under it, and its result
        // is reported whole.
        PaddockTest::FakeOpenSandboxProcess server;
        QVERIFY2(server.start({QStringLiteral("--pause-ms"), QStringLiteral("1500")}), qPrintable(server.error()));
        QTemporaryDir dir;
        QFile bootstrap(dir.filePath(QStringLiteral("empty.txt")));
        QVERIFY(bootstrap.open(QIODevice::WriteOnly));
        bootstrap.close();
        QSettings settings(dir.filePath(QStringLiteral("paddock.ini")), QSettings::IniFormat);
        MemorySecretStore secrets;
        Profile profile;
        {
            ProfileStore store(&settings);
            profile.kind = Profile::Kind::OpenSandbox;
            profile.name = QStringLiteral("Busy");
            profile.id = store.newId(profile.name);
            profile.domain = server.domain();
            profile.bootstrapFile = bootstrap.fileName();
            QVERIFY(store.save(profile));
        }
        auto console = std::make_unique<Console>(&settings, &secrets, dir.filePath(QStringLiteral("logs")));
        console->window()->show();
        QCoro::waitFor(console->start());
        QCoro::waitFor(console->switchTo(profile.id));
        MainWindow *window = console->window();
        ProfileSession *session = console->session(profile.id);
        QVERIFY(session);
        QStringList sandboxes;
        for (const char *agent : {"a", "b", "c"}) {
            WorkspaceRequest request;
            request.userId = QStringLiteral("u");
            request.agentId = QLatin1String(agent);
            auto opened = QCoro::waitFor(session->open(request));
            QVERIFY2(opened, qPrintable(opened ? QString() : opened.error().message));
            sandboxes.append(std::dynamic_pointer_cast<SandboxWorkspace>(*opened)->sandbox().sandboxId);
        }
        window->refresh();
        QTRY_COMPARE(window->model()->workspaceCount(), 3);
        auto *view = window->findChild<QTreeView *>(QStringLiteral("workspaceView"));
        view->selectAll();
        window->findChild<QAction *>(QStringLiteral("actionPause"))->trigger();
        ConfirmDialog *confirm = nullptr;
        QTRY_VERIFY((confirm = window->findChild<ConfirmDialog *>(QStringLiteral("confirmAction"))) != nullptr);
        QTRY_VERIFY(confirm->isVisible());
        confirm->confirmButton()->click();
        QTRY_COMPARE(window->model()
                         ->indexOfKey(QStringLiteral("%1\x1f%2").arg(profile.id, sandboxes.constFirst()),
                                      WorkspaceTreeModel::StateColumn)
                         .data()
                         .toString(),
                     QStringLiteral("Pausing"));

        // Saved with a new TTL while the pauses run: that session ends (waiting for them).
        Profile changed = *console->profiles().profile(profile.id);
        changed.ttl = std::chrono::seconds(600);
        QVERIFY(console->profiles().save(changed));
        auto reloading = console->reload({profile.id});
        // And the console quits at once (closing what is still open).
        QCoro::waitFor(console->shutdown());
        QCoro::waitFor(reloading);
        QTRY_VERIFY(window->lastActionSummary().contains(QLatin1String("workspace(s) done")));
        QCOMPARE(window->lastActionSummary(), QStringLiteral("3 of 3 workspace(s) done"));
        console.reset();
        // Every pause happened on the server.
        ProfileSession check(changed, {}, nullptr);
        for (const QString &id : std::as_const(sandboxes))
            QTRY_COMPARE_WITH_TIMEOUT(QCoro::waitFor(check.get(id))->state, SandboxState::Paused, 10'000);
        QCoro::waitFor(check.shutdown());
    }

    void noReadOfOneProfilesSandboxesReachesTheNextProfilesServer()
    {
        // A new user's pass: six workspaces of "Team" paused at once, the inspector open, then the
        // switcher moved to a profile whose server fails every request. Nothing of Team (its
        // sandbox ids) may be asked of that server: every read and action goes through the
        // session of the row's own profile. (Taking Team's rows away moved the current row from
        // one Team workspace to the next, and the inspector read each through the new session.)
        PaddockTest::FakeOpenSandboxProcess team;
        QVERIFY2(team.start({QStringLiteral("--seed"), QStringLiteral("40")}), qPrintable(team.error()));
        QTemporaryDir dir;
        const QString requests = dir.filePath(QStringLiteral("broken-requests.jsonl"));
        PaddockTest::FakeOpenSandboxProcess broken;
        QVERIFY2(broken.start({QStringLiteral("--fail-rate"), QStringLiteral("1"), QStringLiteral("--record-requests"),
                               requests}),
                 qPrintable(broken.error()));
        // What reached Broken: its lifecycle requests' method and target.
        const auto received = [&requests] {
            QStringList lines;
            QFile log(requests);
            if (!log.open(QIODevice::ReadOnly))
                return lines;
            while (!log.atEnd()) {
                const QJsonObject request = QJsonDocument::fromJson(log.readLine()).object();
                if (request.value(QLatin1String("listener")).toString() != QLatin1String("fake"))
                    lines.append(request.value(QLatin1String("method")).toString() + u' '
                                 + request.value(QLatin1String("target")).toString());
            }
            return lines;
        };
        const auto listings = [&received] {
            const QStringList lines = received();
            return std::count_if(lines.cbegin(), lines.cend(), [](const QString &line) {
                return line.startsWith(QLatin1String("GET /v1/sandboxes?"));
            });
        };
        QSettings settings(dir.filePath(QStringLiteral("paddock.ini")), QSettings::IniFormat);
        MemorySecretStore secrets;
        Profile teamProfile;
        Profile brokenProfile;
        {
            ProfileStore store(&settings);
            Profile local = store.profiles().constFirst();
            local.basedir = dir.filePath(QStringLiteral("workspaces"));
            QVERIFY(store.save(local));
            teamProfile.kind = Profile::Kind::OpenSandbox;
            teamProfile.name = QStringLiteral("Team");
            teamProfile.id = store.newId(teamProfile.name);
            teamProfile.domain = team.domain();
            QVERIFY(store.save(teamProfile));
            brokenProfile.kind = Profile::Kind::OpenSandbox;
            brokenProfile.name = QStringLiteral("Broken");
            brokenProfile.id = store.newId(brokenProfile.name);
            brokenProfile.domain = broken.domain();
            QVERIFY(store.save(brokenProfile));
        }
        Console console(&settings, &secrets, dir.filePath(QStringLiteral("logs")));
        console.window()->resize(1200, 800);
        console.window()->show();
        QCoro::waitFor(console.start());
        QCoro::waitFor(console.switchTo(teamProfile.id));
        MainWindow *window = console.window();
        QTRY_COMPARE(window->model()->workspaceCount(), 40);
        // The inspector open, and the list flat: every row a workspace, the current one moving to
        // a neighbour as the rows go.
        window->findChild<InspectorDock *>()->toggleViewAction()->trigger();
        window->findChild<QAction *>(QStringLiteral("actionGroupByIsolation"))->setChecked(false);
        auto *view = window->findChild<QTreeView *>(QStringLiteral("workspaceView"));
        QTRY_COMPARE(view->model()->rowCount(), 40);
        QStringList teams; // every Team sandbox id
        for (const WorkspaceRecord *record : window->model()->recordsUnder({}))
            teams.append(record->info.sandboxId);
        QCOMPARE(teams.size(), 40);
        const auto runningRows = [view, window](int atMost) {
            QItemSelection selection;
            QModelIndex last;
            int found = 0;
            for (int row = 0; row < view->model()->rowCount() && found < atMost; ++row) {
                const QModelIndex index = view->model()->index(row, 0);
                const WorkspaceRecord *record = window->model()->record(
                    window->model()->indexOfKey(index.data(WorkspaceTreeModel::KeyRole).toString()));
                if (!record || record->info.state != SandboxState::Running)
                    continue;
                selection.select(index, index);
                last = index;
                ++found;
            }
            return std::pair{selection, last};
        };

        // Six running ones selected, the last one current (a shift-click), and paused at once.
        {
            const auto [selection, last] = runningRows(6);
            QCOMPARE(selection.size(), 6);
            view->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            view->selectionModel()->setCurrentIndex(last, QItemSelectionModel::NoUpdate);
        }
        window->findChild<QAction *>(QStringLiteral("actionPause"))->trigger();
        ConfirmDialog *confirm = nullptr;
        QTRY_VERIFY((confirm = window->findChild<ConfirmDialog *>(QStringLiteral("confirmAction"))) != nullptr);
        QTRY_VERIFY(confirm->isVisible());
        confirm->confirmButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(window->lastActionSummary().contains(QLatin1String("workspace(s) done")), 20'000);
        QCOMPARE(window->lastActionSummary(), QStringLiteral("6 of 6 workspace(s) done"));
        QTRY_VERIFY(window->findChild<InspectorDock *>()->hasWorkspace());

        // Then the other profile, and back, a few times (a user trying things): each time a Team
        // row is current when the switch happens.
        for (int round = 0; round < 2; ++round) {
            const qsizetype before = listings();
            QCoro::waitFor(console.switchTo(brokenProfile.id));
            QCOMPARE(window->model()->workspaceCount(), 0);
            QTRY_VERIFY(listings() > before); // its listing reached it (the reads issued before it too)
            QCoro::waitFor(console.switchTo(teamProfile.id));
            // (Listed once Broken's listing has given up: one listing runs at a time.)
            QTRY_COMPARE_WITH_TIMEOUT(window->model()->workspaceCount(), 40, 30'000);
            QTRY_COMPARE(view->model()->rowCount(), 40);
            const auto [selection, last] = runningRows(1);
            QVERIFY(last.isValid());
            view->selectionModel()->setCurrentIndex(last,
                                                    QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            QTRY_VERIFY(window->findChild<InspectorDock *>()->hasWorkspace());
        }
        // The shutdown waits for every read still running: what was sent has arrived.
        QCoro::waitFor(console.shutdown());

        const QStringList lines = received();
        QVERIFY(!lines.isEmpty());
        for (const QString &line : lines) {
            for (const QString &id : std::as_const(teams))
                QVERIFY2(!line.contains(id), qPrintable(line + QStringLiteral(": Team's sandbox asked of Broken")));
        }
    }

    void profilesDialogFeedsTheSwitcher()
    {
        PaddockTest::FakeOpenSandboxProcess server;
        QVERIFY2(server.start({QStringLiteral("--api-key"), QStringLiteral("k3y"), QStringLiteral("--seed"),
                               QStringLiteral("3")}),
                 qPrintable(server.error()));
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("paddock.ini")), QSettings::IniFormat);
        MemorySecretStore secrets;
        Console console(&settings, &secrets, dir.filePath(QStringLiteral("logs")));
        console.window()->show();
        QCoro::waitFor(console.start());
        MainWindow *window = console.window();
        auto *box = window->findChild<QComboBox *>(QStringLiteral("profileBox"));
        QCOMPARE(box->count(), 1);

        window->findChild<QAction *>(QStringLiteral("actionProfiles"))->trigger();
        ProfilesDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = window->findChild<ProfilesDialog *>()) != nullptr && dialog->isVisible());
        QTest::mouseClick(dialog->findChild<QPushButton *>(QStringLiteral("addButton")), Qt::LeftButton);
        auto *name = dialog->findChild<QLineEdit *>(QStringLiteral("nameEdit"));
        name->selectAll();
        QTest::keyClicks(name, QStringLiteral("Team server"));
        QTest::keyClicks(dialog->findChild<QLineEdit *>(QStringLiteral("domainEdit")), server.domain());
        QTest::keyClicks(dialog->findChild<QLineEdit *>(QStringLiteral("apiKeyEdit")), QStringLiteral("k3y"));
        QVERIFY(QCoro::waitFor(dialog->save()));

        // The switcher offers it at once (and "All profiles", first, now that there are two);
        // shown, it lists the server's workspaces with the key.
        QTRY_COMPARE(box->count(), 3);
        const QString id = box->itemData(2).toString();
        QCOMPARE(QCoro::waitFor(secrets.read(id))->value_or(QByteArray()), QByteArray("k3y"));
        QCoro::waitFor(console.switchTo(id));
        QTRY_COMPARE(window->model()->workspaceCount(), 3);
        dialog->close();

        // The interval picked in the window is remembered for the profile.
        auto *interval = window->findChild<QComboBox *>(QStringLiteral("refreshIntervalBox"));
        interval->setCurrentIndex(interval->findData(30));
        Q_EMIT interval->activated(interval->currentIndex()); // what a user's pick sends
        QCOMPARE(console.profiles().profile(id)->refreshInterval, std::chrono::seconds(30));

        // A new refresh interval just applies; a new TTL needs a new manager.
        ProfileSession *session = console.session(id);
        QVERIFY(session);
        Profile changed = *console.profiles().profile(id);
        changed.refreshInterval = std::chrono::seconds(60);
        QVERIFY(console.profiles().save(changed));
        QCoro::waitFor(console.reload({id}));
        QCOMPARE(console.session(id), session);
        QCOMPARE(window->refreshInterval(), std::chrono::seconds(60));
        changed.ttl = std::chrono::seconds(120);
        QVERIFY(console.profiles().save(changed));
        QCoro::waitFor(console.reload({id}));
        QVERIFY(console.session(id));
        QCOMPARE(console.session(id)->profile().ttl, std::chrono::seconds(120));
        QTRY_COMPARE(window->model()->workspaceCount(), 3);
        QCoro::waitFor(console.shutdown());
    }
};

QTEST_MAIN(TestConsole)
#include "tst_console.moc"
