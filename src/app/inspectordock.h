#pragma once

#include "canceltoken.h"
#include "sandbox.h"

#include <QDockWidget>
#include <QList>
#include <QPointer>

#include <memory>

namespace Paddock {
class ProfileSession;
}
class DataPanel;
class ElidedLabel;
class FilesPanel;
class GatewayPanel;
class InspectorPanel;
class McpPanel;
class OverviewPanel;
class QLabel;
class QStackedWidget;
class QTabWidget;
class QToolButton;
class SessionsPanel;
class SkillsPanel;

// The workspace inspector: a dock that shows what is inside the workspace of the tree's current
// row, one tab per part (Overview, Sessions, Skills, MCP, Data, Gateway, Files). Each tab reads
// only while it is shown, through the shown profile's ProfileSession (it never sees a backend);
// a new current row cancels every read in flight for the one before and drops its answers.
// Nothing in it writes to the workspace. Its texts follow the language (LanguageChange).
class InspectorDock final : public QDockWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(InspectorDock)

public:
    // Its width the first time it shows docked at Qt's narrow default (below NarrowWidth).
    static constexpr int PreferredWidth = 560;
    static constexpr int NarrowWidth = 360;

    explicit InspectorDock(QWidget *parent = nullptr);
    ~InspectorDock() override;

    // The workspace to show, read through `session`. The same sandbox of the same session again
    // updates the row shown (its state, its times) without reading everything again.
    void setWorkspace(Paddock::ProfileSession *session, const Paddock::SandboxInfo &sandbox);
    // Nothing to show, and why, said in place.
    enum class Empty {
        NoSelection, // no current row
        Group, // the current row is a group of workspaces
        NoProfile, // the profile shown has no session (its problem is shown by the window)
    };
    void clearWorkspace(Empty why = Empty::NoSelection);
    bool hasWorkspace() const;
    Paddock::SandboxInfo sandbox() const { return m_sandbox; }
    // Cancelled when the selection moves on (for tests).
    std::shared_ptr<Paddock::CancelToken> token() const { return m_token; }

    QTabWidget *tabs() const { return m_tabs; }
    OverviewPanel *overview() const { return m_overview; }
    SessionsPanel *sessions() const { return m_sessions; }
    SkillsPanel *skills() const { return m_skills; }
    McpPanel *mcp() const { return m_mcp; }
    DataPanel *data() const { return m_data; }
    GatewayPanel *gateway() const { return m_gateway; }
    FilesPanel *files() const { return m_files; }
    QList<InspectorPanel *> panels() const;
    // Free text (transcripts, tool results, file previews) with likely secrets masked: on by default.
    void setRedact(bool redact);
    bool redact() const;
    QString emptyText() const;

Q_SIGNALS:
    // Something to say in the window's status bar.
    void statusMessage(const QString &message);
    // A local file in the bootstrap log's line format to show in the Logs dock (gateway.log's
    // masked copy): the same path again replaces the tab's contents.
    void showLogFile(const QString &path, const QString &title);

protected:
    void showEvent(QShowEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void retranslate();
    void updateTitle();
    void showPanelFor(const QString &dataPath);

    QWidget *m_body;
    ElidedLabel *m_title;
    QToolButton *m_redact;
    QToolButton *m_refresh;
    QStackedWidget *m_stack;
    QLabel *m_empty;
    QTabWidget *m_tabs;
    OverviewPanel *m_overview;
    SessionsPanel *m_sessions;
    SkillsPanel *m_skills;
    McpPanel *m_mcp;
    DataPanel *m_data;
    GatewayPanel *m_gateway;
    FilesPanel *m_files;
    QPointer<Paddock::ProfileSession> m_session;
    Paddock::SandboxInfo m_sandbox;
    std::shared_ptr<Paddock::CancelToken> m_token;
    Empty m_why = Empty::NoSelection;
    bool m_sized = false;
};
