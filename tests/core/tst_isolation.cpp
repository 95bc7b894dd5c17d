#include "backoff.h"
#include "isolation.h"

#include <QRegularExpression>
#include <QTest>

using namespace Paddock;

class TestIsolation final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void vectors_data()
    {
        QTest::addColumn<QString>("policy");
        QTest::addColumn<QString>("user");
        QTest::addColumn<QString>("agent");
        QTest::addColumn<QString>("expected");
        // Computed with Python's hashlib.blake2b(digest_size=8) (reference §1).
        QTest::newRow("per_agent u1 a1") << "per_agent"
                                         << "u1"
                                         << "a1"
                                         << "4bf1218b645ff727";
        QTest::newRow("per_agent u a1") << "per_agent"
                                        << "u"
                                        << "a1"
                                        << "d9d7166baacd6047";
        QTest::newRow("per_agent u a2") << "per_agent"
                                        << "u"
                                        << "a2"
                                        << "be684553e8c14d87";
        QTest::newRow("per_agent empty user") << "per_agent"
                                              << ""
                                              << "a1"
                                              << "19f69055a5066d5f";
        QTest::newRow("per_user u1") << "per_user"
                                     << "u1"
                                     << "a1"
                                     << "48ea3da4179df93b";
        QTest::newRow("per_user u1 other agent") << "per_user"
                                                 << "u1"
                                                 << "zzz"
                                                 << "48ea3da4179df93b";
        QTest::newRow("per_user empty") << "per_user"
                                        << ""
                                        << ""
                                        << "db411675917f437a";
        // No escaping, as upstream: these collide by design.
        QTest::newRow("collision a") << "per_agent"
                                     << "a::b"
                                     << "c"
                                     << QString(assignWorkspaceId(IsolationPolicy::PerAgent, QStringLiteral("a"),
                                                                  QStringLiteral("b::c")));
    }

    void vectors()
    {
        QFETCH(QString, policy);
        QFETCH(QString, user);
        QFETCH(QString, agent);
        QFETCH(QString, expected);
        const auto parsed = parseIsolationPolicy(policy);
        QVERIFY(parsed);
        QCOMPARE(assignWorkspaceId(*parsed, user, agent, QStringLiteral("any session")), expected);
    }

    void digestIsNotTruncatedBlake2b512()
    {
        // BLAKE2b-64 puts the digest length into the parameter block, so its output differs from
        // the first 8 bytes of BLAKE2b-512 over the same input.
        const QByteArray input("u1::a1");
        const QString truncated512 =
            QString::fromLatin1(QCryptographicHash::hash(input, QCryptographicHash::Blake2b_512).left(8).toHex());
        QCOMPARE_NE(blake2b64Hex(input), truncated512);
        QCOMPARE(blake2b64Hex(input), QStringLiteral("4bf1218b645ff727"));
    }

    void unicodeIdsHashTheirUtf8()
    {
        const QString id = assignWorkspaceId(IsolationPolicy::PerAgent, QStringLiteral("张三"), QStringLiteral("运维"));
        QCOMPARE(id, blake2b64Hex(QStringLiteral("张三::运维").toUtf8()));
        QVERIFY(QRegularExpression(QStringLiteral("^[0-9a-f]{16}$")).match(id).hasMatch());
    }

    void perSessionIsFreshUuid4Hex()
    {
        const QString a = assignWorkspaceId(IsolationPolicy::PerSession, QStringLiteral("u"), QStringLiteral("a"),
                                            QStringLiteral("s"));
        const QString b = assignWorkspaceId(IsolationPolicy::PerSession, QStringLiteral("u"), QStringLiteral("a"),
                                            QStringLiteral("s"));
        const QRegularExpression uuid4(QStringLiteral("^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$"));
        QVERIFY2(uuid4.match(a).hasMatch(), qPrintable(a));
        QVERIFY2(uuid4.match(b).hasMatch(), qPrintable(b));
        QCOMPARE_NE(a, b);
    }

    void policyNames()
    {
        QCOMPARE(isolationPolicyNames(), QStringList({"per_session", "per_agent", "per_user"}));
        QCOMPARE(DefaultIsolationPolicy, IsolationPolicy::PerAgent);
        for (const QString &name : isolationPolicyNames())
            QCOMPARE(isolationPolicyName(*parseIsolationPolicy(name)), name);
    }

    void unknownPolicyListsChoices()
    {
        const auto parsed = parseIsolationPolicy(QStringLiteral("PER_AGENT"));
        QVERIFY(!parsed);
        QCOMPARE(parsed.error().kind, Error::Kind::InvalidArgument);
        QVERIFY(parsed.error().message.contains(QLatin1String("PER_AGENT")));
        QVERIFY(parsed.error().message.contains(QLatin1String("per_session, per_agent, per_user")));
    }

    void workspaceIdValidation_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("hash id") << "4bf1218b645ff727" << true << "";
        QTest::newRow("chinese") << "工作区-1" << true << "";
        QTest::newRow("128 bytes") << QString(128, u'x') << true << "";
        QTest::newRow("129 bytes") << QString(129, u'x') << false << "129 bytes";
        QTest::newRow("43 chinese = 129 bytes") << QString(43, QChar(0x5DE5)) << false << "129 bytes";
        QTest::newRow("empty") << "" << false << "empty";
        QTest::newRow("slash") << "a/b" << false << "path separator";
        QTest::newRow("backslash") << "a\\b" << false << "path separator";
        QTest::newRow("dotdot") << ".." << false << "\"..\"";
        QTest::newRow("dotdot inside") << "a..b" << false << "\"..\"";
        QTest::newRow("nul") << QString(QStringLiteral("a") + QChar(u'\0') + QStringLiteral("b")) << false << "NUL";
    }

    void workspaceIdValidation()
    {
        QFETCH(QString, id);
        QFETCH(bool, valid);
        QFETCH(QString, mentions);
        const auto result = validateWorkspaceId(id);
        QCOMPARE(result.has_value(), valid);
        if (!valid) {
            QCOMPARE(result.error().kind, Error::Kind::InvalidArgument);
            QVERIFY2(result.error().message.contains(mentions), qPrintable(result.error().message));
        }
    }

    void principalIds()
    {
        QVERIFY(validatePrincipalId(Principal::User, QStringLiteral("alice@example.com")));
        QVERIFY(validatePrincipalId(Principal::User, QStringLiteral("运维 / ../ \\ anything")));
        const auto nul = validatePrincipalId(Principal::Agent, QString(QStringLiteral("a") + QChar(u'\0')));
        QVERIFY(!nul);
        QVERIFY(nul.error().message.contains(QLatin1String("agent")));
        QVERIFY(nul.error().message.contains(QLatin1String("NUL")));
    }

    void backoffSchedule()
    {
        Backoff backoff;
        QList<qint64> delays;
        for (int i = 0; i < 9; ++i)
            delays.append(backoff.next().count());
        QCOMPARE(delays, QList<qint64>({100, 150, 225, 337, 505, 757, 1000, 1000, 1000}));
    }
};

QTEST_GUILESS_MAIN(TestIsolation)
#include "tst_isolation.moc"
