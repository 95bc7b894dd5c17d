#pragma once

#include <QByteArray>
#include <QStringList>

#include <optional>

namespace Paddock {

// Ending a command in a sandbox whose exec cannot end one itself (Docker's Engine API has no
// exec kill; closing a Pod's exec connection leaves the command running): the command is run
// by `sh`, which first writes its pid on stderr, "paddock-exec-pid <pid>", then execs the
// command, which so keeps that pid. runc makes every exec the leader of its own session, so
// the pid is also the command's process group, and a second command kills the group
// (killGroupCommand). Children that left the group (setsid, daemons) are not reached.
//
// `argv` run that way (sh, from the image, is needed).
QStringList announcingPid(const QStringList &argv);
// The second command: SIGKILL to the process group `pid` leads, else (not a group leader) to
// `pid` alone. Written for dash and busybox ash alike (`kill -KILL -pid`; dash takes no `--`).
QStringList killGroupCommand(qint64 pid);

// Takes the announcement off the front of the command's stderr as it arrives; what follows is
// the command's own. A stream that does not begin with it (the wrapper could not write it) is
// passed on untouched.
class PidAnnouncement
{
public:
    // The next bytes of stderr; returns those that are the command's (none while the
    // announcement may still be arriving).
    QByteArray feed(const QByteArray &bytes);
    // The stream ended: what was held back, if it was no announcement.
    QByteArray finish();
    std::optional<qint64> pid() const { return m_pid; }

private:
    QByteArray m_head;
    bool m_settled = false;
    std::optional<qint64> m_pid;
};

} // namespace Paddock
