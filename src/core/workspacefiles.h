#pragma once

#include "result.h"
#include "sandbox.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QMetaType>
#include <QString>

#include <functional>
#include <memory>

QT_BEGIN_NAMESPACE
class QFile;
class QSaveFile;
QT_END_NAMESPACE

namespace Paddock {

// One entry of a workspace folder, as the sandbox sees it (a symlink is reported as itself, not
// as what it points to).
struct FileEntry
{
    enum class Kind {
        File,
        Folder,
        Symlink,
        Other, // a device, a socket, a fifo
    };
    QString name; // the last part of its path
    Kind kind = Kind::Other;
    qint64 size = 0; // bytes; 0 for a folder
    QDateTime modified; // UTC
    QString linkTarget; // Symlink: what it points to, as written

    bool operator==(const FileEntry &) const = default;
};

// A bounded read: at most the asked number of bytes from `offset`, and how big the file is.
struct FileChunk
{
    QByteArray data;
    qint64 offset = 0;
    qint64 totalSize = 0;
};

// The largest read readFile() answers in one call; a longer one is cut to it.
inline constexpr qint64 MaxFileChunk = 16 * 1024 * 1024;

// The one place a workspace path is made safe. A path is relative to the workdir (empty or "."
// is the workdir itself), or absolute inside the workdir or the gateway home. The result is
// clean and absolute, as the sandbox sees it. `..` that climbs out, an absolute path elsewhere
// and a NUL are refused (InvalidArgument), naming the path.
Result<QString> confineWorkspacePath(const WorkspaceLayout &layout, const QString &path);
// Whether a clean absolute path is the workdir, the gateway home or inside one of them.
bool isInsideWorkspace(const WorkspaceLayout &layout, const QString &cleanAbsolutePath);
// The error for a symlink that leads out of the workspace.
Error symlinkEscapes(const QString &path, const QString &target);

// A file written at a local path whole or not at all (a download, an upload into a host folder):
// under a temporary name beside it (QSaveFile), renamed over the path by finish(). Dropped or
// cancelled before that, it leaves nothing there, and the file that was there as it was.
class LocalFileWriter
{
public:
    // `shownPath`: how messages name the path (empty: the path itself).
    explicit LocalFileWriter(const QString &path, const QString &shownPath = {});
    ~LocalFileWriter();
    Q_DISABLE_COPY_MOVE(LocalFileWriter)

    Result<> open();
    // false once a write has failed; writes after that are dropped.
    bool write(QByteArrayView data);
    bool failed() const { return m_failed; }
    // The failed write's error ("cannot write PATH: why").
    Error writeError() const;
    void cancel();
    // Flushed (Qt 6.4's commit() may report success when its own flush failed), then renamed.
    Result<> finish();

private:
    std::unique_ptr<QSaveFile> m_file;
    QString m_shown;
    bool m_failed = false;
    QString m_why;
};

// A workspace whose workdir is a folder on this computer (the local folder, Docker's bind mount):
// the file calls done on that folder, with the symlinks inside resolved as the sandbox sees them
// (an absolute target is a sandbox path) and refused where they lead out. Blocking: call these on
// a worker thread. Paths outside the workdir (a gateway home elsewhere) are Unsupported, unless
// that gateway home is a folder on this computer too (`hostGatewayHome`: the local backend in
// AgentScope's layout keeps it beside the workdir).
// What runs in the workspace may change it while a call runs (replace a checked folder with a
// symlink that leads out), so a call never opens a checked path by name again: it walks from a
// descriptor of the root one part at a time without following links, and reads, lists and writes
// through the descriptors it checked (README.md, "A workspace's files").
class HostFolderFiles
{
public:
    HostFolderFiles(WorkspaceLayout layout, QString hostWorkdir, QString hostGatewayHome = {});

    Result<QList<FileEntry>> listFolder(const QString &path) const;
    Result<FileEntry> stat(const QString &path) const;
    Result<FileChunk> readFile(const QString &path, qint64 offset, qint64 length) const;
    // Streams to `localPath` through a temporary file renamed at the end: a failure leaves
    // nothing there (and the file that was there as it was).
    Result<> download(const QString &path, const QString &localPath) const;
    // The same into the workspace: written under a temporary name beside it and renamed.
    Result<> upload(const QString &localPath, const QString &path) const;

    // The host path of a confined sandbox path, its symlinks resolved and checked (followLast:
    // the last part too). Exposed for tests; the calls themselves never reopen what it names.
    Result<QString> resolve(const QString &path, bool followLast) const;

private:
    // A path walked from the root's descriptor: what it led to, held open.
    struct Walk;
    Result<Walk> walk(const QString &path, bool followLast) const;
    QString toHost(const QString &sandboxPath) const;
    // The workdir or the gateway home (where it is on this computer) that holds a sandbox path;
    // empty when neither is here.
    QString rootOf(const QString &sandboxPath) const;
    // Opens the regular file at a sandbox path for reading (readFile and download): the file the
    // walk checked, opened again in the folder it holds; NotFound when its name leads elsewhere by
    // then.
    Result<> openFile(const QString &path, QFile &file) const;

    WorkspaceLayout m_layout;
    QString m_hostWorkdir;
    QString m_hostGatewayHome; // empty: the gateway home is not reached here (unless in the workdir)
};

namespace detail {
// Test seam: HostFolderFiles calls it with the sandbox path a walk led to, after the walk and
// before the call reads, lists or writes what it found (where something in the workspace could
// swap a checked folder for a symlink). Empty outside tests; not thread-safe to set.
extern std::function<void(const QString &resolvedPath)> hostFolderFilesWalked;
} // namespace detail

} // namespace Paddock

Q_DECLARE_METATYPE(Paddock::FileEntry)
