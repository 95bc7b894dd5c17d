#include "profile.h"

#include "backendregistry.h"
#include "tr.h"

#include <QFileInfo>
#include <QRegularExpression>
#include <QSettings>
#include <QUrl>

#include <algorithm>

namespace Paddock {

namespace {

constexpr auto LocalId = "local";
constexpr auto ImportedKey = "environmentImported";

} // namespace

QString Profile::kindName(Kind kind)
{
    const BackendFactory *factory = BackendRegistry::instance().find(kind);
    return factory ? factory->id : QString();
}

std::optional<Profile::Kind> Profile::parseKind(const QString &name)
{
    if (const BackendFactory *factory = BackendRegistry::instance().find(name))
        return factory->kind;
    return std::nullopt;
}

QString Profile::layoutName(Layout layout)
{
    return layout == Layout::AgentScope ? QStringLiteral("agentscope") : QStringLiteral("paddock");
}

std::optional<Profile::Layout> Profile::parseLayout(const QString &name)
{
    if (name == QLatin1String("paddock"))
        return Layout::Paddock;
    if (name == QLatin1String("agentscope"))
        return Layout::AgentScope;
    return std::nullopt;
}

Profile Profile::local()
{
    Profile profile;
    profile.id = QLatin1String(LocalId);
    profile.kind = Kind::Local;
    return profile;
}

QString Profile::displayName() const
{
    if (id == QLatin1String(LocalId) && name.trimmed().isEmpty())
        return Tr::tr("Local");
    return name;
}

const QList<std::chrono::seconds> Profile::DefaultNotifyBeforeExpiry{std::chrono::minutes(10), std::chrono::minutes(1)};

QString Profile::minutesText(const QList<std::chrono::seconds> &times)
{
    QStringList parts;
    for (const std::chrono::seconds time : times)
        parts.append(QString::number(time.count() / 60));
    return parts.join(QStringLiteral(", "));
}

QList<std::chrono::seconds> Profile::parseMinutes(const QString &text)
{
    static const QRegularExpression separators(QStringLiteral("[,;\\s]+"));
    QList<std::chrono::seconds> times;
    for (const QString &part : text.split(separators, Qt::SkipEmptyParts)) {
        bool ok = false;
        const qint64 minutes = part.toLongLong(&ok);
        const std::chrono::seconds time(ok && minutes > 0 && minutes < 1'000'000 ? minutes * 60 : 0);
        if (!times.contains(time))
            times.append(time);
    }
    std::sort(times.begin(), times.end(), std::greater<>());
    return times;
}

bool Profile::isLocalName(const QString &name)
{
    const QString trimmed = name.trimmed();
    // Up to now, the name was stored as Tr::tr("Local") in the language of the moment: English or
    // the one translation shipped (zh_CN).
    static const QStringList stored{QStringLiteral("Local"), QStringLiteral("本地")};
    return trimmed.isEmpty() || stored.contains(trimmed) || trimmed == Tr::tr("Local");
}

QList<FieldError> validateProfile(const Profile &profile, const QList<Profile> &others)
{
    QList<FieldError> errors;
    const auto add = [&errors](const char *field, const QString &message) {
        errors.append({QLatin1String(field), message});
    };
    // The Local profile without a name has its own.
    const QString name = profile.displayName().trimmed();
    if (name.isEmpty())
        add("name", Tr::tr("Give the profile a name."));
    for (const Profile &other : others) {
        if (other.id != profile.id && other.displayName().trimmed().compare(name, Qt::CaseInsensitive) == 0
            && !name.isEmpty())
            add("name", Tr::tr("Another profile is already called \"%1\".").arg(name));
    }
    // The backend's own fields, as its folder checks them.
    if (const BackendFactory *factory = BackendRegistry::instance().find(profile.kind))
        errors.append(factory->validate(profile));
    if (!profile.bootstrapFile.isEmpty()) {
        const QFileInfo file(profile.bootstrapFile);
        if (!file.isFile() || !file.isReadable())
            add("bootstrapFile", Tr::tr("The bootstrap file %1 cannot be read.").arg(profile.bootstrapFile));
    }
    if (profile.ttl.count() < 1)
        add("ttl", Tr::tr("The idle time before pausing must be at least one second."));
    if (profile.sweepInterval.count() < 1)
        add("sweepInterval", Tr::tr("The sweep interval must be at least one second."));
    if (!RefreshChoices.contains(int(profile.refreshInterval.count())))
        add("refreshInterval", Tr::tr("Refresh every 5, 15, 30 or 60 seconds, or never."));
    const auto badTime = [](std::chrono::seconds time) {
        return time < std::chrono::minutes(1) || time > std::chrono::days(7) || time.count() % 60 != 0;
    };
    if (std::any_of(profile.notifyBeforeExpiry.cbegin(), profile.notifyBeforeExpiry.cend(), badTime))
        add("notifyBeforeExpiry",
            Tr::tr("Give whole minutes from 1 to 10080 (7 days), separated by commas, such as \"10, 1\"; or "
                   "nothing, for no notice before expiry."));
    else if (profile.notifyBeforeExpiry.size() > Profile::MaxNotifyBeforeExpiry)
        add("notifyBeforeExpiry", Tr::tr("At most %1 times before expiry.").arg(Profile::MaxNotifyBeforeExpiry));
    return errors;
}

ProfileStore::ProfileStore(QSettings *settings)
    : m_settings(settings)
{
    load();
}

std::optional<Profile> ProfileStore::profile(const QString &id) const
{
    const auto it =
        std::find_if(m_profiles.cbegin(), m_profiles.cend(), [&id](const Profile &p) { return p.id == id; });
    return it == m_profiles.cend() ? std::nullopt : std::optional(*it);
}

void ProfileStore::load()
{
    m_profiles.clear();
    m_profiles.append(Profile::local());
    const int count = m_settings->beginReadArray(QStringLiteral("profiles"));
    for (int i = 0; i < count; ++i) {
        m_settings->setArrayIndex(i);
        const auto value = [this](const char *key) { return m_settings->value(QLatin1String(key)); };
        // A duration missing from a hand-written file keeps its default.
        const auto seconds = [this](const char *key, std::chrono::seconds fallback) {
            return std::chrono::seconds(m_settings->value(QLatin1String(key), qint64(fallback.count())).toLongLong());
        };
        Profile profile;
        profile.id = value("id").toString();
        const auto kind = Profile::parseKind(value("kind").toString());
        if (profile.id.isEmpty() || !kind)
            continue; // written by something else: skipped, never guessed
        profile.kind = *kind;
        profile.name = value("name").toString();
        profile.domain = value("domain").toString();
        profile.protocol =
            value("protocol").toString().isEmpty() ? QStringLiteral("http") : value("protocol").toString();
        profile.useServerProxy = value("useServerProxy").toBool();
        profile.image = value("image").toString();
        profile.sandboxTimeout = seconds("sandboxTimeout", profile.sandboxTimeout);
        profile.apiUrl = value("apiUrl").toString();
        profile.sandboxUrl = value("sandboxUrl").toString();
        profile.dockerHost = value("dockerHost").toString();
        profile.stopInsteadOfPause = value("stopInsteadOfPause").toBool();
        profile.kubeconfig = value("kubeconfig").toString();
        profile.kubeContext = value("kubeContext").toString();
        profile.kubeNamespace = value("kubeNamespace").toString();
        profile.storageSize = value("storageSize").toString();
        profile.storageClass = value("storageClass").toString();
        profile.basedir = value("basedir").toString();
        // Files written before there were layouts (or by hand, with a word this build does not
        // know) keep Paddock's own.
        if (const auto layout = Profile::parseLayout(value("layout").toString()))
            profile.layout = *layout;
        profile.bubblewrap = value("bubblewrap").toBool();
        profile.bootstrapFile = value("bootstrapFile").toString();
        if (auto isolation = parseIsolationPolicy(value("isolation").toString()))
            profile.isolation = *isolation;
        profile.ttl = seconds("ttl", profile.ttl);
        profile.sweepInterval = seconds("sweepInterval", profile.sweepInterval);
        profile.refreshInterval = seconds("refreshInterval", profile.refreshInterval);
        profile.readOnly = value("readOnly").toBool();
        // Absent (a file written before notifications): the defaults; empty: none.
        if (const QVariant before = value("notifyBeforeExpiry"); before.isValid()) {
            profile.notifyBeforeExpiry.clear();
            for (const QString &part : before.toString().split(u' ', Qt::SkipEmptyParts)) {
                if (const qint64 seconds = part.trimmed().toLongLong(); seconds > 0)
                    profile.notifyBeforeExpiry.append(std::chrono::seconds(seconds));
            }
            std::sort(profile.notifyBeforeExpiry.begin(), profile.notifyBeforeExpiry.end(), std::greater<>());
        }
        profile.muteNotifications = value("muteNotifications").toBool();
        if (profile.id == QLatin1String(LocalId)) {
            // The local profile's settings, if the user changed them; its own name is not kept
            // (files written so far hold it, translated).
            if (Profile::isLocalName(profile.name))
                profile.name.clear();
            m_profiles[0] = profile;
        } else {
            m_profiles.append(profile);
        }
    }
    m_settings->endArray();
}

void ProfileStore::write()
{
    m_settings->remove(QStringLiteral("profiles"));
    m_settings->beginWriteArray(QStringLiteral("profiles"), int(m_profiles.size()));
    for (int i = 0; i < m_profiles.size(); ++i) {
        const Profile &profile = m_profiles.at(i);
        m_settings->setArrayIndex(i);
        const auto set = [this](const char *key, const QVariant &value) {
            m_settings->setValue(QLatin1String(key), value);
        };
        set("id", profile.id);
        set("name", profile.name);
        set("kind", Profile::kindName(profile.kind));
        set("domain", profile.domain);
        set("protocol", profile.protocol);
        set("useServerProxy", profile.useServerProxy);
        set("image", profile.image);
        set("sandboxTimeout", qint64(profile.sandboxTimeout.count()));
        set("apiUrl", profile.apiUrl);
        set("sandboxUrl", profile.sandboxUrl);
        set("dockerHost", profile.dockerHost);
        set("stopInsteadOfPause", profile.stopInsteadOfPause);
        set("kubeconfig", profile.kubeconfig);
        set("kubeContext", profile.kubeContext);
        set("kubeNamespace", profile.kubeNamespace);
        set("storageSize", profile.storageSize);
        set("storageClass", profile.storageClass);
        set("basedir", profile.basedir);
        set("layout", Profile::layoutName(profile.layout));
        set("bubblewrap", profile.bubblewrap);
        set("bootstrapFile", profile.bootstrapFile);
        set("isolation", isolationPolicyName(profile.isolation));
        set("ttl", qint64(profile.ttl.count()));
        set("sweepInterval", qint64(profile.sweepInterval.count()));
        set("refreshInterval", qint64(profile.refreshInterval.count()));
        set("readOnly", profile.readOnly);
        QStringList before;
        for (const std::chrono::seconds time : profile.notifyBeforeExpiry)
            before.append(QString::number(time.count()));
        set("notifyBeforeExpiry", before.join(u' ')); // seconds; no commas, which QSettings reads as a list
        set("muteNotifications", profile.muteNotifications);
    }
    m_settings->endArray();
    m_settings->sync();
}

Result<> ProfileStore::save(const Profile &given, QList<FieldError> *errors)
{
    Profile profile = given;
    // The Local profile's own name is shown translated, never stored.
    if (profile.id == QLatin1String(LocalId) && Profile::isLocalName(profile.name))
        profile.name.clear();
    const QList<FieldError> problems = validateProfile(profile, m_profiles);
    if (errors)
        *errors = problems;
    if (!problems.isEmpty())
        return fail(Error::invalidArgument(problems.constFirst().message));
    if (profile.id.isEmpty())
        return fail(Error::invalidArgument(Tr::tr("A profile needs an id.")));
    if (profile.id == QLatin1String(LocalId) && profile.kind != Profile::Kind::Local)
        return fail(Error::invalidArgument(Tr::tr("The Local profile stays on the local backend.")));
    const auto it =
        std::find_if(m_profiles.begin(), m_profiles.end(), [&profile](const Profile &p) { return p.id == profile.id; });
    if (it != m_profiles.end())
        *it = profile;
    else
        m_profiles.append(profile);
    write();
    return {};
}

Result<> ProfileStore::remove(const QString &id)
{
    if (id == QLatin1String(LocalId))
        return fail(Error::invalidArgument(Tr::tr("The Local profile cannot be deleted.")));
    const auto removed = m_profiles.removeIf([&id](const Profile &p) { return p.id == id; });
    if (removed == 0)
        return fail(Error::notFound(Tr::tr("There is no profile %1.").arg(id)));
    write();
    return {};
}

QString ProfileStore::newId(const QString &name) const
{
    QString slug;
    for (const QChar c : name.toLower()) {
        if ((c >= u'a' && c <= u'z') || (c >= u'0' && c <= u'9'))
            slug += c;
        else if (!slug.endsWith(u'-'))
            slug += u'-';
    }
    while (slug.startsWith(u'-'))
        slug.remove(0, 1);
    while (slug.endsWith(u'-'))
        slug.chop(1);
    if (slug.isEmpty())
        slug = QStringLiteral("profile");
    QString id = slug;
    for (int n = 2; profile(id).has_value() || id == QLatin1String(LocalId); ++n)
        id = slug + u'-' + QString::number(n);
    return id;
}

std::optional<Profile> ProfileStore::importEnvironment(const QString &domain)
{
    if (domain.trimmed().isEmpty() || m_settings->value(QLatin1String(ImportedKey)).toBool())
        return std::nullopt;
    m_settings->setValue(QLatin1String(ImportedKey), true);
    Profile profile;
    profile.kind = Profile::Kind::OpenSandbox;
    QString host = domain.trimmed();
    for (const QString &scheme : {QStringLiteral("http"), QStringLiteral("https")}) {
        if (host.startsWith(scheme + QStringLiteral("://"))) {
            profile.protocol = scheme;
            host = host.mid(scheme.size() + 3);
        }
    }
    while (host.endsWith(u'/'))
        host.chop(1);
    profile.domain = host;
    profile.name = Tr::tr("OpenSandbox (%1)").arg(host);
    profile.id = newId(QStringLiteral("opensandbox-") + host);
    if (!save(profile)) {
        m_settings->sync();
        return std::nullopt; // not a usable domain: nothing imported
    }
    return profile;
}

} // namespace Paddock
