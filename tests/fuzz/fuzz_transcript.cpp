// A session's context.jsonl (Inspect::TranscriptReader, src/core/inspect/transcript.h), fed whole
// and in pieces of sizes drawn from the input's first byte (which stays part of the file), with
// the default limits and with tiny ones (so lines are oversized and strings clipped). The
// messages do not depend on where the file was cut; they follow each other in the file (lines
// and offsets ascending, within the bytes read; a message merges at most the lines it spans,
// blank ones being skipped); only the last one may be Incomplete; every byte is counted.
#include "inspect/transcript.h"

#include <QJsonDocument>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace Paddock::Inspect;

namespace {

QList<QByteArray> read(QByteArrayView file, const TranscriptReader::Options &options, quint32 seed)
{
    TranscriptReader reader(options);
    QList<TranscriptMessage> messages;
    qsizetype at = 0;
    while (at < file.size()) {
        qsizetype n = file.size() - at;
        if (seed != 0) {
            seed = seed * 1103515245u + 12345u;
            n = std::min(n, (seed >> 16) % 8 == 0 ? n : qsizetype((seed >> 16) % 37) + 1);
        }
        reader.feed(file.sliced(at, n));
        at += n;
        messages += reader.takeMessages();
    }
    reader.finish();
    messages += reader.takeMessages();
    if (reader.bytesRead() != file.size())
        std::abort();
    QList<QByteArray> json;
    qint64 offset = -1;
    int line = 0;
    for (qsizetype i = 0; i < messages.size(); ++i) {
        const TranscriptMessage &m = messages.at(i);
        if (m.offset <= offset || m.firstLine <= line || m.lastLine < m.firstLine || m.lineCount < 1
            || m.lastLine - m.firstLine + 1 < m.lineCount || m.offset + m.byteSize > file.size()
            || m.lastLine > reader.linesRead())
            std::abort();
        if (m.kind == TranscriptMessage::Kind::Incomplete && i != messages.size() - 1)
            std::abort();
        offset = m.offset;
        line = m.lastLine;
        json.append(QJsonDocument(m.toJson()).toJson(QJsonDocument::Compact));
    }
    return json;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArrayView file(reinterpret_cast<const char *>(data), qsizetype(size));
    const quint32 seed = (size > 0 ? data[0] : 0) * 2654435761u + 1;
    TranscriptReader::Options tiny;
    tiny.maxLineBytes = 300;
    tiny.previewBytes = 40;
    tiny.maxTextBytes = 24;
    tiny.sessionId = QStringLiteral("6f1c2a9e4b7d4e0f9a3c5b8d2e1f0a47");
    tiny.recordedWorkdir = QStringLiteral("/workspace");
    for (const TranscriptReader::Options &options : {TranscriptReader::Options(), tiny}) {
        if (read(file, options, 0) != read(file, options, seed))
            std::abort();
    }
    return 0;
}
