#include "expiryfeed.h"

#include "expirywatch.h"
#include "profilesession.h"

#include <QCoroTask>

#include <QLoggingCategory>
#include <QPointer>

#include <vector>

using namespace Paddock;

namespace {
Q_LOGGING_CATEGORY(lcExpiryFeed, "paddock.app.notify", QtInfoMsg)
}

ExpiryFeed::ExpiryFeed(ExpiryWatch *watch, QObject *parent)
    : QObject(parent)
    , m_watch(watch)
{
    m_timer.setInterval(Interval);
    connect(&m_timer, &QTimer::timeout, this, [this] { (void)poll(); });
}

ExpiryFeed::~ExpiryFeed() = default;

void ExpiryFeed::start()
{
    m_timer.start();
    (void)poll();
}

QCoro::Task<void> ExpiryFeed::poll()
{
    const QList<ProfileSession *> sessions = m_sessions ? m_sessions() : QList<ProfileSession *>();
    // A profile whose session ended (saved, removed) or that the window shows now: its rows are
    // no longer ours to give (the tree gives a shown profile's).
    QSet<QString> open;
    for (ProfileSession *session : sessions) {
        if (session && !session->isShuttingDown() && !(m_shown && m_shown(session->profileId())))
            open.insert(session->profileId());
    }
    for (auto it = m_fed.begin(); it != m_fed.end();) {
        if (open.contains(it.key())) {
            ++it;
            continue;
        }
        if (!(m_shown && m_shown(it.key()))) {
            for (const QString &sandboxId : std::as_const(*it))
                m_watch->remove(it.key(), sandboxId);
        }
        it = m_fed.erase(it);
    }
    std::vector<QCoro::Task<void>> rounds;
    for (ProfileSession *session : sessions) {
        if (session && open.contains(session->profileId()) && !m_listing.contains(session->profileId()))
            rounds.push_back(feed(session));
    }
    for (auto &round : rounds)
        co_await round;
}

QCoro::Task<void> ExpiryFeed::feed(ProfileSession *session)
{
    const QString profile = session->profileId();
    const QPointer<ProfileSession> alive(session);
    const QPointer<ExpiryFeed> self(this);
    m_listing.insert(profile);
    const ListFilter everything;
    auto listed = co_await session->list(everything);
    if (!self)
        co_return;
    m_listing.remove(profile);
    if (!alive || alive->isShuttingDown() || (m_shown && m_shown(profile)))
        co_return; // shown meanwhile: the tree has its rows
    if (!listed) {
        qCDebug(lcExpiryFeed).noquote() << "expiries of profile" << profile
                                        << "not read this round:" << listed.error().message;
        co_return;
    }
    QSet<QString> now;
    for (const SandboxInfo &info : std::as_const(*listed)) {
        const bool expires = info.expiresAt && info.expiresAt->isValid() && info.state != SandboxState::Terminated;
        m_watch->upsert(profile, info.sandboxId, info.workspaceId,
                        expires ? std::optional(info.expiresAt->toMSecsSinceEpoch()) : std::nullopt,
                        info.state == SandboxState::Running);
        now.insert(info.sandboxId);
    }
    // Gone since the last round (deleted, expired): no longer watched.
    for (const QString &sandboxId : std::as_const(m_fed[profile])) {
        if (!now.contains(sandboxId))
            m_watch->remove(profile, sandboxId);
    }
    m_fed.insert(profile, now);
}
