#pragma once

// Running commands confined, for the fake servers: bubblewrap (bwrap) with the host's /usr,
// /bin, /sbin, /lib*, /etc read-only, its own /proc and /dev, a few writable folders bound in,
// and every namespace unshared (so no network at all, not even the host's loopback).
//
// Two shapes: one bwrap per command (bubblewrapArguments(), the OpenSandbox fake's execd), and a
// PersistentSandbox that stands for a container: one bwrap that lives until it is killed, whose
// namespaces every later command joins with nsenter, so that what one command starts in the
// background survives it and later commands see it (processes, the loopback network).

#include <QList>
#include <QObject>
#include <QPair>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace PaddockFake {

using EnvList = QList<QPair<QString, QString>>;

// The search path of every confined (or unconfined) command.
inline constexpr QLatin1StringView SandboxSearchPath{"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"};

struct SandboxBind
{
    QString hostPath;
    QString sandboxPath; // writable in the sandbox
};

struct SandboxSpec
{
    QList<SandboxBind> binds;
    EnvList env; // --setenv, in order
    QString cwd; // --chdir; empty: none
    QString hostname; // --hostname; empty: none
};

// bwrap's arguments for `spec`, ending with "--" (the command follows).
QStringList bubblewrapArguments(const SandboxSpec &spec);

// The bwrap to use: found on PATH and able to sandbox on this machine (it needs user
// namespaces). Empty, with the reason in *error, otherwise.
QString findBubblewrap(QString *error);

// Every confined command runs in its own process group (so that one signal reaches everything
// it started) and dies with the server (PR_SET_PDEATHSIG).
void runInOwnProcessGroup(QProcess &process);
// SIGKILL to a process group (and SIGCONT, in case it was stopped). Ignores pgid <= 0.
void killProcessGroup(qint64 pgid);

class PersistentSandbox final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PersistentSandbox)

public:
    PersistentSandbox(QString bubblewrap, SandboxSpec spec, QObject *parent = nullptr);
    ~PersistentSandbox() override;

    // Starts `argv` (the container's command, e.g. `sleep infinity`) under bwrap's own init
    // and waits until the sandbox's namespaces can be joined. False with the reason in *error.
    bool start(const QStringList &argv, QString *error);
    bool isRunning() const;
    // The command's process: its stdout and stderr are the command's own (separate channels);
    // bwrap exits with the command's exit status (128 + N when signal N ended it).
    QProcess *process() const { return m_process; }
    // Sets `process` up to run argv inside the sandbox, in `cwd` (a sandbox path), with exactly
    // `env` as its environment, with no capabilities, in its own process group, the command
    // itself leading a session of its own inside the sandbox (as runc starts every exec). The process's
    // exit status is the command's (a command killed by a signal shows as a crash).
    void prepare(QProcess &process, const QStringList &argv, const QString &cwd, const EnvList &env) const;
    // Kills everything inside (the namespace's init, so every process in it dies too).
    void kill();
    // The namespace's PID 1 as this host sees it (0 before start()).
    qint64 initPid() const { return m_initPid; }
    // Sends `signal` to every process in the sandbox's PID namespace, the init included (SIGSTOP
    // and SIGCONT freeze and thaw the whole sandbox, like a cgroup freeze).
    void signalAll(int signal) const;

    // Can sandboxes be joined on this machine (nsenter, setpriv, setsid)? Empty when they can, else why.
    static QString probe(const QString &bubblewrap);

Q_SIGNALS:
    // The sandbox's command ended without kill().
    void ended(int exitCode, QProcess::ExitStatus status);

private:
    QString m_bubblewrap;
    SandboxSpec m_spec;
    QProcess *m_process = nullptr;
    qint64 m_initPid = 0; // the namespace's PID 1, as the host sees it
    bool m_joinUserNamespace = false;
    bool m_killed = false;
};

} // namespace PaddockFake
