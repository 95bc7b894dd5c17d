#pragma once

#include "inspectorpanel.h"
#include "inspectorsupport.h"

#include <QPointer>

#include <optional>

class InspectorNote;
class MetricsChart;
class MetricsHistory;
class QPushButton;
class QStandardItemModel;

// The inspector's Overview: every id (workspace, sandbox, user, agent), the profile and its
// backend, the state and the server's reason and message for it, the image, the times, resources
// and endpoints, every metadata key, where the workspace lives (workdir, gateway home, the folder
// on this computer) and what is at its top level. What the tree's row knows shows at once; what the
// server and the files say (Inspect::readOverview) joins it as it comes. Copy ID and Copy as
// paddockctl Command.
class OverviewPanel final : public InspectorPanel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(OverviewPanel)

public:
    explicit OverviewPanel(QWidget *parent = nullptr);
    ~OverviewPanel() override;

    InspectorTreeView *view() const { return m_view; }
    QStandardItemModel *model() const { return m_model; }
    // Whether the server's and the files' answer has come (for tests and the benchmark).
    bool hasDetails() const { return m_overview.has_value() || m_error.has_value(); }
    // What the copy buttons put on the clipboard.
    QString idText() const;
    QString paddockctlCommand() const;
    QPushButton *copyIdButton() const { return m_copyId; }
    QPushButton *copyCommandButton() const { return m_copyCommand; }
    InspectorNote *note() const { return m_note; }
    // Where the chart of the last minutes' CPU and memory takes its samples (MetricsPoller's);
    // without one, or for a profile whose backend reports none, there is no chart.
    void setMetricsHistory(MetricsHistory *history);
    MetricsChart *metricsChart() const { return m_chart; }

protected:
    void clearShown() override;
    void load() override;
    void rowUpdated() override;
    void retranslate() override;

private:
    QCoro::Task<void> read();
    void render();
    void updateChart();

    QPushButton *m_copyId;
    QPushButton *m_copyCommand;
    InspectorNote *m_note;
    InspectorNote *m_filesNote;
    MetricsChart *m_chart;
    QPointer<MetricsHistory> m_history;
    InspectorTreeView *m_view;
    QStandardItemModel *m_model;
    ReadSlot m_slot;
    std::optional<Paddock::Inspect::Overview> m_overview;
    std::optional<Paddock::Error> m_error;
    bool m_rowNewer = false; // the row was listed again after the server's answer
};
