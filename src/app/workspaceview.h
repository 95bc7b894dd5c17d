#pragma once

#include <QTreeView>

// The workspace tree. A countdown tick changes only the two countdown columns of rows whose
// height cannot change (uniform row heights), so the view repaints just that strip of the
// viewport instead of QTreeView's per-change bookkeeping (a row lookup and height-cache
// refresh per changed range, ~400 ranges a second with 10,000 workspaces) and full repaint.
class WorkspaceView final : public QTreeView
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WorkspaceView)

public:
    using QTreeView::QTreeView;

protected:
    void dataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight,
                     const QList<int> &roles = QList<int>()) override;
};
