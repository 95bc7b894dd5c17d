#include "../../backendregistry.h"
#include "../../tr.h"
#include "e2bbackend.h"

namespace Paddock {

namespace {

// The profile's fields as a connection (the key apart), unresolved.
E2B::ConnectionConfig connectionOf(const Profile &profile)
{
    E2B::ConnectionConfig connection;
    connection.domain = profile.domain.trimmed();
    connection.apiUrl = profile.apiUrl.trimmed();
    connection.sandboxUrl = profile.sandboxUrl.trimmed();
    return connection;
}

} // namespace

BackendFactory e2bBackendFactory()
{
    using namespace E2B;
    BackendFactory factory;
    factory.kind = Profile::Kind::E2B;
    factory.id = QStringLiteral("e2b");
    factory.displayName = [] { return Tr::tr("E2B"); };
    factory.capabilities = {Capability::Renew, Capability::Files, Capability::Exec, Capability::Metrics};
    factory.profileFields = {QStringLiteral("domain"), QStringLiteral("apiUrl"), QStringLiteral("sandboxUrl"),
                             QStringLiteral("image"), QStringLiteral("sandboxTimeout")};
    factory.hint = [](const QString &field) -> FieldHint {
        if (field == QLatin1String("image"))
            return {DefaultTemplate, Tr::tr("The E2B template of new sandboxes (a name or an ID); empty for base"),
                    Tr::tr("Template")};
        if (field == QLatin1String("domain"))
            return {QString(DefaultDomain), Tr::tr("E2B's domain (E2B_DOMAIN): the API is https://api.<domain>")};
        if (field == QLatin1String("apiUrl"))
            return {Tr::tr("https://api.<domain>"),
                    Tr::tr("The control plane's URL when it is not https://api.<domain> (E2B_API_URL): a "
                           "self-hosted E2B")};
        if (field == QLatin1String("sandboxUrl"))
            return {Tr::tr("each sandbox's own"),
                    Tr::tr("One URL for every sandbox's envd (E2B_SANDBOX_URL), told apart by the E2b-Sandbox-Id "
                           "header")};
        if (field == QLatin1String("sandboxTimeout"))
            return {QString::number(DefaultTimeout.count()),
                    Tr::tr("Seconds a new or resumed sandbox runs before E2B ends it (AgentScope: 300)")};
        if (field == QLatin1String("bootstrapFile"))
            return {Tr::tr("AgentScope's bootstrap (installs AgentScope and its gateway)"), {}};
        if (field == QLatin1String("apiKey"))
            return {{}, Tr::tr("The E2B API key (e2b_…), kept in the keychain")};
        return {};
    };
    factory.usesKey = true;
    factory.keyEnvironmentVariable = "E2B_API_KEY";
    factory.bootstrapTimeout = BootstrapCommandTimeout;
    factory.commandLineOptions = {{QStringLiteral("domain"), QStringLiteral("host")},
                                  {QStringLiteral("api-url"), QStringLiteral("url")},
                                  {QStringLiteral("sandbox-url"), QStringLiteral("url")},
                                  {QStringLiteral("template"), QStringLiteral("name")},
                                  {QStringLiteral("sandbox-timeout"), QStringLiteral("seconds")}};
    factory.commandLineHelp = [] {
        return Tr::tr("E2B backend (API key from E2B_API_KEY):\n"
                      "  --domain HOST          E2B's domain (default: E2B_DOMAIN, else e2b.app)\n"
                      "  --api-url URL          the control plane (default: E2B_API_URL, else https://api.<domain>)\n"
                      "  --sandbox-url URL      envd of every sandbox (default: E2B_SANDBOX_URL, else each sandbox's)\n"
                      "  --template NAME        template of new sandboxes (default: base)\n"
                      "  --sandbox-timeout N    seconds a new or resumed sandbox runs (default: 300)\n");
    };
    factory.validate = [](const Profile &profile) {
        QList<FieldError> errors;
        if (!profile.domain.trimmed().isEmpty()) {
            if (auto valid = validateDomainName(profile.domain.trimmed()); !valid)
                errors.append({QStringLiteral("domain"), valid.error().message});
        }
        if (!profile.apiUrl.trimmed().isEmpty()) {
            if (auto valid = validateUrl(profile.apiUrl.trimmed(), Tr::tr("the API URL")); !valid)
                errors.append({QStringLiteral("apiUrl"), valid.error().message});
        }
        if (!profile.sandboxUrl.trimmed().isEmpty()) {
            if (auto valid = validateUrl(profile.sandboxUrl.trimmed(), Tr::tr("the sandbox URL")); !valid)
                errors.append({QStringLiteral("sandboxUrl"), valid.error().message});
        }
        if (profile.sandboxTimeout.count() < 1)
            errors.append({QStringLiteral("sandboxTimeout"),
                           Tr::tr("An E2B sandbox runs at least 1 second; E2B has no sandboxes that never expire.")});
        return errors;
    };
    factory.fromCommandLine = [](Profile &profile, const auto &value) -> Result<> {
        profile.domain = value(QStringLiteral("domain")).value_or(QString());
        profile.apiUrl = value(QStringLiteral("api-url")).value_or(QString());
        profile.sandboxUrl = value(QStringLiteral("sandbox-url")).value_or(QString());
        if (!profile.domain.isEmpty()) {
            if (auto valid = validateDomainName(profile.domain); !valid)
                return fail(valid.error());
        }
        // What the environment fills in is checked too: a typo there gets the same message.
        const ConnectionConfig resolved = connectionOf(profile).resolved();
        if (auto valid = validateUrl(resolved.apiUrl, Tr::tr("the API URL")); !valid)
            return fail(valid.error());
        if (!resolved.sandboxUrl.isEmpty()) {
            if (auto valid = validateUrl(resolved.sandboxUrl, Tr::tr("the sandbox URL")); !valid)
                return fail(valid.error());
        }
        if (const auto name = value(QStringLiteral("template"))) {
            if (name->trimmed().isEmpty())
                return fail(Error::invalidArgument(Tr::tr("--template needs a template name")));
            profile.image = name->trimmed();
        }
        profile.sandboxTimeout = DefaultTimeout; // AgentScope's
        if (const auto timeout = value(QStringLiteral("sandbox-timeout"))) {
            bool ok = false;
            const qint64 seconds = timeout->toLongLong(&ok);
            if (!ok || seconds < 1 || seconds > 366 * 24 * 3600) {
                return fail(Error::invalidArgument(
                    Tr::tr("--sandbox-timeout takes a number of seconds of at least 1, not \"%1\"").arg(*timeout)));
            }
            profile.sandboxTimeout = std::chrono::seconds(seconds);
        }
        return {};
    };
    factory.toCommandLine = [](const Profile &profile) {
        QStringList arguments;
        if (!profile.domain.trimmed().isEmpty())
            arguments << QStringLiteral("--domain") << profile.domain.trimmed();
        if (!profile.apiUrl.trimmed().isEmpty())
            arguments << QStringLiteral("--api-url") << profile.apiUrl.trimmed();
        if (!profile.sandboxUrl.trimmed().isEmpty())
            arguments << QStringLiteral("--sandbox-url") << profile.sandboxUrl.trimmed();
        return arguments;
    };
    factory.create = [](const Profile &profile, const QByteArray &key, const BackendContext &) {
        BackendOptions options;
        options.connection = connectionOf(profile);
        options.connection.apiKey = key;
        if (!profile.image.trimmed().isEmpty())
            options.templateName = profile.image.trimmed();
        options.timeout = profile.sandboxTimeout;
        BackendSetup setup;
        setup.backend = std::make_unique<E2BBackend>(options);
        setup.provision.bootstrap = E2B::agentscopeBootstrapCommands();
        setup.provision.agentscopeBootstrap = true;
        return setup;
    };
    return factory;
}

} // namespace Paddock
