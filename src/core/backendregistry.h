#pragma once

#include "backend.h"
#include "profile.h"
#include "provisioner.h"
#include "result.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

namespace Paddock {

// How the backend is used: by the console (long-lived, holds what it opens) or by one
// paddockctl command (nothing held once the process ends).
struct BackendContext
{
    bool commandLine = false;
};

// What a factory makes from a profile: the backend, and how its new workspaces are provisioned
// when the profile names no bootstrap file (AgentScope's bootstrap on OpenSandbox, none elsewhere).
struct BackendSetup
{
    std::unique_ptr<Backend> backend;
    ProvisionOptions provision;
};

// A paddockctl option that a backend takes (a global option: `--domain HOST`).
struct CommandLineOption
{
    QString name; // without the dashes
    QString valueName; // empty: a flag
};

// What the profiles dialog shows in an empty field of a backend's: its default (said as
// "Default: …"), what the field means there, and the field's name on this backend when it is not
// the usual one (the "apiKey" field is a "Token" on Kubernetes); empty: the dialog's own label.
struct FieldHint
{
    QString defaultValue;
    QString toolTip;
    QString label{}; // translated, without a mnemonic or a colon
};

// What the profiles dialog offers in a field of a backend's, read from where the profile points
// (a kubeconfig's contexts): the values, which of them is the current one, and why none can be
// offered when what it points at cannot be used (empty: nothing wrong, perhaps nothing there).
struct FieldChoices
{
    QStringList values;
    QString current;
    QString problem;
};

// One backend kind, as its folder registers it. Everything the console, the profiles dialog and
// paddockctl need to offer, configure and make a backend comes from here, never from if-chains
// over the kinds.
struct BackendFactory
{
    Profile::Kind kind = Profile::Kind::Local;
    QString id; // "local", "opensandbox", "docker": settings, paddockctl --backend, list --json
    std::function<QString()> displayName; // translated
    Capabilities capabilities; // what every backend of this kind can do (an instance may add some)
    // The Profile members this kind uses beyond the common ones (name, bootstrapFile, the
    // manager's and the console's settings): "domain", "protocol", "useServerProxy", "image",
    // "sandboxTimeout", "dockerHost", "stopInsteadOfPause", "basedir", "layout", "bubblewrap",
    // "kubeconfig", "kubeContext", "kubeNamespace", "storageSize", "storageClass", "apiUrl", "sandboxUrl".
    QStringList profileFields;
    // The hint of one of its fields ("image", "basedir", "layout", "bootstrapFile", "apiKey");
    // empty: none.
    std::function<FieldHint(const QString &field)> hint;
    // The choices of one of its fields for a profile as it is being edited (reads small local
    // files); empty function or values: none to offer.
    std::function<FieldChoices(const QString &field, const Profile &profile)> choices;
    // An API key is part of its configuration (kept in the SecretStore under the profile's id).
    bool usesKey = false;
    // paddockctl reads the key from this variable (its one key source); empty: no key.
    QByteArray keyEnvironmentVariable;
    // The time limit of each command of a bootstrap file.
    std::chrono::seconds bootstrapTimeout{1800};
    QList<CommandLineOption> commandLineOptions;
    // paddockctl --help: the section of this backend (translated, ends with a newline).
    std::function<QString()> commandLineHelp;
    // The kind's own field problems (the common ones are validateProfile's).
    std::function<QList<FieldError>(const Profile &)> validate;
    // paddockctl: fills the profile from the options given (`value(name)` is nullopt when the
    // option is not given; a flag's value is an empty string). InvalidArgument on a bad value.
    std::function<Result<>(Profile &, const std::function<std::optional<QString>(const QString &)> &value)>
        fromCommandLine;
    // paddockctl: the options that reach this profile's workspaces (where they are: a server, a
    // folder, a cluster), the inverse of fromCommandLine for those; never the key, never what only
    // new workspaces use (an image). Empty function: none.
    std::function<QStringList(const Profile &)> toCommandLine;
    // Makes the backend of a profile; `key` is its API key when usesKey.
    std::function<BackendSetup(const Profile &, const QByteArray &key, const BackendContext &)> create;

    bool usesField(const QString &field) const { return profileFields.contains(field); }
    bool takesOption(const QString &option) const;
};

// Every backend kind this build has, in the order they are offered.
class BackendRegistry
{
public:
    static const BackendRegistry &instance();

    const QList<BackendFactory> &factories() const { return m_factories; }
    const BackendFactory *find(Profile::Kind kind) const;
    const BackendFactory *find(const QString &id) const;
    QStringList ids() const;

private:
    BackendRegistry();
    QList<BackendFactory> m_factories;
};

// The "layout" field, as the backends that have one (Local, Docker) check and fill it: the
// AgentScope layout takes the per_agent isolation only (FieldError on "layout"), and paddockctl's
// `--layout agentscope|paddock` (InvalidArgument on a bad word, or on agentscope with another
// isolation).
QList<FieldError> validateLayout(const Profile &profile);
Result<> layoutFromCommandLine(Profile &profile, const std::function<std::optional<QString>(const QString &)> &value);

// Each backend folder's registration (backends/<name>/<name>factory.cpp).
BackendFactory localBackendFactory();
BackendFactory openSandboxBackendFactory();
BackendFactory dockerBackendFactory();
BackendFactory kubernetesBackendFactory();
BackendFactory e2bBackendFactory();

} // namespace Paddock
