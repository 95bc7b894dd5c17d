#include "workspacemanager.h"

// moc cannot parse <concepts> and <coroutine>, and needs nothing from them.
#ifndef Q_MOC_RUN
#include "fakeprovider.h"
#include <QCoroTask>
#endif

#include <QSignalSpy>
#include <QTest>

#include <vector>

using namespace Paddock;
using namespace PaddockTest;
using namespace std::chrono_literals;

namespace {

WorkspaceRequest request(const QString &user, const QString &agent, const QString &session = {},
                         std::optional<QString> workspaceId = std::nullopt)
{
    return WorkspaceRequest{user, agent, session, std::move(workspaceId)};
}

std::shared_ptr<FakeWorkspace> fake(const Result<WorkspacePtr> &result)
{
    return result ? std::dynamic_pointer_cast<FakeWorkspace>(*result) : nullptr;
}

} // namespace

class TestWorkspaceManager final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sameIdReturnsSameInstanceWhateverTheSession()
    {
        FakeProvider provider;
        WorkspaceManager manager(&provider, {});
        const auto first = QCoro::waitFor(
            manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("a"), QStringLiteral("s1"))));
        const auto second = QCoro::waitFor(
            manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("a"), QStringLiteral("s2"))));
        QVERIFY(first && second);
        QCOMPARE(first->get(), second->get());
        // A hit hands out the cached instance and keeps it cached.
        const auto third = QCoro::waitFor(
            manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("a"), QStringLiteral("s3"))));
        QVERIFY(third && *third);
        QCOMPARE(third->get(), first->get());
        QCOMPARE(manager.cached((*first)->id()).get(), first->get());
        QCOMPARE(provider.requests.size(), 1);
        QCOMPARE((*first)->id(),
                 assignWorkspaceId(IsolationPolicy::PerAgent, QStringLiteral("u"), QStringLiteral("a")));
    }

    void eightConcurrentGetsGiveOneInstance()
    {
        FakeProvider provider;
        WorkspaceManager manager(&provider, {});
        const QString id = assignWorkspaceId(IsolationPolicy::PerAgent, QStringLiteral("u"), QStringLiteral("a"));
        auto gate = provider.gate(id);
        std::vector<QCoro::Task<Result<WorkspacePtr>>> tasks;
        for (int i = 0; i < 8; ++i)
            tasks.push_back(
                manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("a"), QString::number(i))));
        QVERIFY(manager.isProvisioning(id));
        QCOMPARE(provider.requests.size(), 1);
        gate->release();
        QSet<Workspace *> instances;
        for (auto &task : tasks) {
            const auto result = QCoro::waitFor(task);
            QVERIFY(result);
            instances.insert(result->get());
        }
        QCOMPARE(instances.size(), 1);
        QCOMPARE(provider.requests.size(), 1);
        QCOMPARE(manager.cachedCount(), 1);
    }

    void differentIdsProvisionConcurrently()
    {
        FakeProvider provider;
        WorkspaceManager manager(&provider, {});
        // A cached workspace, then a provisioning of A that does not finish.
        QVERIFY(QCoro::waitFor(manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("c")))));
        const QString a = assignWorkspaceId(IsolationPolicy::PerAgent, QStringLiteral("u"), QStringLiteral("a"));
        auto gateA = provider.gate(a);
        auto taskA = manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("a")));
        QVERIFY(manager.isProvisioning(a));

        // B is built, and C is served from the cache, while A is still being built.
        const auto b = QCoro::waitFor(manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("b"))));
        QVERIFY(b);
        QVERIFY(manager.isProvisioning(a));
        const auto c = QCoro::waitFor(manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("c"))));
        QVERIFY(c);
        QVERIFY(manager.isProvisioning(a));
        QCOMPARE(provider.requests.size(), 3);

        gateA->release();
        QVERIFY(QCoro::waitFor(taskA));
        QCOMPARE(manager.cachedCount(), 3);
    }

    void failedProvisioningCachesNothingAndEveryWaiterGetsTheError()
    {
        FakeProvider provider;
        WorkspaceManager manager(&provider, {});
        const QString id = assignWorkspaceId(IsolationPolicy::PerAgent, QStringLiteral("u"), QStringLiteral("a"));
        provider.failures.insert(id, QStringLiteral("bootstrap failed (exit 3) for: 'false'"));
        auto gate = provider.gate(id);
        std::vector<QCoro::Task<Result<WorkspacePtr>>> tasks;
        for (int i = 0; i < 8; ++i)
            tasks.push_back(manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("a"))));
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("provisioning .* failed")));
        gate->release();
        for (auto &task : tasks) {
            const auto result = QCoro::waitFor(task);
            QVERIFY(!result);
            QCOMPARE(result.error(), Error::bootstrap(QStringLiteral("bootstrap failed (exit 3) for: 'false'")));
        }
        QCOMPARE(provider.requests.size(), 1);
        QCOMPARE(manager.cachedCount(), 0);
        QVERIFY(!manager.isProvisioning(id));

        // Nothing was cached, so the next request provisions again.
        provider.failures.clear();
        QVERIFY(QCoro::waitFor(manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("a")))));
        QCOMPARE(provider.requests.size(), 2);
    }

    void explicitIdWinsOverPolicy()
    {
        FakeProvider provider;
        ManagerOptions options;
        options.isolation = IsolationPolicy::PerSession;
        WorkspaceManager manager(&provider, options);
        const auto leader = QCoro::waitFor(manager.getWorkspace(
            request(QStringLiteral("u"), QStringLiteral("lead"), QStringLiteral("s1"), QStringLiteral("team-1"))));
        const auto helper = QCoro::waitFor(manager.getWorkspace(
            request(QStringLiteral("u"), QStringLiteral("helper"), QStringLiteral("s2"), QStringLiteral("team-1"))));
        QVERIFY(leader && helper);
        QCOMPARE((*leader)->id(), QStringLiteral("team-1"));
        QCOMPARE(leader->get(), helper->get());
    }

    void badInputIsRefusedBeforeProvisioning_data()
    {
        QTest::addColumn<QString>("user");
        QTest::addColumn<std::optional<QString>>("workspaceId");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("empty id") << "u" << std::optional<QString>(QString()) << "empty";
        QTest::newRow("slash") << "u" << std::optional<QString>(QStringLiteral("a/b")) << "separator";
        QTest::newRow("backslash") << "u" << std::optional<QString>(QStringLiteral("a\\b")) << "separator";
        QTest::newRow("dotdot") << "u" << std::optional<QString>(QStringLiteral("..")) << "..";
        QTest::newRow("long") << "u" << std::optional<QString>(QString(129, u'a')) << "129";
        QTest::newRow("nul user") << QString(QStringLiteral("u") + QChar(u'\0')) << std::optional<QString>() << "user";
    }

    void badInputIsRefusedBeforeProvisioning()
    {
        QFETCH(QString, user);
        QFETCH(std::optional<QString>, workspaceId);
        QFETCH(QString, mentions);
        FakeProvider provider;
        WorkspaceManager manager(&provider, {});
        const auto result = QCoro::waitFor(manager.getWorkspace(request(user, QStringLiteral("a"), {}, workspaceId)));
        QVERIFY(!result);
        QCOMPARE(result.error().kind, Error::Kind::InvalidArgument);
        QVERIFY2(result.error().message.contains(mentions), qPrintable(result.error().message));
        QVERIFY(provider.requests.isEmpty());
    }

    void sharingUnderEachPolicy()
    {
        FakeProvider provider;
        ManagerOptions perAgent;
        WorkspaceManager agents(&provider, perAgent);
        const auto s1 = QCoro::waitFor(
            agents.getWorkspace(request(QStringLiteral("u"), QStringLiteral("a1"), QStringLiteral("s1"))));
        const auto s2 = QCoro::waitFor(
            agents.getWorkspace(request(QStringLiteral("u"), QStringLiteral("a1"), QStringLiteral("s2"))));
        const auto other = QCoro::waitFor(
            agents.getWorkspace(request(QStringLiteral("u"), QStringLiteral("a2"), QStringLiteral("s1"))));
        QCOMPARE(s1->get(), s2->get());
        QCOMPARE_NE(s1->get(), other->get());

        ManagerOptions perUser;
        perUser.isolation = IsolationPolicy::PerUser;
        WorkspaceManager users(&provider, perUser);
        const auto a1 = QCoro::waitFor(users.getWorkspace(request(QStringLiteral("u"), QStringLiteral("a1"))));
        const auto a2 = QCoro::waitFor(users.getWorkspace(request(QStringLiteral("u"), QStringLiteral("a2"))));
        QCOMPARE(a1->get(), a2->get());
        QCOMPARE((*a1)->id(), *users.assignWorkspaceId(QStringLiteral("u"), QStringLiteral("a1"), {}));
        const auto otherUser = QCoro::waitFor(users.getWorkspace(request(QStringLiteral("v"), QStringLiteral("a1"))));
        QCOMPARE_NE(a1->get(), otherUser->get());

        ManagerOptions perSession;
        perSession.isolation = IsolationPolicy::PerSession;
        WorkspaceManager sessions(&provider, perSession);
        const auto x = QCoro::waitFor(
            sessions.getWorkspace(request(QStringLiteral("u"), QStringLiteral("a1"), QStringLiteral("s1"))));
        const auto y = QCoro::waitFor(
            sessions.getWorkspace(request(QStringLiteral("u"), QStringLiteral("a1"), QStringLiteral("s1"))));
        QCOMPARE_NE((*x)->id(), (*y)->id());
    }

    void sweepEvictsOnlyEntriesIdleStrictlyLongerThanTtl()
    {
        FakeProvider provider;
        auto clock = std::make_shared<ManualClock>();
        ManagerOptions options;
        options.ttl = 10s;
        options.clock = clock;
        WorkspaceManager manager(&provider, options);
        const auto idle =
            fake(QCoro::waitFor(manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("idle")))));
        clock->advance(4s);
        const auto busy =
            fake(QCoro::waitFor(manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("busy")))));

        // The idle countdown the console shows: ttl minus the time since the last access.
        QCOMPARE(manager.idleRemaining(idle->id()), std::optional(std::chrono::milliseconds(6s)));
        QCOMPARE(manager.idleRemaining(busy->id()), std::optional(std::chrono::milliseconds(10s)));
        QCOMPARE(manager.idleRemaining(QStringLiteral("not-cached")), std::nullopt);

        clock->advance(6s); // idle: exactly ttl, not more
        QCOMPARE(manager.idleRemaining(idle->id()), std::optional(std::chrono::milliseconds(0)));
        QCOMPARE(QCoro::waitFor(manager.sweepOnce()), QStringList());
        QCOMPARE(idle->closed, 0);

        clock->advance(1ms);
        QCOMPARE(manager.idleRemaining(idle->id()), std::optional(std::chrono::milliseconds(0)));
        QCOMPARE(QCoro::waitFor(manager.sweepOnce()), QStringList{idle->id()});
        QCOMPARE(manager.idleRemaining(idle->id()), std::nullopt);
        QCOMPARE(idle->closed, 1);
        QCOMPARE(busy->closed, 0);
        QVERIFY(!manager.cached(idle->id()));
        QVERIFY(manager.cached(busy->id()));

        // A hit refreshes the idle clock.
        clock->advance(5s);
        QVERIFY(QCoro::waitFor(manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("busy")))));
        clock->advance(9s);
        QCOMPARE(QCoro::waitFor(manager.sweepOnce()), QStringList());
        QCOMPARE(busy->closed, 0);
    }

    void sweepSurvivesCloseErrors()
    {
        FakeProvider provider;
        auto clock = std::make_shared<ManualClock>();
        ManagerOptions options;
        options.ttl = 1s;
        options.clock = clock;
        WorkspaceManager manager(&provider, options);
        const QString bad = assignWorkspaceId(IsolationPolicy::PerAgent, QStringLiteral("u"), QStringLiteral("bad"));
        provider.failClose.append(bad);
        const auto broken =
            fake(QCoro::waitFor(manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("bad")))));
        const auto good =
            fake(QCoro::waitFor(manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("good")))));
        clock->advance(2s);
        QTest::ignoreMessage(QtWarningMsg,
                             QRegularExpression(QStringLiteral("Failed to close workspace .*close failed on purpose")));
        const QStringList evicted = QCoro::waitFor(manager.sweepOnce());
        QCOMPARE(evicted.size(), 2);
        QCOMPARE(broken->closed, 1);
        QCOMPARE(good->closed, 1);
        QCOMPARE(manager.cachedCount(), 0);
    }

    void sweeperWakesEverySweepIntervalAndRebuildsLater()
    {
        FakeProvider provider;
        auto clock = std::make_shared<ManualClock>();
        ManagerOptions options;
        options.ttl = 1s;
        options.sweepInterval = 10ms;
        options.clock = clock;
        WorkspaceManager manager(&provider, options);
        manager.start();
        QVERIFY(manager.isStarted());
        const auto first =
            fake(QCoro::waitFor(manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("a")))));
        QSignalSpy closedSpy(&manager, &WorkspaceManager::workspaceClosed);
        QSignalSpy ticks(&manager, &WorkspaceManager::sweepFinished);
        // The sweeper ticks on its own but finds nothing idle long enough.
        QTRY_VERIFY(ticks.size() >= 2);
        QCOMPARE(ticks.constFirst().constFirst().toStringList(), QStringList());
        QCOMPARE(first->closed, 0);
        clock->advance(2s);
        QTRY_COMPARE(first->closed, 1);
        QCOMPARE(closedSpy.size(), 1);
        QTRY_COMPARE(ticks.constLast().constFirst().toStringList(), QStringList{first->id()});
        QCOMPARE(manager.cachedCount(), 0);

        const auto second =
            fake(QCoro::waitFor(manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("a")))));
        QCOMPARE_NE(first.get(), second.get());
        QCOMPARE(second->id(), first->id());
        QCoro::waitFor(manager.stop());
    }

    void closeEvictsAndCloses()
    {
        FakeProvider provider;
        WorkspaceManager manager(&provider, {});
        const auto workspace =
            fake(QCoro::waitFor(manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("a")))));
        QVERIFY(QCoro::waitFor(manager.close(workspace->id())));
        QCOMPARE(workspace->closed, 1);
        QCOMPARE(manager.cachedCount(), 0);
        // Closing an id that is not cached does nothing.
        QVERIFY(QCoro::waitFor(manager.close(QStringLiteral("unknown"))));
        QVERIFY(QCoro::waitFor(manager.close(workspace->id())));
        QCOMPARE(workspace->closed, 1);
    }

    void stopWaitsForACloseStartedBeforeIt()
    {
        // close(id) takes the entry out of the cache at once and then pauses: stop() must not
        // return (and let the caller free the backend) while that pause still runs.
        FakeProvider provider;
        provider.closeGate = std::make_shared<Gate>();
        WorkspaceManager manager(&provider, {});
        const auto workspace =
            fake(QCoro::waitFor(manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("a")))));
        auto closing = manager.close(workspace->id());
        QCOMPARE(workspace->closeStarted, 1);
        QCOMPARE(manager.cachedCount(), 0);
        bool stopped = false;
        // Arguments, not captures: a coroutine lambda's captures die with the lambda.
        auto stopping = [](WorkspaceManager *m, bool *done) -> QCoro::Task<void> {
            co_await m->stop();
            *done = true;
        }(&manager, &stopped);
        QVERIFY(!stopped);
        provider.closeGate->release();
        QCoro::waitFor(stopping);
        QVERIFY(stopped);
        QCOMPARE(workspace->closed, 1);
        QVERIFY(QCoro::waitFor(closing));
    }

    void anOpenWaitingForACloseIsRefusedOnceStopBegins()
    {
        // Close W, Open W (it waits for the pause), then quit: the open must not attach again
        // after stop() (the manager would hold a workspace nobody closes).
        FakeProvider provider;
        provider.closeGate = std::make_shared<Gate>();
        WorkspaceManager manager(&provider, {});
        const auto workspace =
            fake(QCoro::waitFor(manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("a")))));
        auto closing = manager.close(workspace->id());
        auto reopening = manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("a")));
        auto stopping = manager.stop();
        provider.closeGate->release();
        QCoro::waitFor(stopping);
        const auto reopened = QCoro::waitFor(reopening);
        QVERIFY(!reopened);
        QCOMPARE(reopened.error().kind, Error::Kind::Cancelled);
        QCOMPARE(manager.cachedCount(), 0);
        QCOMPARE(provider.requests.size(), 1); // nothing provisioned again
        QVERIFY(QCoro::waitFor(closing));
    }

    void aCloseOfAWorkspaceBeingClosedWaitsForThatClose()
    {
        FakeProvider provider;
        provider.closeGate = std::make_shared<Gate>();
        provider.failClose.append(
            assignWorkspaceId(IsolationPolicy::PerAgent, QStringLiteral("u"), QStringLiteral("a")));
        WorkspaceManager manager(&provider, {});
        const auto workspace =
            fake(QCoro::waitFor(manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("a")))));
        QSignalSpy failed(&manager, &WorkspaceManager::closeFailed);
        auto first = manager.close(workspace->id());
        auto second = manager.close(workspace->id()); // the sweeper's, another Close...
        QVERIFY(!second.isReady());
        provider.closeGate->release();
        const auto a = QCoro::waitFor(first);
        const auto b = QCoro::waitFor(second);
        QCOMPARE(workspace->closeStarted, 1); // one pause, not two
        QVERIFY(!a && !b); // both get the close's own result
        QCOMPARE(b.error().message, a.error().message);
        QCOMPARE(failed.size(), 1);
        QCoro::waitFor(manager.stop());
    }

    void killNeedsABackend()
    {
        FakeProvider provider; // no backend to kill in
        WorkspaceManager manager(&provider, {});
        const auto workspace =
            fake(QCoro::waitFor(manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("a")))));
        const auto killed = QCoro::waitFor(manager.kill(workspace->id(), QStringLiteral("sbx")));
        QVERIFY(!killed);
        QCOMPARE(killed.error().kind, Error::Kind::Unsupported);
        QCOMPARE(manager.cachedCount(), 1); // nothing was dropped for a kill that could not happen
        QCoro::waitFor(manager.stop());
    }

    void closeWaitsForAProvisioningOfThatId()
    {
        FakeProvider provider;
        WorkspaceManager manager(&provider, {});
        const QString id = assignWorkspaceId(IsolationPolicy::PerAgent, QStringLiteral("u"), QStringLiteral("a"));
        auto gate = provider.gate(id);
        auto opening = manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("a")));
        auto closing = manager.close(id);
        QVERIFY(!closing.isReady());
        gate->release();
        QVERIFY(QCoro::waitFor(closing));
        QVERIFY(QCoro::waitFor(opening));
        QCOMPARE(provider.built.constFirst()->closed, 1);
        QCOMPARE(manager.cachedCount(), 0);
    }

    void requestDuringCloseWaitsForThePauseThenAttachesAgain()
    {
        FakeProvider provider;
        provider.closeGate = std::make_shared<Gate>();
        WorkspaceManager manager(&provider, {});
        const auto first =
            fake(QCoro::waitFor(manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("a")))));
        auto closing = manager.close(first->id());
        QCOMPARE(first->closeStarted, 1);
        auto reopening = manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("a")));
        // Not served the instance being paused, and no second provisioning while it pauses.
        QVERIFY(!reopening.isReady());
        QCOMPARE(provider.requests.size(), 1);
        provider.closeGate->release();
        QVERIFY(QCoro::waitFor(closing));
        const auto second = fake(QCoro::waitFor(reopening));
        QVERIFY(second);
        QCOMPARE(first->closed, 1);
        QCOMPARE_NE(second.get(), first.get());
        QCOMPARE(provider.requests.size(), 2);
        QCOMPARE(manager.cached(first->id()).get(), second.get());
    }

    void closeAllClosesInParallel()
    {
        FakeProvider provider;
        provider.closeGate = std::make_shared<Gate>();
        WorkspaceManager manager(&provider, {});
        for (int i = 0; i < 5; ++i)
            QVERIFY(QCoro::waitFor(manager.getWorkspace(request(QStringLiteral("u"), QString::number(i)))));
        auto closing = manager.closeAll();
        // Every close has started while none may finish yet: they run side by side.
        for (const auto &workspace : std::as_const(provider.built)) {
            QCOMPARE(workspace->closeStarted, 1);
            QCOMPARE(workspace->closed, 0);
        }
        QVERIFY(!closing.isReady());
        QCOMPARE(manager.cachedCount(), 0);
        provider.closeGate->release();
        QCoro::waitFor(closing);
        for (const auto &workspace : std::as_const(provider.built))
            QCOMPARE(workspace->closed, 1);
    }

    void closeAllSwallowsErrors()
    {
        FakeProvider provider;
        WorkspaceManager manager(&provider, {});
        provider.failClose.append(
            assignWorkspaceId(IsolationPolicy::PerAgent, QStringLiteral("u"), QStringLiteral("x")));
        QVERIFY(QCoro::waitFor(manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("x")))));
        QVERIFY(QCoro::waitFor(manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("y")))));
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("Failed to close workspace")));
        QCoro::waitFor(manager.closeAll());
        QCOMPARE(provider.built[0]->closed, 1);
        QCOMPARE(provider.built[1]->closed, 1);
    }

    void startStopLifecycle()
    {
        FakeProvider provider;
        ManagerOptions options;
        options.sweepInterval = 1h;
        WorkspaceManager manager(&provider, options);
        QVERIFY(!manager.isStarted());
        manager.start();
        manager.start(); // a second start does not add a second sweeper
        QVERIFY(manager.isStarted());
        QVERIFY(QCoro::waitFor(manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("a")))));
        QVERIFY(QCoro::waitFor(manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("b")))));
        QSignalSpy closed(&manager, &WorkspaceManager::workspaceClosed);
        QCoro::waitFor(manager.stop());
        QVERIFY(!manager.isStarted());
        QCOMPARE(closed.size(), 2);
        QCOMPARE(manager.cachedCount(), 0);
        for (const auto &workspace : std::as_const(provider.built))
            QCOMPARE(workspace->closed, 1);
    }

    void stopCanLeaveEverythingRunning()
    {
        FakeProvider provider;
        WorkspaceManager manager(&provider, {});
        manager.start();
        QVERIFY(QCoro::waitFor(manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("a")))));
        const QString id = assignWorkspaceId(IsolationPolicy::PerAgent, QStringLiteral("u"), QStringLiteral("b"));
        auto gate = provider.gate(id);
        auto opening = manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("b")));
        QSignalSpy closed(&manager, &WorkspaceManager::workspaceClosed);
        auto stopping = manager.stop(WorkspaceManager::StopMode::LeaveRunning);
        QVERIFY(!stopping.isReady()); // the provisioning under way finishes first
        gate->release();
        QCoro::waitFor(stopping);
        QVERIFY(QCoro::waitFor(opening));
        QVERIFY(!manager.isStarted());
        QCOMPARE(manager.cachedCount(), 0);
        QCOMPARE(closed.size(), 0);
        QCOMPARE(provider.built.size(), 2);
        for (const auto &workspace : std::as_const(provider.built))
            QCOMPARE(workspace->closeStarted, 0); // nothing paused
    }

    void stopWaitsForProvisioningThenClosesIt()
    {
        FakeProvider provider;
        WorkspaceManager manager(&provider, {});
        manager.start();
        const QString id = assignWorkspaceId(IsolationPolicy::PerAgent, QStringLiteral("u"), QStringLiteral("a"));
        auto gate = provider.gate(id);
        auto opening = manager.getWorkspace(request(QStringLiteral("u"), QStringLiteral("a")));
        auto stopping = manager.stop();
        QVERIFY(!stopping.isReady());
        gate->release();
        QCoro::waitFor(stopping);
        QVERIFY(QCoro::waitFor(opening));
        QCOMPARE(provider.built.constFirst()->closed, 1);
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceManager)
#include "tst_workspacemanager.moc"
