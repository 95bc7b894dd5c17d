#include "consoleevents.h"

#include "observedchanges.h"
#include "profilesession.h"
#include "workspacetreemodel.h"

#include <QLocale>
#include <QLoggingCategory>

Q_LOGGING_CATEGORY(lcEvents, "paddock.app.events", QtInfoMsg)

using namespace Paddock;

ConsoleEvents::ConsoleEvents(QObject *parent)
    : QObject(parent)
    , m_observed(new ObservedChanges(this))
{
    qRegisterMetaType<ConsoleEvent>();
    m_elapsed.start();
    setClocks({}, {});
    m_observed->setOurs([this](const ObservedChanges::Seen &seen) {
        return explains(seen.profileId, seen.workspaceId, seen.sandboxId, seen.kind, seen.to);
    });
    connect(m_observed, &ObservedChanges::observed, this, &ConsoleEvents::record);
}

ConsoleEvents::~ConsoleEvents() = default;

void ConsoleEvents::setClocks(std::function<QDateTime()> wall, std::function<qint64()> elapsedMs)
{
    m_wall = wall ? std::move(wall) : [] { return QDateTime::currentDateTimeUtc(); };
    m_elapsedMs = elapsedMs ? std::move(elapsedMs) : [this] { return m_elapsed.elapsed(); };
    m_offsetMs = m_wall().toMSecsSinceEpoch() - m_elapsedMs();
    m_observed->setClock(m_wall);
}

void ConsoleEvents::attach(ProfileSession *session)
{
    if (!session)
        return;
    const QString profile = session->profileId();
    if (const QPointer<ProfileSession> was = m_sessions.value(profile); was == session)
        return;
    m_sessions.insert(profile, session);
    connect(session, &ProfileSession::event, this, &ConsoleEvents::onSessionEvent);
    m_observed->reset(profile);
}

void ConsoleEvents::watch(WorkspaceTreeModel *model)
{
    m_observed->watch(model);
}

QString ConsoleEvents::nameOf(const QString &profileId) const
{
    const QPointer<ProfileSession> session = m_sessions.value(profileId);
    return session ? session->profile().displayName() : QString();
}

void ConsoleEvents::onSessionEvent(const WorkspaceEvent &event)
{
    // Remembered for a while, by workspace and by sandbox: it explains what the next listings show.
    const qint64 now = m_elapsedMs();
    const auto remember = [this, &event, now](const QString &id) {
        if (id.isEmpty())
            return;
        QList<Recent> &list = m_recent[event.profileId + u'\x1f' + id];
        list.append({event.kind, now});
        if (list.size() > 8)
            list.removeFirst();
    };
    if (event.actor != WorkspaceEvent::Actor::Elsewhere || event.kind == WorkspaceEvent::Kind::Lost) {
        remember(QStringLiteral("w:") + event.workspaceId);
        remember(QStringLiteral("s:") + event.sandboxId);
    }
    // Now and then, what no longer explains anything goes.
    if (m_recent.size() > 256) {
        for (auto it = m_recent.begin(); it != m_recent.end();) {
            if (now - it->constLast().atMs > ExplainsForMs)
                it = m_recent.erase(it);
            else
                ++it;
        }
    }
    ConsoleEvent out = ConsoleEvent::fromWorkspaceEvent(event);
    record(std::move(out));
}

bool ConsoleEvents::explains(const QString &profileId, const QString &workspaceId, const QString &sandboxId,
                             ConsoleEvent::Kind seen, std::optional<SandboxState> to)
{
    using Kind = WorkspaceEvent::Kind;
    if (const QPointer<ProfileSession> session = m_sessions.value(profileId);
        session && !sandboxId.isEmpty() && session->isActingOn(sandboxId))
        return true;
    const qint64 now = m_elapsedMs();
    const auto fits = [seen, to](Kind kind) {
        if (kind == Kind::ActionFailed)
            return true; // it may have done part of it
        if (seen == ConsoleEvent::Kind::Vanished)
            return kind == Kind::Killed || kind == Kind::Lost || kind == Kind::Closed || kind == Kind::Paused;
        if (seen == ConsoleEvent::Kind::Appeared)
            return kind == Kind::Opening || kind == Kind::Opened || kind == Kind::OpenFailed;
        switch (to.value_or(SandboxState::Unknown)) {
        case SandboxState::Running:
            return kind == Kind::Opening || kind == Kind::Opened || kind == Kind::Resumed;
        case SandboxState::Paused:
            // A failed open pauses what it attached to.
            return kind == Kind::Closed || kind == Kind::Paused || kind == Kind::OpenFailed;
        case SandboxState::Terminated:
        case SandboxState::Failed:
        case SandboxState::Unknown:
            return kind == Kind::Killed || kind == Kind::OpenFailed || kind == Kind::Lost;
        default:
            return true;
        }
    };
    const QStringList keys{QString(QStringLiteral("s:") + sandboxId), QString(QStringLiteral("w:") + workspaceId)};
    for (const QString &key : keys) {
        if (key.size() <= 2)
            continue;
        const auto found = m_recent.constFind(profileId + u'\x1f' + key);
        if (found == m_recent.cend())
            continue;
        for (const Recent &recent : *found) {
            if (now - recent.atMs <= ExplainsForMs && fits(recent.kind))
                return true;
        }
    }
    return false;
}

void ConsoleEvents::checkClock(const QDateTime &wall)
{
    if (m_clockJumped)
        return;
    const qint64 drift = wall.toMSecsSinceEpoch() - m_elapsedMs() - m_offsetMs;
    if (std::abs(drift) <= ClockJumpMs)
        return;
    // Said once a run: from now on times may not compare with the earlier ones, and an expiry is
    // no longer judged by the clock.
    m_clockJumped = true;
    m_observed->setClockTrusted(false);
    const qint64 seconds = drift / 1000;
    qCWarning(lcEvents).noquote() << "the system clock moved by" << seconds
                                  << "s apart from the time that passed; event times before and after may not compare";
    ConsoleEvent event;
    event.seq = m_next++;
    event.time = wall;
    event.kind = ConsoleEvent::Kind::ClockJumped;
    event.actor = ConsoleEvent::Actor::Elsewhere;
    event.detail = seconds > 0
        ? tr("The system clock moved %1 ahead of the time that passed; times before and after this may not compare.")
              .arg(WorkspaceTreeModel::formatCountdown(seconds))
        : tr("The system clock moved %1 back; times before and after this may not compare.")
              .arg(WorkspaceTreeModel::formatCountdown(-seconds));
    Q_EMIT occurred(event);
}

void ConsoleEvents::record(ConsoleEvent event)
{
    const QDateTime wall = m_wall();
    checkClock(wall);
    if (!event.time.isValid())
        event.time = wall;
    event.time = event.time.toUTC();
    if (event.profileName.isEmpty())
        event.profileName = nameOf(event.profileId);
    event.seq = m_next++;
    qCDebug(lcEvents).noquote() << event.toJsonLine();
    Q_EMIT occurred(event);
}
