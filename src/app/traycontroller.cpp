#include "traycontroller.h"

#include "expirywatch.h"
#include "mainwindow.h"

#include <QAction>
#include <QApplication>
#include <QEvent>
#include <QMenu>
#include <QSettings>
#include <QSystemTrayIcon>

namespace {

constexpr auto ShowKey = "tray/show";
constexpr auto CloseHidesKey = "tray/closeHides";

} // namespace

TrayController::TrayController(MainWindow *window, ExpiryWatch *counts, QSettings *settings, QObject *parent)
    : QObject(parent)
    , m_window(window)
    , m_counts(counts)
    , m_settings(settings)
    , m_showInTray(new QAction(this))
    , m_closeHides(new QAction(this))
{
    m_showInTray->setObjectName(QStringLiteral("actionShowInTray"));
    m_showInTray->setCheckable(true);
    m_closeHides->setObjectName(QStringLiteral("actionCloseHidesToTray"));
    m_closeHides->setCheckable(true);
    if (m_settings) {
        m_showInTray->setChecked(m_settings->value(QLatin1String(ShowKey), false).toBool());
        m_closeHides->setChecked(m_settings->value(QLatin1String(CloseHidesKey), false).toBool());
    }
    connect(m_showInTray, &QAction::toggled, this, [this](bool on) {
        if (m_settings)
            m_settings->setValue(QLatin1String(ShowKey), on);
        apply();
    });
    connect(m_closeHides, &QAction::toggled, this, [this](bool on) {
        if (m_settings)
            m_settings->setValue(QLatin1String(CloseHidesKey), on);
    });
    m_countsTimer.setInterval(std::chrono::seconds(1));
    connect(&m_countsTimer, &QTimer::timeout, this, &TrayController::updateCounts);
    window->addViewActions({m_showInTray, m_closeHides});
    window->setCloseHidesWindow([this] { return closeHidesWindow(); });
    // The texts follow the language.
    window->installEventFilter(this);
    retranslate();
    apply();
}

TrayController::~TrayController()
{
    delete m_icon;
    delete m_menu;
}

bool TrayController::isAvailable()
{
    return QSystemTrayIcon::isSystemTrayAvailable();
}

bool TrayController::closeHidesWindow() const
{
    return m_closeHides->isChecked() && m_showInTray->isChecked() && m_icon && m_icon->isVisible() && isAvailable();
}

void TrayController::ensureIcon()
{
    if (m_icon || !isAvailable())
        return;
    m_icon = new QSystemTrayIcon(QApplication::windowIcon());
    m_icon->setObjectName(QStringLiteral("trayIcon"));
    m_menu = new QMenu;
    m_countsAction = m_menu->addAction(QString());
    m_countsAction->setEnabled(false);
    m_menu->addSeparator();
    m_showHide = m_menu->addAction(QString());
    connect(m_showHide, &QAction::triggered, this, &TrayController::toggleWindow);
    m_pauseIdle = m_menu->addAction(QString());
    connect(m_pauseIdle, &QAction::triggered, this, [this] {
        // The window's own Pause Idle… (it asks for the minutes, then confirms), in view.
        m_window->showNormal();
        m_window->raise();
        m_window->activateWindow();
        if (auto *action = m_window->findChild<QAction *>(QStringLiteral("actionPauseIdle")))
            action->trigger();
    });
    m_menu->addSeparator();
    m_quit = m_menu->addAction(QString());
    connect(m_quit, &QAction::triggered, this, [this] {
        // Asks about the open workspaces as File > Quit does: the question needs the window.
        if (m_window->isHidden())
            m_window->show();
        m_window->requestQuit();
    });
    m_icon->setContextMenu(m_menu);
    connect(m_icon, &QSystemTrayIcon::activated, this, [this](QSystemTrayIcon::ActivationReason reason) {
        if (reason == QSystemTrayIcon::Trigger || reason == QSystemTrayIcon::DoubleClick)
            toggleWindow();
    });
    connect(m_menu, &QMenu::aboutToShow, this, &TrayController::updateCounts);
    retranslate();
}

QSystemTrayIcon *TrayController::iconForMessages()
{
    ensureIcon();
    if (m_icon && !m_icon->isVisible()) {
        m_icon->show();
        updateCounts();
    }
    return m_icon;
}

void TrayController::apply()
{
    const bool available = isAvailable();
    m_showInTray->setEnabled(available);
    m_closeHides->setEnabled(available && m_showInTray->isChecked());
    if (m_showInTray->isChecked() && available) {
        ensureIcon();
        m_icon->show();
        updateCounts();
        m_countsTimer.start();
    } else {
        if (m_icon)
            m_icon->hide();
        m_countsTimer.stop();
        // Hidden with nothing left to bring it back: shown again.
        if (m_window->isHidden())
            m_window->show();
    }
    retranslate();
}

void TrayController::toggleWindow()
{
    if (m_window->isVisible() && !m_window->isMinimized()) {
        m_window->hide();
    } else {
        m_window->showNormal();
        m_window->raise();
        m_window->activateWindow();
    }
    updateCounts();
}

QString TrayController::summary() const
{
    const int running = m_counts ? m_counts->runningCount() : 0;
    const int soon = m_counts ? m_counts->soonCount() : 0;
    return tr("Paddock: %1, %2").arg(tr("%n running", nullptr, running), tr("%n expiring soon", nullptr, soon));
}

void TrayController::updateCounts()
{
    if (!m_icon || !m_icon->isVisible())
        return;
    const QString text = summary();
    if (m_icon->toolTip() != text)
        m_icon->setToolTip(text);
    if (m_countsAction)
        m_countsAction->setText(text);
    if (m_showHide)
        m_showHide->setText(m_window->isVisible() && !m_window->isMinimized() ? tr("&Hide Paddock")
                                                                              : tr("&Show Paddock"));
}

void TrayController::retranslate()
{
    const bool available = isAvailable();
    m_showInTray->setText(tr("Show in System &Tray"));
    m_showInTray->setToolTip(available ? tr("Show Paddock's icon in the system tray, with the counts of running "
                                            "and soon-expiring workspaces")
                                       : tr("No system tray is available on this desktop."));
    m_closeHides->setText(tr("Close Window &Hides to Tray"));
    m_closeHides->setToolTip(!available ? tr("No system tray is available on this desktop.")
                                 : m_showInTray->isChecked()
                                 ? tr("Closing the window leaves Paddock running in the system tray; Quit ends it")
                                 : tr("Available while Paddock shows in the system tray"));
    if (m_pauseIdle)
        m_pauseIdle->setText(tr("&Pause Idle…"));
    if (m_quit)
        m_quit->setText(tr("&Quit"));
    updateCounts();
}

bool TrayController::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_window && event->type() == QEvent::LanguageChange)
        retranslate();
    return QObject::eventFilter(watched, event);
}
