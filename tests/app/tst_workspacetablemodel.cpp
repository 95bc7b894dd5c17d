#include "workspacetablemodel.h"

#include <QAbstractItemModelTester>
#include <QItemSelectionModel>
#include <QSignalSpy>
#include <QTest>

using namespace Paddock;

namespace {

SandboxInfo row(const QString &id, SandboxState state = SandboxState::Running)
{
    SandboxInfo info;
    info.workspaceId = id;
    info.sandboxId = id;
    info.state = state;
    info.rawState = sandboxStateName(state);
    info.userId = QStringLiteral("u");
    info.agentId = QStringLiteral("a");
    info.backend = QStringLiteral("local");
    return info;
}

} // namespace

class TestWorkspaceTableModel final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void updatesInPlaceAndKeepsTheSelection()
    {
        WorkspaceTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.update({row("a"), row("b"), row("c"), row("d")});
        QCOMPARE(model.rowCount(), 4);

        QItemSelectionModel selection(&model);
        selection.select(model.index(2, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows); // c
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);

        // b vanishes, c is paused, e appears.
        model.update({row("a"), row("c", SandboxState::Paused), row("d"), row("e")});
        QCOMPARE(resets.size(), 0);
        QCOMPARE(removed.size(), 1);
        QCOMPARE(inserted.size(), 1);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(model.rowCount(), 4);
        const QModelIndexList selected = selection.selectedRows();
        QCOMPARE(selected.size(), 1);
        QCOMPARE(selected.first().data(WorkspaceTableModel::WorkspaceIdRole).toString(), QStringLiteral("c"));
        QCOMPARE(model.index(selected.first().row(), WorkspaceTableModel::StateColumn).data().toString(),
                 QStringLiteral("Paused"));

        // The same listing again changes nothing.
        model.update({row("a"), row("c", SandboxState::Paused), row("d"), row("e")});
        QCOMPARE(changed.size(), 1);
        model.update({});
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(resets.size(), 0);
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceTableModel)
#include "tst_workspacetablemodel.moc"
