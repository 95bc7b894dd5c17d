#include "containerlogtail.h"

#include "backend.h"
#include "bootstraplog.h"
#include "bulk.h"
#include "tr.h"

#include <QCoroTask>

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

Q_LOGGING_CATEGORY(lcContainerLog, "paddock.core.containerlog", QtInfoMsg)

namespace Paddock {

namespace {

// Failed polls back off from the interval, doubling, up to this (or the interval, if longer).
constexpr std::chrono::milliseconds MaxBackoff{30'000};
// How far back from its end a file is read for the lines an earlier tail wrote.
constexpr qint64 MaxReadBack = 16 * 1024 * 1024;

QString errnoText(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

// The time that starts a line of `docker logs --timestamps`: RFC 3339 with up to nine fractional
// digits and `Z` or a numeric offset ("2026-11-30T11:00:00.123456789Z"). UTC, cut to milliseconds
// (what the log file keeps); `nanoseconds`, if given, gets what is below the millisecond.
std::optional<QDateTime> parseLogTime(const QByteArray &token, int *nanoseconds = nullptr)
{
    if (token.size() < 20 || token[4] != '-' || token[7] != '-' || (token[10] != 'T' && token[10] != 't')
        || token[13] != ':' || token[16] != ':')
        return std::nullopt;
    QByteArray normal = token.left(10) + 'T' + token.mid(11, 8);
    qsizetype at = 19;
    int below = 0;
    if (token[at] == '.') {
        qsizetype end = at + 1;
        while (end < token.size() && isDigit(token[end]))
            ++end;
        const qsizetype digits = end - at - 1;
        if (digits < 1 || digits > 9)
            return std::nullopt;
        normal += '.' + token.mid(at + 1, std::min<qsizetype>(digits, 3)).leftJustified(3, '0');
        if (digits > 3)
            below = token.mid(at + 4, digits - 3).leftJustified(6, '0').toInt();
        at = end;
    } else {
        normal += ".000";
    }
    const QByteArray zone = token.mid(at);
    if (zone == "Z" || zone == "z") {
        normal += 'Z';
    } else if (zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && isDigit(zone[1]) && isDigit(zone[2])
               && zone[3] == ':' && isDigit(zone[4]) && isDigit(zone[5])) {
        normal += zone;
    } else {
        return std::nullopt;
    }
    const QDateTime time = QDateTime::fromString(QString::fromLatin1(normal), Qt::ISODateWithMs);
    if (!time.isValid())
        return std::nullopt;
    if (nanoseconds)
        *nanoseconds = below;
    return time.toUTC();
}

// The time of a raw line of the server's log, in nanoseconds since the epoch; none without one.
std::optional<qint64> rawLineTime(const QByteArray &raw)
{
    const qsizetype space = raw.indexOf(' ');
    int nanoseconds = 0;
    const std::optional<QDateTime> time = parseLogTime(space < 0 ? raw : raw.left(space), &nanoseconds);
    if (!time)
        return std::nullopt;
    return time->toMSecsSinceEpoch() * 1'000'000 + nanoseconds;
}

struct Decoded
{
    LogLine line;
    bool timed = false;
};

// One raw line of the server's log as a line of our file: its own time and the text after it;
// a line without a time keeps all of its text and gets the current time.
Decoded decode(const QByteArray &raw)
{
    Decoded decoded;
    LogLine &line = decoded.line;
    line.kind = LogLine::Kind::Stdout;
    const qsizetype space = raw.indexOf(' ');
    const std::optional<QDateTime> time = parseLogTime(space < 0 ? raw : raw.left(space));
    decoded.timed = time.has_value();
    if (time) {
        line.time = *time;
        line.text = space < 0 ? QByteArray() : raw.mid(space + 1);
    } else {
        line.time = QDateTime::currentDateTimeUtc();
        line.text = raw;
    }
    if (line.text.endsWith('\r'))
        line.text.chop(1);
    return decoded;
}

// A raw line as our file has it (without the time of a line that has none, which cannot match).
QByteArray fileLine(const QByteArray &raw)
{
    const Decoded decoded = decode(raw);
    return decoded.timed ? decoded.line.serialize() : QByteArray();
}

// The largest m such that page[0, m) ends with the last min(m, seenCount) seen lines: a page that
// brought nothing new overlaps entirely, even when it starts inside a run of identical lines.
// Seen lines that are `optional` may be missing from the page.
template<typename Equal, typename Optional>
qsizetype findOverlap(qsizetype seenCount, qsizetype pageCount, const Equal &equal, const Optional &optional)
{
    for (qsizetype m = pageCount; m > 0; --m) {
        qsizetype s = seenCount - 1;
        qsizetype p = m - 1;
        bool matched = false;
        while (s >= 0 && p >= 0) {
            if (equal(s, p)) {
                matched = true;
                --s;
                --p;
            } else if (optional(s)) {
                --s;
            } else {
                break;
            }
        }
        if (matched && (s < 0 || p < 0))
            return m;
    }
    return 0;
}

// Sandboxes in these states have (or will have) a live container log.
bool isLive(SandboxState state)
{
    return state == SandboxState::Running || state == SandboxState::Pending || state == SandboxState::Resuming;
}

// A backend's answers while it exists. (Free coroutines: their arguments live in their frames,
// not in the functions that call them.)
Error backendGone()
{
    return Error::unsupported(Tr::tr("its backend no longer exists"));
}

QCoro::Task<Result<QByteArray>> backendLogs(QPointer<Backend> backend, QString sandboxId, int tail)
{
    if (!backend)
        co_return fail(backendGone());
    co_return co_await backend->containerLogs(std::move(sandboxId), tail);
}

QCoro::Task<Result<SandboxInfo>> backendState(QPointer<Backend> backend, QString sandboxId)
{
    if (!backend)
        co_return fail(backendGone());
    co_return co_await backend->get(std::move(sandboxId));
}

QCoro::Task<Result<>> backendFollow(QPointer<Backend> backend, QString sandboxId, int tail,
                                    ContainerLogSource::OnData onData, std::shared_ptr<CancelToken> cancel)
{
    if (!backend)
        co_return fail(backendGone());
    co_return co_await backend->followContainerLog(std::move(sandboxId), tail, std::move(onData), std::move(cancel));
}

} // namespace

ContainerLogSource ContainerLogSource::of(Backend *backend)
{
    const QPointer<Backend> guarded(backend);
    ContainerLogSource source{
        [guarded](QString sandboxId, int tail) { return backendLogs(guarded, std::move(sandboxId), tail); },
        [guarded](QString sandboxId) { return backendState(guarded, std::move(sandboxId)); },
        {},
    };
    if (backend && backend->capabilities().testFlag(Capability::ContainerLogStream)) {
        source.follow = [guarded](QString sandboxId, int tail, OnData onData, std::shared_ptr<CancelToken> cancel) {
            return backendFollow(guarded, std::move(sandboxId), tail, std::move(onData), std::move(cancel));
        };
    }
    return source;
}

ContainerLogTail::ContainerLogTail(ContainerLogSource source, QString sandboxId, QString filePath, QObject *parent)
    : QObject(parent)
    , m_source(std::move(source))
    , m_sandboxId(std::move(sandboxId))
    , m_filePath(std::move(filePath))
{
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &ContainerLogTail::pollNow);
}

ContainerLogTail::ContainerLogTail(Backend *backend, QString sandboxId, QString filePath, QObject *parent)
    : ContainerLogTail(ContainerLogSource::of(backend), std::move(sandboxId), std::move(filePath), parent)
{
}

ContainerLogTail::~ContainerLogTail()
{
    // A poll or stream still in flight finds this object gone (its QPointer) and touches nothing;
    // end() cancels the stream.
    if (m_running)
        end();
}

void ContainerLogTail::setSource(ContainerLogSource source)
{
    if (!m_running)
        m_source = std::move(source);
}

void ContainerLogTail::setInterval(std::chrono::milliseconds interval)
{
    m_interval = std::max(interval, std::chrono::milliseconds(0));
}

void ContainerLogTail::setDrain(std::chrono::milliseconds drain)
{
    m_drain = std::max(drain, std::chrono::milliseconds(0));
}

void ContainerLogTail::setTail(int first, int later)
{
    m_firstTail = std::clamp(first, 1, FirstTail);
    m_nextTail = std::clamp(later, 1, FirstTail);
}

void ContainerLogTail::start()
{
    if (m_running)
        return;
    m_running = true;
    ++m_generation;
    m_firstPoll = true;
    m_failures = 0;
    m_drainDeadline.reset();
    m_openError.clear();
    if (m_seen.isEmpty())
        rememberFileLines();
    const QString dir = QFileInfo(m_filePath).absolutePath();
    if (!QDir().mkpath(dir)) {
        m_openError = Tr::tr("cannot create the folder %1 for the container log").arg(dir);
    } else {
        m_fd = ::open(QFile::encodeName(m_filePath).constData(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
        if (m_fd < 0)
            m_openError = Tr::tr("cannot open the container log file %1: %2").arg(m_filePath, errnoText(errno));
    }
    qCInfo(lcContainerLog).noquote() << "following the container log of" << m_sandboxId << "into" << m_filePath;
    // A poll of the previous run still in flight starts the first one of this run when it ends.
    if (!m_polling)
        m_timer.start(0);
}

void ContainerLogTail::stop()
{
    if (!m_running)
        return;
    const int flushed = end();
    report(flushed, {}, true);
}

qsizetype ContainerLogTail::overlap(const QList<QByteArray> &seen, const QList<QByteArray> &page)
{
    const auto equal = [&](qsizetype s, qsizetype p) { return seen.at(s) == page.at(p); };
    return findOverlap(seen.size(), page.size(), equal, [](qsizetype) { return false; });
}

qsizetype ContainerLogTail::overlapWith(const QList<QByteArray> &page)
{
    // Lines read back from the file are compared as the file has them (milliseconds); the page's
    // lines are put in that form only when such a line is compared.
    QList<std::optional<QByteArray>> asInFile(page.size());
    const auto equal = [&](qsizetype s, qsizetype p) {
        const Seen &seen = m_seen.at(s);
        if (!seen.fromFile)
            return seen.key == page.at(p);
        if (!asInFile[p])
            asInFile[p] = fileLine(page.at(p));
        return seen.key == *asInFile[p];
    };
    const auto optional = [this](qsizetype s) { return m_seen.at(s).optional; };
    return findOverlap(m_seen.size(), page.size(), equal, optional);
}

void ContainerLogTail::rememberFileLines()
{
    QFile file(m_filePath);
    if (!file.open(QIODevice::ReadOnly))
        return;
    // The end of the file, back to RememberedLines lines (or MaxReadBack bytes).
    const qint64 size = file.size();
    qint64 from = size;
    QByteArray tail;
    while (from > 0 && tail.count('\n') <= RememberedLines && size - from < MaxReadBack) {
        const qint64 chunk = std::min<qint64>(from, 256 * 1024);
        from -= chunk;
        if (!file.seek(from))
            return;
        tail.prepend(file.read(chunk));
    }
    QList<QByteArray> lines = tail.split('\n');
    lines.removeLast(); // after the last newline
    if (from > 0 && !lines.isEmpty())
        lines.removeFirst(); // cut
    QList<LogLine> parsed;
    for (const QByteArray &line : std::as_const(lines)) {
        LogLine read = LogLine::parse(line);
        if (read.kind == LogLine::Kind::Stdout && read.time.isValid()) {
            m_seen.append(Seen{line, true, false});
            parsed.append(std::move(read));
        }
    }
    // A tail that stops writes what it has of an incomplete line, which may have been completed
    // since. Such a line (the last one, or one followed by a longer one of the same time that
    // starts with it) may be missing from the server's log.
    for (qsizetype i = 0; i < m_seen.size(); ++i) {
        const bool last = i + 1 == m_seen.size();
        m_seen[i].optional = last
            || (parsed.at(i + 1).time == parsed.at(i).time && parsed.at(i + 1).text.size() > parsed.at(i).text.size()
                && parsed.at(i + 1).text.startsWith(parsed.at(i).text));
    }
    if (m_seen.size() > RememberedLines)
        m_seen.remove(0, m_seen.size() - RememberedLines);
    qCDebug(lcContainerLog).noquote() << "took" << m_seen.size() << "lines of" << m_filePath << "as written";
}

void ContainerLogTail::pollNow()
{
    if (!m_running)
        return;
    if (m_polling) {
        // The drain ended while a stream is still open: it is cancelled, and its end ends the tail.
        if (m_connection && m_drainDeadline && !m_connection->cancelledHere) {
            if (m_drainDeadline->hasExpired()) {
                m_connection->cancelledHere = true;
                m_connection->cancel->cancel();
            } else {
                // A timer that fired early: the drain's end is still to come.
                m_timer.start(std::chrono::milliseconds(std::max<qint64>(1, m_drainDeadline->remainingTime())));
            }
        }
        return;
    }
    if (m_fd < 0) {
        const QString message = m_openError;
        end();
        report(0, message, true);
        return;
    }
    if (isStreaming()) {
        QCoro::connect(follow(this), this, [] {});
        return;
    }
    if (!m_source.logs) {
        const QString message =
            Tr::tr("cannot read the container log of sandbox %1: %2").arg(m_sandboxId, backendGone().message);
        const int flushed = end();
        report(flushed, message, true);
        return;
    }
    QCoro::connect(poll(this), this, [] {});
}

// Static, with the object as a QPointer: after a co_await the object may be gone, and a member
// coroutine would still check `this` (UBSan's vptr check) before it could look.
QCoro::Task<void> ContainerLogTail::poll(QPointer<ContainerLogTail> self)
{
    // A copy of the source: what its functions capture lives until this poll ends.
    const ContainerLogSource source = self->m_source;
    const quint64 generation = self->m_generation;
    const QString sandboxId = self->m_sandboxId;
    const int tail = self->m_firstPoll ? self->m_firstTail : self->m_nextTail;
    self->m_polling = true;

    auto logs = co_await source.logs(sandboxId, tail);
    if (!self)
        co_return;
    std::optional<Result<SandboxInfo>> state;
    const bool unsupported = !logs && logs.error().kind == Error::Kind::Unsupported;
    if (source.state && !unsupported && self->m_running && generation == self->m_generation) {
        auto info = co_await source.state(sandboxId);
        if (!self)
            co_return;
        // A source that cannot tell (a backend gone meanwhile) leaves the state unknown.
        if (info || info.error().kind != Error::Kind::Unsupported)
            state = std::move(info);
    }
    self->m_polling = false;
    if (!self->m_running)
        co_return;
    if (generation != self->m_generation) {
        // Stopped and started again meanwhile: these answers belong to the run that ended, and
        // the new run's first poll waited for this one.
        self->m_timer.start(0);
        co_return;
    }
    if (self->handle(tail, logs, state))
        self->scheduleNext();
}

QCoro::Task<void> ContainerLogTail::follow(QPointer<ContainerLogTail> self)
{
    // A copy of the source: what its functions capture lives until this connection ends.
    const ContainerLogSource source = self->m_source;
    const quint64 generation = self->m_generation;
    const QString sandboxId = self->m_sandboxId;
    const int tail = self->m_firstPoll ? self->m_firstTail : self->m_nextTail;
    self->m_polling = true;
    self->beginConnection(tail);
    const std::shared_ptr<CancelToken> cancel = self->m_connection->cancel;
    if (self->m_drainDeadline) {
        // The drain's end cancels a connection still open then (pollNow).
        self->m_timer.start(std::chrono::milliseconds(std::max<qint64>(0, self->m_drainDeadline->remainingTime())));
    }
    ContainerLogSource::OnData onData = [self, generation](QByteArrayView data) {
        // (Pieces of a stream that this tail stopped, or of an earlier run, go nowhere.)
        if (self && self->m_running && self->m_generation == generation && self->m_connection)
            self->receive(data);
    };

    auto followed = co_await source.follow(sandboxId, tail, std::move(onData), cancel);
    if (!self)
        co_return;
    const bool current = self->m_running && generation == self->m_generation;
    const bool cancelledHere = current && self->m_connection && self->m_connection->cancelledHere;
    const bool unsupported = !followed && !cancelledHere
        && (followed.error().kind == Error::Kind::Unsupported || followed.error().kind == Error::Kind::Cancelled);
    std::optional<Result<SandboxInfo>> state;
    if (source.state && current && !unsupported) {
        auto info = co_await source.state(sandboxId);
        if (!self)
            co_return;
        if (info || info.error().kind != Error::Kind::Unsupported)
            state = std::move(info);
    }
    self->m_polling = false;
    if (!self->m_running)
        co_return;
    if (generation != self->m_generation) {
        // Stopped and started again meanwhile: the new run's first connection waited for this one.
        self->m_timer.start(0);
        co_return;
    }
    if (self->handleEnd(followed, state))
        self->scheduleNext();
}

void ContainerLogTail::beginConnection(int tail)
{
    m_connection.emplace();
    Connection &connection = *m_connection;
    connection.cancel = std::make_shared<CancelToken>();
    connection.tail = tail;
    // What the stream begins with includes a line the last one left incomplete.
    m_partial.clear();
    // Nothing written yet: there is nothing to meet, and every line is new.
    connection.settled = m_seen.isEmpty();
    for (const Seen &seen : std::as_const(m_seen)) {
        if (seen.fromFile) {
            const LogLine line = LogLine::parse(seen.key);
            if (line.time.isValid())
                connection.newestFromFile = std::max(connection.newestFromFile.value_or(line.time.toMSecsSinceEpoch()),
                                                     line.time.toMSecsSinceEpoch());
        } else if (const std::optional<qint64> time = rawLineTime(seen.key)) {
            connection.newestRaw = std::max(connection.newestRaw.value_or(*time), *time);
        }
    }
}

bool ContainerLogTail::isNewer(const QByteArray &raw) const
{
    const Connection &connection = *m_connection;
    if (!connection.newestRaw && !connection.newestFromFile)
        return false; // nothing written has a time
    const std::optional<qint64> time = rawLineTime(raw);
    if (!time)
        return false;
    // A line read back from the file is known to the millisecond, and so compared.
    if (connection.newestRaw && *time <= *connection.newestRaw)
        return false;
    if (connection.newestFromFile && *time / 1'000'000 <= *connection.newestFromFile)
        return false;
    return true;
}

void ContainerLogTail::receive(QByteArrayView data)
{
    Connection &connection = *m_connection;
    if (!connection.failure.isEmpty())
        return; // cancelled: what comes now comes again with the next connection
    bool recovered = false;
    if (!connection.gotData) {
        connection.gotData = true;
        m_firstPoll = false;
        if (m_failures > 0) {
            // Data comes only once the server answered well.
            recovered = true;
            m_failures = 0;
            qCInfo(lcContainerLog).noquote() << "the container log of" << m_sandboxId << "can be read again";
        }
    }
    m_partial.append(data);
    int written = 0;
    QString failure;
    bool ok = true;
    qsizetype from = 0;
    for (qsizetype newline = m_partial.indexOf('\n'); ok && newline >= 0; newline = m_partial.indexOf('\n', from)) {
        const QByteArray line = m_partial.mid(from, newline - from);
        from = newline + 1;
        // A line later than everything written: what the stream began with has all come.
        if (!connection.settled && isNewer(line))
            ok = settle(&written, &failure);
        if (!ok)
            break;
        if (connection.settled) {
            ok = writeRaw(line, &failure);
            if (ok)
                ++written;
        } else {
            connection.pending.append(line);
            // As many lines as were asked for: the rest is new.
            if (connection.pending.size() >= connection.tail)
                ok = settle(&written, &failure);
        }
    }
    if (ok) {
        m_partial.remove(0, from);
    } else {
        // What was not written comes again with the next connection, which meets what was.
        qCWarning(lcContainerLog).noquote() << "cancelling the container log stream of" << m_sandboxId;
        connection.failure = failure;
        connection.cancelledHere = true;
        connection.cancel->cancel();
        connection.pending.clear();
        m_partial.clear();
    }
    report(written, {}, false, recovered);
}

bool ContainerLogTail::settle(int *written, QString *failure)
{
    Connection &connection = *m_connection;
    connection.settled = true;
    const QList<QByteArray> page = std::exchange(connection.pending, {});
    return writeNew(connection.tail, page, page.size(), written, failure);
}

bool ContainerLogTail::handleEnd(const Result<> &followed, const std::optional<Result<SandboxInfo>> &state)
{
    Connection &connection = *m_connection;
    int appended = 0;
    QString writeFailure = connection.failure;
    if (writeFailure.isEmpty() && !connection.settled)
        settle(&appended, &writeFailure); // the stream ended before it was known where it met
    const bool cancelledHere = connection.cancelledHere;
    m_connection.reset();
    if (!followed && !cancelledHere
        && (followed.error().kind == Error::Kind::Unsupported || followed.error().kind == Error::Kind::Cancelled)) {
        const QString message =
            Tr::tr("cannot read the container log of sandbox %1: %2").arg(m_sandboxId, followed.error().message);
        appended += end();
        report(appended, message, true);
        return false;
    }
    const Error *readError = followed || cancelledHere ? nullptr : &followed.error();
    return conclude(readError, appended, writeFailure, state);
}

bool ContainerLogTail::handle(int tail, const Result<QByteArray> &logs, const std::optional<Result<SandboxInfo>> &state)
{
    if (!logs && logs.error().kind == Error::Kind::Unsupported) {
        const QString message =
            Tr::tr("cannot read the container log of sandbox %1: %2").arg(m_sandboxId, logs.error().message);
        const int flushed = end();
        report(flushed, message, true);
        return false;
    }
    int appended = 0;
    QString writeFailure;
    if (logs) {
        m_firstPoll = false;
        appended = writePage(tail, *logs, &writeFailure);
    }
    return conclude(logs ? nullptr : &logs.error(), appended, writeFailure, state);
}

bool ContainerLogTail::conclude(const Error *readError, int appended, const QString &writeFailure,
                                const std::optional<Result<SandboxInfo>> &state)
{
    std::optional<bool> live; // unknown when the state could not be read
    bool gone = false;
    QString failure;
    if (state && *state) {
        live = isLive((*state)->state);
    } else if (state && state->error().kind == Error::Kind::NotFound) {
        live = false;
        gone = true;
    } else if (state) {
        failure = Tr::tr("cannot read the state of sandbox %1: %2").arg(m_sandboxId, state->error().message);
    }
    if (!writeFailure.isEmpty())
        failure = writeFailure;
    if (readError && !((gone || live == false) && readError->kind == Error::Kind::NotFound)) {
        // (The log of a sandbox that is gone, or stopped with its container gone, such as a
        // Kubernetes workspace whose Pod was deleted and whose PVC stays, is 404 too: that is no
        // news.)
        failure = Tr::tr("cannot read the container log of sandbox %1: %2").arg(m_sandboxId, readError->message);
    }
    const bool recovered = m_failures > 0 && failure.isEmpty();
    m_failures = failure.isEmpty() ? 0 : m_failures + 1;
    if (recovered)
        qCInfo(lcContainerLog).noquote() << "the container log of" << m_sandboxId << "can be read again";

    if (live == true && m_drainDeadline) {
        qCInfo(lcContainerLog).noquote() << "sandbox" << m_sandboxId << "runs again; the container log tail goes on";
        m_drainDeadline.reset();
    } else if (live == false && !m_drainDeadline) {
        qCInfo(lcContainerLog).noquote() << QStringLiteral("sandbox %1 %2; reading its container log for another %3 ms")
                                                .arg(m_sandboxId,
                                                     gone ? QStringLiteral("is gone") : QStringLiteral("stopped"))
                                                .arg(m_drain.count());
        m_drainDeadline = QDeadlineTimer(m_drain);
    }
    const bool ended = m_drainDeadline && m_drainDeadline->hasExpired();
    if (ended)
        appended += end();
    return report(appended, failure, ended, recovered) && !ended;
}

int ContainerLogTail::writePage(int tail, const QByteArray &body, QString *failure)
{
    QList<QByteArray> lines = body.split('\n');
    const QByteArray partial = lines.takeLast(); // empty when the body ends with a newline
    const qsizetype pageLines = lines.size() + (partial.isEmpty() ? 0 : 1);
    int written = 0;
    if (writeNew(tail, lines, pageLines, &written, failure))
        m_partial = partial;
    return written; // after a failed write, the rest comes again with the next poll
}

bool ContainerLogTail::writeNew(int tail, const QList<QByteArray> &lines, qsizetype pageLines, int *written,
                                QString *failure)
{
    const qsizetype known = overlapWith(lines);
    if (!m_seen.isEmpty() && known == 0 && pageLines >= tail) {
        const QString text = isStreaming()
            ? Tr::tr("container log lines may be missing here: %n or more new lines arrived before the stream "
                     "connected again",
                     nullptr, tail)
            : Tr::tr("container log lines may be missing here: %n or more new lines arrived between two polls", nullptr,
                     tail);
        qCWarning(lcContainerLog).noquote() << "container log lines of" << m_sandboxId << "may have been lost";
        const LogLine note{QDateTime::currentDateTimeUtc(), LogLine::Kind::Status, text.toUtf8()};
        if (!writeLine(note.serialize() + '\n', failure))
            return false;
        ++*written;
    }
    for (qsizetype i = known; i < lines.size(); ++i) {
        if (!writeRaw(lines.at(i), failure))
            return false;
        ++*written;
    }
    return true;
}

bool ContainerLogTail::writeRaw(const QByteArray &raw, QString *failure)
{
    if (!writeLine(decode(raw).line.serialize() + '\n', failure))
        return false;
    m_seen.append(Seen{raw, false, false});
    if (m_seen.size() > RememberedLines)
        m_seen.removeFirst();
    return true;
}

bool ContainerLogTail::writeLine(const QByteArray &bytes, QString *failure)
{
    // One write(2) per line: the kernel owns the bytes once it returns.
    qsizetype written = 0;
    while (written < bytes.size()) {
        const ssize_t n = ::write(m_fd, bytes.constData() + written, static_cast<size_t>(bytes.size() - written));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            const QString reason = errnoText(errno);
            qCWarning(lcContainerLog).noquote() << "cannot append to" << m_filePath << reason;
            if (failure)
                *failure = Tr::tr("cannot append to the container log file %1: %2").arg(m_filePath, reason);
            return false;
        }
        written += n;
    }
    return true;
}

void ContainerLogTail::scheduleNext()
{
    std::chrono::milliseconds delay = m_interval;
    if (m_failures > 0) {
        const auto cap = std::max(m_interval, MaxBackoff);
        delay = std::min(cap, m_interval * (1 << std::min(m_failures, 10)));
    }
    if (m_drainDeadline) {
        const auto left = std::chrono::milliseconds(std::max<qint64>(0, m_drainDeadline->remainingTime()));
        delay = std::min(delay, left);
    }
    m_timer.start(delay);
}

int ContainerLogTail::end()
{
    int flushed = 0;
    if (m_connection) {
        // The stream ends here: its task ends when the source sees the token.
        m_connection->cancel->cancel();
        if (!m_connection->settled && m_connection->failure.isEmpty() && m_fd >= 0)
            settle(&flushed, nullptr);
        m_connection.reset();
    }
    if (!m_partial.isEmpty() && m_fd >= 0) {
        // The line never got its newline: what we have of it is all there will be here.
        if (writeLine(decode(m_partial).line.serialize() + '\n', nullptr))
            ++flushed;
    }
    m_partial.clear();
    if (m_fd >= 0) {
        ::close(m_fd);
        m_fd = -1;
    }
    m_running = false;
    ++m_generation;
    m_timer.stop();
    m_drainDeadline.reset();
    return flushed;
}

bool ContainerLogTail::report(int appended, const QString &failure, bool ended, bool recovered)
{
    // A slot may destroy this object, or stop or restart it: what is left to say then is stale.
    const QPointer<ContainerLogTail> self(this);
    const quint64 generation = m_generation;
    if (recovered) {
        Q_EMIT this->recovered();
        if (!self || m_generation != generation)
            return false;
    }
    if (appended > 0) {
        Q_EMIT linesAppended(appended);
        if (!self || m_generation != generation)
            return false;
    }
    if (!failure.isEmpty()) {
        qCWarning(lcContainerLog).noquote() << failure;
        Q_EMIT problem(failure);
        if (!self || m_generation != generation)
            return false;
    }
    if (ended) {
        qCInfo(lcContainerLog).noquote() << "stopped following the container log of" << m_sandboxId;
        Q_EMIT stopped();
        if (!self || m_generation != generation)
            return false;
    }
    return true;
}

} // namespace Paddock
