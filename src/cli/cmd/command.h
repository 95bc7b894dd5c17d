#pragma once

// What every paddockctl verb (one file each in this folder) works with: the invocation's Session,
// the output streams, the usage and failure handling, and the one command table (commands.cpp)
// that the dispatcher, the help text and the option checks read. See ../README.md.

#include "ctl.h"

#include "bootstraplog.h"
#include "isolation.h"
#include "profilesession.h"
#include "result.h"

#include <QCoroFwd>

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QStringList>

#include <cstdio>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>

namespace Paddock::Ctl {

// The translation context of paddockctl's own messages.
struct Tr
{
    Q_DECLARE_TR_FUNCTIONS(paddockctl)
};

// Raw bytes to a stream, flushed at once (a script may read line by line).
void write(std::FILE *stream, const QByteArray &bytes);
// One line to stdout.
void out(const QString &line);
// One line to stderr, after "paddockctl: ".
void err(const QString &line);

// A time as list --json and renew print it (UTC, ISO 8601 with milliseconds); empty when invalid.
QString jsonTime(const QDateTime &time);
// A whole number >= 0, or nothing.
std::optional<qint64> parseCount(const QString &text);
// "option --X applies to the B backend only" (or "the B1 and B2 backends"): for an option given
// to a backend that does not take it; `backends` are the registry ids of those that do.
QString appliesOnlyTo(const QString &option, const QStringList &backends);

struct Command;

// Everything one invocation works with.
class Session
{
public:
    QCommandLineParser parser;
    const Command *command = nullptr;
    QStringList args; // the positional arguments after the command's name
    // Made by makeSession (ctl.cpp) before a command that needs a backend runs: the profile the
    // global options describe, and the one way into it. Every verb goes through the session;
    // the dispatcher awaits its shutdown once the verb is done. The log store outlives it.
    std::unique_ptr<BootstrapLogStore> logs;
    std::unique_ptr<ProfileSession> session;

    bool has(const char *option) const { return parser.isSet(QLatin1String(option)); }
    QString value(const char *option) const { return parser.value(QLatin1String(option)); }

    // --isolation, or the default policy when it is not given.
    Result<IsolationPolicy> isolation() const;
    // A usage error: the message, then the command's synopsis (or where to find the commands).
    int usage(const QString &message) const;
    // An operation's error: a usage error when the input was bad, else a failure.
    int failed(const QString &what, const Error &error) const;
};

// An option of a command: its name without dashes, and the name of its value (none: a switch).
struct Option
{
    const char *name;
    const char *valueName = nullptr;
};

// One row of the command table.
struct Command
{
    const char *name;
    const char *synopsis;
    std::initializer_list<Option> options; // the command options it accepts (the global ones always apply)
    int minArgs;
    int maxArgs; // -1: any number
    bool needsBackend; // false: runs before any backend option is looked at
    QCoro::Task<int> (*run)(Session &);
    // For a command that passes another program's exit status through (exec: 125, as docker and
    // podman say it): the status of every failure of paddockctl's own (usage, setup), so that it
    // cannot be mistaken for the command's. 0: the usual 2 and 1.
    int ownFailure = 0;
    // For paddockctl's own scripts (the shell completion's __complete): not in help, not completed,
    // named as the first argument only, and given its words as they are, unparsed.
    bool internal = false;
};

// Every command, in the order help lists them.
std::span<const Command> commands();
const Command *findCommand(const QString &name);
// "assign-id, open, ...": for messages.
QString commandNames();

// What the dispatcher (ctl.cpp) makes of the global options, for __complete too: the global
// options (paddockctl's own, then each registered backend's), every option the parser knows, and
// the invocation's profile session (Success, or the exit code of the usage error it reported).
QList<CommandLineOption> globalOptions();
QList<QCommandLineOption> parserOptions(const QList<CommandLineOption> &global);
int makeSession(Session &s);

// The verbs, one file each (cmd/<name>.cpp).
QCoro::Task<int> runAssignId(Session &s);
QCoro::Task<int> runOpen(Session &s);
QCoro::Task<int> runList(Session &s);
QCoro::Task<int> runInfo(Session &s);
QCoro::Task<int> runPause(Session &s);
QCoro::Task<int> runResume(Session &s);
QCoro::Task<int> runClose(Session &s);
QCoro::Task<int> runKill(Session &s);
QCoro::Task<int> runRenew(Session &s);
QCoro::Task<int> runSweep(Session &s);
QCoro::Task<int> runLogs(Session &s);
QCoro::Task<int> runInspect(Session &s);
QCoro::Task<int> runExec(Session &s);
QCoro::Task<int> runFiles(Session &s);
QCoro::Task<int> runHelp(Session &s);
QCoro::Task<int> runComplete(Session &s);

} // namespace Paddock::Ctl
