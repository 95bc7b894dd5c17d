// paddock-fake-opensandbox as its clients see it: the real executable, run as a child process,
// spoken to over HTTP on 127.0.0.1 with QNetworkAccessManager.

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

#include <csignal>
#include <memory>
#include <sys/prctl.h>

#ifndef FAKE_OSB_PATH
#error "FAKE_OSB_PATH must name the paddock-fake-opensandbox executable"
#endif

using namespace Qt::StringLiterals;

namespace {

constexpr int WaitMs = 60'000;

using Headers = QList<QPair<QByteArray, QByteArray>>;

struct Reply
{
    int status = 0; // 0: no HTTP answer
    QNetworkReply::NetworkError error = QNetworkReply::NoError;
    QByteArray body;
    QHash<QByteArray, QByteArray> headers; // lower-case names

    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
    QJsonArray array() const { return QJsonDocument::fromJson(body).array(); }
    QString code() const { return json().value(u"code"_s).toString(); }
    QByteArray header(const QByteArray &name) const { return headers.value(name.toLower()); }
};

// execd stream frames: bare JSON objects, each followed by a blank line.
QList<QJsonObject> events(const QByteArray &body)
{
    QList<QJsonObject> out;
    for (const QByteArray &frame : body.split('\n')) {
        if (!frame.trimmed().isEmpty())
            out.append(QJsonDocument::fromJson(frame).object());
    }
    return out;
}

QString joinedText(const QList<QJsonObject> &all, const QString &type)
{
    QString text;
    for (const QJsonObject &event : all) {
        if (event.value(u"type"_s).toString() == type)
            text += event.value(u"text"_s).toString();
    }
    return text;
}

QByteArray multipart(const QByteArray &boundary, const QList<QPair<QByteArray, QByteArray>> &parts)
{
    // Each part: its Content-Disposition parameters, then its body.
    QByteArray body;
    for (const auto &[disposition, content] : parts) {
        body += "--" + boundary + "\r\nContent-Disposition: form-data; " + disposition
            + "\r\nContent-Type: application/octet-stream\r\n\r\n" + content + "\r\n";
    }
    return body + "--" + boundary + "--\r\n";
}

bool bubblewrapWorks()
{
    const QString bwrap = QStandardPaths::findExecutable(u"bwrap"_s);
    if (bwrap.isEmpty())
        return false;
    QProcess probe;
    probe.start(bwrap,
                {u"--unshare-all"_s, u"--ro-bind"_s, u"/usr"_s, u"/usr"_s, u"--ro-bind-try"_s, u"/lib"_s, u"/lib"_s,
                 u"--ro-bind-try"_s, u"/lib64"_s, u"/lib64"_s, u"--ro-bind-try"_s, u"/bin"_s, u"/bin"_s, u"--proc"_s,
                 u"/proc"_s, u"--dev"_s, u"/dev"_s, u"--"_s, u"true"_s});
    return probe.waitForFinished(WaitMs) && probe.exitStatus() == QProcess::NormalExit && probe.exitCode() == 0;
}

// Is any process running whose command line contains `marker`?
bool processRunning(const QByteArray &marker)
{
    const QStringList pids = QDir(u"/proc"_s).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &pid : pids) {
        QFile cmdline(u"/proc/"_s + pid + u"/cmdline"_s);
        if (cmdline.open(QIODevice::ReadOnly) && cmdline.readAll().contains(marker))
            return true;
    }
    return false;
}

// The states (R, S, T, ...) of the processes whose command line contains `marker`.
QString processStates(const QByteArray &marker)
{
    QString states;
    const QStringList pids = QDir(u"/proc"_s).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &pid : pids) {
        QFile cmdline(u"/proc/"_s + pid + u"/cmdline"_s);
        QFile stat(u"/proc/"_s + pid + u"/stat"_s);
        if (!cmdline.open(QIODevice::ReadOnly) || !cmdline.readAll().contains(marker)
            || !stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray line = stat.readAll();
        const qsizetype paren = line.lastIndexOf(')');
        if (paren > 0 && paren + 2 < line.size())
            states += QLatin1Char(line.at(paren + 2));
    }
    return states;
}

} // namespace

class TestFakeOpenSandbox final : public QObject
{
    Q_OBJECT

private:
    bool m_bwrap = false;
    std::unique_ptr<QProcess> m_server;
    QString m_base;
    QNetworkAccessManager m_network;

    // Starts the server; its first stdout line is the base URL.
    bool start(QStringList arguments = {})
    {
        if (!m_bwrap)
            arguments.append(u"--no-bwrap"_s);
        m_server = std::make_unique<QProcess>();
        m_server->setProcessChannelMode(QProcess::ForwardedErrorChannel);
        // Should this test die, the server (and so its commands) stops too.
        m_server->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
        m_server->start(QStringLiteral(FAKE_OSB_PATH), arguments);
        if (!m_server->waitForStarted(WaitMs))
            return false;
        while (!m_server->canReadLine()) {
            if (m_server->state() != QProcess::Running || !m_server->waitForReadyRead(WaitMs))
                return false;
        }
        m_base = QString::fromUtf8(m_server->readLine()).trimmed();
        return m_base.startsWith(u"http://127.0.0.1:"_s);
    }

    int stopServer()
    {
        if (!m_server || m_server->state() == QProcess::NotRunning)
            return m_server ? m_server->exitCode() : 0;
        m_server->terminate();
        if (!m_server->waitForFinished(WaitMs)) {
            m_server->kill();
            m_server->waitForFinished(WaitMs);
            return -1;
        }
        return m_server->exitStatus() == QProcess::NormalExit ? m_server->exitCode() : -1;
    }

    Reply call(const QByteArray &method, const QString &url, const QByteArray &body = {}, const Headers &headers = {})
    {
        QNetworkRequest request{QUrl(url.startsWith(u"http"_s) ? url : m_base + url)};
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
            qWarning("no answer to %s %s", method.constData(), qPrintable(url));
            Reply none;
            none.status = -1;
            none.error = QNetworkReply::TimeoutError;
            return none;
        }
        return collect(reply.get());
    }

    static Reply collect(QNetworkReply *reply)
    {
        Reply out;
        out.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        out.error = reply->error();
        out.body = reply->readAll();
        for (const auto &[name, value] : reply->rawHeaderPairs())
            out.headers.insert(name.toLower(), value);
        return out;
    }

    Reply get(const QString &path, const Headers &headers = {}) { return call("GET", path, {}, headers); }

    qint64 stat(const QString &name) { return get(u"/_fake/stats"_s).json().value(name).toInteger(); }

    // Creates a sandbox; returns its JSON (empty on failure).
    QJsonObject create(const QJsonObject &extra = {}, const Headers &headers = {})
    {
        QJsonObject body{{u"image"_s, QJsonObject{{u"uri"_s, u"python:3.11"_s}}},
                         {u"entrypoint"_s, QJsonArray{u"tail"_s, u"-f"_s, u"/dev/null"_s}},
                         {u"timeout"_s, 3600},
                         {u"resourceLimits"_s, QJsonObject{{u"cpu"_s, u"500m"_s}, {u"memory"_s, u"512Mi"_s}}}};
        for (auto it = extra.begin(); it != extra.end(); ++it) {
            if (it.value().isUndefined())
                body.remove(it.key());
            else
                body.insert(it.key(), it.value());
        }
        const Reply reply = call("POST", u"/v1/sandboxes"_s, QJsonDocument(body).toJson(), headers);
        return reply.status == 202 ? reply.json() : QJsonObject();
    }

    struct Execd
    {
        QString base; // http://host:port/path
        Headers headers;
    };

    Execd execd(const QString &id, bool viaServerProxy = false)
    {
        const Reply reply = get(
            u"/v1/sandboxes/%1/endpoints/44772%2"_s.arg(id, viaServerProxy ? u"?use_server_proxy=true"_s : QString()));
        Execd out;
        out.base = u"http://"_s + reply.json().value(u"endpoint"_s).toString();
        const QJsonObject headers = reply.json().value(u"headers"_s).toObject();
        for (auto it = headers.begin(); it != headers.end(); ++it)
            out.headers.append({it.key().toUtf8(), it.value().toString().toUtf8()});
        return out;
    }

    Reply run(const Execd &e, const QJsonObject &command)
    {
        return call("POST", e.base + u"/command"_s, QJsonDocument(command).toJson(), e.headers);
    }

    Reply upload(const Execd &e, const QByteArray &path, const QByteArray &content, bool metadataFileName = true,
                 int mode = 644)
    {
        const QByteArray boundary = "b0undary" + QUuid::createUuid().toByteArray(QUuid::Id128);
        const QByteArray metadata = "{\"path\":\"" + path + "\",\"mode\":" + QByteArray::number(mode) + '}';
        const QByteArray body =
            multipart(boundary,
                      {{metadataFileName ? "name=\"metadata\"; filename=\"metadata\"" : "name=\"metadata\"", metadata},
                       {"name=\"file\"; filename=\"file\"", content}});
        Headers headers = e.headers;
        headers.append({"Content-Type", "multipart/form-data; boundary=" + boundary});
        return call("POST", e.base + u"/files/upload"_s, body, headers);
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_network.setProxy(QNetworkProxy::NoProxy);
        m_bwrap = bubblewrapWorks();
        if (!m_bwrap)
            qWarning("bubblewrap is not usable here: the server runs commands with --no-bwrap");
    }

    void cleanup()
    {
        stopServer();
        QVERIFY(!m_server || m_server->state() == QProcess::NotRunning);
        m_server.reset();
    }

    void lifecycle()
    {
        QVERIFY(start());
        QCOMPARE(get(u"/health"_s).json().value(u"status"_s).toString(), u"healthy"_s);

        const Reply created =
            call("POST", u"/v1/sandboxes"_s,
                 "{\"image\":{\"uri\":\"python:3.11\"},\"entrypoint\":[\"tail\",\"-f\",\"/dev/null\"],\"timeout\":3600,"
                 "\"resourceLimits\":{\"cpu\":\"1\"},\"metadata\":{\"team\":\"ml\",\"example.com/owner\":\"alice\"}}");
        QCOMPARE(created.status, 202);
        const QJsonObject sandbox = created.json();
        const QString id = sandbox.value(u"id"_s).toString();
        QVERIFY(QRegularExpression(u"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"_s)
                    .match(id)
                    .hasMatch());
        // The real server sends no Location for a sandbox (only for a snapshot).
        QVERIFY2(!created.headers.contains("location"), created.header("Location").constData());
        QCOMPARE(sandbox.value(u"status"_s).toObject().value(u"state"_s).toString(), u"Running"_s);
        QVERIFY(!sandbox.contains(u"image"_s)); // not in the create response
        const QRegularExpression timestamp(u"^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d{6})?Z$"_s);
        QVERIFY(timestamp.match(sandbox.value(u"createdAt"_s).toString()).hasMatch());
        QVERIFY(timestamp.match(sandbox.value(u"expiresAt"_s).toString()).hasMatch());
        const QDateTime createdAt = QDateTime::fromString(sandbox.value(u"createdAt"_s).toString(), Qt::ISODateWithMs);
        const QDateTime expiresAt = QDateTime::fromString(sandbox.value(u"expiresAt"_s).toString(), Qt::ISODateWithMs);
        QCOMPARE(createdAt.secsTo(expiresAt), 3600);

        const Reply fetched = get(u"/v1/sandboxes/"_s + id);
        QCOMPARE(fetched.status, 200);
        QCOMPARE(fetched.json().value(u"image"_s).toObject().value(u"uri"_s).toString(), u"python:3.11"_s);
        QCOMPARE(fetched.json().value(u"metadata"_s).toObject().value(u"team"_s).toString(), u"ml"_s);
        QCOMPARE(fetched.json().value(u"platform"_s).toObject().value(u"os"_s).toString(), u"linux"_s);
        QCOMPARE(get(u"/sandboxes/"_s + id).status, 200); // also mounted at /
        QVERIFY(!fetched.header("X-Fake-Serve-Us").isEmpty());

        // Pause and resume are synchronous, answer 202 without a body, and refuse the wrong state.
        Reply paused = call("POST", u"/v1/sandboxes/%1/pause"_s.arg(id));
        QCOMPARE(paused.status, 202);
        QVERIFY(paused.body.isEmpty());
        QCOMPARE(get(u"/v1/sandboxes/"_s + id).json().value(u"status"_s).toObject().value(u"state"_s).toString(),
                 u"Paused"_s);
        paused = call("POST", u"/v1/sandboxes/%1/pause"_s.arg(id));
        QCOMPARE(paused.status, 409);
        QCOMPARE(paused.code(), u"DOCKER::SANDBOX_NOT_RUNNING"_s);
        QCOMPARE(call("POST", u"/v1/sandboxes/%1/resume"_s.arg(id)).status, 202);
        const Reply resumed = call("POST", u"/v1/sandboxes/%1/resume"_s.arg(id));
        QCOMPARE(resumed.status, 409);
        QCOMPARE(resumed.code(), u"DOCKER::SANDBOX_NOT_PAUSED"_s);

        // Renew takes an absolute time in the future, with any RFC 3339 offset.
        Reply renewed = call("POST", u"/v1/sandboxes/%1/renew-expiration"_s.arg(id),
                             "{\"expiresAt\":\"2099-01-02T03:04:05.123+01:00\"}");
        QCOMPARE(renewed.status, 200);
        QCOMPARE(renewed.json().value(u"expiresAt"_s).toString(), u"2099-01-02T02:04:05.123000Z"_s);
        QCOMPARE(get(u"/v1/sandboxes/"_s + id).json().value(u"expiresAt"_s).toString(),
                 u"2099-01-02T02:04:05.123000Z"_s);
        renewed =
            call("POST", u"/v1/sandboxes/%1/renew-expiration"_s.arg(id), "{\"expiresAt\":\"2001-01-01T00:00:00Z\"}");
        QCOMPARE(renewed.status, 400);
        QCOMPARE(renewed.code(), u"DOCKER::INVALID_EXPIRATION"_s);
        renewed = call("POST", u"/v1/sandboxes/%1/renew-expiration"_s.arg(id), "{\"expiresAt\":\"tomorrow\"}");
        QCOMPARE(renewed.status, 422);
        QCOMPARE(renewed.json().value(u"detail"_s).toArray().at(0).toObject().value(u"loc"_s).toArray(),
                 (QJsonArray{u"body"_s, u"expiresAt"_s}));
        QCOMPARE(call("POST", u"/v1/sandboxes/%1/renew-expiration"_s.arg(id), "{}").status, 422);

        // Delete: 204, then the sandbox is simply gone.
        const Reply deleted = call("DELETE", u"/v1/sandboxes/"_s + id);
        QCOMPARE(deleted.status, 204);
        QVERIFY(deleted.body.isEmpty());
        const Reply gone = get(u"/v1/sandboxes/"_s + id);
        QCOMPARE(gone.status, 404);
        QCOMPARE(gone.code(), u"DOCKER::SANDBOX_NOT_FOUND"_s);
        QCOMPARE(gone.json().value(u"message"_s).toString(), u"Sandbox %1 not found."_s.arg(id));
        QCOMPARE(call("DELETE", u"/v1/sandboxes/"_s + id).status, 404);
        QCOMPARE(call("POST", u"/v1/sandboxes/%1/pause"_s.arg(id)).status, 404);

        // FastAPI's own answers for unknown routes and methods.
        const Reply unknown = get(u"/v1/nothing-here"_s);
        QCOMPARE(unknown.status, 404);
        QCOMPARE(unknown.json().value(u"detail"_s).toString(), u"Not Found"_s);
        const Reply wrongMethod = call("PUT", u"/v1/sandboxes"_s, "{}");
        QCOMPARE(wrongMethod.status, 405);
        QCOMPARE(wrongMethod.json().value(u"detail"_s).toString(), u"Method Not Allowed"_s);
    }

    void manualCleanupAndExpiry()
    {
        QVERIFY(start());
        // No timeout: no expiresAt, and renewing is a conflict.
        const QJsonObject manual = create({{u"timeout"_s, QJsonValue::Null}});
        QVERIFY(!manual.isEmpty());
        QVERIFY(!manual.contains(u"expiresAt"_s));
        const QString manualId = manual.value(u"id"_s).toString();
        QVERIFY(!get(u"/v1/sandboxes/"_s + manualId).json().contains(u"expiresAt"_s));
        const Reply conflict = call("POST", u"/v1/sandboxes/%1/renew-expiration"_s.arg(manualId),
                                    "{\"expiresAt\":\"2099-01-01T00:00:00Z\"}");
        QCOMPARE(conflict.status, 409);
        QCOMPARE(conflict.code(), u"DOCKER::INVALID_EXPIRATION"_s);

        // A sandbox whose time is up is killed and removed.
        const QString id = create().value(u"id"_s).toString();
        const QString soon =
            QDateTime::currentDateTimeUtc().addMSecs(1500).toString(Qt::ISODateWithMs).replace(u"Z"_s, u"+00:00"_s);
        QCOMPARE(call("POST", u"/v1/sandboxes/%1/renew-expiration"_s.arg(id),
                      QJsonDocument(QJsonObject{{u"expiresAt"_s, soon}}).toJson())
                     .status,
                 200);
        QTRY_COMPARE_WITH_TIMEOUT(get(u"/v1/sandboxes/"_s + id).status, 404, WaitMs);
        QCOMPARE(get(u"/v1/sandboxes/"_s + manualId).status, 200);
    }

    void createValidation_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code"); // for 400s
        const QByteArray limits = "\"resourceLimits\":{\"cpu\":\"1\"}";
        const QByteArray image = "\"image\":{\"uri\":\"python:3.11\"},\"entrypoint\":[\"sh\"]";
        QTest::newRow("not json") << QByteArray("{nope") << 422 << QString();
        QTest::newRow("no body") << QByteArray() << 422 << QString();
        QTest::newRow("timeout < 60") << "{" + image + "," + limits + ",\"timeout\":59}" << 422 << QString();
        QTest::newRow("timeout text") << "{" + image + "," + limits + ",\"timeout\":\"soon\"}" << 422 << QString();
        QTest::newRow("neither source") << "{" + limits + ",\"entrypoint\":[\"sh\"]}" << 422 << QString();
        QTest::newRow("both sources") << "{" + image + "," + limits + ",\"snapshotId\":\"snap\"}" << 422 << QString();
        QTest::newRow("no entrypoint") << "{" + limits + ",\"image\":{\"uri\":\"python:3.11\"}}" << 422 << QString();
        QTest::newRow("empty entrypoint")
            << "{" + limits + ",\"image\":{\"uri\":\"x\"},\"entrypoint\":[]}" << 422 << QString();
        QTest::newRow("no resourceLimits") << "{" + image + "}" << 422 << QString();
        QTest::newRow("metadata not text")
            << "{" + image + "," + limits + ",\"metadata\":{\"n\":1}}" << 422 << QString();
        QTest::newRow("image not object")
            << "{" + limits + ",\"image\":\"python\",\"entrypoint\":[\"sh\"]}" << 422 << QString();
        QTest::newRow("value with space") << "{" + image + "," + limits + ",\"metadata\":{\"team\":\"ml team\"}}" << 400
                                          << u"SANDBOX::INVALID_METADATA_LABEL"_s;
        QTest::newRow("value too long") << "{" + image + "," + limits + ",\"metadata\":{\"team\":\""
                + QByteArray(64, 'a')
                + "\"}}" << 400 << u"SANDBOX::INVALID_METADATA_LABEL"_s;
        QTest::newRow("value ends with dash") << "{" + image + "," + limits + ",\"metadata\":{\"team\":\"ml-\"}}" << 400
                                              << u"SANDBOX::INVALID_METADATA_LABEL"_s;
        QTest::newRow("reserved prefix") << "{" + image + "," + limits + ",\"metadata\":{\"opensandbox.io/id\":\"x\"}}"
                                         << 400 << u"SANDBOX::INVALID_METADATA_LABEL"_s;
        QTest::newRow("bad prefix") << "{" + image + "," + limits + ",\"metadata\":{\"Bad_Prefix/name\":\"x\"}}" << 400
                                    << u"SANDBOX::INVALID_METADATA_LABEL"_s;
        QTest::newRow("empty key") << "{" + image + "," + limits + ",\"metadata\":{\"\":\"x\"}}" << 400
                                   << u"SANDBOX::INVALID_METADATA_LABEL"_s;
        QTest::newRow("snapshot") << "{" + limits + ",\"snapshotId\":\"snap-1\"}" << 501
                                  << u"SANDBOX::API_NOT_SUPPORTED"_s;
        QTest::newRow("label rules kept") << "{" + image + "," + limits
                + ",\"metadata\":{\"a.b-c_d\":\"A.b-9\",\"example.com/k\":\"\",\"x\":\"b32-5c7zbz53wq\"}}"
                                          << 202 << QString();
    }

    void createValidation()
    {
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        QFETCH(QString, code);
        QVERIFY(start());
        const Reply reply = call("POST", u"/v1/sandboxes"_s, body, {{"Content-Type", "application/json"}});
        QCOMPARE(reply.status, status);
        if (status == 422) {
            // FastAPI's shape, not {code, message}.
            const QJsonArray detail = reply.json().value(u"detail"_s).toArray();
            QVERIFY(!detail.isEmpty());
            QCOMPARE(detail.at(0).toObject().value(u"loc"_s).toArray().at(0).toString(), u"body"_s);
            QVERIFY(!detail.at(0).toObject().value(u"type"_s).toString().isEmpty());
            QVERIFY(!detail.at(0).toObject().value(u"msg"_s).toString().isEmpty());
        } else if (!code.isEmpty()) {
            QCOMPARE(reply.code(), code);
            QVERIFY(!reply.json().value(u"message"_s).toString().isEmpty());
        }
        QCOMPARE(stat(u"sandboxes"_s), status == 202 ? 1 : 0);
    }

    void listFiltersAndPages()
    {
        QVERIFY(start({u"--seed"_s, u"230"_s}));
        Reply page = get(u"/v1/sandboxes?pageSize=100&page=2"_s);
        QCOMPARE(page.status, 200);
        QJsonObject pagination = page.json().value(u"pagination"_s).toObject();
        QCOMPARE(pagination.value(u"totalItems"_s).toInt(), 230);
        QCOMPARE(pagination.value(u"totalPages"_s).toInt(), 3);
        QCOMPARE(pagination.value(u"page"_s).toInt(), 2);
        QCOMPARE(pagination.value(u"pageSize"_s).toInt(), 100);
        QCOMPARE(pagination.value(u"hasNextPage"_s).toBool(), true);
        QCOMPARE(page.json().value(u"items"_s).toArray().size(), 100);

        // Every page in turn: each sandbox once, newest first.
        QStringList ids;
        QString previous;
        for (int p = 1; p <= 3; ++p) {
            page = get(u"/v1/sandboxes?pageSize=100&page=%1"_s.arg(p));
            QCOMPARE(page.json().value(u"pagination"_s).toObject().value(u"hasNextPage"_s).toBool(), p < 3);
            for (const QJsonValue &item : page.json().value(u"items"_s).toArray()) {
                const QString createdAt = item.toObject().value(u"createdAt"_s).toString();
                QVERIFY(previous.isEmpty() || createdAt < previous);
                previous = createdAt;
                ids.append(item.toObject().value(u"id"_s).toString());
            }
        }
        ids.removeDuplicates();
        QCOMPARE(ids.size(), 230);
        QCOMPARE(get(u"/v1/sandboxes"_s).json().value(u"items"_s).toArray().size(), 20); // default page size
        QCOMPARE(get(u"/v1/sandboxes?page=13"_s).json().value(u"items"_s).toArray().size(), 0);

        // state: repeatable, case-insensitive, OR.
        const auto total = [this](const QString &query) {
            return get(u"/v1/sandboxes?"_s + query)
                .json()
                .value(u"pagination"_s)
                .toObject()
                .value(u"totalItems"_s)
                .toInt();
        };
        const int pausedCount = total(u"state=paused"_s);
        QCOMPARE(pausedCount, 230 / 4);
        QCOMPARE(total(u"state=Running"_s), 230 - pausedCount);
        QCOMPARE(total(u"state=Running&state=PAUSED"_s), 230);
        QCOMPARE(total(u"state=Terminated"_s), 0);

        // metadata: one parameter holding an encoded query string, pairs ANDed.
        const int chinese = total(u"metadata=agentscope.user.id%3Db32-5c7zbz53wq"_s);
        QVERIFY(chinese > 0 && chinese < 230);
        QCOMPARE(total(u"metadata=agentscope.user.id%3Db32-5c7zbz53wq%26agentscope.agent.id%3Dnobody"_s), 0);
        QCOMPARE(total(u"metadata=agentscope.user.id%3Db32-5c7zbz53wq&state=Paused"_s)
                     + total(u"metadata=agentscope.user.id%3Db32-5c7zbz53wq&state=Running"_s),
                 chinese);
        QCOMPARE(total(u"metadata="_s), 230); // empty: no filter

        // The value is decoded again by parse_qsl: `+` is a space, %XX is UTF-8.
        const QString id =
            create({{u"metadata"_s, QJsonObject{{u"k"_s, u"a.b"_s}, {u"name"_s, u"x_y"_s}}}}).value(u"id"_s).toString();
        QVERIFY(!id.isEmpty());
        const Reply found = get(u"/v1/sandboxes?metadata=k%3Da%252Eb%26name%3Dx_y"_s);
        QCOMPARE(found.json().value(u"items"_s).toArray().size(), 1);
        QCOMPARE(found.json().value(u"items"_s).toArray().at(0).toObject().value(u"id"_s).toString(), id);
        QCOMPARE(total(u"metadata=k%3Da.b%26name%3Dx+y"_s), 0);

        // Malformed filters and pages.
        for (const QString &bad : {u"metadata=k"_s, u"metadata=k%3Dv%26broken"_s, u"metadata=k%3Dv%26%26j%3Dw"_s}) {
            const Reply reply = get(u"/v1/sandboxes?"_s + bad);
            QCOMPARE(reply.status, 400);
            QCOMPARE(reply.code(), u"INVALID_METADATA_FORMAT"_s);
        }
        for (const QString &bad : {u"pageSize=201"_s, u"pageSize=0"_s, u"page=0"_s, u"page=two"_s}) {
            const Reply reply = get(u"/v1/sandboxes?"_s + bad);
            QCOMPARE(reply.status, 422);
            QCOMPARE(reply.json().value(u"detail"_s).toArray().at(0).toObject().value(u"loc"_s).toArray().at(0),
                     QJsonValue(u"query"_s));
        }
        QCOMPARE(get(u"/v1/sandboxes?pageSize=200"_s).json().value(u"items"_s).toArray().size(), 200);
    }

    void authAndRequestIds()
    {
        QVERIFY(start({u"--api-key"_s, u"s3cret"_s}));
        Reply reply = get(u"/v1/sandboxes"_s);
        QCOMPARE(reply.status, 401);
        QCOMPARE(reply.code(), u"MISSING_API_KEY"_s);
        reply = get(u"/v1/sandboxes"_s, {{"OPEN-SANDBOX-API-KEY", "wrong"}});
        QCOMPARE(reply.status, 401);
        QCOMPARE(reply.code(), u"INVALID_API_KEY"_s);
        QCOMPARE(get(u"/v1/does-not-exist"_s).status, 401); // the key is checked before routing
        QCOMPARE(get(u"/health"_s).status, 200);
        QCOMPARE(get(u"/_fake/stats"_s).status, 200);

        const Headers key{{"OPEN-SANDBOX-API-KEY", "s3cret"}};
        reply = get(u"/v1/sandboxes"_s, key);
        QCOMPARE(reply.status, 200);
        // X-Request-ID: a fresh uuid, or the caller's own.
        QVERIFY(QRegularExpression(u"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"_s)
                    .match(QString::fromLatin1(reply.header("X-Request-ID")))
                    .hasMatch());
        QVERIFY(get(u"/v1/sandboxes"_s, key).header("X-Request-ID") != reply.header("X-Request-ID"));
        QCOMPARE(get(u"/v1/sandboxes"_s, Headers{key.first(), {"X-Request-ID", "req-42"}}).header("X-Request-ID"),
                 "req-42");
        QCOMPARE(get(u"/v1/sandboxes"_s).header("X-Request-ID").isEmpty(), false); // on errors too

        // execd takes its own token, and the server counts who sent it the lifecycle key.
        const QString id = create({}, key).value(u"id"_s).toString();
        QVERIFY(!id.isEmpty());
        const Reply endpoint = get(u"/v1/sandboxes/%1/endpoints/44772"_s.arg(id), key);
        const QString base = u"http://"_s + endpoint.json().value(u"endpoint"_s).toString();
        const QByteArray token =
            endpoint.json().value(u"headers"_s).toObject().value(u"X-EXECD-ACCESS-TOKEN"_s).toString().toUtf8();
        QVERIFY(!token.isEmpty());
        reply = get(base + u"/ping"_s);
        QCOMPARE(reply.status, 401);
        QCOMPARE(reply.json().value(u"error"_s).toString(),
                 u"Unauthorized: invalid or missing header X-EXECD-ACCESS-TOKEN"_s);
        QCOMPARE(get(base + u"/ping"_s, {{"X-EXECD-ACCESS-TOKEN", "nope"}}).status, 401);
        QCOMPARE(get(base + u"/ping"_s, {{"X-EXECD-ACCESS-TOKEN", token}}).status, 200);
        QCOMPARE(stat(u"execdRequestsWithApiKey"_s), 0);
        QCOMPARE(get(base + u"/ping"_s, {{"X-EXECD-ACCESS-TOKEN", token}, key.first()}).status, 200);
        QCOMPARE(stat(u"execdRequestsWithApiKey"_s), 1);
        QCOMPARE(stat(u"execdRequests"_s), 4);
        // The server proxy needs neither key nor token.
        QCOMPARE(get(u"/sandboxes/%1/proxy/44772/ping"_s.arg(id)).status, 200);
        QCOMPARE(get(u"/v1/sandboxes/%1/proxy/44772/ping"_s.arg(id)).status, 200);
        QCOMPARE(stat(u"execdRequests"_s), 6);
        // A sandbox that does not exist has no execd to answer.
        const QString missing = base.left(base.lastIndexOf(u'/')) + u"/00000000-0000-4000-8000-000000000000/ping"_s;
        reply = get(missing, {{"X-EXECD-ACCESS-TOKEN", token}});
        QCOMPARE(reply.status, 0);
        QVERIFY(reply.error != QNetworkReply::NoError);
    }

    void notHttpIsRefusedAtOnce()
    {
        QVERIFY(start());
        // A TLS ClientHello to the plain-HTTP port gets a 400 and a closed connection, not a hang.
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, static_cast<quint16>(QUrl(m_base).port()));
        QVERIFY(socket.waitForConnected(WaitMs));
        socket.write(QByteArray::fromHex("160301020001fc0303"));
        QSignalSpy disconnected(&socket, &QTcpSocket::disconnected);
        QVERIFY(socket.state() != QAbstractSocket::ConnectedState || disconnected.wait(WaitMs));
        QVERIFY(socket.readAll().startsWith("HTTP/1.1 400 "));
    }

    void metadataPatch()
    {
        QVERIFY(start());
        const QString id =
            create({{u"metadata"_s, QJsonObject{{u"a"_s, u"1"_s}, {u"b"_s, u"2"_s}}}}).value(u"id"_s).toString();
        const QString path = u"/v1/sandboxes/%1/metadata"_s.arg(id);
        Reply reply = call("PATCH", path, "{\"b\":null,\"c\":\"3\",\"gone\":null}");
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.json().value(u"metadata"_s).toObject(), (QJsonObject{{u"a"_s, u"1"_s}, {u"c"_s, u"3"_s}}));
        QCOMPARE(call("PATCH", path, "{}").json().value(u"metadata"_s).toObject().size(), 2);
        reply = call("PATCH", path, "{\"c\":\"not valid\"}");
        QCOMPARE(reply.status, 400);
        QCOMPARE(reply.code(), u"SANDBOX::INVALID_METADATA_LABEL"_s);
        reply = call("PATCH", path, "{\"opensandbox.io/x\":\"1\"}");
        QCOMPARE(reply.status, 400);
        QVERIFY(reply.code().endsWith(u"INVALID_METADATA_LABEL"_s));
        QCOMPARE(call("PATCH", path, "{\"c\":3}").status, 422);
        QCOMPARE(call("PATCH", u"/v1/sandboxes/nope/metadata"_s, "{}").status, 404);
        QCOMPARE(get(u"/v1/sandboxes/"_s + id).json().value(u"metadata"_s).toObject(),
                 (QJsonObject{{u"a"_s, u"1"_s}, {u"c"_s, u"3"_s}}));
    }

    void endpoints()
    {
        QVERIFY(start());
        const QString id = create().value(u"id"_s).toString();
        const quint16 port = QUrl(m_base).port();
        Reply reply = get(u"/v1/sandboxes/%1/endpoints/44772?use_server_proxy=true"_s.arg(id));
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.json().value(u"endpoint"_s).toString(),
                 u"127.0.0.1:%1/sandboxes/%2/proxy/44772"_s.arg(port).arg(id));
        QVERIFY(!reply.json().contains(u"headers"_s));
        reply = get(u"/v1/sandboxes/%1/endpoints/44772"_s.arg(id));
        const QString execd = reply.json().value(u"endpoint"_s).toString();
        QVERIFY2(QRegularExpression(u"^127\\.0\\.0\\.1:\\d+/"_s + id + u'$').match(execd).hasMatch(),
                 qPrintable(execd));
        QVERIFY(!reply.json().value(u"headers"_s).toObject().value(u"X-EXECD-ACCESS-TOKEN"_s).toString().isEmpty());
        reply = get(u"/v1/sandboxes/%1/endpoints/8080"_s.arg(id));
        QCOMPARE(reply.json().value(u"endpoint"_s).toString(), execd + u"/proxy/8080"_s);
        reply = get(u"/v1/sandboxes/%1/endpoints/0"_s.arg(id));
        QCOMPARE(reply.status, 400);
        QCOMPARE(reply.code(), u"DOCKER::INVALID_PORT"_s);
        QCOMPARE(get(u"/v1/sandboxes/%1/endpoints/http"_s.arg(id)).status, 422);
        QCOMPARE(get(u"/v1/sandboxes/nope/endpoints/44772"_s).status, 404);
        reply = get(u"/v1/sandboxes/%1/endpoints/44772?expires=4102444800"_s.arg(id));
        QCOMPARE(reply.status, 400);
        QCOMPARE(reply.code(), u"SANDBOX::API_NOT_SUPPORTED"_s);
        // Other ports through the server proxy: nothing listens there.
        reply = get(u"/sandboxes/%1/proxy/8080/"_s.arg(id));
        QCOMPARE(reply.status, 502);
        QCOMPARE(reply.code(), u"GENERAL::PROXY_ERROR"_s);
    }

    void commandStream()
    {
        QVERIFY(start({u"--ping-interval-ms"_s, u"100"_s}));
        const QString id = create().value(u"id"_s).toString();
        const Execd e = execd(id);

        Reply reply = run(e, {{u"command"_s, u"echo out; echo err >&2; sleep 0.3; printf 'no newline'; exit 3"_s}});
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.header("Content-Type"), "text/event-stream");
        QVERIFY(!reply.body.contains("data:"));
        QVERIFY(reply.body.endsWith("}\n\n"));
        QList<QJsonObject> all = events(reply.body);
        QVERIFY(!all.isEmpty());
        QCOMPARE(all.first().value(u"type"_s).toString(), u"init"_s);
        const QString commandId = all.first().value(u"text"_s).toString();
        QVERIFY(!commandId.isEmpty());
        QVERIFY(all.first().value(u"timestamp"_s).toInteger() > 1'600'000'000'000);
        QCOMPARE(joinedText(all, u"stdout"_s), u"out\nno newline"_s);
        QCOMPARE(joinedText(all, u"stderr"_s), u"err\n"_s);
        QVERIFY(joinedText(all, u"ping"_s).startsWith(u"pong"_s));
        const QJsonObject last = all.last();
        QCOMPARE(last.value(u"type"_s).toString(), u"error"_s);
        QCOMPARE(last.value(u"error"_s).toObject().value(u"ename"_s).toString(), u"CommandExecError"_s);
        QCOMPARE(last.value(u"error"_s).toObject().value(u"evalue"_s).toString(), u"3"_s);

        Reply status = get(e.base + u"/command/status/"_s + commandId, e.headers);
        QCOMPARE(status.status, 200);
        QCOMPARE(status.json().value(u"running"_s).toBool(), false);
        QCOMPARE(status.json().value(u"exit_code"_s).toInt(), 3);
        QVERIFY(status.json().contains(u"finished_at"_s));
        QCOMPARE(get(e.base + u"/command/status/nope"_s, e.headers).status, 404);
        QCOMPARE(get(e.base + u"/command/%1/logs"_s.arg(commandId), e.headers).status, 400); // not a background one

        // Success: execution_complete, in the working directory asked for, with the envs given.
        reply = run(e, {{u"command"_s, u"mkdir -p /workspace/sub && cd /workspace/sub && pwd"_s}});
        QCOMPARE(events(reply.body).last().value(u"type"_s).toString(), u"execution_complete"_s);
        reply = run(e,
                    {{u"command"_s, u"pwd; echo $GREETING; echo $HOME"_s},
                     {u"cwd"_s, u"/workspace/sub"_s},
                     {u"envs"_s, QJsonObject{{u"GREETING"_s, u"hello"_s}}}});
        all = events(reply.body);
        QCOMPARE(all.last().value(u"type"_s).toString(), u"execution_complete"_s);
        QVERIFY(all.last().contains(u"execution_time"_s));
        if (m_bwrap)
            QCOMPARE(joinedText(all, u"stdout"_s), u"/workspace/sub\nhello\n/root\n"_s);
        else
            QVERIFY(joinedText(all, u"stdout"_s).contains(u"hello\n"_s));

        // A timeout kills the command: evalue -1.
        reply = run(e, {{u"command"_s, u"sleep 30"_s}, {u"timeout"_s, 200}});
        all = events(reply.body);
        QCOMPARE(all.last().value(u"error"_s).toObject().value(u"evalue"_s).toString(), u"-1"_s);

        // Requests rejected before any stream starts.
        reply = run(e, {{u"cwd"_s, u"/workspace"_s}});
        QCOMPARE(reply.status, 400);
        QCOMPARE(reply.code(), u"INVALID_REQUEST_BODY"_s);
        QCOMPARE(call("POST", e.base + u"/command"_s, "{not json", e.headers).status, 400);
        QCOMPARE(run(e, {{u"command"_s, u"true"_s}, {u"cwd"_s, u"/workspace/none"_s}}).status, 400);

        // The command output is also the sandbox's log.
        const Reply logs = get(u"/v1/sandboxes/%1/diagnostics/logs?tail=2"_s.arg(id));
        QCOMPARE(logs.status, 200);
        QCOMPARE(logs.header("Deprecation"), "true");
        QVERIFY(logs.header("Content-Type").startsWith("text/plain"));
        QCOMPARE(logs.body.count('\n'), 2);
        QVERIFY(logs.body.trimmed().endsWith("/root"));
        QCOMPARE(get(u"/v1/sandboxes/%1/diagnostics/logs?tail=0"_s.arg(id)).status, 422);
    }

    void commandsAreConfined()
    {
        if (!m_bwrap)
            QSKIP("bubblewrap is not usable on this machine");
        QVERIFY(start());
        const QString id = create().value(u"id"_s).toString();
        const Execd e = execd(id);
        const quint16 port = QUrl(m_base).port();
        const auto exitCode = [&](const QString &command) {
            const QList<QJsonObject> all = events(run(e, {{u"command"_s, command}}).body);
            const QJsonObject last = all.isEmpty() ? QJsonObject() : all.last();
            return last.value(u"type"_s).toString() == u"execution_complete"_s
                ? 0
                : last.value(u"error"_s).toObject().value(u"evalue"_s).toString().toInt();
        };
        QCOMPARE(exitCode(u"echo ok > /workspace/a && echo ok > /root/b && echo ok > /tmp/c"_s), 0);
        QVERIFY(exitCode(u"echo no > /usr/evil"_s) != 0);
        QVERIFY(exitCode(u"echo no > /etc/evil"_s) != 0);
        QVERIFY(exitCode(u"mkdir /home/evil"_s) != 0);
        QVERIFY(exitCode(u"test -e /home || test -e /var/lib"_s) != 0); // the rest of the host is not there
        // No network: not even the server on the host's loopback.
        QVERIFY(exitCode(u"exec 3<>/dev/tcp/127.0.0.1/%1"_s.arg(port)) != 0);
        QVERIFY(exitCode(u"exec 3<>/dev/tcp/1.1.1.1/53"_s) != 0);
        // The files stayed in the sandbox's own directories.
        const QString dataDir = get(u"/_fake/info"_s).json().value(u"dataDir"_s).toString();
        QVERIFY(QFileInfo::exists(dataDir + u'/' + id + u"/workspace/a"_s));
        QVERIFY(QFileInfo::exists(dataDir + u'/' + id + u"/root/b"_s));
        QVERIFY(QFileInfo::exists(dataDir + u'/' + id + u"/tmp/c"_s));
        QVERIFY(!QFileInfo::exists(u"/usr/evil"_s));
    }

    void backgroundCommandLogs()
    {
        QVERIFY(start());
        const Execd e = execd(create().value(u"id"_s).toString());
        const Reply reply = run(e,
                                {{u"command"_s,
                                  u"for i in 1 2 3 4 5; do echo line $i; echo warn $i >&2; "
                                  "sleep 0.1; done"_s},
                                 {u"background"_s, true}});
        const QList<QJsonObject> all = events(reply.body);
        QCOMPARE(all.size(), 2);
        QCOMPARE(all.at(0).value(u"type"_s).toString(), u"init"_s);
        QCOMPARE(all.at(1).value(u"type"_s).toString(), u"execution_complete"_s);
        const QString commandId = all.at(0).value(u"text"_s).toString();

        // Tail the combined log by its byte cursor until the command is done.
        QByteArray log;
        qint64 cursor = 0;
        const auto poll = [&] {
            const Reply chunk = get(e.base + u"/command/%1/logs?cursor=%2"_s.arg(commandId).arg(cursor), e.headers);
            if (chunk.status != 200)
                return false;
            log += chunk.body;
            const qint64 next = chunk.header("EXECD-COMMANDS-TAIL-CURSOR").toLongLong();
            const bool consistent = next == cursor + chunk.body.size();
            cursor = next;
            return consistent;
        };
        QTRY_VERIFY_WITH_TIMEOUT(
            poll() && !get(e.base + u"/command/status/"_s + commandId, e.headers).json().value(u"running"_s).toBool(),
            WaitMs);
        QVERIFY(poll());
        QCOMPARE(log.count("line "), 5);
        QCOMPARE(log.count("warn "), 5);
        QVERIFY(log.indexOf("line 1") < log.indexOf("line 5"));
        const QJsonObject status = get(e.base + u"/command/status/"_s + commandId, e.headers).json();
        QCOMPARE(status.value(u"exit_code"_s).toInt(), 0);
        QVERIFY(status.value(u"content"_s).toString().startsWith(u"for i in"_s));
        // A cursor past the end is clamped.
        const Reply past = get(e.base + u"/command/%1/logs?cursor=999999"_s.arg(commandId), e.headers);
        QVERIFY(past.body.isEmpty());
        QCOMPARE(past.header("EXECD-COMMANDS-TAIL-CURSOR").toLongLong(), cursor);

        // Interrupt kills a running background command.
        const QString sleeper = events(run(e, {{u"command"_s, u"sleep 600"_s}, {u"background"_s, true}}).body)
                                    .first()
                                    .value(u"text"_s)
                                    .toString();
        QVERIFY(get(e.base + u"/command/status/"_s + sleeper, e.headers).json().value(u"running"_s).toBool());
        QCOMPARE(call("DELETE", e.base + u"/command?id="_s + sleeper, {}, e.headers).status, 200);
        QTRY_VERIFY_WITH_TIMEOUT(
            !get(e.base + u"/command/status/"_s + sleeper, e.headers).json().value(u"running"_s).toBool(), WaitMs);
        QCOMPARE(get(e.base + u"/command/status/"_s + sleeper, e.headers).json().value(u"exit_code"_s).toInt(), -1);
    }

    void files()
    {
        QVERIFY(start());
        const QString id = create().value(u"id"_s).toString();
        const Execd e = execd(id);

        QCOMPARE(upload(e, "/workspace/dir/sub/hello.txt", "hello, world").status, 200);
        // Without filename= the metadata part is a form value, which execd does not read.
        const Reply noFileName = upload(e, "/workspace/other.txt", "x", false);
        QCOMPARE(noFileName.status, 400);
        QCOMPARE(noFileName.code(), u"INVALID_FILE_METADATA"_s);
        QCOMPARE(get(e.base + u"/files/info?path=/workspace/other.txt"_s, e.headers).status, 404);

        Reply reply = get(e.base + u"/files/download?path=/workspace/dir/sub/hello.txt"_s, e.headers);
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.body, "hello, world");
        QCOMPARE(reply.header("Content-Type"), "application/octet-stream");
        reply = get(e.base + u"/files/download?path=/workspace/dir/sub/hello.txt"_s,
                    Headers(e.headers) << qMakePair(QByteArray("Range"), QByteArray("bytes=7-")));
        QCOMPARE(reply.status, 206);
        QCOMPARE(reply.body, "world");
        QCOMPARE(reply.header("Content-Range"), "bytes 7-11/12");
        reply = get(e.base + u"/files/download?path=/workspace/dir/sub/hello.txt"_s,
                    Headers(e.headers) << qMakePair(QByteArray("Range"), QByteArray("bytes=50-60")));
        QCOMPARE(reply.status, 416);
        reply = get(e.base + u"/files/download?path=/workspace/dir/sub/hello.txt"_s,
                    Headers(e.headers) << qMakePair(QByteArray("Range"), QByteArray("lines=1-2")));
        QCOMPARE(reply.status, 416);
        reply = get(e.base + u"/files/download?path=/workspace/missing"_s, e.headers);
        QCOMPARE(reply.status, 404);
        QCOMPARE(reply.code(), u"FILE_NOT_FOUND"_s);

        reply = get(e.base + u"/files/info?path=/workspace/dir/sub/hello.txt&path=/workspace/dir"_s, e.headers);
        QCOMPARE(reply.status, 200);
        const QJsonObject file = reply.json().value(u"/workspace/dir/sub/hello.txt"_s).toObject();
        QCOMPARE(file.value(u"type"_s).toString(), u"file"_s);
        QCOMPARE(file.value(u"size"_s).toInt(), 12);
        QCOMPARE(file.value(u"mode"_s).toInt(), 644);
        QCOMPARE(file.value(u"path"_s).toString(), u"/workspace/dir/sub/hello.txt"_s);
        QVERIFY(!file.value(u"owner"_s).toString().isEmpty());
        QVERIFY(file.value(u"modified_at"_s).toString().endsWith(u'Z'));
        QCOMPARE(reply.json().value(u"/workspace/dir"_s).toObject().value(u"type"_s).toString(), u"directory"_s);
        // What commands write, the file API sees, and the other way round.
        if (m_bwrap) {
            QCOMPARE(events(run(e, {{u"command"_s, u"cat /workspace/dir/sub/hello.txt > /tmp/copy"_s}}).body)
                         .last()
                         .value(u"type"_s)
                         .toString(),
                     u"execution_complete"_s);
            QCOMPARE(get(e.base + u"/files/download?path=/tmp/copy"_s, e.headers).body, "hello, world");
        }
        // The host, read-only: readable, never writable.
        QVERIFY(get(e.base + u"/files/download?path=/etc/passwd"_s, e.headers).body.contains("root:"));
        reply = upload(e, "/etc/evil", "x");
        QVERIFY2(reply.status == 403 || reply.status == 400, reply.body.constData());
        QCOMPARE(reply.code(), u"RUNTIME_ERROR"_s);
        QVERIFY(!QFileInfo::exists(u"/etc/evil"_s));
        QCOMPARE(upload(e, "/home/evil", "x").code(), u"RUNTIME_ERROR"_s);
        QCOMPARE(get(e.base + u"/files/info?path=/home"_s, e.headers).status, 404);
        // `..` and symbolic links stay inside the sandbox's view.
        QCOMPARE(upload(e, "/workspace/../usr/evil", "x").code(), u"RUNTIME_ERROR"_s);
        // Links as a command in the sandbox makes them (made here directly when commands run unconfined).
        const QString workspace =
            get(u"/_fake/info"_s).json().value(u"dataDir"_s).toString() + u'/' + id + u"/workspace"_s;
        QVERIFY(QFile::link(u"/"_s, workspace + u"/up"_s));
        QVERIFY(QFile::link(u"/usr"_s, workspace + u"/u"_s));
        QCOMPARE(upload(e, "/workspace/u/evil", "x").code(), u"RUNTIME_ERROR"_s);
        QCOMPARE(upload(e, "/workspace/up/tmp/through-link", "linked").status, 200);
        QCOMPARE(get(e.base + u"/files/download?path=/tmp/through-link"_s, e.headers).body, "linked");
        QCOMPARE(get(e.base + u"/files/info?path=/workspace/up"_s, e.headers)
                     .json()
                     .value(u"/workspace/up"_s)
                     .toObject()
                     .value(u"type"_s)
                     .toString(),
                 u"symlink"_s);
        QVERIFY(!QFileInfo::exists(u"/usr/evil"_s));

        // Directories: mkdir -p with a mode, a lexical listing, rm -rf.
        QCOMPARE(
            call("POST", e.base + u"/directories"_s, "{\"/workspace/made/deep\":{\"mode\":700}}", e.headers).status,
            200);
        QCOMPARE(get(e.base + u"/files/info?path=/workspace/made/deep"_s, e.headers)
                     .json()
                     .value(u"/workspace/made/deep"_s)
                     .toObject()
                     .value(u"mode"_s)
                     .toInt(),
                 700);
        QCOMPARE(upload(e, "/workspace/made/b.txt", "b").status, 200);
        QCOMPARE(upload(e, "/workspace/made/a.txt", "a").status, 200);
        reply = get(e.base + u"/directories/list?path=/workspace/made"_s, e.headers);
        QCOMPARE(reply.status, 200);
        QStringList listed;
        for (const QJsonValue &entry : reply.array())
            listed.append(entry.toObject().value(u"path"_s).toString());
        QCOMPARE(listed,
                 (QStringList{u"/workspace/made/a.txt"_s, u"/workspace/made/b.txt"_s, u"/workspace/made/deep"_s}));
        QCOMPARE(get(e.base + u"/directories/list?path=/workspace&depth=3"_s, e.headers).array().size(), 9);
        QCOMPARE(get(e.base + u"/directories/list?path=/workspace/made/a.txt"_s, e.headers).status, 400);
        QCOMPARE(call("POST", e.base + u"/directories"_s, "{\"/usr/made\":{\"mode\":755}}", e.headers).code(),
                 u"RUNTIME_ERROR"_s);
        QCOMPARE(call("DELETE", e.base + u"/files?path=/workspace/made/a.txt"_s, {}, e.headers).status, 200);
        QCOMPARE(get(e.base + u"/files/info?path=/workspace/made/a.txt"_s, e.headers).status, 404);
        QCOMPARE(call("DELETE", e.base + u"/directories?path=/workspace/made"_s, {}, e.headers).status, 200);
        QCOMPARE(get(e.base + u"/files/info?path=/workspace/made"_s, e.headers).status, 404);
        QCOMPARE(get(e.base + u"/files/info?path=/workspace"_s, e.headers).status, 200);
    }

    void pauseHoldsExecd()
    {
        QVERIFY(start());
        const QString id = create().value(u"id"_s).toString();
        const Execd e = execd(id);
        const Execd proxied = execd(id, true);
        QVERIFY(proxied.headers.isEmpty());
        QCOMPARE(get(proxied.base + u"/ping"_s).status, 200);

        // A command that ticks: its output stops while the sandbox is frozen.
        QCOMPARE(call("POST", u"/v1/sandboxes/%1/pause"_s.arg(id)).status, 202);
        const qint64 before = stat(u"execdRequests"_s);
        QNetworkRequest pingRequest{QUrl(e.base + u"/ping"_s)};
        for (const auto &[name, value] : e.headers)
            pingRequest.setRawHeader(name, value);
        std::unique_ptr<QNetworkReply> held(m_network.get(pingRequest));
        std::unique_ptr<QNetworkReply> heldProxy(m_network.get(QNetworkRequest{QUrl(proxied.base + u"/ping"_s)}));
        QSignalSpy heldDone(held.get(), &QNetworkReply::finished);
        QSignalSpy heldProxyDone(heldProxy.get(), &QNetworkReply::finished);
        // Both reached the server and wait there.
        QTRY_COMPARE_WITH_TIMEOUT(stat(u"execdRequests"_s), before + 2, WaitMs);
        QVERIFY(!held->isFinished());
        QVERIFY(!heldProxy->isFinished());
        QCOMPARE(get(u"/v1/sandboxes/"_s + id).status, 200); // the lifecycle API still answers

        QCOMPARE(call("POST", u"/v1/sandboxes/%1/resume"_s.arg(id)).status, 202);
        QVERIFY(heldDone.count() > 0 || heldDone.wait(WaitMs));
        QVERIFY(heldProxyDone.count() > 0 || heldProxyDone.wait(WaitMs));
        QCOMPARE(held->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
        QCOMPARE(heldProxy->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);

        // A frozen sandbox that is deleted drops what it held.
        QCOMPARE(call("POST", u"/v1/sandboxes/%1/pause"_s.arg(id)).status, 202);
        const qint64 again = stat(u"execdRequests"_s);
        std::unique_ptr<QNetworkReply> dropped(m_network.get(pingRequest));
        QSignalSpy droppedDone(dropped.get(), &QNetworkReply::finished);
        QTRY_COMPARE_WITH_TIMEOUT(stat(u"execdRequests"_s), again + 1, WaitMs);
        QCOMPARE(call("DELETE", u"/v1/sandboxes/"_s + id).status, 204);
        QVERIFY(droppedDone.count() > 0 || droppedDone.wait(WaitMs));
        QVERIFY(dropped->error() != QNetworkReply::NoError);
        QCOMPARE(dropped->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 0);
    }

    void pausedCommandsStop()
    {
        QVERIFY(start());
        const QString id = create().value(u"id"_s).toString();
        const Execd e = execd(id);
        const QByteArray marker = "paddock-fake-tick-" + QUuid::createUuid().toByteArray(QUuid::Id128);
        const QString command =
            u"exec -a %1 bash -c 'while true; do echo tick; sleep 0.05; done'"_s.arg(QString::fromLatin1(marker));
        const QString commandId =
            events(run(e, {{u"command"_s, command}, {u"background"_s, true}}).body).first().value(u"text"_s).toString();
        const auto logSize = [&] {
            return get(e.base + u"/command/%1/logs?cursor=999999999"_s.arg(commandId), e.headers)
                .header("EXECD-COMMANDS-TAIL-CURSOR")
                .toLongLong();
        };
        QTRY_VERIFY_WITH_TIMEOUT(logSize() > 0, WaitMs);
        QVERIFY(!processStates(marker).isEmpty());

        // Paused like a frozen cgroup: every process of the command is stopped.
        QCOMPARE(call("POST", u"/v1/sandboxes/%1/pause"_s.arg(id)).status, 202);
        const auto allStopped = [&] {
            const QString states = processStates(marker);
            return !states.isEmpty() && states.count(u'T') == states.size();
        };
        QTRY_VERIFY_WITH_TIMEOUT(allStopped(), WaitMs);
        // (Its execd is frozen too, so the log is read on disk.)
        const QString dataDir = get(u"/_fake/info"_s).json().value(u"dataDir"_s).toString();
        const QString logPath = dataDir + u'/' + id + u"/execd/"_s + commandId + u".log"_s;
        const qint64 frozenAt = QFileInfo(logPath).size();
        QVERIFY(frozenAt > 0);
        QCOMPARE(call("POST", u"/v1/sandboxes/%1/resume"_s.arg(id)).status, 202);
        QTRY_VERIFY_WITH_TIMEOUT(!processStates(marker).contains(u'T'), WaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(logSize() > frozenAt, WaitMs);

        // Deleting the sandbox kills its processes and removes its files.
        QVERIFY(QFileInfo::exists(dataDir + u'/' + id));
        QCOMPARE(call("DELETE", u"/v1/sandboxes/"_s + id).status, 204);
        QTRY_VERIFY_WITH_TIMEOUT(processStates(marker).isEmpty(), WaitMs);
        QVERIFY(!QFileInfo::exists(dataDir + u'/' + id));
    }

    void injectedFailures()
    {
        QVERIFY(start({u"--fail-rate"_s, u"1"_s, u"--fail-seed"_s, u"11"_s}));
        QSet<int> seen;
        for (int i = 0; i < 24; ++i) {
            const Reply reply = call("POST", u"/v1/sandboxes"_s,
                                     "{\"image\":{\"uri\":\"x\"},\"entrypoint\":[\"sh\"],\"resourceLimits\":{}}",
                                     {{"Connection", "close"}});
            if (reply.status == 0) {
                QVERIFY(reply.error != QNetworkReply::NoError);
            } else {
                QVERIFY2(reply.status == 502 || reply.status == 503 || reply.status == 504,
                         qPrintable(QString::number(reply.status)));
                QCOMPARE(reply.code(), u"GENERAL::UNAVAILABLE"_s);
                QCOMPARE(reply.json().value(u"message"_s).toString(), u"injected failure"_s);
            }
            seen.insert(reply.status);
        }
        QVERIFY(seen.contains(0)); // some were dropped without an answer
        QVERIFY(seen.size() >= 3);
        // Some dropped creates happened anyway; none were answered.
        const qint64 created = stat(u"sandboxes"_s);
        QCOMPARE(stat(u"creates"_s), created);
        QVERIFY(created > 0 && created < 24);
        // /health and /_fake never fail.
        for (int i = 0; i < 5; ++i)
            QCOMPARE(get(u"/health"_s).status, 200);
        QCOMPARE(call("POST", u"/_fake/reset-stats"_s).status, 200);
        QCOMPARE(stat(u"creates"_s), 0);
    }

    void injectionIsDeterministic()
    {
        const auto outcomes = [this] {
            QList<int> statuses;
            for (int i = 0; i < 12; ++i)
                statuses.append(get(u"/v1/sandboxes"_s, {{"Connection", "close"}}).status);
            return statuses;
        };
        QVERIFY(start({u"--fail-rate"_s, u"0.5"_s, u"--fail-seed"_s, u"3"_s}));
        const QList<int> first = outcomes();
        QCOMPARE(stopServer(), 0);
        QVERIFY(start({u"--fail-rate"_s, u"0.5"_s, u"--fail-seed"_s, u"3"_s}));
        QCOMPARE(outcomes(), first);
        QVERIFY(first.contains(200));
        QVERIFY(first.count(200) < first.size());
    }

    void pauseCanTakeAWhile()
    {
        // --pause-ms: Kubernetes' Running -> Pausing -> Paused, with the 202 at once.
        QVERIFY(start({u"--seed"_s, u"1"_s, u"--pause-ms"_s, u"300"_s}));
        const QString id =
            get(u"/v1/sandboxes"_s).json().value(u"items"_s).toArray().first().toObject().value(u"id"_s).toString();
        const auto state = [this, &id] {
            return get(u"/v1/sandboxes/"_s + id).json().value(u"status"_s).toObject().value(u"state"_s).toString();
        };
        QCOMPARE(state(), u"Running"_s);
        QCOMPARE(call("POST", u"/v1/sandboxes/%1/pause"_s.arg(id)).status, 202);
        QCOMPARE(state(), u"Pausing"_s);
        QCOMPARE(call("POST", u"/v1/sandboxes/%1/pause"_s.arg(id)).status, 409);
        QTRY_COMPARE_WITH_TIMEOUT(state(), u"Paused"_s, WaitMs);
    }

    void resumeCanTakeAWhile()
    {
        // --resume-ms: Paused -> Resuming -> Running, with the 202 at once.
        QVERIFY(start({u"--seed"_s, u"1"_s, u"--resume-ms"_s, u"300"_s}));
        const QString id =
            get(u"/v1/sandboxes"_s).json().value(u"items"_s).toArray().first().toObject().value(u"id"_s).toString();
        const auto state = [this, &id] {
            return get(u"/v1/sandboxes/"_s + id).json().value(u"status"_s).toObject().value(u"state"_s).toString();
        };
        QCOMPARE(call("POST", u"/v1/sandboxes/%1/pause"_s.arg(id)).status, 202);
        QCOMPARE(state(), u"Paused"_s);
        QCOMPARE(call("POST", u"/v1/sandboxes/%1/resume"_s.arg(id)).status, 202);
        QCOMPARE(state(), u"Resuming"_s);
        QCOMPARE(call("POST", u"/v1/sandboxes/%1/resume"_s.arg(id)).status, 409);
        QTRY_COMPARE_WITH_TIMEOUT(state(), u"Running"_s, WaitMs);
    }

    void maxInflight()
    {
        QVERIFY(start({u"--max-inflight"_s, u"1"_s, u"--latency-ms"_s, u"3000"_s}));
        std::vector<std::unique_ptr<QNetworkReply>> replies;
        for (int i = 0; i < 3; ++i)
            replies.emplace_back(m_network.get(QNetworkRequest{QUrl(m_base + u"/v1/sandboxes"_s)}));
        QList<int> statuses;
        for (const auto &reply : replies) {
            QSignalSpy finished(reply.get(), &QNetworkReply::finished);
            QVERIFY(reply->isFinished() || finished.wait(WaitMs));
            statuses.append(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt());
            if (statuses.last() == 503) {
                QCOMPARE(QJsonDocument::fromJson(reply->readAll()).object().value(u"message"_s).toString(),
                         u"too many requests in flight"_s);
            }
        }
        QCOMPARE(statuses.count(200), 1);
        QCOMPARE(statuses.count(503), 2);
        QCOMPARE(stat(u"maxInflight"_s), 1);
    }

    void restartKeepsSandboxes()
    {
        QTemporaryDir data;
        QVERIFY(data.isValid());
        quint16 port = 0;
        {
            QTcpServer probe;
            QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
            port = probe.serverPort();
        }
        const QStringList arguments{u"--port"_s, QString::number(port), u"--data-dir"_s, data.path()};
        QVERIFY(start(arguments));
        const QString running = create({{u"metadata"_s, QJsonObject{{u"keep"_s, u"me"_s}}}}).value(u"id"_s).toString();
        const QString paused = create().value(u"id"_s).toString();
        QCOMPARE(call("POST", u"/v1/sandboxes/%1/pause"_s.arg(paused)).status, 202);
        QCOMPARE(upload(execd(running), "/workspace/kept.txt", "still here").status, 200);
        const QString renewedTo = call("POST", u"/v1/sandboxes/%1/renew-expiration"_s.arg(running),
                                       "{\"expiresAt\":\"2098-05-06T07:08:09Z\"}")
                                      .json()
                                      .value(u"expiresAt"_s)
                                      .toString();
        QCOMPARE(renewedTo, u"2098-05-06T07:08:09Z"_s);
        QVERIFY(QFileInfo::exists(data.path() + u"/state.json"_s));

        // Killed without warning, started again on the same port and data.
        m_server->kill();
        QVERIFY(m_server->waitForFinished(WaitMs));
        QVERIFY(start(arguments));
        QCOMPARE(QUrl(m_base).port(), port);
        QCOMPARE(stat(u"sandboxes"_s), 2);
        const QJsonObject again = get(u"/v1/sandboxes/"_s + running).json();
        QCOMPARE(again.value(u"status"_s).toObject().value(u"state"_s).toString(), u"Running"_s);
        QCOMPARE(again.value(u"metadata"_s).toObject().value(u"keep"_s).toString(), u"me"_s);
        QCOMPARE(again.value(u"expiresAt"_s).toString(), renewedTo);
        QCOMPARE(get(u"/v1/sandboxes/"_s + paused).json().value(u"status"_s).toObject().value(u"state"_s).toString(),
                 u"Paused"_s);
        const Execd e = execd(running);
        QCOMPARE(get(e.base + u"/files/download?path=/workspace/kept.txt"_s, e.headers).body, "still here");
        QCOMPARE(events(run(e, {{u"command"_s, u"cat /workspace/kept.txt"_s}}).body).size() > 1, true);
        QCOMPARE(call("DELETE", u"/v1/sandboxes/"_s + paused).status, 204);
        QCOMPARE(stopServer(), 0);
        QVERIFY(start(arguments));
        QCOMPARE(stat(u"sandboxes"_s), 1);
        QCOMPARE(stopServer(), 0); // before its data directory goes
    }

    void sigtermStopsEverything()
    {
        QVERIFY(start());
        const QString dataDir = get(u"/_fake/info"_s).json().value(u"dataDir"_s).toString();
        QVERIFY(QFileInfo(dataDir).isDir());
        const Execd e = execd(create().value(u"id"_s).toString());
        const QByteArray marker = "paddock-fake-test-" + QUuid::createUuid().toByteArray(QUuid::Id128);
        const QString command = u"exec -a %1 sleep 600"_s.arg(QString::fromLatin1(marker));
        QCOMPARE(run(e, {{u"command"_s, command}, {u"background"_s, true}}).status, 200);
        QTRY_VERIFY_WITH_TIMEOUT(processRunning(marker), WaitMs);
        // A foreground stream that is still open when the server stops.
        QNetworkRequest request{QUrl(e.base + u"/command"_s)};
        for (const auto &[name, value] : e.headers)
            request.setRawHeader(name, value);
        request.setRawHeader("Content-Type", "application/json");
        std::unique_ptr<QNetworkReply> stream(m_network.post(request, "{\"command\":\"sleep 600\"}"));
        QSignalSpy streamed(stream.get(), &QNetworkReply::readyRead);
        QVERIFY(streamed.wait(WaitMs));

        QCOMPARE(stopServer(), 0);
        QVERIFY(!processRunning(marker));
        QVERIFY(!QFileInfo::exists(dataDir));
        QSignalSpy finished(stream.get(), &QNetworkReply::finished);
        QVERIFY(stream->isFinished() || finished.wait(WaitMs));
    }
};

QTEST_GUILESS_MAIN(TestFakeOpenSandbox)
#include "tst_fakeopensandbox.moc"
