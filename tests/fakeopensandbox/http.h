#pragma once

// A small HTTP/1.1 server on QTcpServer, for the fake OpenSandbox server: request line,
// headers, Content-Length bodies (chunked request bodies are refused with 411), keep-alive,
// `Expect: 100-continue`, plain and chunked (streamed) responses. It listens on 127.0.0.1 only.
// Every response carries X-Request-ID: the request's own, or a new uuid.

#include "wire.h"

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <QSet>

#include <functional>

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

    QByteArray header(QByteArrayView lowerName) const;
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
    // The lifecycle server's error shape.
    static HttpResponse error(int status, const QString &code, const QString &message);
    void setHeader(const QByteArray &name, const QByteArray &value);
};

QByteArray reasonPhrase(int status);

class HttpConnection final : public QObject
{
    Q_OBJECT

public:
    HttpConnection(QTcpSocket *socket, QObject *parent);
    ~HttpConnection() override;

    // Answers the request being handled and goes on with the next one (or closes).
    void send(const HttpResponse &response);
    // A streamed answer: Transfer-Encoding: chunked.
    void startStream(int status, const HttpHeaders &headers);
    void writeChunk(const QByteArray &data);
    void endStream();
    // Drops the connection without (any more of) an answer.
    void abort();

    bool isStreaming() const { return m_streaming; }
    quint16 localPort() const;

Q_SIGNALS:
    void requestReceived(PaddockFake::HttpConnection *connection, const PaddockFake::HttpRequest &request);

private:
    void onReadyRead();
    void parse();
    void finishExchange();
    void refuse(int status, const QByteArray &message);
    QByteArray statusAndCommonHeaders(int status, const HttpHeaders &headers) const;

    QTcpSocket *m_socket;
    QByteArray m_buffer;
    bool m_busy = false;
    bool m_streaming = false;
    bool m_closeAfter = false;
    bool m_continueSent = false;
    bool m_gone = false;
    bool m_parseQueued = false;
    QByteArray m_requestId;
};

class HttpServer final : public QObject
{
    Q_OBJECT

public:
    using Handler = std::function<void(HttpConnection *, const HttpRequest &)>;

    explicit HttpServer(QObject *parent = nullptr);
    ~HttpServer() override;

    bool listen(quint16 port, QString *error);
    quint16 port() const;
    void setHandler(Handler handler) { m_handler = std::move(handler); }
    // Stops listening and drops every open connection.
    void close();

private:
    QTcpServer *m_server;
    Handler m_handler;
    QSet<HttpConnection *> m_connections;
};

} // namespace PaddockFake
