#pragma once

#include "../../result.h"
#include "../../sandbox.h"
#include "lifecycleclient.h"

#include <QCoroFwd>

#include <QMap>
#include <QObject>
#include <QUrl>

#include <chrono>
#include <functional>

class QNetworkAccessManager;

namespace Paddock::OpenSandbox {

// Where one sandbox's execd answers: the endpoint the lifecycle server returned for port
// 44772, with its headers. The lifecycle API key is never sent here.
struct ExecdTarget
{
    static constexpr int Port = 44772;

    QUrl base; // <protocol>://<endpoint>
    QMap<QByteArray, QByteArray> headers; // sent on every execd call

    static ExecdTarget fromEndpoint(const Endpoint &endpoint, const QString &protocol);
};

struct ExecdCommand
{
    QString command; // run by execd as `bash -c` (sh as fallback)
    QString cwd;
    std::chrono::milliseconds timeout{0}; // execd kills the process group after it; 0: none
    QMap<QString, QString> envs;
};

// execd's command API. run() streams `POST /command`: stdout and stderr arrive as events in
// chunks that need not end at a line; they are cut into lines and handed to onLine as they
// come. The stream has no transfer timeout; execd pings every 3 s, and three missed pings mark
// the stream dead.
class ExecdClient final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExecdClient)

public:
    ExecdClient(QNetworkAccessManager *network, HttpClient *http, ExecdTarget target,
                std::chrono::milliseconds pingInterval = std::chrono::seconds(3), QObject *parent = nullptr);

    QCoro::Task<Result<bool>> ping();
    QCoro::Task<Result<ExecResult>> run(ExecdCommand command,
                                        std::function<void(OutputChannel, const QByteArray &)> onLine);

private:
    QNetworkAccessManager *m_network;
    HttpClient *m_http;
    ExecdTarget m_target;
    std::chrono::milliseconds m_pingInterval;
};

QByteArray commandBody(const ExecdCommand &command);

} // namespace Paddock::OpenSandbox
