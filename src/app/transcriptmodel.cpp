#include "transcriptmodel.h"

#include "inspect/secretmask.h"
#include "inspectorsupport.h"

#include <QLocale>

using namespace Paddock::Inspect;

namespace {

using Kind = TranscriptMessage::Kind;
using Type = TranscriptBlock::Type;

QString oneLine(QStringView text, int limit)
{
    QString line;
    line.reserve(std::min<qsizetype>(text.size(), limit));
    bool space = false;
    for (const QChar c : text) {
        if (line.size() >= limit)
            break;
        if (c.isSpace()) {
            space = !line.isEmpty();
            continue;
        }
        if (space)
            line.append(u' ');
        space = false;
        line.append(c);
    }
    return line;
}

qint64 blockBytes(const TranscriptBlock &block)
{
    qint64 bytes = 64
        + 2
            * (block.text.size() + block.input.size() + block.inputPretty.size() + block.metadataJson.size()
               + block.rawJson.size() + block.url.size() + block.id.size() + block.toolName.size());
    for (const TranscriptBlock &child : block.children)
        bytes += blockBytes(child);
    return bytes;
}

void countBlock(const TranscriptBlock &block, TranscriptModel::Summary &summary)
{
    switch (block.type) {
    case Type::ToolCall:
        ++summary.toolCalls;
        break;
    case Type::Thinking:
        ++summary.thinking;
        break;
    case Type::Data:
        ++summary.data;
        break;
    case Type::ToolResult:
        summary.truncated = summary.truncated || block.truncated;
        summary.error = summary.error || block.state == QLatin1String("error");
        break;
    default:
        break;
    }
    if (block.type != Type::Data)
        summary.data += int(block.dataFiles.size());
    summary.clipped = summary.clipped || block.clippedBytes > 0;
    for (const TranscriptBlock &child : block.children)
        countBlock(child, summary);
}

} // namespace

TranscriptModel::TranscriptModel(QObject *parent)
    : QAbstractListModel(parent)
{
    m_cache.setMaxCost(MaxCacheBytes);
}

TranscriptModel::~TranscriptModel() = default;

int TranscriptModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

TranscriptModel::Summary TranscriptModel::summarize(const TranscriptMessage &message)
{
    Summary summary;
    summary.kind = message.kind;
    summary.firstLine = message.firstLine;
    summary.lastLine = message.lastLine;
    summary.lineCount = std::max(1, message.lineCount);
    summary.offset = message.offset;
    summary.byteSize = message.byteSize;
    summary.role = message.role;
    summary.name = message.name;
    summary.id = message.id;
    summary.createdAt = message.createdAt;
    summary.legacy = message.legacyShape;
    summary.error = !message.errorType.isEmpty() || !message.errorMessage.isEmpty();
    summary.parseError = message.parseError;
    if (message.usage) {
        summary.inputTokens = message.usage->inputTokens;
        summary.outputTokens = message.usage->outputTokens;
    }
    for (const TranscriptBlock &block : message.blocks)
        countBlock(block, summary);
    if (message.kind != Kind::Message) {
        summary.preview = oneLine(message.preview, PreviewChars);
        return summary;
    }
    // The first text that says something: a text block, else a hint, else what a tool call does.
    for (const Type wanted : {Type::Text, Type::Hint, Type::ToolCall, Type::Thinking}) {
        for (const TranscriptBlock &block : message.blocks) {
            if (block.type != wanted)
                continue;
            if (wanted == Type::ToolCall)
                summary.preview = oneLine(QString(block.toolName + u' ' + block.input), PreviewChars);
            else if (!block.text.isEmpty())
                summary.preview = oneLine(block.text, PreviewChars);
            else if (!block.children.empty())
                summary.preview = oneLine(block.children.front().text, PreviewChars);
            if (!summary.preview.isEmpty())
                return summary;
        }
    }
    return summary;
}

qint64 TranscriptModel::estimateBytes(const TranscriptMessage &message)
{
    qint64 bytes = 256 + 2 * (message.preview.size() + message.errorMessage.size());
    for (const TranscriptBlock &block : message.blocks)
        bytes += blockBytes(block);
    return bytes;
}

void TranscriptModel::clear()
{
    if (m_rows.isEmpty())
        return;
    beginRemoveRows({}, 0, int(m_rows.size()) - 1);
    m_rows.clear();
    m_cache.clear();
    endRemoveRows();
}

void TranscriptModel::append(QList<TranscriptMessage> messages, int lineBase, qint64 offsetBase)
{
    if (messages.isEmpty())
        return;
    const int first = int(m_rows.size());
    beginInsertRows({}, first, first + int(messages.size()) - 1);
    for (TranscriptMessage &message : messages) {
        message.firstLine += lineBase;
        message.lastLine += lineBase;
        message.offset += offsetBase;
        m_rows.append(summarize(message));
        // The first messages are kept whole until the cache is full; later ones are read again
        // when shown (so reading a big file evicts nothing and frees little on this thread).
        const qint64 cost = estimateBytes(message);
        if (m_cache.totalCost() + cost <= m_cache.maxCost())
            m_cache.insert(int(m_rows.size()) - 1, new TranscriptMessage(std::move(message)), cost);
    }
    endInsertRows();
}

void TranscriptModel::removeLast()
{
    if (m_rows.isEmpty())
        return;
    const int last = int(m_rows.size()) - 1;
    beginRemoveRows({}, last, last);
    m_rows.removeLast();
    m_cache.remove(last);
    endRemoveRows();
}

const TranscriptMessage *TranscriptModel::message(int row) const
{
    return m_cache.object(row);
}

void TranscriptModel::store(int row, TranscriptMessage message)
{
    if (row < 0 || row >= m_rows.size())
        return;
    const Summary &summary = m_rows.at(row);
    // Its place in the file, as first read (a re-read counts from its own start).
    message.firstLine = summary.firstLine;
    message.lastLine = summary.lastLine;
    message.offset = summary.offset;
    const qint64 cost = std::min<qint64>(estimateBytes(message), MaxCacheBytes);
    m_cache.insert(row, new TranscriptMessage(std::move(message)), cost);
}

void TranscriptModel::setRedact(bool redact)
{
    if (m_redact == redact)
        return;
    m_redact = redact;
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0), index(int(m_rows.size()) - 1), {PreviewRole, Qt::DisplayRole, Qt::ToolTipRole});
}

void TranscriptModel::retranslate()
{
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0), index(int(m_rows.size()) - 1));
}

QVariant TranscriptModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const Summary &summary = m_rows.at(index.row());
    const QLocale locale;
    switch (role) {
    case KindRole:
        return int(summary.kind);
    case RoleRole:
        return summary.role;
    case NameRole:
        return summary.name;
    case TimeRole:
        return Inspector::agentTimeText(summary.createdAt);
    case LinesRole:
        return summary.firstLine == summary.lastLine
            ? tr("line %1").arg(locale.toString(summary.firstLine))
            : tr("lines %1–%2").arg(locale.toString(summary.firstLine), locale.toString(summary.lastLine));
    case SizeRole:
        return summary.byteSize;
    case TokensRole:
        if (!summary.inputTokens && !summary.outputTokens)
            return QString();
        return tr("%1 in · %2 out")
            .arg(locale.toString(summary.inputTokens.value_or(0)), locale.toString(summary.outputTokens.value_or(0)));
    case BadgesRole: {
        QStringList badges;
        switch (summary.kind) {
        case Kind::NotJson:
            badges.append(tr("not JSON"));
            break;
        case Kind::Oversized:
            badges.append(tr("too long: %1").arg(Inspector::sizeText(summary.byteSize)));
            break;
        case Kind::Incomplete:
            badges.append(tr("incomplete"));
            break;
        case Kind::Message:
            break;
        }
        if (summary.thinking > 0)
            badges.append(tr("thinking"));
        if (summary.toolCalls > 0)
            badges.append(tr("%n tool call(s)", nullptr, summary.toolCalls));
        if (summary.data > 0)
            badges.append(tr("%n data file(s)", nullptr, summary.data));
        if (summary.truncated)
            badges.append(tr("truncated result"));
        if (summary.error)
            badges.append(tr("error"));
        if (summary.legacy)
            badges.append(tr("AgentScope 1.x"));
        return badges;
    }
    case PreviewRole:
    case Qt::DisplayRole: {
        if (summary.kind == Kind::NotJson)
            return tr("Line %1 is not JSON (%2)")
                .arg(locale.toString(summary.firstLine), Inspector::sizeText(summary.byteSize));
        return m_redact ? maskText(summary.preview) : summary.preview;
    }
    case Qt::ToolTipRole: {
        QString tip = data(index, LinesRole).toString();
        if (const QString tokens = data(index, TokensRole).toString(); !tokens.isEmpty())
            tip += QStringLiteral(" · ") + tokens;
        return tip;
    }
    case Qt::AccessibleTextRole:
        return QStringLiteral("%1 %2 %3: %4")
            .arg(summary.role, summary.name, Inspector::agentTimeText(summary.createdAt),
                 m_redact ? maskText(summary.preview) : summary.preview);
    default:
        return {};
    }
}
