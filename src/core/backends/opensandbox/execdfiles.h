#pragma once

#include "../../workspacefiles.h"
#include "execdclient.h"

#include <QCoroTask>

#include <memory>
#include <optional>

namespace Paddock::OpenSandbox {

// The Backend file calls of one sandbox, through execd's files API (reference §3.5): listings and
// stats from `/directories/list` and `/files/info`, reads as Range downloads, downloads streamed
// to a local file, uploads as execd's multipart upload.
//
// Confinement: every path is made safe by confineWorkspacePath() first. execd reports a symlink
// as one (it does not follow it) but not where it points, so a path with a symlink on its way is
// resolved inside the sandbox (`readlink -f`, one command, which resolves the workspace roots too:
// a workdir behind a symlink in the image works) and refused when that leads out of the
// workspace; a symlink's own target (a listing's, a stat's) is read the same way. A path without
// a symlink costs no command.
//
// execd cannot check a path and use it in one request, so the last request before each use
// checks the path it will use once more: every folder on it from the root down, none a symlink.
// Something swapped in between that request and the use is not seen (see the README).
class ExecdFiles
{
public:
    ExecdFiles(std::shared_ptr<ExecdClient> client, WorkspaceLayout layout);

    QCoro::Task<Result<QList<FileEntry>>> listFolder(QString path);
    QCoro::Task<Result<FileEntry>> stat(QString path);
    QCoro::Task<Result<FileChunk>> readFile(QString path, qint64 offset, qint64 length);
    QCoro::Task<Result<>> download(QString path, QString localPath);
    QCoro::Task<Result<>> upload(QString localPath, QString path);

    // The largest file upload() sends: execd takes it in one multipart request, which is built
    // in memory.
    static constexpr qint64 MaxUpload = 256 * 1024 * 1024;

private:
    struct Resolved
    {
        QString path; // clean, absolute, inside the workspace, no symlink below `root` on the way
        QString root; // the root it is under, as given or as the sandbox resolves it
        FileInfo info; // of `path` (the link itself when the last part was not followed)
    };
    // `path` confined and resolved; followLast: a symlink at its end is followed too. Its last
    // request checked every folder on the way (and the end, followLast): use it at once.
    QCoro::Task<Result<Resolved>> resolve(QString path, bool followLast);
    // One try; nullopt when the path changed under it (a symlink appeared on the way).
    QCoro::Task<Result<std::optional<Resolved>>> resolveOnce(QString clean, QString path, bool followLast);
    // Each folder from below `root` down to `path` in one request: nullopt when one of them is a
    // symlink (followLast: or `path` itself), else `path`'s info.
    QCoro::Task<Result<std::optional<FileInfo>>> confirm(QString root, QString path, bool followLast);
    // Each symlink's target as written (readlink), in the order given; nullopt: it is gone.
    // `shownPath` names them in an error.
    QCoro::Task<Result<QList<std::optional<QString>>>> readLinks(QStringList paths, QString shownPath);
    QCoro::Task<Result<ExecResult>> shell(QString script, QStringList arguments);

    std::shared_ptr<ExecdClient> m_client;
    WorkspaceLayout m_layout;
};

} // namespace Paddock::OpenSandbox
