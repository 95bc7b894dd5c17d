#include "bootstraplog.h"
#include "colorscheme.h"
#include "console.h"
#include "i18n.h"
#include "keychainsecretstore.h"
#include "mainwindow.h"
#include "quitsignals.h"
#include "storagebanner.h"
#include "storagecheck.h"

#include <QCoroTask>

#include <QApplication>
#include <QIcon>
#include <QSettings>
#include <QTranslator>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace {

// The reverse-DNS id of the desktop entry, the AppStream metainfo and the icon (packaging/).
constexpr auto DesktopId = "io.github.paddock_console.Paddock";

// Said before there is a window, in the language the window would speak.
constexpr const char *NoDisplay =
    QT_TRANSLATE_NOOP("main",
                      "paddock: no display found (neither DISPLAY nor WAYLAND_DISPLAY is set). Run it in a "
                      "graphical session, or use paddockctl on the command line.");
constexpr const char *NoGui =
    QT_TRANSLATE_NOOP("main",
                      "paddock: the graphical interface could not start (Qt's message is above). Run it in a "
                      "graphical session, or use paddockctl on the command line.");

// The language chosen in View > Language, else the system's.
QLocale chosenLocale()
{
    const QSettings settings;
    return Paddock::localeFor(settings.value(QStringLiteral("language")).toString());
}

// `source` (context "main") through a translator of its own: usable while the application object
// is being made, before any translator is installed. English when there is no translation.
QString mainText(const char *source)
{
    QTranslator translator;
    const QString folder = Paddock::translationsDirectory();
    if (!folder.isEmpty() && translator.load(chosenLocale(), QStringLiteral("paddock"), QStringLiteral("_"), folder)) {
        if (QString translated = translator.translate("main", source); !translated.isEmpty())
            return translated;
    }
    return QString::fromUtf8(source);
}

// Whether Qt has a display to open: a platform named (QT_QPA_PLATFORM, -platform) or a display
// server to talk to. Without one, the xcb plugin would abort.
bool displayGiven(int argc, char *argv[])
{
    for (const char *variable : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"}) {
        if (!qEnvironmentVariableIsEmpty(variable))
            return true;
    }
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "-platform") == 0 || std::strcmp(argv[i], "--platform") == 0)
            return true;
    }
    return false;
}

// While QApplication is made: when its platform plugin fails (a display that does not answer, a
// missing plugin), Qt says why with qFatal() and aborts. Say what to do instead and exit with 1:
// a clear failure, not a crash.
QtMessageHandler previousHandler = nullptr;

void startupMessageHandler(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    if (previousHandler)
        previousHandler(type, context, message);
    if (type == QtFatalMsg) {
        std::fprintf(stderr, "%s\n", qUtf8Printable(mainText(NoGui)));
        std::fflush(stderr);
        std::_Exit(EXIT_FAILURE);
    }
}

// The icon theme's (the installed hicolor icons, or the desktop's own theme), else the copy in
// the executable.
QIcon applicationIcon()
{
    QIcon embedded;
    for (const int size : {16, 22, 24, 32, 48, 64, 128, 256}) {
        embedded.addFile(QStringLiteral(":/icons/hicolor/%1x%1/apps/").arg(size) + QLatin1String(DesktopId)
                         + QStringLiteral(".png"));
    }
    return QIcon::fromTheme(QLatin1String(DesktopId), embedded);
}

} // namespace

int main(int argc, char *argv[])
{
    // Answer --version without needing a display.
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--version") == 0) {
            std::printf("paddock %s\n", PADDOCK_VERSION);
            return 0;
        }
    }

    QApplication::setOrganizationName(QStringLiteral("paddock"));
    QApplication::setApplicationName(QStringLiteral("paddock"));
    QApplication::setApplicationVersion(QStringLiteral(PADDOCK_VERSION));
    if (!displayGiven(argc, argv)) {
        const QCoreApplication core(argc, argv); // for the translations' folder
        std::fprintf(stderr, "%s\n", qUtf8Printable(mainText(NoDisplay)));
        return EXIT_FAILURE;
    }
    // The window belongs to the desktop entry: this is its app id on Wayland (on X11 the entry's
    // StartupWMClass matches the WM_CLASS Qt sets, "paddock").
    QGuiApplication::setDesktopFileName(QLatin1String(DesktopId));

    previousHandler = qInstallMessageHandler(startupMessageHandler);
    QApplication app(argc, argv);
    qInstallMessageHandler(previousHandler);
    QApplication::setApplicationDisplayName(QStringLiteral("Paddock"));
    QApplication::setWindowIcon(applicationIcon());

    QSettings settings;
    // The language the user chose in View > Language, else the system's.
    Paddock::useLanguage(Paddock::localeFor(settings.value(QStringLiteral("language")).toString()));
    // A home that cannot be written does not stop the console; what will not work is said.
    const QList<StorageProblem> storageProblems = checkStorage(settings, Paddock::BootstrapLogStore::defaultRoot());
    // Light or dark: the desktop portal's preference, followed live, or View > Appearance.
    ColorScheme colorScheme(&settings);
    KeychainSecretStore keychain;
    Console console(&settings, &keychain);
    console.window()->addAppearanceMenu(new AppearanceMenu(&colorScheme, console.window()));
    // Quitting first ends every profile's manager: the workspaces this console opened are
    // closed (paused) as the manager contract says, or left running if the user says so (closing
    // the window or File > Quit asks when some are open; QuitController), then the application
    // exits. SIGTERM and Ctrl+C do not ask: they close, and the log says so. A second signal
    // quits at once.
    QApplication::setQuitOnLastWindowClosed(false);
    bool quitting = false;
    const auto quit = [&console, &quitting](Paddock::WorkspaceManager::StopMode mode) {
        if (std::exchange(quitting, true))
            return;
        console.window()->confirmQuit();
        console.window()->close();
        QCoro::connect(console.shutdown(mode), &console, [] { QApplication::quit(); });
    };
    QObject::connect(&console, &Console::quitDecided, &console, quit);
    QObject::connect(&app, &QApplication::lastWindowClosed, &console,
                     [&quit] { quit(Paddock::WorkspaceManager::StopMode::Close); });
    QuitSignals quitSignals;
    QObject::connect(&quitSignals, &QuitSignals::received, &console, [&quitting, &console](int signal) {
        if (quitting)
            QApplication::exit(EXIT_FAILURE);
        else
            console.quitOnSignal(signal);
    });
    // After the signal handlers, so that whoever reads this may stop the console cleanly.
    for (const StorageProblem &problem : storageProblems)
        std::fprintf(stderr, "paddock: %s\n", qUtf8Printable(problem.text()));
    std::fflush(stderr);
    StorageBanner::addTo(console.window(), storageProblems);
    console.window()->show();
    QCoro::connect(console.start(), &console, [] {});
    return QApplication::exec();
}
