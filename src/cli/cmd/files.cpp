// files ID ls [PATH] [--json] | cat PATH | get PATH LOCAL | put LOCAL PATH: a workspace's files
// through the profile's session (Backend::listFolder, stat, readFile, download, upload), paths
// as the core confines them (relative to the workdir, or absolute inside the workdir or the
// gateway home; nothing outside). A download and an upload land whole or not at all.

#include "command.h"

#include <QCoroTask>

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace Paddock::Ctl {

namespace {

// How much of a file `cat` asks for at a time.
constexpr qint64 CatChunk = 1024 * 1024;

QString kindName(FileEntry::Kind kind)
{
    switch (kind) {
    case FileEntry::Kind::File:
        return QStringLiteral("file");
    case FileEntry::Kind::Folder:
        return QStringLiteral("folder");
    case FileEntry::Kind::Symlink:
        return QStringLiteral("symlink");
    case FileEntry::Kind::Other:
        break;
    }
    return QStringLiteral("other");
}

QChar kindLetter(FileEntry::Kind kind)
{
    switch (kind) {
    case FileEntry::Kind::File:
        return u'-';
    case FileEntry::Kind::Folder:
        return u'd';
    case FileEntry::Kind::Symlink:
        return u'l';
    case FileEntry::Kind::Other:
        break;
    }
    return u'?';
}

QJsonObject entryJson(const FileEntry &entry)
{
    QJsonObject object{
        {QStringLiteral("name"), entry.name},
        {QStringLiteral("kind"), kindName(entry.kind)},
        {QStringLiteral("size"), entry.size},
        {QStringLiteral("modified"),
         entry.modified.isValid() ? QJsonValue(jsonTime(entry.modified)) : QJsonValue(QJsonValue::Null)}};
    if (entry.kind == FileEntry::Kind::Symlink)
        object.insert(QStringLiteral("target"), entry.linkTarget);
    return object;
}

// "d        4096  2026-01-02 03:04:05Z  name/", a link with " -> target".
QString entryLine(const FileEntry &entry, int sizeWidth)
{
    QString name = entry.name;
    if (entry.kind == FileEntry::Kind::Folder)
        name += u'/';
    if (entry.kind == FileEntry::Kind::Symlink)
        name += QStringLiteral(" -> ") + entry.linkTarget;
    const QString modified = entry.modified.isValid()
        ? entry.modified.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")) + u'Z'
        : QStringLiteral("-");
    return QStringLiteral("%1 %2  %3  %4")
        .arg(kindLetter(entry.kind))
        .arg(entry.size, sizeWidth)
        .arg(modified, -20)
        .arg(name);
}

QCoro::Task<int> list(Session &s, const QString &what, const QString &sandboxId, const QString &path)
{
    // A file (or a link) is shown alone, as ls shows it; a folder's entries are listed.
    auto entry = co_await s.session->stat(sandboxId, path);
    if (!entry)
        co_return s.failed(what, entry.error());
    QList<FileEntry> entries;
    if (entry->kind == FileEntry::Kind::Folder) {
        auto listed = co_await s.session->listFolder(sandboxId, path);
        if (!listed)
            co_return s.failed(what, listed.error());
        entries = *listed;
    } else {
        entries.append(*entry);
    }
    if (s.has("json")) {
        QJsonArray array;
        for (const FileEntry &one : std::as_const(entries))
            array.append(entryJson(one));
        write(stdout, QJsonDocument(array).toJson(QJsonDocument::Indented));
        co_return Success;
    }
    int sizeWidth = 1;
    for (const FileEntry &one : std::as_const(entries))
        sizeWidth = std::max(sizeWidth, int(QString::number(one.size).size()));
    for (const FileEntry &one : std::as_const(entries))
        out(entryLine(one, sizeWidth));
    co_return Success;
}

QCoro::Task<int> cat(Session &s, const QString &what, const QString &sandboxId, const QString &path)
{
    // In chunks, each written as it comes: a file of any size, never whole in memory.
    qint64 offset = 0;
    for (;;) {
        auto chunk = co_await s.session->readFile(sandboxId, path, offset, CatChunk);
        if (!chunk)
            co_return s.failed(what, chunk.error());
        if (chunk->data.isEmpty())
            co_return Success;
        write(stdout, chunk->data);
        if (std::ferror(stdout))
            co_return Failure; // the reader went away
        offset += chunk->data.size();
        if (offset >= chunk->totalSize)
            co_return Success;
    }
}

QString baseName(const QString &path)
{
    QString trimmed = path;
    while (trimmed.size() > 1 && trimmed.endsWith(u'/'))
        trimmed.chop(1);
    return trimmed.section(u'/', -1);
}

QCoro::Task<int> get(Session &s, const QString &what, const QString &sandboxId, const QString &path, QString local)
{
    // Into a folder that exists: under the file's own name, as cp does.
    if (QFileInfo(local).isDir())
        local = QFileInfo(local).absoluteFilePath() + u'/' + baseName(path);
    auto done = co_await s.session->download(sandboxId, path, local);
    if (!done)
        co_return s.failed(what, done.error());
    co_return Success;
}

QCoro::Task<int> put(Session &s, const QString &what, const QString &sandboxId, const QString &local, QString path)
{
    const QFileInfo file(local);
    if (!file.exists())
        co_return s.failed(what, Error::notFound(Tr::tr("there is no file %1 here").arg(local)));
    if (!file.isFile())
        co_return s.failed(what, Error::invalidArgument(Tr::tr("%1 is not a file").arg(local)));
    if (!file.isReadable())
        co_return s.failed(what, Error::io(Tr::tr("cannot read %1").arg(local)));
    // Into a folder of the workspace: under the file's own name, as cp does.
    if (path.endsWith(u'/')) {
        path += file.fileName();
    } else {
        auto target = co_await s.session->stat(sandboxId, path);
        if (target && target->kind == FileEntry::Kind::Folder)
            path += u'/' + file.fileName();
    }
    auto done = co_await s.session->upload(sandboxId, local, path);
    if (!done)
        co_return s.failed(what, done.error());
    co_return Success;
}

} // namespace

QCoro::Task<int> runFiles(Session &s)
{
    const QString id = s.args.constFirst();
    if (auto valid = validateWorkspaceId(id); !valid)
        co_return s.usage(valid.error().message);
    const QString verb = s.args.value(1);
    const QStringList rest = s.args.mid(2);
    const bool fits = (verb == QLatin1String("ls") && rest.size() <= 1)
        || (verb == QLatin1String("cat") && rest.size() == 1) || (verb == QLatin1String("get") && rest.size() == 2)
        || (verb == QLatin1String("put") && rest.size() == 2);
    if (!fits) {
        co_return s.usage(verb.isEmpty()
                                  || !QStringList{QStringLiteral("ls"), QStringLiteral("cat"), QStringLiteral("get"),
                                                  QStringLiteral("put")}
                                          .contains(verb)
                              ? Tr::tr("files needs one of ls, cat, get, put after the workspace id")
                              : Tr::tr("wrong number of arguments for files %1").arg(verb));
    }
    if (s.has("json") && verb != QLatin1String("ls"))
        co_return s.usage(Tr::tr("--json applies to files ls only"));
    const QString what = QStringLiteral("files %1 %2").arg(id, verb);
    if (!s.session->can(Capability::Files)) {
        co_return s.failed(what,
                           Error::unsupported(Tr::tr("the %1 backend cannot read a workspace's files")
                                                  .arg(s.session->factory() ? s.session->factory()->id : QString())));
    }
    auto sandbox = co_await s.session->find(id);
    if (!sandbox)
        co_return s.failed(what, sandbox.error());
    if (verb == QLatin1String("ls"))
        co_return co_await list(s, what, sandbox->sandboxId, rest.value(0));
    if (verb == QLatin1String("cat"))
        co_return co_await cat(s, what, sandbox->sandboxId, rest.constFirst());
    if (verb == QLatin1String("get"))
        co_return co_await get(s, what, sandbox->sandboxId, rest.constFirst(), rest.constLast());
    co_return co_await put(s, what, sandbox->sandboxId, rest.constFirst(), rest.constLast());
}

} // namespace Paddock::Ctl
