// Profiles: every field checked before anything is saved, a round trip through the settings
// file (which never holds a key), the Local profile that always exists, and the one-time import
// of OPEN_SANDBOX_DOMAIN.

#include "i18n.h"
#include "profile.h"

#include <QFile>
#include <QScopeGuard>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

using namespace Paddock;
using namespace std::chrono_literals;

namespace {

QStringList fields(const QList<FieldError> &errors)
{
    QStringList names;
    for (const FieldError &error : errors)
        names.append(error.field);
    return names;
}

Profile openSandbox(const QString &name, const QString &domain)
{
    Profile profile;
    profile.id = name.toLower();
    profile.name = name;
    profile.kind = Profile::Kind::OpenSandbox;
    profile.domain = domain;
    return profile;
}

} // namespace

class TestProfile final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyBadFieldIsNamed()
    {
        Profile bad = openSandbox(QString(), QStringLiteral("http://host:8080/v1"));
        bad.protocol = QStringLiteral("ftp");
        bad.sandboxTimeout = 30s;
        bad.ttl = 0s;
        bad.sweepInterval = 0s;
        bad.refreshInterval = 7s;
        bad.bootstrapFile = QStringLiteral("/nonexistent/bootstrap.txt");
        QCOMPARE(fields(validateProfile(bad)),
                 (QStringList{QStringLiteral("name"), QStringLiteral("domain"), QStringLiteral("protocol"),
                              QStringLiteral("sandboxTimeout"), QStringLiteral("bootstrapFile"), QStringLiteral("ttl"),
                              QStringLiteral("sweepInterval"), QStringLiteral("refreshInterval")}));

        QVERIFY(validateProfile(openSandbox(QStringLiteral("Prod"), QStringLiteral("osb.example.com:8080"))).isEmpty());
        QVERIFY(validateProfile(openSandbox(QStringLiteral("v6"), QStringLiteral("[::1]:8080"))).isEmpty());
        QCOMPARE(fields(validateProfile(openSandbox(QStringLiteral("p"), QStringLiteral("host:70000")))),
                 QStringList{QStringLiteral("domain")});
        QCOMPARE(fields(validateProfile(openSandbox(QStringLiteral("p"), QString()))),
                 QStringList{QStringLiteral("domain")});
        Profile never = openSandbox(QStringLiteral("p"), QStringLiteral("h"));
        never.sandboxTimeout = 0s;
        QVERIFY(validateProfile(never).isEmpty());
        // Names are unique, whatever their case.
        const QList<Profile> others{openSandbox(QStringLiteral("Prod"), QStringLiteral("a"))};
        Profile twin = openSandbox(QStringLiteral("prod"), QStringLiteral("b"));
        twin.id = QStringLiteral("other");
        QCOMPARE(fields(validateProfile(twin, others)), QStringList{QStringLiteral("name")});
    }

    void roundTripWithoutKeys()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("paddock.ini"));
        {
            QSettings settings(path, QSettings::IniFormat);
            ProfileStore store(&settings);
            QCOMPARE(store.profiles().size(), 1);
            QCOMPARE(store.profiles().constFirst().id, QStringLiteral("local"));
            Profile prod = openSandbox(QStringLiteral("生产 Prod"), QStringLiteral("osb.example.com:8080"));
            prod.id = store.newId(prod.name);
            prod.protocol = QStringLiteral("https");
            prod.useServerProxy = true;
            prod.isolation = IsolationPolicy::PerUser;
            prod.ttl = 900s;
            prod.refreshInterval = 30s;
            prod.readOnly = true;
            prod.bootstrapFile = QFINDTESTDATA("tst_profile.cpp");
            QVERIFY(store.save(prod));
            QList<FieldError> errors;
            Profile broken = prod;
            broken.id = QStringLiteral("broken");
            broken.name = QStringLiteral("Broken");
            broken.domain = QStringLiteral("a/b");
            QVERIFY(!store.save(broken, &errors));
            QCOMPARE(fields(errors), QStringList{QStringLiteral("domain")});
            QCOMPARE(store.profiles().size(), 2); // nothing saved
        }
        QSettings settings(path, QSettings::IniFormat);
        ProfileStore store(&settings);
        QCOMPARE(store.profiles().size(), 2);
        const Profile prod = store.profiles().at(1);
        QCOMPARE(prod.id, QStringLiteral("prod"));
        QCOMPARE(prod.name, QStringLiteral("生产 Prod"));
        QCOMPARE(prod.protocol, QStringLiteral("https"));
        QVERIFY(prod.useServerProxy && prod.readOnly);
        QCOMPARE(prod.isolation, IsolationPolicy::PerUser);
        QCOMPARE(prod.ttl, 900s);
        QCOMPARE(prod.refreshInterval, 30s);
        QCOMPARE(prod.bootstrapFile, QFINDTESTDATA("tst_profile.cpp"));

        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll().toLower();
        QVERIFY(!text.contains("key"));
        QVERIFY(!text.contains("password"));

        QVERIFY(!store.remove(QStringLiteral("local")));
        QVERIFY(store.remove(prod.id));
        QCOMPARE(store.profiles().size(), 1);
        QCOMPARE(store.remove(prod.id).error().kind, Error::Kind::NotFound);
    }

    // Notice before expiry (10 and 1 minutes by default) and mute: kept, validated, parsed.
    void notificationSettings()
    {
        QCOMPARE(Profile().notifyBeforeExpiry, (QList<std::chrono::seconds>{600s, 60s}));
        QVERIFY(!Profile().muteNotifications);
        QCOMPARE(Profile::parseMinutes(QStringLiteral(" 1, 10;30  10")),
                 (QList<std::chrono::seconds>{1800s, 600s, 60s}));
        QCOMPARE(Profile::parseMinutes(QString()), QList<std::chrono::seconds>());
        QCOMPARE(Profile::parseMinutes(QStringLiteral("5, soon")), (QList<std::chrono::seconds>{300s, 0s}));
        QCOMPARE(Profile::minutesText({600s, 60s}), QStringLiteral("10, 1"));

        Profile profile = Profile::local();
        profile.notifyBeforeExpiry = Profile::parseMinutes(QStringLiteral("5, soon"));
        QCOMPARE(fields(validateProfile(profile)), QStringList{QStringLiteral("notifyBeforeExpiry")});
        profile.notifyBeforeExpiry = Profile::parseMinutes(QStringLiteral("20000"));
        QCOMPARE(fields(validateProfile(profile)), QStringList{QStringLiteral("notifyBeforeExpiry")});
        profile.notifyBeforeExpiry = Profile::parseMinutes(QStringLiteral("1 2 3 4 5 6"));
        QCOMPARE(fields(validateProfile(profile)), QStringList{QStringLiteral("notifyBeforeExpiry")});
        profile.notifyBeforeExpiry = {};
        QVERIFY(validateProfile(profile).isEmpty());

        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("paddock.ini"));
        {
            QSettings settings(path, QSettings::IniFormat);
            ProfileStore store(&settings);
            Profile prod = openSandbox(QStringLiteral("Prod"), QStringLiteral("osb.example.com:8080"));
            prod.id = store.newId(prod.name);
            prod.notifyBeforeExpiry = {1800s, 300s, 60s};
            prod.muteNotifications = true;
            QVERIFY(store.save(prod));
            Profile quiet = openSandbox(QStringLiteral("Quiet"), QStringLiteral("osb.example.com:8081"));
            quiet.id = store.newId(quiet.name);
            quiet.notifyBeforeExpiry = {};
            QVERIFY(store.save(quiet));
        }
        {
            QSettings settings(path, QSettings::IniFormat);
            ProfileStore store(&settings);
            QCOMPARE(store.profile(QStringLiteral("prod"))->notifyBeforeExpiry,
                     (QList<std::chrono::seconds>{1800s, 300s, 60s}));
            QVERIFY(store.profile(QStringLiteral("prod"))->muteNotifications);
            QCOMPARE(store.profile(QStringLiteral("quiet"))->notifyBeforeExpiry, QList<std::chrono::seconds>());
            QVERIFY(!store.profile(QStringLiteral("quiet"))->muteNotifications);
            // A file written before notifications: the defaults.
            settings.beginWriteArray(QStringLiteral("profiles"));
            settings.setArrayIndex(1);
            settings.remove(QStringLiteral("notifyBeforeExpiry"));
            settings.endArray();
            settings.sync();
        }
        QSettings settings(path, QSettings::IniFormat);
        ProfileStore store(&settings);
        QCOMPARE(store.profiles().at(1).notifyBeforeExpiry, Profile::DefaultNotifyBeforeExpiry);
    }

    void dockerProfile()
    {
        Profile docker;
        docker.id = QStringLiteral("docker");
        docker.name = QStringLiteral("Docker");
        docker.kind = Profile::Kind::Docker;
        QVERIFY(validateProfile(docker).isEmpty()); // every Docker field has a default
        docker.dockerHost = QStringLiteral("ssh://me@host");
        docker.image = QStringLiteral("debian bookworm");
        const QList<FieldError> errors = validateProfile(docker);
        QCOMPARE(fields(errors), (QStringList{QStringLiteral("dockerHost"), QStringLiteral("image")}));
        QVERIFY2(errors.constFirst().message.contains(QLatin1String("ssh://me@host")),
                 qPrintable(errors.constFirst().message));
        for (const char *good : {"unix:///run/user/1000/docker.sock", "tcp://127.0.0.1:2375", "tcp://[::1]:2375"}) {
            docker.dockerHost = QLatin1String(good);
            docker.image = QStringLiteral("debian:bookworm-slim");
            QVERIFY2(validateProfile(docker).isEmpty(), good);
        }

        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("paddock.ini"));
        docker.dockerHost = QStringLiteral("unix:///run/user/1000/docker.sock");
        docker.basedir = dir.filePath(QStringLiteral("workspaces"));
        docker.stopInsteadOfPause = true;
        {
            QSettings settings(path, QSettings::IniFormat);
            ProfileStore store(&settings);
            QVERIFY(store.save(docker));
        }
        QSettings settings(path, QSettings::IniFormat);
        ProfileStore store(&settings);
        QCOMPARE(store.profile(QStringLiteral("docker")), docker);
        // Written by hand, with only what it needs: the durations keep their defaults.
        QSettings handWritten(dir.filePath(QStringLiteral("hand.ini")), QSettings::IniFormat);
        handWritten.beginWriteArray(QStringLiteral("profiles"), 1);
        handWritten.setArrayIndex(0);
        handWritten.setValue(QStringLiteral("id"), QStringLiteral("d"));
        handWritten.setValue(QStringLiteral("name"), QStringLiteral("D"));
        handWritten.setValue(QStringLiteral("kind"), QStringLiteral("docker"));
        handWritten.endArray();
        const auto minimal = ProfileStore(&handWritten).profile(QStringLiteral("d"));
        QVERIFY(minimal);
        QCOMPARE(minimal->ttl, Profile().ttl);
        QCOMPARE(minimal->sweepInterval, Profile().sweepInterval);
        QCOMPARE(minimal->refreshInterval, Profile().refreshInterval);
        QCOMPARE(minimal->sandboxTimeout, Profile().sandboxTimeout);
        QVERIFY(validateProfile(*minimal).isEmpty());
        QCOMPARE(Profile::kindName(Profile::Kind::Docker), QStringLiteral("docker"));
        QCOMPARE(Profile::parseKind(QStringLiteral("docker")), Profile::Kind::Docker);
    }

    // Local and Docker keep their workspaces in Paddock's layout or AgentScope's: saved, loaded
    // (files written before layouts existed load as Paddock's), and checked against the isolation.
    void layoutIsKeptAndChecked()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("paddock.ini"));
        Profile local = Profile::local();
        local.layout = Profile::Layout::AgentScope;
        local.basedir = dir.filePath(QStringLiteral("agents"));
        Profile docker;
        docker.id = QStringLiteral("docker");
        docker.name = QStringLiteral("Docker");
        docker.kind = Profile::Kind::Docker;
        docker.layout = Profile::Layout::AgentScope;
        {
            QSettings settings(path, QSettings::IniFormat);
            ProfileStore store(&settings);
            QVERIFY(store.save(local));
            QVERIFY(store.save(docker));
        }
        {
            QSettings settings(path, QSettings::IniFormat);
            QCOMPARE(settings.value(QStringLiteral("profiles/1/layout")).toString(), QStringLiteral("agentscope"));
            ProfileStore store(&settings);
            QCOMPARE(store.profile(QStringLiteral("local"))->layout, Profile::Layout::AgentScope);
            QCOMPARE(store.profile(QStringLiteral("docker")), docker);
        }
        // An older file has no layout; an unknown word is not guessed at either: Paddock's.
        QSettings old(dir.filePath(QStringLiteral("old.ini")), QSettings::IniFormat);
        old.beginWriteArray(QStringLiteral("profiles"), 2);
        old.setArrayIndex(0);
        old.setValue(QStringLiteral("id"), QStringLiteral("d"));
        old.setValue(QStringLiteral("kind"), QStringLiteral("docker"));
        old.setArrayIndex(1);
        old.setValue(QStringLiteral("id"), QStringLiteral("e"));
        old.setValue(QStringLiteral("kind"), QStringLiteral("docker"));
        old.setValue(QStringLiteral("layout"), QStringLiteral("kubernetes"));
        old.endArray();
        ProfileStore oldStore(&old);
        QCOMPARE(oldStore.profile(QStringLiteral("d"))->layout, Profile::Layout::Paddock);
        QCOMPARE(oldStore.profile(QStringLiteral("e"))->layout, Profile::Layout::Paddock);

        // AgentScope's layout gives one folder one id only under per_agent.
        for (Profile *profile : {&local, &docker}) {
            for (const IsolationPolicy policy : {IsolationPolicy::PerUser, IsolationPolicy::PerSession}) {
                profile->isolation = policy;
                const QList<FieldError> errors = validateProfile(*profile);
                QCOMPARE(fields(errors), QStringList{QStringLiteral("layout")});
                QVERIFY2(errors.constFirst().message.contains(QLatin1String("per-agent")),
                         qPrintable(errors.constFirst().message));
                profile->layout = Profile::Layout::Paddock;
                QVERIFY(validateProfile(*profile).isEmpty());
                profile->layout = Profile::Layout::AgentScope;
            }
            profile->isolation = IsolationPolicy::PerAgent;
        }
        QSettings settings(path, QSettings::IniFormat);
        ProfileStore store(&settings);
        docker.isolation = IsolationPolicy::PerUser;
        QList<FieldError> errors;
        QVERIFY(!store.save(docker, &errors));
        QCOMPARE(fields(errors), QStringList{QStringLiteral("layout")});
        QCOMPARE(store.profile(QStringLiteral("docker"))->isolation, IsolationPolicy::PerAgent); // nothing written
        QCOMPARE(Profile::layoutName(Profile::Layout::AgentScope), QStringLiteral("agentscope"));
        QCOMPARE(Profile::parseLayout(QStringLiteral("paddock")), Profile::Layout::Paddock);
        QVERIFY(!Profile::parseLayout(QStringLiteral("AgentScope")));
    }

    void e2bProfile()
    {
        QTemporaryDir dir;
        Profile e2b;
        e2b.id = QStringLiteral("e2b-cloud");
        e2b.name = QStringLiteral("E2B");
        e2b.kind = Profile::Kind::E2B;
        QVERIFY(validateProfile(e2b).isEmpty()); // every E2B field has a default
        e2b.domain = QStringLiteral("e2b.example.org");
        e2b.apiUrl = QStringLiteral("http://127.0.0.1:3000");
        e2b.sandboxUrl = QStringLiteral("http://127.0.0.1:49983");
        e2b.image = QStringLiteral("code-interpreter");
        e2b.sandboxTimeout = std::chrono::seconds(300);
        e2b.readOnly = true;
        QVERIFY(validateProfile(e2b).isEmpty());
        const QString path = dir.filePath(QStringLiteral("paddock.ini"));
        {
            QSettings settings(path, QSettings::IniFormat);
            ProfileStore store(&settings);
            QVERIFY(store.save(e2b));
        }
        QSettings settings(path, QSettings::IniFormat);
        ProfileStore store(&settings);
        QCOMPARE(store.profile(QStringLiteral("e2b-cloud")), e2b);
        QCOMPARE(Profile::parseKind(QStringLiteral("e2b")), Profile::Kind::E2B);

        // Each bad field named.
        Profile bad = e2b;
        bad.domain = QStringLiteral("https://e2b.app/");
        bad.apiUrl = QStringLiteral("api.e2b.app");
        bad.sandboxUrl = QStringLiteral("http://127.0.0.1:49983/?x=1");
        bad.sandboxTimeout = std::chrono::seconds(0);
        QStringList fields;
        for (const FieldError &error : validateProfile(bad))
            fields.append(error.field);
        QCOMPARE(fields,
                 (QStringList{QStringLiteral("domain"), QStringLiteral("apiUrl"), QStringLiteral("sandboxUrl"),
                              QStringLiteral("sandboxTimeout")}));
    }

    void kubernetesProfile()
    {
        QTemporaryDir dir;
        Profile kube;
        kube.id = QStringLiteral("cluster");
        kube.name = QStringLiteral("Cluster");
        kube.kind = Profile::Kind::Kubernetes;
        QVERIFY(validateProfile(kube).isEmpty()); // every Kubernetes field has a default
        const QString config = dir.filePath(QStringLiteral("kubeconfig"));
        {
            QFile file(config);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("apiVersion: v1\nkind: Config\ncurrent-context: prod\nclusters:\n- name: c\n"
                       "  cluster: {server: 'https://127.0.0.1:6443'}\ncontexts:\n- name: prod\n"
                       "  context: {cluster: c}\n");
        }
        kube.kubeconfig = config;
        kube.kubeContext = QStringLiteral("prod");
        kube.kubeNamespace = QStringLiteral("team-a");
        kube.image = QStringLiteral("python:3.12-slim");
        kube.storageSize = QStringLiteral("5Gi");
        kube.storageClass = QStringLiteral("fast.ssd");
        kube.readOnly = true;
        QVERIFY(validateProfile(kube).isEmpty());
        const QString path = dir.filePath(QStringLiteral("paddock.ini"));
        {
            QSettings settings(path, QSettings::IniFormat);
            ProfileStore store(&settings);
            QVERIFY(store.save(kube));
        }
        QSettings settings(path, QSettings::IniFormat);
        ProfileStore store(&settings);
        QCOMPARE(store.profile(QStringLiteral("cluster")), kube);
        QCOMPARE(Profile::parseKind(QStringLiteral("kubernetes")), Profile::Kind::Kubernetes);

        // Each bad field named, and nothing saved.
        Profile bad = kube;
        bad.kubeContext = QStringLiteral("staging");
        bad.kubeNamespace = QStringLiteral("Team_A");
        bad.storageSize = QStringLiteral("lots");
        bad.storageClass = QStringLiteral("Fast SSD");
        QList<FieldError> errors;
        QVERIFY(!store.save(bad, &errors));
        QCOMPARE(fields(errors),
                 (QStringList{QStringLiteral("kubeContext"), QStringLiteral("kubeNamespace"),
                              QStringLiteral("storageSize"), QStringLiteral("storageClass")}));
        QCOMPARE(store.profile(QStringLiteral("cluster")), kube);
    }

    void localNameIsShownNotStored()
    {
        QCOMPARE(Profile::local().name, QString());
        QCOMPARE(Profile::local().displayName(), QStringLiteral("Local"));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("p.ini"));
        const auto storedName = [&path] {
            QSettings file(path, QSettings::IniFormat);
            return file.value(QStringLiteral("profiles/1/name"));
        };
        // Files as earlier versions wrote them: the Local profile's name in the language of the
        // moment.
        for (const QString &stored : {QStringLiteral("Local"), QStringLiteral("本地")}) {
            {
                QSettings file(path, QSettings::IniFormat);
                file.clear();
                file.beginWriteArray(QStringLiteral("profiles"), 1);
                file.setArrayIndex(0);
                file.setValue(QStringLiteral("id"), QStringLiteral("local"));
                file.setValue(QStringLiteral("name"), stored);
                file.setValue(QStringLiteral("kind"), QStringLiteral("local"));
                file.setValue(QStringLiteral("basedir"), QStringLiteral("/srv/workspaces"));
                file.endArray();
            }
            QSettings settings(path, QSettings::IniFormat);
            ProfileStore store(&settings);
            const Profile local = store.profiles().constFirst();
            QVERIFY2(local.name.isEmpty(), qPrintable(stored));
            QCOMPARE(local.displayName(), QStringLiteral("Local"));
            QCOMPARE(local.basedir, QStringLiteral("/srv/workspaces"));
            QVERIFY(store.save(local)); // written again: without the name
            QCOMPARE(storedName().toString(), QString());
        }

        // In Chinese it is the Chinese name, from the same file.
        const auto english = qScopeGuard([] { useLanguage(QLocale(QLocale::English, QLocale::UnitedStates)); });
        QCOMPARE(useLanguage(QLocale(QStringLiteral("zh_CN"))), QStringLiteral("zh_CN"));
        QSettings settings(path, QSettings::IniFormat);
        ProfileStore store(&settings);
        Profile local = store.profiles().constFirst();
        QCOMPARE(local.displayName(), QStringLiteral("本地"));
        // Saved under its name as shown (as the Profiles dialog does), it still keeps none.
        local.name = local.displayName();
        QVERIFY(store.save(local));
        QVERIFY(store.profiles().constFirst().name.isEmpty());
        QCOMPARE(storedName().toString(), QString());
        // No other profile takes its name.
        Profile twin = openSandbox(QStringLiteral("本地"), QStringLiteral("h"));
        QCOMPARE(fields(validateProfile(twin, store.profiles())), QStringList{QStringLiteral("name")});
        // Renamed, the name is the user's, in every language.
        local.name = QStringLiteral("My laptop");
        QVERIFY(store.save(local));
        QCOMPARE(storedName().toString(), QStringLiteral("My laptop"));
        QCOMPARE(ProfileStore(&settings).profiles().constFirst().displayName(), QStringLiteral("My laptop"));
        useLanguage(QLocale(QLocale::English, QLocale::UnitedStates));
        QCOMPARE(store.profiles().constFirst().displayName(), QStringLiteral("My laptop"));
    }

    void idsAreReadableAndUnique()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("p.ini")), QSettings::IniFormat);
        ProfileStore store(&settings);
        QCOMPARE(store.newId(QStringLiteral("Team Server #1")), QStringLiteral("team-server-1"));
        QCOMPARE(store.newId(QStringLiteral("运维")), QStringLiteral("profile"));
        QCOMPARE(store.newId(QStringLiteral("Local")), QStringLiteral("local-2"));
        Profile a = openSandbox(QStringLiteral("A"), QStringLiteral("h"));
        a.id = store.newId(a.name);
        QVERIFY(store.save(a));
        QCOMPARE(store.newId(QStringLiteral("a")), QStringLiteral("a-2"));
    }

    void environmentBecomesAProfileOnce()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("p.ini")), QSettings::IniFormat);
        ProfileStore store(&settings);
        const auto imported = store.importEnvironment(QStringLiteral("https://osb.internal:9443/"));
        QVERIFY(imported.has_value());
        QCOMPARE(imported->domain, QStringLiteral("osb.internal:9443"));
        QCOMPARE(imported->protocol, QStringLiteral("https"));
        QCOMPARE(imported->kind, Profile::Kind::OpenSandbox);
        QVERIFY(store.profile(imported->id).has_value());
        // Deleting it is respected: the next start does not bring it back.
        QVERIFY(store.remove(imported->id));
        QVERIFY(!store.importEnvironment(QStringLiteral("osb.internal:9443")).has_value());
        QVERIFY(!ProfileStore(&settings).importEnvironment(QStringLiteral("other:1")).has_value());
    }
};

QTEST_GUILESS_MAIN(TestProfile)
#include "tst_profile.moc"
