#include "dockerbackend.h"

#include "../../agentscopelayout.h"
#include "../../bulk.h"
#include "../../canceltoken.h"
#include "../../execgroup.h"
#include "../../isolation.h"
#include "../../linesplitter.h"
#include "../../logging.h"
#include "../../tr.h"
#include "dockerclient.h"
#include "timelimit.h"

#include <QCoroTask>
#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSet>
#include <QStandardPaths>
#include <QUuid>
#include <QtConcurrent>

#include <unistd.h>

namespace Paddock::Docker {

namespace {

Q_LOGGING_CATEGORY(lcDocker, "paddock.core.docker")

SandboxState stateOf(const QString &status)
{
    if (status == QLatin1String("running"))
        return SandboxState::Running;
    // A stopped container keeps its files and starts again on resume: to the workspace
    // contract it is paused (rawState says which).
    if (status == QLatin1String("paused") || status == QLatin1String("exited") || status == QLatin1String("created"))
        return SandboxState::Paused;
    if (status == QLatin1String("restarting"))
        return SandboxState::Resuming;
    if (status == QLatin1String("removing"))
        return SandboxState::Stopping;
    if (status == QLatin1String("dead"))
        return SandboxState::Failed;
    return SandboxState::Unknown;
}

SandboxInfo toSandbox(const ContainerInfo &container)
{
    SandboxInfo info;
    info.sandboxId = container.id;
    info.workspaceId = container.labels.value(WorkspaceIdKey);
    info.userId = container.labels.value(UserIdKey);
    info.agentId = container.labels.value(AgentIdKey);
    info.state = stateOf(container.status);
    info.rawState = container.status;
    info.backend = QStringLiteral("docker");
    info.image = container.image;
    info.createdAt = container.created;
    info.metadata = container.labels;
    info.fingerprint = fingerprintOf(info);
    return info;
}

// Container names allow [a-zA-Z0-9][a-zA-Z0-9_.-]*; ids that fit get a readable name.
QString containerName(const QString &workspaceId)
{
    static const QRegularExpression allowed(QStringLiteral("^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,100}$"));
    return allowed.match(workspaceId).hasMatch() ? QStringLiteral("paddock-") + workspaceId : QString();
}

// AgentScope's layout (`_docker/_docker_workspace.py`): the container of a workspace is named
// as_ws_<workspace id> and carries these two labels, and nothing else.
constexpr QLatin1String AgentScopeLabel{"agentscope.workspace"};
constexpr QLatin1String AgentScopeNamePrefix{"as_ws_"};
// The raw state of a closed workspace's folder (no container).
constexpr QLatin1String StoppedState{"Stopped"};

QString agentscopeName(const QString &workspaceId)
{
    return AgentScopeNamePrefix + workspaceId;
}

// The id AgentScope's DockerWorkspaceManager gives (user, agent): assign_workspace_id under PER_AGENT
// (the only isolation this layout takes).
QString agentscopeWorkspaceId(const QString &userId, const QString &agentId)
{
    return assignWorkspaceId(IsolationPolicy::PerAgent, userId, agentId);
}

// A folder <basedir>/<user id>/<agent id> that holds an AgentScope workspace.
struct AgentFolder
{
    QString userId;
    QString agentId;
    QString path;
    QDateTime created;
};

// Every such folder (names that can be ids only). Reads the disk: on a worker thread.
QList<AgentFolder> scanAgentFolders(const QString &basedir)
{
    QList<AgentFolder> found;
    const auto filters = QDir::Dirs | QDir::NoDotAndDotDot | QDir::NoSymLinks;
    for (const QString &user : QDir(basedir).entryList(filters, QDir::Name)) {
        if (!validateAgentScopeFolderName(Principal::User, user) || user.contains(u':'))
            continue;
        const QString userFolder = basedir + u'/' + user;
        for (const QString &agent : QDir(userFolder).entryList(filters, QDir::Name)) {
            if (!validateAgentScopeFolderName(Principal::Agent, agent) || agent.contains(u':'))
                continue;
            const QString path = userFolder + u'/' + agent;
            if (!holdsAgentScopeWorkspace(path))
                continue;
            const QFileInfo info(path);
            found.append(
                {user, agent, path, (info.birthTime().isValid() ? info.birthTime() : info.lastModified()).toUTC()});
        }
    }
    return found;
}

// A closed workspace of AgentScope's layout: its folder, listed under the container it would have.
SandboxInfo stoppedInfo(const AgentFolder &folder)
{
    SandboxInfo info;
    info.workspaceId = agentscopeWorkspaceId(folder.userId, folder.agentId);
    info.sandboxId = agentscopeName(info.workspaceId);
    info.userId = folder.userId;
    info.agentId = folder.agentId;
    info.state = SandboxState::Paused;
    info.rawState = StoppedState;
    info.backend = QStringLiteral("docker");
    info.createdAt = folder.created;
    info.metadata.insert(AgentScopeLabel, QStringLiteral("true"));
    info.metadata.insert(WorkspaceIdKey, info.workspaceId);
    info.fingerprint = fingerprintOf(info);
    return info;
}

bool isStoppedFolder(const SandboxInfo &info)
{
    return info.rawState == StoppedState;
}

QString utcText(const QDateTime &time)
{
    return time.toUTC().toString(Qt::ISODateWithMs);
}

// A count of CPUs as a decimal without trailing zeros ("1", "0.5", "1.25").
QString cpuText(qint64 numerator, qint64 denominator)
{
    QString text = QString::number(double(numerator) / double(denominator), 'f', 6);
    while (text.endsWith(u'0'))
        text.chop(1);
    if (text.endsWith(u'.'))
        text.chop(1);
    return text;
}

// Bytes in the largest binary unit that holds them exactly, as Kubernetes writes quantities
// ("2Gi", "512Mi"); bytes as a number otherwise.
QString bytesText(qint64 bytes)
{
    const std::pair<qint64, const char *> units[] = {
        {qint64(1) << 40, "Ti"}, {qint64(1) << 30, "Gi"}, {qint64(1) << 20, "Mi"}, {qint64(1) << 10, "Ki"}};
    for (const auto &[size, unit] : units) {
        if (bytes % size == 0)
            return QString::number(bytes / size) + QLatin1String(unit);
    }
    return QString::number(bytes);
}

// What an inspection says beyond the sandbox, for the inspector's overview.
void describeContainer(const ContainerInfo &container, const QString &engine, SandboxDetails &details)
{
    const ContainerInfo::Inspected &in = container.inspected;
    const bool ended = container.status == QLatin1String("exited") || container.status == QLatin1String("dead");
    // OOMKilled is the engine's own word (Kubernetes says it too); an exit code is Paddock's sentence.
    if (in.oomKilled)
        details.stateReason = QStringLiteral("OOMKilled");
    else if (ended)
        details.stateReason = Tr::tr("exit code %1").arg(in.exitCode);
    details.stateMessage = in.error;

    if (in.nanoCpus > 0)
        details.resources.append({QStringLiteral("cpu"), cpuText(in.nanoCpus, 1'000'000'000)});
    else if (in.cpuQuota > 0)
        details.resources.append(
            {QStringLiteral("cpu"), cpuText(in.cpuQuota, in.cpuPeriod > 0 ? in.cpuPeriod : 100'000)});
    if (in.memory > 0)
        details.resources.append({QStringLiteral("memory"), bytesText(in.memory)});
    if (in.pidsLimit > 0)
        details.resources.append({QStringLiteral("pids"), QString::number(in.pidsLimit)});

    details.endpoints.append({Tr::tr("Docker engine"), engine});
    for (const auto &[network, address] : in.addresses)
        details.endpoints.append({network, address});

    details.facts.append({Tr::tr("Container"), container.id.left(12)});
    details.facts.append({Tr::tr("Name"), container.name});
    if (in.startedAt.isValid())
        details.facts.append({Tr::tr("Started"), utcText(in.startedAt)});
    if (in.finishedAt.isValid() && container.status != QLatin1String("running")
        && container.status != QLatin1String("paused"))
        details.facts.append({Tr::tr("Finished"), utcText(in.finishedAt)});
    if (in.restartCount > 0)
        details.facts.append({Tr::tr("Restarts"), QString::number(in.restartCount)});
    const QString workspace(DockerBackend::Workdir);
    if (container.mounts.contains(workspace))
        details.facts.append(
            {Tr::tr("Host folder"), container.mounts.value(workspace) + QStringLiteral(" → ") + workspace});
    if (!in.networkMode.isEmpty())
        details.facts.append({Tr::tr("Network"), in.networkMode});
}

} // namespace

DockerBackend::DockerBackend(DockerOptions options, QObject *parent)
    : Backend(parent)
    , m_options(std::move(options))
    , m_basedir(m_options.basedir.isEmpty() ? defaultBasedir() : QDir::cleanPath(m_options.basedir))
    , m_address(m_options.dockerHost.isEmpty() ? EngineAddress::fromEnvironment()
                                               : EngineAddress::parse(m_options.dockerHost))
{
    if (m_address) {
        m_http = std::make_unique<CurlHttpClient>(*m_address);
        m_client = std::make_unique<DockerClient>(m_http.get());
    }
    // AgentScope binds os.path.abspath(<basedir>/<user>/<agent>), and the mounts say it so.
    if (agentscope())
        m_basedir = QDir::cleanPath(QDir(m_basedir).absolutePath());
}

DockerBackend::~DockerBackend()
{
    // Every request in flight ends now, as Cancelled, while the client and everything their
    // coroutines come back to still exist; what those coroutines ask next (a create's clean-up)
    // fails at once. Left to the members' destructors, the requests would end after the Docker
    // client was gone, and resume into it.
    if (m_http)
        m_http->close();
    m_waits.close();
}

QString DockerBackend::defaultBasedir()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation)
        + QStringLiteral("/paddock/docker-workspaces");
}

Result<> DockerBackend::usable() const
{
    if (!m_address)
        return fail(m_address.error());
    return {};
}

QCoro::Task<Result<>> DockerBackend::ping()
{
    if (auto ok = usable(); !ok)
        co_return ok;
    co_return co_await m_client->ping();
}

QString DockerBackend::name() const
{
    return QStringLiteral("docker");
}

QString DockerBackend::instanceKey() const
{
    const QString engine = m_address ? m_address->display() : m_options.dockerHost;
    return QStringLiteral("docker-") + blake2b64Hex((engine + u'\x1f' + m_basedir).toUtf8());
}

WorkspaceLayout DockerBackend::layout(const SandboxInfo &) const
{
    if (agentscope()) {
        // AgentScope's gateway home is in the container, not on the bind mount: Paddock's marker
        // goes with the container, so every new container (after a close) bootstraps again.
        const QString home = AgentScopeGatewayHome;
        return {QString(Workdir), home, home + QStringLiteral("/.bootstrap-complete"), {}};
    }
    const QString workdir = Workdir;
    const QString gatewayHome = workdir + QStringLiteral("/.agentscope");
    // No AgentScope marker: AgentScope's Docker workspaces bake their gateway into the image and
    // keep it elsewhere (/root/.agentscope), so they never share a container with these.
    return {workdir, gatewayHome, gatewayHome + QStringLiteral("/.bootstrap-complete"), {}};
}

Result<QString> DockerBackend::hostFolder(const QString &workspaceId) const
{
    if (auto valid = validateWorkspaceId(workspaceId); !valid)
        return fail(valid.error());
    return m_basedir + u'/' + workspaceId;
}

Result<QString> DockerBackend::agentscopeFolder(const QString &userId, const QString &agentId) const
{
    if (auto valid = validateAgentScopeFolderName(Principal::User, userId); !valid)
        return fail(valid.error());
    if (auto valid = validateAgentScopeFolderName(Principal::Agent, agentId); !valid)
        return fail(valid.error());
    for (const QString &id : {userId, agentId}) {
        if (id.contains(u':')) {
            return fail(Error::invalidArgument(
                Tr::tr("\"%1\" holds a colon, which a Docker bind mount of its folder cannot carry").arg(id)));
        }
    }
    return m_basedir + u'/' + userId + u'/' + agentId;
}

SandboxInfo DockerBackend::sandboxOf(const ContainerInfo &container) const
{
    SandboxInfo info = toSandbox(container);
    if (!agentscope())
        return info;
    // Found by its name (which a close and a new container keep), and its user and agent read
    // from <basedir>/<user id>/<agent id>, the only place AgentScope writes them.
    if (!container.name.isEmpty())
        info.sandboxId = container.name;
    info.userId.clear();
    info.agentId.clear();
    const QString source = QDir::cleanPath(container.mounts.value(QString(Workdir)));
    if (source.startsWith(m_basedir + u'/')) {
        const QStringList parts = source.mid(m_basedir.size() + 1).split(u'/');
        if (parts.size() == 2) {
            info.userId = parts.at(0);
            info.agentId = parts.at(1);
        }
    }
    info.fingerprint = fingerprintOf(info);
    return info;
}

Result<> DockerBackend::deleteFolder(const QString &workspaceId) const
{
    auto folder = hostFolder(workspaceId);
    if (!folder)
        return fail(folder.error());
    return removeFolder(*folder);
}

Result<> DockerBackend::removeFolder(const QString &folder)
{
    if (!QFileInfo::exists(folder) || QDir(folder).removeRecursively())
        return {};
    // Name something that stayed: what a container wrote as root, a user cannot delete.
    QDirIterator left(folder, QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System,
                      QDirIterator::Subdirectories);
    const QString example = left.hasNext() ? left.next() : folder;
    return fail(Error::io(Tr::tr("could not delete all of %1: %2 is still there (files that a container wrote as "
                                 "root may need root to delete)")
                              .arg(folder, example)));
}

QCoro::Task<Result<QList<SandboxInfo>>> DockerBackend::list(ListFilter filter)
{
    if (auto ok = usable(); !ok)
        co_return fail(ok.error());
    if (agentscope())
        co_return co_await listAgentScope(std::move(filter));
    QMap<QString, QString> labels;
    labels.insert(WorkspaceIdKey, filter.workspaceId.value_or(QString()));
    auto containers = co_await m_client->list(labels);
    if (!containers)
        co_return fail(containers.error());
    QList<SandboxInfo> sandboxes;
    for (const ContainerInfo &container : std::as_const(*containers)) {
        SandboxInfo info = toSandbox(container);
        if (filter.states.isEmpty() || filter.states.contains(info.state))
            sandboxes.append(std::move(info));
    }
    co_return sandboxes;
}

QCoro::Task<Result<QList<SandboxInfo>>> DockerBackend::listAgentScope(ListFilter filter)
{
    // AgentScope's containers carry agentscope.workspace=true (Paddock's own layout does not).
    QMap<QString, QString> labels;
    labels.insert(AgentScopeLabel, QStringLiteral("true"));
    auto containers = co_await m_client->list(labels);
    if (!containers)
        co_return fail(containers.error());
    QList<SandboxInfo> sandboxes;
    QSet<QString> mounted; // the folders a container holds
    QSet<QString> names; // and the sandbox ids those containers take
    const auto wanted = [&filter](const SandboxInfo &info) {
        return (!filter.workspaceId || info.workspaceId == *filter.workspaceId)
            && (filter.states.isEmpty() || filter.states.contains(info.state));
    };
    for (const ContainerInfo &container : std::as_const(*containers)) {
        SandboxInfo info = sandboxOf(container);
        if (container.mounts.contains(QString(Workdir)))
            mounted.insert(QDir::cleanPath(container.mounts.value(QString(Workdir))));
        names.insert(info.sandboxId);
        if (wanted(info))
            sandboxes.append(std::move(info));
    }
    // Then the folders that no container holds: closed workspaces (AgentScope removes the
    // container on close). Read on a worker thread and waited for through m_waits, so a backend
    // destroyed meanwhile waits for the scan; only locals after it.
    const QString basedir = m_basedir;
    QFuture<QList<AgentFolder>> scan = QtConcurrent::run(scanAgentFolders, basedir);
    QFuture<void> scanned(scan);
    co_await m_waits.finished(std::move(scanned), WaitSet::OnClose::Finish);
    const QList<AgentFolder> folders = scan.result();
    for (const AgentFolder &folder : folders) {
        if (mounted.contains(folder.path))
            continue;
        SandboxInfo info = stoppedInfo(folder);
        // Its container's name is taken by one over another folder (ids given by hand).
        if (names.contains(info.sandboxId))
            continue;
        if (wanted(info))
            sandboxes.append(std::move(info));
    }
    co_return sandboxes;
}

QCoro::Task<Result<SandboxInfo>> DockerBackend::get(QString sandboxId)
{
    if (auto ok = usable(); !ok)
        co_return fail(ok.error());
    auto container = co_await m_client->inspect(sandboxId);
    if (container)
        co_return sandboxOf(*container);
    if (!agentscope() || container.error().kind != Error::Kind::NotFound || !sandboxId.startsWith(AgentScopeNamePrefix))
        co_return fail(container.error());
    // AgentScope's layout: a closed workspace is its folder, under the container's name.
    ListFilter named;
    named.workspaceId = sandboxId.mid(AgentScopeNamePrefix.size());
    auto listed = co_await listAgentScope(std::move(named));
    if (!listed)
        co_return fail(listed.error());
    for (const SandboxInfo &info : std::as_const(*listed)) {
        if (info.sandboxId == sandboxId) {
            SandboxInfo folder = info; // GCC 12: never co_return what a reference names
            co_return folder;
        }
    }
    co_return fail(container.error());
}

QCoro::Task<Result<SandboxDetails>> DockerBackend::details(QString sandboxId)
{
    if (auto ok = usable(); !ok)
        co_return fail(ok.error());
    auto container = co_await m_client->inspect(sandboxId);
    if (container) {
        SandboxDetails details;
        details.sandbox = sandboxOf(*container);
        describeContainer(*container, m_client->address().display(), details);
        co_return details;
    }
    if (!agentscope() || container.error().kind != Error::Kind::NotFound)
        co_return fail(container.error());
    // AgentScope's layout: a closed workspace is its folder, found as get() finds it.
    auto closed = co_await get(sandboxId);
    if (!closed)
        co_return fail(closed.error());
    SandboxDetails details;
    details.sandbox = std::move(*closed);
    details.stateMessage = Tr::tr("closed: its container was removed and its folder kept; Resume makes the container "
                                  "again");
    if (const QString folder = hostFolder(details.sandbox); !folder.isEmpty())
        details.facts.append({Tr::tr("Host folder"), folder + QStringLiteral(" → ") + QString(Workdir)});
    co_return details;
}

QCoro::Task<Result<SandboxInfo>> DockerBackend::create(CreateSpec spec)
{
    if (auto ok = usable(); !ok)
        co_return fail(ok.error());
    // AgentScope's layout labels its containers with the two labels of AgentScope's alone: the
    // profile's metadata is not kept there.
    if (agentscope())
        co_return co_await startAgentScope(spec.workspaceId, spec.userId, spec.agentId);
    auto folder = hostFolder(spec.workspaceId);
    if (!folder)
        co_return fail(folder.error());
    if (m_options.image.isEmpty())
        co_return fail(Error::invalidArgument(Tr::tr("No image is set for new Docker containers.")));
    // Nothing is made before we know the image is there.
    auto present = co_await m_client->imageExists(m_options.image);
    if (!present)
        co_return fail(present.error());
    if (!*present) {
        co_return fail(Error::notFound(
            Tr::tr("The image %1 is not on the Docker engine at %2: pull, build or import it there first.")
                .arg(m_options.image, m_address->display())));
    }
    // A folder made here goes again if no container comes of it; one that was there (a killed
    // workspace's data) stays whatever happens.
    const bool folderWasThere = QFileInfo::exists(*folder);
    if (!QDir().mkpath(*folder))
        co_return fail(Error::io(Tr::tr("cannot create the workspace folder %1").arg(*folder)));
    const QString madeFolder = folderWasThere ? QString() : *folder;
    const auto dropFolder = [madeFolder] {
        if (!madeFolder.isEmpty())
            QDir().rmdir(madeFolder); // only while it is still empty
    };

    ContainerSpec container;
    container.name = containerName(spec.workspaceId);
    container.image = m_options.image;
    container.cmd = m_options.command;
    container.workingDir = Workdir;
    container.networkMode = m_options.networkMode;
    for (auto it = spec.metadata.cbegin(); it != spec.metadata.cend(); ++it)
        container.labels.insert(it.key(), it.value());
    container.labels.insert(WorkspaceIdKey, spec.workspaceId);
    container.labels.insert(UserIdKey, spec.userId);
    container.labels.insert(AgentIdKey, spec.agentId);
    container.binds.append(*folder + u':' + QString(Workdir));
    auto id = co_await m_client->create(container);
    if (!id) {
        dropFolder();
        co_return fail(id.error());
    }
    auto started = co_await m_client->start(*id);
    if (!started) {
        // A container that could not start is not left behind.
        qCWarning(lcDocker).noquote() << "container" << *id << "did not start; removing it:" << started.error().message;
        const auto removed = co_await m_client->remove(*id, true);
        if (!removed)
            qCWarning(lcDocker).noquote() << "and it could not be removed:" << removed.error().message;
        dropFolder();
        co_return fail(started.error());
    }
    qCInfo(lcDocker).noquote() << "created container" << *id << "for workspace" << spec.workspaceId;
    co_return co_await get(*id);
}

QCoro::Task<Result<SandboxInfo>> DockerBackend::startAgentScope(QString workspaceId, QString userId, QString agentId)
{
    if (auto ok = usable(); !ok)
        co_return fail(ok.error());
    static const QRegularExpression allowed(QStringLiteral("^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,120}$"));
    const QString name = agentscopeName(workspaceId);
    if (auto valid = validateWorkspaceId(workspaceId); !valid)
        co_return fail(valid.error());
    if (!allowed.match(name).hasMatch()) {
        co_return fail(Error::invalidArgument(
            Tr::tr("workspace id \"%1\" cannot be part of the container name %2: Docker names take letters, digits "
                   "and _ . - only")
                .arg(workspaceId, name)));
    }
    auto folder = agentscopeFolder(userId, agentId);
    if (!folder)
        co_return fail(folder.error());
    if (m_options.image.isEmpty())
        co_return fail(Error::invalidArgument(Tr::tr("No image is set for new Docker containers.")));
    auto present = co_await m_client->imageExists(m_options.image);
    if (!present)
        co_return fail(present.error());
    if (!*present) {
        co_return fail(Error::notFound(
            Tr::tr("The image %1 is not on the Docker engine at %2: pull, build or import it there first.")
                .arg(m_options.image, m_address->display())));
    }
    // As AgentScope's create_or_replace: a container of that name that does not run goes; one
    // that runs over this folder is the workspace already.
    auto existing = co_await m_client->inspect(name);
    if (existing) {
        if (existing->status == QLatin1String("running")) {
            if (QDir::cleanPath(existing->mounts.value(QString(Workdir))) == *folder)
                co_return sandboxOf(*existing);
            co_return fail(
                Error::conflict(Tr::tr("container %1 runs already, over another folder than %2").arg(name, *folder)));
        }
        if (auto removed = co_await m_client->remove(name, true); !removed)
            co_return fail(removed.error());
    } else if (existing.error().kind != Error::Kind::NotFound) {
        co_return fail(existing.error());
    }

    // The folders made here go again if no container comes of them (only while empty); one that
    // was there (the workspace's data) stays whatever happens.
    const QString userFolder = QFileInfo(*folder).path();
    const QString madeUser = QFileInfo::exists(userFolder) ? QString() : userFolder;
    const QString madeFolder = QFileInfo::exists(*folder) ? QString() : *folder;
    if (!QDir().mkpath(*folder))
        co_return fail(Error::io(Tr::tr("cannot create the workspace folder %1").arg(*folder)));
    const auto dropFolders = [madeUser, madeFolder] {
        if (!madeFolder.isEmpty())
            QDir().rmdir(madeFolder);
        if (!madeUser.isEmpty())
            QDir().rmdir(madeUser);
    };

    // AgentScope's container (`_docker_workspace.py`, _create_and_start_container): its name, its
    // two labels, `sleep infinity` in /workspace, the folder bound read-write there.
    ContainerSpec container;
    container.name = name;
    container.image = m_options.image;
    container.cmd = {QStringLiteral("sleep"), QStringLiteral("infinity")};
    container.workingDir = Workdir;
    container.networkMode = m_options.networkMode;
    container.labels.insert(AgentScopeLabel, QStringLiteral("true"));
    container.labels.insert(WorkspaceIdKey, workspaceId);
    container.binds.append(*folder + u':' + QString(Workdir) + QStringLiteral(":rw"));
    auto id = co_await m_client->create(container);
    if (!id) {
        dropFolders();
        co_return fail(id.error());
    }
    auto started = co_await m_client->start(*id);
    if (!started) {
        qCWarning(lcDocker).noquote() << "container" << name
                                      << "did not start; removing it:" << started.error().message;
        const auto removed = co_await m_client->remove(*id, true);
        if (!removed)
            qCWarning(lcDocker).noquote() << "and it could not be removed:" << removed.error().message;
        dropFolders();
        co_return fail(started.error());
    }
    qCInfo(lcDocker).noquote() << "created container" << name << "for workspace" << workspaceId << "over" << *folder;
    co_return co_await get(name);
}

QCoro::Task<Result<>> DockerBackend::removeAgentScope(SandboxInfo sandbox)
{
    if (sandbox.state == SandboxState::Running) {
        // As AgentScope's close on Linux: what root wrote in the bind mount is given back to this
        // process's user (10 s at most; a failure does not stop the close).
        ExecRequest chown;
        chown.argv = QStringList{QStringLiteral("chown"), QStringLiteral("-R"),
                                 QStringLiteral("%1:%2").arg(::getuid()).arg(::getgid()), QString(Workdir)};
        chown.timeout = std::chrono::seconds(10);
        const auto given = co_await exec(sandbox.sandboxId, std::move(chown));
        if (!given || given->exitCode != 0) {
            qCInfo(lcDocker).noquote() << "chown of /workspace in" << sandbox.sandboxId << "failed:"
                                       << (given ? QString::fromUtf8(given->stdErr).trimmed() : given.error().message);
        }
    }
    // kill and delete(force=True) in one: DELETE ?force=1.
    auto removed = co_await m_client->remove(sandbox.sandboxId, true);
    if (!removed && removed.error().kind == Error::Kind::NotFound)
        co_return Result<>{}; // gone already: closed
    co_return removed;
}

QCoro::Task<Result<SandboxInfo>> DockerBackend::connect(QString sandboxId)
{
    auto info = co_await get(sandboxId);
    if (!info)
        co_return fail(info.error());
    if (info->state != SandboxState::Running) {
        co_return fail(
            Error::conflict(Tr::tr("container %1 is %2, not running").arg(sandboxId.left(12), info->rawState)));
    }
    co_return info;
}

QCoro::Task<Result<SandboxInfo>> DockerBackend::resume(QString sandboxId)
{
    auto info = co_await get(sandboxId);
    if (!info)
        co_return fail(info.error());
    // AgentScope's layout: a closed workspace gets its container again, where AgentScope makes it.
    if (agentscope() && isStoppedFolder(*info))
        co_return co_await startAgentScope(info->workspaceId, info->userId, info->agentId);
    if (info->rawState == QLatin1String("paused")) {
        if (auto done = co_await m_client->unpause(sandboxId); !done)
            co_return fail(done.error());
    } else if (info->rawState == QLatin1String("exited") || info->rawState == QLatin1String("created")) {
        if (auto done = co_await m_client->start(sandboxId); !done)
            co_return fail(done.error());
    } else if (info->state != SandboxState::Running) {
        co_return fail(Error::conflict(
            Tr::tr("container %1 is %2 and cannot be resumed").arg(sandboxId.left(12), info->rawState)));
    }
    co_return co_await get(sandboxId);
}

QCoro::Task<Result<>> DockerBackend::pause(QString sandboxId)
{
    if (auto ok = usable(); !ok)
        co_return ok;
    if (agentscope()) {
        // Close as AgentScope closes: the container goes, its folder stays (listed as Stopped).
        auto info = co_await get(sandboxId);
        if (!info)
            co_return fail(info.error());
        if (isStoppedFolder(*info))
            co_return Result<>{}; // closed already
        co_return co_await removeAgentScope(*info);
    }
    if (m_options.stopInsteadOfPause)
        co_return co_await m_client->stop(sandboxId, std::chrono::seconds(10));
    auto paused = co_await m_client->pause(sandboxId);
    if (paused || paused.error().kind != Error::Kind::Conflict)
        co_return paused;
    // 409: not running. Already paused (or stopped) is what the caller wanted, as on every
    // backend: a Close after a Pause, a bulk pause over a mixed selection.
    auto info = co_await get(sandboxId);
    if (info && info->state == SandboxState::Paused)
        co_return Result<>{};
    co_return paused;
}

QCoro::Task<Result<>> DockerBackend::kill(QString sandboxId, KillOptions options)
{
    if (auto ok = usable(); !ok)
        co_return ok;
    QString folder;
    if (agentscope()) {
        // Closing already removes the container and keeps the folder: a kill deletes both.
        auto info = co_await get(sandboxId);
        if (!info)
            co_return fail(info.error());
        if (!isStoppedFolder(*info)) {
            if (auto removed = co_await removeAgentScope(*info); !removed)
                co_return removed;
        }
        folder = hostFolder(*info);
        if (folder.isEmpty())
            co_return Result<>{}; // its /workspace is not a folder of this basedir: not ours to delete
    } else if (options.deleteFiles) {
        // The folder is named by the container's workspace label: read it before the container goes.
        auto info = co_await get(sandboxId);
        if (!info)
            co_return fail(info.error());
        auto path = hostFolder(info->workspaceId);
        if (!path)
            co_return fail(path.error());
        folder = *path;
    }
    if (!agentscope()) {
        if (auto removed = co_await m_client->remove(sandboxId, true); !removed)
            co_return removed;
    }
    if (folder.isEmpty())
        co_return Result<>{};
    // A big folder takes a while: deleted on a worker thread, and waited for through m_waits, so
    // a backend destroyed meanwhile waits for it and this task says what was done. Only locals
    // after it.
    const QString userFolder = agentscope() ? QFileInfo(folder).path() : QString();
    QFuture<Result<>> removing = QtConcurrent::run(&DockerBackend::removeFolder, folder);
    QFuture<void> removed(removing);
    co_await m_waits.finished(std::move(removed), WaitSet::OnClose::Finish);
    Result<> outcome = removing.result();
    if (outcome && !userFolder.isEmpty())
        QDir().rmdir(userFolder); // the user's folder, once it holds no other agent's
    co_return outcome;
}

Capabilities DockerBackend::capabilities() const
{
    // AgentScope's layout: a close removes the container (its processes end) and keeps the folder,
    // and a kill deletes the folder too.
    if (agentscope())
        return {Capability::ContainerLog, Capability::Files, Capability::Exec, Capability::StopInsteadOfPause,
                Capability::Metrics};
    Capabilities capabilities{Capability::ContainerLog, Capability::DeleteFilesOnKill, Capability::Files,
                              Capability::Exec, Capability::Metrics};
    if (m_options.stopInsteadOfPause)
        capabilities |= Capability::StopInsteadOfPause;
    return capabilities;
}

QString DockerBackend::hostFolder(const SandboxInfo &sandbox) const
{
    if (agentscope()) {
        // Its user and agent come from its mount: empty when that is no folder of this basedir.
        if (sandbox.userId.isEmpty() || sandbox.agentId.isEmpty())
            return {};
        return agentscopeFolder(sandbox.userId, sandbox.agentId).value_or(QString());
    }
    return hostFolder(sandbox.workspaceId).value_or(QString());
}

Result<QString> DockerBackend::folderOf(const SandboxInfo &sandbox) const
{
    if (!agentscope())
        return hostFolder(sandbox.workspaceId);
    if (sandbox.userId.isEmpty() || sandbox.agentId.isEmpty()) {
        return fail(Error::unsupported(Tr::tr("the /workspace of container %1 is not a folder <user>/<agent> of %2")
                                           .arg(sandbox.sandboxId, m_basedir)));
    }
    return agentscopeFolder(sandbox.userId, sandbox.agentId);
}

QString DockerBackend::killWarning(const SandboxInfo &sandbox) const
{
    if (!agentscope())
        return {};
    const QString folder = hostFolder(sandbox);
    if (folder.isEmpty())
        return {};
    return Tr::tr("Removes the container %1 and deletes its host folder %2 with every file of the workspace (closing "
                  "keeps the folder): its data cannot be recovered.")
        .arg(sandbox.sandboxId, folder);
}

QCoro::Task<Result<SandboxInfo>> DockerBackend::renew(QString sandboxId, std::chrono::seconds)
{
    co_return fail(
        Error::unsupported(Tr::tr("container %1 does not expire, so it cannot be renewed").arg(sandboxId.left(12))));
}

QCoro::Task<Result<bool>> DockerBackend::isReady(QString sandboxId)
{
    auto info = co_await get(sandboxId);
    if (!info)
        co_return fail(info.error());
    co_return info->state == SandboxState::Running;
}

QCoro::Task<Result<ExecResult>> DockerBackend::exec(QString sandboxId, ExecRequest request)
{
    if (auto ok = usable(); !ok)
        co_return fail(ok.error());
    if (request.argv.isEmpty())
        co_return fail(Error::invalidArgument(Tr::tr("no command to run")));
    if (request.cancel && request.cancel->isCancelled())
        co_return fail(Error{Error::Kind::Cancelled, Tr::tr("cancelled: the command was not started")});
    // The engine cannot end an exec: a time limit runs the command beside a watchdog that kills
    // its process group when the time is up (timelimit.h). timeout(1) would kill the command
    // only, and a child it left holding stdout would keep the exec open.
    QStringList argv = request.argv;
    const qint64 limit = std::chrono::ceil<std::chrono::seconds>(request.timeout).count();
    if (limit > 0)
        argv = withTimeLimit(argv, limit);
    // A cancel kills the group by a second exec, which needs the command's pid: the command
    // announces it first on stderr (execgroup.h).
    const bool cancellable = bool(request.cancel);
    if (cancellable)
        argv = announcingPid(argv);
    auto result = std::make_shared<ExecResult>();
    auto onLine = std::make_shared<std::function<void(OutputChannel, const QByteArray &)>>(request.onLine);
    auto out = std::make_shared<LineSplitter>(OutputChannel::Stdout, *onLine, result->stdOut, request.onData);
    auto err = std::make_shared<LineSplitter>(OutputChannel::Stderr, *onLine, result->stdErr, request.onData);

    // The kill, once both the cancel and the pid are there; awaited before this returns. The
    // callbacks below run only while the output streams, inside this frame.
    struct Stop
    {
        PidAnnouncement announcement;
        bool asked = false;
        std::optional<QCoro::Task<Result<>>> killing;
    };
    auto stop = std::make_shared<Stop>();
    const auto stopReading = std::make_shared<CancelToken>();
    const auto startKill = [this, stop, stopReading, sandboxId] {
        if (stop->asked && !stop->killing && stop->announcement.pid())
            stop->killing.emplace(killGroup(sandboxId, *stop->announcement.pid(), stopReading));
    };
    int cancelId = 0;
    if (cancellable) {
        cancelId = request.cancel->onCancel([stop, startKill] {
            stop->asked = true;
            startKill();
        });
    }
    const auto forgetCancel = qScopeGuard([&request, cancelId] {
        if (request.cancel && cancelId != 0)
            request.cancel->remove(cancelId);
    });
    const std::function<void(OutputChannel, QByteArrayView)> sink =
        [out, err, onLine, stop, startKill, cancellable](OutputChannel channel, QByteArrayView bytes) {
            if (channel == OutputChannel::Stdout) {
                out->feed(bytes.toByteArray());
                return;
            }
            if (!cancellable) {
                err->feed(bytes.toByteArray());
                return;
            }
            const bool knew = stop->announcement.pid().has_value();
            err->feed(stop->announcement.feed(bytes.toByteArray()));
            if (!knew && stop->announcement.pid())
                startKill(); // a cancel that came before the pid
        };
    QElapsedTimer clock;
    clock.start();
    const QString cwd = request.cwd.isEmpty() ? QString(Workdir) : request.cwd;
    auto exitCode = co_await m_client->exec(sandboxId, argv, cwd, sink, stopReading);
    if (stop->asked) {
        // Cancelled: the command's group was killed (or could not be: say so), and its stream
        // ended by itself or was let go.
        Result<> killed{};
        if (stop->killing)
            killed = co_await *stop->killing;
        err->feed(stop->announcement.finish());
        out->finish();
        err->finish();
        if (!killed) {
            co_return fail(Error::backend(Tr::tr("the command in container %1 could not be stopped: %2")
                                              .arg(sandboxId.left(12), killed.error().message)));
        }
        if (!exitCode && exitCode.error().kind != Error::Kind::Cancelled)
            co_return fail(exitCode.error());
        co_return fail(Error{Error::Kind::Cancelled, Tr::tr("cancelled: the command was stopped")});
    }
    if (!exitCode)
        co_return fail(exitCode.error());
    err->feed(stop->announcement.finish());
    out->finish();
    err->finish();
    const QByteArray said = result->stdOut + result->stdErr;
    const bool noShell = said.contains("\"sh\": executable file not found");
    if (limit > 0 && (*exitCode == 126 || *exitCode == 127) && (noShell || said.contains("setsid: not found"))) {
        co_return fail(Error::unsupported(
            Tr::tr("The image of container %1 has no sh or no setsid, which time limits on commands need (busybox and "
                   "util-linux have setsid).")
                .arg(sandboxId.left(12))));
    }
    if (cancellable && (*exitCode == 126 || *exitCode == 127) && noShell) {
        co_return fail(Error::unsupported(
            Tr::tr("The image of container %1 has no sh, which a command that can be cancelled needs.")
                .arg(sandboxId.left(12))));
    }
    result->exitCode = *exitCode;
    result->timedOut = limit > 0 && *exitCode == 137 && clock.elapsed() >= limit * 1000 - 100;
    ExecResult ran = *result; // a copy: GCC 12 moves from what co_return names (README)
    co_return ran;
}

QCoro::Task<Result<>> DockerBackend::killGroup(QString sandboxId, qint64 pid, std::shared_ptr<CancelToken> stopReading)
{
    QByteArray said;
    const std::function<void(OutputChannel, QByteArrayView)> collect = [&said](OutputChannel, QByteArrayView bytes) {
        said.append(bytes.data(), bytes.size());
    };
    const QStringList argv = killGroupCommand(pid);
    auto exitCode = co_await m_client->exec(sandboxId, argv, QString(Workdir), collect);
    if (!exitCode)
        co_return fail(exitCode.error());
    if (*exitCode != 0) {
        // Gone already (it ended as the cancel came): nothing is left to stop.
        qCInfo(lcDocker).noquote() << "stopping process group" << pid << "in" << sandboxId.left(12) << "exited with"
                                   << *exitCode << QString::fromUtf8(said).trimmed();
    }
    // Its group is dead: what is left of the stream (a child that left the group and holds it
    // open) is not waited for.
    stopReading->cancel();
    co_return Result<>{};
}

std::optional<TerminalCommand> DockerBackend::terminalCommand(const SandboxInfo &sandbox) const
{
    if (!m_address || sandbox.sandboxId.isEmpty())
        return std::nullopt;
    TerminalCommand command;
    command.program = QStringLiteral("docker");
    // The engine this profile uses, whatever the docker CLI's own context says.
    command.arguments =
        QStringList{QStringLiteral("-H"),   m_address->display(),
                    QStringLiteral("exec"), QStringLiteral("-it"),
                    QStringLiteral("-w"),   QString(Workdir),
                    sandbox.sandboxId,      QStringLiteral("sh"),
                    QStringLiteral("-c"),   QStringLiteral("command -v bash >/dev/null 2>&1 && exec bash; exec sh")};
    return command;
}

QCoro::Task<Result<QByteArray>> DockerBackend::containerLogs(QString sandboxId, int tail)
{
    if (auto ok = usable(); !ok)
        co_return fail(ok.error());
    co_return co_await m_client->logs(sandboxId, tail);
}

QCoro::Task<Result<QList<SandboxMetrics>>> DockerBackend::metrics(QStringList sandboxIds)
{
    if (auto ok = usable(); !ok)
        co_return fail(ok.error());
    auto found = std::make_shared<QHash<QString, SandboxMetrics>>();
    DockerClient *client = m_client.get();
    std::function<QCoro::Task<Result<>>(const QString &)> read = [client,
                                                                  found](const QString &id) -> QCoro::Task<Result<>> {
        const QString sandboxId = id;
        const auto body = co_await client->stats(sandboxId);
        if (!body) {
            if (body.error().kind == Error::Kind::NotFound)
                co_return Result<>();
            co_return fail(body.error());
        }
        auto metrics = MetricsWire::parseDockerStats(*body);
        if (!metrics || (!metrics->cpuPercent && !metrics->memoryBytes))
            co_return Result<>();
        metrics->sandboxId = sandboxId;
        if (!metrics->sampledAt.isValid())
            metrics->sampledAt = QDateTime::currentDateTimeUtc();
        found->insert(sandboxId, *metrics);
        co_return Result<>();
    };
    const QList<Result<>> results = co_await runBounded<QString>(sandboxIds, 8, std::move(read));
    QList<SandboxMetrics> list;
    for (const QString &id : std::as_const(sandboxIds)) {
        if (const auto it = found->constFind(id); it != found->constEnd())
            list.append(it.value());
    }
    // Figures for some are an answer; an error for every one is the answer.
    if (list.isEmpty()) {
        for (const Result<> &result : results) {
            if (!result)
                co_return fail(result.error());
        }
    }
    co_return list;
}

QCoro::Task<Result<std::optional<QDateTime>>> DockerBackend::sessionsActivity(QString sandboxId)
{
    auto info = co_await get(sandboxId);
    if (!info)
        co_return fail(info.error());
    auto folder = folderOf(*info);
    if (!folder)
        co_return fail(folder.error());
    // A QString, not a QStringBuilder of temporaries: run() keeps its arguments for later.
    const QString sessions = *folder + QStringLiteral("/sessions");
    QFuture<std::optional<QDateTime>> scan = QtConcurrent::run(newestSessionsChange, sessions);
    // Through m_waits: a backend destroyed meanwhile waits for the scan, so this task is done
    // when it is gone. Only locals after it.
    QFuture<void> scanned(scan);
    co_await m_waits.finished(std::move(scanned), WaitSet::OnClose::Finish);
    const std::optional<QDateTime> newest = scan.result();
    co_return newest;
}

QCoro::Task<Result<HostFolderFiles>> DockerBackend::filesOf(QString sandboxId)
{
    auto info = co_await get(sandboxId);
    if (!info)
        co_return fail(info.error());
    auto folder = folderOf(*info);
    if (!folder)
        co_return fail(folder.error());
    co_return HostFolderFiles(layout(*info), *folder);
}

template<typename T>
QCoro::Task<Result<T>> DockerBackend::onFiles(QString sandboxId, std::function<Result<T>(const HostFolderFiles &)> work)
{
    auto files = co_await filesOf(std::move(sandboxId));
    if (!files)
        co_return fail(files.error());
    QFuture<Result<T>> job =
        QtConcurrent::run([files = std::move(*files), work = std::move(work)] { return work(files); });
    // Through m_waits: a backend destroyed meanwhile waits for the work. Only locals after it.
    QFuture<void> done(job);
    co_await m_waits.finished(std::move(done), WaitSet::OnClose::Finish);
    Result<T> result = job.result();
    co_return result;
}

namespace {

// An upload staged in the container is at most this big (it goes in one PUT, built in memory).
constexpr qint64 MaxStagedUpload = 256 * 1024 * 1024;

// One regular file as a POSIX ustar archive, as the archive route takes it.
QByteArray tarOfOne(const QByteArray &name, const QByteArray &data)
{
    QByteArray header(512, '\0');
    const auto field = [&header](int offset, int size, const QByteArray &value) {
        header.replace(offset, std::min<qsizetype>(size, value.size()), value.left(size));
    };
    const auto octal = [](qint64 value, int digits) {
        return QByteArray::number(value, 8).rightJustified(digits, '0');
    };
    field(0, 100, name);
    field(100, 8, octal(0644, 7));
    field(108, 8, octal(0, 7));
    field(116, 8, octal(0, 7));
    field(124, 12, octal(data.size(), 11));
    field(136, 12, octal(QDateTime::currentSecsSinceEpoch(), 11));
    field(148, 8, QByteArray(8, ' '));
    header[156] = '0';
    field(257, 6, QByteArrayLiteral("ustar"));
    field(263, 2, QByteArrayLiteral("00"));
    unsigned sum = 0;
    for (const char c : std::as_const(header))
        sum += static_cast<unsigned char>(c);
    field(148, 8, octal(sum, 6) + QByteArray("\0 ", 2));
    QByteArray tar = header + data;
    tar.append(QByteArray((512 - data.size() % 512) % 512, '\0'));
    tar.append(QByteArray(1024, '\0'));
    return tar;
}

bool isUnder(const QString &path, const QString &root)
{
    return path == root || path.startsWith(root + u'/');
}

} // namespace

QCoro::Task<Result<ExecResult>> DockerBackend::runFileScript(QString sandboxId, ScriptCommand command)
{
    if (auto ok = usable(); !ok)
        co_return fail(ok.error());
    QStringList argv = command.argv;
    if (command.withStdin) {
        // The engine's exec takes no stdin here: the bytes go into the container's /tmp through
        // the archive route, and the script reads them from there (the file removed once open).
        QByteArray data;
        while (true) {
            auto piece = command.stdinSource();
            if (!piece)
                co_return fail(piece.error());
            if (piece->isEmpty())
                break;
            data.append(*piece);
            if (data.size() > MaxStagedUpload) {
                co_return fail(
                    Error::invalidArgument(Tr::tr("an upload outside the workspace folder takes at most %1 MiB")
                                               .arg(MaxStagedUpload / (1024 * 1024))));
            }
        }
        const QByteArray name = ".paddock-stdin-" + QUuid::createUuid().toString(QUuid::Id128).toLatin1();
        QByteArray tar = tarOfOne(name, data);
        data.clear();
        QString tmp = QStringLiteral("/tmp");
        auto put = co_await m_client->putArchive(sandboxId, tmp, std::move(tar));
        if (!put)
            co_return fail(put.error());
        argv = QStringList{QStringLiteral("sh"), QStringLiteral("-c"),
                           QStringLiteral("exec <\"$0\" && rm -f -- \"$0\" && exec \"$@\""),
                           QStringLiteral("/tmp/") + QString::fromLatin1(name)}
            + argv;
    }
    const qint64 limit = std::chrono::ceil<std::chrono::seconds>(command.timeout).count();
    if (limit > 0)
        argv = withTimeLimit(argv, limit);
    auto result = std::make_shared<ExecResult>();
    const std::function<void(OutputChannel, QByteArrayView)> sink =
        [result, onChunk = command.onChunk](OutputChannel channel, QByteArrayView bytes) {
            const QByteArray data = bytes.toByteArray();
            if (channel == OutputChannel::Stderr)
                result->stdErr.append(data);
            if (onChunk)
                onChunk(channel, data);
        };
    const QString cwd = Workdir;
    auto exitCode = co_await m_client->exec(sandboxId, argv, cwd, sink);
    if (!exitCode)
        co_return fail(exitCode.error());
    result->exitCode = *exitCode;
    result->timedOut = limit > 0 && *exitCode == 137;
    ExecResult ran = *result; // a copy: GCC 12 moves from what co_return names (README)
    co_return ran;
}

template<typename T>
QCoro::Task<Result<T>> DockerBackend::onPath(QString sandboxId, QString path,
                                             std::function<Result<T>(const HostFolderFiles &)> onHost,
                                             std::function<QCoro::Task<Result<T>>(ExecFiles &)> inContainer)
{
    auto info = co_await get(sandboxId);
    if (!info)
        co_return fail(info.error());
    const WorkspaceLayout workspace = layout(*info);
    const auto confined = confineWorkspacePath(workspace, path);
    if (!confined)
        co_return fail(confined.error());
    if (isUnder(*confined, workspace.workdir))
        co_return co_await onFiles<T>(std::move(sandboxId), std::move(onHost));
    // Outside the bind mount: only in the container, while it runs.
    if (info->state != SandboxState::Running) {
        co_return fail(Error::conflict(Tr::tr("%1 is in container %2, which is not running: it can be read only while "
                                              "the workspace runs")
                                           .arg(path, sandboxId.left(12))));
    }
    const QString id = info->sandboxId;
    ExecFiles files([this, id](ScriptCommand command) { return runFileScript(id, std::move(command)); }, workspace);
    Result<T> result = co_await inContainer(files);
    co_return result;
}

QCoro::Task<Result<QList<FileEntry>>> DockerBackend::listFolder(QString sandboxId, QString path)
{
    // GCC 12: the work is named, never a temporary inside the co_await expression.
    std::function<Result<QList<FileEntry>>(const HostFolderFiles &)> onHost = [path](const HostFolderFiles &files) {
        return files.listFolder(path);
    };
    std::function<QCoro::Task<Result<QList<FileEntry>>>(ExecFiles &)> inContainer = [path](ExecFiles &files) {
        return files.listFolder(path);
    };
    co_return co_await onPath<QList<FileEntry>>(std::move(sandboxId), path, std::move(onHost), std::move(inContainer));
}

QCoro::Task<Result<FileEntry>> DockerBackend::stat(QString sandboxId, QString path)
{
    std::function<Result<FileEntry>(const HostFolderFiles &)> onHost = [path](const HostFolderFiles &files) {
        return files.stat(path);
    };
    std::function<QCoro::Task<Result<FileEntry>>(ExecFiles &)> inContainer = [path](ExecFiles &files) {
        return files.stat(path);
    };
    co_return co_await onPath<FileEntry>(std::move(sandboxId), path, std::move(onHost), std::move(inContainer));
}

QCoro::Task<Result<FileChunk>> DockerBackend::readFile(QString sandboxId, QString path, qint64 offset, qint64 length)
{
    std::function<Result<FileChunk>(const HostFolderFiles &)> onHost =
        [path, offset, length](const HostFolderFiles &files) { return files.readFile(path, offset, length); };
    std::function<QCoro::Task<Result<FileChunk>>(ExecFiles &)> inContainer = [path, offset, length](ExecFiles &files) {
        return files.readFile(path, offset, length);
    };
    co_return co_await onPath<FileChunk>(std::move(sandboxId), path, std::move(onHost), std::move(inContainer));
}

QCoro::Task<Result<>> DockerBackend::download(QString sandboxId, QString path, QString localPath)
{
    std::function<Result<>(const HostFolderFiles &)> onHost = [path, localPath](const HostFolderFiles &files) {
        return files.download(path, localPath);
    };
    std::function<QCoro::Task<Result<>>(ExecFiles &)> inContainer = [path, localPath](ExecFiles &files) {
        return files.download(path, localPath);
    };
    co_return co_await onPath<void>(std::move(sandboxId), path, std::move(onHost), std::move(inContainer));
}

QCoro::Task<Result<>> DockerBackend::upload(QString sandboxId, QString localPath, QString path)
{
    std::function<Result<>(const HostFolderFiles &)> onHost = [path, localPath](const HostFolderFiles &files) {
        return files.upload(localPath, path);
    };
    std::function<QCoro::Task<Result<>>(ExecFiles &)> inContainer = [path, localPath](ExecFiles &files) {
        return files.upload(localPath, path);
    };
    co_return co_await onPath<void>(std::move(sandboxId), path, std::move(onHost), std::move(inContainer));
}

} // namespace Paddock::Docker
