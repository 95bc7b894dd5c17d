#pragma once

// Durations on paddockctl's command line and in its tables: "90s", "30m", "2h", "1d" (and a
// plain number of seconds, as sweep --idle always took), written back as "1d 2h", "5m 3s".

#include <QString>
#include <QStringView>

#include <chrono>
#include <optional>

namespace Paddock::Ctl {

// A whole number followed by s, m, h or d (or nothing: seconds); several may follow each other
// ("1h30m"). nullopt for anything else: empty, negative, a fraction, an unknown unit, or more
// than 100 years.
std::optional<std::chrono::seconds> parseDuration(QStringView text);
// The accepted forms, for a usage message: "90s, 30m, 2h, 1d".
QString durationForms();
// The two largest units in the user's language ("1d 2h", "5m 3s", "45s"); negative as 0.
QString formatDuration(std::chrono::seconds duration);

} // namespace Paddock::Ctl
