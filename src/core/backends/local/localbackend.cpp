#include "localbackend.h"

#include "../../canceltoken.h"
#include "../../isolation.h"
#include "../../linesplitter.h"
#include "../../logging.h"
#include "../../tr.h"

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
#include <QtConcurrent/QtConcurrentRun>

#include <csignal>
#include <type_traits>

#include <sys/prctl.h>
#include <unistd.h>

namespace Paddock {

namespace {

constexpr auto MetadataDir = "/.paddock";
constexpr auto MetadataFile = "/.paddock/workspace.json";

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

Result<SandboxInfo> readInfoIn(const QString &basedir, const QString &workspaceId)
{
    auto path = workspacePathIn(basedir, workspaceId);
    if (!path)
        return fail(path.error());
    QFile file(*path + QLatin1String(MetadataFile));
    if (!file.open(QIODevice::ReadOnly)) {
        return fail(Error::notFound(Tr::tr("there is no local workspace %1 in %2").arg(workspaceId, basedir)));
    }
    QJsonParseError parseError{};
    const QJsonObject json = QJsonDocument::fromJson(file.readAll(), &parseError).object();
    if (parseError.error != QJsonParseError::NoError) {
        return fail(Error::io(Tr::tr("the metadata of workspace %1 (%2) is damaged: %3")
                                  .arg(workspaceId, file.fileName(), parseError.errorString())));
    }

    SandboxInfo info;
    info.sandboxId = workspaceId;
    info.workspaceId = json.value(QLatin1String("workspaceId")).toString(workspaceId);
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
    info.fingerprint = fingerprintOf(info);
    return info;
}

Result<> writeInfoIn(const QString &basedir, const SandboxInfo &info)
{
    auto path = workspacePathIn(basedir, info.sandboxId);
    if (!path)
        return fail(path.error());
    if (!QDir().mkpath(*path + QLatin1String(MetadataDir)))
        return fail(Error::io(Tr::tr("cannot create %1").arg(*path + QLatin1String(MetadataDir))));

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
    QSaveFile file(*path + QLatin1String(MetadataFile));
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

Result<SandboxInfo> setStateIn(const QString &basedir, const QString &workspaceId, SandboxState state)
{
    auto info = readInfoIn(basedir, workspaceId);
    if (!info)
        return info;
    info->state = state;
    info->rawState = sandboxStateName(state);
    info->lastActivityAt = QDateTime::currentDateTimeUtc();
    if (auto written = writeInfoIn(basedir, *info); !written)
        return fail(written.error());
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

Result<SandboxInfo> createIn(const QString &basedir, const CreateSpec &spec)
{
    auto path = workspacePathIn(basedir, spec.workspaceId);
    if (!path)
        return fail(path.error());
    if (auto writable = checkWritableIn(basedir); !writable)
        return fail(writable.error());
    if (readInfoIn(basedir, spec.workspaceId))
        return fail(Error::conflict(Tr::tr("local workspace %1 already exists").arg(spec.workspaceId)));

    // A folder without our metadata (made by hand or by AgentScope) is adopted with its files.
    const bool existed = QFileInfo(*path).isDir();
    if (!existed && !QDir().mkpath(*path))
        return fail(Error::io(Tr::tr("cannot create the workspace folder %1").arg(*path)));

    SandboxInfo info;
    info.sandboxId = spec.workspaceId;
    info.workspaceId = spec.workspaceId;
    info.userId = spec.userId;
    info.agentId = spec.agentId;
    info.state = SandboxState::Running;
    info.rawState = sandboxStateName(info.state);
    info.backend = QStringLiteral("local");
    info.createdAt = QDateTime::currentDateTimeUtc();
    info.lastActivityAt = info.createdAt;
    info.metadata = spec.metadata;
    info.metadata.insert(UserIdKey, spec.userId);
    info.metadata.insert(AgentIdKey, spec.agentId);
    info.metadata.insert(WorkspaceIdKey, spec.workspaceId); // last, so nothing overrides it
    if (auto written = writeInfoIn(basedir, info); !written) {
        // No half-made workspace: take back what this call created.
        if (!existed)
            QDir(*path).removeRecursively();
        else
            QDir(*path + QLatin1String(MetadataDir)).removeRecursively();
        return fail(written.error());
    }
    qCInfo(lcLocal).noquote() << "created workspace" << *path;
    return info;
}

Result<SandboxInfo> connectIn(const QString &basedir, const QString &workspaceId)
{
    auto info = readInfoIn(basedir, workspaceId);
    if (!info)
        return info;
    if (info->state != SandboxState::Running) {
        return fail(Error::conflict(
            Tr::tr("local workspace %1 is %2, not Running").arg(workspaceId, sandboxStateName(info->state))));
    }
    return setStateIn(basedir, workspaceId, SandboxState::Running);
}

Result<> killIn(const QString &basedir, const QString &workspaceId)
{
    auto path = workspacePathIn(basedir, workspaceId);
    if (!path)
        return fail(path.error());
    if (!readInfoIn(basedir, workspaceId))
        return fail(Error::notFound(Tr::tr("there is no local workspace %1 in %2").arg(workspaceId, basedir)));
    if (!QDir(*path).removeRecursively())
        return fail(Error::io(Tr::tr("could not delete all of %1").arg(*path)));
    qCInfo(lcLocal).noquote() << "deleted workspace folder" << *path;
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
    , m_work(std::make_shared<LocalFileWork>())
{
}

LocalBackend::~LocalBackend()
{
    m_waits.close();
}

Result<QString> LocalBackend::workspacePath(const QString &workspaceId) const
{
    return workspacePathIn(m_basedir, workspaceId);
}

Result<> LocalBackend::checkWritable() const
{
    return checkWritableIn(m_basedir);
}

namespace {

WorkspaceLayout layoutOf(const QString &workdir)
{
    const QString gatewayHome = workdir + QStringLiteral("/.agentscope");
    // No AgentScope marker: AgentScope's local workspaces have no gateway and no bootstrap.
    return {workdir, gatewayHome, gatewayHome + QStringLiteral("/.bootstrap-complete"), {}};
}

} // namespace

WorkspaceLayout LocalBackend::layout(const SandboxInfo &sandbox) const
{
    return layoutOf(m_basedir + u'/' + sandbox.sandboxId);
}

Result<SandboxInfo> LocalBackend::readInfo(const QString &workspaceId) const
{
    return readInfoIn(m_basedir, workspaceId);
}

QCoro::Task<Result<SandboxInfo>> LocalBackend::readOrdered(QString workspaceId)
{
    if (m_waits.isClosed())
        co_return fail(closedError());
    if (!m_work->busy(workspaceId))
        co_return readInfo(workspaceId);
    QFuture<Result<SandboxInfo>> read =
        m_work->run(workspaceId, [basedir = m_basedir, workspaceId] { return readInfoIn(basedir, workspaceId); });
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
    if (filter.workspaceId) {
        // Local workspaces live at <basedir>/<id>: no scan needed.
        if (auto info = co_await readOrdered(*filter.workspaceId); info && accept(*info))
            found.append(*info);
        else if (!info && info.error().kind != Error::Kind::NotFound)
            co_return fail(info.error());
        co_return found;
    }

    // A full scan reads one file per workspace: off the caller's thread (the console's GUI
    // thread among them). It works on copies, never on this object, which may be gone by the
    // time the scan ends.
    QFuture<QList<SandboxInfo>> scan = QtConcurrent::run([basedir = m_basedir, states = filter.states] {
        QList<SandboxInfo> scanned;
        const QStringList entries =
            QDir(basedir).entryList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::NoSymLinks, QDir::Name);
        for (const QString &entry : entries) {
            auto info = readInfoIn(basedir, entry);
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

namespace {

// The files of a workspace on a worker thread: NotFound when it is no workspace (any more).
template<typename T, typename Work> std::function<Result<T>()> onFiles(QString basedir, QString id, Work work)
{
    return [basedir = std::move(basedir), id = std::move(id), work = std::move(work)]() -> Result<T> {
        auto folder = workspacePathIn(basedir, id);
        if (!folder)
            return fail(folder.error());
        if (!QFileInfo(*folder + QLatin1String(MetadataFile)).isFile())
            return fail(Error::notFound(Tr::tr("there is no local workspace %1 in %2").arg(id, basedir)));
        const HostFolderFiles files(layoutOf(*folder), *folder);
        return work(files);
    };
}

} // namespace

QCoro::Task<Result<QList<FileEntry>>> LocalBackend::listFolder(QString sandboxId, QString path)
{
    if (m_waits.isClosed())
        co_return fail(closedError());
    QFuture<Result<QList<FileEntry>>> job = QtConcurrent::run(onFiles<QList<FileEntry>>(
        m_basedir, sandboxId, [path](const HostFolderFiles &files) { return files.listFolder(path); }));
    co_return co_await settled(m_waits, std::move(job));
}

QCoro::Task<Result<FileEntry>> LocalBackend::stat(QString sandboxId, QString path)
{
    if (m_waits.isClosed())
        co_return fail(closedError());
    QFuture<Result<FileEntry>> job = QtConcurrent::run(
        onFiles<FileEntry>(m_basedir, sandboxId, [path](const HostFolderFiles &files) { return files.stat(path); }));
    co_return co_await settled(m_waits, std::move(job));
}

QCoro::Task<Result<FileChunk>> LocalBackend::readFile(QString sandboxId, QString path, qint64 offset, qint64 length)
{
    if (m_waits.isClosed())
        co_return fail(closedError());
    QFuture<Result<FileChunk>> job = QtConcurrent::run(
        onFiles<FileChunk>(m_basedir, sandboxId, [path, offset, length](const HostFolderFiles &files) {
            return files.readFile(path, offset, length);
        }));
    co_return co_await settled(m_waits, std::move(job));
}

QCoro::Task<Result<>> LocalBackend::download(QString sandboxId, QString path, QString localPath)
{
    if (m_waits.isClosed())
        co_return fail(closedError());
    QFuture<Result<>> job =
        QtConcurrent::run(onFiles<void>(m_basedir, sandboxId, [path, localPath](const HostFolderFiles &files) {
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
        m_work->run(sandboxId, onFiles<void>(m_basedir, sandboxId, [path, localPath](const HostFolderFiles &files) {
                        return files.upload(localPath, path);
                    }));
    co_return co_await settled(m_waits, std::move(job));
}

QCoro::Task<Result<SandboxInfo>> LocalBackend::get(QString sandboxId)
{
    co_return co_await readOrdered(sandboxId);
}

// What follows hands its file work to m_work and, once it is awaited, touches only its locals.

QCoro::Task<Result<SandboxInfo>> LocalBackend::create(CreateSpec spec)
{
    if (m_waits.isClosed())
        co_return fail(closedError());
    if (auto path = workspacePath(spec.workspaceId); !path)
        co_return fail(path.error());
    const QString workspaceId = spec.workspaceId;
    QFuture<Result<SandboxInfo>> created =
        m_work->run(workspaceId, [basedir = m_basedir, spec = std::move(spec)] { return createIn(basedir, spec); });
    co_return co_await settled(m_waits, std::move(created));
}

QCoro::Task<Result<SandboxInfo>> LocalBackend::connect(QString sandboxId)
{
    if (m_waits.isClosed())
        co_return fail(closedError());
    if (auto path = workspacePath(sandboxId); !path)
        co_return fail(path.error());
    QFuture<Result<SandboxInfo>> connected =
        m_work->run(sandboxId, [basedir = m_basedir, sandboxId] { return connectIn(basedir, sandboxId); });
    co_return co_await settled(m_waits, std::move(connected));
}

QCoro::Task<Result<SandboxInfo>> LocalBackend::resume(QString sandboxId)
{
    if (m_waits.isClosed())
        co_return fail(closedError());
    if (auto path = workspacePath(sandboxId); !path)
        co_return fail(path.error());
    QFuture<Result<SandboxInfo>> resumed = m_work->run(
        sandboxId, [basedir = m_basedir, sandboxId] { return setStateIn(basedir, sandboxId, SandboxState::Running); });
    co_return co_await settled(m_waits, std::move(resumed));
}

QCoro::Task<Result<>> LocalBackend::pause(QString sandboxId)
{
    if (m_waits.isClosed())
        co_return fail(closedError());
    if (auto path = workspacePath(sandboxId); !path)
        co_return fail(path.error());
    QFuture<Result<>> paused = m_work->run(sandboxId, [basedir = m_basedir, sandboxId]() -> Result<> {
        auto info = setStateIn(basedir, sandboxId, SandboxState::Paused);
        if (!info)
            return fail(info.error());
        return {};
    });
    co_return co_await settled(m_waits, std::move(paused));
}

Capabilities LocalBackend::capabilities() const
{
    return {Capability::Files, Capability::Exec};
}

QString LocalBackend::hostFolder(const SandboxInfo &sandbox) const
{
    return workspacePath(sandbox.workspaceId.isEmpty() ? sandbox.sandboxId : sandbox.workspaceId).value_or(QString());
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
        m_work->run(sandboxId, [basedir = m_basedir, sandboxId] { return killIn(basedir, sandboxId); });
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
         << QStringLiteral("--tmpfs") << QStringLiteral("/tmp") << QStringLiteral("--bind") << workdir << workdir
         << QStringLiteral("--setenv") << QStringLiteral("HOME") << workdir << QStringLiteral("--chdir")
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
    if (!QFileInfo::exists(*path + QLatin1String(MetadataFile)))
        co_return fail(Error::notFound(Tr::tr("there is no local workspace %1 in %2").arg(sandboxId, m_basedir)));
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
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
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
