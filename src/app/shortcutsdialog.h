#pragma once

#include <QDialog>

class QMenuBar;
class QTreeWidget;

// Help > Keyboard Shortcuts: every menu action that has a shortcut, by menu, and the keys that
// work without a menu entry (in the list, in the filter, in a log), in the language shown.
class ShortcutsDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ShortcutsDialog)

public:
    explicit ShortcutsDialog(QMenuBar *menus, QWidget *parent = nullptr);

    QTreeWidget *list() const { return m_list; }
    // "<action>\t<shortcut>" per line, for tests.
    QStringList entries() const;

private:
    QTreeWidget *m_list;
};
