#pragma once

#include <QByteArray>
#include <QString>

#include <optional>

class QProcessEnvironment;

namespace Paddock::E2B {

// What E2B's CLI keeps in ~/.e2b/config.json (its `UserConfig`), as far as Paddock reads it: the
// team's API key (`teamApiKey`; older files `defaultTeamApiKey`) and who it belongs to. The
// CLI's `accessToken` is never read.
struct CliConfig
{
    QByteArray key; // never logged
    QString teamName;
    QString teamId; // `teamId`, older files `defaultTeamId`
    QString email;
};

// Parses the CLI's file. Not JSON, not an object: an error that never quotes the file (it holds
// secrets). A file without a key is a CliConfig with an empty key.
struct CliConfigParse
{
    std::optional<CliConfig> config;
    QString problem; // why the file could not be read; empty with a config
};
CliConfigParse parseCliConfig(const QByteArray &json);

// ~/.e2b/config.json under `home`.
QString cliConfigPath(const QString &home);

// An E2B API key the user already has outside Paddock: E2B_API_KEY in the environment (the SDKs'
// key), else the key in the CLI's ~/.e2b/config.json; the console offers it as an E2B profile.
// Where a plain copy of it stays is told apart (both places when they hold the same key).
struct ExistingKey
{
    QByteArray key; // never logged
    bool inEnvironment = false; // E2B_API_KEY holds it
    bool inConfigFile = false; // the CLI's file holds it
    QString configPath; // the CLI's file (whether or not it holds this key)
    QString teamName; // from the CLI's file, when it holds this key
    QString teamId;
    QString email;
    // The connection the SDKs would use with it: E2B_DOMAIN, E2B_API_URL, E2B_SANDBOX_URL.
    QString domain;
    QString apiUrl;
    QString sandboxUrl;
    // What is wrong with the key (not "e2b_" and hexadecimal digits: validateKey's message);
    // empty: it looks like an E2B API key.
    QString keyProblem;
    // The CLI's file exists but could not be read (said, never quoted); the environment's key may
    // still be offered.
    QString configProblem;
};

// Looks in `environment` and under `home`; reads only the CLI's file (a missing file is no
// problem, a broken one is said). Nothing found: nullopt.
std::optional<ExistingKey> findExistingKey(const QProcessEnvironment &environment, const QString &home);

} // namespace Paddock::E2B
