#pragma once

#include <QString>

namespace Paddock::OpenSandbox {

// OpenSandbox keeps metadata as Kubernetes labels: a value is at most 63 characters of
// [A-Za-z0-9-_.], starting and ending with an alphanumeric (or empty). Raw user and agent ids
// such as "运维" or "alice@example.com" break those rules, so values are encoded:
//
//   plain   a value that already obeys the rules (and does not start with "b32-" or "h-")
//           is stored as it is, exactly as AgentScope stores it;
//   b32-…   otherwise, when it fits: "b32-" + RFC 4648 base32 of the UTF-8 bytes, lowercase,
//           no padding (up to 36 bytes of UTF-8). Reversible;
//   h-…     otherwise: "h-" + 40 hex digits of BLAKE2b-160 over the UTF-8 bytes. Distinct for
//           distinct values, but not reversible.
//
// The same encoding is used when writing metadata and when filtering by it, so lookups match.
bool isLabelValue(const QString &value);
QString encodeMetadataValue(const QString &value);

struct DecodedValue
{
    QString text; // the original value, or the stored one when it cannot be recovered
    bool hashed = false; // stored as h-…: text is the stored form
};
DecodedValue decodeMetadataValue(const QString &stored);

} // namespace Paddock::OpenSandbox
