#include "mcppanel.h"

#include "inspect/secretmask.h"

#include <QCoroTask>

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLocale>
#include <QPushButton>
#include <QStandardItemModel>
#include <QVBoxLayout>

using namespace Paddock;
using namespace Paddock::Inspect;

namespace {

using Tone = InspectorItem::Tone;

InspectorItem row(const QString &key, const QString &name, const QString &value, Tone tone = Tone::Normal,
                  bool monospace = false)
{
    InspectorItem item;
    item.key = key;
    item.texts = {name, value};
    item.tone = tone;
    item.monospace = monospace;
    return item;
}

QString number(double value)
{
    return QLocale().toString(value, 'g', 6);
}

} // namespace

McpPanel::McpPanel(QWidget *parent)
    : InspectorPanel(parent)
    , m_note(new InspectorNote(this))
    , m_reveal(new QPushButton(this))
    , m_hideAll(new QPushButton(this))
    , m_view(new InspectorTreeView(this))
    , m_model(new QStandardItemModel(0, 2, this))
    , m_revealAction(new QAction(this))
    , m_copyRevealed(new QAction(this))
{
    setObjectName(QStringLiteral("mcpPanel"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_reveal);
    buttons->addWidget(m_hideAll);
    buttons->addStretch(1);
    layout->addLayout(buttons);
    layout->addWidget(m_note);
    layout->addWidget(m_view, 1);
    m_view->setObjectName(QStringLiteral("mcpView"));
    m_view->setModel(m_model);
    m_view->header()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->header()->resizeSection(0, 260);
    m_reveal->setObjectName(QStringLiteral("revealButton"));
    m_hideAll->setObjectName(QStringLiteral("hideAllButton"));
    m_view->addAction(m_revealAction);
    m_view->addAction(m_copyRevealed);
    connect(m_reveal, &QPushButton::clicked, this, &McpPanel::revealCurrent);
    connect(m_revealAction, &QAction::triggered, this, &McpPanel::revealCurrent);
    connect(m_hideAll, &QPushButton::clicked, this, &McpPanel::hideAll);
    connect(m_copyRevealed, &QAction::triggered, this, [this] {
        const QString secret = currentSecret();
        if (secret.isEmpty() || !m_revealed.contains(secret))
            return;
        if (const auto value = rawValue(secret)) {
            QApplication::clipboard()->setText(*value);
            Q_EMIT statusMessage(tr("Copied the revealed value"));
        }
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, &McpPanel::updateActions);
    retranslate();
    updateActions();
}

McpPanel::~McpPanel() = default;

void McpPanel::clearShown()
{
    m_slot.cancel();
    m_view_.reset();
    m_error.reset();
    m_revealed.clear();
    m_note->clear();
    m_model->removeRows(0, m_model->rowCount());
    updateActions();
}

void McpPanel::load()
{
    read();
}

QCoro::Task<void> McpPanel::read()
{
    const QPointer<McpPanel> self(this);
    const WorkspaceRef ref = m_slot.start(workspace());
    if (!m_view_)
        m_note->setNote(InspectorNote::Kind::Info, tr("Reading .mcp…"));
    auto mcp = co_await readMcp(ref);
    if (!self || !m_slot.isCurrent(ref))
        co_return;
    // What was revealed is hidden again: the values may have changed.
    m_revealed.clear();
    if (mcp) {
        m_view_ = std::move(*mcp);
        m_error.reset();
    } else {
        m_error = mcp.error();
    }
    render();
}

QString McpPanel::currentSecret() const
{
    const QModelIndex current = m_view->currentIndex().siblingAtColumn(0);
    return current.isValid() ? current.data(InspectorItem::DataRole).toString() : QString();
}

std::optional<QString> McpPanel::rawValue(const QString &secret) const
{
    if (!m_view_ || !m_view_->config)
        return std::nullopt;
    const QStringList parts = secret.split(u'/');
    if (parts.size() < 3)
        return std::nullopt;
    const int scope = parts.at(0).toInt();
    const int entry = parts.at(1).toInt();
    const QList<McpScope> &scopes = m_view_->config->scopes;
    if (scope < 0 || scope >= scopes.size() || entry < 0 || entry >= scopes.at(scope).entries.size())
        return std::nullopt;
    return scopes.at(scope).entries.at(entry).reveal(parts.mid(2).join(u'/'));
}

void McpPanel::revealCurrent()
{
    const QString secret = currentSecret();
    if (secret.isEmpty())
        return;
    // A click on a value revealed hides it again.
    if (!m_revealed.remove(secret))
        m_revealed.insert(secret);
    render();
}

void McpPanel::hideAll()
{
    if (m_revealed.isEmpty())
        return;
    m_revealed.clear();
    render();
}

void McpPanel::updateActions()
{
    const QString secret = currentSecret();
    const bool revealed = !secret.isEmpty() && m_revealed.contains(secret);
    m_reveal->setEnabled(!secret.isEmpty());
    m_revealAction->setEnabled(!secret.isEmpty());
    m_reveal->setText(revealed ? tr("&Hide Value") : tr("&Reveal Value"));
    m_revealAction->setText(revealed ? tr("&Hide Value") : tr("&Reveal Value"));
    m_copyRevealed->setEnabled(revealed);
    m_hideAll->setEnabled(!m_revealed.isEmpty());
}

void McpPanel::render()
{
    QStringList notes;
    InspectorNote::Kind kind = InspectorNote::Kind::Info;
    QList<InspectorItem> items;
    if (m_error) {
        kind = Inspector::noteKind(*m_error);
        notes.append(tr(".mcp could not be read: %1").arg(Inspector::errorText(*m_error)));
    } else if (m_view_ && !m_view_->present) {
        notes.append(tr("There is no .mcp: no session's MCP servers differ from the defaults the workspace manager "
                        "was given (default_mcps, which the workspace does not record)."));
    } else if (m_view_ && m_view_->error) {
        // Never any of its text: it may hold secrets.
        kind = InspectorNote::Kind::Error;
        notes.append(m_view_->error->message);
    } else if (m_view_ && m_view_->config) {
        const McpConfig &config = *m_view_->config;
        notes.append(config.version == 1
                         ? tr(".mcp is a bare list (AgentScope 2.0.6 and earlier): read as the legacy scope, for "
                              "callers without agent or session ids.")
                         : tr(".mcp, version 2, %1.").arg(Inspector::sizeText(m_view_->size)));
        notes.append(tr("A session not listed uses the defaults the workspace manager was given, which the workspace "
                        "does not record; [] means no MCP servers at all."));
        if (!config.warnings.isEmpty()) {
            kind = InspectorNote::Kind::Warning;
            notes.append(config.warnings.join(u'\n'));
        }
        const QString glyph = maskGlyph();
        for (int s = 0; s < config.scopes.size(); ++s) {
            const McpScope &scope = config.scopes.at(s);
            const QString agentKey = QStringLiteral("a:") + scope.agentId;
            InspectorItem *agent = nullptr;
            for (InspectorItem &existing : items) {
                if (existing.key == agentKey)
                    agent = &existing;
            }
            if (!agent) {
                InspectorItem made = row(
                    agentKey, scope.agentId.isEmpty() ? tr("(legacy scope)") : scope.agentId,
                    scope.agentId.isEmpty() ? tr("callers without agent or session ids") : tr("agent"), Tone::Strong);
                made.expand = true;
                items.append(made);
                agent = &items.last();
            }
            InspectorItem session =
                row(QStringLiteral("s:%1:").arg(s) + scope.sessionId,
                    scope.sessionId.isEmpty() ? tr("(legacy scope)") : scope.sessionId,
                    scope.explicitlyEmpty() ? tr("[]: no MCP servers (not the defaults)")
                                            : tr("%n MCP server(s)", nullptr, int(scope.entries.size())),
                    scope.explicitlyEmpty() ? Tone::Dim : Tone::Normal);
            session.expand = true;
            for (int e = 0; e < scope.entries.size(); ++e) {
                const McpEntry &entry = scope.entries.at(e);
                const QString base = QStringLiteral("%1/%2/").arg(s).arg(e);
                const QStringList secrets = entry.secretPaths();
                // A value: masked, or revealed on request (then copied masked all the same).
                const auto value = [&](const QString &key, const QString &name, const QString &masked,
                                       const QString &path) {
                    InspectorItem item = row(key, name, masked, Tone::Normal, true);
                    if (!path.isEmpty() && secrets.contains(path)) {
                        const QString secret = base + path;
                        item.data = secret;
                        if (m_revealed.contains(secret)) {
                            item.texts[1] = entry.reveal(path).value_or(masked);
                            item.copyTexts = {name, masked};
                            item.tone = Tone::Warning;
                            item.toolTip = tr("Revealed: Hide Value masks it again; Copy copies it masked");
                        } else {
                            item.toolTip = tr("Masked: Reveal Value shows it");
                        }
                    }
                    return item;
                };
                QString transport = transportName(entry.transport);
                switch (entry.transport) {
                case McpTransport::Stdio:
                    transport = tr("stdio");
                    break;
                case McpTransport::StreamableHttp:
                    transport = tr("streamable HTTP");
                    break;
                case McpTransport::Sse:
                    transport = tr("SSE");
                    break;
                case McpTransport::Unknown:
                    transport = tr("unknown (%1)").arg(entry.type);
                    break;
                }
                InspectorItem item = row(QStringLiteral("e:%1:").arg(e) + entry.name,
                                         entry.name.isEmpty() ? tr("(no name)") : entry.name,
                                         entry.skipped() ? tr("%1; skipped by AgentScope").arg(transport) : transport,
                                         entry.skipped() ? Tone::Warning : Tone::Normal);
                item.expand = entry.skipped();
                auto &children = item.children;
                if (entry.skipped())
                    children.append(row(QStringLiteral("skip"), tr("Skipped because"),
                                        entry.skipReasons.join(QStringLiteral("; ")), Tone::Warning));
                children.append(row(QStringLiteral("transport"), tr("Transport"), transport));
                if (entry.stateful)
                    children.append(
                        row(QStringLiteral("stateful"), tr("Stateful"), *entry.stateful ? tr("yes") : tr("no")));
                if (!entry.command.isEmpty())
                    children.append(
                        value(QStringLiteral("command"), tr("Command"), entry.command, QStringLiteral("command")));
                if (entry.args) {
                    InspectorItem args =
                        row(QStringLiteral("args"), tr("Arguments"),
                            entry.args->isEmpty() ? tr("none") : entry.args->join(u' '), Tone::Normal, true);
                    for (int i = 0; i < entry.args->size(); ++i) {
                        const QString path = QStringLiteral("args/%1").arg(i);
                        args.children.append(value(QStringLiteral("arg:%1").arg(i), QStringLiteral("[%1]").arg(i),
                                                   entry.args->at(i), path));
                    }
                    children.append(args);
                }
                if (entry.envKeys) {
                    InspectorItem env = row(QStringLiteral("env"), tr("Environment"),
                                            entry.envKeys->isEmpty() ? tr("none")
                                                                     : tr("%n variable(s), values masked", nullptr,
                                                                          int(entry.envKeys->size())));
                    for (const QString &key : *entry.envKeys)
                        env.children.append(
                            value(QStringLiteral("env:") + key, key, glyph, QStringLiteral("env/") + key));
                    env.expand = true;
                    children.append(env);
                }
                if (!entry.cwd.isEmpty())
                    children.append(row(QStringLiteral("cwd"), tr("Working folder"), entry.cwd, Tone::Normal, true));
                if (!entry.encodingErrorHandler.isEmpty())
                    children.append(row(QStringLiteral("encoding"), tr("Encoding errors"), entry.encodingErrorHandler));
                if (!entry.url.isEmpty())
                    children.append(value(QStringLiteral("url"), tr("URL"), entry.url, QStringLiteral("url")));
                if (entry.headerNames) {
                    InspectorItem headers =
                        row(QStringLiteral("headers"), tr("Headers"),
                            entry.headerNames->isEmpty()
                                ? tr("none")
                                : tr("%n header(s), values masked", nullptr, int(entry.headerNames->size())));
                    for (const QString &name : *entry.headerNames)
                        headers.children.append(
                            value(QStringLiteral("h:") + name, name, glyph, QStringLiteral("headers/") + name));
                    headers.expand = true;
                    children.append(headers);
                }
                if (entry.timeout)
                    children.append(
                        row(QStringLiteral("timeout"), tr("Timeout"), tr("%1 s").arg(number(*entry.timeout))));
                if (entry.executionTimeout)
                    children.append(row(QStringLiteral("execTimeout"), tr("Tool call timeout"),
                                        tr("%1 s").arg(number(*entry.executionTimeout))));
                const auto tools = [&](const QString &key, const QString &name, const std::optional<QStringList> &list,
                                       const QString &absent) {
                    if (!list)
                        children.append(row(key, name, absent, Tone::Dim));
                    else
                        children.append(
                            row(key, name, list->isEmpty() ? tr("[] (none)") : list->join(QStringLiteral(", "))));
                };
                tools(QStringLiteral("enable"), tr("Enabled tools"), entry.enableTools, tr("all (not limited)"));
                tools(QStringLiteral("disable"), tr("Disabled tools"), entry.disableTools, tr("none"));
                session.children.append(item);
            }
            agent->children.append(session);
        }
    }
    if (notes.isEmpty())
        m_note->clear();
    else
        m_note->setNote(kind, notes.join(u'\n'));
    syncItems(m_model, items, m_view);
    updateActions();
}

void McpPanel::retranslate()
{
    m_model->setHorizontalHeaderLabels({tr("Name"), tr("Value")});
    m_hideAll->setText(tr("Hide &All"));
    m_hideAll->setToolTip(tr("Mask every value revealed again"));
    m_reveal->setToolTip(tr("Show the current row's secret value (and hide it again). Copy still copies it masked."));
    m_copyRevealed->setText(tr("Copy Re&vealed Value"));
    m_copyRevealed->setToolTip(tr("Copy the value revealed, unmasked"));
    updateActions();
    if (m_view_ || m_error)
        render();
}
