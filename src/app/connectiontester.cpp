#include "connectiontester.h"

#include "backend.h"
#include "backendregistry.h"
#include "colorscheme.h"
#include "elidedlabel.h"
#include "secretstore.h"

#include <QCoroTask>

#include <QEvent>
#include <QHBoxLayout>
#include <QLoggingCategory>
#include <QPointer>
#include <QPushButton>

#include <memory>

using namespace Paddock;

Q_LOGGING_CATEGORY(lcConnectionTest, "paddock.app.connectiontest", QtInfoMsg)

ConnectionTester::ConnectionTester(SecretStore *secrets, SecretStore *sessionKeys, QWidget *parent)
    : QWidget(parent)
    , m_secrets(secrets)
    , m_sessionKeys(sessionKeys)
    , m_button(new QPushButton(this))
    , m_result(new ElidedLabel(this))
{
    setObjectName(QStringLiteral("connectionTester"));
    m_button->setObjectName(QStringLiteral("testConnectionButton"));
    m_result->setObjectName(QStringLiteral("testConnectionResult"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_button);
    layout->addWidget(m_result, 1);
    connect(m_button, &QPushButton::clicked, this, [this] {
        if (m_running)
            cancel();
        else
            run();
    });
    retranslate();
}

ConnectionTester::~ConnectionTester() = default;

QString ConnectionTester::resultText() const
{
    return m_result->text();
}

void ConnectionTester::reset()
{
    ++m_generation;
    setRunning(false);
    showResult(QString(), false);
}

void ConnectionTester::cancel()
{
    if (!m_running)
        return;
    ++m_generation;
    setRunning(false);
    showResult(tr("Test cancelled."), false);
}

void ConnectionTester::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void ConnectionTester::retranslate()
{
    m_button->setText(m_running ? tr("Cancel Test") : tr("T&est Connection"));
    m_button->setToolTip(tr("List the workspaces once with the profile as the form shows it, without saving it"));
}

void ConnectionTester::setRunning(bool running)
{
    m_running = running;
    retranslate();
}

void ConnectionTester::showResult(const QString &text, bool problem)
{
    m_problem = problem;
    m_result->setText(text); // one line; the whole text in its tooltip
    QPalette resultPalette = palette();
    if (problem)
        resultPalette.setColor(QPalette::WindowText, Tones::error(resultPalette));
    m_result->setPalette(problem ? resultPalette : QPalette());
}

QCoro::Task<void> ConnectionTester::run()
{
    if (!m_source)
        co_return;
    const quint64 generation = ++m_generation;
    const Request request = m_source();
    const BackendFactory *factory = BackendRegistry::instance().find(request.profile.kind);
    if (!factory) {
        showResult(tr("This kind of backend is not available in this build."), true);
        Q_EMIT finished(false);
        co_return;
    }
    // The form's problems first: a profile that could not be saved is not tried.
    QList<FieldError> problems = validateProfile(request.profile);
    if (factory->validate)
        problems += factory->validate(request.profile);
    if (!problems.isEmpty()) {
        showResult(tr("Not tested: %1").arg(problems.constFirst().message), true);
        Q_EMIT finished(false);
        co_return;
    }
    setRunning(true);
    showResult(tr("Connecting…"), false);
    const QPointer<ConnectionTester> self(this);
    QByteArray key = request.typedKey;
    if (factory->usesKey && key.isEmpty() && !request.keyAccount.isEmpty()) {
        // As the console does: a key kept for this session before the keychain's.
        SecretStore *sessionKeys = m_sessionKeys;
        SecretStore *secrets = m_secrets;
        const QString account = request.keyAccount;
        const Result<std::optional<QByteArray>> kept = co_await sessionKeys->read(account);
        if (!self || generation != m_generation)
            co_return;
        if (kept && kept->has_value()) {
            key = **kept;
        } else {
            const Result<std::optional<QByteArray>> stored = co_await secrets->read(account);
            if (!self || generation != m_generation)
                co_return;
            if (!stored) {
                setRunning(false);
                showResult(tr("The key could not be read: %1").arg(stored.error().message), true);
                Q_EMIT finished(false);
                co_return;
            }
            if (stored->has_value())
                key = **stored;
        }
    }
    // No key typed or stored: tried without one, as the console does (an OpenSandbox server
    // may not ask for one); a refusal then says that there was none.
    const bool keyless = factory->usesKey && key.isEmpty();
    // The backend lives in this frame until its listing returns, even when the test is cancelled
    // or the dialog closes meanwhile.
    const BackendContext context;
    BackendSetup setup = factory->create(request.profile, key, context);
    key.fill('\0');
    const std::unique_ptr<Backend> backend = std::move(setup.backend);
    qCInfo(lcConnectionTest).noquote() << "testing a" << factory->id << "profile";
    const ListFilter filter;
    const Result<QList<SandboxInfo>> listed = co_await backend->list(filter);
    if (!self || generation != m_generation)
        co_return;
    setRunning(false);
    if (!listed) {
        qCInfo(lcConnectionTest).noquote() << "the test failed:" << listed.error().message;
        showResult(
            keyless
                ? tr("Failed without a key (none is typed or stored for this profile): %1").arg(listed.error().message)
                : tr("Failed: %1").arg(listed.error().message),
            true);
        Q_EMIT finished(false);
        co_return;
    }
    showResult(tr("Connected: %n workspace(s)", nullptr, int(listed->size())), false);
    Q_EMIT finished(true);
}
