// paddockctl's bulk verbs against paddock-fake-opensandbox (a real server process on 127.0.0.1,
// seeded with 40 sandboxes: every fourth one paused, two users, four agents): selection by --all
// and filters from one listing, bounded concurrency counted by the server, results in the order
// given, one failure not stopping the rest, --dry-run, --yes, --json, bad input, and Ctrl+C.

#include "fakeopensandboxprocess.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <memory>

namespace {

struct Run
{
    int exitCode = -1;
    QString out;
    QString err;
};

constexpr int Seeded = 40; // 30 running, 10 paused

} // namespace

class TestPaddockctlBulk final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_home;
    std::unique_ptr<PaddockTest::FakeOpenSandboxProcess> m_server;

    QProcessEnvironment environment() const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_home.path() + QStringLiteral("/data"));
        env.insert(QStringLiteral("XDG_CACHE_HOME"), m_home.path() + QStringLiteral("/cache"));
        env.remove(QStringLiteral("OPEN_SANDBOX_API_KEY"));
        env.remove(QStringLiteral("OPEN_SANDBOX_DOMAIN"));
        env.remove(QStringLiteral("QT_LOGGING_RULES"));
        env.remove(QStringLiteral("COLUMNS"));
        env.insert(QStringLiteral("LANGUAGE"), QStringLiteral("en"));
        return env;
    }
    QStringList global() const
    {
        return {QStringLiteral("--backend"), QStringLiteral("opensandbox"), QStringLiteral("--domain"),
                m_server->domain()};
    }

    Run run(const QStringList &args, const QByteArray &stdinText = {}) const
    {
        QProcess process;
        process.setProcessEnvironment(environment());
        process.start(QStringLiteral(PADDOCKCTL_PATH), global() + args);
        // stdin is a pipe here, never a terminal: what --yes is needed for.
        process.write(stdinText);
        process.closeWriteChannel();
        if (!process.waitForFinished(300'000))
            qFatal("paddockctl %s did not finish", qPrintable(args.join(u' ')));
        return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
                QString::fromUtf8(process.readAllStandardOutput()), QString::fromUtf8(process.readAllStandardError())};
    }

    QStringList ids(const QStringList &filters = {}) const
    {
        const Run listed =
            run(QStringList{QStringLiteral("list"), QStringLiteral("--output"), QStringLiteral("ids")} + filters);
        if (listed.exitCode != 0)
            qWarning("%s", qPrintable(listed.err));
        return listed.out.split(u'\n', Qt::SkipEmptyParts);
    }

    QJsonArray listJson() const
    {
        const Run listed = run({QStringLiteral("list"), QStringLiteral("--json")});
        return QJsonDocument::fromJson(listed.out.toUtf8()).array();
    }

    QHash<QString, QString> statesById() const
    {
        QHash<QString, QString> states;
        for (const QJsonValue &row : listJson())
            states.insert(row[QLatin1String("workspaceId")].toString(), row[QLatin1String("state")].toString());
        return states;
    }

    bool restart(const QStringList &extra = {})
    {
        m_server.reset(); // the old one stopped first
        m_server = std::make_unique<PaddockTest::FakeOpenSandboxProcess>();
        return m_server->start(QStringList{QStringLiteral("--seed"), QString::number(Seeded)} + extra);
    }

    qint64 stat(const char *name) const { return m_server->stats().value(QLatin1String(name)).toInteger(); }
    void resetStats() const { QVERIFY(m_server->resetStats().contains(QLatin1String("requests"))); }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_home.isValid()); }

    void init() { QVERIFY(restart()); }

    void filtersChooseFromOneListing()
    {
        const QStringList everything = ids();
        QCOMPARE(everything.size(), Seeded);
        const QStringList running = ids({QStringLiteral("--state"), QStringLiteral("running")});
        const QStringList paused = ids({QStringLiteral("--state"), QStringLiteral("paused")});
        QCOMPARE(running.size(), 30);
        QCOMPARE(paused.size(), 10);
        // Comma lists and repetition are one filter: any of the states.
        QCOMPARE(ids({QStringLiteral("--state"), QStringLiteral("Running,PAUSED")}).size(), Seeded);
        // Users and agents: any of those given; together with a state, every condition holds.
        const QStringList agentOne = ids({QStringLiteral("--agent"), QStringLiteral("agent-1")});
        QCOMPARE(agentOne.size(), 10);
        const QStringList agentOneOrTwo = ids({QStringLiteral("--agent"), QStringLiteral("agent-1"),
                                               QStringLiteral("--agent"), QStringLiteral("agent-2")});
        QCOMPARE(agentOneOrTwo.size(), 20);
        // Every fourth seeded sandbox is paused, and so is every one of agent-4's.
        const QStringList agentFourPaused = ids({QStringLiteral("--agent"), QStringLiteral("agent-4"),
                                                 QStringLiteral("--state"), QStringLiteral("paused")});
        QCOMPARE(agentFourPaused, paused);
        QVERIFY(ids({QStringLiteral("--agent"), QStringLiteral("agent-4"), QStringLiteral("--state"),
                     QStringLiteral("running")})
                    .isEmpty());
        // Metadata labels, every one of them; the Chinese user as the listing decodes it.
        QCOMPARE(ids({QStringLiteral("--label"), QStringLiteral("agentscope.user.id=user-1")}).size(), 20);
        QCOMPARE(ids({QStringLiteral("--user"), QStringLiteral("运维")}).size(), 20);
        QCOMPARE(ids({QStringLiteral("--label"), QStringLiteral("agentscope.user.id=user-1"), QStringLiteral("--label"),
                      QStringLiteral("agentscope.agent.id=agent-1")})
                     .size(),
                 ids({QStringLiteral("--user"), QStringLiteral("user-1"), QStringLiteral("--agent"),
                      QStringLiteral("agent-1")})
                     .size());
        // Times: seeded a second apart up to now, each expiring a day after its creation.
        QCOMPARE(ids({QStringLiteral("--expires-within"), QStringLiteral("2d")}).size(), Seeded);
        QVERIFY(ids({QStringLiteral("--expires-within"), QStringLiteral("1h")}).isEmpty());
        // Idle by the listing's times (here their creation): the older ones first in the listing.
        // (Relations only: how many are past a threshold depends on how long this has taken.)
        const QStringList idle20 = ids({QStringLiteral("--idle-longer-than"), QStringLiteral("20s")});
        const QStringList idle10 = ids({QStringLiteral("--idle-longer-than"), QStringLiteral("10s")});
        QVERIFY(idle20.size() >= 20);
        QVERIFY(idle10.size() >= idle20.size());
        for (const QString &id : idle20)
            QVERIFY(idle10.contains(id));
        QCOMPARE(ids({QStringLiteral("--idle-longer-than"), QStringLiteral("1s")}).size(), Seeded);
        QVERIFY(ids({QStringLiteral("--idle-longer-than"), QStringLiteral("1d")}).isEmpty());

        // One listing for a selection of ids too: two pages' worth of ids cost one list request.
        resetStats();
        const Run dry = run(QStringList{QStringLiteral("pause"), QStringLiteral("--dry-run")} + running.mid(0, 5));
        QCOMPARE(dry.exitCode, 0);
        QCOMPARE(stat("requests"), 1);
        QCOMPARE(dry.out.count(QStringLiteral("would pause ")), 5);
        QVERIFY(dry.out.startsWith(QStringLiteral("would pause %1 (Running, ").arg(running.at(0))));
    }

    void pauseAllRunsInParallelAndKeepsTheOrder()
    {
        // Answers that take a while, so that requests overlap at the server.
        QVERIFY(restart({QStringLiteral("--latency-ms"), QStringLiteral("50")}));
        const QStringList running = ids({QStringLiteral("--state"), QStringLiteral("running")});
        QCOMPARE(running.size(), 30);
        resetStats();
        const Run paused = run({QStringLiteral("pause"), QStringLiteral("--all"), QStringLiteral("--state"),
                                QStringLiteral("running"), QStringLiteral("--concurrency"), QStringLiteral("4")});
        QCOMPARE(paused.exitCode, 0);
        QCOMPARE(paused.err, QString());
        // In the listing's order, one line each.
        QStringList expected;
        for (const QString &id : running)
            expected.append(id + QStringLiteral(" paused"));
        QCOMPARE(paused.out.split(u'\n', Qt::SkipEmptyParts), expected);
        // One listing, one request per pause, and the accepted pauses seen through together by
        // one more listing: never a lookup or a poll per workspace; at most 4 at once.
        QCOMPARE(stat("requests"), 1 + 30 + 1);
        QVERIFY2(stat("maxInflight") <= 4, qPrintable(QString::number(stat("maxInflight"))));
        QVERIFY(stat("maxInflight") >= 2);
        const auto states = statesById();
        for (const QString &id : running)
            QCOMPARE(states.value(id), QStringLiteral("Paused"));

        // Nothing left to match: said, exit 0; 1 with --fail-empty.
        const Run none = run(
            {QStringLiteral("pause"), QStringLiteral("--all"), QStringLiteral("--state"), QStringLiteral("running")});
        QCOMPARE(none.exitCode, 0);
        QVERIFY2(none.err.contains(QStringLiteral("no workspace matches")), qPrintable(none.err));
        QCOMPARE(run({QStringLiteral("pause"), QStringLiteral("--all"), QStringLiteral("--state"),
                      QStringLiteral("running"), QStringLiteral("--fail-empty")})
                     .exitCode,
                 1);
        // For scripts, an empty match is still an array.
        const Run noneJson = run({QStringLiteral("pause"), QStringLiteral("--all"), QStringLiteral("--state"),
                                  QStringLiteral("running"), QStringLiteral("--json")});
        QCOMPARE(noneJson.exitCode, 0);
        QCOMPARE(noneJson.out.trimmed(), QStringLiteral("[\n]"));
    }

    void pausesThatTakeAWhileAreSeenThroughTogether()
    {
        // A server that shows Pausing for a while (as on Kubernetes): every POST first, then the
        // listing polled for all of them until each is Paused, never a poll per sandbox.
        QVERIFY(restart({QStringLiteral("--pause-ms"), QStringLiteral("1500")}));
        const QStringList running = ids({QStringLiteral("--state"), QStringLiteral("running")});
        QCOMPARE(running.size(), 30);
        resetStats();
        const Run paused = run({QStringLiteral("pause"), QStringLiteral("--all"), QStringLiteral("--state"),
                                QStringLiteral("running"), QStringLiteral("--concurrency"), QStringLiteral("8")});
        QCOMPARE(paused.exitCode, 0);
        QCOMPARE(paused.out.count(QStringLiteral(" paused\n")), 30);
        QVERIFY2(paused.out.startsWith(running.at(0) + QStringLiteral(" paused\n")), qPrintable(paused.out));
        // One listing to choose, one POST each, then listings (one page each) until all are
        // Paused: at least two of them, and far fewer than a GET per sandbox per poll.
        const qint64 requests = stat("requests");
        QVERIFY2(requests >= 1 + 30 + 2 && requests <= 1 + 30 + 20, qPrintable(QString::number(requests)));
        QCOMPARE(ids({QStringLiteral("--state"), QStringLiteral("paused")}).size(), Seeded);
    }

    void concurrencyAboveSixReachesTheServer()
    {
        // Qt opens six connections per host and network manager: a job of 12 must still have 12
        // requests at the server at once (it had six, and 1,000 pauses at 16 took twice the time).
        QVERIFY(restart({QStringLiteral("--latency-ms"), QStringLiteral("200")}));
        resetStats();
        const Run paused = run({QStringLiteral("pause"), QStringLiteral("--all"), QStringLiteral("--state"),
                                QStringLiteral("running"), QStringLiteral("--concurrency"), QStringLiteral("12")});
        QCOMPARE(paused.exitCode, 0);
        QCOMPARE(paused.out.count(QStringLiteral(" paused\n")), 30);
        QVERIFY2(stat("maxInflight") > 6, qPrintable(QString::number(stat("maxInflight"))));
        QVERIFY2(stat("maxInflight") <= 12, qPrintable(QString::number(stat("maxInflight"))));
    }

    void oneFailureDoesNotStopTheRest()
    {
        const QStringList paused = ids({QStringLiteral("--state"), QStringLiteral("paused")});
        QVERIFY(paused.size() >= 3);
        // A workspace that does not exist between two that do: both resumed, the missing one said,
        // exit 1; --json gives every result at the end.
        const Run resumed = run({QStringLiteral("resume"), paused.at(0), QStringLiteral("nosuchworkspace"),
                                 paused.at(1), QStringLiteral("--json")});
        QCOMPARE(resumed.exitCode, 1);
        QVERIFY2(resumed.err.contains(QStringLiteral("resume nosuchworkspace: no workspace nosuchworkspace")),
                 qPrintable(resumed.err));
        // The id that names nothing first, then the others in the order given.
        const QJsonArray rows = QJsonDocument::fromJson(resumed.out.toUtf8()).array();
        QCOMPARE(rows.size(), 3);
        QCOMPARE(rows.at(0)[QLatin1String("workspaceId")].toString(), QStringLiteral("nosuchworkspace"));
        QVERIFY(!rows.at(0)[QLatin1String("ok")].toBool());
        QVERIFY(rows.at(0)[QLatin1String("sandboxId")].isNull());
        QCOMPARE(rows.at(1)[QLatin1String("workspaceId")].toString(), paused.at(0));
        QCOMPARE(rows.at(2)[QLatin1String("workspaceId")].toString(), paused.at(1));
        QVERIFY(rows.at(1)[QLatin1String("ok")].toBool() && rows.at(2)[QLatin1String("ok")].toBool());
        QVERIFY(rows.at(1)[QLatin1String("started")].toBool());
        QCOMPARE(rows.at(1)[QLatin1String("action")].toString(), QStringLiteral("resume"));
        const auto states = statesById();
        QCOMPARE(states.value(paused.at(0)), QStringLiteral("Running"));
        QCOMPARE(states.value(paused.at(1)), QStringLiteral("Running"));
        QCOMPARE(states.value(paused.at(2)), QStringLiteral("Paused"));

        // Renew many: each from now, never shorter unless asked (a day is left; an hour is not more).
        const Run shorter = run(
            {QStringLiteral("renew"), paused.at(0), paused.at(1), QStringLiteral("--seconds"), QStringLiteral("1h")});
        QCOMPARE(shorter.exitCode, 1);
        QCOMPARE(shorter.err.count(QStringLiteral("earlier than its current expiry")), 2);
        const Run longer = run(
            {QStringLiteral("renew"), paused.at(0), paused.at(1), QStringLiteral("--seconds"), QStringLiteral("2d")});
        QCOMPARE(longer.exitCode, 0);
        QVERIFY(longer.out.startsWith(paused.at(0) + QStringLiteral(" expires at ")));
        QCOMPARE(longer.out.count(QStringLiteral(" expires at ")), 2);
    }

    void killOfManyNeedsConsent()
    {
        const QStringList agentOne = ids({QStringLiteral("--agent"), QStringLiteral("agent-1")});
        QCOMPARE(agentOne.size(), 10);
        const QStringList killAgentOne{QStringLiteral("kill"), QStringLiteral("--all"), QStringLiteral("--agent"),
                                       QStringLiteral("agent-1")};
        // stdin is not a terminal: --yes is needed, and nothing is done without it, whatever it says.
        const Run refused = run(killAgentOne, "y\n");
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains(QStringLiteral("give --yes")), qPrintable(refused.err));
        QCOMPARE(ids().size(), Seeded);
        // --dry-run says which, and does nothing either.
        const Run dry = run(killAgentOne + QStringList{QStringLiteral("--dry-run")});
        QCOMPARE(dry.exitCode, 0);
        QCOMPARE(dry.out.count(QStringLiteral("would kill ")), 10);
        const Run dryJson = run(killAgentOne + QStringList{QStringLiteral("--dry-run"), QStringLiteral("--json")});
        const QJsonArray wouldRows = QJsonDocument::fromJson(dryJson.out.toUtf8()).array();
        QCOMPARE(wouldRows.size(), 10);
        QVERIFY(wouldRows.at(0)[QLatin1String("dryRun")].toBool());
        QCOMPARE(wouldRows.at(0)[QLatin1String("action")].toString(), QStringLiteral("kill"));
        QCOMPARE(ids().size(), Seeded);
        // Ids given are what the user chose: no question.
        const Run one = run({QStringLiteral("kill"), agentOne.at(0), agentOne.at(1)});
        QCOMPARE(one.exitCode, 0);
        QCOMPARE(ids().size(), Seeded - 2);
        const Run killed = run(killAgentOne + QStringList{QStringLiteral("--yes")});
        QCOMPARE(killed.exitCode, 0);
        QCOMPARE(killed.out.count(QStringLiteral(" killed; deleted sandbox ")), 8);
        QCOMPARE(ids().size(), Seeded - 10);
        QVERIFY(ids({QStringLiteral("--agent"), QStringLiteral("agent-1")}).isEmpty());
    }

    void killOfManyAsksOnATerminal()
    {
        // stdin a terminal (script(1) gives paddockctl a pseudo-terminal and passes our input on):
        // asked, and only "y" kills.
        if (QStandardPaths::findExecutable(QStringLiteral("script")).isEmpty()) {
            if (qEnvironmentVariable("CI") == QLatin1String("true"))
                QFAIL("script(1) (bsdutils) is needed");
            QSKIP("script(1) is not installed");
        }
        const auto onATerminal = [this](const QByteArray &answer) {
            QStringList words{QStringLiteral(PADDOCKCTL_PATH)};
            words += global();
            words += QStringList{QStringLiteral("kill"), QStringLiteral("--all"), QStringLiteral("--agent"),
                                 QStringLiteral("agent-2")};
            QString command;
            for (const QString &word : std::as_const(words))
                command += QStringLiteral("'%1' ").arg(word);
            QProcess process;
            process.setProcessEnvironment(environment());
            process.start(QStringLiteral("script"),
                          {QStringLiteral("-q"), QStringLiteral("-e"), QStringLiteral("-c"), command,
                           QStringLiteral("/dev/null")});
            process.write(answer);
            process.closeWriteChannel();
            if (!process.waitForFinished(120'000))
                qFatal("script did not finish");
            return Run{process.exitCode(), QString::fromUtf8(process.readAllStandardOutput()), {}};
        };
        const Run declined = onATerminal("n\n");
        QCOMPARE(declined.exitCode, 1);
        QVERIFY2(declined.out.contains(QStringLiteral("Kill 10 workspaces? Their sandboxes are deleted. [y/N]")),
                 qPrintable(declined.out));
        QVERIFY2(declined.out.contains(QStringLiteral("not confirmed; nothing was killed")), qPrintable(declined.out));
        QCOMPARE(ids().size(), Seeded);
        const Run confirmed = onATerminal("y\n");
        QCOMPARE(confirmed.exitCode, 0);
        QCOMPARE(confirmed.out.count(QStringLiteral(" killed; deleted sandbox ")), 10);
        QCOMPARE(ids().size(), Seeded - 10);
    }

    void badInputDoesNothing_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("says");
        QTest::newRow("concurrency 0") << QStringList{"pause", "--all", "--concurrency", "0"}
                                       << "--concurrency takes a whole number from 1 to 64, not \"0\"";
        QTest::newRow("concurrency 65") << QStringList{"pause", "--all", "--concurrency", "65"}
                                        << "--concurrency takes a whole number from 1 to 64, not \"65\"";
        QTest::newRow("bad duration") << QStringList{
            "pause", "--all", "--idle-longer-than",
            "5 weeks"} << "--idle-longer-than takes a duration such as 90s, 30m, 2h, 1d, not \"5 weeks\"";
        QTest::newRow("bad expiry") << QStringList{"list", "--expires-within", "1.5h"}
                                    << "--expires-within takes a duration such as 90s, 30m, 2h, 1d, not \"1.5h\"";
        QTest::newRow("unknown state") << QStringList{"kill", "--all", "--yes", "--state", "sleeping"}
                                       << "--state takes running, paused, pending";
        QTest::newRow("bad label") << QStringList{"pause", "--all", "--label", "owner"}
                                   << "--label takes key=value, not \"owner\"";
        QTest::newRow("ids and all") << QStringList{"pause", "--all", "abc"} << "give workspace ids or --all, not both";
        QTest::newRow("filters without all")
            << QStringList{"kill", "abc", "--state", "running"} << "give them with --all";
        QTest::newRow("nothing chosen") << QStringList{"resume"} << "give workspace ids, or --all";
        QTest::newRow("renew without time") << QStringList{"renew", "--all"} << "renew needs --seconds";
    }

    void badInputDoesNothing()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, says);
        resetStats();
        const Run refused = run(args);
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains(says), qPrintable(refused.err));
        QCOMPARE(refused.out, QString());
        QCOMPARE(stat("requests"), 0);
    }

    void anInterruptFinishesWhatStartedAndSaysTheRest()
    {
        // Slow answers, one resume at a time (each said as it is done): Ctrl+C after the first.
        QVERIFY(restart({QStringLiteral("--latency-ms"), QStringLiteral("300")}));
        QProcess process;
        process.setProcessEnvironment(environment());
        process.start(QStringLiteral(PADDOCKCTL_PATH),
                      global()
                          + QStringList{QStringLiteral("resume"), QStringLiteral("--all"), QStringLiteral("--state"),
                                        QStringLiteral("paused"), QStringLiteral("--concurrency"),
                                        QStringLiteral("1")});
        QVERIFY(process.waitForStarted());
        process.closeWriteChannel();
        QByteArray out;
        QTRY_VERIFY_WITH_TIMEOUT((out += process.readAllStandardOutput()).contains(" resumed\n"), 60'000);
        ::kill(pid_t(process.processId()), SIGINT);
        QVERIFY(process.waitForFinished(120'000));
        out += process.readAllStandardOutput();
        const QString err = QString::fromUtf8(process.readAllStandardError());
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 128 + SIGINT);
        const qsizetype done = out.count(" resumed\n");
        QVERIFY2(done >= 1 && done < 10, out.constData());
        QVERIFY2(
            err.contains(QStringLiteral("interrupted: %1 done, 0 failed, %2 not started").arg(done).arg(10 - done)),
            qPrintable(err));
        QVERIFY(err.contains(QStringLiteral("not started: ")));
        // What it said was done is done, and the rest is as it was.
        QCOMPARE(ids({QStringLiteral("--state"), QStringLiteral("paused")}).size(), 10 - done);
    }
};

QTEST_GUILESS_MAIN(TestPaddockctlBulk)
#include "tst_paddockctl_bulk.moc"
