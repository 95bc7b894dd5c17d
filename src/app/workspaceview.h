#pragma once

#include <QTreeView>

// The workspace tree. Its rows all have one height, so a change of data never needs QTreeView's
// per-change bookkeeping (a lookup of the row among all rows shown, linear in a sorted view, and
// a height-cache refresh): a countdown tick repaints just the countdown strip, other changes the
// changed cells among the rows in view. With an active screen reader it behaves as QTreeView does.
class WorkspaceView final : public QTreeView
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WorkspaceView)

public:
    explicit WorkspaceView(QWidget *parent = nullptr);

    // The rows in view, top to bottom (column 0 of the view's model): what is worth reading for
    // them (activity, CPU and memory) is read for these only.
    QModelIndexList rowsInView() const;
    // What the empty view says (painted in its middle): that the filter hides every workspace,
    // or, once a listing found none (setEmptyHint), how to open one; nothing otherwise (before
    // the first listing, or when it failed: the status bar says why).
    QString emptyText() const;
    void setEmptyHint(bool shown);

protected:
    void dataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight,
                     const QList<int> &roles = QList<int>()) override;
    void changeEvent(QEvent *event) override;
    void rowsInserted(const QModelIndex &parent, int start, int end) override;
    void rowsAboutToBeRemoved(const QModelIndex &parent, int start, int end) override;
    void paintEvent(QPaintEvent *event) override;

public:
    void doItemsLayout() override;

private:
    int m_rowHeight = 0; // every row's; measured when first needed
    // Rows came or went: the whole view is laid out and repainted shortly anyway. (Looking rows
    // up now would lay it out at once, once per change.)
    bool m_layoutPending = false;
    bool m_emptyHint = false;
};
