#include "mainwindow.h"

#include "actionicons.h"
#include "activitytracker.h"
#include "allprofiles.h"
#include "backendregistry.h"
#include "bootstraplog.h"
#include "colorscheme.h"
#include "commandactions.h"
#include "consoleevents.h"
#include "dialogwait.h"
#include "elidedlabel.h"
#include "eventhistorydock.h"
#include "i18n.h"
#include "inspectordock.h"
#include "liveupdates.h"
#include "logdock.h"
#include "metricshistory.h"
#include "metricspoller.h"
#include "opendialog.h"
#include "overviewpanel.h"
#include "profilesession.h"
#include "savedfilters.h"
#include "shortcutsdialog.h"
#include "ui_mainwindow.h"
#include "windowstate.h"
#include "workspaceactions.h"
#include "workspacecountlabel.h"
#include "workspacefilterproxy.h"
#include "workspacetreemodel.h"

#include "idlerule.h"

#include <QCoroFuture>
#include <QCoroSignal>
#include <QCoroTask>

#include <QActionGroup>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QFileInfo>
#include <QHeaderView>
#include <QInputDialog>
#include <QKeyEvent>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPointer>
#include <QProgressDialog>
#include <QScrollBar>
#include <QSet>
#include <QShortcut>
#include <QStyle>
#include <QtConcurrent/QtConcurrentRun>

using namespace Paddock;

MainWindow::MainWindow(ProfileSession *session, QWidget *parent)
    : QMainWindow(parent)
    , m_ui(std::make_unique<Ui::MainWindow>())
    , m_activity(new ActivityTracker(this))
    , m_actions(nullptr)
    , m_commands(nullptr)
    , m_live(nullptr)
    , m_model(new WorkspaceTreeModel(this))
    , m_proxy(new WorkspaceFilterProxy(this))
    , m_freshness(new ElidedLabel(this))
    , m_logDock(new LogDock(this))
    , m_inspector(new InspectorDock(this))
    , m_eventDock(new EventHistoryDock(this))
    , m_languages(new QActionGroup(this))
{
    m_ui->setupUi(this);
    // The widget side of Close, Pause, Resume, Renew and Kill; the session does them.
    m_actions = new WorkspaceActionController(this, m_model, m_activity, this);
    connect(m_actions, &WorkspaceActionController::busyChanged, this, [this] { updateActions(); });
    connect(m_actions, &WorkspaceActionController::finished, this, [this](const QString &summary) {
        // Vanished rows go and changed states show first; then the summary says it is done.
        QCoro::connect(refresh(), this, [this, summary] {
            if (m_destroying)
                return;
            statusBar()->showMessage(summary);
            m_lastSummary = summary;
        });
    });
    // Run Command and Open Terminal, on the chosen workspace.
    m_commands = new CommandActions(m_ui->actionRunCommand, m_ui->actionOpenTerminal, this);
    connect(m_ui->actionRunCommand, &QAction::triggered, this, [this] {
        if (const WorkspaceRecord *record = chosenRecord({}))
            m_commands->runCommand(*record);
    });
    connect(m_ui->actionOpenTerminal, &QAction::triggered, this, [this] {
        if (const WorkspaceRecord *record = chosenRecord({}))
            m_commands->openTerminal(*record);
    });
    // Where the backend watches, the shown profile's changes reach the tree as they happen;
    // the listings at the refresh interval reconcile.
    m_live = new LiveUpdates(m_model, this);
    m_live->setDecorator([this] { return decorator(QDateTime::currentDateTimeUtc()); });
    // "All profiles": every profile's rows under its own group, each through its own session.
    m_all = new AllProfiles(m_model, m_activity, this);
    connect(m_all, &AllProfiles::refreshed, this, [this](bool listed) {
        if (!showsAllProfiles())
            return;
        statusBar()->clearMessage(); // the count shows (WorkspaceCountLabel), and no older error
        if (m_fitAllRows && m_model->workspaceCount() > 0) {
            m_fitAllRows = false;
            m_windowState->fitNextRows();
        }
        tick();
        m_visibleTimer.start();
        if (m_all->isSettling() && isVisible())
            m_settleTimer.start();
        Q_EMIT refreshed(listed);
    });
    connect(m_all, &AllProfiles::profileRefreshed, this, [this](const QString &profile) {
        applyPendingSelection(); // a notification's workspaces, once their profile's listing has them
        // Its problem on its entry in the switcher too, as for a profile shown alone.
        if (const int index = m_ui->profileBox->findData(profile); index >= 0) {
            const QString problem = m_all->problem(profile);
            m_ui->profileBox->setItemIcon(
                index, problem.isEmpty() ? QIcon() : style()->standardIcon(QStyle::SP_MessageBoxWarning));
            m_ui->profileBox->setItemData(index, problem.isEmpty() ? QVariant() : QVariant(problem), Qt::ToolTipRole);
        }
    });
    m_proxy->setSourceModel(m_model);
    m_ui->workspaceView->setModel(m_proxy);
    {
        // CPU and Memory are the model's last columns; they show after the countdowns, where a
        // window as wide as the screen still shows them (a saved layout, restored later, wins).
        QHeaderView *header = m_ui->workspaceView->header();
        header->moveSection(header->visualIndex(WorkspaceTreeModel::CpuColumn),
                            header->visualIndex(WorkspaceTreeModel::ExpiryColumn) + 1);
        header->moveSection(header->visualIndex(WorkspaceTreeModel::MemoryColumn),
                            header->visualIndex(WorkspaceTreeModel::CpuColumn) + 1);
    }
    m_ui->workspaceView->sortByColumn(WorkspaceTreeModel::WorkspaceColumn, Qt::AscendingOrder);
    m_ui->workspaceView->header()->setSectionResizeMode(QHeaderView::Interactive);
    m_ui->workspaceView->header()->resizeSection(WorkspaceTreeModel::WorkspaceColumn, 260);
    m_ui->workspaceView->header()->resizeSection(WorkspaceTreeModel::StateColumn, 180); // group counts
    // Times in full ("30 Nov 2026 09:12" in English; the locale decides), countdowns with seconds.
    const QString sampleTime =
        QLocale().toString(QDateTime(QDate(2026, 12, 30), QTime(23, 59)), QLocale::ShortFormat) + QStringLiteral("  ");
    const int timeWidth = fontMetrics().horizontalAdvance(sampleTime) + 16;
    for (const int column : {WorkspaceTreeModel::LastActivityColumn, WorkspaceTreeModel::CreatedColumn})
        m_ui->workspaceView->header()->resizeSection(column, std::max(timeWidth, 120));
    m_freshness->setAccessibleName(tr("Last refresh"));
    statusBar()->addPermanentWidget(m_freshness);
    // The count of workspaces (shown by the filter, of all): covered by what the status bar says
    // meanwhile, back when that is done.
    statusBar()->addWidget(new WorkspaceCountLabel(m_model, m_proxy, this));

    // New groups open expanded; groups the user collapsed stay collapsed.
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this, &MainWindow::expandGroups);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, [this] { expandGroups({}, 0, m_proxy->rowCount() - 1); });

    // Filters: text (focused with /, cleared with Esc) and state. The text filter keeps room for
    // what one types (a long profile problem beside it squeezed it to a sliver).
    m_ui->filterEdit->setMinimumWidth(m_ui->filterEdit->fontMetrics().averageCharWidth() * 24);
    connect(m_ui->filterEdit, &QLineEdit::textChanged, m_proxy, &WorkspaceFilterProxy::setText);
    connect(m_ui->actionFocusFilter, &QAction::triggered, this, [this] {
        m_ui->filterEdit->setFocus(Qt::ShortcutFocusReason);
        m_ui->filterEdit->selectAll();
    });
    auto *clearFilter =
        new QShortcut(QKeySequence(Qt::Key_Escape), m_ui->filterEdit, nullptr, nullptr, Qt::WidgetShortcut);
    connect(clearFilter, &QShortcut::activated, m_ui->filterEdit, &QLineEdit::clear);
    // Space marks the current row (and moves on), as in k9s; Shift/Ctrl-click still select.
    m_ui->workspaceView->installEventFilter(this);
    m_ui->stateFilterBox->addItem(tr("All states"), -1);
    for (const SandboxState state : {SandboxState::Running, SandboxState::Paused, SandboxState::Pending,
                                     SandboxState::Failed, SandboxState::Unknown}) {
        m_ui->stateFilterBox->addItem(WorkspaceTreeModel::stateText(state), int(state));
    }
    connect(m_ui->stateFilterBox, &QComboBox::currentIndexChanged, this, [this](int index) {
        const int state = m_ui->stateFilterBox->itemData(index).toInt();
        m_proxy->setState(state < 0 ? std::nullopt : std::optional(SandboxState(state)));
    });
    // Every backend this build has.
    m_ui->backendFilterBox->addItem(tr("All backends"), QString());
    for (const BackendFactory &factory : BackendRegistry::instance().factories())
        m_ui->backendFilterBox->addItem(factory.displayName(), factory.id);
    connect(m_ui->backendFilterBox, &QComboBox::currentIndexChanged, this,
            [this](int index) { m_proxy->setBackend(m_ui->backendFilterBox->itemData(index).toString()); });

    for (const int seconds : {0, 5, 15, 30, 60}) {
        m_ui->refreshIntervalBox->addItem(seconds == 0 ? tr("Off") : tr("%n second(s)", nullptr, seconds), seconds);
    }
    m_ui->refreshIntervalBox->setCurrentIndex(m_ui->refreshIntervalBox->findData(int(m_refreshInterval.count())));
    connect(m_ui->refreshIntervalBox, &QComboBox::currentIndexChanged, this, [this](int index) {
        setRefreshInterval(std::chrono::seconds(m_ui->refreshIntervalBox->itemData(index).toInt()));
    });
    connect(m_ui->refreshIntervalBox, &QComboBox::activated, this, [this](int index) {
        Q_EMIT refreshIntervalChosen(std::chrono::seconds(m_ui->refreshIntervalBox->itemData(index).toInt()));
    });

    connect(m_ui->actionRefresh, &QAction::triggered, this, [this] { refresh(); });
    connect(m_ui->actionOpen, &QAction::triggered, this, &MainWindow::openWorkspace);
    connect(m_ui->actionClose, &QAction::triggered, this, [this] { runAction(WorkspaceAction::Close); });
    connect(m_ui->actionShowLog, &QAction::triggered, this, [this] { showSelectedLog(false); });
    connect(m_ui->actionShowContainerLog, &QAction::triggered, this, [this] { showSelectedLog(true); });
    connect(m_ui->actionProfiles, &QAction::triggered, this, &MainWindow::profilesRequested);
    connect(m_ui->actionQuit, &QAction::triggered, this, &MainWindow::requestQuit);
    // View > Language: the system's, or one we ship, named in itself so anyone finds their own.
    auto *systemLanguage = new QAction(tr("System language"), m_languages);
    systemLanguage->setObjectName(QStringLiteral("languageSystem"));
    systemLanguage->setData(QString());
    for (const Paddock::Language &language : Paddock::languages()) {
        auto *action = new QAction(language.nativeName, m_languages);
        action->setObjectName(QStringLiteral("language_") + language.code);
        action->setData(language.code);
    }
    for (QAction *action : m_languages->actions()) {
        action->setCheckable(true);
        m_ui->menuLanguage->addAction(action);
    }
    systemLanguage->setChecked(true);
    connect(m_languages, &QActionGroup::triggered, this,
            [this](QAction *action) { Q_EMIT languageChosen(action->data().toString()); });
    connect(m_ui->actionPause, &QAction::triggered, this, [this] { runAction(WorkspaceAction::Pause); });
    connect(m_ui->actionResume, &QAction::triggered, this, [this] { runAction(WorkspaceAction::Resume); });
    // Named filters next to the filter's widgets, and every workspace the filter shows selected.
    m_savedFilters = new SavedFilters(m_ui->filterEdit, m_ui->stateFilterBox, m_ui->backendFilterBox, this);
    m_ui->headerLayout->insertWidget(m_ui->headerLayout->indexOf(m_ui->backendFilterBox) + 1, m_savedFilters);
    connect(m_savedFilters, &SavedFilters::statusMessage, this,
            [this](const QString &message) { statusBar()->showMessage(message); });
    connect(m_ui->actionSelectAllMatching, &QAction::triggered, this, [this] {
        const int count = SavedFilters::selectAllMatching(m_proxy, m_model, m_ui->workspaceView->selectionModel());
        statusBar()->showMessage(tr("%n workspace(s) selected.", nullptr, count));
    });
    connect(m_ui->actionSelectIdle, &QAction::triggered, this, [this] { selectIdle(false); });
    connect(m_ui->actionPauseIdle, &QAction::triggered, this, [this] { selectIdle(true); });
    connect(m_ui->actionRenew, &QAction::triggered, this, [this] { runAction(WorkspaceAction::Renew); });
    connect(m_ui->actionKill, &QAction::triggered, this, [this] { runAction(WorkspaceAction::Kill); });
    connect(m_ui->actionGroupByIsolation, &QAction::toggled, this, [this](bool grouped) {
        // Switching the layout rebuilds the model: the selection is carried over by key.
        QStringList keys;
        for (const WorkspaceRecord *record : selectedRecords())
            keys.append(record->key());
        m_model->setGrouped(grouped);
        for (const QString &key : std::as_const(keys)) {
            const QModelIndex index = m_proxy->mapFromSource(m_model->indexOfKey(key));
            m_ui->workspaceView->selectionModel()->select(index,
                                                          QItemSelectionModel::Select | QItemSelectionModel::Rows);
        }
    });
    connect(m_ui->workspaceView->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &MainWindow::updateActions);
    // A changed state can change what fits the selection. Checked once per burst of changes (a
    // refresh, a bulk action's progress), never for the countdowns' ticks.
    m_actionsTimer.setSingleShot(true);
    m_actionsTimer.setInterval(0);
    connect(&m_actionsTimer, &QTimer::timeout, this, &MainWindow::updateActions);
    connect(m_model, &QAbstractItemModel::dataChanged, this,
            [this](const QModelIndex &, const QModelIndex &, const QList<int> &roles) {
                // A tick names its roles (text only); a refresh or an action's outcome does not.
                if (roles.isEmpty())
                    m_actionsTimer.start();
            });

    connect(m_ui->profileBox, &QComboBox::activated, this, [this](int index) {
        const QString id = m_ui->profileBox->itemData(index).toString();
        if (id != m_profile)
            Q_EMIT profileChosen(id);
    });
    m_ui->profileBox->addItem(m_profile, m_profile);

    m_refreshTimer.setInterval(m_refreshInterval);
    connect(&m_refreshTimer, &QTimer::timeout, this, [this] { refresh(); });
    m_tickTimer.setInterval(std::chrono::seconds(1));
    connect(&m_tickTimer, &QTimer::timeout, this, &MainWindow::tick);
    m_settleTimer.setSingleShot(true);
    m_settleTimer.setInterval(std::chrono::seconds(1));
    connect(&m_settleTimer, &QTimer::timeout, this, [this] { refresh(); });

    // Last activity: what the tracker learns goes straight into the row; the rows in view are
    // asked about once scrolling or a refresh settles.
    connect(m_activity, &ActivityTracker::activityChanged, m_model, &WorkspaceTreeModel::setLastActivity);
    m_visibleTimer.setSingleShot(true);
    m_visibleTimer.setInterval(150);
    connect(&m_visibleTimer, &QTimer::timeout, this, &MainWindow::requestVisibleActivity);
    connect(m_ui->workspaceView->verticalScrollBar(), &QScrollBar::valueChanged, &m_visibleTimer,
            qOverload<>(&QTimer::start));
    connect(m_ui->workspaceView, &QTreeView::expanded, &m_visibleTimer, qOverload<>(&QTimer::start));
    // CPU and memory of the running rows in view, read at most every 5 s while the window shows.
    m_metricsHistory = new MetricsHistory(this);
    m_metrics = new MetricsPoller(m_model, m_metricsHistory, this);
    const auto rowsInView = [this](const QString &profile) {
        QStringList ids;
        // Nothing is read while nothing would show it: both columns hidden, no inspector.
        const QHeaderView *header = m_ui->workspaceView->header();
        if (header->isSectionHidden(WorkspaceTreeModel::CpuColumn)
            && header->isSectionHidden(WorkspaceTreeModel::MemoryColumn) && !m_inspector->isVisible())
            return ids;
        const QModelIndexList rows = m_ui->workspaceView->rowsInView();
        for (const QModelIndex &index : rows) {
            const WorkspaceRecord *record = m_model->record(m_proxy->mapToSource(index));
            if (record && record->profile == profile && record->info.state == SandboxState::Running)
                ids.append(record->info.sandboxId);
        }
        return ids;
    };
    // Asked for the poller's own profile's rows (the one its session belongs to), never for
    // whichever profile the window shows at that moment.
    m_metrics->setRowsInViewOf(rowsInView);
    connect(&m_visibleTimer, &QTimer::timeout, m_metrics, &MetricsPoller::viewChanged);
    connect(m_metrics, &MetricsPoller::notice, this,
            [this](const QString &message) { statusBar()->showMessage(message); });

    // Every action is also in the tree's context menu.
    m_ui->workspaceView->setContextMenuPolicy(Qt::ActionsContextMenu);
    auto *separator = new QAction(this);
    separator->setSeparator(true);
    auto *logSeparator = new QAction(this);
    logSeparator->setSeparator(true);
    auto *copySeparator = new QAction(this);
    copySeparator->setSeparator(true);
    auto *commandSeparator = new QAction(this);
    commandSeparator->setSeparator(true);
    m_ui->workspaceView->addActions({m_ui->actionOpen, m_ui->actionClose, logSeparator, m_ui->actionShowLog,
                                     m_ui->actionShowContainerLog, m_ui->actionRetryBootstrap, commandSeparator,
                                     m_ui->actionRunCommand, m_ui->actionOpenTerminal, separator, m_ui->actionPause,
                                     m_ui->actionResume, m_ui->actionRenew, m_ui->actionKill, copySeparator,
                                     m_ui->actionCopyId, m_ui->actionRefresh});
    connect(m_ui->actionCopyId, &QAction::triggered, this, &MainWindow::copyIds);
    connect(m_ui->actionRetryBootstrap, &QAction::triggered, this, &MainWindow::retryBootstrap);
    connect(m_ui->actionFocusLogs, &QAction::triggered, this, &MainWindow::switchFocus);
    connect(m_ui->actionShortcuts, &QAction::triggered, this, [this] {
        auto *dialog = new ShortcutsDialog(menuBar(), this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->open();
    });
    connect(m_ui->actionAbout, &QAction::triggered, this, &MainWindow::showAbout);
    {
        // The badge of a read-only profile, next to the switcher.
        QLabel *badge = m_ui->readOnlyBadge;
        badge->setStyleSheet(QStringLiteral("QLabel { background: #e5e7eb; color: #374151; border: 1px solid "
                                            "#9ca3af; border-radius: 4px; padding: 1px 6px; font-weight: bold; }"));
    }
    // Geometry, docks and columns are kept (once the console gives it settings); the header has a
    // menu of the columns.
    m_windowState = new WindowState(this, m_ui->workspaceView, this);

    // Logs open in tabs of a dock under the table.
    connect(m_logDock, &LogDock::statusMessage, this,
            [this](const QString &message) { statusBar()->showMessage(message); });
    addDockWidget(Qt::BottomDockWidgetArea, m_logDock);
    m_logDock->hide();
    m_ui->menuView->insertAction(m_ui->actionRefresh, m_logDock->toggleViewAction());
    updateLogSource();

    // The inspector, at the right: what is inside the current workspace (View > Inspector, F9).
    connect(m_inspector, &InspectorDock::statusMessage, this,
            [this](const QString &message) { statusBar()->showMessage(message); });
    connect(m_inspector, &InspectorDock::showLogFile, m_logDock, &LogDock::showLocalFile);
    addDockWidget(Qt::RightDockWidgetArea, m_inspector);
    m_inspector->hide();
    m_inspector->toggleViewAction()->setShortcut(QKeySequence(Qt::Key_F9));
    m_inspector->overview()->setMetricsHistory(m_metricsHistory);
    m_ui->menuView->insertAction(m_ui->actionRefresh, m_inspector->toggleViewAction());

    // The event history, under the tree (View > Event History, Ctrl+Shift+H).
    connect(m_eventDock, &EventHistoryDock::statusMessage, this,
            [this](const QString &message) { statusBar()->showMessage(message); });
    connect(m_eventDock, &EventHistoryDock::workspaceActivated, this, &MainWindow::selectWorkspace);
    addDockWidget(Qt::BottomDockWidgetArea, m_eventDock);
    m_eventDock->hide();
    m_eventDock->toggleViewAction()->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_H));
    m_ui->menuView->insertAction(m_ui->actionRefresh, m_eventDock->toggleViewAction());
    m_windowState->sizeWhenFirstShown({m_logDock, m_eventDock}, 240);
    connect(m_ui->workspaceView->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &MainWindow::updateInspector);
    // A listing that changed rows (not a tick): the current one may have.
    m_inspectorTimer.setSingleShot(true);
    m_inspectorTimer.setInterval(0);
    connect(&m_inspectorTimer, &QTimer::timeout, this, &MainWindow::updateInspector);
    connect(m_model, &QAbstractItemModel::dataChanged, this,
            [this](const QModelIndex &, const QModelIndex &, const QList<int> &roles) {
                if (roles.isEmpty())
                    m_inspectorTimer.start();
            });
    updateInspector();
    // The actions' icons: the desktop's theme, else our own (ActionIcons); the toolbar keeps its
    // words beside them.
    ActionIcons::applyTo(this);
    m_ui->toolBar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    updateActions();
    if (session)
        setSession(session);
}

MainWindow::~MainWindow()
{
    // "All profiles" goes first, while the window is whole: the listings it still awaits end
    // now, and the refresh() waiting on them (a bulk action's follow-up, which then writes its
    // summary to the status bar) resumes into a window that still has one. Left to ~QWidget,
    // it resumed into a half-destroyed window (a crash in 1 of 6 runs of tst_allprofiles).
    m_destroying = true;
    delete m_all; // still m_all while its destructor ends what awaits it
    m_all = nullptr;
}

void MainWindow::setProfiles(const QList<std::pair<QString, QString>> &profiles, const QString &current)
{
    const QSignalBlocker blocker(m_ui->profileBox);
    // A profile's problem (its icon and tooltip) stays on its entry.
    QHash<QString, std::pair<QIcon, QVariant>> problems;
    for (int i = 0; i < m_ui->profileBox->count(); ++i) {
        problems.insert(m_ui->profileBox->itemData(i).toString(),
                        {m_ui->profileBox->itemIcon(i), m_ui->profileBox->itemData(i, Qt::ToolTipRole)});
    }
    m_ui->profileBox->clear();
    // Every profile in one view, first as "All states" and "All backends" are, where there is
    // more than one.
    if (profiles.size() > 1 || current == AllProfiles::id()) {
        m_ui->profileBox->addItem(tr("All profiles"), AllProfiles::id());
        m_ui->profileBox->setItemData(0, tr("Every profile's workspaces, each profile a group of its own"),
                                      Qt::ToolTipRole);
    }
    for (const auto &[id, name] : profiles) {
        const auto kept = problems.value(id);
        m_ui->profileBox->addItem(kept.first, name, id);
        m_ui->profileBox->setItemData(m_ui->profileBox->count() - 1, kept.second, Qt::ToolTipRole);
    }
    m_ui->profileBox->setCurrentIndex(std::max(0, m_ui->profileBox->findData(current)));
}

void MainWindow::setSession(ProfileSession *session, const QString &profileId, const QString &problem)
{
    const QString profile = session ? session->profileId() : profileId;
    if (showsAllProfiles() && profile != AllProfiles::id()) {
        // One profile again: every other profile's group and rows go.
        m_all->clear();
        m_model->setProfileGroups(false);
        m_actions->setSessionLookup({});
    }
    if (m_session)
        disconnect(m_session, nullptr, this, nullptr);
    // The session and the profile it shows change together, before the previous profile's rows
    // go: removing them moves the current row (the inspector follows it), and a row of the
    // previous profile must never be paired with the new session (sessionOf() checks it too).
    const QString previous = std::exchange(m_profile, profile);
    m_session = session;
    m_logs = session ? session->logs() : nullptr;
    m_actions->setSession(session);
    m_commands->setSession(session);
    if (m_session) {
        // What happens to the profile's workspaces shows in the table: an opened workspace, a
        // closed one, what the sweeper paused, a sandbox lost behind our back.
        connect(m_session, &ProfileSession::event, this, &MainWindow::onEvent);
    }
    m_model->setUnreachable(previous, {});
    if (profile != previous) {
        m_model->removeProfile(previous);
        m_activity->clearCache();
        m_failures.clear();
        m_stale.clear();
        m_windowState->fitNextRows(); // its ids may be longer
    }
    // Its backend's capabilities name its states: a paused workspace of one that stops instead of
    // pausing reads Stopped.
    m_model->setCapabilities(profile, session ? session->capabilities() : Capabilities{});
    nameStates();
    m_live->setSession(session);
    m_metrics->setSession(session, profile);
    updateLogSource();
    updateInspector();
    m_lastRefresh = QDateTime();
    m_unreachable = false;
    newRefreshGeneration();
    {
        const QSignalBlocker blocker(m_ui->profileBox);
        if (const int index = m_ui->profileBox->findData(profile); index >= 0)
            m_ui->profileBox->setCurrentIndex(index);
    }
    updateActions();
    m_sessionProblem = session ? session->problem() : problem;
    setProfileProblem(m_sessionProblem);
    if (!m_sessionProblem.isEmpty())
        statusBar()->showMessage(m_sessionProblem);
    if (m_session)
        refresh();
    tick();
}

void MainWindow::setAllProfiles(const QList<AllProfiles::Entry> &entries)
{
    if (!showsAllProfiles() || !m_model->hasProfileGroups()) {
        // From one profile: its rows go, and every profile's come, each under a group of its own.
        if (m_session)
            disconnect(m_session, nullptr, this, nullptr);
        m_session = nullptr;
        m_logs = nullptr;
        m_actions->setSession(nullptr);
        m_commands->setSession(nullptr);
        m_live->setSession(nullptr);
        m_model->setUnreachable(m_profile, {});
        m_model->removeProfile(m_profile);
        m_activity->clearCache();
        m_failures.clear();
        m_stale.clear();
        m_fitAllRows = true; // once the first listings are in (the groups come first)
        m_profile = AllProfiles::id();
        newRefreshGeneration();
        m_model->setProfileGroups(true);
        m_actions->setSessionLookup([this](const QString &id) { return m_all ? m_all->session(id) : nullptr; });
        m_lastRefresh = QDateTime();
        m_unreachable = false;
        m_sessionProblem.clear();
        setProfileProblem({});
    }
    m_all->setRefreshInterval(m_refreshInterval);
    m_all->setEntries(entries);
    m_all->setActive(isVisible() && !isMinimized());
    QList<std::pair<QString, Paddock::ProfileSession *>> sessions;
    for (const AllProfiles::Entry &entry : entries)
        sessions.append({entry.profileId, m_all->session(entry.profileId)});
    m_metrics->setSessions(sessions);
    {
        const QSignalBlocker blocker(m_ui->profileBox);
        if (const int index = m_ui->profileBox->findData(AllProfiles::id()); index >= 0)
            m_ui->profileBox->setCurrentIndex(index);
    }
    nameStates();
    updateLogSource(nullptr);
    updateInspector();
    updateActions();
    refresh();
    tick();
}

ProfileSession *MainWindow::sessionOf(const QString &profileId) const
{
    ProfileSession *session = showsAllProfiles() ? (m_all ? m_all->session(profileId) : nullptr)
                                                 : (profileId == m_profile ? m_session.data() : nullptr);
    // Only the session of that very profile: a row of another profile (one being taken away
    // while the window switches) gets none, so nothing of it is ever asked of another server.
    return session && session->profileId() == profileId ? session : nullptr;
}

void MainWindow::forgetSession(ProfileSession *session)
{
    if (m_all) // null once the window is being destroyed (~MainWindow)
        m_all->forget(session);
    if (showsAllProfiles())
        updateActions();
}

QString MainWindow::currentProfile() const
{
    QModelIndex index = m_proxy->mapToSource(m_ui->workspaceView->currentIndex());
    if (const WorkspaceRecord *record = m_model->record(index))
        return record->profile;
    // A group row: its profile's group is the top one.
    while (index.parent().isValid())
        index = index.parent();
    return index.isValid()
            && index.data(WorkspaceTreeModel::KindRole).value<WorkspaceTreeModel::Kind>()
                == WorkspaceTreeModel::Kind::Profile
        ? index.data(WorkspaceTreeModel::ProfileRole).toString()
        : m_profile;
}

void MainWindow::onEvent(const WorkspaceEvent &event)
{
    using Kind = WorkspaceEvent::Kind;
    switch (event.kind) {
    case Kind::Opening:
        return; // nothing known yet
    case Kind::Opened:
    case Kind::OpenFailed:
    case Kind::Closed:
    case Kind::Lost:
        // What the console knows of that workspace changed (its idle deadline, a failed
        // bootstrap): its row is decorated again by the refresh. (A refresh asked for while one
        // runs makes that one run once more.)
        refreshFor({event.workspaceId});
        return;
    case Kind::Paused:
    case Kind::Resumed:
    case Kind::Renewed:
    case Kind::Killed:
    case Kind::ActionFailed:
        // The bulk job's end refreshes once; these are marked for it.
        if (!event.workspaceId.isEmpty())
            m_stale.insert(event.workspaceId);
        return;
    }
}

void MainWindow::setEvents(ConsoleEvents *events, EventHistory *history)
{
    if (events)
        events->watch(m_model);
    m_eventDock->setSource(events, history);
}

bool MainWindow::selectWorkspace(const QString &profileId, const QString &sandboxId, const QString &workspaceId)
{
    QModelIndex index;
    if (!sandboxId.isEmpty())
        index = m_model->indexOfKey(profileId + u'\x1f' + sandboxId);
    if (!index.isValid() && !workspaceId.isEmpty()) {
        if (const WorkspaceRecord *record = m_model->recordOfWorkspace(profileId, workspaceId))
            index = m_model->indexOfKey(record->key());
    }
    const QModelIndex shown = m_proxy->mapFromSource(index);
    if (!shown.isValid()) {
        statusBar()->showMessage(index.isValid() ? tr("The workspace %1 is hidden by the filter.").arg(workspaceId)
                                                 : tr("The workspace %1 is not listed.").arg(workspaceId));
        return false;
    }
    QTreeView *view = m_ui->workspaceView;
    view->selectionModel()->setCurrentIndex(shown, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    view->scrollTo(shown);
    view->setFocus(Qt::OtherFocusReason);
    return true;
}

void MainWindow::setLanguageChoice(const QString &code)
{
    for (QAction *action : m_languages->actions()) {
        if (action->data().toString() == code)
            action->setChecked(true);
    }
}

void MainWindow::retranslate()
{
    m_ui->retranslateUi(this);
    m_freshness->setAccessibleName(tr("Last refresh"));
    m_languages->actions().constFirst()->setText(tr("System language"));
    m_ui->stateFilterBox->setItemText(0, tr("All states"));
    nameStates();
    m_ui->backendFilterBox->setItemText(0, tr("All backends"));
    for (int i = 1; i < m_ui->backendFilterBox->count(); ++i) {
        if (const BackendFactory *factory =
                BackendRegistry::instance().find(m_ui->backendFilterBox->itemData(i).toString()))
            m_ui->backendFilterBox->setItemText(i, factory->displayName());
    }
    for (int i = 0; i < m_ui->refreshIntervalBox->count(); ++i) {
        const int seconds = m_ui->refreshIntervalBox->itemData(i).toInt();
        m_ui->refreshIntervalBox->setItemText(i, seconds == 0 ? tr("Off") : tr("%n second(s)", nullptr, seconds));
    }
    m_model->retranslate();
    updateActions(); // the forms' texts came back: Pause may be called Stop here
    tick();
}

void MainWindow::nameStates()
{
    const Capabilities capabilities = m_model->capabilities(m_profile);
    for (int i = 1; i < m_ui->stateFilterBox->count(); ++i) {
        m_ui->stateFilterBox->setItemText(
            i,
            WorkspaceTreeModel::stateText(SandboxState(m_ui->stateFilterBox->itemData(i).toInt()), {}, capabilities));
    }
}

LogViewer *MainWindow::showLog(const WorkspaceRecord &record, bool container)
{
    // The log is the row's profile's, read through its session: none for a row of a profile no
    // longer shown. In "All profiles" the source is the row's (a tab keeps the one it opened with).
    ProfileSession *session = sessionOf(record.profile);
    if (!session)
        return nullptr;
    if (showsAllProfiles())
        updateLogSource(session);
    return container ? m_logDock->showContainerLog(record) : m_logDock->showBootstrapLog(record);
}

void MainWindow::showSelectedLog(bool container)
{
    if (const WorkspaceRecord *chosen = chosenRecord({}))
        showLog(*chosen, container);
}

void MainWindow::updateLogSource()
{
    updateLogSource(m_session);
}

void MainWindow::updateLogSource(ProfileSession *session)
{
    // A tab open keeps the source it was opened with.
    m_logDock->setSource(session ? session->logs() : nullptr,
                         session ? session->containerLogSource() : ContainerLogSource{},
                         session ? session->instanceKey() : QString());
}

void MainWindow::updateInspector()
{
    if (!m_session && !showsAllProfiles()) {
        m_inspector->clearWorkspace(InspectorDock::Empty::NoProfile);
        return;
    }
    const QModelIndex current = m_proxy->mapToSource(m_ui->workspaceView->currentIndex());
    const WorkspaceRecord *record = m_model->record(current);
    // Through the row's own profile's session (in "All profiles", one of several).
    ProfileSession *session = record ? sessionOf(record->profile) : nullptr;
    if (!record || !session) {
        m_inspector->clearWorkspace(current.isValid() ? InspectorDock::Empty::Group
                                                      : InspectorDock::Empty::NoSelection);
        return;
    }
    m_inspector->setWorkspace(session, record->info);
}

void MainWindow::setRefreshInterval(std::chrono::seconds interval)
{
    m_refreshInterval = interval;
    if (m_all)
        m_all->setRefreshInterval(interval);
    const int index = m_ui->refreshIntervalBox->findData(int(interval.count()));
    if (index >= 0 && index != m_ui->refreshIntervalBox->currentIndex())
        m_ui->refreshIntervalBox->setCurrentIndex(index);
    if (interval.count() > 0)
        m_refreshTimer.setInterval(interval);
    updateTimers();
    tick();
}

void MainWindow::updateTimers()
{
    // Nothing is polled while nobody can see it.
    const bool visible = isVisible() && !isMinimized();
    if (visible && m_refreshInterval.count() > 0)
        m_refreshTimer.start();
    else
        m_refreshTimer.stop();
    if (visible)
        m_tickTimer.start();
    else
        m_tickTimer.stop();
    // Watched only while seen, as the refreshes.
    m_live->setActive(visible);
    if (m_all)
        m_all->setActive(visible && showsAllProfiles());
    m_metrics->setActive(visible);
}

bool MainWindow::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_ui->workspaceView && event->type() == QEvent::KeyPress) {
        const auto *key = static_cast<QKeyEvent *>(event);
        if (key->key() == Qt::Key_Space && key->modifiers() == Qt::NoModifier) {
            QTreeView *view = m_ui->workspaceView;
            const QModelIndex current = view->currentIndex();
            if (current.isValid()) {
                QItemSelectionModel *selection = view->selectionModel();
                selection->select(current, QItemSelectionModel::Toggle | QItemSelectionModel::Rows);
                // Commit the toggle: Qt 6.4's isRowSelected() (and so selectedRows()) ignores the
                // parent while a toggle is pending, and would also drop the same row number under
                // other groups.
                selection->select(selection->selection(), QItemSelectionModel::ClearAndSelect);
                if (const QModelIndex below = view->indexBelow(current); below.isValid())
                    view->selectionModel()->setCurrentIndex(below, QItemSelectionModel::NoUpdate);
            }
            return true; // not a keyboard search for " "
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::showEvent(QShowEvent *event)
{
    QMainWindow::showEvent(event);
    updateTimers();
    // Back in view after a while: the listing may be old.
    if (m_refreshInterval.count() > 0 && m_lastRefresh.isValid()
        && m_lastRefresh.secsTo(QDateTime::currentDateTimeUtc()) >= m_refreshInterval.count())
        refresh();
}

void MainWindow::hideEvent(QHideEvent *event)
{
    QMainWindow::hideEvent(event);
    updateTimers();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    // Closing hides it in the tray, where the user chose that; Quit still quits.
    if (!m_quitChosen && !m_quitConfirmed && m_closeHides && m_closeHides()) {
        event->ignore();
        hide();
        return;
    }
    if (m_quitGuard && !m_quitConfirmed) {
        event->ignore();
        Q_EMIT quitRequested();
        return;
    }
    QMainWindow::closeEvent(event);
}

void MainWindow::addQuitMenu(QMenu *menu)
{
    m_ui->menuFile->insertMenu(m_ui->actionQuit, menu);
}

void MainWindow::addAppearanceMenu(QMenu *menu)
{
    // Before the tray's entries, if they are there already (null: at the end).
    m_ui->menuView->insertMenu(m_viewExtras, menu);
}

void MainWindow::addViewActions(const QList<QAction *> &actions)
{
    m_viewExtras = m_ui->menuView->addSeparator();
    m_ui->menuView->addActions(actions);
}

void MainWindow::requestQuit()
{
    m_quitChosen = true;
    close();
    m_quitChosen = false;
}

void MainWindow::selectWorkspaces(const QString &profileId, const QStringList &workspaceIds)
{
    m_pendingSelection = {profileId, workspaceIds};
    applyPendingSelection();
}

void MainWindow::applyPendingSelection()
{
    const auto &[profile, ids] = m_pendingSelection;
    if (ids.isEmpty() || !sessionOf(profile))
        return;
    QItemSelection selection;
    QModelIndex first;
    for (const QString &id : ids) {
        const WorkspaceRecord *record = m_model->recordOfWorkspace(profile, id);
        const QModelIndex index = record ? m_proxy->mapFromSource(m_model->indexOfKey(record->key())) : QModelIndex();
        if (!index.isValid())
            continue;
        selection.select(index, index);
        if (!first.isValid())
            first = index;
    }
    if (!first.isValid())
        return; // not listed yet: the next refresh
    m_pendingSelection = {};
    QItemSelectionModel *model = m_ui->workspaceView->selectionModel();
    model->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    model->setCurrentIndex(first, QItemSelectionModel::NoUpdate);
    m_ui->workspaceView->scrollTo(first);
}

void MainWindow::changeEvent(QEvent *event)
{
    QMainWindow::changeEvent(event);
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    if (event->type() == QEvent::WindowStateChange)
        updateTimers();
}

void MainWindow::newRefreshGeneration()
{
    ++m_refreshGeneration;
    m_refreshing = false;
    m_refreshAgain = false;
}

void MainWindow::refreshFor(const QStringList &workspaceIds)
{
    for (const QString &id : workspaceIds)
        m_stale.insert(id);
    refresh();
}

QCoro::Task<void> MainWindow::refresh()
{
    if (m_destroying)
        co_return;
    if (showsAllProfiles()) {
        // Every profile at once, each applied as it comes (AllProfiles::refreshed ends it).
        co_await m_all->refresh();
        co_return;
    }
    if (m_refreshing) {
        m_refreshAgain = true;
        co_return;
    }
    if (!m_session)
        co_return;
    m_refreshing = true;
    // The window may be closed while the listing runs: nothing of it is touched after that. The
    // user may also switch profiles meanwhile: an answer for another profile is dropped, and
    // the other profile's own listing is not held up by this one (m_refreshGeneration).
    const quint64 generation = m_refreshGeneration;
    const QPointer<MainWindow> self(this);
    const QString profile = m_profile;
    const QPointer<ProfileSession> session = m_session;
    const ListFilter everything;
    // Which workspaces' last bootstrap failed (kept next to their logs), read on a worker while
    // the listing runs.
    QFuture<QHash<QString, BootstrapLogStore::Failure>> failing;
    if (m_logs) {
        const QString folder = m_logs->folder(m_session->instanceKey());
        failing = QtConcurrent::run(&BootstrapLogStore::readFailures, folder);
    }
    // What a watch reports while the listing runs is newer than it may be: applied again after it.
    m_live->listingStarted();
    auto listed = co_await session->list(everything);
    if (!self || generation != m_refreshGeneration)
        co_return;
    QHash<QString, BootstrapLogStore::Failure> failures;
    if (failing.isValid()) {
        failures = co_await failing;
        if (!self || generation != m_refreshGeneration)
            co_return;
    }
    m_refreshing = false;
    Q_ASSERT(profile == m_profile && session == m_session);
    if (!listed) {
        // The listing's error, after what was wrong when the profile was opened (no keychain, so
        // no key: that is why the server says 401).
        setProfileProblem(m_sessionProblem.isEmpty() ? listed.error().message
                                                     : m_sessionProblem + u'\n' + listed.error().message);
        statusBar()->showMessage(tr("Cannot list the workspaces of %1: %2").arg(profileName(), listed.error().message));
        m_ui->workspaceView->setEmptyHint(false); // an empty list here says nothing of the server
        // What is shown is what was last seen, and says so.
        m_unreachable = true;
        m_cannotReach = listed.error().kind == Error::Kind::Unreachable || listed.error().kind == Error::Kind::Timeout;
        if (m_lastRefresh.isValid())
            m_model->setUnreachable(m_profile, m_lastRefresh);
        m_refreshAgain = false;
        m_live->listingDone();
        tick();
        Q_EMIT refreshed(false);
        co_return;
    }
    if (std::exchange(m_unreachable, false))
        m_model->setUnreachable(m_profile, {});
    // What only the console knows joins each row: the manager's idle deadline for the workspaces
    // it holds, and the newest activity the tracker has seen.
    const QDateTime now = QDateTime::currentDateTimeUtc();
    // A bootstrap failure that came or went since the last listing (kept next to the logs, by
    // whoever opened the workspace) changes what its row says: decorated again, as are the rows
    // whose workspaces the manager opened, closed or lost (refreshFor).
    for (auto it = failures.cbegin(); it != failures.cend(); ++it) {
        if (m_failures.value(it.key()) != *it)
            m_stale.insert(it.key());
    }
    for (auto it = m_failures.cbegin(); it != m_failures.cend(); ++it) {
        if (!failures.contains(it.key()))
            m_stale.insert(it.key());
    }
    m_failures = failures;
    m_model->markStale(m_profile, std::exchange(m_stale, {}));
    // The rows that are new or changed (or marked) get what only the console knows; the others
    // keep theirs (a lookup per row, no allocation, for 10,000 rows).
    bool settling = false;
    const WorkspaceTreeModel::Decorate decorate = decorator(now);
    // Whether some row is between states, from the listing itself (every row, cheaply).
    for (const SandboxInfo &info : std::as_const(*listed)) {
        switch (info.state) {
        case SandboxState::Pending:
        case SandboxState::Pausing:
        case SandboxState::Resuming:
        case SandboxState::Stopping:
            settling = true;
            break;
        default:
            break;
        }
    }
    // The listing moves into the model row by row; no second list of records is made.
    m_model->update(m_profile, std::move(*listed), decorate);
    m_live->listingDone();
    m_lastRefresh = now;
    setProfileProblem({});
    statusBar()->clearMessage(); // the count shows (WorkspaceCountLabel), and no older error
    m_ui->workspaceView->setEmptyHint(true); // none listed: the view says how to open one
    tick();
    m_visibleTimer.start();
    // A pause on OpenSandbox is asynchronous: the row shows "Pausing" and is looked at again
    // every second until it settles (however long the chosen interval is), unless a watch
    // reports each change as it happens.
    if (settling && isVisible() && !m_live->isLive())
        m_settleTimer.start();
    applyPendingSelection(); // a notification's workspaces, now listed
    if (m_refreshAgain) {
        m_refreshAgain = false;
        refresh();
    }
    Q_EMIT refreshed(true);
}

WorkspaceTreeModel::Decorate MainWindow::decorator(const QDateTime &now)
{
    // What only the console knows joins each row: the manager's idle deadline for the workspaces
    // it holds, the agents seen sharing it, the newest activity the tracker has seen, and a
    // bootstrap failure as the last refresh read them.
    const bool perUser = m_session && m_session->isolation() == IsolationPolicy::PerUser;
    return [this, now, perUser](const QString &profile, const SandboxInfo &info,
                                WorkspaceTreeModel::Decoration &decoration) {
        decoration.bootstrapFailure = BootstrapLogStore::failureOf(m_failures, info.workspaceId, info.createdAt);
        decoration.idleDeadline.reset();
        if (m_session && m_session->profileId() == profile) {
            if (const auto remaining = m_session->idleRemaining(info.workspaceId))
                decoration.idleDeadline = now.addMSecs(remaining->count());
        }
        // PER_USER: the agent level names every agent known to share the workspace.
        decoration.agents.clear();
        if (perUser) {
            const auto seen = m_agentsSeen.constFind(profile + u'\x1f' + info.workspaceId);
            if (seen != m_agentsSeen.cend()) {
                decoration.agents = QStringList{info.agentId};
                for (const QString &agent : *seen) {
                    if (!decoration.agents.contains(agent))
                        decoration.agents.append(agent);
                }
            }
        }
        if (const QDateTime seen = m_activity->lastActivity(profile + u'\x1f' + info.sandboxId);
            seen.isValid() && (!decoration.lastActivityAt.isValid() || seen > decoration.lastActivityAt))
            decoration.lastActivityAt = seen;
    };
}

void MainWindow::requestVisibleActivity()
{
    if ((!m_session && !showsAllProfiles()) || !isVisible())
        return;
    QTreeView *view = m_ui->workspaceView;
    QHash<QString, QList<ActivityTracker::Target>> targets; // by profile
    const int bottom = view->viewport()->height();
    for (QModelIndex index = view->indexAt(QPoint(0, 0)); index.isValid(); index = view->indexBelow(index)) {
        if (view->visualRect(index).top() > bottom)
            break;
        const WorkspaceRecord *record = m_model->record(m_proxy->mapToSource(index));
        if (record && record->info.state == SandboxState::Running && sessionOf(record->profile))
            targets[record->profile].append({record->key(), record->info.sandboxId});
    }
    for (auto it = targets.cbegin(); it != targets.cend(); ++it)
        m_activity->request(sessionOf(it.key()), *it);
}

void MainWindow::setProfileProblem(const QString &problem)
{
    // In place: a warning next to the switcher (the whole text in its tooltip), and the same
    // warning on the profile's entry in the switcher, so that it is seen from the other profiles.
    QLabel *label = m_ui->profileProblemLabel;
    const QIcon warning = style()->standardIcon(QStyle::SP_MessageBoxWarning);
    if (problem.isEmpty()) {
        label->clear();
        label->setToolTip({});
        label->setVisible(false);
    } else {
        label->setText(QStringLiteral("<span style=\"color:%2\">⚠ %1</span>")
                           .arg(label->fontMetrics().elidedText(problem, Qt::ElideRight, 420).toHtmlEscaped(),
                                Tones::css(Tones::warning())));
        label->setToolTip(problem);
        label->setAccessibleDescription(problem);
        label->setVisible(true);
    }
    if (const int index = m_ui->profileBox->findData(m_profile); index >= 0) {
        m_ui->profileBox->setItemIcon(index, problem.isEmpty() ? QIcon() : warning);
        m_ui->profileBox->setItemData(index, problem.isEmpty() ? QVariant() : QVariant(problem), Qt::ToolTipRole);
    }
}

QString MainWindow::profileProblem() const
{
    return m_ui->profileProblemLabel->toolTip();
}

QString MainWindow::profileName() const
{
    const int index = m_ui->profileBox->findData(m_profile);
    return index >= 0 ? m_ui->profileBox->itemText(index) : m_profile;
}

QString MainWindow::freshnessText() const
{
    if (showsAllProfiles())
        return m_all->summaryText(); // each profile's own on its group
    if (!m_lastRefresh.isValid()) {
        if (!m_unreachable)
            return tr("not loaded yet");
        return m_cannotReach ? tr("cannot reach the server") : tr("the listing failed");
    }
    if (m_unreachable) {
        const QString when = QLocale().toString(m_lastRefresh.toLocalTime(), QLocale::ShortFormat);
        return m_cannotReach ? tr("cannot reach the server; showing the list of %1 (stale)").arg(when)
                             : tr("the last listing failed; showing the list of %1 (stale)").arg(when);
    }
    const qint64 seconds = std::max<qint64>(0, m_lastRefresh.secsTo(QDateTime::currentDateTimeUtc()));
    const QString ago = seconds < 60 ? tr("updated %n second(s) ago", nullptr, int(seconds))
                                     : tr("updated %1 ago").arg(WorkspaceTreeModel::formatCountdown(seconds));
    return isStale() ? tr("%1 (stale)").arg(ago) : ago;
}

bool MainWindow::isStale() const
{
    if (showsAllProfiles())
        return m_all->anyWarning();
    if (m_unreachable)
        return true;
    if (!m_lastRefresh.isValid())
        return false;
    const qint64 seconds = m_lastRefresh.secsTo(QDateTime::currentDateTimeUtc());
    // Two intervals without a good listing; with refresh off, after five minutes.
    const qint64 limit = m_refreshInterval.count() > 0 ? 2 * m_refreshInterval.count() + 1 : 300;
    return seconds > limit;
}

void MainWindow::tick()
{
    m_model->tick();
    if (showsAllProfiles())
        m_all->tick(); // each profile's freshness, on its group

    m_freshness->setText(freshnessText());
    // A stale listing is a warning, in colour and in words (the text says "stale" too).
    m_freshness->setStyleSheet(
        isStale() ? QStringLiteral("color: %1; font-weight: bold;").arg(Tones::css(Tones::warning())) : QString());
}

void MainWindow::expandGroups(const QModelIndex &parent, int first, int last)
{
    for (int row = first; row <= last; ++row) {
        const QModelIndex index = m_proxy->index(row, 0, parent);
        if (index.data(WorkspaceTreeModel::KindRole).value<WorkspaceTreeModel::Kind>()
            == WorkspaceTreeModel::Kind::Workspace)
            continue;
        m_ui->workspaceView->expand(index);
        if (const int children = m_proxy->rowCount(index); children > 0)
            expandGroups(index, 0, children - 1);
    }
}

QList<const WorkspaceRecord *> MainWindow::selectedRecords() const
{
    QList<const WorkspaceRecord *> records;
    QSet<QString> seen;
    // The ranges themselves, not selectedRows(): Qt 6.4's selectedRows() checks every row against
    // every range, quadratic in a selection of 1,000 separate rows.
    QModelIndexList rows;
    for (const QItemSelectionRange &range : m_ui->workspaceView->selectionModel()->selection()) {
        for (int row = range.top(); row <= range.bottom(); ++row)
            rows.append(range.model()->index(row, 0, range.parent()));
    }
    for (const QModelIndex &row : std::as_const(rows)) {
        // A group row stands for every workspace under it.
        for (const WorkspaceRecord *record : m_model->recordsUnder(m_proxy->mapToSource(row))) {
            if (!seen.contains(record->key())) {
                seen.insert(record->key());
                records.append(record);
            }
        }
    }
    return records;
}

void MainWindow::setReadOnly(bool readOnly)
{
    m_readOnly = readOnly;
    m_ui->readOnlyBadge->setVisible(readOnly);
    for (QAction *action : {m_ui->actionOpen, m_ui->actionClose, m_ui->actionPause, m_ui->actionResume,
                            m_ui->actionRenew, m_ui->actionKill, m_ui->actionPauseIdle, m_ui->actionRetryBootstrap})
        action->setVisible(!readOnly);
    m_commands->setReadOnly(readOnly);
    updateActions();
}

void MainWindow::updateActions()
{
    if (m_actions->isBusy()) {
        // Nothing is offered while a bulk action runs; the selection is looked at when it ends.
        for (QAction *action :
             {m_ui->actionClose, m_ui->actionPause, m_ui->actionResume, m_ui->actionRenew, m_ui->actionKill})
            action->setEnabled(false);
        return;
    }
    // Offer an action only when it fits some selected workspace, and none while one runs.
    const auto records = selectedRecords();
    WorkspaceActionController::namePauseAction(m_ui->actionPause, m_actions->stopsInsteadOfPausing(records));
    // The idle ones of the profile shown: stopped where its workspaces stop instead of pausing.
    const bool idleStop = m_session && m_session->can(Capability::StopInsteadOfPause);
    m_ui->actionPauseIdle->setText(idleStop ? tr("Stop i&dle…") : tr("Pause i&dle…"));
    m_ui->actionPauseIdle->setToolTip(
        idleStop ? tr("Stop the running workspaces idle longer than a time you choose (asks first)")
                 : tr("Pause the running workspaces idle longer than a time you choose (asks first)"));
    const auto any = [this, &records](WorkspaceAction action) {
        return std::any_of(records.cbegin(), records.cend(),
                           [this, action](const WorkspaceRecord *record) { return m_actions->fits(action, *record); });
    };
    // In "All profiles" each row's own profile's session: the chosen row's for its logs and
    // commands, the current row's (or group's) for Open.
    const WorkspaceRecord *chosen = chosenRecord({});
    ProfileSession *rowSession =
        showsAllProfiles() ? (chosen ? sessionOf(chosen->profile) : nullptr) : m_session.data();
    if (showsAllProfiles()) {
        m_commands->setSession(rowSession);
        m_commands->setReadOnly(m_readOnly || (rowSession && rowSession->profile().readOnly));
    }
    m_ui->actionOpen->setEnabled(!openTargets().isEmpty());
    m_ui->actionShowLog->setEnabled(rowSession && rowSession->logs() && !records.isEmpty());
    m_ui->actionCopyId->setEnabled(!records.isEmpty());
    m_ui->actionRetryBootstrap->setEnabled(
        std::any_of(records.cbegin(), records.cend(), [this](const WorkspaceRecord *record) {
            return !record->bootstrapFailure.isEmpty() && canOpenInto(record->profile);
        }));
    m_ui->actionShowContainerLog->setEnabled(rowSession && rowSession->logs() && !records.isEmpty()
                                             && rowSession->can(Capability::ContainerLog));
    m_ui->actionClose->setEnabled(!m_readOnly && any(WorkspaceAction::Close));
    m_ui->actionPause->setEnabled(!m_readOnly && any(WorkspaceAction::Pause));
    m_ui->actionResume->setEnabled(!m_readOnly && any(WorkspaceAction::Resume));
    const bool renewable = !m_readOnly && any(WorkspaceAction::Renew);
    m_ui->actionRenew->setEnabled(renewable);
    // Greyed out because every workspace chosen is paused with its timer stopped (E2B): say why
    // where the user looks, and what to do instead.
    const bool timersStopped = !renewable && !records.isEmpty()
        && std::all_of(records.cbegin(), records.cend(), [](const WorkspaceRecord *record) {
               return !record->info.expiresAt && record->info.pausedAt.isValid();
           });
    m_ui->actionRenew->setToolTip(
        timersStopped ? tr("Nothing to renew: paused with the timer stopped. Resume starts the timer again.")
                      : QCoreApplication::translate("MainWindow",
                                                    "Move the expiry of the selected workspaces (shows "
                                                    "old and new expiry first)"));
    m_ui->actionKill->setEnabled(!m_readOnly && any(WorkspaceAction::Kill));
    m_commands->update(chosen);
}

void MainWindow::openWorkspace()
{
    OpenDialog::Request prefill;
    // Prefilled from the current row: its user and agent (the policy's id for them is what opens),
    // and its id in the id field, which counts only if the user chooses it; from a group row, its
    // user (and agent).
    const QModelIndex current = m_proxy->mapToSource(m_ui->workspaceView->currentIndex());
    if (const WorkspaceRecord *record = m_model->record(current)) {
        prefill.userId = record->info.userId;
        prefill.agentId = record->info.agentId;
        prefill.workspaceId = record->info.workspaceId;
    } else if (current.isValid()) {
        const QModelIndex user = current.parent().isValid() ? current.parent() : current;
        prefill.userId =
            user.siblingAtColumn(WorkspaceTreeModel::WorkspaceColumn).data(WorkspaceTreeModel::SortRole).toString();
        if (current.parent().isValid())
            prefill.agentId = current.siblingAtColumn(WorkspaceTreeModel::WorkspaceColumn)
                                  .data(WorkspaceTreeModel::SortRole)
                                  .toString();
    }
    const QStringList targets = openTargets();
    if (targets.size() <= 1) {
        if (!targets.isEmpty())
            openDialog(prefill, targets.constFirst());
        return;
    }
    // "All profiles" with no row chosen: into which profile, asked first.
    QStringList names;
    for (const QString &profile : targets) {
        ProfileSession *session = sessionOf(profile);
        names.append(session ? session->profile().displayName() : profile);
    }
    auto *ask = new QInputDialog(this);
    ask->setObjectName(QStringLiteral("openProfileDialog"));
    ask->setAttribute(Qt::WA_DeleteOnClose);
    ask->setWindowTitle(tr("Open a workspace"));
    ask->setLabelText(tr("Open it in which profile?"));
    ask->setComboBoxItems(names);
    ask->setComboBoxEditable(false);
    ask->setTextValue(names.constFirst()); // else the box shows none chosen
    connect(ask, &QInputDialog::accepted, this, [this, ask, targets, prefill] {
        // By position: two profiles may have the same name.
        const auto *box = ask->findChild<QComboBox *>();
        const int index = box ? box->currentIndex() : -1;
        if (index >= 0 && index < targets.size() && canOpenInto(targets.at(index)))
            openDialog(prefill, targets.at(index));
    });
    ask->open();
}

bool MainWindow::canOpenInto(const QString &profile) const
{
    ProfileSession *session = sessionOf(profile);
    return !m_readOnly && session && session->canOpen() && !(showsAllProfiles() && session->profile().readOnly);
}

QStringList MainWindow::openTargets() const
{
    if (!showsAllProfiles())
        return canOpenInto(m_profile) ? QStringList{m_profile} : QStringList{};
    const QString current = currentProfile();
    if (current != AllProfiles::id())
        return canOpenInto(current) ? QStringList{current} : QStringList{};
    QStringList targets;
    if (m_all) {
        for (const QString &profile : m_all->profiles()) {
            if (canOpenInto(profile))
                targets.append(profile);
        }
    }
    return targets;
}

const WorkspaceRecord *MainWindow::chosenRecord(const std::function<bool(const WorkspaceRecord &)> &fits) const
{
    // The current row if it is selected and fits, else the first selected one that fits.
    const QString currentKey = m_ui->workspaceView->currentIndex().data(WorkspaceTreeModel::KeyRole).toString();
    const WorkspaceRecord *chosen = nullptr;
    for (const WorkspaceRecord *record : selectedRecords()) {
        if (fits && !fits(*record))
            continue;
        if (!chosen || record->key() == currentKey)
            chosen = record;
    }
    return chosen;
}

void MainWindow::copyIds()
{
    QStringList ids;
    for (const WorkspaceRecord *record : selectedRecords())
        ids.append(record->info.workspaceId.isEmpty() ? record->info.sandboxId : record->info.workspaceId);
    if (ids.isEmpty())
        return;
    QApplication::clipboard()->setText(ids.join(u'\n'));
    statusBar()->showMessage(tr("Copied %n workspace id(s)", nullptr, int(ids.size())));
}

void MainWindow::retryBootstrap()
{
    const WorkspaceRecord *record = chosenRecord([this](const WorkspaceRecord &candidate) {
        return !candidate.bootstrapFailure.isEmpty() && canOpenInto(candidate.profile);
    });
    if (!record)
        return;
    // That very workspace, by its id: opening it runs its bootstrap again (its marker is missing).
    OpenDialog::Request request;
    request.userId = record->info.userId;
    request.agentId = record->info.agentId;
    request.workspaceId = record->info.workspaceId;
    request.byId = true;
    // Into its own profile (in "All profiles" the current row may be another profile's).
    if (OpenDialog *dialog = openDialog(request, record->profile))
        dialog->start();
}

void MainWindow::switchFocus()
{
    // F6: from the list to the log shown, and back.
    QWidget *focus = QApplication::focusWidget();
    const bool inLogs = focus && m_logDock->isAncestorOf(focus);
    if (!inLogs && m_logDock->focusLog())
        return;
    m_ui->workspaceView->setFocus(Qt::ShortcutFocusReason);
}

void MainWindow::showAbout()
{
    auto *box = new QMessageBox(QMessageBox::NoIcon, tr("About Paddock"),
                                tr("<h3>Paddock %1</h3><p>A console for the workspaces AI agents work in: local "
                                   "folders, OpenSandbox sandboxes and Docker containers, kept as AgentScope keeps "
                                   "them.</p><p>Built with Qt %2; running on Qt %3.</p>")
                                    .arg(QCoreApplication::applicationVersion().toHtmlEscaped(),
                                         QStringLiteral(QT_VERSION_STR), QString::fromLatin1(qVersion())),
                                QMessageBox::Close, this);
    box->setObjectName(QStringLiteral("aboutBox"));
    box->setIconPixmap(windowIcon().pixmap(64, 64));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::setSettings(QSettings *settings)
{
    m_windowState->restore(settings);
    m_commands->setSettings(settings);
    m_savedFilters->setSettings(settings);
}

OpenDialog *MainWindow::openDialog(const OpenDialog::Request &prefill, const QString &profile)
{
    if (!canOpenInto(profile))
        return nullptr;
    ProfileSession *session = sessionOf(profile);
    auto *dialog = new OpenDialog(session, prefill, this);
    dialog->setObjectName(QStringLiteral("openDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    // Whether the id it would open is in the list, and whose it is.
    dialog->setLookup([this, profile](const QString &workspaceId) -> std::optional<OpenDialog::Existing> {
        const WorkspaceRecord *record = m_model->recordOfWorkspace(profile, workspaceId);
        if (!record)
            return std::nullopt;
        return OpenDialog::Existing{record->info.userId, record->info.agentId, m_model->stateText(*record)};
    });
    connect(m_model, &QAbstractItemModel::rowsInserted, dialog, &OpenDialog::lookupChanged);
    connect(m_model, &QAbstractItemModel::rowsRemoved, dialog, &OpenDialog::lookupChanged);
    connect(m_model, &QAbstractItemModel::dataChanged, dialog, &OpenDialog::lookupChanged);
    connect(m_model, &QAbstractItemModel::modelReset, dialog, &OpenDialog::lookupChanged);
    connect(dialog, &OpenDialog::opened, this,
            [this, profile](const QString &workspaceId, const QString &, const QString &agentId) {
                // Opening is the console's own access to the workspace.
                ProfileSession *opened = sessionOf(profile);
                if (!opened)
                    return;
                QStringList &agents = m_agentsSeen[profile + u'\x1f' + workspaceId];
                if (!agentId.isEmpty() && !agents.contains(agentId))
                    agents.append(agentId);
                if (const auto workspace = std::dynamic_pointer_cast<SandboxWorkspace>(opened->cached(workspaceId))) {
                    m_activity->noteAccess(profile + u'\x1f' + workspace->sandbox().sandboxId);
                }
                // Its idle deadline moved, its agents may have.
                if (showsAllProfiles())
                    m_all->refreshFor(profile, {workspaceId});
                else
                    refreshFor({workspaceId});
            });
    dialog->open();
    return dialog;
}

QCoro::Task<void> MainWindow::selectIdle(bool thenPause)
{
    QPointer<QInputDialog> dialog = new QInputDialog(this);
    dialog->setObjectName(QStringLiteral("idleDialog"));
    dialog->setWindowTitle(thenPause ? tr("Pause idle workspaces") : tr("Select idle workspaces"));
    dialog->setInputMode(QInputDialog::IntInput);
    dialog->setLabelText(tr("Running workspaces idle longer than this many minutes:"));
    dialog->setIntRange(1, 7 * 24 * 60);
    dialog->setIntValue(m_idleMinutes);
    dialog->open();
    const QPointer<MainWindow> self(this);
    const int answer = co_await untilFinished(dialog.data()); // Rejected if the window took it along
    if (!self || !dialog)
        co_return;
    const int minutes = dialog->intValue();
    dialog->deleteLater();
    if (answer != QDialog::Accepted)
        co_return;
    m_idleMinutes = minutes;

    // Every running workspace's sessions/ activity is read first (what is cached is not read
    // again), so that an agent busy in its sessions/ folder is not taken for idle.
    {
        // Of every profile shown ("All profiles": each through its own session).
        QHash<QString, QList<ActivityTracker::Target>> running;
        int runningCount = 0;
        for (const WorkspaceRecord *record : m_model->recordsUnder({})) {
            if (record->info.state == SandboxState::Running && sessionOf(record->profile)) {
                running[record->profile].append({record->key(), record->info.sandboxId});
                ++runningCount;
            }
        }
        if (!running.isEmpty())
            statusBar()->showMessage(tr("Reading the activity of %n workspace(s)…", nullptr, runningCount));
        const QStringList profiles = running.keys();
        for (const QString &profile : profiles) {
            const QList<ActivityTracker::Target> targets = running.value(profile);
            co_await m_activity->fetch(sessionOf(profile), targets);
            if (!self)
                co_return;
        }
    }

    // Idle since the newest time Paddock knows it was used (idleSince, the rule paddockctl sweep
    // follows too): its own activity (the backend's, the console's accesses and resumes, its
    // sessions/ folder), else when it was created. A workspace with no time at all is not judged,
    // and the message says how many there were.
    const QDateTime before = m_model->now().addSecs(-qint64(minutes) * 60);
    QItemSelection idle;
    int running = 0;
    int byCreation = 0;
    int unknown = 0;
    int count = 0;
    for (const WorkspaceRecord *record : m_model->recordsUnder({})) {
        const SandboxInfo &info = record->info;
        if (info.state != SandboxState::Running || !sessionOf(record->profile))
            continue;
        // Only what is shown can be selected, and only that is counted.
        const QModelIndex index = m_proxy->mapFromSource(m_model->indexOfKey(record->key()));
        if (!index.isValid())
            continue;
        ++running;
        const IdleSince idleFor = idleSince(info, m_activity->lastActivity(record->key()));
        if (idleFor.basis == IdleBasis::Created)
            ++byCreation;
        if (!idleFor.isKnown()) {
            ++unknown;
            continue;
        }
        if (idleFor.since < before) {
            idle.select(index, index);
            ++count;
        }
    }
    QString message = count > 0
        ? tr("%1 of %n running workspace(s) idle longer than %2 min selected.", nullptr, running)
              .arg(count)
              .arg(minutes)
        : tr("None of %n running workspace(s) has been idle longer than %1 min; the selection is unchanged.", nullptr,
             running)
              .arg(minutes);
    if (byCreation > 0)
        message +=
            u' ' + tr("%n had no recorded activity and were judged by when they were created.", nullptr, byCreation);
    if (unknown > 0)
        message += u' ' + tr("%n had no time at all to go by and were left out.", nullptr, unknown);
    // A result of nothing leaves the selection as it was.
    if (count > 0)
        m_ui->workspaceView->selectionModel()->select(idle,
                                                      QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    statusBar()->showMessage(message);
    m_lastSummary = message;
    if (thenPause && count > 0)
        co_await runAction(WorkspaceAction::Pause, true);
}

QCoro::Task<void> MainWindow::runAction(WorkspaceAction action, bool alwaysAsk)
{
    if (m_readOnly || (!m_session && !showsAllProfiles()) || m_actions->isBusy())
        co_return;
    QList<WorkspaceRecord> selected;
    for (const WorkspaceRecord *record : selectedRecords())
        selected.append(*record);
    co_await m_actions->run(action, selected, alwaysAsk);
}
