#pragma once

#include <algorithm>
#include <chrono>

namespace Paddock {

// The delays of AgentScope's readiness polls: 0.1 s, then x1.5 each time, capped at 1 s.
class Backoff
{
public:
    using Duration = std::chrono::milliseconds;

    constexpr Backoff(Duration first = Duration(100), double factor = 1.5, Duration cap = Duration(1000))
        : m_next(first)
        , m_factor(factor)
        , m_cap(cap)
    {
    }

    constexpr Duration next()
    {
        const Duration current = m_next;
        m_next = std::min(m_cap, Duration(static_cast<Duration::rep>(static_cast<double>(m_next.count()) * m_factor)));
        return current;
    }

private:
    Duration m_next;
    double m_factor;
    Duration m_cap;
};

} // namespace Paddock
