#include "datapanel.h"

#include "inspectorimages.h"
#include "textpageview.h"

#include <QCoroTask>

#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QStackedWidget>
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
    , m_info(new QLabel(this))
    , m_save(new QPushButton(this))
    , m_previews(new QStackedWidget(this))
    , m_imageArea(new QScrollArea(m_previews))
    , m_image(new QLabel(m_imageArea))
    , m_text(new TextPageView(m_previews))
    , m_images(new InspectorImages(QSize(1024, 1024), this))
{
    setObjectName(QStringLiteral("dataPanel"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_note);
    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_view);
    auto *previewPane = new QWidget(splitter);
    auto *pane = new QVBoxLayout(previewPane);
    pane->setContentsMargins(0, 4, 0, 0);
    auto *header = new QHBoxLayout;
    header->addWidget(m_info, 1);
    header->addWidget(m_save);
    pane->addLayout(header);
    pane->addWidget(m_previews, 1);
    splitter->addWidget(previewPane);
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
    m_info->setObjectName(QStringLiteral("dataPreviewInfo"));
    m_info->setWordWrap(true);
    m_info->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_save->setObjectName(QStringLiteral("dataSaveButton"));
    m_save->setEnabled(false);
    m_image->setObjectName(QStringLiteral("dataImage"));
    m_image->setAlignment(Qt::AlignCenter);
    m_imageArea->setWidget(m_image);
    m_imageArea->setWidgetResizable(true);
    m_previews->addWidget(m_imageArea);
    m_previews->addWidget(m_text);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, &DataPanel::preview);
    connect(m_images, &InspectorImages::ready, this, [this](const QString &path) {
        if (path == m_previewed)
            showImage(path);
    });
    connect(m_save, &QPushButton::clicked, this, [this] {
        if (const QString path = currentFile(); !path.isEmpty()) {
            const QPointer<DataPanel> self(this);
            Inspector::saveAs(this, workspace(), path, [self](const QString &message) {
                if (self)
                    Q_EMIT self->statusMessage(message);
            });
        }
    });
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
    m_previewed.clear();
    m_images->clear();
    m_text->clear();
    m_note->clear();
    m_info->clear();
    m_image->clear();
    m_save->setEnabled(false);
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
        m_note->setNote(InspectorNote::Kind::Warning,
                        tr("The session files could not all be read to find what refers "
                           "to each data file: %1")
                            .arg(Inspector::errorText(scanned.error())));
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
    m_save->setEnabled(!path.isEmpty());
    if (path == m_previewed)
        return;
    m_previewed = path;
    m_image->clear();
    m_text->clear();
    if (path.isEmpty() || !m_data) {
        m_info->clear();
        return;
    }
    const QModelIndex current = m_view->currentIndex().siblingAtColumn(0);
    const auto kind = DataKind(current.data(InspectorItem::DataRole).toInt());
    if (isImageKind(kind)) {
        m_previews->setCurrentWidget(m_imageArea);
        m_images->request(workspace(), path);
        showImage(path);
    } else if (kind == DataKind::Json || kind == DataKind::Text) {
        m_previews->setCurrentWidget(m_text);
        m_info->setText(dataKindMediaType(kind)); // the page's own header names the file
        m_text->setRedact(redact());
        m_text->open(workspace(), path);
    } else {
        m_previews->setCurrentWidget(m_imageArea);
        m_info->setText(tr("%1: %2. There is no preview of this type here; Save As… writes it to a file of your "
                           "choice.")
                            .arg(path, dataKindMediaType(kind)));
    }
}

void DataPanel::showImage(const QString &path)
{
    QString why;
    switch (m_images->state(path, &why)) {
    case InspectorImages::State::Loaded: {
        const QImage image = m_images->image(path);
        const QSize original = m_images->originalSize(path);
        m_image->setPixmap(QPixmap::fromImage(Inspector::visibleImage(image, 128)));
        QString info = tr("%1: %2 × %3 pixels").arg(path).arg(original.width()).arg(original.height());
        if (original != image.size() && original.width() > image.width())
            info += u' ' + tr("(shown at %1 × %2)").arg(image.width()).arg(image.height());
        m_info->setText(info);
        break;
    }
    case InspectorImages::State::Failed:
        m_image->clear();
        m_info->setText(tr("%1 cannot be shown: %2").arg(path, why));
        break;
    default:
        m_info->setText(tr("%1: reading…").arg(path));
        break;
    }
}

void DataPanel::redactChanged()
{
    m_text->setRedact(redact());
}

void DataPanel::retranslate()
{
    m_model->setHorizontalHeaderLabels({tr("Name"), tr("Size"), tr("Type"), tr("Referred To From"), tr("Modified")});
    m_save->setText(tr("&Save As…"));
    m_save->setToolTip(tr("Save a copy of this file on this computer (the workspace is not changed)"));
    if (m_data || m_error)
        render();
}
