// paddockctl as scripts use it: the real binary, run as a child process, in a temporary
// XDG data home.

#include "backendregistry.h"
#include "inspect/secretmask.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <QDirIterator>

#include <csignal>

#include <fcntl.h>
#include <pty.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

struct Run
{
    int exitCode = -1;
    QString out;
    QString err;
};

// The cells a terminal gives a character: two for the CJK ideographs, kana, Hangul and fullwidth
// forms (the full-width colon) these tests use, else one.
int cellsOf(QChar c)
{
    const char16_t u = c.unicode();
    const bool wide = (u >= 0x1100 && u <= 0x115F) || (u >= 0x2E80 && u <= 0xA4CF) || (u >= 0xAC00 && u <= 0xD7A3)
        || (u >= 0xF900 && u <= 0xFAFF) || (u >= 0xFF00 && u <= 0xFF60) || (u >= 0xFFE0 && u <= 0xFFE6);
    return wide ? 2 : 1;
}

int widthOf(QStringView text)
{
    int width = 0;
    for (const QChar c : text)
        width += cellsOf(c);
    return width;
}

// A cell of a table as a terminal shows it: the column (in cells) where it starts, and its text.
struct Cell
{
    int column;
    QString text;
};
using Line = QList<Cell>;

// A table's lines cut into cells: text apart by two spaces or more (a cell may hold one space).
QList<Line> tableOf(const QString &out)
{
    QList<Line> lines;
    for (const QString &text : out.split(u'\n', Qt::SkipEmptyParts)) {
        Line line;
        int column = 0;
        qsizetype at = 0;
        while (at < text.size()) {
            while (at < text.size() && text[at] == u' ') {
                ++column;
                ++at;
            }
            if (at == text.size())
                break;
            Cell cell{column, {}};
            while (at < text.size() && !(text[at] == u' ' && (at + 1 == text.size() || text[at + 1] == u' '))) {
                cell.text += text[at];
                column += cellsOf(text[at]);
                ++at;
            }
            line.append(cell);
        }
        lines.append(line);
    }
    return lines;
}

QStringList textsOf(const Line &line)
{
    QStringList texts;
    for (const Cell &cell : line)
        texts.append(cell.text);
    return texts;
}

QList<int> columnsOf(const Line &line)
{
    QList<int> columns;
    for (const Cell &cell : line)
        columns.append(cell.column);
    return columns;
}

// The row of a table whose first cell starts with `prefix`.
QStringList rowStartingWith(const QList<Line> &lines, const QString &prefix)
{
    for (const Line &line : lines) {
        if (!line.isEmpty() && line.first().text.startsWith(prefix))
            return textsOf(line);
    }
    return {};
}

// list's table: seven cells on every line, each under its header, no line ending in a space.
void verifyTable(const QString &out, const QList<Line> &lines)
{
    QVERIFY2(!lines.isEmpty(), qPrintable(out));
    const QList<int> header = columnsOf(lines.first());
    QCOMPARE(header.size(), 7);
    for (const Line &line : lines)
        QVERIFY2(columnsOf(line) == header, qPrintable(out));
    for (const QString &text : out.split(u'\n', Qt::SkipEmptyParts))
        QVERIFY2(!text.endsWith(u' '), qPrintable(text));
    QVERIFY(out.endsWith(u'\n'));
}

} // namespace

class TestPaddockctl final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_home;
    QString m_basedir;

    QProcessEnvironment environment() const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_home.path() + QStringLiteral("/data"));
        env.remove(QStringLiteral("QT_LOGGING_RULES"));
        env.remove(QStringLiteral("COLUMNS")); // list's table: whole lines unless a test says otherwise
        return env;
    }

    // environment() in Simplified Chinese.
    QProcessEnvironment chineseEnvironment() const
    {
        QProcessEnvironment env = environment();
        env.insert(QStringLiteral("LANG"), QStringLiteral("zh_CN.UTF-8"));
        env.insert(QStringLiteral("LANGUAGE"), QStringLiteral("zh_CN"));
        env.remove(QStringLiteral("LC_ALL"));
        env.remove(QStringLiteral("LC_MESSAGES"));
        return env;
    }

    // environment() with COLUMNS set.
    QProcessEnvironment columns(int width, QProcessEnvironment env = {}) const
    {
        if (env.isEmpty())
            env = environment();
        env.insert(QStringLiteral("COLUMNS"), QString::number(width));
        return env;
    }

    // Opens a local workspace; its id, or empty (said) when that failed.
    QString openWorkspace(const QString &user, const QString &agent, const QString &workspaceId = {}) const
    {
        QStringList args{QStringLiteral("open"), QStringLiteral("--user"), user, QStringLiteral("--agent"), agent};
        if (!workspaceId.isEmpty())
            args << QStringLiteral("--workspace-id") << workspaceId;
        const Run opened = run(local(args));
        if (opened.exitCode != 0)
            qWarning("open failed: %s", qPrintable(opened.err));
        return opened.exitCode == 0 ? opened.out.trimmed() : QString();
    }

    void start(QProcess &process, const QStringList &args) const
    {
        process.setProcessEnvironment(environment());
        process.start(QStringLiteral(PADDOCKCTL_PATH), args);
        QVERIFY(process.waitForStarted());
    }

    Run run(const QStringList &args) const { return run(args, environment()); }

    Run run(const QStringList &args, const QProcessEnvironment &env) const
    {
        QProcess process;
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(PADDOCKCTL_PATH), args);
        if (!process.waitForFinished(120'000))
            qFatal("paddockctl %s did not finish", qPrintable(args.join(u' ')));
        return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
                QString::fromUtf8(process.readAllStandardOutput()), QString::fromUtf8(process.readAllStandardError())};
    }

    QStringList local(QStringList args) const { return QStringList{QStringLiteral("--basedir"), m_basedir} + args; }

    QString writeBootstrap(const QString &name, const QByteArray &text) const
    {
        QFile file(m_home.path() + u'/' + name);
        if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size())
            qFatal("cannot write %s", qPrintable(file.fileName()));
        return file.fileName();
    }

    // The log of a workspace id under this test's basedir (each basedir has its own log folder).
    QString logPath(const QString &id) const
    {
        QDir logs(m_home.path() + QStringLiteral("/data/paddock/logs"));
        const QStringList keys = logs.entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        QString newest;
        for (const QString &key : keys) {
            const QString path = logs.filePath(key + u'/' + id + QStringLiteral(".log"));
            if (QFileInfo::exists(path)
                && (newest.isEmpty() || QFileInfo(path).birthTime() > QFileInfo(newest).birthTime()))
                newest = path;
        }
        return newest;
    }

    static QByteArray readFile(const QString &path)
    {
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    }

    // A workspace's state as list --json gives it; empty when it is not listed.
    QString state(const QString &id) const
    {
        const QJsonArray rows = QJsonDocument::fromJson(run(local({"list", "--json"})).out.toUtf8()).array();
        for (const QJsonValue &row : rows) {
            if (row[QLatin1String("workspaceId")].toString() == id)
                return row[QLatin1String("state")].toString();
        }
        return QString();
    }

    // Rewrites a local workspace's times: its creation and last activity in its metadata (invalid:
    // none), and the modification time of its sessions/ folder and what is in it (invalid: the
    // folder is removed).
    void backdate(const QString &id, const QDateTime &created, const QDateTime &lastActivity,
                  const QDateTime &sessions) const
    {
        const QString metadata = m_basedir + u'/' + id + QStringLiteral("/.paddock/workspace.json");
        QJsonObject json = QJsonDocument::fromJson(readFile(metadata)).object();
        QVERIFY(!json.isEmpty());
        json.insert(QStringLiteral("createdAt"), created.isValid() ? created.toString(Qt::ISODateWithMs) : QString());
        json.insert(QStringLiteral("lastActivityAt"),
                    lastActivity.isValid() ? lastActivity.toString(Qt::ISODateWithMs) : QString());
        QFile file(metadata);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(QJsonDocument(json).toJson());
        file.close();

        const QString folder = m_basedir + u'/' + id + QStringLiteral("/sessions");
        if (!sessions.isValid()) {
            QVERIFY(QDir(folder).removeRecursively());
            return;
        }
        QStringList paths{folder};
        QDirIterator it(folder, QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden, QDirIterator::Subdirectories);
        while (it.hasNext())
            paths.append(it.next());
        const timespec time{sessions.toSecsSinceEpoch(), 0};
        const timespec times[2]{time, time};
        for (const QString &path : std::as_const(paths))
            QVERIFY2(::utimensat(AT_FDCWD, QFile::encodeName(path).constData(), times, AT_SYMLINK_NOFOLLOW) == 0,
                     qPrintable(path));
    }

private Q_SLOTS:
    void init()
    {
        QVERIFY(m_home.isValid());
        m_basedir = m_home.path() + QStringLiteral("/ws-") + QString::fromLatin1(QTest::currentTestFunction());
    }

    void versionAndHelp()
    {
        const Run version = run({QStringLiteral("--version")});
        QCOMPARE(version.exitCode, 0);
        QVERIFY(QRegularExpression(QStringLiteral("^paddockctl \\d+\\.\\d+\\.\\d+\n$")).match(version.out).hasMatch());
        const Run help = run({QStringLiteral("--help")});
        QCOMPARE(help.exitCode, 0);
        for (const char *command : {"assign-id", "open", "list", "pause", "resume", "close", "kill", "renew", "sweep",
                                    "logs", "exec", "files"})
            QVERIFY2(help.out.contains(QLatin1String(command)), command);
    }

    void everyBackendsOptionsComeFromItsRegistration()
    {
        // --help has each registered backend's section, as its registration words it, in the
        // registry's order, and --backend offers every registered id.
        const Paddock::BackendRegistry &registry = Paddock::BackendRegistry::instance();
        const QByteArray dataHome = qgetenv("XDG_DATA_HOME");
        qputenv("XDG_DATA_HOME", QFile::encodeName(m_home.path() + QStringLiteral("/data"))); // the child's defaults
        const auto restore = qScopeGuard(
            [&dataHome] { dataHome.isNull() ? qunsetenv("XDG_DATA_HOME") : qputenv("XDG_DATA_HOME", dataHome); });
        const Run help = run({QStringLiteral("--help")});
        QCOMPARE(help.exitCode, 0);
        QVERIFY2(help.out.contains(QStringLiteral("\n  --backend %1  ").arg(registry.ids().join(u'|'))),
                 qPrintable(help.out));
        qsizetype at = 0;
        for (const Paddock::BackendFactory &factory : registry.factories()) {
            const QString section = factory.commandLineHelp();
            const qsizetype found = help.out.indexOf(u'\n' + section + u'\n', at);
            QVERIFY2(found >= 0, qPrintable(factory.id + QStringLiteral(":\n") + section + u'\n' + help.out));
            at = found + section.size();
            for (const Paddock::CommandLineOption &option : factory.commandLineOptions)
                QVERIFY2(section.contains(QStringLiteral("  --%1 ").arg(option.name)), qPrintable(option.name));
        }
        for (const char *option : {"--basedir DIR", "--bubblewrap", "--domain HOST", "--docker-host URL",
                                   "--sandbox-timeout N", "--use-server-proxy"})
            QVERIFY2(help.out.contains(QLatin1String(option)), option);

        // An option of another backend is refused (exit 2, nothing made), naming the backends
        // that take it in the registry's order.
        for (const Paddock::BackendFactory &owner : registry.factories()) {
            for (const Paddock::CommandLineOption &option : owner.commandLineOptions) {
                QStringList takers;
                for (const Paddock::BackendFactory &factory : registry.factories()) {
                    if (factory.takesOption(option.name))
                        takers.append(factory.id);
                }
                const QString message = takers.size() == 1
                    ? QStringLiteral("option --%1 applies to the %2 backend only").arg(option.name, takers.first())
                    : QStringLiteral("option --%1 applies to the %2 and %3 backends only")
                          .arg(option.name, takers.first(takers.size() - 1).join(QStringLiteral(", ")),
                               takers.constLast());
                for (const Paddock::BackendFactory &other : registry.factories()) {
                    if (other.takesOption(option.name))
                        continue;
                    QStringList args{QStringLiteral("--backend"), other.id, QStringLiteral("--") + option.name};
                    if (!option.valueName.isEmpty())
                        args.append(QStringLiteral("1"));
                    const Run refused = run(args + QStringList{QStringLiteral("list")});
                    const QString what = args.join(u' ') + QStringLiteral(": ") + refused.err;
                    QVERIFY2(refused.exitCode == 2, qPrintable(what));
                    QVERIFY2(refused.err.startsWith(QStringLiteral("paddockctl: ") + message + u'\n'),
                             qPrintable(what));
                    QCOMPARE(refused.out, QString());
                }
            }
        }
        // The wording scripts and the other tests match.
        Run refused = run({QStringLiteral("--backend"), QStringLiteral("opensandbox"), QStringLiteral("--basedir"),
                           m_basedir, QStringLiteral("list")});
        QCOMPARE(
            refused.err,
            QStringLiteral("paddockctl: option --basedir applies to the local and docker backends only\n"
                           "usage: paddockctl list [--output table|json|ids] [--json] [FILTERS] [--fail-empty]\n"));
        refused = run(local({QStringLiteral("--domain"), QStringLiteral("localhost"), QStringLiteral("list")}));
        QVERIFY2(refused.err.startsWith(QLatin1String("paddockctl: option --domain applies to the opensandbox "
                                                      "and e2b backends only\n")),
                 qPrintable(refused.err));
        // kill --delete-files only where the backend can delete a workspace's files on kill.
        refused = run(local({QStringLiteral("kill"), QStringLiteral("--delete-files"), QStringLiteral("abc")}));
        QCOMPARE(refused.exitCode, 2);
        QCOMPARE(refused.err,
                 QStringLiteral("paddockctl: option --delete-files applies to the docker backend only\n"
                                "usage: paddockctl kill ID... | --all [FILTERS] [BULK] [--delete-files]\n"));
        QVERIFY(!QFileInfo::exists(m_basedir));
    }

    void assignIdPrintsTheIdAndNothingElse_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("expected");
        QTest::newRow("per_agent") << QStringList{"--isolation", "per_agent", "--user", "u1", "--agent", "a1"}
                                   << "4bf1218b645ff727";
        QTest::newRow("default policy") << QStringList{"--user", "u1", "--agent", "a1"} << "4bf1218b645ff727";
        QTest::newRow("empty user") << QStringList{"--isolation", "per_agent", "--user", "", "--agent", "a1"}
                                    << "19f69055a5066d5f";
        QTest::newRow("per_user") << QStringList{"--isolation", "per_user", "--user", "u1", "--agent", "x"}
                                  << "48ea3da4179df93b";
        QTest::newRow("session ignored") << QStringList{"--user", "u", "--agent", "a2", "--session", "s9"}
                                         << "be684553e8c14d87";
    }

    void assignIdPrintsTheIdAndNothingElse()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, expected);
        const Run result = run(QStringList{QStringLiteral("assign-id")} + args);
        QCOMPARE(result.exitCode, 0);
        QCOMPARE(result.out, expected + u'\n');
        QCOMPARE(result.err, QString());
    }

    void perSessionIdIsFreshEachTime()
    {
        const QStringList args{"assign-id", "--isolation", "per_session", "--user", "u",
                               "--agent",   "a",           "--session",   "s"};
        const Run a = run(args);
        const Run b = run(args);
        QCOMPARE(a.exitCode, 0);
        QVERIFY(QRegularExpression(QStringLiteral("^[0-9a-f]{32}\n$")).match(a.out).hasMatch());
        QCOMPARE_NE(a.out, b.out);
    }

    void usageErrorsExitWithTwoAndCreateNothing_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("unknown isolation")
            << QStringList{"open", "--user", "u", "--agent", "a", "--isolation", "per_team"}
            << "valid choices: per_session, per_agent, per_user";
        QTest::newRow("assign unknown isolation")
            << QStringList{"assign-id", "--isolation", "PER_AGENT", "--user", "u", "--agent", "a"}
            << "per_session, per_agent, per_user";
        QTest::newRow("empty id") << QStringList{"open", "--user", "u", "--agent", "a", "--workspace-id", ""}
                                  << "empty";
        QTest::newRow("slash") << QStringList{"open", "--user", "u", "--agent", "a", "--workspace-id", "a/b"}
                               << "path separator";
        QTest::newRow("backslash") << QStringList{"open", "--user", "u", "--agent", "a", "--workspace-id", "a\\b"}
                                   << "path separator";
        QTest::newRow("dotdot") << QStringList{"open", "--user", "u", "--agent", "a", "--workspace-id", ".."}
                                << "\"..\"";
        QTest::newRow("too long") << QStringList{"open",           "--user",          "u", "--agent", "a",
                                                 "--workspace-id", QString(129, u'x')}
                                  << "129 bytes";
        QTest::newRow("missing agent") << QStringList{"open", "--user", "u"} << "--agent";
        QTest::newRow("unknown command") << QStringList{"explode"} << "unknown command";
        QTest::newRow("no command") << QStringList{} << "no command";
        QTest::newRow("unknown option") << QStringList{"list", "--colour"} << "colour";
        QTest::newRow("option of another command")
            << QStringList{"list", "--follow"} << "--follow does not apply to list";
        QTest::newRow("unknown backend") << QStringList{"--backend", "k8s", "list"} << "valid choices: local";
        QTest::newRow("pause without id") << QStringList{"pause"} << "give workspace ids, or --all";
        QTest::newRow("info without id") << QStringList{"info"} << "wrong number of arguments";
        QTest::newRow("unknown list output")
            << QStringList{"list", "--output", "wide"} << "--output takes one of table, json, ids, not \"wide\"";
        QTest::newRow("--json and another output")
            << QStringList{"list", "--json", "--output", "ids"} << "--json means --output json";
        QTest::newRow("pause bad id") << QStringList{"pause", "../etc"} << "path separator";
        QTest::newRow("renew without seconds") << QStringList{"renew", "abc"} << "--seconds";
        QTest::newRow("renew bad seconds")
            << QStringList{"renew", "abc", "--seconds", "soon"} << "positive whole number";
        QTest::newRow("sweep bad idle") << QStringList{"sweep", "--idle", "-5"}
                                        << "--idle takes a duration such as 90s, 30m, 2h, 1d";
        QTest::newRow("unknown layout") << QStringList{"--layout", "flat", "list"}
                                        << "unknown layout \"flat\"; valid choices: paddock, agentscope";
        QTest::newRow("agentscope layout per_user")
            << QStringList{"--layout", "agentscope", "open", "--user", "u", "--agent", "a", "--isolation", "per_user"}
            << "--layout agentscope works with --isolation per_agent only";
        QTest::newRow("missing bootstrap file")
            << QStringList{"--bootstrap", "/nonexistent/boot.txt", "open", "--user", "u", "--agent", "a"}
            << "/nonexistent/boot.txt";
    }

    void usageErrorsExitWithTwoAndCreateNothing()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        const Run result = run(local(args));
        QCOMPARE(result.exitCode, 2);
        QVERIFY2(result.err.contains(mentions), qPrintable(result.err));
        QCOMPARE(result.out, QString());
        QVERIFY(!QFileInfo::exists(m_basedir));
        QVERIFY(!QFileInfo::exists(m_home.path() + QStringLiteral("/data/paddock/logs")));
    }

    void messagesFollowTheLocale()
    {
        QProcess process;
        QProcessEnvironment env = environment();
        env.insert(QStringLiteral("LANG"), QStringLiteral("zh_CN.UTF-8"));
        env.insert(QStringLiteral("LANGUAGE"), QStringLiteral("zh_CN"));
        env.remove(QStringLiteral("LC_ALL"));
        env.remove(QStringLiteral("LC_MESSAGES"));
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(PADDOCKCTL_PATH), local({QStringLiteral("open")}));
        QVERIFY(process.waitForFinished(60'000));
        QCOMPARE(process.exitCode(), 2);
        const QString err = QString::fromUtf8(process.readAllStandardError());
        QVERIFY2(err.contains(QStringLiteral("open 需要")), qPrintable(err));
    }

    void unwritableBasedirIsAUsageError()
    {
        const QString blocker = writeBootstrap(QStringLiteral("not-a-folder"), "x");
        const Run result =
            run({QStringLiteral("--basedir"), blocker + QStringLiteral("/ws"), QStringLiteral("open"),
                 QStringLiteral("--user"), QStringLiteral("u"), QStringLiteral("--agent"), QStringLiteral("a")});
        QCOMPARE(result.exitCode, 2);
        QVERIFY2(result.err.contains(blocker) && result.err.contains(QLatin1String("not a folder")),
                 qPrintable(result.err));
        QVERIFY(QFileInfo(blocker).isFile());
        QVERIFY(!QFileInfo::exists(m_home.path() + QStringLiteral("/data/paddock/logs")));
    }

    void openStreamsTheLogAndListShowsTheWorkspace()
    {
        const QString boot = writeBootstrap(QStringLiteral("boot.txt"), "echo hello from bootstrap\necho warn >&2\n");
        const Run opened =
            run(local({QStringLiteral("--bootstrap"), boot, QStringLiteral("open"), QStringLiteral("--user"),
                       QStringLiteral("张三"), QStringLiteral("--agent"), QStringLiteral("运维")}));
        QCOMPARE(opened.exitCode, 0);
        const QString id = opened.out.trimmed();
        QCOMPARE(opened.out, id + u'\n');
        QCOMPARE(id, run({"assign-id", "--user", "张三", "--agent", "运维"}).out.trimmed());
        QVERIFY2(opened.err.contains(QLatin1String(" out hello from bootstrap\n")), qPrintable(opened.err));
        QVERIFY(opened.err.contains(QLatin1String(" err warn\n")));
        QVERIFY(QFileInfo(m_basedir + u'/' + id + QStringLiteral("/sessions")).isDir());

        const Run listed = run(local({QStringLiteral("list"), QStringLiteral("--json")}));
        QCOMPARE(listed.exitCode, 0);
        const QJsonArray rows = QJsonDocument::fromJson(listed.out.toUtf8()).array();
        QCOMPARE(rows.size(), 1);
        const QJsonObject row = rows.first().toObject();
        QCOMPARE(row.value(QLatin1String("workspaceId")).toString(), id);
        QCOMPARE(row.value(QLatin1String("sandboxId")).toString(), id);
        QCOMPARE(row.value(QLatin1String("state")).toString(), QStringLiteral("Running"));
        QCOMPARE(row.value(QLatin1String("userId")).toString(), QStringLiteral("张三"));
        QCOMPARE(row.value(QLatin1String("agentId")).toString(), QStringLiteral("运维"));
        QCOMPARE(row.value(QLatin1String("backend")).toString(), QStringLiteral("local"));
        QVERIFY(QDateTime::fromString(row.value(QLatin1String("createdAt")).toString(), Qt::ISODateWithMs).isValid());
        QVERIFY(
            QDateTime::fromString(row.value(QLatin1String("lastActivityAt")).toString(), Qt::ISODateWithMs).isValid());
        QVERIFY(row.contains(QLatin1String("expiresAt")));
        QVERIFY(row.value(QLatin1String("expiresAt")).isNull());

        const Run text = run(local({QStringLiteral("list")}));
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains(id) && text.out.contains(QLatin1String("Running")));

        const Run logs = run(local({QStringLiteral("logs"), id}));
        QCOMPARE(logs.exitCode, 0);
        QVERIFY(logs.out.contains(QLatin1String(" cmd echo hello from bootstrap\n")));
        QVERIFY(logs.out.contains(QLatin1String(" out hello from bootstrap\n")));
    }

    void listIsATableSizedToItsContent()
    {
        const QString a = openWorkspace(QStringLiteral("alice"), QStringLiteral("coder"));
        const QString b = openWorkspace(QStringLiteral("张三"), QStringLiteral("运维助手"));
        QVERIFY(!a.isEmpty() && !b.isEmpty());
        // b was last active 2 h 10 min ago.
        const QDateTime now = QDateTime::currentDateTimeUtc();
        const QDateTime active = now.addSecs(-(2 * 3600 + 10 * 60));
        backdate(b, now.addSecs(-3 * 3600), active, active);

        const Run listed = run(local({QStringLiteral("list")}));
        QCOMPARE(listed.exitCode, 0);
        QCOMPARE(listed.err, QString());
        const QList<Line> lines = tableOf(listed.out);
        verifyTable(listed.out, lines);
        QCOMPARE(lines.size(), 3);
        QCOMPARE(textsOf(lines.first()),
                 (QStringList{"WORKSPACE", "STATE", "USER", "AGENT", "IDLE", "EXPIRES IN", "BACKEND"}));
        const QStringList rowA = rowStartingWith(lines, a);
        QCOMPARE(rowA.size(), 7);
        QCOMPARE(rowA.first(), a);
        QCOMPARE(rowA.mid(1, 3), (QStringList{"Running", "alice", "coder"}));
        QVERIFY2(QRegularExpression(QStringLiteral("^\\d+s$")).match(rowA[4]).hasMatch(), qPrintable(rowA[4]));
        QCOMPARE(rowA.mid(5), (QStringList{"-", "local"})); // a local workspace never expires
        const QStringList rowB = rowStartingWith(lines, b);
        QCOMPARE(rowB.size(), 7);
        QCOMPARE(rowB.mid(0, 4), (QStringList{b, "Running", "张三", "运维助手"}));
        QVERIFY2(QRegularExpression(QStringLiteral("^2h 1[01]m$")).match(rowB[4]).hasMatch(), qPrintable(rowB[4]));
        // Each column as wide as its widest cell (运维助手 takes eight), two cells apart: the ids
        // 16, Running 7, alice 5, 运维助手 8, "2h 10m" 6, the header EXPIRES IN 10.
        QCOMPARE(a.size(), 16);
        QCOMPARE(columnsOf(lines.first()), (QList<int>{0, 18, 27, 34, 44, 52, 64}));
    }

    void listFitsTheWidth()
    {
        const QString longUser = QStringLiteral("alice-with-a-rather-long-user-name");
        const QString a = openWorkspace(longUser, QStringLiteral("coder"));
        const QString b = openWorkspace(QStringLiteral("张三"), QStringLiteral("运维助手"),
                                        QStringLiteral("运维工作区一号甲乙丙丁")); // 22 cells
        QVERIFY(!a.isEmpty() && !b.isEmpty());

        // stdout is a pipe here: without COLUMNS, whole lines.
        Run listed = run(local({QStringLiteral("list")}));
        QCOMPARE(listed.exitCode, 0);
        QVERIFY2(listed.out.contains(a) && listed.out.contains(b) && listed.out.contains(longUser)
                     && !listed.out.contains(QStringLiteral("…")),
                 qPrintable(listed.out));

        // COLUMNS=60: the widest id columns cut ("…" in the middle of a workspace id, at the end of
        // a user id), by cells, the state and the times whole.
        listed = run(local({QStringLiteral("list")}), columns(60));
        QCOMPARE(listed.exitCode, 0);
        QList<Line> lines = tableOf(listed.out);
        verifyTable(listed.out, lines);
        QCOMPARE(lines.size(), 3);
        for (const QString &text : listed.out.split(u'\n', Qt::SkipEmptyParts))
            QVERIFY2(widthOf(text) <= 60, qPrintable(listed.out));
        QCOMPARE(textsOf(lines.first()),
                 (QStringList{"WORKSPACE", "STATE", "USER", "AGENT", "IDLE", "EXPIRES IN", "BACKEND"}));
        QStringList row = rowStartingWith(lines, a.left(3));
        QCOMPARE(row.size(), 7);
        QVERIFY2(row[0].contains(QStringLiteral("…")) && row[0].endsWith(a.right(3)), qPrintable(row[0]));
        QCOMPARE(row[1], QStringLiteral("Running"));
        QVERIFY2(row[2].startsWith(QLatin1String("ali")) && row[2].endsWith(QStringLiteral("…")), qPrintable(row[2]));
        QVERIFY2(QRegularExpression(QStringLiteral("^\\d+s$")).match(row[4]).hasMatch(), qPrintable(row[4]));
        QCOMPARE(row.mid(5), (QStringList{"-", "local"}));
        row = rowStartingWith(lines, QStringLiteral("运维"));
        QCOMPARE(row.size(), 7);
        QVERIFY2(row[0].contains(QStringLiteral("…")) && row[0].endsWith(QStringLiteral("丁")), qPrintable(row[0]));
        QCOMPARE(row[1], QStringLiteral("Running"));
        const int workspaceColumn = columnsOf(lines.first())[1] - 2;
        QVERIFY2(widthOf(row[0]) <= workspaceColumn && widthOf(row[0]) >= workspaceColumn - 1, qPrintable(row[0]));

        // Too narrow even so: the id columns down to their headers, nothing else cut, the lines
        // longer than asked.
        listed = run(local({QStringLiteral("list")}), columns(20));
        QCOMPARE(listed.exitCode, 0);
        lines = tableOf(listed.out);
        verifyTable(listed.out, lines);
        QCOMPARE(textsOf(lines.first()),
                 (QStringList{"WORKSPACE", "STATE", "USER", "AGENT", "IDLE", "EXPIRES IN", "BACKEND"}));
        // WORKSPACE 9, Running 7, USER 4, AGENT 5, IDLE 4, EXPIRES IN 10.
        QCOMPARE(columnsOf(lines.first()), (QList<int>{0, 11, 20, 26, 33, 39, 51}));
        row = rowStartingWith(lines, a.left(4));
        QCOMPARE(row.size(), 7);
        QCOMPARE(row[0], a.left(4) + QStringLiteral("…") + a.right(4));
        QCOMPARE(row[1], QStringLiteral("Running"));
        QCOMPARE(row[2], QStringLiteral("ali…"));
        QCOMPARE(row[6], QStringLiteral("local"));
        QCOMPARE(rowStartingWith(lines, QStringLiteral("运维")).value(0), QStringLiteral("运维…丙丁"));

        // COLUMNS that is no width: no limit.
        QProcessEnvironment env = environment();
        env.insert(QStringLiteral("COLUMNS"), QStringLiteral("wide"));
        listed = run(local({QStringLiteral("list")}), env);
        QVERIFY2(listed.out.contains(a) && listed.out.contains(longUser), qPrintable(listed.out));
    }

    void aTerminalsWidthComesBeforeColumns()
    {
        // On a terminal 60 cells wide, with a stale COLUMNS=200 in the environment: the terminal's.
        const QString a = openWorkspace(QStringLiteral("alice-with-a-rather-long-user-name"), QStringLiteral("coder"));
        QVERIFY(!a.isEmpty());
        int master = -1;
        int slave = -1;
        winsize size{};
        size.ws_row = 24;
        size.ws_col = 60;
        QVERIFY(::openpty(&master, &slave, nullptr, nullptr, &size) == 0);
        const auto closeBoth = qScopeGuard([master, slave] {
            ::close(master);
            ::close(slave);
        });
        QProcess process;
        process.setProcessEnvironment(columns(200));
        process.setStandardOutputFile(QFile::decodeName(::ttyname(slave)));
        process.start(QStringLiteral(PADDOCKCTL_PATH), local({QStringLiteral("list")}));
        QVERIFY(process.waitForFinished(60'000));
        QCOMPARE(process.exitCode(), 0);
        QVERIFY(::fcntl(master, F_SETFL, O_NONBLOCK) == 0);
        QByteArray shown;
        char buffer[4096];
        for (ssize_t got; (got = ::read(master, buffer, sizeof buffer)) > 0;)
            shown.append(buffer, got);
        const QString out = QString::fromUtf8(shown).remove(u'\r');
        const QList<Line> lines = tableOf(out);
        verifyTable(out, lines);
        QCOMPARE(lines.size(), 2);
        for (const QString &text : out.split(u'\n', Qt::SkipEmptyParts))
            QVERIFY2(widthOf(text) <= 60, qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("…")), qPrintable(out));
    }

    void listInChineseIsAligned()
    {
        const QString a =
            openWorkspace(QStringLiteral("张三"), QStringLiteral("运维助手"), QStringLiteral("运维工作区一号"));
        const QString b = openWorkspace(QStringLiteral("bob"), QStringLiteral("助手"));
        QVERIFY(!a.isEmpty() && !b.isEmpty());
        const QDateTime now = QDateTime::currentDateTimeUtc();
        const QDateTime active = now.addSecs(-(2 * 3600 + 10 * 60));
        backdate(a, now.addSecs(-3 * 3600), active, active);
        backdate(b, now.addSecs(-3 * 3600), active, active);

        Run listed = run(local({QStringLiteral("list")}), chineseEnvironment());
        QCOMPARE(listed.exitCode, 0);
        QList<Line> lines = tableOf(listed.out);
        verifyTable(listed.out, lines);
        QCOMPARE(lines.size(), 3);
        QCOMPARE(textsOf(lines.first()), (QStringList{"工作区", "状态", "用户", "智能体", "空闲", "距过期", "后端"}));
        QStringList row = rowStartingWith(lines, a);
        QCOMPARE(row.mid(0, 4), (QStringList{a, "Running", "张三", "运维助手"}));
        QVERIFY2(QRegularExpression(QStringLiteral("^2 小时 1[01] 分$")).match(row[4]).hasMatch(), qPrintable(row[4]));
        QCOMPARE(row.mid(5), (QStringList{"-", "local"}));
        // By cells: the ids 16 (运维工作区一号 14), Running 7, 张三 4 (用户 4), 运维助手 8, "2 小时 10 分"
        // 12, 距过期 6.
        QCOMPARE(columnsOf(lines.first()), (QList<int>{0, 18, 27, 33, 43, 57, 65}));

        // Cut to fit by cells: a wide character is never halved.
        listed = run(local({QStringLiteral("list")}), columns(64, chineseEnvironment()));
        QCOMPARE(listed.exitCode, 0);
        lines = tableOf(listed.out);
        verifyTable(listed.out, lines);
        for (const QString &text : listed.out.split(u'\n', Qt::SkipEmptyParts))
            QVERIFY2(widthOf(text) <= 64, qPrintable(listed.out));
        // The id column down from 16 cells to 10 (后端 and local take 5): 运维 (4), the ellipsis, 一号
        // (4), and one cell left over.
        QCOMPARE(columnsOf(lines.first()).value(1), 10 + 2);
        row = rowStartingWith(lines, QStringLiteral("运维"));
        QCOMPARE(row.size(), 7);
        QCOMPARE(row[0], QStringLiteral("运维…一号"));
        QCOMPARE(row[1], QStringLiteral("Running"));
    }

    void listOutputForScripts()
    {
        const QString a = openWorkspace(QStringLiteral("alice"), QStringLiteral("coder"));
        const QString b = openWorkspace(QStringLiteral("张三"), QStringLiteral("运维助手"));
        QVERIFY(!a.isEmpty() && !b.isEmpty());

        // --output ids: the ids, one a line, nothing else.
        const Run ids = run(local({QStringLiteral("list"), QStringLiteral("--output"), QStringLiteral("ids")}));
        QCOMPARE(ids.exitCode, 0);
        QCOMPARE(ids.err, QString());
        QStringList lines = ids.out.split(u'\n');
        QCOMPARE(lines.takeLast(), QString());
        lines.sort();
        QStringList expected{a, b};
        expected.sort();
        QCOMPARE(lines, expected);

        // --output json is --json, unchanged; --output table the default.
        const Run json = run(local({QStringLiteral("list"), QStringLiteral("--json")}));
        QCOMPARE(json.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(json.out.toUtf8()).array().size(), 2);
        QCOMPARE(run(local({QStringLiteral("list"), QStringLiteral("--output"), QStringLiteral("json")})).out,
                 json.out);
        QCOMPARE(run(local({QStringLiteral("list"), QStringLiteral("--json"), QStringLiteral("--output"),
                            QStringLiteral("json")}))
                     .out,
                 json.out);
        const Run table = run(local({QStringLiteral("list"), QStringLiteral("--output"), QStringLiteral("table")}));
        QCOMPARE(table.exitCode, 0);
        QVERIFY2(table.out.startsWith(QLatin1String("WORKSPACE ")), qPrintable(table.out));
        QCOMPARE(tableOf(table.out).size(), 3);

        // A bad format names those there are.
        const Run bogus = run(local({QStringLiteral("list"), QStringLiteral("--output"), QStringLiteral("bogus")}));
        QCOMPARE(bogus.exitCode, 2);
        QCOMPARE(bogus.out, QString());
        QVERIFY2(
            bogus.err.startsWith(QStringLiteral("paddockctl: --output takes one of table, json, ids, not \"bogus\"\n")),
            qPrintable(bogus.err));
    }

    void infoShowsOneWorkspace()
    {
        const QString id = openWorkspace(QStringLiteral("张三"), QStringLiteral("运维助手"));
        QVERIFY(!id.isEmpty());
        const QDateTime now = QDateTime::currentDateTimeUtc();
        const QDateTime created = now.addSecs(-3 * 3600);
        const QDateTime active = now.addSecs(-(2 * 3600 + 10 * 60));
        backdate(id, created, active, active);
        // A label holding a credential.
        const QString metadataFile = m_basedir + u'/' + id + QStringLiteral("/.paddock/workspace.json");
        QJsonObject json = QJsonDocument::fromJson(readFile(metadataFile)).object();
        QJsonObject metadata = json.value(QLatin1String("metadata")).toObject();
        metadata.insert(QStringLiteral("hook"),
                        QStringLiteral("https://bot:hunter2@example.com/hook?token=s3cr3tvalue"));
        json.insert(QStringLiteral("metadata"), metadata);
        {
            QFile file(metadataFile);
            QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
            file.write(QJsonDocument(json).toJson());
        }

        const Run shown = run(local({QStringLiteral("info"), id}));
        QCOMPARE(shown.exitCode, 0);
        QCOMPARE(shown.err, QString());
        const QString time = QStringLiteral("yyyy-MM-dd HH:mm:ss");
        QStringList lines = shown.out.split(u'\n');
        QCOMPARE(lines.takeLast(), QString());
        // "Label: value", the values in one column (after the longest label, "Last activity:").
        const QStringList head = lines.mid(0, 12);
        const QStringList labels{"Workspace:", "Sandbox:", "State:",   "User:",          "Agent:", "Backend:",
                                 "Image:",     "Created:", "Expires:", "Last activity:", "Idle:",  "Metadata:"};
        for (qsizetype i = 0; i < labels.size() - 1; ++i) {
            QVERIFY2(head.value(i).startsWith(labels[i]), qPrintable(shown.out));
            QVERIFY2(
                head.value(i).indexOf(QRegularExpression(QStringLiteral("\\S"), QRegularExpression::NoPatternOption),
                                      labels[i].size())
                    == 15,
                qPrintable(head.value(i)));
        }
        QCOMPARE(head.mid(0, 8),
                 (QStringList{
                     QStringLiteral("Workspace:     ") + id,
                     QStringLiteral("Sandbox:       ") + id,
                     QStringLiteral("State:         Running"),
                     QStringLiteral("User:          张三"),
                     QStringLiteral("Agent:         运维助手"),
                     QStringLiteral("Backend:       local"),
                     QStringLiteral("Image:         -"),
                     QStringLiteral("Created:       ") + created.toLocalTime().toString(time),
                 }));
        QCOMPARE(head[8], QStringLiteral("Expires:       never"));
        QCOMPARE(head[9], QStringLiteral("Last activity: ") + active.toLocalTime().toString(time));
        QVERIFY2(QRegularExpression(QStringLiteral("^Idle:          2h 1[01]m \\(since its last activity\\)$"))
                     .match(head[10])
                     .hasMatch(),
                 qPrintable(head[10]));
        QCOMPARE(head[11], QStringLiteral("Metadata:"));
        // The labels, sorted, their values masked as inspect masks them.
        const QStringList labelLines = lines.mid(12);
        QCOMPARE(labelLines.size(), 4);
        QCOMPARE(labelLines[0], QStringLiteral("  agentscope.agent.id=运维助手"));
        QVERIFY2(labelLines[3].startsWith(QLatin1String("  hook=https://"))
                     && labelLines[3].contains(Paddock::Inspect::maskGlyph())
                     && !labelLines[3].contains(QLatin1String("hunter2"))
                     && !labelLines[3].contains(QLatin1String("s3cr3tvalue")),
                 qPrintable(labelLines[3]));

        // --json: the object list --json prints for it.
        const Run asJson = run(local({QStringLiteral("info"), id, QStringLiteral("--json")}));
        QCOMPARE(asJson.exitCode, 0);
        const QJsonObject object = QJsonDocument::fromJson(asJson.out.toUtf8()).object();
        QVERIFY(!object.isEmpty());
        const QJsonArray rows = QJsonDocument::fromJson(run(local({"list", "--json"})).out.toUtf8()).array();
        QCOMPARE(rows.size(), 1);
        QCOMPARE(object, rows.first().toObject());

        // In Chinese, aligned by cells (the labels end in a full-width colon).
        const Run chinese = run(local({QStringLiteral("info"), id}), chineseEnvironment());
        QCOMPARE(chinese.exitCode, 0);
        const QStringList translated = chinese.out.split(u'\n');
        QVERIFY2(translated.value(0) == QStringLiteral("工作区：   ") + id, qPrintable(chinese.out));
        QVERIFY2(translated.value(2) == QStringLiteral("状态：     Running"), qPrintable(chinese.out));
        QVERIFY2(translated.value(8) == QStringLiteral("过期时间： 永不"), qPrintable(chinese.out));

        // No such workspace: exit 1 and why; a bad id: a usage error.
        const Run missing = run(local({QStringLiteral("info"), QStringLiteral("nosuchworkspace")}));
        QCOMPARE(missing.exitCode, 1);
        QCOMPARE(missing.out, QString());
        QCOMPARE(missing.err, QStringLiteral("paddockctl: info nosuchworkspace: no workspace nosuchworkspace\n"));
        const Run bad = run(local({QStringLiteral("info"), QStringLiteral("../x")}));
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains(QLatin1String("path separator")), qPrintable(bad.err));
    }

    // --layout agentscope: AgentScope's LocalWorkspaceManager's folders <basedir>/<agent_id>, listed
    // Idle with the id AgentScope gives them and no user, opened where AgentScope opens them.
    void agentscopeLayout()
    {
        const QString folder = m_basedir + QStringLiteral("/a1");
        QVERIFY(QDir().mkpath(folder));
        QDirIterator fixture(QStringLiteral(AGENTSCOPE_FIXTURES "/local"), QDir::Files | QDir::Hidden,
                             QDirIterator::Subdirectories);
        while (fixture.hasNext()) {
            const QString path = fixture.next();
            const QString target = folder + path.mid(QStringLiteral(AGENTSCOPE_FIXTURES "/local").size());
            QVERIFY(QDir().mkpath(QFileInfo(target).path()) && QFile::copy(path, target));
        }
        const auto agentscope = [this](QStringList args) {
            return local(QStringList{QStringLiteral("--layout"), QStringLiteral("agentscope")} + args);
        };
        const auto row = [this](const QStringList &args) {
            const QJsonArray rows = QJsonDocument::fromJson(run(args).out.toUtf8()).array();
            return rows.size() == 1 ? rows.first().toObject() : QJsonObject();
        };
        const QString id = QStringLiteral("19f69055a5066d5f"); // BLAKE2b-8 of "::a1"
        QJsonObject listed = row(agentscope({"list", "--json"}));
        QCOMPARE(listed.value(QLatin1String("workspaceId")).toString(), id);
        QCOMPARE(listed.value(QLatin1String("sandboxId")).toString(), QStringLiteral("a1"));
        QCOMPARE(listed.value(QLatin1String("state")).toString(), QStringLiteral("Idle"));
        QCOMPARE(listed.value(QLatin1String("userId")).toString(), QString());
        QCOMPARE(listed.value(QLatin1String("agentId")).toString(), QStringLiteral("a1"));
        // Paddock's own layout over the same folder sees none of AgentScope's.
        QCOMPARE(run(local({"list", "--json"})).out.trimmed(), QStringLiteral("[\n]"));

        const Run opened = run(agentscope({"open", "--user", "alice", "--agent", "a1"}));
        QCOMPARE(opened.exitCode, 0);
        QCOMPARE(opened.out, id + u'\n');
        QCOMPARE(row(agentscope({"list", "--json"})).value(QLatin1String("state")).toString(),
                 QStringLiteral("Running"));
        QVERIFY(QFileInfo(m_basedir + QStringLiteral("/.paddock/a1/workspace.json")).isFile());
        QVERIFY(!QFileInfo::exists(folder + QStringLiteral("/.paddock")));
        // Another user of that agent: the same workspace.
        QCOMPARE(run(agentscope({"open", "--user", "bob", "--agent", "a1"})).out, id + u'\n');
        QCOMPARE(run(agentscope({"close", id})).exitCode, 0);
        QCOMPARE(row(agentscope({"list", "--json"})).value(QLatin1String("state")).toString(),
                 QStringLiteral("Paused"));

        // What AgentScope would not do is refused: an id it would not give the folder, an agent
        // id it refuses.
        Run refused = run(agentscope({"open", "--user", "bob", "--agent", "a1", "--workspace-id", "deadbeef"}));
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains(id), qPrintable(refused.err));
        refused = run(agentscope({"open", "--user", "bob", "--agent", ".seed"}));
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains(QLatin1String("\".seed\"")), qPrintable(refused.err));
        QVERIFY(!QFileInfo::exists(m_basedir + QStringLiteral("/.seed")));

        const Run killed = run(agentscope({"kill", id}));
        QCOMPARE(killed.exitCode, 0);
        QCOMPARE(killed.out, QStringLiteral("%1 killed; deleted %2\n").arg(id, folder));
        QVERIFY(!QFileInfo::exists(folder));
        QCOMPARE(run(agentscope({"list", "--json"})).out.trimmed(), QStringLiteral("[\n]"));
    }

    void lifecycleCommands()
    {
        const QString a = run(local({"open", "--user", "u", "--agent", "a"})).out.trimmed();
        const QString b = run(local({"open", "--user", "u", "--agent", "b"})).out.trimmed();
        QVERIFY(!a.isEmpty() && !b.isEmpty());
        const auto state = [this](const QString &id) {
            const QJsonArray rows = QJsonDocument::fromJson(run(local({"list", "--json"})).out.toUtf8()).array();
            for (const QJsonValue &row : rows) {
                if (row[QLatin1String("workspaceId")].toString() == id)
                    return row[QLatin1String("state")].toString();
            }
            return QString();
        };

        Run result = run(local({QStringLiteral("pause"), a, b}));
        QCOMPARE(result.exitCode, 0);
        QCOMPARE(state(a), QStringLiteral("Paused"));
        QCOMPARE(state(b), QStringLiteral("Paused"));
        result = run(local({QStringLiteral("resume"), a}));
        QCOMPARE(result.exitCode, 0);
        QCOMPARE(state(a), QStringLiteral("Running"));
        result = run(local({QStringLiteral("close"), a}));
        QCOMPARE(result.exitCode, 0);
        QCOMPARE(state(a), QStringLiteral("Paused"));

        // One unknown id fails (exit 1) but does not stop the others.
        result = run(local({QStringLiteral("resume"), QStringLiteral("nosuchworkspace"), b}));
        QCOMPARE(result.exitCode, 1);
        QVERIFY(result.err.contains(QLatin1String("nosuchworkspace")));
        QCOMPARE(state(b), QStringLiteral("Running"));

        result = run(local({QStringLiteral("renew"), b, QStringLiteral("--seconds"), QStringLiteral("600")}));
        QCOMPARE(result.exitCode, 1);
        QVERIFY(result.err.contains(QLatin1String("does not expire")));

        result = run(local({QStringLiteral("kill"), a}));
        QCOMPARE(result.exitCode, 0);
        QVERIFY2(result.out.contains(m_basedir + u'/' + a), qPrintable(result.out)); // names the path it deleted
        QVERIFY(!QFileInfo::exists(m_basedir + u'/' + a));
        QVERIFY(QFileInfo::exists(m_basedir + u'/' + b));
        QCOMPARE(state(a), QString());
    }

    void sweepPausesIdleRunningWorkspaces()
    {
        // Five running workspaces, each judged by another of the times the rule knows.
        QStringList ids;
        for (const char *agent : {"a", "b", "c", "d", "e"}) {
            ids.append(run(local({"open", "--user", "u", "--agent", QString::fromLatin1(agent)})).out.trimmed());
            QVERIFY(!ids.constLast().isEmpty());
        }
        const QString a = ids.at(0), b = ids.at(1), c = ids.at(2), d = ids.at(3), e = ids.at(4);

        // Nothing is idle for a day, and sweep says so for each. The newest time known is its
        // sessions/ folder, made by the provisioning, or the backend's last activity, set when
        // the sandbox was made moments before (file times are coarser than the clock).
        Run result = run(local({QStringLiteral("sweep"), QStringLiteral("--idle"), QStringLiteral("86400")}));
        QCOMPARE(result.exitCode, 0);
        QCOMPARE(result.out.count(u'\n'), 5);
        for (const QString &id : std::as_const(ids)) {
            QVERIFY2(QRegularExpression(QStringLiteral("^%1 not idle for long enough \\(idle \\d+s of 1d 0h, judged by "
                                                       "its (sessions/ folder|last activity)\\)$")
                                            .arg(id),
                                        QRegularExpression::MultilineOption)
                         .match(result.out)
                         .hasMatch(),
                     qPrintable(result.out));
        }

        // Backdated as if made three hours ago: a last used by an agent in sessions/ 90 minutes
        // ago; b last active by the backend's word two hours ago (its sessions/ older). c with no
        // time at all; d made 50 minutes ago, with activity only from before (another sandbox's);
        // e left as it is.
        const QDateTime now = QDateTime::currentDateTimeUtc();
        backdate(a, now.addSecs(-3 * 3600), now.addSecs(-2 * 3600 - 600), now.addSecs(-90 * 60));
        backdate(b, now.addSecs(-3 * 3600), now.addSecs(-2 * 3600), now.addSecs(-150 * 60));
        backdate(c, {}, {}, {});
        backdate(d, now.addSecs(-50 * 60), now.addSecs(-2 * 3600), now.addSecs(-2 * 3600));

        result = run(local(
            {QStringLiteral("sweep"), QStringLiteral("--idle"), QStringLiteral("3600"), QStringLiteral("--dry-run")}));
        QCOMPARE(result.exitCode, 0);
        QVERIFY2(
            result.out.contains(a + QStringLiteral(" would be paused (idle 1h 30m, judged by its sessions/ folder)\n")),
            qPrintable(result.out));
        QVERIFY2(
            result.out.contains(b + QStringLiteral(" would be paused (idle 2h 0m, judged by its last activity)\n")),
            qPrintable(result.out));
        QVERIFY2(result.out.contains(c + QStringLiteral(" not judged: no activity or creation time to go by\n")),
                 qPrintable(result.out));
        QVERIFY2(QRegularExpression(QStringLiteral("^%1 not idle for long enough \\(idle 50m \\d+s of 1h 0m, judged by "
                                                   "its creation time\\)$")
                                        .arg(d),
                                    QRegularExpression::MultilineOption)
                     .match(result.out)
                     .hasMatch(),
                 qPrintable(result.out));
        QVERIFY2(result.out.contains(e + QStringLiteral(" not idle for long enough (idle ")), qPrintable(result.out));
        QCOMPARE(result.out.count(u'\n'), 5);
        for (const QString &id : std::as_const(ids))
            QCOMPARE(state(id), QStringLiteral("Running"));

        result = run(local({QStringLiteral("sweep"), QStringLiteral("--idle"), QStringLiteral("3600")}));
        QCOMPARE(result.exitCode, 0);
        QVERIFY2(result.out.contains(a + QStringLiteral(" paused (idle 1h 30m, judged by its sessions/ folder)\n")),
                 qPrintable(result.out));
        QVERIFY(result.out.contains(b + QStringLiteral(" paused (idle 2h")));
        QCOMPARE(state(a), QStringLiteral("Paused"));
        QCOMPARE(state(b), QStringLiteral("Paused"));
        QCOMPARE(state(c), QStringLiteral("Running"));
        QCOMPARE(state(e), QStringLiteral("Running"));

        // In the user's language.
        QProcess chinese;
        QProcessEnvironment env = environment();
        env.insert(QStringLiteral("LANG"), QStringLiteral("zh_CN.UTF-8"));
        env.insert(QStringLiteral("LANGUAGE"), QStringLiteral("zh_CN"));
        env.remove(QStringLiteral("LC_ALL"));
        env.remove(QStringLiteral("LC_MESSAGES"));
        chinese.setProcessEnvironment(env);
        chinese.start(QStringLiteral(PADDOCKCTL_PATH),
                      local({QStringLiteral("sweep"), QStringLiteral("--idle"), QStringLiteral("3600"),
                             QStringLiteral("--dry-run")}));
        QVERIFY(chinese.waitForFinished(60'000));
        const QString translated = QString::fromUtf8(chinese.readAllStandardOutput());
        QVERIFY2(translated.contains(c + QStringLiteral(" 未作判断：既无活动时间也无创建时间可依据\n")),
                 qPrintable(translated));
        QVERIFY2(QRegularExpression(
                     QStringLiteral("^%1 空闲时间不够长（已空闲 50 分 \\d+ 秒，须超过 1 小时 0 分；按创建时间判断）$")
                         .arg(d),
                     QRegularExpression::MultilineOption)
                     .match(translated)
                     .hasMatch(),
                 qPrintable(translated));

        // Only what is running is swept.
        result = run(local({QStringLiteral("sweep"), QStringLiteral("--idle"), QStringLiteral("3600")}));
        QCOMPARE(result.exitCode, 0);
        QVERIFY(!result.out.contains(a) && !result.out.contains(b));
        QVERIFY(result.out.contains(c) && result.out.contains(e));
    }

    void sweepSaysWhichPausesFailed()
    {
        // A pause that fails (the base folder read-only, in a mount namespace of paddockctl's own)
        // is said for that workspace on stderr, the others are still swept, and the exit code is 1.
        const QString idle = run(local({"open", "--user", "u", "--agent", "idle"})).out.trimmed();
        const QString busy = run(local({"open", "--user", "u", "--agent", "busy"})).out.trimmed();
        QVERIFY(!idle.isEmpty() && !busy.isEmpty());
        const QDateTime now = QDateTime::currentDateTimeUtc();
        backdate(idle, now.addSecs(-3 * 3600), now.addSecs(-2 * 3600), now.addSecs(-2 * 3600));
        if (geteuid() != 0 || QStandardPaths::findExecutable(QStringLiteral("unshare")).isEmpty())
            QSKIP("a read-only bind mount needs root and unshare (util-linux)");
        QProcess process;
        process.setProcessEnvironment(environment());
        process.start(QStringLiteral("unshare"),
                      QStringList{QStringLiteral("--mount"), QStringLiteral("--propagation"), QStringLiteral("private"),
                                  QStringLiteral("sh"), QStringLiteral("-c"),
                                  QStringLiteral("mount --bind -o ro \"$0\" \"$0\" && exec \"$@\""), m_basedir,
                                  QStringLiteral(PADDOCKCTL_PATH)}
                          + local({QStringLiteral("sweep"), QStringLiteral("--idle"), QStringLiteral("3600")}));
        QVERIFY(process.waitForFinished(120'000));
        const QString out = QString::fromUtf8(process.readAllStandardOutput());
        const QString err = QString::fromUtf8(process.readAllStandardError());
        if (err.startsWith(QLatin1String("unshare:")) || err.startsWith(QLatin1String("mount:")))
            QSKIP(qPrintable(QStringLiteral("no mount namespace here: %1").arg(err.trimmed())));
        QCOMPARE(process.exitCode(), 1);
        QVERIFY2(err.startsWith(QStringLiteral("paddockctl: pause %1: cannot write %2/%1/.paddock/workspace.json")
                                    .arg(idle, m_basedir)),
                 qPrintable(err));
        QCOMPARE(err.count(u'\n'), 1);
        QVERIFY2(out.startsWith(busy + QStringLiteral(" not idle for long enough (idle ")), qPrintable(out));
        QCOMPARE(out.count(u'\n'), 1);
        QCOMPARE(state(idle), QStringLiteral("Running"));
    }

    // inspect: every section of a workspace holding AgentScope's fixtures, as text and as JSON,
    // with no secret in either; a section alone; bad input.
    void inspectShowsEverySectionMasked()
    {
        const QString id = run(local({"open", "--user", "u", "--agent", "agent-1"})).out.trimmed();
        QVERIFY(!id.isEmpty());
        const QString workdir = m_basedir + u'/' + id;
        const QString fixtures = QStringLiteral(AGENTSCOPE_FIXTURES);
        const auto copy = [](const QString &from, const QString &to) {
            QDirIterator it(from, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
            while (it.hasNext()) {
                const QString file = it.next();
                const QString target = to + file.mid(from.size());
                QDir().mkpath(QFileInfo(target).path());
                QFile::remove(target);
                if (!QFile::copy(file, target))
                    return false;
            }
            return true;
        };
        QVERIFY(copy(fixtures + QStringLiteral("/sandbox/workspace"), workdir));
        QVERIFY(copy(fixtures + QStringLiteral("/sandbox/root/.agentscope"), workdir + QStringLiteral("/.agentscope")));
        // Metadata values that carry credentials (a URL's password and query, a token
        // assignment): masked in the overview of both forms, as in the dock.
        {
            const QString path = workdir + QStringLiteral("/.paddock/workspace.json");
            QJsonObject json = QJsonDocument::fromJson(readFile(path)).object();
            QJsonObject metadata = json.value(QStringLiteral("metadata")).toObject();
            metadata.insert(QStringLiteral("callback"),
                            QStringLiteral("https://bot:sample-secret-pw@hooks.example/x?sig=sample-secret-sig"));
            metadata.insert(QStringLiteral("note"), QStringLiteral("api_key=sample-secret-note"));
            json.insert(QStringLiteral("metadata"), metadata);
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
            file.write(QJsonDocument(json).toJson());
        }

        const Run text = run(local({QStringLiteral("inspect"), id}));
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(!text.out.contains(QStringLiteral("sample-secret-")), qPrintable(text.out));
        QVERIFY(!text.err.contains(QStringLiteral("sample-secret-")));
        const QStringList expected{QStringLiteral("Sessions (2)"),
                                   QStringLiteral("6f1c2a9e4b7d4e0f9a3c5b8d2e1f0a47"),
                                   QStringLiteral("agent-1/csv-audit"),
                                   QStringLiteral("MCP servers"),
                                   QStringLiteral("GITHUB_PERSONAL_ACCESS_TOKEN=") + Paddock::Inspect::maskGlyph(),
                                   QStringLiteral("Data ("),
                                   QStringLiteral("Gateway"),
                                   QStringLiteral("compressed out")};
        for (const QString &line : expected)
            QVERIFY2(text.out.contains(line), qPrintable(line));

        const Run json = run(local({QStringLiteral("inspect"), id, QStringLiteral("--json")}));
        QCOMPARE(json.exitCode, 0);
        QVERIFY(!json.out.contains(QStringLiteral("sample-secret-")));
        const QJsonObject report = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QCOMPARE(report.keys(),
                 (QStringList{QStringLiteral("data"), QStringLiteral("gateway"), QStringLiteral("mcp"),
                              QStringLiteral("overview"), QStringLiteral("sessions"), QStringLiteral("skills")}));
        QCOMPARE(report[QLatin1String("overview")][QLatin1String("workspaceId")].toString(), id);
        const QJsonObject metadata = report[QLatin1String("overview")][QLatin1String("metadata")].toObject();
        const QString callback = metadata.value(QLatin1String("callback")).toString();
        QVERIFY2(callback.contains(QLatin1String("hooks.example/x?sig="))
                     && callback.contains(Paddock::Inspect::maskGlyph()),
                 qPrintable(callback));
        QVERIFY(metadata.value(QLatin1String("note")).toString().contains(Paddock::Inspect::maskGlyph()));
        const QJsonArray sessions = report[QLatin1String("sessions")].toArray();
        QCOMPARE(sessions.size(), 2);
        for (const QJsonValue &session : sessions)
            QCOMPARE(session[QLatin1String("lines")].toInt(), 4);
        QCOMPARE(report[QLatin1String("mcp")][QLatin1String("config")][QLatin1String("version")].toInt(), 2);
        QCOMPARE(report[QLatin1String("gateway")][QLatin1String("scriptPresent")].toBool(), true);

        const Run mcp = run(local({QStringLiteral("inspect"), id, QStringLiteral("--section"), QStringLiteral("mcp"),
                                   QStringLiteral("--json")}));
        QCOMPARE(mcp.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(mcp.out.toUtf8()).object().keys(), QStringList{QStringLiteral("mcp")});

        const Run badSection =
            run(local({QStringLiteral("inspect"), id, QStringLiteral("--section"), QStringLiteral("secrets")}));
        QCOMPARE(badSection.exitCode, 2);
        QVERIFY(badSection.err.contains(QStringLiteral("--section")));
        const Run unknown = run(local({QStringLiteral("inspect"), QStringLiteral("nosuchworkspace")}));
        QCOMPARE(unknown.exitCode, 1);
        QVERIFY(unknown.err.contains(QStringLiteral("nosuchworkspace")));
        QVERIFY(unknown.out.isEmpty());
        const Run badId = run(local({QStringLiteral("inspect"), QStringLiteral("../x")}));
        QCOMPARE(badId.exitCode, 2);
    }

    // exec: the command's bytes as they are (NUL, not UTF-8, no last newline), stderr apart, its
    // exit status passed through (128 + N for a signal); 125 when it cannot run (no workspace,
    // paused, bad usage).
    void execPassesTheOutputAndTheExitStatusThrough()
    {
        const QString id = run(local({"open", "--user", "u", "--agent", "a"})).out.trimmed();
        QVERIFY(!id.isEmpty());
        QProcess process;
        start(process,
              local({QStringLiteral("exec"), id, QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
                     QStringLiteral("printf 'a\\000b\\377\\r\\nlast'; printf 'oops\\n' >&2; exit 3")}));
        QVERIFY(process.waitForFinished(60'000));
        QCOMPARE(process.exitCode(), 3);
        QCOMPARE(process.readAllStandardOutput(), QByteArray("a\0b\xff\r\nlast", 10));
        QCOMPARE(process.readAllStandardError(), QByteArray("oops\n"));
        // Arguments reach the program as given, no shell between.
        const Run args = run(local({"exec", id, "--", "printf", "%s|", "a b", "$HOME", "中文"}));
        QCOMPARE(args.exitCode, 0);
        QCOMPARE(args.out, QStringLiteral("a b|$HOME|中文|"));
        // A program that is not there: what the workspace says (127), not paddockctl's 125.
        const Run absent = run(local({"exec", id, "--", "no-such-program-paddockctl"}));
        QCOMPARE(absent.exitCode, 127);

        const Run unknown = run(local({"exec", "nope", "--", "true"}));
        QCOMPARE(unknown.exitCode, 125);
        QVERIFY2(unknown.err.contains(QLatin1String("no workspace nope")), qPrintable(unknown.err));
        QCOMPARE(run(local({"pause", id})).exitCode, 0);
        const Run paused = run(local({"exec", id, "--", "touch", "ran"}));
        QCOMPARE(paused.exitCode, 125);
        QVERIFY2(paused.err.contains(QLatin1String("is paused")), qPrintable(paused.err));
        QVERIFY2(paused.err.contains(QStringLiteral("paddockctl resume %1").arg(id)), qPrintable(paused.err));
        QVERIFY(!QFileInfo::exists(m_basedir + u'/' + id + QStringLiteral("/ran")));
        QCOMPARE(state(id), QStringLiteral("Paused")); // never resumed behind the user's back
        // Every failure of paddockctl's own is 125, never a status the command could have given:
        // usage errors, an option that does not apply, a profile that cannot be made.
        QCOMPARE(run(local({"exec", id})).exitCode, 125);
        QCOMPARE(run(local({"exec", "../x", "--", "true"})).exitCode, 125);
        QCOMPARE(run(local({"exec", "--section", "mcp", id, "--", "true"})).exitCode, 125);
        QCOMPARE(run({"exec", "--backend", "no-such-backend", id, "--", "true"}).exitCode, 125);
        // A command killed by a signal: 128 + its number, as a shell says.
        QCOMPARE(run(local({"resume", id})).exitCode, 0);
        const Run killed = run(local({"exec", id, "--", "sh", "-c", "kill -TERM $$"}));
        QCOMPARE(killed.exitCode, 128 + SIGTERM);
    }

    void execStreamsTheOutputAsItComes()
    {
        const QString id = run(local({"open", "--user", "u", "--agent", "stream"})).out.trimmed();
        QVERIFY(!id.isEmpty());
        QProcess process;
        start(process,
              local({QStringLiteral("exec"), id, QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
                     QStringLiteral("echo first; echo early >&2; while [ ! -e release ]; do sleep 0.1; done; "
                                    "echo second")}));
        QByteArray out;
        QByteArray err;
        QTRY_COMPARE((out += process.readAllStandardOutput()), QByteArray("first\n"));
        QTRY_COMPARE((err += process.readAllStandardError()), QByteArray("early\n"));
        QCOMPARE(process.state(), QProcess::Running);
        QFile release(m_basedir + u'/' + id + QStringLiteral("/release"));
        QVERIFY(release.open(QIODevice::WriteOnly));
        release.close();
        QVERIFY(process.waitForFinished(60'000));
        QCOMPARE(process.exitCode(), 0);
        QCOMPARE(out + process.readAllStandardOutput(), QByteArray("first\nsecond\n"));
    }

    // Ctrl+C and SIGTERM stop the command in the workspace and end as a shell says: 130, 143.
    void execStopsTheCommandOnCtrlCAndSigterm_data()
    {
        QTest::addColumn<int>("signal");
        QTest::newRow("SIGINT") << int(SIGINT);
        QTest::newRow("SIGTERM") << int(SIGTERM);
    }
    void execStopsTheCommandOnCtrlCAndSigterm()
    {
        QFETCH(int, signal);
        const QString id = run(local({"open", "--user", "u", "--agent", "stop"})).out.trimmed();
        QVERIFY(!id.isEmpty());
        const QString pidFile = m_basedir + u'/' + id + QStringLiteral("/pid");
        QFile::remove(pidFile);
        QProcess process;
        start(process,
              local({QStringLiteral("exec"), id, QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
                     QStringLiteral("echo $$ > pid; echo up; sleep 300; touch finished")}));
        QTRY_VERIFY(process.readAllStandardOutput().contains("up") || QFileInfo(pidFile).size() > 0);
        QTRY_VERIFY(QFileInfo(pidFile).size() > 0);
        const QByteArray pid = readFile(pidFile).trimmed();
        QVERIFY(QFileInfo::exists(QStringLiteral("/proc/") + QString::fromLatin1(pid)));
        ::kill(static_cast<pid_t>(process.processId()), signal);
        QVERIFY(process.waitForFinished(60'000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 128 + signal);
        // The command's shell was killed and reaped: gone.
        QVERIFY(!QFileInfo::exists(QStringLiteral("/proc/") + QString::fromLatin1(pid)));
        QVERIFY(!QFileInfo::exists(m_basedir + u'/' + id + QStringLiteral("/finished")));
    }

    void filesListCatGetAndPut()
    {
        const QString id = run(local({"open", "--user", "u", "--agent", "files"})).out.trimmed();
        QVERIFY(!id.isEmpty());
        const QString root = m_basedir + u'/' + id;
        // 3 MB of every byte value: more than one chunk of cat.
        QByteArray big;
        for (int i = 0; i < 3 * 1024 * 1024; ++i)
            big.append(char((i * 7 + i / 251) & 0xff));
        QFile bigFile(root + QStringLiteral("/data/big.bin"));
        QVERIFY(bigFile.open(QIODevice::WriteOnly));
        QCOMPARE(bigFile.write(big), big.size());
        bigFile.close();
        QVERIFY(QFile::link(QStringLiteral("big.bin"), root + QStringLiteral("/data/link")));

        const Run listed = run(local({"files", id, "ls", "data"}));
        QCOMPARE(listed.exitCode, 0);
        const QStringList lines = listed.out.split(u'\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 2);
        QVERIFY2(lines.at(0).startsWith(u'-') && lines.at(0).endsWith(QLatin1String("  big.bin"))
                     && lines.at(0).contains(QString::number(big.size())),
                 qPrintable(listed.out));
        QVERIFY2(lines.at(1).startsWith(u'l') && lines.at(1).endsWith(QLatin1String("link -> big.bin")),
                 qPrintable(listed.out));
        const Run json = run(local({"files", id, "ls", "--json"}));
        QCOMPARE(json.exitCode, 0);
        const QJsonArray entries = QJsonDocument::fromJson(json.out.toUtf8()).array();
        const auto named = [&entries](const QString &name) {
            for (const QJsonValue &entry : entries) {
                if (entry[QLatin1String("name")].toString() == name)
                    return entry.toObject();
            }
            return QJsonObject();
        };
        QCOMPARE(named(QStringLiteral("data")).value(QLatin1String("kind")).toString(), QStringLiteral("folder"));
        QVERIFY(named(QStringLiteral("data")).value(QLatin1String("modified")).toString().endsWith(u'Z'));
        const Run one = run(local({"files", id, "ls", "data/big.bin", "--json"}));
        QCOMPARE(QJsonDocument::fromJson(one.out.toUtf8()).array().first()[QLatin1String("size")].toInteger(),
                 big.size());

        QProcess cat;
        start(cat, local({QStringLiteral("files"), id, QStringLiteral("cat"), QStringLiteral("data/link")}));
        QByteArray catted;
        while (cat.state() != QProcess::NotRunning || cat.bytesAvailable() > 0) {
            cat.waitForReadyRead(1000);
            catted += cat.readAllStandardOutput();
        }
        QCOMPARE(cat.exitCode(), 0);
        QVERIFY(catted == big);

        // get: to a file, and into a folder under the file's own name.
        const QString here = m_home.path() + QStringLiteral("/got-") + id;
        QVERIFY(QDir().mkpath(here));
        QCOMPARE(run(local({"files", id, "get", "data/big.bin", here + QStringLiteral("/copy.bin")})).exitCode, 0);
        QVERIFY(readFile(here + QStringLiteral("/copy.bin")) == big);
        QCOMPARE(run(local({"files", id, "get", "data/big.bin", here})).exitCode, 0);
        QVERIFY(readFile(here + QStringLiteral("/big.bin")) == big);
        // put: to a path, and into a folder; then read back.
        const QString mine = writeBootstrap(QStringLiteral("upload.txt"), "uploaded\n");
        QCOMPARE(run(local({"files", id, "put", mine, "data/up.txt"})).exitCode, 0);
        QCOMPARE(readFile(root + QStringLiteral("/data/up.txt")), QByteArray("uploaded\n"));
        QCOMPARE(run(local({"files", id, "put", mine, "skills"})).exitCode, 0);
        QCOMPARE(run(local({"files", id, "cat", "skills/upload.txt"})).out, QStringLiteral("uploaded\n"));

        // Bad input: a clear message, nothing written.
        const Run outside = run(local({"files", id, "get", "../../x", here + QStringLiteral("/outside")}));
        QCOMPARE(outside.exitCode, 2);
        QVERIFY2(outside.err.contains(QLatin1String("outside the workspace")), qPrintable(outside.err));
        QVERIFY(!QFileInfo::exists(here + QStringLiteral("/outside")));
        const Run missing = run(local({"files", id, "get", "data/none", here + QStringLiteral("/none")}));
        QCOMPARE(missing.exitCode, 1);
        QVERIFY(!QFileInfo::exists(here + QStringLiteral("/none")));
        const Run noLocal = run(local({"files", id, "put", here + QStringLiteral("/absent"), "data/x"}));
        QCOMPARE(noLocal.exitCode, 1);
        QVERIFY(!QFileInfo::exists(root + QStringLiteral("/data/x")));
        QCOMPARE(run(local({"files", id, "cat", "data"})).exitCode == 0, false);
        QCOMPARE(run(local({"files", id, "frob"})).exitCode, 2);
        QCOMPARE(run(local({"files", id, "cat"})).exitCode, 2);
        QCOMPARE(run(local({"files", id, "cat", "data/up.txt", "--json"})).exitCode, 2);
        QCOMPARE(run(local({"files", "nope", "ls"})).exitCode, 1);
    }

    void logsFollowShowsNewLines()
    {
        const QString id = run(local({"open", "--user", "u", "--agent", "a"})).out.trimmed();
        QVERIFY(!id.isEmpty());
        QProcess follow;
        start(follow, local({QStringLiteral("logs"), id, QStringLiteral("--follow")}));
        QByteArray seen;
        QTRY_VERIFY((seen += follow.readAllStandardOutput()).contains("is ready"));
        QCOMPARE(seen.count("provisioning workspace"), 1);

        const QString boot = writeBootstrap(QStringLiteral("follow.txt"), "echo fresh line\n");
        QCOMPARE(run(local({"--bootstrap", boot, "open", "--user", "u", "--agent", "a"})).exitCode, 0);
        QTRY_COMPARE((seen += follow.readAllStandardOutput()).count("provisioning workspace"), 2);
        follow.kill();
        follow.waitForFinished();
    }

    void killMinusNineDuringBootstrapKeepsTheLogAndBootstrapsAgain()
    {
        // Each line goes to the log (through paddockctl) and to side.txt (by the shell itself).
        const QString slow = writeBootstrap(QStringLiteral("slow.txt"),
                                            "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); echo \"line $i\"; "
                                            "echo \"line $i\" >> side.txt; sleep 0.005; done\n");
        QProcess victim;
        start(victim,
              local({QStringLiteral("--bootstrap"), slow, QStringLiteral("open"), QStringLiteral("--user"),
                     QStringLiteral("u"), QStringLiteral("--agent"), QStringLiteral("victim")}));
        const QString id = run({"assign-id", "--user", "u", "--agent", "victim"}).out.trimmed();
        QTRY_VERIFY2_WITH_TIMEOUT(!logPath(id).isEmpty() && readFile(logPath(id)).contains(" out line 60\n"),
                                  qPrintable(logPath(id) + u'\n' + QString::fromUtf8(readFile(logPath(id)).right(400))
                                             + QString::fromUtf8(victim.readAllStandardError().right(400))),
                                  60'000);
        ::kill(static_cast<pid_t>(victim.processId()), SIGKILL);
        QVERIFY(victim.waitForFinished());
        QCOMPARE(victim.exitStatus(), QProcess::CrashExit);

        const QByteArray log = readFile(logPath(id));
        QVERIFY(log.endsWith('\n')); // no torn last line
        QStringList outLines;
        for (const QByteArray &raw : log.split('\n')) {
            if (raw.contains(" out "))
                outLines.append(QString::fromUtf8(raw.mid(raw.indexOf(" out ") + 5)));
        }
        QVERIFY(outLines.size() >= 60);
        for (int i = 0; i < outLines.size(); ++i)
            QCOMPARE(outLines[i], QStringLiteral("line %1").arg(i + 1)); // none lost, none out of order
        const QStringList side = QString::fromUtf8(readFile(m_basedir + u'/' + id + QStringLiteral("/side.txt")))
                                     .split(u'\n', Qt::SkipEmptyParts);
        QVERIFY(side.size() >= outLines.size());
        QCOMPARE(side.mid(0, outLines.size()), outLines);
        QVERIFY(!QFileInfo::exists(m_basedir + u'/' + id + QStringLiteral("/.agentscope/.bootstrap-complete")));

        // The interrupted bootstrap runs again on the next open, and this time completes.
        const QString quick = writeBootstrap(QStringLiteral("quick.txt"), "echo second attempt\n");
        const Run again =
            run(local({QStringLiteral("--bootstrap"), quick, QStringLiteral("open"), QStringLiteral("--user"),
                       QStringLiteral("u"), QStringLiteral("--agent"), QStringLiteral("victim")}));
        QCOMPARE(again.exitCode, 0);
        QVERIFY(again.err.contains(QLatin1String(" out second attempt\n")));
        QVERIFY(QFileInfo::exists(m_basedir + u'/' + id + QStringLiteral("/.agentscope/.bootstrap-complete")));
        QVERIFY(!QFileInfo::exists(m_basedir + u'/' + id + QStringLiteral("/.agentscope/_mcp_gateway_app.py")));
        QVERIFY(readFile(logPath(id)).startsWith(log)); // appended, never rewritten
    }
};

QTEST_GUILESS_MAIN(TestPaddockctl)
#include "tst_paddockctl.moc"
