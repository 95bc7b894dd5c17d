#include "podexec.h"

#include "../../canceltoken.h"
#include "../../linesplitter.h"
#include "../../shellquote.h"
#include "../../tr.h"
#include "../../waitset.h"

#include <QCoroTask>

#include <QCoreApplication>
#include <QLoggingCategory>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTimer>

#include <QUrl>
#include <QWebSocket>
#include <QWebSocketHandshakeOptions>
#include <chrono>

#include <optional>
#include <utility>

Q_LOGGING_CATEGORY(lcKubeExec, "paddock.core.kubernetes.exec", QtInfoMsg)

namespace Paddock::Kubernetes {

namespace {

constexpr char StdinChannel = 0;
constexpr char StdoutChannel = 1;
constexpr char StderrChannel = 2;
constexpr char StatusChannel = 3;

// Go's url.QueryEscape, as kubectl writes its query: unreserved bytes kept, space as '+',
// everything else %XX.
QByteArray queryEscape(const QString &value)
{
    return value.toUtf8().toPercentEncoding(" ").replace(' ', '+');
}

QByteArray execQuery(const PodExecCommand &command)
{
    QByteArrayList parts;
    for (const QString &arg : command.argv)
        parts.append("command=" + queryEscape(arg));
    if (!command.container.isEmpty())
        parts.append("container=" + queryEscape(command.container));
    parts.append(QByteArrayLiteral("stdout=true"));
    parts.append(QByteArrayLiteral("stderr=true"));
    if (command.withStdin)
        parts.append(QByteArrayLiteral("stdin=true"));
    return parts.join('&');
}

QString podName(const QUrl &url)
{
    const QStringList parts = url.path().split(u'/', Qt::SkipEmptyParts);
    if (parts.size() >= 2 && parts.last() == QLatin1String("exec"))
        return parts.at(parts.size() - 2);
    return url.path();
}

// What Qt 6.4's QWebSocket says when the server refuses the handshake (qwebsocket_p.cpp,
// processHandshake), matched as QWebSocket::tr() words it in the language loaded.
struct QtHandshakeText
{
    const char *source;
    // The text translated, as a pattern: %1 and %2 capture; which capture is which placeholder.
    std::optional<QStringList> match(const QString &text) const
    {
        const QString translated = QCoreApplication::translate("QWebSocket", source);
        QString pattern = QRegularExpression::escape(translated);
        QList<int> order;
        for (qsizetype at = 0; (at = pattern.indexOf(QLatin1String("\\%"), at)) >= 0;) {
            const QChar digit = at + 2 < pattern.size() ? pattern.at(at + 2) : QChar();
            if (digit != u'1' && digit != u'2') {
                at += 2;
                continue;
            }
            order.append(digit.digitValue());
            pattern.replace(at, 3, QStringLiteral("(.*)"));
            at += 4;
        }
        const QRegularExpressionMatch found =
            QRegularExpression(QRegularExpression::anchoredPattern(pattern)).match(text);
        if (!found.hasMatch())
            return std::nullopt;
        QStringList args(2);
        for (int i = 0; i < order.size(); ++i)
            args[order.at(i) - 1] = found.captured(i + 1);
        return args;
    }
};

// Qt's own words (plain literals: they are Qt's to translate, not ours).
constexpr QtHandshakeText UnhandledStatus{"QWebSocketPrivate::processHandshake: Unhandled http status code: %1 (%2)."};
// Qt words a 400 answer so, without its status.
constexpr QtHandshakeText BadRequest{
    "QWebSocketPrivate::processHandshake: Unknown error condition encountered. Aborting connection."};
constexpr QtHandshakeText BadRequestVersion{"Handshake: Server requests a version that we don't support: %1."};
constexpr QtHandshakeText NotOffered{"WebSocket server has chosen protocol %1 which has not been requested"};

struct Refusal
{
    int status = 0; // the HTTP status of a refused handshake; 0: not known to be one
    QString reason; // its reason phrase, when Qt gave it
    QString chosen; // a protocol the server chose that was not offered
};

Refusal classify(const QString &errorString)
{
    Refusal refusal;
    if (const auto args = UnhandledStatus.match(errorString)) {
        refusal.status = args->at(0).toInt();
        refusal.reason = args->at(1);
    } else if (BadRequest.match(errorString) || BadRequestVersion.match(errorString)) {
        refusal.status = 400;
    } else if (const auto chosen = NotOffered.match(errorString)) {
        refusal.chosen = chosen->at(0);
    }
    return refusal;
}

QString hostOf(const QUrl &url)
{
    return url.toString(QUrl::RemoveUserInfo | QUrl::RemovePath | QUrl::RemoveQuery | QUrl::RemoveFragment);
}

Error refusedError(const QString &pod, const Refusal &refusal, bool v4Tried)
{
    const QString status = refusal.reason.isEmpty() ? QString::number(refusal.status)
                                                    : QString::number(refusal.status) + u' ' + refusal.reason;
    QString message;
    switch (refusal.status) {
    case 400:
        message = v4Tried ? Tr::tr("the API server refused the exec into pod %1 with HTTP %2, offering %3 and %4 and "
                                   "then %4 alone: the pod may not be running, or a proxy on the way does not pass "
                                   "websockets")
                                .arg(pod, status, ExecProtocolV5, ExecProtocolV4)
                          : Tr::tr("the API server refused the exec into pod %1 with HTTP %2: the pod may not be "
                                   "running, or a proxy on the way does not pass websockets")
                                .arg(pod, status);
        break;
    case 401:
        message = Tr::tr("the API server refused the exec into pod %1 with HTTP %2: it did not accept the "
                         "credentials; check the kubeconfig's user")
                      .arg(pod, status);
        break;
    case 403:
        message = Tr::tr("the API server refused the exec into pod %1 with HTTP %2: your role may not exec into pods "
                         "(it needs get and create on pods/exec)")
                      .arg(pod, status);
        break;
    case 404:
        message = Tr::tr("the API server refused the exec into pod %1 with HTTP %2: the pod or its namespace does not "
                         "exist")
                      .arg(pod, status);
        break;
    default:
        message = Tr::tr("the API server refused the exec into pod %1 with HTTP %2").arg(pod, status);
        break;
    }
    const Error::Kind kind = refusal.status == 404 ? Error::Kind::NotFound : Error::Kind::Backend;
    return Error{kind, message, refusal.status};
}

Error notOfferedError(const QString &pod, const QString &chosen, const QStringList &offered)
{
    return Error::backend(
        Tr::tr("the API server chose the exec protocol '%1' for pod %2, which Paddock did not offer (it offers %3)")
            .arg(chosen, pod, offered.join(QLatin1String(", "))));
}

// What woke a suspended run, set by the signal handlers; the run reads the flags. A handler
// calls notify() last: the run may resume within it and end, freeing everything it holds.
// Handshakes of one exec at most (see PodExec::run's handshake).
constexpr int MaxHandshakes = 6;
// Of those, when nothing listens (an API server restarting): four, 1.75 s, as the HTTP layer.
constexpr int NotConnectedHandshakes = 4;

struct Wakeup
{
    Wait *wait = nullptr;
    bool pending = false;

    void notify()
    {
        pending = true;
        if (wait)
            wait->ring();
    }
};

// Suspends until a handler notifies (at once when one already did); false when the set closed.
QCoro::Task<bool> pause(WaitSet &waits, Wakeup &wake)
{
    if (std::exchange(wake.pending, false))
        co_return !waits.isClosed();
    Wait wait(waits);
    wake.wait = &wait;
    co_await wait;
    wake.wait = nullptr;
    wake.pending = false;
    co_return !wait.wasClosed();
}

// Deleted later: the socket may be the one emitting when the run's frame ends.
struct SocketDeleter
{
    void operator()(QWebSocket *socket) const
    {
        if (socket->state() != QAbstractSocket::UnconnectedState && socket->state() != QAbstractSocket::ClosingState)
            socket->abort();
        socket->deleteLater();
    }
};

// One websocket attempt of a run, in the run's frame: the socket and what it reported.
class Link final
{
    Q_DISABLE_COPY_MOVE(Link)

public:
    Link(Wakeup &wake, const PodExecSettings &settings)
        : m_socket(new QWebSocket)
        , m_wake(wake)
        , m_settings(settings)
    {
        QWebSocket *socket = m_socket.get();
        QObject::connect(socket, &QWebSocket::connected, &m_context, [this] {
            connected = true;
            m_handshakeTimer.stop();
            m_wake.notify();
        });
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
        QObject::connect(socket, &QWebSocket::errorOccurred, &m_context,
                         [this](QAbstractSocket::SocketError error) { onError(error); });
#else
        QObject::connect(socket, qOverload<QAbstractSocket::SocketError>(&QWebSocket::error), &m_context,
                         [this](QAbstractSocket::SocketError error) { onError(error); });
#endif
        QObject::connect(socket, &QWebSocket::aboutToClose, &m_context, [this] {
            // Before disconnected(), and only when a close frame came (or a close of ours, or a
            // frame Qt could not read): a connection that just drops does not say it.
            if (!m_weClosed)
                peerClosed = true;
        });
        QObject::connect(socket, &QWebSocket::disconnected, &m_context, [this] {
            // A connection refused says so after it says disconnected; its error is set already.
            if (!connected && !failed && m_socket->error() != QAbstractSocket::UnknownSocketError)
                noteFailure(m_socket->error());
            disconnected = true;
            m_pingTimer.stop();
            m_handshakeTimer.stop();
            m_wake.notify();
        });
        QObject::connect(socket, &QWebSocket::binaryMessageReceived, &m_context, [this](const QByteArray &message) {
            m_unanswered = 0;
            messages.append(message);
            m_wake.notify();
        });
        QObject::connect(socket, &QWebSocket::textMessageReceived, &m_context, [this](const QString &) {
            m_unanswered = 0;
            ++textMessages;
            m_wake.notify();
        });
        QObject::connect(socket, &QWebSocket::pong, &m_context,
                         [this](quint64, const QByteArray &) { m_unanswered = 0; });
        QObject::connect(socket, &QWebSocket::bytesWritten, &m_context, [this](qint64) {
            wrote = true;
            m_wake.notify();
        });
        QObject::connect(socket, &QWebSocket::sslErrors, &m_context, [](const QList<QSslError> &errors) {
            for (const QSslError &error : errors)
                qCWarning(lcKubeExec).noquote() << "TLS:" << error.errorString();
        });

        m_handshakeTimer.setSingleShot(true);
        QObject::connect(&m_handshakeTimer, &QTimer::timeout, &m_context, [this] {
            handshakeTimedOut = true;
            failed = true;
            m_wake.notify();
        });
        QObject::connect(&m_pingTimer, &QTimer::timeout, &m_context, [this] {
            if (m_unanswered >= m_settings.missedPongs) {
                dead = true;
                m_pingTimer.stop();
                m_wake.notify();
                return;
            }
            ++m_unanswered;
            m_socket->ping();
        });
    }

    QWebSocket *socket() const
    {
        return m_socket.get();
    }

    void open(QNetworkRequest request, const QStringList &protocols)
    {
        QWebSocketHandshakeOptions options;
        options.setSubprotocols(protocols);
        m_socket->setSslConfiguration(request.sslConfiguration());
        m_handshakeTimer.start(m_settings.handshakeTimeout);
        m_socket->open(request, options);
    }

    void startPings()
    {
        if (m_settings.pingInterval.count() > 0 && m_settings.missedPongs > 0)
            m_pingTimer.start(m_settings.pingInterval);
    }

    // Closes with 1000 (the server ends the command's stream); nothing is read after it.
    void close()
    {
        m_pingTimer.stop();
        m_handshakeTimer.stop();
        m_weClosed = true;
        if (m_socket->state() == QAbstractSocket::ConnectedState)
            m_socket->close(QWebSocketProtocol::CloseCodeNormal);
        else if (m_socket->state() != QAbstractSocket::UnconnectedState)
            m_socket->abort();
    }

    bool connected = false;
    bool failed = false; // before the handshake completed
    bool handshakeTimedOut = false;
    bool wrote = false; // the handshake (at least) went out
    QAbstractSocket::SocketError error = QAbstractSocket::UnknownSocketError;
    QString errorString;
    bool disconnected = false;
    bool peerClosed = false;
    bool dead = false;
    int textMessages = 0;
    QList<QByteArray> messages;

private:
    void onError(QAbstractSocket::SocketError socketError)
    {
        if (connected || failed)
            return; // after the handshake, the end is read from disconnected()
        noteFailure(socketError);
        m_wake.notify();
    }

    void noteFailure(QAbstractSocket::SocketError socketError)
    {
        failed = true;
        error = socketError;
        errorString = m_socket->errorString();
        m_handshakeTimer.stop();
    }

    // Declared before the context: the connections go before the socket does.
    std::unique_ptr<QWebSocket, SocketDeleter> m_socket;
    Wakeup &m_wake;
    const PodExecSettings &m_settings;
    QTimer m_handshakeTimer;
    QTimer m_pingTimer;
    int m_unanswered = 0;
    bool m_weClosed = false;
    QObject m_context;
};

QString closeDescription(const QWebSocket *socket)
{
    const QString reason = socket->closeReason();
    return reason.isEmpty() ? Tr::tr("closed with code %1").arg(int(socket->closeCode()))
                            : Tr::tr("closed with code %1 (%2)").arg(int(socket->closeCode())).arg(reason);
}

} // namespace

QStringList cwdCommand(const QStringList &argv, const QString &cwd)
{
    const QString dir = cwd.isEmpty() ? QString(PodWorkdir) : cwd;
    QStringList wrapped{QStringLiteral("sh"), QStringLiteral("-c"),
                        QStringLiteral("cd ") + shellQuote(dir) + QStringLiteral(" && exec \"$@\""),
                        QStringLiteral("--")};
    wrapped += argv;
    return wrapped;
}

PodExecCommand podExecCommand(const ExecRequest &request, const QString &container)
{
    PodExecCommand command;
    command.argv = cwdCommand(request.argv, request.cwd);
    command.container = container;
    command.timeout = request.timeout;
    command.onLine = request.onLine;
    return command;
}

struct PodExecClient::Shared
{
    explicit Shared(PodExecSettings s)
        : settings(s)
    {
    }
    const PodExecSettings settings;
    WaitSet waits; // every suspended run waits here
    bool closing = false;
    int running = 0;
};

PodExecClient::PodExecClient(PodExecSettings settings)
    : m_shared(std::make_shared<Shared>(settings))
{
}

PodExecClient::~PodExecClient()
{
    abortAll();
}

void PodExecClient::abortAll()
{
    m_shared->closing = true;
    m_shared->waits.close(); // each suspended run resumes, closes its connection and ends
}

bool PodExecClient::isClosing() const
{
    return m_shared->closing;
}

int PodExecClient::running() const
{
    return m_shared->running;
}

Error PodExecClient::closedError()
{
    return Error{Error::Kind::Cancelled, Tr::tr("cancelled: the command's connection to the pod was closed")};
}

QCoro::Task<Result<PodExecResult>> PodExecClient::run(QNetworkRequest request, PodExecCommand command)
{
    // Not a coroutine itself: the run's frame holds the shared state, never `this`.
    return execute(m_shared, std::move(request), std::move(command));
}

QCoro::Task<Result<PodExecResult>> PodExecClient::execute(std::shared_ptr<Shared> shared, QNetworkRequest request,
                                                          PodExecCommand command)
{
    if (shared->closing)
        co_return fail(closedError());
    ++shared->running;
    const auto leave = qScopeGuard([&shared] { --shared->running; });
    const PodExecSettings &settings = shared->settings;

    QUrl url = request.url();
    const QString pod = podName(url);
    const QString host = hostOf(url); // as the caller wrote it, for messages
    const QString scheme = url.scheme();
    if (scheme == QLatin1String("https"))
        url.setScheme(QStringLiteral("wss"));
    else if (scheme == QLatin1String("http"))
        url.setScheme(QStringLiteral("ws"));
    else if (scheme != QLatin1String("wss") && scheme != QLatin1String("ws"))
        co_return fail(Error::invalidArgument(Tr::tr("cannot exec at %1: the URL must be http, https, ws or wss")
                                                  .arg(url.toString(QUrl::RemoveUserInfo))));
    url.setQuery(QString::fromLatin1(execQuery(command)), QUrl::StrictMode);
    request.setUrl(url);
    request.setRawHeader(QByteArrayLiteral("Sec-WebSocket-Protocol"), QByteArray()); // the offer is ours alone

    PodExecResult out;
    ExecResult &result = out.exec;
    // No line after abortAll(), even from a message being cut into lines when it came.
    std::function<void(OutputChannel, const QByteArray &)> onLine;
    if (command.onLine) {
        onLine = [&shared, &command](OutputChannel channel, const QByteArray &line) {
            if (!shared->closing)
                command.onLine(channel, line);
        };
    }
    LineSplitter stdoutLines(OutputChannel::Stdout, onLine, result.stdOut);
    LineSplitter stderrLines(OutputChannel::Stderr, onLine, result.stdErr);

    Wakeup wake;
    bool timedOut = false;
    QTimer deadline;
    deadline.setSingleShot(true);
    QObject::connect(&deadline, &QTimer::timeout, &deadline, [&timedOut, &wake] {
        timedOut = true;
        wake.notify();
    });
    if (command.timeout.count() > 0)
        deadline.start(command.timeout);

    bool cancelled = false;
    int cancelId = 0;
    if (command.cancel) {
        if (command.cancel->isCancelled())
            co_return fail(Error{Error::Kind::Cancelled, Tr::tr("cancelled: the command was not started")});
        cancelId = command.cancel->onCancel([&cancelled, &wake] {
            cancelled = true;
            wake.notify();
        });
    }
    const auto forgetCancel = qScopeGuard([&command, cancelId] {
        if (command.cancel && cancelId != 0)
            command.cancel->remove(cancelId);
    });
    const auto stopped = [&]() -> Result<PodExecResult> {
        stdoutLines.finish();
        stderrLines.finish();
        qCInfo(lcKubeExec).noquote() << "exec in pod" << pod << "cancelled";
        return fail(Error{Error::Kind::Cancelled, Tr::tr("cancelled: the connection to the command was closed")});
    };

    const auto timeUp = [&]() -> Result<PodExecResult> {
        stdoutLines.finish();
        stderrLines.finish();
        result.exitCode = -1;
        result.timedOut = true;
        qCInfo(lcKubeExec).noquote() << "exec in pod" << pod << "timed out after" << command.timeout.count() << "ms";
        return out;
    };

    // The handshake: v5 and v4 offered; refused with 400, once more with v4 alone. Refused on the
    // way (429, 500, 502, 503, 504) or cut before the upgrade, the command has not started: the
    // handshake is tried again after a backoff (0.25 s, twice as long each time), six times in all,
    // as the HTTP layer tries requests that are safe to repeat. Cut means the request had left, or
    // the connection closed before it could (an API server killed during the TLS handshake closes
    // without a word). Refused (nothing listening, as while an API server restarts) is tried four
    // times in all, 1.75 s, as the HTTP layer tries it; the error then says it did not connect.
    QStringList offered{ExecProtocolV5, ExecProtocolV4};
    std::unique_ptr<Link> link;
    int handshakes = 0;
    std::chrono::milliseconds backoff(250);
    QTimer retryTimer;
    retryTimer.setSingleShot(true);
    bool retryDue = false;
    QObject::connect(&retryTimer, &QTimer::timeout, &retryTimer, [&retryDue, &wake] {
        retryDue = true;
        wake.notify();
    });
    for (;;) {
        ++handshakes;
        link = std::make_unique<Link>(wake, settings);
        qCDebug(lcKubeExec).noquote() << "exec in pod" << pod << "at" << host << "offering" << offered;
        link->open(request, offered);
        while (!link->connected && !link->failed && !link->disconnected && !timedOut && !cancelled && !shared->closing)
            co_await pause(shared->waits, wake);
        if (shared->closing) {
            link->close();
            co_return fail(closedError());
        }
        if (cancelled) {
            link->close();
            co_return stopped();
        }
        if (timedOut) {
            link->close();
            co_return timeUp();
        }
        if (link->connected)
            break;
        link->close();
        if (link->handshakeTimedOut) {
            co_return fail(Error::unreachable(Tr::tr("the API server at %1 did not open the exec connection to pod %2 "
                                                     "within %3 s")
                                                  .arg(host, pod)
                                                  .arg(double(settings.handshakeTimeout.count()) / 1000.0)));
        }
        const Refusal refusal = classify(link->errorString);
        if (refusal.status == 400 && offered.size() > 1) {
            qCInfo(lcKubeExec).noquote() << "exec in pod" << pod << "refused with HTTP 400 offering" << offered
                                         << "; trying" << ExecProtocolV4 << "alone";
            offered = QStringList{ExecProtocolV4};
            continue;
        }
        const bool refused = !link->wrote && link->failed && link->error == QAbstractSocket::ConnectionRefusedError;
        const bool cut = refusal.status == 0 && refusal.chosen.isEmpty()
            && (link->wrote || !link->failed || link->error == QAbstractSocket::RemoteHostClosedError);
        const bool transient = refusal.status == 429 || refusal.status == 500 || refusal.status == 502
            || refusal.status == 503 || refusal.status == 504 || (refused && handshakes < NotConnectedHandshakes)
            || (!refused && cut);
        if (transient && handshakes < MaxHandshakes) {
            qCInfo(lcKubeExec).noquote() << "exec in pod" << pod << "handshake" << handshakes << "failed ("
                                         << (refusal.status > 0 ? QString::number(refusal.status) : link->errorString)
                                         << "); trying again in" << backoff.count() << "ms";
            retryDue = false;
            retryTimer.start(backoff);
            backoff *= 2;
            while (!retryDue && !timedOut && !cancelled && !shared->closing)
                co_await pause(shared->waits, wake);
            retryTimer.stop();
            if (shared->closing)
                co_return fail(closedError());
            if (cancelled)
                co_return stopped();
            if (timedOut)
                co_return timeUp();
            continue;
        }
        if (refusal.status > 0)
            co_return fail(refusedError(pod, refusal, offered.size() == 1));
        if (!refusal.chosen.isEmpty())
            co_return fail(notOfferedError(pod, refusal.chosen, offered));
        const QString reason = link->failed ? link->errorString : Tr::tr("the server closed the connection");
        Error error =
            Error::unreachable(Tr::tr("cannot open the exec connection to pod %1 at %2: %3").arg(pod, host, reason));
        // No byte of the handshake left: the command did not run, and may be sent elsewhere.
        error.notConnected = !link->wrote
            && (link->error == QAbstractSocket::ConnectionRefusedError
                || link->error == QAbstractSocket::HostNotFoundError);
        co_return fail(std::move(error));
    }

    out.subprotocol = link->socket()->subprotocol();
    if (out.subprotocol.isEmpty()) {
        // Qt lets that through; the server would speak the old channel.k8s.io, without exit codes.
        link->close();
        co_return fail(Error::backend(Tr::tr("the API server opened the exec connection to pod %1 without choosing "
                                             "a protocol; Paddock needs %2")
                                          .arg(pod, offered.join(QLatin1String(" or ")))));
    }
    if (!offered.contains(out.subprotocol)) {
        link->close();
        co_return fail(notOfferedError(pod, out.subprotocol, offered));
    }
    const bool v5 = out.subprotocol == ExecProtocolV5;
    qCDebug(lcKubeExec).noquote() << "exec in pod" << pod << "speaks" << out.subprotocol;
    link->startPings();

    // Stdin: the bytes, then the source, in messages of at most stdinChunk bytes, no more than
    // a few messages ahead of the socket; then the close on v5.
    bool stdinPending = command.withStdin;
    qsizetype stdinOffset = 0;
    QByteArray sourced;
    bool sourceEnded = !command.stdinSource;
    const qsizetype chunk = std::max<qsizetype>(settings.stdinChunk, 1);
    const qint64 highWater = 4 * qint64(chunk);
    const auto pumpStdin = [&]() -> Result<> {
        while (stdinPending && link->socket()->bytesToWrite() < highWater) {
            QByteArray piece;
            if (stdinOffset < command.stdinData.size()) {
                piece = command.stdinData.mid(stdinOffset, chunk);
                stdinOffset += piece.size();
            } else {
                if (sourced.isEmpty() && !sourceEnded) {
                    auto next = command.stdinSource();
                    if (shared->closing)
                        return {};
                    if (!next)
                        return fail(next.error());
                    sourceEnded = next->isEmpty();
                    sourced = std::move(*next);
                }
                piece = sourced.left(chunk);
                sourced.remove(0, piece.size());
            }
            if (!piece.isEmpty()) {
                link->socket()->sendBinaryMessage(QByteArray(1, StdinChannel) + piece);
                continue;
            }
            if (sourceEnded) {
                stdinPending = false;
                if (v5)
                    link->socket()->sendBinaryMessage(QByteArray("\xff\x00", 2));
            }
        }
        return {};
    };

    const auto emitChunk = [&](OutputChannel channel, const QByteArray &data) {
        if (command.onChunk)
            command.onChunk(channel, data);
    };

    ExecStatusReader statusReader;
    std::optional<Result<int>> status;
    for (;;) {
        if (shared->closing) {
            link->close();
            co_return fail(closedError());
        }
        while (!link->messages.isEmpty() && !status && !shared->closing) {
            const QByteArray message = link->messages.takeFirst();
            if (message.size() < 2)
                continue; // no data: the server's "ready" ([0x01]), or nothing at all
            const QByteArray data = message.mid(1);
            switch (message.at(0)) {
            case StdoutChannel:
                emitChunk(OutputChannel::Stdout, data);
                if (!shared->closing)
                    stdoutLines.feed(data);
                break;
            case StderrChannel:
                emitChunk(OutputChannel::Stderr, data);
                if (!shared->closing)
                    stderrLines.feed(data);
                break;
            case StatusChannel:
                status = statusReader.add(data);
                break;
            default:
                qCDebug(lcKubeExec) << "exec in pod" << pod << "ignores a message on channel"
                                    << int(uchar(message.at(0)));
                break;
            }
        }
        if (shared->closing)
            continue;
        if (status) {
            link->close(); // as client-node does: the status is the last message
            stdoutLines.finish();
            stderrLines.finish();
            if (!*status)
                co_return fail(status->error());
            result.exitCode = **status;
            co_return out;
        }
        if (link->textMessages > 0) {
            link->close();
            co_return fail(Error::backend(Tr::tr("the API server sent a text message on the exec connection to pod "
                                                 "%1, where %2 has binary messages only")
                                              .arg(pod, out.subprotocol)));
        }
        if (timedOut) {
            link->close();
            co_return timeUp();
        }
        if (cancelled) {
            link->close();
            co_return stopped();
        }
        if (link->dead) {
            link->close();
            co_return fail(Error::unreachable(Tr::tr("the exec connection to pod %1 went silent (%2 pings in a row "
                                                     "unanswered); the command's outcome is unknown")
                                                  .arg(pod)
                                                  .arg(settings.missedPongs)));
        }
        if (link->disconnected) {
            stdoutLines.finish();
            stderrLines.finish();
            if (!statusReader.isEmpty()) {
                const Result<int> last = statusReader.decode();
                if (!last)
                    co_return fail(last.error());
                result.exitCode = *last;
                co_return out;
            }
            // No status and a normal close is success (client-go and AgentScope read it so).
            if (link->peerClosed && link->socket()->closeCode() == QWebSocketProtocol::CloseCodeNormal) {
                result.exitCode = 0;
                co_return out;
            }
            const QString how = link->peerClosed ? closeDescription(link->socket()) : link->socket()->errorString();
            co_return fail(Error::unreachable(
                Tr::tr("the exec connection to pod %1 ended before the command's exit status: %2").arg(pod, how)));
        }
        if (stdinPending) {
            if (const Result<> pumped = pumpStdin(); !pumped) {
                link->close();
                co_return fail(pumped.error());
            }
            if (shared->closing)
                continue;
        }
        co_await pause(shared->waits, wake);
    }
}

} // namespace Paddock::Kubernetes
