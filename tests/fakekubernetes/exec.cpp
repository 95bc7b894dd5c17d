// pods/exec over a WebSocket, as the API server does it for v5.channel.k8s.io (its stream
// translator) and the kubelet for v4.channel.k8s.io: the checks before the upgrade answered as
// plain HTTP, then binary messages whose first byte is the channel (0 stdin, 1 stdout, 2
// stderr, 3 status, 4 resize, 255 close, v5 only), the empty "ready" message first, one status
// on channel 3, and a normal close. The command runs inside the Pod's container (its sandbox).

#include "fakekubernetes.h"

#include <QJsonArray>
#include <QWebSocket>

using namespace Qt::StringLiterals;

namespace PaddockFake::Kube {

namespace {

QByteArray statusMessage(const QByteArray &json)
{
    return '\x03' + json;
}

QByteArray successStatus()
{
    return R"({"metadata":{},"status":"Success"})";
}

QByteArray exitStatus(int code)
{
    QByteArray json = R"({"metadata":{},"status":"Failure","message":)";
    appendJsonString(json,
                     u"command terminated with non-zero exit code: command terminated with exit code %1"_s.arg(code));
    return json + R"(,"reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":")"
        + QByteArray::number(code) + R"("}]}})";
}

QByteArray internalErrorStatus(const QString &message)
{
    QByteArray json = R"({"metadata":{},"status":"Failure","message":)";
    appendJsonString(json, QString(u"Internal error occurred: "_s + message));
    json += R"(,"reason":"InternalError","details":{"causes":[{"message":)";
    appendJsonString(json, message);
    return json + R"(}]},"code":500})";
}

} // namespace

// One exec: its WebSocket and its process. Deletes itself once both are done.
class ExecSession final : public QObject
{
public:
    ExecSession(QWebSocket *socket, bool v5, bool in, bool out, bool err, bool tty, QObject *parent)
        : QObject(parent)
        , m_socket(socket)
        , m_v5(v5)
        , m_stdin(in)
        , m_stdout(out)
        , m_stderr(err && !tty)
    {
        socket->setParent(this);
        connect(socket, &QWebSocket::binaryMessageReceived, this, &ExecSession::onMessage);
        connect(socket, &QWebSocket::textMessageReceived, this,
                [this](const QString &text) { onMessage(text.toUtf8()); });
        connect(socket, &QWebSocket::disconnected, this, [this] {
            m_socketGone = true;
            if (m_process && m_process->state() != QProcess::NotRunning)
                m_process->closeWriteChannel(); // the command goes on, its output is dropped
            finishIfDone();
        });
    }

    // Sends the "ready" message: an empty message on the first enabled output channel.
    void ready()
    {
        const char channel = m_stdout ? '\x01' : m_stderr ? '\x02' : '\x03';
        send(QByteArray(1, channel));
    }

    // Ends at once with `status` on channel 3.
    void fail(const QByteArray &status)
    {
        m_statusSent = true;
        send(statusMessage(status));
        closeSocket();
        finishIfDone();
    }

    // Runs the prepared process (program, arguments, environment, working directory set).
    void run(QProcess *process, bool tty)
    {
        m_process = process;
        process->setParent(this);
        process->setProcessChannelMode(tty ? QProcess::MergedChannels : QProcess::SeparateChannels);
        if (!m_stdin)
            process->setStandardInputFile(QProcess::nullDevice());
        connect(process, &QProcess::readyReadStandardOutput, this,
                [this] { forward(1, m_process->readAllStandardOutput()); });
        connect(process, &QProcess::readyReadStandardError, this,
                [this] { forward(2, m_process->readAllStandardError()); });
        connect(process, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
            forward(1, m_process->readAllStandardOutput());
            forward(2, m_process->readAllStandardError());
            // A command a signal ended reports 128 + the signal, as a container runtime does.
            const int code = status == QProcess::NormalExit ? exitCode : 128 + exitCode;
            if (!m_statusSent) {
                m_statusSent = true;
                send(statusMessage(code == 0 ? successStatus() : exitStatus(code)));
            }
            closeSocket();
            finishIfDone();
        });
        process->start();
        if (!process->waitForStarted(30'000)) {
            m_process = nullptr;
            process->deleteLater();
            fail(internalErrorStatus(u"error executing command in container: "_s + process->errorString()));
            return;
        }
        m_pid = process->processId();
    }

    void kill() { killProcessGroup(m_pid); }

private:
    void send(const QByteArray &message)
    {
        if (!m_socketGone && m_socket->state() == QAbstractSocket::ConnectedState)
            m_socket->sendBinaryMessage(message);
    }

    void forward(int channel, const QByteArray &data)
    {
        if (data.isEmpty() || (channel == 1 && !m_stdout) || (channel == 2 && !m_stderr))
            return;
        send(char(channel) + data);
    }

    void onMessage(const QByteArray &message)
    {
        if (message.isEmpty())
            return;
        const auto channel = static_cast<unsigned char>(message.at(0));
        if (channel == 0) {
            if (m_stdin && m_process && !m_stdinClosed)
                m_process->write(message.mid(1));
            return;
        }
        if (channel == 0xFF && m_v5) {
            // CLOSE: exactly one byte, the channel to half-close; anything else ends the connection.
            if (message.size() != 2 || static_cast<unsigned char>(message.at(1)) > 4) {
                closeSocket();
                return;
            }
            if (message.at(1) == 0 && m_process && !m_stdinClosed) {
                m_stdinClosed = true;
                m_process->closeWriteChannel();
            }
        }
        // Resize (4) means nothing without a terminal; other channels are dropped.
    }

    void closeSocket()
    {
        if (!m_socketGone && m_socket->state() == QAbstractSocket::ConnectedState)
            m_socket->close(QWebSocketProtocol::CloseCodeNormal);
    }

    void finishIfDone()
    {
        const bool processDone = !m_process || m_process->state() == QProcess::NotRunning;
        if (processDone && (m_socketGone || m_statusSent))
            deleteLater();
    }

    QWebSocket *m_socket;
    QProcess *m_process = nullptr;
    qint64 m_pid = 0;
    bool m_v5;
    bool m_stdin;
    bool m_stdout;
    bool m_stderr;
    bool m_stdinClosed = false;
    bool m_statusSent = false;
    bool m_socketGone = false;
};

void FakeKubernetes::killExec(QObject *session)
{
    static_cast<ExecSession *>(session)->kill();
}

std::optional<StatusError> FakeKubernetes::containerCheck(const Version &pod, const QString &container,
                                                          bool forExec) const
{
    const QJsonObject &object = pod.object;
    const QString phase = object.value(u"status"_s).toObject().value(u"phase"_s).toString();
    if (forExec && (phase == u"Succeeded"_s || phase == u"Failed"_s))
        return badRequest(u"cannot exec into a container in a completed pod; current phase is %1"_s.arg(phase));
    QStringList names;
    for (const QJsonValue &value : object.value(u"spec"_s).toObject().value(u"containers"_s).toArray())
        names.append(value.toObject().value(u"name"_s).toString());
    if (container.isEmpty() && names.size() > 1) {
        return badRequest(
            u"a container name must be specified for pod %1, choose one of: [%2]"_s.arg(pod.name, names.join(u' ')));
    }
    if (!container.isEmpty() && !names.contains(container))
        return badRequest(u"container %1 is not valid for pod %2"_s.arg(container, pod.name));
    if (object.value(u"spec"_s).toObject().value(u"nodeName"_s).toString().isEmpty())
        return badRequest(u"pod %1 does not have a host assigned"_s.arg(pod.name));
    return std::nullopt;
}

void FakeKubernetes::exec(HttpConnection *connection, const HttpRequest &request, const QString &ns,
                          const QString &name)
{
    const Entry *entry = find(Kind::Pod, ns, name);
    if (!entry)
        return connection->send(notFound(u"pods"_s, name).response());
    const QStringList command = request.queryValues(u"command"_s);
    const QString container = request.queryValues(u"container"_s).value(0);
    const bool in = queryBool(request, u"stdin"_s);
    const bool out = queryBool(request, u"stdout"_s);
    const bool err = queryBool(request, u"stderr"_s);
    const bool tty = queryBool(request, u"tty"_s);
    if (std::optional<StatusError> refusal = containerCheck(*entry->current, container, true))
        return connection->send(refusal->response());
    if (!in && !out && !err)
        return connection->send(badRequest(u"you must specify at least 1 of stdin, stdout, stderr"_s).response());
    if (command.isEmpty())
        return connection->send(badRequest(u"you must specify at least one command for the container"_s).response());
    if (request.method == "POST") {
        // SPDY (kubectl falls back to it when the WebSocket upgrade fails).
        return connection->send(badRequest(u"this fake API server speaks exec over WebSocket only "
                                           "(v5.channel.k8s.io, v4.channel.k8s.io), not SPDY"_s)
                                    .response());
    }
    if (!WebSocketAcceptor::isUpgradeRequest(request))
        return connection->send(badRequest(u"Upgrade request required"_s).response());
    const QString protocol = m_websockets.chosenSubprotocol(request);
    if (protocol.isEmpty()) {
        return connection->send(
            badRequest(u"requested protocols are not supported: [%1]; this fake speaks v5.channel.k8s.io and "
                       "v4.channel.k8s.io"_s.arg(WebSocketAcceptor::offeredSubprotocols(request).join(u' ')))
                .response());
    }
    const QString key = entry->current->key;
    m_websockets.accept(connection, [this, key, protocol, command, in, out, err, tty](QWebSocket *socket) {
        startExec(socket, key, protocol, command, in, out, err, tty);
    });
}

void FakeKubernetes::startExec(QWebSocket *socket, const QString &key, const QString &protocol,
                               const QStringList &command, bool in, bool out, bool err, bool tty)
{
    auto *session = new ExecSession(socket, protocol == u"v5.channel.k8s.io"_s, in, out, err, tty, this);
    session->ready();
    Entry *entry = table(Kind::Pod).count(key) ? &table(Kind::Pod)[key] : nullptr;
    if (!entry || !entry->pod || m_stopped)
        return session->fail(internalErrorStatus(u"container not found (\"%1\")"_s.arg(key.section(u'/', 1))));
    PodState *pod = entry->pod;
    const Version &version = *entry->current;
    const QJsonObject status = version.object.value(u"status"_s).toObject();
    const QJsonObject state =
        status.value(u"containerStatuses"_s).toArray().at(0).toObject().value(u"state"_s).toObject();
    const QString containerName = version.object.value(u"spec"_s)
                                      .toObject()
                                      .value(u"containers"_s)
                                      .toArray()
                                      .at(0)
                                      .toObject()
                                      .value(u"name"_s)
                                      .toString();
    // The API server has upgraded already; the kubelet's refusal comes back as a status.
    if (!state.contains(u"running"_s)) {
        return session->fail(
            internalErrorStatus(u"unable to upgrade connection: container not found (\"%1\")"_s.arg(containerName)));
    }
    QString error;
    if (!ensureContainer(key, &error))
        return session->fail(internalErrorStatus(u"error executing command in container: "_s + error));
    const QString cwd = containerWorkingDir(version, pod);
    if (!executableExists(version, pod, command.first(), cwd)) {
        return session->fail(internalErrorStatus(
            u"error executing command in container: failed to exec in container: failed to start exec \"%1\": OCI "
            "runtime exec failed: exec failed: unable to start container process: exec: \"%2\": executable file not "
            "found in $PATH: unknown"_s.arg(newHexId() + newHexId(), command.first())));
    }
    auto *process = new QProcess;
    if (pod->sandbox) {
        pod->sandbox->prepare(*process, command, cwd, containerEnv(version));
    } else {
        QProcessEnvironment environment;
        for (const auto &[variable, value] : containerEnv(version))
            environment.insert(variable, value);
        environment.insert(u"HOME"_s, pod->dir + u"/root"_s);
        environment.insert(u"TMPDIR"_s, pod->dir + u"/tmp"_s);
        process->setProcessEnvironment(environment);
        process->setProgram(command.first());
        process->setArguments(command.mid(1));
        const QString host = hostPathIn(version, pod, cwd);
        process->setWorkingDirectory(host.isEmpty() ? pod->dir : host);
        runInOwnProcessGroup(*process);
    }
    pod->execs.removeIf([](const QPointer<QObject> &p) { return p.isNull(); });
    pod->execs.append(session);
    session->run(process, tty);
}

} // namespace PaddockFake::Kube
