#include "consoleevent.h"

#include "workspacetreemodel.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <array>

using namespace Paddock;

namespace {

constexpr std::array<const char *, ConsoleEvent::KindCount> KindKeys{
    "opening", "opened",        "open-failed", "closed",        "paused",   "resumed", "renewed",      "killed",
    "lost",    "action-failed", "appeared",    "state-changed", "vanished", "expired", "clock-jumped",
};

QString actionKey(WorkspaceAction action)
{
    switch (action) {
    case WorkspaceAction::Close:
        return QStringLiteral("close");
    case WorkspaceAction::Pause:
        return QStringLiteral("pause");
    case WorkspaceAction::Resume:
        return QStringLiteral("resume");
    case WorkspaceAction::Renew:
        return QStringLiteral("renew");
    case WorkspaceAction::Kill:
        return QStringLiteral("kill");
    }
    return {};
}

std::optional<WorkspaceAction> parseAction(const QString &key)
{
    for (const WorkspaceAction action : {WorkspaceAction::Close, WorkspaceAction::Pause, WorkspaceAction::Resume,
                                         WorkspaceAction::Renew, WorkspaceAction::Kill}) {
        if (actionKey(action) == key)
            return action;
    }
    return std::nullopt;
}

} // namespace

QString ConsoleEvent::kindKey(Kind kind)
{
    return QString::fromLatin1(KindKeys.at(size_t(kind)));
}

QString ConsoleEvent::actorKey(Actor actor)
{
    switch (actor) {
    case Actor::Console:
        return QStringLiteral("console");
    case Actor::Sweeper:
        return QStringLiteral("sweeper");
    case Actor::Elsewhere:
        return QStringLiteral("elsewhere");
    }
    return {};
}

ConsoleEvent ConsoleEvent::fromWorkspaceEvent(const WorkspaceEvent &event)
{
    ConsoleEvent out;
    out.time = event.time;
    out.profileId = event.profileId;
    out.workspaceId = event.workspaceId;
    out.sandboxId = event.sandboxId;
    out.kind = Kind(int(event.kind)); // the first ten kinds are the session's, in its order
    out.actor = event.actor;
    out.action = event.action;
    if (event.error)
        out.detail = event.error->message;
    return out;
}

QByteArray ConsoleEvent::toJsonLine() const
{
    QJsonObject object;
    object.insert(QLatin1String("time"), time.toUTC().toString(Qt::ISODateWithMs));
    object.insert(QLatin1String("kind"), kindKey(kind));
    object.insert(QLatin1String("actor"), actorKey(actor));
    object.insert(QLatin1String("profile"), profileId);
    if (!profileName.isEmpty())
        object.insert(QLatin1String("profileName"), profileName);
    if (!workspaceId.isEmpty())
        object.insert(QLatin1String("workspace"), workspaceId);
    if (!sandboxId.isEmpty())
        object.insert(QLatin1String("sandbox"), sandboxId);
    if (from)
        object.insert(QLatin1String("from"), sandboxStateName(*from));
    if (to)
        object.insert(QLatin1String("to"), sandboxStateName(*to));
    if (action)
        object.insert(QLatin1String("action"), actionKey(*action));
    if (!detail.isEmpty())
        object.insert(QLatin1String("detail"), detail);
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

std::optional<ConsoleEvent> ConsoleEvent::fromJsonLine(const QByteArray &line)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(line, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return std::nullopt;
    const QJsonObject object = document.object();
    ConsoleEvent event;
    event.time = QDateTime::fromString(object.value(QLatin1String("time")).toString(), Qt::ISODateWithMs);
    if (!event.time.isValid())
        return std::nullopt;
    event.time = event.time.toUTC();
    const QString kind = object.value(QLatin1String("kind")).toString();
    bool known = false;
    for (int i = 0; i < KindCount; ++i) {
        if (kindKey(Kind(i)) == kind) {
            event.kind = Kind(i);
            known = true;
            break;
        }
    }
    if (!known)
        return std::nullopt;
    const QString actor = object.value(QLatin1String("actor")).toString();
    if (actor == actorKey(Actor::Sweeper))
        event.actor = Actor::Sweeper;
    else if (actor == actorKey(Actor::Elsewhere))
        event.actor = Actor::Elsewhere;
    else if (actor == actorKey(Actor::Console))
        event.actor = Actor::Console;
    else
        return std::nullopt;
    event.profileId = object.value(QLatin1String("profile")).toString();
    event.profileName = object.value(QLatin1String("profileName")).toString();
    event.workspaceId = object.value(QLatin1String("workspace")).toString();
    event.sandboxId = object.value(QLatin1String("sandbox")).toString();
    if (const QJsonValue value = object.value(QLatin1String("from")); value.isString())
        event.from = parseSandboxState(value.toString());
    if (const QJsonValue value = object.value(QLatin1String("to")); value.isString())
        event.to = parseSandboxState(value.toString());
    if (const QJsonValue value = object.value(QLatin1String("action")); value.isString())
        event.action = parseAction(value.toString());
    event.detail = object.value(QLatin1String("detail")).toString();
    return event;
}

QString ConsoleEvent::actionText(WorkspaceAction action)
{
    switch (action) {
    case WorkspaceAction::Close:
        return tr("Close");
    case WorkspaceAction::Pause:
        return tr("Pause");
    case WorkspaceAction::Resume:
        return tr("Resume");
    case WorkspaceAction::Renew:
        return tr("Renew");
    case WorkspaceAction::Kill:
        return tr("Kill");
    }
    return {};
}

QString ConsoleEvent::kindName(Kind kind)
{
    switch (kind) {
    case Kind::Opening:
        return tr("Opening");
    case Kind::Opened:
        return tr("Opened");
    case Kind::OpenFailed:
        return tr("Open failed");
    case Kind::Closed:
        return tr("Closed");
    case Kind::Paused:
        return tr("Paused");
    case Kind::Resumed:
        return tr("Resumed");
    case Kind::Renewed:
        return tr("Renewed");
    case Kind::Killed:
        return tr("Killed");
    case Kind::Lost:
        return tr("Lost");
    case Kind::ActionFailed:
        return tr("Action failed");
    case Kind::Appeared:
        return tr("Appeared");
    case Kind::StateChanged:
        return tr("State changed");
    case Kind::Vanished:
        return tr("Deleted elsewhere");
    case Kind::Expired:
        return tr("Expired");
    case Kind::ClockJumped:
        return tr("Clock changed");
    }
    return {};
}

QString ConsoleEvent::kindText() const
{
    if (kind == Kind::ActionFailed && action)
        return tr("%1 failed").arg(actionText(*action));
    if (kind == Kind::StateChanged && to)
        return tr("Now %1").arg(WorkspaceTreeModel::stateText(*to));
    return kindName(kind);
}

QString ConsoleEvent::actorText(Actor actor)
{
    switch (actor) {
    case Actor::Console:
        return tr("This console");
    case Actor::Sweeper:
        return tr("Idle sweeper");
    case Actor::Elsewhere:
        return tr("Elsewhere");
    }
    return {};
}

QString ConsoleEvent::detailText() const
{
    QString states;
    if (from && to)
        states = tr("%1 → %2").arg(WorkspaceTreeModel::stateText(*from), WorkspaceTreeModel::stateText(*to));
    else if (from)
        states = tr("was %1").arg(WorkspaceTreeModel::stateText(*from));
    else if (to)
        states = WorkspaceTreeModel::stateText(*to);
    if (states.isEmpty())
        return detail;
    if (detail.isEmpty())
        return states;
    return tr("%1; %2").arg(states, detail);
}
