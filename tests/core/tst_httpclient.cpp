// The OpenSandbox HTTP layer against a scripted HTTP server on 127.0.0.1: retries only where
// they are safe, error bodies turned into messages with the request id, transfer timeouts.

#include "backends/opensandbox/httpclient.h"
#include "scriptedhttpserver.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QNetworkAccessManager>
#include <QTcpServer>
#include <QTest>

#include <memory>

using namespace Paddock;
using namespace Paddock::OpenSandbox;
using namespace PaddockTest;
using namespace std::chrono_literals;

namespace {

RetryPolicy quickRetries(int attempts)
{
    return RetryPolicy{attempts, 10ms, 2.0, 50ms};
}

HttpRequest get(const QUrl &url)
{
    HttpRequest request;
    request.url = url;
    request.retrySafe = true;
    return request;
}

} // namespace

class TestHttpClient final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void successCarriesBodyAndRequestId()
    {
        ScriptedHttpServer server;
        server.script.enqueue(ScriptedHttpServer::response(200, R"({"items":[]})"));
        QNetworkAccessManager network;
        HttpClient client(&network, quickRetries(3));
        HttpRequest request = get(server.url(QStringLiteral("/v1/sandboxes")));
        request.headers.append(std::pair<QByteArray, QByteArray>("OPEN-SANDBOX-API-KEY", "secret"));
        const auto response = QCoro::waitFor(client.send(request));
        QVERIFY(response);
        QCOMPARE(response->status, 200);
        QCOMPARE(response->body, QByteArray(R"({"items":[]})"));
        QCOMPARE(response->requestId, QStringLiteral("req-200"));
        QVERIFY(server.requests.first().contains("OPEN-SANDBOX-API-KEY: secret\r\n"));
    }

    void safeRequestsAreRetriedOnBusyAnswers()
    {
        ScriptedHttpServer server;
        server.script.enqueue(ScriptedHttpServer::response(503, R"({"code":"X","message":"busy"})"));
        server.script.enqueue(ScriptedHttpServer::response(502, "bad gateway"));
        server.script.enqueue(ScriptedHttpServer::response(429, "{}", "Retry-After: 0\r\n"));
        server.script.enqueue(ScriptedHttpServer::response(200, "{}"));
        QNetworkAccessManager network;
        HttpClient client(&network, quickRetries(5));
        const auto response = QCoro::waitFor(client.send(get(server.url(QStringLiteral("/v1/sandboxes/a")))));
        QVERIFY(response);
        QCOMPARE(client.attempts(), 4);
        QCOMPARE(server.requests.size(), 4);
    }

    void createIsNeverRetried()
    {
        ScriptedHttpServer server;
        server.script.enqueue(
            ScriptedHttpServer::response(503, R"({"code":"GENERAL::UNAVAILABLE","message":"try later"})"));
        server.script.enqueue(ScriptedHttpServer::response(202, "{}"));
        QNetworkAccessManager network;
        HttpClient client(&network, quickRetries(5));
        HttpRequest create;
        create.method = "POST";
        create.url = server.url(QStringLiteral("/v1/sandboxes"));
        create.body = R"({"image":{"uri":"python:3.11-slim"}})";
        const auto response = QCoro::waitFor(client.send(create));
        QVERIFY(!response);
        QCOMPARE(client.attempts(), 1);
        QCOMPARE(response.error().message,
                 QStringLiteral("HTTP 503 GENERAL::UNAVAILABLE: try later (request req-503)"));
        QVERIFY(server.requests.first().startsWith("POST /v1/sandboxes HTTP/1.1"));
        QVERIFY(server.requests.first().contains("Content-Type: application/json"));
    }

    void errorsNameStatusCodeMessageAndRequestId()
    {
        ScriptedHttpServer server;
        server.script.enqueue(ScriptedHttpServer::response(
            404, R"({"code":"DOCKER::SANDBOX_NOT_FOUND","message":"Sandbox s1 not found"})"));
        server.script.enqueue(
            ScriptedHttpServer::response(409, R"({"code":"DOCKER::SANDBOX_NOT_RUNNING","message":"not running"})"));
        server.script.enqueue(ScriptedHttpServer::response(
            422, R"({"detail":[{"loc":["query","pageSize"],"msg":"too big","type":"x"}]})"));
        QNetworkAccessManager network;
        HttpClient client(&network, quickRetries(3));
        auto result = QCoro::waitFor(client.send(get(server.url(QStringLiteral("/v1/sandboxes/s1")))));
        QCOMPARE(result.error().kind, Error::Kind::NotFound);
        QCOMPARE(result.error().message,
                 QStringLiteral("HTTP 404 DOCKER::SANDBOX_NOT_FOUND: Sandbox s1 not found (request req-404)"));
        result = QCoro::waitFor(client.send(get(server.url(QStringLiteral("/v1/sandboxes/s1/pause")))));
        QCOMPARE(result.error().kind, Error::Kind::Conflict);
        result = QCoro::waitFor(client.send(get(server.url(QStringLiteral("/v1/sandboxes?pageSize=500")))));
        QCOMPARE(result.error().kind, Error::Kind::Backend);
        QCOMPARE(result.error().httpStatus, 422);
        QVERIFY(result.error().message.contains(QLatin1String("HTTP 422 VALIDATION_ERROR: query.pageSize: too big")));
        QCOMPARE(client.attempts(), 3); // 4xx are never retried
    }

    void aClientThatGoesAwayEndsTheWaitBetweenRetries()
    {
        // A request waiting for its next attempt (the server is down) when its client is
        // destroyed ends then, as cancelled, instead of waking later into the freed client.
        quint16 port = 0;
        {
            QTcpServer probe;
            QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
            port = probe.serverPort();
        }
        QNetworkAccessManager network;
        auto client = std::make_unique<HttpClient>(&network, RetryPolicy{5, 60'000ms, 2.0, 60'000ms});
        auto sending = client->send(get(QUrl(QStringLiteral("http://127.0.0.1:%1/v1/sandboxes").arg(port))));
        QTRY_COMPARE(client->sleepingCount(), 1); // refused once; the next attempt is a minute away
        QCOMPARE(client->attempts(), 1);
        QVERIFY(!sending.isReady());
        client.reset();
        QVERIFY(sending.isReady());
        const auto result = QCoro::waitFor(sending);
        QVERIFY(!result);
        QCOMPARE(result.error().kind, Error::Kind::Cancelled);
    }

    void connectionRefusedIsRetriedThenReported()
    {
        quint16 port = 0;
        {
            QTcpServer probe;
            QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
            port = probe.serverPort();
        } // closed again: nothing listens there now
        QNetworkAccessManager network;
        HttpClient client(&network, quickRetries(3));
        const auto result =
            QCoro::waitFor(client.send(get(QUrl(QStringLiteral("http://127.0.0.1:%1/v1/sandboxes").arg(port)))));
        QVERIFY(!result);
        QCOMPARE(client.attempts(), 3);
        QCOMPARE(result.error().kind, Error::Kind::Unreachable);
        QVERIFY2(result.error().message.contains(QLatin1String("GET http://127.0.0.1")),
                 qPrintable(result.error().message));
        QVERIFY(result.error().notConnected); // it never left: safe to send again, elsewhere too

        // execd's requests are not retried when nothing listens: the caller looks for the new
        // address instead.
        HttpRequest elsewhere = get(QUrl(QStringLiteral("http://127.0.0.1:%1/ping").arg(port)));
        elsewhere.retryNotConnected = false;
        const auto once = QCoro::waitFor(client.send(elsewhere));
        QVERIFY(!once);
        QCOMPARE(client.attempts(), 4);
        QVERIFY(once.error().notConnected);
    }

    // Qt's HTTP layer sends a request again on its own when the server closes the connection
    // before answering. For a create that would be a second sandbox: a request that is not
    // safe to repeat goes out exactly once, and the caller learns that its outcome is unknown.
    void unsafeRequestIsNeverSentTwiceBehindOurBack()
    {
        ScriptedHttpServer server;
        server.script.enqueue(ScriptedHttpServer::response(200, R"({"items":[]})"));
        server.script.enqueue(ScriptedHttpServer::drop());
        server.script.enqueue(ScriptedHttpServer::response(202, R"({"id":"second"})"));
        server.script.enqueue(ScriptedHttpServer::response(202, R"({"id":"third"})"));
        QNetworkAccessManager network;
        HttpClient client(&network, quickRetries(3));
        // A first request leaves a kept-alive connection for the create to reuse.
        QVERIFY(QCoro::waitFor(client.send(get(server.url(QStringLiteral("/v1/sandboxes"))))));
        HttpRequest create;
        create.method = "POST";
        create.url = server.url(QStringLiteral("/v1/sandboxes"));
        create.body = R"({"image":{"uri":"python:3.11-slim"}})";
        const auto result = QCoro::waitFor(client.send(create));
        QVERIFY(!result);
        QCOMPARE(result.error().kind, Error::Kind::Unreachable);
        QCOMPARE(server.requests.size(), 2);
        QVERIFY(server.requests.at(1).startsWith("POST /v1/sandboxes"));
        QVERIFY(server.requests.at(1).endsWith(R"({"image":{"uri":"python:3.11-slim"}})"));

        // Bodies still arrive whole on a fresh connection.
        const auto again = QCoro::waitFor(client.send(create));
        QVERIFY2(again, qPrintable(again ? QString() : again.error().message));
        QCOMPARE(again->body, QByteArray(R"({"id":"second"})"));
        QVERIFY(server.requests.at(2).endsWith(R"({"image":{"uri":"python:3.11-slim"}})"));
    }

    // The owner going away ends every request at once, instead of leaving coroutines waiting on
    // replies that the network manager deletes.
    void abortAllEndsWhatIsInFlight()
    {
        ScriptedHttpServer server;
        server.script.enqueue(QByteArray()); // never answers
        QNetworkAccessManager network;
        HttpClient client(&network, quickRetries(3));
        auto task = client.send(get(server.url(QStringLiteral("/v1/sandboxes"))));
        QTRY_COMPARE(server.requests.size(), 1);
        client.abortAll();
        const auto result = QCoro::waitFor(std::move(task));
        QVERIFY(!result);
        QCOMPARE(result.error().kind, Error::Kind::Cancelled);
        QCOMPARE(client.attempts(), 1); // not retried
        const auto after = QCoro::waitFor(client.send(get(server.url(QStringLiteral("/v1/sandboxes")))));
        QCOMPARE(after.error().kind, Error::Kind::Cancelled);
    }

    void silentServerHitsTheTransferTimeout()
    {
        ScriptedHttpServer server;
        server.script.enqueue(QByteArray()); // never answers
        server.script.enqueue(QByteArray());
        QNetworkAccessManager network;
        HttpClient client(&network, quickRetries(2));
        HttpRequest request = get(server.url(QStringLiteral("/v1/sandboxes")));
        request.transferTimeout = 200ms;
        const auto result = QCoro::waitFor(client.send(request));
        QVERIFY(!result);
        QCOMPARE(client.attempts(), 2);
        QCOMPARE(result.error().kind, Error::Kind::Unreachable);
        QVERIFY2(result.error().message.contains(QLatin1String("no answer within 0.2 s")),
                 qPrintable(result.error().message));
    }

    void retryAfterValues()
    {
        const QDateTime now(QDate(2026, 10, 21), QTime(7, 27, 0), Qt::UTC);
        QCOMPARE(retryAfterDelay("3", now), std::optional(3000ms));
        QCOMPARE(retryAfterDelay(" 0 ", now), std::optional(0ms));
        QCOMPARE(retryAfterDelay("Wed, 21 Oct 2026 07:28:00 GMT", now), std::optional(60'000ms));
        QCOMPARE(retryAfterDelay("Wed, 21 Oct 2026 07:00:00 GMT", now), std::optional(0ms));
        QCOMPARE(retryAfterDelay("", now), std::nullopt);
        QCOMPARE(retryAfterDelay("-5", now), std::nullopt);
        QCOMPARE(retryAfterDelay("soon", now), std::nullopt);
    }
};

QTEST_GUILESS_MAIN(TestHttpClient)
#include "tst_httpclient.moc"
