// paddock-bench-inspector: the workspace inspector dock in a real (offscreen) window. Prints how
// long a workspace's overview takes to show after it is selected (what the row knows, then the
// server's details and the files' top level) over paddock-fake-opensandbox and
// paddock-fake-kubernetes; the sessions list of a workspace with --sessions session folders; and
// a --megabytes context.jsonl: its first page, the longest GUI-thread stall while it is read
// (the longest gap between beats of a 1 ms timer), the whole read, and resident memory above the
// idle console. Benchmarks print figures; they never fail on time.

#include "backends/local/localbackend.h"
#include "backends/opensandbox/opensandboxbackend.h"
#include "benchsupport.h"
#include "bootstraplog.h"
#include "fakekubernetesprocess.h"
#include "fakeopensandboxprocess.h"
#include "inspectordock.h"
#include "overviewpanel.h"
#include "profilesession.h"
#include "sessionspanel.h"
#include "transcriptmodel.h"
#include "transcriptview.h"

#include <QCoroTask>

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QMainWindow>
#include <QScopeGuard>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTextBrowser>

#include <sys/time.h>

#include <cstdio>
#include <ctime>
#include <memory>
#include <vector>

using namespace Paddock;
using namespace PaddockBench;

namespace {

bool modelShows(const QAbstractItemModel *model, const QString &text, const QModelIndex &parent = {})
{
    for (int row = 0; row < model->rowCount(parent); ++row) {
        const QModelIndex index = model->index(row, 1, parent);
        if (index.data().toString() == text)
            return true;
        if (modelShows(model, text, model->index(row, 0, parent)))
            return true;
    }
    return false;
}

// The overview of `rounds` sandboxes of a session, one after the other, as a click on each row
// would show them: the time until the row's fields are in the panel (and painted), and until
// the server's answer is.
int overview(const char *what, ProfileSession &session, int rounds, int pausedWaitMs)
{
    auto listed = QCoro::waitFor(session.list({}));
    if (!listed || listed->isEmpty()) {
        std::fprintf(stderr, "%s: nothing listed: %s\n", what, listed ? "" : qPrintable(listed.error().message));
        return 1;
    }
    QMainWindow window;
    auto *dock = new InspectorDock(&window);
    window.addDockWidget(Qt::RightDockWidgetArea, dock);
    window.resize(1400, 900);
    window.show();
    dock->show();
    runUntil([] { return false; }, 200); // laid out and painted once
    // Running ones (a paused sandbox's files cannot be listed: the details wait for that to fail).
    QList<SandboxInfo> running;
    for (const SandboxInfo &sandbox : std::as_const(*listed)) {
        if (sandbox.state == SandboxState::Running)
            running.append(sandbox);
    }
    std::vector<double> shown;
    std::vector<double> details;
    for (int i = 0; i < rounds && i < running.size(); ++i) {
        const SandboxInfo &sandbox = running.at(i);
        QElapsedTimer clock;
        clock.start();
        dock->setWorkspace(&session, sandbox);
        QCoreApplication::processEvents(); // painted
        if (!modelShows(dock->overview()->model(), sandbox.sandboxId)) {
            std::fprintf(stderr, "%s: the overview does not show %s\n", what, qPrintable(sandbox.sandboxId));
            return 1;
        }
        shown.push_back(double(clock.nsecsElapsed()) / 1e6);
        if (!runUntil([dock] { return dock->overview()->hasDetails(); }, 60'000)) {
            std::fprintf(stderr, "%s: the server's details did not come\n", what);
            return 1;
        }
        QCoreApplication::processEvents();
        details.push_back(double(clock.nsecsElapsed()) / 1e6);
    }
    std::printf("  %-38s shown %8.2f ms  [<= 100 ms]  with the server's details %8.2f ms  (medians of %zu)\n", what,
                median(shown), median(details), shown.size());
    // A paused one, for the record (0: not asked; the session's shutdown waits for its reads).
    for (const SandboxInfo &sandbox : std::as_const(*listed)) {
        if (pausedWaitMs <= 0 || sandbox.state != SandboxState::Paused)
            continue;
        QElapsedTimer clock;
        clock.start();
        dock->setWorkspace(&session, sandbox);
        QCoreApplication::processEvents();
        const double pausedShown = double(clock.nsecsElapsed()) / 1e6;
        const bool came = runUntil([dock] { return dock->overview()->hasDetails(); }, pausedWaitMs);
        std::printf("  %-38s a paused one: shown %8.2f ms, with the server's details %s %8.2f ms\n", "", pausedShown,
                    came ? "after" : "not within", double(clock.nsecsElapsed()) / 1e6);
        break;
    }
    return 0;
}

int fakes(int sandboxes, int rounds, int pausedWaitMs)
{
    std::printf("overview after a selection\n");
    {
        PaddockTest::FakeOpenSandboxProcess server;
        if (!server.start({QStringLiteral("--seed"), QString::number(sandboxes)})) {
            std::fprintf(stderr, "cannot start the fake server: %s\n", qPrintable(server.error()));
            return 1;
        }
        OpenSandbox::BackendOptions options;
        options.connection.domain = server.domain();
        Profile profile;
        profile.id = QStringLiteral("bench");
        profile.kind = Profile::Kind::OpenSandbox;
        profile.domain = server.domain();
        ProfileSession session(profile, std::make_unique<OpenSandbox::OpenSandboxBackend>(options), ProvisionOptions{},
                               nullptr);
        const auto shutDown = qScopeGuard([&session] { QCoro::waitFor(session.shutdown()); });
        if (const int failed = overview("paddock-fake-opensandbox", session, rounds, pausedWaitMs))
            return failed;
    }
    {
        PaddockTest::FakeKubernetesProcess fake;
        if (!fake.start({QStringLiteral("--seed"), QString::number(sandboxes)})) {
            std::fprintf(stderr, "cannot start the fake cluster: %s\n", qPrintable(fake.error()));
            return 1;
        }
        Profile profile;
        profile.id = QStringLiteral("bench");
        profile.kind = Profile::Kind::Kubernetes;
        profile.kubeconfig = fake.kubeconfigPath();
        profile.kubeNamespace = QStringLiteral("agentscope");
        ProfileSession session(profile, {}, nullptr);
        const auto shutDown = qScopeGuard([&session] { QCoro::waitFor(session.shutdown()); });
        if (const int failed = overview("paddock-fake-kubernetes", session, rounds, pausedWaitMs))
            return failed;
    }
    return 0;
}

// Lines as AgentScope writes them: users' questions, replies with thinking and tool calls with
// their results (some long), in rotation; ids unique.
QByteArray transcriptLine(int i)
{
    const QByteArray id = QByteArray::number(i);
    switch (i % 4) {
    case 0:
        return R"({"name":"user","content":[{"type":"text","text":"Compare the Q3 revenue chart with the raw numbers in acme/sales-data and tell me which region is off. Message )"
            + id + R"(.","id":"t)" + id
            + R"(","created_at":"2026-08-21T09:12:03.418350","finished_at":null}],"role":"user","id":"u)" + id
            + R"(","metadata":{},"created_at":"2026-08-21T09:12:03.418277","usage":null,"finished_at":"2026-08-21T09:12:03.418277","finished_reason":null,"structured_output":null,"error":null})";
    case 1: {
        const QByteArray output = QByteArray("-rw-r--r-- 1 root root 712408 Aug 21 09:02 q3_amer.csv\\n").repeated(40);
        return R"({"name":"Friday","content":[{"type":"thinking","thinking":"List the exported CSVs first, then compare the totals per region.","id":"h)"
            + id + R"(","created_at":"2026-08-21T09:12:05.771203","finished_at":null},{"type":"tool_call","id":"call_)"
            + id
            + R"(","name":"Bash","input":"{\"command\": \"ls -l /workspace/data\"}","state":"finished","suggested_rules":[],"created_at":"2026-08-21T09:12:09.640275","finished_at":null},{"type":"tool_result","id":"call_)"
            + id + R"(","name":"Bash","output":[{"type":"text","text":")" + output + R"(","id":"o)" + id
            + R"("}],"state":"success","metadata":{},"created_at":"2026-08-21T09:12:11.027741","finished_at":null},{"type":"text","text":"APAC is off by 6%.","id":"x)"
            + id + R"("}],"role":"assistant","id":"a)" + id
            + R"(","metadata":{},"created_at":"2026-08-21T09:12:05.770912","usage":{"input_tokens":18342,"output_tokens":611},"finished_at":null,"finished_reason":null,"structured_output":null,"error":null})";
    }
    case 2:
        return R"({"name":"user","content":[{"type":"text","text":"Great. Write that up as a short note in the project README.","id":"t)"
            + id + R"("}],"role":"user","id":"u)" + id
            + R"(","metadata":{},"created_at":"2026-08-21T09:20:41.000000","usage":null,"finished_at":null,"finished_reason":null,"structured_output":null,"error":null})";
    default: {
        const QByteArray diff =
            QByteArray("+ APAC revenue uses month-end SGD rates; the ledger uses daily ones.\\n").repeated(150);
        return R"({"name":"Friday","content":[{"type":"tool_call","id":"call_e)" + id
            + R"(","name":"Edit","input":"{\"file_path\": \"/workspace/README.md\"}","state":"finished","suggested_rules":[]},{"type":"tool_result","id":"call_e)"
            + id + R"(","name":"Edit","output":"done","state":"success","metadata":{"diff":")" + diff
            + R"("}},{"type":"text","text":"Written.","id":"w)" + id + R"("}],"role":"assistant","id":"a)" + id
            + R"(","metadata":{},"created_at":"2026-08-21T09:20:46.000000","usage":{"input_tokens":7415,"output_tokens":402},"finished_at":null,"finished_reason":null,"structured_output":null,"error":null})";
    }
    }
}

int local(int sessions, int megabytes, const QString &base)
{
    QTemporaryDir dir(base.isEmpty() ? QDir::tempPath() + QStringLiteral("/paddock-bench-XXXXXX")
                                     : base + QStringLiteral("/paddock-bench-XXXXXX"));
    if (!dir.isValid()) {
        std::fprintf(stderr, "no temporary folder\n");
        return 1;
    }
    Profile profile = Profile::local();
    profile.basedir = dir.filePath(QStringLiteral("ws"));
    BootstrapLogStore logs(dir.filePath(QStringLiteral("logs")));
    ProfileSession session(profile, std::make_unique<LocalBackend>(LocalOptions{profile.basedir}), ProvisionOptions{},
                           &logs);
    const auto shutDown = qScopeGuard([&session] { QCoro::waitFor(session.shutdown()); });
    WorkspaceRequest request{QStringLiteral("alice"), QStringLiteral("agent-1"), {}, QStringLiteral("ws-bench")};
    auto opened = QCoro::waitFor(session.open(request));
    auto found = QCoro::waitFor(session.find(QStringLiteral("ws-bench")));
    if (!opened || !found) {
        std::fprintf(stderr, "cannot open a local workspace\n");
        return 1;
    }
    const QString workdir = session.layout(*found).workdir;
    // Session folders, each with a small context.jsonl; one of them holds the big transcript.
    for (int i = 0; i < sessions; ++i) {
        const QString folder = workdir + QStringLiteral("/sessions/s%1").arg(i, 5, 10, QLatin1Char('0'));
        QDir().mkpath(folder);
        QFile file(folder + QStringLiteral("/context.jsonl"));
        if (!file.open(QIODevice::WriteOnly) || file.write(transcriptLine(0) + '\n' + transcriptLine(1) + '\n') < 0)
            return 1;
    }
    const QString bigFolder = workdir + QStringLiteral("/sessions/big");
    QDir().mkpath(bigFolder);

    qint64 written = 0;
    int lines = 0;
    {
        QFile big(bigFolder + QStringLiteral("/context.jsonl"));
        if (!big.open(QIODevice::WriteOnly))
            return 1;
        while (written < qint64(megabytes) * 1024 * 1024) {
            const QByteArray line = transcriptLine(lines++) + '\n';
            big.write(line);
            written += line.size();
        }
    }
    {
        // An hour old: the newest session, picked when the list comes, is a small one.
        const timeval hourAgo[2] = {{::time(nullptr) - 3600, 0}, {::time(nullptr) - 3600, 0}};
        ::utimes(QFile::encodeName(bigFolder).constData(), hourAgo);
    }
    {
        // In the page cache, as a file the agent just wrote.
        QFile big(bigFolder + QStringLiteral("/context.jsonl"));
        big.open(QIODevice::ReadOnly);
        while (!big.read(4 * 1024 * 1024).isEmpty()) { }
    }

    QMainWindow window;
    auto *dock = new InspectorDock(&window);
    window.addDockWidget(Qt::RightDockWidgetArea, dock);
    window.resize(1400, 900);
    window.show();
    dock->show();
    dock->tabs()->setCurrentWidget(dock->sessions());
    runUntil([] { return false; }, 300);
    SessionsPanel *panel = dock->sessions();
    StallMeter meter;

    // The sessions list.
    QElapsedTimer clock;
    clock.start();
    meter.start();
    dock->setWorkspace(&session, *found);
    if (!runUntil([panel, sessions] { return panel->sessionsModel()->rowCount() == sessions + 1; }, 120'000)) {
        std::fprintf(stderr, "the sessions list did not come\n");
        return 1;
    }
    QCoreApplication::processEvents();
    const double listed = double(clock.nsecsElapsed()) / 1e6;
    // Its first transcript (the newest session) and the sizes of the rows in view settle.
    runUntil([panel] { return panel->isTranscriptRead(); }, 60'000);
    runUntil([] { return false; }, 1000);
    const double listStall = meter.stop();
    std::printf("sessions/ of a local workspace, %d session folders\n", sessions + 1);
    std::printf("  the list shown                                 %8.2f ms  [<= 500 ms]\n", listed);
    std::printf("  longest GUI stall meanwhile                    %8.2f ms\n", listStall);

    // What the machine itself costs the event loop: a second of doing nothing, measured alike.
    meter.start();
    runUntil([] { return false; }, 1000);
    const double noise = meter.stop();

    // The big transcript.
    const double idle = residentMiB();
    clock.restart();
    meter.start();
    panel->selectSession(QStringLiteral("big"));
    TranscriptView *transcript = panel->transcript();
    if (!runUntil([transcript] { return transcript->model()->rowCount() > 0 && transcript->currentRow() == 0; },
                  60'000)) {
        std::fprintf(stderr, "the first page did not come\n");
        return 1;
    }
    QCoreApplication::processEvents(); // painted
    const double firstPage = double(clock.nsecsElapsed()) / 1e6;
    if (!runUntil([panel] { return panel->isTranscriptRead(); }, 600'000)) {
        std::fprintf(stderr, "the transcript was not read\n");
        return 1;
    }
    const double whole = double(clock.nsecsElapsed()) / 1e6;
    const double stall = meter.stop();
    const double after = residentMiB();
    // Scrolling to the end and showing its last message (read again from its byte range).
    clock.restart();
    transcript->setCurrentRow(transcript->model()->rowCount() - 1);
    runUntil([transcript] { return transcript->model()->message(transcript->currentRow()) != nullptr; }, 60'000);
    QCoreApplication::processEvents();
    const double last = double(clock.nsecsElapsed()) / 1e6;
    std::printf("context.jsonl of %.1f MB, %d lines, %d messages\n", double(written) / 1024 / 1024, lines,
                transcript->model()->rowCount());
    std::printf("  its first page shown                           %8.2f ms  [<= 500 ms]\n", firstPage);
    std::printf(
        "  longest GUI stall while it is read             %8.2f ms  [<= 50 ms]  (idle, the same second: %.2f ms)\n",
        stall, noise);
    std::printf("  read to its end                                %8.2f ms\n", whole);
    std::printf("  its last message shown (read again)            %8.2f ms\n", last);
    std::printf(
        "  resident memory above the idle console         %8.1f MiB  [<= 100 MiB]  (whole messages cached: %.1f "
        "MiB)\n",
        after - idle, double(transcript->model()->cachedBytes()) / 1024 / 1024);
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption({QStringLiteral("sandboxes"), QStringLiteral("Sandboxes on each fake (default 200)."),
                      QStringLiteral("n"), QStringLiteral("200")});
    parser.addOption({QStringLiteral("rounds"), QStringLiteral("Workspaces selected one after another (default 15)."),
                      QStringLiteral("n"), QStringLiteral("15")});
    parser.addOption({QStringLiteral("sessions"), QStringLiteral("Session folders (default 1000)."),
                      QStringLiteral("n"), QStringLiteral("1000")});
    parser.addOption({QStringLiteral("megabytes"), QStringLiteral("Size of the big context.jsonl (default 50)."),
                      QStringLiteral("n"), QStringLiteral("50")});
    parser.addOption({QStringLiteral("dir"),
                      QStringLiteral("Where the local workspace goes (default: the system's "
                                     "temporary folder)."),
                      QStringLiteral("dir")});
    parser.addOption({QStringLiteral("paused-wait"),
                      QStringLiteral("How long to wait for a paused sandbox's details (default 120000 ms; 0: "
                                     "none is selected)."),
                      QStringLiteral("ms"), QStringLiteral("120000")});
    parser.addOption({QStringLiteral("local-only"), QStringLiteral("Only the sessions and transcript figures.")});
    parser.process(app);
    if (!parser.isSet(QStringLiteral("local-only"))) {
        if (const int failed =
                fakes(parser.value(QStringLiteral("sandboxes")).toInt(), parser.value(QStringLiteral("rounds")).toInt(),
                      parser.value(QStringLiteral("paused-wait")).toInt()))
            return failed;
    }
    return local(parser.value(QStringLiteral("sessions")).toInt(), parser.value(QStringLiteral("megabytes")).toInt(),
                 parser.value(QStringLiteral("dir")));
}
