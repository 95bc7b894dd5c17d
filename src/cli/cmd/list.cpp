// list: every workspace of the backend, as a table or as JSON (--json).

#include "command.h"

#include <QCoroTask>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace Paddock::Ctl {

namespace {

QJsonValue jsonTimeOrNull(const QDateTime &time)
{
    return time.isValid() ? QJsonValue(jsonTime(time)) : QJsonValue(QJsonValue::Null);
}

} // namespace

QCoro::Task<int> runList(Session &s)
{
    auto all = co_await s.session->list();
    if (!all)
        co_return s.failed({}, all.error());
    if (s.has("json")) {
        QJsonArray rows;
        for (const SandboxInfo &info : std::as_const(*all)) {
            QJsonObject metadata;
            for (auto it = info.metadata.cbegin(); it != info.metadata.cend(); ++it)
                metadata.insert(it.key(), it.value());
            rows.append(QJsonObject{
                {QStringLiteral("workspaceId"), info.workspaceId},
                {QStringLiteral("sandboxId"), info.sandboxId},
                {QStringLiteral("state"), info.rawState.isEmpty() ? sandboxStateName(info.state) : info.rawState},
                {QStringLiteral("userId"), info.userId},
                {QStringLiteral("agentId"), info.agentId},
                {QStringLiteral("backend"), info.backend},
                {QStringLiteral("createdAt"), jsonTimeOrNull(info.createdAt)},
                {QStringLiteral("expiresAt"),
                 info.expiresAt ? jsonTimeOrNull(*info.expiresAt) : QJsonValue(QJsonValue::Null)},
                // A paused sandbox whose timer is stopped (E2B): since when; null otherwise.
                {QStringLiteral("pausedAt"), jsonTimeOrNull(info.pausedAt)},
                {QStringLiteral("lastActivityAt"), jsonTimeOrNull(info.lastActivityAt)},
                {QStringLiteral("metadata"), metadata},
            });
        }
        write(stdout, QJsonDocument(rows).toJson(QJsonDocument::Indented));
        co_return Success;
    }

    const QString format = QStringLiteral("%1  %2  %3  %4  %5  %6");
    out(format.arg(Tr::tr("WORKSPACE"), -32)
            .arg(Tr::tr("STATE"), -8)
            .arg(Tr::tr("USER"), -12)
            .arg(Tr::tr("AGENT"), -12)
            .arg(Tr::tr("CREATED"), -20)
            .arg(Tr::tr("LAST ACTIVITY")));
    for (const SandboxInfo &info : std::as_const(*all)) {
        out(format.arg(info.workspaceId, -32)
                .arg(info.rawState, -8)
                .arg(info.userId, -12)
                .arg(info.agentId, -12)
                .arg(info.createdAt.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")), -20)
                .arg(info.lastActivityAt.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))));
    }
    co_return Success;
}

} // namespace Paddock::Ctl
