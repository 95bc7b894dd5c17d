#include "shortcutsdialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace {

QString plain(QString text)
{
    // "&Open…" is "Open…" and "文件(&F)" is "文件": mnemonics are not part of the name (a "&&" is
    // a real "&").
    text.remove(QRegularExpression(QStringLiteral("\\(&[^&]\\)")));
    text.replace(QStringLiteral("&&"), QStringLiteral("\x01"));
    text.remove(u'&');
    text.replace(u'\x01', u'&');
    return text;
}

void addMenu(QTreeWidget *list, QMenu *menu)
{
    QTreeWidgetItem *group = nullptr;
    for (QAction *action : menu->actions()) {
        if (QMenu *sub = action->menu()) {
            addMenu(list, sub);
            continue;
        }
        if (action->isSeparator() || action->shortcuts().isEmpty() || !action->isVisible())
            continue;
        if (!group) {
            group = new QTreeWidgetItem(list, {plain(menu->title())});
            group->setFirstColumnSpanned(true);
        }
        QStringList keys;
        for (const QKeySequence &key : action->shortcuts())
            keys << key.toString(QKeySequence::NativeText);
        new QTreeWidgetItem(group, {plain(action->text()), keys.join(QStringLiteral(", "))});
    }
}

} // namespace

ShortcutsDialog::ShortcutsDialog(QMenuBar *menus, QWidget *parent)
    : QDialog(parent)
    , m_list(new QTreeWidget(this))
{
    setObjectName(QStringLiteral("shortcutsDialog"));
    setWindowTitle(tr("Keyboard Shortcuts"));
    m_list->setHeaderLabels({tr("Action"), tr("Keys")});
    m_list->setAccessibleName(tr("Keyboard shortcuts"));
    m_list->setRootIsDecorated(false);
    m_list->setItemsExpandable(false);
    for (QAction *action : menus->actions()) {
        if (QMenu *menu = action->menu())
            addMenu(m_list, menu);
    }
    // Keys with no menu entry.
    const QList<std::pair<QString, QString>> others{
        {tr("Mark or unmark the current row and move down"), tr("Space")},
        {tr("Open the row's menu"), tr("Menu key, Shift+F10")},
        {tr("Clear the filter"), tr("Esc (in the filter)")},
        {tr("Search the log shown"), QKeySequence(QKeySequence::Find).toString(QKeySequence::NativeText)},
        {tr("Next or previous match in a log"), tr("F3, Shift+F3 (Enter, Shift+Enter in its search)")},
        {tr("Copy the selected log lines"), QKeySequence(QKeySequence::Copy).toString(QKeySequence::NativeText)},
        {tr("Export the whole log"), QKeySequence(QKeySequence::Save).toString(QKeySequence::NativeText)},
    };
    auto *group = new QTreeWidgetItem(m_list, {tr("In the list and the logs")});
    group->setFirstColumnSpanned(true);
    for (const auto &[what, keys] : others)
        new QTreeWidgetItem(group, {what, keys});
    m_list->expandAll();
    m_list->resizeColumnToContents(0);
    m_list->resizeColumnToContents(1);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_list);
    layout->addWidget(buttons);
    resize(std::max(520, m_list->header()->length() + 60), 560);
}

QStringList ShortcutsDialog::entries() const
{
    QStringList lines;
    for (int i = 0; i < m_list->topLevelItemCount(); ++i) {
        const QTreeWidgetItem *group = m_list->topLevelItem(i);
        for (int j = 0; j < group->childCount(); ++j)
            lines << group->child(j)->text(0) + u'\t' + group->child(j)->text(1);
    }
    return lines;
}
