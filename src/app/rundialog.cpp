#include "rundialog.h"

#include "canceltoken.h"
#include "colorscheme.h"
#include "commandhistory.h"
#include "logview.h"
#include "profilesession.h"
#include "ui_rundialog.h"
#include "workspacetreemodel.h"

#include <QCoroTask>

#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QFontDatabase>
#include <QKeyEvent>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>

using namespace Paddock;

namespace {

constexpr int StderrLine = 1; // a block's user state: the line came on stderr

QString seconds(qint64 ms)
{
    return QLocale().toString(double(ms) / 1000.0, 'f', 2);
}

} // namespace

RunDialog::RunDialog(ProfileSession *session, const SandboxInfo &sandbox, CommandHistory *history, QWidget *parent)
    : QDialog(parent)
    , m_ui(std::make_unique<Ui::RunDialog>())
    , m_session(session)
    , m_sandbox(sandbox)
    , m_profileId(session ? session->profileId() : QString())
    , m_stops(session && session->can(Capability::StopInsteadOfPause))
    , m_history(history)
{
    m_ui->setupUi(this);
    setObjectName(QStringLiteral("runDialog"));
    m_ui->outputView->setMaximumBlockCount(MaxLines);
    m_ui->outputView->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_ui->pausedFrame->setStyleSheet(
        QStringLiteral("#pausedFrame { background: #fef3c7; border: 1px solid #f59e0b; border-radius: 4px; } "
                       "#pausedFrame QLabel { color: #78350f; }"));
    m_ui->pausedFrame->hide();
    m_ui->noteLabel->hide();
    m_ui->commandBox->lineEdit()->setClearButtonEnabled(true);
    m_ui->commandBox->setCompleter(nullptr); // the list is the history; no completion in place
    fillHistory();
    m_ui->commandBox->setEditText(QString());

    m_tick.setInterval(100);
    connect(&m_tick, &QTimer::timeout, this, &RunDialog::updateStatus);
    m_flushTimer.setSingleShot(true);
    m_flushTimer.setInterval(50);
    connect(&m_flushTimer, &QTimer::timeout, this, &RunDialog::flush);

    connect(m_ui->runButton, &QPushButton::clicked, this, [this] { run(); });
    connect(m_ui->commandBox->lineEdit(), &QLineEdit::returnPressed, this, [this] { run(); });
    connect(m_ui->cancelButton, &QPushButton::clicked, this, &RunDialog::stop);
    connect(m_ui->resumeButton, &QPushButton::clicked, this, [this] { resume(); });
    connect(m_ui->copyButton, &QPushButton::clicked, this,
            [this] { QApplication::clipboard()->setText(m_ui->outputView->toPlainText()); });
    connect(m_ui->buttonBox, &QDialogButtonBox::rejected, this, [this] {
        stop();
        QDialog::reject();
    });
    connect(m_ui->commandBox, &QComboBox::editTextChanged, this, &RunDialog::updateButtons);

    retranslate();
    if (m_sandbox.state != SandboxState::Running)
        showNotRunning(QString(), m_sandbox.state == SandboxState::Paused);
    updateButtons();
    m_ui->commandBox->setFocus();
}

RunDialog::~RunDialog()
{
    // The command goes with its dialog; what it still prints is dropped (see run()).
    if (m_cancel)
        m_cancel->cancel();
}

void RunDialog::retranslate()
{
    const QString id = m_sandbox.workspaceId.isEmpty() ? m_sandbox.sandboxId : m_sandbox.workspaceId;
    setWindowTitle(tr("Run Command in %1").arg(id));
    m_ui->workspaceLabel->setText(
        tr("Runs a shell command (sh -c) in the working folder of workspace <b>%1</b> of profile <b>%2</b>.")
            .arg(id.toHtmlEscaped(), (m_session ? m_session->profile().displayName() : m_profileId).toHtmlEscaped()));
    m_ui->commandBox->setAccessibleName(tr("Command"));
    m_ui->outputView->setAccessibleName(tr("Output"));
    m_ui->outputView->setAccessibleDescription(tr("What the command printed; lines on stderr are marked red"));
    if (m_sandbox.state != SandboxState::Running && m_ui->pausedFrame->isVisible()
        && m_ui->pausedLabel->text().isEmpty())
        showNotRunning(QString(), m_ui->resumeButton->isVisible());
    updateStatus();
    // The note about odd bytes, in the language of the moment.
    QStringList notes;
    if (m_invalidUtf8)
        notes.append(tr("The output has bytes that are not UTF-8; they are shown as \uFFFD."));
    if (m_nul)
        notes.append(tr("The output has NUL bytes; they are shown as ^@."));
    m_ui->noteLabel->setText(notes.join(u' '));
    m_ui->noteLabel->setVisible(!notes.isEmpty());
}

void RunDialog::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange) {
        m_ui->retranslateUi(this);
        retranslate();
    }
    QDialog::changeEvent(event);
}

void RunDialog::closeEvent(QCloseEvent *event)
{
    stop(); // the command goes with the dialog
    QDialog::closeEvent(event);
}

void RunDialog::keyPressEvent(QKeyEvent *event)
{
    // Escape stops a command that runs; once none runs, it closes the dialog.
    if (event->key() == Qt::Key_Escape && m_running) {
        stop();
        event->accept();
        return;
    }
    QDialog::keyPressEvent(event);
}

QString RunDialog::command() const
{
    return m_ui->commandBox->currentText();
}

void RunDialog::setCommand(const QString &command)
{
    m_ui->commandBox->setEditText(command);
}

void RunDialog::fillHistory()
{
    const QString typed = m_ui->commandBox->currentText();
    const QSignalBlocker blocker(m_ui->commandBox);
    m_ui->commandBox->clear();
    if (m_history)
        m_ui->commandBox->addItems(m_history->commands(m_profileId));
    m_ui->commandBox->setCurrentIndex(-1);
    m_ui->commandBox->setEditText(typed);
}

void RunDialog::updateButtons()
{
    const bool ready = !m_running && !m_resuming && m_session && !m_session->isShuttingDown()
        && !m_ui->pausedFrame->isVisible() && !command().trimmed().isEmpty();
    m_ui->runButton->setEnabled(ready);
    m_ui->cancelButton->setEnabled(m_running && !m_stopped);
    m_ui->resumeButton->setEnabled(!m_resuming && !m_running && m_session && !m_session->isShuttingDown());
}

void RunDialog::updateStatus()
{
    QString text;
    bool error = false;
    if (m_running) {
        text = m_stopped ? tr("Stopping…") : tr("Running… %1 s").arg(seconds(m_clock.elapsed()));
    } else if (m_resuming) {
        text = tr("Resuming the workspace…");
    } else {
        text = m_status;
        error = m_statusIsError;
    }
    m_ui->statusLabel->setText(text);
    m_ui->statusLabel->setStyleSheet(error ? QStringLiteral("QLabel { color: %1; }").arg(Tones::css(Tones::error()))
                                           : QString());
}

void RunDialog::showNotRunning(const QString &message, bool resumable)
{
    QString text = message;
    if (text.isEmpty()) {
        if (m_sandbox.state == SandboxState::Paused) {
            text = m_stops ? tr("This workspace is stopped. Commands run only in a running workspace: resume it first.")
                           : tr("This workspace is paused. Commands run only in a running workspace: resume it first.");
        } else {
            text = tr("This workspace is %1. Commands run only in a running workspace.")
                       .arg(WorkspaceTreeModel::stateText(m_sandbox.state, m_sandbox.rawState,
                                                          m_session ? m_session->capabilities() : Capabilities{}));
        }
    }
    m_ui->pausedLabel->setText(text);
    m_ui->resumeButton->setVisible(resumable);
    m_ui->pausedFrame->show();
    updateButtons();
}

bool RunDialog::saysNotRunning() const
{
    return !m_ui->pausedFrame->isHidden();
}

bool RunDialog::offersResume() const
{
    return saysNotRunning() && !m_ui->resumeButton->isHidden();
}

QCoro::Task<void> RunDialog::resume()
{
    if (m_resuming || m_running || !m_session)
        co_return;
    m_resuming = true;
    updateButtons();
    updateStatus();
    const QPointer<RunDialog> self(this);
    const QPointer<ProfileSession> session = m_session;
    const SandboxInfo sandbox = m_sandbox;
    auto resumed = co_await session->resume(sandbox);
    if (!self)
        co_return;
    m_resuming = false;
    if (!resumed) {
        m_status = tr("The workspace could not be resumed: %1").arg(resumed.error().message);
        m_statusIsError = true;
    } else {
        m_sandbox = *resumed;
        m_ui->pausedFrame->hide();
        m_status = tr("The workspace was resumed; commands can run.");
        m_statusIsError = false;
    }
    updateButtons();
    updateStatus();
    m_ui->commandBox->setFocus();
}

void RunDialog::stop()
{
    if (!m_running || !m_cancel || m_stopped)
        return;
    m_stopped = true;
    m_cancel->cancel();
    updateButtons();
    updateStatus();
}

QCoro::Task<void> RunDialog::run()
{
    const QString line = command();
    if (m_running || m_resuming || line.trimmed().isEmpty() || m_ui->pausedFrame->isVisible())
        co_return;
    if (!m_session || m_session->isShuttingDown()) {
        m_status = tr("The profile was closed: open its workspaces again to run commands.");
        m_statusIsError = true;
        updateStatus();
        co_return;
    }
    if (m_history)
        m_history->add(m_profileId, line);
    fillHistory();

    m_ui->outputView->clear();
    m_pending.clear();
    m_hasOutput = false;
    m_invalidUtf8 = false;
    m_nul = false;
    m_exitCode.reset();
    m_running = true;
    m_stopped = false;
    m_cancel = std::make_shared<CancelToken>();
    m_clock.start();
    m_tick.start();
    retranslate();
    updateButtons();

    const QPointer<RunDialog> self(this);
    ExecRequest request;
    request.argv = QStringList{QStringLiteral("sh"), QStringLiteral("-c"), line};
    request.cancel = m_cancel;
    // Lines after the dialog went (a stopped command's last output) are dropped.
    request.onLine = [self](OutputChannel channel, const QByteArray &bytes) {
        if (self)
            self->append(channel, bytes);
    };
    const QPointer<ProfileSession> session = m_session;
    const QString sandboxId = m_sandbox.sandboxId;
    auto ran = co_await session->exec(sandboxId, request);
    if (!self)
        co_return;
    flush();
    m_running = false;
    m_tick.stop();
    m_elapsedMs = m_clock.elapsed();
    if (ran) {
        m_exitCode = ran->exitCode;
        m_status = tr("Exit code %1 after %2 s.").arg(ran->exitCode).arg(seconds(m_elapsedMs));
        m_statusIsError = ran->exitCode != 0;
    } else if (ran.error().kind == Error::Kind::Cancelled && m_stopped) {
        m_status = tr("Cancelled after %1 s: the command was stopped.").arg(seconds(m_elapsedMs));
        m_statusIsError = true;
    } else if (ran.error().kind == Error::Kind::Conflict) {
        // It stopped running meanwhile: said, with Resume.
        m_status = ran.error().message;
        m_statusIsError = true;
        showNotRunning(ran.error().message, true);
    } else {
        m_status = tr("The command could not be run: %1").arg(ran.error().message);
        m_statusIsError = true;
    }
    updateButtons();
    updateStatus();
    Q_EMIT commandEnded();
}

void RunDialog::append(OutputChannel channel, const QByteArray &line)
{
    bool invalid = false;
    bool nul = false;
    m_pending.append({channel, decodeForDisplay(line, &invalid, &nul)});
    if ((invalid && !m_invalidUtf8) || (nul && !m_nul)) {
        m_invalidUtf8 = m_invalidUtf8 || invalid;
        m_nul = m_nul || nul;
        retranslate();
    }
    if (!m_flushTimer.isActive())
        m_flushTimer.start();
}

void RunDialog::flush()
{
    m_flushTimer.stop();
    if (m_pending.isEmpty())
        return;
    QScrollBar *bar = m_ui->outputView->verticalScrollBar();
    const bool atEnd = bar->value() == bar->maximum();
    QTextDocument *document = m_ui->outputView->document();
    QTextCursor cursor(document);
    cursor.beginEditBlock();
    cursor.movePosition(QTextCursor::End);
    QTextCharFormat plain;
    QTextCharFormat red;
    red.setForeground(Tones::error());
    QTextBlockFormat normal;
    QTextBlockFormat marked;
    marked.setBackground(Tones::errorBackground());
    bool first = !m_hasOutput;
    m_hasOutput = true;
    for (const auto &[channel, text] : std::as_const(m_pending)) {
        const bool err = channel == OutputChannel::Stderr;
        if (first) {
            cursor.setBlockFormat(err ? marked : normal);
            first = false;
        } else {
            cursor.insertBlock(err ? marked : normal);
        }
        cursor.insertText(text, err ? red : plain);
        cursor.block().setUserState(err ? StderrLine : 0);
    }
    cursor.endEditBlock();
    m_pending.clear();
    if (atEnd)
        bar->setValue(bar->maximum());
}

QString RunDialog::outputText() const
{
    return m_ui->outputView->toPlainText();
}

QStringList RunDialog::stderrLines() const
{
    QStringList lines;
    for (QTextBlock block = m_ui->outputView->document()->begin(); block.isValid(); block = block.next()) {
        if (block.userState() == StderrLine)
            lines.append(block.text());
    }
    return lines;
}

QString RunDialog::statusText() const
{
    return m_ui->statusLabel->text();
}

QString RunDialog::noteText() const
{
    return m_ui->noteLabel->isHidden() ? QString() : m_ui->noteLabel->text();
}
