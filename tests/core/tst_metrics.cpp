// CPU and memory per workspace (Backend::metrics, Capability::Metrics): the parsers of what the
// servers answer, with exact values; the local backend for real (a process that burns CPU and
// holds memory in a workspace folder); OpenSandbox against its fake, with and without execd's
// route. Docker's figures are checked against a real engine by the conformance suite.

#include "backends/e2b/e2bbackend.h"
#include "backends/local/localbackend.h"
#include "backends/local/procmetrics.h"
#include "backends/opensandbox/opensandboxbackend.h"
#include "fakee2bprocess.h"
#include "fakeopensandboxprocess.h"
#include "metrics.h"
#include "profilesession.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace Paddock;
using namespace Paddock::MetricsWire;
using namespace PaddockTest;
using namespace std::chrono_literals;

namespace {

QByteArray readData(const QString &name)
{
    QFile file(QStringLiteral(METRICS_DATA) + u'/' + name);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

OpenSandbox::BackendOptions optionsFor(const FakeOpenSandboxProcess &server)
{
    OpenSandbox::BackendOptions options;
    options.connection.domain = server.domain();
    options.connection.apiKey = "secret";
    options.connection.requestTimeout = 10s;
    options.settleTimeout = 10s;
    return options;
}

E2B::BackendOptions e2bOptionsFor(const FakeE2bProcess &server)
{
    E2B::BackendOptions options;
    options.connection.apiUrl = server.apiUrl().toString();
    options.connection.sandboxUrl = server.envdUrl().toString();
    options.connection.apiKey = QByteArrayLiteral("e2b_0123456789abcdef");
    options.connection.requestTimeout = 10s;
    options.timeout = 3600s;
    return options;
}

// A process in `folder` that holds 64 MiB it wrote and burns a core until it is killed.
std::unique_ptr<QProcess> burner(const QString &folder)
{
    auto process = std::make_unique<QProcess>();
    process->setWorkingDirectory(folder);
    process->setProgram(QStringLiteral("/usr/bin/perl"));
    process->setArguments({QStringLiteral("-e"),
                           QStringLiteral("$x = 'x' x (64 * 1024 * 1024); $| = 1; print \"ready\\n\"; 1 while 1;")});
    process->start();
    return process;
}

} // namespace

class TestMetrics : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void kubeCpu_data()
    {
        QTest::addColumn<QString>("quantity");
        QTest::addColumn<double>("percent");
        QTest::newRow("millicores") << QStringLiteral("12m") << 1.2;
        QTest::newRow("nanocores") << QStringLiteral("250000000n") << 25.0;
        QTest::newRow("small nanocores") << QStringLiteral("250000n") << 0.025;
        QTest::newRow("microcores") << QStringLiteral("1500u") << 0.15;
        QTest::newRow("cores") << QStringLiteral("2") << 200.0;
        QTest::newRow("fraction") << QStringLiteral("0.5") << 50.0;
        QTest::newRow("zero") << QStringLiteral("0") << 0.0;
    }
    void kubeCpu()
    {
        QFETCH(QString, quantity);
        QFETCH(double, percent);
        const auto parsed = kubeCpuPercent(quantity);
        QVERIFY(parsed);
        QVERIFY2(qAbs(*parsed - percent) < 1e-9, qPrintable(QString::number(*parsed)));
    }

    void kubeMemory_data()
    {
        QTest::addColumn<QString>("quantity");
        QTest::addColumn<qint64>("bytes");
        QTest::newRow("Mi") << QStringLiteral("64Mi") << qint64(64) * 1024 * 1024;
        QTest::newRow("Ki") << QStringLiteral("12345Ki") << qint64(12345) * 1024;
        QTest::newRow("Gi") << QStringLiteral("1Gi") << (qint64(1) << 30);
        QTest::newRow("k") << QStringLiteral("129024k") << qint64(129024000);
        QTest::newRow("G") << QStringLiteral("1G") << qint64(1000000000);
        QTest::newRow("plain") << QStringLiteral("4096") << qint64(4096);
        QTest::newRow("exponent") << QStringLiteral("1e3") << qint64(1000);
        QTest::newRow("fraction rounds up") << QStringLiteral("1.5Ki") << qint64(1536);
        QTest::newRow("milli rounds up") << QStringLiteral("500m") << qint64(1);
    }
    void kubeMemory()
    {
        QFETCH(QString, quantity);
        QFETCH(qint64, bytes);
        QCOMPARE(kubeBytes(quantity), std::optional<qint64>(bytes));
    }

    void kubeQuantityRefusesWhatIsNone_data()
    {
        QTest::addColumn<QString>("quantity");
        for (const char *bad : {"", "Mi", "12mm", "1.2.3", "-", "12 Mi", "1e", "1e999", "abc", "0x10", "12Xi"})
            QTest::newRow(bad) << QString::fromLatin1(bad);
    }
    void kubeQuantityRefusesWhatIsNone()
    {
        QFETCH(QString, quantity);
        QCOMPARE(kubeBytes(quantity), std::nullopt);
        QCOMPARE(kubeCpuPercent(quantity), std::nullopt);
    }

    void podMetricsListSumsContainers()
    {
        const QByteArray json = R"({"kind":"PodMetricsList","apiVersion":"metrics.k8s.io/v1beta1","metadata":{},
            "items":[{"metadata":{"name":"ws-a","namespace":"default"},"timestamp":"2026-12-06T02:00:00Z",
                      "window":"10.5s","containers":[{"name":"main","usage":{"cpu":"250m","memory":"64Mi"}},
                                                    {"name":"side","usage":{"cpu":"50000000n","memory":"1Mi"}}]},
                     {"metadata":{"name":"ws-b"},"timestamp":"2026-12-06T02:00:01Z","containers":[]},
                     {"metadata":{},"containers":[{"usage":{"cpu":"1"}}]}]})";
        const auto pods = parsePodMetricsList(json);
        QCOMPARE(pods.size(), 2);
        const SandboxMetrics a = pods.value(QStringLiteral("ws-a"));
        QVERIFY(a.cpuPercent && qAbs(*a.cpuPercent - 30.0) < 1e-9);
        QCOMPARE(a.memoryBytes, std::optional<qint64>(65 * 1024 * 1024));
        QCOMPARE(a.memoryLimitBytes, std::nullopt);
        QCOMPARE(a.sampledAt, QDateTime(QDate(2026, 12, 6), QTime(2, 0), Qt::UTC));
        // No container figures: absent, not zero.
        const SandboxMetrics b = pods.value(QStringLiteral("ws-b"));
        QCOMPARE(b.cpuPercent, std::nullopt);
        QCOMPARE(b.memoryBytes, std::nullopt);
    }

    // An answer in the shape Docker's engine gives on cgroup v2 (tests/data/metrics/docker-stats-v2.json,
    // the fields of Engine API 1.41's ContainerStatsResponse, figures chosen for exact results).
    void dockerStatsAsTheCliComputesThem()
    {
        const auto metrics = parseDockerStats(readData(QStringLiteral("docker-stats-v2.json")));
        QVERIFY(metrics);
        QVERIFY(metrics->cpuPercent);
        // (cpu delta 498285000 / system delta 4000000000) * 4 online CPUs * 100
        QVERIFY2(qAbs(*metrics->cpuPercent - 49.8285) < 1e-6, qPrintable(QString::number(*metrics->cpuPercent)));
        // usage 1130496 - inactive_file 45056
        QCOMPARE(metrics->memoryBytes, std::optional<qint64>(1085440));
        QCOMPARE(metrics->memoryLimitBytes, std::optional<qint64>(16664289280));
        QCOMPARE(metrics->sampledAt, QDateTime(QDate(2026, 12, 6), QTime(2, 10, 5, 123), Qt::UTC));
    }

    void dockerStatsOfCgroupV1SubtractTotalInactiveFile()
    {
        const QByteArray json = R"({"read":"2026-12-06T02:10:05Z","cpu_stats":{"cpu_usage":{"total_usage":200,
            "percpu_usage":[100,100]},"system_cpu_usage":2000},"precpu_stats":{"cpu_usage":{"total_usage":100},
            "system_cpu_usage":1000},"memory_stats":{"usage":1000,"limit":4000,"stats":{"total_inactive_file":300,
            "inactive_file":100}}})";
        const auto metrics = parseDockerStats(json);
        QVERIFY(metrics);
        // No online_cpus: the per-CPU list's length (2). 100 / 1000 * 2 * 100 = 20.
        QVERIFY(metrics->cpuPercent && qAbs(*metrics->cpuPercent - 20.0) < 1e-9);
        QCOMPARE(metrics->memoryBytes, std::optional<qint64>(700));
        QCOMPARE(metrics->memoryLimitBytes, std::optional<qint64>(4000));
    }

    void dockerStatsOfAStoppedContainerAreAbsent()
    {
        // What the engine answers for a stopped container.
        const QByteArray json = R"({"read":"0001-01-01T00:00:00Z","preread":"0001-01-01T00:00:00Z",
            "cpu_stats":{"cpu_usage":{"total_usage":0},"throttling_data":{}},"precpu_stats":{"cpu_usage":
            {"total_usage":0},"throttling_data":{}},"memory_stats":{},"name":"/x","id":"abc"})";
        const auto metrics = parseDockerStats(json);
        QVERIFY(metrics);
        QCOMPARE(metrics->cpuPercent, std::nullopt);
        QCOMPARE(metrics->memoryBytes, std::nullopt);
        QVERIFY(!metrics->sampledAt.isValid());
        QCOMPARE(parseDockerStats("not json"), std::nullopt);
        QCOMPARE(parseDockerStats("[1]"), std::nullopt);
    }

    void execdMetricsInOneCoreUnits()
    {
        const QByteArray json = R"({"cpu_count":4.0,"cpu_used_pct":12.5,"mem_total_mib":8192.0,"mem_used_mib":256.5,
            "timestamp":1700000000000})";
        const auto metrics = parseExecdMetrics(json);
        QVERIFY(metrics);
        // 12.5% of four cores is half of one.
        QVERIFY(metrics->cpuPercent && qAbs(*metrics->cpuPercent - 50.0) < 1e-9);
        QCOMPARE(metrics->memoryBytes, std::optional<qint64>(qint64(256.5 * 1024 * 1024)));
        QCOMPARE(metrics->memoryLimitBytes, std::optional<qint64>(qint64(8192) * 1024 * 1024));
        QCOMPARE(metrics->sampledAt, QDateTime::fromMSecsSinceEpoch(1700000000000, Qt::UTC));
        // A figure missing or of the wrong type is absent, the others stay.
        const auto partial = parseExecdMetrics(R"({"cpu_used_pct":"high","mem_used_mib":1})");
        QVERIFY(partial);
        QCOMPARE(partial->cpuPercent, std::nullopt);
        QCOMPARE(partial->memoryBytes, std::optional<qint64>(1024 * 1024));
        QCOMPARE(partial->memoryLimitBytes, std::nullopt);
    }

    void e2bMetricsPerSandbox()
    {
        const QByteArray json = R"({"sandboxes":{"sbx-1":{"timestamp":"2026-12-06T02:00:00Z","timestampUnix":1796522400,
            "cpuCount":2,"cpuUsedPct":25.0,"memUsed":268435456,"memTotal":1073741824,"memCache":1000,"diskUsed":1,
            "diskTotal":2},"sbx-2":{}}})";
        const auto metrics = parseE2bSandboxesMetrics(json);
        QCOMPARE(metrics.size(), 1);
        const SandboxMetrics one = metrics.value(QStringLiteral("sbx-1"));
        QCOMPARE(one.sandboxId, QStringLiteral("sbx-1"));
        QVERIFY(one.cpuPercent && qAbs(*one.cpuPercent - 50.0) < 1e-9);
        QCOMPARE(one.memoryBytes, std::optional<qint64>(268435456));
        QCOMPARE(one.memoryLimitBytes, std::optional<qint64>(1073741824));
        QCOMPARE(one.sampledAt, QDateTime::fromSecsSinceEpoch(1796522400, Qt::UTC));
        const auto last =
            e2bMetricFromJson(R"([{"timestampUnix":1,"cpuCount":1,"cpuUsedPct":1,"memUsed":1,"memTotal":2},
            {"timestampUnix":2,"cpuCount":1,"cpuUsedPct":3,"memUsed":5,"memTotal":6}])");
        QVERIFY(last);
        QCOMPARE(last->memoryBytes, std::optional<qint64>(5));
        // A limit of a fraction of a byte is no limit (found by fuzz_metrics).
        const auto fraction = parseE2bSandboxesMetrics(R"({"sandboxes":{"sbx-1":{"timestampUnix":1,"cpuCount":1,
            "cpuUsedPct":1,"memUsed":1,"memTotal":0.5}}})");
        QCOMPARE(fraction.value(QStringLiteral("sbx-1")).memoryLimitBytes, std::nullopt);
        QCOMPARE(parseExecdMetrics(R"({"mem_used_mib":1,"mem_total_mib":1e-7})")->memoryLimitBytes, std::nullopt);
    }

    // The CPU between two scans counts what each process used in between, and all of the time of
    // one that started since.
    void procCpuBetweenScans()
    {
        Local::ProcScan::Folder before;
        before.ticks.insert(1, 100);
        before.started.insert(1, 10);
        Local::ProcScan::Folder after;
        after.ticks.insert(1, 150); // 50 more
        after.started.insert(1, 10);
        after.ticks.insert(2, 30); // started at 1005, after the first scan at 1000
        after.started.insert(2, 1005);
        after.ticks.insert(3, 70); // started before the first scan but not seen then: not counted
        after.started.insert(3, 500);
        const auto percent = Local::cpuPercentBetween(before, 1000, after, 1100);
        QVERIFY(percent);
        QCOMPARE(*percent, 80.0);
        QCOMPARE(Local::cpuPercentBetween(before, 1000, after, 1000), std::nullopt);
    }

    // For real: a process that burns a core and holds 64 MiB in a workspace's folder.
    void localMeasuresTheProcessesInTheFolder()
    {
        QTemporaryDir base;
        QVERIFY(base.isValid());
        LocalBackend backend(LocalOptions{base.path()});
        QVERIFY(backend.capabilities().testFlag(Capability::Metrics));
        const auto made = QCoro::waitFor(
            backend.create(CreateSpec{QStringLiteral("busy"), QStringLiteral("u"), QStringLiteral("a"), {}}));
        QVERIFY2(made, qPrintable(made ? QString() : made.error().message));
        const auto idle = QCoro::waitFor(
            backend.create(CreateSpec{QStringLiteral("idle"), QStringLiteral("u"), QStringLiteral("a"), {}}));
        QVERIFY(idle);
        const QString folder = *backend.workspacePath(made->sandboxId);
        QDir(folder).mkpath(QStringLiteral("sub"));
        // Its working directory below the folder counts too.
        auto process = burner(folder + QStringLiteral("/sub"));
        QVERIFY(process->waitForStarted());
        QVERIFY(process->waitForReadyRead(30000)); // "ready": the 64 MiB are written

        const QStringList ids{made->sandboxId, idle->sandboxId, QStringLiteral("never-made")};
        const auto first = QCoro::waitFor(backend.metrics(ids));
        QVERIFY2(first, qPrintable(first ? QString() : first.error().message));
        // The one that was never made is left out; the idle one uses nothing, measured.
        QCOMPARE(first->size(), 2);
        const SandboxMetrics busy = first->at(0).sandboxId == made->sandboxId ? first->at(0) : first->at(1);
        const SandboxMetrics quiet = first->at(0).sandboxId == made->sandboxId ? first->at(1) : first->at(0);
        QVERIFY(busy.cpuPercent);
        QVERIFY2(*busy.cpuPercent > 0, qPrintable(QString::number(*busy.cpuPercent)));
        QVERIFY(busy.memoryBytes);
        QVERIFY2(*busy.memoryBytes > 64 * 1024 * 1024, qPrintable(QString::number(*busy.memoryBytes)));
        QCOMPARE(busy.memoryLimitBytes, std::nullopt);
        QCOMPARE(quiet.cpuPercent, std::optional<double>(0.0));
        QCOMPARE(quiet.memoryBytes, std::optional<qint64>(0));

        // The next call measures since the first one.
        QTest::qWait(300); // wall time for the CPU to be measured over, not a synchronisation
        const auto second = QCoro::waitFor(backend.metrics({made->sandboxId}));
        QVERIFY(second && second->size() == 1);
        QVERIFY(second->at(0).cpuPercent && *second->at(0).cpuPercent > 0);

        process->kill();
        process->waitForFinished();
    }

    // execd's GET /metrics of each sandbox, in one-core units, through the session.
    void openSandboxReadsExecd()
    {
        FakeOpenSandboxProcess server;
        QVERIFY2(server.start({QStringLiteral("--api-key"), QStringLiteral("secret")}), qPrintable(server.error()));
        OpenSandbox::OpenSandboxBackend backend(optionsFor(server));
        QVERIFY(backend.capabilities().testFlag(Capability::Metrics));
        const auto made = QCoro::waitFor(
            backend.create(CreateSpec{QStringLiteral("m-1"), QStringLiteral("u"), QStringLiteral("a"), {}}));
        QVERIFY2(made, qPrintable(made ? QString() : made.error().message));
        const auto metrics = QCoro::waitFor(backend.metrics({made->sandboxId}));
        QVERIFY2(metrics, qPrintable(metrics ? QString() : metrics.error().message));
        QCOMPARE(metrics->size(), 1);
        const SandboxMetrics &one = metrics->first();
        QCOMPARE(one.sandboxId, made->sandboxId);
        QVERIFY(one.cpuPercent && *one.cpuPercent >= 0);
        QVERIFY(one.memoryBytes && *one.memoryBytes > 0);
        QVERIFY(one.memoryLimitBytes && *one.memoryLimitBytes >= *one.memoryBytes);
        QVERIFY(qAbs(one.sampledAt.secsTo(QDateTime::currentDateTimeUtc())) < 60);
        QVERIFY(QCoro::waitFor(backend.kill(made->sandboxId, {})));
    }

    // execd without the route: Unsupported, "not reported by this server".
    void openSandboxWithoutTheRouteSaysSo()
    {
        FakeOpenSandboxProcess server;
        QVERIFY2(
            server.start({QStringLiteral("--api-key"), QStringLiteral("secret"), QStringLiteral("--no-metrics-route")}),
            qPrintable(server.error()));
        OpenSandbox::OpenSandboxBackend backend(optionsFor(server));
        const auto made = QCoro::waitFor(
            backend.create(CreateSpec{QStringLiteral("m-2"), QStringLiteral("u"), QStringLiteral("a"), {}}));
        QVERIFY(made);
        const auto metrics = QCoro::waitFor(backend.metrics({made->sandboxId}));
        QVERIFY(!metrics);
        QCOMPARE(metrics.error().kind, Error::Kind::Unsupported);
        QCOMPARE(metrics.error().httpStatus, 404);
        QCOMPARE(metrics.error().message, Backend::metricsNotReported().message);
    }

    // E2B's /sandboxes/metrics, 100 ids a request: the running ones, in one-core units; a paused
    // one left out. A server without the route (501): Unsupported.
    void e2bReadsTheMetricsRoute()
    {
        FakeE2bProcess server;
        QVERIFY2(server.start({QStringLiteral("--seed"), QStringLiteral("150")}), qPrintable(server.error()));
        E2B::E2BBackend backend(e2bOptionsFor(server));
        QVERIFY(backend.capabilities().testFlag(Capability::Metrics));
        const auto all = QCoro::waitFor(backend.list({}));
        QVERIFY2(all, qPrintable(all ? QString() : all.error().message));
        QStringList ids;
        QSet<QString> running;
        for (const SandboxInfo &info : std::as_const(*all)) {
            ids.append(info.sandboxId);
            if (info.state == SandboxState::Running)
                running.insert(info.sandboxId);
        }
        QCOMPARE(ids.size(), 150);
        QVERIFY(!running.isEmpty() && running.size() < ids.size());
        server.post(QStringLiteral("/_fake/reset-stats"));
        const auto metrics = QCoro::waitFor(backend.metrics(ids));
        QVERIFY2(metrics, qPrintable(metrics ? QString() : metrics.error().message));
        QCOMPARE(server.stats().value(QLatin1String("requests")).toInt(), 2); // 100 + 50
        QSet<QString> reported;
        for (const SandboxMetrics &one : std::as_const(*metrics)) {
            reported.insert(one.sandboxId);
            QVERIFY(one.cpuPercent && *one.cpuPercent >= 0);
            QVERIFY(one.memoryBytes && *one.memoryBytes >= 0);
            QCOMPARE(one.memoryLimitBytes, std::optional<qint64>(qint64(512) << 20));
            QVERIFY(one.sampledAt.isValid());
        }
        QCOMPARE(reported, running);

        FakeE2bProcess without;
        QVERIFY2(without.start({QStringLiteral("--seed"), QStringLiteral("3"), QStringLiteral("--no-metrics-route")}),
                 qPrintable(without.error()));
        E2B::E2BBackend old(e2bOptionsFor(without));
        const auto refused = QCoro::waitFor(old.metrics({QStringLiteral("any")}));
        QVERIFY(!refused);
        QCOMPARE(refused.error().kind, Error::Kind::Unsupported);
        QCOMPARE(refused.error().httpStatus, 501);
    }
};

QTEST_GUILESS_MAIN(TestMetrics)
#include "tst_metrics.moc"
