// envd of the fake E2B server: the sandbox proxy's routing (E2b-Sandbox-Id, or the host name),
// its 502 for a sandbox that is not running, X-Access-Token, the plain HTTP routes (/health,
// /files, /envs, /metrics) and Connect RPC with the JSON codec: process.Process (commands under
// bubblewrap, each in a persistent sandbox per E2B sandbox) and filesystem.Filesystem over the
// sandbox's view of the file system.

#include "e2bwire.h"
#include "fakee2b.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>

#include <algorithm>
#include <csignal>
#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace PaddockFake::E2b {

namespace {

constexpr qsizetype MaxDataChunk = 32 * 1024; // envd's data events are at most 32 KiB
constexpr int DefaultKeepaliveSeconds = 90;
constexpr int MaxSymlinks = 40;
constexpr int KeptEndedProcesses = 64;

const QByteArray &proxyJsonType()
{
    static const QByteArray type("application/json; charset=utf-8");
    return type;
}

HttpResponse sandboxNotFound(const QString &id)
{
    QByteArray body = "{\"sandboxId\":";
    appendJsonString(body, id);
    body += ",\"message\":\"The sandbox was not found\",\"code\":502}";
    return HttpResponse::text(502, body, proxyJsonType());
}

HttpResponse portNotOpen(const QString &id, int port)
{
    QByteArray body = "{\"sandboxId\":";
    appendJsonString(body, id);
    body += ",\"message\":\"The sandbox is running but port is not open\",\"port\":" + QByteArray::number(port)
        + ",\"code\":502}";
    return HttpResponse::text(502, body, proxyJsonType());
}

HttpResponse envdUnauthorized()
{
    return apiError(401, u"unauthorized access, please provide a valid access token or method signing if supported"_s);
}

QString cleanPath(const QString &path)
{
    QString cleaned = QDir::cleanPath(path);
    while (cleaned.startsWith(u"/.."_s))
        cleaned = cleaned.mid(3).isEmpty() ? u"/"_s : cleaned.mid(3);
    return cleaned.isEmpty() ? u"/"_s : cleaned;
}

QStringList components(const QString &path)
{
    return path.split(u'/', Qt::SkipEmptyParts);
}

// proto3 JSON for google.protobuf.Timestamp: 0, 3, 6 or 9 fractional digits.
QString protoTime(qint64 epochMs)
{
    const QDateTime time = QDateTime::fromMSecsSinceEpoch(epochMs, Qt::UTC);
    return time.toString(epochMs % 1000 == 0 ? u"yyyy-MM-ddTHH:mm:ssZ"_s : u"yyyy-MM-ddTHH:mm:ss.zzzZ"_s);
}

QString readLink(const QString &hostPath)
{
    QByteArray buffer(4096, '\0');
    const ssize_t got = ::readlink(QFile::encodeName(hostPath).constData(), buffer.data(), buffer.size());
    return got < 0 ? QString() : QFile::decodeName(buffer.left(got));
}

// A process selector's pid or tag.
// Signals a command and its whole process group. Under bubblewrap the command is not the child
// QProcess started (nsenter, in a group of its own) but nsenter's child, which setsid(1) made the
// leader of a session and group of its own inside the sandbox: that group is signalled too, as
// envd signals the process group of the command it started.
void signalCommandGroup(qint64 pgid, int signal)
{
    if (pgid <= 0)
        return;
    QFile children(u"/proc/%1/task/%1/children"_s.arg(pgid));
    if (children.open(QIODevice::ReadOnly)) {
        const QList<QByteArray> pids = children.readAll().simplified().split(' ');
        for (const QByteArray &pid : pids) {
            bool ok = false;
            const qint64 child = pid.toLongLong(&ok);
            if (ok && child > 0) {
                ::kill(static_cast<pid_t>(-child), signal);
                if (signal == SIGKILL)
                    ::kill(static_cast<pid_t>(-child), SIGCONT);
            }
        }
    }
    ::kill(static_cast<pid_t>(-pgid), signal);
    if (signal == SIGKILL)
        ::kill(static_cast<pid_t>(-pgid), SIGCONT);
}

std::optional<quint32> selectorPid(const QJsonObject &selector)
{
    const QJsonValue pid = selector.value(u"pid"_s);
    if (pid.isDouble())
        return static_cast<quint32>(pid.toDouble());
    if (pid.isString()) {
        bool ok = false;
        const uint value = pid.toString().toUInt(&ok);
        if (ok)
            return value;
    }
    return std::nullopt;
}

// Go's mime.FormatMediaType("inline", {"filename": name}).
QByteArray contentDisposition(const QString &name)
{
    const QByteArray utf8 = name.toUtf8();
    bool token = !utf8.isEmpty();
    bool ascii = true;
    for (const char c : utf8) {
        const auto byte = static_cast<unsigned char>(c);
        ascii = ascii && byte < 0x80;
        token = token && byte > 0x20 && byte < 0x7f && !QByteArrayView("()<>@,;:\\\"/[]?=").contains(c);
    }
    if (token)
        return "inline; filename=" + utf8;
    if (ascii) {
        QByteArray quoted = "inline; filename=\"";
        for (const char c : utf8) {
            if (c == '"' || c == '\\')
                quoted += '\\';
            quoted += c;
        }
        return quoted + '"';
    }
    return "inline; filename*=utf-8''" + utf8.toPercentEncoding();
}

} // namespace

// ---- RpcStream ------------------------------------------------------------------------------

RpcStream::RpcStream(HttpConnection *connection, int keepaliveMs, QObject *parent)
    : QObject(parent)
    , m_connection(connection)
{
    connection->startStream(200, {{"Content-Type", "application/connect+json"}});
    m_keepalive.setInterval(keepaliveMs);
    connect(&m_keepalive, &QTimer::timeout, this, [this] {
        if (!keepaliveMessage.isEmpty())
            send(keepaliveMessage);
    });
    m_keepalive.start();
}

void RpcStream::send(const QByteArray &json)
{
    if (!isOpen())
        return;
    m_connection->writeChunk(envelope(0, json));
    m_keepalive.start();
}

void RpcStream::finish(const QString &errorCode, const QString &message)
{
    if (!isOpen())
        return;
    m_finished = true;
    m_keepalive.stop();
    QByteArray end = "{}";
    if (!errorCode.isEmpty()) {
        end = "{\"error\":{\"code\":";
        appendJsonString(end, errorCode);
        end += ",\"message\":";
        appendJsonString(end, message);
        end += "},\"metadata\":{}}";
    }
    m_connection->writeChunk(envelope(2, end));
    m_connection->endStream();
}

void RpcStream::breakOff(BreakMode mode)
{
    if (!isOpen())
        return;
    m_finished = true;
    m_keepalive.stop();
    if (mode == BreakMode::Truncate)
        m_connection->endStream(); // a clean end of the body, but no end-stream message
    else
        m_connection->abort();
}

// ---- routing --------------------------------------------------------------------------------

void FakeE2b::handleEnvd(HttpConnection *connection, const HttpRequest &request)
{
    ++m_stats.envdRequests;
    if (request.hasHeader("x-api-key"))
        ++m_stats.envdRequestsWithApiKey;
    QString id = QString::fromUtf8(request.header("e2b-sandbox-id")).trimmed();
    int port = EnvdPort;
    if (request.hasHeader("e2b-sandbox-port"))
        port = request.header("e2b-sandbox-port").trimmed().toInt();
    if (id.isEmpty()) {
        // The proxy's other form: <port>-<sandboxID>.<domain>.
        const QString host = QString::fromUtf8(request.header("host")).section(u'.', 0, 0);
        const qsizetype dash = host.indexOf(u'-');
        if (dash > 0) {
            port = host.left(dash).toInt();
            id = host.mid(dash + 1);
        }
    }
    if (id.isEmpty()) {
        return connection->send(
            apiError(400, u"the sandbox is not given (no E2b-Sandbox-Id header, nor <port>-<id>.<domain> host)"_s));
    }
    Sandbox *sandbox = find(id.section(u'-', 0, 0));
    if (!sandbox || sandbox->paused)
        return connection->send(sandboxNotFound(id));
    if (port != EnvdPort || m_envdUnreachable || sandbox->envdUnreachable)
        return connection->send(portNotOpen(id, port));
    routeEnvd(*sandbox, connection, request);
}

void FakeE2b::routeEnvd(Sandbox &sandbox, HttpConnection *connection, const HttpRequest &request)
{
    if (!ensureDirs(sandbox))
        return connection->send(apiError(500, u"cannot prepare the sandbox's folders"_s));
    const QByteArray &path = request.path;
    const QByteArray &method = request.method;
    const bool tokenOk =
        sandbox.token.isEmpty() || QString::fromUtf8(request.header("x-access-token")) == sandbox.token;

    if (path == "/health") {
        if (method != "GET")
            return connection->send(HttpResponse::text(405, "Method Not Allowed\n"));
        return connection->send(HttpResponse::empty(204));
    }
    if (path == "/files") {
        const bool read = method == "GET";
        if (!read && method != "POST")
            return connection->send(HttpResponse::text(405, "Method Not Allowed\n"));
        if (!tokenOk && !checkSignature(sandbox, request, read ? u"read"_s : u"write"_s))
            return connection->send(envdUnauthorized());
        return connection->send(read ? downloadFile(sandbox, request) : uploadFile(sandbox, request));
    }
    if (!tokenOk)
        return connection->send(envdUnauthorized());
    if (path == "/envs" && method == "GET") {
        return connection->send(HttpResponse::json(200, stringMapJson(sandbox.envVars)));
    }
    if (path == "/metrics" && method == "GET") {
        const QByteArray body = "{\"ts\":" + QByteArray::number(now() / 1'000'000'000)
            + ",\"cpu_count\":" + QByteArray::number(sandbox.cpuCount) + ",\"cpu_used_pct\":0,\"mem_total\":"
            + QByteArray::number(qint64(sandbox.memoryMB) << 20) + ",\"mem_used\":0,\"mem_total_mib\":"
            + QByteArray::number(sandbox.memoryMB) + ",\"mem_used_mib\":0,\"disk_used\":0,\"disk_total\":"
            + QByteArray::number(qint64(sandbox.diskSizeMB) << 20) + '}';
        return connection->send(HttpResponse::json(200, body));
    }
    if (path.startsWith("/process.Process/") || path.startsWith("/filesystem.Filesystem/")) {
        if (method != "POST") {
            HttpResponse response = HttpResponse::text(405, "Method Not Allowed\n");
            response.setHeader("Allow", "POST");
            return connection->send(response);
        }
        const QString rpc = QString::fromUtf8(path.mid(path.lastIndexOf('/') + 1));
        if (path.startsWith("/process.Process/"))
            return processRpc(sandbox, connection, request, rpc);
        return filesystemRpc(sandbox, connection, request, rpc);
    }
    connection->send(HttpResponse::text(404, "404 page not found\n", "text/plain; charset=utf-8"));
}

// ---- the sandbox's folders and processes ----------------------------------------------------

QString FakeE2b::sandboxDir(const Sandbox &sandbox) const
{
    return m_dataDir + u'/' + sandbox.id;
}

bool FakeE2b::ensureDirs(Sandbox &sandbox)
{
    if (sandbox.dirsReady)
        return true;
    const QString dir = sandboxDir(sandbox);
    for (const char *sub : {"home/user", "root", "tmp"}) {
        if (!QDir().mkpath(dir + u'/' + QLatin1StringView(sub)))
            return false;
    }
    QFile::setPermissions(dir + u"/tmp"_s, QFileDevice::Permissions(0x7777));
    sandbox.dirsReady = true;
    return true;
}

bool FakeE2b::ensureBox(Sandbox &sandbox, QString *error)
{
    if (m_options.bubblewrapPath.isEmpty() || !m_options.bubblewrap)
        return true;
    if (sandbox.box && sandbox.box->isRunning())
        return true;
    const QString dir = sandboxDir(sandbox);
    SandboxSpec spec;
    spec.binds = {{dir + u"/home"_s, u"/home"_s}, {dir + u"/root"_s, u"/root"_s}, {dir + u"/tmp"_s, u"/tmp"_s}};
    spec.env = {{u"PATH"_s, SandboxSearchPath}};
    spec.cwd = u"/home/user"_s;
    spec.hostname = u"e2b.local"_s;
    sandbox.box = std::make_unique<PersistentSandbox>(m_options.bubblewrapPath, spec);
    return sandbox.box->start({u"sleep"_s, u"infinity"_s}, error);
}

void FakeE2b::freeze(Sandbox &sandbox, bool frozen)
{
    if (frozen) {
        // Pausing snapshots the VM: the connections to it break.
        for (auto &[pid, process] : sandbox.processes) {
            for (const QPointer<RpcStream> &stream : std::as_const(process->streams)) {
                if (stream)
                    stream->breakOff(BreakMode::Drop);
            }
            process->streams.clear();
        }
    }
    const int signal = frozen ? SIGSTOP : SIGCONT;
    if (sandbox.box && sandbox.box->isRunning()) {
        sandbox.box->signalAll(signal);
        return;
    }
    for (auto &[pid, process] : sandbox.processes) {
        if (process->running && process->pgid > 0)
            ::kill(static_cast<pid_t>(-process->pgid), signal);
    }
}

void FakeE2b::killEverything(Sandbox &sandbox)
{
    for (auto &[pid, process] : sandbox.processes) {
        for (const QPointer<RpcStream> &stream : std::as_const(process->streams)) {
            if (stream)
                stream->breakOff(BreakMode::Drop);
        }
        process->streams.clear();
        if (process->running)
            killProcessGroup(process->pgid);
        process->sandboxId.clear(); // orphaned: it deletes itself when it ends
        if (!process->running)
            process->deleteLater();
    }
    sandbox.processes.clear();
    if (sandbox.box)
        sandbox.box->kill();
}

std::optional<QString> FakeE2b::userOf(const HttpRequest &request, HttpResponse *error) const
{
    QString user = u"user"_s; // the template's default user
    const QByteArray authorization = request.header("authorization");
    if (authorization.startsWith("Basic ")) {
        const QByteArray decoded = QByteArray::fromBase64(authorization.mid(6).trimmed());
        user = QString::fromUtf8(decoded.left(decoded.indexOf(':')));
    }
    if (user != u"user"_s && user != u"root"_s) {
        *error = apiError(401, u"error looking up user '%1': user: unknown user %1"_s.arg(user));
        return std::nullopt;
    }
    return user;
}

QString FakeE2b::homeOf(const QString &user)
{
    return user == u"root"_s ? u"/root"_s : u"/home/"_s + user;
}

QString FakeE2b::hostFor(const Sandbox &sandbox, const QString &sandboxPath, bool *writable) const
{
    const QString dir = sandboxDir(sandbox);
    *writable = false;
    if (sandboxPath == u"/"_s)
        return dir;
    for (const char *own : {"/home", "/root", "/tmp"}) {
        const QLatin1StringView prefix(own);
        if (sandboxPath == prefix || sandboxPath.startsWith(prefix + u'/')) {
            *writable = true;
            return dir + sandboxPath;
        }
    }
    if (!m_options.bubblewrap)
        return {}; // unconfined commands see the host; the file calls see only the sandbox's own
    for (const char *host : {"/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/etc"}) {
        const QLatin1StringView prefix(host);
        if (sandboxPath == prefix || sandboxPath.startsWith(prefix + u'/'))
            return sandboxPath;
    }
    return {};
}

std::optional<ResolvedPath> FakeE2b::resolve(const Sandbox &sandbox, const QString &path, const QString &user,
                                             bool followLast) const
{
    QString absolute = path;
    if (absolute.isEmpty())
        absolute = homeOf(user);
    else if (!absolute.startsWith(u'/'))
        absolute = homeOf(user) + u'/' + absolute;
    QStringList queue = components(absolute);
    QString result = u"/"_s;
    int links = 0;
    while (!queue.isEmpty()) {
        const QString part = queue.takeFirst();
        if (part == u"."_s)
            continue;
        if (part == u".."_s) {
            result = cleanPath(result + u"/.."_s);
            continue;
        }
        const QString candidate = result == u"/"_s ? QString(u'/' + part) : QString(result + u'/' + part);
        bool writable = false;
        const QString host = hostFor(sandbox, candidate, &writable);
        if (!host.isEmpty() && (!queue.isEmpty() || followLast) && QFileInfo(host).isSymLink()) {
            if (++links > MaxSymlinks)
                return std::nullopt;
            const QString target = readLink(host);
            if (target.startsWith(u'/'))
                result = u"/"_s;
            queue = components(target) + queue;
            continue;
        }
        result = candidate;
    }
    ResolvedPath resolved;
    resolved.path = result;
    resolved.hostPath = hostFor(sandbox, result, &resolved.writable);
    return resolved;
}

QByteArray FakeE2b::entryInfo(const Sandbox &sandbox, const QString &sandboxPath, const QString &hostPath) const
{
    struct stat info
    {
    };
    const QByteArray native = QFile::encodeName(hostPath);
    ::lstat(native.constData(), &info);
    const bool link = S_ISLNK(info.st_mode);
    const bool dir = S_ISDIR(info.st_mode);
    const uint permissions = info.st_mode & 0777;
    const QString owner =
        (sandboxPath == u"/home/user"_s || sandboxPath.startsWith(u"/home/user/"_s)) ? u"user"_s : u"root"_s;
    QByteArray out = "{\"name\":";
    appendJsonString(out, sandboxPath == u"/"_s ? u"/"_s : sandboxPath.section(u'/', -1));
    out += ",\"type\":";
    out += link ? "\"FILE_TYPE_SYMLINK\"" : dir ? "\"FILE_TYPE_DIRECTORY\"" : "\"FILE_TYPE_FILE\"";
    out += ",\"path\":";
    appendJsonString(out, sandboxPath);
    if (info.st_size != 0)
        out += ",\"size\":\"" + QByteArray::number(static_cast<qint64>(info.st_size)) + '"';
    if (permissions != 0)
        out += ",\"mode\":" + QByteArray::number(permissions);
    out += ",\"permissions\":";
    appendJsonString(out, goModeString(link ? 'L' : dir ? 'd' : '-', permissions));
    out += ",\"owner\":";
    appendJsonString(out, owner);
    out += ",\"group\":";
    appendJsonString(out, owner);
    const qint64 modifiedMs = static_cast<qint64>(info.st_mtim.tv_sec) * 1000 + info.st_mtim.tv_nsec / 1'000'000;
    out += ",\"modifiedTime\":\"" + protoTime(modifiedMs).toLatin1() + '"';
    if (link) {
        out += ",\"symlinkTarget\":";
        appendJsonString(out, readLink(hostPath));
    }
    const auto metadata = sandbox.fileMetadata.constFind(hostPath);
    if (metadata != sandbox.fileMetadata.cend() && !metadata->isEmpty())
        out += ",\"metadata\":" + stringMapJson(*metadata);
    return out + '}';
}

bool FakeE2b::checkSignature(const Sandbox &sandbox, const HttpRequest &request, const QString &operation) const
{
    const std::optional<QString> signature = request.queryValue(u"signature"_s);
    if (!signature || sandbox.token.isEmpty())
        return false;
    const QString path = request.queryValue(u"path"_s).value_or(QString());
    const QString user = request.queryValue(u"username"_s).value_or(QString());
    QString raw = path + u':' + operation + u':' + user + u':' + sandbox.token;
    if (const auto expiration = request.queryValue(u"signature_expiration"_s)) {
        bool ok = false;
        const qint64 at = expiration->toLongLong(&ok);
        if (!ok || at * 1'000'000'000 < now())
            return false;
        raw += u':' + *expiration;
    }
    const QByteArray hash = QCryptographicHash::hash(raw.toUtf8(), QCryptographicHash::Sha256);
    return *signature == u"v1_"_s + QString::fromLatin1(hash.toBase64(QByteArray::OmitTrailingEquals));
}

// ---- /files ---------------------------------------------------------------------------------

HttpResponse FakeE2b::downloadFile(Sandbox &sandbox, const HttpRequest &request)
{
    const QString user = request.queryValue(u"username"_s).value_or(u"user"_s);
    if (user != u"user"_s && user != u"root"_s)
        return apiError(401, u"error looking up user '%1': user: unknown user %1"_s.arg(user));
    const QString asked = request.queryValue(u"path"_s).value_or(QString());
    const std::optional<ResolvedPath> resolved = resolve(sandbox, asked, user, true);
    if (!resolved)
        return apiError(400, u"path '%1' is invalid: too many levels of symbolic links"_s.arg(asked));
    const QFileInfo info(resolved->hostPath);
    if (resolved->hostPath.isEmpty() || !info.exists())
        return apiError(404, u"path '%1' does not exist"_s.arg(resolved->path));
    if (info.isDir())
        return apiError(400, u"path '%1' is a directory"_s.arg(resolved->path));
    QFile file(resolved->hostPath);
    if (!file.open(QIODevice::ReadOnly))
        return apiError(500, u"error opening file '%1': %2"_s.arg(resolved->path, file.errorString()));
    HttpResponse response = HttpResponse::text(200, file.readAll(), "application/octet-stream");
    response.setHeader("Content-Disposition", contentDisposition(info.fileName()));
    return response;
}

HttpResponse FakeE2b::uploadFile(Sandbox &sandbox, const HttpRequest &request)
{
    const QString user = request.queryValue(u"username"_s).value_or(u"user"_s);
    if (user != u"user"_s && user != u"root"_s)
        return apiError(401, u"error looking up user '%1': user: unknown user %1"_s.arg(user));
    if (!request.header("content-encoding").isEmpty() && request.header("content-encoding") != "identity")
        return apiError(
            400, u"unsupported Content-Encoding: %1"_s.arg(QString::fromUtf8(request.header("content-encoding"))));
    const std::optional<QString> queryPath = request.queryValue(u"path"_s);
    QMap<QString, QString> metadata;
    for (const auto &[name, value] : request.headers) {
        if (name.startsWith("x-metadata-") && !metadata.contains(QString::fromUtf8(name.mid(11))))
            metadata.insert(QString::fromUtf8(name.mid(11)), QString::fromUtf8(value));
    }
    QList<QPair<QString, QByteArray>> files;
    const QByteArray contentType = request.header("content-type");
    if (contentType.toLower().startsWith("multipart/form-data")) {
        const auto parts = parseMultipart(contentType, request.body);
        if (!parts)
            return apiError(400, u"error parsing multipart form: malformed body"_s);
        for (const MultipartPart &part : *parts) {
            if (part.name != "file")
                continue;
            const QString target =
                queryPath && !queryPath->isEmpty() ? *queryPath : QString::fromUtf8(part.filename.value_or(""));
            files.append({target, part.body});
        }
    } else if (contentType.toLower().startsWith("application/octet-stream")) {
        if (!queryPath || queryPath->isEmpty())
            return apiError(400, u"path is required for an application/octet-stream upload"_s);
        files.append({*queryPath, request.body});
    } else {
        return apiError(400, u"unsupported Content-Type: %1"_s.arg(QString::fromUtf8(contentType)));
    }
    if (files.isEmpty())
        return apiError(400, u"no file in the request"_s);
    QByteArray out = "[";
    for (const auto &[target, data] : files) {
        const std::optional<ResolvedPath> resolved = resolve(sandbox, target, user, true);
        if (!resolved)
            return apiError(400, u"path '%1' is invalid: too many levels of symbolic links"_s.arg(target));
        if (QFileInfo(resolved->hostPath).isDir())
            return apiError(400, u"path '%1' is a directory"_s.arg(resolved->path));
        if (!resolved->writable)
            return apiError(500, u"error opening file '%1': permission denied"_s.arg(resolved->path));
        // The parent folders are made; a parent that is a file is the caller's mistake.
        const QString parent = QFileInfo(resolved->hostPath).path();
        if (!QDir().mkpath(parent))
            return apiError(400, u"error creating the parent folders of '%1': not a directory"_s.arg(resolved->path));
        QFile file(resolved->hostPath);
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(data) != data.size()) {
            return apiError(500, u"error writing file '%1': %2"_s.arg(resolved->path, file.errorString()));
        }
        file.close();
        if (metadata.isEmpty())
            sandbox.fileMetadata.remove(resolved->hostPath);
        else
            sandbox.fileMetadata.insert(resolved->hostPath, metadata);
        if (out.size() > 1)
            out += ',';
        out += "{\"path\":";
        appendJsonString(out, resolved->path);
        out += ",\"name\":";
        appendJsonString(out, resolved->path.section(u'/', -1));
        out += ",\"type\":\"file\"";
        if (!metadata.isEmpty())
            out += ",\"metadata\":" + stringMapJson(metadata);
        out += '}';
    }
    return HttpResponse::json(200, out + ']');
}

// ---- Connect RPC ----------------------------------------------------------------------------

void FakeE2b::unary(HttpConnection *connection, const QByteArray &json)
{
    connection->send(HttpResponse::json(200, json));
}

void FakeE2b::unaryError(HttpConnection *connection, const QString &code, const QString &message)
{
    QByteArray body = "{\"code\":";
    appendJsonString(body, code);
    body += ",\"message\":";
    appendJsonString(body, message);
    body += '}';
    connection->send(HttpResponse::json(connectHttpStatus(code), body));
}

RpcStream *FakeE2b::openStream(HttpConnection *connection, const HttpRequest &request, const QByteArray &keepalive)
{
    bool ok = false;
    int seconds = request.header("keepalive-ping-interval").trimmed().toInt(&ok);
    if (!ok || seconds <= 0)
        seconds = DefaultKeepaliveSeconds;
    auto *stream = new RpcStream(connection, seconds * 1000, this);
    stream->keepaliveMessage = keepalive;
    // The stream object lives as long as its connection.
    connect(connection, &QObject::destroyed, stream, &QObject::deleteLater);
    return stream;
}

namespace {

// The request message of a unary call (application/json) or a server-stream call (one
// application/connect+json envelope). nullopt with the reason when it cannot be read.
std::optional<QJsonObject> requestMessage(const HttpRequest &request, bool streaming, QString *code, QString *why)
{
    const QByteArray type = request.header("content-type").split(';').value(0).trimmed().toLower();
    QByteArray payload = request.body;
    if (streaming) {
        if (type != "application/connect+json") {
            *code = u"415"_s;
            return std::nullopt;
        }
        if (payload.size() < 5) {
            *code = u"invalid_argument"_s;
            *why = u"protocol error: incomplete envelope"_s;
            return std::nullopt;
        }
        const auto flags = static_cast<quint8>(payload.at(0));
        const quint32 size = (static_cast<quint32>(static_cast<quint8>(payload.at(1))) << 24)
            | (static_cast<quint32>(static_cast<quint8>(payload.at(2))) << 16)
            | (static_cast<quint32>(static_cast<quint8>(payload.at(3))) << 8)
            | static_cast<quint32>(static_cast<quint8>(payload.at(4)));
        if ((flags & 0x01) != 0) {
            *code = u"internal"_s;
            *why = u"protocol error: sent compressed message without compression support"_s;
            return std::nullopt;
        }
        if (payload.size() - 5 < static_cast<qint64>(size)) {
            *code = u"invalid_argument"_s;
            *why = u"protocol error: promised %1 bytes in enveloped message, got %2 bytes"_s.arg(size).arg(
                payload.size() - 5);
            return std::nullopt;
        }
        payload = payload.mid(5, size);
    } else if (type != "application/json") {
        *code = u"415"_s;
        return std::nullopt;
    }
    if (payload.trimmed().isEmpty())
        return QJsonObject();
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(payload, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject()) {
        *code = u"invalid_argument"_s;
        *why = u"unmarshal message: "_s + error.errorString();
        return std::nullopt;
    }
    return document.object();
}

HttpResponse unsupportedMediaType(bool streaming)
{
    HttpResponse response = HttpResponse::empty(415);
    response.setHeader("Accept-Post", streaming ? "application/connect+json" : "application/json");
    return response;
}

} // namespace

void FakeE2b::processRpc(Sandbox &sandbox, HttpConnection *connection, const HttpRequest &request,
                         const QString &method)
{
    const bool streaming = method == u"Start"_s || method == u"Connect"_s;
    static const QStringList known{u"List"_s,        u"Connect"_s,   u"Start"_s,      u"Update"_s,
                                   u"StreamInput"_s, u"SendInput"_s, u"SendSignal"_s, u"CloseStdin"_s};
    if (!known.contains(method))
        return connection->send(HttpResponse::text(404, "404 page not found\n", "text/plain; charset=utf-8"));
    if (method == u"StreamInput"_s)
        return unaryError(connection, u"unimplemented"_s, u"client streaming is not served by paddock-fake-e2b"_s);
    QString code;
    QString why;
    const std::optional<QJsonObject> body = requestMessage(request, streaming, &code, &why);
    if (!body) {
        if (code == u"415"_s)
            return connection->send(unsupportedMediaType(streaming));
        if (streaming) {
            RpcStream *stream = openStream(connection, request, {});
            return stream->finish(code, why);
        }
        return unaryError(connection, code, why);
    }
    if (method == u"Start"_s)
        return startProcess(sandbox, connection, request, *body);
    if (method == u"Connect"_s)
        return connectProcess(sandbox, connection, request, *body);
    if (method == u"List"_s) {
        QByteArray out = "{\"processes\":[";
        bool first = true;
        for (const auto &[pid, process] : sandbox.processes) {
            if (!process->running)
                continue;
            if (!first)
                out += ',';
            first = false;
            out += "{\"config\":{\"cmd\":";
            appendJsonString(out, process->cmd);
            if (!process->args.isEmpty()) {
                out += ",\"args\":[";
                for (qsizetype i = 0; i < process->args.size(); ++i) {
                    if (i > 0)
                        out += ',';
                    appendJsonString(out, process->args.at(i));
                }
                out += ']';
            }
            if (!process->envs.isEmpty())
                out += ",\"envs\":" + stringMapJson(process->envs);
            if (!process->cwd.isEmpty()) {
                out += ",\"cwd\":";
                appendJsonString(out, process->cwd);
            }
            out += "},\"pid\":" + QByteArray::number(pid);
            if (!process->tag.isEmpty()) {
                out += ",\"tag\":";
                appendJsonString(out, process->tag);
            }
            out += '}';
        }
        return unary(connection, first ? QByteArray("{}") : out + "]}");
    }
    Process *process = selectProcess(sandbox, body->value(u"process"_s).toObject());
    if (!process || !process->running) {
        const QJsonObject selector = body->value(u"process"_s).toObject();
        const QString which = selector.contains(u"tag"_s) ? u"tag %1"_s.arg(selector.value(u"tag"_s).toString())
                                                          : u"pid %1"_s.arg(selectorPid(selector).value_or(0));
        return unaryError(connection, u"not_found"_s, u"process with %1 not found"_s.arg(which));
    }
    if (method == u"SendSignal"_s) {
        const QJsonValue signal = body->value(u"signal"_s);
        int number = 0;
        if (signal == u"SIGNAL_SIGKILL"_s || signal.toInt() == 9)
            number = SIGKILL;
        else if (signal == u"SIGNAL_SIGTERM"_s || signal.toInt() == 15)
            number = SIGTERM;
        if (number == 0)
            return unaryError(connection, u"invalid_argument"_s,
                              u"invalid signal: %1"_s.arg(signal.toVariant().toString()));
        process->signalSent = number;
        signalCommandGroup(process->pgid, number);
        if (process->pgid > 0)
            ::kill(static_cast<pid_t>(-process->pgid), SIGCONT);
        return unary(connection, "{}");
    }
    if (method == u"SendInput"_s) {
        const QJsonObject input = body->value(u"input"_s).toObject();
        if (input.contains(u"pty"_s))
            return unaryError(connection, u"failed_precondition"_s, u"the process has no PTY"_s);
        if (!process->stdinOpen)
            return unaryError(connection, u"failed_precondition"_s, u"stdin is not enabled or was closed"_s);
        const QByteArray data =
            QByteArray::fromBase64(input.value(u"stdin"_s).toString().toLatin1(), QByteArray::Base64Encoding);
        process->process->write(data);
        return unary(connection, "{}");
    }
    if (method == u"CloseStdin"_s) {
        if (process->stdinOpen) {
            process->stdinOpen = false;
            process->process->closeWriteChannel();
        }
        return unary(connection, "{}");
    }
    // Update: resizes a PTY, which no process here has.
    unaryError(connection, u"failed_precondition"_s, u"the process has no PTY"_s);
}

Process *FakeE2b::selectProcess(Sandbox &sandbox, const QJsonObject &selector) const
{
    if (selector.contains(u"tag"_s)) {
        const QString tag = selector.value(u"tag"_s).toString();
        for (const auto &[pid, process] : sandbox.processes) {
            if (process->tag == tag && process->running)
                return process;
        }
        return nullptr;
    }
    const std::optional<quint32> pid = selectorPid(selector);
    const auto it = pid ? sandbox.processes.find(*pid) : sandbox.processes.end();
    return it == sandbox.processes.end() ? nullptr : it->second;
}

void FakeE2b::startProcess(Sandbox &sandbox, HttpConnection *connection, const HttpRequest &request,
                           const QJsonObject &body)
{
    static const QByteArray keepalive = "{\"event\":{\"keepalive\":{}}}";
    RpcStream *stream = openStream(connection, request, keepalive);
    HttpResponse refusal;
    const std::optional<QString> user = userOf(request, &refusal);
    if (!user)
        return stream->finish(u"unauthenticated"_s,
                              QJsonDocument::fromJson(refusal.body).object().value(u"message"_s).toString());
    if (body.contains(u"pty"_s))
        return stream->finish(u"unimplemented"_s, u"PTY processes are not served by paddock-fake-e2b"_s);
    const QJsonObject config = body.value(u"process"_s).toObject();
    auto *process = new Process(this);
    process->cmd = config.value(u"cmd"_s).toString();
    for (const QJsonValue &arg : config.value(u"args"_s).toArray())
        process->args.append(arg.toString());
    const QJsonObject envs = config.value(u"envs"_s).toObject();
    for (auto it = envs.begin(); it != envs.end(); ++it)
        process->envs.insert(it.key(), it.value().toString());
    process->tag = body.value(u"tag"_s).toString();
    process->sandboxId = sandbox.id;
    const QString home = homeOf(*user);
    QString cwd = config.value(u"cwd"_s).toString();
    if (cwd.isEmpty())
        cwd = home;
    else if (!cwd.startsWith(u'/'))
        cwd = home + u'/' + cwd;
    process->cwd = config.value(u"cwd"_s).toString();
    const std::optional<ResolvedPath> where = resolve(sandbox, cwd, *user, true);
    if (process->cmd.isEmpty()) {
        process->deleteLater();
        return stream->finish(u"invalid_argument"_s, u"process config has no cmd"_s);
    }
    if (!where || where->hostPath.isEmpty() || !QFileInfo(where->hostPath).isDir()) {
        process->deleteLater();
        return stream->finish(u"invalid_argument"_s, u"invalid working directory '%1': no such directory"_s.arg(cwd));
    }
    QString error;
    if (!ensureBox(sandbox, &error)) {
        process->deleteLater();
        return stream->finish(u"internal"_s, u"cannot start the sandbox: "_s + error);
    }

    EnvList env{{u"PATH"_s, SandboxSearchPath},
                {u"HOME"_s, home},
                {u"USER"_s, *user},
                {u"LOGNAME"_s, *user},
                {u"SHELL"_s, u"/bin/bash"_s},
                {u"LANG"_s, u"C.UTF-8"_s},
                {u"E2B_SANDBOX"_s, u"true"_s},
                {u"E2B_SANDBOX_ID"_s, sandbox.id}};
    const auto add = [&env](const QString &name, const QString &value) {
        env.removeIf([&](const auto &pair) { return pair.first == name; });
        env.append({name, value});
    };
    for (auto it = sandbox.envVars.cbegin(); it != sandbox.envVars.cend(); ++it)
        add(it.key(), it.value());
    for (auto it = process->envs.cbegin(); it != process->envs.cend(); ++it)
        add(it.key(), it.value());
    QStringList argv{process->cmd};
    argv += process->args;
    auto *child = new QProcess(process);
    process->process = child;
    if (sandbox.box) {
        sandbox.box->prepare(*child, argv, where->path, env);
    } else {
        // Unconfined: the command sees the host; its folder, HOME and TMPDIR are the sandbox's.
        QProcessEnvironment environment;
        for (const auto &[name, value] : env)
            environment.insert(name, value);
        bool writable = false;
        environment.insert(u"HOME"_s, hostFor(sandbox, home, &writable));
        environment.insert(u"TMPDIR"_s, sandboxDir(sandbox) + u"/tmp"_s);
        child->setProcessEnvironment(environment);
        child->setProgram(QStandardPaths::findExecutable(process->cmd).isEmpty()
                              ? process->cmd
                              : QStandardPaths::findExecutable(process->cmd));
        child->setArguments(process->args);
        child->setWorkingDirectory(where->hostPath);
        runInOwnProcessGroup(*child);
    }
    process->stdinOpen = body.value(u"stdin"_s).toBool(true); // unset: true (older clients)
    if (!process->stdinOpen)
        child->setStandardInputFile(QProcess::nullDevice());
    child->setProcessChannelMode(QProcess::SeparateChannels);
    connect(child, &QProcess::readyReadStandardOutput, process,
            [this, process] { processOutput(process, "stdout", process->process->readAllStandardOutput()); });
    connect(child, &QProcess::readyReadStandardError, process,
            [this, process] { processOutput(process, "stderr", process->process->readAllStandardError()); });
    connect(child, &QProcess::finished, process,
            [this, process](int exitCode, QProcess::ExitStatus status) { processFinished(process, exitCode, status); });
    child->start();
    if (!child->waitForStarted(30'000)) {
        const QString why = child->errorString();
        process->deleteLater();
        return stream->finish(u"internal"_s, u"failed to start the process: "_s + why);
    }
    process->pid = ++m_nextPid;
    process->pgid = child->processId();
    process->running = true;
    process->startStream = stream;
    process->streams.append(stream);
    sandbox.processes.emplace(process->pid, process);
    if (sandbox.breakNext != BreakMode::None) {
        stream->breakAfterData = sandbox.breakNext;
        sandbox.breakNext = BreakMode::None;
    }
    stream->send("{\"event\":{\"start\":{\"pid\":" + QByteArray::number(process->pid) + "}}}");

    // Connect-Timeout-Ms: the process runs under that deadline.
    bool ok = false;
    const qint64 timeoutMs = request.header("connect-timeout-ms").trimmed().toLongLong(&ok);
    if (ok && timeoutMs > 0) {
        process->deadline = new QTimer(process);
        process->deadline->setSingleShot(true);
        connect(process->deadline, &QTimer::timeout, this, [process] {
            if (process->startStream)
                process->startStream->finish(u"deadline_exceeded"_s, u"context deadline exceeded"_s);
            if (process->running) {
                process->signalSent = SIGKILL;
                signalCommandGroup(process->pgid, SIGKILL);
            }
        });
        process->deadline->start(static_cast<int>(std::min<qint64>(timeoutMs, std::numeric_limits<int>::max())));
    }
}

void FakeE2b::connectProcess(Sandbox &sandbox, HttpConnection *connection, const HttpRequest &request,
                             const QJsonObject &body)
{
    static const QByteArray keepalive = "{\"event\":{\"keepalive\":{}}}";
    RpcStream *stream = openStream(connection, request, keepalive);
    const QJsonObject selector = body.value(u"process"_s).toObject();
    Process *process = selectProcess(sandbox, selector);
    if (!process) {
        const QString which = selector.contains(u"tag"_s) ? u"tag %1"_s.arg(selector.value(u"tag"_s).toString())
                                                          : u"pid %1"_s.arg(selectorPid(selector).value_or(0));
        return stream->finish(u"not_found"_s, u"process with %1 not found"_s.arg(which));
    }
    stream->send("{\"event\":{\"start\":{\"pid\":" + QByteArray::number(process->pid) + "}}}");
    if (process->endEvent) {
        stream->send(*process->endEvent);
        return stream->finish();
    }
    process->streams.append(stream);
    bool ok = false;
    const qint64 timeoutMs = request.header("connect-timeout-ms").trimmed().toLongLong(&ok);
    if (ok && timeoutMs > 0) {
        const QPointer<RpcStream> guard(stream);
        QTimer::singleShot(std::min<qint64>(timeoutMs, std::numeric_limits<int>::max()), stream, [guard] {
            if (guard)
                guard->finish(u"deadline_exceeded"_s, u"context deadline exceeded"_s);
        });
    }
}

void FakeE2b::broadcast(Process *process, const QByteArray &json)
{
    process->streams.removeIf([](const QPointer<RpcStream> &stream) { return !stream || !stream->isOpen(); });
    for (const QPointer<RpcStream> &stream : std::as_const(process->streams))
        stream->send(json);
}

void FakeE2b::processOutput(Process *process, const char *channel, const QByteArray &data)
{
    for (qsizetype offset = 0; offset < data.size(); offset += MaxDataChunk) {
        const QByteArray piece = data.mid(offset, MaxDataChunk);
        broadcast(process, "{\"event\":{\"data\":{\"" + QByteArray(channel) + "\":\"" + piece.toBase64() + "\"}}}");
    }
    for (const QPointer<RpcStream> &stream : std::as_const(process->streams)) {
        if (stream && !data.isEmpty() && stream->breakAfterData != BreakMode::None)
            stream->breakOff(stream->breakAfterData);
    }
}

void FakeE2b::processFinished(Process *process, int exitCode, QProcess::ExitStatus status)
{
    processOutput(process, "stdout", process->process->readAllStandardOutput());
    processOutput(process, "stderr", process->process->readAllStandardError());
    process->running = false;
    process->pgid = 0; // never signal a recycled process group
    if (process->deadline)
        process->deadline->stop();
    // Go's ProcessState: a signal ends it with -1 and exited false. Through nsenter a signalled
    // command shows as a crash; the signal is the one this server sent (SIGKILL otherwise).
    const bool signalled = status == QProcess::CrashExit || (process->signalSent != 0 && exitCode >= 128);
    QByteArray end = "{\"event\":{\"end\":{";
    if (signalled) {
        const QString text = process->signalSent == SIGTERM ? u"signal: terminated"_s : u"signal: killed"_s;
        end += "\"exitCode\":-1,\"status\":";
        appendJsonString(end, text);
        end += ",\"error\":";
        appendJsonString(end, text);
    } else {
        if (exitCode != 0)
            end += "\"exitCode\":" + QByteArray::number(exitCode) + ',';
        end += "\"exited\":true,\"status\":\"exit status " + QByteArray::number(exitCode) + '"';
        if (exitCode != 0)
            end += ",\"error\":\"exit status " + QByteArray::number(exitCode) + '"';
    }
    end += "}}}";
    process->endEvent = end;
    broadcast(process, end);
    for (const QPointer<RpcStream> &stream : std::as_const(process->streams)) {
        if (stream)
            stream->finish();
    }
    process->streams.clear();
    Sandbox *sandbox = process->sandboxId.isEmpty() ? nullptr : find(process->sandboxId);
    if (!sandbox) {
        process->deleteLater();
        return;
    }
    // Keep the last few that ended, for Process/Connect to replay.
    int ended = 0;
    for (auto it = sandbox->processes.rbegin(); it != sandbox->processes.rend(); ++it)
        ended += it->second->running ? 0 : 1;
    while (ended > KeptEndedProcesses) {
        const auto oldest = std::find_if(sandbox->processes.begin(), sandbox->processes.end(),
                                         [](const auto &entry) { return !entry.second->running; });
        oldest->second->deleteLater();
        sandbox->processes.erase(oldest);
        --ended;
    }
}

void FakeE2b::filesystemRpc(Sandbox &sandbox, HttpConnection *connection, const HttpRequest &request,
                            const QString &method)
{
    static const QStringList known{u"Stat"_s,          u"MakeDir"_s,          u"Move"_s,
                                   u"ListDir"_s,       u"Remove"_s,           u"WatchDir"_s,
                                   u"CreateWatcher"_s, u"GetWatcherEvents"_s, u"RemoveWatcher"_s};
    if (!known.contains(method))
        return connection->send(HttpResponse::text(404, "404 page not found\n", "text/plain; charset=utf-8"));
    const bool streaming = method == u"WatchDir"_s;
    QString code;
    QString why;
    const std::optional<QJsonObject> body = requestMessage(request, streaming, &code, &why);
    if (!body) {
        if (code == u"415"_s)
            return connection->send(unsupportedMediaType(streaming));
        if (streaming)
            return openStream(connection, request, {})->finish(code, why);
        return unaryError(connection, code, why);
    }
    if (streaming || method.contains(u"Watcher"_s)) {
        if (streaming)
            return openStream(connection, request, {})
                ->finish(u"unimplemented"_s, u"directory watches are not served by paddock-fake-e2b"_s);
        return unaryError(connection, u"unimplemented"_s, u"directory watches are not served by paddock-fake-e2b"_s);
    }
    HttpResponse refusal;
    const std::optional<QString> user = userOf(request, &refusal);
    if (!user) {
        return unaryError(connection, u"unauthenticated"_s,
                          QJsonDocument::fromJson(refusal.body).object().value(u"message"_s).toString());
    }
    const auto entryResponse = [&](const ResolvedPath &where) -> QByteArray {
        return "{\"entry\":" + entryInfo(sandbox, where.path, where.hostPath) + '}';
    };
    const auto exists = [](const ResolvedPath &where) {
        struct stat info
        {
        };
        return !where.hostPath.isEmpty() && ::lstat(QFile::encodeName(where.hostPath).constData(), &info) == 0;
    };
    const QString path = body->value(u"path"_s).toString();

    if (method == u"Stat"_s) {
        const auto where = resolve(sandbox, path, *user, false);
        if (!where)
            return unaryError(connection, u"invalid_argument"_s, u"too many levels of symbolic links: "_s + path);
        if (!exists(*where))
            return unaryError(connection, u"not_found"_s, u"file not found: "_s + where->path);
        return unary(connection, entryResponse(*where));
    }
    if (method == u"ListDir"_s) {
        const auto where = resolve(sandbox, path, *user, true);
        if (!where)
            return unaryError(connection, u"invalid_argument"_s, u"too many levels of symbolic links: "_s + path);
        if (!exists(*where))
            return unaryError(connection, u"not_found"_s, u"directory not found: "_s + where->path);
        if (!QFileInfo(where->hostPath).isDir())
            return unaryError(connection, u"invalid_argument"_s, u"path is not a directory: "_s + where->path);
        qint64 depth = body->value(u"depth"_s).toInteger(1);
        if (body->value(u"depth"_s).isString())
            depth = body->value(u"depth"_s).toString().toLongLong();
        depth = std::max<qint64>(depth, 1);
        QByteArray out = "{\"entries\":[";
        bool first = true;
        const std::function<void(const QString &, const QString &, qint64)> walk =
            [&](const QString &sandboxDirPath, const QString &hostDirPath, qint64 level) {
                QStringList names =
                    QDir(hostDirPath).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
                std::sort(names.begin(), names.end());
                for (const QString &name : std::as_const(names)) {
                    const QString childSandbox =
                        sandboxDirPath == u"/"_s ? QString(u'/' + name) : QString(sandboxDirPath + u'/' + name);
                    const QString childHost = hostDirPath + u'/' + name;
                    struct stat info
                    {
                    };
                    if (::lstat(QFile::encodeName(childHost).constData(), &info) != 0)
                        continue; // vanished meanwhile
                    if (!first)
                        out += ',';
                    first = false;
                    out += entryInfo(sandbox, childSandbox, childHost);
                    if (S_ISDIR(info.st_mode) && level < depth)
                        walk(childSandbox, childHost, level + 1);
                }
            };
        walk(where->path, where->hostPath, 1);
        return unary(connection, first ? QByteArray("{}") : out + "]}");
    }
    if (method == u"MakeDir"_s) {
        const auto where = resolve(sandbox, path, *user, true);
        if (!where)
            return unaryError(connection, u"invalid_argument"_s, u"too many levels of symbolic links: "_s + path);
        if (exists(*where)) {
            if (QFileInfo(where->hostPath).isDir())
                return unaryError(connection, u"already_exists"_s, u"directory already exists: "_s + where->path);
            return unaryError(connection, u"invalid_argument"_s,
                              u"path already exists but it is not a directory: "_s + where->path);
        }
        if (!where->writable || !QDir().mkpath(where->hostPath))
            return unaryError(connection, u"permission_denied"_s,
                              u"error making directory: mkdir %1: permission denied"_s.arg(where->path));
        return unary(connection, entryResponse(*where));
    }
    if (method == u"Remove"_s) {
        const auto where = resolve(sandbox, path, *user, false);
        if (!where)
            return unaryError(connection, u"invalid_argument"_s, u"too many levels of symbolic links: "_s + path);
        if (!exists(*where))
            return unary(connection, "{}"); // os.RemoveAll: nothing there is not an error
        if (!where->writable || where->path == u"/home"_s || where->path == u"/root"_s || where->path == u"/tmp"_s)
            return unaryError(connection, u"permission_denied"_s,
                              u"error removing file or directory: unlinkat %1: permission denied"_s.arg(where->path));
        const QFileInfo info(where->hostPath);
        const bool removed = (info.isDir() && !info.isSymLink()) ? QDir(where->hostPath).removeRecursively()
                                                                 : QFile::remove(where->hostPath);
        if (!removed)
            return unaryError(connection, u"internal"_s, u"error removing file or directory: "_s + where->path);
        sandbox.fileMetadata.remove(where->hostPath);
        return unary(connection, "{}");
    }
    if (method == u"Move"_s) {
        const QString source = body->value(u"source"_s).toString();
        const QString destination = body->value(u"destination"_s).toString();
        const auto from = resolve(sandbox, source, *user, false);
        const auto to = resolve(sandbox, destination, *user, false);
        if (!from || !to)
            return unaryError(connection, u"invalid_argument"_s, u"too many levels of symbolic links"_s);
        if (!exists(*from))
            return unaryError(connection, u"not_found"_s, u"source file not found: "_s + from->path);
        if (!from->writable || !to->writable)
            return unaryError(connection, u"permission_denied"_s,
                              u"error renaming: rename %1 %2: permission denied"_s.arg(from->path, to->path));
        QDir().mkpath(QFileInfo(to->hostPath).path());
        if (::rename(QFile::encodeName(from->hostPath).constData(), QFile::encodeName(to->hostPath).constData()) != 0) {
            return unaryError(connection, u"internal"_s,
                              u"error renaming: rename %1 %2: %3"_s.arg(from->path, to->path,
                                                                        QString::fromLocal8Bit(std::strerror(errno))));
        }
        return unary(connection, entryResponse(*to));
    }
}

} // namespace PaddockFake::E2b
