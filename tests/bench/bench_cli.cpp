// Prints what paddockctl, the real process, costs against paddock-fake-opensandbox on 127.0.0.1
// (issue 19's targets in brackets); it never fails on time, only when the work was not done.
//   pause --all --state running --concurrency C of W running workspaces at L ms latency: the
//                        process' wall time [<= 1.3 x ceil(W / C) x L], the most requests the
//                        server had in flight at once [<= C], the requests it counted
//   sweep --idle 1s --concurrency C of the same: the whole, and the pauses alone against the
//                        same bound (sweep reads every running workspace's sessions/ first)
//   list of N workspaces, no latency: the table to a pipe against list --json [<= 1.2 x]
//   open of O workspaces, one paddockctl each, C at once, as a script would (xargs -P): without
//                        faults, then with the server failing 30% of its requests (issue 20:
//                        [<= 3 x] the time without, every one opened, one sandbox each)
// Each pause and sweep round has a fresh server; the figures are medians of the rounds.

#include "benchsupport.h"
#include "fakeopensandboxprocess.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QUrlQuery>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>
#include <vector>

#ifndef PADDOCKCTL_PATH
#error "PADDOCKCTL_PATH must name the paddockctl executable"
#endif

using PaddockBench::median;

namespace {

struct Ctl
{
    int exitCode = -1;
    double ms = 0;
    QByteArray out;
    QByteArray err;
};

struct Options
{
    int workspaces = 1000;
    int latencyMs = 50;
    int concurrency = 16;
    int list = 10000;
    int rounds = 3;
    int listRounds = 7;
    int opens = 50;
    int openConcurrency = 8;
    double failRate = 0.3;
};

QString loadAverage()
{
    QFile file(QStringLiteral("/proc/loadavg"));
    if (!file.open(QIODevice::ReadOnly))
        return QStringLiteral("?");
    const QList<QByteArray> fields = file.readAll().split(' ');
    return QStringLiteral("%1 %2 %3")
        .arg(QString::fromLatin1(fields.value(0)), QString::fromLatin1(fields.value(1)),
             QString::fromLatin1(fields.value(2)));
}

// Seeded sandboxes are Running but every 4th (paddock-fake-opensandbox's --seed): the fewest
// that give `running` Running ones.
int seedFor(int running)
{
    int seed = running;
    while (seed - seed / 4 < running)
        ++seed;
    return seed;
}

double bound(const Options &o)
{
    return 1.3 * std::ceil(double(o.workspaces) / o.concurrency) * o.latencyMs;
}

class Bench
{
public:
    bool init()
    {
        if (!m_home.isValid())
            return false;
        m_env = QProcessEnvironment::systemEnvironment();
        // Its own data and completion cache, no key, no other server, English, no width.
        m_env.insert(QStringLiteral("XDG_DATA_HOME"), m_home.path() + QStringLiteral("/data"));
        m_env.insert(QStringLiteral("XDG_CACHE_HOME"), m_home.path() + QStringLiteral("/cache"));
        m_env.remove(QStringLiteral("OPEN_SANDBOX_API_KEY"));
        m_env.remove(QStringLiteral("OPEN_SANDBOX_DOMAIN"));
        m_env.remove(QStringLiteral("QT_LOGGING_RULES"));
        m_env.remove(QStringLiteral("COLUMNS"));
        m_env.insert(QStringLiteral("LANGUAGE"), QStringLiteral("en"));
        return true;
    }

    // paddockctl run to its end, stdin and stdout pipes (never a terminal); the wall time is from
    // the process' start to its end as seen from here.
    Ctl run(const QStringList &args) const
    {
        QProcess process;
        process.setProcessEnvironment(m_env);
        Ctl ctl;
        QElapsedTimer timer;
        timer.start();
        process.start(QStringLiteral(PADDOCKCTL_PATH), args);
        process.closeWriteChannel();
        if (!process.waitForFinished(600'000)) {
            process.kill();
            process.waitForFinished();
            ctl.err = "did not finish in 10 minutes";
            return ctl;
        }
        ctl.ms = double(timer.nsecsElapsed()) / 1e6;
        ctl.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
        ctl.out = process.readAllStandardOutput();
        ctl.err = process.readAllStandardError();
        return ctl;
    }

    Ctl run(const PaddockTest::FakeOpenSandboxProcess &server, const QStringList &args) const
    {
        return run(QStringList{QStringLiteral("--backend"), QStringLiteral("opensandbox"), QStringLiteral("--domain"),
                               server.domain()}
                   + args);
    }

    // paddockctl started against the server, not waited for.
    std::unique_ptr<QProcess> start(const PaddockTest::FakeOpenSandboxProcess &server, const QStringList &args) const
    {
        auto process = std::make_unique<QProcess>();
        process->setProcessEnvironment(m_env);
        process->start(QStringLiteral(PADDOCKCTL_PATH),
                       QStringList{QStringLiteral("--backend"), QStringLiteral("opensandbox"),
                                   QStringLiteral("--domain"), server.domain()}
                           + args);
        process->closeWriteChannel();
        return process;
    }
    QString home() const { return m_home.path(); }

    // How many sandboxes of that state the server has (its own count, one small page).
    static int countState(const PaddockTest::FakeOpenSandboxProcess &server, const QString &state)
    {
        QNetworkAccessManager network;
        QUrl url = server.base();
        url.setPath(QStringLiteral("/v1/sandboxes"));
        QUrlQuery query;
        query.addQueryItem(QStringLiteral("state"), state);
        query.addQueryItem(QStringLiteral("pageSize"), QStringLiteral("1"));
        url.setQuery(query);
        std::unique_ptr<QNetworkReply> reply(network.get(QNetworkRequest(url)));
        if (!PaddockBench::runUntil([&reply] { return reply->isFinished(); }, 30'000))
            return -1;
        const QJsonObject page = QJsonDocument::fromJson(reply->readAll()).object();
        return page.value(QLatin1String("pagination")).toObject().value(QLatin1String("totalItems")).toInt(-1);
    }

private:
    QTemporaryDir m_home;
    QProcessEnvironment m_env;
};

bool startServer(PaddockTest::FakeOpenSandboxProcess &server, int seed, int latencyMs)
{
    if (server.start({QStringLiteral("--seed"), QString::number(seed), QStringLiteral("--latency-ms"),
                      QString::number(latencyMs)}))
        return true;
    std::fprintf(stderr, "cannot start paddock-fake-opensandbox: %s\n", qPrintable(server.error()));
    return false;
}

bool failed(const char *what, const Ctl &ctl)
{
    if (ctl.exitCode == 0)
        return false;
    std::fprintf(stderr, "paddockctl %s exited %d: %s\n", what, ctl.exitCode, ctl.err.left(2000).constData());
    return true;
}

// Every Running sandbox of the server paused, and only those: false (said) otherwise.
bool allPaused(const PaddockTest::FakeOpenSandboxProcess &server, int seed, const char *what)
{
    const int running = Bench::countState(server, QStringLiteral("Running"));
    const int paused = Bench::countState(server, QStringLiteral("Paused"));
    if (running == 0 && paused == seed)
        return true;
    std::fprintf(stderr, "after %s: %d running and %d paused of %d sandboxes\n", what, running, paused, seed);
    return false;
}

QString roundsText(const std::vector<double> &values)
{
    QStringList text;
    for (const double value : values)
        text.append(QString::number(value, 'f', 0));
    return text.join(QStringLiteral(", "));
}

int stat(const PaddockTest::FakeOpenSandboxProcess &server, const char *name)
{
    return server.stats().value(QLatin1String(name)).toInt(-1);
}

// The floor under every figure: a paddockctl that starts, answers and exits.
double processFloor(const Bench &bench)
{
    std::vector<double> ms;
    for (int i = 0; i < 5; ++i)
        ms.push_back(bench.run({QStringLiteral("--version")}).ms);
    return median(ms);
}

bool benchPause(const Bench &bench, const Options &o)
{
    const int seed = seedFor(o.workspaces);
    const QString concurrency = QString::number(o.concurrency);
    std::vector<double> wall;
    std::vector<double> listing;
    std::vector<double> requests;
    std::vector<double> inflight;
    for (int round = 0; round < o.rounds; ++round) {
        PaddockTest::FakeOpenSandboxProcess server;
        if (!startServer(server, seed, o.latencyMs))
            return false;
        // What the pause starts with: the process and the listing, at the same latency.
        const Ctl listed = bench.run(server,
                                     {QStringLiteral("list"), QStringLiteral("--state"), QStringLiteral("running"),
                                      QStringLiteral("--output"), QStringLiteral("ids")});
        if (failed("list", listed))
            return false;
        listing.push_back(listed.ms);
        server.resetStats();
        const Ctl paused = bench.run(server,
                                     {QStringLiteral("pause"), QStringLiteral("--all"), QStringLiteral("--state"),
                                      QStringLiteral("running"), QStringLiteral("--concurrency"), concurrency});
        requests.push_back(stat(server, "requests"));
        inflight.push_back(stat(server, "maxInflight"));
        if (failed("pause", paused) || !allPaused(server, seed, "pause"))
            return false;
        if (paused.out.count('\n') != o.workspaces) {
            std::fprintf(stderr, "pause printed %lld lines for %d workspaces\n", qlonglong(paused.out.count('\n')),
                         o.workspaces);
            return false;
        }
        wall.push_back(paused.ms);
    }
    std::printf("pause --all --state running --concurrency %d: %d running of %d sandboxes, %d ms latency\n",
                o.concurrency, o.workspaces, seed, o.latencyMs);
    std::printf("  wall time of the process            %9.1f ms  [<= %.1f ms = 1.3 x ceil(%d / %d) x %d ms] (median of "
                "%d: %s)\n",
                median(wall), bound(o), o.workspaces, o.concurrency, o.latencyMs, o.rounds,
                qPrintable(roundsText(wall)));
    std::printf("  of it the start and listing         %9.1f ms  (list --state running --output ids, median)\n",
                median(listing));
    std::printf("  most requests in flight (server)    %9.0f     [<= %d] (the most of the rounds)\n",
                *std::max_element(inflight.cbegin(), inflight.cend()), o.concurrency);
    std::printf("  requests counted by the server      %9.0f     (%d pauses, the rest listing and settling pages)\n",
                median(requests), o.workspaces);
    std::printf("  paused afterwards                   %9d of %d\n", o.workspaces, o.workspaces);
    return true;
}

bool benchSweep(const Bench &bench, const Options &o)
{
    const int seed = seedFor(o.workspaces);
    const QStringList sweep{QStringLiteral("sweep"), QStringLiteral("--idle"), QStringLiteral("1s"),
                            QStringLiteral("--concurrency"), QString::number(o.concurrency)};
    std::vector<double> wall;
    std::vector<double> dry;
    std::vector<double> requests;
    std::vector<double> execd;
    std::vector<double> inflight;
    for (int round = 0; round < o.rounds; ++round) {
        PaddockTest::FakeOpenSandboxProcess server;
        if (!startServer(server, seed, o.latencyMs))
            return false;
        // The newest seeded sandbox was made a second before the server started, so every one
        // is idle longer than 1s by the idle rule (its creation time; no sessions/ folder).
        // The dry run does what sweep does before its pauses: the listing and every read.
        const Ctl dryRun = bench.run(server, sweep + QStringList{QStringLiteral("--dry-run")});
        if (failed("sweep --dry-run", dryRun))
            return false;
        const qsizetype wouldPause = dryRun.out.count("would be paused");
        if (wouldPause != o.workspaces) {
            std::fprintf(stderr, "sweep --dry-run would pause %lld of %d: %s\n", qlonglong(wouldPause), o.workspaces,
                         dryRun.out.left(2000).constData());
            return false;
        }
        dry.push_back(dryRun.ms);
        server.resetStats();
        const Ctl swept = bench.run(server, sweep);
        requests.push_back(stat(server, "requests"));
        execd.push_back(stat(server, "execdRequests"));
        inflight.push_back(stat(server, "maxInflight"));
        if (failed("sweep", swept) || !allPaused(server, seed, "sweep"))
            return false;
        wall.push_back(swept.ms);
    }
    std::vector<double> pauses;
    for (std::size_t i = 0; i < wall.size(); ++i)
        pauses.push_back(wall.at(i) - dry.at(i));
    std::printf("sweep --idle 1s --concurrency %d: %d running of %d sandboxes, %d ms latency\n", o.concurrency,
                o.workspaces, seed, o.latencyMs);
    std::printf("  wall time of the process            %9.1f ms  (median of %d: %s)\n", median(wall), o.rounds,
                qPrintable(roundsText(wall)));
    std::printf("  of it the start, listing and reads  %9.1f ms  (sweep --dry-run: every sessions/ folder read)\n",
                median(dry));
    std::printf("  the pauses and their settling       %9.1f ms  [<= %.1f ms, the pause's bound] (median of the "
                "differences)\n",
                median(pauses), bound(o));
    std::printf("  most requests in flight (server)    %9.0f     [<= %d] (the most of the rounds)\n",
                *std::max_element(inflight.cbegin(), inflight.cend()), o.concurrency);
    std::printf("  requests counted by the server      %9.0f     lifecycle (pauses, pages, execd endpoints), %.0f "
                "execd\n",
                median(requests), median(execd));
    std::printf("  paused afterwards                   %9d of %d\n", o.workspaces, o.workspaces);
    return true;
}

bool benchList(const Bench &bench, const Options &o)
{
    PaddockTest::FakeOpenSandboxProcess server;
    if (!startServer(server, o.list, 0))
        return false;
    const QStringList table{QStringLiteral("list")};
    const QStringList json{QStringLiteral("list"), QStringLiteral("--json")};
    const QStringList ids{QStringLiteral("list"), QStringLiteral("--output"), QStringLiteral("ids")};
    // Each checked once (the server's pages cached, paddockctl's files read once).
    const Ctl tableOut = bench.run(server, table);
    const Ctl jsonOut = bench.run(server, json);
    const Ctl idsOut = bench.run(server, ids);
    if (failed("list", tableOut) || failed("list --json", jsonOut) || failed("list --output ids", idsOut))
        return false;
    const qsizetype rows = QJsonDocument::fromJson(jsonOut.out).array().size();
    if (tableOut.out.count('\n') != o.list + 1 || rows != o.list || idsOut.out.count('\n') != o.list) {
        std::fprintf(stderr, "list of %d: %lld table lines, %lld JSON rows, %lld ids\n", o.list,
                     qlonglong(tableOut.out.count('\n')), qlonglong(rows), qlonglong(idsOut.out.count('\n')));
        return false;
    }
    // Interleaved, so that the shared machine's noise falls on all three alike.
    std::vector<double> tableMs;
    std::vector<double> jsonMs;
    std::vector<double> idsMs;
    for (int round = 0; round < o.listRounds; ++round) {
        const Ctl a = bench.run(server, json);
        const Ctl b = bench.run(server, table);
        const Ctl c = bench.run(server, ids);
        if (failed("list --json", a) || failed("list", b) || failed("list --output ids", c))
            return false;
        jsonMs.push_back(a.ms);
        tableMs.push_back(b.ms);
        idsMs.push_back(c.ms);
    }
    std::printf("list of %d workspaces, no latency (medians of %d, interleaved)\n", o.list, o.listRounds);
    std::printf("  list --json                         %9.1f ms  (%lld bytes)\n", median(jsonMs),
                qlonglong(jsonOut.out.size()));
    std::printf("  list (the table, to a pipe)         %9.1f ms  = %.2f x list --json [<= 1.2 x] (%lld bytes)\n",
                median(tableMs), median(tableMs) / median(jsonMs), qlonglong(tableOut.out.size()));
    std::printf("  list --output ids                   %9.1f ms  (the listing without a rendering to speak of)\n",
                median(idsMs));
    return true;
}

} // namespace

// O opens, one paddockctl process each, C at once; the wall time of them all, and whether each
// opened (exit 0). Each workspace its own user.
struct Opened
{
    double ms = 0;
    int opened = 0;
    QStringList errors;
};

Opened openMany(const Bench &bench, const PaddockTest::FakeOpenSandboxProcess &server, const Options &o,
                const QString &bootstrap, const QString &prefix)
{
    Opened result;
    QElapsedTimer timer;
    timer.start();
    std::vector<std::unique_ptr<QProcess>> running;
    int next = 0;
    int done = 0;
    while (done < o.opens) {
        while (next < o.opens && int(running.size()) < o.openConcurrency) {
            running.push_back(
                bench.start(server,
                            {QStringLiteral("--bootstrap"), bootstrap, QStringLiteral("open"), QStringLiteral("--user"),
                             prefix + QString::number(next), QStringLiteral("--agent"), QStringLiteral("bench")}));
            ++next;
        }
        PaddockBench::runUntil(
            [&running] {
                return std::any_of(running.cbegin(), running.cend(),
                                   [](const auto &p) { return p->state() == QProcess::NotRunning; });
            },
            600'000);
        for (auto it = running.begin(); it != running.end();) {
            if ((*it)->state() != QProcess::NotRunning) {
                ++it;
                continue;
            }
            ++done;
            if ((*it)->exitStatus() == QProcess::NormalExit && (*it)->exitCode() == 0)
                ++result.opened;
            else
                result.errors.append(QString::fromUtf8((*it)->readAllStandardError()).trimmed().left(300));
            it = running.erase(it);
        }
    }
    result.ms = double(timer.nsecsElapsed()) / 1e6;
    return result;
}

// Sandboxes per workspace on the server (every state), read without faults.
QHash<QString, int> sandboxesPerWorkspace(const Bench &bench, const PaddockTest::FakeOpenSandboxProcess &server)
{
    QHash<QString, int> count;
    const Ctl listed = bench.run(server, {QStringLiteral("list"), QStringLiteral("--json")});
    const QJsonArray rows = QJsonDocument::fromJson(listed.out).array();
    for (const QJsonValue &row : rows)
        ++count[row.toObject().value(QLatin1String("workspaceId")).toString()];
    return count;
}

bool benchOpenUnderFaults(const Bench &bench, const Options &o)
{
    const QString bootstrap = bench.home() + QStringLiteral("/open-bootstrap.sh");
    {
        QFile file(bootstrap);
        if (!file.open(QIODevice::WriteOnly) || file.write("echo ready\n") < 0)
            return false;
    }
    PaddockTest::FakeOpenSandboxProcess clean;
    if (!clean.start({}))
        return false;
    const Opened without = openMany(bench, clean, o, bootstrap, QStringLiteral("clean-"));
    const int cleanCreates = stat(clean, "creates");

    const QString dataDir = bench.home() + QStringLiteral("/faulty-server");
    PaddockTest::FakeOpenSandboxProcess faulty;
    if (!faulty.start({QStringLiteral("--fail-rate"), QString::number(o.failRate), QStringLiteral("--fail-seed"),
                       QStringLiteral("20"), QStringLiteral("--data-dir"), dataDir})) {
        std::fprintf(stderr, "cannot start paddock-fake-opensandbox: %s\n", qPrintable(faulty.error()));
        return false;
    }
    const Opened with = openMany(bench, faulty, o, bootstrap, QStringLiteral("faulty-"));
    const int faultyCreates = stat(faulty, "creates");
    // Counted without faults on the same state: the same server started again.
    const int port = faulty.port();
    faulty.stop();
    PaddockTest::FakeOpenSandboxProcess after;
    if (!after.start({QStringLiteral("--port"), QString::number(port), QStringLiteral("--data-dir"), dataDir}))
        return false;
    const QHash<QString, int> perWorkspace = sandboxesPerWorkspace(bench, after);
    int duplicated = 0;
    for (auto it = perWorkspace.cbegin(); it != perWorkspace.cend(); ++it)
        duplicated += it.value() - 1;

    std::printf("open of %d workspaces, one paddockctl each, %d at once (bootstrap: one echo)\n", o.opens,
                o.openConcurrency);
    std::printf("  without faults                      %9.1f ms  %d opened, %d created\n", without.ms, without.opened,
                cleanCreates);
    std::printf("  %2.0f%% of requests failed or dropped  %9.1f ms  = %.2f x [<= 3 x], %d opened [%d], %d created, "
                "%d sandboxes for %lld workspaces (%d duplicated) [0]\n",
                o.failRate * 100, with.ms, with.ms / without.ms, with.opened, o.opens, faultyCreates,
                int(std::accumulate(perWorkspace.cbegin(), perWorkspace.cend(), 0)), qlonglong(perWorkspace.size()),
                duplicated);
    for (const QString &error : std::as_const(with.errors))
        std::printf("    failed: %s\n", qPrintable(error));
    for (const QString &error : std::as_const(without.errors))
        std::printf("    failed without faults: %s\n", qPrintable(error));
    return without.opened == o.opens;
}

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOptions({
        {QStringLiteral("workspaces"), QStringLiteral("Running workspaces to pause and to sweep (default 1000)."),
         QStringLiteral("n"), QStringLiteral("1000")},
        {QStringLiteral("latency-ms"), QStringLiteral("The server's latency for the pause and sweep (default 50)."),
         QStringLiteral("ms"), QStringLiteral("50")},
        {QStringLiteral("concurrency"), QStringLiteral("paddockctl's --concurrency (default 16)."), QStringLiteral("n"),
         QStringLiteral("16")},
        {QStringLiteral("list"), QStringLiteral("Workspaces to list (default 10000)."), QStringLiteral("n"),
         QStringLiteral("10000")},
        {QStringLiteral("rounds"), QStringLiteral("Rounds of the pause and of the sweep (default 3)."),
         QStringLiteral("n"), QStringLiteral("3")},
        {QStringLiteral("list-rounds"), QStringLiteral("Rounds of each list (default 7)."), QStringLiteral("n"),
         QStringLiteral("7")},
        {QStringLiteral("opens"), QStringLiteral("Workspaces to open with and without faults (default 50)."),
         QStringLiteral("n"), QStringLiteral("50")},
        {QStringLiteral("open-concurrency"), QStringLiteral("paddockctl opens at once (default 8)."),
         QStringLiteral("n"), QStringLiteral("8")},
        {QStringLiteral("fail-rate"), QStringLiteral("The server's failure rate for the opens (default 0.3)."),
         QStringLiteral("p"), QStringLiteral("0.3")},
    });
    parser.process(app);
    Options o;
    o.workspaces = parser.value(QStringLiteral("workspaces")).toInt();
    o.latencyMs = parser.value(QStringLiteral("latency-ms")).toInt();
    o.concurrency = parser.value(QStringLiteral("concurrency")).toInt();
    o.list = parser.value(QStringLiteral("list")).toInt();
    o.rounds = parser.value(QStringLiteral("rounds")).toInt();
    o.listRounds = parser.value(QStringLiteral("list-rounds")).toInt();
    o.opens = parser.value(QStringLiteral("opens")).toInt();
    o.openConcurrency = parser.value(QStringLiteral("open-concurrency")).toInt();
    o.failRate = parser.value(QStringLiteral("fail-rate")).toDouble();
    if (o.workspaces < 1 || o.latencyMs < 0 || o.concurrency < 1 || o.concurrency > 64 || o.list < 1 || o.rounds < 1
        || o.listRounds < 1 || o.opens < 1 || o.openConcurrency < 1 || o.failRate < 0 || o.failRate > 1) {
        std::fprintf(stderr, "bad options: sizes and rounds from 1, --latency-ms from 0, --concurrency 1-64\n");
        return 2;
    }

    Bench bench;
    if (!bench.init()) {
        std::fprintf(stderr, "cannot make a temporary folder\n");
        return 1;
    }
    std::printf("paddockctl as a process against paddock-fake-opensandbox on 127.0.0.1\n");
    std::printf("load average at the start %s, %d cores\n", qPrintable(loadAverage()), QThread::idealThreadCount());
    std::printf("  process start and exit              %9.1f ms  (paddockctl --version, median of 5)\n",
                processFloor(bench));
    const bool ok =
        benchPause(bench, o) && benchSweep(bench, o) && benchList(bench, o) && benchOpenUnderFaults(bench, o);
    std::printf("load average at the end %s\n", qPrintable(loadAverage()));
    return ok ? 0 : 1;
}
