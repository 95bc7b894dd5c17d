#pragma once

#include "inspectorpanel.h"
#include "inspectorsupport.h"
#include "textpageview.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QList>
#include <QPointer>
#include <QSet>
#include <QTimer>

#include <optional>

class ElidedLabel;
class InspectorImages;
class InspectorNote;
class QLineEdit;
class QSortFilterProxyModel;
class QSplitter;
class QToolButton;
class QTreeView;
class TranscriptView;

// The folders of sessions/, a row each, updated in place as they are read again and as their
// sizes and line counts come (lazily, for the rows in view).
class SessionListModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SessionListModel)

public:
    enum Column { IdColumn, ModifiedColumn, SizeColumn, LinesColumn, ToolResultsColumn, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;

    struct Row
    {
        Paddock::Inspect::SessionSummary summary;
        bool reading = false; // its files are being read
        std::optional<double> counting; // its lines are being counted: how far
        QString problem; // its files or its lines could not be read
    };

    explicit SessionListModel(QObject *parent = nullptr);
    ~SessionListModel() override;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // The listing: rows that stay keep what was read of them unless their folder changed;
    // new rows come, gone rows go. Never a reset.
    void merge(const QList<Paddock::Inspect::SessionSummary> &sessions);
    void clear();
    int rowOf(const QString &id) const { return m_index.value(id, -1); }
    const Row &at(int row) const { return m_rows.at(row); }
    void setFiles(const Paddock::Inspect::SessionSummary &summary);
    void setReading(const QString &id, bool reading);
    void setCounting(const QString &id, std::optional<double> fraction);
    void setLineCount(const QString &id, qint64 lines);
    void setProblem(const QString &id, const QString &problem);
    void retranslate();

private:
    void changed(int row, int first = 0, int last = ColumnCount - 1);
    void reindex();

    QList<Row> m_rows;
    QHash<QString, int> m_index;
};

// The inspector's Sessions: every sessions/<id>/ folder (size, time, line count; read lazily for
// the rows in view), and the session picked as a conversation (TranscriptView): context.jsonl
// read in pages as it is parsed on a worker thread, its tool-result files opened page by page,
// data files as thumbnails. It says plainly that context.jsonl holds what was compressed out of
// the agent's context, not the whole conversation.
class SessionsPanel final : public InspectorPanel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SessionsPanel)

public:
    static constexpr int ConcurrentReads = 4;
    // Line counts are read for the rows in view up to this size of context.jsonl (the session
    // picked is counted as it is read, whatever its size).
    static constexpr qint64 CountLinesUpTo = 2 * 1024 * 1024;

    explicit SessionsPanel(QWidget *parent = nullptr);
    ~SessionsPanel() override;

    SessionListModel *sessionsModel() const { return m_model; }
    QTreeView *sessionsView() const { return m_view; }
    TranscriptView *transcript() const { return m_transcript; }
    InspectorNote *note() const { return m_note; }
    InspectorNote *transcriptNote() const { return m_transcriptNote; }
    InspectorNote *banner() const { return m_banner; }
    QToolButton *toolResultsButton() const { return m_toolResults; }
    TextPageDialog *dialog() const { return m_dialog; }
    // Whether the listing has come, and the picked session's transcript was read to its end.
    bool isListed() const { return m_listed; }
    bool isTranscriptRead() const { return m_transcriptDone; }
    QString currentSession() const { return m_session; }
    // Picks a session (its transcript is read); false if it is not listed.
    bool selectSession(const QString &id);
    // Opens a workspace file (a tool-result file) page by page in a window of its own.
    void openTextFile(const QString &path);

Q_SIGNALS:
    // A data/ file to show in the Data tab.
    void dataFileRequested(const QString &path);

protected:
    void clearShown() override;
    void load() override;
    void redactChanged() override;
    void retranslate() override;
    void resizeEvent(QResizeEvent *event) override;

private:
    QCoro::Task<void> loadList();
    QCoro::Task<void> loadFiles(Paddock::Inspect::WorkspaceRef ref, Paddock::Inspect::SessionSummary summary,
                                bool pumped);
    QCoro::Task<void> loadLineCount(Paddock::Inspect::WorkspaceRef ref, QString id);
    QCoro::Task<void> loadTranscript(qint64 offset, int lineBase);
    QCoro::Task<void> loadMessage(int row, bool whole);
    void currentSessionChanged();
    void fetchVisible();
    void pump();
    void updateSessionHeader();
    void showRaw(int row);

    InspectorNote *m_note;
    QLineEdit *m_filter;
    QSplitter *m_splitter;
    QTreeView *m_view;
    SessionListModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QWidget *m_sessionPane;
    ElidedLabel *m_sessionTitle;
    ElidedLabel *m_fileInfo;
    QToolButton *m_toolResults;
    InspectorNote *m_banner;
    InspectorNote *m_transcriptNote;
    TranscriptView *m_transcript;
    InspectorImages *m_images;
    QPointer<TextPageDialog> m_dialog;
    QTimer m_visibleTimer;

    ReadSlot m_listSlot;
    ReadSlot m_rowsSlot; // sizes and line counts of the rows in view
    Paddock::Inspect::WorkspaceRef m_rowsRef;
    ReadSlot m_transcriptSlot;
    ReadSlot m_messageSlot;
    QList<QString> m_filesQueue;
    QList<QString> m_countQueue;
    QSet<QString> m_queued;
    int m_inFlight = 0;
    bool m_listed = false;
    std::optional<Paddock::Error> m_listError;

    QString m_session; // the one whose transcript is shown
    bool m_transcriptDone = false;
    std::optional<Paddock::Inspect::TranscriptProgress> m_progress;
    std::optional<Paddock::Error> m_transcriptError;
};
