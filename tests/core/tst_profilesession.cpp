#include "profilesession.h"

// moc cannot parse <concepts> and <coroutine>, and needs nothing from them.
#ifndef Q_MOC_RUN
#include "backends/local/localbackend.h"
#include "bootstraplog.h"
#include "bulk.h"
#include "canceltoken.h"
#include "fakeopensandboxprocess.h"
#include "isolation.h"
#include "scriptedbackend.h"
#include "testsession.h"
#include <QCoroTask>
#include <QCoroTimer>
#endif

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <memory>
#include <vector>

using namespace Paddock;
using namespace PaddockTest;
using namespace std::chrono_literals;

namespace {

WorkspaceRequest request(const QString &user, const QString &agent)
{
    WorkspaceRequest request;
    request.userId = user;
    request.agentId = agent;
    return request;
}

Profile localProfile(const QString &basedir)
{
    Profile profile = Profile::local();
    profile.basedir = basedir;
    return profile;
}

// An OpenSandbox profile for the fake server, bootstrapping nothing (an empty bootstrap file).
Profile serverProfile(const FakeOpenSandboxProcess &server, const QString &emptyBootstrap)
{
    Profile profile;
    profile.id = QStringLiteral("fake");
    profile.name = QStringLiteral("Fake");
    profile.kind = Profile::Kind::OpenSandbox;
    profile.domain = server.domain();
    profile.bootstrapFile = emptyBootstrap;
    return profile;
}

QString emptyFile(const QTemporaryDir &dir)
{
    const QString path = dir.filePath(QStringLiteral("empty-bootstrap.sh"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    return path;
}

SandboxInfo running(const QString &sandboxId, const QString &workspaceId)
{
    SandboxInfo info;
    info.sandboxId = sandboxId;
    info.workspaceId = workspaceId;
    info.userId = QStringLiteral("u");
    info.agentId = QStringLiteral("a");
    info.state = SandboxState::Running;
    info.rawState = QStringLiteral("Running");
    info.createdAt = QDateTime::currentDateTimeUtc();
    info.metadata.insert(WorkspaceIdKey, workspaceId);
    return info;
}

QList<WorkspaceEvent::Kind> kinds(const QSignalSpy &spy)
{
    QList<WorkspaceEvent::Kind> out;
    for (const QList<QVariant> &arguments : spy)
        out.append(arguments.constFirst().value<WorkspaceEvent>().kind);
    return out;
}

// A local backend whose container log streams: each follow gives one line, then stays open until
// its token is cancelled (seen within 10 ms, as a server's stream would notice) and ends Cancelled.
struct Streams
{
    int follows = 0;
    int tail = 0;
    int cancelled = 0;
};

class StreamingBackend final : public LocalBackend
{
public:
    StreamingBackend(LocalOptions options, std::shared_ptr<Streams> streams)
        : LocalBackend(std::move(options))
        , m_streams(std::move(streams))
    {
    }
    Capabilities capabilities() const override { return LocalBackend::capabilities() | Capability::ContainerLogStream; }
    QCoro::Task<Result<>> followContainerLog(QString, int tail, std::function<void(QByteArrayView)> onData,
                                             std::shared_ptr<CancelToken> cancel) override
    {
        const std::shared_ptr<Streams> streams = m_streams;
        ++streams->follows;
        streams->tail = tail;
        onData(QByteArrayView("2026-11-30T11:00:00Z a line\n"));
        while (!cancel || !cancel->isCancelled())
            co_await QCoro::sleepFor(std::chrono::milliseconds(10));
        ++streams->cancelled;
        co_return fail(Error{Error::Kind::Cancelled, QStringLiteral("cancelled")});
    }

private:
    std::shared_ptr<Streams> m_streams;
};

} // namespace

class TestProfileSession final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void pausingAnOpenWorkspaceClosesItThroughTheManager()
    {
        QTemporaryDir dir;
        BootstrapLogStore logs(dir.filePath(QStringLiteral("logs")));
        ProfileSession session(localProfile(dir.filePath(QStringLiteral("ws"))), {}, &logs);
        QSignalSpy events(&session, &ProfileSession::event);
        auto opened = QCoro::waitFor(session.open(request(QStringLiteral("u"), QStringLiteral("a"))));
        QVERIFY2(opened, qPrintable(opened ? QString() : opened.error().message));
        const QString id = (*opened)->id();
        QVERIFY(session.cached(id));
        auto listed = QCoro::waitFor(session.find(id));
        QVERIFY(listed);
        QCOMPARE(listed->state, SandboxState::Running);

        // A console Pause of a workspace the manager holds: the manager lets go of it, so the
        // next Open attaches again (resumes) instead of handing out a paused sandbox.
        QVERIFY(QCoro::waitFor(session.pause(*listed)));
        QVERIFY(!session.cached(id));
        QCOMPARE(QCoro::waitFor(session.find(id))->state, SandboxState::Paused);
        auto again = QCoro::waitFor(session.open(request(QStringLiteral("u"), QStringLiteral("a"))));
        QVERIFY(again);
        QVERIFY(again->get() != opened->get());
        QCOMPARE(QCoro::waitFor(session.find(id))->state, SandboxState::Running);
        const QList<WorkspaceEvent::Kind> seen = kinds(events);
        QCOMPARE(seen,
                 (QList<WorkspaceEvent::Kind>{WorkspaceEvent::Kind::Opening, WorkspaceEvent::Kind::Opened,
                                              WorkspaceEvent::Kind::Paused, WorkspaceEvent::Kind::Opening,
                                              WorkspaceEvent::Kind::Opened}));
        const auto paused = events.at(2).constFirst().value<WorkspaceEvent>();
        QCOMPARE(paused.profileId, QStringLiteral("local"));
        QCOMPARE(paused.workspaceId, id);
        QCOMPARE(paused.sandboxId, listed->sandboxId);
        QCOMPARE(paused.action, std::optional(WorkspaceAction::Pause));
        QVERIFY(paused.time.isValid());
        QCoro::waitFor(session.shutdown());
        // Shutting down closed it (paused), as the manager does; the session itself reads no more.
        QVERIFY(!QCoro::waitFor(session.find(id)));
        LocalBackend reader(LocalOptions{dir.filePath(QStringLiteral("ws")), false});
        QCOMPARE(QCoro::waitFor(reader.get(id))->state, SandboxState::Paused);
    }

    // The sweeper's closes say so (notifications tell them from a Close the user asked for);
    // the closes of the manager's stop at quit are the console's own.
    void theSweepersClosesAreToldApart()
    {
        QTemporaryDir dir;
        BootstrapLogStore logs(dir.filePath(QStringLiteral("logs")));
        Profile profile = localProfile(dir.filePath(QStringLiteral("ws")));
        profile.ttl = std::chrono::seconds(1);
        profile.sweepInterval = std::chrono::seconds(1);
        ProfileSession session(profile, {}, &logs);
        QSignalSpy events(&session, &ProfileSession::event);
        auto opened = QCoro::waitFor(session.open(request(QStringLiteral("u"), QStringLiteral("a"))));
        QVERIFY2(opened, qPrintable(opened ? QString() : opened.error().message));
        const QString id = (*opened)->id();
        QTRY_VERIFY_WITH_TIMEOUT(kinds(events).contains(WorkspaceEvent::Kind::Closed), 10000);
        const auto swept =
            events.at(kinds(events).indexOf(WorkspaceEvent::Kind::Closed)).constFirst().value<WorkspaceEvent>();
        QCOMPARE(swept.workspaceId, id);
        QCOMPARE(swept.actor, WorkspaceEvent::Actor::Sweeper);
        QVERIFY(!swept.action);

        QCoro::waitFor(session.shutdown());

        // A session whose sweeper does not get to it (the default TTL, an hour).
        ProfileSession quitting(localProfile(dir.filePath(QStringLiteral("ws"))), {}, &logs);
        QSignalSpy quitEvents(&quitting, &ProfileSession::event);
        auto again = QCoro::waitFor(quitting.open(request(QStringLiteral("u"), QStringLiteral("b"))));
        QVERIFY(again);
        quitEvents.clear();
        QCoro::waitFor(quitting.shutdown());
        QCOMPARE(kinds(quitEvents), (QList<WorkspaceEvent::Kind>{WorkspaceEvent::Kind::Closed}));
        QCOMPARE(quitEvents.constFirst().constFirst().value<WorkspaceEvent>().actor, WorkspaceEvent::Actor::Console);
    }

    void killIsTheManagersOwn()
    {
        QTemporaryDir dir;
        BootstrapLogStore logs(dir.filePath(QStringLiteral("logs")));
        ProfileSession session(localProfile(dir.filePath(QStringLiteral("ws"))), {}, &logs);
        auto opened = QCoro::waitFor(session.open(request(QStringLiteral("u"), QStringLiteral("a"))));
        QVERIFY(opened);
        const QString id = (*opened)->id();
        const auto sandbox = QCoro::waitFor(session.find(id));
        QVERIFY(sandbox);
        const QString folder = session.hostFolder(*sandbox);
        QVERIFY(QFileInfo(folder).isDir());
        QVERIFY(logs.recordOutcome(session.instanceKey(), id, false, QStringLiteral("it failed once")));
        QSignalSpy events(&session, &ProfileSession::event);

        QVERIFY(QCoro::waitFor(session.kill(*sandbox)));
        QVERIFY(!session.cached(id)); // nothing stale is left to hand out
        QVERIFY(!QFileInfo::exists(folder));
        QVERIFY(!BootstrapLogStore::readFailures(logs.folder(session.instanceKey())).contains(id));
        QCOMPARE(kinds(events), (QList<WorkspaceEvent::Kind>{WorkspaceEvent::Kind::Killed}));
        // The next Open makes it again.
        auto again = QCoro::waitFor(session.open(request(QStringLiteral("u"), QStringLiteral("a"))));
        QVERIFY(again);
        QVERIFY(QFileInfo(folder).isDir());
        QCoro::waitFor(session.shutdown());
    }

    void bulkJobsKeepEachItemsSandboxAndError()
    {
        QTemporaryDir dir;
        BootstrapLogStore logs(dir.filePath(QStringLiteral("logs")));
        ProfileSession session(localProfile(dir.filePath(QStringLiteral("ws"))), {}, &logs);
        QVERIFY(QCoro::waitFor(session.open(request(QStringLiteral("u"), QStringLiteral("a")))));
        auto all = QCoro::waitFor(session.list());
        QVERIFY(all && all->size() == 1);
        SandboxInfo missing = all->constFirst();
        missing.sandboxId = missing.workspaceId = QStringLiteral("not-there");
        QSignalSpy events(&session, &ProfileSession::event);
        QList<qsizetype> started;
        QList<qsizetype> finished;
        BulkProgress progress;
        progress.started = [&started](qsizetype i) { started.append(i); };
        progress.finished = [&finished](qsizetype i, const ItemResult &) { finished.append(i); };
        const QList<ItemResult> results = QCoro::waitFor(
            session.run(WorkspaceAction::Pause, {all->constFirst(), missing}, ActionOptions{}, progress));
        QCOMPARE(results.size(), 2);
        QVERIFY(results.at(0).ok());
        QCOMPARE(results.at(0).sandbox.sandboxId, all->constFirst().sandboxId);
        QVERIFY(!results.at(1).ok());
        QCOMPARE(results.at(1).sandbox.sandboxId, QStringLiteral("not-there"));
        QCOMPARE(results.at(1).error->kind, Error::Kind::NotFound);
        QCOMPARE(started, (QList<qsizetype>{0, 1}));
        QCOMPARE(finished.size(), 2);
        // The failure is an event too, with its error. The two items run at once (the local
        // backend's file work is on worker threads), so their events come in either order.
        QList<WorkspaceEvent::Kind> seen = kinds(events);
        std::sort(seen.begin(), seen.end());
        QCOMPARE(seen, (QList<WorkspaceEvent::Kind>{WorkspaceEvent::Kind::Paused, WorkspaceEvent::Kind::ActionFailed}));
        const qsizetype failedAt = kinds(events).indexOf(WorkspaceEvent::Kind::ActionFailed);
        const auto failed = events.at(failedAt).constFirst().value<WorkspaceEvent>();
        QCOMPARE(failed.action, std::optional(WorkspaceAction::Pause));
        QVERIFY(failed.error && failed.error->kind == Error::Kind::NotFound);
        QCoro::waitFor(session.shutdown());
    }

    void shutdownWaitsForEveryActionAndReportsWhatWasNotDone()
    {
        // A pause takes 1.5 s on this server (as on Kubernetes): shutting down meanwhile waits
        // for the pauses under way and reports the items never started as not done.
        FakeOpenSandboxProcess server;
        QVERIFY2(server.start({QStringLiteral("--pause-ms"), QStringLiteral("1500")}), qPrintable(server.error()));
        QTemporaryDir dir;
        BootstrapLogStore logs(dir.filePath(QStringLiteral("logs")));
        auto session = std::make_unique<ProfileSession>(serverProfile(server, emptyFile(dir)), QByteArray(), &logs);
        QVERIFY2(session->problem().isEmpty(), qPrintable(session->problem()));
        QList<SandboxInfo> sandboxes;
        for (int i = 0; i < ProfileSession::BulkConcurrency + 3; ++i) {
            auto opened = QCoro::waitFor(session->open(request(QStringLiteral("u"), QStringLiteral("a%1").arg(i))));
            QVERIFY2(opened, qPrintable(opened ? QString() : opened.error().message));
            auto found = QCoro::waitFor(session->find((*opened)->id()));
            QVERIFY(found);
            sandboxes.append(*found);
        }
        QList<ItemResult> results;
        bool jobDone = false;
        // Arguments, not captures: a coroutine lambda's captures die with the lambda.
        auto job = [](ProfileSession *s, QList<SandboxInfo> items, QList<ItemResult> *out,
                      bool *done) -> QCoro::Task<void> {
            *out = co_await s->run(WorkspaceAction::Pause, items);
            *done = true;
        }(session.get(), sandboxes, &results, &jobDone);
        QVERIFY(!jobDone); // the first BulkConcurrency pauses are under way
        bool shutDown = false;
        auto ending = [](ProfileSession *s, bool *done) -> QCoro::Task<void> {
            co_await s->shutdown(WorkspaceManager::StopMode::LeaveRunning);
            *done = true;
        }(session.get(), &shutDown);
        QVERIFY(session->isShuttingDown());
        // New work is refused at once, and says why.
        const auto refused = QCoro::waitFor(session->list());
        QVERIFY(!refused);
        QCOMPARE(refused.error().kind, Error::Kind::Cancelled);
        QVERIFY2(refused.error().message.contains(QLatin1String("was closed")), qPrintable(refused.error().message));

        QCoro::waitFor(ending);
        QVERIFY(shutDown);
        QVERIFY(jobDone); // the job ended before anything it used was freed
        QVERIFY(session->isShutDown());
        QCOMPARE(results.size(), sandboxes.size());
        int done = 0;
        int notDone = 0;
        for (const ItemResult &result : std::as_const(results)) {
            if (result.ok()) {
                ++done;
            } else {
                QCOMPARE(result.error->kind, Error::Kind::Cancelled);
                QVERIFY(result.error->message.contains(QLatin1String("not done")));
                ++notDone;
            }
        }
        QCOMPARE(done, ProfileSession::BulkConcurrency);
        QCOMPARE(notDone, 3);
        // Freeing it now touches nothing that still runs (the asan preset checks).
        session.reset();
        QCoro::waitFor(job);
    }

    // A read that the server holds unanswered (execd of a sandbox paused by someone else) does
    // not hold the shutdown to its timeouts: it ends as cancelled, and the shutdown with it.
    void shutdownLetsTheReadsUnderWayGo()
    {
        FakeOpenSandboxProcess server;
        QVERIFY2(server.start(), qPrintable(server.error()));
        QTemporaryDir dir;
        BootstrapLogStore logs(dir.filePath(QStringLiteral("logs")));
        auto session = std::make_unique<ProfileSession>(serverProfile(server, emptyFile(dir)), QByteArray(), &logs);
        auto opened = QCoro::waitFor(session->open(request(QStringLiteral("u"), QStringLiteral("reader"))));
        QVERIFY2(opened, qPrintable(opened ? QString() : opened.error().message));
        auto found = QCoro::waitFor(session->find((*opened)->id()));
        QVERIFY(found);
        QVERIFY(QCoro::waitFor(session->sessionsActivity(found->sandboxId))); // execd known

        // Paused elsewhere (another console): this session's reads of it are held.
        ProfileSession elsewhere(serverProfile(server, emptyFile(dir)), QByteArray(), &logs);
        const QList<ItemResult> paused = QCoro::waitFor(elsewhere.run(WorkspaceAction::Pause, {*found}));
        QVERIFY(paused.size() == 1 && paused.constFirst().ok());
        const auto execdRequests = [&server] { return server.stats().value(QLatin1String("execdRequests")).toInt(); };
        const int before = execdRequests();
        auto reading = session->sessionsActivity(found->sandboxId);
        QTRY_VERIFY(execdRequests() > before);
        QVERIFY(!reading.isReady());

        QCoro::waitFor(session->shutdown(WorkspaceManager::StopMode::LeaveRunning));
        QVERIFY(session->isShutDown());
        QVERIFY(reading.isReady());
        const auto read = QCoro::waitFor(std::move(reading));
        QVERIFY(!read);
        QCOMPARE(read.error().kind, Error::Kind::Cancelled);
        QCoro::waitFor(elsewhere.shutdown(WorkspaceManager::StopMode::LeaveRunning));
    }

    // exec runs only where it may: not on a read-only profile, not in a workspace that is not
    // running (said as paused, never resumed behind the caller's back), not without Exec; a
    // cancel stops it; a shutdown stops the commands still running instead of waiting for them.
    void execIsRefusedWhereItMayNotRunAndStoppedAtShutdown()
    {
        QTemporaryDir dir;
        const QString basedir = dir.filePath(QStringLiteral("ws"));
        {
            LocalBackend maker(LocalOptions{basedir, false});
            QVERIFY(QCoro::waitFor(
                maker.create(CreateSpec{QStringLiteral("run"), QStringLiteral("u"), QStringLiteral("a"), {}})));
            QVERIFY(QCoro::waitFor(
                maker.create(CreateSpec{QStringLiteral("paused"), QStringLiteral("u"), QStringLiteral("b"), {}})));
            QVERIFY(QCoro::waitFor(maker.pause(QStringLiteral("paused"))));
        }
        ExecRequest echo;
        echo.argv = QStringList{QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("echo hi; touch ran")};

        Profile readOnly = localProfile(basedir);
        readOnly.readOnly = true;
        TestSession viewer(std::make_unique<LocalBackend>(LocalOptions{basedir, false}), readOnly);
        QVERIFY(!viewer->canExec());
        QVERIFY(!viewer->terminalCommand(*QCoro::waitFor(viewer->get(QStringLiteral("run")))));
        auto refused = QCoro::waitFor(viewer->exec(QStringLiteral("run"), echo));
        QVERIFY(!refused);
        QCOMPARE(refused.error().kind, Error::Kind::InvalidArgument);
        QVERIFY2(refused.error().message.contains(QLatin1String("read-only")), qPrintable(refused.error().message));
        QVERIFY(!QFileInfo::exists(basedir + QStringLiteral("/run/ran")));

        TestSession session(std::make_unique<LocalBackend>(LocalOptions{basedir, false}), localProfile(basedir));
        QVERIFY(session->canExec());
        QVERIFY(session->terminalCommand(*QCoro::waitFor(session->get(QStringLiteral("run")))));
        auto paused = QCoro::waitFor(session->exec(QStringLiteral("paused"), echo));
        QVERIFY(!paused);
        QCOMPARE(paused.error().kind, Error::Kind::Conflict);
        QVERIFY2(paused.error().message.contains(QLatin1String("paused")), qPrintable(paused.error().message));
        QVERIFY(!QFileInfo::exists(basedir + QStringLiteral("/paused/ran")));
        QCOMPARE(QCoro::waitFor(session->get(QStringLiteral("paused")))->state, SandboxState::Paused); // not resumed
        auto missing = QCoro::waitFor(session->exec(QStringLiteral("nope"), echo));
        QVERIFY(!missing);
        QCOMPARE(missing.error().kind, Error::Kind::NotFound);
        auto ran = QCoro::waitFor(session->exec(QStringLiteral("run"), echo));
        QVERIFY2(ran, qPrintable(ran ? QString() : ran.error().message));
        QCOMPARE(ran->stdOut, QByteArray("hi\n"));

        // The caller's cancel stops it.
        ExecRequest slow;
        slow.argv = QStringList{QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("echo up; exec sleep 300")};
        QList<QByteArray> lines;
        slow.onLine = [&lines](OutputChannel, const QByteArray &line) { lines.append(line); };
        slow.cancel = std::make_shared<CancelToken>();
        const auto token = slow.cancel;
        std::optional<QCoro::Task<Result<ExecResult>>> running = session->exec(QStringLiteral("run"), slow);
        QTRY_COMPARE(lines.size(), 1);
        token->cancel();
        auto stopped = QCoro::waitFor(std::move(*running));
        QVERIFY(!stopped);
        QCOMPARE(stopped.error().kind, Error::Kind::Cancelled);

        // A shutdown stops what still runs, and says why.
        slow.cancel = {};
        lines.clear();
        running = session->exec(QStringLiteral("run"), slow);
        QTRY_COMPARE(lines.size(), 1);
        session.shutdown();
        QVERIFY(session->isShutDown());
        auto ended = QCoro::waitFor(std::move(*running));
        QVERIFY(!ended);
        QCOMPARE(ended.error().kind, Error::Kind::Cancelled);
        QVERIFY2(ended.error().message.contains(QLatin1String("closed")), qPrintable(ended.error().message));
    }

    // Paddock's own read-only command (the inspector's gateway probe) runs on a read-only profile,
    // and is stopped like any other: by the caller's cancel, and by the session's shutdown, which
    // never waits for it to end by itself.
    void inspectExecRunsOnReadOnlyProfilesAndStops()
    {
        QTemporaryDir dir;
        const QString basedir = dir.filePath(QStringLiteral("ws"));
        {
            LocalBackend maker(LocalOptions{basedir, false});
            QVERIFY(QCoro::waitFor(
                maker.create(CreateSpec{QStringLiteral("run"), QStringLiteral("u"), QStringLiteral("a"), {}})));
        }
        Profile readOnly = localProfile(basedir);
        readOnly.readOnly = true;
        TestSession viewer(std::make_unique<LocalBackend>(LocalOptions{basedir, false}), readOnly);
        ExecRequest slow;
        slow.argv = QStringList{QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("echo up; exec sleep 300")};
        QList<QByteArray> lines;
        slow.onLine = [&lines](OutputChannel, const QByteArray &line) { lines.append(line); };
        slow.cancel = std::make_shared<CancelToken>();
        const auto token = slow.cancel;
        std::optional<QCoro::Task<Result<ExecResult>>> running = viewer->inspectExec(QStringLiteral("run"), slow);
        QTRY_COMPARE(lines.size(), 1);
        token->cancel();
        auto stopped = QCoro::waitFor(std::move(*running));
        QVERIFY(!stopped);
        QCOMPARE(stopped.error().kind, Error::Kind::Cancelled);

        slow.cancel = {};
        lines.clear();
        running = viewer->inspectExec(QStringLiteral("run"), slow);
        QTRY_COMPARE(lines.size(), 1);
        viewer.shutdown();
        QVERIFY(viewer->isShutDown());
        auto ended = QCoro::waitFor(std::move(*running));
        QVERIFY(!ended);
        QCOMPARE(ended.error().kind, Error::Kind::Cancelled);
    }

    void execNeedsTheCapability()
    {
        TestSession session(std::make_unique<ScriptedBackend>());
        QVERIFY(!session->canExec());
        ExecRequest echo;
        echo.argv = QStringList{QStringLiteral("true")};
        auto refused = QCoro::waitFor(session->exec(QStringLiteral("x"), echo));
        QVERIFY(!refused);
        QCOMPARE(refused.error().kind, Error::Kind::Unsupported);
    }

    void theContainerLogSourceStreamsThroughTheSession()
    {
        QTemporaryDir dir;
        BootstrapLogStore logs(dir.filePath(QStringLiteral("logs")));
        {
            // A backend that does not stream: the source only polls.
            ProfileSession local(localProfile(dir.filePath(QStringLiteral("local"))), QByteArray(), &logs);
            QVERIFY(!local.containerLogSource().follow);
            QCoro::waitFor(local.shutdown());
        }
        auto streams = std::make_shared<Streams>();
        auto session = std::make_unique<ProfileSession>(
            localProfile(dir.filePath(QStringLiteral("streams"))),
            std::make_unique<StreamingBackend>(LocalOptions{dir.filePath(QStringLiteral("streams")), false}, streams),
            ProvisionOptions{}, &logs);
        const ContainerLogSource source = session->containerLogSource();
        QVERIFY(source.follow);

        // The reader's token ends its stream.
        QByteArray received;
        const auto receive = [&received](QByteArrayView data) { received += data.toByteArray(); };
        auto cancel = std::make_shared<CancelToken>();
        auto first = source.follow(QStringLiteral("s1"), 7, receive, cancel);
        QCOMPARE(streams->follows, 1);
        QCOMPARE(streams->tail, 7);
        QCOMPARE(received, QByteArray("2026-11-30T11:00:00Z a line\n"));
        cancel->cancel();
        const Result<> cancelled = QCoro::waitFor(std::move(first));
        QVERIFY(!cancelled);
        QCOMPARE(cancelled.error().kind, Error::Kind::Cancelled);
        QCOMPARE(cancelled.error().message, QStringLiteral("cancelled"));
        QCOMPARE(streams->cancelled, 1);

        // A stream holds the session's tasks: its shutdown ends it (the reader's token untouched)
        // and waits for it; the stream says the profile was closed.
        auto open = std::make_shared<CancelToken>();
        auto second = source.follow(QStringLiteral("s1"), 3, receive, open);
        QCOMPARE(streams->follows, 2);
        bool shutDown = false;
        auto ending = [](ProfileSession *s, bool *done) -> QCoro::Task<void> {
            co_await s->shutdown();
            *done = true;
        }(session.get(), &shutDown);
        QVERIFY(!shutDown);
        const Result<> closed = QCoro::waitFor(std::move(second));
        QVERIFY(!closed);
        QCOMPARE(closed.error().kind, Error::Kind::Cancelled);
        QVERIFY2(closed.error().message.contains(QLatin1String("was closed")), qPrintable(closed.error().message));
        QCOMPARE(streams->cancelled, 2);
        QVERIFY(!open->isCancelled());
        QCoro::waitFor(ending);
        QVERIFY(shutDown);

        // After the shutdown: Cancelled at once, and no backend is asked.
        const Result<> after = QCoro::waitFor(source.follow(QStringLiteral("s1"), 1, receive, {}));
        QVERIFY(!after);
        QCOMPARE(after.error().kind, Error::Kind::Cancelled);
        QVERIFY2(after.error().message.contains(QLatin1String("was closed")), qPrintable(after.error().message));
        session.reset();
        const Result<> gone = QCoro::waitFor(source.follow(QStringLiteral("s1"), 1, receive, {}));
        QCOMPARE(gone.error().kind, Error::Kind::Cancelled);
        QCOMPARE(streams->follows, 2);
    }

    void closeThenShutdownWaitsForTheClose()
    {
        FakeOpenSandboxProcess server;
        QVERIFY2(server.start({QStringLiteral("--pause-ms"), QStringLiteral("1500")}), qPrintable(server.error()));
        QTemporaryDir dir;
        BootstrapLogStore logs(dir.filePath(QStringLiteral("logs")));
        auto session = std::make_unique<ProfileSession>(serverProfile(server, emptyFile(dir)), QByteArray(), &logs);
        auto opened = QCoro::waitFor(session->open(request(QStringLiteral("u"), QStringLiteral("a"))));
        QVERIFY(opened);
        auto sandbox = QCoro::waitFor(session->find((*opened)->id()));
        QVERIFY(sandbox);
        // Close (the manager's: the entry leaves the cache at once), then quit at once.
        std::optional<Result<>> closed;
        auto closing = [](ProfileSession *s, SandboxInfo info, std::optional<Result<>> *out) -> QCoro::Task<void> {
            *out = co_await s->close(info);
        }(session.get(), *sandbox, &closed);
        QVERIFY(!session->cached((*opened)->id()));
        QCoro::waitFor(session->shutdown());
        QVERIFY(closed.has_value()); // shutdown returned only after the close did
        QVERIFY(*closed);
        session.reset();
        QCoro::waitFor(closing);
        // It really paused.
        ProfileSession check(serverProfile(server, emptyFile(dir)), QByteArray(), &logs);
        QTRY_COMPARE(QCoro::waitFor(check.get(sandbox->sandboxId))->state, SandboxState::Paused);
        QCoro::waitFor(check.shutdown());
    }

    void killWarningIsTheBackendsUntilShutdown()
    {
        auto scripted = std::make_unique<ScriptedBackend>();
        scripted->killWarningOf = [](const SandboxInfo &sandbox) {
            return QStringLiteral("Deletes the Pod %1 and the PVC %1").arg(sandbox.sandboxId);
        };
        ProfileSession session(Profile::local(), std::move(scripted), {}, nullptr);
        SandboxInfo sandbox;
        sandbox.sandboxId = QStringLiteral("as-ws-a");
        QCOMPARE(session.killWarning(sandbox), QStringLiteral("Deletes the Pod as-ws-a and the PVC as-ws-a"));
        QCoro::waitFor(session.shutdown());
        QCOMPARE(session.killWarning(sandbox), QString()); // nothing to ask once the backend is gone

        // A backend with nothing to add says nothing.
        ProfileSession plain(Profile::local(), std::make_unique<ScriptedBackend>(), {}, nullptr);
        QCOMPARE(plain.killWarning(sandbox), QString());
        QCoro::waitFor(plain.shutdown());
    }

    void aBootstrapFileThatCannotBeReadForbidsOpening()
    {
        QTemporaryDir dir;
        BootstrapLogStore logs(dir.filePath(QStringLiteral("logs")));
        Profile profile = localProfile(dir.filePath(QStringLiteral("ws")));
        profile.bootstrapFile = dir.filePath(QStringLiteral("missing.sh"));
        ProfileSession session(profile, {}, &logs);
        QVERIFY(!session.canOpen());
        QVERIFY2(session.problem().contains(QLatin1String("missing.sh")), qPrintable(session.problem()));
        const auto opened = QCoro::waitFor(session.open(request(QStringLiteral("u"), QStringLiteral("a"))));
        QVERIFY(!opened);
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("ws")))
                || QDir(dir.filePath(QStringLiteral("ws"))).isEmpty());
        // Listing still works.
        QVERIFY(QCoro::waitFor(session.list()));
        QCoro::waitFor(session.shutdown());
    }
    void aWatchedSessionPassesOnWhatItsBackendReports()
    {
        auto owned = std::make_unique<ScriptedBackend>();
        owned->reportedCapabilities = Capability::Watch;
        TestSession<ScriptedBackend> session(std::move(owned), testProfile(QStringLiteral("cluster")));
        ScriptedBackend &backend = session.backend;
        QSignalSpy changed(session.get(), &ProfileSession::sandboxChanged);
        QSignalSpy removed(session.get(), &ProfileSession::sandboxRemoved);
        QVERIFY(!session->isWatched());
        QVERIFY(!backend.watching);

        session->setWatched(true);
        QVERIFY(session->isWatched());
        QVERIFY(backend.watching);
        backend.report(running(QStringLiteral("sbx-9"), QStringLiteral("ws9")));
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed.at(0).at(0).toString(), QStringLiteral("cluster"));
        QCOMPARE(changed.at(0).at(1).value<SandboxInfo>().sandboxId, QStringLiteral("sbx-9"));
        backend.reportRemoved(QStringLiteral("sbx-9"));
        QCOMPARE(removed.size(), 1);
        QCOMPARE(removed.at(0), (QList<QVariant>{QStringLiteral("cluster"), QStringLiteral("sbx-9")}));

        // Off: the backend stops watching (and would report nothing).
        session->setWatched(false);
        QVERIFY(!backend.watching);
        backend.report(running(QStringLiteral("sbx-10"), QStringLiteral("ws10")));
        QCOMPARE(changed.size(), 1);

        // Shutting down turns it off, and it cannot be turned on again.
        session->setWatched(true);
        QVERIFY(backend.watching);
        session.shutdown();
        QVERIFY(!session->isWatched());
        session->setWatched(true);
        QVERIFY(!session->isWatched());
    }

    void aBackendThatCannotWatchIsNeverAskedTo()
    {
        TestSession<ScriptedBackend> session(std::make_unique<ScriptedBackend>());
        session->setWatched(true);
        QVERIFY(!session->isWatched());
        QVERIFY(!session.backend.watching);
    }

    void aRemovedSandboxTheManagerHoldsIsLostOnce()
    {
        QTemporaryDir dir;
        BootstrapLogStore logs(dir.filePath(QStringLiteral("logs")));
        auto owned = std::make_unique<ScriptedBackend>();
        owned->reportedCapabilities = Capability::Watch;
        TestSession<ScriptedBackend> session(std::move(owned), testProfile(QStringLiteral("cluster")), &logs);
        ScriptedBackend &backend = session.backend;
        session->setWatched(true);
        QSignalSpy events(session.get(), &ProfileSession::event);
        QSignalSpy removed(session.get(), &ProfileSession::sandboxRemoved);
        WorkspaceRequest held;
        held.userId = QStringLiteral("u");
        held.agentId = QStringLiteral("a");
        held.workspaceId = QStringLiteral("held");
        auto opened = QCoro::waitFor(session->open(held));
        QVERIFY2(opened, qPrintable(opened ? QString() : opened.error().message));
        QVERIFY(session->cached(QStringLiteral("held")));
        const QString sandboxId = backend.sandboxes.constLast().sandboxId;
        events.clear();

        // A watch that only says the sandbox went (it did not know it was held): the manager
        // drops it as a lost sandbox, once, and the removal is passed on.
        backend.reportRemoved(sandboxId);
        QVERIFY(!session->cached(QStringLiteral("held")));
        QCOMPARE(kinds(events), (QList<WorkspaceEvent::Kind>{WorkspaceEvent::Kind::Lost}));
        QCOMPARE(events.at(0).at(0).value<WorkspaceEvent>().sandboxId, sandboxId);
        QCOMPARE(events.at(0).at(0).value<WorkspaceEvent>().actor, WorkspaceEvent::Actor::Elsewhere);
        QCOMPARE(removed.size(), 1);

        // A backend that says it lost it first (as Kubernetes' watch does): still once.
        auto again = QCoro::waitFor(session->open(held));
        QVERIFY(again);
        const QString second = backend.sandboxes.constLast().sandboxId;
        events.clear();
        Q_EMIT backend.sandboxLost(second, QStringLiteral("held"));
        backend.reportRemoved(second);
        QVERIFY(!session->cached(QStringLiteral("held")));
        QCOMPARE(kinds(events), (QList<WorkspaceEvent::Kind>{WorkspaceEvent::Kind::Lost}));
        QCOMPARE(removed.size(), 2);
    }
};

QTEST_GUILESS_MAIN(TestProfileSession)
#include "tst_profilesession.moc"
