#include "inspectordock.h"

#include "datapanel.h"
#include "elidedlabel.h"
#include "filespanel.h"
#include "gatewaypanel.h"
#include "mcppanel.h"
#include "overviewpanel.h"
#include "profilesession.h"
#include "sessionspanel.h"
#include "skillspanel.h"

#include <QAction>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QMainWindow>
#include <QStackedWidget>
#include <QStyle>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

using namespace Paddock;
using namespace Paddock::Inspect;

InspectorDock::InspectorDock(QWidget *parent)
    : QDockWidget(parent)
    , m_body(new QWidget(this))
    , m_title(new ElidedLabel(m_body))
    , m_redact(new QToolButton(m_body))
    , m_refresh(new QToolButton(m_body))
    , m_stack(new QStackedWidget(m_body))
    , m_empty(new QLabel(m_stack))
    , m_tabs(new QTabWidget(m_stack))
    , m_overview(new OverviewPanel(m_tabs))
    , m_sessions(new SessionsPanel(m_tabs))
    , m_skills(new SkillsPanel(m_tabs))
    , m_mcp(new McpPanel(m_tabs))
    , m_data(new DataPanel(m_tabs))
    , m_gateway(new GatewayPanel(m_tabs))
    , m_files(new FilesPanel(m_tabs))
{
    setObjectName(QStringLiteral("inspectorDock"));
    setAllowedAreas(Qt::RightDockWidgetArea | Qt::LeftDockWidgetArea | Qt::BottomDockWidgetArea);
    auto *layout = new QVBoxLayout(m_body);
    layout->setContentsMargins(4, 2, 4, 4);
    layout->setSpacing(2);
    auto *header = new QHBoxLayout;
    header->addWidget(m_title, 1);
    header->addWidget(m_redact);
    header->addWidget(m_refresh);
    layout->addLayout(header);
    layout->addWidget(m_stack, 1);
    m_title->setObjectName(QStringLiteral("inspectorTitle"));
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_redact->setObjectName(QStringLiteral("redactButton"));
    m_redact->setCheckable(true);
    m_redact->setChecked(true);
    m_redact->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_refresh->setObjectName(QStringLiteral("inspectorRefresh"));
    m_refresh->setIcon(style()->standardIcon(QStyle::SP_BrowserReload));
    m_refresh->hide();
    m_redact->hide();
    m_empty->setObjectName(QStringLiteral("inspectorEmpty"));
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_empty->setMargin(16);
    m_empty->setEnabled(false); // greyed, as a placeholder
    m_stack->addWidget(m_empty);
    m_stack->addWidget(m_tabs);
    m_tabs->setDocumentMode(true);
    m_tabs->setUsesScrollButtons(true);
    for (InspectorPanel *panel : panels()) {
        m_tabs->addTab(panel, QString());
        connect(panel, &InspectorPanel::statusMessage, this, &InspectorDock::statusMessage);
    }
    setWidget(m_body);
    connect(m_redact, &QToolButton::toggled, this, &InspectorDock::setRedact);
    connect(m_refresh, &QToolButton::clicked, this, [this] {
        if (auto *panel = qobject_cast<InspectorPanel *>(m_tabs->currentWidget()))
            panel->reload();
    });
    connect(m_gateway, &GatewayPanel::showLogFile, this, &InspectorDock::showLogFile);
    connect(m_sessions, &SessionsPanel::dataFileRequested, this, &InspectorDock::showPanelFor);
    m_stack->setCurrentWidget(m_empty);
    retranslate();
}

InspectorDock::~InspectorDock()
{
    if (m_token)
        m_token->cancel();
}

QList<InspectorPanel *> InspectorDock::panels() const
{
    return {m_overview, m_sessions, m_skills, m_mcp, m_data, m_gateway, m_files};
}

void InspectorDock::setWorkspace(ProfileSession *session, const SandboxInfo &sandbox)
{
    if (!session) {
        clearWorkspace();
        return;
    }
    WorkspaceRef ref;
    ref.session = session;
    ref.sandbox = sandbox;
    if (m_token && m_session == session && m_sandbox.sandboxId == sandbox.sandboxId) {
        // The same workspace, listed again.
        ref.cancel = m_token;
        m_sandbox = sandbox;
        for (InspectorPanel *panel : panels())
            panel->updateWorkspace(ref);
        updateTitle();
        return;
    }
    // Another workspace: what is read for the one before stops, and its answers are dropped.
    if (m_token)
        m_token->cancel();
    m_token = std::make_shared<CancelToken>();
    ref.cancel = m_token;
    m_session = session;
    m_sandbox = sandbox;
    m_stack->setCurrentWidget(m_tabs);
    m_refresh->show();
    m_redact->show();
    for (InspectorPanel *panel : panels())
        panel->setWorkspace(ref);
    updateTitle();
}

void InspectorDock::clearWorkspace(Empty why)
{
    if (m_token)
        m_token->cancel();
    m_token.reset();
    m_session = nullptr;
    m_sandbox = {};
    m_why = why;
    for (InspectorPanel *panel : panels())
        panel->setWorkspace({});
    m_stack->setCurrentWidget(m_empty);
    m_refresh->hide();
    m_redact->hide();
    m_empty->setText(emptyText());
    updateTitle();
}

bool InspectorDock::hasWorkspace() const
{
    return m_token != nullptr;
}

QString InspectorDock::emptyText() const
{
    switch (m_why) {
    case Empty::Group:
        return tr("A group of workspaces is selected: select one workspace to see what is inside it.");
    case Empty::NoProfile:
        return tr("This profile cannot be used now, so there is nothing to inspect.");
    case Empty::NoSelection:
        break;
    }
    return tr("Select a workspace in the list to see what is inside it.");
}

void InspectorDock::setRedact(bool redact)
{
    if (m_redact->isChecked() != redact)
        m_redact->setChecked(redact); // comes back here through toggled
    for (InspectorPanel *panel : panels())
        panel->setRedact(redact);
}

bool InspectorDock::redact() const
{
    return m_redact->isChecked();
}

void InspectorDock::showPanelFor(const QString &dataPath)
{
    m_tabs->setCurrentWidget(m_data);
    m_data->selectFile(dataPath);
}

void InspectorDock::updateTitle()
{
    if (!hasWorkspace()) {
        m_title->setText(QString());
        return;
    }
    const QString id = m_sandbox.workspaceId.isEmpty() ? m_sandbox.sandboxId : m_sandbox.workspaceId;
    const QString profile = m_session ? m_session->profile().displayName() : QString();
    m_title->setText(profile.isEmpty() ? id : tr("%1 (%2)").arg(id, profile));
}

void InspectorDock::showEvent(QShowEvent *event)
{
    QDockWidget::showEvent(event);
    // The first time it shows docked at the narrow width Qt gives a new dock, as wide as its tabs
    // need (a width the user chose, restored from the settings, stays).
    if (std::exchange(m_sized, true) || isFloating())
        return;
    auto *window = qobject_cast<QMainWindow *>(parentWidget());
    if (window && width() < NarrowWidth && window->dockWidgetArea(this) != Qt::BottomDockWidgetArea)
        window->resizeDocks({this}, {PreferredWidth}, Qt::Horizontal);
}

void InspectorDock::changeEvent(QEvent *event)
{
    QDockWidget::changeEvent(event);
    if (event->type() == QEvent::LanguageChange)
        retranslate();
}

void InspectorDock::retranslate()
{
    setWindowTitle(tr("Inspector"));
    toggleViewAction()->setText(tr("&Inspector"));
    toggleViewAction()->setToolTip(tr("Show or hide what is inside the current workspace"));
    m_tabs->setTabText(m_tabs->indexOf(m_overview), tr("Overview"));
    m_tabs->setTabText(m_tabs->indexOf(m_sessions), tr("Sessions"));
    m_tabs->setTabText(m_tabs->indexOf(m_skills), tr("Skills"));
    m_tabs->setTabText(m_tabs->indexOf(m_mcp), tr("MCP Servers"));
    m_tabs->setTabText(m_tabs->indexOf(m_data), tr("Data"));
    m_tabs->setTabText(m_tabs->indexOf(m_gateway), tr("Gateway"));
    m_tabs->setTabText(m_tabs->indexOf(m_files), tr("Files"));
    m_redact->setText(tr("Redact"));
    m_redact->setToolTip(tr("Mask likely secrets (tokens, keys, passwords) in transcripts, tool results and file "
                            "previews. MCP secrets are always masked."));
    m_redact->setAccessibleName(tr("Redact likely secrets"));
    m_refresh->setToolTip(tr("Read this tab again"));
    m_refresh->setAccessibleName(tr("Read again"));
    m_empty->setText(emptyText());
    updateTitle();
}
