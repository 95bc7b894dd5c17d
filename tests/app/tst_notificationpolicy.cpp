// What the console notifies and when, without D-Bus, on injected clocks: the policy's grouping,
// in-place updates, rate limit, mute and deduplication, with its texts in English and Chinese;
// ExpiryWatch's thresholds, once per deadline, re-armed by a renewal, folded on first sight and
// across clock jumps (forward and back), following a real WorkspaceTreeModel's rows.

#include "expirywatch.h"
#include "i18n.h"
#include "notificationcenter.h"
#include "notificationpolicy.h"
#include "profile.h"
#include "profilesession.h"
#include "workspacetreemodel.h"

#include <QLoggingCategory>
#include <QSignalSpy>
#include <QTest>

using namespace Paddock;
using namespace std::chrono_literals;

namespace {

NotificationEvent notice(const QString &profile, NotificationEvent::Kind kind, const QStringList &ids,
                         std::chrono::seconds threshold = 600s)
{
    NotificationEvent e;
    e.profileId = profile;
    e.kind = kind;
    e.workspaceIds = ids;
    e.threshold = threshold;
    return e;
}

SandboxInfo sandbox(const QString &id, std::optional<QDateTime> expires, SandboxState state = SandboxState::Running)
{
    SandboxInfo info;
    info.sandboxId = QStringLiteral("sbx-") + id;
    info.workspaceId = id;
    info.userId = QStringLiteral("u");
    info.agentId = QStringLiteral("a");
    info.state = state;
    info.rawState = sandboxStateName(state);
    info.backend = QStringLiteral("scripted");
    info.createdAt = QDateTime(QDate(2026, 12, 1), QTime(0, 0), Qt::UTC);
    info.expiresAt = expires;
    info.metadata.insert(WorkspaceIdKey, id);
    info.fingerprint = fingerprintOf(info);
    return info;
}

QStringList ids(const QList<ExpiryWatch::Crossing> &crossings, std::chrono::seconds threshold)
{
    QStringList out;
    for (const ExpiryWatch::Crossing &crossing : crossings) {
        if (crossing.threshold == threshold)
            out += crossing.workspaceIds;
    }
    out.sort();
    return out;
}

} // namespace

class TestNotificationPolicy final : public QObject
{
    Q_OBJECT

    qint64 m_mono = 1'000'000;
    qint64 m_wall = QDateTime(QDate(2026, 12, 6), QTime(3, 0), Qt::UTC).toMSecsSinceEpoch();

    NotificationPolicy policy()
    {
        NotificationPolicy p([this] { return m_mono; });
        p.setProfileName(QStringLiteral("prod"), QStringLiteral("Production"));
        return p;
    }

private Q_SLOTS:
    void initTestCase()
    {
        // The English plurals ("1 workspace", "12 workspaces").
        QCOMPARE(useLanguage(QLocale(QLocale::English, QLocale::UnitedStates)), QStringLiteral("en"));
    }

    void groupsWithinTheWindow()
    {
        NotificationPolicy p = policy();
        using Kind = NotificationEvent::Kind;
        p.submit(notice(QStringLiteral("prod"), Kind::ExpiresSoon, {QStringLiteral("ws-1"), QStringLiteral("ws-2")}));
        m_mono += 1500;
        p.submit(notice(QStringLiteral("prod"), Kind::ExpiresSoon, {QStringLiteral("ws-3")}));
        QVERIFY(p.due().isEmpty()); // the window is not over
        QCOMPARE(p.nextDueMs(), std::optional<qint64>(m_mono - 1500 + NotificationPolicy::GroupWindowMs));
        m_mono += 600;
        const QList<Notification> out = p.due();
        QCOMPARE(out.size(), 1);
        QCOMPARE(out.constFirst().summary, QStringLiteral("3 workspaces expire within 10 minutes"));
        QCOMPARE(out.constFirst().body, QStringLiteral("ws-1, ws-2, ws-3\nProfile: Production"));
        QCOMPARE(out.constFirst().workspaceIds,
                 (QStringList{QStringLiteral("ws-1"), QStringLiteral("ws-2"), QStringLiteral("ws-3")}));
        QCOMPARE(out.constFirst().profileId, QStringLiteral("prod"));
        QVERIFY(!out.constFirst().replaces);
        QVERIFY(!out.constFirst().critical);
        QVERIFY(p.due().isEmpty());
        QVERIFY(!p.nextDueMs());

        // Each kind and each threshold is a group of its own; one workspace is named.
        p.submit(notice(QStringLiteral("prod"), Kind::ExpiresSoon, {QStringLiteral("ws-1")}, 60s));
        NotificationEvent failed = notice(QStringLiteral("prod"), Kind::BootstrapFailed, {QStringLiteral("ws-9")});
        failed.detail = QStringLiteral("bootstrap failed (exit 2) for: 'pip install x'\nstderr: no");
        p.submit(failed);
        p.submit(notice(QStringLiteral("prod"), Kind::SweeperClosed, {QStringLiteral("ws-4"), QStringLiteral("ws-5")}));
        m_mono += NotificationPolicy::GroupWindowMs;
        const QList<Notification> three = p.due();
        QCOMPARE(three.size(), 3);
        QCOMPARE(three.at(0).summary, QStringLiteral("Workspace ws-1 expires within 1 minute"));
        QCOMPARE(three.at(0).body, QStringLiteral("Profile: Production"));
        QVERIFY(three.at(0).critical);
        QCOMPARE(three.at(1).summary, QStringLiteral("Bootstrap failed: ws-9"));
        QCOMPARE(three.at(1).body,
                 QStringLiteral("bootstrap failed (exit 2) for: 'pip install x'\nProfile: Production"));
        QCOMPARE(three.at(2).summary, QStringLiteral("2 workspaces were closed for idleness"));
        QCOMPARE(three.at(2).body, QStringLiteral("ws-4, ws-5\nProfile: Production"));
    }

    void manyIdsAreCut()
    {
        NotificationPolicy p = policy();
        QStringList many;
        for (int i = 1; i <= 12; ++i)
            many.append(QStringLiteral("ws-%1").arg(i));
        p.submit(notice(QStringLiteral("prod"), NotificationEvent::Kind::ExpiresSoon, many));
        m_mono += NotificationPolicy::GroupWindowMs;
        const Notification n = p.due().constFirst();
        QCOMPARE(n.summary, QStringLiteral("12 workspaces expire within 10 minutes"));
        QCOMPARE(n.body, QStringLiteral("ws-1, ws-2, ws-3, ws-4, ws-5 and 7 more\nProfile: Production"));
        QCOMPARE(n.workspaceIds.size(), 12);
    }

    void updatesInPlaceUntilClosed()
    {
        NotificationPolicy p = policy();
        using Kind = NotificationEvent::Kind;
        p.submit(notice(QStringLiteral("prod"), Kind::SweeperClosed, {QStringLiteral("a")}));
        m_mono += NotificationPolicy::GroupWindowMs;
        const Notification first = p.due().constFirst();
        QVERIFY(!first.replaces);
        m_mono += 10'000;
        p.submit(notice(QStringLiteral("prod"), Kind::SweeperClosed, {QStringLiteral("b")}));
        m_mono += NotificationPolicy::GroupWindowMs;
        const Notification second = p.due().constFirst();
        QVERIFY(second.replaces);
        QCOMPARE(second.group, first.group);
        QCOMPARE(second.summary, QStringLiteral("2 workspaces were closed for idleness"));
        QCOMPARE(second.workspaceIds, (QStringList{QStringLiteral("a"), QStringLiteral("b")}));
        // Closed on the desktop: the next one is new, with its own ids.
        p.closed(first.group);
        p.submit(notice(QStringLiteral("prod"), Kind::SweeperClosed, {QStringLiteral("c")}));
        m_mono += NotificationPolicy::GroupWindowMs;
        const Notification third = p.due().constFirst();
        QVERIFY(!third.replaces);
        QCOMPARE(third.workspaceIds, QStringList{QStringLiteral("c")});
    }

    void rateLimitFoldsTheRest()
    {
        NotificationPolicy p = policy();
        using Kind = NotificationEvent::Kind;
        // Six groups due at once: three alone, the last slot carries the other three.
        for (int i = 0; i < 6; ++i) {
            p.submit(notice(QStringLiteral("prod"), Kind::ExpiresSoon, {QStringLiteral("ws-%1").arg(i)},
                            std::chrono::minutes(10 + i)));
        }
        m_mono += NotificationPolicy::GroupWindowMs;
        const QList<Notification> out = p.due();
        QCOMPARE(out.size(), NotificationPolicy::RateLimit);
        QCOMPARE(out.at(0).summary, QStringLiteral("Workspace ws-0 expires within 10 minutes"));
        const Notification folded = out.constLast();
        QCOMPARE(folded.summary, QStringLiteral("3 updates from Paddock"));
        QCOMPARE(folded.body,
                 QStringLiteral("Workspace ws-3 expires within 13 minutes\nWorkspace ws-4 expires within 14 "
                                "minutes\nWorkspace ws-5 expires within 15 minutes"));
        QCOMPARE(folded.workspaceIds,
                 (QStringList{QStringLiteral("ws-3"), QStringLiteral("ws-4"), QStringLiteral("ws-5")}));
        // The minute is used up: what comes waits, and folds in.
        p.submit(notice(QStringLiteral("prod"), Kind::Lost, {QStringLiteral("x")}));
        m_mono += NotificationPolicy::GroupWindowMs;
        p.submit(notice(QStringLiteral("prod"), Kind::Lost, {QStringLiteral("y")}));
        m_mono += NotificationPolicy::GroupWindowMs;
        QVERIFY(p.due().isEmpty());
        QCOMPARE(
            p.nextDueMs(),
            std::optional<qint64>(m_mono - 2 * NotificationPolicy::GroupWindowMs + NotificationPolicy::RateWindowMs));
        m_mono += NotificationPolicy::RateWindowMs;
        const QList<Notification> later = p.due();
        QCOMPARE(later.size(), 1);
        QCOMPARE(later.constFirst().summary, QStringLiteral("2 workspaces were lost"));
    }

    void mutedAndNeverTwice()
    {
        NotificationPolicy p = policy();
        using Kind = NotificationEvent::Kind;
        p.submit(notice(QStringLiteral("prod"), Kind::Lost, {QStringLiteral("x")}));
        p.setMuted(QStringLiteral("prod"), true); // what waited goes too
        p.submit(notice(QStringLiteral("prod"), Kind::Lost, {QStringLiteral("z")}));
        m_mono += NotificationPolicy::GroupWindowMs;
        QVERIFY(p.due().isEmpty());
        QCOMPARE(p.pendingGroups(), 0);
        p.setMuted(QStringLiteral("prod"), false);

        // A workspace lost once, told by the manager and by a listing: once.
        p.submit(notice(QStringLiteral("prod"), Kind::Lost, {QStringLiteral("w")}));
        NotificationEvent vanished = notice(QStringLiteral("prod"), Kind::Lost, {QStringLiteral("w")});
        vanished.reason = NotificationEvent::LostReason::Expired;
        p.submit(vanished);
        m_mono += NotificationPolicy::GroupWindowMs;
        QCOMPARE(p.due().size(), 1);
        m_mono += 60'000;
        p.submit(vanished);
        m_mono += NotificationPolicy::GroupWindowMs;
        QVERIFY(p.due().isEmpty());
        // After the window it is a new event.
        m_mono += NotificationPolicy::DedupeWindowMs;
        p.submit(vanished);
        m_mono += NotificationPolicy::GroupWindowMs;
        const QList<Notification> again = p.due();
        QCOMPARE(again.size(), 1);
        QCOMPARE(again.constFirst().summary, QStringLiteral("Workspace w expired"));
    }

    void chineseTexts()
    {
        QCOMPARE(useLanguage(QLocale(QStringLiteral("zh_CN"))), QStringLiteral("zh_CN"));
        NotificationPolicy p = policy();
        p.submit(notice(QStringLiteral("prod"), NotificationEvent::Kind::ExpiresSoon,
                        {QStringLiteral("a"), QStringLiteral("b")}));
        m_mono += NotificationPolicy::GroupWindowMs;
        const Notification n = p.due().constFirst();
        QCOMPARE(useLanguage(QLocale(QLocale::English, QLocale::UnitedStates)), QStringLiteral("en"));
        QCOMPARE(n.summary, QStringLiteral("2 个工作区将在 10 分钟内过期"));
        QCOMPARE(n.body, QStringLiteral("a, b\n配置文件：Production"));
    }

    // Each threshold once per deadline, the shortest of those already crossed when first seen.
    void thresholdsFireOnce()
    {
        ExpiryWatch watch;
        qint64 wall = m_wall;
        qint64 mono = 1000;
        watch.setClocks([&wall] { return wall; }, [&mono] { return mono; });
        const auto advance = [&](qint64 ms) {
            wall += ms;
            mono += ms;
        };
        const qint64 ws1Deadline = wall + 30 * 60'000;
        watch.upsert(QStringLiteral("p"), QStringLiteral("s1"), QStringLiteral("ws-1"), ws1Deadline);
        watch.upsert(QStringLiteral("p"), QStringLiteral("s2"), QStringLiteral("ws-2"), wall + 5 * 60'000);
        watch.upsert(QStringLiteral("p"), QStringLiteral("s3"), QStringLiteral("ws-3"), wall + 30'000);
        watch.upsert(QStringLiteral("p"), QStringLiteral("s4"), QStringLiteral("ws-4"), std::nullopt);
        watch.upsert(QStringLiteral("p"), QStringLiteral("s5"), QStringLiteral("ws-5"), wall - 1000); // expired
        QCOMPARE(watch.runningCount(), 5);
        auto crossed = watch.check();
        QCOMPARE(ids(crossed, 600s), QStringList{QStringLiteral("ws-2")});
        QCOMPARE(ids(crossed, 60s), QStringList{QStringLiteral("ws-3")}); // not the 10 minutes too
        QCOMPARE(watch.soonCount(), 2);
        QVERIFY(watch.check().isEmpty());
        advance(4 * 60'000 + 1000); // ws-2 within a minute; ws-3 expired
        crossed = watch.check();
        QCOMPARE(ids(crossed, 60s), QStringList{QStringLiteral("ws-2")});
        QCOMPARE(crossed.size(), 1);
        QCOMPARE(watch.soonCount(), 1);
        advance(60'000);
        QVERIFY(watch.check().isEmpty());
        QCOMPARE(watch.soonCount(), 0);
        // ws-1 reaches 10 minutes, once.
        advance(15 * 60'000);
        QCOMPARE(ids(watch.check(), 600s), QStringList{QStringLiteral("ws-1")});
        advance(1000);
        QVERIFY(watch.check().isEmpty());

        // A renewal (the deadline moved) re-arms it; the same deadline listed again does not.
        watch.upsert(QStringLiteral("p"), QStringLiteral("s1"), QStringLiteral("ws-1"), ws1Deadline + 400);
        QVERIFY(watch.check().isEmpty()); // under a second: the same deadline
        watch.upsert(QStringLiteral("p"), QStringLiteral("s1"), QStringLiteral("ws-1"), wall + 20 * 60'000);
        QVERIFY(watch.check().isEmpty());
        advance(10 * 60'000);
        QCOMPARE(ids(watch.check(), 600s), QStringList{QStringLiteral("ws-1")});
        // Gone and back (another profile shown meanwhile): nothing again.
        watch.remove(QStringLiteral("p"), QStringLiteral("s1"));
        QCOMPARE(watch.runningCount(), 4);
        watch.upsert(QStringLiteral("p"), QStringLiteral("s1"), QStringLiteral("ws-1"), wall + 10 * 60'000);
        QVERIFY(watch.check().isEmpty());
        // Thresholds of the profile's own.
        watch.setThresholds(QStringLiteral("p"), {120s});
        advance(8 * 60'000 + 1);
        QCOMPARE(ids(watch.check(), 120s), QStringList{QStringLiteral("ws-1")});
    }

    // A clock that jumps: forward past several thresholds (one notice each, the shortest; none for
    // a deadline jumped over), back (nothing again).
    void clockJumps()
    {
        ExpiryWatch watch;
        qint64 wall = m_wall;
        qint64 mono = 1000;
        watch.setClocks([&wall] { return wall; }, [&mono] { return mono; });
        for (int i = 0; i < 10; ++i) {
            watch.upsert(QStringLiteral("p"), QStringLiteral("s%1").arg(i), QStringLiteral("ws-%1").arg(i),
                         wall + (20 + i) * 60'000);
        }
        watch.upsert(QStringLiteral("p"), QStringLiteral("late"), QStringLiteral("late"), wall + 60 * 60'000);
        QVERIFY(watch.check().isEmpty());
        // Forward 25 minutes and a half: ws-0..5 are expired (nothing), ws-6 within 1 minute,
        // ws-7..9 within 10 minutes; one notice each.
        QTest::ignoreMessage(QtInfoMsg, QRegularExpression(QStringLiteral("the clock jumped forward by 1529 s")));
        wall += 25 * 60'000 + 30'000;
        mono += 1000;
        auto crossed = watch.check();
        QCOMPARE(watch.jumps(), 1);
        QCOMPARE(ids(crossed, 60s), QStringList{QStringLiteral("ws-6")});
        QCOMPARE(ids(crossed, 600s),
                 (QStringList{QStringLiteral("ws-7"), QStringLiteral("ws-8"), QStringLiteral("ws-9")}));
        // Back 20 minutes, then time passes again over the same instants: nothing again (only
        // the 1-minute notices not given yet, of ws-7 and ws-8; none for what expired in the jump).
        QTest::ignoreMessage(QtInfoMsg, QRegularExpression(QStringLiteral("the clock jumped back by 1201 s")));
        wall -= 20 * 60'000;
        mono += 1000;
        QVERIFY(watch.check().isEmpty());
        QCOMPARE(watch.jumps(), 2);
        QStringList later;
        for (int second = 0; second < 20 * 60 + 90; second += 30) {
            wall += 30'000;
            mono += 30'000;
            for (const ExpiryWatch::Crossing &crossing : watch.check()) {
                QCOMPARE(crossing.threshold, 60s);
                later += crossing.workspaceIds;
            }
        }
        QCOMPARE(later, (QStringList{QStringLiteral("ws-7"), QStringLiteral("ws-8")}));
        QCOMPARE(watch.jumps(), 2);
    }

    // Fed by the tree model's rows: inserted, changed by a listing, removed, the model reset.
    void followsTheModel()
    {
        WorkspaceTreeModel model;
        ExpiryWatch watch;
        qint64 wall = m_wall;
        qint64 mono = 1000;
        watch.setClocks([&wall] { return wall; }, [&mono] { return mono; });
        const QDateTime now = QDateTime::fromMSecsSinceEpoch(wall, Qt::UTC);
        model.update(QStringLiteral("p"),
                     QList<SandboxInfo>{sandbox(QStringLiteral("a"), now.addSecs(300)),
                                        sandbox(QStringLiteral("b"), now.addSecs(3000))},
                     {});
        watch.attach(&model);
        QCOMPARE(watch.watchedCount(), 2);
        QCOMPARE(ids(watch.check(), 600s), QStringList{QStringLiteral("a")});
        // A listing: b renewed closer (a change), c new, a gone.
        model.update(QStringLiteral("p"),
                     QList<SandboxInfo>{sandbox(QStringLiteral("b"), now.addSecs(500)),
                                        sandbox(QStringLiteral("c"), now.addSecs(30), SandboxState::Paused)},
                     {});
        QCOMPARE(watch.watchedCount(), 2);
        QCOMPARE(watch.runningCount(), 1);
        const auto crossed = watch.check();
        QCOMPARE(ids(crossed, 600s), QStringList{QStringLiteral("b")});
        QCOMPARE(ids(crossed, 60s), QStringList{QStringLiteral("c")});
        // The countdown ticks are not rows changing.
        wall += 1000;
        mono += 1000;
        model.setClock([&wall] { return QDateTime::fromMSecsSinceEpoch(wall, Qt::UTC); });
        model.tick();
        QVERIFY(watch.check().isEmpty());
        // Another profile shown, then this one again: nothing again.
        model.removeProfile(QStringLiteral("p"));
        QCOMPARE(watch.watchedCount(), 0);
        model.update(QStringLiteral("p"), QList<SandboxInfo>{sandbox(QStringLiteral("b"), now.addSecs(500))}, {});
        QCOMPARE(watch.watchedCount(), 1);
        QVERIFY(watch.check().isEmpty());
    }

    // The center: a session's events become notices (a bootstrap's failure, not another; the
    // sweeper's closes, not the user's), thresholds go through the policy.
    void sessionEventsAndThresholds()
    {
        NotificationCenter center;
        qint64 wall = m_wall;
        qint64 mono = 1000;
        center.setClocks([&wall] { return wall; }, [&mono] { return mono; });
        Profile profile = Profile::local();
        profile.id = QStringLiteral("prod");
        profile.name = QStringLiteral("Production");
        center.setProfile(profile);
        WorkspaceEvent failed;
        failed.profileId = QStringLiteral("prod");
        failed.workspaceId = QStringLiteral("ws-b");
        failed.kind = WorkspaceEvent::Kind::OpenFailed;
        failed.error = Error::bootstrap(QStringLiteral("bootstrap failed (exit 1) for: 'false'"));
        center.onEvent(failed);
        WorkspaceEvent unreachable = failed;
        unreachable.workspaceId = QStringLiteral("ws-u");
        unreachable.error = Error{Error::Kind::Unreachable, QStringLiteral("no server")};
        center.onEvent(unreachable);
        WorkspaceEvent closed;
        closed.profileId = QStringLiteral("prod");
        closed.workspaceId = QStringLiteral("ws-c");
        closed.kind = WorkspaceEvent::Kind::Closed;
        center.onEvent(closed); // the user's
        closed.actor = WorkspaceEvent::Actor::Sweeper;
        closed.workspaceId = QStringLiteral("ws-s");
        center.onEvent(closed);
        center.workspacesLost(QStringLiteral("prod"), {QStringLiteral("ws-l")},
                              NotificationEvent::LostReason::DeletedElsewhere);
        QCOMPARE(center.policy().pendingGroups(), 3);
        profile.muteNotifications = true;
        center.setProfile(profile);
        QCOMPARE(center.policy().pendingGroups(), 0);
    }
};

QTEST_GUILESS_MAIN(TestNotificationPolicy)
#include "tst_notificationpolicy.moc"
