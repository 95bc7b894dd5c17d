#pragma once

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>

class QDockWidget;
class QHeaderView;
class QMainWindow;
class QMenu;
class QSettings;
class QTreeView;

// What the window looked like, kept across restarts: its geometry, its docks and toolbars, and
// the workspace list's columns (widths, order, which are hidden). The columns have a menu of
// their own on the header (right click): show or hide each (the first stays), fit them to their
// contents, or go back to how they start. Columns start at their contents' widths, fitted once
// when the first rows arrive, unless the user's widths were restored; until the user sizes one,
// a column whose rows come to say more ("Paused" becoming "Paused, bootstrap failed") widens to
// show it (never narrows: the columns do not jump about as rows change).
class WindowState final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WindowState)

public:
    WindowState(QMainWindow *window, QTreeView *view, QObject *parent = nullptr);
    ~WindowState() override;

    // Restores what `settings` holds (nothing there: the defaults) and saves there from now on.
    void restore(QSettings *settings);
    void save();
    // The columns as wide as what they show (the rows in view and around them).
    void fitColumns();
    // Another profile's rows are coming (its ids may be longer): fit the columns to them too,
    // unless the widths are the user's (restored, or resized by hand).
    void fitNextRows();
    // The first time each of these docks shows, unless the window's layout was restored: docks
    // side by side in the bottom (or top) area share the window's width evenly (Qt gives a dock
    // added beside another a sliver), and the dock gets at least `extent` pixels across the area
    // (its height at the bottom, its width at a side). Later shows keep what the user made of it.
    void sizeWhenFirstShown(const QList<QDockWidget *> &docks, int extent);
    bool stateRestored() const { return m_stateRestored; }
    // The header's menu (for tests); rebuilt each time it is shown.
    QMenu *columnsMenu();
    bool columnsRestored() const { return m_columnsRestored; }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void sizeDock(QDockWidget *dock);
    void fillMenu();
    void firstRows();
    // Rows changed in these columns: widen those whose contents grew, once per burst.
    void rowsChanged(int first, int last);
    void growColumns();

    QMainWindow *m_window;
    QTreeView *m_view;
    QSettings *m_settings = nullptr;
    QMenu *m_menu;
    bool m_columnsRestored = false;
    bool m_stateRestored = false; // the docks' layout came from the settings
    QHash<QObject *, int> m_docksToSize; // compared, never used: the extent each gets when first shown
    bool m_fitted = false;
    bool m_fitting = false; // our own resizes, not the user's
    bool m_userSized = false;
    bool m_dragging = false; // a mouse button is down on the header
    int m_grownFirst = -1; // the columns changed since the last growColumns(); -1: none
    int m_grownLast = -1;
    QObject *m_headerViewport = nullptr; // compared, never used
};
