// The OpenSandbox lifecycle client: the exact requests it sends and how it reads the answers,
// against scripted responses shaped like the spec's examples.

#include "backends/opensandbox/lifecycleclient.h"
#include "backends/opensandbox/opensandboxbackend.h"
#include "backends/opensandbox/sandboxjson.h"
#include "backends/opensandbox/wire.h"
#include "scriptedhttpserver.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QScopeGuard>
#include <QTest>

using namespace Paddock;
using namespace Paddock::OpenSandbox;
using namespace PaddockTest;
using namespace std::chrono_literals;

namespace {

const QByteArray SandboxJson = R"({"id":"0c9f1f0e-5b7a-4d59-9d5f-3c1f2f7a9b11","image":{"uri":"python:3.11-slim"},
 "status":{"state":"Running","reason":"CONTAINER_RUNNING","message":"Sandbox container is running.",
           "lastTransitionAt":"2026-06-15T10:16:58.123456Z"},
 "metadata":{"agentscope.workspace.id":"4bf1218b645ff727","agentscope.user.id":"alice",
             "agentscope.agent.id":"b32-5c7zbz53wq","team":"ml"},
 "entrypoint":["tail","-f","/dev/null"],
 "expiresAt":"2026-06-15T10:46:58.123456Z","createdAt":"2026-06-15T10:16:58.5+00:00"})";

QByteArray requestLine(const QByteArray &request)
{
    return request.left(request.indexOf("\r\n"));
}

QByteArray requestBody(const QByteArray &request)
{
    return request.mid(request.indexOf("\r\n\r\n") + 4);
}

struct Fixture
{
    Fixture()
        : http(&network, RetryPolicy{2, 10ms, 2.0, 20ms})
        , client(&http,
                 ConnectionConfig{QStringLiteral("127.0.0.1:%1").arg(server.serverPort()), QStringLiteral("http"),
                                  "k3y", false, 5000ms})
    {
    }
    ScriptedHttpServer server;
    QNetworkAccessManager network;
    HttpClient http;
    LifecycleClient client;
};

} // namespace

class TestLifecycleClient final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void connectionConfigFollowsTheSdks()
    {
        qputenv("OPEN_SANDBOX_DOMAIN", "sandbox.example:9000");
        qputenv("OPEN_SANDBOX_API_KEY", "from-env");
        ConnectionConfig config = ConnectionConfig{}.resolved();
        QCOMPARE(config.baseUrl(), QUrl(QStringLiteral("http://sandbox.example:9000/v1")));
        // The key is the environment's server's: a connection never takes it on its own.
        QVERIFY(config.apiKey.isEmpty());
        qunsetenv("OPEN_SANDBOX_DOMAIN");
        qunsetenv("OPEN_SANDBOX_API_KEY");
        config = ConnectionConfig{}.resolved();
        QCOMPARE(config.baseUrl(), QUrl(QStringLiteral("http://localhost:8080/v1")));
        QVERIFY(config.apiKey.isEmpty());
        config = ConnectionConfig{QStringLiteral("https://osb.internal/"), QStringLiteral("http"), "k", false, 1s}
                     .resolved();
        QCOMPARE(config.baseUrl(), QUrl(QStringLiteral("https://osb.internal/v1")));
    }

    void anEmptyKeyIsNeverFilledFromTheEnvironment()
    {
        // The console started with OPEN_SANDBOX_API_KEY set; a profile for another server has
        // no key. Neither the lifecycle client nor the backend over it may send the variable's.
        qputenv("OPEN_SANDBOX_API_KEY", "env-key");
        const auto unset = qScopeGuard([] { qunsetenv("OPEN_SANDBOX_API_KEY"); });
        ScriptedHttpServer server;
        const QString domain = QStringLiteral("127.0.0.1:%1").arg(server.serverPort());
        const QByteArray emptyPage =
            R"({"items":[],"pagination":{"page":1,"pageSize":200,"totalItems":0,"totalPages":0,"hasNextPage":false}})";

        QNetworkAccessManager network;
        HttpClient http(&network, RetryPolicy{1, 10ms, 2.0, 10ms});
        LifecycleClient client(&http, ConnectionConfig{domain, QStringLiteral("http"), {}, false, 5000ms});
        server.script.enqueue(ScriptedHttpServer::response(200, emptyPage));
        QVERIFY(QCoro::waitFor(client.list({}, {})));

        BackendOptions options;
        options.connection.domain = domain;
        options.retry = RetryPolicy{1, 10ms, 2.0, 10ms};
        options.keepLeases = false;
        OpenSandboxBackend backend(options);
        server.script.enqueue(ScriptedHttpServer::response(200, emptyPage));
        QVERIFY(QCoro::waitFor(backend.list({})));
        // execd too (it never gets the key anyway): the endpoint call, then a ping there.
        server.script.enqueue(ScriptedHttpServer::response(
            200, R"({"endpoint":")" + domain.toUtf8() + R"(/sb1","headers":{"X-EXECD-ACCESS-TOKEN":"tok"}})"));
        server.script.enqueue(ScriptedHttpServer::response(200, {}));
        const auto ready = QCoro::waitFor(backend.isReady(QStringLiteral("sb1")));
        QVERIFY2(ready && *ready, qPrintable(ready ? QString() : ready.error().message));

        QCOMPARE(server.requests.size(), 4);
        QVERIFY(server.requests[3].startsWith("GET /sb1/ping "));
        QVERIFY(server.requests[3].contains("X-EXECD-ACCESS-TOKEN: tok\r\n"));
        for (const QByteArray &request : std::as_const(server.requests)) {
            QVERIFY2(!request.toLower().contains("open-sandbox-api-key"), request.constData());
            QVERIFY2(!request.contains("env-key"), request.constData());
        }
    }

    void parsesTheSandboxObject()
    {
        const SandboxInfo info = *parseSandbox(SandboxJson);
        QCOMPARE(info.sandboxId, QStringLiteral("0c9f1f0e-5b7a-4d59-9d5f-3c1f2f7a9b11"));
        QCOMPARE(info.state, SandboxState::Running);
        QCOMPARE(info.image, QStringLiteral("python:3.11-slim"));
        QCOMPARE(info.workspaceId, QStringLiteral("4bf1218b645ff727"));
        QCOMPARE(info.userId, QStringLiteral("alice"));
        QCOMPARE(info.agentId, QStringLiteral("运维")); // decoded for display
        QCOMPARE(info.metadata.value(QStringLiteral("team")), QStringLiteral("ml"));
        QCOMPARE(formatTimestamp(*info.expiresAt), QStringLiteral("2026-06-15T10:46:58.123Z"));
        QCOMPARE(formatTimestamp(info.createdAt), QStringLiteral("2026-06-15T10:16:58.500Z"));

        // Unknown states are kept as they come; no expiresAt means it never expires.
        const SandboxInfo odd = *parseSandbox(R"({"id":"x","status":{"state":"Allocated"}})");
        QCOMPARE(odd.state, SandboxState::Unknown);
        QCOMPARE(odd.rawState, QStringLiteral("Allocated"));
        QVERIFY(!odd.expiresAt);
    }

    // The overview's reading of the same GET: the sandbox exactly as get() reads it, the server's
    // reason and message as written, and what else the object says, with nothing secret shown.
    void detailsReadWhatTheServerSaysAndNoSecret()
    {
        Fixture f;
        const QByteArray json =
            R"({"id":"s1","image":{"uri":"python:3.11-slim","auth":{"username":"u","password":"sample-secret-registry"}},
 "snapshotId":"snap_123","platform":{"os":"linux","arch":"arm64"},
 "status":{"state":"Failed","reason":"PROVISION_TIMEOUT","message":"Sandbox did not become ready in 60 s.",
           "lastTransitionAt":"2026-06-15T10:17:58.123456Z"},
 "metadata":{"agentscope.workspace.id":"w1","agentscope.agent.id":"b32-5c7zbz53wq"},
 "extensions":{"access.token":"sample-secret-extension"},
 "allocation":{"mode":"pool","poolRef":"pool-a","state":"allocated"},
 "resourceLimits":{"cpu":"500m","memory":"512Mi"},
 "env":{"OPENAI_API_KEY":"sample-secret-env"},
 "entrypoint":["python","/app/main.py","--api-key","sample-secret-arg","--port","8000"],
 "createdAt":"2026-06-15T10:16:58Z"})";
        f.server.script.enqueue(ScriptedHttpServer::response(200, json));
        const auto details = QCoro::waitFor(f.client.details(QStringLiteral("s1")));
        QVERIFY2(details, qPrintable(details ? QString() : details.error().message));
        QCOMPARE(requestLine(f.server.requests[0]), QByteArray("GET /v1/sandboxes/s1 HTTP/1.1"));

        const SandboxInfo plain = *parseSandbox(json);
        QCOMPARE(details->sandbox.fingerprint, plain.fingerprint);
        QCOMPARE(details->sandbox.agentId, QStringLiteral("运维"));
        QCOMPARE(details->sandbox.state, SandboxState::Failed);
        QCOMPARE(details->stateReason, QStringLiteral("PROVISION_TIMEOUT"));
        QCOMPARE(details->stateMessage, QStringLiteral("Sandbox did not become ready in 60 s."));
        // Not in the spec's Sandbox, but read when a server sends it.
        const QList<std::pair<QString, QString>> resources{{QStringLiteral("cpu"), QStringLiteral("500m")},
                                                           {QStringLiteral("memory"), QStringLiteral("512Mi")}};
        QCOMPARE(details->resources, resources);
        QVERIFY(details->endpoints.isEmpty()); // the backend adds execd's
        QHash<QString, QString> facts;
        for (const auto &[label, value] : details->facts)
            facts.insert(label, value);
        QCOMPARE(facts.value(QStringLiteral("Last transition")), QStringLiteral("2026-06-15T10:17:58.123Z"));
        QCOMPARE(facts.value(QStringLiteral("Entrypoint")),
                 QStringLiteral("python /app/main.py --api-key \u2022\u2022\u2022\u2022 --port 8000"));
        QCOMPARE(facts.value(QStringLiteral("Platform")), QStringLiteral("linux/arm64"));
        QCOMPARE(facts.value(QStringLiteral("Snapshot")), QStringLiteral("snap_123"));
        QCOMPARE(facts.value(QStringLiteral("Pool")), QStringLiteral("pool-a"));
        for (const auto &pairs : {details->resources, details->endpoints, details->facts}) {
            for (const auto &[label, value] : pairs)
                QVERIFY2(!label.contains(QLatin1String("sample-secret"))
                             && !value.contains(QLatin1String("sample-secret")),
                         qPrintable(label + QStringLiteral(": ") + value));
        }
        QVERIFY(!details->stateMessage.contains(QLatin1String("sample-secret")));

        // A sandbox with nothing beyond the required fields has no reason, resources or facts.
        HttpResponse bare;
        bare.status = 200;
        bare.body = R"({"id":"s2","status":{"state":"Running"},"createdAt":"2026-06-15T10:16:58Z","entrypoint":[]})";
        const auto minimal = parseSandboxDetails(bare);
        QVERIFY(minimal);
        QVERIFY(minimal->stateReason.isEmpty() && minimal->stateMessage.isEmpty());
        QVERIFY(minimal->resources.isEmpty() && minimal->facts.isEmpty());
        // Not JSON: the same clear error as get().
        bare.body = "<html>proxy</html>";
        QVERIFY(!parseSandboxDetails(bare));
    }

    void listSendsStatesAndOneEncodedMetadataValueAndFollowsPages()
    {
        Fixture f;
        f.server.script.enqueue(ScriptedHttpServer::response(
            200,
            R"({"items":[)" + SandboxJson
                + R"(],"pagination":{"page":1,"pageSize":200,"totalItems":2,"totalPages":2,"hasNextPage":true}})"));
        f.server.script.enqueue(ScriptedHttpServer::response(
            200,
            R"({"items":[{"id":"second","status":{"state":"Paused"}}],"pagination":{"page":2,"pageSize":200,"totalItems":2,"totalPages":2,"hasNextPage":false}})"));
        const QMap<QString, QString> metadata{
            {QStringLiteral("agentscope.workspace.id"), QStringLiteral("4bf1218b645ff727")},
            {QStringLiteral("agentscope.agent.id"), QStringLiteral("运维")}};
        const auto listed =
            QCoro::waitFor(f.client.list({QStringLiteral("Running"), QStringLiteral("Paused")}, metadata));
        QVERIFY2(listed, qPrintable(listed ? QString() : listed.error().message));
        QCOMPARE(listed->size(), 2);
        QCOMPARE(listed->at(1).state, SandboxState::Paused);
        QCOMPARE(f.server.requests.size(), 2);
        QCOMPARE(
            requestLine(f.server.requests[0]),
            QByteArray("GET /v1/sandboxes?state=Running&state=Paused&metadata=agentscope.agent.id%3Db32-5c7zbz53wq%26"
                       "agentscope.workspace.id%3D4bf1218b645ff727&page=1&pageSize=200 HTTP/1.1"));
        QVERIFY(requestLine(f.server.requests[1]).contains("&page=2&pageSize=200 "));
        QVERIFY(f.server.requests[0].contains("OPEN-SANDBOX-API-KEY: k3y\r\n"));
    }

    void createSendsTheSpecShape()
    {
        Fixture f;
        f.server.script.enqueue(ScriptedHttpServer::response(
            202,
            R"({"id":"new-1","status":{"state":"Running"},"metadata":{"agentscope.workspace.id":"w"},"createdAt":"2026-06-15T10:16:58Z","expiresAt":"2026-06-15T10:46:58Z"})"));
        SandboxCreate create;
        create.metadata = {{QStringLiteral("agentscope.user.id"), QStringLiteral("alice@example.com")},
                           {QStringLiteral("agentscope.workspace.id"), QStringLiteral("w")}};
        create.env = {{QStringLiteral("PYTHONUNBUFFERED"), QStringLiteral("1")}};
        const auto created = QCoro::waitFor(f.client.create(create));
        QVERIFY(created);
        QCOMPARE(created->sandboxId, QStringLiteral("new-1"));
        QCOMPARE(created->image, QStringLiteral("python:3.11-slim"));
        QCOMPARE(requestLine(f.server.requests[0]), QByteArray("POST /v1/sandboxes HTTP/1.1"));
        const QJsonObject body = QJsonDocument::fromJson(requestBody(f.server.requests[0])).object();
        QCOMPARE(body.value(QLatin1String("image")).toObject().value(QLatin1String("uri")).toString(),
                 QStringLiteral("python:3.11-slim"));
        QCOMPARE(body.value(QLatin1String("timeout")).toInt(), 1800);
        QCOMPARE(body.value(QLatin1String("entrypoint")).toArray().size(), 3);
        QCOMPARE(body.value(QLatin1String("resourceLimits")).toObject().value(QLatin1String("memory")).toString(),
                 QStringLiteral("2Gi"));
        QCOMPARE(body.value(QLatin1String("env")).toObject().value(QLatin1String("PYTHONUNBUFFERED")).toString(),
                 QStringLiteral("1"));
        const QString user =
            body.value(QLatin1String("metadata")).toObject().value(QLatin1String("agentscope.user.id")).toString();
        QVERIFY2(user.startsWith(QLatin1String("b32-")), qPrintable(user)); // label-safe on the wire

        SandboxCreate manual;
        manual.timeout.reset();
        QVERIFY(QJsonDocument::fromJson(createBody(manual)).object().value(QLatin1String("timeout")).isNull());
    }

    void lifecycleCallsWithEmptyBodies()
    {
        Fixture f;
        f.server.script.enqueue(ScriptedHttpServer::response(202, {}));
        f.server.script.enqueue(ScriptedHttpServer::response(202, {}));
        f.server.script.enqueue(ScriptedHttpServer::response(204, {}));
        QVERIFY(QCoro::waitFor(f.client.pause(QStringLiteral("s1"))));
        QVERIFY(QCoro::waitFor(f.client.resume(QStringLiteral("s1"))));
        QVERIFY(QCoro::waitFor(f.client.remove(QStringLiteral("s1"))));
        QCOMPARE(requestLine(f.server.requests[0]), QByteArray("POST /v1/sandboxes/s1/pause HTTP/1.1"));
        QCOMPARE(requestLine(f.server.requests[1]), QByteArray("POST /v1/sandboxes/s1/resume HTTP/1.1"));
        QCOMPARE(requestLine(f.server.requests[2]), QByteArray("DELETE /v1/sandboxes/s1 HTTP/1.1"));
    }

    void wrongStateIsAConflictNamingTheRequest()
    {
        Fixture f;
        f.server.script.enqueue(ScriptedHttpServer::response(
            409, R"({"code":"DOCKER::SANDBOX_NOT_RUNNING","message":"Sandbox s1 is not running"})"));
        const auto paused = QCoro::waitFor(f.client.pause(QStringLiteral("s1")));
        QVERIFY(!paused);
        QCOMPARE(paused.error().kind, Error::Kind::Conflict);
        QCOMPARE(paused.error().message,
                 QStringLiteral("HTTP 409 DOCKER::SANDBOX_NOT_RUNNING: Sandbox s1 is not running (request req-409)"));
    }

    void renewSendsAnAbsoluteTimeFromTheClientClock()
    {
        Fixture f;
        f.server.script.enqueue(ScriptedHttpServer::response(200, R"({"expiresAt":"2030-01-01T00:00:00.000000Z"})"));
        const QDateTime before = QDateTime::currentDateTimeUtc();
        const auto renewed = QCoro::waitFor(f.client.renew(QStringLiteral("s1"), 600s));
        const QDateTime after = QDateTime::currentDateTimeUtc();
        QVERIFY(renewed);
        QCOMPARE(formatTimestamp(*renewed), QStringLiteral("2030-01-01T00:00:00.000Z")); // the server's word wins
        QCOMPARE(requestLine(f.server.requests[0]), QByteArray("POST /v1/sandboxes/s1/renew-expiration HTTP/1.1"));
        const auto sent = parseTimestamp(QJsonDocument::fromJson(requestBody(f.server.requests[0]))
                                             .object()
                                             .value(QLatin1String("expiresAt"))
                                             .toString());
        QVERIFY(sent);
        QVERIFY(*sent >= before.addSecs(600).addMSecs(-1) && *sent <= after.addSecs(600));
    }

    void endpointCarriesItsHeaders()
    {
        Fixture f;
        f.server.script.enqueue(ScriptedHttpServer::response(
            200, R"({"endpoint":"127.0.0.1:40123/proxy/44772","headers":{"OpenSandbox-Secure-Access":"tok"}})"));
        const auto endpoint = QCoro::waitFor(f.client.endpoint(QStringLiteral("s1"), 44772));
        QVERIFY(endpoint);
        QCOMPARE(endpoint->endpoint, QStringLiteral("127.0.0.1:40123/proxy/44772"));
        QCOMPARE(endpoint->headers.value("OpenSandbox-Secure-Access"), QByteArray("tok"));
        QCOMPARE(requestLine(f.server.requests[0]),
                 QByteArray("GET /v1/sandboxes/s1/endpoints/44772?use_server_proxy=false HTTP/1.1"));
    }

    void patchMetadataIsAMergePatchWithEncodedValues()
    {
        Fixture f;
        f.server.script.enqueue(ScriptedHttpServer::response(200, SandboxJson));
        QMap<QString, std::optional<QString>> patch;
        patch.insert(QStringLiteral("name"), QStringLiteral("我的工作区"));
        patch.insert(QStringLiteral("team"), std::nullopt);
        QVERIFY(QCoro::waitFor(f.client.patchMetadata(QStringLiteral("s1"), patch)));
        QCOMPARE(requestLine(f.server.requests[0]), QByteArray("PATCH /v1/sandboxes/s1/metadata HTTP/1.1"));
        const QJsonObject body = QJsonDocument::fromJson(requestBody(f.server.requests[0])).object();
        QVERIFY(body.value(QLatin1String("name")).toString().startsWith(QLatin1String("b32-")));
        QVERIFY(body.value(QLatin1String("team")).isNull());
        QVERIFY(body.contains(QLatin1String("team")));
    }

    void waitForStatePollsUntilItSettles()
    {
        Fixture f;
        const auto state = [](const char *name) {
            return ScriptedHttpServer::response(200, R"({"id":"s1","status":{"state":")" + QByteArray(name) + R"("}})");
        };
        f.server.script.enqueue(state("Running"));
        f.server.script.enqueue(state("Pausing"));
        f.server.script.enqueue(state("Paused"));
        const auto settled = QCoro::waitFor(f.client.waitForState(QStringLiteral("s1"), {SandboxState::Paused}, 10s));
        QVERIFY(settled);
        QCOMPARE(settled->state, SandboxState::Paused);
        QCOMPARE(f.server.requests.size(), 3);

        f.server.script.enqueue(state("Failed"));
        const auto failed = QCoro::waitFor(f.client.waitForState(QStringLiteral("s1"), {SandboxState::Running}, 10s));
        QVERIFY(!failed);
        QCOMPARE(failed.error().kind, Error::Kind::Conflict);
        QVERIFY(failed.error().message.contains(QLatin1String("Failed")));
    }

    void notJsonIsAClearError()
    {
        Fixture f;
        f.server.script.enqueue(ScriptedHttpServer::response(200, "<html>proxy login</html>"));
        const auto got = QCoro::waitFor(f.client.get(QStringLiteral("s1")));
        QVERIFY(!got);
        QVERIFY2(got.error().message.contains(QLatin1String("not a JSON object")), qPrintable(got.error().message));
        QVERIFY(got.error().message.contains(QLatin1String("req-200")));

        // Truncated JSON, in a single sandbox and in a list page (escaped strings: moc cannot
        // skip unbalanced braces in raw string literals).
        f.server.script.enqueue(ScriptedHttpServer::response(200, "{\"id\":\"s1\",\"status\":{\"state\":\"Runn"));
        const auto truncated = QCoro::waitFor(f.client.get(QStringLiteral("s1")));
        QVERIFY(!truncated);
        QVERIFY2(truncated.error().message.contains(QLatin1String("not a JSON object")),
                 qPrintable(truncated.error().message));
        f.server.script.enqueue(ScriptedHttpServer::response(200, "{\"items\":[{\"id\":\"a\"},{\"id\":"));
        const auto page = QCoro::waitFor(f.client.list({}, {}));
        QVERIFY(!page);
        QVERIFY2(page.error().message.contains(QLatin1String("not a JSON object")), qPrintable(page.error().message));
    }
};

QTEST_GUILESS_MAIN(TestLifecycleClient)
#include "tst_lifecycleclient.moc"
