// execd's command stream as the client reads it: lines cut across chunks, exit codes from the
// terminal events, the endpoint headers (and never the API key), and a stream that goes silent;
// upload bodies whose file names cannot break their headers.

#include "backends/opensandbox/execdclient.h"
#include "scriptedhttpserver.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

using namespace Paddock;
using namespace Paddock::OpenSandbox;
using namespace PaddockTest;
using namespace std::chrono_literals;

namespace {

QByteArray stream(const QByteArray &events)
{
    return "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n" + events;
}

struct Fixture
{
    explicit Fixture(std::chrono::milliseconds pingInterval = 3s)
        : http(&network, RetryPolicy{1, 10ms, 2.0, 10ms})
        , client(&network, &http,
                 ExecdTarget::fromEndpoint(Endpoint{QStringLiteral("127.0.0.1:%1/proxy/44772").arg(server.serverPort()),
                                                    {{"OpenSandbox-Secure-Access", "tok"}}},
                                           QStringLiteral("http")),
                 pingInterval)
    {
    }
    ScriptedHttpServer server;
    QNetworkAccessManager network;
    HttpClient http;
    ExecdClient client;
};

} // namespace

class TestExecdClient final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void runStreamsLinesAndReadsTheExitCode()
    {
        Fixture f;
        f.server.script.enqueue(stream(R"({"type":"init","text":"cmd-1","timestamp":1}

{"type":"stdout","text":"hel","timestamp":2}

{"type":"stdout","text":"lo\nwor","timestamp":3}

{"type":"ping","text":"pong","timestamp":4}

{"type":"stderr","text":"oops\n","timestamp":5}

{"type":"stdout","text":"ld","timestamp":6}

{"type":"error","error":{"ename":"CommandExecError","evalue":"4","traceback":[]},"timestamp":7}

)"));
        QList<std::pair<OutputChannel, QByteArray>> lines;
        const auto result = QCoro::waitFor(f.client.run(
            ExecdCommand{QStringLiteral("sh -c 'echo oops >&2; exit 4'"), QStringLiteral("/workspace"), 600s, {}},
            [&lines](OutputChannel channel, const QByteArray &line) {
                lines.append({channel, line});
            }));
        QVERIFY2(result, qPrintable(result ? QString() : result.error().message));
        QCOMPARE(result->exitCode, 4);
        QCOMPARE(result->stdOut, QByteArray("hello\nworld"));
        QCOMPARE(result->stdErr, QByteArray("oops\n"));
        QCOMPARE(lines.size(), 3);
        QCOMPARE(lines[0], std::pair(OutputChannel::Stdout, QByteArray("hello")));
        QCOMPARE(lines[1], std::pair(OutputChannel::Stderr, QByteArray("oops")));
        QCOMPARE(lines[2], std::pair(OutputChannel::Stdout, QByteArray("world")));

        const QByteArray request = f.server.requests.first();
        QVERIFY(request.startsWith("POST /proxy/44772/command HTTP/1.1\r\n"));
        QVERIFY(request.contains("OpenSandbox-Secure-Access: tok\r\n"));
        QVERIFY(request.contains("Accept: text/event-stream\r\n"));
        QVERIFY(!request.toLower().contains("open-sandbox-api-key"));
        const QJsonObject body = QJsonDocument::fromJson(request.mid(request.indexOf("\r\n\r\n") + 4)).object();
        QCOMPARE(body.value(QLatin1String("command")).toString(), QStringLiteral("sh -c 'echo oops >&2; exit 4'"));
        QCOMPARE(body.value(QLatin1String("cwd")).toString(), QStringLiteral("/workspace"));
        QCOMPARE(body.value(QLatin1String("timeout")).toInteger(), 600000); // milliseconds
        QCOMPARE(body.value(QLatin1String("background")).toBool(true), false);
    }

    void successWithDataPrefixes()
    {
        Fixture f;
        f.server.script.enqueue(
            stream("data: {\"type\":\"init\",\"text\":\"c\"}\n\ndata: {\"type\":\"stdout\",\"text\":\"ok\\n\"}\n\n"
                   "data: {\"type\":\"execution_complete\",\"execution_time\":5}\n\n"));
        const auto result = QCoro::waitFor(f.client.run(ExecdCommand{QStringLiteral("echo ok"), {}, 0ms, {}}, {}));
        QVERIFY(result);
        QCOMPARE(result->exitCode, 0);
        QCOMPARE(result->stdOut, QByteArray("ok\n"));
    }

    // A stream that ends before the command's result is not a failed command: its fate is
    // unknown, and the caller is told so (upstream reads it as exit code 0, or later -1).
    void streamWithoutTerminalEventIsAnError()
    {
        Fixture f;
        f.server.script.enqueue(stream(R"({"type":"init","text":"c"})"
                                       "\n\n"));
        const auto result = QCoro::waitFor(f.client.run(ExecdCommand{QStringLiteral("true"), {}, 0ms, {}, false}, {}));
        QVERIFY(!result);
        QCOMPARE(result.error().kind, Error::Kind::Unreachable);
        QVERIFY2(result.error().message.contains(QLatin1String("broke off")), qPrintable(result.error().message));
    }

    void silentStreamIsDeadAfterThreeMissedPings()
    {
        Fixture f(100ms);
        // Headers and the init event, then nothing, with the connection left open.
        f.server.script.enqueue(
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n{\"type\":\"init\",\"text\":\"c\"}\n\n");
        const auto result = QCoro::waitFor(f.client.run(ExecdCommand{QStringLiteral("sleep 1000"), {}, 0ms, {}}, {}));
        QVERIFY(!result);
        QCOMPARE(result.error().kind, Error::Kind::Timeout);
        QVERIFY2(result.error().message.contains(QLatin1String("went silent (no ping for 0.3 s)")),
                 qPrintable(result.error().message));
    }

    void errorBodiesBeforeTheStream()
    {
        Fixture f;
        f.server.script.enqueue(ScriptedHttpServer::response(
            401, R"({"error":"Unauthorized: invalid or missing header X-EXECD-ACCESS-TOKEN"})"));
        const auto result = QCoro::waitFor(f.client.run(ExecdCommand{QStringLiteral("true"), {}, 0ms, {}}, {}));
        QVERIFY(!result);
        QCOMPARE(
            result.error().message,
            QStringLiteral("HTTP 401: Unauthorized: invalid or missing header X-EXECD-ACCESS-TOKEN (request req-401)"));
    }

    void anExecdThatIsGoneSaysSoAtOnce()
    {
        quint16 port = 0;
        {
            QTcpServer probe;
            QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
            port = probe.serverPort();
        } // nothing listens there now
        QNetworkAccessManager network;
        HttpClient http(&network, RetryPolicy{4, 10ms, 2.0, 10ms});
        ExecdClient client(&network, &http,
                           ExecdTarget::fromEndpoint(Endpoint{QStringLiteral("127.0.0.1:%1/sb").arg(port), {}},
                                                     QStringLiteral("http")));
        QSignalSpy unreachable(&client, &ExecdClient::unreachable);
        // A GET that may be repeated still goes out once: the address is what is wrong.
        const auto listed = QCoro::waitFor(client.listDirectory(QStringLiteral("/workspace/sessions"), 2));
        QVERIFY(!listed);
        QCOMPARE(listed.error().kind, Error::Kind::Unreachable);
        QVERIFY(listed.error().notConnected);
        QCOMPARE(http.attempts(), 1);
        QCOMPARE(unreachable.size(), 1);
        // A command that could not connect never ran, and says so.
        const auto ran = QCoro::waitFor(client.run(ExecdCommand{QStringLiteral("true"), {}, 0s, {}}, {}));
        QVERIFY(!ran);
        QVERIFY2(ran.error().notConnected, qPrintable(ran.error().message));
        QCOMPARE(unreachable.size(), 2);
        const auto pinged = QCoro::waitFor(client.ping());
        QVERIFY(!pinged);
        QCOMPARE(unreachable.size(), 3);
    }

    void pingAnswersReadiness()
    {
        Fixture f;
        f.server.script.enqueue(ScriptedHttpServer::response(200, {}));
        const auto ready = QCoro::waitFor(f.client.ping());
        QVERIFY(ready && *ready);
        QVERIFY(f.server.requests.first().startsWith("GET /proxy/44772/ping HTTP/1.1\r\n"));
        QVERIFY(f.server.requests.first().contains("OpenSandbox-Secure-Access: tok\r\n"));
    }

    // A bounded read asks for its bytes as a Range; a server that ignores the range (200, the
    // whole file) is cut here, and 416 (the offset past the end) reads nothing.
    void rangeDownloadsReadOnlyTheAskedBytes()
    {
        Fixture f;
        f.server.script.enqueue(ScriptedHttpServer::response(206, "wor", "Content-Range: bytes 6-8/11\r\n"));
        f.server.script.enqueue(ScriptedHttpServer::response(200, "hello world"));
        f.server.script.enqueue(ScriptedHttpServer::response(416, {}, "Content-Range: bytes */11\r\n"));
        const QString path = QStringLiteral("/workspace/a b.txt");
        auto ranged = QCoro::waitFor(f.client.downloadRange(path, 6, 3));
        QVERIFY(ranged);
        QCOMPARE(*ranged, QByteArray("wor"));
        QVERIFY2(f.server.requests.at(0).startsWith("GET /proxy/44772/files/download?path=%2Fworkspace%2Fa%20b.txt "),
                 f.server.requests.at(0).constData());
        QVERIFY(f.server.requests.at(0).contains("Range: bytes=6-8\r\n"));
        auto whole = QCoro::waitFor(f.client.downloadRange(path, 6, 3));
        QVERIFY(whole);
        QCOMPARE(*whole, QByteArray("wor"));
        auto past = QCoro::waitFor(f.client.downloadRange(path, 50, 3));
        QVERIFY(past);
        QVERIFY(past->isEmpty());
        QCOMPARE(f.server.requests.size(), 3);
    }

    // A whole download arrives in pieces to its sink; a sink that cannot take more ends it.
    void downloadsStreamToTheirSink()
    {
        Fixture f;
        QByteArray big(200'000, 'x');
        f.server.script.enqueue(ScriptedHttpServer::response(200, big));
        QByteArray got;
        std::function<bool(QByteArrayView)> sink = [&got](QByteArrayView data) {
            got.append(data);
            return true;
        };
        const QString path = QStringLiteral("/workspace/big");
        auto whole = QCoro::waitFor(f.client.downloadTo(path, sink));
        QVERIFY(whole);
        QCOMPARE(got, big);

        f.server.script.enqueue(ScriptedHttpServer::response(200, big));
        std::function<bool(QByteArrayView)> full = [](QByteArrayView) { return false; };
        auto stopped = QCoro::waitFor(f.client.downloadTo(path, full));
        QVERIFY(!stopped);
        QCOMPARE(stopped.error().kind, Error::Kind::Cancelled);

        f.server.script.enqueue(ScriptedHttpServer::response(
            404, R"({"code":"FILE_NOT_FOUND","message":"file not found: /workspace/big"})"));
        auto missing = QCoro::waitFor(f.client.downloadTo(path, sink));
        QVERIFY(!missing);
        QCOMPARE(missing.error().kind, Error::Kind::NotFound);
    }

    // A file name is a quoted header parameter: a quote, a CR or an LF in it would end the
    // value, or the header, early (and let a name add headers of its own). They are escaped as
    // browsers escape them (HTML's multipart/form-data encoding); the path travels in the
    // metadata part's JSON, untouched.
    void uploadFileNamesEscapeQuotesAndLineBreaks()
    {
        const QString path = QStringLiteral("/workspace/a\"b\r\nX-Injected: 1\nc.txt");
        const QByteArray body = uploadBody({UploadFile{path, "data", 644}}, "BOUNDARY");
        QVERIFY2(body.contains("Content-Disposition: form-data; name=\"file\"; "
                               "filename=\"a%22b%0D%0AX-Injected: 1%0Ac.txt\"\r\n"
                               "Content-Type: application/octet-stream\r\n\r\ndata\r\n"),
                 body.constData());
        QVERIFY(!body.contains("\r\nX-Injected"));
        QVERIFY(!body.contains("\nX-Injected"));
        // The metadata part keeps the real path (JSON escapes it).
        QVERIFY(body.contains("{\"mode\":644,\"path\":\"/workspace/a\\\"b\\r\\nX-Injected: 1\\nc.txt\"}"));
        // Each part has its two header lines and nothing else.
        QCOMPARE(body.count("Content-Disposition:"), 2);
        QCOMPARE(body.count("\r\n\r\n"), 2);

        // As sent: one request, the same body.
        Fixture f;
        f.server.script.enqueue(ScriptedHttpServer::response(200, {}));
        QVERIFY(QCoro::waitFor(f.client.upload({UploadFile{path, "data", 644}})));
        QCOMPARE(f.server.requests.size(), 1);
        QVERIFY(f.server.requests.first().contains("filename=\"a%22b%0D%0AX-Injected: 1%0Ac.txt\"\r\n"));
    }

    // A command stream goes outside HttpClient::send(): once the client is closed nothing would
    // end it, so none is sent.
    void noCommandStreamAfterTheClientClosed()
    {
        Fixture f;
        f.http.abortAll();
        const auto ran = QCoro::waitFor(f.client.run(ExecdCommand{QStringLiteral("true"), {}, 0s, {}}, {}));
        QVERIFY(!ran);
        QCOMPARE(ran.error().kind, Error::Kind::Cancelled);
        QVERIFY(f.server.requests.isEmpty());
        QCOMPARE(f.server.findChildren<QTcpSocket *>().size(), 0); // not even a connection
    }
};

QTEST_GUILESS_MAIN(TestExecdClient)
#include "tst_execdclient.moc"
