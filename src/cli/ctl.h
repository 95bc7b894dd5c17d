#pragma once

#include <QCoroFwd>

#include <QObject>
#include <QStringList>

#include <cstdio>

namespace Paddock::Ctl {

// Exit codes scripts rely on.
enum ExitCode {
    Success = 0,
    Failure = 1, // the operation failed; the reason is on stderr
    Usage = 2, // the command line is wrong
};

// Runs one paddockctl command line (arguments include the program name).
QCoro::Task<int> run(QStringList arguments);

} // namespace Paddock::Ctl
