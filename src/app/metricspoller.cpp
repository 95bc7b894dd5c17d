#include "metricspoller.h"

#include "metricshistory.h"
#include "profilesession.h"
#include "workspacetreemodel.h"

#include <QCoroTask>

#include <QLoggingCategory>

#include <vector>

using namespace Paddock;

namespace {
Q_LOGGING_CATEGORY(lcMetrics, "paddock.app.metrics", QtInfoMsg)
}

MetricsPoller::MetricsPoller(WorkspaceTreeModel *model, MetricsHistory *history, QObject *parent)
    : QObject(parent)
    , m_model(model)
    , m_history(history)
{
    m_timer.setInterval(Interval);
    connect(&m_timer, &QTimer::timeout, this, &MetricsPoller::turn);
}

MetricsPoller::~MetricsPoller() = default;

void MetricsPoller::setSessions(const QList<std::pair<QString, ProfileSession *>> &sessions)
{
    m_session = nullptr;
    m_profile.clear();
    m_sessions.clear();
    m_sinceLast.invalidate();
    for (const auto &[profile, session] : sessions) {
        m_sessions.append({profile, session});
        // A session made again is asked again.
        if (const auto refused = m_refused.constFind(profile);
            refused != m_refused.cend() && refused.value() != session) {
            m_refused.remove(profile);
            m_model->setMetricsNote(profile, {});
        }
    }
    if (m_active)
        viewChanged();
}

void MetricsPoller::setSession(ProfileSession *session, const QString &profile)
{
    m_sessions.clear();
    if (session != m_session || profile != m_profile)
        m_sinceLast.invalidate();
    m_session = session;
    m_profile = profile;
    // A session made again is asked again (its server may have been upgraded).
    if (const auto refused = m_refused.constFind(profile); refused != m_refused.cend() && refused.value() != session) {
        m_refused.remove(profile);
        m_model->setMetricsNote(profile, {});
    }
    if (m_active)
        viewChanged();
}

void MetricsPoller::setActive(bool active)
{
    if (m_active == active)
        return;
    m_active = active;
    if (active) {
        m_timer.start();
        viewChanged();
    } else {
        m_timer.stop();
    }
}

void MetricsPoller::viewChanged()
{
    if (!m_active)
        return;
    if (!m_sinceLast.isValid() || m_sinceLast.elapsed() >= Interval.count())
        turn();
}

bool MetricsPoller::isRefused(const QString &profile) const
{
    for (const auto &[id, session] : m_sessions) {
        if (id == profile)
            return isRefusedBy(profile, session);
    }
    return isRefusedBy(profile, m_session);
}

bool MetricsPoller::isRefusedBy(const QString &profile, const ProfileSession *session) const
{
    const auto refused = m_refused.constFind(profile);
    return refused != m_refused.cend() && refused.value() && refused.value() == session;
}

void MetricsPoller::turn()
{
    // The interval is a floor: a round asked for by viewChanged() restarts it.
    if (m_sinceLast.isValid() && m_sinceLast.elapsed() < Interval.count() - 50)
        return;
    (void)poll();
}

QCoro::Task<bool> MetricsPoller::poll()
{
    if (m_sessions.isEmpty()) {
        // The rows of the profile its session belongs to (setRowsInViewOf), never another's.
        const QStringList ids = m_rowsOf ? m_rowsOf(m_profile) : m_rows ? m_rows() : QStringList();
        const bool asked = co_await pollProfile(m_session, m_profile, ids);
        co_return asked;
    }
    // "All profiles": every profile's rows in view, each through its session, at once.
    std::vector<QCoro::Task<bool>> rounds;
    for (const auto &[profile, session] : std::as_const(m_sessions)) {
        const QStringList ids = m_rowsOf ? m_rowsOf(profile) : QStringList();
        if (!ids.isEmpty())
            rounds.push_back(pollProfile(session, profile, ids));
    }
    bool asked = false;
    for (auto &round : rounds) {
        const bool one = co_await round;
        asked = asked || one;
    }
    co_return asked;
}

QCoro::Task<bool> MetricsPoller::pollProfile(QPointer<ProfileSession> session, QString profile, QStringList ids)
{
    if (!session || session->profileId() != profile || !session->can(Capability::Metrics)
        || isRefusedBy(profile, session) || m_inFlight.contains(profile))
        co_return false;
    if (ids.isEmpty())
        co_return false;
    m_inFlight.insert(profile);
    m_sinceLast.start();
    ++m_requests;
    QPointer<MetricsPoller> self(this);
    const auto answer = co_await session->metrics(ids);
    if (!self)
        co_return true;
    m_inFlight.remove(profile);
    if (!answer) {
        if (answer.error().kind == Error::Kind::Unsupported && session) {
            m_refused.insert(profile, session);
            const QString note = tr("Not reported by this server");
            m_model->setMetricsNote(profile, note);
            m_model->setMetrics(profile, ids, {});
            qCInfo(lcMetrics).noquote() << "profile" << profile << "reports no metrics:" << answer.error().message;
            Q_EMIT notice(tr("CPU and memory are not shown for this profile: %1").arg(answer.error().message));
        } else {
            // Kept as they were; the next round tries again.
            qCInfo(lcMetrics).noquote() << "metrics of profile" << profile
                                        << "could not be read:" << answer.error().message;
        }
        Q_EMIT polled(QString());
        co_return true;
    }
    m_model->setMetrics(profile, ids, *answer);
    m_history->add(profile, *answer);
    Q_EMIT polled(profile);
    co_return true;
}
