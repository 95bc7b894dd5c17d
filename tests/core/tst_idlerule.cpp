#include "idlerule.h"

#include <QTest>

using namespace Paddock;
using namespace std::chrono_literals;

// The one idle rule of the console's triage and paddockctl sweep: the newest known activity
// (the backend's or what the caller saw), else the creation; activity older than the sandbox
// counts as its creation; nothing known, nothing judged.
class TestIdleRule final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void since_data()
    {
        // Offsets in seconds before now; 0: no such time.
        QTest::addColumn<qint64>("created");
        QTest::addColumn<qint64>("listed");
        QTest::addColumn<qint64>("seen");
        QTest::addColumn<qint64>("expected");
        QTest::addColumn<int>("basis");
        QTest::newRow("nothing known") << qint64(0) << qint64(0) << qint64(0) << qint64(0) << int(IdleBasis::Unknown);
        QTest::newRow("only the creation")
            << qint64(7200) << qint64(0) << qint64(0) << qint64(7200) << int(IdleBasis::Created);
        QTest::newRow("the backend's activity")
            << qint64(7200) << qint64(600) << qint64(0) << qint64(600) << int(IdleBasis::Listed);
        QTest::newRow("sessions newer than the backend's")
            << qint64(7200) << qint64(600) << qint64(60) << qint64(60) << int(IdleBasis::Seen);
        QTest::newRow("backend's newer than sessions")
            << qint64(7200) << qint64(60) << qint64(600) << qint64(60) << int(IdleBasis::Listed);
        QTest::newRow("only sessions (OpenSandbox, Docker)")
            << qint64(7200) << qint64(0) << qint64(300) << qint64(300) << int(IdleBasis::Seen);
        QTest::newRow("activity older than the sandbox")
            << qint64(600) << qint64(0) << qint64(7200) << qint64(600) << int(IdleBasis::CreatedAfterActivity);
        QTest::newRow("activity without a creation time")
            << qint64(0) << qint64(300) << qint64(0) << qint64(300) << int(IdleBasis::Listed);
    }

    void since()
    {
        QFETCH(qint64, created);
        QFETCH(qint64, listed);
        QFETCH(qint64, seen);
        QFETCH(qint64, expected);
        QFETCH(int, basis);
        const QDateTime now(QDate(2026, 12, 1), QTime(12, 0, 0), Qt::UTC);
        const auto ago = [&now](qint64 seconds) { return seconds == 0 ? QDateTime() : now.addSecs(-seconds); };
        SandboxInfo info;
        info.createdAt = ago(created);
        info.lastActivityAt = ago(listed);
        const IdleSince idle = idleSince(info, ago(seen));
        QCOMPARE(int(idle.basis), basis);
        QCOMPARE(idle.since, ago(expected));
        QCOMPARE(idle.isKnown(), expected != 0);
    }

    void idleLongerThanIsStrictAndNeedsATime()
    {
        const QDateTime now(QDate(2026, 12, 1), QTime(12, 0, 0), Qt::UTC);
        SandboxInfo info;
        info.createdAt = now.addSecs(-60);
        const IdleSince idle = idleSince(info);
        QVERIFY(idle.idleLongerThan(59s, now));
        QVERIFY(!idle.idleLongerThan(60s, now)); // exactly as long is not longer
        QVERIFY(idle.idleLongerThan(60s, now.addMSecs(1)));
        QVERIFY(!IdleSince{}.idleLongerThan(0s, now)); // nothing known is never idle
    }

    void timesInOtherZonesAreInstants()
    {
        // A local-time creation and a UTC activity compare as instants.
        const QDateTime now(QDate(2026, 12, 1), QTime(12, 0, 0), Qt::UTC);
        SandboxInfo info;
        info.createdAt = now.addSecs(-3600).toOffsetFromUtc(8 * 3600);
        const IdleSince idle = idleSince(info, now.addSecs(-7200));
        QCOMPARE(idle.basis, IdleBasis::CreatedAfterActivity);
        QCOMPARE(idle.since, now.addSecs(-3600));
    }
};

QTEST_GUILESS_MAIN(TestIdleRule)
#include "tst_idlerule.moc"
