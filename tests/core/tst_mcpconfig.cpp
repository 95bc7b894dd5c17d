// The .mcp reader and the secret maskers (src/core/inspect/mcpconfig.h, secretmask.h) on the
// AgentScope workspace fixtures (tests/data/agentscope-workspace) and on hand-made input.
#include "inspect/mcpconfig.h"
#include "inspect/secretmask.h"

#include <QFile>
#include <QJsonDocument>
#include <QTest>

using namespace Paddock::Inspect;

namespace {

QByteArray fixture(const QString &relative)
{
    QFile file(QStringLiteral(AGENTSCOPE_FIXTURES "/") + relative);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read fixture %s", qPrintable(relative));
    return file.readAll();
}

QString compact(const QJsonObject &json)
{
    return QString::fromUtf8(QJsonDocument(json).toJson(QJsonDocument::Compact));
}

template<typename T> QString debugText(const T &value)
{
    QString text;
    QDebug(&text) << value;
    return text;
}

const McpEntry *findEntry(const McpConfig &config, const QString &agent, const QString &session, const QString &name)
{
    for (const McpScope &scope : config.scopes) {
        if (scope.agentId != agent || scope.sessionId != session)
            continue;
        for (const McpEntry &entry : scope.entries) {
            if (entry.name == name)
                return &entry;
        }
    }
    return nullptr;
}

const QString Glyph = QStringLiteral("\u2022\u2022\u2022\u2022");

} // namespace

class TestMcpConfig : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sandboxVersion2()
    {
        const auto config = parseMcpConfig(fixture(QStringLiteral("sandbox/workspace/.mcp")));
        QVERIFY(config);
        QCOMPARE(config->version, 2);
        QVERIFY(config->warnings.isEmpty());
        QCOMPARE(config->scopes.size(), 3);
        QVERIFY(config->skippedEntries().isEmpty());

        const QString s1 = QStringLiteral("6f1c2a9e4b7d4e0f9a3c5b8d2e1f0a47");
        const McpEntry *github = findEntry(*config, QStringLiteral("agent-1"), s1, QStringLiteral("github"));
        QVERIFY(github);
        QCOMPARE(github->transport, McpTransport::Stdio);
        QCOMPARE(github->stateful, true);
        QCOMPARE(github->command, QStringLiteral("npx"));
        QCOMPARE(github->args,
                 QStringList({QStringLiteral("-y"), QStringLiteral("@modelcontextprotocol/server-github")}));
        QCOMPARE(github->envKeys, QStringList{QStringLiteral("GITHUB_PERSONAL_ACCESS_TOKEN")});
        QCOMPARE(github->encodingErrorHandler, QStringLiteral("strict"));
        QVERIFY(github->cwd.isNull());
        QCOMPARE(github->secretPaths(), QStringList{QStringLiteral("env/GITHUB_PERSONAL_ACCESS_TOKEN")});
        QCOMPARE(github->reveal(QStringLiteral("env/GITHUB_PERSONAL_ACCESS_TOKEN")),
                 QStringLiteral("sample-secret-github-pat-0001"));
        QCOMPARE(github->reveal(QStringLiteral("env/OTHER")), std::nullopt);
        QCOMPARE(github->enableTools, std::nullopt);

        const McpEntry *weather = findEntry(*config, QStringLiteral("agent-1"), s1, QStringLiteral("weather"));
        QVERIFY(weather);
        QCOMPARE(weather->transport, McpTransport::StreamableHttp);
        QCOMPARE(weather->stateful, false);
        QCOMPARE(weather->url, QStringLiteral("https://mcp.weather.example.com/mcp"));
        QCOMPARE(weather->headerNames, QStringList({QStringLiteral("Authorization"), QStringLiteral("X-Tenant")}));
        QCOMPARE(weather->reveal(QStringLiteral("headers/Authorization")),
                 QStringLiteral("Bearer sample-secret-weather-0002"));
        QCOMPARE(weather->reveal(QStringLiteral("headers/X-Tenant")), QStringLiteral("acme"));
        QCOMPARE(weather->reveal(QStringLiteral("url")), std::nullopt);
        QCOMPARE(weather->timeout, 30.0);
        QCOMPARE(weather->executionTimeout, 20.0);
        QCOMPARE(weather->enableTools, QStringList({QStringLiteral("get_forecast"), QStringLiteral("get_alerts")}));
        QCOMPARE(weather->disableTools, std::nullopt);

        const McpEntry *maps = findEntry(*config, QStringLiteral("agent-1"), s1, QStringLiteral("maps"));
        QVERIFY(maps);
        QCOMPARE(maps->transport, McpTransport::Sse);
        QCOMPARE(maps->url, QStringLiteral("https://mcp.maps.example.com/sse?key=") + Glyph);
        QCOMPARE(maps->reveal(QStringLiteral("url")),
                 QStringLiteral("https://mcp.maps.example.com/sse?key=sample-secret-maps-0003"));
        QCOMPARE(maps->headerNames, std::nullopt);
        QCOMPARE(maps->disableTools, QStringList{QStringLiteral("maps_delete_place")});

        const McpEntry *playwright =
            findEntry(*config, QStringLiteral("agent-1"), QStringLiteral("b83e07d5c21a4f6e8d9b0a1c2e3f4d5a"),
                      QStringLiteral("playwright"));
        QVERIFY(playwright);
        QCOMPARE(playwright->cwd, QStringLiteral("/workspace"));
        QCOMPARE(playwright->envKeys, std::nullopt);
        QCOMPARE(playwright->args->size(), 3);
        QVERIFY(playwright->secretPaths().isEmpty());
        QCOMPARE(playwright->executionTimeout, 120.0);

        // Every raw value, and what a log would print of it alone (a URL's query value, a
        // header's token), for maskKnown(); short values ("acme") are kept but never searched for.
        const QStringList known = config->secretValues();
        for (const char *value : {"sample-secret-github-pat-0001", "Bearer sample-secret-weather-0002",
                                  "sample-secret-weather-0002", "sample-secret-maps-0003"})
            QVERIFY2(known.contains(QLatin1String(value)), value);
        const QString masked =
            maskKnown(u"key sample-secret-maps-0003, pat sample-secret-github-pat-0001, tenant acme", known);
        QCOMPARE(masked, QStringLiteral("key %1, pat %1, tenant acme").arg(Glyph));

        const McpScope &emptied = config->scopes.at(2);
        QCOMPARE(emptied.agentId, QStringLiteral("agent-2"));
        QVERIFY(emptied.explicitlyEmpty());
        QVERIFY(!emptied.legacy());
    }

    void localLegacyScope()
    {
        const auto config = parseMcpConfig(fixture(QStringLiteral("local/.mcp")));
        QVERIFY(config);
        QCOMPARE(config->scopes.size(), 2);
        QVERIFY(config->scopes.at(0).legacy());
        QCOMPARE(config->scopes.at(0).entries.size(), 1);
        const McpEntry *search =
            findEntry(*config, QStringLiteral("agent-1"), QStringLiteral("c4a2e6081b3d4f57a9c1e3b5d7f90a2b"),
                      QStringLiteral("search"));
        QVERIFY(search);
        QCOMPARE(search->reveal(QStringLiteral("headers/X-API-Key")), QStringLiteral("sample-secret-search-0004"));
    }

    void version1List()
    {
        const auto config = parseMcpConfig(fixture(QStringLiteral("legacy-2.0.6/.mcp")));
        QVERIFY(config);
        QCOMPARE(config->version, 1);
        QCOMPARE(config->scopes.size(), 1);
        QVERIFY(config->scopes.at(0).legacy());
        QCOMPARE(config->scopes.at(0).entries.at(0).name, QStringLiteral("github"));
        QCOMPARE(config->scopes.at(0).entries.at(0).reveal(QStringLiteral("env/GITHUB_PERSONAL_ACCESS_TOKEN")),
                 QStringLiteral("sample-secret-github-pat-0001"));
    }

    void invalidEntry()
    {
        const auto config = parseMcpConfig(fixture(QStringLiteral("broken/mcp-invalid-entry/.mcp")));
        QVERIFY(config);
        QCOMPARE(config->scopes.size(), 1);
        QCOMPARE(config->scopes.at(0).entries.size(), 2);
        const McpEntry &bad = config->scopes.at(0).entries.at(0);
        QCOMPARE(bad.name, QStringLiteral("bad name!"));
        QCOMPARE(bad.skipReasons.size(), 2);
        QVERIFY(bad.skipReasons.at(0).contains(QStringLiteral("[a-zA-Z0-9_-]+")));
        QVERIFY(bad.skipReasons.at(1).contains(QStringLiteral("stateful")));
        QVERIFY(!config->scopes.at(0).entries.at(1).skipped());
        QCOMPARE(config->skippedEntries().size(), 1);
        QCOMPARE(config->warnings.size(), 1);
        QVERIFY(config->warnings.at(0).contains(QStringLiteral("agent-3")));
        // a skipped entry is still masked, and its secret still revealable on request
        QCOMPARE(bad.reveal(QStringLiteral("env/GITHUB_PERSONAL_ACCESS_TOKEN")),
                 QStringLiteral("sample-secret-github-pat-0001"));
    }

    void truncatedIsAnErrorWithoutText()
    {
        const QByteArray bytes = fixture(QStringLiteral("broken/mcp-truncated/.mcp"));
        const auto config = parseMcpConfig(bytes);
        QVERIFY(!config);
        QCOMPARE(config.error().kind, McpReadError::Kind::NotJson);
        QCOMPARE(config.error().byteSize, bytes.size());
        QVERIFY(config.error().offset > 0);
        QVERIFY(config.error().message.contains(QString::number(bytes.size())));
        QVERIFY(!compact(config.error().toJson()).contains(QStringLiteral("sample-secret-")));
        QVERIFY(!compact(config.error().toJson()).contains(QStringLiteral("github")));
    }

    void wrongShape_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<bool>("notJson");
        QTest::newRow("empty") << QByteArray() << true;
        QTest::newRow("string") << QByteArray("\"sample-secret-x\"") << false;
        QTest::newRow("number") << QByteArray("42") << false;
        QTest::newRow("no mcps") << QByteArray("{\"version\":2}") << false;
        QTest::newRow("mcps list") << QByteArray("{\"version\":2,\"mcps\":[]}") << false;
        // RapidJSON takes a NUL for the end of the text; AgentScope's json.load refuses the file.
        QTest::newRow("NUL after the object") << QByteArray("{\"version\":2}\0{}", 16) << true;
    }
    void wrongShape()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(bool, notJson);
        const auto config = parseMcpConfig(bytes);
        QVERIFY(!config);
        QCOMPARE(config.error().kind, notJson ? McpReadError::Kind::NotJson : McpReadError::Kind::WrongShape);
        QCOMPARE(config.error().byteSize, bytes.size());
        QVERIFY(!config.error().message.contains(QStringLiteral("sample-secret-")));
    }

    void versionNot2IsWarnedAndReadAsV2()
    {
        for (const char *json : {"{\"version\":3,\"mcps\":{\"a\":{\"s\":[]}}}", "{\"mcps\":{\"a\":{\"s\":[]}}}",
                                 "{\"version\":\"2\",\"mcps\":{\"a\":{\"s\":[]}}}"}) {
            const auto config = parseMcpConfig(QByteArray(json));
            QVERIFY(config);
            QCOMPARE(config->warnings.size(), 1);
            QVERIFY(config->warnings.at(0).contains(QStringLiteral("version")));
            QCOMPARE(config->scopes.size(), 1);
            QVERIFY(config->scopes.at(0).explicitlyEmpty());
        }
    }

    void skipReasonsAndLists()
    {
        const QByteArray json =
            R"({"version":2,"mcps":{"a":{"s":[)"
            R"({"name":"ws","is_stateful":true,"mcp_config":{"type":"ws_mcp","url":"wss://x"}},)"
            R"({"name":"both","is_stateful":false,"mcp_config":{"type":"http_mcp","url":"https://h/messages/"},)"
            R"("enable_tools":["a","b"],"disable_tools":["b"]},)"
            R"({"name":"empty-lists","is_stateful":true,"mcp_config":{"type":"http_mcp","url":"https://h/x/sse/more"},)"
            R"("enable_tools":[],"disable_tools":[]},)"
            R"("not an object")"
            R"(],"notalist":{}}}})";
        const auto config = parseMcpConfig(json);
        QVERIFY(config);
        QCOMPARE(config->warnings.size(), 1); // the session whose value is not a list
        const QList<McpEntry> &entries = config->scopes.at(0).entries;
        QCOMPARE(entries.size(), 4);
        QCOMPARE(entries.at(0).transport, McpTransport::Unknown);
        QCOMPARE(entries.at(0).skipReasons.size(), 1);
        QVERIFY(entries.at(0).skipReasons.at(0).contains(QStringLiteral("ws_mcp")));
        QCOMPARE(entries.at(1).transport, McpTransport::Sse);
        QCOMPARE(entries.at(1).skipReasons.size(), 1);
        QVERIFY(entries.at(1).skipReasons.at(0).contains(QStringLiteral("b")));
        QCOMPARE(entries.at(2).transport, McpTransport::StreamableHttp);
        QVERIFY(!entries.at(2).skipped());
        QCOMPARE(entries.at(2).enableTools, QStringList()); // [] is not "absent"
        QVERIFY(entries.at(2).enableTools.has_value());
        QVERIFY(entries.at(3).skipped());
        const QJsonObject masked = entries.at(2).toJson();
        QVERIFY(masked.value(QStringLiteral("enableTools")).isArray());
        QVERIFY(entries.at(0).toJson().value(QStringLiteral("enableTools")).isNull());
    }

    void noSecretInAnyDefaultOutput()
    {
        for (const char *path : {"sandbox/workspace/.mcp", "local/.mcp", "legacy-2.0.6/.mcp",
                                 "broken/mcp-invalid-entry/.mcp", "broken/mcp-truncated/.mcp"}) {
            const QByteArray bytes = fixture(QLatin1String(path));
            QVERIFY(bytes.contains("sample-secret-"));
            const auto config = parseMcpConfig(bytes);
            if (!config) {
                QVERIFY(!compact(config.error().toJson()).contains(QStringLiteral("sample-secret-")));
                QVERIFY(!config.error().message.contains(QStringLiteral("sample-secret-")));
                continue;
            }
            QVERIFY2(!compact(config->toJson()).contains(QStringLiteral("sample-secret-")), path);
            QVERIFY2(!debugText(*config).contains(QStringLiteral("sample-secret-")), path);
            int revealed = 0;
            for (const McpScope &scope : config->scopes) {
                for (const McpEntry &entry : scope.entries) {
                    QVERIFY(!debugText(entry).contains(QStringLiteral("sample-secret-")));
                    QVERIFY(!entry.url.contains(QStringLiteral("sample-secret-")));
                    if (entry.args) {
                        for (const QString &arg : *entry.args)
                            QVERIFY(!arg.contains(QStringLiteral("sample-secret-")));
                    }
                    for (const QString &secretPath : entry.secretPaths()) {
                        if (entry.reveal(secretPath)->contains(QStringLiteral("sample-secret-")))
                            ++revealed;
                    }
                }
            }
            QVERIFY2(revealed > 0, path);
        }
    }

    void maskedArgs_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QStringList>("shown");
        QTest::addColumn<int>("secretIndex");
        QTest::addColumn<QString>("secret");
        const QString g = Glyph;
        QTest::newRow("--api-key X") << QStringList{"run", "--api-key", "sample-secret-1"}
                                     << QStringList{"run", "--api-key", g} << 2 << "sample-secret-1";
        QTest::newRow("--token=X") << QStringList{"--token=sample-secret-2", "-y"} << QStringList{"--token=" + g, "-y"}
                                   << 0 << "sample-secret-2";
        QTest::newRow("--password X") << QStringList{"--password", "sample-secret-3"} << QStringList{"--password", g}
                                      << 1 << "sample-secret-3";
        QTest::newRow("--client-secret") << QStringList{"--client-secret", "sample-secret-4"}
                                         << QStringList{"--client-secret", g} << 1 << "sample-secret-4";
        QTest::newRow("KEY=value") << QStringList{"-e", "OPENAI_API_KEY=sample-secret-5"}
                                   << QStringList{"-e", "OPENAI_API_KEY=" + g} << 1 << "sample-secret-5";
        QTest::newRow("header") << QStringList{"-H", "Authorization: Bearer sample-secret-6"}
                                << QStringList{"-H", "Authorization: " + g} << 1 << "Bearer sample-secret-6";
        QTest::newRow("free text") << QStringList{"--url", "https://u:sample-secret-7@h/x"}
                                   << QStringList{"--url", "https://u:" + g + "@h/x"} << 1
                                   << "https://u:sample-secret-7@h/x";
        QTest::newRow("flag without value")
            << QStringList{"--token", "--headless"} << QStringList{"--token", "--headless"} << -1 << QString();
        QTest::newRow("harmless") << QStringList{"-y", "@playwright/mcp@latest", "--headless", "MODE=fast"}
                                  << QStringList{"-y", "@playwright/mcp@latest", "--headless", "MODE=fast"} << -1
                                  << QString();
    }
    void maskedArgs()
    {
        QFETCH(QStringList, args);
        QFETCH(QStringList, shown);
        QFETCH(int, secretIndex);
        QFETCH(QString, secret);
        const MaskedArgs masked = maskArgs(args);
        QCOMPARE(masked.args, shown);
        for (int i = 0; i < args.size(); ++i) {
            if (i == secretIndex)
                QCOMPARE(masked.secretValues.at(i), secret);
            else
                QCOMPARE(masked.secretValues.at(i), std::nullopt);
        }
    }

    void argsInAnEntryAreRevealedOneByOne()
    {
        const QByteArray json =
            R"({"version":2,"mcps":{"a":{"s":[{"name":"x","is_stateful":true,)"
            R"("mcp_config":{"type":"stdio_mcp","command":"server","args":["--api-key","sample-secret-a","TOKEN=sample-secret-b"],)"
            R"("env":{"A":"sample-secret-c"},"cwd":null,"encoding_error_handler":"strict"}}]}}})";
        const auto config = parseMcpConfig(json);
        QVERIFY(config);
        const McpEntry &entry = config->scopes.at(0).entries.at(0);
        QCOMPARE(entry.command, QStringLiteral("server"));
        QCOMPARE(entry.args, QStringList({"--api-key", Glyph, "TOKEN=" + Glyph}));
        QCOMPARE(entry.secretPaths(), QStringList({"args/1", "args/2", "env/A"}));
        QCOMPARE(entry.reveal(QStringLiteral("args/1")), QStringLiteral("sample-secret-a"));
        QCOMPARE(entry.reveal(QStringLiteral("args/2")), QStringLiteral("sample-secret-b"));
        QCOMPARE(entry.reveal(QStringLiteral("env/A")), QStringLiteral("sample-secret-c"));
        QVERIFY(!compact(entry.toJson()).contains(QStringLiteral("sample-secret-")));
    }

    // A name written twice is one secret path with the last value, as json.load keeps it
    // (tests/fuzz/corpus/fuzz_mcpconfig).
    void aRepeatedNameIsOneSecretPath()
    {
        const QByteArray json = R"([{"name":"x","is_stateful":true,"mcp_config":{"type":"stdio_mcp",)"
                                R"("command":"server","env":{"A":"sample-secret-1","A":"sample-secret-2"}}}])";
        const auto config = parseMcpConfig(json);
        QVERIFY(config);
        const McpEntry &entry = config->scopes.at(0).entries.at(0);
        QCOMPARE(entry.secretPaths(), QStringList({"env/A"}));
        QCOMPARE(entry.reveal(QStringLiteral("env/A")), QStringLiteral("sample-secret-2"));
    }

    void secretInTheCommandItself()
    {
        const QByteArray json = R"([{"name":"x","is_stateful":true,"mcp_config":{"type":"stdio_mcp",)"
                                R"("command":"env API_TOKEN=sample-secret-cmd server","args":null,"env":null}}])";
        const auto config = parseMcpConfig(json);
        QVERIFY(config);
        const McpEntry &entry = config->scopes.at(0).entries.at(0);
        QCOMPARE(entry.command, "env API_TOKEN=" + Glyph + " server");
        QCOMPARE(entry.args, std::nullopt);
        QCOMPARE(entry.envKeys, std::nullopt);
        QCOMPARE(entry.reveal(QStringLiteral("command")), QStringLiteral("env API_TOKEN=sample-secret-cmd server"));
        QVERIFY(!compact(entry.toJson()).contains(QStringLiteral("sample-secret-")));
    }

    void maskedUrl_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("masked");
        const QString g = Glyph;
        QTest::newRow("plain") << "https://h.example/mcp"
                               << "https://h.example/mcp";
        QTest::newRow("query") << "https://h/sse?key=s1&region=eu"
                               << "https://h/sse?key=" + g + "&region=" + g;
        QTest::newRow("userinfo") << "https://user:pw@h/p"
                                  << "https://" + g + ":" + g + "@h/p";
        QTest::newRow("user only") << "https://tok@h/p"
                                   << "https://" + g + "@h/p";
        QTest::newRow("fragment") << "https://h/p#access_token=abc"
                                  << "https://h/p#access_token=" + g;
        QTest::newRow("bare query") << "https://h/p?abcdef"
                                    << "https://h/p?" + g;
    }
    void maskedUrl()
    {
        QFETCH(QString, url);
        QFETCH(QString, masked);
        QCOMPARE(maskUrl(url), masked);
        QCOMPARE(urlHasSecrets(url), url != masked);
    }

    void maskedText_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("secret");
        QTest::newRow("bearer") << "Authorization: Bearer sample-secret-abc.def"
                                << "sample-secret-abc.def";
        QTest::newRow("basic") << "Authorization: Basic c2FtcGxlLXNlY3JldDp4eXo="
                               << "c2FtcGxlLXNlY3JldDp4eXo=";
        QTest::newRow("sk-") << "key is sk-proj-0123456789abcdefXYZ ok"
                             << "0123456789abcdefXYZ";
        QTest::newRow("ghp_") << "GITHUB ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 end"
                              << "ABCDEFGHIJKLMNOPQRST";
        QTest::newRow("github_pat_") << "github_pat_11ABCDEFG0123456789_abcdefghijklmnop"
                                     << "11ABCDEFG0123456789";
        QTest::newRow("AKIA") << "aws AKIAIOSFODNN7EXAMPLE id"
                              << "IOSFODNN7EXAMPLE";
        QTest::newRow("jwt") << "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlLXNhbXBsZQ here"
                             << "eyJzdWIiOiIxMjM0In0";
        QTest::newRow("password=") << "login password=sample-secret-pw next"
                                   << "sample-secret-pw";
        QTest::newRow("json password") << R"({"password": "sample-secret-json"})"
                                       << "sample-secret-json";
        QTest::newRow("env token") << "export GITHUB_TOKEN=sample-secret-env"
                                   << "sample-secret-env";
        QTest::newRow("auth-token") << "python -u gw.py --port 1 --auth-token sample-secret-tok --instance-nonce n0nce"
                                    << "sample-secret-tok";
        QTest::newRow("instance-nonce") << "--instance-nonce=sample-secret-nonce"
                                        << "sample-secret-nonce";
        QTest::newRow("url password") << "git clone https://bot:sample-secret-pw2@git.example/x"
                                      << "sample-secret-pw2";
        QTest::newRow("url query") << "GET /sse?key=sample-secret-q HTTP/1.1"
                                   << "sample-secret-q";
    }
    void maskedText()
    {
        QFETCH(QString, text);
        QFETCH(QString, secret);
        const QString masked = maskText(text);
        QVERIFY2(!masked.contains(secret), qPrintable(masked));
        QVERIFY(masked.contains(Glyph));
    }

    void harmlessTextStays()
    {
        for (const char *text : {"task-force meeting at 10", "the bearer of bad news", "Basic usage", "skills are here",
                                 "ls -l /workspace/data", "AKIA is a prefix"}) {
            QCOMPARE(maskText(QString::fromLatin1(text)), QString::fromLatin1(text));
        }
        // The fixture's gateway log holds ids in query strings but no secrets: unchanged.
        const QString log = QString::fromUtf8(fixture(QStringLiteral("sandbox/root/.agentscope/gateway.log")));
        QCOMPARE(maskText(log), log);
    }
};

QTEST_GUILESS_MAIN(TestMcpConfig)
#include "tst_mcpconfig.moc"
