#pragma once

#include "../../canceltoken.h"
#include "../../result.h"
#include "../../sandbox.h"
#include "lifecycleclient.h"

#include <QCoroFwd>

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QObject>
#include <QPointer>
#include <QUrl>

#include <chrono>
#include <functional>
#include <optional>

class QNetworkAccessManager;
class QNetworkReply;

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
    bool background = false;
};

// execd's FileInfo. `mode` is the permission bits as execd writes them: an int that reads like
// octal (644 means rw-r--r--).
struct FileInfo
{
    QString path;
    QString type; // file, directory, symlink, other
    qint64 size = 0;
    QDateTime modifiedAt;
    QString owner;
    QString group;
    int mode = 0;
};

struct CommandStatus
{
    QString id;
    bool running = false;
    std::optional<int> exitCode;
    QString error;
};

// Output of a background command after a cursor, and the cursor to ask with next time. The
// cursor is opaque: the spec says lines, execd counts bytes; we only ever feed back its answer.
struct LogChunk
{
    QByteArray data;
    QByteArray cursor;
};

struct UploadFile
{
    QString path; // where it goes in the sandbox
    QByteArray data;
    int mode = 644; // octal-looking, as execd takes it
};

// execd's command API. run() streams `POST /command`: stdout and stderr arrive as events in
// chunks that need not end at a line; they are cut into lines and handed to onLine as they
// come. The stream has no transfer timeout; execd pings every 3 s, and three missed pings mark
// the stream dead.
//
// A request that cannot connect is not retried here (HttpRequest::retryNotConnected): execd
// that refuses has most likely moved (a restarted server, a rescheduled pod), and knocking on
// the old address again only delays finding the new one. Every request that gets no answer
// says so with unreachable(), so whoever keeps this client (the backend) can fetch the endpoint
// again.
class ExecdClient final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExecdClient)

public:
    ExecdClient(QNetworkAccessManager *network, HttpClient *http, ExecdTarget target,
                std::chrono::milliseconds pingInterval = std::chrono::seconds(3), QObject *parent = nullptr);

    const ExecdTarget &target() const { return m_target; }

    QCoro::Task<Result<bool>> ping();
    // GET /metrics, raw (MetricsWire::parseExecdMetrics); execd measures the CPU over a second
    // before it answers.
    QCoro::Task<Result<QByteArray>> metrics();
    // `cancel` cancelled while the command runs: execd interrupts it (DELETE /command, which
    // kills its process group), the stream is let go, and the run ends with a Cancelled error.
    // onData gets the output as it arrives (ExecRequest::onData).
    QCoro::Task<Result<ExecResult>> run(ExecdCommand command,
                                        std::function<void(OutputChannel, const QByteArray &)> onLine,
                                        std::function<void(OutputChannel, const QByteArray &)> onData = {},
                                        std::shared_ptr<CancelToken> cancel = {});

    // Background commands: execd answers with the command id at once; the output goes to one
    // combined log read by cursor.
    QCoro::Task<Result<QString>> start(ExecdCommand command);
    QCoro::Task<Result<CommandStatus>> status(QString commandId);
    QCoro::Task<Result<LogChunk>> logs(QString commandId, QByteArray cursor);
    QCoro::Task<Result<>> interrupt(QString commandId);

    // Files and directories.
    QCoro::Task<Result<>> upload(QList<UploadFile> files);
    QCoro::Task<Result<QByteArray>> download(QString path);
    // `length` bytes from `offset` (a Range request: 206, or 200 from a server that ignores the
    // range, cut here); an offset at or past the end reads nothing (416).
    QCoro::Task<Result<QByteArray>> downloadRange(QString path, qint64 offset, qint64 length);
    // The whole file, as it arrives, to `sink`; a sink that returns false ends the transfer
    // (Cancelled).
    QCoro::Task<Result<>> downloadTo(QString path, std::function<bool(QByteArrayView)> sink);
    QCoro::Task<Result<QMap<QString, FileInfo>>> fileInfo(QStringList paths);
    QCoro::Task<Result<QList<FileInfo>>> listDirectory(QString path, int depth = 1);
    QCoro::Task<Result<>> makeDirectories(QStringList paths, int mode = 755);
    QCoro::Task<Result<>> removeDirectory(QString path);
    QCoro::Task<Result<>> removeFile(QString path);

    // Ends every read (GET) of this client under way or to come with a Cancelled error, and
    // leaves the rest (commands, uploads) alone: the backend calls it as it pauses the sandbox,
    // whose execd then holds reads unanswered until they time out.
    void cancelReads();

Q_SIGNALS:
    // A request got no answer from execd: no connection (Error::notConnected), no answer in
    // time, or a command stream that broke off or went silent. The address may be stale.
    void unreachable();

private:
    struct Streamed
    {
        ExecResult result;
        QString commandId;
    };
    QCoro::Task<Result<Streamed>> stream(ExecdCommand command,
                                         std::function<void(OutputChannel, const QByteArray &)> onLine,
                                         std::function<void(OutputChannel, const QByteArray &)> onData = {},
                                         std::shared_ptr<CancelToken> cancel = {});
    // Interrupts a running command, then lets its stream go (the reply is aborted once execd
    // said yes, so the run need not wait for the stream's last events).
    QCoro::Task<Result<>> interruptAndLetGo(QString commandId, QPointer<QNetworkReply> reply);
    HttpRequest request(const QByteArray &method, const QString &path, const QByteArray &query = {}) const;
    QCoro::Task<Result<HttpResponse>> send(HttpRequest request); // m_http's, and unreachable() on no answer
    void noteFailure(const Error &error);
    QCoro::Task<Result<>> sendForNothing(HttpRequest request); // 2xx, body ignored
    QCoro::Task<Result<QJsonDocument>> sendForJson(HttpRequest request);

    QNetworkAccessManager *m_network;
    HttpClient *m_http;
    ExecdTarget m_target;
    std::chrono::milliseconds m_pingInterval;
    std::shared_ptr<CancelToken> m_reads = std::make_shared<CancelToken>();
};

QByteArray commandBody(const ExecdCommand &command);
// The multipart body of `POST /files/upload`: for each file a `metadata` part (JSON, with a
// filename, since execd reads it as a file part) followed by its `file` part.
QByteArray uploadBody(const QList<UploadFile> &files, const QByteArray &boundary);
FileInfo parseFileInfo(const QJsonObject &json);

} // namespace Paddock::OpenSandbox
