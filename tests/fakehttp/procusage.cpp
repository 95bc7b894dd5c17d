#include "procusage.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSet>

#include <unistd.h>

namespace PaddockFake {

namespace {

QByteArray readSmall(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.read(4096) : QByteArray();
}

struct Stat
{
    qint64 ppid = 0;
    quint64 ticks = 0;
    quint64 started = 0;
};

bool readStat(const QByteArray &text, Stat &stat)
{
    const qsizetype close = text.lastIndexOf(')');
    if (close < 0)
        return false;
    const QList<QByteArray> fields = text.mid(close + 2).split(' ');
    if (fields.size() < 20)
        return false; // fields[0] is field 3 (state)
    stat.ppid = fields.at(4 - 3).toLongLong();
    stat.ticks = fields.at(14 - 3).toULongLong() + fields.at(15 - 3).toULongLong();
    stat.started = fields.at(22 - 3).toULongLong();
    return true;
}

long ticksPerSecond()
{
    const long value = ::sysconf(_SC_CLK_TCK);
    return value > 0 ? value : 100;
}

} // namespace

TreeUsage treeUsage(const QList<qint64> &roots)
{
    TreeUsage usage;
    if (roots.isEmpty())
        return usage;
    QHash<qint64, Stat> stats;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &entry : entries) {
        bool isPid = false;
        const qint64 pid = entry.toLongLong(&isPid);
        Stat stat;
        if (isPid && readStat(readSmall(QStringLiteral("/proc/") + entry + QStringLiteral("/stat")), stat))
            stats.insert(pid, stat);
    }
    const QByteArray uptime = readSmall(QStringLiteral("/proc/uptime"));
    const double nowTicks = uptime.left(uptime.indexOf(' ')).toDouble() * double(ticksPerSecond());
    const long pageSize = ::sysconf(_SC_PAGESIZE) > 0 ? ::sysconf(_SC_PAGESIZE) : 4096;
    // A sandbox's own PID namespace holds every process of it, also those an exec put there with
    // nsenter (whose parent is outside); a root in this server's namespace (unconfined) has its
    // descendants.
    const auto pidNamespace = [](qint64 pid) {
        return QFileInfo(QStringLiteral("/proc/%1/ns/pid").arg(pid)).symLinkTarget();
    };
    const QString own = QFileInfo(QStringLiteral("/proc/self/ns/pid")).symLinkTarget();
    // A root may be the namespace's PID 1 or the bubblewrap that made it (still in ours): the
    // namespaces of the roots and of their children.
    QSet<QString> namespaces;
    const auto addNamespace = [&](qint64 pid) {
        const QString ns = pidNamespace(pid);
        if (!ns.isEmpty() && ns != own)
            namespaces.insert(ns);
    };
    for (const qint64 root : roots)
        addNamespace(root);
    for (auto it = stats.cbegin(); it != stats.cend(); ++it) {
        if (roots.contains(it->ppid))
            addNamespace(it.key());
    }
    for (auto it = stats.cbegin(); it != stats.cend(); ++it) {
        bool ours = !namespaces.isEmpty() && namespaces.contains(pidNamespace(it.key()));
        // Up the parents until a root, or the top.
        qint64 pid = it.key();
        int depth = 0;
        while (!ours && !roots.contains(pid) && pid > 1 && depth++ < 64)
            pid = stats.value(pid).ppid;
        if (!ours && !roots.contains(pid))
            continue;
        ++usage.processes;
        usage.ticks += it->ticks;
        usage.perProcess.insert((quint64(it.key()) << 40) ^ it->started, it->ticks);
        const double age = nowTicks - double(it->started);
        if (age > 0)
            usage.averageCores += double(it->ticks) / age;
        const QList<QByteArray> statm =
            readSmall(QStringLiteral("/proc/") + QString::number(it.key()) + QStringLiteral("/statm")).split(' ');
        if (statm.size() > 1)
            usage.residentBytes += statm.at(1).toLongLong() * pageSize;
    }
    return usage;
}

double coresBetween(const TreeUsage &earlier, const TreeUsage &later, double seconds)
{
    if (seconds <= 0)
        return 0;
    quint64 used = 0;
    for (auto it = later.perProcess.cbegin(); it != later.perProcess.cend(); ++it) {
        const auto before = earlier.perProcess.constFind(it.key());
        if (before == earlier.perProcess.cend())
            used += it.value();
        else if (it.value() >= before.value())
            used += it.value() - before.value();
    }
    return double(used) / double(ticksPerSecond()) / seconds;
}

std::pair<double, qint64> CpuMeter::measure(const QString &key, const QList<qint64> &roots)
{
    const TreeUsage now = treeUsage(roots);
    const qint64 nowMs = QDateTime::currentMSecsSinceEpoch();
    double cores = now.averageCores;
    const auto last = m_last.constFind(key);
    // Measured since the last look when it is recent and long enough ago to hold some ticks.
    if (last != m_last.cend() && nowMs - last->atMs >= 200 && nowMs - last->atMs < 60000)
        cores = coresBetween(last->usage, now, double(nowMs - last->atMs) / 1000.0);
    if (last == m_last.cend() || nowMs - last->atMs >= 200)
        m_last.insert(key, Last{now, nowMs});
    return {cores, now.residentBytes};
}

} // namespace PaddockFake
