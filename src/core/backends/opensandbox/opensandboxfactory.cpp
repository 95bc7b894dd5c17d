#include "../../backendregistry.h"
#include "../../tr.h"
#include "opensandboxbackend.h"

#include <QRegularExpression>

namespace Paddock {

BackendFactory openSandboxBackendFactory()
{
    using namespace OpenSandbox;
    BackendFactory factory;
    factory.kind = Profile::Kind::OpenSandbox;
    factory.id = QStringLiteral("opensandbox");
    factory.displayName = [] { return Tr::tr("OpenSandbox"); };
    factory.capabilities = {Capability::ContainerLog, Capability::Renew, Capability::Files, Capability::Exec,
                            Capability::Metrics};
    factory.profileFields = {QStringLiteral("domain"), QStringLiteral("protocol"), QStringLiteral("useServerProxy"),
                             QStringLiteral("image"), QStringLiteral("sandboxTimeout")};
    factory.hint = [](const QString &field) -> FieldHint {
        if (field == QLatin1String("image"))
            return {SandboxCreate().image, Tr::tr("The container image of new sandboxes; empty for the default")};
        if (field == QLatin1String("bootstrapFile"))
            return {Tr::tr("AgentScope's bootstrap (installs AgentScope and its gateway)"), {}};
        return {};
    };
    factory.usesKey = true;
    factory.keyEnvironmentVariable = "OPEN_SANDBOX_API_KEY";
    factory.bootstrapTimeout = BootstrapCommandTimeout;
    factory.commandLineOptions = {{QStringLiteral("domain"), QStringLiteral("host")},
                                  {QStringLiteral("protocol"), QStringLiteral("scheme")},
                                  {QStringLiteral("use-server-proxy"), {}},
                                  {QStringLiteral("image"), QStringLiteral("image")},
                                  {QStringLiteral("sandbox-timeout"), QStringLiteral("seconds")}};
    factory.commandLineHelp = [] {
        return Tr::tr("OpenSandbox backend (API key from OPEN_SANDBOX_API_KEY):\n"
                      "  --domain HOST[:PORT]   the server (default: OPEN_SANDBOX_DOMAIN, else localhost:8080)\n"
                      "  --protocol http|https  (default: http)\n"
                      "  --use-server-proxy     reach execd through the server's proxy\n"
                      "  --image IMAGE          image of new sandboxes (default: python:3.11-slim)\n"
                      "  --sandbox-timeout N    seconds until a new sandbox expires; 0: never (default: 1800)\n");
    };
    factory.validate = [](const Profile &profile) {
        QList<FieldError> errors;
        const auto add = [&errors](const char *field, const QString &message) {
            errors.append({QLatin1String(field), message});
        };
        static const QRegularExpression hostPort(QStringLiteral(R"(^(\[[0-9A-Fa-f:.]+\]|[^\s/:?#@\[\]]+)(:(\d+))?$)"));
        const QRegularExpressionMatch match = hostPort.match(profile.domain.trimmed());
        if (profile.domain.trimmed().isEmpty()) {
            add("domain", Tr::tr("Enter the server as host or host:port."));
        } else if (!match.hasMatch()) {
            add("domain", Tr::tr("Enter host or host:port only, without a scheme or a path."));
        } else if (!match.captured(3).isEmpty()) {
            bool ok = false;
            const int port = match.captured(3).toInt(&ok);
            if (!ok || port < 1 || port > 65535)
                add("domain", Tr::tr("The port must be a number from 1 to 65535."));
        }
        if (profile.protocol != QLatin1String("http") && profile.protocol != QLatin1String("https"))
            add("protocol", Tr::tr("The protocol is http or https."));
        if (profile.sandboxTimeout.count() != 0 && profile.sandboxTimeout.count() < 60)
            add("sandboxTimeout", Tr::tr("A sandbox lives at least 60 seconds (or set 0: never expires)."));
        return errors;
    };
    factory.fromCommandLine = [](Profile &profile, const auto &value) -> Result<> {
        profile.domain = value(QStringLiteral("domain")).value_or(QString());
        profile.useServerProxy = value(QStringLiteral("use-server-proxy")).has_value();
        profile.protocol.clear(); // the SDKs' default, or the domain's scheme
        if (const auto protocol = value(QStringLiteral("protocol"))) {
            if (*protocol != QLatin1String("http") && *protocol != QLatin1String("https"))
                return fail(
                    Error::invalidArgument(Tr::tr("--protocol takes http or https, not \"%1\"").arg(*protocol)));
            profile.protocol = *protocol;
        }
        ConnectionConfig connection;
        connection.domain = profile.domain;
        connection.protocol = profile.protocol;
        if (auto valid = validateDomain(connection.resolved()); !valid)
            return fail(valid.error());
        if (const auto image = value(QStringLiteral("image"))) {
            if (image->trimmed().isEmpty())
                return fail(Error::invalidArgument(Tr::tr("--image needs an image name")));
            profile.image = *image;
        }
        if (const auto timeout = value(QStringLiteral("sandbox-timeout"))) {
            bool ok = false;
            const qint64 seconds = timeout->toLongLong(&ok);
            if (!ok || seconds < 0 || (seconds != 0 && seconds < 60)) {
                return fail(Error::invalidArgument(
                    Tr::tr("--sandbox-timeout takes 0 (never expire) or at least 60 seconds, not \"%1\"")
                        .arg(*timeout)));
            }
            profile.sandboxTimeout = std::chrono::seconds(seconds);
        }
        return {};
    };
    factory.toCommandLine = [](const Profile &profile) {
        QStringList arguments;
        if (!profile.domain.trimmed().isEmpty())
            arguments << QStringLiteral("--domain") << profile.domain.trimmed();
        if (!profile.protocol.isEmpty() && profile.protocol != QLatin1String("http"))
            arguments << QStringLiteral("--protocol") << profile.protocol;
        if (profile.useServerProxy)
            arguments << QStringLiteral("--use-server-proxy");
        return arguments;
    };
    factory.create = [](const Profile &profile, const QByteArray &key, const BackendContext &context) {
        BackendOptions options;
        options.connection.domain = profile.domain;
        options.connection.protocol = profile.protocol;
        options.connection.useServerProxy = profile.useServerProxy;
        options.connection.apiKey = key;
        if (!profile.image.isEmpty())
            options.sandbox.image = profile.image;
        options.sandbox.timeout = profile.sandboxTimeout.count() == 0
            ? std::nullopt
            : std::optional<std::chrono::seconds>(profile.sandboxTimeout);
        // A command line holds nothing open: the lease ends with the process.
        options.keepLeases = !context.commandLine;
        BackendSetup setup;
        setup.backend = std::make_unique<OpenSandboxBackend>(options);
        setup.provision.bootstrap = OpenSandbox::agentscopeBootstrapCommands();
        setup.provision.agentscopeBootstrap = true;
        return setup;
    };
    return factory;
}

} // namespace Paddock
