#pragma once

#include "result.h"

#include <QByteArray>
#include <QDateTime>
#include <QHash>
#include <QObject>
#include <QString>

namespace Paddock {

// One line of a bootstrap log.
struct LogLine
{
    enum class Kind {
        Stdout,
        Stderr,
        Command, // a bootstrap command about to run
        Status, // Paddock's own account of the steps
    };

    QDateTime time;
    Kind kind = Kind::Status;
    QByteArray text;

    QByteArray serialize() const; // "<UTC time> <tag> <text>" without the newline
    static LogLine parse(const QByteArray &line);
    static QByteArray tag(Kind kind);
};

// Keeps every workspace's bootstrap log as an append-only file,
// <root>/<backend instance>/<workspace id>.log. Each line is handed to the kernel with one
// write(2) as soon as it arrives, so a crash or `kill -9` of this process loses nothing that
// was received. Lines are also announced live through lineAppended().
class BootstrapLogStore final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(BootstrapLogStore)

public:
    // root: empty means the XDG data location, <XDG_DATA_HOME>/paddock/logs.
    explicit BootstrapLogStore(QString root = {}, QObject *parent = nullptr);
    ~BootstrapLogStore() override;

    static QString defaultRoot();
    QString root() const { return m_root; }
    QString path(const QString &instanceKey, const QString &workspaceId) const;

    // Opens (creating if needed) the log of one workspace for appending.
    Result<> open(const QString &instanceKey, const QString &workspaceId);
    // Appends one line; the text must not contain a newline (it is cut there if it does).
    Result<> append(const QString &instanceKey, const QString &workspaceId, LogLine::Kind kind, const QByteArray &text);
    void close(const QString &instanceKey, const QString &workspaceId);

    Result<QList<LogLine>> read(const QString &instanceKey, const QString &workspaceId) const;

    // The outcome of a workspace's last provisioning, next to its log: a failure is kept as
    // <workspace id>.failed (its message, UTF-8, written atomically) until a provisioning of that
    // workspace succeeds, so the console can tell a workspace whose bootstrap failed (and was
    // paused) from one that was just paused, whichever process opened it.
    Result<> recordOutcome(const QString &instanceKey, const QString &workspaceId, bool succeeded,
                           const QString &message = {});
    // The folder of one backend instance's logs and outcomes.
    QString folder(const QString &instanceKey) const;
    // Every failure kept in such a folder: workspace id -> why and when. Reads the disk: call it
    // on a worker thread.
    struct Failure
    {
        QString message;
        QDateTime at; // UTC: when it was recorded
        bool operator==(const Failure &) const = default;
    };
    static QHash<QString, Failure> readFailures(const QString &folder);
    // The failure of this sandbox among them, or an empty string: one recorded before the
    // sandbox was made (AgentScope made the workspace again since) is not its own. Two minutes
    // allow for the server's clock and ours to differ.
    static QString failureOf(const QHash<QString, Failure> &failures, const QString &workspaceId,
                             const QDateTime &sandboxCreatedAt);

Q_SIGNALS:
    void lineAppended(const QString &instanceKey, const QString &workspaceId, const Paddock::LogLine &line);

private:
    QString m_root;
    QHash<QString, int> m_files; // path -> file descriptor
};

} // namespace Paddock
