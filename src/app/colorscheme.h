#pragma once

#include <QColor>
#include <QDBusConnection>
#include <QDBusVariant>
#include <QMenu>
#include <QObject>
#include <QPalette>

class QActionGroup;
class QSettings;

// Light or dark for the whole application: the system's preference (the XDG desktop portal's
// org.freedesktop.appearance color-scheme, since Qt 6.4 has no API for it), followed live, or the
// user's choice in View > Appearance, kept in the settings. Dark is the Fusion style with a dark
// palette; light is the style and palette the application started with. Without a portal (no
// session bus, no portal service, no such setting) the system's preference reads as light, said
// once in the log at info level, never in a dialog.
class ColorScheme final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ColorScheme)

public:
    // What the user chose in View > Appearance.
    enum class Choice { FollowSystem, Light, Dark };
    Q_ENUM(Choice)
    // What is shown.
    enum class Scheme { Light, Dark };
    Q_ENUM(Scheme)

    // Reads the choice from `settings` (may be null: follow the system, remember nothing) and
    // asks the portal on `bus` (the session bus unless told) for the system's preference.
    explicit ColorScheme(QSettings *settings, QObject *parent = nullptr,
                         const QDBusConnection &bus = QDBusConnection::sessionBus());
    ~ColorScheme() override;

    Choice choice() const { return m_choice; }
    // Applies at once and remembers it in the settings.
    void setChoice(Choice choice);
    // The system's preference as last read (Light while unknown or without a portal).
    Scheme systemScheme() const { return m_system; }
    // Whether the portal answered (false while asking and without one).
    bool portalAnswered() const { return m_portalAnswered; }
    Scheme scheme() const { return m_applied; }

    // The palette used for Dark.
    static QPalette darkPalette();

Q_SIGNALS:
    // What is shown changed (after the style and palette were set).
    void schemeChanged(ColorScheme::Scheme scheme);
    // The portal's answer or its absence is known (once), for tests and the log.
    void systemSchemeKnown();

public Q_SLOTS:
    // org.freedesktop.portal.Settings.SettingChanged (public: QtDBus connects only public slots).
    void onSettingChanged(const QString &group, const QString &key, const QDBusVariant &value);

private:
    void readPortal(bool oldMethod);
    void setSystem(Scheme scheme);
    void noPortal(const QString &why);
    void apply();

    QSettings *m_settings;
    QDBusConnection m_bus;
    Choice m_choice = Choice::FollowSystem;
    Scheme m_system = Scheme::Light;
    Scheme m_applied = Scheme::Light;
    bool m_portalAnswered = false;
    bool m_known = false;
    // The style and palette before the first switch to dark, to go back to.
    QString m_originalStyle;
    bool m_changedStyle = false;
};

// View > Appearance: Follow System, Light, Dark, checked as `scheme` says; follows language
// switches.
class AppearanceMenu final : public QMenu
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AppearanceMenu)

public:
    explicit AppearanceMenu(ColorScheme *scheme, QWidget *parent = nullptr);

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslate();
    void check();

    ColorScheme *m_scheme;
    QActionGroup *m_group;
};

// Colours for text that must stand out, chosen to read on the palette's window (the application's
// unless told): darker tones on light, lighter ones on dark.
namespace Tones {
bool isDark(const QPalette &palette);
bool isDark();
QColor error(const QPalette &palette);
QColor error();
QColor warning(const QPalette &palette);
QColor warning();
// Grey for what is not live or not known.
QColor dim();
// A background that marks a row or a match (a light red, or a dark one).
QColor errorBackground();
// The "#rrggbb" of a colour, for style sheets and rich text.
QString css(const QColor &color);
} // namespace Tones
