#pragma once

#include <QCoreApplication>
#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

#include <chrono>
#include <deque>
#include <functional>
#include <optional>

// Something worth telling the desktop about, as the console saw it.
struct NotificationEvent
{
    enum class Kind {
        ExpiresSoon, // crossed `threshold` before its expiry
        BootstrapFailed,
        Lost, // gone: `reason` says how Paddock learnt it
        SweeperClosed, // the profile's sweeper closed them for idleness
    };
    enum class LostReason {
        Gone, // the backend found its sandbox gone (deleted behind Paddock's back, or expired)
        Expired, // it vanished from the listing at its expiry
        DeletedElsewhere, // it vanished from the listing before its expiry
    };
    QString profileId;
    Kind kind = Kind::ExpiresSoon;
    std::chrono::seconds threshold{0}; // ExpiresSoon
    LostReason reason = LostReason::Gone; // Lost
    QStringList workspaceIds;
    QString detail; // BootstrapFailed: the error
};

// One notification to show: a summary, a body, and the workspaces its action shows.
struct Notification
{
    QString group; // the (profile, kind) it stands for; the same group is updated in place
    QString profileId;
    QString summary;
    QString body;
    QStringList workspaceIds;
    bool critical = false; // an expiry a minute or less away
    bool replaces = false; // updates the group's notification still shown, with every id so far

    bool operator==(const Notification &) const = default;
};

// What the console tells the desktop, and when: pure logic on an injectable monotonic clock (no
// D-Bus, no timer; NotificationCenter drives it).
//
// - Grouping: events of one (profile, kind) within GroupWindow of the first go out as one
//   notification with their count and ids ("12 workspaces expire within 10 minutes").
// - In place: while a group's last notification is shown (not closed, and at most ReplaceWindow
//   old), the next one of the group replaces it with every id so far instead of stacking.
// - Rate limit: at most RateLimit notifications in any RateWindow; what is due meanwhile waits
//   and folds in, and when more groups are due than slots are free, the last slot carries the
//   rest as one notification ("4 updates from Paddock", a line each).
// - Muted profiles: their events are dropped as they come.
// - Never twice: a workspace lost, or closed by the sweeper, again within DedupeWindow is dropped
//   (the manager's Lost and a listing's vanished row are one event, whatever reason each gives);
//   an expiry threshold firing once per deadline is ExpiryWatch's part; each failed bootstrap is
//   a failure of its own.
class NotificationPolicy
{
    Q_DECLARE_TR_FUNCTIONS(NotificationPolicy)

public:
    using Clock = std::function<qint64()>; // monotonic milliseconds

    static constexpr qint64 GroupWindowMs = 2000;
    static constexpr qint64 ReplaceWindowMs = 5 * 60 * 1000;
    static constexpr int RateLimit = 4;
    static constexpr qint64 RateWindowMs = 60 * 1000;
    static constexpr qint64 DedupeWindowMs = 10 * 60 * 1000;
    static constexpr int IdsShown = 5; // in a body; then "and N more"

    explicit NotificationPolicy(Clock clock = {});

    void setClock(Clock clock) { m_clock = std::move(clock); }
    void setMuted(const QString &profileId, bool muted);
    bool isMuted(const QString &profileId) const { return m_muted.contains(profileId); }
    // The name a body gives the profile.
    void setProfileName(const QString &profileId, const QString &name);

    // An event comes in: dropped when muted or already told, else added to its group.
    void submit(const NotificationEvent &event);
    // What goes out now (grouping windows over, the rate limit allowing).
    QList<Notification> due();
    // When due() may next have something (monotonic ms), if anything waits.
    std::optional<qint64> nextDueMs() const;
    // The desktop closed a group's notification: the next one of the group is a new one.
    void closed(const QString &group);
    qsizetype pendingGroups() const { return m_pending.size(); }

    // "10 minutes", "1 hour", "90 seconds".
    static QString durationText(std::chrono::seconds duration);

private:
    struct Pending
    {
        NotificationEvent first; // kind, profile, threshold, reason
        qint64 sinceMs = 0;
        QStringList ids;
        QString detail;
    };
    struct Shown
    {
        qint64 atMs = 0;
        QStringList ids;
        QString detail;
    };
    static QString groupOf(const NotificationEvent &event);
    QString dedupeKey(const NotificationEvent &event, const QString &workspaceId) const;
    Notification make(const QString &group, const NotificationEvent &what, const QStringList &ids,
                      const QString &detail) const;
    QString idsText(const QStringList &ids) const;
    qint64 now() const;

    Clock m_clock;
    QHash<QString, QString> m_names;
    QHash<QString, bool> m_muted; // a set
    QHash<QString, Pending> m_pending; // by group
    QStringList m_order; // pending groups, oldest first
    QHash<QString, Shown> m_shown; // by group: the last notification still shown
    QHash<QString, qint64> m_told; // dedupe key -> when
    std::deque<qint64> m_sent; // when the last notifications went out
};
