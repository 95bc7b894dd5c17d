#include "ctl.h"
#include "i18n.h"

#include <QCoroTask>

#include <QCoreApplication>
#include <QLoggingCategory>
#include <QTimer>

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("paddockctl"));
    QCoreApplication::setApplicationVersion(QStringLiteral(PADDOCK_VERSION));
    // Messages in the user's language (LANGUAGE, LC_ALL, LC_MESSAGES, LANG), English otherwise.
    Paddock::useLanguage(QLocale::system());
    // The core's progress reaches the user as bootstrap log lines; its info messages would only
    // repeat them. QT_LOGGING_RULES still turns them on.
    QLoggingCategory::setFilterRules(QStringLiteral("paddock.*.info=false"));

    int exitCode = Paddock::Ctl::Failure;
    QTimer::singleShot(0, &app, [&app, &exitCode] {
        QCoro::connect(Paddock::Ctl::run(QCoreApplication::arguments()), &app, [&exitCode](int code) {
            exitCode = code;
            QCoreApplication::exit(code);
        });
    });
    app.exec();
    return exitCode;
}
