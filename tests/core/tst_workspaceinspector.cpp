// The inspector's reads (src/core/inspect/workspaceinspector.h) through a local profile's
// session, on AgentScope's workspace fixtures (tests/data/agentscope-workspace) copied into an
// opened workspace. The same reads over every backend are a check of the conformance suite.

#include "backends/local/localbackend.h"
#include "inspect/secretmask.h"
#include "inspect/workspaceinspector.h"
#include "testsession.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonDocument>
#include <QProcess>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

using namespace Paddock;
using namespace Paddock::Inspect;
using PaddockTest::TestSession;

namespace {

const QString Fixtures = QStringLiteral(AGENTSCOPE_FIXTURES);
const QString Session1 = QStringLiteral("6f1c2a9e4b7d4e0f9a3c5b8d2e1f0a47");
const QString Session2 = QStringLiteral("b83e07d5c21a4f6e8d9b0a1c2e3f4d5a");
const QString ToolResult = QStringLiteral("tool_result-call_Hn4kP8sD2fG6jL0qW5eR9tY3.txt");
const QString Png1 = QStringLiteral("e216a0c2a06cdbf5a548d6901b544807f9d5b533201e018b3b9923672222e096.png");
const QString Png2 = QStringLiteral("66c95792335b8c2bd8fd8bc3b629e3b7b4e3dafb175a5396df078a4b74c392df.png");

// Copies a fixture folder's files into `to` (made as needed).
bool copyTree(const QString &from, const QString &to)
{
    QDirIterator it(from, QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString file = it.next();
        const QString target = to + file.mid(from.size());
        if (!QDir().mkpath(QFileInfo(target).path()))
            return false;
        QFile::remove(target);
        if (!QFile::copy(file, target))
            return false;
    }
    return true;
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).path());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

QByteArray fixture(const QString &relative)
{
    QFile file(Fixtures + u'/' + relative);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read fixture %s", qPrintable(relative));
    return file.readAll();
}

bool leaksSecret(const QJsonObject &object)
{
    return QJsonDocument(object).toJson().contains("sample-secret-");
}

// An HTTP server that answers every request "ok", as the gateway's /health does.
class HealthServer : public QTcpServer
{
public:
    HealthServer()
    {
        connect(this, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = nextPendingConnection()) {
                connect(socket, &QTcpSocket::readyRead, socket, [socket] {
                    if (!socket->readAll().contains("\r\n\r\n") && socket->bytesAvailable() == 0)
                        return;
                    socket->write("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok");
                    socket->disconnectFromHost();
                });
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }
};

} // namespace

class TestWorkspaceInspector : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void overviewSaysWhatIsThere();
    void sessionsAreListedThenReadLazily();
    void transcriptComesInPagesAndRangesReadAgain();
    void transcriptOfADamagedFileHasPlaceholders();
    void textPagesFindDataPlaceholdersAndBinary();
    void skillsOfASandboxWorkspace();
    void skillsOfALocalWorkspaceWithIndexes();
    void mcpIsMaskedAndRevealedOneValueAtATime();
    void brokenMcpIsAnErrorWithoutItsText();
    void dataIsSniffedAndReferenced();
    void gatewayFilesAndHealth();
    void gatewayLogTailIsMasked();
    void cancelAndShutdownStopReads();

private:
    WorkspaceRef ref() const { return {m_session->get(), m_sandbox, std::make_shared<CancelToken>()}; }

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<BootstrapLogStore> m_logs;
    std::unique_ptr<TestSession<LocalBackend>> m_session;
    SandboxInfo m_sandbox;
    QString m_workdir;
};

void TestWorkspaceInspector::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    Profile profile = Profile::local();
    profile.basedir = m_dir->filePath(QStringLiteral("ws"));
    m_logs = std::make_unique<BootstrapLogStore>(m_dir->filePath(QStringLiteral("logs")));
    m_session = std::make_unique<TestSession<LocalBackend>>(
        std::make_unique<LocalBackend>(LocalOptions{profile.basedir}), profile, m_logs.get());
    WorkspaceRequest request{QStringLiteral("alice"), QStringLiteral("agent-1"), {}, QStringLiteral("ws-inspect")};
    auto opened = QCoro::waitFor(m_session->session.open(request));
    QVERIFY2(opened, qPrintable(opened ? QString() : opened.error().message));
    auto found = QCoro::waitFor(m_session->session.find(QStringLiteral("ws-inspect")));
    QVERIFY(found);
    m_sandbox = *found;
    m_workdir = m_session->session.layout(m_sandbox).workdir;
    QVERIFY(copyTree(Fixtures + QStringLiteral("/sandbox/workspace"), m_workdir));
    QVERIFY(
        copyTree(Fixtures + QStringLiteral("/sandbox/root/.agentscope"), m_workdir + QStringLiteral("/.agentscope")));
}

void TestWorkspaceInspector::cleanup()
{
    m_session.reset();
    m_logs.reset();
    m_dir.reset();
}

void TestWorkspaceInspector::overviewSaysWhatIsThere()
{
    QVERIFY(QDir().mkpath(m_workdir + QStringLiteral("/skills/agent-3.equipping-4242")));
    QVERIFY(writeFile(m_workdir + QStringLiteral("/.skill-staging-abc.zip"), "zip"));
    auto overview = QCoro::waitFor(readOverview(ref()));
    QVERIFY2(overview, qPrintable(overview ? QString() : overview.error().message));
    QCOMPARE(overview->details.sandbox.workspaceId, QStringLiteral("ws-inspect"));
    QCOMPARE(overview->details.sandbox.userId, QStringLiteral("alice"));
    QCOMPARE(overview->details.sandbox.agentId, QStringLiteral("agent-1"));
    QVERIFY(!overview->detailsError);
    QCOMPARE(overview->backend, QStringLiteral("local"));
    QCOMPARE(overview->profileId, QStringLiteral("local"));
    QCOMPARE(overview->layout.workdir, m_workdir);
    QCOMPARE(overview->hostFolder, m_workdir);
    QVERIFY(!overview->filesError);
    QVERIFY(overview->hasMcp);
    QVERIFY(overview->hasData);
    QVERIFY(overview->hasSkills);
    QVERIFY(overview->hasSessions);
    QStringList agentFiles;
    for (const FileEntry &entry : std::as_const(overview->agentFiles))
        agentFiles.append(entry.name);
    // The agents' project folders.
    QVERIFY2(agentFiles.contains(QStringLiteral("20260821_q3-review")), qPrintable(agentFiles.join(u',')));
    QVERIFY(agentFiles.contains(QStringLiteral("20260822_staging-check")));
    QVERIFY(!agentFiles.contains(QStringLiteral("sessions")));
    QVERIFY(!agentFiles.contains(QStringLiteral(".agentscope"))); // the gateway home, shown as such
    QVERIFY(!agentFiles.contains(QStringLiteral(".paddock"))); // Paddock's own
    QStringList transient;
    for (const FileEntry &entry : std::as_const(overview->transient))
        transient.append(entry.name);
    transient.sort();
    QCOMPARE(transient,
             (QStringList{QStringLiteral(".skill-staging-abc.zip"), QStringLiteral("skills/agent-3.equipping-4242")}));
    QCOMPARE(
        overview->paddockctlArguments,
        (QStringList{QStringLiteral("--backend"), QStringLiteral("local"), QStringLiteral("--basedir"),
                     m_dir->filePath(QStringLiteral("ws")), QStringLiteral("inspect"), QStringLiteral("ws-inspect")}));
    const QJsonObject json = overview->toJson();
    QCOMPARE(json.value(QStringLiteral("workspaceId")).toString(), QStringLiteral("ws-inspect"));
    QCOMPARE(json.value(QStringLiteral("present")).toObject().value(QStringLiteral("mcp")).toBool(), true);
    QVERIFY(!leaksSecret(json));
}

void TestWorkspaceInspector::sessionsAreListedThenReadLazily()
{
    // Make the second session the newer one; a stray file in sessions/ is no session.
    const QDateTime older = QDateTime::currentDateTimeUtc().addDays(-2);
    QVERIFY(writeFile(m_workdir + QStringLiteral("/sessions/README"), "not a session"));
    // (A folder's time, set as a user would: QFile cannot open a folder.)
    QCOMPARE(QProcess::execute(QStringLiteral("touch"),
                               {QStringLiteral("-d"), u'@' + QString::number(older.toSecsSinceEpoch()),
                                m_workdir + QStringLiteral("/sessions/") + Session1}),
             0);
    auto sessions = QCoro::waitFor(readSessions(ref()));
    QVERIFY(sessions);
    QCOMPARE(sessions->size(), 2);
    QCOMPARE(sessions->at(0).id, Session2);
    QCOMPARE(sessions->at(1).id, Session1);
    QVERIFY(!sessions->at(1).filesRead);
    QVERIFY(!sessions->at(1).lineCount);

    auto files = QCoro::waitFor(readSessionFiles(ref(), sessions->at(1)));
    QVERIFY(files);
    QVERIFY(files->filesRead);
    QVERIFY(files->context);
    const qint64 contextSize =
        fixture(QStringLiteral("sandbox/workspace/sessions/") + Session1 + QStringLiteral("/context.jsonl")).size();
    const qint64 resultSize =
        fixture(QStringLiteral("sandbox/workspace/sessions/") + Session1 + u'/' + ToolResult).size();
    QCOMPARE(files->context->size, contextSize);
    QCOMPARE(files->toolResults.size(), 1);
    QCOMPARE(files->toolResults.first().name, ToolResult);
    QCOMPARE(files->size, contextSize + resultSize);
    QVERIFY(files->modified > older); // its files are newer than the folder

    QList<std::pair<qint64, qint64>> progress;
    auto lines = QCoro::waitFor(countContextLines(ref(), Session1, [&](qint64 read, qint64 total) {
        progress.append({read, total});
    }));
    QVERIFY(lines);
    QCOMPARE(*lines, 4);
    QCOMPARE(progress.last(), std::make_pair(contextSize, contextSize));

    // A last line without its newline (being written) counts.
    QVERIFY(writeFile(m_workdir + QStringLiteral("/sessions/s3/context.jsonl"), "{}\n{}\n{\"half"));
    auto three = QCoro::waitFor(countContextLines(ref(), QStringLiteral("s3")));
    QVERIFY(three);
    QCOMPARE(*three, 3);
    // A session folder with no context at all is shown, not an error.
    QVERIFY(QDir().mkpath(m_workdir + QStringLiteral("/sessions/empty")));
    SessionSummary empty;
    empty.id = QStringLiteral("empty");
    auto emptyFiles = QCoro::waitFor(readSessionFiles(ref(), empty));
    QVERIFY(emptyFiles);
    QVERIFY(!emptyFiles->context);
    QCOMPARE(emptyFiles->size, 0);
    auto missing = QCoro::waitFor(countContextLines(ref(), QStringLiteral("empty")));
    QVERIFY(!missing);
    QCOMPARE(missing.error().kind, Error::Kind::NotFound);
    QVERIFY(!leaksSecret(files->toJson()));
}

void TestWorkspaceInspector::transcriptComesInPagesAndRangesReadAgain()
{
    // The whole file at once, as the reader's own tests read it...
    TranscriptReader::Options options;
    options.sessionId = Session2;
    options.recordedWorkdir = m_workdir;
    TranscriptReader whole(options);
    whole.feed(fixture(QStringLiteral("sandbox/workspace/sessions/") + Session2 + QStringLiteral("/context.jsonl")));
    whole.finish();
    const QList<TranscriptMessage> expected = whole.takeMessages();
    QCOMPARE(expected.size(), 3); // four lines, two of them one message

    // ...and through the session in chunks of 200 bytes: the same messages, in pages.
    TranscriptRead read;
    read.sessionId = Session2;
    read.chunkSize = 200;
    QList<TranscriptMessage> messages;
    int pages = 0;
    TranscriptProgress last;
    auto done =
        QCoro::waitFor(readTranscript(ref(), read, [&](QList<TranscriptMessage> page, TranscriptProgress progress) {
            ++pages;
            messages.append(page);
            QVERIFY(progress.bytesRead >= last.bytesRead);
            last = progress;
        }));
    QVERIFY2(done, qPrintable(done ? QString() : done.error().message));
    QVERIFY(done->done);
    QCOMPARE(done->bytesRead, done->totalSize);
    QCOMPARE(done->linesRead, 4);
    QVERIFY(pages >= 2);
    QCOMPARE(messages.size(), expected.size());
    for (qsizetype i = 0; i < messages.size(); ++i) {
        QCOMPARE(messages[i].id, expected[i].id);
        QCOMPARE(messages[i].lineCount, expected[i].lineCount);
        QCOMPARE(messages[i].blocks.size(), expected[i].blocks.size());
        QCOMPARE(messages[i].offset, expected[i].offset);
    }
    // The merged reply read again from its byte range alone.
    const TranscriptMessage &merged = messages[1];
    QCOMPARE(merged.lineCount, 2);
    TranscriptRead range;
    range.sessionId = Session2;
    range.offset = merged.offset;
    range.length = merged.byteSize + merged.lineCount; // its lines and their newlines
    QList<TranscriptMessage> again;
    auto reread = QCoro::waitFor(
        readTranscript(ref(), range, [&](QList<TranscriptMessage> page, TranscriptProgress) { again.append(page); }));
    QVERIFY(reread);
    QCOMPARE(again.size(), 1);
    QCOMPARE(again.first().id, merged.id);
    QCOMPARE(again.first().offset, merged.offset); // the file's offset, not the read's
    QCOMPARE(again.first().blocks.size(), merged.blocks.size());

    // Session 1: the tool call is paired with its result, whose truncation links the file.
    TranscriptRead first;
    first.sessionId = Session1;
    QList<TranscriptMessage> session1;
    QVERIFY(QCoro::waitFor(readTranscript(
        ref(), first, [&](QList<TranscriptMessage> page, TranscriptProgress) { session1.append(page); })));
    bool truncatedLinked = false;
    for (const TranscriptMessage &message : std::as_const(session1)) {
        for (const TranscriptBlock &block : message.blocks) {
            if (block.type == TranscriptBlock::Type::ToolResult && block.truncated) {
                QCOMPARE(block.truncatedFile, QStringLiteral("sessions/") + Session1 + u'/' + ToolResult);
                QVERIFY(block.pairedBlock >= 0);
                QCOMPARE(message.blocks[size_t(block.pairedBlock)].type, TranscriptBlock::Type::ToolCall);
                truncatedLinked = true;
            }
        }
    }
    QVERIFY(truncatedLinked);
    // A missing transcript is NotFound.
    TranscriptRead none;
    none.sessionId = QStringLiteral("nope");
    auto missing = QCoro::waitFor(readTranscript(ref(), none, {}));
    QVERIFY(!missing);
    QCOMPARE(missing.error().kind, Error::Kind::NotFound);
}

void TestWorkspaceInspector::transcriptOfADamagedFileHasPlaceholders()
{
    QVERIFY(writeFile(m_workdir + QStringLiteral("/sessions/damaged/context.jsonl"),
                      fixture(QStringLiteral("broken/context-damaged/context.jsonl"))));
    TranscriptRead read;
    read.sessionId = QStringLiteral("damaged");
    read.chunkSize = 7;
    QList<TranscriptMessage> messages;
    auto done = QCoro::waitFor(
        readTranscript(ref(), read, [&](QList<TranscriptMessage> page, TranscriptProgress) { messages.append(page); }));
    QVERIFY(done);
    QList<TranscriptMessage::Kind> kinds;
    for (const TranscriptMessage &message : std::as_const(messages))
        kinds.append(message.kind);
    QVERIFY(kinds.contains(TranscriptMessage::Kind::NotJson));
    QCOMPARE(kinds.last(), TranscriptMessage::Kind::Incomplete);
}

void TestWorkspaceInspector::textPagesFindDataPlaceholdersAndBinary()
{
    const QString path = QStringLiteral("sessions/") + Session1 + u'/' + ToolResult;
    auto page = QCoro::waitFor(readTextPage(ref(), path, 0, 1024 * 1024));
    QVERIFY(page);
    QCOMPARE(page->totalSize, fixture(QStringLiteral("sandbox/workspace/") + path).size());
    QCOMPARE(page->bytes, page->totalSize);
    QVERIFY(!page->binary);
    QVERIFY(!page->text.isEmpty());

    // Placeholders, and a page that would cut a character holds it back for the next one.
    const QByteArray text =
        "前文 <data url='workspace:///data/" + Png1.toUtf8() + "' name='chart.png' media_type='image/png'/> 后文";
    QVERIFY(writeFile(m_workdir + QStringLiteral("/sessions/x/tool_result-a.txt"), text));
    auto withData = QCoro::waitFor(readTextPage(ref(), QStringLiteral("sessions/x/tool_result-a.txt"), 0, 4096));
    QVERIFY(withData);
    QCOMPARE(withData->placeholders.size(), 1);
    QCOMPARE(withData->placeholders.first().dataFile.value_or(QString()), QStringLiteral("data/") + Png1);
    auto cut = QCoro::waitFor(readTextPage(ref(), QStringLiteral("sessions/x/tool_result-a.txt"), 0, 4));
    QVERIFY(cut);
    QCOMPARE(cut->bytes, 3); // "前" is three bytes; the fourth starts "文"
    QCOMPARE(cut->text, QStringLiteral("前"));
    auto next = QCoro::waitFor(readTextPage(ref(), QStringLiteral("sessions/x/tool_result-a.txt"), cut->bytes, 3));
    QVERIFY(next);
    QCOMPARE(next->text, QStringLiteral("文"));

    // A page ends after a line or a space, never inside a word a mask must see whole.
    QVERIFY(writeFile(m_workdir + QStringLiteral("/sessions/x/tool_result-b.txt"),
                      "aaaa\nkey: password=sample-secret-cut end"));
    auto first = QCoro::waitFor(readTextPage(ref(), QStringLiteral("sessions/x/tool_result-b.txt"), 0, 30));
    QVERIFY(first);
    QCOMPARE(first->text, QStringLiteral("aaaa\nkey: "));
    auto second =
        QCoro::waitFor(readTextPage(ref(), QStringLiteral("sessions/x/tool_result-b.txt"), first->bytes, 4096));
    QVERIFY(second);
    QCOMPARE(second->text, QStringLiteral("password=sample-secret-cut end"));
    QVERIFY(!maskText(second->text).contains(QStringLiteral("sample-secret-")));

    auto binary = QCoro::waitFor(readTextPage(ref(), QStringLiteral("data/") + Png1, 0, 4096));
    QVERIFY(binary);
    QVERIFY(binary->binary);
    QVERIFY(binary->text.isEmpty());
    auto outside = QCoro::waitFor(readTextPage(ref(), QStringLiteral("../../etc/passwd"), 0, 4096));
    QVERIFY(!outside);
    QCOMPARE(outside.error().kind, Error::Kind::InvalidArgument);
}

void TestWorkspaceInspector::skillsOfASandboxWorkspace()
{
    auto skills = QCoro::waitFor(readSkills(ref()));
    QVERIFY2(skills, qPrintable(skills ? QString() : skills.error().message));
    QVERIFY(skills->present);
    QVERIFY(skills->complete);
    QCOMPARE(skills->layout.kind, SkillsLayout::Kind::Partitioned);
    QStringList partitions;
    for (const SkillPartition &partition : std::as_const(skills->layout.partitions))
        partitions.append(partition.name);
    QCOMPARE(partitions, (QStringList{QStringLiteral(".seed"), QStringLiteral("agent-1"), QStringLiteral("agent-2")}));
    QStringList found;
    for (const SkillView &skill : std::as_const(skills->skills)) {
        QVERIFY(!skill.readError);
        found.append(skill.partition + u'/' + skill.dir + u'=' + skill.file.name);
        QVERIFY(skill.file.loaded());
        if (skill.dir == QLatin1String("csv-audit"))
            QCOMPARE(skill.files, QStringList{QStringLiteral("reference.md")});
    }
    found.sort();
    QCOMPARE(found.size(), 4);
    QVERIFY2(found.first().startsWith(QStringLiteral(".seed/pdf-tools=")), qPrintable(found.join(u',')));
    QVERIFY(skills->indexes.isEmpty()); // sandboxed workspaces write no index

    // What AgentScope ignores is said, per skill.
    QVERIFY(writeFile(m_workdir + QStringLiteral("/skills/agent-2/broken/SKILL.md"),
                      fixture(QStringLiteral("broken/skill-missing-description/SKILL.md"))));
    QVERIFY(writeFile(m_workdir + QStringLiteral("/skills/agent-2/bad/SKILL.md"),
                      fixture(QStringLiteral("broken/skill-bad-front-matter/SKILL.md"))));
    auto again = QCoro::waitFor(readSkills(ref()));
    QVERIFY(again);
    int ignored = 0;
    for (const SkillView &skill : std::as_const(again->skills)) {
        if (!skill.file.loaded()) {
            ++ignored;
            QVERIFY(!skill.file.ignoredReason.isEmpty());
        }
    }
    QCOMPARE(ignored, 2);
    QVERIFY(!leaksSecret(again->toJson()));
}

void TestWorkspaceInspector::skillsOfALocalWorkspaceWithIndexes()
{
    QVERIFY(QDir(m_workdir + QStringLiteral("/skills")).removeRecursively());
    QVERIFY(copyTree(Fixtures + QStringLiteral("/local/skills"), m_workdir + QStringLiteral("/skills")));
    auto skills = QCoro::waitFor(readSkills(ref()));
    QVERIFY(skills);
    QCOMPARE(skills->indexes.size(), 2);
    for (const SkillIndexView &index : std::as_const(skills->indexes)) {
        QVERIFY2(index.index.valid, qPrintable(index.index.error));
        QVERIFY2(index.diff.matches(),
                 qPrintable(index.partition + u':' + index.diff.onlyOnDisk.join(u',') + u'|'
                            + index.diff.onlyInIndex.join(u',') + u'|' + index.diff.changed.join(u',')));
    }
    // A skill changed since the index was written, and one the index does not know.
    QVERIFY(writeFile(m_workdir + QStringLiteral("/skills/agent-1/pdf-tools/SKILL.md"),
                      "---\nname: pdf\ndescription: changed\n---\n"));
    QVERIFY(writeFile(m_workdir + QStringLiteral("/skills/agent-1/new-one/SKILL.md"),
                      "---\nname: new\ndescription: new\n---\n"));
    auto changed = QCoro::waitFor(readSkills(ref()));
    QVERIFY(changed);
    const auto agent = std::find_if(changed->indexes.cbegin(), changed->indexes.cend(), [](const SkillIndexView &view) {
        return view.partition == QLatin1String("agent-1");
    });
    QVERIFY(agent != changed->indexes.cend());
    QCOMPARE(agent->diff.changed, QStringList{QStringLiteral("pdf-tools")});
    QCOMPARE(agent->diff.onlyOnDisk, QStringList{QStringLiteral("new-one")});

    // v2.0.6's flat layout with its .skills index.
    QVERIFY(QDir(m_workdir + QStringLiteral("/skills")).removeRecursively());
    QVERIFY(copyTree(Fixtures + QStringLiteral("/legacy-2.0.6/skills"), m_workdir + QStringLiteral("/skills")));
    auto flat = QCoro::waitFor(readSkills(ref()));
    QVERIFY(flat);
    QCOMPARE(flat->layout.kind, SkillsLayout::Kind::Flat);
    QCOMPARE(flat->skills.size(), 1);
    QCOMPARE(flat->indexes.size(), 1);
    QCOMPARE(flat->indexes.first().indexFile, QStringLiteral(".skills"));

    // No skills/ at all.
    QVERIFY(QDir(m_workdir + QStringLiteral("/skills")).removeRecursively());
    auto none = QCoro::waitFor(readSkills(ref()));
    QVERIFY(none);
    QVERIFY(!none->present);
    QVERIFY(none->skills.isEmpty());
}

void TestWorkspaceInspector::mcpIsMaskedAndRevealedOneValueAtATime()
{
    auto mcp = QCoro::waitFor(readMcp(ref()));
    QVERIFY(mcp);
    QVERIFY(mcp->present);
    QVERIFY(mcp->config);
    QVERIFY(!mcp->error);
    QCOMPARE(mcp->config->version, 2);
    QVERIFY(!leaksSecret(mcp->toJson()));
    QString revealed;
    for (const McpScope &scope : std::as_const(mcp->config->scopes)) {
        for (const McpEntry &entry : scope.entries) {
            if (entry.name == QLatin1String("github"))
                revealed = entry.reveal(QStringLiteral("env/GITHUB_PERSONAL_ACCESS_TOKEN")).value_or(QString());
        }
    }
    QCOMPARE(revealed, QStringLiteral("sample-secret-github-pat-0001"));
    // v1 (a bare list) is the legacy scope.
    QVERIFY(writeFile(m_workdir + QStringLiteral("/.mcp"), fixture(QStringLiteral("legacy-2.0.6/.mcp"))));
    auto legacy = QCoro::waitFor(readMcp(ref()));
    QVERIFY(legacy && legacy->config);
    QCOMPARE(legacy->config->version, 1);
    QVERIFY(legacy->config->scopes.first().legacy());
    QVERIFY(!leaksSecret(legacy->toJson()));
    // Absent: present is false, and no error.
    QVERIFY(QFile::remove(m_workdir + QStringLiteral("/.mcp")));
    auto absent = QCoro::waitFor(readMcp(ref()));
    QVERIFY(absent);
    QVERIFY(!absent->present);
    QVERIFY(!absent->config && !absent->error);
}

void TestWorkspaceInspector::brokenMcpIsAnErrorWithoutItsText()
{
    QVERIFY(writeFile(m_workdir + QStringLiteral("/.mcp"), fixture(QStringLiteral("broken/mcp-truncated/.mcp"))));
    auto truncated = QCoro::waitFor(readMcp(ref()));
    QVERIFY(truncated);
    QVERIFY(truncated->present);
    QVERIFY(truncated->error);
    QVERIFY(!truncated->config);
    QVERIFY(!truncated->error->message.isEmpty());
    QVERIFY(!leaksSecret(truncated->toJson()));
    QVERIFY(!truncated->error->message.contains(QStringLiteral("sample-secret-")));

    QVERIFY(writeFile(m_workdir + QStringLiteral("/.mcp"), fixture(QStringLiteral("broken/mcp-invalid-entry/.mcp"))));
    auto invalid = QCoro::waitFor(readMcp(ref()));
    QVERIFY(invalid && invalid->config);
    QVERIFY(!invalid->config->skippedEntries().isEmpty());
    QVERIFY(!invalid->config->warnings.isEmpty());
    QVERIFY(!leaksSecret(invalid->toJson()));
}

void TestWorkspaceInspector::dataIsSniffedAndReferenced()
{
    QVERIFY(writeFile(m_workdir + QStringLiteral("/data/notes.txt"), "plain words\n"));
    auto data = QCoro::waitFor(readData(ref(), false));
    QVERIFY(data);
    QVERIFY(data->present);
    QCOMPARE(data->files.size(), 3);
    QVERIFY(!data->referencesScanned);
    QHash<QString, DataFile> byName;
    for (const DataFile &file : std::as_const(data->files))
        byName.insert(file.entry.name, file);
    QCOMPARE(byName.value(Png1).kind, DataKind::Png);
    QVERIFY(byName.value(Png1).nameMatches);
    QCOMPARE(byName.value(QStringLiteral("notes.txt")).kind, DataKind::Text);
    QVERIFY(!byName.value(QStringLiteral("notes.txt")).nameMatches);
    QVERIFY(byName.value(Png1).referencedFrom.isEmpty());

    auto scanned = QCoro::waitFor(readData(ref(), true));
    QVERIFY(scanned);
    QVERIFY(scanned->referencesScanned);
    QVERIFY(scanned->referenceBytesScanned > 0);
    byName.clear();
    for (const DataFile &file : std::as_const(scanned->files))
        byName.insert(file.entry.name, file);
    const QString context1 = QStringLiteral("sessions/") + Session1 + QStringLiteral("/context.jsonl");
    QVERIFY2(byName.value(Png1).referencedFrom.contains(context1),
             qPrintable(byName.value(Png1).referencedFrom.join(u',')));
    QVERIFY2(!byName.value(Png2).referencedFrom.isEmpty(), "the screenshot is named by a text reminder");
    QVERIFY(byName.value(QStringLiteral("notes.txt")).referencedFrom.isEmpty()); // unreferenced: normal
    QVERIFY(!leaksSecret(scanned->toJson()));
}

void TestWorkspaceInspector::gatewayFilesAndHealth()
{
    auto files = QCoro::waitFor(readGateway(ref(), false));
    QVERIFY(files);
    QCOMPARE(files->home, m_workdir + QStringLiteral("/.agentscope"));
    QVERIFY(files->scriptPresent);
    QVERIFY(!files->scriptEmpty);
    QVERIFY(files->paddockMarker); // the open left Paddock's marker
    QVERIFY(files->venvPresent);
    QVERIFY(files->log);
    QVERIFY(files->bootstrapComplete());
    QCOMPARE(files->health, GatewayView::Health::NotAsked);

    // A gateway of this workspace: a process whose command line is the gateway's, on a port
    // where an HTTP server answers ok. The probe finds the port in /proc and asks it.
    HealthServer server;
    QVERIFY(server.listen(QHostAddress::LocalHost));
    const QString script = files->home + QStringLiteral("/_mcp_gateway_app.py");
    QProcess gateway;
    gateway.start(QStringLiteral("sh"),
                  {QStringLiteral("-c"), QStringLiteral("sleep 600; :"), script, QStringLiteral("--port"),
                   QString::number(server.serverPort())});
    QVERIFY(gateway.waitForStarted());
    auto up = QCoro::waitFor(readGateway(ref(), true));
    QVERIFY(up);
    QVERIFY2(up->health == GatewayView::Health::Up, qPrintable(up->probeTool + u' ' + up->healthDetail));
    QCOMPARE(up->port, int(server.serverPort()));
    QVERIFY(up->portFromCommandLine);
    QVERIFY(!up->probeTool.isEmpty());

    // The same process with nothing listening on its port: down.
    server.close();
    auto down = QCoro::waitFor(readGateway(ref(), true));
    QVERIFY(down);
    QVERIFY2(down->health == GatewayView::Health::Down, qPrintable(down->probeTool + u' ' + down->healthDetail));
    gateway.kill();
    QVERIFY(gateway.waitForFinished());

    // An empty script is never a complete bootstrap; Paddock's marker is, on its own.
    QVERIFY(writeFile(script, QByteArray()));
    auto empty = QCoro::waitFor(readGateway(ref(), false));
    QVERIFY(empty && empty->scriptEmpty);
    QVERIFY(empty->bootstrapComplete()); // Paddock's marker
    QVERIFY(QFile::remove(files->home + QStringLiteral("/.bootstrap-complete")));
    auto incomplete = QCoro::waitFor(readGateway(ref(), false));
    QVERIFY(incomplete && !incomplete->bootstrapComplete());

    // A paused workspace is not asked.
    SandboxInfo paused = m_sandbox;
    paused.state = SandboxState::Paused;
    auto notRunning = QCoro::waitFor(readGateway({m_session->get(), paused, {}}, true));
    QVERIFY(notRunning);
    QCOMPARE(notRunning->health, GatewayView::Health::Error);
    QVERIFY(!notRunning->healthDetail.isEmpty());
}

void TestWorkspaceInspector::gatewayLogTailIsMasked()
{
    const QString log = m_workdir + QStringLiteral("/.agentscope/gateway.log");
    QFile file(log);
    QVERIFY(file.open(QIODevice::Append));
    file.write("INFO: npx said Authorization: Bearer sample-secret-log-token-0009\n");
    // A bare value of .mcp that no pattern knows (an MCP server echoing its environment).
    file.write("DEBUG: maps server env MAPS=sample-secret-maps-0003 ready\n");
    file.close();
    auto tail = QCoro::waitFor(readGatewayLogTail(ref(), 1024 * 1024));
    QVERIFY(tail);
    QVERIFY2(tail->contains(QStringLiteral("MAPS=") + maskGlyph() + QStringLiteral(" ready")), qPrintable(*tail));
    QVERIFY(tail->contains(QStringLiteral("serving")) || tail->contains(QStringLiteral("Uvicorn")));
    QVERIFY(!tail->contains(QStringLiteral("sample-secret-")));
    QVERIFY(tail->contains(maskGlyph()));
    // The last bytes only, from a whole line.
    auto small = QCoro::waitFor(readGatewayLogTail(ref(), 100));
    QVERIFY(small);
    QVERIFY(small->size() <= 100);
    QVERIFY(!small->contains(QStringLiteral("sample-secret-")));
}

void TestWorkspaceInspector::cancelAndShutdownStopReads()
{
    auto cancel = std::make_shared<CancelToken>();
    WorkspaceRef cancelled{m_session->get(), m_sandbox, cancel};
    cancel->cancel();
    auto overview = QCoro::waitFor(readOverview(cancelled));
    QVERIFY(!overview);
    QCOMPARE(overview.error().kind, Error::Kind::Cancelled);

    // Cancelled between chunks of a transcript: no page after it.
    auto midway = std::make_shared<CancelToken>();
    TranscriptRead read;
    read.sessionId = Session1;
    read.chunkSize = 100;
    int pages = 0;
    auto stopped = QCoro::waitFor(
        readTranscript({m_session->get(), m_sandbox, midway}, read, [&](QList<TranscriptMessage>, TranscriptProgress) {
            ++pages;
            midway->cancel();
        }));
    QVERIFY(!stopped);
    QCOMPARE(stopped.error().kind, Error::Kind::Cancelled);
    QCOMPARE(pages, 1);

    m_session->shutdown();
    auto closed = QCoro::waitFor(readSessions(ref()));
    QVERIFY(!closed);
    QCOMPARE(closed.error().kind, Error::Kind::Cancelled);
}

QTEST_GUILESS_MAIN(TestWorkspaceInspector)
#include "tst_workspaceinspector.moc"
