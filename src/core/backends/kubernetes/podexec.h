#pragma once

#include "../../result.h"
#include "../../sandbox.h"

#include <QCoroFwd>

#include <QByteArray>
#include <QLatin1String>
#include <QNetworkRequest>
#include <QString>
#include <QStringList>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

namespace Paddock::Kubernetes {

// The websocket subprotocols of pod exec (kubernetes-protocol.md §4.2), offered in this order.
inline constexpr QLatin1String ExecProtocolV5{"v5.channel.k8s.io"};
inline constexpr QLatin1String ExecProtocolV4{"v4.channel.k8s.io"};
// The workspace Pod's working directory, where commands run when no cwd is asked for.
inline constexpr QLatin1String PodWorkdir{"/workspace"};

// AgentScope's working-directory wrapper (§1.5): `sh -c 'cd <cwd> && exec "$@"' -- argv…`, with
// <cwd> quoted like shlex.quote (so /workspace stays bare). An empty cwd is PodWorkdir.
QStringList cwdCommand(const QStringList &argv, const QString &cwd);

// The exit code of a command from the Status message the server sends on channel 3 (§4.4, as
// client-go's errorDecoderV4): Success is 0; Failure with reason NonZeroExitCode is the cause
// whose reason is ExitCode (wherever it is among the causes: AgentScope reads causes[0]),
// parsed as an integer 0-255; any other Failure (InternalError, …) is an Error carrying the
// server's message and its `code` as httpStatus; anything else, or no JSON, is an Error.
Result<int> decodeExecStatus(const QByteArray &status);

// The bytes of channel 3 as its messages come (execstatus.cpp): add() gives the status once
// what came so far is a JSON object (nullopt until then); decode() gives it from whatever came,
// when the connection ended before that.
class ExecStatusReader
{
public:
    std::optional<Result<int>> add(QByteArrayView piece);
    bool isEmpty() const { return m_bytes.isEmpty(); }
    Result<int> decode() const;

private:
    QByteArray m_bytes;
};

// One command run through pods/{name}/exec.
struct PodExecCommand
{
    QStringList argv; // one `command` parameter each, as given (wrap with cwdCommand() first)
    QString container; // empty: not sent (the Pod's only container)
    // stdin=true is asked only with this. The bytes go first, then what stdinSource gives;
    // then stdin is closed ([0xFF, 0x00]) on v5. v4 cannot close stdin alone: there the
    // command must end on its own (tar ends at its end-of-archive blocks, which AgentScope
    // relies on too), or the timeout ends it.
    bool withStdin = false;
    QByteArray stdinData;
    StdinSource stdinSource;
    std::chrono::milliseconds timeout{0}; // the whole exec, handshake included; 0: none
    // Cancelled while the exec runs: the connection is closed at once and the run ends with a
    // Cancelled error. That alone does not end the command in a real Pod (the container runtime
    // lets it run on): KubernetesBackend kills it by a second exec.
    std::shared_ptr<CancelToken> cancel;
    // Called for every complete line of each stream, as it arrives, without the newline (as
    // ExecRequest::onLine), and for every piece of output as received, in arrival order.
    std::function<void(OutputChannel, const QByteArray &)> onLine;
    std::function<void(OutputChannel, const QByteArray &)> onChunk;
};

// argv wrapped for request.cwd, with its timeout and line callback, in `container`.
PodExecCommand podExecCommand(const ExecRequest &request, const QString &container);

struct PodExecResult
{
    // exitCode from the status (0 also when the server closed normally without one); on
    // timeout exitCode -1 and timedOut, with the output received until then.
    ExecResult exec;
    QString subprotocol; // the one the server chose: ExecProtocolV5 or ExecProtocolV4
};

struct PodExecSettings
{
    // A ping every interval; after `missedPongs` in a row unanswered (and nothing else heard)
    // the connection counts as dead. 0: no pings.
    std::chrono::milliseconds pingInterval{5'000};
    int missedPongs = 3;
    // From open() until the server switches protocols (or refuses).
    std::chrono::milliseconds handshakeTimeout{30'000};
    qsizetype stdinChunk = 64 * 1024; // bytes of stdin per message
};

// Runs commands in Pods over the exec websocket (kubernetes-protocol.md §4), byte for byte as
// kubectl 1.32 speaks it: `GET …/pods/{name}/exec?command=…&container=…&stdout=true&stderr=true
// [&stdin=true]` offering v5.channel.k8s.io then v4.channel.k8s.io; binary messages, one channel
// byte first: 1 stdout and 2 stderr streamed to the callbacks, 3 the exit status, after which
// the client closes; an empty message (the server's "ready") is ignored; stdin as channel 0.
// When the server refuses that handshake with HTTP 400 (some clusters refuse one of the
// protocols; kubernetes-client/python #2355) it is tried once more offering v4 alone.
//
// Qt 6.4's QWebSocket does not give the HTTP answer of a refused handshake, only an error text
// that holds the status (for 400 it holds none, and is recognised by its wording, translated or
// not), so a refusal names its status but not the server's Status message. The request's
// peerVerifyName (kubeconfig's tls-server-name) is not applied: QWebSocket has no such setting.
//
// Lifetime: abortAll() (the destructor calls it) ends every run at once with Error::Kind::
// Cancelled and closes its connection; a run suspended here completes before abortAll()
// returns, and a run inside one of its callbacks ends as soon as the callback returns, touching
// only its own frame, even when the callback destroyed the client. Owner's thread only.
class PodExecClient final
{
    Q_DISABLE_COPY_MOVE(PodExecClient)

public:
    explicit PodExecClient(PodExecSettings settings = {});
    ~PodExecClient();

    // `request` is the Pod's exec URL (http(s) or ws(s), its query replaced) with the headers
    // (Authorization) and the QSslConfiguration the connection needs.
    QCoro::Task<Result<PodExecResult>> run(QNetworkRequest request, PodExecCommand command);

    void abortAll();
    bool isClosing() const;
    int running() const; // runs under way
    // What a run ended by abortAll() returns.
    static Error closedError();

private:
    struct Shared;
    static QCoro::Task<Result<PodExecResult>> execute(std::shared_ptr<Shared> shared, QNetworkRequest request,
                                                      PodExecCommand command);

    std::shared_ptr<Shared> m_shared;
};

} // namespace Paddock::Kubernetes
