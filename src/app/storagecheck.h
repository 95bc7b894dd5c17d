#pragma once

#include <QCoreApplication>
#include <QList>
#include <QString>

class QSettings;

// A place the console writes to that cannot be written: a missing or read-only home, or an
// unwritable XDG_CONFIG_HOME or XDG_DATA_HOME. The console starts anyway and says what will not
// work, on stderr and in the window.
struct StorageProblem
{
    Q_DECLARE_TR_FUNCTIONS(StorageProblem)

public:
    enum class Kind {
        Settings, // the settings file (profiles, the language, the window's choices)
        Logs, // the bootstrap logs, which every open writes first
    };

    Kind kind = Kind::Settings;
    QString path; // what cannot be written
    QString reason; // the system's words

    // What does not work because of it, in the language installed now.
    QString text() const;
};

// Tries what the console will do: create the folders of `settings`' file and of `logRoot` and
// write a file in each (removed at once), and open an existing settings file for writing.
QList<StorageProblem> checkStorage(const QSettings &settings, const QString &logRoot);
