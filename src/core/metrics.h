#pragma once

#include <QByteArray>
#include <QDateTime>
#include <QHash>
#include <QList>
#include <QString>

#include <optional>

namespace Paddock {

// What a workspace uses now, as its backend reports it (Backend::metrics, Capability::Metrics).
// A figure the backend does not report stays nullopt: absent, never zero.
struct SandboxMetrics
{
    QString sandboxId;
    QDateTime sampledAt; // UTC: when the backend measured it (or when Paddock received it)
    std::optional<double> cpuPercent; // 100 = one core busy all the time
    std::optional<qint64> memoryBytes;
    std::optional<qint64> memoryLimitBytes; // what it may use at most, where there is a limit

    bool operator==(const SandboxMetrics &) const = default;
};

// The parsers of what servers answer, without I/O (metrics.cpp; fuzzed by fuzz_metrics). Anything
// malformed is nullopt (or no entry), never a made-up figure.
namespace MetricsWire {

// A Kubernetes CPU quantity in cores as a percentage of one core: "250m" -> 25, "1" -> 100,
// "250000000n" -> 25, "1500u" -> 0.15, "0.5" -> 50.
std::optional<double> kubeCpuPercent(const QString &quantity);
// A Kubernetes memory quantity in bytes: "64Mi", "12345Ki", "1G", "1e3", "129024k"; a fraction of a byte rounds up, as
// Kubernetes does ("500m" -> 1).
std::optional<qint64> kubeBytes(const QString &quantity);

// metrics.k8s.io/v1beta1 PodMetricsList (GET /apis/metrics.k8s.io/v1beta1/namespaces/<ns>/pods):
// per pod name, the sum over its containers. A pod whose containers give no usable figure has
// its absent ones nullopt.
QHash<QString, SandboxMetrics> parsePodMetricsList(const QByteArray &json);

// Docker's GET /containers/<id>/stats?stream=false: CPU as the docker CLI computes it
// ((cpu_stats.cpu_usage.total_usage - precpu) / (system_cpu_usage - precpu) * online_cpus * 100,
// absent when there is no earlier sample), memory as usage minus the page cache (cgroup v2:
// inactive_file; v1: total_inactive_file), the limit where it is below the host's memory
// (memory_stats.limit; a container without a limit reports the host's total, which is not one:
// kept, since the CLI shows it too). A stopped or paused container's empty figures are absent.
std::optional<SandboxMetrics> parseDockerStats(const QByteArray &json);

// execd's GET /metrics ({"cpu_count","cpu_used_pct","mem_total_mib","mem_used_mib","timestamp"}):
// cpu_used_pct is of every CPU together (gopsutil's cpu.Percent(_, false)), so one core is
// cpu_used_pct * cpu_count; memory in MiB; timestamp in Unix milliseconds.
std::optional<SandboxMetrics> parseExecdMetrics(const QByteArray &json);

// E2B's GET /sandboxes/metrics?sandbox_ids=a,b ({"sandboxes": {"<id>": SandboxMetric}}): per id.
// cpuUsedPct is of every CPU together, as execd's; memUsed and memTotal in bytes; timestampUnix
// in seconds.
QHash<QString, SandboxMetrics> parseE2bSandboxesMetrics(const QByteArray &json);
// One SandboxMetric object (also the last of GET /sandboxes/<id>/metrics' array).
std::optional<SandboxMetrics> e2bMetricFromJson(const QByteArray &json);

} // namespace MetricsWire

} // namespace Paddock
