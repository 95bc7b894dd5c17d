#include "ctl.h"

#include "backends/docker/dockerbackend.h"
#include "backends/local/localbackend.h"
#include "backends/opensandbox/opensandboxbackend.h"
#include "bootstraplog.h"
#include "isolation.h"
#include "provisioner.h"
#include "renewal.h"
#include "workspacemanager.h"

#include <QCoroTask>
#include <QCoroTimer>

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>

#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>

namespace Paddock::Ctl {

namespace {

struct Tr
{
    Q_DECLARE_TR_FUNCTIONS(paddockctl)
};

using namespace std::chrono_literals;

void write(std::FILE *stream, const QByteArray &bytes)
{
    std::fwrite(bytes.constData(), 1, static_cast<size_t>(bytes.size()), stream);
    std::fflush(stream);
}

void out(const QString &line)
{
    write(stdout, line.toUtf8() + '\n');
}

void err(const QString &line)
{
    write(stderr, QByteArrayLiteral("paddockctl: ") + line.toUtf8() + '\n');
}

struct CommandSpec
{
    const char *name;
    const char *synopsis;
    std::initializer_list<const char *> options; // command options it accepts
    int minArgs;
    int maxArgs; // -1: any number
};

const std::array<CommandSpec, 11> Commands{{
    {"assign-id",
     "--isolation per_agent|per_session|per_user --user U --agent A [--session S]",
     {"isolation", "user", "agent", "session"},
     0,
     0},
    {"open",
     "--user U --agent A [--session S] [--workspace-id ID] [--isolation P]",
     {"user", "agent", "session", "workspace-id", "isolation"},
     0,
     0},
    {"list", "[--json]", {"json"}, 0, 0},
    {"pause", "ID...", {}, 1, -1},
    {"resume", "ID...", {}, 1, -1},
    {"close", "ID...", {}, 1, -1},
    {"kill", "ID... [--delete-files]", {"delete-files"}, 1, -1},
    {"renew", "ID --seconds N [--allow-shorter]", {"seconds", "allow-shorter"}, 1, 1},
    {"sweep", "--idle SECONDS [--dry-run]", {"idle", "dry-run"}, 0, 0},
    {"logs", "ID [--follow]", {"follow"}, 1, 1},
    {"help", "", {}, 0, 0},
}};

const std::array<const char *, 10> GlobalOptions{"backend",         "basedir",    "bootstrap",        "bubblewrap",
                                                 "domain",          "protocol",   "use-server-proxy", "image",
                                                 "sandbox-timeout", "docker-host"};

const CommandSpec *findCommand(const QString &name)
{
    const auto it = std::find_if(Commands.cbegin(), Commands.cend(),
                                 [&name](const CommandSpec &spec) { return name == QLatin1String(spec.name); });
    return it == Commands.cend() ? nullptr : &*it;
}

QString commandNames()
{
    QStringList names;
    for (const auto &spec : Commands)
        names.append(QLatin1String(spec.name));
    return names.join(QStringLiteral(", "));
}

QString helpText()
{
    QString text = Tr::tr("Usage: paddockctl [global options] <command> [options]\n"
                          "\n"
                          "Manage agent workspaces from the command line.\n"
                          "\n"
                          "Commands:\n");
    for (const auto &spec : Commands) {
        if (qstrcmp(spec.name, "help") == 0)
            continue;
        text += QStringLiteral("  %1 %2\n").arg(QLatin1String(spec.name), QLatin1String(spec.synopsis));
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

QString jsonTime(const QDateTime &time)
{
    return time.isValid() ? time.toUTC().toString(Qt::ISODateWithMs) : QString();
}

QJsonValue jsonTimeOrNull(const QDateTime &time)
{
    return time.isValid() ? QJsonValue(jsonTime(time)) : QJsonValue(QJsonValue::Null);
}

QString idleText(std::chrono::seconds idle)
{
    const auto hours = std::chrono::duration_cast<std::chrono::hours>(idle);
    const auto minutes = std::chrono::duration_cast<std::chrono::minutes>(idle - hours);
    const auto seconds = idle - hours - minutes;
    // In the user's language and number format ("5m 3s", "5 分 3 秒").
    const QLocale locale;
    if (hours.count() > 0)
        return Tr::tr("%1h %2m").arg(locale.toString(qint64(hours.count())), locale.toString(qint64(minutes.count())));
    if (minutes.count() > 0)
        return Tr::tr("%1m %2s").arg(locale.toString(qint64(minutes.count())),
                                     locale.toString(qint64(seconds.count())));
    return Tr::tr("%1s").arg(locale.toString(qint64(seconds.count())));
}

std::optional<qint64> parseCount(const QString &text)
{
    bool ok = false;
    const qint64 value = text.toLongLong(&ok);
    if (!ok || value < 0)
        return std::nullopt;
    return value;
}

// Everything one invocation works with.
class Session
{
public:
    QCommandLineParser parser;
    const CommandSpec *command = nullptr;
    QStringList args;
    std::unique_ptr<Backend> backend;
    LocalBackend *local = nullptr; // the backend, when it is the local one
    Docker::DockerBackend *docker = nullptr; // the backend, when it is Docker
    std::unique_ptr<BootstrapLogStore> logs;

    bool has(const char *option) const { return parser.isSet(QLatin1String(option)); }
    QString value(const char *option) const { return parser.value(QLatin1String(option)); }

    // --isolation, or the default policy when it is not given.
    Result<IsolationPolicy> isolation() const
    {
        return has("isolation") ? parseIsolationPolicy(value("isolation"))
                                : Result<IsolationPolicy>(DefaultIsolationPolicy);
    }

    int usage(const QString &message) const
    {
        err(message);
        if (command) {
            write(stderr,
                  Tr::tr("usage: paddockctl %1 %2\n")
                      .arg(QLatin1String(command->name), QLatin1String(command->synopsis))
                      .toUtf8());
        } else {
            write(stderr, Tr::tr("Run 'paddockctl --help' for the commands.\n").toUtf8());
        }
        return Usage;
    }

    // An operation's error: a usage error when the input was bad, else a failure.
    int failed(const QString &what, const Error &error) const
    {
        err(what.isEmpty() ? error.message : what + QStringLiteral(": ") + error.message);
        return error.kind == Error::Kind::InvalidArgument ? Usage : Failure;
    }

    QCoro::Task<Result<SandboxInfo>> find(const QString &workspaceId) const
    {
        ListFilter filter;
        filter.workspaceId = workspaceId;
        auto found = co_await backend->list(filter);
        if (!found)
            co_return fail(found.error());
        if (found->isEmpty())
            co_return fail(Error::notFound(Tr::tr("no workspace %1").arg(workspaceId)));
        std::sort(found->begin(), found->end(),
                  [](const SandboxInfo &a, const SandboxInfo &b) { return a.createdAt > b.createdAt; });
        co_return found->constFirst();
    }
};

int assignId(Session &s)
{
    const auto policy = s.isolation();
    if (!policy)
        return s.usage(policy.error().message);
    if (!s.has("user") || !s.has("agent"))
        return s.usage(Tr::tr("assign-id needs --user and --agent"));
    for (const auto &[what, id] :
         {std::pair{Principal::User, s.value("user")}, std::pair{Principal::Agent, s.value("agent")}}) {
        if (auto valid = validatePrincipalId(what, id); !valid)
            return s.usage(valid.error().message);
    }
    out(assignWorkspaceId(*policy, s.value("user"), s.value("agent"), s.value("session")));
    return Success;
}

QCoro::Task<int> open(Session &s, ProvisionOptions options)
{
    const auto policy = s.isolation();
    if (!policy)
        co_return s.usage(policy.error().message);
    if (!s.has("user") || !s.has("agent"))
        co_return s.usage(Tr::tr("open needs --user and --agent"));

    WorkspaceRequest request;
    request.userId = s.value("user");
    request.agentId = s.value("agent");
    request.sessionId = s.value("session");
    if (s.has("workspace-id"))
        request.workspaceId = s.value("workspace-id");

    Provisioner provisioner(s.backend.get(), s.logs.get(), std::move(options));
    ManagerOptions managerOptions;
    managerOptions.isolation = *policy;
    WorkspaceManager manager(&provisioner, managerOptions);
    auto id = manager.resolveWorkspaceId(request);
    if (!id)
        co_return s.usage(id.error().message);
    if (s.local) {
        if (auto writable = s.local->checkWritable(); !writable)
            co_return s.usage(writable.error().message);
    }

    QObject::connect(
        s.logs.get(), &BootstrapLogStore::lineAppended, s.logs.get(),
        [](const QString &, const QString &, const LogLine &line) { write(stderr, line.serialize() + '\n'); });
    auto workspace = co_await manager.getWorkspace(request);
    if (!workspace)
        co_return s.failed(Tr::tr("cannot open workspace %1").arg(*id), workspace.error());
    // The workspace stays open (Running) for whoever uses it next; close or pause ends that.
    out((*workspace)->id());
    co_return Success;
}

QCoro::Task<int> list(Session &s)
{
    const ListFilter everything;
    auto all = co_await s.backend->list(everything);
    if (!all)
        co_return s.failed({}, all.error());
    if (s.has("json")) {
        QJsonArray rows;
        for (const SandboxInfo &info : std::as_const(*all)) {
            QJsonObject metadata;
            for (auto it = info.metadata.cbegin(); it != info.metadata.cend(); ++it)
                metadata.insert(it.key(), it.value());
            rows.append(QJsonObject{
                {QStringLiteral("workspaceId"), info.workspaceId},
                {QStringLiteral("sandboxId"), info.sandboxId},
                {QStringLiteral("state"), info.rawState.isEmpty() ? sandboxStateName(info.state) : info.rawState},
                {QStringLiteral("userId"), info.userId},
                {QStringLiteral("agentId"), info.agentId},
                {QStringLiteral("backend"), info.backend},
                {QStringLiteral("createdAt"), jsonTimeOrNull(info.createdAt)},
                {QStringLiteral("expiresAt"),
                 info.expiresAt ? jsonTimeOrNull(*info.expiresAt) : QJsonValue(QJsonValue::Null)},
                {QStringLiteral("lastActivityAt"), jsonTimeOrNull(info.lastActivityAt)},
                {QStringLiteral("metadata"), metadata},
            });
        }
        write(stdout, QJsonDocument(rows).toJson(QJsonDocument::Indented));
        co_return Success;
    }

    const QString format = QStringLiteral("%1  %2  %3  %4  %5  %6");
    out(format.arg(Tr::tr("WORKSPACE"), -32)
            .arg(Tr::tr("STATE"), -8)
            .arg(Tr::tr("USER"), -12)
            .arg(Tr::tr("AGENT"), -12)
            .arg(Tr::tr("CREATED"), -20)
            .arg(Tr::tr("LAST ACTIVITY")));
    for (const SandboxInfo &info : std::as_const(*all)) {
        out(format.arg(info.workspaceId, -32)
                .arg(info.rawState, -8)
                .arg(info.userId, -12)
                .arg(info.agentId, -12)
                .arg(info.createdAt.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")), -20)
                .arg(info.lastActivityAt.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))));
    }
    co_return Success;
}

// pause, resume, close and kill: each id on its own; one failure does not stop the rest.
QCoro::Task<int> lifecycle(Session &s)
{
    const QString command = QLatin1String(s.command->name);
    for (const QString &id : std::as_const(s.args)) {
        if (auto valid = validateWorkspaceId(id); !valid)
            co_return s.usage(valid.error().message);
    }
    int exitCode = Success;
    for (const QString &id : std::as_const(s.args)) {
        auto sandbox = co_await s.find(id);
        if (!sandbox) {
            s.failed(QStringLiteral("%1 %2").arg(command, id), sandbox.error());
            exitCode = Failure;
            continue;
        }
        Result<> done;
        QString report;
        if (command == QLatin1String("resume")) {
            auto resumed = co_await s.backend->resume(sandbox->sandboxId);
            done = resumed ? Result<>{} : fail(resumed.error());
            report = Tr::tr("%1 resumed").arg(id);
        } else if (command == QLatin1String("kill")) {
            const QString path = s.backend->layout(*sandbox).workdir;
            done = co_await s.backend->kill(sandbox->sandboxId, KillOptions{});
            report = s.local ? Tr::tr("%1 killed; deleted %2").arg(id, path)
                             : Tr::tr("%1 killed; deleted sandbox %2").arg(id, sandbox->sandboxId);
            if (done && s.docker) {
                // The container is gone; its files stay on the host unless asked.
                const QString folder = s.docker->hostFolder(id).value_or(QString());
                if (s.has("delete-files")) {
                    done = s.docker->deleteFolder(id);
                    report =
                        Tr::tr("%1 killed; deleted container %2 and %3").arg(id, sandbox->sandboxId.left(12), folder);
                } else {
                    report =
                        Tr::tr("%1 killed; deleted container %2, kept %3").arg(id, sandbox->sandboxId.left(12), folder);
                }
            }
        } else {
            // close = pause the backend (there is no manager cache to evict from here).
            done = co_await s.backend->pause(sandbox->sandboxId);
            report = command == QLatin1String("close") ? Tr::tr("%1 closed").arg(id) : Tr::tr("%1 paused").arg(id);
        }
        if (!done) {
            s.failed(QStringLiteral("%1 %2").arg(command, id), done.error());
            exitCode = Failure;
            continue;
        }
        out(report);
    }
    co_return exitCode;
}

QCoro::Task<int> renew(Session &s)
{
    const QString id = s.args.constFirst();
    if (auto valid = validateWorkspaceId(id); !valid)
        co_return s.usage(valid.error().message);
    if (!s.has("seconds"))
        co_return s.usage(Tr::tr("renew needs --seconds N"));
    const auto seconds = parseCount(s.value("seconds"));
    if (!seconds || *seconds == 0)
        co_return s.usage(Tr::tr("--seconds takes a positive whole number, not \"%1\"").arg(s.value("seconds")));
    auto sandbox = co_await s.find(id);
    if (!sandbox)
        co_return s.failed(QStringLiteral("renew %1").arg(id), sandbox.error());
    // now + N, as the SDKs renew; it may come before the current expiry, which only
    // --allow-shorter may do. The current expiry is the backend's, asked now.
    auto current = co_await s.backend->get(sandbox->sandboxId);
    if (!current)
        co_return s.failed(QStringLiteral("renew %1").arg(id), current.error());
    const Renewal plan = planRenewal(current->expiresAt, QDateTime::currentDateTimeUtc(), RenewMode::FromNow,
                                     std::chrono::seconds(*seconds));
    if (plan.shortens && !s.has("allow-shorter")) {
        err(Tr::tr("renew %1: now + %2 s is %3, earlier than its current expiry %4; nothing was changed "
                   "(give --allow-shorter to shorten it)")
                .arg(id)
                .arg(*seconds)
                .arg(jsonTime(plan.expiresAt), jsonTime(*current->expiresAt)));
        co_return Failure;
    }
    auto renewed = co_await s.backend->renew(sandbox->sandboxId, plan.fromNow);
    if (!renewed)
        co_return s.failed(QStringLiteral("renew %1").arg(id), renewed.error());
    out(Tr::tr("%1 expires at %2").arg(id, renewed->expiresAt ? jsonTime(*renewed->expiresAt) : Tr::tr("never")));
    co_return Success;
}

QCoro::Task<int> sweep(Session &s)
{
    if (!s.has("idle"))
        co_return s.usage(Tr::tr("sweep needs --idle SECONDS"));
    const auto idle = parseCount(s.value("idle"));
    if (!idle)
        co_return s.usage(Tr::tr("--idle takes a whole number of seconds, not \"%1\"").arg(s.value("idle")));
    ListFilter running;
    running.states = {SandboxState::Running};
    auto all = co_await s.backend->list(running);
    if (!all)
        co_return s.failed({}, all.error());

    const QDateTime now = QDateTime::currentDateTimeUtc();
    const bool dryRun = s.has("dry-run");
    int exitCode = Success;
    for (const SandboxInfo &info : std::as_const(*all)) {
        const std::chrono::seconds idleFor(info.lastActivityAt.isValid() ? info.lastActivityAt.secsTo(now) : 0);
        if (idleFor.count() <= *idle)
            continue;
        if (dryRun) {
            out(Tr::tr("%1 would be paused (idle %2)").arg(info.workspaceId, idleText(idleFor)));
            continue;
        }
        if (auto paused = co_await s.backend->pause(info.sandboxId); !paused) {
            s.failed(QStringLiteral("pause %1").arg(info.workspaceId), paused.error());
            exitCode = Failure;
            continue;
        }
        out(Tr::tr("%1 paused (idle %2)").arg(info.workspaceId, idleText(idleFor)));
    }
    co_return exitCode;
}

QCoro::Task<int> logs(Session &s)
{
    const QString id = s.args.constFirst();
    if (auto valid = validateWorkspaceId(id); !valid)
        co_return s.usage(valid.error().message);
    QFile file(s.logs->path(s.backend->instanceKey(), id));
    const bool follow = s.has("follow");
    if (!file.exists() && !follow)
        co_return s.failed({}, Error::notFound(Tr::tr("there is no bootstrap log for workspace %1").arg(id)));

    qint64 offset = 0;
    for (;;) {
        if (!file.isOpen() && file.exists() && !file.open(QIODevice::ReadOnly))
            co_return s.failed({}, Error::io(Tr::tr("cannot read %1: %2").arg(file.fileName(), file.errorString())));
        if (file.isOpen()) {
            if (file.size() < offset)
                offset = 0; // the log was replaced: start over
            file.seek(offset);
            QByteArray chunk = file.readAll();
            if (follow) {
                // Only whole lines: the rest comes with the next read.
                chunk.truncate(chunk.lastIndexOf('\n') + 1);
            }
            offset += chunk.size();
            write(stdout, chunk);
        }
        if (!follow)
            co_return Success;
        co_await QCoro::sleepFor(200ms);
        if (file.isOpen() && !file.exists())
            file.close(); // deleted meanwhile: wait for a new one
    }
}

} // namespace

QCoro::Task<int> run(QStringList arguments)
{
    Session s;
    QCommandLineParser &parser = s.parser;
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption help(QStringList{QStringLiteral("h"), QStringLiteral("help")});
    const QCommandLineOption version(QStringLiteral("version"));
    parser.addOptions({
        help,
        version,
        {QStringLiteral("backend"), {}, QStringLiteral("name")},
        {QStringLiteral("basedir"), {}, QStringLiteral("dir")},
        {QStringLiteral("bootstrap"), {}, QStringLiteral("file")},
        {QStringLiteral("bubblewrap"), {}},
        {QStringLiteral("domain"), {}, QStringLiteral("host")},
        {QStringLiteral("protocol"), {}, QStringLiteral("scheme")},
        {QStringLiteral("use-server-proxy"), {}},
        {QStringLiteral("image"), {}, QStringLiteral("image")},
        {QStringLiteral("sandbox-timeout"), {}, QStringLiteral("seconds")},
        {QStringLiteral("docker-host"), {}, QStringLiteral("url")},
        {QStringLiteral("delete-files"), {}},
        {QStringLiteral("isolation"), {}, QStringLiteral("policy")},
        {QStringLiteral("user"), {}, QStringLiteral("id")},
        {QStringLiteral("agent"), {}, QStringLiteral("id")},
        {QStringLiteral("session"), {}, QStringLiteral("id")},
        {QStringLiteral("workspace-id"), {}, QStringLiteral("id")},
        {QStringLiteral("json"), {}},
        {QStringLiteral("seconds"), {}, QStringLiteral("n")},
        {QStringLiteral("allow-shorter"), {}},
        {QStringLiteral("idle"), {}, QStringLiteral("seconds")},
        {QStringLiteral("dry-run"), {}},
        {QStringLiteral("follow"), {}},
    });
    if (!parser.parse(arguments))
        co_return s.usage(parser.errorText());
    if (parser.isSet(version)) {
        out(QStringLiteral("paddockctl %1").arg(QCoreApplication::applicationVersion()));
        co_return Success;
    }
    QStringList positional = parser.positionalArguments();
    if (parser.isSet(help) || (!positional.isEmpty() && positional.constFirst() == QLatin1String("help"))) {
        write(stdout, helpText().toUtf8());
        co_return Success;
    }
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
        const auto matches = [&option](const char *candidate) { return option == candidate; };
        const bool global = std::any_of(GlobalOptions.cbegin(), GlobalOptions.cend(), matches);
        const bool own = std::any_of(s.command->options.begin(), s.command->options.end(), matches);
        if (!global && !own)
            co_return s.usage(Tr::tr("option --%1 does not apply to %2").arg(name, QLatin1String(s.command->name)));
    }

    if (qstrcmp(s.command->name, "assign-id") == 0)
        co_return assignId(s);

    const QString backendName = s.has("backend") ? s.value("backend") : QStringLiteral("local");
    const bool openSandbox = backendName == QLatin1String("opensandbox");
    const bool docker = backendName == QLatin1String("docker");
    if (backendName != QLatin1String("local") && !openSandbox && !docker) {
        co_return s.usage(Tr::tr("unknown backend \"%1\"; valid choices: %2")
                              .arg(backendName, QStringLiteral("local, opensandbox, docker")));
    }
    const auto only = [&s](const char *option, const char *backend) {
        return s.usage(
            Tr::tr("option --%1 applies to the %2 backend only").arg(QLatin1String(option), QLatin1String(backend)));
    };
    if (s.has("bubblewrap") && backendName != QLatin1String("local"))
        co_return only("bubblewrap", "local");
    if (s.has("basedir") && openSandbox)
        co_return s.usage(Tr::tr("option --basedir applies to the local and docker backends only"));
    if (s.has("image") && !openSandbox && !docker)
        co_return s.usage(Tr::tr("option --image applies to the opensandbox and docker backends only"));
    for (const char *option : {"domain", "protocol", "use-server-proxy", "sandbox-timeout"}) {
        if (!openSandbox && s.has(option))
            co_return only(option, "opensandbox");
    }
    for (const char *option : {"docker-host", "delete-files"}) {
        if (!docker && s.has(option))
            co_return only(option, "docker");
    }
    if (s.has("basedir") && s.value("basedir").isEmpty())
        co_return s.usage(Tr::tr("--basedir needs a folder"));

    ProvisionOptions provisionOptions;
    if (s.has("bootstrap")) {
        QFile file(s.value("bootstrap"));
        if (!file.open(QIODevice::ReadOnly))
            co_return s.usage(Tr::tr("cannot read the bootstrap file %1: %2").arg(file.fileName(), file.errorString()));
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
                co_return s.usage(Tr::tr("--protocol takes http or https, not \"%1\"").arg(s.value("protocol")));
        }
        if (auto valid = OpenSandbox::validateDomain(options.connection.resolved()); !valid)
            co_return s.usage(valid.error().message);
        if (s.has("image")) {
            if (s.value("image").trimmed().isEmpty())
                co_return s.usage(Tr::tr("--image needs an image name"));
            options.sandbox.image = s.value("image");
        }
        if (s.has("sandbox-timeout")) {
            const auto seconds = parseCount(s.value("sandbox-timeout"));
            if (!seconds || (*seconds != 0 && *seconds < 60)) {
                co_return s.usage(Tr::tr("--sandbox-timeout takes 0 (never expire) or at least 60 seconds, not \"%1\"")
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
                co_return s.usage(valid.error().message);
        }
        options.image = s.has("image") ? s.value("image").trimmed() : QString(Docker::DockerOptions::DefaultImage);
        if (options.image.isEmpty())
            co_return s.usage(Tr::tr("--image needs an image name"));
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

    const QLatin1String name(s.command->name);
    if (name == QLatin1String("open"))
        co_return co_await open(s, std::move(provisionOptions));
    if (name == QLatin1String("list"))
        co_return co_await list(s);
    if (name == QLatin1String("renew"))
        co_return co_await renew(s);
    if (name == QLatin1String("sweep"))
        co_return co_await sweep(s);
    if (name == QLatin1String("logs"))
        co_return co_await logs(s);
    co_return co_await lifecycle(s);
}

} // namespace Paddock::Ctl
