#include "transcriptrender.h"

#include "colorscheme.h"
#include "inspect/secretmask.h"
#include "inspectorsupport.h"

#include <QLocale>
#include <QUrl>

using namespace Paddock::Inspect;

namespace {

using Kind = TranscriptMessage::Kind;
using Type = TranscriptBlock::Type;

// Red and amber in rich text, for the window's palette (Tones): darker on light, lighter on dark.
QString toned(QString html)
{
    return html.replace(QLatin1String("#b91c1c"), Tones::css(Tones::error()))
        .replace(QLatin1String("#b45309"), Tones::css(Tones::warning()));
}

QString colorName(const QColor &color)
{
    return color.name(QColor::HexRgb);
}

QString roleColor(const QString &role)
{
    if (role == QLatin1String("user"))
        return QStringLiteral("#2563eb");
    if (role == QLatin1String("assistant"))
        return QStringLiteral("#059669");
    if (role == QLatin1String("system"))
        return QStringLiteral("#6b7280");
    return QStringLiteral("#7c3aed");
}

// A workspace path in a link: percent-encoded, so that any character of a file name survives.
QString linkPath(const QString &path)
{
    return QString::fromLatin1(QUrl::toPercentEncoding(path, "/"));
}

bool isImage(const QString &mediaType, const QString &path)
{
    if (mediaType.startsWith(QLatin1String("image/")))
        return true;
    const QString lower = path.toLower();
    for (const char *ext : {".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp"}) {
        if (lower.endsWith(QLatin1String(ext)))
            return true;
    }
    return false;
}

class Renderer
{
public:
    Renderer(const TranscriptRenderState &state, QStringList *images)
        : m_state(state)
        , m_images(images)
        , m_dim(colorName(state.palette.color(QPalette::PlaceholderText)))
        , m_box(colorName(state.palette.color(QPalette::AlternateBase)))
        , m_border(colorName(state.palette.color(QPalette::Mid)))
    {
    }

    QString m_html;

    void dim(const QString &text) { m_html += QStringLiteral("<span style=\"color:%1\">%2</span>").arg(m_dim, text); }

    // A text, its start only until "show more"; masked while redacting.
    void text(const QString &text, const QString &path, qsizetype clippedBytes, bool mono = false,
              const QString &color = {})
    {
        const qsizetype shown = m_state.shown.value(path, TranscriptRender::StartChars);
        QString part = text.size() > shown ? text.left(shown + 256) : text;
        if (m_state.redact)
            part = maskText(part);
        const bool cut = text.size() > shown;
        if (cut)
            part.truncate(shown);
        QString style = QStringLiteral("white-space:pre-wrap;");
        if (mono)
            style += QStringLiteral("font-family:'%1', monospace;").arg(m_state.monospaceFamily);
        if (!color.isEmpty())
            style += QStringLiteral("color:%1;").arg(color);
        m_html += QStringLiteral("<div style=\"%1\">%2</div>").arg(style, part.toHtmlEscaped());
        if (cut) {
            const QString more = TranscriptRender::tr("Show more (%1 more characters)")
                                     .arg(QLocale().toString(qint64(text.size() - shown)));
            m_html += QStringLiteral("<p><a href=\"inspect:more/%1\">%2</a></p>").arg(path, more.toHtmlEscaped());
        } else if (clippedBytes > 0) {
            const QString rest = TranscriptRender::tr("Read the rest (%1 more)").arg(Inspector::sizeText(clippedBytes));
            m_html += QStringLiteral("<p><a href=\"inspect:reread\">%1</a></p>").arg(rest.toHtmlEscaped());
        }
    }

    void toggleHead(const QString &path, const QString &label, const QString &after = {})
    {
        const bool open = m_state.expanded.contains(path);
        m_html += QStringLiteral("<p><a href=\"inspect:toggle/%1\">%2 %3</a>")
                      .arg(path, open ? QStringLiteral("▾") : QStringLiteral("▸"), label.toHtmlEscaped());
        if (!after.isEmpty()) {
            m_html += u' ';
            dim(after.toHtmlEscaped());
        }
        m_html += QStringLiteral("</p>");
    }

    void dataFiles(const QStringList &files, const QString &mediaType = {})
    {
        for (const QString &file : files) {
            const QString escaped = file.toHtmlEscaped();
            const QString link = linkPath(file);
            if (isImage(mediaType, file) && m_state.image) {
                QString why;
                const auto state = m_state.image(file, &why);
                if (state == TranscriptRenderState::Image::Loaded) {
                    // The view hands the document its thumbnails as "thumb:<n>", in this order.
                    const qsizetype index = m_images ? m_images->size() : 0;
                    m_html += QStringLiteral("<p><a href=\"inspect:data/%1\"><img src=\"thumb:%2\"></a></p>")
                                  .arg(link, QString::number(index));
                } else if (state == TranscriptRenderState::Image::Failed) {
                    m_html += QStringLiteral("<p>");
                    dim(TranscriptRender::tr("The image cannot be shown: %1").arg(why).toHtmlEscaped());
                    m_html += QStringLiteral("</p>");
                } else {
                    m_html += QStringLiteral("<p>");
                    dim(TranscriptRender::tr("Loading the image…").toHtmlEscaped());
                    m_html += QStringLiteral("</p>");
                }
                if (m_images)
                    m_images->append(file);
            }
            m_html += QStringLiteral("<p><a href=\"inspect:data/%1\">%2</a></p>").arg(link, escaped);
        }
    }

    void block(const TranscriptMessage &message, const TranscriptBlock &block, const QString &path, bool inResult)
    {
        switch (block.type) {
        case Type::Text:
            text(block.text, path, block.clippedBytes, inResult); // a tool's output: as a terminal shows it
            dataFiles(block.dataFiles);
            break;
        case Type::Thinking: {
            QString after;
            if (block.text.isEmpty() && !block.extraKeys.isEmpty())
                after = TranscriptRender::tr("redacted by the provider");
            else
                after = TranscriptRender::tr("%n character(s)", nullptr, int(block.text.size()));
            if (!block.extraKeys.isEmpty())
                after += QStringLiteral("; ")
                    + TranscriptRender::tr("provider fields not shown: %1")
                          .arg(block.extraKeys.join(QStringLiteral(", ")));
            toggleHead(path, TranscriptRender::tr("Thinking"), after);
            if (m_state.expanded.contains(path))
                text(block.text, path, block.clippedBytes, false, m_dim);
            break;
        }
        case Type::ToolCall: {
            m_html += QStringLiteral("<table width=\"100%\" cellspacing=\"0\" cellpadding=\"6\" border=\"1\" "
                                     "style=\"border-color:%1; border-style:solid; background-color:%2\"><tr><td>")
                          .arg(m_border, m_box);
            m_html += QStringLiteral("<p><b>%1</b> <code>%2</code> ")
                          .arg(TranscriptRender::tr("Tool call").toHtmlEscaped(), block.toolName.toHtmlEscaped());
            dim(QStringLiteral("· %1 · %2").arg(block.state.toHtmlEscaped(), block.id.toHtmlEscaped()));
            m_html += QStringLiteral("</p>");
            const QString input = block.inputPretty.isEmpty() ? block.input : block.inputPretty;
            if (!input.isEmpty())
                text(input, path + QStringLiteral(".in"), block.clippedBytes, true);
            if (block.pairedBlock >= 0 && size_t(block.pairedBlock) < message.blocks.size()) {
                m_html += QStringLiteral("<hr>");
                this->block(message, message.blocks.at(size_t(block.pairedBlock)), QString::number(block.pairedBlock),
                            true);
            } else {
                m_html += QStringLiteral("<p>");
                dim(TranscriptRender::tr("No result in this message.").toHtmlEscaped());
                m_html += QStringLiteral("</p>");
            }
            m_html += QStringLiteral("</td></tr></table>");
            break;
        }
        case Type::ToolResult: {
            if (!inResult && block.pairedBlock >= 0)
                break; // shown under its call
            const bool failed = block.state == QLatin1String("error") || block.state == QLatin1String("denied");
            m_html += QStringLiteral("<p><b>%1</b> ").arg(TranscriptRender::tr("Result").toHtmlEscaped());
            m_html += QStringLiteral("<span style=\"color:%1\">%2</span>")
                          .arg(failed ? Tones::css(Tones::error()) : m_dim, block.state.toHtmlEscaped());
            if (!inResult) {
                m_html += u' ';
                dim(TranscriptRender::tr("of %1 %2 (its call is not in this message)")
                        .arg(block.toolName, block.id)
                        .toHtmlEscaped());
            }
            m_html += QStringLiteral("</p>");
            if (!block.text.isEmpty())
                text(block.text, path + QStringLiteral(".out"), block.clippedBytes, true);
            for (size_t i = 0; i < block.children.size(); ++i)
                this->block(message, block.children.at(i), path + u'.' + QString::number(i), true);
            if (block.truncated) {
                m_html += QStringLiteral("<p>");
                if (!block.truncatedFile.isEmpty()) {
                    m_html += TranscriptRender::tr("AgentScope cut this result to fit the context; the rest is in %1.")
                                  .toHtmlEscaped()
                                  .arg(QStringLiteral("<a href=\"inspect:file/%1\">%2</a>")
                                           .arg(linkPath(block.truncatedFile), block.truncatedFile.toHtmlEscaped()));
                } else {
                    m_html += TranscriptRender::tr("AgentScope cut this result to fit the context; the file with the "
                                                   "rest is not named (%1).")
                                  .arg(block.truncatedPath)
                                  .toHtmlEscaped();
                }
                m_html += QStringLiteral("</p>");
            }
            if (!block.metadataJson.isEmpty() && block.metadataJson != QLatin1String("{}")) {
                toggleHead(path + QStringLiteral(".meta"), TranscriptRender::tr("Metadata"),
                           TranscriptRender::tr("%n character(s)", nullptr, int(block.metadataJson.size())));
                if (m_state.expanded.contains(path + QStringLiteral(".meta")))
                    text(block.metadataJson, path + QStringLiteral(".meta"), 0, true);
            }
            break;
        }
        case Type::Hint:
            m_html += QStringLiteral("<p><b>%1</b>").arg(TranscriptRender::tr("Hint").toHtmlEscaped());
            if (!block.source.isEmpty()) {
                m_html += u' ';
                dim(TranscriptRender::tr("from %1").arg(block.source).toHtmlEscaped());
            }
            m_html += QStringLiteral("</p>");
            if (!block.text.isEmpty())
                text(block.text, path, block.clippedBytes, false, m_dim);
            for (size_t i = 0; i < block.children.size(); ++i)
                this->block(message, block.children.at(i), path + u'.' + QString::number(i), inResult);
            dataFiles(block.dataFiles);
            break;
        case Type::Data: {
            QString what = block.name.isEmpty() ? TranscriptRender::tr("Data") : block.name;
            if (!block.mediaType.isEmpty())
                what += QStringLiteral(" (%1)").arg(block.mediaType);
            m_html += QStringLiteral("<p><b>%1</b></p>").arg(what.toHtmlEscaped());
            if (block.inlineBase64) {
                m_html += QStringLiteral("<p>");
                dim(TranscriptRender::tr("Inline data, %1 of base64: not offloaded to data/.")
                        .arg(Inspector::sizeText(block.base64Size))
                        .toHtmlEscaped());
                m_html += QStringLiteral("</p>");
            } else if (block.dataFiles.isEmpty() && !block.url.isEmpty()) {
                m_html += QStringLiteral("<p>");
                dim(TranscriptRender::tr("%1: not a file of this workspace's data/.")
                        .arg(m_state.redact ? maskUrl(block.url) : block.url)
                        .toHtmlEscaped());
                m_html += QStringLiteral("</p>");
            }
            dataFiles(block.dataFiles, block.mediaType);
            break;
        }
        case Type::Unknown: {
            const QString name = block.typeName.isEmpty() ? TranscriptRender::tr("(no type)") : block.typeName;
            toggleHead(path, TranscriptRender::tr("Block of an unknown type “%1”").arg(name),
                       TranscriptRender::tr("shown as JSON"));
            if (m_state.expanded.contains(path))
                text(block.rawJson, path, block.clippedBytes, true);
            break;
        }
        }
    }

private:
    const TranscriptRenderState &m_state;
    QStringList *m_images;
    QString m_dim;
    QString m_box;
    QString m_border;
};

} // namespace

QString TranscriptRender::message(const TranscriptMessage &message, const TranscriptRenderState &state,
                                  QStringList *wantedImages)
{
    Renderer out(state, wantedImages);
    const QLocale locale;
    const QString lines = message.firstLine == message.lastLine
        ? tr("line %1").arg(locale.toString(message.firstLine))
        : tr("lines %1–%2 (one message written in %3 parts)")
              .arg(locale.toString(message.firstLine), locale.toString(message.lastLine),
                   locale.toString(message.lineCount));
    switch (message.kind) {
    case Kind::NotJson:
        out.m_html += toned(QStringLiteral("<p><b style=\"color:#b91c1c\">%1</b></p>"))
                          .arg(tr("Line %1 is not JSON").arg(locale.toString(message.firstLine)).toHtmlEscaped());
        out.m_html += QStringLiteral("<p>%1</p>")
                          .arg(tr("%1; the parser says: %2. AgentScope never reads this file back, so nothing else "
                                  "depends on this line.")
                                   .arg(Inspector::sizeText(message.byteSize), message.parseError)
                                   .toHtmlEscaped());
        out.m_html +=
            QStringLiteral("<p><a href=\"inspect:raw\">%1</a></p>").arg(tr("Show the line as text").toHtmlEscaped());
        return out.m_html;
    case Kind::Oversized:
        out.m_html += toned(QStringLiteral("<p><b style=\"color:#b45309\">%1</b></p>"))
                          .arg(tr("Line %1 is %2: too long to read whole; its start is shown.")
                                   .arg(locale.toString(message.firstLine), Inspector::sizeText(message.byteSize))
                                   .toHtmlEscaped());
        out.m_html += QStringLiteral("<p><a href=\"inspect:raw\">%1</a></p>")
                          .arg(tr("Show the whole line as text, page by page").toHtmlEscaped());
        out.text(message.preview, QStringLiteral("preview"), 0, true);
        return out.m_html;
    case Kind::Incomplete:
        out.m_html += toned(QStringLiteral("<p><b style=\"color:#b45309\">%1</b></p>"))
                          .arg(tr("Line %1 has no end yet: it may be being written.")
                                   .arg(locale.toString(message.firstLine))
                                   .toHtmlEscaped());
        out.m_html +=
            QStringLiteral("<p><a href=\"inspect:again\">%1</a></p>").arg(tr("Read it again").toHtmlEscaped());
        out.text(message.preview, QStringLiteral("preview"), 0, true);
        return out.m_html;
    case Kind::Message:
        break;
    }
    // The head: role, name, time, where, usage.
    out.m_html +=
        QStringLiteral("<p><b style=\"color:%1\">%2</b>")
            .arg(roleColor(message.role), (message.role.isEmpty() ? tr("(no role)") : message.role).toHtmlEscaped());
    if (!message.name.isEmpty() && message.name != message.role)
        out.m_html += QStringLiteral(" · <b>%1</b>").arg(message.name.toHtmlEscaped());
    if (!message.createdAt.isEmpty())
        out.m_html += QStringLiteral(" · %1").arg(Inspector::agentTimeText(message.createdAt).toHtmlEscaped());
    out.m_html += QStringLiteral("<br>");
    QStringList facts{lines};
    if (!message.finishedAt.isEmpty() && message.finishedAt != message.createdAt)
        facts.append(tr("finished %1").arg(Inspector::agentTimeText(message.finishedAt)));
    if (!message.finishedReason.isEmpty())
        facts.append(tr("ended: %1").arg(message.finishedReason));
    if (message.usage) {
        QString usage =
            tr("%1 input and %2 output tokens")
                .arg(locale.toString(message.usage->inputTokens), locale.toString(message.usage->outputTokens));
        if (message.usage->cacheInputTokens)
            usage += u' '
                + tr("(%1 read from the cache, %2 written to it)")
                      .arg(locale.toString(*message.usage->cacheInputTokens),
                           locale.toString(message.usage->cacheCreationInputTokens.value_or(0)));
        facts.append(usage);
    }
    if (!message.id.isEmpty())
        facts.append(tr("id %1").arg(message.id));
    out.dim(facts.join(QStringLiteral(" · ")).toHtmlEscaped());
    out.m_html += QStringLiteral("</p>");
    if (!message.errorType.isEmpty() || !message.errorMessage.isEmpty()) {
        out.m_html += toned(QStringLiteral("<p style=\"color:#b91c1c\"><b>%1</b> %2</p>"))
                          .arg(tr("Error (%1):").arg(message.errorType).toHtmlEscaped(),
                               (state.redact ? maskText(message.errorMessage) : message.errorMessage).toHtmlEscaped());
    }
    if (message.hasStructuredOutput) {
        out.m_html += QStringLiteral("<p>");
        out.dim(tr("It carries structured output (not shown).").toHtmlEscaped());
        out.m_html += QStringLiteral("</p>");
    }
    if (message.legacyShape) {
        out.m_html += QStringLiteral("<p>");
        out.dim(tr("This line has the shape of AgentScope 1.x, which keeps no workspace: its content is shown as "
                   "written.")
                    .toHtmlEscaped());
        out.m_html += QStringLiteral("</p>");
    }
    for (size_t i = 0; i < message.blocks.size(); ++i)
        out.block(message, message.blocks.at(i), QString::number(i), false);
    if (message.blocks.empty()) {
        out.m_html += QStringLiteral("<p>");
        out.dim(tr("(no content)").toHtmlEscaped());
        out.m_html += QStringLiteral("</p>");
    }
    return out.m_html;
}

QString TranscriptRender::loading(const TranscriptModel::Summary &summary)
{
    return QStringLiteral("<p>%1</p>")
        .arg(tr("Reading line %1 again…").arg(QLocale().toString(summary.firstLine)).toHtmlEscaped());
}

QString TranscriptRender::banner()
{
    return tr("context.jsonl holds the messages AgentScope compressed out of the agent's context, not the whole "
              "conversation: the rest is in the agent service's own storage.");
}
