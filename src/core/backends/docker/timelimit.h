#pragma once

#include <QString>
#include <QStringList>

namespace Paddock::Docker {

// Runs "$@" under a time limit of $1 seconds, for a shell that leads its own process group (runc
// makes every exec a session leader). A watchdog in a session of its own, its stdio on
// /dev/null so that it holds no stream of the exec open, looks once a second whether the
// command still runs, and when the time is up kills the command's process group (exit status
// 137); it ends by itself within a second of the command. The command is exec'd in the
// foreground, so it keeps the shell's pid and group and gets SIGINT and SIGQUIT as they were (a
// background job would have them ignored for good). What leaves the group (setsid, setpgid) is
// not killed. Written for dash (Debian's sh) and busybox ash alike: `kill -KILL -pid` is the
// spelling both take (dash knows no `--`). Without setsid nothing runs: exit status 127 and
// "setsid: not found" on stderr.
inline constexpr char TimeLimitScript[] = R"(limit=$1
shift
command -v setsid >/dev/null 2>&1 || { echo "paddock-time-limit: setsid: not found" >&2; exit 127; }
setsid sh -c 'n=0
while [ "$n" -lt "$1" ]; do
    sleep 1
    kill -0 "$2" 2>/dev/null || exit 0
    n=$((n + 1))
done
kill -KILL "-$2" 2>/dev/null || kill -KILL "$2"' paddock-watchdog "$limit" "$$" </dev/null >/dev/null 2>&1 &
exec "$@")";

// argv run by `sh` under a limit of `seconds` (at least 1).
inline QStringList withTimeLimit(const QStringList &argv, qint64 seconds)
{
    return QStringList{QStringLiteral("sh"), QStringLiteral("-c"), QLatin1String(TimeLimitScript),
                       QStringLiteral("paddock-time-limit"), QString::number(seconds)}
    + argv;
}

} // namespace Paddock::Docker
