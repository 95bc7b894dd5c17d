// Prints the console model's figures with 10,000 workspaces in a real (offscreen) QTreeView,
// all groups expanded (issue targets in brackets); it never fails on time.
//   a refresh that changes 1% of rows, on the GUI thread      [<= 20 ms]
//   the same with the event history at work (the changes seen in the model's diff recorded,
//   shown in the Event History dock, written to its file)     [<= 20 ms]
//   the per-second countdown tick                             [<= 2 ms]
//   the notifications' share: the expiry watch following every row (its first read, a refresh
//   with it, its per-second check with nothing due and with rows crossing, the tray's counts)
//                                                             [<= 20 ms stall, <= 1 ms per tick]
//   resident memory                                           [<= 150 MB]
// Then the real window over paddock-fake-opensandbox on 127.0.0.1 with 10,000 sandboxes:
//   the longest GUI-thread stall during a refresh                [<= 50 ms]
//   the longest GUI-thread stall during a bulk pause of 1,000    [<= 50 ms]
// Then the real window over a Kubernetes profile on paddock-fake-kubernetes with as many Pods,
// watched (the interval refresh off, so only the watch changes the tree):
//   a Pod's status patched on the cluster -> its row changed, one at a time  [<= 1 s]
//   N Pods patched at once: the last row changed, the longest GUI stall      [<= 50 ms]
// A stall is the longest gap between two beats of a 1 ms timer, less the 1 ms.
//
// `--faults` instead: the real window over paddock-fake-opensandbox failing 30% of its requests
// (`--fail-rate`), killed (SIGKILL) and started again on the same ports and data folder twice
// (`--refreshes N` in all, 1,000 by default; the kills at N/5 and N/2), some rows selected, each
// refresh triggered through the Refresh action and waited for (MainWindow::refreshed):
//   the longest GUI-thread stall over the whole run                      [<= 100 ms]
//   failed refreshes whose failure shows in place (the profile's problem next to the switcher
//   and on its entry, the rows greyed "last seen")                        [all]
//   refreshes after each restart until the rows are live again           [1]
//   refreshes that kept the selection                                    [every one]
//   resident memory after the first 100 refreshes and at the end         [growth <= 10%]

#include "backends/opensandbox/opensandboxbackend.h"
#include "benchsupport.h"
#include "confirmdialog.h"
#include "consoleevents.h"
#include "eventhistory.h"
#include "eventhistorydock.h"
#include "eventhistorymodel.h"
#include "expirywatch.h"
#include "fakekubernetesprocess.h"
#include "fakeopensandboxprocess.h"
#include "liveupdates.h"
#include "mainwindow.h"
#include "metricshistory.h"
#include "notificationcenter.h"
#include "notifier.h"
#include "profilesession.h"
#include "workspacefilterproxy.h"
#include "workspacetreemodel.h"
#include "workspaceview.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QCommandLineParser>
#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QFile>
#include <QHash>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QMessageBox>
#include <QMutex>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QPushButton>
#include <QScopeGuard>
#include <QSet>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>
#include <QTreeView>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <functional>
#include <optional>
#include <vector>

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

using namespace Paddock;
using namespace PaddockBench;

namespace {

// `count` rows of `profile`, spread over `users` users from user-`firstUser` (eight agents each).
QList<WorkspaceRecord> listing(int count, int generation, const QDateTime &now,
                               const QString &profile = QStringLiteral("bench"), int users = 50, int firstUser = 0)
{
    QList<WorkspaceRecord> records;
    records.reserve(count);
    for (int i = 0; i < count; ++i) {
        WorkspaceRecord r;
        r.profile = profile;
        // 1% of the rows differ from one generation to the next: half change state, a quarter
        // are replaced by new ones.
        const bool replaced = i % 400 == generation % 400;
        r.info.sandboxId =
            replaced ? QStringLiteral("gen%1-%2").arg(generation).arg(i) : QStringLiteral("ws-%1").arg(i);
        r.info.workspaceId = r.info.sandboxId;
        r.info.userId = QStringLiteral("user-%1").arg(firstUser + i % users);
        r.info.agentId = QStringLiteral("agent-%1").arg(i % 8);
        const bool flipped = i % 200 == generation % 200;
        r.info.state = (i % 4 == 0) != flipped ? SandboxState::Paused : SandboxState::Running;
        r.info.rawState = sandboxStateName(r.info.state);
        r.info.backend = QStringLiteral("opensandbox");
        r.info.image = QStringLiteral("python:3.11-slim");
        r.info.createdAt = now.addSecs(-i);
        r.info.expiresAt = now.addSecs(1800 + i);
        r.idleDeadline = now.addSecs(3600 - i % 3600);
        r.info.metadata.insert(WorkspaceIdKey, r.info.workspaceId);
        r.info.metadata.insert(UserIdKey, r.info.userId);
        r.info.metadata.insert(AgentIdKey, r.info.agentId);
        records.append(r);
    }
    return records;
}

int liveWindow(int count, int pauseCount)
{
    PaddockTest::FakeOpenSandboxProcess server;
    if (!server.start({QStringLiteral("--seed"), QString::number(count)})) {
        std::fprintf(stderr, "cannot start the fake server: %s\n", qPrintable(server.error()));
        return 1;
    }
    OpenSandbox::BackendOptions options;
    options.connection.domain = server.domain();
    Profile profile;
    profile.id = QStringLiteral("bench");
    profile.kind = Profile::Kind::OpenSandbox;
    profile.domain = server.domain();
    // The profile's session over that backend, as the console makes one (nothing is opened, so
    // no bootstrap log is written).
    ProfileSession session(profile, std::make_unique<OpenSandbox::OpenSandboxBackend>(options), ProvisionOptions{},
                           nullptr);
    MainWindow window;
    // Whatever way this returns, every read and action of the session ends before it is freed.
    const auto shutDown = qScopeGuard([&session] { QCoro::waitFor(session.shutdown()); });
    window.setRefreshInterval(std::chrono::seconds(0)); // only the refreshes measured here
    window.resize(1400, 900);
    window.show();
    StallMeter meter;

    // The first listing: every row is new.
    meter.start();
    window.setSession(&session);
    if (!runUntil([&window, count] { return window.model()->workspaceCount() == count; }, 120'000)) {
        std::fprintf(stderr, "the first listing did not arrive\n");
        return 1;
    }
    const double firstStall = meter.stop();
    // A refresh in the steady state (the server's list, parsed and diffed).
    std::vector<double> refreshStalls;
    for (int i = 0; i < 5; ++i) {
        meter.start();
        QCoro::waitFor(window.refresh());
        runUntil([] { return false; }, 100); // the view's share, and a paint
        refreshStalls.push_back(meter.stop());
    }

    // A bulk pause of the first `pauseCount` running workspaces, as the user would: select, Ctrl+P,
    // Yes.
    auto *view = window.findChild<QTreeView *>(QStringLiteral("workspaceView"));
    QItemSelection chosen;
    int picked = 0;
    for (const WorkspaceRecord *record : window.model()->recordsUnder({})) {
        if (picked == pauseCount)
            break;
        if (record->info.state != SandboxState::Running)
            continue;
        const QModelIndex index =
            static_cast<QAbstractProxyModel *>(view->model())->mapFromSource(window.model()->indexOfKey(record->key()));
        chosen.select(index, index);
        ++picked;
    }
    view->selectionModel()->select(chosen, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    QElapsedTimer wall;
    wall.start();
    meter.start();
    window.findChild<QAction *>(QStringLiteral("actionPause"))->trigger();
    ConfirmDialog *confirm = nullptr;
    runUntil([&] { return (confirm = window.findChild<ConfirmDialog *>(QStringLiteral("confirmAction"))); }, 10'000);
    if (!confirm) {
        std::fprintf(stderr, "no confirmation appeared\n");
        return 1;
    }
    confirm->confirmButton()->click();
    if (!runUntil([&window] { return !window.lastActionSummary().isEmpty(); }, 600'000)) {
        std::fprintf(stderr, "the bulk pause did not finish\n");
        return 1;
    }
    const double pauseStall = meter.stop();
    const double pauseSeconds = double(wall.elapsed()) / 1000.0;

    std::printf("console window over paddock-fake-opensandbox (127.0.0.1), %d sandboxes\n", count);
    std::printf("  longest GUI stall, first listing (all rows new) %8.2f ms\n", firstStall);
    std::printf("  longest GUI stall, refresh (median of 5)        %8.2f ms  [<= 50 ms]  worst %.2f ms\n",
                median(refreshStalls), *std::max_element(refreshStalls.begin(), refreshStalls.end()));
    std::printf("  longest GUI stall, bulk pause of %d           %8.2f ms  [<= 50 ms]  (%.1f s, \"%s\")\n", picked,
                pauseStall, pauseSeconds, qPrintable(window.lastActionSummary()));
    std::printf("  resident memory with the window                 %8.1f MiB [<= 150 MB]\n", residentMiB());
    return 0;
}

// Patches Pods' statuses through the fake's control route from a thread of its own, as another
// client of the cluster would: the GUI thread measured does only the console's work.
class Patcher
{
public:
    Patcher(const PaddockTest::FakeKubernetesProcess &fake, const QElapsedTimer &clock)
        : m_fake(fake)
        , m_clock(clock)
    {
        m_thread.start();
        m_context.moveToThread(&m_thread);
    }
    ~Patcher()
    {
        QMetaObject::invokeMethod(
            &m_context,
            [this] {
                m_network.reset();
                m_context.moveToThread(QCoreApplication::instance()->thread());
            },
            Qt::BlockingQueuedConnection);
        m_thread.quit();
        m_thread.wait();
    }
    Q_DISABLE_COPY_MOVE(Patcher)

    void patch(const QStringList &names)
    {
        QMetaObject::invokeMethod(&m_context, [this, names] {
            if (!m_network)
                m_network = std::make_unique<QNetworkAccessManager>();
            const QByteArray failed = R"({"phase":"Failed"})";
            for (const QString &name : names) {
                {
                    const QMutexLocker locker(&m_mutex);
                    m_sent.insert(name, m_clock.nsecsElapsed());
                }
                QNetworkReply *reply = m_network->sendCustomRequest(
                    m_fake.request(QStringLiteral("/_fake/pods/agentscope/%1/status").arg(name), false), "POST",
                    failed);
                QObject::connect(reply, &QNetworkReply::finished, reply, [this, reply] {
                    if (reply->error() != QNetworkReply::NoError)
                        ++m_failures;
                    ++m_finished;
                    reply->deleteLater();
                });
            }
        });
    }
    qint64 sentAt(const QString &name)
    {
        const QMutexLocker locker(&m_mutex);
        return m_sent.value(name);
    }
    int finished() const { return m_finished; }
    int failures() const { return m_failures; }

private:
    const PaddockTest::FakeKubernetesProcess &m_fake;
    const QElapsedTimer &m_clock;
    QThread m_thread;
    QObject m_context; // lives in m_thread
    std::unique_ptr<QNetworkAccessManager> m_network; // made and freed there
    QMutex m_mutex;
    QHash<QString, qint64> m_sent;
    std::atomic<int> m_finished{0};
    std::atomic<int> m_failures{0};
};

// The window over a Kubernetes profile (the console's path: the registry makes the backend from
// the fake's kubeconfig), watched while shown; Pods' statuses patched through the fake's control
// route, as the kubelet would report them.
int kubernetesWindow(int count, int patches)
{
    PaddockTest::FakeKubernetesProcess fake;
    if (!fake.start({QStringLiteral("--seed"), QString::number(count)})) {
        std::fprintf(stderr, "cannot start the fake cluster: %s\n", qPrintable(fake.error()));
        return 1;
    }
    Profile profile;
    profile.id = QStringLiteral("bench");
    profile.kind = Profile::Kind::Kubernetes;
    profile.kubeconfig = fake.kubeconfigPath();
    profile.kubeNamespace = QStringLiteral("agentscope");
    ProfileSession session(profile, {}, nullptr);
    MainWindow window;
    const auto shutDown = qScopeGuard([&session] { QCoro::waitFor(session.shutdown()); });
    window.setRefreshInterval(std::chrono::seconds(0)); // only the watch changes the tree
    window.resize(1400, 900);
    window.show();
    StallMeter meter;

    // The first listing, and the watch's own (each of its rows reported: unchanged, so cheap).
    meter.start();
    window.setSession(&session);
    if (!runUntil([&window, count] { return window.model()->workspaceCount() == count; }, 120'000)) {
        std::fprintf(stderr, "the first listing did not arrive\n");
        return 1;
    }
    const double firstStall = meter.stop();
    // The watch lists too, and reports each row it finds (its Pods, then its PVCs): measured
    // until they are applied and a second passed without a report.
    meter.start();
    qsizetype reported = 0;
    QElapsedTimer quiet;
    quiet.start();
    QObject::connect(window.liveUpdates(), &LiveUpdates::applied, &window, [&](qsizetype changed, qsizetype removed) {
        reported += changed + removed;
        quiet.restart();
    });
    // Both watches open means both kinds were listed (and reported); then a quiet second. (The
    // fake is asked twice a second.)
    bool watching = false;
    QElapsedTimer asked;
    asked.start();
    runUntil(
        [&] {
            if (!watching && asked.elapsed() > 500) {
                asked.restart();
                watching = fake.stats().value(QLatin1String("watches")).toInt() == 2;
                if (watching)
                    quiet.restart();
            }
            return watching && quiet.elapsed() > 1000;
        },
        120'000);
    const double watchStartStall = meter.stop();
    if (fake.stats().value(QLatin1String("watches")).toInt() != 2) {
        std::fprintf(stderr, "the watches did not start\n");
        return 1;
    }

    // Which row changed when: every dataChanged of the model is looked at for the rows awaited.
    QElapsedTimer clock;
    clock.start();
    QSet<QString> awaited;
    QHash<QString, qint64> seenAt; // sandbox id -> ns on `clock`
    WorkspaceTreeModel *model = window.model();
    QObject::connect(model, &QAbstractItemModel::dataChanged, &window,
                     [&](const QModelIndex &topLeft, const QModelIndex &bottomRight) {
                         if (awaited.isEmpty())
                             return;
                         for (int row = topLeft.row(); row <= bottomRight.row(); ++row) {
                             const WorkspaceRecord *record = model->record(model->index(row, 0, topLeft.parent()));
                             if (record && record->info.state == SandboxState::Failed
                                 && awaited.remove(record->info.sandboxId))
                                 seenAt.insert(record->info.sandboxId, clock.nsecsElapsed());
                         }
                     });
    QStringList running;
    for (const WorkspaceRecord *record : model->recordsUnder({})) {
        if (record->info.state == SandboxState::Running)
            running.append(record->info.sandboxId);
    }
    constexpr int Singles = 20;
    if (running.size() < patches + Singles) {
        std::fprintf(stderr, "only %lld running workspaces\n", qlonglong(running.size()));
        return 1;
    }
    Patcher patcher(fake, clock);
    const auto patch = [&](const QStringList &names) {
        for (const QString &name : names)
            awaited.insert(name);
        patcher.patch(names);
    };
    const auto latencies = [&](const QStringList &names) {
        std::vector<double> out;
        for (const QString &name : names)
            out.push_back(double(seenAt.value(name) - patcher.sentAt(name)) / 1e6);
        return out;
    };

    // One at a time: a change on the cluster until its row shows it.
    const QStringList singles = running.mid(0, Singles);
    for (const QString &name : singles) {
        patch({name});
        if (!runUntil([&awaited] { return awaited.isEmpty(); }, 10'000)) {
            std::fprintf(stderr, "the row of %s did not change\n", qPrintable(name));
            return 1;
        }
    }
    const std::vector<double> single = latencies(singles);

    // A burst: N Pods at once (sent from another thread, as another client of the cluster),
    // while the stall meter runs.
    runUntil([] { return false; }, 200);
    const QStringList burst = running.mid(Singles, patches);
    meter.start();
    patch(burst);
    if (!runUntil([&awaited] { return awaited.isEmpty(); }, 120'000)) {
        std::fprintf(stderr, "%lld rows did not change\n", qlonglong(awaited.size()));
        return 1;
    }
    runUntil([] { return false; }, 200); // the view's share, and a paint
    const double burstStall = meter.stop();
    const std::vector<double> burstLatencies = latencies(burst);
    if (!runUntil([&patcher, &patches] { return patcher.finished() == Singles + patches; }, 60'000)
        || patcher.failures() > 0) {
        std::fprintf(stderr, "%d patches failed\n", patcher.failures());
        return 1;
    }

    std::printf("console window over paddock-fake-kubernetes (127.0.0.1), %d Pods, watched\n", count);
    std::printf("  longest GUI stall, first listing (all rows new) %8.2f ms\n", firstStall);
    std::printf("  longest GUI stall, the watch starting (%lld applied) %8.2f ms\n", qlonglong(reported),
                watchStartStall);
    std::printf(
        "  a Pod's status patched -> its row changed       %8.2f ms  [<= 1000 ms]  median of %d, worst %.2f ms\n",
        median(single), Singles, *std::max_element(single.begin(), single.end()));
    std::printf("  %d Pods patched at once -> their rows changed %8.2f ms  (median), the last %.2f ms\n", patches,
                median(burstLatencies), *std::max_element(burstLatencies.begin(), burstLatencies.end()));
    std::printf("  longest GUI stall while their events arrive     %8.2f ms  [<= 50 ms]\n", burstStall);
    std::printf("  resident memory with the window                 %8.1f MiB\n", residentMiB());
    return 0;
}

int freePort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort();
}

// paddock-fake-opensandbox that can be killed and started again on the same ports and data folder
// (its sandboxes are kept in its state.json), as tests/bench/soak.cpp's OpenSandboxServer.
class RestartableFake
{
public:
    RestartableFake(int sandboxes, double failRate)
        : m_sandboxes(sandboxes)
        , m_failRate(failRate)
        , m_port(freePort())
        , m_execdPort(freePort())
    {
    }
    // Starts it (again); each start draws its faults from another seed.
    bool start()
    {
        m_process = std::make_unique<PaddockTest::FakeOpenSandboxProcess>();
        if (m_process->start({QStringLiteral("--port"), QString::number(m_port), QStringLiteral("--execd-port"),
                              QString::number(m_execdPort), QStringLiteral("--data-dir"), m_data.path(),
                              QStringLiteral("--seed"), QString::number(m_sandboxes), QStringLiteral("--fail-rate"),
                              QString::number(m_failRate), QStringLiteral("--fail-seed"), QString::number(++m_starts)}))
            return true;
        std::fprintf(stderr, "cannot start the fake server: %s\n", qPrintable(m_process->error()));
        return false;
    }
    void kill() { m_process->kill(); }
    QString domain() const { return QStringLiteral("127.0.0.1:%1").arg(m_port); }

private:
    int m_sandboxes;
    double m_failRate;
    int m_port;
    int m_execdPort;
    int m_starts = 0;
    QTemporaryDir m_data;
    std::unique_ptr<PaddockTest::FakeOpenSandboxProcess> m_process;
};

// The window over a fake that fails a share of its requests and is killed and started again
// twice during `refreshes` refreshes (see the top of the file).
int faultsWindow(int sandboxes, int refreshes, int downRefreshes, double failRate)
{
    // The retries and failures are what is asked for here: not logged.
    QLoggingCategory::setFilterRules(QStringLiteral("paddock.*.info=false\npaddock.*.warning=false"));
    RestartableFake fake(sandboxes, failRate);
    if (!fake.start())
        return 1;
    Profile profile;
    profile.id = QStringLiteral("bench");
    profile.name = profile.id;
    profile.kind = Profile::Kind::OpenSandbox;
    profile.domain = fake.domain();
    OpenSandbox::BackendOptions options;
    options.connection.domain = profile.domain;
    ProfileSession session(profile, std::make_unique<OpenSandbox::OpenSandboxBackend>(options), ProvisionOptions{},
                           nullptr);
    MainWindow window;
    const auto shutDown = qScopeGuard([&session] { QCoro::waitFor(session.shutdown()); });
    window.setProfiles({{profile.id, profile.name}}, profile.id);
    window.setRefreshInterval(std::chrono::seconds(0)); // only the refreshes triggered here
    window.resize(1400, 900);
    window.show();
    window.setSession(&session);
    if (!runUntil([&window, sandboxes] { return window.model()->workspaceCount() == sandboxes; }, 120'000)) {
        std::fprintf(stderr, "the first listing did not arrive\n");
        return 1;
    }

    // Every 10th workspace selected (at most eight), as the user would in the view.
    auto *view = window.findChild<QTreeView *>(QStringLiteral("workspaceView"));
    auto *proxy = static_cast<QAbstractProxyModel *>(view->model());
    auto *switcher = window.findChild<QComboBox *>(QStringLiteral("profileBox"));
    WorkspaceTreeModel *model = window.model();
    QItemSelection chosen;
    QSet<QString> expected;
    {
        const QList<const WorkspaceRecord *> records = model->recordsUnder({});
        for (qsizetype i = 0; i < records.size() && expected.size() < 8; i += 10) {
            const QModelIndex index = proxy->mapFromSource(model->indexOfKey(records.at(i)->key()));
            chosen.select(index, index);
            expected.insert(records.at(i)->info.workspaceId);
        }
    }
    const auto select = [&] {
        view->selectionModel()->select(chosen, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    };
    select();
    // What the view has selected, as workspace ids (read from the selection's ranges).
    const auto selectedIds = [&] {
        QSet<QString> ids;
        const QItemSelection selection = view->selectionModel()->selection();
        for (const QItemSelectionRange &range : selection) {
            for (int row = range.top(); row <= range.bottom(); ++row) {
                if (const WorkspaceRecord *record =
                        model->record(proxy->mapToSource(proxy->index(row, 0, range.parent()))))
                    ids.insert(record->info.workspaceId);
            }
        }
        return ids;
    };
    if (selectedIds() != expected) {
        std::fprintf(stderr, "the rows could not be selected\n");
        return 1;
    }
    // A selected row's state as the view shows it.
    const QModelIndex watchedKey = model->indexOfKey(model->recordsUnder({}).constFirst()->key());
    const QPersistentModelIndex watchedRow(
        proxy->mapFromSource(model->index(watchedKey.row(), WorkspaceTreeModel::StateColumn, watchedKey.parent())));
    const auto stateShown = [&] { return watchedRow.data().toString(); };
    const QString lastSeen = QStringLiteral("last seen");
    const auto switcherProblem = [&] {
        const int index = switcher->findData(profile.id);
        return index < 0 ? QString() : switcher->itemData(index, Qt::ToolTipRole).toString();
    };
    // A failed refresh shows in place: the profile's problem next to the switcher and on its
    // entry, its rows greyed as last seen.
    const auto failureShown = [&] {
        return !window.profileProblem().isEmpty() && !switcherProblem().isEmpty() && model->isUnreachable(profile.id)
            && stateShown().contains(lastSeen) && window.isStale();
    };
    // A good one shows every row live again, and no problem.
    const auto liveShown = [&] {
        return window.profileProblem().isEmpty() && switcherProblem().isEmpty() && !model->isUnreachable(profile.id)
            && !stateShown().contains(lastSeen) && model->workspaceCount() == sandboxes && !window.isStale();
    };

    // One refresh, as the user asks for one (View > Refresh, F5), waited for until it ends.
    QAction *refreshAction = window.findChild<QAction *>(QStringLiteral("actionRefresh"));
    const auto refreshOnce = [&]() -> std::optional<bool> {
        std::optional<bool> outcome;
        const QMetaObject::Connection connection = QObject::connect(
            &window, &MainWindow::refreshed, &window, [&outcome](bool listed) { outcome = outcome.value_or(listed); });
        refreshAction->trigger();
        runUntil([&outcome] { return outcome.has_value(); }, 300'000);
        QObject::disconnect(connection);
        return outcome;
    };

    const int warmUp = std::min(100, refreshes / 4);
    const std::vector<int> killsAt{std::max(warmUp + 1, refreshes / 5), std::max(warmUp + 2, refreshes / 2)};
    int failed = 0;
    int failedWhileDown = 0;
    int failedShown = 0;
    int goodNotShown = 0;
    int selectionLost = 0;
    int downLeft = 0; // refreshes still to run with the server down
    bool recovering = false;
    int sinceRestart = 0;
    std::vector<int> recoveries; // refreshes after each restart until a good one
    std::vector<double> stalls; // each refresh's longest
    int worstAt = 0;
    QString worstKind;
    double worstFailed = 0; // of the refreshes that failed
    double worstListed = 0; // of the others
    qint64 longest = 0; // the longest refresh, ms (one while the server is down: its retries)
    double warmMiB = 0;
    QElapsedTimer wall;
    wall.start();
    StallMeter meter;
    for (int i = 1; i <= refreshes; ++i) {
        // Killing and starting the fake blocks this thread (waitFor...): that is not the
        // console's stall, so the meter runs from each refresh's trigger to its end.
        if (std::find(killsAt.begin(), killsAt.end(), i) != killsAt.end()) {
            fake.kill();
            downLeft = std::max(1, downRefreshes);
        }
        QElapsedTimer took;
        took.start();
        meter.start();
        const std::optional<bool> listed = refreshOnce();
        stalls.push_back(meter.stop());
        longest = std::max(longest, took.elapsed());
        if (stalls.back() >= *std::max_element(stalls.begin(), stalls.end())) {
            worstAt = i;
            worstKind = !listed || !*listed ? QStringLiteral("failed")
                : recovering                ? QStringLiteral("the first after a restart")
                                            : QStringLiteral("listed");
        }
        if (!listed) {
            std::fprintf(stderr, "refresh %d did not end\n", i);
            return 1;
        }
        (*listed ? worstListed : worstFailed) = std::max(*listed ? worstListed : worstFailed, stalls.back());
        if (!*listed) {
            ++failed;
            failedWhileDown += downLeft > 0 ? 1 : 0;
            failedShown += failureShown() ? 1 : 0;
        } else if (!liveShown()) {
            ++goodNotShown;
        }
        if (recovering) {
            ++sinceRestart;
            if (*listed) {
                recoveries.push_back(sinceRestart);
                recovering = false;
            }
        }
        if (selectedIds() != expected) {
            ++selectionLost;
            select();
        }
        if (downLeft > 0 && --downLeft == 0) {
            if (!fake.start())
                return 1;
            recovering = true;
            sinceRestart = 0;
        }
        if (i == warmUp)
            warmMiB = residentMiB();
    }
    const double endMiB = residentMiB();
    const double seconds = double(wall.elapsed()) / 1000.0;
    // The machine's share: the window doing nothing for as long as the longest refresh took,
    // measured alike (a 2-core machine shared with builds stalls any thread now and then).
    meter.start();
    runUntil([] { return false; }, int(std::min<qint64>(longest, 10'000)));
    const double idleStall = meter.stop();

    QStringList recovered;
    for (int n : recoveries)
        recovered.append(QString::number(n));
    for (std::size_t i = recoveries.size(); i < killsAt.size(); ++i)
        recovered.append(QStringLiteral("never"));
    std::printf("console window under faults: paddock-fake-opensandbox (127.0.0.1), %d sandboxes, %.0f%% of requests "
                "failed, killed and started again twice\n",
                sandboxes, failRate * 100);
    std::printf("  refreshes (Refresh action, each waited for)     %8d  in %.1f s, %d while the server was down\n",
                refreshes, seconds, int(killsAt.size()) * std::max(1, downRefreshes));
    std::printf("  longest GUI stall over the run                  %8.2f ms  [<= 100 ms]  (refresh %d, %s; median "
                "%.2f ms)\n",
                *std::max_element(stalls.begin(), stalls.end()), worstAt, qPrintable(worstKind), median(stalls));
    std::printf("    of the failed refreshes, of the listed ones   %8.2f ms, %.2f ms\n", worstFailed, worstListed);
    std::printf("    idle for as long as the longest refresh (%.1f s) %6.2f ms\n", double(longest) / 1000.0, idleStall);
    std::printf("  failed refreshes shown in place                 %4d of %d  [all]  (%d while down, %d with the "
                "server up)\n",
                failedShown, failed, failedWhileDown, failed - failedWhileDown);
    std::printf("  good refreshes not shown live                   %8d  [0]\n", goodNotShown);
    std::printf("  refreshes after each restart until live         %8s  [1]\n",
                qPrintable(recovered.join(QStringLiteral(", "))));
    std::printf("  refreshes that lost the selection (%lld rows)     %8d  [0]\n", qlonglong(expected.size()),
                selectionLost);
    std::printf("  resident memory after %d refreshes, at the end  %.1f -> %.1f MiB (%+.1f%%)  [<= +10%%]\n", warmUp,
                warmMiB, endMiB, (endMiB / warmMiB - 1) * 100);
    const bool sound =
        failedShown == failed && goodNotShown == 0 && selectionLost == 0 && recoveries.size() == killsAt.size();
    return sound ? 0 : 1;
}

} // namespace

// "All profiles": `profiles` profiles of `perProfile` workspaces each in one tree (a top-level group
// per profile), through the window's proxy and view, every group expanded. A refresh is what
// AllProfiles does: each profile's listing (1% of its rows changed) applied as it comes, its
// group's freshness set, the view's share of the work between two listings. Returns the round's
// medians and worsts: the whole round, and the longest single profile's apply.
struct AllProfilesFigures
{
    double roundMs = 0;
    double roundWorstMs = 0;
    double oneMs = 0;
    double oneWorstMs = 0;
    double tickMs = 0;
    int rounds = 0;
};

AllProfilesFigures allProfilesRefresh(int profiles, int perProfile, bool sharedUsers)
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    WorkspaceTreeModel model;
    model.setProfileGroups(true);
    WorkspaceFilterProxy proxy;
    proxy.setSourceModel(&model);
    WorkspaceView view;
    view.setUniformRowHeights(true);
    view.setSortingEnabled(true);
    view.setModel(&proxy);
    view.sortByColumn(WorkspaceTreeModel::WorkspaceColumn, Qt::AscendingOrder);
    view.resize(1400, 900);
    view.show();
    QStringList ids;
    for (int p = 0; p < profiles; ++p)
        ids.append(QStringLiteral("profile-%1").arg(p + 1));
    const auto group = [](const QString &id, const QString &status) {
        WorkspaceTreeModel::ProfileGroup shown;
        shown.name = id;
        shown.backend = QStringLiteral("OpenSandbox");
        shown.status = status;
        return shown;
    };
    QHash<QString, QDateTime> idleDeadlines;
    const WorkspaceTreeModel::Decorate decorate = [&idleDeadlines](const QString &, const SandboxInfo &info,
                                                                   WorkspaceTreeModel::Decoration &decoration) {
        decoration.idleDeadline.reset();
        if (const auto it = idleDeadlines.constFind(info.workspaceId); it != idleDeadlines.cend())
            decoration.idleDeadline = *it;
    };
    const auto infos = [&](int generation, const QString &id) {
        QList<SandboxInfo> listed;
        // The same 50 users on every server (four times the groups of one profile), or each
        // server its own share of them (as many groups as one profile of them all).
        const int users = sharedUsers ? 50 : 50 / int(ids.size());
        const int first = sharedUsers ? 0 : int(ids.indexOf(id)) * users;
        for (WorkspaceRecord &record : listing(perProfile, generation, now, id, users, first)) {
            record.info.fingerprint = fingerprintOf(record.info);
            idleDeadlines.insert(record.info.workspaceId, *record.idleDeadline);
            listed.append(record.info);
        }
        return listed;
    };
    for (const QString &id : std::as_const(ids)) {
        model.setProfileGroup(id, group(id, QStringLiteral("not loaded yet")));
        model.update(id, infos(0, id), decorate);
    }
    const std::function<void(const QModelIndex &)> expand = [&](const QModelIndex &parent) {
        for (int row = 0; row < proxy.rowCount(parent); ++row) {
            const QModelIndex index = proxy.index(row, 0, parent);
            if (index.data(WorkspaceTreeModel::KindRole).value<WorkspaceTreeModel::Kind>()
                == WorkspaceTreeModel::Kind::Workspace)
                return;
            view.expand(index);
            expand(index);
        }
    };
    expand({});
    QApplication::processEvents();

    constexpr int Refreshes = 18; // half applied in one pass, half a profile at a time
    std::vector<std::vector<QList<SandboxInfo>>> prepared; // round -> profile -> listing
    for (int generation = 1; generation <= Refreshes; ++generation) {
        std::vector<QList<SandboxInfo>> round;
        for (const QString &id : std::as_const(ids))
            round.push_back(infos(generation, id));
        prepared.push_back(std::move(round));
    }
    std::vector<double> roundMs;
    std::vector<double> oneMs;
    int second = 0;
    for (size_t r = 0; r < prepared.size(); ++r) {
        auto &round = prepared[r];
        QElapsedTimer timer;
        timer.start();
        if (r % 2 == 0) {
            // The listings arrived within AllProfiles::ApplyWindow of each other: one pass, then
            // the view's share of the work once.
            for (qsizetype p = 0; p < ids.size(); ++p) {
                model.update(ids.at(p), std::move(round[size_t(p)]), decorate);
                model.setProfileGroup(ids.at(p), group(ids.at(p), QStringLiteral("updated %1 s ago").arg(second)));
            }
            QApplication::processEvents();
            roundMs.push_back(double(timer.nsecsElapsed()) / 1e6);
        } else {
            // Each arrived alone (a slow server): a pass each, the view's share after each.
            for (qsizetype p = 0; p < ids.size(); ++p) {
                QElapsedTimer one;
                one.start();
                model.update(ids.at(p), std::move(round[size_t(p)]), decorate);
                model.setProfileGroup(ids.at(p), group(ids.at(p), QStringLiteral("updated %1 s ago").arg(second)));
                QApplication::processEvents();
                oneMs.push_back(double(one.nsecsElapsed()) / 1e6);
            }
        }
        ++second;
    }
    // The per-second tick's share for the groups: each group's freshness said again.
    std::vector<double> tickMs;
    for (int t = 0; t < 20; ++t) {
        QElapsedTimer timer;
        timer.start();
        for (const QString &id : std::as_const(ids))
            model.setProfileGroup(id, group(id, QStringLiteral("updated %1 s ago").arg(second + t)));
        QApplication::processEvents();
        tickMs.push_back(double(timer.nsecsElapsed()) / 1e6);
    }
    AllProfilesFigures figures;
    figures.rounds = int(roundMs.size());
    figures.roundMs = median(roundMs);
    figures.roundWorstMs = *std::max_element(roundMs.begin(), roundMs.end());
    figures.oneMs = median(oneMs);
    figures.oneWorstMs = *std::max_element(oneMs.begin(), oneMs.end());
    figures.tickMs = median(tickMs);
    return figures;
}

// "All profiles": four profiles of a quarter of `count` each, in one tree, with the users split
// among them and with the same users on each.
void allProfilesFiguresPrinted(int count)
{
    constexpr int Profiles = 4;
    for (const bool shared : {false, true}) {
        const AllProfilesFigures all = allProfilesRefresh(Profiles, count / Profiles, shared);
        std::printf("console model, \"All profiles\": %d profiles of %d workspaces, a group each, all expanded, %s\n",
                    Profiles, count / Profiles,
                    shared ? "the same 50 users on each (4x the groups)" : "the 50 users split among them");
        std::printf(
            "  refresh changing 1%% of each profile's rows, one pass (median of %d) %6.2f ms  [<= 20 ms]  worst "
            "%.2f ms\n",
            all.rounds, all.roundMs, all.roundWorstMs);
        std::printf("    a listing arriving alone, its own pass (median) %6.2f ms  [<= 20 ms]  worst %.2f ms\n",
                    all.oneMs, all.oneWorstMs);
        std::printf("    the groups' freshness, each second       %8.3f ms\n", all.tickMs);
        std::fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    // The notifications measured go nowhere: never to a desktop's notification service.
    qputenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/paddock-bench-no-bus");
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption({QStringLiteral("workspaces"), QStringLiteral("Rows (default 10000)."), QStringLiteral("n"),
                      QStringLiteral("10000")});
    parser.addOption({QStringLiteral("ticks"), QStringLiteral("Countdown ticks to time (default 20)."),
                      QStringLiteral("n"), QStringLiteral("20")});
    parser.addOption({QStringLiteral("pause"), QStringLiteral("Workspaces the bulk pause takes (default 1000)."),
                      QStringLiteral("n"), QStringLiteral("1000")});
    parser.addOption({QStringLiteral("patches"),
                      QStringLiteral("Pods patched at once on the Kubernetes window (default 1000)."),
                      QStringLiteral("n"), QStringLiteral("1000")});
    parser.addOption({QStringLiteral("window-only"), QStringLiteral("Only the live window figures.")});
    parser.addOption({QStringLiteral("model-only"),
                      QStringLiteral("Only the model's figures (with the notifications'), no window.")});
    parser.addOption(
        {QStringLiteral("all-profiles-only"),
         QStringLiteral("Only the model's figures in \"All profiles\" (four profiles of a quarter each).")});
    parser.addOption({QStringLiteral("kubernetes-only"),
                      QStringLiteral("Only the figures of the window over a Kubernetes profile.")});
    parser.addOption({QStringLiteral("faults"),
                      QStringLiteral("Only the window under faults: the fake failing requests and restarted twice.")});
    parser.addOption({QStringLiteral("refreshes"), QStringLiteral("Refreshes under faults (default 1000)."),
                      QStringLiteral("n"), QStringLiteral("1000")});
    parser.addOption({QStringLiteral("sandboxes"), QStringLiteral("Sandboxes under faults (default 150)."),
                      QStringLiteral("n"), QStringLiteral("150")});
    parser.addOption({QStringLiteral("fail-rate"),
                      QStringLiteral("Share of the fake's requests that fail under faults (default 0.3)."),
                      QStringLiteral("p"), QStringLiteral("0.3")});
    parser.addOption({QStringLiteral("down"),
                      QStringLiteral("Refreshes while the fake is down, at each restart (default 2)."),
                      QStringLiteral("n"), QStringLiteral("2")});
    parser.process(app);
    if (parser.isSet(QStringLiteral("faults")))
        return faultsWindow(std::max(10, parser.value(QStringLiteral("sandboxes")).toInt()),
                            std::max(10, parser.value(QStringLiteral("refreshes")).toInt()),
                            parser.value(QStringLiteral("down")).toInt(),
                            parser.value(QStringLiteral("fail-rate")).toDouble());
    if (parser.isSet(QStringLiteral("window-only")))
        return liveWindow(parser.value(QStringLiteral("workspaces")).toInt(),
                          parser.value(QStringLiteral("pause")).toInt());
    if (parser.isSet(QStringLiteral("kubernetes-only")))
        return kubernetesWindow(parser.value(QStringLiteral("workspaces")).toInt(),
                                parser.value(QStringLiteral("patches")).toInt());
    const int count = parser.value(QStringLiteral("workspaces")).toInt();
    if (parser.isSet(QStringLiteral("all-profiles-only"))) {
        allProfilesFiguresPrinted(count);
        return 0;
    }
    const int ticks = std::max(1, parser.value(QStringLiteral("ticks")).toInt());

    const QDateTime now = QDateTime::currentDateTimeUtc();
    WorkspaceTreeModel model;
    // As the window shows it: through the sorting and filtering proxy.
    WorkspaceFilterProxy proxy;
    proxy.setSourceModel(&model);
    WorkspaceView view; // the window's view
    view.setUniformRowHeights(true);
    view.setSortingEnabled(true);
    view.setModel(&proxy);
    view.sortByColumn(WorkspaceTreeModel::WorkspaceColumn, Qt::AscendingOrder);
    view.resize(1400, 900);
    view.show();
    // The first listing as a backend gives it: fingerprinted where it was parsed.
    {
        QList<SandboxInfo> first;
        QHash<QString, QDateTime> deadlines;
        for (WorkspaceRecord &record : listing(count, 0, now)) {
            record.info.fingerprint = fingerprintOf(record.info);
            deadlines.insert(record.info.workspaceId, *record.idleDeadline);
            first.append(record.info);
        }
        model.update(QStringLiteral("bench"), std::move(first),
                     [&deadlines](const QString &, const SandboxInfo &info, WorkspaceTreeModel::Decoration &d) {
                         d.idleDeadline = deadlines.value(info.workspaceId);
                     });
    }
    // Expand the groups one by one: QTreeView::expandAll() in Qt 6.4 also stores every leaf as
    // expanded, a persistent index per row that each later row removal has to walk.
    for (int user = 0; user < proxy.rowCount(); ++user) {
        const QModelIndex userIndex = proxy.index(user, 0);
        view.expand(userIndex);
        for (int agent = 0; agent < proxy.rowCount(userIndex); ++agent)
            view.expand(proxy.index(agent, 0, userIndex));
    }
    QApplication::processEvents();

    // Prepare the listings first: building them is the backend's work, not the GUI thread's. They
    // go in as the window passes them: a backend's listing, completed row by row with what only
    // the console knows (here the idle deadline, looked up per row as the manager's is).
    constexpr int Refreshes = 9;
    std::vector<QList<SandboxInfo>> refreshes;
    QHash<QString, QDateTime> idleDeadlines;
    for (int generation = 1; generation <= Refreshes; ++generation) {
        QList<SandboxInfo> infos;
        for (WorkspaceRecord &record : listing(count, generation, now)) {
            record.info.fingerprint = fingerprintOf(record.info); // as the backend's parser does
            infos.append(record.info);
            idleDeadlines.insert(record.info.workspaceId, *record.idleDeadline);
        }
        refreshes.push_back(infos);
    }
    // As the window decorates the rows that are new or changed (MainWindow::refresh): the
    // manager's idle deadline looked up by workspace id (the worst case: it holds every
    // workspace), the tracker's activity by the row's key, a failed bootstrap by workspace id.
    const QHash<QString, QDateTime> activity{{QStringLiteral("bench\x1fws-7"), now}};
    const QHash<QString, QString> failures{{QStringLiteral("ws-11"), QStringLiteral("exit 3")}};
    const WorkspaceTreeModel::Decorate decorate = [&idleDeadlines, &activity,
                                                   &failures](const QString &profile, const SandboxInfo &info,
                                                              WorkspaceTreeModel::Decoration &decoration) {
        decoration.bootstrapFailure = failures.value(info.workspaceId);
        decoration.idleDeadline.reset();
        if (const auto it = idleDeadlines.constFind(info.workspaceId); it != idleDeadlines.cend())
            decoration.idleDeadline = *it;
        if (const QDateTime seen = activity.value(profile + u'\x1f' + info.sandboxId);
            seen.isValid() && (!decoration.lastActivityAt.isValid() || seen > decoration.lastActivityAt))
            decoration.lastActivityAt = seen;
    };

    std::vector<double> refreshMs;
    std::vector<double> modelMs;
    for (QList<SandboxInfo> &infos : refreshes) {
        QElapsedTimer timer;
        timer.start();
        model.update(QStringLiteral("bench"), std::move(infos), decorate);
        modelMs.push_back(double(timer.nsecsElapsed()) / 1e6);
        QApplication::processEvents(); // the view's share of the work
        refreshMs.push_back(double(timer.nsecsElapsed()) / 1e6);
    }

    // The same refreshes with the event history at work: ConsoleEvents watching the model (the
    // changes seen found in its diff), each event shown in the Event History dock (its table
    // through its filter, newest first) and written to the history file on its worker thread.
    QTemporaryDir historyDir;
    ConsoleEvents events;
    EventHistory history(historyDir.filePath(QStringLiteral("events.jsonl")));
    EventHistoryDock dock;
    dock.setSource(&events, &history);
    QObject::connect(&events, &ConsoleEvents::occurred, &history, &EventHistory::append);
    qsizetype recorded = 0;
    QObject::connect(&events, &ConsoleEvents::occurred, &dock, [&recorded] { ++recorded; });
    dock.resize(1200, 400);
    dock.show();
    // The history's own share of each refresh: from the model's diff to the last receiver of each
    // event (ObservedChanges, ConsoleEvents, the dock's table, the file's batch), all on this
    // thread, between a stamp connected before it and one connected after.
    QElapsedTimer historyClock;
    qint64 historyNs = 0;
    QObject::connect(&model, &WorkspaceTreeModel::listingApplied, &dock, [&historyClock] { historyClock.start(); });
    events.watch(&model);
    QObject::connect(&model, &WorkspaceTreeModel::listingApplied, &dock,
                     [&historyClock, &historyNs] { historyNs = historyClock.nsecsElapsed(); });
    std::vector<QList<SandboxInfo>> watched;
    for (int generation = Refreshes + 1; generation <= 2 * Refreshes + 1; ++generation) {
        QList<SandboxInfo> infos;
        for (WorkspaceRecord &record : listing(count, generation, now)) {
            record.info.fingerprint = fingerprintOf(record.info);
            infos.append(record.info);
            idleDeadlines.insert(record.info.workspaceId, *record.idleDeadline);
        }
        watched.push_back(infos);
    }
    // The first listing it sees is its baseline (no events).
    model.update(QStringLiteral("bench"), std::move(watched.front()), decorate);
    QApplication::processEvents();
    const qsizetype baselineEvents = recorded;
    std::vector<double> historyMs;
    std::vector<double> ownMs;
    for (size_t i = 1; i < watched.size(); ++i) {
        QElapsedTimer timer;
        timer.start();
        historyNs = 0;
        model.update(QStringLiteral("bench"), std::move(watched[i]), decorate);
        // The dock's table takes the burst in one insertion on the next turn: timed here.
        QElapsedTimer insertion;
        insertion.start();
        dock.model()->insertPending();
        ownMs.push_back(double(historyNs + insertion.nsecsElapsed()) / 1e6);
        QApplication::processEvents(); // the view's and the dock's share of the work
        historyMs.push_back(double(timer.nsecsElapsed()) / 1e6);
    }
    const qsizetype refreshEvents = recorded - baselineEvents;
    history.flush();

    // One tick a second of simulated time, as the console's timer would.
    QDateTime clock = QDateTime::currentDateTimeUtc();
    model.setClock([&clock] { return clock; });
    model.tick();
    // `ticks` ticks, a simulated second apart, each with the repaint it causes.
    const auto timeTicks = [&] {
        std::vector<double> ms;
        for (int i = 0; i < ticks; ++i) {
            clock = clock.addSecs(1);
            QElapsedTimer timer;
            timer.start();
            model.tick();
            QApplication::processEvents();
            ms.push_back(double(timer.nsecsElapsed()) / 1e6);
        }
        return ms;
    };
    const std::vector<double> tickMs = timeTicks();

    // The notifications' share: the expiry watch follows every row of the model (as the console's
    // does), checked once a second through the NotificationCenter.
    std::vector<QList<SandboxInfo>> watchedRefreshes;
    for (int generation = Refreshes + 1; generation <= 2 * Refreshes; ++generation) {
        QList<SandboxInfo> infos;
        for (WorkspaceRecord &record : listing(count, generation, now)) {
            record.info.fingerprint = fingerprintOf(record.info);
            infos.append(record.info);
            idleDeadlines.insert(record.info.workspaceId, *record.idleDeadline);
        }
        watchedRefreshes.push_back(infos);
    }
    qint64 wallMs = clock.toMSecsSinceEpoch();
    qint64 monoMs = 1'000'000;
    NotificationCenter center;
    center.setClocks([&wallMs] { return wallMs; }, [&monoMs] { return monoMs; });
    center.notifier()->start(); // as the console does at start (here: no bus, so nothing is shown)
    double attachMs = 0;
    // The watch's own share of a refresh: its slots run between a probe connected before it
    // (which starts a timer) and one connected after it (which adds what passed).
    QElapsedTimer inWatch;
    qint64 watchNs = 0;
    const auto before = [&inWatch] { inWatch.start(); };
    const auto after = [&inWatch, &watchNs] { watchNs += inWatch.nsecsElapsed(); };
    QObject::connect(&model, &QAbstractItemModel::rowsInserted, &model, before);
    QObject::connect(&model, &QAbstractItemModel::rowsAboutToBeRemoved, &model, before);
    QObject::connect(&model, &QAbstractItemModel::dataChanged, &model, before);
    {
        QElapsedTimer timer;
        timer.start();
        center.watch(&model);
        attachMs = double(timer.nsecsElapsed()) / 1e6;
    }
    QObject::connect(&model, &QAbstractItemModel::rowsInserted, &model, after);
    QObject::connect(&model, &QAbstractItemModel::rowsAboutToBeRemoved, &model, after);
    QObject::connect(&model, &QAbstractItemModel::dataChanged, &model, after);
    std::vector<double> watchedRefreshMs;
    std::vector<double> watchShareMs;
    for (QList<SandboxInfo> &infos : watchedRefreshes) {
        QElapsedTimer timer;
        timer.start();
        watchNs = 0;
        model.update(QStringLiteral("bench"), std::move(infos), decorate);
        watchShareMs.push_back(double(watchNs) / 1e6);
        QApplication::processEvents();
        watchedRefreshMs.push_back(double(timer.nsecsElapsed()) / 1e6);
    }
    const auto timeChecks = [&](int rounds, qint64 stepMs) {
        std::vector<double> ms;
        for (int i = 0; i < rounds; ++i) {
            wallMs += stepMs;
            monoMs += stepMs;
            QElapsedTimer timer;
            timer.start();
            center.tick();
            ms.push_back(double(timer.nsecsElapsed()) / 1e6);
        }
        return ms;
    };
    // Nothing due: the rows expire 30 minutes and more from now.
    const std::vector<double> idleChecks = timeChecks(ticks, 1000);
    // Where the 10-minute thresholds are crossed: a row or two a second (the rows' expiries are
    // a second apart), each going through the policy.
    const qint64 thresholdsAt = now.addSecs(1800 - 600).toMSecsSinceEpoch();
    monoMs += thresholdsAt - wallMs;
    wallMs = thresholdsAt;
    center.tick();
    const std::vector<double> crossingChecks = timeChecks(ticks, 1000);
    // A clock jumping 100 s forward: some 100 rows cross in one check.
    const std::vector<double> burstCheck = timeChecks(1, 100'000);
    double countsMs = 0;
    {
        QElapsedTimer timer;
        timer.start();
        const int running = center.expiry()->runningCount();
        const int soon = center.expiry()->soonCount();
        countsMs = double(timer.nsecsElapsed()) / 1e6;
        if (running < 0 || soon < 0)
            return 1;
    }

    // CPU and memory, as MetricsPoller's round does it every 5 s: the rows in view (the view's
    // own walk), their sandbox ids through the proxy, the answer into the model (dataChanged on
    // two columns of the rows that changed) and the history, and the view's repaint. The figures
    // change every round, so every row in view changes. Then the tick again, with them shown.
    MetricsHistory metricsHistory;
    std::vector<double> metricsMs;
    std::vector<double> metricsAskedMs; // the rows in view and their ids
    std::vector<double> metricsModelMs; // setMetrics: the model, the proxy and the view's dataChanged
    std::vector<double> metricsHistoryMs;
    qsizetype inView = 0;
    constexpr int MetricsRounds = 10;
    for (int round = 1; round <= MetricsRounds; ++round) {
        QElapsedTimer timer;
        timer.start();
        QStringList ids;
        const QModelIndexList rows = view.rowsInView();
        for (const QModelIndex &index : rows) {
            if (const WorkspaceRecord *record = model.record(proxy.mapToSource(index)))
                ids.append(record->info.sandboxId);
        }
        const double asked = double(timer.nsecsElapsed());
        // The answer is the backend's work (another thread, another process): made outside the time.
        QList<SandboxMetrics> answer;
        for (const QString &id : std::as_const(ids)) {
            SandboxMetrics metrics;
            metrics.sandboxId = id;
            metrics.sampledAt = clock.addSecs(5 * round);
            metrics.cpuPercent = 0.5 * round;
            metrics.memoryBytes = qint64(64 + round) << 20;
            metrics.memoryLimitBytes = qint64(1) << 30;
            answer.append(metrics);
        }
        timer.restart();
        model.setMetrics(QStringLiteral("bench"), ids, answer);
        const double set = double(timer.nsecsElapsed());
        metricsHistory.add(QStringLiteral("bench"), answer);
        const double kept = double(timer.nsecsElapsed());
        QApplication::processEvents();
        metricsMs.push_back((asked + double(timer.nsecsElapsed())) / 1e6);
        metricsAskedMs.push_back(asked / 1e6);
        metricsModelMs.push_back(set / 1e6);
        metricsHistoryMs.push_back((kept - set) / 1e6);
        inView = ids.size();
    }
    const std::vector<double> tickWithMetricsMs = timeTicks();

    const double memoryMiB = residentMiB(); // with every row, before the burst below empties the model
    // The worst burst the history takes: a listing in which every row vanished (the server's
    // sandboxes all deleted), one event each.
    double vanishedMs = 0;
    double vanishedOwnMs = 0;
    qsizetype vanished = 0;
    {
        const qsizetype before = recorded;
        QElapsedTimer timer;
        timer.start();
        historyNs = 0;
        model.update(QStringLiteral("bench"), QList<SandboxInfo>{}, decorate);
        QElapsedTimer insertion;
        insertion.start();
        dock.model()->insertPending();
        vanishedOwnMs = double(historyNs + insertion.nsecsElapsed()) / 1e6;
        QApplication::processEvents();
        vanishedMs = double(timer.nsecsElapsed()) / 1e6;
        vanished = recorded - before;
        history.flush();
    }

    std::printf("console model, %d workspaces in a QTreeView through the window's proxy, all groups expanded\n", count);
    std::printf("  refresh changing 1%% of rows (median of %d) %8.2f ms  [<= 20 ms]  worst %.2f ms\n", Refreshes,
                median(refreshMs), *std::max_element(refreshMs.begin(), refreshMs.end()));
    std::printf("    of which the model's update()          %8.2f ms\n", median(modelMs));
    std::printf("  the same with the event history (median of %d) %8.2f ms  [<= 20 ms]  worst %.2f ms, %.0f events a "
                "refresh (baseline: %lld)\n",
                int(historyMs.size()), median(historyMs), *std::max_element(historyMs.begin(), historyMs.end()),
                double(refreshEvents) / double(historyMs.size()), qlonglong(baselineEvents));
    std::printf("    of which the history's own work           %8.2f ms  worst %.2f ms (the diff to the last receiver, "
                "and the table's insertion)\n",
                median(ownMs), *std::max_element(ownMs.begin(), ownMs.end()));
    std::printf("  countdown tick (median of %3d)           %8.2f ms  [<= 2 ms]   worst %.2f ms\n", ticks,
                median(tickMs), *std::max_element(tickMs.begin(), tickMs.end()));
    std::printf("  every row vanished at once: %lld events, %8.2f ms, of which the history's own work %.2f ms\n",
                qlonglong(vanished), vanishedMs, vanishedOwnMs);
    std::printf("  resident memory                          %8.1f MiB [<= 150 MB]\n", memoryMiB);
    std::printf("  notifications: the expiry watch over every row\n");
    std::printf("    its first read of the rows (a stall once)  %8.2f ms  [<= 20 ms]\n", attachMs);
    std::printf(
        "    refresh changing 1%% of rows, watched      %8.2f ms  [<= 20 ms]  worst %.2f ms (unwatched %.2f ms)\n",
        median(watchedRefreshMs), *std::max_element(watchedRefreshMs.begin(), watchedRefreshMs.end()),
        median(refreshMs));
    std::printf("      of which the watch's own share           %8.3f ms            worst %.3f ms\n",
                median(watchShareMs), *std::max_element(watchShareMs.begin(), watchShareMs.end()));
    std::printf("    per-second check, nothing due (median)     %8.4f ms  [<= 1 ms]   worst %.4f ms\n",
                median(idleChecks), *std::max_element(idleChecks.begin(), idleChecks.end()));
    std::printf("    per-second check, rows crossing (median)   %8.4f ms  [<= 1 ms]   worst %.4f ms\n",
                median(crossingChecks), *std::max_element(crossingChecks.begin(), crossingChecks.end()));
    std::printf("    a check where ~100 rows cross at once      %8.4f ms\n", burstCheck.front());
    std::printf("    the tray's counts (running, expiring soon) %8.4f ms\n", countsMs);
    std::printf("  CPU and memory round, %lld rows in view (median of %d) %6.2f ms  [<= 20 ms]  worst %.2f ms\n",
                qlonglong(inView), MetricsRounds, median(metricsMs),
                *std::max_element(metricsMs.begin(), metricsMs.end()));
    std::printf("    of which the rows in view %.2f ms, the model %.2f ms, the history %.2f ms, the rest the repaint\n",
                median(metricsAskedMs), median(metricsModelMs), median(metricsHistoryMs));
    std::printf("    per second (one round every 5 s)       %8.2f ms  [<= 1 ms]\n", median(metricsMs) / 5.0);
    std::printf("  countdown tick with the figures shown    %8.2f ms  (%+.2f ms)  [<= +1 ms]\n",
                median(tickWithMetricsMs), median(tickWithMetricsMs) - median(tickMs));
    std::fflush(stdout);
    allProfilesFiguresPrinted(count);
    if (parser.isSet(QStringLiteral("model-only")))
        return 0;
    // The windows' figures each in a fresh process, so that its memory is its own.
    QProcess window;
    window.setProcessChannelMode(QProcess::ForwardedChannels);
    window.start(QCoreApplication::applicationFilePath(),
                 {QStringLiteral("--window-only"), QStringLiteral("--workspaces"), QString::number(count),
                  QStringLiteral("--pause"), parser.value(QStringLiteral("pause"))});
    window.waitForFinished(-1);
    if (window.exitStatus() != QProcess::NormalExit || window.exitCode() != 0)
        return 1;
    QProcess kubernetes;
    kubernetes.setProcessChannelMode(QProcess::ForwardedChannels);
    kubernetes.start(QCoreApplication::applicationFilePath(),
                     {QStringLiteral("--kubernetes-only"), QStringLiteral("--workspaces"), QString::number(count),
                      QStringLiteral("--patches"), parser.value(QStringLiteral("patches"))});
    kubernetes.waitForFinished(-1);
    return kubernetes.exitStatus() == QProcess::NormalExit ? kubernetes.exitCode() : 1;
}
