#include "linesplitter.h"

#include <QTest>

using namespace Paddock;

// LineSplitter: the one place every backend's exec cuts output into lines.
class TestLineSplitter final : public QObject
{
    Q_OBJECT

private:
    struct Seen
    {
        QList<QByteArray> lines;
        qsizetype longest = 0;
    };

    static std::function<void(OutputChannel, const QByteArray &)> collect(Seen &seen)
    {
        return [&seen](OutputChannel, const QByteArray &line) {
            seen.lines.append(line);
            seen.longest = std::max(seen.longest, line.size());
        };
    }

private Q_SLOTS:
    void linesAcrossPiecesAndTheLastWithoutNewline()
    {
        Seen seen;
        const auto onLine = collect(seen);
        QByteArray kept;
        LineSplitter splitter(OutputChannel::Stdout, onLine, kept);
        splitter.feed("one\r\ntw");
        splitter.feed("o\n\nthr");
        splitter.feed("ee");
        QCOMPARE(seen.lines, (QList<QByteArray>{"one", "two", ""}));
        splitter.finish();
        QCOMPARE(seen.lines, (QList<QByteArray>{"one", "two", "", "three"}));
        QCOMPARE(kept, QByteArray("one\r\ntwo\n\nthree"));
    }

    // Output that never writes a newline is passed on in pieces no longer than MaxLine: every
    // byte arrives, in order, and what waits for a newline stays bounded.
    void aLineWithoutEndIsPassedOnInPieces()
    {
        Seen seen;
        const auto onLine = collect(seen);
        QByteArray kept;
        LineSplitter splitter(OutputChannel::Stderr, onLine, kept);
        QByteArray block(64 * 1024, 'x');
        qsizetype fed = 0;
        for (int i = 0; i < 1600; ++i) { // 100 MiB
            block[0] = char('a' + i % 26);
            splitter.feed(block);
            fed += block.size();
        }
        splitter.feed("\r\ntail\n");
        QVERIFY(seen.longest <= LineSplitter::MaxLine);
        qsizetype got = 0;
        for (const QByteArray &line : std::as_const(seen.lines))
            got += line.size();
        QCOMPARE(got, fed + 4); // every byte of the long line and "tail" (a line's \r before its newline is dropped)
        QCOMPARE(seen.lines.last(), QByteArray("tail"));
        QVERIFY(kept.size() <= 2 * LineSplitter::MaxKeptOutput);
    }

    // A piece never ends inside a UTF-8 character.
    void piecesAreCutBetweenCharacters()
    {
        Seen seen;
        const auto onLine = collect(seen);
        QByteArray kept;
        LineSplitter splitter(OutputChannel::Stdout, onLine, kept);
        const QByteArray wide = QStringLiteral("运维").toUtf8(); // 3 bytes each
        QByteArray text;
        while (text.size() < 3 * LineSplitter::MaxLine)
            text += wide;
        splitter.feed(text.left(LineSplitter::MaxLine + 1));
        splitter.feed(text.mid(LineSplitter::MaxLine + 1));
        splitter.finish();
        QByteArray joined;
        for (const QByteArray &line : std::as_const(seen.lines)) {
            QVERIFY(line.size() <= LineSplitter::MaxLine);
            QCOMPARE(line.size() % 3, 0);
            QVERIFY(QString::fromUtf8(line).toUtf8() == line);
            joined += line;
        }
        QCOMPARE(joined, text);
    }
};

QTEST_GUILESS_MAIN(TestLineSplitter)
#include "tst_linesplitter.moc"
