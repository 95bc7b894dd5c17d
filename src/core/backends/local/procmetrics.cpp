#include "procmetrics.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <unistd.h>

namespace Paddock::Local {

namespace {

QByteArray readSmall(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.read(4096);
}

// /proc/<pid>/stat: "pid (comm) state ppid ...": fields after the last ')' start at field 3
// (state); utime is field 14, stime 15, starttime 22.
bool readStat(const QByteArray &stat, quint64 &ticks, quint64 &started)
{
    const qsizetype close = stat.lastIndexOf(')');
    if (close < 0)
        return false;
    const QList<QByteArray> fields = stat.mid(close + 2).split(' ');
    // fields[0] is field 3.
    if (fields.size() < 20)
        return false;
    bool utimeOk = false;
    bool stimeOk = false;
    bool startOk = false;
    const quint64 utime = fields.at(14 - 3).toULongLong(&utimeOk);
    const quint64 stime = fields.at(15 - 3).toULongLong(&stimeOk);
    started = fields.at(22 - 3).toULongLong(&startOk);
    ticks = utime + stime;
    return utimeOk && stimeOk && startOk;
}

} // namespace

long clockTicks()
{
    static const long ticks = [] {
        const long value = ::sysconf(_SC_CLK_TCK);
        return value > 0 ? value : 100;
    }();
    return ticks;
}

ProcScan scanProcesses(const QHash<QString, QString> &folders, const QString &procRoot)
{
    ProcScan scan;
    scan.at = QDateTime::currentDateTimeUtc();
    const QByteArray uptime = readSmall(procRoot + QStringLiteral("/uptime"));
    scan.uptimeTicks = quint64(uptime.left(uptime.indexOf(' ')).toDouble() * double(clockTicks()));
    QHash<QString, QString> byFolder; // cleaned folder path -> id
    for (auto it = folders.begin(); it != folders.end(); ++it) {
        scan.folders.insert(it.key(), {});
        byFolder.insert(QDir::cleanPath(it.value()), it.key());
    }
    if (byFolder.isEmpty())
        return scan;
    static const long pageSize = [] {
        const long value = ::sysconf(_SC_PAGESIZE);
        return value > 0 ? value : 4096;
    }();
    const QStringList entries = QDir(procRoot).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &entry : entries) {
        bool isPid = false;
        const quint64 pid = entry.toULongLong(&isPid);
        if (!isPid)
            continue;
        const QString base = procRoot + u'/' + entry;
        QString cwd = QFileInfo(base + QStringLiteral("/cwd")).symLinkTarget();
        if (cwd.isEmpty())
            continue; // not ours to read, or gone
        // The folder it works in, or the nearest of its parents that is one of ours.
        QString id;
        while (!cwd.isEmpty()) {
            const auto found = byFolder.constFind(cwd);
            if (found != byFolder.constEnd()) {
                id = found.value();
                break;
            }
            const qsizetype slash = cwd.lastIndexOf(u'/');
            if (slash <= 0)
                break;
            cwd.truncate(slash);
        }
        if (id.isEmpty())
            continue;
        quint64 ticks = 0;
        quint64 started = 0;
        if (!readStat(readSmall(base + QStringLiteral("/stat")), ticks, started))
            continue;
        const QList<QByteArray> statm = readSmall(base + QStringLiteral("/statm")).split(' ');
        ProcScan::Folder &folder = scan.folders[id];
        const quint64 key = (pid << 40) ^ started;
        folder.ticks.insert(key, ticks);
        folder.started.insert(key, started);
        if (statm.size() > 1)
            folder.residentBytes += statm.at(1).toLongLong() * pageSize;
    }
    return scan;
}

std::optional<double> cpuPercentBetween(const ProcScan::Folder &earlier, quint64 earlierUptime,
                                        const ProcScan::Folder &later, quint64 laterUptime)
{
    if (laterUptime <= earlierUptime)
        return std::nullopt;
    quint64 used = 0;
    for (auto it = later.ticks.begin(); it != later.ticks.end(); ++it) {
        const auto before = earlier.ticks.constFind(it.key());
        if (before != earlier.ticks.constEnd()) {
            if (it.value() >= before.value())
                used += it.value() - before.value();
        } else if (later.started.value(it.key()) >= earlierUptime) {
            used += it.value(); // started since: all of its time is in between
        }
    }
    return double(used) / double(laterUptime - earlierUptime) * 100.0;
}

} // namespace Paddock::Local
