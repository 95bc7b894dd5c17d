#pragma once

#include "profile.h"
#include "secretstore.h"
#include "tasktracker.h"
#include "workspacemanager.h"

#include <QCoroFwd>

#include <QHash>
#include <QObject>

#include <map>
#include <memory>

class ConsoleEvents;
class EventHistory;
class ExpiryFeed;
class MainWindow;
class NotificationCenter;
class QuitController;
class TrayController;
class QProcessEnvironment;
class QSettings;
namespace Paddock {
class BootstrapLogStore;
class ProfileSession;
template<typename T> class Broadcast;
} // namespace Paddock

// The console's wiring: the profiles, where their keys come from, one ProfileSession per profile
// (made when the profile is first shown, kept while the console runs), and the window that shows
// one profile at a time. A profile that cannot be opened (no key, no keychain) shows its problem in
// place; the others keep working. A profile's session is made once however often it is chosen
// while its key is read (single flight), the last choice is what shows, and a session that ends
// (its profile changed, the console quits) is freed only once its shutdown() completed.
class Console final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(Console)

public:
    // logRoot: where bootstrap logs go; empty: the XDG data location.
    Console(QSettings *settings, Paddock::SecretStore *secrets, const QString &logRoot = {}, QObject *parent = nullptr);
    ~Console() override;

    MainWindow *window() const { return m_window.get(); }
    Paddock::ProfileStore &profiles() { return m_profiles; }

    // First start: OPEN_SANDBOX_DOMAIN (and its key) become a profile; an E2B API key the user
    // already has is offered as one (E2BKeyOffer); then the last profile shown (the Local one the
    // first time) is opened.
    QCoro::Task<void> start();
    // A profile's id, or AllProfiles::id() for every profile at once.
    QCoro::Task<void> switchTo(QString profileId);
    // The profiles changed (saved or removed in the profiles dialog). A changed profile whose
    // backend, manager or key settings changed is closed (its manager stops, closing what it
    // opened) and opened again when next shown; a new name, refresh interval or read-only flag
    // just applies.
    QCoro::Task<void> reload(QStringList changedIds);
    // Ends every profile's manager: the sweepers stop and the workspaces the console opened are
    // closed (paused), as AgentScope's manager does at shutdown, or left running.
    QCoro::Task<void> shutdown(Paddock::WorkspaceManager::StopMode mode = Paddock::WorkspaceManager::StopMode::Close);
    // How many workspaces this console holds open (or is opening), over every profile.
    int openWorkspaceCount() const;
    // The user asked to quit (the window's close, File > Quit): decides, asking when some
    // workspaces are open (QuitController), then emits quitDecided; Cancel keeps running.
    QCoro::Task<void> requestQuit();
    // A signal asked to quit: nothing is asked; the open workspaces are closed, and the log says so.
    void quitOnSignal(int signal);
    QuitController *quitController() const { return m_quit; }
    // The desktop notifications, and the optional tray icon.
    NotificationCenter *notifications() const { return m_notifications; }
    TrayController *tray() const { return m_tray; }
    // Expiry notifications of the open profiles the window does not show.
    ExpiryFeed *expiryFeed() const { return m_expiryFeed; }
    // A notification's Show: the window in front, the profile shown, the workspaces selected.
    void showWorkspaces(const QString &profileId, const QStringList &workspaceIds);

    Paddock::BootstrapLogStore *logs() const { return m_logs.get(); }
    // The console's one stream of events (every profile's, and the changes its listings show),
    // and the event history that keeps them (events.jsonl next to the bootstrap logs' folder).
    ConsoleEvents *events() const { return m_events; }
    EventHistory *history() const { return m_history.get(); }
    // Keys kept for this run only (the keychain could not take them).
    Paddock::SecretStore *sessionKeys() { return &m_sessionKeys; }
    // The live session of a profile (null until it was first shown, or while it is remade).
    Paddock::ProfileSession *session(const QString &profileId) const;

Q_SIGNALS:
    // Quit now, doing this with the open workspaces (then the application exits).
    void quitDecided(Paddock::WorkspaceManager::StopMode mode);

private:
    // Whether a session opened as `was` (with `key`) serves `now` (with `nowKey`): only the name,
    // the refresh interval, read-only and the notifications may differ, since the window and the
    // notifications apply those themselves.
    static bool stillServes(const Paddock::Profile &was, const QByteArray &key, const Paddock::Profile &now,
                            const QByteArray &nowKey);
    // The profile's session, made (its key read first) if there is none; one at a time per profile.
    QCoro::Task<Paddock::ProfileSession *> sessionFor(Paddock::Profile profile);
    // Takes a session out of use, shuts it down and frees it (the console waits for that at quit).
    QCoro::Task<void> end(std::unique_ptr<Paddock::ProfileSession> session,
                          Paddock::WorkspaceManager::StopMode mode = Paddock::WorkspaceManager::StopMode::Close);
    // "All profiles": every profile's session (made if need be), shown together.
    QCoro::Task<void> switchToAll();
    void showProfiles();
    QCoro::Task<std::optional<QByteArray>> key(QString profileId, QString *problem);
    void offerProfiles(const QString &current);
    // A banner offering an E2B API key found in the environment or E2B's CLI's file as a profile.
    void offerExistingE2BKey(const QProcessEnvironment &env);

    QSettings *m_settings;
    Paddock::SecretStore *m_secrets;
    Paddock::MemorySecretStore m_sessionKeys; // keys for this run only, when no keychain took them
    Paddock::ProfileStore m_profiles;
    std::unique_ptr<Paddock::BootstrapLogStore> m_logs;
    ConsoleEvents *m_events;
    std::unique_ptr<EventHistory> m_history;
    std::unique_ptr<MainWindow> m_window;
    QuitController *m_quit;
    NotificationCenter *m_notifications;
    TrayController *m_tray;
    ExpiryFeed *m_expiryFeed;
    std::map<QString, std::unique_ptr<Paddock::ProfileSession>> m_sessions;
    // Sessions being made (their key is read), by profile id: who asks meanwhile waits for it.
    std::map<QString, std::shared_ptr<Paddock::Broadcast<Paddock::ProfileSession *>>> m_making;
    QString m_wanted; // the profile chosen last: a slower earlier choice does not show
    bool m_quitting = false; // shutdown() began: no session is made any more
    QHash<QString, quint64> m_saves; // how often each profile was saved (reload) this run
    Paddock::TaskTracker m_ending; // sessions shutting down
};
