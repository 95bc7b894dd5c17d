#pragma once

// Takes an HTTP request that asks for a WebSocket off an HttpConnection and hands its socket,
// the request still unread in it, to QWebSocketServer (Qt 6.4, in its non-listening mode:
// handleConnection()), which answers the handshake. Qt 6.4 picks the first subprotocol of the
// client's list that the server supports, which is what the Kubernetes API server does
// (qwebsockethandshakeresponse.cpp; apimachinery wsstream/conn.go).
//
// A handler first checks the request and answers refusals as plain HTTP; only then does it
// call accept().

#include "http.h"

#include <QObject>
#include <QStringList>
#include <QWebSocketServer>

#include <functional>
#include <map>

class QWebSocket;

namespace PaddockFake {

class WebSocketAcceptor final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WebSocketAcceptor)

public:
    // `accepted` gets the socket once the handshake is answered; the receiver owns it.
    using Accepted = std::function<void(QWebSocket *)>;

    explicit WebSocketAcceptor(const QStringList &subprotocols, QObject *parent = nullptr);
    ~WebSocketAcceptor() override;

    // The headers of a WebSocket handshake (RFC 6455 §4.2.1) are there.
    static bool isUpgradeRequest(const HttpRequest &request);
    // The subprotocols the client offered, in its order (every Sec-WebSocket-Protocol header).
    static QStringList offeredSubprotocols(const HttpRequest &request);
    // The one the handshake will choose: the first offered that is supported; empty if none.
    QString chosenSubprotocol(const HttpRequest &request) const;

    // Hands the connection's socket over. False (and nothing done) when the connection cannot
    // give its socket up (already answered or gone).
    bool accept(HttpConnection *connection, Accepted accepted);
    // Drops the handshakes still under way.
    void close();

private:
    void onNewConnection();

    QWebSocketServer m_server;
    QStringList m_subprotocols;
    // Handshakes under way, by the client's port (every client is on 127.0.0.1).
    std::map<quint16, std::pair<quint64, Accepted>> m_pending;
};

} // namespace PaddockFake
