#include "curlhttp.h"

#include "../../canceltoken.h"
#include "../../tr.h"

#include <QCoroTask>

#include <QElapsedTimer>
#include <QFile>
#include <QList>
#include <QLoggingCategory>
#include <QSocketNotifier>
#include <QTimer>
#include <QUrl>

#include <curl/curl.h>

#include <algorithm>
#include <cerrno>
#include <coroutine>
#include <utility>

Q_LOGGING_CATEGORY(lcDockerHttp, "paddock.core.docker.http", QtInfoMsg)

namespace Paddock::Docker {

namespace {

constexpr qsizetype ErrorBodyLimit = 1024 * 1024; // what stream() keeps of a non-2xx body
constexpr long ConnectTimeoutMs = 30'000;

QString defaultDockerHost()
{
    return QStringLiteral("unix:///var/run/docker.sock");
}

Error invalidHost(const QString &value)
{
    return Error::invalidArgument(
        Tr::tr("invalid DOCKER_HOST \"%1\": use unix:///path/to/docker.sock, tcp://host:port or http://host:port")
            .arg(value));
}

// Once per process, before the first handle; thread-safe through the static's initialisation.
bool curlReady()
{
    static const CURLcode code = curl_global_init(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK)
        qCWarning(lcDockerHttp) << "curl_global_init failed:" << curl_easy_strerror(code);
    return code == CURLE_OK;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// EngineAddress

QString EngineAddress::display() const
{
    if (kind == Kind::Unix)
        return QStringLiteral("unix://") + socketPath;
    const QString shownHost = host.contains(QLatin1Char(':')) ? QLatin1Char('[') + host + QLatin1Char(']') : host;
    return QStringLiteral("tcp://") + shownHost + QLatin1Char(':') + QString::number(port);
}

Result<EngineAddress> EngineAddress::parse(const QString &dockerHost)
{
    const QString value = dockerHost.trimmed();
    EngineAddress address;
    const QString unixScheme = QStringLiteral("unix://");
    if (value.startsWith(unixScheme)) {
        address.kind = Kind::Unix;
        address.socketPath = value.mid(unixScheme.size());
        if (!address.socketPath.startsWith(QLatin1Char('/')) || address.socketPath.contains(QChar(0)))
            return fail(invalidHost(dockerHost));
        return address;
    }

    const QUrl url(value, QUrl::StrictMode);
    const QString scheme = url.scheme();
    const bool tcp = scheme == QLatin1String("tcp");
    if (!url.isValid() || (!tcp && scheme != QLatin1String("http")) || url.host().isEmpty() || !url.userInfo().isEmpty()
        || url.hasQuery() || url.hasFragment() || (!url.path().isEmpty() && url.path() != QLatin1String("/")))
        return fail(invalidHost(dockerHost));
    // QUrl takes "tcp://host:" (an empty port) for no port; a port, when there is a colon, must be 1-65535.
    const QString authority = value.mid(value.indexOf(QLatin1String("://")) + 3).section(QLatin1Char('/'), 0, 0);
    const qsizetype hostEnd = authority.startsWith(QLatin1Char('[')) ? authority.indexOf(QLatin1Char(']')) : 0;
    if (authority.indexOf(QLatin1Char(':'), hostEnd) >= 0 && url.port() < 1)
        return fail(invalidHost(dockerHost));
    address.kind = Kind::Tcp;
    address.host = url.host();
    address.port = url.port(tcp ? 2375 : 80);
    return address;
}

Result<EngineAddress> EngineAddress::fromEnvironment()
{
    const QString value = qEnvironmentVariable("DOCKER_HOST");
    return parse(value.isEmpty() ? defaultDockerHost() : value);
}

// ---------------------------------------------------------------------------------------------
// One transfer: owned by the coroutine frame that waits for it, known to the client while it is
// on the wire.

struct Transfer
{
    Q_DISABLE_COPY_MOVE(Transfer)
    Transfer() = default;
    ~Transfer();

    CurlHttpClientPrivate *owner = nullptr; // set while the client has it
    CURL *easy = nullptr;
    curl_slist *headerList = nullptr;
    std::function<void(QByteArrayView)> onData; // stream() only
    bool streaming = false;
    bool cancelled = false;
    bool finished = false;
    bool headersEnded = false; // the blank line after the final response's headers came
    CURLcode code = CURLE_OK;
    long osErrno = 0;
    bool connected = false; // the connection was made (else only the connect could time out)
    HttpResponse response;
    char errorBuffer[CURL_ERROR_SIZE] = {};
    std::coroutine_handle<> waiter;

    void complete()
    {
        finished = true;
        if (auto handle = std::exchange(waiter, nullptr))
            handle.resume();
    }
};

// co_await on a Transfer: resumes when the client completes it.
struct TransferDone
{
    Transfer *transfer;
    bool await_ready() const noexcept { return transfer->finished; }
    void await_suspend(std::coroutine_handle<> handle) noexcept { transfer->waiter = handle; }
    void await_resume() const noexcept { }
};

class CurlHttpClientPrivate
{
public:
    CurlHttpClientPrivate(CurlHttpClient *q, EngineAddress address);

    QCoro::Task<Result<HttpResponse>> perform(HttpRequest request, std::function<void(QByteArrayView)> onData,
                                              bool streaming);

    Result<> start(Transfer *transfer, const HttpRequest &request);
    void drive(curl_socket_t socket, int events);
    // Hands back the transfers that ended (in libcurl, or through abortAll()) and resumes
    // their coroutines. Resuming may destroy the client: callers do nothing after it.
    void settle();
    // Takes a transfer off the multi handle and frees its curl objects; it keeps its outcome.
    void detach(Transfer *transfer);
    void forget(Transfer *transfer) { detach(transfer); }
    void abortAll();
    // One transfer's cancel: it ends on the next turn of the event loop (never inside the
    // caller's cancel(), which may be anywhere).
    void cancel(Transfer *transfer);
    void shutdown();

    static int onSocket(CURL *easy, curl_socket_t socket, int what, void *clientp, void *socketp);
    static int onTimer(CURLM *multi, long timeoutMs, void *clientp);

    struct Watch
    {
        QSocketNotifier *read = nullptr;
        QSocketNotifier *write = nullptr;
    };

    QSocketNotifier *watch(curl_socket_t socket, QSocketNotifier::Type type);
    static void retire(QSocketNotifier *notifier);

    CurlHttpClient *q;
    EngineAddress address;
    CURLM *multi = nullptr;
    QTimer timer;
    QHash<curl_socket_t, Watch> watches;
    QList<Transfer *> transfers; // on the wire, in start order
    QList<Transfer *> pendingAdds; // started inside libcurl, not yet on the multi handle
    QList<Transfer *> cancelled; // their HttpRequest::cancel fired: ended by the next settle()
    int depth = 0; // > 0 while inside libcurl (its callbacks may run user code)
    bool abortPending = false;
    bool closing = false;
};

Transfer::~Transfer()
{
    if (owner)
        owner->forget(this);
}

namespace {

size_t onHeader(char *data, size_t size, size_t count, void *userdata)
{
    auto *transfer = static_cast<Transfer *>(userdata);
    const size_t length = size * count;
    const QByteArray line = QByteArray(data, qsizetype(length)).trimmed();
    if (line.startsWith("HTTP/")) {
        // A new status line (after 100 Continue, say): what came before does not count.
        transfer->response.headers.clear();
        transfer->headersEnded = false;
        const QList<QByteArray> parts = line.split(' ');
        transfer->response.status = parts.size() > 1 ? parts.at(1).toInt() : 0;
        return length;
    }
    if (line.isEmpty()) {
        transfer->headersEnded = true;
        return length;
    }
    const qsizetype colon = line.indexOf(':');
    if (colon > 0) {
        const QByteArray name = line.left(colon).trimmed().toLower();
        const QByteArray value = line.mid(colon + 1).trimmed();
        QByteArray &slot = transfer->response.headers[name];
        slot = slot.isEmpty() ? value : slot + ", " + value;
    }
    return length;
}

size_t onBody(char *data, size_t size, size_t count, void *userdata)
{
    auto *transfer = static_cast<Transfer *>(userdata);
    const size_t length = size * count;
    if (transfer->cancelled)
        return 0; // libcurl ends the transfer with CURLE_WRITE_ERROR
    const int status = transfer->response.status;
    if (transfer->streaming && status >= 200 && status < 300) {
        if (transfer->onData)
            transfer->onData(QByteArrayView(data, qsizetype(length)));
        return length;
    }
    const qsizetype room = transfer->streaming ? ErrorBodyLimit - transfer->response.body.size() : length;
    transfer->response.body.append(data, std::clamp<qsizetype>(room, 0, qsizetype(length)));
    return length;
}

// The outcome of a finished transfer; touches no client.
Result<HttpResponse> outcome(Transfer &transfer, const HttpRequest &request, const EngineAddress &address)
{
    if (transfer.cancelled)
        return fail(
            Error{Error::Kind::Cancelled,
                  Tr::tr("%1 %2 to the Docker engine at %3 was cancelled")
                      .arg(QString::fromLatin1(request.method), QString::fromUtf8(request.target), address.display())});
    // libcurl takes a connection that closes inside the headers for a complete answer.
    if (transfer.code == CURLE_OK && !transfer.headersEnded)
        transfer.code = CURLE_RECV_ERROR;
    if (transfer.code == CURLE_OK)
        return std::move(transfer.response);

    const QString reason = transfer.errorBuffer[0] != '\0' ? QString::fromUtf8(transfer.errorBuffer)
        : transfer.code == CURLE_RECV_ERROR ? Tr::tr("the connection closed before the response headers ended")
                                            : QString::fromUtf8(curl_easy_strerror(transfer.code));
    switch (transfer.code) {
    case CURLE_OPERATION_TIMEDOUT: {
        qint64 limitMs = request.timeout.count();
        if (!transfer.connected && (limitMs <= 0 || limitMs > ConnectTimeoutMs))
            limitMs = ConnectTimeoutMs;
        return fail(Error::timeout(
            Tr::tr("%1 %2: no answer from the Docker engine at %3 within %4 s")
                .arg(QString::fromLatin1(request.method), QString::fromUtf8(request.target), address.display())
                .arg(double(limitMs) / 1000.0)));
    }
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST: {
        const int os = int(transfer.osErrno);
        if (address.kind == EngineAddress::Kind::Unix && (os == EACCES || os == EPERM))
            return fail(Error::unreachable(
                Tr::tr("permission denied on %1: add yourself to the docker group or set DOCKER_HOST")
                    .arg(address.socketPath)));
        // curl names "localhost port 80" for a unix socket; the system's reason is clearer.
        const QString why = os != 0 ? qt_error_string(os) : reason;
        return fail(Error::unreachable(Tr::tr("no Docker engine at %1: %2").arg(address.display(), why)));
    }
    default:
        return fail(Error::unreachable(Tr::tr("%1 %2 to the Docker engine at %3 failed: %4")
                                           .arg(QString::fromLatin1(request.method), QString::fromUtf8(request.target),
                                                address.display(), reason)));
    }
}

} // namespace

// ---------------------------------------------------------------------------------------------
// The multi handle on the event loop

CurlHttpClientPrivate::CurlHttpClientPrivate(CurlHttpClient *owner, EngineAddress engine)
    : q(owner)
    , address(std::move(engine))
{
    timer.setSingleShot(true);
    QObject::connect(&timer, &QTimer::timeout, q, [this] { drive(CURL_SOCKET_TIMEOUT, 0); });
    if (!curlReady())
        return;
    multi = curl_multi_init();
    if (!multi)
        return;
    curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, &CurlHttpClientPrivate::onSocket);
    curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, this);
    curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, &CurlHttpClientPrivate::onTimer);
    curl_multi_setopt(multi, CURLMOPT_TIMERDATA, this);
}

int CurlHttpClientPrivate::onSocket(CURL *, curl_socket_t socket, int what, void *clientp, void *)
{
    auto *d = static_cast<CurlHttpClientPrivate *>(clientp);
    if (what == CURL_POLL_REMOVE) {
        const auto it = d->watches.constFind(socket);
        if (it != d->watches.constEnd()) {
            retire(it->read);
            retire(it->write);
            d->watches.erase(it);
        }
        return 0;
    }
    const bool wantRead = what == CURL_POLL_IN || what == CURL_POLL_INOUT;
    const bool wantWrite = what == CURL_POLL_OUT || what == CURL_POLL_INOUT;
    Watch &watch = d->watches[socket];
    if (wantRead && !watch.read)
        watch.read = d->watch(socket, QSocketNotifier::Read);
    if (wantWrite && !watch.write)
        watch.write = d->watch(socket, QSocketNotifier::Write);
    if (watch.read)
        watch.read->setEnabled(wantRead);
    if (watch.write)
        watch.write->setEnabled(wantWrite);
    return 0;
}

int CurlHttpClientPrivate::onTimer(CURLM *, long timeoutMs, void *clientp)
{
    auto *d = static_cast<CurlHttpClientPrivate *>(clientp);
    // libcurl may not be called from here: even "now" goes through the event loop.
    if (timeoutMs < 0)
        d->timer.stop();
    else
        d->timer.start(int(std::min<long>(timeoutMs, 24L * 3600 * 1000)));
    return 0;
}

QSocketNotifier *CurlHttpClientPrivate::watch(curl_socket_t socket, QSocketNotifier::Type type)
{
    auto *notifier = new QSocketNotifier(qintptr(socket), type, q);
    const int events = type == QSocketNotifier::Read ? CURL_CSELECT_IN : CURL_CSELECT_OUT;
    QObject::connect(notifier, &QSocketNotifier::activated, q, [this, notifier, socket, events] {
        if (notifier->isEnabled())
            drive(socket, events);
    });
    return notifier;
}

void CurlHttpClientPrivate::retire(QSocketNotifier *notifier)
{
    // libcurl may close the socket and open another with the same number at once: the old
    // notifier stops watching now and goes later (it may be the one emitting right now).
    if (!notifier)
        return;
    notifier->setEnabled(false);
    notifier->deleteLater();
}

void CurlHttpClientPrivate::drive(curl_socket_t socket, int events)
{
    if (!multi || depth > 0)
        return;
    int running = 0;
    ++depth;
    curl_multi_socket_action(multi, socket, events, &running);
    --depth;
    settle();
}

Result<> CurlHttpClientPrivate::start(Transfer *transfer, const HttpRequest &request)
{
    CURL *easy = multi ? curl_easy_init() : nullptr;
    if (!easy)
        return fail(Error::unreachable(
            Tr::tr("cannot start a request to the Docker engine at %1: libcurl could not be initialised")
                .arg(address.display())));
    transfer->easy = easy;

    QByteArray target = request.target;
    if (!target.startsWith('/'))
        target.prepend('/');
    QByteArray url;
    if (address.kind == EngineAddress::Kind::Unix) {
        url = "http://localhost" + target;
        curl_easy_setopt(easy, CURLOPT_UNIX_SOCKET_PATH, QFile::encodeName(address.socketPath).constData());
    } else {
        const QByteArray host =
            address.host.contains(QLatin1Char(':')) ? '[' + address.host.toUtf8() + ']' : address.host.toUtf8();
        url = "http://" + host + ':' + QByteArray::number(address.port) + target;
    }
    curl_easy_setopt(easy, CURLOPT_URL, url.constData());
    curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http");
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, long(CURL_HTTP_VERSION_1_1));
    curl_easy_setopt(easy, CURLOPT_PATH_AS_IS, 1L);
    curl_easy_setopt(easy, CURLOPT_PROXY, "");
    curl_easy_setopt(easy, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_USERAGENT, "Paddock/" PADDOCK_VERSION);
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, long(request.timeout.count()));
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, ConnectTimeoutMs);
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, transfer->errorBuffer);
    curl_easy_setopt(easy, CURLOPT_PRIVATE, transfer);
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, &onHeader);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, transfer);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &onBody);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, transfer);

    // Headers: no "Expect: 100-continue" wait; the body's type, or none.
    transfer->headerList = curl_slist_append(transfer->headerList, "Expect:");
    const QByteArray method = request.method.isEmpty() ? QByteArrayLiteral("GET") : request.method.toUpper();
    const bool hasBody = !request.body.isEmpty();
    const bool bodyMethod = method == "POST" || method == "PUT" || method == "PATCH";
    if (method == "HEAD") {
        curl_easy_setopt(easy, CURLOPT_NOBODY, 1L);
    } else if (hasBody || bodyMethod) {
        // POSTFIELDS makes it a POST with Content-Length (0 for none), then the real method.
        curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.size()));
        curl_easy_setopt(easy, CURLOPT_COPYPOSTFIELDS, request.body.constData());
        if (method != "POST")
            curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, method.constData());
        const QByteArray type = !hasBody    ? QByteArray()
            : request.contentType.isEmpty() ? QByteArrayLiteral("application/json")
                                            : request.contentType;
        const QByteArray header = "Content-Type:" + (type.isEmpty() ? QByteArray() : ' ' + type);
        transfer->headerList = curl_slist_append(transfer->headerList, header.constData());
    } else if (method != "GET") {
        curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, method.constData());
    }
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, transfer->headerList);

    transfer->owner = this;
    transfers.append(transfer);
    if (depth > 0) {
        // Started from onData, inside libcurl, which may not be called from there: the handle
        // goes on once libcurl returns (settle()).
        pendingAdds.append(transfer);
        return {};
    }
    const CURLMcode added = curl_multi_add_handle(multi, easy);
    if (added != CURLM_OK) {
        detach(transfer);
        return fail(Error::unreachable(Tr::tr("cannot start a request to the Docker engine at %1: %2")
                                           .arg(address.display(), QString::fromUtf8(curl_multi_strerror(added)))));
    }
    return {};
}

void CurlHttpClientPrivate::detach(Transfer *transfer)
{
    cancelled.removeOne(transfer);
    if (transfer->owner == this) {
        transfers.removeOne(transfer);
        pendingAdds.removeOne(transfer);
        if (multi)
            curl_multi_remove_handle(multi, transfer->easy);
    }
    transfer->owner = nullptr;
    if (transfer->easy) {
        curl_easy_cleanup(transfer->easy);
        transfer->easy = nullptr;
    }
    if (transfer->headerList) {
        curl_slist_free_all(transfer->headerList);
        transfer->headerList = nullptr;
    }
}

void CurlHttpClientPrivate::settle()
{
    QList<Transfer *> ended;
    const QList<Transfer *> adds = std::exchange(pendingAdds, {});
    for (Transfer *transfer : adds) {
        const CURLMcode added = multi ? curl_multi_add_handle(multi, transfer->easy) : CURLM_BAD_HANDLE;
        if (added != CURLM_OK) {
            transfer->code = CURLE_FAILED_INIT;
            qstrncpy(transfer->errorBuffer, curl_multi_strerror(added), CURL_ERROR_SIZE);
            detach(transfer);
            ended.append(transfer);
        }
    }
    if (multi) {
        // Read every message first: they die with their handles.
        QList<std::pair<CURL *, CURLcode>> done;
        int left = 0;
        while (CURLMsg *message = curl_multi_info_read(multi, &left)) {
            if (message->msg == CURLMSG_DONE)
                done.append({message->easy_handle, message->data.result});
        }
        for (const auto &[easy, code] : done) {
            void *data = nullptr;
            curl_easy_getinfo(easy, CURLINFO_PRIVATE, &data);
            auto *transfer = static_cast<Transfer *>(data);
            if (!transfer || transfer->owner != this)
                continue;
            transfer->code = code;
            long status = 0;
            if (curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK && status > 0)
                transfer->response.status = int(status);
            curl_easy_getinfo(easy, CURLINFO_OS_ERRNO, &transfer->osErrno);
            curl_off_t connectTime = 0;
            transfer->connected =
                curl_easy_getinfo(easy, CURLINFO_CONNECT_TIME_T, &connectTime) == CURLE_OK && connectTime > 0;
            detach(transfer);
            ended.append(transfer);
        }
    }
    // (detach() takes a transfer out of `cancelled`, so what is left there is still in flight.)
    while (!cancelled.isEmpty()) {
        Transfer *transfer = cancelled.constFirst();
        transfer->cancelled = true;
        detach(transfer);
        ended.append(transfer);
    }
    if (abortPending) {
        abortPending = false;
        const QList<Transfer *> aborted = std::exchange(transfers, {});
        for (Transfer *transfer : aborted) {
            transfer->cancelled = true;
            transfer->owner = this; // so detach() takes it off the multi handle
            detach(transfer);
            ended.append(transfer);
        }
    }
    // From here on `this` may be destroyed by the code each completion resumes; the transfers
    // in `ended` are no longer the client's and live in their suspended coroutines.
    for (Transfer *transfer : std::as_const(ended))
        transfer->complete();
}

void CurlHttpClientPrivate::abortAll()
{
    for (Transfer *transfer : std::as_const(transfers))
        transfer->cancelled = true; // a transfer inside libcurl stops at its next write
    abortPending = !transfers.isEmpty();
    if (depth == 0 && abortPending)
        settle(); // else drive() settles once libcurl returns
}

void CurlHttpClientPrivate::cancel(Transfer *transfer)
{
    if (transfer->owner != this || transfer->finished || cancelled.contains(transfer))
        return;
    transfer->cancelled = true; // a transfer inside libcurl stops at its next write
    cancelled.append(transfer);
    QMetaObject::invokeMethod(
        q,
        [this] {
            if (depth == 0 && !cancelled.isEmpty())
                settle(); // else drive() settles once libcurl returns
        },
        Qt::QueuedConnection);
}

void CurlHttpClientPrivate::shutdown()
{
    closing = true;
    timer.stop();
    const QList<Transfer *> aborted = std::exchange(transfers, {});
    for (Transfer *transfer : aborted) {
        transfer->cancelled = true;
        detach(transfer); // owner is still this: transfers was emptied, the handle is removed
    }
    if (multi) {
        curl_multi_cleanup(multi);
        multi = nullptr;
    }
    for (const Watch &watch : std::as_const(watches)) {
        delete watch.read;
        delete watch.write;
    }
    watches.clear();
    // The client is still whole: what these resume may ask it things, and new requests fail.
    for (Transfer *transfer : aborted)
        transfer->complete();
}

QCoro::Task<Result<HttpResponse>>
CurlHttpClientPrivate::perform(HttpRequest request, std::function<void(QByteArrayView)> onData, bool streaming)
{
    // Copies: once the transfer is awaited the client may be gone.
    const EngineAddress engine = address;
    if (closing || (request.cancel && request.cancel->isCancelled())) {
        Transfer cancelled;
        cancelled.cancelled = true;
        co_return outcome(cancelled, request, engine);
    }
    auto transfer = std::make_unique<Transfer>();
    transfer->onData = std::move(onData);
    transfer->streaming = streaming;
    const Result<> started = start(transfer.get(), request);
    if (!started) {
        qCDebug(lcDockerHttp).noquote() << request.method << request.target << "->" << started.error().message;
        co_return fail(started.error());
    }
    QElapsedTimer elapsed;
    elapsed.start();
    // The token may outlive the client: the callback holds the transfer only while this frame
    // waits for it, and is removed when the wait ends (the transfer is no longer the client's).
    int cancelId = 0;
    if (request.cancel) {
        Transfer *raw = transfer.get();
        cancelId = request.cancel->onCancel([raw] {
            if (raw->owner)
                raw->owner->cancel(raw);
        });
    }
    TransferDone done{transfer.get()};
    co_await done;
    if (request.cancel && cancelId != 0)
        request.cancel->remove(cancelId);

    // Only locals from here on.
    Result<HttpResponse> result = outcome(*transfer, request, engine);
    if (result)
        qCDebug(lcDockerHttp).noquote() << request.method << request.target << "->" << result->status
                                        << elapsed.elapsed() << "ms";
    else
        qCDebug(lcDockerHttp).noquote() << request.method << request.target << "->" << result.error().message
                                        << elapsed.elapsed() << "ms";
    co_return result;
}

// ---------------------------------------------------------------------------------------------
// CurlHttpClient

CurlHttpClient::CurlHttpClient(EngineAddress address, QObject *parent)
    : QObject(parent)
    , d(std::make_unique<CurlHttpClientPrivate>(this, std::move(address)))
{
}

CurlHttpClient::~CurlHttpClient()
{
    Q_ASSERT_X(d->depth == 0, "~CurlHttpClient", "deleted from inside a libcurl callback");
    d->shutdown();
}

const EngineAddress &CurlHttpClient::address() const
{
    return d->address;
}

QCoro::Task<Result<HttpResponse>> CurlHttpClient::send(HttpRequest request)
{
    return d->perform(std::move(request), nullptr, false);
}

QCoro::Task<Result<HttpResponse>> CurlHttpClient::stream(HttpRequest request,
                                                         std::function<void(QByteArrayView)> onData)
{
    return d->perform(std::move(request), std::move(onData), true);
}

int CurlHttpClient::inFlight() const
{
    return int(d->transfers.size());
}

void CurlHttpClient::abortAll()
{
    d->abortAll();
}

void CurlHttpClient::close()
{
    Q_ASSERT_X(d->depth == 0, "CurlHttpClient::close", "called from inside a libcurl callback");
    d->shutdown();
}

bool CurlHttpClient::isClosed() const
{
    return d->closing;
}

} // namespace Paddock::Docker
