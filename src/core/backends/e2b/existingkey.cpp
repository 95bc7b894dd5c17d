#include "existingkey.h"

#include "../../tr.h"
#include "e2bapi.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QProcessEnvironment>

namespace Paddock::E2B {

namespace {

// The CLI's file is small; anything much larger is not it.
constexpr qint64 MaxConfigSize = 1 << 20;

QString stringOf(const QJsonObject &object, const char *name, const char *olderName = nullptr)
{
    QString value = object.value(QLatin1String(name)).toString().trimmed();
    if (value.isEmpty() && olderName)
        value = object.value(QLatin1String(olderName)).toString().trimmed();
    return value;
}

} // namespace

CliConfigParse parseCliConfig(const QByteArray &json)
{
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError)
        return {std::nullopt, Tr::tr("it is not JSON (at byte %1)").arg(error.offset)};
    if (!document.isObject())
        return {std::nullopt, Tr::tr("it is not a JSON object")};
    const QJsonObject object = document.object();
    CliConfig config;
    // Only these fields are read: never accessToken.
    config.key = stringOf(object, "teamApiKey", "defaultTeamApiKey").toUtf8();
    config.teamName = stringOf(object, "teamName");
    config.teamId = stringOf(object, "teamId", "defaultTeamId");
    config.email = stringOf(object, "email");
    return {config, {}};
}

QString cliConfigPath(const QString &home)
{
    return QDir(home).filePath(QStringLiteral(".e2b/config.json"));
}

std::optional<ExistingKey> findExistingKey(const QProcessEnvironment &environment, const QString &home)
{
    ExistingKey found;
    found.configPath = cliConfigPath(home);
    found.domain = environment.value(QStringLiteral("E2B_DOMAIN")).trimmed();
    found.apiUrl = environment.value(QStringLiteral("E2B_API_URL")).trimmed();
    found.sandboxUrl = environment.value(QStringLiteral("E2B_SANDBOX_URL")).trimmed();

    std::optional<CliConfig> config;
    QFile file(found.configPath);
    if (file.exists()) {
        if (!file.open(QIODevice::ReadOnly)) {
            found.configProblem = Tr::tr("%1 cannot be read: %2").arg(found.configPath, file.errorString());
        } else if (file.size() > MaxConfigSize) {
            found.configProblem = Tr::tr("%1 is too large to be E2B's CLI configuration").arg(found.configPath);
        } else {
            const CliConfigParse parsed = parseCliConfig(file.readAll());
            if (parsed.config)
                config = parsed.config;
            else
                found.configProblem = Tr::tr("%1 cannot be read: %2").arg(found.configPath, parsed.problem);
        }
    }

    const QByteArray fromEnvironment = environment.value(QStringLiteral("E2B_API_KEY")).trimmed().toUtf8();
    if (!fromEnvironment.isEmpty()) {
        found.key = fromEnvironment;
        found.inEnvironment = true;
    } else if (config && !config->key.isEmpty()) {
        found.key = config->key;
    } else {
        return std::nullopt;
    }
    if (config && !config->key.isEmpty() && config->key == found.key) {
        found.inConfigFile = true;
        found.teamName = config->teamName;
        found.teamId = config->teamId;
        found.email = config->email;
    }
    if (const Result<> valid = validateKey(found.key); !valid)
        found.keyProblem = valid.error().message;
    return found;
}

} // namespace Paddock::E2B
