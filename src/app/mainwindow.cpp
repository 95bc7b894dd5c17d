#include "mainwindow.h"

#include "backend.h"
#include "ui_mainwindow.h"
#include "workspacetreemodel.h"

#include <QCoroTask>

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSet>
#include <QSortFilterProxyModel>

using namespace Paddock;

MainWindow::MainWindow(Backend *backend, QString profile, QWidget *parent)
    : QMainWindow(parent)
    , m_ui(std::make_unique<Ui::MainWindow>())
    , m_backend(backend)
    , m_profile(std::move(profile))
    , m_model(new WorkspaceTreeModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_freshness(new QLabel(this))
{
    m_ui->setupUi(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(WorkspaceTreeModel::SortRole);
    m_proxy->setSortLocaleAware(true);
    m_ui->workspaceView->setModel(m_proxy);
    m_ui->workspaceView->sortByColumn(WorkspaceTreeModel::WorkspaceColumn, Qt::AscendingOrder);
    m_ui->workspaceView->header()->setSectionResizeMode(QHeaderView::Interactive);
    m_ui->workspaceView->header()->resizeSection(WorkspaceTreeModel::WorkspaceColumn, 260);
    m_ui->workspaceView->header()->resizeSection(WorkspaceTreeModel::StateColumn, 180); // group counts
    m_freshness->setAccessibleName(tr("Last refresh"));
    statusBar()->addPermanentWidget(m_freshness);

    // New groups open expanded; groups the user collapsed stay collapsed.
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this, &MainWindow::expandGroups);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, [this] { expandGroups({}, 0, m_proxy->rowCount() - 1); });

    for (const int seconds : {0, 5, 15, 30, 60}) {
        m_ui->refreshIntervalBox->addItem(seconds == 0 ? tr("Off") : tr("%n second(s)", nullptr, seconds), seconds);
    }
    m_ui->refreshIntervalBox->setCurrentIndex(m_ui->refreshIntervalBox->findData(int(m_refreshInterval.count())));
    connect(m_ui->refreshIntervalBox, &QComboBox::currentIndexChanged, this, [this](int index) {
        setRefreshInterval(std::chrono::seconds(m_ui->refreshIntervalBox->itemData(index).toInt()));
    });

    connect(m_ui->actionRefresh, &QAction::triggered, this, [this] { refresh(); });
    connect(m_ui->actionPause, &QAction::triggered, this, [this] { applyToSelection(true); });
    connect(m_ui->actionResume, &QAction::triggered, this, [this] { applyToSelection(false); });
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
    connect(m_model, &QAbstractItemModel::dataChanged, this, &MainWindow::updateActions);

    m_refreshTimer.setInterval(m_refreshInterval);
    connect(&m_refreshTimer, &QTimer::timeout, this, [this] { refresh(); });
    m_tickTimer.setInterval(std::chrono::seconds(1));
    connect(&m_tickTimer, &QTimer::timeout, this, &MainWindow::tick);
    updateActions();
    refresh();
}

MainWindow::~MainWindow() = default;

void MainWindow::setRefreshInterval(std::chrono::seconds interval)
{
    m_refreshInterval = interval;
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

void MainWindow::changeEvent(QEvent *event)
{
    QMainWindow::changeEvent(event);
    if (event->type() == QEvent::WindowStateChange)
        updateTimers();
}

QCoro::Task<void> MainWindow::refresh()
{
    if (m_refreshing)
        co_return;
    m_refreshing = true;
    const ListFilter everything;
    auto listed = co_await m_backend->list(everything);
    m_refreshing = false;
    if (!listed) {
        statusBar()->showMessage(tr("Cannot list the workspaces of %1: %2").arg(m_profile, listed.error().message));
        tick();
        co_return;
    }
    QList<WorkspaceRecord> records;
    records.reserve(listed->size());
    for (const SandboxInfo &info : std::as_const(*listed))
        records.append(WorkspaceRecord{m_profile, info, std::nullopt, {}});
    m_model->update(m_profile, records);
    m_lastRefresh = QDateTime::currentDateTimeUtc();
    statusBar()->showMessage(tr("%n workspace(s)", nullptr, int(listed->size())));
    tick();
}

QString MainWindow::freshnessText() const
{
    if (!m_lastRefresh.isValid())
        return tr("not loaded yet");
    const qint64 seconds = std::max<qint64>(0, m_lastRefresh.secsTo(QDateTime::currentDateTimeUtc()));
    const QString ago = seconds < 60 ? tr("updated %n second(s) ago", nullptr, int(seconds))
                                     : tr("updated %1 ago").arg(WorkspaceTreeModel::formatCountdown(seconds));
    return isStale() ? tr("%1 (stale)").arg(ago) : ago;
}

bool MainWindow::isStale() const
{
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
    m_freshness->setText(freshnessText());
    // A stale listing is a warning, in colour and in words (the text says "stale" too).
    m_freshness->setStyleSheet(isStale() ? QStringLiteral("color: #b45309; font-weight: bold;") : QString());
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
    const auto rows = m_ui->workspaceView->selectionModel()->selectedRows();
    for (const QModelIndex &row : rows) {
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

void MainWindow::updateActions()
{
    // Offer an action only when it fits some selected workspace.
    bool running = false;
    bool paused = false;
    for (const WorkspaceRecord *record : selectedRecords()) {
        running = running || record->info.state == SandboxState::Running;
        paused = paused || record->info.state == SandboxState::Paused;
    }
    m_ui->actionPause->setEnabled(running);
    m_ui->actionResume->setEnabled(paused);
}

QCoro::Task<void> MainWindow::applyToSelection(bool pause)
{
    // Each action goes only to the workspaces it fits; one failure does not stop the rest.
    const SandboxState fits = pause ? SandboxState::Running : SandboxState::Paused;
    QStringList sandboxes;
    for (const WorkspaceRecord *record : selectedRecords()) {
        if (record->info.state == fits)
            sandboxes.append(record->info.sandboxId);
    }
    QStringList failures;
    for (const QString &id : std::as_const(sandboxes)) {
        Result<> done;
        if (pause) {
            done = co_await m_backend->pause(id);
        } else {
            auto resumed = co_await m_backend->resume(id);
            done = resumed ? Result<>{} : fail(resumed.error());
        }
        if (!done)
            failures.append(done.error().message);
    }
    co_await refresh();
    if (!failures.isEmpty())
        statusBar()->showMessage(failures.join(QStringLiteral("; ")));
}
