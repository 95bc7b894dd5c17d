#include "profilesdialog.h"

#include "backendregistry.h"
#include "connectiontester.h"
#include "secretstore.h"
#include "ui_profilesdialog.h"

#include <QCoroSignal>
#include <QCoroTask>

#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTimer>
#include <QToolButton>

#include <algorithm>

using namespace Paddock;

namespace {

constexpr int IdRole = Qt::UserRole;
// How long typing in the kubeconfig field pauses before the file is read for its contexts.
constexpr std::chrono::milliseconds ContextsDelay{300};

bool isLocalId(const QString &id)
{
    return id == Profile::local().id;
}

// Selects the item holding `data`; a value the choices do not offer (a hand-edited settings
// file) is added as it is, so the form shows it and validation can name the problem.
void setComboData(QComboBox *box, const QVariant &data, const QString &textIfMissing)
{
    int index = box->findData(data);
    if (index < 0) {
        box->addItem(textIfMissing, data);
        index = box->count() - 1;
    }
    box->setCurrentIndex(index);
}

int spinValue(const QSpinBox *box, std::chrono::seconds seconds)
{
    return int(std::clamp<qint64>(seconds.count(), box->minimum(), box->maximum()));
}

} // namespace

ProfilesDialog::ProfilesDialog(ProfileStore *store, SecretStore *secrets, SecretStore *sessionKeys, QWidget *parent)
    : QDialog(parent)
    , m_ui(std::make_unique<Ui::ProfilesDialog>())
    , m_store(store)
    , m_secrets(secrets)
    , m_sessionKeys(sessionKeys)
    , m_contextsTimer(new QTimer(this))
{
    m_ui->setupUi(this);
    setObjectName(QStringLiteral("profilesDialog"));
    m_contextsTimer->setSingleShot(true);
    m_contextsTimer->setInterval(ContextsDelay);
    connect(m_contextsTimer, &QTimer::timeout, this, &ProfilesDialog::fillContexts);
    setupFields();
    styleErrorLabels();
    retranslate();
    // Test Connection: the profile as the form shows it, not saved.
    m_tester = new ConnectionTester(m_secrets, m_sessionKeys, this);
    // Beside the dialog's buttons, so that the form keeps its height.
    auto *bottom = new QHBoxLayout;
    const int buttonsAt = m_ui->layout->indexOf(m_ui->buttonBox);
    m_ui->layout->removeWidget(m_ui->buttonBox);
    bottom->addWidget(m_tester, 1);
    bottom->addWidget(m_ui->buttonBox);
    m_ui->layout->insertLayout(buttonsAt, bottom);
    m_tester->setRequestSource([this] {
        return ConnectionTester::Request{formProfile(), typedKey(), m_isNew ? QString() : m_currentId};
    });

    // Enter saves from anywhere in the form; Esc, Close and the window's close button ask about
    // unsaved edits first (reject()).
    QPushButton *saveButton = m_ui->buttonBox->button(QDialogButtonBox::Save);
    saveButton->setDefault(true);
    connect(saveButton, &QPushButton::clicked, this, [this] { save(); });
    connect(m_ui->buttonBox, &QDialogButtonBox::rejected, this, &ProfilesDialog::reject);
    // Enter in the list opens the profile in the form instead of saving it.
    m_ui->profileList->installEventFilter(this);
    connect(m_ui->profileList, &QListWidget::currentItemChanged, this, &ProfilesDialog::onCurrentItemChanged);
    connect(m_ui->addButton, &QPushButton::clicked, this, [this] { addProfile(); });
    connect(m_ui->removeButton, &QPushButton::clicked, this, [this] { removeProfile(); });
    connect(m_ui->forgetKeyButton, &QPushButton::clicked, this, [this] { forgetKey(); });
    connect(m_ui->basedirBrowseButton, &QPushButton::clicked, this, &ProfilesDialog::browseBasedir);
    connect(m_ui->bootstrapFileBrowseButton, &QToolButton::clicked, this, &ProfilesDialog::browseBootstrapFile);
    connect(m_ui->kubeconfigBrowseButton, &QToolButton::clicked, this, &ProfilesDialog::browseKubeconfig);

    const auto edited = [this](const char *field) { return [this, field] { fieldEdited(QLatin1String(field)); }; };
    connect(m_ui->nameEdit, &QLineEdit::textChanged, this, edited("name"));
    connect(m_ui->kindBox, &QComboBox::currentIndexChanged, this, edited("kind"));
    connect(m_ui->dockerHostEdit, &QLineEdit::textChanged, this, edited("dockerHost"));
    connect(m_ui->domainEdit, &QLineEdit::textChanged, this, edited("domain"));
    connect(m_ui->apiUrlEdit, &QLineEdit::textChanged, this, edited("apiUrl"));
    connect(m_ui->sandboxUrlEdit, &QLineEdit::textChanged, this, edited("sandboxUrl"));
    connect(m_ui->protocolBox, &QComboBox::currentIndexChanged, this, edited("protocol"));
    connect(m_ui->useServerProxyBox, &QCheckBox::toggled, this, edited("useServerProxy"));
    connect(m_ui->kubeconfigEdit, &QLineEdit::textChanged, this, edited("kubeconfig"));
    connect(m_ui->kubeContextBox, &QComboBox::editTextChanged, this, edited("kubeContext"));
    connect(m_ui->kubeNamespaceEdit, &QLineEdit::textChanged, this, edited("kubeNamespace"));
    connect(m_ui->apiKeyEdit, &QLineEdit::textChanged, this, edited("apiKey"));
    connect(m_ui->imageEdit, &QLineEdit::textChanged, this, edited("image"));
    connect(m_ui->sandboxTimeoutBox, &QSpinBox::valueChanged, this, edited("sandboxTimeout"));
    connect(m_ui->storageSizeEdit, &QLineEdit::textChanged, this, edited("storageSize"));
    connect(m_ui->storageClassEdit, &QLineEdit::textChanged, this, edited("storageClass"));
    connect(m_ui->basedirEdit, &QLineEdit::textChanged, this, edited("basedir"));
    connect(m_ui->layoutBox, &QComboBox::currentIndexChanged, this, edited("layout"));
    connect(m_ui->stopInsteadOfPauseBox, &QCheckBox::toggled, this, edited("stopInsteadOfPause"));
    connect(m_ui->bootstrapFileEdit, &QLineEdit::textChanged, this, edited("bootstrapFile"));
    connect(m_ui->isolationBox, &QComboBox::currentIndexChanged, this, edited("isolation"));
    connect(m_ui->ttlBox, &QSpinBox::valueChanged, this, edited("ttl"));
    connect(m_ui->sweepIntervalBox, &QSpinBox::valueChanged, this, edited("sweepInterval"));
    connect(m_ui->refreshIntervalBox, &QComboBox::currentIndexChanged, this, edited("refreshInterval"));
    connect(m_ui->readOnlyBox, &QCheckBox::toggled, this, edited("readOnly"));
    connect(m_ui->notifyBeforeExpiryEdit, &QLineEdit::textChanged, this, edited("notifyBeforeExpiry"));
    connect(m_ui->muteNotificationsBox, &QCheckBox::toggled, this, edited("muteNotifications"));

    fillProfileList();
    showStoredProfile(m_store->profiles().constFirst().id);
}

ProfilesDialog::~ProfilesDialog() = default;

void ProfilesDialog::setupFields()
{
    const auto field = [](const char *name, QWidget *editor, QWidget *row, QLabel *error) {
        return Field{QLatin1String(name), editor, row, error};
    };
    // Each problem shows under its field, in the same row of the form: hiding and showing a
    // message never changes which rows the form has.
    m_fields = {
        field("name", m_ui->nameEdit, m_ui->nameField, m_ui->nameError),
        field("dockerHost", m_ui->dockerHostEdit, m_ui->dockerHostField, m_ui->dockerHostError),
        field("domain", m_ui->domainEdit, m_ui->domainField, m_ui->domainError),
        field("apiUrl", m_ui->apiUrlEdit, m_ui->apiUrlField, m_ui->apiUrlError),
        field("sandboxUrl", m_ui->sandboxUrlEdit, m_ui->sandboxUrlField, m_ui->sandboxUrlError),
        field("protocol", m_ui->protocolBox, m_ui->protocolField, m_ui->protocolError),
        field("kubeconfig", m_ui->kubeconfigEdit, m_ui->kubeconfigField, m_ui->kubeconfigError),
        field("kubeContext", m_ui->kubeContextBox, m_ui->kubeContextField, m_ui->kubeContextError),
        field("kubeNamespace", m_ui->kubeNamespaceEdit, m_ui->kubeNamespaceField, m_ui->kubeNamespaceError),
        field("image", m_ui->imageEdit, m_ui->imageField, m_ui->imageError),
        field("sandboxTimeout", m_ui->sandboxTimeoutBox, m_ui->sandboxTimeoutField, m_ui->sandboxTimeoutError),
        field("storageSize", m_ui->storageSizeEdit, m_ui->storageSizeField, m_ui->storageSizeError),
        field("storageClass", m_ui->storageClassEdit, m_ui->storageClassField, m_ui->storageClassError),
        field("basedir", m_ui->basedirEdit, m_ui->basedirField, m_ui->basedirError),
        field("layout", m_ui->layoutBox, m_ui->layoutField, m_ui->layoutError),
        field("bootstrapFile", m_ui->bootstrapFileEdit, m_ui->bootstrapFileField, m_ui->bootstrapFileError),
        field("isolation", m_ui->isolationBox, m_ui->isolationField, m_ui->isolationError),
        field("ttl", m_ui->ttlBox, m_ui->ttlField, m_ui->ttlError),
        field("sweepInterval", m_ui->sweepIntervalBox, m_ui->sweepIntervalField, m_ui->sweepIntervalError),
        field("refreshInterval", m_ui->refreshIntervalBox, m_ui->refreshIntervalField, m_ui->refreshIntervalError),
        field("notifyBeforeExpiry", m_ui->notifyBeforeExpiryEdit, m_ui->notifyBeforeExpiryField,
              m_ui->notifyBeforeExpiryError),
    };
    for (const Field &f : std::as_const(m_fields)) {
        QFont font = f.error->font();
        if (font.pointSizeF() > 0)
            font.setPointSizeF(font.pointSizeF() * 0.9);
        f.error->setFont(font);
        f.error->hide();
    }
    // Every row of the form, in order (each field a widget of its own).
    QFormLayout *form = m_ui->formLayout;
    for (int row = 0; row < form->rowCount(); ++row) {
        QLayoutItem *label = form->itemAt(row, QFormLayout::LabelRole);
        m_rows.append({label ? label->widget() : nullptr, form->itemAt(row, QFormLayout::FieldRole)->widget(), true});
    }
}

// Qt 6.4's QFormLayout lays out the rows wrongly once the form holds a hidden row and a row whose
// height depends on its width (a wrapped problem under a field): the hidden row keeps the place
// it had when it was last shown, and writes its empty height over the row that has that place
// now, which then shows 0 px high. So rows that do not apply are taken out of the form and put
// back, and the form never holds a hidden row.
void ProfilesDialog::setRowShown(QWidget *field, bool shown)
{
    const auto it = std::find_if(m_rows.begin(), m_rows.end(), [field](const FormRow &r) { return r.field == field; });
    Q_ASSERT(it != m_rows.end());
    if (it == m_rows.end() || it->shown == shown)
        return;
    QFormLayout *form = m_ui->formLayout;
    if (shown) {
        const auto place = std::count_if(m_rows.begin(), it, [](const FormRow &r) { return r.shown; });
        form->insertRow(int(place), it->label, it->field);
    } else {
        int row = -1;
        QFormLayout::ItemRole role;
        form->getWidgetPosition(field, &row, &role);
        const QFormLayout::TakeRowResult taken = form->takeRow(row);
        delete taken.labelItem; // the layout items, not the widgets
        delete taken.fieldItem;
    }
    if (it->label)
        it->label->setVisible(shown);
    it->field->setVisible(shown);
    it->shown = shown;
}

bool ProfilesDialog::isRowShown(QWidget *field) const
{
    const auto it =
        std::find_if(m_rows.cbegin(), m_rows.cend(), [field](const FormRow &r) { return r.field == field; });
    return it != m_rows.cend() && it->shown;
}

void ProfilesDialog::styleErrorLabels()
{
    // Red that reads on light and dark themes alike.
    const bool dark = palette().color(QPalette::Window).lightness() < 128;
    const QColor red = dark ? QColor(0xff, 0x8a, 0x80) : QColor(0xc6, 0x28, 0x28);
    for (const Field &f : std::as_const(m_fields)) {
        QPalette errorPalette = f.error->palette();
        errorPalette.setColor(QPalette::WindowText, red);
        f.error->setPalette(errorPalette);
    }
    m_errorColor = red;
}

void ProfilesDialog::retranslate()
{
    rememberFormTexts();
    QPushButton *saveButton = m_ui->buttonBox->button(QDialogButtonBox::Save);
    saveButton->setText(tr("&Save"));
    saveButton->setToolTip(tr("Save the profile (Enter)"));
    m_ui->buttonBox->button(QDialogButtonBox::Close)->setText(tr("&Close"));
    updateTimeoutChoice();
    m_ui->sandboxTimeoutBox->setSuffix(tr(" s"));
    m_ui->ttlBox->setSuffix(tr(" s"));
    m_ui->sweepIntervalBox->setSuffix(tr(" s"));
    updatePlaceholders();
    updateKeyHints();
    if (QListWidgetItem *draft = itemFor(QString()))
        draft->setText(tr("New profile"));
    // The Local profile's own name is in the language of the moment, in the list and in the form.
    for (int row = 0; row < m_ui->profileList->count(); ++row) {
        QListWidgetItem *item = m_ui->profileList->item(row);
        if (const auto profile = m_store->profile(item->data(IdRole).toString()))
            item->setText(profile->displayName());
    }
    if (isLocalId(m_currentId) && !m_isNew && Profile::isLocalName(m_ui->nameEdit->text())) {
        const bool loading = m_loading;
        m_loading = true;
        m_ui->nameEdit->setText(Profile::local().displayName());
        m_loading = loading;
    }

    fillChoices(true);
    fillContexts(); // "(current)" in the language of the moment
}

// The choices of the combo boxes, keeping what is chosen (or not: a profile being loaded drops
// values that a previous one added).
void ProfilesDialog::fillChoices(bool keepChosen)
{
    const bool loading = m_loading;
    m_loading = true;
    const QVariant kind = keepChosen ? m_ui->kindBox->currentData() : QVariant();
    m_ui->kindBox->clear();
    for (const BackendFactory &factory : BackendRegistry::instance().factories())
        m_ui->kindBox->addItem(factory.displayName(), int(factory.kind));
    if (kind.isValid())
        m_ui->kindBox->setCurrentIndex(std::max(0, m_ui->kindBox->findData(kind)));

    const QVariant protocol = keepChosen ? m_ui->protocolBox->currentData() : QVariant();
    m_ui->protocolBox->clear();
    for (const QString &name : {QStringLiteral("http"), QStringLiteral("https")})
        m_ui->protocolBox->addItem(name, name);
    if (protocol.isValid())
        setComboData(m_ui->protocolBox, protocol, protocol.toString());

    const QVariant layout = keepChosen ? m_ui->layoutBox->currentData() : QVariant();
    m_ui->layoutBox->clear();
    m_ui->layoutBox->addItem(tr("Paddock's"), int(Profile::Layout::Paddock));
    m_ui->layoutBox->addItem(tr("AgentScope's"), int(Profile::Layout::AgentScope));
    m_ui->layoutBox->setItemData(0, tr("A folder per workspace id, with Paddock's metadata in it"), Qt::ToolTipRole);
    m_ui->layoutBox->setItemData(1, tr("The folders and containers of AgentScope's own workspace managers"),
                                 Qt::ToolTipRole);
    if (layout.isValid())
        m_ui->layoutBox->setCurrentIndex(std::max(0, m_ui->layoutBox->findData(layout)));

    const QVariant isolation = keepChosen ? m_ui->isolationBox->currentData() : QVariant();
    m_ui->isolationBox->clear();
    m_ui->isolationBox->addItem(tr("One workspace per agent (PER_AGENT)"), int(IsolationPolicy::PerAgent));
    m_ui->isolationBox->addItem(tr("A new workspace for every session (PER_SESSION)"),
                                int(IsolationPolicy::PerSession));
    m_ui->isolationBox->addItem(tr("One workspace per user (PER_USER)"), int(IsolationPolicy::PerUser));
    if (isolation.isValid())
        m_ui->isolationBox->setCurrentIndex(std::max(0, m_ui->isolationBox->findData(isolation)));

    const QVariant refresh = keepChosen ? m_ui->refreshIntervalBox->currentData() : QVariant();
    m_ui->refreshIntervalBox->clear();
    for (const int seconds : RefreshChoices)
        m_ui->refreshIntervalBox->addItem(seconds == 0 ? tr("Off") : tr("%n second(s)", nullptr, seconds), seconds);
    if (refresh.isValid())
        setComboData(m_ui->refreshIntervalBox, refresh, tr("%n second(s)", nullptr, refresh.toInt()));
    m_loading = loading;
}

void ProfilesDialog::fillProfileList()
{
    const QSignalBlocker blocker(m_ui->profileList);
    m_ui->profileList->clear();
    for (const Profile &profile : m_store->profiles()) {
        auto *item = new QListWidgetItem(profile.displayName(), m_ui->profileList);
        item->setData(IdRole, profile.id);
    }
}

QListWidgetItem *ProfilesDialog::itemFor(const QString &id) const
{
    for (int row = 0; row < m_ui->profileList->count(); ++row) {
        QListWidgetItem *item = m_ui->profileList->item(row);
        if (item->data(IdRole).toString() == id)
            return item;
    }
    return nullptr;
}

void ProfilesDialog::setCurrentItemQuietly(const QString &id)
{
    const QSignalBlocker blocker(m_ui->profileList);
    if (QListWidgetItem *item = itemFor(id))
        m_ui->profileList->setCurrentItem(item);
}

void ProfilesDialog::removeDraftItem()
{
    const QSignalBlocker blocker(m_ui->profileList);
    delete itemFor(QString());
}

void ProfilesDialog::showStoredProfile(const QString &id)
{
    removeDraftItem();
    std::optional<Profile> profile = m_store->profile(id);
    if (!profile)
        profile = m_store->profiles().constFirst();
    setCurrentItemQuietly(profile->id);
    showProfile(*profile, false);
}

void ProfilesDialog::showProfile(const Profile &profile, bool isNew)
{
    if (m_tester)
        m_tester->reset(); // a result said about the profile shown before
    m_loading = true;
    fillChoices(false);
    m_ui->nameEdit->setText(profile.displayName());
    m_ui->kindBox->setCurrentIndex(m_ui->kindBox->findData(int(profile.kind)));
    m_ui->dockerHostEdit->setText(profile.dockerHost);
    m_ui->stopInsteadOfPauseBox->setChecked(profile.stopInsteadOfPause);
    m_ui->domainEdit->setText(profile.domain);
    m_ui->apiUrlEdit->setText(profile.apiUrl);
    m_ui->sandboxUrlEdit->setText(profile.sandboxUrl);
    setComboData(m_ui->protocolBox, profile.protocol, profile.protocol);
    m_ui->useServerProxyBox->setChecked(profile.useServerProxy);
    m_ui->kubeconfigEdit->setText(QDir::toNativeSeparators(profile.kubeconfig));
    setChosenContext(profile.kubeContext);
    m_ui->kubeNamespaceEdit->setText(profile.kubeNamespace);
    m_ui->apiKeyEdit->clear();
    m_ui->imageEdit->setText(profile.image);
    updateTimeoutChoice(); // the kind was just set: whether 0 (never expires) is a choice
    m_ui->sandboxTimeoutBox->setValue(spinValue(m_ui->sandboxTimeoutBox, profile.sandboxTimeout));
    m_ui->storageSizeEdit->setText(profile.storageSize);
    m_ui->storageClassEdit->setText(profile.storageClass);
    m_ui->basedirEdit->setText(QDir::toNativeSeparators(profile.basedir));
    m_ui->layoutBox->setCurrentIndex(std::max(0, m_ui->layoutBox->findData(int(profile.layout))));
    m_ui->bootstrapFileEdit->setText(QDir::toNativeSeparators(profile.bootstrapFile));
    m_ui->isolationBox->setCurrentIndex(std::max(0, m_ui->isolationBox->findData(int(profile.isolation))));
    m_ui->ttlBox->setValue(spinValue(m_ui->ttlBox, profile.ttl));
    m_ui->sweepIntervalBox->setValue(spinValue(m_ui->sweepIntervalBox, profile.sweepInterval));
    const int refresh = int(profile.refreshInterval.count());
    setComboData(m_ui->refreshIntervalBox, refresh, tr("%n second(s)", nullptr, refresh));
    m_ui->readOnlyBox->setChecked(profile.readOnly);
    m_ui->notifyBeforeExpiryEdit->setText(Profile::minutesText(profile.notifyBeforeExpiry));
    m_ui->muteNotificationsBox->setChecked(profile.muteNotifications);
    fillContexts(); // for this kubeconfig, keeping the context just set
    m_loading = false;

    m_currentId = isNew ? QString() : profile.id;
    m_isNew = isNew;
    m_baseline = formProfile(); // as the form holds it, so loading alone is no edit
    const bool local = isLocalId(m_currentId);
    m_ui->kindBox->setToolTip(local ? tr("The Local profile always uses the local backend.")
                                    : tr("Where the workspaces of this profile live"));
    updatePlaceholders(); // the kind was set while loading, which fieldEdited() ignores
    clearErrors();
    showStatus({});
    updateState();
    refreshKeyStatus();
}

Profile ProfilesDialog::formProfile() const
{
    Profile profile;
    profile.id = m_currentId;
    profile.name = m_ui->nameEdit->text().trimmed();
    // The Local profile under its own name: none stored, so it shows in any language.
    if (isLocalId(profile.id) && !m_isNew && Profile::isLocalName(profile.name))
        profile.name.clear();
    profile.kind = Profile::Kind(m_ui->kindBox->currentData().toInt());
    profile.dockerHost = m_ui->dockerHostEdit->text().trimmed();
    profile.stopInsteadOfPause = m_ui->stopInsteadOfPauseBox->isChecked();
    profile.domain = m_ui->domainEdit->text().trimmed();
    profile.apiUrl = m_ui->apiUrlEdit->text().trimmed();
    profile.sandboxUrl = m_ui->sandboxUrlEdit->text().trimmed();
    profile.protocol = m_ui->protocolBox->currentData().toString();
    profile.useServerProxy = m_ui->useServerProxyBox->isChecked();
    profile.kubeconfig = QDir::fromNativeSeparators(m_ui->kubeconfigEdit->text().trimmed());
    profile.kubeContext = chosenContext();
    profile.kubeNamespace = m_ui->kubeNamespaceEdit->text().trimmed();
    profile.image = m_ui->imageEdit->text().trimmed();
    profile.sandboxTimeout = std::chrono::seconds(m_ui->sandboxTimeoutBox->value());
    profile.storageSize = m_ui->storageSizeEdit->text().trimmed();
    profile.storageClass = m_ui->storageClassEdit->text().trimmed();
    profile.basedir = QDir::fromNativeSeparators(m_ui->basedirEdit->text().trimmed());
    profile.layout = Profile::Layout(m_ui->layoutBox->currentData().toInt());
    profile.bootstrapFile = QDir::fromNativeSeparators(m_ui->bootstrapFileEdit->text().trimmed());
    profile.isolation = IsolationPolicy(m_ui->isolationBox->currentData().toInt());
    profile.ttl = std::chrono::seconds(m_ui->ttlBox->value());
    profile.sweepInterval = std::chrono::seconds(m_ui->sweepIntervalBox->value());
    profile.refreshInterval = std::chrono::seconds(m_ui->refreshIntervalBox->currentData().toInt());
    profile.readOnly = m_ui->readOnlyBox->isChecked();
    profile.notifyBeforeExpiry = Profile::parseMinutes(m_ui->notifyBeforeExpiryEdit->text());
    profile.muteNotifications = m_ui->muteNotificationsBox->isChecked();
    return profile;
}

const BackendFactory *ProfilesDialog::chosenBackend() const
{
    return BackendRegistry::instance().find(Profile::Kind(m_ui->kindBox->currentData().toInt()));
}

QByteArray ProfilesDialog::typedKey() const
{
    if (!chosenBackend() || !chosenBackend()->usesKey)
        return {};
    return m_ui->apiKeyEdit->text().trimmed().toUtf8();
}

bool ProfilesDialog::hasUnsavedChanges() const
{
    return formProfile() != m_baseline || !typedKey().isEmpty();
}

void ProfilesDialog::fieldEdited(const QString &field)
{
    if (m_loading)
        return;
    clearError(field);
    if (field == QLatin1String("kind")) {
        updateRows();
        updatePlaceholders();
        updateTimeoutChoice();
        fillContexts();
        refreshKeyStatus(); // keys belong to the profiles of backends that use one
    } else if (field == QLatin1String("kubeconfig")) {
        m_kubeconfigProblem.clear(); // it was about the file named before
        m_contextsTimer->start(); // read once typing pauses, not at every key
    }
    updateState();
}

void ProfilesDialog::updateRows()
{
    // Only the fields the chosen backend uses, as its registration names them.
    const BackendFactory *backend = chosenBackend();
    const auto uses = [backend](const char *field) { return backend && backend->usesField(QLatin1String(field)); };
    const std::initializer_list<std::pair<QWidget *, const char *>> rows{
        {m_ui->domainField, "domain"},
        {m_ui->apiUrlField, "apiUrl"},
        {m_ui->sandboxUrlField, "sandboxUrl"},
        {m_ui->protocolField, "protocol"},
        {m_ui->useServerProxyBox, "useServerProxy"},
        {m_ui->sandboxTimeoutField, "sandboxTimeout"},
        // Notice before expiry: only where sandboxes expire.
        {m_ui->notifyBeforeExpiryField, "sandboxTimeout"},
        {m_ui->dockerHostField, "dockerHost"},
        {m_ui->stopInsteadOfPauseBox, "stopInsteadOfPause"},
        {m_ui->kubeconfigField, "kubeconfig"},
        {m_ui->kubeContextField, "kubeContext"},
        {m_ui->kubeNamespaceField, "kubeNamespace"},
        {m_ui->imageField, "image"},
        {m_ui->storageSizeField, "storageSize"},
        {m_ui->storageClassField, "storageClass"},
        {m_ui->basedirField, "basedir"},
        {m_ui->layoutField, "layout"},
    };
    for (const auto &[row, field] : rows)
        setRowShown(row, uses(field));
    for (QWidget *row : {static_cast<QWidget *>(m_ui->apiKeyEdit), static_cast<QWidget *>(m_ui->keyStatusField)})
        setRowShown(row, backend && backend->usesKey);
    for (const Field &f : std::as_const(m_fields))
        f.error->setVisible(!f.error->text().isEmpty());
}

// What the form's own texts are (the .ui's, in the language of the moment): a backend without a
// hint of its own for a field gets them back.
void ProfilesDialog::rememberFormTexts()
{
    m_formTexts.clear();
    for (const Field &f : std::as_const(m_fields)) {
        FormTexts texts;
        texts.toolTip = f.editor->toolTip();
        if (auto *edit = qobject_cast<QLineEdit *>(f.editor))
            texts.placeholder = edit->placeholderText();
        const auto row =
            std::find_if(m_rows.cbegin(), m_rows.cend(), [&f](const FormRow &r) { return r.field == f.row; });
        if (row != m_rows.cend())
            texts.label = qobject_cast<QLabel *>(row->label);
        if (texts.label)
            texts.labelText = texts.label->text();
        m_formTexts.insert(f.name, texts);
    }
}

// The same field means something else on each backend (an image is an E2B template, a domain a
// host:port or a host name): each backend's default, meaning and name for it, as its
// registration gives them, else the form's own.
void ProfilesDialog::updatePlaceholders()
{
    const BackendFactory *backend = chosenBackend();
    for (const Field &f : std::as_const(m_fields)) {
        const auto texts = m_formTexts.constFind(f.name);
        if (texts == m_formTexts.cend())
            continue;
        const FieldHint hint = backend && backend->hint ? backend->hint(f.name) : FieldHint{};
        QLineEdit *edit = qobject_cast<QLineEdit *>(f.editor);
        if (auto *box = qobject_cast<QComboBox *>(f.editor); box && box->lineEdit())
            edit = box->lineEdit();
        if (edit) {
            edit->setPlaceholderText(hint.defaultValue.isEmpty() ? texts->placeholder
                                                                 : tr("Default: %1").arg(hint.defaultValue));
        }
        f.editor->setToolTip(hint.toolTip.isEmpty() ? texts->toolTip : hint.toolTip);
        if (texts->label) {
            texts->label->setText(
                hint.label.isEmpty()
                    ? texts->labelText
                    : tr("&%1:", "a field's label as its backend names it (Template for an image)").arg(hint.label));
        }
    }
}

// Whether a sandbox timeout of 0 ("never expires") is a choice: only where the backend accepts
// one (E2B has no sandbox that never expires).
void ProfilesDialog::updateTimeoutChoice()
{
    const BackendFactory *backend = chosenBackend();
    bool neverAllowed = true;
    if (backend && backend->validate) {
        Profile probe;
        probe.kind = backend->kind;
        probe.sandboxTimeout = std::chrono::seconds(0);
        const QList<FieldError> errors = backend->validate(probe);
        neverAllowed = std::none_of(errors.cbegin(), errors.cend(), [](const FieldError &error) {
            return error.field == QLatin1String("sandboxTimeout");
        });
    }
    QSpinBox *box = m_ui->sandboxTimeoutBox;
    const bool loading = m_loading;
    m_loading = true; // a new minimum may move the value: that is not an edit
    box->setMinimum(neverAllowed ? 0 : 1);
    box->setSpecialValueText(neverAllowed ? tr("Never expires") : QString());
    m_loading = loading;
}

// Leaving the key field empty keeps a stored key; without one, requests go without a key. A
// backend may call its key otherwise (a Kubernetes token) and say what it does instead of one.
void ProfilesDialog::updateKeyHints()
{
    const BackendFactory *backend = chosenBackend();
    const FieldHint hint =
        backend && backend->usesKey && backend->hint ? backend->hint(QStringLiteral("apiKey")) : FieldHint{};
    m_ui->apiKeyLabel->setText(
        hint.label.isEmpty() ? tr("API &key:")
                             : tr("&%1:", "the key field's label as its backend names it (Token)").arg(hint.label));
    if (m_keyStored)
        m_ui->apiKeyEdit->setPlaceholderText(tr("Leave empty to keep the stored key"));
    else if (!hint.defaultValue.isEmpty())
        m_ui->apiKeyEdit->setPlaceholderText(tr("Default: %1").arg(hint.defaultValue));
    else
        m_ui->apiKeyEdit->setPlaceholderText(tr("Paste the API key"));
    if (!hint.toolTip.isEmpty()) {
        m_ui->apiKeyEdit->setToolTip(m_keyStored ? hint.toolTip + u' ' + tr("Leave empty to keep the stored key.")
                                                 : hint.toolTip);
    } else {
        m_ui->apiKeyEdit->setToolTip(
            m_keyStored ? tr("Stored in the system keychain, never in a file. Leave empty to keep the stored key.")
                        : tr("Stored in the system keychain, never in a file. No key: requests are sent without one."));
    }
}

void ProfilesDialog::updateState()
{
    updateKeyHints();
    setWindowModified(hasUnsavedChanges());
    const bool local = isLocalId(m_currentId) && !m_isNew;
    m_ui->kindBox->setEnabled(!local);
    m_ui->removeButton->setEnabled(!local && !m_busy);
    m_ui->forgetKeyButton->setEnabled(m_keyStored && !m_isNew && !m_busy);
    m_ui->buttonBox->button(QDialogButtonBox::Save)->setEnabled(!m_busy);
}

void ProfilesDialog::showErrors(const QList<FieldError> &errors)
{
    QStringList elsewhere; // problems without a field of their own in the form
    for (const FieldError &error : errors) {
        const auto it = std::find_if(m_fields.cbegin(), m_fields.cend(),
                                     [&error](const Field &f) { return f.name == error.field; });
        if (it == m_fields.cend() || !isRowShown(it->row)) {
            elsewhere.append(error.message);
            continue;
        }
        // The kubeconfig's problem may be there already (fillContexts() found it).
        if (it->error->text().split(u'\n').contains(error.message))
            continue;
        const QString text = it->error->text().isEmpty() ? error.message : it->error->text() + u'\n' + error.message;
        it->error->setText(text);
        it->editor->setAccessibleDescription(text);
    }
    updateRows();
    QString summary = tr("Nothing was saved. Correct the fields that show a problem.");
    if (!elsewhere.isEmpty())
        summary += u' ' + elsewhere.join(u' ');
    showStatus(summary, true);
    // The first bad field in the form's order gets the focus.
    for (const Field &f : std::as_const(m_fields)) {
        if (f.error->text().isEmpty())
            continue;
        f.editor->setFocus(Qt::OtherFocusReason);
        if (auto *edit = qobject_cast<QLineEdit *>(f.editor))
            edit->selectAll();
        else if (auto *box = qobject_cast<QComboBox *>(f.editor); box && box->lineEdit())
            box->lineEdit()->selectAll();
        break;
    }
}

void ProfilesDialog::clearError(const QString &field)
{
    const auto it =
        std::find_if(m_fields.cbegin(), m_fields.cend(), [&field](const Field &f) { return f.name == field; });
    if (it == m_fields.cend() || it->error->text().isEmpty())
        return;
    it->error->clear();
    it->error->hide();
    it->editor->setAccessibleDescription(QString());
}

void ProfilesDialog::clearErrors()
{
    for (const Field &f : std::as_const(m_fields)) {
        f.error->clear();
        f.editor->setAccessibleDescription(QString());
    }
    showKubeconfigProblem(m_kubeconfigProblem); // not a problem of the last save: it stays
    updateRows();
}

void ProfilesDialog::showStatus(const QString &text, bool problem)
{
    m_ui->statusLabel->setText(text);
    if (problem) {
        QPalette statusPalette = palette();
        statusPalette.setColor(QPalette::WindowText, m_errorColor);
        m_ui->statusLabel->setPalette(statusPalette);
    } else {
        m_ui->statusLabel->setPalette(QPalette()); // the dialog's again
    }
}

void ProfilesDialog::selectProfile(const QString &id)
{
    if (!m_store->profile(id) || (id == m_currentId && !m_isNew))
        return;
    switchTo(id);
}

void ProfilesDialog::onCurrentItemChanged(QListWidgetItem *current)
{
    if (!current)
        return;
    const QString target = current->data(IdRole).toString();
    if (target.isEmpty() || (target == m_currentId && !m_isNew))
        return;
    if (!hasUnsavedChanges()) {
        showStoredProfile(target);
        return;
    }
    // The form keeps its profile until the user has said what becomes of the edits.
    setCurrentItemQuietly(m_currentId);
    switchTo(target);
}

QCoro::Task<void> ProfilesDialog::switchTo(QString id)
{
    const QPointer<ProfilesDialog> self(this);
    const bool proceed = co_await settleUnsaved();
    if (!self)
        co_return;
    if (proceed && m_store->profile(id))
        showStoredProfile(id);
    else
        setCurrentItemQuietly(m_currentId); // also the draft's item (id empty)
}

QCoro::Task<bool> ProfilesDialog::settleUnsaved()
{
    if (!hasUnsavedChanges())
        co_return true;
    if (m_asking)
        co_return false;
    m_asking = true;
    const QString text = m_isNew ? tr("Save the new profile before going on?")
                                 : tr("Save the changes to \"%1\" before going on?").arg(m_baseline.displayName());
    QPointer<QMessageBox> box = new QMessageBox(QMessageBox::Question, tr("Profiles"), text,
                                                QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
    box->setObjectName(QStringLiteral("unsavedChanges"));
    box->setTextFormat(Qt::PlainText);
    box->setInformativeText(tr("Changes that are not saved are lost."));
    box->setDefaultButton(QMessageBox::Save);
    box->setEscapeButton(QMessageBox::Cancel);
    box->open();
    const QPointer<ProfilesDialog> self(this);
    const int answer = co_await qCoro(box.data(), &QDialog::finished);
    if (!self)
        co_return false;
    m_asking = false;
    if (box)
        box->deleteLater();
    if (answer == QMessageBox::Save) {
        const bool saved = co_await save();
        if (!self)
            co_return false;
        co_return saved;
    }
    if (answer == QMessageBox::Discard) {
        showStoredProfile(m_isNew ? m_returnId : m_currentId);
        co_return true;
    }
    co_return false;
}

QCoro::Task<bool> ProfilesDialog::save()
{
    if (m_busy)
        co_return false;
    clearErrors();
    showStatus({});
    Profile profile = formProfile();
    const bool isNew = m_isNew;
    if (isNew)
        profile.id = m_store->newId(profile.name);
    QList<Profile> others;
    for (const Profile &other : m_store->profiles()) {
        if (other.id != profile.id)
            others.append(other);
    }
    // Every field is checked before anything (settings or key) is written.
    const QList<FieldError> errors = validateProfile(profile, others);
    if (!errors.isEmpty()) {
        showErrors(errors);
        co_return false;
    }
    const bool changed = isNew || profile != m_baseline;
    if (changed) {
        QList<FieldError> storeErrors;
        const Result<> saved = m_store->save(profile, &storeErrors);
        if (!saved) {
            if (!storeErrors.isEmpty())
                showErrors(storeErrors);
            else
                showStatus(saved.error().message, true);
            co_return false;
        }
    }

    // The form now shows the saved profile; the key leaves the form before it is stored.
    const QByteArray key = typedKey();
    const QString id = profile.id;
    const QString name = profile.displayName();
    m_loading = true;
    m_ui->apiKeyEdit->clear();
    m_loading = false;
    if (QListWidgetItem *item = itemFor(isNew ? QString() : id)) {
        item->setData(IdRole, id);
        item->setText(name);
        QFont font = item->font();
        font.setItalic(false);
        item->setFont(font);
    }
    m_currentId = id;
    m_isNew = false;
    m_baseline = profile;
    updateState();
    if (key.isEmpty()) {
        if (changed) {
            showStatus(tr("The profile \"%1\" was saved.").arg(name));
            Q_EMIT profilesChanged(QStringList{id});
        } else {
            showStatus(tr("Nothing to save: the profile is unchanged."));
        }
        co_return true;
    }

    m_busy = true;
    updateState();
    showStatus(tr("Storing the API key in the system keychain…"));
    // The stores outlive the dialog: the key is finished with even if the dialog goes away
    // meanwhile; the dialog itself is touched only after checking that it still exists.
    const QPointer<ProfilesDialog> self(this);
    SecretStore *secrets = m_secrets;
    SecretStore *sessionKeys = m_sessionKeys;
    const Result<> stored = co_await secrets->write(id, key);
    Result<> kept;
    if (stored) {
        // A key kept for the session earlier would shadow the stored one.
        const Result<> dropped = co_await sessionKeys->remove(id);
        Q_UNUSED(dropped);
    } else {
        // Never a file: without a keychain the key lives in memory until Paddock quits.
        kept = co_await sessionKeys->write(id, key);
    }
    if (!self)
        co_return stored || kept;
    m_busy = false;
    updateState();
    Q_EMIT profilesChanged(QStringList{id});
    if (stored) {
        showStatus(tr("The profile \"%1\" and its API key were saved.").arg(name));
    } else {
        const QString text = kept
            ? tr("The system keychain is unavailable, so the API key of \"%1\" was not stored. Paddock keeps it in "
                 "memory only until it quits; you will need to enter it again after that.")
                  .arg(name)
            : tr("The system keychain is unavailable, so the API key of \"%1\" was not saved.").arg(name);
        showStatus(text, true);
        auto *box = new QMessageBox(QMessageBox::Warning, tr("Profiles"), text, QMessageBox::Ok, this);
        box->setObjectName(QStringLiteral("keyNotStored"));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->setTextFormat(Qt::PlainText);
        box->setInformativeText(stored.error().message);
        box->open();
    }
    refreshKeyStatus();
    co_return stored || kept;
}

QCoro::Task<void> ProfilesDialog::addProfile()
{
    if (m_isNew) {
        m_ui->nameEdit->setFocus(Qt::OtherFocusReason);
        co_return;
    }
    const QPointer<ProfilesDialog> self(this);
    const bool proceed = co_await settleUnsaved();
    if (!self || !proceed)
        co_return;
    m_returnId = m_currentId;
    Profile profile;
    profile.kind = Profile::Kind::OpenSandbox;
    auto *item = new QListWidgetItem(tr("New profile"));
    item->setData(IdRole, QString());
    QFont font = item->font();
    font.setItalic(true);
    item->setFont(font);
    {
        const QSignalBlocker blocker(m_ui->profileList);
        m_ui->profileList->addItem(item);
        m_ui->profileList->setCurrentItem(item);
    }
    showProfile(profile, true);
    showStatus(tr("Fill in the new profile, then save it."));
    m_ui->nameEdit->setFocus(Qt::OtherFocusReason);
}

QCoro::Task<void> ProfilesDialog::removeProfile()
{
    if (m_busy || m_asking)
        co_return;
    if (m_isNew) { // not saved yet: nothing to remove but the form
        showStoredProfile(m_returnId);
        co_return;
    }
    const QString id = m_currentId;
    const QString name = m_baseline.displayName();
    if (isLocalId(id))
        co_return; // the Local profile always exists (its button is disabled)
    QPointer<QMessageBox> box =
        new QMessageBox(QMessageBox::Warning, tr("Profiles"), tr("Remove the profile \"%1\"?").arg(name),
                        QMessageBox::Yes | QMessageBox::Cancel, this);
    box->setObjectName(QStringLiteral("confirmRemove"));
    box->setTextFormat(Qt::PlainText);
    box->setInformativeText(tr("Its settings and its API key are deleted. Its workspaces are not touched."));
    box->button(QMessageBox::Yes)->setText(tr("&Remove"));
    box->setDefaultButton(QMessageBox::Cancel);
    box->setEscapeButton(QMessageBox::Cancel);
    m_asking = true;
    box->open();
    const QPointer<ProfilesDialog> self(this);
    const int answer = co_await qCoro(box.data(), &QDialog::finished);
    if (!self)
        co_return;
    m_asking = false;
    if (box)
        box->deleteLater();
    if (answer != QMessageBox::Yes || m_currentId != id || m_isNew)
        co_return;
    const Result<> removed = m_store->remove(id);
    if (!removed) {
        showStatus(removed.error().message, true);
        co_return;
    }
    // The list shows the profile above the removed one.
    QListWidgetItem *item = itemFor(id);
    const int row = std::max(0, m_ui->profileList->row(item) - 1);
    {
        const QSignalBlocker blocker(m_ui->profileList);
        delete item;
    }
    showStoredProfile(m_ui->profileList->item(row)->data(IdRole).toString());

    m_busy = true;
    updateState();
    // As in save(): the stores are finished with even if the dialog goes away meanwhile.
    const Result<> dropped = co_await removeKeys(m_secrets, m_sessionKeys, id);
    if (!self)
        co_return;
    m_busy = false;
    updateState();
    Q_EMIT profilesChanged(QStringList{id});
    if (dropped) {
        showStatus(tr("The profile \"%1\" was removed.").arg(name));
        co_return;
    }
    reportKeyNotRemoved(tr("The profile \"%1\" was removed, but its API key could not be removed from the system "
                           "keychain.")
                            .arg(name),
                        dropped.error().message);
}

QCoro::Task<Result<>> ProfilesDialog::removeKeys(SecretStore *secrets, SecretStore *sessionKeys, QString id)
{
    // Both are tried; the first failure is the one told.
    const Result<> droppedKept = co_await sessionKeys->remove(id);
    const Result<> droppedStored = co_await secrets->remove(id);
    if (!droppedKept)
        co_return droppedKept;
    co_return droppedStored;
}

void ProfilesDialog::reportKeyNotRemoved(const QString &text, const QString &detail)
{
    showStatus(text, true);
    auto *report = new QMessageBox(QMessageBox::Warning, tr("Profiles"), text, QMessageBox::Ok, this);
    report->setObjectName(QStringLiteral("keyNotRemoved"));
    report->setAttribute(Qt::WA_DeleteOnClose);
    report->setTextFormat(Qt::PlainText);
    report->setInformativeText(detail);
    report->open();
}

QCoro::Task<void> ProfilesDialog::forgetKey()
{
    if (m_busy || m_isNew || m_currentId.isEmpty())
        co_return;
    const QString id = m_currentId;
    const QString name = m_baseline.displayName();
    m_busy = true;
    updateState();
    const QPointer<ProfilesDialog> self(this);
    const Result<> dropped = co_await removeKeys(m_secrets, m_sessionKeys, id);
    if (!self)
        co_return;
    m_busy = false;
    updateState();
    Q_EMIT profilesChanged(QStringList{id});
    if (dropped) {
        showStatus(tr("The API key of \"%1\" was forgotten.").arg(name));
    } else {
        reportKeyNotRemoved(tr("The API key of \"%1\" could not be removed from the system keychain.").arg(name),
                            dropped.error().message);
    }
    refreshKeyStatus();
}

QCoro::Task<void> ProfilesDialog::refreshKeyStatus()
{
    const quint64 generation = ++m_keyGeneration;
    m_keyStored = false;
    updateState();
    if (m_isNew || m_currentId.isEmpty() || !chosenBackend() || !chosenBackend()->usesKey) {
        setKeyStatus(tr("No key stored."));
        co_return;
    }
    const QString id = m_currentId;
    setKeyStatus(tr("Checking the system keychain…"));
    const QPointer<ProfilesDialog> self(this);
    SecretStore *secrets = m_secrets;
    SecretStore *sessionKeys = m_sessionKeys;
    // The console uses a key kept for this session before the keychain's.
    const Result<std::optional<QByteArray>> kept = co_await sessionKeys->read(id);
    if (!self || generation != m_keyGeneration)
        co_return;
    if (kept && kept->has_value()) {
        setKeyStatus(tr("A key is kept for this session only, because the system keychain could "
                        "not store it. It is forgotten when Paddock quits."));
        m_keyStored = true;
        updateState();
        co_return;
    }
    const Result<std::optional<QByteArray>> stored = co_await secrets->read(id);
    if (!self || generation != m_keyGeneration)
        co_return;
    if (!stored) {
        setKeyStatus(stored.error().message);
    } else if (stored->has_value()) {
        setKeyStatus(tr("A key is stored in the system keychain."));
        m_keyStored = true;
    } else {
        setKeyStatus(tr("No key stored."));
    }
    updateState();
}

void ProfilesDialog::setKeyStatus(const QString &text)
{
    m_ui->keyStatusLabel->setText(text);
    m_ui->apiKeyEdit->setAccessibleDescription(text); // read out with the key field
}

void ProfilesDialog::browseBasedir()
{
    auto *dialog = new QFileDialog(this, tr("Choose the workspaces folder"));
    dialog->setObjectName(QStringLiteral("basedirDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::Directory);
    dialog->setOption(QFileDialog::ShowDirsOnly);
    const QString current = QDir::fromNativeSeparators(m_ui->basedirEdit->text().trimmed());
    const BackendFactory *backend = chosenBackend();
    const QString defaultBasedir = backend && backend->hint
        ? QDir::fromNativeSeparators(backend->hint(QStringLiteral("basedir")).defaultValue)
        : QString();
    dialog->setDirectory(current.isEmpty() ? defaultBasedir : current);
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString &path) {
        m_ui->basedirEdit->setText(QDir::toNativeSeparators(path));
        m_ui->basedirEdit->setFocus(Qt::OtherFocusReason);
    });
    dialog->open();
}

void ProfilesDialog::browseBootstrapFile()
{
    auto *dialog = new QFileDialog(this, tr("Choose the bootstrap file"));
    dialog->setObjectName(QStringLiteral("bootstrapFileDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::ExistingFile);
    const QString current = QDir::fromNativeSeparators(m_ui->bootstrapFileEdit->text().trimmed());
    if (!current.isEmpty())
        dialog->selectFile(current);
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString &path) {
        m_ui->bootstrapFileEdit->setText(QDir::toNativeSeparators(path));
        m_ui->bootstrapFileEdit->setFocus(Qt::OtherFocusReason);
    });
    dialog->open();
}

void ProfilesDialog::browseKubeconfig()
{
    auto *dialog = new QFileDialog(this, tr("Choose the kubeconfig file"));
    dialog->setObjectName(QStringLiteral("kubeconfigDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::ExistingFile);
    dialog->setFilter(dialog->filter() | QDir::Hidden); // ~/.kube is hidden
    const QString current = QDir::fromNativeSeparators(m_ui->kubeconfigEdit->text().trimmed());
    if (!current.isEmpty())
        dialog->selectFile(current);
    else if (const QDir kube(QDir::home().filePath(QStringLiteral(".kube"))); kube.exists())
        dialog->setDirectory(kube);
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString &path) {
        m_ui->kubeconfigEdit->setText(QDir::toNativeSeparators(path));
        fillContexts(); // chosen, not typed: no need to wait
        m_ui->kubeconfigEdit->setFocus(Qt::OtherFocusReason);
    });
    dialog->open();
}

void ProfilesDialog::fillContexts()
{
    m_contextsTimer->stop();
    const BackendFactory *backend = chosenBackend();
    if (!backend || !backend->usesField(QStringLiteral("kubeContext"))) {
        showKubeconfigProblem({});
        return; // other backends' profiles never read a kubeconfig
    }
    const bool loading = m_loading;
    m_loading = true; // the choices change, the value does not
    const QString chosen = chosenContext();
    QComboBox *box = m_ui->kubeContextBox;
    box->clear();
    // What the backend offers for the kubeconfig typed (a path that is no file yet offers
    // nothing; Save says it is missing).
    Profile edited;
    edited.kind = backend->kind;
    edited.kubeconfig = QDir::fromNativeSeparators(m_ui->kubeconfigEdit->text().trimmed());
    const FieldChoices contexts =
        backend->choices ? backend->choices(QStringLiteral("kubeContext"), edited) : FieldChoices{};
    for (const QString &name : contexts.values)
        box->addItem(name == contexts.current ? tr("%1 (current)").arg(name) : name, name);
    setChosenContext(chosen);
    m_loading = loading;
    showKubeconfigProblem(contexts.problem);
}

QString ProfilesDialog::chosenContext() const
{
    // A choice shows "name (current)"; what is typed is the name itself.
    const QComboBox *box = m_ui->kubeContextBox;
    const QString text = box->currentText().trimmed();
    const int index = text.isEmpty() ? -1 : box->findText(text);
    return index >= 0 ? box->itemData(index).toString() : text;
}

void ProfilesDialog::setChosenContext(const QString &name)
{
    QComboBox *box = m_ui->kubeContextBox;
    const int index = name.isEmpty() ? -1 : box->findData(name);
    box->setCurrentIndex(index);
    if (index < 0)
        box->setEditText(name); // not among its contexts (yet): validation names the problem
}

void ProfilesDialog::showKubeconfigProblem(const QString &problem)
{
    const QString before = m_kubeconfigProblem;
    m_kubeconfigProblem = problem;
    const auto it = std::find_if(m_fields.cbegin(), m_fields.cend(),
                                 [](const Field &f) { return f.name == QLatin1String("kubeconfig"); });
    // The problems of a save stay until the field is edited (which clears them).
    if (it == m_fields.cend() || (!it->error->text().isEmpty() && it->error->text() != before))
        return;
    it->error->setText(problem);
    it->error->setVisible(!problem.isEmpty());
    it->editor->setAccessibleDescription(problem);
}

void ProfilesDialog::reject()
{
    if (m_asking)
        return;
    if (!hasUnsavedChanges()) {
        QDialog::reject();
        return;
    }
    closeAfterCheck();
}

QCoro::Task<void> ProfilesDialog::closeAfterCheck()
{
    const QPointer<ProfilesDialog> self(this);
    const bool proceed = co_await settleUnsaved();
    if (self && proceed)
        QDialog::reject();
}

bool ProfilesDialog::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_ui->profileList && event->type() == QEvent::KeyPress) {
        const auto *key = static_cast<QKeyEvent *>(event);
        if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
            // Not a save: Enter on a profile goes to its form.
            m_ui->nameEdit->setFocus(Qt::TabFocusReason);
            return true;
        }
    }
    return QDialog::eventFilter(watched, event);
}

void ProfilesDialog::changeEvent(QEvent *event)
{
    QDialog::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        styleErrorLabels();
    } else if (event->type() == QEvent::LanguageChange) {
        // What a backend's hint put where the form has no text of its own goes, so that what
        // retranslateUi() leaves is the form's own (rememberFormTexts()).
        for (const Field &f : std::as_const(m_fields)) {
            f.editor->setToolTip(QString());
            if (auto *edit = qobject_cast<QLineEdit *>(f.editor))
                edit->setPlaceholderText(QString());
        }
        m_ui->retranslateUi(this);
        retranslate();
        refreshKeyStatus();
    }
}
