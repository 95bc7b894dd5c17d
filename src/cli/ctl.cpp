#include "ctl.h"

#include "cmd/command.h"

#include "backends/docker/dockerbackend.h"
#include "backends/local/localbackend.h"
#include "backends/opensandbox/opensandboxbackend.h"

#include <QCoroTask>

#include <QFile>

#include <algorithm>
#include <array>

namespace Paddock::Ctl {

namespace {

// ---- The backend: which one, its options, made once per invocation --------------------------

// The options of every command, whatever the backend (each is checked in makeBackend).
constexpr std::array<Option, 10> GlobalOptions{{
    {"backend", "name"},
    {"basedir", "dir"},
    {"bootstrap", "file"},
    {"bubblewrap"},
    {"domain", "host"},
    {"protocol", "scheme"},
    {"use-server-proxy"},
    {"image", "image"},
    {"sandbox-timeout", "seconds"},
    {"docker-host", "url"},
}};

// Makes the backend the global options ask for (s.backend, s.local, s.docker), the bootstrap log
// store and the bootstrap to run (s.provision). Success, or the exit code of a usage error it has
// reported.
int makeBackend(Session &s)
{
    const QString backendName = s.has("backend") ? s.value("backend") : QStringLiteral("local");
    const bool openSandbox = backendName == QLatin1String("opensandbox");
    const bool docker = backendName == QLatin1String("docker");
    if (backendName != QLatin1String("local") && !openSandbox && !docker) {
        return s.usage(Tr::tr("unknown backend \"%1\"; valid choices: %2")
                           .arg(backendName, QStringLiteral("local, opensandbox, docker")));
    }
    const auto only = [&s](const char *option, const char *backend) {
        return s.usage(
            Tr::tr("option --%1 applies to the %2 backend only").arg(QLatin1String(option), QLatin1String(backend)));
    };
    if (s.has("bubblewrap") && backendName != QLatin1String("local"))
        return only("bubblewrap", "local");
    if (s.has("basedir") && openSandbox)
        return s.usage(Tr::tr("option --basedir applies to the local and docker backends only"));
    if (s.has("image") && !openSandbox && !docker)
        return s.usage(Tr::tr("option --image applies to the opensandbox and docker backends only"));
    for (const char *option : {"domain", "protocol", "use-server-proxy", "sandbox-timeout"}) {
        if (!openSandbox && s.has(option))
            return only(option, "opensandbox");
    }
    for (const char *option : {"docker-host", "delete-files"}) {
        if (!docker && s.has(option))
            return only(option, "docker");
    }
    if (s.has("basedir") && s.value("basedir").isEmpty())
        return s.usage(Tr::tr("--basedir needs a folder"));

    ProvisionOptions provisionOptions;
    if (s.has("bootstrap")) {
        QFile file(s.value("bootstrap"));
        if (!file.open(QIODevice::ReadOnly))
            return s.usage(Tr::tr("cannot read the bootstrap file %1: %2").arg(file.fileName(), file.errorString()));
        provisionOptions.bootstrap =
            parseBootstrapCommands(QString::fromUtf8(file.readAll()),
                                   openSandbox ? OpenSandbox::BootstrapCommandTimeout : std::chrono::seconds(1800));
    } else if (openSandbox) {
        provisionOptions.bootstrap = OpenSandbox::agentscopeBootstrapCommands();
        provisionOptions.agentscopeBootstrap = true;
    }

    if (openSandbox) {
        OpenSandbox::BackendOptions options;
        options.connection.domain = s.value("domain");
        // The one key source of paddockctl; the core never reads the environment for a key.
        options.connection.apiKey = qgetenv("OPEN_SANDBOX_API_KEY");
        options.connection.useServerProxy = s.has("use-server-proxy");
        if (s.has("protocol")) {
            options.connection.protocol = s.value("protocol");
            if (options.connection.protocol != QLatin1String("http")
                && options.connection.protocol != QLatin1String("https"))
                return s.usage(Tr::tr("--protocol takes http or https, not \"%1\"").arg(s.value("protocol")));
        }
        if (auto valid = OpenSandbox::validateDomain(options.connection.resolved()); !valid)
            return s.usage(valid.error().message);
        if (s.has("image")) {
            if (s.value("image").trimmed().isEmpty())
                return s.usage(Tr::tr("--image needs an image name"));
            options.sandbox.image = s.value("image");
        }
        if (s.has("sandbox-timeout")) {
            const auto seconds = parseCount(s.value("sandbox-timeout"));
            if (!seconds || (*seconds != 0 && *seconds < 60)) {
                return s.usage(Tr::tr("--sandbox-timeout takes 0 (never expire) or at least 60 seconds, not \"%1\"")
                                   .arg(s.value("sandbox-timeout")));
            }
            options.sandbox.timeout = *seconds == 0 ? std::nullopt : std::optional(std::chrono::seconds(*seconds));
        }
        // A command line holds nothing open: the lease ends with the process.
        options.keepLeases = false;
        s.backend = std::make_unique<OpenSandbox::OpenSandboxBackend>(options);
    } else if (docker) {
        Docker::DockerOptions options;
        options.dockerHost = s.value("docker-host");
        if (s.has("docker-host")) {
            if (auto valid = Docker::EngineAddress::parse(options.dockerHost); !valid)
                return s.usage(valid.error().message);
        }
        options.image = s.has("image") ? s.value("image").trimmed() : QString(Docker::DockerOptions::DefaultImage);
        if (options.image.isEmpty())
            return s.usage(Tr::tr("--image needs an image name"));
        options.basedir = s.value("basedir");
        auto backend = std::make_unique<Docker::DockerBackend>(options);
        s.docker = backend.get();
        s.backend = std::move(backend);
    } else {
        LocalOptions localOptions;
        localOptions.basedir = s.value("basedir");
        localOptions.bubblewrap = s.has("bubblewrap");
        auto local = std::make_unique<LocalBackend>(localOptions);
        s.local = local.get();
        s.backend = std::move(local);
    }
    s.logs = std::make_unique<BootstrapLogStore>();
    s.provision = std::move(provisionOptions);
    return Success;
}

// ---- The command line ---------------------------------------------------------------------------

QCommandLineOption parserOption(const Option &option)
{
    return option.valueName ? QCommandLineOption(QLatin1String(option.name), {}, QLatin1String(option.valueName))
                            : QCommandLineOption(QLatin1String(option.name));
}

// Every option the parser knows: the global ones, then each command's (once, in table order).
QList<QCommandLineOption> parserOptions()
{
    QList<QCommandLineOption> options;
    QStringList seen;
    const auto add = [&options, &seen](const Option &option) {
        const QString name = QLatin1String(option.name);
        if (seen.contains(name))
            return;
        seen.append(name);
        options.append(parserOption(option));
    };
    for (const Option &option : GlobalOptions)
        add(option);
    for (const Command &command : commands()) {
        for (const Option &option : command.options)
            add(option);
    }
    return options;
}

} // namespace

QCoro::Task<int> run(QStringList arguments)
{
    Session s;
    QCommandLineParser &parser = s.parser;
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption help(QStringList{QStringLiteral("h"), QStringLiteral("help")});
    const QCommandLineOption version(QStringLiteral("version"));
    parser.addOptions({help, version});
    parser.addOptions(parserOptions());
    if (!parser.parse(arguments))
        co_return s.usage(parser.errorText());
    if (parser.isSet(version)) {
        out(QStringLiteral("paddockctl %1").arg(QCoreApplication::applicationVersion()));
        co_return Success;
    }
    QStringList positional = parser.positionalArguments();
    if (parser.isSet(help) || (!positional.isEmpty() && positional.constFirst() == QLatin1String("help")))
        co_return co_await runHelp(s);
    if (positional.isEmpty())
        co_return s.usage(Tr::tr("no command given; commands: %1").arg(commandNames()));

    s.command = findCommand(positional.takeFirst());
    if (!s.command) {
        co_return s.usage(Tr::tr("unknown command \"%1\"; commands: %2")
                              .arg(parser.positionalArguments().constFirst(), commandNames()));
    }
    s.args = positional;
    const int count = int(s.args.size());
    if (count < s.command->minArgs || (s.command->maxArgs >= 0 && count > s.command->maxArgs))
        co_return s.usage(Tr::tr("wrong number of arguments for %1").arg(QLatin1String(s.command->name)));
    for (const QString &name : parser.optionNames()) {
        const QByteArray option = name.toLatin1();
        const auto matches = [&option](const Option &candidate) { return option == candidate.name; };
        const bool global = std::any_of(GlobalOptions.cbegin(), GlobalOptions.cend(), matches);
        const bool own = std::any_of(s.command->options.begin(), s.command->options.end(), matches);
        if (!global && !own)
            co_return s.usage(Tr::tr("option --%1 does not apply to %2").arg(name, QLatin1String(s.command->name)));
    }

    if (s.command->needsBackend) {
        if (const int made = makeBackend(s); made != Success)
            co_return made;
    }
    co_return co_await s.command->run(s);
}

} // namespace Paddock::Ctl
