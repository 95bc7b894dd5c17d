// The console's CPU and memory: MetricsPoller asks the session for the rows in view only, at
// most once per interval, never twice at once, not while the window is hidden, and stops asking
// a server that does not report them after saying so once; MetricsHistory keeps a bounded ring
// per workspace; MetricsChart shows it and says its last values in words.

#include "backends/local/localbackend.h"
#include "broadcast.h"
#include "metricschart.h"
#include "metricshistory.h"
#include "metricspoller.h"
#include "testsession.h"
#include "workspacetreemodel.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Paddock;
using namespace PaddockTest;

namespace {

struct Calls
{
    QList<QStringList> asked;
    bool refuse = false; // answer Unsupported, as a server without the route
    std::shared_ptr<Broadcast<bool>> hold; // set: the answer waits for it
};

// Figures made up per id: CPU 10 per call so far, memory 1 MiB.
class MeteredBackend final : public LocalBackend
{
public:
    MeteredBackend(LocalOptions options, std::shared_ptr<Calls> calls)
        : LocalBackend(std::move(options))
        , m_calls(std::move(calls))
    {
    }
    QCoro::Task<Result<QList<SandboxMetrics>>> metrics(QStringList ids) override
    {
        const std::shared_ptr<Calls> calls = m_calls;
        calls->asked.append(ids);
        if (calls->hold)
            co_await calls->hold->wait();
        if (calls->refuse)
            co_return fail(Backend::metricsNotReported(404));
        QList<SandboxMetrics> list;
        for (const QString &id : std::as_const(ids)) {
            SandboxMetrics metrics;
            metrics.sandboxId = id;
            metrics.sampledAt = QDateTime::currentDateTimeUtc();
            metrics.cpuPercent = 10.0 * calls->asked.size();
            metrics.memoryBytes = 1 << 20;
            list.append(metrics);
        }
        co_return list;
    }

private:
    std::shared_ptr<Calls> m_calls;
};

WorkspaceRecord record(const QString &id)
{
    WorkspaceRecord r;
    r.profile = QStringLiteral("local");
    r.info.sandboxId = id;
    r.info.workspaceId = id;
    r.info.userId = QStringLiteral("u");
    r.info.agentId = QStringLiteral("a");
    r.info.state = SandboxState::Running;
    r.info.backend = QStringLiteral("local");
    return r;
}

SandboxMetrics sample(const QDateTime &at, std::optional<double> cpu, std::optional<qint64> memory)
{
    SandboxMetrics metrics;
    metrics.sandboxId = QStringLiteral("a");
    metrics.sampledAt = at;
    metrics.cpuPercent = cpu;
    metrics.memoryBytes = memory;
    return metrics;
}

} // namespace

class TestMetricsPoller final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void asksForTheRowsInViewAtMostOncePerInterval()
    {
        QTemporaryDir base;
        auto calls = std::make_shared<Calls>();
        TestSession<MeteredBackend> session(std::make_unique<MeteredBackend>(LocalOptions{base.path()}, calls));
        WorkspaceTreeModel model;
        model.setCapabilities(QStringLiteral("local"), session->capabilities());
        model.update(QStringLiteral("local"),
                     {record(QStringLiteral("a")), record(QStringLiteral("b")), record(QStringLiteral("c"))});
        MetricsHistory history;
        MetricsPoller poller(&model, &history);
        QStringList inView{QStringLiteral("a"), QStringLiteral("b")};
        poller.setRowsInView([&inView] { return inView; });
        poller.setSession(session.get(), QStringLiteral("local"));
        QSignalSpy polled(&poller, &MetricsPoller::polled);

        // Hidden: nothing is asked, whatever the view does.
        poller.viewChanged();
        QCOMPARE(calls->asked.size(), 0);
        // Shown: the rows in view at once, and their figures in the model and the history.
        poller.setActive(true);
        QTRY_COMPARE(polled.size(), 1);
        QCOMPARE(calls->asked, (QList<QStringList>{inView}));
        QVERIFY(model.metrics(QStringLiteral("local\x1f"
                                             "a")));
        QVERIFY(!model.metrics(QStringLiteral("local\x1f"
                                              "c"))); // not in view: not asked
        QCOMPARE(history
                     .samples(QStringLiteral("local\x1f"
                                             "a"))
                     .size(),
                 1);
        // Scrolling within the interval asks nothing more.
        inView = QStringList{QStringLiteral("c")};
        poller.viewChanged();
        QCOMPARE(calls->asked.size(), 1);
        QCOMPARE(poller.requestCount(), 1);
        // Hidden again: the timer stops.
        poller.setActive(false);
        QVERIFY(!poller.isActive());
    }

    void neverTwoRequestsAtOnce()
    {
        QTemporaryDir base;
        auto calls = std::make_shared<Calls>();
        calls->hold = std::make_shared<Broadcast<bool>>();
        TestSession<MeteredBackend> session(std::make_unique<MeteredBackend>(LocalOptions{base.path()}, calls));
        WorkspaceTreeModel model;
        model.update(QStringLiteral("local"), {record(QStringLiteral("a"))});
        MetricsHistory history;
        MetricsPoller poller(&model, &history);
        poller.setRowsInView([] { return QStringList{QStringLiteral("a")}; });
        poller.setSession(session.get(), QStringLiteral("local"));
        auto first = poller.poll();
        QCOMPARE(calls->asked.size(), 1);
        // The first is still under way: the second round asks nothing.
        QVERIFY(!QCoro::waitFor(poller.poll()));
        QCOMPARE(calls->asked.size(), 1);
        calls->hold->set(true);
        QVERIFY(QCoro::waitFor(first));
        QVERIFY(QCoro::waitFor(poller.poll()));
        QCOMPARE(calls->asked.size(), 2);
    }

    void aServerWithoutFiguresIsSaidOnceAndNotAskedAgain()
    {
        QTemporaryDir base;
        auto calls = std::make_shared<Calls>();
        calls->refuse = true;
        TestSession<MeteredBackend> session(std::make_unique<MeteredBackend>(LocalOptions{base.path()}, calls));
        WorkspaceTreeModel model;
        model.setCapabilities(QStringLiteral("local"), session->capabilities());
        model.update(QStringLiteral("local"), {record(QStringLiteral("a"))});
        MetricsHistory history;
        MetricsPoller poller(&model, &history);
        poller.setRowsInView([] { return QStringList{QStringLiteral("a")}; });
        poller.setSession(session.get(), QStringLiteral("local"));
        QSignalSpy notices(&poller, &MetricsPoller::notice);
        QVERIFY(QCoro::waitFor(poller.poll()));
        QCOMPARE(notices.size(), 1);
        QVERIFY(notices.first().first().toString().contains(Backend::metricsNotReported().message));
        QVERIFY(poller.isRefused(QStringLiteral("local")));
        QCOMPARE(model
                     .indexOfKey(QStringLiteral("local\x1f"
                                                "a"),
                                 WorkspaceTreeModel::CpuColumn)
                     .data(Qt::ToolTipRole)
                     .toString(),
                 QStringLiteral("Not reported by this server"));
        // Not asked again, not said again.
        QVERIFY(!QCoro::waitFor(poller.poll()));
        QCOMPARE(calls->asked.size(), 1);
        QCOMPARE(notices.size(), 1);

        // The profile's session made again: asked again.
        QTemporaryDir other;
        auto again = std::make_shared<Calls>();
        TestSession<MeteredBackend> remade(std::make_unique<MeteredBackend>(LocalOptions{other.path()}, again));
        poller.setSession(remade.get(), QStringLiteral("local"));
        QVERIFY(!poller.isRefused(QStringLiteral("local")));
        QVERIFY(QCoro::waitFor(poller.poll()));
        QCOMPARE(again->asked.size(), 1);
        QVERIFY(model.metrics(QStringLiteral("local\x1f"
                                             "a")));
    }

    void theHistoryIsABoundedRingOverTheLastMinutes()
    {
        MetricsHistory history;
        const QDateTime start(QDate(2026, 12, 6), QTime(2, 0), Qt::UTC);
        for (int i = 0; i < MetricsHistory::Capacity + 30; ++i)
            history.add(QStringLiteral("p"), {sample(start.addSecs(5 * i), i, 1000 + i)});
        const auto kept = history.samples(QStringLiteral("p\x1f"
                                                         "a"));
        QCOMPARE(kept.size(), MetricsHistory::Capacity);
        QCOMPARE(kept.last().cpuPercent, std::optional<double>(MetricsHistory::Capacity + 29));
        QVERIFY(kept.first().sampledAt.secsTo(kept.last().sampledAt) <= MetricsHistory::SpanSeconds);
        // The same sample again is not kept twice.
        history.add(QStringLiteral("p"), {kept.last()});
        QCOMPARE(history
                     .samples(QStringLiteral("p\x1f"
                                             "a"))
                     .size(),
                 MetricsHistory::Capacity);
        history.removeProfile(QStringLiteral("p"));
        QCOMPARE(history.workspaceCount(), 0);
    }

    void theChartShowsTheSamplesAndSaysTheLastValues()
    {
        MetricsChart chart;
        QCOMPARE(chart.accessibleDescription(), chart.summary());
        const QDateTime start(QDate(2026, 12, 6), QTime(2, 0), Qt::UTC);
        chart.setSamples({sample(start, 50.0, qint64(100) << 20),
                          sample(start.addSecs(5), std::nullopt, qint64(120) << 20),
                          sample(start.addSecs(10), 250.0, qint64(200) << 20)});
        // CPU over whole cores up to the highest figure; memory up to the highest (no limit).
        QCOMPARE(chart.cpuTop(), 300.0);
        QCOMPARE(chart.memoryTop(), double(qint64(200) << 20));
        const QString text = chart.accessibleDescription();
        QVERIFY2(text.contains(WorkspaceTreeModel::formatCpu(250.0)), qPrintable(text));
        QVERIFY2(text.contains(WorkspaceTreeModel::formatBytes(qint64(200) << 20)), qPrintable(text));
        // Painted without a crash at a small size, with a gap.
        chart.resize(200, 80);
        QImage image(chart.size(), QImage::Format_ARGB32);
        chart.render(&image);
        // A limit sets the memory scale.
        SandboxMetrics limited = sample(start.addSecs(15), 10.0, qint64(200) << 20);
        limited.memoryLimitBytes = qint64(1) << 30;
        chart.setSamples({limited});
        QCOMPARE(chart.memoryTop(), double(qint64(1) << 30));
        QVERIFY(chart.accessibleDescription().contains(QStringLiteral("1 GiB")));
        QCOMPARE(chart.legend().constFirst(), QStringLiteral("CPU ") + WorkspaceTreeModel::formatCpu(10.0));

        // Paused: the last sample is no longer current; the legend and the words say so, and
        // running again shows the figures.
        chart.setRunning(false);
        QCOMPARE(chart.legend(), (QStringList{QStringLiteral("CPU \u2014"), QStringLiteral("Memory \u2014")}));
        QCOMPARE(chart.accessibleDescription(), QStringLiteral("Not running: no current CPU or memory figures"));
        chart.render(&image);
        chart.setRunning(true);
        QCOMPARE(chart.legend().constFirst(), QStringLiteral("CPU ") + WorkspaceTreeModel::formatCpu(10.0));
    }
};

QTEST_MAIN(TestMetricsPoller)
#include "tst_metricspoller.moc"
