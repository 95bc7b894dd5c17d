#pragma once

#include "consoleevent.h"
#include "workspacetreemodel.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSet>

#include <functional>

// The changes the console saw but did not make, found once, in the diff WorkspaceTreeModel
// computes anyway when it applies a listing or a watch's report (ListingDiff: only the rows that
// appeared, changed or vanished; an unchanged row costs the model its lookup and nothing here):
// - a workspace that appeared (made by paddockctl, AgentScope, another console);
// - a workspace whose state changed to a settled one (Running, Paused, Failed, Terminated,
//   Unknown): a transition (Pausing, Resuming...) is not an event, and the change from before
//   it is said once it settles ("Running → Paused");
// - a workspace that vanished: Expired when its row had an expiry in the past (and the clock can
//   be trusted), else Vanished ("deleted elsewhere").
// The first complete listing of a profile (after start, after its rows were dropped, after
// reset()) is a baseline, never 10,000 appearances; a failed listing is never applied, so never
// "everything vanished". A change that `ours` explains (an action of this console under way or
// just done on that workspace, see ConsoleEvents) is not recorded: its own event says it.
class ObservedChanges final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ObservedChanges)

public:
    // What was seen of a workspace, for `ours` to judge.
    struct Seen
    {
        QString profileId;
        QString workspaceId;
        QString sandboxId;
        ConsoleEvent::Kind kind = ConsoleEvent::Kind::StateChanged; // Appeared, StateChanged or Vanished
        std::optional<Paddock::SandboxState> to; // the state seen (none: vanished)
    };
    using Ours = std::function<bool(const Seen &)>;

    explicit ObservedChanges(QObject *parent = nullptr);

    // Follows a model's listings (one model at a time).
    void watch(WorkspaceTreeModel *model);
    void setOurs(Ours ours) { m_ours = std::move(ours); }
    // The profile's next complete listing is a baseline (its session was made again).
    void reset(const QString &profileId);
    // Whether the expiry of a vanished row can be judged (false once the clock jumped).
    void setClockTrusted(bool trusted) { m_clockTrusted = trusted; }
    void setClock(std::function<QDateTime()> now) { m_now = std::move(now); }

Q_SIGNALS:
    // One change seen (time, profile id, workspace, kind, from/to, actor Elsewhere); the profile's
    // name is for the receiver to fill in.
    void observed(const ConsoleEvent &event);

private:
    void onApplied(const WorkspaceTreeModel::ListingDiff &diff);
    void settle(const QString &profile, const Paddock::SandboxInfo &info, Paddock::SandboxState before,
                const QDateTime &now);
    void emitSeen(ConsoleEvent event);

    QPointer<WorkspaceTreeModel> m_model;
    QSet<QString> m_baselined; // profiles whose first complete listing came
    // Rows seen in a transition, by profile and sandbox id: the settled state before it.
    QHash<QString, Paddock::SandboxState> m_before;
    Ours m_ours;
    bool m_clockTrusted = true;
    std::function<QDateTime()> m_now;
};
