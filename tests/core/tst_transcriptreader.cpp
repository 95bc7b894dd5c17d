// The incremental context.jsonl reader and data/ sniffing (src/core/inspect/transcript.h) on the
// AgentScope workspace fixtures (tests/data/agentscope-workspace) and on hand-made lines.
#include "inspect/secretmask.h"
#include "inspect/transcript.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace Paddock::Inspect;

namespace {

const QString Fixtures = QStringLiteral(AGENTSCOPE_FIXTURES);
const QString Sandbox1 = QStringLiteral("sandbox/workspace/sessions/6f1c2a9e4b7d4e0f9a3c5b8d2e1f0a47/context.jsonl");
const QString Sandbox2 = QStringLiteral("sandbox/workspace/sessions/b83e07d5c21a4f6e8d9b0a1c2e3f4d5a/context.jsonl");
const QString Local = QStringLiteral("local/sessions/c4a2e6081b3d4f57a9c1e3b5d7f90a2b/context.jsonl");
const QString Damaged = QStringLiteral("broken/context-damaged/context.jsonl");

QByteArray fixture(const QString &relative)
{
    QFile file(Fixtures + QLatin1Char('/') + relative);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read fixture %s", qPrintable(relative));
    return file.readAll();
}

QList<TranscriptMessage> read(const QByteArray &bytes, qsizetype chunk = 0,
                              TranscriptReader::Options options = TranscriptReader::Options())
{
    TranscriptReader reader(options);
    QList<TranscriptMessage> messages;
    if (chunk <= 0)
        chunk = qMax<qsizetype>(1, bytes.size());
    for (qsizetype at = 0; at < bytes.size(); at += chunk) {
        reader.feed(QByteArrayView(bytes).sliced(at, qMin(chunk, bytes.size() - at)));
        messages += reader.takeMessages();
    }
    reader.finish();
    messages += reader.takeMessages();
    return messages;
}

QByteArray asJson(const QList<TranscriptMessage> &messages)
{
    QJsonArray array;
    for (const TranscriptMessage &message : messages)
        array.append(message.toJson());
    return QJsonDocument(array).toJson(QJsonDocument::Compact);
}

TranscriptReader::Options sessionOptions(const QString &sessionId, const QString &workdir = QString())
{
    TranscriptReader::Options options;
    options.sessionId = sessionId;
    options.recordedWorkdir = workdir;
    return options;
}

using Type = TranscriptBlock::Type;

} // namespace

class TestTranscriptReader : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sandboxSessionWithTruncatedResult()
    {
        const QList<TranscriptMessage> messages = read(fixture(Sandbox1));
        QCOMPARE(messages.size(), 4);
        const TranscriptMessage &user = messages.at(0);
        QCOMPARE(user.kind, TranscriptMessage::Kind::Message);
        QCOMPARE(user.role, QStringLiteral("user"));
        QCOMPARE(user.firstLine, 1);
        QCOMPARE(user.offset, 0);
        QCOMPARE(user.createdAt, QStringLiteral("2026-08-21T09:12:03.418277"));
        QVERIFY(!user.usage);
        QCOMPARE(user.blocks.size(), size_t(2));
        const TranscriptBlock &data = user.blocks.at(0);
        QCOMPARE(data.type, Type::Data);
        QCOMPARE(data.name, QStringLiteral("q3-revenue.png"));
        QCOMPARE(data.mediaType, QStringLiteral("image/png"));
        QCOMPARE(data.dataFiles,
                 QStringList{"data/e216a0c2a06cdbf5a548d6901b544807f9d5b533201e018b3b9923672222e096.png"});
        QVERIFY(QFile::exists(Fixtures + QStringLiteral("/sandbox/workspace/") + data.dataFiles.at(0)));
        QCOMPARE(data.createdAt, QStringLiteral("2026-08-21T09:20:43.527316"));

        const TranscriptMessage &reply = messages.at(1);
        QCOMPARE(reply.role, QStringLiteral("assistant"));
        QCOMPARE(reply.name, QStringLiteral("Friday"));
        QCOMPARE(reply.usage->inputTokens, 18342);
        QCOMPARE(reply.usage->outputTokens, 611);
        QCOMPARE(reply.usage->cacheInputTokens, 12288);
        QCOMPARE(reply.usage->cacheCreationInputTokens, 0);
        QCOMPARE(reply.blocks.size(), size_t(7));
        QCOMPARE(reply.blocks.at(0).type, Type::Thinking);
        QCOMPARE(reply.blocks.at(1).type, Type::Text);
        const TranscriptBlock &bash = reply.blocks.at(2);
        QCOMPARE(bash.type, Type::ToolCall);
        QCOMPARE(bash.toolName, QStringLiteral("Bash"));
        QCOMPARE(bash.state, QStringLiteral("finished"));
        QVERIFY(bash.input.startsWith(QStringLiteral("{\"command\"")));
        QVERIFY(bash.inputPretty.contains(QStringLiteral("\n  \"command\": \"ls -l")));
        QCOMPARE(bash.pairedBlock, 3);
        QCOMPARE(reply.blocks.at(3).type, Type::ToolResult);
        QCOMPARE(reply.blocks.at(3).pairedBlock, 2);
        QVERIFY(!reply.blocks.at(3).truncated);
        QVERIFY(reply.blocks.at(3).children.at(0).text.contains(QStringLiteral("q3_apac.csv")));

        const TranscriptBlock &search = reply.blocks.at(5);
        QCOMPARE(search.type, Type::ToolResult);
        QCOMPARE(search.pairedBlock, 4);
        QVERIFY(search.truncated);
        QCOMPARE(search.truncatedPath,
                 QStringLiteral("/workspace/sessions/6f1c2a9e4b7d4e0f9a3c5b8d2e1f0a47/"
                                "tool_result-call_Hn4kP8sD2fG6jL0qW5eR9tY3.txt"));
        QCOMPARE(search.truncatedFile,
                 QStringLiteral("sessions/6f1c2a9e4b7d4e0f9a3c5b8d2e1f0a47/"
                                "tool_result-call_Hn4kP8sD2fG6jL0qW5eR9tY3.txt"));
        QVERIFY(QFile::exists(Fixtures + QStringLiteral("/sandbox/workspace/") + search.truncatedFile));
        const QString kept = search.children.at(0).text;
        QVERIFY(!kept.contains(QStringLiteral("TRUNCATED")));
        QVERIFY(!kept.contains(QStringLiteral("system-reminder")));
        QVERIFY(kept.endsWith(QStringLiteral("Decimal(r[\"amount\"])\n")));

        const TranscriptMessage &edit = messages.at(3);
        QCOMPARE(edit.blocks.at(0).text, QStringLiteral("好的，我把结论写进项目 README。"));
        QCOMPARE(edit.blocks.at(1).toolName, QStringLiteral("Edit"));
        QVERIFY(edit.blocks.at(1).inputPretty.contains(QStringLiteral("结论")));
        QVERIFY(edit.blocks.at(2).metadataJson.contains(QStringLiteral("\"diff\"")));
        QCOMPARE(edit.blocks.at(2).pairedBlock, 1);
    }

    void sameIdLinesAreMerged()
    {
        const QList<TranscriptMessage> messages = read(fixture(Sandbox2));
        QCOMPARE(messages.size(), 3);
        const TranscriptMessage &reply = messages.at(1);
        QCOMPARE(reply.id, QStringLiteral("3b5d7f9a1c3e4a5b7d9f1a3c5e7b9d0f"));
        QCOMPARE(reply.lineCount, 2);
        QCOMPARE(reply.firstLine, 2);
        QCOMPARE(reply.lastLine, 3);
        QCOMPARE(reply.blocks.size(), size_t(8));
        QCOMPARE(reply.blocks.at(0).type, Type::Thinking);
        QCOMPARE(reply.blocks.at(0).extraKeys, QStringList{"signature"});
        QVERIFY(!reply.blocks.at(0).toJson().contains(QStringLiteral("signature")));
        QVERIFY(!asJson(messages).contains("EqQBCkYIBxgCKkB0"));
        // the screenshot's result names the offloaded image in a text reminder
        const TranscriptBlock &shot = reply.blocks.at(4);
        QCOMPARE(shot.type, Type::ToolResult);
        QCOMPARE(shot.children.at(1).dataFiles,
                 QStringList{"data/66c95792335b8c2bd8fd8bc3b629e3b7b4e3dafb175a5396df078a4b74c392df.png"});
        // pairs across the two merged lines' blocks
        QCOMPARE(reply.blocks.at(5).toolName, QStringLiteral("Write"));
        QCOMPARE(reply.blocks.at(5).pairedBlock, 6);
        QCOMPARE(messages.at(2).firstLine, 4);
        QCOMPARE(messages.at(2).role, QStringLiteral("user"));
    }

    void olderLinesAndFileUrls()
    {
        const QList<TranscriptMessage> messages =
            read(fixture(Local), 0, sessionOptions(QString(), QStringLiteral("/home/dev/paddock-ws/agent-1")));
        QCOMPARE(messages.size(), 3);
        const TranscriptBlock &data = messages.at(0).blocks.at(0);
        QCOMPARE(data.type, Type::Data);
        QVERIFY(data.url.startsWith(QStringLiteral("file:///home/dev/paddock-ws/agent-1/data/")));
        QVERIFY(data.createdAt.isEmpty()); // v2.0.5: no block timestamps
        QCOMPARE(data.dataFiles,
                 QStringList{"data/e216a0c2a06cdbf5a548d6901b544807f9d5b533201e018b3b9923672222e096.png"});
        QVERIFY(QFile::exists(Fixtures + QStringLiteral("/local/") + data.dataFiles.at(0)));
        QCOMPARE(messages.at(1).usage->inputTokens, 2210);
        QCOMPARE(messages.at(1).usage->cacheInputTokens, std::nullopt);
        QCOMPARE(messages.at(2).blocks.at(0).createdAt, QStringLiteral("2026-08-21T11:02:37.118094"));
        // without the recorded workdir, the /data/ segment still finds it
        QCOMPARE(read(fixture(Local)).at(0).blocks.at(0).dataFiles, data.dataFiles);
    }

    void damagedFile()
    {
        const QByteArray bytes = fixture(Damaged);
        const QList<TranscriptMessage> messages = read(bytes);
        QCOMPARE(messages.size(), 4);
        QCOMPARE(messages.at(0).kind, TranscriptMessage::Kind::Message);
        QCOMPARE(messages.at(0).firstLine, 1);
        // line 2 is blank: skipped
        const TranscriptMessage &future = messages.at(1);
        QCOMPARE(future.kind, TranscriptMessage::Kind::Message);
        QCOMPARE(future.firstLine, 3);
        QCOMPARE(future.blocks.at(0).type, Type::Unknown);
        QCOMPARE(future.blocks.at(0).typeName, QStringLiteral("audio_caption"));
        QVERIFY(future.blocks.at(0).rawJson.contains(QStringLiteral("(future block type)")));
        QCOMPARE(future.blocks.at(1).type, Type::Text);
        const TranscriptMessage &notJson = messages.at(2);
        QCOMPARE(notJson.kind, TranscriptMessage::Kind::NotJson);
        QCOMPARE(notJson.firstLine, 4);
        QCOMPARE(notJson.byteSize, qint64(qstrlen("not json at all")));
        QVERIFY(!notJson.parseError.isEmpty());
        QVERIFY(notJson.blocks.empty());
        const TranscriptMessage &cut = messages.at(3);
        QCOMPARE(cut.kind, TranscriptMessage::Kind::Incomplete);
        QCOMPARE(cut.firstLine, 5);
        QCOMPARE(cut.offset + cut.byteSize, bytes.size());
        QVERIFY(cut.preview.startsWith(QStringLiteral("{\"name\":\"Friday\"")));
    }

    void chunkSizeDoesNotMatter_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("sandbox 6f1c") << Sandbox1;
        QTest::newRow("sandbox b83e") << Sandbox2;
        QTest::newRow("local") << Local;
        QTest::newRow("damaged") << Damaged;
    }
    void chunkSizeDoesNotMatter()
    {
        QFETCH(QString, path);
        const QByteArray bytes = fixture(path);
        const QByteArray whole = asJson(read(bytes));
        QCOMPARE(asJson(read(bytes, 1)), whole);
        QCOMPARE(asJson(read(bytes, 7)), whole);
        QCOMPARE(asJson(read(bytes, 4096)), whole);
        QVERIFY(!whole.contains("sample-secret-"));
    }

    void messagesComeOutAsLinesArrive()
    {
        const QByteArray bytes = fixture(Sandbox1);
        const qsizetype firstNewline = bytes.indexOf('\n');
        TranscriptReader reader;
        reader.feed(QByteArrayView(bytes).first(firstNewline + 1));
        QVERIFY(reader.takeMessages().isEmpty()); // the next line could carry the same id
        QCOMPARE(reader.linesRead(), 1);
        reader.feed(QByteArrayView(bytes).sliced(firstNewline + 1, 10));
        QVERIFY(reader.takeMessages().isEmpty()); // line 2 is not complete yet
        const qsizetype second = bytes.indexOf('\n', firstNewline + 1);
        reader.feed(QByteArrayView(bytes).sliced(firstNewline + 11, second - firstNewline - 10));
        const QList<TranscriptMessage> first = reader.takeMessages();
        QCOMPARE(first.size(), 1);
        QCOMPARE(first.at(0).role, QStringLiteral("user"));
        QCOMPARE(reader.bytesRead(), second + 1);
    }

    void invalidUtf8BecomesReplacementCharacters()
    {
        const QByteArray line =
            "{\"role\":\"user\",\"id\":\"m\",\"content\":[{\"type\":\"text\",\"text\":\"ok \xff\xfe end\"}]}\n";
        const QList<TranscriptMessage> messages = read(line);
        QCOMPARE(messages.size(), 1);
        const QString text = messages.at(0).blocks.at(0).text;
        QVERIFY(text.startsWith(QStringLiteral("ok ")));
        QVERIFY(text.endsWith(QStringLiteral(" end")));
        QVERIFY(text.contains(QChar(QChar::ReplacementCharacter)));
    }

    void longLinesAndStringsAreCapped()
    {
        TranscriptReader::Options options;
        options.maxLineBytes = 1000;
        options.previewBytes = 100;
        options.maxTextBytes = 50;
        const QByteArray huge = "{\"role\":\"user\",\"id\":\"a\",\"content\":[{\"type\":\"text\",\"text\":\""
            + QByteArray(5000, 'x') + "\"}]}";
        const QByteArray longText = "{\"role\":\"user\",\"id\":\"b\",\"content\":[{\"type\":\"text\",\"text\":\""
            + QByteArray(40, 'y') + "\xe4\xbd\xa0\xe5\xa5\xbd" + QByteArray(200, 'z') + "\"}]}";
        const QByteArray bytes = huge + '\n' + longText + '\n';
        for (qsizetype chunk : {qsizetype(0), qsizetype(1), qsizetype(333)}) {
            const QList<TranscriptMessage> messages = read(bytes, chunk, options);
            QCOMPARE(messages.size(), 2);
            QCOMPARE(messages.at(0).kind, TranscriptMessage::Kind::Oversized);
            QCOMPARE(messages.at(0).byteSize, huge.size());
            QCOMPARE(messages.at(0).preview.size(), 100);
            QVERIFY(messages.at(0).blocks.empty());
            const TranscriptBlock &block = messages.at(1).blocks.at(0);
            QCOMPARE(messages.at(1).offset, huge.size() + 1);
            // cut at a character boundary: 40 y + 你 (3 bytes) fits 43 of 50, 好 would end at 46
            QCOMPARE(block.text, QString(40, QLatin1Char('y')) + QStringLiteral("你好") + QString(4, QLatin1Char('z')));
            QCOMPARE(block.clippedBytes, 196);
        }
    }

    void shapesAndBlocks()
    {
        const QByteArray bytes =
            R"({"role":"user","id":"old","content":"hello from 1.x","timestamp":"2025-01-01 00:00:00"})"
            "\r\n"
            R"({"role":"assistant","id":"h","content":[)"
            R"({"type":"hint","hint":[{"type":"text","text":"see workspace:///data/abc.png."}],"id":"h1","source":"team"},)"
            R"({"type":"hint","hint":"plain hint","id":"h2","source":null},)"
            R"({"type":"data","id":"d","source":{"type":"base64","data":"QUJD","media_type":"image/png"},"name":null},)"
            R"({"type":"tool_use","id":"t","name":"x","input":{}},)"
            R"({"type":"tool_call","id":"c1","name":"Bash","input":"not json","state":"finished"},)"
            R"({"type":"tool_result","id":"c1","name":"Bash","output":"kept\n<<<TRUNCATED>>>\n<system-reminder>The remaining content has been omitted for limited context.</system-reminder>","state":"success"},)"
            R"({"type":"tool_result","id":"orphan","name":"Bash","output":[],"state":"error"}],)"
            R"("error":{"type":"rate_limit","message":"slow down"},"finished_reason":"error","structured_output":{"a":1}})"
            "\n[1,2]\n";
        const QList<TranscriptMessage> messages = read(bytes, 0, sessionOptions(QStringLiteral("S1")));
        QCOMPARE(messages.size(), 3);
        QVERIFY(messages.at(0).legacyShape);
        QCOMPARE(messages.at(0).blocks.at(0).type, Type::Unknown);
        QVERIFY(messages.at(0).blocks.at(0).rawJson.contains(QStringLiteral("hello from 1.x")));

        const TranscriptMessage &m = messages.at(1);
        QCOMPARE(m.errorType, QStringLiteral("rate_limit"));
        QCOMPARE(m.errorMessage, QStringLiteral("slow down"));
        QCOMPARE(m.finishedReason, QStringLiteral("error"));
        QVERIFY(m.hasStructuredOutput);
        QCOMPARE(m.blocks.at(0).type, Type::Hint);
        QCOMPARE(m.blocks.at(0).source, QStringLiteral("team"));
        QCOMPARE(m.blocks.at(0).children.at(0).dataFiles, QStringList{"data/abc.png"});
        QCOMPARE(m.blocks.at(1).text, QStringLiteral("plain hint"));
        QVERIFY(m.blocks.at(2).inlineBase64);
        QCOMPARE(m.blocks.at(2).base64Size, 4);
        QCOMPARE(m.blocks.at(3).type, Type::Unknown);
        QCOMPARE(m.blocks.at(3).typeName, QStringLiteral("tool_use"));
        QCOMPARE(m.blocks.at(4).input, QStringLiteral("not json"));
        QVERIFY(m.blocks.at(4).inputPretty.isEmpty());
        QCOMPARE(m.blocks.at(4).pairedBlock, 5);
        QCOMPARE(m.blocks.at(5).text, QStringLiteral("kept"));
        QVERIFY(m.blocks.at(5).truncated);
        QVERIFY(m.blocks.at(5).truncatedPath.isEmpty());
        QCOMPARE(m.blocks.at(5).truncatedFile, QStringLiteral("sessions/S1/tool_result-c1.txt"));
        QCOMPARE(m.blocks.at(6).pairedBlock, -1);
        QCOMPARE(messages.at(2).kind, TranscriptMessage::Kind::NotJson); // JSON, but not an object
        QCOMPARE(messages.at(2).firstLine, 3);
    }

    void aNulAfterTheObjectIsNotJson()
    {
        const QList<TranscriptMessage> messages =
            read(QByteArray("{\"role\":\"user\",\"id\":\"a\",\"content\":[]}\0junk\n", 43));
        QCOMPARE(messages.size(), 1);
        QCOMPARE(messages.at(0).kind, TranscriptMessage::Kind::NotJson);
        QVERIFY(messages.at(0).parseError.contains(QStringLiteral("at byte 37")));
    }

    void deepNestingIsRefusedNotRecursed()
    {
        const QByteArray deep = "{\"role\":\"user\",\"id\":\"d\",\"content\":[{\"type\":\"x\",\"v\":"
            + QByteArray(100000, '[') + QByteArray(100000, ']') + "}]}\n";
        const QByteArray input = "{\"role\":\"assistant\",\"id\":\"i\",\"content\":[{\"type\":\"tool_call\",\"id\":"
                                 "\"c\",\"name\":\"n\",\"input\":\""
            + QByteArray(100000, '[') + QByteArray(100000, ']') + "\"}]}\n";
        const QList<TranscriptMessage> messages = read(deep + input);
        QCOMPARE(messages.size(), 2);
        QCOMPARE(messages.at(0).kind, TranscriptMessage::Kind::NotJson);
        QVERIFY(messages.at(0).parseError.contains(QStringLiteral("200")));
        QCOMPARE(messages.at(1).kind, TranscriptMessage::Kind::Message);
        QCOMPARE(messages.at(1).blocks.at(0).input.size(), 200000);
        QVERIFY(messages.at(1).blocks.at(0).inputPretty.isEmpty());
    }

    void emptyAndBlankInput()
    {
        QVERIFY(read(QByteArray()).isEmpty());
        QVERIFY(read("\n\n   \n").isEmpty());
        QVERIFY(read("  ").isEmpty()); // a blank unfinished tail is not "incomplete"
    }

    void redactedTranscriptText()
    {
        // transcripts go through the free-text masker when the user asks for redaction
        const QByteArray line =
            R"({"role":"assistant","id":"r","content":[{"type":"text","text":"use Bearer sample-secret-transcript-1 now"}]})"
            "\n";
        const QList<TranscriptMessage> messages = read(line);
        QVERIFY(messages.at(0).blocks.at(0).text.contains(QStringLiteral("sample-secret-transcript-1")));
        QVERIFY(!maskText(messages.at(0).blocks.at(0).text).contains(QStringLiteral("sample-secret-")));
    }

    void sniffing_data()
    {
        QTest::addColumn<QByteArray>("head");
        QTest::addColumn<int>("kind");
        QTest::newRow("fixture png") << fixture(QStringLiteral(
            "sandbox/workspace/data/e216a0c2a06cdbf5a548d6901b544807f9d5b533201e018b3b9923672222e096.png"))
                                     << int(DataKind::Png);
        QTest::newRow("fixture png 2") << fixture(QStringLiteral(
            "sandbox/workspace/data/66c95792335b8c2bd8fd8bc3b629e3b7b4e3dafb175a5396df078a4b74c392df.png"))
                                       << int(DataKind::Png);
        QTest::newRow("fixture local png") << fixture(
            QStringLiteral("local/data/e216a0c2a06cdbf5a548d6901b544807f9d5b533201e018b3b9923672222e096.png"))
                                           << int(DataKind::Png);
        QTest::newRow("fixture text file")
            << fixture(QStringLiteral("sandbox/workspace/20260821_q3-review/README.md")) << int(DataKind::Text);
        QTest::newRow("jpeg") << QByteArray("\xff\xd8\xff\xe0\x00\x10JFIF", 10) << int(DataKind::Jpeg);
        QTest::newRow("gif") << QByteArray("GIF89a\x01\x00", 8) << int(DataKind::Gif);
        QTest::newRow("webp") << QByteArray("RIFF\x24\x00\x00\x00WEBPVP8 ", 16) << int(DataKind::Webp);
        QTest::newRow("riff not webp") << QByteArray("RIFF\x24\x00\x00\x00WAVEfmt ", 16) << int(DataKind::Unknown);
        QTest::newRow("pdf") << QByteArray("%PDF-1.7\n") << int(DataKind::Pdf);
        QTest::newRow("json") << QByteArray("  {\"a\": 1}") << int(DataKind::Json);
        QTest::newRow("json list") << QByteArray("[1,2") << int(DataKind::Json);
        QTest::newRow("text") << QByteArray("hello\nworld 你好") << int(DataKind::Text);
        QTest::newRow("text cut mid-character") << QByteArray("abc \xe4\xbd") << int(DataKind::Text);
        QTest::newRow("binary") << QByteArray("\x00\x01\x02\x03", 4) << int(DataKind::Unknown);
        QTest::newRow("latin-1") << QByteArray("caf\xe9 ok") << int(DataKind::Unknown);
        QTest::newRow("empty") << QByteArray() << int(DataKind::Unknown);
        QTest::newRow("png named jpg content") << QByteArray("\x89PNG\r\n\x1a\n\0\0", 10) << int(DataKind::Png);
    }
    void sniffing()
    {
        QFETCH(QByteArray, head);
        QFETCH(int, kind);
        QCOMPARE(int(sniffData(head)), kind);
        QVERIFY(!dataKindName(DataKind(kind)).isEmpty());
        QVERIFY(dataKindMediaType(DataKind(kind)).contains(QLatin1Char('/')));
    }

    void toolResultFiles()
    {
        const QString fixtureText =
            QString::fromUtf8(fixture(QStringLiteral("sandbox/workspace/sessions/6f1c2a9e4b7d4e0f9a3c5b8d2e1f0a47/"
                                                     "tool_result-call_Hn4kP8sD2fG6jL0qW5eR9tY3.txt")));
        QVERIFY(findDataPlaceholders(fixtureText).isEmpty());
        // upstream's test_offload_tool_result: 29 800 "0" then one placeholder
        const QString text = QString(29800, QLatin1Char('0'))
            + QStringLiteral("<data url='workspace:///data/abc.png' name='fake_image.png' media_type='image/png'/>"
                             "tail<data url='file:///workspace/data/d.bin' name='None' media_type='audio/wav'/>");
        const QList<DataPlaceholder> found = findDataPlaceholders(text, QStringLiteral("/workspace"));
        QCOMPARE(found.size(), 2);
        QCOMPARE(found.at(0).offset, 29800);
        QCOMPARE(found.at(0).name, QStringLiteral("fake_image.png"));
        QCOMPARE(found.at(0).mediaType, QStringLiteral("image/png"));
        QCOMPARE(found.at(0).dataFile, QStringLiteral("data/abc.png"));
        QCOMPARE(text.mid(found.at(0).offset + found.at(0).length, 4), QStringLiteral("tail"));
        QVERIFY(found.at(1).name.isEmpty());
        QCOMPARE(found.at(1).dataFile, QStringLiteral("data/d.bin"));

        const auto plain = parseToolResultFileName(QStringLiteral("tool_result-call_Hn4kP8sD2fG6jL0qW5eR9tY3.txt"));
        QVERIFY(plain);
        QCOMPARE(plain->toolCallId, QStringLiteral("call_Hn4kP8sD2fG6jL0qW5eR9tY3"));
        QCOMPARE(plain->clash, 0);
        const auto clash = parseToolResultFileName(QStringLiteral("tool_result-toolu_01(x)(2).txt"));
        QVERIFY(clash);
        QCOMPARE(clash->toolCallId, QStringLiteral("toolu_01(x)"));
        QCOMPARE(clash->clash, 2);
        QCOMPARE(parseToolResultFileName(QStringLiteral("context.jsonl")), std::nullopt);
        QCOMPARE(parseToolResultFileName(QStringLiteral("tool_result-.txt")), std::nullopt);
    }

    void dataUrls()
    {
        QCOMPARE(resolveDataUrl(QStringLiteral("workspace:///data/a.png")), QStringLiteral("data/a.png"));
        QCOMPARE(resolveDataUrl(QStringLiteral("file:///workspace/data/a.png"), QStringLiteral("/workspace")),
                 QStringLiteral("data/a.png"));
        QCOMPARE(resolveDataUrl(QStringLiteral("file:///workspace/data/a.png"), QStringLiteral("/workspace/")),
                 QStringLiteral("data/a.png"));
        QCOMPARE(resolveDataUrl(QStringLiteral("file:///elsewhere/x/data/b.png"), QStringLiteral("/workspace")),
                 QStringLiteral("data/b.png"));
        QCOMPARE(resolveDataUrl(QStringLiteral("file:///workspace/sub/c.txt"), QStringLiteral("/workspace")),
                 QStringLiteral("sub/c.txt"));
        QCOMPARE(resolveDataUrl(QStringLiteral("workspace:///data/a%20b.png")), QStringLiteral("data/a b.png"));
        QCOMPARE(resolveDataUrl(QStringLiteral("workspace:///../etc/passwd")), std::nullopt);
        QCOMPARE(resolveDataUrl(QStringLiteral("workspace:///data/../../x")), std::nullopt);
        QCOMPARE(resolveDataUrl(QStringLiteral("file:///etc/passwd")), std::nullopt);
        QCOMPARE(resolveDataUrl(QStringLiteral("file:///workspace/../etc/passwd"), QStringLiteral("/workspace")),
                 std::nullopt);
        QCOMPARE(resolveDataUrl(QStringLiteral("https://h/data/a.png")), std::nullopt);
    }
};

QTEST_GUILESS_MAIN(TestTranscriptReader)
#include "tst_transcriptreader.moc"
