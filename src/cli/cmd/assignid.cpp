// assign-id: prints the workspace id an isolation policy gives a user and an agent (no backend).

#include "command.h"

#include <QCoroTask>

namespace Paddock::Ctl {

QCoro::Task<int> runAssignId(Session &s)
{
    const auto policy = s.isolation();
    if (!policy)
        co_return s.usage(policy.error().message);
    if (!s.has("user") || !s.has("agent"))
        co_return s.usage(Tr::tr("assign-id needs --user and --agent"));
    for (const auto &[what, id] :
         {std::pair{Principal::User, s.value("user")}, std::pair{Principal::Agent, s.value("agent")}}) {
        if (auto valid = validatePrincipalId(what, id); !valid)
            co_return s.usage(valid.error().message);
    }
    out(assignWorkspaceId(*policy, s.value("user"), s.value("agent"), s.value("session")));
    co_return Success;
}

} // namespace Paddock::Ctl
