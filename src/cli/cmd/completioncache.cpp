#include "completioncache.h"

#include "command.h"

#include "backendregistry.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>

namespace Paddock::Ctl {

namespace {

QString cacheFolder()
{
    const QString cache = QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation);
    return cache.isEmpty() ? QString() : cache + QStringLiteral("/paddock/completion");
}

} // namespace

QString idCachePath(const Profile &profile)
{
    const BackendFactory *factory = BackendRegistry::instance().find(profile.kind);
    const QString folder = cacheFolder();
    if (!factory || folder.isEmpty())
        return QString();
    // Where the workspaces are, as paddockctl's own options say it: two basedirs, two servers,
    // two namespaces are two files. The key is not among them.
    QStringList where{factory->id};
    if (factory->toCommandLine)
        where += factory->toCommandLine(profile);
    const QByteArray hash =
        QCryptographicHash::hash(where.join(QChar(u'\0')).toUtf8(), QCryptographicHash::Sha256).toHex().left(32);
    return folder + u'/' + factory->id + u'-' + QString::fromLatin1(hash);
}

void rememberWorkspaceIds(const Session &s, const QList<SandboxInfo> &listed)
{
    if (!s.session)
        return;
    const QString path = idCachePath(s.session->profile());
    if (path.isEmpty())
        return;
    const QString folder = QFileInfo(path).path();
    if (!QDir().mkpath(folder))
        return;
    QFile::setPermissions(folder, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    QByteArray text;
    for (const SandboxInfo &info : listed) {
        // One a line: an id that would break a line (or none) is not offered.
        if (info.workspaceId.isEmpty() || info.workspaceId.contains(u'\n') || info.workspaceId.contains(u'\r'))
            continue;
        text += info.workspaceId.toUtf8() + '\n';
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return;
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    if (file.write(text) != text.size()) {
        file.cancelWriting();
        return;
    }
    file.commit();
}

std::optional<QStringList> cachedWorkspaceIds(const Profile &profile)
{
    const QString path = idCachePath(profile);
    if (path.isEmpty())
        return std::nullopt;
    const QFileInfo info(path);
    if (!info.isFile())
        return std::nullopt;
    // Younger than the lifetime; a time further in the future than a clock's step (a touched file)
    // counts as old.
    const qint64 age = info.lastModified().msecsTo(QDateTime::currentDateTime());
    if (age < -5'000 || age >= std::chrono::milliseconds(IdCacheLifetime).count())
        return std::nullopt;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return std::nullopt;
    QStringList ids;
    for (const QByteArray &line : file.readAll().split('\n')) {
        if (!line.isEmpty())
            ids.append(QString::fromUtf8(line));
    }
    return ids;
}

} // namespace Paddock::Ctl
