#pragma once

// A small HTTP/1.1 server on QTcpServer (or QSslServer, for TLS), shared by the fake servers:
// request line, headers, Content-Length and chunked request bodies, keep-alive, `Expect: 100-continue`, plain and
// chunked (streamed) responses. It listens on 127.0.0.1 only. Every response carries a request-id header (X-Request-ID
// unless set otherwise): the request's own, or a new uuid.
//
// A request stays unread in its socket until it is answered, so that a handler can take the
// socket over with the request still in it (detachSocket(): a WebSocket upgrade handed to
// QWebSocketServer, see websocketacceptor.h). A chunked body is the exception: it is read out
// of the socket as it arrives, and such a request cannot be detached.

#include "httpwire.h"

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <QSet>
#include <QSslCertificate>
#include <QSslConfiguration>

#include <functional>
#include <optional>

class QTcpServer;
class QTcpSocket;

namespace PaddockFake {

using HttpHeaders = QList<QPair<QByteArray, QByteArray>>;

struct HttpRequest
{
    QByteArray method;
    QByteArray target; // as sent
    QByteArray path; // raw (still percent-encoded), without the query
    QByteArray rawQuery;
    QByteArray version;
    HttpHeaders headers; // names in lower case
    QByteArray body;

    QByteArray header(QByteArrayView lowerName) const; // the first one
    QList<QByteArray> headerValues(QByteArrayView lowerName) const; // all of them, in order
    bool hasHeader(QByteArrayView lowerName) const;
    // Query items decoded the way Starlette does (parse_qsl, keep_blank_values).
    QueryItems queryItems() const;
    std::optional<QString> queryValue(const QString &name) const; // the last one, like Starlette
    QStringList queryValues(const QString &name) const;
    // The path split at `/`, each segment percent-decoded (empty segments kept, the leading
    // empty one dropped).
    QStringList pathSegments() const;
};

struct HttpResponse
{
    int status = 200;
    HttpHeaders headers;
    QByteArray body;

    static HttpResponse json(int status, const QByteArray &body);
    static HttpResponse json(int status, const QJsonObject &object);
    static HttpResponse json(int status, const QJsonArray &array);
    static HttpResponse empty(int status);
    static HttpResponse text(int status, const QByteArray &body, const QByteArray &contentType = "text/plain");
    // The OpenSandbox lifecycle server's error shape.
    static HttpResponse error(int status, const QString &code, const QString &message);
    void setHeader(const QByteArray &name, const QByteArray &value);
};

QByteArray reasonPhrase(int status);

// How a server answers what cannot be parsed as a request (before any handler sees it).
using HttpRefusal = std::function<HttpResponse(int status, const QByteArray &message)>;

struct HttpServerSettings
{
    QByteArray requestIdHeader = "X-Request-ID"; // empty: none
    HttpHeaders commonHeaders; // added to every response
    HttpRefusal refusal; // unset: uvicorn's {"detail": message}
};

class HttpConnection final : public QObject
{
    Q_OBJECT

public:
    HttpConnection(QTcpSocket *socket, const HttpServerSettings *settings, QObject *parent);
    ~HttpConnection() override;

    // Answers the request being handled and goes on with the next one (or closes).
    void send(const HttpResponse &response);
    // A streamed answer: Transfer-Encoding: chunked. The head is written at once.
    void startStream(int status, const HttpHeaders &headers);
    void writeChunk(const QByteArray &data);
    void endStream();
    // Drops the connection without (any more of) an answer.
    void abort();
    // Gives up the socket with the request being handled still unread in it (head and body),
    // for a handler that speaks another protocol on it (a WebSocket). The socket has no parent
    // and no connections to this object, which deletes itself later. Null when the request was
    // already (partly) answered or the connection is gone.
    QTcpSocket *detachSocket();

    bool isStreaming() const { return m_streaming; }
    bool isGone() const { return m_gone; }
    quint16 localPort() const;
    quint16 peerPort() const;
    bool isEncrypted() const;
    // The client's certificate on a TLS connection where it presented one.
    QSslCertificate peerCertificate() const;
    // Bytes written but not yet sent (a slow reader of a stream).
    qint64 bytesToWrite() const;

Q_SIGNALS:
    void requestReceived(PaddockFake::HttpConnection *connection, const PaddockFake::HttpRequest &request);

private:
    void parse();
    // Reads what has arrived of a chunked body: true when it is complete, false when more is
    // to come, nullopt when it is malformed.
    std::optional<bool> readChunks();
    void emitRequest(const HttpRequest &request);
    void consumeRequest();
    void finishExchange();
    void refuse(int status, const QByteArray &message);
    QByteArray statusAndCommonHeaders(int status, const HttpHeaders &headers) const;

    QTcpSocket *m_socket;
    const HttpServerSettings *m_settings;
    // The request being received or handled: parsed head, and the bytes it takes in the socket.
    std::optional<HttpRequest> m_head;
    qint64 m_headBytes = 0;
    qint64 m_bodyBytes = 0;
    bool m_unread = false; // the handled request is still in the socket
    bool m_busy = false;
    bool m_streaming = false;
    bool m_closeAfter = false;
    bool m_continueSent = false;
    bool m_gone = false;
    bool m_parseQueued = false;
    // A chunked request body being read.
    bool m_chunked = false;
    bool m_inTrailer = false;
    qint64 m_chunkRemaining = -1; // -1: a chunk-size line comes next
    QByteArray m_chunkedBody;
    QByteArray m_requestId;
};

class HttpServer final : public QObject
{
    Q_OBJECT

public:
    using Handler = std::function<void(HttpConnection *, const HttpRequest &)>;

    explicit HttpServer(QObject *parent = nullptr);
    ~HttpServer() override;

    // Before listen(): serve HTTPS with this configuration (its local certificate and private
    // key; ALPN offers http/1.1 only, so clients never switch to HTTP/2).
    void setTls(const QSslConfiguration &configuration);
    void setSettings(HttpServerSettings settings) { m_settings = std::move(settings); }
    bool listen(quint16 port, QString *error);
    quint16 port() const;
    bool isTls() const { return m_tls.has_value(); }
    void setHandler(Handler handler) { m_handler = std::move(handler); }
    // The listener's name in the request log (requestlog.h), fixed or chosen per request.
    void setRecordAs(QByteArray listener)
    {
        m_recordAs = [listener](const HttpRequest &) { return listener; };
    }
    void setRecordAs(std::function<QByteArray(const HttpRequest &)> name) { m_recordAs = std::move(name); }
    // Stops listening and drops every open connection.
    void close();

private:
    void acceptPending();

    QTcpServer *m_server = nullptr;
    std::optional<QSslConfiguration> m_tls;
    HttpServerSettings m_settings;
    Handler m_handler;
    std::function<QByteArray(const HttpRequest &)> m_recordAs;
    QSet<HttpConnection *> m_connections;
};

} // namespace PaddockFake
