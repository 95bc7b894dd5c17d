#include "waitset.h"

#include <QCoroTask>

#include <QFutureWatcher>
#include <QScopeGuard>
#include <QTimer>

#include <utility>

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

QCoro::Task<bool> WaitSet::sleep(std::chrono::milliseconds delay)
{
    if (m_closed)
        co_return false;
    Wait wait(*this);
    QTimer timer;
    timer.setSingleShot(true);
    QObject::connect(&timer, &QTimer::timeout, &timer, [&wait] { wait.ring(); });
    timer.start(delay);
    co_await wait;
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
    if (work.isFinished())
        co_return true;
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

} // namespace Paddock
