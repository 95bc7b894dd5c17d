#include "workspaceview.h"

#include "workspacetreemodel.h"

#include <QHeaderView>

void WorkspaceView::dataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight, const QList<int> &roles)
{
    const bool countdownsOnly =
        uniformRowHeights() && topLeft.isValid() && bottomRight.isValid()
        && topLeft.column() >= WorkspaceTreeModel::IdleColumn
        && bottomRight.column() <= WorkspaceTreeModel::ExpiryColumn && !roles.isEmpty()
        && std::all_of(roles.cbegin(), roles.cend(), [](int role) {
               return role == Qt::DisplayRole || role == Qt::ToolTipRole || role == Qt::ForegroundRole;
           });
    if (!countdownsOnly) {
        QTreeView::dataChanged(topLeft, bottomRight, roles);
        return;
    }
    // Repaints coalesce: a tick's ranges end up as one paint of the strip.
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
    if (right > left)
        viewport()->update(QRect(left, 0, right - left, viewport()->height()));
}
