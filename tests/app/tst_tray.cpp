// The tray on a real system tray: run under tests/support/with-xvfb-tray.sh, which starts a
// private Xvfb and trayer (an XEmbed system tray from Debian) docked at the bottom right of its
// screen, and a private session bus with no notification service on it. The test wires the
// console's pieces as Console does (MainWindow, NotificationCenter, TrayController, the
// notifier's tray fallback) over a scripted backend, and shows that the icon really docks into
// the tray, that its tooltip and menu count the running and soon-expiring workspaces, that
// Show/Hide (the menu's and a click on the docked icon) works, that closing the window hides it
// to the tray only when chosen, and that a notification, with no service to take it, shows as
// the tray's balloon (Qt's QBalloonTip) exactly once per event.

#include "expirywatch.h"
#include "i18n.h"
#include "mainwindow.h"
#include "notificationcenter.h"
#include "notifier.h"
#include "profilesession.h"
#include "scriptedbackend.h"
#include "testsession.h"
#include "traycontroller.h"

#include <QAction>
#include <QApplication>
#include <QDBusConnection>
#include <QDateTime>
#include <QImage>
#include <QLabel>
#include <QMenu>
#include <QPixmap>
#include <QRegularExpression>
#include <QScreen>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QSystemTrayIcon>
#include <QTemporaryDir>
#include <QTest>

using namespace Paddock;
using namespace PaddockTest;

namespace {

// Counts the balloons Qt shows (QBalloonTip, a private top-level widget) and keeps their texts.
class BalloonWatch final : public QObject
{
public:
    QStringList shown; // "title|message", one per balloon shown

    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Show && watched->isWidgetType()
            && qstrcmp(watched->metaObject()->className(), "QBalloonTip") == 0) {
            QStringList texts;
            for (const QLabel *label : watched->findChildren<QLabel *>())
                if (!label->text().isEmpty())
                    texts.append(label->text());
            shown.append(texts.join(u'|'));
        }
        return QObject::eventFilter(watched, event);
    }
};

QWidget *balloon()
{
    for (QWidget *widget : QApplication::topLevelWidgets())
        if (qstrcmp(widget->metaObject()->className(), "QBalloonTip") == 0 && widget->isVisible())
            return widget;
    return nullptr;
}

// The widget Qt docks into the tray (QSystemTrayIconSys, a private top-level widget).
QWidget *dockedIcon()
{
    for (QWidget *widget : QApplication::topLevelWidgets())
        if (qstrcmp(widget->metaObject()->className(), "QSystemTrayIconSys") == 0)
            return widget;
    return nullptr;
}

SandboxInfo sandbox(const QString &id, int minutesLeft)
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    SandboxInfo info;
    info.sandboxId = QStringLiteral("sbx-") + id;
    info.workspaceId = id;
    info.userId = QStringLiteral("u");
    info.agentId = QStringLiteral("a");
    info.state = SandboxState::Running;
    info.rawState = QStringLiteral("Running");
    info.backend = QStringLiteral("scripted");
    info.createdAt = now.addSecs(-60);
    info.expiresAt = now.addSecs(minutesLeft * 60);
    info.metadata.insert(WorkspaceIdKey, id);
    return info;
}

} // namespace

class TestTray final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        if (QGuiApplication::platformName() != u"xcb")
            QSKIP("needs an X server with a system tray (run by tests/support/with-xvfb-tray.sh)");
        QCOMPARE(useLanguage(QLocale(QLocale::English, QLocale::UnitedStates)), QStringLiteral("en"));
        // The application's icon, as main.cpp sets it (the tray shows it).
        QApplication::setWindowIcon(QIcon(QStringLiteral(PADDOCK_ICON)));
        QVERIFY(!QApplication::windowIcon().isNull());
        // The script starts the tray beside the test: it is there once it owns its selection.
        QTRY_VERIFY_WITH_TIMEOUT(QSystemTrayIcon::isSystemTrayAvailable(), 30000);
    }

    void init()
    {
        // "No Icon set", "no tray": what would leave the icon empty or undocked fails the test.
        QTest::failOnWarning(QRegularExpression(QStringLiteral("QSystemTrayIcon")));
    }

    void docksCountsShowsHidesAndBalloons()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("s.ini")), QSettings::IniFormat);
        auto backend = std::make_unique<ScriptedBackend>();
        backend->sandboxes = {sandbox(QStringLiteral("ws-a"), 5), sandbox(QStringLiteral("ws-b"), 7),
                              sandbox(QStringLiteral("ws-c"), 50)};
        TestSession<ScriptedBackend> session(std::move(backend), testProfile(QStringLiteral("osb")));

        // As Console wires them.
        MainWindow window;
        window.setQuitGuard(true);
        NotificationCenter center;
        // Clocks the test moves: the wall clock with the monotonic one (no jump).
        qint64 mono = 1'000'000;
        const qint64 wallAtStart = QDateTime::currentMSecsSinceEpoch() - mono;
        center.setClocks([&mono, wallAtStart] { return wallAtStart + mono; }, [&mono] { return mono; });
        TrayController tray(&window, center.expiry(), &settings);
        center.watch(window.model());
        center.notifier()->setTrayProvider([&tray] { return tray.iconForMessages(); });
        QSignalSpy said(&center, &NotificationCenter::statusMessage);
        QTest::ignoreMessage(QtInfoMsg, QRegularExpression(QStringLiteral("notifications show at the tray icon")));
        center.notifier()->start();
        // No service on the bus (or no bus): the tray's balloon, said once.
        QTRY_COMPARE(center.notifier()->transport(), Notifier::Transport::Tray);
        QCOMPARE(said.size(), 1);
        QVERIFY(said.constFirst().constFirst().toString().contains(QStringLiteral("tray icon instead")));

        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy refreshed(&window, &MainWindow::refreshed);
        window.setSession(session.get());
        QTRY_VERIFY(!refreshed.isEmpty());

        // Off by default; chosen in the View menu, the icon docks into the tray at the bottom
        // right of the screen, where trayer is.
        QVERIFY(tray.showInTrayAction()->isEnabled());
        QVERIFY(!tray.showInTrayAction()->isChecked());
        QVERIFY(!tray.closeHidesAction()->isEnabled());
        QVERIFY(!tray.icon());
        tray.showInTrayAction()->trigger();
        QVERIFY(tray.icon() && tray.icon()->isVisible());
        QVERIFY(settings.value(QStringLiteral("tray/show")).toBool());
        QWidget *docked = dockedIcon();
        QVERIFY(docked);
        QTRY_VERIFY(docked->isVisible());
        const QRect screen = QGuiApplication::primaryScreen()->geometry();
        QTRY_VERIFY2(!tray.icon()->geometry().isEmpty() && tray.icon()->geometry().center().y() > screen.height() - 64
                         && tray.icon()->geometry().center().x() > screen.width() - 256,
                     qPrintable(QStringLiteral("the icon is at %1,%2 %3x%4, not in the tray")
                                    .arg(tray.icon()->geometry().x())
                                    .arg(tray.icon()->geometry().y())
                                    .arg(tray.icon()->geometry().width())
                                    .arg(tray.icon()->geometry().height())));

        // And it shows: the screen there holds the icon's pixels (several colours), not the tray's
        // bare background.
        const auto colours = [&tray] {
            const QRect at = tray.icon()->geometry();
            const QImage shown =
                QGuiApplication::primaryScreen()->grabWindow(0, at.x(), at.y(), at.width(), at.height()).toImage();
            QSet<QRgb> seen;
            for (int y = 0; y < shown.height(); ++y)
                for (int x = 0; x < shown.width(); ++x)
                    seen.insert(shown.pixel(x, y));
            return seen.size();
        };
        QTRY_VERIFY(colours() > 8);

        // The counts: three running, none past a threshold yet; then two cross 10 minutes.
        QTRY_COMPARE(tray.icon()->toolTip(), QStringLiteral("Paddock: 3 running, 0 expiring soon"));
        BalloonWatch balloons;
        qApp->installEventFilter(&balloons);
        center.tick();
        mono += NotificationPolicy::GroupWindowMs;
        center.tick();
        QTRY_COMPARE(tray.icon()->toolTip(), QStringLiteral("Paddock: 3 running, 2 expiring soon"));
        QMenu *menu = tray.icon()->contextMenu();
        QVERIFY(menu);
        const QList<QAction *> entries = menu->actions();
        QCOMPARE(entries.constFirst()->text(), QStringLiteral("Paddock: 3 running, 2 expiring soon"));
        QVERIFY(!entries.constFirst()->isEnabled());

        // The notification went as the tray's balloon, once.
        QTRY_COMPARE(balloons.shown.size(), 1);
        QCOMPARE(balloons.shown.constFirst().section(u'|', 0, 0),
                 QStringLiteral("2 workspaces expire within 10 minutes"));
        QVERIFY(balloon());
        // Further checks, the same rows, a minute later: nothing new, no second balloon.
        for (int i = 0; i < 3; ++i) {
            mono += 20'000;
            center.tick();
        }
        QTest::qWait(100);
        QCOMPARE(balloons.shown.size(), 1);

        // Another event (the sweeper closed ws-c): one balloon more, and only one even when the
        // same loss is reported again.
        WorkspaceEvent swept;
        swept.profileId = QStringLiteral("osb");
        swept.workspaceId = QStringLiteral("ws-c");
        swept.kind = WorkspaceEvent::Kind::Closed;
        swept.actor = WorkspaceEvent::Actor::Sweeper;
        center.onEvent(swept);
        center.onEvent(swept);
        mono += NotificationPolicy::GroupWindowMs;
        center.tick();
        QTRY_COMPARE(balloons.shown.size(), 2);
        QCOMPARE(balloons.shown.at(1).section(u'|', 0, 0), QStringLiteral("Workspace ws-c was closed for idleness"));
        center.onEvent(swept);
        mono += NotificationPolicy::GroupWindowMs;
        center.tick();
        QTest::qWait(100);
        QCOMPARE(balloons.shown.size(), 2);
        qApp->removeEventFilter(&balloons);

        // Show/Hide from the menu.
        QAction *showHide = nullptr;
        for (QAction *entry : entries)
            if (entry->text() == QStringLiteral("&Hide Paddock"))
                showHide = entry;
        QVERIFY(showHide);
        showHide->trigger();
        QTRY_VERIFY(window.isHidden());
        QCOMPARE(showHide->text(), QStringLiteral("&Show Paddock"));
        showHide->trigger();
        QTRY_VERIFY(window.isVisible());
        QCOMPARE(showHide->text(), QStringLiteral("&Hide Paddock"));
        // A click on the docked icon toggles it too.
        QSignalSpy activated(tray.icon(), &QSystemTrayIcon::activated);
        QTest::mouseClick(docked, Qt::LeftButton, {}, docked->rect().center());
        QTRY_VERIFY(!activated.isEmpty());
        QTRY_VERIFY(window.isHidden());
        QTest::mouseClick(docked, Qt::LeftButton, {}, docked->rect().center());
        QTRY_VERIFY(window.isVisible());

        // Closing the window quits (asks to) while "close hides" is not chosen...
        QSignalSpy quit(&window, &MainWindow::quitRequested);
        QVERIFY(tray.closeHidesAction()->isEnabled());
        QVERIFY(!tray.closeHidesWindow());
        window.close();
        QCOMPARE(quit.size(), 1);
        QVERIFY(window.isVisible());
        // ... and hides it to the tray once chosen, without quitting.
        tray.closeHidesAction()->trigger();
        QVERIFY(settings.value(QStringLiteral("tray/closeHides")).toBool());
        QVERIFY(tray.closeHidesWindow());
        QVERIFY(!window.close());
        QVERIFY(window.isHidden());
        QCOMPARE(quit.size(), 1);
        // The tray's Show brings it back; the icon taken away shows the window and closing
        // quits again.
        showHide->trigger();
        QTRY_VERIFY(window.isVisible());
        window.hide();
        tray.showInTrayAction()->trigger();
        QVERIFY(!tray.icon()->isVisible());
        QVERIFY(window.isVisible());
        QVERIFY(!tray.closeHidesWindow());
        window.close();
        QCOMPARE(quit.size(), 2);
    }
};

QTEST_MAIN(TestTray)
#include "tst_tray.moc"
