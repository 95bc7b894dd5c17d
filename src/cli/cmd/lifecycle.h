#pragma once

// What pause, resume, close and kill share: each workspace id on its own, one failure does not
// stop the rest.

#include "command.h"

namespace Paddock::Ctl {

// Does one workspace's part: the line to print on success, or the error.
using WorkspaceStep = QCoro::Task<Result<QString>> (*)(Session &s, QString id, SandboxInfo sandbox);

// Checks every id first (a bad one is a usage error, and nothing is done), then finds each
// workspace's newest sandbox and runs `step` on it, in the order given. A workspace not found or
// a failed step prints "<command> <id>: <reason>" and makes the exit code Failure.
QCoro::Task<int> forEachWorkspace(Session &s, WorkspaceStep step);

} // namespace Paddock::Ctl
