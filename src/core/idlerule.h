#pragma once

#include "sandbox.h"

#include <QDateTime>

#include <chrono>

namespace Paddock {

// How the time a workspace is idle since was found.
enum class IdleBasis {
    Unknown, // no time at all to go by: it is not judged
    Listed, // the backend's own last activity (SandboxInfo::lastActivityAt)
    Seen, // activity the caller saw beside the listing: the sessions/ folder, its own use
    Created, // no activity known: since it was created
    CreatedAfterActivity, // the activity known is older than the sandbox (another one's): since it was created
};

struct IdleSince
{
    QDateTime since; // invalid when the basis is Unknown
    IdleBasis basis = IdleBasis::Unknown;

    bool isKnown() const { return since.isValid(); }
    // Idle for longer than `threshold` at `now` (never when nothing is known).
    bool idleLongerThan(std::chrono::seconds threshold, const QDateTime &now) const
    {
        return since.isValid() && since < now.addSecs(-qint64(threshold.count()));
    }
};

// The one rule by which the console's idle triage and `paddockctl sweep` judge idleness: a
// workspace is idle since the newest time it is known to have been used — the backend's last
// activity or `seen` (what the caller learnt besides the listing: Backend::sessionsActivity, its
// own accesses), whichever is newer — else since it was created. Activity older than the
// sandbox's creation belongs to another sandbox and counts as the creation. Pure: no clock, no I/O.
IdleSince idleSince(const SandboxInfo &info, const QDateTime &seen = {});

} // namespace Paddock
