// paddock-bench-kubernetes [--pods N] [--rounds R]: the Kubernetes backend against
// paddock-fake-kubernetes seeded with N workspaces (a Pod and a PVC each, as AgentScope makes
// them). Prints:
//   - listing the N Pods (KubeClient::listPods: pages of 500 followed by `continue`, parsed on a
//     worker thread) against a bare fetch of the same pages [target: at most 1.5 x];
//   - the whole listing the console makes (Pods and PVCs, joined into workspaces);
//   - the round trips an open of a workspace whose Pod runs costs before its bootstrap
//     [target: at most 3];
//   - how long a change on the cluster takes to arrive through the watch.
// It never fails on time; it fails only when something does not work.

#include "backends/kubernetes/kubeconfig.h"
#include "backends/kubernetes/kubernetesbackend.h"
#include "benchsupport.h"
#include "bootstraplog.h"
#include "fakekubernetesprocess.h"
#include "http/httpclient.h"
#include "provisioner.h"

#include <QCoroNetworkReply>
#include <QCoroTask>
#include <QCoroTimer>

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTemporaryDir>
#include <QTimer>
#include <QUrlQuery>

#include <cstdio>
#include <memory>

using namespace Paddock;
using namespace Paddock::Kubernetes;
using namespace PaddockBench;
using namespace std::chrono_literals;

namespace {

struct BareListing
{
    double wallMs = 0;
    int pages = 0;
    qsizetype bytes = 0;
    QList<QByteArray> bodies;
};

// The same pages the client asks for, fetched and not parsed: only the continue token is read.
QCoro::Task<BareListing> fetchBare(QNetworkAccessManager *network, const PaddockTest::FakeKubernetesProcess *fake,
                                   QString resource)
{
    BareListing listing;
    QElapsedTimer timer;
    timer.start();
    QString token;
    for (;;) {
        QString path = QStringLiteral("/api/v1/namespaces/agentscope/%1?limit=500&labelSelector=%2")
                           .arg(resource,
                                QString::fromLatin1(QUrl::toPercentEncoding(
                                    QStringLiteral("app.kubernetes.io/managed-by=agentscope"))));
        if (!token.isEmpty())
            path += QStringLiteral("&continue=") + QString::fromLatin1(QUrl::toPercentEncoding(token));
        const QNetworkRequest request = fake->request(path);
        std::unique_ptr<QNetworkReply, Http::ReplyDeleter> reply(network->get(request));
        co_await reply.get();
        const QByteArray body = reply->readAll();
        listing.bytes += body.size();
        listing.bodies.append(body);
        ++listing.pages;
        // Only the token is looked at (it sits in the list's metadata, at the start).
        const qsizetype at = body.indexOf("\"continue\":\"");
        if (at < 0 || at > 400)
            break;
        const qsizetype start = at + 12;
        token = QString::fromLatin1(body.mid(start, body.indexOf('"', start) - start));
        if (token.isEmpty())
            break;
    }
    listing.wallMs = double(timer.nsecsElapsed()) / 1e6;
    co_return listing;
}

BackendOptions optionsFor(const PaddockTest::FakeKubernetesProcess &fake)
{
    BackendOptions options;
    auto connection = lookupConnection(fake.kubeconfigPath(), QStringLiteral("paddock-fake"));
    if (!connection)
        qFatal("cannot use the fake's kubeconfig: %s", qPrintable(connection.error().message));
    options.cluster.connection = *connection;
    options.pollFirst = 50ms;
    options.pollMax = 200ms;
    return options;
}

QCoro::Task<int> run(int pods, int rounds)
{
    PaddockTest::FakeKubernetesProcess fake;
    if (!fake.start({QStringLiteral("--seed"), QString::number(pods), QStringLiteral("--pod-start-ms"),
                     QStringLiteral("50")})) {
        std::fprintf(stderr, "cannot start paddock-fake-kubernetes: %s\n", qPrintable(fake.error()));
        co_return 1;
    }
    QNetworkAccessManager network;
    KubernetesBackend backend(optionsFor(fake));
    KubeClient *client = backend.client();

    // Named, never temporaries in a co_await (GCC 12, README.md).
    const QString podsResource = QStringLiteral("pods");
    const QString claimsResource = QStringLiteral("persistentvolumeclaims");
    const QString selector = QStringLiteral("app.kubernetes.io/managed-by=agentscope");
    const ListFilter everything;
    // Warm up the connection and both paths once.
    co_await fetchBare(&network, &fake, podsResource);
    co_await client->listPods(selector);

    std::vector<double> bareMs;
    std::vector<double> listMs;
    std::vector<double> allMs;
    std::vector<double> bareBothMs;
    BareListing bare;
    for (int round = 0; round < rounds; ++round) {
        bare = co_await fetchBare(&network, &fake, podsResource);
        bareMs.push_back(bare.wallMs);
        QElapsedTimer timer;
        timer.start();
        auto listed = co_await client->listPods(selector);
        listMs.push_back(double(timer.nsecsElapsed()) / 1e6);
        if (!listed || listed->items.size() != pods) {
            std::fprintf(stderr, "listPods failed: %s\n",
                         listed ? qPrintable(QStringLiteral("%1 listed").arg(listed->items.size()))
                                : qPrintable(listed.error().message));
            co_return 1;
        }
        const BareListing bareClaims = co_await fetchBare(&network, &fake, claimsResource);
        bareBothMs.push_back(bare.wallMs + bareClaims.wallMs);
        timer.restart();
        auto all = co_await backend.list(everything);
        allMs.push_back(double(timer.nsecsElapsed()) / 1e6);
        if (!all || all->size() != pods) {
            std::fprintf(stderr, "list failed: %s\n",
                         all ? qPrintable(QStringLiteral("%1 listed").arg(all->size()))
                             : qPrintable(all.error().message));
            co_return 1;
        }
    }
    std::printf("list %d Pods (%d pages of 500, %.1f MB)\n", pods, bare.pages, double(bare.bytes) / 1e6);
    std::printf("  bare fetch of the same pages        %9.1f ms  (median of %d)\n", median(bareMs), rounds);
    std::printf("  KubeClient::listPods                %9.1f ms  = %.2f x the bare fetch [<= 1.5 x] (median)\n",
                median(listMs), median(listMs) / median(bareMs));
    QElapsedTimer parseTimer;
    parseTimer.start();
    qsizetype parsed = 0;
    for (const QByteArray &body : std::as_const(bare.bodies))
        parsed += parsePodList(body)->items.size();
    std::printf("  parsing the pages on one thread     %9.1f ms  (%lld Pods)\n",
                double(parseTimer.nsecsElapsed()) / 1e6, qlonglong(parsed));
    std::printf("  Backend::list (Pods and PVCs)       %9.1f ms  = %.2f x the bare fetch of both (median)\n",
                median(allMs), median(allMs) / median(bareBothMs));

    // An open of a workspace whose Pod runs, counted at the server.
    {
        const QString id = QStringLiteral("benchopen%1").arg(QCoreApplication::applicationPid());
        // Made and bootstrapped (its marker written) once, then opened by another backend.
        QTemporaryDir logsDir;
        BootstrapLogStore logs(logsDir.path());
        const ProvisionRequest request{id, {}, {}, {}};
        Provisioner maker(&backend, &logs, ProvisionOptions{});
        auto made = co_await maker.provision(request);
        if (!made) {
            std::fprintf(stderr, "create failed: %s\n", qPrintable(made.error().message));
            co_return 1;
        }
        KubernetesBackend fresh(optionsFor(fake));
        Provisioner provisioner(&fresh, &logs, ProvisionOptions{});
        fake.control("POST", QStringLiteral("/_fake/reset-stats"));
        QElapsedTimer timer;
        timer.start();
        auto opened = co_await provisioner.provision(request);
        const double openMs = double(timer.nsecsElapsed()) / 1e6;
        if (!opened) {
            std::fprintf(stderr, "open failed: %s\n", qPrintable(opened.error().message));
            co_return 1;
        }
        const QJsonObject stats = fake.stats();
        std::printf("open a workspace whose Pod runs\n");
        std::printf(
            "  round trips before the bootstrap    %9d  [<= 3] %s\n", stats.value(QLatin1String("requests")).toInt(),
            QJsonDocument(stats.value(QLatin1String("byVerb")).toObject()).toJson(QJsonDocument::Compact).constData());
        std::printf("  wall time                           %9.1f ms\n", openMs);

        // A change on the cluster, through the watch: the kubelet reports the Pod Failed.
        backend.setWatching(true);
        for (int i = 0; i < 200 && fake.stats().value(QLatin1String("watches")).toInt() < 2; ++i)
            co_await QCoro::sleepFor(50ms);
        const QString name = safeName(id);
        QElapsedTimer seen;
        bool arrived = false;
        QObject::connect(&backend, &Backend::sandboxChanged, &backend, [&](const SandboxInfo &info) {
            if (info.sandboxId == name && info.state == SandboxState::Failed && !arrived) {
                arrived = true;
                std::printf("  a change on the cluster, through the watch %6.1f ms later\n",
                            double(seen.nsecsElapsed()) / 1e6);
            }
        });
        seen.start();
        fake.control("POST", QStringLiteral("/_fake/pods/agentscope/%1/status").arg(name), R"({"phase":"Failed"})");
        for (int i = 0; i < 200 && !arrived; ++i)
            co_await QCoro::sleepFor(20ms);
        backend.setWatching(false);
        const KillOptions killOptions;
        co_await backend.kill(name, killOptions);
        if (!arrived) {
            std::fprintf(stderr, "the watch did not report the change\n");
            co_return 1;
        }
    }
    co_return 0;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOptions(
        {{QStringLiteral("pods"), QStringLiteral("Workspaces the fake is seeded with."), QStringLiteral("N"),
          QStringLiteral("10000")},
         {QStringLiteral("rounds"), QStringLiteral("Measurements of each listing (the median is printed)."),
          QStringLiteral("R"), QStringLiteral("5")}});
    parser.process(app);
    int status = 1;
    QTimer::singleShot(0, &app, [&] {
        QCoro::connect(
            run(parser.value(QStringLiteral("pods")).toInt(), parser.value(QStringLiteral("rounds")).toInt()), &app,
            [&](int result) {
                status = result;
                app.quit();
            });
    });
    app.exec();
    return status;
}
