#pragma once

#include <QCoroFwd>

#include <QFuture>
#include <QSet>
#include <QtGlobal>

QT_BEGIN_NAMESPACE
class QProcess;
QT_END_NAMESPACE

#include <chrono>
#include <coroutine>
#include <functional>
#include <memory>

namespace Paddock {

class CancelToken;
class WaitSet;

// One suspension that its WaitSet can end: `co_await wait;` resumes at ring(), in the ringer's
// call, once. It lives in the waiting coroutine's frame and leaves its set however that frame
// ends. Made on a set that is closed already, it is rung from the start. Owner's thread only.
class Wait final
{
    Q_DISABLE_COPY_MOVE(Wait)

public:
    // onClose: what WaitSet::close() does before it ends this wait (stop what it waits for).
    explicit Wait(WaitSet &set, std::function<void()> onClose = {});
    ~Wait();

    void ring();
    // Ended by WaitSet::close() (or made on a closed set), not by what it waited for.
    bool wasClosed() const { return m_closed; }

    struct Awaiter
    {
        Wait *wait;
        bool await_ready() const noexcept { return wait->m_rung; }
        void await_suspend(std::coroutine_handle<> waiting) noexcept { wait->m_waiting = waiting; }
        void await_resume() const noexcept { }
    };
    Awaiter operator co_await() noexcept { return Awaiter{this}; }

private:
    friend class WaitSet;
    WaitSet *m_set; // null once it left the set
    std::function<void()> m_onClose;
    std::coroutine_handle<> m_waiting;
    bool m_rung = false;
    bool m_closed = false;
};

// The waits of one owner (a backend, an HTTP client) on things that are not its own objects'
// doing: timers, work on other threads, child processes. close() (the owner's destructor calls
// it) ends them all at once, while the owner still exists, and every later wait ends as soon as
// it starts; so no coroutine of the owner resumes after the owner is gone, and every task the
// owner handed out has completed when its destructor returns. Owner's thread only.
class WaitSet final
{
    Q_DISABLE_COPY_MOVE(WaitSet)

public:
    WaitSet() = default;
    ~WaitSet(); // close()

    // What close() does with work on another thread: Drop ends the wait at once (the work goes
    // on, and what it makes is lost); Finish blocks until the work is done, so that its result
    // (a file written, a folder deleted) is there to report.
    enum class OnClose { Drop, Finish };

    // Waits `delay`; false when the set is closed first. A `cancel` cancelled meanwhile ends the
    // wait early too (true: the set is still open; the caller looks at its token).
    QCoro::Task<bool> sleep(std::chrono::milliseconds delay, std::shared_ptr<CancelToken> cancel = {});
    // Waits until `work` has finished; false when the set closed first and dropped it. With
    // Finish always true: close() waited for the work.
    QCoro::Task<bool> finished(QFuture<void> work, OnClose onClose);

    // How a child process run by run() ended.
    enum class ProcessEnd {
        Finished, // it exited (whatever its status: see the QProcess)
        FailedToStart, // process.errorString() says why
        TimedOut, // it ran past the time limit: its process group was killed and it exited
        Cancelled, // `cancel` was cancelled while it ran: its process group was killed and it exited
        Closed, // the set closed first (or was closed already): its process group was killed
    };
    // Starts `process`, set up by the caller (program, arguments, channels, readers), and waits
    // until it ends. Its child modifier should call setsid(), so that killing it on a time limit
    // (`timeout`, zero: none), a cancel (`cancel`, null: none; one cancelled already starts
    // nothing) or a close ends its children too; a close then reaps it (up to 5 s). Resumed
    // from the event loop, never inside QProcess's own signal, since resuming may end the
    // caller's frame and the QProcess with it.
    QCoro::Task<ProcessEnd> run(QProcess &process, std::chrono::milliseconds timeout,
                                std::shared_ptr<CancelToken> cancel = {});

    void close();
    bool isClosed() const { return m_closed; }
    int size() const { return int(m_waits.size()); } // waits under way

private:
    friend class Wait;
    QSet<Wait *> m_waits;
    bool m_closed = false;
};

} // namespace Paddock
