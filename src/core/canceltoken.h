#pragma once

#include <QList>

#include <functional>
#include <utility>

namespace Paddock {

// Says "stop" to work in flight: a bulk run between items (those not started report Cancelled),
// a command that is running (Backend::exec stops it), a follow or a wait. Work that must react at
// once registers a callback; work that checks between steps asks isCancelled(). Used on one
// thread.
class CancelToken
{
public:
    // Sets the flag, then calls each callback still registered, once.
    void cancel()
    {
        if (m_cancelled)
            return;
        m_cancelled = true;
        const auto callbacks = std::exchange(m_callbacks, {});
        for (const auto &entry : callbacks)
            entry.second();
    }
    bool isCancelled() const { return m_cancelled; }

    // `callback` runs when cancel() is called (at once when it already was, and then 0 is
    // returned). The id removes it with remove() (the work ended first).
    int onCancel(std::function<void()> callback)
    {
        if (m_cancelled) {
            callback();
            return 0;
        }
        m_callbacks.append({++m_lastId, std::move(callback)});
        return m_lastId;
    }
    void remove(int id)
    {
        m_callbacks.removeIf([id](const auto &entry) { return entry.first == id; });
    }

private:
    bool m_cancelled = false;
    int m_lastId = 0;
    QList<std::pair<int, std::function<void()>>> m_callbacks;
};

} // namespace Paddock
