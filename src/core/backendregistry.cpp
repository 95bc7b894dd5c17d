#include "backendregistry.h"

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
                  kubernetesBackendFactory()}
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

} // namespace Paddock
