#include "console.h"
#include "i18n.h"
#include "keychainsecretstore.h"
#include "mainwindow.h"

#include <QCoroTask>

#include <QApplication>
#include <QSettings>

#include <cstdio>
#include <cstring>

int main(int argc, char *argv[])
{
    // Answer --version without needing a display.
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--version") == 0) {
            std::printf("paddock %s\n", PADDOCK_VERSION);
            return 0;
        }
    }

    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("paddock"));
    QApplication::setApplicationName(QStringLiteral("paddock"));
    QApplication::setApplicationDisplayName(QStringLiteral("Paddock"));
    QApplication::setApplicationVersion(QStringLiteral(PADDOCK_VERSION));

    QSettings settings;
    // The language the user chose in View > Language, else the system's.
    Paddock::useLanguage(Paddock::localeFor(settings.value(QStringLiteral("language")).toString()));
    KeychainSecretStore keychain;
    Console console(&settings, &keychain);
    // Quitting first ends every profile's manager: the workspaces this console opened are
    // closed (paused) as the manager contract says, then the application exits.
    QApplication::setQuitOnLastWindowClosed(false);
    QObject::connect(&app, &QApplication::lastWindowClosed, &console,
                     [&console] { QCoro::connect(console.shutdown(), &console, [] { QApplication::quit(); }); });
    console.window()->show();
    QCoro::connect(console.start(), &console, [] {});
    return QApplication::exec();
}
