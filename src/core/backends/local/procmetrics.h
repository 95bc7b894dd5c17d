#pragma once

#include "../../metrics.h"

#include <QHash>
#include <QString>

namespace Paddock::Local {

// One look at the processes of this computer that work in given folders, from /proc: a
// process belongs to the folder its working directory (/proc/<pid>/cwd) is in or under, so
// commands Paddock ran there, what they left running in the background and an agent started in
// the folder all count, whoever started them; processes of other users that /proc does not let
// us read are not seen. Read on a worker thread (it reads /proc).
struct ProcScan
{
    struct Folder
    {
        // CPU time so far per process, in clock ticks, keyed by pid and start time (so a pid used
        // again is another process).
        QHash<quint64, quint64> ticks;
        // When each of them started, in clock ticks after boot.
        QHash<quint64, quint64> started;
        qint64 residentBytes = 0; // the sum of their resident set sizes (/proc/<pid>/statm)
    };
    QHash<QString, Folder> folders; // by sandbox id; every id asked for, with or without processes
    quint64 uptimeTicks = 0; // /proc/uptime when the scan began, in clock ticks
    QDateTime at; // UTC
};

// Scans /proc (or `procRoot`, for tests) for the processes working in `folders` (sandbox id ->
// absolute folder path).
ProcScan scanProcesses(const QHash<QString, QString> &folders, const QString &procRoot = QStringLiteral("/proc"));

// CPU as a percentage of one core between two scans of the same folder: the CPU time its
// processes used between them (a process that started after the earlier scan counts from its
// start; one that ended in between is not seen) over the wall time. nullopt when the scans are
// not in order.
std::optional<double> cpuPercentBetween(const ProcScan::Folder &earlier, quint64 earlierUptime,
                                        const ProcScan::Folder &later, quint64 laterUptime);

// Clock ticks per second (sysconf(_SC_CLK_TCK)).
long clockTicks();

} // namespace Paddock::Local
