#include "metricschart.h"

#include "workspacetreemodel.h"

#include <QEvent>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

using namespace Paddock;

namespace {

const QColor CpuColor(0x25, 0x63, 0xeb);
const QColor MemoryColor(0xd9, 0x77, 0x06);

} // namespace

MetricsChart::MetricsChart(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("metricsChart"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    updateText();
}

MetricsChart::~MetricsChart() = default;

void MetricsChart::setSamples(QList<SandboxMetrics> samples)
{
    m_samples = std::move(samples);
    updateText();
    update();
}

void MetricsChart::setRunning(bool running)
{
    if (std::exchange(m_running, running) == running)
        return;
    updateText();
    update();
}

QStringList MetricsChart::legend() const
{
    const SandboxMetrics *last = m_samples.isEmpty() || !m_running ? nullptr : &m_samples.constLast();
    const QString none = QStringLiteral("\u2014");
    return {tr("CPU %1").arg(last && last->cpuPercent ? WorkspaceTreeModel::formatCpu(*last->cpuPercent) : none),
            tr("Memory %1").arg(last && last->memoryBytes ? WorkspaceTreeModel::formatMemory(*last) : none)};
}

QSize MetricsChart::sizeHint() const
{
    return {240, fontMetrics().height() * 6};
}

QSize MetricsChart::minimumSizeHint() const
{
    return {120, fontMetrics().height() * 4};
}

double MetricsChart::cpuTop() const
{
    double top = 100;
    for (const SandboxMetrics &sample : m_samples) {
        if (sample.cpuPercent)
            top = std::max(top, *sample.cpuPercent);
    }
    // A whole number of cores.
    return std::ceil(top / 100.0) * 100.0;
}

double MetricsChart::memoryTop() const
{
    double top = 0;
    for (const SandboxMetrics &sample : m_samples) {
        if (sample.memoryLimitBytes)
            top = std::max(top, double(*sample.memoryLimitBytes));
        if (sample.memoryBytes)
            top = std::max(top, double(*sample.memoryBytes));
    }
    return top > 0 ? top : 1;
}

QString MetricsChart::summary() const
{
    if (!m_running)
        return tr("Not running: no current CPU or memory figures");
    if (m_samples.isEmpty())
        return tr("No CPU or memory figures yet");
    const SandboxMetrics &last = m_samples.constLast();
    const QString cpu = last.cpuPercent ? WorkspaceTreeModel::formatCpu(*last.cpuPercent) : tr("not reported");
    const QString memory = last.memoryBytes ? WorkspaceTreeModel::formatMemory(last) : tr("not reported");
    const qint64 span = m_samples.constFirst().sampledAt.secsTo(last.sampledAt);
    return tr("CPU %1, memory %2; %n sample(s) over the last %3", nullptr, int(m_samples.size()))
        .arg(cpu, memory, WorkspaceTreeModel::formatCountdown(std::max<qint64>(span, 0)));
}

void MetricsChart::updateText()
{
    setAccessibleName(tr("CPU and memory of the last minutes"));
    const QString text = summary();
    setAccessibleDescription(text);
    setToolTip(text);
}

void MetricsChart::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        updateText();
    QWidget::changeEvent(event);
}

void MetricsChart::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QFontMetrics metrics = fontMetrics();
    const int legend = metrics.height() + 2;
    const QRectF plot = QRectF(rect()).adjusted(1, legend, -1, -1);
    painter.setPen(palette().color(QPalette::Mid));
    painter.setBrush(palette().color(QPalette::Base));
    painter.drawRect(plot);

    // The legend: the last figures, in each line's colour.
    const QStringList texts = MetricsChart::legend();
    const QString &cpuText = texts.constFirst();
    const QString &memoryText = texts.constLast();
    painter.setPen(CpuColor);
    painter.drawText(QPointF(2, metrics.ascent()), cpuText);
    painter.setPen(MemoryColor);
    painter.drawText(QPointF(2 + metrics.horizontalAdvance(cpuText) + metrics.horizontalAdvance(QLatin1Char(' ')) * 3,
                             metrics.ascent()),
                     memoryText);
    if (m_samples.size() < 2)
        return;

    // Time runs over the span of the samples, the newest at the right.
    const qint64 first = m_samples.constFirst().sampledAt.toMSecsSinceEpoch();
    const qint64 span = std::max<qint64>(1, m_samples.constLast().sampledAt.toMSecsSinceEpoch() - first);
    const auto xOf = [&](const SandboxMetrics &sample) {
        return plot.left() + plot.width() * double(sample.sampledAt.toMSecsSinceEpoch() - first) / double(span);
    };
    const auto line = [&](const QColor &color, auto valueOf, double top) {
        QPainterPath path;
        bool drawing = false;
        for (const SandboxMetrics &sample : m_samples) {
            const std::optional<double> value = valueOf(sample);
            if (!value) {
                drawing = false; // absent: a gap, never a zero
                continue;
            }
            const QPointF point(xOf(sample), plot.bottom() - plot.height() * std::clamp(*value / top, 0.0, 1.0));
            if (drawing)
                path.lineTo(point);
            else
                path.moveTo(point);
            drawing = true;
        }
        painter.setPen(QPen(color, 1.5));
        painter.setBrush(Qt::NoBrush);
        painter.drawPath(path);
    };
    line(
        MemoryColor,
        [](const SandboxMetrics &sample) -> std::optional<double> {
            return sample.memoryBytes ? std::optional<double>(double(*sample.memoryBytes)) : std::nullopt;
        },
        memoryTop());
    line(
        CpuColor, [](const SandboxMetrics &sample) { return sample.cpuPercent; }, cpuTop());
}
