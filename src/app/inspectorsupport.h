#pragma once

// What the inspector dock's panels share: one read at a time per kind of read (ReadSlot), a note
// in place of what cannot be shown (InspectorNote), trees updated in place (syncItems), a tree
// view that copies what it shows (InspectorTreeView), and how sizes, times and errors are said.

#include "canceltoken.h"
#include "inspect/workspaceinspector.h"
#include "result.h"

#include <QCoroFwd>

#include <QCoreApplication>
#include <QFrame>
#include <QList>
#include <QString>
#include <QStringList>
#include <QTreeView>
#include <QVariant>

#include <functional>
#include <memory>

class QLabel;
class QPushButton;
class QStandardItem;
class QStandardItemModel;

// One kind of read of a panel (its listing, the preview of the file picked, ...): starting a read
// cancels the one before it, and the selection's token (the dock's, cancelled when the selection
// moves on) cancels it too. A read's coroutine keeps the WorkspaceRef that start() gave it and,
// after every co_await, goes on only while isCurrent(ref): otherwise its answer is dropped.
// Used on the GUI thread only.
class ReadSlot
{
public:
    ReadSlot() = default;
    ~ReadSlot();
    Q_DISABLE_COPY_MOVE(ReadSlot)

    Paddock::Inspect::WorkspaceRef start(const Paddock::Inspect::WorkspaceRef &base);
    void cancel();
    // The read that `ref` belongs to is the latest one, and neither it nor the selection was
    // cancelled.
    bool isCurrent(const Paddock::Inspect::WorkspaceRef &ref) const;

private:
    std::shared_ptr<Paddock::CancelToken> m_token;
    std::weak_ptr<Paddock::CancelToken> m_parent;
    int m_callback = 0;
};

// A note in place of (or above) what a panel shows: why something cannot be read, that a file is
// broken and what AgentScope does with it, what a view shows. Its text is selectable; links in it
// are reported by linkActivated(). Hidden while empty.
class InspectorNote final : public QFrame
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(InspectorNote)

public:
    enum class Kind { Info, Warning, Error };
    explicit InspectorNote(QWidget *parent = nullptr);
    ~InspectorNote() override;

    void setNote(Kind kind, const QString &text);
    // A note made again from `text` when the language changes (an error said with tr() when it
    // was read): it follows the language without the panel reading again.
    void setNote(Kind kind, std::function<QString()> text);
    // Rich text (links); the caller escapes what it puts in.
    void setRichNote(Kind kind, const QString &html);
    void clear();
    QString text() const;
    Kind kind() const { return m_kind; }

Q_SIGNALS:
    void linkActivated(const QString &link);

protected:
    void changeEvent(QEvent *event) override;

private:
    void applyKind(Kind kind);

    QLabel *m_icon;
    QLabel *m_text;
    Kind m_kind = Kind::Info;
    std::function<QString()> m_make; // what makes the text again in another language
};

// One row of a tree kept in a QStandardItemModel, with its children: syncItems() makes the model
// show exactly these rows, in place (rows that stay keep their items, and so the selection, the
// current row and what is expanded; only changed texts are set).
struct InspectorItem
{
    enum class Tone { Normal, Dim, Warning, Error, Strong };
    QString key; // unique among its siblings
    QStringList texts; // one per column
    // What Copy takes instead of the text shown, per column (a revealed secret copies masked).
    QStringList copyTexts;
    QString toolTip; // the whole row's
    Tone tone = Tone::Normal;
    bool monospace = false; // values such as commands, paths, ids
    QVariant data; // InspectorItem::DataRole on the first column
    bool expand = false; // expanded when it first appears
    // Its children are set only when it first appears, then left as they are (a lazy folder).
    bool keepChildren = false;
    QList<InspectorItem> children;

    static constexpr int KeyRole = Qt::UserRole + 100;
    static constexpr int DataRole = Qt::UserRole + 101;
    static constexpr int ToneRole = Qt::UserRole + 102;
    static constexpr int CopyRole = Qt::UserRole + 103;
};
// `view` (optional) expands the new rows that ask for it.
void syncItems(QStandardItemModel *model, const QList<InspectorItem> &items, QTreeView *view = nullptr);
// The same for the children of one item (a folder of a lazy tree).
void syncChildItems(QStandardItemModel *model, QStandardItem *parent, const QList<InspectorItem> &items,
                    QTreeView *view = nullptr);
// The item of a path of keys from the top (nullptr if there is none).
QStandardItem *itemAt(QStandardItemModel *model, const QStringList &keys);
// The keys from the top to an index.
QStringList keysOf(const QModelIndex &index);

// A tree of what a panel shows: Ctrl+C and the context menu's Copy give the selected rows as they
// are shown (masked values stay masked; a value revealed is copied masked: its CopyRole), Copy
// Value the second column of the current row the same way.
class InspectorTreeView final : public QTreeView
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(InspectorTreeView)

public:
    explicit InspectorTreeView(QWidget *parent = nullptr);
    ~InspectorTreeView() override;

    // The text Copy puts on the clipboard: the selected rows (or the current one), tab-separated
    // columns, children indented.
    QString selectedText() const;
    // What Copy takes of one cell: its CopyRole if it has one, else its text.
    static QString copyText(const QModelIndex &index);
    QAction *copyAction() const { return m_copy; }
    QAction *copyValueAction() const { return m_copyValue; }

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslate();

    QAction *m_copy;
    QAction *m_copyValue;
};

// The translation context of the inspector's shared texts.
struct InspectorText
{
    Q_DECLARE_TR_FUNCTIONS(Inspector)
};

namespace Inspector {

// How an error of a read is said in a panel: the message, after what it means here ("This
// backend cannot read a workspace's files" for Unsupported).
QString errorText(const Paddock::Error &error);
// How a note says it: information for what is so (a backend without files, a sandbox that is not
// running: Unsupported, Conflict), an error for what went wrong.
InspectorNote::Kind noteKind(const Paddock::Error &error);
QString sizeText(qint64 bytes);
// A time in the local zone, in the language's short format with seconds.
QString timeText(const QDateTime &time);
// A text that is a whole ISO 8601 time with its zone ("2026-12-06T05:39:12.345Z", as a server
// sends it among its details) as timeText() says it; empty for any other text.
QString isoTimeText(const QString &text);
// A time as AgentScope writes it in a transcript ("2026-08-21T09:12:03.418277", the agent's own
// local time, no zone): shown as written, to the second.
QString agentTimeText(const QString &time);
// A count with the language's digit grouping.
QString countText(qint64 count);
// A picture as a preview shows it: one smaller than `least` pixels across made larger by a whole
// factor, its pixels kept sharp (a 4 × 4 chart can be seen); others as they are.
QImage visibleImage(const QImage &image, int least);
// The text shown for a colour role of InspectorItem.
QColor toneColor(InspectorItem::Tone tone, const QPalette &palette);
// Save As for a file of the workspace: asks where (a file dialog over `parent`), then downloads it
// through the session (streamed to a temporary file renamed at the end: a failure leaves nothing).
// Nothing is written to the workspace. `status` hears how it went (not once `parent` is gone).
QCoro::Task<void> saveAs(QWidget *parent, Paddock::Inspect::WorkspaceRef ref, QString path,
                         std::function<void(const QString &)> status);

} // namespace Inspector
