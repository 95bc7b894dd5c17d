#include "eventhistorydock.h"

#include "consoleevents.h"
#include "eventhistory.h"
#include "eventhistorymodel.h"

#include <QComboBox>
#include <QEvent>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QStandardPaths>
#include <QTreeView>
#include <QVBoxLayout>

EventHistoryDock::EventHistoryDock(QWidget *parent)
    : QDockWidget(parent)
    , m_model(new EventHistoryModel(10'000, this))
    , m_filter(new EventHistoryFilter(this))
    , m_view(new QTreeView(this))
    , m_text(new QLineEdit(this))
    , m_profiles(new QComboBox(this))
    , m_kinds(new QComboBox(this))
    , m_actors(new QComboBox(this))
    , m_export(new QPushButton(this))
    , m_note(new QLabel(this))
{
    setObjectName(QStringLiteral("eventHistoryDock"));
    auto *body = new QWidget(this);
    auto *layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *bar = new QHBoxLayout;
    m_text->setObjectName(QStringLiteral("eventFilterEdit"));
    m_text->setClearButtonEnabled(true);
    m_profiles->setObjectName(QStringLiteral("eventProfileBox"));
    m_kinds->setObjectName(QStringLiteral("eventKindBox"));
    m_actors->setObjectName(QStringLiteral("eventActorBox"));
    m_export->setObjectName(QStringLiteral("eventExportButton"));
    bar->addWidget(m_text, 2);
    bar->addWidget(m_profiles, 1);
    bar->addWidget(m_kinds, 1);
    bar->addWidget(m_actors, 1);
    bar->addWidget(m_export);
    layout->addLayout(bar);
    m_note->setObjectName(QStringLiteral("eventNote"));
    m_note->setWordWrap(true);
    m_note->setStyleSheet(QStringLiteral("color: #b45309;"));
    m_note->hide();
    layout->addWidget(m_note);
    m_view->setObjectName(QStringLiteral("eventView"));
    m_view->setRootIsDecorated(false);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_filter->setSourceModel(m_model);
    m_view->setModel(m_filter);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(EventHistoryModel::TimeColumn, Qt::DescendingOrder); // newest first
    m_view->header()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->header()->setStretchLastSection(true);
    m_view->header()->resizeSection(EventHistoryModel::TimeColumn, 150);
    m_view->header()->resizeSection(EventHistoryModel::WorkspaceColumn, 200);
    m_view->header()->resizeSection(EventHistoryModel::EventColumn, 140);
    layout->addWidget(m_view, 1);
    setWidget(body);

    connect(m_text, &QLineEdit::textChanged, m_filter, &EventHistoryFilter::setText);
    connect(m_profiles, &QComboBox::currentIndexChanged, this,
            [this](int index) { m_filter->setProfile(m_profiles->itemData(index).toString()); });
    connect(m_kinds, &QComboBox::currentIndexChanged, this, [this](int index) {
        const int kind = m_kinds->itemData(index).toInt();
        m_filter->setKind(kind < 0 ? std::nullopt : std::optional(ConsoleEvent::Kind(kind)));
    });
    connect(m_actors, &QComboBox::currentIndexChanged, this, [this](int index) {
        const int actor = m_actors->itemData(index).toInt();
        m_filter->setActor(actor < 0 ? std::nullopt : std::optional(ConsoleEvent::Actor(actor)));
    });
    connect(m_model, &EventHistoryModel::profilesChanged, this, &EventHistoryDock::fillProfiles);
    connect(m_export, &QPushButton::clicked, this, &EventHistoryDock::chooseExport);
    connect(m_view, &QTreeView::doubleClicked, this, [this](const QModelIndex &index) {
        const QModelIndex source = m_filter->mapToSource(index);
        if (!source.isValid())
            return;
        const ConsoleEvent &event = m_model->event(source.row());
        if (!event.sandboxId.isEmpty() || !event.workspaceId.isEmpty())
            Q_EMIT workspaceActivated(event.profileId, event.sandboxId, event.workspaceId);
    });

    m_profiles->addItem(QString(), QString());
    m_kinds->addItem(QString(), -1);
    for (int kind = 0; kind < ConsoleEvent::KindCount; ++kind)
        m_kinds->addItem(QString(), kind);
    m_actors->addItem(QString(), -1);
    for (const ConsoleEvent::Actor actor :
         {ConsoleEvent::Actor::Console, ConsoleEvent::Actor::Sweeper, ConsoleEvent::Actor::Elsewhere})
        m_actors->addItem(QString(), int(actor));
    retranslate();
}

EventHistoryDock::~EventHistoryDock() = default;

void EventHistoryDock::setSource(ConsoleEvents *events, EventHistory *history)
{
    if (m_events)
        disconnect(m_events, nullptr, this, nullptr);
    if (m_history)
        disconnect(m_history, nullptr, this, nullptr);
    m_events = events;
    m_history = history;
    if (events) {
        connect(events, &ConsoleEvents::occurred, m_model, &EventHistoryModel::appendLater);
        // The clock that jumped is said in the table, and above it.
        connect(events, &ConsoleEvents::occurred, this, [this](const ConsoleEvent &event) {
            if (event.kind == ConsoleEvent::Kind::ClockJumped)
                addNote(event.detail);
        });
    }
    if (!history)
        return;
    connect(history, &EventHistory::loaded, this, [this](const QList<ConsoleEvent> &older, int skipped) {
        m_model->prepend(older);
        if (skipped > 0)
            addNote(tr("%n line(s) of the event history could not be read and were skipped.", nullptr, skipped));
    });
    connect(history, &EventHistory::problemChanged, this, &EventHistoryDock::addNote);
    if (!history->problem().isEmpty())
        addNote(history->problem());
}

void EventHistoryDock::addNote(const QString &note)
{
    if (note.isEmpty() || m_notes.contains(note))
        return;
    m_notes.append(note);
    m_note->setText(m_notes.join(u'\n'));
    m_note->setVisible(true);
}

QString EventHistoryDock::note() const
{
    return m_notes.join(u'\n');
}

void EventHistoryDock::fillProfiles()
{
    const QString chosen = m_profiles->currentData().toString();
    const QSignalBlocker blocker(m_profiles);
    while (m_profiles->count() > 1)
        m_profiles->removeItem(1);
    for (const auto &[id, name] : m_model->profiles())
        m_profiles->addItem(name, id);
    m_profiles->setCurrentIndex(std::max(0, m_profiles->findData(chosen)));
}

void EventHistoryDock::retranslate()
{
    setWindowTitle(tr("Event History"));
    toggleViewAction()->setText(tr("&Event History"));
    toggleViewAction()->setToolTip(tr("Show or hide every event the console saw or caused"));
    m_text->setPlaceholderText(tr("Filter events"));
    m_text->setAccessibleName(tr("Filter events"));
    m_profiles->setItemText(0, tr("All profiles"));
    m_profiles->setAccessibleName(tr("Profile"));
    m_kinds->setItemText(0, tr("All events"));
    for (int i = 1; i < m_kinds->count(); ++i)
        m_kinds->setItemText(i, ConsoleEvent::kindName(ConsoleEvent::Kind(m_kinds->itemData(i).toInt())));
    m_kinds->setAccessibleName(tr("Event"));
    m_actors->setItemText(0, tr("Anyone"));
    for (int i = 1; i < m_actors->count(); ++i)
        m_actors->setItemText(i, ConsoleEvent::actorText(ConsoleEvent::Actor(m_actors->itemData(i).toInt())));
    m_actors->setAccessibleName(tr("Done by"));
    m_export->setText(tr("Export CSV…"));
    m_export->setToolTip(tr("Save the events shown as a CSV file"));
    m_view->setAccessibleName(tr("Events"));
    m_model->retranslate();
}

void EventHistoryDock::changeEvent(QEvent *event)
{
    QDockWidget::changeEvent(event);
    if (event->type() == QEvent::LanguageChange)
        retranslate();
}

QString EventHistoryDock::exportCsv(const QString &path) const
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return tr("Cannot write %1: %2").arg(path, file.errorString());
    const QByteArray csv = EventHistory::toCsv(m_filter->shownEvents());
    if (file.write(csv) != csv.size() || !file.commit())
        return tr("Cannot write %1: %2").arg(path, file.errorString());
    return {};
}

void EventHistoryDock::chooseExport()
{
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    auto *dialog = new QFileDialog(this, tr("Export Events"), folder + QStringLiteral("/paddock-events.csv"),
                                   tr("CSV files (*.csv)"));
    dialog->setObjectName(QStringLiteral("eventExportDialog"));
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setDefaultSuffix(QStringLiteral("csv"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString &path) {
        const QString failed = exportCsv(path);
        if (failed.isEmpty()) {
            Q_EMIT statusMessage(tr("Exported %n event(s) to %1", nullptr, int(m_filter->rowCount())).arg(path));
            return;
        }
        auto *box = new QMessageBox(QMessageBox::Warning, tr("Export Events"), failed, QMessageBox::Close, this);
        box->setObjectName(QStringLiteral("eventExportError"));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });
    dialog->open();
}
