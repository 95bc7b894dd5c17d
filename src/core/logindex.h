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
        qint64 fileSize = 0; // the file's size when the scan ended
    };
    Result<Scan> scan(qint64 budget = 8 * 1024 * 1024);

    qsizetype lineCount() const { return qsizetype(m_starts.size()) - (m_partial ? 0 : 1); }
    // Lines that end with a newline (the partial last line, if any, is not one of them).
    qsizetype completeLineCount() const { return qsizetype(m_starts.size()) - 1; }
    bool hasPartialLine() const { return m_partial; }
    // Where line `index` starts; lineStart(completeLineCount()) is where the complete lines end.
    qint64 lineStart(qsizetype index) const;
    qint64 indexedBytes() const { return m_indexed; }

    // The bytes of line `index` without its newline, at most `maxBytes` of them (`cut` says
    // whether there were more). Empty for an index out of range.
    QByteArray line(qsizetype index, qsizetype maxBytes = 64 * 1024, bool *cut = nullptr) const;
    // The line's length in bytes, without its newline.
    qint64 lineLength(qsizetype index) const;

    // The path no longer names the file being read (deleted, or replaced by another).
    bool isDeleted() const;
    // A path that opens the very file this index reads, even after it was deleted or replaced
    // (/proc/self/fd/N on Linux), with its own read position: for a worker thread that reads
    // the log alongside (search, export). The log's path where there is no such thing.
    QString readablePath() const;

private:
    // Offsets in blocks of a fixed size: growing never copies what is there (a copy of a
    // million offsets, into memory the kernel must fault in, stalls the thread for tens of
    // milliseconds).
    class Offsets
    {
    public:
        Offsets() { reset(); }
        void reset()
        {
            m_blocks.clear();
            m_size = 0;
            push_back(0);
        }
        void push_back(qint64 offset)
        {
            if ((m_size & Mask) == 0)
                m_blocks.push_back(std::make_unique<qint64[]>(BlockSize));
            m_blocks.back()[m_size & Mask] = offset;
            ++m_size;
        }
        qint64 at(size_t index) const { return m_blocks[index >> Shift][index & Mask]; }
        qint64 back() const { return at(m_size - 1); }
        size_t size() const { return m_size; }

    private:
        static constexpr size_t Shift = 16;
        static constexpr size_t BlockSize = size_t(1) << Shift;
        static constexpr size_t Mask = BlockSize - 1;
        std::vector<std::unique_ptr<qint64[]>> m_blocks;
        size_t m_size = 0;
    };

    QString m_path;
    std::unique_ptr<QFile> m_file;
    // m_starts[i] is where line i starts; the last entry is where the next line will start.
    Offsets m_starts;
    qint64 m_indexed = 0; // bytes scanned
    bool m_partial = false; // the last line has no newline yet
    quint64 m_inode = 0;
};

} // namespace Paddock
