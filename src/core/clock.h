#pragma once

#include <chrono>

namespace Paddock {

// Monotonic time for idle tracking; tests inject a manual clock.
class Clock
{
public:
    using TimePoint = std::chrono::steady_clock::time_point;
    virtual ~Clock() = default;
    virtual TimePoint now() const = 0;
};

class SteadyClock final : public Clock
{
public:
    TimePoint now() const override { return std::chrono::steady_clock::now(); }
};

class ManualClock final : public Clock
{
public:
    TimePoint now() const override { return m_now; }
    void advance(std::chrono::steady_clock::duration by) { m_now += by; }
    void set(TimePoint to) { m_now = to; }

private:
    TimePoint m_now{std::chrono::hours(1)};
};

} // namespace Paddock
