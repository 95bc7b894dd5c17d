#include "execdfiles.h"

#include "../../shellquote.h"
#include "../../tr.h"

#include <QFile>
#include <QFileInfo>

#include <algorithm>

namespace Paddock::OpenSandbox {

namespace {

bool isUnder(const QString &path, const QString &root)
{
    if (root.isEmpty())
        return false;
    return path == root || path.startsWith(root.endsWith(u'/') ? root : root + u'/');
}

QString lastPart(const QString &path)
{
    const qsizetype slash = path.lastIndexOf(u'/');
    return slash < 0 ? path : path.mid(slash + 1);
}

QString parentOf(const QString &path)
{
    const qsizetype slash = path.lastIndexOf(u'/');
    return slash <= 0 ? QStringLiteral("/") : path.left(slash);
}

FileEntry entryFrom(const FileInfo &info, const QString &name)
{
    FileEntry entry;
    entry.name = name;
    if (info.type == QLatin1String("file"))
        entry.kind = FileEntry::Kind::File;
    else if (info.type == QLatin1String("directory"))
        entry.kind = FileEntry::Kind::Folder;
    else if (info.type == QLatin1String("symlink"))
        entry.kind = FileEntry::Kind::Symlink;
    else
        entry.kind = FileEntry::Kind::Other;
    entry.size = entry.kind == FileEntry::Kind::Folder ? 0 : info.size;
    entry.modified = info.modifiedAt.toUTC();
    return entry;
}

Error doesNotExist(const QString &path)
{
    return Error::notFound(Tr::tr("%1 does not exist in the workspace").arg(path));
}

} // namespace

ExecdFiles::ExecdFiles(std::shared_ptr<ExecdClient> client, WorkspaceLayout layout)
    : m_client(std::move(client))
    , m_layout(std::move(layout))
{
}

QCoro::Task<Result<ExecResult>> ExecdFiles::shell(QString script, QStringList arguments)
{
    QStringList argv{QStringLiteral("sh"), QStringLiteral("-c"), script, QStringLiteral("sh")};
    argv.append(arguments);
    ExecdCommand command;
    command.command = shellJoin(argv);
    command.cwd = m_layout.workdir;
    command.timeout = std::chrono::seconds(30);
    // Named, never temporaries in a co_await (GCC 12, README.md).
    std::function<void(OutputChannel, const QByteArray &)> noLines;
    auto ran = co_await m_client->run(std::move(command), std::move(noLines));
    co_return ran;
}

QCoro::Task<Result<QStringList>> ExecdFiles::readLinks(QStringList paths)
{
    if (paths.isEmpty())
        co_return QStringList();
    // One line each (a target that holds a newline is cut at it); an unreadable link: empty.
    const QString script = QStringLiteral("for p do readlink -- \"$p\" || echo; done");
    auto ran = co_await shell(script, paths);
    if (!ran)
        co_return fail(ran.error());
    QStringList targets = QString::fromUtf8(ran->stdOut).split(u'\n');
    targets.resize(paths.size());
    co_return targets;
}

QCoro::Task<Result<ExecdFiles::Resolved>> ExecdFiles::resolve(QString path, bool followLast)
{
    const auto confined = confineWorkspacePath(m_layout, path);
    if (!confined)
        co_return fail(confined.error());
    const QString clean = *confined;
    const QString root = isUnder(clean, m_layout.workdir) ? m_layout.workdir : m_layout.gatewayHome;
    // The path and each folder on its way below the root (the root is the layout's, trusted).
    QStringList chain;
    QString at = root;
    const QStringList parts = clean.mid(root.size()).split(u'/', Qt::SkipEmptyParts);
    for (const QString &part : parts) {
        at += u'/' + part;
        chain.append(at);
    }
    if (chain.isEmpty())
        chain.append(root);
    auto infos = co_await m_client->fileInfo(chain);
    qsizetype symlinkAt = -1;
    if (infos) {
        const qsizetype checked = followLast ? chain.size() : chain.size() - 1;
        for (qsizetype i = 0; i < checked && symlinkAt < 0; ++i) {
            if (infos->value(chain[i]).type == QLatin1String("symlink"))
                symlinkAt = i;
        }
        if (symlinkAt < 0)
            co_return Resolved{clean, infos->value(clean)};
    } else if (infos.error().kind != Error::Kind::NotFound) {
        co_return fail(infos.error());
    }
    // A symlink on the way, or something missing (perhaps behind a symlink that leads out):
    // where the path really leads, as the sandbox resolves it.
    const QString first = symlinkAt >= 0 ? chain[symlinkAt] : clean;
    const QString target = followLast ? clean : parentOf(clean);
    // Two lines, each empty where readlink could not resolve the path.
    const QString script = QStringLiteral("printf '%s\\n' \"$(readlink -f -- \"$1\")\" \"$(readlink -f -- \"$2\")\"");
    QStringList arguments{first, target};
    auto ran = co_await shell(script, std::move(arguments));
    if (!ran)
        co_return fail(ran.error());
    const QStringList lines = QString::fromUtf8(ran->stdOut).split(u'\n');
    const QString linkLeadsTo = lines.value(0);
    const QString real = lines.value(1);
    if (!linkLeadsTo.isEmpty() && !isInsideWorkspace(m_layout, linkLeadsTo))
        co_return fail(symlinkEscapes(first, linkLeadsTo));
    if (!infos && (real.isEmpty() || isInsideWorkspace(m_layout, real)))
        co_return fail(doesNotExist(path));
    if (real.isEmpty())
        co_return fail(doesNotExist(path));
    QString final = followLast ? real : real + u'/' + lastPart(clean);
    if (!isInsideWorkspace(m_layout, final))
        co_return fail(symlinkEscapes(path, final));
    QStringList finalPath{final};
    auto info = co_await m_client->fileInfo(std::move(finalPath));
    if (!info)
        co_return fail(info.error().kind == Error::Kind::NotFound ? doesNotExist(path) : info.error());
    co_return Resolved{final, info->value(final)};
}

QCoro::Task<Result<QList<FileEntry>>> ExecdFiles::listFolder(QString path)
{
    auto folder = co_await resolve(path, true);
    if (!folder)
        co_return fail(folder.error());
    if (folder->info.type != QLatin1String("directory"))
        co_return fail(Error::invalidArgument(Tr::tr("%1 is not a folder").arg(path)));
    auto listed = co_await m_client->listDirectory(folder->path, 1);
    if (!listed)
        co_return fail(listed.error().kind == Error::Kind::NotFound ? doesNotExist(path) : listed.error());
    QList<FileEntry> entries;
    QStringList links;
    QList<qsizetype> linkEntries;
    for (const FileInfo &info : std::as_const(*listed)) {
        entries.append(entryFrom(info, lastPart(info.path)));
        if (entries.last().kind == FileEntry::Kind::Symlink) {
            links.append(info.path);
            linkEntries.append(entries.size() - 1);
        }
    }
    auto targets = co_await readLinks(links);
    if (!targets)
        co_return fail(targets.error());
    for (qsizetype i = 0; i < linkEntries.size(); ++i)
        entries[linkEntries[i]].linkTarget = targets->value(i);
    std::sort(entries.begin(), entries.end(), [](const FileEntry &a, const FileEntry &b) { return a.name < b.name; });
    co_return entries;
}

QCoro::Task<Result<FileEntry>> ExecdFiles::stat(QString path)
{
    auto resolved = co_await resolve(path, false);
    if (!resolved)
        co_return fail(resolved.error());
    FileEntry entry = entryFrom(resolved->info, lastPart(resolved->path));
    if (entry.kind == FileEntry::Kind::Symlink) {
        QStringList link{resolved->path};
        auto targets = co_await readLinks(std::move(link));
        if (!targets)
            co_return fail(targets.error());
        entry.linkTarget = targets->value(0);
    }
    co_return entry;
}

QCoro::Task<Result<FileChunk>> ExecdFiles::readFile(QString path, qint64 offset, qint64 length)
{
    if (offset < 0 || length < 0)
        co_return fail(Error::invalidArgument(Tr::tr("a read needs an offset and a length of 0 or more")));
    auto file = co_await resolve(path, true);
    if (!file)
        co_return fail(file.error());
    if (file->info.type != QLatin1String("file"))
        co_return fail(Error::invalidArgument(Tr::tr("%1 is not a file").arg(path)));
    FileChunk chunk;
    chunk.offset = offset;
    chunk.totalSize = file->info.size;
    const qint64 wanted = std::min({length, MaxFileChunk, std::max<qint64>(0, file->info.size - offset)});
    if (wanted == 0)
        co_return chunk;
    auto data = co_await m_client->downloadRange(file->path, offset, wanted);
    if (!data) {
        if (data.error().kind == Error::Kind::NotFound)
            co_return fail(Error::notFound(Tr::tr("%1 vanished while it was read").arg(path)));
        co_return fail(data.error());
    }
    chunk.data = std::move(*data);
    co_return chunk;
}

QCoro::Task<Result<>> ExecdFiles::download(QString path, QString localPath)
{
    auto file = co_await resolve(path, true);
    if (!file)
        co_return fail(file.error());
    if (file->info.type != QLatin1String("file"))
        co_return fail(Error::invalidArgument(Tr::tr("%1 is not a file").arg(path)));
    // Written under a temporary name and renamed at the end: a failure leaves nothing there.
    LocalFileWriter out(localPath);
    if (auto opened = out.open(); !opened)
        co_return opened;
    std::function<bool(QByteArrayView)> sink = [&out](QByteArrayView data) { return out.write(data); };
    auto fetched = co_await m_client->downloadTo(file->path, std::move(sink));
    if (!fetched) {
        out.cancel();
        if (out.failed())
            co_return fail(out.writeError());
        if (fetched.error().kind == Error::Kind::NotFound)
            co_return fail(Error::notFound(Tr::tr("%1 vanished while it was read").arg(path)));
        co_return fail(fetched.error());
    }
    co_return out.finish();
}

QCoro::Task<Result<>> ExecdFiles::upload(QString localPath, QString path)
{
    const auto confined = confineWorkspacePath(m_layout, path);
    if (!confined)
        co_return fail(confined.error());
    if (*confined == m_layout.workdir || *confined == m_layout.gatewayHome)
        co_return fail(Error::invalidArgument(Tr::tr("%1 is a folder").arg(path)));
    const QString parent = parentOf(*confined);
    auto folder = co_await resolve(parent, true);
    if (!folder) {
        if (folder.error().kind == Error::Kind::NotFound)
            co_return fail(Error::notFound(Tr::tr("the folder of %1 does not exist in the workspace").arg(path)));
        co_return fail(folder.error());
    }
    if (folder->info.type != QLatin1String("directory"))
        co_return fail(Error::notFound(Tr::tr("the folder of %1 does not exist in the workspace").arg(path)));
    QString target = folder->path + u'/' + lastPart(*confined);
    int mode = 644;
    QStringList targetPath{target};
    auto existing = co_await m_client->fileInfo(std::move(targetPath));
    if (existing) {
        FileInfo info = existing->value(target);
        if (info.type == QLatin1String("symlink")) {
            // execd writes through a link: where it leads must be a file inside the workspace.
            auto followed = co_await resolve(target, true);
            if (!followed)
                co_return fail(followed.error());
            target = followed->path;
            info = followed->info;
        }
        if (info.type == QLatin1String("directory"))
            co_return fail(Error::invalidArgument(Tr::tr("%1 is a folder").arg(path)));
        if (info.type != QLatin1String("file"))
            co_return fail(Error::invalidArgument(Tr::tr("%1 exists and is not a file").arg(path)));
        if (info.mode > 0)
            mode = info.mode;
    } else if (existing.error().kind != Error::Kind::NotFound) {
        co_return fail(existing.error());
    }
    QFile source(localPath);
    if (QFileInfo(localPath).isDir())
        co_return fail(Error::invalidArgument(Tr::tr("%1 is a folder").arg(localPath)));
    if (!source.open(QIODevice::ReadOnly))
        co_return fail(Error::io(Tr::tr("cannot read %1: %2").arg(localPath, source.errorString())));
    if (source.size() > MaxUpload) {
        co_return fail(
            Error::invalidArgument(Tr::tr("%1 is larger than %2 MiB, the most one upload to this sandbox takes")
                                       .arg(localPath)
                                       .arg(MaxUpload / (1024 * 1024))));
    }
    UploadFile file;
    file.path = target;
    file.data = source.readAll();
    file.mode = mode;
    if (file.data.size() != source.size())
        co_return fail(Error::io(Tr::tr("cannot read %1: %2").arg(localPath, source.errorString())));
    QList<UploadFile> files{file};
    auto sent = co_await m_client->upload(std::move(files));
    co_return sent;
}

} // namespace Paddock::OpenSandbox
