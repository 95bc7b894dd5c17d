#include "workspaceinspector.h"

#include "../backendregistry.h"
#include "../profilesession.h"
#include "../tr.h"
#include "secretmask.h"

#include <QCoroFuture>
#include <QCoroTask>

#include <QJsonArray>
#include <QLoggingCategory>
#include <QRegularExpression>
#include <QSet>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <deque>

namespace Paddock::Inspect {

Q_LOGGING_CATEGORY(lcInspect, "paddock.core.inspect")

namespace {

// Bounds: no read below holds more than this of one file in memory.
constexpr qint64 MaxMcpBytes = 16 * 1024 * 1024; // .mcp (AgentScope rewrites it whole)
constexpr qint64 MaxSkillFileBytes = 1024 * 1024; // a SKILL.md's front matter and the start of its body
constexpr qint64 MaxIndexBytes = 4 * 1024 * 1024; // a skills index
constexpr qint64 HashWholeBytes = 4 * 1024 * 1024; // SKILL.md hashed for the index up to this size
constexpr int MaxSkillEntries = 5000; // entries of skills/ listed
constexpr int MaxSkillDepth = 8;
constexpr qint64 SniffBytes = 512;
constexpr qint64 ScanChunk = 4 * 1024 * 1024;
constexpr qint64 MaxReferenceScan = 512LL * 1024 * 1024; // bytes of session files searched for data URLs
constexpr int Concurrency = 8; // reads in flight at once

Error cancelledError()
{
    return Error{Error::Kind::Cancelled, Tr::tr("the inspector stopped reading this workspace")};
}

QString joinPath(const QString &folder, const QString &name)
{
    if (folder.isEmpty() || folder == QLatin1String("."))
        return name;
    if (folder.endsWith(u'/'))
        return folder + name;
    return folder + u'/' + name;
}

QString isoTime(const QDateTime &time)
{
    return time.isValid() ? time.toUTC().toString(Qt::ISODateWithMs) : QString();
}

QJsonValue timeValue(const QDateTime &time)
{
    return time.isValid() ? QJsonValue(isoTime(time)) : QJsonValue(QJsonValue::Null);
}

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

QJsonObject entryJson(const FileEntry &entry)
{
    QJsonObject object{{QStringLiteral("name"), entry.name},
                       {QStringLiteral("kind"), kindName(entry.kind)},
                       {QStringLiteral("size"), entry.size},
                       {QStringLiteral("modified"), timeValue(entry.modified)}};
    if (entry.kind == FileEntry::Kind::Symlink)
        object.insert(QStringLiteral("linkTarget"), entry.linkTarget);
    return object;
}

QJsonObject errorJson(const Error &error)
{
    return QJsonObject{{QStringLiteral("message"), maskText(error.message)}};
}

QJsonArray stringArray(const QStringList &list)
{
    return QJsonArray::fromStringList(list);
}

QJsonArray pairArray(const QList<std::pair<QString, QString>> &pairs)
{
    QJsonArray array;
    for (const auto &[label, value] : pairs)
        array.append(QJsonObject{{QStringLiteral("name"), label}, {QStringLiteral("value"), maskValue(value)}});
    return array;
}

// The session, while it can be used for this read.
Result<ProfileSession *> usable(const WorkspaceRef &ref)
{
    if (ref.cancelled())
        return fail(cancelledError());
    return ref.session.data();
}

// A sandbox's state as the user reads it, in the interface's language ("paused"); a state the
// server names its own way (a Pod's "Stopped") as the server said it.
QString stateInWords(const SandboxInfo &sandbox)
{
    if (!sandbox.rawState.isEmpty()
        && sandbox.rawState.compare(sandboxStateName(sandbox.state), Qt::CaseInsensitive) != 0)
        return sandbox.rawState;
    switch (sandbox.state) {
    case SandboxState::Pending:
        return Tr::tr("pending");
    case SandboxState::Running:
        return Tr::tr("running");
    case SandboxState::Pausing:
        return Tr::tr("pausing");
    case SandboxState::Paused:
        return Tr::tr("paused");
    case SandboxState::Resuming:
        return Tr::tr("resuming");
    case SandboxState::Stopping:
        return Tr::tr("stopping");
    case SandboxState::Terminated:
        return Tr::tr("terminated");
    case SandboxState::Failed:
        return Tr::tr("failed");
    case SandboxState::Unknown:
        break;
    }
    return sandbox.rawState.isEmpty() ? Tr::tr("unknown") : sandbox.rawState;
}

// The session, for a read of the workspace's files: only while the sandbox runs, unless its
// workdir is a folder on this computer (a paused sandbox's file server does not answer: an
// OpenSandbox execd is frozen, a stopped Pod has no exec).
Result<ProfileSession *> filesUsable(const WorkspaceRef &ref)
{
    auto session = usable(ref);
    if (!session)
        return session;
    if (!ref.filesReadable()) {
        return fail(Error::conflict(
            Tr::tr("the workspace is %1: its files can be read only while it runs").arg(stateInWords(ref.sandbox))));
    }
    return session;
}

QCoro::Task<Result<FileChunk>> readHead(WorkspaceRef ref, QString path, qint64 limit)
{
    return readWorkspaceFile(std::move(ref), std::move(path), limit);
}
bool isMissing(const Error &error)
{
    return error.kind == Error::Kind::NotFound;
}

// The entries of a folder; a missing folder is nullopt.
QCoro::Task<Result<std::optional<QList<FileEntry>>>> listIfThere(WorkspaceRef ref, QString path)
{
    auto session = filesUsable(ref);
    if (!session)
        co_return fail(session.error());
    auto listed = co_await (*session)->listFolder(ref.sandbox.sandboxId, path);
    if (ref.cancelled())
        co_return fail(cancelledError());
    if (!listed) {
        if (isMissing(listed.error()))
            co_return std::optional<QList<FileEntry>>();
        co_return fail(listed.error());
    }
    co_return std::optional<QList<FileEntry>>(std::move(*listed));
}

// Runs `make(i)` for i in [0, count) with at most Concurrency in flight; results in order.
template<typename T>
QCoro::Task<QList<Result<T>>> inBatches(qsizetype count, std::function<QCoro::Task<Result<T>>(qsizetype)> make)
{
    QList<Result<T>> results;
    results.reserve(count);
    for (qsizetype first = 0; first < count; first += Concurrency) {
        std::deque<QCoro::Task<Result<T>>> batch; // QCoro's tasks start at once: these run together
        const qsizetype end = std::min<qsizetype>(count, first + Concurrency);
        for (qsizetype i = first; i < end; ++i)
            batch.push_back(make(i));
        for (auto &task : batch) {
            Result<T> result = co_await std::move(task);
            results.append(std::move(result));
        }
    }
    co_return results;
}

// The valid UTF-8 prefix length of `data` that does not end inside a character (at most 3 bytes
// of a started sequence are held back).
qsizetype completeUtf8(QByteArrayView data)
{
    const qsizetype size = data.size();
    for (qsizetype back = 1; back <= 3 && back <= size; ++back) {
        const auto byte = static_cast<unsigned char>(data[size - back]);
        if ((byte & 0xC0) == 0x80)
            continue; // a continuation byte: look further back for its lead
        if (byte < 0x80)
            return size;
        const int length = (byte & 0xE0) == 0xC0 ? 2 : (byte & 0xF0) == 0xE0 ? 3 : (byte & 0xF8) == 0xF0 ? 4 : 1;
        return length > back ? size - back : size;
    }
    return size;
}

bool looksBinary(QByteArrayView data)
{
    if (data.contains('\0'))
        return true;
    qsizetype control = 0;
    for (const char c : data) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 && byte != '\n' && byte != '\r' && byte != '\t' && byte != '\f' && byte != 0x1B)
            ++control;
    }
    return !data.isEmpty() && control * 10 > data.size();
}

const QRegularExpression &dataNamePattern()
{
    static const QRegularExpression pattern(QStringLiteral("^[0-9a-f]{64}(\\.[A-Za-z0-9]+)?$"));
    return pattern;
}

// The data URLs in a piece of a session file (not parsed: any text that looks like one).
void collectDataUrls(QByteArrayView text, const QString &recordedWorkdir, QSet<QString> *dataFiles)
{
    static const QByteArray prefixes[] = {QByteArrayLiteral("workspace:///data/"), QByteArrayLiteral("file://")};
    for (const QByteArray &prefix : prefixes) {
        qsizetype at = 0;
        while ((at = text.indexOf(prefix, at)) >= 0) {
            qsizetype end = at + prefix.size();
            while (end < text.size()) {
                const char c = text[end];
                if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\'' || c == '"' || c == ',' || c == '\\'
                    || c == '<' || c == '>')
                    break;
                ++end;
            }
            const QString url = QString::fromUtf8(text.sliced(at, end - at));
            if (const auto file = resolveDataUrl(url, recordedWorkdir))
                dataFiles->insert(*file);
            at = end;
        }
    }
}

// What the probe script prints, and its exit status, as a GatewayView's health.
void readProbe(const ExecResult &result, const QStringList &known, GatewayView *view)
{
    const QList<QByteArray> lines = result.stdOut.split('\n');
    QByteArray body;
    QStringList tried;
    int status = -1;
    bool inBody = false;
    for (const QByteArray &line : lines) {
        if (inBody) {
            body += line + '\n';
            continue;
        }
        if (line.startsWith("port ")) {
            const QList<QByteArray> parts = line.split(' ');
            bool ok = false;
            const int port = parts.value(1).toInt(&ok);
            if (ok && port > 0 && port < 65536)
                view->port = port;
            view->portFromCommandLine = parts.value(2) == "cmdline";
        } else if (line.startsWith("tried ")) {
            tried = QString::fromUtf8(line.mid(6)).split(u' ', Qt::SkipEmptyParts);
        } else if (line.startsWith("tool ")) {
            view->probeTool = QString::fromUtf8(line.mid(5)).trimmed();
        } else if (line.startsWith("status ")) {
            status = line.mid(7).trimmed().toInt();
        } else if (line == "body") {
            inBody = true;
        }
    }
    body = body.trimmed();
    const QString detail = maskKnown(QString::fromUtf8(body.left(2000)), known);
    if (view->probeTool == QLatin1String("none")) {
        view->health = GatewayView::Health::NoTool;
        view->probeTool.clear();
        view->healthDetail = tried.isEmpty()
            ? Tr::tr("none of curl, wget, python3, bash, nc or busybox is in the workspace to ask it")
            : Tr::tr("no tool in the workspace could ask it (%1 did not run)").arg(tried.join(QStringLiteral(", ")));
        return;
    }
    const QByteArray lower = body.toLower();
    const bool refused = lower.contains("refused") || lower.contains("failed to connect")
        || (view->probeTool == QLatin1String("curl") && status == 7);
    if (status == 0
        && (body == "ok" || lower.contains("\"status\":\"ok\"") || lower.contains("\"status\": \"ok\"")
            || lower.endsWith("\nok") || lower.endsWith("\r\nok"))) {
        view->health = GatewayView::Health::Up;
        view->healthDetail = QStringLiteral("ok");
    } else if (refused) {
        view->health = GatewayView::Health::Down;
        view->healthDetail = Tr::tr("nothing listens on 127.0.0.1:%1 in the workspace").arg(view->port);
    } else {
        view->health = GatewayView::Health::Error;
        view->healthDetail =
            detail.isEmpty() ? Tr::tr("%1 ended with status %2").arg(view->probeTool).arg(status) : detail;
    }
}

// Asks the gateway's /health from inside the workspace, with whatever the image has: curl, wget,
// python3, bash's /dev/tcp, nc, busybox nc; a tool that cannot run or crashes (Debian's static
// busybox wget does) is passed over. Only the system's folders are searched (PATH is set): a
// program the agent could have written (the gateway's venv, the workspace, ~/.local/bin) is never
// run by a read-only look. Reads /proc for the port this workspace's gateway
// (<home>/_mcp_gateway_app.py) was started with; writes nothing. The pattern's brackets keep the
// script from finding its own command line.
QString probeScript()
{
    return QString::fromUtf8(R"sh(home=$1; port=5600; from=default
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin; export PATH
for f in /proc/[0-9]*/cmdline; do
  c=$(tr '\000' ' ' < "$f" 2>/dev/null) || continue
  case $c in *"$home"/[_]mcp_gateway_app.py*)
    set -- $c; while [ $# -gt 1 ]; do [ "$1" = --port ] && { port=$2; from=cmdline; }; shift; done
    break;;
  esac
done
echo "port $port $from"
url=http://127.0.0.1:$port/health
request='GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n'
have() { command -v "$1" >/dev/null 2>&1; }
# A tool that cannot run or crashes (126, 127, a signal) says nothing about the gateway: the next one.
ask() { t=$1; shift; tried="$tried $t"; out=$("$@" 2>&1); s=$?; [ $s -lt 126 ] && tool=$t; }
tool=; tried=
have curl && ask curl curl -sS -m 5 "$url"
[ -z "$tool" ] && have wget && ask wget wget -q -T 5 -O - "$url"
[ -z "$tool" ] && have python3 && ask python3 python3 -c 'import sys,urllib.request as u
print(u.urlopen(sys.argv[1],timeout=5).read().decode("utf-8","replace"))' "$url"
[ -z "$tool" ] && have bash && ask bash bash -c 'exec 3<>/dev/tcp/127.0.0.1/$1 && printf "$0" >&3 && cat <&3' "$request" "$port"
[ -z "$tool" ] && have nc && ask nc sh -c 'printf "$0" | nc -w 5 127.0.0.1 "$1"' "$request" "$port"
[ -z "$tool" ] && have busybox && ask busybox sh -c 'printf "$0" | busybox nc -w 5 127.0.0.1 "$1"' "$request" "$port"
if [ -z "$tool" ]; then echo "tool none"; echo "tried$tried"; exit 0; fi
echo "tool $tool"; echo "status $s"; echo body; printf '%s\n' "$out" | head -c 4000
)sh");
}

} // namespace

QCoro::Task<Result<FileChunk>> readWorkspaceFile(WorkspaceRef ref, QString path, qint64 limit)
{
    auto session = filesUsable(ref);
    if (!session)
        co_return fail(session.error());
    FileChunk whole;
    qint64 offset = 0;
    while (true) {
        const qint64 want = std::min(limit - offset, MaxFileChunk);
        auto chunk = co_await (*session)->readFile(ref.sandbox.sandboxId, path, offset, want);
        if (ref.cancelled())
            co_return fail(cancelledError());
        if (!chunk)
            co_return fail(chunk.error());
        whole.totalSize = chunk->totalSize;
        whole.data.append(chunk->data);
        offset += chunk->data.size();
        if (chunk->data.isEmpty() || offset >= limit || offset >= chunk->totalSize)
            break;
    }
    co_return whole;
}

WorkspaceLayout WorkspaceRef::layout() const
{
    return session ? session->layout(sandbox) : WorkspaceLayout();
}

bool WorkspaceRef::filesReadable() const
{
    if (sandbox.state == SandboxState::Running)
        return true;
    return session && !session->hostFolder(sandbox).isEmpty();
}

bool WorkspaceRef::cancelled() const
{
    return !session || session->isShuttingDown() || (cancel && cancel->isCancelled());
}

// ---- Overview ----

QJsonObject Overview::toJson() const
{
    const SandboxInfo &s = details.sandbox;
    QJsonObject metadata;
    for (auto it = s.metadata.cbegin(); it != s.metadata.cend(); ++it)
        metadata.insert(it.key(), maskValue(it.value()));
    QJsonObject object{
        {QStringLiteral("workspaceId"), s.workspaceId},
        {QStringLiteral("sandboxId"), s.sandboxId},
        {QStringLiteral("userId"), s.userId},
        {QStringLiteral("agentId"), s.agentId},
        {QStringLiteral("profile"), profileName},
        {QStringLiteral("profileId"), profileId},
        {QStringLiteral("backend"), backend},
        {QStringLiteral("state"), sandboxStateName(s.state)},
        {QStringLiteral("rawState"), s.rawState},
        {QStringLiteral("stateReason"), details.stateReason},
        {QStringLiteral("stateMessage"), maskValue(details.stateMessage)},
        {QStringLiteral("image"), s.image},
        {QStringLiteral("createdAt"), timeValue(s.createdAt)},
        {QStringLiteral("expiresAt"), s.expiresAt ? timeValue(*s.expiresAt) : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("pausedAt"), timeValue(s.pausedAt)},
        {QStringLiteral("lastActivityAt"), timeValue(s.lastActivityAt)},
        {QStringLiteral("resources"), pairArray(details.resources)},
        {QStringLiteral("endpoints"), pairArray(details.endpoints)},
        {QStringLiteral("facts"), pairArray(details.facts)},
        {QStringLiteral("metadata"), metadata},
        {QStringLiteral("workdir"), layout.workdir},
        {QStringLiteral("gatewayHome"), layout.gatewayHome},
        {QStringLiteral("hostFolder"), hostFolder},
    };
    if (detailsError)
        object.insert(QStringLiteral("detailsError"), errorJson(*detailsError));
    QJsonObject top{{QStringLiteral("mcp"), hasMcp},
                    {QStringLiteral("data"), hasData},
                    {QStringLiteral("skills"), hasSkills},
                    {QStringLiteral("sessions"), hasSessions}};
    object.insert(QStringLiteral("present"), top);
    QJsonArray agent;
    for (const FileEntry &entry : agentFiles)
        agent.append(entryJson(entry));
    object.insert(QStringLiteral("agentFiles"), agent);
    QJsonArray transientArray;
    for (const FileEntry &entry : transient)
        transientArray.append(entryJson(entry));
    object.insert(QStringLiteral("transient"), transientArray);
    if (filesError)
        object.insert(QStringLiteral("filesError"), errorJson(*filesError));
    return object;
}

QCoro::Task<Result<Overview>> readOverview(WorkspaceRef ref)
{
    auto session = usable(ref);
    if (!session)
        co_return fail(session.error());
    ProfileSession *s = *session;
    Overview overview;
    overview.profileId = s->profileId();
    overview.profileName = s->profile().displayName();
    overview.backend = s->factory() ? s->factory()->id : Profile::kindName(s->profile().kind);
    overview.layout = s->layout(ref.sandbox);
    overview.hostFolder = s->hostFolder(ref.sandbox);
    if (s->factory()) {
        overview.paddockctlArguments << QStringLiteral("--backend") << s->factory()->id;
        if (s->factory()->toCommandLine)
            overview.paddockctlArguments << s->factory()->toCommandLine(s->profile());
    }
    overview.paddockctlArguments << QStringLiteral(
        "inspect") << (ref.sandbox.workspaceId.isEmpty() ? ref.sandbox.sandboxId : ref.sandbox.workspaceId);

    // The server's details and the top level, asked together (tasks start at once).
    auto detailsTask = s->details(ref.sandbox.sandboxId);
    const bool files = s->can(Capability::Files);
    QString workdir = QStringLiteral(".");
    auto topTask = listIfThere(ref, workdir);
    auto details = co_await std::move(detailsTask);
    auto top = co_await std::move(topTask);
    if (ref.cancelled())
        co_return fail(cancelledError());
    if (details) {
        overview.details = std::move(*details);
    } else {
        overview.details.sandbox = ref.sandbox;
        overview.detailsError = details.error();
    }
    if (!files) {
        overview.filesError =
            Error::unsupported(Tr::tr("the %1 backend cannot read a workspace's files").arg(overview.backend));
        co_return overview;
    }
    if (!top) {
        overview.filesError = top.error();
        co_return overview;
    }
    if (!*top) {
        overview.filesError =
            Error::notFound(Tr::tr("the workspace folder %1 does not exist").arg(overview.layout.workdir));
        co_return overview;
    }
    for (const FileEntry &entry : std::as_const(**top)) {
        if (entry.name == QLatin1String(".mcp"))
            overview.hasMcp = true;
        else if (entry.name == QLatin1String("data") && entry.kind == FileEntry::Kind::Folder)
            overview.hasData = true;
        else if (entry.name == QLatin1String("skills") && entry.kind == FileEntry::Kind::Folder)
            overview.hasSkills = true;
        else if (entry.name == QLatin1String("sessions") && entry.kind == FileEntry::Kind::Folder)
            overview.hasSessions = true;
        else if (entry.name.startsWith(QLatin1String(".skill-staging-")))
            overview.transient.append(entry);
        else if (overview.layout.workdir + u'/' + entry.name == overview.layout.gatewayHome)
            continue; // the gateway home inside the workdir (local workspaces): its own section
        else if (entry.name == QLatin1String(".paddock"))
            continue; // Paddock's own metadata (local workspaces)
        else
            overview.agentFiles.append(entry);
    }
    if (overview.hasSkills) {
        QString skills = QStringLiteral("skills");
        auto partitions = co_await listIfThere(ref, skills);
        if (ref.cancelled())
            co_return fail(cancelledError());
        if (partitions && *partitions) {
            for (FileEntry entry : std::as_const(**partitions)) {
                if (entry.kind == FileEntry::Kind::Folder && entry.name.contains(QLatin1String(".equipping-"))) {
                    entry.name = QStringLiteral("skills/") + entry.name;
                    overview.transient.append(entry);
                }
            }
        }
    }
    co_return overview;
}

// ---- Sessions ----

QJsonObject SessionSummary::toJson() const
{
    QJsonObject object{{QStringLiteral("id"), id}, {QStringLiteral("modified"), timeValue(modified)}};
    if (filesRead) {
        object.insert(QStringLiteral("size"), size);
        object.insert(QStringLiteral("context"),
                      context ? QJsonValue(entryJson(*context)) : QJsonValue(QJsonValue::Null));
        QJsonArray results;
        for (const FileEntry &entry : toolResults)
            results.append(entryJson(entry));
        object.insert(QStringLiteral("toolResults"), results);
        QJsonArray others;
        for (const FileEntry &entry : otherFiles)
            others.append(entryJson(entry));
        object.insert(QStringLiteral("otherFiles"), others);
    }
    if (filesError)
        object.insert(QStringLiteral("filesError"), errorJson(*filesError));
    if (lineCount)
        object.insert(QStringLiteral("lines"), *lineCount);
    return object;
}

QCoro::Task<Result<QList<SessionSummary>>> readSessions(WorkspaceRef ref)
{
    QString path = QStringLiteral("sessions");
    auto listed = co_await listIfThere(ref, path);
    if (!listed)
        co_return fail(listed.error());
    QList<SessionSummary> sessions;
    if (!*listed)
        co_return sessions;
    for (const FileEntry &entry : std::as_const(**listed)) {
        if (entry.kind != FileEntry::Kind::Folder)
            continue; // a stray file in sessions/ is not a session
        SessionSummary session;
        session.id = entry.name;
        session.modified = entry.modified;
        sessions.append(std::move(session));
    }
    std::stable_sort(sessions.begin(), sessions.end(),
                     [](const SessionSummary &a, const SessionSummary &b) { return a.modified > b.modified; });
    co_return sessions;
}

QCoro::Task<Result<SessionSummary>> readSessionFiles(WorkspaceRef ref, SessionSummary session)
{
    QString path = QStringLiteral("sessions/") + session.id;
    auto listed = co_await listIfThere(ref, path);
    if (!listed)
        co_return fail(listed.error());
    session.filesRead = true;
    session.size = 0;
    session.context.reset();
    session.toolResults.clear();
    session.otherFiles.clear();
    if (!*listed) {
        session.filesError = Error::notFound(Tr::tr("the session folder %1 is gone").arg(path));
        co_return session;
    }
    session.filesError.reset();
    for (const FileEntry &entry : std::as_const(**listed)) {
        if (entry.kind == FileEntry::Kind::File)
            session.size += entry.size;
        if (entry.modified > session.modified)
            session.modified = entry.modified;
        if (entry.name == QLatin1String("context.jsonl") && entry.kind == FileEntry::Kind::File)
            session.context = entry;
        else if (entry.kind == FileEntry::Kind::File && parseToolResultFileName(entry.name))
            session.toolResults.append(entry);
        else
            session.otherFiles.append(entry);
    }
    co_return session;
}

QCoro::Task<Result<qint64>> countContextLines(WorkspaceRef ref, QString sessionId,
                                              std::function<void(qint64, qint64)> progress)
{
    const QString path = QStringLiteral("sessions/") + sessionId + QStringLiteral("/context.jsonl");
    qint64 offset = 0;
    qint64 lines = 0;
    char last = '\n';
    while (true) {
        auto session = filesUsable(ref);
        if (!session)
            co_return fail(session.error());
        auto chunk = co_await (*session)->readFile(ref.sandbox.sandboxId, path, offset, ScanChunk);
        if (ref.cancelled())
            co_return fail(cancelledError());
        if (!chunk)
            co_return fail(chunk.error());
        lines += std::count(chunk->data.cbegin(), chunk->data.cend(), '\n');
        if (!chunk->data.isEmpty())
            last = chunk->data.back();
        offset += chunk->data.size();
        if (progress)
            progress(offset, chunk->totalSize);
        if (chunk->data.isEmpty() || offset >= chunk->totalSize)
            break;
    }
    if (last != '\n')
        ++lines; // a last line still being written
    co_return lines;
}

// ---- Transcripts ----

QCoro::Task<Result<TranscriptProgress>>
readTranscript(WorkspaceRef ref, TranscriptRead read,
               std::function<void(QList<TranscriptMessage>, TranscriptProgress)> onPage)
{
    if (read.offset < 0)
        co_return fail(Error::invalidArgument(Tr::tr("a read needs an offset of 0 or more")));
    const QString path = QStringLiteral("sessions/") + read.sessionId + QStringLiteral("/context.jsonl");
    TranscriptReader::Options options = read.options;
    options.sessionId = read.sessionId;
    options.recordedWorkdir = ref.layout().workdir;
    auto reader = std::make_shared<TranscriptReader>(options);
    TranscriptProgress progress;
    progress.bytesRead = read.offset;
    qint64 offset = read.offset;
    const qint64 end = read.length < 0 ? -1 : read.offset + read.length;
    // The first chunk small, so the first page is parsed and shown soon; then chunkSize.
    qint64 chunkSize = std::min<qint64>(64 * 1024, std::max<qint64>(1, read.chunkSize));
    bool first = true;
    while (true) {
        auto session = filesUsable(ref);
        if (!session)
            co_return fail(session.error());
        qint64 want = std::min(chunkSize, MaxFileChunk);
        if (end >= 0)
            want = std::min(want, end - offset);
        FileChunk chunk;
        if (want > 0) {
            auto got = co_await (*session)->readFile(ref.sandbox.sandboxId, path, offset, want);
            if (ref.cancelled())
                co_return fail(cancelledError());
            if (!got) {
                if (!first && isMissing(got.error()))
                    co_return fail(Error::notFound(Tr::tr("%1 vanished while it was read").arg(path)));
                co_return fail(got.error());
            }
            chunk = std::move(*got);
        }
        if (first)
            progress.totalSize = chunk.totalSize;
        first = false;
        offset += chunk.data.size();
        const bool atEnd = chunk.data.isEmpty() || offset >= chunk.totalSize || (end >= 0 && offset >= end);
        // Parsed on a worker thread; the reader is used by one job at a time (each awaited).
        QByteArray data = std::move(chunk.data);
        QFuture<QList<TranscriptMessage>> job = QtConcurrent::run([reader, data, atEnd] {
            reader->feed(data);
            if (atEnd)
                reader->finish();
            return reader->takeMessages();
        });
        QList<TranscriptMessage> messages = co_await job;
        for (TranscriptMessage &message : messages)
            message.offset += read.offset; // the file's offsets, wherever the read began
        if (ref.cancelled())
            co_return fail(cancelledError());
        progress.bytesRead = offset;
        progress.linesRead = reader->linesRead();
        progress.done = atEnd;
        if ((!messages.isEmpty() || atEnd) && onPage)
            onPage(std::move(messages), progress);
        if (atEnd)
            break;
        chunkSize = std::max<qint64>(1, read.chunkSize);
    }
    co_return progress;
}

QCoro::Task<Result<TextPage>> readTextPage(WorkspaceRef ref, QString path, qint64 offset, qint64 length)
{
    auto session = filesUsable(ref);
    if (!session)
        co_return fail(session.error());
    auto chunk = co_await (*session)->readFile(ref.sandbox.sandboxId, path, offset, length);
    if (ref.cancelled())
        co_return fail(cancelledError());
    if (!chunk)
        co_return fail(chunk.error());
    TextPage page;
    page.path = path;
    page.offset = offset;
    page.totalSize = chunk->totalSize;
    const bool atEnd = offset + chunk->data.size() >= chunk->totalSize;
    qsizetype keep = atEnd ? chunk->data.size() : completeUtf8(chunk->data);
    if (!atEnd && keep > 0) {
        // A page ends after a line (one in its back half), else after a space or tab in its last
        // KiB: redaction masks a page at a time, and a secret is not cut between two pages.
        const QByteArrayView head(chunk->data.constData(), keep);
        const qsizetype newline = head.lastIndexOf('\n');
        if (newline >= keep / 2) {
            keep = newline + 1;
        } else {
            for (qsizetype i = keep - 1; i >= std::max<qsizetype>(0, keep - 1024); --i) {
                if (head.at(i) == ' ' || head.at(i) == '\t') {
                    keep = i + 1;
                    break;
                }
            }
        }
    }
    if (keep == 0)
        keep = chunk->data.size(); // never an empty page that cannot advance
    page.bytes = keep;
    const QByteArrayView bytes(chunk->data.constData(), keep);
    if (looksBinary(bytes)) {
        page.binary = true;
        co_return page;
    }
    page.text = QString::fromUtf8(bytes);
    page.placeholders = findDataPlaceholders(page.text, ref.layout().workdir);
    co_return page;
}

// ---- Skills ----

QJsonObject SkillsView::toJson() const
{
    QJsonObject object{{QStringLiteral("present"), present}, {QStringLiteral("complete"), complete}};
    QJsonObject layoutJson = layout.toJson();
    layoutJson.remove(QStringLiteral("paths")); // every file: too much for a summary
    object.insert(QStringLiteral("layout"), layoutJson);
    QJsonArray skillArray;
    for (const SkillView &skill : skills) {
        QJsonObject entry{{QStringLiteral("partition"), skill.partition},
                          {QStringLiteral("dir"), skill.dir},
                          {QStringLiteral("path"), skill.path},
                          {QStringLiteral("files"), stringArray(skill.files)}};
        if (skill.readError)
            entry.insert(QStringLiteral("readError"), errorJson(*skill.readError));
        else
            entry.insert(QStringLiteral("skill"), skill.file.toJson());
        skillArray.append(entry);
    }
    object.insert(QStringLiteral("skills"), skillArray);
    QJsonArray indexArray;
    for (const SkillIndexView &index : indexes) {
        QJsonObject entry{{QStringLiteral("partition"), index.partition},
                          {QStringLiteral("file"), index.indexFile},
                          {QStringLiteral("valid"), index.index.valid}};
        if (!index.index.valid) {
            entry.insert(QStringLiteral("error"), index.index.error);
        } else {
            entry.insert(QStringLiteral("matches"), index.diff.matches());
            entry.insert(QStringLiteral("onlyInIndex"), stringArray(index.diff.onlyInIndex));
            entry.insert(QStringLiteral("onlyOnDisk"), stringArray(index.diff.onlyOnDisk));
            entry.insert(QStringLiteral("changed"), stringArray(index.diff.changed));
        }
        indexArray.append(entry);
    }
    object.insert(QStringLiteral("indexes"), indexArray);
    return object;
}

QCoro::Task<Result<SkillsView>> readSkills(WorkspaceRef ref)
{
    SkillsView view;
    // Breadth first, never through a symlink, bounded in entries and depth.
    QStringList paths;
    QList<std::pair<QString, int>> folders{{QString(), 0}};
    int entries = 0;
    bool first = true;
    while (!folders.isEmpty()) {
        const int count = int(std::min<qsizetype>(folders.size(), Concurrency));
        const QList<std::pair<QString, int>> batch = folders.mid(0, count);
        folders.remove(0, count);
        std::function<QCoro::Task<Result<std::optional<QList<FileEntry>>>>(qsizetype)> list = [ref,
                                                                                               batch](qsizetype i) {
            QString path = joinPath(QStringLiteral("skills"), batch[i].first);
            return listIfThere(ref, path);
        };
        auto listed = co_await inBatches(batch.size(), list);
        for (qsizetype i = 0; i < listed.size(); ++i) {
            const auto &[folder, depth] = batch[i];
            if (!listed[i]) {
                if (listed[i].error().kind == Error::Kind::Cancelled || first)
                    co_return fail(listed[i].error());
                qCDebug(lcInspect) << "skills folder not listed:" << listed[i].error().message;
                view.complete = false;
                continue;
            }
            if (!*listed[i]) {
                if (first)
                    co_return view; // no skills/
                continue;
            }
            view.present = true;
            for (const FileEntry &entry : std::as_const(**listed[i])) {
                if (++entries > MaxSkillEntries) {
                    view.complete = false;
                    break;
                }
                const QString path = joinPath(folder, entry.name);
                if (entry.kind == FileEntry::Kind::Folder) {
                    paths.append(path + u'/');
                    if (depth + 1 < MaxSkillDepth)
                        folders.append({path, depth + 1});
                    else
                        view.complete = false;
                } else if (entry.kind == FileEntry::Kind::File) {
                    paths.append(path);
                }
            }
        }
        first = false;
        if (ref.cancelled())
            co_return fail(cancelledError());
    }
    view.layout = classifySkillPaths(paths);

    // Each skill's SKILL.md, and its other files.
    QList<SkillPath> skillFiles;
    for (const SkillPath &path : std::as_const(view.layout.paths)) {
        if (path.kind == SkillPath::Kind::SkillFile)
            skillFiles.append(path);
    }
    std::function<QCoro::Task<Result<FileChunk>>(qsizetype)> read = [ref, skillFiles](qsizetype i) {
        QString path = QStringLiteral("skills/") + skillFiles[i].path;
        return readHead(ref, path, HashWholeBytes);
    };
    auto contents = co_await inBatches(skillFiles.size(), read);
    if (ref.cancelled())
        co_return fail(cancelledError());
    QHash<QString, QHash<QString, QString>> hashes; // partition -> dir -> hash
    for (qsizetype i = 0; i < skillFiles.size(); ++i) {
        const SkillPath &path = skillFiles[i];
        SkillView skill;
        skill.partition = path.partition;
        skill.dir = path.skillDir;
        skill.path = QStringLiteral("skills/") + path.path;
        if (contents[i]) {
            const FileChunk &chunk = *contents[i];
            skill.file = parseSkillFile(
                QByteArrayView(chunk.data).first(std::min<qsizetype>(chunk.data.size(), MaxSkillFileBytes)));
            if (chunk.data.size() >= chunk.totalSize)
                hashes[path.partition].insert(path.skillDir, skillFileHash(chunk.data));
        } else {
            skill.readError = contents[i].error();
        }
        const QString prefix = (path.partition.isEmpty() ? QString() : path.partition + u'/') + path.skillDir + u'/';
        for (const SkillPath &other : std::as_const(view.layout.paths)) {
            if (other.kind == SkillPath::Kind::SkillAsset || other.kind == SkillPath::Kind::NestedSkillFile) {
                if (other.path.startsWith(prefix))
                    skill.files.append(other.path.mid(prefix.size()));
            }
        }
        view.skills.append(std::move(skill));
    }
    // Each partition's index (Local only) against what is there.
    for (const SkillPartition &partition : std::as_const(view.layout.partitions)) {
        if (partition.indexFile.isEmpty())
            continue;
        QString path = QStringLiteral("skills/") + (partition.name.isEmpty() ? QString() : partition.name + u'/')
            + partition.indexFile;
        auto bytes = co_await readHead(ref, path, MaxIndexBytes);
        if (ref.cancelled())
            co_return fail(cancelledError());
        SkillIndexView index;
        index.partition = partition.name;
        index.indexFile = partition.indexFile;
        if (bytes) {
            index.index = parseSkillIndex(bytes->data);
        } else {
            index.index.valid = false;
            index.index.error = bytes.error().message;
        }
        if (index.index.valid)
            index.diff = compareSkillIndex(index.index, hashes.value(partition.name));
        view.indexes.append(std::move(index));
    }
    co_return view;
}

// ---- MCP ----

QJsonObject McpView::toJson() const
{
    QJsonObject object{{QStringLiteral("present"), present}, {QStringLiteral("size"), size}};
    if (config)
        object.insert(QStringLiteral("config"), config->toJson());
    if (error)
        object.insert(QStringLiteral("error"), error->toJson());
    return object;
}

QCoro::Task<Result<McpView>> readMcp(WorkspaceRef ref)
{
    McpView view;
    QString path = QStringLiteral(".mcp");
    auto bytes = co_await readHead(ref, path, MaxMcpBytes);
    if (!bytes) {
        if (isMissing(bytes.error()))
            co_return view;
        co_return fail(bytes.error());
    }
    view.present = true;
    view.size = bytes->totalSize;
    if (bytes->data.size() < bytes->totalSize) {
        McpReadError error;
        error.kind = McpReadError::Kind::NotJson;
        error.byteSize = bytes->totalSize;
        error.message = Tr::tr(".mcp is %1 bytes, more than the %2 MiB the inspector reads")
                            .arg(bytes->totalSize)
                            .arg(MaxMcpBytes / (1024 * 1024));
        view.error = error;
        co_return view;
    }
    auto parsed = parseMcpConfig(bytes->data);
    if (parsed)
        view.config = std::move(*parsed);
    else
        view.error = parsed.error();
    co_return view;
}

// ---- Data ----

QJsonObject DataView::toJson() const
{
    QJsonObject object{{QStringLiteral("present"), present}, {QStringLiteral("referencesScanned"), referencesScanned}};
    QJsonArray array;
    for (const DataFile &file : files) {
        QJsonObject entry = entryJson(file.entry);
        entry.insert(QStringLiteral("type"), dataKindName(file.kind));
        entry.insert(QStringLiteral("mediaType"), dataKindMediaType(file.kind));
        entry.insert(QStringLiteral("nameMatches"), file.nameMatches);
        if (referencesScanned)
            entry.insert(QStringLiteral("referencedFrom"), stringArray(file.referencedFrom));
        array.append(entry);
    }
    object.insert(QStringLiteral("files"), array);
    return object;
}

namespace {

// Every data/ file a session file names, by file (relative to the workdir).
QCoro::Task<Result<QHash<QString, QSet<QString>>>> scanReferences(WorkspaceRef ref, qint64 *scanned, bool *complete)
{
    QHash<QString, QSet<QString>> references; // data file -> session files
    auto sessions = co_await readSessions(ref);
    if (!sessions)
        co_return fail(sessions.error());
    const QString workdir = ref.layout().workdir;
    for (const SessionSummary &listed : std::as_const(*sessions)) {
        auto session = co_await readSessionFiles(ref, listed);
        if (!session) {
            if (session.error().kind == Error::Kind::Cancelled)
                co_return fail(session.error());
            *complete = false;
            continue;
        }
        QList<FileEntry> files = session->toolResults;
        if (session->context)
            files.prepend(*session->context);
        for (const FileEntry &file : std::as_const(files)) {
            const QString path = QStringLiteral("sessions/") + session->id + u'/' + file.name;
            qint64 offset = 0;
            QByteArray carry; // the end of the last chunk: a URL cut in two is found whole
            while (true) {
                if (*scanned >= MaxReferenceScan) {
                    *complete = false;
                    co_return references;
                }
                auto usableSession = filesUsable(ref);
                if (!usableSession)
                    co_return fail(usableSession.error());
                auto chunk = co_await (*usableSession)->readFile(ref.sandbox.sandboxId, path, offset, ScanChunk);
                if (ref.cancelled())
                    co_return fail(cancelledError());
                if (!chunk) {
                    *complete = false;
                    break;
                }
                *scanned += chunk->data.size();
                const QByteArray text = carry + chunk->data;
                QSet<QString> found;
                collectDataUrls(text, workdir, &found);
                for (const QString &dataFile : std::as_const(found))
                    references[dataFile].insert(path);
                carry = text.right(1024);
                offset += chunk->data.size();
                if (chunk->data.isEmpty() || offset >= chunk->totalSize)
                    break;
            }
        }
    }
    co_return references;
}

} // namespace

QCoro::Task<Result<DataView>> readData(WorkspaceRef ref, bool scanReferences_)
{
    DataView view;
    QString path = QStringLiteral("data");
    auto listed = co_await listIfThere(ref, path);
    if (!listed)
        co_return fail(listed.error());
    if (!*listed)
        co_return view;
    view.present = true;
    QList<FileEntry> files;
    for (const FileEntry &entry : std::as_const(**listed)) {
        if (entry.kind == FileEntry::Kind::File)
            files.append(entry);
    }
    std::function<QCoro::Task<Result<FileChunk>>(qsizetype)> sniff = [ref, files](qsizetype i) {
        QString file = QStringLiteral("data/") + files[i].name;
        return readHead(ref, file, SniffBytes);
    };
    auto heads = co_await inBatches(files.size(), sniff);
    if (ref.cancelled())
        co_return fail(cancelledError());
    for (qsizetype i = 0; i < files.size(); ++i) {
        DataFile file;
        file.entry = files[i];
        file.kind = heads[i] ? sniffData(heads[i]->data) : DataKind::Unknown;
        file.nameMatches = dataNamePattern().match(files[i].name).hasMatch();
        view.files.append(std::move(file));
    }
    if (scanReferences_) {
        bool complete = true;
        auto references = co_await scanReferences(ref, &view.referenceBytesScanned, &complete);
        if (!references)
            co_return fail(references.error());
        for (DataFile &file : view.files) {
            QStringList from = references->value(QStringLiteral("data/") + file.entry.name).values();
            from.sort();
            file.referencedFrom = from;
        }
        view.referencesScanned = complete;
    }
    co_return view;
}

// ---- Gateway ----

QJsonObject GatewayView::toJson() const
{
    static const char *const healthNames[] = {"notAsked", "up", "down", "error", "noTool"};
    QJsonObject object{{QStringLiteral("home"), home},
                       {QStringLiteral("scriptPresent"), scriptPresent},
                       {QStringLiteral("scriptEmpty"), scriptEmpty},
                       {QStringLiteral("paddockMarker"), paddockMarker},
                       {QStringLiteral("venvPresent"), venvPresent},
                       {QStringLiteral("bootstrapComplete"), bootstrapComplete()},
                       {QStringLiteral("log"), log ? QJsonValue(entryJson(*log)) : QJsonValue(QJsonValue::Null)},
                       {QStringLiteral("health"), QString::fromLatin1(healthNames[int(health)])},
                       {QStringLiteral("port"), port},
                       {QStringLiteral("portFromCommandLine"), portFromCommandLine},
                       {QStringLiteral("probeTool"), probeTool},
                       {QStringLiteral("healthDetail"), healthDetail}};
    if (filesError)
        object.insert(QStringLiteral("filesError"), errorJson(*filesError));
    return object;
}

namespace {

// The raw secret values of the workspace's .mcp (McpConfig::secretValues), for maskKnown(); none
// when it cannot be read (the patterns still apply).
QCoro::Task<QStringList> knownSecrets(WorkspaceRef ref)
{
    auto mcp = co_await readMcp(ref);
    if (!mcp || !mcp->config)
        co_return QStringList();
    co_return mcp->config->secretValues();
}

} // namespace

QCoro::Task<Result<GatewayView>> readGateway(WorkspaceRef ref, bool probe)
{
    auto session = usable(ref);
    if (!session)
        co_return fail(session.error());
    GatewayView view;
    const WorkspaceLayout layout = (*session)->layout(ref.sandbox);
    view.home = layout.gatewayHome;
    if (view.home.isEmpty()) {
        view.filesError = Error::unsupported(Tr::tr("workspaces of this backend have no gateway home"));
        co_return view;
    }
    QString home = view.home;
    auto listed = co_await listIfThere(ref, home);
    if (!listed) {
        if (listed.error().kind == Error::Kind::Cancelled)
            co_return fail(listed.error());
        view.filesError = listed.error();
    } else if (!*listed) {
        view.filesError = Error::notFound(Tr::tr("the gateway home %1 does not exist").arg(view.home));
    } else {
        for (const FileEntry &entry : std::as_const(**listed)) {
            if (entry.name == QLatin1String("_mcp_gateway_app.py")) {
                view.scriptPresent = true;
                view.scriptEmpty = entry.kind == FileEntry::Kind::File && entry.size == 0;
            } else if (entry.name == QLatin1String(".bootstrap-complete")) {
                view.paddockMarker = true;
            } else if (entry.name == QLatin1String(".venv")) {
                view.venvPresent = true;
            } else if (entry.name == QLatin1String("gateway.log")) {
                view.log = entry;
            }
        }
    }
    if (!probe)
        co_return view;
    auto again = usable(ref);
    if (!again)
        co_return fail(again.error());
    if (!(*again)->can(Capability::Exec)) {
        const QString backend = (*again)->factory() ? (*again)->factory()->id : QString();
        view.healthDetail = Tr::tr("the %1 backend cannot run commands in a workspace").arg(backend);
        co_return view;
    }
    if (ref.sandbox.state != SandboxState::Running) {
        view.health = GatewayView::Health::Error;
        view.healthDetail = Tr::tr("the workspace is not running (%1): resume it to ask its gateway")
                                .arg(sandboxStateName(ref.sandbox.state));
        co_return view;
    }
    ExecRequest request;
    request.argv =
        QStringList{QStringLiteral("sh"), QStringLiteral("-c"), probeScript(), QStringLiteral("sh"), view.home};
    request.timeout = std::chrono::seconds(20);
    // Stopped (the process group killed) when the reader moves on, and by the session's shutdown.
    request.cancel = ref.cancel;
    auto ran = co_await (*again)->inspectExec(ref.sandbox.sandboxId, std::move(request));
    if (ref.cancelled())
        co_return fail(cancelledError());
    if (!ran) {
        view.health = GatewayView::Health::Error;
        view.healthDetail = maskText(ran.error().message);
        co_return view;
    }
    if (ran->timedOut) {
        view.health = GatewayView::Health::Error;
        view.healthDetail = Tr::tr("the health check did not end in time");
        co_return view;
    }
    const QStringList known = co_await knownSecrets(ref);
    readProbe(*ran, known, &view);
    co_return view;
}

QCoro::Task<Result<QString>> readGatewayLogTail(WorkspaceRef ref, qint64 bytes)
{
    auto session = filesUsable(ref);
    if (!session)
        co_return fail(session.error());
    const QString home = (*session)->layout(ref.sandbox).gatewayHome;
    if (home.isEmpty())
        co_return fail(Error::unsupported(Tr::tr("workspaces of this backend have no gateway home")));
    const QString path = home + QStringLiteral("/gateway.log");
    auto info = co_await (*session)->stat(ref.sandbox.sandboxId, path);
    if (ref.cancelled())
        co_return fail(cancelledError());
    if (!info)
        co_return fail(info.error());
    const qint64 want = std::clamp<qint64>(bytes, 0, MaxFileChunk);
    const qint64 offset = std::max<qint64>(0, info->size - want);
    auto again = filesUsable(ref);
    if (!again)
        co_return fail(again.error());
    auto chunk = co_await (*again)->readFile(ref.sandbox.sandboxId, path, offset, want);
    if (ref.cancelled())
        co_return fail(cancelledError());
    if (!chunk)
        co_return fail(chunk.error());
    QByteArray data = std::move(chunk->data);
    if (offset > 0) {
        const qsizetype newline = data.indexOf('\n');
        data = newline < 0 ? QByteArray() : data.mid(newline + 1); // whole lines only
    }
    const QStringList known = co_await knownSecrets(ref);
    if (ref.cancelled())
        co_return fail(cancelledError());
    QString text = maskKnown(QString::fromUtf8(data), known);
    co_return text;
}

} // namespace Paddock::Inspect
