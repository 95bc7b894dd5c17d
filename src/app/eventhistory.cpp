#include "eventhistory.h"

#include "workspacetreemodel.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QLoggingCategory>
#include <QPointer>
#include <QStandardPaths>
#include <QtConcurrent/QtConcurrentRun>

#include <deque>

Q_LOGGING_CATEGORY(lcHistory, "paddock.app.history", QtInfoMsg)

struct EventHistory::Writer
{
    QString path;
    int perFile = 5000;
    int lines = 0; // lines in the file now
    bool needsNewline = false; // the file ends without one (a line cut short)
};

namespace {

struct Loaded
{
    QList<ConsoleEvent> events;
    int skipped = 0;
    QString problem;
};

// Reads one file's events into `out` (keeping the newest `keep`); returns its line count.
int readFile(const QString &path, std::deque<ConsoleEvent> &out, int keep, Loaded &loaded, bool *endsCut)
{
    QFile file(path);
    if (!file.exists())
        return 0;
    if (!file.open(QIODevice::ReadOnly)) {
        loaded.problem = EventHistory::tr("Cannot read the event history %1: %2").arg(path, file.errorString());
        return 0;
    }
    const QByteArray all = file.readAll();
    int lines = 0;
    qsizetype start = 0;
    while (start < all.size()) {
        qsizetype end = all.indexOf('\n', start);
        const bool cut = end < 0;
        if (cut)
            end = all.size();
        const QByteArray line = all.mid(start, end - start).trimmed();
        start = end + 1;
        ++lines;
        if (endsCut && cut)
            *endsCut = true;
        if (line.isEmpty())
            continue;
        if (auto event = ConsoleEvent::fromJsonLine(line)) {
            out.push_back(std::move(*event));
            if (int(out.size()) > keep)
                out.pop_front();
        } else {
            ++loaded.skipped;
        }
    }
    return lines;
}

} // namespace

EventHistory::EventHistory(QString path, int maxEvents, QObject *parent)
    : QObject(parent)
    , m_path(path.isEmpty() ? defaultPath() : std::move(path))
    , m_maxEvents(std::max(2, maxEvents))
    , m_writer(std::make_shared<Writer>())
{
    m_writer->path = m_path;
    m_writer->perFile = std::max(1, m_maxEvents / 2);
    m_pool.setMaxThreadCount(1);
    m_flushTimer.setSingleShot(true);
    m_flushTimer.setInterval(250);
    connect(&m_flushTimer, &QTimer::timeout, this, &EventHistory::startWrite);
}

EventHistory::~EventHistory()
{
    flush();
}

QString EventHistory::defaultPath()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation)
        + QStringLiteral("/paddock/events.jsonl");
}

QString EventHistory::pathBeside(const QString &logRoot)
{
    if (logRoot.isEmpty())
        return defaultPath();
    return QFileInfo(logRoot).absolutePath() + QStringLiteral("/events.jsonl");
}

void EventHistory::load()
{
    const std::shared_ptr<Writer> writer = m_writer;
    const int keep = m_maxEvents;
    auto *watcher = new QFutureWatcher<Loaded>(this);
    connect(watcher, &QFutureWatcher<Loaded>::finished, this, [this, watcher] {
        const Loaded read = watcher->result();
        watcher->deleteLater();
        m_loaded = true;
        m_skipped = read.skipped;
        if (read.skipped > 0)
            qCWarning(lcHistory).noquote()
                << read.skipped << "line(s) of" << m_path << "are not events and were skipped";
        if (!read.problem.isEmpty())
            setProblem(read.problem);
        Q_EMIT loaded(read.events, read.skipped);
    });
    watcher->setFuture(QtConcurrent::run(&m_pool, [writer, keep] {
        Loaded loaded;
        std::deque<ConsoleEvent> events;
        readFile(writer->path + QStringLiteral(".1"), events, keep, loaded, nullptr);
        bool cut = false;
        writer->lines = readFile(writer->path, events, keep, loaded, &cut);
        writer->needsNewline = cut;
        loaded.events = QList<ConsoleEvent>(events.begin(), events.end());
        return loaded;
    }));
}

void EventHistory::append(const ConsoleEvent &event)
{
    m_gathered.append(event);
    if (!m_flushTimer.isActive())
        m_flushTimer.start();
}

void EventHistory::startWrite()
{
    m_flushTimer.stop();
    if (m_gathered.isEmpty())
        return;
    QList<ConsoleEvent> gathered = std::exchange(m_gathered, {});
    const std::shared_ptr<Writer> writer = m_writer;
    auto *watcher = new QFutureWatcher<QString>(this);
    connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher] {
        const QString failed = watcher->result();
        watcher->deleteLater();
        if (!failed.isEmpty())
            setProblem(failed);
    });
    watcher->setFuture(QtConcurrent::run(&m_pool, [writer, gathered = std::move(gathered)]() -> QString {
        QByteArray bytes;
        for (const ConsoleEvent &event : gathered) {
            bytes += event.toJsonLine();
            bytes += '\n';
        }
        QDir().mkpath(QFileInfo(writer->path).absolutePath());
        QFile file(writer->path);
        if (!file.open(QIODevice::WriteOnly | QIODevice::Append))
            return EventHistory::tr("Cannot write the event history %1: %2").arg(writer->path, file.errorString());
        QByteArray out;
        if (writer->needsNewline)
            out += '\n'; // after a line cut short: the next event starts a line of its own
        out += bytes;
        if (file.write(out) != out.size())
            return EventHistory::tr("Cannot write the event history %1: %2").arg(writer->path, file.errorString());
        file.close();
        writer->needsNewline = false;
        writer->lines += int(bytes.count('\n'));
        if (writer->lines >= writer->perFile) {
            // The file becomes the older one; the one before that goes.
            const QString older = writer->path + QStringLiteral(".1");
            QFile::remove(older);
            if (!QFile::rename(writer->path, older))
                return EventHistory::tr("Cannot rotate the event history %1").arg(writer->path);
            writer->lines = 0;
        }
        return {};
    }));
}

void EventHistory::flush()
{
    startWrite();
    m_pool.waitForDone();
}

void EventHistory::setProblem(const QString &problem)
{
    if (!m_problem.isEmpty())
        return; // said once
    m_problem = problem;
    qCWarning(lcHistory).noquote() << problem;
    Q_EMIT problemChanged(problem);
}

QByteArray EventHistory::toCsv(const QList<ConsoleEvent> &events)
{
    const auto field = [](const QString &text) {
        if (!text.contains(u',') && !text.contains(u'"') && !text.contains(u'\n') && !text.contains(u'\r'))
            return text;
        QString quoted = text;
        quoted.replace(QStringLiteral("\""), QStringLiteral("\"\""));
        return QString(u'"' + quoted + u'"');
    };
    const auto row = [&field](const QStringList &fields) {
        QStringList out;
        out.reserve(fields.size());
        for (const QString &text : fields)
            out.append(field(text));
        return QString(out.join(u',') + QStringLiteral("\r\n"));
    };
    QString csv = row({tr("Time (UTC)"), tr("Profile"), tr("Workspace"), tr("Sandbox"), tr("Event"), tr("By"),
                       tr("From"), tr("To"), tr("Detail")});
    for (const ConsoleEvent &event : events) {
        csv += row({event.time.toUTC().toString(Qt::ISODateWithMs),
                    event.profileName.isEmpty() ? event.profileId : event.profileName, event.workspaceId,
                    event.sandboxId, event.kindText(), ConsoleEvent::actorText(event.actor),
                    event.from ? WorkspaceTreeModel::stateText(*event.from) : QString(),
                    event.to ? WorkspaceTreeModel::stateText(*event.to) : QString(), event.detail});
    }
    return QByteArrayLiteral("\xEF\xBB\xBF") + csv.toUtf8();
}
