#pragma once

#include "inspect/transcript.h"
#include "transcriptmodel.h"

#include <QCoreApplication>
#include <QHash>
#include <QPalette>
#include <QSet>
#include <QString>
#include <QStringList>

#include <functional>

// How one transcript message reads in the inspector, as HTML for a QTextBrowser: its role, name,
// times and usage; text; thinking collapsed; each tool call with its result under it (the input
// pretty-printed); a result AgentScope cut linked to the file that holds the rest; data files as
// thumbnails; unknown blocks as collapsible JSON; lines that are not JSON, too long or incomplete
// as notes with their start. Long texts show their start with "show more". Links use the
// "inspect:" scheme: toggle/<block>, more/<block>, file/<path>, data/<path>, raw, reread.
struct TranscriptRenderState
{
    enum class Image { None, Pending, Loaded, Failed };
    QSet<QString> expanded; // blocks opened (thinking, metadata, unknown JSON)
    QHash<QString, qsizetype> shown; // characters shown of a block's text, when more than the start
    bool redact = true;
    QPalette palette;
    QString monospaceFamily = QStringLiteral("monospace"); // the system's fixed font
    // Where a data file's thumbnail is (Loaded: the document has it as "thumb:<path>").
    std::function<Image(const QString &dataFile, QString *why)> image;
};

class TranscriptRender
{
    Q_DECLARE_TR_FUNCTIONS(TranscriptView)

public:
    static constexpr qsizetype StartChars = 6000; // characters of a text shown at first
    static constexpr qsizetype MaxShownChars = 1024 * 1024; // "show more" stops here

    // `wantedImages` gets the image files the message shows, in order: a loaded one is the
    // document resource "thumb:<its index>".
    static QString message(const Paddock::Inspect::TranscriptMessage &message, const TranscriptRenderState &state,
                           QStringList *wantedImages = nullptr);
    // A row whose message is being read again.
    static QString loading(const TranscriptModel::Summary &summary);
    // The note above every transcript: what context.jsonl is.
    static QString banner();
};
