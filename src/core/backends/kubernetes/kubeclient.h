#pragma once

// The REST calls of the Kubernetes backend (kubernetes-protocol.md §2) in one namespace, over the
// core's HTTP layer: pods and persistentvolumeclaims (get, create, delete, list with paging,
// watch), the namespace, pod logs (a tail and a followed stream), and the request an exec
// websocket starts from.

#include "../../canceltoken.h"
#include "../../http/httpclient.h"
#include "../../result.h"
#include "kubeconfig.h"
#include "kubeobjects.h"
#include "poddetails.h"

#include <QCoroFwd>

#include <QByteArray>
#include <QJsonObject>
#include <QNetworkRequest>
#include <QObject>
#include <QString>
#include <QUrl>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

namespace Paddock {
class CancelToken;
}

namespace Paddock::Kubernetes {

// Where the API server is, how to reach it (kubeconfig.h) and the namespace of the workspaces.
struct ClusterTarget
{
    Connection connection;
    QString ns = DefaultNamespace;

    const QUrl &server() const { return connection.server; }
    const QString &description() const { return connection.description; }
};

// Decodes the API server's Status bodies (§2.8): "HTTP 404 NotFound: pods \"x\" not found";
// non-JSON bodies keep the status and the start of the body. 404 NotFound, 409 Conflict (both
// AlreadyExists and Conflict).
Error decodeStatus(const Http::HttpResponse &response);
// The `reason` of a Status body, if it is one.
QString statusReason(const QByteArray &body);

enum class Resource { Pods, PersistentVolumeClaims };

struct WatchOutcome
{
    QString resourceVersion; // where to go on from (the last event's or bookmark's)
    bool expired = false; // an ERROR 410 event: list again
};

class KubeClient final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(KubeClient)

public:
    KubeClient(ClusterTarget target, Http::RetryPolicy retry = {}, QObject *parent = nullptr);
    ~KubeClient() override;

    const ClusterTarget &target() const { return m_target; }
    Http::HttpClient *http() const { return m_http.get(); }
    void abortAll();

    QCoro::Task<Result<bool>> namespaceExists();
    QCoro::Task<Result<>> createNamespace();

    // nullopt: there is none (404).
    QCoro::Task<Result<std::optional<PodView>>> getPod(QString name);
    QCoro::Task<Result<std::optional<PvcView>>> getPvc(QString name);
    // The same GET as getPod, read with what the overview shows too (parsePodDetails).
    QCoro::Task<Result<std::optional<PodDetails>>> getPodDetails(QString name);
    // 409 AlreadyExists is Error::Kind::Conflict.
    QCoro::Task<Result<PodView>> createPod(QJsonObject manifest);
    QCoro::Task<Result<PvcView>> createPvc(QJsonObject manifest);
    // false: there was none (404). gracePeriod: DeleteOptions.gracePeriodSeconds, in the body.
    QCoro::Task<Result<bool>> deletePod(QString name, std::optional<int> gracePeriodSeconds = std::nullopt);
    QCoro::Task<Result<bool>> deletePvc(QString name);

    // Every page (limit `pageSize`, following `continue`; an expired token starts over once),
    // parsed on a worker thread. The list's resourceVersion is where a watch starts.
    QCoro::Task<Result<ListPage<PodView>>> listPods(QString labelSelector, int pageSize = 500);
    QCoro::Task<Result<ListPage<PvcView>>> listPvcs(QString labelSelector, int pageSize = 500);
    // Ends the listings under way (and every later one) with a Cancelled error: an API server
    // that takes a listing and never answers would hold a closing profile for its timeouts.
    void cancelReads() { m_reads->cancel(); }

    // Watches from `resourceVersion` with bookmarks until the server ends the stream (after
    // `timeout`), the connection drops, or `cancel`; `onEvent` gets each event as it arrives,
    // `onOpened` (if any) is called once the server accepted the watch.
    QCoro::Task<Result<WatchOutcome>> watch(Resource resource, QString labelSelector, QString resourceVersion,
                                            std::chrono::seconds timeout,
                                            std::function<void(const WatchEvent &)> onEvent,
                                            std::shared_ptr<CancelToken> cancel, std::function<void()> onOpened = {});

    // The last `tail` lines of the workspace container's log with timestamps.
    QCoro::Task<Result<QByteArray>> podLog(QString name, int tail);
    // GET /apis/metrics.k8s.io/v1beta1/namespaces/<ns>/pods?labelSelector=...: the metrics API's
    // PodMetricsList, raw (MetricsWire::parsePodMetricsList). A cluster without the metrics API
    // (no metrics-server) answers 404.
    QCoro::Task<Result<QByteArray>> podMetrics(QString labelSelector);
    // The log as it is written (follow=true), from `tail` lines back, until the container stops,
    // the connection drops, or `cancel`.
    QCoro::Task<Result<>> followPodLog(QString name, int tail, std::function<void(QByteArrayView)> onData,
                                       std::shared_ptr<CancelToken> cancel);

    // The request an exec websocket of this Pod starts from: URL .../pods/{name}/exec (no query),
    // the credentials and the TLS settings.
    QCoro::Task<Result<QNetworkRequest>> execRequest(QString name);

    // The URL of a path under the namespace (pods/x, persistentvolumeclaims).
    QUrl namespacedUrl(const QString &path) const;

private:
    // verb and resource name what RBAC would refuse (plain strings: GCC 12 destroys class
    // temporaries in a co_await expression twice, README.md).
    QCoro::Task<Result<Http::HttpResponse>> send(Http::HttpRequest request, const char *verb, const char *resource);
    // Puts the current credentials on a request; the ones used are kept for a 401.
    QCoro::Task<Result<>> authorize(Http::HttpRequest &request);
    void useIdentity(const Authorization &authorization);
    // 401 and 403 said in words: whose credentials, which verb on which resource.
    Error explain(const Error &error, const QString &verb, const QString &resource);
    // One object by name (nullopt on 404), a create, a delete (false on 404): the same for every
    // resource. `resource` is a plain string (GCC 12 and class temporaries in co_await, README.md).
    template<typename View>
    QCoro::Task<Result<std::optional<View>>> getObject(const char *resource, QString name,
                                                       Result<View> (*parse)(const QByteArray &));
    template<typename View>
    QCoro::Task<Result<View>> createObject(const char *resource, QJsonObject manifest,
                                           Result<View> (*parse)(const QByteArray &));
    QCoro::Task<Result<bool>> deleteObject(const char *resource, QString name, std::optional<int> gracePeriodSeconds);
    template<typename View>
    QCoro::Task<Result<ListPage<View>>> listAll(const char *resource, QString labelSelector, int pageSize,
                                                Result<ListPage<View>> (*parse)(QByteArray));

    ClusterTarget m_target;
    std::unique_ptr<QNetworkAccessManager> m_network;
    std::unique_ptr<Http::HttpClient> m_http;
    std::shared_ptr<CancelToken> m_reads = std::make_shared<CancelToken>(); // listings: cancelReads()
    Authorization m_used; // the last credentials sent
    quint64 m_identityGeneration = 0; // whose plugin client certificate the TLS settings carry
};

} // namespace Paddock::Kubernetes
