// paddockctl --backend kubernetes against paddock-fake-kubernetes: every command as on the other
// backends (Stopped and Resume, kill deleting the Pod and the PVC), and one clear message for
// each kind of bad input (a kubeconfig that does not parse, an unknown context, an unreachable
// server, a bad CA, a refused token, RBAC, an id that breaks the label rules, an image that
// cannot be pulled).

#include "fakekubernetesprocess.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

namespace {

struct Run
{
    int exitCode = -1;
    QString out;
    QString err;
};

} // namespace

class TestPaddockctlKubernetes final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_home;
    PaddockTest::FakeKubernetesProcess m_server;

    QProcessEnvironment environment() const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_home.path() + QStringLiteral("/data"));
        env.insert(QStringLiteral("HOME"), m_home.path());
        env.remove(QStringLiteral("KUBECONFIG"));
        env.remove(QStringLiteral("KUBERNETES_SERVICE_HOST"));
        env.remove(QStringLiteral("QT_LOGGING_RULES"));
        return env;
    }

    QStringList global(const QString &kubeconfig = {}) const
    {
        return QStringList{QStringLiteral("--backend"), QStringLiteral("kubernetes"), QStringLiteral("--kubeconfig"),
                           kubeconfig.isEmpty() ? m_server.kubeconfigPath() : kubeconfig};
    }

    Run run(const QStringList &args, const QString &kubeconfig = {}) const
    {
        QProcess process;
        process.setProcessEnvironment(environment());
        process.start(QStringLiteral(PADDOCKCTL_PATH), global(kubeconfig) + args);
        if (!process.waitForFinished(120'000))
            qFatal("paddockctl %s did not finish", qPrintable(args.join(u' ')));
        return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
                QString::fromUtf8(process.readAllStandardOutput()), QString::fromUtf8(process.readAllStandardError())};
    }

    QString file(const QString &name, const QByteArray &text) const
    {
        QFile out(m_home.path() + u'/' + name);
        if (!out.open(QIODevice::WriteOnly) || out.write(text) != text.size())
            qFatal("cannot write %s", qPrintable(name));
        return out.fileName();
    }

    QJsonObject row(const QString &workspaceId) const
    {
        const Run listed = run({QStringLiteral("list"), QStringLiteral("--json")});
        for (const QJsonValue &value : QJsonDocument::fromJson(listed.out.toUtf8()).array()) {
            if (value.toObject().value(QLatin1String("workspaceId")).toString() == workspaceId)
                return value.toObject();
        }
        return {};
    }

    QByteArray kubeconfigText() const
    {
        QFile in(m_server.kubeconfigPath());
        if (!in.open(QIODevice::ReadOnly))
            qFatal("cannot read the fake's kubeconfig");
        return in.readAll();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        QVERIFY2(m_server.start({QStringLiteral("--seed"), QStringLiteral("6"), QStringLiteral("--pod-start-ms"),
                                 QStringLiteral("100"), QStringLiteral("--grace-ms"), QStringLiteral("200")}),
                 qPrintable(m_server.error()));
    }

    void everyCommandWorks()
    {
        const QString bootstrap =
            file(QStringLiteral("bootstrap.txt"), "echo bootstrapping in $(pwd)\necho warn >&2\n");
        const Run opened =
            run({QStringLiteral("--bootstrap"), bootstrap, QStringLiteral("open"), QStringLiteral("--user"),
                 QStringLiteral("运维"), QStringLiteral("--agent"), QStringLiteral("助手")});
        QVERIFY2(opened.exitCode == 0, qPrintable(opened.err));
        const QString id = opened.out.trimmed();
        QCOMPARE(id.size(), 16);
        QVERIFY2(opened.err.contains(QLatin1String("out bootstrapping in /workspace")), qPrintable(opened.err));
        QVERIFY(opened.err.contains(QLatin1String("err warn")));

        // list: ours among the six seeded, owners from the annotations.
        const Run listed = run({QStringLiteral("list"), QStringLiteral("--json")});
        QCOMPARE(listed.exitCode, 0);
        const QJsonArray rows = QJsonDocument::fromJson(listed.out.toUtf8()).array();
        QCOMPARE(rows.size(), 7);
        QJsonObject mine = row(id);
        QCOMPARE(mine.value(QLatin1String("userId")).toString(), QStringLiteral("运维"));
        QCOMPARE(mine.value(QLatin1String("agentId")).toString(), QStringLiteral("助手"));
        QCOMPARE(mine.value(QLatin1String("state")).toString(), QStringLiteral("Running"));
        QCOMPARE(mine.value(QLatin1String("backend")).toString(), QStringLiteral("kubernetes"));
        QCOMPARE(mine.value(QLatin1String("sandboxId")).toString(), QStringLiteral("as-ws-") + id);

        // Pause stops it: the Pod goes, the PVC stays; list says so in this backend's words.
        Run step = run({QStringLiteral("pause"), id});
        QVERIFY2(step.exitCode == 0, qPrintable(step.err));
        QCOMPARE(row(id).value(QLatin1String("state")).toString(), QStringLiteral("Stopped"));
        step = run({QStringLiteral("resume"), id});
        QVERIFY2(step.exitCode == 0, qPrintable(step.err));
        QCOMPARE(row(id).value(QLatin1String("state")).toString(), QStringLiteral("Running"));
        step = run({QStringLiteral("close"), id});
        QVERIFY2(step.exitCode == 0, qPrintable(step.err));
        QCOMPARE(row(id).value(QLatin1String("state")).toString(), QStringLiteral("Stopped"));

        // open again: the Pod is made again on the PVC, and the bootstrap does not run again.
        const Run reopened =
            run({QStringLiteral("--bootstrap"), bootstrap, QStringLiteral("open"), QStringLiteral("--user"),
                 QStringLiteral("运维"), QStringLiteral("--agent"), QStringLiteral("助手")});
        QVERIFY2(reopened.exitCode == 0, qPrintable(reopened.err));
        QCOMPARE(reopened.out.trimmed(), id);
        QVERIFY2(!reopened.err.contains(QLatin1String("bootstrapping in")), qPrintable(reopened.err));

        step = run({QStringLiteral("renew"), id, QStringLiteral("--seconds"), QStringLiteral("7200")});
        QCOMPARE(step.exitCode, 1);
        QVERIFY2(step.err.contains(QLatin1String("does not expire")), qPrintable(step.err));

        const Run logs = run({QStringLiteral("logs"), id});
        QCOMPARE(logs.exitCode, 0);

        step =
            run({QStringLiteral("sweep"), QStringLiteral("--idle"), QStringLiteral("0"), QStringLiteral("--dry-run")});
        QCOMPARE(step.exitCode, 0);

        step = run({QStringLiteral("kill"), id});
        QVERIFY2(step.exitCode == 0, qPrintable(step.err));
        QTRY_VERIFY_WITH_TIMEOUT(row(id).isEmpty(), 20'000);
        step = run({QStringLiteral("pause"), id});
        QCOMPARE(step.exitCode, 1);
        QVERIFY2(step.err.contains(QStringLiteral("no workspace %1").arg(id)), qPrintable(step.err));
    }

    // exec and files into a Pod: the bytes and the exit status passed through, Ctrl+C kills the
    // command in the Pod (not only the connection), files land whole.
    void execAndFilesReachThePod()
    {
        const QString bootstrap = file(QStringLiteral("empty.txt"), "");
        const Run opened =
            run({QStringLiteral("--bootstrap"), bootstrap, QStringLiteral("open"), QStringLiteral("--user"),
                 QStringLiteral("u"), QStringLiteral("--agent"), QStringLiteral("exec")});
        QVERIFY2(opened.exitCode == 0, qPrintable(opened.err));
        const QString id = opened.out.trimmed();

        QProcess process;
        process.setProcessEnvironment(environment());
        process.start(QStringLiteral(PADDOCKCTL_PATH),
                      global()
                          + QStringList{QStringLiteral("exec"), id, QStringLiteral("--"), QStringLiteral("sh"),
                                        QStringLiteral("-c"),
                                        QStringLiteral("printf 'a\\000b\\nlast'; echo oops >&2; exit 4")});
        QVERIFY(process.waitForFinished(60'000));
        QCOMPARE(process.exitCode(), 4);
        QCOMPARE(process.readAllStandardOutput(), QByteArray("a\0b\nlast", 8));
        QCOMPARE(process.readAllStandardError(), QByteArray("oops\n"));
        const Run cwd = run({QStringLiteral("exec"), id, QStringLiteral("--"), QStringLiteral("pwd")});
        QCOMPARE(cwd.exitCode, 0);
        QCOMPARE(cwd.out, QStringLiteral("/workspace\n"));

        // Ctrl+C: 130, and the command's group is gone from the Pod (its heartbeat stands still).
        QProcess slow;
        slow.setProcessEnvironment(environment());
        slow.start(QStringLiteral(PADDOCKCTL_PATH),
                   global()
                       + QStringList{QStringLiteral("exec"), id, QStringLiteral("--"), QStringLiteral("sh"),
                                     QStringLiteral("-c"),
                                     QStringLiteral("(while :; do date +%s%N > beat; sleep 0.1; done) & "
                                                    "echo up; sleep 300")});
        QByteArray said;
        QTRY_VERIFY_WITH_TIMEOUT((said += slow.readAllStandardOutput()).contains("up"), 30'000);
        ::kill(static_cast<pid_t>(slow.processId()), SIGINT);
        QVERIFY(slow.waitForFinished(60'000));
        QCOMPARE(slow.exitCode(), 130);
        const Run beat =
            run({QStringLiteral("exec"), id, QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
                 QStringLiteral("a=$(cat beat); sleep 1; b=$(cat beat); [ \"$a\" = \"$b\" ]")});
        QCOMPARE(beat.exitCode, 0);

        const QString local = file(QStringLiteral("up.txt"), "to the pod\n");
        Run step = run({QStringLiteral("files"), id, QStringLiteral("put"), local, QStringLiteral("data/")});
        QVERIFY2(step.exitCode == 0, qPrintable(step.err));
        step =
            run({QStringLiteral("files"), id, QStringLiteral("ls"), QStringLiteral("data"), QStringLiteral("--json")});
        QVERIFY2(step.exitCode == 0, qPrintable(step.err));
        const QJsonArray entries = QJsonDocument::fromJson(step.out.toUtf8()).array();
        QCOMPARE(entries.size(), 1);
        QCOMPARE(entries.first()[QLatin1String("name")].toString(), QStringLiteral("up.txt"));
        QCOMPARE(entries.first()[QLatin1String("size")].toInteger(), 11);
        step = run({QStringLiteral("files"), id, QStringLiteral("cat"), QStringLiteral("data/up.txt")});
        QCOMPARE(step.out, QStringLiteral("to the pod\n"));
        const QString back = m_home.path() + QStringLiteral("/back.txt");
        step = run({QStringLiteral("files"), id, QStringLiteral("get"), QStringLiteral("data/up.txt"), back});
        QVERIFY2(step.exitCode == 0, qPrintable(step.err));
        QFile got(back);
        QVERIFY(got.open(QIODevice::ReadOnly));
        QCOMPARE(got.readAll(), QByteArray("to the pod\n"));
        step = run({QStringLiteral("files"), id, QStringLiteral("cat"), QStringLiteral("/etc/passwd")});
        QCOMPARE(step.exitCode, 2);

        // A stopped workspace: said, not resumed.
        QCOMPARE(run({QStringLiteral("pause"), id}).exitCode, 0);
        step = run({QStringLiteral("exec"), id, QStringLiteral("--"), QStringLiteral("true")});
        QCOMPARE(step.exitCode, 125);
        QVERIFY2(step.err.contains(QLatin1String("is stopped")), qPrintable(step.err));
        QCOMPARE(row(id).value(QLatin1String("state")).toString(), QStringLiteral("Stopped"));
        QCOMPARE(run({QStringLiteral("kill"), id}).exitCode, 0);
    }

    void badInputGetsOneClearMessage()
    {
        // A kubeconfig that does not parse: the file, the line and the reason; a usage error.
        const QString broken = file(QStringLiteral("broken.yaml"), "apiVersion: v1\nclusters: [\n  - name: x\n");
        Run bad = run({QStringLiteral("list")}, broken);
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains(broken) && bad.err.contains(QLatin1String("line")), qPrintable(bad.err));

        bad = run({QStringLiteral("--context"), QStringLiteral("nope"), QStringLiteral("list")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains(QLatin1String("nope")) && bad.err.contains(QLatin1String("paddock-fake")),
                 qPrintable(bad.err));

        // An unreachable server.
        quint16 closedPort = 0;
        {
            QTcpServer probe;
            QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
            closedPort = probe.serverPort();
        }
        QByteArray config = kubeconfigText();
        const QByteArray closedServer = "https://127.0.0.1:" + QByteArray::number(closedPort);
        config.replace(m_server.base().toString().toUtf8(), closedServer);
        bad = run({QStringLiteral("list")}, file(QStringLiteral("closed.yaml"), config));
        QCOMPARE(bad.exitCode, 1);
        QVERIFY2(bad.err.contains(QLatin1String("Connection refused")), qPrintable(bad.err));

        // A CA that is not the server's: the TLS error, and no token sent.
        config = kubeconfigText();
        const qsizetype at = config.indexOf("certificate-authority-data: ");
        QVERIFY(at >= 0);
        const qsizetype end = config.indexOf('\n', at);
        // Another CA than the server's (the fake's client certificate is no CA of it).
        const QByteArray otherCa = m_server.clientCertificate().toPem();
        const QByteArray replacement = "certificate-authority-data: " + otherCa.toBase64();
        config.replace(at, end - at, replacement);
        bad = run({QStringLiteral("list")}, file(QStringLiteral("badca.yaml"), config));
        QVERIFY2(bad.exitCode != 0, qPrintable(bad.err));
        QVERIFY2(bad.err.contains(QLatin1String("certificate")), qPrintable(bad.err));

        // 403: the verb and the resource RBAC refused.
        m_server.control("POST", QStringLiteral("/_fake/forbid"), R"({"rules":["list pods"]})");
        bad = run({QStringLiteral("list")});
        m_server.control("POST", QStringLiteral("/_fake/forbid"), R"({"rules":[]})");
        QCOMPARE(bad.exitCode, 1);
        QVERIFY2(bad.err.contains(QLatin1String("\"list\" on \"pods\"")), qPrintable(bad.err));

        // An id that breaks the label rules: refused before any request.
        const QString bootstrap = file(QStringLiteral("none.txt"), "");
        bad = run({QStringLiteral("--bootstrap"), bootstrap, QStringLiteral("open"), QStringLiteral("--workspace-id"),
                   QStringLiteral("abc-"), QStringLiteral("--user"), QStringLiteral("u"), QStringLiteral("--agent"),
                   QStringLiteral("a")});
        QVERIFY2(bad.exitCode != 0, qPrintable(bad.err));
        QVERIFY2(bad.err.contains(QLatin1String("\"abc-\"")) && bad.err.contains(QLatin1String("label")),
                 qPrintable(bad.err));

        // An image that cannot be pulled: the kubelet's message, and nothing left behind.
        bad = run({QStringLiteral("--bootstrap"), bootstrap, QStringLiteral("--image"),
                   QStringLiteral("registry.invalid/none:missing"), QStringLiteral("open"), QStringLiteral("--user"),
                   QStringLiteral("u"), QStringLiteral("--agent"), QStringLiteral("a")});
        QCOMPARE(bad.exitCode, 1);
        QVERIFY2(bad.err.contains(QLatin1String("ImagePull")) || bad.err.contains(QLatin1String("ErrImagePull")),
                 qPrintable(bad.err));
        bad = run({QStringLiteral("--namespace"), QStringLiteral("Not_A_Namespace"), QStringLiteral("list")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains(QLatin1String("Not_A_Namespace")), qPrintable(bad.err));
    }
};

QTEST_GUILESS_MAIN(TestPaddockctlKubernetes)
#include "tst_paddockctl_kubernetes.moc"
