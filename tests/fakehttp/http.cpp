#include "http.h"
#include "requestlog.h"

#include <QHostAddress>
#include <QJsonDocument>
#include <QSslServer>
#include <QSslSocket>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace PaddockFake {

namespace {

constexpr qsizetype MaxHeaderBytes = 64 * 1024;
constexpr qint64 MaxBodyBytes = 1024LL * 1024 * 1024;

// RFC 9110 tchar, the alphabet of a method.
bool isTokenChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || QByteArrayView("!#$%&'*+-.^_`|~").contains(c);
}

bool containsToken(const QByteArray &headerValue, QByteArrayView token)
{
    for (const QByteArray &piece : headerValue.split(',')) {
        if (piece.trimmed().toLower() == token)
            return true;
    }
    return false;
}

} // namespace

QByteArray HttpRequest::header(QByteArrayView lowerName) const
{
    for (const auto &[name, value] : headers) {
        if (name == lowerName)
            return value;
    }
    return {};
}

QList<QByteArray> HttpRequest::headerValues(QByteArrayView lowerName) const
{
    QList<QByteArray> values;
    for (const auto &[name, value] : headers) {
        if (name == lowerName)
            values.append(value);
    }
    return values;
}

bool HttpRequest::hasHeader(QByteArrayView lowerName) const
{
    for (const auto &[name, value] : headers) {
        if (name == lowerName)
            return true;
    }
    return false;
}

QueryItems HttpRequest::queryItems() const
{
    return parseQsl(rawQuery, true, false).value_or(QueryItems());
}

std::optional<QString> HttpRequest::queryValue(const QString &name) const
{
    std::optional<QString> found;
    for (const auto &[key, value] : queryItems()) {
        if (key == name)
            found = value;
    }
    return found;
}

QStringList HttpRequest::queryValues(const QString &name) const
{
    QStringList values;
    for (const auto &[key, value] : queryItems()) {
        if (key == name)
            values.append(value);
    }
    return values;
}

QStringList HttpRequest::pathSegments() const
{
    QStringList segments;
    const QList<QByteArray> raw = path.split('/');
    for (qsizetype i = 1; i < raw.size(); ++i)
        segments.append(QString::fromUtf8(QByteArray::fromPercentEncoding(raw.at(i))));
    return segments;
}

HttpResponse HttpResponse::json(int status, const QByteArray &body)
{
    HttpResponse response;
    response.status = status;
    response.headers.emplaceBack("Content-Type", "application/json");
    response.body = body;
    return response;
}

HttpResponse HttpResponse::json(int status, const QJsonObject &object)
{
    return json(status, compactJson(object));
}

HttpResponse HttpResponse::json(int status, const QJsonArray &array)
{
    return json(status, compactJson(array));
}

HttpResponse HttpResponse::empty(int status)
{
    HttpResponse response;
    response.status = status;
    return response;
}

HttpResponse HttpResponse::text(int status, const QByteArray &body, const QByteArray &contentType)
{
    HttpResponse response;
    response.status = status;
    response.headers.emplaceBack("Content-Type", contentType);
    response.body = body;
    return response;
}

HttpResponse HttpResponse::error(int status, const QString &code, const QString &message)
{
    return json(status, QJsonObject{{u"code"_s, code}, {u"message"_s, message}});
}

void HttpResponse::setHeader(const QByteArray &name, const QByteArray &value)
{
    for (auto &header : headers) {
        if (header.first.compare(name, Qt::CaseInsensitive) == 0) {
            header.second = value;
            return;
        }
    }
    headers.append({name, value});
}

QByteArray reasonPhrase(int status)
{
    switch (status) {
    case 100:
        return "Continue";
    case 101:
        return "Switching Protocols";
    case 200:
        return "OK";
    case 201:
        return "Created";
    case 202:
        return "Accepted";
    case 204:
        return "No Content";
    case 206:
        return "Partial Content";
    case 307:
        return "Temporary Redirect";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 409:
        return "Conflict";
    case 410:
        return "Gone";
    case 411:
        return "Length Required";
    case 413:
        return "Content Too Large";
    case 415:
        return "Unsupported Media Type";
    case 416:
        return "Range Not Satisfiable";
    case 422:
        return "Unprocessable Entity";
    case 426:
        return "Upgrade Required";
    case 429:
        return "Too Many Requests";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 502:
        return "Bad Gateway";
    case 503:
        return "Service Unavailable";
    case 504:
        return "Gateway Timeout";
    default:
        return "Status";
    }
}

HttpConnection::HttpConnection(QTcpSocket *socket, const HttpServerSettings *settings, QObject *parent)
    : QObject(parent)
    , m_socket(socket)
    , m_settings(settings)
{
    m_socket->setParent(this);
    m_socket->setSocketOption(QAbstractSocket::LowDelayOption, 1); // as uvicorn and Go's net/http do
    connect(m_socket, &QTcpSocket::readyRead, this, &HttpConnection::parse);
    connect(m_socket, &QTcpSocket::disconnected, this, [this] {
        m_gone = true;
        deleteLater();
    });
    if (m_socket->bytesAvailable() > 0) {
        m_parseQueued = true;
        QTimer::singleShot(0, this, &HttpConnection::parse);
    }
}

HttpConnection::~HttpConnection() = default;

quint16 HttpConnection::localPort() const
{
    return m_socket ? m_socket->localPort() : 0;
}

quint16 HttpConnection::peerPort() const
{
    return m_socket ? m_socket->peerPort() : 0;
}

bool HttpConnection::isEncrypted() const
{
    const auto *ssl = qobject_cast<const QSslSocket *>(m_socket);
    return ssl && ssl->isEncrypted();
}

QSslCertificate HttpConnection::peerCertificate() const
{
    const auto *ssl = qobject_cast<const QSslSocket *>(m_socket);
    return ssl ? ssl->peerCertificate() : QSslCertificate();
}

qint64 HttpConnection::bytesToWrite() const
{
    if (!m_socket)
        return 0;
    const auto *ssl = qobject_cast<const QSslSocket *>(m_socket);
    return ssl ? ssl->encryptedBytesToWrite() + ssl->bytesToWrite() : m_socket->bytesToWrite();
}

void HttpConnection::refuse(int status, const QByteArray &message)
{
    HttpResponse response;
    if (m_settings && m_settings->refusal) {
        response = m_settings->refusal(status, message);
    } else {
        response = HttpResponse::json(status, R"({"detail":")" + message + R"("})");
    }
    QByteArray head = "HTTP/1.1 " + QByteArray::number(response.status) + ' ' + reasonPhrase(response.status) + "\r\n";
    for (const auto &[name, value] : response.headers)
        head += name + ": " + value + "\r\n";
    if (m_settings && !m_settings->requestIdHeader.isEmpty())
        head += m_settings->requestIdHeader + ": " + newUuid().toLatin1() + "\r\n";
    head += "Content-Length: " + QByteArray::number(response.body.size()) + "\r\nConnection: close\r\n\r\n";
    m_socket->write(head + response.body);
    m_gone = true;
    m_head.reset();
    m_socket->disconnectFromHost();
}

void HttpConnection::parse()
{
    m_parseQueued = false;
    if (m_busy || m_gone)
        return;
    if (!m_head) {
        while (m_socket->bytesAvailable() >= 2 && m_socket->peek(2) == "\r\n") // empty lines before a request
            m_socket->skip(2);
        // The head is only peeked at: it stays in the socket until the request is answered.
        const QByteArray buffer = m_socket->peek(MaxHeaderBytes + 4);
        // What cannot become an HTTP request (a TLS ClientHello, say) is refused at once, as
        // uvicorn does, instead of waiting for a header end that never comes.
        for (const char c : buffer) {
            if (c == ' ')
                break;
            if (!isTokenChar(c)) {
                refuse(400, "Invalid HTTP request received.");
                return;
            }
        }
        const qsizetype headerEnd = buffer.indexOf("\r\n\r\n");
        if (headerEnd < 0) {
            if (buffer.size() > MaxHeaderBytes)
                refuse(431, "Request header fields too large");
            return;
        }
        const QList<QByteArray> lines = buffer.left(headerEnd).split('\n');
        const QList<QByteArray> requestLine = lines.value(0).trimmed().split(' ');
        if (requestLine.size() != 3 || !requestLine.at(2).startsWith("HTTP/1.")) {
            refuse(400, "Invalid HTTP request line");
            return;
        }
        HttpRequest request;
        request.method = requestLine.at(0);
        request.target = requestLine.at(1);
        request.version = requestLine.at(2);
        const qsizetype question = request.target.indexOf('?');
        request.path = question < 0 ? request.target : request.target.left(question);
        request.rawQuery = question < 0 ? QByteArray() : request.target.mid(question + 1);
        if (!request.path.startsWith('/')) { // absolute-form target
            const qsizetype scheme = request.path.indexOf("://");
            const qsizetype slash = scheme < 0 ? -1 : request.path.indexOf('/', scheme + 3);
            request.path = slash < 0 ? QByteArray("/") : request.path.mid(slash);
        }
        qint64 contentLength = 0;
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const QByteArray line = lines.at(i).trimmed();
            const qsizetype colon = line.indexOf(':');
            if (colon <= 0) {
                refuse(400, "Invalid HTTP header");
                return;
            }
            request.headers.append({line.left(colon).trimmed().toLower(), line.mid(colon + 1).trimmed()});
        }
        if (request.hasHeader("transfer-encoding")) {
            // RFC 9112 §6.1: chunked must be the last coding (and the only one a server here
            // knows); it wins over a Content-Length.
            if (request.header("transfer-encoding").trimmed().toLower() != "chunked") {
                refuse(501, "Unsupported Transfer-Encoding");
                return;
            }
            m_head = std::move(request);
            m_headBytes = headerEnd + 4;
            m_bodyBytes = 0;
            m_chunked = true;
            m_chunkedBody.clear();
            m_chunkRemaining = -1;
            // A chunked body is read out of the socket as it comes (it could be large, and
            // peeking at it again on every read would copy it over and over): such a request
            // cannot be handed over by detachSocket().
            m_socket->skip(m_headBytes);
        } else if (request.hasHeader("content-length")) {
            bool ok = false;
            contentLength = request.header("content-length").toLongLong(&ok);
            if (!ok || contentLength < 0) {
                refuse(400, "Invalid Content-Length");
                return;
            }
            if (contentLength > MaxBodyBytes) {
                refuse(413, "Request body too large");
                return;
            }
        }
        if (!m_chunked) {
            m_head = std::move(request);
            m_headBytes = headerEnd + 4;
            m_bodyBytes = contentLength;
        }
    }
    if (m_chunked) {
        if (!m_continueSent && m_head->header("expect").toLower() == "100-continue") {
            m_continueSent = true;
            m_socket->write("HTTP/1.1 100 Continue\r\n\r\n");
        }
        const std::optional<bool> done = readChunks();
        if (!done)
            return refuse(400, "Invalid chunked request body");
        if (!*done)
            return;
        m_chunked = false;
        HttpRequest request = std::move(*m_head);
        m_head.reset();
        request.body = std::exchange(m_chunkedBody, {});
        m_unread = false;
        m_continueSent = false;
        emitRequest(request);
        return;
    }
    if (m_socket->bytesAvailable() < m_headBytes + m_bodyBytes) {
        if (!m_continueSent && m_head->header("expect").toLower() == "100-continue") {
            m_continueSent = true;
            m_socket->write("HTTP/1.1 100 Continue\r\n\r\n");
        }
        return;
    }
    HttpRequest request = std::move(*m_head);
    m_head.reset();
    if (m_bodyBytes > 0)
        request.body = m_socket->peek(m_headBytes + m_bodyBytes).mid(m_headBytes);
    m_unread = true;
    m_continueSent = false;
    emitRequest(request);
}

std::optional<bool> HttpConnection::readChunks()
{
    for (;;) {
        if (m_chunkRemaining < 0) {
            // A chunk-size line (extensions ignored), or the trailer section after the last chunk.
            if (!m_socket->canReadLine()) {
                if (m_socket->bytesAvailable() > MaxHeaderBytes)
                    return std::nullopt;
                return false;
            }
            const QByteArray line = m_socket->readLine(MaxHeaderBytes).trimmed();
            if (m_inTrailer) {
                if (line.isEmpty()) {
                    m_inTrailer = false;
                    return true;
                }
                continue; // trailer fields are dropped
            }
            bool ok = false;
            const qsizetype extension = line.indexOf(';');
            const qint64 size = (extension < 0 ? line : line.left(extension)).trimmed().toLongLong(&ok, 16);
            if (!ok || size < 0 || m_chunkedBody.size() + size > MaxBodyBytes)
                return std::nullopt;
            if (size == 0) {
                m_inTrailer = true;
                continue;
            }
            m_chunkRemaining = size;
        }
        if (m_chunkRemaining > 0) {
            const QByteArray data = m_socket->read(m_chunkRemaining);
            if (data.isEmpty())
                return false;
            m_chunkedBody += data;
            m_chunkRemaining -= data.size();
            if (m_chunkRemaining > 0)
                return false;
        }
        // The CRLF after the chunk's data.
        if (m_socket->bytesAvailable() < 2)
            return false;
        if (m_socket->read(2) != "\r\n")
            return std::nullopt;
        m_chunkRemaining = -1;
    }
}

void HttpConnection::emitRequest(const HttpRequest &request)
{
    const QByteArray connection = request.header("connection");
    m_closeAfter =
        request.version == "HTTP/1.0" ? !containsToken(connection, "keep-alive") : containsToken(connection, "close");
    m_requestId = m_settings ? request.header(m_settings->requestIdHeader.toLower()) : QByteArray();
    if (m_requestId.isEmpty())
        m_requestId = newUuid().toLatin1();
    m_busy = true;
    Q_EMIT requestReceived(this, request);
}

void HttpConnection::consumeRequest()
{
    if (m_unread) {
        m_unread = false;
        m_socket->skip(m_headBytes + m_bodyBytes);
    }
}

QByteArray HttpConnection::statusAndCommonHeaders(int status, const HttpHeaders &headers) const
{
    QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status) + "\r\n";
    if (m_settings) {
        for (const auto &[name, value] : m_settings->commonHeaders) {
            const bool overridden = std::any_of(headers.begin(), headers.end(), [&](const auto &header) {
                return header.first.compare(name, Qt::CaseInsensitive) == 0;
            });
            if (!overridden)
                head += name + ": " + value + "\r\n";
        }
    }
    for (const auto &[name, value] : headers)
        head += name + ": " + value + "\r\n";
    if (m_settings && !m_settings->requestIdHeader.isEmpty())
        head += m_settings->requestIdHeader + ": " + m_requestId + "\r\n";
    if (m_closeAfter)
        head += "Connection: close\r\n";
    return head;
}

void HttpConnection::send(const HttpResponse &response)
{
    if (m_gone || !m_busy || m_streaming)
        return;
    consumeRequest();
    QByteArray head = statusAndCommonHeaders(response.status, response.headers);
    if (response.status != 204 && response.status != 304)
        head += "Content-Length: " + QByteArray::number(response.body.size()) + "\r\n";
    m_socket->write(head + "\r\n" + response.body);
    finishExchange();
}

void HttpConnection::startStream(int status, const HttpHeaders &headers)
{
    if (m_gone || !m_busy || m_streaming)
        return;
    consumeRequest();
    m_streaming = true;
    m_socket->write(statusAndCommonHeaders(status, headers) + "Transfer-Encoding: chunked\r\n\r\n");
    m_socket->flush();
}

void HttpConnection::writeChunk(const QByteArray &data)
{
    if (m_gone || !m_streaming || data.isEmpty())
        return;
    m_socket->write(QByteArray::number(data.size(), 16) + "\r\n" + data + "\r\n");
}

void HttpConnection::endStream()
{
    if (m_gone || !m_streaming)
        return;
    m_socket->write("0\r\n\r\n");
    finishExchange();
}

void HttpConnection::abort()
{
    if (m_gone)
        return;
    m_gone = true;
    m_socket->abort();
    deleteLater();
}

QTcpSocket *HttpConnection::detachSocket()
{
    if (m_gone || !m_busy || !m_unread || m_streaming)
        return nullptr;
    QTcpSocket *socket = m_socket;
    disconnect(socket, nullptr, this, nullptr);
    socket->setParent(nullptr);
    m_socket = nullptr;
    m_gone = true;
    deleteLater();
    return socket;
}

void HttpConnection::finishExchange()
{
    m_busy = false;
    m_streaming = false;
    if (m_closeAfter) {
        m_gone = true;
        m_socket->disconnectFromHost();
        return;
    }
    if (m_socket->bytesAvailable() > 0 && !m_parseQueued) {
        m_parseQueued = true;
        QTimer::singleShot(0, this, &HttpConnection::parse);
    }
}

HttpServer::HttpServer(QObject *parent)
    : QObject(parent)
{
}

HttpServer::~HttpServer()
{
    close();
}

void HttpServer::setTls(const QSslConfiguration &configuration)
{
    m_tls = configuration;
    m_tls->setAllowedNextProtocols({QByteArray(QSslConfiguration::NextProtocolHttp1_1)});
}

void HttpServer::acceptPending()
{
    while (QTcpSocket *socket = m_server->nextPendingConnection()) {
        auto *connection = new HttpConnection(socket, &m_settings, this);
        m_connections.insert(connection);
        connect(connection, &QObject::destroyed, this, [this, connection] { m_connections.remove(connection); });
        connect(connection, &HttpConnection::requestReceived, this,
                [this](HttpConnection *c, const HttpRequest &request) {
                    if (RequestLog *log = RequestLog::instance()) {
                        const QByteArray listener = request.path.startsWith("/_fake/") ? QByteArray("fake")
                            : m_recordAs                                               ? m_recordAs(request)
                                                                                       : QByteArray("http");
                        log->record(listener, port(), request);
                    }
                    if (m_handler)
                        m_handler(c, request);
                });
    }
}

bool HttpServer::listen(quint16 port, QString *error)
{
    if (!m_server) {
        if (m_tls) {
            auto *server = new QSslServer(this);
            server->setSslConfiguration(*m_tls);
            m_server = server;
        } else {
            m_server = new QTcpServer(this);
        }
        // QSslServer offers a socket only once its handshake is done (pendingConnectionAvailable);
        // a plain QTcpServer says newConnection.
        connect(m_server, &QTcpServer::pendingConnectionAvailable, this, &HttpServer::acceptPending);
        connect(m_server, &QTcpServer::newConnection, this, &HttpServer::acceptPending);
    }
    m_server->setListenBacklogSize(1024);
    if (m_server->listen(QHostAddress::LocalHost, port))
        return true;
    if (error)
        *error = m_server->errorString();
    return false;
}

quint16 HttpServer::port() const
{
    return m_server ? m_server->serverPort() : 0;
}

void HttpServer::close()
{
    if (m_server)
        m_server->close();
    const QSet<HttpConnection *> connections = m_connections;
    for (HttpConnection *connection : connections)
        connection->abort();
}

} // namespace PaddockFake
