#include "selection.h"

#include "backendregistry.h"
#include "bulk.h"
#include "duration.h"
#include "idlerule.h"
#include "renewal.h"
#include "signals.h"

#include <QCoroTask>

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <unistd.h>

namespace Paddock::Ctl {

namespace {

constexpr int DefaultConcurrency = ProfileSession::BulkConcurrency;
constexpr int MaxConcurrency = 64;

// The states --state takes, by their lower-case names.
QList<SandboxState> namedStates()
{
    return {SandboxState::Running, SandboxState::Paused,     SandboxState::Pending,
            SandboxState::Pausing, SandboxState::Resuming,   SandboxState::Stopping,
            SandboxState::Failed,  SandboxState::Terminated, SandboxState::Unknown};
}

QString stateWord(SandboxState state)
{
    return sandboxStateName(state).toLower();
}

QString stateWords()
{
    QStringList words;
    for (const SandboxState state : namedStates())
        words.append(stateWord(state));
    return words.join(QStringLiteral(", "));
}

// Every value given to a repeatable option, comma lists split.
QStringList listValues(const Session &s, const char *option)
{
    QStringList values;
    for (const QString &value : s.parser.values(QLatin1String(option))) {
        for (const QString &part : value.split(u',', Qt::SkipEmptyParts))
            values.append(part.trimmed());
    }
    return values;
}

Result<std::optional<std::chrono::seconds>> durationOption(const Session &s, const char *option)
{
    if (!s.has(option))
        return std::optional<std::chrono::seconds>();
    const QString given = s.value(option);
    const auto duration = parseDuration(given);
    if (!duration) {
        return fail(Error::invalidArgument(
            Tr::tr("--%1 takes a duration such as %2, not \"%3\"").arg(QLatin1String(option), durationForms(), given)));
    }
    return std::optional<std::chrono::seconds>(*duration);
}

QString verbName(BulkVerb verb)
{
    switch (verb) {
    case BulkVerb::Pause:
        return QStringLiteral("pause");
    case BulkVerb::Resume:
        return QStringLiteral("resume");
    case BulkVerb::Close:
        return QStringLiteral("close");
    case BulkVerb::Kill:
        return QStringLiteral("kill");
    case BulkVerb::Renew:
        return QStringLiteral("renew");
    }
    return {};
}

// A line for the dry run: what would be done, to which workspace.
QString wouldText(BulkVerb verb, const SandboxInfo &info)
{
    const QString who = QStringLiteral("%1 (%2, %3, %4)")
                            .arg(info.workspaceId.isEmpty() ? info.sandboxId : info.workspaceId,
                                 info.rawState.isEmpty() ? stateWord(info.state) : info.rawState,
                                 info.userId.isEmpty() ? QStringLiteral("-") : info.userId,
                                 info.agentId.isEmpty() ? QStringLiteral("-") : info.agentId);
    switch (verb) {
    case BulkVerb::Pause:
        return Tr::tr("would pause %1").arg(who);
    case BulkVerb::Resume:
        return Tr::tr("would resume %1").arg(who);
    case BulkVerb::Close:
        return Tr::tr("would close %1").arg(who);
    case BulkVerb::Kill:
        return Tr::tr("would kill %1").arg(who);
    case BulkVerb::Renew:
        return Tr::tr("would renew %1").arg(who);
    }
    return {};
}

// What one workspace's result prints: the line (stdout when done, stderr when failed), and for
// --json its object.
struct Outcome
{
    SandboxInfo sandbox;
    std::optional<Error> error;
    QString line;
    std::optional<QDateTime> expiresAt; // renew: the expiry it got
};

QString idOf(const SandboxInfo &info)
{
    return info.workspaceId.isEmpty() ? info.sandboxId : info.workspaceId;
}

QString doneText(Session &s, BulkVerb verb, const SandboxInfo &info)
{
    const QString id = idOf(info);
    switch (verb) {
    case BulkVerb::Pause:
        return Tr::tr("%1 paused").arg(id);
    case BulkVerb::Resume:
        return Tr::tr("%1 resumed").arg(id);
    case BulkVerb::Close:
        return Tr::tr("%1 closed").arg(id);
    case BulkVerb::Kill: {
        ProfileSession *session = s.session.get();
        const QString folder = session->hostFolder(info);
        if (session->can(Capability::DeleteFilesOnKill)) {
            // The container is gone; its files stay on the host unless asked.
            return s.has("delete-files")
                ? Tr::tr("%1 killed; deleted container %2 and %3").arg(id, info.sandboxId.left(12), folder)
                : Tr::tr("%1 killed; deleted container %2, kept %3").arg(id, info.sandboxId.left(12), folder);
        }
        return folder.isEmpty() ? Tr::tr("%1 killed; deleted sandbox %2").arg(id, info.sandboxId)
                                : Tr::tr("%1 killed; deleted %2").arg(id, folder);
    }
    case BulkVerb::Renew:
        break;
    }
    return {};
}

// Prints each workspace's outcome in the order given, as soon as it and all before it are done.
class OrderedPrinter
{
public:
    OrderedPrinter(qsizetype count, QString verb, bool quiet)
        : m_slots(count)
        , m_verb(std::move(verb))
        , m_quiet(quiet)
    {
    }

    void done(qsizetype index, Outcome outcome)
    {
        m_slots[index] = std::move(outcome);
        while (m_next < m_slots.size() && m_slots.at(m_next)) {
            print(*m_slots.at(m_next));
            ++m_next;
        }
    }
    const QList<std::optional<Outcome>> &outcomes() const { return m_slots; }

private:
    void print(const Outcome &outcome) const
    {
        if (m_quiet)
            return;
        if (!outcome.error) {
            out(outcome.line);
        } else if (outcome.error->kind != Error::Kind::Cancelled) {
            err(QStringLiteral("%1 %2: %3").arg(m_verb, idOf(outcome.sandbox), outcome.error->message));
        }
    }

    QList<std::optional<Outcome>> m_slots;
    QString m_verb;
    bool m_quiet;
    qsizetype m_next = 0;
};

// kill of several workspaces chosen by --all: yes on a terminal, --yes otherwise.
enum class Consent {
    Given,
    Refused,
    Needed, // not a terminal, no --yes
};

Consent askConsent(Session &s, BulkVerb verb, qsizetype count)
{
    if (s.has("yes"))
        return Consent::Given;
    if (!::isatty(STDIN_FILENO))
        return Consent::Needed;
    Q_UNUSED(verb);
    write(stderr, Tr::tr("Kill %n workspace(s)? Their sandboxes are deleted. [y/N] ", nullptr, int(count)).toUtf8());
    std::string answer;
    if (!std::getline(std::cin, answer))
        return Consent::Refused;
    const QString said = QString::fromStdString(answer).trimmed().toLower();
    return said == QLatin1String("y") || said == QLatin1String("yes") || said == Tr::tr("y") ? Consent::Given
                                                                                             : Consent::Refused;
}

QJsonObject jsonOutcome(const Outcome &outcome, const QString &verb)
{
    QJsonObject row{
        {QStringLiteral("workspaceId"), outcome.sandbox.workspaceId},
        {QStringLiteral("sandboxId"), outcome.sandbox.sandboxId},
        {QStringLiteral("action"), verb},
        {QStringLiteral("ok"), !outcome.error},
        {QStringLiteral("error"), outcome.error ? QJsonValue(outcome.error->message) : QJsonValue(QJsonValue::Null)},
    };
    if (outcome.error && outcome.error->kind == Error::Kind::Cancelled)
        row.insert(QStringLiteral("started"), false);
    if (outcome.expiresAt)
        row.insert(QStringLiteral("expiresAt"), jsonTime(*outcome.expiresAt));
    return row;
}

// renew's step for one workspace: now + the duration, never shorter unless --allow-shorter.
QCoro::Task<Result<QDateTime>> renewOne(ProfileSession *session, SandboxInfo sandbox, std::chrono::seconds amount,
                                        bool allowShorter)
{
    // The current expiry is the backend's, asked now; the session plans from it once more and
    // refuses a shortening too, but this says why in paddockctl's words.
    auto current = co_await session->get(sandbox.sandboxId);
    if (!current)
        co_return fail(current.error());
    const Renewal plan = planRenewal(current->expiresAt, QDateTime::currentDateTimeUtc(), RenewMode::FromNow, amount);
    if (plan.shortens && !allowShorter) {
        co_return fail(
            Error::conflict(Tr::tr("now + %1 is %2, earlier than its current expiry %3; nothing was "
                                   "changed (give --allow-shorter to shorten it)")
                                .arg(formatDuration(amount), jsonTime(plan.expiresAt), jsonTime(*current->expiresAt))));
    }
    auto renewed = co_await session->renew(*current, RenewRequest{RenewMode::FromNow, amount, allowShorter});
    if (!renewed)
        co_return fail(renewed.error());
    co_return renewed->expiresAt.value_or(QDateTime());
}

} // namespace

bool Filters::any() const
{
    return !states.isEmpty() || !users.isEmpty() || !agents.isEmpty() || !labels.isEmpty() || idleLongerThan
        || expiresWithin;
}

bool Filters::matches(const SandboxInfo &info, const QDateTime &now) const
{
    if (!states.isEmpty() && !states.contains(info.state))
        return false;
    if (!users.isEmpty() && !users.contains(info.userId))
        return false;
    if (!agents.isEmpty() && !agents.contains(info.agentId))
        return false;
    for (const auto &[key, value] : labels) {
        const auto it = info.metadata.constFind(key);
        if (it == info.metadata.cend() || *it != value)
            return false;
    }
    if (idleLongerThan && !idleSince(info).idleLongerThan(*idleLongerThan, now))
        return false;
    if (expiresWithin
        && (!info.expiresAt || !info.expiresAt->isValid() || now.secsTo(*info.expiresAt) > expiresWithin->count()))
        return false;
    return true;
}

Result<Filters> parseFilters(const Session &s)
{
    Filters filters;
    for (const QString &word : listValues(s, "state")) {
        bool known = false;
        for (const SandboxState state : namedStates()) {
            if (word.compare(stateWord(state), Qt::CaseInsensitive) == 0) {
                if (!filters.states.contains(state))
                    filters.states.append(state);
                known = true;
            }
        }
        if (!known) {
            return fail(Error::invalidArgument(
                Tr::tr("--state takes %1 (several with commas), not \"%2\"").arg(stateWords(), word)));
        }
    }
    filters.users = listValues(s, "user");
    filters.agents = listValues(s, "agent");
    for (const QString &label : s.parser.values(QStringLiteral("label"))) {
        const qsizetype equals = label.indexOf(u'=');
        if (equals <= 0)
            return fail(Error::invalidArgument(Tr::tr("--label takes key=value, not \"%1\"").arg(label)));
        filters.labels.append({label.left(equals), label.mid(equals + 1)});
    }
    auto idle = durationOption(s, "idle-longer-than");
    if (!idle)
        return fail(idle.error());
    filters.idleLongerThan = *idle;
    auto expires = durationOption(s, "expires-within");
    if (!expires)
        return fail(expires.error());
    filters.expiresWithin = *expires;
    return filters;
}

Result<int> parseConcurrency(const Session &s)
{
    if (!s.has("concurrency"))
        return DefaultConcurrency;
    const auto n = parseCount(s.value("concurrency"));
    if (!n || *n < 1 || *n > MaxConcurrency) {
        return fail(Error::invalidArgument(Tr::tr("--concurrency takes a whole number from 1 to %1, not \"%2\"")
                                               .arg(MaxConcurrency)
                                               .arg(s.value("concurrency"))));
    }
    return int(*n);
}

QList<SandboxInfo> newestPerWorkspace(const QList<SandboxInfo> &listed)
{
    QHash<QString, qsizetype> at; // workspace id -> index in `newest`
    QList<SandboxInfo> newest;
    newest.reserve(listed.size());
    for (const SandboxInfo &info : listed) {
        // A sandbox without a workspace id (made by someone else) stands for itself.
        const QString key = info.workspaceId.isEmpty() ? QStringLiteral("\n") + info.sandboxId : info.workspaceId;
        const auto it = at.constFind(key);
        if (it == at.cend()) {
            at.insert(key, newest.size());
            newest.append(info);
        } else if (newest.at(*it).createdAt < info.createdAt) {
            // The newest wins, as AgentScope's managers pick (ProfileSession::find).
            newest[*it] = info;
        }
    }
    return newest;
}

QCoro::Task<Result<Resolved>> resolve(Session &s, QStringList ids, Filters filters)
{
    Resolved resolved;
    if (ids.size() == 1) {
        auto found = co_await s.session->find(ids.constFirst());
        if (found) {
            resolved.sandboxes.append(*found);
        } else if (found.error().kind == Error::Kind::NotFound) {
            resolved.missing.append({ids.constFirst(), found.error()});
        } else {
            co_return fail(found.error());
        }
        co_return resolved;
    }
    auto listed = co_await s.session->list();
    if (!listed)
        co_return fail(listed.error());
    const QList<SandboxInfo> newest = newestPerWorkspace(*listed);
    if (!ids.isEmpty()) {
        QHash<QString, qsizetype> byId;
        for (qsizetype i = 0; i < newest.size(); ++i)
            byId.insert(newest.at(i).workspaceId, i);
        QSet<QString> seen;
        for (const QString &id : std::as_const(ids)) {
            if (seen.contains(id))
                continue; // once each, as given first
            seen.insert(id);
            const auto it = byId.constFind(id);
            if (it == byId.cend())
                resolved.missing.append({id, Error::notFound(Tr::tr("no workspace %1").arg(id))});
            else
                resolved.sandboxes.append(newest.at(*it));
        }
        co_return resolved;
    }
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (const SandboxInfo &info : newest) {
        if (filters.matches(info, now))
            resolved.sandboxes.append(info);
    }
    co_return resolved;
}

QCoro::Task<int> runBulk(Session &s, BulkVerb verb)
{
    const QString verbText = verbName(verb);
    const bool all = s.has("all");
    if (all && !s.args.isEmpty())
        co_return s.usage(Tr::tr("give workspace ids or --all, not both"));
    if (!all && s.args.isEmpty())
        co_return s.usage(Tr::tr("give workspace ids, or --all (narrowed by --state, --user, --agent, --label, "
                                 "--idle-longer-than, --expires-within) for every workspace that matches"));
    for (const QString &id : std::as_const(s.args)) {
        if (auto valid = validateWorkspaceId(id); !valid)
            co_return s.usage(valid.error().message);
    }
    auto filters = parseFilters(s);
    if (!filters)
        co_return s.usage(filters.error().message);
    if (!all && filters->any())
        co_return s.usage(Tr::tr("the filters choose among all workspaces: give them with --all, not with ids"));
    const auto concurrency = parseConcurrency(s);
    if (!concurrency)
        co_return s.usage(concurrency.error().message);
    std::chrono::seconds renewBy{0};
    if (verb == BulkVerb::Renew) {
        if (!s.has("seconds"))
            co_return s.usage(Tr::tr("renew needs --seconds N (or a duration: %1)").arg(durationForms()));
        const auto amount = parseDuration(s.value("seconds"));
        if (!amount || amount->count() == 0) {
            co_return s.usage(Tr::tr("--seconds takes a positive whole number of seconds or a duration such as "
                                     "%1, not \"%2\"")
                                  .arg(durationForms(), s.value("seconds")));
        }
        renewBy = *amount;
    }

    auto resolved = co_await resolve(s, s.args, *filters);
    if (!resolved)
        co_return s.failed({}, resolved.error());
    int exitCode = Success;
    for (const auto &[id, error] : std::as_const(resolved->missing)) {
        err(QStringLiteral("%1 %2: %3").arg(verbText, id, error.message));
        exitCode = Failure;
    }
    const QList<SandboxInfo> &targets = resolved->sandboxes;
    if (targets.isEmpty()) {
        if (all) {
            err(Tr::tr("no workspace matches; nothing to %1").arg(verbText));
            co_return s.has("fail-empty") ? Failure : exitCode;
        }
        co_return exitCode;
    }
    if (s.has("dry-run")) {
        for (const SandboxInfo &info : targets)
            out(wouldText(verb, info));
        co_return exitCode;
    }
    if (verb == BulkVerb::Kill && all && targets.size() > 1) {
        switch (askConsent(s, verb, targets.size())) {
        case Consent::Given:
            break;
        case Consent::Refused:
            err(Tr::tr("not confirmed; nothing was killed"));
            co_return Failure;
        case Consent::Needed:
            co_return s.usage(Tr::tr("kill --all would kill %n workspace(s): give --yes to do it without being "
                                     "asked (stdin is not a terminal), or --dry-run to see which",
                                     nullptr, int(targets.size())));
        }
    }

    const bool json = s.has("json");
    OrderedPrinter printer(targets.size(), verbText, json);
    const auto cancel = std::make_shared<CancelToken>();
    const StopOnSignals stopper(cancel);
    ProfileSession *session = s.session.get();
    if (verb == BulkVerb::Renew) {
        // Each renewal plans from the expiry the server has now: the core's bulk runner over the
        // session's renew, not a second one.
        QList<qsizetype> indexes;
        for (qsizetype i = 0; i < targets.size(); ++i)
            indexes.append(i);
        auto got = std::make_shared<QList<QDateTime>>(targets.size());
        const bool allowShorter = s.has("allow-shorter");
        const std::function<QCoro::Task<Result<>>(const qsizetype &)> step =
            [session, got, &targets, renewBy, allowShorter](const qsizetype &index) -> QCoro::Task<Result<>> {
            auto renewed = co_await renewOne(session, targets.at(index), renewBy, allowShorter);
            if (!renewed)
                co_return fail(renewed.error());
            (*got)[index] = *renewed;
            co_return Result<>{};
        };
        const std::function<void(qsizetype, const Result<> &)> finished = [&printer, &targets, got](qsizetype index,
                                                                                                    const Result<> &r) {
            Outcome outcome{targets.at(index), r ? std::nullopt : std::optional<Error>(r.error()), {}, {}};
            if (r) {
                const QDateTime at = got->at(index);
                outcome.expiresAt = at;
                outcome.line = Tr::tr("%1 expires at %2")
                                   .arg(idOf(targets.at(index)), at.isValid() ? jsonTime(at) : Tr::tr("never"));
            }
            printer.done(index, std::move(outcome));
        };
        co_await runBounded<qsizetype>(indexes, *concurrency, step, cancel, finished);
    } else {
        const WorkspaceAction action = verb == BulkVerb::Pause ? WorkspaceAction::Pause
            : verb == BulkVerb::Resume                         ? WorkspaceAction::Resume
            : verb == BulkVerb::Close                          ? WorkspaceAction::Close
                                                               : WorkspaceAction::Kill;
        ActionOptions options;
        options.kill.deleteFiles = s.has("delete-files");
        BulkProgress progress;
        progress.cancel = cancel;
        progress.concurrency = *concurrency;
        progress.finished = [&printer, &s, verb](qsizetype index, const ItemResult &result) {
            printer.done(
                index,
                Outcome{result.sandbox, result.error, result.ok() ? doneText(s, verb, result.sandbox) : QString(), {}});
        };
        co_await session->run(action, targets, options, progress);
    }

    qsizetype done = 0;
    qsizetype failed = 0;
    QStringList notStarted;
    QJsonArray rows;
    for (const std::optional<Outcome> &outcome : printer.outcomes()) {
        if (!outcome) // cannot happen: every item reports; counted as not started
            continue;
        if (json)
            rows.append(jsonOutcome(*outcome, verbText));
        if (!outcome->error)
            ++done;
        else if (outcome->error->kind == Error::Kind::Cancelled)
            notStarted.append(idOf(outcome->sandbox));
        else
            ++failed;
    }
    if (json)
        write(stdout, QJsonDocument(rows).toJson(QJsonDocument::Indented));
    if (failed > 0)
        exitCode = Failure;
    if (stopper.signal() != 0 || !notStarted.isEmpty()) {
        err(Tr::tr("interrupted: %1 done, %2 failed, %3 not started").arg(done).arg(failed).arg(notStarted.size()));
        if (!notStarted.isEmpty())
            err(Tr::tr("not started: %1").arg(notStarted.join(u' ')));
        co_return stopper.signal() != 0 ? 128 + stopper.signal() : Failure;
    }
    co_return exitCode;
}

} // namespace Paddock::Ctl
