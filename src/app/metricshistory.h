#pragma once

#include "metrics.h"

#include <QDateTime>
#include <QHash>
#include <QObject>

#include <deque>

// The CPU and memory figures of the last minutes per workspace, for the inspector's chart: what
// MetricsPoller read, kept per WorkspaceRecord::key() in a bounded ring (at most Capacity samples
// over at most Span; a workspace not sampled within Span is forgotten at the next prune).
class MetricsHistory final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MetricsHistory)

public:
    static constexpr int Capacity = 120; // ten minutes at one sample every five seconds
    static constexpr qint64 SpanSeconds = 600;

    explicit MetricsHistory(QObject *parent = nullptr);
    ~MetricsHistory() override;

    // One sample per entry of `metrics` (their sandbox ids under `profile`); samplesAdded once.
    void add(const QString &profile, const QList<Paddock::SandboxMetrics> &metrics);
    // Oldest first, within Span of the newest.
    QList<Paddock::SandboxMetrics> samples(const QString &key) const;
    void removeProfile(const QString &profile);
    qsizetype workspaceCount() const { return m_samples.size(); }

Q_SIGNALS:
    void samplesAdded(const QString &profile);

private:
    void prune(const QDateTime &now);

    QHash<QString, std::deque<Paddock::SandboxMetrics>> m_samples;
    QDateTime m_lastPrune;
};
