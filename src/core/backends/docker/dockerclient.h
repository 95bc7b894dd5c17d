#pragma once

#include "../../result.h"
#include "../../sandbox.h"
#include "curlhttp.h"

#include <QCoroFwd>

#include <QDateTime>
#include <QMap>
#include <QObject>
#include <QStringList>

#include <chrono>
#include <functional>

namespace Paddock::Docker {

// A container as the engine lists or inspects it.
struct ContainerInfo
{
    QString id;
    QString name; // without the leading slash
    QString image;
    // created, running, paused, restarting, removing, exited or dead
    QString status;
    QMap<QString, QString> labels;
    QDateTime created; // UTC
    QStringList binds; // host:container[:mode], when inspected
    QMap<QString, QString> mounts; // where in the container -> the host source, listed or inspected

    // What an inspection says beyond the listing (Backend::details); never Config.Env.
    struct Inspected
    {
        QString error; // State.Error: why the engine could not start or run it
        int exitCode = 0; // State.ExitCode
        bool oomKilled = false; // State.OOMKilled
        QDateTime startedAt; // State.StartedAt (invalid: never started)
        QDateTime finishedAt; // State.FinishedAt (invalid: never ended)
        int restartCount = 0; // RestartCount
        qint64 nanoCpus = 0; // HostConfig.NanoCpus (0: no limit)
        qint64 cpuQuota = 0; // HostConfig.CpuQuota and CpuPeriod (microseconds; 0: none)
        qint64 cpuPeriod = 0;
        qint64 memory = 0; // HostConfig.Memory in bytes (0: no limit)
        qint64 pidsLimit = 0; // HostConfig.PidsLimit (0 or less: none)
        QString networkMode; // HostConfig.NetworkMode
        QList<std::pair<QString, QString>> addresses; // network -> IP address, where it has one
    };
    Inspected inspected; // filled by inspect() only
};

// What a new container gets.
struct ContainerSpec
{
    QString name; // empty: the engine picks one
    QString image;
    QStringList cmd;
    QString workingDir;
    QMap<QString, QString> labels;
    QMap<QString, QString> env;
    QStringList binds; // host:container[:mode]
    QString networkMode = QStringLiteral("none"); // empty: the engine's default network
};

// Docker's multiplexed exec stream: frames of [stream, 0, 0, 0, size (4 bytes, big-endian)]
// then `size` bytes of stdout (1) or stderr (2). Chunks arrive cut anywhere; feed() keeps what a
// frame still misses.
class StreamDemuxer
{
public:
    using Sink = std::function<void(OutputChannel, QByteArrayView)>;
    explicit StreamDemuxer(Sink sink)
        : m_sink(std::move(sink))
    {
    }
    void feed(QByteArrayView chunk);
    // A frame was cut off by the end of the stream.
    bool hasPartialFrame() const { return !m_pending.isEmpty(); }

private:
    Sink m_sink;
    QByteArray m_pending;
};

// The Docker Engine API (v1.41, Docker 20.10 and later) over CurlHttpClient. Every answer that
// is not 2xx becomes an error value with the engine's own message: 404 NotFound, 409 Conflict,
// anything else Backend, with the HTTP status.
class DockerClient final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DockerClient)

public:
    static constexpr QLatin1String ApiVersion{"v1.41"};

    explicit DockerClient(CurlHttpClient *http, QObject *parent = nullptr);

    const EngineAddress &address() const;

    QCoro::Task<Result<>> ping();
    // Containers (running or not) that carry every label given (an empty value: the label is
    // there, whatever its value).
    QCoro::Task<Result<QList<ContainerInfo>>> list(QMap<QString, QString> labels);
    QCoro::Task<Result<ContainerInfo>> inspect(QString id);
    QCoro::Task<Result<bool>> imageExists(QString image);
    // The new container's id. An image that is not there is a NotFound error that says so.
    QCoro::Task<Result<QString>> create(ContainerSpec spec);
    QCoro::Task<Result<>> start(QString id);
    QCoro::Task<Result<>> pause(QString id);
    QCoro::Task<Result<>> unpause(QString id);
    QCoro::Task<Result<>> stop(QString id, std::chrono::seconds grace);
    QCoro::Task<Result<>> remove(QString id, bool force);
    // The last `tail` lines of what the container printed (stdout and stderr as they came), each
    // starting with its RFC 3339 time, as `docker logs --timestamps --tail N` shows them.
    QCoro::Task<Result<QByteArray>> logs(QString id, int tail);
    // GET /containers/<id>/stats?stream=false: one sample with the one before it (the engine
    // takes about a second to answer), raw, for MetricsWire::parseDockerStats.
    QCoro::Task<Result<QByteArray>> stats(QString id);
    // Runs argv in the container and streams its output, demultiplexed, as it comes; the
    // exit code at the end. `stopReading` cancelled while the output streams ends the stream at
    // once (Cancelled); the engine has no way to end the command itself.
    QCoro::Task<Result<int>> exec(QString id, QStringList argv, QString workingDir,
                                  std::function<void(OutputChannel, QByteArrayView)> onOutput,
                                  std::shared_ptr<CancelToken> stopReading = {});

    // PUT /containers/<id>/archive?path=<folder>: the tar archive's entries land in that folder
    // of the container (which must exist), as `docker cp` puts them.
    QCoro::Task<Result<>> putArchive(QString id, QString folder, QByteArray tar);

private:
    QCoro::Task<Result<HttpResponse>> call(HttpRequest request);
    // POST /containers/<id>/<verb>[?query]: 204 is done, and 304 too when alreadyIsFine.
    QCoro::Task<Result<>> action(QString id, QByteArray verb, QByteArray query, std::chrono::milliseconds timeout,
                                 bool alreadyIsFine);
    QByteArray target(const QString &path, const QByteArray &query = {}) const;
    Error errorFor(const HttpResponse &response, const QByteArray &what) const;

    CurlHttpClient *m_http;
};

// What the engine answers, read without I/O (dockerwire.cpp). parseDockerTime: the engine's
// timestamps ("2026-11-30T12:00:00.123456789Z"). parseContainerList: GET /containers/json's array
// (anything else is no container). parseContainerInspect: GET /containers/{id}/json's object.
// logText: the body of GET /containers/{id}/logs as text: a container without a terminal answers
// in frames (by the content type, or by a first frame header), which are joined; one with a
// terminal, as plain text.
QDateTime parseDockerTime(const QString &text);
QList<ContainerInfo> parseContainerList(const QByteArray &json);
ContainerInfo parseContainerInspect(const QByteArray &json);
QByteArray logText(const QByteArray &contentType, const QByteArray &body);

} // namespace Paddock::Docker
