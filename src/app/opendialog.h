#pragma once

#include <QCoroFwd>

#include <QDialog>
#include <QPointer>
#include <QStringList>
#include <QTimer>

#include <memory>

namespace Ui {
class OpenDialog;
}
namespace Paddock {
class BootstrapLogStore;
struct LogLine;
class WorkspaceManager;
struct WorkspaceRequest;
} // namespace Paddock

// Opens (provisions, or attaches to) a workspace through the profile's workspace manager, and
// shows its bootstrap log live while it runs: every step and every line the bootstrap commands
// print, in order, none dropped (lines arriving in a burst are added together, a few times a
// second, so a chatty bootstrap does not flood the GUI thread).
//
// The workspace id is shown before anything starts, as the isolation policy resolves it.
// Closing the dialog does not stop the provisioning: the manager finishes it and the table shows
// the result.
class OpenDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(OpenDialog)

public:
    struct Request
    {
        QString userId;
        QString agentId;
        QString sessionId;
        QString workspaceId; // empty: the isolation policy decides
    };

    OpenDialog(Paddock::WorkspaceManager *manager, Paddock::BootstrapLogStore *logs, QString instanceKey,
               const Request &prefill, QWidget *parent = nullptr);
    ~OpenDialog() override;

    // What the Open button does.
    QCoro::Task<void> start();
    bool isRunning() const { return m_running; }
    // The id the fields resolve to, or empty with the reason in the dialog.
    QString resolvedId() const;
    QString logText() const;
    QString statusText() const;

Q_SIGNALS:
    // The workspace is open (provisioned or attached to) for this user and agent.
    void opened(const QString &workspaceId, const QString &userId, const QString &agentId);

protected:
    void changeEvent(QEvent *event) override;

private:
    Paddock::WorkspaceRequest currentRequest() const;
    void updateResolved();
    void setFieldsEnabled(bool enabled);
    void onLine(const QString &instanceKey, const QString &workspaceId, const Paddock::LogLine &line);
    void flushLines();
    void setStatus(const QString &text, bool error);

    std::unique_ptr<Ui::OpenDialog> m_ui;
    QPointer<Paddock::WorkspaceManager> m_manager;
    QPointer<Paddock::BootstrapLogStore> m_logs;
    QString m_instanceKey;
    QString m_workspaceId; // the one being opened
    QStringList m_pending; // lines not shown yet
    QTimer m_flush;
    bool m_running = false;
};
