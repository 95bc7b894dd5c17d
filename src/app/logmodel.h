#pragma once

#include "logindex.h"
#include "logview.h"

#include <QAbstractTableModel>
#include <QCache>
#include <QLocale>
#include <QTimer>

#include <optional>

// One log file as rows, one per line, read from the file when shown: a million lines cost their
// offsets (8 MB) and a cache of the lines last shown, never the text of the whole log.
//
// refresh() reads what was appended since (in steps of a few megabytes, one per turn of the event
// loop, so a 100 MB log never blocks the GUI thread for long) and inserts the new rows. A search
// (setMatcher) runs on a worker thread and follows the log as it grows; with a filter, the rows
// are the matching lines and `context` lines around each, added as the search finds them.
class LogModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LogModel)

public:
    enum Column {
        LineColumn,
        TimeColumn,
        TextColumn,
        ColumnCount,
    };
    enum Role {
        KindRole = Qt::UserRole, // Paddock::LogLine::Kind as int
        LineRole, // the line's number, from 0
        GapBeforeRole, // bool: a filter hid lines just before this row
        MatchesRole, // bool: the line matches the search
    };
    // Bytes of a line read for display; Copy and Export give all of it.
    static constexpr qsizetype DisplayBytes = 4096;

    explicit LogModel(QString path, QObject *parent = nullptr);
    ~LogModel() override;

    const QString &path() const { return m_index.path(); }
    // Reads what the file gained since the last call (and, the first time, opens it).
    void refresh();
    bool isReading() const { return m_stepPending; }
    // The problem that stops the log from being read (it does not exist...), or empty.
    const QString &readError() const { return m_readError; }
    qsizetype lineCount() const { return m_index.lineCount(); }
    qint64 byteCount() const { return m_index.indexedBytes(); }
    // The file's size when it was last read (no stat on the caller's thread).
    qint64 fileSize() const { return m_fileSize; }
    bool isDeleted() const { return m_index.isOpen() && m_index.isDeleted(); }
    QString readablePath() const { return m_index.readablePath(); }
    // The longest line seen, in bytes (at most DisplayBytes plus a little).
    qsizetype widestLine() const { return m_widest; }

    // What lines shown so far had that the user should know about.
    struct Oddities
    {
        bool invalidUtf8 = false;
        bool nul = false;
        bool longLine = false;
        bool operator==(const Oddities &) const = default;
    };
    Oddities oddities() const { return m_oddities; }

    void setMatcher(const Paddock::LogMatcher &matcher);
    const Paddock::LogMatcher &matcher() const { return m_matcher; }
    const std::vector<qsizetype> &matches() const { return m_matches; }
    bool isSearching() const { return m_search.isRunning(); }
    qsizetype searchedLines() const { return m_searchedTo; }

    // Only the matching lines and `context` lines around each (no effect without a search).
    void setFilter(bool on, int context);
    bool isFiltered() const { return m_filter.has_value(); }
    int context() const { return m_context; }

    qsizetype lineAt(int row) const;
    // The row showing `line`, or with a filter the first row after it; -1 past the end.
    int rowFor(qsizetype line) const;

    // The whole line as text: for Copy.
    QString lineText(qsizetype line, bool withNumber, bool withTime) const;
    // Numbers and times follow the default locale (QLocale(), which the language sets).
    QString timeText(const QDateTime &utc) const;
    // After a language switch: every row's texts (kinds, numbers, times) again.
    void retranslate();

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    void linesAdded(qsizetype count);
    void readingChanged();
    void searchChanged(); // matches found, the search started or ended
    void odditiesChanged();
    void readFailed(const QString &message); // empty: it reads again

private:
    void step();
    void startSearch();
    void onFound(const std::vector<qsizetype> &lines, qsizetype searchedTo);
    void onSearchFinished(qsizetype searchedTo);
    const Paddock::DisplayLine &decoded(qsizetype line) const;
    void appendFilterRows(qsizetype added);

    Paddock::LogIndex m_index;
    qint64 m_fileSize = 0;
    QString m_readError;
    bool m_stepPending = false;
    qsizetype m_widest = 0;
    mutable QCache<qsizetype, Paddock::DisplayLine> m_cache{4000};
    mutable Oddities m_oddities;
    mutable bool m_odditiesPending = false;

    Paddock::LogMatcher m_matcher;
    Paddock::LogSearch m_search;
    std::vector<qsizetype> m_matches;
    qsizetype m_searchedTo = 0;
    std::optional<Paddock::LogFilterRows> m_filter;
    int m_context = 0;
    // The rows announced so far: the index (or the filter) may hold more until they are inserted.
    int m_rowCount = 0;
};
