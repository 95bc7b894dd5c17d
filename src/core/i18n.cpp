#include "i18n.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QTranslator>

#include <memory>

namespace Paddock {

namespace {

struct Installed
{
    std::unique_ptr<QTranslator> paddock;
    std::unique_ptr<QTranslator> qt;
};

Installed &installed()
{
    static Installed translators;
    return translators;
}

} // namespace

QList<Language> languages()
{
    return {{QStringLiteral("en"), QStringLiteral("English")}, {QStringLiteral("zh_CN"), QStringLiteral("简体中文")}};
}

QLocale localeFor(const QString &code)
{
    return code.isEmpty() ? QLocale::system() : QLocale(code);
}

void dropLanguage()
{
    Installed &current = installed();
    for (std::unique_ptr<QTranslator> *translator : {&current.paddock, &current.qt}) {
        if (*translator) {
            QCoreApplication::removeTranslator(translator->get());
            translator->reset();
        }
    }
}

QString useLanguage(const QLocale &locale)
{
    dropLanguage();
    Installed &current = installed();
    // The best of the locale's UI languages that we ship; English (the source, plus its plural
    // forms) otherwise.
    auto paddock = std::make_unique<QTranslator>();
    QString code = QStringLiteral("en");
    QLocale chosen(QLocale::English, QLocale::UnitedStates);
    if (paddock->load(locale, QStringLiteral("paddock"), QStringLiteral("_"), QStringLiteral(":/i18n"))
        && !paddock->language().startsWith(QLatin1String("en"))) {
        code = paddock->language().replace(u'-', u'_');
        chosen = QLocale(code);
    } else if (!paddock->load(QStringLiteral("paddock_en"), QStringLiteral(":/i18n"))) {
        qWarning("paddock: the English plural forms are missing from the resources");
    }
    QLocale::setDefault(code == QLatin1String("en") && locale.language() == QLocale::English ? locale : chosen);
    QCoreApplication::installTranslator(paddock.get());
    current.paddock = std::move(paddock);

    auto qt = std::make_unique<QTranslator>();
    if (code != QLatin1String("en")
        && qt->load(chosen, QStringLiteral("qtbase"), QStringLiteral("_"),
                    QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
        QCoreApplication::installTranslator(qt.get());
        current.qt = std::move(qt);
    }
    return code;
}

} // namespace Paddock
