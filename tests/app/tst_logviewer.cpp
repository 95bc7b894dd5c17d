// The log viewer over real files, offscreen: search (plain, regex, case, a bad pattern) with
// next/previous, the context filter (also as the log grows), follow (stops when scrolled up,
// resumes at the bottom) fed by a real BootstrapLogStore, copy, export of the whole file (also
// after it was deleted), stderr set apart, and bad input (invalid UTF-8, NUL bytes, a 10 MB line,
// a file deleted while open) shown with a note.

#include "bootstraplog.h"
#include "elidedlabel.h"
#include "i18n.h"
#include "logmodel.h"
#include "logviewer.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFile>
#include <QLayout>
#include <QLineEdit>
#include <QMainWindow>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace Paddock;

namespace {

QByteArray logLine(int i, LogLine::Kind kind, const QByteArray &text)
{
    LogLine line;
    line.time = QDateTime(QDate(2026, 11, 30), QTime(10, 0).addSecs(i), Qt::UTC);
    line.kind = kind;
    line.text = text;
    return line.serialize() + '\n';
}

// Line i (from 0) says "line <i>"; every tenth is on stderr and says "error <i>".
QByteArray numberedLog(int count)
{
    QByteArray bytes;
    for (int i = 0; i < count; ++i) {
        bytes += i % 10 == 0 ? logLine(i, LogLine::Kind::Stderr, "error " + QByteArray::number(i))
                             : logLine(i, LogLine::Kind::Stdout, "line " + QByteArray::number(i));
    }
    return bytes;
}

bool writeFile(const QString &path, const QByteArray &bytes, QIODevice::OpenMode mode = QIODevice::WriteOnly)
{
    QFile file(path);
    return file.open(mode) && file.write(bytes) == bytes.size();
}

bool lastRowVisible(const LogViewer &viewer)
{
    QTableView *view = viewer.view();
    const int last = view->model()->rowCount() - 1;
    const QRect rect = view->visualRect(view->model()->index(last, LogModel::TextColumn));
    return rect.isValid() && rect.bottom() <= view->viewport()->height() + 1 && rect.top() >= 0;
}

// Whether the search's highlight shows in the row of `line`, on screen.
bool highlightShown(LogViewer &viewer, qsizetype line)
{
    QTableView *view = viewer.view();
    const int row = viewer.model()->rowFor(line);
    const QRect rect =
        view->visualRect(viewer.model()->index(row, LogModel::TextColumn)).intersected(view->viewport()->rect());
    if (row < 0 || rect.isEmpty())
        return false;
    const QImage image = view->viewport()->grab().toImage();
    const QRgb highlight = QColor(0xf6, 0xd3, 0x2d).rgb();
    for (int y = rect.top(); y <= rect.bottom(); ++y) {
        for (int x = rect.left(); x <= rect.right(); ++x) {
            if (image.pixel(x, y) == highlight)
                return true;
        }
    }
    return false;
}

} // namespace

class TestLogViewer : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); }

    void modelIsConsistent()
    {
        const QString path = m_dir.filePath(QStringLiteral("model.log"));
        QVERIFY(writeFile(path, numberedLog(500)));
        LogModel model(path);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.refresh();
        QTRY_COMPARE(model.rowCount(), 500);
        QCOMPARE(model.data(model.index(1, LogModel::TextColumn)).toString(), QStringLiteral("line 1"));
        QCOMPARE(model.data(model.index(1, LogModel::LineColumn)).toString(), QLocale().toString(2));
        // stderr is set apart: its own kind, colour and background.
        const QModelIndex error = model.index(10, LogModel::TextColumn);
        QCOMPARE(error.data(LogModel::KindRole).toInt(), int(LogLine::Kind::Stderr));
        QVERIFY(error.data(Qt::ForegroundRole).isValid());
        QVERIFY(error.data(Qt::BackgroundRole).isValid());
        QVERIFY(!model.index(11, LogModel::TextColumn).data(Qt::ForegroundRole).isValid());
        QVERIFY(error.data(Qt::ToolTipRole).toString().contains(LogModel::tr("standard error")));
        // The filter and the search under the tester as well.
        const auto matcher = LogMatcher::make(QStringLiteral("error"), false, false);
        QVERIFY(matcher.has_value());
        model.setFilter(true, 1);
        model.setMatcher(*matcher);
        QTRY_VERIFY(!model.isSearching() && model.matches().size() == 50);
        QCOMPARE(model.rowCount(), 50 * 3 - 1); // line 0 has nothing before it
        QVERIFY(writeFile(path, logLine(500, LogLine::Kind::Stdout, "after"), QIODevice::Append));
        model.refresh();
        QTRY_COMPARE(model.lineCount(), 501);
        QCOMPARE(model.rowCount(), 50 * 3 - 1); // line 500 is no match's context
        model.setFilter(false, 1);
        QCOMPARE(model.rowCount(), 501);
    }

    void searchHighlightsAndSteps()
    {
        const QString path = m_dir.filePath(QStringLiteral("search.log"));
        QVERIFY(writeFile(path, numberedLog(1000) + logLine(1000, LogLine::Kind::Stdout, "Error in CAPS")));
        LogViewer viewer(path);
        viewer.resize(900, 400);
        viewer.show();
        QTRY_COMPARE(viewer.model()->lineCount(), 1001);

        viewer.setSearch(QStringLiteral("error"));
        QTRY_VERIFY(!viewer.model()->isSearching());
        QCOMPARE(viewer.model()->matches().size(), size_t(101)); // case-insensitive: "Error in CAPS" too
        QCOMPARE(viewer.model()->matches().front(), 0);
        QCOMPARE(viewer.model()->matches().back(), 1000);
        QVERIFY(viewer.model()->index(10, 0).data(LogModel::MatchesRole).toBool());
        QVERIFY(!viewer.model()->index(11, 0).data(LogModel::MatchesRole).toBool());

        viewer.setSearch(QStringLiteral("error"), false, true);
        QTRY_VERIFY(!viewer.model()->isSearching());
        QCOMPARE(viewer.model()->matches().size(), size_t(100));

        // Regular expressions: lines 100..199 on stderr end in a number 1x0.
        viewer.setSearch(QStringLiteral("^error 1\\d0$"), true);
        QTRY_VERIFY(!viewer.model()->isSearching());
        QCOMPARE(viewer.model()->matches(), (std::vector<qsizetype>{100, 110, 120, 130, 140, 150, 160, 170, 180, 190}));

        // Next and previous, wrapping at both ends; the status says which match this is.
        viewer.view()->setCurrentIndex(viewer.model()->index(0, 0));
        viewer.findNext();
        QCOMPARE(viewer.currentLine(), 100);
        QVERIFY(!viewer.isFollowing());
        QVERIFY(viewer.matchText().contains(QLocale().toString(10)));
        viewer.findNext();
        QCOMPARE(viewer.currentLine(), 110);
        viewer.findPrevious();
        viewer.findPrevious();
        QCOMPARE(viewer.currentLine(), 190);
        viewer.findNext();
        QCOMPARE(viewer.currentLine(), 100);
        // F3 in the viewer steps too.
        QTest::keyClick(viewer.view(), Qt::Key_F3);
        QCOMPARE(viewer.currentLine(), 110);

        // A bad pattern is reported and keeps the last good search.
        viewer.setSearch(QStringLiteral("error ("), true);
        QVERIFY(!viewer.searchError().isEmpty());
        QVERIFY2(viewer.searchError().contains(QLatin1String("8")),
                 qPrintable(viewer.searchError())); // after the 7 characters
        QCOMPARE(viewer.model()->matches().size(), size_t(10));

        // Typing searches after a pause; nothing found says so.
        viewer.searchField()->clear();
        viewer.setSearch(QString());
        QTest::keyClicks(viewer.searchField(), QStringLiteral("no such text"));
        QTRY_COMPARE(viewer.model()->matcher().pattern(), QStringLiteral("no such text"));
        QTRY_VERIFY(!viewer.model()->isSearching());
        QVERIFY(viewer.model()->matches().empty());
        QCOMPARE(viewer.matchText(), LogViewer::tr("No matches"));
    }

    void jumpsKeepTheMatchInView()
    {
        // Short lines, and 200 KB lines with the match 3,000 characters in (within what is shown).
        const QString path = m_dir.filePath(QStringLiteral("wide.log"));
        const QByteArray wide = QByteArray(3000, 'x') + "needle" + QByteArray(200 * 1024, 'y');
        QByteArray bytes;
        for (int i = 0; i < 200; ++i) {
            QByteArray text = (i == 30 || i == 150 ? "needle " : "line ") + QByteArray::number(i);
            if (i == 100 || i == 120)
                text = wide;
            bytes += logLine(i, LogLine::Kind::Stdout, text);
        }
        QVERIFY(writeFile(path, bytes));
        LogViewer viewer(path);
        viewer.resize(800, 300);
        viewer.show();
        QVERIFY(QTest::qWaitForWindowExposed(&viewer));
        QTRY_COMPARE(viewer.model()->lineCount(), 200);
        QTableView *view = viewer.view();
        QTRY_VERIFY(view->columnWidth(LogModel::TextColumn) > 20 * view->viewport()->width());
        QScrollBar *bar = view->horizontalScrollBar();
        viewer.setSearch(QStringLiteral("needle"));
        QTRY_VERIFY(!viewer.model()->isSearching());
        QCOMPARE(viewer.model()->matches(), (std::vector<qsizetype>{30, 100, 120, 150}));
        view->setCurrentIndex(viewer.model()->index(0, LogModel::TextColumn));

        // A short line's match: the view stays at the start of the lines, not in the empty middle.
        viewer.findNext();
        QCOMPARE(viewer.currentLine(), 30);
        QCOMPARE(bar->value(), 0);
        QVERIFY(highlightShown(viewer, 30));

        // A match far to the right is brought into view.
        viewer.findNext();
        QCOMPARE(viewer.currentLine(), 100);
        QVERIFY(bar->value() > 0);
        QVERIFY(highlightShown(viewer, 100));

        // The next one is in view where the view is: it stays there.
        const int kept = bar->value();
        viewer.findNext();
        QCOMPARE(viewer.currentLine(), 120);
        QCOMPARE(bar->value(), kept);
        QVERIFY(highlightShown(viewer, 120));

        // Back to a short line: its match is at the start, so the view goes back there.
        viewer.findNext();
        QCOMPARE(viewer.currentLine(), 150);
        QVERIFY(highlightShown(viewer, 150));

        // Clicking another line keeps the view where the user scrolled it.
        bar->setValue(5000);
        const QModelIndex other = viewer.model()->index(viewer.model()->rowFor(149), LogModel::TextColumn);
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(other).center());
        QCOMPARE(viewer.currentLine(), 149);
        QCOMPARE(bar->value(), 5000);

        // Follow goes to the newest lines from their start.
        QVERIFY(!viewer.isFollowing());
        QAction *follow = nullptr;
        for (QAction *action : viewer.actions()) {
            if (action->text() == LogViewer::tr("Fo&llow"))
                follow = action;
        }
        QVERIFY(follow);
        follow->trigger();
        QVERIFY(viewer.isFollowing());
        QCOMPARE(bar->value(), 0);
        QTRY_VERIFY(lastRowVisible(viewer));
    }

    void newSearchGoesToItsFirstMatchOnce()
    {
        const QString path = m_dir.filePath(QStringLiteral("first.log"));
        QVERIFY(writeFile(path, numberedLog(1000)));
        LogViewer viewer(path);
        viewer.resize(800, 300);
        viewer.show();
        QVERIFY(QTest::qWaitForWindowExposed(&viewer));
        QTRY_COMPARE(viewer.model()->lineCount(), 1000);
        QTableView *view = viewer.view();
        view->setCurrentIndex(viewer.model()->index(505, LogModel::TextColumn));

        // Typed: the first match at or after the current line.
        QTest::keyClicks(viewer.searchField(), QStringLiteral("error"));
        QTRY_COMPARE(viewer.currentLine(), 510);
        QVERIFY(!viewer.isFollowing());
        QVERIFY(viewer.matchText().contains(QLocale().toString(52)));

        // Once: more matches as the log grows do not move the view again.
        view->setCurrentIndex(viewer.model()->index(3, LogModel::TextColumn));
        QByteArray more;
        for (int i = 1000; i < 1100; ++i)
            more += logLine(i, LogLine::Kind::Stderr, "error " + QByteArray::number(i));
        QVERIFY(writeFile(path, more, QIODevice::Append));
        viewer.refresh();
        QTRY_COMPARE(viewer.model()->matches().size(), size_t(200));
        QTRY_VERIFY(!viewer.model()->isSearching());
        QCOMPARE(viewer.currentLine(), 3);

        // Nothing matches after the current line: the first match.
        view->setCurrentIndex(viewer.model()->index(1095, LogModel::TextColumn));
        viewer.searchField()->selectAll();
        QTest::keyClicks(viewer.searchField(), QStringLiteral("error 2"));
        QTRY_COMPARE(viewer.currentLine(), 20);

        // The same search again is no new search: the view stays.
        view->setCurrentIndex(viewer.model()->index(7, LogModel::TextColumn));
        viewer.setSearch(QStringLiteral("error 2"));
        QCOMPARE(viewer.currentLine(), 7);
    }

    void longStatusDoesNotWidenTheWindow()
    {
        const QString path = m_dir.filePath(QStringLiteral("status.log"));
        QVERIFY(writeFile(path, numberedLog(10)));
        QMainWindow window;
        auto *viewer = new LogViewer(path);
        window.setCentralWidget(viewer);
        window.resize(900, 500);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTRY_COMPARE(viewer->model()->lineCount(), 10);
        window.layout()->activate();
        const QSize minimum = window.minimumSizeHint();
        QVERIFY(minimum.width() < 900);

        QString message = QStringLiteral("The server answered:");
        for (int i = 0; i < 60; ++i)
            message += QStringLiteral(" connection refused (attempt %1);").arg(i);
        viewer->setSourceState(message);
        // What the posted layout requests do, now: the viewer's layout, then the window's.
        viewer->layout()->activate();
        window.layout()->activate();
        QCOMPARE(window.width(), 900);
        QCOMPARE(window.minimumSizeHint(), minimum);
        auto *status = viewer->findChild<ElidedLabel *>(QStringLiteral("status"));
        QVERIFY(status);
        QVERIFY(status->isElided());
        QVERIFY(status->geometry().right() < viewer->width());
        // The whole text is in its tooltip and accessible description.
        QVERIFY(viewer->statusText().contains(message));
        QCOMPARE(status->toolTip(), viewer->statusText());
        QCOMPARE(status->accessibleDescription(), viewer->statusText());
    }

    void footerFollowsTheLanguage()
    {
        const QString path = m_dir.filePath(QStringLiteral("language.log"));
        QVERIFY(writeFile(path, numberedLog(3)));
        LogViewer viewer(path);
        viewer.show();
        QTRY_COMPARE(viewer.model()->lineCount(), 3);
        // As the log dock says it for a container log (in its own words).
        viewer.setSourceStateFrom(
            [] { return QCoreApplication::translate("LogDock", "Polling the server for new lines."); });
        const QString target = m_dir.filePath(QStringLiteral("language-export.log"));
        QVERIFY(QCoro::waitFor(viewer.exportTo(target)).has_value());
        QVERIFY(viewer.statusText().contains(QLatin1String("Polling the server")));
        QVERIFY(viewer.statusText().contains(QLatin1String("bytes")));

        const auto english =
            qScopeGuard([] { Paddock::useLanguage(QLocale(QLocale::English, QLocale::UnitedStates)); });
        QCOMPARE(Paddock::useLanguage(QLocale(QStringLiteral("zh_CN"))), QStringLiteral("zh_CN"));
        QTRY_VERIFY(
            viewer.statusText().contains(QStringLiteral("正在定期从服务器获取新的行。"))); // LanguageChange is posted
        QString text = viewer.statusText();
        QVERIFY(text.contains(QLocale().formattedDataSize(viewer.model()->byteCount())));
        text.remove(QDir::toNativeSeparators(target));
        static const QRegularExpression latin(QStringLiteral("[A-Za-z]"));
        QVERIFY2(!text.contains(latin), qPrintable(text));
        QCOMPARE(viewer.model()->index(2, LogModel::LineColumn).data().toString(), QLocale().toString(3));
    }

    void contextFilter()
    {
        const QString path = m_dir.filePath(QStringLiteral("filter.log"));
        QByteArray bytes;
        for (int i = 0; i < 100; ++i)
            bytes += logLine(i, LogLine::Kind::Stdout, i == 10 || i == 50 || i == 53 ? "MATCH" : "plain");
        QVERIFY(writeFile(path, bytes));
        LogViewer viewer(path);
        viewer.show();
        QTRY_COMPARE(viewer.model()->lineCount(), 100);
        viewer.setSearch(QStringLiteral("match"));
        viewer.setFilter(true, 2);
        QTRY_VERIFY(!viewer.model()->isSearching());
        QList<qsizetype> shown;
        for (int row = 0; row < viewer.model()->rowCount(); ++row)
            shown << viewer.model()->lineAt(row);
        QCOMPARE(shown, (QList<qsizetype>{8, 9, 10, 11, 12, 48, 49, 50, 51, 52, 53, 54, 55}));
        // A rule marks where lines were left out.
        QVERIFY(!viewer.model()->index(0, 0).data(LogModel::GapBeforeRole).toBool());
        QVERIFY(viewer.model()->index(5, 0).data(LogModel::GapBeforeRole).toBool());
        QVERIFY(!viewer.model()->index(6, 0).data(LogModel::GapBeforeRole).toBool());

        // No context: the matching lines alone. Next/previous still steps through them.
        viewer.setFilter(true, 0);
        QCOMPARE(viewer.model()->rowCount(), 3);
        viewer.view()->setCurrentIndex(viewer.model()->index(0, 0));
        viewer.findNext();
        QCOMPARE(viewer.currentLine(), 50);

        // The filter follows the log: a new match at the end comes with its context after it, as
        // that context arrives.
        viewer.setFilter(true, 1);
        QVERIFY(writeFile(path,
                          logLine(100, LogLine::Kind::Stdout, "plain") + logLine(101, LogLine::Kind::Stdout, "MATCH"),
                          QIODevice::Append));
        viewer.refresh();
        QTRY_COMPARE(viewer.model()->lineAt(viewer.model()->rowCount() - 1), 101);
        QCOMPARE(viewer.model()->lineAt(viewer.model()->rowCount() - 2), 100);
        QVERIFY(writeFile(path,
                          logLine(102, LogLine::Kind::Stdout, "plain") + logLine(103, LogLine::Kind::Stdout, "plain"),
                          QIODevice::Append));
        viewer.refresh();
        QTRY_COMPARE(viewer.model()->lineAt(viewer.model()->rowCount() - 1), 102);

        // Off again: every line, and the current line is kept.
        viewer.view()->setCurrentIndex(viewer.model()->index(viewer.model()->rowFor(50), 0));
        viewer.setFilter(false);
        QCOMPARE(viewer.model()->rowCount(), 104);
        QCOMPARE(viewer.currentLine(), 50);
    }

    void followsLiveLinesUntilScrolledUp()
    {
        BootstrapLogStore store(m_dir.filePath(QStringLiteral("store")));
        QVERIFY(store.open(QStringLiteral("local"), QStringLiteral("ws")).has_value());
        for (int i = 0; i < 2000; ++i)
            QVERIFY(store
                        .append(QStringLiteral("local"), QStringLiteral("ws"), LogLine::Kind::Stdout,
                                "early " + QByteArray::number(i))
                        .has_value());
        LogViewer viewer(store.path(QStringLiteral("local"), QStringLiteral("ws")));
        connect(&store, &BootstrapLogStore::lineAppended, &viewer, &LogViewer::refresh);
        viewer.resize(800, 300);
        viewer.show();
        QVERIFY(QTest::qWaitForWindowExposed(&viewer));
        QTRY_COMPARE(viewer.model()->lineCount(), 2000);
        QVERIFY(viewer.isFollowing());
        QTRY_VERIFY(lastRowVisible(viewer));

        // New lines arrive and the view keeps the newest in sight.
        for (int i = 0; i < 50; ++i)
            QVERIFY(
                store.append(QStringLiteral("local"), QStringLiteral("ws"), LogLine::Kind::Stderr, "live").has_value());
        QTRY_COMPARE(viewer.model()->lineCount(), 2050);
        QTRY_VERIFY(lastRowVisible(viewer));

        // Scrolling up stops following: new lines do not move the view.
        QScrollBar *bar = viewer.view()->verticalScrollBar();
        bar->triggerAction(QAbstractSlider::SliderPageStepSub);
        QVERIFY(!viewer.isFollowing());
        const int kept = bar->value();
        for (int i = 0; i < 50; ++i)
            QVERIFY(
                store.append(QStringLiteral("local"), QStringLiteral("ws"), LogLine::Kind::Stdout, "more").has_value());
        QTRY_COMPARE(viewer.model()->lineCount(), 2100);
        QCOMPARE(bar->value(), kept);
        QVERIFY(!lastRowVisible(viewer));

        // Back at the bottom, it follows again.
        bar->triggerAction(QAbstractSlider::SliderToMaximum);
        QVERIFY(viewer.isFollowing());
        QVERIFY(store.append(QStringLiteral("local"), QStringLiteral("ws"), LogLine::Kind::Stdout, "last").has_value());
        QTRY_COMPARE(viewer.model()->lineCount(), 2101);
        QTRY_VERIFY(lastRowVisible(viewer));
        QCOMPARE(viewer.model()->index(2100, LogModel::TextColumn).data().toString(), QStringLiteral("last"));
    }

    void copiesWhatIsShown()
    {
        const QString path = m_dir.filePath(QStringLiteral("copy.log"));
        QVERIFY(writeFile(path, numberedLog(20)));
        LogViewer viewer(path);
        viewer.show();
        QTRY_COMPARE(viewer.model()->lineCount(), 20);
        QTableView *view = viewer.view();
        view->selectionModel()->select(QItemSelection(viewer.model()->index(9, 0), viewer.model()->index(11, 2)),
                                       QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        const QString time = viewer.model()->timeText(QDateTime(QDate(2026, 11, 30), QTime(10, 0, 9), Qt::UTC));
        QStringList lines = viewer.selectedText().split(u'\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 3);
        QCOMPARE(lines.at(0), QStringLiteral("10 ") + time + QStringLiteral(" line 9"));
        QCOMPARE(lines.at(1).section(u' ', 3), QStringLiteral("[stderr] error 10"));
        viewer.setLineNumbersVisible(false);
        viewer.setTimestampsVisible(false);
        QVERIFY(view->isColumnHidden(LogModel::LineColumn));
        QVERIFY(view->isColumnHidden(LogModel::TimeColumn));
        viewer.copySelection();
        QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("line 9\n[stderr] error 10\nline 11\n"));
        viewer.setTimestampsVisible(true);
        QVERIFY(!view->isColumnHidden(LogModel::TimeColumn));
    }

    void exportsTheWholeLog()
    {
        const QString path = m_dir.filePath(QStringLiteral("export.log"));
        const QByteArray bytes = numberedLog(5000) + QByteArray("no newline at the end \xff");
        QVERIFY(writeFile(path, bytes));
        LogViewer viewer(path);
        viewer.resize(600, 200); // far fewer lines on screen than in the file
        viewer.show();
        QTRY_COMPARE(viewer.model()->lineCount(), 5001);
        viewer.setSearch(QStringLiteral("error"));
        viewer.setFilter(true, 0); // what is shown is not what is exported

        const QString target = m_dir.filePath(QStringLiteral("out/exported.log"));
        QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("out"))));
        const Result<> done = QCoro::waitFor(viewer.exportTo(target));
        QVERIFY2(done.has_value(), qPrintable(done ? QString() : done.error().message));
        QFile exported(target);
        QVERIFY(exported.open(QIODevice::ReadOnly));
        QCOMPARE(exported.readAll(), bytes);
        QVERIFY(viewer.statusText().contains(QDir::toNativeSeparators(target)));

        // Deleted while open: still shown, still exported, and the user is told.
        QVERIFY(QFile::remove(path));
        viewer.refresh();
        QVERIFY(viewer.noteText().contains(QStringLiteral("deleted")));
        const QString again = m_dir.filePath(QStringLiteral("out/again.log"));
        QVERIFY(QCoro::waitFor(viewer.exportTo(again)).has_value());
        QFile exportedAgain(again);
        QVERIFY(exportedAgain.open(QIODevice::ReadOnly));
        QCOMPARE(exportedAgain.readAll(), bytes);

        // A place that cannot be written: an error, and no file left behind.
        const QString nowhere = m_dir.filePath(QStringLiteral("missing/dir/x.log"));
        const Result<> failed = QCoro::waitFor(viewer.exportTo(nowhere));
        QVERIFY(!failed.has_value());
        QVERIFY(failed.error().message.contains(QDir::toNativeSeparators(nowhere))
                || failed.error().message.contains(nowhere));
        QVERIFY(!QFile::exists(nowhere));
    }

    void badInputIsShownWithANote()
    {
        const QString path = m_dir.filePath(QStringLiteral("bad.log"));
        QByteArray bytes = logLine(0, LogLine::Kind::Stdout, "fine");
        bytes += logLine(1, LogLine::Kind::Stdout, QByteArray("bad \xc3\x28 utf-8"));
        bytes += logLine(2, LogLine::Kind::Stderr, QByteArray("nul\0byte", 8));
        bytes += "not our format at all\n";
        bytes += logLine(4, LogLine::Kind::Stdout, QByteArray(10 * 1024 * 1024, 'x'));
        bytes += logLine(5, LogLine::Kind::Stdout, "after the long one");
        QVERIFY(writeFile(path, bytes));
        LogViewer viewer(path);
        viewer.resize(800, 400);
        viewer.show();
        QVERIFY(QTest::qWaitForWindowExposed(&viewer));
        QTRY_COMPARE(viewer.model()->lineCount(), 6);
        LogModel *model = viewer.model();
        QCOMPARE(model->index(1, LogModel::TextColumn).data().toString(), QStringLiteral("bad \uFFFD( utf-8"));
        QCOMPARE(model->index(2, LogModel::TextColumn).data().toString(), QStringLiteral("nul^@byte"));
        QCOMPARE(model->index(3, LogModel::TextColumn).data().toString(), QStringLiteral("not our format at all"));
        QVERIFY(model->index(3, LogModel::TimeColumn).data().toString().isEmpty());
        const QString longText = model->index(4, LogModel::TextColumn).data().toString();
        QVERIFY(longText.size() < 5000);
        QVERIFY(longText.startsWith(QLatin1String("xxxx")));
        QVERIFY(model->index(4, LogModel::TextColumn).data(Qt::ToolTipRole).toString().contains(QLatin1String("10")));
        QCOMPARE(model->index(5, LogModel::TextColumn).data().toString(), QStringLiteral("after the long one"));
        // Each oddity gets a line in the note above the log.
        QTRY_VERIFY(viewer.noteText().contains(QStringLiteral("UTF-8")));
        QVERIFY(viewer.noteText().contains(QStringLiteral("NUL")));
        QVERIFY(viewer.noteText().contains(QLocale().formattedDataSize(LogModel::DisplayBytes)));
        // Copy gives the long line whole.
        viewer.setLineNumbersVisible(false);
        viewer.setTimestampsVisible(false);
        viewer.view()->setCurrentIndex(model->index(4, 0));
        QCOMPARE(viewer.selectedText().size(), 10 * 1024 * 1024 + 1);
        // Search reaches past it.
        viewer.setSearch(QStringLiteral("after"));
        QTRY_VERIFY(!model->isSearching());
        QCOMPARE(model->matches(), std::vector<qsizetype>{5});

        QVERIFY(QFile::remove(path));
        viewer.refresh();
        QVERIFY(viewer.noteText().contains(QStringLiteral("deleted")));
        QCOMPARE(model->index(5, LogModel::TextColumn).data().toString(), QStringLiteral("after the long one"));
    }

    void missingLogSaysSoAndAppearsLater()
    {
        const QString path = m_dir.filePath(QStringLiteral("later.log"));
        LogViewer viewer(path);
        viewer.show();
        QTRY_VERIFY(!viewer.noteText().isEmpty());
        QVERIFY(viewer.noteText().contains(path));
        QVERIFY(writeFile(path, logLine(0, LogLine::Kind::Status, "provisioning")));
        viewer.refresh();
        QTRY_COMPARE(viewer.model()->lineCount(), 1);
        QTRY_VERIFY(viewer.noteText().isEmpty());
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestLogViewer)
#include "tst_logviewer.moc"
