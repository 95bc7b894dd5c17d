#include "sessionspanel.h"

#include "colorscheme.h"
#include "elidedlabel.h"
#include "inspectorimages.h"
#include "profilesession.h"
#include "textpageview.h"
#include "transcriptmodel.h"
#include "transcriptrender.h"
#include "transcriptview.h"

#include <QCoroTask>

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QListView>
#include <QLocale>
#include <QMenu>
#include <QResizeEvent>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

using namespace Paddock;
using namespace Paddock::Inspect;

// ---- SessionListModel

SessionListModel::SessionListModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

SessionListModel::~SessionListModel() = default;

int SessionListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int SessionListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SessionListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case IdColumn:
        return tr("Session");
    case ModifiedColumn:
        return tr("Modified");
    case SizeColumn:
        return tr("Size");
    case LinesColumn:
        return tr("Lines");
    case ToolResultsColumn:
        return tr("Tool Results");
    default:
        return {};
    }
}

QVariant SessionListModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const Row &row = m_rows.at(index.row());
    const SessionSummary &summary = row.summary;
    if (role == SortRole) {
        switch (index.column()) {
        case ModifiedColumn:
            return summary.modified;
        case SizeColumn:
            return summary.filesRead ? summary.size : -1;
        case LinesColumn:
            return summary.lineCount.value_or(-1);
        case ToolResultsColumn:
            return summary.filesRead ? int(summary.toolResults.size()) : -1;
        default:
            return summary.id;
        }
    }
    if (role == Qt::FontRole && index.column() == IdColumn)
        return QFontDatabase::systemFont(QFontDatabase::FixedFont);
    if (role == Qt::TextAlignmentRole && index.column() >= SizeColumn)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole) {
        if (!row.problem.isEmpty())
            return row.problem;
        if (index.column() == IdColumn)
            return summary.id;
        if (index.column() == LinesColumn && summary.filesRead && !summary.context)
            return tr("This session has no context.jsonl: only tool results were offloaded.");
        return {};
    }
    if (role == Qt::ForegroundRole && !row.problem.isEmpty() && index.column() >= SizeColumn)
        return Tones::error();
    if (role != Qt::DisplayRole)
        return {};
    const QString waiting = QStringLiteral("…");
    switch (index.column()) {
    case IdColumn:
        return summary.id;
    case ModifiedColumn:
        return Inspector::timeText(summary.modified);
    case SizeColumn:
        if (summary.filesError)
            return tr("unreadable");
        return summary.filesRead ? Inspector::sizeText(summary.size) : waiting;
    case LinesColumn:
        if (summary.lineCount)
            return Inspector::countText(*summary.lineCount);
        if (row.counting)
            return tr("%1%").arg(int(*row.counting * 100));
        if (summary.filesRead && !summary.context)
            return tr("none");
        return waiting;
    case ToolResultsColumn:
        return summary.filesRead ? Inspector::countText(summary.toolResults.size()) : waiting;
    default:
        return {};
    }
}

void SessionListModel::merge(const QList<SessionSummary> &sessions)
{
    QHash<QString, const SessionSummary *> listed;
    for (const SessionSummary &session : sessions)
        listed.insert(session.id, &session);
    // Gone rows go, in runs from the bottom.
    for (int row = int(m_rows.size()) - 1; row >= 0; --row) {
        if (listed.contains(m_rows.at(row).summary.id))
            continue;
        int first = row;
        while (first > 0 && !listed.contains(m_rows.at(first - 1).summary.id))
            --first;
        beginRemoveRows({}, first, row);
        m_rows.remove(first, row - first + 1);
        endRemoveRows();
        row = first;
    }
    reindex();
    // Rows that stay keep what was read of them unless their folder changed since.
    for (int row = 0; row < m_rows.size(); ++row) {
        Row &kept = m_rows[row];
        const SessionSummary *fresh = listed.value(kept.summary.id);
        const bool folderChanged = fresh->modified != kept.summary.modified;
        if (folderChanged) {
            kept.summary = *fresh;
            kept.problem.clear();
        }
        kept.reading = false;
        kept.counting.reset();
        changed(row);
    }
    QList<Row> added;
    for (const SessionSummary &session : sessions) {
        if (!m_index.contains(session.id))
            added.append(Row{session, false, std::nullopt, {}});
    }
    if (!added.isEmpty()) {
        const int first = int(m_rows.size());
        beginInsertRows({}, first, first + int(added.size()) - 1);
        m_rows.append(added);
        reindex();
        endInsertRows();
    }
}

void SessionListModel::clear()
{
    if (m_rows.isEmpty())
        return;
    beginRemoveRows({}, 0, int(m_rows.size()) - 1);
    m_rows.clear();
    m_index.clear();
    endRemoveRows();
}

void SessionListModel::setFiles(const SessionSummary &summary)
{
    const int row = rowOf(summary.id);
    if (row < 0)
        return;
    Row &kept = m_rows[row];
    const std::optional<qint64> lines = kept.summary.lineCount;
    const bool sameContext = kept.summary.context && summary.context
        && kept.summary.context->size == summary.context->size
        && kept.summary.context->modified == summary.context->modified;
    kept.summary = summary;
    if (sameContext && !kept.summary.lineCount)
        kept.summary.lineCount = lines;
    kept.reading = false;
    kept.problem = summary.filesError ? Inspector::errorText(*summary.filesError) : QString();
    changed(row);
}

void SessionListModel::setReading(const QString &id, bool reading)
{
    if (const int row = rowOf(id); row >= 0 && m_rows.at(row).reading != reading) {
        m_rows[row].reading = reading;
        changed(row, SizeColumn, ToolResultsColumn);
    }
}

void SessionListModel::setCounting(const QString &id, std::optional<double> fraction)
{
    if (const int row = rowOf(id); row >= 0) {
        m_rows[row].counting = fraction;
        changed(row, LinesColumn, LinesColumn);
    }
}

void SessionListModel::setLineCount(const QString &id, qint64 lines)
{
    if (const int row = rowOf(id); row >= 0) {
        m_rows[row].summary.lineCount = lines;
        m_rows[row].counting.reset();
        changed(row, LinesColumn, LinesColumn);
    }
}

void SessionListModel::setProblem(const QString &id, const QString &problem)
{
    if (const int row = rowOf(id); row >= 0) {
        m_rows[row].problem = problem;
        m_rows[row].counting.reset();
        m_rows[row].reading = false;
        changed(row);
    }
}

void SessionListModel::retranslate()
{
    Q_EMIT headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0, 0), index(int(m_rows.size()) - 1, ColumnCount - 1));
}

void SessionListModel::changed(int row, int first, int last)
{
    Q_EMIT dataChanged(index(row, first), index(row, last));
}

void SessionListModel::reindex()
{
    m_index.clear();
    m_index.reserve(m_rows.size());
    for (int row = 0; row < m_rows.size(); ++row)
        m_index.insert(m_rows.at(row).summary.id, row);
}

// ---- SessionsPanel

SessionsPanel::SessionsPanel(QWidget *parent)
    : InspectorPanel(parent)
    , m_note(new InspectorNote(this))
    , m_filter(new QLineEdit(this))
    , m_splitter(new QSplitter(Qt::Vertical, this))
    , m_view(new QTreeView(m_splitter))
    , m_model(new SessionListModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_sessionPane(new QWidget(m_splitter))
    , m_sessionTitle(new ElidedLabel(m_sessionPane))
    , m_fileInfo(new ElidedLabel(m_sessionPane))
    , m_toolResults(new QToolButton(m_sessionPane))
    , m_banner(new InspectorNote(m_sessionPane))
    , m_transcriptNote(new InspectorNote(m_sessionPane))
    , m_transcript(new TranscriptView(m_sessionPane))
    , m_images(new InspectorImages(QSize(360, 240), this))
{
    setObjectName(QStringLiteral("sessionsPanel"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_filter);
    layout->addWidget(m_note);
    layout->addWidget(m_splitter, 1);
    m_filter->setObjectName(QStringLiteral("sessionFilter"));
    m_filter->setClearButtonEnabled(true);

    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(SessionListModel::SortRole);
    m_proxy->setFilterKeyColumn(SessionListModel::IdColumn);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    m_view->setObjectName(QStringLiteral("sessionsView"));
    m_view->setModel(m_proxy);
    m_view->setRootIsDecorated(false);
    m_view->setUniformRowHeights(true);
    m_view->setTextElideMode(Qt::ElideMiddle);
    m_view->setAlternatingRowColors(true);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(SessionListModel::ModifiedColumn, Qt::DescendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->header()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->header()->setStretchLastSection(true);
    const QFontMetrics fixed(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_view->header()->resizeSection(SessionListModel::IdColumn, fixed.horizontalAdvance(QString(20, u'0')) + 12);
    m_view->header()->resizeSection(SessionListModel::ModifiedColumn,
                                    fontMetrics().horizontalAdvance(Inspector::timeText(QDateTime::currentDateTime()))
                                        + 24);

    auto *pane = new QVBoxLayout(m_sessionPane);
    pane->setContentsMargins(0, 4, 0, 0);
    pane->setSpacing(4);
    auto *header = new QHBoxLayout;
    auto *titles = new QVBoxLayout;
    titles->setSpacing(0);
    titles->addWidget(m_sessionTitle);
    titles->addWidget(m_fileInfo);
    header->addLayout(titles, 1);
    header->addWidget(m_toolResults);
    pane->addLayout(header);
    pane->addWidget(m_banner);
    pane->addWidget(m_transcriptNote);
    pane->addWidget(m_transcript, 1);
    QFont bold = m_sessionTitle->font();
    bold.setBold(true);
    m_sessionTitle->setFont(bold);
    m_toolResults->setObjectName(QStringLiteral("toolResultsButton"));
    m_toolResults->setPopupMode(QToolButton::InstantPopup);
    m_toolResults->setMenu(new QMenu(m_toolResults));
    m_toolResults->setEnabled(false);
    m_banner->setObjectName(QStringLiteral("contextBanner"));
    m_transcriptNote->setObjectName(QStringLiteral("transcriptNote"));
    m_transcript->setImages(m_images);
    m_splitter->addWidget(m_view);
    m_splitter->addWidget(m_sessionPane);
    m_splitter->setStretchFactor(0, 1);
    m_splitter->setStretchFactor(1, 3);
    m_splitter->setSizes({1, 3});
    m_splitter->setChildrenCollapsible(false);
    m_sessionPane->hide();

    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &SessionsPanel::currentSessionChanged);
    m_visibleTimer.setSingleShot(true);
    m_visibleTimer.setInterval(100);
    connect(&m_visibleTimer, &QTimer::timeout, this, &SessionsPanel::fetchVisible);
    connect(m_view->verticalScrollBar(), &QScrollBar::valueChanged, &m_visibleTimer, qOverload<>(&QTimer::start));
    connect(m_proxy, &QAbstractItemModel::layoutChanged, &m_visibleTimer, qOverload<>(&QTimer::start));
    connect(m_filter, &QLineEdit::textChanged, &m_visibleTimer, qOverload<>(&QTimer::start));

    connect(m_transcript, &TranscriptView::messageNeeded, this,
            [this](int row, bool whole) { loadMessage(row, whole); });
    connect(m_transcript, &TranscriptView::fileRequested, this, &SessionsPanel::openTextFile);
    connect(m_transcript, &TranscriptView::dataRequested, this, &SessionsPanel::dataFileRequested);
    connect(m_transcript, &TranscriptView::rawRequested, this, &SessionsPanel::showRaw);
    connect(m_transcript, &TranscriptView::imageNeeded, this,
            [this](const QString &path) { m_images->request(workspace(), path); });
    connect(m_images, &InspectorImages::ready, m_transcript, &TranscriptView::imageArrived);
    connect(m_transcript, &TranscriptView::readAgainRequested, this, [this] {
        TranscriptModel *model = m_transcript->model();
        const int last = model->rowCount() - 1;
        if (last < 0 || model->summary(last).kind != TranscriptMessage::Kind::Incomplete)
            return;
        const TranscriptModel::Summary summary = model->summary(last);
        model->removeLast();
        loadTranscript(summary.offset, summary.firstLine - 1);
    });
    connect(m_transcriptNote, &InspectorNote::linkActivated, m_transcript, &TranscriptView::followLink);
    retranslate();
}

SessionsPanel::~SessionsPanel() = default;

void SessionsPanel::clearShown()
{
    m_listSlot.cancel();
    m_rowsSlot.cancel();
    m_transcriptSlot.cancel();
    m_messageSlot.cancel();
    m_rowsRef = {};
    m_filesQueue.clear();
    m_countQueue.clear();
    m_queued.clear();
    m_inFlight = 0;
    m_listed = false;
    m_listError.reset();
    m_session.clear();
    m_transcriptDone = false;
    m_progress.reset();
    m_transcriptError.reset();
    m_model->clear();
    m_transcript->clear();
    m_images->clear();
    m_note->clear();
    m_transcriptNote->clear();
    m_sessionPane->hide();
    if (m_dialog) {
        m_dialog->view()->clear();
        m_dialog->close();
    }
    updateSessionHeader();
}

void SessionsPanel::load()
{
    loadList();
}

QCoro::Task<void> SessionsPanel::loadList()
{
    const QPointer<SessionsPanel> self(this);
    const WorkspaceRef ref = m_listSlot.start(workspace());
    auto sessions = co_await readSessions(ref);
    if (!self || !m_listSlot.isCurrent(ref))
        co_return;
    m_listed = true;
    // Row reads of an older listing stop; the rows in view are read again.
    m_rowsRef = m_rowsSlot.start(workspace());
    m_filesQueue.clear();
    m_countQueue.clear();
    m_queued.clear();
    m_inFlight = 0;
    if (!sessions) {
        m_listError = sessions.error();
        m_note->setNote(Inspector::noteKind(sessions.error()), [error = sessions.error()] {
            return tr("The sessions could not be listed: %1").arg(Inspector::errorText(error));
        });
        co_return;
    }
    m_listError.reset();
    m_model->merge(*sessions);
    if (sessions->isEmpty()) {
        m_note->setNote(InspectorNote::Kind::Info,
                        tr("No session has a folder in sessions/. AgentScope makes one only when it compresses a "
                           "session's context or cuts a tool result, so most sessions have none."));
    } else {
        m_note->clear();
    }
    if (!m_view->currentIndex().isValid() && m_proxy->rowCount() > 0)
        m_view->setCurrentIndex(m_proxy->index(0, 0));
    m_visibleTimer.start();
}

void SessionsPanel::fetchVisible()
{
    if (!m_listed || !hasWorkspace() || !isVisible())
        return;
    const int bottom = m_view->viewport()->height();
    for (QModelIndex index = m_view->indexAt(QPoint(1, 1)); index.isValid(); index = m_view->indexBelow(index)) {
        if (m_view->visualRect(index).top() > bottom)
            break;
        const int row = m_proxy->mapToSource(index).row();
        if (row < 0)
            continue;
        const SessionListModel::Row &entry = m_model->at(row);
        const SessionSummary &summary = entry.summary;
        if (!summary.filesRead) {
            if (!entry.reading && !m_queued.contains(QStringLiteral("f:") + summary.id)) {
                m_queued.insert(QStringLiteral("f:") + summary.id);
                m_filesQueue.append(summary.id);
            }
        } else if (summary.context && !summary.lineCount && !entry.counting && entry.problem.isEmpty()
                   && summary.context->size <= CountLinesUpTo && summary.id != m_session
                   && !m_queued.contains(QStringLiteral("c:") + summary.id)) {
            m_queued.insert(QStringLiteral("c:") + summary.id);
            m_countQueue.append(summary.id);
        }
    }
    pump();
}

void SessionsPanel::pump()
{
    while (m_inFlight < ConcurrentReads && (!m_filesQueue.isEmpty() || !m_countQueue.isEmpty())) {
        if (!m_filesQueue.isEmpty()) {
            const QString id = m_filesQueue.takeFirst();
            const int row = m_model->rowOf(id);
            if (row < 0 || m_model->at(row).summary.filesRead || m_model->at(row).reading) {
                m_queued.remove(QStringLiteral("f:") + id);
                continue;
            }
            ++m_inFlight;
            loadFiles(m_rowsRef, m_model->at(row).summary, true);
        } else {
            const QString id = m_countQueue.takeFirst();
            const int row = m_model->rowOf(id);
            if (row < 0 || m_model->at(row).summary.lineCount || m_model->at(row).counting) {
                m_queued.remove(QStringLiteral("c:") + id);
                continue;
            }
            ++m_inFlight;
            loadLineCount(m_rowsRef, id);
        }
    }
}

QCoro::Task<void> SessionsPanel::loadFiles(WorkspaceRef ref, SessionSummary summary, bool pumped)
{
    const QPointer<SessionsPanel> self(this);
    const QString id = summary.id;
    m_model->setReading(id, true);
    auto files = co_await readSessionFiles(ref, summary);
    if (!self || !m_rowsSlot.isCurrent(ref))
        co_return;
    if (pumped)
        --m_inFlight;
    m_queued.remove(QStringLiteral("f:") + id);
    if (files) {
        m_model->setFiles(*files);
    } else {
        m_model->setProblem(id, Inspector::errorText(files.error()));
    }
    if (id == m_session)
        updateSessionHeader();
    m_visibleTimer.start(); // its line count, if it is small
    pump();
}

QCoro::Task<void> SessionsPanel::loadLineCount(WorkspaceRef ref, QString id)
{
    const QPointer<SessionsPanel> self(this);
    m_model->setCounting(id, 0.0);
    std::function<void(qint64, qint64)> progress = [self, ref, id](qint64 read, qint64 total) {
        if (self && self->m_rowsSlot.isCurrent(ref))
            self->m_model->setCounting(id, total > 0 ? double(read) / double(total) : 0.0);
    };
    auto lines = co_await countContextLines(ref, id, progress);
    if (!self || !m_rowsSlot.isCurrent(ref))
        co_return;
    --m_inFlight;
    m_queued.remove(QStringLiteral("c:") + id);
    if (lines)
        m_model->setLineCount(id, *lines);
    else
        m_model->setProblem(id, Inspector::errorText(lines.error()));
    pump();
}

bool SessionsPanel::selectSession(const QString &id)
{
    const int row = m_model->rowOf(id);
    if (row < 0)
        return false;
    const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
    if (!index.isValid())
        return false;
    m_view->setCurrentIndex(index);
    return true;
}

void SessionsPanel::currentSessionChanged()
{
    const QModelIndex current = m_proxy->mapToSource(m_view->currentIndex());
    const QString id = current.isValid() ? m_model->at(current.row()).summary.id : QString();
    if (id == m_session)
        return;
    m_session = id;
    m_transcriptSlot.cancel();
    m_messageSlot.cancel();
    m_transcript->clear();
    m_transcriptNote->clear();
    m_transcriptDone = false;
    m_progress.reset();
    m_transcriptError.reset();
    m_sessionPane->setVisible(!id.isEmpty());
    if (id.isEmpty()) {
        updateSessionHeader();
        return;
    }
    // Its files first (the tool-result files, its size), whatever is in view.
    const SessionListModel::Row &entry = m_model->at(current.row());
    if (!entry.summary.filesRead && !entry.reading && m_rowsRef.session)
        loadFiles(m_rowsRef, entry.summary, false);
    updateSessionHeader();
    loadTranscript(0, 0);
}

QCoro::Task<void> SessionsPanel::loadTranscript(qint64 offset, int lineBase)
{
    const QPointer<SessionsPanel> self(this);
    const WorkspaceRef ref = m_transcriptSlot.start(workspace());
    const QString session = m_session;
    TranscriptRead read;
    read.sessionId = session;
    read.offset = offset;
    m_transcriptDone = false;
    m_transcriptError.reset();
    updateSessionHeader();
    // Offsets are the file's; line numbers count from where the read began.
    std::function<void(QList<TranscriptMessage>, TranscriptProgress)> onPage =
        [self, ref, lineBase](QList<TranscriptMessage> messages, TranscriptProgress progress) {
            if (!self || !self->m_transcriptSlot.isCurrent(ref))
                return;
            TranscriptModel *model = self->m_transcript->model();
            const bool first = model->rowCount() == 0;
            model->append(std::move(messages), lineBase);
            progress.linesRead += lineBase;
            self->m_progress = progress;
            if (first && model->rowCount() > 0 && self->m_transcript->currentRow() < 0)
                self->m_transcript->setCurrentRow(0);
            self->updateSessionHeader();
        };
    auto result = co_await Inspect::readTranscript(ref, read, onPage);
    if (!self || !m_transcriptSlot.isCurrent(ref))
        co_return;
    m_transcriptDone = true;
    if (!result) {
        m_transcriptError = result.error();
        if (result.error().kind == Error::Kind::NotFound) {
            m_transcriptNote->setNote(InspectorNote::Kind::Info,
                                      tr("This session has no context.jsonl: nothing of its context was compressed "
                                         "out yet (only tool results were offloaded)."));
        } else {
            m_transcriptNote->setNote(InspectorNote::Kind::Error, [error = result.error()] {
                return tr("context.jsonl could not be read: %1").arg(Inspector::errorText(error));
            });
        }
    } else {
        TranscriptProgress done = *result;
        done.linesRead += lineBase;
        m_progress = done;
        if (offset == 0 || lineBase > 0)
            m_model->setLineCount(session, done.linesRead);
        TranscriptModel *model = m_transcript->model();
        const int last = model->rowCount() - 1;
        if (last >= 0 && model->summary(last).kind == TranscriptMessage::Kind::Incomplete) {
            m_transcriptNote->setRichNote(
                InspectorNote::Kind::Warning,
                tr("The last line has no end yet: AgentScope may be writing it. <a href=\"inspect:again\">Read it "
                   "again</a>"));
        } else if (model->rowCount() == 0) {
            m_transcriptNote->setNote(InspectorNote::Kind::Info, tr("context.jsonl is empty."));
        } else {
            m_transcriptNote->clear();
        }
        if (m_transcript->currentRow() < 0 && model->rowCount() > 0)
            m_transcript->setCurrentRow(0);
    }
    updateSessionHeader();
}

QCoro::Task<void> SessionsPanel::loadMessage(int row, bool whole)
{
    const QPointer<SessionsPanel> self(this);
    TranscriptModel *model = m_transcript->model();
    if (row < 0 || row >= model->rowCount())
        co_return;
    const WorkspaceRef ref = m_messageSlot.start(workspace());
    const TranscriptModel::Summary summary = model->summary(row);
    TranscriptRead read;
    read.sessionId = m_session;
    read.offset = summary.offset;
    read.length = summary.spanBytes();
    read.chunkSize = std::max<qint64>(64 * 1024, std::min<qint64>(read.length, 8 * 1024 * 1024));
    if (whole)
        read.options.maxTextBytes = 8 * 1024 * 1024;
    auto found = std::make_shared<std::optional<TranscriptMessage>>();
    std::function<void(QList<TranscriptMessage>, TranscriptProgress)> onPage =
        [found](QList<TranscriptMessage> messages, TranscriptProgress) {
            for (TranscriptMessage &message : messages) {
                if (!found->has_value())
                    *found = std::move(message);
            }
        };
    auto result = co_await Inspect::readTranscript(ref, read, onPage);
    if (!self || !m_messageSlot.isCurrent(ref))
        co_return;
    if (!result || !found->has_value()) {
        const QString why =
            result ? tr("the line is no longer where it was (the file changed)") : Inspector::errorText(result.error());
        m_transcript->messageFailed(
            row, tr("Line %1 could not be read again: %2").arg(QLocale().toString(summary.firstLine), why));
        co_return;
    }
    model->store(row, std::move(**found));
    m_transcript->messageArrived(row);
}

void SessionsPanel::showRaw(int row)
{
    TranscriptModel *model = m_transcript->model();
    if (row < 0 || row >= model->rowCount() || m_session.isEmpty())
        return;
    const TranscriptModel::Summary &summary = model->summary(row);
    const QString path = QStringLiteral("sessions/%1/context.jsonl").arg(m_session);
    if (!m_dialog)
        m_dialog = new TextPageDialog(this);
    m_dialog->view()->setRedact(redact());
    connect(m_dialog->view(), &TextPageView::dataRequested, this, &SessionsPanel::dataFileRequested,
            Qt::UniqueConnection);
    m_dialog->showFile(workspace(), path, summary.offset, summary.spanBytes(),
                       tr("Line %1 of %2").arg(QLocale().toString(summary.firstLine), path));
}

void SessionsPanel::openTextFile(const QString &path)
{
    if (!hasWorkspace())
        return;
    if (!m_dialog)
        m_dialog = new TextPageDialog(this);
    m_dialog->view()->setRedact(redact());
    connect(m_dialog->view(), &TextPageView::dataRequested, this, &SessionsPanel::dataFileRequested,
            Qt::UniqueConnection);
    m_dialog->showFile(workspace(), path, 0, -1, tr("Tool result: %1").arg(path));
}

void SessionsPanel::updateSessionHeader()
{
    QMenu *menu = m_toolResults->menu();
    menu->clear();
    if (m_session.isEmpty()) {
        m_sessionTitle->setText(QString());
        m_fileInfo->setText(QString());
        m_toolResults->setEnabled(false);
        m_toolResults->setText(tr("Tool Results"));
        return;
    }
    m_sessionTitle->setText(tr("Session %1").arg(m_session));
    const int row = m_model->rowOf(m_session);
    const SessionSummary *summary = row >= 0 ? &m_model->at(row).summary : nullptr;
    if (summary && summary->filesRead) {
        for (const FileEntry &file : summary->toolResults) {
            const QString path = QStringLiteral("sessions/%1/%2").arg(m_session, file.name);
            QAction *action = menu->addAction(tr("%1 (%2)").arg(file.name, Inspector::sizeText(file.size)));
            connect(action, &QAction::triggered, this, [this, path] { openTextFile(path); });
        }
    }
    const int toolResults = summary && summary->filesRead ? int(summary->toolResults.size()) : 0;
    m_toolResults->setText(tr("Tool Results (%1)").arg(toolResults));
    m_toolResults->setEnabled(toolResults > 0);
    m_toolResults->setToolTip(tr("Open a tool-result file: what AgentScope cut from a tool result to fit the "
                                 "context"));

    const QLocale locale;
    const int messages = m_transcript->model()->rowCount();
    QString info;
    if (m_progress && !m_transcriptDone) {
        info = tr("context.jsonl: reading, %1 of %2, %n message(s) so far", nullptr, messages)
                   .arg(Inspector::sizeText(m_progress->bytesRead), Inspector::sizeText(m_progress->totalSize));
    } else if (m_progress && m_transcriptDone) {
        info = tr("context.jsonl: %1, %2 lines, %n message(s)", nullptr, messages)
                   .arg(Inspector::sizeText(m_progress->totalSize), locale.toString(m_progress->linesRead));
    } else if (!m_transcriptDone) {
        info = tr("context.jsonl: reading…");
    } else if (m_transcriptError) {
        info = tr("context.jsonl: not read");
    }
    m_fileInfo->setText(info);
}

void SessionsPanel::redactChanged()
{
    m_transcript->setRedact(redact());
    if (m_dialog)
        m_dialog->view()->setRedact(redact());
}

void SessionsPanel::retranslate()
{
    m_filter->setPlaceholderText(tr("Filter sessions by id"));
    m_filter->setAccessibleName(tr("Filter sessions"));
    m_banner->setNote(InspectorNote::Kind::Info, TranscriptRender::banner());
    m_model->retranslate();
    updateSessionHeader();
}

void SessionsPanel::resizeEvent(QResizeEvent *event)
{
    InspectorPanel::resizeEvent(event);
    // Side by side when the dock is wide (at the bottom), else one above the other.
    m_splitter->setOrientation(width() > 1.6 * height() && width() > 1100 ? Qt::Horizontal : Qt::Vertical);
    m_visibleTimer.start();
}
