// paddock-fake-e2b: an E2B server (control plane and every sandbox's envd) for tests and
// benchmarks. The first line on stdout is the API URL (E2B_API_URL), the second envd's
// (E2B_SANDBOX_URL); logs go to stderr. SIGTERM and SIGINT stop it cleanly. See README.md in this
// folder.

#include "fakee2b.h"
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
    std::fprintf(stderr, "paddock-fake-e2b: %s\n", qPrintable(message));
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
    QCoreApplication::setApplicationName(u"paddock-fake-e2b"_s);

    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"A fake E2B server (control plane and envd) for tests. Listens on 127.0.0.1 only. Prints the API URL, "
        "then envd's URL."_s);
    parser.addHelpOption();
    parser.addOptions({
        {u"port"_s, u"API port (0: any free port)."_s, u"N"_s, u"0"_s},
        {u"envd-port"_s,
         u"Give envd a listener of its own on this port (0: any free port); by default envd shares "
         "the API's port and is told apart by the E2b-Sandbox-Id header."_s,
         u"N"_s},
        {u"api-key"_s, u"Accept only this X-API-Key (default: any e2b_<hex> key)."_s, u"K"_s},
        {u"seed"_s, u"Create N sandboxes at start."_s, u"N"_s, u"0"_s},
        {u"latency-ms"_s, u"Delay every API response by N ms."_s, u"N"_s, u"0"_s},
        {u"fail-rate"_s, u"Probability (0..1) of an injected 429/502/503/504 or dropped connection."_s, u"P"_s, u"0"_s},
        {u"fail-seed"_s, u"Seed of the failure-injection PRNG."_s, u"S"_s, u"0"_s},
        {u"max-inflight"_s, u"Answer 429 when N API requests are in flight (0: no limit)."_s, u"N"_s, u"0"_s},
        {u"max-timeout-hours"_s, u"The team's longest sandbox run, in hours."_s, u"H"_s, u"24"_s},
        {u"templates"_s, u"Template aliases that exist (comma-separated)."_s, u"LIST"_s, u"base"_s},
        {u"data-dir"_s, u"Keep the sandboxes' folders here (default: a temporary directory)."_s, u"DIR"_s},
        {u"no-bwrap"_s, u"Run commands unconfined on this machine (UNSAFE; for machines without bubblewrap)."_s},
        {u"no-metrics-route"_s, u"GET /sandboxes/metrics answers 501, as a server without it."_s},
        {u"verbose"_s, u"Log every request (method and target) on stderr."_s},
    });
    PaddockFake::addRecordRequestsOption(parser);
    parser.process(app);
    if (!parser.positionalArguments().isEmpty())
        usageError(u"unexpected argument "_s + parser.positionalArguments().first());
    if (QString recordError; !PaddockFake::startRecordingRequests(parser, &recordError))
        usageError(recordError);

    PaddockFake::E2b::Options options;
    options.port = static_cast<quint16>(intOption(parser, u"port"_s, 0, 65535));
    if (parser.isSet(u"envd-port"_s))
        options.envdPort = intOption(parser, u"envd-port"_s, 0, 65535);
    options.apiKey = parser.value(u"api-key"_s);
    if (parser.isSet(u"api-key"_s) && !options.apiKey.startsWith(u"e2b_"_s))
        usageError(u"--api-key must start with e2b_ (as every E2B key does)"_s);
    options.seed = intOption(parser, u"seed"_s, 0, 10'000'000);
    options.latencyMs = intOption(parser, u"latency-ms"_s, 0, 3'600'000);
    bool ok = false;
    options.failRate = parser.value(u"fail-rate"_s).toDouble(&ok);
    if (!ok || options.failRate < 0 || options.failRate > 1)
        usageError(u"--fail-rate must be a number from 0 to 1"_s);
    options.failSeed = parser.value(u"fail-seed"_s).toUInt(&ok);
    if (!ok)
        usageError(u"--fail-seed must be an unsigned integer"_s);
    options.maxInflight = intOption(parser, u"max-inflight"_s, 0, 1'000'000);
    options.maxTimeoutHours = intOption(parser, u"max-timeout-hours"_s, 1, 24 * 365);
    options.templates = parser.value(u"templates"_s).split(u',', Qt::SkipEmptyParts);
    if (options.templates.isEmpty())
        usageError(u"--templates needs at least one alias"_s);
    options.dataDir = parser.value(u"data-dir"_s);
    options.bubblewrap = !parser.isSet(u"no-bwrap"_s);
    options.metricsRoute = !parser.isSet(u"no-metrics-route"_s);
    options.verbose = parser.isSet(u"verbose"_s);

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

    PaddockFake::E2b::FakeE2b server(options);
    QString error;
    if (!server.start(&error)) {
        std::fprintf(stderr, "paddock-fake-e2b: %s\n", qPrintable(error));
        return 1;
    }
    std::printf("%s\n%s\n", qPrintable(server.apiUrl()), qPrintable(server.envdUrl()));
    std::fflush(stdout);
    qInfo("API %s, envd %s, data in %s%s", qPrintable(server.apiUrl()), qPrintable(server.envdUrl()),
          qPrintable(server.dataDir()), options.bubblewrap ? "" : " -- commands run UNCONFINED (--no-bwrap)");

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
