#pragma once

#include <QObject>
#include <QPointer>

class QHeaderView;
class QMainWindow;
class QMenu;
class QSettings;
class QTreeView;

// What the window looked like, kept across restarts: its geometry, its docks and toolbars, and
// the workspace list's columns (widths, order, which are hidden). The columns have a menu of
// their own on the header (right click): show or hide each (the first stays), fit them to their
// contents, or go back to how they start. Columns start at their contents' widths, fitted once
// when the first rows arrive, unless the user's widths were restored.
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
    // The header's menu (for tests); rebuilt each time it is shown.
    QMenu *columnsMenu();
    bool columnsRestored() const { return m_columnsRestored; }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void fillMenu();
    void firstRows();

    QMainWindow *m_window;
    QTreeView *m_view;
    QSettings *m_settings = nullptr;
    QMenu *m_menu;
    bool m_columnsRestored = false;
    bool m_fitted = false;
    bool m_fitting = false; // our own resizes, not the user's
    bool m_userSized = false;
    bool m_dragging = false; // a mouse button is down on the header
    QObject *m_headerViewport = nullptr; // compared, never used
};
