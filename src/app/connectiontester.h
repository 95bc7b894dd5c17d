#pragma once

#include "profile.h"

#include <QCoroFwd>

#include <QByteArray>
#include <QWidget>

#include <functional>

namespace Paddock {
class SecretStore;
}
class ElidedLabel;
class QPushButton;

// The Profiles dialog's Test Connection: makes a backend from the profile as it is in the form
// (not saved; through the BackendRegistry) with the key typed, else the one kept for this session,
// else the keychain's, lists its workspaces once and says "Connected: N workspaces" or the error,
// in place. Cancel (the same button) drops the answer at once; the request itself ends by itself
// (the backend lives until its listing returns). Nothing is saved, and the key is never logged.
class ConnectionTester final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConnectionTester)

public:
    // What to test: the form's profile, the key typed in it (empty: none typed) and the id under
    // which its key is stored (empty for a profile not saved yet).
    struct Request
    {
        Paddock::Profile profile;
        QByteArray typedKey;
        QString keyAccount;
    };

    ConnectionTester(Paddock::SecretStore *secrets, Paddock::SecretStore *sessionKeys, QWidget *parent = nullptr);
    ~ConnectionTester() override;

    // Called when the button is pressed, for what the form shows then.
    void setRequestSource(std::function<Request()> source) { m_source = std::move(source); }
    bool isRunning() const { return m_running; }
    // The result shown ("Connected: 3 workspaces", an error); empty when none.
    QString resultText() const;
    bool resultIsProblem() const { return m_problem; }
    // Forgets the result shown (the form now shows another profile) and drops a test running.
    void reset();
    void cancel();

Q_SIGNALS:
    // A test ended, however it ended (not when cancelled): `ok` when it listed.
    void finished(bool ok);

protected:
    void changeEvent(QEvent *event) override;

private:
    QCoro::Task<void> run();
    void showResult(const QString &text, bool problem);
    void setRunning(bool running);
    void retranslate();

    Paddock::SecretStore *m_secrets;
    Paddock::SecretStore *m_sessionKeys;
    std::function<Request()> m_source;
    QPushButton *m_button;
    ElidedLabel *m_result;
    bool m_running = false;
    bool m_problem = false;
    quint64 m_generation = 0; // drops the answer of a test cancelled or replaced
};
