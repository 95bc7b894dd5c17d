#include "renewdialog.h"

#include "ui_renewdialog.h"
#include "workspacetreemodel.h"

#include <QEvent>
#include <QLocale>
#include <QPushButton>

RenewDialog::RenewDialog(const QList<WorkspaceRecord> &workspaces, int skipped, QWidget *parent)
    : QDialog(parent)
    , m_ui(std::make_unique<Ui::RenewDialog>())
    , m_clock([] { return QDateTime::currentDateTimeUtc(); })
{
    m_ui->setupUi(this);
    setObjectName(QStringLiteral("renewDialog"));
    m_workspaces = workspaces;
    m_skipped = skipped;
    for (int i = 0; i < workspaces.size(); ++i)
        new QTreeWidgetItem(m_ui->previewList);
    connect(m_ui->minutesBox, &QSpinBox::valueChanged, this, &RenewDialog::updatePreview);
    retranslate();
}

void RenewDialog::retranslate()
{
    QString summary =
        tr("Renew %n workspace(s)? Each will expire this long from now.", nullptr, int(m_workspaces.size()));
    if (m_skipped > 0)
        summary += u' ' + tr("%n selected workspace(s) never expire and are skipped.", nullptr, m_skipped);
    m_ui->summaryLabel->setText(summary);
    m_ui->minutesBox->setSuffix(tr(" min"));
    m_ui->buttonBox->button(QDialogButtonBox::Ok)->setText(tr("&Renew"));
    const QLocale locale;
    for (int row = 0; row < m_workspaces.size(); ++row) {
        const WorkspaceRecord &record = m_workspaces.at(row);
        QTreeWidgetItem *item = m_ui->previewList->topLevelItem(row);
        item->setText(0, record.info.metadata.value(QStringLiteral("name"), record.info.workspaceId));
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

RenewDialog::~RenewDialog() = default;

std::chrono::seconds RenewDialog::duration() const
{
    return std::chrono::minutes(m_ui->minutesBox->value());
}

void RenewDialog::setDuration(std::chrono::minutes minutes)
{
    m_ui->minutesBox->setValue(int(minutes.count()));
}

void RenewDialog::setClock(Clock clock)
{
    m_clock = std::move(clock);
    updatePreview();
}

void RenewDialog::updatePreview()
{
    const QDateTime after = m_clock().addSecs(duration().count());
    const QString text = QLocale().toString(after.toLocalTime(), QLocale::ShortFormat);
    for (int row = 0; row < m_ui->previewList->topLevelItemCount(); ++row)
        m_ui->previewList->topLevelItem(row)->setText(2, text);
}

QString RenewDialog::previewAfter(int row) const
{
    return m_ui->previewList->topLevelItem(row)->text(2);
}

QString RenewDialog::previewBefore(int row) const
{
    return m_ui->previewList->topLevelItem(row)->text(1);
}
