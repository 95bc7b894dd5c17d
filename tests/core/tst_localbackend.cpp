// The workspace pipeline end to end on the local backend, in a temporary basedir, with real
// child processes (and bubblewrap where it runs): what is the local backend's own. What every
// backend must do (ids, layout, reattach, pause and resume, commands, last activity, kill, lost
// and unknown workspaces) is the conformance suite's, tests/conformance/tst_conformance_local.

#include "backends/local/localbackend.h"
#include "bootstraplog.h"
#include "canceltoken.h"
#include "provisioner.h"
#include "terminalrun.h"
#include "workspacemanager.h"

// moc cannot parse <concepts> and <coroutine>, and needs nothing from them.
#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <vector>

#include <csignal>

#include <sys/resource.h>

using namespace Paddock;
using namespace std::chrono_literals;

namespace {

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QList<BootstrapCommand> commands(std::initializer_list<const char *> lines, std::chrono::seconds timeout = 60s)
{
    QList<BootstrapCommand> list;
    for (const char *line : lines)
        list.append({QString::fromUtf8(line), timeout});
    return list;
}

// One "process": a backend, a log store and a manager over a basedir (in AgentScope's layout the
// manager assigns ids as a ProfileSession makes it: without the user).
struct Stack
{
    Stack(const QString &basedir, const QString &logRoot, QList<BootstrapCommand> bootstrap, bool bubblewrap = false,
          Profile::Layout layout = Profile::Layout::Paddock)
        : backend(LocalOptions{basedir, bubblewrap, layout})
        , logs(logRoot)
        , provisioner(&backend, &logs, ProvisionOptions{std::move(bootstrap), {}, 30'000ms})
        , manager(&provisioner, managerOptions(layout))
    {
    }

    static ManagerOptions managerOptions(Profile::Layout layout)
    {
        ManagerOptions options;
        options.assignWithoutUser = layout == Profile::Layout::AgentScope;
        return options;
    }

    Result<WorkspacePtr> open(const QString &user, const QString &agent)
    {
        return QCoro::waitFor(manager.getWorkspace(WorkspaceRequest{user, agent, {}, std::nullopt}));
    }

    SandboxInfo info(const QString &id)
    {
        auto info = QCoro::waitFor(backend.get(id));
        return info ? *info : SandboxInfo{};
    }

    QList<LogLine> log(const QString &id) const
    {
        auto lines = logs.read(backend.instanceKey(), id);
        return lines ? *lines : QList<LogLine>{};
    }

    LocalBackend backend;
    BootstrapLogStore logs;
    Provisioner provisioner;
    WorkspaceManager manager;
};

// A copy of a fixture folder (tests/data/agentscope-workspace/...), hidden files too.
bool copyTree(const QString &from, const QString &to)
{
    if (!QDir().mkpath(to))
        return false;
    const QDir source(from);
    for (const QFileInfo &entry :
         source.entryInfoList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot | QDir::System)) {
        const QString target = to + u'/' + entry.fileName();
        if (entry.isDir() ? !copyTree(entry.filePath(), target) : !QFile::copy(entry.filePath(), target))
            return false;
    }
    return true;
}

QStringList entriesOf(const QString &folder)
{
    return QDir(folder).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot | QDir::System, QDir::Name);
}

QStringList texts(const QList<LogLine> &lines, LogLine::Kind kind)
{
    QStringList found;
    for (const LogLine &line : lines) {
        if (line.kind == kind)
            found.append(QString::fromUtf8(line.text));
    }
    return found;
}

} // namespace

class TestLocalBackend final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_basedir;
    QString m_logs;

private Q_SLOTS:
    void init()
    {
        QVERIFY(m_dir.isValid());
        m_basedir = m_dir.path() + QStringLiteral("/base-") + QString::fromLatin1(QTest::currentTestFunction());
        m_logs = m_dir.path() + QStringLiteral("/logs-") + QString::fromLatin1(QTest::currentTestFunction());
    }

    void provisionRunsTheBootstrapAndLogsEveryLine()
    {
        Stack stack(m_basedir, m_logs,
                    commands({"echo hello; echo oops >&2; printf 'no newline at end'",
                              "for i in 1 2 3; do echo line $i; done"}));
        const auto workspace = stack.open(QStringLiteral("alice@example.com"), QStringLiteral("运维"));
        QVERIFY2(workspace, qPrintable(workspace ? QString() : workspace.error().message));
        const QString id = (*workspace)->id();
        QCOMPARE(
            id,
            assignWorkspaceId(IsolationPolicy::PerAgent, QStringLiteral("alice@example.com"), QStringLiteral("运维")));

        const QList<LogLine> log = stack.log(id);
        QCOMPARE(texts(log, LogLine::Kind::Stdout),
                 QStringList({"hello", "no newline at end", "line 1", "line 2", "line 3"}));
        QCOMPARE(texts(log, LogLine::Kind::Stderr), QStringList{"oops"});
        QCOMPARE(texts(log, LogLine::Kind::Command).size(), 2);
        for (const LogLine &line : log)
            QVERIFY(line.time.isValid());
    }

    void failedBootstrapRunsAgainOnNextOpen()
    {
        const QString id = assignWorkspaceId(IsolationPolicy::PerAgent, QStringLiteral("u"), QStringLiteral("a"));
        {
            Stack stack(m_basedir, m_logs,
                        commands({"echo first >> runs.txt", "echo broken >&2; exit 3", "echo never >> runs.txt"}));
            QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("provisioning .* failed")));
            const auto workspace = stack.open(QStringLiteral("u"), QStringLiteral("a"));
            QVERIFY(!workspace);
            QCOMPARE(workspace.error().kind, Error::Kind::Bootstrap);
            QVERIFY2(workspace.error().message.contains(QLatin1String("exit 3")),
                     qPrintable(workspace.error().message));
            QVERIFY(workspace.error().message.contains(QLatin1String("echo broken >&2; exit 3")));
            QVERIFY(workspace.error().message.contains(QLatin1String("stderr: broken")));
            QCOMPARE(stack.manager.cachedCount(), 0);
            // The folder stays (data is never thrown away), without its marker, and is not left running.
            QVERIFY(!QFileInfo::exists(m_basedir + u'/' + id + QStringLiteral("/.agentscope/.bootstrap-complete")));
            QCOMPARE(stack.info(id).state, SandboxState::Paused);
            QCOMPARE(texts(stack.log(id), LogLine::Kind::Stderr), QStringList{"broken"});
        }
        Stack fixed(m_basedir, m_logs, commands({"echo first >> runs.txt", "echo second >> runs.txt"}));
        QVERIFY(fixed.open(QStringLiteral("u"), QStringLiteral("a")));
        QCOMPARE(readFile(m_basedir + u'/' + id + QStringLiteral("/runs.txt")), QByteArray("first\nfirst\nsecond\n"));
        QVERIFY(QFileInfo::exists(m_basedir + u'/' + id + QStringLiteral("/.agentscope/.bootstrap-complete")));
    }

    void concurrentOpensShareOneBootstrapAndOneError()
    {
        Stack stack(m_basedir, m_logs, commands({"echo run >> runs.txt; exit 7"}));
        std::vector<QCoro::Task<Result<WorkspacePtr>>> tasks;
        for (int i = 0; i < 8; ++i)
            tasks.push_back(stack.manager.getWorkspace(
                WorkspaceRequest{QStringLiteral("u"), QStringLiteral("a"), QString::number(i), std::nullopt}));
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("provisioning .* failed")));
        std::optional<Error> first;
        for (auto &task : tasks) {
            const auto result = QCoro::waitFor(task);
            QVERIFY(!result);
            if (!first)
                first = result.error();
            QCOMPARE(result.error(), *first);
        }
        const QString id = assignWorkspaceId(IsolationPolicy::PerAgent, QStringLiteral("u"), QStringLiteral("a"));
        QCOMPARE(readFile(m_basedir + u'/' + id + QStringLiteral("/runs.txt")), QByteArray("run\n"));
    }

    void eachCommandHasItsOwnTimeout()
    {
        Stack stack(m_basedir, m_logs, commands({"echo before; exec sleep 60"}, 1s));
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("provisioning .* failed")));
        const auto workspace = stack.open(QStringLiteral("u"), QStringLiteral("a"));
        QVERIFY(!workspace);
        QCOMPARE(workspace.error().kind, Error::Kind::Timeout);
        QVERIFY2(workspace.error().message.contains(QLatin1String("timed out after 1 s")),
                 qPrintable(workspace.error().message));
        const QString id = assignWorkspaceId(IsolationPolicy::PerAgent, QStringLiteral("u"), QStringLiteral("a"));
        QCOMPARE(texts(stack.log(id), LogLine::Kind::Stdout), QStringList{"before"});
    }

    void pathsAreShellQuoted()
    {
        // A basedir with a space and a quote: the marker is written through `sh -c` with the path
        // quoted as shlex.quote does.
        const QString basedir = m_dir.path() + QStringLiteral("/it's a \"base\" $dir");
        Stack stack(basedir, m_logs, commands({"echo ok"}));
        const auto workspace = stack.open(QStringLiteral("u"), QStringLiteral("a"));
        QVERIFY2(workspace, qPrintable(workspace ? QString() : workspace.error().message));
        QVERIFY(QFileInfo::exists(basedir + u'/' + (*workspace)->id()
                                  + QStringLiteral("/.agentscope/.bootstrap-complete")));
    }

    void idsThatWouldEscapeBasedirAreRefused()
    {
        LocalBackend backend(LocalOptions{m_basedir, false});
        QVERIFY(QDir().mkpath(m_basedir));
        const QString outside = m_dir.path() + QStringLiteral("/outside");
        QVERIFY(QDir().mkpath(outside));
        QFile precious(outside + QStringLiteral("/precious.txt"));
        QVERIFY(precious.open(QIODevice::WriteOnly));
        precious.close();
        QVERIFY(QFile::link(outside, m_basedir + QStringLiteral("/planted")));

        for (const QString &id :
             {QStringLiteral(".."), QStringLiteral("a/../../x"), QStringLiteral("planted"), QString()}) {
            const auto path = backend.workspacePath(id);
            QVERIFY2(!path, qPrintable(id));
            QCOMPARE(path.error().kind, Error::Kind::InvalidArgument);
            const auto created =
                QCoro::waitFor(backend.create(CreateSpec{id, QStringLiteral("u"), QStringLiteral("a"), {}}));
            QVERIFY(!created);
            const auto killed = QCoro::waitFor(backend.kill(id, {}));
            QVERIFY(!killed);
            QVERIFY(!QCoro::waitFor(backend.sessionsActivity(id)));
        }
        QVERIFY(QFileInfo::exists(outside + QStringLiteral("/precious.txt")));
        QVERIFY(QFileInfo::exists(m_basedir + QStringLiteral("/planted")));
    }

    void unwritableBasedirIsAClearErrorAndCreatesNothing()
    {
        // A basedir below a regular file can never be made (even for root).
        const QString file = m_dir.path() + QStringLiteral("/a-file");
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        Stack stack(file + QStringLiteral("/workspaces"), m_logs, {});
        const auto writable = stack.backend.checkWritable();
        QVERIFY(!writable);
        QCOMPARE(writable.error().kind, Error::Kind::InvalidArgument);
        QVERIFY2(writable.error().message.contains(file), qPrintable(writable.error().message));
        QVERIFY(writable.error().message.contains(QLatin1String("not a folder")));

        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("provisioning .* failed")));
        const auto workspace = stack.open(QStringLiteral("u"), QStringLiteral("a"));
        QVERIFY(!workspace);
        QCOMPARE(workspace.error().kind, Error::Kind::InvalidArgument);
        QVERIFY(QFileInfo(file).isFile());
    }

    void killDeletesExactlyTheWorkspaceFolder()
    {
        Stack stack(m_basedir, m_logs, {});
        const auto a = stack.open(QStringLiteral("u"), QStringLiteral("a"));
        const auto b = stack.open(QStringLiteral("u"), QStringLiteral("b"));
        QVERIFY(a && b);
        QVERIFY(QCoro::waitFor(stack.backend.kill((*a)->id(), {})));
        QVERIFY(!QFileInfo::exists(m_basedir + u'/' + (*a)->id()));
        QVERIFY(QFileInfo::exists(m_basedir + u'/' + (*b)->id()));
    }

    // The file work runs on worker threads, in the order it was asked for on each workspace:
    // calls made together, without awaiting one before the next, end as they would one by one.
    void callsOnOneWorkspaceEndAsTheyWouldOneByOne()
    {
        LocalBackend backend(LocalOptions{m_basedir, false});
        const QString id = QStringLiteral("ws");
        const CreateSpec spec{id, QStringLiteral("u"), QStringLiteral("a"), {}};
        QVERIFY(QCoro::waitFor(backend.create(spec)));
        QFile old(m_basedir + QStringLiteral("/ws/old.txt"));
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.close();
        for (int i = 0; i < 50; ++i) {
            // A folder of files to delete, so the kill takes a while on its worker.
            QFile filler(m_basedir + QStringLiteral("/ws/filler-%1").arg(i));
            QVERIFY(filler.open(QIODevice::WriteOnly));
        }

        auto paused = backend.pause(id);
        auto pausedState = backend.get(id);
        auto killed = backend.kill(id, {});
        auto afterKill = backend.list(ListFilter{id, {}});
        auto created = backend.create(spec);
        auto ready = backend.isReady(id);
        auto connected = backend.connect(id);
        auto pausedAgain = backend.pause(id);
        auto resumed = backend.resume(id);
        auto createdTwice = backend.create(spec);

        QVERIFY(QCoro::waitFor(std::move(paused)));
        const auto first = QCoro::waitFor(std::move(pausedState));
        QVERIFY(first);
        QCOMPARE(first->state, SandboxState::Paused);
        QVERIFY(QCoro::waitFor(std::move(killed)));
        const auto gone = QCoro::waitFor(std::move(afterKill));
        QVERIFY(gone);
        QVERIFY(gone->isEmpty());
        const auto fresh = QCoro::waitFor(std::move(created));
        QVERIFY2(fresh, qPrintable(fresh ? QString() : fresh.error().message));
        QCOMPARE(fresh->state, SandboxState::Running);
        const auto isReady = QCoro::waitFor(std::move(ready));
        QVERIFY(isReady && *isReady);
        QVERIFY(QCoro::waitFor(std::move(connected)));
        QVERIFY(QCoro::waitFor(std::move(pausedAgain)));
        const auto back = QCoro::waitFor(std::move(resumed));
        QVERIFY(back);
        QCOMPARE(back->state, SandboxState::Running);
        const auto twice = QCoro::waitFor(std::move(createdTwice));
        QVERIFY(!twice);
        QCOMPARE(twice.error().kind, Error::Kind::Conflict);
        // The new workspace is whole, and nothing of the old one is left.
        QVERIFY(!QFileInfo::exists(m_basedir + QStringLiteral("/ws/old.txt")));
        QVERIFY(!QFileInfo::exists(m_basedir + QStringLiteral("/ws/filler-0")));
        const auto now = QCoro::waitFor(backend.get(id));
        QVERIFY(now);
        QCOMPARE(now->state, SandboxState::Running);
    }

    // Errors come back from the worker as they did from the caller's thread (for ids that are no
    // workspace, the conformance suite's unknownIdsAreNotFound).
    void fileWorkOnWorkersReportsItsErrors()
    {
        LocalBackend backend(LocalOptions{m_basedir, false});
        QVERIFY(QCoro::waitFor(
            backend.create(CreateSpec{QStringLiteral("w"), QStringLiteral("u"), QStringLiteral("a"), {}})));
        // A workspace whose metadata cannot be written any more (it is a folder now).
        const QString metadata = m_basedir + QStringLiteral("/w/.paddock/workspace.json");
        QVERIFY(QFile::remove(metadata));
        QVERIFY(QDir().mkpath(metadata + QStringLiteral("/blocker")));
        const auto broken = QCoro::waitFor(backend.pause(QStringLiteral("w")));
        QVERIFY(!broken);
        QCOMPARE(broken.error().kind, Error::Kind::NotFound); // no metadata to read
        const auto connected = QCoro::waitFor(backend.connect(QStringLiteral("w")));
        QVERIFY(!connected);
        QCOMPARE(connected.error().kind, Error::Kind::NotFound);
    }

    void aFailedMetadataWriteKeepsTheOldMetadata()
    {
        // A full disk, or here a file size limit of 64 bytes: the pause fails and says so, and
        // the workspace keeps its metadata (Qt 6.4's QSaveFile::commit() alone would put an
        // empty file in its place, and the workspace would vanish from the listing).
        LocalBackend backend(LocalOptions{m_basedir, false});
        QVERIFY(QCoro::waitFor(
            backend.create(CreateSpec{QStringLiteral("full"), QStringLiteral("u"), QStringLiteral("a"), {}})));
        const QString metadata = m_basedir + QStringLiteral("/full/.paddock/workspace.json");
        QFile before(metadata);
        QVERIFY(before.open(QIODevice::ReadOnly));
        const QByteArray kept = before.readAll();
        before.close();
        QVERIFY(kept.size() > 64);
        const auto previous = std::signal(SIGXFSZ, SIG_IGN); // a write past the limit fails with EFBIG
        rlimit limit{};
        QCOMPARE(::getrlimit(RLIMIT_FSIZE, &limit), 0);
        const rlimit old = limit;
        limit.rlim_cur = 64;
        QCOMPARE(::setrlimit(RLIMIT_FSIZE, &limit), 0);
        const auto paused = QCoro::waitFor(backend.pause(QStringLiteral("full")));
        QCOMPARE(::setrlimit(RLIMIT_FSIZE, &old), 0);
        std::signal(SIGXFSZ, previous);
        QVERIFY(!paused);
        QCOMPARE(paused.error().kind, Error::Kind::Io);
        QVERIFY2(paused.error().message.contains(QLatin1String("workspace.json")), qPrintable(paused.error().message));
        QFile after(metadata);
        QVERIFY(after.open(QIODevice::ReadOnly));
        QCOMPARE(after.readAll(), kept);
        const auto listed = QCoro::waitFor(backend.get(QStringLiteral("full")));
        QVERIFY(listed);
        QCOMPARE(listed->state, SandboxState::Running);
    }

    void foreignFoldersAreNotWorkspacesButCanBeAdopted()
    {
        QVERIFY(QDir().mkpath(m_basedir + QStringLiteral("/handmade/data")));
        QFile keep(m_basedir + QStringLiteral("/handmade/data/keep.txt"));
        QVERIFY(keep.open(QIODevice::WriteOnly));
        keep.write("mine");
        keep.close();
        Stack stack(m_basedir, m_logs, {});
        QCOMPARE(QCoro::waitFor(stack.backend.list({}))->size(), 0);
        const auto workspace = QCoro::waitFor(stack.manager.getWorkspace(
            WorkspaceRequest{QStringLiteral("u"), QStringLiteral("a"), {}, QStringLiteral("handmade")}));
        QVERIFY(workspace);
        QCOMPARE(readFile(m_basedir + QStringLiteral("/handmade/data/keep.txt")), QByteArray("mine"));
        QCOMPARE(QCoro::waitFor(stack.backend.list({}))->size(), 1);
    }

    // AgentScope's LocalWorkspaceManager keeps <basedir>/<agent_id>: every folder holding any of
    // .mcp, skills/, sessions/, data/ is listed, Idle, under the id AgentScope gives it (BLAKE2b-8
    // of "::<agent_id>"), with no user; reading writes nothing.
    void agentscopeLayoutListsTheAgentsFolders()
    {
        QVERIFY(copyTree(QStringLiteral(AGENTSCOPE_FIXTURES "/local"), m_basedir + QStringLiteral("/a1")));
        for (const char *only :
             {"only-mcp/.mcp", "only-sessions/sessions/", "only-data/data/", "only-skills/skills/"}) {
            const QString path = m_basedir + u'/' + QLatin1String(only);
            if (path.endsWith(u'/')) {
                QVERIFY(QDir().mkpath(path));
            } else {
                QVERIFY(QDir().mkpath(QFileInfo(path).path()));
                QFile file(path);
                QVERIFY(file.open(QIODevice::WriteOnly));
            }
        }
        // Not workspaces: a folder with none of them, a hidden one, a link to one, a file.
        QVERIFY(QDir().mkpath(m_basedir + QStringLiteral("/no-markers/notes")));
        QVERIFY(QDir().mkpath(m_basedir + QStringLiteral("/.hidden/sessions")));
        QVERIFY(QFile::link(m_basedir + QStringLiteral("/a1"), m_basedir + QStringLiteral("/linked")));
        QFile plain(m_basedir + QStringLiteral("/plain-file"));
        QVERIFY(plain.open(QIODevice::WriteOnly));
        plain.close();
        const QStringList before = entriesOf(m_basedir);

        LocalBackend backend(LocalOptions{m_basedir, false, Profile::Layout::AgentScope});
        QVERIFY(backend.capabilities().testFlag(Capability::UserNotRecorded));
        const auto listed = QCoro::waitFor(backend.list({}));
        QVERIFY2(listed, qPrintable(listed ? QString() : listed.error().message));
        QStringList agents;
        for (const SandboxInfo &info : *listed) {
            agents.append(info.sandboxId);
            QCOMPARE(info.agentId, info.sandboxId);
            QCOMPARE(info.workspaceId, assignWorkspaceId(IsolationPolicy::PerAgent, QString(), info.agentId));
            QVERIFY(info.userId.isEmpty());
            QCOMPARE(info.state, SandboxState::Paused);
            QCOMPARE(info.rawState, QStringLiteral("Idle"));
            QCOMPARE(info.metadata.value(WorkspaceIdKey), info.workspaceId);
            QVERIFY(!info.metadata.contains(UserIdKey));
            QVERIFY(info.createdAt.isValid());
        }
        QCOMPARE(agents,
                 (QStringList{QStringLiteral("a1"), QStringLiteral("only-data"), QStringLiteral("only-mcp"),
                              QStringLiteral("only-sessions"), QStringLiteral("only-skills")}));
        // AgentScope's own vector (reference §1): PER_AGENT, user "", agent "a1".
        QCOMPARE(listed->constFirst().workspaceId, QStringLiteral("19f69055a5066d5f"));

        const auto byId = QCoro::waitFor(backend.list(ListFilter{QStringLiteral("19f69055a5066d5f"), {}}));
        QVERIFY(byId);
        QCOMPARE(byId->size(), 1);
        QCOMPARE(byId->constFirst().sandboxId, QStringLiteral("a1"));
        QVERIFY(QCoro::waitFor(backend.list(ListFilter{QStringLiteral("19f69055a5066d5f"),
                                                       QList<SandboxState>{SandboxState::Running}}))
                    ->isEmpty());
        QCOMPARE(QCoro::waitFor(backend.get(QStringLiteral("a1")))->rawState, QStringLiteral("Idle"));
        QCOMPARE(QCoro::waitFor(backend.get(QStringLiteral("no-markers"))).error().kind, Error::Kind::NotFound);
        QCOMPARE(backend.hostFolder(listed->constFirst()), m_basedir + QStringLiteral("/a1"));
        QCOMPARE(backend.layout(listed->constFirst()).workdir, m_basedir + QStringLiteral("/a1"));
        QCOMPARE(entriesOf(m_basedir), before);
        // The files are AgentScope's, read as they are.
        const auto mcp = QCoro::waitFor(backend.readFile(QStringLiteral("a1"), QStringLiteral(".mcp"), 0, 1 << 20));
        QVERIFY2(mcp, qPrintable(mcp ? QString() : mcp.error().message));
        QCOMPARE(mcp->data, readFile(QStringLiteral(AGENTSCOPE_FIXTURES "/local/.mcp")));

        // Paddock's layout over the same basedir sees none of them (they have no metadata).
        LocalBackend paddock(LocalOptions{m_basedir, false});
        QVERIFY(QCoro::waitFor(paddock.list({}))->isEmpty());
    }

    // Opening (user, agent) uses <basedir>/<agent_id> as AgentScope does, whoever the user; Paddock's
    // metadata and bootstrap marker go beside it, in <basedir>/.paddock/<agent_id>, never inside.
    void agentscopeLayoutOpensTheAgentsFolder()
    {
        const QString folder = m_basedir + QStringLiteral("/a1");
        QVERIFY(copyTree(QStringLiteral(AGENTSCOPE_FIXTURES "/local"), folder));
        const QStringList fixture = entriesOf(folder);
        Stack stack(m_basedir, m_logs, commands({"echo bootstrapped >> data/runs.txt"}), false,
                    Profile::Layout::AgentScope);
        const auto alice = stack.open(QStringLiteral("alice"), QStringLiteral("a1"));
        QVERIFY2(alice, qPrintable(alice ? QString() : alice.error().message));
        QCOMPARE((*alice)->id(), QStringLiteral("19f69055a5066d5f"));
        const SandboxInfo opened = stack.info(QStringLiteral("a1"));
        QCOMPARE(opened.state, SandboxState::Running);
        QCOMPARE(opened.workspaceId, QStringLiteral("19f69055a5066d5f"));
        QVERIFY(opened.userId.isEmpty());
        QCOMPARE(opened.agentId, QStringLiteral("a1"));
        // The bootstrap ran in the agent's folder; nothing of Paddock's is in it.
        QCOMPARE(readFile(folder + QStringLiteral("/data/runs.txt")), QByteArray("bootstrapped\n"));
        QCOMPARE(entriesOf(folder), fixture);
        QCOMPARE(readFile(folder + QStringLiteral("/.mcp")),
                 readFile(QStringLiteral(AGENTSCOPE_FIXTURES "/local/.mcp")));
        QVERIFY(QFileInfo(m_basedir + QStringLiteral("/.paddock/a1/workspace.json")).isFile());
        QVERIFY(QFileInfo::exists(m_basedir + QStringLiteral("/.paddock/a1/.agentscope/.bootstrap-complete")));
        const QJsonObject metadata =
            QJsonDocument::fromJson(readFile(m_basedir + QStringLiteral("/.paddock/a1/workspace.json"))).object();
        QCOMPARE(metadata.value(QLatin1String("state")).toString(), QStringLiteral("Running"));
        QVERIFY(metadata.value(QLatin1String("userId")).toString().isEmpty());

        // Another user of that agent gets the same workspace (AgentScope ignores the user).
        const auto bob = stack.open(QStringLiteral("bob"), QStringLiteral("a1"));
        QVERIFY(bob);
        QCOMPARE(bob->get(), alice->get());

        // A new agent gets a new folder, with AgentScope's layout in it and nothing else.
        const auto fresh = stack.open(QStringLiteral("alice"), QStringLiteral("运维"));
        QVERIFY2(fresh, qPrintable(fresh ? QString() : fresh.error().message));
        QCOMPARE((*fresh)->id(), assignWorkspaceId(IsolationPolicy::PerAgent, QString(), QStringLiteral("运维")));
        QCOMPARE(entriesOf(m_basedir + QStringLiteral("/运维")),
                 (QStringList{QStringLiteral("data"), QStringLiteral("sessions"), QStringLiteral("skills")}));

        // Closed: Paused, and so a second process sees it; opened again, no second bootstrap.
        QVERIFY(QCoro::waitFor(stack.manager.close((*alice)->id())));
        LocalBackend second(LocalOptions{m_basedir, false, Profile::Layout::AgentScope});
        const auto seen = QCoro::waitFor(second.get(QStringLiteral("a1")));
        QVERIFY(seen);
        QCOMPARE(seen->state, SandboxState::Paused);
        QCOMPARE(seen->rawState, QStringLiteral("Paused"));
        QCOMPARE(QCoro::waitFor(second.list({}))->size(), 2);
        const auto again = stack.open(QStringLiteral("carol"), QStringLiteral("a1"));
        QVERIFY(again);
        QCOMPARE(readFile(folder + QStringLiteral("/data/runs.txt")), QByteArray("bootstrapped\n"));
    }

    void agentscopeLayoutRefusesWhatAgentScopeWouldAndWhatLeavesBasedir()
    {
        QVERIFY(QDir().mkpath(m_basedir));
        const QString outside = m_dir.path() + QStringLiteral("/outside-agentscope");
        QVERIFY(QDir().mkpath(outside + QStringLiteral("/sessions")));
        QVERIFY(QFile::link(outside, m_basedir + QStringLiteral("/planted")));
        LocalBackend backend(LocalOptions{m_basedir, false, Profile::Layout::AgentScope});
        const QStringList refused{QString(),
                                  QStringLiteral("."),
                                  QStringLiteral(".."),
                                  QStringLiteral(".paddock"),
                                  QStringLiteral("a/b"),
                                  QStringLiteral("a\\b"),
                                  QStringLiteral("planted"),
                                  QString(256, u'x')};
        for (const QString &agent : refused) {
            const auto created = QCoro::waitFor(backend.create(CreateSpec{
                assignWorkspaceId(IsolationPolicy::PerAgent, QString(), agent), QStringLiteral("u"), agent, {}}));
            QVERIFY2(!created, qPrintable(agent));
            QCOMPARE(created.error().kind, Error::Kind::InvalidArgument);
            QVERIFY(!backend.workspacePath(agent));
            QVERIFY(!QCoro::waitFor(backend.kill(agent, {})));
        }
        // An id AgentScope would not give the folder of that agent.
        const auto mismatched = QCoro::waitFor(
            backend.create(CreateSpec{QStringLiteral("not-its-id"), QStringLiteral("u"), QStringLiteral("agent"), {}}));
        QVERIFY(!mismatched);
        QCOMPARE(mismatched.error().kind, Error::Kind::InvalidArgument);
        QVERIFY2(mismatched.error().message.contains(
                     assignWorkspaceId(IsolationPolicy::PerAgent, QString(), QStringLiteral("agent"))),
                 qPrintable(mismatched.error().message));
        QCOMPARE(entriesOf(m_basedir), QStringList{QStringLiteral("planted")});
        QVERIFY(QFileInfo::exists(outside + QStringLiteral("/sessions")));
        QVERIFY(QCoro::waitFor(backend.list({}))->isEmpty());
    }

    void agentscopeLayoutKillDeletesTheFolderAndPaddocksMetadata()
    {
        QVERIFY(copyTree(QStringLiteral(AGENTSCOPE_FIXTURES "/local"), m_basedir + QStringLiteral("/a1")));
        QVERIFY(copyTree(QStringLiteral(AGENTSCOPE_FIXTURES "/local"), m_basedir + QStringLiteral("/a2")));
        Stack stack(m_basedir, m_logs, {}, false, Profile::Layout::AgentScope);
        QVERIFY(stack.open(QStringLiteral("u"), QStringLiteral("a1")));
        const SandboxInfo a1 = stack.info(QStringLiteral("a1"));
        QVERIFY2(stack.backend.killWarning(a1).contains(m_basedir + QStringLiteral("/a1")),
                 qPrintable(stack.backend.killWarning(a1)));
        QVERIFY(QCoro::waitFor(stack.manager.kill(a1.workspaceId, a1.sandboxId)));
        QVERIFY(!QFileInfo::exists(m_basedir + QStringLiteral("/a1")));
        QVERIFY(!QFileInfo::exists(m_basedir + QStringLiteral("/.paddock/a1")));
        QVERIFY(QFileInfo::exists(m_basedir + QStringLiteral("/a2/.mcp")));
        QCOMPARE(QCoro::waitFor(stack.backend.get(QStringLiteral("a1"))).error().kind, Error::Kind::NotFound);
        // An Idle folder (never opened) is killed the same way.
        QVERIFY(QCoro::waitFor(stack.backend.kill(QStringLiteral("a2"), {})));
        QVERIFY(!QFileInfo::exists(m_basedir + QStringLiteral("/a2")));
        QVERIFY(QCoro::waitFor(stack.backend.list({}))->isEmpty());
    }

    void onDataGivesTheOutputByteForByte()
    {
        // NUL, bytes that are not UTF-8, \r, and a last line without its newline: as written.
        LocalBackend backend(LocalOptions{m_basedir, false});
        QVERIFY(QCoro::waitFor(
            backend.create(CreateSpec{QStringLiteral("bytes"), QStringLiteral("u"), QStringLiteral("a"), {}})));
        QByteArray out;
        QByteArray err;
        ExecRequest request;
        request.argv = QStringList{QStringLiteral("sh"), QStringLiteral("-c"),
                                   QStringLiteral("printf 'a\\000b\\377\\r\\nend'; printf 'x\\ny' >&2")};
        request.onData = [&](OutputChannel channel, const QByteArray &bytes) {
            (channel == OutputChannel::Stdout ? out : err) += bytes;
        };
        auto ran = QCoro::waitFor(backend.exec(QStringLiteral("bytes"), request));
        QVERIFY2(ran, qPrintable(ran ? QString() : ran.error().message));
        QCOMPARE(out, QByteArray("a\0b\xff\r\nend", 9));
        QCOMPARE(err, QByteArray("x\ny"));
        QCOMPARE(ran->stdOut, out);
    }

    void aCancelledCommandIsStoppedAndSaysSo()
    {
        LocalBackend backend(LocalOptions{m_basedir, false});
        QVERIFY(QCoro::waitFor(
            backend.create(CreateSpec{QStringLiteral("cancel"), QStringLiteral("u"), QStringLiteral("a"), {}})));
        QList<QByteArray> lines;
        ExecRequest request;
        request.argv = QStringList{QStringLiteral("sh"), QStringLiteral("-c"),
                                   QStringLiteral("echo $$ > pid; echo up; exec sleep 300")};
        request.onLine = [&lines](OutputChannel, const QByteArray &line) { lines.append(line); };
        request.cancel = std::make_shared<CancelToken>();
        const auto token = request.cancel;
        std::optional<QCoro::Task<Result<ExecResult>>> running = backend.exec(QStringLiteral("cancel"), request);
        QTRY_COMPARE(lines, QList<QByteArray>{"up"});
        const QByteArray pid = readFile(m_basedir + QStringLiteral("/cancel/pid")).trimmed();
        QVERIFY(!pid.isEmpty());
        token->cancel();
        Result<ExecResult> ran = QCoro::waitFor(std::move(*running));
        running.reset();
        QVERIFY(!ran);
        QCOMPARE(ran.error().kind, Error::Kind::Cancelled);
        QVERIFY(!QFileInfo::exists(QStringLiteral("/proc/") + QString::fromLatin1(pid))); // reaped: gone
    }

    void theTerminalCommandIsTheUsersShellInTheFolder()
    {
        LocalBackend backend(LocalOptions{m_basedir, false});
        auto made = QCoro::waitFor(
            backend.create(CreateSpec{QStringLiteral("term"), QStringLiteral("u"), QStringLiteral("a"), {}}));
        QVERIFY(made);
        const QString folder = m_basedir + QStringLiteral("/term");
        qputenv("SHELL", "/bin/sh");
        auto command = backend.terminalCommand(*made);
        QVERIFY(command);
        QCOMPARE(command->program, QStringLiteral("/bin/sh"));
        QCOMPARE(command->arguments, QStringList());
        QCOMPARE(command->workingDirectory, folder);
        // No usable $SHELL: /bin/sh.
        qputenv("SHELL", "/no/such/shell");
        QCOMPARE(backend.terminalCommand(*made)->program, QStringLiteral("/bin/sh"));
        qunsetenv("SHELL");
        QCOMPARE(backend.terminalCommand(*made)->program, QStringLiteral("/bin/sh"));
        // An id that is no workspace name has none.
        SandboxInfo escaping = *made;
        escaping.workspaceId = QStringLiteral("../x");
        QVERIFY(!backend.terminalCommand(escaping));

        // It really is a shell there, in a terminal.
        if (!PaddockTest::canRunTerminalCommands())
            QSKIP("script (util-linux) is not installed");
        const QByteArray shown = PaddockTest::runInTerminal(*command, "pwd; echo paddock-$((6*7))\nexit\n");
        QVERIFY2(shown.contains(folder.toUtf8()), shown.constData());
        QVERIFY2(shown.contains("paddock-42"), shown.constData());

        // Under bubblewrap: the same confinement as commands, the shell last.
        LocalBackend confined(LocalOptions{m_basedir, true});
        qputenv("SHELL", "/bin/sh");
        auto wrapped = confined.terminalCommand(*made);
        qunsetenv("SHELL");
        QVERIFY(wrapped);
        QCOMPARE(wrapped->program, QStringLiteral("bwrap"));
        QCOMPARE(wrapped->arguments.constLast(), QStringLiteral("/bin/sh"));
        QCOMPARE(wrapped->arguments.at(wrapped->arguments.size() - 2), QStringLiteral("--"));
        QVERIFY(wrapped->arguments.contains(QStringLiteral("--unshare-all")));
        const qsizetype chdir = wrapped->arguments.indexOf(QStringLiteral("--chdir"));
        QVERIFY(chdir > 0);
        QCOMPARE(wrapped->arguments.at(chdir + 1), folder);
    }

    void bubblewrapConfinesCommandsToTheWorkspace()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("bwrap")).isEmpty())
            QSKIP("bwrap is not installed (Debian package bubblewrap)");
        QProcess probe;
        probe.start(QStringLiteral("bwrap"),
                    {QStringLiteral("--ro-bind"), QStringLiteral("/"), QStringLiteral("/"), QStringLiteral("true")});
        if (!probe.waitForFinished() || probe.exitCode() != 0)
            QSKIP(qPrintable(QStringLiteral("bwrap cannot create a sandbox here: ")
                             + QString::fromUtf8(probe.readAllStandardError())));

        const QString outsideMarker =
            QStringLiteral("/tmp/paddock-bwrap-") + QString::number(QCoreApplication::applicationPid());
        QFile::remove(outsideMarker);
        Stack stack(m_basedir, m_logs,
                    commands({qPrintable(QStringLiteral("echo inside > in.txt && touch ") + outsideMarker
                                         + QStringLiteral(" && ls -d ") + outsideMarker)}),
                    true);
        const auto workspace = stack.open(QStringLiteral("u"), QStringLiteral("a"));
        QVERIFY2(workspace, qPrintable(workspace ? QString() : workspace.error().message));
        QCOMPARE(readFile(m_basedir + u'/' + (*workspace)->id() + QStringLiteral("/in.txt")), QByteArray("inside\n"));
        // /tmp inside the sandbox is its own: nothing reached the host's /tmp.
        QVERIFY(!QFileInfo::exists(outsideMarker));
        QCOMPARE(texts(stack.log((*workspace)->id()), LogLine::Kind::Stdout), QStringList{outsideMarker});

        // In AgentScope's layout the gateway home (the marker) is outside the folder: bound too.
        const QString agentscopeBase = m_basedir + QStringLiteral("-agentscope");
        Stack agentscope(agentscopeBase, m_logs, commands({"echo inside > in.txt"}), true, Profile::Layout::AgentScope);
        const auto opened = agentscope.open(QStringLiteral("u"), QStringLiteral("a"));
        QVERIFY2(opened, qPrintable(opened ? QString() : opened.error().message));
        QCOMPARE(readFile(agentscopeBase + QStringLiteral("/a/in.txt")), QByteArray("inside\n"));
        QVERIFY(QFileInfo::exists(agentscopeBase + QStringLiteral("/.paddock/a/.agentscope/.bootstrap-complete")));
    }
};

QTEST_GUILESS_MAIN(TestLocalBackend)
#include "tst_localbackend.moc"
