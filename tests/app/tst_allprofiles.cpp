// "All profiles" end to end, offscreen, through the Console: a local profile, two OpenSandbox
// servers (paddock-fake-opensandbox) and an OpenSandbox profile whose server is down, in one tree.
// Each profile is a top-level group with its own freshness or problem; the down one says so on its
// group and holds back no other; a bulk pause of rows of two servers reaches both (each through
// its own session); the selection survives refreshes; the inspector follows a row of any
// profile; expiry notifications cover every profile with each profile's own thresholds; the
// choice is remembered.

#include "allprofiles.h"
#include "confirmdialog.h"
#include "console.h"
#include "expiryfeed.h"
#include "expirywatch.h"
#include "fakeopensandboxprocess.h"
#include "i18n.h"
#include "inspectordock.h"
#include "mainwindow.h"
#include "notificationcenter.h"
#include "opendialog.h"
#include "profilesession.h"
#include "workspaceactions.h"
#include "workspacetreemodel.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QAbstractProxyModel>
#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QInputDialog>
#include <QScopeGuard>
#include <QSettings>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

using namespace Paddock;

namespace {

// A workspace left in a local profile's folder, as the local backend keeps one.
bool leaveLocal(const QString &basedir, const QString &id)
{
    if (!QDir().mkpath(basedir + u'/' + id + QStringLiteral("/.paddock")))
        return false;
    QFile metadata(basedir + u'/' + id + QStringLiteral("/.paddock/workspace.json"));
    if (!metadata.open(QIODevice::WriteOnly))
        return false;
    metadata.write(
        QStringLiteral(R"({"workspaceId":"%1","userId":"u","agentId":"a","state":"Running"})").arg(id).toUtf8());
    return true;
}

// A port nothing listens on.
int closedPort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost))
        return 0;
    const int port = probe.serverPort();
    probe.close();
    return port;
}

Profile openSandbox(const QString &id, const QString &name, const QString &domain)
{
    Profile profile;
    profile.id = id;
    profile.name = name;
    profile.kind = Profile::Kind::OpenSandbox;
    profile.domain = domain;
    return profile;
}

QModelIndex groupOf(WorkspaceTreeModel *model, const QString &profile)
{
    return model->indexOfProfileGroup(profile);
}

} // namespace

class TestAllProfiles final : public QObject
{
    Q_OBJECT

    struct Setup
    {
        QTemporaryDir dir;
        std::unique_ptr<QSettings> settings;
        MemorySecretStore secrets;
    };

    // local (two workspaces), "Team A" and "Team B" on two fake servers, "Down" on a closed port.
    bool prepare(Setup &setup, const PaddockTest::FakeOpenSandboxProcess &a,
                 const PaddockTest::FakeOpenSandboxProcess &b)
    {
        setup.settings =
            std::make_unique<QSettings>(setup.dir.filePath(QStringLiteral("paddock.ini")), QSettings::IniFormat);
        ProfileStore store(setup.settings.get());
        Profile local = store.profiles().constFirst();
        local.basedir = setup.dir.filePath(QStringLiteral("workspaces"));
        if (!store.save(local) || !leaveLocal(local.basedir, QStringLiteral("ws-local-1"))
            || !leaveLocal(local.basedir, QStringLiteral("ws-local-2")))
            return false;
        Profile teamA = openSandbox(QStringLiteral("team-a"), QStringLiteral("Team A"), a.domain());
        teamA.notifyBeforeExpiry = {std::chrono::minutes(10)};
        Profile teamB = openSandbox(QStringLiteral("team-b"), QStringLiteral("Team B"), b.domain());
        teamB.notifyBeforeExpiry = {}; // never told
        const Profile down = openSandbox(QStringLiteral("down"), QStringLiteral("Down"),
                                         QStringLiteral("127.0.0.1:%1").arg(closedPort()));
        return store.save(teamA) && store.save(teamB) && store.save(down);
    }

private Q_SLOTS:
    void initTestCase()
    {
        // English with its plurals ("1 of 4 profiles"), as the console speaks it.
        QCOMPARE(Paddock::useLanguage(QLocale(QLocale::English, QLocale::UnitedStates)), QStringLiteral("en"));
    }

    void everyProfileInOneTree()
    {
        PaddockTest::FakeOpenSandboxProcess a;
        PaddockTest::FakeOpenSandboxProcess b;
        QVERIFY2(a.start({QStringLiteral("--seed"), QStringLiteral("8")}), qPrintable(a.error()));
        QVERIFY2(b.start({QStringLiteral("--seed"), QStringLiteral("4")}), qPrintable(b.error()));
        Setup setup;
        QVERIFY(prepare(setup, a, b));
        {
            Console console(setup.settings.get(), &setup.secrets, setup.dir.filePath(QStringLiteral("logs")));
            // Every session ends before the console goes, however the test ends.
            const auto stop = qScopeGuard([&console] { QCoro::waitFor(console.shutdown()); });
            MainWindow *window = console.window();
            window->show();
            QCoro::waitFor(console.start());
            QCOMPARE(window->profile(), QStringLiteral("local"));
            // The switcher offers every profile at once, first.
            auto *box = window->findChild<QComboBox *>(QStringLiteral("profileBox"));
            QCOMPARE(box->itemData(0).toString(), AllProfiles::id());
            QCOMPARE(box->itemText(0), QStringLiteral("All profiles"));
            QCOMPARE(box->count(), 5);

            QSignalSpy refreshed(window, &MainWindow::refreshed);
            QCoro::waitFor(console.switchTo(AllProfiles::id()));
            QVERIFY(window->showsAllProfiles());
            QCOMPARE(box->currentData().toString(), AllProfiles::id());
            WorkspaceTreeModel *model = window->model();
            // Every profile's rows, the down one's none, none held back by it.
            QTRY_COMPARE(model->workspaceCount(), 2 + 8 + 4);
            // The round ends once the down server's listing gave up: not every profile was listed.
            QTRY_VERIFY_WITH_TIMEOUT(!refreshed.isEmpty() && !refreshed.last().at(0).toBool(), 30000);
            QCOMPARE(model->rowCount(), 4);
            for (int row = 0; row < 4; ++row) {
                QCOMPARE(model->index(row, 0).data(WorkspaceTreeModel::KindRole).value<WorkspaceTreeModel::Kind>(),
                         WorkspaceTreeModel::Kind::Profile);
            }
            // Each group: its name, its backend, its counts, its own freshness or problem.
            const QModelIndex teamA = groupOf(model, QStringLiteral("team-a"));
            QVERIFY(teamA.isValid());
            QVERIFY2(teamA.data().toString().startsWith(QStringLiteral("Team A — updated ")),
                     qPrintable(teamA.data().toString()));
            QCOMPARE(teamA.siblingAtColumn(WorkspaceTreeModel::BackendColumn).data().toString(),
                     QStringLiteral("OpenSandbox"));
            QCOMPARE(teamA.siblingAtColumn(WorkspaceTreeModel::StateColumn).data().toString(),
                     QStringLiteral("6 Running · 2 Paused"));
            QVERIFY(!teamA.data(Qt::ForegroundRole).isValid());
            QCOMPARE(model->recordsUnder(teamA).size(), 8);
            const QModelIndex local = groupOf(model, QStringLiteral("local"));
            QCOMPARE(model->recordsUnder(local).size(), 2);
            QCOMPARE(model->recordsUnder(local).constFirst()->profile, QStringLiteral("local"));
            const QModelIndex down = groupOf(model, QStringLiteral("down"));
            QVERIFY(down.isValid());
            QVERIFY2(down.data().toString().contains(QStringLiteral("cannot reach the server")),
                     qPrintable(down.data().toString()));
            QVERIFY(down.data(Qt::ForegroundRole).isValid()); // a warning, in colour
            QVERIFY(down.data(Qt::ToolTipRole).toString().contains(QStringLiteral("Profile Down")));
            QCOMPARE(model->recordsUnder(down).size(), 0);
            // ... and on its entry in the switcher, seen from any profile.
            QVERIFY(!box->itemIcon(box->findData(QStringLiteral("down"))).isNull());
            QVERIFY(!box->itemData(box->findData(QStringLiteral("down")), Qt::ToolTipRole).toString().isEmpty());
            QVERIFY(box->itemIcon(box->findData(QStringLiteral("team-a"))).isNull());
            // The status bar sums them up.
            QCOMPARE(window->freshnessText(), QStringLiteral("1 of 4 profiles not up to date"));
            QVERIFY(window->isStale());
            // Remembered as the profile shown.
            QCOMPARE(setup.settings->value(QStringLiteral("currentProfile")).toString(), AllProfiles::id());

            // The inspector follows a row of any profile, through that profile's own session.
            auto *view = window->findChild<QTreeView *>(QStringLiteral("workspaceView"));
            auto *proxy = view->model();
            const WorkspaceRecord *fromB = model->recordsUnder(groupOf(model, QStringLiteral("team-b"))).constFirst();
            const QModelIndex rowB =
                static_cast<QAbstractProxyModel *>(proxy)->mapFromSource(model->indexOfKey(fromB->key()));
            QVERIFY(rowB.isValid());
            view->selectionModel()->setCurrentIndex(rowB,
                                                    QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            QCOMPARE(window->sessionOf(QStringLiteral("team-b")), console.session(QStringLiteral("team-b")));
            QVERIFY(window->inspectorDock()->hasWorkspace());
            QCOMPARE(window->inspectorDock()->sandbox().sandboxId, fromB->info.sandboxId);

            // CPU and memory of the rows in view, each profile's through its own session.
            const auto measured = [model](const QString &profile) {
                const QList<const WorkspaceRecord *> rows = model->recordsUnder(groupOf(model, profile));
                return std::any_of(rows.cbegin(), rows.cend(), [model](const WorkspaceRecord *row) {
                    return model->metrics(row->key()) != nullptr;
                });
            };
            QTRY_VERIFY_WITH_TIMEOUT(measured(QStringLiteral("team-a")), 20000);

            // A bulk pause of a running row of each server: one confirmation, each part through
            // its own session, both servers reached.
            QList<const WorkspaceRecord *> chosen;
            for (const QString &profile : {QStringLiteral("team-a"), QStringLiteral("team-b")}) {
                for (const WorkspaceRecord *record : model->recordsUnder(groupOf(model, profile))) {
                    if (record->info.state == SandboxState::Running) {
                        chosen.append(record);
                        break;
                    }
                }
            }
            QCOMPARE(chosen.size(), 2);
            const QStringList keys{chosen.at(0)->key(), chosen.at(1)->key()};
            QItemSelection selection;
            for (const QString &key : keys) {
                const QModelIndex index =
                    static_cast<QAbstractProxyModel *>(proxy)->mapFromSource(model->indexOfKey(key));
                selection.select(index, index);
            }
            view->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            const auto selectedKeys = [&] {
                QStringList found;
                for (const QModelIndex &index : view->selectionModel()->selectedRows())
                    found.append(index.data(WorkspaceTreeModel::KeyRole).toString());
                found.sort();
                return found;
            };
            QStringList expected = keys;
            expected.sort();
            QCOMPARE(selectedKeys(), expected);
            // A refresh applies in place: no reset, the selection stays.
            QSignalSpy resets(model, &QAbstractItemModel::modelReset);
            const qsizetype before = refreshed.size();
            QCoro::waitFor(window->refresh());
            QTRY_VERIFY(refreshed.size() > before);
            QCOMPARE(resets.size(), 0);
            QCOMPARE(selectedKeys(), expected);

            auto *pause = window->findChild<QAction *>(QStringLiteral("actionPause"));
            QVERIFY(pause->isEnabled());
            QTimer::singleShot(0, this, [window] {
                auto *confirm = window->findChild<ConfirmDialog *>(QStringLiteral("confirmAction"));
                QVERIFY(confirm);
                confirm->accept();
            });
            QSignalSpy finished(window->actions(), &WorkspaceActionController::finished);
            pause->trigger();
            QTRY_COMPARE(finished.size(), 1);
            QCOMPARE(finished.constFirst().at(0).toString(), QStringLiteral("2 of 2 workspaces done"));
            // The listing after it: each server says Paused.
            for (const QString &key : keys)
                QTRY_COMPARE(model->record(model->indexOfKey(key))->info.state, SandboxState::Paused);
            QCOMPARE(selectedKeys(), expected);

            // Expiry notifications cover every profile, each with its own thresholds: five minutes
            // before the fake's expiries (a day after creation), Team A's rows cross its 10
            // minutes; Team B's (no threshold) and the local ones (no expiry) say nothing.
            ExpiryWatch *expiry = console.notifications()->expiry();
            const qint64 soon = QDateTime::currentMSecsSinceEpoch() + 86'400'000 - 5 * 60'000;
            expiry->setClocks([soon] { return soon; }, [] { return qint64(0); });
            const QList<ExpiryWatch::Crossing> crossings = expiry->check();
            QSet<QString> profiles;
            for (const ExpiryWatch::Crossing &crossing : crossings)
                profiles.insert(crossing.profileId);
            QCOMPARE(profiles, QSet<QString>{QStringLiteral("team-a")});

            // Another language: the groups say it too (the built-in profile's name included).
            window->findChild<QAction *>(QStringLiteral("language_zh_CN"))->trigger();
            QTRY_VERIFY2(
                groupOf(model, QStringLiteral("local")).data().toString().startsWith(QStringLiteral("本地 — ")),
                qPrintable(groupOf(model, QStringLiteral("local")).data().toString()));
            QTRY_VERIFY(
                groupOf(model, QStringLiteral("team-a")).data().toString().contains(QStringLiteral("秒前更新")));
            QCOMPARE(box->itemText(0), QStringLiteral("所有配置文件"));
            QCOMPARE(window->freshnessText(), QStringLiteral("4 个配置文件中有 1 个不是最新"));
            window->findChild<QAction *>(QStringLiteral("language_en"))->trigger();
            QTRY_VERIFY(
                groupOf(model, QStringLiteral("local")).data().toString().startsWith(QStringLiteral("Local — ")));
        }
        {
            // Started again: every profile at once, as it was left.
            Console console(setup.settings.get(), &setup.secrets, setup.dir.filePath(QStringLiteral("logs")));
            const auto stop = qScopeGuard([&console] { QCoro::waitFor(console.shutdown()); });
            console.window()->show();
            QCoro::waitFor(console.start());
            QVERIFY(console.window()->showsAllProfiles());
            QTRY_COMPARE(console.window()->model()->workspaceCount(), 2 + 8 + 4);
            // Back to one profile: the other groups go.
            QCoro::waitFor(console.switchTo(QStringLiteral("team-b")));
            QVERIFY(!console.window()->showsAllProfiles());
            QTRY_COMPARE(console.window()->model()->workspaceCount(), 4);
            QVERIFY(!console.window()->model()->hasProfileGroups());
            QCOMPARE(console.window()
                         ->model()
                         ->index(0, 0)
                         .data(WorkspaceTreeModel::KindRole)
                         .value<WorkspaceTreeModel::Kind>(),
                     WorkspaceTreeModel::Kind::User);

            // Shown alone, Team B; Team A's session is still open, so its expiries are still
            // watched: listed in the background and given to the watch with its own thresholds.
            ExpiryFeed *feed = console.expiryFeed();
            QCoro::waitFor(feed->poll());
            QStringList fed = feed->fedProfiles();
            fed.sort();
            QCOMPARE(fed, (QStringList{QStringLiteral("local"), QStringLiteral("team-a")})); // not the shown one
            ExpiryWatch *expiry = console.notifications()->expiry();
            const qint64 soon = QDateTime::currentMSecsSinceEpoch() + 86'400'000 - 5 * 60'000;
            expiry->setClocks([soon] { return soon; }, [] { return qint64(0); });
            QSet<QString> profiles;
            for (const ExpiryWatch::Crossing &crossing : expiry->check())
                profiles.insert(crossing.profileId);
            QCOMPARE(profiles, QSet<QString>{QStringLiteral("team-a")});
        }
    }

    void openWithNoRowAsksWhichProfileAndReadOnlyRowsAreSaidApart()
    {
        // With no row (or group) current, Open is not greyed out: it asks which profile to open
        // into (never a read-only one), and opens there through that profile's own session; from
        // a row, its profile. A bulk action skips a read-only profile's rows and says why.
        PaddockTest::FakeOpenSandboxProcess a;
        PaddockTest::FakeOpenSandboxProcess b;
        QVERIFY2(a.start({QStringLiteral("--seed"), QStringLiteral("6")}), qPrintable(a.error()));
        QVERIFY2(b.start({QStringLiteral("--seed"), QStringLiteral("3")}), qPrintable(b.error()));
        Setup setup;
        QVERIFY(prepare(setup, a, b));
        {
            ProfileStore store(setup.settings.get());
            std::optional<Profile> teamB = store.profile(QStringLiteral("team-b"));
            QVERIFY(teamB);
            teamB->readOnly = true;
            QVERIFY(store.save(*teamB));
        }
        Console console(setup.settings.get(), &setup.secrets, setup.dir.filePath(QStringLiteral("logs")));
        const auto stop = qScopeGuard([&console] { QCoro::waitFor(console.shutdown()); });
        MainWindow *window = console.window();
        window->show();
        QCoro::waitFor(console.start());
        QCoro::waitFor(console.switchTo(AllProfiles::id()));
        WorkspaceTreeModel *model = window->model();
        QTRY_COMPARE(model->workspaceCount(), 2 + 6 + 3);
        auto *view = window->findChild<QTreeView *>(QStringLiteral("workspaceView"));
        auto *proxy = static_cast<QAbstractProxyModel *>(view->model());
        view->selectionModel()->clear();
        view->selectionModel()->setCurrentIndex(QModelIndex(), QItemSelectionModel::Clear);
        auto *open = window->findChild<QAction *>(QStringLiteral("actionOpen"));
        QTRY_VERIFY(open->isEnabled());
        open->trigger();
        auto *ask = window->findChild<QInputDialog *>(QStringLiteral("openProfileDialog"));
        QVERIFY(ask);
        QTRY_VERIFY(ask->isVisible());
        auto *choices = ask->findChild<QComboBox *>();
        QVERIFY(choices);
        QStringList names;
        for (int i = 0; i < choices->count(); ++i)
            names.append(choices->itemText(i));
        QVERIFY2(names.contains(QStringLiteral("Team A")), qPrintable(names.join(u',')));
        QVERIFY2(!names.contains(QStringLiteral("Team B")), qPrintable(names.join(u','))); // read-only
        QVERIFY2(names.contains(QStringLiteral("Local")), qPrintable(names.join(u','))); // as shown
        QCOMPARE(choices->currentIndex(), 0); // one is chosen from the start
        choices->setCurrentIndex(int(names.indexOf(QStringLiteral("Team A"))));
        ask->accept();
        auto *dialog = window->findChild<OpenDialog *>(QStringLiteral("openDialog"));
        QVERIFY(dialog);
        QCOMPARE(dialog->session(), console.session(QStringLiteral("team-a")));
        dialog->close();
        QTRY_VERIFY(!window->findChild<OpenDialog *>(QStringLiteral("openDialog")));
        QTRY_VERIFY(!window->findChild<QInputDialog *>(QStringLiteral("openProfileDialog")));

        // From a row of Team A: straight into Team A, nothing asked.
        QList<const WorkspaceRecord *> running;
        for (const WorkspaceRecord *record : model->recordsUnder(groupOf(model, QStringLiteral("team-a")))) {
            if (record->info.state == SandboxState::Running)
                running.append(record);
        }
        QVERIFY(running.size() >= 2);
        view->selectionModel()->setCurrentIndex(proxy->mapFromSource(model->indexOfKey(running.at(0)->key())),
                                                QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        open->trigger();
        dialog = window->findChild<OpenDialog *>(QStringLiteral("openDialog"));
        QVERIFY(dialog);
        QCOMPARE(dialog->session(), console.session(QStringLiteral("team-a")));
        QVERIFY(!window->findChild<QInputDialog *>(QStringLiteral("openProfileDialog")));
        dialog->close();

        // Two running rows of Team A and one of the read-only Team B, paused together: the
        // confirmation says the read-only one is skipped, and why.
        const WorkspaceRecord *fromB = nullptr;
        for (const WorkspaceRecord *record : model->recordsUnder(groupOf(model, QStringLiteral("team-b")))) {
            if (record->info.state == SandboxState::Running)
                fromB = record;
        }
        QVERIFY(fromB);
        QItemSelection selection;
        for (const WorkspaceRecord *record : {running.at(0), running.at(1), fromB}) {
            const QModelIndex index = proxy->mapFromSource(model->indexOfKey(record->key()));
            selection.select(index, index);
        }
        view->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        auto *pause = window->findChild<QAction *>(QStringLiteral("actionPause"));
        QTRY_VERIFY(pause->isEnabled());
        QString said;
        QString asked;
        QTimer::singleShot(0, this, [window, &said, &asked] {
            auto *confirm = window->findChild<ConfirmDialog *>(QStringLiteral("confirmAction"));
            QVERIFY(confirm);
            asked = confirm->text();
            said = confirm->informativeText();
            confirm->reject();
        });
        pause->trigger();
        QTRY_VERIFY(!said.isEmpty());
        QCOMPARE(said, QStringLiteral("1 selected workspace is in a read-only profile and is skipped."));
        QVERIFY2(asked.startsWith(QStringLiteral("Pause 2 workspaces")), qPrintable(asked));

        // One of Team A's and the read-only one: done without asking, and the summary says so.
        QItemSelection two;
        for (const WorkspaceRecord *record : {running.at(0), fromB}) {
            const QModelIndex index = proxy->mapFromSource(model->indexOfKey(record->key()));
            two.select(index, index);
        }
        view->selectionModel()->select(two, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        QSignalSpy finished(window->actions(), &WorkspaceActionController::finished);
        pause->trigger();
        QTRY_COMPARE(finished.size(), 1);
        QCOMPARE(finished.constFirst().at(0).toString(),
                 QStringLiteral("1 of 1 workspace done; 1 skipped (read-only profile)"));
    }
};

QTEST_MAIN(TestAllProfiles)
#include "tst_allprofiles.moc"
