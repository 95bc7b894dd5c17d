#pragma once

#include "../../workspacefiles.h"
#include "envdclient.h"

#include <QCoroTask>

#include <QJsonObject>

#include <memory>

namespace Paddock::E2B {

// The Backend file calls of one sandbox through envd (reference §4.2, §4.5): listings and stats
// from the filesystem RPCs (`ListDir`, `Stat`), reads and downloads streamed from `GET /files`
// (a read of a range stops the transfer once it has its bytes), uploads as `POST /files`.
//
// Confinement: every path is made safe by confineWorkspacePath() first. envd's Stat reports a
// symlink as itself with its target, and follows none on the way, so the path is walked from its
// workspace root down, one Stat per part: a symlink on the way (or at the end, where it is to be
// followed) is replaced by its target (an absolute target is a sandbox path, a relative one is
// taken from the link's folder), which must stay inside the workdir or the gateway home, else the
// call is refused (InvalidArgument) before anything is read or written. At most 40 links are
// followed. envd cannot check a path and use it in one request: something swapped between the
// last Stat and the use is not seen (the README says so).
class E2BFiles
{
public:
    E2BFiles(std::shared_ptr<EnvdClient> envd, WorkspaceLayout layout);

    QCoro::Task<Result<QList<FileEntry>>> listFolder(QString path);
    QCoro::Task<Result<FileEntry>> stat(QString path);
    QCoro::Task<Result<FileChunk>> readFile(QString path, qint64 offset, qint64 length);
    QCoro::Task<Result<>> download(QString path, QString localPath);
    QCoro::Task<Result<>> upload(QString localPath, QString path);

    // The largest file upload() sends: envd takes it in one request, built in memory.
    static constexpr qint64 MaxUpload = 256 * 1024 * 1024;

    // envd's EntryInfo as a FileEntry (exposed for tests).
    static FileEntry entryFrom(const QJsonObject &info);

private:
    struct Resolved
    {
        QString path; // clean, absolute, inside the workspace, no symlink on the way
        QJsonObject entry; // of `path` (the link itself when the last part was not followed)
    };
    // `path` confined and resolved; followLast: a symlink at its end is followed too.
    QCoro::Task<Result<Resolved>> resolve(QString path, bool followLast);

    std::shared_ptr<EnvdClient> m_envd;
    WorkspaceLayout m_layout;
};

} // namespace Paddock::E2B
