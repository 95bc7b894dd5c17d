#include "opendialog.h"

#include "bootstraplog.h"
#include "ui_opendialog.h"
#include "workspacemanager.h"

#include <QCoroTask>

#include <QEvent>
#include <QFontDatabase>
#include <QPushButton>
#include <QScrollBar>

using namespace Paddock;

OpenDialog::OpenDialog(WorkspaceManager *manager, BootstrapLogStore *logs, QString instanceKey, const Request &prefill,
                       QWidget *parent)
    : QDialog(parent)
    , m_ui(std::make_unique<Ui::OpenDialog>())
    , m_manager(manager)
    , m_logs(logs)
    , m_instanceKey(std::move(instanceKey))
{
    m_ui->setupUi(this);
    m_ui->logView->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    // A long bootstrap keeps its last lines; the file keeps everything.
    m_ui->logView->setMaximumBlockCount(20'000);
    m_ui->userEdit->setText(prefill.userId);
    m_ui->agentEdit->setText(prefill.agentId);
    m_ui->sessionEdit->setText(prefill.sessionId);
    m_ui->workspaceIdEdit->setText(prefill.workspaceId);
    for (QLineEdit *edit : {m_ui->userEdit, m_ui->agentEdit, m_ui->sessionEdit, m_ui->workspaceIdEdit})
        connect(edit, &QLineEdit::textChanged, this, &OpenDialog::updateResolved);
    QPushButton *open = m_ui->buttonBox->button(QDialogButtonBox::Open);
    open->setDefault(true);
    // The button starts the work; the dialog stays to show it.
    disconnect(m_ui->buttonBox, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(open, &QPushButton::clicked, this, [this] { start(); });
    m_flush.setSingleShot(true);
    m_flush.setInterval(100);
    connect(&m_flush, &QTimer::timeout, this, &OpenDialog::flushLines);
    if (m_logs)
        connect(m_logs, &BootstrapLogStore::lineAppended, this, &OpenDialog::onLine);
    updateResolved();
    (prefill.userId.isEmpty() ? m_ui->userEdit : m_ui->agentEdit)->setFocus();
}

OpenDialog::~OpenDialog() = default;

WorkspaceRequest OpenDialog::currentRequest() const
{
    WorkspaceRequest request;
    request.userId = m_ui->userEdit->text().trimmed();
    request.agentId = m_ui->agentEdit->text().trimmed();
    request.sessionId = m_ui->sessionEdit->text().trimmed();
    if (const QString explicitId = m_ui->workspaceIdEdit->text().trimmed(); !explicitId.isEmpty())
        request.workspaceId = explicitId;
    return request;
}

QString OpenDialog::resolvedId() const
{
    if (!m_manager)
        return {};
    auto id = m_manager->resolveWorkspaceId(currentRequest());
    return id ? *id : QString();
}

void OpenDialog::updateResolved()
{
    QString text;
    bool ok = false;
    if (!m_manager) {
        text = tr("This profile cannot open workspaces.");
    } else if (m_ui->workspaceIdEdit->text().trimmed().isEmpty()
               && (m_ui->userEdit->text().trimmed().isEmpty() || m_ui->agentEdit->text().trimmed().isEmpty())) {
        text = tr("Enter a user and an agent, or a workspace id.");
    } else {
        auto id = m_manager->resolveWorkspaceId(currentRequest());
        ok = id.has_value();
        text = ok ? tr("Workspace %1 (%2)").arg(*id, isolationPolicyName(m_manager->isolation())) : id.error().message;
    }
    m_ui->resolvedLabel->setText(text);
    m_ui->buttonBox->button(QDialogButtonBox::Open)->setEnabled(ok && !m_running);
}

QCoro::Task<void> OpenDialog::start()
{
    const QString id = resolvedId();
    if (m_running || id.isEmpty() || !m_manager)
        co_return;
    const WorkspaceRequest request = currentRequest();
    m_running = true;
    m_workspaceId = id;
    setFieldsEnabled(false);
    updateResolved();
    m_ui->logView->clear();
    setStatus(tr("Opening workspace %1…").arg(id), false);

    const QPointer<OpenDialog> self(this);
    const QPointer<WorkspaceManager> manager(m_manager);
    auto opened = co_await manager->getWorkspace(request);
    if (!self)
        co_return;
    flushLines();
    m_running = false;
    setFieldsEnabled(true);
    updateResolved();
    if (!opened) {
        setStatus(tr("Could not open workspace %1: %2").arg(id, opened.error().message), true);
        co_return;
    }
    setStatus(tr("Workspace %1 is open.").arg(id), false);
    m_ui->buttonBox->button(QDialogButtonBox::Close)->setFocus();
    Q_EMIT this->opened(id, request.userId, request.agentId);
}

void OpenDialog::changeEvent(QEvent *event)
{
    QDialog::changeEvent(event);
    if (event->type() == QEvent::LanguageChange) {
        m_ui->retranslateUi(this);
        updateResolved();
    }
}

void OpenDialog::setFieldsEnabled(bool enabled)
{
    for (QLineEdit *edit : {m_ui->userEdit, m_ui->agentEdit, m_ui->sessionEdit, m_ui->workspaceIdEdit})
        edit->setEnabled(enabled);
}

void OpenDialog::onLine(const QString &instanceKey, const QString &workspaceId, const LogLine &line)
{
    if (!m_running || instanceKey != m_instanceKey || workspaceId != m_workspaceId)
        return;
    QString tag;
    switch (line.kind) {
    case LogLine::Kind::Stdout:
        tag = QStringLiteral("  ");
        break;
    case LogLine::Kind::Stderr:
        tag = QStringLiteral("! ");
        break;
    case LogLine::Kind::Command:
        tag = QStringLiteral("$ ");
        break;
    case LogLine::Kind::Status:
        tag = QStringLiteral("# ");
        break;
    }
    m_pending.append(line.time.toLocalTime().toString(QStringLiteral("HH:mm:ss ")) + tag
                     + QString::fromUtf8(line.text));
    if (!m_flush.isActive())
        m_flush.start();
}

void OpenDialog::flushLines()
{
    m_flush.stop();
    if (m_pending.isEmpty())
        return;
    QScrollBar *bar = m_ui->logView->verticalScrollBar();
    const bool following = bar->value() == bar->maximum();
    m_ui->logView->appendPlainText(m_pending.join(u'\n'));
    m_pending.clear();
    // Follows the end unless the user scrolled up to read.
    if (following)
        bar->setValue(bar->maximum());
}

QString OpenDialog::logText() const
{
    return m_ui->logView->toPlainText();
}

QString OpenDialog::statusText() const
{
    return m_ui->statusLabel->text();
}

void OpenDialog::setStatus(const QString &text, bool error)
{
    m_ui->statusLabel->setText(text);
    m_ui->statusLabel->setStyleSheet(error ? QStringLiteral("color: #b91c1c;") : QString());
}
