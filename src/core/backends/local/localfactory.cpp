#include "../../backendregistry.h"
#include "../../tr.h"
#include "localbackend.h"

#include <QDir>

namespace Paddock {

BackendFactory localBackendFactory()
{
    BackendFactory factory;
    factory.kind = Profile::Kind::Local;
    factory.id = QStringLiteral("local");
    factory.displayName = [] { return Tr::tr("Local"); };
    factory.capabilities = {Capability::Files, Capability::Exec, Capability::Metrics};
    factory.profileFields = {QStringLiteral("basedir"), QStringLiteral("layout")};
    factory.hint = [](const QString &field) -> FieldHint {
        if (field == QLatin1String("basedir"))
            return {QDir::toNativeSeparators(LocalBackend::defaultBasedir()),
                    Tr::tr("The folder that holds one folder per workspace; empty for the default")};
        if (field == QLatin1String("bootstrapFile"))
            return {Tr::tr("none (no commands are run)"), {}};
        if (field == QLatin1String("layout")) {
            return {
                QStringLiteral("paddock"),
                Tr::tr("Paddock: one folder per workspace, <folder>/<workspace id>, with Paddock's metadata inside "
                       "it.\nAgentScope: the folders AgentScope's LocalWorkspaceManager keeps, <folder>/<agent id>, "
                       "one per agent whoever the user (no user is recorded), listed as soon as they hold .mcp, "
                       "skills, sessions or data; Paddock keeps its metadata beside them in <folder>/.paddock. "
                       "Works with the per-agent isolation only.")};
        }
        return {};
    };
    factory.commandLineOptions = {{QStringLiteral("basedir"), QStringLiteral("dir")},
                                  {QStringLiteral("layout"), QStringLiteral("layout")},
                                  {QStringLiteral("bubblewrap"), {}}};
    factory.commandLineHelp = [] {
        return Tr::tr("Local backend:\n"
                      "  --basedir DIR          the base folder (default: %1)\n"
                      "  --layout L             paddock (default): <basedir>/<workspace id>;\n"
                      "                         agentscope: AgentScope's <basedir>/<agent id>, the user\n"
                      "                         not recorded (with --isolation per_agent only)\n"
                      "  --bubblewrap           run commands inside bubblewrap (bwrap)\n")
            .arg(LocalBackend::defaultBasedir());
    };
    factory.validate = [](const Profile &profile) { return validateLayout(profile); };
    factory.fromCommandLine = [](Profile &profile, const auto &value) -> Result<> {
        if (const auto basedir = value(QStringLiteral("basedir"))) {
            if (basedir->isEmpty())
                return fail(Error::invalidArgument(Tr::tr("--basedir needs a folder")));
            profile.basedir = *basedir;
        }
        profile.bubblewrap = value(QStringLiteral("bubblewrap")).has_value();
        return layoutFromCommandLine(profile, value);
    };
    factory.toCommandLine = [](const Profile &profile) {
        QStringList arguments;
        if (!profile.basedir.isEmpty())
            arguments << QStringLiteral("--basedir") << profile.basedir;
        // Where the workspaces are under that folder: AgentScope's layout is not the default.
        if (profile.layout == Profile::Layout::AgentScope)
            arguments << QStringLiteral("--layout") << Profile::layoutName(profile.layout);
        return arguments;
    };
    factory.create = [](const Profile &profile, const QByteArray &, const BackendContext &) {
        BackendSetup setup;
        setup.backend =
            std::make_unique<LocalBackend>(LocalOptions{profile.basedir, profile.bubblewrap, profile.layout});
        return setup;
    };
    return factory;
}

} // namespace Paddock
