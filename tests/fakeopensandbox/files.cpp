// execd's file and directory routes, on the sandbox's view of the file system: /workspace,
// /root and /tmp are the sandbox's own (writable) directories, /usr, /bin, /sbin, /lib*, /etc
// the host's (read-only, as bubblewrap binds them); nothing else exists. Paths are resolved
// component by component with symbolic links read in the sandbox's namespace, so no link or
// `..` leads out of that view.

#include "fakeopensandbox.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <grp.h>
#include <optional>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace PaddockFake {

namespace {

const QStringList &writableMounts()
{
    static const QStringList mounts{u"workspace"_s, u"root"_s, u"tmp"_s};
    return mounts;
}

const QStringList &readOnlyMounts()
{
    static const QStringList mounts{u"usr"_s, u"bin"_s, u"sbin"_s, u"lib"_s, u"lib64"_s, u"lib32"_s, u"etc"_s};
    return mounts;
}

HttpResponse execdError(int status, const QString &code, const QString &message)
{
    QJsonObject body{{u"code"_s, code}};
    if (!message.isEmpty())
        body.insert(u"message"_s, message);
    return HttpResponse::json(status, body);
}

HttpResponse readOnly(const QString &what, const QString &path)
{
    return execdError(403, u"RUNTIME_ERROR"_s, u"%1 %2: read-only file system"_s.arg(what, path));
}

HttpResponse fileNotFound(const QString &path)
{
    return execdError(404, u"FILE_NOT_FOUND"_s,
                      u"file not found. file not found: %1: lstat %1: no such file or directory"_s.arg(path));
}

HttpResponse badBody(const QString &why)
{
    return execdError(400, u"INVALID_REQUEST_BODY"_s, u"error parsing request, MAYBE invalid body format. "_s + why);
}

// A body that must be a JSON object (or array), decoded as execd's Go handlers do: nullopt and
// the document, or the 400 they answer (`goType` names the type Go would decode into).
std::optional<HttpResponse> decodeBody(const HttpRequest &request, bool array, const QString &goType,
                                       QJsonDocument *document)
{
    QJsonParseError parseError{};
    *document = QJsonDocument::fromJson(request.body, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return badBody(parseError.errorString());
    if (array ? !document->isArray() : !document->isObject()) {
        return badBody(
            u"json: cannot unmarshal %1 into Go value of type %2"_s.arg(array ? u"object"_s : u"array"_s, goType));
    }
    return std::nullopt;
}

QByteArray local(const QString &path)
{
    return QFile::encodeName(path);
}

bool lstatPath(const QString &path, struct stat *st)
{
    return ::lstat(local(path).constData(), st) == 0;
}

// The name of a user or a group, looked up once with getpwuid_r or getgrgid_r; the number when
// there is no such entry.
template<typename Entry, typename Id>
QString accountName(Id id, int (*lookup)(Id, Entry *, char *, size_t, Entry **), char *Entry::*name)
{
    static QHash<Id, QString> cache;
    if (const auto it = cache.constFind(id); it != cache.cend())
        return *it;
    QString found = QString::number(id);
    char buffer[4096];
    Entry entry{};
    Entry *result = nullptr;
    if (lookup(id, &entry, buffer, sizeof buffer, &result) == 0 && result)
        found = QString::fromLocal8Bit(result->*name);
    cache.insert(id, found);
    return found;
}

QString userName(uid_t uid)
{
    return accountName<struct passwd>(uid, ::getpwuid_r, &passwd::pw_name);
}

QString groupName(gid_t gid)
{
    return accountName<struct group>(gid, ::getgrgid_r, &group::gr_name);
}

// execd's FileInfo: lstat, mode as an octal-looking int (0644 -> 644).
std::optional<QJsonObject> fileInfo(const QString &sandboxPath, const QString &hostPath)
{
    struct stat st
    {
    };
    if (!lstatPath(hostPath, &st))
        return std::nullopt;
    QString type = u"other"_s;
    if (S_ISLNK(st.st_mode))
        type = u"symlink"_s;
    else if (S_ISDIR(st.st_mode))
        type = u"directory"_s;
    else if (S_ISREG(st.st_mode))
        type = u"file"_s;
    const qint64 modified = static_cast<qint64>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
    const qint64 changed = static_cast<qint64>(st.st_ctim.tv_sec) * 1'000'000'000 + st.st_ctim.tv_nsec;
    return QJsonObject{{u"path"_s, sandboxPath},
                       {u"type"_s, type},
                       {u"size"_s, static_cast<qint64>(st.st_size)},
                       {u"modified_at"_s, formatGoTime(modified)},
                       {u"created_at"_s, formatGoTime(changed)},
                       {u"owner"_s, userName(st.st_uid)},
                       {u"group"_s, groupName(st.st_gid)},
                       {u"mode"_s, QString::number(st.st_mode & 0777, 8).toInt()}};
}

// The path as execd expands it: `~` is /root, a relative path is relative to `/`, then cleaned.
QString cleanSandboxPath(const QString &input)
{
    QString path = input;
    if (path == u"~"_s || path.startsWith(u"~/"_s))
        path = u"/root"_s + path.mid(1);
    if (!path.startsWith(u'/'))
        path.prepend(u'/');
    return QDir::cleanPath(path);
}

QString joinPath(const QString &dir, const QString &name)
{
    return dir.endsWith(u'/') ? QString(dir + name) : QString(dir + u'/' + name);
}

// Applies an execd Permission: mode is decimal digits read as octal; owner and group by name.
std::optional<QString> applyPermission(const QString &hostPath, const QJsonObject &permission)
{
    const int mode = permission.value(u"mode"_s).toInt();
    if (mode != 0) {
        bool ok = false;
        const uint bits = QString::number(mode).toUInt(&ok, 8);
        if (!ok)
            return u"strconv.ParseUint: parsing \"%1\": invalid syntax"_s.arg(mode);
        if (::chmod(local(hostPath).constData(), static_cast<mode_t>(bits)) != 0)
            return QString::fromLocal8Bit(std::strerror(errno));
    }
    const QString owner = permission.value(u"owner"_s).toString();
    const QString group = permission.value(u"group"_s).toString();
    if (owner.isEmpty() && group.isEmpty())
        return std::nullopt;
    uid_t uid = static_cast<uid_t>(-1);
    gid_t gid = static_cast<gid_t>(-1);
    if (!owner.isEmpty()) {
        const struct passwd *entry = ::getpwnam(owner.toLocal8Bit().constData());
        if (!entry)
            return u"failed to lookup user %1: user: unknown user %1"_s.arg(owner);
        uid = entry->pw_uid;
    }
    if (!group.isEmpty()) {
        const struct group *entry = ::getgrnam(group.toLocal8Bit().constData());
        if (!entry)
            return u"failed to lookup group %1: group: unknown group %1"_s.arg(group);
        gid = entry->gr_gid;
    }
    if (::chown(local(hostPath).constData(), uid, gid) != 0)
        return u"failed to set owner/group for %1: %2"_s.arg(hostPath, QString::fromLocal8Bit(std::strerror(errno)));
    return std::nullopt;
}

} // namespace

ResolvedPath FakeOpenSandbox::mapComponents(const Sandbox &sandbox, const QStringList &components) const
{
    ResolvedPath mapped;
    mapped.sandboxPath = u'/' + components.join(u'/');
    if (components.isEmpty()) {
        mapped.root = true;
        return mapped;
    }
    const QString &top = components.first();
    const QString rest = components.size() > 1 ? u'/' + components.mid(1).join(u'/') : QString();
    if (writableMounts().contains(top)) {
        mapped.hostPath = sandboxDir(sandbox) + u'/' + top + rest;
        mapped.writable = true;
        mapped.mountRoot = components.size() == 1;
    } else if (readOnlyMounts().contains(top) && QFileInfo::exists(u'/' + top)) {
        mapped.hostPath = u'/' + top + rest;
    }
    return mapped;
}

std::optional<ResolvedPath> FakeOpenSandbox::resolve(Sandbox &sandbox, const QString &path, bool followFinal) const
{
    QStringList pending = cleanSandboxPath(path).split(u'/', Qt::SkipEmptyParts);
    QStringList done;
    int links = 0;
    while (!pending.isEmpty()) {
        const QString part = pending.takeFirst();
        if (part == u"."_s)
            continue;
        if (part == u".."_s) {
            if (!done.isEmpty())
                done.removeLast();
            continue;
        }
        done.append(part);
        if (pending.isEmpty() && !followFinal)
            break;
        const ResolvedPath mapped = mapComponents(sandbox, done);
        struct stat st
        {
        };
        if (mapped.hostPath.isEmpty() || !lstatPath(mapped.hostPath, &st) || !S_ISLNK(st.st_mode))
            continue;
        if (++links > 40)
            return std::nullopt;
        char target[4096];
        const ssize_t length = ::readlink(local(mapped.hostPath).constData(), target, sizeof target - 1);
        if (length < 0)
            return std::nullopt;
        const QString link = QFile::decodeName(QByteArray(target, length));
        done.removeLast();
        if (link.startsWith(u'/'))
            done.clear();
        pending = link.split(u'/', Qt::SkipEmptyParts) + pending;
    }
    return mapComponents(sandbox, done);
}

HttpResponse FakeOpenSandbox::filesInfo(Sandbox &sandbox, const HttpRequest &request)
{
    QJsonObject result;
    for (const QString &path : request.queryValues(u"path"_s)) {
        const std::optional<ResolvedPath> resolved = resolve(sandbox, path, false);
        if (!resolved) {
            return execdError(500, u"RUNTIME_ERROR"_s,
                              u"error accessing file: too many levels of symbolic links: %1"_s.arg(path));
        }
        const QString host = resolved->root ? u"/"_s : resolved->hostPath;
        const std::optional<QJsonObject> info = host.isEmpty() ? std::nullopt : fileInfo(cleanSandboxPath(path), host);
        if (!info)
            return fileNotFound(path);
        result.insert(path, *info);
    }
    return HttpResponse::json(200, result);
}

HttpResponse FakeOpenSandbox::removeFiles(Sandbox &sandbox, const HttpRequest &request)
{
    for (const QString &path : request.queryValues(u"path"_s)) {
        const std::optional<ResolvedPath> followed = resolve(sandbox, path, true);
        const std::optional<ResolvedPath> link = resolve(sandbox, path, false);
        if (!followed || !link)
            return execdError(500, u"RUNTIME_ERROR"_s, u"error removing file %1. too many symbolic links"_s.arg(path));
        if (followed->root || QFileInfo(followed->hostPath).isDir()) {
            return execdError(500, u"RUNTIME_ERROR"_s, u"error removing file %1. path is a directory: %1"_s.arg(path));
        }
        struct stat st
        {
        };
        if (link->hostPath.isEmpty() || !lstatPath(link->hostPath, &st))
            continue; // nothing to remove
        if (!link->writable || link->mountRoot)
            return readOnly(u"error removing file %1. failed to remove file: remove"_s.arg(path), path);
        if (::unlink(local(link->hostPath).constData()) != 0) {
            return execdError(500, u"RUNTIME_ERROR"_s,
                              u"error removing file %1. failed to remove file: %2"_s.arg(
                                  path, QString::fromLocal8Bit(std::strerror(errno))));
        }
    }
    return HttpResponse::empty(200);
}

HttpResponse FakeOpenSandbox::uploadFiles(Sandbox &sandbox, const HttpRequest &request)
{
    const std::optional<QList<MultipartPart>> parts = parseMultipart(request.header("content-type"), request.body);
    if (!parts)
        return execdError(400, u"INVALID_FILE"_s, u"multipart form is empty"_s);
    // Like Go's multipart.Form: a part is a file only when it has a file name; execd reads
    // both `metadata` and `file` as files.
    QList<const MultipartPart *> metadataParts;
    QList<const MultipartPart *> fileParts;
    for (const MultipartPart &part : *parts) {
        if (!part.filename || part.filename->isEmpty())
            continue;
        if (part.name == "metadata")
            metadataParts.append(&part);
        else if (part.name == "file")
            fileParts.append(&part);
    }
    if (metadataParts.isEmpty())
        return execdError(400, u"INVALID_FILE_METADATA"_s, u"metadata file is missing"_s);
    if (fileParts.isEmpty())
        return execdError(400, u"INVALID_FILE_CONTENT"_s, u"file is missing"_s);
    if (metadataParts.size() != fileParts.size()) {
        return execdError(
            400, u"INVALID_FILE"_s,
            u"metadata and file count mismatch: %1 vs %2"_s.arg(metadataParts.size()).arg(fileParts.size()));
    }
    for (qsizetype i = 0; i < metadataParts.size(); ++i) {
        QJsonParseError parseError{};
        const QJsonDocument document = QJsonDocument::fromJson(metadataParts.at(i)->body, &parseError);
        if (parseError.error != QJsonParseError::NoError || !document.isObject()) {
            return execdError(400, u"INVALID_FILE_METADATA"_s,
                              u"invalid metadata format. "_s + parseError.errorString());
        }
        const QJsonObject meta = document.object();
        const QJsonValue modeValue = meta.value(u"mode"_s);
        if ((!modeValue.isUndefined() && !modeValue.isNull() && !modeValue.isDouble())
            || (modeValue.isDouble() && modeValue.toDouble() != static_cast<double>(modeValue.toInt()))) {
            return execdError(400, u"INVALID_FILE_METADATA"_s,
                              u"invalid metadata format. json: cannot unmarshal into Go struct field "
                              "FileMetadata.mode of type int"_s);
        }
        const QString path = meta.value(u"path"_s).toString();
        if (path.isEmpty())
            return execdError(400, u"INVALID_FILE_METADATA"_s, u"metadata path is empty"_s);

        const QString clean = cleanSandboxPath(path);
        const std::optional<ResolvedPath> parent = resolve(sandbox, QFileInfo(clean).path(), true);
        if (!parent || (!parent->writable && !(parent->root || QFileInfo(parent->hostPath).isDir())))
            return readOnly(u"error creating target directory"_s, QFileInfo(clean).path());
        if (parent->writable && !QDir().mkpath(parent->hostPath)) {
            return execdError(500, u"RUNTIME_ERROR"_s,
                              u"error creating target directory %1. mkdir failed"_s.arg(QFileInfo(clean).path()));
        }
        const std::optional<ResolvedPath> target = resolve(sandbox, clean, true);
        if (!target || !target->writable || target->mountRoot)
            return readOnly(u"error opening destination file %1. open"_s.arg(clean), clean);
        const int fd = ::open(local(target->hostPath).constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0777);
        if (fd < 0) {
            return execdError(500, u"RUNTIME_ERROR"_s,
                              u"error opening destination file %1. open %1: %2"_s.arg(
                                  clean, QString::fromLocal8Bit(std::strerror(errno))));
        }
        const QByteArray &data = fileParts.at(i)->body;
        qsizetype written = 0;
        while (written < data.size()) {
            const ssize_t n = ::write(fd, data.constData() + written, static_cast<size_t>(data.size() - written));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            written += n;
        }
        ::close(fd);
        if (written != data.size())
            return execdError(500, u"RUNTIME_ERROR"_s, u"error copying file %1. short write"_s.arg(clean));
        if (const std::optional<QString> failed = applyPermission(target->hostPath, meta)) {
            return execdError(500, u"RUNTIME_ERROR"_s,
                              u"error chmoding file %1. %2"_s.arg(target->sandboxPath, *failed));
        }
    }
    return HttpResponse::empty(200);
}

HttpResponse FakeOpenSandbox::downloadFile(Sandbox &sandbox, const HttpRequest &request)
{
    const QString path = request.queryValue(u"path"_s).value_or(QString());
    if (path.isEmpty())
        return execdError(400, u"MISSING_QUERY"_s, u"missing query parameter 'path'"_s);
    const std::optional<ResolvedPath> resolved = resolve(sandbox, path, true);
    if (!resolved)
        return execdError(500, u"RUNTIME_ERROR"_s, u"error resolving file path: %1. too many links"_s.arg(path));
    if (resolved->hostPath.isEmpty() && !resolved->root)
        return fileNotFound(path);
    const QString host = resolved->root ? u"/"_s : resolved->hostPath;
    QFile file(host);
    if (!QFileInfo::exists(host))
        return fileNotFound(path);
    if (QFileInfo(host).isDir() || !file.open(QIODevice::ReadOnly)) {
        return execdError(500, u"RUNTIME_ERROR"_s,
                          u"error reading file %1: %2"_s.arg(
                              path, QFileInfo(host).isDir() ? u"is a directory"_s : file.errorString()));
    }

    const QString offsetText = request.queryValue(u"offset"_s).value_or(QString());
    const QString limitText = request.queryValue(u"limit"_s).value_or(QString());
    if (!offsetText.isEmpty() || !limitText.isEmpty()) {
        if (offsetText.isEmpty() || limitText.isEmpty()) {
            return execdError(400, u"INVALID_REQUEST_BODY"_s,
                              u"both offset and limit must be provided together for line-based reading"_s);
        }
        bool ok = false;
        const int offset = offsetText.toInt(&ok);
        if (!ok || offset < 1)
            return execdError(400, u"INVALID_REQUEST_BODY"_s, u"offset must be a positive integer (1-based)"_s);
        const int limit = limitText.toInt(&ok);
        if (!ok || limit < 1)
            return execdError(400, u"INVALID_REQUEST_BODY"_s, u"limit must be a positive integer"_s);
        QByteArray out;
        int line = 1;
        int written = 0;
        while (written < limit && !file.atEnd()) {
            const QByteArray text = file.readLine();
            if (line >= offset) {
                out += text;
                ++written;
            }
            ++line;
        }
        return HttpResponse::text(200, out);
    }

    const qint64 size = file.size();
    const QString name = QFileInfo(resolved->sandboxPath).fileName();
    HttpResponse response;
    response.headers = {{"Content-Type", "application/octet-stream"},
                        {"Content-Disposition", "attachment; filename=\"" + name.toUtf8() + '"'}};
    const QByteArray range = request.header("range");
    if (!range.isEmpty()) {
        // execd's ParseRange, then the first range only.
        if (!range.startsWith("bytes="))
            return execdError(416, u"UNKNOWN"_s, QString());
        std::optional<QPair<qint64, qint64>> first; // start, length
        bool anyInvalid = false;
        for (const QByteArray &rawPiece : range.mid(6).split(',')) {
            const QByteArray piece = rawPiece.trimmed();
            if (piece.isEmpty())
                continue;
            const qsizetype dash = piece.indexOf('-');
            if (dash < 0) {
                anyInvalid = true;
                break;
            }
            const QByteArray startText = piece.left(dash).trimmed();
            const QByteArray endText = piece.mid(dash + 1).trimmed();
            qint64 start = 0;
            qint64 length = 0;
            bool ok = false;
            if (startText.isEmpty()) {
                qint64 suffix = endText.toLongLong(&ok);
                if (!ok || suffix < 0) {
                    anyInvalid = true;
                    break;
                }
                suffix = std::min(suffix, size);
                start = size - suffix;
                length = suffix;
            } else {
                start = startText.toLongLong(&ok);
                if (!ok || start < 0) {
                    anyInvalid = true;
                    break;
                }
                if (endText.isEmpty()) {
                    length = size - start;
                } else {
                    const qint64 end = endText.toLongLong(&ok);
                    if (!ok || end < start) {
                        anyInvalid = true;
                        break;
                    }
                    length = end - start + 1;
                }
            }
            if (start >= size)
                continue;
            length = std::min(length, size - start);
            if (!first)
                first = qMakePair(start, length);
        }
        if (anyInvalid)
            return execdError(416, u"UNKNOWN"_s, QString());
        if (first) {
            file.seek(first->first);
            response.status = 206;
            response.body = file.read(first->second);
            response.setHeader("Content-Range",
                               "bytes " + QByteArray::number(first->first) + '-'
                                   + QByteArray::number(first->first + first->second - 1) + '/'
                                   + QByteArray::number(size));
            return response;
        }
        // No range overlaps the file: Go's http.ServeContent answers this one.
        HttpResponse unsatisfiable =
            HttpResponse::text(416, "invalid range: failed to overlap\n", "text/plain; charset=utf-8");
        unsatisfiable.setHeader("Content-Range", "bytes */" + QByteArray::number(size));
        return unsatisfiable;
    }
    response.status = 200;
    response.setHeader("Accept-Ranges", "bytes");
    response.body = file.readAll();
    return response;
}

HttpResponse FakeOpenSandbox::listDirectory(Sandbox &sandbox, const HttpRequest &request)
{
    const QString path = request.queryValue(u"path"_s).value_or(QString());
    if (path.isEmpty())
        return execdError(400, u"MISSING_QUERY"_s, u"missing query parameter 'path'"_s);
    int depth = 1;
    if (const QString raw = request.queryValue(u"depth"_s).value_or(QString()); !raw.isEmpty()) {
        bool ok = false;
        depth = raw.toInt(&ok);
        if (!ok || depth < 0) {
            return execdError(400, u"INVALID_REQUEST_BODY"_s, u"invalid query parameter 'depth': %1"_s.arg(raw));
        }
    }
    const QString base = cleanSandboxPath(path);
    const std::optional<ResolvedPath> resolved = resolve(sandbox, path, false);
    if (!resolved)
        return execdError(500, u"RUNTIME_ERROR"_s, u"error converting path %1 to absolute"_s.arg(path));
    struct stat st
    {
    };
    if (!resolved->root) {
        if (resolved->hostPath.isEmpty() || !lstatPath(resolved->hostPath, &st))
            return fileNotFound(path);
        if (S_ISLNK(st.st_mode)) {
            return execdError(400, u"INVALID_REQUEST_BODY"_s,
                              u"path is a symbolic link, refusing to traverse: %1"_s.arg(base));
        }
        if (!S_ISDIR(st.st_mode))
            return execdError(400, u"INVALID_REQUEST_BODY"_s, u"path is not a directory: %1"_s.arg(base));
    }

    QJsonArray entries;
    // Entries in byte order of their names; descendants follow their parent.
    const std::function<void(const QString &, const QString &, int)> walk = [&](const QString &dir, const QString &host,
                                                                                int level) {
        QStringList names;
        if (host.isEmpty()) { // the sandbox's root: its mount points
            for (const QStringList *mounts : {&writableMounts(), &readOnlyMounts()}) {
                for (const QString &name : *mounts) {
                    if (!mapComponents(sandbox, {name}).hostPath.isEmpty())
                        names.append(name);
                }
            }
        } else {
            names = QDir(host).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                                         QDir::Unsorted);
        }
        std::sort(names.begin(), names.end(),
                  [](const QString &a, const QString &b) { return a.toUtf8() < b.toUtf8(); });
        for (const QString &name : std::as_const(names)) {
            const QString entryPath = joinPath(dir, name);
            const QString entryHost = host.isEmpty() ? mapComponents(sandbox, {name}).hostPath : joinPath(host, name);
            const std::optional<QJsonObject> info = fileInfo(entryPath, entryHost);
            if (!info)
                continue;
            entries.append(*info);
            struct stat entryStat
            {
            };
            if (level + 1 < depth && lstatPath(entryHost, &entryStat) && S_ISDIR(entryStat.st_mode))
                walk(entryPath, entryHost, level + 1);
        }
    };
    if (depth > 0)
        walk(base, resolved->root ? QString() : resolved->hostPath, 0);
    return HttpResponse::json(200, entries);
}

HttpResponse FakeOpenSandbox::makeDirectories(Sandbox &sandbox, const HttpRequest &request)
{
    QJsonDocument document;
    if (auto bad = decodeBody(request, false, u"map[string]model.Permission"_s, &document))
        return *bad;
    const QJsonObject body = document.object();
    for (auto it = body.begin(); it != body.end(); ++it) {
        if (!it.value().isObject())
            return badBody(u"json: cannot unmarshal into Go value of type model.Permission"_s);
        const std::optional<ResolvedPath> resolved = resolve(sandbox, it.key(), true);
        if (!resolved)
            return execdError(500, u"RUNTIME_ERROR"_s, u"error accessing file: too many links"_s);
        if (resolved->root || (!resolved->hostPath.isEmpty() && QFileInfo(resolved->hostPath).isDir()))
            continue; // already there: mkdir -p does nothing
        if (!resolved->writable)
            return readOnly(u"error accessing file: mkdir"_s, it.key());
        if (QFileInfo::exists(resolved->hostPath)) {
            return execdError(500, u"RUNTIME_ERROR"_s,
                              u"error accessing file: mkdir %1: not a directory"_s.arg(it.key()));
        }
        if (!QDir().mkpath(resolved->hostPath))
            return execdError(500, u"RUNTIME_ERROR"_s, u"error accessing file: mkdir %1 failed"_s.arg(it.key()));
        if (const std::optional<QString> failed = applyPermission(resolved->hostPath, it.value().toObject()))
            return execdError(500, u"RUNTIME_ERROR"_s, u"error accessing file: "_s + *failed);
    }
    return HttpResponse::empty(200);
}

HttpResponse FakeOpenSandbox::removeDirectories(Sandbox &sandbox, const HttpRequest &request)
{
    for (const QString &path : request.queryValues(u"path"_s)) {
        const std::optional<ResolvedPath> resolved = resolve(sandbox, path, false);
        if (!resolved)
            return execdError(500, u"RUNTIME_ERROR"_s, u"error resolving directory %1. too many links"_s.arg(path));
        if (resolved->root)
            return readOnly(u"error removing directory %1. unlinkat"_s.arg(path), path);
        struct stat st
        {
        };
        if (resolved->hostPath.isEmpty() || !lstatPath(resolved->hostPath, &st))
            continue; // rm -rf of nothing
        if (!resolved->writable)
            return readOnly(u"error removing directory %1. unlinkat"_s.arg(path), path);
        if (resolved->mountRoot) {
            // The contents go; the mount point itself is busy, as in a container.
            QDirIterator it(resolved->hostPath, QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
            while (it.hasNext()) {
                const QString entry = it.next();
                const QFileInfo info(entry);
                if (info.isDir() && !info.isSymLink())
                    QDir(entry).removeRecursively();
                else
                    QFile::remove(entry);
            }
            return execdError(500, u"RUNTIME_ERROR"_s,
                              u"error removing directory %1. unlinkat %2: device or resource busy"_s.arg(
                                  path, resolved->sandboxPath));
        }
        const bool removed = S_ISDIR(st.st_mode) ? QDir(resolved->hostPath).removeRecursively()
                                                 : ::unlink(local(resolved->hostPath).constData()) == 0;
        if (!removed)
            return execdError(500, u"RUNTIME_ERROR"_s, u"error removing directory %1."_s.arg(path));
    }
    return HttpResponse::empty(200);
}

HttpResponse FakeOpenSandbox::moveFiles(Sandbox &sandbox, const HttpRequest &request)
{
    QJsonDocument document;
    if (auto bad = decodeBody(request, true, u"[]model.RenameFileItem"_s, &document))
        return *bad;
    for (const QJsonValue &value : document.array()) {
        const QString src = value.toObject().value(u"src"_s).toString();
        const QString dest = value.toObject().value(u"dest"_s).toString();
        const std::optional<ResolvedPath> from = resolve(sandbox, src, false);
        const std::optional<ResolvedPath> to = resolve(sandbox, dest, true);
        struct stat st
        {
        };
        if (!from || from->hostPath.isEmpty() || !lstatPath(from->hostPath, &st))
            return fileNotFound(src);
        if (!to || !from->writable || from->mountRoot || !to->writable || to->mountRoot)
            return readOnly(u"failed to rename file: rename"_s, src);
        if (!QDir().mkpath(QFileInfo(to->hostPath).path()))
            return execdError(500, u"RUNTIME_ERROR"_s, u"failed to create destination directory"_s);
        if (lstatPath(to->hostPath, &st))
            return execdError(500, u"RUNTIME_ERROR"_s, u"destination path already exists: %1"_s.arg(dest));
        if (::rename(local(from->hostPath).constData(), local(to->hostPath).constData()) != 0) {
            return execdError(500, u"RUNTIME_ERROR"_s,
                              u"failed to rename file: %1"_s.arg(QString::fromLocal8Bit(std::strerror(errno))));
        }
    }
    return HttpResponse::empty(200);
}

HttpResponse FakeOpenSandbox::chmodFiles(Sandbox &sandbox, const HttpRequest &request)
{
    QJsonDocument document;
    if (auto bad = decodeBody(request, false, u"map[string]model.Permission"_s, &document))
        return *bad;
    const QJsonObject body = document.object();
    for (auto it = body.begin(); it != body.end(); ++it) {
        const std::optional<ResolvedPath> resolved = resolve(sandbox, it.key(), true);
        if (!resolved || resolved->hostPath.isEmpty() || !QFileInfo::exists(resolved->hostPath)) {
            return execdError(500, u"RUNTIME_ERROR"_s,
                              u"error changing permissions for %1. no such file or directory"_s.arg(it.key()));
        }
        if (!resolved->writable)
            return readOnly(u"error changing permissions for %1. chmod"_s.arg(it.key()), it.key());
        if (const std::optional<QString> failed = applyPermission(resolved->hostPath, it.value().toObject())) {
            return execdError(500, u"RUNTIME_ERROR"_s,
                              u"error changing permissions for %1. %2"_s.arg(it.key(), *failed));
        }
    }
    return HttpResponse::empty(200);
}

} // namespace PaddockFake
