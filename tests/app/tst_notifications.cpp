// The console's notifications against a notification service on a private session bus (run
// under tests/support/with-session-bus.sh: dbus-run-session): the test registers its own
// org.freedesktop.Notifications, on a connection of its own as a notification daemon would, and
// asserts the exact Notify calls (summary, body, actions, hints, replaces_id), that clicking one
// (ActionInvoked) selects its workspaces in a real MainWindow, that a closed notification is not
// replaced; with no service on the bus the fallback is taken and said once, and a service that
// appears later is used; offscreen has no system tray, so the tray's options are disabled and
// say why. tst_notifications_nobus runs noSessionBus with no bus at all.

#include "console.h"
#include "expirywatch.h"
#include "i18n.h"
#include "mainwindow.h"
#include "notificationcenter.h"
#include "notifier.h"
#include "profile.h"
#include "profilesession.h"
#include "scriptedbackend.h"
#include "secretstore.h"
#include "testsession.h"
#include "traycontroller.h"
#include "workspacetreemodel.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QAction>
#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDBusMessage>
#include <QDBusMetaType>
#include <QDir>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

using namespace Paddock;
using namespace PaddockTest;
using namespace std::chrono_literals;

namespace {

struct NotifyCall
{
    QString appName;
    uint replacesId = 0;
    QString appIcon;
    QString summary;
    QString body;
    QStringList actions;
    QVariantMap hints;
    int timeout = 0;
    uint id = 0; // what the server answered
};

const QString ServerConnection = QStringLiteral("paddock-test-notification-server");

} // namespace

// A notification daemon as the Desktop Notifications Specification describes it, recording the
// calls it gets.
class FakeNotificationServer final : public QObject
{
    Q_OBJECT
    Q_CLASSINFO("D-Bus Interface", "org.freedesktop.Notifications")

public:
    QStringList capabilities{QStringLiteral("actions"), QStringLiteral("body")};
    QList<NotifyCall> calls;
    uint nextId = 40;

public Q_SLOTS:
    QStringList GetCapabilities() { return capabilities; }
    uint Notify(const QString &appName, uint replacesId, const QString &appIcon, const QString &summary,
                const QString &body, const QStringList &actions, const QVariantMap &hints, int timeout)
    {
        const uint id = replacesId != 0 ? replacesId : ++nextId;
        calls.append({appName, replacesId, appIcon, summary, body, actions, hints, timeout, id});
        return id;
    }
    void CloseNotification(uint id) { Q_EMIT NotificationClosed(id, 3); }
    QString GetServerInformation(QString &vendor, QString &version, QString &specVersion)
    {
        vendor = QStringLiteral("Paddock tests");
        version = QStringLiteral("1");
        specVersion = QStringLiteral("1.2");
        return QStringLiteral("fake");
    }

Q_SIGNALS:
    void ActionInvoked(uint id, const QString &actionKey);
    void NotificationClosed(uint id, uint reason);
};

class TestNotifications final : public QObject
{
    Q_OBJECT

    FakeNotificationServer *m_server = nullptr;

    bool startServer()
    {
        QDBusConnection bus = QDBusConnection::connectToBus(QDBusConnection::SessionBus, ServerConnection);
        if (!bus.isConnected())
            return false;
        m_server = new FakeNotificationServer;
        if (!bus.registerObject(QString::fromLatin1(Notifier::Path), m_server,
                                QDBusConnection::ExportAllSlots | QDBusConnection::ExportAllSignals))
            return false;
        return bus.registerService(QString::fromLatin1(Notifier::Service));
    }

    void stopServer()
    {
        QDBusConnection bus(ServerConnection);
        bus.unregisterService(QString::fromLatin1(Notifier::Service));
        bus.unregisterObject(QString::fromLatin1(Notifier::Path));
        delete std::exchange(m_server, nullptr);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QCOMPARE(useLanguage(QLocale(QLocale::English, QLocale::UnitedStates)), QStringLiteral("en"));
    }

    // Runs alone with no session bus at all (tst_notifications_nobus): said once, nothing shown.
    void noSessionBus()
    {
        if (QDBusConnection::sessionBus().isConnected())
            QSKIP("a session bus is up: tst_notifications_nobus runs this without one");
        Notifier notifier;
        QSignalSpy degraded(&notifier, &Notifier::degraded);
        QTest::ignoreMessage(QtInfoMsg,
                             QRegularExpression(QStringLiteral(
                                 "^no D-Bus session bus \\([^ ].*[^ ]\\); and no system tray: no notifications$")));
        notifier.start();
        QCOMPARE(notifier.transport(), Notifier::Transport::None);
        QCOMPARE(degraded.size(), 1);
        QCOMPARE(degraded.constFirst().constFirst().toString(),
                 QStringLiteral("No D-Bus session bus and no system tray: Paddock cannot show notifications."));
        Notification n;
        n.summary = QStringLiteral("x");
        for (int i = 0; i < 3; ++i)
            notifier.notify(n);
        QCOMPARE(degraded.size(), 1);
    }

    // No service yet: the fallback (offscreen: no tray, so nothing), said once however many are
    // sent; then a notification daemon starts and is used from then on.
    void noServiceThenOne()
    {
        if (!QDBusConnection::sessionBus().isConnected())
            QSKIP("needs a session bus (with-session-bus.sh)");
        Notifier notifier;
        notifier.setTrayProvider([]() -> QSystemTrayIcon * { return nullptr; });
        QSignalSpy degraded(&notifier, &Notifier::degraded);
        QSignalSpy transport(&notifier, &Notifier::transportChanged);
        QTest::ignoreMessage(QtInfoMsg, QRegularExpression(QStringLiteral("^no notification service")));
        notifier.start();
        QTRY_COMPARE(notifier.transport(), Notifier::Transport::None);
        QCOMPARE(degraded.size(), 1);
        QCOMPARE(degraded.constFirst().constFirst().toString(),
                 QStringLiteral("No notification service on the session bus (org.freedesktop.Notifications) and no "
                                "system tray: Paddock cannot show notifications."));
        Notification n;
        n.group = QStringLiteral("g");
        n.summary = QStringLiteral("Workspace a expired");
        for (int i = 0; i < 3; ++i)
            notifier.notify(n);
        QCOMPARE(degraded.size(), 1);

        QVERIFY(startServer());
        QTest::ignoreMessage(QtInfoMsg, QRegularExpression(QStringLiteral("^notifications through")));
        QTRY_COMPARE(notifier.transport(), Notifier::Transport::DBus);
        QCOMPARE(notifier.capabilities(), m_server->capabilities);
        notifier.notify(n);
        QTRY_COMPARE(m_server->calls.size(), 1);
        QCOMPARE(m_server->calls.constFirst().summary, QStringLiteral("Workspace a expired"));
        QCOMPARE(degraded.size(), 1);
        stopServer();
    }

    // The exact calls: grouped, then updated in place (replaces_id), then new once closed; a
    // server without "actions" gets none.
    void exactNotifyCalls()
    {
        if (!QDBusConnection::sessionBus().isConnected())
            QSKIP("needs a session bus (with-session-bus.sh)");
        QVERIFY(startServer());
        const auto stop = qScopeGuard([this] { stopServer(); });
        NotificationCenter center;
        qint64 wall = QDateTime::currentMSecsSinceEpoch();
        qint64 mono = 1'000'000;
        center.setClocks([&wall] { return wall; }, [&mono] { return mono; });
        Profile profile = Profile::local();
        profile.id = QStringLiteral("prod");
        profile.name = QStringLiteral("Production");
        center.setProfile(profile);
        QTest::ignoreMessage(QtInfoMsg, QRegularExpression(QStringLiteral("^notifications through")));
        center.notifier()->start();
        QTRY_COMPARE(center.notifier()->transport(), Notifier::Transport::DBus);

        ExpiryWatch *watch = center.expiry();
        for (int i = 1; i <= 12; ++i) {
            watch->upsert(QStringLiteral("prod"), QStringLiteral("sbx-%1").arg(i), QStringLiteral("ws-%1").arg(i),
                          wall + 5 * 60'000 + i * 1000);
        }
        center.tick(); // crossed: into the group
        QVERIFY(m_server->calls.isEmpty());
        mono += NotificationPolicy::GroupWindowMs;
        center.tick(); // the group's notification goes out

        // Two more cross at once, before its answer (the id) is in: the update waits for the id
        // and replaces it in place (sent at once, it replaced nothing: a second notification,
        // which the asan run of CI caught).
        watch->upsert(QStringLiteral("prod"), QStringLiteral("sbx-13"), QStringLiteral("ws-13"),
                      wall + 10 * 60'000 + 30'000);
        watch->upsert(QStringLiteral("prod"), QStringLiteral("sbx-14"), QStringLiteral("ws-14"),
                      wall + 10 * 60'000 + 30'000);
        wall += 31'000;
        mono += 31'000;
        center.tick();
        mono += NotificationPolicy::GroupWindowMs;
        center.tick();
        QTRY_COMPARE(m_server->calls.size(), 2);
        const NotifyCall first = m_server->calls.constFirst();
        QCOMPARE(first.appName, QStringLiteral("Paddock"));
        QCOMPARE(first.replacesId, 0u);
        QCOMPARE(first.appIcon, QStringLiteral("io.github.paddock_console.Paddock"));
        QCOMPARE(first.summary, QStringLiteral("12 workspaces expire within 10 minutes"));
        QCOMPARE(first.body, QStringLiteral("ws-1, ws-2, ws-3, ws-4, ws-5 and 7 more\nProfile: Production"));
        QCOMPARE(first.actions, (QStringList{QStringLiteral("default"), QStringLiteral("Show")}));
        QCOMPARE(first.hints.value(QStringLiteral("desktop-entry")).toString(),
                 QStringLiteral("io.github.paddock_console.Paddock"));
        QCOMPARE(first.hints.value(QStringLiteral("urgency")).toInt(), 1);
        QCOMPARE(first.timeout, -1);
        const NotifyCall update = m_server->calls.at(1);
        QCOMPARE(update.replacesId, first.id);
        QCOMPARE(update.summary, QStringLiteral("14 workspaces expire within 10 minutes"));

        // Closed by the user: the next one is a new notification.
        QSignalSpy closed(center.notifier(), &Notifier::closed);
        Q_EMIT m_server->NotificationClosed(first.id, 2);
        QVERIFY(closed.wait());
        watch->upsert(QStringLiteral("prod"), QStringLiteral("sbx-15"), QStringLiteral("ws-15"), wall + 9 * 60'000);
        center.tick();
        mono += NotificationPolicy::GroupWindowMs;
        center.tick();
        QTRY_COMPARE(m_server->calls.size(), 3);
        QCOMPARE(m_server->calls.at(2).replacesId, 0u);
        QCOMPARE(m_server->calls.at(2).summary, QStringLiteral("Workspace ws-15 expires within 10 minutes"));

        // Muted: nothing waits, nothing is sent.
        profile.muteNotifications = true;
        center.setProfile(profile);
        center.workspacesLost(QStringLiteral("prod"), {QStringLiteral("ws-1")});
        QCOMPARE(center.policy().pendingGroups(), 0);

        // A server without actions: none asked for.
        m_server->capabilities = {QStringLiteral("body")};
        Notifier plain;
        QTest::ignoreMessage(QtInfoMsg, QRegularExpression(QStringLiteral("^notifications through")));
        plain.start();
        QTRY_COMPARE(plain.transport(), Notifier::Transport::DBus);
        Notification n;
        n.group = QStringLiteral("g");
        n.summary = QStringLiteral("s");
        n.body = QStringLiteral("b");
        plain.notify(n);
        QTRY_COMPARE(m_server->calls.size(), 4);
        QCOMPARE(m_server->calls.at(3).actions, QStringList());
    }

    // Clicking a notification (its default action) selects its workspaces in the real window.
    void clickSelectsTheWorkspaces()
    {
        if (!QDBusConnection::sessionBus().isConnected())
            QSKIP("needs a session bus (with-session-bus.sh)");
        QVERIFY(startServer());
        const auto stop = qScopeGuard([this] { stopServer(); });
        auto backend = std::make_unique<ScriptedBackend>();
        const QDateTime now = QDateTime::currentDateTimeUtc();
        for (const auto &[id, minutes] : {std::pair{QStringLiteral("ws-a"), 5}, std::pair{QStringLiteral("ws-b"), 7},
                                          std::pair{QStringLiteral("ws-c"), 50}}) {
            SandboxInfo info;
            info.sandboxId = QStringLiteral("sbx-") + id;
            info.workspaceId = id;
            info.userId = QStringLiteral("u");
            info.agentId = QStringLiteral("a");
            info.state = SandboxState::Running;
            info.rawState = QStringLiteral("Running");
            info.backend = QStringLiteral("scripted");
            info.createdAt = now.addSecs(-60);
            info.expiresAt = now.addSecs(minutes * 60);
            info.metadata.insert(WorkspaceIdKey, id);
            backend->sandboxes.append(info);
        }
        TestSession<ScriptedBackend> session(std::move(backend), testProfile(QStringLiteral("osb")));
        MainWindow window;
        window.show();
        NotificationCenter center;
        qint64 mono = 1'000'000;
        center.setClocks({}, [&mono] { return mono; });
        center.watch(window.model());
        QObject::connect(&center, &NotificationCenter::showWorkspaces, &window, &MainWindow::selectWorkspaces);
        QTest::ignoreMessage(QtInfoMsg, QRegularExpression(QStringLiteral("^notifications through")));
        center.notifier()->start();
        QSignalSpy refreshed(&window, &MainWindow::refreshed);
        window.setSession(session.get());
        QTRY_VERIFY(!refreshed.isEmpty());
        QCOMPARE(center.expiry()->watchedCount(), 3);
        center.tick();
        mono += NotificationPolicy::GroupWindowMs;
        center.tick();
        QTRY_COMPARE(m_server->calls.size(), 1);
        QCOMPARE(m_server->calls.constFirst().summary, QStringLiteral("2 workspaces expire within 10 minutes"));
        auto *view = window.findChild<QTreeView *>(QStringLiteral("workspaceView"));
        QVERIFY(view);
        QVERIFY(view->selectionModel()->selectedRows().isEmpty());

        // The daemon says its default action was invoked.
        Q_EMIT m_server->ActionInvoked(m_server->calls.constFirst().id, QStringLiteral("default"));
        QTRY_COMPARE(view->selectionModel()->selectedRows().size(), 2);
        QStringList selected;
        for (const QModelIndex &row : view->selectionModel()->selectedRows())
            selected.append(row.data(WorkspaceTreeModel::WorkspaceIdRole).toString());
        selected.sort();
        QCOMPARE(selected, (QStringList{QStringLiteral("ws-a"), QStringLiteral("ws-b")}));
        // Another application's notification: nothing.
        view->clearSelection();
        Q_EMIT m_server->ActionInvoked(9999, QStringLiteral("default"));
        QTest::qWait(0);
        QVERIFY(view->selectionModel()->selectedRows().isEmpty());
    }

    // The console's own wiring: a notification of another profile's workspaces, clicked, shows
    // that profile with them selected.
    void consoleShowsTheProfileAndSelects()
    {
        if (!QDBusConnection::sessionBus().isConnected())
            QSKIP("needs a session bus (with-session-bus.sh)");
        QVERIFY(startServer());
        const auto stop = qScopeGuard([this] { stopServer(); });
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("paddock.ini")), QSettings::IniFormat);
        MemorySecretStore secrets;
        const auto leave = [&dir](const QString &folder, const QString &id) {
            QVERIFY(QDir().mkpath(dir.filePath(folder + u'/' + id + QStringLiteral("/.paddock"))));
            QFile metadata(dir.filePath(folder + u'/' + id + QStringLiteral("/.paddock/workspace.json")));
            QVERIFY(metadata.open(QIODevice::WriteOnly));
            metadata.write(QStringLiteral(R"({"workspaceId":"%1","userId":"u","agentId":"a","state":"Running"})")
                               .arg(id)
                               .toUtf8());
        };
        {
            ProfileStore store(&settings);
            Profile local = store.profiles().constFirst();
            local.basedir = dir.filePath(QStringLiteral("here"));
            QVERIFY(store.save(local));
            Profile other = Profile::local();
            other.id = QStringLiteral("other");
            other.name = QStringLiteral("Other");
            other.basedir = dir.filePath(QStringLiteral("there"));
            QVERIFY(store.save(other));
        }
        leave(QStringLiteral("here"), QStringLiteral("ws1"));
        leave(QStringLiteral("there"), QStringLiteral("ws2"));
        leave(QStringLiteral("there"), QStringLiteral("ws3"));
        QTest::ignoreMessage(QtInfoMsg, QRegularExpression(QStringLiteral("^notifications through")));
        Console console(&settings, &secrets, dir.filePath(QStringLiteral("logs")));
        MainWindow *window = console.window();
        window->show();
        QCoro::waitFor(console.start());
        QTRY_COMPARE(window->model()->workspaceCount(), 1);
        QCOMPARE(window->profile(), QStringLiteral("local"));

        // The sweeper of "other" closed ws3 (its session's event, as the core reports it).
        WorkspaceEvent swept;
        swept.profileId = QStringLiteral("other");
        swept.workspaceId = QStringLiteral("ws3");
        swept.kind = WorkspaceEvent::Kind::Closed;
        swept.actor = WorkspaceEvent::Actor::Sweeper;
        console.notifications()->onEvent(swept);
        QTRY_COMPARE_WITH_TIMEOUT(m_server->calls.size(), 1, 10000); // the console's own timer
        QCOMPARE(m_server->calls.constFirst().summary, QStringLiteral("Workspace ws3 was closed for idleness"));
        QCOMPARE(m_server->calls.constFirst().body, QStringLiteral("Profile: Other"));

        Q_EMIT m_server->ActionInvoked(m_server->calls.constFirst().id, QStringLiteral("default"));
        QTRY_COMPARE(window->profile(), QStringLiteral("other"));
        auto *view = window->findChild<QTreeView *>(QStringLiteral("workspaceView"));
        QTRY_COMPARE(view->selectionModel()->selectedRows().size(), 1);
        QCOMPARE(
            view->selectionModel()->selectedRows().constFirst().data(WorkspaceTreeModel::WorkspaceIdRole).toString(),
            QStringLiteral("ws3"));
        QCOMPARE(view->currentIndex().data(WorkspaceTreeModel::WorkspaceIdRole).toString(), QStringLiteral("ws3"));
        QCoro::waitFor(console.shutdown());
    }

    // Offscreen has no system tray: the options cannot be chosen and say why; closing the window
    // does not hide it.
    void noTrayOffscreen()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("s.ini")), QSettings::IniFormat);
        settings.setValue(QStringLiteral("tray/show"), true);
        settings.setValue(QStringLiteral("tray/closeHides"), true);
        MainWindow window;
        TrayController tray(&window, nullptr, &settings);
        QVERIFY(!TrayController::isAvailable());
        QAction *show = tray.showInTrayAction();
        QVERIFY(!show->isEnabled());
        QCOMPARE(show->toolTip(), QStringLiteral("No system tray is available on this desktop."));
        QVERIFY(!tray.closeHidesAction()->isEnabled());
        QCOMPARE(tray.closeHidesAction()->toolTip(), QStringLiteral("No system tray is available on this desktop."));
        QVERIFY(!tray.icon());
        QVERIFY(!tray.closeHidesWindow());
        // In the View menu.
        QMenu *view = window.findChild<QMenu *>(QStringLiteral("menuView"));
        QVERIFY(view && view->actions().contains(show));
        window.show();
        QVERIFY(window.close()); // closes: nothing hides it
        QVERIFY(!window.isVisible());
    }

    // Where the user chose it (and a tray shows), closing hides the window, without the
    // application taking it for its last window closed; File > Quit still quits.
    void closeHidesWhereChosen()
    {
        MainWindow window;
        bool hides = true;
        window.setCloseHidesWindow([&hides] { return hides; });
        window.setQuitGuard(true);
        QSignalSpy quit(&window, &MainWindow::quitRequested);
        QSignalSpy lastClosed(qApp, &QGuiApplication::lastWindowClosed);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(!window.close());
        QVERIFY(window.isHidden());
        QCOMPARE(quit.size(), 0);
        QTest::qWait(0);
        QCOMPARE(lastClosed.size(), 0);
        window.show();
        window.requestQuit(); // File > Quit: asks (the quit guard), does not hide
        QCOMPARE(quit.size(), 1);
        QVERIFY(window.isVisible());
        hides = false; // the option off: closing asks to quit as before
        window.close();
        QCOMPARE(quit.size(), 2);
    }
};

QTEST_MAIN(TestNotifications)
#include "tst_notifications.moc"
