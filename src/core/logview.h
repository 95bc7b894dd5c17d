#pragma once

#include "bootstraplog.h"
#include "result.h"

#include <QByteArrayView>
#include <QDateTime>
#include <QFuture>
#include <QObject>
#include <QRegularExpression>
#include <QString>

#include <atomic>
#include <memory>
#include <span>
#include <vector>

// What a log viewer needs that is not a widget: lines split and decoded for display, a search
// that runs on a worker thread over a file of any size, and the rows of a filter that shows the
// matching lines with their context.
namespace Paddock {

// One line as the file has it: a bootstrap log line "<time> <tag> <text>" split in three, or any
// other line whole (not structured; then it counts as standard output).
struct LogLineView
{
    QByteArrayView time;
    LogLine::Kind kind = LogLine::Kind::Stdout;
    QByteArrayView text;
    bool structured = false;
};
LogLineView splitLogLine(QByteArrayView line);

// A line decoded for display. Bytes that are not UTF-8 become U+FFFD and NUL bytes "^@",
// and the flags say so, so the viewer can tell the user why the text looks odd.
struct DisplayLine
{
    QDateTime time; // UTC; invalid for a line without one
    LogLine::Kind kind = LogLine::Kind::Stdout;
    QString text;
    bool invalidUtf8 = false;
    bool hasNul = false;
    qint64 hiddenBytes = 0; // a long line's bytes that were not read for display
};
// `raw` is the start of a line whose whole length is `length` bytes.
DisplayLine decodeLogLine(QByteArrayView raw, qint64 length);
// Any bytes decoded for display as a log line's text is (U+FFFD, "^@"), the flags set when so.
QString decodeForDisplay(QByteArrayView bytes, bool *invalidUtf8 = nullptr, bool *hasNul = nullptr);
// The text of a line as search sees it: the text part, decoded as for display.
QString searchText(QByteArrayView line);

// What the user searches for: plain text or a regular expression, with or without case.
class LogMatcher
{
public:
    LogMatcher() = default;
    // An invalid regular expression is an error saying where and why.
    static Result<LogMatcher> make(const QString &pattern, bool regex, bool caseSensitive);

    bool isEmpty() const { return m_pattern.isEmpty(); }
    const QString &pattern() const { return m_pattern; }
    bool isRegex() const { return m_regex; }
    bool isCaseSensitive() const { return m_caseSensitive; }
    bool matches(QStringView text) const;
    // Where it matches in `text` (start, length), at most `limit` places; an empty match of a
    // regular expression counts as one character wide nowhere (it is not shown).
    std::vector<std::pair<qsizetype, qsizetype>> ranges(QStringView text, int limit = 256) const;

    bool operator==(const LogMatcher &other) const
    {
        return m_pattern == other.m_pattern && m_regex == other.m_regex && m_caseSensitive == other.m_caseSensitive;
    }

private:
    QString m_pattern;
    bool m_regex = false;
    bool m_caseSensitive = false;
    QRegularExpression m_expression;
};

// The rows a filter shows: each matching line with `context` lines before and after it, in
// order, each line once. Matches are added as a search finds them (ascending); lines after the
// last match that did not exist yet are added by grow() as the log grows.
class LogFilterRows
{
public:
    explicit LogFilterRows(int context = 0)
        : m_context(context)
    {
    }
    int context() const { return m_context; }
    // Returns how many rows were appended.
    qsizetype addMatches(std::span<const qsizetype> matches, qsizetype lineCount);
    qsizetype grow(qsizetype lineCount);
    const std::vector<qsizetype> &rows() const { return m_rows; }
    // The row showing `line`, or the first row after it (rows().size() if none).
    qsizetype rowAtOrAfter(qsizetype line) const;

private:
    void appendUpTo(qsizetype last);

    int m_context;
    std::vector<qsizetype> m_rows;
    qsizetype m_wanted = -1; // the last line the matches so far want shown
};

// Searches a log file on a worker thread, reporting matching line numbers in batches. Line
// numbers count from the `fromLine` given, which starts at byte `fromOffset` (LogIndex says
// where). Results reach the thread that owns this object; a new start() or cancel() drops what
// the previous search had not reported yet.
class LogSearch final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LogSearch)

public:
    explicit LogSearch(QObject *parent = nullptr);
    ~LogSearch() override;

    // Searches lines [fromLine, toLine).
    void start(const QString &path, const LogMatcher &matcher, qsizetype fromLine, qint64 fromOffset, qsizetype toLine);
    void cancel();
    bool isRunning() const { return m_running; }

Q_SIGNALS:
    // Matching lines, ascending; every line before `searchedTo` has been looked at.
    void found(const std::vector<qsizetype> &lines, qsizetype searchedTo);
    void finished(qsizetype searchedTo);
    void failed(const QString &message);

private:
    std::shared_ptr<std::atomic_bool> m_cancel;
    std::vector<QFuture<void>> m_workers;
    quint64 m_generation = 0;
    bool m_running = false;
};

} // namespace Paddock
