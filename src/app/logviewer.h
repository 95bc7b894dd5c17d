#pragma once

#include "result.h"

#include <QCoroFwd>

#include <QPointer>
#include <QTimer>
#include <QWidget>

#include <functional>

class ElidedLabel;
class LogModel;
class QAction;
class QCheckBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTableView;
class QToolButton;

// A log file in a view: it follows new lines while the view is at the bottom (scrolling up stops
// that, scrolling back down resumes it), searches as the user types (plain text or a regular
// expression, with highlights and next/previous), can show only the matching lines with context,
// sets stderr apart, copies the selected lines and exports the whole file. The file is read in
// pieces as it is shown (LogModel), so its size does not matter.
class LogViewer final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LogViewer)

public:
    explicit LogViewer(const QString &path, QWidget *parent = nullptr);
    ~LogViewer() override;

    LogModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    QLineEdit *searchField() const { return m_search; }

    // Reads what the file gained now (besides the viewer's own polling): for live sources.
    void refresh();
    // Where the lines come from and how that goes, in the status line: a text that stays as it
    // is (a server's message)...
    void setSourceState(const QString &text);
    // ...or one in the language of the moment: `text` makes it ("Polling the server for new
    // lines.") and is called again when the language changes.
    void setSourceStateFrom(std::function<QString()> text);
    // What the note says while the file does not exist (asked again on a language change);
    // without one, that it is shown as soon as it appears.
    void setAbsentText(std::function<QString()> text);

    // The search, applied at once (typing applies it after a short pause).
    void setSearch(const QString &text, bool regex = false, bool caseSensitive = false);
    QString searchError() const { return m_searchError; }
    void setFilter(bool on, int context = 0);
    void findNext();
    void findPrevious();
    // The line of the current row; -1 if none.
    qsizetype currentLine() const;

    bool isFollowing() const { return m_following; }
    // Following again shows the newest lines from their start (scrolled fully left).
    void setFollowing(bool follow);
    void setLineNumbersVisible(bool visible);
    void setTimestampsVisible(bool visible);

    // The selected lines as text (or the current line), as Copy puts them on the clipboard.
    QString selectedText() const;
    void copySelection();
    // Writes the whole log, byte for byte, to `path` (atomically: on failure nothing is left).
    QCoro::Task<Paddock::Result<>> exportTo(QString path);

    QString noteText() const;
    QString statusText() const;
    QString matchText() const;

Q_SIGNALS:
    void followingChanged(bool following);

protected:
    void changeEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void retranslate();
    void applySearch();
    // After a new search, once: the first match at or after the line that was current (else the
    // first match), as soon as the search has found it.
    void jumpToNewSearch();
    void updateNote();
    void updateStatus();
    void updateMatchText();
    void updateTextWidth();
    void goToLine(qsizetype line);
    // Scrolls sideways only when the row's first match is out of view.
    void revealMatch(int row);
    // Following or not, the view left where it is (scrolling does this).
    void updateFollowing(bool follow);
    void exportInteractively();
    void scrollRangeChanged(int min, int max);
    void scrollValueChanged(int value);

    LogModel *m_model;
    QTableView *m_view;
    QLineEdit *m_search;
    QCheckBox *m_regex;
    QCheckBox *m_case;
    QCheckBox *m_filter;
    QLabel *m_contextLabel;
    QSpinBox *m_context;
    QToolButton *m_previousButton;
    QToolButton *m_nextButton;
    ElidedLabel *m_matches;
    QLabel *m_note;
    ElidedLabel *m_status;
    QAction *m_findAction;
    QAction *m_previousAction;
    QAction *m_nextAction;
    QAction *m_followAction;
    QAction *m_lineNumbersAction;
    QAction *m_timestampsAction;
    QAction *m_copyAction;
    QAction *m_exportAction;
    QList<QToolButton *> m_toggleButtons;
    QTimer m_poll; // the file's growth, when nothing tells us
    QTimer m_searchDelay; // typing pauses before a search starts
    QTimer m_widthDelay;
    QString m_searchError;
    QString m_exportedTo; // the last export's file, when it worked
    QString m_exportMessage; // else why it did not
    QString m_sourceState;
    std::function<QString()> m_absentText;
    std::function<QString()> m_sourceStateText; // makes m_sourceState, if set
    bool m_following = true;
    bool m_deleted = false;
    qsizetype m_lineBeforeReset = -1;
    bool m_jumpPending = false; // a new search has not gone to its first match yet
    qsizetype m_jumpFrom = 0; // the line current when it was made
    qsizetype m_jumpLines = 0; // the lines the log had then
};
