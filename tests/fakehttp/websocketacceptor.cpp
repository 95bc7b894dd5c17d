#include "websocketacceptor.h"

#include <QTcpSocket>
#include <QWebSocket>

using namespace Qt::StringLiterals;

namespace PaddockFake {

namespace {

bool hasToken(const QList<QByteArray> &values, QByteArrayView token)
{
    for (const QByteArray &value : values) {
        for (const QByteArray &piece : value.split(',')) {
            if (piece.trimmed().compare(token, Qt::CaseInsensitive) == 0)
                return true;
        }
    }
    return false;
}

} // namespace

WebSocketAcceptor::WebSocketAcceptor(const QStringList &subprotocols, QObject *parent)
    : QObject(parent)
    , m_server(u"paddock-fake"_s, QWebSocketServer::NonSecureMode)
    , m_subprotocols(subprotocols)
{
    m_server.setSupportedSubprotocols(subprotocols);
    connect(&m_server, &QWebSocketServer::newConnection, this, &WebSocketAcceptor::onNewConnection);
}

WebSocketAcceptor::~WebSocketAcceptor()
{
    close();
}

bool WebSocketAcceptor::isUpgradeRequest(const HttpRequest &request)
{
    return request.method == "GET" && hasToken(request.headerValues("connection"), "upgrade")
        && hasToken(request.headerValues("upgrade"), "websocket") && request.hasHeader("sec-websocket-key")
        && request.hasHeader("sec-websocket-version");
}

QStringList WebSocketAcceptor::offeredSubprotocols(const HttpRequest &request)
{
    QStringList offered;
    for (const QByteArray &value : request.headerValues("sec-websocket-protocol")) {
        for (const QByteArray &piece : value.split(',')) {
            const QByteArray name = piece.trimmed();
            if (!name.isEmpty())
                offered.append(QString::fromLatin1(name));
        }
    }
    return offered;
}

QString WebSocketAcceptor::chosenSubprotocol(const HttpRequest &request) const
{
    for (const QString &offered : offeredSubprotocols(request)) {
        if (m_subprotocols.contains(offered))
            return offered;
    }
    return {};
}

bool WebSocketAcceptor::accept(HttpConnection *connection, Accepted accepted)
{
    QTcpSocket *socket = connection->detachSocket();
    if (!socket)
        return false;
    // Owned by the server's object until it disconnects (QWebSocketServer then deletes it).
    socket->setParent(&m_server);
    const quint16 port = socket->peerPort();
    static quint64 nextId = 0;
    const quint64 id = ++nextId;
    m_pending[port] = {id, std::move(accepted)};
    // A handshake that fails (QWebSocketServer closes the socket) never reaches newConnection.
    connect(socket, &QObject::destroyed, this, [this, port, id] {
        const auto it = m_pending.find(port);
        if (it != m_pending.end() && it->second.first == id)
            m_pending.erase(it);
    });
    m_server.handleConnection(socket);
    return true;
}

void WebSocketAcceptor::onNewConnection()
{
    while (QWebSocket *socket = m_server.nextPendingConnection()) {
        const auto it = m_pending.find(socket->peerPort());
        if (it == m_pending.end()) {
            socket->abort();
            socket->deleteLater();
            continue;
        }
        const Accepted accepted = std::move(it->second.second);
        m_pending.erase(it);
        accepted(socket);
    }
}

void WebSocketAcceptor::close()
{
    m_pending.clear();
    const QList<QTcpSocket *> sockets = m_server.findChildren<QTcpSocket *>(Qt::FindDirectChildrenOnly);
    for (QTcpSocket *socket : sockets)
        socket->abort();
}

} // namespace PaddockFake
