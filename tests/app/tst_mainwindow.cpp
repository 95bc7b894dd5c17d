// The console window over a profile session (the local backend, or a test's own), offscreen: the
// tree grouped by user and agent, state-aware pause and resume on rows and on group rows, the
// refresh interval and its pause while hidden, the freshness text, the flat list keeping the
// selection, and the backend filter offering every registered backend.

#include "activitytracker.h"
#include "backendregistry.h"
#include "backends/local/localbackend.h"
#include "bootstraplog.h"
#include "colorscheme.h"
#include "confirmdialog.h"
#include "eventhistorydock.h"
#include "i18n.h"
#include "inspectordock.h"
#include "liveupdates.h"
#include "logdock.h"
#include "logmodel.h"
#include "logviewer.h"
#include "mainwindow.h"
#include "opendialog.h"
#include "profilesession.h"
#include "profileswitcher.h"
#include "provisioner.h"
#include "savedfilters.h"
#include "scriptedbackend.h"
#include "shortcutsdialog.h"
#include "testsession.h"
#include "workspacetreemodel.h"
#include "workspaceview.h"

#ifndef Q_MOC_RUN
#include "dialogwait.h"
#include <QCoroTask>
#endif

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QRadioButton>
#include <QRegularExpression>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <QTreeWidget>

#include <cmath>
#include <optional>
#include <tuple>

using namespace Paddock;
using namespace std::chrono_literals;

namespace {

// A workspace as another process left it.
void leaveWorkspace(const QString &basedir, const QString &id, const QString &user, const QString &agent,
                    const QString &state, const QString &lastActivity = QStringLiteral("2026-11-30T02:00:00.000Z"))
{
    QVERIFY(QDir().mkpath(basedir + u'/' + id + QStringLiteral("/.paddock")));
    QFile metadata(basedir + u'/' + id + QStringLiteral("/.paddock/workspace.json"));
    QVERIFY(metadata.open(QIODevice::WriteOnly));
    metadata.write(QStringLiteral(R"({"workspaceId":"%1","userId":"%2","agentId":"%3","state":"%4",
                                      "createdAt":"2026-11-30T01:00:00.000Z",
                                      "lastActivityAt":"%5"})")
                       .arg(id, user, agent, state, lastActivity)
                       .toUtf8());
}

QModelIndex find(QAbstractItemModel *model, const QString &text, const QModelIndex &parent = {})
{
    for (int row = 0; row < model->rowCount(parent); ++row) {
        const QModelIndex index = model->index(row, 0, parent);
        if (index.data().toString() == text)
            return index;
        if (const QModelIndex inner = find(model, text, index); inner.isValid())
            return inner;
    }
    return {};
}

SandboxInfo sandboxOf(const QString &id, const QString &user, const QString &agent,
                      SandboxState state = SandboxState::Running)
{
    SandboxInfo info;
    info.sandboxId = QStringLiteral("sbx-") + id;
    info.workspaceId = id;
    info.userId = user;
    info.agentId = agent;
    info.state = state;
    info.rawState = sandboxStateName(state);
    info.backend = QStringLiteral("scripted");
    info.createdAt = QDateTime(QDate(2026, 11, 30), QTime(1, 0), Qt::UTC);
    info.metadata.insert(WorkspaceIdKey, id);
    info.fingerprint = fingerprintOf(info);
    return info;
}

// One running sandbox whose container log can be made to fail, as when its server is down.
class FlakyLogBackend final : public Backend
{
public:
    FlakyLogBackend()
    {
        sandbox.sandboxId = QStringLiteral("sbx-1");
        sandbox.workspaceId = QStringLiteral("ws-flaky");
        sandbox.userId = QStringLiteral("u");
        sandbox.agentId = QStringLiteral("a");
        sandbox.state = SandboxState::Running;
        sandbox.rawState = QStringLiteral("Running");
        sandbox.createdAt = QDateTime::currentDateTimeUtc();
    }
    QString name() const override { return QStringLiteral("flaky"); }
    QString instanceKey() const override { return QStringLiteral("flaky-test"); }
    WorkspaceLayout layout(const SandboxInfo &) const override { return {}; }
    QCoro::Task<Result<QList<SandboxInfo>>> list(ListFilter) override { co_return QList<SandboxInfo>{sandbox}; }
    QCoro::Task<Result<SandboxInfo>> get(QString) override
    {
        if (error)
            co_return fail(*error);
        co_return sandbox;
    }
    QCoro::Task<Result<SandboxInfo>> create(CreateSpec) override { co_return fail(unsupported()); }
    QCoro::Task<Result<SandboxInfo>> connect(QString) override { co_return fail(unsupported()); }
    QCoro::Task<Result<SandboxInfo>> resume(QString) override { co_return fail(unsupported()); }
    QCoro::Task<Result<>> pause(QString) override { co_return fail(unsupported()); }
    QCoro::Task<Result<>> kill(QString, KillOptions) override { co_return fail(unsupported()); }
    QCoro::Task<Result<SandboxInfo>> renew(QString, std::chrono::seconds) override { co_return fail(unsupported()); }
    QCoro::Task<Result<bool>> isReady(QString) override { co_return true; }
    QCoro::Task<Result<ExecResult>> exec(QString, ExecRequest) override { co_return fail(unsupported()); }
    QCoro::Task<Result<QByteArray>> containerLogs(QString, int) override
    {
        if (error)
            co_return fail(*error);
        co_return body;
    }

    static Error unsupported() { return Error::unsupported(QStringLiteral("not here")); }

    SandboxInfo sandbox;
    std::optional<Error> error;
    QByteArray body;
};

} // namespace

class TestMainWindow final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void cleanup()
    {
        // Every test starts in the source language, whatever a test before it chose.
        Paddock::dropLanguage();
        QCoreApplication::processEvents(); // the LanguageChange it posts
    }

    void groupsAndStateAwareActions()
    {
        QTemporaryDir dir;
        leaveWorkspace(dir.path(), QStringLiteral("ws1"), QStringLiteral("张三"), QStringLiteral("运维"),
                       QStringLiteral("Running"));
        leaveWorkspace(dir.path(), QStringLiteral("ws2"), QStringLiteral("张三"), QStringLiteral("助手"),
                       QStringLiteral("Paused"));
        PaddockTest::TestSession local(std::make_unique<LocalBackend>(LocalOptions{dir.path(), false}));
        MainWindow window(local.get());
        window.show();
        QTRY_COMPARE(window.model()->workspaceCount(), 2);

        auto *view = window.findChild<QTreeView *>(QStringLiteral("workspaceView"));
        QAbstractItemModel *shown = view->model();
        QCOMPARE(shown->rowCount(), 1); // one user
        const QModelIndex user = shown->index(0, 0);
        QCOMPARE(user.data().toString(), QStringLiteral("张三"));
        QCOMPARE(shown->rowCount(user), 2); // two agents, expanded
        QVERIFY(view->isExpanded(user));
        const QModelIndex ws1 = find(shown, QStringLiteral("ws1"));
        QVERIFY(ws1.isValid());
        QVERIFY(view->isExpanded(ws1.parent()));

        auto *pause = window.findChild<QAction *>(QStringLiteral("actionPause"));
        auto *resume = window.findChild<QAction *>(QStringLiteral("actionResume"));
        QVERIFY(!pause->isEnabled() && !resume->isEnabled()); // nothing selected
        view->selectionModel()->select(ws1, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        QVERIFY(pause->isEnabled());
        QVERIFY(!resume->isEnabled()); // ws1 runs

        pause->trigger();
        QTRY_COMPARE(window.model()
                         ->indexOfKey(QStringLiteral("local\x1fws1"), WorkspaceTreeModel::StateColumn)
                         .data()
                         .toString(),
                     QStringLiteral("Paused"));
        // Refreshed in place: still selected, and now only Resume fits.
        QVERIFY(view->selectionModel()->isSelected(find(shown, QStringLiteral("ws1"))));
        QTRY_VERIFY(resume->isEnabled());
        QVERIFY(!pause->isEnabled());

        // Space marks rows one by one and moves down.
        view->clearSelection();
        view->setFocus();
        view->selectionModel()->setCurrentIndex(shown->index(0, 0), QItemSelectionModel::NoUpdate);
        QTest::keyClick(view, Qt::Key_Space);
        QTest::keyClick(view, Qt::Key_Space);
        QCOMPARE(view->selectionModel()->selectedRows().size(), 2); // the user row and its first agent
        view->selectionModel()->setCurrentIndex(shown->index(0, 0), QItemSelectionModel::NoUpdate);
        QTest::keyClick(view, Qt::Key_Space); // toggles the user row off again
        QCOMPARE(view->selectionModel()->selectedRows().size(), 1);
        QCOMPARE(view->selectionModel()->selectedRows().constFirst().data().toString(), QStringLiteral("助手"));

        // A group row stands for all its workspaces: resume both from the user row.
        view->selectionModel()->select(shown->index(0, 0),
                                       QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        QVERIFY(resume->isEnabled());
        resume->trigger();
        // Two workspaces: one confirmation that states the count.
        ConfirmDialog *confirm = nullptr;
        QTRY_VERIFY((confirm = window.findChild<ConfirmDialog *>(QStringLiteral("confirmAction"))) != nullptr);
        QTRY_VERIFY(confirm->isVisible());
        QCOMPARE(confirm->text(), QStringLiteral("Resume 2 workspace(s)?"));
        confirm->confirmButton()->click();
        QTRY_COMPARE(shown->index(0, WorkspaceTreeModel::StateColumn).data().toString(), QStringLiteral("2 Running"));

        // The flat list keeps the selection (by key) and shows rows only.
        view->selectionModel()->select(find(shown, QStringLiteral("ws2")),
                                       QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        window.findChild<QAction *>(QStringLiteral("actionGroupByIsolation"))->trigger();
        QCOMPARE(shown->rowCount(), 2);
        const auto selected = view->selectionModel()->selectedRows();
        QCOMPARE(selected.size(), 1);
        QCOMPARE(selected.constFirst().data().toString(), QStringLiteral("ws2"));
    }

    void killAsksListsAndReportsPerItem()
    {
        QTemporaryDir dir;
        leaveWorkspace(dir.path(), QStringLiteral("keep"), QStringLiteral("u"), QStringLiteral("a"),
                       QStringLiteral("Running"));
        leaveWorkspace(dir.path(), QStringLiteral("doomed"), QStringLiteral("u"), QStringLiteral("b"),
                       QStringLiteral("Paused"));
        leaveWorkspace(dir.path(), QStringLiteral("vanishing"), QStringLiteral("u"), QStringLiteral("b"),
                       QStringLiteral("Running"));
        PaddockTest::TestSession local(std::make_unique<LocalBackend>(LocalOptions{dir.path(), false}));
        MainWindow window(local.get());
        window.show();
        QTRY_COMPARE(window.model()->workspaceCount(), 3);
        auto *view = window.findChild<QTreeView *>(QStringLiteral("workspaceView"));
        auto *kill = window.findChild<QAction *>(QStringLiteral("actionKill"));

        // Agent b's group: two workspaces, one of which another process deletes meanwhile.
        view->selectionModel()->select(find(view->model(), QStringLiteral("b")),
                                       QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        QVERIFY(kill->isEnabled());
        QVERIFY(QDir(dir.path() + QStringLiteral("/vanishing")).removeRecursively());
        kill->trigger();
        ConfirmDialog *confirm = nullptr;
        QTRY_VERIFY((confirm = window.findChild<ConfirmDialog *>(QStringLiteral("confirmAction"))) != nullptr);
        QTRY_VERIFY(confirm->isVisible());
        QVERIFY(confirm->text().contains(QLatin1String("cannot be undone")));
        QVERIFY(confirm->listText().contains(QLatin1String("doomed")));
        QVERIFY(confirm->listText().contains(QLatin1String("vanishing")));
        // A local workspace's sandbox id is its id: it is listed once, not twice.
        QCOMPARE(confirm->list()->columnCount(), 4); // Workspace, User, Agent, State
        QCOMPARE(confirm->listText().count(QLatin1String("doomed")), 1);
        // The ids are whole: the column is as wide as they are.
        QVERIFY(confirm->list()->header()->sectionSize(0)
                >= confirm->list()->fontMetrics().horizontalAdvance(QStringLiteral("vanishing")));
        QVERIFY(confirm->cancelButton()->isDefault()); // Enter does not kill
        QVERIFY(!confirm->confirmButton()->isDefault());
        confirm->confirmButton()->click();

        // One went, one had vanished: each reported, and the list refreshed.
        QMessageBox *report = nullptr;
        QTRY_VERIFY((report = window.findChild<QMessageBox *>(QStringLiteral("actionReport"))) != nullptr);
        QTRY_COMPARE(window.lastActionSummary(), QStringLiteral("1 of 2 workspace(s) done; 1 failed"));
        QVERIFY2(report->detailedText().startsWith(QLatin1String("vanishing: ")), qPrintable(report->detailedText()));
        QVERIFY(!QDir(dir.path() + QStringLiteral("/doomed")).exists());
        QTRY_COMPARE(window.model()->workspaceCount(), 1);
        QVERIFY(QDir(dir.path() + QStringLiteral("/keep")).exists());
        report->close();
    }

    void aLongProfileProblemLeavesTheFilterUsable()
    {
        // A profile's problem shows next to the switcher (elided, whole in its tooltip); however
        // long, the filter keeps room for what one types into it (it was squeezed to a sliver).
        QTemporaryDir dir;
        PaddockTest::TestSession local(std::make_unique<LocalBackend>(LocalOptions{dir.path(), false}));
        MainWindow window(local.get());
        window.resize(1000, 600);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QString problem;
        for (int i = 0; i < 30; ++i)
            problem += QStringLiteral("the server at 127.0.0.1 did not answer in time; ");
        window.setSession(nullptr, QStringLiteral("broken"), problem);
        QCOMPARE(window.profileProblem(), problem);
        auto *filter = window.findChild<QLineEdit *>(QStringLiteral("filterEdit"));
        const int room = filter->fontMetrics().horizontalAdvance(QStringLiteral("Filter by id, user"));
        QTRY_VERIFY2(filter->width() >= room, qPrintable(QStringLiteral("%1 < %2").arg(filter->width()).arg(room)));
    }

    void filtersByTextAndStateAndSlashFocuses()
    {
        QTemporaryDir dir;
        leaveWorkspace(dir.path(), QStringLiteral("ws1"), QStringLiteral("张三"), QStringLiteral("运维"),
                       QStringLiteral("Running"));
        leaveWorkspace(dir.path(), QStringLiteral("ws2"), QStringLiteral("李四"), QStringLiteral("助手"),
                       QStringLiteral("Paused"));
        leaveWorkspace(dir.path(), QStringLiteral("ws3"), QStringLiteral("李四"), QStringLiteral("运维"),
                       QStringLiteral("Running"));
        PaddockTest::TestSession local(std::make_unique<LocalBackend>(LocalOptions{dir.path(), false}));
        MainWindow window(local.get());
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QTRY_COMPARE(window.model()->workspaceCount(), 3);
        auto *view = window.findChild<QTreeView *>(QStringLiteral("workspaceView"));
        auto *filter = window.findChild<QLineEdit *>(QStringLiteral("filterEdit"));
        QAbstractItemModel *shown = view->model();

        // "/" puts the cursor in the filter.
        view->setFocus();
        QTest::keyClick(view, Qt::Key_Slash);
        QTRY_VERIFY(filter->hasFocus());
        filter->insert(QStringLiteral("运维")); // typed through an input method; QTest types ASCII only
        // Both users keep the 运维 agent; 李四's 助手 group is gone.
        QCOMPARE(shown->rowCount(), 2);
        QVERIFY(find(shown, QStringLiteral("ws1")).isValid());
        QVERIFY(find(shown, QStringLiteral("ws3")).isValid());
        QVERIFY(!find(shown, QStringLiteral("ws2")).isValid());
        QVERIFY(!find(shown, QStringLiteral("助手")).isValid());

        QTest::keyClick(filter, Qt::Key_Escape); // clears
        QVERIFY(filter->text().isEmpty());
        QVERIFY(find(shown, QStringLiteral("ws2")).isValid());

        auto *state = window.findChild<QComboBox *>(QStringLiteral("stateFilterBox"));
        state->setCurrentIndex(state->findText(QStringLiteral("Paused")));
        QCOMPARE(shown->rowCount(), 1);
        QVERIFY(find(shown, QStringLiteral("ws2")).isValid());
        QVERIFY(!find(shown, QStringLiteral("ws1")).isValid());
    }

    // The status bar counts the workspaces, and those a filter shows; what passes in the status
    // bar (a menu's status tip, a message) covers the count only while it is said.
    void statusBarCountsWhatTheFilterShows()
    {
        // (English's plural forms.)
        QCOMPARE(Paddock::useLanguage(QLocale(QLocale::English, QLocale::UnitedStates)), QStringLiteral("en"));
        QTemporaryDir dir;
        leaveWorkspace(dir.path(), QStringLiteral("ws1"), QStringLiteral("u1"), QStringLiteral("a"),
                       QStringLiteral("Running"));
        leaveWorkspace(dir.path(), QStringLiteral("ws2"), QStringLiteral("u2"), QStringLiteral("a"),
                       QStringLiteral("Paused"));
        leaveWorkspace(dir.path(), QStringLiteral("ws3"), QStringLiteral("u2"), QStringLiteral("b"),
                       QStringLiteral("Running"));
        PaddockTest::TestSession local(std::make_unique<LocalBackend>(LocalOptions{dir.path(), false}));
        MainWindow window(local.get());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTRY_COMPARE(window.model()->workspaceCount(), 3);
        auto *count = window.findChild<QLabel *>(QStringLiteral("workspaceCount"));
        QVERIFY(count);
        QTRY_COMPARE(count->text(), QStringLiteral("3 workspaces"));
        QVERIFY(count->isVisible());

        auto *filter = window.findChild<QLineEdit *>(QStringLiteral("filterEdit"));
        filter->setText(QStringLiteral("u2"));
        QTRY_COMPARE(count->text(), QStringLiteral("2 of 3 workspaces shown"));
        auto *state = window.findChild<QComboBox *>(QStringLiteral("stateFilterBox"));
        state->setCurrentIndex(state->findText(QStringLiteral("Paused")));
        QTRY_COMPARE(count->text(), QStringLiteral("1 of 3 workspaces shown"));

        // A menu's status tip over it, then gone (the mouse left the entry): the count is back,
        // without waiting for another listing.
        window.statusBar()->showMessage(QStringLiteral("Show the selected workspace's bootstrap log"));
        QVERIFY(!count->isVisible());
        window.statusBar()->clearMessage();
        QVERIFY(count->isVisible());
        QCOMPARE(count->text(), QStringLiteral("1 of 3 workspaces shown"));

        filter->clear();
        state->setCurrentIndex(0);
        QTRY_COMPARE(count->text(), QStringLiteral("3 workspaces"));
        // And in the language chosen.
        QCOMPARE(Paddock::useLanguage(QLocale(QLocale::Chinese, QLocale::China)), QStringLiteral("zh_CN"));
        QTRY_COMPARE(count->text(), QStringLiteral("3 个工作区"));
    }

    // A new user's empty list says how to open a workspace; a filter that hides every workspace
    // says so; a listing that failed says nothing in the list (the status bar says why).
    void anEmptyListSaysWhatToDo()
    {
        QCOMPARE(Paddock::useLanguage(QLocale(QLocale::English, QLocale::UnitedStates)), QStringLiteral("en"));
        QTemporaryDir dir;
        PaddockTest::TestSession local(std::make_unique<LocalBackend>(LocalOptions{dir.path(), false}));
        MainWindow window;
        auto *view = window.findChild<WorkspaceView *>(QStringLiteral("workspaceView"));
        QVERIFY(view);
        QCOMPARE(view->emptyText(), QString()); // nothing listed yet
        QSignalSpy refreshed(&window, &MainWindow::refreshed);
        window.setSession(local.get());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTRY_VERIFY(!refreshed.isEmpty());
        QCOMPARE(view->emptyText(), QStringLiteral("No workspaces here yet. Workspace > Open… (Ctrl+O) opens one."));
        view->grab(); // painted

        leaveWorkspace(dir.path(), QStringLiteral("ws1"), QStringLiteral("u1"), QStringLiteral("a"),
                       QStringLiteral("Running"));
        window.refresh();
        QTRY_COMPARE(window.model()->workspaceCount(), 1);
        QCOMPARE(view->emptyText(), QString());
        window.findChild<QLineEdit *>(QStringLiteral("filterEdit"))->setText(QStringLiteral("nobody"));
        QCOMPARE(view->emptyText(), QStringLiteral("No workspace matches the filter."));
        view->grab();
    }

    // A filter saved under a name, shown again from the button's menu after another start, and
    // deleted; Select All Matching selects every workspace the filter shows, none of the groups.
    void savedFiltersAndSelectAllMatching()
    {
        QTemporaryDir dir;
        leaveWorkspace(dir.path(), QStringLiteral("ws1"), QStringLiteral("ann"), QStringLiteral("ops"),
                       QStringLiteral("Running"));
        leaveWorkspace(dir.path(), QStringLiteral("ws2"), QStringLiteral("bob"), QStringLiteral("helper"),
                       QStringLiteral("Paused"));
        leaveWorkspace(dir.path(), QStringLiteral("ws3"), QStringLiteral("bob"), QStringLiteral("ops"),
                       QStringLiteral("Running"));
        leaveWorkspace(dir.path(), QStringLiteral("ws4"), QStringLiteral("cy"), QStringLiteral("ops"),
                       QStringLiteral("Paused"));
        PaddockTest::TestSession local(std::make_unique<LocalBackend>(LocalOptions{dir.path(), false}));
        QSettings settings(dir.filePath(QStringLiteral("paddock.ini")), QSettings::IniFormat);
        {
            MainWindow window(local.get());
            window.setSettings(&settings);
            window.show();
            QVERIFY(QTest::qWaitForWindowActive(&window));
            QTRY_COMPARE(window.model()->workspaceCount(), 4);
            auto *view = window.findChild<QTreeView *>(QStringLiteral("workspaceView"));
            auto *filter = window.findChild<QLineEdit *>(QStringLiteral("filterEdit"));
            auto *state = window.findChild<QComboBox *>(QStringLiteral("stateFilterBox"));
            auto *saved = window.findChild<SavedFilters *>(QStringLiteral("savedFiltersButton"));
            QVERIFY(saved && saved->isVisible());
            filter->setText(QStringLiteral("ops"));
            state->setCurrentIndex(state->findText(QStringLiteral("Running")));

            // Select All Matching: ws1 and ws3, not their groups, not what the filter hides.
            QAction *selectAll = window.findChild<QAction *>(QStringLiteral("actionSelectAllMatching"));
            QVERIFY(selectAll);
            QCOMPARE(selectAll->shortcut(), QKeySequence(QStringLiteral("Ctrl+Shift+A")));
            selectAll->trigger();
            QStringList selected;
            for (const QModelIndex &index : view->selectionModel()->selectedRows())
                selected.append(index.data(WorkspaceTreeModel::KeyRole).toString().section(u'\x1f', 1));
            selected.sort();
            QCOMPARE(selected, (QStringList{QStringLiteral("ws1"), QStringLiteral("ws3")}));

            // Saved under a name (the dialog, as the user answers it).
            QMenu *menu = saved->menu();
            Q_EMIT menu->aboutToShow();
            QAction *save = menu->findChild<QAction *>(QStringLiteral("saveFilterAction"));
            QVERIFY(save);
            save->trigger();
            QInputDialog *ask = nullptr;
            QTRY_VERIFY((ask = window.findChild<QInputDialog *>(QStringLiteral("saveFilterDialog"))) != nullptr
                        && ask->isVisible());
            ask->setTextValue(QStringLiteral("running ops"));
            ask->accept();
            QTRY_COMPARE(saved->filters().size(), 1);
            QCOMPARE(saved->filters().constFirst(),
                     (SavedFilters::Filter{QStringLiteral("running ops"), QStringLiteral("ops"),
                                           QStringLiteral("Running"), QString()}));
            filter->clear();
            state->setCurrentIndex(0);
            QCOMPARE(window.model()->workspaceCount(), 4);
        }
        // Another start: the saved filter is in the menu and shows what it showed.
        MainWindow window(local.get());
        window.setSettings(&settings);
        window.show();
        QTRY_COMPARE(window.model()->workspaceCount(), 4);
        auto *saved = window.findChild<SavedFilters *>(QStringLiteral("savedFiltersButton"));
        QMenu *menu = saved->menu();
        Q_EMIT menu->aboutToShow();
        QAction *entry = nullptr;
        for (QAction *action : menu->actions()) {
            if (action->data().toString() == QLatin1String("running ops") && !action->menu())
                entry = action;
        }
        QVERIFY(entry);
        entry->trigger();
        QCOMPARE(window.findChild<QLineEdit *>(QStringLiteral("filterEdit"))->text(), QStringLiteral("ops"));
        QCOMPARE(window.findChild<QComboBox *>(QStringLiteral("stateFilterBox"))->currentText(),
                 QStringLiteral("Running"));
        auto *view = window.findChild<QTreeView *>(QStringLiteral("workspaceView"));
        QVERIFY(find(view->model(), QStringLiteral("ws3")).isValid());
        QVERIFY(!find(view->model(), QStringLiteral("ws4")).isValid());
        // Deleted: gone from the menu and from the settings.
        QMenu *remove = menu->findChild<QMenu *>(QStringLiteral("deleteFilterMenu"));
        QVERIFY(remove);
        remove->actions().constFirst()->trigger();
        QVERIFY(saved->filters().isEmpty());
        settings.sync();
        QSettings reread(settings.fileName(), QSettings::IniFormat);
        QCOMPARE(reread.beginReadArray(QStringLiteral("savedFilters")), 0);
        reread.endArray();
    }

    void idleTriageSelectsAndPausesIdleWorkspaces()
    {
        QTemporaryDir dir;
        const QString now = QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
        leaveWorkspace(dir.path(), QStringLiteral("stale"), QStringLiteral("u"), QStringLiteral("a"),
                       QStringLiteral("Running"));
        leaveWorkspace(dir.path(), QStringLiteral("busy"), QStringLiteral("u"), QStringLiteral("a"),
                       QStringLiteral("Running"), now);
        leaveWorkspace(dir.path(), QStringLiteral("asleep"), QStringLiteral("u"), QStringLiteral("b"),
                       QStringLiteral("Paused"));
        // Its metadata says idle for hours, but an agent wrote to its sessions/ just now.
        leaveWorkspace(dir.path(), QStringLiteral("chatty"), QStringLiteral("u"), QStringLiteral("c"),
                       QStringLiteral("Running"));
        QVERIFY(QDir().mkpath(dir.path() + QStringLiteral("/chatty/sessions/s1")));
        PaddockTest::TestSession local(std::make_unique<LocalBackend>(LocalOptions{dir.path(), false}));
        MainWindow window(local.get());
        window.resize(1200, 800); // every row in view
        window.show();
        QTRY_COMPARE(window.model()->workspaceCount(), 4);
        auto *view = window.findChild<QTreeView *>(QStringLiteral("workspaceView"));
        // The rows in view learn their sessions/ activity on their own.
        QTRY_VERIFY(window.model()
                        ->indexOfKey(QStringLiteral("local\x1f"
                                                    "chatty"),
                                     WorkspaceTreeModel::LastActivityColumn)
                        .data(WorkspaceTreeModel::SortRole)
                        .toDateTime()
                        .secsTo(QDateTime::currentDateTimeUtc())
                    < 600);

        window.findChild<QAction *>(QStringLiteral("actionSelectIdle"))->trigger();
        QInputDialog *ask = nullptr;
        QTRY_VERIFY((ask = window.findChild<QInputDialog *>(QStringLiteral("idleDialog"))) != nullptr);
        QTRY_VERIFY(ask->isVisible());
        ask->setIntValue(60);
        ask->accept();
        QTRY_COMPARE(view->selectionModel()->selectedRows().size(), 1);
        QCOMPARE(view->selectionModel()->selectedRows().constFirst().data().toString(), QStringLiteral("stale"));

        // "Pause idle" selects the same and pauses them, asking first even for one.
        view->clearSelection();
        window.findChild<QAction *>(QStringLiteral("actionPauseIdle"))->trigger();
        QTRY_VERIFY((ask = window.findChild<QInputDialog *>(QStringLiteral("idleDialog"))) != nullptr
                    && ask->isVisible());
        ask->accept();
        ConfirmDialog *confirm = nullptr;
        QTRY_VERIFY((confirm = window.findChild<ConfirmDialog *>(QStringLiteral("confirmAction"))) != nullptr
                    && confirm->isVisible());
        QCOMPARE(confirm->text(), QStringLiteral("Pause 1 workspace(s)?"));
        confirm->confirmButton()->click();
        QTRY_COMPARE(window.model()
                         ->indexOfKey(QStringLiteral("local\x1fstale"), WorkspaceTreeModel::StateColumn)
                         .data()
                         .toString(),
                     QStringLiteral("Paused"));
        QCOMPARE(window.model()
                     ->indexOfKey(QStringLiteral("local\x1f"
                                                 "busy"),
                                  WorkspaceTreeModel::StateColumn)
                     .data()
                     .toString(),
                 QStringLiteral("Running"));
    }

    void idleTriageGoesByWhatItKnowsAndNeverClearsForNothing()
    {
        // As on OpenSandbox: no last-activity time from the backend, only when it was created.
        QTemporaryDir dir;
        const auto leave = [&dir](const QString &id, const QString &times) {
            QVERIFY(QDir().mkpath(dir.path() + u'/' + id + QStringLiteral("/.paddock")));
            QFile metadata(dir.path() + u'/' + id + QStringLiteral("/.paddock/workspace.json"));
            QVERIFY(metadata.open(QIODevice::WriteOnly));
            metadata.write(QStringLiteral(R"({"workspaceId":"%1","userId":"u","agentId":"a","state":"Running"%2})")
                               .arg(id, times)
                               .toUtf8());
        };
        const QDateTime now = QDateTime::currentDateTimeUtc();
        leave(QStringLiteral("created2h"),
              QStringLiteral(R"(,"createdAt":"%1")").arg(now.addSecs(-7200).toString(Qt::ISODateWithMs)));
        leave(QStringLiteral("created1m"),
              QStringLiteral(R"(,"createdAt":"%1")").arg(now.addSecs(-60).toString(Qt::ISODateWithMs)));
        leave(QStringLiteral("timeless"), QString());
        PaddockTest::TestSession local(std::make_unique<LocalBackend>(LocalOptions{dir.path(), false}));
        MainWindow window(local.get());
        window.resize(1200, 800);
        window.show();
        QTRY_COMPARE(window.model()->workspaceCount(), 3);
        auto *view = window.findChild<QTreeView *>(QStringLiteral("workspaceView"));

        const auto triage = [&window](int minutes) {
            window.findChild<QAction *>(QStringLiteral("actionSelectIdle"))->trigger();
            QInputDialog *ask = nullptr;
            QTRY_VERIFY((ask = window.findChild<QInputDialog *>(QStringLiteral("idleDialog"))) != nullptr
                        && ask->isVisible());
            ask->setIntValue(minutes);
            ask->accept();
        };
        triage(30);
        QTRY_COMPARE(view->selectionModel()->selectedRows().size(), 1);
        QCOMPARE(view->selectionModel()->selectedRows().constFirst().data().toString(), QStringLiteral("created2h"));
        // It says how many it judged by their creation, and how many it could not judge.
        QTRY_VERIFY(window.lastActionSummary().startsWith(QLatin1String("1 of 3 running")));
        QVERIFY2(window.lastActionSummary().contains(QLatin1String("2 had no recorded activity")),
                 qPrintable(window.lastActionSummary()));
        QVERIFY2(window.lastActionSummary().contains(QLatin1String("1 had no time at all")),
                 qPrintable(window.lastActionSummary()));

        // Nothing idle that long: the selection stays as it was.
        triage(7 * 24 * 60);
        QTRY_VERIFY(window.lastActionSummary().startsWith(QLatin1String("None of 3 running")));
        QCOMPARE(view->selectionModel()->selectedRows().size(), 1);
        QCOMPARE(view->selectionModel()->selectedRows().constFirst().data().toString(), QStringLiteral("created2h"));
    }

    void failedBootstrapShowsAndRetries()
    {
        QTemporaryDir dir;
        const QString flag = dir.filePath(QStringLiteral("network-is-back"));
        BootstrapLogStore logs(dir.filePath(QStringLiteral("logs")));
        ProvisionOptions options;
        options.bootstrap = {
            {QStringLiteral("test -e ") + flag + QStringLiteral(" || { echo no network >&2; exit 3; }"), 60s}};
        PaddockTest::TestSession local(
            std::make_unique<LocalBackend>(LocalOptions{dir.filePath(QStringLiteral("ws")), false}), Profile::local(),
            &logs, options);
        MainWindow window(local.get());
        window.show();
        WorkspaceRequest request;
        request.userId = QStringLiteral("u");
        request.agentId = QStringLiteral("a");
        QVERIFY(!QCoro::waitFor(local->open(request)));
        const QString id = assignWorkspaceId(IsolationPolicy::PerAgent, QStringLiteral("u"), QStringLiteral("a"));
        const QString key = QStringLiteral("local\x1f") + id;

        // Not just "Paused": the row says the bootstrap failed, and why.
        window.refresh();
        QTRY_COMPARE(window.model()->indexOfKey(key, WorkspaceTreeModel::StateColumn).data().toString(),
                     QStringLiteral("Paused, bootstrap failed"));
        const QString tip =
            window.model()->indexOfKey(key, WorkspaceTreeModel::StateColumn).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QLatin1String("bootstrap failed (exit 3)")), qPrintable(tip));
        QVERIFY2(tip.contains(QLatin1String("no network")), qPrintable(tip));

        // Retry runs it again on that very workspace.
        auto *view = window.findChild<QTreeView *>(QStringLiteral("workspaceView"));
        view->selectionModel()->setCurrentIndex(find(view->model(), id),
                                                QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        auto *retry = window.findChild<QAction *>(QStringLiteral("actionRetryBootstrap"));
        QTRY_VERIFY(retry->isEnabled());
        QFile ok(flag);
        QVERIFY(ok.open(QIODevice::WriteOnly));
        ok.close();
        retry->trigger();
        OpenDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = window.findChild<OpenDialog *>(QStringLiteral("openDialog"))) != nullptr);
        QCOMPARE(dialog->resolvedId(), id);
        QTRY_VERIFY(dialog->statusText().contains(QLatin1String("is open")));
        QTRY_COMPARE(window.model()->indexOfKey(key, WorkspaceTreeModel::StateColumn).data().toString(),
                     QStringLiteral("Running"));
        QTRY_VERIFY(!retry->isEnabled());
        dialog->close();
        local.shutdown();
    }

    void bootstrapLogOfAWorkspaceOpenedElsewhereSaysSo()
    {
        QTemporaryDir dir;
        leaveWorkspace(dir.path(), QStringLiteral("theirs"), QStringLiteral("u"), QStringLiteral("a"),
                       QStringLiteral("Running"));
        BootstrapLogStore logs(dir.filePath(QStringLiteral("logs")));
        PaddockTest::TestSession local(std::make_unique<LocalBackend>(LocalOptions{dir.path(), false}),
                                       Profile::local(), &logs);
        LocalBackend &backend = local.backend;
        MainWindow window(local.get());
        window.show();
        QTRY_COMPARE(window.model()->workspaceCount(), 1);
        const WorkspaceRecord *record = window.model()->recordsUnder({}).constFirst();
        LogViewer *viewer = window.showLog(*record, false);
        QVERIFY(viewer);
        QTRY_VERIFY2(viewer->noteText().contains(QLatin1String("it was not opened here")),
                     qPrintable(viewer->noteText()));
        QVERIFY(!viewer->noteText().contains(QLatin1String("No such file")));
        // Once it is written (opened here after all), the log shows and the note goes.
        QVERIFY(logs.append(backend.instanceKey(), QStringLiteral("theirs"), LogLine::Kind::Status, "opened here"));
        QTRY_COMPARE(viewer->model()->lineCount(), 1);
        QTRY_VERIFY(!viewer->noteText().contains(QLatin1String("not opened here")));
    }

    void keyboardReachesTheLogsAndHelp()
    {
        QTemporaryDir dir;
        leaveWorkspace(dir.path(), QStringLiteral("ws1"), QStringLiteral("u"), QStringLiteral("a"),
                       QStringLiteral("Running"));
        BootstrapLogStore logs(dir.filePath(QStringLiteral("logs")));
        PaddockTest::TestSession local(std::make_unique<LocalBackend>(LocalOptions{dir.path(), false}),
                                       Profile::local(), &logs);
        LocalBackend &backend = local.backend;
        QVERIFY(logs.append(backend.instanceKey(), QStringLiteral("ws1"), LogLine::Kind::Stdout, "a line"));
        MainWindow window(local.get());
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QTRY_COMPARE(window.model()->workspaceCount(), 1);
        auto *view = window.findChild<QTreeView *>(QStringLiteral("workspaceView"));
        view->setFocus();
        view->selectionModel()->setCurrentIndex(find(view->model(), QStringLiteral("ws1")),
                                                QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        QTest::keyClick(view, Qt::Key_L, Qt::ControlModifier);
        auto *viewer = qobject_cast<LogViewer *>(window.logTabs()->currentWidget());
        QVERIFY(viewer);
        view->setFocus();
        QTRY_VERIFY(view->hasFocus());

        // F6 goes to the log; Ctrl+F there is the log's search; F6 goes back.
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_F6);
        QTRY_VERIFY(window.logDock()->isAncestorOf(QApplication::focusWidget()));
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_F, Qt::ControlModifier);
        QTRY_COMPARE(QApplication::focusWidget(), viewer->searchField());
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_F6);
        QTRY_VERIFY(view->hasFocus());

        // Copy ID: the selected workspaces' ids.
        QTest::keyClick(view, Qt::Key_C, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("ws1"));

        // Help: every shortcut, and About.
        QTest::keyClick(view, Qt::Key_F1);
        QDialog *shortcuts = nullptr;
        QTRY_VERIFY((shortcuts = window.findChild<QDialog *>(QStringLiteral("shortcutsDialog"))) != nullptr
                    && shortcuts->isVisible());
        const QStringList entries = static_cast<ShortcutsDialog *>(shortcuts)->entries();
        QVERIFY2(entries.contains(QStringLiteral("Pause\tCtrl+P")), qPrintable(entries.join(u'\n')));
        QVERIFY2(entries.contains(QStringLiteral("Switch to Logs\tF6")), qPrintable(entries.join(u'\n')));
        shortcuts->close();
        window.findChild<QAction *>(QStringLiteral("actionAbout"))->trigger();
        QMessageBox *about = nullptr;
        QTRY_VERIFY((about = window.findChild<QMessageBox *>(QStringLiteral("aboutBox"))) != nullptr);
        QVERIFY(about->text().contains(QCoreApplication::applicationVersion()));
        about->close();
        local.shutdown();
    }

    void columnsStartFittedAndAreRemembered()
    {
        QTemporaryDir dir;
        const QString longId = QStringLiteral("0f3c9a7be21d4c5f8a6e2b9d1c3e5f70-0b5c3f5e6c1a4c2e9d3f1a2b");
        leaveWorkspace(dir.path(), longId, QStringLiteral("u"), QStringLiteral("a"), QStringLiteral("Running"));
        PaddockTest::TestSession local(std::make_unique<LocalBackend>(LocalOptions{dir.path(), false}));
        QSettings settings(dir.filePath(QStringLiteral("paddock.ini")), QSettings::IniFormat);
        int userWidth = 0;
        {
            MainWindow window(local.get());
            window.setSettings(&settings);
            window.resize(1600, 900);
            window.show();
            QTRY_COMPARE(window.model()->workspaceCount(), 1);
            auto *view = window.findChild<QTreeView *>(QStringLiteral("workspaceView"));
            QHeaderView *header = view->header();
            // Fitted to what they show: the id whole, beside its two levels of indentation.
            const int needed = view->fontMetrics().horizontalAdvance(longId) + 2 * view->indentation();
            QTRY_VERIFY2(header->sectionSize(WorkspaceTreeModel::WorkspaceColumn) >= needed,
                         qPrintable(QString::number(header->sectionSize(0))));
            QVERIFY(header->sectionSize(WorkspaceTreeModel::WorkspaceColumn) > 260); // wider than it used to start
            QVERIFY(header->sectionSize(WorkspaceTreeModel::StateColumn)
                    >= view->fontMetrics().horizontalAdvance(QStringLiteral("1 Running")));

            // The header's menu hides a column; widths and order are the user's.
            auto *menu = window.findChild<QMenu *>(QStringLiteral("columnsMenu"));
            QVERIFY(menu);
            header->customContextMenuRequested(QPoint(10, 5));
            QAction *sandbox = menu->findChild<QAction *>(
                QStringLiteral("showColumn%1").arg(int(WorkspaceTreeModel::SandboxIdColumn)));
            QVERIFY(sandbox && sandbox->isChecked());
            QVERIFY(!menu->findChild<QAction *>(QStringLiteral("showColumn0"))->isEnabled());
            sandbox->toggle();
            QVERIFY(header->isSectionHidden(WorkspaceTreeModel::SandboxIdColumn));
            menu->close();
            header->resizeSection(WorkspaceTreeModel::UserColumn, 333);
            userWidth = header->sectionSize(WorkspaceTreeModel::UserColumn);
            header->moveSection(header->visualIndex(WorkspaceTreeModel::CreatedColumn), 2);
            window.resize(1100, 700);
            window.close();
        }
        MainWindow again(local.get());
        again.setSettings(&settings);
        again.show();
        QTRY_COMPARE(again.model()->workspaceCount(), 1);
        QHeaderView *header = again.findChild<QTreeView *>(QStringLiteral("workspaceView"))->header();
        QVERIFY(header->isSectionHidden(WorkspaceTreeModel::SandboxIdColumn));
        QCOMPARE(header->sectionSize(WorkspaceTreeModel::UserColumn), userWidth);
        QCOMPARE(header->visualIndex(WorkspaceTreeModel::CreatedColumn), 2);
        QCOMPARE(again.size(), QSize(1100, 700));
    }

    void aStateDotStandsOutOnTheSelection()
    {
        QTemporaryDir dir;
        leaveWorkspace(dir.path(), QStringLiteral("paused"), QStringLiteral("u"), QStringLiteral("a"),
                       QStringLiteral("Paused"));
        PaddockTest::TestSession local(std::make_unique<LocalBackend>(LocalOptions{dir.path(), false}));
        MainWindow window(local.get());
        window.show();
        QTRY_COMPARE(window.model()->workspaceCount(), 1);
        auto *view = window.findChild<QTreeView *>(QStringLiteral("workspaceView"));
        const QModelIndex row = find(view->model(), QStringLiteral("paused"));
        const QModelIndex state = row.siblingAtColumn(WorkspaceTreeModel::StateColumn);
        const QColor dot = state.data(Qt::DecorationRole).value<QIcon>().pixmap(16, 16).toImage().pixelColor(8, 8);
        const auto luminance = [](const QColor &colour) {
            const auto linear = [](qreal c) { return c <= 0.03928 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); };
            return 0.2126 * linear(colour.redF()) + 0.7152 * linear(colour.greenF()) + 0.0722 * linear(colour.blueF());
        };
        const auto contrast = [&](const QColor &a, const QColor &b) {
            const qreal la = luminance(a), lb = luminance(b);
            return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
        };
        // The worst case: a highlight of the dot's very colour, in a light and a dark scheme.
        for (QPalette palette : {QApplication::style()->standardPalette(), ColorScheme::darkPalette()}) {
            palette.setColor(QPalette::Highlight, dot);
            QStyleOptionViewItem option;
            option.initFrom(view);
            option.palette = palette;
            option.rect = QRect(0, 0, 160, 24);
            option.state = QStyle::State_Enabled | QStyle::State_Active | QStyle::State_Selected;
            option.showDecorationSelected = true; // whole rows, as the tree selects them
            option.decorationSize = QSize(16, 16);
            option.widget = view;
            QImage image(option.rect.size(), QImage::Format_ARGB32_Premultiplied);
            image.fill(Qt::transparent);
            QPainter painter(&image);
            view->itemDelegate()->paint(&painter, option, state);
            painter.end();
            const int left = view->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, view) + 1;
            const int top = (option.rect.height() - 16) / 2;
            // The dot is there, and just outside it something that stands out from it.
            QVERIFY(contrast(image.pixelColor(left + 8, top + 8), dot) < 1.1);
            const QColor around = image.pixelColor(left + 13, top + 8);
            QVERIFY2(contrast(around, dot) >= 2.5,
                     qPrintable(QStringLiteral("%1 around %2").arg(around.name(), dot.name())));
        }
    }

    void docksStartAtASensibleSize()
    {
        QTemporaryDir dir;
        PaddockTest::TestSession local(std::make_unique<LocalBackend>(LocalOptions{dir.path(), false}));
        QSettings settings(dir.filePath(QStringLiteral("paddock.ini")), QSettings::IniFormat);
        int logsWidth = 0;
        {
            MainWindow window(local.get());
            window.setSettings(&settings);
            window.resize(1600, 1000);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            // Event History, then the Logs beside it: they share the bottom, neither a sliver.
            window.eventHistoryDock()->toggleViewAction()->trigger();
            window.logDock()->toggleViewAction()->trigger();
            QTRY_VERIFY2(window.logDock()->width() >= 600,
                         qPrintable(QStringLiteral("%1 beside %2")
                                        .arg(window.logDock()->width())
                                        .arg(window.eventHistoryDock()->width())));
            QVERIFY(window.eventHistoryDock()->width() >= 600);
            QVERIFY(window.logDock()->height() >= 200);
            // The user's layout is theirs.
            window.resizeDocks(QList<QDockWidget *>{window.logDock(), window.eventHistoryDock()}, {1200, 400},
                               Qt::Horizontal);
            QTRY_VERIFY(window.logDock()->width() > 2 * window.eventHistoryDock()->width());
            logsWidth = window.logDock()->width();
            window.close();
        }
        MainWindow again(local.get());
        again.setSettings(&settings);
        again.resize(1600, 1000);
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        QTRY_VERIFY(again.logDock()->isVisible());
        QCoreApplication::processEvents();
        QVERIFY2(std::abs(again.logDock()->width() - logsWidth) < 20,
                 qPrintable(QStringLiteral("%1, was %2").arg(again.logDock()->width()).arg(logsWidth)));
    }

    void theProfileSwitcherKeepsItsWidth()
    {
        QTemporaryDir dir;
        PaddockTest::TestSession local(std::make_unique<LocalBackend>(LocalOptions{dir.path(), false}));
        MainWindow window(local.get());
        const QString broken = QStringLiteral("Broken OpenSandbox server");
        const QString huge = QStringLiteral("A profile whose name goes on and on well past any sensible width, v2");
        window.setProfiles({{QStringLiteral("local"), QStringLiteral("Team server")},
                            {QStringLiteral("broken"), broken},
                            {QStringLiteral("huge"), huge}},
                           QStringLiteral("local"));
        window.resize(1600, 1000);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto *box = window.findChild<ProfileSwitcher *>(QStringLiteral("profileBox"));
        QVERIFY(box);
        const QFontMetrics metrics = box->fontMetrics();
        // The inspector docked and a long problem beside the switcher: it keeps its width.
        window.inspectorDock()->toggleViewAction()->trigger();
        window.setSession(nullptr, QStringLiteral("local"),
                          QStringLiteral("The keychain could not be read: %1").arg(QString(300, u'x')));
        QTRY_VERIFY(window.findChild<QLabel *>(QStringLiteral("profileProblemLabel"))->isVisible());
        QCoreApplication::processEvents();
        QVERIFY2(box->width() >= metrics.horizontalAdvance(broken) + 16, qPrintable(QString::number(box->width())));
        QVERIFY(box->width() <= metrics.averageCharWidth() * (ProfileSwitcher::MaxCharacters + 20));
        QCOMPARE(box->shownText(), QStringLiteral("Team server"));
        // Past the cap: cut in the middle, whole in the tooltip.
        box->setCurrentIndex(box->findData(QStringLiteral("huge")));
        QVERIFY2(box->shownText() != huge && box->shownText().startsWith(QLatin1String("A profile"))
                     && box->shownText().endsWith(QLatin1String("v2")),
                 qPrintable(box->shownText()));
        // The popup is as wide as its entries.
        box->showPopup();
        QTRY_VERIFY(box->view()->isVisible());
        QVERIFY2(box->view()->viewport()->width() >= metrics.horizontalAdvance(huge),
                 qPrintable(QString::number(box->view()->viewport()->width())));
        box->hidePopup();
    }

    void aColumnWidensWhenItsRowsSayMore()
    {
        QTemporaryDir dir;
        const QString basedir = dir.filePath(QStringLiteral("ws"));
        leaveWorkspace(basedir, QStringLiteral("paused"), QStringLiteral("u"), QStringLiteral("a"),
                       QStringLiteral("Paused"));
        BootstrapLogStore logs(dir.filePath(QStringLiteral("logs")));
        PaddockTest::TestSession local(std::make_unique<LocalBackend>(LocalOptions{basedir, false}), Profile::local(),
                                       &logs);
        MainWindow window(local.get());
        window.resize(1600, 900);
        window.show();
        QTRY_COMPARE(window.model()->workspaceCount(), 1);
        auto *tree = window.findChild<QTreeView *>(QStringLiteral("workspaceView"));
        QHeaderView *header = tree->header();
        // Fitted to "Paused" first (once the rows are laid out).
        QTRY_VERIFY2(header->sectionSize(WorkspaceTreeModel::StateColumn)
                         < tree->fontMetrics().horizontalAdvance(QStringLiteral("Paused, bootstrap failed")),
                     qPrintable(QString::number(header->sectionSize(WorkspaceTreeModel::StateColumn))));
        // Its bootstrap failed (recorded by whoever opened it): the row says so, and the column
        // shows it whole.
        QVERIFY(
            logs.recordOutcome(local.backend.instanceKey(), QStringLiteral("paused"), false, QStringLiteral("exit 3")));
        window.refresh();
        QTRY_COMPARE(window.model()
                         ->indexOfKey(QStringLiteral("local\x1fpaused"), WorkspaceTreeModel::StateColumn)
                         .data()
                         .toString(),
                     QStringLiteral("Paused, bootstrap failed"));
        QTRY_VERIFY2(header->sectionSize(WorkspaceTreeModel::StateColumn)
                         >= tree->fontMetrics().horizontalAdvance(QStringLiteral("Paused, bootstrap failed")) + 16,
                     qPrintable(QString::number(header->sectionSize(WorkspaceTreeModel::StateColumn))));
        local.shutdown();
    }

    void readOnlyHidesEveryChange()
    {
        QTemporaryDir dir;
        PaddockTest::TestSession local(std::make_unique<LocalBackend>(LocalOptions{dir.path(), false}));
        MainWindow window(local.get());
        window.show();
        QVERIFY(!window.findChild<QLabel *>(QStringLiteral("readOnlyBadge"))->isVisible());
        window.setReadOnly(true);
        // It says so where the profile is chosen.
        QVERIFY(window.findChild<QLabel *>(QStringLiteral("readOnlyBadge"))->isVisible());
        for (const char *name : {"actionOpen", "actionClose", "actionPause", "actionResume", "actionRenew",
                                 "actionKill", "actionPauseIdle", "actionRetryBootstrap"})
            QVERIFY(!window.findChild<QAction *>(QLatin1String(name))->isVisible());
        QVERIFY(window.findChild<QAction *>(QStringLiteral("actionRefresh"))->isVisible());
    }

    void openShowsTheBootstrapLogLiveThenCloseReleases()
    {
        QTemporaryDir dir;
        const QString basedir = dir.filePath(QStringLiteral("workspaces"));
        BootstrapLogStore logs(dir.filePath(QStringLiteral("logs")));
        ProvisionOptions options;
        options.bootstrap = {{QStringLiteral("for i in 1 2 3; do echo step $i; done; echo warn >&2"), 60s}};
        Profile profile = Profile::local();
        profile.ttl = 3600s;
        PaddockTest::TestSession local(std::make_unique<LocalBackend>(LocalOptions{basedir, false}), profile, &logs,
                                       options);
        LocalBackend &backend = local.backend;
        MainWindow window(local.get());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));

        auto *open = window.findChild<QAction *>(QStringLiteral("actionOpen"));
        QVERIFY(open->isEnabled());
        open->trigger();
        OpenDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = window.findChild<OpenDialog *>(QStringLiteral("openDialog"))) != nullptr
                    && dialog->isVisible());
        auto *openButton = dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Open);
        QVERIFY(!openButton->isEnabled()); // no user or agent yet
        dialog->findChild<QLineEdit *>(QStringLiteral("userEdit"))->setText(QStringLiteral("alice"));
        dialog->findChild<QLineEdit *>(QStringLiteral("agentEdit"))->insert(QStringLiteral("运维"));
        const QString id =
            assignWorkspaceId(IsolationPolicy::PerAgent, QStringLiteral("alice"), QStringLiteral("运维"));
        QCOMPARE(dialog->resolvedId(), id); // shown before anything starts
        QVERIFY(openButton->isEnabled());
        QVERIFY(openButton->isDefault()); // Enter opens
        openButton->click();

        // The log shows every line of this run, in order; the row appears with its idle countdown.
        QTRY_VERIFY(dialog->statusText().contains(QLatin1String("is open")));
        const QString log = dialog->logText();
        const qsizetype one = log.indexOf(QLatin1String("step 1"));
        const qsizetype three = log.indexOf(QLatin1String("step 3"));
        QVERIFY2(one >= 0 && three > one && log.contains(QLatin1String("! warn")), qPrintable(log));
        QVERIFY(local->cached(id));
        const QString key = QStringLiteral("local\x1f") + id;
        QTRY_VERIFY(window.model()->indexOfKey(key).isValid());
        // About an hour to go. (A listing that ran while it was provisioned may show the row before
        // the manager held it; the refresh after the opening brings the deadline.)
        QTRY_VERIFY2(window.model()
                         ->indexOfKey(key, WorkspaceTreeModel::IdleColumn)
                         .data()
                         .toString()
                         .contains(QLatin1String("min")),
                     qPrintable(window.model()->indexOfKey(key, WorkspaceTreeModel::IdleColumn).data().toString()));
        QVERIFY(window.activity()->lastActivity(key).isValid()); // opening is the console's own access
        dialog->close();

        // The bootstrap log in a tab of the log dock: every line kept, stderr set apart, and new
        // lines as the store writes them.
        auto *tree = window.findChild<QTreeView *>(QStringLiteral("workspaceView"));
        const QModelIndex row = find(tree->model(), id);
        QVERIFY(row.isValid());
        tree->selectionModel()->setCurrentIndex(row, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        auto *showLog = window.findChild<QAction *>(QStringLiteral("actionShowLog"));
        QVERIFY(showLog->isEnabled());
        QVERIFY(!window.findChild<QAction *>(QStringLiteral("actionShowContainerLog"))->isEnabled()); // local
        showLog->trigger();
        QCOMPARE(window.logTabs()->count(), 1);
        QVERIFY(window.logDock()->isVisible());
        auto *viewer = qobject_cast<LogViewer *>(window.logTabs()->currentWidget());
        QVERIFY(viewer);
        QCOMPARE(window.logTabs()->tabText(0), MainWindow::tr("Log: %1").arg(id));
        QTRY_VERIFY(viewer->model()->lineCount() >= 5);
        QStringList texts;
        int errLine = -1;
        for (int i = 0; i < viewer->model()->rowCount(); ++i) {
            const QModelIndex text = viewer->model()->index(i, LogModel::TextColumn);
            texts << text.data().toString();
            if (text.data().toString() == QLatin1String("warn"))
                errLine = i;
        }
        QVERIFY2(texts.indexOf(QStringLiteral("step 1")) < texts.indexOf(QStringLiteral("step 3")),
                 qPrintable(texts.join(u'\n')));
        QVERIFY(errLine >= 0);
        QCOMPARE(viewer->model()->index(errLine, 0).data(LogModel::KindRole).toInt(), int(LogLine::Kind::Stderr));
        const qsizetype before = viewer->model()->lineCount();
        QVERIFY(logs.append(backend.instanceKey(), id, LogLine::Kind::Stdout, "written later").has_value());
        QTRY_COMPARE(viewer->model()->lineCount(), before + 1);
        // The same log again is the same tab.
        showLog->trigger();
        QCOMPARE(window.logTabs()->count(), 1);

        // Close: released by the manager and paused.
        auto *view = window.findChild<QTreeView *>(QStringLiteral("workspaceView"));
        view->selectionModel()->select(view->model()->index(0, 0),
                                       QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        auto *close = window.findChild<QAction *>(QStringLiteral("actionClose"));
        QVERIFY(close->isEnabled());
        close->trigger();
        QTRY_VERIFY(!local->cached(id));
        QTRY_COMPARE(window.model()->indexOfKey(key, WorkspaceTreeModel::StateColumn).data().toString(),
                     QStringLiteral("Paused"));
        QVERIFY(window.model()->indexOfKey(key, WorkspaceTreeModel::IdleColumn).data().toString().isEmpty());
        local.shutdown();
    }

    void openOpensWhatTheDialogShows()
    {
        // A row of bob's is current when Open is chosen; the user types alice instead.
        QTemporaryDir dir;
        const QString basedir = dir.filePath(QStringLiteral("workspaces"));
        leaveWorkspace(basedir, QStringLiteral("bobs"), QStringLiteral("bob"), QStringLiteral("ops"),
                       QStringLiteral("Paused"));
        BootstrapLogStore logs(dir.filePath(QStringLiteral("logs")));
        ProvisionOptions options;
        options.bootstrap = {{QStringLiteral("echo bootstrapped"), 60s}};
        PaddockTest::TestSession local(std::make_unique<LocalBackend>(LocalOptions{basedir, false}), Profile::local(),
                                       &logs, options);
        LocalBackend &backend = local.backend;
        MainWindow window(local.get());
        window.show();
        QTRY_COMPARE(window.model()->workspaceCount(), 1);
        auto *view = window.findChild<QTreeView *>(QStringLiteral("workspaceView"));
        view->selectionModel()->setCurrentIndex(find(view->model(), QStringLiteral("bobs")),
                                                QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);

        window.findChild<QAction *>(QStringLiteral("actionOpen"))->trigger();
        OpenDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = window.findChild<OpenDialog *>(QStringLiteral("openDialog"))) != nullptr
                    && dialog->isVisible());
        auto *user = dialog->findChild<QLineEdit *>(QStringLiteral("userEdit"));
        auto *idEdit = dialog->findChild<QLineEdit *>(QStringLiteral("workspaceIdEdit"));
        auto *byId = dialog->findChild<QRadioButton *>(QStringLiteral("explicitButton"));
        // The row's user and agent; its id is offered but does not count unless chosen.
        QCOMPARE(user->text(), QStringLiteral("bob"));
        QCOMPARE(idEdit->text(), QStringLiteral("bobs"));
        QVERIFY(!byId->isChecked());
        QVERIFY(!idEdit->isEnabled());
        const QString bobsPolicyId =
            assignWorkspaceId(IsolationPolicy::PerAgent, QStringLiteral("bob"), QStringLiteral("ops"));
        QCOMPARE(dialog->resolvedId(), bobsPolicyId);
        // The row's own workspace is another one: the dialog says how to open that one instead.
        QVERIFY2(dialog->resolvedText().contains(QLatin1String("bobs in the id field is another one")),
                 qPrintable(dialog->resolvedText()));

        user->setText(QStringLiteral("alice"));
        const QString alicesId =
            assignWorkspaceId(IsolationPolicy::PerAgent, QStringLiteral("alice"), QStringLiteral("ops"));
        QCOMPARE(dialog->resolvedId(), alicesId);
        // The label names what opens and says it is new; nothing names the policy for an id.
        QVERIFY2(dialog->resolvedText().contains(alicesId), qPrintable(dialog->resolvedText()));
        QVERIFY2(dialog->resolvedText().contains(QLatin1String("user alice")), qPrintable(dialog->resolvedText()));
        QVERIFY2(dialog->resolvedText().contains(QLatin1String("new one is created")),
                 qPrintable(dialog->resolvedText()));
        auto *openButton = dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Open);
        openButton->click();
        QTRY_VERIFY(dialog->statusText().contains(QLatin1String("is open")));
        QVERIFY(local->cached(alicesId));
        QVERIFY(!local->cached(QStringLiteral("bobs"))); // bob's workspace was not touched
        QVERIFY(!QFile::exists(logs.path(backend.instanceKey(), QStringLiteral("bobs"))));
        QTRY_COMPARE(window.model()->workspaceCount(), 2);
        // Now in the list: the dialog says so, not that it would be made.
        QTRY_VERIFY2(dialog->resolvedText().contains(QLatin1String("It exists (")), qPrintable(dialog->resolvedText()));
        QVERIFY2(!dialog->resolvedText().contains(QLatin1String("not in the list")),
                 qPrintable(dialog->resolvedText()));

        // Reattaching by id is a deliberate choice, and the dialog says whose workspace that is.
        byId->click();
        QVERIFY(idEdit->isEnabled());
        QCOMPARE(dialog->resolvedId(), QStringLiteral("bobs"));
        QVERIFY2(dialog->resolvedText().contains(QLatin1String("It exists (Paused)")),
                 qPrintable(dialog->resolvedText()));
        QVERIFY2(dialog->resolvedText().contains(QLatin1String("belongs to user bob, not alice")),
                 qPrintable(dialog->resolvedText()));
        openButton->click();
        QTRY_VERIFY(local->cached(QStringLiteral("bobs")));
        dialog->close();
        local.shutdown();
    }

    void perSessionOpensTheIdShown()
    {
        QTemporaryDir dir;
        BootstrapLogStore logs(dir.filePath(QStringLiteral("logs")));
        Profile profile = Profile::local();
        profile.isolation = IsolationPolicy::PerSession;
        PaddockTest::TestSession local(
            std::make_unique<LocalBackend>(LocalOptions{dir.filePath(QStringLiteral("ws")), false}), profile, &logs);
        MainWindow window(local.get());
        window.show();
        window.findChild<QAction *>(QStringLiteral("actionOpen"))->trigger();
        OpenDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = window.findChild<OpenDialog *>(QStringLiteral("openDialog"))) != nullptr);
        dialog->findChild<QLineEdit *>(QStringLiteral("userEdit"))->setText(QStringLiteral("alice"));
        dialog->findChild<QLineEdit *>(QStringLiteral("agentEdit"))->setText(QStringLiteral("ops"));
        const QString shown = dialog->resolvedId();
        QCOMPARE(shown.size(), 32);
        QCOMPARE(dialog->resolvedId(), shown); // minted once, not per look
        QVERIFY(dialog->resolvedText().contains(shown));
        dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Open)->click();
        QTRY_VERIFY(dialog->statusText().contains(QLatin1String("is open")));
        QVERIFY(local->cached(shown));
        QCOMPARE(local->openCount(), 1);
        QVERIFY(dialog->resolvedId() != shown); // the next open is another session
        dialog->close();
        local.shutdown();
    }

    void containerLogFooterSaysWhenPollingFailsAndWhenItWorksAgain()
    {
        QTemporaryDir dir;
        BootstrapLogStore logs(dir.filePath(QStringLiteral("logs")));
        PaddockTest::TestSession flaky(std::make_unique<FlakyLogBackend>(),
                                       PaddockTest::testProfile(QStringLiteral("flaky")), &logs);
        FlakyLogBackend &backend = flaky.backend;
        backend.error =
            Error::unreachable(QStringLiteral("GET http://127.0.0.1:1/v1/sandboxes failed: Connection refused"));
        MainWindow window(flaky.get());
        window.show();
        WorkspaceRecord record;
        record.profile = QStringLiteral("flaky");
        record.info = backend.sandbox;
        LogViewer *viewer = window.showLog(record, true);
        QVERIFY(viewer);
        // The server is down: the footer says what is wrong, and that the tail keeps trying.
        QTRY_VERIFY_WITH_TIMEOUT(viewer->statusText().contains(QLatin1String("Connection refused")), 10'000);
        QVERIFY2(viewer->statusText().contains(MainWindow::tr("Polling failed; trying again: %1").arg(QString())),
                 qPrintable(viewer->statusText()));
        // It answers again: the next poll brings the lines, and the footer says polling works.
        backend.error.reset();
        backend.body = "2026-12-01T10:00:00.123456789Z back again\n";
        QTRY_VERIFY_WITH_TIMEOUT(viewer->model()->lineCount() == 1, 20'000);
        QCOMPARE(viewer->model()->index(0, LogModel::TextColumn).data().toString(), QStringLiteral("back again"));
        QTRY_VERIFY2(viewer->statusText().contains(MainWindow::tr("Polling the server for new lines.")),
                     qPrintable(viewer->statusText()));
        QVERIFY(!viewer->statusText().contains(QLatin1String("Connection refused")));
    }

    void perUserShowsTheAgentsSharingAWorkspace()
    {
        QTemporaryDir dir;
        BootstrapLogStore logs(dir.filePath(QStringLiteral("logs")));
        Profile profile = Profile::local();
        profile.isolation = IsolationPolicy::PerUser;
        PaddockTest::TestSession local(
            std::make_unique<LocalBackend>(LocalOptions{dir.filePath(QStringLiteral("ws")), false}), profile, &logs);
        MainWindow window(local.get());
        window.show();
        for (const char *agent : {"coder", "reviewer"}) {
            window.findChild<QAction *>(QStringLiteral("actionOpen"))->trigger();
            OpenDialog *dialog = nullptr;
            QTRY_VERIFY((dialog = window.findChild<OpenDialog *>(QStringLiteral("openDialog"))) != nullptr);
            dialog->findChild<QLineEdit *>(QStringLiteral("userEdit"))->setText(QStringLiteral("alice"));
            dialog->findChild<QLineEdit *>(QStringLiteral("agentEdit"))->setText(QLatin1String(agent));
            dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Open)->click();
            QTRY_VERIFY(dialog->statusText().contains(QLatin1String("is open")));
            dialog->close();
            QTRY_VERIFY(!window.findChild<OpenDialog *>(QStringLiteral("openDialog")));
        }
        // One workspace for alice; its agent row names both agents.
        auto *view = window.findChild<QTreeView *>(QStringLiteral("workspaceView"));
        QTRY_VERIFY(find(view->model(), QStringLiteral("coder, reviewer")).isValid());
        QCOMPARE(window.model()->workspaceCount(), 1);
        local.shutdown();
    }

    void keyboardAndAccessibility()
    {
        QTemporaryDir dir;
        BootstrapLogStore logs(dir.filePath(QStringLiteral("logs")));
        PaddockTest::TestSession local(std::make_unique<LocalBackend>(LocalOptions{dir.path(), false}),
                                       Profile::local(), &logs);
        MainWindow window(local.get());
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));

        // Every action has a shortcut and says what it does; none shares a shortcut.
        QSet<QString> shortcuts;
        const auto actions = window.findChildren<QAction *>(QRegularExpression(QStringLiteral("^action")));
        QVERIFY(actions.size() >= 13);
        for (const QAction *action : actions) {
            // Help > About is the one entry without a shortcut of its own (F1 lists them all).
            if (action->objectName() == QLatin1String("actionAbout"))
                continue;
            QVERIFY2(!action->shortcut().isEmpty(), qPrintable(action->objectName()));
            QVERIFY2(!action->toolTip().isEmpty(), qPrintable(action->objectName()));
            QVERIFY2(!shortcuts.contains(action->shortcut().toString()), qPrintable(action->objectName()));
            shortcuts.insert(action->shortcut().toString());
        }
        // Controls without a label of their own carry an accessible name and a tooltip.
        for (const char *name : {"profileBox", "filterEdit", "stateFilterBox", "backendFilterBox", "refreshIntervalBox",
                                 "workspaceView"}) {
            const auto *widget = window.findChild<QWidget *>(QLatin1String(name));
            QVERIFY2(widget && !widget->accessibleName().isEmpty(), name);
        }
        for (const char *name :
             {"profileBox", "filterEdit", "stateFilterBox", "backendFilterBox", "refreshIntervalBox"})
            QVERIFY2(!window.findChild<QWidget *>(QLatin1String(name))->toolTip().isEmpty(), name);

        // The Open dialog: Tab walks the fields in order, Enter opens, Esc closes.
        QTest::keyClick(&window, Qt::Key_O, Qt::ControlModifier);
        OpenDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = window.findChild<OpenDialog *>(QStringLiteral("openDialog"))) != nullptr
                    && dialog->isVisible());
        QVERIFY(QTest::qWaitForWindowActive(dialog));
        QTRY_COMPARE(QApplication::focusWidget(), dialog->findChild<QLineEdit *>(QStringLiteral("userEdit")));
        QTest::keyClicks(QApplication::focusWidget(), QStringLiteral("dana"));
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
        QCOMPARE(QApplication::focusWidget(), dialog->findChild<QLineEdit *>(QStringLiteral("agentEdit")));
        QTest::keyClicks(QApplication::focusWidget(), QStringLiteral("ops"));
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
        QCOMPARE(QApplication::focusWidget(), dialog->findChild<QLineEdit *>(QStringLiteral("sessionEdit")));
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
        // The id field is off until "Reattach to workspace id" is chosen.
        QCOMPARE(QApplication::focusWidget(), dialog->findChild<QRadioButton *>(QStringLiteral("explicitButton")));
        QVERIFY(!dialog->findChild<QLineEdit *>(QStringLiteral("workspaceIdEdit"))->isEnabled());
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
        QTRY_VERIFY(dialog->statusText().contains(QLatin1String("is open")));
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Escape);
        QTRY_VERIFY(!window.findChild<OpenDialog *>(QStringLiteral("openDialog")));
        local.shutdown();
    }

    void languageSwitchesAtRunTime()
    {
        QTemporaryDir dir;
        leaveWorkspace(dir.path(), QStringLiteral("ws1"), QStringLiteral("u"), QStringLiteral("a"),
                       QStringLiteral("Paused"));
        BootstrapLogStore logs(dir.filePath(QStringLiteral("logs")));
        PaddockTest::TestSession local(std::make_unique<LocalBackend>(LocalOptions{dir.path(), false}),
                                       Profile::local(), &logs);
        MainWindow window(local.get());
        window.show();
        QTRY_COMPARE(window.model()->workspaceCount(), 1);
        auto *view = window.findChild<QTreeView *>(QStringLiteral("workspaceView"));
        const QModelIndex ws1 = find(view->model(), QStringLiteral("ws1"));
        view->selectionModel()->select(ws1, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        QSignalSpy chosen(&window, &MainWindow::languageChosen);
        window.findChild<QAction *>(QStringLiteral("language_zh_CN"))->trigger();
        QCOMPARE(chosen.count(), 1);
        QCOMPARE(chosen.constFirst().constFirst().toString(), QStringLiteral("zh_CN"));

        // What the console does with the choice: every open window follows at once.
        window.findChild<QAction *>(QStringLiteral("actionShowLog"))->trigger();
        auto *viewer = qobject_cast<LogViewer *>(window.logTabs()->currentWidget());
        QVERIFY(viewer);
        window.findChild<QAction *>(QStringLiteral("actionOpen"))->trigger();
        OpenDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = window.findChild<OpenDialog *>(QStringLiteral("openDialog"))) != nullptr);
        QCOMPARE(Paddock::useLanguage(QLocale(QStringLiteral("zh_CN"))), QStringLiteral("zh_CN"));
        auto *file = window.findChild<QMenu *>(QStringLiteral("menuFile"));
        QTRY_COMPARE(file->title(), QStringLiteral("文件(&F)")); // LanguageChange is posted
        QCOMPARE(view->model()->headerData(WorkspaceTreeModel::WorkspaceColumn, Qt::Horizontal).toString(),
                 QStringLiteral("工作区"));
        QCOMPARE(find(view->model(), QStringLiteral("ws1"))
                     .siblingAtColumn(WorkspaceTreeModel::StateColumn)
                     .data()
                     .toString(),
                 QStringLiteral("已暂停"));
        QCOMPARE(dialog->windowTitle(), QStringLiteral("在“本地”中打开工作区")); // its profile named
        QCOMPARE(window.findChild<QAction *>(QStringLiteral("actionResume"))->text(), QStringLiteral("恢复(&U)"));
        QCOMPARE(window.findChild<QComboBox *>(QStringLiteral("stateFilterBox"))->itemText(0),
                 QStringLiteral("所有状态"));
        QCOMPARE(window.logTabs()->tabText(0), QStringLiteral("日志：ws1"));
        QCOMPARE(window.logDock()->windowTitle(), QStringLiteral("日志"));
        QCOMPARE(viewer->searchField()->placeholderText(), QStringLiteral("搜索日志"));
        // The layout and the selection stay.
        QVERIFY(view->selectionModel()->isSelected(find(view->model(), QStringLiteral("ws1"))));

        QCOMPARE(Paddock::useLanguage(QLocale(QLocale::English, QLocale::UnitedStates)), QStringLiteral("en"));
        QTRY_COMPARE(file->title(), QStringLiteral("&File"));
        QTRY_COMPARE(dialog->windowTitle(), QStringLiteral("Open workspace in Local"));
        QCOMPARE(window.findChild<QComboBox *>(QStringLiteral("refreshIntervalBox"))->itemText(1),
                 QStringLiteral("5 seconds")); // English plurals
        dialog->close();
        local.shutdown();
    }

    void backendFilter()
    {
        QTemporaryDir dir;
        leaveWorkspace(dir.path(), QStringLiteral("ws1"), QStringLiteral("u"), QStringLiteral("a"),
                       QStringLiteral("Running"));
        PaddockTest::TestSession local(std::make_unique<LocalBackend>(LocalOptions{dir.path(), false}));
        MainWindow window(local.get());
        window.show();
        QTRY_COMPARE(window.model()->workspaceCount(), 1);
        auto *view = window.findChild<QTreeView *>(QStringLiteral("workspaceView"));
        auto *box = window.findChild<QComboBox *>(QStringLiteral("backendFilterBox"));
        box->setCurrentIndex(box->findData(QStringLiteral("opensandbox")));
        QCOMPARE(view->model()->rowCount(), 0);
        box->setCurrentIndex(box->findData(QStringLiteral("local")));
        QVERIFY(find(view->model(), QStringLiteral("ws1")).isValid());
        box->setCurrentIndex(0);
        QVERIFY(find(view->model(), QStringLiteral("ws1")).isValid());
    }

    void backendFilterOffersEveryRegisteredBackend()
    {
        // A Docker profile's containers, as its backend lists them.
        auto scripted = std::make_unique<PaddockTest::ScriptedBackend>();
        for (const char *id : {"c1", "c2"}) {
            SandboxInfo info;
            info.sandboxId = QStringLiteral("container-") + QLatin1String(id);
            info.workspaceId = QLatin1String(id);
            info.userId = QStringLiteral("u");
            info.agentId = QStringLiteral("a");
            info.state = SandboxState::Running;
            info.rawState = QStringLiteral("running");
            info.backend = QStringLiteral("docker");
            info.createdAt = QDateTime::currentDateTimeUtc();
            info.metadata.insert(WorkspaceIdKey, info.workspaceId);
            scripted->sandboxes.append(info);
        }
        PaddockTest::TestSession docker(std::move(scripted),
                                        PaddockTest::testProfile(QStringLiteral("docker"), Profile::Kind::Docker));
        MainWindow window(docker.get());
        window.show();
        QTRY_COMPARE(window.model()->workspaceCount(), 2);
        auto *view = window.findChild<QTreeView *>(QStringLiteral("workspaceView"));
        auto *box = window.findChild<QComboBox *>(QStringLiteral("backendFilterBox"));
        QVERIFY(box);

        // "All backends" first, then every backend of the registry, in its order, by its name.
        const QList<BackendFactory> &factories = BackendRegistry::instance().factories();
        QCOMPARE(box->count(), factories.size() + 1);
        QCOMPARE(box->itemData(0).toString(), QString());
        for (qsizetype i = 0; i < factories.size(); ++i) {
            QCOMPARE(box->itemData(int(i) + 1).toString(), factories.at(i).id);
            QCOMPARE(box->itemText(int(i) + 1), factories.at(i).displayName());
        }
        for (const char *id : {"local", "opensandbox", "docker"})
            QVERIFY2(box->findData(QLatin1String(id)) > 0, id);
        QCOMPARE(box->itemText(box->findData(QStringLiteral("docker"))), QStringLiteral("Docker"));

        // Docker keeps a Docker profile's rows; another backend hides them; Docker shows them again.
        box->setCurrentIndex(box->findData(QStringLiteral("docker")));
        QVERIFY(view->model()->rowCount() > 0);
        QVERIFY(find(view->model(), QStringLiteral("c1")).isValid());
        QVERIFY(find(view->model(), QStringLiteral("c2")).isValid());
        box->setCurrentIndex(box->findData(QStringLiteral("local")));
        QCOMPARE(view->model()->rowCount(), 0);
        box->setCurrentIndex(box->findData(QStringLiteral("docker")));
        QVERIFY(find(view->model(), QStringLiteral("c1")).isValid());
        QVERIFY(find(view->model(), QStringLiteral("c2")).isValid());
    }

    void aProfileThatStopsSaysStopAndKillNamesWhatItDeletes()
    {
        // A cluster's workspaces, as a backend that stops instead of pausing lists them: two of
        // Paddock's, and one AgentScope made (no user, no agent recorded), stopped.
        auto scripted = std::make_unique<PaddockTest::ScriptedBackend>();
        scripted->reportedCapabilities = Capability::StopInsteadOfPause | Capability::ContainerLog;
        scripted->killWarningOf = [](const SandboxInfo &sandbox) {
            return QStringLiteral("Deletes Pod %1 and PVC %1, with the workspace's files").arg(sandbox.sandboxId);
        };
        for (const auto &[id, user, state] :
             {std::tuple{"k1", "u", SandboxState::Running}, std::tuple{"k2", "u", SandboxState::Running},
              std::tuple{"k3", "", SandboxState::Paused}}) {
            SandboxInfo info;
            info.sandboxId = QStringLiteral("as-ws-") + QLatin1String(id);
            info.workspaceId = QLatin1String(id);
            info.userId = QLatin1String(user);
            info.agentId = info.userId.isEmpty() ? QString() : QStringLiteral("a");
            info.state = state;
            info.rawState = state == SandboxState::Paused ? QStringLiteral("Stopped") : QStringLiteral("Running");
            info.backend = QStringLiteral("kubernetes");
            info.createdAt = QDateTime::currentDateTimeUtc();
            info.metadata.insert(WorkspaceIdKey, info.workspaceId);
            scripted->sandboxes.append(info);
        }
        PaddockTest::TestSession cluster(std::move(scripted),
                                         PaddockTest::testProfile(QStringLiteral("k8s"), Profile::Kind::Kubernetes));
        PaddockTest::ScriptedBackend &backend = cluster.backend;
        MainWindow window(cluster.get());
        window.show();
        QTRY_COMPARE(window.model()->workspaceCount(), 3);
        auto *view = window.findChild<QTreeView *>(QStringLiteral("workspaceView"));
        QAbstractItemModel *shown = view->model();
        const auto stateOf = [&window](const char *id) {
            return window.model()
                ->indexOfKey(QStringLiteral("k8s\x1f"
                                            "as-ws-")
                                 + QLatin1String(id),
                             WorkspaceTreeModel::StateColumn)
                .data()
                .toString();
        };
        const auto select = [view](const QModelIndex &index) {
            QVERIFY(index.isValid());
            view->selectionModel()->select(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        };
        const auto confirmation = [&window](QPointer<ConfirmDialog> &previous) -> ConfirmDialog * {
            // The last one goes (deleteLater) before the next is looked for.
            if (!QTest::qWaitFor([&previous] { return previous.isNull(); }, 5000))
                return nullptr;
            ConfirmDialog *found = nullptr;
            const bool shown = QTest::qWaitFor(
                [&window, &found] {
                    found = window.findChild<ConfirmDialog *>(QStringLiteral("confirmAction"));
                    return found && found->isVisible();
                },
                5000);
            previous = shown ? found : nullptr;
            return shown ? found : nullptr;
        };
        QPointer<ConfirmDialog> confirm;

        // Stopped, not Paused: in the row, and in the state filter's entry.
        QCOMPARE(stateOf("k3"), QStringLiteral("Stopped"));
        auto *stateBox = window.findChild<QComboBox *>(QStringLiteral("stateFilterBox"));
        QVERIFY(stateBox->findText(QStringLiteral("Stopped")) > 0);
        QCOMPARE(stateBox->findText(QStringLiteral("Paused")), -1);
        stateBox->setCurrentIndex(stateBox->findText(QStringLiteral("Stopped")));
        QVERIFY(find(shown, QStringLiteral("k3")).isValid());
        QVERIFY(!find(shown, QStringLiteral("k1")).isValid());
        stateBox->setCurrentIndex(0);
        // The workspace with no user is under "unknown", not hidden.
        const QModelIndex unknown = find(shown, QStringLiteral("unknown"));
        QVERIFY(unknown.isValid());
        QVERIFY(find(shown, QStringLiteral("k3")).parent().parent() == unknown);

        // Pause is Stop here, and its confirmation says what a stop does.
        auto *pause = window.findChild<QAction *>(QStringLiteral("actionPause"));
        auto *resume = window.findChild<QAction *>(QStringLiteral("actionResume"));
        auto *kill = window.findChild<QAction *>(QStringLiteral("actionKill"));
        select(find(shown, QStringLiteral("k1")));
        QCOMPARE(pause->text(), QStringLiteral("&Stop"));
        QVERIFY2(pause->toolTip().contains(QLatin1String("processes end")), qPrintable(pause->toolTip()));
        QCOMPARE(window.findChild<QAction *>(QStringLiteral("actionPauseIdle"))->text(), QStringLiteral("Stop i&dle…"));
        QVERIFY(pause->isEnabled());
        select(find(shown, QStringLiteral("a"))); // k1 and k2
        pause->trigger();
        ConfirmDialog *box = confirmation(confirm);
        QVERIFY(box);
        QCOMPARE(box->text(),
                 QStringLiteral("Stop 2 workspace(s)? Their processes end; their files are kept, and "
                                "Resume starts them again on the same files."));
        QCOMPARE(box->confirmButton()->text(), QStringLiteral("&Stop"));
        QVERIFY(box->warningText().isEmpty()); // a stop deletes nothing
        box->confirmButton()->click();
        QTRY_COMPARE(stateOf("k1"), QStringLiteral("Stopped"));
        QTRY_COMPARE(stateOf("k2"), QStringLiteral("Stopped"));
        QVERIFY(backend.calls.contains(QStringLiteral("pause as-ws-k1")));
        QTRY_COMPARE(shown->index(1, WorkspaceTreeModel::StateColumn).data().toString(), QStringLiteral("2 Stopped"));

        // Resume on a stopped workspace works as on a paused one.
        select(find(shown, QStringLiteral("k3")));
        QTRY_VERIFY(resume->isEnabled());
        QVERIFY(!pause->isEnabled());
        resume->trigger();
        QTRY_COMPARE(stateOf("k3"), QStringLiteral("Running"));
        QVERIFY(backend.calls.contains(QStringLiteral("resume as-ws-k3")));

        // Kill of one: what it deletes, in full, under the text.
        select(find(shown, QStringLiteral("k1")));
        QTRY_VERIFY(kill->isEnabled());
        kill->trigger();
        box = confirmation(confirm);
        QVERIFY(box);
        QCOMPARE(box->warningText(),
                 QStringLiteral("Deletes Pod as-ws-k1 and PVC as-ws-k1, with the workspace's files"));
        QVERIFY(box->findChild<QLabel *>(QStringLiteral("confirmWarning"))->isVisible());
        QCOMPARE(box->list()->columnCount(), 5); // Workspace, Sandbox ID, User, Agent, State
        box->cancelButton()->click();

        // Kill of several: each row says what it deletes.
        select(find(shown, QStringLiteral("a")));
        QTRY_VERIFY(kill->isEnabled());
        kill->trigger();
        box = confirmation(confirm);
        QVERIFY(box);
        QVERIFY(box->warningText().isEmpty());
        QVERIFY(!box->findChild<QLabel *>(QStringLiteral("confirmWarning"))->isVisible());
        QCOMPARE(box->list()->columnCount(), 6);
        QCOMPARE(box->list()->headerItem()->text(5), QStringLiteral("Warning"));
        const QString listed = box->listText();
        QVERIFY2(listed.contains(QLatin1String("k1\tas-ws-k1\tu\ta\tStopped\tDeletes Pod as-ws-k1 and PVC as-ws-k1")),
                 qPrintable(listed));
        QVERIFY2(listed.contains(QLatin1String("Deletes Pod as-ws-k2 and PVC as-ws-k2")), qPrintable(listed));
        box->cancelButton()->click();
        QTRY_VERIFY(!confirm);
        QVERIFY(!backend.calls.join(u' ').contains(QLatin1String("kill")));
    }

    void aDialogGoneBeforeItsAnswerEndsTheWait()
    {
        // A window that closes takes its dialogs along: whoever waits for the answer is told
        // Rejected, not left waiting for good.
        std::optional<int> answer;
        QObject context;
        auto *dialog = new QDialog;
        dialog->open();
        QCoro::connect(untilFinished(dialog), &context, [&answer](int result) { answer = result; });
        QVERIFY(!answer);
        dialog->setResult(QDialog::Accepted);
        delete dialog;
        QTRY_VERIFY(answer.has_value());
        QCOMPARE(*answer, int(QDialog::Rejected));

        // Answered: its result.
        answer.reset();
        QDialog answered;
        answered.open();
        QCoro::connect(untilFinished(&answered), &context, [&answer](int result) { answer = result; });
        answered.done(7);
        QVERIFY(!answer); // from the event loop, not inside done()
        QTRY_VERIFY(answer.has_value());
        QCOMPARE(*answer, 7);
        // Already gone: at once.
        answer.reset();
        QCoro::connect(untilFinished(nullptr), &context, [&answer](int result) { answer = result; });
        QTRY_VERIFY(answer.has_value());
        QCOMPARE(*answer, int(QDialog::Rejected));
    }

    void watchReportsReachTheTreeWithoutARefresh()
    {
        auto owned = std::make_unique<PaddockTest::ScriptedBackend>();
        owned->reportedCapabilities = Capability::Watch;
        owned->sandboxes = {sandboxOf(QStringLiteral("ws-a"), QStringLiteral("u"), QStringLiteral("x")),
                            sandboxOf(QStringLiteral("ws-b"), QStringLiteral("u"), QStringLiteral("x"))};
        PaddockTest::TestSession watched(std::move(owned), PaddockTest::testProfile(QStringLiteral("cluster")));
        PaddockTest::ScriptedBackend &backend = watched.backend;
        MainWindow window(watched.get());
        window.setRefreshInterval(0s); // only the first listing: what follows comes from the watch
        QVERIFY(!backend.watching); // nobody sees it yet
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTRY_COMPARE(window.model()->workspaceCount(), 2);
        QVERIFY(backend.watching);
        QVERIFY(window.liveUpdates()->isLive());
        const int lists = backend.lists;
        auto *view = window.findChild<QTreeView *>(QStringLiteral("workspaceView"));
        QAbstractItemModel *shown = view->model();
        view->selectionModel()->select(find(shown, QStringLiteral("ws-b")),
                                       QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        const QString a = QStringLiteral("cluster\x1fsbx-ws-a");
        const QString b = QStringLiteral("cluster\x1fsbx-ws-b");
        const QString c = QStringLiteral("cluster\x1fsbx-ws-c");

        // A new sandbox, in a group of its own.
        backend.report(sandboxOf(QStringLiteral("ws-c"), QStringLiteral("v"), QStringLiteral("y")));
        QTRY_VERIFY(window.model()->indexOfKey(c).isValid());
        QVERIFY(find(shown, QStringLiteral("v")).isValid());
        QVERIFY(view->isExpanded(find(shown, QStringLiteral("y"))));
        // A changed state, shown in place: the selection stays, and the actions follow it.
        auto *pause = window.findChild<QAction *>(QStringLiteral("actionPause"));
        auto *resume = window.findChild<QAction *>(QStringLiteral("actionResume"));
        QVERIFY(pause->isEnabled());
        backend.report(
            sandboxOf(QStringLiteral("ws-b"), QStringLiteral("u"), QStringLiteral("x"), SandboxState::Paused));
        QTRY_COMPARE(window.model()->indexOfKey(b, WorkspaceTreeModel::StateColumn).data().toString(),
                     QStringLiteral("Paused"));
        QVERIFY(view->selectionModel()->isSelected(find(shown, QStringLiteral("ws-b"))));
        QTRY_VERIFY(resume->isEnabled());
        QVERIFY(!pause->isEnabled());
        // Gone.
        backend.reportRemoved(QStringLiteral("sbx-ws-a"));
        QTRY_VERIFY(!window.model()->indexOfKey(a).isValid());
        QCOMPARE(window.model()->workspaceCount(), 2);
        QVERIFY(view->selectionModel()->isSelected(find(shown, QStringLiteral("ws-b"))));
        QCOMPARE(backend.lists, lists); // no listing did any of it

        // A burst in one turn of the event loop is one pass.
        QSignalSpy passes(window.liveUpdates(), &LiveUpdates::applied);
        for (int i = 0; i < 50; ++i)
            backend.report(sandboxOf(QStringLiteral("burst-%1").arg(i), QStringLiteral("w"), QStringLiteral("z")));
        QTRY_COMPARE(window.model()->workspaceCount(), 52);
        QCOMPARE(passes.size(), 1);
        QCOMPARE(passes.at(0).at(0).value<qsizetype>(), qsizetype(50));

        // Hidden, nothing is watched; shown again, it is.
        window.hide();
        QVERIFY(!backend.watching);
        window.show();
        QVERIFY(backend.watching);
        // Another profile (none): the old one is no longer watched.
        window.setSession(nullptr, QStringLiteral("other"));
        QVERIFY(!backend.watching);
    }

    void aWatchThatFailsLeavesSettlingRowsToTheListing()
    {
        // Watched, but its watch fails (refused, say): what is between two states is still
        // listed again every second until it settles, as without a watch.
        auto owned = std::make_unique<PaddockTest::ScriptedBackend>();
        owned->reportedCapabilities = Capability::Watch;
        owned->watchUp = false;
        owned->sandboxes = {
            sandboxOf(QStringLiteral("ws-a"), QStringLiteral("u"), QStringLiteral("x"), SandboxState::Pausing)};
        PaddockTest::TestSession watched(std::move(owned), PaddockTest::testProfile(QStringLiteral("cluster")));
        MainWindow window(watched.get());
        window.setRefreshInterval(0s);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTRY_COMPARE(window.model()->workspaceCount(), 1);
        QVERIFY(watched.backend.watching);
        QVERIFY(!window.liveUpdates()->isLive());
        // A listing while it is seen (the first may have come before it was shown), then one
        // more a second later, by itself.
        const int lists = watched.backend.lists;
        window.findChild<QAction *>(QStringLiteral("actionRefresh"))->trigger();
        QTRY_VERIFY(watched.backend.lists > lists + 1);
        // Once the watch is up, changes are its to report.
        watched.backend.watchUp = true;
        QVERIFY(window.liveUpdates()->isLive());
    }

    void aListingOlderThanTheWatchDoesNotUndoIt()
    {
        // The refresh's listing may have been read before a change the watch reported while it
        // ran: the change is applied again after it.
        auto owned = std::make_unique<PaddockTest::ScriptedBackend>();
        owned->reportedCapabilities = Capability::Watch;
        PaddockTest::TestSession watched(std::move(owned), PaddockTest::testProfile(QStringLiteral("cluster")));
        WorkspaceTreeModel model;
        LiveUpdates live(&model);
        live.setCoalesceInterval(0ms);
        live.setSession(watched.get());
        live.setActive(true);
        QVERIFY(watched.backend.watching);
        const SandboxInfo before = sandboxOf(QStringLiteral("ws-a"), QStringLiteral("u"), QStringLiteral("x"));
        model.update(QStringLiteral("cluster"), {before}, {});
        const QString a = QStringLiteral("cluster\x1fsbx-ws-a");

        live.listingStarted();
        watched.backend.report(
            sandboxOf(QStringLiteral("ws-a"), QStringLiteral("u"), QStringLiteral("x"), SandboxState::Paused));
        QTRY_COMPARE(model.record(model.indexOfKey(a))->info.state, SandboxState::Paused);
        model.update(QStringLiteral("cluster"), {before}, {}); // read before the pause
        QCOMPARE(model.record(model.indexOfKey(a))->info.state, SandboxState::Running);
        live.listingDone();
        QTRY_COMPARE(model.record(model.indexOfKey(a))->info.state, SandboxState::Paused);

        // Inactive: not watched.
        live.setActive(false);
        QVERIFY(!watched.backend.watching);
    }

    void refreshIntervalFreshnessAndVisibility()
    {
        QTemporaryDir dir;
        PaddockTest::TestSession local(std::make_unique<LocalBackend>(LocalOptions{dir.path(), false}));
        MainWindow window(local.get());
        QCOMPARE(window.refreshInterval(), std::chrono::seconds(15)); // the default
        QVERIFY(!window.isRefreshTimerActive()); // not shown yet
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.isRefreshTimerActive());
        QTRY_VERIFY(window.freshnessText().startsWith(QLatin1String("updated")));
        QVERIFY(!window.isStale());

        auto *box = window.findChild<QComboBox *>(QStringLiteral("refreshIntervalBox"));
        QCOMPARE(box->count(), 5);
        box->setCurrentIndex(box->findData(0)); // Off
        QCOMPARE(window.refreshInterval(), std::chrono::seconds(0));
        QVERIFY(!window.isRefreshTimerActive());
        box->setCurrentIndex(box->findData(5));
        QVERIFY(window.isRefreshTimerActive());

        window.hide(); // nothing polls a hidden window
        QVERIFY(!window.isRefreshTimerActive());
        window.show();
        QVERIFY(window.isRefreshTimerActive());
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
