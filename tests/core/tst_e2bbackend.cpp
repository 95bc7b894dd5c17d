// The E2B backend end to end against paddock-fake-e2b (a child process on 127.0.0.1 whose envd
// runs commands under bubblewrap): paging, the metadata filter, AgentScope's reattach (newest,
// with a warning; a paused one resumed), renewals that never shorten unless asked (E2B#1055), the
// two upstream error paths fixed (a failed list creates nothing; a failed provisioning leaves
// nothing running), and bad input, each a clear message with nothing left running. What every
// backend must do is the conformance suite's, tests/conformance/tst_conformance_e2b.

#include "backends/e2b/connectenvelope.h"
#include "backends/e2b/e2bapi.h"
#include "backends/e2b/e2bbackend.h"
#include "bootstraplog.h"
#include "fakee2bprocess.h"
#include "profilesession.h"
#include "provisioner.h"
#include "scriptedhttpserver.h"
#include "testsession.h"
#include "workspacemanager.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace Paddock;
using namespace Paddock::E2B;
using namespace PaddockTest;
using namespace std::chrono_literals;

namespace {

constexpr QByteArrayView Key{"e2b_0123456789abcdef"};

BackendOptions optionsFor(const FakeE2bProcess &server, const QByteArray &key = Key.toByteArray())
{
    BackendOptions options;
    options.connection.apiUrl = server.apiUrl().toString();
    options.connection.sandboxUrl = server.envdUrl().toString();
    options.connection.apiKey = key;
    options.connection.requestTimeout = 10s;
    options.retry = {4, 20ms, 2.0, 200ms};
    options.timeout = 3600s;
    return options;
}

CreateSpec spec(const QString &workspaceId)
{
    return CreateSpec{workspaceId, QStringLiteral("alice"), QStringLiteral("agent-1"), {}};
}

int stat(const FakeE2bProcess &server, const char *name)
{
    return server.stats().value(QLatin1String(name)).toInt(-1);
}

QString kindName(Error::Kind kind)
{
    return QString::number(int(kind));
}

// One console "process": a backend, its log store, a provisioner and a manager.
struct Stack
{
    Stack(BackendOptions options, const QString &logRoot, QList<BootstrapCommand> bootstrap,
          std::chrono::milliseconds readyTimeout = 30'000ms)
        : backend(std::move(options))
        , logs(logRoot)
        , provisioner(&backend, &logs, ProvisionOptions{std::move(bootstrap), {}, readyTimeout, false})
        , manager(&provisioner, {})
    {
    }
    ~Stack() { QCoro::waitFor(manager.stop(WorkspaceManager::StopMode::LeaveRunning)); }
    Q_DISABLE_COPY_MOVE(Stack)

    Result<WorkspacePtr> open(const QString &workspaceId)
    {
        return QCoro::waitFor(manager.getWorkspace(
            WorkspaceRequest{QStringLiteral("alice"), QStringLiteral("agent-1"), {}, workspaceId}));
    }

    E2BBackend backend;
    BootstrapLogStore logs;
    Provisioner provisioner;
    WorkspaceManager manager;
};

} // namespace

class TestE2BBackend : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void envelopesAreCutAsBytesArrive();
    void aPageIsReadAsTheServerWroteIt();
    void stringsAreTheirTextWithOrWithoutEscapes();
    void aListingIsEveryPageInTheServersOrder();
    void aClosingProfileDoesNotWaitForASilentListing();
    void listFollowsNextTokenAndFiltersByMetadata();
    void metadataWithSeparatorsRoundTrips();
    void reattachTakesTheNewestWithAWarning();
    void resumeRestartsAPausedSandboxsTimer();
    void connectNeverShortensARunningSandbox();
    void renewNeverShortensUnlessAsked();
    void aFailedListCreatesNothing();
    void aFailedBootstrapLeavesNothingRunning();
    void aSandboxThatNeverBecomesReadyIsPaused();
    void aKeyWithoutThePrefixSendsNothing();
    void aWrongKeyIsRefused();
    void anUnknownTemplateMakesNothing();
    void aTimeoutBeyondTheTeamsMaximumMakesNothing();
    void aSandboxThatExpiredWhileOpenIsGone();
    void envdUnreachableIsSaid();
    void aBrokenStreamLeavesTheFateUnknown_data();
    void aBrokenStreamLeavesTheFateUnknown();
    void detailsNeverShowTheKeyOrToken();
    void theBootstrapIsAgentScopes();

private:
    QTemporaryDir m_logs;
};

void TestE2BBackend::envelopesAreCutAsBytesArrive()
{
    const QByteArray stream = envelope(R"({"event":{"start":{"pid":7}}})") + envelope(R"({"event":{"keepalive":{}}})")
        + envelope("{}", Envelope::EndStream);
    // Byte by byte: every header and payload split anywhere.
    EnvelopeParser parser;
    QList<Envelope> out;
    for (qsizetype i = 0; i < stream.size(); ++i)
        QVERIFY(parser.feed(QByteArrayView(stream).sliced(i, 1), out));
    QCOMPARE(out.size(), 3);
    QCOMPARE(out.at(0).payload, QByteArray(R"({"event":{"start":{"pid":7}}})"));
    QVERIFY(out.at(2).isEnd());
    QVERIFY(parser.ended());
    // Anything after the end, or a compressed envelope, breaks the stream for good.
    QVERIFY(!parser.feed(envelope("{}"), out));
    EnvelopeParser compressed;
    QList<Envelope> none;
    QVERIFY(!compressed.feed(envelope("{}", Envelope::Compressed), none));
}

void TestE2BBackend::aPageIsReadAsTheServerWroteIt()
{
    // Members in any order, escapes, Chinese, a value of the wrong type, something that is not a
    // sandbox, and the same sandbox first, in the middle and last of a page.
    const QByteArray a =
        R"({"sandboxID":"ia","templateID":"t1","alias":"base","state":"running",)"
        R"("startedAt":"2026-12-05T10:00:00.123Z","endAt":"2026-12-05T11:00:00Z","cpuCount":2,)"
        R"("memoryMB":512,"envdVersion":"0.2.0","metadata":{"agentscope.agent.id":"代理\"1\"",)"
        R"("agentscope.user.id":"u1","agentscope.workspace.id":"w-a"},"lifecycle":{"onTimeout":"pause"}})";
    const QByteArray b = R"({"metadata":{"agentscope.workspace.id":"w-b","agentscope.user.id":"u1"},"state":"paused",)"
                         R"("endAt":"2026-12-05T09:30:00+01:00","sandboxID":"ib","templateID":"t1","cpuCount":"two"})";
    const auto page = [](const QByteArray &body) {
        E2B::HttpResponse response;
        response.status = 200;
        response.body = body;
        response.headers.insert(QByteArrayLiteral("x-next-token"), QByteArrayLiteral("next"));
        return E2B::parseListPage(response);
    };
    const auto first = page("[\n  " + a + ",\n  " + b + ",\n  42\n]\n");
    QVERIFY(first);
    QCOMPARE(first->nextToken, QByteArray("next"));
    QCOMPARE(first->sandboxes.size(), 2);
    const SandboxInfo &ia = first->sandboxes.at(0);
    QCOMPARE(ia.sandboxId, QStringLiteral("ia"));
    QCOMPARE(ia.state, SandboxState::Running);
    QCOMPARE(ia.image, QStringLiteral("base"));
    QCOMPARE(ia.workspaceId, QStringLiteral("w-a"));
    QCOMPARE(ia.agentId, QStringLiteral("代理\"1\""));
    QCOMPARE(ia.userId, QStringLiteral("u1"));
    QCOMPARE(ia.metadata.size(), 3);
    QCOMPARE(ia.createdAt, QDateTime(QDate(2026, 12, 5), QTime(10, 0, 0, 123), Qt::UTC));
    QCOMPARE(ia.expiresAt.value_or(QDateTime()), QDateTime(QDate(2026, 12, 5), QTime(11, 0), Qt::UTC));
    const SandboxInfo &ib = first->sandboxes.at(1);
    QCOMPARE(ib.state, SandboxState::Paused);
    QCOMPARE(ib.image, QStringLiteral("t1"));
    QVERIFY(!ib.expiresAt);
    QCOMPARE(ib.pausedAt, QDateTime(QDate(2026, 12, 5), QTime(8, 30), Qt::UTC));
    QVERIFY(ia.fingerprint != 0 && ib.fingerprint != 0 && ia.fingerprint != ib.fingerprint);

    // The fingerprint is the sandbox's own text: wherever it stands on a page, and in a GET.
    const auto second = page("[" + b + "," + a + "]");
    QVERIFY(second);
    QCOMPARE(second->sandboxes.at(1).fingerprint, ia.fingerprint);
    QCOMPARE(second->sandboxes.at(0).fingerprint, ib.fingerprint);
    const auto got = E2B::parseSandbox(a);
    QVERIFY(got);
    QCOMPARE(got->info.fingerprint, ia.fingerprint);
    QCOMPARE(got->onTimeout, QStringLiteral("pause"));
    QCOMPARE(got->cpuCount, 2);
    // Any change to it is another fingerprint.
    QByteArray changed = a;
    changed.replace("\"running\"", "\"paused\"");
    QVERIFY(E2B::parseSandbox(changed)->info.fingerprint != ia.fingerprint);

    // Not a list, or broken: an error, never a short page.
    QVERIFY(!page("{}"));
    QVERIFY(!page("[" + a.left(a.size() - 20)));
    QVERIFY(!E2B::parseSandbox("[]"));
}

void TestE2BBackend::stringsAreTheirTextWithOrWithoutEscapes()
{
    // Strings without escapes are read where they stand in the page, the others unescaped:
    // whitespace around values, escapes of every kind, an escaped spelling of AgentScope's keys,
    // empty strings, and a string that ends in an escaped quote.
    const QByteArray body = R"([ { "sandboxID" : "i\u0061" , "state" :"running"  ,)"
                            "\n\t"
                            R"("templateID":"t\\1", "alias" : "" , "startedAt" : "2026-12-05T10:00:00Z" ,)"
                            R"( "endAt":"2026-12-05T11:00:00Z"	, "metadata" : { "agentscope.agent.id" : "a \"q\"" ,)"
                            R"("agentscope\u002euser.id":"u\/1" , "agentscope.workspace\u002Eid" : "w\u4e2d" , )"
                            R"("note" : "ends\"", "empty":""} } , )"
                            R"({"sandboxID":"ib","metadata":{"agentscope.workspace.id":"w-b"},)"
                            R"("state":"paused","endAt":"2026-12-05T09:00:00Z"} ])";
    E2B::HttpResponse response;
    response.status = 200;
    response.body = body;
    const auto page = E2B::parseListPage(response);
    QVERIFY(page);
    QCOMPARE(page->sandboxes.size(), 2);
    const SandboxInfo &a = page->sandboxes.at(0);
    QCOMPARE(a.sandboxId, QStringLiteral("ia"));
    QCOMPARE(a.state, SandboxState::Running);
    QCOMPARE(a.image, QStringLiteral("t\\1"));
    QCOMPARE(a.createdAt, QDateTime(QDate(2026, 12, 5), QTime(10, 0), Qt::UTC));
    QCOMPARE(a.expiresAt.value_or(QDateTime()), QDateTime(QDate(2026, 12, 5), QTime(11, 0), Qt::UTC));
    QCOMPARE(a.agentId, QStringLiteral("a \"q\""));
    QCOMPARE(a.userId, QStringLiteral("u/1"));
    QCOMPARE(a.workspaceId, QStringLiteral("w中"));
    const QMap<QString, QString> metadata{{QStringLiteral("agentscope.agent.id"), QStringLiteral("a \"q\"")},
                                          {QStringLiteral("agentscope.user.id"), QStringLiteral("u/1")},
                                          {QStringLiteral("agentscope.workspace.id"), QStringLiteral("w中")},
                                          {QStringLiteral("note"), QStringLiteral("ends\"")},
                                          {QStringLiteral("empty"), QString()}};
    QCOMPARE(a.metadata, metadata);
    const SandboxInfo &b = page->sandboxes.at(1);
    QCOMPARE(b.sandboxId, QStringLiteral("ib"));
    QCOMPARE(b.workspaceId, QStringLiteral("w-b"));
    QCOMPARE(b.state, SandboxState::Paused);
    QCOMPARE(b.pausedAt, QDateTime(QDate(2026, 12, 5), QTime(9, 0), Qt::UTC));
}

void TestE2BBackend::aListingIsEveryPageInTheServersOrder()
{
    // Pages are parsed by whichever side claims them first (the low-priority thread as they
    // arrive, every core once the last is in): each page once, joined in the server's order. With
    // no latency the fetch outruns the parsing thread; at 20 ms a page it keeps up.
    for (const int latencyMs : {0, 20}) {
        FakeE2bProcess server;
        QVERIFY2(server.start({QStringLiteral("--seed"), QStringLiteral("1000"), QStringLiteral("--latency-ms"),
                               QString::number(latencyMs)}),
                 qPrintable(server.error()));
        QNetworkAccessManager network;
        // The server's order, page by page, read with Qt's own JSON.
        QStringList expected;
        QByteArray token;
        do {
            QUrl url = server.apiUrl();
            url.setPath(QStringLiteral("/v2/sandboxes"));
            url.setQuery(QStringLiteral("limit=100")
                         + (token.isEmpty() ? QString() : QStringLiteral("&nextToken=") + QString::fromLatin1(token)));
            QNetworkRequest request(url);
            request.setRawHeader("X-API-Key", Key.toByteArray());
            std::unique_ptr<QNetworkReply> reply(network.get(request));
            QSignalSpy finished(reply.get(), &QNetworkReply::finished);
            QVERIFY(reply->isFinished() || finished.wait(10'000));
            const QJsonArray page = QJsonDocument::fromJson(reply->readAll()).array();
            for (const QJsonValue &sandbox : page)
                expected.append(sandbox.toObject().value(QLatin1String("sandboxID")).toString());
            token = reply->rawHeader("X-Next-Token");
        } while (!token.isEmpty());
        QCOMPARE(expected.size(), 1000);

        HttpClient http(&network);
        ConnectionConfig config;
        config.apiUrl = server.apiUrl().toString();
        config.apiKey = Key.toByteArray();
        ControlPlane client(&http, config);
        for (int round = 0; round < 3; ++round) {
            const auto listed = QCoro::waitFor(client.list({}, {}));
            QVERIFY2(listed, qPrintable(listed ? QString() : listed.error().message));
            QStringList ids;
            for (const SandboxInfo &info : std::as_const(*listed))
                ids.append(info.sandboxId);
            QCOMPARE(ids, expected);
            qInfo("latency %d ms: %d of 10 pages left for the end", latencyMs, client.lastListingPagesLeft());
        }
    }
}

void TestE2BBackend::aClosingProfileDoesNotWaitForASilentListing()
{
    // A server that takes the listing and never answers: closing the profile ends the listing
    // (Cancelled) instead of waiting out its timeouts (10 s, then once more), which held a quit.
    ScriptedHttpServer api;
    api.script.enqueue(QByteArray()); // accept, never answer
    BackendOptions options;
    options.connection.apiUrl = api.url({}).toString();
    options.connection.sandboxUrl = api.url({}).toString();
    options.connection.apiKey = Key.toByteArray();
    options.connection.requestTimeout = 10s;
    TestSession<E2BBackend> session(std::make_unique<E2BBackend>(options),
                                    testProfile(QStringLiteral("silent"), Profile::Kind::E2B));
    auto listing = session->list({});
    QTRY_COMPARE(api.requests.size(), 1);
    session.shutdown();
    const auto listed = QCoro::waitFor(std::move(listing));
    QVERIFY(!listed);
    QCOMPARE(listed.error().kind, Error::Kind::Cancelled);
    QCOMPARE(api.requests.size(), 1);
}

void TestE2BBackend::listFollowsNextTokenAndFiltersByMetadata()
{
    FakeE2bProcess server;
    QVERIFY2(server.start({QStringLiteral("--seed"), QStringLiteral("250")}), qPrintable(server.error()));
    E2BBackend backend(optionsFor(server));
    server.post(QStringLiteral("/_fake/reset-stats"));
    auto all = QCoro::waitFor(backend.list({}));
    QVERIFY2(all, qPrintable(all ? QString() : all.error().message));
    QCOMPARE(all->size(), 250);
    QCOMPARE(stat(server, "requests"), 3); // 100 + 100 + 50, by X-Next-Token
    QSet<QString> ids;
    int paused = 0;
    for (const SandboxInfo &info : std::as_const(*all)) {
        QVERIFY(!info.workspaceId.isEmpty());
        QCOMPARE(info.backend, QStringLiteral("e2b"));
        ids.insert(info.sandboxId);
        if (info.state == SandboxState::Paused) {
            ++paused;
            // A paused sandbox's timer is stopped: no countdown, and since when.
            QVERIFY(!info.expiresAt);
            QVERIFY(info.pausedAt.isValid());
        } else {
            QCOMPARE(info.state, SandboxState::Running);
            QVERIFY(info.expiresAt && *info.expiresAt > QDateTime::currentDateTimeUtc());
            QVERIFY(!info.pausedAt.isValid());
        }
    }
    QCOMPARE(ids.size(), 250);
    QVERIFY(paused > 0);

    const QList<SandboxState> pausedOnly{SandboxState::Paused};
    auto onlyPaused = QCoro::waitFor(backend.list(ListFilter{std::nullopt, pausedOnly}));
    QVERIFY(onlyPaused);
    QCOMPARE(onlyPaused->size(), paused);

    const SandboxInfo &one = all->at(123);
    auto found = QCoro::waitFor(backend.list(ListFilter{one.workspaceId, {}}));
    QVERIFY(found);
    QCOMPARE(found->size(), 1);
    QCOMPARE(found->constFirst().sandboxId, one.sandboxId);
    // States E2B does not have: nothing to ask for.
    const QList<SandboxState> failed{SandboxState::Failed};
    auto none = QCoro::waitFor(backend.list(ListFilter{std::nullopt, failed}));
    QVERIFY(none && none->isEmpty());
}

void TestE2BBackend::metadataWithSeparatorsRoundTrips()
{
    FakeE2bProcess server;
    QVERIFY2(server.start(), qPrintable(server.error()));
    E2BBackend backend(optionsFor(server));
    const QString odd = QStringLiteral("ws 1&x=y%2F运维");
    auto made = QCoro::waitFor(backend.create(spec(odd)));
    QVERIFY2(made, qPrintable(made ? QString() : made.error().message));
    QCOMPARE(made->workspaceId, odd);
    auto other = QCoro::waitFor(backend.create(spec(QStringLiteral("ws 1"))));
    QVERIFY(other);
    auto found = QCoro::waitFor(backend.list(ListFilter{odd, {}}));
    QVERIFY(found);
    QCOMPARE(found->size(), 1);
    QCOMPARE(found->constFirst().sandboxId, made->sandboxId);
    QCOMPARE(found->constFirst().userId, QStringLiteral("alice"));
    QCOMPARE(found->constFirst().agentId, QStringLiteral("agent-1"));
}

void TestE2BBackend::reattachTakesTheNewestWithAWarning()
{
    FakeE2bProcess server;
    QVERIFY2(server.start(), qPrintable(server.error()));
    Stack stack(optionsFor(server), m_logs.path(), {});
    const QString id = QStringLiteral("ws-newest");
    auto older = QCoro::waitFor(stack.backend.create(spec(id)));
    QVERIFY(older);
    // Times are kept to the millisecond: two creates may fall within one. The fake's clock moves
    // on a second so that the second is the newer.
    server.advanceClock(1);
    auto newer = QCoro::waitFor(stack.backend.create(spec(id)));
    QVERIFY(newer);
    QVERIFY(newer->createdAt > older->createdAt);
    QVERIFY(QCoro::waitFor(stack.backend.pause(newer->sandboxId)));

    // Both match: the newest by startedAt wins (paused, so it is resumed), and a warning says so.
    QTest::ignoreMessage(QtWarningMsg,
                         QRegularExpression(QStringLiteral("2 sandboxes match workspace_id=ws-newest; attaching")));
    auto opened = stack.open(id);
    QVERIFY2(opened, qPrintable(opened ? QString() : opened.error().message));
    const SandboxInfo held = static_cast<const SandboxWorkspace *>(opened->get())->sandbox();
    QCOMPARE(held.sandboxId, newer->sandboxId);
    QCOMPARE(held.state, SandboxState::Running);
    auto log = stack.logs.read(stack.backend.instanceKey(), id);
    QVERIFY(log);
    bool resumed = false;
    const QByteArray resuming = QByteArray("resuming paused sandbox ") + newer->sandboxId.toUtf8();
    for (const LogLine &line : std::as_const(*log))
        resumed = resumed || line.text.contains(resuming);
    QVERIFY(resumed);
    // Close is pause, never kill.
    QVERIFY(QCoro::waitFor(stack.manager.close(id)));
    auto after = QCoro::waitFor(stack.backend.get(newer->sandboxId));
    QVERIFY(after);
    QCOMPARE(after->state, SandboxState::Paused);
}

void TestE2BBackend::resumeRestartsAPausedSandboxsTimer()
{
    FakeE2bProcess server;
    QVERIFY2(server.start(), qPrintable(server.error()));
    BackendOptions options = optionsFor(server);
    options.timeout = 600s;
    E2BBackend backend(options);
    auto made = QCoro::waitFor(backend.create(spec(QStringLiteral("ws-resume"))));
    QVERIFY(made);
    QVERIFY(made->expiresAt);
    QVERIFY(QCoro::waitFor(backend.pause(made->sandboxId)));
    // Paused again is no failure.
    QVERIFY(QCoro::waitFor(backend.pause(made->sandboxId)));
    auto paused = QCoro::waitFor(backend.get(made->sandboxId));
    QVERIFY(paused);
    QCOMPARE(paused->state, SandboxState::Paused);
    QVERIFY(!paused->expiresAt);
    QVERIFY(paused->pausedAt.isValid());
    // An hour later (on the fake's clock) it is still there: a paused timer stands still.
    server.advanceClock(3600);
    auto connectRefused = QCoro::waitFor(backend.connect(made->sandboxId));
    QVERIFY(!connectRefused);
    QCOMPARE(kindName(connectRefused.error().kind), kindName(Error::Kind::Conflict));
    auto resumed = QCoro::waitFor(backend.resume(made->sandboxId));
    QVERIFY2(resumed, qPrintable(resumed ? QString() : resumed.error().message));
    QCOMPARE(resumed->state, SandboxState::Running);
    // A new run: started after the pause, its own timeout (the profile's, not the server's 300 s).
    QVERIFY(resumed->createdAt > made->createdAt);
    QVERIFY(resumed->expiresAt);
    QVERIFY(qAbs(resumed->createdAt.secsTo(*resumed->expiresAt) - 600) <= 1);
    QCOMPARE(stat(server, "running"), 1);
}

void TestE2BBackend::connectNeverShortensARunningSandbox()
{
    FakeE2bProcess server;
    QVERIFY2(server.start(), qPrintable(server.error()));
    E2BBackend longLived(optionsFor(server)); // an hour
    auto made = QCoro::waitFor(longLived.create(spec(QStringLiteral("ws-1055"))));
    QVERIFY(made && made->expiresAt);
    BackendOptions shortOptions = optionsFor(server);
    shortOptions.timeout = 300s; // AgentScope's default
    E2BBackend attaching(shortOptions);
    auto connected = QCoro::waitFor(attaching.connect(made->sandboxId));
    QVERIFY2(connected, qPrintable(connected ? QString() : connected.error().message));
    QVERIFY(connected->expiresAt);
    QVERIFY(*connected->expiresAt >= *made->expiresAt);
    auto resumed = QCoro::waitFor(attaching.resume(made->sandboxId)); // running: the same rule
    QVERIFY(resumed && resumed->expiresAt);
    QVERIFY(*resumed->expiresAt >= *made->expiresAt);
}

void TestE2BBackend::renewNeverShortensUnlessAsked()
{
    FakeE2bProcess server;
    QVERIFY2(server.start(), qPrintable(server.error()));
    Profile profile;
    profile.id = QStringLiteral("e2b-test");
    profile.kind = Profile::Kind::E2B;
    profile.apiUrl = server.apiUrl().toString();
    profile.sandboxUrl = server.envdUrl().toString();
    profile.sandboxTimeout = 3600s;
    BootstrapLogStore logs(m_logs.path());
    ProfileSession session(profile, Key.toByteArray(), &logs);
    const auto shutdown = qScopeGuard([&session] { QCoro::waitFor(session.shutdown()); });
    E2BBackend backend(optionsFor(server));
    auto made = QCoro::waitFor(backend.create(spec(QStringLiteral("ws-renew"))));
    QVERIFY(made && made->expiresAt);
    const QDateTime before = *made->expiresAt;

    // now + 10 min is before the hour it has: refused, and the deadline as it was.
    auto refused = QCoro::waitFor(session.renew(*made, RenewRequest{RenewMode::FromNow, 600s, false}));
    QVERIFY(!refused);
    QCOMPARE(kindName(refused.error().kind), kindName(Error::Kind::Conflict));
    auto unchanged = QCoro::waitFor(backend.get(made->sandboxId));
    QVERIFY(unchanged && unchanged->expiresAt);
    QCOMPARE(*unchanged->expiresAt, before);

    // Extend: the deadline plus ten minutes.
    auto extended = QCoro::waitFor(session.renew(*made, RenewRequest{RenewMode::Extend, 600s, false}));
    QVERIFY2(extended, qPrintable(extended ? QString() : extended.error().message));
    QVERIFY(extended->expiresAt);
    QVERIFY(qAbs(before.addSecs(600).secsTo(*extended->expiresAt)) <= 2);

    // Asked for: shortened, and the server's deadline is what comes back.
    auto shortened = QCoro::waitFor(session.renew(*extended, RenewRequest{RenewMode::FromNow, 600s, true}));
    QVERIFY(shortened && shortened->expiresAt);
    QVERIFY(*shortened->expiresAt < before);
    auto now = QCoro::waitFor(backend.get(made->sandboxId));
    QVERIFY(now && now->expiresAt);
    QCOMPARE(*now->expiresAt, *shortened->expiresAt);

    // A paused sandbox's timer is stopped: renew says so.
    QVERIFY(QCoro::waitFor(backend.pause(made->sandboxId)));
    auto pausedRenew = QCoro::waitFor(backend.renew(made->sandboxId, 600s));
    QVERIFY(!pausedRenew);
    QVERIFY2(pausedRenew.error().message.contains(QLatin1String("timer is stopped")),
             qPrintable(pausedRenew.error().message));
}

void TestE2BBackend::aFailedListCreatesNothing()
{
    // AgentScope treats a list that fails as "no match" and creates a second sandbox for the
    // workspace. Here the provisioning fails with the list's error, and nothing is created.
    ScriptedHttpServer api;
    api.script.enqueue(ScriptedHttpServer::response(500, R"({"code":500,"message":"database unavailable"})"));
    BackendOptions options;
    options.connection.apiUrl = api.url({}).toString();
    options.connection.sandboxUrl = api.url({}).toString();
    options.connection.apiKey = Key.toByteArray();
    options.retry = {1, 20ms, 2.0, 200ms};
    Stack stack(options, m_logs.path(), {});
    auto opened = stack.open(QStringLiteral("ws-list-fails"));
    QVERIFY(!opened);
    QVERIFY2(opened.error().message.contains(QLatin1String("database unavailable")),
             qPrintable(opened.error().message));
    QCOMPARE(api.requests.size(), 1);
    QVERIFY(api.requests.constFirst().startsWith("GET /v2/sandboxes?"));
}

void TestE2BBackend::aFailedBootstrapLeavesNothingRunning()
{
    // AgentScope leaves the sandbox running (until its timeout) when initialize() fails.
    FakeE2bProcess server;
    QVERIFY2(server.start(), qPrintable(server.error()));
    Stack stack(optionsFor(server), m_logs.path(), {BootstrapCommand{QStringLiteral("echo broken >&2; exit 3"), 60s}});
    auto opened = stack.open(QStringLiteral("ws-bootstrap-fails"));
    QVERIFY(!opened);
    QVERIFY2(opened.error().message.contains(QLatin1String("exit 3")), qPrintable(opened.error().message));
    auto left = QCoro::waitFor(stack.backend.list(ListFilter{QStringLiteral("ws-bootstrap-fails"), {}}));
    QVERIFY(left);
    QCOMPARE(left->size(), 1);
    QCOMPARE(left->constFirst().state, SandboxState::Paused);
    QCOMPARE(stat(server, "running"), 0);
}

void TestE2BBackend::aSandboxThatNeverBecomesReadyIsPaused()
{
    FakeE2bProcess server;
    QVERIFY2(server.start(), qPrintable(server.error()));
    server.post(QStringLiteral("/_fake/envd"), {{QStringLiteral("unreachable"), true}});
    Stack stack(optionsFor(server), m_logs.path(), {}, 1'000ms);
    auto opened = stack.open(QStringLiteral("ws-never-ready"));
    QVERIFY(!opened);
    QVERIFY2(opened.error().message.contains(QLatin1String("did not become ready")),
             qPrintable(opened.error().message));
    QCOMPARE(stat(server, "running"), 0);
    QCOMPARE(stat(server, "paused"), 1);
}

void TestE2BBackend::aKeyWithoutThePrefixSendsNothing()
{
    FakeE2bProcess server;
    QVERIFY2(server.start(), qPrintable(server.error()));
    E2BBackend backend(optionsFor(server, "sk_e2b_0123456789abcdef"));
    QVERIFY(!backend.checkConfiguration());
    server.post(QStringLiteral("/_fake/reset-stats"));
    auto listed = QCoro::waitFor(backend.list({}));
    QVERIFY(!listed);
    QCOMPARE(kindName(listed.error().kind), kindName(Error::Kind::InvalidArgument));
    QVERIFY2(listed.error().message.contains(QLatin1String("e2b_")), qPrintable(listed.error().message));
    QVERIFY(!listed.error().message.contains(QLatin1String("0123456789abcdef")));
    auto made = QCoro::waitFor(backend.create(spec(QStringLiteral("ws-bad-key"))));
    QVERIFY(!made);
    QCOMPARE(stat(server, "requests"), 0);
    QCOMPARE(stat(server, "sandboxes"), 0);
}

void TestE2BBackend::aWrongKeyIsRefused()
{
    FakeE2bProcess server;
    QVERIFY2(server.start({QStringLiteral("--api-key"), QStringLiteral("e2b_aaaaaaaa")}), qPrintable(server.error()));
    E2BBackend backend(optionsFor(server, "e2b_bbbbbbbb"));
    auto listed = QCoro::waitFor(backend.list({}));
    QVERIFY(!listed);
    QCOMPARE(listed.error().httpStatus, 401);
    QVERIFY2(listed.error().message.contains(QLatin1String("refused the API key")), qPrintable(listed.error().message));
    QVERIFY(!listed.error().message.contains(QLatin1String("bbbbbbbb")));
    auto made = QCoro::waitFor(backend.create(spec(QStringLiteral("ws-wrong-key"))));
    QVERIFY(!made);
    QCOMPARE(stat(server, "sandboxes"), 0);
}

void TestE2BBackend::anUnknownTemplateMakesNothing()
{
    FakeE2bProcess server;
    QVERIFY2(server.start(), qPrintable(server.error()));
    BackendOptions options = optionsFor(server);
    options.templateName = QStringLiteral("no-such-template");
    E2BBackend backend(options);
    auto made = QCoro::waitFor(backend.create(spec(QStringLiteral("ws-template"))));
    QVERIFY(!made);
    QVERIFY2(made.error().message.contains(QLatin1String("no template \"no-such-template\"")),
             qPrintable(made.error().message));
    QCOMPARE(stat(server, "sandboxes"), 0);
}

void TestE2BBackend::aTimeoutBeyondTheTeamsMaximumMakesNothing()
{
    FakeE2bProcess server;
    QVERIFY2(server.start({QStringLiteral("--max-timeout-hours"), QStringLiteral("1")}), qPrintable(server.error()));
    BackendOptions options = optionsFor(server);
    options.timeout = 7200s;
    E2BBackend backend(options);
    auto made = QCoro::waitFor(backend.create(spec(QStringLiteral("ws-too-long"))));
    QVERIFY(!made);
    QVERIFY2(made.error().message.contains(QLatin1String("longest run")), qPrintable(made.error().message));
    QCOMPARE(stat(server, "sandboxes"), 0);
}

void TestE2BBackend::aSandboxThatExpiredWhileOpenIsGone()
{
    FakeE2bProcess server;
    QVERIFY2(server.start(), qPrintable(server.error()));
    BackendOptions options = optionsFor(server);
    options.timeout = 60s;
    E2BBackend backend(options);
    auto made = QCoro::waitFor(backend.create(spec(QStringLiteral("ws-expires"))));
    QVERIFY(made);
    ExecRequest echo;
    echo.argv = QStringList{QStringLiteral("echo"), QStringLiteral("alive")};
    auto ran = QCoro::waitFor(backend.exec(made->sandboxId, echo));
    QVERIFY2(ran && ran->exitCode == 0, qPrintable(ran ? QString() : ran.error().message));
    QSignalSpy lost(&backend, &Backend::sandboxLost);
    server.advanceClock(120);
    auto after = QCoro::waitFor(backend.exec(made->sandboxId, echo));
    QVERIFY(!after);
    QCOMPARE(kindName(after.error().kind), kindName(Error::Kind::NotFound));
    QVERIFY2(after.error().message.contains(QLatin1String("expired")), qPrintable(after.error().message));
    QCOMPARE(lost.size(), 1);
    QCOMPARE(lost.at(0).at(1).toString(), QStringLiteral("ws-expires"));
    QCOMPARE(stat(server, "running"), 0);
}

void TestE2BBackend::envdUnreachableIsSaid()
{
    FakeE2bProcess server;
    QVERIFY2(server.start(), qPrintable(server.error()));
    E2BBackend backend(optionsFor(server));
    auto made = QCoro::waitFor(backend.create(spec(QStringLiteral("ws-502"))));
    QVERIFY(made);
    server.post(QStringLiteral("/_fake/sandboxes/%1/envd").arg(made->sandboxId),
                {{QStringLiteral("unreachable"), true}});
    auto ready = QCoro::waitFor(backend.isReady(made->sandboxId));
    QVERIFY(ready);
    QVERIFY(!*ready);
    ExecRequest echo;
    echo.argv = QStringList{QStringLiteral("echo"), QStringLiteral("hi")};
    auto ran = QCoro::waitFor(backend.exec(made->sandboxId, echo));
    QVERIFY(!ran);
    QCOMPARE(kindName(ran.error().kind), kindName(Error::Kind::Unreachable));
    QVERIFY2(ran.error().message.contains(QLatin1String("cannot be reached")), qPrintable(ran.error().message));
    auto listed = QCoro::waitFor(backend.listFolder(made->sandboxId, {}));
    QVERIFY(!listed);
    QVERIFY2(listed.error().message.contains(QLatin1String("cannot be reached")), qPrintable(listed.error().message));
    // Once envd answers again, so does the backend.
    server.post(QStringLiteral("/_fake/sandboxes/%1/envd").arg(made->sandboxId),
                {{QStringLiteral("unreachable"), false}});
    auto again = QCoro::waitFor(backend.exec(made->sandboxId, echo));
    QVERIFY2(again && again->exitCode == 0, qPrintable(again ? QString() : again.error().message));
    QCOMPARE(stat(server, "envdRequestsWithApiKey"), 0);
}

void TestE2BBackend::aBrokenStreamLeavesTheFateUnknown_data()
{
    QTest::addColumn<QString>("mode");
    QTest::newRow("connection dropped") << QStringLiteral("drop");
    QTest::newRow("body ended without the end") << QStringLiteral("truncate");
}

void TestE2BBackend::aBrokenStreamLeavesTheFateUnknown()
{
    QFETCH(QString, mode);
    FakeE2bProcess server;
    QVERIFY2(server.start(), qPrintable(server.error()));
    E2BBackend backend(optionsFor(server));
    auto made = QCoro::waitFor(backend.create(spec(QStringLiteral("ws-broken"))));
    QVERIFY(made);
    server.post(QStringLiteral("/_fake/sandboxes/%1/break-streams").arg(made->sandboxId),
                {{QStringLiteral("mode"), mode}, {QStringLiteral("when"), QStringLiteral("next")}});
    QList<QByteArray> lines;
    ExecRequest request;
    request.argv =
        QStringList{QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("echo first; sleep 1; exit 4")};
    request.onLine = [&lines](OutputChannel, const QByteArray &line) { lines.append(line); };
    auto ran = QCoro::waitFor(backend.exec(made->sandboxId, request));
    QVERIFY2(!ran, "a broken stream gave an exit code");
    QCOMPARE(kindName(ran.error().kind), kindName(Error::Kind::Unreachable));
    QVERIFY2(ran.error().message.contains(QLatin1String("fate is unknown")), qPrintable(ran.error().message));
    QVERIFY(!ran.error().message.contains(QLatin1String("exit")));
    // The sandbox still runs commands.
    ExecRequest echo;
    echo.argv = QStringList{QStringLiteral("echo"), QStringLiteral("fine")};
    auto after = QCoro::waitFor(backend.exec(made->sandboxId, echo));
    QVERIFY2(after && after->exitCode == 0, qPrintable(after ? QString() : after.error().message));
}

void TestE2BBackend::detailsNeverShowTheKeyOrToken()
{
    FakeE2bProcess server;
    QVERIFY2(server.start(), qPrintable(server.error()));
    E2BBackend backend(optionsFor(server));
    auto made = QCoro::waitFor(backend.create(spec(QStringLiteral("ws-details"))));
    QVERIFY(made);
    auto details = QCoro::waitFor(backend.details(made->sandboxId));
    QVERIFY2(details, qPrintable(details ? QString() : details.error().message));
    QCOMPARE(details->sandbox.sandboxId, made->sandboxId);
    QStringList all;
    for (const auto &list : {details->resources, details->endpoints, details->facts}) {
        for (const auto &[label, value] : list)
            all << label << value;
    }
    const QString text = all.join(u'\n');
    QVERIFY2(text.contains(QLatin1String("base")), qPrintable(text)); // the template
    QVERIFY2(text.contains(QLatin1String("0.6.13")), qPrintable(text)); // envd's version
    QVERIFY(details->resources.contains(std::pair<QString, QString>(QStringLiteral("cpu"), QStringLiteral("2"))));
    QVERIFY(
        details->resources.contains(std::pair<QString, QString>(QStringLiteral("memory"), QStringLiteral("512 MiB"))));
    const QString token = server.sandbox(made->sandboxId).value(QLatin1String("token")).toString();
    QVERIFY(!token.isEmpty());
    QVERIFY(!text.contains(token));
    QVERIFY(!text.contains(QString::fromLatin1(Key)));
}

void TestE2BBackend::theBootstrapIsAgentScopes()
{
    const QList<BootstrapCommand> bootstrap = E2B::agentscopeBootstrapCommands();
    QCOMPARE(bootstrap.size(), 7);
    for (const BootstrapCommand &command : bootstrap)
        QCOMPARE(command.timeout, 600s);
    QVERIFY(bootstrap.at(0).command.startsWith(QLatin1String("sudo apt-get update -qq && sudo apt-get install")));
    QVERIFY(bootstrap.at(1).command.contains(QLatin1String("| sudo env UV_INSTALL_DIR=/usr/local/bin")));
    QCOMPARE(bootstrap.at(2).command, QStringLiteral("uv venv /home/user/.agentscope/.venv"));
    QVERIFY(bootstrap.last().command.endsWith(QLatin1String("/home/user/.agentscope/_mcp_gateway_app.py")));
}

QTEST_GUILESS_MAIN(TestE2BBackend)
#include "tst_e2bbackend.moc"
