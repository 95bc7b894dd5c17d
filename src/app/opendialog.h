#pragma once

#include "profilesession.h"
#include "result.h"

#include <QCoroFwd>

#include <QDialog>
#include <QPointer>
#include <QStringList>
#include <QTimer>

#include <functional>
#include <memory>
#include <optional>

namespace Ui {
class OpenDialog;
}
namespace Paddock {
class BootstrapLogStore;
struct LogLine;
} // namespace Paddock

// Opens (provisions, or attaches to) a workspace through the profile's workspace manager, and
// shows its bootstrap log live while it runs: every step and every line the bootstrap commands
// print, in order, none dropped (lines arriving in a burst are added together, a few times a
// second, so a chatty bootstrap does not flood the GUI thread).
//
// What will be opened is always what the dialog shows: the id the isolation policy assigns to
// the user and agent typed (a PER_SESSION id is minted once, shown, and that one is opened), or,
// only when the user chooses "Reattach to workspace id", the id typed there. The dialog says
// whether that workspace exists (as of the last listing) and whose it is, before anything
// starts. Closing the dialog does not stop the provisioning: the manager finishes it and the
// table shows the result.
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
        QString workspaceId; // the id field's text
        bool byId = false; // "Reattach to workspace id" chosen (a deliberate choice, never a prefill)
    };
    // A workspace of the profile as the last listing showed it.
    struct Existing
    {
        QString userId;
        QString agentId;
        QString state; // as the table names it
    };
    using Lookup = std::function<std::optional<Existing>(const QString &workspaceId)>;

    // Opens through the profile's session (its manager: the isolation policy, the cache).
    OpenDialog(Paddock::ProfileSession *session, const Request &prefill, QWidget *parent = nullptr);
    // How the dialog tells whether the workspace it would open exists, and whose it is.
    void setLookup(Lookup lookup);
    // The list the lookup reads changed (a listing, the workspace just opened): what the dialog
    // says of the workspace it would open is looked up again.
    void lookupChanged();
    ~OpenDialog() override;
    // The session it opens through (null once that session ended).
    Paddock::ProfileSession *session() const { return m_session; }

    // What the Open button does.
    QCoro::Task<void> start();
    bool isRunning() const { return m_running; }
    // The id the fields resolve to, or empty with the reason in the dialog.
    QString resolvedId() const;
    // What the dialog says will be opened.
    QString resolvedText() const;
    QString logText() const;
    QString statusText() const;

Q_SIGNALS:
    // The workspace is open (provisioned or attached to) for this user and agent.
    void opened(const QString &workspaceId, const QString &userId, const QString &agentId);

protected:
    void changeEvent(QEvent *event) override;

private:
    // The request that opens exactly the id shown (always with an explicit id).
    Paddock::WorkspaceRequest currentRequest() const;
    Paddock::Result<QString> resolve() const;
    void updateMode();
    // The title names the profile it opens into (in "All profiles" any of them).
    void updateTitle();
    void updateResolved();
    void setFieldsEnabled(bool enabled);
    void onLine(const QString &instanceKey, const QString &workspaceId, const Paddock::LogLine &line);
    void flushLines();
    void setStatus(const QString &text, bool error);

    std::unique_ptr<Ui::OpenDialog> m_ui;
    QPointer<Paddock::ProfileSession> m_session; // opens through its manager (the policy, the cache)
    QPointer<Paddock::BootstrapLogStore> m_logs;
    QString m_instanceKey;
    QString m_workspaceId; // the one being opened
    QString m_mintedId; // PER_SESSION: the id minted for the next open
    Lookup m_lookup;
    QStringList m_pending; // lines not shown yet
    QTimer m_flush;
    bool m_running = false;
};
