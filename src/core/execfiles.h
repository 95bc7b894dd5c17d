#pragma once

#include "sandbox.h"
#include "workspacefiles.h"

#include <QCoroTask>

#include <functional>

namespace Paddock {

// One command an ExecFiles call runs in the workspace: `sh -c` with its script and arguments, as
// given. Stdin is asked for only when withStdin: the bytes of stdinSource until it gives an empty
// piece, then stdin is closed. onChunk gets the output as it arrives, byte for byte.
struct ScriptCommand
{
    QStringList argv;
    std::chrono::milliseconds timeout{0};
    std::function<void(OutputChannel, const QByteArray &)> onChunk;
    bool withStdin = false;
    StdinSource stdinSource;
};

// The Backend file calls of a workspace reached only through commands run in it: a Pod (the API
// server has no file API, and kubectl cp is tar over exec too), a container's folders outside its
// bind mount (the Engine API cannot list a folder, and its archive route follows what a check has
// passed). Each call is ONE short POSIX sh script that GNU coreutils and
// busybox both run (`[ -L ]`, `stat -c`, `readlink -f`, `tail -c`, `head -c`, `cat`, `wc -c`,
// `mv`), with the paths as arguments, never inside the script. Output comes back byte for byte
// (the websocket's channels are binary): a listing as NUL-separated fields, a read as the size
// then the bytes, a download streamed to a QSaveFile, an upload streamed on stdin into a
// temporary file beside the target, renamed over it only when every byte sent arrived.
//
// Confinement: every path goes through confineWorkspacePath() first. The script then resolves it
// in the workspace (`readlink -f`), checks the result against the workspace roots (as given and as the
// workspace resolves them: a workdir behind a symlink in the image works) and acts on what it checked,
// in the same exec, so nothing can be swapped between a check and its use by another exec: it
// works from inside the resolved folder (`cd -P`, checked again with `pwd -P`), and reads through
// the descriptor it opened (what /proc says was opened is checked). A path that leads out of the
// workdir and the gateway home is refused before anything is read or written.
class ExecFiles
{
public:
    using Run = std::function<QCoro::Task<Result<ExecResult>>(ScriptCommand)>;
    ExecFiles(Run run, WorkspaceLayout layout);

    QCoro::Task<Result<QList<FileEntry>>> listFolder(QString path);
    QCoro::Task<Result<FileEntry>> stat(QString path);
    QCoro::Task<Result<FileChunk>> readFile(QString path, qint64 offset, qint64 length);
    QCoro::Task<Result<>> download(QString path, QString localPath);
    QCoro::Task<Result<>> upload(QString localPath, QString path);

private:
    // sh -c (the common functions, then `script`) with the workspace roots, then the arguments;
    // output kept whole (not only its first MiB) unless `onStdout` takes it.
    // (Every argument is passed named by the callers, never a temporary in a co_await: GCC 12.)
    QCoro::Task<Result<ExecResult>> shell(QString script, QStringList arguments,
                                          std::function<void(const QByteArray &)> onStdout, StdinSource stdinSource);

    // shell() with the output kept whole and no stdin.
    QCoro::Task<Result<ExecResult>> runScript(QString script, QStringList arguments);

    Run m_run;
    WorkspaceLayout m_layout;
};

} // namespace Paddock
