#include "mainwindow.h"

#include "backend.h"
#include "ui_mainwindow.h"
#include "workspacetablemodel.h"

#include <QCoroTask>

#include <QHeaderView>
#include <QSortFilterProxyModel>

using namespace Paddock;

MainWindow::MainWindow(Backend *backend, QWidget *parent)
    : QMainWindow(parent)
    , m_ui(std::make_unique<Ui::MainWindow>())
    , m_backend(backend)
    , m_model(new WorkspaceTableModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
{
    m_ui->setupUi(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(WorkspaceTableModel::SortRole);
    m_ui->workspaceView->setModel(m_proxy);
    m_ui->workspaceView->sortByColumn(WorkspaceTableModel::LastActivityColumn, Qt::DescendingOrder);
    m_ui->workspaceView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);

    connect(m_ui->actionRefresh, &QAction::triggered, this, [this] { refresh(); });
    connect(m_ui->actionPause, &QAction::triggered, this, [this] { applyToSelection(true); });
    connect(m_ui->actionResume, &QAction::triggered, this, [this] { applyToSelection(false); });
    m_refreshTimer.setInterval(std::chrono::seconds(15));
    connect(&m_refreshTimer, &QTimer::timeout, this, [this] { refresh(); });
    m_refreshTimer.start();
    refresh();
}

MainWindow::~MainWindow() = default;

QCoro::Task<void> MainWindow::refresh()
{
    const ListFilter everything;
    auto listed = co_await m_backend->list(everything);
    if (!listed) {
        statusBar()->showMessage(tr("Cannot list workspaces: %1").arg(listed.error().message));
        co_return;
    }
    m_model->update(*listed);
    statusBar()->showMessage(tr("%n workspace(s)", nullptr, int(listed->size())));
}

QStringList MainWindow::selectedIds() const
{
    QStringList ids;
    const auto rows = m_ui->workspaceView->selectionModel()->selectedRows();
    for (const QModelIndex &row : rows)
        ids.append(row.data(WorkspaceTableModel::WorkspaceIdRole).toString());
    return ids;
}

QCoro::Task<void> MainWindow::applyToSelection(bool pause)
{
    const QStringList ids = selectedIds();
    QStringList failures;
    for (const QString &id : ids) {
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
