#include "backends/opensandbox/execdstream.h"

#include <QTest>

using namespace Paddock::OpenSandbox;

namespace {

// A real foreground command's stream: bare JSON frames, blank lines between, chunks not aligned
// with lines.
const QByteArray Stream = R"({"type":"init","text":"cmd-42","timestamp":1750000000000}

{"type":"stdout","text":"hello ","timestamp":1750000000001}

{"type":"ping","text":"pong","timestamp":1750000003000}

{"type":"stderr","text":"oops\n","timestamp":1750000003001}

{"type":"error","error":{"ename":"CommandExecError","evalue":"4","traceback":[]},"timestamp":1750000003002}

)";

QList<ExecdEvent::Type> types(const QList<ExecdEvent> &events)
{
    QList<ExecdEvent::Type> list;
    for (const ExecdEvent &event : events)
        list.append(event.type);
    return list;
}

} // namespace

class TestExecdStream final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void wholeStream()
    {
        ExecdStreamParser parser;
        QList<ExecdEvent> events = parser.feed(Stream);
        events += parser.finish();
        QCOMPARE(types(events),
                 QList<ExecdEvent::Type>({ExecdEvent::Type::Init, ExecdEvent::Type::Stdout, ExecdEvent::Type::Ping,
                                          ExecdEvent::Type::Stderr, ExecdEvent::Type::Error}));
        QCOMPARE(events[0].text, QStringLiteral("cmd-42"));
        QCOMPARE(events[1].text, QStringLiteral("hello "));
        QCOMPARE(events[3].text, QStringLiteral("oops\n"));
        QCOMPARE(events[3].timestamp, 1750000003001);
        QCOMPARE(events[4].errorName, QStringLiteral("CommandExecError"));
        QCOMPARE(execdExitCode(events), 4);
    }

    void splitAnywhere()
    {
        // Every split point, and byte by byte: the same events.
        ExecdStreamParser whole;
        const QList<ExecdEvent> expected = whole.feed(Stream) + whole.finish();
        for (qsizetype cut = 0; cut <= Stream.size(); ++cut) {
            ExecdStreamParser parser;
            QList<ExecdEvent> events = parser.feed(Stream.left(cut));
            events += parser.feed(Stream.mid(cut));
            events += parser.finish();
            QCOMPARE(types(events), types(expected));
        }
        ExecdStreamParser bytewise;
        QList<ExecdEvent> events;
        for (const char byte : Stream)
            events += bytewise.feed(QByteArray(1, byte));
        events += bytewise.finish();
        QCOMPARE(types(events), types(expected));
        QCOMPARE(events[1].text, QStringLiteral("hello "));
    }

    void sseFramingIsAccepted()
    {
        ExecdStreamParser parser;
        const QList<ExecdEvent> events = parser.feed(": keep-alive\r\nevent: message\r\nid: 7\r\nretry: 1000\r\n"
                                                     "data: {\"type\":\"stdout\",\"text\":\"x\"}\r\n\r\n"
                                                     "data:{\"type\":\"execution_complete\",\"execution_time\":12}\n\n")
            + parser.finish();
        QCOMPARE(types(events),
                 QList<ExecdEvent::Type>({ExecdEvent::Type::Stdout, ExecdEvent::Type::ExecutionComplete}));
        QCOMPARE(events[1].executionTimeMs, 12);
        QCOMPARE(execdExitCode(events), 0);
    }

    void lastLineWithoutNewline()
    {
        ExecdStreamParser parser;
        QVERIFY(parser.feed(R"({"type":"execution_complete"})").isEmpty());
        QCOMPARE(types(parser.finish()), QList<ExecdEvent::Type>{ExecdEvent::Type::ExecutionComplete});
    }

    void unknownAndMalformedFramesAreKept()
    {
        ExecdStreamParser parser;
        const QList<ExecdEvent> events = parser.feed("{\"type\":\"result\",\"results\":{}}\nnot json\n[1,2]\n");
        QCOMPARE(types(events),
                 QList<ExecdEvent::Type>(
                     {ExecdEvent::Type::Unknown, ExecdEvent::Type::Malformed, ExecdEvent::Type::Malformed}));
        QCOMPARE(events[0].rawType, QStringLiteral("result"));
        QCOMPARE(events[1].text, QStringLiteral("not json"));
    }

    void exitCodes()
    {
        const auto error = [](const char *value) {
            ExecdEvent event;
            event.type = ExecdEvent::Type::Error;
            event.errorValue = QString::fromLatin1(value);
            return event;
        };
        ExecdEvent complete;
        complete.type = ExecdEvent::Type::ExecutionComplete;
        QCOMPARE(execdExitCode({}), -1); // unknown, never 0
        QCOMPARE(execdExitCode({complete}), 0);
        QCOMPARE(execdExitCode({error("-1")}), -1); // killed by its timeout
        QCOMPARE(execdExitCode({error("exec: \"nope\": not found")}), -1); // failed to start
        QCOMPARE(execdExitCode({error("137")}), 137);
        // A numeric evalue (not a string) is read too.
        ExecdStreamParser parser;
        QCOMPARE(execdExitCode(parser.feed(R"({"type":"error","error":{"ename":"E","evalue":3}})"
                                           "\n")),
                 3);
    }
};

QTEST_GUILESS_MAIN(TestExecdStream)
#include "tst_execdstream.moc"
