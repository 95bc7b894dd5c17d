#include "ctl.h"

#include "cmd/command.h"

#include "backendregistry.h"
#include "profilesession.h"

#include <QCoroTask>

#include <QFile>

#include <algorithm>
#include <array>

namespace Paddock::Ctl {

namespace {

// ---- The global options and the session they describe, made once per invocation -------------

// paddockctl's own global options. The backends' come from their registrations
// (BackendFactory::commandLineOptions): a new backend brings its options with it.
constexpr std::array<Option, 2> OwnOptions{{
    {"backend", "name"},
    {"bootstrap", "file"},
}};

} // namespace

// Every global option: paddockctl's own, then each registered backend's in the registry's order,
// once (two backends may take one option, as local and Docker take --basedir).
QList<CommandLineOption> globalOptions()
{
    QList<CommandLineOption> options;
    for (const Option &option : OwnOptions)
        options.append({QLatin1String(option.name), QLatin1String(option.valueName)});
    for (const BackendFactory &factory : BackendRegistry::instance().factories()) {
        for (const CommandLineOption &option : factory.commandLineOptions) {
            const bool known = std::any_of(options.cbegin(), options.cend(), [&option](const CommandLineOption &other) {
                return other.name == option.name;
            });
            if (!known)
                options.append(option);
        }
    }
    return options;
}

namespace {

// The ids of the backends that take an option, in the registry's order (none: not a backend's).
QStringList backendsTaking(const QString &option)
{
    QStringList ids;
    for (const BackendFactory &factory : BackendRegistry::instance().factories()) {
        if (factory.takesOption(option))
            ids.append(factory.id);
    }
    return ids;
}

} // namespace

// Makes the invocation's profile session (s.session, and the log store it writes to, s.logs) from
// the global options: the backend --backend names, filled in by its own options, the bootstrap
// file and the key. Success, or the exit code of a usage error it has reported.
int makeSession(Session &s)
{
    const BackendRegistry &registry = BackendRegistry::instance();
    const QString backendId = s.has("backend") ? s.value("backend") : QStringLiteral("local");
    const BackendFactory *factory = registry.find(backendId);
    if (!factory) {
        return s.usage(Tr::tr("unknown backend \"%1\"; valid choices: %2")
                           .arg(backendId, registry.ids().join(QStringLiteral(", "))));
    }
    // An option of another backend is a mistake, not something to ignore.
    for (const QString &name : s.parser.optionNames()) {
        const QStringList takers = backendsTaking(name);
        if (!takers.isEmpty() && !factory->takesOption(name))
            return s.usage(appliesOnlyTo(name, takers));
    }

    Profile profile;
    profile.kind = factory->kind;
    profile.id = factory->id;
    // open's --isolation; a bad one is open's usage error.
    if (const auto policy = s.isolation())
        profile.isolation = *policy;
    const auto value = [&s](const QString &name) -> std::optional<QString> {
        return s.parser.isSet(name) ? std::optional<QString>(s.parser.value(name)) : std::nullopt;
    };
    if (auto filled = factory->fromCommandLine(profile, value); !filled)
        return s.usage(filled.error().message);
    if (s.has("bootstrap")) {
        // Checked here, so that a command line naming a file it cannot read creates nothing.
        QFile file(s.value("bootstrap"));
        if (!file.open(QIODevice::ReadOnly))
            return s.usage(Tr::tr("cannot read the bootstrap file %1: %2").arg(file.fileName(), file.errorString()));
        profile.bootstrapFile = file.fileName();
    }
    // The one key source of paddockctl; the core never reads the environment for a key.
    QByteArray key;
    if (!factory->keyEnvironmentVariable.isEmpty())
        key = qgetenv(factory->keyEnvironmentVariable.constData());

    s.logs = std::make_unique<BootstrapLogStore>();
    s.session = std::make_unique<ProfileSession>(std::move(profile), std::move(key), s.logs.get(),
                                                 BackendContext{.commandLine = true});
    return Success;
}

// ---- The command line ---------------------------------------------------------------------------

// Every option the parser knows: the global ones, then each command's (once, in table order).
QList<QCommandLineOption> parserOptions(const QList<CommandLineOption> &global)
{
    QList<QCommandLineOption> options;
    QStringList seen;
    const auto add = [&options, &seen](const QString &name, const QString &valueName) {
        if (seen.contains(name))
            return;
        seen.append(name);
        options.append(valueName.isEmpty() ? QCommandLineOption(name) : QCommandLineOption(name, {}, valueName));
    };
    for (const CommandLineOption &option : global)
        add(option.name, option.valueName);
    for (const Command &command : commands()) {
        for (const Option &option : command.options)
            add(QLatin1String(option.name), QLatin1String(option.valueName));
    }
    return options;
}

QCoro::Task<int> run(QStringList arguments)
{
    Session s;
    // An internal command (the shell completion's __complete) gets its words as they are: a word
    // being completed is often not yet a valid option, and nothing of it must be refused.
    if (const Command *internal = arguments.size() > 1 ? findCommand(arguments.at(1)) : nullptr;
        internal && internal->internal) {
        s.command = internal;
        s.args = arguments.mid(2);
        co_return co_await internal->run(s);
    }
    QCommandLineParser &parser = s.parser;
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption help(QStringList{QStringLiteral("h"), QStringLiteral("help")});
    const QCommandLineOption version(QStringLiteral("version"));
    parser.addOptions({help, version});
    const QList<CommandLineOption> global = globalOptions();
    parser.addOptions(parserOptions(global));
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
    if (!s.command || s.command->internal) {
        s.command = nullptr;
        co_return s.usage(Tr::tr("unknown command \"%1\"; commands: %2")
                              .arg(parser.positionalArguments().constFirst(), commandNames()));
    }
    s.args = positional;
    // paddockctl's own failures from here on, as the command reports them.
    const int ownFailure = s.command->ownFailure;
    const auto ownStatus = [ownFailure](int code) { return code != Success && ownFailure != 0 ? ownFailure : code; };
    const int count = int(s.args.size());
    if (count < s.command->minArgs || (s.command->maxArgs >= 0 && count > s.command->maxArgs))
        co_return ownStatus(s.usage(Tr::tr("wrong number of arguments for %1").arg(QLatin1String(s.command->name))));
    for (const QString &name : parser.optionNames()) {
        const bool isGlobal = std::any_of(global.cbegin(), global.cend(), [&name](const CommandLineOption &candidate) {
            return candidate.name == name;
        });
        const bool own =
            std::any_of(s.command->options.begin(), s.command->options.end(),
                        [&name](const Option &candidate) { return name == QLatin1String(candidate.name); });
        if (!isGlobal && !own)
            co_return ownStatus(
                s.usage(Tr::tr("option --%1 does not apply to %2").arg(name, QLatin1String(s.command->name))));
    }

    if (!s.command->needsBackend)
        co_return co_await s.command->run(s);
    if (const int made = makeSession(s); made != Success)
        co_return ownStatus(made);
    const int exitCode = co_await s.command->run(s);
    // A command line holds nothing open: what open made stays Running for whoever uses it next.
    // Nothing is freed before every task of the session has ended.
    co_await s.session->shutdown(WorkspaceManager::StopMode::LeaveRunning);
    co_return exitCode;
}

} // namespace Paddock::Ctl
