#include "workspacefiles.h"

#include "tr.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QSaveFile>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Paddock {

namespace {

bool isUnder(const QString &path, const QString &root)
{
    if (root.isEmpty())
        return false;
    if (path == root)
        return true;
    const QString prefix = root.endsWith(u'/') ? root : root + u'/';
    return path.startsWith(prefix);
}

QString reason()
{
    return QString::fromLocal8Bit(std::strerror(errno));
}

FileEntry::Kind kindOf(mode_t mode)
{
    if (S_ISREG(mode))
        return FileEntry::Kind::File;
    if (S_ISDIR(mode))
        return FileEntry::Kind::Folder;
    if (S_ISLNK(mode))
        return FileEntry::Kind::Symlink;
    return FileEntry::Kind::Other;
}

// A descriptor, closed when dropped.
class HostFd
{
public:
    HostFd() = default;
    explicit HostFd(int fd)
        : m_fd(fd)
    {
    }
    ~HostFd()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    HostFd(HostFd &&other) noexcept
        : m_fd(std::exchange(other.m_fd, -1))
    {
    }
    HostFd &operator=(HostFd &&other) noexcept
    {
        if (this != &other) {
            if (m_fd >= 0)
                ::close(m_fd);
            m_fd = std::exchange(other.m_fd, -1);
        }
        return *this;
    }
    Q_DISABLE_COPY(HostFd)

    explicit operator bool() const { return m_fd >= 0; }
    int get() const { return m_fd; }
    int release() { return std::exchange(m_fd, -1); }

private:
    int m_fd = -1;
};

// What the symlink `relative` in `folder` says (`relative` empty: `folder` is the link, opened
// O_PATH | O_NOFOLLOW).
QString linkTargetOf(int folder, const char *relative)
{
    QByteArray buffer(4096, Qt::Uninitialized);
    const ssize_t length = ::readlinkat(folder, relative, buffer.data(), buffer.size());
    if (length < 0)
        return {};
    buffer.truncate(length);
    return QFile::decodeName(buffer);
}

// The entry of what `status` describes (a symlink as itself; its target read from `relative` in
// `folder`).
FileEntry entryOf(const struct stat &status, const QString &name, int folder, const char *relative)
{
    FileEntry entry;
    entry.name = name;
    entry.kind = kindOf(status.st_mode);
    entry.size = entry.kind == FileEntry::Kind::Folder ? 0 : qint64(status.st_size);
    entry.modified = QDateTime::fromMSecsSinceEpoch(
        qint64(status.st_mtim.tv_sec) * 1000 + status.st_mtim.tv_nsec / 1'000'000, Qt::UTC);
    if (entry.kind == FileEntry::Kind::Symlink)
        entry.linkTarget = linkTargetOf(folder, relative);
    return entry;
}

// A path the walk did not reach the end of.
Error notThere(int error, const QString &shownPath)
{
    if (error == ENOENT || error == ENOTDIR)
        return Error::notFound(Tr::tr("%1 does not exist in the workspace").arg(shownPath));
    return Error::io(Tr::tr("cannot read %1: %2").arg(shownPath, QString::fromLocal8Bit(std::strerror(error))));
}

// Writes `from` as `name` in the open `folder`, whole or not at all: under a temporary name
// created there (never through a link), synced, then renamed over `name` in that same folder.
// `keep`: the permissions of the file replaced; -1: a new file, 0666 less the umask.
Result<> writeInFolder(int folder, const QString &name, int keep, QFile &from, const QString &shownFrom,
                       const QString &shownTo)
{
    const auto cannotWrite = [&shownTo] { return Error::io(Tr::tr("cannot write %1: %2").arg(shownTo, reason())); };
    QByteArray temporary;
    HostFd out;
    for (int attempt = 0; attempt < 16 && !out; ++attempt) {
        temporary =
            QByteArrayLiteral(".paddock-upload-") + QByteArray::number(QRandomGenerator::global()->generate64(), 16);
        out = HostFd(::openat(folder, temporary.constData(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                              keep >= 0 ? 0600 : 0666));
        if (!out && errno != EEXIST)
            break;
    }
    if (!out)
        return fail(cannotWrite());
    const auto dropped = [folder, &temporary](const Error &error) {
        ::unlinkat(folder, temporary.constData(), 0);
        return fail(error);
    };
    if (keep >= 0 && ::fchmod(out.get(), mode_t(keep)) != 0)
        return dropped(cannotWrite());
    QByteArray buffer(256 * 1024, Qt::Uninitialized);
    while (true) {
        const qint64 got = from.read(buffer.data(), buffer.size());
        if (got < 0)
            return dropped(Error::io(Tr::tr("cannot read %1: %2").arg(shownFrom, from.errorString())));
        if (got == 0)
            break;
        for (qint64 written = 0; written < got;) {
            const ssize_t wrote = ::write(out.get(), buffer.constData() + written, size_t(got - written));
            if (wrote < 0 && errno == EINTR)
                continue;
            if (wrote < 0)
                return dropped(cannotWrite());
            written += wrote;
        }
    }
    if (::fsync(out.get()) != 0 || ::close(out.release()) != 0)
        return dropped(cannotWrite());
    if (::renameat(folder, temporary.constData(), folder, QFile::encodeName(name).constData()) != 0)
        return dropped(cannotWrite());
    return {};
}

} // namespace

bool isInsideWorkspace(const WorkspaceLayout &layout, const QString &cleanAbsolutePath)
{
    return isUnder(cleanAbsolutePath, QDir::cleanPath(layout.workdir))
        || isUnder(cleanAbsolutePath, QDir::cleanPath(layout.gatewayHome));
}

LocalFileWriter::LocalFileWriter(const QString &path, const QString &shownPath)
    : m_file(std::make_unique<QSaveFile>(path))
    , m_shown(shownPath.isEmpty() ? path : shownPath)
{
}

LocalFileWriter::~LocalFileWriter() = default;

Result<> LocalFileWriter::open()
{
    if (!m_file->open(QIODevice::WriteOnly))
        return fail(Error::io(Tr::tr("cannot write %1: %2").arg(m_shown, m_file->errorString())));
    return {};
}

bool LocalFileWriter::write(QByteArrayView data)
{
    if (m_failed)
        return false;
    if (m_file->write(data.data(), data.size()) != data.size()) {
        m_failed = true;
        m_why = m_file->errorString();
    }
    return !m_failed;
}

Error LocalFileWriter::writeError() const
{
    return Error::io(Tr::tr("cannot write %1: %2").arg(m_shown, m_why));
}

void LocalFileWriter::cancel()
{
    m_file->cancelWriting();
}

Result<> LocalFileWriter::finish()
{
    if (m_failed) {
        cancel();
        return fail(writeError());
    }
    if (!m_file->flush()) {
        m_failed = true;
        m_why = m_file->errorString();
        cancel();
        return fail(writeError());
    }
    if (!m_file->commit())
        return fail(Error::io(Tr::tr("cannot write %1: %2").arg(m_shown, m_file->errorString())));
    return {};
}

Result<QString> confineWorkspacePath(const WorkspaceLayout &layout, const QString &path)
{
    if (path.contains(QChar(0)))
        return fail(Error::invalidArgument(Tr::tr("the path \"%1\" holds a NUL character").arg(path)));
    if (layout.workdir.isEmpty())
        return fail(Error::unsupported(Tr::tr("this workspace has no folder to read files from")));
    const QString workdir = QDir::cleanPath(layout.workdir);
    QString absolute;
    if (path.isEmpty() || path == QLatin1String("."))
        absolute = workdir;
    else if (path.startsWith(u'/'))
        absolute = path;
    else
        absolute = workdir + u'/' + path;
    // cleanPath keeps a leading ".." it cannot climb past ("/.." stays "/.."): a path made only
    // of such climbs is outside whatever the workspace is.
    const QString clean = QDir::cleanPath(absolute);
    if (!clean.startsWith(u'/') || clean.startsWith(QLatin1String("/..")) || !isInsideWorkspace(layout, clean)) {
        return fail(Error::invalidArgument(Tr::tr("the path \"%1\" is outside the workspace (%2)").arg(path, workdir)));
    }
    return clean;
}

Error symlinkEscapes(const QString &path, const QString &target)
{
    return Error::invalidArgument(
        Tr::tr("%1 is a symbolic link to %2, outside the workspace: not followed").arg(path, target));
}

HostFolderFiles::HostFolderFiles(WorkspaceLayout layout, QString hostWorkdir, QString hostGatewayHome)
    : m_layout(std::move(layout))
    , m_hostWorkdir(QDir::cleanPath(hostWorkdir))
    , m_hostGatewayHome(hostGatewayHome.isEmpty() ? QString() : QDir::cleanPath(hostGatewayHome))
{
    m_layout.workdir = QDir::cleanPath(m_layout.workdir);
    m_layout.gatewayHome = QDir::cleanPath(m_layout.gatewayHome);
}

QString HostFolderFiles::rootOf(const QString &sandboxPath) const
{
    if (isUnder(sandboxPath, m_layout.workdir))
        return m_layout.workdir;
    if (!m_hostGatewayHome.isEmpty() && isUnder(sandboxPath, m_layout.gatewayHome))
        return m_layout.gatewayHome;
    return {};
}

QString HostFolderFiles::toHost(const QString &sandboxPath) const
{
    const QString root = rootOf(sandboxPath);
    const QString host = root == m_layout.workdir ? m_hostWorkdir : m_hostGatewayHome;
    return host + sandboxPath.mid(root.size());
}

// Each part below the root is opened relative to the folder before it, without following links
// (O_PATH | O_NOFOLLOW): a symlink met is read through its own descriptor, replaced by its target
// as the sandbox reads it, and the walk starts again from the root. What the walk ends on is held
// open, so a name changed afterwards no longer matters.
struct HostFolderFiles::Walk
{
    QString path; // the sandbox path it led to (its links replaced)
    HostFd folder; // the folder that holds the last part; not open for the root itself, or when a
                   // folder on the way is not there
    QString name; // the last part's name in `folder`
    HostFd fd; // the last part (O_PATH); not open when it is not there
    struct stat status = {}; // of `fd`
    int error = 0; // errno where the walk stopped short (ENOENT, ENOTDIR: not there)
};

Result<HostFolderFiles::Walk> HostFolderFiles::walk(const QString &given, bool followLast) const
{
    auto confined = confineWorkspacePath(m_layout, given);
    if (!confined)
        return fail(confined.error());
    QString path = *confined;
    // Where the walk ends, before the call uses what it holds.
    const auto reached = [](Walk walked) -> Result<Walk> {
        if (detail::hostFolderFilesWalked)
            detail::hostFolderFilesWalked(walked.path);
        return walked;
    };
    constexpr int MaxHops = 40;
    int hops = 0;
    while (true) {
        const QString root = rootOf(path);
        if (root.isEmpty()) {
            return fail(Error::unsupported(Tr::tr("%1 is not in the workspace's folder on this computer").arg(path)));
        }
        Walk walked;
        walked.path = path;
        // The root itself is the backend's to trust.
        const QString hostRoot = root == m_layout.workdir ? m_hostWorkdir : m_hostGatewayHome;
        HostFd current(::open(QFile::encodeName(hostRoot).constData(), O_PATH | O_DIRECTORY | O_CLOEXEC));
        if (!current) {
            walked.error = errno;
            return reached(std::move(walked));
        }
        bool relinked = false;
        qsizetype done = root.size();
        while (done < path.size()) {
            const qsizetype start = path.at(done) == u'/' ? done + 1 : done;
            qsizetype next = path.indexOf(u'/', start);
            if (next < 0)
                next = path.size();
            const QString part = path.mid(start, next - start);
            const bool last = next == path.size();
            HostFd opened(
                ::openat(current.get(), QFile::encodeName(part).constData(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
            struct stat status = {};
            if (!opened || ::fstatat(opened.get(), "", &status, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) != 0) {
                walked.error = errno;
                if (last) {
                    walked.folder = std::move(current);
                    walked.name = part;
                }
                return reached(std::move(walked)); // not there: the call says NotFound itself
            }
            if (S_ISLNK(status.st_mode) && (!last || followLast)) {
                if (++hops > MaxHops)
                    return fail(Error::io(Tr::tr("%1: too many levels of symbolic links").arg(given)));
                const QString prefix = path.left(next);
                const QString target = linkTargetOf(opened.get(), "");
                const QString base = prefix.section(u'/', 0, -2);
                const QString resolved =
                    QDir::cleanPath((target.startsWith(u'/') ? target : base + u'/' + target) + path.mid(next));
                if (!resolved.startsWith(u'/') || resolved.startsWith(QLatin1String("/.."))
                    || !isInsideWorkspace(m_layout, resolved))
                    return fail(symlinkEscapes(prefix, target));
                path = resolved;
                relinked = true;
                break;
            }
            if (last) {
                walked.folder = std::move(current);
                walked.name = part;
                walked.fd = std::move(opened);
                walked.status = status;
                break;
            }
            if (!S_ISDIR(status.st_mode)) {
                walked.error = ENOTDIR;
                return reached(std::move(walked));
            }
            current = std::move(opened);
            done = next;
        }
        if (relinked)
            continue;
        if (!walked.fd) { // the root itself
            if (::fstat(current.get(), &walked.status) != 0) {
                walked.error = errno;
                return reached(std::move(walked));
            }
            walked.fd = std::move(current);
        }
        return reached(std::move(walked));
    }
}

Result<QString> HostFolderFiles::resolve(const QString &given, bool followLast) const
{
    auto walked = walk(given, followLast);
    if (!walked)
        return fail(walked.error());
    return toHost(walked->path);
}

Result<FileEntry> HostFolderFiles::stat(const QString &path) const
{
    auto walked = walk(path, false);
    if (!walked)
        return fail(walked.error());
    const QString shown = path.isEmpty() ? QStringLiteral(".") : path;
    if (!walked->fd)
        return fail(notThere(walked->error, shown));
    return entryOf(walked->status, shown.section(u'/', -1), walked->fd.get(), "");
}

Result<QList<FileEntry>> HostFolderFiles::listFolder(const QString &path) const
{
    auto walked = walk(path, true);
    if (!walked)
        return fail(walked.error());
    const QString shown = path.isEmpty() ? QStringLiteral(".") : path;
    if (!walked->fd)
        return fail(notThere(walked->error, shown));
    if (!S_ISDIR(walked->status.st_mode))
        return fail(Error::invalidArgument(Tr::tr("%1 is not a folder").arg(shown)));
    // "." of the folder's own descriptor: the folder the walk checked, not whatever has its name now.
    const int listed = ::openat(walked->fd.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (listed < 0)
        return fail(Error::io(Tr::tr("cannot read %1: %2").arg(shown, reason())));
    DIR *folder = ::fdopendir(listed);
    if (!folder) {
        const QString why = reason();
        ::close(listed);
        return fail(Error::io(Tr::tr("cannot read %1: %2").arg(shown, why)));
    }
    QList<FileEntry> entries;
    while (true) {
        errno = 0;
        const dirent *item = ::readdir(folder);
        if (!item) {
            if (errno != 0) {
                const QString why = reason();
                ::closedir(folder);
                return fail(Error::io(Tr::tr("cannot read %1: %2").arg(shown, why)));
            }
            break;
        }
        if (std::strcmp(item->d_name, ".") == 0 || std::strcmp(item->d_name, "..") == 0)
            continue;
        struct stat status = {};
        if (::fstatat(::dirfd(folder), item->d_name, &status, AT_SYMLINK_NOFOLLOW) != 0)
            continue; // gone since the listing; not an entry any more
        entries.append(entryOf(status, QFile::decodeName(item->d_name), ::dirfd(folder), item->d_name));
    }
    ::closedir(folder);
    std::sort(entries.begin(), entries.end(), [](const FileEntry &a, const FileEntry &b) { return a.name < b.name; });
    return entries;
}

Result<> HostFolderFiles::openFile(const QString &path, QFile &file) const
{
    auto walked = walk(path, true);
    if (!walked)
        return fail(walked.error());
    if (!walked->fd)
        return fail(notThere(walked->error, path));
    if (!S_ISREG(walked->status.st_mode))
        return fail(Error::invalidArgument(Tr::tr("%1 is not a file").arg(path)));
    // An O_PATH descriptor cannot be read: the file is opened again in the folder the walk holds,
    // without following a link (nor waiting on a fifo), and must be the file the walk checked.
    HostFd readable(::openat(walked->folder.get(), QFile::encodeName(walked->name).constData(),
                             O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    struct stat status = {};
    if (!readable) {
        if (errno == ENOENT || errno == ELOOP)
            return fail(Error::notFound(Tr::tr("%1 vanished while it was read").arg(path)));
        return fail(Error::io(Tr::tr("cannot read %1: %2").arg(path, reason())));
    }
    if (::fstat(readable.get(), &status) != 0)
        return fail(Error::io(Tr::tr("cannot read %1: %2").arg(path, reason())));
    if (status.st_dev != walked->status.st_dev || status.st_ino != walked->status.st_ino)
        return fail(Error::notFound(Tr::tr("%1 vanished while it was read").arg(path)));
    if (!file.open(readable.get(), QIODevice::ReadOnly, QFileDevice::AutoCloseHandle))
        return fail(Error::io(Tr::tr("cannot read %1: %2").arg(path, file.errorString())));
    readable.release();
    return {};
}

Result<FileChunk> HostFolderFiles::readFile(const QString &path, qint64 offset, qint64 length) const
{
    if (offset < 0 || length < 0)
        return fail(Error::invalidArgument(Tr::tr("a read needs an offset and a length of 0 or more")));
    QFile file;
    if (auto opened = openFile(path, file); !opened)
        return fail(opened.error());
    FileChunk chunk;
    chunk.offset = offset;
    chunk.totalSize = file.size();
    if (offset < chunk.totalSize) {
        if (!file.seek(offset))
            return fail(Error::io(Tr::tr("cannot read %1: %2").arg(path, file.errorString())));
        chunk.data = file.read(std::min(length, MaxFileChunk));
    }
    return chunk;
}

namespace {

// Copies `from` (already opened) into a LocalFileWriter at `to`; nothing is left at `to` on failure.
Result<> copyInto(QFile &from, const QString &shownFrom, const QString &to, const QString &shownTo)
{
    LocalFileWriter out(to, shownTo);
    if (auto opened = out.open(); !opened)
        return opened;
    QByteArray buffer(256 * 1024, Qt::Uninitialized);
    while (true) {
        const qint64 got = from.read(buffer.data(), buffer.size());
        if (got < 0) {
            out.cancel();
            return fail(Error::io(Tr::tr("cannot read %1: %2").arg(shownFrom, from.errorString())));
        }
        if (got == 0)
            break;
        if (!out.write(QByteArrayView(buffer.constData(), got))) {
            out.cancel();
            return fail(out.writeError());
        }
    }
    return out.finish();
}

} // namespace

Result<> HostFolderFiles::download(const QString &path, const QString &localPath) const
{
    QFile file;
    if (auto opened = openFile(path, file); !opened)
        return fail(opened.error());
    return copyInto(file, path, localPath, localPath);
}

Result<> HostFolderFiles::upload(const QString &localPath, const QString &path) const
{
    auto confined = confineWorkspacePath(m_layout, path);
    if (!confined)
        return fail(confined.error());
    if (*confined == m_layout.workdir)
        return fail(Error::invalidArgument(Tr::tr("%1 is a folder").arg(path)));
    auto walked = walk(path, true);
    if (!walked)
        return fail(walked.error());
    if (walked->fd && !S_ISREG(walked->status.st_mode))
        return fail(Error::invalidArgument(Tr::tr("%1 exists and is not a file").arg(path)));
    if (!walked->folder)
        return fail(Error::notFound(Tr::tr("the folder of %1 does not exist in the workspace").arg(path)));
    QFile file(localPath);
    if (!file.open(QIODevice::ReadOnly))
        return fail(Error::io(Tr::tr("cannot read %1: %2").arg(localPath, file.errorString())));
    if (QFileInfo(localPath).isDir())
        return fail(Error::invalidArgument(Tr::tr("%1 is a folder").arg(localPath)));
    // As QSaveFile did: a new file gets 0666 less the umask; one replaced keeps its permissions
    // (its temporary copy is private until then).
    const int keep = walked->fd ? int(walked->status.st_mode & 0777) : -1;
    return writeInFolder(walked->folder.get(), walked->name, keep, file, localPath, path);
}

namespace detail {
std::function<void(const QString &)> hostFolderFilesWalked;
} // namespace detail

} // namespace Paddock
