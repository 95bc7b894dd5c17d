#pragma once

#include "metrics.h"

#include <QList>
#include <QWidget>

// A small chart of a workspace's CPU and memory over the last minutes (MetricsHistory's
// samples), painted by hand: CPU as a line over 0 to 100% (or the highest figure above it),
// memory as a line over 0 to its limit (or the highest figure). A figure that is absent breaks
// its line. The legend and the accessible description give the last values; once the workspace
// no longer runs (paused, stopped) they say "—" and that it is not running, while the lines still
// show the minutes before.
class MetricsChart final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MetricsChart)

public:
    explicit MetricsChart(QWidget *parent = nullptr);
    ~MetricsChart() override;

    void setSamples(QList<Paddock::SandboxMetrics> samples);
    const QList<Paddock::SandboxMetrics> &samples() const { return m_samples; }
    // Whether the workspace runs now, so that the last sample is its current figure.
    void setRunning(bool running);
    bool isRunning() const { return m_running; }
    // The legend's two texts ("CPU 12.0%", "Memory 80 MiB / 1 GiB"; "—" when absent or stale).
    QStringList legend() const;
    // What the chart says in words: the last CPU and memory figures, and the span.
    QString summary() const;
    // The scales: the top of the CPU axis (percent) and of the memory axis (bytes).
    double cpuTop() const;
    double memoryTop() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void updateText();

    QList<Paddock::SandboxMetrics> m_samples;
    bool m_running = true;
};
