#include "opendialog.h"

#include "bootstraplog.h"
#include "colorscheme.h"
#include "isolation.h"
#include "profilesession.h"
#include "ui_opendialog.h"

#include <QCoroTask>

#include <QEvent>
#include <QFontDatabase>
#include <QPushButton>
#include <QScrollBar>

using namespace Paddock;

OpenDialog::OpenDialog(ProfileSession *session, const Request &prefill, QWidget *parent)
    : QDialog(parent)
    , m_ui(std::make_unique<Ui::OpenDialog>())
    , m_session(session)
    , m_logs(session ? session->logs() : nullptr)
    , m_instanceKey(session ? session->instanceKey() : QString())
{
    m_ui->setupUi(this);
    updateTitle();
    m_ui->logView->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    // A long bootstrap keeps its last lines; the file keeps everything.
    m_ui->logView->setMaximumBlockCount(20'000);
    m_ui->userEdit->setText(prefill.userId);
    m_ui->agentEdit->setText(prefill.agentId);
    m_ui->sessionEdit->setText(prefill.sessionId);
    m_ui->workspaceIdEdit->setText(prefill.workspaceId);
    m_ui->explicitButton->setChecked(prefill.byId);
    if (m_session && m_session->isolation() == IsolationPolicy::PerSession)
        m_mintedId = assignWorkspaceId(IsolationPolicy::PerSession, {}, {});
    for (QLineEdit *edit : {m_ui->userEdit, m_ui->agentEdit, m_ui->sessionEdit, m_ui->workspaceIdEdit})
        connect(edit, &QLineEdit::textChanged, this, &OpenDialog::updateResolved);
    connect(m_ui->explicitButton, &QRadioButton::toggled, this, &OpenDialog::updateMode);
    updateMode();
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
    if (prefill.byId)
        m_ui->workspaceIdEdit->setFocus();
    else
        (prefill.userId.isEmpty() ? m_ui->userEdit : m_ui->agentEdit)->setFocus();
}

void OpenDialog::setLookup(Lookup lookup)
{
    m_lookup = std::move(lookup);
    updateResolved();
}

void OpenDialog::updateMode()
{
    // The id field counts only when chosen; the session only names what the policy ignores.
    const bool byId = m_ui->explicitButton->isChecked();
    m_ui->workspaceIdEdit->setEnabled(byId && !m_running);
    m_ui->sessionEdit->setEnabled(!byId && !m_running);
    if (byId && !m_running)
        m_ui->workspaceIdEdit->setFocus();
    updateResolved();
}

OpenDialog::~OpenDialog() = default;

Result<QString> OpenDialog::resolve() const
{
    if (!m_session)
        return fail(Error::invalidArgument(tr("This profile cannot open workspaces.")));
    WorkspaceRequest request;
    request.userId = m_ui->userEdit->text().trimmed();
    request.agentId = m_ui->agentEdit->text().trimmed();
    if (m_ui->explicitButton->isChecked()) {
        const QString id = m_ui->workspaceIdEdit->text().trimmed();
        if (id.isEmpty())
            return fail(Error::invalidArgument(tr("Enter the id of the workspace to reattach to.")));
        request.workspaceId = id;
    } else {
        if (request.userId.isEmpty() || request.agentId.isEmpty())
            return fail(Error::invalidArgument(tr("Enter a user and an agent.")));
        // PER_SESSION mints a new id each time: the one shown is the one opened.
        if (!m_mintedId.isEmpty())
            request.workspaceId = m_mintedId;
    }
    return m_session->resolveWorkspaceId(request);
}

WorkspaceRequest OpenDialog::currentRequest() const
{
    WorkspaceRequest request;
    request.userId = m_ui->userEdit->text().trimmed();
    request.agentId = m_ui->agentEdit->text().trimmed();
    request.sessionId = m_ui->sessionEdit->isEnabled() ? m_ui->sessionEdit->text().trimmed() : QString();
    if (auto id = resolve())
        request.workspaceId = *id;
    return request;
}

QString OpenDialog::resolvedId() const
{
    auto id = resolve();
    return id ? *id : QString();
}

QString OpenDialog::resolvedText() const
{
    return m_ui->resolvedLabel->text();
}

void OpenDialog::lookupChanged()
{
    updateResolved();
}

void OpenDialog::updateResolved()
{
    const auto id = resolve();
    QString text;
    if (!id) {
        text = id.error().message;
    } else {
        const QString user = m_ui->userEdit->text().trimmed();
        const QString agent = m_ui->agentEdit->text().trimmed();
        const QString policy = isolationPolicyName(m_session->isolation()).toUpper();
        if (m_ui->explicitButton->isChecked())
            text = tr("Opens workspace %1, the id entered above.").arg(*id);
        else if (!m_mintedId.isEmpty())
            text = tr("Opens a new workspace %1 (%2 gives every open a new id).").arg(*id, policy);
        else
            text = tr("Opens workspace %1, the %2 workspace of user %3 and agent %4.").arg(*id, policy, user, agent);
        // The row the dialog was opened on may be another workspace (PER_SESSION, or made by
        // another policy): say how to open that one.
        const QString offered = m_ui->workspaceIdEdit->text().trimmed();
        const QString hint = !m_ui->explicitButton->isChecked() && !offered.isEmpty() && offered != *id
            ? tr("The workspace %1 in the id field is another one: choose \u201cReattach to workspace id\u201d to "
                 "open it.")
                  .arg(offered)
            : QString();
        const std::optional<Existing> existing = m_lookup ? m_lookup(*id) : std::nullopt;
        if (existing) {
            text += u' ' + tr("It exists (%1) and is reattached.").arg(existing->state);
            if (!existing->userId.isEmpty() && !user.isEmpty() && existing->userId != user)
                text += u' ' + tr("It belongs to user %1, not %2.").arg(existing->userId, user);
        } else if (m_lookup) {
            text += u' ' + tr("It is not in the list: a new one is created and bootstrapped.");
        }
        if (!hint.isEmpty())
            text += u' ' + hint;
    }
    m_ui->resolvedLabel->setText(text);
    m_ui->buttonBox->button(QDialogButtonBox::Open)->setEnabled(id.has_value() && !m_running);
}

QCoro::Task<void> OpenDialog::start()
{
    const QString id = resolvedId();
    if (m_running || id.isEmpty() || !m_session)
        co_return;
    // Exactly the id shown: the request names it explicitly.
    const WorkspaceRequest request = currentRequest();
    m_running = true;
    m_workspaceId = id;
    setFieldsEnabled(false);
    updateResolved();
    m_ui->logView->clear();
    setStatus(tr("Opening workspace %1…").arg(id), false);

    const QPointer<OpenDialog> self(this);
    const QPointer<ProfileSession> session(m_session);
    auto opened = co_await session->open(request);
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
    // PER_SESSION: the next open in this dialog is another session, with an id of its own.
    if (!m_mintedId.isEmpty() && m_mintedId == id) {
        m_mintedId = assignWorkspaceId(IsolationPolicy::PerSession, {}, {});
        updateResolved();
    }
    m_ui->buttonBox->button(QDialogButtonBox::Close)->setFocus();
    Q_EMIT this->opened(id, request.userId, request.agentId);
}

void OpenDialog::changeEvent(QEvent *event)
{
    QDialog::changeEvent(event);
    if (event->type() == QEvent::LanguageChange) {
        m_ui->retranslateUi(this);
        updateTitle();
        updateResolved();
    }
}

void OpenDialog::updateTitle()
{
    if (m_session)
        setWindowTitle(tr("Open workspace in %1").arg(m_session->profile().displayName()));
}

void OpenDialog::setFieldsEnabled(bool enabled)
{
    for (QWidget *field :
         std::initializer_list<QWidget *>{m_ui->userEdit, m_ui->agentEdit, m_ui->policyButton, m_ui->explicitButton})
        field->setEnabled(enabled);
    const bool byId = m_ui->explicitButton->isChecked();
    m_ui->workspaceIdEdit->setEnabled(enabled && byId);
    m_ui->sessionEdit->setEnabled(enabled && !byId);
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
    m_ui->statusLabel->setStyleSheet(error ? QStringLiteral("color: %1;").arg(Tones::css(Tones::error())) : QString());
}
