// The command table: the one place a verb is registered. The dispatcher (ctl.cpp), the help text
// (help.cpp) and the option checks all read it.

#include "command.h"

#include <QStringList>

#include <algorithm>
#include <array>

namespace Paddock::Ctl {

namespace {

constexpr std::array<Command, 16> Table{{
    {"assign-id",
     "--isolation per_agent|per_session|per_user --user U --agent A [--session S]",
     {{"isolation", "policy"}, {"user", "id"}, {"agent", "id"}, {"session", "id"}},
     0,
     0,
     false,
     runAssignId},
    {"open",
     "--user U --agent A [--session S] [--workspace-id ID] [--isolation P]",
     {{"user", "id"}, {"agent", "id"}, {"session", "id"}, {"workspace-id", "id"}, {"isolation", "policy"}},
     0,
     0,
     true,
     runOpen},
    {"list",
     "[--output table|json|ids] [--json] [FILTERS] [--fail-empty]",
     {{"output", "format"},
      {"json"},
      {"fail-empty"},
      {"all"},
      {"state", "list"},
      {"user", "id"},
      {"agent", "id"},
      {"label", "key=value"},
      {"idle-longer-than", "duration"},
      {"expires-within", "duration"}},
     0,
     0,
     true,
     runList},
    {"info", "ID [--json]", {{"json"}}, 1, 1, true, runInfo},
    {"pause",
     "ID... | --all [FILTERS] [BULK]",
     {{"all"},
      {"state", "list"},
      {"user", "id"},
      {"agent", "id"},
      {"label", "key=value"},
      {"idle-longer-than", "duration"},
      {"expires-within", "duration"},
      {"dry-run"},
      {"yes"},
      {"fail-empty"},
      {"concurrency", "n"},
      {"json"}},
     0,
     -1,
     true,
     runPause},
    {"resume",
     "ID... | --all [FILTERS] [BULK]",
     {{"all"},
      {"state", "list"},
      {"user", "id"},
      {"agent", "id"},
      {"label", "key=value"},
      {"idle-longer-than", "duration"},
      {"expires-within", "duration"},
      {"dry-run"},
      {"yes"},
      {"fail-empty"},
      {"concurrency", "n"},
      {"json"}},
     0,
     -1,
     true,
     runResume},
    {"close",
     "ID... | --all [FILTERS] [BULK]",
     {{"all"},
      {"state", "list"},
      {"user", "id"},
      {"agent", "id"},
      {"label", "key=value"},
      {"idle-longer-than", "duration"},
      {"expires-within", "duration"},
      {"dry-run"},
      {"yes"},
      {"fail-empty"},
      {"concurrency", "n"},
      {"json"}},
     0,
     -1,
     true,
     runClose},
    {"kill",
     "ID... | --all [FILTERS] [BULK] [--delete-files]",
     {{"delete-files"},
      {"all"},
      {"state", "list"},
      {"user", "id"},
      {"agent", "id"},
      {"label", "key=value"},
      {"idle-longer-than", "duration"},
      {"expires-within", "duration"},
      {"dry-run"},
      {"yes"},
      {"fail-empty"},
      {"concurrency", "n"},
      {"json"}},
     0,
     -1,
     true,
     runKill},
    {"renew",
     "ID... | --all [FILTERS] --seconds DURATION [--allow-shorter] [BULK]",
     {{"seconds", "n"},
      {"allow-shorter"},
      {"all"},
      {"state", "list"},
      {"user", "id"},
      {"agent", "id"},
      {"label", "key=value"},
      {"idle-longer-than", "duration"},
      {"expires-within", "duration"},
      {"dry-run"},
      {"yes"},
      {"fail-empty"},
      {"concurrency", "n"},
      {"json"}},
     0,
     -1,
     true,
     runRenew},
    {"sweep",
     "--idle DURATION [FILTERS] [--dry-run] [--concurrency N] [--json]",
     {{"idle", "duration"},
      {"dry-run"},
      {"concurrency", "n"},
      {"json"},
      {"all"},
      {"state", "list"},
      {"user", "id"},
      {"agent", "id"},
      {"label", "key=value"},
      {"idle-longer-than", "duration"},
      {"expires-within", "duration"}},
     0,
     0,
     true,
     runSweep},
    {"logs", "ID [--follow]", {{"follow"}}, 1, 1, true, runLogs},
    {"inspect",
     "ID [--json] [--section overview|sessions|skills|mcp|data|gateway]",
     {{"json"}, {"section", "name"}},
     1,
     1,
     true,
     runInspect},
    {"exec", "ID -- COMMAND [ARGUMENT...]", {}, 1, -1, true, runExec, 125},
    {"files",
     "ID ls [PATH] [--json] | ID cat PATH | ID get PATH LOCAL | ID put LOCAL PATH",
     {{"json"}},
     2,
     4,
     true,
     runFiles},
    {"help", "", {}, 0, 0, false, runHelp},
    {"__complete", "WORD...", {}, 0, -1, false, runComplete, 0, true},
}};

} // namespace

std::span<const Command> commands()
{
    return Table;
}

const Command *findCommand(const QString &name)
{
    const auto it = std::find_if(Table.cbegin(), Table.cend(),
                                 [&name](const Command &command) { return name == QLatin1String(command.name); });
    return it == Table.cend() ? nullptr : &*it;
}

QString commandNames()
{
    QStringList names;
    for (const Command &command : Table) {
        if (!command.internal)
            names.append(QLatin1String(command.name));
    }
    return names.join(QStringLiteral(", "));
}

} // namespace Paddock::Ctl
