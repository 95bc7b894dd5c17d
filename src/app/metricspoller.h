#pragma once

#include <QCoroFwd>

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QStringList>
#include <QTimer>

#include <chrono>
#include <functional>

namespace Paddock {
class ProfileSession;
}
class MetricsHistory;
class WorkspaceTreeModel;

// Reads the CPU and memory of the workspaces in view (Capability::Metrics) and puts them in the
// tree's columns and the inspector's history. At most one request per profile every Interval,
// never two at once, none while the window is hidden, and only for the rows in view (asked of
// rowsInView, in sandbox ids of the current profile). A server that does not report them
// (Unsupported) is said once (notice(), and the columns' tooltip) and not asked again until the
// profile's session is made again.
class MetricsPoller final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MetricsPoller)

public:
    static constexpr std::chrono::milliseconds Interval{5000};
    using RowsInView = std::function<QStringList()>;

    MetricsPoller(WorkspaceTreeModel *model, MetricsHistory *history, QObject *parent = nullptr);
    ~MetricsPoller() override;

    void setSession(Paddock::ProfileSession *session, const QString &profile);
    // The rows in view, when nothing says whose (rowsInViewOf, when set, is asked instead).
    void setRowsInView(RowsInView rows) { m_rows = std::move(rows); }
    // A profile's rows in view: one profile's (setSession's) are asked for by its id, so the ids
    // always go to the session of the profile they belong to. "All profiles": several profiles
    // shown at once, each asked through its own session for its rows in view, each at most once
    // at a time, in the same round.
    using RowsInViewOf = std::function<QStringList(const QString &profile)>;
    void setSessions(const QList<std::pair<QString, Paddock::ProfileSession *>> &sessions);
    void setRowsInViewOf(RowsInViewOf rows) { m_rowsOf = std::move(rows); }
    // The window is shown (polling) or hidden (not).
    void setActive(bool active);
    bool isActive() const { return m_active; }
    // The rows in view changed (a scroll, a listing): they are read now when the last request is
    // older than Interval, else at the next turn.
    void viewChanged();
    // One round now, whatever the interval (tests and the benchmark); false when nothing was asked.
    QCoro::Task<bool> poll();
    bool isRefused(const QString &profile) const;
    int requestCount() const { return m_requests; }

Q_SIGNALS:
    // Once per session: its server reports no figures.
    void notice(const QString &message);
    // A round's answer is in the model (profile; empty when it failed).
    void polled(const QString &profile);

private:
    void turn();
    QCoro::Task<bool> pollProfile(QPointer<Paddock::ProfileSession> session, QString profile, QStringList ids);
    bool isRefusedBy(const QString &profile, const Paddock::ProfileSession *session) const;

    WorkspaceTreeModel *m_model;
    MetricsHistory *m_history;
    QPointer<Paddock::ProfileSession> m_session;
    QString m_profile;
    RowsInView m_rows;
    RowsInViewOf m_rowsOf;
    QList<std::pair<QString, QPointer<Paddock::ProfileSession>>> m_sessions; // "All profiles"; empty otherwise
    QTimer m_timer;
    QElapsedTimer m_sinceLast; // since the last request of the current profile
    QSet<QString> m_inFlight; // profiles with a request under way
    QHash<QString, QPointer<Paddock::ProfileSession>> m_refused; // profile -> the session that said so
    bool m_active = false;
    int m_requests = 0;
};
