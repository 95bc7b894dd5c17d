// ColorScheme against a fake XDG desktop portal on a private session bus (the test runs under
// with-session-bus.sh): the system's dark preference read with ReadOne (and with the older Read,
// which wraps the value once more), followed live through SettingChanged, the user's choice
// winning over the portal and kept in the settings, and no portal reading as light, said once in
// the log, with no dialog.

#include "colorscheme.h"

#include <QApplication>
#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDBusContext>
#include <QDBusError>
#include <QDBusMessage>
#include <QDBusVariant>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QStyle>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

namespace {
constexpr auto PortalService = "org.freedesktop.portal.Desktop";
constexpr auto PortalPath = "/org/freedesktop/portal/desktop";

bool paletteIsDark()
{
    return QApplication::palette().color(QPalette::Window).lightness() < 128;
}
} // namespace

// org.freedesktop.portal.Settings as xdg-desktop-portal serves it, for the one key asked about.
class FakePortal final : public QObject, protected QDBusContext
{
    Q_OBJECT
    Q_CLASSINFO("D-Bus Interface", "org.freedesktop.portal.Settings")

public:
    uint colorScheme = 0;
    // An older portal: no ReadOne, only Read.
    bool hasReadOne = true;
    int reads = 0;

    void change(uint value)
    {
        colorScheme = value;
        Q_EMIT SettingChanged(QStringLiteral("org.freedesktop.appearance"), QStringLiteral("color-scheme"),
                              QDBusVariant(QVariant::fromValue(value)));
    }

public Q_SLOTS:
    QDBusVariant ReadOne(const QString &group, const QString &key)
    {
        ++reads;
        if (!hasReadOne) {
            sendErrorReply(QDBusError::UnknownMethod, QStringLiteral("No such method ReadOne"));
            return {};
        }
        return value(group, key);
    }

    QDBusVariant Read(const QString &group, const QString &key)
    {
        ++reads;
        const QDBusVariant inner = value(group, key);
        return QDBusVariant(QVariant::fromValue(inner));
    }

Q_SIGNALS:
    void SettingChanged(const QString &group, const QString &key, const QDBusVariant &value);

private:
    QDBusVariant value(const QString &group, const QString &key)
    {
        if (group != QLatin1String("org.freedesktop.appearance") || key != QLatin1String("color-scheme")) {
            sendErrorReply(QStringLiteral("org.freedesktop.portal.Error.NotFound"),
                           QStringLiteral("Requested setting not found"));
            return {};
        }
        return QDBusVariant(QVariant::fromValue(colorScheme));
    }
};

class tst_ColorScheme : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void followsThePortal();
    void olderReadMethod();
    void noPortalIsLight();
    void noSessionBus();
    void choiceWinsAndIsKept();
    void appearanceMenu();

private:
    // The portal, served on a connection of its own (as another process would).
    void startPortal();

    std::unique_ptr<FakePortal> m_portal;
    std::unique_ptr<QDBusConnection> m_portalBus;
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<QSettings> m_settings;
    QString m_originalStyle;
};

void tst_ColorScheme::initTestCase()
{
    if (!QDBusConnection::sessionBus().isConnected())
        QSKIP("no session bus (run through with-session-bus.sh)");
    m_originalStyle = QApplication::style()->name();
}

void tst_ColorScheme::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    m_settings = std::make_unique<QSettings>(m_dir->filePath(QStringLiteral("paddock.ini")), QSettings::IniFormat);
    QVERIFY(!paletteIsDark());
}

void tst_ColorScheme::cleanup()
{
    if (m_portalBus) {
        m_portalBus->unregisterObject(QLatin1String(PortalPath));
        m_portalBus->unregisterService(QLatin1String(PortalService));
        QDBusConnection::disconnectFromBus(m_portalBus->name());
        m_portalBus.reset();
    }
    m_portal.reset();
    m_settings.reset();
    // A test that failed half way leaves no dark palette to the next.
    QApplication::setPalette(QPalette());
    m_dir.reset();
    // Until the name is gone from the bus, the next test would still see this portal.
    QTRY_VERIFY(!QDBusConnection::sessionBus().interface()->isServiceRegistered(QLatin1String(PortalService)));
}

void tst_ColorScheme::startPortal()
{
    m_portal = std::make_unique<FakePortal>();
    static int n = 0;
    m_portalBus = std::make_unique<QDBusConnection>(
        QDBusConnection::connectToBus(QDBusConnection::SessionBus, QStringLiteral("portal%1").arg(++n)));
    QVERIFY(m_portalBus->isConnected());
    QVERIFY(m_portalBus->registerObject(QLatin1String(PortalPath), m_portal.get(),
                                        QDBusConnection::ExportAllSlots | QDBusConnection::ExportAllSignals));
    QVERIFY(m_portalBus->registerService(QLatin1String(PortalService)));
}

void tst_ColorScheme::followsThePortal()
{
    startPortal();
    m_portal->colorScheme = 1; // prefers dark
    {
        ColorScheme scheme(m_settings.get());
        QSignalSpy known(&scheme, &ColorScheme::systemSchemeKnown);
        QVERIFY(known.wait());
        QVERIFY(scheme.portalAnswered());
        QCOMPARE(scheme.systemScheme(), ColorScheme::Scheme::Dark);
        QCOMPARE(scheme.scheme(), ColorScheme::Scheme::Dark);
        QVERIFY(paletteIsDark());
        QCOMPARE(QApplication::style()->name(), QStringLiteral("fusion"));

        // The desktop switches to light: so does the application, at once.
        QSignalSpy changed(&scheme, &ColorScheme::schemeChanged);
        m_portal->change(2);
        QVERIFY(changed.wait());
        QCOMPARE(changed.constLast().at(0).value<ColorScheme::Scheme>(), ColorScheme::Scheme::Light);
        QVERIFY(!paletteIsDark());
        QCOMPARE(QApplication::style()->name(), m_originalStyle);

        // And back; "no preference" (0) reads as light.
        m_portal->change(1);
        QVERIFY(changed.wait());
        QVERIFY(paletteIsDark());
        m_portal->change(0);
        QVERIFY(changed.wait());
        QVERIFY(!paletteIsDark());
        // Another setting changing changes nothing.
        Q_EMIT m_portal->SettingChanged(QStringLiteral("org.freedesktop.appearance"), QStringLiteral("accent-color"),
                                        QDBusVariant(QVariant::fromValue(1U)));
        m_portal->change(0);
        QTest::qWait(0);
        QCOMPARE(scheme.scheme(), ColorScheme::Scheme::Light);
    }
}

void tst_ColorScheme::olderReadMethod()
{
    startPortal();
    m_portal->hasReadOne = false;
    m_portal->colorScheme = 1;
    ColorScheme scheme(m_settings.get());
    QSignalSpy known(&scheme, &ColorScheme::systemSchemeKnown);
    QVERIFY(known.wait());
    QCOMPARE(m_portal->reads, 2); // ReadOne refused, then Read
    QCOMPARE(scheme.systemScheme(), ColorScheme::Scheme::Dark);
    QVERIFY(paletteIsDark());
    scheme.setChoice(ColorScheme::Choice::Light);
    QVERIFY(!paletteIsDark());
}

void tst_ColorScheme::noPortalIsLight()
{
    // Nothing owns the portal's name: light, said once at info level.
    QTest::ignoreMessage(QtInfoMsg, QRegularExpression(QStringLiteral("no desktop portal color-scheme")));
    ColorScheme scheme(m_settings.get());
    QSignalSpy known(&scheme, &ColorScheme::systemSchemeKnown);
    QVERIFY(known.wait());
    QCOMPARE(known.size(), 1);
    QVERIFY(!scheme.portalAnswered());
    QCOMPARE(scheme.scheme(), ColorScheme::Scheme::Light);
    QVERIFY(!paletteIsDark());
    // Dark chosen still works without a portal.
    scheme.setChoice(ColorScheme::Choice::Dark);
    QVERIFY(paletteIsDark());
    scheme.setChoice(ColorScheme::Choice::FollowSystem);
    QVERIFY(!paletteIsDark());
}

void tst_ColorScheme::noSessionBus()
{
    QTest::ignoreMessage(QtInfoMsg,
                         "no desktop portal color-scheme (no session bus): following the system reads as light");
    const QDBusConnection none(QStringLiteral("paddock-no-bus"));
    QVERIFY(!none.isConnected());
    ColorScheme scheme(m_settings.get(), nullptr, none);
    QCOMPARE(scheme.scheme(), ColorScheme::Scheme::Light);
    QVERIFY(!paletteIsDark());
}

void tst_ColorScheme::choiceWinsAndIsKept()
{
    startPortal();
    m_portal->colorScheme = 1;
    {
        ColorScheme scheme(m_settings.get());
        QSignalSpy known(&scheme, &ColorScheme::systemSchemeKnown);
        QVERIFY(known.wait());
        QVERIFY(paletteIsDark());
        // Light chosen: light, whatever the desktop says.
        scheme.setChoice(ColorScheme::Choice::Light);
        QVERIFY(!paletteIsDark());
        QSignalSpy changed(&scheme, &ColorScheme::schemeChanged);
        m_portal->change(1);
        QTRY_COMPARE(scheme.systemScheme(), ColorScheme::Scheme::Dark);
        QVERIFY(!paletteIsDark());
        QCOMPARE(changed.size(), 0);
        QCOMPARE(m_settings->value(QStringLiteral("appearance")).toString(), QStringLiteral("light"));
        // Dark chosen over a light desktop.
        m_portal->change(2);
        QTRY_COMPARE(scheme.systemScheme(), ColorScheme::Scheme::Light);
        scheme.setChoice(ColorScheme::Choice::Dark);
        QVERIFY(paletteIsDark());
        QCOMPARE(m_settings->value(QStringLiteral("appearance")).toString(), QStringLiteral("dark"));
    }
    // The next start keeps the choice before the portal answers.
    {
        ColorScheme scheme(m_settings.get());
        QCOMPARE(scheme.choice(), ColorScheme::Choice::Dark);
        QVERIFY(paletteIsDark());
        scheme.setChoice(ColorScheme::Choice::FollowSystem);
        QSignalSpy known(&scheme, &ColorScheme::systemSchemeKnown);
        QVERIFY(known.wait());
        QVERIFY(!paletteIsDark()); // the desktop says light
        QCOMPARE(m_settings->value(QStringLiteral("appearance")).toString(), QStringLiteral("system"));
    }
}

void tst_ColorScheme::appearanceMenu()
{
    QTest::ignoreMessage(QtInfoMsg, QRegularExpression(QStringLiteral("no desktop portal color-scheme")));
    ColorScheme scheme(m_settings.get());
    QSignalSpy known(&scheme, &ColorScheme::systemSchemeKnown);
    QVERIFY(known.wait());
    AppearanceMenu menu(&scheme);
    auto *system = menu.findChild<QAction *>(QStringLiteral("appearanceSystem"));
    auto *dark = menu.findChild<QAction *>(QStringLiteral("appearanceDark"));
    auto *light = menu.findChild<QAction *>(QStringLiteral("appearanceLight"));
    QVERIFY(system && dark && light);
    QVERIFY(system->isChecked());
    dark->trigger();
    QVERIFY(dark->isChecked());
    QCOMPARE(scheme.choice(), ColorScheme::Choice::Dark);
    QVERIFY(paletteIsDark());
    light->trigger();
    QVERIFY(!paletteIsDark());
    QCOMPARE(m_settings->value(QStringLiteral("appearance")).toString(), QStringLiteral("light"));
}

QTEST_MAIN(tst_ColorScheme)
#include "tst_colorscheme.moc"
