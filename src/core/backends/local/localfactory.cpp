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
    factory.capabilities = {Capability::Files, Capability::Exec};
    factory.profileFields = {QStringLiteral("basedir")};
    factory.hint = [](const QString &field) -> FieldHint {
        if (field == QLatin1String("basedir"))
            return {QDir::toNativeSeparators(LocalBackend::defaultBasedir()),
                    Tr::tr("The folder that holds one folder per workspace; empty for the default")};
        if (field == QLatin1String("bootstrapFile"))
            return {Tr::tr("none (no commands are run)"), {}};
        return {};
    };
    factory.commandLineOptions = {{QStringLiteral("basedir"), QStringLiteral("dir")},
                                  {QStringLiteral("bubblewrap"), {}}};
    factory.commandLineHelp = [] {
        return Tr::tr("Local backend:\n"
                      "  --basedir DIR          the base folder (default: %1)\n"
                      "  --bubblewrap           run commands inside bubblewrap (bwrap)\n")
            .arg(LocalBackend::defaultBasedir());
    };
    factory.validate = [](const Profile &) { return QList<FieldError>{}; };
    factory.fromCommandLine = [](Profile &profile, const auto &value) -> Result<> {
        if (const auto basedir = value(QStringLiteral("basedir"))) {
            if (basedir->isEmpty())
                return fail(Error::invalidArgument(Tr::tr("--basedir needs a folder")));
            profile.basedir = *basedir;
        }
        profile.bubblewrap = value(QStringLiteral("bubblewrap")).has_value();
        return {};
    };
    factory.toCommandLine = [](const Profile &profile) {
        QStringList arguments;
        if (!profile.basedir.isEmpty())
            arguments << QStringLiteral("--basedir") << profile.basedir;
        return arguments;
    };
    factory.create = [](const Profile &profile, const QByteArray &, const BackendContext &) {
        BackendSetup setup;
        setup.backend = std::make_unique<LocalBackend>(LocalOptions{profile.basedir, profile.bubblewrap});
        return setup;
    };
    return factory;
}

} // namespace Paddock
