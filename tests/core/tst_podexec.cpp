// Kubernetes' pod exec over websocket against a server scripted byte by byte on 127.0.0.1
// (kubernetes-protocol.md §4): the exact query and subprotocol header the client sends, the
// frames of §4.3, the exit code from the ExitCode cause wherever it is, v4-only servers, the 400
// fallback to v4, stdin and its close, streaming, timeouts that keep the output, dead peers, and
// the client destroyed while its runs are suspended (run it under the asan preset too).

#include "backends/kubernetes/podexec.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLibraryInfo>
#include <QNetworkRequest>
#include <QPointer>
#include <QScopeGuard>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QTranslator>
#include <QtEndian>

#include <algorithm>
#include <memory>

using namespace Paddock;
using namespace Paddock::Kubernetes;
using namespace std::chrono_literals;

namespace {

const QByteArray ExecPath = "/api/v1/namespaces/agentscope/pods/as-ws-0123456789abcdef/exec";

// A server frame (unmasked, as servers send them).
QByteArray frame(quint8 opcode, const QByteArray &payload)
{
    QByteArray out(1, char(0x80 | opcode));
    const auto size = quint64(payload.size());
    if (size < 126) {
        out += char(size);
    } else if (size < 65536) {
        out += char(126);
        out += char(size >> 8);
        out += char(size & 0xff);
    } else {
        out += char(127);
        for (int shift = 56; shift >= 0; shift -= 8)
            out += char((size >> shift) & 0xff);
    }
    return out + payload;
}

QByteArray binary(char channel, const QByteArray &data)
{
    return frame(0x2, QByteArray(1, channel) + data);
}

QByteArray closeFrame(quint16 code)
{
    QByteArray payload(2, 0);
    qToBigEndian(code, payload.data());
    return frame(0x8, payload);
}

QByteArray status(const QByteArray &json)
{
    return binary(3, json);
}

const QByteArray ExitThree =
    R"({"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: )"
    R"(error executing command [sh -c echo hi; echo bad >&2; exit 3], exit code 3",)"
    R"("reason":"NonZeroExitCode","details":{"causes":[{"reason":"Signal","message":"9"},)"
    R"({"reason":"ExitCode","message":"3"}]}})";
const QByteArray Success = R"({"metadata":{},"status":"Success"})";

// One connection to the scripted server: the client's handshake as sent, then its frames.
class Peer final : public QObject
{
public:
    explicit Peer(QTcpSocket *socket, bool answerPings)
        : m_socket(socket)
        , m_answerPings(answerPings)
    {
        connect(socket, &QTcpSocket::readyRead, this, &Peer::onData);
        connect(socket, &QTcpSocket::disconnected, this, [this] { disconnected = true; });
    }

    QByteArray header(const QByteArray &name) const { return headers.value(name.toLower()); }

    // 101 with that protocol (none when empty).
    void accept(const QByteArray &protocol)
    {
        const QByteArray accept =
            QCryptographicHash::hash(QByteArray(header("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"),
                                     QCryptographicHash::Sha1)
                .toBase64();
        QByteArray answer = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                            "Sec-WebSocket-Accept: "
            + accept + "\r\n";
        if (!protocol.isEmpty())
            answer += "Sec-WebSocket-Protocol: " + protocol + "\r\n";
        send(answer + "\r\n");
        upgraded = true;
    }

    void refuse(int status, const QByteArray &reason, const QByteArray &message)
    {
        const QByteArray body = R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":")"
            + message + R"(","reason":"BadRequest","code":)" + QByteArray::number(status) + "}";
        send("HTTP/1.1 " + QByteArray::number(status) + ' ' + reason
             + "\r\nContent-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n\r\n"
             + body);
        m_socket->disconnectFromHost();
    }

    void send(const QByteArray &bytes)
    {
        m_socket->write(bytes);
        m_socket->flush();
    }
    void drop() { m_socket->abort(); }

    QByteArray requestLine;
    QHash<QByteArray, QByteArray> headers; // names lower-cased
    bool handshakeDone = false;
    bool upgraded = false;
    QList<QByteArray> messages; // binary messages from the client, whole
    int textMessages = 0;
    int pings = 0;
    std::optional<quint16> closeCode; // the client's close frame
    bool allMasked = true;
    bool disconnected = false;

private:
    void onData()
    {
        m_buffer += m_socket->readAll();
        if (!handshakeDone) {
            const qsizetype end = m_buffer.indexOf("\r\n\r\n");
            if (end < 0)
                return;
            const QList<QByteArray> lines = m_buffer.left(end).split('\n');
            m_buffer.remove(0, end + 4);
            requestLine = lines.first().trimmed();
            for (qsizetype i = 1; i < lines.size(); ++i) {
                const qsizetype colon = lines[i].indexOf(':');
                headers.insert(lines[i].left(colon).trimmed().toLower(), lines[i].mid(colon + 1).trimmed());
            }
            handshakeDone = true;
            if (onHandshake)
                onHandshake(*this);
        }
        if (upgraded)
            readFrames();
    }

    void readFrames()
    {
        for (;;) {
            if (m_buffer.size() < 2)
                return;
            const auto b0 = quint8(m_buffer[0]);
            const auto b1 = quint8(m_buffer[1]);
            qsizetype at = 2;
            quint64 size = b1 & 0x7f;
            if (size == 126) {
                if (m_buffer.size() < 4)
                    return;
                size = qFromBigEndian<quint16>(m_buffer.constData() + 2);
                at = 4;
            } else if (size == 127) {
                if (m_buffer.size() < 10)
                    return;
                size = qFromBigEndian<quint64>(m_buffer.constData() + 2);
                at = 10;
            }
            const bool masked = b1 & 0x80;
            allMasked = allMasked && masked;
            const qsizetype maskAt = at;
            if (masked)
                at += 4;
            if (quint64(m_buffer.size()) < at + size)
                return;
            QByteArray payload = m_buffer.mid(at, qsizetype(size));
            if (masked) {
                for (qsizetype i = 0; i < payload.size(); ++i)
                    payload[i] = char(payload[i] ^ m_buffer[maskAt + i % 4]);
            }
            m_buffer.remove(0, at + qsizetype(size));
            const quint8 opcode = b0 & 0x0f;
            const bool fin = b0 & 0x80;
            switch (opcode) {
            case 0x0: // continuation
                m_partial += payload;
                break;
            case 0x1:
                ++textMessages;
                break;
            case 0x2:
                m_partial = payload;
                break;
            case 0x8:
                closeCode = payload.size() >= 2 ? qFromBigEndian<quint16>(payload.constData()) : quint16(1005);
                break;
            case 0x9:
                ++pings;
                if (m_answerPings)
                    send(frame(0xA, payload));
                break;
            default:
                break;
            }
            if (fin && (opcode == 0x0 || opcode == 0x2))
                messages.append(std::exchange(m_partial, {}));
        }
    }

public:
    std::function<void(Peer &)> onHandshake;

private:
    QTcpSocket *m_socket;
    bool m_answerPings;
    QByteArray m_buffer;
    QByteArray m_partial;
};

// Speaks the exec websocket as the script says; by default it accepts the first protocol the
// client offers among `supported`, as the API server does (wsstream/conn.go).
class ScriptedExecServer final : public QTcpServer
{
public:
    explicit ScriptedExecServer(quint16 port = 0)
    {
        connect(this, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = nextPendingConnection()) {
                auto *peer = new Peer(socket, answerPings);
                peer->setParent(socket);
                peer->onHandshake = [this](Peer &p) {
                    if (onHandshake) {
                        onHandshake(p);
                        return;
                    }
                    const QList<QByteArray> offered = p.header("Sec-WebSocket-Protocol").split(',');
                    for (const QByteArray &protocol : offered) {
                        if (supported.contains(protocol.trimmed())) {
                            p.accept(protocol.trimmed());
                            return;
                        }
                    }
                    p.refuse(400, "Bad Request", "no supported protocol");
                };
                peers.append(peer);
            }
        });
        if (!listen(QHostAddress::LocalHost, port))
            qFatal("cannot listen on 127.0.0.1");
    }

    QNetworkRequest request() const
    {
        QNetworkRequest request(
            QUrl(QStringLiteral("http://127.0.0.1:%1").arg(serverPort()) + QString::fromLatin1(ExecPath)));
        request.setRawHeader("Authorization", "Bearer secret-token");
        return request;
    }

    Peer *peer(int i = 0) const { return i < peers.size() ? peers.at(i).data() : nullptr; }
    bool upgraded(int i = 0) const { return peer(i) && peer(i)->upgraded; }

    QByteArrayList supported{"v5.channel.k8s.io", "v4.channel.k8s.io"};
    bool answerPings = true;
    std::function<void(Peer &)> onHandshake;
    QList<QPointer<Peer>> peers;
};

struct Lines
{
    QList<std::pair<OutputChannel, QByteArray>> lines;
    QList<std::pair<OutputChannel, QByteArray>> chunks;

    void attach(PodExecCommand &command)
    {
        command.onLine = [this](OutputChannel channel, const QByteArray &line) { lines.append({channel, line}); };
        command.onChunk = [this](OutputChannel channel, const QByteArray &data) { chunks.append({channel, data}); };
    }
};

PodExecCommand command(const QStringList &argv)
{
    PodExecCommand command;
    command.argv = cwdCommand(argv, {});
    command.container = QStringLiteral("workspace");
    return command;
}

QString describe(const Result<PodExecResult> &result)
{
    return result ? QStringLiteral("exit %1").arg(result->exec.exitCode) : result.error().message;
}

// The exec client's own log lines ("... handshake 1 failed (...); trying again in 250 ms") while
// it lives, so that a test can wait for a retry instead of for a time.
class ExecLog
{
public:
    ExecLog()
    {
        s_lines = &m_lines;
        m_previous = qInstallMessageHandler(&ExecLog::handle);
        s_previous = m_previous;
    }
    ~ExecLog()
    {
        qInstallMessageHandler(m_previous);
        s_lines = nullptr;
    }
    Q_DISABLE_COPY_MOVE(ExecLog)

    int retries() const
    {
        return int(std::count_if(m_lines.begin(), m_lines.end(),
                                 [](const QString &line) { return line.contains(QLatin1String("trying again")); }));
    }

private:
    static void handle(QtMsgType type, const QMessageLogContext &context, const QString &message)
    {
        if (s_lines && qstrcmp(context.category, "paddock.core.kubernetes.exec") == 0)
            s_lines->append(message);
        if (s_previous)
            s_previous(type, context, message);
    }

    QStringList m_lines;
    QtMessageHandler m_previous = nullptr;
    static inline QStringList *s_lines = nullptr;
    static inline QtMessageHandler s_previous = nullptr;
};

quint16 closedPort()
{
    QTcpServer closed;
    if (!closed.listen(QHostAddress::LocalHost, 0))
        qFatal("cannot listen on 127.0.0.1");
    return closed.serverPort();
}

} // namespace

class TestPodExec final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void cwdWrapper_data()
    {
        QTest::addColumn<QString>("cwd");
        QTest::addColumn<QString>("script");
        QTest::newRow("default") << QString() << QStringLiteral("cd /workspace && exec \"$@\"");
        QTest::newRow("bare") << QStringLiteral("/workspace/data")
                              << QStringLiteral("cd /workspace/data && exec \"$@\"");
        QTest::newRow("space") << QStringLiteral("/work space") << QStringLiteral("cd '/work space' && exec \"$@\"");
        QTest::newRow("quote") << QStringLiteral("/it's") << QStringLiteral("cd '/it'\"'\"'s' && exec \"$@\"");
        QTest::newRow("dollar") << QStringLiteral("/$HOME") << QStringLiteral("cd '/$HOME' && exec \"$@\"");
    }
    void cwdWrapper()
    {
        QFETCH(QString, cwd);
        QFETCH(QString, script);
        const QStringList argv{"echo", "a b", "$x"};
        QCOMPARE(cwdCommand(argv, cwd), (QStringList{"sh", "-c", script, "--", "echo", "a b", "$x"}));
    }

    void podExecCommandFromExecRequest()
    {
        QList<QByteArray> seen;
        ExecRequest request;
        request.argv = {"ls", "-l"};
        request.cwd = "/tmp";
        request.timeout = 1800s;
        request.onLine = [&seen](OutputChannel, const QByteArray &line) { seen.append(line); };
        const PodExecCommand command = podExecCommand(request, "workspace");
        QCOMPARE(command.argv, (QStringList{"sh", "-c", "cd /tmp && exec \"$@\"", "--", "ls", "-l"}));
        QCOMPARE(command.container, QString("workspace"));
        QCOMPARE(command.timeout, std::chrono::milliseconds(1800s));
        QVERIFY(!command.withStdin);
        command.onLine(OutputChannel::Stdout, "x");
        QCOMPARE(seen, QList<QByteArray>{"x"});
    }

    void exitCodeDecoder_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<int>("exitCode"); // -1: an error
        QTest::addColumn<QString>("message"); // part of the error's message
        QTest::addColumn<int>("httpStatus");
        QTest::newRow("success") << Success << 0 << QString() << 0;
        QTest::newRow("exit code cause second") << ExitThree << 3 << QString() << 0;
        QTest::newRow("only cause") << QByteArray(
            R"({"metadata":{},"status":"Failure","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"127"}]}})")
                                    << 127 << QString() << 0;
        QTest::newRow("255") << QByteArray(
            R"({"status":"Failure","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"255"}]}})")
                             << 255 << QString() << 0;
        QTest::newRow("256") << QByteArray(
            R"({"status":"Failure","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"256"}]}})")
                             << -1 << QStringLiteral("'256'") << 0;
        QTest::newRow("not a number") << QByteArray(
            R"({"status":"Failure","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"x3"}]}})")
                                      << -1 << QStringLiteral("'x3'") << 0;
        QTest::newRow("signed") << QByteArray(
            R"({"status":"Failure","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"+3"}]}})")
                                << -1 << QStringLiteral("'+3'") << 0;
        QTest::newRow("no exit code cause") << QByteArray(
            R"({"status":"Failure","reason":"NonZeroExitCode","details":{"causes":[{"reason":"Signal","message":"3"}]}})")
                                            << -1 << QStringLiteral("without giving it") << 0;
        QTest::newRow("no details") << QByteArray(R"({"status":"Failure","reason":"NonZeroExitCode"})") << -1
                                    << QStringLiteral("without giving it") << 0;
        QTest::newRow("internal error") << QByteArray(
            "{\"metadata\":{},\"status\":\"Failure\",\"message\":\"Internal error occurred: error executing "
            "command in container: failed to exec in container: starting container process caused: "
            "exec: \\\"nope\\\": executable file not found in $PATH\",\"reason\":\"InternalError\","
            "\"details\":{\"causes\":[{\"message\":\"error executing command in container\"}]},"
            "\"code\":500}") << -1 << QStringLiteral("Internal error occurred: error executing command in container")
                                        << 500;
        QTest::newRow("unknown status") << QByteArray(R"({"status":"Maybe"})") << -1 << QStringLiteral("'Maybe'") << 0;
        QTest::newRow("not json") << QByteArray("exit 3") << -1 << QStringLiteral("not a JSON object") << 0;
    }
    void exitCodeDecoder()
    {
        QFETCH(QByteArray, json);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        QFETCH(int, httpStatus);
        const Result<int> decoded = decodeExecStatus(json);
        if (exitCode >= 0) {
            QVERIFY2(decoded, qPrintable(decoded ? QString() : decoded.error().message));
            QCOMPARE(*decoded, exitCode);
            return;
        }
        QVERIFY(!decoded);
        QVERIFY2(decoded.error().message.contains(message), qPrintable(decoded.error().message));
        QCOMPARE(decoded.error().httpStatus, httpStatus);
    }

    // The reference's §4.3 example, byte for byte both ways.
    void exactRequestAndFrames()
    {
        ScriptedExecServer server;
        PodExecClient client;
        PodExecCommand run = command({"sh", "-c", "echo hi; echo bad >&2; exit 3"});
        Lines got;
        got.attach(run);
        auto task = client.run(server.request(), std::move(run));
        QTRY_VERIFY(server.upgraded());
        Peer *peer = server.peer();
        QCOMPARE(peer->requestLine,
                 "GET " + ExecPath
                     + "?command=sh&command=-c&command=cd+%2Fworkspace+%26%26+exec+%22%24%40%22&command=--"
                       "&command=sh&command=-c&command=echo+hi%3B+echo+bad+%3E%262%3B+exit+3"
                       "&container=workspace&stdout=true&stderr=true HTTP/1.1");
        QCOMPARE(peer->header("Sec-WebSocket-Protocol"), QByteArray("v5.channel.k8s.io, v4.channel.k8s.io"));
        QCOMPARE(peer->header("Authorization"), QByteArray("Bearer secret-token"));
        QCOMPARE(peer->header("Upgrade"), QByteArray("websocket"));
        QCOMPARE(peer->header("Connection"), QByteArray("Upgrade"));
        QCOMPARE(peer->header("Sec-WebSocket-Version"), QByteArray("13"));
        QCOMPARE(peer->header("Host"), QStringLiteral("127.0.0.1:%1").arg(server.serverPort()).toLatin1());
        QVERIFY(!peer->headers.contains("origin"));

        peer->send(QByteArray("\x82\x01\x01", 3)); // ready
        peer->send(QByteArray("\x82\x04\x01hi\n", 6));
        peer->send(QByteArray("\x82\x05\x02"
                              "bad\n",
                              7));
        peer->send(status(ExitThree) + closeFrame(1000));
        const auto result = QCoro::waitFor(std::move(task));
        QVERIFY2(result, qPrintable(describe(result)));
        QCOMPARE(result->exec.exitCode, 3);
        QVERIFY(!result->exec.timedOut);
        QCOMPARE(result->exec.stdOut, QByteArray("hi\n"));
        QCOMPARE(result->exec.stdErr, QByteArray("bad\n"));
        QCOMPARE(result->subprotocol, QString("v5.channel.k8s.io"));
        QCOMPARE(got.lines.size(), 2);
        QCOMPARE(got.lines[0], std::pair(OutputChannel::Stdout, QByteArray("hi")));
        QCOMPARE(got.lines[1], std::pair(OutputChannel::Stderr, QByteArray("bad")));
        // The empty "ready" message is no output.
        QCOMPARE(got.chunks.size(), 2);
        QCOMPARE(got.chunks[0], std::pair(OutputChannel::Stdout, QByteArray("hi\n")));
        // The client closes after the status, with 1000, in masked frames; no stdin was sent.
        QTRY_VERIFY(peer->closeCode.has_value());
        QCOMPARE(*peer->closeCode, quint16(1000));
        QVERIFY(peer->allMasked);
        QVERIFY(peer->messages.isEmpty());
        QCOMPARE(peer->textMessages, 0);
    }

    void queryEscapesAsKubectl()
    {
        ScriptedExecServer server;
        PodExecClient client;
        PodExecCommand run;
        run.argv = {"printf", "%s\n", "a+b=c&d", "日本", "~._-", "'\"#?/"};
        run.withStdin = true;
        // What the caller's request had in its query and offer is replaced.
        QNetworkRequest request = server.request();
        QUrl url = request.url();
        url.setQuery(QStringLiteral("command=rm&tty=true"));
        request.setUrl(url);
        request.setRawHeader("Sec-WebSocket-Protocol", "base64.channel.k8s.io");
        auto task = client.run(request, std::move(run));
        QTRY_VERIFY(server.upgraded());
        QCOMPARE(server.peer()->header("Sec-WebSocket-Protocol"), QByteArray("v5.channel.k8s.io, v4.channel.k8s.io"));
        // No container asked for: none sent; stdin=true only with stdin.
        QCOMPARE(server.peer()->requestLine,
                 "GET " + ExecPath
                     + "?command=printf&command=%25s%0A&command=a%2Bb%3Dc%26d&command=%E6%97%A5%E6%9C%AC"
                       "&command=~._-&command=%27%22%23%3F%2F&stdout=true&stderr=true&stdin=true HTTP/1.1");
        server.peer()->send(status(Success) + closeFrame(1000));
        const auto result = QCoro::waitFor(std::move(task));
        QVERIFY2(result, qPrintable(describe(result)));
        QCOMPARE(result->exec.exitCode, 0);
    }

    void stdinThenCloseOnV5()
    {
        ScriptedExecServer server;
        PodExecSettings settings;
        settings.stdinChunk = 4;
        PodExecClient client(settings);
        PodExecCommand run = command({"tar", "xf", "-", "-C", "/workspace"});
        run.withStdin = true;
        run.stdinData = "abcdefghij";
        QList<QByteArray> source{"XYZ", "123456"};
        run.stdinSource = [&source]() -> Result<QByteArray> {
            return source.isEmpty() ? QByteArray() : source.takeFirst();
        };
        auto task = client.run(server.request(), std::move(run));
        QTRY_VERIFY(server.upgraded());
        Peer *peer = server.peer();
        QVERIFY(peer->requestLine.contains("&stdout=true&stderr=true&stdin=true HTTP/1.1"));
        QTRY_COMPARE(peer->messages.size(), 7);
        QCOMPARE(peer->messages,
                 (QList<QByteArray>{QByteArray("\0abcd", 5), QByteArray("\0efgh", 5), QByteArray("\0ij", 3),
                                    QByteArray("\0XYZ", 4),
                                    QByteArray("\0"
                                               "1234",
                                               5),
                                    QByteArray("\0"
                                               "56",
                                               3),
                                    QByteArray("\xff\x00", 2)}));
        peer->send(status(Success) + closeFrame(1000));
        const auto result = QCoro::waitFor(std::move(task));
        QVERIFY2(result, qPrintable(describe(result)));
        QCOMPARE(result->exec.exitCode, 0);
        QCOMPARE(peer->messages.size(), 7);
    }

    void emptyStdinIsClosedAtOnce()
    {
        ScriptedExecServer server;
        PodExecClient client;
        PodExecCommand run = command({"cat"});
        run.withStdin = true;
        auto task = client.run(server.request(), std::move(run));
        QTRY_COMPARE(server.peer() ? server.peer()->messages.size() : 0, 1);
        QCOMPARE(server.peer()->messages.first(), QByteArray("\xff\x00", 2));
        server.peer()->send(status(Success));
        const auto result = QCoro::waitFor(std::move(task));
        QVERIFY2(result, qPrintable(describe(result)));
    }

    void stdinSourceErrorEndsTheRun()
    {
        ScriptedExecServer server;
        PodExecClient client;
        PodExecCommand run = command({"tar", "xf", "-"});
        run.withStdin = true;
        run.stdinSource = []() -> Result<QByteArray> { return fail(Error::io("cannot read /tmp/x: gone")); };
        const auto result = QCoro::waitFor(client.run(server.request(), std::move(run)));
        QVERIFY(!result);
        QCOMPARE(result.error().message, QString("cannot read /tmp/x: gone"));
        QTRY_VERIFY(server.peer()->closeCode.has_value());
    }

    // v4 has no stdin close: the data goes, and nothing after it.
    void v4OnlyServer()
    {
        ScriptedExecServer server;
        server.supported = {"v4.channel.k8s.io"};
        PodExecClient client;
        PodExecCommand run = command({"tar", "xf", "-"});
        run.withStdin = true;
        run.stdinData = "abc";
        Lines got;
        got.attach(run);
        auto task = client.run(server.request(), std::move(run));
        QTRY_COMPARE(server.peer() ? server.peer()->messages.size() : 0, 1);
        Peer *peer = server.peer();
        QCOMPARE(peer->messages.first(), QByteArray("\0abc", 4));
        peer->send(QByteArray("\x82\x01\x01", 3) + binary(1, "done\n"));
        QTRY_COMPARE(got.lines.size(), 1);
        QCOMPARE(peer->messages.size(), 1); // no [0xFF, 0x00]
        peer->send(status(Success) + closeFrame(1000));
        const auto result = QCoro::waitFor(std::move(task));
        QVERIFY2(result, qPrintable(describe(result)));
        QCOMPARE(result->subprotocol, QString("v4.channel.k8s.io"));
        QCOMPARE(result->exec.exitCode, 0);
        QCOMPARE(result->exec.stdOut, QByteArray("done\n"));
        QCOMPARE(server.peers.size(), 1);
    }

    void protocolNotOfferedIsAnError()
    {
        ScriptedExecServer server;
        server.onHandshake = [](Peer &peer) { peer.accept("v3.channel.k8s.io"); };
        PodExecClient client;
        const auto result = QCoro::waitFor(client.run(server.request(), command({"true"})));
        QVERIFY(!result);
        QCOMPARE(result.error().kind, Error::Kind::Backend);
        QVERIFY2(result.error().message.contains("'v3.channel.k8s.io'"), qPrintable(result.error().message));
        QVERIFY2(result.error().message.contains("v5.channel.k8s.io, v4.channel.k8s.io"),
                 qPrintable(result.error().message));
        QCOMPARE(server.peers.size(), 1);
    }

    void noProtocolChosenIsAnError()
    {
        ScriptedExecServer server;
        server.onHandshake = [](Peer &peer) { peer.accept({}); };
        PodExecClient client;
        const auto result = QCoro::waitFor(client.run(server.request(), command({"true"})));
        QVERIFY(!result);
        QVERIFY2(result.error().message.contains("without choosing a protocol"), qPrintable(result.error().message));
        QTRY_VERIFY(server.peer()->closeCode.has_value() || server.peer()->disconnected);
    }

    // Defect 5: some clusters refuse one of the protocols with 400; v4 alone is tried once.
    void badRequestFallsBackToV4()
    {
        ScriptedExecServer server;
        server.onHandshake = [](Peer &peer) {
            if (peer.header("Sec-WebSocket-Protocol").contains("v5"))
                peer.refuse(400, "Bad Request", "websocket protocol refused");
            else
                peer.accept("v4.channel.k8s.io");
        };
        PodExecClient client;
        auto task = client.run(server.request(), command({"echo", "hi"}));
        QTRY_VERIFY(server.upgraded(1));
        QCOMPARE(server.peer(0)->header("Sec-WebSocket-Protocol"), QByteArray("v5.channel.k8s.io, v4.channel.k8s.io"));
        QCOMPARE(server.peer(1)->header("Sec-WebSocket-Protocol"), QByteArray("v4.channel.k8s.io"));
        QCOMPARE(server.peer(1)->requestLine, server.peer(0)->requestLine);
        server.peer(1)->send(binary(1, "hi\n") + status(Success) + closeFrame(1000));
        const auto result = QCoro::waitFor(std::move(task));
        QVERIFY2(result, qPrintable(describe(result)));
        QCOMPARE(result->subprotocol, QString("v4.channel.k8s.io"));
        QCOMPARE(result->exec.stdOut, QByteArray("hi\n"));
        QCOMPARE(server.peers.size(), 2);
    }

    void badRequestTwiceIsAnError()
    {
        ScriptedExecServer server;
        server.onHandshake = [](Peer &peer) { peer.refuse(400, "Bad Request", "Upgrade request required"); };
        PodExecClient client;
        const auto result = QCoro::waitFor(client.run(server.request(), command({"true"})));
        QVERIFY(!result);
        QCOMPARE(result.error().httpStatus, 400);
        QVERIFY2(result.error().message.contains("HTTP 400"), qPrintable(result.error().message));
        QVERIFY2(result.error().message.contains("as-ws-0123456789abcdef"), qPrintable(result.error().message));
        QCOMPARE(server.peers.size(), 2); // once with v5 and v4, once with v4: no more
    }

    void refusedHandshakeNamesTheStatus_data()
    {
        QTest::addColumn<int>("status");
        QTest::addColumn<QByteArray>("reason");
        QTest::addColumn<int>("kind");
        QTest::newRow("401") << 401 << QByteArray("Unauthorized") << int(Error::Kind::Backend);
        QTest::newRow("403") << 403 << QByteArray("Forbidden") << int(Error::Kind::Backend);
        QTest::newRow("404") << 404 << QByteArray("Not Found") << int(Error::Kind::NotFound);
    }
    void refusedHandshakeNamesTheStatus()
    {
        QFETCH(int, status);
        QFETCH(QByteArray, reason);
        QFETCH(int, kind);
        ScriptedExecServer server;
        server.onHandshake = [&](Peer &peer) { peer.refuse(status, reason, "refused"); };
        PodExecClient client;
        const auto result = QCoro::waitFor(client.run(server.request(), command({"true"})));
        QVERIFY(!result);
        QCOMPARE(int(result.error().kind), kind);
        QCOMPARE(result.error().httpStatus, status);
        const QString expected = QStringLiteral("HTTP %1 %2").arg(status).arg(QString::fromLatin1(reason));
        QVERIFY2(result.error().message.contains(expected), qPrintable(result.error().message));
        QCOMPARE(server.peers.size(), 1); // only 400 and the refusals on the way are tried again
    }

    // Refused on the way (429, 500, 502, 503, 504) or cut before the upgrade, the command has not
    // started: the handshake is tried again after a backoff, and the command then runs once.
    void handshakeRefusedOnTheWayIsTriedAgain()
    {
        ScriptedExecServer server;
        int handshakes = 0;
        server.onHandshake = [&handshakes](Peer &peer) {
            ++handshakes;
            if (handshakes == 1)
                peer.refuse(503, "Service Unavailable", "try later");
            else if (handshakes == 2)
                peer.refuse(500, "Internal Server Error", "etcd");
            else if (handshakes == 3)
                peer.drop();
            else
                peer.accept("v5.channel.k8s.io");
        };
        PodExecClient client;
        auto task = client.run(server.request(), command({"echo", "once"}));
        QTRY_VERIFY_WITH_TIMEOUT(server.upgraded(3), 15'000);
        server.peer(3)->send(binary(1, "once\n") + status(Success) + closeFrame(1000));
        const auto result = QCoro::waitFor(std::move(task));
        QVERIFY2(result, qPrintable(describe(result)));
        QCOMPARE(result->exec.stdOut, QByteArray("once\n"));
        QCOMPARE(server.peers.size(), 4);
        QCOMPARE(server.peer(3)->requestLine, server.peer(0)->requestLine);
    }

    // Refused on the way every time: six handshakes, then the refusal, named.
    void handshakeRefusedEveryTimeGivesUp()
    {
        ScriptedExecServer server;
        server.onHandshake = [](Peer &peer) { peer.refuse(429, "Too Many Requests", "slow down"); };
        PodExecClient client;
        const auto result = QCoro::waitFor(client.run(server.request(), command({"true"})));
        QVERIFY(!result);
        QCOMPARE(result.error().httpStatus, 429);
        QVERIFY2(result.error().message.contains("HTTP 429 Too Many Requests"), qPrintable(result.error().message));
        QCOMPARE(server.peers.size(), 6);
    }

    // Qt words a refused handshake in the language loaded; the status is read in any.
    void refusalsAreReadInAnyLanguage()
    {
        QTranslator german;
        if (!german.load(QStringLiteral("qtwebsockets_de"), QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
            QSKIP("Qt's German translations (qt6-translations-l10n) are not installed");
        QCoreApplication::installTranslator(&german);
        const auto remove = qScopeGuard([&german] { QCoreApplication::removeTranslator(&german); });
        const char *unhandled = "QWebSocketPrivate::processHandshake: Unhandled http status code: %1 (%2).";
        QVERIFY(QCoreApplication::translate("QWebSocket", unhandled) != QLatin1String(unhandled));

        {
            ScriptedExecServer server;
            server.onHandshake = [](Peer &peer) { peer.refuse(403, "Forbidden", "forbidden"); };
            PodExecClient client;
            const auto result = QCoro::waitFor(client.run(server.request(), command({"true"})));
            QVERIFY(!result);
            QCOMPARE(result.error().httpStatus, 403);
            QVERIFY2(result.error().message.contains("HTTP 403 Forbidden"), qPrintable(result.error().message));
        }
        {
            ScriptedExecServer server;
            server.onHandshake = [](Peer &peer) { peer.refuse(400, "Bad Request", "refused"); };
            PodExecClient client;
            const auto result = QCoro::waitFor(client.run(server.request(), command({"true"})));
            QVERIFY(!result);
            QCOMPARE(result.error().httpStatus, 400);
            QCOMPARE(server.peers.size(), 2); // the fallback to v4 happened
        }
        {
            ScriptedExecServer server;
            server.onHandshake = [](Peer &peer) { peer.accept("v3.channel.k8s.io"); };
            PodExecClient client;
            const auto result = QCoro::waitFor(client.run(server.request(), command({"true"})));
            QVERIFY(!result);
            QVERIFY2(result.error().message.contains("'v3.channel.k8s.io'"), qPrintable(result.error().message));
        }
    }

    void internalErrorStatusIsAnError()
    {
        ScriptedExecServer server;
        PodExecClient client;
        auto task = client.run(server.request(), command({"nope"}));
        QTRY_VERIFY(server.upgraded());
        server.peer()->send(QByteArray("\x82\x01\x01", 3)
                            + status("{\"metadata\":{},\"status\":\"Failure\",\"message\":\"Internal error occurred: "
                                     "exec: \\\"nope\\\": executable file not found in $PATH\",\"reason\":"
                                     "\"InternalError\",\"details\":{\"causes\":[{\"message\":\"exec failed\"}]},"
                                     "\"code\":500}")
                            + closeFrame(1000));
        const auto result = QCoro::waitFor(std::move(task));
        QVERIFY(!result);
        QCOMPARE(result.error().kind, Error::Kind::Backend);
        QCOMPARE(result.error().httpStatus, 500);
        QVERIFY2(result.error().message.contains(
                     "Internal error occurred: exec: \"nope\": executable file not found in $PATH"),
                 qPrintable(result.error().message));
    }

    void normalCloseWithoutStatusIsSuccess()
    {
        ScriptedExecServer server;
        PodExecClient client;
        auto task = client.run(server.request(), command({"true"}));
        QTRY_VERIFY(server.upgraded());
        server.peer()->send(QByteArray("\x82\x01\x01", 3) + binary(1, "x") + closeFrame(1000));
        const auto result = QCoro::waitFor(std::move(task));
        QVERIFY2(result, qPrintable(describe(result)));
        QCOMPARE(result->exec.exitCode, 0);
        QCOMPARE(result->exec.stdOut, QByteArray("x"));
    }

    void otherCloseWithoutStatusIsAnError()
    {
        ScriptedExecServer server;
        PodExecClient client;
        auto task = client.run(server.request(), command({"true"}));
        QTRY_VERIFY(server.upgraded());
        server.peer()->send(closeFrame(1011));
        const auto result = QCoro::waitFor(std::move(task));
        QVERIFY(!result);
        QCOMPARE(result.error().kind, Error::Kind::Unreachable);
        QVERIFY2(result.error().message.contains("1011"), qPrintable(result.error().message));
    }

    void droppedConnectionIsAnError()
    {
        ScriptedExecServer server;
        PodExecClient client;
        auto task = client.run(server.request(), command({"true"}));
        QTRY_VERIFY(server.upgraded());
        server.peer()->send(binary(1, "partial"));
        server.peer()->drop();
        const auto result = QCoro::waitFor(std::move(task));
        QVERIFY2(!result, qPrintable(describe(result)));
        QCOMPARE(result.error().kind, Error::Kind::Unreachable);
        QVERIFY2(result.error().message.contains("ended before the command's exit status"),
                 qPrintable(result.error().message));
    }

    void textMessageIsAnError()
    {
        ScriptedExecServer server;
        PodExecClient client;
        auto task = client.run(server.request(), command({"true"}));
        QTRY_VERIFY(server.upgraded());
        server.peer()->send(frame(0x1, "1aGkK"));
        const auto result = QCoro::waitFor(std::move(task));
        QVERIFY(!result);
        QVERIFY2(result.error().message.contains("text message"), qPrintable(result.error().message));
    }

    void otherChannelsAreIgnored()
    {
        ScriptedExecServer server;
        PodExecClient client;
        PodExecCommand run = command({"true"});
        Lines got;
        got.attach(run);
        auto task = client.run(server.request(), std::move(run));
        QTRY_VERIFY(server.upgraded());
        server.peer()->send(binary(4, R"({"Width":80})") + frame(0x2, {}) + binary(9, "x") + binary(1, "ok\n")
                            + status(Success));
        const auto result = QCoro::waitFor(std::move(task));
        QVERIFY2(result, qPrintable(describe(result)));
        QCOMPARE(result->exec.stdOut, QByteArray("ok\n"));
        QCOMPARE(got.chunks.size(), 1);
    }

    // A line reaches the callback while the command still runs.
    void outputIsStreamed()
    {
        ScriptedExecServer server;
        PodExecClient client;
        PodExecCommand run = command({"sh", "-c", "bootstrap"});
        Lines got;
        got.attach(run);
        auto task = client.run(server.request(), std::move(run));
        QTRY_VERIFY(server.upgraded());
        server.peer()->send(QByteArray("\x82\x01\x01", 3) + binary(1, "step one\nstep t"));
        QTRY_COMPARE(got.lines.size(), 1);
        QCOMPARE(got.lines[0], std::pair(OutputChannel::Stdout, QByteArray("step one")));
        QVERIFY(!task.isReady());
        server.peer()->send(binary(2, "warn\n"));
        QTRY_COMPARE(got.lines.size(), 2);
        QCOMPARE(got.lines[1], std::pair(OutputChannel::Stderr, QByteArray("warn")));
        QVERIFY(!task.isReady());
        server.peer()->send(binary(1, "wo\nlast") + status(Success) + closeFrame(1000));
        const auto result = QCoro::waitFor(std::move(task));
        QVERIFY2(result, qPrintable(describe(result)));
        QCOMPARE(result->exec.stdOut, QByteArray("step one\nstep two\nlast"));
        QCOMPARE(got.lines.size(), 4);
        QCOMPARE(got.lines[2], std::pair(OutputChannel::Stdout, QByteArray("step two")));
        QCOMPARE(got.lines[3], std::pair(OutputChannel::Stdout, QByteArray("last")));
    }

    // Defect 7: a timeout keeps what came, and closes the connection.
    void timeoutKeepsPartialOutput()
    {
        ScriptedExecServer server;
        PodExecClient client;
        PodExecCommand run = command({"sleep", "infinity"});
        run.timeout = 300ms;
        Lines got;
        got.attach(run);
        auto task = client.run(server.request(), std::move(run));
        QTRY_VERIFY(server.upgraded());
        server.peer()->send(QByteArray("\x82\x01\x01", 3) + binary(1, "partial\nno newline") + binary(2, "err"));
        const auto result = QCoro::waitFor(std::move(task));
        QVERIFY2(result, qPrintable(describe(result)));
        QVERIFY(result->exec.timedOut);
        QCOMPARE(result->exec.exitCode, -1);
        QCOMPARE(result->exec.stdOut, QByteArray("partial\nno newline"));
        QCOMPARE(result->exec.stdErr, QByteArray("err"));
        QCOMPARE(got.lines.size(), 3);
        QCOMPARE(got.lines[1], std::pair(OutputChannel::Stdout, QByteArray("no newline")));
        QTRY_VERIFY(server.peer()->closeCode.has_value());
        QCOMPARE(*server.peer()->closeCode, quint16(1000));
    }

    void timeoutDuringTheHandshake()
    {
        ScriptedExecServer server;
        server.onHandshake = [](Peer &) {}; // never answers
        PodExecClient client;
        PodExecCommand run = command({"true"});
        run.timeout = 200ms;
        const auto result = QCoro::waitFor(client.run(server.request(), std::move(run)));
        QVERIFY2(result, qPrintable(describe(result)));
        QVERIFY(result->exec.timedOut);
        QCOMPARE(result->exec.exitCode, -1);
    }

    void handshakeTimeout()
    {
        ScriptedExecServer server;
        server.onHandshake = [](Peer &) {}; // never answers
        PodExecSettings settings;
        settings.handshakeTimeout = 200ms;
        PodExecClient client(settings);
        const auto result = QCoro::waitFor(client.run(server.request(), command({"true"})));
        QVERIFY(!result);
        QCOMPARE(result.error().kind, Error::Kind::Unreachable);
        QVERIFY2(result.error().message.contains("did not open the exec connection"),
                 qPrintable(result.error().message));
        QVERIFY(!result.error().notConnected);
    }

    // Nothing listening (an API server restarting): four handshakes, as the HTTP layer tries a
    // request, then the error, which says it did not connect.
    void connectionRefused()
    {
        const quint16 port = closedPort();
        ExecLog log;
        PodExecClient client;
        QNetworkRequest request(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port) + QString::fromLatin1(ExecPath)));
        const auto result = QCoro::waitFor(client.run(request, command({"true"})));
        QVERIFY(!result);
        QCOMPARE(result.error().kind, Error::Kind::Unreachable);
        QVERIFY2(result.error().notConnected, qPrintable(result.error().message));
        QCOMPARE(log.retries(), 3);
    }

    // The API server comes back while the handshake is tried again: the command runs, once.
    void refusedUntilTheServerIsBack()
    {
        const quint16 port = closedPort();
        ExecLog log;
        PodExecClient client;
        QNetworkRequest request(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port) + QString::fromLatin1(ExecPath)));
        auto task = client.run(request, command({"echo", "back"}));
        QTRY_VERIFY_WITH_TIMEOUT(log.retries() >= 1, 15'000);
        ScriptedExecServer server(port);
        QTRY_VERIFY_WITH_TIMEOUT(server.upgraded(0), 15'000);
        server.peer(0)->send(binary(1, "back\n") + status(Success) + closeFrame(1000));
        const auto result = QCoro::waitFor(std::move(task));
        QVERIFY2(result, qPrintable(describe(result)));
        QCOMPARE(result->exec.stdOut, QByteArray("back\n"));
        QCOMPARE(server.peers.size(), 1);
    }

    void badSchemeIsRefused()
    {
        PodExecClient client;
        const auto result =
            QCoro::waitFor(client.run(QNetworkRequest(QUrl("ftp://127.0.0.1/exec")), command({"true"})));
        QVERIFY(!result);
        QCOMPARE(result.error().kind, Error::Kind::InvalidArgument);
    }

    // Pings go out; a peer that stops answering them is dead, one that answers is not.
    void silentPeerIsDead()
    {
        ScriptedExecServer server;
        server.answerPings = false;
        PodExecSettings settings;
        settings.pingInterval = 50ms;
        settings.missedPongs = 3;
        PodExecClient client(settings);
        const auto result = QCoro::waitFor(client.run(server.request(), command({"sleep", "infinity"})));
        QVERIFY(!result);
        QCOMPARE(result.error().kind, Error::Kind::Unreachable);
        QVERIFY2(result.error().message.contains("went silent"), qPrintable(result.error().message));
        QTRY_COMPARE(server.peer()->pings, 3);
    }

    void answeredPingsKeepTheRunAlive()
    {
        ScriptedExecServer server;
        PodExecSettings settings;
        settings.pingInterval = 20ms;
        settings.missedPongs = 2;
        PodExecClient client(settings);
        auto task = client.run(server.request(), command({"sleep", "1"}));
        QTRY_VERIFY(server.upgraded());
        QTRY_VERIFY(server.peer()->pings >= 10); // five times what a silent peer gets
        QVERIFY(!task.isReady());
        server.peer()->send(status(Success) + closeFrame(1000));
        const auto result = QCoro::waitFor(std::move(task));
        QVERIFY2(result, qPrintable(describe(result)));
        QCOMPARE(result->exec.exitCode, 0);
    }

    // Destroyed while runs are suspended (connected, and in the handshake): each ends with
    // Cancelled before the destructor returns, closing its connection; nothing resumes later.
    void destroyedWhileRunsAreSuspended()
    {
        ScriptedExecServer server;
        ScriptedExecServer silent;
        silent.onHandshake = [](Peer &) {};
        auto client = std::make_unique<PodExecClient>();
        Lines got;
        PodExecCommand run = command({"sleep", "infinity"});
        got.attach(run);
        auto connected = client->run(server.request(), std::move(run));
        auto handshaking = client->run(silent.request(), command({"true"}));
        QTRY_VERIFY(server.upgraded());
        QTRY_VERIFY(silent.peer() && silent.peer()->handshakeDone);
        server.peer()->send(binary(1, "line\n"));
        QTRY_COMPARE(got.lines.size(), 1);
        QCOMPARE(client->running(), 2);
        client.reset();
        QVERIFY(connected.isReady());
        QVERIFY(handshaking.isReady());
        const auto first = QCoro::waitFor(std::move(connected));
        const auto second = QCoro::waitFor(std::move(handshaking));
        QVERIFY(!first);
        QCOMPARE(first.error().kind, Error::Kind::Cancelled);
        QVERIFY(!second);
        QCOMPARE(second.error().kind, Error::Kind::Cancelled);
        QTRY_VERIFY(server.peer()->closeCode.has_value() || server.peer()->disconnected);
        QTRY_VERIFY(silent.peer()->disconnected);
        // What was left to run later runs now, under ASAN's eyes.
        QCoreApplication::processEvents();
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
        QCOMPARE(got.lines.size(), 1);
    }

    void abortAllEndsRunsAndRefusesNewOnes()
    {
        ScriptedExecServer server;
        PodExecClient client;
        auto task = client.run(server.request(), command({"sleep", "infinity"}));
        QTRY_VERIFY(server.upgraded());
        client.abortAll();
        QVERIFY(task.isReady());
        const auto result = QCoro::waitFor(std::move(task));
        QVERIFY(!result);
        QCOMPARE(result.error().kind, Error::Kind::Cancelled);
        QCOMPARE(client.running(), 0);
        QTRY_VERIFY(server.peer()->closeCode.has_value());
        const auto refused = QCoro::waitFor(client.run(server.request(), command({"true"})));
        QVERIFY(!refused);
        QCOMPARE(refused.error().kind, Error::Kind::Cancelled);
        QCOMPARE(server.peers.size(), 1);
    }

    // A callback that destroys the client: the run ends when the callback returns.
    void destroyedFromItsOwnCallback()
    {
        ScriptedExecServer server;
        auto client = std::make_unique<PodExecClient>();
        int calls = 0;
        PodExecCommand run = command({"sh", "-c", "yes"});
        run.onLine = [&](OutputChannel, const QByteArray &) {
            ++calls;
            client.reset();
        };
        auto task = client->run(server.request(), std::move(run));
        QTRY_VERIFY(server.upgraded());
        server.peer()->send(binary(1, "a\nb\nc\n"));
        QTRY_VERIFY(task.isReady());
        QVERIFY(!client);
        const auto result = QCoro::waitFor(std::move(task));
        QVERIFY(!result);
        QCOMPARE(result.error().kind, Error::Kind::Cancelled);
        QCOMPARE(calls, 1); // no line after it, not even from the same message
        QTRY_VERIFY(server.peer()->closeCode.has_value() || server.peer()->disconnected);
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    }
};

QTEST_GUILESS_MAIN(TestPodExec)
#include "tst_podexec.moc"
