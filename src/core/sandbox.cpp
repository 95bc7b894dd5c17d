#include "sandbox.h"

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

QStringList WorkspaceLayout::directories() const
{
    const auto sub = [this](const char *name) -> QString { return workdir + u'/' + QLatin1String(name); };
    return {workdir, sub("data"), sub("skills"), sub("sessions"), gatewayHome};
}

} // namespace Paddock
