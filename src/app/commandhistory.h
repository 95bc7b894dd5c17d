#pragma once

#include <QPointer>
#include <QSettings>
#include <QStringList>

// The commands run in a profile's workspaces (Run Command), newest first, each once, at most
// MaxEntries, kept in the console's settings per profile (key commandHistory/<profile id>), so
// they come back after a restart. Without settings (a test's window) they are kept for the run.
class CommandHistory final
{
public:
    static constexpr int MaxEntries = 100;

    explicit CommandHistory(QSettings *settings = nullptr);

    void setSettings(QSettings *settings);
    QStringList commands(const QString &profileId) const;
    // `command` becomes the newest (moved up if it was there); blank commands are not kept.
    void add(const QString &profileId, const QString &command);

private:
    QString key(const QString &profileId) const;

    QPointer<QSettings> m_settings;
    QHash<QString, QStringList> m_memory; // without settings
};
