#include "e2bkeyoffer.h"

#include "backends/e2b/e2bbackend.h"
#include "profile.h"
#include "secretstore.h"

#include <QCoroTask>

#include <QBoxLayout>
#include <QDir>
#include <QEvent>
#include <QLabel>
#include <QLoggingCategory>
#include <QMainWindow>
#include <QPointer>
#include <QPushButton>
#include <QSettings>

Q_LOGGING_CATEGORY(lcKeyOffer, "paddock.app.e2bkeyoffer", QtInfoMsg)

using namespace Paddock;

namespace {

constexpr auto DeclinedKey = "offers/e2bKeyDeclined";

} // namespace

E2BKeyOffer::E2BKeyOffer(E2B::ExistingKey found, ProfileStore *profiles, SecretStore *secrets, SecretStore *sessionKeys,
                         QSettings *settings, const QString &home, QWidget *parent)
    : QFrame(parent)
    , m_found(std::move(found))
    , m_profiles(profiles)
    , m_secrets(secrets)
    , m_sessionKeys(sessionKeys)
    , m_settings(settings)
    , m_home(QDir::cleanPath(home))
    , m_text(new QLabel(this))
    , m_addButton(new QPushButton(this))
    , m_notNowButton(new QPushButton(this))
    , m_neverButton(new QPushButton(this))
    , m_closeButton(new QPushButton(this))
{
    setObjectName(QStringLiteral("e2bKeyOffer"));
    setFrameShape(QFrame::StyledPanel);
    setStyleSheet(QStringLiteral("QFrame#e2bKeyOffer { background: #e0f2fe; border: 1px solid #0284c7; "
                                 "border-radius: 3px; } QFrame#e2bKeyOffer QLabel { color: #0c4a6e; }"));
    m_text->setObjectName(QStringLiteral("e2bKeyOfferText"));
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::PlainText);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_addButton->setObjectName(QStringLiteral("e2bKeyOfferAdd"));
    m_notNowButton->setObjectName(QStringLiteral("e2bKeyOfferNotNow"));
    m_neverButton->setObjectName(QStringLiteral("e2bKeyOfferNever"));
    m_closeButton->setObjectName(QStringLiteral("e2bKeyOfferClose"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 6);
    layout->addWidget(m_text, 1);
    for (QPushButton *button : {m_addButton, m_notNowButton, m_neverButton, m_closeButton})
        layout->addWidget(button, 0, Qt::AlignVCenter);
    connect(m_addButton, &QPushButton::clicked, this, [this] { addProfile(); });
    connect(m_notNowButton, &QPushButton::clicked, this, &E2BKeyOffer::notNow);
    connect(m_neverButton, &QPushButton::clicked, this, &E2BKeyOffer::neverAsk);
    connect(m_closeButton, &QPushButton::clicked, this, &E2BKeyOffer::notNow);
    retranslate();
}

E2BKeyOffer::~E2BKeyOffer()
{
    m_found.key.fill('\0'); // not left in freed memory
}

bool E2BKeyOffer::wanted(const ProfileStore &profiles, const QSettings &settings)
{
    if (settings.value(QLatin1String(DeclinedKey)).toBool())
        return false;
    const QList<Profile> all = profiles.profiles();
    return std::none_of(all.cbegin(), all.cend(),
                        [](const Profile &profile) { return profile.kind == Profile::Kind::E2B; });
}

E2BKeyOffer *E2BKeyOffer::addTo(QMainWindow *window, E2B::ExistingKey found, ProfileStore *profiles,
                                SecretStore *secrets, SecretStore *sessionKeys, QSettings *settings,
                                const QString &home)
{
    auto *layout = qobject_cast<QBoxLayout *>(window->centralWidget()->layout());
    if (!layout)
        return nullptr;
    auto *offer =
        new E2BKeyOffer(std::move(found), profiles, secrets, sessionKeys, settings, home, window->centralWidget());
    layout->insertWidget(0, offer);
    offer->show(); // at once, not at the layout's next turn: the window may be showing already
    return offer;
}

QCoro::Task<void> E2BKeyOffer::addProfile()
{
    if (m_stage != Stage::Offered)
        co_return;
    m_stage = Stage::Adding;
    retranslate();

    Profile profile;
    profile.kind = Profile::Kind::E2B;
    profile.name = m_found.teamName.isEmpty() ? tr("E2B") : tr("E2B (%1)").arg(m_found.teamName);
    profile.id = m_profiles->newId(QStringLiteral("e2b"));
    profile.domain = m_found.domain;
    profile.apiUrl = m_found.apiUrl;
    profile.sandboxUrl = m_found.sandboxUrl;
    profile.sandboxTimeout = E2B::DefaultTimeout; // AgentScope's
    QList<FieldError> errors;
    if (const Result<> saved = m_profiles->save(profile, &errors); !saved) {
        // An E2B_DOMAIN (or URL) that is no good: nothing is made, and the banner says why.
        QStringList problems;
        for (const FieldError &error : std::as_const(errors))
            problems.append(error.message);
        m_problem = problems.isEmpty() ? saved.error().message : problems.join(u' ');
        m_stage = Stage::Failed;
        retranslate();
        co_return;
    }
    m_profileId = profile.id;
    m_profileName = profile.displayName();
    qCInfo(lcKeyOffer).noquote() << "made the E2B profile" << profile.id << "from the key found in"
                                 << (m_found.inEnvironment ? "E2B_API_KEY" : "E2B's CLI configuration");

    // The key goes to the keychain, else stays in memory for this run: never a file.
    const QPointer<E2BKeyOffer> self(this);
    SecretStore *secrets = m_secrets;
    SecretStore *sessionKeys = m_sessionKeys;
    const QString id = profile.id;
    const QByteArray key = m_found.key;
    const Result<> stored = co_await secrets->write(id, key);
    if (!stored) {
        const Result<> kept = co_await sessionKeys->write(id, key);
        Q_UNUSED(kept); // the memory store does not fail
        qCWarning(lcKeyOffer).noquote() << "the API key of" << id
                                        << "is kept for this run only:" << stored.error().message;
    }
    if (!self)
        co_return;
    m_found.key.fill('\0');
    m_found.key.clear();
    m_problem = stored ? QString() : stored.error().message;
    m_stage = stored ? Stage::Added : Stage::AddedForThisRun;
    retranslate();
    Q_EMIT profileAdded(id);
}

void E2BKeyOffer::notNow()
{
    if (m_stage == Stage::Adding)
        return;
    hide();
    deleteLater();
}

void E2BKeyOffer::neverAsk()
{
    if (m_stage != Stage::Offered)
        return;
    m_settings->setValue(QLatin1String(DeclinedKey), true);
    qCInfo(lcKeyOffer) << "the offer of an existing E2B API key is declined for good";
    hide();
    deleteLater();
}

void E2BKeyOffer::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QFrame::changeEvent(event);
}

QString E2BKeyOffer::displayPath(const QString &path) const
{
    const QString clean = QDir::cleanPath(path);
    if (!m_home.isEmpty() && clean.startsWith(m_home + u'/'))
        return QStringLiteral("~") + clean.mid(m_home.size());
    return QDir::toNativeSeparators(clean);
}

QString E2BKeyOffer::where() const
{
    const QString file = displayPath(m_found.configPath);
    const QString team = m_found.teamName.isEmpty() ? QString() : tr(" (team %1)").arg(m_found.teamName);
    if (m_found.inEnvironment && m_found.inConfigFile)
        return tr("the environment variable E2B_API_KEY and in %1%2").arg(file, team);
    if (m_found.inEnvironment)
        return tr("the environment variable E2B_API_KEY");
    return file + team;
}

QString E2BKeyOffer::plainCopies() const
{
    const QString file = displayPath(m_found.configPath);
    if (m_found.inEnvironment && m_found.inConfigFile)
        return tr("The plain-text copies in %1 and in the environment variable E2B_API_KEY are still there: E2B's "
                  "CLI keeps its key in that file, and Paddock did not change it.")
            .arg(file);
    if (m_found.inEnvironment)
        return tr("The plain-text copy in the environment variable E2B_API_KEY is still there (wherever it is set, "
                  "such as a shell's startup file); Paddock does not need it any more.");
    return tr("The plain-text copy in %1 is still there: E2B's CLI keeps its key in that file, and Paddock did not "
              "change it.")
        .arg(file);
}

void E2BKeyOffer::retranslate()
{
    m_addButton->setText(tr("&Add Profile"));
    m_addButton->setToolTip(tr("Make an E2B profile with this key, the key kept in the system keychain"));
    m_notNowButton->setText(tr("Not &Now"));
    m_notNowButton->setToolTip(tr("Ask again when Paddock starts next"));
    m_neverButton->setText(tr("&Don't Ask Again"));
    m_neverButton->setToolTip(tr("Never offer an existing E2B API key again"));
    m_closeButton->setText(tr("&Close"));
    const bool offered = m_stage == Stage::Offered || m_stage == Stage::Adding;
    m_addButton->setVisible(offered);
    m_notNowButton->setVisible(offered);
    m_neverButton->setVisible(offered);
    m_closeButton->setVisible(!offered);
    for (QPushButton *button : {m_addButton, m_notNowButton, m_neverButton})
        button->setEnabled(m_stage == Stage::Offered);

    QString text;
    switch (m_stage) {
    case Stage::Offered:
    case Stage::Adding:
        text = tr("Found an E2B API key in %1. Add an E2B profile?").arg(where());
        if (!m_found.keyProblem.isEmpty())
            text += u'\n' + tr("⚠ It does not look like an E2B API key: %1").arg(m_found.keyProblem);
        if (m_stage == Stage::Adding)
            text += u'\n' + tr("Storing the API key in the system keychain…");
        break;
    case Stage::Added:
        text = tr("Added the E2B profile \"%1\"; its API key is in the system keychain.").arg(m_profileName) + u' '
            + plainCopies();
        break;
    case Stage::AddedForThisRun:
        text = tr("Added the E2B profile \"%1\", but the system keychain is unavailable, so its API key is kept in "
                  "memory only until Paddock quits.")
                   .arg(m_profileName)
            + u' ' + m_problem + u' ' + plainCopies();
        break;
    case Stage::Failed:
        text = tr("No E2B profile was made: %1").arg(m_problem);
        break;
    }
    m_text->setText(text);
    setAccessibleName(tr("E2B API key found"));
    setAccessibleDescription(text);
}
