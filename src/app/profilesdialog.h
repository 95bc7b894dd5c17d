#pragma once

#include "profile.h"

#include <QCoroFwd>

#include <QColor>
#include <QDialog>
#include <QHash>
#include <QStringList>

#include <memory>

namespace Ui {
class ProfilesDialog;
}
namespace Paddock {
struct BackendFactory;
class SecretStore;
} // namespace Paddock
class ConnectionTester;
class QLabel;
class QListWidgetItem;
class QTimer;

// Where the user manages connection profiles: the list (Local first) and a form with every field
// of the chosen one. Fields that do not apply to its backend are hidden. Save validates every
// field first and shows each problem next to its field; nothing (neither the settings nor the
// key) is written until all are right. API keys go to the system keychain only; when it is
// unavailable the key is kept in `sessionKeys` for this run and the user is told. Switching to
// another profile or closing with unsaved edits asks first. On Kubernetes the context field offers
// the contexts of the kubeconfig named (or of the default ones), read again when it changes; a
// kubeconfig that does not parse says so under its field at once.
class ProfilesDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ProfilesDialog)

public:
    // `secrets` is the keychain; `sessionKeys` holds keys for this run only (the console reads it
    // first). The stores must outlive the dialog.
    ProfilesDialog(Paddock::ProfileStore *store, Paddock::SecretStore *secrets, Paddock::SecretStore *sessionKeys,
                   QWidget *parent = nullptr);
    ~ProfilesDialog() override;

    // Shows the profile `id` (asking about unsaved edits first). Unknown ids are ignored.
    void selectProfile(const QString &id);
    // The profile shown; empty while a new profile has not been saved yet.
    QString currentProfileId() const { return m_currentId; }
    // Whether the form differs from what is saved (a typed key counts).
    bool hasUnsavedChanges() const;
    // Validates and saves the form, then the typed key. True when the profile was saved and its
    // key (if one was typed) went to the keychain or, failing that, to the session store.
    QCoro::Task<bool> save();

public Q_SLOTS:
    // Closes, asking first about unsaved edits (Esc, Close and the window's close button).
    void reject() override;

Q_SIGNALS:
    // After a save, a removal or a forgotten key: the console re-reads the profiles and reopens
    // these.
    void profilesChanged(const QStringList &changedIds);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    struct Field
    {
        QString name; // Paddock::Profile's member, as FieldError::field names it
        QWidget *editor; // what gets the focus
        QWidget *row; // the form row's field widget: the editor and, under it, the problem
        QLabel *error; // "<name>Error"
    };
    struct FormRow
    {
        QWidget *label; // none for a check box
        QWidget *field;
        bool shown;
    };

    void setupFields();
    void styleErrorLabels();
    void retranslate();
    void fillChoices(bool keepChosen);
    void fillProfileList();
    void showStoredProfile(const QString &id);
    void showProfile(const Paddock::Profile &profile, bool isNew);
    Paddock::Profile formProfile() const;
    QByteArray typedKey() const; // the key field's text; empty when keys do not apply
    const Paddock::BackendFactory *chosenBackend() const; // the kind chosen in the form
    void fieldEdited(const QString &field);
    void updateRows();
    // Puts the form row of `field` in the form or takes it out (see the .cpp for why).
    void setRowShown(QWidget *field, bool shown);
    bool isRowShown(QWidget *field) const;
    void rememberFormTexts();
    void updatePlaceholders();
    void updateTimeoutChoice();
    void updateKeyHints();
    void updateState();
    void showErrors(const QList<Paddock::FieldError> &errors);
    void clearError(const QString &field);
    void clearErrors();
    void showStatus(const QString &text, bool problem = false);
    void removeDraftItem();
    void setCurrentItemQuietly(const QString &id);
    QListWidgetItem *itemFor(const QString &id) const;
    void browseBasedir();
    void browseBootstrapFile();
    void browseKubeconfig();
    // The context field's choices: the contexts of the kubeconfig field's file (else the default
    // files), the current one marked; what is chosen stays. Only for backends with contexts.
    void fillContexts();
    QString chosenContext() const; // the bare context name; empty: the current context
    void setChosenContext(const QString &name);
    // What fillContexts() found wrong with the kubeconfig, shown under its field until it is edited.
    void showKubeconfigProblem(const QString &problem);

    void onCurrentItemChanged(QListWidgetItem *current);
    QCoro::Task<void> switchTo(QString id);
    QCoro::Task<void> addProfile();
    QCoro::Task<void> removeProfile();
    QCoro::Task<void> forgetKey();
    // Removes a profile's key from both stores (a static: it finishes even if the dialog goes).
    static QCoro::Task<Paddock::Result<>> removeKeys(Paddock::SecretStore *secrets, Paddock::SecretStore *sessionKeys,
                                                     QString id);
    void reportKeyNotRemoved(const QString &text, const QString &detail);
    QCoro::Task<void> closeAfterCheck();
    QCoro::Task<void> refreshKeyStatus();
    void setKeyStatus(const QString &text);
    // Asks Save / Discard / Cancel when there are unsaved edits. True when the caller may go on
    // (nothing to save, saved, or discarded).
    QCoro::Task<bool> settleUnsaved();

    std::unique_ptr<Ui::ProfilesDialog> m_ui;
    Paddock::ProfileStore *m_store;
    Paddock::SecretStore *m_secrets;
    Paddock::SecretStore *m_sessionKeys;
    QList<Field> m_fields; // in form order
    QList<FormRow> m_rows; // every row of the form, in order, shown or not
    // The form's own label, placeholder and tooltip of each field, for backends without a hint.
    struct FormTexts
    {
        QLabel *label = nullptr;
        QString labelText;
        QString placeholder;
        QString toolTip;
    };
    QHash<QString, FormTexts> m_formTexts;
    Paddock::Profile m_baseline; // the form as loaded or last saved
    QString m_currentId; // empty: a new profile, not saved yet
    QString m_returnId; // shown again when a new profile is dropped
    bool m_isNew = false;
    bool m_loading = false;
    bool m_busy = false; // a save, removal or forget is waiting for a store
    bool m_asking = false; // the unsaved-changes question is open
    bool m_keyStored = false;
    quint64 m_keyGeneration = 0; // drops key answers for a profile no longer shown
    QColor m_errorColor;
    ConnectionTester *m_tester = nullptr; // Test Connection
    QTimer *m_contextsTimer; // reads the kubeconfig again once typing in its field pauses
    QString m_kubeconfigProblem; // fillContexts()'s, shown under the kubeconfig field
};
