#include "commandhistory.h"

#include <QUrl>

CommandHistory::CommandHistory(QSettings *settings)
    : m_settings(settings)
{
}

void CommandHistory::setSettings(QSettings *settings)
{
    m_settings = settings;
}

QString CommandHistory::key(const QString &profileId) const
{
    // A profile id is the user's to choose: never a settings group of its own.
    return QStringLiteral("commandHistory/") + QString::fromLatin1(QUrl::toPercentEncoding(profileId));
}

QStringList CommandHistory::commands(const QString &profileId) const
{
    if (!m_settings)
        return m_memory.value(profileId);
    return m_settings->value(key(profileId)).toStringList();
}

void CommandHistory::add(const QString &profileId, const QString &command)
{
    if (command.trimmed().isEmpty())
        return;
    QStringList list = commands(profileId);
    list.removeAll(command);
    list.prepend(command);
    while (list.size() > MaxEntries)
        list.removeLast();
    if (!m_settings) {
        m_memory.insert(profileId, list);
        return;
    }
    m_settings->setValue(key(profileId), list);
}
