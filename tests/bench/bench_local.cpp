// Prints how long the local backend keeps the GUI thread from its event loop (the longest gap
// between beats of a 1 ms timer), issue 15's target in brackets; it never fails on time.
//   a bulk pause of N workspaces through Paddock::runBounded (the console's concurrency, 8)  [<= 20 ms]
//   the same through a local profile's ProfileSession (the console's path: its bulk job)     [<= 20 ms]
//   the kill of one workspace of F files                                                    [<= 20 ms]
// The workspaces live in a temporary folder under --dir (default: the system's temporary folder;
// give a folder on a real disk to measure one).

#include "backends/local/localbackend.h"
#include "benchsupport.h"
#include "bulk.h"
#include "profilesession.h"

#include <QCoroTask>

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QLoggingCategory>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

using namespace Paddock;
using namespace PaddockBench;

namespace {

template<typename T> T settle(QCoro::Task<T> task, int timeoutMs = 600'000)
{
    if (!runUntil([&task] { return task.isReady(); }, timeoutMs))
        qFatal("timed out");
    return QCoro::waitFor(std::move(task));
}

// A few beats of the meter after the work: work done inside the call that started it (before
// the event loop ran at all) shows as the gap before the first of them.
void beatAFewTimes()
{
    const QDeadlineTimer tail(5);
    runUntil([&tail] { return tail.hasExpired(); }, 1'000);
}

struct Figures
{
    std::vector<double> stalls;
    std::vector<double> totals;
    void print(const char *what) const
    {
        std::printf("%s: longest GUI stall %.1f ms median, %.1f ms worst [target <= 20 ms]; %.1f ms for the whole "
                    "(median of %zu)\n",
                    what, median(stalls), *std::max_element(stalls.cbegin(), stalls.cend()), median(totals),
                    stalls.size());
    }
};

Figures bulkPause(LocalBackend &backend, const QList<QString> &ids, int concurrency, int rounds)
{
    Figures figures;
    const std::function<QCoro::Task<Result<>>(const QString &)> pause = [&backend](const QString &id) {
        return backend.pause(id);
    };
    const std::function<QCoro::Task<Result<>>(const QString &)> resume =
        [&backend](const QString &id) -> QCoro::Task<Result<>> {
        auto resumed = co_await backend.resume(id);
        if (!resumed)
            co_return fail(resumed.error());
        co_return Result<>{};
    };
    for (int round = 0; round < rounds; ++round) {
        StallMeter meter;
        QElapsedTimer clock;
        meter.start();
        clock.start();
        const QList<Result<>> results = settle(runBounded<QString>(ids, concurrency, pause));
        figures.totals.push_back(double(clock.nsecsElapsed()) / 1e6);
        beatAFewTimes();
        figures.stalls.push_back(meter.stop());
        for (const Result<> &result : results) {
            if (!result)
                qFatal("pause failed: %s", qPrintable(result.error().message));
        }
        settle(runBounded<QString>(ids, concurrency, resume)); // for the next round
    }
    return figures;
}

// The console's path: the session's bulk job (runBounded inside, eight at once), each pause
// through the session (the manager's cache looked at first).
Figures sessionPause(const QString &basedir, int rounds)
{
    Figures figures;
    Profile profile = Profile::local();
    profile.basedir = basedir;
    ProfileSession session(profile, {}, nullptr);
    auto listed = settle(session.list());
    if (!listed)
        qFatal("cannot list: %s", qPrintable(listed.error().message));
    QList<SandboxInfo> running = *listed;
    for (int round = 0; round < rounds; ++round) {
        StallMeter meter;
        QElapsedTimer clock;
        meter.start();
        clock.start();
        const QList<ItemResult> results = settle(session.run(WorkspaceAction::Pause, running));
        figures.totals.push_back(double(clock.nsecsElapsed()) / 1e6);
        beatAFewTimes();
        figures.stalls.push_back(meter.stop());
        for (const ItemResult &result : results) {
            if (!result.ok())
                qFatal("pause failed: %s", qPrintable(result.error->message));
        }
        settle(session.run(WorkspaceAction::Resume, running)); // for the next round
    }
    settle(session.shutdown());
    return figures;
}

Figures killBig(LocalBackend &backend, int files, int rounds)
{
    Figures figures;
    const QString id = QStringLiteral("big");
    for (int round = 0; round < rounds; ++round) {
        if (!settle(backend.create(CreateSpec{id, QStringLiteral("bench"), QStringLiteral("agent"), {}})))
            qFatal("cannot create the big workspace");
        const QString folder = backend.basedir() + u'/' + id;
        for (int i = 0; i < files; ++i) {
            const QString dir = folder + QStringLiteral("/sessions/s%1").arg(i / 100);
            if (i % 100 == 0)
                QDir().mkpath(dir);
            QFile file(dir + QStringLiteral("/f%1.json").arg(i));
            if (!file.open(QIODevice::WriteOnly) || file.write("{}\n") != 3)
                qFatal("cannot write %s", qPrintable(file.fileName()));
        }
        StallMeter meter;
        QElapsedTimer clock;
        meter.start();
        clock.start();
        const Result<> killed = settle(backend.kill(id, {}));
        figures.totals.push_back(double(clock.nsecsElapsed()) / 1e6);
        beatAFewTimes();
        figures.stalls.push_back(meter.stop());
        if (!killed)
            qFatal("kill failed: %s", qPrintable(killed.error().message));
    }
    return figures;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QLoggingCategory::setFilterRules(QStringLiteral("paddock.core.local.info=false"));
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOptions({
        {QStringLiteral("workspaces"), QStringLiteral("Workspaces paused in bulk."), QStringLiteral("N"),
         QStringLiteral("200")},
        {QStringLiteral("files"), QStringLiteral("Files in the killed workspace."), QStringLiteral("N"),
         QStringLiteral("20000")},
        {QStringLiteral("concurrency"), QStringLiteral("Pauses in flight at once."), QStringLiteral("N"),
         QStringLiteral("8")},
        {QStringLiteral("rounds"), QStringLiteral("Rounds of each."), QStringLiteral("N"), QStringLiteral("5")},
        {QStringLiteral("dir"), QStringLiteral("Where the temporary base folder goes."), QStringLiteral("DIR"),
         QDir::tempPath()},
    });
    parser.process(app);
    const int workspaces = parser.value(QStringLiteral("workspaces")).toInt();
    const int files = parser.value(QStringLiteral("files")).toInt();
    const int concurrency = parser.value(QStringLiteral("concurrency")).toInt();
    const int rounds = std::max(1, parser.value(QStringLiteral("rounds")).toInt());

    QTemporaryDir dir(parser.value(QStringLiteral("dir")) + QStringLiteral("/paddock-bench-local-XXXXXX"));
    if (!dir.isValid())
        qFatal("cannot make a temporary folder");
    LocalBackend backend(LocalOptions{dir.path(), false});
    QList<QString> ids;
    for (int i = 0; i < workspaces; ++i) {
        const QString id = QStringLiteral("ws-%1").arg(i, 4, 10, QLatin1Char('0'));
        if (!settle(backend.create(CreateSpec{id, QStringLiteral("bench"), QStringLiteral("agent"), {}})))
            qFatal("cannot create %s", qPrintable(id));
        ids.append(id);
    }

    std::printf("paddock-bench-local in %s\n", qPrintable(dir.path()));
    bulkPause(backend, ids, concurrency, rounds)
        .print(qPrintable(
            QStringLiteral("bulk pause of %1 local workspaces (concurrency %2)").arg(workspaces).arg(concurrency)));
    sessionPause(dir.path(), rounds)
        .print(
            qPrintable(QStringLiteral("bulk pause of %1 local workspaces through a ProfileSession").arg(workspaces)));
    killBig(backend, files, rounds).print(qPrintable(QStringLiteral("kill of a workspace of %1 files").arg(files)));
    return 0;
}
