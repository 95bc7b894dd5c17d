// The log index behind the bootstrap log viewer, on real files: lines found by offset, appends
// followed (a last line without a newline grows), budgets that spread a scan, a truncated file
// indexed again, a million lines, a 10 MB line without a newline read in part, bytes kept as
// they are (NUL, invalid UTF-8), and a file deleted while open still read to its end.

#include "logindex.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Paddock;

namespace {

void append(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::Append));
    QCOMPARE(file.write(bytes), bytes.size());
}

} // namespace

class TestLogIndex final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void linesAndAppends()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("a.log"));
        append(path, "first\nsecond\nthi");
        LogIndex index(path);
        auto scanned = index.scan();
        QVERIFY(scanned);
        QCOMPARE(scanned->newLines, 3);
        QCOMPARE(index.lineCount(), 3);
        QCOMPARE(index.line(0), QByteArray("first"));
        QCOMPARE(index.line(1), QByteArray("second"));
        QCOMPARE(index.line(2), QByteArray("thi")); // no newline yet: a line all the same
        QCOMPARE(index.line(3), QByteArray());

        // The last line grows, then new lines come.
        append(path, "rd\nfourth\n");
        scanned = index.scan();
        QVERIFY(scanned);
        QCOMPARE(scanned->newLines, 1);
        QCOMPARE(index.line(2), QByteArray("third"));
        QCOMPARE(index.line(3), QByteArray("fourth"));
        QCOMPARE(index.lineCount(), 4);
        QCOMPARE(index.scan()->newLines, 0);

        // Empty lines are lines.
        append(path, "\n\nlast\n");
        QCOMPARE(index.scan()->newLines, 3);
        QCOMPARE(index.line(4), QByteArray());
        QCOMPARE(index.line(6), QByteArray("last"));
    }

    void budgetsAndTruncation()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("b.log"));
        QByteArray text;
        for (int i = 0; i < 1000; ++i)
            text += "line " + QByteArray::number(i) + '\n';
        append(path, text);
        LogIndex index(path);
        int steps = 0;
        for (;;) {
            auto scanned = index.scan(1000);
            QVERIFY(scanned);
            QCOMPARE(scanned->fileSize, qint64(text.size())); // the whole file's, from the first step
            ++steps;
            if (!scanned->more)
                break;
        }
        QVERIFY(steps > 5);
        QCOMPARE(index.lineCount(), 1000);
        QCOMPARE(index.line(999), QByteArray("line 999"));

        // Replaced by a shorter file: indexed again from the start.
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write("new\n");
        file.close();
        auto scanned = index.scan();
        QVERIFY(scanned && scanned->restarted);
        QCOMPARE(index.lineCount(), 1);
        QCOMPARE(index.line(0), QByteArray("new"));
    }

    void aMillionLines()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("c.log"));
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            QByteArray chunk;
            for (int i = 0; i < 1'000'000; ++i) {
                chunk += "2026-11-30T10:00:00.000Z out line " + QByteArray::number(i) + '\n';
                if (chunk.size() > (1 << 20)) {
                    file.write(chunk);
                    chunk.clear();
                }
            }
            file.write(chunk);
        }
        LogIndex index(path);
        while (index.scan()->more) { }
        QCOMPARE(index.lineCount(), 1'000'000);
        QCOMPARE(index.line(0), QByteArray("2026-11-30T10:00:00.000Z out line 0"));
        QCOMPARE(index.line(765'432), QByteArray("2026-11-30T10:00:00.000Z out line 765432"));
        QCOMPARE(index.line(999'999), QByteArray("2026-11-30T10:00:00.000Z out line 999999"));
    }

    void longLinesAndOddBytes()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("d.log"));
        static constexpr char odd[] = "nul\0byte and \xff\xfe bad UTF-8\n";
        const QByteArray oddLine(odd, sizeof(odd) - 2); // without the newline and the terminator
        append(path, QByteArray(odd, sizeof(odd) - 1));
        append(path, QByteArray(10 * 1024 * 1024, 'x')); // 10 MB, no newline
        LogIndex index(path);
        while (index.scan(1024 * 1024)->more) { }
        QCOMPARE(index.lineCount(), 2);
        QCOMPARE(index.line(0), oddLine);
        bool cut = false;
        QCOMPARE(index.line(1, 4096, &cut), QByteArray(4096, 'x'));
        QVERIFY(cut);
        QCOMPARE(index.lineLength(1), qint64(10 * 1024 * 1024));
    }

    void deletedWhileOpen()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("e.log"));
        append(path, "kept\n");
        LogIndex index(path);
        QVERIFY(index.scan());
        QVERIFY(!index.isDeleted());
        QVERIFY(QFile::remove(path));
        QVERIFY(index.isDeleted());
        QCOMPARE(index.line(0), QByteArray("kept")); // still readable
        // A new file under the same name is another file.
        append(path, "other\n");
        QVERIFY(index.isDeleted());

        LogIndex missing(dir.filePath(QStringLiteral("none.log")));
        QVERIFY(!missing.scan());
    }
};

QTEST_GUILESS_MAIN(TestLogIndex)
#include "tst_logindex.moc"
