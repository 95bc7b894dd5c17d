#include "confirmdialog.h"

#include "colorscheme.h"

#include <QApplication>
#include <QCheckBox>
#include <QColor>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScreen>
#include <QScrollBar>
#include <QStyle>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace {

QStyle::StandardPixmap pixmapFor(QMessageBox::Icon icon)
{
    switch (icon) {
    case QMessageBox::Warning:
        return QStyle::SP_MessageBoxWarning;
    case QMessageBox::Critical:
        return QStyle::SP_MessageBoxCritical;
    case QMessageBox::Question:
        return QStyle::SP_MessageBoxQuestion;
    case QMessageBox::Information:
    case QMessageBox::NoIcon:
        break;
    }
    return QStyle::SP_MessageBoxInformation;
}

} // namespace

ConfirmDialog::ConfirmDialog(QMessageBox::Icon icon, const QString &title, const QString &text, QWidget *parent)
    : QDialog(parent)
    , m_text(new QLabel(text, this))
    , m_informative(new QLabel(this))
    , m_warning(new QLabel(this))
    , m_list(new QTreeWidget(this))
{
    setWindowTitle(title);
    auto *iconLabel = new QLabel(this);
    const int size = style()->pixelMetric(QStyle::PM_MessageBoxIconSize, nullptr, this);
    iconLabel->setPixmap(style()->standardIcon(pixmapFor(icon), nullptr, this).pixmap(size, size));
    iconLabel->setAlignment(Qt::AlignTop);
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_text->setObjectName(QStringLiteral("confirmText"));
    QFont bold = m_text->font();
    bold.setBold(true);
    m_text->setFont(bold);
    m_informative->setWordWrap(true);
    m_informative->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_informative->setVisible(false);
    m_warning->setObjectName(QStringLiteral("confirmWarning"));
    m_warning->setWordWrap(true);
    m_warning->setTextFormat(Qt::PlainText);
    m_warning->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_warning->setStyleSheet(QStringLiteral("color: %1;").arg(Tones::css(Tones::error())));
    m_warning->setVisible(false);
    m_list->setObjectName(QStringLiteral("confirmList"));
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setWordWrap(false);
    m_list->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_list->setAccessibleName(tr("Workspaces this applies to"));
    m_list->header()->setStretchLastSection(false);
    m_list->setVisible(false);

    auto *buttons = new QDialogButtonBox(this);
    m_confirm = buttons->addButton(QDialogButtonBox::Ok);
    m_confirm->setObjectName(QStringLiteral("confirmButton"));
    m_cancel = buttons->addButton(QDialogButtonBox::Cancel);
    m_cancel->setObjectName(QStringLiteral("cancelButton"));
    m_cancel->setText(tr("Cancel"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *texts = new QVBoxLayout;
    texts->addWidget(m_text);
    texts->addWidget(m_informative);
    texts->addWidget(m_warning);
    auto *top = new QHBoxLayout;
    top->addWidget(iconLabel);
    top->addLayout(texts, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_list, 1);
    layout->addWidget(buttons);
    setObjectName(QStringLiteral("confirmDialog"));
    setCancelIsDefault(false);
}

ConfirmDialog::~ConfirmDialog() = default;

QString ConfirmDialog::text() const
{
    return m_text->text();
}

void ConfirmDialog::setInformativeText(const QString &text)
{
    m_informative->setText(text);
    m_informative->setVisible(!text.isEmpty());
}

QString ConfirmDialog::informativeText() const
{
    return m_informative->text();
}

QString ConfirmDialog::warningText() const
{
    return m_warning->text();
}

void ConfirmDialog::setRows(const QList<Row> &rows)
{
    m_list->clear();
    const bool sandboxes = std::any_of(rows.cbegin(), rows.cend(), [](const Row &row) {
        return !row.sandbox.isEmpty() && row.sandbox != row.workspace;
    });
    // One warning for every row (one row: its own) is said once, in full, under the text; rows
    // with warnings of their own (each names its Pod and PVC) say them beside their ids.
    const bool warnings =
        std::any_of(rows.cbegin(), rows.cend(), [](const Row &row) { return !row.warning.isEmpty(); });
    const bool oneWarning = warnings && std::all_of(rows.cbegin(), rows.cend(), [&rows](const Row &row) {
                                return row.warning == rows.constFirst().warning;
                            });
    m_warning->setText(oneWarning ? rows.constFirst().warning : QString());
    m_warning->setVisible(oneWarning);
    const bool warningColumn = warnings && !oneWarning;
    QStringList headers{tr("Workspace")};
    if (sandboxes)
        headers << tr("Sandbox ID");
    headers << tr("User") << tr("Agent") << tr("State");
    if (warningColumn)
        headers << tr("Warning");
    m_list->setHeaderLabels(headers);
    for (const Row &row : rows) {
        QStringList texts{row.workspace};
        if (sandboxes)
            texts << row.sandbox;
        texts << row.user << row.agent << row.state;
        if (warningColumn)
            texts << row.warning;
        auto *item = new QTreeWidgetItem(m_list, texts);
        if (warningColumn) {
            const int column = int(texts.size()) - 1;
            item->setToolTip(column, row.warning);
            item->setForeground(column, Tones::error());
        }
    }
    m_list->setVisible(!rows.isEmpty());
    fitToContents();
}

QString ConfirmDialog::listText() const
{
    QStringList lines;
    for (int i = 0; i < m_list->topLevelItemCount(); ++i) {
        const QTreeWidgetItem *item = m_list->topLevelItem(i);
        QStringList cells;
        for (int column = 0; column < m_list->columnCount(); ++column)
            cells << item->text(column);
        lines << cells.join(u'\t');
    }
    return lines.join(u'\n');
}

void ConfirmDialog::setConfirmText(const QString &text)
{
    m_confirm->setText(text);
}

void ConfirmDialog::setCancelIsDefault(bool cancel)
{
    m_confirm->setAutoDefault(!cancel);
    m_cancel->setAutoDefault(cancel);
    (cancel ? m_cancel : m_confirm)->setDefault(true);
    (cancel ? m_confirm : m_cancel)->setDefault(false);
    (cancel ? m_cancel : m_confirm)->setFocus();
}

QCheckBox *ConfirmDialog::addCheckBox(const QString &text, const QString &objectName)
{
    auto *box = new QCheckBox(text, this);
    box->setObjectName(objectName);
    // Above the buttons.
    auto *layout = static_cast<QVBoxLayout *>(this->layout());
    layout->insertWidget(layout->count() - 1, box);
    m_boxes.append(box);
    return box;
}

void ConfirmDialog::fitToContents()
{
    QHeaderView *header = m_list->header();
    int total = 0;
    for (int column = 0; column < m_list->columnCount(); ++column) {
        m_list->resizeColumnToContents(column);
        total += header->sectionSize(column);
    }
    const QScreen *screen = this->screen();
    const QRect available = screen ? screen->availableGeometry() : QRect(0, 0, 1600, 1000);
    const QMargins margins = layout()->contentsMargins();
    const int wanted = total + 2 * m_list->frameWidth() + m_list->verticalScrollBar()->sizeHint().width()
        + margins.left() + margins.right();
    const int rows = std::min(m_list->topLevelItemCount(), 12);
    const int rowHeight = m_list->topLevelItemCount() > 0 ? m_list->sizeHintForRow(0) : 0;
    m_list->setMinimumHeight(
        std::min(header->sizeHint().height() + rows * rowHeight + 2 * m_list->frameWidth(), available.height() / 2));
    // At least 480 px, at most nine tenths of the screen (which wins on a very small one).
    resize(std::min(std::max(wanted, 480), available.width() * 9 / 10), sizeHint().height());
}
