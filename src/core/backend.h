#pragma once

#include "result.h"
#include "sandbox.h"

#include <QCoroFwd>

#include <QList>
#include <QObject>

namespace Paddock {

// One interface for every place a workspace can live: a local folder, an OpenSandbox
// sandbox, a Docker container. Every call is asynchronous and returns errors as values.
// A backend is used from the thread that owns it.
class Backend : public QObject
{
    Q_OBJECT

public:
    using QObject::QObject;
    ~Backend() override = default;

    // Short name shown to users and written to `paddockctl list --json`: "local", ...
    virtual QString name() const = 0;
    // A stable key that tells this backend instance apart from others of its kind (a basedir,
    // a server); bootstrap logs are kept under it.
    virtual QString instanceKey() const = 0;

    virtual WorkspaceLayout layout(const SandboxInfo &sandbox) const = 0;

    virtual QCoro::Task<Result<QList<SandboxInfo>>> list(ListFilter filter) = 0;
    virtual QCoro::Task<Result<SandboxInfo>> get(QString sandboxId) = 0;
    virtual QCoro::Task<Result<SandboxInfo>> create(CreateSpec spec) = 0;
    // Attach to a running sandbox.
    virtual QCoro::Task<Result<SandboxInfo>> connect(QString sandboxId) = 0;
    virtual QCoro::Task<Result<SandboxInfo>> resume(QString sandboxId) = 0;
    virtual QCoro::Task<Result<>> pause(QString sandboxId) = 0;
    // Removes the sandbox. What happens to its files is the backend's documented choice.
    virtual QCoro::Task<Result<>> kill(QString sandboxId) = 0;
    virtual QCoro::Task<Result<SandboxInfo>> renew(QString sandboxId, std::chrono::seconds duration) = 0;
    virtual QCoro::Task<Result<bool>> isReady(QString sandboxId) = 0;
    // A non-zero exit is a normal result; only a transport failure is an error.
    virtual QCoro::Task<Result<ExecResult>> exec(QString sandboxId, ExecRequest request) = 0;
    // When the workspace's sessions/ folder last changed (the folder and what is in it, two
    // levels deep): the agents' own activity, which the sandbox's metadata does not show. nullopt
    // when the backend cannot tell (the default), or the folder does not exist. Reading it may
    // cost a round trip; callers cache it.
    virtual QCoro::Task<Result<std::optional<QDateTime>>> sessionsActivity(QString sandboxId);
    // The last `tail` lines of the sandbox's container log as the server keeps it (docker logs
    // with timestamps: each line starts with an RFC 3339 time and a space), raw bytes; the last
    // line may still be incomplete. There is no streaming: callers poll (ContainerLogTail). The
    // default: an Error::Kind::Unsupported error, for backends that keep no container log.
    virtual QCoro::Task<Result<QByteArray>> containerLogs(QString sandboxId, int tail);

Q_SIGNALS:
    // The backend found that a sandbox it was holding for a workspace is gone (deleted behind
    // our back, or expired). Whoever caches that workspace must drop it: the manager does.
    void sandboxLost(const QString &sandboxId, const QString &workspaceId);
};

// The newest change in a sessions/ folder on this machine (the folder and what is in it, two
// levels deep, at most 10,000 entries); nullopt when there is no such folder. Reads the disk:
// call it on a worker thread.
std::optional<QDateTime> newestSessionsChange(const QString &sessionsFolder);

} // namespace Paddock
