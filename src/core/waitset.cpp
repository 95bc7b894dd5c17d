#include "waitset.h"

#include "canceltoken.h"

#include <QCoroTask>

#include <QCoreApplication>
#include <QFutureWatcher>
#include <QProcess>
#include <QScopeGuard>
#include <QTimer>

#include <memory>
#include <utility>

#include <csignal>

namespace Paddock {

Wait::Wait(WaitSet &set, std::function<void()> onClose)
    : m_set(&set)
    , m_onClose(std::move(onClose))
{
    if (set.m_closed) {
        m_set = nullptr;
        m_rung = true;
        m_closed = true;
        return;
    }
    set.m_waits.insert(this);
}

Wait::~Wait()
{
    if (m_set)
        m_set->m_waits.remove(this);
}

void Wait::ring()
{
    if (std::exchange(m_rung, true))
        return;
    if (const auto waiting = std::exchange(m_waiting, {}))
        waiting.resume();
}

WaitSet::~WaitSet()
{
    close();
}

void WaitSet::close()
{
    m_closed = true;
    // One at a time from the set itself: what a resumed coroutine does next may end (and so
    // remove) another wait.
    while (!m_waits.isEmpty()) {
        Wait *wait = *m_waits.cbegin();
        m_waits.remove(wait);
        wait->m_set = nullptr;
        wait->m_closed = true;
        if (wait->m_onClose)
            wait->m_onClose();
        wait->ring();
    }
}

QCoro::Task<bool> WaitSet::sleep(std::chrono::milliseconds delay, std::shared_ptr<CancelToken> cancel)
{
    if (m_closed)
        co_return false;
    if (cancel && cancel->isCancelled())
        co_return true;
    Wait wait(*this);
    QTimer timer;
    timer.setSingleShot(true);
    QObject::connect(&timer, &QTimer::timeout, &timer, [&wait] { wait.ring(); });
    timer.start(delay);
    // A cancel rings the wait from the event loop (a zero timeout), not inside cancel().
    const int cancelId = cancel ? cancel->onCancel([&timer] { timer.start(0); }) : 0;
    co_await wait;
    if (cancel)
        cancel->remove(cancelId);
    co_return !wait.wasClosed();
}

QCoro::Task<bool> WaitSet::finished(QFuture<void> work, OnClose onClose)
{
    if (m_closed) {
        if (onClose == OnClose::Drop)
            co_return false;
        work.waitForFinished();
        co_return true;
    }
    if (work.isFinished()) {
        // isFinished() is a relaxed load: what the worker wrote before it finished is seen only
        // after an acquire, which waitForFinished() (the future's mutex) gives at once here.
        work.waitForFinished();
        co_return true;
    }
    std::function<void()> finish;
    if (onClose == OnClose::Finish)
        finish = [work]() mutable { work.waitForFinished(); };
    Wait wait(*this, std::move(finish));
    // On the heap, and deleted later: it may be the one emitting when this frame ends.
    auto *watcher = new QFutureWatcher<void>;
    QObject::connect(watcher, &QFutureWatcherBase::finished, watcher, [&wait] { wait.ring(); });
    const auto drop = qScopeGuard([watcher] {
        watcher->disconnect();
        watcher->deleteLater();
    });
    watcher->setFuture(work);
    co_await wait;
    co_return work.isFinished();
}

namespace {

// The process's whole group (its child modifier made it a group leader).
void killGroup(QProcess &process)
{
    if (const qint64 pid = process.processId(); pid > 0)
        ::kill(static_cast<pid_t>(-pid), SIGKILL);
}

} // namespace

QCoro::Task<WaitSet::ProcessEnd> WaitSet::run(QProcess &process, std::chrono::milliseconds timeout,
                                              std::shared_ptr<CancelToken> cancel)
{
    if (m_closed)
        co_return ProcessEnd::Closed;
    if (cancel && cancel->isCancelled())
        co_return ProcessEnd::Cancelled;
    Wait done(*this, [&process] {
        killGroup(process);
        process.waitForFinished(5'000);
    });
    // Rung from the event loop: the QProcess's signal has returned by then. `wait` is null once
    // this frame is gone, so a late call rings nothing.
    struct Outcome
    {
        Wait *wait = nullptr;
        bool started = false;
    };
    const auto outcome = std::make_shared<Outcome>(Outcome{&done, false});
    const auto forget = qScopeGuard([outcome] { outcome->wait = nullptr; });
    const auto settle = [outcome](bool started) {
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [outcome, started] {
                if (Wait *wait = std::exchange(outcome->wait, nullptr)) {
                    outcome->started = started;
                    wait->ring();
                }
            },
            Qt::QueuedConnection);
    };
    const QMetaObject::Connection finishedConnection =
        QObject::connect(&process, &QProcess::finished, &process, [settle] { settle(true); });
    const QMetaObject::Connection errorConnection =
        QObject::connect(&process, &QProcess::errorOccurred, &process, [settle](QProcess::ProcessError error) {
            if (error == QProcess::FailedToStart)
                settle(false);
        });
    const auto disconnect = qScopeGuard([&] {
        QObject::disconnect(finishedConnection);
        QObject::disconnect(errorConnection);
    });
    bool timedOut = false;
    QTimer timer;
    timer.setSingleShot(true);
    QObject::connect(&timer, &QTimer::timeout, &process, [&timedOut, &process] {
        timedOut = true;
        killGroup(process);
    });

    // A cancel kills the group at once; the wait still ends when the process has exited.
    bool cancelled = false;
    int cancelId = 0;
    if (cancel) {
        cancelId = cancel->onCancel([&cancelled, &process] {
            if (process.state() == QProcess::NotRunning)
                return; // it ended already: what it did stands
            cancelled = true;
            killGroup(process);
        });
    }
    const auto forgetCancel = qScopeGuard([&cancel, cancelId] {
        if (cancel && cancelId != 0)
            cancel->remove(cancelId);
    });

    process.start();
    if (timeout.count() > 0)
        timer.start(timeout);
    co_await done;
    timer.stop();
    if (done.wasClosed())
        co_return ProcessEnd::Closed;
    if (!outcome->started)
        co_return ProcessEnd::FailedToStart;
    if (cancelled)
        co_return ProcessEnd::Cancelled;
    co_return timedOut ? ProcessEnd::TimedOut : ProcessEnd::Finished;
}

} // namespace Paddock
