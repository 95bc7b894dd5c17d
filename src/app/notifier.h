#pragma once

#include "notificationpolicy.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QStringList>
#include <QSystemTrayIcon>

#include <functional>

class QDBusPendingCallWatcher;

// How a notification reaches the desktop: the notification service on the session bus
// (org.freedesktop.Notifications over QtDBus), else a tray icon's balloon
// (QSystemTrayIcon::showMessage) where a system tray is available, else nothing. Each degraded
// case is said once (degraded(), and paddock.app.notify), never per notification.
//
// Over D-Bus: GetCapabilities first (asynchronous, so a service that is activated on demand
// starts); Notify with app_name "Paddock", the application's icon, the "desktop-entry" and
// "urgency" hints, the action ["default", "Show"] where the server has the "actions"
// capability, and replaces_id for a group's notification still shown (updated in place instead
// of stacking). ActionInvoked on one of ours is activated(); NotificationClosed is closed(). A
// service that appears later (a notification daemon started after Paddock) is used from then on.
class Notifier final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(Notifier)

public:
    enum class Transport {
        Probing, // asking the service for its capabilities: notifications wait
        DBus,
        Tray,
        None,
    };
    Q_ENUM(Transport)
    static constexpr auto Service = "org.freedesktop.Notifications";
    static constexpr auto Path = "/org/freedesktop/Notifications";
    static constexpr auto Interface = "org.freedesktop.Notifications";
    static constexpr auto DesktopEntry = "io.github.paddock_console.Paddock";

    // The tray icon to show a balloon at (made visible for it), when the fallback needs one; null
    // where there is none.
    using TrayProvider = std::function<QSystemTrayIcon *()>;

    explicit Notifier(QObject *parent = nullptr);
    ~Notifier() override;

    void setTrayProvider(TrayProvider provider) { m_trayProvider = std::move(provider); }
    // Looks for the service on the session bus (once; it is watched for after that).
    void start();
    Transport transport() const { return m_transport; }
    QStringList capabilities() const { return m_capabilities; }
    // What was said about a degraded path (empty while the service is used).
    QString degradedText() const { return m_degradedText; }

    void notify(const Notification &notification);

Q_SIGNALS:
    // The user clicked a notification (or its Show action).
    void activated(const QString &profileId, const QStringList &workspaceIds);
    // A group's notification is no longer shown.
    void closed(const QString &group);
    // Said once per degraded path: no session bus, no service, no tray.
    void degraded(const QString &message);
    void transportChanged(Notifier::Transport transport);

private Q_SLOTS:
    void onActionInvoked(uint id, const QString &actionKey);
    void onNotificationClosed(uint id, uint reason);

private:
    enum class Lack {
        Bus,
        Service,
    };
    void probe();
    void degrade(Lack lack, const QString &why);
    void setTransport(Transport transport);
    void sendDBus(const Notification &notification);
    void sendTray(const Notification &notification);

    TrayProvider m_trayProvider;
    Transport m_transport = Transport::Probing;
    bool m_started = false;
    bool m_probing = false;
    QStringList m_capabilities;
    QList<Notification> m_waiting; // while probing
    QHash<QString, uint> m_idOfGroup; // the server's id of each group's notification
    QHash<QString, int> m_sending; // groups whose Notify calls have not all answered yet
    QHash<QString, Notification> m_held; // each such group's latest update, sent once it has
    QHash<uint, Notification> m_byId;
    QSet<QString> m_said; // degraded messages said
    QString m_degradedText;
    QPointer<QSystemTrayIcon> m_tray; // the icon whose messageClicked is connected
    Notification m_lastTray; // the balloon shown last (messageClicked does not say which)
};
