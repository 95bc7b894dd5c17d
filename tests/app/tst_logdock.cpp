// The Logs dock on its own, offscreen, in a window of its own: a bootstrap log from a real
// BootstrapLogStore in a tab (live as the store writes it, a note while there is none), the same
// workspace again in the same tab, a container log polled from a scripted source (no backend: the
// functions a profile hands over) with the footer saying how polling goes, one followed as a
// stream from a source that streams with the footer saying so, what a change of
// profile does (the new profile's logs open in tabs of their own; the tabs open keep their source
// and their lines; no source, nothing opens), closing tabs, the language switched at run time, and
// F6 with no log open.

#include "bootstraplog.h"
#include "i18n.h"
#include "logdock.h"
#include "logmodel.h"
#include "logviewer.h"
#include "workspacetreemodel.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#include <QCoroTimer>
#endif

#include "bulk.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QLabel>
#include <QMainWindow>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace Paddock;

namespace {

WorkspaceRecord record(const QString &workspaceId, const QString &sandboxId = {})
{
    WorkspaceRecord record;
    record.profile = QStringLiteral("p");
    record.info.workspaceId = workspaceId;
    record.info.sandboxId = sandboxId.isEmpty() ? QStringLiteral("sb-") + workspaceId : sandboxId;
    return record;
}

QStringList texts(LogViewer *viewer)
{
    QStringList out;
    for (int i = 0; i < viewer->model()->rowCount(); ++i)
        out.append(viewer->model()->index(i, LogModel::TextColumn).data().toString());
    return out;
}

// A container log source as a profile hands it over: pages and states, scripted, and which
// sandboxes it was asked about. One that `streams` gives its body, then keeps the stream open
// while the sandbox runs and the token is not cancelled (or fails at once with `streamError`).
struct Script
{
    QByteArray body;
    SandboxState state = SandboxState::Running;
    QStringList asked;
    bool streams = false;
    std::optional<Error> streamError;

    ContainerLogSource source(const std::shared_ptr<Script> &self) const
    {
        ContainerLogSource source;
        source.logs = [self](QString sandboxId, int) -> QCoro::Task<Result<QByteArray>> {
            self->asked.append(sandboxId);
            co_return self->body;
        };
        source.state = [self](QString sandboxId) -> QCoro::Task<Result<SandboxInfo>> {
            SandboxInfo info;
            info.sandboxId = sandboxId;
            info.state = self->state;
            co_return info;
        };
        if (streams) {
            source.follow = [self](QString sandboxId, int, ContainerLogSource::OnData onData,
                                   std::shared_ptr<CancelToken> cancel) -> QCoro::Task<Result<>> {
                self->asked.append(sandboxId);
                if (self->streamError)
                    co_return fail(*self->streamError);
                onData(self->body);
                while (self->state == SandboxState::Running && !cancel->isCancelled())
                    co_await QCoro::sleepFor(std::chrono::milliseconds(5));
                co_return Result<>{};
            };
        }
        return source;
    }
};

} // namespace

class TestLogDock final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_stores = 0;

    QString newRoot() { return m_dir.filePath(QStringLiteral("logs-%1").arg(++m_stores)); }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void opensABootstrapLogInATab()
    {
        BootstrapLogStore logs(newRoot());
        QVERIFY(logs.append(QStringLiteral("inst"), QStringLiteral("ws1"), LogLine::Kind::Stdout, "step 1"));
        QMainWindow window;
        auto *dock = new LogDock(&window);
        window.addDockWidget(Qt::BottomDockWidgetArea, dock);
        dock->hide();
        window.show();
        QCOMPARE(dock->objectName(), QStringLiteral("logDock"));
        QCOMPARE(dock->windowTitle(), LogDock::tr("Logs"));
        QCOMPARE(dock->toggleViewAction()->text(), LogDock::tr("L&ogs"));

        // No source yet: nothing opens.
        QVERIFY(!dock->canShowLogs());
        QVERIFY(!dock->showBootstrapLog(record(QStringLiteral("ws1"))));
        QCOMPARE(dock->tabs()->count(), 0);

        dock->setSource(&logs, {}, QStringLiteral("inst"));
        QVERIFY(dock->canShowLogs());
        LogViewer *viewer = dock->showBootstrapLog(record(QStringLiteral("ws1")));
        QVERIFY(viewer);
        QCOMPARE(dock->tabs()->count(), 1);
        QCOMPARE(dock->tabs()->currentWidget(), viewer);
        QCOMPARE(dock->tabs()->tabText(0), LogDock::tr("Log: %1").arg(QStringLiteral("ws1")));
        QCOMPARE(dock->tabs()->tabToolTip(0),
                 QDir::toNativeSeparators(logs.path(QStringLiteral("inst"), QStringLiteral("ws1"))));
        QCOMPARE(viewer->model()->path(), logs.path(QStringLiteral("inst"), QStringLiteral("ws1")));
        QVERIFY(dock->isVisible());
        QTRY_COMPARE(texts(viewer), QStringList{QStringLiteral("step 1")});
        // New lines show as the store writes them.
        QVERIFY(logs.append(QStringLiteral("inst"), QStringLiteral("ws1"), LogLine::Kind::Stdout, "step 2"));
        QTRY_COMPARE(texts(viewer), (QStringList{QStringLiteral("step 1"), QStringLiteral("step 2")}));

        // A sandbox without a workspace id: its sandbox id names its log.
        WorkspaceRecord bare = record(QString(), QStringLiteral("sb-9"));
        LogViewer *other = dock->showBootstrapLog(bare);
        QVERIFY(other);
        QCOMPARE(other->model()->path(), logs.path(QStringLiteral("inst"), QStringLiteral("sb-9")));
        QCOMPARE(dock->tabs()->tabText(1), LogDock::tr("Log: %1").arg(QStringLiteral("sb-9")));
        // There is no such log here: the note says why.
        QTRY_VERIFY2(other->noteText().contains(QLatin1String("it was not opened here")),
                     qPrintable(other->noteText()));
    }

    // Shown with no log open (View > Logs, or its place remembered from the last run), the dock
    // says how to open one instead of being an empty panel; the tabs replace the text and it
    // comes back when the last tab closes.
    void saysHowToOpenALogWhenNoneIs()
    {
        BootstrapLogStore logs(newRoot());
        QMainWindow window;
        auto *dock = new LogDock(&window);
        window.addDockWidget(Qt::BottomDockWidgetArea, dock);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        dock->show();
        QCOMPARE(dock->tabs()->count(), 0);
        QLabel *text = dock->emptyText();
        QVERIFY(text && text->isVisible());
        QVERIFY(!dock->tabs()->isVisible());
        QCOMPARE(text->text(),
                 LogDock::tr("No log is open. Select a workspace, then Workspace > Bootstrap Log "
                             "(Ctrl+L) or Container Log (Ctrl+Shift+L) shows its log here."));

        dock->setSource(&logs, {}, QStringLiteral("inst"));
        LogViewer *viewer = dock->showBootstrapLog(record(QStringLiteral("ws1")));
        QVERIFY(viewer);
        QVERIFY(dock->tabs()->isVisible());
        QVERIFY(!text->isVisible());

        // The last tab closed: the dock hides; shown again, it says so again.
        Q_EMIT dock->tabs()->tabCloseRequested(0);
        QCOMPARE(dock->tabs()->count(), 0);
        QVERIFY(!dock->isVisible());
        dock->show();
        QVERIFY(text->isVisible());
        QVERIFY(!dock->tabs()->isVisible());
    }

    void theSameWorkspaceTwiceIsTheSameTab()
    {
        BootstrapLogStore logs(newRoot());
        QVERIFY(logs.append(QStringLiteral("inst"), QStringLiteral("ws1"), LogLine::Kind::Stdout, "hello"));
        auto script = std::make_shared<Script>();
        QMainWindow window;
        auto *dock = new LogDock(&window);
        window.addDockWidget(Qt::BottomDockWidgetArea, dock);
        window.show();
        dock->setSource(&logs, script->source(script), QStringLiteral("inst"));

        LogViewer *first = dock->showBootstrapLog(record(QStringLiteral("ws1")));
        LogViewer *second = dock->showBootstrapLog(record(QStringLiteral("ws2")));
        QVERIFY(first && second && first != second);
        QCOMPARE(dock->tabs()->currentWidget(), second);
        // The first again: its tab, in front; no new tab.
        QCOMPARE(dock->showBootstrapLog(record(QStringLiteral("ws1"))), first);
        QCOMPARE(dock->tabs()->count(), 2);
        QCOMPARE(dock->tabs()->currentWidget(), first);
        // Even after the user moved the tabs.
        dock->tabs()->tabBar()->moveTab(0, 1);
        QCOMPARE(dock->showBootstrapLog(record(QStringLiteral("ws1"))), first);
        QCOMPARE(dock->tabs()->count(), 2);
        QCOMPARE(dock->tabs()->indexOf(first), 1);
        // Its container log is another log, in another tab; and the same one the second time.
        LogViewer *container = dock->showContainerLog(record(QStringLiteral("ws1")));
        QVERIFY(container && container != first);
        QCOMPARE(dock->tabs()->count(), 3);
        QCOMPARE(dock->showContainerLog(record(QStringLiteral("ws1"))), container);
        QCOMPARE(dock->tabs()->count(), 3);
        QCOMPARE(container->findChildren<ContainerLogTail *>().size(), 1);
    }

    void aContainerLogTabPollsItsSource()
    {
        BootstrapLogStore logs(newRoot());
        auto script = std::make_shared<Script>();
        script->body = "2026-12-01T10:00:00.123456789Z hello from the container\n";
        QMainWindow window;
        auto *dock = new LogDock(&window);
        window.addDockWidget(Qt::BottomDockWidgetArea, dock);
        window.show();
        dock->setSource(&logs, script->source(script), QStringLiteral("inst"));

        LogViewer *viewer = dock->showContainerLog(record(QStringLiteral("ws1"), QStringLiteral("sb-1")));
        QVERIFY(viewer);
        QCOMPARE(dock->tabs()->tabText(0), LogDock::tr("Container: %1").arg(QStringLiteral("ws1")));
        const QString bootstrapPath = logs.path(QStringLiteral("inst"), QStringLiteral("ws1"));
        QCOMPARE(viewer->model()->path(),
                 bootstrapPath.left(bootstrapPath.size() - 4) + QStringLiteral(".container.log"));
        QCOMPARE(dock->tabs()->tabToolTip(0), QDir::toNativeSeparators(viewer->model()->path()));
        auto *tail = viewer->findChild<ContainerLogTail *>();
        QVERIFY(tail);
        QVERIFY(tail->isRunning());
        QCOMPARE(tail->sandboxId(), QStringLiteral("sb-1"));
        tail->setInterval(std::chrono::milliseconds(10));
        tail->setDrain(std::chrono::milliseconds(0));
        QTRY_COMPARE(texts(viewer), QStringList{QStringLiteral("hello from the container")});
        QCOMPARE(script->asked.constFirst(), QStringLiteral("sb-1")); // by its sandbox id
        QVERIFY(viewer->statusText().contains(LogDock::tr("Polling the server for new lines.")));

        // The sandbox stops: no longer polled, and the footer says how to poll again.
        script->state = SandboxState::Paused;
        QTRY_VERIFY(!tail->isRunning());
        QTRY_VERIFY2(viewer->statusText().contains(LogDock::tr(
                         "No longer polled: the sandbox is not running. Show the container log again to poll it.")),
                     qPrintable(viewer->statusText()));
        // Showing it again polls it again, in the same tab.
        script->state = SandboxState::Running;
        script->body += "2026-12-01T10:00:01Z and again\n";
        QCOMPARE(dock->showContainerLog(record(QStringLiteral("ws1"), QStringLiteral("sb-1"))), viewer);
        QVERIFY(tail->isRunning());
        QVERIFY(viewer->statusText().contains(LogDock::tr("Polling the server for new lines.")));
        QTRY_COMPARE(texts(viewer),
                     (QStringList{QStringLiteral("hello from the container"), QStringLiteral("and again")}));

        // Closing the tab ends its tail (it is the tab's) and, the last tab, hides the dock.
        const QPointer<ContainerLogTail> owned(tail);
        Q_EMIT dock->tabs()->tabCloseRequested(0);
        QVERIFY(!owned);
        QCOMPARE(dock->tabs()->count(), 0);
        QVERIFY(!dock->isVisible());
    }

    void aContainerLogTabFollowsASourceThatStreams()
    {
        BootstrapLogStore logs(newRoot());
        auto script = std::make_shared<Script>();
        script->streams = true;
        script->body = "2026-12-01T10:00:00Z streamed from the container\n";
        QMainWindow window;
        auto *dock = new LogDock(&window);
        window.addDockWidget(Qt::BottomDockWidgetArea, dock);
        window.show();
        dock->setSource(&logs, script->source(script), QStringLiteral("inst"));

        LogViewer *viewer = dock->showContainerLog(record(QStringLiteral("ws1"), QStringLiteral("sb-1")));
        QVERIFY(viewer);
        auto *tail = viewer->findChild<ContainerLogTail *>();
        QVERIFY(tail);
        QVERIFY(tail->isStreaming());
        tail->setInterval(std::chrono::milliseconds(10));
        tail->setDrain(std::chrono::milliseconds(0));
        QVERIFY2(viewer->statusText().contains(LogDock::tr("Following the container log as it is written.")),
                 qPrintable(viewer->statusText()));
        QTRY_COMPARE(texts(viewer), QStringList{QStringLiteral("streamed from the container")});
        QCOMPARE(script->asked, QStringList{QStringLiteral("sb-1")}); // one stream, not polls

        // The sandbox stops: the stream ends, and the footer says how to follow it again.
        script->state = SandboxState::Paused;
        QTRY_VERIFY(!tail->isRunning());
        QTRY_VERIFY2(viewer->statusText().contains(LogDock::tr("No longer followed: the sandbox is not running. Show "
                                                               "the container log again to follow it.")),
                     qPrintable(viewer->statusText()));

        // Showing it again follows it again; a stream that fails says so, and so does the one
        // that works again.
        script->state = SandboxState::Running;
        script->streamError = Error::unreachable(QStringLiteral("connection refused"));
        QCOMPARE(dock->showContainerLog(record(QStringLiteral("ws1"), QStringLiteral("sb-1"))), viewer);
        QVERIFY(tail->isRunning());
        QTRY_VERIFY2(
            viewer->statusText().contains(LogDock::tr("Following the container log failed; trying again: %1")
                                              .arg(QStringLiteral("cannot read the container log of sandbox sb-1: "
                                                                  "connection refused"))),
            qPrintable(viewer->statusText()));
        script->streamError.reset();
        QTRY_VERIFY2(viewer->statusText().contains(LogDock::tr("Following the container log as it is written.")),
                     qPrintable(viewer->statusText()));
        QCOMPARE(texts(viewer), QStringList{QStringLiteral("streamed from the container")}); // not repeated

        // Closing the tab ends its tail, and its stream.
        const QPointer<ContainerLogTail> owned(tail);
        Q_EMIT dock->tabs()->tabCloseRequested(0);
        QVERIFY(!owned);
    }

    void aProfileChangeChangesTheSourceAndKeepsTheTabs()
    {
        BootstrapLogStore logs(newRoot());
        QVERIFY(logs.append(QStringLiteral("a"), QStringLiteral("ws1"), LogLine::Kind::Stdout, "in a"));
        QVERIFY(logs.append(QStringLiteral("b"), QStringLiteral("ws1"), LogLine::Kind::Stdout, "in b"));
        auto scriptA = std::make_shared<Script>();
        scriptA->body = "2026-12-01T10:00:00Z container in a\n";
        auto scriptB = std::make_shared<Script>();
        QMainWindow window;
        auto *dock = new LogDock(&window);
        window.addDockWidget(Qt::BottomDockWidgetArea, dock);
        window.show();
        dock->setSource(&logs, scriptA->source(scriptA), QStringLiteral("a"));
        LogViewer *logA = dock->showBootstrapLog(record(QStringLiteral("ws1")));
        LogViewer *containerA = dock->showContainerLog(record(QStringLiteral("ws1")));
        QVERIFY(logA && containerA);
        containerA->findChild<ContainerLogTail *>()->setInterval(std::chrono::milliseconds(10));
        QTRY_COMPARE(texts(containerA), QStringList{QStringLiteral("container in a")});

        // Another profile (another server): the same workspace id is another log, in a new tab.
        dock->setSource(&logs, scriptB->source(scriptB), QStringLiteral("b"));
        LogViewer *logB = dock->showBootstrapLog(record(QStringLiteral("ws1")));
        QVERIFY(logB && logB != logA);
        QCOMPARE(dock->tabs()->count(), 3);
        QTRY_COMPARE(texts(logB), QStringList{QStringLiteral("in b")});
        // The tabs open stay, each with its own: a's bootstrap log gets a's lines only...
        QVERIFY(logs.append(QStringLiteral("a"), QStringLiteral("ws1"), LogLine::Kind::Stdout, "more in a"));
        QTRY_COMPARE(texts(logA), (QStringList{QStringLiteral("in a"), QStringLiteral("more in a")}));
        QCOMPARE(texts(logB), QStringList{QStringLiteral("in b")});
        // ...and a's container log is still polled from a's source, never b's.
        const qsizetype polls = scriptA->asked.size();
        QTRY_VERIFY(scriptA->asked.size() > polls + 3);
        QVERIFY(scriptB->asked.isEmpty());
        // b's container log is polled from b's.
        QVERIFY(dock->showContainerLog(record(QStringLiteral("ws1"))) != containerA);
        QTRY_VERIFY(!scriptB->asked.isEmpty());

        // The profile loses its session (it is being saved): nothing more opens, the tabs stay.
        dock->setSource(nullptr, {}, QString());
        QVERIFY(!dock->canShowLogs());
        QVERIFY(!dock->showBootstrapLog(record(QStringLiteral("ws2"))));
        QVERIFY(!dock->showContainerLog(record(QStringLiteral("ws2"))));
        QCOMPARE(dock->tabs()->count(), 4);
        // Given back, the same logs are the same tabs.
        dock->setSource(&logs, scriptA->source(scriptA), QStringLiteral("a"));
        QCOMPARE(dock->showBootstrapLog(record(QStringLiteral("ws1"))), logA);
        QCOMPARE(dock->tabs()->count(), 4);
        QVERIFY(logs.append(QStringLiteral("a"), QStringLiteral("ws1"), LogLine::Kind::Stdout, "still live"));
        QTRY_COMPARE(texts(logA).size(), 3);

        // a's container log, stopped, shown again once its profile was opened again: the same
        // tab, reading from the source of the moment (the old one ended with its session).
        auto *tailA = containerA->findChild<ContainerLogTail *>();
        tailA->stop();
        QVERIFY(!tailA->isRunning());
        auto reopened = std::make_shared<Script>();
        reopened->body = "2026-12-01T10:00:00Z container in a\n2026-12-01T10:00:05Z after the reopening\n";
        dock->setSource(&logs, reopened->source(reopened), QStringLiteral("a"));
        const qsizetype oldPolls = scriptA->asked.size();
        QCOMPARE(dock->showContainerLog(record(QStringLiteral("ws1"))), containerA);
        QVERIFY(tailA->isRunning());
        QTRY_VERIFY(!reopened->asked.isEmpty());
        QTRY_COMPARE(texts(containerA),
                     (QStringList{QStringLiteral("container in a"), QStringLiteral("after the reopening")}));
        QCOMPARE(scriptA->asked.size(), oldPolls);
    }

    void speaksTheLanguageChosen()
    {
        BootstrapLogStore logs(newRoot());
        auto script = std::make_shared<Script>();
        QMainWindow window;
        auto *dock = new LogDock(&window);
        window.addDockWidget(Qt::BottomDockWidgetArea, dock);
        window.show();
        dock->setSource(&logs, script->source(script), QStringLiteral("inst"));
        QVERIFY(dock->showBootstrapLog(record(QStringLiteral("ws1"))));
        LogViewer *container = dock->showContainerLog(record(QStringLiteral("ws1")));
        QVERIFY(container);
        const auto english = qScopeGuard([] { Paddock::dropLanguage(); });
        QCOMPARE(Paddock::useLanguage(QLocale(QStringLiteral("zh_CN"))), QStringLiteral("zh_CN"));
        QTRY_COMPARE(dock->windowTitle(), QStringLiteral("日志")); // LanguageChange is posted
        QCOMPARE(dock->toggleViewAction()->text(), QStringLiteral("日志(&O)"));
        QCOMPARE(dock->tabs()->tabText(0), QStringLiteral("日志：ws1"));
        QCOMPARE(dock->tabs()->tabText(1), QStringLiteral("容器：ws1"));
        QTRY_VERIFY2(container->statusText().contains(QStringLiteral("正在定期从服务器获取新的行。")),
                     qPrintable(container->statusText()));

        QCOMPARE(Paddock::useLanguage(QLocale(QLocale::English, QLocale::UnitedStates)), QStringLiteral("en"));
        QTRY_COMPARE(dock->windowTitle(), QStringLiteral("Logs"));
        QCOMPARE(dock->toggleViewAction()->text(), QStringLiteral("L&ogs"));
        QCOMPARE(dock->tabs()->tabText(1), QStringLiteral("Container: ws1"));
    }

    void focusGoesToTheLogInFrontOrSaysThereIsNone()
    {
        BootstrapLogStore logs(newRoot());
        QMainWindow window;
        auto *dock = new LogDock(&window);
        window.addDockWidget(Qt::BottomDockWidgetArea, dock);
        dock->hide();
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QSignalSpy said(dock, &LogDock::statusMessage);
        QVERIFY(!dock->focusLog());
        QCOMPARE(said.size(), 1);
        QCOMPARE(said.constFirst().constFirst().toString(),
                 LogDock::tr("No log is open: Workspace > Bootstrap Log (Ctrl+L) opens one."));
        QVERIFY(!dock->isVisible());

        dock->setSource(&logs, {}, QStringLiteral("inst"));
        LogViewer *viewer = dock->showBootstrapLog(record(QStringLiteral("ws1")));
        QVERIFY(viewer);
        dock->hide(); // the user closed the dock; the tab stays
        window.setFocus();
        QVERIFY(dock->focusLog());
        QVERIFY(dock->isVisible());
        QTRY_VERIFY(dock->isAncestorOf(QApplication::focusWidget()));
        QCOMPARE(said.size(), 1);
    }
};

QTEST_MAIN(TestLogDock)
#include "tst_logdock.moc"
