// inspect ID [--json] [--section S]: what is inside a workspace (its overview, sessions, skills,
// MCP servers, data and gateway), read through the profile's session by the core's inspector
// (src/core/inspect/workspaceinspector.h), every secret masked in both forms.

#include "command.h"
#include "output.h"

#include "inspect/secretmask.h"
#include "inspect/workspaceinspector.h"

#include <QCoroTask>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>

#include <deque>

namespace Paddock::Ctl {

using namespace Paddock::Inspect;

namespace {

const QStringList Sections{QStringLiteral("overview"), QStringLiteral("sessions"), QStringLiteral("skills"),
                           QStringLiteral("mcp"),      QStringLiteral("data"),     QStringLiteral("gateway")};

QString localTime(const QDateTime &time)
{
    return time.isValid() ? time.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")) : QStringLiteral("-");
}

QString bytes(qint64 size)
{
    return QLocale().formattedDataSize(size, 1, QLocale::DataSizeTraditionalFormat);
}

// `text` followed by spaces to `width` columns.
QString padded(const QString &text, int width)
{
    return text + QString(std::max(0, width - displayWidth(text)), u' ');
}

// Spaces to `width` columns, then `text` (right-aligned).
QString rightAligned(const QString &text, int width)
{
    return QString(std::max(0, width - displayWidth(text)), u' ') + text;
}

void row(const QString &label, const QString &value)
{
    out(QStringLiteral("  ") + padded(label, 16) + QStringLiteral("  ")
        + (value.isEmpty() ? QStringLiteral("-") : value));
}

void heading(const QString &text)
{
    out(QString());
    out(text);
}

// A section that could not be read: said on stderr, and in the JSON as {"error": message}.
QJsonObject sectionError(const QString &section, const Error &error)
{
    err(Tr::tr("inspect: %1: %2").arg(section, maskText(error.message)));
    return QJsonObject{{QStringLiteral("error"), maskText(error.message)}};
}

void printOverview(const Overview &overview)
{
    const SandboxInfo &s = overview.details.sandbox;
    out(Tr::tr("Workspace %1").arg(s.workspaceId));
    row(Tr::tr("Sandbox"), s.sandboxId);
    row(Tr::tr("User"), s.userId);
    row(Tr::tr("Agent"), s.agentId);
    row(Tr::tr("Backend"), Tr::tr("%1 (profile %2)").arg(overview.backend, overview.profileName));
    QString state = s.rawState.isEmpty() ? sandboxStateName(s.state) : s.rawState;
    if (!overview.details.stateReason.isEmpty())
        state += QStringLiteral(" (%1)").arg(overview.details.stateReason);
    row(Tr::tr("State"), state);
    if (!overview.details.stateMessage.isEmpty())
        row(Tr::tr("Why"), maskValue(overview.details.stateMessage));
    row(Tr::tr("Image"), s.image);
    row(Tr::tr("Created"), localTime(s.createdAt));
    if (s.pausedAt.isValid() && !s.expiresAt)
        row(Tr::tr("Expires"), Tr::tr("timer stopped (paused since %1)").arg(localTime(s.pausedAt)));
    else
        row(Tr::tr("Expires"), s.expiresAt ? localTime(*s.expiresAt) : Tr::tr("never"));
    row(Tr::tr("Last activity"), localTime(s.lastActivityAt));
    for (const auto &[name, value] : overview.details.resources)
        row(Tr::tr("Resource %1").arg(name), value);
    for (const auto &[name, value] : overview.details.endpoints)
        row(Tr::tr("Endpoint %1").arg(name), maskValue(value));
    for (const auto &[name, value] : overview.details.facts)
        row(name, maskValue(value));
    row(Tr::tr("Workdir"), overview.layout.workdir);
    row(Tr::tr("Gateway home"), overview.layout.gatewayHome);
    if (!overview.hostFolder.isEmpty())
        row(Tr::tr("Host folder"), overview.hostFolder);
    if (overview.detailsError)
        row(Tr::tr("Details"), Tr::tr("not read: %1").arg(maskText(overview.detailsError->message)));
    if (!s.metadata.isEmpty()) {
        out(Tr::tr("  Metadata"));
        for (auto it = s.metadata.cbegin(); it != s.metadata.cend(); ++it)
            out(QStringLiteral("    %1 = %2").arg(it.key(), maskValue(it.value())));
    }
    if (overview.filesError) {
        row(Tr::tr("Files"), Tr::tr("not read: %1").arg(overview.filesError->message));
        return;
    }
    QStringList top;
    if (overview.hasMcp)
        top << QStringLiteral(".mcp");
    if (overview.hasData)
        top << QStringLiteral("data/");
    if (overview.hasSkills)
        top << QStringLiteral("skills/");
    if (overview.hasSessions)
        top << QStringLiteral("sessions/");
    row(Tr::tr("AgentScope's"), top.join(u' '));
    QStringList agent;
    for (const FileEntry &entry : overview.agentFiles)
        agent << (entry.kind == FileEntry::Kind::Folder ? entry.name + u'/' : entry.name);
    row(Tr::tr("Agent files"), agent.join(u' '));
    for (const FileEntry &entry : overview.transient)
        row(Tr::tr("In progress"), Tr::tr("%1 (since %2)").arg(entry.name, localTime(entry.modified)));
}

void printSessions(const QList<SessionSummary> &sessions)
{
    heading(Tr::tr("Sessions (%n)", nullptr, int(sessions.size())));
    out(Tr::tr("  sessions/<id>/context.jsonl holds the history compressed out of the agents' context, not all "
               "of it; sessions that never compressed have no folder."));
    if (sessions.isEmpty())
        return;
    const QString format = QStringLiteral("  %1  %2  %3  %4  %5");
    out(format.arg(padded(Tr::tr("SESSION"), 32))
            .arg(padded(Tr::tr("MODIFIED"), 19))
            .arg(rightAligned(Tr::tr("SIZE"), 9))
            .arg(rightAligned(Tr::tr("LINES"), 7))
            .arg(Tr::tr("TOOL RESULTS")));
    for (const SessionSummary &session : sessions) {
        out(format.arg(session.id, -32)
                .arg(localTime(session.modified), -19)
                .arg(session.filesRead ? bytes(session.size) : QStringLiteral("-"), 9)
                .arg(session.lineCount ? QString::number(*session.lineCount) : QStringLiteral("-"), 7)
                .arg(session.toolResults.size()));
    }
}

void printSkills(const SkillsView &view)
{
    heading(Tr::tr("Skills"));
    if (!view.present) {
        out(Tr::tr("  no skills/ folder"));
        return;
    }
    for (const SkillView &skill : view.skills) {
        const QString where = (skill.partition.isEmpty() ? QString() : skill.partition + u'/') + skill.dir;
        if (skill.readError) {
            out(QStringLiteral("  %1  %2").arg(where, -28).arg(Tr::tr("not read: %1").arg(skill.readError->message)));
        } else if (!skill.file.loaded()) {
            out(QStringLiteral("  %1  %2")
                    .arg(where, -28)
                    .arg(Tr::tr("ignored by AgentScope: %1").arg(skill.file.ignoredReason)));
        } else {
            out(QStringLiteral("  %1  %2: %3")
                    .arg(where, -28)
                    .arg(skill.file.name, skill.file.description.simplified()));
        }
    }
    for (const SkillIndexView &index : view.indexes) {
        const QString where = (index.partition.isEmpty() ? QString() : index.partition + u'/') + index.indexFile;
        if (!index.index.valid)
            out(Tr::tr("  %1: unreadable (AgentScope treats it as empty): %2").arg(where, index.index.error));
        else if (index.diff.matches())
            out(Tr::tr("  %1: matches the skills on disk").arg(where));
        else
            out(Tr::tr("  %1: differs from the disk (only listed: %2; only on disk: %3; changed: %4)")
                    .arg(where, index.diff.onlyInIndex.join(u' '), index.diff.onlyOnDisk.join(u' '),
                         index.diff.changed.join(u' ')));
    }
    if (!view.complete)
        out(Tr::tr("  (not every entry of skills/ was listed)"));
}

void printMcp(const McpView &view)
{
    heading(Tr::tr("MCP servers"));
    if (!view.present) {
        out(Tr::tr("  no .mcp: every session uses the manager's default MCP servers"));
        return;
    }
    if (view.error) {
        out(QStringLiteral("  ") + view.error->message);
        return;
    }
    const McpConfig &config = *view.config;
    out(Tr::tr("  .mcp version %1, %2").arg(config.version).arg(bytes(view.size)));
    for (const QString &warning : config.warnings)
        out(Tr::tr("  warning: %1").arg(warning));
    for (const McpScope &scope : config.scopes) {
        out(scope.legacy() ? Tr::tr("  legacy scope (no agent, no session)")
                           : Tr::tr("  agent %1, session %2").arg(scope.agentId, scope.sessionId));
        if (scope.explicitlyEmpty())
            out(Tr::tr("    none (explicitly: not the defaults)"));
        for (const McpEntry &entry : scope.entries) {
            QString what;
            if (entry.transport == McpTransport::Stdio)
                what = (QStringList{entry.command} + entry.args.value_or(QStringList())).join(u' ');
            else
                what = entry.url;
            out(QStringLiteral("    %1  %2  %3")
                    .arg(entry.name, -16)
                    .arg(transportName(entry.transport), -15)
                    .arg(what));
            if (entry.envKeys && !entry.envKeys->isEmpty()) {
                QStringList env;
                for (const QString &key : *entry.envKeys)
                    env << key + u'=' + maskGlyph();
                out(Tr::tr("      env: %1").arg(env.join(u' ')));
            }
            if (entry.headerNames && !entry.headerNames->isEmpty()) {
                QStringList headers;
                for (const QString &name : *entry.headerNames)
                    headers << name + QStringLiteral(": ") + maskGlyph();
                out(Tr::tr("      headers: %1").arg(headers.join(QStringLiteral(", "))));
            }
            if (entry.skipped())
                out(Tr::tr("      skipped by AgentScope: %1").arg(entry.skipReasons.join(QStringLiteral("; "))));
        }
    }
}

void printData(const DataView &view)
{
    heading(Tr::tr("Data (%n file(s))", nullptr, int(view.files.size())));
    if (!view.present) {
        out(Tr::tr("  no data/ folder"));
        return;
    }
    for (const DataFile &file : view.files) {
        const QString from = file.referencedFrom.isEmpty() ? Tr::tr("unreferenced") : file.referencedFrom.join(u' ');
        out(QStringLiteral("  %1  %2  %3  %4")
                .arg(file.entry.name, -70)
                .arg(bytes(file.entry.size), 9)
                .arg(dataKindName(file.kind), -7)
                .arg(from));
    }
    if (!view.referencesScanned)
        out(Tr::tr("  (references: not every session file was read)"));
}

QString healthText(const GatewayView &view)
{
    switch (view.health) {
    case GatewayView::Health::NotAsked:
        return view.healthDetail.isEmpty() ? Tr::tr("not asked") : Tr::tr("not asked: %1").arg(view.healthDetail);
    case GatewayView::Health::Up:
        return Tr::tr("up on port %1 (asked with %2)").arg(view.port).arg(view.probeTool);
    case GatewayView::Health::Down:
        return Tr::tr("down: %1").arg(view.healthDetail);
    case GatewayView::Health::Error:
        return Tr::tr("unknown: %1").arg(view.healthDetail);
    case GatewayView::Health::NoTool:
        return Tr::tr("not asked: %1").arg(view.healthDetail);
    }
    return {};
}

void printGateway(const GatewayView &view)
{
    heading(Tr::tr("Gateway"));
    row(Tr::tr("Home"), view.home);
    if (view.filesError) {
        row(Tr::tr("Files"), Tr::tr("not read: %1").arg(view.filesError->message));
    } else {
        row(Tr::tr("Script"),
            view.scriptPresent ? (view.scriptEmpty ? Tr::tr("empty (never valid)") : Tr::tr("present"))
                               : Tr::tr("missing"));
        row(Tr::tr("Bootstrap"), view.bootstrapComplete() ? Tr::tr("complete") : Tr::tr("not complete"));
        row(Tr::tr("Log"),
            view.log ? Tr::tr("%1, %2").arg(bytes(view.log->size), localTime(view.log->modified)) : Tr::tr("none"));
    }
    row(Tr::tr("Health"), healthText(view));
}

} // namespace

QCoro::Task<int> runInspect(Session &s)
{
    const QString id = s.args.constFirst();
    if (auto valid = validateWorkspaceId(id); !valid)
        co_return s.usage(valid.error().message);
    QStringList wanted = Sections;
    if (s.has("section")) {
        const QString section = s.value("section");
        if (!Sections.contains(section))
            co_return s.usage(Tr::tr("--section takes %1, not \"%2\"").arg(Sections.join(u'|'), section));
        wanted = QStringList{section};
    }
    const bool json = s.has("json");
    auto sandbox = co_await s.session->find(id);
    if (!sandbox)
        co_return s.failed(QStringLiteral("inspect %1").arg(id), sandbox.error());
    const WorkspaceRef ref{s.session.get(), *sandbox, std::make_shared<CancelToken>()};
    QJsonObject report;
    int exitCode = Success;

    if (wanted.contains(QStringLiteral("overview"))) {
        auto overview = co_await readOverview(ref);
        if (!overview) {
            report.insert(QStringLiteral("overview"), sectionError(QStringLiteral("overview"), overview.error()));
            exitCode = Failure;
        } else {
            report.insert(QStringLiteral("overview"), overview->toJson());
            if (!json)
                printOverview(*overview);
        }
    }
    if (wanted.contains(QStringLiteral("sessions"))) {
        auto sessions = co_await readSessions(ref);
        if (!sessions) {
            report.insert(QStringLiteral("sessions"), sectionError(QStringLiteral("sessions"), sessions.error()));
            exitCode = Failure;
        } else {
            // Each session's files and lines, a few at once.
            QList<SessionSummary> read = *sessions;
            for (qsizetype first = 0; first < read.size(); first += 8) {
                const qsizetype end = std::min<qsizetype>(read.size(), first + 8);
                std::deque<QCoro::Task<Result<SessionSummary>>> files;
                for (qsizetype i = first; i < end; ++i)
                    files.push_back(readSessionFiles(ref, read[i]));
                for (qsizetype i = first; i < end; ++i) {
                    auto done = co_await std::move(files[size_t(i - first)]);
                    if (done)
                        read[i] = std::move(*done);
                    else
                        read[i].filesError = done.error();
                }
                for (qsizetype i = first; i < end; ++i) {
                    if (!read[i].context)
                        continue;
                    QString sessionId = read[i].id;
                    auto lines = co_await countContextLines(ref, sessionId);
                    if (lines)
                        read[i].lineCount = *lines;
                }
            }
            QJsonArray array;
            for (const SessionSummary &session : std::as_const(read))
                array.append(session.toJson());
            report.insert(QStringLiteral("sessions"), array);
            if (!json)
                printSessions(read);
        }
    }
    if (wanted.contains(QStringLiteral("skills"))) {
        auto skills = co_await readSkills(ref);
        if (!skills) {
            report.insert(QStringLiteral("skills"), sectionError(QStringLiteral("skills"), skills.error()));
            exitCode = Failure;
        } else {
            report.insert(QStringLiteral("skills"), skills->toJson());
            if (!json)
                printSkills(*skills);
        }
    }
    if (wanted.contains(QStringLiteral("mcp"))) {
        auto mcp = co_await readMcp(ref);
        if (!mcp) {
            report.insert(QStringLiteral("mcp"), sectionError(QStringLiteral("mcp"), mcp.error()));
            exitCode = Failure;
        } else {
            report.insert(QStringLiteral("mcp"), mcp->toJson());
            if (!json)
                printMcp(*mcp);
        }
    }
    if (wanted.contains(QStringLiteral("data"))) {
        auto data = co_await readData(ref, true);
        if (!data) {
            report.insert(QStringLiteral("data"), sectionError(QStringLiteral("data"), data.error()));
            exitCode = Failure;
        } else {
            report.insert(QStringLiteral("data"), data->toJson());
            if (!json)
                printData(*data);
        }
    }
    if (wanted.contains(QStringLiteral("gateway"))) {
        auto gateway = co_await readGateway(ref, true);
        if (!gateway) {
            report.insert(QStringLiteral("gateway"), sectionError(QStringLiteral("gateway"), gateway.error()));
            exitCode = Failure;
        } else {
            report.insert(QStringLiteral("gateway"), gateway->toJson());
            if (!json)
                printGateway(*gateway);
        }
    }
    if (json)
        write(stdout, QJsonDocument(report).toJson(QJsonDocument::Indented));
    co_return exitCode;
}

} // namespace Paddock::Ctl
