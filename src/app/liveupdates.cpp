#include "liveupdates.h"

#include "profilesession.h"

#include <QLoggingCategory>
#include <QSet>

using namespace Paddock;

Q_LOGGING_CATEGORY(lcLive, "paddock.app.live", QtInfoMsg)

LiveUpdates::LiveUpdates(WorkspaceTreeModel *model, QObject *parent)
    : QObject(parent)
    , m_model(model)
{
    // The first report of a burst waits this long for the rest (a watch delivers a burst over
    // several reads), then the burst is applied in one pass: well under the second the tree may
    // lag the cluster by.
    m_flushTimer.setSingleShot(true);
    m_flushTimer.setInterval(std::chrono::milliseconds(50));
    connect(&m_flushTimer, &QTimer::timeout, this, &LiveUpdates::flush);
}

LiveUpdates::~LiveUpdates()
{
    if (m_session)
        m_session->setWatched(false);
}

void LiveUpdates::setSession(ProfileSession *session)
{
    if (session == m_session)
        return;
    if (m_session) {
        disconnect(m_session, nullptr, this, nullptr);
        m_session->setWatched(false);
    }
    m_session = session;
    m_profile = session ? session->profileId() : QString();
    m_pending.clear();
    m_duringListing.clear();
    m_listing = false;
    m_flushTimer.stop();
    if (m_session) {
        connect(m_session, &ProfileSession::sandboxChanged, this, &LiveUpdates::onChanged);
        connect(m_session, &ProfileSession::sandboxRemoved, this, &LiveUpdates::onRemoved);
    }
    updateWatching();
}

void LiveUpdates::setActive(bool active)
{
    if (active == m_active)
        return;
    m_active = active;
    updateWatching();
}

bool LiveUpdates::isLive() const
{
    return m_session && m_session->isWatchLive();
}

void LiveUpdates::updateWatching()
{
    if (!m_session)
        return;
    const bool watch = m_active && m_session->can(Capability::Watch) && !m_session->isShuttingDown();
    if (watch != m_session->isWatched())
        qCInfo(lcLive).noquote() << "profile" << m_profile << (watch ? "live" : "no longer live");
    m_session->setWatched(watch);
}

void LiveUpdates::listingStarted()
{
    m_listing = true;
    m_duringListing.clear();
}

void LiveUpdates::listingDone()
{
    if (!m_listing)
        return;
    m_listing = false;
    if (m_duringListing.isEmpty())
        return;
    // The listing may have been read before these reports: they are newer than what it put in
    // place (the same fingerprint again costs a lookup).
    for (auto it = m_duringListing.begin(); it != m_duringListing.end(); ++it)
        m_pending.insert(it.key(), std::move(it.value()));
    m_duringListing.clear();
    if (!m_flushTimer.isActive())
        m_flushTimer.start();
}

void LiveUpdates::onChanged(const QString &profileId, const SandboxInfo &sandbox)
{
    if (profileId == m_profile)
        queue(sandbox.sandboxId, sandbox);
}

void LiveUpdates::onRemoved(const QString &profileId, const QString &sandboxId)
{
    if (profileId == m_profile)
        queue(sandboxId, std::nullopt);
}

void LiveUpdates::queue(const QString &sandboxId, std::optional<SandboxInfo> sandbox)
{
    if (m_listing)
        m_duringListing.insert(sandboxId, sandbox);
    m_pending.insert(sandboxId, std::move(sandbox));
    // Not restarted by the reports that follow: a steady stream is still applied every interval.
    if (!m_flushTimer.isActive())
        m_flushTimer.start();
}

void LiveUpdates::flush()
{
    if (m_pending.isEmpty())
        return;
    QList<SandboxInfo> changed;
    QSet<QString> removed;
    changed.reserve(std::min(m_pending.size(), MaxRowsPerPass));
    auto it = m_pending.begin();
    for (qsizetype n = 0; it != m_pending.end() && n < MaxRowsPerPass; ++n) {
        if (it.value())
            changed.append(std::move(*it.value()));
        else
            removed.insert(it.key());
        it = m_pending.erase(it);
    }
    const qsizetype changedCount = changed.size();
    const qsizetype removedCount = removed.size();
    const WorkspaceTreeModel::Decorate decorate = m_decorator ? m_decorator() : WorkspaceTreeModel::Decorate{};
    m_model->applyChanges(m_profile, std::move(changed), removed, decorate);
    qCDebug(lcLive).noquote() << "profile" << m_profile << "applied" << changedCount << "changed and" << removedCount
                              << "removed";
    Q_EMIT applied(changedCount, removedCount);
    // The rest of a large burst on the next turn of the event loop.
    if (!m_pending.isEmpty())
        QTimer::singleShot(0, this, &LiveUpdates::flush);
}
