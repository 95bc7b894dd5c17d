#include "e2bfiles.h"

#include "../../tr.h"
#include "../opensandbox/wire.h"

#include <QDir>
#include <QFile>

#include <algorithm>

namespace Paddock::E2B {

namespace {

constexpr int MaxLinks = 40; // as the kernel's ELOOP

bool isUnder(const QString &path, const QString &root)
{
    return !root.isEmpty() && (path == root || path.startsWith(root.endsWith(u'/') ? root : root + u'/'));
}

QString parentOf(const QString &path)
{
    const qsizetype slash = path.lastIndexOf(u'/');
    return slash <= 0 ? QStringLiteral("/") : path.left(slash);
}

QString lastPart(const QString &path)
{
    return path.mid(path.lastIndexOf(u'/') + 1);
}

FileEntry::Kind kindOf(const QJsonValue &type)
{
    // Enums by name, as envd writes them; by number too, as proto3 JSON readers must accept.
    const QString name = type.toString();
    if (name == QLatin1String("FILE_TYPE_FILE") || type.toInt(-1) == 1)
        return FileEntry::Kind::File;
    if (name == QLatin1String("FILE_TYPE_DIRECTORY") || type.toInt(-1) == 2)
        return FileEntry::Kind::Folder;
    if (name == QLatin1String("FILE_TYPE_SYMLINK") || type.toInt(-1) == 3)
        return FileEntry::Kind::Symlink;
    return FileEntry::Kind::Other;
}

Error doesNotExist(const QString &path)
{
    return Error::notFound(Tr::tr("%1 does not exist in the workspace").arg(path));
}

} // namespace

E2BFiles::E2BFiles(std::shared_ptr<EnvdClient> envd, WorkspaceLayout layout)
    : m_envd(std::move(envd))
    , m_layout(std::move(layout))
{
    m_layout.workdir = QDir::cleanPath(m_layout.workdir);
    m_layout.gatewayHome = QDir::cleanPath(m_layout.gatewayHome);
}

FileEntry E2BFiles::entryFrom(const QJsonObject &info)
{
    FileEntry entry;
    entry.name = info.value(QLatin1String("name")).toString();
    entry.kind = kindOf(info.value(QLatin1String("type")));
    // int64 is a JSON string in proto3 JSON; a number is read too.
    const QJsonValue size = info.value(QLatin1String("size"));
    entry.size = entry.kind == FileEntry::Kind::Folder ? 0
        : size.isString()                              ? size.toString().toLongLong()
                                                       : size.toInteger();
    if (const auto modified = OpenSandbox::parseTimestamp(info.value(QLatin1String("modifiedTime")).toString()))
        entry.modified = modified->toUTC();
    if (entry.kind == FileEntry::Kind::Symlink)
        entry.linkTarget = info.value(QLatin1String("symlinkTarget")).toString();
    return entry;
}

QCoro::Task<Result<E2BFiles::Resolved>> E2BFiles::resolve(QString path, bool followLast)
{
    auto confined = confineWorkspacePath(m_layout, path);
    if (!confined)
        co_return fail(confined.error());
    const auto rootOf = [this](const QString &clean) {
        QString best;
        for (const QString &root : {m_layout.workdir, m_layout.gatewayHome}) {
            if (root.size() > best.size() && isUnder(clean, root))
                best = root;
        }
        return best;
    };
    QString at = rootOf(*confined);
    QStringList rest = confined->mid(at.size()).split(u'/', Qt::SkipEmptyParts);
    QJsonObject entry;
    int links = 0;
    if (rest.isEmpty()) {
        auto root = co_await m_envd->stat(at);
        if (!root)
            co_return fail(root.error().kind == Error::Kind::NotFound ? doesNotExist(path) : root.error());
        entry = *root;
    }
    while (!rest.isEmpty()) {
        const QString next = at + u'/' + rest.takeFirst();
        auto info = co_await m_envd->stat(next);
        if (!info)
            co_return fail(info.error().kind == Error::Kind::NotFound ? doesNotExist(path) : info.error());
        const bool last = rest.isEmpty();
        if (kindOf(info->value(QLatin1String("type"))) != FileEntry::Kind::Symlink || (last && !followLast)) {
            at = next;
            entry = *info;
            continue;
        }
        if (++links > MaxLinks)
            co_return fail(Error::invalidArgument(Tr::tr("%1 leads through too many symbolic links").arg(path)));
        const QString target = info->value(QLatin1String("symlinkTarget")).toString();
        if (target.isEmpty())
            co_return fail(Error::backend(Tr::tr("envd did not say where the symbolic link %1 points").arg(next)));
        const QString resolved = QDir::cleanPath(target.startsWith(u'/') ? target : parentOf(next) + u'/' + target);
        if (!resolved.startsWith(u'/') || resolved.startsWith(QLatin1String("/.."))
            || !isInsideWorkspace(m_layout, resolved))
            co_return fail(symlinkEscapes(next, target));
        // Go on from the target's root: the rest of the path follows the target's parts.
        const QString root = rootOf(resolved);
        QStringList parts = resolved.mid(root.size()).split(u'/', Qt::SkipEmptyParts);
        parts.append(rest);
        rest = parts;
        at = root;
        if (rest.isEmpty()) {
            auto rootInfo = co_await m_envd->stat(at);
            if (!rootInfo)
                co_return fail(rootInfo.error());
            entry = *rootInfo;
        }
    }
    co_return Resolved{at, entry};
}

QCoro::Task<Result<QList<FileEntry>>> E2BFiles::listFolder(QString path)
{
    auto folder = co_await resolve(path, true);
    if (!folder)
        co_return fail(folder.error());
    if (kindOf(folder->entry.value(QLatin1String("type"))) != FileEntry::Kind::Folder)
        co_return fail(Error::invalidArgument(Tr::tr("%1 is not a folder").arg(path)));
    auto listed = co_await m_envd->listDir(folder->path, 1);
    if (!listed)
        co_return fail(listed.error().kind == Error::Kind::NotFound ? doesNotExist(path) : listed.error());
    QList<FileEntry> entries;
    entries.reserve(listed->size());
    for (const QJsonObject &info : std::as_const(*listed)) {
        // Depth 1: the folder's own entries (a server that gives more is cut to them).
        if (parentOf(info.value(QLatin1String("path")).toString()) != folder->path)
            continue;
        entries.append(entryFrom(info));
    }
    std::sort(entries.begin(), entries.end(), [](const FileEntry &a, const FileEntry &b) { return a.name < b.name; });
    co_return entries;
}

QCoro::Task<Result<FileEntry>> E2BFiles::stat(QString path)
{
    auto resolved = co_await resolve(path, false);
    if (!resolved)
        co_return fail(resolved.error());
    FileEntry entry = entryFrom(resolved->entry);
    if (entry.name.isEmpty())
        entry.name = lastPart(resolved->path);
    co_return entry;
}

QCoro::Task<Result<FileChunk>> E2BFiles::readFile(QString path, qint64 offset, qint64 length)
{
    if (offset < 0 || length < 0)
        co_return fail(Error::invalidArgument(Tr::tr("a read needs a position and a length of 0 or more")));
    auto file = co_await resolve(path, true);
    if (!file)
        co_return fail(file.error());
    const FileEntry entry = entryFrom(file->entry);
    if (entry.kind != FileEntry::Kind::File)
        co_return fail(Error::invalidArgument(Tr::tr("%1 is not a file").arg(path)));
    FileChunk chunk;
    chunk.offset = offset;
    chunk.totalSize = entry.size;
    const qint64 wanted = std::min({length, MaxFileChunk, std::max<qint64>(0, entry.size - offset)});
    if (wanted == 0)
        co_return chunk;
    // GET /files has no ranges: the bytes before `offset` are skipped as they arrive, and the
    // transfer is stopped once the range is in.
    qint64 skipped = 0;
    QByteArray &data = chunk.data;
    std::function<bool(QByteArrayView)> sink = [&](QByteArrayView piece) {
        if (skipped < offset) {
            const qint64 skip = std::min<qint64>(offset - skipped, piece.size());
            skipped += skip;
            piece = piece.sliced(skip);
        }
        const qint64 take = std::min<qint64>(wanted - data.size(), piece.size());
        data.append(piece.first(take));
        return data.size() < wanted;
    };
    auto read = co_await m_envd->download(file->path, std::move(sink));
    if (!read && !(read.error().kind == Error::Kind::Cancelled && data.size() == wanted))
        co_return fail(read.error().kind == Error::Kind::NotFound ? doesNotExist(path) : read.error());
    co_return chunk;
}

QCoro::Task<Result<>> E2BFiles::download(QString path, QString localPath)
{
    auto file = co_await resolve(path, true);
    if (!file)
        co_return fail(file.error());
    if (entryFrom(file->entry).kind != FileEntry::Kind::File)
        co_return fail(Error::invalidArgument(Tr::tr("%1 is not a file").arg(path)));
    LocalFileWriter writer(localPath);
    if (auto opened = writer.open(); !opened)
        co_return fail(opened.error());
    std::function<bool(QByteArrayView)> sink = [&writer](QByteArrayView piece) { return writer.write(piece); };
    auto fetched = co_await m_envd->download(file->path, std::move(sink));
    if (writer.failed()) {
        writer.cancel();
        co_return fail(writer.writeError());
    }
    if (!fetched) {
        writer.cancel();
        co_return fail(fetched.error().kind == Error::Kind::NotFound ? doesNotExist(path) : fetched.error());
    }
    co_return writer.finish();
}

QCoro::Task<Result<>> E2BFiles::upload(QString localPath, QString path)
{
    QFile local(localPath);
    if (!local.open(QIODevice::ReadOnly))
        co_return fail(Error::io(Tr::tr("cannot read %1: %2").arg(localPath, local.errorString())));
    if (local.size() > MaxUpload) {
        co_return fail(Error::invalidArgument(
            Tr::tr("%1 is larger than %2 MiB, the most one upload to E2B takes").arg(localPath).arg(MaxUpload >> 20)));
    }
    auto confined = confineWorkspacePath(m_layout, path);
    if (!confined)
        co_return fail(confined.error());
    // The folder must be there (envd would make it), inside the workspace.
    auto folder = co_await resolve(parentOf(*confined), true);
    if (!folder)
        co_return fail(folder.error().kind == Error::Kind::NotFound
                           ? Error::notFound(Tr::tr("the folder of %1 does not exist in the workspace").arg(path))
                           : folder.error());
    if (kindOf(folder->entry.value(QLatin1String("type"))) != FileEntry::Kind::Folder)
        co_return fail(Error::invalidArgument(Tr::tr("the folder of %1 is not a folder").arg(path)));
    QString target = folder->path + u'/' + lastPart(*confined);
    // A file there may be a symlink: what it leads to is replaced, if that is inside.
    auto existing = co_await resolve(target, true);
    if (existing) {
        if (entryFrom(existing->entry).kind == FileEntry::Kind::Folder)
            co_return fail(Error::invalidArgument(Tr::tr("%1 is a folder").arg(path)));
        target = existing->path;
    } else if (existing.error().kind != Error::Kind::NotFound) {
        co_return fail(existing.error());
    }
    QByteArray data = local.readAll();
    if (local.error() != QFileDevice::NoError)
        co_return fail(Error::io(Tr::tr("cannot read %1: %2").arg(localPath, local.errorString())));
    co_return co_await m_envd->upload(target, std::move(data));
}

} // namespace Paddock::E2B
