#include "workspacefiles.h"

#include "tr.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

#include <algorithm>
#include <cerrno>
#include <cstring>

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

QString readLink(const QString &hostPath)
{
    QByteArray buffer(4096, Qt::Uninitialized);
    const ssize_t length = ::readlink(QFile::encodeName(hostPath).constData(), buffer.data(), buffer.size());
    if (length < 0)
        return {};
    buffer.truncate(length);
    return QFile::decodeName(buffer);
}

// lstat: a symlink as itself.
Result<FileEntry> entryAt(const QString &hostPath, const QString &shownPath)
{
    struct stat status = {};
    if (::lstat(QFile::encodeName(hostPath).constData(), &status) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return fail(Error::notFound(Tr::tr("%1 does not exist in the workspace").arg(shownPath)));
        return fail(Error::io(Tr::tr("cannot read %1: %2").arg(shownPath, reason())));
    }
    FileEntry entry;
    entry.name = shownPath.section(u'/', -1);
    entry.kind = kindOf(status.st_mode);
    entry.size = entry.kind == FileEntry::Kind::Folder ? 0 : qint64(status.st_size);
    entry.modified = QDateTime::fromMSecsSinceEpoch(
        qint64(status.st_mtim.tv_sec) * 1000 + status.st_mtim.tv_nsec / 1'000'000, Qt::UTC);
    if (entry.kind == FileEntry::Kind::Symlink)
        entry.linkTarget = readLink(hostPath);
    return entry;
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

Result<QString> HostFolderFiles::resolve(const QString &given, bool followLast) const
{
    auto confined = confineWorkspacePath(m_layout, given);
    if (!confined)
        return fail(confined.error());
    QString path = *confined;
    // Walk the parts below the workdir (or the gateway home); a symlink met on the way is replaced
    // by its target, read as the sandbox would (absolute: a sandbox path), and the result must
    // stay inside.
    constexpr int MaxHops = 40;
    int hops = 0;
    qsizetype done = -1; // from the root that holds the path: the backend's to trust
    while (true) {
        const QString root = rootOf(path);
        if (root.isEmpty()) {
            return fail(Error::unsupported(Tr::tr("%1 is not in the workspace's folder on this computer").arg(path)));
        }
        done = std::max(done, root.size());
        if (done >= path.size())
            return toHost(path);
        qsizetype next = path.indexOf(u'/', done + 1);
        if (next < 0)
            next = path.size();
        const QString prefix = path.left(next);
        const bool last = next == path.size();
        struct stat status = {};
        if (::lstat(QFile::encodeName(toHost(prefix)).constData(), &status) != 0)
            return toHost(path); // not there: the call says NotFound itself
        if (!S_ISLNK(status.st_mode) || (last && !followLast)) {
            done = next;
            continue;
        }
        if (++hops > MaxHops)
            return fail(Error::io(Tr::tr("%1: too many levels of symbolic links").arg(given)));
        const QString target = readLink(toHost(prefix));
        const QString base = prefix.section(u'/', 0, -2);
        const QString resolved =
            QDir::cleanPath((target.startsWith(u'/') ? target : base + u'/' + target) + path.mid(next));
        if (!resolved.startsWith(u'/') || resolved.startsWith(QLatin1String("/.."))
            || !isInsideWorkspace(m_layout, resolved))
            return fail(symlinkEscapes(prefix, target));
        path = resolved;
        done = -1;
    }
}

Result<FileEntry> HostFolderFiles::stat(const QString &path) const
{
    auto host = resolve(path, false);
    if (!host)
        return fail(host.error());
    return entryAt(*host, path.isEmpty() ? QStringLiteral(".") : path);
}

Result<QList<FileEntry>> HostFolderFiles::listFolder(const QString &path) const
{
    auto host = resolve(path, true);
    if (!host)
        return fail(host.error());
    const QString shown = path.isEmpty() ? QStringLiteral(".") : path;
    auto self = entryAt(*host, shown);
    if (!self)
        return fail(self.error());
    if (self->kind != FileEntry::Kind::Folder)
        return fail(Error::invalidArgument(Tr::tr("%1 is not a folder").arg(shown)));
    QList<FileEntry> entries;
    const QStringList names =
        QDir(*host).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
    for (const QString &name : names) {
        auto entry = entryAt(*host + u'/' + name, name);
        if (entry)
            entries.append(*entry);
        // else: gone since the listing; not an entry any more
    }
    return entries;
}

Result<> HostFolderFiles::openFile(const QString &path, QFile &file) const
{
    auto host = resolve(path, true);
    if (!host)
        return fail(host.error());
    auto self = entryAt(*host, path);
    if (!self)
        return fail(self.error());
    if (self->kind != FileEntry::Kind::File)
        return fail(Error::invalidArgument(Tr::tr("%1 is not a file").arg(path)));
    file.setFileName(*host);
    if (!file.open(QIODevice::ReadOnly)) {
        if (!QFileInfo::exists(*host))
            return fail(Error::notFound(Tr::tr("%1 vanished while it was read").arg(path)));
        return fail(Error::io(Tr::tr("cannot read %1: %2").arg(path, file.errorString())));
    }
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
    auto host = resolve(path, true);
    if (!host)
        return fail(host.error());
    struct stat status = {};
    if (::stat(QFile::encodeName(*host).constData(), &status) == 0 && !S_ISREG(status.st_mode))
        return fail(Error::invalidArgument(Tr::tr("%1 exists and is not a file").arg(path)));
    if (!QFileInfo(QFileInfo(*host).absolutePath()).isDir())
        return fail(Error::notFound(Tr::tr("the folder of %1 does not exist in the workspace").arg(path)));
    QFile file(localPath);
    if (!file.open(QIODevice::ReadOnly))
        return fail(Error::io(Tr::tr("cannot read %1: %2").arg(localPath, file.errorString())));
    if (QFileInfo(localPath).isDir())
        return fail(Error::invalidArgument(Tr::tr("%1 is a folder").arg(localPath)));
    return copyInto(file, localPath, *host, path);
}

} // namespace Paddock
