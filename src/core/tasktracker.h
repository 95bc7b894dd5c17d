#pragma once

#include "broadcast.h"

#include <QCoroTask>

#include <memory>

namespace Paddock {

// Counts the coroutines under way in an object, so that its owner can wait until none is left
// before freeing what they use. A coroutine takes a Hold as its first statement; the Hold lives
// as long as the coroutine's frame does.
class TaskTracker
{
    struct State
    {
        int running = 0;
        std::shared_ptr<Broadcast<bool>> idle; // made by the first waiter, rung when running drops to 0
    };

public:
    class Hold
    {
    public:
        explicit Hold(std::shared_ptr<State> state)
            : m_state(std::move(state))
        {
            ++m_state->running;
        }
        Hold(const Hold &) = delete;
        Hold &operator=(const Hold &) = delete;
        Hold(Hold &&other) noexcept = default;
        Hold &operator=(Hold &&other) = delete; // would drop the hold it replaces without counting
        ~Hold()
        {
            if (!m_state || --m_state->running > 0)
                return;
            if (const auto idle = std::exchange(m_state->idle, {}))
                idle->set(true); // resumes the waiters at once
        }

    private:
        std::shared_ptr<State> m_state;
    };

    Hold hold() { return Hold(m_state); }
    int running() const { return m_state->running; }

    // Completes once no coroutine holds this tracker (at once when none does).
    QCoro::Task<void> idle()
    {
        const std::shared_ptr<State> state = m_state;
        while (state->running > 0) {
            if (!state->idle)
                state->idle = std::make_shared<Broadcast<bool>>();
            const std::shared_ptr<Broadcast<bool>> idle = state->idle;
            co_await idle->wait();
        }
    }

private:
    std::shared_ptr<State> m_state = std::make_shared<State>();
};

} // namespace Paddock
