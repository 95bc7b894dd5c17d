#include "provisioner.h"
#include "shellquote.h"

#include <QProcess>
#include <QTest>

using namespace Paddock;

class TestShellQuote final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void quote_data()
    {
        QTest::addColumn<QString>("argument");
        QTest::addColumn<QString>("expected");
        // What Python's shlex.quote returns for the same input.
        QTest::newRow("empty") << ""
                               << "''";
        QTest::newRow("safe") << "abc-XYZ_09@%+=:,./"
                              << "abc-XYZ_09@%+=:,./";
        QTest::newRow("space") << "a b"
                               << "'a b'";
        QTest::newRow("pipe and semicolon") << "a b c | ;"
                                            << "'a b c | ;'";
        QTest::newRow("single quote") << "it's"
                                      << "'it'\"'\"'s'";
        QTest::newRow("pip spec") << "mcp<2.0.0"
                                  << "'mcp<2.0.0'";
        QTest::newRow("dollar") << "$HOME"
                                << "'$HOME'";
        QTest::newRow("tilde") << "~"
                               << "'~'";
        QTest::newRow("glob") << "*.py"
                              << "'*.py'";
        QTest::newRow("newline") << "a\nb"
                                 << "'a\nb'";
        QTest::newRow("non-ascii") << "运维"
                                   << "'运维'";
        QTest::newRow("only quote") << "'"
                                    << "''\"'\"''";
    }

    void quote()
    {
        QFETCH(QString, argument);
        QFETCH(QString, expected);
        QCOMPARE(shellQuote(argument), expected);
    }

    void joinMatchesUpstreamWireForm()
    {
        // Reference §3: the pip bootstrap line as AgentScope sends it.
        const QString pip = QStringLiteral(
            "uv pip install --python /root/.agentscope/.venv/bin/python 'mcp<2.0.0' uvicorn fastapi httpx");
        QCOMPARE(shellJoin({QStringLiteral("sh"), QStringLiteral("-c"), pip}),
                 QStringLiteral("sh -c 'uv pip install --python /root/.agentscope/.venv/bin/python "
                                "'\"'\"'mcp<2.0.0'\"'\"' uvicorn fastapi httpx'"));
        QCOMPARE(shellJoin({QStringLiteral("echo"), QStringLiteral("a b | ;")}), QStringLiteral("echo 'a b | ;'"));
    }

    void quotedArgumentSurvivesTheShell_data()
    {
        QTest::addColumn<QString>("argument");
        QTest::newRow("metacharacters") << "a b c | ; & $(x) `y` \"z\"";
        QTest::newRow("quotes") << "it's \"quoted\" ''";
        QTest::newRow("unicode") << "工作区 ✓";
        QTest::newRow("empty") << "";
    }

    void quotedArgumentSurvivesTheShell()
    {
        QFETCH(QString, argument);
        QProcess sh;
        sh.start(QStringLiteral("sh"), {QStringLiteral("-c"), QStringLiteral("printf %s ") + shellQuote(argument)});
        QVERIFY(sh.waitForFinished());
        QCOMPARE(QString::fromUtf8(sh.readAllStandardOutput()), argument);
    }

    void bootstrapFile()
    {
        const auto commands = parseBootstrapCommands(
            QStringLiteral("# comment\napt-get update\n\n  echo 'a b'  \r\n#another\n"), std::chrono::seconds(60));
        QCOMPARE(commands.size(), 2);
        QCOMPARE(commands[0].command, QStringLiteral("apt-get update"));
        QCOMPARE(commands[1].command, QStringLiteral("echo 'a b'"));
        QCOMPARE(commands[1].timeout, std::chrono::seconds(60));
        QVERIFY(parseBootstrapCommands(QString(), std::chrono::seconds(1)).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestShellQuote)
#include "tst_shellquote.moc"
