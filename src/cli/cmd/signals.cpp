#include "signals.h"

#include <QSocketNotifier>

#include <fcntl.h>
#include <unistd.h>

namespace Paddock::Ctl {

namespace {

int signalPipe[2] = {-1, -1};
volatile std::sig_atomic_t signalsSeen = 0;

void onSignal(int signal)
{
    // A second one ends at once: the user means it.
    if (signalsSeen != 0)
        ::_exit(128 + signal);
    signalsSeen = 1;
    const char byte = char(signal);
    [[maybe_unused]] const auto written = ::write(signalPipe[1], &byte, 1);
}

} // namespace

StopOnSignals::StopOnSignals(std::shared_ptr<CancelToken> cancel)
{
    if (::pipe2(signalPipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return;
    m_notifier = std::make_unique<QSocketNotifier>(signalPipe[0], QSocketNotifier::Read);
    QObject::connect(m_notifier.get(), &QSocketNotifier::activated, m_notifier.get(), [this, cancel] {
        char byte = 0;
        while (::read(signalPipe[0], &byte, 1) == 1)
            m_signal = byte;
        cancel->cancel();
    });
    struct sigaction action = {};
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, &m_oldInt);
    ::sigaction(SIGTERM, &action, &m_oldTerm);
    struct sigaction ignore = {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    ::sigaction(SIGPIPE, &ignore, &m_oldPipe);
}

StopOnSignals::~StopOnSignals()
{
    if (!m_notifier)
        return;
    ::sigaction(SIGINT, &m_oldInt, nullptr);
    ::sigaction(SIGTERM, &m_oldTerm, nullptr);
    ::sigaction(SIGPIPE, &m_oldPipe, nullptr);
    m_notifier.reset();
    ::close(signalPipe[0]);
    ::close(signalPipe[1]);
    signalPipe[0] = signalPipe[1] = -1;
}

} // namespace Paddock::Ctl
