#pragma once

#include "result.h"

#include <QByteArray>
#include <QDateTime>
#include <QMap>
#include <QMetaType>
#include <QString>
#include <QStringList>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

namespace Paddock {

class CancelToken;

// Metadata keys shared with AgentScope's managers.
inline constexpr QLatin1String WorkspaceIdKey{"agentscope.workspace.id"};
inline constexpr QLatin1String UserIdKey{"agentscope.user.id"};
inline constexpr QLatin1String AgentIdKey{"agentscope.agent.id"};

enum class SandboxState {
    Pending,
    Running,
    Pausing,
    Paused,
    Resuming,
    Stopping,
    Terminated,
    Failed,
    Unknown, // a state this build does not know; rawState keeps the server's word
};

QString sandboxStateName(SandboxState state);
SandboxState parseSandboxState(const QString &name);

// One sandbox (or local folder) as a backend reports it.
struct SandboxInfo
{
    QString sandboxId;
    QString workspaceId;
    QString userId;
    QString agentId;
    SandboxState state = SandboxState::Unknown;
    QString rawState;
    QString backend;
    QString image;
    QDateTime createdAt;
    // When the sandbox ends unless renewed; nullopt: it does not count down (it never expires,
    // or its timer is stopped while it is paused: then pausedAt says since when).
    std::optional<QDateTime> expiresAt;
    // A paused sandbox whose timer is stopped while it is paused (E2B: a paused sandbox has no
    // deadline until it is resumed, which starts a new timeout): when it was paused. Invalid
    // where the backend does not say, or the sandbox is not paused. Consoles show "timer stopped"
    // (paused since then) instead of a countdown.
    QDateTime pausedAt;
    QDateTime lastActivityAt;
    QMap<QString, QString> metadata;
    // A hash of everything above but lastActivityAt (which consoles merge with what they know),
    // made where the record is parsed (on a worker thread for a listing): two records with the
    // same non-zero fingerprint hold the same data, and comparing 10,000 of them costs no string
    // reads. A backend may hash what the server wrote instead (E2B: the sandbox's JSON text), as
    // long as equal fingerprints mean equal records. 0: not computed.
    quint64 fingerprint = 0;
};

// The fingerprint of a record's fields (never 0).
quint64 fingerprintOf(const SandboxInfo &info);

// The most recently created of `sandboxes` (not empty): the one AgentScope attaches to when several
// match a workspace; the first of them when times are equal.
SandboxInfo newestOf(const QList<SandboxInfo> &sandboxes);

// Where a workspace lives inside its sandbox, and how a complete bootstrap is recognised.
struct WorkspaceLayout
{
    QString workdir;
    QString gatewayHome;
    // Paddock's own marker, `<gateway home>/.bootstrap-complete` on every backend: written last
    // by a complete bootstrap that is not AgentScope's. AgentScope never reads it.
    QString markerFile;
    // AgentScope's marker where AgentScope keeps workspaces on this backend in the same place
    // (OpenSandbox: its MCP gateway script, `<gateway home>/_mcp_gateway_app.py`); empty: none.
    // Only AgentScope's own bootstrap may leave it, and it must be the package's script: when
    // AgentScope finds it, it skips its bootstrap and starts it as the gateway.
    QString agentscopeMarker;

    QStringList directories() const; // workdir, data/, skills/, sessions/, gateway home
};

enum class OutputChannel {
    Stdout,
    Stderr,
};

struct ExecRequest
{
    QStringList argv;
    QString cwd; // empty: the workspace folder
    std::chrono::milliseconds timeout{0}; // 0: none
    // Called once for every complete line, in arrival order, without the newline.
    std::function<void(OutputChannel, const QByteArray &)> onLine;
    // Called with every piece of output as it arrives, the bytes as the command wrote them (not
    // cut into lines, nothing dropped, none kept back), before onLine gets the lines it ends:
    // for a caller that passes the output on byte for byte (paddockctl exec).
    std::function<void(OutputChannel, const QByteArray &)> onData;
    // Cancelled while the command runs: the backend stops it (its whole process group where it
    // can) and exec() returns a Cancelled error. Null: it runs to its end or its timeout.
    std::shared_ptr<CancelToken> cancel;
};

// Stdin read piece by piece (a large upload, a tar stream): each call returns the next bytes, an
// empty array at the end, or an Error that ends the command (its connection closed) with it.
using StdinSource = std::function<Result<QByteArray>()>;

struct ExecResult
{
    int exitCode = -1;
    bool timedOut = false;
    QByteArray stdOut;
    QByteArray stdErr;
};

// What the inspector's overview shows of one sandbox beyond its SandboxInfo, as the server tells
// it now (Backend::details). Every list is (label, value) in the order to show; labels are
// translated where Paddock names them and left as the server's words (a resource name) where the
// server names them.
struct SandboxDetails
{
    SandboxInfo sandbox; // as get() reads it now
    QString stateReason; // the server's reason for the state (OpenSandbox's status.reason, a Pod's waiting reason)
    QString stateMessage; // and its message
    QList<std::pair<QString, QString>> resources; // "cpu" -> "1", "memory" -> "2Gi"
    QList<std::pair<QString, QString>> endpoints; // what reaches the sandbox ("execd" -> "http://...")
    QList<std::pair<QString, QString>> facts; // anything else worth showing (the Pod's node, the container's id)
};

// What a new sandbox gets.
struct CreateSpec
{
    QString workspaceId;
    QString userId;
    QString agentId;
    QMap<QString, QString> metadata; // extra profile metadata; the id keys are set by the backend
};

struct ListFilter
{
    std::optional<QString> workspaceId;
    QList<SandboxState> states; // empty: all
};

} // namespace Paddock

Q_DECLARE_METATYPE(Paddock::SandboxInfo)
