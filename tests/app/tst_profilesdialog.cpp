// The Profiles dialog, offscreen, driven through its widgets: adding an OpenSandbox profile, every
// invalid field shown next to itself with nothing written, keys going to the keychain only (or to
// the session store, with a warning, when the keychain is unavailable), removing a profile with
// its key, the Local profile staying, the unsaved-changes question, and the keyboard. Kubernetes
// profiles: their rows, the contexts of the kubeconfig named (or of the default ones), a kubeconfig
// that does not parse, and the token that replaces the kubeconfig's credentials.

#include "backendregistry.h"
#include "backends/kubernetes/kubeconfig.h"
#include "connectiontester.h"
#include "elidedlabel.h"
#include "fakee2bprocess.h"
#include "fakeopensandboxprocess.h"
#include "i18n.h"
#include "profile.h"
#include "profilesdialog.h"
#include "secretstore.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#include <QCoroTimer>
#endif

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QLabel>
#include <QLayout>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QScopeGuard>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <random>

using namespace Paddock;

namespace {

// A keychain for tests: in memory, answering on a later turn of the event loop as a real one
// does, counting writes, and failing on demand as an unavailable keychain does.
class TestSecretStore final : public SecretStore
{
    // Counts the calls in flight, so a test ends only after the last one answered.
    struct InFlight
    {
        explicit InFlight(int &count)
            : count(count)
        {
            ++count;
        }
        ~InFlight() { --count; }
        Q_DISABLE_COPY_MOVE(InFlight)
        int &count;
    };

public:
    static QString reason() { return QStringLiteral("No keychain could be reached (test keychain is off)."); }

    QCoro::Task<Result<std::optional<QByteArray>>> read(QString account) override
    {
        const InFlight inFlight(pending);
        const std::chrono::milliseconds later{0};
        co_await QCoro::sleepFor(later);
        if (unavailable)
            co_return fail(Error::unsupported(reason()));
        std::optional<QByteArray> secret;
        if (secrets.contains(account))
            secret = secrets.value(account);
        co_return secret;
    }

    QCoro::Task<Result<>> write(QString account, QByteArray secret) override
    {
        const InFlight inFlight(pending);
        const std::chrono::milliseconds later{0};
        co_await QCoro::sleepFor(later);
        ++writes;
        if (unavailable)
            co_return fail(Error::unsupported(reason()));
        secrets.insert(account, secret);
        co_return Result<>{};
    }

    QCoro::Task<Result<>> remove(QString account) override
    {
        const InFlight inFlight(pending);
        const std::chrono::milliseconds later{0};
        co_await QCoro::sleepFor(later);
        if (unavailable || failRemove)
            co_return fail(Error::unsupported(reason()));
        secrets.remove(account);
        co_return Result<>{};
    }

    bool unavailable = false; // every call fails
    bool failRemove = false;
    int writes = 0;
    int pending = 0;
    QHash<QString, QByteArray> secrets;
};

struct Fixture
{
    QTemporaryDir dir;
    QString path = dir.filePath(QStringLiteral("paddock.ini"));
    QSettings settings{path, QSettings::IniFormat};
    ProfileStore store{&settings};
    TestSecretStore keychain;
    MemorySecretStore sessionKeys;

    // The dialog (declared after the fixture) is gone; its last keychain calls still answer.
    ~Fixture()
    {
        if (!QTest::qWaitFor([this] { return keychain.pending == 0; }))
            qWarning("a keychain call never answered");
    }

    QByteArray fileBytes() const
    {
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    }
    // The profiles as a new start of the console reads them from the file.
    std::optional<Profile> reread(const QString &id) const
    {
        QSettings again(path, QSettings::IniFormat);
        return ProfileStore(&again).profile(id);
    }
    std::optional<QByteArray> sessionKey(const QString &id)
    {
        const auto kept = QCoro::waitFor(sessionKeys.read(id));
        return kept ? *kept : std::nullopt;
    }
    // An OpenSandbox profile saved before the dialog opens.
    void addStaging()
    {
        Profile staging;
        staging.id = QStringLiteral("staging");
        staging.name = QStringLiteral("Staging");
        staging.kind = Profile::Kind::OpenSandbox;
        staging.domain = QStringLiteral("staging.example.com");
        QVERIFY(store.save(staging));
    }
};

template<typename T> T *find(const QObject &parent, const char *name)
{
    return parent.findChild<T *>(QLatin1String(name));
}

QLabel *errorOf(const QObject &dialog, const char *field)
{
    return dialog.findChild<QLabel *>(QLatin1String(field) + QStringLiteral("Error"));
}

QPushButton *saveButton(const QObject &dialog)
{
    return find<QDialogButtonBox>(dialog, "buttonBox")->button(QDialogButtonBox::Save);
}

void retype(QLineEdit *edit, const QString &text)
{
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Backspace);
    QTest::keyClicks(edit, text);
}

// The form's rows, top to bottom: the label (if any), the field, and the backends it is for.
struct FormRow
{
    const char *label;
    const char *field;
    QList<Profile::Kind> kinds;
};
const QList<Profile::Kind> AllKinds{Profile::Kind::Local, Profile::Kind::OpenSandbox, Profile::Kind::Docker,
                                    Profile::Kind::Kubernetes, Profile::Kind::E2B};
const QList<FormRow> FormRows{
    {"nameLabel", "nameEdit", AllKinds},
    {"kindLabel", "kindBox", AllKinds},
    {"dockerHostLabel", "dockerHostEdit", {Profile::Kind::Docker}},
    {"domainLabel", "domainEdit", {Profile::Kind::OpenSandbox, Profile::Kind::E2B}},
    {"apiUrlLabel", "apiUrlEdit", {Profile::Kind::E2B}},
    {"sandboxUrlLabel", "sandboxUrlEdit", {Profile::Kind::E2B}},
    {"protocolLabel", "protocolBox", {Profile::Kind::OpenSandbox}},
    {nullptr, "useServerProxyBox", {Profile::Kind::OpenSandbox}},
    {"kubeconfigLabel", "kubeconfigEdit", {Profile::Kind::Kubernetes}},
    {"kubeContextLabel", "kubeContextBox", {Profile::Kind::Kubernetes}},
    {"kubeNamespaceLabel", "kubeNamespaceEdit", {Profile::Kind::Kubernetes}},
    {"apiKeyLabel", "apiKeyEdit", {Profile::Kind::OpenSandbox, Profile::Kind::Kubernetes, Profile::Kind::E2B}},
    {nullptr, "keyStatusLabel", {Profile::Kind::OpenSandbox, Profile::Kind::Kubernetes, Profile::Kind::E2B}},
    {"imageLabel",
     "imageEdit",
     {Profile::Kind::OpenSandbox, Profile::Kind::Docker, Profile::Kind::Kubernetes, Profile::Kind::E2B}},
    {"sandboxTimeoutLabel", "sandboxTimeoutBox", {Profile::Kind::OpenSandbox, Profile::Kind::E2B}},
    {"storageSizeLabel", "storageSizeEdit", {Profile::Kind::Kubernetes}},
    {"storageClassLabel", "storageClassEdit", {Profile::Kind::Kubernetes}},
    {"basedirLabel", "basedirEdit", {Profile::Kind::Local, Profile::Kind::Docker}},
    {"layoutLabel", "layoutBox", {Profile::Kind::Local, Profile::Kind::Docker}},
    {nullptr, "stopInsteadOfPauseBox", {Profile::Kind::Docker}},
    {"bootstrapFileLabel", "bootstrapFileEdit", AllKinds},
    {"isolationLabel", "isolationBox", AllKinds},
    {"ttlLabel", "ttlBox", AllKinds},
    {"sweepIntervalLabel", "sweepIntervalBox", AllKinds},
    {"refreshIntervalLabel", "refreshIntervalBox", AllKinds},
    {"notifyBeforeExpiryLabel", "notifyBeforeExpiryEdit", {Profile::Kind::OpenSandbox, Profile::Kind::E2B}},
    {nullptr, "readOnlyBox", AllKinds}, // with muteNotificationsBox beside it
};

// Every row the chosen backend has is shown whole, with its label, below the one before it; the
// others are hidden; each problem shows under its field. Empty when all is right.
QString formProblem(QDialog &dialog)
{
    // The layout requests that showing and hiding posted (each may post the next, up the tree).
    for (int i = 0; i < 4; ++i)
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    const auto kind = Profile::Kind(dialog.findChild<QComboBox *>(QStringLiteral("kindBox"))->currentData().toInt());
    int bottom = -1;
    for (const FormRow &row : FormRows) {
        auto *field = dialog.findChild<QWidget *>(QLatin1String(row.field));
        QWidget *label = row.label ? dialog.findChild<QWidget *>(QLatin1String(row.label)) : nullptr;
        const bool expected = row.kinds.contains(kind);
        const QString name = QLatin1String(row.field);
        if (field->isVisible() != expected)
            return name + (expected ? QStringLiteral(" is hidden") : QStringLiteral(" is shown"));
        if (label && label->isVisible() != expected)
            return name + (expected ? QStringLiteral(": its label is hidden") : QStringLiteral(": its label is shown"));
        if (!expected)
            continue;
        const QRect rect(field->mapTo(&dialog, QPoint(0, 0)), field->size());
        if (rect.height() < field->minimumSizeHint().height())
            return QStringLiteral("%1 is squeezed to %2 px").arg(name).arg(rect.height());
        if (rect.top() < bottom)
            return QStringLiteral("%1 overlaps the row above it").arg(name);
        bottom = rect.bottom();
        if (label) {
            const QRect labelRect(label->mapTo(&dialog, QPoint(0, 0)), label->size());
            if (labelRect.height() < label->minimumSizeHint().height() || labelRect.top() < rect.top() - 4
                || labelRect.top() > rect.top() + 4)
                return QStringLiteral("%1: its label is not beside it (%2,%3 %4x%5 vs %6,%7 %8x%9)")
                    .arg(name)
                    .arg(labelRect.x())
                    .arg(labelRect.y())
                    .arg(labelRect.width())
                    .arg(labelRect.height())
                    .arg(rect.x())
                    .arg(rect.y())
                    .arg(rect.width())
                    .arg(rect.height());
        }
        // The field's problem, if any, under it.
        auto *error = dialog.findChild<QLabel *>(name.left(name.size() - 4) + QStringLiteral("Error"));
        if (!error)
            error = dialog.findChild<QLabel *>(name.left(name.size() - 3) + QStringLiteral("Error"));
        if (error) {
            if (error->isVisible() == error->text().isEmpty())
                return name + QStringLiteral(": its problem is ") + (error->isVisible() ? "shown" : "hidden");
            if (error->isVisible()) {
                const QRect errorRect(error->mapTo(&dialog, QPoint(0, 0)), error->size());
                if (errorRect.top() < rect.bottom())
                    return name + QStringLiteral(": its problem is not under it");
                if (errorRect.height() < error->heightForWidth(error->width()))
                    return QStringLiteral("%1: its problem is squeezed to %2 px").arg(name).arg(errorRect.height());
                bottom = std::max(bottom, errorRect.bottom());
            }
        }
    }
    // Mute notifications: every kind's, beside read-only.
    auto *readOnly = dialog.findChild<QWidget *>(QStringLiteral("readOnlyBox"));
    auto *mute = dialog.findChild<QWidget *>(QStringLiteral("muteNotificationsBox"));
    if (!mute->isVisible())
        return QStringLiteral("muteNotificationsBox is hidden");
    if (mute->mapTo(&dialog, QPoint(0, 0)).y() != readOnly->mapTo(&dialog, QPoint(0, 0)).y()
        || mute->height() < mute->minimumSizeHint().height())
        return QStringLiteral("muteNotificationsBox is not beside readOnlyBox");
    return {};
}

QString writeFile(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(bytes) != bytes.size())
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

// A kubeconfig with the contexts named (over one cluster and one user), `current` its current one.
QByteArray kubeconfig(const QStringList &contexts, const QString &current)
{
    QByteArray text = "apiVersion: v1\nkind: Config\ncurrent-context: " + current.toUtf8()
        + "\nclusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:6443'}\n"
          "users:\n- name: u\n  user: {token: from-the-kubeconfig}\ncontexts:\n";
    for (const QString &name : contexts)
        text += "- name: " + name.toUtf8() + "\n  context: {cluster: c, user: u}\n";
    return text;
}

QStringList itemTexts(const QComboBox *box)
{
    QStringList texts;
    for (int i = 0; i < box->count(); ++i)
        texts.append(box->itemText(i));
    return texts;
}

QStringList itemValues(const QComboBox *box)
{
    QStringList values;
    for (int i = 0; i < box->count(); ++i)
        values.append(box->itemData(i).toString());
    return values;
}

} // namespace

class TestProfilesDialog final : public QObject
{
    Q_OBJECT

    // $KUBECONFIG of every test: the default kubeconfig, which a test may write (none at first).
    QTemporaryDir m_kube;
    QString defaultKubeconfig() const { return m_kube.filePath(QStringLiteral("default-config")); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_kube.isValid());
        qputenv("KUBECONFIG", QFile::encodeName(defaultKubeconfig()));
        QCOMPARE(Kubernetes::KubeConfig::defaultFiles(), QStringList{defaultKubeconfig()});
    }

    void cleanup() { QFile::remove(defaultKubeconfig()); }

    void addOpenSandboxProfile()
    {
        Fixture f;
        ProfilesDialog dialog(&f.store, &f.keychain, &f.sessionKeys);
        QSignalSpy changed(&dialog, &ProfilesDialog::profilesChanged);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));

        // Local first, on its own backend: the folder shows, the server's fields do not.
        auto *list = find<QListWidget>(dialog, "profileList");
        QCOMPARE(list->count(), 1);
        QCOMPARE(list->item(0)->data(Qt::UserRole).toString(), QStringLiteral("local"));
        QCOMPARE(dialog.currentProfileId(), QStringLiteral("local"));
        auto *kindBox = find<QComboBox>(dialog, "kindBox");
        auto *domainEdit = find<QLineEdit>(dialog, "domainEdit");
        auto *basedirEdit = find<QLineEdit>(dialog, "basedirEdit");
        auto *apiKeyEdit = find<QLineEdit>(dialog, "apiKeyEdit");
        QVERIFY(!kindBox->isEnabled());
        QVERIFY(basedirEdit->isVisible());
        QVERIFY(!domainEdit->isVisible());
        QVERIFY(!apiKeyEdit->isVisible());

        // Add: a new OpenSandbox profile, its name field focused.
        QTest::mouseClick(find<QPushButton>(dialog, "addButton"), Qt::LeftButton);
        QCOMPARE(list->count(), 2);
        QVERIFY(dialog.currentProfileId().isEmpty());
        auto *nameEdit = find<QLineEdit>(dialog, "nameEdit");
        QCOMPARE(dialog.focusWidget(), nameEdit);
        QVERIFY(kindBox->isEnabled());
        QCOMPARE(kindBox->currentData().toInt(), int(Profile::Kind::OpenSandbox));
        QVERIFY(domainEdit->isVisible());
        QVERIFY(apiKeyEdit->isVisible());
        QVERIFY(!basedirEdit->isVisible());
        QVERIFY(!dialog.hasUnsavedChanges()); // nothing typed yet

        QTest::keyClicks(nameEdit, QStringLiteral("Staging"));
        QTest::keyClicks(domainEdit, QStringLiteral("sandbox.example.com:8443"));
        auto *protocolBox = find<QComboBox>(dialog, "protocolBox");
        protocolBox->setCurrentIndex(protocolBox->findData(QStringLiteral("https")));
        find<QCheckBox>(dialog, "useServerProxyBox")->setChecked(true);
        QCOMPARE(apiKeyEdit->echoMode(), QLineEdit::Password);
        QTest::keyClicks(apiKeyEdit, QStringLiteral("sk-test-0123456789"));
        auto *imageEdit = find<QLineEdit>(dialog, "imageEdit");
        QTest::keyClicks(imageEdit, QStringLiteral("python:3.12-slim"));
        auto *timeoutBox = find<QSpinBox>(dialog, "sandboxTimeoutBox");
        timeoutBox->setValue(0);
        QCOMPARE(timeoutBox->text(), QStringLiteral("Never expires"));
        auto *isolationBox = find<QComboBox>(dialog, "isolationBox");
        QCOMPARE(isolationBox->count(), 3);
        isolationBox->setCurrentIndex(isolationBox->findData(int(IsolationPolicy::PerUser)));
        QVERIFY(isolationBox->currentText().contains(QLatin1String("PER_USER")));
        find<QSpinBox>(dialog, "ttlBox")->setValue(600);
        find<QSpinBox>(dialog, "sweepIntervalBox")->setValue(60);
        auto *refreshBox = find<QComboBox>(dialog, "refreshIntervalBox");
        QCOMPARE(refreshBox->count(), 5);
        QCOMPARE(refreshBox->itemText(0), QStringLiteral("Off"));
        refreshBox->setCurrentIndex(refreshBox->findData(30));
        find<QCheckBox>(dialog, "readOnlyBox")->setChecked(true);
        auto *notifyEdit = find<QLineEdit>(dialog, "notifyBeforeExpiryEdit");
        QCOMPARE(notifyEdit->text(), QStringLiteral("10, 1"));
        // Its unit is said beside the figures, as the other fields' "s" is.
        QCOMPARE(find<QLabel>(dialog, "notifyBeforeExpiryLabel")->text(),
                 QStringLiteral("Notify before e&xpiry (minutes):"));
        // Something not a number of minutes is named under its field, and nothing is saved.
        notifyEdit->setText(QStringLiteral("15, soon"));
        QTest::keyClick(imageEdit, Qt::Key_Return);
        QTRY_VERIFY(find<QLabel>(dialog, "notifyBeforeExpiryError")->isVisible());
        QVERIFY(find<QLabel>(dialog, "notifyBeforeExpiryError")->text().contains(QLatin1String("whole minutes")));
        QCOMPARE(changed.count(), 0);
        notifyEdit->setText(QStringLiteral("2, 15"));
        find<QCheckBox>(dialog, "muteNotificationsBox")->setChecked(true);
        QVERIFY(dialog.hasUnsavedChanges());
        QVERIFY(dialog.isWindowModified());

        // Enter in a field saves.
        QTest::keyClick(imageEdit, Qt::Key_Return);
        QTRY_COMPARE(changed.count(), 1);
        const QString id = changed.at(0).at(0).toStringList().value(0);
        QCOMPARE(id, QStringLiteral("staging"));
        QCOMPARE(changed.at(0).at(0).toStringList().size(), 1);
        QCOMPARE(dialog.currentProfileId(), id);
        QVERIFY(!dialog.hasUnsavedChanges());
        QVERIFY(!dialog.isWindowModified());
        QVERIFY(apiKeyEdit->text().isEmpty());
        QCOMPARE(list->count(), 2);
        QCOMPARE(list->item(1)->text(), QStringLiteral("Staging"));
        QCOMPARE(list->item(1)->data(Qt::UserRole).toString(), id);

        // The key is in the keychain, nowhere else; the file has every field but the key.
        QCOMPARE(f.keychain.secrets.value(id), QByteArray("sk-test-0123456789"));
        QVERIFY(!f.sessionKey(id));
        const QByteArray bytes = f.fileBytes();
        QVERIFY(bytes.contains("sandbox.example.com:8443"));
        QVERIFY(!bytes.contains("sk-test-0123456789"));
        const auto saved = f.reread(id);
        QVERIFY(saved);
        QCOMPARE(saved->name, QStringLiteral("Staging"));
        QCOMPARE(saved->kind, Profile::Kind::OpenSandbox);
        QCOMPARE(saved->domain, QStringLiteral("sandbox.example.com:8443"));
        QCOMPARE(saved->protocol, QStringLiteral("https"));
        QVERIFY(saved->useServerProxy);
        QCOMPARE(saved->image, QStringLiteral("python:3.12-slim"));
        QCOMPARE(saved->sandboxTimeout.count(), 0);
        QCOMPARE(saved->isolation, IsolationPolicy::PerUser);
        QCOMPARE(saved->notifyBeforeExpiry,
                 (QList<std::chrono::seconds>{std::chrono::minutes(15), std::chrono::minutes(2)}));
        QVERIFY(saved->muteNotifications);
        QCOMPARE(saved->ttl.count(), 600);
        QCOMPARE(saved->sweepInterval.count(), 60);
        QCOMPARE(saved->refreshInterval.count(), 30);
        QVERIFY(saved->readOnly);

        auto *keyStatus = find<QLabel>(dialog, "keyStatusLabel");
        QTRY_COMPARE(keyStatus->text(), QStringLiteral("A key is stored in the system keychain."));
        QCOMPARE(apiKeyEdit->accessibleDescription(), keyStatus->text());
        QVERIFY(find<QPushButton>(dialog, "forgetKeyButton")->isEnabled());
        QVERIFY(find<QPushButton>(dialog, "removeButton")->isEnabled());
    }

    // An E2B profile: its rows (the domain, the API and sandbox URLs, the template under the
    // backend's own name, a timeout that cannot be "never"), the factory's problems each under its
    // field with nothing written, then every field saved and the key in the keychain only.
    void addE2BProfile()
    {
        Fixture f;
        ProfilesDialog dialog(&f.store, &f.keychain, &f.sessionKeys);
        QSignalSpy changed(&dialog, &ProfilesDialog::profilesChanged);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QTest::mouseClick(find<QPushButton>(dialog, "addButton"), Qt::LeftButton);
        auto *kindBox = find<QComboBox>(dialog, "kindBox");
        auto *imageLabel = find<QLabel>(dialog, "imageLabel");
        auto *imageEdit = find<QLineEdit>(dialog, "imageEdit");
        auto *domainEdit = find<QLineEdit>(dialog, "domainEdit");
        auto *apiUrlEdit = find<QLineEdit>(dialog, "apiUrlEdit");
        auto *sandboxUrlEdit = find<QLineEdit>(dialog, "sandboxUrlEdit");
        auto *timeoutBox = find<QSpinBox>(dialog, "sandboxTimeoutBox");
        auto *apiKeyEdit = find<QLineEdit>(dialog, "apiKeyEdit");
        QCOMPARE(imageLabel->text(), QStringLiteral("&Image:"));
        QCOMPARE(domainEdit->placeholderText(), QStringLiteral("host or host:port"));
        QCOMPARE(timeoutBox->minimum(), 0); // OpenSandbox's can never expire

        kindBox->setCurrentIndex(kindBox->findData(int(Profile::Kind::E2B)));
        QCOMPARE(kindBox->currentText(), QStringLiteral("E2B"));
        QCOMPARE(formProblem(dialog), QString());
        QCOMPARE(imageLabel->text(), QStringLiteral("&Template:"));
        QCOMPARE(imageEdit->placeholderText(), QStringLiteral("Default: base"));
        QVERIFY(imageEdit->toolTip().contains(QLatin1String("E2B template")));
        QCOMPARE(domainEdit->placeholderText(), QStringLiteral("Default: e2b.app"));
        QVERIFY(domainEdit->toolTip().contains(QLatin1String("E2B_DOMAIN")));
        QCOMPARE(apiUrlEdit->placeholderText(), QStringLiteral("Default: https://api.<domain>"));
        QVERIFY(apiUrlEdit->toolTip().contains(QLatin1String("E2B_API_URL")));
        QVERIFY(sandboxUrlEdit->toolTip().contains(QLatin1String("E2B_SANDBOX_URL")));
        QVERIFY(apiKeyEdit->toolTip().contains(QLatin1String("e2b_")));
        // E2B has no sandbox that never expires: 0 is no choice.
        QCOMPARE(timeoutBox->minimum(), 1);
        timeoutBox->setValue(0);
        QCOMPARE(timeoutBox->value(), 1);
        QVERIFY(!timeoutBox->text().contains(QLatin1String("Never")));

        // Bad fields: the factory's own messages, each under its field; nothing is written.
        QTest::keyClicks(find<QLineEdit>(dialog, "nameEdit"), QStringLiteral("E2B team"));
        QTest::keyClicks(domainEdit, QStringLiteral("not a domain"));
        QTest::keyClicks(apiUrlEdit, QStringLiteral("api.example.com/v1"));
        QTest::keyClicks(apiKeyEdit, QStringLiteral("e2b_0123456789abcdef0123456789abcdef01234567"));
        Profile bad;
        bad.kind = Profile::Kind::E2B;
        bad.domain = domainEdit->text();
        bad.apiUrl = apiUrlEdit->text();
        const QList<FieldError> expected = BackendRegistry::instance().find(Profile::Kind::E2B)->validate(bad);
        QCOMPARE(expected.size(), 2);
        QTest::mouseClick(saveButton(dialog), Qt::LeftButton);
        for (const FieldError &error : expected) {
            QLabel *label = errorOf(dialog, qPrintable(error.field));
            QVERIFY2(label->isVisible(), qPrintable(error.field));
            QCOMPARE(label->text(), error.message);
        }
        QCOMPARE(formProblem(dialog), QString());
        QCOMPARE(changed.count(), 0);
        QCOMPARE(f.keychain.writes, 0);
        QVERIFY(!f.fileBytes().contains("E2B team"));
        QCOMPARE(dialog.focusWidget(), domainEdit);

        // Right: every field saved, the key in the keychain and nowhere else.
        retype(domainEdit, QStringLiteral("e2b.example.com"));
        QVERIFY(!errorOf(dialog, "domain")->isVisible());
        retype(apiUrlEdit, QStringLiteral("http://127.0.0.1:3000"));
        QTest::keyClicks(sandboxUrlEdit, QStringLiteral("http://127.0.0.1:3001"));
        QTest::keyClicks(imageEdit, QStringLiteral("agentscope-tpl"));
        timeoutBox->setValue(600);
        find<QCheckBox>(dialog, "readOnlyBox")->setChecked(true);
        QTest::mouseClick(saveButton(dialog), Qt::LeftButton);
        QTRY_COMPARE(changed.count(), 1);
        const QString id = dialog.currentProfileId();
        QVERIFY(!id.isEmpty());
        QCOMPARE(f.keychain.secrets.value(id), QByteArray("e2b_0123456789abcdef0123456789abcdef01234567"));
        QVERIFY(!f.sessionKey(id));
        QVERIFY(!f.fileBytes().contains("e2b_0123456789abcdef"));
        const auto saved = f.reread(id);
        QVERIFY(saved);
        QCOMPARE(saved->kind, Profile::Kind::E2B);
        QCOMPARE(saved->name, QStringLiteral("E2B team"));
        QCOMPARE(saved->domain, QStringLiteral("e2b.example.com"));
        QCOMPARE(saved->apiUrl, QStringLiteral("http://127.0.0.1:3000"));
        QCOMPARE(saved->sandboxUrl, QStringLiteral("http://127.0.0.1:3001"));
        QCOMPARE(saved->image, QStringLiteral("agentscope-tpl"));
        QCOMPARE(saved->sandboxTimeout.count(), 600);
        QVERIFY(saved->readOnly);
        QTRY_COMPARE(find<QLabel>(dialog, "keyStatusLabel")->text(),
                     QStringLiteral("A key is stored in the system keychain."));

        // Shown again, as saved; another backend's form has its own names back.
        QVERIFY(!dialog.hasUnsavedChanges());
        kindBox->setCurrentIndex(kindBox->findData(int(Profile::Kind::OpenSandbox)));
        QCOMPARE(imageLabel->text(), QStringLiteral("&Image:"));
        QCOMPARE(domainEdit->placeholderText(), QStringLiteral("host or host:port"));
        QCOMPARE(timeoutBox->minimum(), 0);
        QCOMPARE(formProblem(dialog), QString());
    }

    void addDockerProfile()
    {
        Fixture f;
        ProfilesDialog dialog(&f.store, &f.keychain, &f.sessionKeys);
        QSignalSpy changed(&dialog, &ProfilesDialog::profilesChanged);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QTest::mouseClick(find<QPushButton>(dialog, "addButton"), Qt::LeftButton);
        auto *kindBox = find<QComboBox>(dialog, "kindBox");
        kindBox->setCurrentIndex(kindBox->findData(int(Profile::Kind::Docker)));
        QCOMPARE(kindBox->currentText(), QStringLiteral("Docker"));

        // Docker's fields: the engine, the image, the host folder and how closing works; no
        // server, no key, no sandbox timeout.
        auto *dockerHostEdit = find<QLineEdit>(dialog, "dockerHostEdit");
        auto *imageEdit = find<QLineEdit>(dialog, "imageEdit");
        auto *basedirEdit = find<QLineEdit>(dialog, "basedirEdit");
        auto *stopBox = find<QCheckBox>(dialog, "stopInsteadOfPauseBox");
        for (QWidget *shown : std::initializer_list<QWidget *>{dockerHostEdit, imageEdit, basedirEdit, stopBox})
            QVERIFY2(shown->isVisible(), qPrintable(shown->objectName()));
        for (const char *hidden : {"domainEdit", "apiKeyEdit", "sandboxTimeoutBox"})
            QVERIFY2(!find<QWidget>(dialog, hidden)->isVisible(), hidden);
        // Each backend's own defaults.
        QCOMPARE(imageEdit->placeholderText(), QStringLiteral("Default: debian:bookworm-slim"));
        QVERIFY2(basedirEdit->placeholderText().contains(QLatin1String("docker-workspaces")),
                 qPrintable(basedirEdit->placeholderText()));
        QVERIFY(dockerHostEdit->placeholderText().startsWith(QLatin1String("Default: ")));

        // A host Docker does not speak is named next to its field; nothing is saved.
        QTest::keyClicks(find<QLineEdit>(dialog, "nameEdit"), QStringLiteral("Docker"));
        QTest::keyClicks(dockerHostEdit, QStringLiteral("ssh://me@build"));
        QTest::mouseClick(find<QDialogButtonBox>(dialog, "buttonBox")->button(QDialogButtonBox::Save), Qt::LeftButton);
        auto *hostError = find<QLabel>(dialog, "dockerHostError");
        QTRY_VERIFY(hostError->isVisible());
        QVERIFY2(hostError->text().contains(QLatin1String("ssh://me@build")), qPrintable(hostError->text()));
        QCOMPARE(dialog.focusWidget(), dockerHostEdit);
        QCOMPARE(changed.count(), 0);

        retype(dockerHostEdit, QStringLiteral("unix:///run/user/1000/docker.sock"));
        QVERIFY(!hostError->isVisible());
        QTest::keyClicks(imageEdit, QStringLiteral("busybox:stable"));
        stopBox->setChecked(true);
        QTest::keyClick(imageEdit, Qt::Key_Return);
        QTRY_COMPARE(changed.count(), 1);
        const auto saved = f.reread(QStringLiteral("docker"));
        QVERIFY(saved);
        QCOMPARE(saved->kind, Profile::Kind::Docker);
        QCOMPARE(saved->dockerHost, QStringLiteral("unix:///run/user/1000/docker.sock"));
        QCOMPARE(saved->image, QStringLiteral("busybox:stable"));
        QVERIFY(saved->stopInsteadOfPause);
        QVERIFY(f.keychain.secrets.isEmpty()); // Docker profiles have no key

        // Back to OpenSandbox: its own image default again, the Docker rows hidden.
        kindBox->setCurrentIndex(kindBox->findData(int(Profile::Kind::OpenSandbox)));
        QVERIFY(!dockerHostEdit->isVisible() && !stopBox->isVisible() && !basedirEdit->isVisible());
        QVERIFY(imageEdit->isVisible());
        QVERIFY(!imageEdit->placeholderText().contains(QLatin1String("bookworm")));
    }

    void invalidFieldsShownFieldByField()
    {
        Fixture f;
        f.addStaging();
        const QByteArray before = f.fileBytes();
        ProfilesDialog dialog(&f.store, &f.keychain, &f.sessionKeys);
        QSignalSpy changed(&dialog, &ProfilesDialog::profilesChanged);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QTest::mouseClick(find<QPushButton>(dialog, "addButton"), Qt::LeftButton);

        // No name, a port out of range, a sandbox that would live 30 s, no idle time.
        auto *nameEdit = find<QLineEdit>(dialog, "nameEdit");
        auto *domainEdit = find<QLineEdit>(dialog, "domainEdit");
        QTest::keyClicks(domainEdit, QStringLiteral("host:99999"));
        find<QSpinBox>(dialog, "sandboxTimeoutBox")->setValue(30);
        auto *ttlBox = find<QSpinBox>(dialog, "ttlBox");
        ttlBox->setValue(0);
        find<QSpinBox>(dialog, "sweepIntervalBox")->setValue(0);
        auto *bootstrapEdit = find<QLineEdit>(dialog, "bootstrapFileEdit");
        QTest::keyClicks(bootstrapEdit, QStringLiteral("/nonexistent/bootstrap.txt"));
        QTest::keyClicks(find<QLineEdit>(dialog, "apiKeyEdit"), QStringLiteral("sk-never-stored"));
        for (const char *field : {"name", "domain", "sandboxTimeout", "bootstrapFile", "ttl", "sweepInterval"})
            QVERIFY2(!errorOf(dialog, field)->isVisible(), field);
        QTest::mouseClick(saveButton(dialog), Qt::LeftButton);

        // Each problem next to its field, red and word-wrapped, also as the field's description.
        QCOMPARE(errorOf(dialog, "name")->text(), QStringLiteral("Give the profile a name."));
        QVERIFY(errorOf(dialog, "domain")->text().contains(QLatin1String("65535")));
        QVERIFY(errorOf(dialog, "sandboxTimeout")->text().contains(QLatin1String("60 seconds")));
        QVERIFY(!errorOf(dialog, "ttl")->text().isEmpty());
        QVERIFY(!errorOf(dialog, "sweepInterval")->text().isEmpty());
        QVERIFY(errorOf(dialog, "bootstrapFile")->text().contains(QLatin1String("cannot be read")));
        for (const char *field : {"name", "domain", "sandboxTimeout", "bootstrapFile", "ttl", "sweepInterval"}) {
            QLabel *error = errorOf(dialog, field);
            QVERIFY2(error->isVisible(), field);
            QVERIFY(error->wordWrap());
            QVERIFY(error->palette().color(QPalette::WindowText) != dialog.palette().color(QPalette::WindowText));
        }
        for (const char *field : {"protocol", "image", "refreshInterval", "isolation"})
            QVERIFY2(!errorOf(dialog, field)->isVisible(), field);
        QCOMPARE(domainEdit->accessibleDescription(), errorOf(dialog, "domain")->text());
        QCOMPARE(ttlBox->accessibleDescription(), errorOf(dialog, "ttl")->text());
        QCOMPARE(dialog.focusWidget(), nameEdit); // the first bad field

        // Nothing was written: no settings, no key, no signal.
        QCOMPARE(f.fileBytes(), before);
        QCOMPARE(f.store.profiles().size(), 2);
        QCOMPARE(f.keychain.writes, 0);
        QVERIFY(!f.sessionKey(QStringLiteral("profile")));
        QVERIFY(dialog.hasUnsavedChanges());
        QVERIFY(find<QLabel>(dialog, "statusLabel")->text().contains(QLatin1String("Nothing was saved")));
        QTest::qWait(0);
        QVERIFY(changed.isEmpty());

        // Editing a field clears its problem only.
        QTest::keyClick(domainEdit, Qt::Key_Backspace);
        QVERIFY(errorOf(dialog, "domain")->text().isEmpty());
        QVERIFY(!errorOf(dialog, "domain")->isVisible());
        QVERIFY(domainEdit->accessibleDescription().isEmpty());
        QVERIFY(errorOf(dialog, "ttl")->isVisible());

        // A name another profile has (in any case) is refused too.
        QTest::keyClicks(nameEdit, QStringLiteral("STAGING"));
        QTest::mouseClick(saveButton(dialog), Qt::LeftButton);
        QVERIFY(errorOf(dialog, "name")->text().contains(QLatin1String("already called")));
        QCOMPARE(f.fileBytes(), before);
        QCOMPARE(f.keychain.writes, 0);

        // All right: saved, every problem gone.
        retype(nameEdit, QStringLiteral("Production"));
        retype(domainEdit, QStringLiteral("prod.example.com:8080"));
        find<QSpinBox>(dialog, "sandboxTimeoutBox")->setValue(3600);
        ttlBox->setValue(1800);
        find<QSpinBox>(dialog, "sweepIntervalBox")->setValue(120);
        bootstrapEdit->clear();
        QTest::mouseClick(saveButton(dialog), Qt::LeftButton);
        QTRY_COMPARE(changed.count(), 1);
        for (const char *field : {"name", "domain", "sandboxTimeout", "ttl", "sweepInterval"})
            QVERIFY2(!errorOf(dialog, field)->isVisible(), field);
        const auto saved = f.reread(QStringLiteral("production"));
        QVERIFY(saved);
        QCOMPARE(saved->domain, QStringLiteral("prod.example.com:8080"));
        QCOMPARE(saved->ttl.count(), 1800);
        QCOMPARE(f.keychain.secrets.value(QStringLiteral("production")), QByteArray("sk-never-stored"));
        QVERIFY(!f.fileBytes().contains("sk-never-stored"));
    }

    void rowsStayAfterProblems()
    {
        Fixture f;
        f.addStaging();
        ProfilesDialog dialog(&f.store, &f.keychain, &f.sessionKeys);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        auto *kindBox = find<QComboBox>(dialog, "kindBox");
        auto *domainEdit = find<QLineEdit>(dialog, "domainEdit");
        auto *timeoutBox = find<QSpinBox>(dialog, "sandboxTimeoutBox");
        const auto setKind = [kindBox](Profile::Kind kind) { kindBox->setCurrentIndex(kindBox->findData(int(kind))); };
#define CHECK_FORM()                                                                                                   \
    do {                                                                                                               \
        const QString problem = formProblem(dialog);                                                                   \
        QVERIFY2(problem.isEmpty(), qPrintable(problem));                                                              \
    } while (false)
        CHECK_FORM();

        // As the user found it: the Local profile first, then an OpenSandbox one with a bad domain
        // saved (in Qt 6.4 the Sandbox timeout row was 0 px high then), then fixed, then other
        // backends and back.
        find<QListWidget>(dialog, "profileList")->setCurrentRow(1);
        QCOMPARE(dialog.currentProfileId(), QStringLiteral("staging"));
        CHECK_FORM();
        retype(domainEdit, QStringLiteral("host:99999"));
        QTest::mouseClick(saveButton(dialog), Qt::LeftButton);
        QVERIFY(errorOf(dialog, "domain")->isVisible());
        CHECK_FORM();
        retype(domainEdit, QStringLiteral("host:9999"));
        CHECK_FORM();
        for (const Profile::Kind kind : {Profile::Kind::Local, Profile::Kind::Docker, Profile::Kind::OpenSandbox}) {
            setKind(kind);
            CHECK_FORM();
        }

        // A problem in a row hidden for another backend, shown when its backend comes back.
        setKind(Profile::Kind::Docker);
        timeoutBox->setValue(30);
        setKind(Profile::Kind::OpenSandbox);
        retype(domainEdit, QStringLiteral("host:99999"));
        QTest::mouseClick(saveButton(dialog), Qt::LeftButton);
        QVERIFY(errorOf(dialog, "sandboxTimeout")->isVisible());
        CHECK_FORM();

        // Rows that another backend showed a while ago, then a problem on this one.
        setKind(Profile::Kind::Local);
        CHECK_FORM();
        setKind(Profile::Kind::Docker);
        QTest::keyClicks(find<QLineEdit>(dialog, "dockerHostEdit"), QStringLiteral("ssh://me@build"));
        QTest::mouseClick(saveButton(dialog), Qt::LeftButton);
        QVERIFY(errorOf(dialog, "dockerHost")->isVisible());
        CHECK_FORM();

        // Any order of such steps (the same every run).
        std::mt19937 random(14);
        QStringList steps;
        for (int i = 0; i < 300; ++i) {
            switch (random() % 6) {
            case 0:
                setKind(AllKinds.at(int(random() % AllKinds.size())));
                steps << kindBox->currentText();
                break;
            case 1: {
                const bool bad = random() % 2;
                retype(domainEdit, bad ? QStringLiteral("host:99999") : QStringLiteral("host:9999"));
                steps << (bad ? QStringLiteral("bad domain") : QStringLiteral("domain"));
                break;
            }
            case 2: {
                const bool bad = random() % 2;
                timeoutBox->setValue(bad ? 30 : 3600);
                steps << (bad ? QStringLiteral("bad timeout") : QStringLiteral("timeout"));
                break;
            }
            case 3: {
                const bool bad = random() % 2;
                retype(find<QLineEdit>(dialog, "dockerHostEdit"), bad ? QStringLiteral("ssh://x") : QString());
                steps << (bad ? QStringLiteral("bad host") : QStringLiteral("host"));
                break;
            }
            default:
                QTest::mouseClick(saveButton(dialog), Qt::LeftButton);
                steps << QStringLiteral("save");
                break;
            }
            const QString problem = formProblem(dialog);
            QVERIFY2(problem.isEmpty(), qPrintable(problem + QStringLiteral(" after: ") + steps.join(u',')));
        }
#undef CHECK_FORM
    }

    void keychainUnavailableKeepsKeyForSession()
    {
        Fixture f;
        f.keychain.unavailable = true;
        ProfilesDialog dialog(&f.store, &f.keychain, &f.sessionKeys);
        QSignalSpy changed(&dialog, &ProfilesDialog::profilesChanged);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QTest::mouseClick(find<QPushButton>(dialog, "addButton"), Qt::LeftButton);
        QTest::keyClicks(find<QLineEdit>(dialog, "nameEdit"), QStringLiteral("Offline"));
        QTest::keyClicks(find<QLineEdit>(dialog, "domainEdit"), QStringLiteral("localhost:8080"));
        auto *apiKeyEdit = find<QLineEdit>(dialog, "apiKeyEdit");
        QTest::keyClicks(apiKeyEdit, QStringLiteral("sk-session-only"));
        QTest::mouseClick(saveButton(dialog), Qt::LeftButton);

        QMessageBox *box = nullptr;
        QTRY_VERIFY((box = dialog.findChild<QMessageBox *>(QStringLiteral("keyNotStored"))) && box->isVisible());
        QVERIFY(box->text().contains(QLatin1String("keychain is unavailable")));
        QVERIFY(box->text().contains(QLatin1String("until it quits")));
        QCOMPARE(box->informativeText(), TestSecretStore::reason());
        QCOMPARE(changed.count(), 1);
        const QString id = changed.at(0).at(0).toStringList().value(0);
        QCOMPARE(id, QStringLiteral("offline"));
        QCOMPARE(f.sessionKey(id), std::optional<QByteArray>("sk-session-only"));
        QVERIFY(f.keychain.secrets.isEmpty());
        QVERIFY(f.reread(id)); // the profile itself is saved
        QVERIFY(!f.fileBytes().contains("sk-session-only"));
        QVERIFY(apiKeyEdit->text().isEmpty());
        auto *keyStatus = find<QLabel>(dialog, "keyStatusLabel");
        QTRY_VERIFY(keyStatus->text().contains(QLatin1String("for this session only")));
        box->button(QMessageBox::Ok)->click();
        QTRY_VERIFY(!dialog.findChild<QMessageBox *>(QStringLiteral("keyNotStored")));

        // The keychain is back: the key goes there, and the session copy no longer shadows it.
        f.keychain.unavailable = false;
        QTest::keyClicks(apiKeyEdit, QStringLiteral("sk-in-keychain"));
        QTest::mouseClick(saveButton(dialog), Qt::LeftButton);
        QTRY_COMPARE(changed.count(), 2);
        QCOMPARE(f.keychain.secrets.value(id), QByteArray("sk-in-keychain"));
        QVERIFY(!f.sessionKey(id));
        QTRY_COMPARE(keyStatus->text(), QStringLiteral("A key is stored in the system keychain."));
        QVERIFY(!dialog.findChild<QMessageBox *>(QStringLiteral("keyNotStored")));
    }

    void removeDeletesProfileAndKey()
    {
        Fixture f;
        f.addStaging();
        f.keychain.secrets.insert(QStringLiteral("staging"), "sk-remove-me");
        QVERIFY(QCoro::waitFor(f.sessionKeys.write(QStringLiteral("staging"), "sk-kept")));
        ProfilesDialog dialog(&f.store, &f.keychain, &f.sessionKeys);
        QSignalSpy changed(&dialog, &ProfilesDialog::profilesChanged);
        dialog.selectProfile(QStringLiteral("staging"));
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QCOMPARE(dialog.currentProfileId(), QStringLiteral("staging"));
        auto *list = find<QListWidget>(dialog, "profileList");
        QCOMPARE(list->currentItem()->data(Qt::UserRole).toString(), QStringLiteral("staging"));
        QTRY_VERIFY(find<QLabel>(dialog, "keyStatusLabel")->text().contains(QLatin1String("session only")));
        auto *removeButton = find<QPushButton>(dialog, "removeButton");

        // Cancel is the default, and keeps everything.
        QTest::mouseClick(removeButton, Qt::LeftButton);
        QMessageBox *box = nullptr;
        QTRY_VERIFY((box = dialog.findChild<QMessageBox *>(QStringLiteral("confirmRemove"))) && box->isVisible());
        QVERIFY(box->text().contains(QLatin1String("Staging")));
        QCOMPARE(box->defaultButton(), box->button(QMessageBox::Cancel));
        box->button(QMessageBox::Cancel)->click();
        QTRY_VERIFY(!dialog.findChild<QMessageBox *>(QStringLiteral("confirmRemove")));
        QVERIFY(f.store.profile(QStringLiteral("staging")));
        QVERIFY(changed.isEmpty());

        QTest::mouseClick(removeButton, Qt::LeftButton);
        QTRY_VERIFY((box = dialog.findChild<QMessageBox *>(QStringLiteral("confirmRemove"))) && box->isVisible());
        box->button(QMessageBox::Yes)->click();
        QTRY_COMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).toStringList(), QStringList{QStringLiteral("staging")});
        QVERIFY(!f.store.profile(QStringLiteral("staging")));
        QVERIFY(!f.reread(QStringLiteral("staging")));
        QVERIFY(!f.keychain.secrets.contains(QStringLiteral("staging")));
        QVERIFY(!f.sessionKey(QStringLiteral("staging")));
        QCOMPARE(list->count(), 1);
        QCOMPARE(dialog.currentProfileId(), QStringLiteral("local"));
        QVERIFY(!dialog.findChild<QMessageBox *>(QStringLiteral("keyNotRemoved")));
    }

    void removeReportsKeychainFailure()
    {
        Fixture f;
        f.addStaging();
        f.keychain.secrets.insert(QStringLiteral("staging"), "sk-stuck");
        f.keychain.failRemove = true;
        ProfilesDialog dialog(&f.store, &f.keychain, &f.sessionKeys);
        QSignalSpy changed(&dialog, &ProfilesDialog::profilesChanged);
        dialog.selectProfile(QStringLiteral("staging"));
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QTest::mouseClick(find<QPushButton>(dialog, "removeButton"), Qt::LeftButton);
        QMessageBox *box = nullptr;
        QTRY_VERIFY((box = dialog.findChild<QMessageBox *>(QStringLiteral("confirmRemove"))) && box->isVisible());
        box->button(QMessageBox::Yes)->click();
        QTRY_VERIFY((box = dialog.findChild<QMessageBox *>(QStringLiteral("keyNotRemoved"))) && box->isVisible());
        QVERIFY(box->text().contains(QLatin1String("could not be removed")));
        QCOMPARE(box->informativeText(), TestSecretStore::reason());
        QCOMPARE(changed.count(), 1);
        QVERIFY(!f.store.profile(QStringLiteral("staging")));
        box->button(QMessageBox::Ok)->click();
    }

    void localProfileStays()
    {
        Fixture f;
        ProfilesDialog dialog(&f.store, &f.keychain, &f.sessionKeys);
        QSignalSpy changed(&dialog, &ProfilesDialog::profilesChanged);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QCOMPARE(dialog.currentProfileId(), QStringLiteral("local"));
        auto *removeButton = find<QPushButton>(dialog, "removeButton");
        QVERIFY(!removeButton->isEnabled());
        QVERIFY(!find<QComboBox>(dialog, "kindBox")->isEnabled());
        QTest::mouseClick(removeButton, Qt::LeftButton);
        QTest::qWait(0);
        QVERIFY(!dialog.findChild<QMessageBox *>(QStringLiteral("confirmRemove")));
        QVERIFY(f.store.profile(QStringLiteral("local")));

        // Its folder can be changed, through Browse… too.
        QTemporaryDir folder;
        QTest::mouseClick(find<QPushButton>(dialog, "basedirBrowseButton"), Qt::LeftButton);
        QFileDialog *chooser = nullptr;
        QTRY_VERIFY((chooser = dialog.findChild<QFileDialog *>(QStringLiteral("basedirDialog")))
                    && chooser->isVisible());
        QCOMPARE(chooser->fileMode(), QFileDialog::Directory);
        chooser->setDirectory(folder.path());
        chooser->selectFile(folder.path());
        static_cast<QDialog *>(chooser)->accept(); // QFileDialog::accept() is protected
        QCOMPARE(QDir::fromNativeSeparators(find<QLineEdit>(dialog, "basedirEdit")->text()), folder.path());
        QVERIFY(dialog.hasUnsavedChanges());
        QTest::mouseClick(saveButton(dialog), Qt::LeftButton);
        QTRY_COMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).toStringList(), QStringList{QStringLiteral("local")});
        const auto local = f.reread(QStringLiteral("local"));
        QVERIFY(local);
        QCOMPARE(local->basedir, folder.path());
        QCOMPARE(local->kind, Profile::Kind::Local);
        QCOMPARE(f.keychain.writes, 0);
    }

    // Local and Docker keep their workspaces in Paddock's layout or AgentScope's: a choice of
    // their own, whose tooltip says what each means there; the AgentScope layout takes the
    // per-agent isolation only, said under the choice.
    void layoutChoice()
    {
        Fixture f;
        ProfilesDialog dialog(&f.store, &f.keychain, &f.sessionKeys);
        QSignalSpy changed(&dialog, &ProfilesDialog::profilesChanged);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        auto *layoutBox = find<QComboBox>(dialog, "layoutBox");
        QVERIFY(layoutBox->isVisible());
        QCOMPARE(layoutBox->currentData().toInt(), int(Profile::Layout::Paddock));
        QCOMPARE(itemTexts(layoutBox), (QStringList{QStringLiteral("Paddock's"), QStringLiteral("AgentScope's")}));
        for (int i = 0; i < layoutBox->count(); ++i)
            QVERIFY(!layoutBox->itemData(i, Qt::ToolTipRole).toString().isEmpty());
        QVERIFY2(layoutBox->toolTip().contains(QLatin1String("<folder>/<agent id>"))
                     && layoutBox->toolTip().contains(QLatin1String("LocalWorkspaceManager")),
                 qPrintable(layoutBox->toolTip()));

        layoutBox->setCurrentIndex(layoutBox->findData(int(Profile::Layout::AgentScope)));
        QVERIFY(dialog.hasUnsavedChanges());
        auto *isolationBox = find<QComboBox>(dialog, "isolationBox");
        isolationBox->setCurrentIndex(isolationBox->findData(int(IsolationPolicy::PerUser)));
        const QByteArray before = f.fileBytes();
        QTest::mouseClick(saveButton(dialog), Qt::LeftButton);
        QTRY_VERIFY(errorOf(dialog, "layout")->isVisible());
        QVERIFY2(errorOf(dialog, "layout")->text().contains(QLatin1String("per-agent")),
                 qPrintable(errorOf(dialog, "layout")->text()));
        QCOMPARE(formProblem(dialog), QString());
        QCOMPARE(f.fileBytes(), before);
        isolationBox->setCurrentIndex(isolationBox->findData(int(IsolationPolicy::PerAgent)));
        QTest::mouseClick(saveButton(dialog), Qt::LeftButton);
        QTRY_COMPARE(changed.count(), 1);
        QCOMPARE(f.reread(QStringLiteral("local"))->layout, Profile::Layout::AgentScope);

        // A new profile: Docker's own meaning of the layouts; none on OpenSandbox.
        QTest::mouseClick(find<QPushButton>(dialog, "addButton"), Qt::LeftButton);
        auto *kindBox = find<QComboBox>(dialog, "kindBox");
        kindBox->setCurrentIndex(kindBox->findData(int(Profile::Kind::Docker)));
        QVERIFY(layoutBox->isVisible());
        QCOMPARE(layoutBox->currentData().toInt(), int(Profile::Layout::Paddock));
        QVERIFY2(layoutBox->toolTip().contains(QLatin1String("as_ws_<workspace id>")),
                 qPrintable(layoutBox->toolTip()));
        kindBox->setCurrentIndex(kindBox->findData(int(Profile::Kind::OpenSandbox)));
        QVERIFY(!layoutBox->isVisible());
        QCOMPARE(formProblem(dialog), QString());
    }

    void localNameFollowsTheLanguage()
    {
        Fixture f;
        f.addStaging();
        // As earlier versions left the file: the Local profile's name stored.
        f.settings.setValue(QStringLiteral("profiles/1/name"), QStringLiteral("Local"));
        f.settings.sync();
        QSettings settings(f.path, QSettings::IniFormat);
        ProfileStore store(&settings);
        ProfilesDialog dialog(&store, &f.keychain, &f.sessionKeys);
        QSignalSpy changed(&dialog, &ProfilesDialog::profilesChanged);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        auto *list = find<QListWidget>(dialog, "profileList");
        auto *nameEdit = find<QLineEdit>(dialog, "nameEdit");
        QCOMPARE(list->item(0)->text(), QStringLiteral("Local"));
        QCOMPARE(nameEdit->text(), QStringLiteral("Local"));

        const auto english = qScopeGuard([] { useLanguage(QLocale(QLocale::English, QLocale::UnitedStates)); });
        QCOMPARE(useLanguage(QLocale(QStringLiteral("zh_CN"))), QStringLiteral("zh_CN"));
        QTRY_COMPARE(list->item(0)->text(), QStringLiteral("本地")); // LanguageChange is posted
        QCOMPARE(nameEdit->text(), QStringLiteral("本地"));
        QCOMPARE(list->item(1)->text(), QStringLiteral("Staging"));
        QVERIFY(!dialog.hasUnsavedChanges());

        // Saved (its folder changed), the Local profile keeps no name in the file.
        QTemporaryDir folder;
        retype(find<QLineEdit>(dialog, "basedirEdit"), folder.path());
        QTest::mouseClick(saveButton(dialog), Qt::LeftButton);
        QTRY_COMPARE(changed.count(), 1);
        QCOMPARE(QSettings(f.path, QSettings::IniFormat).value(QStringLiteral("profiles/1/name")).toString(),
                 QString());
        QCOMPARE(f.reread(QStringLiteral("local"))->basedir, folder.path());
        QCOMPARE(list->item(0)->text(), QStringLiteral("本地"));
        QVERIFY(find<QLabel>(dialog, "statusLabel")->text().contains(QStringLiteral("本地")));

        // Renamed, the name is the user's in every language.
        retype(nameEdit, QStringLiteral("My laptop"));
        QTest::mouseClick(saveButton(dialog), Qt::LeftButton);
        QTRY_COMPARE(changed.count(), 2);
        QCOMPARE(list->item(0)->text(), QStringLiteral("My laptop"));
        useLanguage(QLocale(QLocale::English, QLocale::UnitedStates));
        QTRY_COMPARE(dialog.windowTitle(), QStringLiteral("Profiles[*]"));
        QCOMPARE(list->item(0)->text(), QStringLiteral("My laptop"));
        QCOMPARE(nameEdit->text(), QStringLiteral("My laptop"));
    }

    void hintsFitTheProfile()
    {
        Fixture f;
        f.addStaging();
        f.keychain.secrets.insert(QStringLiteral("staging"), "sk-stored");
        ProfilesDialog dialog(&f.store, &f.keychain, &f.sessionKeys);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        auto *apiKeyEdit = find<QLineEdit>(dialog, "apiKeyEdit");
        auto *bootstrapEdit = find<QLineEdit>(dialog, "bootstrapFileEdit");
        auto *kindBox = find<QComboBox>(dialog, "kindBox");
        const auto keepsStoredKey = [apiKeyEdit] {
            return apiKeyEdit->placeholderText().contains(QLatin1String("keep the stored key"))
                || apiKeyEdit->toolTip().contains(QLatin1String("keep the stored key"));
        };

        // Local: no bootstrap by default, and nothing said about other backends.
        QCOMPARE(bootstrapEdit->placeholderText(), QStringLiteral("Default: none (no commands are run)"));

        // A stored key is kept when the field is left empty...
        find<QListWidget>(dialog, "profileList")->setCurrentRow(1);
        QTRY_VERIFY(find<QPushButton>(dialog, "forgetKeyButton")->isEnabled());
        QCOMPARE(apiKeyEdit->placeholderText(), QStringLiteral("Leave empty to keep the stored key"));
        QVERIFY(apiKeyEdit->toolTip().contains(QLatin1String("keep the stored key")));
        QVERIFY(bootstrapEdit->placeholderText().contains(QLatin1String("AgentScope")));
        QVERIFY(!bootstrapEdit->placeholderText().contains(QLatin1String("Docker")));

        // ...without one there is nothing to keep.
        QTest::mouseClick(find<QPushButton>(dialog, "forgetKeyButton"), Qt::LeftButton);
        QTRY_COMPARE(find<QLabel>(dialog, "keyStatusLabel")->text(), QStringLiteral("No key stored."));
        QCOMPARE(apiKeyEdit->placeholderText(), QStringLiteral("Paste the API key"));
        QVERIFY(apiKeyEdit->toolTip().contains(QLatin1String("requests are sent without one")));
        QVERIFY(!keepsStoredKey());

        // A new profile has no key either; its backend's own bootstrap as it changes.
        QTest::mouseClick(find<QPushButton>(dialog, "addButton"), Qt::LeftButton);
        QTRY_COMPARE(find<QLabel>(dialog, "keyStatusLabel")->text(), QStringLiteral("No key stored."));
        QVERIFY(!keepsStoredKey());
        QVERIFY(bootstrapEdit->placeholderText().contains(QLatin1String("AgentScope")));
        kindBox->setCurrentIndex(kindBox->findData(int(Profile::Kind::Docker)));
        QCOMPARE(bootstrapEdit->placeholderText(), QStringLiteral("Default: none (no commands are run)"));
    }

    void unsavedChangesAreAskedAbout()
    {
        Fixture f;
        f.addStaging();
        ProfilesDialog dialog(&f.store, &f.keychain, &f.sessionKeys);
        QSignalSpy changed(&dialog, &ProfilesDialog::profilesChanged);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        auto *list = find<QListWidget>(dialog, "profileList");
        auto *nameEdit = find<QLineEdit>(dialog, "nameEdit");
        const auto answer = [&dialog](QMessageBox::StandardButton button) {
            QMessageBox *box = nullptr;
            QTRY_VERIFY((box = dialog.findChild<QMessageBox *>(QStringLiteral("unsavedChanges"))) && box->isVisible());
            QCOMPARE(box->defaultButton(), box->button(QMessageBox::Save));
            box->button(button)->click();
            QTRY_VERIFY(!dialog.findChild<QMessageBox *>(QStringLiteral("unsavedChanges")));
        };
#define ANSWER(button)                                                                                                 \
    do {                                                                                                               \
        answer(button);                                                                                                \
        if (QTest::currentTestFailed())                                                                                \
            return;                                                                                                    \
    } while (false)

        // No edits: switching just switches.
        list->setCurrentRow(1);
        QCOMPARE(dialog.currentProfileId(), QStringLiteral("staging"));
        QCOMPARE(nameEdit->text(), QStringLiteral("Staging"));

        // Cancel: the edits and the profile stay.
        retype(nameEdit, QStringLiteral("Staging 2"));
        list->setCurrentRow(0);
        ANSWER(QMessageBox::Cancel);
        QCOMPARE(dialog.currentProfileId(), QStringLiteral("staging"));
        QCOMPARE(list->currentItem()->data(Qt::UserRole).toString(), QStringLiteral("staging"));
        QCOMPARE(nameEdit->text(), QStringLiteral("Staging 2"));

        // Discard: switched, nothing saved.
        list->setCurrentRow(0);
        ANSWER(QMessageBox::Discard);
        QCOMPARE(dialog.currentProfileId(), QStringLiteral("local"));
        QCOMPARE(f.store.profile(QStringLiteral("staging"))->name, QStringLiteral("Staging"));
        QVERIFY(changed.isEmpty());

        // Save: saved, then switched.
        dialog.selectProfile(QStringLiteral("staging"));
        QCOMPARE(dialog.currentProfileId(), QStringLiteral("staging"));
        retype(nameEdit, QStringLiteral("Staging 2"));
        list->setCurrentRow(0);
        ANSWER(QMessageBox::Save);
        QTRY_COMPARE(dialog.currentProfileId(), QStringLiteral("local"));
        QCOMPARE(f.reread(QStringLiteral("staging"))->name, QStringLiteral("Staging 2"));
        QCOMPARE(list->item(1)->text(), QStringLiteral("Staging 2"));
        QCOMPARE(changed.count(), 1);

        // A new profile left with something typed in it is asked about too; discarded, it goes.
        QTest::mouseClick(find<QPushButton>(dialog, "addButton"), Qt::LeftButton);
        QCOMPARE(list->count(), 3);
        QTest::keyClicks(nameEdit, QStringLiteral("Scratch"));
        list->setCurrentRow(0);
        ANSWER(QMessageBox::Discard);
        QCOMPARE(list->count(), 2);
        QCOMPARE(dialog.currentProfileId(), QStringLiteral("local"));

        // Esc with edits asks; Cancel keeps the dialog open, Discard closes it.
        retype(nameEdit, QStringLiteral("Here"));
        QTest::keyClick(nameEdit, Qt::Key_Escape);
        ANSWER(QMessageBox::Cancel);
        QVERIFY(dialog.isVisible());
        QTest::keyClick(nameEdit, Qt::Key_Escape);
        ANSWER(QMessageBox::Discard);
        QTRY_VERIFY(!dialog.isVisible());
        QCOMPARE(dialog.result(), int(QDialog::Rejected));
        QCOMPARE(f.reread(QStringLiteral("local"))->displayName(), QStringLiteral("Local"));
        QCOMPARE(changed.count(), 1);

        // Without edits Esc just closes.
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QTest::keyClick(nameEdit, Qt::Key_Escape);
        QVERIFY(!dialog.isVisible());
#undef ANSWER
    }

    void keyboard()
    {
        Fixture f;
        f.addStaging();
        f.keychain.secrets.insert(QStringLiteral("staging"), "sk-stored");
        ProfilesDialog dialog(&f.store, &f.keychain, &f.sessionKeys);
        QSignalSpy changed(&dialog, &ProfilesDialog::profilesChanged);
        dialog.selectProfile(QStringLiteral("staging"));
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QTRY_VERIFY(find<QPushButton>(dialog, "forgetKeyButton")->isEnabled());
        QVERIFY(saveButton(dialog)->isDefault());

        // Tab goes top to bottom through what is shown.
        auto *list = find<QListWidget>(dialog, "profileList");
        QStringList order;
        QWidget *widget = list;
        do {
            if ((widget->focusPolicy() & Qt::TabFocus) && widget->isVisibleTo(&dialog) && widget->isEnabled()
                && !widget->objectName().isEmpty() && !widget->objectName().startsWith(QLatin1String("qt_")))
                order.append(widget->objectName());
            widget = widget->nextInFocusChain();
        } while (widget != list);
        const QStringList expected{
            QStringLiteral("profileList"),
            QStringLiteral("addButton"),
            QStringLiteral("removeButton"),
            QStringLiteral("nameEdit"),
            QStringLiteral("kindBox"),
            QStringLiteral("domainEdit"),
            QStringLiteral("protocolBox"),
            QStringLiteral("useServerProxyBox"),
            QStringLiteral("apiKeyEdit"),
            QStringLiteral("forgetKeyButton"),
            QStringLiteral("imageEdit"),
            QStringLiteral("sandboxTimeoutBox"),
            QStringLiteral("bootstrapFileEdit"),
            QStringLiteral("bootstrapFileBrowseButton"),
            QStringLiteral("isolationBox"),
            QStringLiteral("ttlBox"),
            QStringLiteral("sweepIntervalBox"),
            QStringLiteral("refreshIntervalBox"),
            QStringLiteral("notifyBeforeExpiryEdit"),
            QStringLiteral("readOnlyBox"),
            QStringLiteral("muteNotificationsBox"),
            QStringLiteral("testConnectionButton"),
        };
        QCOMPARE(order, expected);

        // Every field has a buddy label with a mnemonic; buttons and boxes have their own.
        QStringList buddies;
        for (const QLabel *label : dialog.findChildren<QLabel *>()) {
            if (!label->buddy())
                continue;
            QVERIFY2(label->text().contains(u'&'), qPrintable(label->text()));
            buddies.append(label->buddy()->objectName());
        }
        for (const char *field : {"profileList", "nameEdit", "kindBox", "domainEdit", "protocolBox", "apiKeyEdit",
                                  "imageEdit", "sandboxTimeoutBox", "basedirEdit", "layoutBox", "isolationBox",
                                  "ttlBox", "sweepIntervalBox", "refreshIntervalBox"})
            QVERIFY2(buddies.contains(QLatin1String(field)), field);
        for (const QAbstractButton *button : dialog.findChildren<QAbstractButton *>()) {
            QVERIFY2(button->text().contains(u'&') || !button->accessibleName().isEmpty(),
                     qPrintable(button->objectName()));
        }

        // Enter in the list goes to the form and does not save; Enter in the form does.
        auto *nameEdit = find<QLineEdit>(dialog, "nameEdit");
        retype(nameEdit, QStringLiteral("Staging 2"));
        list->setFocus();
        QTest::keyClick(list, Qt::Key_Return);
        QCOMPARE(dialog.focusWidget(), nameEdit);
        QTest::qWait(0);
        QVERIFY(changed.isEmpty());
        QCOMPARE(f.store.profile(QStringLiteral("staging"))->name, QStringLiteral("Staging"));
        QTest::keyClick(nameEdit, Qt::Key_Return);
        QTRY_COMPARE(changed.count(), 1);
        QCOMPARE(f.store.profile(QStringLiteral("staging"))->name, QStringLiteral("Staging 2"));
    }

    // Alt+letter reaches one widget: no two of those shown at once (the fields' labels, the
    // boxes, the buttons, Save and Close) share a mnemonic, on the form of any backend.
    void mnemonicsAreUnique()
    {
        Fixture f;
        ProfilesDialog dialog(&f.store, &f.keychain, &f.sessionKeys);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QTest::mouseClick(find<QPushButton>(dialog, "addButton"), Qt::LeftButton);
        auto *kinds = find<QComboBox>(dialog, "kindBox");
        QVERIFY(kinds->count() >= 2);
        const auto mnemonic = [](const QString &text) -> QChar {
            for (qsizetype i = 0; i + 1 < text.size(); ++i) {
                if (text.at(i) != u'&')
                    continue;
                if (text.at(i + 1) != u'&')
                    return text.at(i + 1).toLower();
                ++i; // "&&" is a literal ampersand
            }
            return {};
        };
        for (int kind = 0; kind < kinds->count(); ++kind) {
            kinds->setCurrentIndex(kind);
            QHash<QChar, QString> taken;
            QStringList clashes;
            const auto take = [&](const QWidget *widget, const QString &text) {
                if (!widget->isVisibleTo(&dialog))
                    return;
                const QChar letter = mnemonic(text);
                if (letter.isNull())
                    return;
                if (taken.contains(letter))
                    clashes.append(QStringLiteral("'%1': %2 and %3").arg(letter, taken.value(letter), text));
                else
                    taken.insert(letter, text);
            };
            for (const QLabel *label : dialog.findChildren<QLabel *>())
                if (label->buddy())
                    take(label, label->text());
            for (const QAbstractButton *button : dialog.findChildren<QAbstractButton *>())
                take(button, button->text());
            QVERIFY2(clashes.isEmpty(),
                     qPrintable(kinds->currentText() + QStringLiteral(": ") + clashes.join(QStringLiteral("; "))));
        }
    }

    void closedWhileStoringKey()
    {
        Fixture f;
        auto *dialog = new ProfilesDialog(&f.store, &f.keychain, &f.sessionKeys);
        dialog->show();
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        QTest::mouseClick(find<QPushButton>(*dialog, "addButton"), Qt::LeftButton);
        QTest::keyClicks(find<QLineEdit>(*dialog, "nameEdit"), QStringLiteral("Brief"));
        QTest::keyClicks(find<QLineEdit>(*dialog, "domainEdit"), QStringLiteral("localhost:8080"));
        QTest::keyClicks(find<QLineEdit>(*dialog, "apiKeyEdit"), QStringLiteral("sk-brief"));
        QTest::mouseClick(saveButton(*dialog), Qt::LeftButton);
        QCOMPARE(f.keychain.pending, 1); // the keychain has not answered yet
        delete dialog;
        // The key still reaches the keychain, and nothing touches the dialog that is gone.
        QTRY_COMPARE(f.keychain.secrets.value(QStringLiteral("brief")), QByteArray("sk-brief"));
        QTRY_COMPARE(f.keychain.pending, 0);
        QVERIFY(f.reread(QStringLiteral("brief")));
    }

    void forgetKey()
    {
        Fixture f;
        f.addStaging();
        f.keychain.secrets.insert(QStringLiteral("staging"), "sk-forget-me");
        ProfilesDialog dialog(&f.store, &f.keychain, &f.sessionKeys);
        QSignalSpy changed(&dialog, &ProfilesDialog::profilesChanged);
        dialog.selectProfile(QStringLiteral("staging"));
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        auto *keyStatus = find<QLabel>(dialog, "keyStatusLabel");
        QTRY_COMPARE(keyStatus->text(), QStringLiteral("A key is stored in the system keychain."));
        auto *forget = find<QPushButton>(dialog, "forgetKeyButton");
        QVERIFY(forget->isEnabled());
        QTest::mouseClick(forget, Qt::LeftButton);
        QTRY_COMPARE(keyStatus->text(), QStringLiteral("No key stored."));
        QVERIFY(f.keychain.secrets.isEmpty());
        QVERIFY(!forget->isEnabled());
        QCOMPARE(changed.count(), 1);
        QVERIFY(f.store.profile(QStringLiteral("staging"))); // the profile stays
    }

    void kubernetesRows()
    {
        Fixture f;
        ProfilesDialog dialog(&f.store, &f.keychain, &f.sessionKeys);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QTest::mouseClick(find<QPushButton>(dialog, "addButton"), Qt::LeftButton);
        auto *kindBox = find<QComboBox>(dialog, "kindBox");
        kindBox->setCurrentIndex(kindBox->findData(int(Profile::Kind::Kubernetes)));
        QCOMPARE(kindBox->currentText(), QStringLiteral("Kubernetes"));

        // Exactly its rows (FormRows), each whole and in order, the read-only box among them.
        const QString problem = formProblem(dialog);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QVERIFY(find<QCheckBox>(dialog, "readOnlyBox")->isVisible());
        QVERIFY(find<QToolButton>(dialog, "kubeconfigBrowseButton")->isVisible());
        auto *contextBox = find<QComboBox>(dialog, "kubeContextBox");
        QVERIFY(contextBox->isEditable());
        QCOMPARE(contextBox->count(), 0); // no default kubeconfig: nothing to offer, and no problem
        QVERIFY(!errorOf(dialog, "kubeconfig")->isVisible());

        // Each field's default, as the backend's registration says it.
        QVERIFY2(find<QLineEdit>(dialog, "kubeconfigEdit")
                     ->placeholderText()
                     .startsWith(QLatin1String("Default: KUBECONFIG")),
                 qPrintable(find<QLineEdit>(dialog, "kubeconfigEdit")->placeholderText()));
        QCOMPARE(contextBox->lineEdit()->placeholderText(),
                 QStringLiteral("Default: the kubeconfig's current context"));
        QVERIFY(find<QLineEdit>(dialog, "kubeNamespaceEdit")->placeholderText().contains(QLatin1String("agentscope")));
        QCOMPARE(find<QLineEdit>(dialog, "imageEdit")->placeholderText(), QStringLiteral("Default: python:3.11-slim"));
        QCOMPARE(find<QLineEdit>(dialog, "storageSizeEdit")->placeholderText(), QStringLiteral("Default: 1Gi"));
        QCOMPARE(find<QLineEdit>(dialog, "storageClassEdit")->placeholderText(),
                 QStringLiteral("Default: the cluster's default"));
        QVERIFY(find<QLineEdit>(dialog, "storageSizeEdit")->toolTip().contains(QLatin1String("PersistentVolumeClaim")));

        // The key is a token here, optional, and said to replace the kubeconfig's credentials.
        auto *keyLabel = find<QLabel>(dialog, "apiKeyLabel");
        auto *apiKeyEdit = find<QLineEdit>(dialog, "apiKeyEdit");
        QCOMPARE(keyLabel->text(), QStringLiteral("&Token:"));
        QCOMPARE(keyLabel->buddy(), apiKeyEdit);
        QCOMPARE(apiKeyEdit->placeholderText(), QStringLiteral("Default: the kubeconfig's credentials"));
        QVERIFY2(apiKeyEdit->toolTip().contains(QLatin1String("instead of the credentials"))
                     && apiKeyEdit->toolTip().contains(QLatin1String("system keychain")),
                 qPrintable(apiKeyEdit->toolTip()));

        // The label follows the language (the form's own texts come back with it) and the backend.
        const auto english = qScopeGuard([] { useLanguage(QLocale(QLocale::English, QLocale::UnitedStates)); });
        QCOMPARE(useLanguage(QLocale(QStringLiteral("zh_CN"))), QStringLiteral("zh_CN"));
        QTRY_COMPARE(find<QCheckBox>(dialog, "readOnlyBox")->text(), QStringLiteral("只读(&Y)"));
        QCOMPARE(keyLabel->text(), QStringLiteral("令牌(&K)：")); // the token's, not the form's "API key" again
        useLanguage(QLocale(QLocale::English, QLocale::UnitedStates));
        QTRY_COMPARE(find<QCheckBox>(dialog, "readOnlyBox")->text(), QStringLiteral("Read-onl&y"));
        QCOMPARE(keyLabel->text(), QStringLiteral("&Token:"));
        kindBox->setCurrentIndex(kindBox->findData(int(Profile::Kind::OpenSandbox)));
        QCOMPARE(keyLabel->text(), QStringLiteral("API &key:"));
        QCOMPARE(apiKeyEdit->placeholderText(), QStringLiteral("Paste the API key"));
        QVERIFY(!find<QLineEdit>(dialog, "kubeconfigEdit")->isVisible());
        const QString back = formProblem(dialog);
        QVERIFY2(back.isEmpty(), qPrintable(back));
    }

    void kubernetesContexts()
    {
        Fixture f;
        writeFile(defaultKubeconfig(), kubeconfig({QStringLiteral("laptop")}, QStringLiteral("laptop")));
        const QString first =
            writeFile(f.dir.filePath(QStringLiteral("first.yaml")),
                      kubeconfig({QStringLiteral("prod"), QStringLiteral("staging")}, QStringLiteral("staging")));
        const QString second =
            writeFile(f.dir.filePath(QStringLiteral("second.yaml")),
                      kubeconfig({QStringLiteral("blue"), QStringLiteral("green")}, QStringLiteral("blue")));
        ProfilesDialog dialog(&f.store, &f.keychain, &f.sessionKeys);
        QSignalSpy changed(&dialog, &ProfilesDialog::profilesChanged);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QTest::mouseClick(find<QPushButton>(dialog, "addButton"), Qt::LeftButton);
        QTest::keyClicks(find<QLineEdit>(dialog, "nameEdit"), QStringLiteral("Cluster"));
        auto *kindBox = find<QComboBox>(dialog, "kindBox");
        kindBox->setCurrentIndex(kindBox->findData(int(Profile::Kind::Kubernetes)));
        auto *contextBox = find<QComboBox>(dialog, "kubeContextBox");
        auto *kubeconfigEdit = find<QLineEdit>(dialog, "kubeconfigEdit");

        // No kubeconfig named: the default one's contexts; none chosen means its current one.
        QCOMPARE(itemTexts(contextBox), QStringList{QStringLiteral("laptop (current)")});
        QCOMPARE(itemValues(contextBox), QStringList{QStringLiteral("laptop")});
        QVERIFY(contextBox->currentText().isEmpty());

        // A kubeconfig named: its contexts, the current one marked, read again as the path changes.
        QTest::keyClicks(kubeconfigEdit, first);
        QTRY_COMPARE(itemTexts(contextBox), (QStringList{QStringLiteral("prod"), QStringLiteral("staging (current)")}));
        QCOMPARE(itemValues(contextBox), (QStringList{QStringLiteral("prod"), QStringLiteral("staging")}));
        QVERIFY(contextBox->currentText().isEmpty());
        contextBox->setCurrentIndex(1);
        QCOMPARE(contextBox->currentText(), QStringLiteral("staging (current)"));
        retype(kubeconfigEdit, second);
        QTRY_COMPARE(itemTexts(contextBox), (QStringList{QStringLiteral("blue (current)"), QStringLiteral("green")}));
        QCOMPARE(contextBox->currentText(), QStringLiteral("staging")); // kept as the bare name
        QVERIFY(!errorOf(dialog, "kubeconfig")->isVisible());

        // A context the kubeconfig does not have and a namespace that cannot be one: each said under
        // its field, and nothing saved.
        auto *namespaceEdit = find<QLineEdit>(dialog, "kubeNamespaceEdit");
        QTest::keyClicks(namespaceEdit, QStringLiteral("Team_A"));
        const QByteArray before = f.fileBytes();
        QTest::mouseClick(saveButton(dialog), Qt::LeftButton);
        QVERIFY(errorOf(dialog, "kubeContext")->isVisible());
        QVERIFY2(errorOf(dialog, "kubeContext")->text().contains(QLatin1String("no context \"staging\"")),
                 qPrintable(errorOf(dialog, "kubeContext")->text()));
        QVERIFY(errorOf(dialog, "kubeContext")->text().contains(QLatin1String("blue, green")));
        QCOMPARE(contextBox->accessibleDescription(), errorOf(dialog, "kubeContext")->text());
        QVERIFY(errorOf(dialog, "kubeNamespace")->isVisible());
        QVERIFY(errorOf(dialog, "kubeNamespace")->text().contains(QLatin1String("\"Team_A\"")));
        QVERIFY(!errorOf(dialog, "kubeconfig")->isVisible());
        QCOMPARE(dialog.focusWidget(), contextBox); // the first bad field, its text selected
        QCOMPARE(contextBox->lineEdit()->selectedText(), QStringLiteral("staging"));
        QString problem = formProblem(dialog);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QCOMPARE(f.fileBytes(), before);
        QCOMPARE(f.keychain.writes, 0);
        QTest::qWait(0);
        QVERIFY(changed.isEmpty());

        // Bad storage fields too.
        auto *sizeEdit = find<QLineEdit>(dialog, "storageSizeEdit");
        auto *classEdit = find<QLineEdit>(dialog, "storageClassEdit");
        QTest::keyClicks(sizeEdit, QStringLiteral("lots"));
        QTest::keyClicks(classEdit, QStringLiteral("Fast SSD"));
        QTest::mouseClick(saveButton(dialog), Qt::LeftButton);
        QVERIFY(errorOf(dialog, "storageSize")->text().contains(QLatin1String("\"lots\"")));
        QVERIFY(errorOf(dialog, "storageClass")->text().contains(QLatin1String("\"Fast SSD\"")));
        problem = formProblem(dialog);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QCOMPARE(f.fileBytes(), before);

        // Fixed, with a token: every field saved, the token in the keychain only.
        contextBox->setCurrentIndex(contextBox->findData(QStringLiteral("green")));
        QVERIFY(!errorOf(dialog, "kubeContext")->isVisible()); // choosing is editing
        retype(namespaceEdit, QStringLiteral("team-a"));
        retype(sizeEdit, QStringLiteral("5Gi"));
        retype(classEdit, QStringLiteral("fast.ssd"));
        QTest::keyClicks(find<QLineEdit>(dialog, "imageEdit"), QStringLiteral("python:3.12-slim"));
        QTest::keyClicks(find<QLineEdit>(dialog, "apiKeyEdit"), QStringLiteral("k8s-token-0123"));
        find<QCheckBox>(dialog, "readOnlyBox")->setChecked(true);
        QTest::mouseClick(saveButton(dialog), Qt::LeftButton);
        QTRY_COMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).toStringList(), QStringList{QStringLiteral("cluster")});
        for (const char *field : {"kubeconfig", "kubeContext", "kubeNamespace", "storageSize", "storageClass", "image"})
            QVERIFY2(!errorOf(dialog, field)->isVisible(), field);
        const auto saved = f.reread(QStringLiteral("cluster"));
        QVERIFY(saved);
        QCOMPARE(saved->kind, Profile::Kind::Kubernetes);
        QCOMPARE(saved->kubeconfig, second);
        QCOMPARE(saved->kubeContext, QStringLiteral("green"));
        QCOMPARE(saved->kubeNamespace, QStringLiteral("team-a"));
        QCOMPARE(saved->storageSize, QStringLiteral("5Gi"));
        QCOMPARE(saved->storageClass, QStringLiteral("fast.ssd"));
        QCOMPARE(saved->image, QStringLiteral("python:3.12-slim"));
        QVERIFY(saved->readOnly);
        QCOMPARE(f.keychain.secrets.value(QStringLiteral("cluster")), QByteArray("k8s-token-0123"));
        QVERIFY(!f.sessionKey(QStringLiteral("cluster")));
        QVERIFY(!f.fileBytes().contains("k8s-token-0123"));
        QTRY_COMPARE(find<QLabel>(dialog, "keyStatusLabel")->text(),
                     QStringLiteral("A key is stored in the system keychain."));
        QCOMPARE(find<QLineEdit>(dialog, "apiKeyEdit")->placeholderText(),
                 QStringLiteral("Leave empty to keep the stored key"));
        QVERIFY(!dialog.hasUnsavedChanges());

        // Shown again as saved: the context chosen among its kubeconfig's, the default one now.
        ProfilesDialog again(&f.store, &f.keychain, &f.sessionKeys);
        again.selectProfile(QStringLiteral("cluster"));
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        auto *againBox = find<QComboBox>(again, "kubeContextBox");
        QCOMPARE(find<QLineEdit>(again, "kubeconfigEdit")->text(), second);
        QCOMPARE(itemTexts(againBox), (QStringList{QStringLiteral("blue (current)"), QStringLiteral("green")}));
        QCOMPARE(againBox->currentText(), QStringLiteral("green"));
        QCOMPARE(find<QLabel>(again, "apiKeyLabel")->text(), QStringLiteral("&Token:"));
        QVERIFY(!again.hasUnsavedChanges());
        retype(find<QLineEdit>(again, "kubeconfigEdit"), QString());
        QTRY_COMPARE(itemTexts(againBox), QStringList{QStringLiteral("laptop (current)")});
        againBox->setCurrentIndex(-1);
        againBox->clearEditText();
        QTest::mouseClick(saveButton(again), Qt::LeftButton);
        QTRY_COMPARE(f.reread(QStringLiteral("cluster"))->kubeContext, QString()); // empty: the current context
        QCOMPARE(f.reread(QStringLiteral("cluster"))->kubeconfig, QString());
    }

    void kubeconfigThatDoesNotParse()
    {
        Fixture f;
        const QByteArray broken("apiVersion: v1\nclusters:\n- name: a\n  cluster: {server: https://x\nusers: []\n");
        const QString bad = writeFile(f.dir.filePath(QStringLiteral("bad.yaml")), broken);
        const QString good = writeFile(f.dir.filePath(QStringLiteral("good.yaml")),
                                       kubeconfig({QStringLiteral("prod")}, QStringLiteral("prod")));
        const auto parsed = Kubernetes::contextsIn({bad});
        QVERIFY(!parsed);
        const QString expected = parsed.error().message;
        QVERIFY2(expected.contains(QLatin1String("does not parse")), qPrintable(expected));

        ProfilesDialog dialog(&f.store, &f.keychain, &f.sessionKeys);
        QSignalSpy changed(&dialog, &ProfilesDialog::profilesChanged);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QTest::mouseClick(find<QPushButton>(dialog, "addButton"), Qt::LeftButton);
        QTest::keyClicks(find<QLineEdit>(dialog, "nameEdit"), QStringLiteral("Broken"));
        auto *kindBox = find<QComboBox>(dialog, "kindBox");
        kindBox->setCurrentIndex(kindBox->findData(int(Profile::Kind::Kubernetes)));
        auto *kubeconfigEdit = find<QLineEdit>(dialog, "kubeconfigEdit");
        auto *contextBox = find<QComboBox>(dialog, "kubeContextBox");

        // Said at once under its field; the rest of the form goes on working.
        QTest::keyClicks(kubeconfigEdit, bad);
        QLabel *error = errorOf(dialog, "kubeconfig");
        QTRY_VERIFY(error->isVisible());
        QCOMPARE(error->text(), expected);
        QCOMPARE(kubeconfigEdit->accessibleDescription(), expected);
        QCOMPARE(contextBox->count(), 0);
        QString problem = formProblem(dialog);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        auto *namespaceEdit = find<QLineEdit>(dialog, "kubeNamespaceEdit");
        QTest::keyClicks(namespaceEdit, QStringLiteral("team"));
        QCOMPARE(namespaceEdit->text(), QStringLiteral("team"));
        QVERIFY(error->isVisible()); // other fields' edits leave it

        // Save names it once, and saves nothing.
        QTest::mouseClick(saveButton(dialog), Qt::LeftButton);
        QCOMPARE(error->text(), expected);
        QVERIFY(!errorOf(dialog, "kubeNamespace")->isVisible());
        QCOMPARE(dialog.focusWidget(), kubeconfigEdit);
        QVERIFY(!f.reread(QStringLiteral("broken")));
        QTest::qWait(0);
        QVERIFY(changed.isEmpty());

        // Another kind and back: still said.
        kindBox->setCurrentIndex(kindBox->findData(int(Profile::Kind::Docker)));
        kindBox->setCurrentIndex(kindBox->findData(int(Profile::Kind::Kubernetes)));
        QCOMPARE(error->text(), expected);
        problem = formProblem(dialog);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));

        // Fixed: the problem goes, its contexts come.
        retype(kubeconfigEdit, good);
        QTRY_COMPARE(itemTexts(contextBox), QStringList{QStringLiteral("prod (current)")});
        QVERIFY(!error->isVisible());

        // A file that is not there offers no context, and is said by Save, not while it is typed.
        retype(kubeconfigEdit, f.dir.filePath(QStringLiteral("missing.yaml")));
        QTRY_COMPARE(contextBox->count(), 0);
        QVERIFY(!error->isVisible());
        QTest::mouseClick(saveButton(dialog), Qt::LeftButton);
        QVERIFY2(error->text().contains(QLatin1String("There is no kubeconfig file")), qPrintable(error->text()));
        QVERIFY(error->isVisible());

        retype(kubeconfigEdit, good);
        QTRY_COMPARE(contextBox->count(), 1);
        QVERIFY(!error->isVisible());
        QTest::mouseClick(saveButton(dialog), Qt::LeftButton);
        QTRY_COMPARE(changed.count(), 1);
        QCOMPARE(f.reread(QStringLiteral("broken"))->kubeconfig, good);
        QVERIFY(f.keychain.secrets.isEmpty()); // no token typed: none stored, none needed

        // The default kubeconfig that does not parse is said too.
        writeFile(defaultKubeconfig(), broken);
        retype(kubeconfigEdit, QString());
        QTRY_VERIFY(error->isVisible());
        QVERIFY2(error->text().contains(defaultKubeconfig()), qPrintable(error->text()));
    }

    // Test Connection lists once with the profile as the form shows it, never saving anything:
    // the stored key, a wrong key typed (401), a server gone, a cancelled test, and Local.
    void testConnection()
    {
        PaddockTest::FakeOpenSandboxProcess server;
        QVERIFY2(server.start({QStringLiteral("--api-key"), QStringLiteral("s3cret"), QStringLiteral("--seed"),
                               QStringLiteral("3")}),
                 qPrintable(server.error()));
        Fixture f;
        {
            Profile local = f.store.profiles().constFirst();
            local.basedir = f.dir.filePath(QStringLiteral("workspaces"));
            QVERIFY(f.store.save(local));
            Profile team;
            team.id = QStringLiteral("team");
            team.name = QStringLiteral("Team");
            team.kind = Profile::Kind::OpenSandbox;
            team.domain = server.domain();
            QVERIFY(f.store.save(team));
        }
        f.keychain.secrets.insert(QStringLiteral("team"), "s3cret");
        const QByteArray saved = f.fileBytes();
        ProfilesDialog dialog(&f.store, &f.keychain, &f.sessionKeys);
        QSignalSpy changed(&dialog, &ProfilesDialog::profilesChanged);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        dialog.selectProfile(QStringLiteral("team"));
        QCOMPARE(dialog.currentProfileId(), QStringLiteral("team"));
        auto *tester = find<ConnectionTester>(dialog, "connectionTester");
        auto *button = find<QPushButton>(dialog, "testConnectionButton");
        auto *result = find<ElidedLabel>(dialog, "testConnectionResult");
        QVERIFY(tester && button && result);
        QVERIFY(button->isVisible());
        QSignalSpy finished(tester, &ConnectionTester::finished);
        // A test may end at once (a form that is not right) or after its listing.
        const auto test = [&] {
            const qsizetype before = finished.count();
            QTest::mouseClick(button, Qt::LeftButton);
            return QTest::qWaitFor([&] { return finished.count() > before; });
        };

        // The keychain's key.
        QVERIFY(test());
        QCOMPARE(finished.constLast().at(0).toBool(), true);
        QVERIFY2(result->text().startsWith(QLatin1String("Connected: 3 workspace")), qPrintable(result->text()));
        QVERIFY(!tester->resultIsProblem());
        QVERIFY(!tester->isRunning());

        // A wrong key typed wins over the stored one: the server's refusal, in place.
        auto *keyEdit = find<QLineEdit>(dialog, "apiKeyEdit");
        retype(keyEdit, QStringLiteral("wr0ng-key"));
        QVERIFY(test());
        QCOMPARE(finished.constLast().at(0).toBool(), false);
        QVERIFY2(result->text().startsWith(QLatin1String("Failed: ")), qPrintable(result->text()));
        QVERIFY(!result->text().contains(QLatin1String("wr0ng-key")));
        QVERIFY(tester->resultIsProblem());

        // The right key typed, then the domain edited to a server that is gone.
        retype(keyEdit, QStringLiteral("s3cret"));
        QVERIFY(test());
        QCOMPARE(finished.constLast().at(0).toBool(), true);
        QTcpServer closed;
        QVERIFY(closed.listen(QHostAddress::LocalHost));
        const quint16 port = closed.serverPort();
        closed.close();
        retype(find<QLineEdit>(dialog, "domainEdit"), QStringLiteral("127.0.0.1:%1").arg(port));
        QVERIFY(test());
        QCOMPARE(finished.constLast().at(0).toBool(), false);
        QVERIFY2(result->text().startsWith(QLatin1String("Failed: ")), qPrintable(result->text()));

        // Cancelled: the button cancels while it runs, and the answer is dropped.
        retype(find<QLineEdit>(dialog, "domainEdit"), server.domain());
        finished.clear();
        QTest::mouseClick(button, Qt::LeftButton);
        QVERIFY(tester->isRunning());
        QCOMPARE(button->text(), QStringLiteral("Cancel Test"));
        QTest::mouseClick(button, Qt::LeftButton);
        QVERIFY(!tester->isRunning());
        QCOMPARE(result->text(), QStringLiteral("Test cancelled."));
        // Tested again at once: one answer only, this one's (the cancelled listing went out first
        // and its answer is dropped).
        QVERIFY(test());
        QCOMPARE(finished.count(), 1);
        QVERIFY2(result->text().startsWith(QLatin1String("Connected: 3 workspace")), qPrintable(result->text()));

        // Nothing was saved: not the edits, not the key typed.
        QVERIFY(dialog.hasUnsavedChanges());
        QCOMPARE(f.fileBytes(), saved);
        QCOMPARE(f.keychain.writes, 0);
        QCOMPARE(f.keychain.secrets.value(QStringLiteral("team")), QByteArray("s3cret"));
        QVERIFY(!f.sessionKey(QStringLiteral("team")));
        QCOMPARE(changed.count(), 0);

        // Local, in its folder (none yet: no workspaces). Discard the edits to get there.
        auto *list = find<QListWidget>(dialog, "profileList");
        list->setCurrentRow(0);
        QMessageBox *box = nullptr;
        QTRY_VERIFY((box = dialog.findChild<QMessageBox *>(QStringLiteral("unsavedChanges"))) && box->isVisible());
        box->button(QMessageBox::Discard)->click();
        QTRY_COMPARE(dialog.currentProfileId(), QStringLiteral("local"));
        QVERIFY(result->text().isEmpty()); // the last profile's result is gone
        QVERIFY(test());
        QVERIFY2(finished.constLast().at(0).toBool(), qPrintable(result->text()));
        QVERIFY2(result->text().startsWith(QLatin1String("Connected: 0 workspace")), qPrintable(result->text()));
    }

    // Without a key typed or stored, the test still asks, as the console does: a server that
    // needs no key answers; one that needs it refuses, and the result says there was none.
    void testConnectionWithoutKey()
    {
        PaddockTest::FakeOpenSandboxProcess open;
        QVERIFY2(open.start({QStringLiteral("--seed"), QStringLiteral("2")}), qPrintable(open.error()));
        PaddockTest::FakeOpenSandboxProcess locked;
        QVERIFY2(locked.start({QStringLiteral("--api-key"), QStringLiteral("s3cret")}), qPrintable(locked.error()));
        Fixture f;
        Profile team;
        team.id = QStringLiteral("team");
        team.name = QStringLiteral("Team");
        team.kind = Profile::Kind::OpenSandbox;
        team.domain = open.domain();
        QVERIFY(f.store.save(team));
        ProfilesDialog dialog(&f.store, &f.keychain, &f.sessionKeys);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        dialog.selectProfile(QStringLiteral("team"));
        auto *tester = find<ConnectionTester>(dialog, "connectionTester");
        auto *button = find<QPushButton>(dialog, "testConnectionButton");
        auto *result = find<ElidedLabel>(dialog, "testConnectionResult");
        QSignalSpy finished(tester, &ConnectionTester::finished);
        const auto test = [&] {
            const qsizetype before = finished.count();
            QTest::mouseClick(button, Qt::LeftButton);
            return QTest::qWaitFor([&] { return finished.count() > before; });
        };
        QVERIFY(test());
        QVERIFY2(finished.constLast().at(0).toBool(), qPrintable(result->text()));
        QVERIFY2(result->text().startsWith(QLatin1String("Connected: 2 workspace")), qPrintable(result->text()));

        retype(find<QLineEdit>(dialog, "domainEdit"), locked.domain());
        QVERIFY(test());
        QCOMPARE(finished.constLast().at(0).toBool(), false);
        QVERIFY2(result->text().startsWith(QLatin1String("Failed without a key (none is typed or stored for this "
                                                         "profile): ")),
                 qPrintable(result->text()));
        QVERIFY(tester->resultIsProblem());
        QCOMPARE(f.keychain.writes, 0);
    }

    // Test Connection on E2B, against paddock-fake-e2b: the stored key lists, a wrong one typed
    // is refused, and neither is shown.
    void testConnectionE2B()
    {
        const QByteArray key = "e2b_0123456789abcdef0123456789abcdef01234567";
        const QByteArray wrong = "e2b_ffffffffffffffffffffffffffffffffffffffff";
        PaddockTest::FakeE2bProcess server;
        QVERIFY2(server.start({QStringLiteral("--api-key"), QString::fromLatin1(key), QStringLiteral("--seed"),
                               QStringLiteral("4")}),
                 qPrintable(server.error()));
        Fixture f;
        Profile e2b;
        e2b.id = QStringLiteral("e2b");
        e2b.name = QStringLiteral("E2B");
        e2b.kind = Profile::Kind::E2B;
        e2b.apiUrl = server.apiUrl().toString();
        e2b.sandboxUrl = server.envdUrl().toString();
        QVERIFY(f.store.save(e2b));
        f.keychain.secrets.insert(QStringLiteral("e2b"), key);
        ProfilesDialog dialog(&f.store, &f.keychain, &f.sessionKeys);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        dialog.selectProfile(QStringLiteral("e2b"));
        auto *tester = find<ConnectionTester>(dialog, "connectionTester");
        auto *button = find<QPushButton>(dialog, "testConnectionButton");
        auto *result = find<ElidedLabel>(dialog, "testConnectionResult");
        QSignalSpy finished(tester, &ConnectionTester::finished);
        const auto test = [&] {
            const qsizetype before = finished.count();
            QTest::mouseClick(button, Qt::LeftButton);
            return QTest::qWaitFor([&] { return finished.count() > before; });
        };
        QVERIFY(test());
        QVERIFY2(finished.constLast().at(0).toBool(), qPrintable(result->text()));
        QVERIFY2(result->text().startsWith(QLatin1String("Connected: 4 workspace")), qPrintable(result->text()));
        retype(find<QLineEdit>(dialog, "apiKeyEdit"), QString::fromLatin1(wrong));
        QVERIFY(test());
        QCOMPARE(finished.constLast().at(0).toBool(), false);
        QVERIFY2(result->text().startsWith(QLatin1String("Failed: ")), qPrintable(result->text()));
        QVERIFY(!result->text().contains(QString::fromLatin1(wrong)));
        QVERIFY(!result->text().contains(QString::fromLatin1(key)));
        QCOMPARE(f.keychain.writes, 0);
    }
};

QTEST_MAIN(TestProfilesDialog)
#include "tst_profilesdialog.moc"
