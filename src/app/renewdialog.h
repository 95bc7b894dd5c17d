#pragma once

#include "renewal.h"
#include "workspacetreemodel.h"

#include <QDateTime>
#include <QDialog>
#include <QList>
#include <QPointer>

#include <chrono>
#include <functional>
#include <memory>

namespace Ui {
class RenewDialog;
}
class QMessageBox;

// Asks how far to move the expiry of the selected workspaces and shows, before anything applies,
// each one's expiry now, after the renewal, and the change. By default it extends: each expiry
// moves later by the duration (+1 h, +4 h, +24 h at a click; minutes, hours or days). "Expire
// this long from now" sets now + duration (as the OpenSandbox SDKs compute it, on this
// computer's clock), which can be sooner than a workspace expires now: such rows are marked, and
// accepting asks once more, with Cancel as the default, before shortening any (an expired
// sandbox is deleted with its files). A paused sandbox whose timer is stopped (E2B) is not
// renewed (its server refuses: resuming starts a new timeout); the dialog says it is skipped.
class RenewDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RenewDialog)

public:
    using Clock = std::function<QDateTime()>;
    enum Unit {
        Minutes,
        Hours,
        Days,
    };

    // `skipped`: the selected workspaces that cannot be renewed (they never expire, or they are
    // paused with their timer stopped, as E2B's are: the dialog says which).
    RenewDialog(const QList<WorkspaceRecord> &workspaces, const QList<WorkspaceRecord> &skipped,
                QWidget *parent = nullptr);
    ~RenewDialog() override;

    Paddock::RenewMode mode() const;
    void setMode(Paddock::RenewMode mode);
    // The duration: the amount in its unit.
    std::chrono::seconds amount() const;
    void setAmount(qint64 amount, Unit unit);
    void setClock(Clock clock);
    // What the renewal does to a row's workspace, as of now.
    Paddock::Renewal renewalFor(int row) const;
    // How many rows would expire sooner than they do now.
    int shorteningCount() const;
    // The user confirmed that some workspaces expire sooner (only asked when some would).
    bool allowsShorter() const { return m_allowShorter; }
    // The columns' texts for a row (for tests), and whether the row is marked as shortened.
    QString previewAfter(int row) const;
    QString previewBefore(int row) const;
    QString previewChange(int row) const;
    bool isMarkedShorter(int row) const;

    // OK: asks first when a workspace would expire sooner; closes only once that is confirmed.
    void accept() override;

protected:
    void changeEvent(QEvent *event) override;

private:
    void updatePreview();
    void retranslate();
    void fitColumns();

    std::unique_ptr<Ui::RenewDialog> m_ui;
    Clock m_clock;
    QList<WorkspaceRecord> m_workspaces;
    int m_skipped = 0; // never expire (or otherwise cannot be renewed)
    int m_timerStopped = 0; // paused, their timer stopped until resumed
    bool m_allowShorter = false;
    QPointer<QMessageBox> m_confirm;
};
