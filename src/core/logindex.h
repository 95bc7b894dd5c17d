#pragma once

#include "result.h"

#include <QByteArray>
#include <QString>

#include <memory>
#include <vector>

class QFile;

namespace Paddock {

// A log file's lines, found by their byte offsets: a million lines cost 8 MB of offsets, not the
// text, and a line is read from the file when it is needed. The file stays open, so a log that
// is deleted while it is shown can still be read to its end.
//
// scan() reads what was appended since the last scan (the first reads everything), at most
// `budget` bytes at a time, so that callers can spread a 100 MB file over many short steps or run
// it on a worker thread (one LogIndex is used from one thread at a time). A last line without a
// newline counts as a line; when the file grows, it grows with it. A file that shrinks (truncated
// or replaced) is indexed again from the start.
class LogIndex
{
public:
    explicit LogIndex(QString path);
    ~LogIndex();
    Q_DISABLE_COPY_MOVE(LogIndex)

    const QString &path() const { return m_path; }
    Result<> open();
    bool isOpen() const;

    struct Scan
    {
        qsizetype newLines = 0; // lines added (a grown last line is not new)
        bool restarted = false; // the file shrank: everything was indexed again
        bool more = false; // the budget ran out before the end of the file
    };
    Result<Scan> scan(qint64 budget = 8 * 1024 * 1024);

    qsizetype lineCount() const { return qsizetype(m_starts.size()) - (m_partial ? 0 : 1); }
    qint64 indexedBytes() const { return m_indexed; }

    // The bytes of line `index` without its newline, at most `maxBytes` of them (`cut` says
    // whether there were more). Empty for an index out of range.
    QByteArray line(qsizetype index, qsizetype maxBytes = 64 * 1024, bool *cut = nullptr) const;
    // The line's length in bytes, without its newline.
    qint64 lineLength(qsizetype index) const;

    // The path no longer names the file being read (deleted, or replaced by another).
    bool isDeleted() const;

private:
    QString m_path;
    std::unique_ptr<QFile> m_file;
    // m_starts[i] is where line i starts; the last entry is where the next line will start.
    std::vector<qint64> m_starts{0};
    qint64 m_indexed = 0; // bytes scanned
    bool m_partial = false; // the last line has no newline yet
    quint64 m_inode = 0;
};

} // namespace Paddock
