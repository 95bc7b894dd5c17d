#include "logindex.h"

#include "tr.h"

#include <QFile>

#include <sys/stat.h>

namespace Paddock {

LogIndex::LogIndex(QString path)
    : m_path(std::move(path))
{
}

LogIndex::~LogIndex() = default;

bool LogIndex::isOpen() const
{
    return m_file && m_file->isOpen();
}

Result<> LogIndex::open()
{
    auto file = std::make_unique<QFile>(m_path);
    if (!file->open(QIODevice::ReadOnly))
        return fail(Error::io(Tr::tr("cannot open the log %1: %2").arg(m_path, file->errorString())));
    struct stat info
    {
    };
    if (::fstat(file->handle(), &info) == 0)
        m_inode = quint64(info.st_ino);
    m_file = std::move(file);
    m_starts.reset();
    m_indexed = 0;
    m_partial = false;
    return {};
}

Result<LogIndex::Scan> LogIndex::scan(qint64 budget)
{
    if (!isOpen()) {
        if (auto opened = open(); !opened)
            return fail(opened.error());
    }
    Scan result;
    const qint64 size = m_file->size();
    if (size < m_indexed) {
        m_starts.reset();
        m_indexed = 0;
        m_partial = false;
        result.restarted = true;
    }
    if (!m_file->seek(m_indexed))
        return fail(Error::io(Tr::tr("cannot read the log %1: %2").arg(m_path, m_file->errorString())));
    const qsizetype before = lineCount();
    constexpr qint64 Chunk = 1024 * 1024;
    qint64 left = std::min(budget, size - m_indexed);
    QByteArray buffer;
    while (left > 0) {
        buffer.resize(qsizetype(std::min(Chunk, left)));
        const qint64 got = m_file->read(buffer.data(), buffer.size());
        if (got < 0)
            return fail(Error::io(Tr::tr("cannot read the log %1: %2").arg(m_path, m_file->errorString())));
        if (got == 0)
            break;
        const char *data = buffer.constData();
        for (const char *at = data; (at = static_cast<const char *>(memchr(at, '\n', size_t(data + got - at))));) {
            ++at;
            m_starts.push_back(m_indexed + (at - data));
        }
        m_indexed += got;
        left -= got;
    }
    m_partial = m_indexed > m_starts.back();
    result.newLines = lineCount() - before;
    result.fileSize = m_file->size();
    result.more = m_indexed < result.fileSize;
    return result;
}

qint64 LogIndex::lineLength(qsizetype index) const
{
    if (index < 0 || index >= lineCount())
        return 0;
    const qint64 start = m_starts.at(size_t(index));
    const bool last = size_t(index) + 1 >= m_starts.size();
    const qint64 end = last ? m_indexed : m_starts.at(size_t(index) + 1) - 1; // without the newline
    return std::max<qint64>(0, end - start);
}

QByteArray LogIndex::line(qsizetype index, qsizetype maxBytes, bool *cut) const
{
    if (cut)
        *cut = false;
    if (!isOpen() || index < 0 || index >= lineCount())
        return {};
    const qint64 length = lineLength(index);
    const qint64 wanted = std::min<qint64>(length, maxBytes);
    if (cut)
        *cut = wanted < length;
    if (!m_file->seek(m_starts.at(size_t(index))))
        return {};
    return m_file->read(wanted);
}

qint64 LogIndex::lineStart(qsizetype index) const
{
    if (index < 0)
        return 0;
    if (size_t(index) >= m_starts.size())
        return m_indexed;
    return m_starts.at(size_t(index));
}

QString LogIndex::readablePath() const
{
    if (isOpen()) {
        const QString own = QStringLiteral("/proc/self/fd/%1").arg(m_file->handle());
        if (QFile::exists(own))
            return own;
    }
    return m_path;
}

bool LogIndex::isDeleted() const
{
    struct stat info
    {
    };
    if (::stat(QFile::encodeName(m_path).constData(), &info) != 0)
        return true;
    return m_inode != 0 && quint64(info.st_ino) != m_inode;
}

} // namespace Paddock
