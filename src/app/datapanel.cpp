#include "datapanel.h"

#include "filepreview.h"

#include <QCoroTask>

#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSplitter>
#include <QStandardItemModel>
#include <QVBoxLayout>

using namespace Paddock;
using namespace Paddock::Inspect;

namespace {

enum Column { NameColumn, SizeColumn, TypeColumn, ReferencesColumn, ModifiedColumn, ColumnCount };

bool isImageKind(DataKind kind)
{
    return kind == DataKind::Png || kind == DataKind::Jpeg || kind == DataKind::Gif || kind == DataKind::Webp;
}

} // namespace

DataPanel::DataPanel(QWidget *parent)
    : InspectorPanel(parent)
    , m_note(new InspectorNote(this))
    , m_view(new InspectorTreeView(this))
    , m_model(new QStandardItemModel(0, ColumnCount, this))
{
    setObjectName(QStringLiteral("dataPanel"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_note);
    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_view);
    m_preview = new FilePreview(QStringLiteral("data"), splitter);
    splitter->addWidget(m_preview);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 2);
    splitter->setSizes({1, 2}); // a third, two thirds
    splitter->setChildrenCollapsible(false);
    layout->addWidget(splitter, 1);
    m_view->setObjectName(QStringLiteral("dataView"));
    m_view->setModel(m_model);
    m_view->setRootIsDecorated(false);
    m_view->setSortingEnabled(false);
    m_view->header()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->header()->resizeSection(NameColumn, 220);
    m_view->header()->resizeSection(SizeColumn, fontMetrics().horizontalAdvance(QStringLiteral("1023.9 MB")) + 16);
    m_view->header()->resizeSection(TypeColumn,
                                    fontMetrics().horizontalAdvance(QStringLiteral("jpeg (image/jpeg)")) + 16);
    m_view->header()->resizeSection(ReferencesColumn, 220);
    m_view->header()->resizeSection(
        ModifiedColumn, fontMetrics().horizontalAdvance(Inspector::timeText(QDateTime::currentDateTime())) + 24);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, &DataPanel::preview);
    connect(m_preview, &FilePreview::saveRequested, this, [this] { m_preview->saveAs(workspace(), currentFile()); });
    connect(m_preview, &FilePreview::statusMessage, this, &InspectorPanel::statusMessage);
    retranslate();
}

DataPanel::~DataPanel() = default;

void DataPanel::clearShown()
{
    m_slot.cancel();
    m_data.reset();
    m_error.reset();
    m_scanning = false;
    m_pendingSelection.clear();
    m_preview->clear();
    m_note->clear();
    m_model->removeRows(0, m_model->rowCount());
}

void DataPanel::load()
{
    read();
}

QCoro::Task<void> DataPanel::read()
{
    const QPointer<DataPanel> self(this);
    const WorkspaceRef ref = m_slot.start(workspace());
    // The listing first (one listing and a few bytes of each file), then the references (every
    // session file read once), each shown as it comes.
    auto listed = co_await readData(ref, false);
    if (!self || !m_slot.isCurrent(ref))
        co_return;
    if (!listed) {
        m_error = listed.error();
        render();
        co_return;
    }
    m_error.reset();
    // References already found stay until the new scan says otherwise.
    if (m_data && m_data->referencesScanned) {
        QHash<QString, QStringList> known;
        for (const DataFile &file : std::as_const(m_data->files))
            known.insert(file.entry.name, file.referencedFrom);
        for (DataFile &file : listed->files)
            file.referencedFrom = known.value(file.entry.name);
        listed->referencesScanned = true;
    }
    m_data = std::move(*listed);
    const bool scan = !m_data->files.isEmpty();
    m_scanning = scan;
    render();
    if (!scan)
        co_return;
    auto scanned = co_await readData(ref, true);
    if (!self || !m_slot.isCurrent(ref))
        co_return;
    m_scanning = false;
    if (scanned) {
        m_data = std::move(*scanned);
    } else {
        m_note->setNote(InspectorNote::Kind::Warning, [error = scanned.error()] {
            return tr("The session files could not all be read to find what refers to each data file: %1")
                .arg(Inspector::errorText(error));
        });
    }
    render();
}

void DataPanel::render()
{
    if (m_error) {
        m_note->setNote(Inspector::noteKind(*m_error),
                        tr("data/ could not be read: %1").arg(Inspector::errorText(*m_error)));
        return;
    }
    if (!m_data)
        return;
    const DataView &data = *m_data;
    if (!data.present) {
        m_note->setNote(InspectorNote::Kind::Info,
                        tr("There is no data/ folder: nothing was offloaded from a context yet."));
    } else if (data.files.isEmpty()) {
        m_note->setNote(InspectorNote::Kind::Info, tr("data/ is empty."));
    } else if (m_scanning) {
        m_note->setNote(InspectorNote::Kind::Info,
                        tr("%n file(s). Finding which session files refer to them…", nullptr, int(data.files.size())));
    } else if (data.referencesScanned) {
        m_note->setNote(InspectorNote::Kind::Info,
                        tr("%n file(s). References were found in %1 of session files; a file nothing refers to is "
                           "normal (data/ is never cleaned when sessions are deleted).",
                           nullptr, int(data.files.size()))
                            .arg(Inspector::sizeText(data.referenceBytesScanned)));
    } else {
        m_note->clear();
    }
    QList<InspectorItem> items;
    for (const DataFile &file : data.files) {
        InspectorItem item;
        item.key = file.entry.name;
        QString references;
        if (!data.referencesScanned)
            references = m_scanning ? QStringLiteral("…") : QString();
        else if (file.referencedFrom.isEmpty())
            references = tr("none");
        else
            references = file.referencedFrom.size() == 1 ? file.referencedFrom.constFirst()
                                                         : tr("%n file(s)", nullptr, int(file.referencedFrom.size()));
        item.texts = {file.entry.name, Inspector::sizeText(file.entry.size),
                      QStringLiteral("%1 (%2)").arg(dataKindName(file.kind), dataKindMediaType(file.kind)), references,
                      Inspector::timeText(file.entry.modified)};
        QStringList tip{file.entry.name};
        if (!file.nameMatches) {
            item.tone = InspectorItem::Tone::Warning;
            tip.append(tr("Not named as AgentScope names data files (the SHA-256 of their content and an "
                          "extension): shown as it is."));
        }
        if (!file.referencedFrom.isEmpty())
            tip.append(tr("Referred to from:") + u'\n' + file.referencedFrom.join(u'\n'));
        else if (data.referencesScanned)
            tip.append(tr("No session file refers to it (normal: data/ is never cleaned)."));
        item.toolTip = tip.join(u'\n');
        item.data = int(file.kind);
        items.append(item);
    }
    syncItems(m_model, items, m_view);
    if (!m_pendingSelection.isEmpty())
        selectFile(m_pendingSelection);
}

void DataPanel::selectFile(const QString &path)
{
    const QString name = QFileInfo(path).fileName();
    for (int row = 0; row < m_model->rowCount(); ++row) {
        if (m_model->item(row, 0)->data(InspectorItem::KeyRole).toString() == name) {
            m_view->setCurrentIndex(m_model->index(row, 0));
            m_view->scrollTo(m_model->index(row, 0));
            m_pendingSelection.clear();
            return;
        }
    }
    m_pendingSelection = path;
}

QString DataPanel::currentFile() const
{
    const QModelIndex current = m_view->currentIndex().siblingAtColumn(0);
    return current.isValid() ? QStringLiteral("data/") + current.data(InspectorItem::KeyRole).toString() : QString();
}

void DataPanel::preview()
{
    const QString path = currentFile();
    m_preview->saveButton()->setEnabled(!path.isEmpty());
    if (!m_preview->begin(path) || path.isEmpty())
        return;
    if (!m_data) {
        m_preview->showInfo(QString());
        return;
    }
    const QModelIndex current = m_view->currentIndex().siblingAtColumn(0);
    const auto kind = DataKind(current.data(InspectorItem::DataRole).toInt());
    if (isImageKind(kind)) {
        m_preview->showImage(workspace());
    } else if (kind == DataKind::Json || kind == DataKind::Text) {
        // The page's own header names the file.
        m_preview->showText(workspace(), redact(), dataKindMediaType(kind));
    } else {
        m_preview->showInfo(tr("%1: %2. There is no preview of this type here; Save As… writes it to a file of your "
                               "choice.")
                                .arg(path, dataKindMediaType(kind)));
    }
}

void DataPanel::redactChanged()
{
    m_preview->setRedact(redact());
}

void DataPanel::retranslate()
{
    m_model->setHorizontalHeaderLabels({tr("Name"), tr("Size"), tr("Type"), tr("Referred To From"), tr("Modified")});
    if (m_data || m_error)
        render();
}
