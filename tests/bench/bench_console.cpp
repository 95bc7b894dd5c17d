// Prints the console model's figures with 10,000 workspaces in a real (offscreen) QTreeView,
// all groups expanded (issue targets in brackets); it never fails on time.
//   a refresh that changes 1% of rows, on the GUI thread      [<= 20 ms]
//   the per-second countdown tick                             [<= 2 ms]
//   resident memory                                           [<= 150 MB]

#include "workspacefilterproxy.h"
#include "workspacetreemodel.h"
#include "workspaceview.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFile>
#include <QTreeView>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace Paddock;

namespace {

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return values.at(values.size() / 2);
}

double residentMiB()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : status.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toDouble() / 1024.0;
    }
    return -1;
}

QList<WorkspaceRecord> listing(int count, int generation, const QDateTime &now)
{
    QList<WorkspaceRecord> records;
    records.reserve(count);
    for (int i = 0; i < count; ++i) {
        WorkspaceRecord r;
        r.profile = QStringLiteral("bench");
        // 1% of the rows differ from one generation to the next: half change state, a quarter
        // are replaced by new ones.
        const bool replaced = i % 400 == generation % 400;
        r.info.sandboxId =
            replaced ? QStringLiteral("gen%1-%2").arg(generation).arg(i) : QStringLiteral("ws-%1").arg(i);
        r.info.workspaceId = r.info.sandboxId;
        r.info.userId = QStringLiteral("user-%1").arg(i % 50);
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

} // namespace

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption({QStringLiteral("workspaces"), QStringLiteral("Rows (default 10000)."), QStringLiteral("n"),
                      QStringLiteral("10000")});
    parser.addOption({QStringLiteral("ticks"), QStringLiteral("Countdown ticks to time (default 20)."), QStringLiteral("n"),
                      QStringLiteral("20")});
    parser.process(app);
    const int count = parser.value(QStringLiteral("workspaces")).toInt();
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
    model.update(QStringLiteral("bench"), listing(count, 0, now));
    // Expand the groups one by one: QTreeView::expandAll() in Qt 6.4 also stores every leaf as
    // expanded, a persistent index per row that each later row removal has to walk.
    for (int user = 0; user < proxy.rowCount(); ++user) {
        const QModelIndex userIndex = proxy.index(user, 0);
        view.expand(userIndex);
        for (int agent = 0; agent < proxy.rowCount(userIndex); ++agent)
            view.expand(proxy.index(agent, 0, userIndex));
    }
    QApplication::processEvents();

    // Prepare the listings first: building them is the backend's work, not the GUI thread's.
    constexpr int Refreshes = 9;
    std::vector<QList<WorkspaceRecord>> refreshes;
    for (int generation = 1; generation <= Refreshes; ++generation)
        refreshes.push_back(listing(count, generation, now));

    std::vector<double> refreshMs;
    std::vector<double> modelMs;
    for (const QList<WorkspaceRecord> &records : refreshes) {
        QElapsedTimer timer;
        timer.start();
        model.update(QStringLiteral("bench"), records);
        modelMs.push_back(double(timer.nsecsElapsed()) / 1e6);
        QApplication::processEvents(); // the view's share of the work
        refreshMs.push_back(double(timer.nsecsElapsed()) / 1e6);
    }

    // One tick a second of simulated time, as the console's timer would.
    QDateTime clock = QDateTime::currentDateTimeUtc();
    model.setClock([&clock] { return clock; });
    model.tick();
    std::vector<double> tickMs;
    for (int i = 0; i < ticks; ++i) {
        clock = clock.addSecs(1);
        QElapsedTimer timer;
        timer.start();
        model.tick();
        QApplication::processEvents();
        tickMs.push_back(double(timer.nsecsElapsed()) / 1e6);
    }

    std::printf("console model, %d workspaces in a QTreeView through the window's proxy, all groups expanded\n", count);
    std::printf("  refresh changing 1%% of rows (median of %d) %8.2f ms  [<= 20 ms]  worst %.2f ms\n", Refreshes,
                median(refreshMs), *std::max_element(refreshMs.begin(), refreshMs.end()));
    std::printf("    of which the model's update()          %8.2f ms\n", median(modelMs));
    std::printf("  countdown tick (median of %3d)           %8.2f ms  [<= 2 ms]   worst %.2f ms\n", ticks, median(tickMs),
                *std::max_element(tickMs.begin(), tickMs.end()));
    std::printf("  resident memory                          %8.1f MiB [<= 150 MB]\n", residentMiB());
    return 0;
}
