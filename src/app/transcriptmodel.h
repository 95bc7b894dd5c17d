#pragma once

#include "inspect/transcript.h"

#include <QAbstractListModel>
#include <QCache>
#include <QList>
#include <QString>

// The messages of one context.jsonl, a row each, kept light: a row holds where its lines are in
// the file (offset, size, line numbers) and a small summary (role, name, time, the start of its
// text, what it holds); whole messages are kept in a bounded cache (MaxCacheBytes) and read again
// from their byte range when one that was dropped is shown. A 50 MB file costs its summaries.
// Rows are only appended (as the file is read) or the last one replaced (an incomplete last line
// read again), never reset while shown.
class TranscriptModel final : public QAbstractListModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TranscriptModel)

public:
    static constexpr qint64 MaxCacheBytes = 24 * 1024 * 1024;
    static constexpr int PreviewChars = 240;

    struct Summary
    {
        Paddock::Inspect::TranscriptMessage::Kind kind = Paddock::Inspect::TranscriptMessage::Kind::Message;
        int firstLine = 0;
        int lastLine = 0;
        int lineCount = 0;
        qint64 offset = 0;
        qint64 byteSize = 0;
        QString role;
        QString name;
        QString id;
        QString createdAt;
        QString preview; // one line, at most PreviewChars
        int toolCalls = 0;
        int thinking = 0;
        int data = 0; // data blocks and data files named in text
        bool truncated = false; // a tool result was cut and offloaded
        bool error = false; // the message carries an error, or a tool result failed
        bool clipped = false; // some text was longer than the reader keeps
        bool legacy = false;
        std::optional<qint64> inputTokens;
        std::optional<qint64> outputTokens;
        QString parseError; // NotJson
        // The bytes of the file its lines span, newlines included (what a re-read asks for).
        qint64 spanBytes() const { return byteSize + lineCount; }
    };

    enum Role {
        KindRole = Qt::UserRole + 1,
        RoleRole, // the message's role ("user", "assistant", ...)
        NameRole,
        TimeRole, // as shown
        PreviewRole, // the start of its text, masked while redacting
        BadgesRole, // QStringList: "thinking", "3 tool calls", ...
        TokensRole, // "18,342 in · 611 out", empty without usage
        LinesRole, // "line 4" / "lines 4–5"
        SizeRole, // bytes of its lines
    };

    explicit TranscriptModel(QObject *parent = nullptr);
    ~TranscriptModel() override;

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

    void clear();
    // Messages as read from the file: `lineBase` and `offsetBase` are added to their line numbers
    // and offsets (a read that began further in).
    void append(QList<Paddock::Inspect::TranscriptMessage> messages, int lineBase = 0, qint64 offsetBase = 0);
    // Drops the last row (an incomplete last line about to be read again).
    void removeLast();
    const Summary &summary(int row) const { return m_rows.at(row); }
    // The whole message if it is in the cache; nullptr when it must be read again.
    const Paddock::Inspect::TranscriptMessage *message(int row) const;
    // A message read again (its byte range), for its row: cached again.
    void store(int row, Paddock::Inspect::TranscriptMessage message);
    qint64 cachedBytes() const { return m_cache.totalCost(); }
    // Forgets every whole message (each is read again when shown).
    void dropCache() { m_cache.clear(); }

    // Previews with likely secrets masked.
    void setRedact(bool redact);
    bool redact() const { return m_redact; }
    // Texts again in the language of the moment.
    void retranslate();

    static Summary summarize(const Paddock::Inspect::TranscriptMessage &message);
    static qint64 estimateBytes(const Paddock::Inspect::TranscriptMessage &message);

private:
    QList<Summary> m_rows;
    mutable QCache<int, Paddock::Inspect::TranscriptMessage> m_cache;
    bool m_redact = true;
};
