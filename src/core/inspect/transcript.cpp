#include "transcript.h"

#include "../tr.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <QUrl>

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstring>
#include <string_view>

namespace Paddock::Inspect {

// ---------------------------------------------------------------------------------------------
// data/ sniffing

namespace {

// Whether bytes are UTF-8, allowing a sequence cut at the very end (a head of a longer file).
bool isUtf8Text(QByteArrayView bytes)
{
    const auto *p = reinterpret_cast<const unsigned char *>(bytes.data());
    const qsizetype n = bytes.size();
    qsizetype controls = 0;
    for (qsizetype i = 0; i < n;) {
        const unsigned char c = p[i];
        if (c < 0x80) {
            if (c == 0)
                return false;
            if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f')
                ++controls;
            ++i;
            continue;
        }
        int length = 0;
        if ((c & 0xE0) == 0xC0 && c >= 0xC2)
            length = 2;
        else if ((c & 0xF0) == 0xE0)
            length = 3;
        else if ((c & 0xF8) == 0xF0 && c <= 0xF4)
            length = 4;
        else
            return false;
        for (int k = 1; k < length; ++k) {
            if (i + k >= n)
                return true; // cut at the end of the head
            if ((p[i + k] & 0xC0) != 0x80)
                return false;
        }
        i += length;
    }
    return controls * 20 <= n; // a few stray control characters are still text
}

} // namespace

DataKind sniffData(QByteArrayView head)
{
    auto startsWith = [&](const char *magic, qsizetype length, qsizetype at = 0) {
        return head.size() >= at + length && std::memcmp(head.data() + at, magic, size_t(length)) == 0;
    };
    if (startsWith("\x89PNG\r\n\x1a\n", 8))
        return DataKind::Png;
    if (startsWith("\xff\xd8\xff", 3))
        return DataKind::Jpeg;
    if (startsWith("GIF87a", 6) || startsWith("GIF89a", 6))
        return DataKind::Gif;
    if (startsWith("RIFF", 4) && startsWith("WEBP", 4, 8))
        return DataKind::Webp;
    if (startsWith("%PDF-", 5))
        return DataKind::Pdf;
    QByteArrayView text = head;
    if (text.startsWith("\xEF\xBB\xBF"))
        text = text.sliced(3);
    if (text.isEmpty() || !isUtf8Text(text))
        return DataKind::Unknown;
    const QByteArrayView trimmed = text.trimmed();
    if (!trimmed.isEmpty() && (trimmed.front() == '{' || trimmed.front() == '['))
        return DataKind::Json;
    return DataKind::Text;
}

QString dataKindName(DataKind kind)
{
    static const char *const names[] = {"png", "jpeg", "gif", "webp", "pdf", "json", "text", "unknown"};
    return QLatin1String(names[int(kind)]);
}

QString dataKindMediaType(DataKind kind)
{
    static const char *const types[] = {
        "image/png",       "image/jpeg",       "image/gif",  "image/webp",
        "application/pdf", "application/json", "text/plain", "application/octet-stream"};
    return QLatin1String(types[int(kind)]);
}

std::optional<QString> resolveDataUrl(const QString &url, const QString &recordedWorkdir)
{
    QString relative;
    if (url.startsWith(QLatin1String("workspace:///"))) {
        relative = QUrl::fromPercentEncoding(url.mid(13).toUtf8());
    } else if (url.startsWith(QLatin1String("file://"))) {
        QString path = QUrl::fromPercentEncoding(url.mid(7).toUtf8());
        if (path.startsWith(QLatin1String("localhost/")))
            path.remove(0, 9);
        QString workdir = recordedWorkdir;
        while (workdir.size() > 1 && workdir.endsWith(QLatin1Char('/')))
            workdir.chop(1);
        if (!workdir.isEmpty() && path.startsWith(workdir + QLatin1Char('/'))) {
            relative = path.mid(workdir.size() + 1);
        } else {
            const qsizetype data = path.lastIndexOf(QLatin1String("/data/"));
            if (data < 0)
                return std::nullopt;
            relative = path.mid(data + 1);
        }
    } else {
        return std::nullopt;
    }
    const QStringList segments = relative.split(QLatin1Char('/'));
    if (relative.isEmpty() || relative.startsWith(QLatin1Char('/')) || relative.contains(QChar(0)))
        return std::nullopt;
    for (const QString &segment : segments) {
        if (segment.isEmpty() || segment == QLatin1String("..") || segment == QLatin1String("."))
            return std::nullopt;
    }
    return relative;
}

QList<DataPlaceholder> findDataPlaceholders(QStringView text, const QString &recordedWorkdir)
{
    QList<DataPlaceholder> found;
    if (!text.contains(QLatin1String("<data url='")))
        return found;
    static thread_local const QRegularExpression placeholder(
        QStringLiteral("<data url='([^']*)' name='([^\\n]*?)' media_type='([^'\\n]*)'/>"));
    for (auto it = placeholder.globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch match = it.next();
        DataPlaceholder data;
        data.offset = match.capturedStart();
        data.length = match.capturedLength();
        data.url = match.captured(1);
        data.name = match.captured(2) == QLatin1String("None") ? QString() : match.captured(2);
        data.mediaType = match.captured(3);
        data.dataFile = resolveDataUrl(data.url, recordedWorkdir);
        found.append(data);
    }
    return found;
}

std::optional<ToolResultFileName> parseToolResultFileName(const QString &fileName)
{
    static thread_local const QRegularExpression pattern(QStringLiteral("^tool_result-(.+?)(?:\\((\\d+)\\))?\\.txt$"));
    const QRegularExpressionMatch match = pattern.match(fileName);
    if (!match.hasMatch())
        return std::nullopt;
    ToolResultFileName name;
    name.toolCallId = match.captured(1);
    name.clash = match.hasCaptured(2) ? match.captured(2).toInt() : 0;
    return name;
}

// ---------------------------------------------------------------------------------------------
// parsing one line

namespace {

using Value = rapidjson::Value;

// Printing and walking parsed JSON recurse; a line nested deeper than this (no real message is)
// is reported as unreadable instead of exhausting a worker thread's stack.
constexpr int MaxJsonDepth = 200;

bool nestedWithin(std::string_view json, int maxDepth)
{
    int depth = 0;
    bool inString = false;
    for (size_t i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            if (++depth > maxDepth)
                return false;
        } else if (c == '}' || c == ']') {
            --depth;
        }
    }
    return true;
}

constexpr unsigned ParseFlags = rapidjson::kParseIterativeFlag;

const Value *member(const Value &object, const char *name)
{
    if (!object.IsObject())
        return nullptr;
    const auto it = object.FindMember(name);
    return it == object.MemberEnd() ? nullptr : &it->value;
}

std::string_view view(const Value &value)
{
    return value.IsString() ? std::string_view(value.GetString(), value.GetStringLength()) : std::string_view();
}

QString decode(std::string_view bytes)
{
    return QString::fromUtf8(bytes.data(), qsizetype(bytes.size()));
}

QString text(const Value *value)
{
    return value && value->IsString() ? decode(view(*value)) : QString();
}

// The first max bytes of bytes, cut at a UTF-8 character boundary; the rest counted into clipped.
QString cappedText(std::string_view bytes, qsizetype max, qsizetype &clipped)
{
    if (qsizetype(bytes.size()) <= max)
        return decode(bytes);
    qsizetype cut = max;
    while (cut > 0 && (static_cast<unsigned char>(bytes[size_t(cut)]) & 0xC0) == 0x80)
        --cut;
    clipped += qsizetype(bytes.size()) - cut;
    return decode(bytes.substr(0, size_t(cut)));
}

QString serialized(const Value &value, bool pretty, qsizetype max, qsizetype &clipped)
{
    rapidjson::StringBuffer buffer;
    if (pretty) {
        rapidjson::PrettyWriter<rapidjson::StringBuffer> writer(buffer);
        writer.SetIndent(' ', 2);
        value.Accept(writer);
    } else {
        rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
        value.Accept(writer);
    }
    return cappedText(std::string_view(buffer.GetString(), buffer.GetSize()), max, clipped);
}

struct Context
{
    const TranscriptReader::Options &options;
};

void collectDataRefs(TranscriptBlock &block, const QString &text, const Context &context)
{
    if (!text.contains(QLatin1String("workspace:///")) && !text.contains(QLatin1String("file://")))
        return;
    static thread_local const QRegularExpression urls(QStringLiteral("(?:workspace:///data/|file://)[^\\s'\",<]+"));
    for (auto it = urls.globalMatch(text); it.hasNext();) {
        QString url = it.next().captured();
        while (url.endsWith(QLatin1Char('.')))
            url.chop(1);
        if (const std::optional<QString> file = resolveDataUrl(url, context.options.recordedWorkdir)) {
            if (!block.dataFiles.contains(*file))
                block.dataFiles.append(*file);
        }
    }
}

// Removes the truncation reminder from a tool result's text; says where the rest went.
void takeTruncation(std::string_view &raw, TranscriptBlock &result, const Context &context)
{
    const std::string_view marker("<<<TRUNCATED>>>");
    const size_t at = raw.rfind(marker);
    if (at == std::string_view::npos)
        return;
    const std::string_view reminder = raw.substr(at);
    result.truncated = true;
    const std::string_view before("the file in '");
    const std::string_view after("' for the truncated");
    const size_t start = reminder.find(before);
    if (start != std::string_view::npos) {
        const size_t end = reminder.find(after, start + before.size());
        if (end != std::string_view::npos)
            result.truncatedPath = decode(reminder.substr(start + before.size(), end - start - before.size()));
    }
    size_t keep = at;
    if (keep > 0 && raw[keep - 1] == '\n')
        --keep;
    raw = raw.substr(0, keep);

    QString file;
    if (!result.truncatedPath.isEmpty()) {
        const QString path = result.truncatedPath;
        const qsizetype sessions = path.lastIndexOf(QLatin1String("/sessions/"));
        file =
            sessions >= 0 ? path.mid(sessions + 1) : (path.startsWith(QLatin1String("sessions/")) ? path : QString());
    }
    if (file.isEmpty() && !context.options.sessionId.isEmpty() && !result.id.isEmpty())
        file = QStringLiteral("sessions/") + context.options.sessionId + QStringLiteral("/tool_result-") + result.id
            + QStringLiteral(".txt");
    const QStringList segments = file.split(QLatin1Char('/'));
    if (segments.contains(QStringLiteral("..")) || segments.contains(QString()))
        file.clear();
    result.truncatedFile = file;
}

TranscriptBlock parseBlock(const Value &json, const Context &context, TranscriptBlock *toolResult = nullptr);

void parseChildren(const Value &list, TranscriptBlock &parent, const Context &context, bool isToolResult)
{
    // The reminder goes into the last text block of the output.
    qsizetype lastText = -1;
    qsizetype index = 0;
    for (const Value &item : list.GetArray()) {
        if (const Value *type = member(item, "type"); type && view(*type) == "text")
            lastText = index;
        ++index;
    }
    index = 0;
    for (const Value &item : list.GetArray()) {
        parent.children.push_back(parseBlock(item, context, isToolResult && index == lastText ? &parent : nullptr));
        ++index;
    }
}

TranscriptBlock parseBlock(const Value &json, const Context &context, TranscriptBlock *toolResult)
{
    const qsizetype max = context.options.maxTextBytes;
    TranscriptBlock block;
    if (!json.IsObject()) {
        block.rawJson = serialized(json, true, max, block.clippedBytes);
        return block;
    }
    block.typeName = text(member(json, "type"));
    block.id = text(member(json, "id"));
    block.createdAt = text(member(json, "created_at"));
    block.finishedAt = text(member(json, "finished_at"));
    const QString &type = block.typeName;
    if (type == QLatin1String("text")) {
        block.type = TranscriptBlock::Type::Text;
        std::string_view raw = member(json, "text") ? view(*member(json, "text")) : std::string_view();
        if (toolResult)
            takeTruncation(raw, *toolResult, context);
        block.text = cappedText(raw, max, block.clippedBytes);
        collectDataRefs(block, block.text, context);
    } else if (type == QLatin1String("thinking")) {
        block.type = TranscriptBlock::Type::Thinking;
        const Value *thinking = member(json, "thinking");
        block.text = cappedText(thinking ? view(*thinking) : std::string_view(), max, block.clippedBytes);
        for (auto it = json.MemberBegin(); it != json.MemberEnd(); ++it) {
            const std::string_view key = view(it->name);
            if (key != "type" && key != "thinking" && key != "id" && key != "created_at" && key != "finished_at")
                block.extraKeys.append(decode(key));
        }
    } else if (type == QLatin1String("hint")) {
        block.type = TranscriptBlock::Type::Hint;
        block.source = text(member(json, "source"));
        if (const Value *hint = member(json, "hint"); hint && hint->IsArray()) {
            parseChildren(*hint, block, context, false);
        } else if (hint && hint->IsString()) {
            block.text = cappedText(view(*hint), max, block.clippedBytes);
            collectDataRefs(block, block.text, context);
        }
    } else if (type == QLatin1String("tool_call")) {
        block.type = TranscriptBlock::Type::ToolCall;
        block.toolName = text(member(json, "name"));
        block.state = text(member(json, "state"));
        if (const Value *input = member(json, "input")) {
            if (input->IsString()) {
                block.input = cappedText(view(*input), max, block.clippedBytes);
                rapidjson::Document parsed;
                const std::string_view raw = view(*input);
                // A NUL (\u0000 in the string) would end RapidJSON's text early.
                const bool shallow = nestedWithin(raw, MaxJsonDepth) && raw.find('\0') == std::string_view::npos;
                if (shallow)
                    parsed.Parse<ParseFlags>(raw.data(), raw.size());
                if (shallow && !parsed.HasParseError())
                    block.inputPretty = serialized(parsed, true, max, block.clippedBytes);
            } else if (!input->IsNull()) {
                block.input = serialized(*input, false, max, block.clippedBytes);
                block.inputPretty = serialized(*input, true, max, block.clippedBytes);
            }
        }
    } else if (type == QLatin1String("tool_result")) {
        block.type = TranscriptBlock::Type::ToolResult;
        block.toolName = text(member(json, "name"));
        block.state = text(member(json, "state"));
        if (const Value *output = member(json, "output"); output && output->IsArray()) {
            parseChildren(*output, block, context, true);
        } else if (output && output->IsString()) {
            std::string_view raw = view(*output);
            takeTruncation(raw, block, context);
            block.text = cappedText(raw, max, block.clippedBytes);
            collectDataRefs(block, block.text, context);
        }
        if (const Value *metadata = member(json, "metadata");
            metadata && !metadata->IsNull() && !(metadata->IsObject() && metadata->MemberCount() == 0))
            block.metadataJson = serialized(*metadata, false, max, block.clippedBytes);
    } else if (type == QLatin1String("data")) {
        block.type = TranscriptBlock::Type::Data;
        block.name = text(member(json, "name"));
        if (const Value *source = member(json, "source")) {
            block.mediaType = text(member(*source, "media_type"));
            const QString sourceType = text(member(*source, "type"));
            if (sourceType == QLatin1String("base64")) {
                block.inlineBase64 = true;
                if (const Value *data = member(*source, "data"); data && data->IsString())
                    block.base64Size = qsizetype(data->GetStringLength());
            } else {
                block.url = text(member(*source, "url"));
                if (const std::optional<QString> file = resolveDataUrl(block.url, context.options.recordedWorkdir))
                    block.dataFiles.append(*file);
            }
        }
    } else {
        block.type = TranscriptBlock::Type::Unknown;
        block.rawJson = serialized(json, true, max, block.clippedBytes);
    }
    return block;
}

void pairToolCalls(TranscriptMessage &message)
{
    std::vector<TranscriptBlock> &blocks = message.blocks;
    for (size_t i = 0; i < blocks.size(); ++i) {
        if (blocks[i].type != TranscriptBlock::Type::ToolCall || blocks[i].pairedBlock >= 0)
            continue;
        for (size_t j = i + 1; j < blocks.size(); ++j) {
            if (blocks[j].type == TranscriptBlock::Type::ToolResult && blocks[j].pairedBlock < 0
                && blocks[j].id == blocks[i].id) {
                blocks[i].pairedBlock = int(j);
                blocks[j].pairedBlock = int(i);
                break;
            }
        }
    }
}

QString previewOf(QByteArrayView bytes, qsizetype max)
{
    qsizetype cut = qMin(bytes.size(), max);
    if (cut < bytes.size()) {
        while (cut > 0 && (static_cast<unsigned char>(bytes[cut]) & 0xC0) == 0x80)
            --cut;
    }
    return QString::fromUtf8(bytes.first(cut));
}

} // namespace

// ---------------------------------------------------------------------------------------------
// the reader

TranscriptReader::TranscriptReader()
    : TranscriptReader(Options())
{
}

TranscriptReader::TranscriptReader(Options options)
    : m_options(std::move(options))
{
}

void TranscriptReader::feed(QByteArrayView chunk)
{
    if (m_finished)
        return;
    qsizetype start = 0;
    while (start < chunk.size()) {
        const void *found = std::memchr(chunk.data() + start, '\n', size_t(chunk.size() - start));
        const qsizetype newline = found ? qsizetype(static_cast<const char *>(found) - chunk.data()) : -1;
        const qsizetype end = newline >= 0 ? newline : chunk.size();
        if (m_pendingFull == 0)
            m_pendingOffset = m_bytes + start;
        const qsizetype room = m_options.maxLineBytes - m_pending.size();
        if (room > 0)
            m_pending.append(chunk.sliced(start, qMin(room, end - start)));
        m_pendingFull += end - start;
        if (m_pendingFull > m_options.maxLineBytes && m_pending.size() > m_options.previewBytes)
            m_pending.truncate(m_options.previewBytes); // only the start of an oversized line is kept
        if (newline < 0)
            break;
        lineDone(m_pending, m_pendingOffset, m_pendingFull, m_pendingFull > m_options.maxLineBytes);
        m_pending.clear();
        m_pendingFull = 0;
        start = newline + 1;
    }
    m_bytes += chunk.size();
}

void TranscriptReader::finish()
{
    if (m_finished)
        return;
    m_finished = true;
    if (m_pendingFull > 0 && !QByteArrayView(m_pending).trimmed().isEmpty()) {
        TranscriptMessage incomplete;
        incomplete.kind = TranscriptMessage::Kind::Incomplete;
        incomplete.firstLine = incomplete.lastLine = ++m_line;
        incomplete.offset = m_pendingOffset;
        incomplete.byteSize = m_pendingFull;
        incomplete.lineCount = 1;
        incomplete.preview = previewOf(m_pending, m_options.previewBytes);
        push(std::move(incomplete));
    }
    m_pending.clear();
    m_pendingFull = 0;
    if (m_last) {
        pairToolCalls(*m_last);
        m_ready.append(std::move(*m_last));
        m_last.reset();
    }
}

QList<TranscriptMessage> TranscriptReader::takeMessages()
{
    return std::exchange(m_ready, {});
}

void TranscriptReader::lineDone(QByteArrayView line, qint64 offset, qsizetype fullSize, bool oversized)
{
    ++m_line;
    if (!oversized && line.endsWith('\r'))
        line.chop(1);
    if (line.trimmed().isEmpty())
        return;
    TranscriptMessage message;
    message.firstLine = message.lastLine = m_line;
    message.offset = offset;
    message.byteSize = fullSize;
    message.lineCount = 1;
    if (oversized) {
        message.kind = TranscriptMessage::Kind::Oversized;
        message.preview = previewOf(line, m_options.previewBytes);
        push(std::move(message));
        return;
    }
    const std::string_view bytes(line.data(), size_t(line.size()));
    if (!nestedWithin(bytes, MaxJsonDepth)) {
        message.kind = TranscriptMessage::Kind::NotJson;
        message.parseError = Tr::tr("nested deeper than %1 levels").arg(MaxJsonDepth);
        push(std::move(message));
        return;
    }
    rapidjson::Document document;
    document.Parse<ParseFlags>(line.data(), size_t(line.size()));
    rapidjson::ParseErrorCode code = document.GetParseError();
    size_t errorAt = document.GetErrorOffset();
    // RapidJSON takes a NUL byte for the end of the text: one after the object (which no JSON
    // text holds) would go unseen.
    if (const qsizetype nul = line.indexOf('\0'); code == rapidjson::kParseErrorNone && nul >= 0) {
        code = rapidjson::kParseErrorDocumentRootNotSingular;
        errorAt = size_t(nul);
    }
    if (code != rapidjson::kParseErrorNone || !document.IsObject()) {
        message.kind = TranscriptMessage::Kind::NotJson;
        message.parseError = code != rapidjson::kParseErrorNone
            ? Tr::tr("%1 at byte %2").arg(QString::fromUtf8(rapidjson::GetParseError_En(code))).arg(errorAt)
            : Tr::tr("the line is JSON but not an object");
        push(std::move(message));
        return;
    }
    const Context context{m_options};
    message.name = text(member(document, "name"));
    message.role = text(member(document, "role"));
    message.id = text(member(document, "id"));
    message.createdAt = text(member(document, "created_at"));
    message.finishedAt = text(member(document, "finished_at"));
    message.finishedReason = text(member(document, "finished_reason"));
    if (const Value *usage = member(document, "usage"); usage && usage->IsObject()) {
        auto integer = [&](const char *name) -> std::optional<qint64> {
            const Value *value = member(*usage, name);
            if (!value || !value->IsNumber())
                return std::nullopt;
            return value->IsInt64() ? value->GetInt64() : qint64(value->GetDouble());
        };
        TranscriptUsage counts;
        counts.inputTokens = integer("input_tokens").value_or(0);
        counts.outputTokens = integer("output_tokens").value_or(0);
        counts.cacheInputTokens = integer("cache_input_tokens");
        counts.cacheCreationInputTokens = integer("cache_creation_input_tokens");
        message.usage = counts;
    }
    if (const Value *error = member(document, "error"); error && error->IsObject()) {
        message.errorType = text(member(*error, "type"));
        message.errorMessage = text(member(*error, "message"));
    }
    if (const Value *structured = member(document, "structured_output"); structured && !structured->IsNull())
        message.hasStructuredOutput = true;
    if (member(document, "timestamp"))
        message.legacyShape = true;
    if (const Value *content = member(document, "content")) {
        if (content->IsArray()) {
            for (const Value &item : content->GetArray())
                message.blocks.push_back(parseBlock(item, context));
        } else if (!content->IsNull()) {
            // AgentScope 1.x: content as a plain string (or anything else): one generic block.
            message.legacyShape = true;
            TranscriptBlock block;
            block.type = TranscriptBlock::Type::Unknown;
            block.rawJson = serialized(*content, true, m_options.maxTextBytes, block.clippedBytes);
            message.blocks.push_back(std::move(block));
        }
    }
    if (message.legacyShape) {
        for (TranscriptBlock &block : message.blocks) {
            if (block.type == TranscriptBlock::Type::Unknown && block.rawJson.isEmpty())
                block.rawJson = block.text;
        }
    }
    push(std::move(message));
}

void TranscriptReader::push(TranscriptMessage message)
{
    if (message.kind == TranscriptMessage::Kind::Message && m_last && m_last->kind == TranscriptMessage::Kind::Message
        && !message.id.isEmpty() && m_last->id == message.id) {
        TranscriptMessage &into = *m_last;
        for (TranscriptBlock &block : message.blocks)
            into.blocks.push_back(std::move(block));
        into.lastLine = message.lastLine;
        into.byteSize += message.byteSize;
        into.lineCount += message.lineCount;
        if (!message.finishedAt.isEmpty())
            into.finishedAt = message.finishedAt;
        if (!message.finishedReason.isEmpty())
            into.finishedReason = message.finishedReason;
        if (message.usage)
            into.usage = message.usage;
        return;
    }
    if (m_last) {
        pairToolCalls(*m_last);
        m_ready.append(std::move(*m_last));
    }
    m_last = std::move(message);
}

// ---------------------------------------------------------------------------------------------
// JSON

namespace {

QString blockTypeName(TranscriptBlock::Type type)
{
    static const char *const names[] = {"text", "thinking", "tool_call", "tool_result", "hint", "data", "unknown"};
    return QLatin1String(names[int(type)]);
}

QString messageKindName(TranscriptMessage::Kind kind)
{
    static const char *const names[] = {"message", "not-json", "oversized", "incomplete"};
    return QLatin1String(names[int(kind)]);
}

void insertIf(QJsonObject &json, const char *key, const QString &value)
{
    if (!value.isEmpty())
        json.insert(QLatin1String(key), value);
}

} // namespace

QJsonObject TranscriptBlock::toJson() const
{
    QJsonObject json{{QStringLiteral("type"), blockTypeName(type)}};
    insertIf(json, "typeName", typeName);
    insertIf(json, "id", id);
    insertIf(json, "createdAt", createdAt);
    insertIf(json, "finishedAt", finishedAt);
    insertIf(json, "text", text);
    if (clippedBytes > 0)
        json.insert(QStringLiteral("clippedBytes"), double(clippedBytes));
    if (!extraKeys.isEmpty())
        json.insert(QStringLiteral("extraKeys"), QJsonArray::fromStringList(extraKeys));
    insertIf(json, "toolName", toolName);
    insertIf(json, "input", input);
    insertIf(json, "inputPretty", inputPretty);
    insertIf(json, "state", state);
    if (pairedBlock >= 0)
        json.insert(QStringLiteral("pairedBlock"), pairedBlock);
    if (!children.empty()) {
        QJsonArray array;
        for (const TranscriptBlock &child : children)
            array.append(child.toJson());
        json.insert(QStringLiteral("children"), array);
    }
    insertIf(json, "metadata", metadataJson);
    if (truncated) {
        json.insert(QStringLiteral("truncated"), true);
        insertIf(json, "truncatedPath", truncatedPath);
        insertIf(json, "truncatedFile", truncatedFile);
    }
    insertIf(json, "source", source);
    insertIf(json, "url", url);
    insertIf(json, "mediaType", mediaType);
    insertIf(json, "name", name);
    if (inlineBase64) {
        json.insert(QStringLiteral("inlineBase64"), true);
        json.insert(QStringLiteral("base64Size"), double(base64Size));
    }
    if (!dataFiles.isEmpty())
        json.insert(QStringLiteral("dataFiles"), QJsonArray::fromStringList(dataFiles));
    insertIf(json, "raw", rawJson);
    return json;
}

QJsonObject TranscriptMessage::toJson() const
{
    QJsonObject json{
        {QStringLiteral("kind"), messageKindName(kind)}, {QStringLiteral("firstLine"), firstLine},
        {QStringLiteral("lastLine"), lastLine},          {QStringLiteral("offset"), double(offset)},
        {QStringLiteral("byteSize"), double(byteSize)},  {QStringLiteral("lineCount"), lineCount},
    };
    insertIf(json, "name", name);
    insertIf(json, "role", role);
    insertIf(json, "id", id);
    insertIf(json, "createdAt", createdAt);
    insertIf(json, "finishedAt", finishedAt);
    insertIf(json, "finishedReason", finishedReason);
    if (usage) {
        QJsonObject counts{{QStringLiteral("inputTokens"), double(usage->inputTokens)},
                           {QStringLiteral("outputTokens"), double(usage->outputTokens)}};
        if (usage->cacheInputTokens)
            counts.insert(QStringLiteral("cacheInputTokens"), double(*usage->cacheInputTokens));
        if (usage->cacheCreationInputTokens)
            counts.insert(QStringLiteral("cacheCreationInputTokens"), double(*usage->cacheCreationInputTokens));
        json.insert(QStringLiteral("usage"), counts);
    }
    insertIf(json, "errorType", errorType);
    insertIf(json, "errorMessage", errorMessage);
    if (hasStructuredOutput)
        json.insert(QStringLiteral("hasStructuredOutput"), true);
    if (legacyShape)
        json.insert(QStringLiteral("legacyShape"), true);
    if (kind == Kind::Message) {
        QJsonArray array;
        for (const TranscriptBlock &block : blocks)
            array.append(block.toJson());
        json.insert(QStringLiteral("blocks"), array);
    }
    insertIf(json, "parseError", parseError);
    insertIf(json, "preview", preview);
    return json;
}

} // namespace Paddock::Inspect
