// Prints how long the Docker backend takes to pause N containers (all in flight at once, as the
// console's bulk pause can run them), against `docker pause` of the same N containers run by the
// docker CLI in parallel (N processes), on a private Docker engine started for the purpose
// (tests/support/privatedocker.h). Target: the backend within 1.5 times the CLI. Medians of the
// rounds; it never fails on time.

#include "backends/docker/dockerbackend.h"
#include "benchsupport.h"
#include "bulk.h"
#include "privatedocker.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QLoggingCategory>
#include <QProcess>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace Paddock;
using namespace Paddock::Docker;
using namespace PaddockBench;

namespace {

// Runs `action` on every id with all of them in flight at once; false if any failed.
bool all(const QStringList &ids, const std::function<QCoro::Task<Result<>>(const QString &)> &action, int concurrency)
{
    const QList<Result<>> results = QCoro::waitFor(runBounded<QString>(ids, concurrency, action));
    for (const Result<> &result : results) {
        if (!result) {
            std::fprintf(stderr, "%s\n", qPrintable(result.error().message));
            return false;
        }
    }
    return true;
}

// `docker <verb> <id>` for every id, as parallel processes.
bool cli(PaddockTest::PrivateDockerEngine &engine, const char *verb, const QStringList &ids)
{
    std::vector<std::unique_ptr<QProcess>> processes;
    for (const QString &id : ids) {
        auto process = std::make_unique<QProcess>();
        process->setProcessEnvironment(engine.environment());
        process->setProgram(engine.dockerProgram());
        process->setArguments({QLatin1String(verb), id});
        process->start();
        processes.push_back(std::move(process));
    }
    bool ok = true;
    for (auto &process : processes) {
        ok = process->waitForFinished(120'000) && process->exitCode() == 0 && ok;
    }
    return ok;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QLoggingCategory::setFilterRules(QStringLiteral("paddock.*.info=false"));
    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption countOption(QStringLiteral("containers"), QStringLiteral("Containers (default 100)."),
                                         QStringLiteral("n"), QStringLiteral("100"));
    const QCommandLineOption roundsOption(QStringLiteral("rounds"), QStringLiteral("Rounds (default 3)."),
                                          QStringLiteral("n"), QStringLiteral("3"));
    parser.addOptions({countOption, roundsOption});
    parser.process(app);
    const int count = std::max(1, parser.value(countOption).toInt());
    const int rounds = std::max(1, parser.value(roundsOption).toInt());

    PaddockTest::PrivateDockerEngine engine;
    if (!engine.start()) {
        std::fprintf(stderr, "no Docker engine: %s\n", qPrintable(engine.error()));
        return PaddockTest::PrivateDockerEngine::mustRun() ? 1 : 0;
    }
    const QString image = engine.busyboxImage();
    if (image.isEmpty()) {
        std::fprintf(stderr, "no image: %s\n", qPrintable(engine.error()));
        return 1;
    }
    QTemporaryDir dir;
    DockerOptions options;
    options.dockerHost = engine.dockerHost();
    options.image = image;
    options.basedir = dir.filePath(QStringLiteral("workspaces"));
    DockerBackend backend(options);

    QStringList workspaces;
    for (int i = 0; i < count; ++i)
        workspaces.append(QStringLiteral("bench-%1").arg(i));
    QStringList ids;
    QElapsedTimer clock;
    clock.start();
    const QList<Result<>> created = QCoro::waitFor(
        runBounded<QString>(workspaces, 8, [&backend, &ids](const QString &workspace) -> QCoro::Task<Result<>> {
            const CreateSpec spec{workspace, QStringLiteral("bench"), QStringLiteral("bench"), {}};
            auto made = co_await backend.create(spec);
            if (!made)
                co_return fail(made.error());
            ids.append(made->sandboxId);
            co_return Result<>{};
        }));
    if (ids.size() != count) {
        std::fprintf(stderr, "could not create the containers\n");
        return 1;
    }
    std::printf("docker pause of %d containers on a private engine (%.1f s to create them)\n", count,
                double(clock.elapsed()) / 1000);

    std::vector<double> ours;
    std::vector<double> theirs;
    const auto pause = [&backend](const QString &id) { return backend.pause(id); };
    const auto resume = [&backend](const QString &id) -> QCoro::Task<Result<>> {
        auto resumed = co_await backend.resume(id);
        co_return resumed ? Result<>{} : fail(resumed.error());
    };
    for (int round = 0; round < rounds; ++round) {
        clock.restart();
        if (!all(ids, pause, count))
            return 1;
        ours.push_back(double(clock.nsecsElapsed()) / 1e6);
        if (!all(ids, resume, 16))
            return 1;
        clock.restart();
        if (!cli(engine, "pause", ids))
            return 1;
        theirs.push_back(double(clock.nsecsElapsed()) / 1e6);
        if (!cli(engine, "unpause", ids))
            return 1;
    }
    const double backendMs = median(ours);
    const double cliMs = median(theirs);
    std::printf("  backend, all %d in flight     %8.1f ms (median of %d)\n", count, backendMs, rounds);
    std::printf("  docker CLI, %d processes      %8.1f ms (median of %d)\n", count, cliMs, rounds);
    std::printf("  ratio                          %8.2f  [<= 1.5]\n", backendMs / cliMs);
    all(
        ids, [&backend](const QString &id) { return backend.kill(id, {}); }, 16);
    return 0;
}
