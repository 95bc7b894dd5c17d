#pragma once

#include <QCoroFwd>

#include <QMainWindow>
#include <QTimer>

#include <memory>

namespace Ui {
class MainWindow;
}
namespace Paddock {
class Backend;
}
class WorkspaceTableModel;
class QSortFilterProxyModel;

// The console's first window: the workspaces of the local backend, refreshed in place.
class MainWindow final : public QMainWindow
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MainWindow)

public:
    explicit MainWindow(Paddock::Backend *backend, QWidget *parent = nullptr);
    ~MainWindow() override;

    WorkspaceTableModel *model() const { return m_model; }
    QCoro::Task<void> refresh();

private:
    QCoro::Task<void> applyToSelection(bool pause);
    QStringList selectedIds() const;

    std::unique_ptr<Ui::MainWindow> m_ui;
    Paddock::Backend *m_backend;
    WorkspaceTableModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QTimer m_refreshTimer;
};
