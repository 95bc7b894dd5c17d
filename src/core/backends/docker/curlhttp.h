#pragma once

// HTTP/1.1 to the Docker Engine over a unix socket or TCP, through libcurl's multi interface
// driven by the Qt event loop (QSocketNotifier per socket, one single-shot QTimer): many
// transfers at once on the owner thread, no worker threads, no polling. See README.md.

#include "../../result.h"

#include <QCoroFwd>

#include <QByteArray>
#include <QByteArrayView>
#include <QHash>
#include <QObject>
#include <QString>

#include <chrono>
#include <functional>
#include <memory>

namespace Paddock {
class CancelToken;
}

namespace Paddock::Docker {

// Where the engine listens, as DOCKER_HOST says it: unix:///path, tcp://host:port (plain HTTP;
// port default 2375), http://host:port (port default 80). Anything else (ssh://, npipe://, fd://,
// https://, garbage, tcp without host) is an InvalidArgument error naming the value.
struct EngineAddress
{
    enum class Kind { Unix, Tcp };
    Kind kind = Kind::Unix;
    QString socketPath; // Unix
    QString host; // Tcp (an IPv6 address without brackets)
    int port = 2375; // Tcp

    // "unix:///run/docker.sock" or "tcp://127.0.0.1:2375", for messages.
    QString display() const;
    static Result<EngineAddress> parse(const QString &dockerHost);
    // $DOCKER_HOST if set and not empty, else unix:///var/run/docker.sock.
    static Result<EngineAddress> fromEnvironment();

    bool operator==(const EngineAddress &) const = default;
};

struct HttpRequest
{
    QByteArray method = "GET";
    QByteArray target; // path and query: "/v1.41/containers/json?all=1"
    QByteArray body; // sent with Content-Type: application/json when not empty (or contentType)
    QByteArray contentType;
    std::chrono::milliseconds timeout{30'000}; // whole transfer; 0: no limit (streams)
    // Cancelled while the request is in flight: it ends at once with a Cancelled error (as
    // abortAll() ends every request). Null: none.
    std::shared_ptr<CancelToken> cancel;
};

struct HttpResponse
{
    int status = 0;
    // The whole body for send(). For stream(): empty when the status is 2xx (the body went to
    // onData); the body of any other status (an error document, at most 1 MiB) is kept here
    // instead, so the caller can say what the engine said.
    QByteArray body;
    QHash<QByteArray, QByteArray> headers; // lower-case names; repeated headers joined with ", "
};

class CurlHttpClientPrivate;

// One libcurl multi handle. Connections are kept alive and reused between requests. Every
// function must be called on the thread that owns the client.
class CurlHttpClient final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CurlHttpClient)

public:
    explicit CurlHttpClient(EngineAddress address, QObject *parent = nullptr);
    // Aborts what is in flight: their tasks finish with a Cancelled error (at once, inside the
    // destructor, while the client still answers inFlight() and refuses new requests). Never
    // delete the client from inside an onData callback; deleteLater() it there.
    ~CurlHttpClient() override;

    const EngineAddress &address() const;

    // The whole answer. Any HTTP status is a response (the caller maps 4xx/5xx); only transport
    // failures are errors: Error::Unreachable naming the address and the reason (a unix socket
    // that may not be opened says so and how to fix it; nothing listening: "no Docker engine
    // at <address>"), Error::Timeout when request.timeout passes, Error::Cancelled after
    // abortAll() or the client's destruction.
    QCoro::Task<Result<HttpResponse>> send(HttpRequest request);
    // Like send(), but a 2xx body is handed to onData chunk by chunk as it arrives (on this
    // object's thread), never stored. A body without Content-Length ends cleanly when the server
    // closes the connection (Docker's exec and attach streams).
    QCoro::Task<Result<HttpResponse>> stream(HttpRequest request, std::function<void(QByteArrayView)> onData);

    // Requests on the wire now.
    int inFlight() const;
    // Ends every request in flight with a Cancelled error. The client stays usable. Safe to call
    // from onData (the transfers end once libcurl returns).
    void abortAll();
    // What the destructor does, for an owner that must end the requests while the objects over
    // this client still exist: every request in flight ends (at once, with a Cancelled error)
    // and every later one fails the same way. Never from inside an onData callback.
    void close();
    bool isClosed() const;

private:
    std::unique_ptr<CurlHttpClientPrivate> d;
};

} // namespace Paddock::Docker
