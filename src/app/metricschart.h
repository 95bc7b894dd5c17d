#pragma once

#include "metrics.h"

#include <QList>
#include <QWidget>

// A small chart of a workspace's CPU and memory over the last minutes (MetricsHistory's
// samples), painted by hand: CPU as a line over 0 to 100% (or the highest figure above it),
// memory as a line over 0 to its limit (or the highest figure). A figure that is absent breaks
// its line. The accessible description gives the last values in words.
class MetricsChart final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MetricsChart)

public:
    explicit MetricsChart(QWidget *parent = nullptr);
    ~MetricsChart() override;

    void setSamples(QList<Paddock::SandboxMetrics> samples);
    const QList<Paddock::SandboxMetrics> &samples() const { return m_samples; }
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
};
