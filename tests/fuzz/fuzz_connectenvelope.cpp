// E2B's Connect envelopes (src/core/backends/e2b/connectenvelope.h), fed in pieces of the sizes
// the first byte chooses, as reads cut a stream anywhere. As long as the parser has not failed,
// the envelopes it gave, written out again, are the bytes it consumed.
#include "backends/e2b/connectenvelope.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace Paddock::E2B;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    quint32 seed = data[0] * 2654435761u + 1;
    const QByteArrayView stream(reinterpret_cast<const char *>(data + 1), qsizetype(size - 1));
    EnvelopeParser parser;
    QList<Envelope> out;
    qsizetype at = 0;
    bool ok = true;
    while (at < stream.size()) {
        seed = seed * 1103515245u + 12345u;
        // Mostly small pieces (a header split over reads), sometimes everything left.
        const qsizetype piece = (seed >> 16) % 8 == 0 ? stream.size() - at : qsizetype((seed >> 16) % 9);
        const qsizetype n = std::min(piece, stream.size() - at);
        ok = parser.feed(stream.sliced(at, n), out);
        at += n;
        if (!ok)
            break;
    }
    if (ok != !parser.failed())
        std::abort();
    if (!ok) {
        if (parser.pending() != 0 || parser.feed(QByteArrayView(), out))
            std::abort();
        return 0;
    }
    QByteArray again;
    for (const Envelope &e : std::as_const(out)) {
        if (e.flags & Envelope::Compressed)
            std::abort();
        again += envelope(e.payload, e.flags);
    }
    if (again.size() + parser.pending() != stream.size() || QByteArrayView(again) != stream.first(again.size()))
        std::abort();
    if (parser.ended() && (out.isEmpty() || !out.constLast().isEnd() || parser.pending() != 0))
        std::abort();
    return 0;
}
