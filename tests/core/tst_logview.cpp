// The log viewer's core: lines split and decoded (bad bytes, NUL, a long line cut at a character
// boundary), the matcher (plain, case, regex, a bad regex), the context filter's rows, and the
// worker-thread search over a real file (batches, from a line onwards, cancel, a 10 MB line).

#include "logview.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Paddock;

class TestLogView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void splitsLines()
    {
        const LogLineView err = splitLogLine("2026-11-30T10:00:00.000Z err it broke");
        QVERIFY(err.structured);
        QCOMPARE(err.kind, LogLine::Kind::Stderr);
        QCOMPARE(err.time, QByteArrayView("2026-11-30T10:00:00.000Z"));
        QCOMPARE(err.text, QByteArrayView("it broke"));
        const LogLineView empty = splitLogLine("2026-11-30T10:00:00.000Z out");
        QVERIFY(empty.structured);
        QVERIFY(empty.text.isEmpty());
        // Anything else is a whole line of output.
        for (const QByteArray &other : {QByteArray("plain text"), QByteArray("2026-11-30T10:00:00.000Z bad tag"),
                                        QByteArray("1234567890123456789012 err x"), QByteArray()}) {
            const LogLineView view = splitLogLine(other);
            QVERIFY(!view.structured);
            QCOMPARE(view.kind, LogLine::Kind::Stdout);
            QCOMPARE(view.text, QByteArrayView(other));
        }
    }

    void decodesBadBytes()
    {
        const DisplayLine bad = decodeLogLine("2026-11-30T10:00:00.000Z out a\xff"
                                              "b",
                                              30);
        QVERIFY(bad.invalidUtf8);
        QCOMPARE(bad.text, QStringLiteral("a\uFFFDb"));
        QCOMPARE(bad.time, QDateTime(QDate(2026, 11, 30), QTime(10, 0), Qt::UTC));
        const DisplayLine replacement = decodeLogLine("a real \xEF\xBF\xBD", 10);
        QVERIFY(!replacement.invalidUtf8);
        // A U+FFFD written as such does not hide a bad byte beside it (tests/fuzz/corpus/fuzz_logline).
        const DisplayLine both = decodeLogLine("a real \xEF\xBF\xBD and a bad \xff", 22);
        QVERIFY(both.invalidUtf8);
        // Nor does a byte order mark, which the decoding drops, make a U+FFFD look like a bad byte.
        QVERIFY(!decodeLogLine("\xEF\xBB\xBF"
                               "a real \xEF\xBF\xBD",
                               13)
                     .invalidUtf8);
        QVERIFY(!decodeLogLine("\xEF\xBB\xBF\xEF\xBB\xBF"
                               "a \xEF\xBF\xBD",
                               11)
                     .invalidUtf8); // the second one is kept, as U+FEFF
        const DisplayLine nul = decodeLogLine(QByteArrayView("a\0b", 3), 3);
        QVERIFY(nul.hasNul);
        QCOMPARE(nul.text, QStringLiteral("a^@b"));
        // Cut inside "中" (3 bytes): the half character is not shown, and counts as hidden.
        const QByteArray chinese = QStringLiteral("ab中").toUtf8();
        const DisplayLine cut = decodeLogLine(QByteArrayView(chinese).first(4), 1000);
        QCOMPARE(cut.text, QStringLiteral("ab"));
        QVERIFY(!cut.invalidUtf8);
        QCOMPARE(cut.hiddenBytes, 998);
        // Cut right after it: the whole character is shown.
        const DisplayLine whole = decodeLogLine(chinese, 1000);
        QCOMPARE(whole.text, QStringLiteral("ab中"));
        QCOMPARE(whole.hiddenBytes, 995);
        // Cut inside a 4-byte character after one continuation byte, and after two.
        const QByteArray emoji = QStringLiteral("a\U0001F600").toUtf8();
        QCOMPARE(decodeLogLine(QByteArrayView(emoji).first(3), 10).text, QStringLiteral("a"));
        QCOMPARE(decodeLogLine(QByteArrayView(emoji).first(4), 10).hiddenBytes, 9);
    }

    void matches()
    {
        const auto plain = LogMatcher::make(QStringLiteral("Error"), false, false);
        QVERIFY(plain.has_value());
        QVERIFY(plain->matches(u"an error here"));
        QVERIFY(!plain->matches(u"all good"));
        const auto ranges = plain->ranges(u"ERROR error");
        QCOMPARE(ranges.size(), size_t(2));
        QCOMPARE(ranges.at(1), (std::pair<qsizetype, qsizetype>(6, 5)));
        const auto exact = LogMatcher::make(QStringLiteral("Error"), false, true);
        QVERIFY(!exact->matches(u"an error here"));
        const auto regex = LogMatcher::make(QStringLiteral("e(r+)or\\s\\d+"), true, false);
        QVERIFY(regex.has_value());
        QVERIFY(regex->matches(u"ERRROR 42"));
        QVERIFY(!regex->matches(u"error x"));
        // An empty match highlights nothing and does not loop.
        const auto emptyMatch = LogMatcher::make(QStringLiteral("x*"), true, false);
        QCOMPARE(emptyMatch->ranges(u"abxxc"), (std::vector<std::pair<qsizetype, qsizetype>>{{2, 2}}));
        const auto broken = LogMatcher::make(QStringLiteral("a[b"), true, false);
        QVERIFY(!broken.has_value());
        QCOMPARE(broken.error().kind, Error::Kind::InvalidArgument);
        QVERIFY(broken.error().message.contains(QLatin1String("4")));
        QVERIFY(LogMatcher::make(QString(), true, false)->isEmpty());
    }

    void filterRows_data()
    {
        QTest::addColumn<int>("context");
        QTest::addColumn<QList<qsizetype>>("matches");
        QTest::addColumn<qsizetype>("lines");
        QTest::addColumn<QList<qsizetype>>("rows");
        QTest::newRow("alone") << 0 << QList<qsizetype>{3, 7} << qsizetype(10) << QList<qsizetype>{3, 7};
        QTest::newRow("context") << 1 << QList<qsizetype>{3, 7} << qsizetype(10) << QList<qsizetype>{2, 3, 4, 6, 7, 8};
        QTest::newRow("touching") << 1 << QList<qsizetype>{3, 5} << qsizetype(10) << QList<qsizetype>{2, 3, 4, 5, 6};
        QTest::newRow("overlapping") << 3 << QList<qsizetype>{3, 5} << qsizetype(10)
                                     << QList<qsizetype>{0, 1, 2, 3, 4, 5, 6, 7, 8};
        QTest::newRow("ends") << 2 << QList<qsizetype>{0, 9} << qsizetype(10) << QList<qsizetype>{0, 1, 2, 7, 8, 9};
    }

    void filterRows()
    {
        QFETCH(int, context);
        QFETCH(QList<qsizetype>, matches);
        QFETCH(qsizetype, lines);
        QFETCH(QList<qsizetype>, rows);
        LogFilterRows filter(context);
        // All at once, and one match at a time, give the same rows.
        const std::vector<qsizetype> all(matches.begin(), matches.end());
        QCOMPARE(filter.addMatches(all, lines), rows.size());
        QCOMPARE(QList<qsizetype>(filter.rows().begin(), filter.rows().end()), rows);
        LogFilterRows stepwise(context);
        for (const qsizetype match : matches)
            stepwise.addMatches(std::span<const qsizetype>(&match, 1), lines);
        QCOMPARE(stepwise.rows(), filter.rows());
        QCOMPARE(filter.rowAtOrAfter(rows.last()), rows.size() - 1);
        QCOMPARE(filter.rowAtOrAfter(rows.last() + 1), rows.size());
    }

    void filterGrowsWithTheLog()
    {
        LogFilterRows filter(2);
        const std::vector<qsizetype> match{4};
        QCOMPARE(filter.addMatches(match, 5), 3); // 2, 3, 4: lines 5 and 6 do not exist yet
        QCOMPARE(filter.grow(6), 1);
        QCOMPARE(filter.grow(100), 1);
        QCOMPARE(filter.grow(200), 0);
        QCOMPARE(filter.rows(), (std::vector<qsizetype>{2, 3, 4, 5, 6}));
    }

    void searchesAFile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("log"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        QList<qint64> starts;
        for (int i = 0; i < 300'000; ++i) {
            starts << file.pos();
            file.write("2026-11-30T10:00:00.000Z out line " + QByteArray::number(i) + (i % 1000 == 7 ? " needle" : "")
                       + '\n');
        }
        starts << file.pos();
        file.write("2026-11-30T10:00:00.000Z out " + QByteArray(10 * 1024 * 1024, 'y') + " needle\n");
        file.write("2026-11-30T10:00:00.000Z out unfinished needle"); // not a complete line: not searched
        file.close();

        LogSearch search;
        QSignalSpy found(&search, &LogSearch::found);
        QSignalSpy finished(&search, &LogSearch::finished);
        search.start(path, *LogMatcher::make(QStringLiteral("NEEDLE"), false, false), 0, 0, 300'001);
        QVERIFY(search.isRunning());
        QVERIFY(finished.wait(60'000));
        QVERIFY(!search.isRunning());
        std::vector<qsizetype> lines;
        for (const QList<QVariant> &batch : std::as_const(found)) {
            const auto part = batch.at(0).value<std::vector<qsizetype>>();
            lines.insert(lines.end(), part.begin(), part.end());
        }
        QCOMPARE(lines.size(), size_t(301));
        QCOMPARE(lines.front(), 7);
        QCOMPARE(lines.at(299), 299'007);
        QCOMPARE(lines.back(), 300'000);
        QCOMPARE(finished.last().at(0).value<qsizetype>(), 300'001);
        QVERIFY(std::is_sorted(lines.begin(), lines.end()));

        // From a line onwards.
        found.clear();
        search.start(path, *LogMatcher::make(QStringLiteral("line 2990\\d\\d needle"), true, true), 250'000,
                     starts.at(250'000), 300'000);
        QVERIFY(finished.wait(60'000));
        QCOMPARE(found.size(), 1);
        QCOMPARE(found.first().at(0).value<std::vector<qsizetype>>(), (std::vector<qsizetype>{299'007}));

        // A search cancelled (or replaced) reports nothing more.
        found.clear();
        finished.clear();
        search.start(path, *LogMatcher::make(QStringLiteral("line"), false, false), 0, 0, 300'001);
        search.cancel();
        QVERIFY(!search.isRunning());
        QVERIFY(!finished.wait(300));
        QVERIFY(found.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestLogView)
#include "tst_logview.moc"
