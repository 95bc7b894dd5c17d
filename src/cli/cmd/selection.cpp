#include "selection.h"

#include "backendregistry.h"
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

} // namespace

QString idOf(const SandboxInfo &info)
{
    return info.workspaceId.isEmpty() ? info.sandboxId : info.workspaceId;
}

OrderedPrinter::OrderedPrinter(qsizetype count, QString verb, bool quiet)
    : m_slots(count)
    , m_started(count, false)
    , m_verb(std::move(verb))
    , m_quiet(quiet)
{
}

void OrderedPrinter::started(qsizetype index)
{
    m_started[index] = true;
}

void OrderedPrinter::done(qsizetype index, Outcome outcome)
{
    m_slots[index] = std::move(outcome);
    while (m_next < m_slots.size() && m_slots.at(m_next)) {
        print(m_next);
        ++m_next;
    }
}

void OrderedPrinter::print(qsizetype index) const
{
    const Outcome &outcome = *m_slots.at(index);
    if (m_quiet)
        return;
    if (!outcome.error)
        out(outcome.line);
    else if (m_started.at(index)) // what was not started is said once, at the end
        err(QStringLiteral("%1 %2: %3").arg(m_verb, idOf(outcome.sandbox), outcome.error->message));
}

int OrderedPrinter::finish(bool json, int signal, int exitCode, QJsonArray rows) const
{
    qsizetype done = 0;
    qsizetype failed = 0;
    QStringList notStarted;
    for (qsizetype i = 0; i < m_slots.size(); ++i) {
        const std::optional<Outcome> &outcome = m_slots.at(i);
        const bool started = m_started.at(i);
        if (json) {
            const SandboxInfo &sandbox = outcome ? outcome->sandbox : SandboxInfo();
            QJsonObject row{
                {QStringLiteral("workspaceId"), sandbox.workspaceId},
                {QStringLiteral("sandboxId"), sandbox.sandboxId},
                {QStringLiteral("action"), m_verb},
                {QStringLiteral("ok"), outcome && !outcome->error},
                {QStringLiteral("error"),
                 outcome && outcome->error ? QJsonValue(outcome->error->message) : QJsonValue(QJsonValue::Null)},
                {QStringLiteral("started"), started},
            };
            if (outcome) {
                for (auto it = outcome->extra.constBegin(); it != outcome->extra.constEnd(); ++it)
                    row.insert(it.key(), it.value());
            }
            rows.append(row);
        }
        if (outcome && !outcome->error)
            ++done;
        else if (!started)
            notStarted.append(outcome ? idOf(outcome->sandbox) : QString());
        else
            ++failed;
    }
    if (json)
        write(stdout, QJsonDocument(rows).toJson(QJsonDocument::Indented));
    if (failed > 0)
        exitCode = Failure;
    if (signal != 0 || !notStarted.isEmpty()) {
        err(Tr::tr("interrupted: %1 done, %2 failed, %3 not started").arg(done).arg(failed).arg(notStarted.size()));
        if (!notStarted.isEmpty())
            err(Tr::tr("not started: %1").arg(notStarted.join(u' ')));
        return signal != 0 ? 128 + signal : Failure;
    }
    return exitCode;
}

QJsonObject missingRow(const QString &id, const QString &verb, const Error &error)
{
    return QJsonObject{
        {QStringLiteral("workspaceId"), id},      {QStringLiteral("sandboxId"), QJsonValue(QJsonValue::Null)},
        {QStringLiteral("action"), verb},         {QStringLiteral("ok"), false},
        {QStringLiteral("error"), error.message}, {QStringLiteral("started"), false}};
}

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
    std::chrono::seconds renewBy{3600};
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
    const bool json = s.has("json");
    int exitCode = Success;
    QJsonArray rows; // --json: the ids given that name no workspace first
    for (const auto &[id, error] : std::as_const(resolved->missing)) {
        err(QStringLiteral("%1 %2: %3").arg(verbText, id, error.message));
        if (json)
            rows.append(missingRow(id, verbText, error));
        exitCode = Failure;
    }
    const QList<SandboxInfo> &targets = resolved->sandboxes;
    if (targets.isEmpty()) {
        if (all) {
            err(Tr::tr("no workspace matches; nothing to %1").arg(verbText));
            if (s.has("fail-empty"))
                exitCode = Failure;
        }
        if (json)
            write(stdout, QJsonDocument(rows).toJson(QJsonDocument::Indented));
        co_return exitCode;
    }
    if (s.has("dry-run")) {
        for (const SandboxInfo &info : targets) {
            if (json) {
                rows.append(QJsonObject{{QStringLiteral("workspaceId"), info.workspaceId},
                                        {QStringLiteral("sandboxId"), info.sandboxId},
                                        {QStringLiteral("action"), verbText},
                                        {QStringLiteral("dryRun"), true},
                                        {QStringLiteral("state"), info.rawState},
                                        {QStringLiteral("userId"), info.userId},
                                        {QStringLiteral("agentId"), info.agentId}});
            } else {
                out(wouldText(verb, info));
            }
        }
        if (json)
            write(stdout, QJsonDocument(rows).toJson(QJsonDocument::Indented));
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

    // Through the core's bulk runner, as the console's bulk actions go.
    OrderedPrinter printer(targets.size(), verbText, json);
    const auto cancel = std::make_shared<CancelToken>();
    const StopOnSignals stopper(cancel);
    const WorkspaceAction action = verb == BulkVerb::Pause ? WorkspaceAction::Pause
        : verb == BulkVerb::Resume                         ? WorkspaceAction::Resume
        : verb == BulkVerb::Close                          ? WorkspaceAction::Close
        : verb == BulkVerb::Renew                          ? WorkspaceAction::Renew
                                                           : WorkspaceAction::Kill;
    ActionOptions options;
    options.kill.deleteFiles = s.has("delete-files");
    // now + the duration, as the SDKs renew; never sooner than now unless --allow-shorter (the
    // session plans from the expiry the server has when it renews, and says both times).
    options.renew = RenewRequest{RenewMode::FromNow, renewBy, s.has("allow-shorter")};
    BulkProgress progress;
    progress.cancel = cancel;
    progress.concurrency = *concurrency;
    progress.started = [&printer](qsizetype index) { printer.started(index); };
    progress.finished = [&printer, &s, verb](qsizetype index, const ItemResult &result) {
        Outcome outcome{result.sandbox, result.error, {}, {}};
        if (result.ok() && verb == BulkVerb::Renew) {
            const std::optional<QDateTime> expiresAt = result.after ? result.after->expiresAt : std::nullopt;
            outcome.line = Tr::tr("%1 expires at %2")
                               .arg(idOf(result.sandbox), expiresAt ? jsonTime(*expiresAt) : Tr::tr("never"));
            outcome.extra.insert(QStringLiteral("expiresAt"),
                                 expiresAt ? QJsonValue(jsonTime(*expiresAt)) : QJsonValue(QJsonValue::Null));
        } else if (result.ok()) {
            outcome.line = doneText(s, verb, result.sandbox);
        }
        printer.done(index, std::move(outcome));
    };
    // A renewal that would shorten what the listing says is refused here with both times, as
    // scripts read them, and sent nowhere; the session checks again against what the server has
    // when it renews (someone may have renewed since the listing).
    QList<qsizetype> sent; // index in `targets` of each item run
    QList<SandboxInfo> items;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (qsizetype i = 0; i < targets.size(); ++i) {
        const SandboxInfo &info = targets.at(i);
        if (verb == BulkVerb::Renew && !options.renew.allowShorter) {
            const Renewal plan = planRenewal(info.expiresAt, now, RenewMode::FromNow, renewBy);
            if (plan.shortens) {
                printer.started(i);
                printer.done(i,
                             Outcome{info,
                                     Error::conflict(Tr::tr("now + %1 is %2, earlier than its current expiry %3; "
                                                            "nothing was changed (give --allow-shorter to shorten "
                                                            "it)")
                                                         .arg(formatDuration(renewBy), jsonTime(plan.expiresAt),
                                                              jsonTime(*info.expiresAt))),
                                     {},
                                     {}});
                continue;
            }
        }
        sent.append(i);
        items.append(info);
    }
    const auto started = progress.started;
    const auto finished = progress.finished;
    progress.started = [&sent, started](qsizetype k) { started(sent.at(k)); };
    progress.finished = [&sent, finished](qsizetype k, const ItemResult &result) { finished(sent.at(k), result); };
    ProfileSession *session = s.session.get();
    co_await session->run(action, items, options, progress);
    co_return printer.finish(json, stopper.signal(), exitCode, rows);
}

} // namespace Paddock::Ctl
