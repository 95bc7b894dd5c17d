#pragma once

#include "consoleevent.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QPointer>

#include <functional>

namespace Paddock {
class ProfileSession;
}
class ObservedChanges;
class WorkspaceTreeModel;

// The console's one stream of events (one per Console): every profile session's WorkspaceEvents
// (actions of this console, its sweeper's closes, lost sandboxes) and the changes seen in
// listings that the console did not make (ObservedChanges), as ConsoleEvents: numbered, with the
// profile's name, in the order they happened. The event history stores and shows them; the
// notifications read the same signal.
//
// Who did it (ConsoleEvent::actor): the session says Console or Sweeper for what it did and
// Elsewhere for a lost sandbox; a change seen in a listing is Elsewhere unless an action of this
// console explains it: one under way on that sandbox (ProfileSession::isActingOn), or an event of
// this console on that workspace in the last two minutes whose outcome fits what was seen (a
// pause for Paused, a resume or open for Running, a kill for a vanished row, any failure). Then
// it is not recorded at all: the action's own event says it.
//
// The clock: when the wall clock moves apart from the time that passed (by more than a minute),
// one ClockJumped event says so (once a run), and vanished rows are no longer told expired.
class ConsoleEvents final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConsoleEvents)

public:
    static constexpr qint64 ExplainsForMs = 120'000; // how long an action explains a change seen
    static constexpr qint64 ClockJumpMs = 60'000;

    explicit ConsoleEvents(QObject *parent = nullptr);
    ~ConsoleEvents() override;

    // A profile's session: its events join the stream, and its profile's next listing is a
    // baseline (the session was made, or made again).
    void attach(Paddock::ProfileSession *session);
    // The listings of this model are watched for changes the console did not make.
    void watch(WorkspaceTreeModel *model);
    ObservedChanges *observedChanges() const { return m_observed; }
    // Numbers an event, fills in its time (when invalid) and profile name (when empty), and
    // emits it.
    void record(ConsoleEvent event);
    bool clockJumped() const { return m_clockJumped; }
    // For tests: the wall clock and the time that passed, instead of the system's.
    void setClocks(std::function<QDateTime()> wall, std::function<qint64()> elapsedMs);

Q_SIGNALS:
    // One event, as it happened (UTC time, seq unique in this run). Connected receivers are
    // called in the order they connected; each event once.
    void occurred(const ConsoleEvent &event);

private:
    void onSessionEvent(const Paddock::WorkspaceEvent &event);
    bool explains(const QString &profileId, const QString &workspaceId, const QString &sandboxId,
                  ConsoleEvent::Kind seen, std::optional<Paddock::SandboxState> to);
    void checkClock(const QDateTime &wall);
    QString nameOf(const QString &profileId) const;

    struct Recent
    {
        Paddock::WorkspaceEvent::Kind kind;
        qint64 atMs; // m_elapsed
    };
    ObservedChanges *m_observed;
    QHash<QString, QPointer<Paddock::ProfileSession>> m_sessions; // by profile id
    QHash<QString, QList<Recent>> m_recent; // "profile\x1f" + workspace or sandbox id -> its events
    quint64 m_next = 1;
    bool m_clockJumped = false;
    QElapsedTimer m_elapsed;
    qint64 m_offsetMs = 0; // wall - elapsed at start
    std::function<QDateTime()> m_wall;
    std::function<qint64()> m_elapsedMs;
};
