// The core's HTTP layer against a scripted HTTP server on 127.0.0.1: retries only where
// they are safe, error bodies turned into messages with the request id, transfer timeouts,
// Retry-After in all its forms.

#include "backends/opensandbox/http.h"
#include "bulk.h"
#include "canceltoken.h"
#include "http/httpclient.h"
#include "scriptedhttpserver.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QLocale>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QTcpServer>
#include <QTest>
#include <QTimeZone>

#include <limits>
#include <memory>

using namespace Paddock;
using namespace Paddock::Http;
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
        client.setErrorDecoder(OpenSandbox::decodeHttpError);
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
        client.setErrorDecoder(OpenSandbox::decodeHttpError);
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

    // A retry-safe DELETE whose connection closes after it was sent may have run: its 404 on the
    // retry says so (Kubernetes' kill then counts it as deleted). After answers that say the
    // request did not run (503, 429), a 404 is a plain 404.
    void aRetriedRequestSaysWhetherAnEarlierAttemptMayHaveRun()
    {
        ScriptedHttpServer server;
        server.script.enqueue(ScriptedHttpServer::response(200, R"({"items":[]})"));
        server.script.enqueue(ScriptedHttpServer::drop());
        server.script.enqueue(ScriptedHttpServer::response(404, R"({"kind":"Status","code":404})"));
        server.script.enqueue(ScriptedHttpServer::response(503, "{}"));
        server.script.enqueue(ScriptedHttpServer::response(429, "{}", "Retry-After: 0\r\n"));
        server.script.enqueue(ScriptedHttpServer::response(404, R"({"kind":"Status","code":404})"));
        server.script.enqueue(ScriptedHttpServer::response(504, "{}"));
        server.script.enqueue(ScriptedHttpServer::response(404, R"({"kind":"Status","code":404})"));
        QNetworkAccessManager network;
        HttpClient client(&network, quickRetries(4));
        // A first request leaves a kept-alive connection for the DELETE to reuse: the case where
        // Qt would otherwise send the body again itself.
        QVERIFY(QCoro::waitFor(client.send(get(server.url(QStringLiteral("/api/v1/pods"))))));
        HttpRequest remove;
        remove.method = "DELETE";
        remove.url = server.url(QStringLiteral("/api/v1/namespaces/agentscope/pods/as-ws-a"));
        remove.retrySafe = true;
        remove.body = R"({"kind":"DeleteOptions","apiVersion":"v1"})";
        auto result = QCoro::waitFor(client.send(remove));
        QVERIFY(!result);
        QCOMPARE(result.error().kind, Error::Kind::NotFound);
        QVERIFY(result.error().earlierAttemptMayHaveRun);
        QCOMPARE(client.attempts(), 3); // the GET, the dropped DELETE, its retry: not Qt's own resend

        result = QCoro::waitFor(client.send(remove));
        QCOMPARE(result.error().kind, Error::Kind::NotFound);
        QVERIFY(!result.error().earlierAttemptMayHaveRun);

        result = QCoro::waitFor(client.send(remove));
        QCOMPARE(result.error().kind, Error::Kind::NotFound);
        QVERIFY(result.error().earlierAttemptMayHaveRun); // a gateway timeout: it may have reached the server
        QCOMPARE(server.requests.size(), 8);
        for (int i = 1; i < server.requests.size(); ++i)
            QVERIFY(server.requests.at(i).endsWith(R"({"kind":"DeleteOptions","apiVersion":"v1"})"));
    }

    void aRequestWithoutABodySendsNone()
    {
        // GET and DELETE go without an upload device: no Content-Length, no body (a device, even
        // an empty one, cost a listing of 10,000 E2B sandboxes 13% of its time). A POST or PUT
        // without a body still says Content-Length: 0, which servers may insist on (411).
        ScriptedHttpServer server;
        for (int i = 0; i < 4; ++i)
            server.script.enqueue(ScriptedHttpServer::response(200, "{}"));
        QNetworkAccessManager network;
        HttpClient client(&network, quickRetries(1));
        for (const QByteArray &method :
             {QByteArray("GET"), QByteArray("DELETE"), QByteArray("POST"), QByteArray("PUT")}) {
            HttpRequest request = get(server.url(QStringLiteral("/v1/things")));
            request.method = method;
            const auto response = QCoro::waitFor(client.send(request));
            QVERIFY2(response, method.constData());
        }
        QCOMPARE(server.requests.size(), 4);
        for (int i = 0; i < 2; ++i) {
            const QByteArray sent = server.requests.at(i).toLower();
            QVERIFY2(!sent.contains("content-length"), server.requests.at(i).constData());
            QVERIFY2(sent.endsWith("\r\n\r\n"), server.requests.at(i).constData());
        }
        QVERIFY(server.requests.at(0).startsWith("GET /v1/things HTTP/1.1"));
        QVERIFY(server.requests.at(1).startsWith("DELETE /v1/things HTTP/1.1"));
        for (int i = 2; i < 4; ++i)
            QVERIFY2(server.requests.at(i).toLower().contains("content-length: 0\r\n"),
                     server.requests.at(i).constData());
    }

    // The managers the client makes itself (beyond six requests at once, and in place of one
    // retired) go through the given one's proxy, a kubeconfig's proxy-url, like it.
    void everyManagerGoesThroughTheGivenProxy()
    {
        ScriptedHttpServer proxy;
        for (int i = 0; i < 12; ++i)
            proxy.script.enqueue(QByteArray()); // held: all twelve in flight at once
        QNetworkAccessManager network;
        network.setProxy(QNetworkProxy(QNetworkProxy::HttpProxy, QStringLiteral("127.0.0.1"), proxy.serverPort()));
        auto client = std::make_unique<HttpClient>(&network, quickRetries(2));
        client->setMaxConnections(12);
        std::vector<QCoro::Task<Result<HttpResponse>>> sending;
        for (int i = 0; i < 12; ++i)
            sending.push_back(
                client->send(get(QUrl(QStringLiteral("http://paddock-target.invalid/v1/sandboxes/%1").arg(i)))));
        QTRY_COMPARE(proxy.requests.size(), 12);
        for (const QByteArray &request : std::as_const(proxy.requests))
            QVERIFY2(request.startsWith("GET http://paddock-target.invalid/v1/sandboxes/"), request.constData());
        client.reset(); // ends the twelve
        for (auto &task : sending)
            QVERIFY(task.isReady());
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

    // A request's own token ends it (a read held by a paused sandbox's execd) and leaves the
    // client's other requests alone; a cancelled token ends the wait before a retry too.
    void aCancelledRequestEndsAloneAndAtOnce()
    {
        ScriptedHttpServer server;
        server.script.enqueue(QByteArray()); // never answers: the held read
        server.script.enqueue(QByteArray()); // never answers: the other request
        QNetworkAccessManager network;
        HttpClient client(&network, quickRetries(3));
        HttpRequest held = get(server.url(QStringLiteral("/files/info")));
        held.cancel = std::make_shared<CancelToken>();
        HttpRequest other = get(server.url(QStringLiteral("/v1/sandboxes")));
        other.transferTimeout = 0ms;
        auto reading = client.send(held);
        auto sending = client.send(other);
        QTRY_COMPARE(server.requests.size(), 2);
        held.cancel->cancel();
        QVERIFY(!reading.isReady()); // ended from the event loop, not inside cancel()
        const auto result = QCoro::waitFor(std::move(reading));
        QVERIFY(!result);
        QCOMPARE(result.error().kind, Error::Kind::Cancelled);
        QCOMPARE(client.attempts(), 2); // not retried
        QVERIFY(!sending.isReady()); // the other one is still waiting for its answer
        client.abortAll();
        QCOMPARE(QCoro::waitFor(std::move(sending)).error().kind, Error::Kind::Cancelled);
    }

    void aCancelledRequestDoesNotWaitForItsNextAttempt()
    {
        quint16 port = 0;
        {
            QTcpServer probe;
            QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
            port = probe.serverPort();
        }
        QNetworkAccessManager network;
        HttpClient client(&network, RetryPolicy{5, 60'000ms, 2.0, 60'000ms});
        HttpRequest request = get(QUrl(QStringLiteral("http://127.0.0.1:%1/v1/sandboxes").arg(port)));
        request.cancel = std::make_shared<CancelToken>();
        auto sending = client.send(request);
        QTRY_COMPARE(client.sleepingCount(), 1); // refused once; the next attempt is a minute away
        request.cancel->cancel();
        const auto result = QCoro::waitFor(std::move(sending));
        QVERIFY(!result);
        QCOMPARE(result.error().kind, Error::Kind::Cancelled);
        QCOMPARE(client.attempts(), 1);
        QCOMPARE(client.sleepingCount(), 0);
        // Cancelled before it is sent, it is not sent.
        const auto after = QCoro::waitFor(client.send(request));
        QCOMPARE(after.error().kind, Error::Kind::Cancelled);
        QCOMPARE(client.attempts(), 1);
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

    void retryAfterValues_data()
    {
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<QDateTime>("now");
        QTest::addColumn<qint64>("delayMs"); // -1: not a valid value
        const QDateTime now(QDate(2026, 10, 21), QTime(7, 27, 0), QTimeZone::utc());
        QTest::newRow("delta-seconds") << QByteArray("3") << now << qint64(3000);
        QTest::newRow("delta-seconds, spaces") << QByteArray(" 0 ") << now << qint64(0);
        QTest::newRow("delta-seconds, too long for 64 bits")
            << QByteArray("99999999999999999999") << now << std::numeric_limits<qint64>::max();
        // RFC 9110 §5.6.7: IMF-fixdate, the obsolete RFC 850 form, asctime.
        QTest::newRow("IMF-fixdate") << QByteArray("Wed, 21 Oct 2026 07:28:00 GMT") << now << qint64(60'000);
        QTest::newRow("IMF-fixdate, past") << QByteArray("Wed, 21 Oct 2026 07:00:00 GMT") << now << qint64(0);
        QTest::newRow("RFC 850") << QByteArray("Wednesday, 21-Oct-26 07:28:30 GMT") << now << qint64(90'000);
        QTest::newRow("asctime") << QByteArray("Wed Oct 21 07:27:45 2026") << now << qint64(45'000);
        QTest::newRow("asctime, one-digit day") << QByteArray("Sun Nov  6 08:49:37 1994") << now << qint64(0);
        // A two-digit year more than 50 years ahead is the most recent past year with those
        // digits (curl alone would take 71 for 1971 and 69 for 2069, whatever the date).
        QTest::newRow("RFC 850, 45 years ahead")
            << QByteArray("Monday, 21-Oct-71 07:27:10 GMT") << now
            << qint64(now.msecsTo(QDateTime(QDate(2071, 10, 21), QTime(7, 27, 10), QTimeZone::utc())));
        QTest::newRow("RFC 850, 51 years ahead: the past")
            << QByteArray("Monday, 21-Oct-77 07:27:10 GMT") << now << qint64(0);
        const QDateTime late(QDate(2090, 1, 1), QTime(0, 0, 0), QTimeZone::utc());
        QTest::newRow("RFC 850, in the next century")
            << QByteArray("Monday, 01-Jan-30 00:00:10 GMT") << late
            << qint64(late.msecsTo(QDateTime(QDate(2130, 1, 1), QTime(0, 0, 10), QTimeZone::utc())));
        QTest::newRow("empty") << QByteArray("") << now << qint64(-1);
        QTest::newRow("negative") << QByteArray("-5") << now << qint64(-1);
        QTest::newRow("words") << QByteArray("soon") << now << qint64(-1);
        QTest::newRow("a date without a year") << QByteArray("Wed, 21 Oct 07:28:00 GMT") << now << qint64(-1);
    }

    void retryAfterValues()
    {
        QFETCH(QByteArray, value);
        QFETCH(QDateTime, now);
        QFETCH(qint64, delayMs);
        const auto delay = retryAfterDelay(value, now);
        if (delayMs < 0) {
            QCOMPARE(delay, std::nullopt);
        } else {
            QVERIFY(delay);
            QCOMPARE(delay->count(), delayMs);
        }
    }

    // A 503 whose Retry-After is an RFC 850 date is waited for as long as it says.
    void retryAfterDateIsHonoured()
    {
        ScriptedHttpServer server;
        const QDateTime soon = QDateTime::currentDateTimeUtc().addSecs(2);
        const QByteArray rfc850 =
            QLocale::c().toString(soon, QStringLiteral("dddd, dd-MMM-yy HH:mm:ss 'GMT'")).toLatin1();
        server.script.enqueue(ScriptedHttpServer::response(503, "{}", "Retry-After: " + rfc850 + "\r\n"));
        server.script.enqueue(ScriptedHttpServer::response(200, "{}"));
        QNetworkAccessManager network;
        HttpClient client(&network, quickRetries(2));
        auto sending = client.send(get(server.url(QStringLiteral("/v1/sandboxes"))));
        QTRY_COMPARE(client.sleepingCount(), 1);
        QCOMPARE(server.requests.size(), 1);
        const auto result = QCoro::waitFor(std::move(sending));
        QVERIFY(result);
        // Not the policy's 20 ms: the second attempt came once the date had come (to the second).
        QVERIFY2(QDateTime::currentDateTimeUtc() >= soon.addMSecs(-soon.time().msec()),
                 qPrintable(QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)));
    }

    // Without a protocol's decoder an error answer still names its status and what it said.
    void theDefaultDecoderNamesTheStatusAndTheBody()
    {
        ScriptedHttpServer server;
        server.script.enqueue(ScriptedHttpServer::response(403, "forbidden by policy\n"));
        server.script.enqueue(ScriptedHttpServer::response(502, ""));
        QNetworkAccessManager network;
        HttpClient client(&network, quickRetries(1));
        auto result = QCoro::waitFor(client.send(get(server.url(QStringLiteral("/x")))));
        QCOMPARE(result.error().kind, Error::Kind::Backend);
        QCOMPARE(result.error().httpStatus, 403);
        QCOMPARE(result.error().message, QStringLiteral("HTTP 403: forbidden by policy"));
        result = QCoro::waitFor(client.send(get(server.url(QStringLiteral("/x")))));
        QCOMPARE(result.error().message, QStringLiteral("HTTP 502"));
    }

    // The client over this one decides what an error answer means, from the whole response.
    void theInstalledDecoderSeesTheWholeResponse()
    {
        ScriptedHttpServer server;
        server.script.enqueue(ScriptedHttpServer::response(409, R"({"reason":"AlreadyExists"})", "X-Extra: 1\r\n"));
        QNetworkAccessManager network;
        HttpClient client(&network, quickRetries(1));
        HttpResponse seen;
        client.setErrorDecoder([&seen](const HttpResponse &response) {
            seen = response;
            return Error::conflict(QStringLiteral("decoded"));
        });
        const auto result = QCoro::waitFor(client.send(get(server.url(QStringLiteral("/x")))));
        QCOMPARE(result.error().message, QStringLiteral("decoded"));
        QCOMPARE(seen.status, 409);
        QCOMPARE(seen.body, QByteArray(R"({"reason":"AlreadyExists"})"));
        QCOMPARE(seen.headers.value("x-extra"), QByteArray("1"));
    }

    // A stream hands its body on as it arrives, not when it ends, and ends with the server's end.
    void aStreamDeliversDataAsItArrives()
    {
        ScriptedHttpServer server;
        server.script.enqueue("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                              "Transfer-Encoding: chunked\r\n\r\n6\r\nfirst\n\r\n");
        QNetworkAccessManager network;
        HttpClient client(&network, quickRetries(3));
        QByteArray received;
        HttpRequest request = get(server.url(QStringLiteral("/watch")));
        request.transferTimeout = 0ms;
        auto streaming = client.stream(request, [&received](QByteArrayView data) { received += data.toByteArray(); });
        QTRY_COMPARE(received, QByteArray("first\n"));
        QVERIFY(server.lastSocket);
        server.lastSocket->write("7\r\nsecond\n\r\n0\r\n\r\n");
        const auto result = QCoro::waitFor(std::move(streaming));
        QVERIFY2(result, qPrintable(result ? QString() : result.error().message));
        QCOMPARE(result->status, 200);
        QCOMPARE(received, QByteArray("first\nsecond\n"));
        QCOMPARE(server.requests.size(), 1);
    }

    void aStreamRefusedIsDecodedLikeAnyAnswer()
    {
        ScriptedHttpServer server;
        server.script.enqueue(ScriptedHttpServer::response(404, "no such pod"));
        QNetworkAccessManager network;
        HttpClient client(&network, quickRetries(3));
        QByteArray received;
        const auto result =
            QCoro::waitFor(client.stream(get(server.url(QStringLiteral("/log"))),
                                         [&received](QByteArrayView data) { received += data.toByteArray(); }));
        QCOMPARE(result.error().kind, Error::Kind::NotFound);
        QCOMPARE(result.error().message, QStringLiteral("HTTP 404: no such pod"));
        QVERIFY(received.isEmpty()); // an error body is not stream data
        QCOMPARE(client.attempts(), 1); // never retried
    }

    // A stream cut off by the server after a good start is a dropped connection, not an answer.
    void aStreamCutShortIsUnreachable()
    {
        ScriptedHttpServer server;
        server.script.enqueue("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nab\n\r\n");
        QNetworkAccessManager network;
        HttpClient client(&network, quickRetries(3));
        QByteArray received;
        HttpRequest request = get(server.url(QStringLiteral("/watch")));
        request.transferTimeout = 0ms;
        auto streaming = client.stream(request, [&received](QByteArrayView data) { received += data.toByteArray(); });
        QTRY_COMPARE(received, QByteArray("ab\n"));
        server.lastSocket->abort();
        const auto result = QCoro::waitFor(std::move(streaming));
        QVERIFY(!result);
        QCOMPARE(result.error().kind, Error::Kind::Unreachable);
    }

    // A silent stream ends soon after it is cancelled; abortAll() ends one at once.
    void aStreamEndsWhenCancelledOrAborted()
    {
        ScriptedHttpServer server;
        server.script.enqueue("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
        server.script.enqueue("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
        QNetworkAccessManager network;
        HttpClient client(&network, quickRetries(3));
        HttpRequest request = get(server.url(QStringLiteral("/watch")));
        request.transferTimeout = 0ms;
        auto cancel = std::make_shared<CancelToken>();
        auto first = client.stream(request, {}, cancel);
        QTRY_COMPARE(server.requests.size(), 1);
        cancel->cancel();
        auto result = QCoro::waitFor(std::move(first));
        QCOMPARE(result.error().kind, Error::Kind::Cancelled);

        auto second = client.stream(request, {});
        QTRY_COMPARE(server.requests.size(), 2);
        client.abortAll();
        result = QCoro::waitFor(std::move(second));
        QCOMPARE(result.error().kind, Error::Kind::Cancelled);
        QCOMPARE(result.error().message, HttpClient::closedError().message);
    }

    // The client's TLS settings go on every request it makes (a kubeconfig's CA and certificate).
    void tlsSettingsGoOnEveryRequest()
    {
        QNetworkAccessManager network;
        HttpClient client(&network);
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        tls.setPeerVerifyMode(QSslSocket::VerifyNone);
        tls.setCaCertificates({});
        client.setSslConfiguration(tls);
        client.setPeerVerifyName(QStringLiteral("api.internal"));
        const QNetworkRequest request = client.networkRequest(get(QUrl(QStringLiteral("https://127.0.0.1:1/api"))));
        QCOMPARE(request.sslConfiguration().peerVerifyMode(), QSslSocket::VerifyNone);
        QVERIFY(request.sslConfiguration().caCertificates().isEmpty());
        QCOMPARE(request.peerVerifyName(), QStringLiteral("api.internal"));
    }
};

QTEST_GUILESS_MAIN(TestHttpClient)
#include "tst_httpclient.moc"
