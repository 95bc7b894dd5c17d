#include "sandbox.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace PaddockFake {

namespace {

constexpr int StartTimeoutMs = 30'000;

QString namespaceOf(const QString &procDir)
{
    return QFile::symLinkTarget(procDir + u"/ns/user"_s);
}

} // namespace

QStringList bubblewrapArguments(const SandboxSpec &spec)
{
    QStringList args{u"--die-with-parent"_s, u"--unshare-all"_s, u"--ro-bind"_s, u"/usr"_s, u"/usr"_s};
    for (const char *hostDir : {"/bin", "/sbin", "/lib", "/lib64", "/lib32", "/etc"})
        args << u"--ro-bind-try"_s << QLatin1StringView(hostDir) << QLatin1StringView(hostDir);
    args << u"--proc"_s << u"/proc"_s << u"--dev"_s << u"/dev"_s;
    for (const SandboxBind &bind : spec.binds)
        args << u"--bind"_s << bind.hostPath << bind.sandboxPath;
    if (!spec.hostname.isEmpty())
        args << u"--hostname"_s << spec.hostname;
    for (const auto &[name, value] : spec.env)
        args << u"--setenv"_s << name << value;
    if (!spec.cwd.isEmpty())
        args << u"--chdir"_s << spec.cwd;
    args << u"--"_s;
    return args;
}

QString findBubblewrap(QString *error)
{
    const QString path = QStandardPaths::findExecutable(u"bwrap"_s);
    if (path.isEmpty()) {
        *error = u"bwrap (bubblewrap) is not installed"_s;
        return {};
    }
    // bwrap needs user namespaces; say so now rather than fail every command later.
    QProcess probe;
    probe.setProcessChannelMode(QProcess::MergedChannels);
    probe.start(path, bubblewrapArguments({}) << u"true"_s);
    if (!probe.waitForFinished(StartTimeoutMs) || probe.exitStatus() != QProcess::NormalExit || probe.exitCode() != 0) {
        *error = u"bwrap cannot sandbox commands on this machine (%1)"_s.arg(
            QString::fromLocal8Bit(probe.readAll()).trimmed());
        return {};
    }
    return path;
}

void runInOwnProcessGroup(QProcess &process)
{
    process.setChildProcessModifier([] {
        ::setsid(); // its own process group: one signal reaches all of it
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    });
}

void killProcessGroup(qint64 pgid)
{
    if (pgid <= 0)
        return;
    ::kill(static_cast<pid_t>(-pgid), SIGKILL);
    ::kill(static_cast<pid_t>(-pgid), SIGCONT);
}

PersistentSandbox::PersistentSandbox(QString bubblewrap, SandboxSpec spec, QObject *parent)
    : QObject(parent)
    , m_bubblewrap(std::move(bubblewrap))
    , m_spec(std::move(spec))
{
}

PersistentSandbox::~PersistentSandbox()
{
    kill();
}

bool PersistentSandbox::start(const QStringList &argv, QString *error)
{
    // bwrap writes the namespace init's pid (as this host sees it) as JSON on --info-fd.
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
        *error = u"pipe: "_s + QString::fromLocal8Bit(std::strerror(errno));
        return false;
    }
    const int readFd = fds[0];
    const int writeFd = fds[1];
    m_process = new QProcess(this);
    QStringList args = bubblewrapArguments(m_spec);
    args.insert(args.size() - 1, u"--info-fd"_s);
    args.insert(args.size() - 1, QString::number(writeFd));
    args += argv;
    m_process->setProgram(m_bubblewrap);
    m_process->setArguments(args);
    m_process->setStandardInputFile(QProcess::nullDevice());
    m_process->setProcessChannelMode(QProcess::SeparateChannels);
    m_process->setChildProcessModifier([writeFd] {
        ::setsid();
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        ::fcntl(writeFd, F_SETFD, 0); // bwrap inherits the info pipe
    });
    connect(m_process, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
        if (!m_killed)
            Q_EMIT ended(exitCode, status);
    });
    m_process->start();
    ::close(writeFd);
    if (!m_process->waitForStarted(StartTimeoutMs)) {
        ::close(readFd);
        *error = u"cannot start bwrap: "_s + m_process->errorString();
        return false;
    }
    QByteArray info;
    for (;;) {
        pollfd poller{readFd, POLLIN, 0};
        const int ready = ::poll(&poller, 1, StartTimeoutMs);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            break;
        char buffer[4096];
        const ssize_t got = ::read(readFd, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        info.append(buffer, got);
        if (QJsonDocument::fromJson(info).isObject())
            break;
    }
    ::close(readFd);
    m_initPid = QJsonDocument::fromJson(info).object().value(u"child-pid"_s).toInteger();
    if (m_initPid <= 0) {
        m_process->waitForFinished(1000);
        *error = u"bwrap did not start the sandbox"_s;
        kill();
        return false;
    }
    m_joinUserNamespace = namespaceOf(u"/proc/%1"_s.arg(m_initPid)) != namespaceOf(u"/proc/self"_s);
    // bwrap reports the pid before it has built the sandbox's file system; the command has
    // been exec'd (and so the mounts are done) once the init's child runs it.
    const QString children = u"/proc/%1/task/%1/children"_s.arg(m_initPid);
    const QByteArray program = argv.value(0).toLocal8Bit();
    for (int waited = 0; waited < StartTimeoutMs; waited += 2) {
        QFile file(children);
        if (!file.open(QIODevice::ReadOnly)) {
            ::usleep(100'000); // no children file in this kernel: give bwrap a moment instead
            break;
        }
        const QByteArray child = file.readAll().trimmed().split(' ').value(0);
        if (!child.isEmpty()) {
            QFile cmdline(u"/proc/"_s + QString::fromLatin1(child) + u"/cmdline"_s);
            if (cmdline.open(QIODevice::ReadOnly) && cmdline.readAll().split('\0').value(0) == program)
                return true;
        }
        // The command may have ended already (QProcess learns it only in the event loop).
        if (!QFileInfo::exists(u"/proc/%1"_s.arg(m_initPid)))
            break;
        ::usleep(2000);
    }
    return true;
}

bool PersistentSandbox::isRunning() const
{
    return !m_killed && m_process && m_process->state() == QProcess::Running;
}

void PersistentSandbox::prepare(QProcess &process, const QStringList &argv, const QString &cwd,
                                const EnvList &env) const
{
    QStringList args{u"--target"_s, QString::number(m_initPid)};
    if (m_joinUserNamespace)
        args << u"--user"_s << u"--preserve-credentials"_s;
    args << u"--mount"_s << u"--uts"_s << u"--ipc"_s << u"--net"_s << u"--pid"_s << u"--root"_s << u"--"_s;
    // No capabilities, not even as root in the sandbox's user namespace; then a session of its
    // own, as runc gives every exec (so the command leads its process group inside the sandbox,
    // where a later command can signal that group); then the working directory (nsenter's own
    // --wd=DIR would look DIR up outside the sandbox). nsenter's child is no group leader, so
    // setsid(1) does not fork: the command keeps the pid, and its exit status is the command's.
    args << u"/usr/bin/setpriv"_s << u"--bounding-set=-all"_s << u"--inh-caps=-all"_s << u"--no-new-privs"_s << u"--"_s
         << u"/usr/bin/setsid"_s << u"/usr/bin/env"_s << u"-C"_s << cwd << u"--"_s;
    args += argv;
    process.setProgram(QStandardPaths::findExecutable(u"nsenter"_s));
    process.setArguments(args);
    QProcessEnvironment environment;
    for (const auto &[name, value] : env)
        environment.insert(name, value);
    process.setProcessEnvironment(environment);
    process.setWorkingDirectory(QDir::rootPath());
    runInOwnProcessGroup(process);
}

void PersistentSandbox::kill()
{
    if (m_killed || !m_process)
        return;
    m_killed = true;
    if (m_process->state() != QProcess::NotRunning) {
        if (m_initPid > 0)
            ::kill(static_cast<pid_t>(m_initPid), SIGKILL); // the namespace goes with its init
        killProcessGroup(m_process->processId());
        m_process->waitForFinished(5000);
    }
}

void PersistentSandbox::signalAll(int signal) const
{
    if (m_killed || m_initPid <= 0)
        return;
    // The link's own text ("pid:[4026532301]"), not QFile::symLinkTarget(), which makes it a
    // path under the link's folder (and so different for every process).
    const auto pidNamespace = [](const QString &process) {
        char target[64] = {};
        const ssize_t got =
            ::readlink(QFile::encodeName(u"/proc/"_s + process + u"/ns/pid"_s).constData(), target, sizeof target - 1);
        return got > 0 ? QByteArray(target, got) : QByteArray();
    };
    const QByteArray ns = pidNamespace(QString::number(m_initPid));
    // Never this process's own namespace (that would be every process on the host).
    if (ns.isEmpty() || ns == pidNamespace(u"self"_s))
        return;
    const QStringList pids = QDir(u"/proc"_s).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &pid : pids) {
        bool numeric = false;
        const qint64 value = pid.toLongLong(&numeric);
        if (numeric && pidNamespace(pid) == ns)
            ::kill(static_cast<pid_t>(value), signal);
    }
}

QString PersistentSandbox::probe(const QString &bubblewrap)
{
    if (QStandardPaths::findExecutable(u"nsenter"_s).isEmpty() || !QFile::exists(u"/usr/bin/setpriv"_s)
        || !QFile::exists(u"/usr/bin/setsid"_s) || !QFile::exists(u"/usr/bin/env"_s))
        return u"nsenter, /usr/bin/setpriv, /usr/bin/setsid or /usr/bin/env is missing (Debian: util-linux, coreutils)"_s;
    PersistentSandbox sandbox(bubblewrap, {});
    QString error;
    if (!sandbox.start({u"sleep"_s, u"infinity"_s}, &error))
        return error;
    QProcess process;
    sandbox.prepare(process, {u"true"_s}, u"/"_s, {{u"PATH"_s, SandboxSearchPath}});
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start();
    if (!process.waitForFinished(StartTimeoutMs) || process.exitStatus() != QProcess::NormalExit
        || process.exitCode() != 0)
        return u"cannot join a sandbox's namespaces with nsenter (%1)"_s.arg(
            QString::fromLocal8Bit(process.readAll()).trimmed());
    return {};
}

} // namespace PaddockFake
