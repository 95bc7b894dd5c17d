#pragma once

#include "sandbox.h"
#include "workspacetreemodel.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include <chrono>
#include <functional>
#include <optional>

namespace Paddock {
class ProfileSession;
} // namespace Paddock

// Keeps the tree live between listings where the backend can watch (Capability::Watch): while
// active (the window is visible) it has the shown profile's session watched, gathers what the
// session reports (a sandbox changed, appeared or went) and applies each burst to the model in
// one pass (WorkspaceTreeModel::applyChanges, the listing's own code path), decorated as the
// window decorates a listing. The window's listings at the refresh interval still reconcile:
// what arrives while one runs is applied again after it, since the listing may be older.
class LiveUpdates final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LiveUpdates)

public:
    // At most this many rows are applied per pass; the rest follow on the next turn of the
    // event loop, so that no burst keeps the GUI thread for long.
    static constexpr qsizetype MaxRowsPerPass = 1000;

    explicit LiveUpdates(WorkspaceTreeModel *model, QObject *parent = nullptr);
    ~LiveUpdates() override;

    // The profile shown (null: none). The previous one is no longer watched; what it reported
    // and was not applied yet is dropped.
    void setSession(Paddock::ProfileSession *session);
    // Whether anyone sees the tree: watched only then.
    void setActive(bool active);
    bool isActive() const { return m_active; }
    // The shown profile's changes arrive as they happen (watched, and its watch is up).
    bool isLive() const;
    // What completes a reported row as the window completes a listed one.
    void setDecorator(std::function<WorkspaceTreeModel::Decorate()> decorator) { m_decorator = std::move(decorator); }
    // How long the first report of a burst waits for the rest (the latency added; 0: the next
    // turn of the event loop).
    void setCoalesceInterval(std::chrono::milliseconds interval) { m_flushTimer.setInterval(interval); }
    // A listing of the shown profile started, and was applied (or failed): what was reported in
    // between is applied again after it.
    void listingStarted();
    void listingDone();
    // Reports waiting to be applied.
    qsizetype pendingCount() const { return m_pending.size(); }

Q_SIGNALS:
    // One pass applied these many reports (rows changed or added, rows removed).
    void applied(qsizetype changed, qsizetype removed);

private:
    void onChanged(const QString &profileId, const Paddock::SandboxInfo &sandbox);
    void onRemoved(const QString &profileId, const QString &sandboxId);
    void queue(const QString &sandboxId, std::optional<Paddock::SandboxInfo> sandbox);
    void flush();
    void updateWatching();

    WorkspaceTreeModel *m_model;
    QPointer<Paddock::ProfileSession> m_session;
    QString m_profile;
    bool m_active = false;
    bool m_listing = false;
    std::function<WorkspaceTreeModel::Decorate()> m_decorator;
    // By sandbox id, the last report of each: the sandbox as reported, or nullopt when it went.
    QHash<QString, std::optional<Paddock::SandboxInfo>> m_pending;
    QHash<QString, std::optional<Paddock::SandboxInfo>> m_duringListing;
    QTimer m_flushTimer;
};
