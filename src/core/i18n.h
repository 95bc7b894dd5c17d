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
// (from translationsDirectory()) and Qt's (dialog buttons and the like, from Qt's translations
// folder), in place of any installed before, with numbers, dates and durations formatted for it
// (QLocale::setDefault). Installing translators sends every widget a LanguageChange event.
// Returns the code it settled on; English when nothing else fits.
QString useLanguage(const QLocale &locale);

// The folder Paddock's .qm files are read from, the first that has them of:
// <folder of the executable>/../share/paddock/translations (installed; relative, so an installed
// tree can move) and the build tree's translations folder (what runs from the build tree).
// Empty, with a warning, when neither has them. The choice is logged (paddock.core.i18n, debug).
// Needs the application object; main thread only.
QString translationsDirectory();

// Removes what useLanguage() installed: the source texts (English, with "(s)" plurals) again.
void dropLanguage();

// The locale for a stored choice: a language code, or empty for the system's.
QLocale localeFor(const QString &code);

} // namespace Paddock
