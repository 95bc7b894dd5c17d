// The console's last-activity tracker over the real local backend: sessions/ activity read on
// demand and cached, at most ActivityTracker::Concurrency reads at once, the console's own
// access counted, and fetch() done only when every target has its answer.

#include "activitytracker.h"
#include "backends/local/localbackend.h"
#include "profilesession.h"
#include "testsession.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QCoroTimer>
#include <QDir>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <fcntl.h>
#include <sys/stat.h>

using namespace Paddock;

namespace {

// The local backend, counting the reads it is asked for and how many run at once.
class CountingBackend final : public LocalBackend
{
public:
    using LocalBackend::LocalBackend;
    QCoro::Task<Result<std::optional<QDateTime>>> sessionsActivity(QString sandboxId) override
    {
        ++reads;
        maxInFlight = std::max(maxInFlight, ++inFlight);
        // Back to the event loop once, as a read from a server always is: a fast worker thread
        // must not finish a read before the tracker could start the next one.
        co_await QCoro::sleepFor(std::chrono::milliseconds(0));
        auto answer = co_await LocalBackend::sessionsActivity(sandboxId);
        --inFlight;
        co_return answer;
    }
    int reads = 0;
    int inFlight = 0;
    int maxInFlight = 0;
};

void touchAt(const QString &path, qint64 secs)
{
    const timespec times[2] = {{secs, 0}, {secs, 0}};
    QCOMPARE(::utimensat(AT_FDCWD, QFile::encodeName(path).constData(), times, 0), 0);
}

} // namespace

class TestActivityTracker final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void readsOnDemandCachesAndBoundsConcurrency()
    {
        QTemporaryDir dir;
        QList<ActivityTracker::Target> targets;
        for (int i = 0; i < 20; ++i) {
            const QString id = QStringLiteral("ws%1").arg(i);
            QVERIFY(QDir().mkpath(dir.filePath(id + QStringLiteral("/sessions"))));
            touchAt(dir.filePath(id + QStringLiteral("/sessions")), 1'767'000'000 + i);
            targets.append({QStringLiteral("local\x1f") + id, id});
        }
        // One without a sessions/ folder: nothing to tell, not an error.
        QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("bare"))));
        targets.append({QStringLiteral("local\x1f"
                                       "bare"),
                        QStringLiteral("bare")});
        PaddockTest::TestSession local(std::make_unique<CountingBackend>(LocalOptions{dir.path(), false}));
        CountingBackend &backend = local.backend;
        ActivityTracker tracker;
        QDateTime now = QDateTime::currentDateTimeUtc();
        tracker.setClock([&now] { return now; });
        QSignalSpy changed(&tracker, &ActivityTracker::activityChanged);

        QCoro::waitFor(tracker.fetch(local.get(), targets));
        QCOMPARE(backend.reads, 21);
        QVERIFY(backend.maxInFlight <= ActivityTracker::Concurrency);
        QVERIFY(backend.maxInFlight > 1);
        QCOMPARE(changed.size(), 20);
        QCOMPARE(tracker.lastActivity(QStringLiteral("local\x1fws7")),
                 QDateTime::fromSecsSinceEpoch(1'767'000'007, Qt::UTC));
        QVERIFY(!tracker
                     .lastActivity(QStringLiteral("local\x1f"
                                                  "bare"))
                     .isValid());

        // Cached: asking again within MaxAge reads nothing.
        tracker.request(local.get(), targets);
        QCOMPARE(tracker.pendingCount(), 0);
        QCOMPARE(backend.reads, 21);
        // Later, it is read again; a change shows, a same answer is not announced twice.
        now = now.addSecs(ActivityTracker::MaxAgeSeconds + 1);
        touchAt(dir.filePath(QStringLiteral("ws3/sessions")), 1'767'100'000);
        changed.clear();
        QCoro::waitFor(tracker.fetch(local.get(), targets));
        QCOMPARE(backend.reads, 42);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed.constFirst().at(0).toString(), QStringLiteral("local\x1fws3"));

        // The console's own access counts when it is the newest.
        changed.clear();
        tracker.noteAccess(QStringLiteral("local\x1fws5"));
        QCOMPARE(tracker.lastActivity(QStringLiteral("local\x1fws5")), now);
        QCOMPARE(changed.size(), 1);
    }

    void aBackendThatGoesAwayEndsTheWait()
    {
        QTemporaryDir dir;
        QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("ws/sessions"))));
        auto session = std::make_unique<ProfileSession>(Profile::local(),
                                                        std::make_unique<LocalBackend>(LocalOptions{dir.path(), false}),
                                                        ProvisionOptions{}, nullptr);
        ActivityTracker tracker;
        QList<ActivityTracker::Target> targets;
        for (int i = 0; i < 10; ++i)
            targets.append({QStringLiteral("local\x1fws%1").arg(i), QStringLiteral("ws")});
        tracker.request(session.get(), targets);
        // The profile was deleted meanwhile (as the console ends a session: shut down, then
        // freed): the queued reads end, none hangs.
        QCoro::waitFor(session->shutdown());
        session.reset();
        QTRY_COMPARE(tracker.pendingCount(), 0);
    }
};

QTEST_MAIN(TestActivityTracker)
#include "tst_activitytracker.moc"
