#include "metrics.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>

#include <cmath>
#include <limits>

namespace Paddock::MetricsWire {

namespace {

// A Kubernetes quantity: a decimal number (sign, digits, a point, an optional exponent) and a
// suffix: a binary one (Ki Mi Gi Ti Pi Ei), a decimal one (n u m "" k M G T P E), or an
// exponent (e3, E6). Its value as a double; nullopt for anything else.
std::optional<double> kubeQuantity(const QString &text)
{
    const QString quantity = text.trimmed();
    if (quantity.isEmpty() || quantity.size() > 64)
        return std::nullopt;
    qsizetype end = 0;
    if (end < quantity.size() && (quantity.at(end) == u'+' || quantity.at(end) == u'-'))
        ++end;
    bool digits = false;
    while (end < quantity.size() && quantity.at(end).isDigit() && quantity.at(end).unicode() < 128) {
        ++end;
        digits = true;
    }
    if (end < quantity.size() && quantity.at(end) == u'.') {
        ++end;
        while (end < quantity.size() && quantity.at(end).isDigit() && quantity.at(end).unicode() < 128) {
            ++end;
            digits = true;
        }
    }
    if (!digits)
        return std::nullopt;
    bool ok = false;
    const double number = quantity.left(end).toDouble(&ok);
    if (!ok)
        return std::nullopt;
    const QString suffix = quantity.mid(end);
    double factor = 1;
    if (suffix.isEmpty())
        factor = 1;
    else if (suffix == QLatin1String("Ki"))
        factor = 1024.0;
    else if (suffix == QLatin1String("Mi"))
        factor = 1024.0 * 1024;
    else if (suffix == QLatin1String("Gi"))
        factor = 1024.0 * 1024 * 1024;
    else if (suffix == QLatin1String("Ti"))
        factor = std::pow(1024.0, 4);
    else if (suffix == QLatin1String("Pi"))
        factor = std::pow(1024.0, 5);
    else if (suffix == QLatin1String("Ei"))
        factor = std::pow(1024.0, 6);
    else if (suffix == QLatin1String("n"))
        factor = 1e-9;
    else if (suffix == QLatin1String("u"))
        factor = 1e-6;
    else if (suffix == QLatin1String("m"))
        factor = 1e-3;
    else if (suffix == QLatin1String("k"))
        factor = 1e3;
    else if (suffix == QLatin1String("M"))
        factor = 1e6;
    else if (suffix == QLatin1String("G"))
        factor = 1e9;
    else if (suffix == QLatin1String("T"))
        factor = 1e12;
    else if (suffix == QLatin1String("P"))
        factor = 1e15;
    else if (suffix == QLatin1String("E"))
        factor = 1e18;
    else if ((suffix.startsWith(u'e') || suffix.startsWith(u'E')) && suffix.size() > 1) {
        bool exponentOk = false;
        const int exponent = suffix.mid(1).toInt(&exponentOk);
        if (!exponentOk || exponent < -30 || exponent > 30)
            return std::nullopt;
        factor = std::pow(10.0, exponent);
    } else
        return std::nullopt;
    const double value = number * factor;
    if (!std::isfinite(value))
        return std::nullopt;
    return value;
}

std::optional<qint64> wholeBytes(double value)
{
    // Below 2^62: a sum of several never overflows.
    if (!std::isfinite(value) || value < 0 || value > 4.0e18)
        return std::nullopt;
    return static_cast<qint64>(std::llround(std::floor(value)));
}

// A memory limit: a whole, positive number of bytes (a fraction of one byte is no limit).
std::optional<qint64> limitBytes(double value)
{
    const auto bytes = wholeBytes(value);
    return bytes && *bytes > 0 ? bytes : std::nullopt;
}

std::optional<double> number(const QJsonValue &value)
{
    if (!value.isDouble())
        return std::nullopt;
    const double figure = value.toDouble();
    if (!std::isfinite(figure))
        return std::nullopt;
    return figure;
}

std::optional<double> percentOfOneCore(const QJsonValue &usedPercent, const QJsonValue &cpuCount)
{
    const auto used = number(usedPercent);
    const auto count = number(cpuCount);
    if (!used || !count || *used < 0 || *count <= 0 || *count > 1e6)
        return std::nullopt;
    return *used * *count;
}

QDateTime fromUnixMs(const QJsonValue &value)
{
    const auto ms = number(value);
    if (!ms || *ms <= 0 || *ms > 1e15)
        return {};
    return QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(*ms), Qt::UTC);
}

} // namespace

std::optional<double> kubeCpuPercent(const QString &quantity)
{
    const auto cores = kubeQuantity(quantity);
    if (!cores || *cores < 0 || *cores > 1e9)
        return std::nullopt;
    return *cores * 100.0;
}

std::optional<qint64> kubeBytes(const QString &quantity)
{
    const auto bytes = kubeQuantity(quantity);
    if (!bytes)
        return std::nullopt;
    // Kubernetes rounds a fractional byte count up (resource.Quantity.Value()).
    return wholeBytes(std::ceil(*bytes - 1e-9));
}

QHash<QString, SandboxMetrics> parsePodMetricsList(const QByteArray &json)
{
    QHash<QString, SandboxMetrics> pods;
    const QJsonDocument document = QJsonDocument::fromJson(json);
    const QJsonArray items = document.object().value(QLatin1String("items")).toArray();
    for (const QJsonValue &item : items) {
        const QJsonObject pod = item.toObject();
        const QString name = pod.value(QLatin1String("metadata")).toObject().value(QLatin1String("name")).toString();
        if (name.isEmpty())
            continue;
        SandboxMetrics metrics;
        metrics.sandboxId = name;
        metrics.sampledAt =
            QDateTime::fromString(pod.value(QLatin1String("timestamp")).toString(), Qt::ISODateWithMs).toUTC();
        const QJsonArray containers = pod.value(QLatin1String("containers")).toArray();
        for (const QJsonValue &entry : containers) {
            const QJsonObject usage = entry.toObject().value(QLatin1String("usage")).toObject();
            if (const auto cpu = kubeCpuPercent(usage.value(QLatin1String("cpu")).toString()))
                metrics.cpuPercent = metrics.cpuPercent.value_or(0) + *cpu;
            if (const auto memory = kubeBytes(usage.value(QLatin1String("memory")).toString()))
                metrics.memoryBytes = metrics.memoryBytes.value_or(0) + *memory;
        }
        pods.insert(name, metrics);
    }
    return pods;
}

std::optional<SandboxMetrics> parseDockerStats(const QByteArray &json)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return std::nullopt;
    const QJsonObject stats = document.object();
    SandboxMetrics metrics;
    metrics.sandboxId = stats.value(QLatin1String("id")).toString();
    const QDateTime read = QDateTime::fromString(stats.value(QLatin1String("read")).toString(), Qt::ISODateWithMs);
    // A stopped container reads "0001-01-01T00:00:00Z".
    if (read.isValid() && read.date().year() > 1970)
        metrics.sampledAt = read.toUTC();

    const QJsonObject cpu = stats.value(QLatin1String("cpu_stats")).toObject();
    const QJsonObject precpu = stats.value(QLatin1String("precpu_stats")).toObject();
    const auto total = number(cpu.value(QLatin1String("cpu_usage")).toObject().value(QLatin1String("total_usage")));
    const auto preTotal =
        number(precpu.value(QLatin1String("cpu_usage")).toObject().value(QLatin1String("total_usage")));
    const auto system = number(cpu.value(QLatin1String("system_cpu_usage")));
    const auto preSystem = number(precpu.value(QLatin1String("system_cpu_usage")));
    double online = number(cpu.value(QLatin1String("online_cpus"))).value_or(0);
    if (online <= 0)
        online = double(
            cpu.value(QLatin1String("cpu_usage")).toObject().value(QLatin1String("percpu_usage")).toArray().size());
    if (total && preTotal && system && preSystem && online > 0 && *preSystem > 0) {
        const double cpuDelta = *total - *preTotal;
        const double systemDelta = *system - *preSystem;
        if (systemDelta > 0 && cpuDelta >= 0)
            metrics.cpuPercent = cpuDelta / systemDelta * online * 100.0;
    }

    const QJsonObject memory = stats.value(QLatin1String("memory_stats")).toObject();
    if (const auto usage = number(memory.value(QLatin1String("usage"))); usage && *usage >= 0) {
        const QJsonObject detail = memory.value(QLatin1String("stats")).toObject();
        double used = *usage;
        // As the docker CLI (calculateMemUsageUnixNoCache): cgroup v1's total_inactive_file,
        // else v2's inactive_file, when below the usage.
        std::optional<double> cache = number(detail.value(QLatin1String("total_inactive_file")));
        if (!cache)
            cache = number(detail.value(QLatin1String("inactive_file")));
        if (cache && *cache >= 0 && *cache < used)
            used -= *cache;
        metrics.memoryBytes = wholeBytes(used);
        if (const auto limit = number(memory.value(QLatin1String("limit"))); limit && *limit > 0)
            metrics.memoryLimitBytes = limitBytes(*limit);
    }
    return metrics;
}

std::optional<SandboxMetrics> parseExecdMetrics(const QByteArray &json)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return std::nullopt;
    const QJsonObject object = document.object();
    SandboxMetrics metrics;
    metrics.sampledAt = fromUnixMs(object.value(QLatin1String("timestamp")));
    metrics.cpuPercent =
        percentOfOneCore(object.value(QLatin1String("cpu_used_pct")), object.value(QLatin1String("cpu_count")));
    constexpr double MiB = 1024.0 * 1024.0;
    if (const auto used = number(object.value(QLatin1String("mem_used_mib"))); used && *used >= 0)
        metrics.memoryBytes = wholeBytes(*used * MiB);
    if (const auto total = number(object.value(QLatin1String("mem_total_mib"))); total && *total > 0)
        metrics.memoryLimitBytes = limitBytes(*total * MiB);
    return metrics;
}

namespace {

std::optional<SandboxMetrics> e2bMetric(const QJsonObject &object)
{
    if (object.isEmpty())
        return std::nullopt;
    SandboxMetrics metrics;
    if (const auto seconds = number(object.value(QLatin1String("timestampUnix")));
        seconds && *seconds > 0 && *seconds < 1e12)
        metrics.sampledAt = QDateTime::fromSecsSinceEpoch(static_cast<qint64>(*seconds), Qt::UTC);
    else
        metrics.sampledAt =
            QDateTime::fromString(object.value(QLatin1String("timestamp")).toString(), Qt::ISODateWithMs).toUTC();
    metrics.cpuPercent =
        percentOfOneCore(object.value(QLatin1String("cpuUsedPct")), object.value(QLatin1String("cpuCount")));
    if (const auto used = number(object.value(QLatin1String("memUsed"))); used && *used >= 0)
        metrics.memoryBytes = wholeBytes(*used);
    if (const auto total = number(object.value(QLatin1String("memTotal"))); total && *total > 0)
        metrics.memoryLimitBytes = limitBytes(*total);
    return metrics;
}

} // namespace

QHash<QString, SandboxMetrics> parseE2bSandboxesMetrics(const QByteArray &json)
{
    QHash<QString, SandboxMetrics> result;
    const QJsonObject sandboxes = QJsonDocument::fromJson(json).object().value(QLatin1String("sandboxes")).toObject();
    for (auto it = sandboxes.begin(); it != sandboxes.end(); ++it) {
        auto metrics = e2bMetric(it.value().toObject());
        if (!metrics || it.key().isEmpty())
            continue;
        metrics->sandboxId = it.key();
        result.insert(it.key(), *metrics);
    }
    return result;
}

std::optional<SandboxMetrics> e2bMetricFromJson(const QByteArray &json)
{
    const QJsonDocument document = QJsonDocument::fromJson(json);
    if (document.isArray()) {
        const QJsonArray entries = document.array();
        if (entries.isEmpty())
            return std::nullopt;
        return e2bMetric(entries.last().toObject());
    }
    return e2bMetric(document.object());
}

} // namespace Paddock::MetricsWire
