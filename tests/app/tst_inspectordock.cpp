// The workspace inspector dock, offscreen, over a local profile's session whose workspace holds
// AgentScope's fixtures (tests/data/agentscope-workspace): each tab's content (ids and details,
// sessions and the transcript as a conversation with tool calls paired and the truncated result
// linked, skills, MCP servers masked with one value revealed at a time, data files sniffed and
// referenced, the gateway's files and its masked log, the files tree with its previews), the
// broken fixtures as notes, a backend that cannot read files, reads that start only when a tab is
// shown and stop when the selection moves on, and the dock in the window's View menu following
// the tree's current row. No "sample-secret-" string reaches a widget, the clipboard by default
// or a log.

#include "backends/local/localbackend.h"
#include "bootstraplog.h"
#include "datapanel.h"
#include "filespanel.h"
#include "gatewaypanel.h"
#include "i18n.h"
#include "inspectordock.h"
#include "inspectorsupport.h"
#include "logdock.h"
#include "logmodel.h"
#include "logviewer.h"
#include "mainwindow.h"
#include "mcppanel.h"
#include "overviewpanel.h"
#include "scriptedbackend.h"
#include "sessionspanel.h"
#include "skillspanel.h"
#include "testsession.h"
#include "textpageview.h"
#include "transcriptmodel.h"
#include "transcriptview.h"
#include "workspacetreemodel.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QToolButton>
#include <QTreeView>

#include <memory>

using namespace Paddock;
using namespace Paddock::Inspect;
using PaddockTest::TestSession;

namespace {

constexpr int Long = 30000; // how long a read may take on a busy machine before the test fails

const QString Fixtures = QStringLiteral(AGENTSCOPE_FIXTURES);
const QString Session1 = QStringLiteral("6f1c2a9e4b7d4e0f9a3c5b8d2e1f0a47");
const QString Session2 = QStringLiteral("b83e07d5c21a4f6e8d9b0a1c2e3f4d5a");
const QString ToolResult = QStringLiteral("tool_result-call_Hn4kP8sD2fG6jL0qW5eR9tY3.txt");
const QString Png1 = QStringLiteral("e216a0c2a06cdbf5a548d6901b544807f9d5b533201e018b3b9923672222e096.png");
const QString Png2 = QStringLiteral("66c95792335b8c2bd8fd8bc3b629e3b7b4e3dafb175a5396df078a4b74c392df.png");
const QByteArray Secret = "sample-secret-";

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

// Everything the model holds as text, every role a user could see or copy.
void modelTexts(const QAbstractItemModel *model, const QModelIndex &parent, QStringList &out)
{
    for (int row = 0; row < model->rowCount(parent); ++row) {
        for (int column = 0; column < model->columnCount(parent); ++column) {
            const QModelIndex index = model->index(row, column, parent);
            for (const int role : {int(Qt::DisplayRole), int(Qt::ToolTipRole), int(Qt::AccessibleTextRole),
                                   int(InspectorItem::CopyRole), int(TranscriptModel::PreviewRole)})
                out.append(index.data(role).toString());
            const QStringList badges = index.data(TranscriptModel::BadgesRole).toStringList();
            out.append(badges);
        }
        modelTexts(model, model->index(row, 0, parent), out);
    }
}

// Every text of a widget tree: labels, buttons, fields, documents (as text and as HTML), tabs,
// tooltips, and the models of its views.
QStringList widgetTexts(QWidget *root)
{
    QStringList out;
    QList<QWidget *> widgets = root->findChildren<QWidget *>();
    widgets.append(root);
    for (QWidget *widget : std::as_const(widgets)) {
        out.append(widget->toolTip());
        out.append(widget->accessibleName());
        out.append(widget->accessibleDescription());
        out.append(widget->windowTitle());
        if (auto *label = qobject_cast<QLabel *>(widget))
            out.append(label->text());
        if (auto *button = qobject_cast<QAbstractButton *>(widget))
            out.append(button->text());
        if (auto *edit = qobject_cast<QLineEdit *>(widget))
            out.append(edit->text());
        if (auto *text = qobject_cast<QTextEdit *>(widget)) {
            out.append(text->toPlainText());
            out.append(text->toHtml());
        }
        if (auto *tabs = qobject_cast<QTabWidget *>(widget)) {
            for (int i = 0; i < tabs->count(); ++i)
                out.append(tabs->tabText(i));
        }
        if (auto *view = qobject_cast<QAbstractItemView *>(widget); view && view->model())
            modelTexts(view->model(), {}, out);
        for (QAction *action : widget->actions())
            out.append(action->text());
    }
    return out;
}

int secretsIn(const QStringList &texts)
{
    int count = 0;
    for (const QString &text : texts)
        count += int(text.count(QString::fromLatin1(Secret)));
    return count;
}

QModelIndex findText(const QAbstractItemModel *model, const QString &text, int column = 0,
                     const QModelIndex &parent = {})
{
    for (int row = 0; row < model->rowCount(parent); ++row) {
        const QModelIndex index = model->index(row, column, parent);
        if (index.data().toString() == text)
            return index;
        if (const QModelIndex inner = findText(model, text, column, model->index(row, 0, parent)); inner.isValid())
            return inner;
    }
    return {};
}

QList<QModelIndex> findAll(const QAbstractItemModel *model, const QString &text, const QModelIndex &parent = {})
{
    QList<QModelIndex> found;
    for (int row = 0; row < model->rowCount(parent); ++row) {
        const QModelIndex index = model->index(row, 0, parent);
        if (index.data().toString() == text)
            found.append(index);
        found.append(findAll(model, text, index));
    }
    return found;
}

// What is logged while a test runs (a secret must never be among it).
QStringList &logged()
{
    static QStringList lines;
    return lines;
}

void captureLog(QtMsgType, const QMessageLogContext &, const QString &message)
{
    logged().append(message);
}

} // namespace

class TestInspectorDock final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void readsNothingWhileHidden();
    void overviewShowsTheRowAtOnceThenTheDetails();
    void sessionsListAndTranscriptAsAConversation();
    void toolResultFileOpensPageByPage();
    void linesOfOneMessageAreMerged();
    void damagedContextGivesNotes();
    void longLineShowsItsStartWithShowMore();
    void mcpIsMaskedAndRevealedOneValueAtATime();
    void brokenMcpGivesNotesAndNoText();
    void skillsSayWhatAgentScopeIgnores();
    void dataIsSniffedReferencedAndPreviewed();
    void gatewayFilesHealthAndMaskedLog();
    void filesTreePreviewsAndRefusals();
    void movingOnCancelsTheReadsInFlight();
    void backendWithoutFilesSaysSoInPlace();
    void pausedSandboxIsNotAskedForItsFiles();
    void windowWiresTheDockToTheCurrentRow();
    void chineseTexts();
    void serverTimesReadAsTheOtherTimes();

private:
    InspectorDock *showDock();
    void openTab(InspectorPanel *panel);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<BootstrapLogStore> m_logs;
    std::unique_ptr<TestSession<LocalBackend>> m_session;
    std::unique_ptr<QMainWindow> m_window;
    SandboxInfo m_sandbox;
    QString m_workdir;
};

void TestInspectorDock::initTestCase()
{
    qInstallMessageHandler(captureLog);
}

void TestInspectorDock::init()
{
    logged().clear();
    QApplication::clipboard()->clear();
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
    m_window = std::make_unique<QMainWindow>();
    m_window->resize(1000, 800);
}

void TestInspectorDock::cleanup()
{
    // Nothing secret was logged, whatever the test did.
    for (const QString &line : std::as_const(logged()))
        QVERIFY2(!line.contains(QString::fromLatin1(Secret)), qPrintable(line));
    m_window.reset();
    m_session.reset();
    m_logs.reset();
    m_dir.reset();
}

InspectorDock *TestInspectorDock::showDock()
{
    auto *dock = new InspectorDock(m_window.get());
    m_window->addDockWidget(Qt::RightDockWidgetArea, dock);
    m_window->show();
    dock->show();
    return dock;
}

void TestInspectorDock::openTab(InspectorPanel *panel)
{
    auto *dock = qobject_cast<InspectorDock *>(m_window->findChild<InspectorDock *>());
    dock->tabs()->setCurrentWidget(panel);
}

void TestInspectorDock::readsNothingWhileHidden()
{
    auto *dock = new InspectorDock(m_window.get());
    m_window->addDockWidget(Qt::RightDockWidgetArea, dock);
    dock->hide();
    m_window->show();
    QCOMPARE(dock->objectName(), QStringLiteral("inspectorDock"));
    QCOMPARE(dock->windowTitle(), InspectorDock::tr("Inspector"));
    QVERIFY(!dock->hasWorkspace());
    QCOMPARE(dock->findChild<QLabel *>(QStringLiteral("inspectorEmpty"))->text(), dock->emptyText());

    dock->setWorkspace(m_session->get(), m_sandbox);
    QVERIFY(dock->hasWorkspace());
    // Hidden: no tab has read anything; the overview already shows what the row knows.
    for (InspectorPanel *panel : dock->panels())
        QVERIFY(!panel->isLoaded());
    QVERIFY(findText(dock->overview()->model(), QStringLiteral("ws-inspect"), 1).isValid());

    // Shown: only the tab in front reads.
    dock->show();
    QVERIFY(dock->overview()->isLoaded());
    for (InspectorPanel *panel : dock->panels()) {
        if (panel != dock->overview())
            QVERIFY(!panel->isLoaded());
    }
    QTRY_VERIFY_WITH_TIMEOUT(dock->overview()->hasDetails(), Long);
    dock->tabs()->setCurrentWidget(dock->mcp());
    QVERIFY(dock->mcp()->isLoaded());
    QVERIFY(!dock->skills()->isLoaded());

    dock->clearWorkspace(InspectorDock::Empty::Group);
    QVERIFY(!dock->hasWorkspace());
    QVERIFY(dock->emptyText().contains(InspectorDock::tr("group")));
}

void TestInspectorDock::overviewShowsTheRowAtOnceThenTheDetails()
{
    InspectorDock *dock = showDock();
    SandboxInfo row = m_sandbox;
    row.metadata.insert(QStringLiteral("team"), QStringLiteral("reports"));
    row.metadata.insert(QStringLiteral("note"), QStringLiteral("token=sample-secret-in-metadata"));
    dock->setWorkspace(m_session->get(), row);
    OverviewPanel *overview = dock->overview();
    // At once, from the row.
    QVERIFY(findText(overview->model(), QStringLiteral("ws-inspect"), 1).isValid());
    QVERIFY(findText(overview->model(), QStringLiteral("alice"), 1).isValid());
    QVERIFY(findText(overview->model(), QStringLiteral("agent-1"), 1).isValid());
    QVERIFY(findText(overview->model(), m_workdir, 1).isValid());
    QVERIFY(findText(overview->model(), m_workdir + QStringLiteral("/.agentscope"), 1).isValid());
    // (Copy as paddockctl Command waits for the details; they may be in already on a local session.)
    QCOMPARE(overview->copyCommandButton()->isEnabled(), overview->hasDetails());
    // The server's answer and the top level follow.
    QTRY_VERIFY_WITH_TIMEOUT(overview->hasDetails(), Long);
    QVERIFY(findText(overview->model(), QStringLiteral("20260821_q3-review/")).isValid());
    QVERIFY(findText(overview->model(), QStringLiteral(".mcp")).isValid());
    QCOMPARE(findText(overview->model(), QStringLiteral(".mcp")).siblingAtColumn(1).data().toString(),
             OverviewPanel::tr("present"));

    overview->copyIdButton()->click();
    QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("ws-inspect"));
    QVERIFY(overview->copyCommandButton()->isEnabled());
    overview->copyCommandButton()->click();
    const QString command = QApplication::clipboard()->text();
    QVERIFY2(command.startsWith(QStringLiteral("paddockctl --backend local --basedir ")), qPrintable(command));
    QVERIFY2(command.endsWith(QStringLiteral(" inspect ws-inspect")), qPrintable(command));

    // The row listed again (its state changed) shows without the tab starting over.
    row.lastActivityAt = QDateTime(QDate(2026, 12, 1), QTime(10, 0), Qt::UTC);
    const auto token = dock->token();
    dock->setWorkspace(m_session->get(), row);
    QCOMPARE(dock->token(), token);
    QVERIFY(!token->isCancelled());
    QVERIFY(findText(overview->model(), Inspector::timeText(row.lastActivityAt), 1).isValid());
    QCOMPARE(secretsIn(widgetTexts(dock)), 0);
}

void TestInspectorDock::sessionsListAndTranscriptAsAConversation()
{
    InspectorDock *dock = showDock();
    dock->setWorkspace(m_session->get(), m_sandbox);
    SessionsPanel *sessions = dock->sessions();
    openTab(sessions);
    QTRY_VERIFY_WITH_TIMEOUT(sessions->isListed(), Long);
    QCOMPARE(sessions->sessionsModel()->rowCount(), 2);
    // Sizes and line counts of the rows in view come by themselves.
    const int row1 = sessions->sessionsModel()->rowOf(Session1);
    QVERIFY(row1 >= 0);
    QTRY_VERIFY_WITH_TIMEOUT(sessions->sessionsModel()->at(row1).summary.lineCount.has_value(), Long);
    QCOMPARE(*sessions->sessionsModel()->at(row1).summary.lineCount, 4);
    QCOMPARE(sessions->sessionsModel()->at(row1).summary.toolResults.size(), 1);

    QVERIFY(sessions->selectSession(Session1));
    QTRY_VERIFY_WITH_TIMEOUT(sessions->isTranscriptRead(), Long);
    QCOMPARE(sessions->currentSession(), Session1);
    // What context.jsonl is, said plainly.
    QVERIFY(sessions->banner()->isVisible());
    QVERIFY(sessions->banner()->text().contains(QStringLiteral("not the whole conversation")));
    TranscriptView *transcript = sessions->transcript();
    TranscriptModel *model = transcript->model();
    QVERIFY(model->rowCount() >= 3);
    QCOMPARE(model->summary(0).role, QStringLiteral("user"));
    // The user's picture: a data file, as a thumbnail.
    transcript->setCurrentRow(0);
    QTRY_VERIFY_WITH_TIMEOUT(transcript->detail()->toHtml().contains(QStringLiteral("thumb:0")), Long);
    QVERIFY(transcript->detail()->toPlainText().contains(QStringLiteral("data/") + Png1));

    // The assistant's reply: thinking collapsed, the tool call with its result under it, the
    // truncated result linked to its file.
    int reply = -1;
    for (int row = 0; row < model->rowCount(); ++row) {
        if (model->summary(row).toolCalls > 0 && model->summary(row).truncated)
            reply = row;
    }
    QVERIFY(reply >= 0);
    QVERIFY(model->data(model->index(reply), TranscriptModel::BadgesRole)
                .toStringList()
                .contains(TranscriptModel::tr("thinking")));
    QVERIFY(!model->data(model->index(reply), TranscriptModel::TokensRole).toString().isEmpty());
    transcript->setCurrentRow(reply);
    const QString text = transcript->detail()->toPlainText();
    QVERIFY2(text.contains(QStringLiteral("mcp__github__search_code")), qPrintable(text));
    const qsizetype call = text.indexOf(TranscriptView::tr("Tool call"));
    const qsizetype result = text.indexOf(TranscriptView::tr("Result"), call);
    const qsizetype found = text.indexOf(QStringLiteral("Found 3 code results"));
    QVERIFY(call >= 0 && result > call && found > result);
    QVERIFY(text.contains(QStringLiteral("18,342")) || text.contains(QStringLiteral("18342")));
    // Thinking starts collapsed: its text is not shown until opened.
    QVERIFY(text.contains(TranscriptView::tr("Thinking")));
    QVERIFY(!text.contains(QStringLiteral("List the exported CSVs first")));
    transcript->followLink(QStringLiteral("inspect:toggle/0"));
    QVERIFY(transcript->detail()->toPlainText().contains(QStringLiteral("List the exported CSVs first")));
    const QString html = transcript->detail()->toHtml();
    QVERIFY2(html.contains(QStringLiteral("inspect:file/sessions/") + Session1 + u'/' + ToolResult), qPrintable(html));
    // Dropped from the cache, a message is read again from its byte range, and shows the same.
    model->dropCache();
    QCOMPARE(model->cachedBytes(), 0);
    transcript->setCurrentRow(0);
    transcript->setCurrentRow(reply);
    QTRY_VERIFY_WITH_TIMEOUT(model->message(reply), Long);
    QTRY_COMPARE_WITH_TIMEOUT(transcript->detail()->toPlainText(), text, Long);
    QCOMPARE(model->message(reply)->firstLine, model->summary(reply).firstLine);
    QCOMPARE(secretsIn(widgetTexts(dock)), 0);
}

void TestInspectorDock::toolResultFileOpensPageByPage()
{
    InspectorDock *dock = showDock();
    dock->setWorkspace(m_session->get(), m_sandbox);
    SessionsPanel *sessions = dock->sessions();
    openTab(sessions);
    QTRY_VERIFY_WITH_TIMEOUT(sessions->isListed(), Long);
    QVERIFY(sessions->selectSession(Session1));
    QTRY_VERIFY_WITH_TIMEOUT(sessions->isTranscriptRead(), Long);
    TranscriptView *transcript = sessions->transcript();
    int reply = -1;
    for (int row = 0; row < transcript->model()->rowCount(); ++row) {
        if (transcript->model()->summary(row).truncated)
            reply = row;
    }
    transcript->setCurrentRow(reply);
    transcript->followLink(QStringLiteral("inspect:file/sessions/") + Session1 + u'/' + ToolResult);
    QVERIFY(sessions->dialog());
    TextPageView *page = sessions->dialog()->view();
    QTRY_VERIFY_WITH_TIMEOUT(!page->isReading() && !page->text().isEmpty(), Long);
    QFile file(m_workdir + QStringLiteral("/sessions/") + Session1 + u'/' + ToolResult);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(page->text(), QString::fromUtf8(file.readAll()));
    QCOMPARE(page->path(), QStringLiteral("sessions/") + Session1 + u'/' + ToolResult);
    // A link that leads out of the workspace (a transcript can name any path) is refused, said so.
    transcript->followLink(QStringLiteral("inspect:file/../../../../../../etc/hostname"));
    QTRY_VERIFY_WITH_TIMEOUT(!page->isReading() && page->note()->kind() == InspectorNote::Kind::Error, Long);
    QVERIFY(page->text().isEmpty());
    QVERIFY(page->note()->text().contains(InspectorText::tr("Refused: %1").section(u':', 0, 0)));
    // The tool results are offered from the session's header too.
    QTRY_VERIFY_WITH_TIMEOUT(sessions->toolResultsButton()->isEnabled(), Long);
    QCOMPARE(sessions->toolResultsButton()->menu()->actions().size(), 1);

    // The transcript's links to data/ go to the Data tab.
    QSignalSpy asked(sessions, &SessionsPanel::dataFileRequested);
    transcript->setCurrentRow(0);
    transcript->followLink(QStringLiteral("inspect:data/data/") + Png1);
    QCOMPARE(asked.count(), 1);
    QCOMPARE(dock->tabs()->currentWidget(), dock->data());
    QTRY_COMPARE_WITH_TIMEOUT(dock->data()->currentFile(), QStringLiteral("data/") + Png1, Long);
}

void TestInspectorDock::linesOfOneMessageAreMerged()
{
    InspectorDock *dock = showDock();
    dock->setWorkspace(m_session->get(), m_sandbox);
    SessionsPanel *sessions = dock->sessions();
    openTab(sessions);
    QTRY_VERIFY_WITH_TIMEOUT(sessions->isListed(), Long);
    QVERIFY(sessions->selectSession(Session2));
    QTRY_VERIFY_WITH_TIMEOUT(sessions->isTranscriptRead(), Long);
    TranscriptModel *model = sessions->transcript()->model();
    // Four lines, one reply written in two: three messages.
    QCOMPARE(model->rowCount(), 3);
    int merged = -1;
    for (int row = 0; row < model->rowCount(); ++row) {
        if (model->summary(row).lineCount == 2)
            merged = row;
    }
    QVERIFY(merged >= 0);
    QCOMPARE(model->data(model->index(merged), TranscriptModel::LinesRole).toString(),
             TranscriptModel::tr("lines %1–%2")
                 .arg(model->summary(merged).firstLine)
                 .arg(model->summary(merged).firstLine + 1));
    sessions->transcript()->setCurrentRow(merged);
    const QString text = sessions->transcript()->detail()->toPlainText();
    QVERIFY(text.contains(QStringLiteral("signature")));
}

void TestInspectorDock::damagedContextGivesNotes()
{
    QVERIFY(copyTree(Fixtures + QStringLiteral("/broken/context-damaged"),
                     m_workdir + QStringLiteral("/sessions/damaged")));
    InspectorDock *dock = showDock();
    dock->setWorkspace(m_session->get(), m_sandbox);
    SessionsPanel *sessions = dock->sessions();
    openTab(sessions);
    QTRY_VERIFY_WITH_TIMEOUT(sessions->isListed(), Long);
    QVERIFY(sessions->selectSession(QStringLiteral("damaged")));
    QTRY_VERIFY_WITH_TIMEOUT(sessions->isTranscriptRead(), Long);
    TranscriptModel *model = sessions->transcript()->model();
    bool notJson = false;
    bool incomplete = false;
    bool unknownBlock = false;
    for (int row = 0; row < model->rowCount(); ++row) {
        const auto kind = model->summary(row).kind;
        notJson = notJson || kind == TranscriptMessage::Kind::NotJson;
        incomplete = incomplete || kind == TranscriptMessage::Kind::Incomplete;
        sessions->transcript()->setCurrentRow(row);
        const QString text = sessions->transcript()->detail()->toPlainText();
        QVERIFY2(!text.isEmpty(), "never a blank message");
        if (kind == TranscriptMessage::Kind::NotJson)
            QVERIFY(text.contains(TranscriptView::tr("Show the line as text")));
        unknownBlock = unknownBlock || text.contains(QStringLiteral("“"));
    }
    QVERIFY(notJson);
    QVERIFY(incomplete);
    QVERIFY(unknownBlock);
    // The incomplete last line, said above the transcript with a way to read it again.
    QCOMPARE(sessions->transcriptNote()->kind(), InspectorNote::Kind::Warning);
    QVERIFY(sessions->transcriptNote()->isVisible());
    const int rows = model->rowCount();
    sessions->transcript()->followLink(QStringLiteral("inspect:again"));
    QTRY_VERIFY_WITH_TIMEOUT(sessions->isTranscriptRead(), Long);
    QCOMPARE(model->rowCount(), rows);
    QCOMPARE(model->summary(rows - 1).kind, TranscriptMessage::Kind::Incomplete);

    // A session folder without context.jsonl is said so, not an error.
    QVERIFY(writeFile(m_workdir + QStringLiteral("/sessions/only-results/tool_result-x.txt"), "rest"));
    dock->sessions()->reload();
    QTRY_VERIFY_WITH_TIMEOUT(sessions->sessionsModel()->rowOf(QStringLiteral("only-results")) >= 0, Long);
    QVERIFY(sessions->selectSession(QStringLiteral("only-results")));
    QTRY_VERIFY_WITH_TIMEOUT(sessions->isTranscriptRead(), Long);
    QCOMPARE(sessions->transcriptNote()->kind(), InspectorNote::Kind::Info);
    QVERIFY(sessions->transcriptNote()->text().contains(QStringLiteral("no context.jsonl")));
}

void TestInspectorDock::longLineShowsItsStartWithShowMore()
{
    // One message of 5 MB of text: read, and shown from its start.
    QByteArray text(5 * 1024 * 1024, 'x');
    for (qsizetype i = 0; i < text.size(); i += 100)
        text[i] = ' ';
    const QByteArray line = R"({"name":"Friday","content":[{"type":"text","text":")" + text
        + R"(","id":"t1"}],"role":"assistant","id":"long-1","metadata":{},"created_at":"2026-08-21T09:12:03.418277","usage":null,"finished_at":null,"finished_reason":null,"structured_output":null,"error":null})"
        + '\n';
    QVERIFY(writeFile(m_workdir + QStringLiteral("/sessions/long/context.jsonl"), line));
    InspectorDock *dock = showDock();
    dock->setWorkspace(m_session->get(), m_sandbox);
    SessionsPanel *sessions = dock->sessions();
    openTab(sessions);
    QTRY_VERIFY_WITH_TIMEOUT(sessions->isListed(), Long);
    QVERIFY(sessions->selectSession(QStringLiteral("long")));
    QTRY_VERIFY_WITH_TIMEOUT(sessions->isTranscriptRead(), Long);
    TranscriptView *transcript = sessions->transcript();
    QCOMPARE(transcript->model()->rowCount(), 1);
    transcript->setCurrentRow(0);
    const qsizetype shown = transcript->detail()->toPlainText().count(u'x');
    QVERIFY(shown > 1000 && shown < 10000);
    QVERIFY(transcript->detail()->toHtml().contains(QStringLiteral("inspect:more/0")));
    transcript->followLink(QStringLiteral("inspect:more/0"));
    QVERIFY(transcript->detail()->toPlainText().count(u'x') > shown);
}

void TestInspectorDock::mcpIsMaskedAndRevealedOneValueAtATime()
{
    InspectorDock *dock = showDock();
    dock->setWorkspace(m_session->get(), m_sandbox);
    McpPanel *mcp = dock->mcp();
    openTab(mcp);
    QTRY_VERIFY_WITH_TIMEOUT(mcp->isRead(), Long);
    QStandardItemModel *model = mcp->model();
    QVERIFY(findText(model, QStringLiteral("agent-1")).isValid());
    QVERIFY(findText(model, QStringLiteral("github")).isValid());
    const QModelIndex token = findText(model, QStringLiteral("GITHUB_PERSONAL_ACCESS_TOKEN"));
    QVERIFY(token.isValid());
    QCOMPARE(token.siblingAtColumn(1).data().toString(), QStringLiteral("••••"));
    // The explicitly emptied session says what [] means.
    const QModelIndex empty = findText(model, QStringLiteral("0a9b8c7d6e5f40312a3b4c5d6e7f8091"));
    QVERIFY(empty.isValid());
    QVERIFY(empty.siblingAtColumn(1).data().toString().contains(QStringLiteral("[]")));
    QCOMPARE(secretsIn(widgetTexts(dock)), 0);

    // Copy by default is masked.
    mcp->view()->selectAll();
    mcp->view()->copyAction()->trigger();
    QVERIFY(!QApplication::clipboard()->text().isEmpty());
    QVERIFY(!QApplication::clipboard()->text().contains(QString::fromLatin1(Secret)));

    // Reveal: exactly that one value shows.
    mcp->view()->setCurrentIndex(token);
    QVERIFY(mcp->revealButton()->isEnabled());
    QVERIFY(!mcp->copyRevealedAction()->isEnabled());
    mcp->revealButton()->click();
    QCOMPARE(mcp->revealedCount(), 1);
    QStringList texts;
    modelTexts(model, {}, texts);
    QCOMPARE(secretsIn(texts), 1);
    QCOMPARE(findText(model, QStringLiteral("GITHUB_PERSONAL_ACCESS_TOKEN")).siblingAtColumn(1).data().toString(),
             QStringLiteral("sample-secret-github-pat-0001"));
    // Copy still copies it masked; only Copy Revealed Value copies it.
    mcp->view()->setCurrentIndex(findText(model, QStringLiteral("GITHUB_PERSONAL_ACCESS_TOKEN")));
    mcp->view()->selectionModel()->select(mcp->view()->currentIndex(),
                                          QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    mcp->view()->copyAction()->trigger();
    QVERIFY2(!QApplication::clipboard()->text().contains(QString::fromLatin1(Secret)),
             qPrintable(QApplication::clipboard()->text()));
    mcp->view()->copyValueAction()->trigger();
    QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("••••"));
    QVERIFY(mcp->copyRevealedAction()->isEnabled());
    mcp->copyRevealedAction()->trigger();
    QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("sample-secret-github-pat-0001"));
    QApplication::clipboard()->clear();
    // Hidden again.
    mcp->revealButton()->click();
    QCOMPARE(mcp->revealedCount(), 0);
    QCOMPARE(secretsIn(widgetTexts(dock)), 0);

    // The URL with a key in its query, and a header: masked, each revealed on its own.
    QModelIndex url;
    for (const QModelIndex &candidate : findAll(model, McpPanel::tr("URL"))) {
        if (candidate.siblingAtColumn(1).data().toString().contains(QStringLiteral("••••")))
            url = candidate;
    }
    QVERIFY(url.isValid());
    QVERIFY(url.siblingAtColumn(1).data().toString().contains(QStringLiteral("key=")));
    mcp->view()->setCurrentIndex(url);
    mcp->revealCurrent();
    texts.clear();
    modelTexts(model, {}, texts);
    QVERIFY(secretsIn(texts) >= 1);
    mcp->hideAll();
    QCOMPARE(secretsIn(widgetTexts(dock)), 0);
}

void TestInspectorDock::brokenMcpGivesNotesAndNoText()
{
    QVERIFY(QFile::remove(m_workdir + QStringLiteral("/.mcp")));
    QVERIFY(QFile::copy(Fixtures + QStringLiteral("/broken/mcp-truncated/.mcp"), m_workdir + QStringLiteral("/.mcp")));
    InspectorDock *dock = showDock();
    dock->setWorkspace(m_session->get(), m_sandbox);
    McpPanel *mcp = dock->mcp();
    openTab(mcp);
    QTRY_VERIFY_WITH_TIMEOUT(mcp->isRead(), Long);
    QCOMPARE(mcp->note()->kind(), InspectorNote::Kind::Error);
    QVERIFY(mcp->note()->text().contains(QStringLiteral("default")));
    QCOMPARE(mcp->model()->rowCount(), 0);
    QCOMPARE(secretsIn(widgetTexts(dock)), 0);

    // An entry AgentScope skips is listed, with why, and masked.
    QVERIFY(QFile::remove(m_workdir + QStringLiteral("/.mcp")));
    QVERIFY(
        QFile::copy(Fixtures + QStringLiteral("/broken/mcp-invalid-entry/.mcp"), m_workdir + QStringLiteral("/.mcp")));
    mcp->reload();
    QTRY_VERIFY_WITH_TIMEOUT(mcp->model()->rowCount() > 0, Long);
    QStringList texts;
    modelTexts(mcp->model(), {}, texts);
    QVERIFY(texts.join(u'\n').contains(McpPanel::tr("Skipped because")));
    QCOMPARE(mcp->note()->kind(), InspectorNote::Kind::Warning); // an agent that is not an object
    QCOMPARE(secretsIn(widgetTexts(dock)), 0);

    // No .mcp at all: what that means.
    QVERIFY(QFile::remove(m_workdir + QStringLiteral("/.mcp")));
    mcp->reload();
    QTRY_COMPARE_WITH_TIMEOUT(mcp->model()->rowCount(), 0, Long);
    QTRY_VERIFY_WITH_TIMEOUT(mcp->note()->text().contains(QStringLiteral("default_mcps")), Long);
}

void TestInspectorDock::skillsSayWhatAgentScopeIgnores()
{
    QVERIFY(copyTree(Fixtures + QStringLiteral("/broken/skill-missing-description"),
                     m_workdir + QStringLiteral("/skills/agent-1/no-description")));
    QVERIFY(copyTree(Fixtures + QStringLiteral("/broken/skill-bad-front-matter"),
                     m_workdir + QStringLiteral("/skills/agent-1/bad-yaml")));
    InspectorDock *dock = showDock();
    dock->setWorkspace(m_session->get(), m_sandbox);
    SkillsPanel *skills = dock->skills();
    openTab(skills);
    QTRY_VERIFY_WITH_TIMEOUT(skills->isRead(), Long);
    QStandardItemModel *model = skills->model();
    QCOMPARE(model->rowCount(), 3); // .seed, agent-1, agent-2
    QCOMPARE(model->item(0)->text(), QStringLiteral(".seed"));
    QVERIFY(findText(model, QStringLiteral("csv-audit")).isValid());
    QVERIFY(!findText(model, QStringLiteral("csv-audit")).siblingAtColumn(1).data().toString().isEmpty());
    // Both broken skills are listed, each with why AgentScope ignores it.
    const QString ignored = SkillsPanel::tr("ignored by AgentScope: %1").arg(QString());
    const QModelIndex halfDone = findText(model, QStringLiteral("half-done"));
    QVERIFY(halfDone.isValid());
    QVERIFY(halfDone.siblingAtColumn(1).data().toString().startsWith(ignored));
    const QModelIndex badYaml = findText(model, QStringLiteral("bad-yaml"));
    QVERIFY(badYaml.isValid());
    QVERIFY(badYaml.siblingAtColumn(1).data().toString().startsWith(ignored));
    QCOMPARE(badYaml.data(InspectorItem::ToneRole).toInt(), int(InspectorItem::Tone::Warning));
    // The seed's extra front matter keys, as what AgentScope ignores.
    skills->view()->setCurrentIndex(findText(model, QStringLiteral("csv-audit")));
    QVERIFY(skills->detail()->toPlainText().contains(QStringLiteral("csv-audit")));
}

void TestInspectorDock::dataIsSniffedReferencedAndPreviewed()
{
    InspectorDock *dock = showDock();
    dock->setWorkspace(m_session->get(), m_sandbox);
    DataPanel *data = dock->data();
    openTab(data);
    QTRY_VERIFY_WITH_TIMEOUT(data->referencesScanned(), Long);
    QCOMPARE(data->model()->rowCount(), 2);
    const QModelIndex png = findText(data->model(), Png1);
    QVERIFY(png.isValid());
    QVERIFY(png.siblingAtColumn(2).data().toString().startsWith(QStringLiteral("png")));
    QCOMPARE(png.siblingAtColumn(3).data().toString(), QStringLiteral("sessions/%1/context.jsonl").arg(Session1));
    data->selectFile(QStringLiteral("data/") + Png1);
    QTRY_VERIFY_WITH_TIMEOUT(!data->imageLabel()->pixmap().isNull(), Long);
    // Shown larger than its 4 × 4 pixels, so that it can be seen.
    QCOMPARE(data->imageLabel()->pixmap().size(), QSize(128, 128));
    QVERIFY(data->previewInfo()->text().contains(QStringLiteral("4 × 4")));
}

void TestInspectorDock::gatewayFilesHealthAndMaskedLog()
{
    // A secret in the log is masked in the copy the Logs dock shows.
    QFile log(m_workdir + QStringLiteral("/.agentscope/gateway.log"));
    QVERIFY(log.open(QIODevice::Append));
    log.write("INFO:     npx: using Authorization: Bearer sample-secret-bearer-0009\n");
    log.close();
    InspectorDock *dock = showDock();
    dock->setWorkspace(m_session->get(), m_sandbox);
    GatewayPanel *gateway = dock->gateway();
    openTab(gateway);
    QTRY_VERIFY_WITH_TIMEOUT(gateway->isRead(), Long);
    QVERIFY(gateway->gateway()->scriptPresent);
    QVERIFY(gateway->gateway()->bootstrapComplete());
    QVERIFY(findText(gateway->model(), QStringLiteral("_mcp_gateway_app.py")).isValid());
    QCOMPARE(gateway->gateway()->health, GatewayView::Health::NotAsked);

    QSignalSpy shown(dock, &InspectorDock::showLogFile);
    QVERIFY(gateway->logButton()->isEnabled());
    gateway->logButton()->click();
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, Long);
    const QString path = shown.at(0).at(0).toString();
    QVERIFY(path.startsWith(gateway->logFolder()));
    QFile copy(path);
    QVERIFY(copy.open(QIODevice::ReadOnly));
    const QByteArray copied = copy.readAll();
    QVERIFY(copied.contains("[gateway] serving on"));
    QVERIFY(copied.contains("Bearer"));
    QVERIFY(!copied.contains(Secret));
    // Its first line is Paddock's, in the bootstrap log's format.
    QCOMPARE(LogLine::parse(copied.left(copied.indexOf('\n'))).kind, LogLine::Kind::Status);

    // The Logs dock shows it; shown again, the same tab has it read anew.
    auto *logs = new LogDock(m_window.get());
    connect(dock, &InspectorDock::showLogFile, logs, &LogDock::showLocalFile);
    gateway->logButton()->click();
    QTRY_COMPARE_WITH_TIMEOUT(logs->tabs()->count(), 1, Long);
    QCOMPARE(logs->tabs()->tabText(0), GatewayPanel::tr("gateway.log: %1").arg(QStringLiteral("ws-inspect")));
    auto *viewer = qobject_cast<LogViewer *>(logs->tabs()->widget(0));
    QTRY_VERIFY_WITH_TIMEOUT(viewer->model()->rowCount() > 5, Long);
    gateway->logButton()->click();
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 3, Long);
    QCOMPARE(logs->tabs()->count(), 1);

    // Health, asked from inside the workspace: nothing listens here.
    gateway->healthButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!gateway->isProbing() && gateway->gateway()->health != GatewayView::Health::NotAsked,
                             Long);
    QVERIFY(gateway->gateway()->health != GatewayView::Health::Up);
    QCOMPARE(secretsIn(widgetTexts(dock)), 0);
}

void TestInspectorDock::filesTreePreviewsAndRefusals()
{
    QVERIFY(
        writeFile(m_workdir + QStringLiteral("/scratch/blob.bin"), QByteArray("\x00\x01\x02\x03", 4).repeated(100)));
    QVERIFY(QFile::link(QStringLiteral("/etc/hostname"), m_workdir + QStringLiteral("/scratch/outside")));
    InspectorDock *dock = showDock();
    dock->setWorkspace(m_session->get(), m_sandbox);
    FilesPanel *files = dock->files();
    openTab(files);
    QTRY_VERIFY_WITH_TIMEOUT(files->isFolderRead(m_workdir), Long);
    QVERIFY(files->itemOf(m_workdir + QStringLiteral("/sessions")));
    QVERIFY(files->itemOf(m_workdir + QStringLiteral("/.mcp")));

    // A text file, page by page.
    const QString readme = m_workdir + QStringLiteral("/20260821_q3-review/README.md");
    files->select(readme);
    QTRY_COMPARE_WITH_TIMEOUT(files->currentPath(), readme, Long);
    QTRY_VERIFY_WITH_TIMEOUT(!files->textPreview()->isReading() && !files->textPreview()->text().isEmpty(), Long);
    QFile file(readme);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(files->textPreview()->text(), QString::fromUtf8(file.readAll()));
    QVERIFY(files->saveButton()->isEnabled());

    // .mcp is never shown as text here.
    files->select(m_workdir + QStringLiteral("/.mcp"));
    QTRY_COMPARE_WITH_TIMEOUT(files->currentPath(), m_workdir + QStringLiteral("/.mcp"), Long);
    QVERIFY(files->textPreview()->text().isEmpty());
    QVERIFY(files->previewInfo()->text().contains(QStringLiteral("MCP")));

    // A binary file: a note, no text.
    files->select(m_workdir + QStringLiteral("/scratch/blob.bin"));
    QTRY_VERIFY_WITH_TIMEOUT(files->textPreview()->note()->isVisible(), Long);
    QVERIFY(files->textPreview()->note()->text().contains(QStringLiteral("binary")));
    QVERIFY(files->textPreview()->text().isEmpty());

    // A link out of the workspace is refused, and said so.
    files->select(m_workdir + QStringLiteral("/scratch/outside"));
    QTRY_COMPARE_WITH_TIMEOUT(files->textPreview()->note()->kind(), InspectorNote::Kind::Error, Long);
    QVERIFY(files->textPreview()->text().isEmpty());

    // Save As: a copy on this computer, through the session; the workspace is not touched.
    files->select(readme);
    QTRY_COMPARE_WITH_TIMEOUT(files->currentPath(), readme, Long);
    const QString saved = m_dir->filePath(QStringLiteral("saved/README copy.md"));
    QVERIFY(QDir().mkpath(QFileInfo(saved).path()));
    files->saveButton()->click();
    QFileDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = dock->findChild<QFileDialog *>(QStringLiteral("saveAsDialog"))) != nullptr);
    dialog->selectFile(saved);
    QMetaObject::invokeMethod(dialog, "accept"); // as its Save button does
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(saved), Long);
    QFile copy(saved);
    QVERIFY(copy.open(QIODevice::ReadOnly));
    QVERIFY(file.seek(0));
    QCOMPARE(copy.readAll(), file.readAll());

    // A picture.
    files->select(m_workdir + QStringLiteral("/data/") + Png2);
    QTRY_VERIFY_WITH_TIMEOUT(!files->imageLabel()->pixmap().isNull(), Long);
    QCOMPARE(files->imageLabel()->pixmap().size(), QSize(132, 66));
    QVERIFY(files->previewInfo()->text().contains(QStringLiteral("6 × 3")));
    QCOMPARE(secretsIn(widgetTexts(dock)), 0);
}

void TestInspectorDock::movingOnCancelsTheReadsInFlight()
{
    // A big transcript in the first workspace, a small second workspace.
    QByteArray big;
    const QByteArray line =
        R"({"name":"user","content":[{"type":"text","text":"hello there, this is a line of a big transcript","id":"t"}],"role":"user","id":"ID","metadata":{},"created_at":"2026-08-21T09:12:03.418277","usage":null,"finished_at":null,"finished_reason":null,"structured_output":null,"error":null})";
    for (int i = 0; big.size() < 8 * 1024 * 1024; ++i) {
        QByteArray copy = line;
        big += copy.replace("ID", QByteArray::number(i)) + '\n';
    }
    QVERIFY(writeFile(m_workdir + QStringLiteral("/sessions/zz-big/context.jsonl"), big));
    WorkspaceRequest request{QStringLiteral("bob"), QStringLiteral("agent-2"), {}, QStringLiteral("ws-other")};
    QVERIFY(QCoro::waitFor(m_session->session.open(request)));
    auto other = QCoro::waitFor(m_session->session.find(QStringLiteral("ws-other")));
    QVERIFY(other);

    InspectorDock *dock = showDock();
    dock->setWorkspace(m_session->get(), m_sandbox);
    SessionsPanel *sessions = dock->sessions();
    openTab(sessions);
    QTRY_VERIFY_WITH_TIMEOUT(sessions->isListed(), Long);
    QVERIFY(sessions->selectSession(QStringLiteral("zz-big")));
    // Moving on while the transcript is read: its reads stop, and nothing of it shows later.
    QTRY_VERIFY_WITH_TIMEOUT(sessions->transcript()->model()->rowCount() > 0, Long);
    QVERIFY(!sessions->isTranscriptRead());
    const auto token = dock->token();
    dock->setWorkspace(m_session->get(), *other);
    QVERIFY(token->isCancelled());
    QCOMPARE(sessions->transcript()->model()->rowCount(), 0);
    QCOMPARE(sessions->currentSession(), QString());
    QTRY_VERIFY_WITH_TIMEOUT(sessions->isListed(), Long);
    QCOMPARE(sessions->sessionsModel()->rowCount(), 0);
    QVERIFY(sessions->note()->text().contains(QStringLiteral("sessions/")));
    // Whatever was in flight for the first workspace has landed by now or never will: still none
    // of it here once the event loop has run the overview of the second.
    dock->tabs()->setCurrentWidget(dock->overview());
    QTRY_VERIFY_WITH_TIMEOUT(dock->overview()->hasDetails(), Long);
    QCOMPARE(sessions->transcript()->model()->rowCount(), 0);
    QCOMPARE(sessions->sessionsModel()->rowCount(), 0);
    QVERIFY(findText(dock->overview()->model(), QStringLiteral("ws-other"), 1).isValid());
    QVERIFY(!findText(dock->overview()->model(), QStringLiteral("ws-inspect"), 1).isValid());
}

void TestInspectorDock::backendWithoutFilesSaysSoInPlace()
{
    auto scripted = std::make_unique<PaddockTest::ScriptedBackend>();
    SandboxInfo info;
    info.sandboxId = QStringLiteral("sbx-1");
    info.workspaceId = QStringLiteral("ws-remote");
    info.state = SandboxState::Running;
    info.rawState = QStringLiteral("Running");
    scripted->sandboxes.append(info);
    TestSession<PaddockTest::ScriptedBackend> remote(std::move(scripted),
                                                     PaddockTest::testProfile(QStringLiteral("r")));
    InspectorDock *dock = showDock();
    dock->setWorkspace(remote.get(), info);
    QTRY_VERIFY_WITH_TIMEOUT(dock->overview()->hasDetails(), Long);
    for (InspectorPanel *panel :
         {static_cast<InspectorPanel *>(dock->sessions()), static_cast<InspectorPanel *>(dock->mcp()),
          static_cast<InspectorPanel *>(dock->skills()), static_cast<InspectorPanel *>(dock->data())}) {
        openTab(panel);
        QTRY_VERIFY_WITH_TIMEOUT(!panel->findChild<InspectorNote *>()->text().isEmpty()
                                     && panel->findChild<InspectorNote *>()->text().contains(
                                         InspectorText::tr("This backend cannot read a workspace's files or run "
                                                           "commands in it: %1")
                                             .section(u':', 0, 0)),
                                 Long);
    }
    openTab(dock->files());
    QTRY_VERIFY_WITH_TIMEOUT(dock->files()->isFolderRead(QStringLiteral("/workspace")), Long);
    QStandardItem *root = dock->files()->itemOf(QStringLiteral("/workspace"));
    QVERIFY(root && root->rowCount() == 1);
    QVERIFY(root->child(0)->text().contains(InspectorText::tr("This backend cannot read a workspace's files or run "
                                                              "commands in it: %1")
                                                .section(u':', 0, 0)));
}

void TestInspectorDock::pausedSandboxIsNotAskedForItsFiles()
{
    auto scripted = std::make_unique<PaddockTest::ScriptedBackend>();
    SandboxInfo info;
    info.sandboxId = QStringLiteral("sbx-1");
    info.workspaceId = QStringLiteral("ws-paused");
    info.state = SandboxState::Paused;
    info.rawState = QStringLiteral("Paused");
    scripted->sandboxes.append(info);
    SandboxInfo other = info; // read for the first time after the language changed
    other.sandboxId = QStringLiteral("sbx-2");
    other.workspaceId = QStringLiteral("ws-paused-2");
    scripted->sandboxes.append(other);
    TestSession<PaddockTest::ScriptedBackend> remote(std::move(scripted),
                                                     PaddockTest::testProfile(QStringLiteral("r")));
    InspectorDock *dock = showDock();
    dock->setWorkspace(remote.get(), info);
    // Said in place, as information (the core refuses at once: a paused sandbox would not answer).
    const QString notRunning = QStringLiteral("its files can be read only while it runs");
    openTab(dock->sessions());
    QTRY_VERIFY_WITH_TIMEOUT(dock->sessions()->note()->text().contains(notRunning), Long);
    QCOMPARE(dock->sessions()->note()->kind(), InspectorNote::Kind::Info);
    {
        // Another language: the note follows it, the core's words in it too, without a new
        // selection.
        QCOMPARE(Paddock::useLanguage(QLocale(QStringLiteral("zh_CN"))), QStringLiteral("zh_CN"));
        const auto english = qScopeGuard([] { Paddock::dropLanguage(); });
        QTRY_VERIFY2_WITH_TIMEOUT(dock->sessions()->note()->text().contains(QStringLiteral("“已暂停”")),
                                  qPrintable(dock->sessions()->note()->text()), Long);
        QVERIFY2(!dock->sessions()->note()->text().contains(notRunning), qPrintable(dock->sessions()->note()->text()));
    }
    QCoreApplication::processEvents(); // the LanguageChange that dropping the language posts
    QTRY_VERIFY_WITH_TIMEOUT(dock->sessions()->note()->text().contains(notRunning), Long);
    openTab(dock->mcp());
    QTRY_VERIFY_WITH_TIMEOUT(dock->mcp()->note()->text().contains(notRunning), Long);
    // The state in words of the interface's language, not the server's "Paused".
    QVERIFY2(dock->mcp()->note()->text().contains(QLatin1String("the workspace is paused:")),
             qPrintable(dock->mcp()->note()->text()));
    {
        QCOMPARE(Paddock::useLanguage(QLocale(QStringLiteral("zh_CN"))), QStringLiteral("zh_CN"));
        const auto english = qScopeGuard([] { Paddock::dropLanguage(); });
        dock->setWorkspace(remote.get(), other);
        openTab(dock->mcp());
        QTRY_VERIFY2_WITH_TIMEOUT(dock->mcp()->note()->text().contains(QStringLiteral("“已暂停”")),
                                  qPrintable(dock->mcp()->note()->text()), Long);
        QVERIFY2(!dock->mcp()->note()->text().contains(QLatin1String("Paused")),
                 qPrintable(dock->mcp()->note()->text()));
    }
    QCoreApplication::processEvents(); // the LanguageChange that dropping the language posts
    // The Files tab calls the session's file calls itself: it does not ask.
    openTab(dock->files());
    QVERIFY(!dock->files()->filesReadable());
    QCOMPARE(dock->files()->note()->text(), dock->files()->filesUnreadableText());
    QCOMPARE(dock->files()->model()->rowCount(), 0);
    // Running again (the row listed anew): read.
    info.state = SandboxState::Running;
    info.rawState = QStringLiteral("Running");
    dock->setWorkspace(remote.get(), info);
    openTab(dock->mcp()); // read again when shown
    QTRY_VERIFY_WITH_TIMEOUT(!dock->mcp()->note()->text().contains(notRunning), Long);
    QTRY_VERIFY_WITH_TIMEOUT(
        dock->mcp()->note()->text().contains(
            InspectorText::tr("This backend cannot read a workspace's files or run commands in it: %1")
                .section(u':', 0, 0)),
        Long);

    // A paused local workspace's folder is on this computer: it is read.
    SandboxInfo local = m_sandbox;
    local.state = SandboxState::Paused;
    dock->setWorkspace(m_session->get(), local);
    QVERIFY(dock->mcp()->filesReadable());
    QTRY_VERIFY_WITH_TIMEOUT(dock->mcp()->isRead(), Long);
}

void TestInspectorDock::windowWiresTheDockToTheCurrentRow()
{
    MainWindow window(m_session->get());
    window.resize(1200, 800);
    window.show();
    InspectorDock *dock = window.inspectorDock();
    QVERIFY(dock);
    // In View, with its own key.
    QMenu *view = nullptr;
    for (QAction *action : window.menuBar()->actions()) {
        if (action->menu() && action->menu()->actions().contains(dock->toggleViewAction()))
            view = action->menu();
    }
    QVERIFY(view);
    QCOMPARE(dock->toggleViewAction()->shortcut(), QKeySequence(Qt::Key_F9));
    QVERIFY(!dock->isVisible());
    dock->toggleViewAction()->trigger();
    QVERIFY(dock->isVisible());
    auto *tree = window.findChild<QTreeView *>(QStringLiteral("workspaceView"));
    QVERIFY(tree);
    QTRY_VERIFY_WITH_TIMEOUT(window.model()->recordOfWorkspace(QStringLiteral("local"), QStringLiteral("ws-inspect")),
                             Long);
    QVERIFY(!dock->hasWorkspace());
    // The current row is the workspace inspected.
    const QModelIndex row = findText(tree->model(), QStringLiteral("ws-inspect"));
    QVERIFY(row.isValid());
    tree->setCurrentIndex(row);
    QVERIFY(dock->hasWorkspace());
    QCOMPARE(dock->sandbox().workspaceId, QStringLiteral("ws-inspect"));
    QTRY_VERIFY_WITH_TIMEOUT(dock->overview()->hasDetails(), Long);
    // A group row: none.
    tree->setCurrentIndex(row.parent());
    QVERIFY(!dock->hasWorkspace());
    QCOMPARE(dock->emptyText(),
             InspectorDock::tr("A group of workspaces is selected: select one workspace to see what is inside it."));
    // The gateway log goes to the window's Logs dock.
    tree->setCurrentIndex(row);
    dock->tabs()->setCurrentWidget(dock->gateway());
    QTRY_VERIFY_WITH_TIMEOUT(dock->gateway()->logButton()->isEnabled(), Long);
    dock->gateway()->logButton()->click();
    QTRY_COMPARE_WITH_TIMEOUT(window.logTabs()->count(), 1, Long);
    QVERIFY(window.logDock()->isVisible());
}

void TestInspectorDock::chineseTexts()
{
    InspectorDock *dock = showDock();
    dock->setWorkspace(m_session->get(), m_sandbox);
    QCOMPARE(Paddock::useLanguage(QLocale(QStringLiteral("zh_CN"))), QStringLiteral("zh_CN"));
    // Every text follows at once (LanguageChange), the rows shown included.
    QTRY_COMPARE(dock->windowTitle(), QStringLiteral("检查器"));
    QCOMPARE(dock->toggleViewAction()->text(), QStringLiteral("检查器(&I)"));
    QCOMPARE(dock->tabs()->tabText(0), QStringLiteral("概览"));
    QCOMPARE(dock->tabs()->tabText(3), QStringLiteral("MCP 服务器"));
    QVERIFY(findText(dock->overview()->model(), QStringLiteral("工作区")).isValid());
    QVERIFY(findText(dock->overview()->model(), QStringLiteral("ws-inspect"), 1).isValid());
    QCOMPARE(dock->overview()->copyIdButton()->text(), QStringLiteral("复制 ID(&I)"));
    Paddock::dropLanguage();
    QTRY_COMPARE(dock->windowTitle(), QStringLiteral("Inspector"));
    QVERIFY(findText(dock->overview()->model(), QStringLiteral("Workspace")).isValid());
}

void TestInspectorDock::serverTimesReadAsTheOtherTimes()
{
    // A server's detail that is a time (OpenSandbox's "Last transition") reads as Created does.
    const QDateTime when(QDate(2026, 12, 6), QTime(5, 39, 12, 345), Qt::UTC);
    QCOMPARE(Inspector::isoTimeText(QStringLiteral("2026-12-06T05:39:12.345Z")), Inspector::timeText(when));
    QCOMPARE(Inspector::isoTimeText(QStringLiteral("2026-12-06T07:39:12+02:00")),
             Inspector::timeText(when.addMSecs(-345)));
    QVERIFY(!Inspector::timeText(when).contains(u'T'));
    // Anything else is not a time.
    for (const QString &other : {QStringLiteral("2026-12-06"), QStringLiteral("42"), QStringLiteral("node-1"),
                                 QStringLiteral("2026-12-06T05:39:12.345Z trailing"), QString()})
        QVERIFY2(Inspector::isoTimeText(other).isEmpty(), qPrintable(other));
}

QTEST_MAIN(TestInspectorDock)
#include "tst_inspectordock.moc"
