#pragma once

// paddock-fake-e2b: an E2B server for tests. It speaks the control plane of the E2B API (v1 and v2
// routes, with its status codes and {code, message} error bodies) and, for every sandbox on one
// listener routed by the E2b-Sandbox-Id header, envd: Connect RPC (process.Process,
// filesystem.Filesystem; JSON codec) and its plain HTTP routes. Commands really run, under
// bubblewrap, in a per-sandbox folder; timeouts count on a clock a test can move forward. See
// README.md in this folder for the options, routes and deviations.

#include "http.h"
#include "procusage.h"
#include "sandbox.h"

#include <QJsonObject>
#include <QMap>
#include <QObject>
#include <QPointer>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <vector>

class QTemporaryDir;

namespace PaddockFake::E2b {

inline constexpr QLatin1StringView EnvdVersion{"0.6.13"};
inline constexpr QLatin1StringView ClientId{"6532622b"};
inline constexpr int EnvdPort = 49983;

struct Options
{
    quint16 port = 0;
    int envdPort = -1; // -1: envd on the API's port
    QString apiKey; // empty: any key of the form e2b_<hex>
    int seed = 0; // sandboxes created at start
    int latencyMs = 0;
    double failRate = 0;
    quint32 failSeed = 0;
    int maxInflight = 0; // 0: unlimited
    int maxTimeoutHours = 24; // the team's longest run
    QStringList templates{QStringLiteral("base")}; // aliases that exist
    QString dataDir; // empty: a temporary directory removed on exit
    bool bubblewrap = true;
    QString bubblewrapPath; // found at start when empty
    bool verbose = false;
    bool metricsRoute = true; // false: GET /sandboxes/metrics answers 501, as before it was served
};

// How a stream is broken off (a fault a test asks for).
enum class BreakMode { None, Drop, Truncate };

// One server stream of envd's Connect protocol (application/connect+json) on a connection.
class RpcStream final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RpcStream)

public:
    RpcStream(HttpConnection *connection, int keepaliveMs, QObject *parent);

    // Writes one message envelope (and restarts the keepalive timer).
    void send(const QByteArray &json);
    // The end-stream envelope: {} or {"error": {code, message}}; the HTTP exchange ends.
    void finish(const QString &errorCode = {}, const QString &message = {});
    // Breaks the stream off: Drop closes the connection, Truncate ends the HTTP body without
    // the end-stream envelope.
    void breakOff(BreakMode mode);
    bool isOpen() const { return m_connection && !m_finished; }

    QByteArray keepaliveMessage; // what a keepalive tick sends
    BreakMode breakAfterData = BreakMode::None; // break after the next data message

private:
    QPointer<HttpConnection> m_connection;
    QTimer m_keepalive;
    bool m_finished = false;
};

// A process envd started.
class Process final : public QObject
{
public:
    using QObject::QObject;

    quint32 pid = 0;
    QString tag;
    QString cmd;
    QStringList args;
    QMap<QString, QString> envs;
    QString cwd;
    QString sandboxId;
    QProcess *process = nullptr;
    qint64 pgid = 0;
    bool running = false;
    bool stdinOpen = false;
    int signalSent = 0; // the last signal this server sent it
    std::optional<QByteArray> endEvent; // the end event's JSON once it ended
    QList<QPointer<RpcStream>> streams; // Start's and Connect's
    QTimer *deadline = nullptr; // Start's Connect-Timeout-Ms
    QPointer<RpcStream> startStream;
};

struct Sandbox
{
    QString id;
    QString templateId;
    QString alias;
    QMap<QString, QString> metadata;
    QMap<QString, QString> envVars;
    bool paused = false;
    qint64 startedAtNs = 0; // this run's start (fake clock)
    qint64 endAtNs = 0; // running: the deadline; paused: when it was paused
    bool autoPause = false;
    bool autoResume = false;
    QString token; // envdAccessToken; empty: envd does not check (v1 without secure)
    std::optional<bool> allowInternetAccess;
    int cpuCount = 2;
    int memoryMB = 512;
    int diskSizeMB = 1024;

    // Runtime only.
    QByteArray listedJson; // ListedSandbox, cached
    std::unique_ptr<PersistentSandbox> box; // started at the first command
    std::map<quint32, Process *> processes;
    bool dirsReady = false;
    bool envdUnreachable = false;
    BreakMode breakNext = BreakMode::None;
    QMap<QString, QMap<QString, QString>> fileMetadata; // host path -> X-Metadata-*
};

// A path in a sandbox's view of the file system, and where it is on this host.
struct ResolvedPath
{
    QString path; // cleaned, symbolic links resolved (but the last when not followed)
    QString hostPath; // empty: nothing there is visible in the sandbox
    bool writable = false;
};

class FakeE2b final : public QObject
{
    Q_OBJECT

public:
    explicit FakeE2b(Options options, QObject *parent = nullptr);
    ~FakeE2b() override;

    bool start(QString *error);
    void shutdown();

    QString apiUrl() const;
    QString envdUrl() const;
    QString dataDir() const { return m_dataDir; }

private:
    enum class Injection { None, Status429, Status502, Status503, Status504, DropHandled, DropUnhandled };
    struct Stats
    {
        qint64 requests = 0;
        qint64 creates = 0;
        qint64 envdRequests = 0;
        qint64 envdRequestsWithApiKey = 0;
        int inflight = 0;
        int maxInflight = 0;
    };

    // Listeners.
    void onApiListener(HttpConnection *connection, const HttpRequest &request);
    void onEnvdListener(HttpConnection *connection, const HttpRequest &request);

    // Control plane (fakee2b.cpp).
    void handleApi(HttpConnection *connection, const HttpRequest &request);
    HttpResponse routeApi(const HttpRequest &request);
    std::optional<HttpResponse> checkApiKey(const HttpRequest &request) const;
    HttpResponse createSandbox(const HttpRequest &request, bool v2);
    HttpResponse listSandboxesV2(const HttpRequest &request);
    HttpResponse listSandboxesV1(const HttpRequest &request);
    HttpResponse getSandbox(const QString &id);
    HttpResponse killSandbox(const QString &id);
    HttpResponse pauseSandbox(const QString &id, const HttpRequest &request);
    HttpResponse connectSandbox(const QString &id, const HttpRequest &request, bool v2);
    HttpResponse resumeSandbox(const QString &id, const HttpRequest &request);
    HttpResponse setTimeout(const QString &id, const HttpRequest &request);
    HttpResponse refreshSandbox(const QString &id, const HttpRequest &request);
    HttpResponse sandboxMetrics(const QString &id);
    // GET /sandboxes/metrics?sandbox_ids=a,b: the running ones' figures, measured on their
    // processes.
    HttpResponse sandboxesMetrics(const HttpRequest &request);
    QJsonObject measuredMetric(Sandbox &sandbox);
    void handleFake(HttpConnection *connection, const HttpRequest &request);
    QJsonObject statsJson() const;
    Injection drawInjection();

    // Sandboxes and time.
    qint64 now() const; // the fake clock, ns since the epoch
    Sandbox *find(const QString &id) const;
    Sandbox *addSandbox(std::unique_ptr<Sandbox> sandbox);
    void removeSandbox(Sandbox *sandbox);
    void changed(Sandbox *sandbox);
    void setDeadline(Sandbox *sandbox, std::optional<qint64> endAtNs); // nullopt: no countdown
    void scheduleEviction();
    void evictDue();
    // With an explicit --data-dir, the sandboxes and the clock are kept in <dir>/state.json after
    // every change and read back at start, so a server killed and started again on the same
    // folder has them (their processes are gone, as after a host's restart).
    void persist();
    void loadState();
    void pause(Sandbox *sandbox);
    void resume(Sandbox *sandbox, qint64 timeoutSeconds);
    qint64 maxEndAt(const Sandbox &sandbox) const;
    const QByteArray &listedJson(Sandbox &sandbox);
    QByteArray sandboxJson(const Sandbox &sandbox) const; // Sandbox (create/connect)
    QByteArray detailJson(const Sandbox &sandbox) const; // SandboxDetail
    void seed(int count);
    QString newSandboxId();
    std::optional<QString> templateIdFor(const QString &reference, QString *alias, HttpResponse *error) const;

    // envd (envd.cpp).
    void handleEnvd(HttpConnection *connection, const HttpRequest &request);
    void routeEnvd(Sandbox &sandbox, HttpConnection *connection, const HttpRequest &request);
    QString sandboxDir(const Sandbox &sandbox) const;
    bool ensureDirs(Sandbox &sandbox);
    bool ensureBox(Sandbox &sandbox, QString *error);
    void freeze(Sandbox &sandbox, bool frozen);
    void killEverything(Sandbox &sandbox);
    std::optional<QString> userOf(const HttpRequest &request, HttpResponse *error) const;
    static QString homeOf(const QString &user);
    std::optional<ResolvedPath> resolve(const Sandbox &sandbox, const QString &path, const QString &user,
                                        bool followLast) const;
    QString hostFor(const Sandbox &sandbox, const QString &sandboxPath, bool *writable) const;
    QByteArray entryInfo(const Sandbox &sandbox, const QString &sandboxPath, const QString &hostPath) const;
    void unary(HttpConnection *connection, const QByteArray &json);
    void unaryError(HttpConnection *connection, const QString &code, const QString &message);
    HttpResponse downloadFile(Sandbox &sandbox, const HttpRequest &request);
    HttpResponse uploadFile(Sandbox &sandbox, const HttpRequest &request);
    bool checkSignature(const Sandbox &sandbox, const HttpRequest &request, const QString &operation) const;
    void processRpc(Sandbox &sandbox, HttpConnection *connection, const HttpRequest &request, const QString &method);
    void filesystemRpc(Sandbox &sandbox, HttpConnection *connection, const HttpRequest &request, const QString &method);
    void startProcess(Sandbox &sandbox, HttpConnection *connection, const HttpRequest &request,
                      const QJsonObject &body);
    void connectProcess(Sandbox &sandbox, HttpConnection *connection, const HttpRequest &request,
                        const QJsonObject &body);
    Process *selectProcess(Sandbox &sandbox, const QJsonObject &selector) const;
    void processOutput(Process *process, const char *channel, const QByteArray &data);
    void processFinished(Process *process, int exitCode, QProcess::ExitStatus status);
    void broadcast(Process *process, const QByteArray &json);
    RpcStream *openStream(HttpConnection *connection, const HttpRequest &request, const QByteArray &keepalive);

    Options m_options;
    PaddockFake::CpuMeter m_cpu; // per sandbox: the CPU since its last metric
    HttpServer m_api;
    HttpServer m_envd; // listens only with a port of its own
    std::unique_ptr<QTemporaryDir> m_tempDir;
    QString m_dataDir;
    bool m_stopped = false;

    std::map<QString, std::unique_ptr<Sandbox>> m_sandboxes;
    std::vector<Sandbox *> m_sorted; // startedAt descending, then id ascending
    quint64 m_generation = 0;
    quint64 m_savedGeneration = 0;
    qint64 m_savedClockOffsetNs = 0;
    struct FilterCache
    {
        QString key;
        quint64 generation = 0;
        std::vector<Sandbox *> items;
        qint64 running = 0;
    } m_filterCache;
    std::set<std::pair<qint64, QString>> m_deadlines; // running sandboxes' endAt
    QTimer m_evictionTimer;
    qint64 m_clockOffsetNs = 0;
    bool m_envdUnreachable = false; // every sandbox's envd answers 502

    Stats m_stats;
    std::mt19937 m_rng;
    std::mt19937_64 m_idRng;
    quint32 m_nextPid = 1000;
};

} // namespace PaddockFake::E2b
