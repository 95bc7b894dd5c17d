// runBounded: at most C items in flight, a result per item in item order, no stop at the first
// failure, cancellation between items.

// moc cannot parse <concepts> and <coroutine>, and needs nothing from them.
#ifndef Q_MOC_RUN
#include "bulk.h"

#include <QCoroTask>
#include <QCoroTimer>
#endif

#include <QTest>

using namespace Paddock;
using namespace std::chrono_literals;

class TestBulk : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void boundsConcurrencyAndKeepsOrder()
    {
        QList<int> items;
        for (int i = 0; i < 50; ++i)
            items.append(i);
        int inFlight = 0;
        int maxInFlight = 0;
        QList<qsizetype> finished;
        const auto results = QCoro::waitFor(runBounded<int>(
            items, 4,
            [&](const int &item) -> QCoro::Task<Result<>> {
                maxInFlight = std::max(maxInFlight, ++inFlight);
                co_await QCoro::sleepFor(std::chrono::milliseconds(item % 3));
                --inFlight;
                if (item % 7 == 0)
                    co_return fail(Error::backend(QStringLiteral("item %1 failed").arg(item)));
                co_return Result<>{};
            },
            {}, [&finished](qsizetype index, const Result<> &) { finished.append(index); }));
        QCOMPARE(results.size(), 50);
        QCOMPARE(maxInFlight, 4);
        QCOMPARE(finished.size(), 50);
        for (int i = 0; i < 50; ++i) {
            QCOMPARE(bool(results.at(i)), i % 7 != 0);
            if (!results.at(i))
                QCOMPARE(results.at(i).error().message, QStringLiteral("item %1 failed").arg(i));
        }
    }

    void cancelStopsTheItemsNotYetStarted()
    {
        const QList<int> items{0, 1, 2, 3, 4, 5, 6, 7};
        auto cancel = std::make_shared<CancelToken>();
        int ran = 0;
        const auto results = QCoro::waitFor(runBounded<int>(
            items, 2,
            [&](const int &item) -> QCoro::Task<Result<>> {
                ++ran;
                if (item == 2)
                    cancel->cancel();
                co_await QCoro::sleepFor(1ms);
                co_return Result<>{};
            },
            cancel));
        QCOMPARE(results.size(), 8);
        QCOMPARE(ran, 3); // 0 and 1 at once, then 2, which cancels the rest
        for (int i = 0; i < 8; ++i)
            QCOMPARE(results.at(i) ? Error::Kind::Backend : results.at(i).error().kind,
                     i < 3 ? Error::Kind::Backend : Error::Kind::Cancelled);
    }

    void emptyAndSmallerThanConcurrency()
    {
        const auto none =
            QCoro::waitFor(runBounded<int>({}, 4, [](const int &) -> QCoro::Task<Result<>> { co_return Result<>{}; }));
        QVERIFY(none.isEmpty());
        const auto two = QCoro::waitFor(
            runBounded<int>({1, 2}, 16, [](const int &) -> QCoro::Task<Result<>> { co_return Result<>{}; }));
        QCOMPARE(two.size(), 2);
        QVERIFY(two.at(0) && two.at(1));
    }
};

QTEST_GUILESS_MAIN(TestBulk)
#include "tst_bulk.moc"
