#include "windowstate.h"

#include <QAction>
#include <QDockWidget>
#include <QEvent>
#include <QHeaderView>
#include <QMainWindow>
#include <QMenu>
#include <QPointer>
#include <QScopedValueRollback>
#include <QSettings>
#include <QTimer>
#include <QTreeView>

#include <algorithm>
#include <utility>

namespace {

constexpr auto GeometryKey = "window/geometry";
constexpr auto StateKey = "window/state";
constexpr auto ColumnsKey = "window/columns";
constexpr int StateVersion = 1;

} // namespace

WindowState::WindowState(QMainWindow *window, QTreeView *view, QObject *parent)
    : QObject(parent)
    , m_window(window)
    , m_view(view)
    , m_menu(new QMenu(view))
{
    m_menu->setObjectName(QStringLiteral("columnsMenu"));
    QHeaderView *header = m_view->header();
    header->setSectionsMovable(true);
    header->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(header, &QWidget::customContextMenuRequested, this,
            [this, header](const QPoint &at) { columnsMenu()->popup(header->mapToGlobal(at)); });
    // The first rows: columns as wide as their contents (unless the user's were restored).
    // A width the user drags is theirs (the last section's stretching is not).
    m_headerViewport = header->viewport();
    m_headerViewport->installEventFilter(this);
    connect(header, &QHeaderView::sectionResized, this, [this] {
        if (m_dragging && !m_fitting)
            m_userSized = true;
    });
    connect(m_view->model(), &QAbstractItemModel::modelReset, this, &WindowState::firstRows);
    connect(m_view->model(), &QAbstractItemModel::rowsInserted, this, &WindowState::firstRows);
    connect(m_view->model(), &QAbstractItemModel::dataChanged, this,
            [this](const QModelIndex &topLeft, const QModelIndex &bottomRight, const QList<int> &roles) {
                if (roles.isEmpty() || roles.contains(Qt::DisplayRole))
                    rowsChanged(topLeft.column(), bottomRight.column());
            });
    connect(m_view->model(), &QAbstractItemModel::rowsInserted, this,
            [this] { rowsChanged(0, m_view->model()->columnCount() - 1); });
    m_window->installEventFilter(this);
}

WindowState::~WindowState() = default;

void WindowState::restore(QSettings *settings)
{
    m_settings = settings;
    if (!m_settings)
        return;
    if (const QByteArray geometry = m_settings->value(QLatin1String(GeometryKey)).toByteArray(); !geometry.isEmpty())
        m_window->restoreGeometry(geometry);
    if (const QByteArray state = m_settings->value(QLatin1String(StateKey)).toByteArray(); !state.isEmpty())
        m_stateRestored = m_window->restoreState(state, StateVersion);
    if (const QByteArray columns = m_settings->value(QLatin1String(ColumnsKey)).toByteArray(); !columns.isEmpty())
        m_columnsRestored = m_view->header()->restoreState(columns);
    // The first column always shows (it holds the tree).
    m_view->header()->setSectionHidden(0, false);
}

void WindowState::save()
{
    if (!m_settings)
        return;
    m_settings->setValue(QLatin1String(GeometryKey), m_window->saveGeometry());
    m_settings->setValue(QLatin1String(StateKey), m_window->saveState(StateVersion));
    m_settings->setValue(QLatin1String(ColumnsKey), m_view->header()->saveState());
}

bool WindowState::eventFilter(QObject *watched, QEvent *event)
{
    // The type first, and the viewport by address only: a view being destroyed is no tree view
    // any more, and is not to be asked for its header.
    if (event->type() == QEvent::MouseButtonPress || event->type() == QEvent::MouseButtonRelease) {
        if (watched == m_headerViewport)
            m_dragging = event->type() == QEvent::MouseButtonPress;
        return QObject::eventFilter(watched, event);
    }
    if (event->type() == QEvent::Show && m_docksToSize.contains(watched)) {
        // Once the show is laid out.
        auto *dock = static_cast<QDockWidget *>(watched);
        QTimer::singleShot(0, this, [this, dock = QPointer<QDockWidget>(dock)] {
            if (dock)
                sizeDock(dock);
        });
        return QObject::eventFilter(watched, event);
    }
    // Kept when the window is closed (quitting closes it). Not on a hide: a window being
    // destroyed hides after its layout is gone, and its state cannot be read any more then.
    if (event->type() == QEvent::Close && watched == m_window && m_window->isVisible())
        save();
    return QObject::eventFilter(watched, event);
}

void WindowState::sizeWhenFirstShown(const QList<QDockWidget *> &docks, int extent)
{
    for (QDockWidget *dock : docks) {
        m_docksToSize.insert(dock, extent);
        dock->installEventFilter(this);
    }
}

void WindowState::sizeDock(QDockWidget *dock)
{
    const int extent = m_docksToSize.value(dock, -1);
    if (extent < 0 || !dock->isVisible())
        return;
    m_docksToSize.remove(dock);
    dock->removeEventFilter(this);
    if (m_stateRestored || dock->isFloating())
        return;
    const Qt::DockWidgetArea area = m_window->dockWidgetArea(dock);
    if (area == Qt::TopDockWidgetArea || area == Qt::BottomDockWidgetArea) {
        // The docks shown side by side there (a tab behind another is not shown).
        QList<QDockWidget *> row;
        for (QDockWidget *other : m_window->findChildren<QDockWidget *>(Qt::FindDirectChildrenOnly)) {
            if (other->isVisible() && !other->isFloating() && m_window->dockWidgetArea(other) == area)
                row.append(other);
        }
        if (row.size() > 1)
            m_window->resizeDocks(row, QList<int>(row.size(), m_window->width() / int(row.size())), Qt::Horizontal);
        if (dock->height() < extent)
            m_window->resizeDocks({dock}, {extent}, Qt::Vertical);
    } else if (area != Qt::NoDockWidgetArea && dock->width() < extent) {
        m_window->resizeDocks({dock}, {extent}, Qt::Horizontal);
    }
}

void WindowState::fitNextRows()
{
    m_fitted = false;
    firstRows();
}

void WindowState::firstRows()
{
    if (m_fitted || m_columnsRestored || m_userSized || m_view->model()->rowCount() == 0)
        return;
    m_fitted = true;
    // Once the groups have opened and the rows are laid out.
    QTimer::singleShot(0, this, &WindowState::fitColumns);
}

void WindowState::fitColumns()
{
    const QScopedValueRollback fitting(m_fitting, true);
    QHeaderView *header = m_view->header();
    for (int column = 0; column < header->count(); ++column) {
        if (!header->isSectionHidden(column))
            m_view->resizeColumnToContents(column);
    }
}

void WindowState::rowsChanged(int first, int last)
{
    if (!m_fitted || m_columnsRestored || m_userSized)
        return;
    const bool scheduled = m_grownFirst >= 0;
    m_grownFirst = scheduled ? std::min(m_grownFirst, first) : first;
    m_grownLast = scheduled ? std::max(m_grownLast, last) : last;
    if (!scheduled) // after the burst, once the rows are laid out
        QTimer::singleShot(0, this, &WindowState::growColumns);
}

void WindowState::growColumns()
{
    const int first = std::exchange(m_grownFirst, -1);
    const int last = std::exchange(m_grownLast, -1);
    if (first < 0 || m_columnsRestored || m_userSized)
        return;
    const QScopedValueRollback fitting(m_fitting, true);
    QHeaderView *header = m_view->header();
    for (int column = first; column <= last && column < header->count(); ++column) {
        if (header->isSectionHidden(column))
            continue;
        // What resizeColumnToContents() would make it, if that is wider.
        const QAbstractItemView *view = m_view; // public there, QTreeView's own all the same
        const int wanted =
            std::max(view->sizeHintForColumn(column), header->isHidden() ? 0 : header->sectionSizeHint(column));
        if (wanted > header->sectionSize(column))
            header->resizeSection(column, wanted);
    }
}

QMenu *WindowState::columnsMenu()
{
    fillMenu();
    return m_menu;
}

void WindowState::fillMenu()
{
    m_menu->clear();
    QHeaderView *header = m_view->header();
    const QAbstractItemModel *model = m_view->model();
    for (int column = 0; column < header->count(); ++column) {
        QAction *action = m_menu->addAction(model->headerData(column, Qt::Horizontal).toString());
        action->setObjectName(QStringLiteral("showColumn%1").arg(column));
        action->setCheckable(true);
        action->setChecked(!header->isSectionHidden(column));
        action->setEnabled(column != 0);
        connect(action, &QAction::toggled, this, [this, header, column](bool shown) {
            header->setSectionHidden(column, !shown);
            if (shown && header->sectionSize(column) < header->minimumSectionSize() * 2)
                m_view->resizeColumnToContents(column);
        });
    }
    m_menu->addSeparator();
    QAction *fit = m_menu->addAction(tr("&Fit Columns to Contents"));
    fit->setObjectName(QStringLiteral("fitColumns"));
    connect(fit, &QAction::triggered, this, &WindowState::fitColumns);
    QAction *reset = m_menu->addAction(tr("&Show All Columns in Their Order"));
    reset->setObjectName(QStringLiteral("resetColumns"));
    connect(reset, &QAction::triggered, this, [this, header] {
        for (int column = 0; column < header->count(); ++column) {
            header->setSectionHidden(column, false);
            header->moveSection(header->visualIndex(column), column);
        }
        fitColumns();
    });
}
