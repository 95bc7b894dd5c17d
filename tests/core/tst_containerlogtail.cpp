// ContainerLogTail: a sandbox's container log, which OpenSandbox only serves as "the last N lines",
// followed by polling into a local file. End to end against paddock-fake-opensandbox (a child
// process on 127.0.0.1 whose execd runs commands for real; their output is the container log),
// plus the overlap search, the lifecycle request, and the cases the fake server cannot make (lines
// without a time, offsets) with a backend that hands out scripted pages. A source that streams
// (Kubernetes' followed pods/log) is followed as a stream: with a scripted stream (pieces cut
// mid-line, reconnections, the drain, cancel, failures) and end to end through a Kubernetes
// profile's session against paddock-fake-kubernetes.

#include "backends/local/localbackend.h"
#include "backends/opensandbox/opensandboxbackend.h"
#include "backends/opensandbox/wire.h"
#include "bootstraplog.h"
#include "broadcast.h"
#include "bulk.h"
#include "containerlogtail.h"
#include "fakekubernetesprocess.h"
#include "fakeopensandboxprocess.h"
#include "profilesession.h"
#include "scriptedhttpserver.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#include <QCoroTimer>
#endif

#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <memory>

using namespace Paddock;
using namespace Paddock::OpenSandbox;
using namespace PaddockTest;
using namespace std::chrono_literals;

namespace {

// The lines of our log file (each must end with its newline).
QList<LogLine> readLog(const QString &path)
{
    QFile file(path);
    QList<LogLine> lines;
    if (!file.open(QIODevice::ReadOnly))
        return lines;
    QList<QByteArray> raw = file.readAll().split('\n');
    raw.removeLast(); // after the last newline: nothing, if every line was written whole
    for (const QByteArray &line : std::as_const(raw))
        lines.append(LogLine::parse(line));
    return lines;
}

QByteArrayList texts(const QList<LogLine> &lines, LogLine::Kind kind = LogLine::Kind::Stdout)
{
    QByteArrayList out;
    for (const LogLine &line : lines) {
        if (line.kind == kind)
            out.append(line.text);
    }
    return out;
}

// The complete lines of the server's log: "<RFC 3339 nano time> <text>".
QList<LogLine> serverLines(const QByteArray &body)
{
    QList<QByteArray> raw = body.split('\n');
    raw.removeLast(); // an incomplete last line, or nothing
    QList<LogLine> lines;
    for (const QByteArray &line : std::as_const(raw)) {
        const qsizetype space = line.indexOf(' ');
        const auto time = parseTimestamp(QString::fromLatin1(line.left(space)));
        lines.append(LogLine{time ? *time : QDateTime(), LogLine::Kind::Stdout, line.mid(space + 1)});
    }
    return lines;
}

// The same lines, times (to the millisecond) and texts, in the same order.
bool sameLines(const QList<LogLine> &file, const QList<LogLine> &server, QString *why)
{
    QList<LogLine> out;
    for (const LogLine &line : file) {
        if (line.kind == LogLine::Kind::Stdout)
            out.append(line);
    }
    if (out.size() != server.size()) {
        *why = QStringLiteral("%1 lines in the file, %2 on the server").arg(out.size()).arg(server.size());
        return false;
    }
    for (qsizetype i = 0; i < out.size(); ++i) {
        if (out[i].text != server[i].text || out[i].time != server[i].time) {
            *why = QStringLiteral("line %1: file %2, server %3")
                       .arg(i)
                       .arg(QString::fromUtf8(out[i].serialize()), QString::fromUtf8(server[i].serialize()));
            return false;
        }
    }
    return true;
}

// The fake server, an OpenSandbox backend on it and one sandbox.
struct Fake
{
    bool up(const QStringList &arguments = {}, const QByteArray &backendKey = "secret")
    {
        QStringList all{QStringLiteral("--api-key"), QStringLiteral("secret")};
        all += arguments;
        if (!server.start(all)) {
            qWarning("%s", qPrintable(server.error()));
            return false;
        }
        BackendOptions options;
        options.connection.domain = server.domain();
        options.connection.apiKey = "secret";
        options.connection.requestTimeout = 10s;
        options.retry = RetryPolicy{2, 20ms, 2.0, 100ms};
        options.keepLeases = false;
        backend = std::make_unique<OpenSandboxBackend>(options);
        const CreateSpec spec{QStringLiteral("tail-test"), QStringLiteral("alice"), QStringLiteral("agent"), {}};
        auto created = QCoro::waitFor(backend->create(spec));
        if (!created) {
            qWarning("%s", qPrintable(created.error().message));
            return false;
        }
        sandboxId = created->sandboxId;
        if (backendKey != options.connection.apiKey) {
            options.connection.apiKey = backendKey;
            backend = std::make_unique<OpenSandboxBackend>(options);
        }
        return true;
    }

    bool run(const QString &command)
    {
        ExecRequest request;
        request.argv = QStringList{QStringLiteral("bash"), QStringLiteral("-c"), command};
        request.timeout = 30s;
        auto ran = QCoro::waitFor(backend->exec(sandboxId, request));
        if (!ran || ran->exitCode != 0) {
            qWarning("%s: %s", qPrintable(command), ran ? ran->stdErr.constData() : qPrintable(ran.error().message));
            return false;
        }
        return true;
    }

    QByteArray log()
    {
        auto body = QCoro::waitFor(backend->containerLogs(sandboxId, LifecycleClient::MaxLogTail));
        return body ? *body : QByteArray("(error) ") + body.error().message.toUtf8();
    }

    // Lifecycle requests the server has had (test routes not counted): two per poll.
    int requests() const { return server.stats().value(QLatin1String("requests")).toInt(); }

    FakeOpenSandboxProcess server;
    std::unique_ptr<OpenSandboxBackend> backend;
    QString sandboxId;
};

// A backend that hands out scripted log pages and states.
class PageBackend final : public Backend
{
public:
    QString name() const override { return QStringLiteral("pages"); }
    QString instanceKey() const override { return QStringLiteral("pages"); }
    WorkspaceLayout layout(const SandboxInfo &) const override { return {}; }
    QCoro::Task<Result<QList<SandboxInfo>>> list(ListFilter) override { co_return QList<SandboxInfo>{}; }
    QCoro::Task<Result<SandboxInfo>> get(QString sandboxId) override
    {
        ++gets;
        if (gone)
            co_return fail(Error::notFound(QStringLiteral("HTTP 404 no such sandbox")));
        SandboxInfo info;
        info.sandboxId = sandboxId;
        info.state = state;
        co_return info;
    }
    QCoro::Task<Result<SandboxInfo>> create(CreateSpec) override { co_return fail(unsupported()); }
    QCoro::Task<Result<SandboxInfo>> connect(QString) override { co_return fail(unsupported()); }
    QCoro::Task<Result<SandboxInfo>> resume(QString) override { co_return fail(unsupported()); }
    QCoro::Task<Result<>> pause(QString) override { co_return fail(unsupported()); }
    QCoro::Task<Result<>> kill(QString, KillOptions) override { co_return fail(unsupported()); }
    QCoro::Task<Result<SandboxInfo>> renew(QString, std::chrono::seconds) override { co_return fail(unsupported()); }
    QCoro::Task<Result<bool>> isReady(QString) override { co_return true; }
    QCoro::Task<Result<ExecResult>> exec(QString, ExecRequest) override { co_return fail(unsupported()); }
    QCoro::Task<Result<QByteArray>> containerLogs(QString, int tail) override
    {
        tails.append(tail);
        if (hold) {
            gate.setSingleShot(true);
            gate.start(std::chrono::hours(1));
            co_await gate;
            ++released;
        }
        if (error)
            co_return fail(*error);
        co_return body;
    }

    static Error unsupported() { return Error::unsupported(QStringLiteral("not here")); }

    QByteArray body;
    std::optional<Error> error;
    SandboxState state = SandboxState::Running;
    bool gone = false;
    QList<int> tails;
    int gets = 0;
    bool hold = false; // containerLogs() answers when the gate times out (start(0) it)
    QTimer gate;
    int released = 0;
};

// A log server that streams, as a ContainerLogSource's follow: its log is a list of complete raw
// lines; a connection gets the last `tail` of them (in pieces of `piece` bytes, cut anywhere),
// then what append() adds, until the test ends it or its token is cancelled (seen within 5 ms,
// as a server would notice). The sandbox's state is scripted too; a sandbox that is not running
// gets its log and the end at once, unless `keepOpen`.
struct StreamScript
{
    struct Connection
    {
        int tail = 0;
        qint64 startedMs = 0; // since the script was made
        ContainerLogSource::OnData onData;
        std::shared_ptr<CancelToken> cancel;
        Broadcast<Result<>> end;
        QTimer watch;
    };

    QByteArrayList log;
    QByteArray partial; // a last line without its newline yet
    int piece = 1 << 20;
    SandboxState state = SandboxState::Running;
    bool gone = false;
    bool keepOpen = false;
    std::optional<Error> refuse; // each connection fails at once with this
    int states = 0;
    QList<std::shared_ptr<Connection>> connections;
    QElapsedTimer clock;

    StreamScript() { clock.start(); }

    static void send(Connection &connection, const QByteArray &data, int piece)
    {
        for (qsizetype from = 0; from < data.size(); from += piece)
            connection.onData(QByteArrayView(data).sliced(from, std::min<qsizetype>(piece, data.size() - from)));
    }
    std::shared_ptr<Connection> last() const { return connections.isEmpty() ? nullptr : connections.constLast(); }
    bool isOpen() const { return last() && !last()->end.isSet(); }
    int openCount() const
    {
        return int(
            std::count_if(connections.cbegin(), connections.cend(), [](const auto &c) { return !c->end.isSet(); }));
    }
    // New lines: in the log, and to every open connection (as one piece each, or as given).
    void append(const QByteArrayList &lines)
    {
        QByteArray data;
        for (const QByteArray &line : lines) {
            log.append(line);
            data += line + '\n';
        }
        for (const auto &connection : std::as_const(connections)) {
            if (!connection->end.isSet())
                connection->onData(data);
        }
    }
    void endAll(const Result<> &result = {})
    {
        for (const auto &connection : std::as_const(connections)) {
            if (!connection->end.isSet())
                connection->end.set(result);
        }
    }

    ContainerLogSource source(const std::shared_ptr<StreamScript> &self) const
    {
        ContainerLogSource source;
        source.logs = [](QString, int) -> QCoro::Task<Result<QByteArray>> {
            qFatal("a streaming tail polled");
            co_return QByteArray();
        };
        source.state = [self](QString sandboxId) -> QCoro::Task<Result<SandboxInfo>> {
            ++self->states;
            if (self->gone)
                co_return fail(Error::notFound(QStringLiteral("HTTP 404 no such sandbox")));
            SandboxInfo info;
            info.sandboxId = sandboxId;
            info.state = self->state;
            co_return info;
        };
        source.follow = [self](QString, int tail, ContainerLogSource::OnData onData,
                               std::shared_ptr<CancelToken> cancel) -> QCoro::Task<Result<>> {
            auto connection = std::make_shared<Connection>();
            connection->tail = tail;
            connection->startedMs = self->clock.elapsed();
            connection->onData = std::move(onData);
            connection->cancel = cancel;
            self->connections.append(connection);
            if (self->refuse || self->gone) {
                const Result<> refused =
                    fail(self->refuse ? *self->refuse : Error::notFound(QStringLiteral("HTTP 404 no such pod")));
                connection->end.set(refused);
                co_return refused;
            }
            QByteArray backlog;
            for (const QByteArray &line : self->log.mid(std::max<qsizetype>(0, self->log.size() - tail)))
                backlog += line + '\n';
            send(*connection, backlog + self->partial, self->piece);
            if (self->state != SandboxState::Running && !self->keepOpen)
                connection->end.set(Result<>{});
            QObject::connect(&connection->watch, &QTimer::timeout, &connection->watch, [c = connection.get()] {
                if (c->cancel->isCancelled() && !c->end.isSet())
                    c->end.set(fail(Error{Error::Kind::Cancelled, QStringLiteral("cancelled")}));
            });
            connection->watch.start(5);
            const Result<> ended = co_await connection->end.wait();
            connection->watch.stop();
            co_return ended;
        };
        return source;
    }
};

QByteArray at(int second, const char *text, int nanoseconds = 0)
{
    return QStringLiteral("2026-11-30T11:00:%1.%2Z ")
               .arg(second, 2, 10, QLatin1Char('0'))
               .arg(nanoseconds, 9, 10, QLatin1Char('0'))
               .toUtf8()
        + text;
}

// The Pod of a workspace as AgentScope makes it, with its PVC, straight through the API.
QJsonObject agentscopeObject(const QString &kind, const QString &name)
{
    const QString pvc = QStringLiteral(R"({"apiVersion":"v1","kind":"PersistentVolumeClaim",)"
                                       R"("metadata":{"name":"%1","namespace":"agentscope",)"
                                       R"("labels":{"app.kubernetes.io/managed-by":"agentscope",)"
                                       R"("agentscope.workspace.id":"%1"}},)"
                                       R"("spec":{"accessModes":["ReadWriteOnce"],)"
                                       R"("resources":{"requests":{"storage":"1Gi"}}}})");
    const QString pod =
        QStringLiteral(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"%1","namespace":"agentscope",)"
                       R"("labels":{"app.kubernetes.io/managed-by":"agentscope","agentscope.workspace":"true",)"
                       R"("agentscope.workspace.id":"%1"}},"spec":{"restartPolicy":"OnFailure",)"
                       R"("containers":[{"name":"workspace","image":"python:3.11-slim",)"
                       R"("command":["sleep","infinity"],"workingDir":"/workspace",)"
                       R"("volumeMounts":[{"name":"workspace-data","mountPath":"/workspace"}]}],)"
                       R"("volumes":[{"name":"workspace-data","persistentVolumeClaim":{"claimName":"%1"}}]}})");
    return QJsonDocument::fromJson((kind == QLatin1String("pvc") ? pvc : pod).arg(name).toUtf8()).object();
}

} // namespace

class TestContainerLogTail final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_files = 0;

    QString newFile() { return m_dir.filePath(QStringLiteral("logs/sandbox-%1.log").arg(++m_files)); }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void overlapIsFoundAsASequence_data()
    {
        QTest::addColumn<QByteArrayList>("seen");
        QTest::addColumn<QByteArrayList>("page");
        QTest::addColumn<qsizetype>("overlap");
        const auto lines = [](const char *letters) {
            QByteArrayList list;
            for (const char *c = letters; *c; ++c)
                list.append(QByteArray(1, *c));
            return list;
        };
        QTest::newRow("nothing seen yet") << QByteArrayList{} << lines("abc") << qsizetype(0);
        QTest::newRow("continues") << lines("abc") << lines("bcde") << qsizetype(2);
        QTest::newRow("nothing new") << lines("abc") << lines("abc") << qsizetype(3);
        QTest::newRow("starts right after") << lines("abc") << lines("de") << qsizetype(0);
        QTest::newRow("overlap longer than what is remembered") << lines("cd") << lines("abcde") << qsizetype(4);
        // A page that starts inside a run of identical lines and brought nothing new.
        QTest::newRow("inside a run, nothing new") << lines("axxxxx") << lines("xxx") << qsizetype(3);
        // New identical lines after the seen ones: the overlap is the sequence, not the last line.
        QTest::newRow("run continues") << lines("ax") << lines("axxx") << qsizetype(2);
        // Ambiguous (the last six lines could all be known): taken as nothing new, since a page
        // full of one burst of identical lines is what makes this happen.
        QTest::newRow("periodic page") << lines("xxy") << lines("xxyxxy") << qsizetype(6);
        QTest::newRow("one burst of identical lines") << lines("xxxxx") << lines("xxx") << qsizetype(3);
        QTest::newRow("the newest line alone is not enough") << lines("abx") << lines("cxd") << qsizetype(0);
        QTest::newRow("empty page") << lines("ab") << QByteArrayList{} << qsizetype(0);
    }

    void overlapIsFoundAsASequence()
    {
        QFETCH(QByteArrayList, seen);
        QFETCH(QByteArrayList, page);
        QFETCH(qsizetype, overlap);
        QCOMPARE(ContainerLogTail::overlap(seen, page), overlap);
    }

    void lifecycleClientAsksForTheLegacyLogAsText()
    {
        ScriptedHttpServer server;
        QNetworkAccessManager network;
        HttpClient http(&network, RetryPolicy{3, 10ms, 2.0, 20ms});
        LifecycleClient client(&http,
                               ConnectionConfig{QStringLiteral("127.0.0.1:%1").arg(server.serverPort()),
                                                QStringLiteral("http"), "k3y", false, 5000ms});
        const QByteArray body = "2026-11-30T11:00:00.123456789Z one\n2026-11-30T11:00:01Z {\"not\": json}\nhal";
        const QByteArray text = "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nDeprecation: true\r\n"
                                "Content-Length: "
            + QByteArray::number(body.size()) + "\r\n\r\n" + body;
        server.script.enqueue(ScriptedHttpServer::response(503, R"({"code":"GENERAL::UNAVAILABLE","message":"x"})"));
        server.script.enqueue(text);
        auto logs = QCoro::waitFor(client.containerLogs(QStringLiteral("s1"), 10'000));
        QVERIFY2(logs, qPrintable(logs ? QString() : logs.error().message));
        QCOMPARE(*logs, body); // as it came, the incomplete last line too
        QCOMPARE(server.requests.size(), 2); // a GET may be repeated
        for (const QByteArray &request : std::as_const(server.requests)) {
            QCOMPARE(request.left(request.indexOf("\r\n")),
                     QByteArray("GET /v1/sandboxes/s1/diagnostics/logs?tail=10000 HTTP/1.1"));
            QVERIFY(request.contains("\r\nAccept: text/plain\r\n"));
            QVERIFY(request.contains("\r\nOPEN-SANDBOX-API-KEY: k3y\r\n"));
        }

        // The server's range is 1..10000.
        server.script.enqueue(text);
        server.script.enqueue(text);
        QVERIFY(QCoro::waitFor(client.containerLogs(QStringLiteral("s1"), 0)));
        QVERIFY(QCoro::waitFor(client.containerLogs(QStringLiteral("s1"), 50'000)));
        QVERIFY(server.requests.at(2).startsWith("GET /v1/sandboxes/s1/diagnostics/logs?tail=1 "));
        QVERIFY(server.requests.at(3).startsWith("GET /v1/sandboxes/s1/diagnostics/logs?tail=10000 "));

        server.script.enqueue(ScriptedHttpServer::response(
            404, R"({"code":"DOCKER::SANDBOX_NOT_FOUND","message":"Sandbox s2 not found."})"));
        auto gone = QCoro::waitFor(client.containerLogs(QStringLiteral("s2"), 5));
        QVERIFY(!gone);
        QCOMPARE(gone.error().kind, Error::Kind::NotFound);
        QCOMPARE(gone.error().message,
                 QStringLiteral("HTTP 404 DOCKER::SANDBOX_NOT_FOUND: Sandbox s2 not found. (request req-404)"));
    }

    void followsTheLogInOrderWithItsTimestamps()
    {
        Fake fake;
        QVERIFY(fake.up());
        QVERIFY(fake.run(QStringLiteral("echo first")));
        const QString path = newFile();
        {
            QFile existing(path);
            QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
            QVERIFY(existing.open(QIODevice::WriteOnly));
            existing.write("2026-01-01T00:00:00.000Z sys kept from before\n"
                           "2026-01-01T00:00:01.000Z out another sandbox's line\n");
        }
        ContainerLogTail tail(fake.backend.get(), fake.sandboxId, path);
        tail.setInterval(50ms);
        tail.setDrain(300ms);
        QSignalSpy appended(&tail, &ContainerLogTail::linesAppended);
        QSignalSpy problems(&tail, &ContainerLogTail::problem);
        tail.start();
        QVERIFY(tail.isRunning());
        QVERIFY(appended.wait(10'000));
        QCOMPARE(texts(readLog(path)), (QByteArrayList{"another sandbox's line", "first"}));

        // Lines come as the commands print them, each once, however many polls see them.
        QVERIFY(fake.run(QStringLiteral("for i in 1 2 3; do echo line $i; done")));
        QVERIFY(fake.run(QStringLiteral("echo to stderr >&2")));
        QTRY_VERIFY_WITH_TIMEOUT(texts(readLog(path)).contains("to stderr"), 10'000);
        const int seen = fake.requests();
        QVERIFY(fake.run(QStringLiteral("echo 'with  two spaces '; echo; echo 中文")));
        QTRY_VERIFY_WITH_TIMEOUT(texts(readLog(path)).contains("中文"), 10'000);
        QTRY_VERIFY_WITH_TIMEOUT(fake.requests() >= seen + 12, 10'000); // a few more polls
        const QByteArrayList expected{"another sandbox's line", "first",      "line 1", "line 2", "line 3", "to stderr",
                                      "with  two spaces ",      QByteArray(), "中文"};
        QCOMPARE(texts(readLog(path)), expected);
        QString why;
        QList<LogLine> ours = readLog(path);
        ours.remove(0, 2); // the lines that were there before
        QVERIFY2(sameLines(ours, serverLines(fake.log()), &why), qPrintable(why));
        // The line that was there before is kept, first.
        QCOMPARE(readLog(path).constFirst().text, QByteArray("kept from before"));
        QCOMPARE(readLog(path).constFirst().kind, LogLine::Kind::Status);

        // Stopped and started again, it goes on where it was: nothing twice.
        QSignalSpy stopped(&tail, &ContainerLogTail::stopped);
        tail.stop();
        QCOMPARE(stopped.size(), 1);
        QVERIFY(!tail.isRunning());
        QVERIFY(fake.run(QStringLiteral("echo after the restart")));
        tail.start();
        QTRY_VERIFY_WITH_TIMEOUT(texts(readLog(path)).contains("after the restart"), 10'000);
        ours = readLog(path);
        ours.remove(0, 2);
        QVERIFY2(sameLines(ours, serverLines(fake.log()), &why), qPrintable(why));
        QCOMPARE(problems.size(), 0);
        QCOMPARE(texts(readLog(path), LogLine::Kind::Status), QByteArrayList{"kept from before"});
    }

    void keepsRepeatedIdenticalLines()
    {
        Fake fake;
        QVERIFY(fake.up());
        QVERIFY(fake.run(QStringLiteral("echo start")));
        const QString path = newFile();
        ContainerLogTail tail(fake.backend.get(), fake.sandboxId, path);
        tail.setInterval(50ms);
        QSignalSpy appended(&tail, &ContainerLogTail::linesAppended);
        tail.start();
        QVERIFY(appended.wait(10'000));

        // One write (coreutils' printf; bash's own writes line by line): the server stamps the
        // three lines with the same nanosecond.
        QVERIFY(fake.run(QStringLiteral("/usr/bin/printf 'same\\nsame\\nsame\\n'")));
        QVERIFY(fake.run(QStringLiteral("/usr/bin/printf 'same\\nsame\\nsame\\nend\\n'")));
        QTRY_VERIFY_WITH_TIMEOUT(texts(readLog(path)).contains("end"), 10'000);
        const int seen = fake.requests();
        QTRY_VERIFY_WITH_TIMEOUT(fake.requests() >= seen + 12, 10'000);
        QVERIFY(fake.run(QStringLiteral("printf 'same\\n'")));
        QTRY_VERIFY_WITH_TIMEOUT(texts(readLog(path)).count("same") == 7, 10'000);
        const int later = fake.requests();
        QTRY_VERIFY_WITH_TIMEOUT(fake.requests() >= later + 12, 10'000);

        const QList<QByteArray> raw = fake.log().split('\n');
        // The case this is about: identical lines with identical times.
        QVERIFY2(raw.count(raw.at(1)) == 3, fake.log().constData());
        QCOMPARE(texts(readLog(path)),
                 (QByteArrayList{"start", "same", "same", "same", "same", "same", "same", "end", "same"}));
        QString why;
        QVERIFY2(sameLines(readLog(path), serverLines(fake.log()), &why), qPrintable(why));
    }

    void pageStartingInsideARunOfIdenticalLines()
    {
        Fake fake;
        QVERIFY(fake.up());
        QVERIFY(fake.run(QStringLiteral("/usr/bin/printf 'a\\nsame\\nsame\\nsame\\n'")));
        const QString path = newFile();
        ContainerLogTail tail(fake.backend.get(), fake.sandboxId, path);
        tail.setInterval(50ms);
        tail.setTail(10'000, 2); // later pages: two of the three identical lines
        QSignalSpy appended(&tail, &ContainerLogTail::linesAppended);
        tail.start();
        QVERIFY(appended.wait(10'000));
        const int seen = fake.requests();
        QTRY_VERIFY_WITH_TIMEOUT(fake.requests() >= seen + 8, 10'000);
        QCOMPARE(texts(readLog(path)), (QByteArrayList{"a", "same", "same", "same"}));

        QVERIFY(fake.run(QStringLiteral("echo end")));
        QTRY_VERIFY_WITH_TIMEOUT(texts(readLog(path)).contains("end"), 10'000);
        const int later = fake.requests();
        QTRY_VERIFY_WITH_TIMEOUT(fake.requests() >= later + 8, 10'000);
        const QList<LogLine> lines = readLog(path);
        QCOMPARE(texts(lines), (QByteArrayList{"a", "same", "same", "same", "end"}));
        QCOMPARE(texts(lines, LogLine::Kind::Status), QByteArrayList{}); // nothing was lost
    }

    void holdsAnIncompleteLastLine()
    {
        Fake fake;
        QVERIFY(fake.up());
        const QString path = newFile();
        ContainerLogTail tail(fake.backend.get(), fake.sandboxId, path);
        tail.setInterval(50ms);
        QSignalSpy appended(&tail, &ContainerLogTail::linesAppended);
        tail.start();

        QVERIFY(fake.run(QStringLiteral("echo whole; printf half")));
        QTRY_VERIFY_WITH_TIMEOUT(texts(readLog(path)).contains("whole"), 10'000);
        const int seen = fake.requests();
        QTRY_VERIFY_WITH_TIMEOUT(fake.requests() >= seen + 8, 10'000);
        QCOMPARE(texts(readLog(path)), QByteArrayList{"whole"});

        QVERIFY(fake.run(QStringLiteral("echo ' and the rest'")));
        QTRY_VERIFY_WITH_TIMEOUT(texts(readLog(path)).contains("half and the rest"), 10'000);
        QCOMPARE(texts(readLog(path)), (QByteArrayList{"whole", "half and the rest"}));

        // When the tail stops, what there is of the last line is written.
        QVERIFY(fake.run(QStringLiteral("printf 'no newline'")));
        QVERIFY(fake.log().endsWith(" no newline"));
        const int before = fake.requests();
        QTRY_VERIFY_WITH_TIMEOUT(fake.requests() >= before + 8, 10'000);
        QCOMPARE(texts(readLog(path)).size(), 2);
        appended.clear();
        tail.stop();
        QCOMPARE(appended.size(), 1);
        QCOMPARE(appended.constFirst().constFirst().toInt(), 1);
        QCOMPARE(texts(readLog(path)), (QByteArrayList{"whole", "half and the rest", "no newline"}));
        QString why;
        QList<LogLine> server = serverLines(fake.log() + '\n');
        QVERIFY2(sameLines(readLog(path), server, &why), qPrintable(why));
    }

    void reopeningTheFileDoesNotRepeatIt()
    {
        Fake fake;
        QVERIFY(fake.up());
        QVERIFY(fake.run(QStringLiteral("echo one; /usr/bin/printf 'same\\nsame\\n'; echo two")));
        const QString path = newFile();
        // One tail from start until `until` is in the file and a few polls more; each writes what
        // it holds of an incomplete line when it goes.
        const auto follow = [&](const QByteArray &until) {
            ContainerLogTail tail(fake.backend.get(), fake.sandboxId, path);
            tail.setInterval(50ms);
            tail.start();
            const bool found = QTest::qWaitFor([&] { return texts(readLog(path)).contains(until); }, 10'000);
            const int seen = fake.requests();
            return QTest::qWaitFor([&] { return fake.requests() >= seen + 8; }, 10'000) && found;
        };
        QVERIFY(follow("two"));
        QCOMPARE(texts(readLog(path)), (QByteArrayList{"one", "same", "same", "two"}));

        // Another tail (as after a restart of the console) goes on where the file ends.
        QVERIFY(fake.run(QStringLiteral("echo three; printf 'half'")));
        QVERIFY(follow("three"));
        QCOMPARE(texts(readLog(path)), (QByteArrayList{"one", "same", "same", "two", "three", "half"}));

        // "half" was written incomplete: the next tail writes the whole line, and nothing else twice.
        QVERIFY(fake.run(QStringLiteral("echo ' and the rest'; echo four")));
        QVERIFY(follow("four"));
        QCOMPARE(texts(readLog(path)),
                 (QByteArrayList{"one", "same", "same", "two", "three", "half", "half and the rest", "four"}));
        QVERIFY(follow("four"));
        QCOMPARE(texts(readLog(path)).size(), 8);
        QCOMPARE(texts(readLog(path), LogLine::Kind::Status), QByteArrayList{});
    }

    void drainsAfterAPauseThenStops()
    {
        Fake fake;
        QVERIFY(fake.up());
        const QString path = newFile();
        ContainerLogTail tail(fake.backend.get(), fake.sandboxId, path);
        tail.setInterval(50ms);
        tail.setDrain(300ms);
        QSignalSpy stopped(&tail, &ContainerLogTail::stopped);
        QSignalSpy problems(&tail, &ContainerLogTail::problem);
        tail.start();
        QVERIFY(fake.run(QStringLiteral("echo before the pause")));
        QTRY_VERIFY_WITH_TIMEOUT(texts(readLog(path)).contains("before the pause"), 10'000);
        const int seen = fake.requests();
        QTRY_VERIFY_WITH_TIMEOUT(fake.requests() >= seen + 8, 10'000);
        QVERIFY(tail.isRunning());
        QVERIFY(!tail.isDraining());
        QCOMPARE(stopped.size(), 0);

        QVERIFY(QCoro::waitFor(fake.backend->pause(fake.sandboxId)));
        const int paused = fake.requests();
        QTRY_COMPARE_WITH_TIMEOUT(stopped.size(), 1, 10'000);
        QVERIFY(!tail.isRunning());
        // It went on reading the log after it saw the pause: at least one more poll.
        QVERIFY2(fake.requests() >= paused + 3, qPrintable(QString::number(fake.requests() - paused)));
        QCOMPARE(problems.size(), 0);
        QCOMPARE(texts(readLog(path)), QByteArrayList{"before the pause"});
        // And then it stopped polling.
        const int after = fake.requests();
        QVERIFY(QCoro::waitFor(fake.backend->get(fake.sandboxId)));
        QCOMPARE(fake.requests(), after + 1);
    }

    void drainsAfterAKillWithoutProblems()
    {
        Fake fake;
        QVERIFY(fake.up());
        const QString path = newFile();
        ContainerLogTail tail(fake.backend.get(), fake.sandboxId, path);
        tail.setInterval(50ms);
        tail.setDrain(300ms);
        QSignalSpy stopped(&tail, &ContainerLogTail::stopped);
        QSignalSpy problems(&tail, &ContainerLogTail::problem);
        tail.start();
        QVERIFY(fake.run(QStringLiteral("echo last words")));
        QTRY_VERIFY_WITH_TIMEOUT(texts(readLog(path)).contains("last words"), 10'000);

        QVERIFY(QCoro::waitFor(fake.backend->kill(fake.sandboxId, {})));
        const int killed = fake.requests();
        QVERIFY(stopped.wait(10'000));
        QCOMPARE(stopped.size(), 1);
        QVERIFY(fake.requests() >= killed + 3);
        // The log of a sandbox that is gone is 404 as well: that is the end, not a problem.
        QCOMPARE(problems.size(), 0);
        QCOMPARE(texts(readLog(path)), QByteArrayList{"last words"});
    }

    void notesLinesLostBetweenPolls()
    {
        Fake fake;
        QVERIFY(fake.up());
        QVERIFY(fake.run(QStringLiteral("echo a; echo b; echo c; echo d; echo e")));
        const QString path = newFile();
        ContainerLogTail tail(fake.backend.get(), fake.sandboxId, path);
        tail.setInterval(50ms);
        tail.setTail(10'000, 3);
        QSignalSpy appended(&tail, &ContainerLogTail::linesAppended);
        tail.start();
        QVERIFY(appended.wait(10'000));
        const int seen = fake.requests();
        QTRY_VERIFY_WITH_TIMEOUT(fake.requests() >= seen + 8, 10'000);
        // The first page had everything; the later ones (3 lines) overlap it.
        QCOMPARE(texts(readLog(path)), (QByteArrayList{"a", "b", "c", "d", "e"}));
        QCOMPARE(texts(readLog(path), LogLine::Kind::Status), QByteArrayList{});

        // Twenty lines at once: the next page of three does not reach back to what we have.
        QVERIFY(
            fake.run(QStringLiteral("/usr/bin/printf 'n%s\\n' 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20")));
        QTRY_VERIFY_WITH_TIMEOUT(texts(readLog(path)).contains("n20"), 10'000);
        const QList<LogLine> lines = readLog(path);
        QCOMPARE(lines.size(), 9);
        QCOMPARE(lines.at(5).kind, LogLine::Kind::Status);
        QVERIFY2(lines.at(5).text.contains("may be missing"), lines.at(5).text.constData());
        QCOMPARE(texts(lines), (QByteArrayList{"a", "b", "c", "d", "e", "n18", "n19", "n20"}));

        // Fewer new lines than a page: no note.
        QVERIFY(fake.run(QStringLiteral("echo x; echo y")));
        QTRY_VERIFY_WITH_TIMEOUT(texts(readLog(path)).contains("y"), 10'000);
        QCOMPARE(texts(readLog(path), LogLine::Kind::Status).size(), 1);
        QCOMPARE(texts(readLog(path)).mid(5), (QByteArrayList{"n18", "n19", "n20", "x", "y"}));
    }

    void failedPollsAreProblemsAndPollingGoesOn()
    {
        Fake fake;
        QVERIFY(fake.up({}, "wrong key"));
        const QString path = newFile();
        ContainerLogTail tail(fake.backend.get(), fake.sandboxId, path);
        tail.setInterval(20ms);
        tail.setDrain(0ms);
        QSignalSpy problems(&tail, &ContainerLogTail::problem);
        QSignalSpy stopped(&tail, &ContainerLogTail::stopped);
        tail.start();
        QTRY_VERIFY_WITH_TIMEOUT(problems.size() >= 3, 10'000);
        const QString message = problems.constFirst().constFirst().toString();
        QVERIFY2(message.contains(fake.sandboxId) && message.contains(QLatin1String("HTTP 401 INVALID_API_KEY"))
                     && message.contains(QLatin1String("(request ")),
                 qPrintable(message));
        QVERIFY(tail.isRunning());
        QVERIFY(!tail.isDraining()); // a state it could not read is no reason to stop
        QCOMPARE(stopped.size(), 0);
        tail.stop();
        QCOMPARE(stopped.size(), 1);
    }

    void pollingGoesOnThroughAServerRestart()
    {
        QTemporaryDir data;
        QVERIFY(data.isValid());
        quint16 port = 0;
        {
            QTcpServer probe;
            QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
            port = probe.serverPort();
        }
        const QStringList arguments{QStringLiteral("--port"), QString::number(port), QStringLiteral("--data-dir"),
                                    data.path()};
        Fake fake;
        QVERIFY(fake.up(arguments));
        QVERIFY(fake.run(QStringLiteral("echo before")));
        const QString path = newFile();
        ContainerLogTail tail(fake.backend.get(), fake.sandboxId, path);
        tail.setInterval(50ms);
        tail.setDrain(300ms);
        QSignalSpy problems(&tail, &ContainerLogTail::problem);
        QSignalSpy recovered(&tail, &ContainerLogTail::recovered);
        QSignalSpy stopped(&tail, &ContainerLogTail::stopped);
        tail.start();
        QTRY_VERIFY_WITH_TIMEOUT(texts(readLog(path)).contains("before"), 10'000);
        QCOMPARE(recovered.size(), 0); // nothing to recover from yet

        // The server goes away: each failed poll says why, and polling goes on.
        fake.server.kill();
        QTRY_VERIFY_WITH_TIMEOUT(problems.size() >= 2, 10'000);
        QVERIFY2(problems.constLast().constFirst().toString().contains(fake.sandboxId),
                 qPrintable(problems.constLast().constFirst().toString()));
        QVERIFY(tail.isRunning());
        QVERIFY(!tail.isDraining());

        // It comes back (same port and data): new lines arrive, and the tail says it recovered.
        QVERIFY2(fake.server.start(QStringList{QStringLiteral("--api-key"), QStringLiteral("secret")} + arguments),
                 qPrintable(fake.server.error()));
        QVERIFY(fake.run(QStringLiteral("echo after")));
        QTRY_VERIFY_WITH_TIMEOUT(texts(readLog(path)).contains("after"), 60'000);
        QTRY_COMPARE_WITH_TIMEOUT(recovered.size(), 1, 10'000);
        const int problemsBefore = int(problems.size());
        QVERIFY(fake.run(QStringLiteral("echo still")));
        QTRY_VERIFY_WITH_TIMEOUT(texts(readLog(path)).contains("still"), 10'000);
        QCOMPARE(problems.size(), problemsBefore);
        QCOMPARE(recovered.size(), 1); // once per recovery, not per poll
        QCOMPARE(texts(readLog(path)).count("before"), 1);
        QCOMPARE(stopped.size(), 0);
        QVERIFY(tail.isRunning());
    }

    void pollsNeverOverlap()
    {
        Fake fake;
        QVERIFY(fake.up({QStringLiteral("--latency-ms"), QStringLiteral("50")}));
        QVERIFY(fake.run(QStringLiteral("echo slow")));
        const QString path = newFile();
        auto tail = std::make_unique<ContainerLogTail>(fake.backend.get(), fake.sandboxId, path);
        tail->setInterval(0ms);
        tail->start();
        const int seen = fake.requests();
        QTRY_VERIFY_WITH_TIMEOUT(fake.requests() >= seen + 10, 10'000);
        // Each answer takes 50 ms and the next poll comes at once: still one request at a time.
        QCOMPARE(fake.server.stats().value(QLatin1String("maxInflight")).toInt(), 1);
        QCOMPARE(texts(readLog(path)), QByteArrayList{"slow"});

        // Destroyed amid requests (one is almost surely on the wire): nothing breaks.
        tail.reset();
        QTRY_COMPARE_WITH_TIMEOUT(fake.server.stats().value(QLatin1String("inflight")).toInt(), 0, 10'000);
        QVERIFY(QCoro::waitFor(fake.backend->get(fake.sandboxId)));
        QCOMPARE(texts(readLog(path)), QByteArrayList{"slow"});
    }

    void mayBeDestroyedWhileAPollIsInFlight()
    {
        PageBackend backend;
        backend.body = "2026-11-30T11:00:00Z never written\n";
        backend.hold = true;
        const QString path = newFile();
        auto tail = std::make_unique<ContainerLogTail>(&backend, QStringLiteral("s"), path);
        tail->setInterval(0ms);
        tail->start();
        QTRY_COMPARE_WITH_TIMEOUT(backend.tails.size(), 1, 10'000);
        tail.reset();
        backend.gate.start(0);
        QTRY_COMPARE_WITH_TIMEOUT(backend.released, 1, 10'000);
        // The poll found its tail gone: it asked for no state and wrote nothing.
        QCOMPARE(backend.gets, 0);
        QCOMPARE(backend.tails.size(), 1);
        QVERIFY(QFile::exists(path));
        QCOMPARE(readLog(path).size(), 0);
    }

    void localBackendHasNoContainerLogs()
    {
        QTemporaryDir basedir;
        QVERIFY(basedir.isValid());
        LocalBackend backend(LocalOptions{basedir.path(), false});
        const QString path = newFile();
        ContainerLogTail tail(&backend, QStringLiteral("ws"), path);
        QSignalSpy problems(&tail, &ContainerLogTail::problem);
        QSignalSpy stopped(&tail, &ContainerLogTail::stopped);
        tail.start();
        QVERIFY(stopped.wait(10'000));
        QCOMPARE(problems.size(), 1);
        QVERIFY2(problems.constFirst().constFirst().toString().contains(
                     QLatin1String("local backend has no container logs")),
                 qPrintable(problems.constFirst().constFirst().toString()));
        QVERIFY(!tail.isRunning());
        QVERIFY(QFile::exists(path));
        QCOMPARE(readLog(path).size(), 0);
        QVERIFY(!stopped.wait(200)); // once
        QCOMPARE(problems.size(), 1);
    }

    void readsTimesAndKeepsLinesWithoutOne()
    {
        PageBackend backend;
        backend.body = "2026-11-30T11:00:00.123456789+02:00 with an offset\n"
                       "no time on this one\n"
                       "2026-11-30T11:00:01Z whole seconds\r\n"
                       "2026-11-30T11:00:02.5Z\n"
                       "2026-13-30T11:00:02.5Z not a date\n";
        const QString path = newFile();
        ContainerLogTail tail(&backend, QStringLiteral("s"), path);
        tail.setInterval(10ms);
        QSignalSpy appended(&tail, &ContainerLogTail::linesAppended);
        const QDateTime before = QDateTime::currentDateTimeUtc().addMSecs(-1);
        tail.start();
        QVERIFY(appended.wait(10'000));
        const QDateTime after = QDateTime::currentDateTimeUtc().addMSecs(1);
        QTRY_VERIFY_WITH_TIMEOUT(backend.tails.size() >= 3, 10'000);
        QCOMPARE(backend.tails.at(0), ContainerLogTail::FirstTail);
        QCOMPARE(backend.tails.at(1), ContainerLogTail::NextTail);

        const QList<LogLine> lines = readLog(path);
        QCOMPARE(texts(lines),
                 (QByteArrayList{"with an offset", "no time on this one", "whole seconds", QByteArray(),
                                 "2026-13-30T11:00:02.5Z not a date"}));
        QCOMPARE(lines.at(0).time, QDateTime(QDate(2026, 11, 30), QTime(9, 0, 0, 123), Qt::UTC));
        QVERIFY(lines.at(1).time >= before && lines.at(1).time <= after);
        QCOMPARE(lines.at(2).time, QDateTime(QDate(2026, 11, 30), QTime(11, 0, 1), Qt::UTC));
        QCOMPARE(lines.at(3).time, QDateTime(QDate(2026, 11, 30), QTime(11, 0, 2, 500), Qt::UTC));
        QVERIFY(lines.at(4).time >= before && lines.at(4).time <= after);
        QCOMPARE(appended.constFirst().constFirst().toInt(), 5);
        QCOMPARE(appended.size(), 1); // the later pages brought nothing new
    }

    void runningAgainCancelsTheDrain()
    {
        PageBackend backend;
        backend.body = "2026-11-30T11:00:00Z hello\n";
        ContainerLogTail tail(&backend, QStringLiteral("s"), newFile());
        tail.setInterval(10ms);
        tail.setDrain(300ms);
        QSignalSpy stopped(&tail, &ContainerLogTail::stopped);
        tail.start();
        QTRY_VERIFY_WITH_TIMEOUT(backend.tails.size() >= 2, 10'000);

        backend.state = SandboxState::Paused;
        QTRY_VERIFY_WITH_TIMEOUT(tail.isDraining(), 10'000);
        backend.state = SandboxState::Running;
        QTRY_VERIFY_WITH_TIMEOUT(!tail.isDraining(), 10'000);
        // Polls keep coming long past the drain (60 polls at 10 ms apart take more than 300 ms).
        const qsizetype polls = backend.tails.size();
        QTRY_VERIFY_WITH_TIMEOUT(backend.tails.size() >= polls + 60, 10'000);
        QVERIFY(tail.isRunning());
        QCOMPARE(stopped.size(), 0);

        // Resuming is on its way to Running: no drain. Failed ends it.
        backend.state = SandboxState::Resuming;
        const qsizetype resuming = backend.tails.size();
        QTRY_VERIFY_WITH_TIMEOUT(backend.tails.size() >= resuming + 5, 10'000);
        QVERIFY(!tail.isDraining());
        backend.state = SandboxState::Failed;
        QVERIFY(stopped.wait(10'000));
        QVERIFY(!tail.isRunning());
    }

    void readsFromASourceOfItsOwn()
    {
        // What a profile's session hands over instead of its backend: two functions. Their
        // tasks hold the poll (a gate) and use what the functions captured after it opens.
        struct Script
        {
            QByteArray body = "2026-11-30T11:00:00Z from the source\n";
            SandboxState state = SandboxState::Running;
            QList<int> tails;
            int states = 0;
            bool hold = false;
            QTimer gate;
        };
        auto script = std::make_shared<Script>();
        script->gate.setSingleShot(true);
        ContainerLogSource source;
        source.logs = [script](QString sandboxId, int tail) -> QCoro::Task<Result<QByteArray>> {
            if (script->hold) {
                script->gate.start(std::chrono::hours(1));
                co_await script->gate;
            }
            script->tails.append(tail);
            if (sandboxId != QLatin1String("s"))
                co_return fail(Error::notFound(sandboxId));
            co_return script->body;
        };
        source.state = [script](QString sandboxId) -> QCoro::Task<Result<SandboxInfo>> {
            ++script->states;
            SandboxInfo info;
            info.sandboxId = sandboxId;
            info.state = script->state;
            co_return info;
        };
        const QString path = newFile();
        auto tail = std::make_unique<ContainerLogTail>(source, QStringLiteral("s"), path);
        source = {}; // the tail keeps its own copy
        tail->setInterval(10ms);
        tail->setDrain(50ms);
        QSignalSpy appended(tail.get(), &ContainerLogTail::linesAppended);
        QSignalSpy stopped(tail.get(), &ContainerLogTail::stopped);
        QSignalSpy problems(tail.get(), &ContainerLogTail::problem);
        tail->start();
        QVERIFY(appended.wait(10'000));
        QCOMPARE(texts(readLog(path)), QByteArrayList{"from the source"});
        QCOMPARE(script->tails.constFirst(), ContainerLogTail::FirstTail);
        QTRY_VERIFY_WITH_TIMEOUT(script->states >= 2, 10'000); // every poll reads the state

        // The sandbox stops: the tail drains, then ends.
        script->state = SandboxState::Paused;
        QVERIFY(stopped.wait(10'000));
        QVERIFY(!tail->isRunning());
        QCOMPARE(problems.size(), 0);
        QCOMPARE(texts(readLog(path)), QByteArrayList{"from the source"});

        // Destroyed while a poll waits in the source: the poll's copy of the functions keeps what
        // they captured, and the answer is written nowhere.
        script->hold = true;
        script->body += "2026-11-30T11:00:01Z never written\n";
        const qsizetype polls = script->tails.size();
        tail->start();
        QTRY_VERIFY_WITH_TIMEOUT(script->gate.isActive(), 10'000);
        tail.reset();
        QVERIFY(script.use_count() > 1); // held by the poll in flight
        script->gate.start(0);
        QTRY_COMPARE_WITH_TIMEOUT(script->tails.size(), polls + 1, 10'000);
        QTRY_COMPARE_WITH_TIMEOUT(script.use_count(), 1, 10'000); // the poll ended and let go
        QCOMPARE(texts(readLog(path)), QByteArrayList{"from the source"});
    }

    void aSourceThatCannotTellTheStatePollsUntilStopped()
    {
        int polls = 0;
        ContainerLogSource source;
        source.logs = [&polls](QString, int) -> QCoro::Task<Result<QByteArray>> {
            ++polls;
            co_return QByteArray("2026-11-30T11:00:00Z only logs\n");
        };
        ContainerLogTail tail(source, QStringLiteral("s"), newFile());
        tail.setInterval(5ms);
        tail.setDrain(0ms);
        QSignalSpy stopped(&tail, &ContainerLogTail::stopped);
        QSignalSpy problems(&tail, &ContainerLogTail::problem);
        tail.start();
        QTRY_VERIFY_WITH_TIMEOUT(polls >= 20, 10'000);
        QVERIFY(tail.isRunning());
        QVERIFY(!tail.isDraining());
        QCOMPARE(stopped.size(), 0);
        QCOMPARE(problems.size(), 0);
        tail.stop();
        QCOMPARE(stopped.size(), 1);
    }

    void aBackendDestroyedFirstEndsTheTail()
    {
        auto backend = std::make_unique<PageBackend>();
        ContainerLogTail tail(backend.get(), QStringLiteral("s"), newFile());
        QSignalSpy stopped(&tail, &ContainerLogTail::stopped);
        QSignalSpy problems(&tail, &ContainerLogTail::problem);
        backend.reset();
        tail.start();
        QVERIFY(stopped.wait(10'000));
        QCOMPARE(problems.size(), 1);
        QCOMPARE(problems.constFirst().constFirst().toString(),
                 QStringLiteral("cannot read the container log of sandbox s: its backend no longer exists"));
        QVERIFY(!tail.isRunning());

        // An empty source says the same.
        ContainerLogTail empty(ContainerLogSource{}, QStringLiteral("s"), newFile());
        QSignalSpy emptyProblems(&empty, &ContainerLogTail::problem);
        QSignalSpy emptyStopped(&empty, &ContainerLogTail::stopped);
        empty.start();
        QVERIFY(emptyStopped.wait(10'000));
        QCOMPARE(emptyProblems.size(), 1);
        QCOMPARE(emptyProblems.constFirst().constFirst().toString(), problems.constFirst().constFirst().toString());
    }

    void goneWithoutDrainStopsAtOnce()
    {
        PageBackend backend;
        backend.gone = true;
        backend.error = Error::notFound(QStringLiteral("HTTP 404 gone"));
        ContainerLogTail tail(&backend, QStringLiteral("s"), newFile());
        tail.setDrain(0ms);
        QSignalSpy stopped(&tail, &ContainerLogTail::stopped);
        QSignalSpy problems(&tail, &ContainerLogTail::problem);
        tail.start();
        QVERIFY(stopped.wait(10'000));
        QCOMPARE(backend.tails.size(), 1);
        QCOMPARE(problems.size(), 0);
    }

    // Streaming ------------------------------------------------------------------------------

    void streamsLinesAsTheyArrive()
    {
        auto script = std::make_shared<StreamScript>();
        script->log = {at(1, "one"), at(2, "two"), at(3, "three")};
        script->piece = 5; // every line cut, some mid-timestamp
        const QString path = newFile();
        ContainerLogTail tail(script->source(script), QStringLiteral("s"), path);
        QVERIFY(tail.isStreaming());
        QSignalSpy appended(&tail, &ContainerLogTail::linesAppended);
        QSignalSpy problems(&tail, &ContainerLogTail::problem);
        tail.start();
        QTRY_COMPARE_WITH_TIMEOUT(texts(readLog(path)), (QByteArrayList{"one", "two", "three"}), 10'000);
        QCOMPARE(script->connections.size(), 1);
        QCOMPARE(script->last()->tail, ContainerLogTail::FirstTail);
        QCOMPARE(readLog(path).at(1).time, QDateTime(QDate(2026, 11, 30), QTime(11, 0, 2), Qt::UTC));

        // A line in two pieces: held until its newline comes, then written at once.
        const qsizetype before = appended.size();
        script->last()->onData(at(4, "fo"));
        QCOMPARE(texts(readLog(path)).size(), 3);
        QCOMPARE(appended.size(), before);
        script->last()->onData(QByteArray("ur\n" + at(5, "five") + "\n"));
        QCOMPARE(texts(readLog(path)), (QByteArrayList{"one", "two", "three", "four", "five"}));
        QCOMPARE(appended.constLast().constFirst().toInt(), 2);
        script->append({at(6, "six")});
        QCOMPARE(texts(readLog(path)).constLast(), QByteArray("six"));

        // Not polled: one connection, and no state asked while it is open.
        QCOMPARE(script->connections.size(), 1);
        QCOMPARE(script->states, 0);
        QCOMPARE(problems.size(), 0);
        QVERIFY(tail.isRunning());
    }

    void reconnectingWhileRunningNeitherRepeatsNorDrops()
    {
        auto script = std::make_shared<StreamScript>();
        // Identical lines with identical times are kept, and met as a sequence.
        script->log = {at(1, "one"), at(2, "same", 5), at(2, "same", 5)};
        script->piece = 7;
        const QString path = newFile();
        ContainerLogTail tail(script->source(script), QStringLiteral("s"), path);
        tail.setInterval(10ms);
        tail.setTail(ContainerLogTail::FirstTail, 4);
        QSignalSpy problems(&tail, &ContainerLogTail::problem);
        QSignalSpy stopped(&tail, &ContainerLogTail::stopped);
        tail.start();
        QTRY_COMPARE_WITH_TIMEOUT(texts(readLog(path)).size(), 3, 10'000);

        // The server ends the stream while the sandbox runs; lines come before it reconnects.
        script->endAll();
        script->log.append({at(2, "same", 5), at(3, "three")});
        QTRY_COMPARE_WITH_TIMEOUT(script->connections.size(), 2, 10'000);
        QCOMPARE(script->last()->tail, 4); // the later tail
        QVERIFY(script->states >= 1); // the end of a stream reads the state
        QCOMPARE(texts(readLog(path)), (QByteArrayList{"one", "same", "same", "same", "three"}));

        // Dropped (an error: a problem, and backing off), then back with what came meanwhile.
        script->endAll(fail(Error::unreachable(QStringLiteral("the connection was dropped"))));
        QTRY_COMPARE_WITH_TIMEOUT(problems.size(), 1, 10'000);
        QVERIFY2(problems.constFirst().constFirst().toString().contains(QLatin1String("the connection was dropped")),
                 qPrintable(problems.constFirst().constFirst().toString()));
        script->log.append(at(4, "four"));
        QTRY_COMPARE_WITH_TIMEOUT(script->connections.size(), 3, 10'000);
        script->append({at(5, "five")});
        QCOMPARE(texts(readLog(path)), (QByteArrayList{"one", "same", "same", "same", "three", "four", "five"}));
        QCOMPARE(texts(readLog(path), LogLine::Kind::Status).size(), 0); // nothing was missing
        QCOMPARE(script->openCount(), 1); // connections never overlap
        QCOMPARE(stopped.size(), 0);
    }

    void aStreamMeetsTheLinesOfAnEarlierTail()
    {
        // What an earlier tail wrote (to the millisecond) is what the next one's stream begins
        // with, to the nanosecond: it is not written again.
        auto script = std::make_shared<StreamScript>();
        script->log = {at(1, "one", 123456789), at(2, "two", 987654321)};
        const QString path = newFile();
        {
            ContainerLogTail earlier(script->source(script), QStringLiteral("s"), path);
            earlier.start();
            QTRY_COMPARE_WITH_TIMEOUT(texts(readLog(path)).size(), 2, 10'000);
            earlier.stop();
        }
        script->log.append(at(2, "two again in the same second", 987700000));
        ContainerLogTail tail(script->source(script), QStringLiteral("s"), path);
        QSignalSpy appended(&tail, &ContainerLogTail::linesAppended);
        tail.start();
        QTRY_COMPARE_WITH_TIMEOUT(script->connections.size(), 2, 10'000);
        // Its lines are no later than the last one written (to the millisecond): held until it
        // is known where the stream meets the file.
        QTRY_VERIFY_WITH_TIMEOUT(script->isOpen(), 10'000);
        QCOMPARE(texts(readLog(path)), (QByteArrayList{"one", "two"}));
        QCOMPARE(appended.size(), 0);
        // A later line: it met after "two"; the line of the same millisecond is new.
        script->append({at(3, "three")});
        QCOMPARE(texts(readLog(path)), (QByteArrayList{"one", "two", "two again in the same second", "three"}));
        QCOMPARE(appended.size(), 1);
        QCOMPARE(appended.constFirst().constFirst().toInt(), 2);
    }

    void aFullStartThatDoesNotMeetSaysLinesMayBeMissing()
    {
        auto script = std::make_shared<StreamScript>();
        script->log = {at(1, "one")};
        const QString path = newFile();
        ContainerLogTail tail(script->source(script), QStringLiteral("s"), path);
        tail.setInterval(10ms);
        tail.setTail(ContainerLogTail::FirstTail, 2);
        tail.start();
        QTRY_COMPARE_WITH_TIMEOUT(texts(readLog(path)).size(), 1, 10'000);
        // Many lines come while it is away, with the times of the first (a clock set back): the
        // stream's first two lines do not meet what was written.
        script->endAll(fail(Error::unreachable(QStringLiteral("dropped"))));
        script->log.append({at(0, "a"), at(0, "b"), at(0, "c"), at(0, "d")});
        QTRY_COMPARE_WITH_TIMEOUT(script->connections.size(), 2, 10'000);
        QTRY_COMPARE_WITH_TIMEOUT(texts(readLog(path)), (QByteArrayList{"one", "c", "d"}), 10'000);
        QCOMPARE(texts(readLog(path), LogLine::Kind::Status).size(), 1);
    }

    void theEndOfAStoppedSandboxDrainsAndStops()
    {
        auto script = std::make_shared<StreamScript>();
        script->log = {at(1, "one")};
        const QString path = newFile();
        ContainerLogTail tail(script->source(script), QStringLiteral("s"), path);
        tail.setInterval(10ms);
        tail.setDrain(100ms);
        QSignalSpy stopped(&tail, &ContainerLogTail::stopped);
        QSignalSpy problems(&tail, &ContainerLogTail::problem);
        tail.start();
        QTRY_COMPARE_WITH_TIMEOUT(texts(readLog(path)).size(), 1, 10'000);
        // The container stops: the stream gives its last line (without a newline) and ends.
        script->partial = at(2, "last words");
        script->last()->onData(script->partial);
        script->state = SandboxState::Paused;
        script->endAll();
        // During the drain each connection gives the last lines (the incomplete one too) and ends
        // at once.
        QTRY_COMPARE_WITH_TIMEOUT(stopped.size(), 1, 10'000);
        QVERIFY(!tail.isRunning());
        QVERIFY(script->connections.size() >= 2);
        QCOMPARE(script->openCount(), 0);
        QCOMPARE(problems.size(), 0);
        // The held line is written at the end, once.
        QCOMPARE(texts(readLog(path)), (QByteArrayList{"one", "last words"}));

        // Gone: the end of the stream (404) is no news, and it stops after the drain.
        script->partial.clear();
        script->state = SandboxState::Running;
        tail.setDrain(0ms);
        tail.start();
        QTRY_VERIFY_WITH_TIMEOUT(script->isOpen(), 10'000);
        script->gone = true;
        script->endAll();
        QTRY_COMPARE_WITH_TIMEOUT(stopped.size(), 2, 10'000);
        QCOMPARE(problems.size(), 0);
        QCOMPARE(texts(readLog(path)), (QByteArrayList{"one", "last words"}));
    }

    void aStoppedSandboxWithoutItsContainerIsNoProblem()
    {
        // A Kubernetes workspace stopped: its Pod is deleted (the log is 404) and its PVC kept
        // (the sandbox reads Paused). The drain's reconnections say nothing of a failure.
        auto script = std::make_shared<StreamScript>();
        script->log = {at(1, "one")};
        const QString path = newFile();
        ContainerLogTail tail(script->source(script), QStringLiteral("s"), path);
        tail.setInterval(10ms);
        tail.setDrain(200ms);
        QSignalSpy stopped(&tail, &ContainerLogTail::stopped);
        QSignalSpy problems(&tail, &ContainerLogTail::problem);
        tail.start();
        QTRY_VERIFY_WITH_TIMEOUT(script->isOpen(), 10'000);
        script->state = SandboxState::Paused;
        script->refuse = Error::notFound(QStringLiteral("HTTP 404 pods \"s\" not found"));
        script->endAll();
        QTRY_COMPARE_WITH_TIMEOUT(stopped.size(), 1, 10'000);
        QVERIFY(script->connections.size() >= 2); // it did try again during the drain
        QCOMPARE(problems.size(), 0);
        QCOMPARE(texts(readLog(path)), (QByteArrayList{"one"}));
    }

    void theDrainsEndCancelsAStreamStillOpen()
    {
        auto script = std::make_shared<StreamScript>();
        script->log = {at(1, "one")};
        script->keepOpen = true; // a server that keeps the stream of a stopped container open
        ContainerLogTail tail(script->source(script), QStringLiteral("s"), newFile());
        tail.setInterval(10ms);
        tail.setDrain(100ms);
        QSignalSpy stopped(&tail, &ContainerLogTail::stopped);
        QSignalSpy problems(&tail, &ContainerLogTail::problem);
        tail.start();
        QTRY_VERIFY_WITH_TIMEOUT(script->isOpen(), 10'000);
        script->state = SandboxState::Paused;
        script->endAll();
        QTRY_COMPARE_WITH_TIMEOUT(stopped.size(), 1, 10'000);
        QCOMPARE(script->connections.size(), 2); // open until the drain ended
        QVERIFY(script->last()->cancel->isCancelled());
        QCOMPARE(script->openCount(), 0);
        QCOMPARE(problems.size(), 0);
        QVERIFY(!tail.isRunning());
    }

    void stopCancelsTheStream()
    {
        auto script = std::make_shared<StreamScript>();
        script->log = {at(1, "one")};
        const QString path = newFile();
        ContainerLogTail tail(script->source(script), QStringLiteral("s"), path);
        QSignalSpy stopped(&tail, &ContainerLogTail::stopped);
        QSignalSpy problems(&tail, &ContainerLogTail::problem);
        tail.start();
        QTRY_VERIFY_WITH_TIMEOUT(script->isOpen(), 10'000);
        script->last()->onData(at(2, "incomplete"));
        const auto first = script->last();
        tail.stop();
        QCOMPARE(stopped.size(), 1);
        QVERIFY(first->cancel->isCancelled());
        // The held line is written as it is.
        QCOMPARE(texts(readLog(path)), (QByteArrayList{"one", "incomplete"}));
        // What the server still sends goes nowhere.
        first->onData(QByteArray("\n" + at(3, "after the stop") + "\n"));
        QCOMPARE(texts(readLog(path)).size(), 2);

        // Started again before the old stream ended: the new one waits for it (never two).
        tail.start();
        QTRY_VERIFY_WITH_TIMEOUT(first->end.isSet(), 10'000); // the server saw the token
        QTRY_COMPARE_WITH_TIMEOUT(script->connections.size(), 2, 10'000);
        QCOMPARE(script->openCount(), 1);
        QCOMPARE(script->last()->tail, ContainerLogTail::FirstTail);
        QCOMPARE(problems.size(), 0); // a stream cancelled by stop() is no problem
        QCOMPARE(stopped.size(), 1);
        tail.stop();
    }

    void mayBeDestroyedWhileStreaming()
    {
        auto script = std::make_shared<StreamScript>();
        script->log = {at(1, "one")};
        const QString path = newFile();
        auto tail = std::make_unique<ContainerLogTail>(script->source(script), QStringLiteral("s"), path);
        tail->start();
        QTRY_VERIFY_WITH_TIMEOUT(script->isOpen(), 10'000);
        QTRY_COMPARE_WITH_TIMEOUT(texts(readLog(path)).size(), 1, 10'000);
        const auto connection = script->last();
        tail.reset();
        QVERIFY(connection->cancel->isCancelled());
        connection->onData(QByteArray(at(2, "never written") + "\n"));
        QTRY_VERIFY_WITH_TIMEOUT(connection->end.isSet(), 10'000);
        QTest::qWait(0);
        QCOMPARE(texts(readLog(path)), QByteArrayList{"one"});
        QCOMPARE(script->connections.size(), 1);
        QCOMPARE(script->states, 0); // the ended stream found its tail gone
        QCOMPARE(script.use_count(), 1); // and let go of its source
    }

    void aFailingStreamBacksOffThenRecovers()
    {
        auto script = std::make_shared<StreamScript>();
        script->log = {at(1, "one")};
        script->refuse = Error::unreachable(QStringLiteral("connection refused"));
        const QString path = newFile();
        ContainerLogTail tail(script->source(script), QStringLiteral("s"), path);
        tail.setInterval(20ms);
        QSignalSpy problems(&tail, &ContainerLogTail::problem);
        QSignalSpy recovered(&tail, &ContainerLogTail::recovered);
        QSignalSpy stopped(&tail, &ContainerLogTail::stopped);
        tail.start();
        QTRY_VERIFY_WITH_TIMEOUT(problems.size() >= 4, 10'000);
        const QString message = problems.constFirst().constFirst().toString();
        QCOMPARE(message, QStringLiteral("cannot read the container log of sandbox s: connection refused"));
        // Each failure doubles the wait: 40, 80, 160 ms (coarse timers may be a little early).
        for (int i = 1; i < 4; ++i) {
            const qint64 gap = script->connections.at(i)->startedMs - script->connections.at(i - 1)->startedMs;
            QVERIFY2(gap >= (20 << i) * 9 / 10, qPrintable(QStringLiteral("gap %1: %2 ms").arg(i).arg(gap)));
        }
        QCOMPARE(recovered.size(), 0);
        QVERIFY(tail.isRunning());

        // It works again: the first data says so, once.
        script->refuse.reset();
        QVERIFY(recovered.wait(10'000));
        QTRY_COMPARE_WITH_TIMEOUT(texts(readLog(path)), QByteArrayList{"one"}, 10'000);
        const qsizetype failures = problems.size();
        script->append({at(2, "two")});
        QCOMPARE(texts(readLog(path)), (QByteArrayList{"one", "two"}));
        QCOMPARE(recovered.size(), 1);
        QCOMPARE(problems.size(), failures);
        QCOMPARE(stopped.size(), 0);
        QCOMPARE(script->openCount(), 1);
    }

    void aStreamCancelledByItsSourceEndsTheTail()
    {
        // The profile was closed (Cancelled), or the source cannot follow (Unsupported).
        for (const Error &error : {Error{Error::Kind::Cancelled, QStringLiteral("not done: the profile p was closed")},
                                   Error::unsupported(QStringLiteral("its backend no longer exists"))}) {
            auto script = std::make_shared<StreamScript>();
            script->refuse = error;
            ContainerLogTail tail(script->source(script), QStringLiteral("s"), newFile());
            tail.setInterval(10ms);
            QSignalSpy problems(&tail, &ContainerLogTail::problem);
            QSignalSpy stopped(&tail, &ContainerLogTail::stopped);
            tail.start();
            QVERIFY(stopped.wait(10'000));
            QCOMPARE(problems.size(), 1);
            QCOMPARE(problems.constFirst().constFirst().toString(),
                     QStringLiteral("cannot read the container log of sandbox s: ") + error.message);
            QVERIFY(!tail.isRunning());
            QVERIFY(!stopped.wait(100));
            QCOMPARE(script->connections.size(), 1);
            QCOMPARE(script->states, 0);
        }
    }

    void aBackendThatStreamsIsFollowed()
    {
        // ContainerLogSource::of() follows only a backend with Capability::ContainerLogStream.
        PageBackend pages;
        QVERIFY(!ContainerLogSource::of(&pages).follow);
        ContainerLogTail polled(&pages, QStringLiteral("s"), newFile());
        QVERIFY(!polled.isStreaming());
    }

    // End to end: a Kubernetes profile's session over paddock-fake-kubernetes. The log is one
    // followed GET (pods/log?follow=true): lines the fake appends arrive within it; closing the
    // profile ends the stream and the tail.
    void followsAKubernetesPodThroughItsSession()
    {
        PaddockTest::FakeKubernetesProcess fake;
        QVERIFY2(fake.start({QStringLiteral("--pod-start-ms"), QStringLiteral("100")}), qPrintable(fake.error()));
        const auto post = [&fake](const QString &path, const QJsonObject &body) {
            QNetworkAccessManager network;
            QNetworkRequest request = fake.request(path);
            request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
            std::unique_ptr<QNetworkReply> reply(
                network.post(request, QJsonDocument(body).toJson(QJsonDocument::Compact)));
            QSignalSpy finished(reply.get(), &QNetworkReply::finished);
            if (!reply->isFinished())
                finished.wait(30'000);
            return reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        };
        const QString pod = QStringLiteral("as-ws-tail");
        QCOMPARE(post(QStringLiteral("/api/v1/namespaces/agentscope/persistentvolumeclaims"),
                      agentscopeObject(QStringLiteral("pvc"), pod)),
                 201);
        QCOMPARE(
            post(QStringLiteral("/api/v1/namespaces/agentscope/pods"), agentscopeObject(QStringLiteral("pod"), pod)),
            201);
        const QString logRoute = QStringLiteral("/_fake/pods/agentscope/%1/log").arg(pod);

        Profile profile = Profile::local();
        profile.id = QStringLiteral("k8s");
        profile.name = QStringLiteral("Kubernetes");
        profile.kind = Profile::Kind::Kubernetes;
        profile.kubeconfig = fake.kubeconfigPath();
        profile.kubeContext = QStringLiteral("paddock-fake");
        profile.kubeNamespace = QStringLiteral("agentscope");
        BootstrapLogStore logs(m_dir.filePath(QStringLiteral("bootstrap-k8s")));
        ProfileSession session(profile, {}, &logs);
        const auto shut = qScopeGuard([&session] {
            if (!session.isShutDown())
                QCoro::waitFor(session.shutdown());
        });
        QVERIFY(session.can(Capability::ContainerLogStream));
        QTRY_VERIFY_WITH_TIMEOUT(
            QCoro::waitFor(session.get(pod)).value_or(SandboxInfo{}).state == SandboxState::Running, 20'000);
        fake.control("POST", logRoute, "before the tail\n");

        fake.control("POST", QStringLiteral("/_fake/reset-stats"));
        const QString path = newFile();
        ContainerLogTail tail(session.containerLogSource(), pod, path);
        QVERIFY(tail.isStreaming());
        QSignalSpy problems(&tail, &ContainerLogTail::problem);
        QSignalSpy stopped(&tail, &ContainerLogTail::stopped);
        tail.start();
        QTRY_COMPARE_WITH_TIMEOUT(texts(readLog(path)), QByteArrayList{"before the tail"}, 10'000);
        QByteArrayList expected{"before the tail"};
        for (int i = 1; i <= 5; ++i) {
            const QByteArray line = "appended " + QByteArray::number(i);
            fake.control("POST", logRoute, line + '\n');
            expected.append(line);
            QTRY_COMPARE_WITH_TIMEOUT(texts(readLog(path)), expected, 10'000);
        }
        // One followed GET brought them all; no state was read (nothing polls).
        const QJsonObject byVerb = fake.stats().value(QLatin1String("byVerb")).toObject();
        QCOMPARE(byVerb.value(QLatin1String("get pods/log")).toInt(), 1);
        QCOMPARE(byVerb.value(QLatin1String("get pods")).toInt(), 0);
        QCOMPARE(problems.size(), 0);

        // Closing the profile ends the stream (its shutdown does not wait for the container) and
        // the tail, which says why.
        QCoro::waitFor(session.shutdown());
        QVERIFY(stopped.size() == 1 || stopped.wait(10'000));
        QCOMPARE(problems.size(), 1);
        QVERIFY2(problems.constFirst().constFirst().toString().contains(QLatin1String("was closed")),
                 qPrintable(problems.constFirst().constFirst().toString()));
        QCOMPARE(texts(readLog(path)), expected);
    }
};

QTEST_GUILESS_MAIN(TestContainerLogTail)
#include "tst_containerlogtail.moc"
