#pragma once

#include "profilesession.h"
#include "sandbox.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QDateTime>
#include <QMetaType>
#include <QString>

#include <optional>

// One thing that happened to a workspace as the console saw it: an action of this console (or
// its sweeper) reported by a profile's session, or a change seen in a listing that the console
// did not make. What ConsoleEvents emits, the event history keeps and notifications read.
struct ConsoleEvent
{
    Q_DECLARE_TR_FUNCTIONS(ConsoleEvent)

public:
    enum class Kind {
        // Reported by a profile's session (Paddock::WorkspaceEvent::Kind, in its order).
        Opening,
        Opened,
        OpenFailed,
        Closed,
        Paused,
        Resumed,
        Renewed,
        Killed,
        Lost,
        ActionFailed,
        // Seen in a listing (or a watch's report), not caused by this console.
        Appeared, // a workspace that was not listed before
        StateChanged, // `from` -> `to` (settled states: a transition is not an event)
        Vanished, // no longer listed: deleted behind the console's back
        Expired, // no longer listed, and its expiry had passed
        // The console's own.
        ClockJumped, // the system clock moved apart from the time that passed (said once a run)
    };
    using Actor = Paddock::WorkspaceEvent::Actor;

    quint64 seq = 0; // numbered by ConsoleEvents, unique within a run (0: loaded from the file)
    QDateTime time; // UTC
    QString profileId;
    QString profileName; // as it was called then
    QString workspaceId;
    QString sandboxId;
    Kind kind = Kind::Opened;
    Actor actor = Actor::Console;
    std::optional<Paddock::SandboxState> from; // StateChanged, Vanished, Expired: the state shown before
    std::optional<Paddock::SandboxState> to; // StateChanged, Appeared: the state seen
    std::optional<Paddock::WorkspaceAction> action; // the action that made it (ActionFailed: which one)
    QString detail; // an error, or what else there is to say

    // From a session's event (profileName filled in by the caller).
    static ConsoleEvent fromWorkspaceEvent(const Paddock::WorkspaceEvent &event);

    // One JSON object on one line (no newline), as the history file keeps it; and back
    // (nullopt: not an event of ours).
    QByteArray toJsonLine() const;
    static std::optional<ConsoleEvent> fromJsonLine(const QByteArray &line);

    // What the history shows, in the language of the moment.
    QString kindText() const;
    static QString kindName(Kind kind); // translated, for the filter
    static QString actorText(Actor actor);
    static QString actionText(Paddock::WorkspaceAction action);
    // What else there is to say: "Running → Paused", an error, the detail.
    QString detailText() const;
    // The stable words of the file.
    static QString kindKey(Kind kind);
    static QString actorKey(Actor actor);
    static constexpr int KindCount = int(Kind::ClockJumped) + 1;
};

Q_DECLARE_METATYPE(ConsoleEvent)
