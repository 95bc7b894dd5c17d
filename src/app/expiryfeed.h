#pragma once

#include <QCoroFwd>

#include <QHash>
#include <QObject>
#include <QSet>
#include <QString>
#include <QTimer>

#include <chrono>
#include <functional>

namespace Paddock {
class ProfileSession;
} // namespace Paddock
class ExpiryWatch;

// Expiry notifications for every open profile, not only the ones the window shows. The expiry
// watch follows the tree's rows, and the tree holds the profiles shown (one, or every one in "All
// profiles"); the other profiles whose session is open (shown earlier in this run) are listed
// here in the background, once every Interval, and their rows given to the watch (upsert, and
// remove for those gone), each with its profile's own thresholds and mute as always. A profile
// the window shows is left to the tree. A listing that fails changes nothing (tried again at the
// next round); a profile whose session ended has its rows taken out of the watch.
class ExpiryFeed final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExpiryFeed)

public:
    static constexpr std::chrono::seconds Interval{60};
    using Sessions = std::function<QList<Paddock::ProfileSession *>()>;
    using Shown = std::function<bool(const QString &profileId)>;

    explicit ExpiryFeed(ExpiryWatch *watch, QObject *parent = nullptr);
    ~ExpiryFeed() override;

    // The open sessions, and whether the window shows a profile (its tree feeds the watch then).
    void setSessions(Sessions sessions) { m_sessions = std::move(sessions); }
    void setShown(Shown shown) { m_shown = std::move(shown); }
    // Every Interval from now on (and a first round now).
    void start();
    // One round now: every open profile not shown is listed, all at once; ends when each answered.
    QCoro::Task<void> poll();
    // The profiles whose rows the watch has from here (for tests).
    QStringList fedProfiles() const { return m_fed.keys(); }

private:
    QCoro::Task<void> feed(Paddock::ProfileSession *session);

    ExpiryWatch *m_watch;
    Sessions m_sessions;
    Shown m_shown;
    QTimer m_timer;
    QHash<QString, QSet<QString>> m_fed; // profile -> the sandbox ids given to the watch
    QSet<QString> m_listing; // profiles with a listing under way
};
