#pragma once

#include <QDateTime>
#include <QStringView>

#include <optional>
#include <string_view>

namespace Paddock {

// RFC 3339 times as the servers write them (OpenSandbox, Kubernetes, E2B): 0 to 9 fractional
// digits (pydantic and Go write micro- and nanoseconds), and `Z` or a numeric offset. Returns
// UTC; fractions beyond milliseconds are cut. By position, without QDateTime's general parser: a
// listing reads two or three per sandbox.
std::optional<QDateTime> parseTimestamp(QStringView text);
// The same from the bytes of a JSON document, read in place.
std::optional<QDateTime> parseTimestamp(std::string_view text);

} // namespace Paddock
