#include "../../backendregistry.h"
#include "../../provisioner.h"
#include "../../tr.h"
#include "kubeconfig.h"
#include "kubernetesbackend.h"

#include <QFileInfo>
#include <QRegularExpression>

namespace Paddock {

namespace {

// A namespace is a DNS-1123 label.
bool isDnsLabel(const QString &name)
{
    static const QRegularExpression label(QStringLiteral("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"));
    return name.size() <= 63 && label.match(name).hasMatch();
}

// A storage class is a DNS-1123 subdomain.
bool isDnsSubdomain(const QString &name)
{
    static const QRegularExpression subdomain(
        QStringLiteral("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"));
    return name.size() <= 253 && subdomain.match(name).hasMatch();
}

// A resource quantity as PVC sizes are written: 1Gi, 500Mi, 10G, 1.5Ti.
bool isStorageQuantity(const QString &size)
{
    static const QRegularExpression quantity(QStringLiteral("^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$"));
    return quantity.match(size).hasMatch();
}

QString namespaceProblem(const QString &ns)
{
    return Tr::tr("A namespace is at most 63 lower-case letters, digits and '-', beginning and ending with a letter or "
                  "digit (\"%1\" is not).")
        .arg(ns);
}

QString storageSizeProblem(const QString &size)
{
    return Tr::tr("A storage size is a number with an optional unit, such as 1Gi, 500Mi or 10G (\"%1\" is not).")
        .arg(size);
}

QString storageClassProblem(const QString &name)
{
    return Tr::tr("A storage class name is lower-case letters, digits, '-' and '.' (\"%1\" is not).").arg(name);
}

// The kubeconfig a profile names, or the default ones, read to check its context (no credential
// is read or resolved here).
QList<FieldError> kubeconfigProblems(const Profile &profile)
{
    QList<FieldError> errors;
    const QString file = profile.kubeconfig.trimmed();
    if (!file.isEmpty() && !QFileInfo(file).isFile()) {
        errors.append({QStringLiteral("kubeconfig"), Tr::tr("There is no kubeconfig file %1.").arg(file)});
        return errors;
    }
    if (file.isEmpty() && profile.kubeContext.trimmed().isEmpty())
        return errors; // the default lookup, in-cluster included: checked when it connects
    auto contexts = Kubernetes::contextsIn(file.isEmpty() ? Kubernetes::KubeConfig::defaultFiles() : QStringList{file});
    if (!contexts) {
        errors.append({QStringLiteral("kubeconfig"), contexts.error().message});
        return errors;
    }
    const QString context = profile.kubeContext.trimmed();
    if (!context.isEmpty()) {
        QStringList names;
        for (const Kubernetes::ContextSummary &summary : std::as_const(contexts->contexts))
            names.append(summary.name);
        if (!names.contains(context))
            errors.append({QStringLiteral("kubeContext"),
                           Tr::tr("The kubeconfig has no context \"%1\" (it has: %2).")
                               .arg(context, names.isEmpty() ? Tr::tr("none") : names.join(QStringLiteral(", ")))});
    }
    return errors;
}

} // namespace

BackendFactory kubernetesBackendFactory()
{
    using namespace Kubernetes;
    BackendFactory factory;
    factory.kind = Profile::Kind::Kubernetes;
    factory.id = QStringLiteral("kubernetes");
    factory.displayName = [] { return Tr::tr("Kubernetes"); };
    factory.capabilities = {Capability::ContainerLog,
                            Capability::ContainerLogStream,
                            Capability::StopInsteadOfPause,
                            Capability::Files,
                            Capability::Exec,
                            Capability::Watch,
                            Capability::Metrics};
    factory.profileFields = {QStringLiteral("kubeconfig"),    QStringLiteral("kubeContext"),
                             QStringLiteral("kubeNamespace"), QStringLiteral("image"),
                             QStringLiteral("storageSize"),   QStringLiteral("storageClass")};
    // The contexts of the kubeconfig the profile names (or of the default files), for the
    // dialog's context box. A path that is no file (yet: it may be being typed) offers nothing,
    // and no default file at all is no problem (the default lookup may find the cluster Paddock
    // runs in); a file that is there but cannot be used is.
    factory.choices = [](const QString &field, const Profile &profile) -> FieldChoices {
        FieldChoices choices;
        if (field != QLatin1String("kubeContext"))
            return choices;
        const QString file = profile.kubeconfig.trimmed();
        if (!file.isEmpty() && !QFileInfo(file).isFile())
            return choices;
        const auto contexts = contextsIn(file.isEmpty() ? KubeConfig::defaultFiles() : QStringList{file});
        if (!contexts) {
            if (contexts.error().kind != Error::Kind::NotFound)
                choices.problem = contexts.error().message;
            return choices;
        }
        for (const ContextSummary &context : std::as_const(contexts->contexts))
            choices.values.append(context.name);
        choices.current = contexts->currentContext;
        return choices;
    };
    factory.hint = [](const QString &field) -> FieldHint {
        if (field == QLatin1String("kubeconfig"))
            return {Tr::tr("KUBECONFIG, else the cluster Paddock runs in, else ~/.kube/config"),
                    Tr::tr("The kubeconfig file to connect with; its credentials stay in it and are never copied")};
        if (field == QLatin1String("kubeContext"))
            return {Tr::tr("the kubeconfig's current context"), {}};
        if (field == QLatin1String("kubeNamespace"))
            return {Tr::tr("the context's namespace, else %1").arg(DefaultNamespace),
                    Tr::tr("The namespace of the workspaces' Pods and PVCs")};
        if (field == QLatin1String("image"))
            return {QString(DefaultImage),
                    Tr::tr("The container image of new workspaces' Pods; empty for the default")};
        if (field == QLatin1String("storageSize"))
            return {QString(DefaultStorageSize), Tr::tr("The size of a new workspace's PersistentVolumeClaim")};
        if (field == QLatin1String("storageClass"))
            return {Tr::tr("the cluster's default"), Tr::tr("The storage class of new workspaces' PVCs")};
        if (field == QLatin1String("bootstrapFile"))
            return {Tr::tr("AgentScope's bootstrap (installs AgentScope and its gateway)"), {}};
        if (field == QLatin1String("apiKey"))
            return {Tr::tr("the kubeconfig's credentials"),
                    Tr::tr("Optional. A bearer token sent instead of the credentials of the kubeconfig's user (its "
                           "token, client certificate or credential plugin). Kept only in the system keychain, never "
                           "in a file."),
                    Tr::tr("Token")};
        return {};
    };
    // A token typed into the profile (kept in the keychain) replaces the kubeconfig's credentials;
    // without one the kubeconfig's own are used, so it is optional (as every key is in the dialog).
    factory.usesKey = true;
    factory.bootstrapTimeout = std::chrono::seconds(1800);
    factory.commandLineOptions = {{QStringLiteral("kubeconfig"), QStringLiteral("file")},
                                  {QStringLiteral("context"), QStringLiteral("name")},
                                  {QStringLiteral("namespace"), QStringLiteral("ns")},
                                  {QStringLiteral("image"), QStringLiteral("image")},
                                  {QStringLiteral("storage-size"), QStringLiteral("size")},
                                  {QStringLiteral("storage-class"), QStringLiteral("name")}};
    factory.commandLineHelp = [] {
        return Tr::tr("Kubernetes backend (credentials from the kubeconfig):\n"
                      "  --kubeconfig FILE      the kubeconfig (default: KUBECONFIG, else in-cluster,\n"
                      "                         else ~/.kube/config)\n"
                      "  --context NAME         its context (default: its current context)\n"
                      "  --namespace NS         (default: the context's, else agentscope)\n"
                      "  --image IMAGE          image of new Pods (default: python:3.11-slim)\n"
                      "  --storage-size SIZE    size of new PVCs (default: 1Gi)\n"
                      "  --storage-class NAME   storage class of new PVCs (default: the cluster's)\n"
                      "  kill                   deletes the Pod and the PVC with the workspace's files\n");
    };
    factory.validate = [](const Profile &profile) {
        QList<FieldError> errors = kubeconfigProblems(profile);
        const QString ns = profile.kubeNamespace.trimmed();
        if (!ns.isEmpty() && !isDnsLabel(ns))
            errors.append({QStringLiteral("kubeNamespace"), namespaceProblem(ns)});
        static const QRegularExpression space(QStringLiteral("\\s"));
        if (profile.image.trimmed().contains(space))
            errors.append(
                {QStringLiteral("image"), Tr::tr("An image name has no spaces, for example python:3.11-slim.")});
        const QString size = profile.storageSize.trimmed();
        if (!size.isEmpty() && !isStorageQuantity(size))
            errors.append({QStringLiteral("storageSize"), storageSizeProblem(size)});
        const QString storageClass = profile.storageClass.trimmed();
        if (!storageClass.isEmpty() && !isDnsSubdomain(storageClass))
            errors.append({QStringLiteral("storageClass"), storageClassProblem(storageClass)});
        return errors;
    };
    factory.fromCommandLine = [](Profile &profile, const auto &value) -> Result<> {
        if (const auto file = value(QStringLiteral("kubeconfig"))) {
            if (file->isEmpty())
                return fail(Error::invalidArgument(Tr::tr("--kubeconfig needs a file")));
            profile.kubeconfig = *file;
        }
        if (const auto context = value(QStringLiteral("context"))) {
            if (context->isEmpty())
                return fail(Error::invalidArgument(Tr::tr("--context needs a context name")));
            profile.kubeContext = *context;
        }
        if (const auto ns = value(QStringLiteral("namespace"))) {
            if (!isDnsLabel(*ns))
                return fail(Error::invalidArgument(namespaceProblem(*ns)));
            profile.kubeNamespace = *ns;
        }
        if (const auto image = value(QStringLiteral("image"))) {
            if (image->trimmed().isEmpty())
                return fail(Error::invalidArgument(Tr::tr("--image needs an image name")));
            profile.image = image->trimmed();
        }
        if (const auto size = value(QStringLiteral("storage-size"))) {
            if (!isStorageQuantity(*size))
                return fail(Error::invalidArgument(storageSizeProblem(*size)));
            profile.storageSize = *size;
        }
        if (const auto storageClass = value(QStringLiteral("storage-class"))) {
            if (!isDnsSubdomain(*storageClass))
                return fail(Error::invalidArgument(storageClassProblem(*storageClass)));
            profile.storageClass = *storageClass;
        }
        return {};
    };
    factory.toCommandLine = [](const Profile &profile) {
        QStringList arguments;
        if (!profile.kubeconfig.isEmpty())
            arguments << QStringLiteral("--kubeconfig") << profile.kubeconfig;
        if (!profile.kubeContext.isEmpty())
            arguments << QStringLiteral("--context") << profile.kubeContext;
        if (!profile.kubeNamespace.isEmpty())
            arguments << QStringLiteral("--namespace") << profile.kubeNamespace;
        return arguments;
    };
    factory.create = [](const Profile &profile, const QByteArray &key, const BackendContext &) {
        BackendOptions options;
        options.kubeconfigFile = profile.kubeconfig.trimmed();
        options.contextName = profile.kubeContext.trimmed();
        ResolveOptions resolve;
        resolve.token = key;
        auto connection = lookupConnection(profile.kubeconfig.trimmed(), profile.kubeContext.trimmed(), resolve);
        if (connection) {
            options.cluster.connection = *connection;
        } else {
            // Every call says so, as a usage error (paddockctl exits with 2), as checkConfiguration() does.
            Error error = connection.error();
            error.kind = Error::Kind::InvalidArgument;
            options.configurationError = error;
        }
        if (!profile.kubeNamespace.trimmed().isEmpty())
            options.cluster.ns = profile.kubeNamespace.trimmed();
        else if (connection && !connection->namespaceName.isEmpty())
            options.cluster.ns = connection->namespaceName;
        if (!profile.image.trimmed().isEmpty())
            options.pod.image = profile.image.trimmed();
        if (!profile.storageSize.trimmed().isEmpty())
            options.pod.storageSize = profile.storageSize.trimmed();
        options.pod.storageClass = profile.storageClass.trimmed();
        BackendSetup setup;
        setup.backend = std::make_unique<KubernetesBackend>(options);
        setup.provision.bootstrap = agentscopeBootstrapCommands();
        setup.provision.agentscopeBootstrap = true;
        return setup;
    };
    return factory;
}

} // namespace Paddock
