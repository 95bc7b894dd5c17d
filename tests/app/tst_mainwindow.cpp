#include "backends/local/localbackend.h"
#include "mainwindow.h"
#include "workspacetablemodel.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace Paddock;

class TestMainWindow final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void listsAndPausesLocalWorkspaces()
    {
        QTemporaryDir dir;
        // A workspace as another process left it.
        QVERIFY(QDir().mkpath(dir.path() + QStringLiteral("/ws1/.paddock")));
        QFile metadata(dir.path() + QStringLiteral("/ws1/.paddock/workspace.json"));
        QVERIFY(metadata.open(QIODevice::WriteOnly));
        metadata.write(R"({"workspaceId":"ws1","userId":"张三","agentId":"运维","state":"Running",
                           "createdAt":"2026-11-30T01:00:00.000Z","lastActivityAt":"2026-11-30T02:00:00.000Z"})");
        metadata.close();

        LocalBackend backend(LocalOptions{dir.path(), false});
        MainWindow window(&backend);
        window.show();
        QTRY_COMPARE(window.model()->rowCount(), 1);
        auto *view = window.findChild<QTableView *>(QStringLiteral("workspaceView"));
        QVERIFY(view);
        QCOMPARE(view->model()->index(0, WorkspaceTableModel::AgentColumn).data().toString(), QStringLiteral("运维"));

        view->selectRow(0);
        window.findChild<QAction *>(QStringLiteral("actionPause"))->trigger();
        QTRY_COMPARE(window.model()->index(0, WorkspaceTableModel::StateColumn).data().toString(),
                     QStringLiteral("Paused"));
        QVERIFY(view->selectionModel()->isRowSelected(0, {}));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
