#pragma once

#include "result.h"

#include <QString>
#include <QStringList>

namespace Paddock {

// Which (user, agent, session) triples share one workspace. Order and names follow
// AgentScope's IsolationPolicy.
enum class IsolationPolicy {
    PerSession,
    PerAgent,
    PerUser,
};

constexpr IsolationPolicy DefaultIsolationPolicy = IsolationPolicy::PerAgent;

QString isolationPolicyName(IsolationPolicy policy);
QStringList isolationPolicyNames();
Result<IsolationPolicy> parseIsolationPolicy(const QString &name);

// BLAKE2b with an 8-byte digest (not a truncated BLAKE2b-512) of the UTF-8 bytes, as 16
// lowercase hex characters.
QString blake2b64Hex(const QByteArray &bytes);

// AgentScope's assign_workspace_id: PER_AGENT hashes "user::agent", PER_USER hashes
// "user::<user>", PER_SESSION mints a fresh uuid4 hex. The session id is not used.
QString assignWorkspaceId(IsolationPolicy policy, const QString &userId, const QString &agentId,
                          const QString &sessionId = {});

// Bad input checks. Each returns an error that names the problem.
constexpr qsizetype MaxWorkspaceIdBytes = 128;
Result<> validateWorkspaceId(const QString &workspaceId);
enum class Principal {
    User,
    Agent,
};
Result<> validatePrincipalId(Principal what, const QString &id);

} // namespace Paddock
