#include "allprofiles.h"

#include "activitytracker.h"
#include "backendregistry.h"
#include "broadcast.h"
#include "liveupdates.h"
#include "profilesession.h"

#include <QCoroFuture>
#include <QCoroTask>

#include <QCoreApplication>
#include <QLocale>
#include <QLoggingCategory>
#include <QtConcurrent/QtConcurrentRun>

#include <vector>

Q_LOGGING_CATEGORY(lcAllProfiles, "paddock.app.allprofiles", QtInfoMsg)

using namespace Paddock;

// One profile's part of the view: its session, what its last listing said, and its live updates.
struct AllProfiles::Feed
{
    QString id;
    QString name;
    QPointer<ProfileSession> session;
    QString sessionProblem; // why it could not be opened (no key...), as the console said
    quint64 generation = 0;
    QDateTime lastRefresh; // UTC; invalid until its first good listing
    bool unreachable = false; // its last listing failed: its rows are as last seen
    bool cannotReach = false; // ... because no server answered
    QString listingProblem; // the failed listing's error
    bool forgotten = false; // its session ended: opened again by the console
    QHash<QString, BootstrapLogStore::Failure> failures; // as its last refresh read them
    QSet<QString> stale; // workspace ids its next listing decorates again
    bool refreshing = false;
    bool again = false; // asked for while one ran
    bool settling = false; // its last listing had a row between states
    LiveUpdates *live = nullptr;
};

AllProfiles::AllProfiles(WorkspaceTreeModel *model, ActivityTracker *activity, QObject *parent)
    : QObject(parent)
    , m_model(model)
    , m_activity(activity)
{
    m_applyTimer.setSingleShot(true);
    m_applyTimer.setInterval(ApplyWindow);
    connect(&m_applyTimer, &QTimer::timeout, this, [this] {
        if (const auto turn = std::exchange(m_applyTurn, nullptr))
            turn->set(true); // every listing waiting is applied now, in this turn of the event loop
    });
}

AllProfiles::~AllProfiles()
{
    // The listings still waiting are dropped: their coroutines end at once, and what awaited
    // them (refresh()) sees m_ending and says nothing to a window that is going too.
    m_ending = true;
    if (const auto turn = std::exchange(m_applyTurn, nullptr))
        turn->set(false);
}

AllProfiles::Feed *AllProfiles::feed(const QString &profileId) const
{
    const auto it = m_feeds.find(profileId);
    return it == m_feeds.end() ? nullptr : it->second.get();
}

QStringList AllProfiles::profiles() const
{
    QStringList ids;
    for (const auto &[id, feed] : m_feeds)
        ids.append(id);
    return ids;
}

ProfileSession *AllProfiles::session(const QString &profileId) const
{
    const Feed *found = feed(profileId);
    return found && !found->forgotten ? found->session.data() : nullptr;
}

void AllProfiles::setEntries(const QList<Entry> &entries)
{
    QSet<QString> named;
    for (const Entry &entry : entries)
        named.insert(entry.profileId);
    for (auto it = m_feeds.begin(); it != m_feeds.end();) {
        if (named.contains(it->first)) {
            ++it;
            continue;
        }
        if (it->second->session)
            disconnect(it->second->session, nullptr, this, nullptr);
        delete it->second->live; // (no longer watched)
        m_model->removeProfileGroup(it->first);
        it = m_feeds.erase(it);
    }
    for (const Entry &entry : entries) {
        Feed *known = feed(entry.profileId);
        if (!known) {
            auto made = std::make_unique<Feed>();
            made->id = entry.profileId;
            made->live = new LiveUpdates(m_model, this);
            known = made.get();
            m_feeds[entry.profileId] = std::move(made);
        }
        known->name = entry.name;
        known->sessionProblem = entry.session ? entry.session->problem() : entry.problem;
        if (known->session != entry.session || known->forgotten) {
            if (known->session)
                disconnect(known->session, nullptr, this, nullptr);
            known->session = entry.session;
            known->forgotten = false;
            known->generation = ++m_generation;
            known->refreshing = false;
            known->again = false;
            known->failures.clear();
            known->stale.clear();
            known->lastRefresh = {};
            known->unreachable = false;
            known->listingProblem.clear();
            m_model->setUnreachable(entry.profileId, {});
            m_model->setCapabilities(entry.profileId, entry.session ? entry.session->capabilities() : Capabilities{});
            const QString profileId = entry.profileId;
            known->live->setDecorator([this, profileId] {
                Feed *current = feed(profileId);
                return current ? decorator(current, QDateTime::currentDateTimeUtc()) : WorkspaceTreeModel::Decorate{};
            });
            known->live->setSession(entry.session);
            known->live->setActive(m_active);
            if (entry.session) {
                // What happens to its workspaces shows in its rows (an open, a close, a loss).
                connect(entry.session, &ProfileSession::event, this,
                        [this, profileId](const WorkspaceEvent &event) { onEvent(profileId, event); });
            }
        }
        showGroup(known);
    }
}

void AllProfiles::clear()
{
    setEntries({});
}

void AllProfiles::forget(ProfileSession *session)
{
    for (auto &[id, feed] : m_feeds) {
        if (feed->session != session)
            continue;
        disconnect(session, nullptr, this, nullptr);
        feed->live->setSession(nullptr);
        feed->forgotten = true;
        showGroup(feed.get());
    }
}

void AllProfiles::setActive(bool active)
{
    m_active = active;
    for (auto &[id, feed] : m_feeds)
        feed->live->setActive(active);
}

void AllProfiles::onEvent(const QString &profileId, const WorkspaceEvent &event)
{
    Feed *found = feed(profileId);
    if (!found || event.workspaceId.isEmpty())
        return;
    using Kind = WorkspaceEvent::Kind;
    switch (event.kind) {
    case Kind::Opening:
        return;
    case Kind::Opened:
    case Kind::OpenFailed:
    case Kind::Closed:
    case Kind::Lost:
        // What the console knows of the workspace changed: its row is decorated again.
        refreshFor(profileId, {event.workspaceId});
        return;
    case Kind::Paused:
    case Kind::Resumed:
    case Kind::Renewed:
    case Kind::Killed:
    case Kind::ActionFailed:
        // The bulk job's end refreshes; these are marked for it.
        found->stale.insert(event.workspaceId);
        return;
    }
}

void AllProfiles::refreshFor(const QString &profileId, const QStringList &workspaceIds)
{
    Feed *found = feed(profileId);
    if (!found)
        return;
    for (const QString &id : workspaceIds)
        found->stale.insert(id);
    (void)refreshOne(profileId);
}

QCoro::Task<void> AllProfiles::refresh()
{
    // Every profile at once: a server that does not answer holds back no other profile's rows.
    const QPointer<AllProfiles> self(this);
    std::vector<QCoro::Task<bool>> listings;
    for (const auto &[id, feed] : m_feeds)
        listings.push_back(refreshOne(id));
    bool listed = true;
    for (auto &listing : listings) {
        const bool ok = co_await listing;
        listed = listed && ok;
    }
    if (!self || m_ending)
        co_return;
    m_settling = false;
    for (const auto &[id, feed] : m_feeds)
        m_settling = m_settling || feed->settling;
    Q_EMIT refreshed(listed);
}

QCoro::Task<bool> AllProfiles::refreshOne(QString profileId)
{
    Feed *found = feed(profileId);
    if (!found)
        co_return false;
    if (found->refreshing) {
        found->again = true;
        co_return true; // the listing under way is followed by one more
    }
    const QPointer<ProfileSession> session = found->forgotten ? nullptr : found->session.data();
    if (!session) {
        showGroup(found);
        co_return found->sessionProblem.isEmpty() && !found->forgotten;
    }
    found->refreshing = true;
    const quint64 generation = found->generation;
    const QPointer<AllProfiles> self(this);
    // Which workspaces' last bootstrap failed, read on a worker while the listing runs.
    QFuture<QHash<QString, BootstrapLogStore::Failure>> failing;
    if (BootstrapLogStore *logs = session->logs()) {
        const QString folder = logs->folder(session->instanceKey());
        failing = QtConcurrent::run(&BootstrapLogStore::readFailures, folder);
    }
    found->live->listingStarted();
    const ListFilter everything;
    auto listed = co_await session->list(everything);
    QHash<QString, BootstrapLogStore::Failure> failures;
    if (failing.isValid())
        failures = co_await failing;
    if (!self)
        co_return false;
    {
        // Applied with the listings that arrive within ApplyWindow of the first: each pass makes
        // the view lay out every row shown again, whichever profile's rows changed.
        if (!m_applyTurn)
            m_applyTurn = std::make_shared<Broadcast<bool>>();
        const std::shared_ptr<Broadcast<bool>> turn = m_applyTurn;
        if (!m_applyTimer.isActive())
            m_applyTimer.start();
        const bool go = co_await turn->wait();
        if (!go || !self)
            co_return false;
    }
    found = feed(profileId);
    if (!found || found->generation != generation)
        co_return false; // another session (or none) since: its own listing shows it
    found->refreshing = false;
    if (!session) {
        showGroup(found);
        co_return false;
    }
    bool ok = true;
    if (!listed) {
        // Its rows stay as last seen, greyed; its group says why.
        found->unreachable = true;
        found->cannotReach =
            listed.error().kind == Error::Kind::Unreachable || listed.error().kind == Error::Kind::Timeout;
        found->listingProblem = listed.error().message;
        if (found->lastRefresh.isValid())
            m_model->setUnreachable(profileId, found->lastRefresh);
        found->live->listingDone();
        qCInfo(lcAllProfiles).noquote() << "cannot list profile" << profileId << ":" << listed.error().message;
        ok = false;
    } else {
        if (std::exchange(found->unreachable, false))
            m_model->setUnreachable(profileId, {});
        found->listingProblem.clear();
        for (auto it = failures.cbegin(); it != failures.cend(); ++it) {
            if (found->failures.value(it.key()) != *it)
                found->stale.insert(it.key());
        }
        for (auto it = found->failures.cbegin(); it != found->failures.cend(); ++it) {
            if (!failures.contains(it.key()))
                found->stale.insert(it.key());
        }
        found->failures = failures;
        m_model->markStale(profileId, std::exchange(found->stale, {}));
        found->settling = std::any_of(listed->cbegin(), listed->cend(), [](const SandboxInfo &info) {
            return info.state == SandboxState::Pending || info.state == SandboxState::Pausing
                || info.state == SandboxState::Resuming || info.state == SandboxState::Stopping;
        });
        const QDateTime now = QDateTime::currentDateTimeUtc();
        m_model->update(profileId, std::move(*listed), decorator(found, now));
        found->live->listingDone();
        found->lastRefresh = now;
    }
    showGroup(found);
    Q_EMIT profileRefreshed(profileId, ok);
    if (std::exchange(found->again, false))
        (void)refreshOne(profileId);
    co_return ok;
}

WorkspaceTreeModel::Decorate AllProfiles::decorator(Feed *feed, const QDateTime &now) const
{
    // What only the console knows joins each row, as the window decorates one profile's rows:
    // the manager's idle deadline, the newest activity seen, a failed bootstrap.
    const QPointer<ProfileSession> session = feed->session;
    const QHash<QString, BootstrapLogStore::Failure> failures = feed->failures;
    ActivityTracker *activity = m_activity;
    return [session, failures, activity, now](const QString &profile, const SandboxInfo &info,
                                              WorkspaceTreeModel::Decoration &decoration) {
        decoration.bootstrapFailure = BootstrapLogStore::failureOf(failures, info.workspaceId, info.createdAt);
        decoration.idleDeadline.reset();
        if (session) {
            if (const auto remaining = session->idleRemaining(info.workspaceId))
                decoration.idleDeadline = now.addMSecs(remaining->count());
        }
        decoration.agents.clear();
        if (const QDateTime seen = activity->lastActivity(profile + u'\x1f' + info.sandboxId);
            seen.isValid() && (!decoration.lastActivityAt.isValid() || seen > decoration.lastActivityAt))
            decoration.lastActivityAt = seen;
    };
}

bool AllProfiles::isStale(const Feed *feed) const
{
    if (feed->unreachable || !feed->session || feed->forgotten)
        return true;
    if (!feed->lastRefresh.isValid())
        return false;
    const qint64 seconds = feed->lastRefresh.secsTo(QDateTime::currentDateTimeUtc());
    const qint64 limit = m_interval.count() > 0 ? 2 * m_interval.count() + 1 : 300;
    return seconds > limit;
}

QString AllProfiles::statusText(const QString &profileId) const
{
    const Feed *found = feed(profileId);
    if (!found)
        return {};
    // The window's own words for one profile (MainWindow's), said here of each profile.
    const auto say = [](const char *text) { return QCoreApplication::translate("MainWindow", text); };
    if (found->forgotten)
        return tr("opening again…");
    // Short, on the row (the columns are fitted to their contents): what went wrong in full is in
    // its tooltip and on its entry in the switcher.
    if (!found->session)
        return QStringLiteral("⚠ ") + tr("cannot be opened");
    if (!found->lastRefresh.isValid()) {
        if (!found->unreachable)
            return say("not loaded yet");
        return QStringLiteral("⚠ ") + (found->cannotReach ? say("cannot reach the server") : say("the listing failed"));
    }
    if (found->unreachable) {
        const QString when = QLocale().toString(found->lastRefresh.toLocalTime(), QLocale::ShortFormat);
        return QStringLiteral("⚠ ")
            + (found->cannotReach ? say("cannot reach the server; showing the list of %1 (stale)").arg(when)
                                  : say("the last listing failed; showing the list of %1 (stale)").arg(when));
    }
    const qint64 seconds = std::max<qint64>(0, found->lastRefresh.secsTo(QDateTime::currentDateTimeUtc()));
    const QString ago = seconds < 60
        ? QCoreApplication::translate("MainWindow", "updated %n second(s) ago", nullptr, int(seconds))
        : say("updated %1 ago").arg(WorkspaceTreeModel::formatCountdown(seconds));
    return isStale(found) ? say("%1 (stale)").arg(ago) : ago;
}

QString AllProfiles::problem(const QString &profileId) const
{
    const Feed *found = feed(profileId);
    if (!found)
        return {};
    QStringList problems;
    if (!found->sessionProblem.isEmpty())
        problems.append(found->sessionProblem);
    if (!found->listingProblem.isEmpty())
        problems.append(found->listingProblem);
    return problems.join(u'\n');
}

bool AllProfiles::isWarning(const QString &profileId) const
{
    const Feed *found = feed(profileId);
    return found && isStale(found);
}

bool AllProfiles::anyWarning() const
{
    return std::any_of(m_feeds.cbegin(), m_feeds.cend(),
                       [this](const auto &entry) { return isStale(entry.second.get()); });
}

QString AllProfiles::summaryText() const
{
    const int count = int(m_feeds.size());
    int failing = 0;
    QDateTime oldest;
    for (const auto &[id, feed] : m_feeds) {
        if (isStale(feed.get()))
            ++failing;
        else if (feed->lastRefresh.isValid() && (!oldest.isValid() || feed->lastRefresh < oldest))
            oldest = feed->lastRefresh;
    }
    if (failing > 0)
        return tr("%1 of %n profile(s) not up to date", nullptr, count).arg(failing);
    if (!oldest.isValid())
        return QCoreApplication::translate("MainWindow", "not loaded yet");
    const qint64 seconds = std::max<qint64>(0, oldest.secsTo(QDateTime::currentDateTimeUtc()));
    const QString ago = seconds < 60
        ? QCoreApplication::translate("MainWindow", "updated %n second(s) ago", nullptr, int(seconds))
        : QCoreApplication::translate("MainWindow", "updated %1 ago").arg(WorkspaceTreeModel::formatCountdown(seconds));
    return tr("%n profile(s), %1", nullptr, count).arg(ago);
}

void AllProfiles::showGroup(Feed *feed)
{
    WorkspaceTreeModel::ProfileGroup group;
    group.name = feed->name;
    if (feed->session) {
        if (const BackendFactory *factory = BackendRegistry::instance().find(feed->session->profile().kind))
            group.backend = factory->displayName();
    }
    group.status = statusText(feed->id);
    group.warning = isStale(feed);
    group.details = problem(feed->id);
    m_model->setProfileGroup(feed->id, group);
}

void AllProfiles::tick()
{
    for (auto &[id, feed] : m_feeds)
        showGroup(feed.get());
}
