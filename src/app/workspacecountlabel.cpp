#include "workspacecountlabel.h"

#include "workspacefilterproxy.h"
#include "workspacetreemodel.h"

#include <QEvent>

#include <vector>

WorkspaceCountLabel::WorkspaceCountLabel(WorkspaceTreeModel *model, WorkspaceFilterProxy *proxy, QWidget *parent)
    : QLabel(parent)
    , m_model(model)
    , m_proxy(proxy)
{
    setObjectName(QStringLiteral("workspaceCount"));
    m_later.setSingleShot(true);
    m_later.setInterval(0);
    connect(&m_later, &QTimer::timeout, this, &WorkspaceCountLabel::recount);
    const auto later = [this] { m_later.start(); };
    // The filter's own signals cover a changed filter too (it inserts and removes rows).
    for (QAbstractItemModel *watched :
         {static_cast<QAbstractItemModel *>(model), static_cast<QAbstractItemModel *>(proxy)}) {
        connect(watched, &QAbstractItemModel::rowsInserted, this, later);
        connect(watched, &QAbstractItemModel::rowsRemoved, this, later);
        connect(watched, &QAbstractItemModel::modelReset, this, later);
        connect(watched, &QAbstractItemModel::layoutChanged, this, later);
    }
    recount();
}

WorkspaceCountLabel::~WorkspaceCountLabel() = default;

void WorkspaceCountLabel::recount()
{
    m_later.stop();
    m_total = m_model ? m_model->workspaceCount() : 0;
    m_shown = m_total;
    if (m_model && m_proxy && m_proxy->isFiltering()) {
        // The workspace rows the filter shows, under whatever groups they are in.
        m_shown = 0;
        std::vector<QModelIndex> stack{QModelIndex()};
        while (!stack.empty()) {
            const QModelIndex parent = stack.back();
            stack.pop_back();
            const int rows = m_proxy->rowCount(parent);
            for (int row = 0; row < rows; ++row) {
                const QModelIndex index = m_proxy->index(row, 0, parent);
                if (m_model->record(m_proxy->mapToSource(index)))
                    ++m_shown;
                else
                    stack.push_back(index);
            }
        }
    }
    updateText();
}

void WorkspaceCountLabel::updateText()
{
    const int total = int(m_total);
    setText(m_shown == m_total ? tr("%n workspace(s)", nullptr, total)
                               : tr("%1 of %n workspace(s) shown", nullptr, total).arg(m_shown));
}

void WorkspaceCountLabel::changeEvent(QEvent *event)
{
    QLabel::changeEvent(event);
    if (event->type() == QEvent::LanguageChange)
        updateText();
}
