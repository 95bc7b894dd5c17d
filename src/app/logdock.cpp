#include "logdock.h"

#include "bootstraplog.h"
#include "logmodel.h"
#include "logviewer.h"
#include "workspacetreemodel.h"

#include <QAction>
#include <QDir>
#include <QEvent>
#include <QLabel>
#include <QStackedWidget>
#include <QTabWidget>

#include <functional>

using namespace Paddock;

namespace {

// What a tab shows, kept on its viewer.
constexpr char WorkspaceProperty[] = "workspaceId";
constexpr char InstanceProperty[] = "instanceKey";
constexpr char ContainerProperty[] = "container";
constexpr char TitleProperty[] = "fixedTitle"; // a local file's tab: its own title

// What a container log's footer says while its tail reads: it follows a stream, or it polls.
std::function<QString()> readingText(const ContainerLogTail *tail)
{
    if (tail->isStreaming())
        return [] { return LogDock::tr("Following the container log as it is written."); };
    return [] { return LogDock::tr("Polling the server for new lines."); };
}

} // namespace

LogDock::LogDock(QWidget *parent)
    : QDockWidget(parent)
    , m_pages(new QStackedWidget(this))
    , m_tabs(new QTabWidget(m_pages))
    , m_empty(new QLabel(m_pages))
{
    setObjectName(QStringLiteral("logDock"));
    m_empty->setObjectName(QStringLiteral("noLogText"));
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_empty->setMargin(12);
    m_empty->setEnabled(false); // the dim text of a placeholder, in either look
    m_pages->addWidget(m_empty);
    m_pages->addWidget(m_tabs);
    setWidget(m_pages);
    setAllowedAreas(Qt::BottomDockWidgetArea | Qt::RightDockWidgetArea);
    m_tabs->setTabsClosable(true);
    m_tabs->setMovable(true);
    m_tabs->setDocumentMode(true);
    connect(m_tabs, &QTabWidget::tabCloseRequested, this, &LogDock::closeTab);
    retranslate();
    showTabsOrText();
}

void LogDock::showTabsOrText()
{
    m_pages->setCurrentWidget(m_tabs->count() > 0 ? static_cast<QWidget *>(m_tabs) : m_empty);
}

LogDock::~LogDock() = default;

void LogDock::setSource(BootstrapLogStore *logs, ContainerLogSource containerLogs, const QString &instanceKey)
{
    if (m_logs != logs) {
        if (m_logs)
            disconnect(m_logs, nullptr, this, nullptr);
        m_logs = logs;
        if (m_logs) {
            // A bootstrap log being shown gets its new lines as they are written (whichever
            // profile's it is).
            connect(m_logs, &BootstrapLogStore::lineAppended, this,
                    [this](const QString &instanceKey, const QString &workspaceId) {
                        for (int i = 0; i < m_tabs->count(); ++i) {
                            QWidget *tab = m_tabs->widget(i);
                            if (!tab->property(ContainerProperty).toBool()
                                && tab->property(WorkspaceProperty) == workspaceId
                                && tab->property(InstanceProperty) == instanceKey)
                                static_cast<LogViewer *>(tab)->refresh();
                        }
                    });
        }
    }
    m_containerLogs = std::move(containerLogs);
    m_instanceKey = instanceKey;
}

bool LogDock::canShowLogs() const
{
    return m_logs && !m_instanceKey.isEmpty();
}

LogViewer *LogDock::showBootstrapLog(const WorkspaceRecord &record)
{
    return showLog(record, false);
}

LogViewer *LogDock::showContainerLog(const WorkspaceRecord &record)
{
    return showLog(record, true);
}

LogViewer *LogDock::showLog(const WorkspaceRecord &record, bool container)
{
    if (!canShowLogs())
        return nullptr;
    const QString workspace = record.info.workspaceId.isEmpty() ? record.info.sandboxId : record.info.workspaceId;
    QString path = m_logs->path(m_instanceKey, workspace);
    if (container)
        path.replace(path.size() - 4, 4, QStringLiteral(".container.log"));
    for (int i = 0; i < m_tabs->count(); ++i) {
        auto *viewer = qobject_cast<LogViewer *>(m_tabs->widget(i));
        if (viewer && viewer->model()->path() == path) {
            if (auto *tail = viewer->findChild<ContainerLogTail *>(); tail && !tail->isRunning()) {
                // With the source of the moment: the profile may have been opened again since.
                tail->setSource(m_containerLogs);
                viewer->setSourceStateFrom(readingText(tail));
                tail->start();
            }
            m_tabs->setCurrentIndex(i);
            show();
            viewer->setFocus();
            return viewer;
        }
    }
    auto *viewer = new LogViewer(path);
    viewer->setProperty(ContainerProperty, container);
    viewer->setProperty(InstanceProperty, m_instanceKey);
    viewer->setProperty(WorkspaceProperty, workspace);
    if (container) {
        // A tail follows the container's output into a file of its own next to the bootstrap log
        // (as a stream where the backend streams it, Kubernetes; otherwise by polling "the last
        // lines", OpenSandbox), and the viewer follows that file.
        auto *tail = new ContainerLogTail(m_containerLogs, record.info.sandboxId, path, viewer);
        const bool streaming = tail->isStreaming();
        connect(tail, &ContainerLogTail::linesAppended, viewer, &LogViewer::refresh);
        // A failed poll or connection is said as it happens (the tail goes on, backing off), and
        // so is the first one that works again.
        connect(tail, &ContainerLogTail::problem, viewer, [viewer, streaming](const QString &problem) {
            if (streaming) {
                viewer->setSourceStateFrom(
                    [problem] { return tr("Following the container log failed; trying again: %1").arg(problem); });
            } else {
                viewer->setSourceStateFrom([problem] { return tr("Polling failed; trying again: %1").arg(problem); });
            }
        });
        connect(tail, &ContainerLogTail::recovered, viewer,
                [viewer, tail] { viewer->setSourceStateFrom(readingText(tail)); });
        connect(tail, &ContainerLogTail::stopped, viewer, [viewer, streaming] {
            if (streaming) {
                viewer->setSourceStateFrom([] {
                    return tr("No longer followed: the sandbox is not running. Show the container log again to follow "
                              "it.");
                });
            } else {
                viewer->setSourceStateFrom([] {
                    return tr("No longer polled: the sandbox is not running. Show the container log again to poll it.");
                });
            }
        });
        viewer->setSourceStateFrom(readingText(tail));
        tail->start();
    } else {
        // The log of a workspace opened elsewhere (by AgentScope, or on another computer) is not
        // here; it appears if the workspace is opened here.
        viewer->setAbsentText([] {
            return tr("There is no bootstrap log of this workspace on this computer: it was not opened here (its "
                      "bootstrap ran where it was opened, by AgentScope or by Paddock elsewhere), or its log was "
                      "deleted. Opening it here writes a log, shown as it is written.");
        });
    }
    const int index =
        m_tabs->addTab(viewer, container ? tr("Container: %1").arg(workspace) : tr("Log: %1").arg(workspace));
    m_tabs->setTabToolTip(index, QDir::toNativeSeparators(path));
    m_tabs->setCurrentIndex(index);
    showTabsOrText();
    show();
    viewer->setFocus();
    return viewer;
}

LogViewer *LogDock::showLocalFile(const QString &path, const QString &title)
{
    int index = -1;
    for (int i = 0; i < m_tabs->count(); ++i) {
        auto *viewer = qobject_cast<LogViewer *>(m_tabs->widget(i));
        if (viewer && viewer->model()->path() == path) {
            // Written again since: a new viewer reads it from its start.
            index = i;
            m_tabs->removeTab(i);
            delete viewer;
            break;
        }
    }
    auto *viewer = new LogViewer(path);
    viewer->setProperty(TitleProperty, title);
    index = index < 0 ? m_tabs->addTab(viewer, title) : m_tabs->insertTab(index, viewer, title);
    m_tabs->setTabToolTip(index, QDir::toNativeSeparators(path));
    m_tabs->setCurrentIndex(index);
    showTabsOrText();
    show();
    raise();
    viewer->setFocus();
    return viewer;
}

bool LogDock::focusLog()
{
    if (m_tabs->count() == 0) {
        Q_EMIT statusMessage(tr("No log is open: Workspace > Bootstrap Log (Ctrl+L) opens one."));
        return false;
    }
    show();
    raise();
    if (QWidget *viewer = m_tabs->currentWidget())
        viewer->setFocus(Qt::ShortcutFocusReason);
    return true;
}

void LogDock::closeTab(int index)
{
    QWidget *viewer = m_tabs->widget(index);
    m_tabs->removeTab(index);
    delete viewer;
    showTabsOrText();
    if (m_tabs->count() == 0)
        hide();
}

void LogDock::changeEvent(QEvent *event)
{
    QDockWidget::changeEvent(event);
    if (event->type() == QEvent::LanguageChange)
        retranslate();
}

void LogDock::retranslate()
{
    setWindowTitle(tr("Logs"));
    toggleViewAction()->setText(tr("L&ogs"));
    m_empty->setText(tr("No log is open. Select a workspace, then Workspace > Bootstrap Log (Ctrl+L) or "
                        "Container Log (Ctrl+Shift+L) shows its log here."));
    for (int i = 0; i < m_tabs->count(); ++i) {
        if (m_tabs->widget(i)->property(TitleProperty).isValid())
            continue;
        const QString name = m_tabs->widget(i)->property(WorkspaceProperty).toString();
        const bool container = m_tabs->widget(i)->property(ContainerProperty).toBool();
        m_tabs->setTabText(i, container ? tr("Container: %1").arg(name) : tr("Log: %1").arg(name));
    }
}
