#pragma once

#include "../../result.h"
#include "../../waitset.h"
#include "kubetls.h"

#include <QCoroFwd>

#include <QByteArray>
#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QNetworkProxy>
#include <QSslConfiguration>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <chrono>
#include <memory>
#include <optional>
#include <utility>

class QNetworkRequest;

namespace Paddock {
template<typename T> class Broadcast;
}

namespace Paddock::Kubernetes {

// What Paddock reads of a kubeconfig (client-go's tools/clientcmd/api/v1 types). Paths are
// absolute: relative ones were taken relative to the folder of the file that holds them.

struct ExecPlugin
{
    enum class InteractiveMode { Never, IfAvailable, Always };

    QString apiVersion; // client.authentication.k8s.io/v1 or /v1beta1
    QString command; // as written, or absolute when it was a relative path (it had a '/')
    QStringList args;
    QList<std::pair<QString, QString>> env;
    InteractiveMode interactiveMode = InteractiveMode::IfAvailable;
    bool provideClusterInfo = false;
    QString installHint;
};

struct KubeCluster
{
    QString name;
    QString file; // the kubeconfig that defines it
    QString server;
    QString certificateAuthority; // a file
    QByteArray certificateAuthorityData; // PEM (decoded from the base64 in the file)
    bool insecureSkipTlsVerify = false;
    QString tlsServerName;
    QString proxyUrl;
    QJsonObject execConfig; // extensions[client.authentication.k8s.io/exec], for provideClusterInfo
};

struct KubeUser
{
    QString name;
    QString file;
    QByteArray token;
    QString tokenFile;
    QString clientCertificate; // a file
    QByteArray clientCertificateData; // PEM
    QString clientKey; // a file
    QByteArray clientKeyData; // PEM
    std::optional<ExecPlugin> exec;
};

struct KubeContext
{
    QString name;
    QString file;
    QString cluster;
    QString user;
    QString namespaceName; // empty: the context names none
};

// What the profile dialog shows for a context: no credential is read or resolved for it.
struct ContextSummary
{
    QString name;
    QString cluster;
    QString server; // empty when the cluster is missing
    QString user;
    QString namespaceName;
    QString file;
};

struct ContextList
{
    QList<ContextSummary> contexts; // in the order of the files, then of each file
    QString currentContext; // empty: none is set
    QStringList files; // the files read (those that exist)
};

class Credentials;

// What a client needs to talk to the API server of one context.
struct Connection
{
    QUrl server; // the cluster's server URL, with any path prefix it has (Rancher, proxies)
    // The CA certificates of the cluster alone when it names one (never the system's as well),
    // VerifyNone for insecure-skip-tls-verify, and the kubeconfig's client certificate and key.
    QSslConfiguration ssl;
    // tls-server-name: the name the server's certificate is checked against. Qt still sends the
    // URL's host as SNI (client-go sends this name); see README.md.
    QString peerVerifyName;
    QString namespaceName; // the context's namespace; empty when it sets none
    QString contextName; // empty for the in-cluster service account
    QString description; // for messages: "context prod in /home/me/.kube/config"
    // proxy-url (http:// and socks5://), for the client's QNetworkAccessManager and QWebSocket;
    // nullopt: none set, Qt's application default applies.
    std::optional<QNetworkProxy> proxy;
    std::shared_ptr<Credentials> credentials; // never null

    // Puts ssl and peerVerifyName on a request to this server (before Authorization::applyTo).
    void prepare(QNetworkRequest &request) const;
};

// What one request presents: a bearer token, or a client certificate from a credential plugin
// (the kubeconfig's own certificate is in Connection::ssl already), or nothing.
struct Authorization
{
    QByteArray bearerToken; // empty: none
    ClientIdentity pluginIdentity; // null: none
    quint64 generation = 0; // which credentials these are; give it back to reportUnauthorized()

    bool isEmpty() const { return bearerToken.isEmpty() && pluginIdentity.isNull(); }
    // "Bearer <token>", or empty. Never log it.
    QByteArray headerValue() const;
    // Sets the Authorization header and the plugin's client certificate on the request. Refuses
    // (and changes nothing) when there is something to send and the request is not https.
    Result<> applyTo(QNetworkRequest &request) const;
    // The plugin's client certificate onto a TLS configuration (a QWebSocket's, which does not
    // take the request's); no change without one.
    void applyTo(QSslConfiguration &ssl) const;
};

// Where a connection's credentials come from, and the current ones. One per Connection, shared by
// its copies; owner's thread only.
//
// Static tokens never change. A token file (tokenFile, the in-cluster service-account token) is
// read again whenever the file changes (a different inode, mtime or size: the kubelet rotates it
// by swapping a symlink), at least once a minute as client-go does, and after a 401. A credential
// plugin runs when first needed, its answer is kept until its expirationTimestamp (for good when
// it gives none), and it runs again after a 401; concurrent callers share one run.
class Credentials final
{
    Q_DISABLE_COPY_MOVE(Credentials)

public:
    enum class Source {
        None, // the context's user has no credentials (or there is no user)
        Token, // the user's token
        TokenFile, // the user's tokenFile
        ExecPlugin, // the user's exec credential plugin
        Caller, // a token the caller gave (a profile's, from the keychain); overrides the user's
        ServiceAccount, // in-cluster: the service account's token file
    };

    struct Spec
    {
        Source source = Source::None;
        QByteArray token; // Token, Caller
        QString tokenFile; // TokenFile, ServiceAccount
        std::optional<ExecPlugin> exec;
        QJsonObject clusterInfo; // ExecCredential spec.cluster, when exec->provideClusterInfo
        QString what; // "context prod in /home/me/.kube/config", for messages
    };

    explicit Credentials(Spec spec);
    ~Credentials(); // close()

    Source source() const { return m_spec.source; }

    // The credentials to present now: cached, read again or made by the plugin as said above.
    // A plugin that fails, a token file that cannot be read: an Error that says so (with the
    // plugin's stderr and installHint).
    QCoro::Task<Result<Authorization>> authorization();

    // The server answered 401 to a request that carried `used`. Drops what is cached when it is
    // still those credentials (many requests failing at once cause one plugin run), so that the
    // next authorization() reads the token file again or runs the plugin. True when that may give
    // other credentials, so that one retry makes sense; false for static tokens and none.
    bool reportUnauthorized(const Authorization &used);

    // Stops a plugin that is running and ends every authorization() under way (and every later
    // one) with Error::Kind::Cancelled, before it returns. The owner of the connection calls it
    // before it goes; the destructor does too.
    void close();

    // How long a plugin may run before it is stopped (default 2 minutes).
    void setPluginTimeout(std::chrono::milliseconds timeout) { m_pluginTimeout = timeout; }
    int pluginRuns() const { return m_pluginRuns; } // for tests and diagnostics
    int tokenFileReads() const { return m_tokenFileReads; } // likewise

private:
    QCoro::Task<Result<Authorization>> runPlugin();
    Result<Authorization> readTokenFile(bool force);
    Authorization made(QByteArray token, ClientIdentity identity);

    Spec m_spec;
    std::optional<Authorization> m_current;
    QDateTime m_expiry; // of m_current from a plugin; invalid: none
    // The token file as last read: identity and when.
    struct FileStamp
    {
        quint64 device = 0;
        quint64 inode = 0;
        qint64 mtimeNs = 0;
        qint64 size = -1;
        bool operator==(const FileStamp &) const = default;
    };
    FileStamp m_stamp;
    std::chrono::steady_clock::time_point m_readAt;
    std::shared_ptr<Broadcast<Result<Authorization>>> m_running; // a plugin run under way
    quint64 m_generation = 0;
    std::chrono::milliseconds m_pluginTimeout{120'000};
    int m_pluginRuns = 0;
    int m_tokenFileReads = 0;
    WaitSet m_waits; // the plugin run; last, so that it closes before the rest goes
};

struct ResolveOptions
{
    // A token the caller has (a Paddock profile's, from the keychain): sent instead of every
    // credential of the context's user (token, tokenFile, plugin and client certificate).
    QByteArray token;
};

// Where the default lookups look; system() reads the process environment, tests make their own.
struct Environment
{
    std::optional<QString> kubeconfig; // $KUBECONFIG; nullopt: unset
    QString home; // for ~/.kube/config
    QString serviceHost; // $KUBERNETES_SERVICE_HOST
    QString servicePort; // $KUBERNETES_SERVICE_PORT
    QString serviceAccountDir = QStringLiteral("/var/run/secrets/kubernetes.io/serviceaccount");

    static Environment system();
};

// One or more kubeconfig files merged by client-go's rule: files that do not exist are skipped;
// for clusters, users and contexts the first file that defines a name wins entirely (later
// definitions of that name are ignored, not merged); current-context comes from the first file
// that sets it. A name defined twice in one file is an error, as in client-go.
class KubeConfig
{
public:
    // $KUBECONFIG split on ':' (empty entries and repeats dropped), else ~/.kube/config.
    static QStringList defaultFiles(const Environment &environment = Environment::system());

    // Fails when a file exists and cannot be read or parsed (the message names it, and the line
    // and yaml-cpp's reason), is not a kubeconfig, or when none of the files exists.
    static Result<KubeConfig> load(const QStringList &files);
    // One file that must exist (an explicit --kubeconfig).
    static Result<KubeConfig> loadFile(const QString &file);

    QStringList files() const { return m_files; }
    QStringList contextNames() const;
    QString currentContext() const { return m_currentContext; }
    QList<KubeContext> contexts() const { return m_contexts; }
    const KubeContext *context(const QString &name) const;
    const KubeCluster *cluster(const QString &name) const;
    const KubeUser *user(const QString &name) const;
    ContextList summary() const;

    // The context named (empty: the current one) made into a Connection. Reads what the context
    // points at (CA, certificate and key files, the token file once) and checks it; runs no
    // plugin. Refuses to send any credential to an http:// server.
    Result<Connection> resolve(const QString &contextName = {}, const ResolveOptions &options = {}) const;

private:
    // What a user has that Paddock does not support, so that resolve() can say so.
    struct Unsupported
    {
        QString authProvider; // auth-provider's name
        bool basicAuth = false; // username and password
        bool impersonates = false; // as, as-uid, as-groups, as-user-extra
    };

    QStringList m_files;
    QString m_currentContext;
    QList<KubeCluster> m_clusters;
    QList<KubeUser> m_users;
    QList<Unsupported> m_unsupported; // one per m_users entry
    QList<KubeContext> m_contexts;
};

// The contexts the files hold, for the profile dialog (no credential is read).
Result<ContextList> contextsIn(const QStringList &files);

// In-cluster config (client-go's InClusterConfig): https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT
// (an IPv6 host in brackets), the service account's token (read again as it rotates), ca.crt and
// namespace, from environment.serviceAccountDir. NotFound when the two variables are not set.
Result<Connection> inClusterConnection(const Environment &environment = Environment::system(),
                                       const ResolveOptions &options = {});

// AgentScope's lookup order: an explicit kubeconfig file; else in-cluster (when no context is
// named: a named context lives in a kubeconfig); else the default kubeconfig ($KUBECONFIG or
// ~/.kube/config). When nothing is found the message says where it looked.
Result<Connection> lookupConnection(const QString &explicitFile, const QString &contextName,
                                    const ResolveOptions &options = {},
                                    const Environment &environment = Environment::system());

} // namespace Paddock::Kubernetes
