// paddockctl --backend opensandbox against paddock-fake-opensandbox: every command of the local
// backend, the key from OPEN_SANDBOX_API_KEY, and one clear message for each kind of bad input.

#include "fakeopensandboxprocess.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/stat.h>

namespace {

struct Run
{
    int exitCode = -1;
    QString out;
    QString err;
};

} // namespace

class TestPaddockctlOpenSandbox final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_home;
    PaddockTest::FakeOpenSandboxProcess m_server;

    Run run(const QStringList &args, const QByteArray &key = "k3y", const QString &domain = {}) const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_home.path() + QStringLiteral("/data"));
        env.insert(QStringLiteral("OPEN_SANDBOX_API_KEY"), QString::fromLatin1(key));
        env.remove(QStringLiteral("OPEN_SANDBOX_DOMAIN"));
        env.remove(QStringLiteral("QT_LOGGING_RULES"));
        env.remove(QStringLiteral("COLUMNS"));
        QProcess process;
        process.setProcessEnvironment(env);
        const QStringList global{QStringLiteral("--backend"), QStringLiteral("opensandbox"), QStringLiteral("--domain"),
                                 domain.isEmpty() ? m_server.domain() : domain};
        process.start(QStringLiteral(PADDOCKCTL_PATH), global + args);
        if (!process.waitForFinished(120'000))
            qFatal("paddockctl %s did not finish", qPrintable(args.join(u' ')));
        return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
                QString::fromUtf8(process.readAllStandardOutput()), QString::fromUtf8(process.readAllStandardError())};
    }

    // Sets a file's or folder's modification (and access) time.
    static bool setModified(const QString &path, const QDateTime &time)
    {
        const timespec when{time.toSecsSinceEpoch(), 0};
        const timespec times[2]{when, when};
        return ::utimensat(AT_FDCWD, QFile::encodeName(path).constData(), times, AT_SYMLINK_NOFOLLOW) == 0;
    }

    QString bootstrapFile(const QByteArray &text) const
    {
        QFile file(m_home.path() + QStringLiteral("/bootstrap.txt"));
        if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size())
            qFatal("cannot write the bootstrap file");
        return file.fileName();
    }

    QJsonArray listJson() const
    {
        const Run listed = run({QStringLiteral("list"), QStringLiteral("--json")});
        if (listed.exitCode != 0)
            qWarning("%s", qPrintable(listed.err));
        return QJsonDocument::fromJson(listed.out.toUtf8()).array();
    }

    QJsonObject row(const QString &workspaceId) const
    {
        const QJsonArray rows = listJson();
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
        QVERIFY2(m_server.start({QStringLiteral("--api-key"), QStringLiteral("k3y"), QStringLiteral("--seed"),
                                 QStringLiteral("8")}),
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
        QVERIFY2(opened.err.contains(QLatin1String("out bootstrapping in /workspace")), qPrintable(opened.err));
        QVERIFY(opened.err.contains(QLatin1String("err warn")));

        // list shows the server's agentscope sandboxes, ids decoded, ours among the seeded ones.
        const QJsonArray rows = listJson();
        QCOMPARE(rows.size(), 9);
        QJsonObject mine = row(id);
        QCOMPARE(mine.value(QLatin1String("userId")).toString(), QStringLiteral("运维"));
        QCOMPARE(mine.value(QLatin1String("agentId")).toString(), QStringLiteral("助手"));
        QCOMPARE(mine.value(QLatin1String("state")).toString(), QStringLiteral("Running"));
        QCOMPARE(mine.value(QLatin1String("backend")).toString(), QStringLiteral("opensandbox"));
        QVERIFY(!mine.value(QLatin1String("expiresAt")).isNull());
        const Run table = run({QStringLiteral("list")});
        QCOMPARE(table.exitCode, 0);
        // Ours and the seeded ones, each with its countdown.
        QCOMPARE(table.out.count(u'\n'), 10);
        const QRegularExpression line(
            QStringLiteral("^%1 +Running +运维 +助手 +(\\d+m )?\\d+s +\\d+[dhm] \\d+[hms] +opensandbox$").arg(id),
            QRegularExpression::MultilineOption);
        QVERIFY2(line.match(table.out).hasMatch(), qPrintable(table.out));
        const Run info = run({QStringLiteral("info"), id, QStringLiteral("--json")});
        QCOMPARE(info.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(info.out.toUtf8()).object(), mine);

        Run step = run({QStringLiteral("pause"), id});
        QVERIFY2(step.exitCode == 0, qPrintable(step.err));
        QCOMPARE(row(id).value(QLatin1String("state")).toString(), QStringLiteral("Paused"));
        step = run({QStringLiteral("resume"), id});
        QVERIFY2(step.exitCode == 0, qPrintable(step.err));
        QCOMPARE(row(id).value(QLatin1String("state")).toString(), QStringLiteral("Running"));
        step = run({QStringLiteral("close"), id});
        QVERIFY2(step.exitCode == 0, qPrintable(step.err));
        QCOMPARE(row(id).value(QLatin1String("state")).toString(), QStringLiteral("Paused"));

        // open again: reattached (resumed), not bootstrapped again.
        const Run reopened =
            run({QStringLiteral("--bootstrap"), bootstrap, QStringLiteral("open"), QStringLiteral("--user"),
                 QStringLiteral("运维"), QStringLiteral("--agent"), QStringLiteral("助手")});
        QVERIFY2(reopened.exitCode == 0, qPrintable(reopened.err));
        QCOMPARE(reopened.out.trimmed(), id);
        QVERIFY(reopened.err.contains(QLatin1String("resuming paused sandbox")));
        QVERIFY(!reopened.err.contains(QLatin1String("bootstrapping in")));

        const QDateTime before =
            QDateTime::fromString(row(id).value(QLatin1String("expiresAt")).toString(), Qt::ISODateWithMs);
        step = run({QStringLiteral("renew"), id, QStringLiteral("--seconds"), QStringLiteral("7200")});
        QVERIFY2(step.exitCode == 0, qPrintable(step.err));
        const QDateTime after =
            QDateTime::fromString(row(id).value(QLatin1String("expiresAt")).toString(), Qt::ISODateWithMs);
        QVERIFY(after > before.addSecs(3600));

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
    }

    void aCustomBootstrapLeavesNoGatewayScript()
    {
        // Not AgentScope's bootstrap (here: none at all): Paddock's own marker, and no gateway
        // script, which AgentScope would take for its marker and start as its gateway.
        const QStringList open{QStringLiteral("--bootstrap"), QStringLiteral("/dev/null"), QStringLiteral("open"),
                               QStringLiteral("--user"),      QStringLiteral("uma"),       QStringLiteral("--agent"),
                               QStringLiteral("agent")};
        const Run opened = run(open);
        QVERIFY2(opened.exitCode == 0, qPrintable(opened.err));
        const QString id = opened.out.trimmed();
        const QString sandboxId = row(id).value(QLatin1String("sandboxId")).toString();
        QVERIFY(!sandboxId.isEmpty());
        const QString home = m_server.info().value(QLatin1String("dataDir")).toString() + u'/' + sandboxId
            + QStringLiteral("/root/.agentscope");
        QVERIFY2(QFileInfo::exists(home + QStringLiteral("/.bootstrap-complete")), qPrintable(home));
        QVERIFY(!QFileInfo::exists(home + QStringLiteral("/_mcp_gateway_app.py")));

        // Opened again: complete, nothing runs.
        const Run again = run(open);
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        QCOMPARE(again.out.trimmed(), id);
        QVERIFY2(again.err.contains(
                     QLatin1String("bootstrap already complete (/root/.agentscope/.bootstrap-complete exists)")),
                 qPrintable(again.err));
        QVERIFY(!QFileInfo::exists(home + QStringLiteral("/_mcp_gateway_app.py")));
        QCOMPARE(run({QStringLiteral("kill"), id}).exitCode, 0);
    }

    void renewNeverShortensWithoutBeingAsked()
    {
        const Run opened =
            run({QStringLiteral("--bootstrap"), QStringLiteral("/dev/null"), QStringLiteral("open"),
                 QStringLiteral("--user"), QStringLiteral("vera"), QStringLiteral("--agent"), QStringLiteral("agent")});
        QVERIFY2(opened.exitCode == 0, qPrintable(opened.err));
        const QString id = opened.out.trimmed();
        const auto expiry = [this, &id] { return row(id).value(QLatin1String("expiresAt")).toString(); };
        const auto expiryTime = [&expiry] { return QDateTime::fromString(expiry(), Qt::ISODateWithMs); };

        // Two hours from now is later than the 30 minutes it has: renewed.
        Run renewed = run({QStringLiteral("renew"), id, QStringLiteral("--seconds"), QStringLiteral("7200")});
        QVERIFY2(renewed.exitCode == 0, qPrintable(renewed.err));
        const QString current = expiry();
        QVERIFY(expiryTime() > QDateTime::currentDateTimeUtc().addSecs(7000));

        // Ten minutes from now would shorten it: nothing changes, and the message says why.
        const QDateTime before = QDateTime::currentDateTimeUtc().addSecs(600);
        Run refused = run({QStringLiteral("renew"), id, QStringLiteral("--seconds"), QStringLiteral("600")});
        const QDateTime after = QDateTime::currentDateTimeUtc().addSecs(600);
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains(current), qPrintable(refused.err)); // the current expiry
        QVERIFY2(refused.err.contains(QLatin1String("--allow-shorter")), qPrintable(refused.err));
        const QRegularExpression newExpiry(QStringLiteral("is (\\S+Z), earlier than"));
        const QRegularExpressionMatch match = newExpiry.match(refused.err);
        QVERIFY2(match.hasMatch(), qPrintable(refused.err));
        const QDateTime proposed = QDateTime::fromString(match.captured(1), Qt::ISODateWithMs);
        QVERIFY2(proposed >= before.addMSecs(-1) && proposed <= after, qPrintable(match.captured(1)));
        QVERIFY(refused.out.isEmpty());
        QCOMPARE(expiry(), current);

        // Asked for: shortened to about ten minutes from now.
        renewed = run({QStringLiteral("renew"), id, QStringLiteral("--seconds"), QStringLiteral("600"),
                       QStringLiteral("--allow-shorter")});
        QVERIFY2(renewed.exitCode == 0, qPrintable(renewed.err));
        QVERIFY(expiryTime() < QDateTime::fromString(current, Qt::ISODateWithMs));
        QVERIFY(expiryTime() <= QDateTime::currentDateTimeUtc().addSecs(601));
        QVERIFY2(renewed.out.contains(QStringLiteral("%1 expires at ").arg(id)), qPrintable(renewed.out));

        // --allow-shorter belongs to renew.
        QCOMPARE(run({QStringLiteral("list"), QStringLiteral("--allow-shorter")}).exitCode, 2);
        QCOMPARE(run({QStringLiteral("kill"), id}).exitCode, 0);
    }

    void sweepPausesIdleSandboxesByTheConsolesRule()
    {
        // OpenSandbox reports no last activity: sweep goes by the sessions/ folder, else the
        // creation time, as the console's idle triage does. A server of its own, whose state
        // (creation times) the test rewrites between two runs of it, and whose sandbox files are
        // on this machine (their modification times are the sessions/ activity execd reports).
        QTemporaryDir data;
        QVERIFY(data.isValid());
        PaddockTest::FakeOpenSandboxProcess server;
        const QStringList serverArgs{QStringLiteral("--api-key"), QStringLiteral("k3y"), QStringLiteral("--data-dir"),
                                     data.path()};
        QVERIFY2(server.start(serverArgs), qPrintable(server.error()));
        QStringList ids;
        for (const char *agent : {"x", "y", "z"}) {
            const Run opened = run({QStringLiteral("--bootstrap"), QStringLiteral("/dev/null"), QStringLiteral("open"),
                                    QStringLiteral("--user"), QStringLiteral("sweeper"), QStringLiteral("--agent"),
                                    QString::fromLatin1(agent)},
                                   "k3y", server.domain());
            QVERIFY2(opened.exitCode == 0, qPrintable(opened.err));
            ids.append(opened.out.trimmed());
        }
        const QString x = ids.at(0), y = ids.at(1), z = ids.at(2);
        const auto sweep = [this, &server](const QStringList &args) {
            return run(QStringList{QStringLiteral("sweep"), QStringLiteral("--idle")} + args, "k3y", server.domain());
        };
        const auto states = [this, &server] {
            QHash<QString, QString> byWorkspace;
            const Run listed = run({QStringLiteral("list"), QStringLiteral("--json")}, "k3y", server.domain());
            for (const QJsonValue &value : QJsonDocument::fromJson(listed.out.toUtf8()).array()) {
                const QJsonObject row = value.toObject();
                byWorkspace.insert(row.value(QLatin1String("workspaceId")).toString(),
                                   row.value(QLatin1String("state")).toString());
            }
            return byWorkspace;
        };

        // Just made: not idle for an hour, each said so (before, sweep printed nothing at all). The
        // newest time known is the sessions/ folder the provisioning made, or the creation when
        // the folder's (coarser) time comes out earlier.
        Run swept = sweep({QStringLiteral("3600")});
        QVERIFY2(swept.exitCode == 0, qPrintable(swept.err));
        QCOMPARE(swept.out.count(u'\n'), 3);
        for (const QString &id : std::as_const(ids)) {
            QVERIFY2(QRegularExpression(QStringLiteral("^%1 not idle for long enough \\(idle \\d+s of 1h 0m, judged by "
                                                       "its (sessions/ folder|creation time)\\)$")
                                            .arg(id),
                                        QRegularExpression::MultilineOption)
                         .match(swept.out)
                         .hasMatch(),
                     qPrintable(swept.out));
        }

        // Made three hours ago, as far as the server knows: x last used in sessions/ two hours
        // ago, y five minutes ago (a session file), z never (no sessions/ folder).
        QHash<QString, QString> sandboxOf;
        {
            const Run listed = run({QStringLiteral("list"), QStringLiteral("--json")}, "k3y", server.domain());
            for (const QJsonValue &value : QJsonDocument::fromJson(listed.out.toUtf8()).array()) {
                sandboxOf.insert(value[QLatin1String("workspaceId")].toString(),
                                 value[QLatin1String("sandboxId")].toString());
            }
        }
        QCOMPARE(server.stop(), 0);
        const QDateTime now = QDateTime::currentDateTimeUtc();
        QFile state(data.filePath(QStringLiteral("state.json")));
        QVERIFY(state.open(QIODevice::ReadOnly));
        QJsonObject document = QJsonDocument::fromJson(state.readAll()).object();
        state.close();
        QJsonArray sandboxes = document.value(QLatin1String("sandboxes")).toArray();
        QCOMPARE(sandboxes.size(), 3);
        for (qsizetype i = 0; i < sandboxes.size(); ++i) {
            QJsonObject sandbox = sandboxes.at(i).toObject();
            sandbox.insert(QStringLiteral("createdAtUs"), double(now.addSecs(-3 * 3600).toMSecsSinceEpoch()) * 1000);
            sandboxes.replace(i, sandbox);
        }
        document.insert(QStringLiteral("sandboxes"), sandboxes);
        QVERIFY(state.open(QIODevice::WriteOnly | QIODevice::Truncate));
        state.write(QJsonDocument(document).toJson());
        state.close();
        const auto sessions = [&data, &sandboxOf](const QString &id) {
            return data.filePath(sandboxOf.value(id) + QStringLiteral("/workspace/sessions"));
        };
        QVERIFY(setModified(sessions(x), now.addSecs(-2 * 3600)));
        QFile session(sessions(y) + QStringLiteral("/s1.json"));
        QVERIFY(session.open(QIODevice::WriteOnly));
        session.close();
        QVERIFY(setModified(session.fileName(), now.addSecs(-5 * 60)));
        QVERIFY(setModified(sessions(y), now.addSecs(-2 * 3600)));
        QVERIFY(QDir(sessions(z)).removeRecursively());
        QVERIFY2(server.start(serverArgs), qPrintable(server.error()));

        // A dry run says what it would do, and does nothing.
        swept = sweep({QStringLiteral("600"), QStringLiteral("--dry-run")});
        QVERIFY2(swept.exitCode == 0, qPrintable(swept.err));
        QVERIFY2(
            swept.out.contains(x + QStringLiteral(" would be paused (idle 2h 0m, judged by its sessions/ folder)\n")),
            qPrintable(swept.out));
        QVERIFY2(QRegularExpression(QStringLiteral("^%1 not idle for long enough \\(idle 5m \\d+s of 10m 0s, judged by "
                                                   "its sessions/ folder\\)$")
                                        .arg(y),
                                    QRegularExpression::MultilineOption)
                     .match(swept.out)
                     .hasMatch(),
                 qPrintable(swept.out));
        QVERIFY2(swept.out.contains(z + QStringLiteral(" would be paused (idle 3h 0m, judged by its creation time)\n")),
                 qPrintable(swept.out));
        QCOMPARE(swept.out.count(u'\n'), 3);
        QHash<QString, QString> listed = states();
        QCOMPARE(listed.value(x), QStringLiteral("Running"));
        QCOMPARE(listed.value(z), QStringLiteral("Running"));

        // The sweep pauses x and z on the server, and leaves y running.
        swept = sweep({QStringLiteral("600")});
        QVERIFY2(swept.exitCode == 0, qPrintable(swept.err));
        QVERIFY2(swept.out.contains(x + QStringLiteral(" paused (idle 2h 0m, judged by its sessions/ folder)\n")),
                 qPrintable(swept.out));
        QVERIFY2(swept.out.contains(z + QStringLiteral(" paused (idle 3h 0m, judged by its creation time)\n")),
                 qPrintable(swept.out));
        QVERIFY(swept.out.contains(y + QStringLiteral(" not idle for long enough (idle 5m ")));
        listed = states();
        QCOMPARE(listed.value(x), QStringLiteral("Paused"));
        QCOMPARE(listed.value(y), QStringLiteral("Running"));
        QCOMPARE(listed.value(z), QStringLiteral("Paused"));

        // --idle 1 (the report's case): y, idle five minutes, is paused too; only it was running.
        swept = sweep({QStringLiteral("1")});
        QVERIFY2(swept.exitCode == 0, qPrintable(swept.err));
        QVERIFY2(QRegularExpression(
                     QStringLiteral("^%1 paused \\(idle 5m \\d+s, judged by its sessions/ folder\\)\n$").arg(y))
                     .match(swept.out)
                     .hasMatch(),
                 qPrintable(swept.out));
        QCOMPARE(states().value(y), QStringLiteral("Paused"));
    }

    void theKeyComesFromTheEnvironment()
    {
        // OPEN_SANDBOX_API_KEY is paddockctl's one key source: the server (started with
        // --api-key) takes it, and without it there is no key at all.
        Run listed = run({QStringLiteral("list")});
        QVERIFY2(listed.exitCode == 0, qPrintable(listed.err));
        listed = run({QStringLiteral("list")}, {});
        QCOMPARE(listed.exitCode, 1);
        QVERIFY2(listed.err.contains(QLatin1String("HTTP 401 MISSING_API_KEY")), qPrintable(listed.err));
    }

    void badInputGetsOneClearMessage()
    {
        Run bad = run({QStringLiteral("list")}, "wrong-key");
        QCOMPARE(bad.exitCode, 1);
        QVERIFY2(bad.err.contains(QLatin1String("HTTP 401 INVALID_API_KEY"))
                     && bad.err.contains(QLatin1String("request")),
                 qPrintable(bad.err));
        QVERIFY(!bad.err.contains(QLatin1String("wrong-key")));

        bad = run({QStringLiteral("list")}, "k3y", QStringLiteral("127.0.0.1:8080/v1"));
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains(QLatin1String("without a path")), qPrintable(bad.err));
        bad = run({QStringLiteral("list")}, "k3y", QStringLiteral("127.0.0.1:70000"));
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains(QLatin1String("1 to 65535")), qPrintable(bad.err));

        quint16 closedPort = 0;
        {
            QTcpServer probe;
            QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
            closedPort = probe.serverPort();
        }
        bad = run({QStringLiteral("list")}, "k3y", QStringLiteral("127.0.0.1:%1").arg(closedPort));
        QCOMPARE(bad.exitCode, 1);
        QVERIFY2(bad.err.contains(QLatin1String("Connection refused")), qPrintable(bad.err));

        // A server that answers HTML where JSON belongs.
        QTcpServer html;
        QVERIFY(html.listen(QHostAddress::LocalHost, 0));
        QObject::connect(&html, &QTcpServer::newConnection, &html, [&html] {
            while (QTcpSocket *socket = html.nextPendingConnection()) {
                QObject::connect(socket, &QTcpSocket::readyRead, socket, [socket] {
                    socket->readAll();
                    const QByteArray body = "<html><body>Welcome to nginx!</body></html>";
                    socket->write("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: "
                                  + QByteArray::number(body.size()) + "\r\n\r\n" + body);
                });
            }
        });
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_home.path() + QStringLiteral("/data"));
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(PADDOCKCTL_PATH),
                      {QStringLiteral("--backend"), QStringLiteral("opensandbox"), QStringLiteral("--domain"),
                       QStringLiteral("127.0.0.1:%1").arg(html.serverPort()), QStringLiteral("list")});
        QTRY_VERIFY_WITH_TIMEOUT(process.state() == QProcess::NotRunning, 60'000);
        QCOMPARE(process.exitCode(), 1);
        const QString err = QString::fromUtf8(process.readAllStandardError());
        QVERIFY2(err.contains(QLatin1String("not a JSON object")), qPrintable(err));

        // https against a server that speaks plain HTTP: a TLS error, said once.
        bad = run({QStringLiteral("--protocol"), QStringLiteral("https"), QStringLiteral("list")});
        QCOMPARE(bad.exitCode, 1);
        QVERIFY2(bad.err.contains(QStringLiteral("GET https://%1/v1/sandboxes failed").arg(m_server.domain())),
                 qPrintable(bad.err));
        QCOMPARE(bad.err.count(u'\n'), 1);

        bad = run({QStringLiteral("--basedir"), QStringLiteral("/tmp"), QStringLiteral("list")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains(QLatin1String("local and docker backends only")));
        bad = run({QStringLiteral("--sandbox-timeout"), QStringLiteral("30"), QStringLiteral("list")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains(QLatin1String("at least 60")));
    }
};

QTEST_GUILESS_MAIN(TestPaddockctlOpenSandbox)
#include "tst_paddockctl_opensandbox.moc"
