#include "sandbox.h"

#include <QHash>

#include <algorithm>
#include <array>

namespace Paddock {

namespace {

struct StateName
{
    SandboxState state;
    const char *name;
};

constexpr std::array<StateName, 8> StateNames{{
    {SandboxState::Pending, "Pending"},
    {SandboxState::Running, "Running"},
    {SandboxState::Pausing, "Pausing"},
    {SandboxState::Paused, "Paused"},
    {SandboxState::Resuming, "Resuming"},
    {SandboxState::Stopping, "Stopping"},
    {SandboxState::Terminated, "Terminated"},
    {SandboxState::Failed, "Failed"},
}};

} // namespace

QString sandboxStateName(SandboxState state)
{
    for (const auto &entry : StateNames) {
        if (entry.state == state)
            return QString::fromLatin1(entry.name);
    }
    return QStringLiteral("Unknown");
}

SandboxState parseSandboxState(const QString &name)
{
    for (const auto &entry : StateNames) {
        if (name.compare(QLatin1String(entry.name), Qt::CaseInsensitive) == 0)
            return entry.state;
    }
    return SandboxState::Unknown;
}

SandboxInfo newestOf(const QList<SandboxInfo> &sandboxes)
{
    return *std::max_element(sandboxes.cbegin(), sandboxes.cend(),
                             [](const SandboxInfo &a, const SandboxInfo &b) { return a.createdAt < b.createdAt; });
}

quint64 fingerprintOf(const SandboxInfo &info)
{
    size_t seed = qHashMulti(0x9e3779b9u, info.sandboxId, info.workspaceId, info.userId, info.agentId, int(info.state),
                             info.rawState, info.backend, info.image);
    // An invalid time is 0, never asked for its milliseconds: an invalid QDateTime is local time,
    // and asking it goes through the C library's time zone code (tzset, a stat of /etc/localtime)
    // for every sandbox of a listing.
    const auto msecs = [](const QDateTime &time) { return time.isValid() ? time.toMSecsSinceEpoch() : 0; };
    seed = qHashMulti(seed, msecs(info.createdAt), info.createdAt.isValid(), info.expiresAt.has_value(),
                      info.expiresAt ? msecs(*info.expiresAt) : 0, msecs(info.pausedAt), info.pausedAt.isValid());
    for (auto it = info.metadata.cbegin(); it != info.metadata.cend(); ++it)
        seed = qHashMulti(seed, it.key(), it.value());
    return seed == 0 ? 1 : quint64(seed);
}

QStringList WorkspaceLayout::directories() const
{
    const auto sub = [this](const char *name) -> QString { return workdir + u'/' + QLatin1String(name); };
    return {workdir, sub("data"), sub("skills"), sub("sessions"), gatewayHome};
}

} // namespace Paddock
