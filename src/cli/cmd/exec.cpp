// exec ID -- COMMAND...: runs a command in a workspace (its newest sandbox) through the profile's
// session, its stdout and stderr passed on byte for byte as they arrive, its exit status passed
// through. 125: the command could not be run (a usage error, a profile that cannot be made, no
// such workspace, not running, the backend failed): every failure of paddockctl's own. Ctrl+C or SIGTERM stop the
// command in the workspace (its whole process group) and end with 130 or 143, as a shell reports them; a second one
// ends paddockctl at once.

#include "command.h"

#include "canceltoken.h"
#include "signals.h"

#include <QCoroTask>

namespace Paddock::Ctl {

namespace {

constexpr int CannotRun = 125; // as docker and podman exec say "the command did not run"

} // namespace

QCoro::Task<int> runExec(Session &s)
{
    const QString id = s.args.constFirst();
    if (auto valid = validateWorkspaceId(id); !valid) {
        s.usage(valid.error().message);
        co_return CannotRun;
    }
    const QStringList argv = s.args.mid(1);
    if (argv.isEmpty()) {
        s.usage(Tr::tr("no command given: paddockctl exec ID -- COMMAND [ARGUMENT...]"));
        co_return CannotRun;
    }
    auto sandbox = co_await s.session->find(id);
    if (!sandbox) {
        s.failed(QStringLiteral("exec %1").arg(id), sandbox.error());
        co_return CannotRun;
    }

    const auto cancel = std::make_shared<CancelToken>();
    const StopOnSignals stopper(cancel);
    bool brokenPipe = false;
    ExecRequest request;
    request.argv = argv;
    request.cancel = cancel;
    // Byte for byte, as it arrives (NUL, bytes that are not UTF-8, a last line without newline).
    request.onData = [&brokenPipe, cancel](OutputChannel channel, const QByteArray &bytes) {
        std::FILE *stream = channel == OutputChannel::Stdout ? stdout : stderr;
        if (brokenPipe)
            return;
        write(stream, bytes);
        if (std::ferror(stream)) {
            // Whoever read the output went away (`| head`): the command is stopped, as a
            // pipeline's writer would be.
            brokenPipe = true;
            cancel->cancel();
        }
    };
    auto ran = co_await s.session->exec(sandbox->sandboxId, request);
    if (!ran) {
        if (ran.error().kind == Error::Kind::Cancelled && stopper.signal() != 0)
            co_return 128 + stopper.signal();
        if (ran.error().kind == Error::Kind::Cancelled && brokenPipe)
            co_return 128 + SIGPIPE;
        s.failed(QStringLiteral("exec %1").arg(id), ran.error());
        if (ran.error().kind == Error::Kind::Conflict && sandbox->state != SandboxState::Running)
            err(Tr::tr("resume it first: paddockctl resume %1").arg(id));
        co_return CannotRun;
    }
    // A status beyond what a process can exit with (-1: ended by a signal it does not name).
    co_return ran->exitCode >= 0 && ran->exitCode <= 255 ? ran->exitCode : 255;
}

} // namespace Paddock::Ctl
