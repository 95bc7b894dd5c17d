// open: provisions (or reattaches) a workspace through the profile session, streaming its
// bootstrap log to stderr, and prints its id.

#include "command.h"

#include <QCoroTask>

namespace Paddock::Ctl {

QCoro::Task<int> runOpen(Session &s)
{
    const auto policy = s.isolation();
    if (!policy)
        co_return s.usage(policy.error().message);
    if (!s.has("user") || !s.has("agent"))
        co_return s.usage(Tr::tr("open needs --user and --agent"));

    WorkspaceRequest request;
    request.userId = s.value("user");
    request.agentId = s.value("agent");
    request.sessionId = s.value("session");
    if (s.has("workspace-id"))
        request.workspaceId = s.value("workspace-id");

    // The session's isolation policy is --isolation's (the dispatcher made the profile with it).
    auto id = s.session->resolveWorkspaceId(request);
    if (!id)
        co_return s.usage(id.error().message);
    // What the backend cannot work with (an unusable local basedir) is the command line's fault.
    if (auto usable = s.session->checkConfiguration(); !usable)
        co_return s.usage(usable.error().message);

    QObject::connect(
        s.logs.get(), &BootstrapLogStore::lineAppended, s.logs.get(),
        [](const QString &, const QString &, const LogLine &line) { write(stderr, line.serialize() + '\n'); });
    auto workspace = co_await s.session->open(request);
    if (!workspace)
        co_return s.failed(Tr::tr("cannot open workspace %1").arg(*id), workspace.error());
    // The workspace stays open (Running) for whoever uses it next (the session is shut down
    // leaving it running); close or pause ends that.
    out((*workspace)->id());
    co_return Success;
}

} // namespace Paddock::Ctl
