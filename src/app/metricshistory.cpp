#include "metricshistory.h"

using namespace Paddock;

MetricsHistory::MetricsHistory(QObject *parent)
    : QObject(parent)
{
}

MetricsHistory::~MetricsHistory() = default;

void MetricsHistory::add(const QString &profile, const QList<SandboxMetrics> &metrics)
{
    if (metrics.isEmpty())
        return;
    QDateTime newest;
    for (const SandboxMetrics &entry : metrics) {
        std::deque<SandboxMetrics> &ring = m_samples[profile + u'\x1f' + entry.sandboxId];
        // A sample no newer than the last one (the same answer again) is not added twice.
        if (!ring.empty() && entry.sampledAt.isValid() && ring.back().sampledAt >= entry.sampledAt)
            continue;
        ring.push_back(entry);
        while (ring.size() > size_t(Capacity))
            ring.pop_front();
        if (!newest.isValid() || entry.sampledAt > newest)
            newest = entry.sampledAt;
    }
    if (newest.isValid() && (!m_lastPrune.isValid() || m_lastPrune.secsTo(newest) > 60))
        prune(newest);
    Q_EMIT samplesAdded(profile);
}

QList<SandboxMetrics> MetricsHistory::samples(const QString &key) const
{
    QList<SandboxMetrics> result;
    const auto it = m_samples.constFind(key);
    if (it == m_samples.cend() || it->empty())
        return result;
    const QDateTime from = it->back().sampledAt.addSecs(-SpanSeconds);
    for (const SandboxMetrics &sample : *it) {
        if (sample.sampledAt >= from)
            result.append(sample);
    }
    return result;
}

void MetricsHistory::removeProfile(const QString &profile)
{
    const QString prefix = profile + u'\x1f';
    for (auto it = m_samples.begin(); it != m_samples.end();) {
        if (it.key().startsWith(prefix))
            it = m_samples.erase(it);
        else
            ++it;
    }
}

void MetricsHistory::prune(const QDateTime &now)
{
    m_lastPrune = now;
    const QDateTime from = now.addSecs(-SpanSeconds);
    for (auto it = m_samples.begin(); it != m_samples.end();) {
        while (!it->empty() && it->front().sampledAt < from)
            it->pop_front();
        if (it->empty())
            it = m_samples.erase(it);
        else
            ++it;
    }
}
