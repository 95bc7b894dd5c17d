// CPU and memory as the servers report them (src/core/metrics.h): Docker's stats, execd's
// /metrics, E2B's metrics (a sandbox map and one sample), the metrics API's PodMetricsList, and
// the bytes as a Kubernetes quantity. Every figure read is finite and not negative, every time
// UTC (or invalid), every entry of a map named by its key.
#include "metrics.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace Paddock;
using namespace Paddock::MetricsWire;

namespace {

void check(const SandboxMetrics &metrics)
{
    if (metrics.cpuPercent && (!std::isfinite(*metrics.cpuPercent) || *metrics.cpuPercent < 0))
        std::abort();
    if (metrics.memoryBytes && *metrics.memoryBytes < 0)
        std::abort();
    if (metrics.memoryLimitBytes && *metrics.memoryLimitBytes <= 0)
        std::abort();
    if (metrics.sampledAt.isValid() && metrics.sampledAt.timeSpec() != Qt::UTC)
        std::abort();
}

void check(const std::optional<SandboxMetrics> &metrics)
{
    if (metrics)
        check(*metrics);
}

void check(const QHash<QString, SandboxMetrics> &map)
{
    for (auto it = map.cbegin(); it != map.cend(); ++it) {
        check(it.value());
        if (it.key().isEmpty() || it.value().sandboxId != it.key())
            std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray body(reinterpret_cast<const char *>(data), qsizetype(size));
    check(parseDockerStats(body));
    check(parseExecdMetrics(body));
    check(e2bMetricFromJson(body));
    check(parseE2bSandboxesMetrics(body));
    check(parsePodMetricsList(body));
    const QString quantity = QString::fromUtf8(body.left(128));
    if (const auto cpu = kubeCpuPercent(quantity); cpu && (!std::isfinite(*cpu) || *cpu < 0))
        std::abort();
    if (const auto bytes = kubeBytes(quantity); bytes && *bytes < 0)
        std::abort();
    return 0;
}
