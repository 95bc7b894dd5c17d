// help (and --help): the commands of the table with their synopses, then the global options:
// paddockctl's own, and each registered backend's section.

#include "command.h"

#include "backendregistry.h"

#include <QCoroTask>

namespace Paddock::Ctl {

namespace {

QString helpText()
{
    QString text = Tr::tr("Usage: paddockctl [global options] <command> [options]\n"
                          "\n"
                          "Manage agent workspaces from the command line.\n"
                          "\n"
                          "Commands:\n");
    for (const Command &command : commands()) {
        if (command.internal || qstrcmp(command.name, "help") == 0)
            continue;
        text += QStringLiteral("  %1 %2\n").arg(QLatin1String(command.name), QLatin1String(command.synopsis));
    }
    text += Tr::tr("\n"
                   "list prints a table fitted to the terminal's width (else $COLUMNS's); --output\n"
                   "json (or --json) prints JSON, --output ids one workspace id per line. info\n"
                   "prints one workspace as the listing knows it (--json: list --json's object).\n");
    text += Tr::tr("\n"
                   "pause, resume, close, kill and renew act on the workspaces given, or with --all\n"
                   "on every workspace that FILTERS keep, found by one listing. FILTERS, each one\n"
                   "more condition (list takes them too):\n"
                   "  --state S[,S...]          running, paused, pending, failed, ...\n"
                   "  --user U, --agent A       repeatable: any of them\n"
                   "  --label KEY=VALUE         metadata; repeatable: all of them\n"
                   "  --idle-longer-than D      idle by the listing's times (last activity, else\n"
                   "                            creation)\n"
                   "  --expires-within D        expires within D (or expired)\n"
                   "BULK: --concurrency N (1-64, default 8) at once; --dry-run prints what would be\n"
                   "done; --json prints the results as JSON at the end; --fail-empty exits 1 when\n"
                   "nothing matches; --yes kills several workspaces chosen by --all without asking\n"
                   "(needed when stdin is not a terminal). Results come in the order given; one\n"
                   "failure does not stop the rest (exit 1). Ctrl+C starts nothing more, waits for\n"
                   "what is under way and says what was done. Durations: 90s, 30m, 2h, 1d.\n");
    text += Tr::tr("\n"
                   "renew sets the expiry to now + N seconds. When that is earlier than the current\n"
                   "expiry, it changes nothing and fails, unless --allow-shorter is given.\n");
    text += Tr::tr("\n"
                   "inspect shows what is inside a workspace (all sections, or --section's), every\n"
                   "secret masked; it writes nothing to the workspace.\n");
    text += Tr::tr("\n"
                   "exec runs COMMAND in a running workspace (no shell between, stdin not passed):\n"
                   "its stdout and stderr as they come, byte for byte, and its exit status; 125\n"
                   "when it could not be run (no such workspace, not running, the backend failed).\n"
                   "Ctrl+C or SIGTERM stop it in the workspace (exit 130 or 143).\n");
    text += Tr::tr("\n"
                   "files reaches a workspace's files: PATH is relative to its working folder, or\n"
                   "absolute inside it; nothing outside. ls lists a folder (--json: name, kind,\n"
                   "size, modified, target); cat prints a file; get and put copy one file, whole or\n"
                   "not at all (into a folder: under its own name).\n");
    text += Tr::tr("\n"
                   "Global options:\n"
                   "  --backend %1  where workspaces live (default: local)\n"
                   "  --bootstrap FILE       bootstrap commands, one shell command per line\n"
                   "                         (an empty file means none; default: none on local,\n"
                   "                         AgentScope's bootstrap on OpenSandbox)\n")
                .arg(BackendRegistry::instance().ids().join(u'|'));
    // Each backend's options, as its registration says them, in the registry's order.
    for (const BackendFactory &factory : BackendRegistry::instance().factories())
        text += u'\n' + factory.commandLineHelp();
    text += Tr::tr("\n"
                   "  --help, --version\n"
                   "\n"
                   "Exit codes: 0 success, 1 the operation failed, 2 usage error; exec: the\n"
                   "command's own, or 125 when it could not be run.\n");
    return text;
}

} // namespace

QCoro::Task<int> runHelp(Session &)
{
    write(stdout, helpText().toUtf8());
    co_return Success;
}

} // namespace Paddock::Ctl
