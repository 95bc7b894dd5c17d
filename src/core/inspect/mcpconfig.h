#pragma once

#include <QDebug>
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <tl/expected.hpp>

#include <optional>

namespace Paddock::Inspect {

// How AgentScope would talk to an MCP server: stdio_mcp runs a command; http_mcp uses SSE when the
// URL's path ends in /sse or /messages/, streamable HTTP otherwise (reference §6).
enum class McpTransport { Stdio, StreamableHttp, Sse, Unknown };
QString transportName(McpTransport transport); // "stdio", "streamable-http", "sse", "unknown"

// One entry of a scope's list in .mcp, masked. Raw secret values are kept privately and come out
// only through reveal(path), one value per call; toJson() and operator<< are masked.
class McpEntry
{
public:
    QString agentId; // "" = legacy scope
    QString sessionId;
    int index = 0; // position in the scope's list

    QString name;
    QString type; // mcp_config.type as written ("stdio_mcp", "http_mcp", anything else)
    McpTransport transport = McpTransport::Unknown;
    std::optional<bool> stateful; // is_stateful; absent or not a bool: nullopt

    // stdio_mcp
    QString command; // shown as written, unless maskText() finds a secret in it
    std::optional<QStringList> args; // masked; nullopt: null or absent
    std::optional<QStringList> envKeys; // names only; nullopt: null or absent
    QString cwd;
    QString encodingErrorHandler;

    // http_mcp
    QString url; // masked
    std::optional<QStringList> headerNames; // names only
    std::optional<double> timeout;

    std::optional<QStringList> enableTools; // nullopt: null/absent (all tools); [] is kept as []
    std::optional<QStringList> disableTools;
    std::optional<double> executionTimeout;

    // Why AgentScope would skip this entry (name pattern, stdio not stateful, enable/disable
    // overlap, unknown type, ...); empty: it would load it.
    QStringList skipReasons;
    bool skipped() const { return !skipReasons.isEmpty(); }

    // Paths of the masked values, in order: "command", "args/<i>", "env/<KEY>", "url", "headers/<Name>".
    QStringList secretPaths() const { return m_secretOrder; }
    // The raw value behind one masked path; nullopt for an unknown path. Never logged.
    std::optional<QString> reveal(const QString &path) const;

    QJsonObject toJson() const; // masked

private:
    friend class McpConfigParser;
    QHash<QString, QString> m_secrets;
    QStringList m_secretOrder;
};

// One (agent, session) scope of .mcp: absent scope = inherits the manager's default_mcps (not
// recorded in the workspace); a present scope with no entries = explicitly no MCPs.
struct McpScope
{
    QString agentId;
    QString sessionId;
    QList<McpEntry> entries;
    bool legacy() const { return agentId.isEmpty() && sessionId.isEmpty(); }
    bool explicitlyEmpty() const { return entries.isEmpty(); }
};

struct McpConfig
{
    int version = 2; // 1: a bare list (v2.0.6 and earlier), read as the legacy scope ("", "")
    QJsonValue versionAsWritten; // the "version" member (undefined when absent or for v1)
    QList<McpScope> scopes;
    // Things AgentScope reads past: a version that is not 2, an agent whose value is not an object,
    // a session whose value is not a list. Each says which key.
    QStringList warnings;
    qsizetype byteSize = 0;

    QList<const McpEntry *> skippedEntries() const;
    // Every raw secret value of every entry (each reveal()), for maskKnown(): a value the
    // workspace's own .mcp holds is masked wherever it turns up in free text (gateway.log, the
    // gateway probe's answer). Never logged.
    QStringList secretValues() const;
    QJsonObject toJson() const; // masked
};

// .mcp that cannot be read: AgentScope falls back to default_mcps and overwrites the file on the
// next MCP change. Never carries the file's text.
struct McpReadError
{
    enum class Kind { NotJson, WrongShape };
    Kind kind = Kind::NotJson;
    qsizetype byteSize = 0;
    qsizetype offset = -1; // where the JSON parser stopped (NotJson)
    QString message; // translated, names the size
    QJsonObject toJson() const;
};

tl::expected<McpConfig, McpReadError> parseMcpConfig(QByteArrayView bytes);

QDebug operator<<(QDebug debug, const McpEntry &entry); // masked
QDebug operator<<(QDebug debug, const McpConfig &config); // masked

} // namespace Paddock::Inspect
