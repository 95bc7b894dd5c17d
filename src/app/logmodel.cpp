#include "logmodel.h"

#include "colorscheme.h"

#include <QApplication>
#include <QColor>
#include <QFont>
#include <QLoggingCategory>
#include <QPalette>
#include <QTimer>

#include <algorithm>

using namespace Paddock;

namespace {

Q_LOGGING_CATEGORY(lcLogView, "paddock.app.logview")

// Bytes indexed per turn of the event loop: a few milliseconds of work.
constexpr qint64 StepBytes = 4 * 1024 * 1024;

} // namespace

LogModel::LogModel(QString path, QObject *parent)
    : QAbstractTableModel(parent)
    , m_index(std::move(path))
{
    connect(&m_search, &LogSearch::found, this, &LogModel::onFound);
    connect(&m_search, &LogSearch::finished, this, &LogModel::onSearchFinished);
    connect(&m_search, &LogSearch::failed, this, [this](const QString &message) {
        qCWarning(lcLogView) << message;
        Q_EMIT searchChanged();
    });
}

LogModel::~LogModel() = default;

void LogModel::refresh()
{
    if (m_stepPending)
        return;
    step();
}

void LogModel::step()
{
    m_stepPending = false;
    const bool hadPartial = m_index.hasPartialLine();
    const qsizetype countBefore = m_index.lineCount();
    const Result<LogIndex::Scan> scan = m_index.scan(StepBytes);
    if (!scan) {
        if (m_readError != scan.error().message) {
            m_readError = scan.error().message;
            Q_EMIT readFailed(m_readError);
        }
        return;
    }
    if (!m_readError.isEmpty()) {
        m_readError.clear();
        Q_EMIT readFailed({});
    }
    if (scan->restarted) {
        // The file was truncated or replaced: its lines are not the ones shown.
        beginResetModel();
        m_cache.clear();
        m_matches.clear();
        m_searchedTo = 0;
        m_widest = 0;
        if (m_filter)
            m_filter.emplace(m_context);
        m_rowCount = 0;
        endResetModel();
        m_search.cancel();
    }
    m_fileSize = scan->fileSize;
    const qsizetype count = m_index.lineCount();
    const qsizetype added = scan->newLines;
    if (added > 0) {
        for (qsizetype line = count - added; line < count; ++line)
            m_widest =
                std::max<qsizetype>(m_widest, qsizetype(std::min<qint64>(m_index.lineLength(line), DisplayBytes)));
    }
    // A last line that had no newline yet may have grown, or been finished.
    if (hadPartial && !scan->restarted) {
        const qsizetype grown = countBefore - 1;
        m_cache.remove(grown);
        m_widest = std::max<qsizetype>(m_widest, qsizetype(std::min<qint64>(m_index.lineLength(grown), DisplayBytes)));
        const int row = rowFor(grown);
        if (row >= 0 && lineAt(row) == grown)
            Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
    }
    if (added > 0) {
        if (!m_filter) {
            beginInsertRows({}, m_rowCount, int(count - 1));
            m_rowCount = int(count);
            endInsertRows();
        } else {
            appendFilterRows(m_filter->grow(count));
        }
        Q_EMIT linesAdded(added);
    }
    if (!m_matcher.isEmpty() && !m_search.isRunning() && m_searchedTo < m_index.completeLineCount())
        startSearch();
    if (scan->more) {
        m_stepPending = true;
        QTimer::singleShot(0, this, &LogModel::step);
    }
    Q_EMIT readingChanged();
}

void LogModel::appendFilterRows(qsizetype added)
{
    if (added <= 0)
        return;
    const int rows = int(m_filter->rows().size());
    beginInsertRows({}, m_rowCount, rows - 1);
    m_rowCount = rows;
    endInsertRows();
}

void LogModel::setMatcher(const LogMatcher &matcher)
{
    if (matcher == m_matcher)
        return;
    m_matcher = matcher;
    m_search.cancel();
    const bool filtered = m_filter.has_value();
    if (filtered)
        beginResetModel();
    m_matches.clear();
    m_searchedTo = 0;
    if (filtered) {
        m_filter.emplace(m_context);
        m_rowCount = 0;
        endResetModel();
    }
    if (!m_matcher.isEmpty())
        startSearch();
    // Highlights change in the rows shown.
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, TextColumn), index(rowCount() - 1, TextColumn));
    Q_EMIT searchChanged();
}

void LogModel::setFilter(bool on, int context)
{
    if (on == m_filter.has_value() && context == m_context)
        return;
    beginResetModel();
    m_context = context;
    if (on) {
        m_filter.emplace(context);
        m_filter->addMatches(m_matches, m_index.lineCount());
    } else {
        m_filter.reset();
    }
    m_rowCount = int(m_filter ? qsizetype(m_filter->rows().size()) : m_index.lineCount());
    endResetModel();
}

void LogModel::startSearch()
{
    const qsizetype toLine = m_index.completeLineCount();
    m_search.start(m_index.readablePath(), m_matcher, m_searchedTo, m_index.lineStart(m_searchedTo), toLine);
}

void LogModel::onFound(const std::vector<qsizetype> &lines, qsizetype searchedTo)
{
    m_matches.insert(m_matches.end(), lines.begin(), lines.end());
    m_searchedTo = searchedTo;
    if (m_filter)
        appendFilterRows(m_filter->addMatches(lines, m_index.lineCount()));
    Q_EMIT searchChanged();
}

void LogModel::onSearchFinished(qsizetype searchedTo)
{
    m_searchedTo = searchedTo;
    if (!m_matcher.isEmpty() && m_searchedTo < m_index.completeLineCount())
        startSearch(); // lines came while it ran
    Q_EMIT searchChanged();
}

qsizetype LogModel::lineAt(int row) const
{
    if (row < 0)
        return -1;
    if (row >= m_rowCount)
        return -1;
    return m_filter ? m_filter->rows()[size_t(row)] : row;
}

int LogModel::rowFor(qsizetype line) const
{
    if (line < 0)
        return -1;
    if (m_filter) {
        const qsizetype row = m_filter->rowAtOrAfter(line);
        return row < m_rowCount ? int(row) : -1;
    }
    return line < m_rowCount ? int(line) : -1;
}

int LogModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid())
        return 0;
    return m_rowCount;
}

int LogModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

const DisplayLine &LogModel::decoded(qsizetype line) const
{
    if (DisplayLine *cached = m_cache.object(line))
        return *cached;
    bool cut = false;
    const QByteArray raw = m_index.line(line, DisplayBytes, &cut);
    auto *display = new DisplayLine(decodeLogLine(raw, m_index.lineLength(line)));
    const Oddities before = m_oddities;
    m_oddities.invalidUtf8 |= display->invalidUtf8;
    m_oddities.nul |= display->hasNul;
    m_oddities.longLine |= display->hiddenBytes > 0;
    if (!(before == m_oddities) && !m_odditiesPending) {
        // data() is no place to emit: tell the viewer on the next turn.
        m_odditiesPending = true;
        auto *self = const_cast<LogModel *>(this);
        QTimer::singleShot(0, self, [self] {
            self->m_odditiesPending = false;
            Q_EMIT self->odditiesChanged();
        });
    }
    m_cache.insert(line, display);
    return *display;
}

QString LogModel::timeText(const QDateTime &utc) const
{
    if (!utc.isValid())
        return {};
    return QLocale().toString(utc.toLocalTime(), QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz"));
}

void LogModel::retranslate()
{
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

QString LogModel::lineText(qsizetype line, bool withNumber, bool withTime) const
{
    const qint64 length = m_index.lineLength(line);
    const QByteArray raw = m_index.line(line, qsizetype(length));
    const DisplayLine display = decodeLogLine(raw, length);
    QString text;
    if (withNumber)
        text += QString::number(line + 1) + u' ';
    if (withTime && display.time.isValid())
        text += timeText(display.time) + u' ';
    if (display.kind == LogLine::Kind::Stderr)
        text += QStringLiteral("[stderr] ");
    else if (display.kind == LogLine::Kind::Command)
        text += QStringLiteral("$ ");
    return text + display.text;
}

namespace {

QString kindName(LogLine::Kind kind)
{
    switch (kind) {
    case LogLine::Kind::Stdout:
        return LogModel::tr("standard output");
    case LogLine::Kind::Stderr:
        return LogModel::tr("standard error");
    case LogLine::Kind::Command:
        return LogModel::tr("command");
    case LogLine::Kind::Status:
        return LogModel::tr("Paddock");
    }
    return {};
}

} // namespace

QVariant LogModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const qsizetype line = lineAt(index.row());
    switch (role) {
    case LineRole:
        return line;
    case GapBeforeRole:
        return m_filter && index.row() > 0 && lineAt(index.row() - 1) != line - 1;
    case MatchesRole:
        return std::binary_search(m_matches.begin(), m_matches.end(), line);
    case KindRole:
        return int(decoded(line).kind);
    default:
        break;
    }
    if (index.column() == LineColumn) {
        if (role == Qt::DisplayRole)
            return QLocale().toString(line + 1);
        if (role == Qt::TextAlignmentRole)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        if (role == Qt::ForegroundRole)
            return QApplication::palette().color(QPalette::PlaceholderText);
        return {};
    }
    const DisplayLine &display = decoded(line);
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == TimeColumn)
            return timeText(display.time);
        if (display.kind == LogLine::Kind::Command)
            return QString(QStringLiteral("$ ") + display.text);
        return display.text;
    case Qt::ToolTipRole: {
        if (index.column() == TimeColumn)
            return display.time.isValid() ? QLocale().toString(display.time.toLocalTime(), QLocale::LongFormat)
                                          : QVariant();
        QStringList notes;
        notes << kindName(display.kind);
        if (display.invalidUtf8)
            notes << tr("Some bytes of this line are not UTF-8; they are shown as \uFFFD.");
        if (display.hasNul)
            notes << tr("This line has NUL bytes; they are shown as ^@.");
        if (display.hiddenBytes > 0) {
            const QLocale locale;
            notes << tr("This line is %1 long; the first %2 are shown. Copy or Export gives all of it.")
                         .arg(locale.formattedDataSize(m_index.lineLength(line)),
                              locale.formattedDataSize(DisplayBytes));
        }
        return notes.join(u'\n');
    }
    case Qt::AccessibleDescriptionRole:
        return kindName(display.kind);
    case Qt::ForegroundRole:
        if (display.kind == LogLine::Kind::Stderr)
            return Tones::error();
        if (display.kind == LogLine::Kind::Status)
            return QApplication::palette().color(QPalette::PlaceholderText);
        return {};
    case Qt::BackgroundRole:
        if (display.kind == LogLine::Kind::Stderr)
            return QColor(0xe0, 0x1b, 0x24, 28);
        return {};
    case Qt::FontRole:
        if (display.kind == LogLine::Kind::Command || display.kind == LogLine::Kind::Status) {
            QFont font;
            font.setBold(display.kind == LogLine::Kind::Command);
            font.setItalic(display.kind == LogLine::Kind::Status);
            return font;
        }
        return {};
    default:
        return {};
    }
}
