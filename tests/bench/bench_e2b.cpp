// Prints the E2B control plane client's figures against paddock-fake-e2b on 127.0.0.1 (issue 18's
// targets in brackets); it never fails on time.
//   listing N sandboxes: the client's list() against the bare fetch of the same pages
//                        [<= 1.5 x], and the client's CPU per sandbox listed [<= 20 us]
//   pausing M sandboxes with L ms injected latency at concurrency C
//                        [<= 1.3 x ceil(M / C) x L], never more than C requests in flight

#include "backends/e2b/e2bapi.h"
#include "bulk.h"
#include "fakee2bprocess.h"

#include <QCoroNetworkReply>
#include <QCoroTask>

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QNetworkAccessManager>
#include <QNetworkReply>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

#include <sys/resource.h>

using namespace Paddock;
using namespace Paddock::E2B;
using Paddock::Http::ReplyDeleter;

constexpr QByteArrayView Key{"e2b_0123456789abcdef"};

namespace {

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return values.at(values.size() / 2);
}

double cpuSeconds()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

struct RawListing
{
    double wallMs = 0;
    double serverMs = 0; // the server's own time building the pages (X-Fake-Serve-Us)
    int pages = 0;
    QList<HttpResponse> bodies;
};

// The same pages, fetched one after another (each asked for once the last one's X-Next-Token is
// in) and not even parsed: the floor any client has.
QCoro::Task<RawListing> fetchPagesBare(QNetworkAccessManager *network, QUrl base)
{
    RawListing listing;
    QElapsedTimer timer;
    timer.start();
    QByteArray token;
    for (;;) {
        QUrl url = base;
        url.setPath(QStringLiteral("/v2/sandboxes"));
        QString query = QStringLiteral("limit=%1").arg(ControlPlane::PageSize);
        if (!token.isEmpty())
            query += QStringLiteral("&nextToken=")
                + QString::fromLatin1(QUrl::toPercentEncoding(QString::fromLatin1(token)));
        url.setQuery(query);
        QNetworkRequest request(url);
        request.setRawHeader("X-API-Key", Key.toByteArray());
        std::unique_ptr<QNetworkReply, ReplyDeleter> reply(network->get(request));
        co_await reply.get();
        HttpResponse response;
        response.status = 200;
        response.body = reply->readAll();
        token = reply->rawHeader("X-Next-Token");
        response.headers.insert(QByteArrayLiteral("x-next-token"), token);
        listing.bodies.append(response);
        listing.serverMs += reply->rawHeader("X-Fake-Serve-Us").toDouble() / 1000.0;
        ++listing.pages;
        if (token.isEmpty())
            break;
    }
    listing.wallMs = double(timer.nsecsElapsed()) / 1e6;
    co_return listing;
}

QCoro::Task<int> run(int sandboxes, int pauses, int latencyMs, int concurrency)
{
    QNetworkAccessManager network;
    double listRatio = 0;
    double cpuPerSandboxUs = 0;
    {
        PaddockTest::FakeE2bProcess server;
        if (!server.start({QStringLiteral("--seed"), QString::number(sandboxes)})) {
            std::fprintf(stderr, "cannot start paddock-fake-e2b: %s\n", qPrintable(server.error()));
            co_return 1;
        }
        HttpClient http(&network);
        ConnectionConfig config;
        config.apiUrl = server.apiUrl().toString();
        config.apiKey = Key.toByteArray();
        ControlPlane client(&http, config);

        // Warm up the connection and both code paths once.
        co_await fetchPagesBare(&network, server.apiUrl());
        co_await client.list({}, {});

        // This machine is shared and noisy: both are measured Rounds times, interleaved, and
        // the medians compared.
        constexpr int Rounds = 15;
        std::vector<double> bareMs;
        std::vector<double> listMs;
        std::vector<double> cpuUs;
        std::vector<double> pagesLeft;
        RawListing bare;
        for (int round = 0; round < Rounds; ++round) {
            bare = co_await fetchPagesBare(&network, server.apiUrl());
            bareMs.push_back(bare.wallMs);
            QElapsedTimer timer;
            timer.start();
            const double cpuBefore = cpuSeconds();
            auto listed = co_await client.list({}, {});
            cpuUs.push_back((cpuSeconds() - cpuBefore) * 1e6 / sandboxes);
            listMs.push_back(double(timer.nsecsElapsed()) / 1e6);
            pagesLeft.push_back(client.lastListingPagesLeft());
            if (!listed || listed->size() != sandboxes) {
                std::fprintf(stderr, "list failed: %s\n",
                             listed ? qPrintable(QStringLiteral("%1 listed").arg(listed->size()))
                                    : qPrintable(listed.error().message));
                co_return 1;
            }
        }
        const double wallMs = median(listMs);
        listRatio = wallMs / median(bareMs);
        // Our CPU includes Qt's network thread, so this is an upper bound.
        cpuPerSandboxUs = median(cpuUs);
        // The parse alone, the best of five passes (the least disturbed by the machine's others).
        double parseMs = 0;
        qsizetype parsedCount = 0;
        for (int pass = 0; pass < 5; ++pass) {
            QElapsedTimer parseTimer;
            parseTimer.start();
            parsedCount = 0;
            for (const HttpResponse &page : bare.bodies)
                parsedCount += parseListPage(page)->sandboxes.size();
            const double ms = double(parseTimer.nsecsElapsed()) / 1e6;
            parseMs = pass == 0 ? ms : std::min(parseMs, ms);
        }
        std::printf("list %d sandboxes (%d pages of %d, by X-Next-Token)\n", sandboxes, bare.pages,
                    ControlPlane::PageSize);
        std::printf("  server building the pages           %9.1f ms\n", bare.serverMs);
        std::printf("  bare fetch of the same pages        %9.1f ms  (median of %d)\n", median(bareMs), Rounds);
        std::printf("  ControlPlane::list                  %9.1f ms  = %.2f x the bare fetch [<= 1.5 x] (median)\n",
                    wallMs, listRatio);
        std::printf("  pages left to parse after the last  %9.0f     (of %d; the rest parsed as they came)\n",
                    median(pagesLeft), bare.pages);
        std::printf("  parsing the pages on one thread     %9.1f ms  (%lld sandboxes, best of 5)\n", parseMs,
                    qlonglong(parsedCount));
        std::printf("  client CPU per sandbox listed       %9.2f us  [<= 20 us]\n", cpuPerSandboxUs);
    }

    {
        PaddockTest::FakeE2bProcess server;
        // A quarter of the seeded sandboxes start paused: seed enough running ones.
        if (!server.start({QStringLiteral("--seed"), QString::number(pauses * 4 / 3 + 4),
                           QStringLiteral("--latency-ms"), QString::number(latencyMs)})) {
            std::fprintf(stderr, "cannot start paddock-fake-e2b: %s\n", qPrintable(server.error()));
            co_return 1;
        }
        HttpClient http(&network);
        http.setMaxConnections(concurrency);
        ConnectionConfig config;
        config.apiUrl = server.apiUrl().toString();
        config.apiKey = Key.toByteArray();
        ControlPlane client(&http, config);
        const QStringList running{QStringLiteral("running")};
        auto listed = co_await client.list(running, {});
        if (!listed) {
            std::fprintf(stderr, "list failed: %s\n", qPrintable(listed.error().message));
            co_return 1;
        }
        QStringList ids;
        for (const SandboxInfo &info : std::as_const(*listed)) {
            if (ids.size() < pauses)
                ids.append(info.sandboxId);
        }
        server.post(QStringLiteral("/_fake/reset-stats"));

        // Built before the co_await (GCC 12 destroys temporaries inside co_await twice).
        const std::function<QCoro::Task<Result<>>(const QString &)> pause = [&client](const QString &id) {
            return client.pause(id);
        };
        QElapsedTimer timer;
        timer.start();
        const auto results = co_await runBounded<QString>(ids, concurrency, pause);
        const double wallMs = double(timer.nsecsElapsed()) / 1e6;
        const auto failed = std::count_if(results.cbegin(), results.cend(), [](const Result<> &r) { return !r; });
        const double bound = 1.3 * std::ceil(double(ids.size()) / concurrency) * latencyMs;
        const int serverMax = server.stats().value(QLatin1String("maxInflight")).toInt();
        std::printf("pause %lld running sandboxes, %d ms latency, concurrency %d\n", qlonglong(ids.size()), latencyMs,
                    concurrency);
        std::printf("  wall time                           %9.1f ms  [<= %.1f ms = 1.3 x ceil(%lld / %d) x %d ms]\n",
                    wallMs, bound, qlonglong(ids.size()), concurrency, latencyMs);
        std::printf("  most requests in flight             %9d (client) %d (server)  [<= %d]\n", http.maxInFlight(),
                    serverMax, concurrency);
        std::printf("  failed                              %9lld\n", qlonglong(failed));
        if (failed > 0)
            co_return 1;
    }
    co_return 0;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QLoggingCategory::setFilterRules(QStringLiteral("paddock.*.info=false"));
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOptions({
        {QStringLiteral("sandboxes"), QStringLiteral("Sandboxes to list (default 10000)."), QStringLiteral("n"),
         QStringLiteral("10000")},
        {QStringLiteral("pause"), QStringLiteral("Sandboxes to pause (default 1000)."), QStringLiteral("n"),
         QStringLiteral("1000")},
        {QStringLiteral("latency-ms"), QStringLiteral("Injected latency for the pauses (default 50)."),
         QStringLiteral("ms"), QStringLiteral("50")},
        {QStringLiteral("concurrency"), QStringLiteral("Pauses in flight at once (default 16)."), QStringLiteral("n"),
         QStringLiteral("16")},
    });
    parser.process(app);
    return QCoro::waitFor(
        run(parser.value(QStringLiteral("sandboxes")).toInt(), parser.value(QStringLiteral("pause")).toInt(),
            parser.value(QStringLiteral("latency-ms")).toInt(), parser.value(QStringLiteral("concurrency")).toInt()));
}
