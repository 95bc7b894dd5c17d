// help (and --help): the commands of the table with their synopses, then the global options.

#include "command.h"

#include "backends/docker/dockerbackend.h"
#include "backends/local/localbackend.h"

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
        if (qstrcmp(command.name, "help") == 0)
            continue;
        text += QStringLiteral("  %1 %2\n").arg(QLatin1String(command.name), QLatin1String(command.synopsis));
    }
    text += Tr::tr("\n"
                   "renew sets the expiry to now + N seconds. When that is earlier than the current\n"
                   "expiry, it changes nothing and fails, unless --allow-shorter is given.\n");
    text += Tr::tr("\n"
                   "Global options:\n"
                   "  --backend local|opensandbox|docker  where workspaces live (default: local)\n"
                   "  --bootstrap FILE       bootstrap commands, one shell command per line\n"
                   "                         (an empty file means none; default: none on local,\n"
                   "                         AgentScope's bootstrap on OpenSandbox)\n"
                   "\n"
                   "Local backend:\n"
                   "  --basedir DIR          the base folder (default: %1)\n"
                   "  --bubblewrap           run commands inside bubblewrap (bwrap)\n"
                   "\n"
                   "OpenSandbox backend (API key from OPEN_SANDBOX_API_KEY):\n"
                   "  --domain HOST[:PORT]   the server (default: OPEN_SANDBOX_DOMAIN, else localhost:8080)\n"
                   "  --protocol http|https  (default: http)\n"
                   "  --use-server-proxy     reach execd through the server's proxy\n"
                   "  --image IMAGE          image of new sandboxes (default: python:3.11-slim)\n"
                   "  --sandbox-timeout N    seconds until a new sandbox expires; 0: never (default: 1800)\n"
                   "\n"
                   "Docker backend:\n"
                   "  --docker-host URL      the engine: unix:///path or tcp://host:port\n"
                   "                         (default: DOCKER_HOST, else unix:///var/run/docker.sock)\n"
                   "  --image IMAGE          image of new containers; it must be on the engine\n"
                   "                         (default: debian:bookworm-slim)\n"
                   "  --basedir DIR          host folder for the workspaces' /workspace (default: %2)\n"
                   "  kill --delete-files    also delete the workspace's host folder\n"
                   "\n"
                   "  --help, --version\n"
                   "\n"
                   "Exit codes: 0 success, 1 the operation failed, 2 usage error.\n")
                .arg(LocalBackend::defaultBasedir(), Docker::DockerBackend::defaultBasedir());
    return text;
}

} // namespace

QCoro::Task<int> runHelp(Session &)
{
    write(stdout, helpText().toUtf8());
    co_return Success;
}

} // namespace Paddock::Ctl
