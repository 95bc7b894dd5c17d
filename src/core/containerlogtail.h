#pragma once

#include "result.h"
#include "sandbox.h"

#include <QCoroFwd>

#include <QByteArray>
#include <QByteArrayView>
#include <QDeadlineTimer>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QTimer>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

namespace Paddock {

class Backend;
class CancelToken;

// Where a tail reads a sandbox's container log and its state: a backend's containerLogs(),
// followContainerLog() and get(), or whatever stands in front of the backend (a profile's
// session). The tail calls them on its own thread and awaits the tasks they return; each poll or
// stream keeps a copy of the source until it ends, so what the functions capture lives that long,
// even if the tail is destroyed meanwhile.
struct ContainerLogSource
{
    using Logs = std::function<QCoro::Task<Result<QByteArray>>(QString sandboxId, int tail)>;
    using State = std::function<QCoro::Task<Result<SandboxInfo>>(QString sandboxId)>;
    using OnData = std::function<void(QByteArrayView)>;
    using Follow = std::function<QCoro::Task<Result<>>(QString sandboxId, int tail, OnData onData,
                                                       std::shared_ptr<CancelToken> cancel)>;

    // The last `tail` lines, as Backend::containerLogs() gives them. Empty: nothing to read from
    // (the tail reports a problem and stops).
    Logs logs;
    // The sandbox, as Backend::get() gives it, for its state. Empty, or an Unsupported error: the
    // state is unknown, and the tail does not end on its account.
    State state;
    // As Backend::followContainerLog() (Capability::ContainerLogStream): the same bytes as
    // `logs`, from `tail` lines back and then as they are written, handed to onData in pieces
    // cut anywhere, until the container stops, the connection drops or `cancel` is set. Empty:
    // the source cannot stream, and the tail polls `logs`. An Unsupported or Cancelled error
    // (other than for `cancel`) ends the tail.
    Follow follow;

    // Reads through `backend` while it exists (following its log when it has
    // Capability::ContainerLogStream); once it is destroyed, every function says so with an
    // Unsupported error (and a tail stops).
    static ContainerLogSource of(Backend *backend);
};

// Follows a sandbox's container log into a local file in the bootstrap log's line format:
// `<UTC time> out <text>` (LogLine::serialize()), one write(2) per line, the time being the
// line's own. A source that can stream (ContainerLogSource::follow) is followed as a stream
// (isStreaming()); any other gives only "the last N lines" (Backend::containerLogs) and is polled.
//
// Each page, and the lines each stream begins with, overlap what was already written. The last
// lines written are remembered (the raw line: its timestamp with nanoseconds, and its text) and
// the overlap is found as a sequence, so identical lines with identical times are neither dropped
// nor repeated. A full page that does not overlap means lines may have been lost between two
// polls (or two connections): a `sys` line says so before the new ones. A last line without its
// newline is held until it is complete or the tail stops.
// A tail that starts on a file that already has lines (an earlier tail's, in an earlier run of
// the program) takes the last `out` lines of the file as what it wrote, compared at the file's
// precision (milliseconds), so reopening a log does not append it all again.
//
// Polling: every poll also reads the sandbox's state. Once it is neither Running nor on its way
// there (Pending, Resuming), or the sandbox is gone, polling goes on for the drain time (late
// lines still arrive), then ends with stopped(); Running again cancels the drain.
//
// Streaming: the first connection asks for the first tail, a reconnection for the later one.
// What a stream begins with (the server's last lines) is a page, held until it is known where it
// meets what was written: once it has `tail` lines, once a line later than every line written
// arrives (log times only grow), or when the stream ends; from then on each line is written as it
// arrives. (So the note about lost lines needs `tail` lines that do not meet: a stream whose very
// first line is already later than everything written is taken as going on from there.) When the stream ends
// (the container stopped, the connection dropped) the state is read, as after a poll: Running (or
// on its way) connects again after the interval; otherwise the drain goes as above, each
// connection then giving the last lines and ending, and a connection still open when the drain
// ends is cancelled. stop() and the destructor cancel the stream (its CancelToken).
//
// A failed poll or connection (the server is down, the key is wrong, the stream dropped, the file
// cannot be written) is a problem(), every time; the tail goes on, backing off while they keep
// failing (the interval, doubled each time, up to 30 s), and the first poll that succeeds again
// (or the first data of a stream) says recovered(), once, so whoever shows the problem can stop
// showing it. A file that cannot be written cancels the stream it came from; the lines not
// written come again with the next one. A backend without container logs gives one problem() and
// stopped(). A source that says it cannot give logs (an Unsupported error, or a stream Cancelled
// by its source: the profile was closed) ends the tail the same way. Polls and connections never
// overlap, and the object may be destroyed while one is in flight.
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

    // Between polls, and before a stream connects again; default 2 s.
    // Where it reads from from its next start() on; only while it is not running (the console
    // hands over the source of the moment when a stopped log is shown again: its profile may
    // have been opened again since, and the old source ended with it).
    void setSource(ContainerLogSource source);
    void setInterval(std::chrono::milliseconds interval);
    void setDrain(std::chrono::milliseconds drain); // keep reading this long after the sandbox stops; default 10 s
    // How many lines the first poll (or connection) and the later ones ask for (1..FirstTail);
    // for tests.
    void setTail(int first, int later);

    void start(); // the first poll or connection comes at once (from the event loop)
    void stop(); // cancels the stream, writes a held incomplete last line, then stopped()
    bool isRunning() const { return m_running; }
    // The source streams the log (ContainerLogSource::follow): the tail follows it as it is
    // written rather than polling. Known from the source; the same before start().
    bool isStreaming() const { return bool(m_source.follow); }
    // The sandbox stopped or is gone, and the tail reads what still comes until the drain ends.
    bool isDraining() const { return m_drainDeadline.has_value(); }

    // How many of `page`'s first lines are the end of `seen` (lines in log order): the largest
    // m such that page[0, m) ends with the last min(m, seen.size()) lines of `seen`. 0: none.
    static qsizetype overlap(const QList<QByteArray> &seen, const QList<QByteArray> &page);

Q_SIGNALS:
    void linesAppended(int count); // after lines (the `sys` note about lost lines included) reached the file
    void problem(const QString &message); // a failed poll or connection; the tail goes on
    // The first poll that succeeded (or stream that gave data) after problem()s; the tail is back
    // to its interval.
    void recovered();
    void stopped(); // by stop(), after the drain, or because the backend cannot give logs at all

private:
    struct Seen
    {
        QByteArray key; // the raw line; for a line read back from the file, the file's line
        bool fromFile = false;
        bool optional = false; // may be missing from the server's log (it was written incomplete)
    };

    // The stream being followed.
    struct Connection
    {
        std::shared_ptr<CancelToken> cancel;
        int tail = 0;
        bool settled = false; // what it began with was compared with what was written
        bool gotData = false;
        bool cancelledHere = false; // by this tail, to read again (a failed write, the drain's end)
        QList<QByteArray> pending; // complete lines held until settled
        // The newest times of the lines written: as the server gave them (nanoseconds since the
        // epoch) and as read back from the file (milliseconds); none: no such line has a time.
        std::optional<qint64> newestRaw;
        std::optional<qint64> newestFromFile;
        QString failure; // a write failed
    };

    void pollNow();
    static QCoro::Task<void> poll(QPointer<ContainerLogTail> self); // never two at once
    static QCoro::Task<void> follow(QPointer<ContainerLogTail> self); // one connection; never with a poll
    // Digests one poll's answers (the state: nullopt when it was not asked); false when the
    // tail ended or a slot stopped, restarted or destroyed it.
    bool handle(int tail, const Result<QByteArray> &logs, const std::optional<Result<SandboxInfo>> &state);
    // Digests the end of a connection, as handle() does a poll.
    bool handleEnd(const Result<> &followed, const std::optional<Result<SandboxInfo>> &state);
    // What handle() and handleEnd() share: the state, problems, recovery, the drain and the end.
    // `readError`: the poll or stream failed (null: it did not).
    bool conclude(const Error *readError, int appended, const QString &writeFailure,
                  const std::optional<Result<SandboxInfo>> &state);
    void beginConnection(int tail);
    void receive(QByteArrayView data); // a piece of the stream
    // Writes what the stream began with that is new (adding to `*written`); false when a write
    // failed.
    bool settle(int *written, QString *failure);
    bool isNewer(const QByteArray &raw) const; // later than every line written
    // Appends what is new in a page asked with `tail`; returns the lines written.
    int writePage(int tail, const QByteArray &body, QString *failure);
    // Appends the lines of `lines` (a page of `pageLines`) that follow what was written; false
    // when a write failed (`*written` lines were).
    bool writeNew(int tail, const QList<QByteArray> &lines, qsizetype pageLines, int *written, QString *failure);
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
    bool m_polling = false; // a poll or a connection is in flight
    bool m_firstPoll = true;
    quint64 m_generation = 0; // changes at every start() and end: a poll of an older run is ignored
    int m_failures = 0; // polls failed in a row
    std::optional<QDeadlineTimer> m_drainDeadline;
    std::optional<Connection> m_connection;
    QList<Seen> m_seen; // the last lines written, oldest first; kept across runs
    QByteArray m_partial; // an incomplete last line, raw
    QTimer m_timer;
};

} // namespace Paddock
