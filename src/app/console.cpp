#include "console.h"

#include "allprofiles.h"
#include "backendregistry.h"
#include "backends/e2b/existingkey.h"
#include "bootstraplog.h"
#include "broadcast.h"
#include "consoleevents.h"
#include "e2bkeyoffer.h"
#include "eventhistory.h"
#include "expiryfeed.h"
#include "i18n.h"
#include "mainwindow.h"
#include "notificationcenter.h"
#include "notifier.h"
#include "profilesdialog.h"
#include "profilesession.h"
#include "quitcontroller.h"
#include "traycontroller.h"
#include "workspacemanager.h"

#include <QCoroTask>

#include <QDir>
#include <QFile>
#include <QLoggingCategory>
#include <QPointer>
#include <QProcessEnvironment>
#include <QSettings>
#include <QStatusBar>

#include <vector>

Q_LOGGING_CATEGORY(lcConsole, "paddock.app.console", QtInfoMsg)

using namespace Paddock;

namespace {

constexpr auto CurrentProfileKey = "currentProfile";
constexpr auto LanguageKey = "language"; // a language code; empty or absent: the system's
// The refresh interval of "All profiles" (seconds; each profile keeps its own for itself).
constexpr auto AllProfilesIntervalKey = "allProfiles/refreshInterval";

} // namespace

Console::Console(QSettings *settings, SecretStore *secrets, const QString &logRoot, QObject *parent)
    : QObject(parent)
    , m_settings(settings)
    , m_secrets(secrets)
    , m_profiles(settings)
    , m_logs(std::make_unique<BootstrapLogStore>(logRoot))
    , m_events(new ConsoleEvents(this))
    , m_history(std::make_unique<EventHistory>(EventHistory::pathBeside(m_logs->root())))
    , m_window(std::make_unique<MainWindow>())
    , m_quit(new QuitController(settings, this))
    , m_notifications(new NotificationCenter(this))
    , m_tray(nullptr)
    , m_expiryFeed(new ExpiryFeed(m_notifications->expiry(), this))
{
    // Every event is kept (the history reads what earlier runs kept, on a worker thread) and shown.
    connect(m_events, &ConsoleEvents::occurred, m_history.get(), &EventHistory::append);
    // A workspace gone from a listing behind the console's back is notified as lost (the
    // session's own Lost reaches the notifications straight from the session).
    connect(m_events, &ConsoleEvents::occurred, m_notifications, [this](const ConsoleEvent &event) {
        if (event.kind == ConsoleEvent::Kind::Vanished)
            m_notifications->workspacesLost(event.profileId, {event.workspaceId},
                                            NotificationEvent::LostReason::DeletedElsewhere);
        else if (event.kind == ConsoleEvent::Kind::Expired)
            m_notifications->workspacesLost(event.profileId, {event.workspaceId},
                                            NotificationEvent::LostReason::Expired);
    });
    m_window->setEvents(m_events, m_history.get());
    m_history->load();
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
        for (const Profile &profile : m_profiles.profiles())
            m_notifications->setProfile(profile); // (and the notifications' name of it)
        if (m_window->showsAllProfiles())
            switchToAll(); // (and its group's; the sessions stay)
        m_window->setLanguageChoice(code);
    });
    // The refresh interval picked in the window is the shown profile's from then on.
    connect(m_window.get(), &MainWindow::refreshIntervalChosen, this, [this](std::chrono::seconds interval) {
        if (m_window->showsAllProfiles()) {
            m_settings->setValue(QLatin1String(AllProfilesIntervalKey), qint64(interval.count()));
            return;
        }
        if (auto profile = m_profiles.profile(m_window->profile()); profile && profile->refreshInterval != interval) {
            profile->refreshInterval = interval;
            if (auto saved = m_profiles.save(*profile); !saved)
                qCWarning(lcConsole).noquote() << "cannot remember the refresh interval:" << saved.error().message;
        }
    });
    // Notifications: the thresholds the tree's rows cross, the sessions' events; a click shows
    // the workspaces. What cannot be shown (no service, no tray) is said once, here too.
    m_tray = new TrayController(m_window.get(), m_notifications->expiry(), settings, this);
    m_notifications->watch(m_window->model());
    for (const Profile &profile : m_profiles.profiles())
        m_notifications->setProfile(profile);
    connect(m_notifications, &NotificationCenter::showWorkspaces, this, &Console::showWorkspaces);
    connect(m_notifications, &NotificationCenter::statusMessage, this,
            [this](const QString &message) { m_window->statusBar()->showMessage(message); });
    m_notifications->notifier()->setTrayProvider([this] { return m_tray->iconForMessages(); });
    m_notifications->notifier()->start();
    // The open profiles the window does not show are listed in the background for their
    // expiries (the tree gives the watch the rows of those it shows).
    m_expiryFeed->setSessions([this] {
        QList<ProfileSession *> sessions;
        for (const auto &[id, session] : m_sessions)
            sessions.append(session.get());
        return sessions;
    });
    m_expiryFeed->setShown([this](const QString &profileId) {
        return m_window && (m_window->showsAllProfiles() || m_window->profile() == profileId);
    });
    m_expiryFeed->start();
}

void Console::showWorkspaces(const QString &profileId, const QStringList &workspaceIds)
{
    m_window->showNormal();
    m_window->raise();
    m_window->activateWindow();
    // Selected once the profile shows and they are listed.
    m_window->selectWorkspaces(profileId, workspaceIds);
    // In "All profiles" they are shown already, under their profile's group.
    if (profileId != m_window->profile() && !m_window->showsAllProfiles() && m_profiles.profile(profileId)) {
        offerProfiles(profileId);
        switchTo(profileId);
    }
}

Console::~Console()
{
    // The window goes first: it points at the sessions' backends and managers.
    m_window.reset();
}

ProfileSession *Console::session(const QString &profileId) const
{
    const auto it = m_sessions.find(profileId);
    return it == m_sessions.end() ? nullptr : it->second.get();
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
    offerExistingE2BKey(env);
    QString current = m_settings->value(QLatin1String(CurrentProfileKey)).toString();
    if (!m_profiles.profile(current) && !(current == AllProfiles::id() && m_profiles.profiles().size() > 1))
        current = m_profiles.profiles().constFirst().id;
    offerProfiles(current);
    co_await switchTo(current);
}

void Console::offerExistingE2BKey(const QProcessEnvironment &env)
{
    // An E2B API key the user already has (E2B_API_KEY, E2B's CLI's file), while no E2B profile
    // exists and the offer was not declined. The key itself is never logged.
    if (!E2BKeyOffer::wanted(m_profiles, *m_settings))
        return;
    const QString home = QDir::homePath();
    std::optional<E2B::ExistingKey> found = E2B::findExistingKey(env, home);
    if (!found)
        return;
    if (!found->configProblem.isEmpty())
        qCWarning(lcConsole).noquote() << "E2B's CLI configuration:" << found->configProblem;
    qCInfo(lcConsole).noquote() << "offering an E2B profile for the API key found in"
                                << (found->inEnvironment ? QStringLiteral("E2B_API_KEY") : found->configPath);
    E2BKeyOffer *offer =
        E2BKeyOffer::addTo(m_window.get(), std::move(*found), &m_profiles, m_secrets, &m_sessionKeys, m_settings, home);
    if (!offer)
        return;
    // The new profile shows at once.
    connect(offer, &E2BKeyOffer::profileAdded, this, [this](const QString &id) {
        offerProfiles(id);
        switchTo(id);
    });
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

QCoro::Task<ProfileSession *> Console::sessionFor(Profile profile)
{
    if (m_quitting)
        co_return nullptr; // nothing new once the console is shutting down
    if (const auto it = m_sessions.find(profile.id); it != m_sessions.end())
        co_return it->second.get();
    if (const auto making = m_making.find(profile.id); making != m_making.end()) {
        // Chosen again while its key is read: the same session, made once.
        const auto pending = making->second;
        co_return co_await pending->wait();
    }
    const auto pending = std::make_shared<Broadcast<ProfileSession *>>();
    m_making[profile.id] = pending;
    const QPointer<Console> self(this);
    const BackendFactory *factory = BackendRegistry::instance().find(profile.kind);
    QString problem;
    QByteArray apiKey;
    if (factory && factory->usesKey) {
        // Saved meanwhile (a new key, say: reload() counts it): the key is read again.
        for (quint64 saved = ~quint64(0); saved != m_saves[profile.id];) {
            saved = m_saves[profile.id];
            problem.clear();
            apiKey.clear();
            if (const std::optional<QByteArray> read = co_await key(profile.id, &problem))
                apiKey = *read;
            if (!self)
                co_return nullptr;
        }
    }
    m_making.erase(profile.id);
    // The profile may have changed or gone while its key was read: what is made is what it is now.
    const auto now = m_profiles.profile(profile.id);
    if (!now || m_quitting) {
        pending->set(nullptr);
        co_return nullptr;
    }
    auto made = std::make_unique<ProfileSession>(*now, apiKey, m_logs.get());
    if (!problem.isEmpty())
        made->setProblem(made->problem().isEmpty() ? problem : problem + u'\n' + made->problem());
    ProfileSession *raw = made.get();
    m_events->attach(raw); // its events join the stream; its first listing is a baseline
    m_notifications->observe(raw);
    m_sessions[now->id] = std::move(made);
    pending->set(raw);
    co_return raw;
}

QCoro::Task<void> Console::switchToAll()
{
    // Every profile's session, made at once (their keys read together): a slow keychain or a
    // profile that cannot be opened holds back no other.
    m_wanted = AllProfiles::id();
    const QPointer<Console> self(this);
    const QList<Profile> profiles = m_profiles.profiles();
    std::vector<QCoro::Task<ProfileSession *>> making;
    making.reserve(size_t(profiles.size()));
    for (const Profile &profile : profiles)
        making.push_back(sessionFor(profile));
    QList<AllProfiles::Entry> entries;
    for (qsizetype i = 0; i < profiles.size(); ++i) {
        ProfileSession *made = co_await making[size_t(i)];
        if (!self)
            co_return;
        AllProfiles::Entry entry;
        entry.profileId = profiles.at(i).id;
        entry.name = profiles.at(i).displayName();
        entry.session = made;
        entries.append(entry);
    }
    if (m_wanted != AllProfiles::id() || m_quitting)
        co_return;
    // Sessions made meanwhile for a profile saved again are the ones that count.
    for (AllProfiles::Entry &entry : entries)
        entry.session = session(entry.profileId);
    m_settings->setValue(QLatin1String(CurrentProfileKey), AllProfiles::id());
    m_window->setReadOnly(false); // each read-only profile's rows are offered no change
    m_window->setRefreshInterval(
        std::chrono::seconds(m_settings->value(QLatin1String(AllProfilesIntervalKey), 15).toLongLong()));
    m_window->setAllProfiles(entries);
}

QCoro::Task<void> Console::switchTo(QString profileId)
{
    if (profileId == AllProfiles::id()) {
        co_await switchToAll();
        co_return;
    }
    const auto profile = m_profiles.profile(profileId);
    if (!profile)
        co_return;
    // The last choice wins: a session made slowly (a keychain read) for an earlier choice is kept
    // for when that profile is shown again, but does not show now.
    m_wanted = profile->id;
    const QPointer<Console> self(this);
    ProfileSession *chosen = co_await sessionFor(*profile);
    if (!self || m_wanted != profile->id || m_quitting)
        co_return;
    m_settings->setValue(QLatin1String(CurrentProfileKey), profile->id);
    m_window->setReadOnly(profile->readOnly);
    m_window->setRefreshInterval(profile->refreshInterval);
    m_window->setSession(chosen, profile->id);
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

QCoro::Task<void> Console::end(std::unique_ptr<ProfileSession> session, WorkspaceManager::StopMode mode)
{
    // Held until it is freed: quitting waits for it.
    const auto hold = m_ending.hold();
    if (m_window && m_window->session() == session.get())
        m_window->setSession(nullptr, session->profileId());
    if (m_window)
        m_window->forgetSession(session.get()); // "All profiles" no longer uses it
    co_await session->shutdown(mode);
    session.reset(); // nothing runs in it any more
}

bool Console::stillServes(const Profile &was, const QByteArray &key, const Profile &now, const QByteArray &nowKey)
{
    Profile viewOnly = now;
    viewOnly.name = was.name;
    viewOnly.refreshInterval = was.refreshInterval;
    viewOnly.readOnly = was.readOnly;
    viewOnly.notifyBeforeExpiry = was.notifyBeforeExpiry;
    viewOnly.muteNotifications = was.muteNotifications;
    return viewOnly == was && key == nowKey;
}

QCoro::Task<void> Console::reload(QStringList changedIds)
{
    const QPointer<Console> self(this);
    const QString shown = m_window->profile();
    for (const QString &id : std::as_const(changedIds)) {
        ++m_saves[id]; // a session being made reads its key again
        if (const auto profile = m_profiles.profile(id))
            m_notifications->setProfile(*profile); // its thresholds, mute and name
    }
    for (const QString &id : std::as_const(changedIds)) {
        auto it = m_sessions.find(id);
        if (it == m_sessions.end())
            continue;
        const auto now = m_profiles.profile(id);
        if (now) {
            QString problem;
            QByteArray nowKey;
            if (const BackendFactory *factory = BackendRegistry::instance().find(now->kind);
                factory && factory->usesKey) {
                const std::optional<QByteArray> stored = co_await key(id, &problem);
                if (!self)
                    co_return;
                if (stored)
                    nowKey = *stored;
            }
            it = m_sessions.find(id); // the map may have changed while the key was read
            if (it == m_sessions.end())
                continue;
            if (stillServes(it->second->profile(), it->second->key(), *now, nowKey))
                continue;
        }
        std::unique_ptr<ProfileSession> session = std::move(it->second);
        m_sessions.erase(it);
        co_await end(std::move(session));
        if (!self)
            co_return;
    }
    if (m_quitting)
        co_return;
    // The profile to show is the one chosen last (the user may have switched while sessions
    // ended), if it still exists.
    const QString wanted = m_wanted.isEmpty() ? shown : m_wanted;
    if (wanted == AllProfiles::id() && m_profiles.profiles().size() > 1) {
        // Every profile again: the new ones added, the removed ones gone, the saved ones reopened.
        offerProfiles(wanted);
        co_await switchToAll();
        co_return;
    }
    const QString current = m_profiles.profile(wanted) ? wanted : m_profiles.profiles().constFirst().id;
    offerProfiles(current);
    if (changedIds.contains(current) || current != m_window->profile())
        co_await switchTo(current);
}

int Console::openWorkspaceCount() const
{
    int count = 0;
    for (const auto &[id, session] : m_sessions)
        count += session->openCount();
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
    m_quitting = true;
    m_window->setSession(nullptr, m_window->profile());
    // Every session shuts down at once (each closes its workspaces in parallel); the console is
    // done when each has freed what it held, those ended earlier (a changed profile) included.
    std::vector<QCoro::Task<void>> ending;
    while (!m_sessions.empty()) {
        auto it = m_sessions.begin();
        std::unique_ptr<ProfileSession> ended = std::move(it->second);
        m_sessions.erase(it);
        ending.push_back(end(std::move(ended), mode));
    }
    for (auto &task : ending)
        co_await task;
    co_await m_ending.idle();
}
