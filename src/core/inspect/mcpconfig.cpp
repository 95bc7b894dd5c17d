#include "mcpconfig.h"

#include "../tr.h"
#include "secretmask.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QUrl>
#include <QUrlQuery>

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

namespace Paddock::Inspect {

QString transportName(McpTransport transport)
{
    switch (transport) {
    case McpTransport::Stdio:
        return QStringLiteral("stdio");
    case McpTransport::StreamableHttp:
        return QStringLiteral("streamable-http");
    case McpTransport::Sse:
        return QStringLiteral("sse");
    case McpTransport::Unknown:
        break;
    }
    return QStringLiteral("unknown");
}

std::optional<QString> McpEntry::reveal(const QString &path) const
{
    const auto it = m_secrets.constFind(path);
    if (it == m_secrets.constEnd())
        return std::nullopt;
    return *it;
}

namespace {

QJsonValue listOrNull(const std::optional<QStringList> &list)
{
    return list ? QJsonValue(QJsonArray::fromStringList(*list)) : QJsonValue(QJsonValue::Null);
}

QJsonValue numberOrNull(const std::optional<double> &number)
{
    return number ? QJsonValue(*number) : QJsonValue(QJsonValue::Null);
}

} // namespace

QJsonObject McpEntry::toJson() const
{
    QJsonObject json{
        {QStringLiteral("agentId"), agentId},
        {QStringLiteral("sessionId"), sessionId},
        {QStringLiteral("index"), index},
        {QStringLiteral("name"), name},
        {QStringLiteral("type"), type},
        {QStringLiteral("transport"), transportName(transport)},
        {QStringLiteral("stateful"), stateful ? QJsonValue(*stateful) : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("enableTools"), listOrNull(enableTools)},
        {QStringLiteral("disableTools"), listOrNull(disableTools)},
        {QStringLiteral("executionTimeout"), numberOrNull(executionTimeout)},
        {QStringLiteral("skipped"), skipped()},
        {QStringLiteral("skipReasons"), QJsonArray::fromStringList(skipReasons)},
        {QStringLiteral("maskedPaths"), QJsonArray::fromStringList(m_secretOrder)},
    };
    if (transport == McpTransport::Stdio || type == QLatin1String("stdio_mcp")) {
        json.insert(QStringLiteral("command"), command);
        json.insert(QStringLiteral("args"), listOrNull(args));
        json.insert(QStringLiteral("envKeys"), listOrNull(envKeys));
        json.insert(QStringLiteral("cwd"), cwd.isNull() ? QJsonValue(QJsonValue::Null) : QJsonValue(cwd));
        json.insert(QStringLiteral("encodingErrorHandler"), encodingErrorHandler);
    } else if (transport != McpTransport::Unknown) {
        json.insert(QStringLiteral("url"), url);
        json.insert(QStringLiteral("headerNames"), listOrNull(headerNames));
        json.insert(QStringLiteral("timeout"), numberOrNull(timeout));
    }
    return json;
}

QList<const McpEntry *> McpConfig::skippedEntries() const
{
    QList<const McpEntry *> skipped;
    for (const McpScope &scope : scopes) {
        for (const McpEntry &entry : scope.entries) {
            if (entry.skipped())
                skipped.append(&entry);
        }
    }
    return skipped;
}

QStringList McpConfig::secretValues() const
{
    QStringList values;
    for (const McpScope &scope : scopes) {
        for (const McpEntry &entry : scope.entries) {
            for (const QString &path : entry.secretPaths()) {
                const std::optional<QString> value = entry.reveal(path);
                if (!value)
                    continue;
                QStringList parts{*value};
                if (path == QLatin1String("url")) {
                    // What a log would print of it alone: the password, each query value.
                    const QUrl url(*value);
                    parts.append(url.password(QUrl::FullyDecoded));
                    for (const auto &[key, item] : QUrlQuery(url).queryItems(QUrl::FullyDecoded))
                        parts.append(item);
                } else if (path.startsWith(QLatin1String("headers/"))) {
                    parts.append(value->section(u' ', -1)); // "Bearer <token>": the token
                }
                for (const QString &part : std::as_const(parts)) {
                    if (!part.isEmpty() && !values.contains(part))
                        values.append(part);
                }
            }
        }
    }
    return values;
}

QJsonObject McpConfig::toJson() const
{
    QJsonArray scopeArray;
    for (const McpScope &scope : scopes) {
        QJsonArray entries;
        for (const McpEntry &entry : scope.entries)
            entries.append(entry.toJson());
        scopeArray.append(QJsonObject{
            {QStringLiteral("agentId"), scope.agentId},
            {QStringLiteral("sessionId"), scope.sessionId},
            {QStringLiteral("legacy"), scope.legacy()},
            {QStringLiteral("explicitlyEmpty"), scope.explicitlyEmpty()},
            {QStringLiteral("entries"), entries},
        });
    }
    return QJsonObject{
        {QStringLiteral("version"), version},
        {QStringLiteral("byteSize"), double(byteSize)},
        {QStringLiteral("warnings"), QJsonArray::fromStringList(warnings)},
        {QStringLiteral("scopes"), scopeArray},
    };
}

QJsonObject McpReadError::toJson() const
{
    return QJsonObject{
        {QStringLiteral("error"), kind == Kind::NotJson ? QStringLiteral("not-json") : QStringLiteral("wrong-shape")},
        {QStringLiteral("byteSize"), double(byteSize)},
        {QStringLiteral("offset"), double(offset)},
        {QStringLiteral("message"), message},
    };
}

// Builds entries; a friend of McpEntry, so it may fill the private raw values.
class McpConfigParser
{
public:
    static QString text(const rapidjson::Value &value)
    {
        return value.IsString() ? QString::fromUtf8(value.GetString(), qsizetype(value.GetStringLength())) : QString();
    }

    static const rapidjson::Value *member(const rapidjson::Value &object, const char *name)
    {
        if (!object.IsObject())
            return nullptr;
        const auto it = object.FindMember(name);
        return it == object.MemberEnd() ? nullptr : &it->value;
    }

    static std::optional<QStringList> stringList(const rapidjson::Value *value)
    {
        if (!value || !value->IsArray())
            return std::nullopt;
        QStringList list;
        for (const rapidjson::Value &item : value->GetArray())
            list.append(item.IsString() ? text(item) : QString());
        return list;
    }

    static std::optional<double> number(const rapidjson::Value *value)
    {
        if (!value || !value->IsNumber())
            return std::nullopt;
        return value->GetDouble();
    }

    static McpTransport httpTransport(const QString &url)
    {
        const qsizetype scheme = url.indexOf(QLatin1String("://"));
        qsizetype pathStart = scheme >= 0 ? url.indexOf(QLatin1Char('/'), scheme + 3) : 0;
        if (pathStart < 0)
            return McpTransport::StreamableHttp;
        qsizetype pathEnd = url.size();
        for (qsizetype i = pathStart; i < url.size(); ++i) {
            if (url.at(i) == QLatin1Char('?') || url.at(i) == QLatin1Char('#')) {
                pathEnd = i;
                break;
            }
        }
        const QStringView path = QStringView(url).mid(pathStart, pathEnd - pathStart);
        return path.endsWith(QLatin1String("/sse")) || path.endsWith(QLatin1String("/messages/"))
            ? McpTransport::Sse
            : McpTransport::StreamableHttp;
    }

    // A key written twice (an env or headers object with a repeated name) is one path, with the
    // last value, as AgentScope's json.load reads it.
    static void addSecret(McpEntry &entry, const QString &path, const QString &raw)
    {
        if (!entry.m_secrets.contains(path))
            entry.m_secretOrder.append(path);
        entry.m_secrets.insert(path, raw);
    }

    static McpEntry entry(const rapidjson::Value &json, const QString &agentId, const QString &sessionId, int index)
    {
        McpEntry entry;
        entry.agentId = agentId;
        entry.sessionId = sessionId;
        entry.index = index;
        if (!json.IsObject()) {
            entry.skipReasons.append(Tr::tr("the entry is not a JSON object"));
            return entry;
        }
        const rapidjson::Value *name = member(json, "name");
        if (!name || !name->IsString()) {
            entry.skipReasons.append(Tr::tr("it has no name"));
        } else {
            entry.name = text(*name);
            static thread_local const QRegularExpression pattern(QStringLiteral("^[a-zA-Z0-9_-]+$"));
            if (!pattern.match(entry.name).hasMatch())
                entry.skipReasons.append(
                    Tr::tr("its name \"%1\" does not match [a-zA-Z0-9_-]+").arg(maskText(entry.name)));
        }
        if (const rapidjson::Value *stateful = member(json, "is_stateful"); stateful && stateful->IsBool())
            entry.stateful = stateful->GetBool();
        entry.enableTools = stringList(member(json, "enable_tools"));
        entry.disableTools = stringList(member(json, "disable_tools"));
        entry.executionTimeout = number(member(json, "execution_timeout"));

        const rapidjson::Value *config = member(json, "mcp_config");
        if (!config || !config->IsObject()) {
            entry.skipReasons.append(Tr::tr("it has no mcp_config object"));
        } else {
            const rapidjson::Value *type = member(*config, "type");
            entry.type = type ? text(*type) : QString();
            if (entry.type == QLatin1String("stdio_mcp")) {
                entry.transport = McpTransport::Stdio;
                stdio(entry, *config);
            } else if (entry.type == QLatin1String("http_mcp")) {
                http(entry, *config);
            } else {
                entry.skipReasons.append(entry.type.isEmpty()
                                             ? Tr::tr("its mcp_config has no type")
                                             : Tr::tr("its mcp_config type \"%1\" is unknown (stdio_mcp or http_mcp)")
                                                   .arg(maskText(entry.type)));
            }
        }
        if (entry.transport == McpTransport::Stdio && entry.stateful == false)
            entry.skipReasons.append(Tr::tr("a stdio MCP must be stateful (is_stateful is false)"));
        if (entry.enableTools && entry.disableTools) {
            QStringList both;
            for (const QString &tool : std::as_const(*entry.enableTools)) {
                if (entry.disableTools->contains(tool) && !both.contains(tool))
                    both.append(tool);
            }
            if (!both.isEmpty())
                entry.skipReasons.append(
                    Tr::tr("enable_tools and disable_tools both name %1").arg(both.join(QLatin1String(", "))));
        }
        return entry;
    }

    static void stdio(McpEntry &entry, const rapidjson::Value &config)
    {
        const rapidjson::Value *command = member(config, "command");
        if (!command || !command->IsString())
            entry.skipReasons.append(Tr::tr("its stdio command is missing"));
        else
            entry.command = text(*command);
        if (const QString masked = maskText(entry.command); masked != entry.command) {
            addSecret(entry, QStringLiteral("command"), entry.command);
            entry.command = masked;
        }
        if (const std::optional<QStringList> args = stringList(member(config, "args"))) {
            const MaskedArgs masked = maskArgs(*args);
            entry.args = masked.args;
            for (qsizetype i = 0; i < masked.secretValues.size(); ++i) {
                if (masked.secretValues.at(i))
                    addSecret(entry, QStringLiteral("args/") + QString::number(i), *masked.secretValues.at(i));
            }
        }
        if (const rapidjson::Value *env = member(config, "env"); env && env->IsObject()) {
            QStringList keys;
            for (auto it = env->MemberBegin(); it != env->MemberEnd(); ++it) {
                const QString key = text(it->name);
                keys.append(key);
                addSecret(entry, QStringLiteral("env/") + key, text(it->value));
            }
            entry.envKeys = keys;
        }
        if (const rapidjson::Value *cwd = member(config, "cwd"); cwd && cwd->IsString())
            entry.cwd = text(*cwd);
        if (const rapidjson::Value *handler = member(config, "encoding_error_handler"))
            entry.encodingErrorHandler = text(*handler);
    }

    static void http(McpEntry &entry, const rapidjson::Value &config)
    {
        const rapidjson::Value *url = member(config, "url");
        if (!url || !url->IsString()) {
            entry.skipReasons.append(Tr::tr("its HTTP URL is missing"));
            entry.transport = McpTransport::StreamableHttp;
        } else {
            const QString raw = text(*url);
            entry.transport = httpTransport(raw);
            entry.url = maskUrl(raw);
            if (entry.url != raw)
                addSecret(entry, QStringLiteral("url"), raw);
        }
        if (const rapidjson::Value *headers = member(config, "headers"); headers && headers->IsObject()) {
            QStringList names;
            for (auto it = headers->MemberBegin(); it != headers->MemberEnd(); ++it) {
                const QString headerName = text(it->name);
                names.append(headerName);
                addSecret(entry, QStringLiteral("headers/") + headerName, text(it->value));
            }
            entry.headerNames = names;
        }
        entry.timeout = number(member(config, "timeout"));
    }

    static McpScope scope(const rapidjson::Value &list, const QString &agentId, const QString &sessionId)
    {
        McpScope scope;
        scope.agentId = agentId;
        scope.sessionId = sessionId;
        int index = 0;
        for (const rapidjson::Value &item : list.GetArray())
            scope.entries.append(entry(item, agentId, sessionId, index++));
        return scope;
    }
};

tl::expected<McpConfig, McpReadError> parseMcpConfig(QByteArrayView bytes)
{
    const qsizetype size = bytes.size();
    rapidjson::Document document;
    document.Parse<rapidjson::kParseIterativeFlag>(bytes.data(), size_t(bytes.size()));
    rapidjson::ParseErrorCode code = document.GetParseError();
    qsizetype offset = qsizetype(document.GetErrorOffset());
    // RapidJSON takes a NUL byte for the end of the text: one after the value (which no JSON
    // text holds, and AgentScope's json.load refuses) would go unseen.
    if (const qsizetype nul = bytes.indexOf('\0'); code == rapidjson::kParseErrorNone && nul >= 0) {
        code = rapidjson::kParseErrorDocumentRootNotSingular;
        offset = nul;
    }
    if (code != rapidjson::kParseErrorNone) {
        McpReadError error;
        error.kind = McpReadError::Kind::NotJson;
        error.byteSize = size;
        error.offset = offset;
        error.message = Tr::tr("The .mcp file (%n byte(s)) is not valid JSON: %1 at byte %2. AgentScope falls back "
                               "to its default MCPs and overwrites the file on the next MCP change.",
                               nullptr, int(qMin<qsizetype>(size, INT_MAX)))
                            .arg(QString::fromUtf8(rapidjson::GetParseError_En(code)))
                            .arg(error.offset);
        return tl::unexpected(error);
    }

    McpConfig config;
    config.byteSize = size;
    if (document.IsArray()) {
        config.version = 1;
        config.scopes.append(McpConfigParser::scope(document, QString(), QString()));
        return config;
    }
    const rapidjson::Value *mcps = McpConfigParser::member(document, "mcps");
    if (!document.IsObject() || !mcps || !mcps->IsObject()) {
        McpReadError error;
        error.kind = McpReadError::Kind::WrongShape;
        error.byteSize = size;
        error.message = Tr::tr("The .mcp file (%n byte(s)) is JSON but neither a list (version 1) nor an object "
                               "with an \"mcps\" object (version 2). AgentScope falls back to its default MCPs and "
                               "overwrites the file on the next MCP change.",
                               nullptr, int(qMin<qsizetype>(size, INT_MAX)));
        return tl::unexpected(error);
    }
    const rapidjson::Value *version = McpConfigParser::member(document, "version");
    if (!version || !version->IsInt() || version->GetInt() != 2) {
        QString written;
        if (!version)
            written = Tr::tr("absent");
        else if (version->IsInt())
            written = QString::number(version->GetInt());
        else if (version->IsString())
            written = QLatin1Char('"') + McpConfigParser::text(*version) + QLatin1Char('"');
        else
            written = Tr::tr("not a number");
        config.warnings.append(Tr::tr("version is %1, not 2: read as version 2").arg(written));
        if (version && version->IsInt())
            config.versionAsWritten = version->GetInt();
    } else {
        config.versionAsWritten = 2;
    }
    for (auto agent = mcps->MemberBegin(); agent != mcps->MemberEnd(); ++agent) {
        const QString agentId = McpConfigParser::text(agent->name);
        if (!agent->value.IsObject()) {
            config.warnings.append(Tr::tr("agent \"%1\" is not an object: AgentScope skips it").arg(maskText(agentId)));
            continue;
        }
        for (auto session = agent->value.MemberBegin(); session != agent->value.MemberEnd(); ++session) {
            const QString sessionId = McpConfigParser::text(session->name);
            if (!session->value.IsArray()) {
                config.warnings.append(Tr::tr("session \"%1\" of agent \"%2\" is not a list: AgentScope skips it")
                                           .arg(maskText(sessionId), maskText(agentId)));
                continue;
            }
            config.scopes.append(McpConfigParser::scope(session->value, agentId, sessionId));
        }
    }
    return config;
}

QDebug operator<<(QDebug debug, const McpEntry &entry)
{
    const QDebugStateSaver saver(debug);
    debug.noquote().nospace() << "McpEntry("
                              << QString::fromUtf8(QJsonDocument(entry.toJson()).toJson(QJsonDocument::Compact)) << ')';
    return debug;
}

QDebug operator<<(QDebug debug, const McpConfig &config)
{
    const QDebugStateSaver saver(debug);
    debug.noquote().nospace() << "McpConfig("
                              << QString::fromUtf8(QJsonDocument(config.toJson()).toJson(QJsonDocument::Compact))
                              << ')';
    return debug;
}

} // namespace Paddock::Inspect
