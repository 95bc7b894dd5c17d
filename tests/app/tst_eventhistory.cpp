// The event history: a real local profile session's actions (open, pause, resume, kill) and its
// sweeper's close land with who did them; changes made behind the console's back (another session
// on the same folder, a folder deleted as paddockctl kill would) are seen at the next refresh as
// Elsewhere, once, and the console's own never twice; the first listing is a baseline, a failed
// listing loses nothing; the file survives a restart (the Console's too), skips a corrupt line,
// keeps its bound, says once that it cannot be written; the CSV export's bytes; the filters; a
// double-click selects the workspace.

#include "backends/local/localbackend.h"
#include "bootstraplog.h"
#include "console.h"
#include "consoleevents.h"
#include "eventhistory.h"
#include "eventhistorydock.h"
#include "eventhistorymodel.h"
#include "mainwindow.h"
#include "observedchanges.h"
#include "profilesession.h"
#include "scriptedbackend.h"
#include "secretstore.h"
#include "testsession.h"
#include "workspacetreemodel.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QAbstractItemModelTester>
#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

using namespace Paddock;
using namespace std::chrono_literals;
using Kind = ConsoleEvent::Kind;
using Actor = ConsoleEvent::Actor;

namespace {

// A workspace as another process left it (paddockctl, AgentScope).
void leaveWorkspace(const QString &basedir, const QString &id, const QString &state)
{
    QVERIFY(QDir().mkpath(basedir + u'/' + id + QStringLiteral("/.paddock")));
    QFile metadata(basedir + u'/' + id + QStringLiteral("/.paddock/workspace.json"));
    QVERIFY(metadata.open(QIODevice::WriteOnly));
    metadata.write(QStringLiteral(R"({"workspaceId":"%1","userId":"u","agentId":"a","state":"%2",
                                      "createdAt":"2026-11-30T01:00:00.000Z"})")
                       .arg(id, state)
                       .toUtf8());
}

// Every event emitted, in order.
struct Recorder
{
    explicit Recorder(ConsoleEvents *events)
    {
        QObject::connect(events, &ConsoleEvents::occurred, &context,
                         [this](const ConsoleEvent &event) { seen.append(event); });
    }
    QList<ConsoleEvent> of(const QString &workspaceId) const
    {
        QList<ConsoleEvent> out;
        for (const ConsoleEvent &event : seen) {
            if (event.workspaceId == workspaceId)
                out.append(event);
        }
        return out;
    }
    QList<Kind> kinds(const QString &workspaceId) const
    {
        QList<Kind> out;
        for (const ConsoleEvent &event : of(workspaceId))
            out.append(event.kind);
        return out;
    }
    QObject context;
    QList<ConsoleEvent> seen;
};

ConsoleEvent eventOf(Kind kind, const QString &workspace, const QString &detail = {})
{
    ConsoleEvent out;
    out.time = QDateTime(QDate(2026, 12, 6), QTime(2, 30, 1, 250), Qt::UTC);
    out.profileId = QStringLiteral("local");
    out.profileName = QStringLiteral("本地");
    out.workspaceId = workspace;
    out.sandboxId = QStringLiteral("sbx-") + workspace;
    out.kind = kind;
    out.detail = detail;
    return out;
}

SandboxInfo sandboxOf(const QString &id, SandboxState state, std::optional<QDateTime> expiresAt = std::nullopt)
{
    SandboxInfo info;
    info.sandboxId = QStringLiteral("sbx-") + id;
    info.workspaceId = id;
    info.userId = QStringLiteral("u");
    info.agentId = QStringLiteral("a");
    info.state = state;
    info.rawState = sandboxStateName(state);
    info.backend = QStringLiteral("scripted");
    info.createdAt = QDateTime(QDate(2026, 11, 30), QTime(1, 0), Qt::UTC);
    info.expiresAt = std::move(expiresAt);
    info.metadata.insert(WorkspaceIdKey, id);
    info.fingerprint = fingerprintOf(info);
    return info;
}

void refreshNow(MainWindow &window)
{
    QSignalSpy refreshed(&window, &MainWindow::refreshed);
    window.findChild<QAction *>(QStringLiteral("actionRefresh"))->trigger();
    // (A listing already at hand ends the refresh before trigger() returns.)
    QVERIFY(!refreshed.isEmpty() || refreshed.wait());
}

} // namespace

class TestEventHistory : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void actionsOfTheConsoleLandWithActorConsole()
    {
        QTemporaryDir dir;
        BootstrapLogStore logs(dir.filePath(QStringLiteral("logs")));
        PaddockTest::TestSession local(
            std::make_unique<LocalBackend>(LocalOptions{dir.filePath(QStringLiteral("ws")), false}), Profile::local(),
            &logs);
        ConsoleEvents events;
        events.attach(local.get());
        EventHistoryModel model;
        QAbstractItemModelTester tester(&model);
        QObject::connect(&events, &ConsoleEvents::occurred, &model, &EventHistoryModel::append);
        EventHistory history(dir.filePath(QStringLiteral("events.jsonl")));
        QObject::connect(&events, &ConsoleEvents::occurred, &history, &EventHistory::append);
        Recorder recorder(&events);

        WorkspaceRequest request;
        request.userId = QStringLiteral("alice");
        request.agentId = QStringLiteral("ops");
        const auto opened = QCoro::waitFor(local->open(request));
        QVERIFY(opened.has_value());
        const QString id = (*opened)->id();
        auto found = QCoro::waitFor(local->find(id));
        QVERIFY(found.has_value());
        QVERIFY(QCoro::waitFor(local->pause(*found)).has_value());
        QVERIFY(QCoro::waitFor(local->resume(*found)).has_value());
        QVERIFY(QCoro::waitFor(local->kill(*found)).has_value());

        QCOMPARE(recorder.kinds(id),
                 (QList<Kind>{Kind::Opening, Kind::Opened, Kind::Paused, Kind::Resumed, Kind::Killed}));
        quint64 seq = 0;
        for (const ConsoleEvent &seen : recorder.of(id)) {
            QCOMPARE(seen.actor, Actor::Console);
            QCOMPARE(seen.profileId, QStringLiteral("local"));
            QCOMPARE(seen.profileName, Profile::local().displayName());
            QVERIFY(seen.time.isValid());
            QCOMPARE(seen.time.timeSpec(), Qt::UTC);
            QVERIFY(seen.seq > seq); // numbered in order
            seq = seen.seq;
        }
        QCOMPARE(recorder.of(id).at(2).sandboxId, found->sandboxId);
        QCOMPARE(recorder.of(id).at(2).action, std::optional(WorkspaceAction::Pause));
        QCOMPARE(qsizetype(model.rowCount()), recorder.seen.size());
        QCOMPARE(model.index(2, EventHistoryModel::EventColumn).data().toString(), QStringLiteral("Paused"));
        QCOMPARE(model.index(2, EventHistoryModel::ActorColumn).data().toString(), QStringLiteral("This console"));

        // Kept on disk, as JSON Lines.
        history.flush();
        QFile file(history.path());
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = file.readAll().split('\n');
        QCOMPARE(lines.size(), recorder.seen.size() + 1); // the last newline
        QVERIFY(lines.at(2).contains("\"kind\":\"paused\""));
        QVERIFY(lines.at(2).contains("\"actor\":\"console\""));
        local.shutdown();
    }

    void theSweepersCloseIsTheSweepers()
    {
        QTemporaryDir dir;
        BootstrapLogStore logs(dir.filePath(QStringLiteral("logs")));
        Profile profile = Profile::local();
        profile.ttl = 1s;
        profile.sweepInterval = 1s;
        PaddockTest::TestSession local(
            std::make_unique<LocalBackend>(LocalOptions{dir.filePath(QStringLiteral("ws")), false}), profile, &logs);
        ConsoleEvents events;
        events.attach(local.get());
        Recorder recorder(&events);
        WorkspaceRequest request;
        request.userId = QStringLiteral("alice");
        request.agentId = QStringLiteral("ops");
        const auto opened = QCoro::waitFor(local->open(request));
        QVERIFY(opened.has_value());
        const QString id = (*opened)->id();
        QTRY_VERIFY_WITH_TIMEOUT(recorder.kinds(id).contains(Kind::Closed), 20000);
        const ConsoleEvent closed = recorder.of(id).constLast();
        QCOMPARE(closed.kind, Kind::Closed);
        QCOMPARE(closed.actor, Actor::Sweeper);
        QVERIFY(!closed.action);
        QCOMPARE(ConsoleEvent::actorText(closed.actor), QStringLiteral("Idle sweeper"));

        // A close at the session's end is the console's own.
        const auto again = QCoro::waitFor(local->open(request));
        QVERIFY(again.has_value());
        const qsizetype before = recorder.of(id).size();
        local.shutdown();
        const QList<ConsoleEvent> after = recorder.of(id).mid(before);
        QVERIFY(!after.isEmpty());
        QCOMPARE(after.constLast().kind, Kind::Closed);
        QCOMPARE(after.constLast().actor, Actor::Console);
    }

    void changesBehindTheConsolesBackAreSeenOnce()
    {
        QTemporaryDir dir;
        const QString basedir = dir.filePath(QStringLiteral("ws"));
        leaveWorkspace(basedir, QStringLiteral("theirs"), QStringLiteral("Running"));
        leaveWorkspace(basedir, QStringLiteral("doomed"), QStringLiteral("Paused"));
        leaveWorkspace(basedir, QStringLiteral("mine"), QStringLiteral("Running"));
        BootstrapLogStore logs(dir.filePath(QStringLiteral("logs")));
        PaddockTest::TestSession local(std::make_unique<LocalBackend>(LocalOptions{basedir, false}), Profile::local(),
                                       &logs);
        ConsoleEvents events;
        events.attach(local.get());
        Recorder recorder(&events);
        MainWindow window;
        window.setEvents(&events, nullptr);
        window.setSession(local.get());
        window.show();
        QTRY_COMPARE(window.model()->workspaceCount(), 3);
        refreshNow(window);
        QVERIFY2(recorder.seen.isEmpty(), "the first listing is a baseline, not three appearances");

        // Another session on the same folder (as paddockctl would) pauses one; a folder goes as
        // paddockctl kill deletes it; a workspace is made by another process.
        PaddockTest::TestSession other(std::make_unique<LocalBackend>(LocalOptions{basedir, false}));
        const auto theirs = QCoro::waitFor(other->find(QStringLiteral("theirs")));
        QVERIFY(theirs.has_value());
        QVERIFY(QCoro::waitFor(other->pause(*theirs)).has_value());
        QVERIFY(QDir(basedir + QStringLiteral("/doomed")).removeRecursively());
        leaveWorkspace(basedir, QStringLiteral("new"), QStringLiteral("Running"));
        // And the console pauses one itself.
        const auto mine = QCoro::waitFor(local->find(QStringLiteral("mine")));
        QVERIFY(mine.has_value());
        QVERIFY(QCoro::waitFor(local->pause(*mine)).has_value());
        QCOMPARE(recorder.kinds(QStringLiteral("mine")), QList<Kind>{Kind::Paused});

        refreshNow(window);
        QCOMPARE(recorder.kinds(QStringLiteral("theirs")), QList<Kind>{Kind::StateChanged});
        const ConsoleEvent paused = recorder.of(QStringLiteral("theirs")).constFirst();
        QCOMPARE(paused.actor, Actor::Elsewhere);
        QCOMPARE(paused.from, std::optional(SandboxState::Running));
        QCOMPARE(paused.to, std::optional(SandboxState::Paused));
        QCOMPARE(paused.profileName, Profile::local().displayName());
        QCOMPARE(paused.detailText(), QStringLiteral("Running → Paused"));
        QCOMPARE(recorder.kinds(QStringLiteral("doomed")), QList<Kind>{Kind::Vanished}); // no expiry: deleted
        QCOMPARE(recorder.of(QStringLiteral("doomed")).constFirst().actor, Actor::Elsewhere);
        QCOMPARE(recorder.of(QStringLiteral("doomed")).constFirst().kindText(), QStringLiteral("Deleted elsewhere"));
        QCOMPARE(recorder.kinds(QStringLiteral("new")), QList<Kind>{Kind::Appeared});
        // The console's own pause is its own event only, never also "elsewhere".
        QCOMPARE(recorder.kinds(QStringLiteral("mine")), QList<Kind>{Kind::Paused});

        // Once: the next listing, unchanged, adds nothing.
        const qsizetype count = recorder.seen.size();
        refreshNow(window);
        QCOMPARE(recorder.seen.size(), count);
        other.shutdown();
        local.shutdown();
    }

    void aFailedListingLosesNothingAndExpiryIsTold()
    {
        auto backend = std::make_unique<PaddockTest::ScriptedBackend>();
        const QDateTime past = QDateTime::currentDateTimeUtc().addSecs(-60);
        backend->sandboxes = {sandboxOf(QStringLiteral("a"), SandboxState::Running, past),
                              sandboxOf(QStringLiteral("b"), SandboxState::Running),
                              sandboxOf(QStringLiteral("c"), SandboxState::Running)};
        PaddockTest::TestSession scripted(std::move(backend), PaddockTest::testProfile(QStringLiteral("srv")));
        ConsoleEvents events;
        events.attach(scripted.get());
        Recorder recorder(&events);
        MainWindow window;
        window.setEvents(&events, nullptr);
        window.setSession(scripted.get());
        window.show();
        QTRY_COMPARE(window.model()->workspaceCount(), 3);

        // The server is down: nothing vanished.
        scripted.backend.listError = Error{Error::Kind::Unreachable, QStringLiteral("connection refused")};
        QSignalSpy refreshed(&window, &MainWindow::refreshed);
        window.findChild<QAction *>(QStringLiteral("actionRefresh"))->trigger();
        QVERIFY(!refreshed.isEmpty() || refreshed.wait());
        QCOMPARE(refreshed.constLast().constFirst().toBool(), false);
        QVERIFY(recorder.seen.isEmpty());

        // Back, with two gone: the one whose expiry passed expired, the other was deleted.
        scripted.backend.listError.reset();
        scripted.backend.sandboxes.removeFirst();
        scripted.backend.sandboxes.removeFirst();
        refreshNow(window);
        QCOMPARE(recorder.kinds(QStringLiteral("a")), QList<Kind>{Kind::Expired});
        QCOMPARE(recorder.kinds(QStringLiteral("b")), QList<Kind>{Kind::Vanished});
        QCOMPARE(recorder.of(QStringLiteral("a")).constFirst().from, std::optional(SandboxState::Running));
        QVERIFY(recorder.kinds(QStringLiteral("c")).isEmpty());

        // A watch's report goes the same way: a change in a transition is said once it settles.
        WorkspaceTreeModel *model = window.model();
        model->applyChanges(QStringLiteral("srv"), {sandboxOf(QStringLiteral("c"), SandboxState::Pausing)}, {}, {});
        QVERIFY(recorder.kinds(QStringLiteral("c")).isEmpty());
        model->applyChanges(QStringLiteral("srv"), {sandboxOf(QStringLiteral("c"), SandboxState::Paused)}, {}, {});
        QCOMPARE(recorder.kinds(QStringLiteral("c")), QList<Kind>{Kind::StateChanged});
        QCOMPARE(recorder.of(QStringLiteral("c")).constFirst().from, std::optional(SandboxState::Running));

        // A profile shown again (its rows dropped) starts from a baseline: no vanishing, no
        // appearing.
        const qsizetype count = recorder.seen.size();
        model->removeProfile(QStringLiteral("srv"));
        model->update(QStringLiteral("srv"), {sandboxOf(QStringLiteral("x"), SandboxState::Running)}, {});
        QCOMPARE(recorder.seen.size(), count);
        model->update(QStringLiteral("srv"),
                      {sandboxOf(QStringLiteral("x"), SandboxState::Running),
                       sandboxOf(QStringLiteral("y"), SandboxState::Running)},
                      {});
        QCOMPARE(recorder.kinds(QStringLiteral("y")), QList<Kind>{Kind::Appeared});
        scripted.shutdown();
    }

    void theClockThatJumpsIsSaidOnce()
    {
        QDateTime wall = QDateTime(QDate(2026, 12, 6), QTime(3, 0), Qt::UTC);
        qint64 elapsed = 0;
        ConsoleEvents events;
        events.setClocks([&wall] { return wall; }, [&elapsed] { return elapsed; });
        Recorder recorder(&events);
        events.record(eventOf(Kind::Appeared, QStringLiteral("one")));
        wall = wall.addSecs(10);
        elapsed += 10000;
        events.record(eventOf(Kind::Appeared, QStringLiteral("two")));
        QCOMPARE(recorder.seen.size(), 2);
        wall = wall.addSecs(-3600); // an hour back
        events.record(eventOf(Kind::Appeared, QStringLiteral("three")));
        QCOMPARE(recorder.seen.size(), 4);
        QCOMPARE(recorder.seen.at(2).kind, Kind::ClockJumped);
        QVERIFY2(recorder.seen.at(2).detail.contains(QLatin1String("back")), qPrintable(recorder.seen.at(2).detail));
        wall = wall.addSecs(7200);
        events.record(eventOf(Kind::Appeared, QStringLiteral("four")));
        QCOMPARE(recorder.seen.size(), 5); // said once
        QVERIFY(events.clockJumped());

        // After it, a vanished row is not told expired: that is not known.
        WorkspaceTreeModel model;
        events.watch(&model);
        model.update(QStringLiteral("p"), {sandboxOf(QStringLiteral("e"), SandboxState::Running, wall.addSecs(-5))},
                     {});
        events.observedChanges()->setClock([&wall] { return wall; });
        model.update(QStringLiteral("p"), QList<SandboxInfo>{}, {});
        QCOMPARE(recorder.kinds(QStringLiteral("e")), QList<Kind>{Kind::Vanished});
        QVERIFY(!recorder.of(QStringLiteral("e")).constFirst().detail.isEmpty());
    }

    void historySurvivesARestartAndSkipsWhatIsBroken()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("data/events.jsonl"));
        {
            EventHistory history(path);
            history.append(eventOf(Kind::Paused, QStringLiteral("one")));
            history.append(
                eventOf(Kind::ActionFailed, QStringLiteral("two"), QStringLiteral("没有, \"quoted\"\nline")));
            ConsoleEvent seen = eventOf(Kind::StateChanged, QStringLiteral("three"));
            seen.actor = Actor::Elsewhere;
            seen.from = SandboxState::Running;
            seen.to = SandboxState::Paused;
            history.append(seen);
        } // written as it goes
        // A line that is not an event, and a last one cut short by a crash.
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::Append));
            file.write("{not json\n");
            file.write("{\"time\":\"2026-12-06T02:30:01.250Z\",\"kind\":\"paus");
        }
        EventHistory again(path);
        QSignalSpy loaded(&again, &EventHistory::loaded);
        again.load();
        QVERIFY(loaded.wait());
        const auto events = loaded.constFirst().at(0).value<QList<ConsoleEvent>>();
        QCOMPARE(loaded.constFirst().at(1).toInt(), 2);
        QCOMPARE(again.skippedLines(), 2);
        QCOMPARE(events.size(), 3);
        QCOMPARE(events.at(0).kind, Kind::Paused);
        QCOMPARE(events.at(0).time, QDateTime(QDate(2026, 12, 6), QTime(2, 30, 1, 250), Qt::UTC));
        QCOMPARE(events.at(0).profileName, QStringLiteral("本地"));
        QCOMPARE(events.at(1).detail, QStringLiteral("没有, \"quoted\"\nline"));
        QCOMPARE(events.at(2).actor, Actor::Elsewhere);
        QCOMPARE(events.at(2).from, std::optional(SandboxState::Running));
        QCOMPARE(events.at(2).to, std::optional(SandboxState::Paused));
        // A new event after the cut line starts a line of its own: nothing is lost.
        again.append(eventOf(Kind::Resumed, QStringLiteral("four")));
        again.flush();
        EventHistory third(path);
        QSignalSpy reloaded(&third, &EventHistory::loaded);
        third.load();
        QVERIFY(reloaded.wait());
        const auto all = reloaded.constFirst().at(0).value<QList<ConsoleEvent>>();
        QCOMPARE(all.size(), 4);
        QCOMPARE(all.constLast().workspaceId, QStringLiteral("four"));
        QCOMPARE(reloaded.constFirst().at(1).toInt(), 2);

        // The dock says so once, above the table, and shows the older events first.
        EventHistoryDock dock;
        EventHistory fourth(path);
        ConsoleEvents live;
        dock.setSource(&live, &fourth);
        live.record(eventOf(Kind::Opened, QStringLiteral("now")));
        fourth.load();
        QTRY_COMPARE(dock.model()->rowCount(), 5);
        QCOMPARE(dock.model()->event(0).workspaceId, QStringLiteral("one"));
        QCOMPARE(dock.model()->event(4).workspaceId, QStringLiteral("now"));
        QCOMPARE(
            dock.note(),
            EventHistoryDock::tr("%n line(s) of the event history could not be read and were skipped.", nullptr, 2));
    }

    void aFolderThatCannotBeWrittenIsSaidOnce()
    {
        QTemporaryDir dir;
        QFile blocker(dir.filePath(QStringLiteral("paddock")));
        QVERIFY(blocker.open(QIODevice::WriteOnly)); // a file where the folder should be
        blocker.close();
        EventHistory history(dir.filePath(QStringLiteral("paddock/events.jsonl")));
        QSignalSpy problems(&history, &EventHistory::problemChanged);
        EventHistoryDock dock;
        ConsoleEvents events;
        dock.setSource(&events, &history);
        QObject::connect(&events, &ConsoleEvents::occurred, &history, &EventHistory::append);
        events.record(eventOf(Kind::Paused, QStringLiteral("one")));
        history.flush();
        QTRY_COMPARE(problems.size(), 1);
        QVERIFY2(history.problem().contains(QLatin1String("paddock/events.jsonl")), qPrintable(history.problem()));
        events.record(eventOf(Kind::Resumed, QStringLiteral("one")));
        history.flush();
        QTRY_COMPARE(dock.model()->rowCount(), 2); // the events stay shown
        QCOMPARE(problems.size(), 1); // said once
        QCOMPARE(dock.note(), history.problem());
    }

    void theBoundHolds()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("events.jsonl"));
        {
            EventHistory history(path, 10);
            for (int i = 0; i < 23; ++i) {
                history.append(eventOf(Kind::Paused, QString::number(i)));
                if (i % 2 == 1)
                    history.flush();
            }
        }
        const auto lines = [](const QString &file) {
            QFile f(file);
            return f.open(QIODevice::ReadOnly) ? int(f.readAll().count('\n')) : 0;
        };
        QVERIFY2(lines(path) < 5, qPrintable(QString::number(lines(path))));
        QVERIFY(lines(path + QStringLiteral(".1")) >= 5);
        QVERIFY(lines(path) + lines(path + QStringLiteral(".1")) <= 11);
        EventHistory again(path, 10);
        QSignalSpy loaded(&again, &EventHistory::loaded);
        again.load();
        QVERIFY(loaded.wait());
        const auto events = loaded.constFirst().at(0).value<QList<ConsoleEvent>>();
        QVERIFY(events.size() >= 5 && events.size() <= 10);
        QCOMPARE(events.constLast().workspaceId, QStringLiteral("22")); // the newest kept
        QCOMPARE(events.constFirst().workspaceId, QString::number(23 - events.size()));

        // The table too: past the bound by a tenth of it, back to the bound, in place.
        EventHistoryModel model(20);
        QAbstractItemModelTester tester(&model);
        for (int i = 0; i < 60; ++i) {
            model.append(eventOf(Kind::Paused, QString::number(i)));
            QVERIFY(model.rowCount() <= 22);
        }
        QCOMPARE(model.event(model.rowCount() - 1).workspaceId, QStringLiteral("59"));
    }

    void csvExportIsExact()
    {
        QList<ConsoleEvent> events;
        events.append(eventOf(Kind::Paused, QStringLiteral("ws, with comma")));
        ConsoleEvent failed =
            eventOf(Kind::ActionFailed, QStringLiteral("ws-2"), QStringLiteral("said \"no\"\nthen 不行"));
        failed.action = WorkspaceAction::Kill;
        events.append(failed);
        ConsoleEvent changed = eventOf(Kind::StateChanged, QStringLiteral("ws-3"));
        changed.actor = Actor::Elsewhere;
        changed.from = SandboxState::Running;
        changed.to = SandboxState::Paused;
        events.append(changed);
        const QByteArray expected = QByteArrayLiteral("\xEF\xBB\xBF")
            + QStringLiteral("Time (UTC),Profile,Workspace,Sandbox,Event,By,From,To,Detail\r\n"
                             "2026-12-06T02:30:01.250Z,本地,\"ws, with comma\",\"sbx-ws, with comma\",Paused,This "
                             "console,,,\r\n"
                             "2026-12-06T02:30:01.250Z,本地,ws-2,sbx-ws-2,Kill failed,This console,,,\"said "
                             "\"\"no\"\"\nthen 不行\"\r\n"
                             "2026-12-06T02:30:01.250Z,本地,ws-3,sbx-ws-3,Now Paused,Elsewhere,Running,Paused,\r\n")
                  .toUtf8();
        QCOMPARE(EventHistory::toCsv(events), expected);

        // Through the dock: what the filters show, written whole; a failed write says why.
        EventHistoryDock dock;
        for (const ConsoleEvent &one : std::as_const(events))
            dock.model()->append(one);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("out.csv"));
        QCOMPARE(dock.exportCsv(path), QString());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), expected);
        const QString failedWrite = dock.exportCsv(dir.filePath(QStringLiteral("no/such/folder/out.csv")));
        QVERIFY(failedWrite.contains(QLatin1String("no/such/folder/out.csv")));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("no/such/folder/out.csv"))));
    }

    void theFilters()
    {
        EventHistoryDock dock;
        ConsoleEvent a = eventOf(Kind::Paused, QStringLiteral("alpha"));
        ConsoleEvent b = eventOf(Kind::StateChanged, QStringLiteral("beta"));
        b.actor = Actor::Elsewhere;
        b.to = SandboxState::Running;
        b.profileId = QStringLiteral("srv");
        b.profileName = QStringLiteral("Server");
        ConsoleEvent c = eventOf(Kind::Closed, QStringLiteral("gamma"));
        c.actor = Actor::Sweeper;
        for (const ConsoleEvent &one : {a, b, c})
            dock.model()->append(one);
        QAbstractItemModelTester tester(dock.filter());
        QCOMPARE(dock.filter()->rowCount(), 3);
        // Newest first.
        QCOMPARE(dock.filter()->index(0, EventHistoryModel::WorkspaceColumn).data().toString(),
                 QStringLiteral("gamma"));

        dock.filterEdit()->setText(QStringLiteral("ALP"));
        QCOMPARE(dock.filter()->rowCount(), 1);
        dock.filterEdit()->setText(QStringLiteral("sbx-beta")); // the sandbox id too
        QCOMPARE(dock.filter()->rowCount(), 1);
        dock.filterEdit()->clear();

        QCOMPARE(dock.profileBox()->count(), 3); // all, and the two seen
        dock.profileBox()->setCurrentIndex(dock.profileBox()->findData(QStringLiteral("srv")));
        QCOMPARE(dock.filter()->rowCount(), 1);
        QCOMPARE(dock.filter()->shownEvents().constFirst().workspaceId, QStringLiteral("beta"));
        dock.profileBox()->setCurrentIndex(0);

        dock.kindBox()->setCurrentIndex(dock.kindBox()->findData(int(Kind::Closed)));
        QCOMPARE(dock.filter()->rowCount(), 1);
        dock.kindBox()->setCurrentIndex(0);

        dock.actorBox()->setCurrentIndex(dock.actorBox()->findData(int(Actor::Elsewhere)));
        QCOMPARE(dock.filter()->rowCount(), 1);
        dock.actorBox()->setCurrentIndex(dock.actorBox()->findData(int(Actor::Console)));
        QCOMPARE(dock.filter()->rowCount(), 1);
        QCOMPARE(dock.filter()->shownEvents().constFirst().workspaceId, QStringLiteral("alpha"));
        dock.actorBox()->setCurrentIndex(0);
        QCOMPARE(dock.filter()->rowCount(), 3);
    }

    void theConsoleKeepsItsEventsAcrossARestart()
    {
        QTemporaryDir dir;
        const QString basedir = dir.filePath(QStringLiteral("workspaces"));
        leaveWorkspace(basedir, QStringLiteral("w1"), QStringLiteral("Running"));
        QSettings settings(dir.filePath(QStringLiteral("paddock.conf")), QSettings::IniFormat);
        {
            ProfileStore store(&settings);
            Profile local = store.profiles().constFirst();
            local.basedir = basedir;
            QVERIFY(store.save(local));
        }
        MemorySecretStore secrets;
        const QString logs = dir.filePath(QStringLiteral("data/paddock/logs"));
        {
            Console console(&settings, &secrets, logs);
            QCOMPARE(console.history()->path(), dir.filePath(QStringLiteral("data/paddock/events.jsonl")));
            console.window()->show();
            QCoro::waitFor(console.start());
            QTRY_COMPARE(console.window()->model()->workspaceCount(), 1);
            ProfileSession *session = console.session(QStringLiteral("local"));
            QVERIFY(session);
            const auto w1 = QCoro::waitFor(session->find(QStringLiteral("w1")));
            QVERIFY(w1.has_value());
            QVERIFY(QCoro::waitFor(session->pause(*w1)).has_value());
            QTRY_COMPARE(console.window()->eventHistoryDock()->model()->rowCount(), 1);
            QCoro::waitFor(console.shutdown());
        } // the history is written as the console goes
        Console again(&settings, &secrets, logs);
        EventHistoryModel *model = again.window()->eventHistoryDock()->model();
        QTRY_COMPARE(model->rowCount(), 1);
        QCOMPARE(model->event(0).kind, Kind::Paused);
        QCOMPARE(model->event(0).workspaceId, QStringLiteral("w1"));
        QCOMPARE(model->event(0).actor, Actor::Console);
        QCOMPARE(model->event(0).profileId, QStringLiteral("local"));
    }

    void theDockInTheWindow()
    {
        QTemporaryDir dir;
        const QString basedir = dir.filePath(QStringLiteral("ws"));
        leaveWorkspace(basedir, QStringLiteral("one"), QStringLiteral("Running"));
        leaveWorkspace(basedir, QStringLiteral("two"), QStringLiteral("Paused"));
        PaddockTest::TestSession local(std::make_unique<LocalBackend>(LocalOptions{basedir, false}));
        ConsoleEvents events;
        events.attach(local.get());
        MainWindow window(local.get());
        window.setEvents(&events, nullptr);
        window.show();
        QTRY_COMPARE(window.model()->workspaceCount(), 2);

        // View > Event History, Ctrl+Shift+H.
        EventHistoryDock *dock = window.eventHistoryDock();
        QVERIFY(!dock->isVisible());
        QAction *toggle = dock->toggleViewAction();
        QCOMPARE(toggle->shortcut(), QKeySequence(QStringLiteral("Ctrl+Shift+H")));
        toggle->trigger();
        QVERIFY(dock->isVisible());

        // An event of the console shows; double-clicking it selects its workspace.
        const auto two = QCoro::waitFor(local->find(QStringLiteral("two")));
        QVERIFY(two.has_value());
        QVERIFY(QCoro::waitFor(local->resume(*two)).has_value());
        QTRY_COMPARE(dock->model()->rowCount(), 1);
        QSignalSpy activated(dock, &EventHistoryDock::workspaceActivated);
        const QModelIndex row = dock->filter()->index(0, EventHistoryModel::EventColumn);
        dock->view()->scrollTo(row);
        const QPoint at = dock->view()->visualRect(row).center();
        QVERIFY(dock->view()->viewport()->rect().contains(at));
        QTest::mouseClick(dock->view()->viewport(), Qt::LeftButton, {}, at);
        QTest::mouseDClick(dock->view()->viewport(), Qt::LeftButton, {}, at);
        QCOMPARE(activated.size(), 1);
        auto *tree = window.findChild<QTreeView *>(QStringLiteral("workspaceView"));
        QCOMPARE(tree->currentIndex().data(WorkspaceTreeModel::WorkspaceIdRole).toString(), QStringLiteral("two"));
        QVERIFY(!window.selectWorkspace(QStringLiteral("local"), QStringLiteral("nope"), QStringLiteral("nope")));
        local.shutdown();
    }
};

QTEST_MAIN(TestEventHistory)
#include "tst_eventhistory.moc"
