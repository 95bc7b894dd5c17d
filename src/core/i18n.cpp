#include "i18n.h"

#include "logging.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
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

QString translationsDirectory()
{
    static QString found;
    static bool looked = false;
    if (looked || !QCoreApplication::instance())
        return found;
    looked = true;
    const QStringList candidates{
        QDir::cleanPath(QCoreApplication::applicationDirPath() + u'/' + QLatin1String(PADDOCK_TRANSLATIONS_RELATIVE)),
        QStringLiteral(PADDOCK_TRANSLATIONS_BUILD_DIR),
    };
    for (const QString &dir : candidates) {
        // Every build has the English file (the plural forms).
        if (QFileInfo::exists(dir + QStringLiteral("/paddock_en.qm"))) {
            qCDebug(lcI18n).noquote() << "translations from" << dir;
            found = dir;
            return found;
        }
    }
    qCWarning(lcI18n).noquote()
        << QStringLiteral("Paddock's translations were not found (looked in %1): the interface stays in English")
               .arg(candidates.join(QLatin1String(" and ")));
    return found;
}

QString useLanguage(const QLocale &locale)
{
    dropLanguage();
    Installed &current = installed();
    // The best of the locale's UI languages that we ship; English (the source, plus its plural
    // forms) otherwise.
    const QString dir = translationsDirectory();
    auto paddock = std::make_unique<QTranslator>();
    QString code = QStringLiteral("en");
    QLocale chosen(QLocale::English, QLocale::UnitedStates);
    if (dir.isEmpty()) {
        // translationsDirectory() said so.
    } else if (paddock->load(locale, QStringLiteral("paddock"), QStringLiteral("_"), dir)
               && !paddock->language().startsWith(QLatin1String("en"))) {
        code = paddock->language().replace(u'-', u'_');
        chosen = QLocale(code);
    } else if (!paddock->load(QStringLiteral("paddock_en"), dir)) {
        qCWarning(lcI18n).noquote() << "cannot read the English plural forms,"
                                    << QDir(dir).filePath(QStringLiteral("paddock_en.qm"));
    }
    if (!paddock->isEmpty())
        qCDebug(lcI18n).noquote() << "loaded" << paddock->filePath();
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
