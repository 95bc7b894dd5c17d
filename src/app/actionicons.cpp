#include "actionicons.h"

#include <QAction>
#include <QDockWidget>
#include <QFile>
#include <QWidget>

namespace {
// Object name of an action (or of a dock, for its toggle) -> freedesktop icon name.
struct Entry
{
    const char *objectName;
    const char *iconName;
};
constexpr Entry Entries[] = {
    {"actionProfiles", "preferences-system"},
    {"actionQuit", "application-exit"},
    {"actionOpen", "document-open"},
    {"actionClose", "document-close"},
    {"actionPause", "media-playback-pause"},
    {"actionResume", "media-playback-start"},
    {"actionRenew", "appointment-soon"},
    {"actionKill", "edit-delete"},
    {"actionRefresh", "view-refresh"},
    {"actionShowLog", "text-x-generic"},
    {"actionShowContainerLog", "text-x-generic"},
    {"actionRetryBootstrap", "view-refresh"},
    {"actionCopyId", "edit-copy"},
    {"actionRunCommand", "system-run"},
    {"actionOpenTerminal", "utilities-terminal"},
    {"actionSelectIdle", "edit-select-all"},
    {"actionPauseIdle", "media-playback-pause"},
    {"actionSelectAllMatching", "edit-select-all"},
    {"actionGroupByIsolation", "view-list-tree"},
    {"actionAbout", "help-about"},
    {"logDock", "text-x-generic"},
    {"inspectorDock", "document-properties"},
};

const char *iconNameFor(const QString &objectName)
{
    for (const Entry &entry : Entries) {
        if (objectName == QLatin1String(entry.objectName))
            return entry.iconName;
    }
    return nullptr;
}
} // namespace

namespace ActionIcons {
QIcon icon(const QString &name)
{
    QIcon embedded;
    for (const int size : {16, 24, 32, 48}) {
        const QString file = QStringLiteral(":/paddock/actions/%1/%2.png").arg(size).arg(name);
        if (QFile::exists(file))
            embedded.addFile(file, QSize(size, size));
    }
    return QIcon::fromTheme(name, embedded);
}

void applyTo(QWidget *root)
{
    const QList<QAction *> actions = root->findChildren<QAction *>();
    for (QAction *action : actions) {
        if (const char *name = iconNameFor(action->objectName()))
            action->setIcon(icon(QLatin1String(name)));
    }
    const QList<QDockWidget *> docks = root->findChildren<QDockWidget *>();
    for (QDockWidget *dock : docks) {
        if (const char *name = iconNameFor(dock->objectName()))
            dock->toggleViewAction()->setIcon(icon(QLatin1String(name)));
    }
}
} // namespace ActionIcons
