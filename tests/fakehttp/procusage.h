#pragma once

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QString>
#include <QtGlobal>

namespace PaddockFake {

// What a fake's sandbox uses, from /proc: its processes are its roots (its PID 1,
// PersistentSandbox::initPid(), or --no-bwrap its process; the nsenter processes of its execs)
// and their descendants, and the processes in the PID namespace of a root or of a root's child
// where /proc shows it. A metrics route reports what is measured on them.
struct TreeUsage
{
    quint64 ticks = 0; // CPU time so far of the processes alive now, in clock ticks
    qint64 residentBytes = 0; // the sum of their resident sets
    int processes = 0;
    // CPU per process, keyed by pid and start time: for the usage between two looks.
    QHash<quint64, quint64> perProcess;
    // Of each process, the ticks divided by its age: a first look's estimate.
    double averageCores = 0;
};

// The processes of `roots` (their PID namespaces, or their descendants).
TreeUsage treeUsage(const QList<qint64> &roots);

// CPU between two looks at a tree, in cores: what its processes used in between (those new since
// the earlier look with all of their time) over `seconds` of wall time.
double coresBetween(const TreeUsage &earlier, const TreeUsage &later, double seconds);

// A CPU time in the answer of a fake's metrics route, measured between the looks a route keeps
// per sandbox: the first look gives the average since each process started.
class CpuMeter
{
public:
    // Cores used by the trees under `roots` since the last call for `key` (or on average, at the
    // first), and their resident bytes.
    std::pair<double, qint64> measure(const QString &key, const QList<qint64> &roots);
    void forget(const QString &key) { m_last.remove(key); }

private:
    struct Last
    {
        TreeUsage usage;
        qint64 atMs = 0;
    };
    QHash<QString, Last> m_last;
};

} // namespace PaddockFake
