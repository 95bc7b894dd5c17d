#include "gatewaypanel.h"

#include "bootstraplog.h"
#include "profilesession.h"
#include "workspacefiles.h"

#include <QCoroFuture>
#include <QCoroTask>

#include <QDateTime>
#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QPushButton>
#include <QSaveFile>
#include <QStandardItemModel>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

using namespace Paddock;
using namespace Paddock::Inspect;

namespace {

using Tone = InspectorItem::Tone;

InspectorItem row(const QString &key, const QString &name, const QString &value, Tone tone = Tone::Normal)
{
    InspectorItem item;
    item.key = key;
    item.texts = {name, value};
    item.tone = tone;
    return item;
}

// The masked tail as a log the Logs dock reads: a first line of Paddock's saying what it is, then
// gateway.log's lines as they are (they carry no time of ours, so they are shown without one).
Result<> writeLogCopy(const QString &path, const QByteArray &header, const QString &text)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return fail(Error::io(file.errorString()));
    file.write(header);
    file.write("\n");
    QByteArray bytes = text.toUtf8();
    if (!bytes.isEmpty() && !bytes.endsWith('\n'))
        bytes.append('\n');
    file.write(bytes);
    if (!file.commit())
        return fail(Error::io(file.errorString()));
    return {};
}

} // namespace

GatewayPanel::GatewayPanel(QWidget *parent)
    : InspectorPanel(parent)
    , m_note(new InspectorNote(this))
    , m_health(new QPushButton(this))
    , m_log(new QPushButton(this))
    , m_view(new InspectorTreeView(this))
    , m_model(new QStandardItemModel(0, 2, this))
{
    setObjectName(QStringLiteral("gatewayPanel"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_health);
    buttons->addWidget(m_log);
    buttons->addStretch(1);
    layout->addLayout(buttons);
    layout->addWidget(m_note);
    layout->addWidget(m_view, 1);
    m_view->setObjectName(QStringLiteral("gatewayView"));
    m_view->setModel(m_model);
    m_view->setRootIsDecorated(false);
    m_view->header()->hide();
    m_view->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_view->setAlternatingRowColors(false);
    m_health->setObjectName(QStringLiteral("healthButton"));
    m_log->setObjectName(QStringLiteral("gatewayLogButton"));
    connect(m_health, &QPushButton::clicked, this, &GatewayPanel::checkHealth);
    connect(m_log, &QPushButton::clicked, this, &GatewayPanel::showLog);
    m_health->setEnabled(false);
    m_log->setEnabled(false);
    retranslate();
}

GatewayPanel::~GatewayPanel() = default;

QString GatewayPanel::logFolder() const
{
    return m_folder ? m_folder->path() : QString();
}

void GatewayPanel::clearShown()
{
    m_slot.cancel();
    m_logSlot.cancel();
    m_gateway.reset();
    m_error.reset();
    m_logError.reset();
    m_probing = false;
    m_readingLog = false;
    m_note->clear();
    m_model->removeRows(0, m_model->rowCount());
    m_health->setEnabled(false);
    m_log->setEnabled(false);
}

void GatewayPanel::load()
{
    read(false);
}

void GatewayPanel::checkHealth()
{
    if (hasWorkspace())
        read(true);
}

void GatewayPanel::showLog()
{
    if (hasWorkspace())
        readLog();
}

QCoro::Task<void> GatewayPanel::read(bool probe)
{
    const QPointer<GatewayPanel> self(this);
    const WorkspaceRef ref = m_slot.start(workspace());
    m_probing = probe;
    render();
    auto gateway = co_await readGateway(ref, probe);
    if (!self || !m_slot.isCurrent(ref))
        co_return;
    m_probing = false;
    if (gateway) {
        m_gateway = std::move(*gateway);
        m_error.reset();
    } else {
        m_error = gateway.error();
    }
    render();
}

QCoro::Task<void> GatewayPanel::readLog()
{
    const QPointer<GatewayPanel> self(this);
    const WorkspaceRef ref = m_logSlot.start(workspace());
    m_readingLog = true;
    render();
    auto tail = co_await readGatewayLogTail(ref, LogTailBytes);
    if (!self || !m_logSlot.isCurrent(ref))
        co_return;
    m_readingLog = false;
    if (!tail) {
        m_logError = tail.error();
        render();
        co_return;
    }
    m_logError.reset();
    if (!m_folder) {
        m_folder = std::make_unique<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/paddock-inspector-XXXXXX"));
        if (!m_folder->isValid()) {
            m_logError = Error::io(tr("no temporary folder for the masked copy: %1").arg(m_folder->errorString()));
            m_folder.reset();
            render();
            co_return;
        }
    }
    const SandboxInfo &sandbox = ref.sandbox;
    const QString id = sandbox.workspaceId.isEmpty() ? sandbox.sandboxId : sandbox.workspaceId;
    // One copy per workspace of a profile; the id is a safe file name (no '/', no "..").
    QString name = QStringLiteral("%1-%2-gateway.log").arg(ref.session ? ref.session->profileId() : QString(), id);
    name.replace(u'/', u'_');
    const QString path = m_folder->filePath(name);
    LogLine header;
    header.time = QDateTime::currentDateTimeUtc();
    header.kind = LogLine::Kind::Status;
    header.text =
        tr("The last %1 of gateway.log in %2, read now; likely secrets are masked. Show it again to read it "
           "again.")
            .arg(Inspector::sizeText(LogTailBytes), m_gateway ? m_gateway->home : QStringLiteral("~/.agentscope"))
            .toUtf8();
    const QByteArray headerLine = header.serialize();
    const QString text = *tail;
    auto written = co_await QtConcurrent::run(&writeLogCopy, path, headerLine, text);
    if (!self || !m_logSlot.isCurrent(ref))
        co_return;
    if (!written) {
        m_logError = written.error();
        render();
        co_return;
    }
    render();
    Q_EMIT showLogFile(path, tr("gateway.log: %1").arg(id));
}

void GatewayPanel::render()
{
    m_health->setEnabled(hasWorkspace() && !m_probing);
    m_log->setEnabled(hasWorkspace() && !m_readingLog && m_gateway && m_gateway->log.has_value());
    QStringList notes;
    InspectorNote::Kind kind = InspectorNote::Kind::Info;
    if (m_error) {
        kind = Inspector::noteKind(*m_error);
        notes.append(tr("The gateway could not be read: %1").arg(Inspector::errorText(*m_error)));
    }
    if (m_logError) {
        kind = InspectorNote::Kind::Error;
        notes.append(tr("gateway.log could not be shown: %1").arg(Inspector::errorText(*m_logError)));
    }
    if (m_probing)
        notes.append(tr("Asking the gateway for /health from inside the workspace…"));
    if (m_readingLog)
        notes.append(tr("Reading gateway.log…"));
    if (!m_gateway) {
        if (notes.isEmpty() && hasWorkspace())
            notes.append(tr("Reading the gateway home…"));
        m_note->setNote(kind, notes.join(u'\n'));
        return;
    }
    const GatewayView &gateway = *m_gateway;
    if (gateway.filesError) {
        notes.append(tr("The gateway home could not be read: %1").arg(Inspector::errorText(*gateway.filesError)));
        kind = std::max(kind, InspectorNote::Kind::Warning);
    }

    // Short values in the rows (each explained in its tooltip); the verdicts in prose above them.
    QList<InspectorItem> items;
    items.append(row(QStringLiteral("home"), tr("Gateway home"), gateway.home));
    if (!gateway.filesError) {
        InspectorItem script = row(QStringLiteral("script"), QStringLiteral("_mcp_gateway_app.py"),
                                   gateway.scriptEmpty         ? tr("empty")
                                       : gateway.scriptPresent ? tr("present")
                                                               : tr("missing"),
                                   gateway.scriptEmpty         ? Tone::Error
                                       : gateway.scriptPresent ? Tone::Normal
                                                               : Tone::Dim);
        script.toolTip = gateway.scriptEmpty
            ? tr("An empty gateway script is never valid (an older Paddock wrote it); Paddock removes it when it "
                 "opens the workspace.")
            : tr("AgentScope's MCP gateway, written last by its bootstrap.");
        items.append(script);
        InspectorItem marker =
            row(QStringLiteral("marker"), QStringLiteral(".bootstrap-complete"),
                gateway.paddockMarker ? tr("present") : tr("absent"), gateway.paddockMarker ? Tone::Normal : Tone::Dim);
        marker.toolTip = tr("Paddock's marker: written last by a bootstrap that is not AgentScope's.");
        items.append(marker);
        items.append(row(QStringLiteral("venv"), QStringLiteral(".venv/"),
                         gateway.venvPresent ? tr("present") : tr("absent"),
                         gateway.venvPresent ? Tone::Normal : Tone::Dim));
        QString bootstrap;
        if (gateway.scriptPresent && !gateway.scriptEmpty)
            bootstrap = tr("The bootstrap is complete: AgentScope's bootstrap wrote the gateway script last.");
        else if (gateway.paddockMarker)
            bootstrap = tr("The bootstrap is complete (Paddock's marker); that bootstrap installs no gateway.");
        else
            bootstrap = tr("The bootstrap is not complete: there is no gateway script and no marker; opening the "
                           "workspace bootstraps it again.");
        notes.append(bootstrap);
        if (!gateway.bootstrapComplete())
            kind = std::max(kind, InspectorNote::Kind::Warning);
        InspectorItem verdict = row(QStringLiteral("bootstrap"), tr("Bootstrap"),
                                    gateway.bootstrapComplete() ? tr("complete") : tr("not complete"),
                                    gateway.bootstrapComplete() ? Tone::Strong : Tone::Warning);
        verdict.toolTip = bootstrap;
        items.append(verdict);
        InspectorItem log = gateway.log
            ? row(QStringLiteral("log"), QStringLiteral("gateway.log"),
                  tr("%1, changed %2")
                      .arg(Inspector::sizeText(gateway.log->size), Inspector::timeText(gateway.log->modified)))
            : row(QStringLiteral("log"), QStringLiteral("gateway.log"), tr("absent"), Tone::Dim);
        log.toolTip =
            gateway.log ? tr("Emptied each time the gateway starts.") : tr("The gateway has not been started here.");
        items.append(log);
    }
    QString health;
    QString healthText;
    Tone tone = Tone::Normal;
    const QString port = gateway.portFromCommandLine ? tr("port %1 (from its command line)").arg(gateway.port)
                                                     : tr("port %1 (the default)").arg(gateway.port);
    switch (gateway.health) {
    case GatewayView::Health::NotAsked:
        health = tr("not asked");
        healthText = tr("Check Health asks it from inside the workspace.");
        tone = Tone::Dim;
        break;
    case GatewayView::Health::Up:
        health = tr("answers");
        healthText = tr("The gateway answers on %1 (asked with %2).").arg(port, gateway.probeTool);
        tone = Tone::Strong;
        break;
    case GatewayView::Health::Down:
        health = tr("not running");
        healthText = tr("The gateway is not running: nothing listens on %1 (the workspace was paused or made again "
                        "since, or the gateway crashed: see gateway.log).")
                         .arg(port);
        tone = Tone::Warning;
        break;
    case GatewayView::Health::Error:
        health = tr("unexpected answer");
        healthText = tr("The gateway did not answer as expected on %1.").arg(port);
        tone = Tone::Error;
        break;
    case GatewayView::Health::NoTool:
        health = tr("cannot be asked");
        healthText = tr("The gateway cannot be asked: the workspace has none of curl, wget, python3, bash or busybox.");
        tone = Tone::Warning;
        break;
    }
    if (gateway.health != GatewayView::Health::NotAsked)
        notes.append(healthText);
    InspectorItem healthRow = row(QStringLiteral("health"), tr("Health"), health, tone);
    healthRow.toolTip = healthText;
    if (!gateway.healthDetail.isEmpty())
        healthRow.children.append(row(QStringLiteral("detail"), tr("Answer"), gateway.healthDetail));
    healthRow.expand = true;
    items.append(healthRow);
    m_note->setNote(kind, notes.join(u'\n'));
    syncItems(m_model, items, m_view);
    m_view->setRootIsDecorated(!healthRow.children.isEmpty());
}

void GatewayPanel::retranslate()
{
    m_health->setText(tr("Check &Health"));
    m_health->setToolTip(tr("Ask the gateway's /health from inside the workspace (one read-only command; it works "
                            "without curl)"));
    m_log->setText(tr("Show &gateway.log"));
    m_log->setToolTip(tr("Show the last part of gateway.log in the Logs dock, likely secrets masked"));
    if (hasWorkspace())
        render();
}
