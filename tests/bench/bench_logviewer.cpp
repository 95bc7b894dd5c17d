// Prints the log viewer's figures over a generated log (100 MB by default, about a million lines
// of mixed stdout and stderr), in the console's real window (offscreen unless a display is set;
// issue targets in brackets). It never fails on time.
//   opening it until its last page is painted                   [<= 500 ms]
//   the longest GUI-thread stall while it is read                 [<= 50 ms]
//   the longest GUI-thread stall during a search (plain, regex, regex with a context filter)
//                                                                 [<= 50 ms]
//   paging through it (a page down and a paint)
//   resident memory above the idle console                        [< 100 MB]
// A stall is the longest gap between two beats of a 1 ms timer, less the 1 ms. The file is
// written just before it is opened, so it is in the page cache: a cold disk adds its read time.

#include "backends/local/localbackend.h"
#include "benchsupport.h"
#include "logmodel.h"
#include "logviewer.h"
#include "mainwindow.h"
#include "profilesession.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDeadlineTimer>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QScopeGuard>
#include <QScrollBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <algorithm>
#include <cstdio>

using namespace Paddock;
using namespace PaddockBench;

namespace {

// About `megabytes` of bootstrap log lines; returns how many lines.
qsizetype writeLog(const QString &path, qint64 megabytes)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return -1;
    const QDateTime start(QDate(2026, 11, 30), QTime(8, 0), Qt::UTC);
    QByteArray chunk;
    qsizetype lines = 0;
    qint64 written = 0;
    const qint64 total = megabytes * 1024 * 1024;
    while (written < total) {
        const QByteArray time = start.addMSecs(lines * 7).toString(Qt::ISODateWithMs).toLatin1();
        if (lines % 13 == 0) {
            chunk += time + " err error " + QByteArray::number(lines)
                + ": connection reset by peer while fetching https://example.invalid/pkg\n";
        } else {
            chunk += time + " out step " + QByteArray::number(lines) + " installing package libexample-"
                + QByteArray::number(lines % 977) + " (1.2.3) done\n";
        }
        ++lines;
        if (chunk.size() > 4 * 1024 * 1024) {
            file.write(chunk);
            written += chunk.size();
            chunk.clear();
        }
    }
    file.write(chunk);
    return lines;
}

bool lastRowPainted(LogViewer *viewer)
{
    QTableView *view = viewer->view();
    view->viewport()->repaint();
    const int last = view->model()->rowCount() - 1;
    const QRect rect = view->visualRect(view->model()->index(last, LogModel::TextColumn));
    return rect.isValid() && rect.top() >= 0 && rect.bottom() <= view->viewport()->height() + 1;
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    QCommandLineOption megabytesOption(QStringLiteral("megabytes"), QStringLiteral("Size of the log (default 100)."),
                                       QStringLiteral("n"), QStringLiteral("100"));
    parser.addOption(megabytesOption);
    parser.process(app);
    const qint64 megabytes = std::max<qint64>(1, parser.value(megabytesOption).toLongLong());

    QTemporaryDir dir;
    if (!dir.isValid())
        return 1;
    const QString path = dir.filePath(QStringLiteral("bench.log"));
    const qsizetype lines = writeLog(path, megabytes);
    if (lines <= 0) {
        std::fprintf(stderr, "cannot write %s\n", qPrintable(path));
        return 1;
    }

    // The idle console: the real window over an empty local backend.
    LocalOptions local;
    local.basedir = dir.filePath(QStringLiteral("workspaces"));
    ProfileSession session(Profile::local(), std::make_unique<LocalBackend>(local), ProvisionOptions{}, nullptr);
    MainWindow window(&session);
    const auto shutDown = qScopeGuard([&session] { QCoro::waitFor(session.shutdown()); });
    window.setRefreshInterval(std::chrono::seconds(0));
    window.resize(1400, 900);
    window.show();
    runUntil([] { return false; }, 500);
    const double idle = residentMiB();

    std::printf("log viewer, %lld MB log with %lld lines (%s)\n", qint64(megabytes), qint64(lines),
                qPrintable(QGuiApplication::platformName()));
    StallMeter meter;
    QElapsedTimer clock;

    // Open: the viewer reads the file in steps and follows to its end.
    meter.start();
    clock.start();
    auto *viewer = new LogViewer(path);
    window.logTabs()->addTab(viewer, QStringLiteral("bench"));
    window.logDock()->show();
    if (!runUntil([viewer, lines] { return viewer->model()->lineCount() == lines && !viewer->model()->isReading(); },
                  120'000)) {
        std::fprintf(stderr, "the log was not read\n");
        return 1;
    }
    QCoreApplication::processEvents();
    const bool painted = lastRowPainted(viewer);
    const double opened = double(clock.nsecsElapsed()) / 1e6;
    const double openStall = meter.stop();
    std::printf("  open until the last page is painted   %8.1f ms  [<= 500 ms]%s\n", opened,
                painted ? "" : "  (the last row was NOT in view)");
    std::printf("  longest GUI stall while reading       %8.2f ms  [<= 50 ms]\n", openStall);

    const auto search = [&](const char *label, const QString &pattern, bool regex, bool filter) {
        viewer->setFilter(filter, 3);
        meter.start();
        clock.restart();
        viewer->setSearch(pattern, regex);
        runUntil([viewer] { return !viewer->model()->isSearching(); }, 300'000);
        QCoreApplication::processEvents();
        viewer->view()->viewport()->repaint();
        const double took = double(clock.nsecsElapsed()) / 1e6;
        const double stall = meter.stop();
        std::printf("  search %-30s %8.2f ms stall  [<= 50 ms]  (%zu matches, %s rows, %.0f ms in all)\n", label, stall,
                    viewer->model()->matches().size(), qPrintable(QLocale::c().toString(viewer->model()->rowCount())),
                    took);
    };
    search("plain \"connection reset\"", QStringLiteral("connection reset"), false, false);
    search("regex \"libexample-9[0-9]7 \"", QStringLiteral("libexample-9[0-9]7 "), true, false);
    search("regex, filter with 3 lines", QStringLiteral("error \\d+7:"), true, true);
    viewer->setFilter(false, 3);

    // Paging through from the top: a page down and a paint each.
    QScrollBar *bar = viewer->view()->verticalScrollBar();
    bar->setValue(0);
    QCoreApplication::processEvents();
    double worstPage = 0;
    double allPages = 0;
    const int pages = 200;
    for (int i = 0; i < pages; ++i) {
        clock.restart();
        bar->triggerAction(QAbstractSlider::SliderPageStepAdd);
        viewer->view()->viewport()->repaint();
        const double took = double(clock.nsecsElapsed()) / 1e6;
        worstPage = std::max(worstPage, took);
        allPages += took;
    }
    // And a jump into the middle, where nothing was read yet.
    clock.restart();
    bar->setValue(bar->maximum() / 2);
    viewer->view()->viewport()->repaint();
    const double jump = double(clock.nsecsElapsed()) / 1e6;
    std::printf("  page down and paint                   %8.2f ms mean, %.2f ms worst (%d pages); a jump to the middle "
                "%.2f ms\n",
                allPages / pages, worstPage, pages, jump);

    const double after = residentMiB();
    std::printf(
        "  resident memory: idle console %.0f MiB, with the log open and searched %.0f MiB: %+.0f MiB  [< 100 MB]\n",
        idle, after, after - idle);
    return painted ? 0 : 1;
}
