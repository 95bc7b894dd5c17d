#pragma once

#include "e2bapi.h"

#include <QCoroFwd>

#include <QJsonObject>

#include <chrono>
#include <functional>
#include <memory>

namespace Paddock {
class CancelToken;
}

namespace Paddock::E2B {

// One sandbox's envd, reached through the sandbox proxy (reference §4.1): every request carries
// E2b-Sandbox-Id, E2b-Sandbox-Port and the sandbox's X-Access-Token; the control plane's API key
// is never sent here.
struct EnvdTarget
{
    QUrl base;
    QString sandboxId;
    QByteArray accessToken; // from the create or connect answer (or GET /sandboxes/{id})
};

// What a process stream carries that the exec needs.
struct ProcessRun
{
    QString command; // run as /bin/bash -l -c <command>, as the SDKs run every command
    QString cwd;
    std::chrono::milliseconds timeout{0}; // Connect-Timeout-Ms; 0: none
    std::chrono::seconds keepalive{50}; // Keepalive-Ping-Interval (the SDK's 50 s)
};

// envd's Connect RPC with the JSON codec (process.Process, filesystem.Filesystem) and its
// `/health` and `/files` routes. Errors: envd's and the proxy's bodies through decodeError (502:
// the sandbox is not running, or envd cannot be reached in it).
class EnvdClient
{
public:
    EnvdClient(HttpClient *http, EnvdTarget target, std::chrono::milliseconds requestTimeout);

    const EnvdTarget &target() const { return m_target; }

    // GET /health: 204 true; 502 (the proxy: not running) false.
    QCoro::Task<Result<bool>> health();
    // A unary call: `POST /<service>/<method>` with the JSON message; the answer's message.
    QCoro::Task<Result<QJsonObject>> call(QString method, QJsonObject message, bool retrySafe);

    // process.Process/Start as a server stream, parsed as it arrives: `start` first (its pid),
    // stdout and stderr cut into lines for onLine (and every piece to onData), keepalives, and
    // the exit code from `end`. A stream silent for three keepalive intervals, dropped, or ended
    // without `end` and the end-stream envelope is an Unreachable error that says the command's
    // fate is unknown: never an exit code. `cancel` kills the process (SendSignal SIGKILL, to its
    // process group) and ends with Cancelled; nothing reaches onLine after it.
    QCoro::Task<Result<ExecResult>> run(ProcessRun process,
                                        std::function<void(OutputChannel, const QByteArray &)> onLine,
                                        std::function<void(OutputChannel, const QByteArray &)> onData,
                                        std::shared_ptr<CancelToken> cancel);
    QCoro::Task<Result<>> kill(qint64 pid);

    // filesystem.Filesystem/Stat (the entry itself; a symlink is not followed) and ListDir.
    QCoro::Task<Result<QJsonObject>> stat(QString path);
    QCoro::Task<Result<QList<QJsonObject>>> listDir(QString path, int depth);
    // GET /files, streamed to `sink` as it arrives; a sink that returns false stops it
    // (Cancelled).
    QCoro::Task<Result<>> download(QString path, std::function<bool(QByteArrayView)> sink);
    // POST /files as application/octet-stream (envd ≥ 0.5.7), sent once.
    QCoro::Task<Result<>> upload(QString path, QByteArray data);

private:
    HttpRequest request(const QByteArray &method, const QString &path, const QByteArray &query = {}) const;
    static QCoro::Task<Result<>> signal(HttpClient *http, HttpRequest request);

    HttpClient *m_http;
    EnvdTarget m_target;
    std::chrono::milliseconds m_requestTimeout;
};

// A process's `end` event as ExecResult's exit code: `exitCode` (absent: 0), -1 when killed by a
// signal.
int exitCodeOf(const QJsonObject &end);

} // namespace Paddock::E2B
