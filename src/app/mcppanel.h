#pragma once

#include "inspectorpanel.h"
#include "inspectorsupport.h"

#include <QSet>

#include <optional>

class InspectorNote;
class QPushButton;
class QStandardItemModel;

// The inspector's MCP Servers: .mcp in every version as agent → session → entries, each with its
// transport, command, arguments, environment, URL, headers, timeouts and tool lists. Every secret
// (environment and header values, URL credentials and query values, secret arguments) shows as
// •••• and is revealed one value at a time by Reveal Value (McpEntry::reveal); Copy copies the
// masked form even of a value revealed, and only Copy Revealed Value copies one. Nothing revealed
// is logged. Explains [] (no MCP servers) against a session not listed (the manager's defaults),
// entries AgentScope would skip and why, and what AgentScope does with a .mcp it cannot read.
class McpPanel final : public InspectorPanel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(McpPanel)

public:
    explicit McpPanel(QWidget *parent = nullptr);
    ~McpPanel() override;

    InspectorTreeView *view() const { return m_view; }
    QStandardItemModel *model() const { return m_model; }
    InspectorNote *note() const { return m_note; }
    QPushButton *revealButton() const { return m_reveal; }
    QAction *revealAction() const { return m_revealAction; }
    QAction *copyRevealedAction() const { return m_copyRevealed; }
    bool isRead() const { return m_view_.has_value() || m_error.has_value(); }
    int revealedCount() const { return int(m_revealed.size()); }
    // The current row's secret revealed (or hidden again).
    void revealCurrent();
    void hideAll();

protected:
    void clearShown() override;
    void load() override;
    void retranslate() override;

private:
    QCoro::Task<void> read();
    void render();
    void updateActions();
    // The current row's secret: "<scope>/<entry>/<path>", or empty.
    QString currentSecret() const;
    std::optional<QString> rawValue(const QString &secret) const;

    InspectorNote *m_note;
    QPushButton *m_reveal;
    QPushButton *m_hideAll;
    InspectorTreeView *m_view;
    QStandardItemModel *m_model;
    QAction *m_revealAction;
    QAction *m_copyRevealed;
    ReadSlot m_slot;
    std::optional<Paddock::Inspect::McpView> m_view_;
    std::optional<Paddock::Error> m_error;
    QSet<QString> m_revealed;
};
