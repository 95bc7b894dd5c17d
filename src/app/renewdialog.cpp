#include "renewdialog.h"

#include "colorscheme.h"
#include "ui_renewdialog.h"
#include "workspacetreemodel.h"

#include <QEvent>
#include <QHeaderView>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QScrollBar>
#include <QStyle>

#include <algorithm>
#include <array>

using namespace Paddock;

RenewDialog::RenewDialog(const QList<WorkspaceRecord> &workspaces, const QList<WorkspaceRecord> &skipped,
                         QWidget *parent)
    : QDialog(parent)
    , m_ui(std::make_unique<Ui::RenewDialog>())
    , m_clock([] { return QDateTime::currentDateTimeUtc(); })
{
    m_ui->setupUi(this);
    setObjectName(QStringLiteral("renewDialog"));
    m_workspaces = workspaces;
    for (const WorkspaceRecord &record : skipped) {
        if (!record.info.expiresAt && record.info.pausedAt.isValid())
            ++m_timerStopped;
        else
            ++m_skipped;
    }
    for (int i = 0; i < workspaces.size(); ++i)
        new QTreeWidgetItem(m_ui->previewList);
    m_ui->unitBox->addItems({QString(), QString(), QString()});
    m_ui->unitBox->setCurrentIndex(Hours);
    m_ui->previewList->header()->setStretchLastSection(false);
    connect(m_ui->amountBox, &QSpinBox::valueChanged, this, &RenewDialog::updatePreview);
    connect(m_ui->unitBox, &QComboBox::currentIndexChanged, this, &RenewDialog::updatePreview);
    connect(m_ui->extendButton, &QRadioButton::toggled, this, &RenewDialog::updatePreview);
    connect(m_ui->oneHourButton, &QToolButton::clicked, this, [this] { setAmount(1, Hours); });
    connect(m_ui->fourHoursButton, &QToolButton::clicked, this, [this] { setAmount(4, Hours); });
    connect(m_ui->oneDayButton, &QToolButton::clicked, this, [this] { setAmount(24, Hours); });
    connect(m_ui->buttonBox, &QDialogButtonBox::accepted, this, &RenewDialog::accept);
    retranslate();
    m_ui->amountBox->setFocus();
}

RenewDialog::~RenewDialog() = default;

void RenewDialog::retranslate()
{
    QString summary = tr("Renew %n workspace(s)?", nullptr, int(m_workspaces.size()));
    if (m_skipped > 0)
        summary += u' ' + tr("%n selected workspace(s) never expire and are skipped.", nullptr, m_skipped);
    if (m_timerStopped > 0) {
        summary += u' '
            + tr("%n selected workspace(s) are paused with their timer stopped and are skipped: resuming one starts a "
                 "new timeout.",
                 nullptr, m_timerStopped);
    }
    m_ui->summaryLabel->setText(summary);
    m_ui->unitBox->setItemText(Minutes, tr("minutes"));
    m_ui->unitBox->setItemText(Hours, tr("hours"));
    m_ui->unitBox->setItemText(Days, tr("days"));
    m_ui->amountBox->setAccessibleName(tr("Duration"));
    m_ui->oneHourButton->setText(tr("+1 h"));
    m_ui->oneHourButton->setToolTip(tr("One hour"));
    m_ui->fourHoursButton->setText(tr("+4 h"));
    m_ui->fourHoursButton->setToolTip(tr("Four hours"));
    m_ui->oneDayButton->setText(tr("+24 h"));
    m_ui->oneDayButton->setToolTip(tr("A day"));
    m_ui->buttonBox->button(QDialogButtonBox::Ok)->setText(tr("&Renew"));
    const QLocale locale;
    for (int row = 0; row < m_workspaces.size(); ++row) {
        const WorkspaceRecord &record = m_workspaces.at(row);
        QTreeWidgetItem *item = m_ui->previewList->topLevelItem(row);
        const QString name = record.info.metadata.value(QStringLiteral("name"), record.info.workspaceId);
        item->setText(0, name);
        item->setToolTip(0, record.info.workspaceId);
        item->setText(1,
                      record.info.expiresAt
                          ? locale.toString(record.info.expiresAt->toLocalTime(), QLocale::ShortFormat)
                          : tr("never"));
    }
    updatePreview();
}

void RenewDialog::changeEvent(QEvent *event)
{
    QDialog::changeEvent(event);
    if (event->type() == QEvent::LanguageChange) {
        m_ui->retranslateUi(this);
        retranslate();
    }
}

RenewMode RenewDialog::mode() const
{
    return m_ui->fromNowButton->isChecked() ? RenewMode::FromNow : RenewMode::Extend;
}

void RenewDialog::setMode(RenewMode mode)
{
    (mode == RenewMode::FromNow ? m_ui->fromNowButton : m_ui->extendButton)->setChecked(true);
}

std::chrono::seconds RenewDialog::amount() const
{
    static constexpr std::array<qint64, 3> unitSeconds{60, 3600, 86400};
    const int unit = std::clamp(m_ui->unitBox->currentIndex(), 0, 2);
    return std::chrono::seconds(m_ui->amountBox->value() * unitSeconds.at(size_t(unit)));
}

void RenewDialog::setAmount(qint64 amount, Unit unit)
{
    const QSignalBlocker blocker(m_ui->unitBox);
    m_ui->unitBox->setCurrentIndex(unit);
    m_ui->amountBox->setValue(int(std::clamp<qint64>(amount, m_ui->amountBox->minimum(), m_ui->amountBox->maximum())));
    updatePreview();
}

void RenewDialog::setClock(Clock clock)
{
    m_clock = std::move(clock);
    updatePreview();
}

Renewal RenewDialog::renewalFor(int row) const
{
    return planRenewal(m_workspaces.at(row).info.expiresAt, m_clock(), mode(), amount());
}

int RenewDialog::shorteningCount() const
{
    int count = 0;
    for (int row = 0; row < m_workspaces.size(); ++row)
        count += renewalFor(row).shortens ? 1 : 0;
    return count;
}

void RenewDialog::updatePreview()
{
    const QLocale locale;
    const QColor red = Tones::error(palette());
    const QIcon warning = style()->standardIcon(QStyle::SP_MessageBoxWarning);
    int shorter = 0;
    for (int row = 0; row < m_ui->previewList->topLevelItemCount(); ++row) {
        QTreeWidgetItem *item = m_ui->previewList->topLevelItem(row);
        const Renewal renewal = renewalFor(row);
        const std::optional<QDateTime> &before = m_workspaces.at(row).info.expiresAt;
        item->setText(2, locale.toString(renewal.expiresAt.toLocalTime(), QLocale::ShortFormat));
        QString change;
        if (before) {
            const qint64 seconds = before->secsTo(renewal.expiresAt);
            const QString amount = WorkspaceTreeModel::formatCountdown(std::abs(seconds));
            change = seconds < 0 ? tr("%1 sooner").arg(amount) : tr("%1 later").arg(amount);
        }
        item->setText(3, change);
        for (int column = 0; column < 4; ++column) {
            item->setForeground(column, renewal.shortens ? QBrush(red) : QBrush());
            item->setToolTip(column, renewal.shortens ? tr("Expires sooner than it does now") : QString());
        }
        item->setToolTip(0, m_workspaces.at(row).info.workspaceId);
        item->setIcon(3, renewal.shortens ? warning : QIcon());
        item->setData(3, Qt::UserRole, renewal.shortens);
        shorter += renewal.shortens ? 1 : 0;
    }
    if (shorter > 0) {
        m_ui->warningLabel->setText(QStringLiteral("<span style=\"color:%1\">⚠ %2</span>")
                                        .arg(red.name(),
                                             tr("%n workspace(s) would expire sooner than they do now. An expired "
                                                "sandbox is deleted with its files.",
                                                nullptr, shorter)
                                                 .toHtmlEscaped()));
    }
    m_ui->warningLabel->setVisible(shorter > 0);
    fitColumns();
}

void RenewDialog::fitColumns()
{
    // Every column as wide as what it shows (ids are not cut, times are not wrapped), and the
    // dialog as wide as the columns, within the screen.
    QHeaderView *header = m_ui->previewList->header();
    int total = 0;
    for (int column = 0; column < m_ui->previewList->columnCount(); ++column) {
        m_ui->previewList->resizeColumnToContents(column);
        total += header->sectionSize(column);
    }
    const QScreen *screen = this->screen();
    const int available = screen ? screen->availableGeometry().width() * 9 / 10 : 1600;
    const int wanted = total + 2 * m_ui->previewList->frameWidth()
        + m_ui->previewList->verticalScrollBar()->sizeHint().width() + layout()->contentsMargins().left()
        + layout()->contentsMargins().right() + 8;
    if (width() < wanted)
        resize(std::min(wanted, available), height());
}

QString RenewDialog::previewAfter(int row) const
{
    return m_ui->previewList->topLevelItem(row)->text(2);
}

QString RenewDialog::previewBefore(int row) const
{
    return m_ui->previewList->topLevelItem(row)->text(1);
}

QString RenewDialog::previewChange(int row) const
{
    return m_ui->previewList->topLevelItem(row)->text(3);
}

bool RenewDialog::isMarkedShorter(int row) const
{
    return m_ui->previewList->topLevelItem(row)->data(3, Qt::UserRole).toBool();
}

void RenewDialog::accept()
{
    const int shorter = shorteningCount();
    if (shorter == 0 || m_allowShorter) {
        QDialog::accept();
        return;
    }
    if (m_confirm)
        return;
    // Asked apart, Cancel first: shortening a lifetime can delete a sandbox sooner than its owner
    // expects.
    QStringList names;
    for (int row = 0; row < m_workspaces.size(); ++row) {
        if (renewalFor(row).shortens)
            names.append(m_workspaces.at(row).info.workspaceId);
    }
    m_confirm =
        new QMessageBox(QMessageBox::Warning, windowTitle(),
                        tr("Shorten the lifetime of %n workspace(s)?", nullptr, shorter), QMessageBox::Cancel, this);
    m_confirm->setObjectName(QStringLiteral("confirmShorten"));
    m_confirm->setInformativeText(
        tr("They would expire sooner than they do now, and an expired sandbox is deleted with its files. The "
           "others are renewed as shown."));
    m_confirm->setDetailedText(names.join(u'\n'));
    QPushButton *shorten = m_confirm->addButton(tr("&Shorten"), QMessageBox::DestructiveRole);
    shorten->setObjectName(QStringLiteral("shortenButton"));
    m_confirm->setDefaultButton(QMessageBox::Cancel);
    m_confirm->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_confirm, &QMessageBox::buttonClicked, this, [this, shorten](QAbstractButton *button) {
        if (button != shorten)
            return;
        m_allowShorter = true;
        QDialog::accept();
    });
    m_confirm->open();
}
