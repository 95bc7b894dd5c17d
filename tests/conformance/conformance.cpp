#include "conformance.h"

#include "bootstraplog.h"
#include "canceltoken.h"
#include "inspect/secretmask.h"
#include "inspect/workspaceinspector.h"
#include "profilesession.h"
#include "provisioner.h"
#include "shellquote.h"
#include "testsession.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QCoreApplication>
#include <QDirIterator>
#include <QJsonDocument>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTest>

#include <algorithm>

using namespace Paddock;
using namespace std::chrono_literals;

namespace PaddockTest {

namespace {

// A QVERIFY2 message that lives as long as the statement.
struct Said
{
    QByteArray text;
    operator const char *() const { return text.constData(); }
};

template<typename T> Said why(const Result<T> &result)
{
    return {result ? QByteArray() : result.error().message.toUtf8()};
}

QString kindName(Error::Kind kind)
{
    switch (kind) {
    case Error::Kind::InvalidArgument:
        return QStringLiteral("InvalidArgument");
    case Error::Kind::NotFound:
        return QStringLiteral("NotFound");
    case Error::Kind::Conflict:
        return QStringLiteral("Conflict");
    case Error::Kind::Io:
        return QStringLiteral("Io");
    case Error::Kind::Backend:
        return QStringLiteral("Backend");
    case Error::Kind::Timeout:
        return QStringLiteral("Timeout");
    case Error::Kind::Bootstrap:
        return QStringLiteral("Bootstrap");
    case Error::Kind::Unsupported:
        return QStringLiteral("Unsupported");
    case Error::Kind::Unreachable:
        return QStringLiteral("Unreachable");
    case Error::Kind::Cancelled:
        return QStringLiteral("Cancelled");
    }
    return QStringLiteral("?");
}

// "NotFound: <message>", or what came instead of an error.
template<typename T> Said describe(const Result<T> &result)
{
    if (result)
        return {QByteArrayLiteral("no error")};
    return {(kindName(result.error().kind) + QStringLiteral(": ") + result.error().message).toUtf8()};
}

QList<SandboxState> states(std::initializer_list<SandboxState> list)
{
    return QList<SandboxState>(list);
}

bool containsSandbox(const QList<SandboxInfo> &list, const QString &sandboxId)
{
    return std::any_of(list.cbegin(), list.cend(),
                       [&](const SandboxInfo &info) { return info.sandboxId == sandboxId; });
}

QStringList statusLines(const BootstrapLogStore &logs, const QString &instanceKey, const QString &workspaceId)
{
    QStringList lines;
    const auto read = logs.read(instanceKey, workspaceId);
    if (!read)
        return lines;
    for (const LogLine &line : *read) {
        if (line.kind == LogLine::Kind::Status)
            lines.append(QString::fromUtf8(line.text));
    }
    return lines;
}

// An error names the sandbox it is about: the whole id, or the first 12 characters (Docker's
// short container id).
bool namesSandbox(const Error &error, const QString &sandboxId)
{
    return error.message.contains(sandboxId) || error.message.contains(sandboxId.left(12));
}

// Whole seconds, well before any sandbox of this run: every backend reports it exactly.
QDateTime longAgo()
{
    return QDateTime(QDate(2020, 1, 2), QTime(3, 4, 5), Qt::UTC);
}

} // namespace

bool ConformanceTarget::touchInSessions(Backend &backend, const SandboxInfo &sandbox, const QString &path,
                                        const QDateTime &time, QString *why)
{
    const QString sessions = backend.layout(sandbox).workdir + QStringLiteral("/sessions");
    const QString target = path.isEmpty() ? sessions : sessions + u'/' + path;
    const QString folder = path.isEmpty() ? sessions : target.section(u'/', 0, -2);
    ExecRequest request;
    request.argv =
        QStringList{QStringLiteral("sh"), QStringLiteral("-c"),
                    QStringLiteral("mkdir -p %1 && touch -d @%2 %3")
                        .arg(shellQuote(folder), QString::number(time.toSecsSinceEpoch()), shellQuote(target))};
    const auto ran = QCoro::waitFor(backend.exec(sandbox.sandboxId, request));
    if (!ran) {
        *why = ran.error().message;
        return false;
    }
    if (ran->exitCode != 0) {
        *why = QStringLiteral("touch %1 exited with %2: %3")
                   .arg(target)
                   .arg(ran->exitCode)
                   .arg(QString::fromUtf8(ran->stdErr));
        return false;
    }
    return true;
}

BackendConformance::BackendConformance(ConformanceTarget *target, QObject *parent)
    : QObject(parent)
    , m_target(target)
{
}

BackendConformance::~BackendConformance() = default;

WorkspaceIds BackendConformance::nextWorkspace(const char *what, const QString &userId, const QString &agentId)
{
    // Fits every backend's rules: Docker's container names, label values, Kubernetes names.
    const QString name = QStringLiteral("cf-%1-%2").arg(++m_counter).arg(QLatin1String(what));
    const WorkspaceIds ids = m_target->workspaceIds(name, userId, agentId.isEmpty() ? name : agentId);
    m_ids.insert(ids.workspaceId, ids);
    return ids;
}

QString BackendConformance::nextWorkspaceId(const char *what)
{
    return nextWorkspace(what, QStringLiteral("conformance-user"), {}).workspaceId;
}

void BackendConformance::remember(const QString &sandboxId)
{
    if (!m_made.contains(sandboxId))
        m_made.append(sandboxId);
}

Result<SandboxInfo> BackendConformance::make(Backend &backend, const QString &workspaceId)
{
    const WorkspaceIds ids = m_ids.value(workspaceId);
    const CreateSpec spec{workspaceId, ids.userId, ids.agentId, {}};
    auto made = QCoro::waitFor(backend.create(spec));
    if (made)
        remember(made->sandboxId);
    return made;
}

Result<SandboxInfo> BackendConformance::commandSandbox()
{
    if (m_commandSandbox)
        return *m_commandSandbox;
    const WorkspaceIds ids = m_target->workspaceIds(QStringLiteral("cf-commands"), QStringLiteral("conformance-user"),
                                                    QStringLiteral("cf-commands"));
    const CreateSpec spec{ids.workspaceId, ids.userId, ids.agentId, {}};
    auto made = QCoro::waitFor(m_backend->create(spec));
    if (made)
        m_commandSandbox = *made;
    return made;
}

Result<ExecResult> BackendConformance::shell(Backend &backend, const SandboxInfo &sandbox, const QString &script,
                                             std::chrono::milliseconds timeout)
{
    ExecRequest request;
    request.argv = QStringList{QStringLiteral("sh"), QStringLiteral("-c"), script};
    request.timeout = timeout;
    return QCoro::waitFor(backend.exec(sandbox.sandboxId, request));
}

Result<bool> BackendConformance::exists(Backend &backend, const SandboxInfo &sandbox, const QString &relativePath)
{
    auto ran = shell(backend, sandbox, QStringLiteral("test -e ") + shellQuote(relativePath));
    if (!ran)
        return fail(ran.error());
    return ran->exitCode == 0;
}

Profile BackendConformance::sessionProfile() const
{
    Profile profile = Profile::local();
    profile.id = QStringLiteral("conformance");
    profile.name = QStringLiteral("Conformance");
    profile.kind = m_expect.profileKind;
    return profile;
}

WorkspaceRequest BackendConformance::requestFor(const QString &workspaceId) const
{
    const WorkspaceIds ids = m_ids.value(workspaceId);
    return WorkspaceRequest{ids.userId, ids.agentId, {}, workspaceId};
}

void BackendConformance::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_logs = std::make_unique<BootstrapLogStore>(m_dir.filePath(QStringLiteral("logs")));
    QString why;
    if (!m_target->setUp(&why)) {
        if (m_target->mustRun())
            QFAIL(qPrintable(QStringLiteral("this backend must be tested here: ") + why));
        QSKIP(qPrintable(why));
    }
    m_expect = m_target->expectations();
    m_ready = true;
}

void BackendConformance::init()
{
    m_backend = m_target->makeBackend();
    QVERIFY(m_backend);
}

void BackendConformance::cleanup()
{
    // What a check made goes, so that the next one starts from an empty backend (and a Docker
    // engine does not fill up); the files too, where the backend keeps them on kill.
    if (m_backend) {
        KillOptions everything;
        everything.deleteFiles = m_expect.capabilities.testFlag(Capability::DeleteFilesOnKill);
        for (const QString &sandboxId : std::as_const(m_made)) {
            const auto killed = QCoro::waitFor(m_backend->kill(sandboxId, everything));
            if (!killed && killed.error().kind != Error::Kind::NotFound)
                qWarning().noquote() << "cleanup: cannot kill" << sandboxId << killed.error().message;
        }
    }
    m_made.clear();
    m_backend.reset();
}

void BackendConformance::cleanupTestCase()
{
    if (m_ready) {
        if (m_commandSandbox) {
            auto backend = m_target->makeBackend();
            KillOptions everything;
            everything.deleteFiles = m_expect.capabilities.testFlag(Capability::DeleteFilesOnKill);
            QCoro::waitFor(backend->kill(m_commandSandbox->sandboxId, everything));
        }
        m_target->tearDown();
    }
    m_logs.reset();
}

// The capabilities are how callers learn what differs; they must be what the target says, and
// two instances on the same storage are the same backend instance to the bootstrap logs.
void BackendConformance::capabilitiesAreWhatTheTargetExpects()
{
    QCOMPARE(m_backend->name(), m_expect.name);
    for (const QString &variant : m_target->variants()) {
        const auto backend = m_target->makeBackend(variant);
        QVERIFY(backend);
        QCOMPARE(backend->capabilities(), m_target->expectations(variant).capabilities);
    }
    QVERIFY(!m_backend->instanceKey().isEmpty());
    QCOMPARE(m_target->makeBackend()->instanceKey(), m_backend->instanceKey());
    QVERIFY(m_backend->checkConfiguration());
}

void BackendConformance::createKeepsTheIdsAndListFindsThem()
{
    // Ids that are not label values (an e-mail address, Chinese) and profile metadata that tries
    // to override the workspace id: the id keys are the backend's, set last.
    const WorkspaceIds ids = nextWorkspace("create", QStringLiteral("alice@example.com"), QStringLiteral("运维"));
    const QString id = ids.workspaceId;
    CreateSpec spec{id, ids.userId, ids.agentId, {}};
    spec.metadata.insert(QStringLiteral("paddock.conformance"), QStringLiteral("yes"));
    spec.metadata.insert(WorkspaceIdKey, QStringLiteral("not-this-one"));
    const QDateTime before = QDateTime::currentDateTimeUtc();
    auto made = QCoro::waitFor(m_backend->create(spec));
    QVERIFY2(made, why(made));
    remember(made->sandboxId);

    const auto checkIds = [&](const SandboxInfo &info) {
        QCOMPARE(info.sandboxId, made->sandboxId);
        QCOMPARE(info.workspaceId, id);
        // A backend that records no user (AgentScope's local folders belong to their agent) says none.
        QCOMPARE(info.userId, m_expect.capabilities.testFlag(Capability::UserNotRecorded) ? QString() : spec.userId);
        QCOMPARE(info.agentId, spec.agentId);
        QCOMPARE(info.backend, m_expect.name);
        QCOMPARE(info.metadata.value(WorkspaceIdKey), id);
        QCOMPARE(info.metadata.value(QStringLiteral("paddock.conformance")),
                 m_expect.keepsProfileMetadata ? QStringLiteral("yes") : QString());
        QVERIFY(info.createdAt.isValid());
        // Clocks on one machine: made within this check, give or take a minute.
        QVERIFY2(info.createdAt >= before.addSecs(-60) && info.createdAt <= QDateTime::currentDateTimeUtc().addSecs(60),
                 qPrintable(info.createdAt.toString(Qt::ISODateWithMs)));
    };
    QVERIFY(!made->sandboxId.isEmpty());
    QCOMPARE(made->state, SandboxState::Running);
    checkIds(*made);
    if (QTest::currentTestFailed())
        return;

    auto got = QCoro::waitFor(m_backend->get(made->sandboxId));
    QVERIFY2(got, why(got));
    QCOMPARE(got->state, SandboxState::Running);
    checkIds(*got);
    if (QTest::currentTestFailed())
        return;

    auto byId = QCoro::waitFor(m_backend->list(ListFilter{id, {}}));
    QVERIFY2(byId, why(byId));
    QCOMPARE(byId->size(), 1);
    checkIds(byId->constFirst());
    if (QTest::currentTestFailed())
        return;
    auto running = QCoro::waitFor(m_backend->list(ListFilter{id, states({SandboxState::Running})}));
    QVERIFY2(running, why(running));
    QCOMPARE(running->size(), 1);
    auto paused = QCoro::waitFor(m_backend->list(ListFilter{id, states({SandboxState::Paused})}));
    QVERIFY2(paused, why(paused));
    QVERIFY(paused->isEmpty());
    auto everything = QCoro::waitFor(m_backend->list({}));
    QVERIFY2(everything, why(everything));
    QVERIFY(containsSandbox(*everything, made->sandboxId));
    auto other = QCoro::waitFor(m_backend->list(ListFilter{QStringLiteral("cf-no-such-workspace"), {}}));
    QVERIFY2(other, why(other));
    QVERIFY(!containsSandbox(*other, made->sandboxId));
}

// The inspector's overview: details() holds the sandbox exactly as get() reads it, running and
// paused, with its lists well formed (a label and a value in every pair).
void BackendConformance::detailsAreWhatGetSays()
{
    auto made = make(*m_backend, nextWorkspaceId("details"));
    QVERIFY2(made, why(made));
    // What makes a folder a workspace in AgentScope's layouts, where a closed one is its folder.
    auto wrote = shell(*m_backend, *made, QStringLiteral("mkdir -p data"));
    QVERIFY2(wrote && wrote->exitCode == 0, why(wrote));
    const auto sameSandbox = [](const SandboxInfo &shown, const SandboxInfo &got) {
        QCOMPARE(shown.sandboxId, got.sandboxId);
        QCOMPARE(shown.workspaceId, got.workspaceId);
        QCOMPARE(shown.userId, got.userId);
        QCOMPARE(shown.agentId, got.agentId);
        QCOMPARE(shown.state, got.state);
        QCOMPARE(shown.rawState, got.rawState);
        QCOMPARE(shown.backend, got.backend);
        QCOMPARE(shown.image, got.image);
        QCOMPARE(shown.createdAt, got.createdAt);
        QCOMPARE(shown.expiresAt, got.expiresAt);
        QCOMPARE(shown.lastActivityAt, got.lastActivityAt);
        QCOMPARE(shown.metadata, got.metadata);
        QCOMPARE(shown.fingerprint, got.fingerprint);
    };
    const auto wellFormed = [](const SandboxDetails &details) {
        for (const auto &pairs : {details.resources, details.endpoints, details.facts}) {
            for (const auto &[label, value] : pairs)
                QVERIFY2(!label.isEmpty() && !value.isEmpty(), qPrintable(label + QStringLiteral(": ") + value));
        }
    };
    for (const SandboxState expected : {SandboxState::Running, SandboxState::Paused}) {
        if (expected == SandboxState::Paused)
            QVERIFY2(QCoro::waitFor(m_backend->pause(made->sandboxId)), "pause");
        auto details = QCoro::waitFor(m_backend->details(made->sandboxId));
        QVERIFY2(details, why(details));
        auto got = QCoro::waitFor(m_backend->get(made->sandboxId));
        QVERIFY2(got, why(got));
        QCOMPARE(got->state, expected);
        sameSandbox(details->sandbox, *got);
        wellFormed(*details);
        if (QTest::currentTestFailed())
            return;
    }
}

// A second process (another instance on the same storage or server) finds the sandbox by its
// workspace id, connects to it, and sees the files the first one wrote.
void BackendConformance::anotherInstanceFindsAndConnectsTheSandbox()
{
    auto made = make(*m_backend, nextWorkspaceId("reattach"));
    QVERIFY2(made, why(made));
    auto wrote = shell(*m_backend, *made, QStringLiteral("mkdir -p data && echo kept > data/kept.txt"));
    QVERIFY2(wrote && wrote->exitCode == 0, why(wrote));

    const auto second = m_target->makeBackend();
    auto found = QCoro::waitFor(second->list(ListFilter{made->workspaceId, {}}));
    QVERIFY2(found, why(found));
    QCOMPARE(found->size(), 1);
    QCOMPARE(found->constFirst().sandboxId, made->sandboxId);
    QCOMPARE(found->constFirst().state, SandboxState::Running);
    auto connected = QCoro::waitFor(second->connect(made->sandboxId));
    QVERIFY2(connected, why(connected));
    QCOMPARE(connected->sandboxId, made->sandboxId);
    QCOMPARE(connected->workspaceId, made->workspaceId);
    QCOMPARE(connected->state, SandboxState::Running);
    auto ready = QCoro::waitFor(second->isReady(made->sandboxId));
    QVERIFY2(ready && *ready, why(ready));
    auto read = shell(*second, *made, QStringLiteral("cat data/kept.txt"));
    QVERIFY2(read, why(read));
    QCOMPARE(read->exitCode, 0);
    QCOMPARE(read->stdOut, QByteArray("kept\n"));

    // Paused by the first, resumed by the second: the same sandbox, the same files.
    QVERIFY2(QCoro::waitFor(m_backend->pause(made->sandboxId)), "pause");
    auto seen = QCoro::waitFor(second->get(made->sandboxId));
    QVERIFY2(seen, why(seen));
    QCOMPARE(seen->state, SandboxState::Paused);
    auto resumed = QCoro::waitFor(second->resume(made->sandboxId));
    QVERIFY2(resumed, why(resumed));
    QCOMPARE(resumed->sandboxId, made->sandboxId);
    QCOMPARE(resumed->state, SandboxState::Running);
    read = shell(*second, *made, QStringLiteral("cat data/kept.txt"));
    QVERIFY2(read, why(read));
    QCOMPARE(read->stdOut, QByteArray("kept\n"));
}

void BackendConformance::pauseAndResume_data()
{
    QTest::addColumn<QString>("variant");
    for (const QString &variant : m_target->variants()) {
        const QByteArray name = variant.isEmpty() ? QByteArrayLiteral("default") : variant.toUtf8();
        QTest::newRow(name.constData()) << variant;
    }
}

void BackendConformance::pauseAndResume()
{
    QFETCH(QString, variant);
    const auto backend = m_target->makeBackend(variant);
    const ConformanceExpectations expect = m_target->expectations(variant);
    auto made = make(*backend, nextWorkspaceId("pause"));
    QVERIFY2(made, why(made));
    auto wrote = shell(*backend, *made, QStringLiteral("mkdir -p data && echo kept > data/kept.txt"));
    QVERIFY2(wrote && wrote->exitCode == 0, why(wrote));
    if (expect.commandsCanLeaveProcesses) {
        // A process of the workspace's own, left running by a command.
        auto started =
            shell(*backend, *made, QStringLiteral("sleep 120 </dev/null >/dev/null 2>&1 & echo $! > .conformance-pid"));
        QVERIFY2(started && started->exitCode == 0, why(started));
    }

    QVERIFY2(QCoro::waitFor(backend->pause(made->sandboxId)), "pause");
    auto paused = QCoro::waitFor(backend->get(made->sandboxId));
    QVERIFY2(paused, why(paused));
    QCOMPARE(paused->state, SandboxState::Paused);
    QVERIFY(!paused->rawState.isEmpty()); // the backend's own word (Docker: "paused" or "exited")
    auto listedPaused = QCoro::waitFor(backend->list(ListFilter{made->workspaceId, states({SandboxState::Paused})}));
    QVERIFY2(listedPaused, why(listedPaused));
    QCOMPARE(listedPaused->size(), 1);
    QCOMPARE(listedPaused->constFirst().sandboxId, made->sandboxId);
    auto listedRunning = QCoro::waitFor(backend->list(ListFilter{made->workspaceId, states({SandboxState::Running})}));
    QVERIFY2(listedRunning, why(listedRunning));
    QVERIFY(listedRunning->isEmpty());
    // connect() attaches to running sandboxes only; a paused one is resumed.
    auto connected = QCoro::waitFor(backend->connect(made->sandboxId));
    QVERIFY2(!connected, "connected to a paused sandbox");
    QCOMPARE(connected.error().kind, Error::Kind::Conflict);
    // Pausing what is paused is what the caller wanted (a Close after a Pause, bulk jobs).
    auto again = QCoro::waitFor(backend->pause(made->sandboxId));
    QVERIFY2(again, describe(again));

    auto resumed = QCoro::waitFor(backend->resume(made->sandboxId));
    QVERIFY2(resumed, why(resumed));
    QCOMPARE(resumed->sandboxId, made->sandboxId);
    QCOMPARE(resumed->state, SandboxState::Running);
    auto got = QCoro::waitFor(backend->get(made->sandboxId));
    QVERIFY2(got, why(got));
    QCOMPARE(got->state, SandboxState::Running);
    auto ready = QCoro::waitFor(backend->isReady(made->sandboxId));
    QVERIFY2(ready && *ready, why(ready));
    auto read = shell(*backend, *made, QStringLiteral("cat data/kept.txt"));
    QVERIFY2(read, why(read));
    QCOMPARE(read->stdOut, QByteArray("kept\n"));
    // Resuming what runs is what the caller wanted too.
    auto resumedAgain = QCoro::waitFor(backend->resume(made->sandboxId));
    QVERIFY2(resumedAgain, describe(resumedAgain));
    QCOMPARE(resumedAgain->state, SandboxState::Running);

    if (expect.commandsCanLeaveProcesses) {
        // StopInsteadOfPause: the pause ended the workspace's processes. A freeze (or a backend
        // whose pause leaves processes alone, as the local one) keeps them.
        auto alive = shell(*backend, *made, QStringLiteral("kill -0 \"$(cat .conformance-pid)\""));
        QVERIFY2(alive, why(alive));
        if (expect.capabilities.testFlag(Capability::StopInsteadOfPause))
            QVERIFY2(alive->exitCode != 0, "a process outlived a pause that stops the sandbox");
        else
            QVERIFY2(alive->exitCode == 0, "a process did not outlive a pause that freezes the sandbox");
        shell(*backend, *made, QStringLiteral("kill \"$(cat .conformance-pid)\" 2>/dev/null; rm -f .conformance-pid"));
    }
}

void BackendConformance::execExitCodes()
{
    auto sandbox = commandSandbox();
    QVERIFY2(sandbox, why(sandbox));
    const auto run = [&](const QStringList &argv) {
        ExecRequest request;
        request.argv = argv;
        return QCoro::waitFor(m_backend->exec(sandbox->sandboxId, request));
    };
    auto ok = run({QStringLiteral("true")});
    QVERIFY2(ok, why(ok));
    QCOMPARE(ok->exitCode, 0);
    QVERIFY(!ok->timedOut);
    auto three = run({QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("exit 3")});
    QVERIFY2(three, why(three)); // a non-zero exit is a result, not an error
    QCOMPARE(three->exitCode, 3);
    QVERIFY(!three->timedOut);
    // A command the shell cannot find: 127, and the shell says why on stderr.
    auto missing = run({QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("no-such-command-conformance")});
    QVERIFY2(missing, why(missing));
    QCOMPARE(missing->exitCode, 127);
    QVERIFY(!missing->stdErr.isEmpty());
    // A program that is not there, run without a shell: what the sandbox says, 127 (a shell,
    // the local backend) or 126 (runc's exec), with the reason in the output (on stderr; the
    // Docker engine puts runc's message on stdout). Never an error value: only the transport
    // fails that way.
    auto absent = run({QStringLiteral("no-such-program-conformance"), QStringLiteral("x")});
    QVERIFY2(absent, describe(absent));
    QVERIFY2(absent->exitCode == 127 || absent->exitCode == 126, qPrintable(QString::number(absent->exitCode)));
    const QByteArray said = absent->stdOut + absent->stdErr;
    QVERIFY2(said.contains("no-such-program-conformance"), said.constData());
    // Nothing to run is the caller's mistake.
    auto nothing = run({});
    QVERIFY(!nothing);
    QCOMPARE(nothing.error().kind, Error::Kind::InvalidArgument);
}

void BackendConformance::execKeepsStdoutAndStderrApartInOrder()
{
    auto sandbox = commandSandbox();
    QVERIFY2(sandbox, why(sandbox));
    QList<std::pair<OutputChannel, QByteArray>> lines;
    ExecRequest request;
    request.argv = QStringList{
        QStringLiteral("sh"), QStringLiteral("-c"),
        QStringLiteral("echo one; echo two >&2; echo 三; echo four >&2; printf '\\n'; printf 'five\\nsix'")};
    request.onLine = [&lines](OutputChannel channel, const QByteArray &line) { lines.append({channel, line}); };
    auto ran = QCoro::waitFor(m_backend->exec(sandbox->sandboxId, request));
    QVERIFY2(ran, why(ran));
    QCOMPARE(ran->exitCode, 0);
    // The bytes as the command wrote them, the last line without its newline.
    QCOMPARE(ran->stdOut, QByteArray("one\n三\n\nfive\nsix"));
    QCOMPARE(ran->stdErr, QByteArray("two\nfour\n"));
    // onLine once per line, without the newline (an empty line too, and the unfinished last
    // one), in order within each channel; the two channels interleave as they arrive.
    QList<QByteArray> out;
    QList<QByteArray> err;
    for (const auto &[channel, line] : std::as_const(lines))
        (channel == OutputChannel::Stdout ? out : err).append(line);
    QCOMPARE(out, (QList<QByteArray>{"one", "三", "", "five", "six"}));
    QCOMPARE(err, (QList<QByteArray>{"two", "four"}));
}

// A line reaches onLine while the command still runs: the command prints, then waits for a
// file that only this check makes, so batching the output until the end could never pass.
void BackendConformance::execStreamsLinesAsTheyArrive()
{
    auto sandbox = commandSandbox();
    QVERIFY2(sandbox, why(sandbox));
    auto cleared = shell(*m_backend, *sandbox, QStringLiteral("rm -f .conformance-release"));
    QVERIFY2(cleared && cleared->exitCode == 0, why(cleared));
    QList<std::pair<OutputChannel, QByteArray>> lines;
    ExecRequest request;
    request.argv = QStringList{
        QStringLiteral("sh"), QStringLiteral("-c"),
        QStringLiteral("echo first; echo early >&2; while [ ! -e .conformance-release ]; do sleep 0.1; done; "
                       "echo second; echo late >&2")};
    request.onLine = [&lines](OutputChannel channel, const QByteArray &line) { lines.append({channel, line}); };
    std::optional<QCoro::Task<Result<ExecResult>>> running = m_backend->exec(sandbox->sandboxId, request);
    // However this check ends, the command is released and awaited: onLine refers to `lines`.
    const auto release = [&]() -> Result<ExecResult> {
        auto released = shell(*m_backend, *sandbox, QStringLiteral("touch .conformance-release"));
        Result<ExecResult> ran = QCoro::waitFor(std::move(*running));
        running.reset();
        if (!released)
            return fail(released.error());
        return ran;
    };
    const auto releaseAnyway = qScopeGuard([&] {
        if (running)
            release();
    });
    const std::pair<OutputChannel, QByteArray> first{OutputChannel::Stdout, "first"};
    const std::pair<OutputChannel, QByteArray> early{OutputChannel::Stderr, "early"};
    QTRY_VERIFY_WITH_TIMEOUT(lines.contains(first) && lines.contains(early), 30'000);
    QCOMPARE(lines.size(), 2); // nothing of what comes after the wait

    auto ran = release();
    QVERIFY2(ran, why(ran));
    QCOMPARE(ran->exitCode, 0);
    QCOMPARE(lines.size(), 4);
    QCOMPARE(lines.indexOf({OutputChannel::Stdout, "second"}) > lines.indexOf(first), true);
    QCOMPARE(lines.indexOf({OutputChannel::Stderr, "late"}) > lines.indexOf(early), true);
    QCOMPARE(ran->stdOut, QByteArray("first\nsecond\n"));
    QCOMPARE(ran->stdErr, QByteArray("early\nlate\n"));
}

void BackendConformance::execPassesArgumentsAsGiven()
{
    auto sandbox = commandSandbox();
    QVERIFY2(sandbox, why(sandbox));
    ExecRequest request;
    // No shell in between: spaces, quotes, $ and non-ASCII arrive as they are.
    request.argv = QStringList{
        QStringLiteral("printf"), QStringLiteral("%s\\n"),     QStringLiteral("a b"),  QStringLiteral("it's"),
        QStringLiteral("$HOME"),  QStringLiteral("\"q\" ; *"), QStringLiteral("中文"), QString()};
    auto ran = QCoro::waitFor(m_backend->exec(sandbox->sandboxId, request));
    QVERIFY2(ran, why(ran));
    QCOMPARE(ran->exitCode, 0);
    QCOMPARE(ran->stdOut, QByteArray("a b\nit's\n$HOME\n\"q\" ; *\n中文\n\n"));
}

void BackendConformance::execRunsInTheWorkdirOrTheGivenFolder()
{
    auto sandbox = commandSandbox();
    QVERIFY2(sandbox, why(sandbox));
    const QString workdir = m_backend->layout(*sandbox).workdir;
    ExecRequest request;
    request.argv = QStringList{QStringLiteral("pwd")};
    auto here = QCoro::waitFor(m_backend->exec(sandbox->sandboxId, request));
    QVERIFY2(here, why(here));
    QCOMPARE(QString::fromUtf8(here->stdOut.trimmed()), workdir);

    auto made = shell(*m_backend, *sandbox, QStringLiteral("mkdir -p 'sub dir/deeper'"));
    QVERIFY2(made && made->exitCode == 0, why(made));
    request.cwd = workdir + QStringLiteral("/sub dir/deeper");
    auto there = QCoro::waitFor(m_backend->exec(sandbox->sandboxId, request));
    QVERIFY2(there, why(there));
    QCOMPARE(QString::fromUtf8(there->stdOut.trimmed()), request.cwd);
}

// A time limit ends the command and says so (timedOut, a non-zero exit code); what it printed
// before is kept, in the result and through onLine. A command that ends in time is untouched.
void BackendConformance::execTimeoutKeepsTheOutputSoFar()
{
    auto sandbox = commandSandbox();
    QVERIFY2(sandbox, why(sandbox));
    QList<QByteArray> lines;
    ExecRequest slow;
    slow.argv = QStringList{QStringLiteral("sh"), QStringLiteral("-c"),
                            QStringLiteral("echo before; echo also >&2; sleep 60; echo after")};
    slow.timeout = 1s; // whole seconds: Docker's watchdog counts in seconds
    slow.onLine = [&lines](OutputChannel, const QByteArray &line) { lines.append(line); };
    auto timed = QCoro::waitFor(m_backend->exec(sandbox->sandboxId, slow));
    QVERIFY2(timed, why(timed));
    QVERIFY(timed->timedOut);
    QVERIFY2(timed->exitCode != 0, qPrintable(QString::number(timed->exitCode)));
    QCOMPARE(timed->stdOut, QByteArray("before\n"));
    QCOMPARE(timed->stdErr, QByteArray("also\n"));
    QVERIFY(lines.contains("before") && lines.contains("also") && !lines.contains("after"));

    ExecRequest quick;
    quick.argv = QStringList{QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("echo out; exit 4")};
    quick.timeout = 30s;
    auto done = QCoro::waitFor(m_backend->exec(sandbox->sandboxId, quick));
    QVERIFY2(done, why(done));
    QVERIFY(!done->timedOut);
    QCOMPARE(done->exitCode, 4);
    QCOMPARE(done->stdOut, QByteArray("out\n"));
}

// A cancel stops the command for good, with everything in its process group, and says so
// (Cancelled); what it printed before the cancel came through onLine. A token cancelled before
// the call runs nothing. "Gone" is shown by a heartbeat a background child of the command
// writes every 0.1 s, read twice a second apart by another command: it works where every
// command runs in a sandbox of its own (the OpenSandbox fake) as well as where they share one.
void BackendConformance::execCancelStopsTheCommandAndItsGroup()
{
    auto sandbox = commandSandbox();
    QVERIFY2(sandbox, why(sandbox));
    auto cleared = shell(*m_backend, *sandbox, QStringLiteral("rm -f .conformance-beat .conformance-finished"));
    QVERIFY2(cleared && cleared->exitCode == 0, why(cleared));

    ExecRequest early;
    early.argv = QStringList{QStringLiteral("touch"), QStringLiteral(".conformance-finished")};
    early.cancel = std::make_shared<CancelToken>();
    early.cancel->cancel();
    auto notRun = QCoro::waitFor(m_backend->exec(sandbox->sandboxId, early));
    QVERIFY(!notRun);
    QCOMPARE(kindName(notRun.error().kind), kindName(Error::Kind::Cancelled));
    auto touched = exists(*m_backend, *sandbox, QStringLiteral(".conformance-finished"));
    QVERIFY2(touched, why(touched));
    QVERIFY2(!*touched, "a command whose token was cancelled before the call ran");

    QList<std::pair<OutputChannel, QByteArray>> lines;
    ExecRequest request;
    request.argv = QStringList{
        QStringLiteral("sh"), QStringLiteral("-c"),
        QStringLiteral("(i=0; while [ $i -lt 3000 ]; do i=$((i+1)); echo $i > .conformance-beat; sleep 0.1; done) & "
                       "while [ ! -s .conformance-beat ]; do sleep 0.1; done; "
                       "echo started; echo also >&2; sleep 300; touch .conformance-finished")};
    request.onLine = [&lines](OutputChannel channel, const QByteArray &line) { lines.append({channel, line}); };
    const auto token = std::make_shared<CancelToken>();
    request.cancel = token;
    std::optional<QCoro::Task<Result<ExecResult>>> running = m_backend->exec(sandbox->sandboxId, request);
    // However this check ends, the command is cancelled and awaited: onLine refers to `lines`.
    const auto stopAnyway = qScopeGuard([&] {
        if (running) {
            token->cancel();
            QCoro::waitFor(std::move(*running));
        }
    });
    const std::pair<OutputChannel, QByteArray> started{OutputChannel::Stdout, "started"};
    const std::pair<OutputChannel, QByteArray> also{OutputChannel::Stderr, "also"};
    QTRY_VERIFY_WITH_TIMEOUT(lines.contains(started) && lines.contains(also), 30'000);

    token->cancel();
    Result<ExecResult> ran = QCoro::waitFor(std::move(*running));
    running.reset();
    QVERIFY2(!ran, "a cancelled command gave a result");
    QCOMPARE(kindName(ran.error().kind), kindName(Error::Kind::Cancelled));
    QVERIFY(!ran.error().message.isEmpty());
    QCOMPARE(lines.size(), 2); // what came before the cancel, through onLine, and nothing else

    // Gone, the child too: the heartbeat stands still, and the command never got to its end.
    auto beat = shell(*m_backend, *sandbox,
                      QStringLiteral("a=$(cat .conformance-beat); sleep 1; b=$(cat .conformance-beat); "
                                     "echo \"$a $b\"; [ \"$a\" = \"$b\" ] && [ ! -e .conformance-finished ]"));
    QVERIFY2(beat, why(beat));
    QVERIFY2(beat->exitCode == 0,
             qPrintable(QStringLiteral("the cancelled command's group still runs (heartbeat %1)")
                            .arg(QString::fromUtf8(beat->stdOut.trimmed()))));

    // The sandbox still runs commands.
    auto after = shell(*m_backend, *sandbox, QStringLiteral("echo fine"));
    QVERIFY2(after, why(after));
    QCOMPARE(after->stdOut, QByteArray("fine\n"));
}

// The newest change under sessions/ (the folder, and two levels of what is in it) is the
// agents' own activity; no folder, no answer.
void BackendConformance::sessionsActivityIsTheNewestChangeUnderSessions()
{
    auto made = make(*m_backend, nextWorkspaceId("activity"));
    QVERIFY2(made, why(made));
    const auto activity = [&] { return QCoro::waitFor(m_backend->sessionsActivity(made->sandboxId)); };
    QString problem;

    // The empty folder: its own time.
    QVERIFY2(m_target->touchInSessions(*m_backend, *made, {}, longAgo(), &problem), qPrintable(problem));
    auto empty = activity();
    QVERIFY2(empty, why(empty));
    if (!m_expect.reportsSessionsActivity) {
        QCOMPARE(*empty, std::nullopt);
        return;
    }
    QCOMPARE(*empty, std::optional(longAgo()));

    // A session's file two levels down, newer than the folders above it.
    const QDateTime later = longAgo().addDays(3);
    QVERIFY2(m_target->touchInSessions(*m_backend, *made, QStringLiteral("s1/context.jsonl"), later, &problem),
             qPrintable(problem));
    QVERIFY2(m_target->touchInSessions(*m_backend, *made, QStringLiteral("s1"), longAgo(), &problem),
             qPrintable(problem));
    QVERIFY2(m_target->touchInSessions(*m_backend, *made, {}, longAgo(), &problem), qPrintable(problem));
    auto deep = activity();
    QVERIFY2(deep, why(deep));
    QCOMPARE(*deep, std::optional(later));

    // An agent writes now: the activity moves to now.
    const QDateTime beforeWrite = QDateTime::currentDateTimeUtc();
    auto wrote = shell(*m_backend, *made, QStringLiteral("echo '{}' >> sessions/s1/context.jsonl"));
    QVERIFY2(wrote && wrote->exitCode == 0, why(wrote));
    auto moved = activity();
    QVERIFY2(moved, why(moved));
    QVERIFY(moved->has_value());
    QVERIFY2(**moved >= beforeWrite.addSecs(-60) && **moved <= QDateTime::currentDateTimeUtc().addSecs(60),
             qPrintable((*moved)->toString(Qt::ISODateWithMs)));

    // No sessions/ folder: nothing to tell.
    auto removed = shell(*m_backend, *made, QStringLiteral("rm -r sessions"));
    QVERIFY2(removed && removed->exitCode == 0, why(removed));
    auto none = activity();
    QVERIFY2(none, why(none));
    QCOMPARE(*none, std::nullopt);
}

// Kill removes the sandbox for good. Its files go with it, unless the backend keeps them
// (DeleteFilesOnKill) and the caller did not ask for them: then a new sandbox of the same
// workspace finds them.
void BackendConformance::killRemovesTheSandboxAndItsFilesAsTheCapabilitySays()
{
    const QString id = nextWorkspaceId("kill");
    auto made = make(*m_backend, id);
    QVERIFY2(made, why(made));
    auto wrote = shell(*m_backend, *made, QStringLiteral("mkdir -p data && echo kept > data/kept.txt"));
    QVERIFY2(wrote && wrote->exitCode == 0, why(wrote));

    auto killed = QCoro::waitFor(m_backend->kill(made->sandboxId, {}));
    QVERIFY2(killed, why(killed));
    auto gone = QCoro::waitFor(m_backend->get(made->sandboxId));
    QVERIFY2(!gone, "get found a killed sandbox");
    QCOMPARE(gone.error().kind, Error::Kind::NotFound);
    auto byId = QCoro::waitFor(m_backend->list(ListFilter{id, {}}));
    QVERIFY2(byId, why(byId));
    QVERIFY(byId->isEmpty());
    auto everything = QCoro::waitFor(m_backend->list({}));
    QVERIFY2(everything, why(everything));
    QVERIFY(!containsSandbox(*everything, made->sandboxId));

    const bool keepsFiles = m_expect.capabilities.testFlag(Capability::DeleteFilesOnKill);
    auto again = make(*m_backend, id);
    QVERIFY2(again, why(again));
    auto kept = exists(*m_backend, *again, QStringLiteral("data/kept.txt"));
    QVERIFY2(kept, why(kept));
    QCOMPARE(*kept, keepsFiles);
    if (!keepsFiles)
        return;

    KillOptions withFiles;
    withFiles.deleteFiles = true;
    killed = QCoro::waitFor(m_backend->kill(again->sandboxId, withFiles));
    QVERIFY2(killed, why(killed));
    auto fresh = make(*m_backend, id);
    QVERIFY2(fresh, why(fresh));
    kept = exists(*m_backend, *fresh, QStringLiteral("data/kept.txt"));
    QVERIFY2(kept, why(kept));
    QVERIFY2(!*kept, "kill with deleteFiles kept the files");
}

void BackendConformance::renewAsTheCapabilitySays()
{
    auto made = make(*m_backend, nextWorkspaceId("renew"));
    QVERIFY2(made, why(made));
    auto renewed = QCoro::waitFor(m_backend->renew(made->sandboxId, 7200s));
    if (!m_expect.capabilities.testFlag(Capability::Renew)) {
        // Nothing expires: a renewal is refused, and says why.
        QVERIFY2(!renewed, "renewed without Capability::Renew");
        QCOMPARE(renewed.error().kind, Error::Kind::Unsupported);
        QVERIFY(!renewed.error().message.isEmpty());
        QVERIFY(!made->expiresAt);
        return;
    }
    QVERIFY2(renewed, why(renewed));
    QVERIFY(renewed->expiresAt);
    QVERIFY2(*renewed->expiresAt >= QDateTime::currentDateTimeUtc().addSecs(7000),
             qPrintable(renewed->expiresAt->toString(Qt::ISODateWithMs)));
    auto got = QCoro::waitFor(m_backend->get(made->sandboxId));
    QVERIFY2(got, why(got));
    QVERIFY(got->expiresAt);
    QVERIFY(qAbs(got->expiresAt->secsTo(*renewed->expiresAt)) <= 1);
}

void BackendConformance::containerLogsAsTheCapabilitySays()
{
    auto sandbox = commandSandbox();
    QVERIFY2(sandbox, why(sandbox));
    auto logs = QCoro::waitFor(m_backend->containerLogs(sandbox->sandboxId, 10));
    if (m_expect.capabilities.testFlag(Capability::ContainerLog)) {
        QVERIFY2(logs, why(logs)); // what it holds is the backend's own (tested there)
        return;
    }
    QVERIFY2(!logs, "container logs without Capability::ContainerLog");
    QCOMPARE(logs.error().kind, Error::Kind::Unsupported);
    QVERIFY(!logs.error().message.isEmpty());
}

// With Capability::Metrics, a sandbox that runs a command burning a core reports CPU above zero
// and some memory, under its own id, sampled now; an id that is no sandbox is left out, not an
// error. Without it: Unsupported.
void BackendConformance::metricsAsTheCapabilitySays()
{
    auto sandbox = commandSandbox();
    QVERIFY2(sandbox, why(sandbox));
    if (!m_expect.capabilities.testFlag(Capability::Metrics)) {
        auto none = QCoro::waitFor(m_backend->metrics({sandbox->sandboxId}));
        QVERIFY2(!none, "metrics without Capability::Metrics");
        QCOMPARE(none.error().kind, Error::Kind::Unsupported);
        return;
    }
    // A command that burns a core until its time limit ends it, measured while it runs.
    bool started = false;
    ExecRequest burn;
    burn.argv =
        QStringList{QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("echo started; while :; do :; done")};
    burn.timeout = 6s;
    burn.onLine = [&started](OutputChannel, const QByteArray &line) { started = started || line == "started"; };
    auto burning = m_backend->exec(sandbox->sandboxId, burn);
    QTRY_VERIFY_WITH_TIMEOUT(started, 30000);
    const QString missing = m_target->unknownSandboxId();
    // Sampled again until the burn shows: a command that has only just started may not have
    // used a whole clock tick yet (on a loaded machine it waits for a core), which reads as 0.
    Result<QList<SandboxMetrics>> metrics = fail(Error::backend(QStringLiteral("not sampled")));
    QString seen;
    const auto burnShows = [&] {
        metrics = QCoro::waitFor(m_backend->metrics({sandbox->sandboxId, missing}));
        if (!metrics)
            seen = metrics.error().message;
        else if (metrics->size() != 1)
            seen = QStringLiteral("%1 entries").arg(metrics->size());
        else
            seen = metrics->first().cpuPercent ? QString::number(*metrics->first().cpuPercent) : QStringLiteral("none");
        return metrics && metrics->size() == 1 && metrics->first().cpuPercent && *metrics->first().cpuPercent > 0;
    };
    // QTRY_* evaluates its expression again after it held: once shown, it stays shown.
    bool shown = false;
    QTRY_VERIFY2_WITH_TIMEOUT(shown || (shown = burnShows()), qPrintable(seen), 5000);
    const auto ended = QCoro::waitFor(burning);
    QVERIFY2(metrics, why(metrics));
    QVERIFY2(ended, why(ended));
    QCOMPARE(metrics->size(), 1);
    const SandboxMetrics &one = metrics->first();
    QCOMPARE(one.sandboxId, sandbox->sandboxId);
    QVERIFY(one.cpuPercent);
    QVERIFY2(*one.cpuPercent > 0, qPrintable(QString::number(*one.cpuPercent)));
    QVERIFY(one.memoryBytes);
    QVERIFY2(*one.memoryBytes > 0, qPrintable(QString::number(*one.memoryBytes)));
    if (one.memoryLimitBytes)
        QVERIFY(*one.memoryLimitBytes > 0);
    QVERIFY(one.sampledAt.isValid());
    QVERIFY2(qAbs(one.sampledAt.secsTo(QDateTime::currentDateTimeUtc())) < 120, qPrintable(one.sampledAt.toString()));
}

bool BackendConformance::prepareFiles(SandboxInfo *sandbox, QString *folder)
{
    if (!m_expect.capabilities.testFlag(Capability::Files)) {
        QTest::qSkip("the backend does not have Capability::Files", __FILE__, __LINE__);
        return false;
    }
    if (!m_expect.filesMissing.isEmpty()) {
        const QByteArray message = m_expect.filesMissing.toUtf8();
        QTest::qSkip(message.constData(), __FILE__, __LINE__);
        return false;
    }
    auto made = commandSandbox();
    if (!made) {
        QTest::qFail(made.error().message.toUtf8().constData(), __FILE__, __LINE__);
        return false;
    }
    *sandbox = *made;
    *folder = QStringLiteral("data/files-%1").arg(++m_counter);
    const QString script =
        QStringLiteral("mkdir -p %1/sub && printf 'hello world' > %1/a.txt && ln -s a.txt %1/link && ln -s /etc %1/out")
            .arg(shellQuote(*folder));
    auto wrote = shell(*m_backend, *sandbox, script);
    if (!wrote || wrote->exitCode != 0) {
        const QByteArray message = wrote ? wrote->stdErr : wrote.error().message.toUtf8();
        QTest::qFail(message.constData(), __FILE__, __LINE__);
        return false;
    }
    return true;
}

// What the sandbox wrote reads back through the file calls: a listing with kinds and sizes in
// name order, stat (a symlink as itself), a bounded read from an offset, through a link inside.
void BackendConformance::filesListStatAndReadWhatTheSandboxWrote()
{
    SandboxInfo sandbox;
    QString folder;
    if (!prepareFiles(&sandbox, &folder))
        return;
    const QString id = sandbox.sandboxId;
    const QDateTime before = QDateTime::currentDateTimeUtc().addSecs(-120);

    auto listed = QCoro::waitFor(m_backend->listFolder(id, folder));
    QVERIFY2(listed, why(listed));
    QStringList names;
    for (const FileEntry &entry : *listed)
        names.append(entry.name);
    QCOMPARE(names, (QStringList{"a.txt", "link", "out", "sub"}));
    QCOMPARE(listed->at(0).kind, FileEntry::Kind::File);
    QCOMPARE(listed->at(0).size, 11);
    QVERIFY2(listed->at(0).modified >= before, qPrintable(listed->at(0).modified.toString(Qt::ISODate)));
    QCOMPARE(listed->at(1).kind, FileEntry::Kind::Symlink);
    QCOMPARE(listed->at(1).linkTarget, QStringLiteral("a.txt"));
    QCOMPARE(listed->at(2).kind, FileEntry::Kind::Symlink);
    QCOMPARE(listed->at(2).linkTarget, QStringLiteral("/etc"));
    QCOMPARE(listed->at(3).kind, FileEntry::Kind::Folder);

    // The workdir itself, relative and absolute.
    auto root = QCoro::waitFor(m_backend->listFolder(id, QString()));
    QVERIFY2(root, why(root));
    QVERIFY(std::any_of(root->cbegin(), root->cend(), [](const FileEntry &entry) {
        return entry.name == QLatin1String("data") && entry.kind == FileEntry::Kind::Folder;
    }));
    const QString absolute = m_backend->layout(sandbox).workdir + u'/' + folder + QStringLiteral("/a.txt");
    auto stat = QCoro::waitFor(m_backend->stat(id, absolute));
    QVERIFY2(stat, why(stat));
    QCOMPARE(stat->name, QStringLiteral("a.txt"));
    QCOMPARE(stat->kind, FileEntry::Kind::File);
    QCOMPARE(stat->size, 11);
    auto link = QCoro::waitFor(m_backend->stat(id, folder + QStringLiteral("/link")));
    QVERIFY2(link, why(link));
    QCOMPARE(link->kind, FileEntry::Kind::Symlink);
    QCOMPARE(link->linkTarget, QStringLiteral("a.txt"));

    auto middle = QCoro::waitFor(m_backend->readFile(id, folder + QStringLiteral("/a.txt"), 6, 3));
    QVERIFY2(middle, why(middle));
    QCOMPARE(middle->data, QByteArray("wor"));
    QCOMPARE(middle->totalSize, 11);
    auto through = QCoro::waitFor(m_backend->readFile(id, folder + QStringLiteral("/link"), 0, 100));
    QVERIFY2(through, why(through));
    QCOMPARE(through->data, QByteArray("hello world"));
    auto past = QCoro::waitFor(m_backend->readFile(id, folder + QStringLiteral("/a.txt"), 50, 10));
    QVERIFY2(past, why(past));
    QCOMPARE(past->data, QByteArray());
    QCOMPARE(past->totalSize, 11);
    auto notAFile = QCoro::waitFor(m_backend->readFile(id, folder + QStringLiteral("/sub"), 0, 10));
    QVERIFY2(!notAFile, "a folder was read as a file");
    QCOMPARE(notAFile.error().kind, Error::Kind::InvalidArgument);
}

// A download lands whole at the local path; an upload lands in the workspace, as the sandbox
// then reads it, replacing a file there.
void BackendConformance::filesDownloadAndUpload()
{
    SandboxInfo sandbox;
    QString folder;
    if (!prepareFiles(&sandbox, &folder))
        return;
    const QString id = sandbox.sandboxId;
    QTemporaryDir local;
    QVERIFY(local.isValid());
    const QString copy = local.filePath(QStringLiteral("copy.txt"));
    auto downloaded = QCoro::waitFor(m_backend->download(id, folder + QStringLiteral("/a.txt"), copy));
    QVERIFY2(downloaded, why(downloaded));
    QFile copied(copy);
    QVERIFY(copied.open(QIODevice::ReadOnly));
    QCOMPARE(copied.readAll(), QByteArray("hello world"));
    QCOMPARE(QDir(local.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"copy.txt"});

    // Bytes of every value, more than one chunk's worth.
    QByteArray bytes;
    for (int i = 0; i < 300'000; ++i)
        bytes.append(char(i * 7 % 256));
    const QString source = local.filePath(QStringLiteral("source.bin"));
    {
        QFile file(source);
        QVERIFY(file.open(QIODevice::WriteOnly));
        QCOMPARE(file.write(bytes), bytes.size());
    }
    for (const QString &name : QStringList{QStringLiteral("up.bin"), QStringLiteral("a.txt")}) {
        const QString target = folder + u'/' + name;
        auto uploaded = QCoro::waitFor(m_backend->upload(id, source, target));
        QVERIFY2(uploaded, why(uploaded));
        auto summed = shell(*m_backend, sandbox, QStringLiteral("wc -c < ") + shellQuote(target));
        QVERIFY2(summed && summed->exitCode == 0, why(summed));
        QCOMPARE(summed->stdOut.trimmed(), QByteArray::number(bytes.size()));
        auto back = QCoro::waitFor(m_backend->readFile(id, target, 1000, 5000));
        QVERIFY2(back, why(back));
        QCOMPARE(back->data, bytes.mid(1000, 5000));
        QCOMPARE(back->totalSize, bytes.size());
    }
}

// Nothing outside the workspace is read or written: `..`, an absolute path elsewhere, a symlink
// that points out (in the middle of a path or at its end).
void BackendConformance::filesOutsideTheWorkspaceAreRefused()
{
    SandboxInfo sandbox;
    QString folder;
    if (!prepareFiles(&sandbox, &folder))
        return;
    const QString id = sandbox.sandboxId;
    QTemporaryDir local;
    QVERIFY(local.isValid());
    const QStringList outside{QStringLiteral("../../etc/passwd"), QStringLiteral("/etc/passwd"),
                              folder + QStringLiteral("/out/passwd"), folder + QStringLiteral("/../../../etc/passwd")};
    for (const QString &path : outside) {
        auto read = QCoro::waitFor(m_backend->readFile(id, path, 0, 10));
        QVERIFY2(!read, qPrintable(path));
        QVERIFY2(read.error().kind == Error::Kind::InvalidArgument, describe(read));
        auto statted = QCoro::waitFor(m_backend->stat(id, path));
        QVERIFY2(!statted, qPrintable(path));
        QVERIFY2(statted.error().kind == Error::Kind::InvalidArgument, describe(statted));
        const QString target = local.filePath(QStringLiteral("got"));
        auto downloaded = QCoro::waitFor(m_backend->download(id, path, target));
        QVERIFY2(!downloaded, qPrintable(path));
        QVERIFY2(downloaded.error().kind == Error::Kind::InvalidArgument, describe(downloaded));
    }
    QCOMPARE(QDir(local.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), QStringList());
    auto listed = QCoro::waitFor(m_backend->listFolder(id, folder + QStringLiteral("/out")));
    QVERIFY2(!listed, "a symlink out of the workspace was listed");
    QVERIFY2(listed.error().kind == Error::Kind::InvalidArgument, describe(listed));
    QVERIFY2(listed.error().message.contains(QLatin1String("outside")), qPrintable(listed.error().message));
    auto followed = QCoro::waitFor(m_backend->readFile(id, folder + QStringLiteral("/out"), 0, 10));
    QVERIFY(!followed);
    QVERIFY2(followed.error().kind == Error::Kind::InvalidArgument, describe(followed));

    const QString source = local.filePath(QStringLiteral("source"));
    {
        QFile file(source);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("planted");
    }
    for (const QString &path : QStringList{QStringLiteral("../planted"), folder + QStringLiteral("/out/planted")}) {
        auto uploaded = QCoro::waitFor(m_backend->upload(id, source, path));
        QVERIFY2(!uploaded, qPrintable(path));
        QVERIFY2(uploaded.error().kind == Error::Kind::InvalidArgument, describe(uploaded));
    }
    auto planted = shell(*m_backend, sandbox, QStringLiteral("test -e ../planted || test -e /etc/planted"));
    QVERIFY2(planted, why(planted));
    QVERIFY2(planted->exitCode != 0, "an upload was written outside the workspace");
}

// What is not there is NotFound, with a message; a download of it leaves nothing behind.
void BackendConformance::filesMissingAreNotFound()
{
    SandboxInfo sandbox;
    QString folder;
    if (!prepareFiles(&sandbox, &folder))
        return;
    const QString id = sandbox.sandboxId;
    const QString missing = folder + QStringLiteral("/none");
    auto statted = QCoro::waitFor(m_backend->stat(id, missing));
    QVERIFY2(!statted && statted.error().kind == Error::Kind::NotFound, describe(statted));
    QVERIFY(!statted.error().message.isEmpty());
    auto read = QCoro::waitFor(m_backend->readFile(id, missing, 0, 10));
    QVERIFY2(!read && read.error().kind == Error::Kind::NotFound, describe(read));
    auto listed = QCoro::waitFor(m_backend->listFolder(id, missing));
    QVERIFY2(!listed && listed.error().kind == Error::Kind::NotFound, describe(listed));
    QTemporaryDir local;
    QVERIFY(local.isValid());
    auto downloaded = QCoro::waitFor(m_backend->download(id, missing, local.filePath(QStringLiteral("got"))));
    QVERIFY2(!downloaded && downloaded.error().kind == Error::Kind::NotFound, describe(downloaded));
    QCOMPARE(QDir(local.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), QStringList());
    // A file that a command removes is gone to the next read.
    auto removed = shell(*m_backend, sandbox, QStringLiteral("rm ") + shellQuote(folder + QStringLiteral("/a.txt")));
    QVERIFY2(removed && removed->exitCode == 0, why(removed));
    auto vanished = QCoro::waitFor(m_backend->readFile(id, folder + QStringLiteral("/a.txt"), 0, 10));
    QVERIFY2(!vanished && vanished.error().kind == Error::Kind::NotFound, describe(vanished));

    auto unknown = QCoro::waitFor(m_backend->stat(m_target->unknownSandboxId(), QStringLiteral("data")));
    QVERIFY2(!unknown && unknown.error().kind == Error::Kind::NotFound, describe(unknown));
}

// Through the session: a read-only profile reads but never uploads; a closed session does nothing.
void BackendConformance::filesUploadIsRefusedOnAReadOnlyProfile()
{
    SandboxInfo sandbox;
    QString folder;
    if (!prepareFiles(&sandbox, &folder))
        return;
    Profile profile = sessionProfile();
    profile.readOnly = true;
    TestSession<Backend> session(m_target->makeBackend(), profile, m_logs.get(), ProvisionOptions{});
    auto read = QCoro::waitFor(session->readFile(sandbox.sandboxId, folder + QStringLiteral("/a.txt"), 0, 5));
    QVERIFY2(read, why(read));
    QCOMPARE(read->data, QByteArray("hello"));
    QTemporaryDir local;
    const QString source = local.filePath(QStringLiteral("source"));
    {
        QFile file(source);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("new");
    }
    const QString target = folder + QStringLiteral("/a.txt");
    auto uploaded = QCoro::waitFor(session->upload(sandbox.sandboxId, source, target));
    QVERIFY2(!uploaded && uploaded.error().kind == Error::Kind::InvalidArgument, describe(uploaded));
    auto kept = QCoro::waitFor(session->readFile(sandbox.sandboxId, target, 0, 100));
    QVERIFY2(kept, why(kept));
    QCOMPARE(kept->data, QByteArray("hello world"));

    // After shutdown every file call is refused at once, as not done.
    session.shutdown();
    auto closed = QCoro::waitFor(session->stat(sandbox.sandboxId, target));
    QVERIFY2(!closed && closed.error().kind == Error::Kind::Cancelled, describe(closed));
    auto closedList = QCoro::waitFor(session->listFolder(sandbox.sandboxId, folder));
    QVERIFY2(!closedList && closedList.error().kind == Error::Kind::Cancelled, describe(closedList));
}

// What ProfileSession::run does for a bulk pause: every request first, then one wait for all
// the requests the server accepted (Backend::requestPause, settlePauses). A backend whose pause is
// done when it returns keeps the defaults (nothing left to settle).
void BackendConformance::pauseInTwoStepsAsABulkJobDoes()
{
    // A backend of its own, as pauseAndResume uses.
    const auto backend = m_target->makeBackend({});
    auto first = make(*backend, nextWorkspaceId("bulk-a"));
    QVERIFY2(first, why(first));
    auto second = make(*backend, nextWorkspaceId("bulk-b"));
    QVERIFY2(second, why(second));
    // Workspaces in use, with their files (Docker in AgentScope's layout knows a closed one by them).
    for (const SandboxInfo *made : {&*first, &*second}) {
        auto wrote = shell(*backend, *made, QStringLiteral("mkdir -p data && echo kept > data/kept.txt"));
        QVERIFY2(wrote && wrote->exitCode == 0, why(wrote));
    }
    QStringList pending;
    for (const QString &id : {first->sandboxId, second->sandboxId}) {
        auto requested = QCoro::waitFor(backend->requestPause(id));
        QVERIFY2(requested, why(requested));
        if (!*requested)
            pending.append(id);
    }
    QList<qsizetype> reported; // as each settles
    const Backend::PauseSettled onSettled = [&reported](qsizetype index, const Result<> &) { reported.append(index); };
    const QList<Result<>> settled = QCoro::waitFor(backend->settlePauses(pending, onSettled));
    QCOMPARE(settled.size(), pending.size());
    for (const Result<> &result : settled)
        QVERIFY2(result, describe(result));
    std::sort(reported.begin(), reported.end());
    QCOMPARE(reported.size(), pending.size()); // each once
    for (qsizetype i = 0; i < reported.size(); ++i)
        QCOMPARE(reported.at(i), i);
    for (const QString &id : {first->sandboxId, second->sandboxId}) {
        auto got = QCoro::waitFor(backend->get(id));
        QVERIFY2(got, why(got));
        QCOMPARE(got->state, SandboxState::Paused);
    }
    // An unknown sandbox is not found, at the request or at the settling, and says which.
    const QString unknown = m_target->unknownSandboxId();
    auto requested = QCoro::waitFor(backend->requestPause(unknown));
    if (requested) {
        QVERIFY2(!*requested, "an unknown sandbox was paused");
        const QList<Result<>> gone = QCoro::waitFor(backend->settlePauses({unknown}));
        QCOMPARE(gone.size(), 1);
        QVERIFY2(!gone.constFirst(), "an unknown sandbox settled as paused");
        QCOMPARE(gone.constFirst().error().kind, Error::Kind::NotFound);
        QVERIFY2(namesSandbox(gone.constFirst().error(), unknown), qPrintable(gone.constFirst().error().message));
    } else {
        QCOMPARE(requested.error().kind, Error::Kind::NotFound);
        QVERIFY2(namesSandbox(requested.error(), unknown), qPrintable(requested.error().message));
    }
    // Nothing to settle is settled at once.
    QVERIFY(QCoro::waitFor(backend->settlePauses({})).isEmpty());
}

// Every call about a sandbox that does not exist says NotFound, and names it. Reads that can
// answer "nothing" may do that instead; kill may be idempotent.
void BackendConformance::unknownIdsAreNotFound()
{
    const QString id = m_target->unknownSandboxId();
    const auto notFound = [&id](const auto &result, const char *call) {
        QVERIFY2(!result, qPrintable(QStringLiteral("%1 of an unknown sandbox succeeded").arg(QLatin1String(call))));
        QVERIFY2(result.error().kind == Error::Kind::NotFound,
                 qPrintable(QLatin1String(call) + QStringLiteral(": ") + QString::fromUtf8(describe(result).text)));
        QVERIFY2(namesSandbox(result.error(), id), qPrintable(result.error().message));
    };
    notFound(QCoro::waitFor(m_backend->get(id)), "get");
    if (QTest::currentTestFailed())
        return;
    notFound(QCoro::waitFor(m_backend->details(id)), "details");
    if (QTest::currentTestFailed())
        return;
    notFound(QCoro::waitFor(m_backend->connect(id)), "connect");
    if (QTest::currentTestFailed())
        return;
    notFound(QCoro::waitFor(m_backend->resume(id)), "resume");
    if (QTest::currentTestFailed())
        return;
    notFound(QCoro::waitFor(m_backend->pause(id)), "pause");
    if (QTest::currentTestFailed())
        return;
    ExecRequest echo;
    echo.argv = QStringList{QStringLiteral("echo"), QStringLiteral("hello")};
    notFound(QCoro::waitFor(m_backend->exec(id, echo)), "exec");
    if (QTest::currentTestFailed())
        return;

    auto killed = QCoro::waitFor(m_backend->kill(id, {}));
    if (m_expect.killIsIdempotent)
        QVERIFY2(killed, why(killed));
    else
        notFound(killed, "kill");
    if (QTest::currentTestFailed())
        return;
    auto renewed = QCoro::waitFor(m_backend->renew(id, 3600s));
    if (m_expect.capabilities.testFlag(Capability::Renew))
        notFound(renewed, "renew");
    else
        QVERIFY2(!renewed && renewed.error().kind == Error::Kind::Unsupported, describe(renewed));
    if (QTest::currentTestFailed())
        return;
    if (m_expect.capabilities.testFlag(Capability::ContainerLog))
        notFound(QCoro::waitFor(m_backend->containerLogs(id, 10)), "containerLogs");
    if (QTest::currentTestFailed())
        return;

    auto ready = QCoro::waitFor(m_backend->isReady(id));
    QVERIFY2(!ready ? ready.error().kind == Error::Kind::NotFound : !*ready, describe(ready));
    auto activity = QCoro::waitFor(m_backend->sessionsActivity(id));
    QVERIFY2(!activity ? activity.error().kind == Error::Kind::NotFound : !activity->has_value(), describe(activity));
    // Nothing is listed for a workspace no sandbox has.
    auto listed = QCoro::waitFor(m_backend->list(ListFilter{QStringLiteral("cf-no-such-workspace"), {}}));
    QVERIFY2(listed, why(listed));
    QVERIFY(listed->isEmpty());
}

// Provisioning lays the workspace out as AgentScope's initialize() does: workdir, data/,
// skills/, sessions/ and the gateway home, Paddock's marker written last; no .mcp (its absence
// means "every session inherits the default MCPs") and no gateway script (only AgentScope's own
// bootstrap may leave that: AgentScope would start it).
void BackendConformance::openLaysTheWorkspaceOutAsAgentScopeDoes()
{
    TestSession<Backend> session(m_target->makeBackend(), sessionProfile(), m_logs.get(), ProvisionOptions{});
    const QString id = nextWorkspaceId("layout");
    auto opened = QCoro::waitFor(session->open(requestFor(id)));
    QVERIFY2(opened, why(opened));
    auto sandbox = QCoro::waitFor(session->find(id));
    QVERIFY2(sandbox, why(sandbox));
    remember(sandbox->sandboxId);
    QCOMPARE(sandbox->state, SandboxState::Running);

    const WorkspaceLayout layout = session->layout(*sandbox);
    const WorkspaceLayout expected = m_target->expectedLayout(*sandbox);
    QCOMPARE(layout.workdir, expected.workdir);
    QCOMPARE(layout.gatewayHome, expected.gatewayHome);
    QCOMPARE(layout.markerFile, expected.markerFile);
    QCOMPARE(layout.agentscopeMarker, expected.agentscopeMarker);
    QVERIFY(layout.agentscopeMarker.isEmpty()
            || layout.agentscopeMarker == layout.gatewayHome + QStringLiteral("/_mcp_gateway_app.py"));
    QCOMPARE(layout.directories(),
             (QStringList{layout.workdir, layout.workdir + QStringLiteral("/data"),
                          layout.workdir + QStringLiteral("/skills"), layout.workdir + QStringLiteral("/sessions"),
                          layout.gatewayHome}));

    Backend &backend = session.backend;
    QString script;
    for (const QString &folder : layout.directories())
        script += QStringLiteral("test -d %1 || echo missing: %1; ").arg(shellQuote(folder));
    script += QStringLiteral("test -f %1 || echo missing: %1; ").arg(shellQuote(layout.markerFile));
    // AgentScope's gateway script, whether or not it is this backend's marker.
    script += QStringLiteral("test ! -e %1 || echo unexpected: %1; ")
                  .arg(shellQuote(layout.gatewayHome + QStringLiteral("/_mcp_gateway_app.py")));
    script +=
        QStringLiteral("test ! -e %1 || echo unexpected: %1").arg(shellQuote(layout.workdir + QStringLiteral("/.mcp")));
    auto checked = shell(backend, *sandbox, script);
    QVERIFY2(checked, why(checked));
    QVERIFY2(checked->stdOut.isEmpty(), checked->stdOut.constData());

    // Where the files are on this computer too, that folder is the workdir.
    const QString host = session->hostFolder(*sandbox);
    if (!host.isEmpty()) {
        auto wrote = shell(backend, *sandbox, QStringLiteral("echo here > data/host.txt"));
        QVERIFY2(wrote && wrote->exitCode == 0, why(wrote));
        QFile file(host + QStringLiteral("/data/host.txt"));
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.fileName()));
        QCOMPARE(file.readAll(), QByteArray("here\n"));
    }
}

// A second process opens the workspace the first holds open (connect), and a third opens it once
// both let go (resume): the same sandbox every time, its files kept, its bootstrap run once.
void BackendConformance::anotherProcessReattachesWithoutBootstrapping()
{
    ProvisionOptions provision;
    provision.bootstrap = {{QStringLiteral("mkdir -p data && echo run >> data/runs.txt"), 60s}};
    const QString id = nextWorkspaceId("reopen");
    QString sandboxId;
    TestSession<Backend> first(m_target->makeBackend(), sessionProfile(), m_logs.get(), provision);
    auto opened = QCoro::waitFor(first->open(requestFor(id)));
    QVERIFY2(opened, why(opened));
    auto sandbox = QCoro::waitFor(first->find(id));
    QVERIFY2(sandbox, why(sandbox));
    sandboxId = sandbox->sandboxId;
    remember(sandboxId);
    const QString key = first->instanceKey();

    {
        TestSession<Backend> second(m_target->makeBackend(), sessionProfile(), m_logs.get(), provision);
        auto attached = QCoro::waitFor(second->open(requestFor(id)));
        QVERIFY2(attached, why(attached));
        auto found = QCoro::waitFor(second->find(id));
        QVERIFY2(found, why(found));
        QCOMPARE(found->sandboxId, sandboxId);
        QVERIFY2(statusLines(*m_logs, key, id).contains(QStringLiteral("connecting to running sandbox ") + sandboxId),
                 qPrintable(statusLines(*m_logs, key, id).join(u'\n')));
        // The first still holds it: this one leaves it running.
        QCoro::waitFor(second->shutdown(WorkspaceManager::StopMode::LeaveRunning));
    }
    first.shutdown(); // closes it: paused
    auto pausedNow = QCoro::waitFor(m_backend->get(sandboxId));
    QVERIFY2(pausedNow, why(pausedNow));
    QCOMPARE(pausedNow->state, SandboxState::Paused);

    TestSession<Backend> third(m_target->makeBackend(), sessionProfile(), m_logs.get(), provision);
    auto reopened = QCoro::waitFor(third->open(requestFor(id)));
    QVERIFY2(reopened, why(reopened));
    auto found = QCoro::waitFor(third->find(id));
    QVERIFY2(found, why(found));
    QCOMPARE(found->sandboxId, sandboxId);
    QCOMPARE(found->state, SandboxState::Running);
    const QStringList said = statusLines(*m_logs, key, id);
    QVERIFY2(said.contains(QStringLiteral("resuming paused sandbox ") + sandboxId), qPrintable(said.join(u'\n')));
    // Where a close takes the gateway home with the sandbox, the new one bootstraps again.
    const bool once = m_expect.bootstrapSurvivesClose;
    QCOMPARE(said.filter(QStringLiteral("bootstrap already complete")).size(), once ? 2 : 1);
    auto runs = shell(third.backend, *found, QStringLiteral("cat data/runs.txt"));
    QVERIFY2(runs, why(runs));
    QCOMPARE(runs->stdOut, once ? QByteArray("run\n") : QByteArray("run\nrun\n"));
}

// A sandbox removed behind the backend's back is gone to every read. A backend that watches
// says so (sandboxLost) and the manager drops the workspace at once; elsewhere nothing tells the
// manager, and a Close lets go of it whatever the pause said. Either way the next open makes a
// new sandbox, which finds the files only where they outlive sandboxes (DeleteFilesOnKill).
void BackendConformance::aLostSandboxIsLetGo()
{
    TestSession<Backend> session(m_target->makeBackend(), sessionProfile(), m_logs.get(), ProvisionOptions{});
    QSignalSpy events(session.get(), &ProfileSession::event);
    QSignalSpy lost(&session.backend, &Backend::sandboxLost);
    const QString id = nextWorkspaceId("lost");
    auto opened = QCoro::waitFor(session->open(requestFor(id)));
    QVERIFY2(opened, why(opened));
    auto sandbox = QCoro::waitFor(session->find(id));
    QVERIFY2(sandbox, why(sandbox));
    remember(sandbox->sandboxId);
    auto wrote = shell(session.backend, *sandbox, QStringLiteral("echo before > data/lost.txt"));
    QVERIFY2(wrote && wrote->exitCode == 0, why(wrote));

    QString problem;
    QVERIFY2(m_target->removeBehindTheBackendsBack(*sandbox, &problem), qPrintable(problem));
    auto gone = QCoro::waitFor(session->get(sandbox->sandboxId));
    QVERIFY2(!gone, "get found a sandbox removed behind the backend's back");
    QCOMPARE(gone.error().kind, Error::Kind::NotFound);
    auto listed = QCoro::waitFor(session->list(ListFilter{id, {}}));
    QVERIFY2(listed, why(listed));
    QVERIFY(listed->isEmpty());

    if (m_expect.watchesLostSandboxes) {
        QTRY_VERIFY_WITH_TIMEOUT(!lost.isEmpty(), int(m_expect.lostWithin.count()));
        QCOMPARE(lost.constFirst().at(0).toString(), sandbox->sandboxId);
        QCOMPARE(lost.constFirst().at(1).toString(), id);
        QVERIFY(!session->cached(id));
        const bool said = std::any_of(events.cbegin(), events.cend(), [&](const QList<QVariant> &arguments) {
            const auto event = arguments.constFirst().value<WorkspaceEvent>();
            return event.kind == WorkspaceEvent::Kind::Lost && event.workspaceId == id
                && event.sandboxId == sandbox->sandboxId;
        });
        QVERIFY(said);
    } else {
        QVERIFY2(lost.isEmpty(), "sandboxLost from a backend the target says does not watch");
        QVERIFY(session->cached(id)); // nothing told the manager
        auto closed = QCoro::waitFor(session->close(*sandbox));
        QVERIFY2(!closed, "the close of a lost sandbox succeeded");
        QCOMPARE(closed.error().kind, Error::Kind::NotFound);
        QVERIFY(!session->cached(id));
    }

    auto again = QCoro::waitFor(session->open(requestFor(id)));
    QVERIFY2(again, why(again));
    QVERIFY(again->get() != opened->get());
    auto fresh = QCoro::waitFor(session->find(id));
    QVERIFY2(fresh, why(fresh));
    remember(fresh->sandboxId);
    QCOMPARE(fresh->state, SandboxState::Running);
    QCOMPARE(statusLines(*m_logs, session->instanceKey(), id).filter(QStringLiteral("creating a new sandbox")).size(),
             2);
    auto kept = exists(session.backend, *fresh, QStringLiteral("data/lost.txt"));
    QVERIFY2(kept, why(kept));
    QCOMPARE(*kept, m_expect.capabilities.testFlag(Capability::DeleteFilesOnKill));
}

// Kill is the manager's: the workspace leaves its cache before the sandbox goes, so nothing
// hands out a killed sandbox, and the next open makes a new one.
void BackendConformance::killThroughTheSessionDropsTheWorkspace()
{
    TestSession<Backend> session(m_target->makeBackend(), sessionProfile(), m_logs.get(), ProvisionOptions{});
    const QString id = nextWorkspaceId("sessionkill");
    auto opened = QCoro::waitFor(session->open(requestFor(id)));
    QVERIFY2(opened, why(opened));
    auto sandbox = QCoro::waitFor(session->find(id));
    QVERIFY2(sandbox, why(sandbox));
    remember(sandbox->sandboxId);
    QSignalSpy events(session.get(), &ProfileSession::event);
    auto killed = QCoro::waitFor(session->kill(*sandbox));
    QVERIFY2(killed, why(killed));
    QVERIFY(!session->cached(id));
    QCOMPARE(events.size(), 1);
    QCOMPARE(events.constFirst().constFirst().value<WorkspaceEvent>().kind, WorkspaceEvent::Kind::Killed);
    auto gone = QCoro::waitFor(session->find(id));
    QVERIFY(!gone);
    QCOMPARE(gone.error().kind, Error::Kind::NotFound);
    auto again = QCoro::waitFor(session->open(requestFor(id)));
    QVERIFY2(again, why(again));
    auto fresh = QCoro::waitFor(session->find(id));
    QVERIFY2(fresh, why(fresh));
    remember(fresh->sandboxId);
    QCOMPARE(fresh->state, SandboxState::Running);
}

int runConformance(int argc, char **argv, const std::function<std::unique_ptr<ConformanceTarget>()> &makeTarget)
{
    QCoreApplication app(argc, argv);
    QTEST_SET_MAIN_SOURCE_PATH
    int status = 0;
    {
        const std::unique_ptr<ConformanceTarget> target = makeTarget();
        BackendConformance suite(target.get());
        status = QTest::qExec(&suite, argc, argv);
    }
    return status;
}

} // namespace PaddockTest

namespace PaddockTest {

// AgentScope's sandbox fixtures (tests/data/agentscope-workspace/sandbox) uploaded into a workspace
// opened through a ProfileSession over this backend (workspace/ into the workdir, root/.agentscope/
// into the gateway home), then read by the inspector as the console and paddockctl read it: every
// section's content, no sample-secret- value in any of it, the gateway asked and found not running.
void BackendConformance::inspectorReadsAgentScopesWorkspace()
{
    using namespace Paddock::Inspect;
    if (!m_expect.capabilities.testFlag(Capability::Files))
        QSKIP("the backend does not have Capability::Files");
    if (!m_expect.filesMissing.isEmpty())
        QSKIP(qPrintable(m_expect.filesMissing));
    TestSession<Backend> session(m_target->makeBackend(), sessionProfile(), m_logs.get(), ProvisionOptions{});
    const QString id = nextWorkspaceId("inspect");
    auto opened = QCoro::waitFor(session->open(requestFor(id)));
    QVERIFY2(opened, why(opened));
    auto sandbox = QCoro::waitFor(session->find(id));
    QVERIFY2(sandbox, why(sandbox));
    remember(sandbox->sandboxId);
    const WorkspaceLayout layout = session->layout(*sandbox);

    // The fixtures' files, and the folders they need made first (by a command, as an agent would).
    const QString fixtures = QStringLiteral(AGENTSCOPE_FIXTURES "/sandbox");
    QList<std::pair<QString, QString>> files; // local file, workspace path
    QStringList folders;
    const QList<std::pair<QString, QString>> roots{{QStringLiteral("/workspace"), layout.workdir},
                                                   {QStringLiteral("/root/.agentscope"), layout.gatewayHome}};
    for (const auto &[from, to] : std::as_const(roots)) {
        QDirIterator it(fixtures + from, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString file = it.next();
            const QString target = to + file.mid(fixtures.size() + from.size());
            files.append({file, target});
            const QString folder = target.left(target.lastIndexOf(u'/'));
            if (!folders.contains(folder))
                folders.append(folder);
        }
    }
    QString mkdir = QStringLiteral("mkdir -p");
    for (const QString &folder : std::as_const(folders))
        mkdir += u' ' + shellQuote(folder);
    auto made = shell(session.backend, *sandbox, mkdir);
    QVERIFY2(made && made->exitCode == 0, made ? made->stdErr.constData() : qPrintable(made.error().message));
    for (const auto &[from, to] : std::as_const(files)) {
        auto sent = QCoro::waitFor(session->upload(sandbox->sandboxId, from, to));
        QVERIFY2(sent, qPrintable(to + QStringLiteral(": ") + (sent ? QString() : sent.error().message)));
    }
    const auto noSecret = [](const QJsonObject &json) {
        return !QJsonDocument(json).toJson().contains("sample-secret-");
    };
    const WorkspaceRef ref{session.get(), *sandbox, std::make_shared<CancelToken>()};

    auto overview = QCoro::waitFor(readOverview(ref));
    QVERIFY2(overview, why(overview));
    QCOMPARE(overview->details.sandbox.sandboxId, sandbox->sandboxId);
    QCOMPARE(overview->details.sandbox.workspaceId, id);
    QCOMPARE(overview->backend, m_expect.name);
    QVERIFY2(!overview->filesError, qPrintable(overview->filesError ? overview->filesError->message : QString()));
    QVERIFY(overview->hasMcp && overview->hasData && overview->hasSkills && overview->hasSessions);
    QStringList agentFiles;
    for (const FileEntry &entry : std::as_const(overview->agentFiles))
        agentFiles.append(entry.name);
    QVERIFY2(agentFiles.contains(QStringLiteral("20260821_q3-review")), qPrintable(agentFiles.join(u',')));
    QCOMPARE(overview->paddockctlArguments.mid(0, 2), (QStringList{QStringLiteral("--backend"), m_expect.name}));
    QVERIFY(noSecret(overview->toJson()));

    auto sessions = QCoro::waitFor(readSessions(ref));
    QVERIFY2(sessions, why(sessions));
    QCOMPARE(sessions->size(), 2);
    for (const SessionSummary &listed : std::as_const(*sessions)) {
        auto read = QCoro::waitFor(readSessionFiles(ref, listed));
        QVERIFY2(read, why(read));
        QVERIFY(read->context);
        QVERIFY(read->size > 0);
        auto lines = QCoro::waitFor(countContextLines(ref, listed.id));
        QVERIFY2(lines, why(lines));
        QCOMPARE(*lines, 4);
    }
    TranscriptRead transcript;
    transcript.sessionId = QStringLiteral("b83e07d5c21a4f6e8d9b0a1c2e3f4d5a");
    transcript.chunkSize = 1000;
    QList<TranscriptMessage> messages;
    auto read = QCoro::waitFor(readTranscript(
        ref, transcript, [&](QList<TranscriptMessage> page, TranscriptProgress) { messages.append(page); }));
    QVERIFY2(read, why(read));
    QCOMPARE(messages.size(), 3); // four lines, two of them one reply
    QCOMPARE(messages[1].lineCount, 2);

    auto skills = QCoro::waitFor(readSkills(ref));
    QVERIFY2(skills, why(skills));
    QCOMPARE(skills->layout.kind, SkillsLayout::Kind::Partitioned);
    QCOMPARE(skills->skills.size(), 4);
    for (const SkillView &skill : std::as_const(skills->skills))
        QVERIFY2(!skill.readError && skill.file.loaded(), qPrintable(skill.path));

    auto mcp = QCoro::waitFor(readMcp(ref));
    QVERIFY2(mcp, why(mcp));
    QVERIFY(mcp->config);
    QCOMPARE(mcp->config->version, 2);
    QVERIFY(noSecret(mcp->toJson()));
    QCOMPARE(mcp->config->scopes.first().entries.first().reveal(QStringLiteral("env/GITHUB_PERSONAL_ACCESS_TOKEN")),
             std::optional<QString>(QStringLiteral("sample-secret-github-pat-0001")));

    auto data = QCoro::waitFor(readData(ref, true));
    QVERIFY2(data, why(data));
    QCOMPARE(data->files.size(), 2);
    for (const DataFile &file : std::as_const(data->files)) {
        QCOMPARE(file.kind, DataKind::Png);
        QVERIFY2(!file.referencedFrom.isEmpty(), qPrintable(file.entry.name));
    }
    QVERIFY(data->referencesScanned);

    auto gateway = QCoro::waitFor(readGateway(ref, m_expect.capabilities.testFlag(Capability::Exec)));
    QVERIFY2(gateway, why(gateway));
    QVERIFY2(!gateway->filesError, qPrintable(gateway->filesError ? gateway->filesError->message : QString()));
    QVERIFY(gateway->scriptPresent && !gateway->scriptEmpty && gateway->venvPresent && gateway->log);
    QVERIFY(gateway->bootstrapComplete());
    if (m_expect.capabilities.testFlag(Capability::Exec)) {
        // Nothing runs the gateway here: asked from inside, it is down (or the image has no tool
        // to ask it with), never up and never an error.
        QVERIFY2(gateway->health == GatewayView::Health::Down || gateway->health == GatewayView::Health::NoTool,
                 qPrintable(gateway->probeTool + u' ' + gateway->healthDetail));
    }
    auto tail = QCoro::waitFor(readGatewayLogTail(ref, 64 * 1024));
    QVERIFY2(tail, why(tail));
    QVERIFY(tail->contains(QStringLiteral("Uvicorn running")));
    QVERIFY(!tail->contains(QStringLiteral("sample-secret-")));

    // Paused: the files are read where they are on this computer, else refused at once (a
    // paused sandbox's file server does not answer), while the overview still has the details.
    auto paused = QCoro::waitFor(session->pause(*sandbox));
    QVERIFY2(paused, why(paused));
    auto now = QCoro::waitFor(session->get(sandbox->sandboxId));
    QVERIFY2(now, why(now));
    QCOMPARE(now->state, SandboxState::Paused);
    const WorkspaceRef pausedRef{session.get(), *now, std::make_shared<CancelToken>()};
    auto pausedOverview = QCoro::waitFor(readOverview(pausedRef));
    QVERIFY2(pausedOverview, why(pausedOverview));
    QCOMPARE(pausedOverview->details.sandbox.state, SandboxState::Paused);
    auto pausedMcp = QCoro::waitFor(readMcp(pausedRef));
    if (session->hostFolder(*now).isEmpty()) {
        QVERIFY(pausedOverview->filesError);
        QCOMPARE(pausedOverview->filesError->kind, Error::Kind::Conflict);
        QVERIFY(!pausedMcp);
        QCOMPARE(pausedMcp.error().kind, Error::Kind::Conflict);
    } else {
        // The message is evaluated whatever the check says: never through an empty optional.
        QVERIFY2(!pausedOverview->filesError,
                 qPrintable(pausedOverview->filesError ? pausedOverview->filesError->message : QString()));
        QVERIFY2(pausedMcp && pausedMcp->config, why(pausedMcp));
    }
}

} // namespace PaddockTest
