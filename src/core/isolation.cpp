#include "isolation.h"

#include "tr.h"

#include <QUuid>

#include <array>

#include <blake2.h>

namespace Paddock {

namespace {

struct PolicyName
{
    IsolationPolicy policy;
    const char *name;
};

constexpr std::array<PolicyName, 3> PolicyNames{{
    {IsolationPolicy::PerSession, "per_session"},
    {IsolationPolicy::PerAgent, "per_agent"},
    {IsolationPolicy::PerUser, "per_user"},
}};

} // namespace

QString isolationPolicyName(IsolationPolicy policy)
{
    for (const auto &entry : PolicyNames) {
        if (entry.policy == policy)
            return QString::fromLatin1(entry.name);
    }
    Q_UNREACHABLE();
    return {};
}

QStringList isolationPolicyNames()
{
    QStringList names;
    for (const auto &entry : PolicyNames)
        names.append(QString::fromLatin1(entry.name));
    return names;
}

Result<IsolationPolicy> parseIsolationPolicy(const QString &name)
{
    for (const auto &entry : PolicyNames) {
        if (name == QLatin1String(entry.name))
            return entry.policy;
    }
    return fail(Error::invalidArgument(Tr::tr("unknown isolation policy \"%1\"; valid choices: %2")
                                           .arg(name, isolationPolicyNames().join(QStringLiteral(", ")))));
}

QString blake2b64Hex(const QByteArray &bytes)
{
    std::array<uint8_t, 8> digest{};
    // libb2 sets the digest length in the parameter block, so this is BLAKE2b-64 proper.
    const int rc =
        blake2b(digest.data(), bytes.constData(), nullptr, digest.size(), static_cast<size_t>(bytes.size()), 0);
    Q_ASSERT(rc == 0);
    Q_UNUSED(rc);
    return QString::fromLatin1(
        QByteArray::fromRawData(reinterpret_cast<const char *>(digest.data()), digest.size()).toHex());
}

QString assignWorkspaceId(IsolationPolicy policy, const QString &userId, const QString &agentId,
                          const QString &sessionId)
{
    Q_UNUSED(sessionId);
    switch (policy) {
    case IsolationPolicy::PerAgent:
        return blake2b64Hex(QString(userId + QStringLiteral("::") + agentId).toUtf8());
    case IsolationPolicy::PerUser:
        return blake2b64Hex(QString(QStringLiteral("user::") + userId).toUtf8());
    case IsolationPolicy::PerSession:
        return QUuid::createUuid().toString(QUuid::Id128);
    }
    Q_UNREACHABLE();
    return {};
}

Result<> validateWorkspaceId(const QString &workspaceId)
{
    if (workspaceId.isEmpty())
        return fail(Error::invalidArgument(Tr::tr("the workspace id is empty")));
    if (workspaceId.contains(QChar(u'\0')))
        return fail(Error::invalidArgument(Tr::tr("the workspace id contains a NUL character")));
    if (workspaceId.contains(u'/') || workspaceId.contains(u'\\'))
        return fail(Error::invalidArgument(
            Tr::tr("the workspace id \"%1\" contains a path separator (/ or \\)").arg(workspaceId)));
    if (workspaceId.contains(QStringLiteral("..")))
        return fail(Error::invalidArgument(Tr::tr("the workspace id \"%1\" contains \"..\"").arg(workspaceId)));
    const qsizetype bytes = workspaceId.toUtf8().size();
    if (bytes > MaxWorkspaceIdBytes)
        return fail(Error::invalidArgument(
            Tr::tr("the workspace id is %1 bytes long; at most %2 are allowed").arg(bytes).arg(MaxWorkspaceIdBytes)));
    return {};
}

Result<> validatePrincipalId(Principal what, const QString &id)
{
    // Only the error is translated: this runs on every getWorkspace.
    if (id.contains(QChar(u'\0'))) {
        return fail(Error::invalidArgument(what == Principal::User ? Tr::tr("the user id contains a NUL character")
                                                                   : Tr::tr("the agent id contains a NUL character")));
    }
    return {};
}

} // namespace Paddock
