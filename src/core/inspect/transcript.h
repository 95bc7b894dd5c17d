#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace Paddock::Inspect {

// What a data/ file holds, by its first bytes (never by its name).
enum class DataKind { Png, Jpeg, Gif, Webp, Pdf, Json, Text, Unknown };
DataKind sniffData(QByteArrayView head); // the first 512 bytes or so are enough
QString dataKindName(DataKind kind); // "png", "jpeg", ..., "unknown"
QString dataKindMediaType(DataKind kind); // "image/png", ..., "application/octet-stream"

// A data URL of a transcript (reference §3) as a path relative to the workdir ("data/<name>"):
// workspace:///data/<name>, or file://<abs> with the recorded workdir prefix stripped, else from
// its last "/data/" segment. nullopt for anything else or anything resolving outside the workdir.
std::optional<QString> resolveDataUrl(const QString &url, const QString &recordedWorkdir = QString());

// sessions/<id>/tool_result-<id>.txt holds the remainder of a truncated tool result as plain text;
// each data block in it is a placeholder <data url='<url>' name='<name>' media_type='<type>'/>.
struct DataPlaceholder
{
    qsizetype offset = 0; // in the text given
    qsizetype length = 0;
    QString url;
    QString name; // empty when written as name='None'
    QString mediaType;
    std::optional<QString> dataFile; // resolveDataUrl(url)
};
QList<DataPlaceholder> findDataPlaceholders(QStringView text, const QString &recordedWorkdir = QString());

// "tool_result-<id>.txt" → the tool call id and the clash number ("tool_result-<id>(2).txt" → 2;
// 0 without one); nullopt for other names.
struct ToolResultFileName
{
    QString toolCallId;
    int clash = 0;
};
std::optional<ToolResultFileName> parseToolResultFileName(const QString &fileName);

struct TranscriptBlock
{
    enum class Type { Text, Thinking, ToolCall, ToolResult, Hint, Data, Unknown };
    Type type = Type::Unknown;
    QString typeName; // "type" as written; "" when absent
    QString id;
    QString createdAt; // v2.0.6+; empty on older lines
    QString finishedAt;

    QString text; // text, thinking, a hint given as a string, tool_result output given as a string
    qsizetype clippedBytes = 0; // UTF-8 bytes cut from this block's long strings (the per-string cap)

    // thinking
    QStringList extraKeys; // provider extras (signature, redacted_thinking_data, ...): opaque

    // tool_call
    QString toolName; // also tool_result
    QString input; // raw JSON string as written
    QString inputPretty; // indented when input parses as JSON, else empty
    QString state; // tool_call and tool_result
    int pairedBlock = -1; // index in the message of the tool_result for a tool_call and vice versa

    // tool_result: output as a list of blocks (text/data); `text` holds a plain-string output
    std::vector<TranscriptBlock> children; // also hint given as a list
    QString metadataJson; // tool_result metadata, compact, capped
    bool truncated = false; // the <<<TRUNCATED>>> reminder was found (and removed from the text)
    QString truncatedPath; // the tool-result file it names, as recorded (backend path)
    QString truncatedFile; // that file relative to the workdir ("sessions/<sid>/tool_result-<id>.txt")

    // hint
    QString source;

    // data
    QString url; // source.url, or empty for base64
    QString mediaType;
    QString name;
    bool inlineBase64 = false;
    qsizetype base64Size = 0;

    // data blocks and text reminders: the data/ files referenced, relative to the workdir
    QStringList dataFiles;

    // unknown types and 1.x shapes: the block as indented JSON (capped)
    QString rawJson;

    QJsonObject toJson() const;
};

struct TranscriptUsage
{
    qint64 inputTokens = 0;
    qint64 outputTokens = 0;
    std::optional<qint64> cacheInputTokens; // main only
    std::optional<qint64> cacheCreationInputTokens;
};

struct TranscriptMessage
{
    enum class Kind {
        Message,
        NotJson, // a line that does not parse as a JSON object: a placeholder
        Oversized, // a line longer than the reader's line limit: only its start is kept, unparsed
        Incomplete, // the last line has no newline yet: may be being written, read again later
    };
    Kind kind = Kind::Message;
    int firstLine = 0; // 1-based line numbers in the file (merged messages span several)
    int lastLine = 0;
    qint64 offset = 0; // byte offset of the first line
    qint64 byteSize = 0; // bytes of all its lines, without newlines
    int lineCount = 0; // lines merged into it (consecutive lines with the same id)

    QString name;
    QString role;
    QString id;
    QString createdAt;
    QString finishedAt;
    QString finishedReason;
    std::optional<TranscriptUsage> usage;
    QString errorType;
    QString errorMessage;
    bool hasStructuredOutput = false;
    bool legacyShape = false; // AgentScope 1.x (content as a string, "timestamp"): blocks are Unknown
    std::vector<TranscriptBlock> blocks;

    QString parseError; // NotJson: what the parser said (no text of the line)
    QString preview; // Oversized/Incomplete: the start of the line (capped), for "show more"

    QJsonObject toJson() const;
};

// Reads sessions/<id>/context.jsonl incrementally: feed() it chunks of any size, in order, from any
// thread (one reader is used by one thread at a time); take finished messages as they come. A
// line is kept whole up to maxLineBytes (default 8 MiB) and parsed; longer lines keep only their
// first previewBytes; every string in a block is capped at maxTextBytes (UTF-8) with the rest counted.
class TranscriptReader
{
public:
    struct Options
    {
        qsizetype maxLineBytes = 8 * 1024 * 1024;
        qsizetype previewBytes = 256 * 1024;
        qsizetype maxTextBytes = 256 * 1024;
        QString sessionId; // for the tool-result file when the reminder names none
        QString recordedWorkdir; // the backend's workdir, to map file:// URLs
    };

    TranscriptReader();
    explicit TranscriptReader(Options options);

    void feed(QByteArrayView chunk);
    // The end of what is there now: a last line without '\n' becomes an Incomplete message.
    void finish();

    // Messages that can no longer change (the newest one waits for the next line, which may
    // carry the same id); after finish(), all of them.
    QList<TranscriptMessage> takeMessages();

    qint64 bytesRead() const { return m_bytes; }
    int linesRead() const { return m_line; }

private:
    void lineDone(QByteArrayView line, qint64 offset, qsizetype fullSize, bool oversized);
    void push(TranscriptMessage message);

    Options m_options;
    QByteArray m_pending; // the current line so far (at most maxLineBytes)
    qsizetype m_pendingFull = 0; // its real length (more than m_pending once over the limit)
    qint64 m_pendingOffset = 0;
    qint64 m_bytes = 0;
    int m_line = 0;
    std::optional<TranscriptMessage> m_last; // may still merge with the next line
    QList<TranscriptMessage> m_ready;
    bool m_finished = false;
};

} // namespace Paddock::Inspect
