// The E2B keys people already have: E2B_API_KEY and the key E2B's CLI keeps in
// ~/.e2b/config.json (teamApiKey, older files defaultTeamApiKey), found for the console's offer;
// the CLI's accessToken never read; a missing or broken file tolerated and never quoted; a key
// that is not an E2B API key flagged.

#include "backends/e2b/existingkey.h"

#include <QDir>
#include <QFile>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

using namespace Paddock;
using namespace Paddock::E2B;

namespace {

const QByteArray FileKey = "e2b_0123456789abcdef0123456789abcdef01234567";
const QByteArray EnvKey = "e2b_fedcba9876543210fedcba9876543210fedcba98";
const QByteArray AccessToken = "sk_e2b_secret-access-token-0123456789";

void writeConfig(const QTemporaryDir &home, const QByteArray &bytes)
{
    QVERIFY(QDir(home.path()).mkpath(QStringLiteral(".e2b")));
    QFile file(cliConfigPath(home.path()));
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(file.write(bytes), bytes.size());
}

QByteArray currentConfig()
{
    return "{\"email\":\"ada@example.com\",\"accessToken\":\"" + AccessToken
        + "\",\"teamName\":\"Ada's team\",\"teamId\":\"team-1\",\"teamApiKey\":\"" + FileKey
        + "\",\"dockerProxySet\":true}";
}

QProcessEnvironment environment(std::initializer_list<std::pair<const char *, QByteArray>> variables)
{
    QProcessEnvironment env;
    for (const auto &[name, value] : variables)
        env.insert(QLatin1String(name), QString::fromUtf8(value));
    return env;
}

// No field of what was found holds the CLI's access token.
bool holdsAccessToken(const ExistingKey &found)
{
    for (const QString &text : {found.teamName, found.teamId, found.email, found.configProblem, found.keyProblem})
        if (text.contains(QString::fromLatin1(AccessToken)))
            return true;
    return found.key.contains(AccessToken);
}

} // namespace

class TestE2BExistingKey final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void nothingAnywhere()
    {
        QTemporaryDir home;
        QVERIFY(!findExistingKey(QProcessEnvironment(), home.path()));
        QCOMPARE(cliConfigPath(home.path()), home.filePath(QStringLiteral(".e2b/config.json")));
    }

    void theCliFile()
    {
        QTemporaryDir home;
        writeConfig(home, currentConfig());
        const auto found = findExistingKey(QProcessEnvironment(), home.path());
        QVERIFY(found);
        QCOMPARE(found->key, FileKey);
        QVERIFY(found->inConfigFile);
        QVERIFY(!found->inEnvironment);
        QCOMPARE(found->configPath, cliConfigPath(home.path()));
        QCOMPARE(found->teamName, QStringLiteral("Ada's team"));
        QCOMPARE(found->teamId, QStringLiteral("team-1"));
        QCOMPARE(found->email, QStringLiteral("ada@example.com"));
        QVERIFY(found->keyProblem.isEmpty());
        QVERIFY(found->configProblem.isEmpty());
        QVERIFY(!holdsAccessToken(*found));
        // The file is only read.
        QFile file(cliConfigPath(home.path()));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), currentConfig());
    }

    void anOlderCliFile()
    {
        QTemporaryDir home;
        writeConfig(home,
                    "{\"email\":\"ada@example.com\",\"accessToken\":\"" + AccessToken + "\",\"defaultTeamApiKey\":\""
                        + FileKey + "\",\"defaultTeamId\":\"team-0\"}");
        const auto found = findExistingKey(QProcessEnvironment(), home.path());
        QVERIFY(found);
        QCOMPARE(found->key, FileKey);
        QCOMPARE(found->teamId, QStringLiteral("team-0"));
        QVERIFY(found->teamName.isEmpty());
        QVERIFY(!holdsAccessToken(*found));
    }

    void theEnvironmentFirst()
    {
        QTemporaryDir home;
        writeConfig(home, currentConfig());
        // Another key in the environment: it is the SDKs' and is offered; the file's team is not its.
        auto found = findExistingKey(environment({{"E2B_API_KEY", EnvKey}}), home.path());
        QVERIFY(found);
        QCOMPARE(found->key, EnvKey);
        QVERIFY(found->inEnvironment);
        QVERIFY(!found->inConfigFile);
        QVERIFY(found->teamName.isEmpty());

        // The same key in both: both plain copies are told, with the file's team.
        found = findExistingKey(environment({{"E2B_API_KEY", FileKey}}), home.path());
        QVERIFY(found);
        QVERIFY(found->inEnvironment);
        QVERIFY(found->inConfigFile);
        QCOMPARE(found->teamName, QStringLiteral("Ada's team"));
    }

    void theConnectionFromTheEnvironment()
    {
        QTemporaryDir home;
        const auto found = findExistingKey(environment({{"E2B_API_KEY", EnvKey},
                                                        {"E2B_DOMAIN", "e2b.example.com"},
                                                        {"E2B_API_URL", "http://127.0.0.1:3000"},
                                                        {"E2B_SANDBOX_URL", "http://127.0.0.1:3001"}}),
                                           home.path());
        QVERIFY(found);
        QCOMPARE(found->domain, QStringLiteral("e2b.example.com"));
        QCOMPARE(found->apiUrl, QStringLiteral("http://127.0.0.1:3000"));
        QCOMPARE(found->sandboxUrl, QStringLiteral("http://127.0.0.1:3001"));
        QVERIFY(!found->inConfigFile);
        QVERIFY(found->configProblem.isEmpty()); // no file is no problem
    }

    void aBrokenFile_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::newRow("truncated") << currentConfig().left(60);
        QTest::newRow("an array") << QByteArray("[\"" + FileKey + "\"]");
        QTest::newRow("empty") << QByteArray();
    }

    void aBrokenFile()
    {
        QFETCH(QByteArray, bytes);
        QTemporaryDir home;
        writeConfig(home, bytes);
        // Nothing to offer from the file alone.
        QVERIFY(!findExistingKey(QProcessEnvironment(), home.path()));
        // The environment's key still is; the file's problem is said, never its content.
        const auto found = findExistingKey(environment({{"E2B_API_KEY", EnvKey}}), home.path());
        QVERIFY(found);
        QCOMPARE(found->key, EnvKey);
        QVERIFY(!found->configProblem.isEmpty());
        QVERIFY(found->configProblem.contains(cliConfigPath(home.path())));
        QVERIFY(!found->configProblem.contains(QLatin1String("e2b_")));
        QVERIFY(!holdsAccessToken(*found));
    }

    void aFileWithoutAKey()
    {
        QTemporaryDir home;
        writeConfig(home, "{\"email\":\"ada@example.com\",\"accessToken\":\"" + AccessToken + "\"}");
        QVERIFY(!findExistingKey(QProcessEnvironment(), home.path()));
        QVERIFY(!findExistingKey(environment({{"E2B_API_KEY", " "}}), home.path()));
    }

    void aKeyThatIsNotAnE2BKey()
    {
        QTemporaryDir home;
        // An access token pasted where the key goes: found, and flagged.
        const auto found = findExistingKey(environment({{"E2B_API_KEY", AccessToken}}), home.path());
        QVERIFY(found);
        QVERIFY(found->keyProblem.contains(QLatin1String("e2b_")));
        QVERIFY(!found->keyProblem.contains(QString::fromLatin1(AccessToken)));
    }
};

QTEST_GUILESS_MAIN(TestE2BExistingKey)
#include "tst_e2bexistingkey.moc"
