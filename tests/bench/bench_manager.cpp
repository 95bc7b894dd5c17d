// Prints the manager's figures (issue targets in brackets); it never fails on time.
//   cache-hit getWorkspace, median           [<= 1 us]
//   sweep over N cached workspaces           [<= 5 ms for 10,000]
//   heap per cached workspace, logs excluded [<= 4 KiB]

#include "workspacemanager.h"

#include <QCoroTask>

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QLoggingCategory>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include <malloc.h>

using namespace Paddock;
using Nanos = std::chrono::duration<double, std::nano>;
using Steady = std::chrono::steady_clock;

namespace {

// Builds workspaces the size of real local ones, without touching the disk.
class InstantProvider final : public WorkspaceProvider
{
public:
    QCoro::Task<Result<WorkspacePtr>> provision(ProvisionRequest request) override
    {
        SandboxInfo info;
        info.sandboxId = request.workspaceId;
        info.workspaceId = request.workspaceId;
        info.userId = request.userId;
        info.agentId = request.agentId;
        info.state = SandboxState::Running;
        info.rawState = QStringLiteral("Running");
        info.backend = QStringLiteral("local");
        info.createdAt = QDateTime::currentDateTimeUtc();
        info.lastActivityAt = info.createdAt;
        info.metadata.insert(UserIdKey, request.userId);
        info.metadata.insert(AgentIdKey, request.agentId);
        info.metadata.insert(WorkspaceIdKey, request.workspaceId);
        const QString workdir = QStringLiteral("/home/someone/.local/share/paddock/workspaces/") + request.workspaceId;
        WorkspaceLayout layout{workdir,
                               workdir + QStringLiteral("/.agentscope"),
                               workdir + QStringLiteral("/.agentscope/.bootstrap-complete"),
                               {}};
        co_return std::make_shared<SandboxWorkspace>(nullptr, std::move(info), std::move(layout));
    }
};

size_t heapInUse()
{
    return mallinfo2().uordblks;
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

QString idFor(int i)
{
    return blake2b64Hex(QByteArray::number(i));
}

QCoro::Task<void> populate(WorkspaceManager &manager, int count)
{
    for (int i = 0; i < count; ++i) {
        const WorkspaceRequest request{
            QStringLiteral("user-%1@example.com").arg(i % 97), QStringLiteral("agent-%1").arg(i % 13), {}, idFor(i)};
        auto result = co_await manager.getWorkspace(request);
        Q_ASSERT(result);
    }
}

// Median cost of one cache hit, from batches of `batch` calls.
QCoro::Task<double> cacheHits(WorkspaceManager &manager, int hits, bool explicitId)
{
    const int batch = 1000;
    const WorkspaceRequest hot{QStringLiteral("user-1@example.com"), QStringLiteral("agent-1"), QStringLiteral("s"),
                               explicitId ? std::optional<QString>(idFor(1)) : std::nullopt};
    if (!explicitId) {
        auto warm = co_await manager.getWorkspace(hot); // the policy's id gets cached first
        Q_ASSERT(warm);
    }
    std::vector<double> perCall;
    for (int done = 0; done < hits; done += batch) {
        const auto start = Steady::now();
        for (int i = 0; i < batch; ++i) {
            auto result = co_await manager.getWorkspace(hot);
            if (!result)
                std::abort();
        }
        perCall.push_back(Nanos(Steady::now() - start).count() / batch);
    }
    co_return median(perCall);
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QLoggingCategory::setFilterRules(QStringLiteral("paddock.*=false"));
    QCommandLineParser parser;
    parser.addOptions({{QStringLiteral("workspaces"), QStringLiteral("cached workspaces"), QStringLiteral("n"),
                        QStringLiteral("10000")},
                       {QStringLiteral("hits"), QStringLiteral("cache hits to time"), QStringLiteral("n"),
                        QStringLiteral("1000000")}});
    parser.addHelpOption();
    parser.process(app);
    const int workspaces = std::max(1, parser.value(QStringLiteral("workspaces")).toInt());
    const int hits = std::max(1000, parser.value(QStringLiteral("hits")).toInt());

    InstantProvider provider;
    auto clock = std::make_shared<ManualClock>();
    ManagerOptions options;
    options.clock = clock;
    WorkspaceManager manager(&provider, options);

    const size_t before = heapInUse();
    QCoro::waitFor(populate(manager, workspaces));
    const size_t after = heapInUse();
    const double perWorkspace = double(after - before) / workspaces;

    const double hitExplicit = QCoro::waitFor(cacheHits(manager, hits, true));
    const double hitPolicy = QCoro::waitFor(cacheHits(manager, hits, false));

    std::vector<double> sweeps;
    for (int i = 0; i < 21; ++i) {
        const auto start = Steady::now();
        const QStringList evicted = QCoro::waitFor(manager.sweepOnce());
        sweeps.push_back(std::chrono::duration<double, std::milli>(Steady::now() - start).count());
        Q_ASSERT(evicted.isEmpty());
    }
    const qsizetype cachedBefore = manager.cachedCount();
    clock->advance(std::chrono::hours(2));
    const auto start = Steady::now();
    const QStringList evicted = QCoro::waitFor(manager.sweepOnce());
    const double evictAll = std::chrono::duration<double, std::milli>(Steady::now() - start).count();

    std::printf("paddock manager benchmark (%d cached workspaces, %d timed hits)\n", workspaces, hits);
    std::printf("  cache-hit getWorkspace, explicit id   median %8.1f ns   [target <= 1000 ns]\n", hitExplicit);
    std::printf("  cache-hit getWorkspace, policy id     median %8.1f ns   [target <= 1000 ns]\n", hitPolicy);
    std::printf("  sweep, nothing idle                   median %8.3f ms   [target <= 5 ms for 10,000]\n",
                median(sweeps));
    std::printf("  sweep evicting and closing all %-6lld        %8.3f ms\n", static_cast<long long>(evicted.size()),
                evictAll);
    std::printf("  heap per cached workspace                    %8.0f B    [target <= 4096 B]\n", perWorkspace);
    return evicted.size() == cachedBefore ? 0 : 1;
}
