#include "savedfilters.h"

#include "actionicons.h"
#include "dialogwait.h"
#include "sandbox.h"
#include "workspacefilterproxy.h"
#include "workspacetreemodel.h"

#include <QCoroTask>

#include <QComboBox>
#include <QEvent>
#include <QInputDialog>
#include <QItemSelection>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QMenu>
#include <QPointer>
#include <QSettings>

#include <algorithm>
#include <vector>

using namespace Paddock;

namespace {
constexpr auto SettingsArray = "savedFilters";
} // namespace

SavedFilters::SavedFilters(QLineEdit *text, QComboBox *state, QComboBox *backend, QWidget *parent)
    : QToolButton(parent)
    , m_text(text)
    , m_state(state)
    , m_backend(backend)
{
    setObjectName(QStringLiteral("savedFiltersButton"));
    setIcon(ActionIcons::icon(QStringLiteral("view-filter")));
    setPopupMode(QToolButton::InstantPopup);
    setToolButtonStyle(Qt::ToolButtonIconOnly);
    auto *menu = new QMenu(this);
    menu->setObjectName(QStringLiteral("savedFiltersMenu"));
    setMenu(menu);
    // Made when shown: the names as saved, in the language of the moment.
    connect(menu, &QMenu::aboutToShow, this, &SavedFilters::fillMenu);
    fillMenu();
    retranslate();
}

void SavedFilters::setSettings(QSettings *settings)
{
    m_settings = settings;
    m_filters.clear();
    if (!m_settings)
        return;
    const int size = m_settings->beginReadArray(QLatin1String(SettingsArray));
    for (int i = 0; i < size; ++i) {
        m_settings->setArrayIndex(i);
        Filter filter{m_settings->value(QStringLiteral("name")).toString(),
                      m_settings->value(QStringLiteral("text")).toString(),
                      m_settings->value(QStringLiteral("state")).toString(),
                      m_settings->value(QStringLiteral("backend")).toString()};
        if (!filter.name.trimmed().isEmpty())
            m_filters.append(filter);
    }
    m_settings->endArray();
    fillMenu();
}

SavedFilters::Filter SavedFilters::current(const QString &name) const
{
    const int state = m_state->currentData().toInt();
    return {name.trimmed(), m_text->text(), state < 0 ? QString() : sandboxStateName(SandboxState(state)),
            m_backend->currentData().toString()};
}

bool SavedFilters::saveCurrent(const QString &name)
{
    const Filter filter = current(name);
    if (filter.name.isEmpty())
        return false;
    const auto it =
        std::find_if(m_filters.begin(), m_filters.end(), [&filter](const Filter &f) { return f.name == filter.name; });
    if (it != m_filters.end())
        *it = filter;
    else
        m_filters.append(filter);
    store();
    return true;
}

bool SavedFilters::apply(const QString &name)
{
    const auto it =
        std::find_if(m_filters.cbegin(), m_filters.cend(), [&name](const Filter &f) { return f.name == name; });
    if (it == m_filters.cend())
        return false;
    m_text->setText(it->text);
    const int state = it->state.isEmpty() ? -1 : int(parseSandboxState(it->state));
    m_state->setCurrentIndex(std::max(0, m_state->findData(state)));
    // A backend this build does not have: every backend (its rows cannot be listed anyway).
    m_backend->setCurrentIndex(std::max(0, m_backend->findData(it->backend)));
    return true;
}

void SavedFilters::remove(const QString &name)
{
    m_filters.removeIf([&name](const Filter &f) { return f.name == name; });
    store();
}

void SavedFilters::store()
{
    if (!m_settings)
        return;
    m_settings->remove(QLatin1String(SettingsArray));
    m_settings->beginWriteArray(QLatin1String(SettingsArray), int(m_filters.size()));
    for (int i = 0; i < m_filters.size(); ++i) {
        const Filter &filter = m_filters.at(i);
        m_settings->setArrayIndex(i);
        m_settings->setValue(QStringLiteral("name"), filter.name);
        m_settings->setValue(QStringLiteral("text"), filter.text);
        m_settings->setValue(QStringLiteral("state"), filter.state);
        m_settings->setValue(QStringLiteral("backend"), filter.backend);
    }
    m_settings->endArray();
}

void SavedFilters::fillMenu()
{
    // Only while no entry of the menu runs (when it is about to show): clear() deletes them.
    QMenu *menu = this->menu();
    delete m_deleteMenu; // a submenu is not an action: clear() would leave it
    menu->clear();
    QAction *save = menu->addAction(tr("&Save Current Filter…"));
    save->setObjectName(QStringLiteral("saveFilterAction"));
    connect(save, &QAction::triggered, this, [this] { askName(); });
    if (m_filters.isEmpty())
        return;
    menu->addSeparator();
    for (const Filter &filter : std::as_const(m_filters)) {
        // The name as typed: no mnemonic taken from it.
        QString label = filter.name;
        label.replace(u'&', QStringLiteral("&&"));
        QAction *action = menu->addAction(label);
        action->setObjectName(QStringLiteral("savedFilter"));
        action->setData(filter.name);
        const QString name = filter.name;
        connect(action, &QAction::triggered, this, [this, name] {
            if (apply(name))
                Q_EMIT statusMessage(tr("Filter \"%1\" shown.").arg(name));
        });
    }
    QMenu *remove = menu->addMenu(tr("&Delete"));
    m_deleteMenu = remove;
    remove->setObjectName(QStringLiteral("deleteFilterMenu"));
    for (const Filter &filter : std::as_const(m_filters)) {
        QString label = filter.name;
        label.replace(u'&', QStringLiteral("&&"));
        QAction *action = remove->addAction(label);
        action->setData(filter.name);
        const QString name = filter.name;
        connect(action, &QAction::triggered, this, [this, name] {
            this->remove(name);
            Q_EMIT statusMessage(tr("Filter \"%1\" deleted.").arg(name));
        });
    }
}

QCoro::Task<void> SavedFilters::askName()
{
    QPointer<QInputDialog> dialog = new QInputDialog(window());
    dialog->setObjectName(QStringLiteral("saveFilterDialog"));
    dialog->setWindowTitle(tr("Save Filter"));
    dialog->setLabelText(tr("Name of this filter (the text, the state and the backend shown now):"));
    dialog->setTextValue(m_text->text());
    dialog->open();
    const QPointer<SavedFilters> self(this);
    const int answer = co_await untilFinished(dialog.data());
    if (!self || !dialog)
        co_return;
    const QString name = dialog->textValue().trimmed();
    dialog->deleteLater();
    if (answer != QDialog::Accepted || name.isEmpty())
        co_return;
    saveCurrent(name);
    Q_EMIT statusMessage(tr("Filter \"%1\" saved.").arg(name));
}

void SavedFilters::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QToolButton::changeEvent(event);
}

void SavedFilters::retranslate()
{
    setText(tr("Saved Filters"));
    setToolTip(tr("Save the current filter under a name, or show one saved before"));
    setAccessibleName(tr("Saved filters"));
}

int SavedFilters::selectAllMatching(WorkspaceFilterProxy *proxy, const WorkspaceTreeModel *model,
                                    QItemSelectionModel *selection)
{
    QItemSelection matching;
    int count = 0;
    std::vector<QModelIndex> stack{QModelIndex()};
    while (!stack.empty()) {
        const QModelIndex parent = stack.back();
        stack.pop_back();
        const int rows = proxy->rowCount(parent);
        // Neighbouring workspace rows as one range.
        int runStart = -1;
        const auto flush = [&](int end) {
            if (runStart >= 0 && end >= runStart)
                matching.select(proxy->index(runStart, 0, parent), proxy->index(end, 0, parent));
            runStart = -1;
        };
        for (int row = 0; row < rows; ++row) {
            const QModelIndex index = proxy->index(row, 0, parent);
            if (model->record(proxy->mapToSource(index))) {
                if (runStart < 0)
                    runStart = row;
                ++count;
            } else {
                flush(row - 1);
                stack.push_back(index);
            }
        }
        flush(rows - 1);
    }
    selection->select(matching, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    return count;
}
