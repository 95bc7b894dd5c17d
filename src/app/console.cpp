#include "console.h"

#include "backends/docker/dockerbackend.h"
#include "backends/local/localbackend.h"
#include "backends/opensandbox/opensandboxbackend.h"
#include "bootstraplog.h"
#include "i18n.h"
#include "mainwindow.h"
#include "profilesdialog.h"
#include "provisioner.h"
#include "quitcontroller.h"
#include "workspacemanager.h"

#include <QCoroTask>

#include <QFile>
#include <QLoggingCategory>
#include <QPointer>
#include <QProcessEnvironment>
#include <QSettings>
#include <QStatusBar>

Q_LOGGING_CATEGORY(lcConsole, "paddock.app.console", QtInfoMsg)

using namespace Paddock;

namespace {

constexpr auto CurrentProfileKey = "currentProfile";
constexpr auto LanguageKey = "language"; // a language code; empty or absent: the system's

} // namespace

Console::Session::Session() = default;

Console::Session::~Session()
{
    // The manager goes before the provisioner and the backend it uses.
    manager.reset();
    provisioner.reset();
    backend.reset();
}

Console::Console(QSettings *settings, SecretStore *secrets, const QString &logRoot, QObject *parent)
    : QObject(parent)
    , m_settings(settings)
    , m_secrets(secrets)
    , m_profiles(settings)
    , m_logs(std::make_unique<BootstrapLogStore>(logRoot))
    , m_window(std::make_unique<MainWindow>(nullptr, QString()))
    , m_quit(new QuitController(settings, this))
{
    // Closing the window (or File > Quit) asks what to do with the open workspaces first.
    m_window->addQuitMenu(m_quit->menu(m_window.get()));
    m_window->setSettings(settings);
    m_window->setQuitGuard(true);
    connect(m_window.get(), &MainWindow::quitRequested, this, [this] { requestQuit(); });
    connect(m_window.get(), &MainWindow::profileChosen, this, [this](const QString &id) { switchTo(id); });
    connect(m_window.get(), &MainWindow::profilesRequested, this, &Console::showProfiles);
    // View > Language: applied at once (every window retranslates itself) and remembered.
    m_window->setLanguageChoice(m_settings->value(QLatin1String(LanguageKey)).toString());
    connect(m_window.get(), &MainWindow::languageChosen, this, [this](const QString &code) {
        m_settings->setValue(QLatin1String(LanguageKey), code);
        useLanguage(localeFor(code));
        offerProfiles(m_window->profile()); // the built-in profile's name is the language's
        m_window->setLanguageChoice(code);
    });
    // The refresh interval picked in the window is the shown profile's from then on.
    connect(m_window.get(), &MainWindow::refreshIntervalChosen, this, [this](std::chrono::seconds interval) {
        if (auto profile = m_profiles.profile(m_window->profile()); profile && profile->refreshInterval != interval) {
            profile->refreshInterval = interval;
            if (auto saved = m_profiles.save(*profile); !saved)
                qCWarning(lcConsole).noquote() << "cannot remember the refresh interval:" << saved.error().message;
        }
    });
}

Console::~Console()
{
    // The window goes first: it points at the sessions' backends and managers.
    m_window.reset();
}

WorkspaceManager *Console::manager(const QString &profileId) const
{
    const auto it = m_sessions.find(profileId);
    return it == m_sessions.end() ? nullptr : it->second->manager.get();
}

void Console::offerProfiles(const QString &current)
{
    QList<std::pair<QString, QString>> entries;
    for (const Profile &profile : m_profiles.profiles())
        entries.append({profile.id, profile.displayName()});
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
                qCWarning(lcConsole).noquote()
                    << "the API key of" << imported->id << "is kept for this run only:" << stored.error().message;
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
    ProvisionOptions provision;
    bool canOpen = true;
    if (profile.kind == Profile::Kind::Local) {
        made->backend = std::make_unique<LocalBackend>(LocalOptions{profile.basedir, false});
    } else if (profile.kind == Profile::Kind::Docker) {
        // No engine, or one that refuses us, shows as the profile's problem when the listing fails.
        Docker::DockerOptions options;
        options.dockerHost = profile.dockerHost;
        options.image = profile.image.isEmpty() ? QString(Docker::DockerOptions::DefaultImage) : profile.image;
        options.basedir = profile.basedir;
        options.stopInsteadOfPause = profile.stopInsteadOfPause;
        made->backend = std::make_unique<Docker::DockerBackend>(options);
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
        made->key = apiKey.value_or(QByteArray());
        made->backend = std::make_unique<OpenSandbox::OpenSandboxBackend>(options);
        provision.bootstrap = OpenSandbox::agentscopeBootstrapCommands();
        provision.agentscopeBootstrap = true;
    }
    if (!profile.bootstrapFile.isEmpty()) {
        QFile file(profile.bootstrapFile);
        if (file.open(QIODevice::ReadOnly)) {
            const auto timeout = profile.kind == Profile::Kind::OpenSandbox ? OpenSandbox::BootstrapCommandTimeout
                                                                            : std::chrono::seconds(1800);
            provision.bootstrap = parseBootstrapCommands(QString::fromUtf8(file.readAll()), timeout);
            provision.agentscopeBootstrap = false; // the profile's own: Paddock's marker, no gateway script
        } else {
            // Opening a workspace without the bootstrap the user asked for would leave it half
            // made: the profile shows the problem and Open is not offered.
            made->problem = tr("Cannot read the bootstrap file %1: %2").arg(file.fileName(), file.errorString());
            canOpen = false;
        }
    }
    if (canOpen) {
        made->provisioner = std::make_unique<Provisioner>(made->backend.get(), m_logs.get(), provision);
        ManagerOptions managerOptions;
        managerOptions.isolation = profile.isolation;
        managerOptions.ttl = profile.ttl;
        managerOptions.sweepInterval = profile.sweepInterval;
        made->manager = std::make_unique<WorkspaceManager>(made->provisioner.get(), managerOptions);
        made->manager->start();
    }
    made->profile = profile;
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
    m_window->setManager(chosen->manager.get(), m_logs.get());
    m_window->setBackend(chosen->backend.get(), profile->id, chosen->problem);
}

void Console::showProfiles()
{
    if (auto *open = m_window->findChild<ProfilesDialog *>(); open) {
        open->raise();
        open->activateWindow();
        return;
    }
    auto *dialog = new ProfilesDialog(&m_profiles, m_secrets, &m_sessionKeys, m_window.get());
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->selectProfile(m_window->profile());
    // A changed profile is opened again with its new settings (and key).
    connect(dialog, &ProfilesDialog::profilesChanged, this, [this](const QStringList &ids) { reload(ids); });
    dialog->open();
}

QCoro::Task<void> Console::end(std::unique_ptr<Session> session, WorkspaceManager::StopMode mode)
{
    if (session->manager)
        co_await session->manager->stop(mode);
}

bool Console::stillServes(const Profile &was, const QByteArray &key, const Profile &now, const QByteArray &nowKey)
{
    Profile viewOnly = now;
    viewOnly.name = was.name;
    viewOnly.refreshInterval = was.refreshInterval;
    viewOnly.readOnly = was.readOnly;
    return viewOnly == was && key == nowKey;
}

QCoro::Task<void> Console::reload(QStringList changedIds)
{
    const QString shown = m_window->profile();
    for (const QString &id : std::as_const(changedIds)) {
        auto it = m_sessions.find(id);
        if (it == m_sessions.end())
            continue;
        const auto now = m_profiles.profile(id);
        if (now) {
            QString problem;
            QByteArray nowKey;
            if (now->kind == Profile::Kind::OpenSandbox) {
                const std::optional<QByteArray> stored = co_await key(id, &problem);
                if (stored)
                    nowKey = *stored;
            }
            it = m_sessions.find(id); // the map may have changed while the key was read
            if (it == m_sessions.end())
                continue;
            if (stillServes(it->second->profile, it->second->key, *now, nowKey))
                continue;
        }
        if (id == shown) {
            m_window->setManager(nullptr, nullptr);
            m_window->setBackend(nullptr, shown);
        }
        std::unique_ptr<Session> session = std::move(it->second);
        m_sessions.erase(it);
        co_await end(std::move(session));
    }
    const QString current = m_profiles.profile(shown) ? shown : m_profiles.profiles().constFirst().id;
    offerProfiles(current);
    if (changedIds.contains(current) || current != shown)
        co_await switchTo(current);
}

int Console::openWorkspaceCount() const
{
    int count = 0;
    for (const auto &[id, session] : m_sessions) {
        if (session->manager)
            count += int(session->manager->cachedCount() + session->manager->provisioningCount());
    }
    return count;
}

QCoro::Task<void> Console::requestQuit()
{
    const QPointer<Console> self(this);
    const std::optional<QuitController::Choice> choice = co_await m_quit->decide(m_window.get(), openWorkspaceCount());
    if (!self || !choice)
        co_return;
    Q_EMIT quitDecided(*choice == QuitController::Choice::Close ? WorkspaceManager::StopMode::Close
                                                                : WorkspaceManager::StopMode::LeaveRunning);
}

void Console::quitOnSignal(int signal)
{
    // As before this console asked: a signal comes from a script or a session ending, with
    // nobody to answer. The open workspaces are closed, as AgentScope's manager does.
    qCInfo(lcConsole).noquote() << QStringLiteral("signal %1: quitting without asking; closing (pausing) the %2 "
                                                  "workspace(s) this console opened")
                                       .arg(signal)
                                       .arg(openWorkspaceCount());
    Q_EMIT quitDecided(WorkspaceManager::StopMode::Close);
}

QCoro::Task<void> Console::shutdown(WorkspaceManager::StopMode mode)
{
    if (mode == WorkspaceManager::StopMode::LeaveRunning && openWorkspaceCount() > 0)
        qCInfo(lcConsole).noquote() << "quitting; leaving" << openWorkspaceCount() << "open workspace(s) running";
    m_window->setManager(nullptr, nullptr);
    m_window->setBackend(nullptr, m_window->profile());
    while (!m_sessions.empty()) {
        auto it = m_sessions.begin();
        std::unique_ptr<Session> ended = std::move(it->second);
        m_sessions.erase(it);
        co_await end(std::move(ended), mode);
    }
}
