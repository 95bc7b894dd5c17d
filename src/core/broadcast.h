#pragma once

#include <coroutine>
#include <optional>
#include <utility>
#include <vector>

namespace Paddock {

// A value that several coroutines wait for and all receive. set() resumes every waiter in
// the order they started waiting; a waiter that arrives later gets the value at once.
template<typename T> class Broadcast
{
public:
    bool isSet() const { return m_value.has_value(); }
    const T &value() const { return *m_value; }

    void set(T value)
    {
        m_value.emplace(std::move(value));
        const auto waiters = std::exchange(m_waiters, {});
        for (const auto handle : waiters)
            handle.resume();
    }

    auto wait()
    {
        struct Awaiter
        {
            Broadcast *broadcast;
            bool await_ready() const noexcept { return broadcast->isSet(); }
            void await_suspend(std::coroutine_handle<> handle) { broadcast->m_waiters.push_back(handle); }
            T await_resume() const { return broadcast->value(); }
        };
        return Awaiter{this};
    }

private:
    std::optional<T> m_value;
    std::vector<std::coroutine_handle<>> m_waiters;
};

} // namespace Paddock
