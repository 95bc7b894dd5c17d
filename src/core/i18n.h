#pragma once

#include <QList>
#include <QLocale>
#include <QString>

namespace Paddock {

// A language the interface speaks.
struct Language
{
    QString code; // "en", "zh_CN": what the settings store
    QString nativeName; // "English", "简体中文": shown untranslated, so anyone finds their own
};

// English (the source language) and Simplified Chinese.
QList<Language> languages();

// Makes the application speak the language that best fits `locale`: Paddock's own translations
// (embedded, from translations/) and Qt's (dialog buttons and the like, from Qt's translations
// folder), in place of any installed before, with numbers, dates and durations formatted for it
// (QLocale::setDefault). Installing translators sends every widget a LanguageChange event.
// Returns the code it settled on; English when nothing else fits.
QString useLanguage(const QLocale &locale);

// Removes what useLanguage() installed: the source texts (English, with "(s)" plurals) again.
void dropLanguage();

// The locale for a stored choice: a language code, or empty for the system's.
QLocale localeFor(const QString &code);

} // namespace Paddock
