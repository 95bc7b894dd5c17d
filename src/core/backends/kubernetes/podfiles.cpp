#include "podfiles.h"

#include "../../tr.h"
#include "kubeobjects.h"

#include <QFile>
#include <QFileInfo>
#include <QUuid>

#include <algorithm>
#include <memory>

namespace Paddock::Kubernetes {

namespace {

// Exit statuses the scripts below give for what a caller is told in its own words.
constexpr int Missing = 2;
constexpr int WrongKind = 3; // not a folder (list), not a file (read), a folder (upload)
constexpr int NotAFile = 4; // upload: something there that is neither file nor folder
constexpr int NoFolder = 5; // upload: the folder it goes into is not there

// One entry as four NUL-terminated fields: kind (l, d, f, o), "size mtime", name, link target.
const QString EntryFunction =
    QStringLiteral("entry() {\n"
                   "  if [ -L \"$1\" ]; then k=l; t=$(readlink -- \"$1\"); elif [ -d \"$1\" ]; then k=d; t=;\n"
                   "  elif [ -f \"$1\" ]; then k=f; t=; elif [ -e \"$1\" ]; then k=o; t=; else return 2; fi\n"
                   "  i=$(stat -c '%s %Y' -- \"$1\") || return 1\n"
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
    return QString::fromUtf8(result.stdErr).trimmed();
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
    return unreadable(path, result);
}

} // namespace

PodFiles::PodFiles(Run run, WorkspaceLayout layout)
    : m_run(std::move(run))
    , m_layout(std::move(layout))
{
}

QCoro::Task<Result<ExecResult>> PodFiles::shell(QString script, QStringList arguments,
                                                std::function<void(const QByteArray &)> onStdout,
                                                StdinSource stdinSource)
{
    PodExecCommand command;
    command.argv = QStringList{QStringLiteral("sh"), QStringLiteral("-c"), script, QStringLiteral("sh")} + arguments;
    command.container = ContainerName;
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
        co_return fail(Error::timeout(Tr::tr("the command in the Pod did not end in time")));
    ExecResult result = std::move(*ran);
    result.stdOut = std::move(*whole);
    co_return result;
}

QCoro::Task<Result<ExecResult>> PodFiles::runScript(QString script, QStringList arguments)
{
    // Named, never temporaries in a co_await (GCC 12, README.md).
    std::function<void(const QByteArray &)> keep; // the output kept whole
    StdinSource noInput;
    co_return co_await shell(std::move(script), std::move(arguments), std::move(keep), std::move(noInput));
}

QCoro::Task<Result<QString>> PodFiles::resolve(QString path, bool followLast)
{
    const auto confined = confineWorkspacePath(m_layout, path);
    if (!confined)
        co_return fail(confined.error());
    const QString clean = *confined;
    const QString target = followLast ? clean : parentOf(clean);
    const QString script = QStringLiteral("readlink -f -- \"$1\"");
    QStringList arguments{target};
    auto ran = co_await runScript(script, std::move(arguments));
    if (!ran)
        co_return fail(ran.error());
    const QString real = QString::fromUtf8(ran->stdOut).section(u'\n', 0, 0);
    if (ran->exitCode != 0 || real.isEmpty())
        co_return fail(doesNotExist(path));
    const QString final = followLast ? real : (real == QLatin1String("/") ? QString() : real) + u'/' + lastPart(clean);
    if (!isInsideWorkspace(m_layout, final))
        co_return fail(symlinkEscapes(path, final));
    co_return final;
}

QCoro::Task<Result<QList<FileEntry>>> PodFiles::listFolder(QString path)
{
    auto folder = co_await resolve(path, true);
    if (!folder)
        co_return fail(folder.error());
    const QString script = EntryFunction
        + QStringLiteral("[ -e \"$1\" ] || exit 2; [ -d \"$1\" ] || exit 3; cd -- \"$1\" || exit 1\n"
                         "for n in * .[!.]* ..?*; do\n"
                         "  if [ -e \"$n\" ] || [ -L \"$n\" ]; then entry \"./$n\" \"$n\" || exit $?; fi\n"
                         "done\n");
    QStringList arguments{*folder};
    auto ran = co_await runScript(script, std::move(arguments));
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

QCoro::Task<Result<FileEntry>> PodFiles::stat(QString path)
{
    auto resolved = co_await resolve(path, false);
    if (!resolved)
        co_return fail(resolved.error());
    const QString script = EntryFunction + QStringLiteral("entry \"$1\" \"$2\" || exit $?\n");
    QStringList arguments{*resolved, lastPart(*resolved)};
    auto ran = co_await runScript(script, std::move(arguments));
    if (!ran)
        co_return fail(ran.error());
    if (ran->exitCode != 0)
        co_return fail(statusError(*ran, path, QString()));
    QList<FileEntry> entries;
    if (!parseEntries(ran->stdOut, &entries) || entries.size() != 1)
        co_return fail(unreadable(path, *ran));
    co_return entries.first();
}

QCoro::Task<Result<FileChunk>> PodFiles::readFile(QString path, qint64 offset, qint64 length)
{
    if (offset < 0 || length < 0)
        co_return fail(Error::invalidArgument(Tr::tr("a read needs an offset and a length of 0 or more")));
    auto file = co_await resolve(path, true);
    if (!file)
        co_return fail(file.error());
    const qint64 wanted = std::min(length, MaxFileChunk);
    // The size on its own line, then the bytes (tail seeks in a regular file).
    const QString script =
        QStringLiteral("[ -e \"$1\" ] || exit 2; [ -f \"$1\" ] || exit 3; s=$(stat -c %s -- \"$1\") || exit 1\n"
                       "printf '%s\\n' \"$s\"; [ \"$3\" -gt 0 ] || exit 0\n"
                       "tail -c +\"$2\" -- \"$1\" | head -c \"$3\"\n");
    QStringList arguments{*file, QString::number(offset + 1), QString::number(wanted)};
    auto ran = co_await runScript(script, std::move(arguments));
    if (!ran)
        co_return fail(ran.error());
    if (ran->exitCode != 0)
        co_return fail(statusError(*ran, path, Tr::tr("%1 is not a file").arg(path)));
    const qsizetype newline = ran->stdOut.indexOf('\n');
    bool ok = false;
    const qint64 size = newline < 0 ? 0 : ran->stdOut.left(newline).toLongLong(&ok);
    if (!ok)
        co_return fail(unreadable(path, *ran));
    FileChunk chunk;
    chunk.offset = offset;
    chunk.totalSize = size;
    chunk.data = ran->stdOut.mid(newline + 1, wanted);
    co_return chunk;
}

QCoro::Task<Result<>> PodFiles::download(QString path, QString localPath)
{
    auto file = co_await resolve(path, true);
    if (!file)
        co_return fail(file.error());
    // Written under a temporary name and renamed at the end: a failure leaves nothing there.
    LocalFileWriter out(localPath);
    if (auto opened = out.open(); !opened)
        co_return opened;
    std::function<void(const QByteArray &)> sink = [&out](const QByteArray &data) { out.write(data); };
    const QString script = QStringLiteral("[ -e \"$1\" ] || exit 2; [ -f \"$1\" ] || exit 3; exec cat -- \"$1\"");
    QStringList arguments{*file};
    StdinSource noInput;
    auto ran = co_await shell(script, std::move(arguments), std::move(sink), std::move(noInput));
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

QCoro::Task<Result<>> PodFiles::upload(QString localPath, QString path)
{
    const auto confined = confineWorkspacePath(m_layout, path);
    if (!confined)
        co_return fail(confined.error());
    if (*confined == m_layout.workdir || *confined == m_layout.gatewayHome)
        co_return fail(Error::invalidArgument(Tr::tr("%1 is a folder").arg(path)));
    auto folder = co_await resolve(*confined, false); // the folder's links resolved, not the last part
    if (!folder)
        co_return fail(folder.error().kind == Error::Kind::NotFound
                           ? Error::notFound(Tr::tr("the folder of %1 does not exist in the workspace").arg(path))
                           : folder.error());
    QString target = *folder;
    // A symlink there is written through, so where it leads must be inside as well.
    auto there = co_await stat(target);
    if (there && there->kind == FileEntry::Kind::Symlink) {
        auto followed = co_await resolve(target, true);
        if (!followed)
            co_return fail(followed.error());
        target = *followed;
    } else if (!there && there.error().kind != Error::Kind::NotFound) {
        co_return fail(there.error());
    }

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
    // Into a temporary file beside the target (its mode kept when it replaces one), renamed over
    // it only when all of stdin arrived.
    const QString temporary =
        parentOf(target) + QStringLiteral("/.paddock-upload-") + QUuid::createUuid().toString(QUuid::Id128);
    const QString script =
        QStringLiteral("t=$1; tmp=$2; [ -d \"$(dirname -- \"$t\")\" ] || exit 5\n"
                       "[ -d \"$t\" ] && exit 3; if [ -e \"$t\" ] && [ ! -f \"$t\" ]; then exit 4; fi\n"
                       "m=; [ -f \"$t\" ] && m=$(stat -c %a -- \"$t\")\n"
                       "cat > \"$tmp\" || { rm -f -- \"$tmp\"; exit 1; }\n"
                       "[ -z \"$m\" ] || chmod \"$m\" \"$tmp\"\n"
                       "mv -f -- \"$tmp\" \"$t\" || { rm -f -- \"$tmp\"; exit 1; }\n");
    std::function<void(const QByteArray &)> noOutput = [](const QByteArray &) {};
    QStringList arguments{target, temporary};
    auto ran = co_await shell(script, std::move(arguments), std::move(noOutput), std::move(stdinSource));
    if (!ran)
        co_return fail(ran.error());
    switch (ran->exitCode) {
    case 0:
        co_return {};
    case WrongKind:
        co_return fail(Error::invalidArgument(Tr::tr("%1 is a folder").arg(path)));
    case NotAFile:
        co_return fail(Error::invalidArgument(Tr::tr("%1 exists and is not a file").arg(path)));
    case NoFolder:
        co_return fail(Error::notFound(Tr::tr("the folder of %1 does not exist in the workspace").arg(path)));
    default: {
        const QString why = stderrOf(*ran);
        co_return fail(Error::io(Tr::tr("cannot write %1: %2")
                                     .arg(path, why.isEmpty() ? Tr::tr("exit status %1").arg(ran->exitCode) : why)));
    }
    }
}

} // namespace Paddock::Kubernetes
