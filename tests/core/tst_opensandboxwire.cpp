#include "backends/opensandbox/metadatacodec.h"
#include "backends/opensandbox/sandboxjson.h"
#include "backends/opensandbox/wire.h"

#include <QTest>

using namespace Paddock::OpenSandbox;

class TestOpenSandboxWire final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // Bodies that are not one JSON object are refused, whatever they hold (tests/fuzz/corpus/
    // fuzz_opensandboxjson): a NUL byte after the object, which RapidJSON takes for the end of
    // the text, and a million nested arrays, which its recursive parser took onto the stack.
    void notOneJsonObjectIsRefused()
    {
        QVERIFY(parseSandbox(R"({"id":"a"})").has_value());
        QVERIFY(!parseSandbox(QByteArray("{\"id\":\"a\"}\0{}", 13)));
        QVERIFY(!parseSandbox("{\"id\":\"a\",\"x\":" + QByteArray(1'000'000, '[')));
        HttpResponse response;
        response.status = 200;
        response.body = QByteArray("{\"items\":[]}\0x", 14);
        QVERIFY(!parseListPage(response));
    }

    void timestamps_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("utc"); // empty: must not parse
        QTest::newRow("no fraction") << "2026-06-15T10:46:58Z"
                                     << "2026-06-15T10:46:58.000Z";
        QTest::newRow("1 digit") << "2026-06-15T10:46:58.1Z"
                                 << "2026-06-15T10:46:58.100Z";
        QTest::newRow("3 digits") << "2026-06-15T10:46:58.123Z"
                                  << "2026-06-15T10:46:58.123Z";
        QTest::newRow("6 digits (pydantic)") << "2026-06-15T10:46:58.123456Z"
                                             << "2026-06-15T10:46:58.123Z";
        QTest::newRow("9 digits") << "2026-06-15T10:46:58.123456789Z"
                                  << "2026-06-15T10:46:58.123Z";
        QTest::newRow("+00:00") << "2026-06-15T10:46:58.5+00:00"
                                << "2026-06-15T10:46:58.500Z";
        QTest::newRow("+08:00") << "2026-06-15T18:46:58+08:00"
                                << "2026-06-15T10:46:58.000Z";
        QTest::newRow("-05:30") << "2026-06-15T05:16:58-05:30"
                                << "2026-06-15T10:46:58.000Z";
        QTest::newRow("lowercase") << "2026-06-15t10:46:58z"
                                   << "2026-06-15T10:46:58.000Z";
        QTest::newRow("10 digits") << "2026-06-15T10:46:58.1234567890Z"
                                   << "";
        QTest::newRow("no zone") << "2026-06-15T10:46:58"
                                 << "";
        QTest::newRow("bad month") << "2026-13-15T10:46:58Z"
                                   << "";
        QTest::newRow("29 February of a leap year") << "2028-02-29T00:00:00Z"
                                                    << "2028-02-29T00:00:00.000Z";
        QTest::newRow("29 February of 2000") << "2000-02-29T23:59:59Z"
                                             << "2000-02-29T23:59:59.000Z";
        QTest::newRow("29 February of 2100 (not a leap year)") << "2100-02-29T00:00:00Z"
                                                               << "";
        QTest::newRow("29 February of 2026") << "2026-02-29T00:00:00Z"
                                             << "";
        QTest::newRow("31 April") << "2026-04-31T00:00:00Z"
                                  << "";
        QTest::newRow("31 December") << "2026-12-31T23:59:59Z"
                                     << "2026-12-31T23:59:59.000Z";
        QTest::newRow("day 0") << "2026-01-00T00:00:00Z"
                               << "";
        QTest::newRow("year 0") << "0000-01-01T00:00:00Z"
                                << "";
        QTest::newRow("before 1970") << "1969-12-31T23:59:59.999Z"
                                     << "1969-12-31T23:59:59.999Z";
        QTest::newRow("bad offset") << "2026-06-15T10:46:58+25:00"
                                    << "";
        QTest::newRow("garbage") << "yesterday"
                                 << "";
    }

    void timestamps()
    {
        QFETCH(QString, text);
        QFETCH(QString, utc);
        const auto parsed = parseTimestamp(text);
        QCOMPARE(parsed.has_value(), !utc.isEmpty());
        if (parsed) {
            QCOMPARE(parsed->timeSpec(), Qt::UTC);
            QCOMPARE(formatTimestamp(*parsed), utc);
        }
        // The same from a JSON document's bytes (E2B's and Kubernetes' listings read in place).
        const QByteArray bytes = text.toLatin1();
        const auto fromBytes = parseTimestamp(std::string_view(bytes.constData(), size_t(bytes.size())));
        QCOMPARE(fromBytes.has_value(), parsed.has_value());
        if (fromBytes)
            QCOMPARE(*fromBytes, *parsed);
    }

    void errorBodies()
    {
        ApiError e = parseApiError(404, R"({"code":"DOCKER::SANDBOX_NOT_FOUND","message":"Sandbox abc not found"})",
                                   QStringLiteral("req-1"));
        QCOMPARE(e.code, QStringLiteral("DOCKER::SANDBOX_NOT_FOUND"));
        QCOMPARE(e.describe(),
                 QStringLiteral("HTTP 404 DOCKER::SANDBOX_NOT_FOUND: Sandbox abc not found (request req-1)"));

        e = parseApiError(
            422,
            R"({"detail":[{"loc":["body","timeout"],"msg":"Input should be greater than or equal to 60","type":"greater_than_equal"},{"loc":["query","pageSize"],"msg":"too big","type":"x"}]})");
        QCOMPARE(e.message,
                 QStringLiteral("body.timeout: Input should be greater than or equal to 60; query.pageSize: too big"));
        QVERIFY(e.describe().startsWith(QLatin1String("HTTP 422 ")));

        e = parseApiError(500, R"({"error":"command not found"})", QStringLiteral("r"));
        QCOMPARE(e.message, QStringLiteral("command not found"));
        QCOMPARE(e.describe(), QStringLiteral("HTTP 500: command not found (request r)"));

        e = parseApiError(502, "<html>Bad Gateway</html>\n");
        QCOMPARE(e.message, QStringLiteral("<html>Bad Gateway</html>"));
        e = parseApiError(401, R"({"detail":"Not authenticated"})");
        QCOMPARE(e.message, QStringLiteral("Not authenticated"));
    }

    void labelValues_data()
    {
        QTest::addColumn<QString>("value");
        QTest::addColumn<bool>("label");
        QTest::newRow("empty") << "" << true;
        QTest::newRow("hash id") << "4bf1218b645ff727" << true;
        QTest::newRow("dots dashes") << "my-agent_v1.2" << true;
        QTest::newRow("63") << QString(63, u'a') << true;
        QTest::newRow("64") << QString(64, u'a') << false;
        QTest::newRow("leading dash") << "-a" << false;
        QTest::newRow("trailing dot") << "a." << false;
        QTest::newRow("at sign") << "alice@example.com" << false;
        QTest::newRow("chinese") << "运维" << false;
        QTest::newRow("space") << "a b" << false;
    }

    void labelValues()
    {
        QFETCH(QString, value);
        QFETCH(bool, label);
        QCOMPARE(isLabelValue(value), label);
    }

    void encodingIsReversibleWhenItFits_data()
    {
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("stored");
        QTest::newRow("plain") << "alice"
                               << "alice";
        QTest::newRow("empty") << ""
                               << "";
        QTest::newRow("chinese") << "运维"
                                 << "b32-5c7zbz53wq";
        QTest::newRow("email") << "alice@example.com"
                               << "";
        QTest::newRow("looks encoded") << "b32-abc"
                                       << "";
        QTest::newRow("looks hashed") << "h-abc"
                                      << "";
        QTest::newRow("36 bytes") << QString(12, QChar(0x5DE5)) << ""; // 12 × 3 bytes
    }

    void encodingIsReversibleWhenItFits()
    {
        QFETCH(QString, value);
        QFETCH(QString, stored);
        const QString encoded = encodeMetadataValue(value);
        if (!stored.isEmpty() || value.isEmpty())
            QCOMPARE(encoded, stored);
        QVERIFY2(isLabelValue(encoded), qPrintable(encoded));
        const DecodedValue decoded = decodeMetadataValue(encoded);
        QCOMPARE(decoded.text, value);
        QVERIFY(!decoded.hashed);
    }

    void longValuesAreHashedDistinctly()
    {
        const QString a = QString(37, QChar(0x5DE5));
        const QString b = QString(100, u'x') + u'@';
        const QString c = QString(100, u'x') + u'#';
        for (const QString &value : {a, b, c}) {
            const QString encoded = encodeMetadataValue(value);
            QVERIFY2(encoded.startsWith(QLatin1String("h-")), qPrintable(encoded));
            QCOMPARE(encoded.size(), 42);
            QVERIFY(isLabelValue(encoded));
            QVERIFY(decodeMetadataValue(encoded).hashed);
            QCOMPARE(encodeMetadataValue(value), encoded); // stable
        }
        QCOMPARE_NE(encodeMetadataValue(b), encodeMetadataValue(c));
    }

    void foreignValuesDecodeAsThemselves()
    {
        // Written by someone else: not our base32, so shown as stored.
        QCOMPARE(decodeMetadataValue(QStringLiteral("b32-Zz")).text, QStringLiteral("b32-Zz"));
        QCOMPARE(decodeMetadataValue(QStringLiteral("team-ml")).text, QStringLiteral("team-ml"));
        QVERIFY(!decodeMetadataValue(QStringLiteral("h-short")).hashed);
    }
};

QTEST_GUILESS_MAIN(TestOpenSandboxWire)
#include "tst_opensandboxwire.moc"
