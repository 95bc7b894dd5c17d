#include "backendregistry.h"

#include "profilesession.h"

#include <QSet>
#include <QTest>

using namespace Paddock;

class TestBackendRegistry final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyKindIsRegisteredOnce()
    {
        const BackendRegistry &registry = BackendRegistry::instance();
        QSet<QString> ids;
        for (const Profile::Kind kind :
             {Profile::Kind::Local, Profile::Kind::OpenSandbox, Profile::Kind::Docker, Profile::Kind::Kubernetes}) {
            const BackendFactory *factory = registry.find(kind);
            QVERIFY(factory);
            QVERIFY(!factory->id.isEmpty());
            QVERIFY(!ids.contains(factory->id));
            ids.insert(factory->id);
            QCOMPARE(registry.find(factory->id), factory);
            QCOMPARE(Profile::kindName(kind), factory->id);
            QCOMPARE(Profile::parseKind(factory->id), std::optional(kind));
            QVERIFY(!factory->displayName().isEmpty());
            QVERIFY(factory->create && factory->validate && factory->fromCommandLine && factory->commandLineHelp);
        }
        QCOMPARE(registry.ids(),
                 (QStringList{QStringLiteral("local"), QStringLiteral("opensandbox"), QStringLiteral("docker"),
                              QStringLiteral("kubernetes")}));
        QVERIFY(!Profile::parseKind(QStringLiteral("e2b")));
    }

    void madeBackendsCanWhatTheirKindSays()
    {
        for (const BackendFactory &factory : BackendRegistry::instance().factories()) {
            Profile profile;
            profile.id = factory.id;
            profile.kind = factory.kind;
            profile.domain = QStringLiteral("127.0.0.1:9");
            const BackendSetup setup = factory.create(profile, {}, {});
            QVERIFY(setup.backend);
            QCOMPARE(setup.backend->capabilities() & factory.capabilities, factory.capabilities);
        }
        // An instance may add to its kind's: Docker that stops instead of pausing says so.
        Profile docker;
        docker.kind = Profile::Kind::Docker;
        docker.stopInsteadOfPause = true;
        const BackendFactory *factory = BackendRegistry::instance().find(Profile::Kind::Docker);
        QVERIFY(factory->create(docker, {}, {}).backend->capabilities().testFlag(Capability::StopInsteadOfPause));
        QVERIFY(factory->capabilities.testFlag(Capability::DeleteFilesOnKill));
        QVERIFY(BackendRegistry::instance().find(Profile::Kind::OpenSandbox)->capabilities.testFlag(Capability::Renew));
        QVERIFY(!BackendRegistry::instance().find(Profile::Kind::Local)->capabilities.testFlag(Capability::Renew));
    }

    void commandLineOptionsFillTheProfile()
    {
        const BackendFactory *openSandbox = BackendRegistry::instance().find(QStringLiteral("opensandbox"));
        QVERIFY(openSandbox->takesOption(QStringLiteral("domain")));
        QVERIFY(!openSandbox->takesOption(QStringLiteral("docker-host")));
        const QHash<QString, QString> given{{QStringLiteral("domain"), QStringLiteral("127.0.0.1:8090")},
                                            {QStringLiteral("sandbox-timeout"), QStringLiteral("0")},
                                            {QStringLiteral("use-server-proxy"), QString()}};
        const auto value = [&given](const QString &name) -> std::optional<QString> {
            const auto it = given.constFind(name);
            return it == given.cend() ? std::nullopt : std::optional(*it);
        };
        Profile profile;
        profile.kind = Profile::Kind::OpenSandbox;
        QVERIFY(openSandbox->fromCommandLine(profile, value));
        QCOMPARE(profile.domain, QStringLiteral("127.0.0.1:8090"));
        QCOMPARE(profile.sandboxTimeout.count(), 0);
        QVERIFY(profile.useServerProxy);

        const auto bad = [](const QString &name) -> std::optional<QString> {
            if (name == QLatin1String("protocol"))
                return QStringLiteral("ftp");
            return std::nullopt;
        };
        const auto refused = openSandbox->fromCommandLine(profile, bad);
        QVERIFY(!refused);
        QCOMPARE(refused.error().kind, Error::Kind::InvalidArgument);
    }

    void profileValidationAsksTheBackend()
    {
        Profile profile;
        profile.id = QStringLiteral("x");
        profile.name = QStringLiteral("X");
        profile.kind = Profile::Kind::OpenSandbox;
        const auto errors = validateProfile(profile);
        QVERIFY(std::any_of(errors.cbegin(), errors.cend(),
                            [](const FieldError &error) { return error.field == QLatin1String("domain"); }));
        profile.kind = Profile::Kind::Docker;
        profile.dockerHost = QStringLiteral("ftp://nowhere");
        const auto dockerErrors = validateProfile(profile);
        QVERIFY(std::any_of(dockerErrors.cbegin(), dockerErrors.cend(),
                            [](const FieldError &error) { return error.field == QLatin1String("dockerHost"); }));
    }

    void keyFieldAsEachBackendNamesIt()
    {
        // Kubernetes calls its key a token, optional: without one the kubeconfig's credentials go.
        const BackendFactory *kubernetes = BackendRegistry::instance().find(Profile::Kind::Kubernetes);
        QVERIFY(kubernetes->usesKey);
        const FieldHint token = kubernetes->hint(QStringLiteral("apiKey"));
        QCOMPARE(token.label, QStringLiteral("Token"));
        QCOMPARE(token.defaultValue, QStringLiteral("the kubeconfig's credentials"));
        QVERIFY2(token.toolTip.contains(QLatin1String("keychain")), qPrintable(token.toolTip));
        // The others keep the dialog's own name for it; no field but the key is renamed.
        const BackendFactory *openSandbox = BackendRegistry::instance().find(Profile::Kind::OpenSandbox);
        QVERIFY(openSandbox->usesKey);
        QVERIFY(openSandbox->hint(QStringLiteral("apiKey")).label.isEmpty());
        for (const BackendFactory &factory : BackendRegistry::instance().factories()) {
            for (const QString &field : factory.profileFields)
                QVERIFY2(factory.hint(field).label.isEmpty(), qPrintable(factory.id + u' ' + field));
        }
    }
};

QTEST_GUILESS_MAIN(TestBackendRegistry)
#include "tst_backendregistry.moc"
