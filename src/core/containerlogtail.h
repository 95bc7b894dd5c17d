#pragma once

#include "result.h"
#include "sandbox.h"

#include <QCoroFwd>

#include <QByteArray>
#include <QDeadlineTimer>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QTimer>

#include <chrono>
#include <functional>
#include <optional>

namespace Paddock {

class Backend;

// Where a tail reads a sandbox's container log and its state: a backend's containerLogs() and
// get(), or whatever stands in front of the backend (a profile's session). The tail calls them on
// its own thread and awaits the tasks they return; each poll keeps a copy of the source until it
// ends, so what the functions capture lives that long, even if the tail is destroyed meanwhile.
struct ContainerLogSource
{
    using Logs = std::function<QCoro::Task<Result<QByteArray>>(QString sandboxId, int tail)>;
    using State = std::function<QCoro::Task<Result<SandboxInfo>>(QString sandboxId)>;

    // The last `tail` lines, as Backend::containerLogs() gives them. Empty: nothing to read from
    // (the tail reports a problem and stops).
    Logs logs;
    // The sandbox, as Backend::get() gives it, for its state. Empty, or an Unsupported error: the
    // state is unknown, and the tail does not end on its account.
    State state;

    // Reads through `backend` while it exists; once it is destroyed, both functions say so with
    // an Unsupported error (and a tail stops).
    static ContainerLogSource of(Backend *backend);
};

// Follows a sandbox's container log, which servers only give as "the last N lines"
// (Backend::containerLogs, through a ContainerLogSource), by polling it, and appends what is new
// to a local file in the bootstrap log's line format: `<UTC time> out <text>`
// (LogLine::serialize()), one write(2) per line, the time being the line's own.
//
// Each page overlaps what was already written. The last lines written are remembered (the raw
// line: its timestamp with nanoseconds, and its text) and the overlap is found as a sequence, so
// identical lines with identical times are neither dropped nor repeated. A full page that does
// not overlap means lines may have been lost between two polls: a `sys` line says so before the
// new ones. A last line without its newline is held until it is complete or the tail stops.
// A tail that starts on a file that already has lines (an earlier tail's, in an earlier run of
// the program) takes the last `out` lines of the file as what it wrote, compared at the file's
// precision (milliseconds), so reopening a log does not append it all again.
//
// Every poll also reads the sandbox's state. Once it is neither Running nor on its way there
// (Pending, Resuming), or the sandbox is gone, polling goes on for the drain time (late lines
// still arrive), then ends with stopped(); Running again cancels the drain. A failed poll (the
// server is down, the key is wrong, the file cannot be written) is a problem(), every time;
// polling goes on, backing off while polls keep failing (the interval, doubled each time, up to
// 30 s), and the first poll that succeeds again says recovered(), once, so whoever shows the
// problem can stop showing it. A backend without container logs gives one problem() and
// stopped(). A source that says it cannot give logs (an Unsupported error) ends the tail the same
// way. Polls never overlap, and the object may be destroyed while one is in flight.
class ContainerLogTail final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ContainerLogTail)

public:
    static constexpr int FirstTail = 10'000; // the servers' maximum
    static constexpr int NextTail = 1'000;
    static constexpr int RememberedLines = 1'000;

    // Appends the sandbox's container log, read from `source`, to `filePath` (created if
    // missing, with its folder; lines already in it are kept).
    ContainerLogTail(ContainerLogSource source, QString sandboxId, QString filePath, QObject *parent = nullptr);
    // The same, reading through `backend` (ContainerLogSource::of): if the backend is destroyed
    // first, the tail reports a problem and stops.
    ContainerLogTail(Backend *backend, QString sandboxId, QString filePath, QObject *parent = nullptr);
    ~ContainerLogTail() override;

    QString sandboxId() const { return m_sandboxId; }
    QString filePath() const { return m_filePath; }

    void setInterval(std::chrono::milliseconds interval); // between polls; default 2 s
    void setDrain(std::chrono::milliseconds drain); // keep polling this long after the sandbox stops; default 10 s
    // How many lines the first poll and the later ones ask for (1..FirstTail); for tests.
    void setTail(int first, int later);

    void start(); // the first poll comes at once (from the event loop)
    void stop(); // writes a held incomplete last line, then stopped()
    bool isRunning() const { return m_running; }
    // The sandbox stopped or is gone, and the tail reads what still comes until the drain ends.
    bool isDraining() const { return m_drainDeadline.has_value(); }

    // How many of `page`'s first lines are the end of `seen` (lines in log order): the largest
    // m such that page[0, m) ends with the last min(m, seen.size()) lines of `seen`. 0: none.
    static qsizetype overlap(const QList<QByteArray> &seen, const QList<QByteArray> &page);

Q_SIGNALS:
    void linesAppended(int count); // after lines (the `sys` note about lost lines included) reached the file
    void problem(const QString &message); // a failed poll; polling goes on
    void recovered(); // the first poll that succeeded after problem()s; polling is back to its interval
    void stopped(); // by stop(), after the drain, or because the backend cannot give logs at all

private:
    struct Seen
    {
        QByteArray key; // the raw line; for a line read back from the file, the file's line
        bool fromFile = false;
        bool optional = false; // may be missing from the server's log (it was written incomplete)
    };

    void pollNow();
    static QCoro::Task<void> poll(QPointer<ContainerLogTail> self); // never two at once
    // Digests one poll's answers (the state: nullopt when it was not asked); false when the
    // tail ended or a slot stopped, restarted or destroyed it.
    bool handle(int tail, const Result<QByteArray> &logs, const std::optional<Result<SandboxInfo>> &state);
    // Appends what is new in a page asked with `tail`; returns the lines written.
    int writePage(int tail, const QByteArray &body, QString *failure);
    bool writeRaw(const QByteArray &raw, QString *failure); // a complete line as the server gave it
    bool writeLine(const QByteArray &bytes, QString *failure);
    // The last `out` lines of the file, as written by an earlier tail.
    void rememberFileLines();
    qsizetype overlapWith(const QList<QByteArray> &page);
    void scheduleNext();
    // Writes a held incomplete line and ends the run; returns the lines written. Emits nothing.
    int end();
    // Emits linesAppended(), problem() and stopped() as needed; false when a slot stopped,
    // restarted or destroyed this object meanwhile.
    bool report(int appended, const QString &failure, bool ended, bool recovered = false);

    ContainerLogSource m_source;
    QString m_sandboxId;
    QString m_filePath;
    std::chrono::milliseconds m_interval{2'000};
    std::chrono::milliseconds m_drain{10'000};
    int m_firstTail = FirstTail;
    int m_nextTail = NextTail;

    int m_fd = -1;
    QString m_openError;
    bool m_running = false;
    bool m_polling = false;
    bool m_firstPoll = true;
    quint64 m_generation = 0; // changes at every start() and end: a poll of an older run is ignored
    int m_failures = 0; // polls failed in a row
    std::optional<QDeadlineTimer> m_drainDeadline;
    QList<Seen> m_seen; // the last lines written, oldest first; kept across runs
    QByteArray m_partial; // an incomplete last line, raw
    QTimer m_timer;
};

} // namespace Paddock
