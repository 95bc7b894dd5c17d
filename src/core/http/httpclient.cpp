#include "httpclient.h"

#include "../bulk.h"
#include "../canceltoken.h"
#include "../logging.h"
#include "../tr.h"

#include <QCoroNetworkReply>
#include <QCoroTask>

#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QPointer>
#include <QRegularExpression>
#include <QTimeZone>
#include <QTimer>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <utility>

#include <curl/curl.h>

Q_LOGGING_CATEGORY(lcHttp, "paddock.core.http", QtInfoMsg)

namespace Paddock::Http {

namespace {

// 500 too: a request that is safe to repeat is repeated after an internal error (Kubernetes'
// API server answers a failed etcd round trip with 500 InternalError), as after a gateway's 502.
constexpr int NotConnectedAttempts = 4;
constexpr int TimedOutAttempts = 2;

// Requests that carry no body and say no Content-Length (RFC 9110 §8.6: a user agent should not
// send one where the method defines no meaning for a body).
bool hasNoBodyByNature(const QByteArray &method)
{
    return method == "GET" || method == "HEAD" || method == "DELETE";
}

bool isRetryableStatus(int status)
{
    return status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
}

bool isConnectionError(QNetworkReply::NetworkError error)
{
    switch (error) {
    case QNetworkReply::ConnectionRefusedError:
    case QNetworkReply::RemoteHostClosedError:
    case QNetworkReply::TimeoutError:
    case QNetworkReply::TemporaryNetworkFailureError:
    case QNetworkReply::NetworkSessionFailedError:
    case QNetworkReply::ProxyConnectionRefusedError:
    case QNetworkReply::ProxyConnectionClosedError:
    case QNetworkReply::ProxyTimeoutError:
    case QNetworkReply::UnknownNetworkError:
    case QNetworkReply::OperationCanceledError: // the transfer timeout (we never abort ourselves)
    case QNetworkReply::ContentReSendError: // closed before an answer; Qt may not send it again
        return true;
    default:
        return false;
    }
}

// No connection was made: the request never left.
bool isNotConnected(QNetworkReply::NetworkError error)
{
    return error == QNetworkReply::ConnectionRefusedError || error == QNetworkReply::HostNotFoundError
        || error == QNetworkReply::ProxyConnectionRefusedError || error == QNetworkReply::ProxyNotFoundError;
}

HttpResponse readResponse(QNetworkReply *reply)
{
    HttpResponse response;
    response.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    response.body = reply->readAll();
    for (const auto &[name, value] : reply->rawHeaderPairs())
        response.headers.insert(name.toLower(), value);
    response.requestId = QString::fromLatin1(response.headers.value(QByteArrayLiteral("x-request-id")));
    return response;
}

// No answer: why, in words, and whether the request never left.
Error transportError(const HttpRequest &request, QNetworkReply *reply)
{
    const QNetworkReply::NetworkError networkError = reply->error();
    QString reason = reply->errorString();
    if (networkError == QNetworkReply::OperationCanceledError)
        reason = Tr::tr("no answer within %1 s").arg(double(request.transferTimeout.count()) / 1000.0);
    else if (networkError == QNetworkReply::ContentReSendError)
        reason = Tr::tr("the server closed the connection without answering");
    else if (networkError == QNetworkReply::NoError || networkError == QNetworkReply::UnknownNetworkError)
        reason = Tr::tr("the connection ended without an answer"); // Qt's words: "Unknown error"
    Error error = Error::unreachable(Tr::tr("%1 %2 failed: %3")
                                         .arg(QString::fromLatin1(request.method),
                                              request.url.toString(QUrl::RemoveUserInfo | QUrl::RemoveQuery), reason));
    error.notConnected = isNotConnected(networkError);
    return error;
}

} // namespace

OneShotBody::OneShotBody(QByteArray data, QObject *parent)
    : QIODevice(parent)
    , m_data(std::move(data))
{
    open(QIODevice::ReadOnly);
}

qint64 OneShotBody::bytesAvailable() const
{
    return m_data.size() - m_offset + QIODevice::bytesAvailable();
}

qint64 OneShotBody::readData(char *data, qint64 maxSize)
{
    if (m_offset >= m_data.size())
        return -1;
    const qint64 count = std::min<qint64>(maxSize, m_data.size() - m_offset);
    std::memcpy(data, m_data.constData() + m_offset, size_t(count));
    m_offset += count;
    return count;
}

qint64 OneShotBody::writeData(const char *, qint64)
{
    return -1;
}

QNetworkReply *sendOnce(QNetworkAccessManager *network, QNetworkRequest request, const QByteArray &method,
                        const QByteArray &body)
{
    request.setHeader(QNetworkRequest::ContentLengthHeader, body.size());
    request.setAttribute(QNetworkRequest::DoNotBufferUploadDataAttribute, true);
    auto *device = new OneShotBody(body);
    QNetworkReply *reply = network->sendCustomRequest(request, method, device);
    device->setParent(reply); // read until the reply is done, deleted with it
    return reply;
}

Error::Kind kindForStatus(int status)
{
    if (status == 404)
        return Error::Kind::NotFound;
    if (status == 409)
        return Error::Kind::Conflict;
    return Error::Kind::Backend;
}

Error defaultErrorDecoder(const HttpResponse &response)
{
    QString body = QString::fromUtf8(response.body.left(300)).simplified();
    QString message =
        body.isEmpty() ? Tr::tr("HTTP %1").arg(response.status) : Tr::tr("HTTP %1: %2").arg(response.status).arg(body);
    return Error{kindForStatus(response.status), message, response.status};
}

void ReplyDeleter::operator()(QNetworkReply *reply) const
{
    reply->deleteLater();
}

std::optional<std::chrono::milliseconds> retryAfterDelay(const QByteArray &value, const QDateTime &now)
{
    const QByteArray trimmed = value.trimmed();
    if (trimmed.isEmpty())
        return std::nullopt;
    if (std::all_of(trimmed.cbegin(), trimmed.cend(), [](char c) { return c >= '0' && c <= '9'; })) {
        // delta-seconds; one too long for 64 bits is simply very long (the caller caps it).
        bool ok = false;
        const qint64 seconds = trimmed.toLongLong(&ok);
        return std::chrono::milliseconds(ok && seconds < std::numeric_limits<qint64>::max() / 1000
                                             ? seconds * 1000
                                             : std::numeric_limits<qint64>::max());
    }
    // An HTTP date. curl_getdate reads all three forms, but takes a two-digit year (RFC 850)
    // below 70 for 20xx and above for 19xx; RFC 9110 wants it read relative to now: a year more
    // than 50 years ahead is the most recent past year with those digits. So that year is
    // written out in full first.
    QByteArray date = trimmed;
    static const QRegularExpression rfc850(QStringLiteral("^[A-Za-z]+, *\\d{1,2}-[A-Za-z]{3}-(\\d{2})(?=\\s)"));
    if (const QRegularExpressionMatch match = rfc850.match(QString::fromLatin1(trimmed)); match.hasMatch()) {
        const int thisYear = now.toUTC().date().year();
        int year = thisYear / 100 * 100 + match.capturedView(1).toInt();
        if (year > thisYear + 50)
            year -= 100;
        else if (year <= thisYear - 50)
            year += 100;
        date.replace(match.capturedStart(1), 2, QByteArray::number(year));
    }
    const time_t when = curl_getdate(date.constData(), nullptr);
    if (when == -1)
        return std::nullopt;
    const QDateTime at = QDateTime::fromSecsSinceEpoch(qint64(when), QTimeZone::utc());
    return std::chrono::milliseconds(std::max<qint64>(0, now.msecsTo(at)));
}

HttpClient::HttpClient(QNetworkAccessManager *network, RetryPolicy retry, QObject *parent)
    : QObject(parent)
    , m_network(network)
    , m_given(network)
    , m_retry(retry)
{
    watch(m_network);
}

std::unique_ptr<QNetworkAccessManager> HttpClient::makeManager() const
{
    auto manager = std::make_unique<QNetworkAccessManager>();
    manager->setProxy(m_given->proxy());
    return manager;
}

void HttpClient::watch(QNetworkAccessManager *manager)
{
    // One `encrypted` per new TLS connection (the reply that made it).
    connect(manager, &QNetworkAccessManager::encrypted, this, [this, manager] {
        if (++m_handshakes[manager] >= RetireAfterHandshakes && !m_retiring.contains(manager))
            retire(manager);
    });
}

void HttpClient::retire(QNetworkAccessManager *manager)
{
    qCDebug(lcHttp) << "retiring a network manager after" << m_handshakes.value(manager) << "TLS handshakes";
    m_retiring.insert(manager);
    ++m_retiredCount;
    if (manager == m_network) {
        if (m_ownFirst)
            m_retired.push_back(std::move(m_ownFirst));
        m_ownFirst = makeManager();
        m_network = m_ownFirst.get();
        watch(m_network);
    } else {
        const auto extra = std::find_if(m_extra.begin(), m_extra.end(),
                                        [manager](const auto &owned) { return owned.get() == manager; });
        if (extra != m_extra.end()) {
            m_retired.push_back(std::move(*extra));
            m_extra.erase(extra);
        }
    }
    if (m_busy.value(manager) == 0)
        doneWith(manager);
}

void HttpClient::doneWith(QNetworkAccessManager *manager)
{
    const int busy = m_busy.value(manager) > 0 ? --m_busy[manager] : 0;
    if (busy > 0 || !m_retiring.contains(manager))
        return;
    // Its last request has ended. Let go of it from the event loop, once the coroutine that
    // ended that request has let go of its reply (a child of the manager).
    QTimer::singleShot(0, this, [this, manager] {
        if (m_busy.value(manager) > 0 || !m_retiring.remove(manager))
            return;
        m_busy.remove(manager);
        m_handshakes.remove(manager);
        disconnect(manager, nullptr, this, nullptr);
        // The owner's is only no longer used here: others may send on it (execd's command
        // streams), so its connections are left to Qt's idle expiry.
        const auto retired = std::find_if(m_retired.begin(), m_retired.end(),
                                          [manager](const auto &owned) { return owned.get() == manager; });
        if (retired == m_retired.end())
            return;
        // Deleted from the event loop's own level, never inside a loop nested in a reply's
        // signal; with this client if it goes first.
        QNetworkAccessManager *going = retired->release();
        m_retired.erase(retired);
        going->setParent(this);
        going->deleteLater();
    });
}

int HttpClient::liveManagers() const
{
    return 1 + int(m_extra.size()) + int(m_retired.size()) + (m_retiring.contains(m_given) ? 1 : 0)
        + int(findChildren<QNetworkAccessManager *>(Qt::FindDirectChildrenOnly).size()); // going
}

HttpClient::~HttpClient()
{
    abortAll();
}

void HttpClient::abortAll()
{
    m_closing = true;
    // abort() finishes a reply at once, which resumes the coroutine waiting on it; so does
    // closing the waits. Taken one at a time from the set itself: what a resumed coroutine
    // does next can end another request, which then leaves the set.
    while (!m_replies.isEmpty()) {
        QNetworkReply *reply = *m_replies.cbegin();
        m_replies.remove(reply);
        reply->abort();
    }
    m_waits.close();
}

Error HttpClient::closedError()
{
    return Error{Error::Kind::Cancelled, Tr::tr("cancelled: the connection to the server was closed")};
}

Error HttpClient::cancelledError()
{
    return Error{Error::Kind::Cancelled, Tr::tr("cancelled")};
}

QCoro::Task<bool> HttpClient::sleep(std::chrono::milliseconds delay, std::shared_ptr<CancelToken> cancel)
{
    if (m_closing)
        co_return false;
    co_return co_await m_waits.sleep(delay, std::move(cancel));
}

QCoro::Task<bool> HttpClient::waitFor(QFuture<void> work)
{
    if (m_closing)
        co_return false;
    const bool finished = co_await m_waits.finished(std::move(work), WaitSet::OnClose::Drop);
    co_return finished && !m_closing;
}

void HttpClient::setMaxConnections(int connections)
{
    m_maxConnections = std::max(connections, 1);
}

// GCC 12: requests are built outside the coroutines.
QNetworkRequest HttpClient::networkRequest(const HttpRequest &request) const
{
    QNetworkRequest network(request.url);
    network.setTransferTimeout(int(request.transferTimeout.count()));
    network.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    if (!request.body.isEmpty())
        network.setHeader(QNetworkRequest::ContentTypeHeader, request.contentType);
    network.setRawHeader(QByteArrayLiteral("Accept"), request.accept);
    for (const auto &[name, value] : request.headers)
        network.setRawHeader(name, value);
    if (m_ssl)
        network.setSslConfiguration(*m_ssl);
    if (!m_peerVerifyName.isEmpty())
        network.setPeerVerifyName(m_peerVerifyName);
    return network;
}

QNetworkAccessManager *HttpClient::pickManager()
{
    // The least busy manager that still has a free connection; a new one while we may.
    QNetworkAccessManager *best = m_network;
    for (const auto &extra : m_extra) {
        if (m_busy.value(extra.get()) < m_busy.value(best))
            best = extra.get();
    }
    const int managers = int(m_extra.size()) + 1;
    if (m_busy.value(best) >= ConnectionsPerManager && managers * ConnectionsPerManager < m_maxConnections) {
        m_extra.push_back(makeManager());
        best = m_extra.back().get();
        watch(best);
    }
    return best;
}

QCoro::Task<Result<HttpResponse>> HttpClient::send(HttpRequest request)
{
    const QNetworkRequest network = networkRequest(request);
    auto delay = m_retry.firstDelay;
    bool mayHaveRun = false; // an earlier attempt whose outcome is unknown
    const auto failed = [&mayHaveRun](Error error) {
        error.earlierAttemptMayHaveRun = mayHaveRun;
        return fail(std::move(error));
    };
    for (int attempt = 1;; ++attempt) {
        if (m_closing)
            co_return fail(closedError());
        if (request.cancel && request.cancel->isCancelled())
            co_return fail(cancelledError());
        ++m_attempts;
        QNetworkAccessManager *manager = pickManager();
        std::unique_ptr<QNetworkReply, ReplyDeleter> reply;
        // Every body goes once: Qt would send it again on its own when a kept-alive connection
        // closes before the answer, and a retry-safe DELETE's 404 then hid that its first
        // attempt may have run. Retried here instead, where that is known.
        if (!request.body.isEmpty()) {
            reply.reset(sendOnce(manager, network, request.method, request.body));
        } else if (hasNoBodyByNature(request.method)) {
            // No upload device at all: Qt's QByteArray overload wraps even an empty body in a
            // QBuffer, and a request with a device costs a byte-device wrapper, its signals
            // and a cross-thread upload (13% of a 10,000-sandbox E2B listing's time).
            reply.reset(manager->sendCustomRequest(network, request.method));
        } else {
            // An empty POST or PUT still says Content-Length: 0 (some servers want it: 411).
            reply.reset(manager->sendCustomRequest(network, request.method, request.body));
        }
        ++m_busy[manager];
        m_maxInFlight = std::max(m_maxInFlight, ++m_inFlight);
        m_replies.insert(reply.get());
        // Aborted from the event loop, so that the caller of cancel() is not the one resumed.
        QNetworkReply *const sent = reply.get();
        const int cancelId = request.cancel ? request.cancel->onCancel([sent] {
            QMetaObject::invokeMethod(sent, &QNetworkReply::abort, Qt::QueuedConnection);
        })
                                            : 0;
        co_await reply.get();
        if (request.cancel)
            request.cancel->remove(cancelId);
        m_replies.remove(reply.get());
        doneWith(manager);
        --m_inFlight;
        if (m_closing)
            co_return fail(closedError());
        if (request.cancel && request.cancel->isCancelled())
            co_return fail(cancelledError());

        const QNetworkReply::NetworkError networkError = reply->error();
        const HttpResponse response = readResponse(reply.get());
        const bool answered = response.status != 0;
        qCDebug(lcHttp).noquote() << request.method << request.url.toString(QUrl::RemoveUserInfo) << "->"
                                  << response.status << response.requestId;

        if (answered && response.status >= 200 && response.status < 300)
            co_return response;

        const bool notConnected = !answered && isNotConnected(networkError);
        // Nothing listening is a server down more often than a blip: tried four times at most
        // (1.75 s, a restart's length), so that a console says "unreachable" soon. No answer
        // within the transfer timeout is tried once more only: a server that holds requests
        // (execd of a paused sandbox) would otherwise keep a caller, and a quit, for minutes.
        const bool timedOut = !answered && networkError == QNetworkReply::OperationCanceledError;
        const int attempts = notConnected ? std::min(m_retry.maxAttempts, NotConnectedAttempts)
            : timedOut                    ? std::min(m_retry.maxAttempts, TimedOutAttempts)
                                          : m_retry.maxAttempts;
        const bool retryable = request.retrySafe && attempt < attempts
            && (answered ? isRetryableStatus(response.status)
                         : isConnectionError(networkError) && (request.retryNotConnected || !notConnected));
        if (!retryable) {
            if (answered) {
                co_return failed(m_decodeError(response));
            }
            co_return failed(transportError(request, reply.get()));
        }
        if (answered ? response.status == 500 || response.status == 502 || response.status == 504 : !notConnected)
            mayHaveRun = true;

        auto wait = delay;
        if (const auto asked = retryAfterDelay(response.headers.value(QByteArrayLiteral("retry-after")),
                                               QDateTime::currentDateTimeUtc()))
            wait = std::min(*asked, std::chrono::milliseconds(60'000));
        qCInfo(lcHttp).noquote() << request.method << request.url.toString(QUrl::RemoveUserInfo | QUrl::RemoveQuery)
                                 << "attempt" << attempt << "failed ("
                                 << (answered ? QString::number(response.status) : reply->errorString())
                                 << "); retrying in" << wait.count() << "ms";
        reply.reset();
        if (!co_await sleep(wait, request.cancel))
            co_return fail(closedError());
        delay = std::min(m_retry.maxDelay, std::chrono::milliseconds(qint64(double(delay.count()) * m_retry.factor)));
    }
}

QCoro::Task<Result<HttpResponse>> HttpClient::stream(HttpRequest request, std::function<void(QByteArrayView)> onData,
                                                     std::shared_ptr<CancelToken> cancel,
                                                     std::function<void()> onOpened)
{
    if (m_closing)
        co_return fail(closedError());
    const QNetworkRequest network = networkRequest(request);
    ++m_attempts;
    QNetworkAccessManager *manager = pickManager();
    std::unique_ptr<QNetworkReply, ReplyDeleter> reply(request.body.isEmpty()
                                                           ? manager->sendCustomRequest(network, request.method)
                                                           : sendOnce(manager, network, request.method, request.body));
    bool cancelled = false;
    const auto status = [&reply] { return reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(); };
    if (onOpened) {
        QObject::connect(reply.get(), &QNetworkReply::metaDataChanged, reply.get(), [&, opened = false]() mutable {
            if (!opened && status() >= 200 && status() < 300) {
                opened = true;
                onOpened();
            }
        });
    }
    QObject::connect(reply.get(), &QNetworkReply::readyRead, reply.get(), [&] {
        // An error answer is kept whole for its decoder; a good one is handed on as it comes.
        if (status() < 200 || status() >= 300)
            return;
        if (cancel && cancel->isCancelled()) {
            cancelled = true;
            reply->abort();
            return;
        }
        const QByteArray data = reply->readAll();
        if (!data.isEmpty() && onData)
            onData(data);
    });
    // A cancelled stream that is silent ends within a second.
    QTimer poll;
    if (cancel) {
        poll.setInterval(1000);
        QObject::connect(&poll, &QTimer::timeout, reply.get(), [&] {
            if (cancel->isCancelled()) {
                cancelled = true;
                reply->abort();
            }
        });
        poll.start();
    }
    ++m_busy[manager];
    m_maxInFlight = std::max(m_maxInFlight, ++m_inFlight);
    m_replies.insert(reply.get());
    co_await reply.get();
    m_replies.remove(reply.get());
    doneWith(manager);
    --m_inFlight;
    poll.stop();
    if (m_closing)
        co_return fail(closedError());
    if (cancelled)
        co_return fail(Error{Error::Kind::Cancelled, Tr::tr("cancelled")});

    HttpResponse response = readResponse(reply.get());
    qCDebug(lcHttp).noquote() << request.method << request.url.toString(QUrl::RemoveUserInfo) << "-> stream"
                              << response.status;
    if (response.status >= 200 && response.status < 300) {
        if (!response.body.isEmpty() && onData)
            onData(response.body);
        response.body.clear();
        // A stream cut short after a good start is a dropped connection, not an answer.
        if (reply->error() != QNetworkReply::NoError)
            co_return fail(transportError(request, reply.get()));
        co_return response;
    }
    if (response.status != 0)
        co_return fail(m_decodeError(response));
    co_return fail(transportError(request, reply.get()));
}

} // namespace Paddock::Http
