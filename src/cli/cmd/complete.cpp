// __complete, for the shell completion scripts (packaging/completion/): given the words of a
// command line after "paddockctl", up to the one being completed (the last, perhaps empty), it
// prints one candidate a line for that last word: the commands; the command's options and the
// global ones (once --backend names a backend, only that backend's); an option's fixed values;
// the command's literal words (files' ls, cat, get, put); and, where the command takes an ID,
// the ids of the backend's workspaces, from its listing of the last minute (completioncache.h) or
// a new one. Where a file or anything free is wanted it prints nothing, and the scripts complete
// file names. It never prompts, never writes to stderr, and always exits 0: a TAB must neither
// hang nor fail.

#include "command.h"
#include "completioncache.h"

#include "backendregistry.h"
#include "isolation.h"
#include "profile.h"
#include "sandbox.h"

#include <QCoroTask>

#include <QTimer>

#include <algorithm>

#include <fcntl.h>
#include <unistd.h>

namespace Paddock::Ctl {

namespace {

// The longest a TAB waits for a listing (and everything else): then it offers no ids.
constexpr std::chrono::seconds Deadline{3};

// Whether an option takes a value, as the parser learns them: the global ones first, then each
// command's, the first of a name deciding.
bool takesValue(const QList<CommandLineOption> &global, const QString &name)
{
    for (const CommandLineOption &option : global) {
        if (option.name == name)
            return !option.valueName.isEmpty();
    }
    for (const Command &command : commands()) {
        for (const Option &option : command.options) {
            if (name == QLatin1String(option.name))
                return option.valueName != nullptr;
        }
    }
    return false;
}

// What the words before the one being completed say.
struct Line
{
    const Command *command = nullptr;
    bool unknownCommand = false;
    QStringList args; // the command's positional words
    bool afterDashes = false; // after exec's "--": the command's own words
    QString pendingOption; // the option whose value the word being completed is
    QString backend; // --backend's value, when given
    QStringList options; // the options given, as "--name=value" or "--name"
};

Line readLine(const QList<CommandLineOption> &global, const QStringList &words)
{
    Line line;
    for (const QString &word : words) {
        if (line.afterDashes) {
            line.args.append(word);
            continue;
        }
        if (!line.pendingOption.isEmpty()) {
            // bash splits "--backend=local" into "--backend", "=", "local".
            if (word == QLatin1String("="))
                continue;
            if (line.pendingOption == QLatin1String("backend"))
                line.backend = word;
            line.options.append(QStringLiteral("--%1=%2").arg(line.pendingOption, word));
            line.pendingOption.clear();
            continue;
        }
        if (word == QLatin1String("--")) {
            if (line.command) {
                line.args.append(word);
                line.afterDashes = true;
            }
            continue;
        }
        if (word.size() > 1 && word.startsWith(u'-')) {
            const QString name = word.mid(word.startsWith(QLatin1String("--")) ? 2 : 1);
            const qsizetype equals = name.indexOf(u'=');
            if (equals >= 0 && name.left(equals) == QLatin1String("backend"))
                line.backend = name.mid(equals + 1);
            if (equals < 0 && takesValue(global, name))
                line.pendingOption = name;
            else
                line.options.append(QStringLiteral("--") + name);
            continue;
        }
        if (!line.command && !line.unknownCommand) {
            line.command = findCommand(word);
            if (!line.command || line.command->internal) {
                line.command = nullptr;
                line.unknownCommand = true;
            }
            continue;
        }
        line.args.append(word);
    }
    return line;
}

void appendOnce(QStringList &list, const QString &word)
{
    if (!word.isEmpty() && !list.contains(word))
        list.append(word);
}

// The values a synopsis gives an option ("--isolation per_agent|per_session|per_user"): the
// command's, else any command's.
QStringList synopsisValues(const QString &option, const Command *command)
{
    const QString flag = QStringLiteral("--") + option;
    QStringList values;
    const auto read = [&flag, &values](const Command &from) {
        QString synopsis = QString::fromLatin1(from.synopsis);
        synopsis.remove(u'[').remove(u']').remove(u'(').remove(u')');
        const QStringList tokens = synopsis.split(u' ', Qt::SkipEmptyParts);
        for (qsizetype i = 0; i + 1 < tokens.size(); ++i) {
            if (tokens.at(i) == flag && tokens.at(i + 1) != QLatin1String("|") && tokens.at(i + 1).contains(u'|')) {
                for (const QString &value : tokens.at(i + 1).split(u'|'))
                    appendOnce(values, value);
            }
        }
    };
    if (command)
        read(*command);
    if (values.isEmpty()) {
        for (const Command &any : commands())
            read(any);
    }
    return values;
}

// An option's fixed values: the backends; what a synopsis says; else the words the core takes.
QStringList optionValues(const QString &option, const Command *command)
{
    if (option == QLatin1String("backend"))
        return BackendRegistry::instance().ids();
    if (QStringList values = synopsisValues(option, command); !values.isEmpty())
        return values;
    if (option == QLatin1String("isolation"))
        return isolationPolicyNames();
    if (option == QLatin1String("layout"))
        return {Profile::layoutName(Profile::Layout::Paddock), Profile::layoutName(Profile::Layout::AgentScope)};
    if (option == QLatin1String("protocol"))
        return {QStringLiteral("http"), QStringLiteral("https")};
    if (option == QLatin1String("state")) {
        QStringList states;
        for (int state = int(SandboxState::Pending); state <= int(SandboxState::Failed); ++state)
            states.append(sandboxStateName(static_cast<SandboxState>(state)).toLower());
        return states;
    }
    if (option == QLatin1String("output"))
        return {QStringLiteral("table"), QStringLiteral("json"), QStringLiteral("ids")};
    return {};
}

// The options that apply: the command's, then the global ones (once --backend names a backend,
// paddockctl's own and that backend's only: another's would be refused).
QStringList optionNames(const QList<CommandLineOption> &global, const Line &line)
{
    QStringList names;
    if (line.command) {
        for (const Option &option : line.command->options)
            appendOnce(names, QStringLiteral("--") + QLatin1String(option.name));
    }
    const BackendRegistry &registry = BackendRegistry::instance();
    const BackendFactory *chosen = line.backend.isEmpty() ? nullptr : registry.find(line.backend);
    for (const CommandLineOption &option : global) {
        if (chosen && !chosen->takesOption(option.name)) {
            const bool anotherBackends =
                std::any_of(registry.factories().cbegin(), registry.factories().cend(),
                            [&option](const BackendFactory &factory) { return factory.takesOption(option.name); });
            if (anotherBackends)
                continue;
        }
        appendOnce(names, QStringLiteral("--") + option.name);
    }
    if (!line.command) {
        appendOnce(names, QStringLiteral("--help"));
        appendOnce(names, QStringLiteral("--version"));
    }
    return names;
}

// A positional word of a synopsis: a placeholder (ID, PATH: upper case) or a literal word (ls,
// --); "ID..." repeats.
struct Slot
{
    QString word;
    bool repeats = false;

    bool literal() const { return word == QLatin1String("--") || word != word.toUpper(); }
};

// The positional words of a command's synopsis, one list for each of its alternatives
// ("ID ls [PATH] | ID cat PATH"), without the options and their values.
QList<QList<Slot>> synopsisSlots(const QList<CommandLineOption> &global, const Command &command)
{
    QString synopsis = QString::fromLatin1(command.synopsis);
    synopsis.remove(u'[').remove(u']').remove(u'(').remove(u')');
    QList<QList<Slot>> alternatives;
    for (const QString &alternative : synopsis.split(QStringLiteral(" | "))) {
        QList<Slot> slots;
        bool value = false;
        for (QString token : alternative.split(u' ', Qt::SkipEmptyParts)) {
            if (value) {
                value = false;
                continue;
            }
            if (token.size() > 2 && token.startsWith(QLatin1String("--"))) {
                value = takesValue(global, token.mid(2));
                continue;
            }
            const bool repeats = token.endsWith(QLatin1String("..."));
            if (repeats)
                token.chop(3);
            slots.append({token, repeats});
        }
        alternatives.append(slots);
    }
    return alternatives;
}

// What the command takes as its next positional word, after the ones given: the slots of every
// alternative of its synopsis whose literal words match those given.
QStringList nextSlots(const QList<CommandLineOption> &global, const Command &command, const QStringList &args)
{
    QStringList words;
    for (const QList<Slot> &slots : synopsisSlots(global, command)) {
        const auto slotAt = [&slots](qsizetype i) -> const Slot * {
            if (i < slots.size())
                return &slots.at(i);
            return !slots.isEmpty() && slots.constLast().repeats ? &slots.constLast() : nullptr;
        };
        bool fits = true;
        for (qsizetype i = 0; i < args.size() && fits; ++i) {
            const Slot *slot = slotAt(i);
            fits = slot && (!slot->literal() || slot->word == args.at(i));
        }
        if (const Slot *slot = fits ? slotAt(args.size()) : nullptr;
            slot && (slot->literal() || slot->word == QLatin1String("ID")))
            appendOnce(words, slot->word);
    }
    return words;
}

QStringList startingWith(const QStringList &candidates, const QString &prefix)
{
    QStringList matching;
    for (const QString &candidate : candidates) {
        if (candidate.startsWith(prefix))
            matching.append(candidate);
    }
    return matching;
}

// The workspace ids of the backend the line's global options describe: its listing of the last
// minute, else a new one (which is then remembered); none when the options do not make a profile
// or the listing fails.
QCoro::Task<QStringList> workspaceIds(Session &s, const Line &line)
{
    s.parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    s.parser.addOptions(parserOptions(globalOptions()));
    QStringList arguments{QStringLiteral("paddockctl")};
    arguments += line.options;
    if (!s.parser.parse(arguments) || makeSession(s) != Success)
        co_return QStringList();
    if (std::optional<QStringList> cached = cachedWorkspaceIds(s.session->profile())) {
        QStringList ids = std::move(*cached);
        co_return ids;
    }
    auto listed = co_await s.session->list();
    if (!listed)
        co_return QStringList();
    rememberWorkspaceIds(s, *listed);
    QStringList ids;
    for (const SandboxInfo &info : std::as_const(*listed))
        appendOnce(ids, info.workspaceId);
    co_return ids;
}

} // namespace

QCoro::Task<int> runComplete(Session &s)
{
    // Nothing on stderr, where it would land in the middle of the command line being typed: not
    // the core's warnings, not a usage error of the options given so far.
    qInstallMessageHandler([](QtMsgType, const QMessageLogContext &, const QString &) {});
    if (const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC); null >= 0) {
        ::dup2(null, STDERR_FILENO);
        ::close(null);
    }
    // Past the deadline whatever is still under way (a listing) is left, and nothing more offered.
    QTimer::singleShot(Deadline, QCoreApplication::instance(), [] { ::_exit(Success); });

    QStringList words = s.args;
    QString current = words.isEmpty() ? QString() : words.takeLast();
    const QList<CommandLineOption> global = globalOptions();
    const Line line = readLine(global, words);

    QStringList candidates;
    bool ids = false;
    if (line.afterDashes) {
        // exec's command: nothing of paddockctl's.
    } else if (!line.pendingOption.isEmpty()) {
        if (current == QLatin1String("=")) // bash: "--backend=" is "--backend", "="
            current.clear();
        candidates = startingWith(optionValues(line.pendingOption, line.command), current);
    } else if (current.startsWith(QLatin1String("--")) && current.contains(u'=')) {
        // zsh, and bash without "=" among its word breaks: "--backend=lo" is one word.
        const qsizetype equals = current.indexOf(u'=');
        for (const QString &value :
             startingWith(optionValues(current.mid(2, equals - 2), line.command), current.mid(equals + 1)))
            candidates.append(current.left(equals + 1) + value);
    } else if (current.startsWith(u'-')) {
        candidates = startingWith(optionNames(global, line), current);
    } else if (line.command) {
        for (const QString &slot : nextSlots(global, *line.command, line.args)) {
            if (slot == QLatin1String("ID"))
                ids = true;
            else
                appendOnce(candidates, slot);
        }
        candidates = startingWith(candidates, current);
    } else if (!line.unknownCommand) {
        for (const Command &command : commands()) {
            if (!command.internal)
                candidates.append(QLatin1String(command.name));
        }
        candidates = startingWith(candidates, current);
    }
    if (ids) {
        // The ids not given yet (pause ID...: each once).
        const QStringList known = co_await workspaceIds(s, line);
        for (const QString &id : startingWith(known, current)) {
            if (!line.args.contains(id))
                appendOnce(candidates, id);
        }
    }

    QByteArray text;
    for (const QString &candidate : std::as_const(candidates))
        text += candidate.toUtf8() + '\n';
    write(stdout, text);
    // As the dispatcher does after a command that used a backend: nothing is freed while a task
    // of the session runs.
    if (s.session)
        co_await s.session->shutdown(WorkspaceManager::StopMode::LeaveRunning);
    co_return Success;
}

} // namespace Paddock::Ctl
