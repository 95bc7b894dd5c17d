#pragma once

#include "workspacetreemodel.h"

#include <QDateTime>
#include <QDialog>
#include <QList>

#include <chrono>
#include <functional>
#include <memory>

namespace Ui {
class RenewDialog;
}

// Asks how far to move the expiry of the selected workspaces and shows, before anything
// applies, each one's expiry now and after the renewal (now + duration on this computer's clock,
// as the OpenSandbox SDKs compute it).
class RenewDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RenewDialog)

public:
    using Clock = std::function<QDateTime()>;

    RenewDialog(const QList<WorkspaceRecord> &workspaces, int skipped, QWidget *parent = nullptr);
    ~RenewDialog() override;

    std::chrono::seconds duration() const;
    void setDuration(std::chrono::minutes minutes);
    void setClock(Clock clock);
    // The "after" column's text for a row (for tests).
    QString previewAfter(int row) const;
    QString previewBefore(int row) const;

protected:
    void changeEvent(QEvent *event) override;

private:
    void updatePreview();
    void retranslate();

    std::unique_ptr<Ui::RenewDialog> m_ui;
    Clock m_clock;
    QList<WorkspaceRecord> m_workspaces;
    int m_skipped = 0;
};
