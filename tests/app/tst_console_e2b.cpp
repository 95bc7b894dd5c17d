// The console on E2B, offscreen, against paddock-fake-e2b. The offer of an E2B API key the user
// already has (E2B's CLI's ~/.e2b/config.json under a temporary HOME, or E2B_API_KEY): the banner,
// Add Profile (the key to the secret store only, the CLI's file untouched, the plain copy said to
// be still there; without a keychain, kept for this run), Not Now, Don't Ask Again, a key that is
// not an E2B key. Then an E2B profile end to end: its rows (a paused sandbox's timer stopped),
// Open with its bootstrap log, a countdown, Run Command offered and Open Terminal not, the
// inspector's overview (the template, the server's details) and Files, Pause ("timer stopped"),
// Resume (a countdown again).

#include "console.h"
#include "e2bkeyoffer.h"
#include "fakee2bprocess.h"
#include "filespanel.h"
#include "inspectordock.h"
#include "logmodel.h"
#include "logviewer.h"
#include "mainwindow.h"
#include "opendialog.h"
#include "overviewpanel.h"
#include "profile.h"
#include "profilesession.h"
#include "secretstore.h"
#include "workspacetreemodel.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QAction>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QLoggingCategory>
#include <QPushButton>
#include <QScopeGuard>
#include <QSettings>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

using namespace Paddock;

namespace {

const QByteArray Key = "e2b_0123456789abcdef0123456789abcdef01234567";
const QByteArray AccessToken = "sk_e2b_do-not-read-this-0123456789";
constexpr int Long = 30'000;

// Everything logged while the tests run: never a key.
QStringList g_logged;
QtMessageHandler g_previousHandler = nullptr;
void keepMessage(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    g_logged.append(message);
    if (g_previousHandler)
        g_previousHandler(type, context, message);
}

// A machine without a keychain: every call fails the way KeychainSecretStore does then.
class NoKeychain final : public SecretStore
{
public:
    static QString reason() { return QStringLiteral("No keychain is available here (test)."); }
    QCoro::Task<Result<std::optional<QByteArray>>> read(QString) override
    {
        co_return fail(Error::unsupported(reason()));
    }
    QCoro::Task<Result<>> write(QString, QByteArray) override { co_return fail(Error::unsupported(reason())); }
    QCoro::Task<Result<>> remove(QString) override { co_return fail(Error::unsupported(reason())); }
};

QByteArray cliConfig()
{
    return "{\"email\":\"ada@example.com\",\"accessToken\":\"" + AccessToken
        + "\",\"teamName\":\"Ada's team\",\"teamId\":\"team-1\",\"teamApiKey\":\"" + Key + "\"}";
}

QByteArray fileBytes(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// A temporary HOME (with E2B's CLI's file when asked) and the E2B variables of one test, put back
// however the test ends.
class Environment
{
public:
    explicit Environment(const QByteArray &config = {})
        : m_home(qgetenv("HOME"))
    {
        if (!config.isEmpty()) {
            QDir(m_dir.path()).mkpath(QStringLiteral(".e2b"));
            QFile file(configPath());
            if (file.open(QIODevice::WriteOnly))
                file.write(config);
        }
        qputenv("HOME", QFile::encodeName(m_dir.path()));
    }
    ~Environment()
    {
        qputenv("HOME", m_home);
        for (const char *name : {"E2B_API_KEY", "E2B_DOMAIN", "E2B_API_URL", "E2B_SANDBOX_URL"})
            qunsetenv(name);
    }
    Q_DISABLE_COPY_MOVE(Environment)

    QString home() const { return m_dir.path(); }
    QString configPath() const { return m_dir.filePath(QStringLiteral(".e2b/config.json")); }
    QString path(const QString &name) const { return m_dir.filePath(name); }
    // The new profile's server: the fake's URLs, as an E2B user with a self-hosted E2B sets them.
    static void serverFrom(const PaddockTest::FakeE2bProcess &server)
    {
        qputenv("E2B_API_URL", server.apiUrl().toString().toUtf8());
        qputenv("E2B_SANDBOX_URL", server.envdUrl().toString().toUtf8());
    }

private:
    QTemporaryDir m_dir;
    QByteArray m_home;
};

// The Local profile's folder is the test's (the console shows Local first).
void keepLocalIn(QSettings *settings, const QString &folder)
{
    ProfileStore store(settings);
    Profile local = store.profiles().constFirst();
    local.basedir = folder;
    QVERIFY(store.save(local));
}

E2BKeyOffer *offerOf(MainWindow *window)
{
    E2BKeyOffer *offer = window->findChild<E2BKeyOffer *>(QStringLiteral("e2bKeyOffer"));
    return offer && !offer->isHidden() ? offer : nullptr;
}

QString offerText(E2BKeyOffer *offer)
{
    return offer->findChild<QLabel *>(QStringLiteral("e2bKeyOfferText"))->text();
}

void click(E2BKeyOffer *offer, const char *button)
{
    auto *push = offer->findChild<QPushButton *>(QLatin1String(button));
    QVERIFY(push && !push->isHidden() && push->isEnabled());
    QTest::mouseClick(push, Qt::LeftButton);
}

const WorkspaceRecord *recordOf(MainWindow *window, const QString &workspaceId)
{
    for (const WorkspaceRecord *record : window->model()->recordsUnder({})) {
        if (record->info.workspaceId == workspaceId)
            return record;
    }
    return nullptr;
}

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

} // namespace

class TestConsoleE2B final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        for (const char *name : {"E2B_API_KEY", "E2B_DOMAIN", "E2B_API_URL", "E2B_SANDBOX_URL"})
            qunsetenv(name);
        g_previousHandler = qInstallMessageHandler(keepMessage);
        QLoggingCategory::setFilterRules(QStringLiteral("paddock.*=true"));
    }

    void cleanupTestCase()
    {
        qInstallMessageHandler(g_previousHandler);
        QVERIFY(!g_logged.isEmpty());
        for (const QString &message : std::as_const(g_logged)) {
            QVERIFY2(!message.contains(QString::fromLatin1(Key)), qPrintable(message));
            QVERIFY2(!message.contains(QString::fromLatin1(AccessToken)), qPrintable(message));
        }
    }

    void offerOfTheCliKey()
    {
        PaddockTest::FakeE2bProcess server;
        QVERIFY2(server.start({QStringLiteral("--api-key"), QString::fromLatin1(Key), QStringLiteral("--seed"),
                               QStringLiteral("3")}),
                 qPrintable(server.error()));
        Environment env(cliConfig());
        Environment::serverFrom(server);
        QSettings settings(env.path(QStringLiteral("paddock.ini")), QSettings::IniFormat);
        keepLocalIn(&settings, env.path(QStringLiteral("workspaces")));
        MemorySecretStore secrets;
        QString id;
        {
            Console console(&settings, &secrets, env.path(QStringLiteral("logs")));
            console.window()->show();
            QCoro::waitFor(console.start());
            MainWindow *window = console.window();
            QCOMPARE(window->profile(), QStringLiteral("local"));
            E2BKeyOffer *offer = offerOf(window);
            QVERIFY(offer);
            QCOMPARE(offerText(offer),
                     QStringLiteral("Found an E2B API key in ~/.e2b/config.json (team Ada's team). Add an E2B "
                                    "profile?"));
            QCOMPARE(console.profiles().profiles().size(), 1); // nothing made before it is asked for

            click(offer, "e2bKeyOfferAdd");
            QTRY_VERIFY(!offer->profileId().isEmpty());
            id = offer->profileId();
            const auto profile = console.profiles().profile(id);
            QVERIFY(profile);
            QCOMPARE(profile->kind, Profile::Kind::E2B);
            QCOMPARE(profile->name, QStringLiteral("E2B (Ada's team)"));
            QCOMPARE(profile->apiUrl, server.apiUrl().toString());
            QCOMPARE(profile->sandboxUrl, server.envdUrl().toString());
            QVERIFY(profile->domain.isEmpty());
            QCOMPARE(profile->sandboxTimeout.count(), 300);
            // The key in the secret store, nowhere else; the CLI's file as it was.
            QCOMPARE(QCoro::waitFor(secrets.read(id))->value_or(QByteArray()), Key);
            QVERIFY(!QCoro::waitFor(console.sessionKeys()->read(id))->has_value());
            QCOMPARE(fileBytes(env.configPath()), cliConfig());
            QTRY_VERIFY(offerText(offer).startsWith(QStringLiteral("Added the E2B profile \"E2B (Ada's team)\"")));
            QVERIFY(offerText(offer).contains(QLatin1String(
                "The plain-text copy in ~/.e2b/config.json is still there: E2B's CLI keeps its key in that file")));
            // The new profile shows, with the server's workspaces.
            QTRY_COMPARE(window->profile(), id);
            QTRY_COMPARE_WITH_TIMEOUT(window->model()->workspaceCount(), 3, Long);
            click(offer, "e2bKeyOfferClose");
            QTRY_VERIFY(!offerOf(window));
            QCoro::waitFor(console.shutdown());
        }
        settings.sync();
        const QByteArray saved = fileBytes(settings.fileName());
        QVERIFY(!saved.isEmpty());
        QVERIFY(!saved.contains(Key));
        QVERIFY(!saved.contains(AccessToken));
        // An E2B profile exists now: no offer at the next start.
        Console again(&settings, &secrets, env.path(QStringLiteral("logs")));
        QCoro::waitFor(again.start());
        QVERIFY(!offerOf(again.window()));
        QCOMPARE(again.profiles().profiles().size(), 2);
        QCoro::waitFor(again.shutdown());
    }

    void notNowAndDontAskAgain()
    {
        Environment env;
        qputenv("E2B_API_KEY", Key);
        QSettings settings(env.path(QStringLiteral("paddock.ini")), QSettings::IniFormat);
        keepLocalIn(&settings, env.path(QStringLiteral("workspaces")));
        MemorySecretStore secrets;
        for (int start = 0; start < 2; ++start) {
            // Not Now: gone for this run, offered again at the next start; nothing made.
            Console console(&settings, &secrets, env.path(QStringLiteral("logs")));
            QCoro::waitFor(console.start());
            E2BKeyOffer *offer = offerOf(console.window());
            QVERIFY(offer);
            QCOMPARE(offerText(offer),
                     QStringLiteral("Found an E2B API key in the environment variable E2B_API_KEY. Add an E2B "
                                    "profile?"));
            click(offer, "e2bKeyOfferNotNow");
            QTRY_VERIFY(!offerOf(console.window()));
            QCOMPARE(console.profiles().profiles().size(), 1);
            QCoro::waitFor(console.shutdown());
        }
        {
            Console console(&settings, &secrets, env.path(QStringLiteral("logs")));
            QCoro::waitFor(console.start());
            click(offerOf(console.window()), "e2bKeyOfferNever");
            QTRY_VERIFY(!offerOf(console.window()));
            QCoro::waitFor(console.shutdown());
        }
        Console console(&settings, &secrets, env.path(QStringLiteral("logs")));
        QCoro::waitFor(console.start());
        QVERIFY(!offerOf(console.window()));
        QCOMPARE(console.profiles().profiles().size(), 1);
        QCOMPARE(QCoro::waitFor(secrets.read(QStringLiteral("e2b")))->value_or(QByteArray()), QByteArray());
        QCoro::waitFor(console.shutdown());
    }

    void aKeyThatIsNotAnE2BKeyIsFlagged()
    {
        Environment env;
        qputenv("E2B_API_KEY", AccessToken);
        QSettings settings(env.path(QStringLiteral("paddock.ini")), QSettings::IniFormat);
        keepLocalIn(&settings, env.path(QStringLiteral("workspaces")));
        MemorySecretStore secrets;
        Console console(&settings, &secrets, env.path(QStringLiteral("logs")));
        QCoro::waitFor(console.start());
        E2BKeyOffer *offer = offerOf(console.window());
        QVERIFY(offer);
        QVERIFY2(offerText(offer).contains(QLatin1String("It does not look like an E2B API key")),
                 qPrintable(offerText(offer)));
        QVERIFY(!offerText(offer).contains(QString::fromLatin1(AccessToken)));
        QCoro::waitFor(console.shutdown());
    }

    void withoutAKeychainTheKeyIsKeptForThisRun()
    {
        PaddockTest::FakeE2bProcess server;
        QVERIFY2(server.start({QStringLiteral("--api-key"), QString::fromLatin1(Key), QStringLiteral("--seed"),
                               QStringLiteral("2")}),
                 qPrintable(server.error()));
        Environment env;
        qputenv("E2B_API_KEY", Key);
        qputenv("E2B_DOMAIN", "e2b.example.com");
        Environment::serverFrom(server);
        QSettings settings(env.path(QStringLiteral("paddock.ini")), QSettings::IniFormat);
        keepLocalIn(&settings, env.path(QStringLiteral("workspaces")));
        NoKeychain secrets;
        Console console(&settings, &secrets, env.path(QStringLiteral("logs")));
        QCoro::waitFor(console.start());
        E2BKeyOffer *offer = offerOf(console.window());
        QVERIFY(offer);
        click(offer, "e2bKeyOfferAdd");
        QTRY_VERIFY(offerText(offer).startsWith(QLatin1String("Added the E2B profile \"E2B\", but the system keychain "
                                                              "is unavailable")));
        QVERIFY(offerText(offer).contains(NoKeychain::reason()));
        QVERIFY(offerText(offer).contains(
            QLatin1String("The plain-text copy in the environment variable E2B_API_KEY is still there")));
        const QString id = offer->profileId();
        QCOMPARE(console.profiles().profile(id)->domain, QStringLiteral("e2b.example.com"));
        QCOMPARE(QCoro::waitFor(console.sessionKeys()->read(id))->value_or(QByteArray()), Key);
        // The key of this run opens the profile.
        QTRY_COMPARE(console.window()->profile(), id);
        QTRY_COMPARE_WITH_TIMEOUT(console.window()->model()->workspaceCount(), 2, Long);
        settings.sync();
        QVERIFY(!fileBytes(settings.fileName()).contains(Key));
        QCoro::waitFor(console.shutdown());
    }

    void workspacesEndToEnd()
    {
        PaddockTest::FakeE2bProcess server;
        QVERIFY2(server.start({QStringLiteral("--api-key"), QString::fromLatin1(Key), QStringLiteral("--seed"),
                               QStringLiteral("4")}),
                 qPrintable(server.error()));
        Environment env;
        QFile bootstrap(env.path(QStringLiteral("bootstrap.txt")));
        QVERIFY(bootstrap.open(QIODevice::WriteOnly));
        bootstrap.write("# one command\necho hello from e2b; mkdir -p sessions/s1; echo notes > notes.txt\n");
        bootstrap.close();
        QSettings settings(env.path(QStringLiteral("paddock.ini")), QSettings::IniFormat);
        keepLocalIn(&settings, env.path(QStringLiteral("workspaces")));
        MemorySecretStore secrets;
        Profile profile;
        {
            ProfileStore store(&settings);
            profile.kind = Profile::Kind::E2B;
            profile.name = QStringLiteral("E2B");
            profile.id = store.newId(profile.name);
            profile.apiUrl = server.apiUrl().toString();
            profile.sandboxUrl = server.envdUrl().toString();
            profile.bootstrapFile = bootstrap.fileName();
            profile.sandboxTimeout = std::chrono::seconds(1800);
            QVERIFY(store.save(profile));
        }
        QVERIFY(QCoro::waitFor(secrets.write(profile.id, Key)));
        Console console(&settings, &secrets, env.path(QStringLiteral("logs")));
        console.window()->resize(1400, 900);
        console.window()->show();
        QCoro::waitFor(console.start());
        QVERIFY(!offerOf(console.window())); // an E2B profile exists
        QCoro::waitFor(console.switchTo(profile.id));
        MainWindow *window = console.window();
        WorkspaceTreeModel *model = window->model();
        QTRY_COMPARE_WITH_TIMEOUT(model->workspaceCount(), 4, Long);

        // The seeded rows: running ones count down to endAt, paused ones say their timer stopped.
        int paused = 0;
        for (const WorkspaceRecord *record : model->recordsUnder({})) {
            const QString expiry = model->indexOfKey(record->key(), WorkspaceTreeModel::ExpiryColumn).data().toString();
            QCOMPARE(record->info.backend, QStringLiteral("e2b"));
            if (record->info.state == SandboxState::Paused) {
                ++paused;
                QVERIFY(record->info.pausedAt.isValid());
                QCOMPARE(expiry, QStringLiteral("timer stopped"));
            } else {
                QVERIFY(record->info.expiresAt.has_value());
                QVERIFY2(expiry != QLatin1String("never") && expiry != QLatin1String("timer stopped"),
                         qPrintable(expiry));
            }
        }
        QCOMPARE(paused, 1);

        // Open: the bootstrap's lines as they come, then a running row counting down.
        window->findChild<QAction *>(QStringLiteral("actionOpen"))->trigger();
        OpenDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = window->findChild<OpenDialog *>(QStringLiteral("openDialog"))) != nullptr);
        dialog->findChild<QLineEdit *>(QStringLiteral("userEdit"))->setText(QStringLiteral("kai"));
        dialog->findChild<QLineEdit *>(QStringLiteral("agentEdit"))->setText(QStringLiteral("agent"));
        const QString id = dialog->resolvedId();
        dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Open)->click();
        QTRY_VERIFY_WITH_TIMEOUT(dialog->statusText().contains(QLatin1String("is open")), Long);
        QVERIFY2(dialog->logText().contains(QLatin1String("hello from e2b")), qPrintable(dialog->logText()));
        dialog->close();
        const WorkspaceRecord *record = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((record = recordOf(window, id)) != nullptr, Long);
        const QString key = record->key();
        QCOMPARE(record->info.state, SandboxState::Running);
        QCOMPARE(record->info.image, QStringLiteral("base"));
        const QModelIndex expiry = model->indexOfKey(key, WorkspaceTreeModel::ExpiryColumn);
        QVERIFY(expiry.data(WorkspaceTreeModel::DeadlineRole).toDateTime().isValid());
        QVERIFY2(expiry.data().toString().contains(QLatin1String("min")), qPrintable(expiry.data().toString()));
        QTRY_VERIFY(model->record(model->indexOfKey(key))->idleDeadline.has_value());

        auto *view = window->findChild<QTreeView *>(QStringLiteral("workspaceView"));
        QModelIndex row = proxyRowOf(view, key);
        QVERIFY(row.isValid());
        view->setCurrentIndex(row);
        view->selectionModel()->select(row, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        // Run Command is offered; Open Terminal is not (E2B's CLI does not reach this server).
        QTRY_VERIFY(window->findChild<QAction *>(QStringLiteral("actionRunCommand"))->isEnabled());
        QVERIFY(!window->findChild<QAction *>(QStringLiteral("actionOpenTerminal"))->isEnabled());
        QVERIFY(window->findChild<QAction *>(QStringLiteral("actionRenew"))->isEnabled());
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
        QTRY_VERIFY(hasLine(QStringLiteral("hello from e2b")));

        // The inspector: the template and the server's details; the workspace's files.
        InspectorDock *dock = window->inspectorDock();
        dock->toggleViewAction()->trigger();
        QVERIFY(dock->isVisible());
        QCOMPARE(dock->sandbox().workspaceId, id);
        QTRY_VERIFY_WITH_TIMEOUT(dock->overview()->hasDetails(), Long);
        const QStandardItemModel *overview = dock->overview()->model();
        QVERIFY(findText(overview, QStringLiteral("base"), 1).isValid());
        QVERIFY(findText(overview, QStringLiteral("Template")).isValid());
        QVERIFY(findText(overview, QStringLiteral("envd version")).isValid());
        QVERIFY(findText(overview, QStringLiteral("Ends")).isValid());
        dock->tabs()->setCurrentWidget(dock->files());
        QTRY_VERIFY_WITH_TIMEOUT(findText(dock->files()->model(), QStringLiteral("notes.txt")).isValid(), Long);
        QVERIFY(findText(dock->files()->model(), QStringLiteral("sessions")).isValid());
        dock->tabs()->setCurrentWidget(dock->overview());

        // Pause: its timer stops, in the tree and in the overview.
        const QString sandboxId = record->info.sandboxId;
        window->findChild<QAction *>(QStringLiteral("actionPause"))->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(model->indexOfKey(key, WorkspaceTreeModel::StateColumn).data().toString(),
                                  QStringLiteral("Paused"), Long);
        QCOMPARE(server.sandbox(sandboxId).value(QLatin1String("state")).toString(), QStringLiteral("paused"));
        QTRY_COMPARE(model->indexOfKey(key, WorkspaceTreeModel::ExpiryColumn).data().toString(),
                     QStringLiteral("timer stopped"));
        QVERIFY(model->indexOfKey(key, WorkspaceTreeModel::ExpiryColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .startsWith(QLatin1String("Paused since ")));
        QTRY_VERIFY_WITH_TIMEOUT(findText(overview, QStringLiteral("timer stopped (paused since "), 1).isValid(), Long);
        QTRY_VERIFY_WITH_TIMEOUT(findText(overview, QStringLiteral("Paused since")).isValid(), Long);
        // Renew does not go to it (its timer is stopped); Resume does.
        row = proxyRowOf(view, key);
        view->selectionModel()->select(row, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        QTRY_VERIFY(!window->findChild<QAction *>(QStringLiteral("actionRenew"))->isEnabled());
        QCOMPARE(window->findChild<QAction *>(QStringLiteral("actionRenew"))->toolTip(),
                 QStringLiteral("Nothing to renew: paused with the timer stopped. Resume starts the timer again."));
        auto *resume = window->findChild<QAction *>(QStringLiteral("actionResume"));
        QTRY_VERIFY(resume->isEnabled());
        resume->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(model->indexOfKey(key, WorkspaceTreeModel::StateColumn).data().toString(),
                                  QStringLiteral("Running"), Long);
        QTRY_VERIFY(model->indexOfKey(key, WorkspaceTreeModel::ExpiryColumn)
                        .data(WorkspaceTreeModel::DeadlineRole)
                        .toDateTime()
                        .isValid());
        QCOMPARE(server.sandbox(sandboxId).value(QLatin1String("state")).toString(), QStringLiteral("running"));
        QTRY_VERIFY(window->findChild<QAction *>(QStringLiteral("actionRenew"))->isEnabled());
        QVERIFY(window->findChild<QAction *>(QStringLiteral("actionRenew"))
                    ->toolTip()
                    .startsWith(QLatin1String("Move the expiry")));
        QCoro::waitFor(console.shutdown());
    }
};

QTEST_MAIN(TestConsoleE2B)
#include "tst_console_e2b.moc"
