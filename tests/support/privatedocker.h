#pragma once

// A private, throwaway Docker engine for tests against a real dockerd. start() runs dockerd as a
// child process in a fresh, short folder under /tmp (its own socket, data root, exec root, config
// file and, unless a system containerd runs, its own containerd; no bridge, no iptables) and waits
// until GET /_ping answers on its socket. busyboxImage() imports a tiny image made from
// busybox-static (no registry is needed). docker() runs the docker CLI against this engine only.
// The destructor removes every container, stops dockerd by its pid, unmounts whatever dockerd left
// mounted under the folder and deletes the folder. Engines are independent: tests that run at once
// (ctest -j) each start their own.
//
//     PrivateDockerEngine engine;
//     if (!engine.start()) {
//         if (PrivateDockerEngine::mustRun())
//             QFAIL(qPrintable(engine.error()));
//         QSKIP(qPrintable(engine.error()));
//     }
//
// (PADDOCK_START_PRIVATE_DOCKER(engine) below does just that.) Containers must run with
// --network none: the engine has no bridge.

#include <QByteArray>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLocalSocket>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QThread>

#include <algorithm>
#include <memory>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace PaddockTest {

class PrivateDockerEngine
{
public:
    PrivateDockerEngine() = default;
    ~PrivateDockerEngine() { stop(); }
    Q_DISABLE_COPY_MOVE(PrivateDockerEngine)

    // Under CI=true Docker tests must run: a test fails where it would otherwise skip.
    static bool mustRun() { return qEnvironmentVariable("CI") == QLatin1String("true"); }

    // Why Docker tests cannot run on this machine, from checks that need no engine (root, dockerd,
    // the docker CLI, busybox-static), or empty. start() fails with error() for the rest.
    static QString unavailableReason()
    {
        if (::geteuid() != 0)
            return QStringLiteral("a private dockerd needs root (this test runs as uid %1)").arg(::geteuid());
        if (findDaemon().isEmpty())
            return QStringLiteral("dockerd is not installed (Debian package docker.io)");
        if (clientCandidates().isEmpty())
            return QStringLiteral("the docker CLI is not installed (Debian package docker.io)");
        if (!QFileInfo(QStringLiteral("/bin/busybox")).isExecutable())
            return QStringLiteral("/bin/busybox is not installed (Debian package busybox-static)");
        return {};
    }

    // Starts dockerd and waits (up to timeoutMs) until it answers GET /_ping and the docker CLI
    // talks to it; false with the reason in error() (with the end of dockerd's log if it ran).
    bool start(int timeoutMs = 60'000)
    {
        if (m_daemon) {
            m_error = QStringLiteral("this engine was already started");
            return false;
        }
        m_error = unavailableReason();
        if (!m_error.isEmpty())
            return false;

        // Unix socket paths are limited to 108 bytes: stay short (/tmp/pdk-XXXXXX/docker.sock).
        m_dir = std::make_unique<QTemporaryDir>(QStringLiteral("/tmp/pdk-XXXXXX"));
        if (!m_dir->isValid()) {
            m_error = QStringLiteral("cannot create a folder under /tmp: ") + m_dir->errorString();
            m_dir.reset();
            return false;
        }
        // A config file of our own: a stray /etc/docker/daemon.json (hosts, bridges, mirrors) must
        // not reach this engine, and dockerd 20.10 would write its trust key to /etc/docker/key.json.
        // (That key is gone from newer dockerd, which refuses options it does not know.)
        QFile config(path(QStringLiteral("daemon.json")));
        const QByteArray json = daemonMajorVersion() < 23
            ? "{\"deprecated-key-path\": \"" + path(QStringLiteral("key.json")).toUtf8() + "\"}\n"
            : QByteArray("{}\n");
        if (!config.open(QIODevice::WriteOnly) || config.write(json) != json.size()) {
            return fail(QStringLiteral("cannot write %1: %2").arg(config.fileName(), config.errorString()));
        }
        config.close();
        QDir().mkpath(path(QStringLiteral("cli")));

        QStringList arguments{QStringLiteral("--host"),           QStringLiteral("unix://") + socketPath(),
                              QStringLiteral("--data-root"),      path(QStringLiteral("data")),
                              QStringLiteral("--exec-root"),      path(QStringLiteral("exec")),
                              QStringLiteral("--pidfile"),        path(QStringLiteral("docker.pid")),
                              QStringLiteral("--config-file"),    config.fileName(),
                              QStringLiteral("--bridge=none"),    QStringLiteral("--iptables=false"),
                              QStringLiteral("--ip6tables=false")};
        // dockerd starts a containerd of its own under --exec-root, unless a system containerd
        // answers at /run/containerd/containerd.sock (Debian's containerd.service): then it uses
        // that one, and namespaces of our own keep this engine's containers apart.
        if (QFileInfo::exists(QStringLiteral("/run/containerd/containerd.sock"))) {
            const QString ns = QStringLiteral("paddock-test-") + QFileInfo(m_dir->path()).fileName().toLower();
            arguments << QStringLiteral("--containerd-namespace") << ns
                      << QStringLiteral("--containerd-plugins-namespace") << ns + QStringLiteral("-plugins");
        }

        m_daemon = std::make_unique<QProcess>();
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        // dockerd finds containerd, runc and docker-init on PATH; a test's PATH may lack sbin.
        environment.insert(QStringLiteral("PATH"),
                           environment.value(QStringLiteral("PATH"))
                               + QStringLiteral(":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"));
        m_daemon->setProcessEnvironment(environment);
        m_daemon->setStandardOutputFile(logPath());
        m_daemon->setStandardErrorFile(logPath(), QIODevice::Append);
        m_daemon->setStandardInputFile(QProcess::nullDevice());
        // A test that crashes must not leave its engine behind (dockerd then stops its containerd).
        m_daemon->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
        m_daemon->start(findDaemon(), arguments);
        if (!m_daemon->waitForStarted()) {
            return fail(QStringLiteral("cannot run %1: %2").arg(findDaemon(), m_daemon->errorString()));
        }
        m_pid = m_daemon->processId();

        const QDeadlineTimer deadline(timeoutMs);
        QByteArray apiVersion;
        while (!ping(&apiVersion)) {
            if (m_daemon->state() == QProcess::NotRunning) {
                return fail(QStringLiteral("dockerd exited (code %1):\n%2").arg(m_daemon->exitCode()).arg(logTail()));
            }
            if (deadline.hasExpired()) {
                return fail(QStringLiteral("dockerd did not answer on %1 within %2 s:\n%3")
                                .arg(socketPath())
                                .arg(timeoutMs / 1000)
                                .arg(logTail()));
            }
            m_daemon->waitForFinished(100); // a 100 ms pause that wakes up at once if dockerd dies
        }
        m_apiVersion = QString::fromLatin1(apiVersion);

        // Debian's /usr/bin/docker matches its dockerd; a newer client (say /usr/local/bin/docker)
        // works too, told the engine's API version through DOCKER_API_VERSION.
        QStringList tried;
        for (const QString &candidate : clientCandidates()) {
            m_client = candidate;
            QByteArray version;
            if (docker({QStringLiteral("version"), QStringLiteral("--format"), QStringLiteral("{{.Server.Version}}")},
                       &version, 30'000)
                    == 0
                && !version.trimmed().isEmpty())
                return true;
            tried << QStringLiteral("%1: %2").arg(candidate, QString::fromLocal8Bit(m_stderr.trimmed()));
        }
        m_client.clear();
        return fail(QStringLiteral("no docker CLI talks to this dockerd (API %1):\n").arg(m_apiVersion)
                    + tried.join(QLatin1Char('\n')));
    }

    // What the destructor does; safe to call more than once.
    void stop()
    {
        if (m_daemon && m_daemon->state() != QProcess::NotRunning) {
            if (!m_client.isEmpty()) {
                QByteArray ids;
                if (docker({QStringLiteral("ps"), QStringLiteral("--all"), QStringLiteral("--quiet")}, &ids, 30'000)
                    == 0) {
                    QStringList remove{QStringLiteral("rm"), QStringLiteral("--force"), QStringLiteral("--volumes")};
                    for (const QByteArray &id : ids.split('\n')) {
                        if (!id.trimmed().isEmpty())
                            remove << QString::fromLatin1(id.trimmed());
                    }
                    if (remove.size() > 3)
                        docker(remove, nullptr, 60'000);
                }
            }
            // By its pid: SIGTERM, 20 s to shut down (it stops its containerd), then SIGKILL.
            ::kill(static_cast<pid_t>(m_pid), SIGTERM);
            if (!m_daemon->waitForFinished(20'000)) {
                ::kill(static_cast<pid_t>(m_pid), SIGKILL);
                m_daemon->waitForFinished(10'000);
            }
        }
        m_daemon.reset();
        if (!m_dir)
            return;
        // A containerd or shim of ours that outlived dockerd (only if dockerd had to be killed).
        for (const qint64 pid : processesUsing(m_dir->path()))
            ::kill(static_cast<pid_t>(pid), SIGKILL);
        unmountAllUnder(m_dir->path());
        if (!m_dir->remove())
            qWarning("PrivateDockerEngine: could not remove %s", qPrintable(m_dir->path()));
        m_dir.reset();
        m_client.clear();
        m_image.clear();
    }

    QString error() const { return m_error; }
    QString socketPath() const { return path(QStringLiteral("docker.sock")); }
    QString dockerHost() const { return QStringLiteral("unix://") + socketPath(); }
    // The engine's folder (socket, data root, exec root, log), empty before start().
    QString path() const { return m_dir ? m_dir->path() : QString(); }
    QString logPath() const { return path(QStringLiteral("dockerd.log")); }
    // dockerd's pid, 0 before start().
    qint64 pid() const { return m_pid; }
    // The API version dockerd announced (e.g. "1.41").
    QString apiVersion() const { return m_apiVersion; }
    // The docker CLI that talks to this engine.
    QString dockerProgram() const { return m_client; }

    // The environment for a process that should use this engine (DOCKER_HOST, DOCKER_API_VERSION,
    // a private DOCKER_CONFIG; no DOCKER_CONTEXT or TLS settings from the test's environment).
    QProcessEnvironment environment() const
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        for (const char *name : {"DOCKER_CONTEXT", "DOCKER_TLS_VERIFY", "DOCKER_CERT_PATH", "DOCKER_TLS"})
            environment.remove(QLatin1String(name));
        environment.insert(QStringLiteral("DOCKER_HOST"), dockerHost());
        environment.insert(QStringLiteral("DOCKER_CONFIG"), path(QStringLiteral("cli")));
        if (!m_apiVersion.isEmpty())
            environment.insert(QStringLiteral("DOCKER_API_VERSION"), m_apiVersion);
        return environment;
    }

    // Imports (once per engine) an image made from busybox-static: /bin/busybox and its usual
    // applets, /tmp, /workspace, /root and an /etc/passwd with root. Returns its tag, or empty with
    // the reason in error().
    QString busyboxImage()
    {
        if (!m_image.isEmpty())
            return m_image;
        if (m_client.isEmpty()) {
            m_error = QStringLiteral("the engine is not running");
            return {};
        }
        const QString tag = QStringLiteral("paddock-test/busybox:1");
        const QString root = path(QStringLiteral("rootfs"));
        const QDir dir(root);
        for (const char *folder : {"bin", "tmp", "workspace", "root", "etc"}) {
            if (!dir.mkpath(QLatin1String(folder))) {
                m_error = QStringLiteral("cannot create %1/%2").arg(root, QLatin1String(folder));
                return {};
            }
        }
        if (!QFile::copy(QStringLiteral("/bin/busybox"), root + QStringLiteral("/bin/busybox"))) {
            m_error = QStringLiteral("cannot copy /bin/busybox (Debian package busybox-static)");
            return {};
        }
        QFile::setPermissions(root + QStringLiteral("/bin/busybox"),
                              QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadGroup
                                  | QFile::ExeGroup | QFile::ReadOther | QFile::ExeOther);
        for (const char *applet :
             {"sh",    "echo",  "cat",      "ls",     "mkdir", "sleep", "printf", "test", "[",     "tail",
              "touch", "rm",    "stat",     "date",   "true",  "false", "env",    "find", "wc",    "head",
              "grep",  "sed",   "tr",       "id",     "kill",  "ps",    "mv",     "cp",   "chmod", "ln",
              "pwd",   "uname", "hostname", "whoami", "tee",   "xargs", "setsid"}) {
            if (!QFile::link(QStringLiteral("busybox"), root + QStringLiteral("/bin/") + QLatin1String(applet))) {
                m_error = QStringLiteral("cannot link %1/bin/%2").arg(root, QLatin1String(applet));
                return {};
            }
        }
        if (!writeFile(root + QStringLiteral("/etc/passwd"), "root:x:0:0:root:/root:/bin/sh\n")
            || !writeFile(root + QStringLiteral("/etc/group"), "root:x:0:\n"))
            return {};
        if (::chmod(QFile::encodeName(root + QStringLiteral("/tmp")).constData(), 01777) != 0) {
            m_error = QStringLiteral("chmod 1777 %1/tmp: %2").arg(root, QString::fromLocal8Bit(strerror(errno)));
            return {};
        }

        const QString tarball = path(QStringLiteral("rootfs.tar"));
        QProcess tar;
        tar.start(QStringLiteral("tar"),
                  {QStringLiteral("--create"), QStringLiteral("--file"), tarball, QStringLiteral("--directory"), root,
                   QStringLiteral("--numeric-owner"), QStringLiteral("--owner=0"), QStringLiteral("--group=0"),
                   QStringLiteral(".")});
        if (!tar.waitForFinished(60'000) || tar.exitStatus() != QProcess::NormalExit || tar.exitCode() != 0) {
            m_error =
                QStringLiteral("tar failed: ") + QString::fromLocal8Bit(tar.readAllStandardError()) + tar.errorString();
            return {};
        }
        if (docker({QStringLiteral("import"), QStringLiteral("--change"),
                    QStringLiteral("ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"),
                    QStringLiteral("--change"), QStringLiteral("CMD [\"/bin/sh\"]"), tarball, tag},
                   nullptr, 120'000)
            != 0) {
            m_error = QStringLiteral("docker import failed: ") + QString::fromLocal8Bit(m_stderr.trimmed());
            return {};
        }
        QFile::remove(tarball);
        m_image = tag;
        return m_image;
    }

    // Runs the docker CLI against this engine; returns its exit code (-1 if it could not run or
    // timed out), its stdout in *out if given. Its stderr is in lastStandardError() afterwards.
    int docker(const QStringList &arguments, QByteArray *out = nullptr, int timeoutMs = 60'000)
    {
        m_stderr.clear();
        if (out)
            out->clear();
        if (m_client.isEmpty()) {
            m_stderr = "the engine is not running";
            return -1;
        }
        QProcess process;
        process.setProcessEnvironment(environment());
        process.setStandardInputFile(QProcess::nullDevice());
        process.start(m_client, arguments);
        if (!process.waitForFinished(timeoutMs)) {
            m_stderr = process.readAllStandardError() + "\n" + process.errorString().toLocal8Bit();
            process.kill();
            process.waitForFinished();
            return -1;
        }
        if (out)
            *out = process.readAllStandardOutput();
        m_stderr = process.readAllStandardError();
        return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    }
    QByteArray lastStandardError() const { return m_stderr; }

    // The last lines of dockerd's log.
    QString logTail(int lines = 25) const
    {
        QFile log(logPath());
        if (!log.open(QIODevice::ReadOnly))
            return QStringLiteral("(no log at %1)").arg(logPath());
        QList<QByteArray> all = log.readAll().split('\n');
        while (!all.isEmpty() && all.constLast().isEmpty())
            all.removeLast();
        QStringList tail;
        for (qsizetype i = std::max<qsizetype>(0, all.size() - lines); i < all.size(); ++i)
            tail << QString::fromUtf8(all.at(i));
        return tail.join(QLatin1Char('\n'));
    }

    // Pids of processes whose command line names something under folder (ours: containerd, shims).
    static QList<qint64> processesUsing(const QString &folder)
    {
        QList<qint64> pids;
        const QByteArray needle = folder.toLocal8Bit() + '/';
        const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        for (const QString &entry : entries) {
            bool number = false;
            const qint64 pid = entry.toLongLong(&number);
            if (!number || pid == ::getpid())
                continue;
            QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(pid));
            if (cmdline.open(QIODevice::ReadOnly) && cmdline.readAll().contains(needle))
                pids << pid;
        }
        return pids;
    }

private:
    // A start() that went wrong: the reason in error(), and nothing left running or on disk.
    bool fail(const QString &reason)
    {
        m_error = reason;
        stop();
        return false;
    }

    QString path(const QString &name) const { return m_dir ? m_dir->path() + QLatin1Char('/') + name : QString(); }

    static QString findDaemon()
    {
        QString found = QStandardPaths::findExecutable(QStringLiteral("dockerd"));
        if (found.isEmpty())
            found = QStandardPaths::findExecutable(QStringLiteral("dockerd"),
                                                   {QStringLiteral("/usr/sbin"), QStringLiteral("/usr/bin"),
                                                    QStringLiteral("/usr/local/bin"), QStringLiteral("/sbin")});
        return found;
    }

    // The major version of dockerd ("Docker version 20.10.24+dfsg1, build 5d6db84"), 0 if unknown.
    static int daemonMajorVersion()
    {
        QProcess process;
        process.start(findDaemon(), {QStringLiteral("--version")});
        if (!process.waitForFinished(30'000))
            return 0;
        const QByteArray output = process.readAllStandardOutput();
        const qsizetype at = output.indexOf("version ");
        return at < 0 ? 0 : output.mid(at + 8).split('.').constFirst().toInt();
    }

    // Debian's client first (it matches Debian's dockerd), then whatever docker is on PATH.
    static QStringList clientCandidates()
    {
        QStringList candidates;
        for (const QString &candidate :
             {QStandardPaths::findExecutable(QStringLiteral("docker"), {QStringLiteral("/usr/bin")}),
              QStandardPaths::findExecutable(QStringLiteral("docker"))}) {
            if (!candidate.isEmpty() && !candidates.contains(QFileInfo(candidate).canonicalFilePath()))
                candidates << QFileInfo(candidate).canonicalFilePath();
        }
        return candidates;
    }

    // GET /_ping on the socket: true when dockerd answers 200 OK; its API version in *apiVersion.
    bool ping(QByteArray *apiVersion) const
    {
        QLocalSocket socket;
        socket.connectToServer(socketPath());
        if (!socket.waitForConnected(1'000))
            return false;
        socket.write("GET /_ping HTTP/1.1\r\nHost: docker\r\nConnection: close\r\n\r\n");
        if (!socket.waitForBytesWritten(1'000))
            return false;
        QByteArray response;
        while (socket.waitForReadyRead(2'000))
            response += socket.readAll();
        response += socket.readAll();
        if (!response.startsWith("HTTP/1.1 200"))
            return false;
        for (const QByteArray &line : response.split('\n')) {
            if (line.toLower().startsWith("api-version:"))
                *apiVersion = line.mid(int(sizeof("api-version:")) - 1).trimmed();
        }
        return true;
    }

    // Lazily detaches (umount -l) every mount under folder, the deepest first: dockerd's overlays,
    // shm and netns mounts, and the bind mount it may put on its data root.
    static void unmountAllUnder(const QString &folder)
    {
        const QByteArray prefix = QFileInfo(folder).canonicalFilePath().toLocal8Bit();
        for (int round = 0; round < 10; ++round) {
            QFile mountinfo(QStringLiteral("/proc/self/mountinfo"));
            if (!mountinfo.open(QIODevice::ReadOnly))
                return;
            QList<QByteArray> points;
            for (const QByteArray &line : mountinfo.readAll().split('\n')) {
                const QList<QByteArray> fields = line.split(' ');
                if (fields.size() < 5)
                    continue;
                const QByteArray point = unescapeMountPoint(fields.at(4));
                if (point == prefix || point.startsWith(QByteArray(prefix + '/')))
                    points << point;
            }
            if (points.isEmpty())
                return;
            std::sort(points.begin(), points.end(),
                      [](const QByteArray &a, const QByteArray &b) { return a.size() > b.size(); });
            for (const QByteArray &point : points) {
                if (::umount2(point.constData(), MNT_DETACH) != 0 && errno != EINVAL && errno != ENOENT)
                    qWarning("PrivateDockerEngine: umount -l %s: %s", point.constData(), strerror(errno));
            }
        }
    }

    // /proc/self/mountinfo writes space, tab, newline and backslash as \ooo.
    static QByteArray unescapeMountPoint(const QByteArray &field)
    {
        QByteArray point;
        for (qsizetype i = 0; i < field.size(); ++i) {
            if (field.at(i) == '\\' && i + 3 < field.size()) {
                point += char(field.mid(i + 1, 3).toInt(nullptr, 8));
                i += 3;
            } else {
                point += field.at(i);
            }
        }
        return point;
    }

    bool writeFile(const QString &fileName, const QByteArray &contents)
    {
        QFile file(fileName);
        if (!file.open(QIODevice::WriteOnly) || file.write(contents) != contents.size()) {
            m_error = QStringLiteral("cannot write %1: %2").arg(fileName, file.errorString());
            return false;
        }
        return true;
    }

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<QProcess> m_daemon;
    qint64 m_pid = 0;
    QString m_client;
    QString m_apiVersion;
    QString m_image;
    QString m_error;
    QByteArray m_stderr;
};

} // namespace PaddockTest

// Starts engine (a PrivateDockerEngine) in a test function, or skips the test with the reason
// (fails it under CI=true, where Docker tests must run).
#define PADDOCK_START_PRIVATE_DOCKER(engine)                                                                           \
    do {                                                                                                               \
        if (!(engine).start()) {                                                                                       \
            if (PaddockTest::PrivateDockerEngine::mustRun())                                                           \
                QFAIL(qPrintable(QStringLiteral("Docker tests must run under CI=true: ") + (engine).error()));         \
            QSKIP(qPrintable((engine).error()));                                                                       \
        }                                                                                                              \
    } while (false)
