#include "storagecheck.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <QTemporaryFile>

#include <optional>

namespace {

// Why nothing can be written in `folder` (created first, as the console would); nothing if it can.
std::optional<QString> unwritableFolder(const QString &folder)
{
    QDir().mkpath(folder); // the probe below says why when this fails
    QTemporaryFile probe(folder + QStringLiteral("/.paddock-write-test-XXXXXX"));
    if (probe.open())
        return std::nullopt; // removed with the probe
    return probe.errorString();
}

} // namespace

QString StorageProblem::text() const
{
    switch (kind) {
    case Kind::Settings:
        return tr("Settings cannot be saved: %1 cannot be written (%2). Changes last until Paddock quits.")
            .arg(path, reason);
    case Kind::Logs:
        return tr("Workspaces cannot be opened: their bootstrap logs go to %1, which cannot be written (%2).")
            .arg(path, reason);
    }
    return {};
}

QList<StorageProblem> checkStorage(const QSettings &settings, const QString &logRoot)
{
    QList<StorageProblem> problems;
    const QFileInfo settingsFile(settings.fileName());
    if (auto reason = unwritableFolder(settingsFile.absolutePath())) {
        problems.append({StorageProblem::Kind::Settings, settingsFile.absolutePath(), *reason});
    } else if (settingsFile.exists()) {
        // ReadWrite neither truncates nor changes the file.
        QFile file(settingsFile.absoluteFilePath());
        if (!file.open(QIODevice::ReadWrite))
            problems.append({StorageProblem::Kind::Settings, file.fileName(), file.errorString()});
    }
    if (auto reason = unwritableFolder(logRoot))
        problems.append({StorageProblem::Kind::Logs, logRoot, *reason});
    return problems;
}
