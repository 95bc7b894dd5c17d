#include "bootstraplog.h"

#include "logging.h"
#include "tr.h"

#include <QCoroTask>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

namespace Paddock {

namespace {

constexpr struct
{
    LogLine::Kind kind;
    const char *tag;
} Tags[] = {
    {LogLine::Kind::Stdout, "out"},
    {LogLine::Kind::Stderr, "err"},
    {LogLine::Kind::Command, "cmd"},
    {LogLine::Kind::Status, "sys"},
};

QString errnoText(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

} // namespace

QByteArray LogLine::tag(Kind kind)
{
    for (const auto &entry : Tags) {
        if (entry.kind == kind)
            return QByteArray(entry.tag);
    }
    return QByteArrayLiteral("sys");
}

QByteArray LogLine::serialize() const
{
    return time.toUTC().toString(Qt::ISODateWithMs).toLatin1() + ' ' + tag(kind) + ' ' + text;
}

LogLine LogLine::parse(const QByteArray &line)
{
    LogLine parsed;
    const qsizetype firstSpace = line.indexOf(' ');
    const qsizetype secondSpace = firstSpace < 0 ? -1 : line.indexOf(' ', firstSpace + 1);
    if (secondSpace < 0) {
        parsed.text = line;
        return parsed;
    }
    parsed.time = QDateTime::fromString(QString::fromLatin1(line.left(firstSpace)), Qt::ISODateWithMs);
    const QByteArray tagText = line.mid(firstSpace + 1, secondSpace - firstSpace - 1);
    for (const auto &entry : Tags) {
        if (tagText == entry.tag)
            parsed.kind = entry.kind;
    }
    parsed.text = line.mid(secondSpace + 1);
    return parsed;
}

BootstrapLogStore::BootstrapLogStore(QString root, QObject *parent)
    : QObject(parent)
    , m_root(root.isEmpty() ? defaultRoot() : std::move(root))
{
}

BootstrapLogStore::~BootstrapLogStore()
{
    for (const int fd : std::as_const(m_files))
        ::close(fd);
}

QString BootstrapLogStore::defaultRoot()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + QStringLiteral("/paddock/logs");
}

QString BootstrapLogStore::path(const QString &instanceKey, const QString &workspaceId) const
{
    return m_root + u'/' + instanceKey + u'/' + workspaceId + QStringLiteral(".log");
}

Result<> BootstrapLogStore::open(const QString &instanceKey, const QString &workspaceId)
{
    const QString file = path(instanceKey, workspaceId);
    if (m_files.contains(file))
        return {};
    const QString dir = m_root + u'/' + instanceKey;
    if (!QDir().mkpath(dir))
        return fail(Error::io(Tr::tr("cannot create the bootstrap log folder %1").arg(dir)));
    const int fd = ::open(QFile::encodeName(file).constData(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return fail(Error::io(Tr::tr("cannot open the bootstrap log %1: %2").arg(file, errnoText(errno))));
    m_files.insert(file, fd);
    return {};
}

Result<> BootstrapLogStore::append(const QString &instanceKey, const QString &workspaceId, LogLine::Kind kind,
                                   const QByteArray &text)
{
    const QString file = path(instanceKey, workspaceId);
    auto it = m_files.constFind(file);
    if (it == m_files.cend()) {
        if (auto opened = open(instanceKey, workspaceId); !opened)
            return opened;
        it = m_files.constFind(file);
    }

    LogLine line{QDateTime::currentDateTimeUtc(), kind, text};
    if (const qsizetype newline = line.text.indexOf('\n'); newline >= 0)
        line.text.truncate(newline);
    const QByteArray bytes = line.serialize() + '\n';

    // One write(2) per line: the kernel owns the bytes once it returns, whatever happens to us.
    qsizetype written = 0;
    while (written < bytes.size()) {
        const ssize_t n = ::write(*it, bytes.constData() + written, static_cast<size_t>(bytes.size() - written));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            const QString reason = errnoText(errno);
            qCWarning(lcBootstrapLog) << "cannot append to" << file << reason;
            return fail(Error::io(Tr::tr("cannot append to the bootstrap log %1: %2").arg(file, reason)));
        }
        written += n;
    }
    Q_EMIT lineAppended(instanceKey, workspaceId, line);
    return {};
}

void BootstrapLogStore::close(const QString &instanceKey, const QString &workspaceId)
{
    const auto it = m_files.constFind(path(instanceKey, workspaceId));
    if (it == m_files.cend())
        return;
    ::close(*it);
    m_files.erase(it);
}

QString BootstrapLogStore::folder(const QString &instanceKey) const
{
    return m_root + u'/' + instanceKey;
}

Result<> BootstrapLogStore::recordOutcome(const QString &instanceKey, const QString &workspaceId, bool succeeded,
                                          const QString &message)
{
    const QString file = folder(instanceKey) + u'/' + workspaceId + QStringLiteral(".failed");
    if (succeeded) {
        if (QFile::exists(file) && !QFile::remove(file))
            return fail(Error::io(Tr::tr("cannot remove %1").arg(file)));
        return {};
    }
    if (!QDir().mkpath(folder(instanceKey)))
        return fail(Error::io(Tr::tr("cannot create the bootstrap log folder %1").arg(folder(instanceKey))));
    QSaveFile out(file);
    if (!out.open(QIODevice::WriteOnly) || out.write(message.toUtf8()) < 0 || !out.commit())
        return fail(Error::io(Tr::tr("cannot write %1: %2").arg(file, out.errorString())));
    return {};
}

QString BootstrapLogStore::failureOf(const QHash<QString, Failure> &failures, const QString &workspaceId,
                                     const QDateTime &sandboxCreatedAt)
{
    const auto failure = failures.constFind(workspaceId);
    if (failure == failures.cend() || (sandboxCreatedAt.isValid() && failure->at < sandboxCreatedAt.addSecs(-120)))
        return {};
    return failure->message;
}

QHash<QString, BootstrapLogStore::Failure> BootstrapLogStore::readFailures(const QString &folder)
{
    QHash<QString, Failure> failures;
    const QDir dir(folder);
    const QStringList names = dir.entryList({QStringLiteral("*.failed")}, QDir::Files);
    for (const QString &name : names) {
        QFile file(dir.filePath(name));
        if (!file.open(QIODevice::ReadOnly))
            continue;
        failures.insert(name.chopped(7),
                        Failure{QString::fromUtf8(file.read(64 * 1024)), QFileInfo(file).lastModified().toUTC()});
    }
    return failures;
}

Result<QList<LogLine>> BootstrapLogStore::read(const QString &instanceKey, const QString &workspaceId) const
{
    QFile file(path(instanceKey, workspaceId));
    if (!file.exists())
        return fail(Error::notFound(Tr::tr("there is no bootstrap log for workspace %1").arg(workspaceId)));
    if (!file.open(QIODevice::ReadOnly))
        return fail(Error::io(Tr::tr("cannot read %1: %2").arg(file.fileName(), file.errorString())));
    QList<LogLine> lines;
    while (!file.atEnd()) {
        QByteArray raw = file.readLine();
        if (raw.endsWith('\n'))
            raw.chop(1);
        lines.append(LogLine::parse(raw));
    }
    return lines;
}

} // namespace Paddock
