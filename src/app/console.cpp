#include "console.h"

#include "backends/local/localbackend.h"
#include "backends/opensandbox/opensandboxbackend.h"
#include "mainwindow.h"

#include <QCoroTask>

#include <QLoggingCategory>
#include <QProcessEnvironment>
#include <QSettings>
#include <QStatusBar>

Q_LOGGING_CATEGORY(lcConsole, "paddock.app.console", QtInfoMsg)

using namespace Paddock;

namespace {

constexpr auto CurrentProfileKey = "currentProfile";

} // namespace

Console::Console(QSettings *settings, SecretStore *secrets, QObject *parent)
    : QObject(parent)
    , m_settings(settings)
    , m_secrets(secrets)
    , m_profiles(settings)
    , m_window(std::make_unique<MainWindow>(nullptr, QString()))
{
    connect(m_window.get(), &MainWindow::profileChosen, this, [this](const QString &id) { switchTo(id); });
}

Console::~Console() = default;

void Console::offerProfiles(const QString &current)
{
    QList<std::pair<QString, QString>> entries;
    for (const Profile &profile : m_profiles.profiles())
        entries.append({profile.id, profile.name});
    m_window->setProfiles(entries, current);
}

QCoro::Task<void> Console::start()
{
    const QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (const auto imported = m_profiles.importEnvironment(env.value(QStringLiteral("OPEN_SANDBOX_DOMAIN")))) {
        qCInfo(lcConsole).noquote() << "made profile" << imported->id << "from OPEN_SANDBOX_DOMAIN";
        const QByteArray key = env.value(QStringLiteral("OPEN_SANDBOX_API_KEY")).toUtf8();
        if (!key.isEmpty()) {
            auto stored = co_await m_secrets->write(imported->id, key);
            if (!stored) {
                // Never a plain-text fallback: the key is kept for this run only, and the user
                // is told why.
                co_await m_sessionKeys.write(imported->id, key);
                m_window->statusBar()->showMessage(stored.error().message);
            }
        }
    }
    QString current = m_settings->value(QLatin1String(CurrentProfileKey)).toString();
    if (!m_profiles.profile(current))
        current = m_profiles.profiles().constFirst().id;
    offerProfiles(current);
    co_await switchTo(current);
}

QCoro::Task<std::optional<QByteArray>> Console::key(QString profileId, QString *problem)
{
    if (auto kept = co_await m_sessionKeys.read(profileId); kept && kept->has_value())
        co_return *kept;
    auto stored = co_await m_secrets->read(profileId);
    if (!stored) {
        *problem = stored.error().message;
        co_return std::nullopt;
    }
    co_return *stored;
}

QCoro::Task<Console::Session *> Console::session(Profile profile)
{
    if (const auto it = m_sessions.find(profile.id); it != m_sessions.end())
        co_return it->second.get();
    auto made = std::make_unique<Session>();
    if (profile.kind == Profile::Kind::Local) {
        made->backend = std::make_unique<LocalBackend>(LocalOptions{profile.basedir, false});
    } else {
        QString problem;
        const std::optional<QByteArray> apiKey = co_await key(profile.id, &problem);
        OpenSandbox::BackendOptions options;
        options.connection.domain = profile.domain;
        options.connection.protocol = profile.protocol;
        options.connection.useServerProxy = profile.useServerProxy;
        options.connection.apiKey = apiKey.value_or(QByteArray());
        if (!profile.image.isEmpty())
            options.sandbox.image = profile.image;
        options.sandbox.timeout = profile.sandboxTimeout.count() == 0
            ? std::nullopt
            : std::optional<std::chrono::seconds>(profile.sandboxTimeout);
        made->problem = problem;
        made->backend = std::make_unique<OpenSandbox::OpenSandboxBackend>(options);
    }
    Session *raw = made.get();
    m_sessions[profile.id] = std::move(made);
    co_return raw;
}

QCoro::Task<void> Console::switchTo(QString profileId)
{
    const auto profile = m_profiles.profile(profileId);
    if (!profile)
        co_return;
    Session *chosen = co_await session(*profile);
    m_settings->setValue(QLatin1String(CurrentProfileKey), profile->id);
    m_window->setReadOnly(profile->readOnly);
    m_window->setRefreshInterval(profile->refreshInterval);
    m_window->setBackend(chosen->backend.get(), profile->id, chosen->problem);
}
