#include "filespanel.h"

#include "profilesession.h"
#include "textpageview.h"
#include "workspacefiles.h"

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

enum Column { NameColumn, SizeColumn, ModifiedColumn, KindColumn, ColumnCount };
enum class Node { Folder, File, Symlink, Other, Placeholder };

bool looksLikeImage(const QString &name)
{
    const QString lower = name.toLower();
    for (const char *ext : {".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp"}) {
        if (lower.endsWith(QLatin1String(ext)))
            return true;
    }
    return false;
}

QString joinPath(const QString &folder, const QString &name)
{
    return folder.endsWith(u'/') ? QString(folder + name) : QString(folder + u'/' + name);
}

InspectorItem placeholder(const QString &text, InspectorItem::Tone tone = InspectorItem::Tone::Dim)
{
    InspectorItem item;
    item.key = QStringLiteral("\x1fplaceholder");
    item.texts = {text};
    item.tone = tone;
    return item;
}

} // namespace

FilesPanel::FilesPanel(QWidget *parent)
    : InspectorPanel(parent)
    , m_note(new InspectorNote(this))
    , m_view(new InspectorTreeView(this))
    , m_model(new QStandardItemModel(0, ColumnCount, this))
{
    setObjectName(QStringLiteral("filesPanel"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_note);
    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_view);
    m_preview = new FilePreview(QStringLiteral("file"), splitter);
    splitter->addWidget(m_preview);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({1, 1}); // half each
    splitter->setChildrenCollapsible(false);
    layout->addWidget(splitter, 1);
    m_view->setObjectName(QStringLiteral("filesView"));
    m_view->setModel(m_model);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->header()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->header()->resizeSection(NameColumn, 240);
    m_view->header()->resizeSection(SizeColumn, fontMetrics().horizontalAdvance(QStringLiteral("1023.9 MB")) + 16);
    m_view->header()->resizeSection(
        ModifiedColumn, fontMetrics().horizontalAdvance(Inspector::timeText(QDateTime::currentDateTime())) + 24);
    connect(m_view, &QTreeView::expanded, this, &FilesPanel::expanded);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, &FilesPanel::preview);
    connect(m_preview, &FilePreview::saveRequested, this, [this] { m_preview->saveAs(workspace(), currentPath()); });
    connect(m_preview, &FilePreview::statusMessage, this, &InspectorPanel::statusMessage);
    retranslate();
}

FilesPanel::~FilesPanel() = default;

void FilesPanel::clearShown()
{
    m_slot.cancel();
    m_foldersRef = {};
    m_read.clear();
    m_listing.clear();
    m_selecting.clear();
    m_preview->clear();
    m_note->clear();
    m_model->removeRows(0, m_model->rowCount());
}

void FilesPanel::load()
{
    m_foldersRef = m_slot.start(workspace());
    if (!filesReadable()) {
        m_note->setNote(InspectorNote::Kind::Info, [this] { return filesUnreadableText(); });
        return;
    }
    const WorkspaceLayout layout =
        workspace().session ? workspace().session->layout(workspace().sandbox) : WorkspaceLayout{};
    if (layout.workdir.isEmpty()) {
        m_note->setNote(InspectorNote::Kind::Info,
                        [] { return tr("The profile was closed: there is nothing to read."); });
        return;
    }
    m_note->clear();
    QList<InspectorItem> roots;
    const auto root = [this](const QString &key, const QString &path, const QString &what) {
        InspectorItem item;
        item.key = key;
        item.texts = {path, QString(), QString(), what};
        item.data = path;
        item.tone = InspectorItem::Tone::Strong;
        item.keepChildren = true;
        item.children.append(placeholder(tr("Reading…")));
        return item;
    };
    roots.append(root(QStringLiteral("workdir"), layout.workdir, tr("workdir")));
    const bool homeInside = layout.gatewayHome.startsWith(layout.workdir + u'/');
    if (!layout.gatewayHome.isEmpty() && !homeInside)
        roots.append(root(QStringLiteral("home"), layout.gatewayHome, tr("gateway home")));
    syncItems(m_model, roots, m_view);
    for (int row = 0; row < m_model->rowCount(); ++row)
        m_model->item(row, 0)->setData(int(Node::Folder), KindRole);
    // What was read is read again (a refresh), in place; the workdir first.
    const QSet<QString> known = std::exchange(m_read, {});
    m_view->expand(m_model->index(0, 0));
    list(layout.workdir);
    for (const QString &path : known) {
        if (path != layout.workdir && itemOf(path))
            list(path);
    }
}

QStandardItem *FilesPanel::itemOf(const QString &path) const
{
    // Down from the root whose path it starts with.
    for (int row = 0; row < m_model->rowCount(); ++row) {
        QStandardItem *item = m_model->item(row, 0);
        const QString rootPath = item->data(PathRole).toString();
        if (path != rootPath && !path.startsWith(rootPath + u'/'))
            continue;
        QStringList parts = path.mid(rootPath.size()).split(u'/', Qt::SkipEmptyParts);
        for (const QString &part : std::as_const(parts)) {
            QStandardItem *found = nullptr;
            for (int child = 0; child < item->rowCount(); ++child) {
                if (item->child(child, 0)->data(InspectorItem::KeyRole).toString() == part) {
                    found = item->child(child, 0);
                    break;
                }
            }
            if (!found)
                return nullptr;
            item = found;
        }
        return item;
    }
    return nullptr;
}

void FilesPanel::expanded(const QModelIndex &index)
{
    const QString path = index.siblingAtColumn(0).data(PathRole).toString();
    if (!path.isEmpty() && !m_read.contains(path) && !m_listing.contains(path))
        list(path);
}

QCoro::Task<void> FilesPanel::list(QString path)
{
    const QPointer<FilesPanel> self(this);
    const WorkspaceRef ref = m_foldersRef;
    QPointer<ProfileSession> session = ref.session;
    if (!session || !m_slot.isCurrent(ref) || m_listing.contains(path))
        co_return;
    m_listing.insert(path);
    const QString sandboxId = ref.sandbox.sandboxId;
    auto entries = co_await session->listFolder(sandboxId, path);
    if (!self || !m_slot.isCurrent(ref))
        co_return;
    m_listing.remove(path);
    QStandardItem *folder = itemOf(path);
    if (!folder)
        co_return;
    QList<InspectorItem> children;
    if (!entries) {
        children.append(placeholder(tr("cannot be read: %1").arg(Inspector::errorText(entries.error())),
                                    InspectorItem::Tone::Error));
    } else {
        QList<FileEntry> sorted = *entries;
        // Folders first, then files, each in name order.
        std::stable_sort(sorted.begin(), sorted.end(), [](const FileEntry &a, const FileEntry &b) {
            return (a.kind == FileEntry::Kind::Folder) > (b.kind == FileEntry::Kind::Folder);
        });
        const QLocale locale;
        for (const FileEntry &entry : std::as_const(sorted)) {
            if (children.size() >= MaxEntries) {
                children.append(
                    placeholder(tr("%n more entry(ies) not shown", nullptr, int(sorted.size() - MaxEntries))));
                break;
            }
            InspectorItem item;
            item.key = entry.name;
            const QString childPath = joinPath(path, entry.name);
            item.data = childPath;
            QString kind;
            switch (entry.kind) {
            case FileEntry::Kind::Folder:
                kind = tr("folder");
                item.keepChildren = true;
                item.children.append(placeholder(tr("Reading…")));
                break;
            case FileEntry::Kind::File:
                kind = tr("file");
                break;
            case FileEntry::Kind::Symlink:
                kind = tr("link to %1").arg(entry.linkTarget);
                break;
            case FileEntry::Kind::Other:
                kind = tr("device, socket or pipe");
                item.tone = InspectorItem::Tone::Dim;
                break;
            }
            item.texts = {entry.name,
                          entry.kind == FileEntry::Kind::Folder ? QString() : Inspector::sizeText(entry.size),
                          Inspector::timeText(entry.modified), kind};
            children.append(item);
        }
        if (children.isEmpty())
            children.append(placeholder(tr("(empty)")));
    }
    syncChildItems(m_model, folder, children, m_view);
    // The kind of each entry, for the preview (not shown).
    if (entries) {
        QHash<QString, FileEntry::Kind> kinds;
        for (const FileEntry &entry : std::as_const(*entries))
            kinds.insert(entry.name, entry.kind);
        for (int row = 0; row < folder->rowCount(); ++row) {
            QStandardItem *child = folder->child(row, 0);
            const auto kind = kinds.constFind(child->data(InspectorItem::KeyRole).toString());
            Node node = Node::Placeholder;
            if (kind != kinds.cend()) {
                switch (*kind) {
                case FileEntry::Kind::Folder:
                    node = Node::Folder;
                    break;
                case FileEntry::Kind::File:
                    node = Node::File;
                    break;
                case FileEntry::Kind::Symlink:
                    node = Node::Symlink;
                    break;
                case FileEntry::Kind::Other:
                    node = Node::Other;
                    break;
                }
            }
            if (child->data(KindRole).toInt() != int(node) || !child->data(KindRole).isValid())
                child->setData(int(node), KindRole);
        }
    } else {
        for (int row = 0; row < folder->rowCount(); ++row)
            folder->child(row, 0)->setData(int(Node::Placeholder), KindRole);
    }
    m_read.insert(path);
    continueSelect();
}

void FilesPanel::select(const QString &path)
{
    m_selecting = path;
    continueSelect();
}

void FilesPanel::continueSelect()
{
    if (m_selecting.isEmpty())
        return;
    // Open each folder on the way; each read brings us back here.
    for (int row = 0; row < m_model->rowCount(); ++row) {
        const QString rootPath = m_model->item(row, 0)->data(PathRole).toString();
        if (m_selecting != rootPath && !m_selecting.startsWith(rootPath + u'/'))
            continue;
        QString at = rootPath;
        const QStringList parts = m_selecting.mid(rootPath.size()).split(u'/', Qt::SkipEmptyParts);
        for (const QString &part : parts) {
            if (!m_read.contains(at)) {
                if (QStandardItem *item = itemOf(at))
                    m_view->expand(item->index());
                if (!m_listing.contains(at))
                    list(at);
                return;
            }
            at = joinPath(at, part);
        }
        if (QStandardItem *item = itemOf(m_selecting)) {
            m_view->setCurrentIndex(item->index());
            m_view->scrollTo(item->index());
        }
        m_selecting.clear();
        return;
    }
    m_selecting.clear();
}

QString FilesPanel::currentPath() const
{
    const QModelIndex current = m_view->currentIndex().siblingAtColumn(0);
    if (!current.isValid() || Node(current.data(KindRole).toInt()) == Node::Placeholder)
        return {};
    return current.data(PathRole).toString();
}

void FilesPanel::preview()
{
    const QModelIndex current = m_view->currentIndex().siblingAtColumn(0);
    const QString path = currentPath();
    const Node node = current.isValid() ? Node(current.data(KindRole).toInt()) : Node::Placeholder;
    const bool file = node == Node::File || node == Node::Symlink;
    m_preview->saveButton()->setEnabled(file);
    if (!m_preview->begin(path) || path.isEmpty())
        return;
    const QString name = QFileInfo(path).fileName();
    const WorkspaceLayout layout =
        workspace().session ? workspace().session->layout(workspace().sandbox) : WorkspaceLayout{};
    if (node == Node::Folder) {
        m_preview->showInfo(tr("%1: a folder").arg(path));
        return;
    }
    if (node == Node::Other) {
        m_preview->showInfo(tr("%1: a device, socket or pipe; it is not read").arg(path));
        return;
    }
    if (path == joinPath(layout.workdir, QStringLiteral(".mcp"))) {
        // Its values are secrets: only the MCP Servers tab shows it, masked.
        m_preview->showInfo(tr("%1: the MCP servers of each session. Its values hold secrets, so its text is not "
                               "shown here: MCP Servers shows it with every secret masked.")
                                .arg(path));
        return;
    }
    if (looksLikeImage(name)) {
        m_preview->showImage(workspace());
        return;
    }
    // The page's own header names the file.
    m_preview->showText(workspace(), redact(),
                        node == Node::Symlink ? tr("%1: a link; what it points to is shown").arg(path) : QString());
}

void FilesPanel::redactChanged()
{
    m_preview->setRedact(redact());
}

void FilesPanel::retranslate()
{
    m_model->setHorizontalHeaderLabels({tr("Name"), tr("Size"), tr("Modified"), tr("Kind")});
}
