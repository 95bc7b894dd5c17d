// The console's workspace tree: grouping, in-place refresh that keeps the selection (10,000
// rows, 1% changed), group counts, countdown ticks on two columns only, the flat list; checked
// throughout by QAbstractItemModelTester.

#include "colorscheme.h"
#include "workspacefilterproxy.h"
#include "workspacetreemodel.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QColor>
#include <QHash>
#include <QItemSelectionModel>
#include <QLocale>
#include <QScopeGuard>
#include <QSet>
#include <QSignalSpy>
#include <QTest>

#include <functional>
#include <optional>

using namespace Paddock;

namespace {

WorkspaceRecord record(const QString &id, const QString &user, const QString &agent,
                       SandboxState state = SandboxState::Running, const QString &profile = QStringLiteral("local"))
{
    WorkspaceRecord r;
    r.profile = profile;
    r.info.sandboxId = id;
    r.info.workspaceId = id;
    r.info.userId = user;
    r.info.agentId = agent;
    r.info.state = state;
    r.info.rawState = sandboxStateName(state);
    r.info.backend = QStringLiteral("local");
    r.info.createdAt = QDateTime(QDate(2026, 11, 1), QTime(8, 0), Qt::UTC);
    return r;
}

QList<WorkspaceRecord> many(int count)
{
    QList<WorkspaceRecord> records;
    records.reserve(count);
    for (int i = 0; i < count; ++i) {
        records.append(record(QStringLiteral("ws-%1").arg(i, 5, 10, QLatin1Char('0')),
                              QStringLiteral("user-%1").arg(i % 40), QStringLiteral("agent-%1").arg(i % 7),
                              i % 4 == 0 ? SandboxState::Paused : SandboxState::Running));
    }
    return records;
}

QStringList childNames(const QAbstractItemModel &model, const QModelIndex &parent = {})
{
    QStringList names;
    for (int row = 0; row < model.rowCount(parent); ++row)
        names.append(model.index(row, 0, parent).data().toString());
    return names;
}

} // namespace

class TestWorkspaceTreeModel final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aListingComparesUnchangedRowsWithoutCopyingThem()
    {
        // The backend's path: fingerprinted records and a decoration made per row.
        WorkspaceTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto listing = [](const QString &stateOfB) {
            QList<SandboxInfo> infos;
            for (const QString &id : {QStringLiteral("a"), QStringLiteral("b")}) {
                WorkspaceRecord r =
                    record(id, QStringLiteral("u"), QStringLiteral("x"),
                           id == QLatin1String("b") ? parseSandboxState(stateOfB) : SandboxState::Running,
                           QStringLiteral("p"));
                r.info.fingerprint = fingerprintOf(r.info);
                infos.append(r.info);
            }
            return infos;
        };
        QHash<QString, QString> failures;
        const WorkspaceTreeModel::Decorate decorate = [&failures](const QString &, const SandboxInfo &info,
                                                                  WorkspaceTreeModel::Decoration &decoration) {
            decoration.bootstrapFailure = failures.value(info.sandboxId);
        };
        model.update(QStringLiteral("p"), listing(QStringLiteral("Running")), decorate);
        const QString b = QStringLiteral("p\x1f"
                                         "b");
        QCOMPARE(model.indexOfKey(b, WorkspaceTreeModel::StateColumn).data().toString(), QStringLiteral("Running"));

        // The same listing again changes nothing.
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.update(QStringLiteral("p"), listing(QStringLiteral("Running")), decorate);
        QCOMPARE(changed.count(), 0);

        // What the console knows changes (a bootstrap failure appears): an unchanged row is not
        // decorated again by a refresh, only once it is marked; then it follows.
        failures.insert(QStringLiteral("b"), QStringLiteral("exit 3"));
        int decorated = 0;
        const WorkspaceTreeModel::Decorate counting = [&](const QString &profile, const SandboxInfo &info,
                                                          WorkspaceTreeModel::Decoration &decoration) {
            ++decorated;
            decorate(profile, info, decoration);
        };
        model.update(QStringLiteral("p"), listing(QStringLiteral("Running")), counting);
        QCOMPARE(decorated, 0);
        QCOMPARE(model.indexOfKey(b, WorkspaceTreeModel::StateColumn).data().toString(), QStringLiteral("Running"));
        model.markStale(QStringLiteral("p"), {QStringLiteral("b")});
        model.update(QStringLiteral("p"), listing(QStringLiteral("Running")), counting);
        QCOMPARE(decorated, 1);
        QCOMPARE(model.indexOfKey(b, WorkspaceTreeModel::StateColumn).data().toString(),
                 QStringLiteral("Running, bootstrap failed"));
        QCOMPARE(model.record(model.indexOfKey(b))->bootstrapFailure, QStringLiteral("exit 3"));
        failures.clear();

        // A row changed here (an action under way) goes back to what the same listing says, and
        // takes its fingerprint again.
        QVERIFY(model.setState(b, SandboxState::Pausing));
        QCOMPARE(model.record(model.indexOfKey(b))->info.fingerprint, quint64(0));
        model.update(QStringLiteral("p"), listing(QStringLiteral("Running")), decorate);
        QCOMPARE(model.indexOfKey(b, WorkspaceTreeModel::StateColumn).data().toString(), QStringLiteral("Running"));
        const WorkspaceRecord *shown = model.record(model.indexOfKey(b));
        QCOMPARE(shown->info.fingerprint, listing(QStringLiteral("Running")).at(1).fingerprint);
        QCOMPARE(shown->info.workspaceId, QStringLiteral("b")); // whole, not a moved-from shell
        QCOMPARE(shown->info.userId, QStringLiteral("u"));

        // Compared in full and different (paused meanwhile): the listing's data, whole.
        QVERIFY(model.setState(b, SandboxState::Pausing));
        model.update(QStringLiteral("p"), listing(QStringLiteral("Paused")), decorate);
        shown = model.record(model.indexOfKey(b));
        QCOMPARE(shown->info.state, SandboxState::Paused);
        QCOMPARE(shown->info.workspaceId, QStringLiteral("b"));
        QCOMPARE(shown->info.agentId, QStringLiteral("x"));
        QCOMPARE(shown->info.fingerprint, listing(QStringLiteral("Paused")).at(1).fingerprint);
        QCOMPARE(model.index(0, WorkspaceTreeModel::StateColumn).data().toString(),
                 QStringLiteral("1 Running · 1 Paused"));
    }

    void aWatchReportChangesOneRowInPlace()
    {
        // A watch's reports: one sandbox at a time, through the listing's own path, the other
        // rows left alone.
        WorkspaceTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto info = [](const QString &id, const QString &user, const QString &agent,
                             SandboxState state = SandboxState::Running) {
            SandboxInfo i = record(id, user, agent, state, QStringLiteral("p")).info;
            i.fingerprint = fingerprintOf(i);
            return i;
        };
        QHash<QString, QString> failures{{QStringLiteral("b"), QStringLiteral("exit 3")}};
        int decorated = 0;
        const WorkspaceTreeModel::Decorate decorate = [&](const QString &, const SandboxInfo &sandbox,
                                                          WorkspaceTreeModel::Decoration &decoration) {
            ++decorated;
            decoration.bootstrapFailure = failures.value(sandbox.sandboxId);
        };
        model.update(QStringLiteral("p"),
                     {info(QStringLiteral("a"), QStringLiteral("u"), QStringLiteral("x")),
                      info(QStringLiteral("b"), QStringLiteral("u"), QStringLiteral("x")),
                      info(QStringLiteral("c"), QStringLiteral("v"), QStringLiteral("y"))},
                     decorate);
        model.update(QStringLiteral("q"),
                     {record(QStringLiteral("a"), QStringLiteral("zed"), QStringLiteral("x"), SandboxState::Running,
                             QStringLiteral("q"))});
        const QString a = QStringLiteral("p\x1f"
                                         "a");
        const QString b = QStringLiteral("p\x1f"
                                         "b");
        const QString c = QStringLiteral("p\x1f"
                                         "c");
        const QString d = QStringLiteral("p\x1f"
                                         "d");
        QItemSelectionModel selection(&model);
        selection.select(model.indexOfKey(b), QItemSelectionModel::Select | QItemSelectionModel::Rows);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);

        // The same as shown: nothing happens, nothing is decorated.
        decorated = 0;
        model.upsertSandbox(QStringLiteral("p"), info(QStringLiteral("b"), QStringLiteral("u"), QStringLiteral("x")),
                            decorate);
        QCOMPARE(decorated, 0);
        QCOMPARE(changed.count(), 0);

        // A changed state: its state column (and its groups' counts), decorated as a listing
        // decorates it (the failed bootstrap stays); the selection stays.
        model.upsertSandbox(QStringLiteral("p"),
                            info(QStringLiteral("b"), QStringLiteral("u"), QStringLiteral("x"), SandboxState::Paused),
                            decorate);
        QCOMPARE(decorated, 1);
        QCOMPARE(model.indexOfKey(b, WorkspaceTreeModel::StateColumn).data().toString(),
                 QStringLiteral("Paused, bootstrap failed"));
        QCOMPARE(changed.first().at(0).toModelIndex(), model.indexOfKey(b, WorkspaceTreeModel::StateColumn));
        QCOMPARE(model.index(0, WorkspaceTreeModel::StateColumn).data().toString(),
                 QStringLiteral("1 Running · 1 Paused"));
        QCOMPARE(inserted.count(), 0);
        QCOMPARE(removed.count(), 0);
        QVERIFY(selection.isRowSelected(model.indexOfKey(b).row(), model.indexOfKey(b).parent()));

        // A new sandbox of a new user: its groups appear with it.
        model.upsertSandbox(QStringLiteral("p"), info(QStringLiteral("d"), QStringLiteral("w"), QStringLiteral("z")),
                            decorate);
        QCOMPARE(childNames(model),
                 (QStringList{QStringLiteral("u"), QStringLiteral("v"), QStringLiteral("w"), QStringLiteral("zed")}));
        QCOMPARE(model.indexOfKey(d).parent().data().toString(), QStringLiteral("z"));
        QCOMPARE(model.workspaceCount(), 5);

        // Another owner: the row moves, and the group it left stays while b is in it.
        model.upsertSandbox(QStringLiteral("p"), info(QStringLiteral("a"), QStringLiteral("v"), QStringLiteral("y")),
                            decorate);
        QCOMPARE(model.indexOfKey(a).parent().data().toString(), QStringLiteral("y"));
        QCOMPARE(model.indexOfKey(a).parent().parent().data().toString(), QStringLiteral("v"));
        QCOMPARE(model.rowCount(model.indexOfKey(b).parent()), 1);

        // Gone: the row, then its empty groups; an unknown id and another profile's rows are left.
        inserted.clear();
        model.removeSandbox(QStringLiteral("p"), QStringLiteral("d"));
        QVERIFY(!model.indexOfKey(d).isValid());
        QCOMPARE(childNames(model), (QStringList{QStringLiteral("u"), QStringLiteral("v"), QStringLiteral("zed")}));
        model.removeSandbox(QStringLiteral("p"), QStringLiteral("nothing"));
        model.removeSandbox(QStringLiteral("p"), QStringLiteral("c"));
        QVERIFY(!model.indexOfKey(c).isValid());
        QCOMPARE(model.workspaceCount(), 3);
        QVERIFY(model
                    .indexOfKey(QStringLiteral("q\x1f"
                                               "a"))
                    .isValid());
        QCOMPARE(inserted.count(), 0);
        QCOMPARE(reset.count(), 0);
        QVERIFY(selection.isRowSelected(model.indexOfKey(b).row(), model.indexOfKey(b).parent()));
        QCOMPARE(model.record(model.indexOfKey(b))->bootstrapFailure, QStringLiteral("exit 3"));

        // The next listing (reconciliation) finds them as reported: nothing to do.
        changed.clear();
        removed.clear();
        decorated = 0;
        model.update(QStringLiteral("p"),
                     {info(QStringLiteral("a"), QStringLiteral("v"), QStringLiteral("y")),
                      info(QStringLiteral("b"), QStringLiteral("u"), QStringLiteral("x"), SandboxState::Paused)},
                     decorate);
        QCOMPARE(decorated, 0);
        QCOMPARE(changed.count(), 0);
        QCOMPARE(removed.count(), 0);
    }

    void aBurstOfReportsIsOnePass()
    {
        WorkspaceTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QList<SandboxInfo> first;
        for (const WorkspaceRecord &r : many(1000)) {
            SandboxInfo i = r.info;
            i.fingerprint = fingerprintOf(i);
            first.append(i);
        }
        model.update(QStringLiteral("local"), first, {});
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);

        // 200 state changes, 100 new rows in one new group, 50 removals, and one sandbox reported
        // twice (the last report wins) and also removed (the report wins).
        QList<SandboxInfo> reports;
        for (int i = 0; i < 200; ++i) {
            SandboxInfo flipped = first.at(i * 5);
            flipped.state = flipped.state == SandboxState::Paused ? SandboxState::Running : SandboxState::Paused;
            flipped.fingerprint = fingerprintOf(flipped);
            reports.append(flipped);
        }
        for (int i = 0; i < 100; ++i) {
            SandboxInfo fresh =
                record(QStringLiteral("new-%1").arg(i), QStringLiteral("newcomer"), QStringLiteral("agent-0")).info;
            fresh.fingerprint = fingerprintOf(fresh);
            reports.append(fresh);
        }
        SandboxInfo twice = first.at(1);
        twice.state = SandboxState::Failed;
        twice.fingerprint = fingerprintOf(twice);
        reports.append(first.at(1));
        reports.append(twice);
        QSet<QString> gone;
        for (int i = 0; i < 50; ++i)
            gone.insert(first.at(i * 5 + 3).sandboxId);
        gone.insert(twice.sandboxId);
        model.applyChanges(QStringLiteral("local"), reports, gone, {});

        QCOMPARE(model.workspaceCount(), 1000 + 100 - 50);
        // The new rows arrive together: their groups, then one insertion of all 100.
        QCOMPARE(inserted.count(), 3);
        QCOMPARE(removed.count(), 50);
        QCOMPARE(model.record(model.indexOfKey(QStringLiteral("local\x1f") + twice.sandboxId))->info.state,
                 SandboxState::Failed);
        QCOMPARE(model.record(model.indexOfKey(QStringLiteral("local\x1f") + first.at(0).sandboxId))->info.state,
                 first.at(0).state == SandboxState::Paused ? SandboxState::Running : SandboxState::Paused);
        QVERIFY(!model.indexOfKey(QStringLiteral("local\x1f") + first.at(3).sandboxId).isValid());
        QVERIFY(changed.count() >= 201);
    }

    void groupsCountWhatTheFilterShowsAndSortByTheirMostUrgentRow()
    {
        WorkspaceTreeModel model;
        const QDateTime now(QDate(2026, 12, 1), QTime(12, 0), Qt::UTC);
        model.setClock([now] { return now; });
        WorkspaceFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto expiring = [&now](WorkspaceRecord r, qint64 inSeconds) {
            r.info.expiresAt = now.addSecs(inSeconds);
            return r;
        };
        // anna: one row expiring in 5 minutes (paused) and two in a day; bert: all in 2 hours.
        model.update(
            QStringLiteral("local"),
            {expiring(record(QStringLiteral("a1"), QStringLiteral("anna"), QStringLiteral("x"), SandboxState::Paused),
                      300),
             expiring(record(QStringLiteral("a2"), QStringLiteral("anna"), QStringLiteral("x")), 86400),
             expiring(record(QStringLiteral("a3"), QStringLiteral("anna"), QStringLiteral("x")), 86400),
             expiring(record(QStringLiteral("b1"), QStringLiteral("bert"), QStringLiteral("y")), 7200),
             expiring(record(QStringLiteral("b2"), QStringLiteral("bert"), QStringLiteral("y")), 7300)});
        // "Expires in", soonest first: anna's five minutes beat bert's two hours.
        proxy.sort(WorkspaceTreeModel::ExpiryColumn, Qt::AscendingOrder);
        QCOMPARE(childNames(proxy), (QStringList{QStringLiteral("anna"), QStringLiteral("bert")}));
        proxy.sort(WorkspaceTreeModel::ExpiryColumn, Qt::DescendingOrder);
        QCOMPARE(childNames(proxy), (QStringList{QStringLiteral("bert"), QStringLiteral("anna")}));
        proxy.sort(WorkspaceTreeModel::ExpiryColumn, Qt::AscendingOrder);
        QCOMPARE(proxy.index(0, WorkspaceTreeModel::StateColumn).data().toString(),
                 QStringLiteral("2 Running · 1 Paused"));

        // Only Running: anna's urgent row is not shown, so bert comes first; counts are of what shows.
        proxy.setState(SandboxState::Running);
        QCOMPARE(childNames(proxy), (QStringList{QStringLiteral("bert"), QStringLiteral("anna")}));
        const QModelIndex anna = proxy.index(1, 0);
        QCOMPARE(anna.data().toString(), QStringLiteral("anna"));
        QCOMPARE(anna.siblingAtColumn(WorkspaceTreeModel::StateColumn).data().toString(),
                 QStringLiteral("2 Running (of 3)"));
        QCOMPARE(proxy.index(0, WorkspaceTreeModel::StateColumn, anna).data().toString(),
                 QStringLiteral("2 Running (of 3)")); // the agent group too
        QCOMPARE(proxy.index(0, WorkspaceTreeModel::StateColumn).data().toString(), QStringLiteral("2 Running"));
        proxy.setText(QStringLiteral("a2"));
        QCOMPARE(childNames(proxy), QStringList{QStringLiteral("anna")});
        QCOMPARE(proxy.index(0, WorkspaceTreeModel::StateColumn).data().toString(), QStringLiteral("1 Running (of 3)"));
        proxy.setText({});
        proxy.setState(std::nullopt);
        QCOMPARE(childNames(proxy), (QStringList{QStringLiteral("anna"), QStringLiteral("bert")}));
        QCOMPARE(proxy.index(0, WorkspaceTreeModel::StateColumn).data().toString(),
                 QStringLiteral("2 Running · 1 Paused"));

        // A renewal that makes bert's soonest expiry the most urgent moves his group up.
        model.update(
            QStringLiteral("local"),
            {expiring(record(QStringLiteral("a1"), QStringLiteral("anna"), QStringLiteral("x"), SandboxState::Paused),
                      300),
             expiring(record(QStringLiteral("a2"), QStringLiteral("anna"), QStringLiteral("x")), 86400),
             expiring(record(QStringLiteral("a3"), QStringLiteral("anna"), QStringLiteral("x")), 86400),
             expiring(record(QStringLiteral("b1"), QStringLiteral("bert"), QStringLiteral("y")), 60),
             expiring(record(QStringLiteral("b2"), QStringLiteral("bert"), QStringLiteral("y")), 7300)});
        QCOMPARE(childNames(proxy), (QStringList{QStringLiteral("bert"), QStringLiteral("anna")}));
    }

    void unreachableRowsShowAsLastSeen()
    {
        WorkspaceTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.update(QStringLiteral("p"),
                     {record(QStringLiteral("a"), QStringLiteral("u"), QStringLiteral("x"), SandboxState::Running,
                             QStringLiteral("p"))});
        const QModelIndex state = model.indexOfKey(QStringLiteral("p\x1f"
                                                                  "a"),
                                                   WorkspaceTreeModel::StateColumn);
        QCOMPARE(state.data().toString(), QStringLiteral("Running"));
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        const QDateTime seen(QDate(2026, 12, 1), QTime(9, 30), Qt::UTC);
        model.setUnreachable(QStringLiteral("p"), seen);
        QVERIFY(!changed.isEmpty());
        const QString text = state.data().toString();
        QVERIFY2(text.startsWith(QLatin1String("Running (last seen ")), qPrintable(text));
        QVERIFY(text.contains(QLocale().toString(seen.toLocalTime(), QLocale::ShortFormat)));
        QCOMPARE(state.data(Qt::ForegroundRole).value<QColor>(), QColor(0x8a, 0x8a, 0x8a));
        QCOMPARE(model
                     .indexOfKey(QStringLiteral("p\x1f"
                                                "a"),
                                 WorkspaceTreeModel::UserColumn)
                     .data(Qt::ForegroundRole)
                     .value<QColor>(),
                 QColor(0x8a, 0x8a, 0x8a));
        model.setUnreachable(QStringLiteral("p"), {});
        QCOMPARE(state.data().toString(), QStringLiteral("Running"));
        QVERIFY(!state.data(Qt::ForegroundRole).isValid());
    }

    void groupsByUserThenAgentWithCounts()
    {
        WorkspaceTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.update(
            QStringLiteral("local"),
            {record(QStringLiteral("a"), QStringLiteral("运维"), QStringLiteral("助手")),
             record(QStringLiteral("b"), QStringLiteral("alice"), QStringLiteral("coder")),
             record(QStringLiteral("c"), QStringLiteral("alice"), QStringLiteral("coder"), SandboxState::Paused),
             record(QStringLiteral("d"), QStringLiteral("alice"), QStringLiteral("reviewer"))});
        QCOMPARE(model.rowCount(), 2);
        const QModelIndex alice = model.index(0, 0);
        QCOMPARE(alice.data().toString(), QStringLiteral("alice"));
        QCOMPARE(alice.data(WorkspaceTreeModel::KindRole).value<WorkspaceTreeModel::Kind>(),
                 WorkspaceTreeModel::Kind::User);
        QCOMPARE(childNames(model, alice), (QStringList{QStringLiteral("coder"), QStringLiteral("reviewer")}));
        QCOMPARE(model.index(0, WorkspaceTreeModel::StateColumn).data().toString(),
                 QStringLiteral("2 Running · 1 Paused"));
        const QModelIndex coder = model.index(0, 0, alice);
        QCOMPARE(childNames(model, coder), (QStringList{QStringLiteral("b"), QStringLiteral("c")}));
        QCOMPARE(coder.siblingAtColumn(WorkspaceTreeModel::StateColumn).data().toString(),
                 QStringLiteral("1 Running · 1 Paused"));
        QCOMPARE(model.recordsUnder(alice).size(), 3);
        QCOMPARE(model.recordsUnder(model.index(1, 0)).constFirst()->info.userId, QStringLiteral("运维"));

        // PER_USER: the agent level names the agents that share the workspace.
        WorkspaceRecord shared = record(QStringLiteral("e"), QStringLiteral("bob"), QStringLiteral("a1"),
                                        SandboxState::Running, QStringLiteral("team"));
        shared.agents = QStringList{QStringLiteral("a1"), QStringLiteral("a2")};
        model.update(QStringLiteral("team"), {shared});
        const QModelIndex bob = model.index(1, 0);
        QCOMPARE(bob.data().toString(), QStringLiteral("bob"));
        QCOMPARE(model.index(0, 0, bob).data().toString(), QStringLiteral("a1, a2"));
        QCOMPARE(model.workspaceCount(), 5);
    }

    void aProfileThatStopsInsteadOfPausingSaysStopped()
    {
        WorkspaceTreeModel model;
        WorkspaceFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QString k8s = QStringLiteral("k8s");
        const QString local = QStringLiteral("local");
        model.setCapabilities(k8s, Capability::StopInsteadOfPause | Capability::ContainerLog);
        model.setCapabilities(local, Capability::Files);
        QVERIFY(model.stopsInsteadOfPausing(k8s));
        QVERIFY(!model.stopsInsteadOfPausing(local));
        // One user with a paused workspace on each profile, and a running one.
        model.update(
            k8s,
            {record(QStringLiteral("k1"), QStringLiteral("u"), QStringLiteral("a"), SandboxState::Paused, k8s),
             record(QStringLiteral("k2"), QStringLiteral("u"), QStringLiteral("a"), SandboxState::Running, k8s)});
        model.update(
            local,
            {record(QStringLiteral("l1"), QStringLiteral("u"), QStringLiteral("a"), SandboxState::Paused, local)});
        const QModelIndex k1 = model.indexOfKey(QStringLiteral("k8s\x1f"
                                                               "k1"),
                                                WorkspaceTreeModel::StateColumn);
        const QModelIndex l1 = model.indexOfKey(QStringLiteral("local\x1f"
                                                               "l1"),
                                                WorkspaceTreeModel::StateColumn);
        QCOMPARE(k1.data().toString(), QStringLiteral("Stopped"));
        QCOMPARE(k1.data(Qt::ToolTipRole).toString(), QStringLiteral("Stopped"));
        QCOMPARE(l1.data().toString(), QStringLiteral("Paused"));
        QCOMPARE(model.stateText(*model.record(k1)), QStringLiteral("Stopped"));
        // The groups count them apart, the stopped after the paused.
        QCOMPARE(model.index(0, WorkspaceTreeModel::StateColumn).data().toString(),
                 QStringLiteral("1 Running · 1 Paused · 1 Stopped"));
        // Filtered by state Paused (the filter box says Stopped for such a profile): both, counted
        // as what they are.
        proxy.setState(SandboxState::Paused);
        QCOMPARE(proxy.index(0, WorkspaceTreeModel::StateColumn).data().toString(),
                 QStringLiteral("1 Paused · 1 Stopped (of 3)"));
        proxy.setState(std::nullopt);
        // A pause under way reads Stopping there; the names in themselves.
        QVERIFY(model.setState(model.record(k1)->key(), SandboxState::Pausing));
        QCOMPARE(k1.data().toString(), QStringLiteral("Stopping"));
        QCOMPARE(WorkspaceTreeModel::stateText(SandboxState::Paused, {}, Capability::StopInsteadOfPause),
                 QStringLiteral("Stopped"));
        QCOMPARE(WorkspaceTreeModel::stateText(SandboxState::Paused), QStringLiteral("Paused"));
        QCOMPARE(WorkspaceTreeModel::stateText(SandboxState::Running, {}, Capability::StopInsteadOfPause),
                 QStringLiteral("Running"));

        // The profile's backend changes (the profile was edited): its rows and groups say so in
        // place, with no reset.
        QVERIFY(model.setState(model.record(k1)->key(), SandboxState::Paused));
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setCapabilities(k8s, Capability::ContainerLog);
        QCOMPARE(reset.count(), 0);
        QVERIFY(!changed.isEmpty());
        QCOMPARE(k1.data().toString(), QStringLiteral("Paused"));
        QCOMPARE(model.index(0, WorkspaceTreeModel::StateColumn).data().toString(),
                 QStringLiteral("1 Running · 2 Paused"));
        changed.clear();
        model.setCapabilities(k8s, Capability::ContainerLog | Capability::Exec); // Paused still: nothing to say
        QCOMPARE(changed.count(), 0);
        model.setCapabilities(k8s, Capability::StopInsteadOfPause);
        QCOMPARE(model.index(0, WorkspaceTreeModel::StateColumn).data().toString(),
                 QStringLiteral("1 Running · 1 Paused · 1 Stopped"));

        // A failed bootstrap says it stopped it.
        WorkspaceRecord failed =
            record(QStringLiteral("k1"), QStringLiteral("u"), QStringLiteral("a"), SandboxState::Paused, k8s);
        failed.bootstrapFailure = QStringLiteral("exit 3");
        model.update(
            k8s,
            {failed,
             record(QStringLiteral("k2"), QStringLiteral("u"), QStringLiteral("a"), SandboxState::Running, k8s)});
        QCOMPARE(k1.data().toString(), QStringLiteral("Stopped, bootstrap failed"));
        QVERIFY2(k1.data(Qt::ToolTipRole)
                     .toString()
                     .startsWith(QLatin1String("Its last bootstrap failed, so it was "
                                               "stopped: exit 3")),
                 qPrintable(k1.data(Qt::ToolTipRole).toString()));
    }

    void workspacesWithNoUserOrAgentGoUnderUnknown()
    {
        WorkspaceTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        // As AgentScope leaves them on a cluster: no user, no agent; and one with a user only.
        model.update(
            QStringLiteral("p"),
            {record(QStringLiteral("theirs"), QString(), QString(), SandboxState::Running, QStringLiteral("p")),
             record(QStringLiteral("half"), QStringLiteral("alice"), QString(), SandboxState::Paused,
                    QStringLiteral("p")),
             record(QStringLiteral("ours"), QStringLiteral("alice"), QStringLiteral("coder"), SandboxState::Running,
                    QStringLiteral("p"))});
        QCOMPARE(model.workspaceCount(), 3);
        QCOMPARE(model.rowCount(), 2); // never hidden: the unknown user, then alice
        const QModelIndex unknownUser = model.index(0, 0);
        QCOMPARE(unknownUser.data().toString(), QStringLiteral("unknown"));
        QCOMPARE(unknownUser.data(WorkspaceTreeModel::KindRole).value<WorkspaceTreeModel::Kind>(),
                 WorkspaceTreeModel::Kind::User);
        QVERIFY2(unknownUser.data(Qt::ToolTipRole).toString().contains(QLatin1String("outside Paddock")),
                 qPrintable(unknownUser.data(Qt::ToolTipRole).toString()));
        QVERIFY(unknownUser.data(Qt::ToolTipRole).toString().contains(QLatin1String("no user")));
        QCOMPARE(unknownUser.data(Qt::ForegroundRole).value<QColor>(), QColor(0x8a, 0x8a, 0x8a));
        // Its sort value and what Open prefills from it stay empty: no user is "unknown".
        QCOMPARE(unknownUser.data(WorkspaceTreeModel::SortRole).toString(), QString());
        QCOMPARE(unknownUser.siblingAtColumn(WorkspaceTreeModel::StateColumn).data().toString(),
                 QStringLiteral("1 Running"));
        const QModelIndex unknownAgent = model.index(0, 0, unknownUser);
        QCOMPARE(unknownAgent.data().toString(), QStringLiteral("unknown"));
        QVERIFY(unknownAgent.data(Qt::ToolTipRole).toString().contains(QLatin1String("no agent")));
        QCOMPARE(unknownAgent.data(Qt::ForegroundRole).value<QColor>(), QColor(0x8a, 0x8a, 0x8a));
        QCOMPARE(childNames(model, unknownAgent), QStringList{QStringLiteral("theirs")});

        const QModelIndex alice = model.index(1, 0);
        QCOMPARE(alice.data().toString(), QStringLiteral("alice"));
        QVERIFY(!alice.data(Qt::ForegroundRole).isValid()); // a user of its own is not greyed
        QCOMPARE(childNames(model, alice), (QStringList{QStringLiteral("unknown"), QStringLiteral("coder")}));
        QCOMPARE(childNames(model, model.index(0, 0, alice)), QStringList{QStringLiteral("half")});

        // The rows' own cells say it too; a known one is as it was.
        const QModelIndex theirsUser = model.indexOfKey(QStringLiteral("p\x1f"
                                                                       "theirs"),
                                                        WorkspaceTreeModel::UserColumn);
        QCOMPARE(theirsUser.data().toString(), QStringLiteral("unknown"));
        QCOMPARE(theirsUser.data(Qt::ForegroundRole).value<QColor>(), QColor(0x8a, 0x8a, 0x8a));
        QCOMPARE(theirsUser.data(WorkspaceTreeModel::SortRole).toString(), QString());
        QCOMPARE(theirsUser.siblingAtColumn(WorkspaceTreeModel::AgentColumn).data().toString(),
                 QStringLiteral("unknown"));
        const QModelIndex oursAgent = model.indexOfKey(QStringLiteral("p\x1f"
                                                                      "ours"),
                                                       WorkspaceTreeModel::AgentColumn);
        QCOMPARE(oursAgent.data().toString(), QStringLiteral("coder"));
        QVERIFY(!oursAgent.data(Qt::ForegroundRole).isValid());

        // Once a user is recorded the row moves to that user, and the empty unknown groups go.
        model.update(QStringLiteral("p"),
                     {record(QStringLiteral("theirs"), QStringLiteral("bob"), QStringLiteral("x"),
                             SandboxState::Running, QStringLiteral("p")),
                      record(QStringLiteral("half"), QStringLiteral("alice"), QString(), SandboxState::Paused,
                             QStringLiteral("p")),
                      record(QStringLiteral("ours"), QStringLiteral("alice"), QStringLiteral("coder"),
                             SandboxState::Running, QStringLiteral("p"))});
        QCOMPARE(childNames(model), (QStringList{QStringLiteral("alice"), QStringLiteral("bob")}));
        // The flat list shows the rows and no groups at all.
        model.setGrouped(false);
        QCOMPARE(model.rowCount(), 3);
    }

    void fillingAnEmptyModelIsOneReset()
    {
        WorkspaceTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        model.update(QStringLiteral("local"), many(100));
        QCOMPARE(reset.count(), 1);
        QCOMPARE(inserted.count(), 0);
        QCOMPARE(model.workspaceCount(), 100);
        // user-0 holds rows 0, 40 and 80, all paused; groups are counted before the reset ends.
        QCOMPARE(model.index(0, WorkspaceTreeModel::StateColumn).data().toString(), QStringLiteral("3 Paused"));
        // From then on, in place.
        QList<WorkspaceRecord> more = many(101);
        model.update(QStringLiteral("local"), more);
        QCOMPARE(reset.count(), 1);
        QVERIFY(inserted.count() >= 1);
        QCOMPARE(model.workspaceCount(), 101);
    }

    void filterProxyUnderTheTester()
    {
        // The window's proxy over the model: filtered and sorted through refreshes, moves,
        // in-place changes and ticks, checked by the tester the whole time.
        WorkspaceTreeModel model;
        WorkspaceFilterProxy proxy;
        proxy.setSourceModel(&model);
        proxy.sort(WorkspaceTreeModel::WorkspaceColumn);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QList<WorkspaceRecord> records = many(120);
        records[7].info.backend = QStringLiteral("opensandbox");
        model.update(QStringLiteral("local"), records);

        proxy.setState(SandboxState::Paused);
        const auto shownWorkspaces = [&proxy] {
            int count = 0;
            std::function<void(const QModelIndex &)> walk = [&](const QModelIndex &parent) {
                for (int row = 0; row < proxy.rowCount(parent); ++row) {
                    const QModelIndex index = proxy.index(row, 0, parent);
                    if (index.data(WorkspaceTreeModel::KindRole).value<WorkspaceTreeModel::Kind>()
                        == WorkspaceTreeModel::Kind::Workspace)
                        ++count;
                    else
                        walk(index);
                }
            };
            walk({});
            return count;
        };
        QCOMPARE(shownWorkspaces(), 30);
        proxy.setText(QStringLiteral("user-3"));
        // user-3 and user-30..39; of those only user-32 and user-36 have paused rows (3 each).
        QCOMPARE(shownWorkspaces(), 6);
        proxy.setText(QString());
        proxy.setState(std::nullopt);
        proxy.setBackend(QStringLiteral("opensandbox"));
        QCOMPARE(shownWorkspaces(), 1);
        proxy.setBackend(QString());
        QCOMPARE(shownWorkspaces(), 120);

        // A refresh that removes, adds, moves and changes rows, then a state change and ticks.
        proxy.setState(SandboxState::Running);
        records.removeAt(10);
        records.append(record(QStringLiteral("zz-new"), QStringLiteral("user-new"), QStringLiteral("agent-new")));
        records[20].info.agentId = QStringLiteral("agent-moved");
        records[21].info.state = SandboxState::Paused;
        records[22].info.expiresAt = QDateTime::currentDateTimeUtc().addSecs(90);
        model.update(QStringLiteral("local"), records);
        QCOMPARE(shownWorkspaces(), 89); // 90 running, one gone, one new, one paused

        QVERIFY(model.setState(records.at(22).key(), SandboxState::Pausing));
        model.tick();
        model.tick();
        QCOMPARE(shownWorkspaces(), 88); // one more is pausing
    }

    void oneRowChangesInPlace()
    {
        WorkspaceTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.update(QStringLiteral("local"),
                     {record(QStringLiteral("a"), QStringLiteral("u"), QStringLiteral("x")),
                      record(QStringLiteral("b"), QStringLiteral("u"), QStringLiteral("x"))});
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        const QString key = QStringLiteral("local\x1f"
                                           "a");
        // An action's outcome: the row and the groups' counts follow, nothing else moves.
        QVERIFY(model.setState(key, SandboxState::Pausing));
        QCOMPARE(model.indexOfKey(key, WorkspaceTreeModel::StateColumn).data().toString(), QStringLiteral("Pausing"));
        QCOMPARE(model.index(0, WorkspaceTreeModel::StateColumn).data().toString(),
                 QStringLiteral("1 Running · 1 Pausing"));
        QCOMPARE(changed.size(), 3); // the row, its agent, its user
        QVERIFY(!model.setState(QStringLiteral("local\x1fgone"), SandboxState::Paused));
        // The next listing says what the backend says, even when its records are fingerprinted
        // as unchanged since the last one.
        QList<WorkspaceRecord> again{record(QStringLiteral("a"), QStringLiteral("u"), QStringLiteral("x")),
                                     record(QStringLiteral("b"), QStringLiteral("u"), QStringLiteral("x"))};
        for (WorkspaceRecord &r : again)
            r.info.fingerprint = fingerprintOf(r.info);
        model.update(QStringLiteral("local"), again);
        QVERIFY(model.setState(key, SandboxState::Pausing));
        model.update(QStringLiteral("local"), again);
        QCOMPARE(model.indexOfKey(key, WorkspaceTreeModel::StateColumn).data().toString(), QStringLiteral("Running"));
        changed.clear();

        // A late activity read: kept only when newer.
        const QDateTime later(QDate(2026, 11, 30), QTime(9, 0), Qt::UTC);
        changed.clear();
        QVERIFY(model.setLastActivity(key, later));
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed.constFirst().at(0).value<QModelIndex>().column(), int(WorkspaceTreeModel::LastActivityColumn));
        QCOMPARE(model.indexOfKey(key, WorkspaceTreeModel::LastActivityColumn).data(WorkspaceTreeModel::SortRole),
                 QVariant(later));
        QVERIFY(model.setLastActivity(key, later.addSecs(-60)));
        QCOMPARE(changed.size(), 1); // older: ignored
        QCOMPARE(model.record(model.indexOfKey(key))->info.lastActivityAt, later);
    }

    void refreshUpdatesInPlaceAndKeepsTheSelection_data()
    {
        QTest::addColumn<int>("rows");
        QTest::addColumn<bool>("checked");
        // The model tester checks every row on every signal: 10,000 rows would take minutes.
        QTest::newRow("10,000 rows") << 10'000 << false;
        QTest::newRow("1,000 rows under the model tester") << 1'000 << true;
    }

    void refreshUpdatesInPlaceAndKeepsTheSelection()
    {
        QFETCH(int, rows);
        QFETCH(bool, checked);
        WorkspaceTreeModel model;
        std::optional<QAbstractItemModelTester> tester;
        if (checked)
            tester.emplace(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QList<WorkspaceRecord> records = many(rows);
        model.update(QStringLiteral("local"), records);
        QCOMPARE(model.workspaceCount(), rows);

        QItemSelectionModel selection(&model);
        const QStringList chosen{QStringLiteral("local\x1fws-00003"), QStringLiteral("local\x1fws-00242"),
                                 QStringLiteral("local\x1fws-%1").arg(rows - 1, 5, 10, QLatin1Char('0'))};
        for (const QString &key : chosen)
            selection.select(model.indexOfKey(key), QItemSelectionModel::Select | QItemSelectionModel::Rows);
        selection.setCurrentIndex(model.indexOfKey(chosen.at(1)), QItemSelectionModel::NoUpdate);
        const QPersistentModelIndex userGroup = model.indexOfKey(chosen.at(1)).parent().parent();

        // 1% changes: 0.4% change state, 0.3% vanish, 0.3% new ones arrive.
        const int step = rows / 1000;
        for (int i = 0; i < 4 * step; ++i)
            records[i * 97 + 1].info.state = SandboxState::Paused;
        for (int i = 0; i < 3 * step; ++i)
            records.removeAt(i * 50 + 300);
        for (int i = 0; i < 3 * step; ++i)
            records.append(
                record(QStringLiteral("new-%1").arg(i), QStringLiteral("user-%1").arg(i), QStringLiteral("agent-new")));

        QSignalSpy reset(&model, &QAbstractItemModel::modelAboutToBeReset);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        model.update(QStringLiteral("local"), records);
        QCOMPARE(reset.count(), 0);
        QCOMPARE(removed.count(), 3 * step);
        QVERIFY(inserted.count() >= 3 * step); // a new agent group per user, then its row
        QVERIFY(changed.count() >= 4 * step);
        QCOMPARE(model.workspaceCount(), rows);

        // The selection, the current row and the group index all still point at the same rows.
        QStringList selectedKeys;
        for (const QModelIndex &index : selection.selectedRows())
            selectedKeys.append(index.data(WorkspaceTreeModel::KeyRole).toString());
        selectedKeys.sort();
        QCOMPARE(selectedKeys, chosen);
        QCOMPARE(selection.currentIndex().data(WorkspaceTreeModel::KeyRole).toString(), chosen.at(1));
        QVERIFY(userGroup.isValid());
        QCOMPARE(userGroup.data().toString(), QStringLiteral("user-2")); // 242 % 40

        // A changed row shows its new state.
        QCOMPARE(
            model.indexOfKey(QStringLiteral("local\x1fws-00001"), WorkspaceTreeModel::StateColumn).data().toString(),
            QStringLiteral("Paused"));
    }

    void aRowMovesWhenItsAgentChangesAndEmptyGroupsGo()
    {
        WorkspaceTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.update(QStringLiteral("p"),
                     {record(QStringLiteral("a"), QStringLiteral("u"), QStringLiteral("x"), SandboxState::Running,
                             QStringLiteral("p")),
                      record(QStringLiteral("b"), QStringLiteral("v"), QStringLiteral("y"), SandboxState::Running,
                             QStringLiteral("p"))});
        model.update(QStringLiteral("p"),
                     {record(QStringLiteral("a"), QStringLiteral("u"), QStringLiteral("z"), SandboxState::Running,
                             QStringLiteral("p"))});
        QCOMPARE(childNames(model), QStringList{QStringLiteral("u")});
        QCOMPARE(childNames(model, model.index(0, 0)), QStringList{QStringLiteral("z")});
        model.removeProfile(QStringLiteral("p"));
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.workspaceCount(), 0);
    }

    // Rows come and go in runs: one rowsAboutToBeRemoved per run of neighbouring rows under each
    // parent (each costs a view or proxy a walk over all of its persistent indexes), the new rows
    // of a group in one insertion at its end, a user group whose rows all went in one removal with
    // its agent groups; kept rows, the selection and persistent indexes follow them. Under the
    // model tester, on the model and on the sorting proxy above it, in "All profiles" and flat.
    void rowsGoAndComeInRunsUnderSeveralParents_data()
    {
        QTest::addColumn<bool>("grouped");
        QTest::newRow("grouped") << true;
        QTest::newRow("flat") << false;
    }

    void rowsGoAndComeInRunsUnderSeveralParents()
    {
        QFETCH(bool, grouped);
        WorkspaceTreeModel model;
        model.setProfileGroups(true);
        model.setGrouped(grouped);
        WorkspaceFilterProxy proxy;
        proxy.setSourceModel(&model);
        proxy.sort(WorkspaceTreeModel::WorkspaceColumn, Qt::DescendingOrder); // not the model's order
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QString p = QStringLiteral("p");
        const QString q = QStringLiteral("q");
        const auto row = [](const QString &id, const QString &user, const QString &agent, const QString &profile) {
            return record(id, user, agent, SandboxState::Running, profile);
        };
        // Profile p: a0..a7 under (u, x), b0..b5 under (v, y), c0 alone under (w, z); profile q:
        // d0..d3 under (u, x) of its own.
        QList<WorkspaceRecord> pRows;
        for (int i = 0; i < 8; ++i)
            pRows.append(row(QStringLiteral("a%1").arg(i), QStringLiteral("u"), QStringLiteral("x"), p));
        for (int i = 0; i < 6; ++i)
            pRows.append(row(QStringLiteral("b%1").arg(i), QStringLiteral("v"), QStringLiteral("y"), p));
        pRows.append(row(QStringLiteral("c0"), QStringLiteral("w"), QStringLiteral("z"), p));
        QList<WorkspaceRecord> qRows;
        for (int i = 0; i < 4; ++i)
            qRows.append(row(QStringLiteral("d%1").arg(i), QStringLiteral("u"), QStringLiteral("x"), q));
        model.update(p, pRows);
        model.update(q, qRows);
        QCOMPARE(model.workspaceCount(), 19);
        const auto key = [](const QString &profile, const QString &id) -> QString { return profile + u'\x1f' + id; };
        // The parent of a profile's rows, as a path of names ("p/u/x", or "p" when flat).
        const auto path = [&model](const QModelIndex &parent) {
            QStringList names;
            for (QModelIndex at = parent; at.isValid(); at = at.parent()) {
                names.prepend(at.data(WorkspaceTreeModel::KindRole).value<WorkspaceTreeModel::Kind>()
                                      == WorkspaceTreeModel::Kind::Profile
                                  ? at.data(WorkspaceTreeModel::ProfileRole).toString()
                                  : model.data(at).toString());
            }
            return names.join(u'/');
        };
        const QString ux = grouped ? QStringLiteral("p/u/x") : QStringLiteral("p");
        const QString vy = grouped ? QStringLiteral("p/v/y") : QStringLiteral("p");
        QCOMPARE(path(model.indexOfKey(key(p, QStringLiteral("a5"))).parent()), ux);
        QCOMPARE(model.indexOfKey(key(p, QStringLiteral("a5"))).row(), 5);

        // Selected: rows that stay (a4, b2, d1) and rows that go (a2, b5); persistent indexes on
        // rows that stay, on one that goes and on a group.
        QItemSelectionModel selection(&proxy);
        for (const QString &k :
             {key(p, QStringLiteral("a4")), key(p, QStringLiteral("b2")), key(q, QStringLiteral("d1")),
              key(p, QStringLiteral("a2")), key(p, QStringLiteral("b5"))})
            selection.select(proxy.mapFromSource(model.indexOfKey(k)),
                             QItemSelectionModel::Select | QItemSelectionModel::Rows);
        selection.setCurrentIndex(proxy.mapFromSource(model.indexOfKey(key(p, QStringLiteral("b2")))),
                                  QItemSelectionModel::NoUpdate);
        const QPersistentModelIndex a0 = model.indexOfKey(key(p, QStringLiteral("a0")));
        const QPersistentModelIndex a4 = model.indexOfKey(key(p, QStringLiteral("a4")));
        const QPersistentModelIndex b3 = model.indexOfKey(key(p, QStringLiteral("b3")));
        const QPersistentModelIndex a2 = model.indexOfKey(key(p, QStringLiteral("a2")));
        const QPersistentModelIndex proxyB3 = proxy.mapFromSource(b3);
        const QPersistentModelIndex groupY = model.indexOfKey(key(p, QStringLiteral("b3"))).parent();

        // Gone: a1-a3 (a run), a5, a7 and a6 moving to agent t (together the run a5-a7), b0 (a
        // row alone), b4-b5 (a run at the end), c0 (its agent and user groups with it); new: n0
        // and n1 under (u, x), n2 under (v, y). Profile q keeps its rows.
        QList<WorkspaceRecord> next;
        for (const char *id : {"a0", "a4"})
            next.append(row(QString::fromLatin1(id), QStringLiteral("u"), QStringLiteral("x"), p));
        next.append(row(QStringLiteral("a6"), QStringLiteral("u"), QStringLiteral("t"), p));
        for (const char *id : {"b1", "b2", "b3"})
            next.append(row(QString::fromLatin1(id), QStringLiteral("v"), QStringLiteral("y"), p));
        next.append(row(QStringLiteral("n0"), QStringLiteral("u"), QStringLiteral("x"), p));
        next.append(row(QStringLiteral("n1"), QStringLiteral("u"), QStringLiteral("x"), p));
        next.append(row(QStringLiteral("n2"), QStringLiteral("v"), QStringLiteral("y"), p));

        QStringList removals; // "parent first-last", as announced
        QStringList insertions;
        QObject::connect(&model, &QAbstractItemModel::rowsAboutToBeRemoved, &model,
                         [&](const QModelIndex &parent, int first, int last) {
                             removals.append(QStringLiteral("%1 %2-%3").arg(path(parent)).arg(first).arg(last));
                         });
        QObject::connect(&model, &QAbstractItemModel::rowsInserted, &model,
                         [&](const QModelIndex &parent, int first, int last) {
                             insertions.append(QStringLiteral("%1 %2-%3").arg(path(parent)).arg(first).arg(last));
                         });
        QSignalSpy reset(&model, &QAbstractItemModel::modelAboutToBeReset);
        QSignalSpy layout(&model, &QAbstractItemModel::layoutAboutToBeChanged);
        model.update(p, next);
        QCOMPARE(reset.count(), 0);
        QCOMPARE(layout.count(), 0);
        removals.sort();
        insertions.sort();
        if (grouped) {
            QCOMPARE(removals,
                     (QStringList{QStringLiteral("p 2-2"), QStringLiteral("p/u/x 1-3"), QStringLiteral("p/u/x 5-7"),
                                  QStringLiteral("p/v/y 0-0"), QStringLiteral("p/v/y 4-5")}));
            // The new agent group t (its row, then a6 in it), and each group's new rows at its end.
            QCOMPARE(insertions,
                     (QStringList{QStringLiteral("p/u 0-0"), QStringLiteral("p/u/t 0-0"), QStringLiteral("p/u/x 2-3"),
                                  QStringLiteral("p/v/y 3-3")}));
            QCOMPARE(childNames(model, model.indexOfProfileGroup(p)),
                     (QStringList{QStringLiteral("u"), QStringLiteral("v")}));
        } else {
            // One list under p: a1-a3, a5-a7 (a6 stays in it: flat, an agent moves no row), b0,
            // b4-b5 with c0 after them.
            QCOMPARE(removals,
                     (QStringList{QStringLiteral("p 1-3"), QStringLiteral("p 12-14"), QStringLiteral("p 5-5"),
                                  QStringLiteral("p 7-8")}));
            QCOMPARE(insertions, (QStringList{QStringLiteral("p 6-8")}));
        }
        QCOMPARE(model.workspaceCount(), 13);

        // The rows that stay are where their parents say, with their new row numbers.
        QVERIFY(a0.isValid());
        QCOMPARE(a0.row(), 0);
        QCOMPARE(a4.data(WorkspaceTreeModel::KeyRole).toString(), key(p, QStringLiteral("a4")));
        QCOMPARE(a4.row(), 1);
        QCOMPARE(b3.data(WorkspaceTreeModel::KeyRole).toString(), key(p, QStringLiteral("b3")));
        QCOMPARE(b3.row(), grouped ? 2 : 5);
        QCOMPARE(proxyB3.data(WorkspaceTreeModel::KeyRole).toString(), key(p, QStringLiteral("b3")));
        QVERIFY(!a2.isValid());
        QVERIFY(groupY.isValid());
        QCOMPARE(QModelIndex(groupY), QModelIndex(b3).parent());
        for (const QString &id : {QStringLiteral("a0"), QStringLiteral("a4"), QStringLiteral("a6"),
                                  QStringLiteral("b1"), QStringLiteral("b2"), QStringLiteral("b3"),
                                  QStringLiteral("n0"), QStringLiteral("n1"), QStringLiteral("n2")}) {
            const QModelIndex index = model.indexOfKey(key(p, id));
            QVERIFY2(index.isValid(), qPrintable(id));
            QCOMPARE(model.index(index.row(), 0, index.parent()), index);
            QCOMPARE(model.record(index)->info.sandboxId, id);
        }
        for (const QString &id : {QStringLiteral("a1"), QStringLiteral("a5"), QStringLiteral("a7"),
                                  QStringLiteral("b0"), QStringLiteral("b5"), QStringLiteral("c0")})
            QVERIFY2(!model.indexOfKey(key(p, id)).isValid(), qPrintable(id));
        if (grouped) {
            QCOMPARE(
                childNames(model, model.indexOfKey(key(p, QStringLiteral("a0"))).parent()),
                (QStringList{QStringLiteral("a0"), QStringLiteral("a4"), QStringLiteral("n0"), QStringLiteral("n1")}));
            QCOMPARE(path(model.indexOfKey(key(p, QStringLiteral("a6"))).parent()), QStringLiteral("p/u/t"));
        } else {
            QCOMPARE(childNames(model, model.indexOfProfileGroup(p)),
                     (QStringList{QStringLiteral("a0"), QStringLiteral("a4"), QStringLiteral("a6"),
                                  QStringLiteral("b1"), QStringLiteral("b2"), QStringLiteral("b3"),
                                  QStringLiteral("n0"), QStringLiteral("n1"), QStringLiteral("n2")}));
        }
        // Profile q untouched; the counts follow.
        QCOMPARE(model.rowCount(model.indexOfProfileGroup(q)), grouped ? 1 : 4);
        QCOMPARE(model.recordsUnder(model.indexOfProfileGroup(q)).size(), 4);
        QCOMPARE(model.indexOfProfileGroup(p).siblingAtColumn(WorkspaceTreeModel::StateColumn).data().toString(),
                 QStringLiteral("9 Running"));

        // The selection: the rows that stay, and the current row.
        QStringList selectedKeys;
        for (const QModelIndex &index : selection.selectedRows())
            selectedKeys.append(index.data(WorkspaceTreeModel::KeyRole).toString());
        selectedKeys.sort();
        QCOMPARE(
            selectedKeys,
            (QStringList{key(p, QStringLiteral("a4")), key(p, QStringLiteral("b2")), key(q, QStringLiteral("d1"))}));
        QCOMPARE(selection.currentIndex().data(WorkspaceTreeModel::KeyRole).toString(), key(p, QStringLiteral("b2")));
    }

    void profilesAreSeparate()
    {
        WorkspaceTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.update(QStringLiteral("one"),
                     {record(QStringLiteral("same-id"), QStringLiteral("u"), QStringLiteral("a"), SandboxState::Running,
                             QStringLiteral("one"))});
        model.update(QStringLiteral("two"),
                     {record(QStringLiteral("same-id"), QStringLiteral("u"), QStringLiteral("a"), SandboxState::Paused,
                             QStringLiteral("two"))});
        QCOMPARE(model.workspaceCount(), 2);
        model.update(QStringLiteral("one"), {});
        QCOMPARE(model.workspaceCount(), 1);
        QCOMPARE(model.indexOfKey(QStringLiteral("two\x1fsame-id"), WorkspaceTreeModel::StateColumn).data().toString(),
                 QStringLiteral("Paused"));
    }

    // "All profiles": a top-level group per profile above the user and agent groups (or the flat
    // list), counting its rows, saying its name, backend and freshness; it stays while its
    // profile has no rows; its texts change with named roles only; in place under the tester.
    void profileGroups()
    {
        WorkspaceTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.update(QStringLiteral("one"),
                     {record(QStringLiteral("a"), QStringLiteral("u"), QStringLiteral("x"), SandboxState::Running,
                             QStringLiteral("one"))});
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        model.setProfileGroups(true); // a rebuild, as setGrouped()
        QCOMPARE(reset.count(), 1);
        QCOMPARE(model.rowCount(), 1);
        const auto group = [](const QString &name, const QString &status, bool warning = false) {
            WorkspaceTreeModel::ProfileGroup shown;
            shown.name = name;
            shown.backend = QStringLiteral("OpenSandbox");
            shown.status = status;
            shown.details = warning ? QStringLiteral("connection refused") : QString();
            shown.warning = warning;
            return shown;
        };
        model.setProfileGroup(QStringLiteral("one"), group(QStringLiteral("Beta"), QStringLiteral("updated 3 s ago")));
        model.setProfileGroup(QStringLiteral("two"),
                              group(QStringLiteral("Alpha"),
                                    QStringLiteral("⚠ cannot reach "
                                                   "the server"),
                                    true));
        // In name order; the profile with no rows stays, with its problem, in colour.
        QCOMPARE(childNames(model),
                 (QStringList{QStringLiteral("Alpha — ⚠ cannot reach the server"),
                              QStringLiteral("Beta — updated 3 s ago")}));
        const QModelIndex two = model.indexOfProfileGroup(QStringLiteral("two"));
        QCOMPARE(two.row(), 0);
        QCOMPARE(two.data(WorkspaceTreeModel::KindRole).value<WorkspaceTreeModel::Kind>(),
                 WorkspaceTreeModel::Kind::Profile);
        QCOMPARE(two.data(WorkspaceTreeModel::ProfileRole).toString(), QStringLiteral("two"));
        QVERIFY(two.data(Qt::ForegroundRole).isValid());
        QCOMPARE(two.data(Qt::ToolTipRole).toString(),
                 QStringLiteral("Profile Alpha\nBackend: OpenSandbox\n⚠ cannot reach the server\nconnection refused"));
        QCOMPARE(two.data(Qt::AccessibleDescriptionRole), two.data(Qt::ToolTipRole));
        QCOMPARE(two.siblingAtColumn(WorkspaceTreeModel::BackendColumn).data().toString(),
                 QStringLiteral("OpenSandbox"));
        const QModelIndex one = model.indexOfProfileGroup(QStringLiteral("one"));
        QVERIFY(!one.data(Qt::ForegroundRole).isValid());
        // Under it, the usual user and agent groups.
        QCOMPARE(childNames(model, one), QStringList{QStringLiteral("u")});
        QCOMPARE(childNames(model, model.index(0, 0, one)), QStringList{QStringLiteral("x")});

        // A listing of "two": its rows under its group, counted there and nowhere else.
        model.update(QStringLiteral("two"),
                     {record(QStringLiteral("a"), QStringLiteral("u"), QStringLiteral("x"), SandboxState::Paused,
                             QStringLiteral("two")),
                      record(QStringLiteral("b"), QStringLiteral("v"), QStringLiteral("y"), SandboxState::Running,
                             QStringLiteral("two"))});
        QCOMPARE(reset.count(), 1); // in place
        QCOMPARE(model.recordsUnder(two).size(), 2);
        QCOMPARE(two.siblingAtColumn(WorkspaceTreeModel::StateColumn).data().toString(),
                 QStringLiteral("1 Running · 1 Paused"));
        QCOMPARE(one.siblingAtColumn(WorkspaceTreeModel::StateColumn).data().toString(), QStringLiteral("1 Running"));

        // A new freshness: only its texts, with their roles (a proxy sorts nothing again).
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setProfileGroup(QStringLiteral("one"), group(QStringLiteral("Beta"), QStringLiteral("updated 4 s ago")));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.constFirst().at(0).toModelIndex(), one);
        QVERIFY(!changed.constFirst().at(2).value<QList<int>>().isEmpty());
        model.setProfileGroup(QStringLiteral("one"), group(QStringLiteral("Beta"), QStringLiteral("updated 4 s ago")));
        QCOMPARE(changed.count(), 1); // the same: nothing

        // Its rows all gone: the user and agent groups go, the profile's stays.
        model.update(QStringLiteral("one"), {});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.rowCount(model.indexOfProfileGroup(QStringLiteral("one"))), 0);
        QCOMPARE(model.indexOfProfileGroup(QStringLiteral("one"))
                     .siblingAtColumn(WorkspaceTreeModel::StateColumn)
                     .data()
                     .toString(),
                 QString()); // nothing to count

        // Flat: the rows right under their profile's group.
        model.setGrouped(false);
        QCOMPARE(model.rowCount(model.indexOfProfileGroup(QStringLiteral("two"))), 2);
        QCOMPARE(model.rowCount(model.indexOfProfileGroup(QStringLiteral("one"))), 0);
        model.update(QStringLiteral("two"),
                     {record(QStringLiteral("b"), QStringLiteral("v"), QStringLiteral("y"), SandboxState::Running,
                             QStringLiteral("two"))});
        QCOMPARE(model.indexOfProfileGroup(QStringLiteral("two"))
                     .siblingAtColumn(WorkspaceTreeModel::StateColumn)
                     .data()
                     .toString(),
                 QStringLiteral("1 Running"));
        model.setGrouped(true);

        // A profile no longer shown goes with its rows; then one profile again.
        model.removeProfileGroup(QStringLiteral("two"));
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.workspaceCount(), 0);
        model.setProfileGroups(false);
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(!model.indexOfProfileGroup(QStringLiteral("one")).isValid());
    }

    void countdownsTickOnTwoColumnsForRowsWithADeadline()
    {
        WorkspaceTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QDateTime now(QDate(2026, 11, 30), QTime(12, 0), Qt::UTC);
        model.setClock([&now] { return now; });
        WorkspaceRecord expiring = record(QStringLiteral("e"), QStringLiteral("u"), QStringLiteral("a"));
        expiring.info.expiresAt = now.addSecs(3725);
        expiring.idleDeadline = now.addSecs(65);
        WorkspaceRecord forever = record(QStringLiteral("f"), QStringLiteral("u"), QStringLiteral("a"));
        WorkspaceRecord paused =
            record(QStringLiteral("g"), QStringLiteral("u"), QStringLiteral("a"), SandboxState::Paused);
        paused.idleDeadline = now.addSecs(30); // not held open: no idle countdown
        model.update(QStringLiteral("local"), {expiring, forever, paused});

        const QModelIndex expiry = model.indexOfKey(QStringLiteral("local\x1f"
                                                                   "e"),
                                                    WorkspaceTreeModel::ExpiryColumn);
        const QModelIndex idle = model.indexOfKey(QStringLiteral("local\x1f"
                                                                 "e"),
                                                  WorkspaceTreeModel::IdleColumn);
        QCOMPARE(expiry.data().toString(), QStringLiteral("1 h 02 min"));
        QCOMPARE(idle.data().toString(), QStringLiteral("1 min 05 s"));
        // Colour thresholds: amber under five minutes, red under one; none further out. Each
        // countdown says when in words, for screen readers.
        QCOMPARE(idle.data(Qt::ForegroundRole).value<QColor>(), QColor(0xb4, 0x53, 0x09));
        {
            // On a dark window the same amber is a lighter one, read when painted.
            QApplication::setPalette(ColorScheme::darkPalette());
            const auto light = qScopeGuard([] { QApplication::setPalette(QPalette()); });
            QVERIFY(idle.data(Qt::ForegroundRole).value<QColor>().lightness() > 128);
        }
        QCOMPARE(idle.data(Qt::ForegroundRole).value<QColor>(), QColor(0xb4, 0x53, 0x09));
        QVERIFY(!expiry.data(Qt::ForegroundRole).isValid());
        QVERIFY(expiry.data(Qt::AccessibleDescriptionRole).toString().startsWith(QLatin1String("Expires at ")));
        QVERIFY(idle.data(Qt::AccessibleDescriptionRole).toString().startsWith(QLatin1String("Paused for idleness")));
        QCOMPARE(model
                     .indexOfKey(QStringLiteral("local\x1f"
                                                "f"),
                                 WorkspaceTreeModel::ExpiryColumn)
                     .data()
                     .toString(),
                 QStringLiteral("never"));
        QCOMPARE(model
                     .indexOfKey(QStringLiteral("local\x1f"
                                                "g"),
                                 WorkspaceTreeModel::IdleColumn)
                     .data()
                     .toString(),
                 QString());

        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        now = now.addSecs(70);
        model.tick();
        // Rows e (expiry and idle) and g (expiry? no: none) -> one run: row e only.
        QCOMPARE(changed.count(), 1);
        const QModelIndex from = changed.constFirst().at(0).toModelIndex();
        const QModelIndex to = changed.constFirst().at(1).toModelIndex();
        QCOMPARE(from.column(), int(WorkspaceTreeModel::IdleColumn));
        QCOMPARE(to.column(), int(WorkspaceTreeModel::ExpiryColumn));
        QCOMPARE(from.data(WorkspaceTreeModel::KeyRole).toString(),
                 QStringLiteral("local\x1f"
                                "e"));
        QCOMPARE(to.row(), from.row());
        // The tick names its roles: the text, the tooltip and the colour, never the sort value.
        QCOMPARE(changed.constFirst().at(2).value<QList<int>>(),
                 (QList<int>{Qt::DisplayRole, Qt::ToolTipRole, Qt::ForegroundRole}));
        QCOMPARE(idle.data(Qt::ForegroundRole).value<QColor>(), QColor(0xb9, 0x1c, 0x1c)); // due
        QCOMPARE(idle.data().toString(), QStringLiteral("due, waiting for the backend"));
        QCOMPARE(expiry.data().toString(), QStringLiteral("1 h 00 min")); // 3655 s
    }

    // A paused E2B sandbox: its timer is stopped (pausedAt, no expiresAt). It says so instead of
    // ticking or "never", since when in its tooltip, never ticks, sorts after every countdown and
    // before "never", and counts down again once resumed.
    void aPausedSandboxWhoseTimerIsStopped()
    {
        WorkspaceTreeModel model;
        QDateTime now(QDate(2026, 12, 1), QTime(12, 0), Qt::UTC);
        model.setClock([&now] { return now; });
        model.setGrouped(false);
        WorkspaceFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        WorkspaceRecord running = record(QStringLiteral("r"), QStringLiteral("u"), QStringLiteral("a"));
        running.info.backend = QStringLiteral("e2b");
        running.info.expiresAt = now.addSecs(3725);
        WorkspaceRecord stopped =
            record(QStringLiteral("s"), QStringLiteral("u"), QStringLiteral("a"), SandboxState::Paused);
        stopped.info.backend = QStringLiteral("e2b");
        stopped.info.pausedAt = now.addSecs(-7200);
        WorkspaceRecord stoppedLater = stopped;
        stoppedLater.info.sandboxId = stoppedLater.info.workspaceId = QStringLiteral("t");
        stoppedLater.info.pausedAt = now.addSecs(-60);
        WorkspaceRecord forever = record(QStringLiteral("f"), QStringLiteral("u"), QStringLiteral("a"));
        model.update(QStringLiteral("local"), {forever, stoppedLater, running, stopped});

        const auto expiryOf = [&model](const char *id) {
            return model.indexOfKey(QStringLiteral("local\x1f") + QLatin1String(id), WorkspaceTreeModel::ExpiryColumn);
        };
        const QModelIndex cell = expiryOf("s");
        QCOMPARE(cell.data().toString(), QStringLiteral("timer stopped"));
        const QString since = QLocale().toString(stopped.info.pausedAt.toLocalTime(), QLocale::LongFormat);
        QVERIFY2(cell.data(Qt::ToolTipRole).toString().startsWith(QStringLiteral("Paused since ") + since),
                 qPrintable(cell.data(Qt::ToolTipRole).toString()));
        QVERIFY(cell.data(Qt::ToolTipRole).toString().contains(QLatin1String("resumed")));
        QCOMPARE(cell.data(Qt::AccessibleDescriptionRole).toString(), cell.data(Qt::ToolTipRole).toString());
        QCOMPARE(cell.data(Qt::ForegroundRole).value<QColor>(), QColor(0x8a, 0x8a, 0x8a));
        QVERIFY(!cell.data(WorkspaceTreeModel::DeadlineRole).toDateTime().isValid());
        QCOMPARE(expiryOf("f").data().toString(), QStringLiteral("never"));
        QCOMPARE(expiryOf("r").data().toString(), QStringLiteral("1 h 02 min"));

        // Sorted by "Expires in": the countdown, the stopped timers (the longest stopped first),
        // then what never expires; the other way round descending.
        proxy.sort(WorkspaceTreeModel::ExpiryColumn, Qt::AscendingOrder);
        QCOMPARE(childNames(proxy),
                 (QStringList{QStringLiteral("r"), QStringLiteral("s"), QStringLiteral("t"), QStringLiteral("f")}));
        proxy.sort(WorkspaceTreeModel::ExpiryColumn, Qt::DescendingOrder);
        QCOMPARE(childNames(proxy),
                 (QStringList{QStringLiteral("f"), QStringLiteral("t"), QStringLiteral("s"), QStringLiteral("r")}));

        // A tick an hour later touches the countdown only.
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        now = now.addSecs(3600);
        model.tick();
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.constFirst().at(0).toModelIndex().data(WorkspaceTreeModel::KeyRole).toString(),
                 QStringLiteral("local\x1fr"));
        QCOMPARE(cell.data().toString(), QStringLiteral("timer stopped"));

        // Resumed: a new timeout counts down, in place.
        changed.clear();
        stopped.info.state = SandboxState::Running;
        stopped.info.rawState = QStringLiteral("running");
        stopped.info.pausedAt = QDateTime();
        stopped.info.expiresAt = now.addSecs(300);
        model.update(QStringLiteral("local"), {forever, stoppedLater, running, stopped});
        QCOMPARE(cell.data().toString(), QStringLiteral("5 min 00 s"));
        QVERIFY(!cell.data(Qt::ToolTipRole).toString().contains(QLatin1String("stopped")));
        QVERIFY(std::any_of(changed.cbegin(), changed.cend(), [](const QList<QVariant> &arguments) {
            return arguments.at(0).toModelIndex().column() <= WorkspaceTreeModel::ExpiryColumn
                && arguments.at(1).toModelIndex().column() >= WorkspaceTreeModel::ExpiryColumn;
        }));
        // (descending: 300 s left before r's 125 s)
        QCOMPARE(childNames(proxy),
                 (QStringList{QStringLiteral("f"), QStringLiteral("t"), QStringLiteral("s"), QStringLiteral("r")}));
    }

    void flatListAndBack()
    {
        WorkspaceTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.update(QStringLiteral("local"), many(100));
        model.setGrouped(false);
        QCOMPARE(model.rowCount(), 100);
        QCOMPARE(model.rowCount(model.index(0, 0)), 0);
        model.update(QStringLiteral("local"), many(90));
        QCOMPARE(model.rowCount(), 90);
        model.setGrouped(true);
        QCOMPARE(model.rowCount(), 40);
        QCOMPARE(model.workspaceCount(), 90);
    }

    // CPU and Memory: a figure where one was reported, a grey dash with a reason where none was;
    // dataChanged on those two columns of the rows that changed only; sorted with every absent
    // figure after every figure, in either order.
    void metricsColumns()
    {
        WorkspaceTreeModel model;
        model.setGrouped(false);
        WorkspaceFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QString local = QStringLiteral("local");
        model.setCapabilities(local, Capability::Metrics);
        model.update(local,
                     {record(QStringLiteral("a"), QStringLiteral("u"), QStringLiteral("x")),
                      record(QStringLiteral("b"), QStringLiteral("u"), QStringLiteral("x")),
                      record(QStringLiteral("c"), QStringLiteral("u"), QStringLiteral("x")),
                      record(QStringLiteral("d"), QStringLiteral("u"), QStringLiteral("x"))});
        const auto cell = [&model](const QString &id, int column, int role = Qt::DisplayRole) {
            return model.indexOfKey(QStringLiteral("local\x1f") + id, column).data(role);
        };
        // Nothing asked yet: absent, and said so.
        QCOMPARE(cell(QStringLiteral("a"), WorkspaceTreeModel::CpuColumn).toString(), QStringLiteral("\u2014"));
        QCOMPARE(cell(QStringLiteral("a"), WorkspaceTreeModel::CpuColumn, Qt::ForegroundRole).value<QColor>(),
                 QColor(0x8a, 0x8a, 0x8a));
        QVERIFY(!cell(QStringLiteral("a"), WorkspaceTreeModel::CpuColumn, Qt::ToolTipRole).toString().isEmpty());
        QVERIFY(!cell(QStringLiteral("a"), WorkspaceTreeModel::MemoryColumn, WorkspaceTreeModel::SortRole).isValid());

        const QDateTime at(QDate(2026, 12, 6), QTime(2, 0), Qt::UTC);
        SandboxMetrics a{QStringLiteral("a"), at, 12.5, qint64(256) << 20, qint64(1) << 30};
        SandboxMetrics b{QStringLiteral("b"), at, 150.0, qint64(3) << 20, std::nullopt};
        SandboxMetrics c{QStringLiteral("c"), at, std::nullopt, qint64(10) << 20, std::nullopt}; // no CPU figure
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        // "d" is not in view: not asked, not touched.
        model.setMetrics(local, {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}, {a, b, c});
        // a, b and c are neighbours: one signal for the three rows, on the two columns.
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed.first().at(0).value<QModelIndex>(),
                 model.indexOfKey(QStringLiteral("local\x1f"
                                                 "a"),
                                  WorkspaceTreeModel::CpuColumn));
        QCOMPARE(changed.first().at(1).value<QModelIndex>(),
                 model.indexOfKey(QStringLiteral("local\x1f"
                                                 "c"),
                                  WorkspaceTreeModel::MemoryColumn));
        const QLocale locale;
        QCOMPARE(cell(QStringLiteral("a"), WorkspaceTreeModel::CpuColumn).toString(),
                 locale.toString(12.5, 'f', 1) + u'%');
        QCOMPARE(cell(QStringLiteral("a"), WorkspaceTreeModel::MemoryColumn).toString(),
                 locale.formattedDataSize(qint64(256) << 20, 0, QLocale::DataSizeIecFormat) + QStringLiteral(" / ")
                     + locale.formattedDataSize(qint64(1) << 30, 0, QLocale::DataSizeIecFormat));
        QCOMPARE(cell(QStringLiteral("a"), WorkspaceTreeModel::MemoryColumn).toString(),
                 QStringLiteral("256 MiB / 1 GiB"));
        QCOMPARE(cell(QStringLiteral("b"), WorkspaceTreeModel::MemoryColumn).toString(), QStringLiteral("3 MiB"));
        QCOMPARE(cell(QStringLiteral("c"), WorkspaceTreeModel::CpuColumn).toString(), QStringLiteral("\u2014"));
        QCOMPARE(cell(QStringLiteral("c"), WorkspaceTreeModel::MemoryColumn).toString(), QStringLiteral("10 MiB"));
        QCOMPARE(cell(QStringLiteral("d"), WorkspaceTreeModel::CpuColumn).toString(), QStringLiteral("\u2014"));
        QVERIFY(model.metrics(QStringLiteral("local\x1f"
                                             "a")));

        // The same figures again: nothing changes.
        changed.clear();
        model.setMetrics(local, {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}, {a, b, c});
        QCOMPARE(changed.size(), 0);
        // a and c change, b does not: two signals, one row each.
        a.cpuPercent = 13.0;
        c.memoryBytes = qint64(11) << 20;
        model.setMetrics(local, {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}, {a, b, c});
        QCOMPARE(changed.size(), 2);
        for (const auto &signal : changed)
            QCOMPARE(signal.at(0).value<QModelIndex>().row(), signal.at(1).value<QModelIndex>().row());
        a.cpuPercent = 12.5;
        c.memoryBytes = qint64(10) << 20;
        model.setMetrics(local, {QStringLiteral("a"), QStringLiteral("c")}, {a, c});

        // CPU, ascending then descending: the absent ones (c, d) last either way.
        proxy.sort(WorkspaceTreeModel::CpuColumn, Qt::AscendingOrder);
        QStringList order = childNames(proxy);
        QCOMPARE(order.mid(0, 2), (QStringList{QStringLiteral("a"), QStringLiteral("b")}));
        QCOMPARE(QSet<QString>(order.cbegin() + 2, order.cend()),
                 (QSet<QString>{QStringLiteral("c"), QStringLiteral("d")}));
        proxy.sort(WorkspaceTreeModel::CpuColumn, Qt::DescendingOrder);
        order = childNames(proxy);
        QCOMPARE(order.mid(0, 2), (QStringList{QStringLiteral("b"), QStringLiteral("a")}));
        proxy.sort(WorkspaceTreeModel::MemoryColumn, Qt::DescendingOrder);
        QCOMPARE(childNames(proxy).mid(0, 3),
                 (QStringList{QStringLiteral("a"), QStringLiteral("c"), QStringLiteral("b")}));
        QCOMPARE(childNames(proxy).at(3), QStringLiteral("d"));

        // A row asked for and not reported (it paused): absent again.
        model.setMetrics(local, {QStringLiteral("b")}, {});
        QCOMPARE(cell(QStringLiteral("b"), WorkspaceTreeModel::CpuColumn).toString(), QStringLiteral("\u2014"));
        QCOMPARE(cell(QStringLiteral("a"), WorkspaceTreeModel::CpuColumn).toString(),
                 locale.toString(12.5, 'f', 1) + u'%');

        // A server that does not report them: the note is the absent cells' tooltip.
        model.setMetricsNote(local, QStringLiteral("Not reported by this server"));
        QCOMPARE(cell(QStringLiteral("d"), WorkspaceTreeModel::MemoryColumn, Qt::ToolTipRole).toString(),
                 QStringLiteral("Not reported by this server"));
        // A backend without the capability says so.
        model.setMetricsNote(local, {});
        model.setCapabilities(local, {});
        QCOMPARE(cell(QStringLiteral("d"), WorkspaceTreeModel::MemoryColumn, Qt::ToolTipRole).toString(),
                 QStringLiteral("Not reported by this backend"));
    }

    void countdownText()
    {
        QCOMPARE(WorkspaceTreeModel::formatCountdown(35), QStringLiteral("35 s"));
        QCOMPARE(WorkspaceTreeModel::formatCountdown(250), QStringLiteral("4 min 10 s"));
        QCOMPARE(WorkspaceTreeModel::formatCountdown(3900), QStringLiteral("1 h 05 min"));
        QCOMPARE(WorkspaceTreeModel::formatCountdown(2 * 86400 + 7200), QStringLiteral("2 d 2 h"));
    }

    void relativeTimeText()
    {
        const QDateTime now(QDate(2026, 11, 30), QTime(12, 0));
        const auto text = [&now](const QDateTime &when) { return WorkspaceTreeModel::formatRelative(when, now); };
        QCOMPARE(text(now.addSecs(-30)), QStringLiteral("just now"));
        QCOMPARE(text(now.addSecs(20)), QStringLiteral("just now")); // a clock a little ahead
        QCOMPARE(text(now.addSecs(-180)), QStringLiteral("3 min ago"));
        QCOMPARE(text(now.addSecs(-3599)), QStringLiteral("59 min ago"));
        QCOMPARE(text(now.addSecs(-2 * 3600)), QStringLiteral("2 h ago"));
        QCOMPARE(text(now.addSecs(-23 * 3600)), QStringLiteral("23 h ago"));
        QCOMPARE(text(QDateTime(QDate(2026, 11, 29), QTime(10, 0))), QStringLiteral("yesterday"));
        QCOMPARE(text(QDateTime(QDate(2026, 11, 27), QTime(18, 0))), QStringLiteral("3 days ago"));
        QCOMPARE(text(QDateTime(QDate(2026, 11, 20), QTime(8, 0))),
                 QLocale().toString(QDate(2026, 11, 20), QLocale::ShortFormat));
    }

    void relativeTimesTickOnlyWhenTheirTextChanges()
    {
        WorkspaceTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QDateTime now(QDate(2026, 11, 30), QTime(12, 0));
        model.setClock([&now] { return now; });
        WorkspaceRecord recent = record(QStringLiteral("r"), QStringLiteral("u"), QStringLiteral("a"));
        recent.info.lastActivityAt = now.addSecs(-58);
        WorkspaceRecord old = record(QStringLiteral("o"), QStringLiteral("u"), QStringLiteral("a"));
        old.info.lastActivityAt = now.addDays(-10);
        model.update(QStringLiteral("local"), {recent, old});
        const QModelIndex active =
            model.indexOfKey(QStringLiteral("local\x1fr"), WorkspaceTreeModel::LastActivityColumn);
        QCOMPARE(active.data().toString(), QStringLiteral("just now"));
        // The time itself in the tooltip; sorted by the time, not the text.
        QCOMPARE(active.data(Qt::ToolTipRole).toString(),
                 QLocale().toString(recent.info.lastActivityAt, QLocale::LongFormat));
        QCOMPARE(active.data(WorkspaceTreeModel::SortRole).toDateTime(), recent.info.lastActivityAt);

        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.tick(); // the first: nothing changed in the last second
        now = now.addSecs(1);
        model.tick();
        QCOMPARE(changed.count(), 0);
        now = now.addSecs(1); // 60 s
        model.tick();
        QCOMPARE(changed.count(), 1);
        const QModelIndex from = changed.constFirst().at(0).toModelIndex();
        const QModelIndex to = changed.constFirst().at(1).toModelIndex();
        QCOMPARE(from.column(), int(WorkspaceTreeModel::LastActivityColumn));
        QCOMPARE(to.column(), int(WorkspaceTreeModel::CreatedColumn));
        QCOMPARE(from.data(WorkspaceTreeModel::KeyRole).toString(), QStringLiteral("local\x1fr"));
        QCOMPARE(to.row(), from.row());
        QCOMPARE(changed.constFirst().at(2).value<QList<int>>(), QList<int>{Qt::DisplayRole});
        QCOMPARE(active.data().toString(), QStringLiteral("1 min ago"));
        // Nothing more until the next minute.
        changed.clear();
        now = now.addSecs(30);
        model.tick();
        QCOMPARE(changed.count(), 0);
        now = now.addSecs(30);
        model.tick();
        QCOMPARE(changed.count(), 1);
        QCOMPARE(active.data().toString(), QStringLiteral("2 min ago"));
    }
};

QTEST_MAIN(TestWorkspaceTreeModel)
#include "tst_workspacetreemodel.moc"
