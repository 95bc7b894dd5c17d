#pragma once

// paddock-fake-kubernetes: a Kubernetes API server (core/v1: namespaces, pods, PVCs) for tests,
// faithful enough that kubectl 1.32 uses it as a cluster. TLS with its own CA, bearer-token (or
// client-certificate) authentication, discovery and OpenAPI, Status errors, selectors, paging,
// watch, a simulated scheduler, kubelet and PVC controller, exec over WebSocket (v5 and v4) with
// every Pod's container a bubblewrap sandbox, and pods/log. See README.md in this folder.

#include "certificates.h"
#include "http.h"
#include "kubejson.h"
#include "procusage.h"
#include "sandbox.h"
#include "selectors.h"
#include "validation.h"
#include "websocketacceptor.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <vector>

class QTemporaryDir;
class QWebSocket;

namespace PaddockFake::Kube {

struct Options
{
    quint16 port = 0;
    QString token; // empty: no authentication
    QString kubeconfigPath; // written at start when set
    bool tls = true;
    int podStartMs = 500; // ContainerCreating -> Running
    int graceMs = 500; // a terminating Pod goes after min(its grace period, this)
    int pvcBindMs = 0; // Pending -> Bound
    int pullBackoffMs = 10'000; // first image pull back-off (doubles, at most 300 s)
    int crashBackoffMs = 10'000; // first container restart back-off (doubles, at most 300 s)
    int seed = 0; // workspace Pods + PVCs made at start
    QString seedNamespace = QStringLiteral("agentscope");
    QStringList namespaces{QStringLiteral("agentscope")}; // made at start, besides default and kube-*
    std::optional<QStringList> images; // the images the kubelet can pull; unset: all but `*:missing`
    int watchHistory = 10'000; // events kept for watches that resume from a resourceVersion
    int bookmarkMs = 60'000;
    int latencyMs = 0;
    double failRate = 0;
    quint32 failSeed = 0;
    QStringList forbidden; // "verb resource" pairs refused with 403, e.g. "create pods/exec"
    QStringList storageClasses{QStringLiteral("standard")}; // provisioned; a PVC of another class stays Pending
    QString dataDir; // empty: a temporary directory, removed on exit; set: kept, with state.json (persistence.cpp)
    bool bubblewrap = true;
    bool verbose = false;
    bool metricsApi = true; // false: no metrics.k8s.io (a cluster without metrics-server)
};

enum class Kind { Namespace, Pod, Pvc };

// One object as it was at one resourceVersion; never changed once made.
struct Version
{
    Kind kind = Kind::Pod;
    QString key; // "<namespace>/<name>" (namespaces: "<name>"), the API server's storage order
    QString ns;
    QString name;
    quint64 rv = 0;
    QJsonObject object; // without kind and apiVersion (as items of a list are sent)
    QByteArray json; // object, serialised once

    QByteArray withType() const; // with kind and apiVersion first, as a GET or a watch event sends it
};
using VersionPtr = std::shared_ptr<const Version>;

struct WatchEvent
{
    enum Type { Added, Modified, Deleted };
    Type type = Added;
    quint64 rv = 0;
    Kind kind = Kind::Pod;
    VersionPtr previous; // Modified: the state before
    VersionPtr object;
};

// A pods/log request that follows the log.
struct LogFollower
{
    QPointer<HttpConnection> connection;
    bool timestamps = false;
    std::optional<qint64> remainingBytes; // limitBytes
};

struct LogLine
{
    qint64 ns = 0;
    bool stderr = false;
    int run = 0; // the container's restart count when it wrote the line
    QByteArray text; // without the newline
};

class FakeKubernetes;
class ExecSession;

// The kubelet's view of one Pod: its container, its folders, its log, its timers.
class PodState final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PodState)

public:
    explicit PodState(QObject *parent)
        : QObject(parent)
    {
    }

    QString key;
    QString uid;
    QString dir; // <data>/pods/<uid>: root/, tmp/, volumes/<name>/
    QTimer kubelet; // the next kubelet step
    QTimer removal; // the end of the grace period
    int pullFailures = 0;
    int restarts = 0;
    bool scheduled = false;
    bool frozen = false; // a test set its status: the kubelet leaves it alone
    bool containerStarted = false; // the container process ran (its log exists)
    // The container: a sandbox whose namespaces execs join, or (--no-bwrap) a plain process.
    std::unique_ptr<PersistentSandbox> sandbox;
    std::unique_ptr<QProcess> process;
    std::vector<LogLine> log;
    QByteArray partial[2];
    std::vector<LogFollower> followers;
    int stage = 0; // the kubelet's next step (kubelet.cpp)
    QList<QPointer<QObject>> execs; // ExecSession
    qint64 containerStartedMs = 0;
};

struct Entry
{
    VersionPtr current;
    PodState *pod = nullptr; // Pods only
    QString volumeDir; // PVCs only: the folder standing for the volume
    QTimer *timer = nullptr; // PVCs: binding
};

// A watch stream: events for one kind (and namespace) through the selectors.
class Watcher final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(Watcher)

public:
    explicit Watcher(QObject *parent)
        : QObject(parent)
    {
    }

    QPointer<HttpConnection> connection;
    Kind kind = Kind::Pod;
    QString ns; // empty: every namespace
    LabelSelector labels;
    FieldSelector fields;
    bool table = false;
    bool includeObject = true;
    QTimer timeout;
    QTimer bookmark;
};

class FakeKubernetes final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FakeKubernetes)

public:
    explicit FakeKubernetes(Options options, QObject *parent = nullptr);
    ~FakeKubernetes() override;

    bool start(QString *error);
    // Stops listening, ends every stream, kills every container and command.
    void shutdown();

    QString baseUrl() const;
    quint16 port() const { return m_http.port(); }
    QString dataDir() const { return m_dataDir; }
    const Certificates &certificates() const { return m_certificates; }
    QByteArray kubeconfig() const;

private:
    friend class ExecSession;

    struct Stats
    {
        qint64 requests = 0;
        QHash<QString, qint64> byVerb; // "list pods", "get pods/log", ...
    };
    enum class Injection { None, Status429, Status500, Status503, DropHandled, DropUnhandled };
    // POST /_fake/inject: the next requests of a method to a path beginning so get this.
    struct ScriptedInjection
    {
        QByteArray method;
        QByteArray pathPrefix;
        Injection injection = Injection::None;
    };
    QList<ScriptedInjection> m_scripted;

    // Requests (fakekubernetes.cpp).
    void onRequest(HttpConnection *connection, const HttpRequest &request);
    void handle(HttpConnection *connection, const HttpRequest &request);
    void route(HttpConnection *connection, const HttpRequest &request);
    bool authenticated(HttpConnection *connection, const HttpRequest &request) const;
    void count(const QString &verb, const QString &resource);
    std::optional<StatusError> refusedByRbac(const QString &verb, const QString &resource, const QString &ns,
                                             const QString &name) const;
    Injection drawInjection();
    Injection scriptedInjection(const HttpRequest &request);
    void handleFake(HttpConnection *connection, const HttpRequest &request);
    QJsonObject statsJson() const;
    bool writeKubeconfig(QString *error) const;

    // Discovery and tables (discovery.cpp).
    HttpResponse version() const;
    HttpResponse coreGroup(const HttpRequest &request) const;
    HttpResponse groups(const HttpRequest &request) const;
    HttpResponse resourceList() const;
    HttpResponse openApiRoot() const;
    HttpResponse openApiDocument(const HttpRequest &request) const;
    static bool wantsTable(const HttpRequest &request);
    QByteArray tableJson(Kind kind, const std::vector<VersionPtr> &items, const QString &listMeta,
                         bool includeObject) const;
    QByteArray tableRow(const Version &version, bool includeObject) const;

    // Objects (store.cpp).
    Entry *find(Kind kind, const QString &ns, const QString &name);
    std::map<QString, Entry> &table(Kind kind) { return m_objects[static_cast<int>(kind)]; }
    VersionPtr commit(Kind kind, const QString &ns, const QString &name, QJsonObject object, WatchEvent::Type type);
    VersionPtr modify(Kind kind, const QString &ns, const QString &name,
                      const std::function<void(QJsonObject &)> &change);
    void remove(Kind kind, const QString &ns, const QString &name);
    void record(WatchEvent event);
    void listObjects(HttpConnection *connection, const HttpRequest &request, Kind kind, const QString &ns);
    void watchObjects(HttpConnection *connection, const HttpRequest &request, Kind kind, const QString &ns);
    void sendWatchEvent(Watcher *watcher, WatchEvent::Type type, const Version &version);
    void sendBookmark(Watcher *watcher, bool initialEventsEnd);
    void endWatch(Watcher *watcher);
    std::shared_ptr<const std::vector<VersionPtr>> snapshot(Kind kind);
    bool matches(const Version &version, const LabelSelector &labels, const FieldSelector &fields) const;
    static QString fieldValue(const Version &version, const QString &field);
    static QStringList fieldLabels(Kind kind);
    static QString resourceName(Kind kind);
    static QString kindName(Kind kind);
    HttpResponse objectResponse(const HttpRequest &request, int status, const Version &version) const;

    // Namespaces, Pods, PVCs (objects.cpp).
    void createObject(HttpConnection *connection, const HttpRequest &request, Kind kind, const QString &ns);
    void getObject(HttpConnection *connection, const HttpRequest &request, Kind kind, const QString &ns,
                   const QString &name);
    void deleteObject(HttpConnection *connection, const HttpRequest &request, Kind kind, const QString &ns,
                      const QString &name);
    std::optional<StatusError> decodeBody(const HttpRequest &request, Kind kind, const QString &ns, QJsonObject *object,
                                          QStringList *warnings) const;
    void defaultPod(QJsonObject &pod);
    void defaultPvc(QJsonObject &pvc) const;
    QJsonObject runningStatus(const QJsonObject &pod, qint64 startedMs, int restarts, const QJsonObject &lastState);
    PodState *addPodState(const QString &key, const QString &uid);
    QString randomSuffix(int length);
    void seed(int count);
    void makeNamespace(const QString &name);

    // The scheduler, the kubelet, the PVC controller (kubelet.cpp).
    void schedule(const QString &key);
    void kubeletStep(const QString &key);
    void startContainer(const QString &key);
    void containerExited(const QString &key, int exitCode, const QString &reason = {}, const QString &message = {});
    void containerOutput(PodState *pod, int stream, const QByteArray &data);
    void appendLog(PodState *pod, bool stderr, const QByteArray &line);
    void endFollowers(PodState *pod);
    void beginPodDeletion(const QString &key, qint64 graceSeconds);
    void finishPodDeletion(const QString &key);
    // Ends its container, its execs and its log streams; `removeFiles`: its folder too (a deletion;
    // a shutdown that keeps its data folder leaves it for the next start).
    void destroyPodState(PodState *pod, bool removeFiles = true);
    // After a restart on a kept data folder: the kubelet takes the Pod up where the last run left it.
    void resumePod(const QString &key);
    void bindPvc(const QString &key);
    void releasePvcs(const QString &ns);
    void rescheduleWaiting(const QString &ns);
    bool imageKnown(const QString &image) const;
    bool executableExists(const Version &pod, PodState *state, const QString &program, const QString &cwd) const;
    void setWaiting(const QString &key, const QString &reason, const QString &message);
    bool ensureContainer(const QString &key, QString *error);
    QList<SandboxBind> podBinds(const Version &pod, PodState *state) const;
    QString hostPathIn(const Version &pod, PodState *state, const QString &path) const;
    EnvList containerEnv(const Version &pod) const;
    QString containerWorkingDir(const Version &pod, PodState *state) const;

    // The state kept in <data-dir>/state.json across a restart (persistence.cpp).
    void persist();
    bool loadState(QString *error);
    void resumeLoaded();
    QString statePath() const;
    // The metrics API, metrics.k8s.io/v1beta1 (metricsapi.cpp).
    static QByteArray metricsGroupJson(bool aggregatedForm);
    std::optional<QJsonObject> podMetricsOf(const Version &pod);
    void metricsRoute(HttpConnection *connection, const HttpRequest &request, const QStringList &segments);

    // Exec and logs (exec.cpp, logs.cpp).
    void exec(HttpConnection *connection, const HttpRequest &request, const QString &ns, const QString &name);
    void logs(HttpConnection *connection, const HttpRequest &request, const QString &ns, const QString &name);
    std::optional<StatusError> containerCheck(const Version &pod, const QString &container, bool forExec) const;
    void controlLog(const QString &ns, const QString &name, bool stderr, const QByteArray &body);
    void startExec(QWebSocket *socket, const QString &key, const QString &protocol, const QStringList &command, bool in,
                   bool out, bool err, bool tty);
    static void killExec(QObject *session);

    Options m_options;
    CpuMeter m_cpu; // the metrics API's CPU per Pod since its last look
    HttpServer m_http;
    WebSocketAcceptor m_websockets;
    Certificates m_certificates;
    QByteArray m_clientCertDigest;
    QString m_bubblewrapPath; // empty: --no-bwrap
    std::unique_ptr<QTemporaryDir> m_tempDir;
    QString m_dataDir;
    bool m_stopped = false;
    bool m_persist = false; // --data-dir: every change is written to state.json before anyone sees it
    bool m_loaded = false; // this start read a state.json

    std::map<QString, Entry> m_objects[3];
    quint64 m_rv = 0;
    quint64 m_generation[3] = {0, 0, 0};
    std::deque<WatchEvent> m_history;
    quint64 m_historyFloor = 0; // a watch can resume from any resourceVersion >= this
    std::vector<Watcher *> m_watchers;
    // Consistent pages: the objects of a kind as they were at a list's resourceVersion.
    std::map<std::pair<int, quint64>, std::shared_ptr<const std::vector<VersionPtr>>> m_snapshots;
    std::shared_ptr<const std::vector<VersionPtr>> m_latestSnapshot[3];
    quint64 m_latestSnapshotGeneration[3] = {~0ULL, ~0ULL, ~0ULL};

    QByteArray m_openApiBytes;
    QByteArray m_openApiHash;
    SchemaIndex m_schemas;

    Stats m_stats;
    std::mt19937 m_rng;
    std::mt19937 m_names{12345};
    int m_nextPodIp = 10;
};

} // namespace PaddockFake::Kube
