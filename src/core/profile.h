#pragma once

#include "isolation.h"
#include "result.h"

#include <QList>
#include <QString>

#include <chrono>
#include <optional>

class QSettings;

namespace Paddock {

// A named place where workspaces live, and how the console treats them. API keys are not part
// of it: they live in the SecretStore under the profile's id.
struct Profile
{
    enum class Kind {
        Local,
        OpenSandbox,
        Docker,
        Kubernetes,
        E2B,
    };

    QString id; // stable; the keychain account of its API key
    // As the user named it. The Local profile's is empty until the user renames it: its own name
    // is not stored but shown in the language of the moment (displayName()).
    QString name;
    Kind kind = Kind::Local;
    // OpenSandbox
    QString domain; // host[:port]
    QString protocol = QStringLiteral("http");
    bool useServerProxy = false;
    QString image; // OpenSandbox and Docker; empty: the backend's default
    std::chrono::seconds sandboxTimeout{1800}; // 0: never expires
    // E2B: the control plane's URL (empty: https://api.<domain>, with `domain` a host name such as
    // e2b.app, else E2B_DOMAIN, E2B_API_URL) and envd's (empty: E2B_SANDBOX_URL, else each
    // sandbox's own); the template of new sandboxes is `image` (empty: base), their timeout
    // `sandboxTimeout`.
    QString apiUrl;
    QString sandboxUrl;
    // Docker
    QString dockerHost; // unix:///path or tcp://host:port; empty: DOCKER_HOST, else the system's engine
    bool stopInsteadOfPause = false; // pausing (and closing) stops the container instead of freezing it
    // Kubernetes: the kubeconfig (empty: KUBECONFIG, else in-cluster, else ~/.kube/config), its
    // context (empty: its current context), the namespace (empty: the context's, else agentscope),
    // and the PVC of new workspaces (size, storage class; empty: 1Gi, the cluster's default).
    QString kubeconfig;
    QString kubeContext;
    QString kubeNamespace;
    QString storageSize;
    QString storageClass;
    // Local and Docker
    QString basedir; // empty: the backend's default folder
    // Local and Docker: where workspaces are kept under basedir (and, for Docker, how containers
    // are named and labelled): Paddock's own layout, or AgentScope's (its LocalWorkspaceManager's
    // `<basedir>/<agent_id>`, its DockerWorkspaceManager's `as_ws_<id>` containers over
    // `<basedir>/<user_id>/<agent_id>`), so both see the same workspaces.
    enum class Layout {
        Paddock,
        AgentScope,
    };
    Layout layout = Layout::Paddock;
    // Local: run commands inside bubblewrap (paddockctl --bubblewrap; not offered in the console yet)
    bool bubblewrap = false;
    // Bootstrap commands for new workspaces, one shell command per line; empty: the backend's
    // own (AgentScope's on OpenSandbox, none locally).
    QString bootstrapFile;
    // The manager and the console
    IsolationPolicy isolation = DefaultIsolationPolicy;
    std::chrono::seconds ttl{3600};
    std::chrono::seconds sweepInterval{300};
    std::chrono::seconds refreshInterval{15}; // 0: off
    bool readOnly = false;
    // The console's notifications: how long before a workspace expires it says so (whole
    // minutes, the longest first; empty: never), and whether this profile's are muted.
    QList<std::chrono::seconds> notifyBeforeExpiry = DefaultNotifyBeforeExpiry;
    bool muteNotifications = false;
    static const QList<std::chrono::seconds> DefaultNotifyBeforeExpiry; // 10 and 1 minutes
    static constexpr int MaxNotifyBeforeExpiry = 5;

    bool operator==(const Profile &) const = default;

    // The name to show: `name`, or for the Local profile not renamed "Local" in the current
    // language.
    QString displayName() const;
    // Whether `name` given to the Local profile means its own name: empty, "Local" in English or
    // in the current language, or what earlier versions stored for it (translated).
    static bool isLocalName(const QString &name);

    // "10, 1": the times before expiry in minutes, as the Profiles dialog shows them; parsed back
    // (sorted, the longest first, each once; something not a whole number of minutes becomes an
    // invalid 0 that validateProfile() names).
    static QString minutesText(const QList<std::chrono::seconds> &times);
    static QList<std::chrono::seconds> parseMinutes(const QString &text);

    static QString kindName(Kind kind); // "local", "opensandbox", "docker", "kubernetes", "e2b"
    static QString layoutName(Layout layout); // "paddock", "agentscope"
    static std::optional<Layout> parseLayout(const QString &name);
    static std::optional<Kind> parseKind(const QString &name);
    // The profile that always exists: the local backend in its default folder, under its own
    // name (an empty `name`).
    static Profile local();
};

// One field's problem, for the dialog to show next to that field.
struct FieldError
{
    QString field; // the member's name: "name", "domain", "ttl", ...
    QString message; // translated
};

// Every problem of a profile at once, so nothing is saved until all fields are right.
QList<FieldError> validateProfile(const Profile &profile, const QList<Profile> &others = {});

inline const QList<int> RefreshChoices{0, 5, 15, 30, 60}; // seconds; 0: off

// Profiles in a QSettings file (never a key: those are in the keychain). The Local profile is
// always there, first.
class ProfileStore
{
public:
    explicit ProfileStore(QSettings *settings);

    QList<Profile> profiles() const { return m_profiles; }
    std::optional<Profile> profile(const QString &id) const;

    // Adds or replaces (by id) after validating every field; nothing is written on an error. The
    // Local profile under one of its own names (Profile::isLocalName) is kept without one.
    Result<> save(const Profile &profile, QList<FieldError> *errors = nullptr);
    // Removes a profile (not the Local one). The caller removes its key from the SecretStore.
    Result<> remove(const QString &id);

    // A new id for a profile named `name` (a readable slug, made unique).
    QString newId(const QString &name) const;

    // On first start, OPEN_SANDBOX_DOMAIN becomes an OpenSandbox profile, as the SDKs would use
    // it. Returns the profile it made (whose key, from OPEN_SANDBOX_API_KEY, the caller stores
    // in the keychain), or nullopt when there was nothing to import or it was done before.
    std::optional<Profile> importEnvironment(const QString &domain);

private:
    void load();
    void write();

    QSettings *m_settings;
    QList<Profile> m_profiles;
};

} // namespace Paddock
