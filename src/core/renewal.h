#pragma once

#include <QDateTime>

#include <chrono>
#include <optional>

namespace Paddock {

// How a renewal picks the new expiry. Servers take an absolute time (OpenSandbox) or a timeout
// from now (the SDKs compute now + duration on the client's clock); Backend::renew takes the
// duration from now, so both modes end up as one.
enum class RenewMode {
    Extend, // the current expiry (or now, if it has passed or there is none) plus the amount
    FromNow, // now plus the amount: may be earlier than the current expiry
};

struct Renewal
{
    QDateTime expiresAt; // UTC
    std::chrono::seconds fromNow{0}; // what Backend::renew is given
    bool shortens = false; // the new expiry is earlier than the current one
};

// The renewal of a workspace whose expiry is `current` (nullopt: it has none), at `now` (UTC).
// An Extend never shortens; a FromNow shortens when now + amount comes before `current`.
Renewal planRenewal(const std::optional<QDateTime> &current, const QDateTime &now, RenewMode mode,
                    std::chrono::seconds amount);

} // namespace Paddock
