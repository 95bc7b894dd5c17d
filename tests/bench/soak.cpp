// paddock-soak: the real core (a ProfileSession per backend, as the console and paddockctl make
// them) driven for a while against a fake server that fails on purpose: a share of its requests
// answered 502/503/504 (429 on E2B; 429/500/503 on Kubernetes) or dropped, some after the work
// was done, a period of slow answers, and the server killed (SIGKILL) and started again on the
// same ports and data folder.
// Then, with the faults off, it counts what must never happen and prints, per backend:
//   operations tried, succeeded, retried (HTTP attempts beyond the first), failed, with reasons;
//   duplicate sandboxes (two for one workspace id); orphans (a running sandbox the session does
//   not hold, unless a pause or kill of it failed and said so: those are listed apart);
//   bootstrap-log lines lost; every failure explained (it names the workspace and what
//   went wrong, with the server's request id where it gave one, or says no answer came);
//   resident memory at start and end.
// With --assert it exits 1 when any of the counts that must be zero is not.

#include "backend.h"
#include "benchsupport.h"
#include "bootstraplog.h"
#include "fakee2bprocess.h"
#include "fakekubernetesprocess.h"
#include "fakeopensandboxprocess.h"
#include "privatedocker.h"
#include "profile.h"
#include "profilesession.h"
#include "workspace.h"

#include <QCoroTask>
#include <QCoroTimer>

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QHash>
#include <QLoggingCategory>
#include <QMap>
#include <QRandomGenerator>
#include <QSet>
#include <QTcpServer>
#include <QTemporaryDir>

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

using namespace Paddock;
using namespace std::chrono_literals;

namespace {

constexpr int BootstrapLines = 20;

// The HTTP layer says each retry in paddock.core.http ("... attempt N failed (...); retrying in
// M ms"): counted here, everything else of the core's logging kept quiet.
int g_retries = 0;
QtMessageHandler g_previousHandler = nullptr;

void countRetries(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    if (qstrcmp(context.category, "paddock.core.http") == 0) {
        if (message.contains(QLatin1String("retrying in")))
            ++g_retries;
        return;
    }
    if (type >= QtCriticalMsg && g_previousHandler)
        g_previousHandler(type, context, message);
}

struct Settings
{
    int workspaces = 50;
    int durationS = 60;
    double failRate = 0.3;
    int restarts = 2;
    int concurrency = 8;
    int spikeMs = 400;
    quint32 seed = 1;
};

int freePort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort();
}

// One fake server that can be killed and started again on the same ports and data folder.
class Server
{
public:
    virtual ~Server() = default;
    virtual QString name() const = 0;
    // Starts it (again) with these faults; false with why in error().
    virtual bool start(double failRate, int latencyMs, quint32 seed) = 0;
    virtual void kill() = 0;
    // Whether its sandboxes survive a restart (a state file in its data folder).
    virtual bool keepsState() const = 0;
    // Whether its error answers carry a request id (X-Request-ID) a message can name.
    virtual bool givesRequestIds() const = 0;
    // Whether it fails on purpose (a fake); a real engine or no server at all does not.
    virtual bool injectsFaults() const { return true; }
    virtual Profile profile(const QString &bootstrapFile) const = 0;
    virtual QByteArray key() const = 0;
    QString error;
};

class OpenSandboxServer final : public Server
{
public:
    OpenSandboxServer()
        : m_port(freePort())
        , m_execdPort(freePort())
    {
    }
    QString name() const override { return QStringLiteral("opensandbox"); }
    bool start(double failRate, int latencyMs, quint32 seed) override
    {
        m_process = std::make_unique<PaddockTest::FakeOpenSandboxProcess>();
        const bool started =
            m_process->start({QStringLiteral("--port"), QString::number(m_port), QStringLiteral("--execd-port"),
                              QString::number(m_execdPort), QStringLiteral("--data-dir"), m_data.path(),
                              QStringLiteral("--api-key"), QString::fromLatin1(key()), QStringLiteral("--fail-rate"),
                              QString::number(failRate), QStringLiteral("--fail-seed"), QString::number(seed),
                              QStringLiteral("--latency-ms"), QString::number(latencyMs)});
        if (!started)
            error = m_process->error();
        return started;
    }
    void kill() override { m_process->kill(); }
    bool keepsState() const override { return true; }
    bool givesRequestIds() const override { return true; }
    Profile profile(const QString &bootstrapFile) const override
    {
        Profile profile;
        profile.id = QStringLiteral("soak-opensandbox");
        profile.name = profile.id;
        profile.kind = Profile::Kind::OpenSandbox;
        profile.domain = QStringLiteral("127.0.0.1:%1").arg(m_port);
        profile.bootstrapFile = bootstrapFile;
        profile.refreshInterval = 0s;
        return profile;
    }
    QByteArray key() const override { return QByteArrayLiteral("soak-opensandbox-key"); }

private:
    int m_port;
    int m_execdPort;
    QTemporaryDir m_data;
    std::unique_ptr<PaddockTest::FakeOpenSandboxProcess> m_process;
};

class E2bServer final : public Server
{
public:
    E2bServer()
        : m_port(freePort())
    {
    }
    QString name() const override { return QStringLiteral("e2b"); }
    bool start(double failRate, int latencyMs, quint32 seed) override
    {
        m_process = std::make_unique<PaddockTest::FakeE2bProcess>();
        const bool started =
            m_process->start({QStringLiteral("--port"), QString::number(m_port), QStringLiteral("--data-dir"),
                              m_data.path(), QStringLiteral("--api-key"), QString::fromLatin1(key()),
                              QStringLiteral("--fail-rate"), QString::number(failRate), QStringLiteral("--fail-seed"),
                              QString::number(seed), QStringLiteral("--latency-ms"), QString::number(latencyMs)});
        if (!started) {
            error = m_process->error();
        } else if (m_apiUrl.isEmpty()) {
            m_apiUrl = m_process->apiUrl().toString();
            m_envdUrl = m_process->envdUrl().toString();
        }
        return started;
    }
    void kill() override { m_process->kill(); }
    bool keepsState() const override { return true; }
    bool givesRequestIds() const override { return false; }
    Profile profile(const QString &bootstrapFile) const override
    {
        Profile profile;
        profile.id = QStringLiteral("soak-e2b");
        profile.name = profile.id;
        profile.kind = Profile::Kind::E2B;
        profile.apiUrl = m_apiUrl;
        profile.sandboxUrl = m_envdUrl;
        profile.bootstrapFile = bootstrapFile;
        profile.refreshInterval = 0s;
        return profile;
    }
    QByteArray key() const override { return QByteArrayLiteral("e2b_50a4c0ffee0123456789abcdef"); }

private:
    int m_port;
    QTemporaryDir m_data;
    QString m_apiUrl;
    QString m_envdUrl;
    std::unique_ptr<PaddockTest::FakeE2bProcess> m_process;
};

// paddock-fake-kubernetes keeps its objects in <data-dir>/state.json and its CA in <data-dir>/tls,
// so the kubeconfig written at the first start (one path: one FakeKubernetesProcess) stays good.
class KubernetesServer final : public Server
{
public:
    KubernetesServer()
        : m_port(freePort())
    {
    }
    QString name() const override { return QStringLiteral("kubernetes"); }
    bool start(double failRate, int latencyMs, quint32 seed) override
    {
        const bool started = m_process.start(
            {QStringLiteral("--port"), QString::number(m_port), QStringLiteral("--data-dir"), m_data.path(),
             QStringLiteral("--fail-rate"), QString::number(failRate), QStringLiteral("--fail-seed"),
             QString::number(seed), QStringLiteral("--latency-ms"), QString::number(latencyMs)});
        if (!started)
            error = m_process.error();
        return started;
    }
    void kill() override { m_process.kill(); }
    bool keepsState() const override { return true; }
    bool givesRequestIds() const override { return false; }
    Profile profile(const QString &bootstrapFile) const override
    {
        Profile profile;
        profile.id = QStringLiteral("soak-kubernetes");
        profile.name = profile.id;
        profile.kind = Profile::Kind::Kubernetes;
        profile.kubeconfig = m_process.kubeconfigPath();
        profile.kubeContext = QStringLiteral("paddock-fake");
        profile.kubeNamespace = QStringLiteral("agentscope");
        profile.bootstrapFile = bootstrapFile;
        profile.refreshInterval = 0s;
        return profile;
    }
    QByteArray key() const override { return {}; }

private:
    int m_port;
    QTemporaryDir m_data;
    PaddockTest::FakeKubernetesProcess m_process;
};

// A real, private Docker engine: no faults are injected into it (the failures are the engine's
// own), and it is not restarted.
class DockerServer final : public Server
{
public:
    QString name() const override { return QStringLiteral("docker"); }
    bool start(double, int, quint32) override
    {
        if (!m_started) {
            if (!m_engine.start()) {
                error = m_engine.error();
                return false;
            }
            m_image = m_engine.busyboxImage();
            if (m_image.isEmpty()) {
                error = m_engine.error();
                return false;
            }
            m_started = true;
        }
        return true;
    }
    void kill() override { }
    bool keepsState() const override { return false; }
    bool givesRequestIds() const override { return false; }
    bool injectsFaults() const override { return false; }
    Profile profile(const QString &bootstrapFile) const override
    {
        Profile profile;
        profile.id = QStringLiteral("soak-docker");
        profile.name = profile.id;
        profile.kind = Profile::Kind::Docker;
        profile.dockerHost = m_engine.dockerHost();
        profile.image = m_image;
        profile.bootstrapFile = bootstrapFile;
        profile.refreshInterval = 0s;
        return profile;
    }
    QByteArray key() const override { return {}; }

private:
    PaddockTest::PrivateDockerEngine m_engine;
    QString m_image;
    bool m_started = false;
};

// The local backend: folders on this machine, no server to fail.
class LocalServer final : public Server
{
public:
    QString name() const override { return QStringLiteral("local"); }
    bool start(double, int, quint32) override { return m_base.isValid(); }
    void kill() override { }
    bool keepsState() const override { return false; }
    bool givesRequestIds() const override { return false; }
    bool injectsFaults() const override { return false; }
    Profile profile(const QString &bootstrapFile) const override
    {
        Profile profile = Profile::local();
        profile.id = QStringLiteral("soak-local");
        profile.name = profile.id;
        profile.basedir = m_base.path();
        profile.bootstrapFile = bootstrapFile;
        profile.refreshInterval = 0s;
        return profile;
    }
    QByteArray key() const override { return {}; }

private:
    QTemporaryDir m_base;
};

struct OpCount
{
    int tried = 0;
    int succeeded = 0;
    int failed = 0;
};

struct Tally
{
    QMap<QString, OpCount> ops; // operation -> counts
    QMap<QString, int> reasons; // a failure's reason, shortened -> how many
    QStringList unexplained; // failures whose message does not say what happened
};

// What the message of a failure must say: the operation and the workspace (as paddockctl and
// the console put them before the core's message), and what went wrong: an HTTP status with the
// server's request id where the server gives one (OpenSandbox does, E2B does not), that no answer
// came or the connection was lost, or a command's exit.
bool explained(const QString &message, bool serverGivesRequestIds)
{
    if (message.contains(QLatin1String("HTTP ")))
        return !serverGivesRequestIds || message.contains(QLatin1String("(request "));
    return message.contains(QLatin1String("failed:")) || message.contains(QLatin1String("exit"))
        || message.contains(QLatin1String("no answer")) || message.contains(QLatin1String("connection"))
        || message.contains(QLatin1String("closed")) || message.contains(QLatin1String("refused"));
}

// The reason of a failure without what differs from one to the next (ids, times).
QString reasonOf(const QString &message)
{
    QString reason = message;
    static const QRegularExpression ids(
        QStringLiteral(R"([0-9a-f]{8}-[0-9a-f-]{27,}|\b[0-9a-f]{16}\b|\b[a-z0-9]{20,21}\b)"));
    reason.replace(ids, QStringLiteral("<id>"));
    static const QRegularExpression request(QStringLiteral(R"(\(request [^)]*\))"));
    reason.replace(request, QStringLiteral("(request <id>)"));
    static const QRegularExpression port(QStringLiteral(R"(127\.0\.0\.1:\d+)"));
    reason.replace(port, QStringLiteral("127.0.0.1:<port>"));
    return reason.left(160);
}

class Soak
{
public:
    Soak(Server *server, Settings settings, QString logRoot, QString bootstrapFile)
        : m_server(server)
        , m_settings(settings)
        , m_logs(std::move(logRoot))
        , m_bootstrapFile(std::move(bootstrapFile))
        , m_rng(settings.seed)
    {
    }

    QCoro::Task<int> run(bool assertZero)
    {
        const double rssStart = PaddockBench::residentMiB();
        if (!m_server->start(m_settings.failRate, 0, m_settings.seed)) {
            std::fprintf(stderr, "cannot start the %s fake: %s\n", qPrintable(m_server->name()),
                         qPrintable(m_server->error));
            co_return 2;
        }
        m_session = std::make_unique<ProfileSession>(m_server->profile(m_bootstrapFile), m_server->key(), &m_logs);
        QElapsedTimer clock;
        clock.start();
        const qint64 total = qint64(m_settings.durationS) * 1000;
        m_deadline = total;
        m_clock = &clock;

        // The workers, and the faults on a schedule: restarts (when the fake keeps its state)
        // evenly spread, and a period of slow answers between the first two.
        for (int i = 0; i < m_settings.concurrency; ++i)
            m_workers.push_back(worker());
        const int restarts = m_server->keepsState() ? m_settings.restarts : 0;
        int latency = 0;
        for (int r = 1; r <= restarts; ++r) {
            const qint64 at = total * r / (restarts + 1);
            while (clock.elapsed() < at)
                co_await QCoro::sleepFor(50ms);
            m_server->kill();
            // Down for a moment, as a crashed server is before its supervisor starts it again.
            co_await QCoro::sleepFor(300ms);
            latency = (r == 1) ? m_settings.spikeMs : 0;
            if (!m_server->start(m_settings.failRate, latency, m_settings.seed + quint32(r))) {
                std::fprintf(stderr, "cannot restart the %s fake: %s\n", qPrintable(m_server->name()),
                             qPrintable(m_server->error));
                co_return 2;
            }
            ++m_restarted;
        }
        for (QCoro::Task<> &task : m_workers)
            co_await task;

        // With the faults off, on the same state: what must never happen.
        const QHash<QString, QString> held = heldSandboxes();
        if (m_server->keepsState()) {
            m_server->kill();
            if (!m_server->start(0, 0, m_settings.seed)) {
                std::fprintf(stderr, "cannot restart the %s fake: %s\n", qPrintable(m_server->name()),
                             qPrintable(m_server->error));
                co_return 2;
            }
        } else {
            // Faults cannot be turned off without a restart that would lose its sandboxes: the
            // final listing is tried until it gets through.
        }
        Result<QList<SandboxInfo>> all = fail(Error{});
        for (int attempt = 0; attempt < 50 && !all; ++attempt)
            all = co_await m_session->list({});
        if (!all) {
            std::fprintf(stderr, "cannot list the sandboxes at the end: %s\n", qPrintable(all.error().message));
            co_return 2;
        }
        QHash<QString, int> live; // workspace id -> sandboxes that are not gone
        int orphans = 0;
        QStringList orphanIds;
        QStringList leftRunning; // by a failed pause or kill, which its caller was told
        for (const SandboxInfo &sandbox : std::as_const(*all)) {
            if (sandbox.state == SandboxState::Terminated || sandbox.state == SandboxState::Failed)
                continue;
            ++live[sandbox.workspaceId];
            if (sandbox.state == SandboxState::Running && held.value(sandbox.workspaceId) != sandbox.sandboxId) {
                // A pause or kill that failed after all its retries left its sandbox running and
                // said so to its caller (and the manager reports closeFailed): counted apart, as
                // no sandbox nobody knows of. A later open would hold it again; one that failed
                // near the end has none.
                const QString last = m_lastOp.value(sandbox.workspaceId, QStringLiteral("none"));
                const QString shown = sandbox.workspaceId + u'/' + sandbox.sandboxId;
                if (last == QLatin1String("pause failed") || last == QLatin1String("kill failed")) {
                    leftRunning.append(shown);
                } else {
                    ++orphans;
                    orphanIds.append(shown + QStringLiteral(" (last: ") + last + u')');
                }
            }
        }
        int duplicates = 0;
        for (auto it = live.cbegin(); it != live.cend(); ++it)
            duplicates += it.value() - 1;
        const int lost = lostLines();
        const double rssEnd = PaddockBench::residentMiB();
        co_await m_session->shutdown(WorkspaceManager::StopMode::LeaveRunning);

        if (m_server->injectsFaults()) {
            std::printf("%s: %d workspaces, %d s, %.0f%% of requests failed on purpose, %d restart(s), a %d ms "
                        "latency period\n",
                        qPrintable(m_server->name()), m_settings.workspaces, m_settings.durationS,
                        m_settings.failRate * 100, m_restarted, restarts > 0 ? m_settings.spikeMs : 0);
        } else {
            std::printf("%s: %d workspaces, %d s, no faults injected (no fake in front of it)\n",
                        qPrintable(m_server->name()), m_settings.workspaces, m_settings.durationS);
        }
        std::printf("  %-8s %8s %10s %8s\n", "op", "tried", "succeeded", "failed");
        for (auto it = m_tally.ops.cbegin(); it != m_tally.ops.cend(); ++it)
            std::printf("  %-8s %8d %10d %8d\n", qPrintable(it.key()), it->tried, it->succeeded, it->failed);
        std::printf("  HTTP requests retried         %d\n", g_retries - m_retriesBefore);
        for (auto it = m_tally.reasons.cbegin(); it != m_tally.reasons.cend(); ++it)
            std::printf("  failed %4d x %s\n", it.value(), qPrintable(it.key()));
        std::printf("  duplicate sandboxes           %d  [0]\n", duplicates);
        std::printf("  orphaned running sandboxes    %d  [0]%s%s\n", orphans, orphans ? " " : "",
                    qPrintable(orphanIds.join(u' ')));
        if (!leftRunning.isEmpty()) {
            std::printf("  left running by a failed pause or kill, reported: %lld %s\n", qlonglong(leftRunning.size()),
                        qPrintable(leftRunning.join(u' ')));
        }
        std::printf("  bootstrap-log lines lost      %d  [0] (of %d bootstrap runs checked)\n", lost, m_runsChecked);
        std::printf("  failures not explained        %lld  [0]\n", qlonglong(m_tally.unexplained.size()));
        for (const QString &message : std::as_const(m_tally.unexplained))
            std::printf("    %s\n", qPrintable(message));
        std::printf("  resident memory               %.1f MiB at start, %.1f MiB at end\n", rssStart, rssEnd);
        std::fflush(stdout);
        const bool clean = duplicates == 0 && orphans == 0 && lost == 0 && m_tally.unexplained.isEmpty();
        co_return (assertZero && !clean) ? 1 : 0;
    }

private:
    QString workspaceId(int index) const
    {
        WorkspaceRequest request{QStringLiteral("soak-user-%1").arg(index), QStringLiteral("soak-agent"), {}, {}};
        return m_session->resolveWorkspaceId(request).value_or(QString());
    }

    void record(const QString &op, const QString &workspace, const Result<> &result)
    {
        if (!workspace.isEmpty())
            m_lastOp.insert(workspace, result ? op : op + QStringLiteral(" failed"));
        OpCount &count = m_tally.ops[op];
        ++count.tried;
        if (result) {
            ++count.succeeded;
            return;
        }
        ++count.failed;
        const QString message = result.error().message;
        ++m_tally.reasons[op + QStringLiteral(": ") + reasonOf(message)];
        // The operation and the workspace go before the core's message, as paddockctl and the
        // console show it ("cannot open workspace X: ...", or on the workspace's row).
        const QString shown = workspace.isEmpty()
            ? QStringLiteral("cannot %1: %2").arg(op, message)
            : QStringLiteral("cannot %1 workspace %2: %3").arg(op, workspace, message);
        if (message.isEmpty() || !explained(message, m_server->givesRequestIds()))
            m_tally.unexplained.append(shown);
    }

    QCoro::Task<> worker()
    {
        while (m_clock->elapsed() < m_deadline) {
            int index = -1;
            for (int tries = 0; tries < 8 && index < 0; ++tries) {
                const int candidate = int(m_rng.bounded(m_settings.workspaces));
                if (!m_busy.contains(candidate))
                    index = candidate;
            }
            if (index < 0) {
                co_await QCoro::sleepFor(20ms);
                continue;
            }
            m_busy.insert(index);
            const QString id = workspaceId(index);
            const WorkspacePtr cached = m_session->cached(id);
            const quint32 dice = m_rng.bounded(100);
            if (!cached || dice < 30) {
                WorkspaceRequest request{
                    QStringLiteral("soak-user-%1").arg(index), QStringLiteral("soak-agent"), {}, {}};
                auto opened = co_await m_session->open(request);
                record(QStringLiteral("open"), id, opened ? Result<>{} : Result<>(fail(opened.error())));
            } else if (dice < 35) {
                // Now and then a workspace is killed: its next open makes a new sandbox and runs
                // the bootstrap again, so bootstraps go on throughout the run (and restarts cut
                // some short).
                const SandboxInfo sandbox = static_cast<const SandboxWorkspace *>(cached.get())->sandbox();
                auto killed = co_await m_session->kill(sandbox);
                record(QStringLiteral("kill"), id, killed);
            } else if (dice < 60) {
                const SandboxInfo sandbox = static_cast<const SandboxWorkspace *>(cached.get())->sandbox();
                auto paused = co_await m_session->pause(sandbox);
                record(QStringLiteral("pause"), id, paused);
            } else if (dice < 80 && m_session->can(Capability::Renew)) {
                const SandboxInfo sandbox = static_cast<const SandboxWorkspace *>(cached.get())->sandbox();
                RenewRequest renewal;
                renewal.amount = 3600s;
                auto renewed = co_await m_session->renew(sandbox, renewal);
                record(QStringLiteral("renew"), id, renewed ? Result<>{} : Result<>(fail(renewed.error())));
            } else {
                auto listed = co_await m_session->list({});
                record(QStringLiteral("list"), QString(),
                       listed ? Result<>{}
                              : Result<>(fail(
                                  Error{listed.error().kind, QStringLiteral("the list: ") + listed.error().message})));
            }
            m_busy.remove(index);
        }
    }

    // The sandbox each workspace the session holds is open on.
    QHash<QString, QString> heldSandboxes() const
    {
        QHash<QString, QString> held;
        for (int i = 0; i < m_settings.workspaces; ++i) {
            const QString id = workspaceId(i);
            if (const WorkspacePtr cached = m_session->cached(id))
                held.insert(id, static_cast<const SandboxWorkspace *>(cached.get())->sandbox().sandboxId);
        }
        return held;
    }

    // Each run of the bootstrap command in a log is followed by its lines in order, none missing
    // (a run cut short by a restart has the first ones); a run that completed has them all.
    int lostLines()
    {
        int lost = 0;
        for (int i = 0; i < m_settings.workspaces; ++i) {
            const QString id = workspaceId(i);
            auto lines = m_logs.read(m_session->instanceKey(), id);
            if (!lines)
                continue;
            int expected = 0; // the next line of the current run; 0: not in a run
            for (const LogLine &line : std::as_const(*lines)) {
                if (line.kind == LogLine::Kind::Command) {
                    expected = 1;
                    ++m_runsChecked;
                } else if (line.kind == LogLine::Kind::Stdout && expected > 0) {
                    const int number = line.text.startsWith("soak-line-") ? line.text.mid(10).toInt() : 0;
                    if (number != expected) {
                        lost += std::max(0, number - expected);
                        std::fprintf(stderr, "%s: expected soak-line-%d, got %s\n", qPrintable(id), expected,
                                     line.text.constData());
                    }
                    expected = number + 1;
                } else if (line.kind == LogLine::Kind::Status && expected > 0) {
                    if (line.text.contains("bootstrap complete") && expected <= BootstrapLines)
                        lost += BootstrapLines + 1 - expected;
                    if (line.text.contains("bootstrap complete") || line.text.contains("failed"))
                        expected = 0;
                }
            }
        }
        return lost;
    }

private:
    Server *m_server;
    Settings m_settings;
    BootstrapLogStore m_logs;
    QString m_bootstrapFile;
    QRandomGenerator m_rng;
    std::unique_ptr<ProfileSession> m_session;
    std::vector<QCoro::Task<>> m_workers;
    QSet<int> m_busy;
    QElapsedTimer *m_clock = nullptr;
    qint64 m_deadline = 0;
    Tally m_tally;
    QHash<QString, QString> m_lastOp; // workspace id -> its last operation ("pause failed", ...)
    int m_restarted = 0;
    int m_runsChecked = 0;
    int m_retriesBefore = g_retries;
};

QCoro::Task<int> soakAll(QStringList backends, Settings settings, bool assertZero)
{
    QTemporaryDir scratch;
    const QString bootstrap = scratch.filePath(QStringLiteral("bootstrap.sh"));
    {
        QFile file(bootstrap);
        if (!file.open(QIODevice::WriteOnly))
            co_return 2;
        // About a second each, so that a restart finds some under way.
        file.write(QStringLiteral("for i in $(seq 1 %1); do echo soak-line-$i; sleep 0.05; done\n")
                       .arg(BootstrapLines)
                       .toUtf8());
    }
    int status = 0;
    for (const QString &name : std::as_const(backends)) {
        std::unique_ptr<Server> server;
        if (name == QLatin1String("opensandbox"))
            server = std::make_unique<OpenSandboxServer>();
        else if (name == QLatin1String("e2b"))
            server = std::make_unique<E2bServer>();
        else if (name == QLatin1String("kubernetes"))
            server = std::make_unique<KubernetesServer>();
        else if (name == QLatin1String("docker"))
            server = std::make_unique<DockerServer>();
        else if (name == QLatin1String("local"))
            server = std::make_unique<LocalServer>();
        else {
            std::fprintf(stderr, "unknown backend %s (opensandbox, e2b, kubernetes, docker, local)\n",
                         qPrintable(name));
            co_return 2;
        }
        Soak soak(server.get(), settings, scratch.filePath(name + QStringLiteral("-logs")), bootstrap);
        const int result = co_await soak.run(assertZero);
        status = std::max(status, result);
    }
    co_return status;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Drives the core against fakes that fail on purpose."));
    parser.addHelpOption();
    parser.addOptions({
        {QStringLiteral("backend"), QStringLiteral("opensandbox, e2b, kubernetes, docker, local or all (default all)."),
         QStringLiteral("name"), QStringLiteral("all")},
        {QStringLiteral("workspaces"), QStringLiteral("Workspaces (default 50)."), QStringLiteral("n"),
         QStringLiteral("50")},
        {QStringLiteral("duration"), QStringLiteral("Seconds per backend (default 60)."), QStringLiteral("s"),
         QStringLiteral("60")},
        {QStringLiteral("fail-rate"), QStringLiteral("Share of requests that fail (default 0.3)."), QStringLiteral("p"),
         QStringLiteral("0.3")},
        {QStringLiteral("restarts"),
         QStringLiteral("Times each fake (opensandbox, e2b, kubernetes) is killed (SIGKILL) and started again on "
                        "its port and data folder, the first followed by a slow period (default 2)."),
         QStringLiteral("n"), QStringLiteral("2")},
        {QStringLiteral("concurrency"), QStringLiteral("Operations at once (default 8)."), QStringLiteral("n"),
         QStringLiteral("8")},
        {QStringLiteral("seed"), QStringLiteral("Seed of the workload and the faults (default 1)."),
         QStringLiteral("n"), QStringLiteral("1")},
        {QStringLiteral("assert"),
         QStringLiteral("Exit 1 unless duplicates, orphans, lost lines and unexplained "
                        "failures are all zero.")},
    });
    parser.process(app);
    QLoggingCategory::setFilterRules(
        QStringLiteral("paddock.*.info=false\npaddock.*.warning=false\npaddock.core.http.info=true"));
    g_previousHandler = qInstallMessageHandler(countRetries);
    Settings settings;
    settings.workspaces = std::max(1, parser.value(QStringLiteral("workspaces")).toInt());
    settings.durationS = std::max(1, parser.value(QStringLiteral("duration")).toInt());
    settings.failRate = parser.value(QStringLiteral("fail-rate")).toDouble();
    settings.restarts = std::max(0, parser.value(QStringLiteral("restarts")).toInt());
    settings.concurrency = std::max(1, parser.value(QStringLiteral("concurrency")).toInt());
    settings.seed = parser.value(QStringLiteral("seed")).toUInt();
    const QString backend = parser.value(QStringLiteral("backend"));
    const QStringList backends = backend == QLatin1String("all")
        ? QStringList{QStringLiteral("opensandbox"), QStringLiteral("e2b"), QStringLiteral("kubernetes"),
                      QStringLiteral("docker"), QStringLiteral("local")}
        : QStringList{backend};
    return QCoro::waitFor(soakAll(backends, settings, parser.isSet(QStringLiteral("assert"))));
}
