#include "execdfiles.h"

#include "../../shellquote.h"
#include "../../tr.h"

#include <QDir>
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

Error folderMissing(const QString &path)
{
    return Error::notFound(Tr::tr("the folder of %1 does not exist in the workspace").arg(path));
}

Error keptChanging(const QString &path)
{
    return Error::conflict(Tr::tr("%1 kept changing while it was resolved in the sandbox").arg(path));
}

// How many times a call starts again when what it checked changed before it was used.
constexpr int MaxAttempts = 3;

// The longest of `roots` that `path` is (or is under); empty: none.
QString rootOf(const QString &path, const QStringList &roots)
{
    QString best;
    for (const QString &root : roots) {
        if (root.size() > best.size() && isUnder(path, root))
            best = root;
    }
    return best;
}

// The folders below `root` on the way to `path`, then `path`; `root` alone when they are one.
QStringList chainBelow(const QString &root, const QString &path)
{
    QStringList chain;
    QString at = root;
    const QStringList parts = path.mid(root.size()).split(u'/', Qt::SkipEmptyParts);
    for (const QString &part : parts) {
        at += u'/' + part;
        chain.append(at);
    }
    if (chain.isEmpty())
        chain.append(root);
    return chain;
}

// Where each argument leads (readlink -f), each ended by a NUL, empty where it does not resolve.
// readlink's newline and a sentinel after it keep the command substitution from eating newlines
// at the end of a name.
const QString ResolveScript =
    QStringLiteral("for p do if r=$(readlink -f -- \"$p\" && echo .); then printf '%s\\0' \"${r%?.}\"; "
                   "else printf '\\0'; fi; done");

// Two NUL-terminated fields per argument: "l" and its target as written; "l" and nothing when
// the target cannot be read; "g" and nothing when the link is gone.
const QString ReadLinksScript =
    QStringLiteral("for p do if t=$(readlink -- \"$p\" && echo .); then printf 'l\\0%s\\0' \"${t%?.}\"; "
                   "elif [ -L \"$p\" ]; then printf 'l\\0\\0'; else printf 'g\\0\\0'; fi; done");

// Exactly `count` NUL-terminated fields, else nullopt.
std::optional<QList<QByteArray>> nulFields(const QByteArray &output, qsizetype count)
{
    QList<QByteArray> parts = output.split('\0');
    if (parts.size() != count + 1 || !parts.last().isEmpty())
        return std::nullopt;
    parts.removeLast();
    return parts;
}

Error cannotResolve(const QString &path, const ExecResult &ran)
{
    const QString why = QString::fromUtf8(ran.stdErr).trimmed();
    return Error::backend(Tr::tr("cannot resolve %1 in the sandbox: %2")
                              .arg(path, why.isEmpty() ? Tr::tr("exit status %1").arg(ran.exitCode) : why));
}

// A root as the sandbox resolved it; "/" would hold everything, so it is none.
QString resolvedRoot(const QByteArray &field)
{
    const QString root = QString::fromUtf8(field);
    return root == QLatin1String("/") ? QString() : root;
}

} // namespace

ExecdFiles::ExecdFiles(std::shared_ptr<ExecdClient> client, WorkspaceLayout layout)
    : m_client(std::move(client))
    , m_layout(std::move(layout))
{
    m_layout.workdir = QDir::cleanPath(m_layout.workdir);
    m_layout.gatewayHome = QDir::cleanPath(m_layout.gatewayHome);
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

QCoro::Task<Result<QList<std::optional<QString>>>> ExecdFiles::readLinks(QStringList paths, QString shownPath)
{
    if (paths.isEmpty())
        co_return QList<std::optional<QString>>();
    const qsizetype count = paths.size();
    auto ran = co_await shell(ReadLinksScript, std::move(paths));
    if (!ran)
        co_return fail(ran.error());
    const auto fields = nulFields(ran->stdOut, 2 * count);
    if (!fields || ran->exitCode != 0)
        co_return fail(cannotResolve(shownPath, *ran));
    QList<std::optional<QString>> targets;
    for (qsizetype i = 0; i < count; ++i) {
        const QByteArray &kind = fields->at(2 * i);
        if (kind == "l")
            targets.append(QString::fromUtf8(fields->at(2 * i + 1)));
        else if (kind == "g")
            targets.append(std::nullopt);
        else
            co_return fail(cannotResolve(shownPath, *ran));
    }
    co_return targets;
}

QCoro::Task<Result<std::optional<FileInfo>>> ExecdFiles::confirm(QString root, QString path, bool followLast)
{
    QStringList chain = chainBelow(root, path);
    auto infos = co_await m_client->fileInfo(chain);
    if (!infos)
        co_return fail(infos.error());
    const qsizetype checked = followLast ? chain.size() : chain.size() - 1;
    for (qsizetype i = 0; i < checked; ++i) {
        if (infos->value(chain[i]).type == QLatin1String("symlink"))
            co_return std::optional<FileInfo>();
    }
    FileInfo info = infos->value(path);
    co_return std::optional<FileInfo>(std::move(info));
}

QCoro::Task<Result<std::optional<ExecdFiles::Resolved>>> ExecdFiles::resolveOnce(QString clean, QString path,
                                                                                 bool followLast)
{
    // The path and each folder on its way below the root (the root is the layout's, trusted).
    const QString root = rootOf(clean, {m_layout.workdir, m_layout.gatewayHome});
    QStringList chain = chainBelow(root, clean);
    auto infos = co_await m_client->fileInfo(chain);
    qsizetype symlinkAt = -1;
    if (infos) {
        const qsizetype checked = followLast ? chain.size() : chain.size() - 1;
        for (qsizetype i = 0; i < checked && symlinkAt < 0; ++i) {
            if (infos->value(chain[i]).type == QLatin1String("symlink"))
                symlinkAt = i;
        }
        if (symlinkAt < 0) {
            Resolved resolved{clean, root, infos->value(clean)};
            co_return std::optional<Resolved>(std::move(resolved));
        }
    } else if (infos.error().kind != Error::Kind::NotFound) {
        co_return fail(infos.error());
    }
    // A symlink on the way, or something missing (perhaps behind a symlink that leads out):
    // where the path really leads, as the sandbox resolves it, and where the roots do.
    const QString first = symlinkAt >= 0 ? chain[symlinkAt] : clean;
    const QString target = followLast ? clean : parentOf(clean);
    QStringList arguments{first, target, m_layout.workdir, m_layout.gatewayHome};
    auto ran = co_await shell(ResolveScript, std::move(arguments));
    if (!ran)
        co_return fail(ran.error());
    const auto led = nulFields(ran->stdOut, 4);
    if (!led || ran->exitCode != 0)
        co_return fail(cannotResolve(path, *ran));
    const QString linkLeadsTo = QString::fromUtf8(led->at(0));
    const QString real = QString::fromUtf8(led->at(1));
    WorkspaceLayout resolvedRoots;
    resolvedRoots.workdir = resolvedRoot(led->at(2));
    resolvedRoots.gatewayHome = resolvedRoot(led->at(3));
    const auto inside = [this, &resolvedRoots](const QString &resolved) {
        return isInsideWorkspace(m_layout, resolved) || isInsideWorkspace(resolvedRoots, resolved);
    };
    if (!linkLeadsTo.isEmpty() && !inside(linkLeadsTo))
        co_return fail(symlinkEscapes(first, linkLeadsTo));
    if (!infos && (real.isEmpty() || inside(real)))
        co_return fail(doesNotExist(path));
    if (real.isEmpty())
        co_return fail(doesNotExist(path));
    const QString final = followLast ? real : (real == QLatin1String("/") ? QString() : real) + u'/' + lastPart(clean);
    if (!inside(final))
        co_return fail(symlinkEscapes(path, final));
    // What the command saw may have changed since: checked again, as the last request before
    // the caller uses it.
    const QString finalRoot =
        rootOf(final, {m_layout.workdir, m_layout.gatewayHome, resolvedRoots.workdir, resolvedRoots.gatewayHome});
    auto confirmed = co_await confirm(finalRoot, final, followLast);
    if (!confirmed)
        co_return fail(confirmed.error().kind == Error::Kind::NotFound ? doesNotExist(path) : confirmed.error());
    if (!*confirmed)
        co_return std::optional<Resolved>();
    Resolved resolved{final, finalRoot, **confirmed};
    co_return std::optional<Resolved>(std::move(resolved));
}

QCoro::Task<Result<ExecdFiles::Resolved>> ExecdFiles::resolve(QString path, bool followLast)
{
    const auto confined = confineWorkspacePath(m_layout, path);
    if (!confined)
        co_return fail(confined.error());
    const QString clean = *confined;
    for (int attempt = 0; attempt < MaxAttempts; ++attempt) {
        auto once = co_await resolveOnce(clean, path, followLast);
        if (!once)
            co_return fail(once.error());
        if (*once) {
            Resolved resolved = std::move(**once);
            co_return resolved;
        }
    }
    co_return fail(keptChanging(path));
}

QCoro::Task<Result<QList<FileEntry>>> ExecdFiles::listFolder(QString path)
{
    QList<FileInfo> listed;
    for (int attempt = 1;; ++attempt) {
        auto folder = co_await resolve(path, true);
        if (!folder)
            co_return fail(folder.error());
        if (folder->info.type != QLatin1String("directory"))
            co_return fail(Error::invalidArgument(Tr::tr("%1 is not a folder").arg(path)));
        auto got = co_await m_client->listDirectory(folder->path, 1);
        if (got) {
            listed = std::move(*got);
            break;
        }
        if (got.error().kind == Error::Kind::NotFound)
            co_return fail(doesNotExist(path));
        // execd answers 500 when an entry vanished between its readdir and its lstat: listed
        // again (resolved again first: the listing is a use like any other).
        if (got.error().httpStatus != 500 || attempt == MaxAttempts)
            co_return fail(got.error());
    }
    QList<FileEntry> entries;
    QStringList links;
    QList<qsizetype> linkEntries;
    for (const FileInfo &info : std::as_const(listed)) {
        entries.append(entryFrom(info, lastPart(info.path)));
        if (entries.last().kind == FileEntry::Kind::Symlink) {
            links.append(info.path);
            linkEntries.append(entries.size() - 1);
        }
    }
    auto targets = co_await readLinks(links, path);
    if (!targets)
        co_return fail(targets.error());
    QList<qsizetype> gone;
    for (qsizetype i = 0; i < linkEntries.size(); ++i) {
        if (const std::optional<QString> &target = targets->at(i))
            entries[linkEntries[i]].linkTarget = *target;
        else
            gone.append(linkEntries[i]); // removed since the listing: left out
    }
    for (auto it = gone.crbegin(); it != gone.crend(); ++it)
        entries.removeAt(*it);
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
        auto targets = co_await readLinks(std::move(link), path);
        if (!targets)
            co_return fail(targets.error());
        if (!targets->value(0))
            co_return fail(doesNotExist(path));
        entry.linkTarget = *targets->value(0);
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
    std::optional<UploadFile> file; // read once, the first time the target is known
    for (int attempt = 0; attempt < MaxAttempts; ++attempt) {
        auto folder = co_await resolve(parent, true);
        if (!folder)
            co_return fail(folder.error().kind == Error::Kind::NotFound ? folderMissing(path) : folder.error());
        if (folder->info.type != QLatin1String("directory"))
            co_return fail(folderMissing(path));
        QString target = folder->path + u'/' + lastPart(*confined);
        QString root = folder->root;
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
                root = followed->root;
                info = followed->info;
            }
            if (info.type == QLatin1String("directory"))
                co_return fail(Error::invalidArgument(Tr::tr("%1 is a folder").arg(path)));
            if (info.type != QLatin1String("file"))
                co_return fail(Error::invalidArgument(Tr::tr("%1 exists and is not a file").arg(path)));
        } else if (existing.error().kind != Error::Kind::NotFound) {
            co_return fail(existing.error());
        }
        if (!file) {
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
            file.emplace();
            file->data = source.readAll();
            if (file->data.size() != source.size())
                co_return fail(Error::io(Tr::tr("cannot read %1: %2").arg(localPath, source.errorString())));
        }
        // The last request before the upload: every folder on the way and the target as they
        // are now, none a symlink (a missing target: its folder, in one more request).
        auto now = co_await confirm(root, target, true);
        if (!now && now.error().kind != Error::Kind::NotFound)
            co_return fail(now.error());
        if (now && !*now)
            continue; // changed since it was resolved: again from the start
        int mode = 644;
        if (now) {
            const FileInfo &info = **now;
            if (info.type == QLatin1String("directory"))
                co_return fail(Error::invalidArgument(Tr::tr("%1 is a folder").arg(path)));
            if (info.type != QLatin1String("file"))
                co_return fail(Error::invalidArgument(Tr::tr("%1 exists and is not a file").arg(path)));
            if (info.mode > 0)
                mode = info.mode;
        } else {
            auto into = co_await confirm(root, parentOf(target), true);
            if (!into)
                co_return fail(into.error().kind == Error::Kind::NotFound ? folderMissing(path) : into.error());
            if (!*into)
                continue;
            if ((*into)->type != QLatin1String("directory"))
                co_return fail(folderMissing(path));
        }
        UploadFile sending = *file;
        sending.path = target;
        sending.mode = mode;
        QList<UploadFile> files{std::move(sending)};
        auto sent = co_await m_client->upload(std::move(files));
        co_return sent;
    }
    co_return fail(keptChanging(path));
}

} // namespace Paddock::OpenSandbox
