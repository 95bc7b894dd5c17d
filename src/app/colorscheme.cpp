#include "colorscheme.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDBusArgument>
#include <QDBusError>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QDBusVariant>
#include <QEvent>
#include <QLoggingCategory>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>

#include <utility>

Q_LOGGING_CATEGORY(lcColorScheme, "paddock.app.colorscheme", QtInfoMsg)

namespace {
constexpr auto SettingsKey = "appearance";
constexpr auto PortalService = "org.freedesktop.portal.Desktop";
constexpr auto PortalPath = "/org/freedesktop/portal/desktop";
constexpr auto PortalInterface = "org.freedesktop.portal.Settings";
constexpr auto AppearanceGroup = "org.freedesktop.appearance";
constexpr auto ColorSchemeKey = "color-scheme";

QString choiceName(ColorScheme::Choice choice)
{
    switch (choice) {
    case ColorScheme::Choice::Light:
        return QStringLiteral("light");
    case ColorScheme::Choice::Dark:
        return QStringLiteral("dark");
    case ColorScheme::Choice::FollowSystem:
        break;
    }
    return QStringLiteral("system");
}

ColorScheme::Choice choiceOf(const QString &name)
{
    if (name == QLatin1String("light"))
        return ColorScheme::Choice::Light;
    if (name == QLatin1String("dark"))
        return ColorScheme::Choice::Dark;
    return ColorScheme::Choice::FollowSystem;
}

// The value inside however many variants wrap it (Read wraps it in one more than ReadOne).
QVariant unwrapped(QVariant value)
{
    for (int depth = 0; depth < 4; ++depth) {
        if (value.metaType() == QMetaType::fromType<QDBusVariant>())
            value = qvariant_cast<QDBusVariant>(value).variant();
        else if (value.metaType() == QMetaType::fromType<QDBusArgument>()) {
            // A variant inside a variant can arrive still marshalled.
            QDBusVariant inner;
            qvariant_cast<QDBusArgument>(value) >> inner;
            value = inner.variant();
        } else
            break;
    }
    return value;
}

// The portal's color-scheme: 1 prefers dark; 0 (no preference), 2 (light) and anything else read
// as light.
ColorScheme::Scheme schemeOf(const QVariant &value)
{
    bool ok = false;
    const uint number = unwrapped(value).toUInt(&ok);
    return ok && number == 1 ? ColorScheme::Scheme::Dark : ColorScheme::Scheme::Light;
}
} // namespace

ColorScheme::ColorScheme(QSettings *settings, QObject *parent, const QDBusConnection &bus)
    : QObject(parent)
    , m_settings(settings)
    , m_bus(bus)
{
    if (m_settings)
        m_choice = choiceOf(m_settings->value(QLatin1String(SettingsKey)).toString());
    apply();
    if (!m_bus.isConnected()) {
        noPortal(QStringLiteral("no session bus"));
        return;
    }
    // QtDBus finds the slot's parameter types by name: QDBusVariant must be registered first (in a
    // process that has not used it yet, the connection would fail without an error).
    qRegisterMetaType<QDBusVariant>();
    if (!m_bus.connect(QLatin1String(PortalService), QLatin1String(PortalPath), QLatin1String(PortalInterface),
                       QStringLiteral("SettingChanged"), this, SLOT(onSettingChanged(QString, QString, QDBusVariant))))
        qCInfo(lcColorScheme) << "cannot follow the desktop portal's changes:" << m_bus.lastError().message();
    readPortal(false);
}

ColorScheme::~ColorScheme() = default;

void ColorScheme::readPortal(bool oldMethod)
{
    // ReadOne (version 2 of the interface) returns the value; Read, the older method, wraps it
    // in one more variant.
    QDBusMessage call = QDBusMessage::createMethodCall(QLatin1String(PortalService), QLatin1String(PortalPath),
                                                       QLatin1String(PortalInterface),
                                                       oldMethod ? QStringLiteral("Read") : QStringLiteral("ReadOne"));
    call << QLatin1String(AppearanceGroup) << QLatin1String(ColorSchemeKey);
    auto *watcher = new QDBusPendingCallWatcher(m_bus.asyncCall(call), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [this, watcher, oldMethod] {
        watcher->deleteLater();
        const QDBusPendingReply<QDBusVariant> reply = *watcher;
        if (reply.isError()) {
            const QString name = reply.error().name();
            if (!oldMethod && name == QLatin1String("org.freedesktop.DBus.Error.UnknownMethod")) {
                readPortal(true);
                return;
            }
            noPortal(reply.error().message().isEmpty() ? name : reply.error().message());
            return;
        }
        m_portalAnswered = true;
        const Scheme scheme = schemeOf(reply.argumentAt<0>().variant());
        qCInfo(lcColorScheme) << "the desktop prefers" << (scheme == Scheme::Dark ? "dark" : "light");
        m_known = true;
        setSystem(scheme);
        Q_EMIT systemSchemeKnown();
    });
}

void ColorScheme::noPortal(const QString &why)
{
    // Said once: the portal is asked once, and a portal that appears later is heard through
    // SettingChanged.
    qCInfo(lcColorScheme).noquote()
        << QStringLiteral("no desktop portal color-scheme (%1): following the system reads as light").arg(why);
    m_known = true;
    Q_EMIT systemSchemeKnown();
}

void ColorScheme::onSettingChanged(const QString &group, const QString &key, const QDBusVariant &value)
{
    if (group != QLatin1String(AppearanceGroup) || key != QLatin1String(ColorSchemeKey))
        return;
    m_portalAnswered = true;
    setSystem(schemeOf(value.variant()));
}

void ColorScheme::setSystem(Scheme scheme)
{
    m_system = scheme;
    apply();
}

void ColorScheme::setChoice(Choice choice)
{
    m_choice = choice;
    if (m_settings)
        m_settings->setValue(QLatin1String(SettingsKey), choiceName(choice));
    apply();
}

void ColorScheme::apply()
{
    const Scheme wanted = m_choice == Choice::Dark ? Scheme::Dark
        : m_choice == Choice::Light                ? Scheme::Light
                                                   : m_system;
    if (wanted == m_applied)
        return;
    m_applied = wanted;
    if (wanted == Scheme::Dark) {
        if (!m_changedStyle) {
            m_originalStyle = QApplication::style()->name();
            m_changedStyle = true;
        }
        if (QApplication::style()->name().compare(QLatin1String("fusion"), Qt::CaseInsensitive) != 0)
            QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(darkPalette());
    } else {
        if (m_changedStyle && QApplication::style()->name().compare(m_originalStyle, Qt::CaseInsensitive) != 0) {
            if (QStyle *original = QStyleFactory::create(m_originalStyle))
                QApplication::setStyle(original);
        }
        // A palette with nothing set: the style's (or the platform theme's) own again.
        QApplication::setPalette(QPalette());
    }
    qCDebug(lcColorScheme) << "showing" << (wanted == Scheme::Dark ? "dark" : "light");
    Q_EMIT schemeChanged(wanted);
}

QPalette ColorScheme::darkPalette()
{
    const QColor window(0x2b, 0x2d, 0x30);
    const QColor base(0x1e, 0x1f, 0x22);
    const QColor text(0xe6, 0xe6, 0xe6);
    const QColor disabledText(0x80, 0x80, 0x80);
    const QColor highlight(0x3d, 0x6f, 0xb4);
    QPalette palette;
    palette.setColor(QPalette::Window, window);
    palette.setColor(QPalette::WindowText, text);
    palette.setColor(QPalette::Base, base);
    palette.setColor(QPalette::AlternateBase, QColor(0x26, 0x28, 0x2b));
    palette.setColor(QPalette::ToolTipBase, QColor(0x3a, 0x3d, 0x41));
    palette.setColor(QPalette::ToolTipText, text);
    palette.setColor(QPalette::PlaceholderText, QColor(0x9a, 0x9a, 0x9a));
    palette.setColor(QPalette::Text, text);
    palette.setColor(QPalette::Button, QColor(0x35, 0x37, 0x3b));
    palette.setColor(QPalette::ButtonText, text);
    palette.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    palette.setColor(QPalette::Light, QColor(0x4a, 0x4d, 0x52));
    palette.setColor(QPalette::Midlight, QColor(0x3e, 0x41, 0x45));
    palette.setColor(QPalette::Mid, QColor(0x2f, 0x31, 0x34));
    palette.setColor(QPalette::Dark, QColor(0x1a, 0x1b, 0x1d));
    palette.setColor(QPalette::Shadow, QColor(0x0a, 0x0a, 0x0a));
    palette.setColor(QPalette::Highlight, highlight);
    palette.setColor(QPalette::HighlightedText, QColor(0xff, 0xff, 0xff));
    palette.setColor(QPalette::Link, QColor(0x7a, 0xb7, 0xff));
    palette.setColor(QPalette::LinkVisited, QColor(0xb3, 0x9d, 0xf5));
    for (const QPalette::ColorRole role :
         {QPalette::WindowText, QPalette::Text, QPalette::ButtonText, QPalette::HighlightedText}) {
        palette.setColor(QPalette::Disabled, role, disabledText);
    }
    palette.setColor(QPalette::Disabled, QPalette::Highlight, QColor(0x4a, 0x4d, 0x52));
    return palette;
}

AppearanceMenu::AppearanceMenu(ColorScheme *scheme, QWidget *parent)
    : QMenu(parent)
    , m_scheme(scheme)
    , m_group(new QActionGroup(this))
{
    setObjectName(QStringLiteral("menuAppearance"));
    const std::pair<ColorScheme::Choice, const char *> choices[] = {
        {ColorScheme::Choice::FollowSystem, "appearanceSystem"},
        {ColorScheme::Choice::Light, "appearanceLight"},
        {ColorScheme::Choice::Dark, "appearanceDark"},
    };
    for (const auto &[choice, name] : choices) {
        auto *action = new QAction(m_group);
        action->setObjectName(QLatin1String(name));
        action->setCheckable(true);
        action->setData(QVariant::fromValue(choice));
        addAction(action);
    }
    connect(m_group, &QActionGroup::triggered, this,
            [this](QAction *action) { m_scheme->setChoice(action->data().value<ColorScheme::Choice>()); });
    retranslate();
    check();
}

void AppearanceMenu::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QMenu::changeEvent(event);
}

void AppearanceMenu::retranslate()
{
    setTitle(tr("&Appearance"));
    const QList<QAction *> actions = m_group->actions();
    actions.at(0)->setText(tr("Follow &System"));
    actions.at(1)->setText(tr("&Light"));
    actions.at(2)->setText(tr("&Dark"));
}

void AppearanceMenu::check()
{
    for (QAction *action : m_group->actions())
        action->setChecked(action->data().value<ColorScheme::Choice>() == m_scheme->choice());
}

namespace Tones {
bool isDark(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightness() < 128;
}

bool isDark()
{
    return isDark(QGuiApplication::palette());
}

QColor error(const QPalette &palette)
{
    return isDark(palette) ? QColor(0xf8, 0x71, 0x71) : QColor(0xb9, 0x1c, 0x1c);
}

QColor error()
{
    return error(QGuiApplication::palette());
}

QColor warning(const QPalette &palette)
{
    return isDark(palette) ? QColor(0xfb, 0xbf, 0x24) : QColor(0xb4, 0x53, 0x09);
}

QColor warning()
{
    return warning(QGuiApplication::palette());
}

QColor dim()
{
    return isDark() ? QColor(0x9a, 0x9a, 0x9a) : QColor(0x8a, 0x8a, 0x8a);
}

QColor errorBackground()
{
    return isDark() ? QColor(0x5c, 0x1f, 0x1f) : QColor(0xfe, 0xe2, 0xe2);
}

QString css(const QColor &color)
{
    return color.name(QColor::HexRgb);
}
} // namespace Tones
