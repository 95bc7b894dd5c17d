#include "notifier.h"

#include <QApplication>
#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QDBusServiceWatcher>
#include <QLoggingCategory>
#include <QSystemTrayIcon>

Q_LOGGING_CATEGORY(lcNotify, "paddock.app.notify", QtInfoMsg)

namespace {

QString text(const char *ascii)
{
    return QString::fromLatin1(ascii);
}

} // namespace

Notifier::Notifier(QObject *parent)
    : QObject(parent)
{
}

Notifier::~Notifier() = default;

void Notifier::start()
{
    if (std::exchange(m_started, true))
        return;
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (!bus.isConnected()) {
        degrade(Lack::Bus, bus.lastError().message());
        return;
    }
    // Whatever server answers under the name: its signals about our notifications.
    // clang-format off
    bus.connect(text(Service), text(Path), text(Interface), QStringLiteral("ActionInvoked"), this,
                SLOT(onActionInvoked(uint,QString)));
    bus.connect(text(Service), text(Path), text(Interface), QStringLiteral("NotificationClosed"), this,
                SLOT(onNotificationClosed(uint,uint)));
    // clang-format on
    // A notification daemon started later is used from then on.
    auto *watcher = new QDBusServiceWatcher(text(Service), bus, QDBusServiceWatcher::WatchForRegistration, this);
    connect(watcher, &QDBusServiceWatcher::serviceRegistered, this, [this] {
        if (m_transport != Transport::DBus)
            probe();
    });
    probe();
}

void Notifier::probe()
{
    if (m_probing)
        return;
    m_probing = true;
    QDBusMessage call =
        QDBusMessage::createMethodCall(text(Service), text(Path), text(Interface), QStringLiteral("GetCapabilities"));
    auto *watcher = new QDBusPendingCallWatcher(QDBusConnection::sessionBus().asyncCall(call, 10000), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [this](QDBusPendingCallWatcher *finished) {
        finished->deleteLater();
        m_probing = false;
        const QDBusPendingReply<QStringList> reply = *finished;
        if (reply.isError()) {
            degrade(Lack::Service, reply.error().message());
            return;
        }
        m_capabilities = reply.value();
        qCInfo(lcNotify).noquote() << "notifications through" << Service
                                   << "capabilities:" << m_capabilities.join(QStringLiteral(", "));
        m_degradedText.clear();
        setTransport(Transport::DBus);
        const QList<Notification> waiting = std::exchange(m_waiting, {});
        for (const Notification &notification : waiting)
            notify(notification);
    });
}

void Notifier::setTransport(Transport transport)
{
    if (std::exchange(m_transport, transport) != transport)
        Q_EMIT transportChanged(transport);
}

void Notifier::degrade(Lack lack, const QString &why)
{
    // The tray icon is asked for (and shown) only when a balloon is to be shown.
    const bool tray = m_trayProvider && QSystemTrayIcon::isSystemTrayAvailable();
    setTransport(tray ? Transport::Tray : Transport::None);
    QString message;
    if (lack == Lack::Bus) {
        message = tray ? tr("No D-Bus session bus: notifications show at Paddock's tray icon instead.")
                       : tr("No D-Bus session bus and no system tray: Paddock cannot show notifications.");
    } else {
        message = tray ? tr("No notification service on the session bus (org.freedesktop.Notifications): "
                            "notifications show at Paddock's tray icon instead.")
                       : tr("No notification service on the session bus (org.freedesktop.Notifications) and no "
                            "system tray: Paddock cannot show notifications.");
    }
    m_degradedText = message;
    // What waited goes the way there is.
    const QList<Notification> waiting = std::exchange(m_waiting, {});
    if (!m_said.contains(message)) {
        m_said.insert(message);
        // One line, without the stream's spaces around the reason and before the semicolon.
        qCInfo(lcNotify).noquote() << QStringLiteral("%1%2; %3")
                                          .arg(lack == Lack::Bus ? QStringLiteral("no D-Bus session bus")
                                                                 : QStringLiteral("no notification service"),
                                               why.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(why),
                                               tray ? QStringLiteral("notifications show at the tray icon")
                                                    : QStringLiteral("and no system tray: no notifications"));
        Q_EMIT degraded(message);
    }
    for (const Notification &notification : waiting)
        notify(notification);
}

void Notifier::notify(const Notification &notification)
{
    if (!m_started)
        start();
    switch (m_transport) {
    case Transport::Probing:
        m_waiting.append(notification);
        return;
    case Transport::DBus:
        sendDBus(notification);
        return;
    case Transport::Tray:
        sendTray(notification);
        return;
    case Transport::None:
        qCDebug(lcNotify).noquote() << "not shown:" << notification.summary;
        return;
    }
}

void Notifier::sendDBus(const Notification &notification)
{
    // An update of a group whose notification's id is not back yet waits for it (the latest
    // update only): sent at once, it would replace nothing and show a second notification.
    if (notification.replaces && m_sending.contains(notification.group)) {
        m_held.insert(notification.group, notification);
        return;
    }
    ++m_sending[notification.group];
    const uint replaces = notification.replaces ? m_idOfGroup.value(notification.group) : 0;
    QStringList actions;
    if (m_capabilities.contains(QLatin1String("actions")))
        actions << QStringLiteral("default") << tr("Show");
    QVariantMap hints;
    hints.insert(QStringLiteral("desktop-entry"), text(DesktopEntry));
    hints.insert(QStringLiteral("urgency"), QVariant::fromValue(uchar(notification.critical ? 2 : 1)));
    // A server that reads markup in bodies gets ours escaped (ids may hold '<' or '&').
    const QString body =
        m_capabilities.contains(QLatin1String("body-markup")) ? notification.body.toHtmlEscaped() : notification.body;
    QDBusMessage call =
        QDBusMessage::createMethodCall(text(Service), text(Path), text(Interface), QStringLiteral("Notify"));
    call << QStringLiteral("Paddock") << replaces << text(DesktopEntry) << notification.summary << body << actions
         << hints << int(-1);
    auto *watcher = new QDBusPendingCallWatcher(QDBusConnection::sessionBus().asyncCall(call, 10000), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [this, notification](QDBusPendingCallWatcher *finished) {
        finished->deleteLater();
        if (--m_sending[notification.group] <= 0)
            m_sending.remove(notification.group);
        const QDBusPendingReply<uint> reply = *finished;
        if (reply.isError()) {
            // The service went away (a daemon that crashed): the fallback from now on, said once,
            // with the latest of the group's notifications.
            const Notification latest =
                m_held.contains(notification.group) ? m_held.take(notification.group) : notification;
            degrade(Lack::Service, reply.error().message());
            notify(latest);
            return;
        }
        const uint id = reply.value();
        if (const uint before = m_idOfGroup.value(notification.group); before != 0 && before != id)
            m_byId.remove(before);
        m_idOfGroup.insert(notification.group, id);
        m_byId.insert(id, notification);
        if (!m_sending.contains(notification.group) && m_held.contains(notification.group))
            notify(m_held.take(notification.group)); // now with the id it replaces
    });
}

void Notifier::sendTray(const Notification &notification)
{
    QSystemTrayIcon *tray = m_trayProvider ? m_trayProvider() : nullptr;
    if (!tray) {
        setTransport(Transport::None);
        return;
    }
    if (tray != m_tray) {
        m_tray = tray;
        connect(tray, &QSystemTrayIcon::messageClicked, this, [this] {
            if (!m_lastTray.workspaceIds.isEmpty())
                Q_EMIT activated(m_lastTray.profileId, m_lastTray.workspaceIds);
        });
    }
    m_lastTray = notification;
    tray->showMessage(notification.summary, notification.body,
                      notification.critical ? QSystemTrayIcon::Warning : QSystemTrayIcon::Information, 10000);
}

void Notifier::onActionInvoked(uint id, const QString &actionKey)
{
    Q_UNUSED(actionKey) // the default action or Show: both show the workspaces
    const auto it = m_byId.constFind(id);
    if (it == m_byId.cend())
        return; // another application's
    Q_EMIT activated(it->profileId, it->workspaceIds);
}

void Notifier::onNotificationClosed(uint id, uint reason)
{
    Q_UNUSED(reason)
    const auto it = m_byId.constFind(id);
    if (it == m_byId.cend())
        return;
    const QString group = it->group;
    m_byId.erase(it);
    if (m_idOfGroup.value(group) == id)
        m_idOfGroup.remove(group);
    Q_EMIT closed(group);
}
