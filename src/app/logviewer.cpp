#include "logviewer.h"

#include "elidedlabel.h"
#include "logmodel.h"

#include <QCoroFuture>
#include <QCoroTask>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QDir>
#include <QEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QSaveFile>
#include <QScrollBar>
#include <QSpinBox>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QTextLayout>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent>

using namespace Paddock;

namespace {

// Paints the text column with the search's matches highlighted, and a dashed rule above a row
// whose previous lines a filter hid.
class LogLineDelegate final : public QStyledItemDelegate
{
public:
    LogLineDelegate(LogModel *model, QObject *parent)
        : QStyledItemDelegate(parent)
        , m_model(model)
    {
    }

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        if (index.column() != LogModel::TextColumn || m_model->matcher().isEmpty()) {
            QStyledItemDelegate::paint(painter, option, index);
        } else {
            QStyleOptionViewItem opt = option;
            initStyleOption(&opt, index);
            const QString text = opt.text;
            opt.text.clear();
            const QWidget *widget = option.widget;
            QStyle *style = widget ? widget->style() : QApplication::style();
            style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);
            const QRect textRect = style->subElementRect(QStyle::SE_ItemViewItemText, &opt, widget);
            QList<QTextLayout::FormatRange> formats;
            QTextCharFormat found;
            found.setBackground(QColor(0xf6, 0xd3, 0x2d));
            found.setForeground(QColor(Qt::black));
            for (const auto &[start, length] : m_model->matcher().ranges(text))
                formats.append({int(start), int(length), found});
            QTextLayout layout(text, opt.font, painter->device());
            QTextOption textOption;
            textOption.setWrapMode(QTextOption::NoWrap);
            layout.setTextOption(textOption);
            layout.setFormats(formats);
            layout.beginLayout();
            QTextLine line = layout.createLine();
            if (line.isValid())
                line.setLineWidth(1e6);
            layout.endLayout();
            painter->save();
            painter->setClipRect(textRect);
            const bool selected = opt.state & QStyle::State_Selected;
            painter->setPen(opt.palette.color(QPalette::Normal, selected ? QPalette::HighlightedText : QPalette::Text));
            if (!selected) {
                if (const QVariant pen = index.data(Qt::ForegroundRole); pen.isValid())
                    painter->setPen(pen.value<QColor>());
            }
            const qreal y = textRect.top() + (textRect.height() - line.height()) / 2;
            layout.draw(painter, QPointF(textRect.left(), y));
            painter->restore();
        }
        if (index.data(LogModel::GapBeforeRole).toBool()) {
            painter->save();
            QPen pen(option.palette.color(QPalette::Mid));
            pen.setStyle(Qt::DashLine);
            painter->setPen(pen);
            painter->drawLine(option.rect.topLeft(), option.rect.topRight());
            painter->restore();
        }
    }

private:
    LogModel *m_model;
};

// The lines. Going to another line (a click, the arrow keys, a jump to a match) never scrolls
// sideways: the text column is as wide as the widest line, and QTableView would scroll to the
// start of it, or with PositionAtCenter to its middle, which for most lines is empty.
class LogTableView final : public QTableView
{
public:
    using QTableView::QTableView;

    void scrollTo(const QModelIndex &index, ScrollHint hint) override
    {
        QScrollBar *bar = horizontalScrollBar();
        const int x = bar->value();
        QTableView::scrollTo(index, hint);
        if (index.column() == LogModel::TextColumn)
            bar->setValue(x);
    }
};

} // namespace

LogViewer::LogViewer(const QString &path, QWidget *parent)
    : QWidget(parent)
    , m_model(new LogModel(path, this))
    , m_view(new LogTableView(this))
    , m_search(new QLineEdit(this))
    , m_regex(new QCheckBox(this))
    , m_case(new QCheckBox(this))
    , m_filter(new QCheckBox(this))
    , m_contextLabel(new QLabel(this))
    , m_context(new QSpinBox(this))
    , m_previousButton(new QToolButton(this))
    , m_nextButton(new QToolButton(this))
    , m_matches(new ElidedLabel(this))
    , m_note(new QLabel(this))
    , m_status(new ElidedLabel(this))
    , m_findAction(new QAction(this))
    , m_previousAction(new QAction(this))
    , m_nextAction(new QAction(this))
    , m_followAction(new QAction(this))
    , m_lineNumbersAction(new QAction(this))
    , m_timestampsAction(new QAction(this))
    , m_copyAction(new QAction(this))
    , m_exportAction(new QAction(this))
{
    m_view->setModel(m_model);
    m_view->setItemDelegate(new LogLineDelegate(m_model, m_view));
    m_view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_view->setShowGrid(false);
    m_view->setWordWrap(false);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    m_view->setVerticalScrollMode(QAbstractItemView::ScrollPerItem);
    m_view->setTextElideMode(Qt::ElideNone);
    m_view->setCornerButtonEnabled(false);
    m_view->horizontalHeader()->hide();
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_view->horizontalHeader()->setHighlightSections(false);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 2);
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);
    const QFontMetrics metrics(m_view->font());
    m_view->setColumnWidth(LogModel::LineColumn, metrics.horizontalAdvance(QStringLiteral("00000000")) + 8);
    m_view->setColumnWidth(LogModel::TimeColumn,
                           metrics.horizontalAdvance(QStringLiteral("0000-00-00 00:00:00.000")) + 16);

    m_search->setClearButtonEnabled(true);
    m_context->setRange(0, 99);
    m_context->setValue(2);
    m_contextLabel->setBuddy(m_context);
    m_note->setWordWrap(true);
    // Not as wide as its longest word: a long path in a note cannot widen the window.
    m_note->setMinimumWidth(1);
    m_note->setAutoFillBackground(true);
    m_note->setContentsMargins(8, 4, 8, 4);
    m_note->setTextInteractionFlags(Qt::TextSelectableByMouse);
    {
        QPalette palette = m_note->palette();
        palette.setColor(QPalette::Window, QColor(0xfd, 0xf3, 0xd0));
        palette.setColor(QPalette::WindowText, QColor(0x3d, 0x2e, 0x00));
        m_note->setPalette(palette);
    }
    m_note->hide();
    m_matches->setObjectName(QStringLiteral("matches"));
    m_matches->setMinimumWidth(metrics.horizontalAdvance(QStringLiteral("0000000 / 0000000")));
    m_status->setObjectName(QStringLiteral("status"));

    m_previousAction->setShortcuts(
        {QKeySequence(Qt::SHIFT | Qt::Key_F3), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_G)});
    m_nextAction->setShortcuts({QKeySequence(Qt::Key_F3), QKeySequence(Qt::CTRL | Qt::Key_G)});
    m_followAction->setCheckable(true);
    m_followAction->setChecked(true);
    m_lineNumbersAction->setCheckable(true);
    m_lineNumbersAction->setChecked(true);
    m_timestampsAction->setCheckable(true);
    m_timestampsAction->setChecked(true);
    m_copyAction->setShortcut(QKeySequence::Copy);
    m_exportAction->setShortcut(QKeySequence::Save);
    m_findAction->setShortcut(QKeySequence::Find);
    for (QAction *action : {m_findAction, m_previousAction, m_nextAction, m_followAction, m_lineNumbersAction,
                            m_timestampsAction, m_copyAction, m_exportAction}) {
        action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        addAction(action);
    }
    m_view->addActions({m_copyAction, m_exportAction});
    m_previousButton->setDefaultAction(m_previousAction);
    m_nextButton->setDefaultAction(m_nextAction);
    m_previousButton->setArrowType(Qt::UpArrow);
    m_nextButton->setArrowType(Qt::DownArrow);

    auto *searchRow = new QHBoxLayout;
    searchRow->addWidget(m_search, 1);
    searchRow->addWidget(m_previousButton);
    searchRow->addWidget(m_nextButton);
    searchRow->addWidget(m_matches);
    searchRow->addWidget(m_regex);
    searchRow->addWidget(m_case);
    searchRow->addWidget(m_filter);
    searchRow->addWidget(m_contextLabel);
    searchRow->addWidget(m_context);
    auto *toggleRow = new QHBoxLayout;
    for (QAction *action : {m_followAction, m_lineNumbersAction, m_timestampsAction, m_copyAction, m_exportAction}) {
        auto *button = new QToolButton(this);
        button->setDefaultAction(action);
        button->setToolButtonStyle(Qt::ToolButtonTextOnly);
        button->setAutoRaise(true);
        toggleRow->addWidget(button);
        m_toggleButtons.append(button);
    }
    toggleRow->addStretch(1);
    toggleRow->addWidget(m_status);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(searchRow);
    layout->addWidget(m_note);
    layout->addWidget(m_view, 1);
    layout->addLayout(toggleRow);
    setFocusProxy(m_view);

    m_searchDelay.setSingleShot(true);
    m_searchDelay.setInterval(250);
    connect(&m_searchDelay, &QTimer::timeout, this, &LogViewer::applySearch);
    connect(m_search, &QLineEdit::textChanged, this, [this] { m_searchDelay.start(); });
    connect(m_search, &QLineEdit::returnPressed, this, [this] {
        if (m_searchDelay.isActive())
            applySearch();
        const bool back = QApplication::keyboardModifiers() & Qt::ShiftModifier;
        back ? findPrevious() : findNext();
    });
    connect(m_regex, &QCheckBox::toggled, this, &LogViewer::applySearch);
    connect(m_case, &QCheckBox::toggled, this, &LogViewer::applySearch);
    connect(m_filter, &QCheckBox::toggled, this, [this](bool on) { setFilter(on, m_context->value()); });
    connect(m_context, &QSpinBox::valueChanged, this, [this](int context) {
        if (m_filter->isChecked())
            setFilter(true, context);
    });
    connect(m_findAction, &QAction::triggered, this, [this] {
        m_search->setFocus(Qt::ShortcutFocusReason);
        m_search->selectAll();
    });
    connect(m_previousAction, &QAction::triggered, this, &LogViewer::findPrevious);
    connect(m_nextAction, &QAction::triggered, this, &LogViewer::findNext);
    connect(m_followAction, &QAction::toggled, this, &LogViewer::setFollowing);
    connect(m_lineNumbersAction, &QAction::toggled, this, &LogViewer::setLineNumbersVisible);
    connect(m_timestampsAction, &QAction::toggled, this, &LogViewer::setTimestampsVisible);
    connect(m_copyAction, &QAction::triggered, this, &LogViewer::copySelection);
    connect(m_exportAction, &QAction::triggered, this, &LogViewer::exportInteractively);

    QScrollBar *bar = m_view->verticalScrollBar();
    connect(bar, &QScrollBar::rangeChanged, this, &LogViewer::scrollRangeChanged);
    connect(bar, &QScrollBar::valueChanged, this, &LogViewer::scrollValueChanged);

    connect(m_model, &LogModel::linesAdded, this, [this] {
        if (!m_widthDelay.isActive())
            m_widthDelay.start();
        updateStatus();
    });
    connect(m_model, &LogModel::readingChanged, this, &LogViewer::updateStatus);
    connect(m_model, &LogModel::readFailed, this, &LogViewer::updateNote);
    connect(m_model, &LogModel::odditiesChanged, this, &LogViewer::updateNote);
    connect(m_model, &LogModel::searchChanged, this, [this] {
        updateMatchText();
        jumpToNewSearch();
    });
    connect(m_model, &QAbstractItemModel::modelAboutToBeReset, this, [this] { m_lineBeforeReset = currentLine(); });
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        if (m_following) {
            m_view->scrollToBottom();
        } else if (m_lineBeforeReset >= 0) {
            const int row = m_model->rowFor(m_lineBeforeReset);
            if (row >= 0) {
                const QModelIndex index = m_model->index(row, LogModel::TextColumn);
                m_view->selectionModel()->setCurrentIndex(
                    index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
                m_view->scrollTo(index, QAbstractItemView::PositionAtCenter);
            }
        }
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &LogViewer::updateMatchText);

    m_widthDelay.setSingleShot(true);
    m_widthDelay.setInterval(100);
    connect(&m_widthDelay, &QTimer::timeout, this, &LogViewer::updateTextWidth);
    m_poll.setInterval(500);
    connect(&m_poll, &QTimer::timeout, this, &LogViewer::refresh);
    m_poll.start();

    retranslate();
    m_model->refresh();
    updateNote();
}

LogViewer::~LogViewer() = default;

void LogViewer::retranslate()
{
    m_search->setPlaceholderText(tr("Search the log"));
    m_search->setAccessibleName(tr("Search the log"));
    m_search->setToolTip(
        tr("Matching text is highlighted. Enter goes to the next match, Shift+Enter to the previous."));
    m_regex->setText(tr("Regular e&xpression"));
    m_case->setText(tr("Match c&ase"));
    m_filter->setText(tr("Only matc&hing lines"));
    m_filter->setToolTip(tr("Show only the lines that match, with the lines of context around them."));
    m_contextLabel->setText(tr("Con&text:"));
    m_context->setAccessibleName(tr("Context lines"));
    m_context->setToolTip(tr("Lines shown before and after each matching line."));
    m_findAction->setText(tr("Find"));
    m_previousAction->setText(tr("Previous Match"));
    m_previousAction->setToolTip(tr("Previous match (Shift+F3)"));
    m_nextAction->setText(tr("Next Match"));
    m_nextAction->setToolTip(tr("Next match (F3)"));
    m_followAction->setText(tr("Fo&llow"));
    m_followAction->setToolTip(
        tr("Keep the newest lines in view. Scrolling up stops following; scrolling to the end resumes it."));
    m_lineNumbersAction->setText(tr("Line &Numbers"));
    m_lineNumbersAction->setToolTip(tr("Show line numbers"));
    m_timestampsAction->setText(tr("Ti&mestamps"));
    m_timestampsAction->setToolTip(tr("Show when each line was written (local time)"));
    m_copyAction->setText(tr("&Copy"));
    m_copyAction->setToolTip(tr("Copy the selected lines (Ctrl+C)"));
    m_exportAction->setText(tr("&Export…"));
    m_exportAction->setToolTip(tr("Save the whole log to a file (Ctrl+S)"));
    m_view->setAccessibleName(tr("Log lines"));
    if (m_sourceStateText)
        m_sourceState = m_sourceStateText();
    m_model->retranslate();
    updateNote();
    updateStatus();
    updateMatchText();
}

void LogViewer::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange || event->type() == QEvent::LocaleChange)
        retranslate();
    QWidget::changeEvent(event);
}

void LogViewer::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    updateTextWidth();
}

void LogViewer::refresh()
{
    m_model->refresh();
    const bool deleted = m_model->isDeleted();
    if (deleted != m_deleted) {
        m_deleted = deleted;
        updateNote();
    }
}

void LogViewer::setSourceState(const QString &text)
{
    m_sourceStateText = nullptr;
    m_sourceState = text;
    updateStatus();
}

void LogViewer::setSourceStateFrom(std::function<QString()> text)
{
    m_sourceStateText = std::move(text);
    m_sourceState = m_sourceStateText ? m_sourceStateText() : QString();
    updateStatus();
}

void LogViewer::setSearch(const QString &text, bool regex, bool caseSensitive)
{
    const QSignalBlocker blockText(m_search);
    const QSignalBlocker blockRegex(m_regex);
    const QSignalBlocker blockCase(m_case);
    m_search->setText(text);
    m_regex->setChecked(regex);
    m_case->setChecked(caseSensitive);
    applySearch();
}

void LogViewer::applySearch()
{
    m_searchDelay.stop();
    const Result<LogMatcher> matcher = LogMatcher::make(m_search->text(), m_regex->isChecked(), m_case->isChecked());
    if (!matcher) {
        // Keep the last good search; say what is wrong with this one.
        m_searchError = matcher.error().message;
        m_search->setStyleSheet(QStringLiteral("QLineEdit { border: 1px solid #c01c28; }"));
        m_search->setToolTip(m_searchError);
        updateMatchText();
        return;
    }
    m_searchError.clear();
    m_search->setStyleSheet({});
    m_search->setToolTip(
        tr("Matching text is highlighted. Enter goes to the next match, Shift+Enter to the previous."));
    if (!(*matcher == m_model->matcher())) {
        // A new search goes to its first match from here, once (see jumpToNewSearch).
        m_jumpPending = !matcher->isEmpty();
        m_jumpFrom = std::max<qsizetype>(currentLine(), 0);
        m_jumpLines = m_model->lineCount();
    }
    m_model->setMatcher(*matcher);
    m_view->viewport()->update();
    updateMatchText();
    jumpToNewSearch();
}

void LogViewer::jumpToNewSearch()
{
    if (!m_jumpPending)
        return;
    // Matches come in order, each batch complete up to where it was searched: the first one at
    // or after the line is the one to go to as soon as it is there.
    const std::vector<qsizetype> &matches = m_model->matches();
    const auto at = std::lower_bound(matches.begin(), matches.end(), m_jumpFrom);
    if (at != matches.end()) {
        goToLine(*at);
        return;
    }
    // None after it in the lines the log had when the search was made: the first, if any. Lines
    // that come later do not move the view.
    if (m_model->isSearching() && m_model->searchedLines() < m_jumpLines)
        return;
    m_jumpPending = false;
    if (!matches.empty())
        goToLine(matches.front());
}

void LogViewer::setFilter(bool on, int context)
{
    {
        const QSignalBlocker blockFilter(m_filter);
        const QSignalBlocker blockContext(m_context);
        m_filter->setChecked(on);
        m_context->setValue(context);
    }
    m_model->setFilter(on, context);
    updateStatus();
}

qsizetype LogViewer::currentLine() const
{
    const QModelIndex current = m_view->currentIndex();
    return current.isValid() ? m_model->lineAt(current.row()) : -1;
}

void LogViewer::goToLine(qsizetype line)
{
    m_jumpPending = false;
    const int row = m_model->rowFor(line);
    if (row < 0)
        return;
    const QModelIndex index = m_model->index(row, LogModel::TextColumn);
    m_view->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_view->scrollTo(index, QAbstractItemView::PositionAtCenter);
    revealMatch(row);
    // A match away from the end is read where it is: following would pull the view away.
    if (row < m_model->rowCount() - 1)
        updateFollowing(false);
    updateMatchText();
}

void LogViewer::revealMatch(int row)
{
    const QModelIndex index = m_model->index(row, LogModel::TextColumn);
    const QString text = index.data().toString();
    const std::vector<std::pair<qsizetype, qsizetype>> ranges = m_model->matcher().ranges(text, 1);
    if (ranges.empty())
        return; // past what is shown of a long line: nothing to bring into view
    QFont font = m_view->font();
    if (const QVariant own = index.data(Qt::FontRole); own.isValid())
        font = qvariant_cast<QFont>(own).resolve(font);
    const QFontMetrics metrics(font);
    // As the delegate draws it: the item's text margin, then the text.
    const int margin = m_view->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, m_view) + 1;
    QScrollBar *bar = m_view->horizontalScrollBar();
    const int textLeft = m_view->columnViewportPosition(LogModel::TextColumn) + bar->value() + margin;
    const auto [first, length] = ranges.front();
    const int start = textLeft + metrics.horizontalAdvance(text.left(first));
    const int end = start + metrics.horizontalAdvance(text.mid(first, length));
    const int width = m_view->viewport()->width();
    if (start >= bar->value() && end <= bar->value() + width)
        return; // in view where the user left it
    // The start of the line when the match fits with it, else the match a third into the view.
    bar->setValue(end <= width - margin ? 0 : start - width / 3);
}

void LogViewer::findNext()
{
    const std::vector<qsizetype> &matches = m_model->matches();
    if (matches.empty())
        return;
    const auto next = std::upper_bound(matches.begin(), matches.end(), currentLine());
    goToLine(next == matches.end() ? matches.front() : *next);
}

void LogViewer::findPrevious()
{
    const std::vector<qsizetype> &matches = m_model->matches();
    if (matches.empty())
        return;
    const qsizetype current = currentLine() < 0 ? m_model->lineCount() : currentLine();
    const auto previous = std::lower_bound(matches.begin(), matches.end(), current);
    goToLine(previous == matches.begin() ? matches.back() : *std::prev(previous));
}

void LogViewer::setFollowing(bool follow)
{
    // The newest lines, from their start.
    if (follow)
        m_view->horizontalScrollBar()->setValue(0);
    updateFollowing(follow);
}

void LogViewer::updateFollowing(bool follow)
{
    if (follow == m_following)
        return;
    m_following = follow;
    {
        const QSignalBlocker block(m_followAction);
        m_followAction->setChecked(follow);
    }
    if (follow)
        m_view->scrollToBottom();
    updateStatus();
    Q_EMIT followingChanged(follow);
}

void LogViewer::scrollRangeChanged(int /*min*/, int max)
{
    if (m_following)
        m_view->verticalScrollBar()->setValue(max);
}

void LogViewer::scrollValueChanged(int value)
{
    // A model reset scrolls to the top on its own; that is not the user.
    if (m_model->rowCount() == 0)
        return;
    updateFollowing(value >= m_view->verticalScrollBar()->maximum());
}

void LogViewer::setLineNumbersVisible(bool visible)
{
    m_view->setColumnHidden(LogModel::LineColumn, !visible);
    const QSignalBlocker block(m_lineNumbersAction);
    m_lineNumbersAction->setChecked(visible);
    updateTextWidth();
}

void LogViewer::setTimestampsVisible(bool visible)
{
    m_view->setColumnHidden(LogModel::TimeColumn, !visible);
    const QSignalBlocker block(m_timestampsAction);
    m_timestampsAction->setChecked(visible);
    updateTextWidth();
}

void LogViewer::updateTextWidth()
{
    const QFontMetrics metrics(m_view->font());
    int others = 0;
    for (int column : {int(LogModel::LineColumn), int(LogModel::TimeColumn)}) {
        if (!m_view->isColumnHidden(column))
            others += m_view->columnWidth(column);
    }
    // A monospaced font: the widest line's bytes are about its characters.
    const int wanted = int(std::min<qsizetype>(m_model->widestLine() + 4, LogModel::DisplayBytes + 4))
            * metrics.horizontalAdvance(u'0')
        + 16;
    m_view->setColumnWidth(LogModel::TextColumn, std::max(wanted, m_view->viewport()->width() - others));
}

QString LogViewer::selectedText() const
{
    QList<int> rows;
    for (const QItemSelectionRange &range : m_view->selectionModel()->selection()) {
        for (int row = range.top(); row <= range.bottom(); ++row)
            rows.append(row);
    }
    if (rows.isEmpty() && m_view->currentIndex().isValid())
        rows.append(m_view->currentIndex().row());
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    const bool numbers = !m_view->isColumnHidden(LogModel::LineColumn);
    const bool times = !m_view->isColumnHidden(LogModel::TimeColumn);
    QString text;
    for (const int row : std::as_const(rows))
        text += m_model->lineText(m_model->lineAt(row), numbers, times) + u'\n';
    return text;
}

void LogViewer::copySelection()
{
    const QString text = selectedText();
    if (!text.isEmpty())
        QApplication::clipboard()->setText(text);
}

QCoro::Task<Result<>> LogViewer::exportTo(QString path)
{
    const QString source = m_model->readablePath();
    const auto copy = [source, path]() -> Result<> {
        QFile in(source);
        if (!in.open(QIODevice::ReadOnly))
            return fail(Error::io(tr("Cannot read the log: %1").arg(in.errorString())));
        QSaveFile out(path);
        if (!out.open(QIODevice::WriteOnly))
            return fail(Error::io(tr("Cannot write %1: %2").arg(path, out.errorString())));
        QByteArray buffer;
        while (!(buffer = in.read(4 * 1024 * 1024)).isEmpty()) {
            if (out.write(buffer) != buffer.size())
                return fail(Error::io(tr("Cannot write %1: %2").arg(path, out.errorString())));
        }
        if (in.error() != QFileDevice::NoError)
            return fail(Error::io(tr("Cannot read the log: %1").arg(in.errorString())));
        if (!out.commit())
            return fail(Error::io(tr("Cannot write %1: %2").arg(path, out.errorString())));
        return {};
    };
    QPointer<LogViewer> self(this);
    Result<> result = co_await QtConcurrent::run(copy);
    if (self) {
        // Said in the language of the moment (updateStatus), unless it is the failure's own message.
        self->m_exportedTo = result ? path : QString();
        self->m_exportMessage = result ? QString() : result.error().message;
        self->updateStatus();
    }
    co_return result;
}

void LogViewer::exportInteractively()
{
    const QString suggested = QFileInfo(m_model->path()).fileName();
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export Log"), suggested, tr("Log files (*.log *.txt);;All files (*)"));
    if (path.isEmpty())
        return;
    [](QPointer<LogViewer> self, QString target) -> QCoro::Task<void> {
        const Result<> result = co_await self->exportTo(target);
        if (!result && self)
            QMessageBox::warning(self, tr("Export Log"), result.error().message);
    }(this, path);
}

QString LogViewer::noteText() const
{
    return m_note->text();
}

void LogViewer::setAbsentText(std::function<QString()> text)
{
    m_absentText = std::move(text);
    updateNote();
}

void LogViewer::updateNote()
{
    QStringList notes;
    if (!m_model->readError().isEmpty()) {
        // A file that is not there (yet) is said in words, not as the system's error.
        if (!QFileInfo::exists(m_model->path()))
            notes << (m_absentText ? m_absentText()
                                   : tr("There is no log file %1 yet: it is shown as soon as it appears.")
                                         .arg(QDir::toNativeSeparators(m_model->path())));
        else
            notes << m_model->readError();
    }
    if (m_deleted)
        notes << tr("The log file has been deleted or replaced. What was read is still shown, and Export saves it.");
    const LogModel::Oddities odd = m_model->oddities();
    if (odd.invalidUtf8)
        notes << tr("Some lines are not valid UTF-8: the bytes that are not are shown as \uFFFD.");
    if (odd.nul)
        notes << tr("Some lines contain NUL bytes, shown as ^@.");
    if (odd.longLine) {
        notes << tr("Some lines are too long to show whole: the first %1 of each are shown. Copy and Export give all "
                    "of it.")
                     .arg(QLocale().formattedDataSize(LogModel::DisplayBytes));
    }
    m_note->setText(notes.join(u' '));
    m_note->setVisible(!notes.isEmpty());
}

QString LogViewer::statusText() const
{
    return m_status->text();
}

void LogViewer::updateStatus()
{
    const QLocale here;
    QStringList parts;
    parts << tr("%n line(s)", nullptr, int(std::min<qsizetype>(m_model->lineCount(), INT_MAX)))
          << here.formattedDataSize(m_model->byteCount());
    if (m_model->isReading() && m_model->fileSize() > 0) {
        const qint64 total = std::max(m_model->fileSize(), m_model->byteCount());
        parts << tr("reading… %1%").arg(total > 0 ? m_model->byteCount() * 100 / total : 100);
    }
    if (m_model->isFiltered() && !m_model->matcher().isEmpty())
        parts << tr("%n line(s) shown", nullptr, m_model->rowCount());
    parts << (m_following ? tr("following") : tr("not following"));
    if (!m_sourceState.isEmpty())
        parts << m_sourceState;
    if (!m_exportedTo.isEmpty())
        parts << tr("Exported the whole log to %1.").arg(QDir::toNativeSeparators(m_exportedTo));
    if (!m_exportMessage.isEmpty())
        parts << m_exportMessage;
    m_status->setText(parts.join(QStringLiteral(" · ")));
}

QString LogViewer::matchText() const
{
    return m_matches->text();
}

void LogViewer::updateMatchText()
{
    if (!m_searchError.isEmpty()) {
        m_matches->setText(tr("Invalid pattern"));
        m_matches->setToolTip(m_searchError);
        m_matches->setAccessibleDescription(m_searchError);
        return;
    }
    const std::vector<qsizetype> &matches = m_model->matches();
    if (m_model->matcher().isEmpty()) {
        m_matches->clear();
        return;
    }
    const QLocale here;
    const int count = int(std::min<size_t>(matches.size(), INT_MAX));
    QString text;
    const auto at = std::lower_bound(matches.begin(), matches.end(), currentLine());
    if (at != matches.end() && *at == currentLine())
        text = tr("%1 of %n match(es)", nullptr, count).arg(here.toString(qint64(at - matches.begin()) + 1));
    else if (count > 0 || m_model->isSearching())
        text = tr("%n match(es)", nullptr, count);
    else
        text = tr("No matches");
    if (m_model->isSearching() && m_model->lineCount() > 0) {
        text += u' '
            + tr("(searching… %1%)").arg(std::min<qint64>(99, m_model->searchedLines() * 100 / m_model->lineCount()));
    }
    m_matches->setText(text);
    if (m_model->isFiltered())
        updateStatus();
}
