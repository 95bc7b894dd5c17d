#include "sandboxjson.h"

#include "../../inspect/secretmask.h"
#include "../../shellquote.h"
#include "../../tr.h"
#include "metadatacodec.h"
#include "wire.h"

#include <rapidjson/document.h>

namespace Paddock::OpenSandbox {

namespace {

QString text(const rapidjson::Value &value)
{
    return value.IsString() ? QString::fromUtf8(value.GetString(), qsizetype(value.GetStringLength())) : QString();
}

const rapidjson::Value *member(const rapidjson::Value &object, const char *name)
{
    if (!object.IsObject())
        return nullptr;
    const auto it = object.FindMember(name);
    return it == object.MemberEnd() ? nullptr : &it->value;
}

QString stringMember(const rapidjson::Value &object, const char *name)
{
    const rapidjson::Value *value = member(object, name);
    return value ? text(*value) : QString();
}

std::optional<QDateTime> timeMember(const rapidjson::Value &object, const char *name)
{
    const rapidjson::Value *value = member(object, name);
    if (!value || !value->IsString())
        return std::nullopt;
    return parseTimestamp(std::string_view(value->GetString(), value->GetStringLength()));
}

SandboxInfo sandboxFrom(const rapidjson::Value &json)
{
    SandboxInfo info;
    info.sandboxId = stringMember(json, "id");
    if (const rapidjson::Value *status = member(json, "status"))
        info.rawState = stringMember(*status, "state");
    info.state = parseSandboxState(info.rawState);
    if (const rapidjson::Value *image = member(json, "image"))
        info.image = stringMember(*image, "uri");
    info.backend = QStringLiteral("opensandbox");
    if (const auto created = timeMember(json, "createdAt"))
        info.createdAt = *created;
    info.expiresAt = timeMember(json, "expiresAt");
    if (const rapidjson::Value *metadata = member(json, "metadata"); metadata && metadata->IsObject()) {
        for (auto it = metadata->MemberBegin(); it != metadata->MemberEnd(); ++it)
            info.metadata.insert(text(it->name), decodeMetadataValue(text(it->value)).text);
    }
    info.workspaceId = info.metadata.value(WorkspaceIdKey);
    info.userId = info.metadata.value(UserIdKey);
    info.agentId = info.metadata.value(AgentIdKey);
    info.fingerprint = fingerprintOf(info);
    return info;
}

// An entrypoint for display: each argument quoted as a shell would take it, except those whose
// secret part is masked (shown as they are, the mask in place of the value).
QString displayCommand(const QStringList &argv)
{
    const Inspect::MaskedArgs masked = Inspect::maskArgs(argv);
    QStringList shown;
    for (qsizetype i = 0; i < masked.args.size(); ++i)
        shown.append(masked.secretValues.value(i) ? masked.args.at(i) : shellQuote(masked.args.at(i)));
    return shown.join(u' ');
}

SandboxDetails detailsFrom(const rapidjson::Value &json)
{
    SandboxDetails details;
    details.sandbox = sandboxFrom(json);
    if (const rapidjson::Value *status = member(json, "status")) {
        details.stateReason = stringMember(*status, "reason");
        details.stateMessage = stringMember(*status, "message");
    }
    // Not in the lifecycle spec's Sandbox (only in CreateSandboxRequest): read when a server sends it.
    if (const rapidjson::Value *limits = member(json, "resourceLimits"); limits && limits->IsObject()) {
        for (auto it = limits->MemberBegin(); it != limits->MemberEnd(); ++it) {
            if (it->value.IsString())
                details.resources.append({text(it->name), text(it->value)});
        }
    }
    if (const rapidjson::Value *status = member(json, "status")) {
        if (const auto since = timeMember(*status, "lastTransitionAt"))
            details.facts.append({Tr::tr("Last transition"), since->toUTC().toString(Qt::ISODateWithMs)});
    }
    if (const rapidjson::Value *entrypoint = member(json, "entrypoint"); entrypoint && entrypoint->IsArray()) {
        QStringList argv;
        for (const rapidjson::Value &argument : entrypoint->GetArray())
            argv.append(text(argument));
        if (!argv.isEmpty())
            details.facts.append({Tr::tr("Entrypoint"), displayCommand(argv)});
    }
    if (const rapidjson::Value *platform = member(json, "platform")) {
        const QString os = stringMember(*platform, "os");
        const QString arch = stringMember(*platform, "arch");
        if (!os.isEmpty() || !arch.isEmpty())
            details.facts.append({Tr::tr("Platform"), os + u'/' + arch});
    }
    if (const QString snapshot = stringMember(json, "snapshotId"); !snapshot.isEmpty())
        details.facts.append({Tr::tr("Snapshot"), snapshot});
    if (const rapidjson::Value *allocation = member(json, "allocation")) {
        if (const QString pool = stringMember(*allocation, "poolRef"); !pool.isEmpty())
            details.facts.append({Tr::tr("Pool"), pool});
    }
    return details;
}

// Iteratively: a body nested a million levels deep is refused, not a stack overflow. RapidJSON
// takes a NUL byte for the end of the text, so what follows one would go unseen: no JSON text
// holds a raw NUL, and a body with one is refused.
bool parse(rapidjson::Document &document, const QByteArray &json)
{
    document.Parse<rapidjson::kParseIterativeFlag>(json.constData(), size_t(json.size()));
    return !document.HasParseError() && document.IsObject() && !json.contains('\0');
}

} // namespace

Error notJsonError(const HttpResponse &response)
{
    const QString type = QString::fromLatin1(response.headers.value(QByteArrayLiteral("content-type")));
    QString message = Tr::tr("the server's answer is not a JSON object (HTTP %1, %2)")
                          .arg(response.status)
                          .arg(type.isEmpty() ? Tr::tr("no content type") : type);
    if (!response.requestId.isEmpty())
        message += u' ' + Tr::tr("(request %1)").arg(response.requestId);
    message += u' ' + Tr::tr("- is this an OpenSandbox server?");
    return Error::backend(message);
}

Result<SandboxInfo> parseSandbox(const QByteArray &json)
{
    rapidjson::Document document;
    if (!parse(document, json))
        return fail(Error::backend(Tr::tr("not a JSON object")));
    return sandboxFrom(document);
}

Result<SandboxInfo> parseSandboxResponse(const HttpResponse &response)
{
    rapidjson::Document document;
    if (!parse(document, response.body))
        return fail(notJsonError(response));
    return sandboxFrom(document);
}

Result<SandboxDetails> parseSandboxDetails(const HttpResponse &response)
{
    rapidjson::Document document;
    if (!parse(document, response.body))
        return fail(notJsonError(response));
    return detailsFrom(document);
}

Result<ListPage> parseListPage(const HttpResponse &response)
{
    rapidjson::Document document;
    if (!parse(document, response.body))
        return fail(notJsonError(response));
    ListPage page;
    if (const rapidjson::Value *items = member(document, "items"); items && items->IsArray()) {
        page.items.reserve(qsizetype(items->Size()));
        for (const rapidjson::Value &item : items->GetArray()) {
            if (item.IsObject())
                page.items.append(sandboxFrom(item));
        }
    }
    if (const rapidjson::Value *pagination = member(document, "pagination")) {
        if (const rapidjson::Value *next = member(*pagination, "hasNextPage"); next && next->IsBool())
            page.hasNextPage = next->GetBool();
        if (const rapidjson::Value *total = member(*pagination, "totalPages"); total && total->IsInt())
            page.totalPages = total->GetInt();
    }
    return page;
}

} // namespace Paddock::OpenSandbox
