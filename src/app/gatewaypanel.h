#pragma once

#include "inspectorpanel.h"
#include "inspectorsupport.h"

#include <QTemporaryDir>

#include <memory>
#include <optional>

class InspectorNote;
class QPushButton;
class QStandardItemModel;

// The inspector's Gateway: AgentScope's MCP gateway in the workspace's gateway home: its files
// (the script, written last by AgentScope's bootstrap, so a missing one means the bootstrap did not
// complete; Paddock's own marker; the venv; gateway.log), whether it answers /health (Check Health
// runs one read-only command in the workspace that needs no curl), and gateway.log in the Logs
// dock: its last part, likely secrets masked, copied into a local file in the bootstrap log's line
// format (in a temporary folder of this run, written again each time it is shown).
class GatewayPanel final : public InspectorPanel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(GatewayPanel)

public:
    static constexpr qint64 LogTailBytes = 512 * 1024;

    explicit GatewayPanel(QWidget *parent = nullptr);
    ~GatewayPanel() override;

    InspectorTreeView *view() const { return m_view; }
    QStandardItemModel *model() const { return m_model; }
    InspectorNote *note() const { return m_note; }
    QPushButton *healthButton() const { return m_health; }
    QPushButton *logButton() const { return m_log; }
    bool isRead() const { return m_gateway.has_value() || m_error.has_value(); }
    bool isProbing() const { return m_probing; }
    std::optional<Paddock::Inspect::GatewayView> gateway() const { return m_gateway; }
    // Asks /health from inside the workspace.
    void checkHealth();
    // Reads gateway.log's last part, masks it, and asks for it to be shown (showLogFile).
    void showLog();
    // Where the masked copies are written (for tests).
    QString logFolder() const;

Q_SIGNALS:
    void showLogFile(const QString &path, const QString &title);

protected:
    void clearShown() override;
    void load() override;
    void retranslate() override;

private:
    QCoro::Task<void> read(bool probe);
    QCoro::Task<void> readLog();
    void render();

    InspectorNote *m_note;
    QPushButton *m_health;
    QPushButton *m_log;
    InspectorTreeView *m_view;
    QStandardItemModel *m_model;
    ReadSlot m_slot;
    ReadSlot m_logSlot;
    std::optional<Paddock::Inspect::GatewayView> m_gateway;
    std::optional<Paddock::Error> m_error;
    std::optional<Paddock::Error> m_logError;
    bool m_probing = false;
    bool m_readingLog = false;
    std::unique_ptr<QTemporaryDir> m_folder;
};
