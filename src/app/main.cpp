#include "backends/local/localbackend.h"
#include "mainwindow.h"

#include <QApplication>

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
    QApplication::setApplicationName(QStringLiteral("paddock"));
    QApplication::setApplicationDisplayName(QStringLiteral("Paddock"));
    QApplication::setApplicationVersion(QStringLiteral(PADDOCK_VERSION));

    Paddock::LocalBackend backend;
    MainWindow window(&backend);
    window.show();
    return QApplication::exec();
}
