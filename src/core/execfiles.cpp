#include "execfiles.h"

#include "tr.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QUuid>

#include <algorithm>
#include <memory>
#include <optional>

namespace Paddock {

namespace {

// Exit statuses the scripts below give for what a caller is told in its own words.
constexpr int Missing = 2;
constexpr int WrongKind = 3; // not a folder (list), not a file (read), a folder (upload)
constexpr int NotAFile = 4; // upload: something there that is neither file nor folder
constexpr int NoFolder = 5; // upload: the folder it goes into is not there
constexpr int Escapes = 6; // the path leads out; stderr ends in NUL, where it leads, NUL
constexpr int CutShort = 7; // upload: not as many bytes arrived as were sent

// What every script starts with. Its first two arguments are the workdir and the gateway home
// (clean); the call's own arguments follow.
// - real P: c := where P leads (readlink -f), exactly: readlink's newline and a sentinel after it
//   keep the command substitution from eating newlines at the end of a name.
// - here: h := the folder the shell is in, physically, as exactly.
// - inside P: P is a root or under one, a root as given or as the workspace resolves it (an image may
//   have the workdir behind a symlink); "/" is never one.
// - out P: exit Escapes, naming where the path led.
// - enter F [N]: into folder F as it resolves (status 2: not there, 3: not a folder), F/N (or F)
//   inside, and checked again from where the shell then is: the shell holds that folder, so
//   what anyone swaps on the path later moves nothing. f := F/N as resolved.
// - openfile P: fd 3 is P opened for reading, a file inside; what /proc says was opened is
//   checked too (a swap between the check and the open). o: a name for what was opened.
const QString Prelude = QStringLiteral(
    "W=$1 G=$2; shift 2\n"
    "real() { c=$(readlink -f -- \"$1\" && echo .) || return 1; c=${c%?.}; [ -n \"$c\" ]; }\n"
    "here() { h=$(pwd -P && echo .) || return 1; h=${h%?.}; }\n"
    "WC=; GC=; real \"$W\" && WC=$c; real \"$G\" && GC=$c\n"
    "under() {\n"
    "  [ -n \"$2\" ] && [ \"$2\" != / ] || return 1\n"
    "  case $1 in \"$2\"|\"$2\"/*) return 0;; esac; return 1\n"
    "}\n"
    "inside() { under \"$1\" \"$W\" || under \"$1\" \"$G\" || under \"$1\" \"$WC\" || under \"$1\" \"$GC\"; }\n"
    "out() { printf '\\0%s\\0' \"$1\" >&2; exit 6; }\n"
    "enter() {\n"
    "  real \"$1\" || return 2; f=${c%/}/$2; [ -n \"$2\" ] || f=$c; inside \"$f\" || out \"$f\"\n"
    "  [ -e \"$c\" ] || return 2; [ -d \"$c\" ] || return 3; cd -P -- \"$c\" || return 1\n"
    "  here || return 1; f=${h%/}/$2; [ -n \"$2\" ] || f=$h; inside \"$f\" || out \"$f\"\n"
    "}\n"
    "openfile() {\n"
    "  real \"$1\" || exit 2; inside \"$c\" || out \"$c\"; [ -e \"$c\" ] || exit 2; [ -f \"$c\" ] || exit 3\n"
    "  command exec 3<\"$c\" || exit 1\n"
    "  o=/proc/$$/fd/3\n"
    "  if p=$(readlink -- \"$o\" && echo .); then p=${p%?.}; inside \"$p\" || out \"$p\"; else o=$c; fi\n"
    "  [ -f \"$o\" ] || exit 3\n"
    "}\n");

// One entry as four NUL-terminated fields: kind (l, d, f, o), "size mtime", name, link target.
// Status 2: it is not there (any more).
const QString EntryFunction =
    QStringLiteral("entry() {\n"
                   "  if [ -L \"$1\" ]; then k=l; elif [ -d \"$1\" ]; then k=d; elif [ -f \"$1\" ]; then k=f\n"
                   "  elif [ -e \"$1\" ]; then k=o; else return 2; fi\n"
                   "  i=$(stat -c '%s %Y' -- \"$1\") || { [ -e \"$1\" ] || [ -L \"$1\" ] || return 2; return 1; }\n"
                   "  t=; if [ $k = l ]; then\n"
                   "    t=$(readlink -- \"$1\" && echo .) || { [ -L \"$1\" ] || return 2; return 1; }; t=${t%?.}\n"
                   "  fi\n"
                   "  printf '%s\\0%s\\0%s\\0%s\\0' \"$k\" \"$i\" \"$2\" \"$t\"\n"
                   "}\n");

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

Error doesNotExist(const QString &path)
{
    return Error::notFound(Tr::tr("%1 does not exist in the workspace").arg(path));
}

QString stderrOf(const ExecResult &result)
{
    QByteArray text = result.stdErr;
    text.replace('\0', ' ');
    return QString::fromUtf8(text).trimmed();
}

// Where an Escapes status says the path led: the end of stderr is NUL, that path, NUL (a path
// holds no NUL, so this is exact whatever came before it).
std::optional<QString> escapedTo(const ExecResult &result)
{
    const QByteArray &text = result.stdErr;
    if (result.exitCode != Escapes || text.size() < 2 || !text.endsWith('\0'))
        return std::nullopt;
    const qsizetype start = text.lastIndexOf('\0', text.size() - 2);
    if (start < 0)
        return std::nullopt;
    return QString::fromUtf8(text.mid(start + 1, text.size() - start - 2));
}

// Entries from the entry() fields; false: not the shape entry() writes.
bool parseEntries(const QByteArray &output, QList<FileEntry> *entries)
{
    const QList<QByteArray> fields = output.split('\0');
    // Each entry ends in a NUL: an empty last piece after the last one.
    if (fields.isEmpty() || !fields.last().isEmpty() || (fields.size() - 1) % 4 != 0)
        return false;
    for (qsizetype i = 0; i + 3 < fields.size(); i += 4) {
        FileEntry entry;
        const QByteArray &kind = fields[i];
        entry.kind = kind == "l" ? FileEntry::Kind::Symlink
            : kind == "d"        ? FileEntry::Kind::Folder
            : kind == "f"        ? FileEntry::Kind::File
                                 : FileEntry::Kind::Other;
        const QList<QByteArray> sizeAndTime = fields[i + 1].split(' ');
        if (sizeAndTime.size() != 2)
            return false;
        bool sizeOk = false;
        bool timeOk = false;
        const qint64 size = sizeAndTime[0].toLongLong(&sizeOk);
        const qint64 seconds = sizeAndTime[1].toLongLong(&timeOk);
        if (!sizeOk || !timeOk)
            return false;
        entry.size = entry.kind == FileEntry::Kind::Folder ? 0 : size;
        entry.modified = QDateTime::fromSecsSinceEpoch(seconds, Qt::UTC);
        entry.name = QString::fromUtf8(fields[i + 2]);
        entry.linkTarget = QString::fromUtf8(fields[i + 3]);
        entries->append(entry);
    }
    return true;
}

Error unreadable(const QString &path, const ExecResult &result)
{
    const QString why = stderrOf(result);
    return Error::io(
        Tr::tr("cannot read %1: %2").arg(path, why.isEmpty() ? Tr::tr("exit status %1").arg(result.exitCode) : why));
}

// What a script's exit status other than 0 means for `path`; `wrongKind` says WrongKind.
Error statusError(const ExecResult &result, const QString &path, const QString &wrongKind)
{
    if (result.exitCode == Missing)
        return doesNotExist(path);
    if (result.exitCode == WrongKind && !wrongKind.isEmpty())
        return Error::invalidArgument(wrongKind);
    if (const auto target = escapedTo(result))
        return symlinkEscapes(path, *target);
    return unreadable(path, result);
}

// The scripts after the Prelude; their arguments follow the roots.

// $1 folder.
const QString ListScript =
    EntryFunction
    + QStringLiteral(
        "enter \"$1\" || exit $?\n"
        "for n in * .[!.]* ..?*; do\n"
        "  if [ -e \"$n\" ] || [ -L \"$n\" ]; then\n"
        "    entry \"./$n\" \"$n\"; s=$?; [ $s -eq 0 ] || [ $s -eq 2 ] || exit $s\n" // gone meanwhile: left out
        "  fi\n"
        "done\n");

// $1 folder, $2 name in it (empty: the folder itself), $3 the name to report.
const QString StatScript = EntryFunction
    + QStringLiteral("enter \"$1\" \"$2\"; s=$?; [ $s -eq 0 ] || { [ $s -eq 3 ] && exit 2; exit $s; }\n"
                     "entry \"./${2:-.}\" \"$3\" || exit $?\n");

// $1 file, $2 first byte (from 1), $3 bytes wanted: the size on its own line, then the bytes
// (tail seeks in a regular file).
const QString ReadScript = QStringLiteral("openfile \"$1\"; s=$(stat -L -c %s -- \"$o\") || exit 1\n"
                                          "printf '%s\\n' \"$s\"; [ \"$3\" -gt 0 ] || exit 0\n"
                                          "tail -c +\"$2\" <&3 | head -c \"$3\"\n");

// $1 file.
const QString DownloadScript = QStringLiteral("openfile \"$1\"; exec cat <&3\n");

// $1 folder, $2 name, $3 temporary name, $4 bytes sent. A symlink at the name is written
// through, so where it leads must be inside too. Written into the temporary file beside the
// target (its mode kept when it replaces one), renamed over it only when every byte sent is
// there: stdin also ends when the connection drops or the call times out. -T: a folder swapped in
// at the name is not moved into (a busybox without -T: a plain mv, after the check above).
const QString UploadScript =
    QStringLiteral("enter \"$1\" \"$2\"; s=$?; [ $s -eq 0 ] || { [ $s -eq 1 ] && exit 1; exit 5; }\n"
                   "n=$2\n"
                   "if [ -L \"./$n\" ]; then\n"
                   "  real \"./$n\" || exit 2; inside \"$c\" || out \"$c\"\n"
                   "  d=${c%/*}; n=${c##*/}; enter \"${d:-/}\" \"$n\" || exit 2\n"
                   "fi\n"
                   "[ -d \"./$n\" ] && exit 3; if [ -e \"./$n\" ] && [ ! -f \"./$n\" ]; then exit 4; fi\n"
                   "m=; [ -f \"./$n\" ] && m=$(stat -c %a -- \"./$n\")\n"
                   "t=./$3\n"
                   "cat >\"$t\" || { rm -f -- \"$t\"; exit 1; }\n"
                   "k=$(wc -c <\"$t\") || { rm -f -- \"$t\"; exit 1; }\n"
                   "[ \"$k\" -eq \"$4\" ] || { rm -f -- \"$t\"; exit 7; }\n"
                   "[ -z \"$m\" ] || chmod \"$m\" \"$t\"\n"
                   "mv -fT -- \"$t\" \"./$n\" 2>/dev/null || { [ ! -d \"./$n\" ] && mv -f -- \"$t\" \"./$n\"; } || { "
                   "rm -f -- \"$t\"; exit 1; }\n");

} // namespace

ExecFiles::ExecFiles(Run run, WorkspaceLayout layout)
    : m_run(std::move(run))
    , m_layout(std::move(layout))
{
    m_layout.workdir = QDir::cleanPath(m_layout.workdir);
    m_layout.gatewayHome = QDir::cleanPath(m_layout.gatewayHome);
}

QCoro::Task<Result<ExecResult>> ExecFiles::shell(QString script, QStringList arguments,
                                                 std::function<void(const QByteArray &)> onStdout,
                                                 StdinSource stdinSource)
{
    ScriptCommand command;
    command.argv = QStringList{QStringLiteral("sh"), QStringLiteral("-c"), Prelude + script,
                               QStringLiteral("sh"), m_layout.workdir,     m_layout.gatewayHome}
        + arguments;
    command.timeout = std::chrono::minutes(10);
    auto whole = std::make_shared<QByteArray>();
    command.onChunk = [whole, onStdout](OutputChannel channel, const QByteArray &data) {
        if (channel != OutputChannel::Stdout)
            return;
        if (onStdout)
            onStdout(data);
        else
            whole->append(data);
    };
    if (stdinSource) {
        command.withStdin = true;
        command.stdinSource = std::move(stdinSource);
    }
    auto ran = co_await m_run(std::move(command));
    if (!ran)
        co_return fail(ran.error());
    if (ran->timedOut)
        co_return fail(Error::timeout(Tr::tr("the file command in the workspace did not end in time")));
    ExecResult result = std::move(*ran);
    result.stdOut = std::move(*whole);
    co_return result;
}

QCoro::Task<Result<ExecResult>> ExecFiles::runScript(QString script, QStringList arguments)
{
    // Named, never temporaries in a co_await (GCC 12, README.md).
    std::function<void(const QByteArray &)> keep; // the output kept whole
    StdinSource noInput;
    co_return co_await shell(std::move(script), std::move(arguments), std::move(keep), std::move(noInput));
}

QCoro::Task<Result<QList<FileEntry>>> ExecFiles::listFolder(QString path)
{
    const auto confined = confineWorkspacePath(m_layout, path);
    if (!confined)
        co_return fail(confined.error());
    QStringList arguments{*confined};
    auto ran = co_await runScript(ListScript, std::move(arguments));
    if (!ran)
        co_return fail(ran.error());
    if (ran->exitCode != 0)
        co_return fail(statusError(*ran, path, Tr::tr("%1 is not a folder").arg(path)));
    QList<FileEntry> entries;
    if (!parseEntries(ran->stdOut, &entries))
        co_return fail(unreadable(path, *ran));
    std::sort(entries.begin(), entries.end(), [](const FileEntry &a, const FileEntry &b) { return a.name < b.name; });
    co_return entries;
}

QCoro::Task<Result<FileEntry>> ExecFiles::stat(QString path)
{
    const auto confined = confineWorkspacePath(m_layout, path);
    if (!confined)
        co_return fail(confined.error());
    const QString clean = *confined;
    // A root itself is followed (the backend's to trust); anything else is reported as itself.
    const bool root = clean == m_layout.workdir || clean == m_layout.gatewayHome;
    QStringList arguments{root ? clean : parentOf(clean), root ? QString() : lastPart(clean), lastPart(clean)};
    auto ran = co_await runScript(StatScript, std::move(arguments));
    if (!ran)
        co_return fail(ran.error());
    if (ran->exitCode != 0)
        co_return fail(statusError(*ran, path, QString()));
    QList<FileEntry> entries;
    if (!parseEntries(ran->stdOut, &entries) || entries.size() != 1)
        co_return fail(unreadable(path, *ran));
    co_return entries.first();
}

QCoro::Task<Result<FileChunk>> ExecFiles::readFile(QString path, qint64 offset, qint64 length)
{
    if (offset < 0 || length < 0)
        co_return fail(Error::invalidArgument(Tr::tr("a read needs an offset and a length of 0 or more")));
    const auto confined = confineWorkspacePath(m_layout, path);
    if (!confined)
        co_return fail(confined.error());
    const qint64 wanted = std::min(length, MaxFileChunk);
    QStringList arguments{*confined, QString::number(offset + 1), QString::number(wanted)};
    auto ran = co_await runScript(ReadScript, std::move(arguments));
    if (!ran)
        co_return fail(ran.error());
    if (ran->exitCode != 0)
        co_return fail(statusError(*ran, path, Tr::tr("%1 is not a file").arg(path)));
    const qsizetype newline = ran->stdOut.indexOf('\n');
    bool ok = false;
    const qint64 size = newline < 0 ? 0 : ran->stdOut.left(newline).toLongLong(&ok);
    if (!ok)
        co_return fail(unreadable(path, *ran));
    // `tail | head` ends with head's status: a read that failed part way shows as fewer bytes
    // than the size says are there.
    const qint64 expected = std::min(wanted, std::max<qint64>(0, size - offset));
    const qsizetype got = ran->stdOut.size() - newline - 1;
    if (got < expected) {
        QString why = stderrOf(*ran);
        if (why.isEmpty()) // expected is at most MaxFileChunk
            why = Tr::tr("only %1 of %n byte(s) came back", nullptr, int(expected)).arg(got);
        co_return fail(Error::io(Tr::tr("cannot read %1: %2").arg(path, why)));
    }
    FileChunk chunk;
    chunk.offset = offset;
    chunk.totalSize = size;
    chunk.data = ran->stdOut.mid(newline + 1, expected);
    co_return chunk;
}

QCoro::Task<Result<>> ExecFiles::download(QString path, QString localPath)
{
    const auto confined = confineWorkspacePath(m_layout, path);
    if (!confined)
        co_return fail(confined.error());
    // Written under a temporary name and renamed at the end: a failure leaves nothing there.
    LocalFileWriter out(localPath);
    if (auto opened = out.open(); !opened)
        co_return opened;
    std::function<void(const QByteArray &)> sink = [&out](const QByteArray &data) { out.write(data); };
    QStringList arguments{*confined};
    StdinSource noInput;
    auto ran = co_await shell(DownloadScript, std::move(arguments), std::move(sink), std::move(noInput));
    if (!ran || ran->exitCode != 0 || out.failed()) {
        out.cancel();
        if (!ran)
            co_return fail(ran.error());
        if (out.failed())
            co_return fail(out.writeError());
        co_return fail(statusError(*ran, path, Tr::tr("%1 is not a file").arg(path)));
    }
    co_return out.finish();
}

QCoro::Task<Result<>> ExecFiles::upload(QString localPath, QString path)
{
    const auto confined = confineWorkspacePath(m_layout, path);
    if (!confined)
        co_return fail(confined.error());
    const QString clean = *confined;
    if (clean == m_layout.workdir || clean == m_layout.gatewayHome)
        co_return fail(Error::invalidArgument(Tr::tr("%1 is a folder").arg(path)));

    if (QFileInfo(localPath).isDir())
        co_return fail(Error::invalidArgument(Tr::tr("%1 is a folder").arg(localPath)));
    auto source = std::make_shared<QFile>(localPath);
    if (!source->open(QIODevice::ReadOnly))
        co_return fail(Error::io(Tr::tr("cannot read %1: %2").arg(localPath, source->errorString())));
    StdinSource stdinSource = [source, localPath]() -> Result<QByteArray> {
        const QByteArray piece = source->read(64 * 1024);
        if (piece.isEmpty() && source->error() != QFileDevice::NoError)
            return fail(Error::io(Tr::tr("cannot read %1: %2").arg(localPath, source->errorString())));
        return piece;
    };
    const QString temporary = QStringLiteral(".paddock-upload-") + QUuid::createUuid().toString(QUuid::Id128);
    // Only what `cat` saw end of stdin on is compared with this: a file that changed size while
    // it was sent is not written either.
    QStringList arguments{parentOf(clean), lastPart(clean), temporary, QString::number(source->size())};
    std::function<void(const QByteArray &)> noOutput = [](const QByteArray &) {};
    auto ran = co_await shell(UploadScript, std::move(arguments), std::move(noOutput), std::move(stdinSource));
    if (!ran)
        co_return fail(ran.error());
    switch (ran->exitCode) {
    case 0:
        co_return {};
    case Missing:
        co_return fail(doesNotExist(path));
    case WrongKind:
        co_return fail(Error::invalidArgument(Tr::tr("%1 is a folder").arg(path)));
    case NotAFile:
        co_return fail(Error::invalidArgument(Tr::tr("%1 exists and is not a file").arg(path)));
    case NoFolder:
        co_return fail(Error::notFound(Tr::tr("the folder of %1 does not exist in the workspace").arg(path)));
    case CutShort:
        co_return fail(
            Error::io(Tr::tr("%1 did not arrive whole in the workspace: %2 was left as it was").arg(localPath, path)));
    default:
        if (const auto target = escapedTo(*ran))
            co_return fail(symlinkEscapes(path, *target));
        const QString why = stderrOf(*ran);
        co_return fail(Error::io(Tr::tr("cannot write %1: %2")
                                     .arg(path, why.isEmpty() ? Tr::tr("exit status %1").arg(ran->exitCode) : why)));
    }
}

} // namespace Paddock
