#include "localbackend.h"

#include "../../agentscopelayout.h"
#include "../../canceltoken.h"
#include "../../isolation.h"
#include "../../linesplitter.h"
#include "../../logging.h"
#include "../../tr.h"
#include "procmetrics.h"

#include <QCoroFuture>
#include <QCoroTask>

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMutex>
#include <QProcess>
#include <QSaveFile>
#include <QStandardPaths>
#include <QThread>
#include <QtConcurrent/QtConcurrentRun>

#include <csignal>
#include <type_traits>

#include <sys/prctl.h>
#include <unistd.h>

namespace Paddock {

namespace {

QString isoTime(const QDateTime &time)
{
    return time.toUTC().toString(Qt::ISODateWithMs);
}

Error closedError()
{
    return Error{Error::Kind::Cancelled, Tr::tr("cancelled: the local backend was closed")};
}

// The result of work on a worker thread, once it is done; a closing backend waits for it.
// Touches nothing but its own frame after the wait: the backend may be gone by then.
template<typename T> QCoro::Task<T> settled(WaitSet &waits, QFuture<T> job)
{
    QFuture<void> done(job); // GCC 12: no temporaries in a co_await expression
    co_await waits.finished(std::move(done), WaitSet::OnClose::Finish);
    T result = job.result();
    co_return result;
}

} // namespace

QString LocalBackend::defaultBasedir()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation)
        + QStringLiteral("/paddock/workspaces");
}

QString LocalBackend::name() const
{
    return QStringLiteral("local");
}

QString LocalBackend::instanceKey() const
{
    return QStringLiteral("local-") + blake2b64Hex(m_basedir.toUtf8());
}

namespace {

// The workspace id AgentScope's LocalWorkspaceManager gives the folder of an agent: its
// assign_workspace_id with user_id="" under PER_AGENT (the only isolation this layout takes).
QString agentscopeWorkspaceId(const QString &agentId)
{
    return assignWorkspaceId(IsolationPolicy::PerAgent, {}, agentId);
}

// Free of the backend object, so a scan on a worker thread never touches it.
Result<QString> workspacePathIn(const QString &basedir, const QString &workspaceId)
{
    if (auto valid = validateWorkspaceId(workspaceId); !valid)
        return fail(valid.error());
    const QString path = QDir::cleanPath(basedir + u'/' + workspaceId);
    const QFileInfo info(path);
    // A symlink planted in basedir must not lead a workspace (or a delete) elsewhere.
    if (info.isSymLink() || QFileInfo(path).dir().absolutePath() != basedir) {
        return fail(Error::invalidArgument(
            Tr::tr("workspace id \"%1\" would escape the base folder %2").arg(workspaceId, basedir)));
    }
    return path;
}

// AgentScope's layout: the folder of an agent, <basedir>/<agent id>.
Result<QString> agentPathIn(const QString &basedir, const QString &agentId)
{
    if (auto valid = validateAgentScopeFolderName(Principal::Agent, agentId); !valid)
        return fail(valid.error());
    const QString path = QDir::cleanPath(basedir + u'/' + agentId);
    if (QFileInfo(path).isSymLink() || QFileInfo(path).dir().absolutePath() != basedir) {
        return fail(Error::invalidArgument(
            Tr::tr("agent id \"%1\" would lead out of the base folder %2").arg(agentId, basedir)));
    }
    return path;
}

} // namespace

// Where the workspaces of one basedir are, in one layout: copied into the work on worker threads.
// A sandbox id is the workspace id in Paddock's layout, the agent id in AgentScope's.
struct LocalPlace
{
    QString basedir;
    Profile::Layout layout = Profile::Layout::Paddock;

    bool agentscope() const { return layout == Profile::Layout::AgentScope; }
    Result<QString> folder(const QString &sandboxId) const
    {
        return agentscope() ? agentPathIn(basedir, sandboxId) : workspacePathIn(basedir, sandboxId);
    }
    // Paddock's metadata of a workspace: inside its folder in Paddock's layout; in AgentScope's,
    // beside the agents' folders, in <basedir>/.paddock/<agent id>, where AgentScope never looks.
    QString metadataDir(const QString &sandboxId, const QString &folder) const
    {
        if (agentscope())
            return basedir + QStringLiteral("/.paddock/") + sandboxId;
        return folder + QStringLiteral("/.paddock");
    }
    QString metadataFile(const QString &sandboxId, const QString &folder) const
    {
        return metadataDir(sandboxId, folder) + QStringLiteral("/workspace.json");
    }
    WorkspaceLayout layoutOf(const QString &sandboxId, const QString &folder) const
    {
        // No AgentScope marker: AgentScope's local workspaces have no gateway and no bootstrap. In
        // AgentScope's layout Paddock's gateway home (its bootstrap marker) is with its metadata,
        // outside what the agents see.
        const QString gatewayHome =
            (agentscope() ? metadataDir(sandboxId, folder) : folder) + QStringLiteral("/.agentscope");
        return {folder, gatewayHome, gatewayHome + QStringLiteral("/.bootstrap-complete"), {}};
    }
    // Whether the folder is a workspace (and not only a name): Paddock's metadata is there, or, in
    // AgentScope's layout, the folder holds an AgentScope workspace.
    bool isWorkspace(const QString &sandboxId, const QString &folder) const
    {
        if (!agentscope())
            return QFileInfo(metadataFile(sandboxId, folder)).isFile();
        return QFileInfo(folder).isDir()
            && (QFileInfo(metadataFile(sandboxId, folder)).isFile() || holdsAgentScopeWorkspace(folder));
    }
};

namespace {

Error noWorkspace(const LocalPlace &place, const QString &sandboxId)
{
    return Error::notFound(Tr::tr("there is no local workspace %1 in %2").arg(sandboxId, place.basedir));
}

// An AgentScope folder Paddock has not opened: Idle (Paused to the contract: nothing of Paddock's
// runs in it), made when the folder was, and the ids as AgentScope gives them; no user.
SandboxInfo idleInfo(const QString &agentId, const QString &folder)
{
    const QFileInfo info(folder);
    SandboxInfo idle;
    idle.sandboxId = agentId;
    idle.workspaceId = agentscopeWorkspaceId(agentId);
    idle.agentId = agentId;
    idle.state = SandboxState::Paused;
    idle.rawState = QStringLiteral("Idle");
    idle.backend = QStringLiteral("local");
    idle.createdAt = (info.birthTime().isValid() ? info.birthTime() : info.lastModified()).toUTC();
    idle.metadata.insert(WorkspaceIdKey, idle.workspaceId);
    idle.metadata.insert(AgentIdKey, agentId);
    idle.fingerprint = fingerprintOf(idle);
    return idle;
}

Result<SandboxInfo> readInfoIn(const LocalPlace &place, const QString &sandboxId)
{
    auto path = place.folder(sandboxId);
    if (!path)
        return fail(path.error());
    if (place.agentscope() && !QFileInfo(*path).isDir())
        return fail(noWorkspace(place, sandboxId)); // Paddock's metadata of a folder that is gone
    QFile file(place.metadataFile(sandboxId, *path));
    if (!file.open(QIODevice::ReadOnly)) {
        if (place.agentscope() && holdsAgentScopeWorkspace(*path))
            return idleInfo(sandboxId, *path);
        return fail(noWorkspace(place, sandboxId));
    }
    QJsonParseError parseError{};
    const QJsonObject json = QJsonDocument::fromJson(file.readAll(), &parseError).object();
    if (parseError.error != QJsonParseError::NoError) {
        return fail(Error::io(Tr::tr("the metadata of workspace %1 (%2) is damaged: %3")
                                  .arg(sandboxId, file.fileName(), parseError.errorString())));
    }

    SandboxInfo info;
    info.sandboxId = sandboxId;
    info.workspaceId = json.value(QLatin1String("workspaceId")).toString(sandboxId);
    info.userId = json.value(QLatin1String("userId")).toString();
    info.agentId = json.value(QLatin1String("agentId")).toString();
    info.rawState = json.value(QLatin1String("state")).toString();
    info.state = parseSandboxState(info.rawState);
    info.backend = QStringLiteral("local");
    info.createdAt = QDateTime::fromString(json.value(QLatin1String("createdAt")).toString(), Qt::ISODateWithMs);
    info.lastActivityAt =
        QDateTime::fromString(json.value(QLatin1String("lastActivityAt")).toString(), Qt::ISODateWithMs);
    const QJsonObject metadata = json.value(QLatin1String("metadata")).toObject();
    for (auto it = metadata.begin(); it != metadata.end(); ++it)
        info.metadata.insert(it.key(), it.value().toString());
    if (place.agentscope()) {
        // The folder says who it is, as AgentScope sees it: its agent, the id AgentScope gives it,
        // and no user (any user's request for that agent lands here).
        info.workspaceId = agentscopeWorkspaceId(sandboxId);
        info.agentId = sandboxId;
        info.userId.clear();
        info.metadata.remove(UserIdKey);
        info.metadata.insert(AgentIdKey, sandboxId);
        info.metadata.insert(WorkspaceIdKey, info.workspaceId);
    }
    info.fingerprint = fingerprintOf(info);
    return info;
}

Result<> writeInfoIn(const LocalPlace &place, const SandboxInfo &info)
{
    auto path = place.folder(info.sandboxId);
    if (!path)
        return fail(path.error());
    // In AgentScope's layout the gateway home is made with the metadata: bubblewrap binds it.
    const QString dir = place.agentscope() ? place.layoutOf(info.sandboxId, *path).gatewayHome
                                           : place.metadataDir(info.sandboxId, *path);
    if (!QDir().mkpath(dir))
        return fail(Error::io(Tr::tr("cannot create %1").arg(dir)));

    QJsonObject metadata;
    for (auto it = info.metadata.cbegin(); it != info.metadata.cend(); ++it)
        metadata.insert(it.key(), it.value());
    const QJsonObject json{
        {QStringLiteral("version"), 1},
        {QStringLiteral("workspaceId"), info.workspaceId},
        {QStringLiteral("userId"), info.userId},
        {QStringLiteral("agentId"), info.agentId},
        {QStringLiteral("state"), sandboxStateName(info.state)},
        {QStringLiteral("createdAt"), isoTime(info.createdAt)},
        {QStringLiteral("lastActivityAt"), isoTime(info.lastActivityAt)},
        {QStringLiteral("metadata"), metadata},
    };
    QSaveFile file(place.metadataFile(info.sandboxId, *path));
    const QByteArray bytes = QJsonDocument(json).toJson();
    // flush() first: Qt 6.4's commit() reports success when its own flush failed (a full disk, a
    // file size limit) and puts an empty file in place of the metadata, and the workspace would
    // vanish from every listing. A failed write leaves the old file as it was.
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.flush()) {
        const QString reason = file.errorString();
        file.cancelWriting();
        return fail(Error::io(Tr::tr("cannot write %1: %2").arg(file.fileName(), reason)));
    }
    if (!file.commit())
        return fail(Error::io(Tr::tr("cannot write %1: %2").arg(file.fileName(), file.errorString())));
    return {};
}

Result<SandboxInfo> setStateIn(const LocalPlace &place, const QString &sandboxId, SandboxState state)
{
    auto info = readInfoIn(place, sandboxId);
    if (!info)
        return info;
    info->state = state;
    info->rawState = sandboxStateName(state);
    info->lastActivityAt = QDateTime::currentDateTimeUtc();
    if (auto written = writeInfoIn(place, *info); !written)
        return fail(written.error());
    info->fingerprint = fingerprintOf(*info);
    return info;
}

Result<> checkWritableIn(const QString &basedir)
{
    // Walk up to the nearest folder that exists: that one must be a writable directory.
    QString probe = basedir;
    while (!QFileInfo::exists(probe) && !QFileInfo(probe).isSymLink()) {
        const QString parent = QFileInfo(probe).absolutePath();
        if (parent == probe)
            break;
        probe = parent;
    }
    const QFileInfo info(probe);
    if (!info.isDir()) {
        return fail(Error::invalidArgument(
            Tr::tr("the base folder %1 cannot be used: %2 is not a folder").arg(basedir, probe)));
    }
    if (::access(QFile::encodeName(probe).constData(), W_OK | X_OK) != 0) {
        return fail(Error::invalidArgument(Tr::tr("the base folder %1 is not writable (%2: %3)")
                                               .arg(basedir, probe, QString::fromLocal8Bit(strerror(errno)))));
    }
    return {};
}

// The sandbox id of a new workspace: its workspace id in Paddock's layout; in AgentScope's, its
// agent, whose folder it is, and only under the id AgentScope gives that folder.
Result<QString> newSandboxId(const LocalPlace &place, const CreateSpec &spec)
{
    if (!place.agentscope())
        return spec.workspaceId;
    if (auto valid = validateAgentScopeFolderName(Principal::Agent, spec.agentId); !valid)
        return fail(valid.error());
    const QString expected = agentscopeWorkspaceId(spec.agentId);
    if (spec.workspaceId != expected) {
        return fail(Error::invalidArgument(
            Tr::tr("in the AgentScope layout the workspace of agent %1 is %2, the id AgentScope's "
                   "LocalWorkspaceManager gives its folder, not %3")
                .arg(spec.agentId, expected, spec.workspaceId)));
    }
    return spec.agentId;
}

Result<SandboxInfo> createIn(const LocalPlace &place, const CreateSpec &spec)
{
    auto sandboxId = newSandboxId(place, spec);
    if (!sandboxId)
        return fail(sandboxId.error());
    auto path = place.folder(*sandboxId);
    if (!path)
        return fail(path.error());
    if (auto writable = checkWritableIn(place.basedir); !writable)
        return fail(writable.error());
    if (readInfoIn(place, *sandboxId))
        return fail(Error::conflict(Tr::tr("local workspace %1 already exists").arg(*sandboxId)));

    // A folder without our metadata (made by hand or by AgentScope) is adopted with its files.
    const bool existed = QFileInfo(*path).isDir();
    if (!existed && !QDir().mkpath(*path))
        return fail(Error::io(Tr::tr("cannot create the workspace folder %1").arg(*path)));

    SandboxInfo info;
    info.sandboxId = *sandboxId;
    info.workspaceId = spec.workspaceId;
    // AgentScope's local folders belong to their agent, whoever the user: none is recorded.
    info.userId = place.agentscope() ? QString() : spec.userId;
    info.agentId = spec.agentId;
    info.state = SandboxState::Running;
    info.rawState = sandboxStateName(info.state);
    info.backend = QStringLiteral("local");
    info.createdAt = QDateTime::currentDateTimeUtc();
    info.lastActivityAt = info.createdAt;
    info.metadata = spec.metadata;
    info.metadata.remove(UserIdKey);
    if (!place.agentscope())
        info.metadata.insert(UserIdKey, spec.userId);
    info.metadata.insert(AgentIdKey, spec.agentId);
    info.metadata.insert(WorkspaceIdKey, spec.workspaceId); // last, so nothing overrides it
    if (auto written = writeInfoIn(place, info); !written) {
        // No half-made workspace: take back what this call created.
        if (!existed)
            QDir(*path).removeRecursively();
        if (existed || place.agentscope())
            QDir(place.metadataDir(*sandboxId, *path)).removeRecursively();
        return fail(written.error());
    }
    info.fingerprint = fingerprintOf(info);
    qCInfo(lcLocal).noquote() << "created workspace" << *path;
    return info;
}

Result<SandboxInfo> connectIn(const LocalPlace &place, const QString &sandboxId)
{
    auto info = readInfoIn(place, sandboxId);
    if (!info)
        return info;
    if (info->state != SandboxState::Running) {
        return fail(Error::conflict(Tr::tr("local workspace %1 is %2, not Running").arg(sandboxId, info->rawState)));
    }
    return setStateIn(place, sandboxId, SandboxState::Running);
}

Result<> killIn(const LocalPlace &place, const QString &sandboxId)
{
    auto path = place.folder(sandboxId);
    if (!path)
        return fail(path.error());
    if (!readInfoIn(place, sandboxId))
        return fail(noWorkspace(place, sandboxId));
    if (!QDir(*path).removeRecursively())
        return fail(Error::io(Tr::tr("could not delete all of %1").arg(*path)));
    qCInfo(lcLocal).noquote() << "deleted workspace folder" << *path;
    if (place.agentscope()) {
        // Paddock's metadata beside it; what is left of it is ignored (its folder is gone).
        const QString metadata = place.metadataDir(sandboxId, *path);
        if (!QDir(metadata).removeRecursively())
            qCWarning(lcLocal).noquote() << "could not delete all of" << metadata;
    }
    return {};
}

} // namespace

// The backend's file work on worker threads, in order per workspace: a job waits (on its worker)
// for the one asked before it for the same workspace. A job that waits for one not yet started
// takes it from the pool and runs it first (QFuture::waitForFinished), so waiting never starves
// the pool. Shared with the jobs: it outlives a backend destroyed while they run.
class LocalFileWork final : public std::enable_shared_from_this<LocalFileWork>
{
public:
    template<typename Work> auto run(const QString &workspaceId, Work work) -> QFuture<std::invoke_result_t<Work &>>
    {
        using Value = std::invoke_result_t<Work &>;
        QMutexLocker locker(&m_mutex);
        const quint64 ticket = ++m_tickets;
        const auto previous = m_last.constFind(workspaceId);
        const std::optional<QFuture<void>> before =
            previous == m_last.cend() ? std::nullopt : std::optional(previous->done);
        QFuture<Value> job = QtConcurrent::run(
            [self = shared_from_this(), workspaceId, ticket, before, work = std::move(work)]() mutable {
                if (before)
                    QFuture<void>(*before).waitForFinished();
                Value value = work();
                self->finished(workspaceId, ticket);
                return value;
            });
        m_last.insert(workspaceId, Last{ticket, QFuture<void>(job)});
        return job;
    }

    // Whether work on this workspace was asked for and has not finished.
    bool busy(const QString &workspaceId) const
    {
        QMutexLocker locker(&m_mutex);
        return m_last.contains(workspaceId);
    }

private:
    void finished(const QString &workspaceId, quint64 ticket)
    {
        QMutexLocker locker(&m_mutex);
        if (const auto it = m_last.find(workspaceId); it != m_last.end() && it->ticket == ticket)
            m_last.erase(it);
    }

    struct Last
    {
        quint64 ticket = 0;
        QFuture<void> done;
    };
    mutable QMutex m_mutex;
    QHash<QString, Last> m_last; // the last job asked for each workspace, until it finishes
    quint64 m_tickets = 0;
};

LocalBackend::LocalBackend(LocalOptions options, QObject *parent)
    : Backend(parent)
    , m_options(std::move(options))
    , m_basedir(
          QDir::cleanPath(QDir(m_options.basedir.isEmpty() ? defaultBasedir() : m_options.basedir).absolutePath()))
    , m_place(std::make_unique<LocalPlace>(LocalPlace{m_basedir, m_options.layout}))
    , m_work(std::make_shared<LocalFileWork>())
{
}

LocalBackend::~LocalBackend()
{
    m_waits.close();
}

Result<QString> LocalBackend::workspacePath(const QString &sandboxId) const
{
    return m_place->folder(sandboxId);
}

Result<> LocalBackend::checkWritable() const
{
    return checkWritableIn(m_basedir);
}

WorkspaceLayout LocalBackend::layout(const SandboxInfo &sandbox) const
{
    return m_place->layoutOf(sandbox.sandboxId, m_basedir + u'/' + sandbox.sandboxId);
}

Result<SandboxInfo> LocalBackend::readInfo(const QString &sandboxId) const
{
    return readInfoIn(*m_place, sandboxId);
}

QCoro::Task<Result<SandboxInfo>> LocalBackend::readOrdered(QString workspaceId)
{
    if (m_waits.isClosed())
        co_return fail(closedError());
    if (!m_work->busy(workspaceId))
        co_return readInfo(workspaceId);
    QFuture<Result<SandboxInfo>> read =
        m_work->run(workspaceId, [place = *m_place, workspaceId] { return readInfoIn(place, workspaceId); });
    co_return co_await settled(m_waits, std::move(read));
}

QCoro::Task<Result<QList<SandboxInfo>>> LocalBackend::list(ListFilter filter)
{
    if (m_waits.isClosed())
        co_return fail(closedError());
    QList<SandboxInfo> found;
    const auto accept = [&filter](const SandboxInfo &info) {
        return filter.states.isEmpty() || filter.states.contains(info.state);
    };
    if (filter.workspaceId && !m_place->agentscope()) {
        // Local workspaces live at <basedir>/<id>: no scan needed.
        if (auto info = co_await readOrdered(*filter.workspaceId); info && accept(*info))
            found.append(*info);
        else if (!info && info.error().kind != Error::Kind::NotFound)
            co_return fail(info.error());
        co_return found;
    }
    if (filter.workspaceId) {
        // AgentScope's layout: the folder whose agent id hashes to it (names only, on a worker
        // thread: a basedir may hold many).
        QFuture<QString> match = QtConcurrent::run([basedir = m_basedir, id = *filter.workspaceId] {
            const QStringList entries =
                QDir(basedir).entryList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::NoSymLinks, QDir::Name);
            for (const QString &entry : entries) {
                if (validateAgentScopeFolderName(Principal::Agent, entry) && agentscopeWorkspaceId(entry) == id)
                    return entry;
            }
            return QString();
        });
        const QString agent = co_await settled(m_waits, std::move(match));
        if (agent.isEmpty())
            co_return found;
        if (auto info = co_await readOrdered(agent); info && accept(*info))
            found.append(*info);
        else if (!info && info.error().kind != Error::Kind::NotFound)
            co_return fail(info.error());
        co_return found;
    }

    // A full scan reads one file per workspace: off the caller's thread (the console's GUI
    // thread among them). It works on copies, never on this object, which may be gone by the
    // time the scan ends.
    QFuture<QList<SandboxInfo>> scan = QtConcurrent::run([place = *m_place, states = filter.states] {
        QList<SandboxInfo> scanned;
        const QStringList entries =
            QDir(place.basedir).entryList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::NoSymLinks, QDir::Name);
        for (const QString &entry : entries) {
            // In AgentScope's layout a name no agent can have is no workspace (and not a problem).
            if (place.agentscope() && !validateAgentScopeFolderName(Principal::Agent, entry))
                continue;
            auto info = readInfoIn(place, entry);
            if (!info) {
                if (info.error().kind != Error::Kind::NotFound)
                    qCWarning(lcLocal).noquote() << info.error().message;
                continue; // a folder that is not a workspace of ours
            }
            if (states.isEmpty() || states.contains(info->state))
                scanned.append(*info);
        }
        return scanned;
    });
    co_return co_await settled(m_waits, std::move(scan));
}

QCoro::Task<Result<std::optional<QDateTime>>> LocalBackend::sessionsActivity(QString sandboxId)
{
    if (m_waits.isClosed())
        co_return fail(closedError());
    auto path = workspacePath(sandboxId);
    if (!path)
        co_return fail(path.error());
    const QString sessions = *path + QStringLiteral("/sessions");
    QFuture<std::optional<QDateTime>> scan = QtConcurrent::run(newestSessionsChange, sessions);
    co_return co_await settled(m_waits, std::move(scan));
}

namespace Local {

// The last scan of each workspace's processes, for the CPU used since (on the backend's thread).
struct MetricsHistory
{
    struct Last
    {
        ProcScan::Folder folder;
        quint64 uptimeTicks = 0;
        QDateTime at;
    };
    QHash<QString, Last> last;
};

} // namespace Local

QCoro::Task<Result<QList<SandboxMetrics>>> LocalBackend::metrics(QStringList sandboxIds)
{
    if (m_waits.isClosed())
        co_return fail(closedError());
    if (!m_metricsHistory)
        m_metricsHistory = std::make_shared<Local::MetricsHistory>();
    // Held by this frame: the backend may be gone when the scan ends.
    const std::shared_ptr<Local::MetricsHistory> history = m_metricsHistory;
    QHash<QString, QString> folders;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    bool recent = true;
    for (const QString &id : std::as_const(sandboxIds)) {
        if (const auto path = workspacePath(id)) {
            folders.insert(id, *path);
            const auto last = history->last.constFind(id);
            if (last == history->last.constEnd() || last->at.msecsTo(now) > 60000)
                recent = false;
        }
    }
    if (folders.isEmpty())
        co_return QList<SandboxMetrics>();
    using Scans = std::pair<std::optional<Local::ProcScan>, Local::ProcScan>;
    QFuture<Scans> job = QtConcurrent::run([folders = std::move(folders), recent]() -> Scans {
        QHash<QString, QString> present;
        for (auto it = folders.begin(); it != folders.end(); ++it) {
            if (QFileInfo(it.value()).isDir())
                present.insert(it.key(), it.value());
        }
        std::optional<Local::ProcScan> first;
        if (!recent && !present.isEmpty()) {
            first = Local::scanProcesses(present);
            QThread::msleep(250);
        }
        return {first, Local::scanProcesses(present)};
    });
    const Scans scans = co_await settled(m_waits, std::move(job));
    QList<SandboxMetrics> result;
    const Local::ProcScan &scan = scans.second;
    for (auto it = scan.folders.begin(); it != scan.folders.end(); ++it) {
        SandboxMetrics metrics;
        metrics.sandboxId = it.key();
        metrics.sampledAt = scan.at;
        metrics.memoryBytes = it.value().residentBytes;
        if (scans.first && scans.first->folders.contains(it.key())) {
            metrics.cpuPercent = Local::cpuPercentBetween(scans.first->folders.value(it.key()),
                                                          scans.first->uptimeTicks, it.value(), scan.uptimeTicks);
        } else if (const auto last = history->last.constFind(it.key()); last != history->last.constEnd()) {
            metrics.cpuPercent =
                Local::cpuPercentBetween(last->folder, last->uptimeTicks, it.value(), scan.uptimeTicks);
        }
        history->last.insert(it.key(), {it.value(), scan.uptimeTicks, scan.at});
        result.append(metrics);
    }
    // Forget what is not asked for any more, so the history stays as large as the view.
    if (history->last.size() > 4 * scan.folders.size() + 1000) {
        for (auto it = history->last.begin(); it != history->last.end();) {
            if (it->at.msecsTo(scan.at) > 60000)
                it = history->last.erase(it);
            else
                ++it;
        }
    }
    co_return result;
}

namespace {

// The files of a workspace on a worker thread: NotFound when it is no workspace (any more).
template<typename T, typename Work> std::function<Result<T>()> onFiles(LocalPlace place, QString id, Work work)
{
    return [place = std::move(place), id = std::move(id), work = std::move(work)]() -> Result<T> {
        auto folder = place.folder(id);
        if (!folder)
            return fail(folder.error());
        if (!place.isWorkspace(id, *folder))
            return fail(noWorkspace(place, id));
        // In AgentScope's layout Paddock's gateway home is beside the folder, on this computer too.
        const WorkspaceLayout layout = place.layoutOf(id, *folder);
        const HostFolderFiles files(layout, *folder, place.agentscope() ? layout.gatewayHome : QString());
        return work(files);
    };
}

} // namespace

QCoro::Task<Result<QList<FileEntry>>> LocalBackend::listFolder(QString sandboxId, QString path)
{
    if (m_waits.isClosed())
        co_return fail(closedError());
    QFuture<Result<QList<FileEntry>>> job = QtConcurrent::run(onFiles<QList<FileEntry>>(
        *m_place, sandboxId, [path](const HostFolderFiles &files) { return files.listFolder(path); }));
    co_return co_await settled(m_waits, std::move(job));
}

QCoro::Task<Result<FileEntry>> LocalBackend::stat(QString sandboxId, QString path)
{
    if (m_waits.isClosed())
        co_return fail(closedError());
    QFuture<Result<FileEntry>> job = QtConcurrent::run(
        onFiles<FileEntry>(*m_place, sandboxId, [path](const HostFolderFiles &files) { return files.stat(path); }));
    co_return co_await settled(m_waits, std::move(job));
}

QCoro::Task<Result<FileChunk>> LocalBackend::readFile(QString sandboxId, QString path, qint64 offset, qint64 length)
{
    if (m_waits.isClosed())
        co_return fail(closedError());
    QFuture<Result<FileChunk>> job =
        QtConcurrent::run(onFiles<FileChunk>(*m_place, sandboxId, [path, offset, length](const HostFolderFiles &files) {
            return files.readFile(path, offset, length);
        }));
    co_return co_await settled(m_waits, std::move(job));
}

QCoro::Task<Result<>> LocalBackend::download(QString sandboxId, QString path, QString localPath)
{
    if (m_waits.isClosed())
        co_return fail(closedError());
    QFuture<Result<>> job =
        QtConcurrent::run(onFiles<void>(*m_place, sandboxId, [path, localPath](const HostFolderFiles &files) {
            return files.download(path, localPath);
        }));
    co_return co_await settled(m_waits, std::move(job));
}

QCoro::Task<Result<>> LocalBackend::upload(QString sandboxId, QString localPath, QString path)
{
    if (m_waits.isClosed())
        co_return fail(closedError());
    // A write: in order with the other work on this workspace (a kill asked before it ends first).
    QFuture<Result<>> job =
        m_work->run(sandboxId, onFiles<void>(*m_place, sandboxId, [path, localPath](const HostFolderFiles &files) {
                        return files.upload(localPath, path);
                    }));
    co_return co_await settled(m_waits, std::move(job));
}

QCoro::Task<Result<SandboxInfo>> LocalBackend::get(QString sandboxId)
{
    co_return co_await readOrdered(sandboxId);
}

QCoro::Task<Result<SandboxDetails>> LocalBackend::details(QString sandboxId)
{
    auto info = co_await readOrdered(sandboxId);
    if (!info)
        co_return fail(info.error());
    SandboxDetails details;
    details.sandbox = std::move(*info);
    const QString folder = m_place->folder(sandboxId).value_or(QString());
    details.facts.append({Tr::tr("Folder"), folder});
    // An AgentScope folder Paddock has not opened has no metadata of Paddock's yet (it reads Idle).
    const bool idle = m_place->agentscope() && details.sandbox.rawState == QLatin1String("Idle");
    details.facts.append(
        {Tr::tr("Metadata file"),
         idle ? Tr::tr("none yet: Paddock has not opened this folder") : m_place->metadataFile(sandboxId, folder)});
    details.facts.append({Tr::tr("Layout"),
                          m_place->agentscope() ? Tr::tr("AgentScope's (<basedir>/<agent id>)")
                                                : Tr::tr("Paddock's (<basedir>/<workspace id>)")});
    details.facts.append({Tr::tr("Bubblewrap"),
                          m_options.bubblewrap ? Tr::tr("on: commands run with only the workspace writable")
                                               : Tr::tr("off: commands run as this user, unconfined")});
    co_return details;
}

// What follows hands its file work to m_work and, once it is awaited, touches only its locals.

QCoro::Task<Result<SandboxInfo>> LocalBackend::create(CreateSpec spec)
{
    if (m_waits.isClosed())
        co_return fail(closedError());
    // Refused here and now when its ids cannot be (an agent AgentScope refuses, an id it would
    // not give that agent's folder, one that leads out of basedir).
    const auto sandboxId = newSandboxId(*m_place, spec);
    if (!sandboxId)
        co_return fail(sandboxId.error());
    if (auto path = workspacePath(*sandboxId); !path)
        co_return fail(path.error());
    // In order with the other work on its folder.
    QFuture<Result<SandboxInfo>> created =
        m_work->run(*sandboxId, [place = *m_place, spec = std::move(spec)] { return createIn(place, spec); });
    co_return co_await settled(m_waits, std::move(created));
}

QCoro::Task<Result<SandboxInfo>> LocalBackend::connect(QString sandboxId)
{
    if (m_waits.isClosed())
        co_return fail(closedError());
    if (auto path = workspacePath(sandboxId); !path)
        co_return fail(path.error());
    QFuture<Result<SandboxInfo>> connected =
        m_work->run(sandboxId, [place = *m_place, sandboxId] { return connectIn(place, sandboxId); });
    co_return co_await settled(m_waits, std::move(connected));
}

QCoro::Task<Result<SandboxInfo>> LocalBackend::resume(QString sandboxId)
{
    if (m_waits.isClosed())
        co_return fail(closedError());
    if (auto path = workspacePath(sandboxId); !path)
        co_return fail(path.error());
    QFuture<Result<SandboxInfo>> resumed = m_work->run(
        sandboxId, [place = *m_place, sandboxId] { return setStateIn(place, sandboxId, SandboxState::Running); });
    co_return co_await settled(m_waits, std::move(resumed));
}

QCoro::Task<Result<>> LocalBackend::pause(QString sandboxId)
{
    if (m_waits.isClosed())
        co_return fail(closedError());
    if (auto path = workspacePath(sandboxId); !path)
        co_return fail(path.error());
    QFuture<Result<>> paused = m_work->run(sandboxId, [place = *m_place, sandboxId]() -> Result<> {
        auto info = setStateIn(place, sandboxId, SandboxState::Paused);
        if (!info)
            return fail(info.error());
        return {};
    });
    co_return co_await settled(m_waits, std::move(paused));
}

Capabilities LocalBackend::capabilities() const
{
    Capabilities capabilities{Capability::Files, Capability::Exec, Capability::Metrics};
    if (m_place->agentscope())
        capabilities |= Capability::UserNotRecorded;
    return capabilities;
}

QString LocalBackend::hostFolder(const SandboxInfo &sandbox) const
{
    // The folder is named by the sandbox id: the agent's in AgentScope's layout.
    if (m_place->agentscope())
        return workspacePath(sandbox.sandboxId.isEmpty() ? sandbox.agentId : sandbox.sandboxId).value_or(QString());
    return workspacePath(sandbox.workspaceId.isEmpty() ? sandbox.sandboxId : sandbox.workspaceId).value_or(QString());
}

QString LocalBackend::killWarning(const SandboxInfo &sandbox) const
{
    if (!m_place->agentscope())
        return {};
    return Tr::tr("Deletes the folder %1 with every file of the workspace, which AgentScope gives every user of agent "
                  "%2: its data cannot be recovered.")
        .arg(hostFolder(sandbox), sandbox.agentId);
}

Result<> LocalBackend::checkConfiguration() const
{
    return checkWritable();
}

QCoro::Task<Result<>> LocalBackend::kill(QString sandboxId, KillOptions)
{
    if (m_waits.isClosed())
        co_return fail(closedError());
    if (auto path = workspacePath(sandboxId); !path)
        co_return fail(path.error());
    // 20,000 files take a good part of a second to delete: never on the caller's thread.
    QFuture<Result<>> killed =
        m_work->run(sandboxId, [place = *m_place, sandboxId] { return killIn(place, sandboxId); });
    co_return co_await settled(m_waits, std::move(killed));
}

QCoro::Task<Result<SandboxInfo>> LocalBackend::renew(QString sandboxId, std::chrono::seconds duration)
{
    Q_UNUSED(duration);
    co_return fail(
        Error::unsupported(Tr::tr("local workspace %1 does not expire, so it cannot be renewed").arg(sandboxId)));
}

QCoro::Task<Result<bool>> LocalBackend::isReady(QString sandboxId)
{
    if (m_waits.isClosed())
        co_return fail(closedError());
    auto path = workspacePath(sandboxId);
    if (!path)
        co_return fail(path.error());
    if (!m_work->busy(sandboxId))
        co_return QFileInfo(*path).isDir();
    QFuture<bool> ready = m_work->run(sandboxId, [folder = *path] { return QFileInfo(folder).isDir(); });
    co_return co_await settled(m_waits, std::move(ready));
}

QStringList LocalBackend::bubblewrapArguments(const QString &workdir, const QString &cwd) const
{
    QStringList args{
        QStringLiteral("--die-with-parent"), QStringLiteral("--unshare-all"), QStringLiteral("--share-net"),
        QStringLiteral("--ro-bind"),         QStringLiteral("/usr"),          QStringLiteral("/usr")};
    for (const char *dir : {"/bin", "/sbin", "/lib", "/lib64", "/lib32", "/etc"}) {
        const QString path = QString::fromLatin1(dir);
        args << QStringLiteral("--ro-bind-try") << path << path;
    }
    args << QStringLiteral("--proc") << QStringLiteral("/proc") << QStringLiteral("--dev") << QStringLiteral("/dev")
         << QStringLiteral("--tmpfs") << QStringLiteral("/tmp") << QStringLiteral("--bind") << workdir << workdir;
    // AgentScope's layout keeps Paddock's gateway home (its bootstrap marker) beside the folder.
    if (m_place->agentscope()) {
        const QString home = m_place->layoutOf(QFileInfo(workdir).fileName(), workdir).gatewayHome;
        args << QStringLiteral("--bind-try") << home << home;
    }
    args << QStringLiteral("--setenv") << QStringLiteral("HOME") << workdir << QStringLiteral("--chdir")
         << (cwd.startsWith(workdir) ? cwd : workdir) << QStringLiteral("--");
    return args;
}

QCoro::Task<Result<ExecResult>> LocalBackend::exec(QString sandboxId, ExecRequest request)
{
    if (m_waits.isClosed())
        co_return fail(closedError());
    auto path = workspacePath(sandboxId);
    if (!path)
        co_return fail(path.error());
    if (request.argv.isEmpty())
        co_return fail(Error::invalidArgument(Tr::tr("no command to run")));
    if (request.cancel && request.cancel->isCancelled())
        co_return fail(Error{Error::Kind::Cancelled, Tr::tr("cancelled: the command was not started")});
    // A workspace that was never made, or was killed, is not found, as on every backend (not a
    // command that failed to start in a folder that is not there).
    if (!m_place->isWorkspace(sandboxId, *path))
        co_return fail(noWorkspace(*m_place, sandboxId));
    const QString cwd = request.cwd.isEmpty() ? *path : request.cwd;

    QProcess process;
    process.setWorkingDirectory(cwd);
    process.setProcessChannelMode(QProcess::SeparateChannels);
    process.setStandardInputFile(QProcess::nullDevice());
    process.setChildProcessModifier([] {
        ::setsid(); // its own process group, so a timeout ends the whole command
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    });
    if (m_options.bubblewrap) {
        process.setProgram(QStringLiteral("bwrap"));
        process.setArguments(bubblewrapArguments(*path, cwd) + request.argv);
    } else {
        process.setProgram(request.argv.constFirst());
        process.setArguments(request.argv.mid(1));
    }

    ExecResult result;
    LineSplitter out(OutputChannel::Stdout, request.onLine, result.stdOut, request.onData);
    LineSplitter err(OutputChannel::Stderr, request.onLine, result.stdErr, request.onData);
    QObject::connect(&process, &QProcess::readyReadStandardOutput, &process,
                     [&] { out.feed(process.readAllStandardOutput()); });
    QObject::connect(&process, &QProcess::readyReadStandardError, &process,
                     [&] { err.feed(process.readAllStandardError()); });

    // A closing backend stops the command (its whole process group) and ends the wait at once;
    // a cancel stops it the same way, and the wait ends once it has exited.
    const WaitSet::ProcessEnd end = co_await m_waits.run(process, request.timeout, request.cancel);
    if (end == WaitSet::ProcessEnd::Closed) {
        co_return fail(Error{Error::Kind::Cancelled,
                             Tr::tr("cancelled: the local backend was closed, and the command was stopped")});
    }
    if (end == WaitSet::ProcessEnd::Cancelled) {
        out.feed(process.readAllStandardOutput());
        err.feed(process.readAllStandardError());
        out.finish();
        err.finish();
        co_return fail(Error{Error::Kind::Cancelled, Tr::tr("cancelled: the command was stopped")});
    }
    result.timedOut = end == WaitSet::ProcessEnd::TimedOut;
    if (end == WaitSet::ProcessEnd::FailedToStart) {
        if (!QFileInfo(cwd).isDir())
            co_return fail(Error::backend(Tr::tr("cannot run %1: %2").arg(process.program(), process.errorString())));
        // A program that is not there (or cannot be run) is what the command did, as a shell and
        // every other backend report it: exit status 127, the reason on stderr. Only a transport
        // failure is an error.
        err.feed(Tr::tr("cannot run %1: %2").arg(process.program(), process.errorString()).toUtf8() + '\n');
        out.finish();
        err.finish();
        result.exitCode = 127;
        co_return result;
    }
    out.feed(process.readAllStandardOutput());
    err.feed(process.readAllStandardError());
    out.finish();
    err.finish();
    // Killed by a signal: 128 + its number, as a shell, Docker, Kubernetes and bubblewrap report
    // it (QProcess gives the signal as the exit code of a crash).
    if (process.exitStatus() == QProcess::NormalExit)
        result.exitCode = process.exitCode();
    else
        result.exitCode = process.exitCode() > 0 && process.exitCode() < 128 ? 128 + process.exitCode() : -1;
    co_return result;
}

std::optional<TerminalCommand> LocalBackend::terminalCommand(const SandboxInfo &sandbox) const
{
    const auto folder = workspacePath(sandbox.workspaceId.isEmpty() ? sandbox.sandboxId : sandbox.workspaceId);
    if (!folder)
        return std::nullopt;
    QString shell = qEnvironmentVariable("SHELL");
    if (shell.isEmpty() || !QFileInfo(shell).isExecutable())
        shell = QStringLiteral("/bin/sh");
    TerminalCommand command;
    command.workingDirectory = *folder;
    if (m_options.bubblewrap) {
        command.program = QStringLiteral("bwrap");
        command.arguments = bubblewrapArguments(*folder, *folder) << shell;
    } else {
        command.program = shell;
    }
    return command;
}

} // namespace Paddock
