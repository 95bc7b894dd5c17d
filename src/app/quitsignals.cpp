#include "quitsignals.h"

#include <QLoggingCategory>
#include <QSocketNotifier>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <iterator>

#include <sys/socket.h>
#include <unistd.h>

Q_LOGGING_CATEGORY(lcQuitSignals, "paddock.app.signals", QtInfoMsg)

namespace {

// [0] read by the event loop, [1] written by the handler (write(2) is async-signal-safe).
int fds[2] = {-1, -1};

extern "C" void onSignal(int number)
{
    const int saved = errno;
    const unsigned char byte = static_cast<unsigned char>(number);
    [[maybe_unused]] const ssize_t written = ::write(fds[1], &byte, 1);
    errno = saved;
}

constexpr int Handled[] = {SIGTERM, SIGINT};
struct sigaction before[std::size(Handled)]; // what was there, restored at the end

} // namespace

QuitSignals::QuitSignals(QObject *parent)
    : QObject(parent)
{
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds) != 0) {
        qCWarning(lcQuitSignals) << "cannot handle SIGTERM and SIGINT:" << std::strerror(errno);
        return;
    }
    m_notifier = new QSocketNotifier(fds[0], QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, [this] {
        unsigned char byte = 0;
        while (::read(fds[0], &byte, 1) == 1)
            Q_EMIT received(byte);
    });
    struct sigaction action = {};
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (std::size_t i = 0; i < std::size(Handled); ++i) {
        ::sigaction(Handled[i], nullptr, &before[i]);
        // A signal ignored on purpose (nohup, `&` in a script ignores SIGINT) stays ignored.
        if (before[i].sa_handler != SIG_IGN)
            ::sigaction(Handled[i], &action, nullptr);
    }
}

QuitSignals::~QuitSignals()
{
    if (!m_notifier)
        return;
    for (std::size_t i = 0; i < std::size(Handled); ++i)
        ::sigaction(Handled[i], &before[i], nullptr);
    delete m_notifier;
    m_notifier = nullptr;
    ::close(fds[0]);
    ::close(fds[1]);
    fds[0] = fds[1] = -1;
}
