#pragma once

#include "profile.h"
#include "secretstore.h"

#include <QCoroFwd>

#include <QObject>

#include <map>
#include <memory>

class MainWindow;
class QSettings;
namespace Paddock {
class Backend;
class BootstrapLogStore;
class Provisioner;
class WorkspaceManager;
} // namespace Paddock

// The console's wiring: the profiles, where their keys come from, one backend per profile (made
// when the profile is first shown, kept while the console runs), and the window that shows one
// profile at a time. A profile that cannot be opened (no key, no keychain) shows its problem in
// place; the others keep working.
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

    // First start: OPEN_SANDBOX_DOMAIN (and its key) become a profile; then the last profile
    // shown (the Local one the first time) is opened.
    QCoro::Task<void> start();
    QCoro::Task<void> switchTo(QString profileId);
    // The profiles changed (saved or removed in the profiles dialog): the changed ones are
    // closed and opened again with their new settings when next shown.
    QCoro::Task<void> reload(QStringList changedIds);
    // Ends every profile's manager: the sweepers stop and the workspaces the console opened are
    // closed (paused), as AgentScope's manager does at shutdown.
    QCoro::Task<void> shutdown();

    Paddock::BootstrapLogStore *logs() const { return m_logs.get(); }
    // Keys kept for this run only (the keychain could not take them).
    Paddock::SecretStore *sessionKeys() { return &m_sessionKeys; }
    Paddock::WorkspaceManager *manager(const QString &profileId) const;

private:
    // One opened profile: its backend, and the workspace manager (with its TTL sweeper) behind
    // Open and Close.
    struct Session
    {
        Session();
        ~Session();
        Q_DISABLE_COPY_MOVE(Session)
        std::unique_ptr<Paddock::Backend> backend;
        std::unique_ptr<Paddock::Provisioner> provisioner;
        std::unique_ptr<Paddock::WorkspaceManager> manager;
        QString problem;
    };
    QCoro::Task<Session *> session(Paddock::Profile profile);
    QCoro::Task<void> end(std::unique_ptr<Session> session);
    void showProfiles();
    QCoro::Task<std::optional<QByteArray>> key(QString profileId, QString *problem);
    void offerProfiles(const QString &current);

    QSettings *m_settings;
    Paddock::SecretStore *m_secrets;
    Paddock::MemorySecretStore m_sessionKeys; // keys for this run only, when no keychain took them
    Paddock::ProfileStore m_profiles;
    std::unique_ptr<Paddock::BootstrapLogStore> m_logs;
    std::unique_ptr<MainWindow> m_window;
    std::map<QString, std::unique_ptr<Session>> m_sessions;
};
