// paddock-fake-kubernetes: a Kubernetes API server for tests and benchmarks. The first line on
// stdout is the base URL; logs go to stderr. SIGTERM and SIGINT stop it cleanly. See README.md
// in this folder.

#include "fakekubernetes.h"
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
    std::fprintf(stderr, "paddock-fake-kubernetes: %s\n", qPrintable(message));
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

QStringList listOption(const QCommandLineParser &parser, const QString &name)
{
    QStringList values;
    for (const QString &value : parser.values(name)) {
        for (const QString &piece : value.split(u',')) {
            if (!piece.trimmed().isEmpty())
                values.append(piece.trimmed());
        }
    }
    return values;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(u"paddock-fake-kubernetes"_s);

    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"A fake Kubernetes API server (core/v1) for tests; kubectl 1.32 accepts it. Listens on 127.0.0.1 only."_s);
    parser.addHelpOption();
    parser.addOptions({
        {u"port"_s, u"Port (0: any free port)."_s, u"N"_s, u"0"_s},
        {u"token"_s, u"Require Authorization: Bearer T (or the client certificate of the kubeconfig)."_s, u"T"_s},
        {u"write-kubeconfig"_s, u"Write a kubeconfig for this server (context paddock-fake) to FILE."_s, u"FILE"_s},
        {u"plain-http"_s, u"Serve plain HTTP instead of HTTPS (kubectl then sends no credentials)."_s},
        {u"pod-start-ms"_s, u"A scheduled Pod's container starts (or its image pull fails) after N ms."_s, u"N"_s,
         u"500"_s},
        {u"grace-ms"_s, u"A terminating Pod is removed after its grace period or N ms, whichever is shorter."_s, u"N"_s,
         u"500"_s},
        {u"pvc-bind-ms"_s, u"A PVC of a provisioned class is Bound after N ms."_s, u"N"_s, u"0"_s},
        {u"pull-backoff-ms"_s, u"First image-pull back-off (doubles up to 300 s)."_s, u"N"_s, u"10000"_s},
        {u"crash-backoff-ms"_s, u"First container-restart back-off (doubles up to 300 s)."_s, u"N"_s, u"10000"_s},
        {u"images"_s,
         u"The images the kubelet can pull (comma-separated; default: every image not ending in :missing)."_s,
         u"LIST"_s},
        {u"storage-classes"_s, u"Storage classes with a provisioner, the first the default (default: standard)."_s,
         u"LIST"_s},
        {u"namespaces"_s,
         u"Namespaces made at start besides default and kube-* (default: agentscope; \"\" for none)."_s, u"LIST"_s},
        {u"seed"_s, u"Make N workspace Pods and PVCs (as AgentScope makes them) at start."_s, u"N"_s, u"0"_s},
        {u"seed-namespace"_s, u"Namespace of the seeded workspaces and of the kubeconfig's contexts."_s, u"NS"_s,
         u"agentscope"_s},
        {u"watch-history"_s, u"Events kept for watches that resume from a resourceVersion (older: 410 Expired)."_s,
         u"N"_s, u"10000"_s},
        {u"bookmark-ms"_s, u"Interval of BOOKMARK events on watches that allow them."_s, u"N"_s, u"60000"_s},
        {u"latency-ms"_s, u"Delay every API response by N ms."_s, u"N"_s, u"0"_s},
        {u"fail-rate"_s, u"Probability (0..1) of an injected 429/500/503 or dropped connection."_s, u"P"_s, u"0"_s},
        {u"fail-seed"_s, u"Seed of the failure-injection PRNG."_s, u"S"_s, u"0"_s},
        {u"forbid"_s, u"Refuse with 403 (RBAC), e.g. \"create pods/exec,get namespaces\"."_s, u"RULES"_s},
        {u"data-dir"_s,
         u"Keep volumes, Pod folders, the CA and the objects (state.json) here; a start on it has them back "
         "(default: a temporary directory, removed on exit)."_s,
         u"DIR"_s},
        {u"no-bwrap"_s, u"Run containers and exec commands unconfined on this machine (UNSAFE)."_s},
        {u"no-metrics-api"_s, u"No metrics.k8s.io API (a cluster without metrics-server)."_s},
        {u"verbose"_s, u"Log every request (method, target, Accept, Content-Type, User-Agent) on stderr."_s},
    });
    PaddockFake::addRecordRequestsOption(parser);
    parser.process(app);
    if (!parser.positionalArguments().isEmpty())
        usageError(u"unexpected argument "_s + parser.positionalArguments().first());
    if (QString recordError; !PaddockFake::startRecordingRequests(parser, &recordError))
        usageError(recordError);

    PaddockFake::Kube::Options options;
    options.port = static_cast<quint16>(intOption(parser, u"port"_s, 0, 65535));
    options.token = parser.value(u"token"_s);
    options.kubeconfigPath = parser.value(u"write-kubeconfig"_s);
    options.tls = !parser.isSet(u"plain-http"_s);
    options.podStartMs = intOption(parser, u"pod-start-ms"_s, 0, 3'600'000);
    options.graceMs = intOption(parser, u"grace-ms"_s, 0, 3'600'000);
    options.pvcBindMs = intOption(parser, u"pvc-bind-ms"_s, 0, 3'600'000);
    options.pullBackoffMs = intOption(parser, u"pull-backoff-ms"_s, 1, 3'600'000);
    options.crashBackoffMs = intOption(parser, u"crash-backoff-ms"_s, 1, 3'600'000);
    if (parser.isSet(u"images"_s))
        options.images = listOption(parser, u"images"_s);
    if (parser.isSet(u"storage-classes"_s))
        options.storageClasses = listOption(parser, u"storage-classes"_s);
    if (parser.isSet(u"namespaces"_s))
        options.namespaces = listOption(parser, u"namespaces"_s);
    options.seed = intOption(parser, u"seed"_s, 0, 1'000'000);
    options.seedNamespace = parser.value(u"seed-namespace"_s);
    options.watchHistory = intOption(parser, u"watch-history"_s, 0, 10'000'000);
    options.bookmarkMs = intOption(parser, u"bookmark-ms"_s, 1, 3'600'000);
    options.latencyMs = intOption(parser, u"latency-ms"_s, 0, 3'600'000);
    bool ok = false;
    options.failRate = parser.value(u"fail-rate"_s).toDouble(&ok);
    if (!ok || options.failRate < 0 || options.failRate > 1)
        usageError(u"--fail-rate must be a number from 0 to 1"_s);
    options.failSeed = parser.value(u"fail-seed"_s).toUInt(&ok);
    if (!ok)
        usageError(u"--fail-seed must be an unsigned integer"_s);
    for (const QString &rule : listOption(parser, u"forbid"_s)) {
        const QStringList parts = rule.split(u' ', Qt::SkipEmptyParts);
        if (parts.size() != 2)
            usageError(u"--forbid takes \"verb resource\" pairs, e.g. \"create pods/exec\""_s);
        options.forbidden.append(parts.join(u' '));
    }
    options.dataDir = parser.value(u"data-dir"_s);
    options.bubblewrap = !parser.isSet(u"no-bwrap"_s);
    options.metricsApi = !parser.isSet(u"no-metrics-api"_s);
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

    PaddockFake::Kube::FakeKubernetes server(options);
    QString error;
    if (!server.start(&error)) {
        std::fprintf(stderr, "paddock-fake-kubernetes: %s\n", qPrintable(error));
        return 1;
    }
    std::printf("%s\n", qPrintable(server.baseUrl()));
    std::fflush(stdout);
    qInfo("API server %s, data in %s%s%s", qPrintable(server.baseUrl()), qPrintable(server.dataDir()),
          options.kubeconfigPath.isEmpty() ? "" : qPrintable(u", kubeconfig "_s + options.kubeconfigPath),
          options.bubblewrap ? "" : " -- containers and commands run UNCONFINED (--no-bwrap)");

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
