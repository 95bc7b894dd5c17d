#pragma once

// paddock-fake-opensandbox: an OpenSandbox server for tests. It speaks the lifecycle API of the
// real server (Docker runtime behaviour) and, per sandbox, the execd API; commands run under
// bubblewrap with the host read-only, no network, and per-sandbox writable /workspace, /root
// and /tmp. See README.md in this folder for the options, routes and deviations.

#include "http.h"
#include "wire.h"

#include <QElapsedTimer>
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

namespace PaddockFake {

struct Options
{
    quint16 port = 0;
    quint16 execdPort = 0;
    QString apiKey; // empty: no authentication
    int seed = 0; // sandboxes created at start
    int latencyMs = 0;
    int pauseMs = 0; // > 0: a pause goes Running -> Pausing -> Paused over this long (Kubernetes)
    int resumeMs = 0; // > 0: a resume goes Paused -> Resuming -> Running over this long
    double failRate = 0;
    quint32 failSeed = 0;
    int maxInflight = 0; // 0: unlimited
    int pingIntervalMs = 3000;
    int streamCloseDelayMs = 100;
    QString dataDir; // empty: a temporary directory removed on exit, and no state.json
    bool bubblewrap = true;
    QString bubblewrapPath; // found at start when empty
    bool metricsRoute = true; // false: execd as an older build without GET /metrics (404)
};

// One command run by a sandbox's execd.
class Command final : public QObject
{
public:
    using QObject::QObject;

    QString id;
    QString content;
    QString sandboxId;
    bool background = false;
    QProcess *process = nullptr;
    qint64 pgid = 0;
    bool running = false;
    bool timedOut = false;
    bool orphaned = false; // its sandbox is gone
    std::optional<int> exitCode;
    QString error;
    qint64 startedNs = 0;
    qint64 finishedNs = 0;
    QString outputPath; // background: stdout and stderr together
    QPointer<HttpConnection> stream; // foreground: the event stream, while the client listens
    QTimer *ping = nullptr;
    QTimer *deadline = nullptr;
    QByteArray pendingUtf8[2]; // an incomplete UTF-8 sequence held back per channel
};

// An execd request that waits for its paused sandbox.
struct HeldCall
{
    QPointer<HttpConnection> connection;
    HttpRequest request; // path relative to execd
    bool checkToken = false;
};

struct Sandbox
{
    QString id;
    QString image;
    QMap<QString, QString> metadata;
    bool metadataGiven = true;
    QStringList entrypoint;
    QMap<QString, QString> env;
    QString state; // Running or Paused
    qint64 createdAtUs = 0;
    std::optional<qint64> expiresAtUs; // none: manual cleanup
    QString os = QStringLiteral("linux");
    QString arch = QStringLiteral("amd64");
    QString token; // X-EXECD-ACCESS-TOKEN

    // Runtime only.
    QByteArray jsonCache;
    QByteArray persistCache;
    std::map<QString, Command *> commands;
    QList<HeldCall> held;
    bool dirsReady = false;
    bool logAtLineStart = true;
};

struct ResolvedPath
{
    QString sandboxPath; // the resolved path as the sandbox sees it
    QString hostPath; // empty when the path is not visible in the sandbox
    bool writable = false;
    bool root = false; // "/"
    bool mountRoot = false; // /workspace, /root or /tmp themselves
};

class FakeOpenSandbox final : public QObject
{
    Q_OBJECT

public:
    explicit FakeOpenSandbox(Options options, QObject *parent = nullptr);
    ~FakeOpenSandbox() override;

    bool start(QString *error);
    // Stops listening, kills every command (SIGKILL to its process group), and saves state.
    void shutdown();

    quint16 lifecyclePort() const { return m_lifecycle.port(); }
    quint16 execdPort() const { return m_execd.port(); }
    QString baseUrl() const;
    QString dataDir() const { return m_dataDir; }

private:
    struct Stats
    {
        qint64 requests = 0;
        qint64 creates = 0;
        qint64 execdRequests = 0;
        qint64 execdRequestsWithApiKey = 0;
        int inflight = 0;
        int maxInflight = 0;
    };
    enum class Injection { None, Status502, Status503, Status504, DropHandled, DropUnhandled };

    // Lifecycle listener.
    void onLifecycleRequest(HttpConnection *connection, const HttpRequest &request);
    void handleFake(HttpConnection *connection, const HttpRequest &request);
    void handleProxy(HttpConnection *connection, const HttpRequest &request);
    HttpResponse handleLifecycle(const HttpRequest &request, const QStringList &segments);
    HttpResponse routeLifecycle(const HttpRequest &request, const QStringList &segments);
    HttpResponse listSandboxes(const HttpRequest &request);
    HttpResponse createSandbox(const HttpRequest &request);
    HttpResponse renewExpiration(Sandbox &sandbox, const HttpRequest &request);
    HttpResponse patchMetadata(Sandbox &sandbox, const HttpRequest &request);
    HttpResponse endpoint(const QString &id, const QString &portText, const HttpRequest &request);
    HttpResponse diagnosticLogs(Sandbox &sandbox, const HttpRequest &request);
    QJsonObject statsJson() const;
    Injection drawInjection();

    // Sandboxes.
    Sandbox *find(const QString &id) const;
    Sandbox *addSandbox(std::unique_ptr<Sandbox> sandbox);
    void destroySandbox(Sandbox *sandbox);
    void changed(Sandbox *sandbox);
    const QByteArray &sandboxJson(Sandbox &sandbox);
    QJsonObject sandboxObject(const Sandbox &sandbox, bool createResponse) const;
    void setExpiry(Sandbox &sandbox, std::optional<qint64> expiresAtUs);
    void scheduleExpiry();
    void expireDue();
    void seed(int count);
    bool load(QString *error);
    void persist();
    QString sandboxDir(const Sandbox &sandbox) const;
    bool ensureDirs(Sandbox &sandbox);
    void appendContainerLog(Sandbox &sandbox, const QByteArray &data);
    void signalCommands(Sandbox &sandbox, int signal);
    void resumed(Sandbox *sandbox); // Running again; the execd calls held while paused go on

    // execd.
    void onExecdRequest(HttpConnection *connection, const HttpRequest &request);
    void dispatchExecd(Sandbox *sandbox, HttpConnection *connection, const HttpRequest &request, bool checkToken);
    void routeExecd(Sandbox &sandbox, HttpConnection *connection, const HttpRequest &request);
    void runCommand(Sandbox &sandbox, HttpConnection *connection, const HttpRequest &request);
    HttpResponse interruptCommand(Sandbox &sandbox, const HttpRequest &request);
    HttpResponse commandStatus(Sandbox &sandbox, const QString &id);
    HttpResponse commandLogs(Sandbox &sandbox, const QString &id, const HttpRequest &request);
    void commandOutput(Command *command, int channel, const QByteArray &data, bool flush);
    void commandFinished(Command *command, int exitCode, QProcess::ExitStatus status);
    void sendEvent(Command *command, const QJsonObject &event);
    void endStreamSoon(HttpConnection *connection);
    void killCommand(Command *command);

    // execd files.
    std::optional<ResolvedPath> resolve(Sandbox &sandbox, const QString &path, bool followFinal) const;
    ResolvedPath mapComponents(const Sandbox &sandbox, const QStringList &components) const;
    HttpResponse filesInfo(Sandbox &sandbox, const HttpRequest &request);
    HttpResponse removeFiles(Sandbox &sandbox, const HttpRequest &request);
    HttpResponse uploadFiles(Sandbox &sandbox, const HttpRequest &request);
    HttpResponse downloadFile(Sandbox &sandbox, const HttpRequest &request);
    HttpResponse listDirectory(Sandbox &sandbox, const HttpRequest &request);
    HttpResponse makeDirectories(Sandbox &sandbox, const HttpRequest &request);
    HttpResponse removeDirectories(Sandbox &sandbox, const HttpRequest &request);
    HttpResponse moveFiles(Sandbox &sandbox, const HttpRequest &request);
    HttpResponse chmodFiles(Sandbox &sandbox, const HttpRequest &request);
    // execd's GET /metrics: as execd does it, the machine's CPU over one second (answered then)
    // and memory, as the sandbox sees them without lxcfs.
    void metrics(HttpConnection *connection);

    Options m_options;
    HttpServer m_lifecycle;
    HttpServer m_execd;
    std::unique_ptr<QTemporaryDir> m_tempDir;
    QString m_dataDir;
    bool m_persist = false;
    bool m_stopped = false;

    std::map<QString, std::unique_ptr<Sandbox>> m_sandboxes;
    std::vector<Sandbox *> m_sorted; // createdAt descending, then id
    quint64 m_generation = 0;
    struct FilterCache
    {
        QString key;
        quint64 generation = 0;
        std::vector<Sandbox *> items;
    } m_filterCache;
    std::set<std::pair<qint64, QString>> m_expiries;
    QTimer m_expiryTimer;

    Stats m_stats;
    std::mt19937 m_rng;
    QString m_shell;
};

} // namespace PaddockFake
