#pragma once

#include "../result.h"
#include "../waitset.h"

#include <QCoroFwd>

#include <QByteArray>
#include <QDateTime>
#include <QFuture>
#include <QHash>
#include <QIODevice>
#include <QList>
#include <QNetworkRequest>
#include <QObject>
#include <QSet>
#include <QSslConfiguration>
#include <QUrl>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

class QNetworkAccessManager;
class QNetworkReply;

namespace Paddock {
class CancelToken;
}

namespace Paddock::Http {

struct HttpRequest
{
    QByteArray method = "GET";
    QUrl url;
    QByteArray body; // sent with contentType when not empty
    QByteArray contentType = "application/json";
    QByteArray accept = "application/json";
    QList<std::pair<QByteArray, QByteArray>> headers;
    // Safe to send again after a connection error, 429, 502, 503 or 504. Only requests that the
    // backend's protocol reference says may repeat (GETs, and the calls it names) set it.
    bool retrySafe = false;
    // With retrySafe: also retry when no connection could be made (refused, no such host).
    // execd's requests do not: an execd that refuses is gone from that address, and the backend
    // fetches its endpoint again instead of knocking on the old one.
    bool retryNotConnected = true;
    std::chrono::milliseconds transferTimeout{30'000}; // idle timeout; 0: none (streams)
    // send(): cancelled before or while the request is on the wire, or while it waits to be
    // tried again, it ends at once with a Cancelled error (the reply is aborted from the event
    // loop, never inside cancel()). A read that a server holds (execd of a sandbox just paused)
    // is let go this way without ending the client's other requests.
    std::shared_ptr<CancelToken> cancel;
};

struct HttpResponse
{
    int status = 0;
    QByteArray body;
    QString requestId; // X-Request-ID
    QHash<QByteArray, QByteArray> headers; // lower-case names
};

struct RetryPolicy
{
    // Six attempts, 0.25 + 0.5 + 1 + 2 + 4 s apart at most: under 30% of requests failing (the
    // soak's faults) one in 1,400 retry-safe requests still fails, where four attempts failed one
    // in 120 and a workspace's open, a dozen requests, one in ten.
    int maxAttempts = 6;
    std::chrono::milliseconds firstDelay{250};
    double factor = 2.0;
    std::chrono::milliseconds maxDelay{8'000};
};

// Owns a QNetworkReply for the length of one request; deleteLater, since the reply may still
// be emitting when its owner lets go.
struct ReplyDeleter
{
    void operator()(QNetworkReply *reply) const;
};

// A request body that can be read only once. Qt's HTTP layer sends a request again on its own
// when the server closes the connection before answering (up to twice, whatever the method);
// for a create that is a second sandbox, for an execd command a second run. A body Qt may not
// buffer and cannot rewind makes that resend fail with ContentReSendError instead, and the
// caller learns that the outcome is unknown.
class OneShotBody final : public QIODevice
{
public:
    explicit OneShotBody(QByteArray data, QObject *parent = nullptr);

    bool isSequential() const override { return true; }
    bool reset() override { return false; }
    qint64 bytesAvailable() const override;

protected:
    qint64 readData(char *data, qint64 maxSize) override;
    qint64 writeData(const char *data, qint64 maxSize) override;

private:
    QByteArray m_data;
    qint64 m_offset = 0;
};

// Sends a request that must not be repeated, with a OneShotBody.
QNetworkReply *sendOnce(QNetworkAccessManager *network, QNetworkRequest request, const QByteArray &method,
                        const QByteArray &body);

// The delay a Retry-After header asks for, relative to now: delta-seconds, or an HTTP date in
// any of its three forms (RFC 9110 §5.6.7: IMF-fixdate, the obsolete RFC 850 form with a
// two-digit year, asctime). A date in the past asks for no delay; nullopt: not a valid value.
std::optional<std::chrono::milliseconds> retryAfterDelay(const QByteArray &value, const QDateTime &now);

// What an error answer means: the Error a non-2xx response becomes. Each protocol has its own
// error body (OpenSandbox's {code, message}, Kubernetes' Status); the client over this one
// installs its decoder. The default names the status and the start of the body.
using ErrorDecoder = std::function<Error(const HttpResponse &)>;
Error defaultErrorDecoder(const HttpResponse &response);
// The kind of Error an HTTP status is: 404 NotFound, 409 Conflict, anything else Backend.
Error::Kind kindForStatus(int status);

// The one HTTP layer of the core's remote backends (OpenSandbox, Kubernetes): round trips and
// streams over QNetworkAccessManager, with retries only for requests marked safe to repeat,
// transfer (idle) timeouts, and error answers turned into Errors by the protocol's decoder
// (which names the HTTP status and the server's reason and message). Header values are never
// logged.
class HttpClient final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HttpClient)

public:
    explicit HttpClient(QNetworkAccessManager *network, RetryPolicy retry = {}, QObject *parent = nullptr);
    ~HttpClient() override;

    QCoro::Task<Result<HttpResponse>> send(HttpRequest request);
    // A streamed answer (a watch, a followed log): once a 2xx status arrives, `onData` gets the
    // body as it comes, in pieces cut anywhere; the task ends when the server ends the body,
    // the connection drops (Unreachable), `cancel` is set (checked as data arrives and every
    // second: Cancelled) or abortAll() is called. A non-2xx answer is read whole and decoded
    // like send()'s. Never retried and never timed out by the client unless
    // request.transferTimeout says so; the returned response has the status and headers and an
    // empty body. `onOpened` is called once, when a 2xx status has arrived (the stream is up).
    QCoro::Task<Result<HttpResponse>> stream(HttpRequest request, std::function<void(QByteArrayView)> onData,
                                             std::shared_ptr<CancelToken> cancel = {},
                                             std::function<void()> onOpened = {});

    void setErrorDecoder(ErrorDecoder decoder) { m_decodeError = std::move(decoder); }
    // TLS: the certificates to trust and the client certificate (a kubeconfig's), for every
    // request of this client. Without one, Qt's default configuration (the system's CAs).
    void setSslConfiguration(const QSslConfiguration &configuration) { m_ssl = configuration; }
    const std::optional<QSslConfiguration> &sslConfiguration() const { return m_ssl; }
    // The name the server's certificate is checked against, when it is not the URL's host (a
    // kubeconfig's tls-server-name). The TLS SNI still follows the URL's host.
    void setPeerVerifyName(const QString &name) { m_peerVerifyName = name; }
    // The QNetworkRequest send() would make (URL, headers, TLS settings): for connections made
    // outside this client over the same settings, such as a websocket.
    QNetworkRequest networkRequest(const HttpRequest &request) const;

    // How many times send() went to the network, retries included (for tests and diagnostics).
    int attempts() const { return m_attempts; }
    // How many waits (between retries, of clients over this one, for work on other threads)
    // are under way.
    int sleepingCount() const { return m_waits.size(); }
    // The most requests this client ever had on the wire at once.
    int maxInFlight() const { return m_maxInFlight; }

    // A network manager keeps one TLS context per host, and Qt has OpenSSL cache every session
    // a server gives it there (two tickets per connection, each holding the server's
    // certificate) for the ticket's lifetime: 2 hours, a week on Go servers. A client that
    // opens connection after connection (dropped ones, a watch at a time) grew by megabytes an
    // hour. So a manager that made this many TLS handshakes is retired: new requests go to a
    // fresh one, and the old one, with its cache, goes once its last request has ended.
    static constexpr int RetireAfterHandshakes = 128;
    // How many managers were retired so far (tests, diagnostics).
    int retiredManagers() const { return m_retiredCount; }
    // How many managers this client holds now, retired ones still draining included.
    int liveManagers() const;

    // QNetworkAccessManager opens at most six connections to one host and queues the rest. To
    // keep up to `connections` requests really in flight (a bulk pause at concurrency 16),
    // requests beyond six at a time go through extra managers, six each. Default 6: one manager.
    void setMaxConnections(int connections);

    // Aborts every request in flight (each fails at once, without retries) and refuses new
    // ones. The owner calls it before it goes away, so that no coroutine waits forever on a
    // reply its network manager deleted. The destructor calls it too.
    void abortAll();
    bool isClosing() const { return m_closing; }
    // Waits `delay`, and says whether the client is still open: abortAll() (and so the
    // destructor) ends every sleep at once, resuming its coroutine while the objects it belongs
    // to still exist. Every wait between retries of this client and of the clients over it
    // sleeps here, so that no coroutine wakes later into a client that is gone.
    QCoro::Task<bool> sleep(std::chrono::milliseconds delay, std::shared_ptr<CancelToken> cancel = {});
    // Waits for work on another thread (a QtConcurrent::run of a function that touches no
    // object of ours), and says whether the client is still open, as sleep() does: abortAll()
    // ends the wait at once, the work goes on and what it makes is dropped. A client over this
    // one that must come back to itself after such work waits here.
    QCoro::Task<bool> waitFor(QFuture<void> work);
    // What a request or a wait ended by abortAll() returns: Error::Kind::Cancelled.
    static Error closedError();
    // What a request whose HttpRequest::cancel was cancelled returns: Error::Kind::Cancelled.
    static Error cancelledError();
    // Streams sent outside send() (execd's command stream) are aborted with the rest.
    void track(QNetworkReply *reply) { m_replies.insert(reply); }
    void untrack(QNetworkReply *reply) { m_replies.remove(reply); }

private:
    QNetworkAccessManager *pickManager();
    // A manager of our own, with the given one's proxy (a kubeconfig's proxy-url).
    std::unique_ptr<QNetworkAccessManager> makeManager() const;
    void watch(QNetworkAccessManager *manager);
    void retire(QNetworkAccessManager *manager);
    void doneWith(QNetworkAccessManager *manager); // a request on it has ended

    QNetworkAccessManager *m_network; // the first manager; given, or made here once the given one retired
    const QNetworkAccessManager *m_given; // the manager the owner gave, never deleted here
    std::unique_ptr<QNetworkAccessManager> m_ownFirst;
    std::vector<std::unique_ptr<QNetworkAccessManager>> m_extra;
    std::vector<std::unique_ptr<QNetworkAccessManager>> m_retired; // draining
    QHash<QNetworkAccessManager *, int> m_busy;
    QHash<QNetworkAccessManager *, int> m_handshakes;
    QSet<const QNetworkAccessManager *> m_retiring;
    int m_retiredCount = 0;
    int m_maxConnections = ConnectionsPerManager;
    int m_inFlight = 0;
    int m_maxInFlight = 0;
    QSet<QNetworkReply *> m_replies; // in flight
    WaitSet m_waits; // sleep() and waitFor() under way
    bool m_closing = false;
    static constexpr int ConnectionsPerManager = 6;
    RetryPolicy m_retry;
    int m_attempts = 0;
    ErrorDecoder m_decodeError = defaultErrorDecoder;
    std::optional<QSslConfiguration> m_ssl;
    QString m_peerVerifyName;
};

} // namespace Paddock::Http
