// info ID [--json]: one workspace as the listing knows it (no exec, no file read), as "Label:
// value" lines for people or as the object list --json prints for it.

#include "command.h"
#include "duration.h"
#include "idlerule.h"
#include "output.h"

#include "inspect/secretmask.h"

#include <QCoroTask>

#include <QJsonDocument>

#include <utility>
#include <vector>

namespace Paddock::Ctl {

namespace {

QString localTime(const QDateTime &time)
{
    return time.isValid() ? time.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")) : QStringLiteral("-");
}

QString expiryText(const SandboxInfo &info, const QDateTime &now)
{
    if (!info.expiresAt || !info.expiresAt->isValid())
        return info.pausedAt.isValid() && !info.expiresAt ? Tr::tr("timer stopped") : Tr::tr("never");
    const qint64 left = now.secsTo(*info.expiresAt);
    if (left <= 0)
        return Tr::tr("%1 (expired)").arg(localTime(*info.expiresAt));
    return Tr::tr("%1 (in %2)").arg(localTime(*info.expiresAt), formatDuration(std::chrono::seconds(left)));
}

QString idleText(const SandboxInfo &info, const QDateTime &now)
{
    const IdleSince idle = idleSince(info);
    if (!idle.isKnown())
        return QStringLiteral("-");
    const QString duration = formatDuration(std::chrono::seconds(idle.since.secsTo(now)));
    return idle.basis == IdleBasis::Listed ? Tr::tr("%1 (since its last activity)").arg(duration)
                                           : Tr::tr("%1 (since it was created)").arg(duration);
}

QString text(const SandboxInfo &info, const QDateTime &now)
{
    std::vector<std::pair<QString, QString>> rows{
        {Tr::tr("Workspace:"), info.workspaceId},
        {Tr::tr("Sandbox:"), info.sandboxId},
        {Tr::tr("State:"), info.rawState.isEmpty() ? sandboxStateName(info.state) : info.rawState},
        {Tr::tr("User:"), info.userId},
        {Tr::tr("Agent:"), info.agentId},
        {Tr::tr("Backend:"), info.backend},
        {Tr::tr("Image:"), info.image},
        {Tr::tr("Created:"), localTime(info.createdAt)},
        {Tr::tr("Expires:"), expiryText(info, now)},
    };
    if (info.pausedAt.isValid())
        rows.emplace_back(Tr::tr("Paused since:"), localTime(info.pausedAt));
    rows.emplace_back(Tr::tr("Last activity:"), localTime(info.lastActivityAt));
    rows.emplace_back(Tr::tr("Idle:"), idleText(info, now));
    const QString metadataLabel = Tr::tr("Metadata:");

    int labelWidth = displayWidth(metadataLabel);
    for (const auto &row : rows)
        labelWidth = std::max(labelWidth, displayWidth(row.first));
    QString result;
    for (const auto &[label, value] : rows) {
        result += label + QString(labelWidth - displayWidth(label) + 1, u' ')
            + (value.isEmpty() ? QStringLiteral("-") : printable(value)) + u'\n';
    }
    if (info.metadata.isEmpty())
        return result + metadataLabel + QStringLiteral(" -\n");
    result += metadataLabel + u'\n';
    // Values masked as inspect masks them: a credential in a label stays hidden.
    for (auto it = info.metadata.cbegin(); it != info.metadata.cend(); ++it)
        result += QStringLiteral("  ") + printable(it.key()) + u'=' + printable(Inspect::maskValue(it.value())) + u'\n';
    return result;
}

} // namespace

QCoro::Task<int> runInfo(Session &s)
{
    const QString id = s.args.constFirst();
    if (auto valid = validateWorkspaceId(id); !valid)
        co_return s.usage(valid.error().message);
    auto sandbox = co_await s.session->find(id);
    if (!sandbox)
        co_return s.failed(QStringLiteral("info %1").arg(id), sandbox.error());
    if (s.has("json"))
        write(stdout, QJsonDocument(jsonRow(*sandbox)).toJson(QJsonDocument::Indented));
    else
        write(stdout, text(*sandbox, QDateTime::currentDateTimeUtc()).toUtf8());
    co_return Success;
}

} // namespace Paddock::Ctl
