// paddockctl's shell completion: the real binary's hidden `__complete` (commands, options, an
// option's values, the literal words of a command, workspace ids from a listing cached for a
// minute, a TAB that never hangs on a slow server), and the bash and zsh scripts of
// packaging/completion/ run by real shells against it.

#include "backendregistry.h"
#include "fakeopensandboxprocess.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

namespace {

struct Run
{
    int exitCode = -1;
    QString out;
    QString err;

    QStringList lines() const { return out.split(u'\n', Qt::SkipEmptyParts); }
};

} // namespace

class TestPaddockctlComplete final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_home;
    QString m_basedir;

    QString cacheFolder() const { return m_home.path() + QStringLiteral("/cache/paddock/completion"); }

    QProcessEnvironment environment() const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_home.path() + QStringLiteral("/data"));
        env.insert(QStringLiteral("XDG_CACHE_HOME"), m_home.path() + QStringLiteral("/cache"));
        // The shells find the paddockctl under test by its name.
        env.insert(QStringLiteral("PATH"),
                   QFileInfo(QStringLiteral(PADDOCKCTL_PATH)).path() + u':' + env.value(QStringLiteral("PATH")));
        env.insert(QStringLiteral("OPEN_SANDBOX_API_KEY"), QStringLiteral("k3y"));
        env.remove(QStringLiteral("OPEN_SANDBOX_DOMAIN"));
        env.remove(QStringLiteral("QT_LOGGING_RULES"));
        return env;
    }

    Run runProgram(const QString &program, const QStringList &args) const
    {
        QProcess process;
        process.setProcessEnvironment(environment());
        process.start(program, args);
        if (!process.waitForFinished(120'000))
            qFatal("%s %s did not finish", qPrintable(program), qPrintable(args.join(u' ')));
        return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
                QString::fromUtf8(process.readAllStandardOutput()), QString::fromUtf8(process.readAllStandardError())};
    }

    Run run(const QStringList &args) const { return runProgram(QStringLiteral(PADDOCKCTL_PATH), args); }

    // __complete of a command line (the word being completed last); it must always say nothing on
    // stderr and exit 0.
    QStringList complete(const QStringList &words) const
    {
        const Run completed = run(QStringList{QStringLiteral("__complete")} + words);
        if (completed.exitCode != 0 || !completed.err.isEmpty())
            qWarning("__complete %s: exit %d, stderr: %s", qPrintable(words.join(u' ')), completed.exitCode,
                     qPrintable(completed.err));
        return completed.exitCode == 0 && completed.err.isEmpty() ? completed.lines()
                                                                  : QStringList{QStringLiteral("<failed>")};
    }

    QStringList local(const QStringList &words) const
    {
        return QStringList{QStringLiteral("--basedir"), m_basedir} + words;
    }

    QString open(const QString &agent) const
    {
        const Run opened = run(local(
            {QStringLiteral("open"), QStringLiteral("--user"), QStringLiteral("u"), QStringLiteral("--agent"), agent}));
        if (opened.exitCode != 0)
            qWarning("open: %s", qPrintable(opened.err));
        return opened.out.trimmed();
    }

    QStringList cacheFiles() const { return QDir(cacheFolder()).entryList(QDir::Files | QDir::Hidden, QDir::Name); }

    static QByteArray readFile(const QString &path)
    {
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    }

    static QStringList sorted(QStringList list)
    {
        list.sort();
        return list;
    }

private Q_SLOTS:
    void init()
    {
        QVERIFY(m_home.isValid());
        m_basedir = m_home.path() + QStringLiteral("/ws-") + QString::fromLatin1(QTest::currentTestFunction());
    }

    void commands()
    {
        const QStringList all = complete({QString()});
        for (const char *command : {"assign-id", "open", "list", "info", "pause", "resume", "close", "kill", "renew",
                                    "sweep", "logs", "inspect", "exec", "files", "help"})
            QVERIFY2(all.contains(QLatin1String(command)), command);
        QVERIFY2(!all.join(u' ').contains(QLatin1String("__")), qPrintable(all.join(u' ')));
        QCOMPARE(complete({QStringLiteral("pa")}), QStringList{QStringLiteral("pause")});
        QCOMPARE(complete({QStringLiteral("re")}), (QStringList{QStringLiteral("resume"), QStringLiteral("renew")}));
        // After the global options, and their values.
        QCOMPARE(complete({QStringLiteral("--backend"), QStringLiteral("docker"), QStringLiteral("--basedir"),
                           QStringLiteral("/x"), QStringLiteral("li")}),
                 QStringList{QStringLiteral("list")});
        QCOMPARE(complete({QStringLiteral("nosuch"), QString()}), QStringList());

        // The command is hidden: not in help, not among the commands an error names, and a
        // command only as paddockctl's first word.
        const Run help = run({QStringLiteral("--help")});
        QCOMPARE(help.exitCode, 0);
        QVERIFY(!help.out.contains(QLatin1String("__complete")));
        const Run misplaced = run({QStringLiteral("--basedir"), m_basedir, QStringLiteral("__complete"), QString()});
        QCOMPARE(misplaced.exitCode, 2);
        QVERIFY2(misplaced.err.contains(QLatin1String("unknown command \"__complete\"")), qPrintable(misplaced.err));
        QVERIFY2(misplaced.err.count(QLatin1String("__complete")) == 1, qPrintable(misplaced.err));
        QVERIFY(misplaced.out.isEmpty());
    }

    void options()
    {
        // The command's own, then the global ones: paddockctl's and every backend's.
        const QStringList kill = complete({QStringLiteral("kill"), QStringLiteral("--")});
        QCOMPARE(kill.value(0), QStringLiteral("--delete-files"));
        for (const char *option : {"--backend", "--bootstrap", "--basedir", "--bubblewrap", "--domain", "--docker-host",
                                   "--kubeconfig", "--template"})
            QVERIFY2(kill.contains(QLatin1String(option)), option);
        QVERIFY2(!kill.contains(QStringLiteral("--output")), "list's option offered to kill");
        QVERIFY(kill.contains(QStringLiteral("--all")) && kill.contains(QStringLiteral("--yes")));
        QVERIFY(!kill.contains(QStringLiteral("--help")));
        QCOMPARE(complete({QStringLiteral("kill"), QStringLiteral("--del")}),
                 QStringList{QStringLiteral("--delete-files")});
        QVERIFY(complete({QStringLiteral("list"), QStringLiteral("--")}).contains(QStringLiteral("--json")));
        // Before a command: the global ones and --help, --version.
        const QStringList global = complete({QStringLiteral("--")});
        QVERIFY(global.contains(QStringLiteral("--help")) && global.contains(QStringLiteral("--version")));
        QVERIFY(global.contains(QStringLiteral("--basedir")) && !global.contains(QStringLiteral("--delete-files")));

        // Once --backend names one, only its options (another backend's would be refused).
        const Paddock::BackendRegistry &registry = Paddock::BackendRegistry::instance();
        for (const Paddock::BackendFactory &factory : registry.factories()) {
            const QStringList offered =
                complete({QStringLiteral("--backend"), factory.id, QStringLiteral("pause"), QStringLiteral("--")});
            for (const Paddock::BackendFactory &other : registry.factories()) {
                for (const Paddock::CommandLineOption &option : other.commandLineOptions) {
                    const QString flag = QStringLiteral("--") + option.name;
                    QVERIFY2(offered.contains(flag) == factory.takesOption(option.name),
                             qPrintable(factory.id + u' ' + flag));
                }
            }
            QVERIFY(offered.contains(QStringLiteral("--bootstrap")));
        }
    }

    void optionValues()
    {
        const Paddock::BackendRegistry &registry = Paddock::BackendRegistry::instance();
        QCOMPARE(complete({QStringLiteral("--backend"), QString()}), registry.ids());
        QCOMPARE(complete({QStringLiteral("--backend"), QStringLiteral("d")}), QStringList{QStringLiteral("docker")});
        // bash splits --backend=d into three words; zsh keeps one, and gets whole words back.
        QCOMPARE(complete({QStringLiteral("--backend"), QStringLiteral("=")}), registry.ids());
        QCOMPARE(complete({QStringLiteral("--backend"), QStringLiteral("="), QStringLiteral("d")}),
                 QStringList{QStringLiteral("docker")});
        QCOMPARE(complete({QStringLiteral("--backend=d")}), QStringList{QStringLiteral("--backend=docker")});
        QCOMPARE(complete({QStringLiteral("--backend=docker"), QStringLiteral("li")}),
                 QStringList{QStringLiteral("list")});

        QCOMPARE(complete({QStringLiteral("open"), QStringLiteral("--isolation"), QString()}),
                 (QStringList{QStringLiteral("per_agent"), QStringLiteral("per_session"), QStringLiteral("per_user")}));
        QCOMPARE(complete({QStringLiteral("assign-id"), QStringLiteral("--isolation"), QStringLiteral("per_s")}),
                 QStringList{QStringLiteral("per_session")});
        QCOMPARE(complete({QStringLiteral("inspect"), QStringLiteral("x"), QStringLiteral("--section"), QString()}),
                 (QStringList{QStringLiteral("overview"), QStringLiteral("sessions"), QStringLiteral("skills"),
                              QStringLiteral("mcp"), QStringLiteral("data"), QStringLiteral("gateway")}));
        QCOMPARE(complete({QStringLiteral("list"), QStringLiteral("--output"), QString()}),
                 (QStringList{QStringLiteral("table"), QStringLiteral("json"), QStringLiteral("ids")}));
        QCOMPARE(complete({QStringLiteral("list"), QStringLiteral("--output=j")}),
                 QStringList{QStringLiteral("--output=json")});
        QCOMPARE(complete({QStringLiteral("--layout"), QString()}),
                 (QStringList{QStringLiteral("paddock"), QStringLiteral("agentscope")}));
        QCOMPARE(complete({QStringLiteral("--backend"), QStringLiteral("opensandbox"), QStringLiteral("--protocol"),
                           QStringLiteral("h")}),
                 (QStringList{QStringLiteral("http"), QStringLiteral("https")}));
        // A value of one's own (a folder, a number, a user): nothing, the shell completes files.
        QCOMPARE(complete({QStringLiteral("--basedir"), QString()}), QStringList());
        QCOMPARE(complete({QStringLiteral("renew"), QStringLiteral("x"), QStringLiteral("--seconds"), QString()}),
                 QStringList());
        QCOMPARE(complete({QStringLiteral("open"), QStringLiteral("--user"), QString()}), QStringList());
    }

    void literalWords()
    {
        QCOMPARE(
            complete({QStringLiteral("files"), QStringLiteral("x"), QString()}),
            (QStringList{QStringLiteral("ls"), QStringLiteral("cat"), QStringLiteral("get"), QStringLiteral("put")}));
        QCOMPARE(complete({QStringLiteral("files"), QStringLiteral("x"), QStringLiteral("c")}),
                 QStringList{QStringLiteral("cat")});
        // After the subcommand, its paths: nothing of paddockctl's.
        QCOMPARE(complete({QStringLiteral("files"), QStringLiteral("x"), QStringLiteral("get"), QString()}),
                 QStringList());
        QCOMPARE(complete({QStringLiteral("exec"), QStringLiteral("x"), QString()}), QStringList{QStringLiteral("--")});
        // The command exec runs is not paddockctl's to complete, options included.
        QCOMPARE(complete({QStringLiteral("exec"), QStringLiteral("x"), QStringLiteral("--"), QString()}),
                 QStringList());
        QCOMPARE(complete({QStringLiteral("exec"), QStringLiteral("x"), QStringLiteral("--"), QStringLiteral("--")}),
                 QStringList());
        QCOMPARE(complete({QStringLiteral("list"), QString()}), QStringList());
    }

    void idsFromALocalListingCachedForAMinute()
    {
        const QString first = open(QStringLiteral("a1"));
        const QString second = open(QStringLiteral("a2"));
        QVERIFY(!first.isEmpty() && !second.isEmpty() && first != second);
        QDir(cacheFolder()).removeRecursively();

        // No cache: __complete lists, offers every id and remembers them.
        QCOMPARE(sorted(complete(local({QStringLiteral("pause"), QString()}))), sorted({first, second}));
        QCOMPARE(cacheFiles().size(), 1);
        const QString cache = cacheFolder() + u'/' + cacheFiles().constFirst();
        QVERIFY2(cache.contains(QLatin1String("/local-")), qPrintable(cache));
        QCOMPARE(sorted(QString::fromUtf8(readFile(cache)).split(u'\n', Qt::SkipEmptyParts)), sorted({first, second}));
        QVERIFY(readFile(cache).endsWith('\n'));
        // Only ids in it, readable by the user only, in a folder of the user's only.
        struct stat info
        {
        };
        QCOMPARE(::stat(QFile::encodeName(cache).constData(), &info), 0);
        QCOMPARE(info.st_mode & 07777, mode_t(0600));
        QCOMPARE(::stat(QFile::encodeName(cacheFolder()).constData(), &info), 0);
        QCOMPARE(info.st_mode & 07777, mode_t(0700));

        // Each id once, by its prefix, wherever the command takes one.
        QCOMPARE(complete(local({QStringLiteral("kill"), first, QString()})), QStringList{second});
        QCOMPARE(complete(local({QStringLiteral("resume"), first.left(6)})), QStringList{first});
        QVERIFY(complete(local({QStringLiteral("inspect"), QString()})).contains(second));
        QVERIFY(complete(local({QStringLiteral("info"), QString()})).contains(second));
        QVERIFY(complete(local({QStringLiteral("files"), QString()})).contains(second));
        QVERIFY(complete(local({QStringLiteral("renew"), QString()})).contains(second));
        // renew takes several, each once; logs one: nothing after it.
        QCOMPARE(complete(local({QStringLiteral("renew"), first, QString()})), QStringList{second});
        QCOMPARE(complete(local({QStringLiteral("logs"), first, QString()})), QStringList());

        // Within the minute the cache is what is offered: a workspace gone another way (its folder
        // deleted) is still offered ...
        QVERIFY(QDir(m_basedir + u'/' + first).removeRecursively());
        QCOMPARE(sorted(complete(local({QStringLiteral("pause"), QString()}))), sorted({first, second}));
        // ... until the cache is older than a minute: then a new listing, remembered again.
        QFile file(cache);
        QVERIFY(file.open(QIODevice::ReadWrite));
        QVERIFY(file.setFileTime(QDateTime::currentDateTime().addSecs(-61), QFileDevice::FileModificationTime));
        file.close();
        QCOMPARE(complete(local({QStringLiteral("pause"), QString()})), QStringList{second});
        QCOMPARE(QString::fromUtf8(readFile(cache)), second + u'\n');
        QVERIFY(QFileInfo(cache).lastModified().secsTo(QDateTime::currentDateTime()) < 60);
        QCOMPARE(cacheFiles().size(), 1);
    }

    void listRemembersItsIds()
    {
        const QString id = open(QStringLiteral("a"));
        QVERIFY(!id.isEmpty());
        QDir(cacheFolder()).removeRecursively();
        const Run listed = run(local({QStringLiteral("list")}));
        QCOMPARE(listed.exitCode, 0);
        QCOMPARE(cacheFiles().size(), 1);
        const QString cache = cacheFolder() + u'/' + cacheFiles().constFirst();
        QCOMPARE(QString::fromUtf8(readFile(cache)), id + u'\n');
        // What list remembered is offered: gone since, still offered within the minute.
        QVERIFY(QDir(m_basedir + u'/' + id).removeRecursively());
        QCOMPARE(complete(local({QStringLiteral("close"), QString()})), QStringList{id});

        // Another basedir is another backend's place: its own file, its own ids.
        const QString elsewhere = m_home.path() + QStringLiteral("/ws-elsewhere");
        const Run opened =
            run({QStringLiteral("--basedir"), elsewhere, QStringLiteral("open"), QStringLiteral("--user"),
                 QStringLiteral("u"), QStringLiteral("--agent"), QStringLiteral("b")});
        QCOMPARE(opened.exitCode, 0);
        QCOMPARE(complete({QStringLiteral("--basedir"), elsewhere, QStringLiteral("close"), QString()}),
                 QStringList{opened.out.trimmed()});
        QCOMPARE(cacheFiles().size(), 2);
        QCOMPARE(complete(local({QStringLiteral("close"), QString()})), QStringList{id});
        QCOMPARE(cacheFiles().size(), 2);
    }

    void badLinesOfferNothingAndSayNothing()
    {
        // complete() checks exit 0 and an empty stderr for each.
        QCOMPARE(complete({QStringLiteral("--backend"), QStringLiteral("nosuch"), QStringLiteral("pause"), QString()}),
                 QStringList());
        QCOMPARE(complete({QStringLiteral("--no-such-option"), QStringLiteral("pause"), QString()}), QStringList());
        QCOMPARE(complete({QStringLiteral("--backend"), QStringLiteral("kubernetes"), QStringLiteral("--kubeconfig"),
                           m_home.path() + QStringLiteral("/none"), QStringLiteral("pause"), QString()}),
                 QStringList());
        // An option of another backend, a bad layout: usage errors of a real command line.
        QCOMPARE(complete(local({QStringLiteral("--domain"), QStringLiteral("x"), QStringLiteral("pause"), QString()})),
                 QStringList());
        QCOMPARE(
            complete(local({QStringLiteral("--layout"), QStringLiteral("bad"), QStringLiteral("pause"), QString()})),
            QStringList());
        QCOMPARE(complete({QStringLiteral("--basedir")}), QStringList{QStringLiteral("--basedir")});
        QCOMPARE(complete({}), complete({QString()}));
        QVERIFY(!QFileInfo::exists(m_basedir));
    }

    void idsFromAServerAndNoHangWhenItIsSlow()
    {
        // A remote backend's ids, as list gives them.
        PaddockTest::FakeOpenSandboxProcess server;
        QVERIFY2(server.start({QStringLiteral("--api-key"), QStringLiteral("k3y"), QStringLiteral("--seed"),
                               QStringLiteral("8")}),
                 qPrintable(server.error()));
        const QStringList remote{QStringLiteral("--backend"), QStringLiteral("opensandbox"), QStringLiteral("--domain"),
                                 server.domain()};
        const Run listed = run(remote + QStringList{QStringLiteral("list"), QStringLiteral("--json")});
        QCOMPARE(listed.exitCode, 0);
        QStringList ids;
        for (const QJsonValue &row : QJsonDocument::fromJson(listed.out.toUtf8()).array())
            ids.append(row[QLatin1String("workspaceId")].toString());
        QCOMPARE(ids.size(), 8);
        QDir(cacheFolder()).removeRecursively();
        QCOMPARE(sorted(complete(remote + QStringList{QStringLiteral("pause"), QString()})), sorted(ids));
        QCOMPARE(cacheFiles().size(), 1);

        // A listing that fails (nothing listens there) remembers nothing and offers nothing.
        QTcpServer closed;
        QVERIFY(closed.listen(QHostAddress::LocalHost));
        const QStringList nowhere{QStringLiteral("--backend"), QStringLiteral("opensandbox"),
                                  QStringLiteral("--domain"), QStringLiteral("127.0.0.1:%1").arg(closed.serverPort())};
        closed.close();
        QCOMPARE(run(nowhere + QStringList{QStringLiteral("list")}).exitCode, 1);
        QCOMPARE(complete(nowhere + QStringList{QStringLiteral("pause"), QString()}), QStringList());
        QCOMPARE(cacheFiles().size(), 1);

        // A server that takes 15 s to answer (less than the client's 30 s transfer timeout, more
        // than the few seconds a TAB waits): nothing offered, nothing said, exit 0, and the
        // listing still under way on the server when paddockctl was gone. Had it waited, it would
        // have offered the ids.
        PaddockTest::FakeOpenSandboxProcess slow;
        QVERIFY2(slow.start({QStringLiteral("--api-key"), QStringLiteral("k3y"), QStringLiteral("--seed"),
                             QStringLiteral("8"), QStringLiteral("--latency-ms"), QStringLiteral("15000")}),
                 qPrintable(slow.error()));
        QElapsedTimer elapsed;
        elapsed.start();
        const QStringList offered =
            complete({QStringLiteral("--backend"), QStringLiteral("opensandbox"), QStringLiteral("--domain"),
                      slow.domain(), QStringLiteral("pause"), QString()});
        qInfo("__complete against a server that answers in 15 s returned in %lld ms", elapsed.elapsed());
        QCOMPARE(offered, QStringList());
        const QJsonObject stats = slow.stats();
        QVERIFY2(stats[QLatin1String("requests")].toInt() >= 1, QJsonDocument(stats).toJson().constData());
        QVERIFY2(stats[QLatin1String("inflight")].toInt() == 1, QJsonDocument(stats).toJson().constData());
        QCOMPARE(cacheFiles().size(), 1); // the fast server's only
    }

    void bash()
    {
        // The script as bash-completion loads it, its function called as bash calls it.
        const QString script = QStringLiteral(COMPLETION_DIR "/paddockctl.bash");
        const auto completeInBash = [this, &script](const QStringList &words) {
            QString line = QStringLiteral("source \"$1\" || exit 3; COMP_WORDS=(");
            for (qsizetype i = 0; i < words.size(); ++i)
                line += QStringLiteral(" \"${%1}\"").arg(i + 2);
            line += QStringLiteral(" ); COMP_CWORD=%1; _paddockctl || exit 4; printf '%s\\n' \"${#COMPREPLY[@]}\" "
                                   "\"${COMPREPLY[@]}\"")
                        .arg(words.size() - 1);
            const Run ran = runProgram(QStringLiteral("bash"),
                                       QStringList{QStringLiteral("-c"), line, QStringLiteral("bash"), script} + words);
            if (ran.exitCode != 0 || !ran.err.isEmpty())
                qWarning("bash: exit %d: %s", ran.exitCode, qPrintable(ran.err));
            QStringList reply = ran.out.split(u'\n');
            reply.removeLast(); // after the last newline
            // The count first: an empty candidate would show.
            return reply.value(0).toInt() == reply.size() - 1 ? reply.mid(1) : QStringList{QStringLiteral("<bad>")};
        };
        const Run registered =
            runProgram(QStringLiteral("bash"),
                       {QStringLiteral("-c"), QStringLiteral("source \"$1\" && complete -p paddockctl"),
                        QStringLiteral("bash"), script});
        QCOMPARE(registered.out.trimmed(), QStringLiteral("complete -o default -F _paddockctl paddockctl"));

        QCOMPARE(completeInBash({QStringLiteral("paddockctl"), QStringLiteral("pa")}),
                 QStringList{QStringLiteral("pause")});
        QCOMPARE(completeInBash({QStringLiteral("paddockctl"), QStringLiteral("kill"), QStringLiteral("--del")}),
                 QStringList{QStringLiteral("--delete-files")});
        QCOMPARE(completeInBash({QStringLiteral("paddockctl"), QStringLiteral("--backend"), QStringLiteral("="),
                                 QStringLiteral("d")}),
                 QStringList{QStringLiteral("docker")});
        // Named by its path, that paddockctl is asked.
        QCOMPARE(completeInBash({QStringLiteral(PADDOCKCTL_PATH), QStringLiteral("li")}),
                 QStringList{QStringLiteral("list")});
        const QString id = open(QStringLiteral("a"));
        QVERIFY(!id.isEmpty());
        QCOMPARE(completeInBash({QStringLiteral("paddockctl"), QStringLiteral("--basedir"), m_basedir,
                                 QStringLiteral("pause"), QString()}),
                 QStringList{id});
        // Nothing to offer: an empty reply (bash then completes file names), not an empty word.
        QCOMPARE(completeInBash({QStringLiteral("paddockctl"), QStringLiteral("--basedir"), QString()}), QStringList());
    }

    void zsh()
    {
        const QString zsh = QStandardPaths::findExecutable(QStringLiteral("zsh"));
        if (zsh.isEmpty()) {
            if (qEnvironmentVariable("CI") == QLatin1String("true"))
                QFAIL("zsh is not installed (packaging/debian/test-depends)");
            QSKIP("zsh is not installed");
        }
        const QString script = QStringLiteral(COMPLETION_DIR "/_paddockctl");
        const Run syntax = runProgram(zsh, {QStringLiteral("-n"), script});
        QVERIFY2(syntax.exitCode == 0 && syntax.err.isEmpty(), qPrintable(syntax.err));

        // An interactive zsh on a pseudo-terminal, with compinit and the script on fpath as the
        // package installs it: a line typed, TAB, and the line as completion left it.
        const QString id = open(QStringLiteral("a"));
        QVERIFY(!id.isEmpty());
        const auto completeInZsh = [this, &zsh](const QString &line) {
            const Run ran = runProgram(
                zsh, {QStringLiteral("-f"), QStringLiteral(ZSH_DRIVER), QStringLiteral(COMPLETION_DIR), line});
            if (ran.exitCode != 0 || !ran.err.isEmpty())
                qWarning("zsh: exit %d: %s", ran.exitCode, qPrintable(ran.err));
            return ran.out.trimmed();
        };
        QCOMPARE(completeInZsh(QStringLiteral("paddockctl pa")), QStringLiteral("paddockctl pause"));
        QCOMPARE(completeInZsh(QStringLiteral("paddockctl --backend=d")),
                 QStringLiteral("paddockctl --backend=docker"));
        QCOMPARE(completeInZsh(QStringLiteral("paddockctl kill --del")),
                 QStringLiteral("paddockctl kill --delete-files"));
        QCOMPARE(completeInZsh(QStringLiteral("paddockctl --basedir %1 pause ").arg(m_basedir)),
                 QStringLiteral("paddockctl --basedir %1 pause %2").arg(m_basedir, id));
        // Nothing of paddockctl's: file names.
        QFile bootstrap(m_home.path() + QStringLiteral("/bootstrap-zsh.txt"));
        QVERIFY(bootstrap.open(QIODevice::WriteOnly));
        bootstrap.close();
        QCOMPARE(completeInZsh(QStringLiteral("paddockctl --bootstrap %1/bootstrap-z").arg(m_home.path())),
                 QStringLiteral("paddockctl --bootstrap %1").arg(bootstrap.fileName()));
    }
};

QTEST_GUILESS_MAIN(TestPaddockctlComplete)
#include "tst_paddockctl_complete.moc"
