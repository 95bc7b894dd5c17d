#pragma once

#include <QObject>
#include <QPointer>
#include <QSystemTrayIcon>
#include <QTimer>

class ExpiryWatch;
class MainWindow;
class QAction;
class QMenu;
class QSettings;

// The optional tray icon (View > Show in System Tray, off by default, remembered): its tooltip
// and menu count the running workspaces and those expiring soon (read from ExpiryWatch, at most
// once a second while the icon shows), with Show/Hide, Pause Idle… (the window's own, which asks
// first) and Quit (the window's File > Quit, which asks about open workspaces as it does).
// View > Close Window Hides to Tray is offered only while the icon shows on a desktop with a
// system tray; otherwise closing the window quits, as without a tray. Where there is no system
// tray both say why in their tooltips and cannot be chosen.
class TrayController final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TrayController)

public:
    TrayController(MainWindow *window, ExpiryWatch *counts, QSettings *settings, QObject *parent = nullptr);
    ~TrayController() override;

    QAction *showInTrayAction() const { return m_showInTray; }
    QAction *closeHidesAction() const { return m_closeHides; }
    // The icon, made on first use (null where no system tray is available).
    QSystemTrayIcon *icon() const { return m_icon; }
    // For a notification's balloon when there is no notification service: the icon, shown.
    QSystemTrayIcon *iconForMessages();
    // Whether closing the window hides it (the user chose it, the icon shows, a tray exists).
    bool closeHidesWindow() const;
    static bool isAvailable();
    // The tooltip's text now ("Paddock: 12 running, 3 expiring soon").
    QString summary() const;
    void updateCounts();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void apply();
    void retranslate();
    void ensureIcon();
    void toggleWindow();

    MainWindow *m_window;
    QPointer<ExpiryWatch> m_counts;
    QSettings *m_settings;
    QAction *m_showInTray;
    QAction *m_closeHides;
    QPointer<QSystemTrayIcon> m_icon;
    QMenu *m_menu = nullptr;
    QAction *m_countsAction = nullptr;
    QAction *m_showHide = nullptr;
    QAction *m_pauseIdle = nullptr;
    QAction *m_quit = nullptr;
    QTimer m_countsTimer;
};
