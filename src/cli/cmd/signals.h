#pragma once

// Ctrl+C and SIGTERM for the verbs that stop cleanly (exec, the bulk verbs): while a
// StopOnSignals exists, either cancels the token given (through the event loop), and a second
// one ends paddockctl at once; SIGPIPE is ignored (a reader that went away is a failed write).

#include "canceltoken.h"

#include <QtGlobal>

#include <csignal>
#include <memory>

class QSocketNotifier;

namespace Paddock::Ctl {

class StopOnSignals final
{
    Q_DISABLE_COPY_MOVE(StopOnSignals)

public:
    explicit StopOnSignals(std::shared_ptr<CancelToken> cancel);
    ~StopOnSignals();
    // The signal that stopped the work (SIGINT, SIGTERM), or 0.
    int signal() const { return m_signal; }

private:
    std::unique_ptr<QSocketNotifier> m_notifier;
    int m_signal = 0;
    struct sigaction m_oldInt = {};
    struct sigaction m_oldTerm = {};
    struct sigaction m_oldPipe = {};
};

} // namespace Paddock::Ctl
