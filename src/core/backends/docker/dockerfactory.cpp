#include "../../backendregistry.h"
#include "../../tr.h"
#include "dockerbackend.h"

#include <QDir>
#include <QRegularExpression>

namespace Paddock {

BackendFactory dockerBackendFactory()
{
    using Docker::DockerBackend;
    using Docker::DockerOptions;
    BackendFactory factory;
    factory.kind = Profile::Kind::Docker;
    factory.id = QStringLiteral("docker");
    factory.displayName = [] { return Tr::tr("Docker"); };
    factory.capabilities = {Capability::ContainerLog, Capability::DeleteFilesOnKill, Capability::Files,
                            Capability::Exec, Capability::Metrics};
    factory.profileFields = {QStringLiteral("dockerHost"), QStringLiteral("image"), QStringLiteral("basedir"),
                             QStringLiteral("layout"), QStringLiteral("stopInsteadOfPause")};
    factory.hint = [](const QString &field) -> FieldHint {
        if (field == QLatin1String("image"))
            return {QString(DockerOptions::DefaultImage),
                    Tr::tr("The image of new containers, which must be on the Docker engine already (pulled, built "
                           "or imported); empty for the default")};
        if (field == QLatin1String("basedir"))
            return {QDir::toNativeSeparators(DockerBackend::defaultBasedir()),
                    Tr::tr("The host folder that holds one folder per workspace, mounted at /workspace in its "
                           "container; empty for the default")};
        if (field == QLatin1String("bootstrapFile"))
            return {Tr::tr("none (no commands are run)"), {}};
        if (field == QLatin1String("layout")) {
            return {
                QStringLiteral("paddock"),
                Tr::tr("Paddock: containers paddock-<workspace id> over <folder>/<workspace id>, labelled with the "
                       "workspace, user and agent ids; closing freezes (or stops) them.\nAgentScope: the containers "
                       "of AgentScope's DockerWorkspaceManager, as_ws_<workspace id> over <folder>/<user id>/<agent "
                       "id>, labelled only as AgentScope labels them (the user and agent are read from the folder); "
                       "closing removes the container and keeps the folder, listed as Stopped; killing deletes "
                       "the folder too. Works with the per-agent isolation only.")};
        }
        if (field == QLatin1String("dockerHost")) {
            // What an empty host means here: DOCKER_HOST when set, else the system's engine (or
            // why DOCKER_HOST cannot be used).
            const auto address = Docker::EngineAddress::fromEnvironment();
            return {address ? address->display() : address.error().message, {}};
        }
        return {};
    };
    factory.commandLineOptions = {{QStringLiteral("docker-host"), QStringLiteral("url")},
                                  {QStringLiteral("image"), QStringLiteral("image")},
                                  {QStringLiteral("basedir"), QStringLiteral("dir")},
                                  {QStringLiteral("layout"), QStringLiteral("layout")}};
    factory.commandLineHelp = [] {
        return Tr::tr("Docker backend:\n"
                      "  --docker-host URL      the engine: unix:///path or tcp://host:port\n"
                      "                         (default: DOCKER_HOST, else unix:///var/run/docker.sock)\n"
                      "  --image IMAGE          image of new containers; it must be on the engine\n"
                      "                         (default: debian:bookworm-slim)\n"
                      "  --basedir DIR          host folder for the workspaces' /workspace (default: %1)\n"
                      "  --layout L             paddock (default): <basedir>/<workspace id>; agentscope:\n"
                      "                         AgentScope's as_ws_<id> containers over\n"
                      "                         <basedir>/<user id>/<agent id>, removed on close, the\n"
                      "                         folder deleted on kill (with --isolation per_agent only)\n"
                      "  kill --delete-files    also delete the workspace's host folder (paddock layout)\n")
            .arg(DockerBackend::defaultBasedir());
    };
    factory.validate = [](const Profile &profile) {
        QList<FieldError> errors;
        if (!profile.dockerHost.trimmed().isEmpty()) {
            if (auto address = Docker::EngineAddress::parse(profile.dockerHost); !address)
                errors.append({QStringLiteral("dockerHost"), address.error().message});
        }
        static const QRegularExpression space(QStringLiteral("\\s"));
        if (profile.image.trimmed().contains(space))
            errors.append(
                {QStringLiteral("image"), Tr::tr("An image name has no spaces, for example debian:bookworm-slim.")});
        errors.append(validateLayout(profile));
        return errors;
    };
    factory.fromCommandLine = [](Profile &profile, const auto &value) -> Result<> {
        if (const auto host = value(QStringLiteral("docker-host"))) {
            if (auto valid = Docker::EngineAddress::parse(*host); !valid)
                return fail(valid.error());
            profile.dockerHost = *host;
        }
        if (const auto image = value(QStringLiteral("image"))) {
            if (image->trimmed().isEmpty())
                return fail(Error::invalidArgument(Tr::tr("--image needs an image name")));
            profile.image = image->trimmed();
        }
        if (const auto basedir = value(QStringLiteral("basedir"))) {
            if (basedir->isEmpty())
                return fail(Error::invalidArgument(Tr::tr("--basedir needs a folder")));
            profile.basedir = *basedir;
        }
        return layoutFromCommandLine(profile, value);
    };
    factory.toCommandLine = [](const Profile &profile) {
        QStringList arguments;
        if (!profile.dockerHost.trimmed().isEmpty())
            arguments << QStringLiteral("--docker-host") << profile.dockerHost.trimmed();
        if (!profile.basedir.isEmpty())
            arguments << QStringLiteral("--basedir") << profile.basedir;
        // Where the workspaces are under that folder: AgentScope's layout is not the default.
        if (profile.layout == Profile::Layout::AgentScope)
            arguments << QStringLiteral("--layout") << Profile::layoutName(profile.layout);
        return arguments;
    };
    factory.create = [](const Profile &profile, const QByteArray &, const BackendContext &) {
        // No engine, or one that refuses us, shows when the first call fails.
        DockerOptions options;
        options.dockerHost = profile.dockerHost;
        options.image = profile.image.isEmpty() ? QString(DockerOptions::DefaultImage) : profile.image;
        options.basedir = profile.basedir;
        options.stopInsteadOfPause = profile.stopInsteadOfPause;
        options.layout = profile.layout;
        BackendSetup setup;
        setup.backend = std::make_unique<DockerBackend>(options);
        return setup;
    };
    return factory;
}

} // namespace Paddock
