#include "inspectorsupport.h"

#include "colorscheme.h"
#include "dialogwait.h"
#include "profilesession.h"

#include <QCoroTask>

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHash>
#include <QLabel>
#include <QLocale>
#include <QRegularExpression>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QStyle>

using namespace Paddock;
using namespace Paddock::Inspect;

ReadSlot::~ReadSlot()
{
    cancel();
}

WorkspaceRef ReadSlot::start(const WorkspaceRef &base)
{
    cancel();
    m_token = std::make_shared<CancelToken>();
    WorkspaceRef ref = base;
    ref.cancel = m_token;
    if (base.cancel) {
        m_parent = base.cancel;
        const std::weak_ptr<CancelToken> token = m_token;
        m_callback = base.cancel->onCancel([token] {
            if (const auto alive = token.lock())
                alive->cancel();
        });
    } else {
        m_token->cancel(); // no selection: nothing to read
    }
    return ref;
}

void ReadSlot::cancel()
{
    if (const auto parent = m_parent.lock(); parent && m_callback != 0)
        parent->remove(m_callback);
    m_parent.reset();
    m_callback = 0;
    if (m_token)
        m_token->cancel();
    m_token.reset();
}

bool ReadSlot::isCurrent(const WorkspaceRef &ref) const
{
    return m_token && ref.cancel == m_token && !m_token->isCancelled();
}

InspectorNote::InspectorNote(QWidget *parent)
    : QFrame(parent)
    , m_icon(new QLabel(this))
    , m_text(new QLabel(this))
{
    setObjectName(QStringLiteral("inspectorNote"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 6);
    layout->setSpacing(8);
    layout->addWidget(m_icon, 0, Qt::AlignTop);
    layout->addWidget(m_text, 1);
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse
                                    | Qt::LinksAccessibleByKeyboard);
    m_text->setOpenExternalLinks(false);
    connect(m_text, &QLabel::linkActivated, this, &InspectorNote::linkActivated);
    setFrameShape(QFrame::StyledPanel);
    hide();
}

InspectorNote::~InspectorNote() = default;

void InspectorNote::setNote(Kind kind, const QString &text)
{
    m_make = nullptr;
    m_text->setTextFormat(Qt::PlainText);
    m_text->setText(text);
    applyKind(kind);
}

void InspectorNote::setNote(Kind kind, std::function<QString()> text)
{
    setNote(kind, text());
    m_make = std::move(text);
}

void InspectorNote::setRichNote(Kind kind, const QString &html)
{
    m_make = nullptr;
    m_text->setTextFormat(Qt::RichText);
    m_text->setText(html);
    applyKind(kind);
}

void InspectorNote::applyKind(Kind kind)
{
    m_kind = kind;
    const QStyle::StandardPixmap icon = kind == Kind::Error ? QStyle::SP_MessageBoxCritical
        : kind == Kind::Warning                             ? QStyle::SP_MessageBoxWarning
                                                            : QStyle::SP_MessageBoxInformation;
    const int size = style()->pixelMetric(QStyle::PM_SmallIconSize);
    m_icon->setPixmap(style()->standardIcon(icon).pixmap(size, size));
    // Pale grounds that read in light and dark themes alike, with the theme's text colour.
    const QString ground = kind == Kind::Error ? QStringLiteral("rgba(220, 38, 38, 0.12)")
        : kind == Kind::Warning                ? QStringLiteral("rgba(217, 119, 6, 0.14)")
                                               : QStringLiteral("rgba(37, 99, 235, 0.10)");
    setStyleSheet(QStringLiteral("#inspectorNote { background: %1; border: 1px solid rgba(0, 0, 0, 0.12); "
                                 "border-radius: 4px; }")
                      .arg(ground));
    setAccessibleDescription(m_text->text());
    setVisible(!m_text->text().isEmpty());
}

void InspectorNote::changeEvent(QEvent *event)
{
    QFrame::changeEvent(event);
    if (event->type() == QEvent::LanguageChange && m_make) {
        m_text->setText(m_make());
        setAccessibleDescription(m_text->text());
    }
}

void InspectorNote::clear()
{
    m_make = nullptr;
    m_text->clear();
    hide();
}

QString InspectorNote::text() const
{
    return isHidden() ? QString() : m_text->text();
}

namespace {

void applyItem(QStandardItemModel *model, QStandardItem *parent, int row, const InspectorItem &item, int columns)
{
    const QColor color = Inspector::toneColor(item.tone, QApplication::palette());
    for (int column = 0; column < columns; ++column) {
        QStandardItem *cell = parent->child(row, column);
        if (!cell) {
            cell = new QStandardItem;
            cell->setEditable(false);
            parent->setChild(row, column, cell);
        }
        const QString text = item.texts.value(column);
        if (cell->text() != text)
            cell->setText(text);
        const QVariant copy = column < item.copyTexts.size() ? QVariant(item.copyTexts.at(column)) : QVariant();
        if (cell->data(InspectorItem::CopyRole) != copy)
            cell->setData(copy, InspectorItem::CopyRole);
        const QString tip = item.toolTip.isEmpty() ? (text.size() > 60 ? text : QString()) : item.toolTip;
        if (cell->toolTip() != tip)
            cell->setToolTip(tip);
        if (cell->data(InspectorItem::ToneRole).toInt() != int(item.tone)
            || !cell->data(InspectorItem::ToneRole).isValid()) {
            cell->setData(int(item.tone), InspectorItem::ToneRole);
            if (item.tone == InspectorItem::Tone::Normal || item.tone == InspectorItem::Tone::Strong)
                cell->setData(QVariant(), Qt::ForegroundRole);
            else
                cell->setForeground(color);
            QFont font = cell->font();
            font.setBold(item.tone == InspectorItem::Tone::Strong);
            cell->setFont(font);
        }
        if (column > 0 && item.monospace) {
            const QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
            if (cell->font().family() != fixed.family())
                cell->setFont(fixed);
        }
    }
    QStandardItem *first = parent->child(row, 0);
    if (first->data(InspectorItem::KeyRole).toString() != item.key)
        first->setData(item.key, InspectorItem::KeyRole);
    if (first->data(InspectorItem::DataRole) != item.data)
        first->setData(item.data, InspectorItem::DataRole);
    Q_UNUSED(model)
}

void syncChildren(QStandardItemModel *model, QStandardItem *parent, const QList<InspectorItem> &items, QTreeView *view)
{
    const int columns = model->columnCount();
    QHash<QString, int> wanted;
    for (int i = 0; i < items.size(); ++i)
        wanted.insert(items.at(i).key, i);
    // Rows no longer wanted go, in runs from the bottom.
    for (int row = parent->rowCount() - 1; row >= 0; --row) {
        const QString key = parent->child(row, 0)->data(InspectorItem::KeyRole).toString();
        if (!wanted.contains(key)) {
            int first = row;
            while (first > 0 && !wanted.contains(parent->child(first - 1, 0)->data(InspectorItem::KeyRole).toString()))
                --first;
            parent->removeRows(first, row - first + 1);
            row = first;
        }
    }
    for (int i = 0; i < items.size(); ++i) {
        const InspectorItem &item = items.at(i);
        bool inserted = false;
        if (i >= parent->rowCount() || parent->child(i, 0)->data(InspectorItem::KeyRole).toString() != item.key) {
            // Further down (the order changed): moved up; else new.
            int found = -1;
            for (int row = i + 1; row < parent->rowCount(); ++row) {
                if (parent->child(row, 0)->data(InspectorItem::KeyRole).toString() == item.key) {
                    found = row;
                    break;
                }
            }
            if (found >= 0) {
                parent->insertRow(i, parent->takeRow(found));
            } else {
                QList<QStandardItem *> row;
                for (int column = 0; column < columns; ++column) {
                    auto *cell = new QStandardItem;
                    cell->setEditable(false);
                    row.append(cell);
                }
                parent->insertRow(i, row);
                inserted = true;
            }
        }
        applyItem(model, parent, i, item, columns);
        const bool hadChildren = parent->child(i, 0)->hasChildren();
        if (inserted || !item.keepChildren)
            syncChildren(model, parent->child(i, 0), item.children, view);
        // Opened when it first appears, or first gets children.
        if (item.expand && view && !hadChildren && !item.children.isEmpty())
            view->expand(model->indexFromItem(parent->child(i, 0)));
    }
}

} // namespace

void syncItems(QStandardItemModel *model, const QList<InspectorItem> &items, QTreeView *view)
{
    syncChildren(model, model->invisibleRootItem(), items, view);
}

void syncChildItems(QStandardItemModel *model, QStandardItem *parent, const QList<InspectorItem> &items,
                    QTreeView *view)
{
    syncChildren(model, parent, items, view);
}

QStandardItem *itemAt(QStandardItemModel *model, const QStringList &keys)
{
    QStandardItem *item = model->invisibleRootItem();
    for (const QString &key : keys) {
        QStandardItem *found = nullptr;
        for (int row = 0; row < item->rowCount(); ++row) {
            if (item->child(row, 0)->data(InspectorItem::KeyRole).toString() == key) {
                found = item->child(row, 0);
                break;
            }
        }
        if (!found)
            return nullptr;
        item = found;
    }
    return item == model->invisibleRootItem() ? nullptr : item;
}

QStringList keysOf(const QModelIndex &index)
{
    QStringList keys;
    for (QModelIndex at = index.siblingAtColumn(0); at.isValid(); at = at.parent())
        keys.prepend(at.data(InspectorItem::KeyRole).toString());
    return keys;
}

InspectorTreeView::InspectorTreeView(QWidget *parent)
    : QTreeView(parent)
    , m_copy(new QAction(this))
    , m_copyValue(new QAction(this))
{
    setSelectionMode(QAbstractItemView::ExtendedSelection);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setUniformRowHeights(true);
    setAlternatingRowColors(true);
    setTextElideMode(Qt::ElideMiddle); // ids and paths keep both ends
    setContextMenuPolicy(Qt::ActionsContextMenu);
    m_copy->setShortcut(QKeySequence::Copy);
    m_copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(m_copy, &QAction::triggered, this, [this] {
        if (const QString text = selectedText(); !text.isEmpty())
            QApplication::clipboard()->setText(text);
    });
    connect(m_copyValue, &QAction::triggered, this, [this] {
        const QModelIndex current = currentIndex();
        if (current.isValid())
            QApplication::clipboard()->setText(copyText(current.siblingAtColumn(1)));
    });
    addAction(m_copy);
    addAction(m_copyValue);
    retranslate();
}

InspectorTreeView::~InspectorTreeView() = default;

QString InspectorTreeView::selectedText() const
{
    QModelIndexList rows = selectionModel() ? selectionModel()->selectedRows() : QModelIndexList{};
    if (rows.isEmpty() && currentIndex().isValid())
        rows.append(currentIndex().siblingAtColumn(0));
    // In the order shown.
    std::sort(rows.begin(), rows.end(),
              [this](const QModelIndex &a, const QModelIndex &b) { return visualRect(a).top() < visualRect(b).top(); });
    QStringList lines;
    for (const QModelIndex &row : std::as_const(rows)) {
        int depth = 0;
        for (QModelIndex up = row.parent(); up.isValid(); up = up.parent())
            ++depth;
        QStringList cells;
        for (int column = 0; column < model()->columnCount(row.parent()); ++column) {
            if (isColumnHidden(column))
                continue;
            cells.append(copyText(row.siblingAtColumn(column)));
        }
        while (!cells.isEmpty() && cells.constLast().isEmpty())
            cells.removeLast();
        lines.append(QString(depth * 2, u' ') + cells.join(u'\t'));
    }
    return lines.join(u'\n');
}

QString InspectorTreeView::copyText(const QModelIndex &index)
{
    const QVariant copy = index.data(InspectorItem::CopyRole);
    return copy.isValid() ? copy.toString() : index.data().toString();
}

void InspectorTreeView::changeEvent(QEvent *event)
{
    QTreeView::changeEvent(event);
    if (event->type() == QEvent::LanguageChange)
        retranslate();
}

void InspectorTreeView::retranslate()
{
    m_copy->setText(tr("&Copy"));
    m_copy->setToolTip(tr("Copy the selected rows as they are shown (masked values stay masked)"));
    m_copyValue->setText(tr("Copy &Value"));
    m_copyValue->setToolTip(tr("Copy the value of the current row as it is shown"));
}

namespace Inspector {

QString errorText(const Error &error)
{
    switch (error.kind) {
    case Error::Kind::Unsupported:
        return InspectorText::tr("This backend cannot read a workspace's files or run commands in it: %1")
            .arg(error.message);
    case Error::Kind::NotFound:
        return InspectorText::tr("Not found: %1").arg(error.message);
    case Error::Kind::InvalidArgument:
        return InspectorText::tr("Refused: %1").arg(error.message);
    case Error::Kind::Unreachable:
    case Error::Kind::Timeout:
        return InspectorText::tr("The workspace could not be reached: %1").arg(error.message);
    case Error::Kind::Cancelled:
        return InspectorText::tr("Not read: %1").arg(error.message);
    default:
        return error.message;
    }
}

InspectorNote::Kind noteKind(const Error &error)
{
    return error.kind == Error::Kind::Unsupported || error.kind == Error::Kind::Conflict ? InspectorNote::Kind::Info
                                                                                         : InspectorNote::Kind::Error;
}

QString sizeText(qint64 bytes)
{
    return QLocale().formattedDataSize(bytes, 1, QLocale::DataSizeTraditionalFormat);
}

QString isoTimeText(const QString &text)
{
    // Date, time and zone (Z or an offset), nothing else: a plain date or a bare number is left
    // as it is.
    static const QRegularExpression iso(
        QStringLiteral(R"(^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$)"));
    if (!iso.match(text).hasMatch())
        return {};
    return timeText(QDateTime::fromString(text, Qt::ISODateWithMs));
}

QString timeText(const QDateTime &time)
{
    if (!time.isValid())
        return {};
    const QLocale locale;
    // The short format with seconds: what changed a second ago matters here.
    QString format = locale.dateTimeFormat(QLocale::ShortFormat);
    if (!format.contains(u's'))
        format.replace(QStringLiteral("mm"), QStringLiteral("mm:ss"));
    return locale.toString(time.toLocalTime(), format);
}

QString agentTimeText(const QString &time)
{
    if (time.isEmpty())
        return {};
    QString shown = time;
    shown.replace(u'T', u' ');
    if (const qsizetype dot = shown.indexOf(u'.'); dot > 0)
        shown.truncate(dot);
    return shown;
}

QString countText(qint64 count)
{
    return QLocale().toString(count);
}

QImage visibleImage(const QImage &image, int least)
{
    const int side = std::max(image.width(), image.height());
    if (side <= 0 || side >= least)
        return image;
    const int factor = (least + side - 1) / side;
    return image.scaled(image.size() * factor, Qt::KeepAspectRatio, Qt::FastTransformation);
}

QColor toneColor(InspectorItem::Tone tone, const QPalette &palette)
{
    switch (tone) {
    case InspectorItem::Tone::Dim:
        return palette.color(QPalette::PlaceholderText);
    case InspectorItem::Tone::Warning:
        return Tones::warning(palette);
    case InspectorItem::Tone::Error:
        return Tones::error(palette);
    default:
        return palette.color(QPalette::Text);
    }
}

QCoro::Task<void> saveAs(QWidget *parent, WorkspaceRef ref, QString path, std::function<void(const QString &)> status)
{
    const QPointer<QWidget> guard(parent);
    const QString name = QFileInfo(path).fileName();
    QPointer<QFileDialog> dialog = new QFileDialog(parent, InspectorText::tr("Save %1 As").arg(name));
    dialog->setObjectName(QStringLiteral("saveAsDialog"));
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setFileMode(QFileDialog::AnyFile);
    QString folder = QStandardPaths::writableLocation(QStandardPaths::DownloadLocation);
    if (folder.isEmpty())
        folder = QDir::homePath();
    dialog->setDirectory(folder);
    dialog->selectFile(name);
    dialog->open();
    const int answer = co_await untilFinished(dialog.data()); // Rejected if the window took it along
    if (!dialog)
        co_return;
    const QString local = dialog->selectedFiles().value(0);
    dialog->deleteLater();
    if (answer != QDialog::Accepted || local.isEmpty() || !guard)
        co_return;
    QPointer<ProfileSession> session = ref.session;
    if (!session || (ref.cancel && ref.cancel->isCancelled())) {
        status(InspectorText::tr("%1 was not saved: the workspace is no longer shown").arg(path));
        co_return;
    }
    status(InspectorText::tr("Saving %1…").arg(path));
    const QString sandboxId = ref.sandbox.sandboxId;
    auto saved = co_await session->download(sandboxId, path, local);
    if (!guard)
        co_return;
    if (saved)
        status(InspectorText::tr("Saved %1 as %2").arg(path, QDir::toNativeSeparators(local)));
    else
        status(InspectorText::tr("%1 was not saved: %2").arg(path, errorText(saved.error())));
}

} // namespace Inspector
