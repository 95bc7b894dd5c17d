// Secrets stay where they belong. A distinctive key per backend (an OpenSandbox API key, an E2B
// API key, a Kubernetes bearer token), each known to its own fake server only; a whole paddockctl
// session on each backend (open with a bootstrap, list, info, logs, inspect, exec, files, pause,
// resume, renew, close), then a whole console session (the real window offscreen: each profile
// made in the Profiles dialog with its key typed in, as a user makes it, the key kept in the
// system keychain; open, bootstrap log, inspector with its files, Run Command, pause). HOME and
// every XDG folder and TMPDIR point into one temporary folder, so every file Paddock writes lands
// there. Then everything is searched: every file under that folder (settings, bootstrap logs,
// container logs, caches, whatever else), paddockctl's stdout and stderr, everything the console
// logged (every paddock.* category on), and every request each fake received (its
// --record-requests log, tests/fakehttp/requestlog.h). Each key must appear only in the
// authentication header of requests to its own server's API listener, never in a file, an output,
// a log line, a request to OpenSandbox's execd or E2B's envd, or another backend's server; and it
// must have appeared there (else the recording, not Paddock, would be what passes the test).
//
// The keychain's own storage is where a key belongs: GNOME Keyring keeps it under
// PADDOCK_KEYRING_HOME (tests/support/with-keyring.sh), which is outside the searched folder, and
// is not searched. So are the test's own inputs (bootstrap file, the fake's kubeconfig, which holds
// the token because a kubeconfig is where kubectl's users keep it) and the fakes' data folders.

#include "console.h"
#include "fakee2bprocess.h"
#include "fakekubernetesprocess.h"
#include "fakeopensandboxprocess.h"
#include "filespanel.h"
#include "inspectordock.h"
#include "keychainsecretstore.h"
#include "logmodel.h"
#include "logviewer.h"
#include "mainwindow.h"
#include "opendialog.h"
#include "overviewpanel.h"
#include "profile.h"
#include "profilesdialog.h"
#include "rundialog.h"
#include "workspacetreemodel.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QAction>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QLoggingCategory>
#include <QProcess>
#include <QPushButton>
#include <QRandomGenerator>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include <memory>

using namespace Paddock;

namespace {

constexpr int Long = 60'000;

QByteArray randomHex(int bytes)
{
    QByteArray raw(bytes, Qt::Uninitialized);
    for (char &c : raw)
        c = char(QRandomGenerator::global()->bounded(256));
    return raw.toHex();
}

// Distinctive in every run: nothing else on this machine can hold them by chance.
const QByteArray OpenSandboxKey = "osb-SECRET-" + randomHex(12);
const QByteArray E2bKey = "e2b_5ec2e7" + randomHex(17); // E2B's form: e2b_<hex>
const QByteArray KubernetesToken = "k8s-SECRET-" + randomHex(12);

struct KeyedServer
{
    QString name; // as paddockctl --backend and the fake's record file
    QByteArray key;
    QByteArray authHeader; // lower case, as recorded
    QByteArray authPrefix; // before the key in that header's value
};

const QList<KeyedServer> &backends()
{
    static const QList<KeyedServer> all{
        {QStringLiteral("opensandbox"), OpenSandboxKey, "open-sandbox-api-key", ""},
        {QStringLiteral("e2b"), E2bKey, "x-api-key", ""},
        {QStringLiteral("kubernetes"), KubernetesToken, "authorization", "Bearer "},
    };
    return all;
}

// A key in any of the forms a leak could take: as it is, in base64 (QSettings' @ByteArray, a
// JSON-encoded byte array), percent-encoded.
bool holdsKey(const QByteArray &bytes, const QByteArray &key)
{
    return bytes.contains(key) || bytes.contains(key.toBase64()) || bytes.contains(key.toPercentEncoding());
}

// Everything the console logged while the test ran.
QStringList g_logged;
QtMessageHandler g_previousHandler = nullptr;
void keepMessage(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    g_logged.append(message);
    if (g_previousHandler)
        g_previousHandler(type, context, message);
}

struct Run
{
    QStringList args;
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

QModelIndex proxyRowOf(QTreeView *view, const QString &key)
{
    for (QModelIndex index = view->model()->index(0, 0); index.isValid(); index = view->indexBelow(index)) {
        if (index.data(WorkspaceTreeModel::KeyRole).toString() == key)
            return index;
    }
    return {};
}

QModelIndex findText(const QAbstractItemModel *model, const QString &text, int column = 0,
                     const QModelIndex &parent = {})
{
    for (int row = 0; row < model->rowCount(parent); ++row) {
        if (model->index(row, column, parent).data().toString().startsWith(text))
            return model->index(row, column, parent);
        if (const QModelIndex inner = findText(model, text, column, model->index(row, 0, parent)); inner.isValid())
            return inner;
    }
    return {};
}

const WorkspaceRecord *recordOf(MainWindow *window, const QString &workspaceId)
{
    for (const WorkspaceRecord *record : window->model()->recordsUnder({})) {
        if (record->info.workspaceId == workspaceId)
            return record;
    }
    return nullptr;
}

} // namespace

class TestSecretsStayPut final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_root; // HOME, XDG_* and TMPDIR: every file Paddock writes
    QTemporaryDir m_inputs; // the test's own files (bootstrap), not searched
    QTemporaryDir m_evidence; // the fakes' request logs, read at the end
    PaddockTest::FakeOpenSandboxProcess m_openSandbox;
    PaddockTest::FakeE2bProcess m_e2b;
    PaddockTest::FakeKubernetesProcess m_kubernetes;
    QList<Run> m_runs; // every paddockctl run, its output kept for the search
    QString m_bootstrap;
    int m_cliSessions = 0; // paddockctl sessions that went through
    bool m_consoleDone = false;

    QString recordFile(const QString &backend) const { return m_evidence.filePath(backend + QStringLiteral(".jsonl")); }

    // paddockctl on a backend, with that backend's key where paddockctl takes it from, and every
    // paddock.* logging category on (a key in a debug line would show in its stderr).
    Run paddockctl(const QString &backend, const QStringList &args)
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment(); // HOME, XDG_*, TMPDIR: m_root
        for (const char *name : {"OPEN_SANDBOX_API_KEY", "OPEN_SANDBOX_DOMAIN", "E2B_API_KEY", "E2B_DOMAIN",
                                 "E2B_API_URL", "E2B_SANDBOX_URL", "KUBECONFIG", "COLUMNS"})
            env.remove(QString::fromLatin1(name));
        env.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("paddock.*=true"));
        QStringList global{QStringLiteral("--backend"), backend};
        if (backend == QLatin1String("opensandbox")) {
            env.insert(QStringLiteral("OPEN_SANDBOX_API_KEY"), QString::fromLatin1(OpenSandboxKey));
            global << QStringLiteral("--domain") << m_openSandbox.domain();
        } else if (backend == QLatin1String("e2b")) {
            env.insert(QStringLiteral("E2B_API_KEY"), QString::fromLatin1(E2bKey));
            global << QStringLiteral("--api-url") << m_e2b.apiUrl().toString() << QStringLiteral("--sandbox-url")
                   << m_e2b.envdUrl().toString();
        } else {
            // The token is in the kubeconfig (its current context), where kubectl's users keep it.
            global << QStringLiteral("--kubeconfig") << m_kubernetes.kubeconfigPath();
        }
        global << QStringLiteral("--bootstrap") << m_bootstrap;
        QProcess process;
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(PADDOCKCTL_PATH), global + args);
        if (!process.waitForFinished(180'000))
            qFatal("paddockctl %s did not finish", qPrintable(args.join(u' ')));
        Run run{global + args, process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
                process.readAllStandardOutput(), process.readAllStandardError()};
        m_runs.append(run);
        return run;
    }

    // The records of a fake's request log.
    QList<QJsonObject> records(const QString &backend) const
    {
        QFile file(recordFile(backend));
        QList<QJsonObject> lines;
        if (!file.open(QIODevice::ReadOnly))
            return lines;
        for (const QByteArray &line : file.readAll().split('\n')) {
            if (!line.isEmpty())
                lines.append(QJsonDocument::fromJson(line).object());
        }
        return lines;
    }

    // The console's Profiles dialog, as a user fills it: a new profile of this kind, the key typed
    // into the key field. Returns the new profile's id.
    QString addProfileInDialog(Console &console, const QString &name, Profile::Kind kind,
                               const std::function<void(ProfilesDialog *)> &fill, const QByteArray &key)
    {
        MainWindow *window = console.window();
        window->findChild<QAction *>(QStringLiteral("actionProfiles"))->trigger();
        ProfilesDialog *dialog = nullptr;
        if (!QTest::qWaitFor([&] { return (dialog = window->findChild<ProfilesDialog *>()) != nullptr; }))
            return {};
        QSignalSpy changed(dialog, &ProfilesDialog::profilesChanged);
        QTest::mouseClick(dialog->findChild<QPushButton *>(QStringLiteral("addButton")), Qt::LeftButton);
        auto *kindBox = dialog->findChild<QComboBox *>(QStringLiteral("kindBox"));
        kindBox->setCurrentIndex(kindBox->findData(int(kind)));
        QTest::keyClicks(dialog->findChild<QLineEdit *>(QStringLiteral("nameEdit")), name);
        fill(dialog);
        QTest::keyClicks(dialog->findChild<QLineEdit *>(QStringLiteral("bootstrapFileEdit")), m_bootstrap);
        QTest::keyClicks(dialog->findChild<QLineEdit *>(QStringLiteral("apiKeyEdit")), QString::fromLatin1(key));
        QTest::mouseClick(
            dialog->findChild<QDialogButtonBox *>(QStringLiteral("buttonBox"))->button(QDialogButtonBox::Save),
            Qt::LeftButton);
        if (changed.isEmpty() && !changed.wait(Long))
            return {};
        const QString id = changed.at(0).at(0).toStringList().value(0);
        dialog->close();
        return id;
    }

    // One console session on a profile made in the dialog: open a workspace (its bootstrap log
    // in the Logs dock), the inspector's overview and files, Run Command, pause.
    void consoleSession(Console &console, const QString &profileId, const QString &backend)
    {
        QVERIFY(!profileId.isEmpty());
        QCoro::waitFor(console.switchTo(profileId));
        MainWindow *window = console.window();
        QTRY_COMPARE(window->profile(), profileId);
        WorkspaceTreeModel *model = window->model();
        // The workspace paddockctl made (closed since) is listed: the key worked.
        QTRY_VERIFY_WITH_TIMEOUT(model->workspaceCount() >= 1, Long);

        window->findChild<QAction *>(QStringLiteral("actionOpen"))->trigger();
        OpenDialog *open = nullptr;
        QTRY_VERIFY((open = window->findChild<OpenDialog *>(QStringLiteral("openDialog"))) != nullptr);
        open->findChild<QLineEdit *>(QStringLiteral("userEdit"))->setText(QStringLiteral("ada"));
        open->findChild<QLineEdit *>(QStringLiteral("agentEdit"))->setText(QStringLiteral("console"));
        const QString id = open->resolvedId();
        open->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Open)->click();
        QTRY_VERIFY_WITH_TIMEOUT(open->statusText().contains(QLatin1String("is open")), Long);
        QVERIFY2(open->logText().contains(QLatin1String("bootstrap-ran")), qPrintable(open->logText()));
        open->close();
        const WorkspaceRecord *record = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((record = recordOf(window, id)) != nullptr, Long);
        const QString key = record->key();
        QTRY_COMPARE_WITH_TIMEOUT(model->indexOfKey(key, WorkspaceTreeModel::StateColumn).data().toString(),
                                  QStringLiteral("Running"), Long);
        auto *view = window->findChild<QTreeView *>(QStringLiteral("workspaceView"));
        const auto select = [&] {
            const QModelIndex row = proxyRowOf(view, key);
            view->setCurrentIndex(row);
            view->selectionModel()->select(row, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            return row.isValid();
        };
        QVERIFY(select());

        // The bootstrap log in the Logs dock.
        window->findChild<QAction *>(QStringLiteral("actionShowLog"))->trigger();
        auto *log = qobject_cast<LogViewer *>(window->logTabs()->currentWidget());
        QVERIFY(log);
        const auto hasLine = [log](const QString &text) {
            for (int i = 0; i < log->model()->rowCount(); ++i) {
                if (log->model()->index(i, LogModel::TextColumn).data().toString() == text)
                    return true;
            }
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(hasLine(QStringLiteral("bootstrap-ran")), Long);

        // The container log (OpenSandbox's polled, Kubernetes' followed), kept in a file too.
        if (backend != QLatin1String("e2b")) {
            auto *containerLog = window->findChild<QAction *>(QStringLiteral("actionShowContainerLog"));
            QTRY_VERIFY(containerLog->isEnabled());
            containerLog->trigger();
            const QString route =
                backend == QLatin1String("kubernetes") ? QStringLiteral("/log?") : QStringLiteral("/diagnostics/logs");
            const auto asked = [&] {
                for (const QJsonObject &record : records(backend)) {
                    if (record.value(QLatin1String("target")).toString().contains(route))
                        return true;
                }
                return false;
            };
            QTRY_VERIFY_WITH_TIMEOUT(asked(), Long);
        }

        // The inspector: the server's details, then the workspace's files.
        InspectorDock *dock = window->inspectorDock();
        if (!dock->isVisible())
            dock->toggleViewAction()->trigger();
        QTRY_COMPARE(dock->sandbox().workspaceId, id);
        QTRY_VERIFY_WITH_TIMEOUT(dock->overview()->hasDetails(), Long);
        dock->tabs()->setCurrentWidget(dock->files());
        QTRY_VERIFY_WITH_TIMEOUT(findText(dock->files()->model(), QStringLiteral("marker.txt")).isValid(), Long);
        dock->tabs()->setCurrentWidget(dock->overview());

        // Run Command: what the workspace's environment holds (shown in the dialog only).
        auto *runAction = window->findChild<QAction *>(QStringLiteral("actionRunCommand"));
        QTRY_VERIFY(runAction->isEnabled());
        runAction->trigger();
        RunDialog *run = nullptr;
        QTRY_VERIFY((run = window->findChild<RunDialog *>(QStringLiteral("runDialog"))) != nullptr);
        run->setCommand(QStringLiteral("env; echo console-exec-ran"));
        QCoro::waitFor(run->run());
        QTRY_VERIFY_WITH_TIMEOUT(!run->isRunning(), Long);
        QVERIFY2(run->outputText().contains(QLatin1String("console-exec-ran")), qPrintable(run->statusText()));
        QVERIFY2(!holdsKey(run->outputText().toUtf8(), OpenSandboxKey) && !holdsKey(run->outputText().toUtf8(), E2bKey)
                     && !holdsKey(run->outputText().toUtf8(), KubernetesToken),
                 "a key is in the workspace's environment");
        run->close();

        // Pause (Kubernetes: the Pod deleted, the PVC kept).
        QVERIFY(select());
        auto *pause = window->findChild<QAction *>(QStringLiteral("actionPause"));
        QTRY_VERIFY(pause->isEnabled());
        pause->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(
            QStringList({QStringLiteral("Paused"), QStringLiteral("Stopped")})
                .contains(model->indexOfKey(key, WorkspaceTreeModel::StateColumn).data().toString()),
            Long);
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (!qEnvironmentVariableIsSet("PADDOCK_KEYRING_HOME"))
            QSKIP("run through tests/support/with-keyring.sh (the console keeps its keys in the keychain)");
        QVERIFY(m_root.isValid() && m_inputs.isValid() && m_evidence.isValid());
        // The keychain's storage is not in what is searched, and what is searched not in it.
        const QString keyring = QDir(qEnvironmentVariable("PADDOCK_KEYRING_HOME")).canonicalPath();
        const QString root = QDir(m_root.path()).canonicalPath();
        QVERIFY(!root.startsWith(keyring + u'/') && !keyring.startsWith(root + u'/'));

        QFile bootstrap(m_inputs.filePath(QStringLiteral("bootstrap.txt")));
        QVERIFY(bootstrap.open(QIODevice::WriteOnly));
        // The sandbox's whole environment goes into the bootstrap log, which is searched: a key
        // handed to the workspace would be found there.
        bootstrap.write("echo bootstrap-ran\nenv\necho marker > marker.txt\n");
        bootstrap.close();
        m_bootstrap = bootstrap.fileName();

        // The fakes first, with the test's own environment (their data stays out of the search).
        QVERIFY2(m_openSandbox.start({QStringLiteral("--api-key"), QString::fromLatin1(OpenSandboxKey),
                                      QStringLiteral("--record-requests"), recordFile(QStringLiteral("opensandbox"))}),
                 qPrintable(m_openSandbox.error()));
        QVERIFY2(
            m_e2b.start({QStringLiteral("--api-key"), QString::fromLatin1(E2bKey), QStringLiteral("--envd-port"),
                         QStringLiteral("0"), QStringLiteral("--record-requests"), recordFile(QStringLiteral("e2b"))}),
            qPrintable(m_e2b.error()));
        QVERIFY2(m_kubernetes.start({QStringLiteral("--token"), QString::fromLatin1(KubernetesToken),
                                     QStringLiteral("--record-requests"), recordFile(QStringLiteral("kubernetes"))}),
                 qPrintable(m_kubernetes.error()));
        QVERIFY(m_e2b.apiUrl().port() != m_e2b.envdUrl().port());

        // Then every place Paddock writes (this process's console and every paddockctl) into m_root.
        const QList<std::pair<const char *, QString>> places{
            {"HOME", QStringLiteral("home")},
            {"XDG_CONFIG_HOME", QStringLiteral("config")},
            {"XDG_CACHE_HOME", QStringLiteral("cache")},
            {"XDG_DATA_HOME", QStringLiteral("data")},
            {"XDG_STATE_HOME", QStringLiteral("state")},
            {"TMPDIR", QStringLiteral("tmp")},
        };
        for (const auto &[variable, folder] : places) {
            QVERIFY(QDir(m_root.path()).mkpath(folder));
            qputenv(variable, QFile::encodeName(m_root.filePath(folder)));
        }
        for (const char *name : {"OPEN_SANDBOX_API_KEY", "OPEN_SANDBOX_DOMAIN", "E2B_API_KEY", "E2B_DOMAIN",
                                 "E2B_API_URL", "E2B_SANDBOX_URL", "KUBECONFIG"})
            qunsetenv(name);
        QCoreApplication::setOrganizationName(QStringLiteral("paddock"));
        QCoreApplication::setApplicationName(QStringLiteral("paddock"));
        // The console's settings, as its main() makes them, are under m_root.
        QVERIFY2(QSettings().fileName().startsWith(m_root.path()), qPrintable(QSettings().fileName()));
        QVERIFY(QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation).startsWith(m_root.path()));

        g_previousHandler = qInstallMessageHandler(keepMessage);
        QLoggingCategory::setFilterRules(QStringLiteral("paddock.*=true"));
    }

    void cleanupTestCase() { qInstallMessageHandler(g_previousHandler); }

    // A paddockctl session on each backend.
    void paddockctlSession_data()
    {
        QTest::addColumn<QString>("backend");
        for (const KeyedServer &backend : backends())
            QTest::newRow(qPrintable(backend.name)) << backend.name;
    }

    void paddockctlSession()
    {
        QFETCH(QString, backend);
        const Run opened = paddockctl(backend,
                                      {QStringLiteral("open"), QStringLiteral("--user"), QStringLiteral("ada"),
                                       QStringLiteral("--agent"), QStringLiteral("cli")});
        QVERIFY2(opened.exitCode == 0, opened.err.constData());
        QVERIFY2(opened.err.contains("bootstrap-ran"), opened.err.constData());
        const QString id = QString::fromUtf8(opened.out.trimmed());
        QVERIFY(!id.isEmpty());

        const Run listed = paddockctl(backend, {QStringLiteral("list"), QStringLiteral("--json")});
        QVERIFY2(listed.exitCode == 0, listed.err.constData());
        QVERIFY(listed.out.contains(id.toUtf8()));
        QCOMPARE(paddockctl(backend, {QStringLiteral("list")}).exitCode, 0); // the table, and the completion cache
        const Run info = paddockctl(backend, {QStringLiteral("info"), id});
        QVERIFY2(info.exitCode == 0, info.err.constData());
        const Run logs = paddockctl(backend, {QStringLiteral("logs"), id});
        QVERIFY2(logs.exitCode == 0, logs.err.constData());
        QVERIFY2(logs.out.contains("bootstrap-ran"), logs.out.constData());
        const Run inspected = paddockctl(backend, {QStringLiteral("inspect"), id, QStringLiteral("--json")});
        QVERIFY2(inspected.exitCode == 0, inspected.err.constData());
        QVERIFY(QJsonDocument::fromJson(inspected.out).object().contains(QLatin1String("overview")));
        const Run executed = paddockctl(backend,
                                        {QStringLiteral("exec"), id, QStringLiteral("--"), QStringLiteral("sh"),
                                         QStringLiteral("-c"), QStringLiteral("env; echo cli-exec-ran")});
        QVERIFY2(executed.exitCode == 0, executed.err.constData());
        QVERIFY(executed.out.contains("cli-exec-ran"));
        const Run files = paddockctl(backend, {QStringLiteral("files"), id, QStringLiteral("ls")});
        QVERIFY2(files.exitCode == 0, files.err.constData());
        QVERIFY2(files.out.contains("marker.txt"), files.out.constData());
        const Run cat =
            paddockctl(backend, {QStringLiteral("files"), id, QStringLiteral("cat"), QStringLiteral("marker.txt")});
        QCOMPARE(cat.out, QByteArray("marker\n"));
        const Run paused = paddockctl(backend, {QStringLiteral("pause"), id});
        QVERIFY2(paused.exitCode == 0, paused.err.constData());
        const Run resumed = paddockctl(backend, {QStringLiteral("resume"), id});
        QVERIFY2(resumed.exitCode == 0, resumed.err.constData());
        if (backend != QLatin1String("kubernetes")) { // Kubernetes has no renew
            const Run renewed =
                paddockctl(backend, {QStringLiteral("renew"), id, QStringLiteral("--seconds"), QStringLiteral("2h")});
            QVERIFY2(renewed.exitCode == 0, renewed.err.constData());
        }
        const Run closed = paddockctl(backend, {QStringLiteral("close"), id});
        QVERIFY2(closed.exitCode == 0, closed.err.constData());
        ++m_cliSessions;
    }

    // The console, as its main() makes it (the settings in XDG_CONFIG_HOME, the keys in the
    // system keychain), one profile per backend made in its Profiles dialog.
    void consoleSession()
    {
        QSettings settings;
        KeychainSecretStore keychain;
        Console console(&settings, &keychain);
        console.window()->resize(1400, 900);
        console.window()->show();
        QCoro::waitFor(console.start());

        const QString openSandbox = addProfileInDialog(
            console, QStringLiteral("Sandboxes"), Profile::Kind::OpenSandbox,
            [this](ProfilesDialog *dialog) {
                QTest::keyClicks(dialog->findChild<QLineEdit *>(QStringLiteral("domainEdit")), m_openSandbox.domain());
            },
            OpenSandboxKey);
        consoleSession(console, openSandbox, QStringLiteral("opensandbox"));
        if (QTest::currentTestFailed())
            return;

        const QString e2b = addProfileInDialog(
            console, QStringLiteral("E2B"), Profile::Kind::E2B,
            [this](ProfilesDialog *dialog) {
                QTest::keyClicks(dialog->findChild<QLineEdit *>(QStringLiteral("apiUrlEdit")),
                                 m_e2b.apiUrl().toString());
                QTest::keyClicks(dialog->findChild<QLineEdit *>(QStringLiteral("sandboxUrlEdit")),
                                 m_e2b.envdUrl().toString());
            },
            E2bKey);
        consoleSession(console, e2b, QStringLiteral("e2b"));
        if (QTest::currentTestFailed())
            return;

        // The token typed into the profile replaces the kubeconfig's credentials: the context chosen
        // authenticates by client certificate, so a bearer token in the console's requests can only
        // be the keychain's.
        const QString kubernetes = addProfileInDialog(
            console, QStringLiteral("Cluster"), Profile::Kind::Kubernetes,
            [this](ProfilesDialog *dialog) {
                QTest::keyClicks(dialog->findChild<QLineEdit *>(QStringLiteral("kubeconfigEdit")),
                                 m_kubernetes.kubeconfigPath());
                auto *context = dialog->findChild<QComboBox *>(QStringLiteral("kubeContextBox"));
                context->setCurrentText(QStringLiteral("paddock-fake-cert"));
            },
            KubernetesToken);
        QVERIFY(console.profiles().profile(kubernetes));
        QCOMPARE(console.profiles().profile(kubernetes)->kubeContext, QStringLiteral("paddock-fake-cert"));
        const qsizetype kubernetesBefore = records(QStringLiteral("kubernetes")).size();
        consoleSession(console, kubernetes, QStringLiteral("kubernetes"));
        if (QTest::currentTestFailed())
            return;
        int bearer = 0;
        const QList<QJsonObject> after = records(QStringLiteral("kubernetes")).mid(kubernetesBefore);
        for (const QJsonObject &record : after) {
            for (const QJsonValue &header : record.value(QLatin1String("headers")).toArray()) {
                if (header.toArray().at(1).toString()
                    == QLatin1String("Bearer ") + QString::fromLatin1(KubernetesToken))
                    ++bearer;
            }
        }
        QVERIFY2(bearer > 0, "the console never sent the keychain's token");

        QCoro::waitFor(console.shutdown());
        settings.sync();
        m_consoleDone = true;
    }

    // The search, once both sessions ran.
    void everyKeyStayedWhereItBelongs()
    {
        QVERIFY2(m_cliSessions == backends().size() && m_consoleDone, "a session failed: nothing to search");

        // Every file Paddock wrote.
        int files = 0;
        QStringList written;
        QDirIterator it(m_root.path(), QDir::Files | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            if (!it.fileInfo().isFile() || it.fileInfo().isSymLink())
                continue;
            QFile file(path);
            QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(path));
            const QByteArray bytes = file.readAll();
            ++files;
            written.append(QDir(m_root.path()).relativeFilePath(path));
            for (const KeyedServer &backend : backends())
                QVERIFY2(!holdsKey(bytes, backend.key), qPrintable(backend.name + QStringLiteral(" key in ") + path));
        }
        qInfo("searched %d files Paddock wrote: %s", files, qPrintable(written.join(QStringLiteral(", "))));
        // The settings, bootstrap logs of all three backends (CLI and console), the completion cache.
        QVERIFY(files >= 7);
        QVERIFY(written.contains(QStringLiteral("config/paddock/paddock.conf")));

        // Every paddockctl output.
        QVERIFY(!m_runs.isEmpty());
        for (const Run &run : std::as_const(m_runs)) {
            for (const KeyedServer &backend : backends()) {
                QVERIFY2(!holdsKey(run.out, backend.key) && !holdsKey(run.err, backend.key),
                         qPrintable(backend.name + QStringLiteral(" key in the output of paddockctl ")
                                    + run.args.join(u' ')));
            }
        }
        // Everything the console logged.
        QVERIFY(!g_logged.isEmpty());
        for (const QString &message : std::as_const(g_logged)) {
            for (const KeyedServer &backend : backends())
                QVERIFY2(!holdsKey(message.toUtf8(), backend.key),
                         qPrintable(backend.name + QStringLiteral(" key logged")));
        }

        // Every request each fake received.
        for (const KeyedServer &server : backends()) {
            const QList<QJsonObject> received = records(server.name);
            QVERIFY2(!received.isEmpty(), qPrintable(server.name));
            QHash<QString, int> byListener;
            int authenticated = 0;
            for (const QJsonObject &record : received) {
                const QString listener = record.value(QLatin1String("listener")).toString();
                ++byListener[listener];
                const QByteArray where = server.name.toUtf8() + ' ' + listener.toUtf8() + ' '
                    + record.value(QLatin1String("method")).toString().toUtf8() + ' '
                    + record.value(QLatin1String("target")).toString().toUtf8();
                for (const KeyedServer &backend : backends()) {
                    const bool own = backend.name == server.name;
                    QByteArray elsewhere = record.value(QLatin1String("target")).toString().toLatin1() + '\n'
                        + QByteArray::fromBase64(record.value(QLatin1String("body")).toString().toLatin1());
                    for (const QJsonValue &value : record.value(QLatin1String("headers")).toArray()) {
                        const QByteArray name = value.toArray().at(0).toString().toLatin1();
                        const QByteArray header = value.toArray().at(1).toString().toLatin1();
                        if (own && listener == QLatin1String("api") && name == backend.authHeader
                            && header == backend.authPrefix + backend.key) {
                            ++authenticated;
                            continue; // where it belongs
                        }
                        elsewhere += '\n' + name + ": " + header;
                    }
                    QVERIFY2(!holdsKey(elsewhere, backend.key),
                             QByteArray(backend.name.toUtf8() + " key sent to " + where).constData());
                }
            }
            QVERIFY2(authenticated > 0, qPrintable(server.name + QStringLiteral(": its key never reached its API")));
            // The listeners other than the API were reached (and recorded).
            if (server.name == QLatin1String("opensandbox"))
                QVERIFY(byListener.value(QStringLiteral("execd")) > 0);
            if (server.name == QLatin1String("e2b"))
                QVERIFY(byListener.value(QStringLiteral("envd")) > 0);
            qInfo("%s: %lld requests recorded (%s), %d with its key in the authentication header",
                  qPrintable(server.name), qlonglong(received.size()),
                  qPrintable(QStringList([&] {
                                 QStringList parts;
                                 for (auto i = byListener.cbegin(); i != byListener.cend(); ++i)
                                     parts.append(i.key() + u' ' + QString::number(i.value()));
                                 return parts;
                             }())
                                 .join(QStringLiteral(", "))),
                  authenticated);
        }
        // Kubernetes' exec went over a WebSocket upgrade of the API, with the token.
        bool upgraded = false;
        for (const QJsonObject &record : records(QStringLiteral("kubernetes"))) {
            if (!record.value(QLatin1String("target")).toString().contains(QLatin1String("/exec")))
                continue;
            for (const QJsonValue &value : record.value(QLatin1String("headers")).toArray())
                upgraded = upgraded || value.toArray().at(0).toString() == QLatin1String("upgrade");
        }
        QVERIFY(upgraded);
    }
};

QTEST_MAIN(TestSecretsStayPut)
#include "tst_secrets_stay_put.moc"
