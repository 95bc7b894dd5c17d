// paddock-fake-e2b as its clients see it: the real executable, run as a child process, spoken to
// over HTTP on 127.0.0.1 with QNetworkAccessManager (and a raw socket for a chunked body). What
// the official SDK's run (tst_fakee2b_sdk) does not reach: v1 routes, paging, error bodies, 502
// while paused, the clock, envd's wire details, confinement and the fault options.

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QUrlQuery>

#include "fakee2bprocess.h"

#include <csignal>
#include <memory>
#include <sys/prctl.h>

#ifndef FAKE_E2B_PATH
#error "FAKE_E2B_PATH must name the paddock-fake-e2b executable"
#endif

using namespace Qt::StringLiterals;

namespace {

constexpr int WaitMs = 60'000;
const QByteArray Key = "e2b_0123456789abcdef";

using Headers = QList<QPair<QByteArray, QByteArray>>;

struct Reply
{
    int status = 0; // 0: no HTTP answer
    QNetworkReply::NetworkError error = QNetworkReply::NoError;
    QByteArray body;
    QHash<QByteArray, QByteArray> headers; // lower-case names

    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
    QJsonArray array() const { return QJsonDocument::fromJson(body).array(); }
    QByteArray header(const QByteArray &name) const { return headers.value(name.toLower()); }
};

struct Envelope
{
    quint8 flags = 0;
    QJsonObject message;
};

QByteArray envelope(const QByteArray &json)
{
    QByteArray out(5, '\0');
    const auto size = static_cast<quint32>(json.size());
    out[1] = static_cast<char>(size >> 24);
    out[2] = static_cast<char>(size >> 16);
    out[3] = static_cast<char>(size >> 8);
    out[4] = static_cast<char>(size);
    return out + json;
}

// The envelopes of a Connect stream's body; `complete` tells whether it was cut mid-envelope.
QList<Envelope> envelopes(const QByteArray &body, bool *complete = nullptr)
{
    QList<Envelope> out;
    qsizetype pos = 0;
    while (pos + 5 <= body.size()) {
        const quint32 size = (quint32(quint8(body.at(pos + 1))) << 24) | (quint32(quint8(body.at(pos + 2))) << 16)
            | (quint32(quint8(body.at(pos + 3))) << 8) | quint32(quint8(body.at(pos + 4)));
        if (pos + 5 + qsizetype(size) > body.size())
            break;
        out.append({quint8(body.at(pos)), QJsonDocument::fromJson(body.mid(pos + 5, size)).object()});
        pos += 5 + size;
    }
    if (complete)
        *complete = pos == body.size();
    return out;
}

QByteArray decoded(const QList<Envelope> &events, const QString &channel)
{
    QByteArray out;
    for (const Envelope &e : events) {
        const QJsonObject data = e.message.value(u"event"_s).toObject().value(u"data"_s).toObject();
        if (data.contains(channel))
            out += QByteArray::fromBase64(data.value(channel).toString().toLatin1());
    }
    return out;
}

QJsonObject endEvent(const QList<Envelope> &events)
{
    for (const Envelope &e : events) {
        const QJsonObject event = e.message.value(u"event"_s).toObject();
        if (event.contains(u"end"_s))
            return event.value(u"end"_s).toObject();
    }
    return {};
}

bool bubblewrapWorks()
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

// The states (R, S, T, ...) of the processes whose command line contains `marker`.
QString processStates(const QByteArray &marker)
{
    QString states;
    const QStringList pids = QDir(u"/proc"_s).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &pid : pids) {
        QFile cmdline(u"/proc/"_s + pid + u"/cmdline"_s);
        QFile stat(u"/proc/"_s + pid + u"/stat"_s);
        if (!cmdline.open(QIODevice::ReadOnly) || !cmdline.readAll().replace('\0', ' ').contains(marker)
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

class TestFakeE2b final : public QObject
{
    Q_OBJECT

private:
    bool m_bwrap = false;
    std::unique_ptr<QProcess> m_server;
    QString m_api;
    QString m_envd;
    QNetworkAccessManager m_network;

    bool start(QStringList arguments = {})
    {
        if (!m_bwrap)
            arguments.append(u"--no-bwrap"_s);
        m_server = std::make_unique<QProcess>();
        m_server->setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_server->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
        m_server->start(QStringLiteral(FAKE_E2B_PATH), arguments);
        if (!m_server->waitForStarted(WaitMs))
            return false;
        QStringList lines;
        while (lines.size() < 2) {
            while (m_server->canReadLine() && lines.size() < 2)
                lines.append(QString::fromUtf8(m_server->readLine()).trimmed());
            if (lines.size() < 2 && (m_server->state() != QProcess::Running || !m_server->waitForReadyRead(WaitMs)))
                return false;
        }
        m_api = lines.at(0);
        m_envd = lines.at(1);
        return m_api.startsWith(u"http://127.0.0.1:"_s) && m_envd.startsWith(u"http://127.0.0.1:"_s);
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

    Reply call(const QByteArray &method, const QString &url, const QByteArray &body = {}, Headers headers = {},
               bool withKey = true)
    {
        QNetworkRequest request{QUrl(url.startsWith(u"http"_s) ? url : m_api + url)};
        bool contentType = false;
        if (withKey)
            headers.prepend({"X-API-KEY", Key});
        for (const auto &[name, value] : headers) {
            request.setRawHeader(name, value);
            contentType = contentType || name.toLower() == "content-type";
        }
        if (!body.isEmpty() && !contentType)
            request.setRawHeader("Content-Type", "application/json");
        std::unique_ptr<QNetworkReply> reply(m_network.sendCustomRequest(request, method, body));
        QSignalSpy finished(reply.get(), &QNetworkReply::finished);
        if (!reply->isFinished() && !finished.wait(WaitMs)) {
            Reply none;
            none.status = -1;
            return none;
        }
        Reply out;
        out.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        out.error = reply->error();
        out.body = reply->readAll();
        for (const auto &[name, value] : reply->rawHeaderPairs())
            out.headers.insert(name.toLower(), value);
        return out;
    }

    Reply get(const QString &path, const Headers &headers = {}) { return call("GET", path, {}, headers); }
    Reply post(const QString &path, const QByteArray &body = {}) { return call("POST", path, body); }

    QJsonObject newSandbox(const QByteArray &body = "{\"templateID\":\"base\"}")
    {
        const Reply reply = post(u"/v2/sandboxes"_s, body);
        return reply.status == 201 ? reply.json() : QJsonObject();
    }

    Headers envdHeaders(const QJsonObject &sandbox) const
    {
        return {{"E2b-Sandbox-Id", sandbox.value(u"sandboxID"_s).toString().toUtf8()},
                {"E2b-Sandbox-Port", "49983"},
                {"X-Access-Token", sandbox.value(u"envdAccessToken"_s).toString().toUtf8()}};
    }

    Reply envd(const QByteArray &method, const QString &path, const QJsonObject &sandbox, const QByteArray &body = {},
               Headers extra = {})
    {
        Headers headers = envdHeaders(sandbox);
        headers += extra;
        return call(method, m_envd + path, body, headers, false);
    }

    // A command through process.Process/Start; the body holds the stream's envelopes.
    Reply run(const QJsonObject &sandbox, const QString &command, Headers extra = {})
    {
        const QJsonObject message{
            {u"process"_s, QJsonObject{{u"cmd"_s, u"/bin/bash"_s}, {u"args"_s, QJsonArray{u"-l"_s, u"-c"_s, command}}}},
            {u"stdin"_s, false}};
        extra.emplaceBack("Content-Type", "application/connect+json");
        extra.emplaceBack("Connect-Protocol-Version", "1");
        return envd("POST", u"/process.Process/Start"_s, sandbox,
                    envelope(QJsonDocument(message).toJson(QJsonDocument::Compact)), extra);
    }

    Reply rpc(const QJsonObject &sandbox, const QString &method, const QJsonObject &message)
    {
        return envd("POST", u"/"_s + method, sandbox, QJsonDocument(message).toJson(QJsonDocument::Compact),
                    {{"Content-Type", "application/json"}, {"Connect-Protocol-Version", "1"}});
    }

    QJsonObject fake(const QString &path, const QJsonObject &body = {})
    {
        return call(body.isEmpty() ? "GET" : "POST", u"/_fake/"_s + path,
                    body.isEmpty() ? QByteArray() : QJsonDocument(body).toJson(), {}, false)
            .json();
    }

    void advance(double seconds) { fake(u"clock"_s, {{u"advanceSeconds"_s, seconds}}); }

    static qint64 ms(const QJsonObject &object, const QString &field)
    {
        return QDateTime::fromString(object.value(field).toString(), Qt::ISODateWithMs).toMSecsSinceEpoch();
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_network.setProxy(QNetworkProxy::NoProxy);
        m_bwrap = bubblewrapWorks();
        if (!m_bwrap && qEnvironmentVariable("CI") == u"true"_s)
            QFAIL("bubblewrap (with nsenter) is not usable here, and CI=true requires the confined tests");
        if (!m_bwrap)
            qWarning("bubblewrap is not usable here: the server runs commands with --no-bwrap");
    }

    void cleanup()
    {
        QCOMPARE(stopServer(), 0);
        m_server.reset();
    }

    void urlsAndHealth()
    {
        QVERIFY(start());
        QCOMPARE(m_api, m_envd); // one port by default
        QCOMPARE(stopServer(), 0);
        QVERIFY(start({u"--envd-port"_s, u"0"_s}));
        QVERIFY(m_api != m_envd);
        const Reply health = call("GET", u"/health"_s, {}, {}, false);
        QCOMPARE(health.status, 200);
        QCOMPARE(health.body, "Health check successful");
        // envd's /health on its own port: 502 for a sandbox that does not exist.
        const Reply missing = call("GET", m_envd + u"/health"_s, {}, {{"E2b-Sandbox-Id", "inope"}}, false);
        QCOMPARE(missing.status, 502);
        QCOMPARE(missing.json(),
                 (QJsonObject{
                     {u"sandboxId"_s, u"inope"_s}, {u"message"_s, u"The sandbox was not found"_s}, {u"code"_s, 502}}));
    }

    // --record-requests: every request, one JSON line each; on the one shared port, what goes to
    // envd (E2b-Sandbox-Id) is recorded as envd's, the control plane's as api, /_fake as fake.
    void recordedRequests()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(u"requests.jsonl"_s);
        QVERIFY(start({u"--record-requests"_s, file}));
        QCOMPARE(m_api, m_envd);
        QCOMPARE(get(u"/v2/sandboxes?limit=1"_s).status, 200);
        const QJsonObject sandbox = newSandbox();
        QVERIFY(!sandbox.isEmpty());
        QCOMPARE(call("GET", m_envd + u"/health"_s, {}, envdHeaders(sandbox), false).status, 204);
        QCOMPARE(call("GET", u"/_fake/stats"_s, {}, {}, false).status, 200);
        QFile log(file);
        QVERIFY(log.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = log.readAll().trimmed().split('\n');
        QCOMPARE(lines.size(), 4);
        QList<QJsonObject> records;
        for (const QByteArray &line : lines)
            records.append(QJsonDocument::fromJson(line).object());
        QCOMPARE(records.at(0).value(u"listener"_s).toString(), u"api"_s);
        QCOMPARE(records.at(0).value(u"method"_s).toString(), u"GET"_s);
        QCOMPARE(records.at(0).value(u"target"_s).toString(), u"/v2/sandboxes?limit=1"_s);
        QCOMPARE(records.at(0).value(u"port"_s).toInt(), QUrl(m_api).port());
        QVERIFY(
            records.at(0).value(u"headers"_s).toArray().contains(QJsonArray{u"x-api-key"_s, QString::fromLatin1(Key)}));
        QCOMPARE(records.at(1).value(u"listener"_s).toString(), u"api"_s);
        QCOMPARE(QByteArray::fromBase64(records.at(1).value(u"body"_s).toString().toLatin1()),
                 QByteArray("{\"templateID\":\"base\"}"));
        QCOMPARE(records.at(2).value(u"listener"_s).toString(), u"envd"_s);
        QCOMPARE(records.at(2).value(u"target"_s).toString(), u"/health"_s);
        QCOMPARE(records.at(3).value(u"listener"_s).toString(), u"fake"_s);
    }

    // With an explicit --data-dir the sandboxes outlive the process: killed (SIGKILL) and started
    // again on the same port and folder, the server has them as they were.
    void stateSurvivesARestart()
    {
        QTemporaryDir data;
        QVERIFY(data.isValid());
        QVERIFY(start({u"--data-dir"_s, data.path()}));
        const int port = QUrl(m_api).port();
        const QJsonObject kept =
            newSandbox("{\"templateID\":\"base\",\"metadata\":{\"agentscope.workspace.id\":\"w-1\"}}");
        const QJsonObject paused = newSandbox();
        const QString keptId = kept.value(u"sandboxID"_s).toString();
        const QString pausedId = paused.value(u"sandboxID"_s).toString();
        QVERIFY(!keptId.isEmpty() && !pausedId.isEmpty());
        QCOMPARE(post(u"/sandboxes/"_s + pausedId + u"/pause"_s).status, 204);
        const QByteArray before = get(u"/sandboxes/"_s + keptId).body;
        QVERIFY(QFile::exists(data.filePath(u"state.json"_s)));
        m_server->kill();
        QVERIFY(m_server->waitForFinished(WaitMs));

        QVERIFY(start({u"--port"_s, QString::number(port), u"--data-dir"_s, data.path()}));
        const Reply again = get(u"/sandboxes/"_s + keptId);
        QCOMPARE(again.status, 200);
        QCOMPARE(again.json(), QJsonDocument::fromJson(before).object());
        QCOMPARE(again.json().value(u"metadata"_s).toObject().value(u"agentscope.workspace.id"_s).toString(), u"w-1"_s);
        QCOMPARE(get(u"/sandboxes/"_s + pausedId).json().value(u"state"_s).toString(), u"paused"_s);
        // Its envd answers with the same token.
        QCOMPARE(envd("GET", u"/health"_s, kept).status, 204);
    }

    void authentication()
    {
        QVERIFY(start({u"--api-key"_s, QString::fromLatin1(Key)}));
        Reply reply = call("GET", u"/v2/sandboxes"_s, {}, {}, false);
        QCOMPARE(reply.status, 401);
        QCOMPARE(reply.json(), (QJsonObject{{u"code"_s, 401}, {u"message"_s, u"authorization header is missing"_s}}));
        for (const QByteArray &bad : {QByteArray("0123456789abcdef"), QByteArray("e2b_xyz"), QByteArray("e2b_00")}) {
            reply = call("GET", u"/v2/sandboxes"_s, {}, {{"X-API-Key", bad}}, false);
            QCOMPARE(reply.status, 401);
            QCOMPARE(reply.json().value(u"code"_s).toInt(), 401);
            QVERIFY2(reply.json().value(u"message"_s).toString().startsWith(u"Invalid API key"_s),
                     reply.body.constData());
        }
        QCOMPARE(get(u"/v2/sandboxes"_s).status, 200);
        // Routes: unknown paths, wrong methods, routes this fake does not serve.
        QCOMPARE(get(u"/v3/nothing"_s).status, 404);
        QCOMPARE(get(u"/v3/nothing"_s).json().value(u"code"_s).toInt(), 404);
        QCOMPARE(call("PUT", u"/v2/sandboxes"_s).status, 405);
        QCOMPARE(get(u"/snapshots"_s).status, 501);
        QCOMPARE(get(u"/sandboxes/not*an*id"_s).status, 400);
        QCOMPARE(get(u"/sandboxes/not*an*id"_s).json().value(u"message"_s).toString(), u"Invalid sandbox ID"_s);
    }

    void create()
    {
        QVERIFY(start({u"--max-timeout-hours"_s, u"1"_s, u"--templates"_s, u"base,code-interpreter"_s}));
        // v2: 201, always a token, 300 s by default.
        Reply reply = post(u"/v2/sandboxes"_s, "{\"templateID\":\"base\",\"unknownField\":1}");
        QCOMPARE(reply.status, 201);
        QJsonObject sandbox = reply.json();
        const QString id = sandbox.value(u"sandboxID"_s).toString();
        QVERIFY(QRegularExpression(u"^i[a-z0-9]{20}$"_s).match(id).hasMatch());
        QCOMPARE(sandbox.value(u"clientID"_s).toString(), u"6532622b"_s);
        QCOMPARE(sandbox.value(u"envdVersion"_s).toString(), u"0.6.13"_s);
        QCOMPARE(sandbox.value(u"alias"_s).toString(), u"base"_s);
        QVERIFY(!sandbox.value(u"envdAccessToken"_s).toString().isEmpty());
        QVERIFY(sandbox.value(u"domain"_s).isNull());
        QVERIFY(sandbox.value(u"trafficAccessToken"_s).isNull());
        QJsonObject detail = get(u"/sandboxes/"_s + id).json();
        QCOMPARE(ms(detail, u"endAt"_s) - ms(detail, u"startedAt"_s), 300'000);
        QCOMPARE(detail.value(u"lifecycle"_s).toObject(),
                 (QJsonObject{{u"autoResume"_s, false}, {u"onTimeout"_s, u"kill"_s}}));
        QCOMPARE(detail.value(u"envdAccessToken"_s), sandbox.value(u"envdAccessToken"_s));
        // The legacy id form <id>-<clientID> names the same sandbox.
        QCOMPARE(get(u"/sandboxes/%1-6532622b"_s.arg(id)).json().value(u"sandboxID"_s).toString(), id);

        // v1: 15 s by default; a token only with secure.
        reply = post(u"/sandboxes"_s, "{\"templateID\":\"code-interpreter\"}");
        QCOMPARE(reply.status, 201);
        QVERIFY(!reply.json().contains(u"envdAccessToken"_s));
        detail = get(u"/sandboxes/"_s + reply.json().value(u"sandboxID"_s).toString()).json();
        QCOMPARE(ms(detail, u"endAt"_s) - ms(detail, u"startedAt"_s), 15'000);
        QCOMPARE(detail.value(u"alias"_s).toString(), u"code-interpreter"_s);
        reply = post(u"/sandboxes"_s, "{\"templateID\":\"base\",\"secure\":true,\"timeout\":300}");
        QVERIFY(!reply.json().value(u"envdAccessToken"_s).toString().isEmpty());

        // Refusals, each with {code, message}.
        const auto refused = [&](const QByteArray &body, int status, const QString &message) {
            const Reply r = post(u"/v2/sandboxes"_s, body);
            QCOMPARE(r.status, status);
            QCOMPARE(r.json().value(u"code"_s).toInt(), status);
            QVERIFY2(r.json().value(u"message"_s).toString().contains(message), r.body.constData());
        };
        refused("{\"templateID\":\"nope\"}", 404, u"template 'nope' not found"_s);
        refused("{\"templateID\":\"base:v2\"}", 404, u"tag 'v2' does not exist for template 'base'"_s);
        refused("{\"templateID\":\"base\",\"timeout\":3601}", 400, u"Timeout cannot be greater than 1 hours"_s);
        refused("{\"templateID\":\"base\",\"timeout\":0}", 400, u"Timeout must be greater than 0"_s);
        refused("{\"templateID\":\"base\",\"timeout\":\"60\"}", 400, u"validation error"_s);
        refused("{\"templateID\":\"base\",\"metadata\":{\"a\":1}}", 400, u"validation error"_s);
        refused("{\"templateID\":\"base\",\"autoPauseMemory\":false}", 400, u"autoPauseMemory=false"_s);
        refused("{\"timeout\":60}", 400, u"templateID"_s);
        refused("not json", 400, u"validation error"_s);
        QCOMPARE(post(u"/sandboxes"_s).status, 400); // the body is required

        // A chunked request body, as the JS SDK sends its POSTs.
        QTcpSocket socket;
        const QUrl api(m_api);
        socket.connectToHost(u"127.0.0.1"_s, static_cast<quint16>(api.port()));
        QVERIFY(socket.waitForConnected(WaitMs));
        socket.write("POST /v2/sandboxes HTTP/1.1\r\nHost: x\r\nX-API-KEY: " + Key
                     + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                       "d\r\n{\"templateID\"\r\n8;ext=1\r\n:\"base\"}\r\n0\r\nTrailer: x\r\n\r\n");
        QByteArray answer;
        while (!answer.contains("\"domain\":null}")) {
            QVERIFY(socket.waitForReadyRead(WaitMs));
            answer += socket.readAll();
        }
        QVERIFY2(answer.startsWith("HTTP/1.1 201 Created\r\n"), answer.constData());
    }

    void listAndPages()
    {
        QVERIFY(start({u"--seed"_s, u"250"_s}));
        // Every page by X-Next-Token: newest first, each sandbox once.
        QStringList ids;
        QString token;
        qint64 previous = std::numeric_limits<qint64>::max();
        int pages = 0;
        do {
            const Reply page =
                get(u"/v2/sandboxes?limit=100"_s + (token.isEmpty() ? QString() : u"&nextToken="_s + token));
            QCOMPARE(page.status, 200);
            QCOMPARE(page.header("X-Total-Running"), "188"); // every 4th seeded one is paused
            for (const QJsonValue &value : page.array()) {
                const QJsonObject sandbox = value.toObject();
                QVERIFY(ms(sandbox, u"startedAt"_s) <= previous);
                previous = ms(sandbox, u"startedAt"_s);
                ids.append(sandbox.value(u"sandboxID"_s).toString());
                for (const char *field : {"templateID", "clientID", "startedAt", "endAt", "cpuCount", "memoryMB",
                                          "diskSizeMB", "state", "envdVersion"})
                    QVERIFY2(sandbox.contains(QLatin1StringView(field)), field);
            }
            token = QString::fromLatin1(page.header("X-Next-Token"));
            ++pages;
        } while (!token.isEmpty());
        QCOMPARE(pages, 3);
        QCOMPARE(ids.size(), 250);
        QCOMPARE(QSet<QString>(ids.begin(), ids.end()).size(), 250);
        // Ascending is the exact reverse; a cursor replayed under the other order is refused.
        QStringList ascending;
        token.clear();
        do {
            const Reply page =
                get(u"/v2/sandboxes?order=asc&limit=100"_s + (token.isEmpty() ? QString() : u"&nextToken="_s + token));
            for (const QJsonValue &value : page.array())
                ascending.prepend(value.toObject().value(u"sandboxID"_s).toString());
            token = QString::fromLatin1(page.header("X-Next-Token"));
            if (!token.isEmpty()) {
                const Reply wrong = get(u"/v2/sandboxes?order=desc&nextToken="_s + token);
                QCOMPARE(wrong.status, 400);
                QCOMPARE(wrong.json().value(u"message"_s).toString(), u"Invalid next token"_s);
            }
        } while (!token.isEmpty());
        QCOMPARE(ascending, ids);
        QCOMPARE(get(u"/v2/sandboxes?nextToken=garbage"_s).status, 400);
        QCOMPARE(get(u"/v2/sandboxes?limit=101"_s).status, 400);
        QCOMPARE(get(u"/v2/sandboxes?limit=0"_s).status, 400);
        QCOMPARE(get(u"/v2/sandboxes?state=stopped"_s).status, 400);

        // State filters: one comma-separated value (or %2C, as Python sends it).
        Reply paused = get(u"/v2/sandboxes?state=paused"_s);
        QCOMPARE(paused.array().size(), 62);
        QVERIFY(!paused.headers.contains("x-total-running"));
        QCOMPARE(get(u"/v2/sandboxes?state=paused%2Crunning&limit=100"_s).header("X-Total-Running"), "188");
        // The legacy list: running ones only, one page.
        const Reply legacy = get(u"/sandboxes"_s);
        QCOMPARE(legacy.array().size(), 188);
        QVERIFY(!legacy.headers.contains("x-next-token"));

        // Metadata, encoded three times as the SDKs do: value, pairs, the whole parameter.
        const QJsonObject mine =
            newSandbox(R"({"templateID":"base","metadata":{"agentscope.workspace.id":"ws 1&x=y","k":"運 維"}})");
        const auto encode = [](const QString &text) { return QString::fromLatin1(QUrl::toPercentEncoding(text)); };
        const QString pairs = encode(u"agentscope.workspace.id"_s) + u'=' + encode(encode(u"ws 1&x=y"_s)) + u'&'
            + encode(u"k"_s) + u'=' + encode(encode(u"運 維"_s));
        const Reply found = get(u"/v2/sandboxes?metadata="_s + encode(pairs));
        QCOMPARE(found.array().size(), 1);
        QCOMPARE(found.array().at(0).toObject().value(u"sandboxID"_s), mine.value(u"sandboxID"_s));
        QCOMPARE(get(u"/sandboxes?metadata="_s + encode(pairs)).array().size(), 1);
        const Reply byUser = get(u"/v2/sandboxes?metadata="_s + encode(u"agentscope.user.id=user-1"_s));
        QCOMPARE(byUser.array().size(), 50);
        QCOMPARE(get(u"/v2/sandboxes?metadata="_s + encode(u"novalue"_s)).status, 400);
        QCOMPARE(get(u"/v2/sandboxes?metadata="_s + encode(u"a=b=c"_s)).json().value(u"message"_s).toString(),
                 u"Error parsing metadata"_s);
    }

    void list10000()
    {
        // What the backend's benchmark lists: 10,000 sandboxes by pages of 100 (the time is printed,
        // not checked).
        QVERIFY(start({u"--seed"_s, u"10000"_s}));
        QElapsedTimer timer;
        timer.start();
        int count = 0;
        QString token;
        do {
            const Reply page =
                get(u"/v2/sandboxes?state=running,paused"_s + (token.isEmpty() ? QString() : u"&nextToken="_s + token));
            QCOMPARE(page.status, 200);
            count += page.array().size();
            token = QString::fromLatin1(page.header("X-Next-Token"));
        } while (!token.isEmpty());
        QCOMPARE(count, 10000);
        qInfo("listed 10,000 sandboxes in 100 pages in %lld ms", timer.elapsed());
    }

    void lifecycle()
    {
        QVERIFY(start());
        const QJsonObject sandbox = newSandbox(R"({"templateID":"base","timeout":600})");
        const QString id = sandbox.value(u"sandboxID"_s).toString();
        QCOMPARE(envd("GET", u"/health"_s, sandbox).status, 204);

        // Pause: 204, paused since endAt; again: 409 with the body's code (what JS reads).
        QCOMPARE(post(u"/sandboxes/%1/pause"_s.arg(id), "{}").status, 204);
        QJsonObject detail = get(u"/sandboxes/"_s + id).json();
        QCOMPARE(detail.value(u"state"_s).toString(), u"paused"_s);
        const qint64 pausedAt = ms(detail, u"endAt"_s);
        Reply again = post(u"/sandboxes/%1/pause"_s.arg(id));
        QCOMPARE(again.status, 409);
        QCOMPARE(again.json(),
                 (QJsonObject{{u"code"_s, 409},
                              {u"message"_s, u"Error pausing sandbox - sandbox '%1' is already paused"_s.arg(id)}}));
        // envd of a paused sandbox: the proxy's 502, for every route.
        for (const char *route : {"/health", "/files?path=x", "/process.Process/List"}) {
            const Reply gone = envd(route == QByteArrayView("/process.Process/List") ? "POST" : "GET",
                                    QString::fromLatin1(route), sandbox, "{}", {{"Content-Type", "application/json"}});
            QCOMPARE(gone.status, 502);
            QCOMPARE(gone.header("Content-Type"), "application/json; charset=utf-8");
            QCOMPARE(gone.json().value(u"message"_s).toString(), u"The sandbox was not found"_s);
        }
        QCOMPARE(post(u"/sandboxes/%1/timeout"_s.arg(id), "{\"timeout\":60}").status, 404);
        // A paused sandbox's timer stops: it is still there an hour later.
        advance(3600);
        detail = get(u"/sandboxes/"_s + id).json();
        QCOMPARE(detail.value(u"state"_s).toString(), u"paused"_s);
        QCOMPARE(ms(detail, u"endAt"_s), pausedAt);

        // v1 connect needs its body; it resumes (201, a new run), then only extends (200).
        QCOMPARE(post(u"/sandboxes/%1/connect"_s.arg(id)).status, 400);
        Reply connected = post(u"/sandboxes/%1/connect"_s.arg(id), "{\"timeout\":60}");
        QCOMPARE(connected.status, 201);
        QCOMPARE(connected.json().value(u"envdAccessToken"_s), sandbox.value(u"envdAccessToken"_s));
        detail = get(u"/sandboxes/"_s + id).json();
        QCOMPARE(detail.value(u"state"_s).toString(), u"running"_s);
        QCOMPARE(ms(detail, u"endAt"_s) - ms(detail, u"startedAt"_s), 60'000);
        QVERIFY(ms(detail, u"startedAt"_s) > pausedAt);
        const qint64 endAt = ms(detail, u"endAt"_s);
        connected = post(u"/v2/sandboxes/%1/connect"_s.arg(id), "{\"timeout\":10}");
        QCOMPARE(connected.status, 200);
        QCOMPARE(ms(get(u"/sandboxes/"_s + id).json(), u"endAt"_s), endAt); // extend only
        QCOMPARE(post(u"/v2/sandboxes/%1/connect"_s.arg(id), "{\"timeout\":0}").status, 400);
        connected = post(u"/v2/sandboxes/%1/connect"_s.arg(id)); // no body: 300 s
        QCOMPARE(connected.status, 200);
        detail = get(u"/sandboxes/"_s + id).json();
        QVERIFY(ms(detail, u"endAt"_s) > endAt);
        QCOMPARE(post(u"/v2/sandboxes/%1/connect"_s.arg(id), "{\"timeout\":90000}").status, 400);

        // Legacy resume: 409 while running.
        const Reply resumed = post(u"/sandboxes/%1/resume"_s.arg(id));
        QCOMPARE(resumed.status, 409);
        QCOMPARE(resumed.json().value(u"message"_s).toString(), u"Sandbox %1 is already running"_s.arg(id));
        // Timeout can shorten; refreshes only extend (at least 15 s).
        QCOMPARE(post(u"/sandboxes/%1/timeout"_s.arg(id), "{\"timeout\":40}").status, 204);
        detail = get(u"/sandboxes/"_s + id).json();
        const qint64 shortened = ms(detail, u"endAt"_s);
        QVERIFY(shortened < endAt);
        QCOMPARE(post(u"/sandboxes/%1/refreshes"_s.arg(id), "{\"duration\":1}").status, 204);
        QCOMPARE(ms(get(u"/sandboxes/"_s + id).json(), u"endAt"_s), shortened); // 15 s: less than it had
        QCOMPARE(post(u"/sandboxes/%1/refreshes"_s.arg(id), "{\"duration\":120}").status, 204);
        QVERIFY(ms(get(u"/sandboxes/"_s + id).json(), u"endAt"_s) >= shortened + 75'000);
        QCOMPARE(post(u"/sandboxes/%1/refreshes"_s.arg(id), "{\"duration\":3601}").status, 400);
        QCOMPARE(post(u"/sandboxes/%1/timeout"_s.arg(id), "{}").status, 400);

        // Kill: 204, then 404 everywhere with the body's code.
        QCOMPARE(call("DELETE", u"/sandboxes/"_s + id).status, 204);
        const Reply gone = call("DELETE", u"/sandboxes/"_s + id);
        QCOMPARE(gone.status, 404);
        QCOMPARE(gone.json().value(u"code"_s).toInt(), 404);
        QCOMPARE(get(u"/sandboxes/"_s + id).status, 404);
        QCOMPARE(post(u"/sandboxes/%1/pause"_s.arg(id)).status, 404);
        QCOMPARE(post(u"/v2/sandboxes/%1/connect"_s.arg(id)).status, 404);
        QCOMPARE(envd("GET", u"/health"_s, sandbox).status, 502);
    }

    void clock()
    {
        QVERIFY(start());
        const QString killed = newSandbox(R"({"templateID":"base","timeout":60})").value(u"sandboxID"_s).toString();
        const QString paused =
            newSandbox(R"({"templateID":"base","timeout":60,"autoPause":true})").value(u"sandboxID"_s).toString();
        const QJsonObject before = fake(u"clock"_s);
        advance(30);
        QCOMPARE(fake(u"clock"_s).value(u"offsetMs"_s).toInteger(), before.value(u"offsetMs"_s).toInteger() + 30'000);
        QCOMPARE(get(u"/sandboxes/"_s + killed).status, 200);
        advance(31);
        // At endAt: killed, or paused when autoPause.
        QCOMPARE(get(u"/sandboxes/"_s + killed).status, 404);
        QCOMPARE(get(u"/sandboxes/"_s + paused).json().value(u"state"_s).toString(), u"paused"_s);
        QCOMPARE(get(u"/sandboxes/"_s + paused).json().value(u"lifecycle"_s).toObject().value(u"onTimeout"_s),
                 u"pause"_s);
        // Resumed with 10 s, it pauses again 10 s later, not before.
        QCOMPARE(post(u"/v2/sandboxes/%1/connect"_s.arg(paused), "{\"timeout\":10}").status, 201);
        advance(9);
        QCOMPARE(get(u"/sandboxes/"_s + paused).json().value(u"state"_s).toString(), u"running"_s);
        advance(2);
        QCOMPARE(get(u"/sandboxes/"_s + paused).json().value(u"state"_s).toString(), u"paused"_s);
        // The clock's times are the ones the API reports.
        const qint64 fakeNow =
            QDateTime::fromString(fake(u"clock"_s).value(u"now"_s).toString(), Qt::ISODateWithMs).toMSecsSinceEpoch();
        QVERIFY(fakeNow > QDateTime::currentMSecsSinceEpoch() + 70'000);
    }

    void commands()
    {
        QVERIFY(start());
        const QJsonObject sandbox = newSandbox(R"({"templateID":"base","envVars":{"FROM_CREATE":"c"}})");
        Reply reply = run(sandbox, u"echo out; echo err >&2; echo $FROM_CREATE $USER; exit 3"_s);
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.header("Content-Type"), "application/connect+json");
        bool complete = false;
        QList<Envelope> events = envelopes(reply.body, &complete);
        QVERIFY(complete);
        QVERIFY(events.size() >= 3);
        QVERIFY(events.first().message.value(u"event"_s).toObject().contains(u"start"_s)); // start comes first
        QCOMPARE(events.last().flags, quint8(2));
        QCOMPARE(events.last().message, QJsonObject());
        QCOMPARE(decoded(events, u"stdout"_s), "out\nc user\n");
        QCOMPARE(decoded(events, u"stderr"_s), "err\n");
        QCOMPARE(endEvent(events),
                 (QJsonObject{{u"exitCode"_s, 3},
                              {u"exited"_s, true},
                              {u"status"_s, u"exit status 3"_s},
                              {u"error"_s, u"exit status 3"_s}}));
        // Exit 0: exitCode and error left out (proto3 JSON).
        events = envelopes(run(sandbox, u"true"_s).body);
        QCOMPARE(endEvent(events), (QJsonObject{{u"exited"_s, true}, {u"status"_s, u"exit status 0"_s}}));

        // Keepalive after the requested interval without output.
        events = envelopes(run(sandbox, u"sleep 1.5; echo done"_s, {{"Keepalive-Ping-Interval", "1"}}).body);
        const bool keepalive = std::any_of(events.begin(), events.end(), [](const Envelope &e) {
            return e.message.value(u"event"_s).toObject().contains(u"keepalive"_s);
        });
        QVERIFY(keepalive);
        // Connect-Timeout-Ms: the process is killed, the stream ends with deadline_exceeded.
        events = envelopes(run(sandbox, u"sleep 30"_s, {{"Connect-Timeout-Ms", "300"}}).body);
        QCOMPARE(events.last().flags, quint8(2));
        QCOMPARE(events.last().message.value(u"error"_s).toObject().value(u"code"_s).toString(),
                 u"deadline_exceeded"_s);
        QTRY_COMPARE(
            fake(u"sandboxes/"_s + sandbox.value(u"sandboxID"_s).toString()).value(u"processes"_s).toArray().size(), 0);

        // A wrong token: 401 {code, message}; /health needs none.
        QJsonObject wrong = sandbox;
        wrong.insert(u"envdAccessToken"_s, u"nope"_s);
        reply = rpc(wrong, u"process.Process/List"_s, {});
        QCOMPARE(reply.status, 401);
        QCOMPARE(reply.json().value(u"code"_s).toInt(), 401);
        QCOMPARE(envd("GET", u"/health"_s, wrong).status, 204);
        // The binary codec is not spoken (the SDKs send JSON): 415.
        QCOMPARE(envd("POST", u"/filesystem.Filesystem/Stat"_s, sandbox, "\x0a\x01x",
                      {{"Content-Type", "application/proto"}})
                     .status,
                 415);
        // Another port of the sandbox: nothing listens.
        reply = envd("GET", u"/health"_s, sandbox, {}, {{"E2b-Sandbox-Port", "8080"}});
        QCOMPARE(reply.status, 502);
        QCOMPARE(reply.json().value(u"port"_s).toInt(), 8080);

        // Unary errors: the Connect code and its HTTP status.
        reply = rpc(sandbox, u"filesystem.Filesystem/Stat"_s, {{u"path"_s, u"/home/user/none"_s}});
        QCOMPARE(reply.status, 404);
        QCOMPARE(reply.json().value(u"code"_s).toString(), u"not_found"_s);
        reply = rpc(sandbox, u"process.Process/SendSignal"_s,
                    {{u"process"_s, QJsonObject{{u"pid"_s, 4242}}}, {u"signal"_s, u"SIGNAL_SIGKILL"_s}});
        QCOMPARE(reply.status, 404);
        QCOMPARE(reply.json().value(u"message"_s).toString(), u"process with pid 4242 not found"_s);
        reply = rpc(sandbox, u"filesystem.Filesystem/MakeDir"_s, {{u"path"_s, u"/home/user"_s}});
        QCOMPARE(reply.status, 409);
        QCOMPARE(reply.json().value(u"code"_s).toString(), u"already_exists"_s);

        // Files: multipart upload (the path in the query wins), download, errors.
        const QByteArray multipart = "--b0\r\nContent-Disposition: form-data; name=\"file\"; filename=\"ignored\"\r\n"
                                     "Content-Type: application/octet-stream\r\n\r\n中文\r\n--b0--\r\n";
        reply = envd("POST", u"/files?path=docs/a.txt"_s, sandbox, multipart,
                     {{"Content-Type", "multipart/form-data; boundary=b0"}});
        QCOMPARE(reply.status, 200);
        QCOMPARE(
            reply.array().at(0).toObject(),
            (QJsonObject{{u"path"_s, u"/home/user/docs/a.txt"_s}, {u"name"_s, u"a.txt"_s}, {u"type"_s, u"file"_s}}));
        reply = envd("GET", u"/files?path=/home/user/docs/a.txt"_s, sandbox);
        QCOMPARE(reply.body, "中文");
        QCOMPARE(reply.header("Content-Disposition"), "inline; filename=a.txt");
        reply = envd("GET", u"/files?path=/home/user/docs/none"_s, sandbox);
        QCOMPARE(reply.status, 404);
        QCOMPARE(reply.json(),
                 (QJsonObject{{u"code"_s, 404}, {u"message"_s, u"path '/home/user/docs/none' does not exist"_s}}));
        QCOMPARE(envd("GET", u"/files?path=/home/user/docs"_s, sandbox).status, 400);
        QCOMPARE(envd("GET", u"/files?path=x&username=nobody"_s, sandbox).status, 401);
        reply = rpc(sandbox, u"filesystem.Filesystem/ListDir"_s, {{u"path"_s, u"/home/user"_s}, {u"depth"_s, 2}});
        QCOMPARE(reply.status, 200);
        const QJsonArray entries = reply.json().value(u"entries"_s).toArray();
        QCOMPARE(entries.size(), 2);
        QCOMPARE(entries.at(1).toObject().value(u"path"_s).toString(), u"/home/user/docs/a.txt"_s);
        QCOMPARE(entries.at(1).toObject().value(u"size"_s).toString(), u"6"_s); // int64 as a string
        QCOMPARE(entries.at(0).toObject().value(u"type"_s).toString(), u"FILE_TYPE_DIRECTORY"_s);
        // A link is resolved inside the sandbox's view.
        run(sandbox, u"ln -s docs link"_s);
        QCOMPARE(envd("GET", u"/files?path=/home/user/link/a.txt"_s, sandbox).body, "中文");

        // Pre-signed download: no token, a signature instead.
        const QString token = sandbox.value(u"envdAccessToken"_s).toString();
        const QByteArray signature = "v1_"
            + QCryptographicHash::hash(("docs/a.txt:read::" + token).toUtf8(), QCryptographicHash::Sha256)
                  .toBase64(QByteArray::OmitTrailingEquals);
        reply = call("GET",
                     m_envd + u"/files?path=docs/a.txt&signature="_s
                         + QString::fromLatin1(QUrl::toPercentEncoding(QString::fromLatin1(signature))),
                     {}, {{"E2b-Sandbox-Id", sandbox.value(u"sandboxID"_s).toString().toUtf8()}}, false);
        QCOMPARE(reply.status, 200);
        reply = call("GET", m_envd + u"/files?path=docs/a.txt&signature=v1_bad"_s, {},
                     {{"E2b-Sandbox-Id", sandbox.value(u"sandboxID"_s).toString().toUtf8()}}, false);
        QCOMPARE(reply.status, 401);
    }

    void confinementAndPause()
    {
        if (!m_bwrap)
            QSKIP("bubblewrap is not usable on this machine");
        QVERIFY(start());
        const QJsonObject sandbox = newSandbox();
        const QString id = sandbox.value(u"sandboxID"_s).toString();
        QList<Envelope> events = envelopes(run(sandbox,
                                               u"touch /usr/paddock-x 2>&1; echo $?; ls /work 2>&1; echo "
                                               "hi > /home/user/made"_s)
                                               .body);
        const QByteArray out = decoded(events, u"stdout"_s);
        QVERIFY2(out.startsWith("touch: cannot touch '/usr/paddock-x'"), out.constData());
        QVERIFY2(out.contains("No such file or directory"), out.constData()); // nothing else of the host
        const QString hostDir = fake(u"sandboxes/"_s + id).value(u"hostDir"_s).toString();
        QFile made(hostDir + u"/home/user/made"_s);
        QVERIFY(made.open(QIODevice::ReadOnly));
        QCOMPARE(made.readAll(), "hi\n");

        // A background process survives its command; pause freezes it, connect thaws it.
        const QByteArray marker = "sleep 4242";
        run(sandbox, u"nohup sleep 4242 >/dev/null 2>&1 &"_s);
        QTRY_VERIFY(!processStates(marker).isEmpty());
        QVERIFY(!processStates(marker).contains(u'T'));
        QCOMPARE(post(u"/sandboxes/%1/pause"_s.arg(id)).status, 204);
        QTRY_COMPARE(processStates(marker), u"T"_s);
        QCOMPARE(post(u"/v2/sandboxes/%1/connect"_s.arg(id)).status, 201);
        QTRY_VERIFY(!processStates(marker).contains(u'T'));
        // Kill: every process of the sandbox goes, and its folder.
        QCOMPARE(call("DELETE", u"/sandboxes/"_s + id).status, 204);
        QTRY_VERIFY(processStates(marker).isEmpty());
        QTRY_VERIFY(!QFileInfo::exists(hostDir));
    }

    void faults()
    {
        QVERIFY(start());
        const QJsonObject sandbox = newSandbox();
        const QString id = sandbox.value(u"sandboxID"_s).toString();
        // envd unreachable: 502 while the sandbox runs.
        fake(u"sandboxes/%1/envd"_s.arg(id), {{u"unreachable"_s, true}});
        QCOMPARE(envd("GET", u"/health"_s, sandbox).status, 502);
        QCOMPARE(get(u"/sandboxes/"_s + id).json().value(u"state"_s).toString(), u"running"_s);
        fake(u"sandboxes/%1/envd"_s.arg(id), {{u"unreachable"_s, false}});
        QCOMPARE(envd("GET", u"/health"_s, sandbox).status, 204);

        // A stream broken off mid-command: cut after the first output (truncate: no end-stream
        // message), or the connection dropped.
        fake(u"sandboxes/%1/break-streams"_s.arg(id), {{u"mode"_s, u"truncate"_s}, {u"when"_s, u"next"_s}});
        Reply reply = run(sandbox, u"echo first; sleep 0.2; echo second"_s);
        QCOMPARE(reply.status, 200);
        QList<Envelope> events = envelopes(reply.body);
        QCOMPARE(decoded(events, u"stdout"_s), "first\n");
        QVERIFY(events.last().flags != 2); // no EndStreamResponse
        fake(u"sandboxes/%1/break-streams"_s.arg(id), {{u"mode"_s, u"drop"_s}, {u"when"_s, u"next"_s}});
        reply = run(sandbox, u"echo first; sleep 0.2; echo second"_s);
        QVERIFY(reply.error != QNetworkReply::NoError);

        // Latency, failure injection (reproducible by its seed), max in flight.
        QCOMPARE(stopServer(), 0);
        QVERIFY(start({u"--fail-rate"_s, u"1"_s, u"--fail-seed"_s, u"7"_s}));
        QList<int> first;
        for (int i = 0; i < 12; ++i) {
            const Reply r = get(u"/v2/sandboxes"_s);
            QVERIFY(r.status == 0 || r.status == 429 || r.status == 502 || r.status == 503 || r.status == 504);
            if (r.status != 0)
                QCOMPARE(r.json().value(u"code"_s).toInt(), r.status);
            if (r.status == 429)
                QCOMPARE(r.header("Retry-After"), "1");
            first.append(r.status);
        }
        QCOMPARE(call("GET", u"/health"_s, {}, {}, false).status, 200); // never injected
        QCOMPARE(stopServer(), 0);
        QVERIFY(start({u"--fail-rate"_s, u"1"_s, u"--fail-seed"_s, u"7"_s}));
        QList<int> second;
        for (int i = 0; i < 12; ++i)
            second.append(get(u"/v2/sandboxes"_s).status);
        QCOMPARE(second, first);
        QCOMPARE(stopServer(), 0);

        QVERIFY(start({u"--latency-ms"_s, u"2000"_s, u"--max-inflight"_s, u"1"_s}));
        QNetworkRequest request{QUrl(m_api + u"/v2/sandboxes"_s)};
        request.setRawHeader("X-API-KEY", Key);
        std::unique_ptr<QNetworkReply> slow(m_network.get(request));
        QTRY_COMPARE(fake(u"stats"_s).value(u"inflight"_s).toInt(), 1);
        const Reply refused = get(u"/v2/sandboxes"_s);
        QCOMPARE(refused.status, 429);
        QSignalSpy done(slow.get(), &QNetworkReply::finished);
        QVERIFY(slow->isFinished() || done.wait(WaitMs));
        QCOMPARE(slow->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
        QCOMPARE(fake(u"stats"_s).value(u"maxInflight"_s).toInt(), 1);
    }

    // tests/support/fakee2bprocess.h, what the backend's tests start the fake with.
    void supportProcess()
    {
        PaddockTest::FakeE2bProcess fake;
        QVERIFY2(fake.start({u"--seed"_s, u"3"_s, u"--envd-port"_s, u"0"_s}), qPrintable(fake.error()));
        QVERIFY(fake.apiUrl() != fake.envdUrl());
        QCOMPARE(fake.stats().value(u"sandboxes"_s).toInt(), 3);
        QCOMPARE(fake.info().value(u"envdUrl"_s).toString(), fake.envdUrl().toString());
        QCOMPARE(fake.advanceClock(2.5).value(u"offsetMs"_s).toInteger(), 2500);
        QCOMPARE(fake.post(u"/_fake/envd"_s, {{u"unreachable"_s, true}}).value(u"unreachable"_s).toBool(), true);
        QCOMPARE(fake.stop(), 0);
    }

    void sigterm()
    {
        QVERIFY(start());
        newSandbox();
        m_server->terminate();
        QVERIFY(m_server->waitForFinished(WaitMs));
        QCOMPARE(m_server->exitStatus(), QProcess::NormalExit);
        QCOMPARE(m_server->exitCode(), 0);
    }
};

QTEST_GUILESS_MAIN(TestFakeE2b)
#include "tst_fakee2b.moc"
