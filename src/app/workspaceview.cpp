#include "workspaceview.h"

#include "workspacedelegate.h"
#include "workspacefilterproxy.h"
#include "workspacetreemodel.h"

#include <QAccessible>
#include <QEvent>
#include <QHeaderView>
#include <QPainter>

#include <utility>

WorkspaceView::WorkspaceView(QWidget *parent)
    : QTreeView(parent)
{
    setItemDelegate(new WorkspaceDelegate(this));
}

void WorkspaceView::dataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight, const QList<int> &roles)
{
    // Screen readers are told about every change, the way QTreeView does it.
    if (!uniformRowHeights() || !topLeft.isValid() || !bottomRight.isValid() || topLeft.parent() != bottomRight.parent()
        || QAccessible::isActive()) {
        QTreeView::dataChanged(topLeft, bottomRight, roles);
        return;
    }
    // Rows never change height here, so there is no height cache to refresh. QTreeView would look
    // each changed row up among all the rows shown (linear in a sorted view: tens of milliseconds
    // for a refresh that changes 1,000 of 10,000 rows), then repaint it; this repaints the
    // changed cells that are in view, found among the rows in view only.
    const QHeaderView *head = header();
    int left = viewport()->width();
    int right = 0;
    for (int column = topLeft.column(); column <= bottomRight.column(); ++column) {
        if (head->isSectionHidden(column))
            continue;
        const int x = head->sectionViewportPosition(column);
        left = std::min(left, x);
        right = std::max(right, x + head->sectionSize(column));
    }
    if (right <= left)
        return;
    const bool countdownsOnly =
        topLeft.column() >= WorkspaceTreeModel::IdleColumn && bottomRight.column() <= WorkspaceTreeModel::ExpiryColumn
        && !roles.isEmpty() && std::all_of(roles.cbegin(), roles.cend(), [](int role) {
               return role == Qt::DisplayRole || role == Qt::ToolTipRole || role == Qt::ForegroundRole;
           });
    if (countdownsOnly) {
        // A tick sends one range per group: one strip repaint, coalesced, covers them all.
        viewport()->update(QRect(left, 0, right - left, viewport()->height()));
        return;
    }
    if (m_layoutPending) {
        viewport()->update();
        return;
    }
    const QModelIndex first = indexAt(QPoint(0, 0));
    if (!first.isValid())
        return;
    if (m_rowHeight <= 0)
        m_rowHeight = std::max(1, indexRowSizeHint(first));
    const QModelIndex parent = topLeft.parent();
    const int height = viewport()->height();
    // indexAt() is constant-time with uniform row heights.
    for (int y = 0; y < height; y += m_rowHeight) {
        const QModelIndex shown = indexAt(QPoint(0, y));
        if (!shown.isValid())
            break;
        // The row that covers y starts at most one row height above it (rows scroll by pixel).
        if (shown.row() >= topLeft.row() && shown.row() <= bottomRight.row() && shown.parent() == parent)
            viewport()->update(QRect(left, y - m_rowHeight + 1, right - left, 2 * m_rowHeight - 1));
    }
}

QModelIndexList WorkspaceView::rowsInView() const
{
    QModelIndexList rows;
    const int bottom = viewport()->height();
    for (QModelIndex index = indexAt(QPoint(0, 0)); index.isValid(); index = indexBelow(index)) {
        if (visualRect(index).top() > bottom)
            break;
        rows.append(index);
    }
    return rows;
}

void WorkspaceView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange)
        m_rowHeight = 0;
    QTreeView::changeEvent(event);
}

void WorkspaceView::rowsInserted(const QModelIndex &parent, int start, int end)
{
    m_layoutPending = true;
    QTreeView::rowsInserted(parent, start, end);
}

void WorkspaceView::rowsAboutToBeRemoved(const QModelIndex &parent, int start, int end)
{
    m_layoutPending = true;
    QTreeView::rowsAboutToBeRemoved(parent, start, end);
}

void WorkspaceView::doItemsLayout()
{
    m_layoutPending = false;
    QTreeView::doItemsLayout();
}

QString WorkspaceView::emptyText() const
{
    const QAbstractItemModel *shown = model();
    if (!shown || shown->rowCount() > 0)
        return {};
    const auto *filter = qobject_cast<const WorkspaceFilterProxy *>(shown);
    if (filter && filter->isFiltering() && filter->sourceModel() && filter->sourceModel()->rowCount() > 0)
        return tr("No workspace matches the filter.");
    return m_emptyHint ? tr("No workspaces here yet. Workspace > Open… (Ctrl+O) opens one.") : QString();
}

void WorkspaceView::setEmptyHint(bool shown)
{
    if (std::exchange(m_emptyHint, shown) != shown)
        viewport()->update();
}

void WorkspaceView::paintEvent(QPaintEvent *event)
{
    QTreeView::paintEvent(event);
    const QString text = emptyText();
    if (text.isEmpty())
        return;
    QPainter painter(viewport());
    painter.setPen(palette().color(QPalette::Disabled, QPalette::Text));
    painter.drawText(QRectF(viewport()->rect()).adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap, text);
}
