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
        for (const Profile::Kind kind : {Profile::Kind::Local, Profile::Kind::OpenSandbox, Profile::Kind::Docker,
                                         Profile::Kind::Kubernetes, Profile::Kind::E2B}) {
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
                              QStringLiteral("kubernetes"), QStringLiteral("e2b")}));
        QVERIFY(!Profile::parseKind(QStringLiteral("daytona")));
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

    // The layout is Local's and Docker's alone: its field, its option, what it makes.
    void layoutIsLocalAndDockers()
    {
        for (const BackendFactory &factory : BackendRegistry::instance().factories()) {
            const bool has = factory.kind == Profile::Kind::Local || factory.kind == Profile::Kind::Docker;
            QCOMPARE(factory.usesField(QStringLiteral("layout")), has);
            QCOMPARE(factory.takesOption(QStringLiteral("layout")), has);
            if (!has)
                continue;
            const FieldHint hint = factory.hint(QStringLiteral("layout"));
            QVERIFY2(hint.toolTip.contains(QLatin1String("Paddock:"))
                         && hint.toolTip.contains(QLatin1String("AgentScope:")),
                     qPrintable(hint.toolTip));
            QVERIFY2(factory.commandLineHelp().contains(QLatin1String("--layout")), qPrintable(factory.id));

            const auto given = [](const QString &word) {
                return [word](const QString &name) -> std::optional<QString> {
                    return name == QLatin1String("layout") ? std::optional(word) : std::nullopt;
                };
            };
            Profile profile;
            profile.kind = factory.kind;
            QVERIFY(factory.fromCommandLine(profile, given(QStringLiteral("agentscope"))));
            QCOMPARE(profile.layout, Profile::Layout::AgentScope);
            QVERIFY(factory.fromCommandLine(profile, given(QStringLiteral("paddock"))));
            QCOMPARE(profile.layout, Profile::Layout::Paddock);
            const auto bad = factory.fromCommandLine(profile, given(QStringLiteral("flat")));
            QVERIFY(!bad);
            QCOMPARE(bad.error().kind, Error::Kind::InvalidArgument);
            QVERIFY2(bad.error().message.contains(QLatin1String("\"flat\"")), qPrintable(bad.error().message));
            profile.isolation = IsolationPolicy::PerSession;
            const auto session = factory.fromCommandLine(profile, given(QStringLiteral("agentscope")));
            QVERIFY(!session);
            QVERIFY2(session.error().message.contains(QLatin1String("per_agent")), qPrintable(session.error().message));

            // The command line that reaches the same workspaces names the layout when it is not
            // Paddock's own.
            profile.isolation = IsolationPolicy::PerAgent;
            profile.layout = Profile::Layout::Paddock;
            QVERIFY(!factory.toCommandLine(profile).contains(QStringLiteral("--layout")));
            profile.layout = Profile::Layout::AgentScope;
            const QStringList arguments = factory.toCommandLine(profile);
            const qsizetype at = arguments.indexOf(QStringLiteral("--layout"));
            QVERIFY2(at >= 0 && arguments.value(at + 1) == QLatin1String("agentscope"),
                     qPrintable(arguments.join(u' ')));

            // What AgentScope's layout changes in what the backend can do.
            profile.isolation = IsolationPolicy::PerAgent;
            profile.layout = Profile::Layout::AgentScope;
            profile.basedir = QStringLiteral("/nonexistent/paddock-test");
            const Capabilities made = factory.create(profile, {}, {}).backend->capabilities();
            if (factory.kind == Profile::Kind::Local) {
                QVERIFY(made.testFlag(Capability::UserNotRecorded));
            } else {
                // A close removes the container and keeps the folder; a kill deletes that too.
                QVERIFY(made.testFlag(Capability::StopInsteadOfPause));
                QVERIFY(!made.testFlag(Capability::DeleteFilesOnKill));
                QVERIFY(!made.testFlag(Capability::UserNotRecorded));
            }
        }
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
        // E2B's template is the field others call the image.
        const BackendFactory *e2b = BackendRegistry::instance().find(Profile::Kind::E2B);
        QCOMPARE(e2b->hint(QStringLiteral("image")).label, QStringLiteral("Template"));
        // The others keep the dialog's own name for it; no field but these is renamed.
        const BackendFactory *openSandbox = BackendRegistry::instance().find(Profile::Kind::OpenSandbox);
        QVERIFY(openSandbox->usesKey);
        QVERIFY(openSandbox->hint(QStringLiteral("apiKey")).label.isEmpty());
        for (const BackendFactory &factory : BackendRegistry::instance().factories()) {
            for (const QString &field : factory.profileFields) {
                if (factory.kind == Profile::Kind::E2B && field == QLatin1String("image"))
                    continue;
                QVERIFY2(factory.hint(field).label.isEmpty(), qPrintable(factory.id + u' ' + field));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestBackendRegistry)
#include "tst_backendregistry.moc"
