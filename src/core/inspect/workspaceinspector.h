#pragma once

#include "../backend.h"
#include "../canceltoken.h"
#include "../result.h"
#include "../sandbox.h"
#include "../workspacefiles.h"
#include "mcpconfig.h"
#include "skills.h"
#include "transcript.h"

#include <QCoroFwd>

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <optional>

namespace Paddock {
class ProfileSession;
}

namespace Paddock::Inspect {

// One workspace of one profile, read through the profile's ProfileSession (never around it). It
// is copied into every coroutine below, so none of them resumes into an object that may be gone;
// a session that ended (or was deleted) makes the next read fail with Cancelled, and so does
// `cancel` (the inspector's selection moved on): a read stops at its next step.
//
// Nothing here writes to the workspace: reads are listFolder, stat and bounded readFile calls,
// and the gateway probe is one exec of a read-only shell script (reference §8, §11).
struct WorkspaceRef
{
    QPointer<ProfileSession> session;
    SandboxInfo sandbox;
    std::shared_ptr<CancelToken> cancel;

    WorkspaceLayout layout() const; // the session's layout of the sandbox (empty once it ended)
    // Whether its files can be read now: the sandbox runs, or its workdir is a folder on this
    // computer. (A paused sandbox's file server does not answer.) The read functions below refuse
    // with Conflict otherwise; a caller that uses the session's file calls itself asks this first.
    bool filesReadable() const;
    bool cancelled() const; // cancelled, or the session ended
};

// What the overview shows beyond the tree's row: the server's details, where the workspace lives,
// what is at its top level.
struct Overview
{
    SandboxDetails details; // details.sandbox is the row's when the server could not be asked
    std::optional<Error> detailsError;
    QString profileId;
    QString profileName;
    QString backend; // the backend's id ("local", "docker", ...)
    WorkspaceLayout layout;
    QString hostFolder; // the workdir's folder on this computer, if there is one
    // The workdir's top level (reference §2); filesError when it could not be listed (a backend
    // without files, a sandbox that is not running).
    std::optional<Error> filesError;
    bool hasMcp = false;
    bool hasData = false;
    bool hasSkills = false;
    bool hasSessions = false;
    // Everything else at the top level: what the agents made (not the gateway home where it is
    // inside the workdir, nor Paddock's own .paddock metadata).
    QList<FileEntry> agentFiles;
    // Transient entries AgentScope leaves while it works: .skill-staging-* at the top level and
    // skills/<agent_id>.equipping-<pid>/, with their times (old ones are leftovers of a crash).
    QList<FileEntry> transient;
    // paddockctl's arguments (without the program) that inspect this workspace with the profile's
    // backend options; the API key is never among them (paddockctl reads it from its variable).
    QStringList paddockctlArguments;

    QJsonObject toJson() const;
};
QCoro::Task<Result<Overview>> readOverview(WorkspaceRef ref);

// One sessions/<id>/ folder. Sessions whose context was never compressed have no folder at all.
struct SessionSummary
{
    QString id;
    QDateTime modified; // the folder's; after readSessionFiles the newest of the folder and its files
    // Filled by readSessionFiles (lazily: one listing per session).
    bool filesRead = false;
    qint64 size = 0; // bytes of its files
    std::optional<FileEntry> context; // context.jsonl
    QList<FileEntry> toolResults; // tool_result-<id>.txt, in name order
    QList<FileEntry> otherFiles; // anything else (shown as is, never an error)
    std::optional<Error> filesError;
    // Filled by countContextLines (lazily: reads the whole file).
    std::optional<qint64> lineCount;

    QJsonObject toJson() const;
};
// The folders of sessions/ with their times, newest first: one listing. An absent sessions/ is an
// empty list.
QCoro::Task<Result<QList<SessionSummary>>> readSessions(WorkspaceRef ref);
// One session's files (its size, context.jsonl, tool-result files).
QCoro::Task<Result<SessionSummary>> readSessionFiles(WorkspaceRef ref, SessionSummary session);
// The newlines in sessions/<id>/context.jsonl (a last line without one counts too), read in
// chunks; `progress(bytesRead, total)` after each.
QCoro::Task<Result<qint64>> countContextLines(WorkspaceRef ref, QString sessionId,
                                              std::function<void(qint64, qint64)> progress = {});

// How far a transcript read went.
struct TranscriptProgress
{
    qint64 bytesRead = 0; // from the start of the file
    qint64 totalSize = 0; // the file's size when the read began
    int linesRead = 0;
    bool done = false; // the end was reached (what is there now)
};
// sessions/<id>/context.jsonl as messages, read in chunks of `chunkSize` bytes (the first one
// small, so the first page shows soon) and parsed on a worker thread; onPage gets each batch of
// finished messages on the calling thread as soon as it is parsed, in order. Reads from `offset`
// (a message's offset: re-reading a range, or continuing) up to `length` bytes (-1: to the end).
// Messages' offsets are the file's; their line numbers count from where the read began (firstLine
// is relative to it: add what you knew).
//
// Every read of the workspace's files (all the functions below but readOverview's details) is
// refused with Conflict while the sandbox is not Running, unless its workdir is a folder on this
// computer (Backend::hostFolder): a paused sandbox's file server does not answer.
struct TranscriptRead
{
    QString sessionId;
    qint64 offset = 0;
    qint64 length = -1;
    qint64 chunkSize = 1024 * 1024;
    TranscriptReader::Options options; // sessionId and recordedWorkdir are filled in
};
QCoro::Task<Result<TranscriptProgress>>
readTranscript(WorkspaceRef ref, TranscriptRead read,
               std::function<void(QList<TranscriptMessage>, TranscriptProgress)> onPage);

// A tool-result file (or any text file of the workspace) page by page: `length` bytes from
// `offset`, decoded (invalid UTF-8 as U+FFFD, cut at a character boundary), with its data
// placeholders found.
struct TextPage
{
    QString path;
    qint64 offset = 0;
    qint64 totalSize = 0;
    qint64 bytes = 0; // bytes of the file this page covers (the next page starts at offset + bytes)
    QString text;
    bool binary = false; // NUL bytes or mostly control characters: text is empty, not shown
    QList<DataPlaceholder> placeholders;
};
QCoro::Task<Result<TextPage>> readTextPage(WorkspaceRef ref, QString path, qint64 offset, qint64 length);

// A whole file of at most `limit` bytes (a longer one: its first `limit` and its size), read as
// every inspector read is: refused when the workspace's files cannot be read now
// (WorkspaceRef::filesReadable), Cancelled once the reader moved on. The console's image previews.
QCoro::Task<Result<FileChunk>> readWorkspaceFile(WorkspaceRef ref, QString path, qint64 limit);

// skills/: the layout (reference §7), every skill's SKILL.md read (its front matter; what
// AgentScope would ignore and why), and for Local workspaces each index against the disk.
struct SkillView
{
    QString partition; // ".seed", an agent id, "" in the flat layout
    QString dir;
    QString path; // of SKILL.md, relative to the workdir
    SkillFile file; // without its body when read for the overview
    QStringList files; // the skill directory's other files, relative to it
    std::optional<Error> readError;
};
struct SkillIndexView
{
    QString partition;
    QString indexFile; // ".index" or ".skills"
    SkillIndex index;
    SkillIndexDiff diff;
};
struct SkillsView
{
    bool present = false;
    SkillsLayout layout;
    QList<SkillView> skills; // in the layout's partition order, then by dir
    QList<SkillIndexView> indexes;
    bool complete = true; // false: more than the entries read (a huge skills/), the rest not listed
    QJsonObject toJson() const;
};
QCoro::Task<Result<SkillsView>> readSkills(WorkspaceRef ref);

// .mcp: absent, read (every secret masked; McpEntry::reveal for one value), or unreadable.
struct McpView
{
    bool present = false;
    qint64 size = 0;
    std::optional<McpConfig> config;
    std::optional<McpReadError> error;
    QJsonObject toJson() const; // masked
};
QCoro::Task<Result<McpView>> readMcp(WorkspaceRef ref);

// data/: each file with its size, its kind by content, and where it is referenced from.
struct DataFile
{
    FileEntry entry;
    DataKind kind = DataKind::Unknown;
    bool nameMatches = false; // <64 hex><ext>, as AgentScope names them (others shown as they are)
    QStringList referencedFrom; // files relative to the workdir (context.jsonl, tool-result files)
};
struct DataView
{
    bool present = false;
    QList<DataFile> files; // in name order
    bool referencesScanned = false; // with scanReferences: every session file was read
    qint64 referenceBytesScanned = 0;
    QJsonObject toJson() const;
};
// With scanReferences, every context.jsonl and tool-result file is read once, searched for
// data URLs (not parsed); without, referencedFrom stays empty.
QCoro::Task<Result<DataView>> readData(WorkspaceRef ref, bool scanReferences);

// The MCP gateway (reference §8): its files, and whether it answers /health inside the workspace.
struct GatewayView
{
    enum class Health {
        NotAsked, // no probe asked for, or the backend cannot run commands
        Up, // /health answered ok
        Down, // nothing listens (connection refused)
        Error, // it answered something else, or the probe failed
        NoTool, // none of curl, wget, python3, bash, busybox in the workspace
    };
    QString home; // the gateway home
    bool scriptPresent = false; // _mcp_gateway_app.py, written last by AgentScope's bootstrap
    bool scriptEmpty = false; // an empty script is never valid
    bool paddockMarker = false; // Paddock's .bootstrap-complete
    bool venvPresent = false;
    std::optional<FileEntry> log; // gateway.log
    bool bootstrapComplete() const { return (scriptPresent && !scriptEmpty) || paddockMarker; }
    Health health = Health::NotAsked;
    int port = 5600; // from the gateway's command line when it runs, else the default
    bool portFromCommandLine = false;
    QString probeTool; // what asked (curl, wget, python3, ...)
    QString healthDetail; // what it answered or why it failed (masked)
    std::optional<Error> filesError;
    QJsonObject toJson() const;
};
// With probe, one exec asks /health from inside the workspace (without curl where there is none).
QCoro::Task<Result<GatewayView>> readGateway(WorkspaceRef ref, bool probe);
// The last `bytes` of gateway.log, decoded and masked (maskText), whole lines only.
QCoro::Task<Result<QString>> readGatewayLogTail(WorkspaceRef ref, qint64 bytes);

} // namespace Paddock::Inspect
