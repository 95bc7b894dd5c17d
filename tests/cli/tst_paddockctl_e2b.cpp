// paddockctl --backend e2b against paddock-fake-e2b: every command of the other backends, the key
// from E2B_API_KEY, the URLs from the options or E2B_API_URL / E2B_SANDBOX_URL, and one clear
// message for each kind of bad input.

#include "fakee2bprocess.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

namespace {

constexpr auto Key = "e2b_0123456789abcdef";

struct Run
{
    int exitCode = -1;
    QString out;
    QString err;
};

} // namespace

class TestPaddockctlE2B final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_home;
    PaddockTest::FakeE2bProcess m_server;

    // paddockctl --backend e2b with the fake's URLs as options (or, urlsFromEnvironment, as
    // E2B_API_URL and E2B_SANDBOX_URL).
    Run run(const QStringList &args, const QByteArray &key = Key, bool urlsFromEnvironment = false) const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_home.path() + QStringLiteral("/data"));
        if (key.isNull())
            env.remove(QStringLiteral("E2B_API_KEY"));
        else
            env.insert(QStringLiteral("E2B_API_KEY"), QString::fromLatin1(key));
        env.remove(QStringLiteral("E2B_DOMAIN"));
        env.remove(QStringLiteral("E2B_API_URL"));
        env.remove(QStringLiteral("E2B_SANDBOX_URL"));
        env.remove(QStringLiteral("QT_LOGGING_RULES"));
        env.remove(QStringLiteral("COLUMNS"));
        QStringList global{QStringLiteral("--backend"), QStringLiteral("e2b")};
        if (urlsFromEnvironment) {
            env.insert(QStringLiteral("E2B_API_URL"), m_server.apiUrl().toString());
            env.insert(QStringLiteral("E2B_SANDBOX_URL"), m_server.envdUrl().toString());
        } else {
            global << QStringLiteral("--api-url") << m_server.apiUrl().toString() << QStringLiteral("--sandbox-url")
                   << m_server.envdUrl().toString();
        }
        QProcess process;
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(PADDOCKCTL_PATH), global + args);
        if (!process.waitForFinished(120'000))
            qFatal("paddockctl %s did not finish", qPrintable(args.join(u' ')));
        return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
                QString::fromUtf8(process.readAllStandardOutput()), QString::fromUtf8(process.readAllStandardError())};
    }

    // The line of list's table for a workspace.
    QString tableLine(const QString &workspaceId) const
    {
        const Run listed = run({QStringLiteral("list")});
        for (const QString &line : listed.out.split(u'\n')) {
            if (line.startsWith(workspaceId + u' '))
                return line;
        }
        return {};
    }

    QString bootstrapFile(const QByteArray &text) const
    {
        QFile file(m_home.path() + QStringLiteral("/bootstrap.txt"));
        if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size())
            qFatal("cannot write the bootstrap file");
        return file.fileName();
    }

    QJsonObject row(const QString &workspaceId) const
    {
        const Run listed = run({QStringLiteral("list"), QStringLiteral("--json")});
        const QJsonArray rows = QJsonDocument::fromJson(listed.out.toUtf8()).array();
        for (const QJsonValue &value : rows) {
            if (value.toObject().value(QLatin1String("workspaceId")).toString() == workspaceId)
                return value.toObject();
        }
        return {};
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        QVERIFY2(m_server.start({QStringLiteral("--api-key"), QString::fromLatin1(Key), QStringLiteral("--seed"),
                                 QStringLiteral("5")}),
                 qPrintable(m_server.error()));
    }

    void everyCommandWorks()
    {
        const QString bootstrap = bootstrapFile("echo bootstrapping in $(pwd)\necho warn >&2\n");
        const Run opened =
            run({QStringLiteral("--bootstrap"), bootstrap, QStringLiteral("open"), QStringLiteral("--user"),
                 QStringLiteral("运维"), QStringLiteral("--agent"), QStringLiteral("助手")});
        QVERIFY2(opened.exitCode == 0, qPrintable(opened.err));
        const QString id = opened.out.trimmed();
        QCOMPARE(id.size(), 16);
        QVERIFY2(opened.err.contains(QLatin1String("out bootstrapping in /home/user/workspace")),
                 qPrintable(opened.err));
        QVERIFY(opened.err.contains(QLatin1String("err warn")));

        const Run listed = run({QStringLiteral("list"), QStringLiteral("--json")});
        QVERIFY2(listed.exitCode == 0, qPrintable(listed.err));
        QCOMPARE(QJsonDocument::fromJson(listed.out.toUtf8()).array().size(), 6);
        QJsonObject mine = row(id);
        QCOMPARE(mine.value(QLatin1String("userId")).toString(), QStringLiteral("运维"));
        QCOMPARE(mine.value(QLatin1String("agentId")).toString(), QStringLiteral("助手"));
        QCOMPARE(mine.value(QLatin1String("state")).toString(), QStringLiteral("running"));
        QCOMPARE(mine.value(QLatin1String("backend")).toString(), QStringLiteral("e2b"));
        QVERIFY(!mine.value(QLatin1String("expiresAt")).isNull());
        QVERIFY(mine.value(QLatin1String("pausedAt")).isNull());
        // The table counts the timer down (300 s).
        QString line = tableLine(id);
        QVERIFY2(
            QRegularExpression(QStringLiteral("^%1 +running +运维 +助手 +(\\d+m )?\\d+s +[45]m \\d+s +e2b$").arg(id))
                .match(line)
                .hasMatch(),
            qPrintable(line));

        Run step = run({QStringLiteral("exec"), id, QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
                        QStringLiteral("echo out; echo err >&2; exit 5")});
        QCOMPARE(step.exitCode, 5);
        QCOMPARE(step.out, QStringLiteral("out\n"));
        QCOMPARE(step.err, QStringLiteral("err\n"));

        const QString local = m_home.path() + QStringLiteral("/note.txt");
        {
            QFile file(local);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("你好, E2B\n");
        }
        step = run({QStringLiteral("files"), id, QStringLiteral("put"), local, QStringLiteral("data/note.txt")});
        QVERIFY2(step.exitCode == 0, qPrintable(step.err));
        step = run({QStringLiteral("files"), id, QStringLiteral("cat"), QStringLiteral("data/note.txt")});
        QVERIFY2(step.exitCode == 0, qPrintable(step.err));
        QCOMPARE(step.out, QStringLiteral("你好, E2B\n"));
        step = run({QStringLiteral("files"), id, QStringLiteral("ls"), QStringLiteral("data")});
        QVERIFY2(step.exitCode == 0 && step.out.contains(QLatin1String("note.txt")), qPrintable(step.out + step.err));
        step = run({QStringLiteral("files"), id, QStringLiteral("cat"), QStringLiteral("/etc/passwd")});
        QCOMPARE(step.exitCode, 2);

        step = run({QStringLiteral("pause"), id});
        QVERIFY2(step.exitCode == 0, qPrintable(step.err));
        mine = row(id);
        QCOMPARE(mine.value(QLatin1String("state")).toString(), QStringLiteral("paused"));
        // The timer of a paused sandbox is stopped: no expiry, and since when.
        QVERIFY(mine.value(QLatin1String("expiresAt")).isNull());
        QVERIFY(!mine.value(QLatin1String("pausedAt")).isNull());
        // The table and info say so.
        line = tableLine(id);
        QVERIFY2(QRegularExpression(QStringLiteral("^%1 +paused +运维 +助手 +(\\d+m )?\\d+s +stopped +e2b$").arg(id))
                     .match(line)
                     .hasMatch(),
                 qPrintable(line));
        const Run info = run({QStringLiteral("info"), id});
        QVERIFY2(info.exitCode == 0, qPrintable(info.err));
        QVERIFY2(info.out.contains(QLatin1String("\nExpires:       timer stopped\nPaused since:  "))
                     && info.out.contains(QLatin1String("\nState:         paused\n")),
                 qPrintable(info.out));
        const Run infoJson = run({QStringLiteral("info"), id, QStringLiteral("--json")});
        QVERIFY2(infoJson.exitCode == 0, qPrintable(infoJson.err));
        QCOMPARE(QJsonDocument::fromJson(infoJson.out.toUtf8()).object(), mine);
        step = run({QStringLiteral("exec"), id, QStringLiteral("--"), QStringLiteral("true")});
        QCOMPARE(step.exitCode, 125);
        step = run({QStringLiteral("resume"), id});
        QVERIFY2(step.exitCode == 0, qPrintable(step.err));
        QCOMPARE(row(id).value(QLatin1String("state")).toString(), QStringLiteral("running"));
        step = run({QStringLiteral("close"), id});
        QVERIFY2(step.exitCode == 0, qPrintable(step.err));
        QCOMPARE(row(id).value(QLatin1String("state")).toString(), QStringLiteral("paused"));

        // open again (the URLs from the environment this time): reattached, not bootstrapped again.
        const Run reopened =
            run({QStringLiteral("--bootstrap"), bootstrap, QStringLiteral("open"), QStringLiteral("--user"),
                 QStringLiteral("运维"), QStringLiteral("--agent"), QStringLiteral("助手")},
                Key, true);
        QVERIFY2(reopened.exitCode == 0, qPrintable(reopened.err));
        QCOMPARE(reopened.out.trimmed(), id);
        QVERIFY(reopened.err.contains(QLatin1String("resuming paused sandbox")));
        QVERIFY(!reopened.err.contains(QLatin1String("bootstrapping in")));

        // renew: now + 2 h is after the profile's 5 min; now + 60 s only with --allow-shorter.
        const QDateTime before =
            QDateTime::fromString(row(id).value(QLatin1String("expiresAt")).toString(), Qt::ISODateWithMs);
        step = run({QStringLiteral("renew"), id, QStringLiteral("--seconds"), QStringLiteral("7200")});
        QVERIFY2(step.exitCode == 0, qPrintable(step.err));
        const QDateTime after =
            QDateTime::fromString(row(id).value(QLatin1String("expiresAt")).toString(), Qt::ISODateWithMs);
        QVERIFY(after > before.addSecs(3600));
        step = run({QStringLiteral("renew"), id, QStringLiteral("--seconds"), QStringLiteral("60")});
        QCOMPARE(step.exitCode, 1);
        QVERIFY2(step.err.contains(QLatin1String("--allow-shorter")), qPrintable(step.err));

        step = run({QStringLiteral("inspect"), id, QStringLiteral("--section"), QStringLiteral("overview")});
        QVERIFY2(step.exitCode == 0, qPrintable(step.err));
        QVERIFY2(step.out.contains(QLatin1String("0.6.13")), qPrintable(step.out));
        QVERIFY(!step.out.contains(QLatin1String(Key)));

        const Run logs = run({QStringLiteral("logs"), id});
        QCOMPARE(logs.exitCode, 0);
        QVERIFY(logs.out.contains(QLatin1String("resuming paused sandbox")));
        step =
            run({QStringLiteral("sweep"), QStringLiteral("--idle"), QStringLiteral("0"), QStringLiteral("--dry-run")});
        QCOMPARE(step.exitCode, 0);

        step = run({QStringLiteral("kill"), id});
        QVERIFY2(step.exitCode == 0, qPrintable(step.err));
        QVERIFY(row(id).isEmpty());
        step = run({QStringLiteral("pause"), id});
        QCOMPARE(step.exitCode, 1);
        QVERIFY2(step.err.contains(QStringLiteral("no workspace %1").arg(id)), qPrintable(step.err));
        QCOMPARE(m_server.stats().value(QLatin1String("envdRequestsWithApiKey")).toInt(-1), 0);
    }

    void theKeyComesFromTheEnvironment()
    {
        Run listed = run({QStringLiteral("list")});
        QVERIFY2(listed.exitCode == 0, qPrintable(listed.err));
        // No key: a usage error (nothing was sent).
        listed = run({QStringLiteral("list")}, QByteArray());
        QCOMPARE(listed.exitCode, 2);
        QVERIFY2(listed.err.contains(QLatin1String("E2B_API_KEY")), qPrintable(listed.err));
    }

    void badInputGetsOneClearMessage()
    {
        // A key that is no E2B API key is the caller's to fix: a usage error, and nothing sent.
        Run bad = run({QStringLiteral("list")}, "sk_e2b_0123");
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains(QLatin1String("does not start with \"e2b_\"")), qPrintable(bad.err));
        QVERIFY(!bad.err.contains(QLatin1String("0123")));
        bad = run({QStringLiteral("open"), QStringLiteral("--user"), QStringLiteral("u"), QStringLiteral("--agent"),
                   QStringLiteral("a")},
                  "sk_e2b_0123");
        QCOMPARE(bad.exitCode, 2);

        bad = run({QStringLiteral("list")}, "e2b_ffff");
        QCOMPARE(bad.exitCode, 1);
        QVERIFY2(bad.err.contains(QLatin1String("refused the API key (HTTP 401)")), qPrintable(bad.err));
        QVERIFY(!bad.err.contains(QLatin1String("e2b_ffff")));

        bad = run({QStringLiteral("--api-url"), QStringLiteral("ftp://example"), QStringLiteral("list")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains(QLatin1String("http:// or https://")), qPrintable(bad.err));
        bad = run({QStringLiteral("--domain"), QStringLiteral("https://e2b.app"), QStringLiteral("list")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains(QLatin1String("without a scheme")), qPrintable(bad.err));
        bad = run({QStringLiteral("--sandbox-timeout"), QStringLiteral("0"), QStringLiteral("list")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains(QLatin1String("at least 1")));
        bad = run({QStringLiteral("--template"), QStringLiteral("no-such"), QStringLiteral("open"),
                   QStringLiteral("--user"), QStringLiteral("u"), QStringLiteral("--agent"), QStringLiteral("a")});
        QCOMPARE(bad.exitCode, 1);
        QVERIFY2(bad.err.contains(QLatin1String("no template \"no-such\"")), qPrintable(bad.err));
        bad = run({QStringLiteral("--basedir"), QStringLiteral("/tmp"), QStringLiteral("list")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains(QLatin1String("local and docker backends only")));
    }
};

QTEST_GUILESS_MAIN(TestPaddockctlE2B)
#include "tst_paddockctl_e2b.moc"
