#pragma once

#include "backends/e2b/existingkey.h"

#include <QCoroFwd>

#include <QFrame>

class QLabel;
class QMainWindow;
class QPushButton;
class QSettings;
namespace Paddock {
class ProfileStore;
class SecretStore;
} // namespace Paddock

// The offer of an E2B API key the user already has (E2B_API_KEY, or the key E2B's CLI keeps in
// ~/.e2b/config.json) as an E2B profile: a banner across the top of the window, asking nothing
// modally. Add Profile makes the profile (its domain and URLs from E2B_DOMAIN, E2B_API_URL and
// E2B_SANDBOX_URL) and moves the key into the keychain through the SecretStore (a keychain that
// refuses it: the key is kept for this run only, as any other), never anywhere else; the CLI's
// file is not touched, and the banner says that the plain copy is still there. Not Now hides it
// for this run; Don't Ask Again for good (in the settings). Offered at start while no E2B profile
// exists and the offer was not declined (`wanted()`).
class E2BKeyOffer final : public QFrame
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(E2BKeyOffer)

public:
    // The stores and settings must outlive the banner. `home` is what "~" stands for in what it says.
    E2BKeyOffer(Paddock::E2B::ExistingKey found, Paddock::ProfileStore *profiles, Paddock::SecretStore *secrets,
                Paddock::SecretStore *sessionKeys, QSettings *settings, const QString &home, QWidget *parent = nullptr);
    ~E2BKeyOffer() override;

    // Whether to offer a key at all: no E2B profile yet, and the offer not declined for good.
    static bool wanted(const Paddock::ProfileStore &profiles, const QSettings &settings);
    // A banner above everything else in `window`'s central widget.
    static E2BKeyOffer *addTo(QMainWindow *window, Paddock::E2B::ExistingKey found, Paddock::ProfileStore *profiles,
                              Paddock::SecretStore *secrets, Paddock::SecretStore *sessionKeys, QSettings *settings,
                              const QString &home);

    // Add Profile: the profile, then its key. Done when the banner says how it went.
    QCoro::Task<void> addProfile();
    void notNow();
    void neverAsk();
    // The id of the profile made (empty until then).
    QString profileId() const { return m_profileId; }

Q_SIGNALS:
    // The profile is saved and its key stored (or kept for this run): the console shows it.
    void profileAdded(const QString &id);

protected:
    void changeEvent(QEvent *event) override;

private:
    enum class Stage {
        Offered,
        Adding,
        Added, // the key is in the keychain
        AddedForThisRun, // the keychain refused it: kept in memory until Paddock quits
        Failed, // the profile could not be saved
    };
    void retranslate();
    QString where() const; // where the key was found, as the banner says it
    QString plainCopies() const; // where a plain copy stays, as the banner says it
    QString displayPath(const QString &path) const;

    Paddock::E2B::ExistingKey m_found;
    Paddock::ProfileStore *m_profiles;
    Paddock::SecretStore *m_secrets;
    Paddock::SecretStore *m_sessionKeys;
    QSettings *m_settings;
    QString m_home;
    Stage m_stage = Stage::Offered;
    QString m_profileId;
    QString m_profileName;
    QString m_problem; // why the profile was not saved, or why the keychain refused the key
    QLabel *m_text;
    QPushButton *m_addButton;
    QPushButton *m_notNowButton;
    QPushButton *m_neverButton;
    QPushButton *m_closeButton;
};
