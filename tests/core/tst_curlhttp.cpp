// CurlHttpClient (the Docker backend's HTTP over libcurl) against scripted HTTP servers on loopback
// only: a unix socket (QLocalServer) and 127.0.0.1 (QTcpServer), each writing raw HTTP. What goes
// over the wire, statuses as responses, chunked and close-delimited bodies, streaming, many
// requests at once, timeouts, connection failures with their messages, cancellation, DOCKER_HOST.

#include "backends/docker/curlhttp.h"
#include "canceltoken.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QFile>
#include <QLocalServer>
#include <QLocalSocket>
#include <QLoggingCategory>
#include <QPointer>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <optional>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

using namespace Paddock;
using namespace Paddock::Docker;
using namespace std::chrono_literals;

namespace {

struct Received
{
    QByteArray head; // request line and headers, up to and including the blank line
    QByteArray body;
    QPointer<QIODevice> socket; // to answer later

    QByteArray requestLine() const { return head.left(head.indexOf("\r\n")); }
    // The value of a header, or a null QByteArray when it was not sent.
    QByteArray header(const QByteArray &name) const
    {
        for (const QByteArray &line : head.split('\n')) {
            const qsizetype colon = line.indexOf(':');
            if (colon > 0 && line.left(colon).trimmed().toLower() == name.toLower())
                return line.mid(colon + 1).trimmed();
        }
        return {};
    }
};

// An HTTP/1.1 server on a unix socket or on 127.0.0.1 that hands every complete request to
// onRequest (default: 200 with "{}"); the test answers with raw bytes, at once or later.
class TestServer final : public QObject
{
public:
    enum class Kind { Unix, Tcp };

    explicit TestServer(Kind kind)
    {
        if (kind == Kind::Unix) {
            QVERIFY(m_dir.isValid());
            socketPath = m_dir.filePath(QStringLiteral("docker.sock"));
            m_local = std::make_unique<QLocalServer>();
            QObject::connect(m_local.get(), &QLocalServer::newConnection, this, [this] {
                while (QLocalSocket *socket = m_local->nextPendingConnection()) {
                    QObject::connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
                    accept(socket);
                }
            });
            if (!m_local->listen(socketPath))
                qFatal("cannot listen on %s", qPrintable(socketPath));
            address.kind = EngineAddress::Kind::Unix;
            address.socketPath = socketPath;
        } else {
            m_tcp = std::make_unique<QTcpServer>();
            QObject::connect(m_tcp.get(), &QTcpServer::newConnection, this, [this] {
                while (QTcpSocket *socket = m_tcp->nextPendingConnection()) {
                    QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
                    accept(socket);
                }
            });
            if (!m_tcp->listen(QHostAddress::LocalHost, 0))
                qFatal("cannot listen on 127.0.0.1");
            address.kind = EngineAddress::Kind::Tcp;
            address.host = QStringLiteral("127.0.0.1");
            address.port = m_tcp->serverPort();
        }
    }

    static QByteArray response(int status, const QByteArray &body, const QByteArray &extraHeaders = {})
    {
        return "HTTP/1.1 " + QByteArray::number(status)
            + " X\r\nContent-Type: application/json\r\nApi-Version: 1.41\r\nContent-Length: "
            + QByteArray::number(body.size()) + "\r\n" + extraHeaders + "\r\n" + body;
    }

    static void close(QIODevice *socket)
    {
        if (auto *local = qobject_cast<QLocalSocket *>(socket))
            local->disconnectFromServer();
        else if (auto *tcp = qobject_cast<QTcpSocket *>(socket))
            tcp->disconnectFromHost();
    }

    EngineAddress address;
    QString socketPath; // Unix
    std::function<void(const Received &)> onRequest = [](const Received &request) {
        request.socket->write(response(200, "{}"));
    };
    QList<Received> requests;
    int connections = 0;
    int open = 0; // connections not yet closed by the client

private:
    void accept(QIODevice *socket)
    {
        ++connections;
        ++open;
        QObject::connect(socket, &QIODevice::readyRead, this, [this, socket] { onData(socket); });
        QObject::connect(socket, &QObject::destroyed, this, [this] { --open; });
    }

    void onData(QIODevice *socket)
    {
        QByteArray &buffer = m_buffers[socket];
        buffer += socket->readAll();
        for (;;) {
            const qsizetype end = buffer.indexOf("\r\n\r\n");
            if (end < 0)
                return;
            Received request;
            request.head = buffer.left(end + 4);
            request.socket = socket;
            const qsizetype length = request.header("Content-Length").toLongLong();
            if (buffer.size() < end + 4 + length)
                return;
            request.body = buffer.mid(end + 4, length);
            buffer.remove(0, end + 4 + length);
            requests.append(request);
            onRequest(request);
        }
    }

    QTemporaryDir m_dir;
    std::unique_ptr<QLocalServer> m_local;
    std::unique_ptr<QTcpServer> m_tcp;
    QHash<QIODevice *, QByteArray> m_buffers;
};

void addTransports()
{
    QTest::addColumn<bool>("unixSocket");
    QTest::newRow("unix") << true;
    QTest::newRow("tcp") << false;
}

std::unique_ptr<TestServer> makeServer()
{
    QFETCH(bool, unixSocket);
    return std::make_unique<TestServer>(unixSocket ? TestServer::Kind::Unix : TestServer::Kind::Tcp);
}

HttpRequest request(const QByteArray &method, const QByteArray &target, const QByteArray &body = {})
{
    HttpRequest request;
    request.method = method;
    request.target = target;
    request.body = body;
    return request;
}

// A request's outcome as it finishes, for tests that look while it is in flight.
struct Pending
{
    std::optional<Result<HttpResponse>> result;
};

std::shared_ptr<Pending> launch(QCoro::Task<Result<HttpResponse>> task)
{
    auto pending = std::make_shared<Pending>();
    task.then([pending](Result<HttpResponse> result) { pending->result = std::move(result); });
    return pending;
}

} // namespace

class TestCurlHttp final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void get_data() { addTransports(); }
    void get()
    {
        auto server = makeServer();
        server->onRequest = [](const Received &request) {
            request.socket->write(TestServer::response(200, R"([{"Id":"abc"}])"));
        };
        CurlHttpClient client(server->address);
        QCOMPARE(client.address(), server->address);
        const auto response = QCoro::waitFor(client.send(request("GET", "/v1.41/containers/json?all=1")));
        QVERIFY2(response, qPrintable(response ? QString() : response.error().message));
        QCOMPARE(response->status, 200);
        QCOMPARE(response->body, QByteArray(R"([{"Id":"abc"}])"));
        QCOMPARE(response->headers.value("api-version"), QByteArray("1.41"));
        QCOMPARE(response->headers.value("content-type"), QByteArray("application/json"));
        QVERIFY(!response->headers.contains("Api-Version"));

        QCOMPARE(server->requests.size(), 1);
        const Received &received = server->requests.first();
        QCOMPARE(received.requestLine(), QByteArray("GET /v1.41/containers/json?all=1 HTTP/1.1"));
        QVERIFY(!received.header("Host").isEmpty());
        QVERIFY(received.header("Content-Length").isNull());
        QVERIFY(received.header("Content-Type").isNull());
        QVERIFY(received.body.isEmpty());
        QCOMPARE(client.inFlight(), 0);
    }

    void postWithBody_data() { addTransports(); }
    void postWithBody()
    {
        auto server = makeServer();
        server->onRequest = [](const Received &request) {
            request.socket->write(TestServer::response(201, R"({"Id":"abc","Warnings":[]})"));
        };
        CurlHttpClient client(server->address);
        // Larger than 1 KiB: libcurl would wait for "100 Continue" if it asked for one.
        const QByteArray body =
            "{\"Image\":\"busybox\",\"Cmd\":[\"sleep\",\"infinity\"],\"Env\":[\"" + QByteArray(2000, 'x') + "\"]}";
        const auto response =
            QCoro::waitFor(client.send(request("POST", "/v1.41/containers/create?name=paddock-1", body)));
        QVERIFY2(response, qPrintable(response ? QString() : response.error().message));
        QCOMPARE(response->status, 201);
        QCOMPARE(response->body, QByteArray(R"({"Id":"abc","Warnings":[]})"));

        QCOMPARE(server->requests.size(), 1);
        const Received &received = server->requests.first();
        QCOMPARE(received.requestLine(), QByteArray("POST /v1.41/containers/create?name=paddock-1 HTTP/1.1"));
        QCOMPARE(received.header("Content-Type"), QByteArray("application/json"));
        QCOMPARE(received.header("Content-Length"), QByteArray::number(body.size()));
        QVERIFY(received.header("Expect").isNull());
        QVERIFY(received.header("Transfer-Encoding").isNull());
        QCOMPARE(received.body, body);
    }

    void methodsAndContentTypes()
    {
        TestServer server(TestServer::Kind::Unix);
        CurlHttpClient client(server.address);

        // A POST without a body says Content-Length: 0 and no type.
        QVERIFY(QCoro::waitFor(client.send(request("POST", "/v1.41/containers/abc/start"))));
        QCOMPARE(server.requests.last().requestLine(), QByteArray("POST /v1.41/containers/abc/start HTTP/1.1"));
        QCOMPARE(server.requests.last().header("Content-Length"), QByteArray("0"));
        QVERIFY(server.requests.last().header("Content-Type").isNull());

        HttpRequest put = request("PUT", "/v1.41/containers/abc/archive?path=%2Ftmp", "tar bytes");
        put.contentType = "application/x-tar";
        QVERIFY(QCoro::waitFor(client.send(put)));
        QCOMPARE(server.requests.last().requestLine(),
                 QByteArray("PUT /v1.41/containers/abc/archive?path=%2Ftmp HTTP/1.1"));
        QCOMPARE(server.requests.last().header("Content-Type"), QByteArray("application/x-tar"));
        QCOMPARE(server.requests.last().body, QByteArray("tar bytes"));

        QVERIFY(QCoro::waitFor(client.send(request("DELETE", "/v1.41/containers/abc?force=1"))));
        QCOMPARE(server.requests.last().requestLine(), QByteArray("DELETE /v1.41/containers/abc?force=1 HTTP/1.1"));
        QVERIFY(server.requests.last().header("Content-Length").isNull());

        // Kept-alive: one connection served them all, one after the other.
        QCOMPARE(server.requests.size(), 3);
        QCOMPARE(server.connections, 1);
    }

    void errorStatusIsAResponse_data() { addTransports(); }
    void errorStatusIsAResponse()
    {
        auto server = makeServer();
        server->onRequest = [](const Received &request) {
            request.socket->write(TestServer::response(404, R"({"message":"No such container: nope"})"));
        };
        CurlHttpClient client(server->address);
        const auto response = QCoro::waitFor(client.send(request("GET", "/v1.41/containers/nope/json")));
        QVERIFY(response);
        QCOMPARE(response->status, 404);
        QCOMPARE(response->body, QByteArray(R"({"message":"No such container: nope"})"));
    }

    void chunkedResponse_data() { addTransports(); }
    void chunkedResponse()
    {
        auto server = makeServer();
        server->onRequest = [](const Received &request) {
            request.socket->write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
                                  "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n");
        };
        CurlHttpClient client(server->address);
        const auto response = QCoro::waitFor(client.send(request("GET", "/v1.41/containers/abc/logs")));
        QVERIFY(response);
        QCOMPARE(response->status, 200);
        QCOMPARE(response->body, QByteArray("hello world"));
        QCOMPARE(response->headers.value("transfer-encoding"), QByteArray("chunked"));

        QByteArray streamed;
        const auto streamedResponse = QCoro::waitFor(client.stream(
            request("GET", "/v1.41/containers/abc/logs"), [&streamed](QByteArrayView chunk) { streamed += chunk; }));
        QVERIFY(streamedResponse);
        QCOMPARE(streamedResponse->status, 200);
        QCOMPARE(streamed, QByteArray("hello world"));
        QVERIFY(streamedResponse->body.isEmpty());
    }

    // Docker's exec stream: no Content-Length, no chunks; it ends when the server closes.
    void streamEndsAtClose_data() { addTransports(); }
    void streamEndsAtClose()
    {
        auto server = makeServer();
        QPointer<QIODevice> socket;
        server->onRequest = [&socket](const Received &request) {
            socket = request.socket;
            socket->write("HTTP/1.1 200 OK\r\nContent-Type: application/vnd.docker.raw-stream\r\n\r\n");
            socket->write("first|");
        };
        CurlHttpClient client(server->address);
        QList<QByteArray> chunks;
        HttpRequest start = request("POST", "/v1.41/exec/e1/start", R"({"Detach":false,"Tty":false})");
        start.timeout = 0ms;
        const auto pending =
            launch(client.stream(start, [&chunks](QByteArrayView chunk) { chunks.append(chunk.toByteArray()); }));

        QTRY_COMPARE(chunks.join(), QByteArray("first|"));
        QVERIFY(!pending->result);
        QCOMPARE(client.inFlight(), 1);
        socket->write("second|");
        QTRY_COMPARE(chunks.join(), QByteArray("first|second|"));
        QVERIFY(!pending->result);
        socket->write("third");
        QTRY_COMPARE(chunks.join(), QByteArray("first|second|third"));
        QVERIFY(!pending->result);
        QVERIFY(chunks.size() >= 3);

        TestServer::close(socket);
        QTRY_VERIFY(pending->result);
        const Result<HttpResponse> &result = *pending->result;
        QVERIFY2(result, qPrintable(result ? QString() : result.error().message));
        QCOMPARE(result->status, 200);
        QVERIFY(result->body.isEmpty());
        QCOMPARE(result->headers.value("content-type"), QByteArray("application/vnd.docker.raw-stream"));
        QCOMPARE(chunks.join(), QByteArray("first|second|third"));
        QCOMPARE(client.inFlight(), 0);
    }

    // A stream that the engine refuses: its error document is the response's body, not data.
    void streamKeepsErrorBody()
    {
        TestServer server(TestServer::Kind::Unix);
        server.onRequest = [](const Received &request) {
            request.socket->write(TestServer::response(404, R"({"message":"No such exec instance: e1"})"));
        };
        CurlHttpClient client(server.address);
        int calls = 0;
        const auto response = QCoro::waitFor(
            client.stream(request("POST", "/v1.41/exec/e1/start", "{}"), [&calls](QByteArrayView) { ++calls; }));
        QVERIFY(response);
        QCOMPARE(response->status, 404);
        QCOMPARE(response->body, QByteArray(R"({"message":"No such exec instance: e1"})"));
        QCOMPARE(calls, 0);
    }

    // Fifty requests on the wire at once: the server answers none until it holds all fifty.
    void concurrentRequests_data() { addTransports(); }
    void concurrentRequests()
    {
        constexpr int Count = 50;
        auto server = makeServer();
        CurlHttpClient client(server->address);
        QList<Received> held;
        int inFlightWhenAllHeld = -1;
        server->onRequest = [&](const Received &request) {
            held.append(request);
            if (held.size() < Count)
                return;
            inFlightWhenAllHeld = client.inFlight();
            for (const Received &each : std::as_const(held)) {
                const QByteArray name = each.requestLine().split(' ').at(1).split('/').at(3);
                each.socket->write(TestServer::response(204, "", "X-Name: " + name + "\r\n"));
            }
        };
        std::vector<QCoro::Task<Result<HttpResponse>>> tasks;
        for (int i = 0; i < Count; ++i)
            tasks.push_back(client.send(request("POST", "/v1.41/containers/c" + QByteArray::number(i) + "/pause")));
        QCOMPARE(client.inFlight(), Count);
        for (int i = 0; i < Count; ++i) {
            const auto response = QCoro::waitFor(tasks[size_t(i)]);
            QVERIFY2(response, qPrintable(response ? QString() : response.error().message));
            QCOMPARE(response->status, 204);
            QCOMPARE(response->headers.value("x-name"), "c" + QByteArray::number(i));
        }
        QCOMPARE(held.size(), Count);
        QCOMPARE(inFlightWhenAllHeld, Count);
        QCOMPARE(server->connections, Count);
        QCOMPARE(client.inFlight(), 0);
    }

    void timeout_data() { addTransports(); }
    void timeout()
    {
        auto server = makeServer();
        server->onRequest = [](const Received &) {}; // never answers
        CurlHttpClient client(server->address);
        HttpRequest slow = request("GET", "/v1.41/info");
        slow.timeout = 200ms;
        const auto response = QCoro::waitFor(client.send(slow));
        QVERIFY(!response);
        QCOMPARE(response.error().kind, Error::Kind::Timeout);
        QVERIFY2(response.error().message.contains(server->address.display()), qPrintable(response.error().message));
        QVERIFY2(response.error().message.contains(QLatin1String("GET /v1.41/info")),
                 qPrintable(response.error().message));
        QCOMPARE(server->requests.size(), 1);
        QCOMPARE(client.inFlight(), 0);
    }

    void missingSocket()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto address =
            EngineAddress::parse(QStringLiteral("unix://") + dir.filePath(QStringLiteral("nope.sock")));
        QVERIFY(address);
        CurlHttpClient client(*address);
        const auto response = QCoro::waitFor(client.send(request("GET", "/_ping")));
        QVERIFY(!response);
        QCOMPARE(response.error().kind, Error::Kind::Unreachable);
        QVERIFY2(response.error().message.startsWith(QStringLiteral("no Docker engine at ") + address->display()),
                 qPrintable(response.error().message));
        QVERIFY2(response.error().message.contains(QLatin1String("No such file or directory")),
                 qPrintable(response.error().message));
    }

    void nothingListeningOnTcp()
    {
        quint16 port = 0;
        {
            QTcpServer probe;
            QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
            port = probe.serverPort();
        }
        EngineAddress address;
        address.kind = EngineAddress::Kind::Tcp;
        address.host = QStringLiteral("127.0.0.1");
        address.port = port;
        CurlHttpClient client(address);
        const auto response = QCoro::waitFor(client.send(request("GET", "/_ping")));
        QVERIFY(!response);
        QCOMPARE(response.error().kind, Error::Kind::Unreachable);
        QVERIFY2(
            response.error().message.startsWith(QStringLiteral("no Docker engine at tcp://127.0.0.1:%1").arg(port)),
            qPrintable(response.error().message));
    }

    void socketWithoutPermission()
    {
        if (geteuid() == 0)
            QSKIP("root opens any socket: permissions are not enforced");
        TestServer server(TestServer::Kind::Unix);
        QCOMPARE(::chmod(QFile::encodeName(server.socketPath).constData(), 0), 0);
        CurlHttpClient client(server.address);
        const auto response = QCoro::waitFor(client.send(request("GET", "/_ping")));
        QVERIFY(!response);
        QCOMPARE(response.error().kind, Error::Kind::Unreachable);
        QCOMPARE(response.error().message,
                 QStringLiteral("permission denied on %1: add yourself to the docker group or set DOCKER_HOST")
                     .arg(server.socketPath));
        QCOMPARE(server.connections, 0);
    }

    void serverClosesMidResponse_data()
    {
        QTest::addColumn<bool>("unixSocket");
        QTest::addColumn<QByteArray>("answer");
        const QByteArray shortBody = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"Id\":";
        const QByteArray cutChunk = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc";
        const QByteArray cutHeaders = "HTTP/1.1 200 OK\r\nContent-Le";
        for (const bool unixSocket : {true, false}) {
            const char *transport = unixSocket ? "unix" : "tcp";
            QTest::addRow("%s, short body", transport) << unixSocket << shortBody;
            QTest::addRow("%s, cut chunk", transport) << unixSocket << cutChunk;
            QTest::addRow("%s, cut headers", transport) << unixSocket << cutHeaders;
            QTest::addRow("%s, no answer", transport) << unixSocket << QByteArray();
        }
    }
    void serverClosesMidResponse()
    {
        QFETCH(QByteArray, answer);
        auto server = makeServer();
        server->onRequest = [answer](const Received &request) {
            request.socket->write(answer);
            TestServer::close(request.socket);
        };
        CurlHttpClient client(server->address);
        const auto response = QCoro::waitFor(client.send(request("GET", "/v1.41/containers/abc/json")));
        QVERIFY2(!response,
                 response ? qPrintable(QString::number(response->status) + QLatin1Char(' ')
                                       + QString::fromLatin1(response->body))
                          : "");
        QCOMPARE(response.error().kind, Error::Kind::Unreachable);
        QVERIFY2(response.error().message.startsWith(QStringLiteral("GET /v1.41/containers/abc/json to the Docker "
                                                                    "engine at ")
                                                     + server->address.display() + QStringLiteral(" failed: ")),
                 qPrintable(response.error().message));
        QCOMPARE(client.inFlight(), 0);
    }

    void destroyClientInFlight_data() { addTransports(); }
    void destroyClientInFlight()
    {
        auto server = makeServer();
        server->onRequest = [](const Received &) {}; // holds everything
        auto client = std::make_unique<CurlHttpClient>(server->address);
        const auto sent = launch(client->send(request("GET", "/v1.41/containers/json")));
        int calls = 0;
        HttpRequest attach = request("POST", "/v1.41/exec/e1/start", "{}");
        attach.timeout = 0ms;
        const auto streamed = launch(client->stream(attach, [&calls](QByteArrayView) { ++calls; }));
        QTRY_COMPARE(server->requests.size(), 2);
        QCOMPARE(client->inFlight(), 2);

        client.reset();
        QVERIFY(sent->result);
        QVERIFY(streamed->result);
        QVERIFY(!*sent->result);
        QCOMPARE(sent->result->error().kind, Error::Kind::Cancelled);
        QVERIFY(!*streamed->result);
        QCOMPARE(streamed->result->error().kind, Error::Kind::Cancelled);
        QCOMPARE(calls, 0);
        // The connections go with the client.
        QTRY_COMPARE(server->open, 0);
    }

    // HttpRequest::cancel ends that one request (a stream that would go on), not the others; a
    // request whose token was cancelled before is not sent; the client stays usable.
    void aCancelEndsOneRequest_data() { addTransports(); }
    void aCancelEndsOneRequest()
    {
        auto server = makeServer();
        server->onRequest = [](const Received &request) {
            if (request.requestLine().contains("/start"))
                request.socket->write("HTTP/1.1 200 OK\r\nContent-Type: application/vnd.docker.raw-stream\r\n\r\nsome");
        };
        CurlHttpClient client(server->address);
        const auto token = std::make_shared<CancelToken>();
        HttpRequest attach = request("POST", "/v1.41/exec/e1/start", "{}");
        attach.timeout = 0ms;
        attach.cancel = token;
        QByteArray data;
        const auto streamed =
            launch(client.stream(attach, [&data](QByteArrayView chunk) { data += chunk.toByteArray(); }));
        const auto other = launch(client.send(request("GET", "/v1.41/containers/json")));
        QTRY_COMPARE(data, QByteArray("some"));
        QTRY_COMPARE(server->requests.size(), 2);
        token->cancel();
        QTRY_VERIFY(streamed->result);
        QVERIFY(!*streamed->result);
        QCOMPARE(streamed->result->error().kind, Error::Kind::Cancelled);
        QVERIFY(!other->result); // still waiting for its answer
        QCOMPARE(client.inFlight(), 1);

        // Cancelled before: nothing goes out.
        const int asked = int(server->requests.size());
        HttpRequest late = request("GET", "/_ping");
        late.cancel = token;
        const auto refused = QCoro::waitFor(client.send(late));
        QVERIFY(!refused);
        QCOMPARE(refused.error().kind, Error::Kind::Cancelled);
        QCOMPARE(int(server->requests.size()), asked);
        client.abortAll();
        QVERIFY(other->result);
    }

    void abortAllKeepsTheClientUsable()
    {
        TestServer server(TestServer::Kind::Unix);
        server.onRequest = [](const Received &) {};
        CurlHttpClient client(server.address);
        const auto first = launch(client.send(request("GET", "/v1.41/containers/json")));
        const auto second = launch(client.send(request("GET", "/v1.41/images/json")));
        QTRY_COMPARE(server.requests.size(), 2);
        client.abortAll();
        QVERIFY(first->result && !*first->result);
        QCOMPARE(first->result->error().kind, Error::Kind::Cancelled);
        QVERIFY(second->result && !*second->result);
        QCOMPARE(second->result->error().kind, Error::Kind::Cancelled);
        QCOMPARE(client.inFlight(), 0);

        server.onRequest = [](const Received &request) { request.socket->write(TestServer::response(200, "OK")); };
        const auto after = QCoro::waitFor(client.send(request("GET", "/_ping")));
        QVERIFY(after);
        QCOMPARE(after->body, QByteArray("OK"));
    }

    // onData runs inside libcurl: aborting from there ends the stream once libcurl returns.
    void abortFromOnData()
    {
        TestServer server(TestServer::Kind::Tcp);
        server.onRequest = [](const Received &request) {
            request.socket->write("HTTP/1.1 200 OK\r\nContent-Type: application/vnd.docker.raw-stream\r\n\r\nsome");
        };
        CurlHttpClient client(server.address);
        HttpRequest attach = request("POST", "/v1.41/exec/e1/start", "{}");
        attach.timeout = 0ms;
        int calls = 0;
        const auto response = QCoro::waitFor(client.stream(attach, [&](QByteArrayView) {
            ++calls;
            client.abortAll();
        }));
        QVERIFY(!response);
        QCOMPARE(response.error().kind, Error::Kind::Cancelled);
        QCOMPARE(calls, 1);
        QCOMPARE(client.inFlight(), 0);
    }

    // A request started from onData (inside libcurl) goes on the wire once libcurl returns.
    void requestFromOnData()
    {
        TestServer server(TestServer::Kind::Unix);
        QPointer<QIODevice> streamSocket;
        server.onRequest = [&streamSocket](const Received &request) {
            if (request.requestLine().startsWith("POST")) {
                streamSocket = request.socket;
                streamSocket->write("HTTP/1.1 200 OK\r\n\r\nsome");
            } else {
                request.socket->write(TestServer::response(200, R"({"ExitCode":0})"));
            }
        };
        CurlHttpClient client(server.address);
        HttpRequest attach = request("POST", "/v1.41/exec/e1/start", "{}");
        attach.timeout = 0ms;
        std::shared_ptr<Pending> inspect;
        const auto streamed = launch(client.stream(attach, [&](QByteArrayView) {
            if (!inspect)
                inspect = launch(client.send(request("GET", "/v1.41/exec/e1/json")));
        }));
        QTRY_VERIFY(inspect && inspect->result);
        QVERIFY(*inspect->result);
        QCOMPARE((*inspect->result)->body, QByteArray(R"({"ExitCode":0})"));
        QVERIFY(!streamed->result);
        TestServer::close(streamSocket);
        QTRY_VERIFY(streamed->result);
        QVERIFY(*streamed->result);
        QCOMPARE((*streamed->result)->status, 200);
    }

    void requestsAreLogged()
    {
        TestServer server(TestServer::Kind::Unix);
        CurlHttpClient client(server.address);
        QLoggingCategory::setFilterRules(QStringLiteral("paddock.core.docker.http.debug=true"));
        QTest::ignoreMessage(QtDebugMsg, QRegularExpression(QStringLiteral("^GET /v1.41/info -> 200 \\d+ ms$")));
        const auto response = QCoro::waitFor(client.send(request("GET", "/v1.41/info")));
        QLoggingCategory::setFilterRules(QString());
        QVERIFY(response);
    }

    void dockerHostAccepted_data()
    {
        QTest::addColumn<QString>("value");
        QTest::addColumn<bool>("unixSocket");
        QTest::addColumn<QString>("pathOrHost");
        QTest::addColumn<int>("port");
        QTest::addColumn<QString>("display");
        QTest::newRow("default socket") << "unix:///var/run/docker.sock" << true << "/var/run/docker.sock" << 0
                                        << "unix:///var/run/docker.sock";
        QTest::newRow("rootless socket") << "unix:///run/user/1000/docker.sock" << true << "/run/user/1000/docker.sock"
                                         << 0 << "unix:///run/user/1000/docker.sock";
        QTest::newRow("tcp") << "tcp://127.0.0.1:2375" << false << "127.0.0.1" << 2375 << "tcp://127.0.0.1:2375";
        QTest::newRow("tcp, default port")
            << "tcp://docker.example" << false << "docker.example" << 2375 << "tcp://docker.example:2375";
        QTest::newRow("tcp, trailing slash")
            << "tcp://10.0.0.2:2376/" << false << "10.0.0.2" << 2376 << "tcp://10.0.0.2:2376";
        QTest::newRow("tcp, ipv6") << "tcp://[::1]:2375" << false << "::1" << 2375 << "tcp://[::1]:2375";
        QTest::newRow("http") << "http://localhost:8080" << false << "localhost" << 8080 << "tcp://localhost:8080";
        QTest::newRow("http, default port") << "http://localhost" << false << "localhost" << 80 << "tcp://localhost:80";
        QTest::newRow("surrounding blanks") << "  tcp://127.0.0.1:2375\n"
                                            << false << "127.0.0.1" << 2375 << "tcp://127.0.0.1:2375";
    }
    void dockerHostAccepted()
    {
        QFETCH(QString, value);
        QFETCH(bool, unixSocket);
        QFETCH(QString, pathOrHost);
        QFETCH(int, port);
        QFETCH(QString, display);
        const auto address = EngineAddress::parse(value);
        QVERIFY2(address, qPrintable(address ? QString() : address.error().message));
        QCOMPARE(address->kind, unixSocket ? EngineAddress::Kind::Unix : EngineAddress::Kind::Tcp);
        if (unixSocket) {
            QCOMPARE(address->socketPath, pathOrHost);
        } else {
            QCOMPARE(address->host, pathOrHost);
            QCOMPARE(address->port, port);
        }
        QCOMPARE(address->display(), display);
    }

    void dockerHostRejected_data()
    {
        QTest::addColumn<QString>("value");
        QTest::newRow("ssh") << "ssh://me@docker.example";
        QTest::newRow("npipe") << "npipe:////./pipe/docker_engine";
        QTest::newRow("fd") << "fd://";
        QTest::newRow("https") << "https://docker.example:2376";
        QTest::newRow("garbage") << "not a docker host";
        QTest::newRow("bare path") << "/var/run/docker.sock";
        QTest::newRow("host:port without scheme") << "127.0.0.1:2375";
        QTest::newRow("tcp without host") << "tcp://";
        QTest::newRow("tcp with only a port") << "tcp://:2375";
        QTest::newRow("tcp, port not a number") << "tcp://docker.example:abc";
        QTest::newRow("tcp, port too large") << "tcp://docker.example:99999";
        QTest::newRow("tcp, port 0") << "tcp://docker.example:0";
        QTest::newRow("tcp, empty port") << "tcp://docker.example:";
        QTest::newRow("tcp with a path") << "tcp://docker.example:2375/v1.41";
        QTest::newRow("tcp with credentials") << "tcp://me:secret@docker.example:2375";
        QTest::newRow("unix without path") << "unix://";
        QTest::newRow("unix, relative path") << "unix://docker.sock";
    }
    void dockerHostRejected()
    {
        QFETCH(QString, value);
        const auto address = EngineAddress::parse(value);
        QVERIFY2(!address, qPrintable(address ? address->display() : QString()));
        QCOMPARE(address.error().kind, Error::Kind::InvalidArgument);
        QVERIFY2(address.error().message.contains(QLatin1Char('"') + value + QLatin1Char('"')),
                 qPrintable(address.error().message));
    }

    void dockerHostFromEnvironment()
    {
        const QByteArray saved = qgetenv("DOCKER_HOST");
        const bool wasSet = qEnvironmentVariableIsSet("DOCKER_HOST");

        qunsetenv("DOCKER_HOST");
        auto address = EngineAddress::fromEnvironment();
        QVERIFY(address);
        QCOMPARE(address->display(), QStringLiteral("unix:///var/run/docker.sock"));

        qputenv("DOCKER_HOST", "");
        address = EngineAddress::fromEnvironment();
        QVERIFY(address);
        QCOMPARE(address->socketPath, QStringLiteral("/var/run/docker.sock"));

        qputenv("DOCKER_HOST", "tcp://127.0.0.1:12375");
        address = EngineAddress::fromEnvironment();
        QVERIFY(address);
        QCOMPARE(address->display(), QStringLiteral("tcp://127.0.0.1:12375"));

        qputenv("DOCKER_HOST", "ssh://me@docker.example");
        address = EngineAddress::fromEnvironment();
        QVERIFY(!address);
        QCOMPARE(address.error().kind, Error::Kind::InvalidArgument);

        if (wasSet)
            qputenv("DOCKER_HOST", saved);
        else
            qunsetenv("DOCKER_HOST");
    }
};

QTEST_GUILESS_MAIN(TestCurlHttp)
#include "tst_curlhttp.moc"
