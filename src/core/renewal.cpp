#include "renewal.h"

#include <algorithm>

namespace Paddock {

Renewal planRenewal(const std::optional<QDateTime> &current, const QDateTime &now, RenewMode mode,
                    std::chrono::seconds amount)
{
    const QDateTime utcNow = now.toUTC();
    QDateTime base = utcNow;
    if (mode == RenewMode::Extend && current && current->isValid() && *current > utcNow)
        base = current->toUTC();
    Renewal renewal;
    renewal.expiresAt = base.addSecs(amount.count());
    renewal.fromNow = std::chrono::seconds(std::max<qint64>(0, utcNow.secsTo(renewal.expiresAt)));
    renewal.shortens = current && current->isValid() && renewal.expiresAt < *current;
    return renewal;
}

} // namespace Paddock
