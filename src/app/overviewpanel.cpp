#include "overviewpanel.h"

#include "backendregistry.h"
#include "inspect/secretmask.h"
#include "metricschart.h"
#include "metricshistory.h"
#include "profilesession.h"
#include "shellquote.h"
#include "workspacetreemodel.h"

#include <QCoroTask>

#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QPushButton>
#include <QStandardItemModel>
#include <QVBoxLayout>

using namespace Paddock;
using namespace Paddock::Inspect;

namespace {

using Tone = InspectorItem::Tone;

InspectorItem field(const QString &key, const QString &label, const QString &value, bool monospace = false)
{
    InspectorItem item;
    item.key = key;
    item.texts = {label, value};
    item.monospace = monospace;
    return item;
}

InspectorItem dimField(const QString &key, const QString &label, const QString &value)
{
    InspectorItem item = field(key, label, value);
    item.tone = Tone::Dim;
    return item;
}

InspectorItem section(const QString &key, const QString &label, QList<InspectorItem> children)
{
    InspectorItem item;
    item.key = key;
    item.texts = {label, QString()};
    item.tone = Tone::Strong;
    item.expand = true;
    item.children = std::move(children);
    return item;
}

} // namespace

OverviewPanel::OverviewPanel(QWidget *parent)
    : InspectorPanel(parent)
    , m_copyId(new QPushButton(this))
    , m_copyCommand(new QPushButton(this))
    , m_note(new InspectorNote(this))
    , m_filesNote(new InspectorNote(this))
    , m_chart(new MetricsChart(this))
    , m_view(new InspectorTreeView(this))
    , m_model(new QStandardItemModel(0, 2, this))
{
    setObjectName(QStringLiteral("overviewPanel"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_copyId);
    buttons->addWidget(m_copyCommand);
    buttons->addStretch(1);
    layout->addLayout(buttons);
    layout->addWidget(m_note);
    layout->addWidget(m_filesNote);
    layout->addWidget(m_chart);
    m_chart->hide();
    layout->addWidget(m_view, 1);
    m_view->setObjectName(QStringLiteral("overviewView"));
    m_view->setModel(m_model);
    m_view->header()->hide();
    m_view->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_view->header()->setStretchLastSection(true);
    m_view->setAlternatingRowColors(false);
    m_copyId->setObjectName(QStringLiteral("copyIdButton"));
    m_copyCommand->setObjectName(QStringLiteral("copyCommandButton"));
    connect(m_copyId, &QPushButton::clicked, this, [this] {
        if (const QString id = idText(); !id.isEmpty()) {
            QApplication::clipboard()->setText(id);
            Q_EMIT statusMessage(tr("Copied the workspace id %1").arg(id));
        }
    });
    connect(m_copyCommand, &QPushButton::clicked, this, [this] {
        if (const QString command = paddockctlCommand(); !command.isEmpty()) {
            QApplication::clipboard()->setText(command);
            Q_EMIT statusMessage(tr("Copied a paddockctl command that inspects this workspace"));
        }
    });
    m_copyId->setEnabled(false);
    m_copyCommand->setEnabled(false);
    retranslate();
}

OverviewPanel::~OverviewPanel() = default;

void OverviewPanel::setMetricsHistory(MetricsHistory *history)
{
    if (m_history)
        disconnect(m_history, nullptr, this, nullptr);
    m_history = history;
    if (history) {
        connect(history, &MetricsHistory::samplesAdded, this, [this](const QString &profile) {
            if (hasWorkspace() && workspace().session && workspace().session->profileId() == profile)
                updateChart();
        });
    }
    updateChart();
}

void OverviewPanel::updateChart()
{
    ProfileSession *session = hasWorkspace() ? workspace().session.data() : nullptr;
    if (!m_history || !session || !session->can(Capability::Metrics)) {
        m_chart->hide();
        m_chart->setSamples({});
        return;
    }
    m_chart->setSamples(m_history->samples(session->profileId() + u'\x1f' + workspace().sandbox.sandboxId));
    m_chart->setRunning(workspace().sandbox.state == SandboxState::Running);
    m_chart->show();
}

QString OverviewPanel::idText() const
{
    if (!hasWorkspace())
        return {};
    const SandboxInfo &info = workspace().sandbox;
    return info.workspaceId.isEmpty() ? info.sandboxId : info.workspaceId;
}

QString OverviewPanel::paddockctlCommand() const
{
    if (!m_overview || m_overview->paddockctlArguments.isEmpty())
        return {};
    return QStringLiteral("paddockctl ") + shellJoin(m_overview->paddockctlArguments);
}

void OverviewPanel::clearShown()
{
    m_slot.cancel();
    m_overview.reset();
    m_error.reset();
    m_rowNewer = false;
    m_note->clear();
    m_filesNote->clear();
    m_copyId->setEnabled(false);
    m_copyCommand->setEnabled(false);
    updateChart();
    if (!hasWorkspace()) {
        m_model->removeRows(0, m_model->rowCount());
        return;
    }
    // What the row knows shows at once, read or not.
    render();
}

void OverviewPanel::load()
{
    updateChart();
    render();
    read();
}

void OverviewPanel::rowUpdated()
{
    m_rowNewer = true;
    updateChart(); // paused or stopped meanwhile: the last figures are no longer current
    render();
}

QCoro::Task<void> OverviewPanel::read()
{
    const QPointer<OverviewPanel> self(this);
    const WorkspaceRef ref = m_slot.start(workspace());
    auto overview = co_await readOverview(ref);
    if (!self || !m_slot.isCurrent(ref))
        co_return;
    if (overview) {
        m_overview = std::move(*overview);
        m_error.reset();
        m_rowNewer = false;
    } else {
        m_error = overview.error();
    }
    render();
}

void OverviewPanel::render()
{
    if (!hasWorkspace())
        return;
    const WorkspaceRef &ref = workspace();
    ProfileSession *session = ref.session.data();
    // The server's answer is newer than the row unless the row was listed again since.
    const bool useDetails = m_overview && !m_rowNewer && !m_overview->detailsError;
    const SandboxInfo &info = useDetails ? m_overview->details.sandbox : ref.sandbox;
    const Capabilities capabilities = session ? session->capabilities() : Capabilities{};
    const QString never = tr("never");
    const QString none = tr("none");

    QList<InspectorItem> items;
    {
        QList<InspectorItem> rows;
        rows.append(field(QStringLiteral("workspace"), tr("Workspace"), info.workspaceId, true));
        rows.append(field(QStringLiteral("sandbox"), tr("Sandbox"), info.sandboxId, true));
        rows.append(info.userId.isEmpty() ? dimField(QStringLiteral("user"), tr("User"), tr("not recorded"))
                                          : field(QStringLiteral("user"), tr("User"), info.userId, true));
        rows.append(info.agentId.isEmpty() ? dimField(QStringLiteral("agent"), tr("Agent"), tr("not recorded"))
                                           : field(QStringLiteral("agent"), tr("Agent"), info.agentId, true));
        QString profile = session ? session->profile().displayName() : QString();
        rows.append(field(QStringLiteral("profile"), tr("Profile"), profile));
        QString backend = info.backend;
        if (session && session->factory())
            backend = session->factory()->displayName();
        rows.append(field(QStringLiteral("backend"), tr("Backend"), backend));
        items.append(section(QStringLiteral("ids"), tr("Workspace"), rows));
    }
    {
        QList<InspectorItem> rows;
        InspectorItem state = field(QStringLiteral("state"), tr("State"),
                                    WorkspaceTreeModel::stateText(info.state, info.rawState, capabilities));
        if (info.state == SandboxState::Failed)
            state.tone = Tone::Error;
        rows.append(state);
        if (!info.rawState.isEmpty())
            rows.append(field(QStringLiteral("rawState"), tr("Server's state"), info.rawState, true));
        if (m_overview && !m_overview->details.stateReason.isEmpty())
            rows.append(field(QStringLiteral("reason"), tr("Reason"), m_overview->details.stateReason));
        if (m_overview && !m_overview->details.stateMessage.isEmpty())
            rows.append(field(QStringLiteral("message"), tr("Message"), maskValue(m_overview->details.stateMessage)));
        if (m_overview && m_overview->details.stateReason.isEmpty() && m_overview->details.stateMessage.isEmpty()
            && !m_overview->detailsError)
            rows.append(dimField(QStringLiteral("reason"), tr("Reason"), tr("the server gives none")));
        items.append(section(QStringLiteral("stateSection"), tr("State"), rows));
    }
    {
        QList<InspectorItem> rows;
        rows.append(info.image.isEmpty() ? dimField(QStringLiteral("image"), tr("Image or template"), none)
                                         : field(QStringLiteral("image"), tr("Image or template"), info.image, true));
        rows.append(field(QStringLiteral("created"), tr("Created"), Inspector::timeText(info.createdAt)));
        if (info.expiresAt) {
            rows.append(field(QStringLiteral("expires"), tr("Expires"), Inspector::timeText(*info.expiresAt)));
        } else if (info.pausedAt.isValid()) {
            // Paused with its timer stopped (E2B): resuming it starts a new timeout.
            rows.append(dimField(QStringLiteral("expires"), tr("Expires"),
                                 tr("timer stopped (paused since %1)").arg(Inspector::timeText(info.pausedAt))));
        } else {
            rows.append(dimField(QStringLiteral("expires"), tr("Expires"), never));
        }
        rows.append(
            info.lastActivityAt.isValid()
                ? field(QStringLiteral("activity"), tr("Last activity"), Inspector::timeText(info.lastActivityAt))
                : dimField(QStringLiteral("activity"), tr("Last activity"), tr("not recorded")));
        items.append(section(QStringLiteral("times"), tr("Sandbox"), rows));
    }
    if (m_overview) {
        const auto list = [](const QString &prefix, const QList<std::pair<QString, QString>> &pairs) {
            QList<InspectorItem> rows;
            for (const auto &[label, value] : pairs) {
                // A server's time (OpenSandbox's "Last transition", in ISO 8601) reads as the
                // other times here do, in the language's format; as sent in its tooltip.
                if (const QString time = Inspector::isoTimeText(value); !time.isEmpty()) {
                    InspectorItem item = field(prefix + label, label, time);
                    item.toolTip = value;
                    rows.append(item);
                } else {
                    rows.append(field(prefix + label, label, maskValue(value), true));
                }
            }
            return rows;
        };
        if (!m_overview->details.resources.isEmpty())
            items.append(section(QStringLiteral("resources"), tr("Resources"),
                                 list(QStringLiteral("r:"), m_overview->details.resources)));
        if (!m_overview->details.endpoints.isEmpty())
            items.append(section(QStringLiteral("endpoints"), tr("Endpoints"),
                                 list(QStringLiteral("e:"), m_overview->details.endpoints)));
        if (!m_overview->details.facts.isEmpty())
            items.append(
                section(QStringLiteral("facts"), tr("Details"), list(QStringLiteral("f:"), m_overview->details.facts)));
    }
    {
        QList<InspectorItem> rows;
        for (auto it = info.metadata.cbegin(); it != info.metadata.cend(); ++it)
            rows.append(field(QStringLiteral("m:") + it.key(), it.key(), maskValue(it.value()), true));
        if (rows.isEmpty())
            rows.append(dimField(QStringLiteral("none"), tr("(none)"), QString()));
        items.append(section(QStringLiteral("metadata"), tr("Metadata"), rows));
    }
    {
        const WorkspaceLayout layout =
            m_overview ? m_overview->layout : (session ? session->layout(info) : WorkspaceLayout{});
        const QString host = m_overview ? m_overview->hostFolder : (session ? session->hostFolder(info) : QString());
        QList<InspectorItem> rows;
        rows.append(field(QStringLiteral("workdir"), tr("Workdir"), layout.workdir, true));
        rows.append(field(QStringLiteral("gatewayHome"), tr("Gateway home"), layout.gatewayHome, true));
        rows.append(host.isEmpty() ? dimField(QStringLiteral("host"), tr("Folder on this computer"), none)
                                   : field(QStringLiteral("host"), tr("Folder on this computer"), host, true));
        items.append(section(QStringLiteral("where"), tr("Where"), rows));
    }
    if (m_overview && !m_overview->filesError) {
        const Overview &overview = *m_overview;
        QList<InspectorItem> rows;
        const auto presence = [&rows, this](const QString &key, const QString &name, bool present,
                                            const QString &absentMeaning) {
            InspectorItem item = field(key, name, present ? tr("present") : tr("absent: %1").arg(absentMeaning));
            if (!present)
                item.tone = Tone::Dim;
            rows.append(item);
        };
        presence(QStringLiteral(".mcp"), QStringLiteral(".mcp"), overview.hasMcp,
                 tr("no session's MCP servers differ from the defaults"));
        presence(QStringLiteral("data"), QStringLiteral("data/"), overview.hasData, tr("nothing was offloaded"));
        presence(QStringLiteral("skills"), QStringLiteral("skills/"), overview.hasSkills, tr("no skills"));
        presence(QStringLiteral("sessions"), QStringLiteral("sessions/"), overview.hasSessions,
                 tr("no session's context was compressed yet"));
        {
            QList<InspectorItem> files;
            for (const FileEntry &entry : overview.agentFiles) {
                InspectorItem file =
                    field(QStringLiteral("a:") + entry.name,
                          entry.kind == FileEntry::Kind::Folder ? entry.name + u'/' : entry.name,
                          entry.kind == FileEntry::Kind::Folder
                              ? Inspector::timeText(entry.modified)
                              : tr("%1, %2").arg(Inspector::sizeText(entry.size), Inspector::timeText(entry.modified)));
                if (entry.kind == FileEntry::Kind::Symlink)
                    file.texts[1] = tr("link to %1").arg(entry.linkTarget);
                files.append(file);
            }
            InspectorItem agent = field(QStringLiteral("agentFiles"), tr("Agent files"),
                                        files.isEmpty() ? none : tr("%n entry(ies)", nullptr, int(files.size())));
            agent.children = files;
            if (files.isEmpty())
                agent.tone = Tone::Dim;
            rows.append(agent);
        }
        if (!overview.transient.isEmpty()) {
            QList<InspectorItem> entries;
            const QDateTime old = QDateTime::currentDateTimeUtc().addSecs(-3600);
            bool anyOld = false;
            for (const FileEntry &entry : overview.transient) {
                const bool isOld = entry.modified.isValid() && entry.modified < old;
                anyOld = anyOld || isOld;
                InspectorItem item =
                    field(QStringLiteral("t:") + entry.name, entry.name,
                          isOld ? tr("since %1: left over from a run that ended early?")
                                      .arg(Inspector::timeText(entry.modified))
                                : tr("since %1: AgentScope is at work").arg(Inspector::timeText(entry.modified)));
                if (isOld)
                    item.tone = Tone::Warning;
                entries.append(item);
            }
            InspectorItem transient = field(QStringLiteral("transient"), tr("Transient entries"),
                                            tr("%n entry(ies)", nullptr, int(entries.size())));
            transient.children = entries;
            transient.expand = true;
            if (anyOld)
                transient.tone = Tone::Warning;
            rows.append(transient);
        }
        items.append(section(QStringLiteral("contents"), tr("Contents"), rows));
    }
    syncItems(m_model, items, m_view);

    m_copyId->setEnabled(!idText().isEmpty());
    m_copyCommand->setEnabled(!paddockctlCommand().isEmpty());
    if (m_error) {
        m_note->setNote(InspectorNote::Kind::Error,
                        tr("The workspace could not be read: %1").arg(Inspector::errorText(*m_error)));
    } else if (m_overview && m_overview->detailsError) {
        m_note->setNote(InspectorNote::Kind::Warning,
                        tr("The server's details could not be read; what the list said is shown: %1")
                            .arg(Inspector::errorText(*m_overview->detailsError)));
    } else {
        m_note->clear();
    }
    if (m_overview && m_overview->filesError) {
        m_filesNote->setNote(
            InspectorNote::Kind::Info,
            tr("The workspace's files could not be listed: %1").arg(Inspector::errorText(*m_overview->filesError)));
    } else {
        m_filesNote->clear();
    }
}

void OverviewPanel::retranslate()
{
    m_copyId->setText(tr("Copy &ID"));
    m_copyId->setToolTip(tr("Copy the workspace id"));
    m_copyCommand->setText(tr("Copy as &paddockctl Command"));
    m_copyCommand->setToolTip(tr("Copy a paddockctl command line that inspects this workspace with this profile's "
                                 "backend options (never its API key, which paddockctl reads from its variable)"));
    if (hasWorkspace())
        render();
}
