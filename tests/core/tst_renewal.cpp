#include "renewal.h"

#include <QTest>

using namespace Paddock;
using namespace std::chrono_literals;

// What a renewal does to an expiry: Extend adds to it and never shortens; FromNow counts from
// now and says when that comes before the current expiry.
class TestRenewal final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void plan_data()
    {
        QTest::addColumn<int>("mode");
        QTest::addColumn<qint64>("currentIn"); // seconds from now; LLONG_MIN: no expiry
        QTest::addColumn<qint64>("amount");
        QTest::addColumn<qint64>("expectedIn");
        QTest::addColumn<bool>("shortens");
        constexpr qint64 none = std::numeric_limits<qint64>::min();
        const int extend = int(RenewMode::Extend);
        const int fromNow = int(RenewMode::FromNow);
        // The case of the report: 23 h 49 min left, renewed by the old default of 30 min.
        QTest::newRow("extend adds to a far expiry")
            << extend << qint64(23 * 3600 + 49 * 60) << qint64(1800) << qint64(24 * 3600 + 19 * 60) << false;
        QTest::newRow("from now shortens a far expiry")
            << fromNow << qint64(23 * 3600 + 49 * 60) << qint64(1800) << qint64(1800) << true;
        QTest::newRow("from now lengthens a near expiry")
            << fromNow << qint64(600) << qint64(3600) << qint64(3600) << false;
        QTest::newRow("extend of a past expiry counts from now")
            << extend << qint64(-120) << qint64(3600) << qint64(3600) << false;
        QTest::newRow("extend without an expiry counts from now")
            << extend << none << qint64(3600) << qint64(3600) << false;
        QTest::newRow("from now to the same time does not shorten")
            << fromNow << qint64(3600) << qint64(3600) << qint64(3600) << false;
        QTest::newRow("from now one second early shortens")
            << fromNow << qint64(3600) << qint64(3599) << qint64(3599) << true;
    }

    void plan()
    {
        QFETCH(int, mode);
        QFETCH(qint64, currentIn);
        QFETCH(qint64, amount);
        QFETCH(qint64, expectedIn);
        QFETCH(bool, shortens);
        const QDateTime now(QDate(2026, 12, 1), QTime(12, 0, 0), Qt::UTC);
        const std::optional<QDateTime> current = currentIn == std::numeric_limits<qint64>::min()
            ? std::nullopt
            : std::optional<QDateTime>(now.addSecs(currentIn));
        const Renewal renewal = planRenewal(current, now, RenewMode(mode), std::chrono::seconds(amount));
        QCOMPARE(renewal.expiresAt, now.addSecs(expectedIn));
        QCOMPARE(renewal.fromNow.count(), expectedIn);
        QCOMPARE(renewal.shortens, shortens);
    }

    void localTimesAreComparedAsInstants()
    {
        const QDateTime now(QDate(2026, 12, 1), QTime(12, 0, 0), Qt::UTC);
        const QDateTime current = now.addSecs(7200).toOffsetFromUtc(8 * 3600);
        const Renewal renewal = planRenewal(current, now.toOffsetFromUtc(-5 * 3600), RenewMode::Extend, 1h);
        QCOMPARE(renewal.expiresAt, now.addSecs(3 * 3600));
        QCOMPARE(renewal.expiresAt.timeSpec(), Qt::UTC);
        QCOMPARE(renewal.fromNow, 3h);
    }
};

QTEST_GUILESS_MAIN(TestRenewal)
#include "tst_renewal.moc"
