#pragma once

#include "consoleevent.h"

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QThreadPool>
#include <QTimer>

#include <memory>

// The event history on disk: an append-only JSON Lines file, one ConsoleEvent per line
// (`events.jsonl` in the data folder, `$XDG_DATA_HOME/paddock/`), bounded: once the file holds
// half the bound it becomes `events.jsonl.1` (the older `.1` goes), so the last `maxEvents` to
// half of that are kept. load() reads `.1` then the file on a worker thread and hands over the
// newest `maxEvents` (loaded()); a line that is not an event (corrupt, cut short by a crash) is
// skipped and counted, and never costs the lines after it. append() never touches the disk on
// the caller's thread: events are gathered, and made into lines and written in one write every
// 250 ms, in order, on a worker thread of its own. A write that fails is said once (problem()); the events stay shown.
class EventHistory final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EventHistory)

public:
    static constexpr int DefaultMaxEvents = 10'000;

    // path: the file (empty: defaultPath()).
    explicit EventHistory(QString path = {}, int maxEvents = DefaultMaxEvents, QObject *parent = nullptr);
    // Writes what is still gathered, and waits for it.
    ~EventHistory() override;

    // <XDG data>/paddock/events.jsonl
    static QString defaultPath();
    // The data folder's event file next to a bootstrap-log root (<data>/paddock/logs).
    static QString pathBeside(const QString &logRoot);
    QString path() const { return m_path; }
    int maxEvents() const { return m_maxEvents; }

    // Reads the file on a worker thread; loaded() follows. Appends made meanwhile are written
    // after what was read.
    void load();
    bool isLoaded() const { return m_loaded; }
    // Gathers an event for the next write.
    void append(const ConsoleEvent &event);
    // Writes what is gathered now and waits for every write (tests, the end).
    void flush();
    // Lines skipped at load (not events); a write that failed. Empty/0: none.
    int skippedLines() const { return m_skipped; }
    QString problem() const { return m_problem; }

    // The events as CSV (RFC 4180: a header row, fields quoted when they hold a comma, a quote or
    // a line break, quotes doubled, CRLF line ends), UTF-8 with a byte-order mark so that
    // spreadsheets read it as UTF-8. Columns: Time (UTC, ISO 8601), Profile, Workspace, Sandbox,
    // Event, By, From, To, Detail, in the language of the moment.
    static QByteArray toCsv(const QList<ConsoleEvent> &events);

Q_SIGNALS:
    // The events read (oldest first, at most maxEvents) and the lines skipped.
    void loaded(const QList<ConsoleEvent> &events, int skipped);
    // A read or a write failed (said once).
    void problemChanged(const QString &problem);

private:
    struct Writer;
    void startWrite();
    void setProblem(const QString &problem);

    QString m_path;
    int m_maxEvents;
    QList<ConsoleEvent> m_gathered; // made into lines on the writer's thread
    QTimer m_flushTimer;
    QThreadPool m_pool; // one thread: the load, then the writes, in order
    std::shared_ptr<Writer> m_writer; // the file's state, touched only on m_pool's thread
    bool m_loaded = false;
    int m_skipped = 0;
    QString m_problem;
};
