#include "execgroup.h"

namespace Paddock {

namespace {

constexpr QByteArrayView Prefix{"paddock-exec-pid "};
constexpr qsizetype LongestAnnouncement = 40; // the prefix and any pid, with room to spare

} // namespace

QStringList announcingPid(const QStringList &argv)
{
    return QStringList{QStringLiteral("sh"), QStringLiteral("-c"),
                       QStringLiteral("printf 'paddock-exec-pid %s\\n' \"$$\" >&2; exec \"$@\""),
                       QStringLiteral("paddock-exec")}
    + argv;
}

QStringList killGroupCommand(qint64 pid)
{
    return QStringList{QStringLiteral("sh"), QStringLiteral("-c"),
                       QStringLiteral("kill -KILL \"-$1\" 2>/dev/null || kill -KILL \"$1\""),
                       QStringLiteral("paddock-kill"), QString::number(pid)};
}

QByteArray PidAnnouncement::feed(const QByteArray &bytes)
{
    if (m_settled)
        return bytes;
    m_head += bytes;
    const qsizetype newline = m_head.indexOf('\n');
    if (newline < 0) {
        // Still possibly the announcement: the prefix (or the start of it), then digits.
        const qsizetype common = std::min(m_head.size(), Prefix.size());
        bool digits = true;
        for (qsizetype i = Prefix.size(); i < m_head.size(); ++i)
            digits = digits && m_head.at(i) >= '0' && m_head.at(i) <= '9';
        if (QByteArrayView(m_head).first(common) == Prefix.first(common) && digits
            && m_head.size() < LongestAnnouncement)
            return {};
        m_settled = true;
        return std::exchange(m_head, {});
    }
    m_settled = true;
    const QByteArrayView line = QByteArrayView(m_head).first(newline);
    if (line.startsWith(Prefix)) {
        bool ok = false;
        const qint64 pid = line.sliced(Prefix.size()).toLongLong(&ok);
        if (ok && pid > 0) {
            m_pid = pid;
            const QByteArray rest = m_head.mid(newline + 1);
            m_head.clear();
            return rest;
        }
    }
    return std::exchange(m_head, {});
}

QByteArray PidAnnouncement::finish()
{
    m_settled = true;
    return std::exchange(m_head, {});
}

} // namespace Paddock
