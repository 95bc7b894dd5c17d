// paddock-fake-kubernetes as its clients see it: the real executable, run as a child process,
// spoken to over HTTPS with QNetworkAccessManager, over WebSocket with QWebSocket (and byte by
// byte with a raw TLS socket), and by kubectl 1.32, which proves that the fake is faithful
// enough to be used as a cluster.

#include "fakekubernetesprocess.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QSignalSpy>
#include <QSslSocket>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QWebSocket>
#include <QWebSocketHandshakeOptions>

#include <functional>
#include <memory>

using namespace Qt::StringLiterals;

namespace {

constexpr int WaitMs = 30'000;
const QString Ns = u"agentscope"_s;
const QByteArray OpenApiSha256 = "e70786b2b36d53fa99dd72910f2ef82a12384abc8d28ce144ebc9899c32b109c";
const QByteArray AggregatedAccept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/"
                                    "json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

bool mustRun()
{
    return qEnvironmentVariable("CI") == u"true"_s;
}

// Under CI=true the kubectl tests must run; elsewhere they are skipped without kubectl.
#define REQUIRE_KUBECTL()                                                                                              \
    do {                                                                                                               \
        if (m_kubectl.isEmpty()) {                                                                                     \
            if (mustRun())                                                                                             \
                QFAIL("kubectl (1.32) is not installed, and CI=true requires the kubectl tests");                      \
            QSKIP("kubectl is not installed");                                                                         \
        }                                                                                                              \
    } while (false)

bool bubblewrapUsable()
{
    const QString bwrap = QStandardPaths::findExecutable(u"bwrap"_s);
    if (bwrap.isEmpty() || QStandardPaths::findExecutable(u"nsenter"_s).isEmpty())
        return false;
    QProcess probe;
    probe.start(bwrap,
                {u"--unshare-all"_s, u"--ro-bind"_s, u"/usr"_s, u"/usr"_s, u"--ro-bind-try"_s, u"/lib"_s, u"/lib"_s,
                 u"--ro-bind-try"_s, u"/lib64"_s, u"/lib64"_s, u"--ro-bind-try"_s, u"/bin"_s, u"/bin"_s, u"--proc"_s,
                 u"/proc"_s, u"--dev"_s, u"/dev"_s, u"--"_s, u"true"_s});
    return probe.waitForFinished(WaitMs) && probe.exitStatus() == QProcess::NormalExit && probe.exitCode() == 0;
}

struct Reply
{
    int status = 0; // 0: no HTTP answer
    QNetworkReply::NetworkError error = QNetworkReply::NoError;
    QByteArray body;
    QHash<QByteArray, QList<QByteArray>> headers; // lower-case names

    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
    QByteArray header(const QByteArray &name) const { return headers.value(name.toLower()).value(0); }
    QString reason() const { return json().value(u"reason"_s).toString(); }
    QString message() const { return json().value(u"message"_s).toString(); }
};

QJsonObject podManifest(const QString &name, const QString &image = u"python:3.11-slim"_s,
                        const QStringList &command = {u"sleep"_s, u"infinity"_s}, const QString &claim = {})
{
    QJsonObject container{{u"name"_s, u"workspace"_s},
                          {u"image"_s, image},
                          {u"command"_s, QJsonArray::fromStringList(command)},
                          {u"workingDir"_s, u"/workspace"_s}};
    QJsonObject spec{{u"restartPolicy"_s, u"OnFailure"_s}};
    if (!claim.isEmpty()) {
        container.insert(u"volumeMounts"_s,
                         QJsonArray{QJsonObject{{u"name"_s, u"workspace-data"_s}, {u"mountPath"_s, u"/workspace"_s}}});
        spec.insert(u"volumes"_s,
                    QJsonArray{QJsonObject{{u"name"_s, u"workspace-data"_s},
                                           {u"persistentVolumeClaim"_s, QJsonObject{{u"claimName"_s, claim}}}}});
    }
    spec.insert(u"containers"_s, QJsonArray{container});
    return QJsonObject{{u"apiVersion"_s, u"v1"_s},
                       {u"kind"_s, u"Pod"_s},
                       {u"metadata"_s,
                        QJsonObject{{u"name"_s, name},
                                    {u"labels"_s,
                                     QJsonObject{{u"app.kubernetes.io/managed-by"_s, u"agentscope"_s},
                                                 {u"agentscope.workspace"_s, u"true"_s},
                                                 {u"agentscope.workspace.id"_s, name}}}}},
                       {u"spec"_s, spec}};
}

QJsonObject pvcManifest(const QString &name, const QString &storageClass = {})
{
    QJsonObject spec{{u"accessModes"_s, QJsonArray{u"ReadWriteOnce"_s}},
                     {u"resources"_s, QJsonObject{{u"requests"_s, QJsonObject{{u"storage"_s, u"1Gi"_s}}}}}};
    if (!storageClass.isNull())
        spec.insert(u"storageClassName"_s, storageClass);
    return QJsonObject{{u"apiVersion"_s, u"v1"_s},
                       {u"kind"_s, u"PersistentVolumeClaim"_s},
                       {u"metadata"_s, QJsonObject{{u"name"_s, name}}},
                       {u"spec"_s, spec}};
}

QByteArray compact(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QJsonObject firstContainerStatus(const QJsonObject &pod)
{
    return pod.value(u"status"_s).toObject().value(u"containerStatuses"_s).toArray().at(0).toObject();
}

QString waitingReason(const QJsonObject &pod)
{
    return firstContainerStatus(pod)
        .value(u"state"_s)
        .toObject()
        .value(u"waiting"_s)
        .toObject()
        .value(u"reason"_s)
        .toString();
}

QJsonObject conditionOf(const QJsonObject &pod, const QString &type)
{
    for (const QJsonValue &condition : pod.value(u"status"_s).toObject().value(u"conditions"_s).toArray()) {
        if (condition.toObject().value(u"type"_s).toString() == type)
            return condition.toObject();
    }
    return {};
}

QStringList itemNames(const QJsonObject &list)
{
    QStringList names;
    for (const QJsonValue &item : list.value(u"items"_s).toArray())
        names.append(item.toObject().value(u"metadata"_s).toObject().value(u"name"_s).toString());
    return names;
}

// A watch (or a follow) as it streams: the lines so far.
class Stream
{
public:
    Stream(QNetworkAccessManager &network, const QNetworkRequest &request)
        : m_reply(network.get(request))
    {
        QObject::connect(m_reply.get(), &QNetworkReply::readyRead, m_reply.get(), [this] {
            m_buffer += m_reply->readAll();
            qsizetype newline;
            while ((newline = m_buffer.indexOf('\n')) >= 0) {
                m_lines.append(m_buffer.left(newline));
                m_buffer.remove(0, newline + 1);
            }
        });
    }

    QNetworkReply *reply() const { return m_reply.get(); }
    const QList<QByteArray> &lines() const { return m_lines; }
    QList<QJsonObject> events() const
    {
        QList<QJsonObject> out;
        for (const QByteArray &line : m_lines)
            out.append(QJsonDocument::fromJson(line).object());
        return out;
    }
    // The events of one type for one object name.
    QStringList types(const QString &name = {}) const
    {
        QStringList out;
        for (const QJsonObject &event : events()) {
            const QString objectName =
                event.value(u"object"_s).toObject().value(u"metadata"_s).toObject().value(u"name"_s).toString();
            if (name.isEmpty() || objectName == name)
                out.append(event.value(u"type"_s).toString());
        }
        return out;
    }
    bool finished() const { return m_reply->isFinished(); }
    QByteArray rest() const { return m_buffer; }

private:
    std::unique_ptr<QNetworkReply> m_reply;
    QByteArray m_buffer;
    QList<QByteArray> m_lines;
};

// A plain HTTP response is all there (head and Content-Length body).
bool responseComplete(const QByteArray &bytes)
{
    const qsizetype end = bytes.indexOf("\r\n\r\n");
    if (end < 0)
        return false;
    qint64 length = 0;
    for (const QByteArray &line : bytes.left(end).split('\n')) {
        if (line.toLower().startsWith("content-length:"))
            length = line.mid(15).trimmed().toLongLong();
    }
    return bytes.size() >= end + 4 + length;
}

struct WsFrame
{
    quint8 opcode = 0;
    bool fin = false;
    bool masked = false;
    QByteArray payload;
};

// Parses the server's WebSocket frames; false if `bytes` ends inside a frame.
bool parseFrames(const QByteArray &bytes, QList<WsFrame> *frames)
{
    qsizetype at = 0;
    while (at < bytes.size()) {
        if (at + 2 > bytes.size())
            return false;
        WsFrame frame;
        const auto b0 = static_cast<quint8>(bytes.at(at));
        const auto b1 = static_cast<quint8>(bytes.at(at + 1));
        frame.fin = b0 & 0x80;
        frame.opcode = b0 & 0x0F;
        frame.masked = b1 & 0x80;
        quint64 length = b1 & 0x7F;
        at += 2;
        if (length == 126) {
            if (at + 2 > bytes.size())
                return false;
            length = (quint64(quint8(bytes.at(at))) << 8) | quint8(bytes.at(at + 1));
            at += 2;
        } else if (length == 127) {
            if (at + 8 > bytes.size())
                return false;
            length = 0;
            for (int i = 0; i < 8; ++i)
                length = (length << 8) | quint8(bytes.at(at + i));
            at += 8;
        }
        if (frame.masked)
            at += 4;
        if (at + qsizetype(length) > bytes.size())
            return false;
        frame.payload = bytes.mid(at, qsizetype(length));
        at += qsizetype(length);
        frames->append(frame);
    }
    return true;
}

QByteArray percent(const QString &text)
{
    return QUrl::toPercentEncoding(text);
}

QString execQuery(const QStringList &argv, const QString &extra = u"&stdout=true&stderr=true"_s)
{
    QString query;
    for (const QString &arg : argv)
        query += u"&command="_s + QString::fromLatin1(percent(arg));
    return u"?container=workspace"_s + query + extra;
}

} // namespace

class TestFakeKubernetes final : public QObject
{
    Q_OBJECT

private:
    PaddockTest::FakeKubernetesProcess m_fake;
    QNetworkAccessManager m_network;
    bool m_bwrap = false;
    QString m_kubectl;
    QTemporaryDir m_kubectlCache;

    QStringList serverArguments(QStringList arguments) const
    {
        if (!m_bwrap)
            arguments << u"--no-bwrap"_s;
        return arguments;
    }

    Reply call(const PaddockTest::FakeKubernetesProcess &fake, const QByteArray &method, const QString &path,
               const QByteArray &body = {}, const QList<QPair<QByteArray, QByteArray>> &headers = {},
               bool withToken = true)
    {
        QNetworkRequest request = fake.request(path, withToken);
        bool contentType = false;
        for (const auto &[name, value] : headers) {
            request.setRawHeader(name, value);
            contentType = contentType || name.toLower() == "content-type";
        }
        if (!body.isEmpty() && !contentType)
            request.setRawHeader("Content-Type", "application/json");
        std::unique_ptr<QNetworkReply> reply(m_network.sendCustomRequest(request, method, body));
        QSignalSpy finished(reply.get(), &QNetworkReply::finished);
        if (!reply->isFinished() && !finished.wait(WaitMs)) {
            qWarning("no answer to %s %s", method.constData(), qPrintable(path));
            return {};
        }
        Reply out;
        out.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        out.error = reply->error();
        out.body = reply->readAll();
        for (const auto &[name, value] : reply->rawHeaderPairs())
            out.headers[name.toLower()].append(value);
        return out;
    }
    Reply call(const QByteArray &method, const QString &path, const QByteArray &body = {},
               const QList<QPair<QByteArray, QByteArray>> &headers = {}, bool withToken = true)
    {
        return call(m_fake, method, path, body, headers, withToken);
    }
    Reply get(const QString &path) { return call("GET", path); }

    Reply createPod(const QJsonObject &manifest, const QString &ns = Ns)
    {
        return call("POST", u"/api/v1/namespaces/%1/pods"_s.arg(ns), compact(manifest));
    }
    Reply createPvc(const QJsonObject &manifest, const QString &ns = Ns)
    {
        return call("POST", u"/api/v1/namespaces/%1/persistentvolumeclaims"_s.arg(ns), compact(manifest));
    }
    QJsonObject pod(const QString &name, const QString &ns = Ns)
    {
        return get(u"/api/v1/namespaces/%1/pods/%2"_s.arg(ns, name)).json();
    }
    bool waitForPod(const QString &name, const std::function<bool(const QJsonObject &)> &done, const QString &ns = Ns)
    {
        return !waitFor(name, done, ns).isEmpty();
    }
    // The Pod as it was when `done` first held (empty if it never did).
    QJsonObject waitFor(const QString &name, const std::function<bool(const QJsonObject &)> &done,
                        const QString &ns = Ns)
    {
        QJsonObject seen;
        [[maybe_unused]] const bool found = QTest::qWaitFor(
            [&] {
                const QJsonObject current = pod(name, ns);
                if (!done(current))
                    return false;
                seen = current;
                return true;
            },
            WaitMs);
        return seen;
    }
    static bool isRunning(const QJsonObject &pod)
    {
        return pod.value(u"status"_s).toObject().value(u"phase"_s).toString() == u"Running"_s
            && firstContainerStatus(pod).value(u"state"_s).toObject().contains(u"running"_s);
    }
    // A workspace as AgentScope makes it: the PVC, then the Pod on it; waits until it runs.
    bool makeWorkspace(const QString &name, const QStringList &command = {u"sleep"_s, u"infinity"_s})
    {
        return createPvc(pvcManifest(name)).status == 201
            && createPod(podManifest(name, u"python:3.11-slim"_s, command, name)).status == 201
            && waitForPod(name, isRunning);
    }
    bool deleteNow(const QString &resource, const QString &name, const QString &ns = Ns)
    {
        const Reply reply =
            call("DELETE", u"/api/v1/namespaces/%1/%2/%3?gracePeriodSeconds=0"_s.arg(ns, resource, name));
        return reply.status == 200 || reply.status == 404;
    }

    struct Exec
    {
        QString protocol;
        QList<QByteArray> messages;
        QByteArray out;
        QByteArray err;
        QJsonObject status;
        int statusCount = 0;
        bool closed = false;
        QWebSocketProtocol::CloseCode closeCode = QWebSocketProtocol::CloseCodeNormal;
        QString error;
    };
    // Runs an exec over QWebSocket; `afterOpen` may send on the socket once the ready message came.
    Exec exec(const QString &name, const QStringList &argv, const QStringList &protocols,
              const QString &extra = u"&stdout=true&stderr=true"_s,
              const std::function<void(QWebSocket &)> &afterOpen = {})
    {
        return exec(m_fake, name, argv, protocols, extra, afterOpen);
    }
    Exec exec(const PaddockTest::FakeKubernetesProcess &fake, const QString &name, const QStringList &argv,
              const QStringList &protocols, const QString &extra = u"&stdout=true&stderr=true"_s,
              const std::function<void(QWebSocket &)> &afterOpen = {})
    {
        Exec result;
        QWebSocket socket;
        QUrl url = fake.base();
        url.setScheme(u"wss"_s);
        url.setPath(u"/api/v1/namespaces/%1/pods/%2/exec"_s.arg(Ns, name));
        url.setQuery(execQuery(argv, extra).mid(1), QUrl::StrictMode);
        QNetworkRequest request(url);
        request.setRawHeader("Authorization", "Bearer " + fake.token().toUtf8());
        socket.setSslConfiguration(fake.sslConfiguration());
        QWebSocketHandshakeOptions options;
        options.setSubprotocols(protocols);
        bool sentAfterOpen = false;
        QObject::connect(&socket, &QWebSocket::binaryMessageReceived, &socket, [&](const QByteArray &message) {
            result.messages.append(message);
            if (message.isEmpty())
                return;
            switch (message.at(0)) {
            case 1:
                result.out += message.mid(1);
                break;
            case 2:
                result.err += message.mid(1);
                break;
            case 3:
                ++result.statusCount;
                result.status = QJsonDocument::fromJson(message.mid(1)).object();
                break;
            default:
                break;
            }
            if (afterOpen && !sentAfterOpen) {
                sentAfterOpen = true;
                // Not from inside the socket's own message handling.
                QTimer::singleShot(0, &socket, [&] { afterOpen(socket); });
            }
        });
        QSignalSpy disconnected(&socket, &QWebSocket::disconnected);
        socket.open(request, options);
        if (!disconnected.wait(WaitMs))
            result.error = u"the exec did not end"_s;
        result.protocol = socket.subprotocol();
        result.closed = true;
        result.closeCode = socket.closeCode();
        if (result.messages.isEmpty() && result.error.isEmpty())
            result.error = socket.errorString();
        return result;
    }

    // One HTTP exchange over a raw TLS socket: what the server sent until it closed, or until
    // `done` says the bytes so far are enough.
    QByteArray raw(const QByteArray &request, const std::function<bool(const QByteArray &)> &done = {})
    {
        QSslSocket socket;
        socket.setSslConfiguration(m_fake.sslConfiguration());
        socket.connectToHostEncrypted(u"127.0.0.1"_s, static_cast<quint16>(m_fake.port()));
        if (!socket.waitForEncrypted(WaitMs))
            return {};
        socket.write(request);
        QByteArray received;
        QElapsedTimer timer;
        timer.start();
        while (timer.elapsed() < WaitMs) {
            if (socket.bytesAvailable() == 0 && !socket.waitForReadyRead(1000)) {
                if (socket.state() != QAbstractSocket::ConnectedState)
                    break;
                continue;
            }
            received += socket.readAll();
            if (done ? done(received) : responseComplete(received))
                break;
        }
        return received + socket.readAll();
    }

    QByteArray upgradeRequest(const QString &target, const QByteArray &protocols = "v5.channel.k8s.io",
                              bool upgrade = true) const
    {
        QByteArray request = "GET " + target.toUtf8() + " HTTP/1.1\r\nHost: 127.0.0.1:"
            + QByteArray::number(m_fake.port()) + "\r\nAuthorization: Bearer " + m_fake.token().toUtf8() + "\r\n";
        if (upgrade) {
            request += "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
                       "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";
        }
        if (!protocols.isEmpty())
            request += "Sec-WebSocket-Protocol: " + protocols + "\r\n";
        return request + "\r\n";
    }

    struct Run
    {
        int exitCode = -1;
        QByteArray out;
        QByteArray err;
    };
    Run kubectl(const QStringList &arguments, const QByteArray &input = {}, bool closeInput = true)
    {
        return kubectlWith(m_fake.kubeconfigPath(), arguments, input, closeInput);
    }
    Run kubectlWith(const QString &kubeconfig, const QStringList &arguments, const QByteArray &input = {},
                    bool closeInput = true)
    {
        QProcess process;
        process.start(m_kubectl,
                      QStringList{u"--kubeconfig"_s, kubeconfig, u"--cache-dir"_s, m_kubectlCache.path()} + arguments);
        Run run;
        if (!process.waitForStarted(WaitMs))
            return run;
        if (!input.isEmpty())
            process.write(input);
        if (closeInput)
            process.closeWriteChannel();
        if (!process.waitForFinished(60'000)) {
            process.kill();
            process.waitForFinished();
        }
        run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
        run.out = process.readAllStandardOutput();
        run.err = process.readAllStandardError();
        return run;
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_bwrap = bubblewrapUsable();
        if (!m_bwrap && mustRun())
            QFAIL("bubblewrap (with nsenter) is not usable here, and CI=true requires the confined exec tests");
        m_kubectl = QStandardPaths::findExecutable(u"kubectl"_s);
        QVERIFY(m_kubectlCache.isValid());
        QVERIFY2(m_fake.start(serverArguments({u"--pod-start-ms"_s, u"150"_s, u"--grace-ms"_s, u"300"_s,
                                               u"--pull-backoff-ms"_s, u"300"_s, u"--crash-backoff-ms"_s, u"300"_s,
                                               u"--bookmark-ms"_s, u"300"_s, u"--seed"_s, u"12"_s})),
                 qPrintable(m_fake.error()));
    }

    void firstLineIsTheUrlAndTheKubeconfigIsUsable()
    {
        QCOMPARE(m_fake.base().scheme(), u"https"_s);
        QCOMPARE(m_fake.base().host(), u"127.0.0.1"_s);
        QFile file(m_fake.kubeconfigPath());
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray config = file.readAll();
        QVERIFY(config.contains("current-context: paddock-fake\n"));
        QVERIFY(config.contains(QByteArray("    server: " + m_fake.base().toString().toUtf8() + "\n")));
        QVERIFY(config.contains("    namespace: \"agentscope\"\n"));
        QVERIFY(config.contains("    token: \"paddock-test-token\"\n"));
        QCOMPARE(m_fake.caCertificates().size(), 1);
        QVERIFY(!m_fake.clientCertificate().isNull());
        QVERIFY(!(QFileInfo(m_fake.kubeconfigPath()).permissions() & (QFile::ReadOther | QFile::ReadGroup)));
    }

    void tlsAndAuthentication()
    {
        // The bearer token.
        const Reply ok = get(u"/version"_s);
        QCOMPARE(ok.status, 200);
        // Without it, or with a wrong one: 401 with the API server's Status.
        const QByteArray unauthorized =
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401})";
        const Reply none = call("GET", u"/api/v1/namespaces/agentscope/pods"_s, {}, {}, false);
        QCOMPARE(none.status, 401);
        QCOMPARE(none.body, unauthorized);
        const Reply wrong = call("GET", u"/version"_s, {}, {{"Authorization", "Bearer nope"}}, false);
        QCOMPARE(wrong.status, 401);
        QCOMPARE(wrong.body, unauthorized);
        // The kubeconfig's client certificate authenticates instead of the token.
        QNetworkRequest request = m_fake.request(u"/api/v1/namespaces/agentscope/pods?limit=1"_s, false);
        QSslConfiguration tls = m_fake.sslConfiguration();
        tls.setLocalCertificate(m_fake.clientCertificate());
        tls.setPrivateKey(m_fake.clientKey());
        request.setSslConfiguration(tls);
        QNetworkAccessManager fresh; // not a connection made without the certificate
        std::unique_ptr<QNetworkReply> reply(fresh.get(request));
        QSignalSpy finished(reply.get(), &QNetworkReply::finished);
        QVERIFY(finished.wait(WaitMs));
        QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
        // A client that does not trust the fake's CA does not get through the handshake.
        QNetworkRequest untrusted(m_fake.base().resolved(QUrl(u"/version"_s)));
        QNetworkAccessManager another; // not a connection that trusted the CA
        std::unique_ptr<QNetworkReply> refused(another.get(untrusted));
        QSignalSpy refusedFinished(refused.get(), &QNetworkReply::finished);
        QVERIFY(refusedFinished.wait(WaitMs));
        QCOMPARE(refused->error(), QNetworkReply::SslHandshakeFailedError);
        // The test-only routes need no token.
        QVERIFY(m_fake.stats().contains(u"requests"_s));
    }

    void versionAndDiscovery()
    {
        const QJsonObject version = get(u"/version?timeout=5s"_s).json();
        QCOMPARE(version.value(u"major"_s).toString(), u"1"_s);
        QCOMPARE(version.value(u"minor"_s).toString(), u"32"_s);
        QCOMPARE(version.value(u"gitVersion"_s).toString(), u"v1.32.4"_s);
        QCOMPARE(version.value(u"platform"_s).toString(), u"linux/amd64"_s);

        const Reply aggregated = call("GET", u"/api?timeout=32s"_s, {}, {{"Accept", AggregatedAccept}});
        QCOMPARE(aggregated.status, 200);
        QCOMPARE(aggregated.header("content-type"),
                 "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
        QCOMPARE(aggregated.json().value(u"kind"_s).toString(), u"APIGroupDiscoveryList"_s);
        QCOMPARE(aggregated.json().value(u"apiVersion"_s).toString(), u"apidiscovery.k8s.io/v2"_s);
        const QJsonArray resources = aggregated.json()
                                         .value(u"items"_s)
                                         .toArray()
                                         .at(0)
                                         .toObject()
                                         .value(u"versions"_s)
                                         .toArray()
                                         .at(0)
                                         .toObject()
                                         .value(u"resources"_s)
                                         .toArray();
        QStringList names;
        QStringList podSubresources;
        for (const QJsonValue &resource : resources) {
            names.append(resource.toObject().value(u"resource"_s).toString());
            if (names.last() == u"pods"_s) {
                for (const QJsonValue &sub : resource.toObject().value(u"subresources"_s).toArray())
                    podSubresources.append(sub.toObject().value(u"subresource"_s).toString());
            }
        }
        QVERIFY(names.contains(u"pods"_s) && names.contains(u"persistentvolumeclaims"_s)
                && names.contains(u"namespaces"_s));
        QVERIFY(podSubresources.contains(u"exec"_s) && podSubresources.contains(u"log"_s));
        const Reply v2beta1 =
            call("GET", u"/apis"_s, {},
                 {{"Accept", "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"}});
        QCOMPARE(v2beta1.header("content-type"),
                 "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList");
        // The one group besides the core: the metrics API (metricsapi.cpp).
        const QJsonArray groups = v2beta1.json().value(u"items"_s).toArray();
        QCOMPARE(groups.size(), 1);
        QCOMPARE(groups.at(0).toObject().value(u"metadata"_s).toObject().value(u"name"_s).toString(),
                 u"metrics.k8s.io"_s);

        // Legacy documents for a client that does not ask for the aggregated ones.
        const Reply legacy = get(u"/api"_s);
        QCOMPARE(legacy.header("content-type"), "application/json");
        QCOMPARE(legacy.json().value(u"kind"_s).toString(), u"APIVersions"_s);
        QCOMPARE(legacy.json().value(u"versions"_s).toArray(), QJsonArray{u"v1"_s});
        QCOMPARE(get(u"/apis"_s).json().value(u"kind"_s).toString(), u"APIGroupList"_s);
        QCOMPARE(get(u"/apis"_s).json().value(u"groups"_s).toArray().at(0).toObject().value(u"name"_s).toString(),
                 u"metrics.k8s.io"_s);
        const QJsonObject list = get(u"/api/v1"_s).json();
        QCOMPARE(list.value(u"kind"_s).toString(), u"APIResourceList"_s);
        QStringList listed;
        for (const QJsonValue &resource : list.value(u"resources"_s).toArray())
            listed.append(resource.toObject().value(u"name"_s).toString());
        for (const QString &name :
             {u"pods"_s, u"pods/exec"_s, u"pods/log"_s, u"persistentvolumeclaims"_s, u"namespaces"_s})
            QVERIFY2(listed.contains(name), qPrintable(name));
        QCOMPARE(get(u"/api/v1/services"_s).status, 404);
        QCOMPARE(get(u"/apis/apps/v1"_s).status, 404);
    }

    void openApiIsTheUpstreamDocument()
    {
        const QJsonObject root = get(u"/openapi/v3?timeout=32s"_s).json();
        const QString url =
            root.value(u"paths"_s).toObject().value(u"api/v1"_s).toObject().value(u"serverRelativeURL"_s).toString();
        QVERIFY2(url.startsWith(u"/openapi/v3/api/v1?hash="_s), qPrintable(url));
        const Reply document = get(url + u"&timeout=32s"_s);
        QCOMPARE(document.status, 200);
        QCOMPARE(document.header("content-type"), "application/json");
        QCOMPARE(document.header("cache-control"), "public, immutable");
        QCOMPARE(QCryptographicHash::hash(document.body, QCryptographicHash::Sha256).toHex(), OpenApiSha256);
        QCOMPARE(QCryptographicHash::hash(get(u"/openapi/v3/api/v1?hash=whatever"_s).body, QCryptographicHash::Sha256)
                     .toHex(),
                 OpenApiSha256);
        QCOMPARE(get(u"/openapi/v2"_s).status, 404);
    }

    void namespaces()
    {
        const Reply existing = get(u"/api/v1/namespaces/agentscope"_s);
        QCOMPARE(existing.status, 200);
        QCOMPARE(existing.json().value(u"kind"_s).toString(), u"Namespace"_s);
        QCOMPARE(existing.json().value(u"status"_s).toObject().value(u"phase"_s).toString(), u"Active"_s);
        const Reply missing = get(u"/api/v1/namespaces/team-x"_s);
        QCOMPARE(missing.status, 404);
        QCOMPARE(
            missing.body,
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":"
            "\"namespaces \\\"team-x\\\" not "
            "found\",\"reason\":\"NotFound\",\"details\":{\"name\":\"team-x\",\"kind\":\"namespaces\"},\"code\":404}");
        // A Pod in a namespace that does not exist.
        QCOMPARE(createPod(podManifest(u"p"_s), u"team-x"_s).status, 404);
        const Reply made = call("POST", u"/api/v1/namespaces"_s, R"({"metadata":{"name":"team-x"}})");
        QCOMPARE(made.status, 201);
        QCOMPARE(made.json()
                     .value(u"metadata"_s)
                     .toObject()
                     .value(u"labels"_s)
                     .toObject()
                     .value(u"kubernetes.io/metadata.name"_s)
                     .toString(),
                 u"team-x"_s);
        QCOMPARE(get(u"/api/v1/namespaces/team-x"_s).status, 200);
        QCOMPARE(call("POST", u"/api/v1/namespaces"_s, R"({"metadata":{"name":"team-x"}})").reason(),
                 u"AlreadyExists"_s);
        QCOMPARE(call("POST", u"/api/v1/namespaces"_s, R"({"metadata":{"name":"Team.X"}})").status, 422);
        QVERIFY(itemNames(get(u"/api/v1/namespaces"_s).json()).contains(u"team-x"_s));
    }

    void createGetAndErrors()
    {
        // No apiVersion and kind: the URL decides.
        QJsonObject manifest = podManifest(u"as-ws-create"_s);
        manifest.remove(u"apiVersion"_s);
        manifest.remove(u"kind"_s);
        const Reply created = createPod(manifest);
        QCOMPARE(created.status, 201);
        const QJsonObject object = created.json();
        QCOMPARE(object.value(u"kind"_s).toString(), u"Pod"_s);
        QCOMPARE(object.value(u"apiVersion"_s).toString(), u"v1"_s);
        const QJsonObject metadata = object.value(u"metadata"_s).toObject();
        QCOMPARE(metadata.value(u"namespace"_s).toString(), Ns);
        QVERIFY(QRegularExpression(u"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"_s)
                    .match(metadata.value(u"uid"_s).toString())
                    .hasMatch());
        QVERIFY(QRegularExpression(u"^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$"_s)
                    .match(metadata.value(u"creationTimestamp"_s).toString())
                    .hasMatch());
        QVERIFY(metadata.value(u"resourceVersion"_s).toString().toULongLong() > 0);
        const QJsonObject spec = object.value(u"spec"_s).toObject();
        QCOMPARE(spec.value(u"terminationGracePeriodSeconds"_s).toInt(), 30);
        QCOMPARE(spec.value(u"dnsPolicy"_s).toString(), u"ClusterFirst"_s);
        QCOMPARE(spec.value(u"schedulerName"_s).toString(), u"default-scheduler"_s);
        QCOMPARE(spec.value(u"serviceAccountName"_s).toString(), u"default"_s);
        QCOMPARE(spec.value(u"restartPolicy"_s).toString(), u"OnFailure"_s);
        QVERIFY(spec.value(u"volumes"_s)
                    .toArray()
                    .last()
                    .toObject()
                    .value(u"name"_s)
                    .toString()
                    .startsWith(u"kube-api-access-"_s));
        const QJsonObject container = spec.value(u"containers"_s).toArray().at(0).toObject();
        QCOMPARE(container.value(u"imagePullPolicy"_s).toString(), u"IfNotPresent"_s);
        QCOMPARE(container.value(u"terminationMessagePath"_s).toString(), u"/dev/termination-log"_s);
        QCOMPARE(object.value(u"status"_s).toObject().value(u"phase"_s).toString(), u"Pending"_s);
        QCOMPARE(object.value(u"status"_s).toObject().value(u"qosClass"_s).toString(), u"BestEffort"_s);

        const Reply fetched = get(u"/api/v1/namespaces/agentscope/pods/as-ws-create"_s);
        QCOMPARE(fetched.status, 200);
        QCOMPARE(fetched.json().value(u"metadata"_s).toObject().value(u"uid"_s), metadata.value(u"uid"_s));

        const Reply again = createPod(podManifest(u"as-ws-create"_s));
        QCOMPARE(again.status, 409);
        QCOMPARE(again.body,
                 "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"pods "
                 "\\\"as-ws-create\\\" already "
                 "exists\",\"reason\":\"AlreadyExists\",\"details\":{\"name\":\"as-ws-create\",\"kind\":\"pods\"},"
                 "\"code\":409}");
        const Reply missing = get(u"/api/v1/namespaces/agentscope/pods/nope"_s);
        QCOMPARE(missing.status, 404);
        QCOMPARE(missing.body,
                 "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"pods "
                 "\\\"nope\\\" not "
                 "found\",\"reason\":\"NotFound\",\"details\":{\"name\":\"nope\",\"kind\":\"pods\"},\"code\":404}");

        QJsonObject otherNs = podManifest(u"as-ws-ns"_s);
        QJsonObject otherMeta = otherNs.value(u"metadata"_s).toObject();
        otherMeta.insert(u"namespace"_s, u"default"_s);
        otherNs.insert(u"metadata"_s, otherMeta);
        const Reply mismatch = createPod(otherNs);
        QCOMPARE(mismatch.status, 400);
        QCOMPARE(mismatch.reason(), u"BadRequest"_s);
        QCOMPARE(mismatch.message(),
                 u"the namespace of the provided object does not match the namespace sent on the request"_s);
        QJsonObject service = podManifest(u"as-ws-kind"_s);
        service.insert(u"kind"_s, u"Service"_s);
        const Reply wrongKind = createPod(service);
        QCOMPARE(wrongKind.status, 400);
        QVERIFY2(wrongKind.message().contains(u"cannot be handled as a Pod"_s), qPrintable(wrongKind.message()));
        QCOMPARE(call("POST", u"/api/v1/namespaces/agentscope/pods"_s, "{not json").status, 400);
        const Reply noType = call("POST", u"/api/v1/namespaces/agentscope/pods"_s, compact(podManifest(u"x"_s)),
                                  {{"Content-Type", "text/plain"}});
        QCOMPARE(noType.status, 415);
        QCOMPARE(noType.reason(), u"UnsupportedMediaType"_s);
        QCOMPARE(call("PUT", u"/api/v1/namespaces/agentscope/pods/as-ws-create"_s, "{}").reason(),
                 u"MethodNotAllowed"_s);

        // generateName
        QJsonObject generated = podManifest(QString());
        QJsonObject generatedMeta = generated.value(u"metadata"_s).toObject();
        generatedMeta.remove(u"name"_s);
        generatedMeta.insert(u"generateName"_s, u"gen-"_s);
        generated.insert(u"metadata"_s, generatedMeta);
        const QString generatedName =
            createPod(generated).json().value(u"metadata"_s).toObject().value(u"name"_s).toString();
        QVERIFY2(QRegularExpression(u"^gen-[a-z0-9]{5}$"_s).match(generatedName).hasMatch(), qPrintable(generatedName));
        QVERIFY(deleteNow(u"pods"_s, generatedName));
        QVERIFY(deleteNow(u"pods"_s, u"as-ws-create"_s));
    }

    void validation()
    {
        const Reply badName = createPod(podManifest(u"My_Pod"_s));
        QCOMPARE(badName.status, 422);
        QCOMPARE(badName.reason(), u"Invalid"_s);
        QVERIFY2(
            badName.message().startsWith(
                u"Pod \"My_Pod\" is invalid: metadata.name: Invalid value: \"My_Pod\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"_s),
            qPrintable(badName.message()));
        const QJsonObject details = badName.json().value(u"details"_s).toObject();
        QCOMPARE(details.value(u"kind"_s).toString(), u"Pod"_s);
        QCOMPARE(details.value(u"name"_s).toString(), u"My_Pod"_s);
        const QJsonObject cause = details.value(u"causes"_s).toArray().at(0).toObject();
        QCOMPARE(cause.value(u"reason"_s).toString(), u"FieldValueInvalid"_s);
        QCOMPARE(cause.value(u"field"_s).toString(), u"metadata.name"_s);
        QVERIFY(cause.value(u"message"_s)
                    .toString()
                    .startsWith(u"Invalid value: \"My_Pod\": a lowercase RFC 1123 subdomain"_s));

        // AgentScope's raw workspace id as a label value (upstream defect 1.7.1).
        QJsonObject labelled = podManifest(u"as-ws-team-alice"_s);
        QJsonObject meta = labelled.value(u"metadata"_s).toObject();
        QJsonObject labels = meta.value(u"labels"_s).toObject();
        labels.insert(u"agentscope.workspace.id"_s, u"team/alice"_s);
        meta.insert(u"labels"_s, labels);
        labelled.insert(u"metadata"_s, meta);
        const Reply badLabel = createPod(labelled);
        QCOMPARE(badLabel.status, 422);
        QCOMPARE(
            badLabel.message(),
            u"Pod \"as-ws-team-alice\" is invalid: metadata.labels: Invalid value: \"team/alice\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"_s);
        QCOMPARE(badLabel.json()
                     .value(u"details"_s)
                     .toObject()
                     .value(u"causes"_s)
                     .toArray()
                     .at(0)
                     .toObject()
                     .value(u"field"_s)
                     .toString(),
                 u"metadata.labels"_s);
        labels.remove(u"agentscope.workspace.id"_s);
        labels.insert(u"-bad"_s, u"x"_s);
        labels.insert(u"ok"_s, QString(64, u'a'));
        meta.insert(u"labels"_s, labels);
        labelled.insert(u"metadata"_s, meta);
        const Reply two = createPod(labelled);
        QCOMPARE(two.status, 422);
        QVERIFY2(two.message().startsWith(u"Pod \"as-ws-team-alice\" is invalid: ["_s), qPrintable(two.message()));
        QCOMPARE(two.json().value(u"details"_s).toObject().value(u"causes"_s).toArray().size(), 2);

        QJsonObject noContainers = podManifest(u"as-ws-empty"_s);
        noContainers.insert(u"spec"_s, QJsonObject{{u"containers"_s, QJsonArray()}});
        QCOMPARE(createPod(noContainers).message(),
                 u"Pod \"as-ws-empty\" is invalid: spec.containers: Required value"_s);
        QJsonObject pvc = pvcManifest(u"as-ws-badpvc"_s);
        pvc.insert(u"spec"_s,
                   QJsonObject{{u"resources"_s, QJsonObject{{u"requests"_s, QJsonObject{{u"storage"_s, u"1Gi"_s}}}}}});
        const Reply badPvc = createPvc(pvc);
        QCOMPARE(badPvc.status, 422);
        QCOMPARE(
            badPvc.message(),
            u"PersistentVolumeClaim \"as-ws-badpvc\" is invalid: spec.accessModes: Required value: at least 1 access mode is required"_s);
    }

    void fieldValidation()
    {
        QJsonObject manifest = podManifest(u"as-ws-fields"_s);
        QJsonObject spec = manifest.value(u"spec"_s).toObject();
        spec.insert(u"foo"_s, 1);
        manifest.insert(u"spec"_s, spec);
        const Reply strict =
            call("POST", u"/api/v1/namespaces/agentscope/pods?fieldManager=kubectl-create&fieldValidation=Strict"_s,
                 compact(manifest));
        QCOMPARE(strict.status, 400);
        QCOMPARE(
            strict.message(),
            u"Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: unknown field \"spec.foo\""_s);
        // Warn (the default): created without the field, with a Warning header.
        const Reply warned = createPod(manifest);
        QCOMPARE(warned.status, 201);
        QCOMPARE(warned.header("warning"), "299 - \"unknown field \\\"spec.foo\\\"\"");
        QVERIFY(!warned.json().value(u"spec"_s).toObject().contains(u"foo"_s));
        QVERIFY(deleteNow(u"pods"_s, u"as-ws-fields"_s));
        const Reply ignored =
            call("POST", u"/api/v1/namespaces/agentscope/pods?fieldValidation=Ignore"_s, compact(manifest));
        QCOMPARE(ignored.status, 201);
        QVERIFY(!ignored.headers.contains("warning"));
        QVERIFY(deleteNow(u"pods"_s, u"as-ws-fields"_s));
        spec.remove(u"foo"_s);
        spec.insert(u"terminationGracePeriodSeconds"_s, u"soon"_s);
        manifest.insert(u"spec"_s, spec);
        const Reply mistyped = createPod(manifest);
        QCOMPARE(mistyped.status, 400);
        QVERIFY2(
            mistyped.message().contains(
                u"cannot unmarshal string into Go struct field PodSpec.spec.terminationGracePeriodSeconds of type int64"_s),
            qPrintable(mistyped.message()));
    }

    void podStartsLikeAKubelet()
    {
        QVERIFY(createPvc(pvcManifest(u"as-ws-start"_s)).status == 201);
        QCOMPARE(createPod(podManifest(u"as-ws-start"_s, u"python:3.11-slim"_s, {u"sleep"_s, u"infinity"_s},
                                       u"as-ws-start"_s))
                     .status,
                 201);
        // Scheduled, then ContainerCreating while "pulling", then Running.
        QVERIFY(waitForPod(u"as-ws-start"_s, [](const QJsonObject &p) {
            return waitingReason(p) == u"ContainerCreating"_s || isRunning(p);
        }));
        QVERIFY(waitForPod(u"as-ws-start"_s, isRunning));
        const QJsonObject running = pod(u"as-ws-start"_s);
        QCOMPARE(running.value(u"spec"_s).toObject().value(u"nodeName"_s).toString(), u"node-1"_s);
        for (const QString &type :
             {u"PodReadyToStartContainers"_s, u"Initialized"_s, u"Ready"_s, u"ContainersReady"_s, u"PodScheduled"_s})
            QCOMPARE(conditionOf(running, type).value(u"status"_s).toString(), u"True"_s);
        const QJsonObject status = firstContainerStatus(running);
        QCOMPARE(status.value(u"name"_s).toString(), u"workspace"_s);
        QVERIFY(status.value(u"ready"_s).toBool());
        QVERIFY(status.value(u"started"_s).toBool());
        QCOMPARE(status.value(u"restartCount"_s).toInt(), 0);
        QVERIFY(status.value(u"containerID"_s).toString().startsWith(u"containerd://"_s));
        QCOMPARE(status.value(u"image"_s).toString(), u"docker.io/library/python:3.11-slim"_s);
        QVERIFY(status.value(u"state"_s).toObject().value(u"running"_s).toObject().contains(u"startedAt"_s));
        QVERIFY(!running.value(u"status"_s).toObject().value(u"podIP"_s).toString().isEmpty());
        QVERIFY(!running.value(u"status"_s).toObject().value(u"startTime"_s).toString().isEmpty());
        QVERIFY(deleteNow(u"pods"_s, u"as-ws-start"_s));
        QVERIFY(deleteNow(u"persistentvolumeclaims"_s, u"as-ws-start"_s));
    }

    void imagesThatCannotBePulled()
    {
        QCOMPARE(createPod(podManifest(u"as-ws-pull"_s, u"nginx:missing"_s)).status, 201);
        const QJsonObject pulling =
            waitFor(u"as-ws-pull"_s, [](const QJsonObject &p) { return waitingReason(p) == u"ErrImagePull"_s; });
        QVERIFY(!pulling.isEmpty());
        const QString pullMessage = firstContainerStatus(pulling)
                                        .value(u"state"_s)
                                        .toObject()
                                        .value(u"waiting"_s)
                                        .toObject()
                                        .value(u"message"_s)
                                        .toString();
        QVERIFY2(pullMessage.contains(u"failed to pull and unpack image \"docker.io/library/nginx:missing\""_s)
                     && pullMessage.contains(u"not found"_s),
                 qPrintable(pullMessage));
        const QJsonObject backingOff =
            waitFor(u"as-ws-pull"_s, [](const QJsonObject &p) { return waitingReason(p) == u"ImagePullBackOff"_s; });
        QVERIFY(!backingOff.isEmpty());
        QCOMPARE(firstContainerStatus(backingOff)
                     .value(u"state"_s)
                     .toObject()
                     .value(u"waiting"_s)
                     .toObject()
                     .value(u"message"_s)
                     .toString(),
                 u"Back-off pulling image \"nginx:missing\""_s);
        QCOMPARE(backingOff.value(u"status"_s).toObject().value(u"phase"_s).toString(), u"Pending"_s);
        QCOMPARE(conditionOf(backingOff, u"Ready"_s).value(u"reason"_s).toString(), u"ContainersNotReady"_s);
        QVERIFY(deleteNow(u"pods"_s, u"as-ws-pull"_s));

        QCOMPARE(createPod(podManifest(u"as-ws-badimage"_s, u"Not/Valid:x"_s)).status, 201);
        QVERIFY(waitForPod(u"as-ws-badimage"_s,
                           [](const QJsonObject &p) { return waitingReason(p) == u"InvalidImageName"_s; }));
        QVERIFY(deleteNow(u"pods"_s, u"as-ws-badimage"_s));
    }

    void unschedulablePods()
    {
        QJsonObject selective = podManifest(u"as-ws-ssd"_s);
        QJsonObject spec = selective.value(u"spec"_s).toObject();
        spec.insert(u"nodeSelector"_s, QJsonObject{{u"disktype"_s, u"ssd"_s}});
        selective.insert(u"spec"_s, spec);
        QCOMPARE(createPod(selective).status, 201);
        const QJsonObject unscheduled = waitFor(u"as-ws-ssd"_s, [](const QJsonObject &p) {
            return conditionOf(p, u"PodScheduled"_s).value(u"reason"_s).toString() == u"Unschedulable"_s;
        });
        QVERIFY(!unscheduled.isEmpty());
        const QJsonObject scheduled = conditionOf(unscheduled, u"PodScheduled"_s);
        QCOMPARE(scheduled.value(u"status"_s).toString(), u"False"_s);
        QCOMPARE(
            scheduled.value(u"message"_s).toString(),
            u"0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."_s);
        QCOMPARE(pod(u"as-ws-ssd"_s).value(u"status"_s).toObject().value(u"phase"_s).toString(), u"Pending"_s);
        QVERIFY(deleteNow(u"pods"_s, u"as-ws-ssd"_s));

        // A Pod whose PVC does not exist yet waits; it starts once the PVC is there and bound.
        QCOMPARE(createPod(podManifest(u"as-ws-later"_s, u"python:3.11-slim"_s, {u"sleep"_s, u"infinity"_s},
                                       u"as-ws-later"_s))
                     .status,
                 201);
        QVERIFY(waitForPod(u"as-ws-later"_s, [](const QJsonObject &p) {
            return conditionOf(p, u"PodScheduled"_s)
                .value(u"message"_s)
                .toString()
                .contains(u"persistentvolumeclaim \"as-ws-later\" not found"_s);
        }));
        QCOMPARE(createPvc(pvcManifest(u"as-ws-later"_s)).status, 201);
        QVERIFY(waitForPod(u"as-ws-later"_s, isRunning));
        QVERIFY(deleteNow(u"pods"_s, u"as-ws-later"_s));
        QVERIFY(deleteNow(u"persistentvolumeclaims"_s, u"as-ws-later"_s));
    }

    void pvcBindingAndProtection()
    {
        const Reply created = createPvc(pvcManifest(u"as-ws-pvc"_s));
        QCOMPARE(created.status, 201);
        QCOMPARE(created.json().value(u"metadata"_s).toObject().value(u"finalizers"_s).toArray(),
                 QJsonArray{u"kubernetes.io/pvc-protection"_s});
        QCOMPARE(created.json().value(u"status"_s).toObject().value(u"phase"_s).toString(), u"Pending"_s);
        QCOMPARE(created.json().value(u"spec"_s).toObject().value(u"storageClassName"_s).toString(), u"standard"_s);
        const QString path = u"/api/v1/namespaces/agentscope/persistentvolumeclaims/as-ws-pvc"_s;
        QVERIFY(QTest::qWaitFor(
            [&] { return get(path).json().value(u"status"_s).toObject().value(u"phase"_s).toString() == u"Bound"_s; },
            WaitMs));
        const QJsonObject bound = get(path).json();
        const QString uid = bound.value(u"metadata"_s).toObject().value(u"uid"_s).toString();
        QCOMPARE(bound.value(u"spec"_s).toObject().value(u"volumeName"_s).toString(), u"pvc-"_s + uid);
        QCOMPARE(bound.value(u"status"_s).toObject().value(u"capacity"_s).toObject().value(u"storage"_s).toString(),
                 u"1Gi"_s);
        QCOMPARE(bound.value(u"status"_s).toObject().value(u"accessModes"_s).toArray(), QJsonArray{u"ReadWriteOnce"_s});
        const QString hostPath = QJsonDocument::fromJson(m_fake.control("GET", u"/_fake/pvcs/agentscope/as-ws-pvc"_s))
                                     .object()
                                     .value(u"hostPath"_s)
                                     .toString();
        QVERIFY2(QFileInfo(hostPath).isDir(), qPrintable(hostPath));

        QCOMPARE(
            createPod(podManifest(u"as-ws-pvc"_s, u"python:3.11-slim"_s, {u"sleep"_s, u"infinity"_s}, u"as-ws-pvc"_s))
                .status,
            201);
        QVERIFY(waitForPod(u"as-ws-pvc"_s, isRunning));
        // Deleted while a Pod uses it: it stays, terminating, held by its finalizer.
        const Reply deleted = call("DELETE", path);
        QCOMPARE(deleted.status, 200);
        QVERIFY(deleted.json().value(u"metadata"_s).toObject().contains(u"deletionTimestamp"_s));
        const Reply held = get(path);
        QCOMPARE(held.status, 200);
        QVERIFY(held.json().value(u"metadata"_s).toObject().contains(u"deletionTimestamp"_s));
        QCOMPARE(held.json().value(u"metadata"_s).toObject().value(u"finalizers"_s).toArray(),
                 QJsonArray{u"kubernetes.io/pvc-protection"_s});
        // A new Pod cannot use a PVC that is being deleted.
        QCOMPARE(
            createPod(podManifest(u"as-ws-pvc2"_s, u"python:3.11-slim"_s, {u"sleep"_s, u"infinity"_s}, u"as-ws-pvc"_s))
                .status,
            201);
        QVERIFY(waitForPod(u"as-ws-pvc2"_s, [](const QJsonObject &p) {
            return conditionOf(p, u"PodScheduled"_s).value(u"message"_s).toString().contains(u"is being deleted"_s);
        }));
        QVERIFY(deleteNow(u"pods"_s, u"as-ws-pvc2"_s));
        // Once the Pod is gone, so is the PVC, and its volume.
        QVERIFY(deleteNow(u"pods"_s, u"as-ws-pvc"_s));
        QTRY_COMPARE_WITH_TIMEOUT(get(path).status, 404, WaitMs);
        QVERIFY(!QFileInfo::exists(hostPath));

        // A class without a provisioner: the PVC stays Pending, and its Pod unscheduled.
        QCOMPARE(createPvc(pvcManifest(u"as-ws-slow"_s, u"slow"_s)).status, 201);
        QCOMPARE(
            createPod(podManifest(u"as-ws-slow"_s, u"python:3.11-slim"_s, {u"sleep"_s, u"infinity"_s}, u"as-ws-slow"_s))
                .status,
            201);
        QVERIFY(waitForPod(u"as-ws-slow"_s, [](const QJsonObject &p) {
            return conditionOf(p, u"PodScheduled"_s)
                .value(u"message"_s)
                .toString()
                .contains(u"pod has unbound immediate PersistentVolumeClaims"_s);
        }));
        QCOMPARE(get(u"/api/v1/namespaces/agentscope/persistentvolumeclaims/as-ws-slow"_s)
                     .json()
                     .value(u"status"_s)
                     .toObject()
                     .value(u"phase"_s)
                     .toString(),
                 u"Pending"_s);
        QVERIFY(deleteNow(u"pods"_s, u"as-ws-slow"_s));
        QVERIFY(deleteNow(u"persistentvolumeclaims"_s, u"as-ws-slow"_s));
    }

    void deleteOptions()
    {
        QVERIFY(makeWorkspace(u"as-ws-del"_s));
        const QString path = u"/api/v1/namespaces/agentscope/pods/as-ws-del"_s;
        // The default grace period: terminating, then gone after --grace-ms.
        const Reply graceful = call("DELETE", path);
        QCOMPARE(graceful.status, 200);
        const QJsonObject meta = graceful.json().value(u"metadata"_s).toObject();
        QVERIFY(meta.contains(u"deletionTimestamp"_s));
        QCOMPARE(meta.value(u"deletionGracePeriodSeconds"_s).toInt(), 30);
        QCOMPARE(get(path).status, 200);
        // The name stays taken while it terminates.
        QCOMPARE(createPod(podManifest(u"as-ws-del"_s)).reason(), u"AlreadyExists"_s);
        QTRY_COMPARE_WITH_TIMEOUT(get(path).status, 404, WaitMs);

        // The body wins over the query...
        QCOMPARE(
            createPod(podManifest(u"as-ws-del"_s, u"python:3.11-slim"_s, {u"sleep"_s, u"infinity"_s}, u"as-ws-del"_s))
                .status,
            201);
        QVERIFY(waitForPod(u"as-ws-del"_s, isRunning));
        QCOMPARE(call("DELETE", path + u"?gracePeriodSeconds=30"_s,
                      R"({"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0})")
                     .status,
                 200);
        QCOMPARE(get(path).status, 404);
        // ... and the query counts when there is no body (client-node's way).
        QCOMPARE(
            createPod(podManifest(u"as-ws-del"_s, u"python:3.11-slim"_s, {u"sleep"_s, u"infinity"_s}, u"as-ws-del"_s))
                .status,
            201);
        QVERIFY(waitForPod(u"as-ws-del"_s, isRunning));
        QCOMPARE(call("DELETE", path + u"?gracePeriodSeconds=0&propagationPolicy=Background"_s, {},
                      {{"Content-Type", "application/json"}})
                     .status,
                 200);
        QCOMPARE(get(path).status, 404);
        // Preconditions are checked; a missing object is 404.
        QCOMPARE(createPod(podManifest(u"as-ws-del"_s)).status, 201);
        const Reply conflict =
            call("DELETE", path, R"({"preconditions":{"uid":"00000000-0000-0000-0000-000000000000"}})");
        QCOMPARE(conflict.status, 409);
        QCOMPARE(conflict.reason(), u"Conflict"_s);
        QVERIFY(conflict.message().startsWith(
            u"Operation cannot be fulfilled on pods \"as-ws-del\": Precondition failed: UID in precondition"_s));
        // An unscheduled or just-created Pod has no kubelet to wait for: deleted at once.
        QVERIFY(deleteNow(u"pods"_s, u"as-ws-del"_s));
        QCOMPARE(call("DELETE", path).status, 404);
        QVERIFY(deleteNow(u"persistentvolumeclaims"_s, u"as-ws-del"_s));
    }

    void selectors()
    {
        QCOMPARE(call("POST", u"/api/v1/namespaces"_s, R"({"metadata":{"name":"sel"}})").status, 201);
        const QList<QPair<QString, QJsonObject>> pods{
            {u"a"_s, QJsonObject{{u"tier"_s, u"web"_s}, {u"env"_s, u"prod"_s}, {u"n"_s, u"1"_s}}},
            {u"b"_s, QJsonObject{{u"tier"_s, u"db"_s}, {u"env"_s, u"prod"_s}, {u"n"_s, u"5"_s}}},
            {u"c"_s, QJsonObject{{u"tier"_s, u"web"_s}, {u"env"_s, u"dev"_s}}},
            {u"d"_s, QJsonObject{{u"env"_s, u"dev"_s}}}};
        for (const auto &[name, labels] : pods) {
            QJsonObject manifest = podManifest(name);
            QJsonObject meta = manifest.value(u"metadata"_s).toObject();
            meta.insert(u"labels"_s, labels);
            manifest.insert(u"metadata"_s, meta);
            QCOMPARE(createPod(manifest, u"sel"_s).status, 201);
        }
        const auto list = [&](const QString &query) {
            QStringList names = itemNames(get(u"/api/v1/namespaces/sel/pods?"_s + query).json());
            names.sort();
            return names.join(u',');
        };
        const auto labels = [&](const QString &selector) {
            return list(u"labelSelector="_s + QString::fromLatin1(percent(selector)));
        };
        QCOMPARE(labels(u"tier=web"_s), u"a,c"_s);
        QCOMPARE(labels(u"tier==web"_s), u"a,c"_s);
        QCOMPARE(labels(u"tier!=web"_s), u"b,d"_s);
        QCOMPARE(labels(u"tier in (web, db)"_s), u"a,b,c"_s);
        QCOMPARE(labels(u"tier notin (web)"_s), u"b,d"_s);
        QCOMPARE(labels(u"tier"_s), u"a,b,c"_s);
        QCOMPARE(labels(u"!tier"_s), u"d"_s);
        QCOMPARE(labels(u"tier=web,env=prod"_s), u"a"_s);
        QCOMPARE(labels(u"n>2"_s), u"b"_s);
        QCOMPARE(labels(u"n<2"_s), u"a"_s);
        QCOMPARE(labels(QString()), u"a,b,c,d"_s);
        const auto fields = [&](const QString &selector) {
            return list(u"fieldSelector="_s + QString::fromLatin1(percent(selector)));
        };
        QCOMPARE(fields(u"metadata.name=a"_s), u"a"_s);
        QCOMPARE(fields(u"metadata.name!=a,metadata.namespace=sel"_s), u"b,c,d"_s);
        QCOMPARE(fields(u"metadata.namespace=agentscope"_s), QString());
        QVERIFY(QTest::qWaitFor([&] { return fields(u"status.phase=Running"_s) == u"a,b,c,d"_s; }, WaitMs));
        QCOMPARE(list(u"labelSelector=tier%3Dweb&fieldSelector=metadata.name%3Dc"_s), u"c"_s);
        const Reply badField = get(u"/api/v1/namespaces/sel/pods?fieldSelector=spec.foo%3Dx"_s);
        QCOMPARE(badField.status, 400);
        QCOMPARE(badField.message(), u"field label not supported: spec.foo"_s);
        const Reply badLabels =
            get(u"/api/v1/namespaces/sel/pods?labelSelector="_s + QString::fromLatin1(percent(u"tier in (web"_s)));
        QCOMPARE(badLabels.status, 400);
        QVERIFY(badLabels.message().startsWith(u"unable to parse requirement"_s));
        QCOMPARE(get(u"/api/v1/namespaces/sel/persistentvolumeclaims?fieldSelector=status.phase%3DBound"_s).status,
                 400);
        // Across namespaces.
        QVERIFY(itemNames(get(u"/api/v1/pods?labelSelector=tier"_s).json()).size() == 3);
        for (const auto &[name, labels] : pods)
            QVERIFY(deleteNow(u"pods"_s, name, u"sel"_s));
    }

    void tables()
    {
        const Reply table = call("GET", u"/api/v1/namespaces/agentscope/pods?limit=500"_s, {},
                                 {{"Accept",
                                   "application/json;as=Table;v=v1;g=meta.k8s.io,application/"
                                   "json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"}});
        QCOMPARE(table.status, 200);
        QCOMPARE(table.header("content-type"), "application/json;as=Table;v=v1;g=meta.k8s.io");
        const QJsonObject object = table.json();
        QCOMPARE(object.value(u"kind"_s).toString(), u"Table"_s);
        QCOMPARE(object.value(u"apiVersion"_s).toString(), u"meta.k8s.io/v1"_s);
        QStringList columns;
        for (const QJsonValue &column : object.value(u"columnDefinitions"_s).toArray())
            columns.append(column.toObject().value(u"name"_s).toString());
        QCOMPARE(columns.mid(0, 5), (QStringList{u"Name"_s, u"Ready"_s, u"Status"_s, u"Restarts"_s, u"Age"_s}));
        bool runningRow = false;
        for (const QJsonValue &value : object.value(u"rows"_s).toArray()) {
            const QJsonArray cells = value.toObject().value(u"cells"_s).toArray();
            QCOMPARE(cells.size(), 9);
            QCOMPARE(value.toObject().value(u"object"_s).toObject().value(u"kind"_s).toString(),
                     u"PartialObjectMetadata"_s);
            runningRow = runningRow || (cells.at(1).toString() == u"1/1"_s && cells.at(2).toString() == u"Running"_s);
        }
        QVERIFY(runningRow);
    }

    void pagingIsConsistent()
    {
        PaddockTest::FakeKubernetesProcess fake;
        QVERIFY2(fake.start(serverArguments({u"--seed"_s, u"25"_s})), qPrintable(fake.error()));
        const QString base =
            u"/api/v1/namespaces/agentscope/pods?labelSelector=app.kubernetes.io%2Fmanaged-by%3Dagentscope&limit=10"_s;
        const QJsonObject first = call(fake, "GET", base).json();
        const QString rv = first.value(u"metadata"_s).toObject().value(u"resourceVersion"_s).toString();
        QStringList names = itemNames(first);
        QCOMPARE(names.size(), 10);
        QString token = first.value(u"metadata"_s).toObject().value(u"continue"_s).toString();
        QVERIFY(!token.isEmpty());
        // What changes now does not show in the pages of this list.
        const QJsonObject plain = call(fake, "GET", u"/api/v1/namespaces/agentscope/pods?limit=10"_s).json();
        QCOMPARE(plain.value(u"metadata"_s).toObject().value(u"remainingItemCount"_s).toInt(), 15);
        const QString last = itemNames(call(fake, "GET", u"/api/v1/namespaces/agentscope/pods"_s).json()).last();
        QCOMPARE(call(fake, "DELETE", u"/api/v1/namespaces/agentscope/pods/%1?gracePeriodSeconds=0"_s.arg(last)).status,
                 200);
        while (!token.isEmpty()) {
            const QJsonObject page = call(fake, "GET", base + u"&continue="_s + token).json();
            QCOMPARE(page.value(u"metadata"_s).toObject().value(u"resourceVersion"_s).toString(), rv);
            names += itemNames(page);
            token = page.value(u"metadata"_s).toObject().value(u"continue"_s).toString();
        }
        QCOMPARE(names.size(), 25);
        QCOMPARE(QSet<QString>(names.begin(), names.end()).size(), 25);
        QStringList sorted = names;
        sorted.sort();
        QCOMPARE(names, sorted);
        QVERIFY(names.contains(last));
        QCOMPARE(itemNames(call(fake, "GET", u"/api/v1/namespaces/agentscope/pods"_s).json()).size(), 24);
        // A token from before a compaction is too old.
        const QString stale =
            call(fake, "GET", base).json().value(u"metadata"_s).toObject().value(u"continue"_s).toString();
        fake.control("POST", u"/_fake/compact"_s);
        const Reply expired = call(fake, "GET", base + u"&continue="_s + stale);
        QCOMPARE(expired.status, 410);
        QCOMPARE(expired.reason(), u"Expired"_s);
        QCOMPARE(call(fake, "GET", base + u"&continue=garbage"_s).status, 400);
        // resourceVersion=0 (the watch cache) ignores limit, as in 1.32.
        QCOMPARE(itemNames(call(fake, "GET", u"/api/v1/namespaces/agentscope/pods?limit=5&resourceVersion=0"_s).json())
                     .size(),
                 24);
    }

    void watchStreamsChanges()
    {
        const QString list =
            u"/api/v1/namespaces/agentscope/pods?labelSelector=agentscope.workspace.id%3Das-ws-watch"_s;
        const QString rv = get(list).json().value(u"metadata"_s).toObject().value(u"resourceVersion"_s).toString();
        Stream watch(m_network, m_fake.request(list + u"&watch=true&resourceVersion="_s + rv));
        // The head comes at once, before any event.
        QSignalSpy head(watch.reply(), &QNetworkReply::metaDataChanged);
        QVERIFY(head.wait(WaitMs));
        QCOMPARE(watch.reply()->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
        QCOMPARE(watch.reply()->rawHeader("Transfer-Encoding"), "chunked");
        QCOMPARE(watch.reply()->rawHeader("Content-Type"), "application/json");
        QVERIFY(makeWorkspace(u"as-ws-watch"_s));
        QTRY_VERIFY_WITH_TIMEOUT(watch.types().size() >= 3, WaitMs);
        QCOMPARE(watch.types().first(), u"ADDED"_s);
        QVERIFY(watch.types().mid(1).count(u"MODIFIED"_s) == watch.types().size() - 1);
        const QJsonObject added = watch.events().first().value(u"object"_s).toObject();
        QCOMPARE(added.value(u"kind"_s).toString(), u"Pod"_s);
        QCOMPARE(added.value(u"apiVersion"_s).toString(), u"v1"_s);
        QCOMPARE(call("DELETE", u"/api/v1/namespaces/agentscope/pods/as-ws-watch"_s).status, 200);
        QTRY_VERIFY_WITH_TIMEOUT(watch.types().contains(u"DELETED"_s), WaitMs);
        const QList<QJsonObject> events = watch.events();
        quint64 previous = rv.toULongLong();
        for (const QJsonObject &event : events) {
            const quint64 eventRv = event.value(u"object"_s)
                                        .toObject()
                                        .value(u"metadata"_s)
                                        .toObject()
                                        .value(u"resourceVersion"_s)
                                        .toString()
                                        .toULongLong();
            QVERIFY(eventRv > previous);
            previous = eventRv;
        }
        // The last MODIFIED before DELETED carries the deletionTimestamp.
        QVERIFY(events.at(events.size() - 2)
                    .value(u"object"_s)
                    .toObject()
                    .value(u"metadata"_s)
                    .toObject()
                    .contains(u"deletionTimestamp"_s));
        // Every event on one line.
        for (const QByteArray &line : watch.lines())
            QVERIFY(QJsonDocument::fromJson(line).isObject());
        QVERIFY(deleteNow(u"persistentvolumeclaims"_s, u"as-ws-watch"_s));

        // Without a resourceVersion: synthetic ADDED events for what exists.
        Stream all(
            m_network,
            m_fake.request(
                u"/api/v1/namespaces/agentscope/pods?watch=1&labelSelector=app.kubernetes.io%2Fmanaged-by%3Dagentscope"_s));
        QTRY_VERIFY_WITH_TIMEOUT(all.types().size() >= 12, WaitMs);
        QCOMPARE(all.types().mid(0, 12).count(u"ADDED"_s), 12);
        // A fieldSelector, as kubectl delete uses it.
        Stream byName(
            m_network,
            m_fake.request(u"/api/v1/namespaces/agentscope/pods?fieldSelector=metadata.name%3Dnobody&watch=true"_s));
        QSignalSpy byNameHead(byName.reply(), &QNetworkReply::metaDataChanged);
        QVERIFY(byNameHead.wait(WaitMs));
        QVERIFY(byName.lines().isEmpty());
    }

    void watchBookmarksAndTimeout()
    {
        const QString rv = get(u"/api/v1/namespaces/agentscope/pods"_s)
                               .json()
                               .value(u"metadata"_s)
                               .toObject()
                               .value(u"resourceVersion"_s)
                               .toString();
        Stream watch(
            m_network,
            m_fake.request(
                u"/api/v1/namespaces/agentscope/pods?allowWatchBookmarks=true&resourceVersion=%1&timeoutSeconds=2&watch=true"_s
                    .arg(rv)));
        QTRY_VERIFY_WITH_TIMEOUT(watch.types().contains(u"BOOKMARK"_s), WaitMs);
        const QJsonObject bookmark =
            watch.events().at(watch.types().indexOf(u"BOOKMARK"_s)).value(u"object"_s).toObject();
        QCOMPARE(bookmark.value(u"kind"_s).toString(), u"Pod"_s);
        QVERIFY(bookmark.value(u"metadata"_s).toObject().value(u"resourceVersion"_s).toString().toULongLong()
                >= rv.toULongLong());
        // timeoutSeconds ends the stream cleanly.
        QTRY_VERIFY_WITH_TIMEOUT(watch.finished(), WaitMs);
        QCOMPARE(watch.reply()->error(), QNetworkReply::NoError);
        QVERIFY(watch.rest().isEmpty());
    }

    void watchFromTooOldAResourceVersion()
    {
        PaddockTest::FakeKubernetesProcess fake;
        QVERIFY2(fake.start(serverArguments({u"--watch-history"_s, u"3"_s})), qPrintable(fake.error()));
        const QString rv = call(fake, "GET", u"/api/v1/namespaces/agentscope/pods"_s)
                               .json()
                               .value(u"metadata"_s)
                               .toObject()
                               .value(u"resourceVersion"_s)
                               .toString();
        for (int i = 0; i < 5; ++i)
            QCOMPARE(call(fake, "POST", u"/api/v1/namespaces"_s,
                          compact(QJsonObject{{u"metadata"_s, QJsonObject{{u"name"_s, u"ns-%1"_s.arg(i)}}}}))
                         .status,
                     201);
        Stream watch(m_network, fake.request(u"/api/v1/namespaces/agentscope/pods?watch=true&resourceVersion="_s + rv));
        QTRY_VERIFY_WITH_TIMEOUT(watch.finished(), WaitMs);
        QCOMPARE(watch.reply()->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
        QCOMPARE(watch.lines().size(), 1);
        const QJsonObject event = watch.events().first();
        QCOMPARE(event.value(u"type"_s).toString(), u"ERROR"_s);
        const QJsonObject status = event.value(u"object"_s).toObject();
        QCOMPARE(status.value(u"kind"_s).toString(), u"Status"_s);
        QCOMPARE(status.value(u"code"_s).toInt(), 410);
        QCOMPARE(status.value(u"reason"_s).toString(), u"Expired"_s);
        QVERIFY(status.value(u"message"_s).toString().startsWith(u"too old resource version: %1 ("_s.arg(rv)));
        // From a recent enough one, the events that were missed.
        const QString recent = QString::number(fake.info().value(u"historyFloor"_s).toString().toULongLong());
        Stream resumed(m_network, fake.request(u"/api/v1/namespaces?watch=true&resourceVersion="_s + recent));
        QTRY_COMPARE_WITH_TIMEOUT(resumed.types().size(), 3, WaitMs);
    }

    void execOverV5()
    {
        QVERIFY(makeWorkspace(u"as-ws-exec"_s));
        const Exec run = exec(u"as-ws-exec"_s, {u"sh"_s, u"-c"_s, u"echo out; echo err >&2; exit 3"_s},
                              {u"v5.channel.k8s.io"_s, u"v4.channel.k8s.io"_s});
        QVERIFY2(run.error.isEmpty(), qPrintable(run.error));
        QCOMPARE(run.protocol, u"v5.channel.k8s.io"_s);
        // First the empty "ready" message on stdout.
        QCOMPARE(run.messages.first(), QByteArray(1, '\x01'));
        QCOMPARE(run.out, "out\n");
        QCOMPARE(run.err, "err\n");
        QCOMPARE(run.statusCount, 1);
        QCOMPARE(run.messages.last().at(0), '\x03');
        QCOMPARE(run.status.value(u"status"_s).toString(), u"Failure"_s);
        QCOMPARE(run.status.value(u"reason"_s).toString(), u"NonZeroExitCode"_s);
        QVERIFY(!run.status.contains(u"kind"_s) && !run.status.contains(u"code"_s));
        QCOMPARE(run.status.value(u"metadata"_s).toObject(), QJsonObject());
        const QJsonObject cause =
            run.status.value(u"details"_s).toObject().value(u"causes"_s).toArray().at(0).toObject();
        QCOMPARE(cause.value(u"reason"_s).toString(), u"ExitCode"_s);
        QCOMPARE(cause.value(u"message"_s).toString(), u"3"_s);
        QCOMPARE(run.closeCode, QWebSocketProtocol::CloseCodeNormal);
        for (const QByteArray &message : run.messages)
            QVERIFY(message.isEmpty() || static_cast<unsigned char>(message.at(0)) != 0xFF);

        const Exec ok = exec(u"as-ws-exec"_s, {u"pwd"_s}, {u"v5.channel.k8s.io"_s});
        QCOMPARE(ok.out, "/workspace\n");
        QCOMPARE(ok.status, (QJsonObject{{u"metadata"_s, QJsonObject()}, {u"status"_s, u"Success"_s}}));
        // The booleans as AgentScope's and client-node's clients spell them.
        const Exec spelled = exec(u"as-ws-exec"_s, {u"echo"_s, u"hi"_s}, {u"v5.channel.k8s.io"_s},
                                  u"&stderr=True&stdin=False&stdout=True&tty=False"_s);
        QCOMPARE(spelled.out, "hi\n");
        const Exec noStdout =
            exec(u"as-ws-exec"_s, {u"echo"_s, u"hi"_s}, {u"v5.channel.k8s.io"_s}, u"&stdout=false&stderr=1"_s);
        QCOMPARE(noStdout.messages.first(), QByteArray(1, '\x02')); // ready on stderr when stdout is off
        QCOMPARE(noStdout.out, QByteArray());
    }

    void execStdinPingAndClose()
    {
        QVERIFY(makeWorkspace(u"as-ws-stdin"_s));
        QSignalSpy *pongs = nullptr;
        std::unique_ptr<QSignalSpy> pongSpy;
        const Exec run = exec(u"as-ws-stdin"_s, {u"cat"_s}, {u"v5.channel.k8s.io"_s},
                              u"&stdin=true&stdout=true&stderr=true"_s, [&](QWebSocket &socket) {
                                  pongSpy = std::make_unique<QSignalSpy>(&socket, &QWebSocket::pong);
                                  pongs = pongSpy.get();
                                  socket.ping("are you there");
                                  QVERIFY(pongs->wait(WaitMs));
                                  socket.sendBinaryMessage(QByteArray(1, '\0') + "abc");
                                  socket.sendBinaryMessage(QByteArray(1, '\0') + "def\n");
                                  socket.sendBinaryMessage(QByteArray()); // ignored
                                  socket.sendBinaryMessage(QByteArray("\xFF\x00", 2)); // CLOSE stdin
                              });
        QVERIFY2(run.error.isEmpty(), qPrintable(run.error));
        QVERIFY(pongs && pongs->size() == 1);
        QCOMPARE(pongs->first().at(1).toByteArray(), "are you there");
        QCOMPARE(run.out, "abcdef\n");
        QCOMPARE(run.status.value(u"status"_s).toString(), u"Success"_s);
    }

    void execOverV4()
    {
        QVERIFY(makeWorkspace(u"as-ws-v4"_s));
        // The first protocol of the client's list that the server speaks.
        const Exec run = exec(u"as-ws-v4"_s, {u"sh"_s, u"-c"_s, u"echo four; exit 7"_s},
                              {u"v4.channel.k8s.io"_s, u"v5.channel.k8s.io"_s});
        QCOMPARE(run.protocol, u"v4.channel.k8s.io"_s);
        QCOMPARE(run.messages.first(), QByteArray(1, '\x01'));
        QCOMPARE(run.out, "four\n");
        QCOMPARE(run.status.value(u"details"_s)
                     .toObject()
                     .value(u"causes"_s)
                     .toArray()
                     .at(0)
                     .toObject()
                     .value(u"message"_s)
                     .toString(),
                 u"7"_s);
        const Exec other = exec(u"as-ws-v4"_s, {u"true"_s}, {u"base64.channel.k8s.io"_s, u"v4.channel.k8s.io"_s});
        QCOMPARE(other.protocol, u"v4.channel.k8s.io"_s);
        QCOMPARE(other.status.value(u"status"_s).toString(), u"Success"_s);
    }

    void execFramesByteByByte()
    {
        QVERIFY(makeWorkspace(u"as-ws-frames"_s));
        const QString target = u"/api/v1/namespaces/agentscope/pods/as-ws-frames/exec"_s
            + execQuery({u"sh"_s, u"-c"_s, u"echo hi; echo bad >&2; exit 3"_s}, u"&stderr=true&stdout=true"_s);
        const QByteArray received =
            raw(upgradeRequest(target, "v5.channel.k8s.io, v4.channel.k8s.io"), [](const QByteArray &bytes) {
                const qsizetype end = bytes.indexOf("\r\n\r\n");
                return end >= 0 && bytes.endsWith(QByteArray("\x88\x02\x03\xe8", 4));
            });
        const qsizetype headEnd = received.indexOf("\r\n\r\n");
        QVERIFY2(headEnd > 0, received.constData());
        const QByteArray head = received.left(headEnd);
        QVERIFY2(head.startsWith("HTTP/1.1 101 Switching Protocols\r\n"), head.constData());
        QVERIFY(head.contains("\r\nSec-WebSocket-Protocol: v5.channel.k8s.io"));
        QVERIFY(head.contains("\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="));
        const QByteArray frames = received.mid(headEnd + 4);
        // The ready message, exactly.
        QVERIFY(frames.startsWith(QByteArray("\x82\x01\x01", 3)));
        // A normal close, exactly, last.
        QVERIFY(frames.endsWith(QByteArray("\x88\x02\x03\xe8", 4)));
        QList<WsFrame> parsed;
        QVERIFY(parseFrames(frames, &parsed));
        QByteArray out;
        QByteArray err;
        int statuses = 0;
        for (qsizetype i = 0; i < parsed.size(); ++i) {
            const WsFrame &frame = parsed.at(i);
            QVERIFY(frame.fin);
            QVERIFY(!frame.masked); // a server never masks
            if (i == parsed.size() - 1) {
                QCOMPARE(frame.opcode, quint8(8));
                continue;
            }
            QCOMPARE(frame.opcode, quint8(2)); // binary, never text
            QVERIFY(!frame.payload.isEmpty());
            const auto channel = static_cast<unsigned char>(frame.payload.at(0));
            QVERIFY(channel >= 1 && channel <= 3); // never 0xFF
            if (channel == 1)
                out += frame.payload.mid(1);
            else if (channel == 2)
                err += frame.payload.mid(1);
            else {
                ++statuses;
                QCOMPARE(i, parsed.size() - 2); // the status comes last before the close
                QCOMPARE(
                    frame.payload.mid(1),
                    R"({"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: command terminated with exit code 3","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}})");
            }
        }
        QCOMPARE(out, "hi\n");
        QCOMPARE(err, "bad\n");
        QCOMPARE(statuses, 1);
    }

    void execRefusals()
    {
        const auto statusOf = [](const QByteArray &response) { return response.left(response.indexOf("\r\n")); };
        const auto bodyOf = [](const QByteArray &response) {
            return QJsonDocument::fromJson(response.mid(response.indexOf("\r\n\r\n") + 4)).object();
        };
        const QString query = execQuery({u"true"_s});
        const QByteArray unknown = raw(upgradeRequest(u"/api/v1/namespaces/agentscope/pods/nope/exec"_s + query));
        QCOMPARE(statusOf(unknown), "HTTP/1.1 404 Not Found");
        QCOMPARE(bodyOf(unknown).value(u"message"_s).toString(), u"pods \"nope\" not found"_s);
        QVERIFY(makeWorkspace(u"as-ws-refuse"_s));
        const QByteArray plain =
            raw(upgradeRequest(u"/api/v1/namespaces/agentscope/pods/as-ws-refuse/exec"_s + query, "", false));
        QCOMPARE(statusOf(plain), "HTTP/1.1 400 Bad Request");
        QCOMPARE(bodyOf(plain).value(u"message"_s).toString(), u"Upgrade request required"_s);
        const QByteArray foreign =
            raw(upgradeRequest(u"/api/v1/namespaces/agentscope/pods/as-ws-refuse/exec"_s + query, "channel.k8s.io"));
        QCOMPARE(statusOf(foreign), "HTTP/1.1 400 Bad Request");
        const QByteArray noStreams =
            raw(upgradeRequest(u"/api/v1/namespaces/agentscope/pods/as-ws-refuse/exec?command=true"_s));
        QCOMPARE(bodyOf(noStreams).value(u"message"_s).toString(),
                 u"you must specify at least 1 of stdin, stdout, stderr"_s);
        const QByteArray badContainer = raw(upgradeRequest(
            u"/api/v1/namespaces/agentscope/pods/as-ws-refuse/exec?command=true&stdout=1&container=other"_s));
        QCOMPARE(bodyOf(badContainer).value(u"message"_s).toString(),
                 u"container other is not valid for pod as-ws-refuse"_s);
        // A command the container does not have: the runtime's InternalError on channel 3.
        const Exec missing = exec(u"as-ws-refuse"_s, {u"no-such-program"_s}, {u"v5.channel.k8s.io"_s});
        QCOMPARE(missing.status.value(u"reason"_s).toString(), u"InternalError"_s);
        QVERIFY2(missing.status.value(u"message"_s).toString().contains(u"executable file not found in $PATH"_s),
                 qPrintable(missing.status.value(u"message"_s).toString()));
        // A container that is not running yet: upgraded, then refused on channel 3.
        QCOMPARE(createPod(podManifest(u"as-ws-waiting"_s, u"nginx:missing"_s)).status, 201);
        QVERIFY(waitForPod(u"as-ws-waiting"_s, [](const QJsonObject &p) { return !waitingReason(p).isEmpty(); }));
        const Exec waiting = exec(u"as-ws-waiting"_s, {u"true"_s}, {u"v5.channel.k8s.io"_s});
        QCOMPARE(waiting.status.value(u"reason"_s).toString(), u"InternalError"_s);
        QCOMPARE(waiting.status.value(u"message"_s).toString(),
                 u"Internal error occurred: unable to upgrade connection: container not found (\"workspace\")"_s);
        QVERIFY(deleteNow(u"pods"_s, u"as-ws-waiting"_s));
        // A completed Pod.
        QJsonObject once = podManifest(u"as-ws-once"_s, u"python:3.11-slim"_s, {u"sh"_s, u"-c"_s, u"exit 4"_s});
        QJsonObject spec = once.value(u"spec"_s).toObject();
        spec.insert(u"restartPolicy"_s, u"Never"_s);
        once.insert(u"spec"_s, spec);
        QCOMPARE(createPod(once).status, 201);
        QVERIFY(waitForPod(u"as-ws-once"_s, [](const QJsonObject &p) {
            return p.value(u"status"_s).toObject().value(u"phase"_s).toString() == u"Failed"_s;
        }));
        QCOMPARE(firstContainerStatus(pod(u"as-ws-once"_s))
                     .value(u"state"_s)
                     .toObject()
                     .value(u"terminated"_s)
                     .toObject()
                     .value(u"exitCode"_s)
                     .toInt(),
                 4);
        const QByteArray completed =
            raw(upgradeRequest(u"/api/v1/namespaces/agentscope/pods/as-ws-once/exec"_s + query));
        QCOMPARE(bodyOf(completed).value(u"message"_s).toString(),
                 u"cannot exec into a container in a completed pod; current phase is Failed"_s);
        QVERIFY(deleteNow(u"pods"_s, u"as-ws-once"_s));
    }

    void execIsConfinedToThePod()
    {
        if (!m_bwrap)
            QSKIP("bubblewrap is not usable on this machine");
        QVERIFY(makeWorkspace(u"as-ws-box"_s));
        const QString volume = QJsonDocument::fromJson(m_fake.control("GET", u"/_fake/pvcs/agentscope/as-ws-box"_s))
                                   .object()
                                   .value(u"hostPath"_s)
                                   .toString();
        const Exec write =
            exec(u"as-ws-box"_s,
                 {u"sh"_s, u"-c"_s, u"echo data > /workspace/kept; echo home > /root/gone; hostname; touch /usr/x"_s},
                 {u"v5.channel.k8s.io"_s});
        QCOMPARE(write.out, "as-ws-box\n");
        QVERIFY(write.status.value(u"status"_s).toString() == u"Failure"_s); // /usr is read-only
        QFile kept(volume + u"/kept"_s);
        QVERIFY(kept.open(QIODevice::ReadOnly));
        QCOMPARE(kept.readAll(), "data\n");
        // No network but the sandbox's own loopback.
        const Exec net =
            exec(u"as-ws-box"_s, {u"sh"_s, u"-c"_s, u"grep -c : /proc/net/dev"_s}, {u"v5.channel.k8s.io"_s});
        QCOMPARE(net.out, "1\n");
        // What one exec starts in the background lives on, and the next exec sees it.
        const Exec background =
            exec(u"as-ws-box"_s, {u"sh"_s, u"-c"_s, u"nohup sleep 301 >/dev/null 2>&1 &"_s}, {u"v5.channel.k8s.io"_s});
        QCOMPARE(background.status.value(u"status"_s).toString(), u"Success"_s);
        const Exec seen =
            exec(u"as-ws-box"_s,
                 {u"sh"_s, u"-c"_s,
                  u"for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done | grep -c '^sleep 301'"_s},
                 {u"v5.channel.k8s.io"_s});
        QCOMPARE(seen.out, "1\n");
        // A new Pod on the same PVC: /workspace kept, the rest of the old container gone.
        QVERIFY(deleteNow(u"pods"_s, u"as-ws-box"_s));
        QCOMPARE(
            createPod(podManifest(u"as-ws-box"_s, u"python:3.11-slim"_s, {u"sleep"_s, u"infinity"_s}, u"as-ws-box"_s))
                .status,
            201);
        QVERIFY(waitForPod(u"as-ws-box"_s, isRunning));
        const Exec after =
            exec(u"as-ws-box"_s, {u"sh"_s, u"-c"_s, u"cat /workspace/kept; test -e /root/gone || echo fresh"_s},
                 {u"v5.channel.k8s.io"_s});
        QCOMPARE(after.out, "data\nfresh\n");
    }

    void logs()
    {
        QVERIFY(makeWorkspace(u"as-ws-logs"_s, {u"sh"_s, u"-c"_s, u"echo one; echo two; sleep infinity"_s}));
        const QString path = u"/api/v1/namespaces/agentscope/pods/as-ws-logs/log?container=workspace"_s;
        QTRY_COMPARE_WITH_TIMEOUT(get(path).body, QByteArray("one\ntwo\n"), WaitMs);
        QCOMPARE(get(path).header("content-type"), "text/plain");
        QCOMPARE(get(path + u"&tailLines=1"_s).body, "two\n");
        QCOMPARE(get(path + u"&tailLines=0"_s).body, QByteArray());
        QCOMPARE(get(path + u"&limitBytes=6"_s).body, "one\ntw");
        QCOMPARE(get(path + u"&sinceTime=2999-01-01T00:00:00Z"_s).body, QByteArray());
        QCOMPARE(get(path + u"&sinceSeconds=3600"_s).body, "one\ntwo\n");
        QCOMPARE(get(path + u"&pretty=true"_s).body, "one\ntwo\n");
        const QList<QByteArray> stamped = get(path + u"&timestamps=true"_s).body.split('\n');
        QVERIFY2(QRegularExpression(u"^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{9}Z one$"_s)
                     .match(QString::fromUtf8(stamped.at(0)))
                     .hasMatch(),
                 stamped.at(0).constData());
        QCOMPARE(get(path + u"&sinceSeconds=0"_s).status, 422);
        QCOMPARE(get(path + u"&sinceSeconds=5&sinceTime=2020-01-01T00:00:00Z"_s).status, 422);
        QCOMPARE(get(path + u"&previous=true"_s).message(),
                 u"previous terminated container \"workspace\" in pod \"as-ws-logs\" not found"_s);
        QCOMPARE(get(u"/api/v1/namespaces/agentscope/pods/nope/log"_s).status, 404);
        // Lines a test adds.
        m_fake.control("POST", u"/_fake/pods/agentscope/as-ws-logs/log"_s, "three\nfour\n");
        QCOMPARE(get(path + u"&tailLines=2"_s).body, "three\nfour\n");
        // A container that has not started has no log yet.
        QCOMPARE(createPod(podManifest(u"as-ws-nolog"_s, u"nginx:missing"_s)).status, 201);
        QVERIFY(waitForPod(u"as-ws-nolog"_s,
                           [](const QJsonObject &p) { return waitingReason(p) == u"ImagePullBackOff"_s; }));
        const Reply waiting = get(u"/api/v1/namespaces/agentscope/pods/as-ws-nolog/log"_s);
        QCOMPARE(waiting.status, 400);
        QCOMPARE(
            waiting.message(),
            u"container \"workspace\" in pod \"as-ws-nolog\" is waiting to start: trying and failing to pull image"_s);
        QVERIFY(deleteNow(u"pods"_s, u"as-ws-nolog"_s));
    }

    void logsFollow()
    {
        QVERIFY(makeWorkspace(u"as-ws-follow"_s, {u"sh"_s, u"-c"_s, u"echo first; sleep infinity"_s}));
        const QString path = u"/api/v1/namespaces/agentscope/pods/as-ws-follow/log?follow=true&timestamps=true"_s;
        QTRY_VERIFY_WITH_TIMEOUT(get(u"/api/v1/namespaces/agentscope/pods/as-ws-follow/log"_s).body == "first\n",
                                 WaitMs);
        Stream follow(m_network, m_fake.request(path));
        QTRY_COMPARE_WITH_TIMEOUT(follow.lines().size(), 1, WaitMs);
        QVERIFY(follow.lines().first().endsWith(" first"));
        QCOMPARE(follow.reply()->rawHeader("Transfer-Encoding"), "chunked");
        m_fake.control("POST", u"/_fake/pods/agentscope/as-ws-follow/log"_s, "second\n");
        QTRY_COMPARE_WITH_TIMEOUT(follow.lines().size(), 2, WaitMs);
        QVERIFY(follow.lines().at(1).endsWith(" second"));
        QVERIFY(!follow.finished());
        // The stream ends when the Pod goes.
        QCOMPARE(call("DELETE", u"/api/v1/namespaces/agentscope/pods/as-ws-follow"_s).status, 200);
        QTRY_VERIFY_WITH_TIMEOUT(follow.finished(), WaitMs);
        QCOMPARE(follow.reply()->error(), QNetworkReply::NoError);
        QVERIFY(deleteNow(u"persistentvolumeclaims"_s, u"as-ws-follow"_s));
    }

    void crashAndRestart()
    {
        QVERIFY(makeWorkspace(u"as-ws-crash"_s));
        const QByteArray crashed = m_fake.control("POST", u"/_fake/pods/agentscope/as-ws-crash/crash?exitCode=2"_s);
        const QJsonObject after = QJsonDocument::fromJson(crashed).object();
        QCOMPARE(waitingReason(after), u"CrashLoopBackOff"_s);
        const QJsonObject status = firstContainerStatus(after);
        QCOMPARE(status.value(u"restartCount"_s).toInt(), 1);
        QCOMPARE(status.value(u"lastState"_s).toObject().value(u"terminated"_s).toObject().value(u"exitCode"_s).toInt(),
                 2);
        QCOMPARE(after.value(u"status"_s).toObject().value(u"phase"_s).toString(), u"Running"_s);
        QVERIFY(waitForPod(u"as-ws-crash"_s, isRunning));
        QCOMPARE(firstContainerStatus(pod(u"as-ws-crash"_s)).value(u"restartCount"_s).toInt(), 1);
        // A test may set any status; the kubelet then leaves the Pod alone.
        const QJsonObject failed =
            QJsonDocument::fromJson(
                m_fake.control("POST", u"/_fake/pods/agentscope/as-ws-crash/status"_s, R"({"phase":"Unknown"})"))
                .object();
        QCOMPARE(failed.value(u"status"_s).toObject().value(u"phase"_s).toString(), u"Unknown"_s);
        QCOMPARE(pod(u"as-ws-crash"_s).value(u"status"_s).toObject().value(u"phase"_s).toString(), u"Unknown"_s);
    }

    void rbacRefusals()
    {
        m_fake.control("POST", u"/_fake/forbid"_s, R"({"rules":["get namespaces","create pods/exec"]})");
        const Reply ns = get(u"/api/v1/namespaces/agentscope"_s);
        QCOMPARE(ns.status, 403);
        QCOMPARE(
            ns.message(),
            u"namespaces \"agentscope\" is forbidden: User \"paddock-fake-user\" cannot get resource \"namespaces\" in API group \"\" at the cluster scope"_s);
        const QByteArray exec =
            raw(upgradeRequest(u"/api/v1/namespaces/agentscope/pods/x/exec"_s + execQuery({u"true"_s})));
        QVERIFY2(exec.startsWith("HTTP/1.1 403 Forbidden"), exec.constData());
        QVERIFY(exec.contains(
            "cannot create resource \\\"pods/exec\\\" in API group \\\"\\\" in the namespace \\\"agentscope\\\""));
        m_fake.control("POST", u"/_fake/forbid"_s, R"({"rules":[]})");
        QCOMPARE(get(u"/api/v1/namespaces/agentscope"_s).status, 200);
    }

    void faultsAreInjectedReproducibly()
    {
        const auto outcomes = [&](PaddockTest::FakeKubernetesProcess &fake) {
            QStringList seen;
            for (int i = 0; i < 16; ++i) {
                const Reply reply = call(fake, "GET", u"/version"_s);
                seen.append(reply.status == 0 ? u"dropped"_s : QString::number(reply.status));
                if (reply.status == 429)
                    seen.last() += u"/"_s + QString::fromLatin1(reply.header("retry-after"));
            }
            return seen;
        };
        PaddockTest::FakeKubernetesProcess first;
        QVERIFY2(first.start(
                     serverArguments({u"--fail-rate"_s, u"1"_s, u"--fail-seed"_s, u"7"_s, u"--latency-ms"_s, u"20"_s})),
                 qPrintable(first.error()));
        const QStringList a = outcomes(first);
        for (const QString &outcome : a)
            QVERIFY2(QStringList({u"429/1"_s, u"500"_s, u"503"_s, u"dropped"_s}).contains(outcome),
                     qPrintable(outcome));
        QVERIFY(QSet<QString>(a.begin(), a.end()).size() >= 3);
        QVERIFY(first.stats().contains(u"requests"_s)); // the test-only routes are never failed
        PaddockTest::FakeKubernetesProcess second;
        QVERIFY2(second.start(serverArguments({u"--fail-rate"_s, u"1"_s, u"--fail-seed"_s, u"7"_s})),
                 qPrintable(second.error()));
        QCOMPARE(outcomes(second), a);
    }

    void tenThousandSeededWorkspaces()
    {
        PaddockTest::FakeKubernetesProcess fake;
        QElapsedTimer started;
        started.start();
        QVERIFY2(fake.start(serverArguments({u"--seed"_s, u"10000"_s})), qPrintable(fake.error()));
        const qint64 startMs = started.elapsed();
        QElapsedTimer paging;
        paging.start();
        QString token;
        QStringList names;
        int withOwner = 0;
        int pages = 0;
        qint64 bytes = 0;
        do {
            const Reply page = call(
                fake, "GET",
                u"/api/v1/namespaces/agentscope/pods?labelSelector=app.kubernetes.io%2Fmanaged-by%3Dagentscope&limit=500"_s
                    + (token.isEmpty() ? QString() : u"&continue="_s + token));
            QCOMPARE(page.status, 200);
            bytes += page.body.size();
            const QJsonObject list = page.json();
            for (const QJsonValue &item : list.value(u"items"_s).toArray()) {
                const QJsonObject meta = item.toObject().value(u"metadata"_s).toObject();
                names.append(meta.value(u"name"_s).toString());
                if (meta.value(u"annotations"_s).toObject().contains(u"agentscope.user.id"_s))
                    ++withOwner;
                QCOMPARE(u"as-ws-"_s
                             + meta.value(u"labels"_s).toObject().value(u"agentscope.workspace.id"_s).toString(),
                         names.last());
            }
            token = list.value(u"metadata"_s).toObject().value(u"continue"_s).toString();
            ++pages;
        } while (!token.isEmpty());
        QCOMPARE(pages, 20);
        QCOMPARE(names.size(), 10000);
        QCOMPARE(QSet<QString>(names.begin(), names.end()).size(), 10000);
        QVERIFY(withOwner > 6000 && withOwner < 7000); // two in three carry Paddock's annotations
        qInfo("10,000 seeded Pods: server ready in %lld ms; 20 pages of 500 (%lld KiB) in %lld ms", startMs,
              bytes / 1024, paging.elapsed());
        QCOMPARE(itemNames(call(fake, "GET", u"/api/v1/namespaces/agentscope/persistentvolumeclaims?limit=1"_s).json())
                     .size(),
                 1);
    }

    void stateSurvivesARestart()
    {
        QTemporaryDir data;
        QVERIFY(data.isValid());
        PaddockTest::FakeKubernetesProcess fake;
        const QStringList options{u"--data-dir"_s, data.path(), u"--pod-start-ms"_s, u"50"_s};
        QVERIFY2(fake.start(serverArguments(options)), qPrintable(fake.error()));
        const int port = fake.port();
        const QString pods = u"/api/v1/namespaces/agentscope/pods"_s;
        const QString pvcs = u"/api/v1/namespaces/agentscope/persistentvolumeclaims"_s;
        QCOMPARE(call(fake, "POST", pvcs, compact(pvcManifest(u"as-ws-kept"_s))).status, 201);
        QCOMPARE(call(fake, "POST", pods,
                      compact(podManifest(u"as-ws-kept"_s, u"python:3.11-slim"_s, {u"sleep"_s, u"infinity"_s},
                                          u"as-ws-kept"_s)))
                     .status,
                 201);
        QVERIFY(QTest::qWaitFor([&] { return isRunning(call(fake, "GET", pods + u"/as-ws-kept"_s).json()); }, WaitMs));
        // A file on the volume, one in the container's own /root, and a process in the background.
        const Exec write = exec(fake, u"as-ws-kept"_s,
                                {u"sh"_s, u"-c"_s,
                                 u"echo data > /workspace/kept; echo home > /root/home; "
                                 "nohup sleep 303 >/dev/null 2>&1 &"_s},
                                {u"v5.channel.k8s.io"_s});
        QCOMPARE(write.status.value(u"status"_s).toString(), u"Success"_s);
        const QJsonObject podBefore = call(fake, "GET", pods + u"/as-ws-kept"_s).json();
        const QJsonObject pvcBefore = call(fake, "GET", pvcs + u"/as-ws-kept"_s).json();
        const quint64 rvBefore = fake.info().value(u"resourceVersion"_s).toString().toULongLong();
        QVERIFY(rvBefore > 0);
        const QList<QSslCertificate> ca = fake.caCertificates();
        // The kubeconfig of the first run, as a client that read it then holds it.
        const QString kubeconfig = data.filePath(u"first-kubeconfig"_s);
        QVERIFY(QFile::copy(fake.kubeconfigPath(), kubeconfig));
        QVERIFY(QFile::exists(data.filePath(u"state.json"_s)));

        fake.kill();
        const auto sleeping = [] {
            for (const QString &pid : QDir(u"/proc"_s).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
                QFile cmdline(u"/proc/"_s + pid + u"/cmdline"_s);
                if (cmdline.open(QIODevice::ReadOnly)
                    && cmdline.readAll()
                        == QByteArray("sleep\0"
                                      "303\0",
                                      10))
                    return true;
            }
            return false;
        };
        // The container and what ran in it died with the server (--no-bwrap leaves strays).
        if (m_bwrap)
            QTRY_VERIFY_WITH_TIMEOUT(!sleeping(), WaitMs);

        QVERIFY2(fake.start(serverArguments(QStringList{u"--port"_s, QString::number(port)} + options)),
                 qPrintable(fake.error()));
        QCOMPARE(fake.port(), port);
        QCOMPARE(fake.caCertificates(), ca); // the same CA: the first kubeconfig still trusts it
        // The objects as they were, resourceVersions and all; the counter did not go back.
        QCOMPARE(call(fake, "GET", pods + u"/as-ws-kept"_s).json(), podBefore);
        QCOMPARE(call(fake, "GET", pvcs + u"/as-ws-kept"_s).json(), pvcBefore);
        QVERIFY(fake.info().value(u"resourceVersion"_s).toString().toULongLong() >= rvBefore);
        const Reply made = call(fake, "POST", pvcs, compact(pvcManifest(u"as-ws-after"_s)));
        QCOMPARE(made.status, 201);
        QVERIFY(made.json().value(u"metadata"_s).toObject().value(u"resourceVersion"_s).toString().toULongLong()
                > rvBefore);
        // A watch from the last resourceVersion goes on; from an earlier one it must list again
        // (the new server's watch cache starts where the old one's state ended).
        const Reply resumed =
            call(fake, "GET", pods + u"?watch=true&timeoutSeconds=1&resourceVersion="_s + QString::number(rvBefore));
        QCOMPARE(resumed.status, 200);
        QVERIFY2(!resumed.body.contains("\"ERROR\""), resumed.body.constData());
        const Reply expired = call(
            fake, "GET", pods + u"?watch=true&timeoutSeconds=1&resourceVersion="_s + QString::number(rvBefore - 1));
        QVERIFY2(expired.body.contains("\"type\":\"ERROR\"") && expired.body.contains("\"code\":410"),
                 expired.body.constData());
        // Still Running, with its files; its container runs again, without what ran in it.
        const Exec read = exec(fake, u"as-ws-kept"_s, {u"sh"_s, u"-c"_s, u"cat /workspace/kept /root/home"_s},
                               {u"v5.channel.k8s.io"_s});
        QCOMPARE(read.out, "data\nhome\n");
        QVERIFY(isRunning(call(fake, "GET", pods + u"/as-ws-kept"_s).json()));
        if (m_bwrap)
            QVERIFY(!sleeping());

        if (m_kubectl.isEmpty() && mustRun())
            QFAIL("kubectl (1.32) is not installed, and CI=true requires the kubectl tests");
        if (!m_kubectl.isEmpty()) {
            const Run listed = kubectlWith(kubeconfig, {u"get"_s, u"pods"_s, u"--no-headers"_s});
            QVERIFY2(listed.exitCode == 0, listed.err.constData());
            QVERIFY2(QRegularExpression(u"(?m)^as-ws-kept +1/1 +Running +0 "_s)
                         .match(QString::fromUtf8(listed.out))
                         .hasMatch(),
                     listed.out.constData());
        }

        // SIGTERM keeps a data folder it was given: the next start has the Pod and its files.
        QCOMPARE(fake.stop(), 0);
        QVERIFY(QFile::exists(data.filePath(u"state.json"_s)));
        QVERIFY2(fake.start(serverArguments(options)), qPrintable(fake.error()));
        const Exec again = exec(fake, u"as-ws-kept"_s, {u"cat"_s, u"/root/home"_s}, {u"v5.channel.k8s.io"_s});
        QCOMPARE(again.out, "home\n");
        QCOMPARE(call(fake, "GET", pvcs + u"/as-ws-after"_s).status, 200);
    }

    void sigtermStopsCleanly()
    {
        PaddockTest::FakeKubernetesProcess fake;
        QVERIFY2(fake.start(serverArguments({u"--pod-start-ms"_s, u"50"_s})), qPrintable(fake.error()));
        const QString dataDir = fake.info().value(u"dataDir"_s).toString();
        QVERIFY(QFileInfo(dataDir).isDir());
        QCOMPARE(call(fake, "POST", u"/api/v1/namespaces/agentscope/pods"_s,
                      compact(podManifest(u"as-ws-term"_s, u"python:3.11-slim"_s, {u"sleep"_s, u"302"_s})))
                     .status,
                 201);
        QVERIFY(QTest::qWaitFor(
            [&] { return isRunning(call(fake, "GET", u"/api/v1/namespaces/agentscope/pods/as-ws-term"_s).json()); },
            WaitMs));
        const auto running = [] {
            for (const QString &pid : QDir(u"/proc"_s).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
                QFile cmdline(u"/proc/"_s + pid + u"/cmdline"_s);
                if (cmdline.open(QIODevice::ReadOnly)
                    && cmdline.readAll()
                        == QByteArray("sleep\0"
                                      "302\0",
                                      10))
                    return true;
            }
            return false;
        };
        QVERIFY(running());
        QCOMPARE(fake.stop(), 0);
        QVERIFY(!QFileInfo::exists(dataDir));
        QVERIFY(!running());
    }

    // ---- kubectl proves the fake (issue 16, item 7) --------------------------------------

    void kubectlGetWithSelectorAsJson()
    {
        REQUIRE_KUBECTL();
        const Run run =
            kubectl({u"get"_s, u"pods"_s, u"-l"_s,
                     u"app.kubernetes.io/managed-by=agentscope,agentscope.workspace=true"_s, u"-o"_s, u"json"_s});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject list = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(list.value(u"kind"_s).toString(), u"List"_s);
        QCOMPARE(
            itemNames(list).size(),
            itemNames(
                get(u"/api/v1/namespaces/agentscope/pods?labelSelector=app.kubernetes.io%2Fmanaged-by%3Dagentscope%2Cagentscope.workspace%3Dtrue"_s)
                    .json())
                .size());
        QVERIFY(itemNames(list).size() >= 12);
        const Run table = kubectl({u"get"_s, u"pods"_s});
        QVERIFY2(table.exitCode == 0, table.err.constData());
        QVERIFY2(table.out.startsWith("NAME "), table.out.constData());
        QVERIFY(table.out.contains("READY") && table.out.contains("Running"));
        const Run missing = kubectl({u"get"_s, u"pod"_s, u"nope"_s});
        QCOMPARE(missing.exitCode, 1);
        QVERIFY2(missing.err.contains("Error from server (NotFound): pods \"nope\" not found"),
                 missing.err.constData());
    }

    // The metrics API (metricsapi.cpp): kubectl top finds it through discovery and reads the
    // Pods' figures, measured on their processes; a Pod's own PodMetrics by name; not found for a
    // Pod that is not there.
    void kubectlTopReadsTheMetricsApi()
    {
        REQUIRE_KUBECTL();
        const QString selector = u"app.kubernetes.io/managed-by=agentscope,agentscope.workspace=true"_s;
        const auto listed = get(u"/apis/metrics.k8s.io/v1beta1/namespaces/agentscope/pods?labelSelector="_s
                                + QString::fromLatin1(QUrl::toPercentEncoding(selector)));
        QCOMPARE(listed.status, 200);
        const QJsonObject list = listed.json();
        QCOMPARE(list.value(u"kind"_s).toString(), u"PodMetricsList"_s);
        QCOMPARE(list.value(u"apiVersion"_s).toString(), u"metrics.k8s.io/v1beta1"_s);
        const QJsonArray items = list.value(u"items"_s).toArray();
        QVERIFY(!items.isEmpty());
        const QJsonObject first = items.first().toObject();
        const QString name = first.value(u"metadata"_s).toObject().value(u"name"_s).toString();
        const QJsonObject usage =
            first.value(u"containers"_s).toArray().first().toObject().value(u"usage"_s).toObject();
        QVERIFY2(usage.value(u"cpu"_s).toString().endsWith(u'n'), qPrintable(usage.value(u"cpu"_s).toString()));
        QVERIFY2(usage.value(u"memory"_s).toString().endsWith(u"Ki"_s),
                 qPrintable(usage.value(u"memory"_s).toString()));
        QCOMPARE(get(u"/apis/metrics.k8s.io/v1beta1/namespaces/agentscope/pods/"_s + name)
                     .json()
                     .value(u"kind"_s)
                     .toString(),
                 u"PodMetrics"_s);
        QCOMPARE(get(u"/apis/metrics.k8s.io/v1beta1/namespaces/agentscope/pods/nope"_s).status, 404);

        const Run top = kubectl({u"top"_s, u"pod"_s, u"-n"_s, u"agentscope"_s, u"-l"_s, selector});
        QVERIFY2(top.exitCode == 0, top.err.constData());
        QVERIFY2(top.out.startsWith("NAME "), top.out.constData());
        QVERIFY2(top.out.contains("CPU(cores)") && top.out.contains("MEMORY(bytes)"), top.out.constData());
        QVERIFY2(top.out.contains(name.toUtf8()), top.out.constData());
    }

    void kubectlCreateWithValidation()
    {
        REQUIRE_KUBECTL();
        QTemporaryDir dir;
        QFile manifest(dir.filePath(u"workspace.json"_s));
        QVERIFY(manifest.open(QIODevice::WriteOnly));
        manifest.write(compact(pvcManifest(u"as-ws-kubectl"_s)) + "\n"
                       + compact(podManifest(u"as-ws-kubectl"_s, u"python:3.11-slim"_s, {u"sleep"_s, u"infinity"_s},
                                             u"as-ws-kubectl"_s))
                       + "\n");
        manifest.close();
        m_fake.control("POST", u"/_fake/reset-stats"_s);
        const Run run = kubectl({u"create"_s, u"-f"_s, manifest.fileName()});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY2(run.out.contains("pod/as-ws-kubectl created"), run.out.constData());
        // Validation downloaded the core/v1 OpenAPI document.
        QCOMPARE(m_fake.stats().value(u"byVerb"_s).toObject().value(u"get /openapi/v3/api/v1"_s).toInt(), 1);
        QVERIFY(waitForPod(u"as-ws-kubectl"_s, isRunning));
        // An unknown field: the server's strict validation refuses it.
        QJsonObject bad = podManifest(u"as-ws-kubectl-bad"_s);
        QJsonObject spec = bad.value(u"spec"_s).toObject();
        spec.insert(u"foo"_s, u"bar"_s);
        bad.insert(u"spec"_s, spec);
        QFile badFile(dir.filePath(u"bad.json"_s));
        QVERIFY(badFile.open(QIODevice::WriteOnly));
        badFile.write(compact(bad));
        badFile.close();
        const Run refused = kubectl({u"create"_s, u"-f"_s, badFile.fileName()});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains("strict decoding error: unknown field \"spec.foo\""), refused.err.constData());
    }

    void kubectlExec()
    {
        REQUIRE_KUBECTL();
        QVERIFY(waitForPod(u"as-ws-kubectl"_s, isRunning));
        const Run run =
            kubectl({u"exec"_s, u"as-ws-kubectl"_s, u"--"_s, u"sh"_s, u"-c"_s, u"echo out; echo err >&2; exit 3"_s});
        QCOMPARE(run.exitCode, 3);
        QCOMPARE(run.out, "out\n");
        QVERIFY2(run.err.startsWith("err\n"), run.err.constData());
        QVERIFY2(run.err.contains("command terminated with exit code 3"), run.err.constData());
        const Run input = kubectl(
            {u"exec"_s, u"-i"_s, u"as-ws-kubectl"_s, u"--"_s, u"sh"_s, u"-c"_s, u"cat; echo done"_s}, "piped in\n");
        QVERIFY2(input.exitCode == 0, input.err.constData());
        QCOMPARE(input.out, "piped in\ndone\n");
        const Run pwd = kubectl({u"exec"_s, u"as-ws-kubectl"_s, u"-c"_s, u"workspace"_s, u"--"_s, u"pwd"_s});
        QCOMPARE(pwd.out, "/workspace\n");
    }

    void kubectlLogsFollow()
    {
        REQUIRE_KUBECTL();
        QVERIFY(
            makeWorkspace(u"as-ws-kflow"_s, {u"sh"_s, u"-c"_s, u"echo hello from the container; sleep infinity"_s}));
        QTRY_VERIFY_WITH_TIMEOUT(get(u"/api/v1/namespaces/agentscope/pods/as-ws-kflow/log"_s).body.contains("hello"),
                                 WaitMs);
        const Run tail = kubectl({u"logs"_s, u"as-ws-kflow"_s, u"--tail=5"_s, u"--timestamps"_s});
        QVERIFY2(tail.exitCode == 0, tail.err.constData());
        QVERIFY(tail.out.endsWith(" hello from the container\n"));
        QProcess follow;
        follow.start(m_kubectl,
                     {u"--kubeconfig"_s, m_fake.kubeconfigPath(), u"--cache-dir"_s, m_kubectlCache.path(), u"logs"_s,
                      u"-f"_s, u"as-ws-kflow"_s});
        QVERIFY(follow.waitForStarted(WaitMs));
        QByteArray out;
        QTRY_VERIFY_WITH_TIMEOUT((out += follow.readAllStandardOutput()).contains("hello from the container\n"),
                                 WaitMs);
        m_fake.control("POST", u"/_fake/pods/agentscope/as-ws-kflow/log"_s, "a later line\n");
        QTRY_VERIFY_WITH_TIMEOUT((out += follow.readAllStandardOutput()).contains("a later line\n"), WaitMs);
        QCOMPARE(follow.state(), QProcess::Running);
        QCOMPARE(call("DELETE", u"/api/v1/namespaces/agentscope/pods/as-ws-kflow"_s).status, 200);
        QVERIFY(follow.waitForFinished(WaitMs));
        QCOMPARE(follow.exitCode(), 0);
        QVERIFY(deleteNow(u"persistentvolumeclaims"_s, u"as-ws-kflow"_s));
    }

    void kubectlGetWatch()
    {
        REQUIRE_KUBECTL();
        QProcess watch;
        watch.start(m_kubectl,
                    {u"--kubeconfig"_s, m_fake.kubeconfigPath(), u"--cache-dir"_s, m_kubectlCache.path(), u"get"_s,
                     u"pods"_s, u"--watch"_s});
        QVERIFY(watch.waitForStarted(WaitMs));
        QByteArray out;
        QTRY_VERIFY_WITH_TIMEOUT((out += watch.readAllStandardOutput()).contains("as-ws-kubectl"), WaitMs);
        QVERIFY(!out.contains("as-ws-kwatch"));
        QCOMPARE(createPod(podManifest(u"as-ws-kwatch"_s)).status, 201);
        QTRY_VERIFY_WITH_TIMEOUT((out += watch.readAllStandardOutput()).contains("as-ws-kwatch"), WaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(QRegularExpression(u"as-ws-kwatch +1/1 +Running"_s)
                                     .match(QString::fromUtf8(out += watch.readAllStandardOutput()))
                                     .hasMatch(),
                                 WaitMs);
        watch.kill();
        watch.waitForFinished();
        QVERIFY(deleteNow(u"pods"_s, u"as-ws-kwatch"_s));
    }

    void kubectlDeleteWaitsForTheWatch()
    {
        REQUIRE_KUBECTL();
        QVERIFY(waitForPod(u"as-ws-kubectl"_s, isRunning));
        m_fake.control("POST", u"/_fake/reset-stats"_s);
        const Run run = kubectl({u"delete"_s, u"pod"_s, u"as-ws-kubectl"_s});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QCOMPARE(run.out, "pod \"as-ws-kubectl\" deleted\n");
        // kubectl returned once the watch said DELETED: the Pod is gone now.
        QCOMPARE(get(u"/api/v1/namespaces/agentscope/pods/as-ws-kubectl"_s).status, 404);
        QCOMPARE(m_fake.stats().value(u"byVerb"_s).toObject().value(u"watch pods"_s).toInt(), 1);
        const Run pvc = kubectl({u"delete"_s, u"pvc"_s, u"as-ws-kubectl"_s});
        QVERIFY2(pvc.exitCode == 0, pvc.err.constData());
        QCOMPARE(get(u"/api/v1/namespaces/agentscope/persistentvolumeclaims/as-ws-kubectl"_s).status, 404);
    }

    void cleanupTestCase() { QCOMPARE(m_fake.stop(), 0); }
};

QTEST_GUILESS_MAIN(TestFakeKubernetes)
#include "tst_fakekubernetes.moc"
