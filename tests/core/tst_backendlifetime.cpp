// A backend destroyed while its tasks are suspended inside it: every task it handed out has
// completed when its destructor returns (with a Cancelled error where the work was not done, with
// the real result where it was), and nothing resumes later into the freed backend or its clients
// (run it under the asan preset). OpenSandbox against paddock-fake-opensandbox, Docker against a
// scripted engine on 127.0.0.1.

#include "backends/docker/dockerbackend.h"
#include "backends/opensandbox/opensandboxbackend.h"
#include "fakeopensandboxprocess.h"
#include "scriptedhttpserver.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QRegularExpression>
#include <QSemaphore>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>

#include <memory>

using namespace Paddock;
using namespace PaddockTest;
using namespace std::chrono_literals;

namespace {

// Holds every thread of the global pool, so that work handed to it (QtConcurrent::run) waits
// until release(): a test can then act while a coroutine is suspended on that work.
class PoolBlocker
{
public:
    PoolBlocker()
        : m_threads(QThreadPool::globalInstance()->maxThreadCount())
    {
        for (int i = 0; i < m_threads; ++i) {
            QThreadPool::globalInstance()->start([this] {
                m_held.release();
                m_gate.acquire();
            });
        }
        m_held.acquire(m_threads); // every thread is ours
    }
    ~PoolBlocker()
    {
        release();
        QThreadPool::globalInstance()->waitForDone();
    }
    Q_DISABLE_COPY_MOVE(PoolBlocker)

    void release()
    {
        if (!std::exchange(m_released, true))
            m_gate.release(m_threads);
    }

private:
    const int m_threads;
    QSemaphore m_held;
    QSemaphore m_gate;
    bool m_released = false;
};

// Whatever was left to run later (work on the pool, its watchers' events, deferred deletes)
// runs now: a coroutine that would resume into freed memory does so here, under ASAN's eyes.
void drainLateWork()
{
    QThreadPool::globalInstance()->waitForDone();
    QCoreApplication::sendPostedEvents();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
}

OpenSandbox::BackendOptions optionsFor(const FakeOpenSandboxProcess &server)
{
    OpenSandbox::BackendOptions options;
    options.connection.domain = server.domain();
    options.connection.requestTimeout = 60s;
    options.retry = {4, 20ms, 2.0, 200ms};
    options.settleTimeout = 60s;
    return options;
}

QString firstSandbox(OpenSandbox::OpenSandboxBackend &backend)
{
    auto all = QCoro::waitFor(backend.list({}));
    return all && !all->isEmpty() ? all->constFirst().sandboxId : QString();
}

} // namespace

class TestBackendLifetime final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void anOpenSandboxPauseEndsWithItsBackend_data()
    {
        QTest::addColumn<QStringList>("serverArguments");
        QTest::addColumn<bool>("sleeping"); // between two polls for Paused; else the pause request is in flight
        // The issue's reproduction: a Kubernetes-like pause that takes 5 s, the backend deleted
        // while waitForState sleeps between its polls.
        QTest::newRow("polling for Paused") << QStringList{QStringLiteral("--seed"), QStringLiteral("1"),
                                                           QStringLiteral("--pause-ms"), QStringLiteral("5000")}
                                            << true;
        QTest::newRow("the pause request in flight")
            << QStringList{QStringLiteral("--seed"), QStringLiteral("1"), QStringLiteral("--latency-ms"),
                           QStringLiteral("2000")}
            << false;
    }

    void anOpenSandboxPauseEndsWithItsBackend()
    {
        QFETCH(QStringList, serverArguments);
        QFETCH(bool, sleeping);
        FakeOpenSandboxProcess server;
        QVERIFY2(server.start(serverArguments), qPrintable(server.error()));
        auto backend = std::make_unique<OpenSandbox::OpenSandboxBackend>(optionsFor(server));
        const QString sandboxId = firstSandbox(*backend);
        QVERIFY(!sandboxId.isEmpty());

        auto pausing = backend->pause(sandboxId);
        if (sleeping)
            QTRY_COMPARE_WITH_TIMEOUT(backend->http()->sleepingCount(), 1, 10'000);
        QVERIFY(!pausing.isReady());
        backend.reset();
        QVERIFY(pausing.isReady()); // inside the destructor, not some time later
        const auto paused = QCoro::waitFor(std::move(pausing));
        QVERIFY(!paused);
        QCOMPARE(paused.error().kind, Error::Kind::Cancelled);
        QCOMPARE(paused.error().message, QStringLiteral("cancelled: the connection to the server was closed"));
        drainLateWork();
    }

    // A resume answers 202 and then polls until the sandbox is Running (here 5 s away).
    void anOpenSandboxResumeEndsWithItsBackend()
    {
        FakeOpenSandboxProcess server;
        QVERIFY2(server.start({QStringLiteral("--seed"), QStringLiteral("1"), QStringLiteral("--resume-ms"),
                               QStringLiteral("5000")}),
                 qPrintable(server.error()));
        auto backend = std::make_unique<OpenSandbox::OpenSandboxBackend>(optionsFor(server));
        const QString sandboxId = firstSandbox(*backend);
        QVERIFY(!sandboxId.isEmpty());
        QVERIFY(QCoro::waitFor(backend->pause(sandboxId)));

        auto resuming = backend->resume(sandboxId);
        QTRY_COMPARE_WITH_TIMEOUT(backend->http()->sleepingCount(), 1, 10'000);
        QVERIFY(!resuming.isReady());
        backend.reset();
        QVERIFY(resuming.isReady());
        const auto resumed = QCoro::waitFor(std::move(resuming));
        QVERIFY(!resumed);
        QCOMPARE(resumed.error().kind, Error::Kind::Cancelled);
        QCOMPARE(resumed.error().message, QStringLiteral("cancelled: the connection to the server was closed"));
        drainLateWork();
    }

    // A list of 1,000 sandboxes (five pages) whose first page waits to be parsed on a worker
    // when the backend goes. Before the fix the parse resumed the list later, which asked for
    // the next pages through the freed client.
    void anOpenSandboxListEndsWithItsBackendWhileAPageIsParsed()
    {
        FakeOpenSandboxProcess server;
        QVERIFY2(server.start({QStringLiteral("--seed"), QStringLiteral("1000")}), qPrintable(server.error()));
        auto backend = std::make_unique<OpenSandbox::OpenSandboxBackend>(optionsFor(server));
        PoolBlocker pool;
        auto listing = backend->list({});
        // The first page came, and its parse waits for a thread.
        QTRY_COMPARE_WITH_TIMEOUT(backend->http()->sleepingCount(), 1, 10'000);
        QVERIFY(!listing.isReady());
        backend.reset();
        QVERIFY(listing.isReady());
        const auto listed = QCoro::waitFor(std::move(listing));
        QVERIFY(!listed);
        QCOMPARE(listed.error().kind, Error::Kind::Cancelled);
        pool.release(); // the parse runs now, into nothing
        drainLateWork();
        QCOMPARE(server.stats().value(QLatin1String("requests")).toInt(), 1);
    }

    // A create whose container does not start is removed again; the backend goes while the
    // start is in flight. Before the fix the start ended only in the HTTP client's destructor,
    // after the Docker client was gone, and the clean-up called into it.
    void aDockerCreateEndsWithItsBackend()
    {
        ScriptedHttpServer engine;
        engine.script.enqueue(ScriptedHttpServer::response(200, R"({"Id":"sha256:1"})")); // the image is there
        engine.script.enqueue(ScriptedHttpServer::response(201, R"({"Id":"c0ffee","Warnings":[]})"));
        engine.script.enqueue(QByteArray()); // the start: never answered
        Docker::DockerOptions options;
        options.dockerHost = QStringLiteral("tcp://127.0.0.1:%1").arg(engine.serverPort());
        options.image = QStringLiteral("busybox");
        options.basedir = m_dir.filePath(QStringLiteral("docker"));
        auto backend = std::make_unique<Docker::DockerBackend>(options);
        auto creating =
            backend->create(CreateSpec{QStringLiteral("ws1"), QStringLiteral("u"), QStringLiteral("a"), {}});
        QTRY_COMPARE(engine.requests.size(), 3);
        QVERIFY(engine.requests.at(2).startsWith("POST /v1.41/containers/c0ffee/start "));
        QVERIFY(!creating.isReady());
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("^container c0ffee did not start")));
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("^and it could not be removed")));
        backend.reset();
        QVERIFY(creating.isReady());
        const auto created = QCoro::waitFor(std::move(creating));
        QVERIFY(!created);
        QCOMPARE(created.error().kind, Error::Kind::Cancelled);
        QVERIFY2(created.error().message.contains(QLatin1String("was cancelled")), qPrintable(created.error().message));
        drainLateWork();
        QCOMPARE(engine.requests.size(), 3); // the clean-up was refused, not sent
    }
};

QTEST_GUILESS_MAIN(TestBackendLifetime)
#include "tst_backendlifetime.moc"
