#pragma once

// A scripted HTTP/1.1 server on 127.0.0.1 for client tests: each request gets the next queued
// raw response (an empty entry: accept and never answer; a response with `Connection: close`
// is followed by closing the connection); every request is kept byte for byte.

#include <QHash>
#include <QPointer>
#include <QQueue>
#include <QTcpServer>
#include <QTcpSocket>
#include <QUrl>

namespace PaddockTest {

// Answers each request with the next scripted raw response; an empty script entry means
// "accept and never answer".
class ScriptedHttpServer final : public QTcpServer
{
public:
    ScriptedHttpServer()
    {
        QObject::connect(this, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = nextPendingConnection()) {
                QObject::connect(socket, &QTcpSocket::readyRead, socket, [this, socket] { onData(socket); });
                QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
        if (!listen(QHostAddress::LocalHost, 0))
            qFatal("cannot listen on 127.0.0.1");
    }

    QUrl url(const QString &path) const
    {
        return QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(serverPort()).arg(path));
    }

    static QByteArray response(int status, const QByteArray &body, const QByteArray &extraHeaders = {})
    {
        return "HTTP/1.1 " + QByteArray::number(status)
            + " X\r\nContent-Type: application/json\r\n"
              "X-Request-ID: req-"
            + QByteArray::number(status) + "\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n"
            + extraHeaders + "\r\n" + body;
    }

    // A script entry that closes the connection without answering.
    static QByteArray drop() { return QByteArrayLiteral("\x01drop"); }

    QQueue<QByteArray> script;
    QList<QByteArray> requests;
    // The connection of the last request answered: a test writes the rest of a streamed answer
    // through it.
    QPointer<QTcpSocket> lastSocket;

private:
    void onData(QTcpSocket *socket)
    {
        QByteArray &buffer = m_buffers[socket];
        buffer += socket->readAll();
        for (;;) {
            const qsizetype end = buffer.indexOf("\r\n\r\n");
            if (end < 0)
                return;
            qsizetype length = 0;
            for (const QByteArray &line : buffer.left(end).split('\n')) {
                if (line.toLower().startsWith("content-length:"))
                    length = line.mid(15).trimmed().toLongLong();
            }
            if (buffer.size() < end + 4 + length)
                return;
            requests.append(buffer.left(end + 4 + length));
            buffer.remove(0, end + 4 + length);
            const QByteArray answer = script.isEmpty() ? response(500, "{}") : script.dequeue();
            if (answer == drop()) {
                socket->abort();
                return;
            }
            lastSocket = socket;
            if (!answer.isEmpty())
                socket->write(answer);
            // A streamed answer without Content-Length ends when the connection does.
            if (answer.contains("\r\nConnection: close\r\n"))
                socket->disconnectFromHost();
        }
    }

    QHash<QTcpSocket *, QByteArray> m_buffers;
};

} // namespace PaddockTest
