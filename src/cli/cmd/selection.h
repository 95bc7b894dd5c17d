#pragma once

// Which workspaces a verb acts on, and how a bulk verb runs over them.
//
// Selection: the ids given, or --all narrowed by filters (--state, --user, --agent, --label,
// --idle-longer-than, --expires-within; combinable, each one more condition), resolved from ONE
// listing of the backend; a single id is looked up by its metadata instead, which is cheaper.
// list takes the same filters (without --all: it lists everything by default).
//
// A bulk verb (pause, resume, close, kill, renew) runs the core's bulk runner at --concurrency
// (default 8, as the console), prints each workspace's result in the order given as soon as it
// and those before it are done (or all at the end as JSON with --json), never stops at a
// failure, and exits 1 when any failed. --dry-run prints what would be acted on; a kill of more
// than one workspace chosen by --all asks for confirmation on a terminal and needs --yes
// otherwise; Ctrl+C stops starting new actions, waits for those in flight and says what was done
// and what was not.

#include "command.h"

#include "sandbox.h"

#include <QCoroFwd>

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <chrono>
#include <optional>
#include <utility>

namespace Paddock::Ctl {

struct Filters
{
    QList<SandboxState> states;
    QStringList users;
    QStringList agents;
    QList<std::pair<QString, QString>> labels; // metadata key = value, every one must hold
    std::optional<std::chrono::seconds> idleLongerThan; // by the listing's times (idleSince)
    std::optional<std::chrono::seconds> expiresWithin; // expired already counts too

    bool any() const;
    bool matches(const SandboxInfo &info, const QDateTime &now) const;
};

// The filter options given; InvalidArgument naming the option and what it accepts on bad input.
Result<Filters> parseFilters(const Session &s);

// --concurrency: 1 to 64, default 8.
Result<int> parseConcurrency(const Session &s);

// The workspaces of a run: those found (a workspace's newest sandbox, in the order given, or
// the listing's order for --all) and the ids given that were not found.
struct Resolved
{
    QList<SandboxInfo> sandboxes;
    QList<std::pair<QString, Error>> missing;
};

// ids given: each found in one listing (a single id by ProfileSession::find); none: every
// workspace of one listing that `filters` keep (a workspace's newest sandbox only). A failed
// listing is the error.
QCoro::Task<Result<Resolved>> resolve(Session &s, QStringList ids, Filters filters);

// The newest sandbox of each workspace in `listed`, in the order of their first appearance.
QList<SandboxInfo> newestPerWorkspace(const QList<SandboxInfo> &listed);

// A sandbox's name in the lines printed: its workspace id, else (made by someone else) its own id.
QString idOf(const SandboxInfo &info);

// One workspace's result in a bulk run: the line printed when it was done, and what --json adds.
struct Outcome
{
    SandboxInfo sandbox;
    std::optional<Error> error;
    QString line;
    QJsonObject extra; // --json: more members of its row (renew: expiresAt)
};

// Prints each workspace's outcome in the order given as soon as it and all before it are done: a
// done one's line on stdout, a failed one's "<verb> <id>: <reason>" on stderr; what was never
// started only in the summary. Quiet with --json (all at the end).
class OrderedPrinter
{
public:
    OrderedPrinter(qsizetype count, QString verb, bool quiet);
    void started(qsizetype index);
    void done(qsizetype index, Outcome outcome);
    // The end of the run: --json's array (`rows` first, then one row per outcome), the
    // interrupt's summary ("interrupted: X done, Y failed, Z not started" and the ids not
    // started), and the exit code: 128 + `signal` when interrupted, else Failure when any failed
    // or was not started, else `exitCode`.
    int finish(bool json, int signal, int exitCode, QJsonArray rows = {}) const;

private:
    void print(qsizetype index) const;

    QList<std::optional<Outcome>> m_slots;
    QList<bool> m_started;
    QString m_verb;
    bool m_quiet;
    qsizetype m_next = 0;
};

// --json's row for an id given that names no workspace.
QJsonObject missingRow(const QString &id, const QString &verb, const Error &error);

// What a bulk verb does to one workspace, for runBulk.
enum class BulkVerb {
    Pause,
    Resume,
    Close,
    Kill,
    Renew,
};

// pause, resume, close, kill and renew: ids or --all with filters, as above.
QCoro::Task<int> runBulk(Session &s, BulkVerb verb);

} // namespace Paddock::Ctl
