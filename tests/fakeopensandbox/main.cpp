// paddock-fake-opensandbox: an OpenSandbox server (lifecycle API + per-sandbox execd) for tests
// and benchmarks. The first line on stdout is the base URL; logs go to stderr. SIGTERM and
// SIGINT stop it cleanly. See README.md in this folder.

#include "fakeopensandbox.h"
#include "requestlog.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QSocketNotifier>

#include <csignal>
#include <cstdio>
#include <sys/socket.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace {

int signalSockets[2] = {-1, -1};

void onSignal(int)
{
    const char byte = 1;
    [[maybe_unused]] const ssize_t written = ::write(signalSockets[1], &byte, 1);
}

[[noreturn]] void usageError(const QString &message)
{
    std::fprintf(stderr, "paddock-fake-opensandbox: %s\n", qPrintable(message));
    std::exit(2);
}

int intOption(const QCommandLineParser &parser, const QString &name, int min, int max)
{
    bool ok = false;
    const int value = parser.value(name).toInt(&ok);
    if (!ok || value < min || value > max)
        usageError(u"--%1 must be an integer from %2 to %3"_s.arg(name).arg(min).arg(max));
    return value;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(u"paddock-fake-opensandbox"_s);

    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"A fake OpenSandbox server (lifecycle API and execd) for tests. Listens on 127.0.0.1 only."_s);
    parser.addHelpOption();
    parser.addOptions({
        {u"port"_s, u"Lifecycle API port (0: any free port)."_s, u"N"_s, u"0"_s},
        {u"execd-port"_s, u"execd port (0: any free port)."_s, u"N"_s, u"0"_s},
        {u"api-key"_s, u"Require OPEN-SANDBOX-API-KEY: K on lifecycle requests."_s, u"K"_s},
        {u"seed"_s, u"Create N sandboxes at start."_s, u"N"_s, u"0"_s},
        {u"latency-ms"_s, u"Delay every lifecycle-listener response by N ms."_s, u"N"_s, u"0"_s},
        {u"pause-ms"_s, u"A pause shows Pausing for N ms before Paused, as on Kubernetes (0: at once, as on Docker)."_s,
         u"N"_s, u"0"_s},
        {u"resume-ms"_s, u"A resume shows Resuming for N ms before Running (0: at once)."_s, u"N"_s, u"0"_s},
        {u"fail-rate"_s, u"Probability (0..1) of an injected 502/503/504 or dropped connection."_s, u"P"_s, u"0"_s},
        {u"fail-seed"_s, u"Seed of the failure-injection PRNG."_s, u"S"_s, u"0"_s},
        {u"max-inflight"_s, u"Answer 503 when N lifecycle requests are in flight (0: no limit)."_s, u"N"_s, u"0"_s},
        {u"ping-interval-ms"_s, u"Interval of execd stream pings."_s, u"N"_s, u"3000"_s},
        {u"data-dir"_s, u"Keep sandbox files and state.json here (default: a temporary directory)."_s, u"DIR"_s},
        {u"no-bwrap"_s, u"Run commands unconfined on this machine (UNSAFE; for machines without bubblewrap)."_s},
        {u"no-metrics-route"_s, u"execd without GET /metrics (404), as an older build."_s},
    });
    PaddockFake::addRecordRequestsOption(parser);
    parser.process(app);
    if (!parser.positionalArguments().isEmpty())
        usageError(u"unexpected argument "_s + parser.positionalArguments().first());
    if (QString recordError; !PaddockFake::startRecordingRequests(parser, &recordError))
        usageError(recordError);

    PaddockFake::Options options;
    options.port = static_cast<quint16>(intOption(parser, u"port"_s, 0, 65535));
    options.execdPort = static_cast<quint16>(intOption(parser, u"execd-port"_s, 0, 65535));
    options.apiKey = parser.value(u"api-key"_s);
    options.seed = intOption(parser, u"seed"_s, 0, 10'000'000);
    options.latencyMs = intOption(parser, u"latency-ms"_s, 0, 3'600'000);
    options.pauseMs = intOption(parser, u"pause-ms"_s, 0, 3'600'000);
    options.resumeMs = intOption(parser, u"resume-ms"_s, 0, 3'600'000);
    bool ok = false;
    options.failRate = parser.value(u"fail-rate"_s).toDouble(&ok);
    if (!ok || options.failRate < 0 || options.failRate > 1)
        usageError(u"--fail-rate must be a number from 0 to 1"_s);
    options.failSeed = parser.value(u"fail-seed"_s).toUInt(&ok);
    if (!ok)
        usageError(u"--fail-seed must be an unsigned integer"_s);
    options.maxInflight = intOption(parser, u"max-inflight"_s, 0, 1'000'000);
    options.pingIntervalMs = intOption(parser, u"ping-interval-ms"_s, 1, 3'600'000);
    options.dataDir = parser.value(u"data-dir"_s);
    options.bubblewrap = !parser.isSet(u"no-bwrap"_s);
    options.metricsRoute = !parser.isSet(u"no-metrics-route"_s);

    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, signalSockets) != 0)
        usageError(u"cannot create the signal socket pair"_s);
    struct sigaction action
    {
    };
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(SIGTERM, &action, nullptr);
    ::sigaction(SIGINT, &action, nullptr);
    std::signal(SIGPIPE, SIG_IGN);

    PaddockFake::FakeOpenSandbox server(options);
    QString error;
    if (!server.start(&error)) {
        std::fprintf(stderr, "paddock-fake-opensandbox: %s\n", qPrintable(error));
        return 1;
    }
    std::printf("%s\n", qPrintable(server.baseUrl()));
    std::fflush(stdout);
    qInfo("lifecycle API %s (also under /v1), execd http://127.0.0.1:%u, data in %s%s", qPrintable(server.baseUrl()),
          server.execdPort(), qPrintable(server.dataDir()),
          options.bubblewrap ? "" : " -- commands run UNCONFINED (--no-bwrap)");

    QSocketNotifier notifier(signalSockets[0], QSocketNotifier::Read);
    QObject::connect(&notifier, &QSocketNotifier::activated, &app, [&] {
        char buffer[16];
        [[maybe_unused]] const ssize_t got = ::read(signalSockets[0], buffer, sizeof buffer);
        qInfo("stopping");
        server.shutdown();
        QCoreApplication::exit(0);
    });
    return QCoreApplication::exec();
}
