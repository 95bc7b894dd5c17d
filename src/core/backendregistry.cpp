#include "backendregistry.h"

#include "tr.h"

#include <algorithm>

namespace Paddock {

bool BackendFactory::takesOption(const QString &option) const
{
    return std::any_of(commandLineOptions.cbegin(), commandLineOptions.cend(),
                       [&option](const CommandLineOption &candidate) { return candidate.name == option; });
}

BackendRegistry::BackendRegistry()
    // A new backend is its folder plus one line here.
    : m_factories{localBackendFactory(), openSandboxBackendFactory(), dockerBackendFactory(),
                  kubernetesBackendFactory(), e2bBackendFactory()}
{
}

const BackendRegistry &BackendRegistry::instance()
{
    static const BackendRegistry registry;
    return registry;
}

const BackendFactory *BackendRegistry::find(Profile::Kind kind) const
{
    const auto it = std::find_if(m_factories.cbegin(), m_factories.cend(),
                                 [kind](const BackendFactory &factory) { return factory.kind == kind; });
    return it == m_factories.cend() ? nullptr : &*it;
}

const BackendFactory *BackendRegistry::find(const QString &id) const
{
    const auto it = std::find_if(m_factories.cbegin(), m_factories.cend(),
                                 [&id](const BackendFactory &factory) { return factory.id == id; });
    return it == m_factories.cend() ? nullptr : &*it;
}

QStringList BackendRegistry::ids() const
{
    QStringList ids;
    for (const BackendFactory &factory : m_factories)
        ids.append(factory.id);
    return ids;
}

QList<FieldError> validateLayout(const Profile &profile)
{
    if (profile.layout != Profile::Layout::AgentScope || profile.isolation == IsolationPolicy::PerAgent)
        return {};
    return {{QStringLiteral("layout"),
             Tr::tr("The AgentScope layout works with the per-agent isolation only: AgentScope keeps one folder per "
                    "agent, and only that isolation gives each folder one workspace id.")}};
}

Result<> layoutFromCommandLine(Profile &profile, const std::function<std::optional<QString>(const QString &)> &value)
{
    if (const auto given = value(QStringLiteral("layout"))) {
        const auto layout = Profile::parseLayout(*given);
        if (!layout) {
            return fail(Error::invalidArgument(
                Tr::tr("unknown layout \"%1\"; valid choices: paddock, agentscope").arg(*given)));
        }
        profile.layout = *layout;
    }
    if (profile.layout == Profile::Layout::AgentScope && profile.isolation != IsolationPolicy::PerAgent) {
        return fail(
            Error::invalidArgument(Tr::tr("--layout agentscope works with --isolation per_agent only: AgentScope "
                                          "keeps one folder per agent, and only per_agent gives each folder "
                                          "one workspace id")));
    }
    return {};
}

} // namespace Paddock
