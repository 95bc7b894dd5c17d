#pragma once

#include "sandbox.h"

#include <QCoroFwd>

#include <QDialog>
#include <QElapsedTimer>
#include <QPointer>
#include <QTimer>

#include <memory>
#include <optional>

namespace Ui {
class RunDialog;
}
namespace Paddock {
class CancelToken;
class ProfileSession;
} // namespace Paddock
class CommandHistory;

// Run Command: a shell command (`sh -c`) in one workspace, through its profile's session
// (ProfileSession::exec). The output shows as it arrives, stdout and stderr in the order they
// came, stderr lines red on a pale red ground (as the log viewer shows them); bytes that are not
// UTF-8 show as U+FFFD and NUL as ^@, with a note saying so. When it ends: its exit code and how
// long it took. Stop cancels it (the backend ends its whole process group) and says it was
// stopped; closing the dialog stops it too. The profile's commands are kept (CommandHistory):
// the command box offers them, newest first (Up and Down). A workspace that is not running is
// said to be so, with Resume (the session's, which the user sees in the list) where it is paused:
// no command starts a hidden resume.
class RunDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RunDialog)

public:
    // At most this many lines are shown (the oldest go first).
    static constexpr int MaxLines = 20'000;

    // `history` must outlive the dialog.
    RunDialog(Paddock::ProfileSession *session, const Paddock::SandboxInfo &sandbox, CommandHistory *history,
              QWidget *parent = nullptr);
    // Stops a command still running.
    ~RunDialog() override;

    QString command() const;
    void setCommand(const QString &command);
    // Runs the command in the box (what Run does); nothing while one runs.
    QCoro::Task<void> run();
    // Stops the command that runs (what Stop does).
    void stop();
    bool isRunning() const { return m_running; }

    // What the output shows, as text (both streams, in the order they came).
    QString outputText() const;
    // The lines shown that came on stderr.
    QStringList stderrLines() const;
    QString statusText() const;
    QString noteText() const;
    // The exit code of the last command that ended, if it ended by itself.
    std::optional<int> lastExitCode() const { return m_exitCode; }
    // Whether the dialog says the workspace is not running (and offers Resume where it can).
    bool saysNotRunning() const;
    bool offersResume() const;
    // Resumes the workspace (what Resume does).
    QCoro::Task<void> resume();

Q_SIGNALS:
    // A command ended (finished, failed to run, or stopped).
    void commandEnded();

protected:
    void changeEvent(QEvent *event) override;
    void closeEvent(QCloseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;

private:
    void retranslate();
    void fillHistory();
    void updateButtons();
    void updateStatus();
    void showNotRunning(const QString &message, bool resumable);
    void append(Paddock::OutputChannel channel, const QByteArray &line);
    void flush();

    std::unique_ptr<Ui::RunDialog> m_ui;
    QPointer<Paddock::ProfileSession> m_session;
    Paddock::SandboxInfo m_sandbox;
    QString m_profileId;
    bool m_stops = false; // the profile stops instead of pausing
    CommandHistory *m_history;
    std::shared_ptr<Paddock::CancelToken> m_cancel;
    bool m_running = false;
    bool m_resuming = false;
    bool m_stopped = false;
    bool m_invalidUtf8 = false;
    bool m_nul = false;
    bool m_hasOutput = false; // a line was shown since the output was cleared
    std::optional<int> m_exitCode;
    QElapsedTimer m_clock;
    qint64 m_elapsedMs = 0;
    QString m_status; // what the status line says once a command ended (empty: nothing ran)
    bool m_statusIsError = false;
    QTimer m_tick; // the running time, while a command runs
    QTimer m_flushTimer; // lines are shown in batches
    QList<std::pair<Paddock::OutputChannel, QString>> m_pending;
};
