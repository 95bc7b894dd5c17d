// Docker's multiplexed stream (Docker::StreamDemuxer, src/core/backends/docker/dockerclient.h):
// frames of [stream, 0, 0, 0, size (big-endian)] then `size` bytes, fed in pieces of the sizes the
// first byte chooses, as the exec stream arrives. What comes out is what a plain walk over the
// headers finds (stream 2 is stderr, anything else stdout; empty frames give nothing), in order,
// however the stream was cut; a frame cut off by the end is kept as a partial one. And a log's
// body (Docker::logText) is the frames' bytes joined when the content type says frames, the body
// itself when neither the type nor its first header does.
#include "backends/docker/dockerclient.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace Paddock;
using namespace Paddock::Docker;

namespace {

struct Frame
{
    OutputChannel channel;
    QByteArray bytes;
    bool operator==(const Frame &) const = default;
};

// The frames a stream holds, walked header by header; `rest`: the bytes of a frame cut off.
QList<Frame> walk(QByteArrayView stream, qsizetype &rest)
{
    QList<Frame> frames;
    qsizetype at = 0;
    while (stream.size() - at >= 8) {
        const auto *h = reinterpret_cast<const uchar *>(stream.data() + at);
        const qint64 size = (qint64(h[4]) << 24) | (qint64(h[5]) << 16) | (qint64(h[6]) << 8) | qint64(h[7]);
        if (stream.size() - at - 8 < size)
            break;
        if (size > 0)
            frames.append({h[0] == 2 ? OutputChannel::Stderr : OutputChannel::Stdout,
                           stream.sliced(at + 8, qsizetype(size)).toByteArray()});
        at += 8 + qsizetype(size);
    }
    rest = stream.size() - at;
    return frames;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    quint32 seed = data[0] * 2654435761u + 1;
    const uint8_t type = data[1];
    const QByteArrayView stream(reinterpret_cast<const char *>(data + 2), qsizetype(size - 2));

    QList<Frame> got;
    StreamDemuxer demuxer([&got](OutputChannel channel, QByteArrayView bytes) {
        if (bytes.isEmpty())
            std::abort();
        got.append({channel, bytes.toByteArray()});
    });
    qsizetype at = 0;
    while (at < stream.size()) {
        seed = seed * 1103515245u + 12345u;
        const qsizetype piece = (seed >> 16) % 8 == 0 ? stream.size() - at : qsizetype((seed >> 16) % 13);
        const qsizetype n = std::min(piece, stream.size() - at);
        demuxer.feed(stream.sliced(at, n));
        at += n;
    }
    qsizetype rest = 0;
    const QList<Frame> expected = walk(stream, rest);
    if (got != expected || demuxer.hasPartialFrame() != (rest > 0))
        std::abort();

    const QByteArray body = stream.toByteArray();
    QByteArray joined;
    for (const Frame &frame : expected)
        joined += frame.bytes;
    const QByteArray contentType = (type & 1) ? QByteArrayLiteral("application/vnd.docker.multiplexed-stream")
        : (type & 2)                          ? QByteArrayLiteral("application/vnd.docker.raw-stream")
                                              : QByteArrayLiteral("text/plain");
    const QByteArray text = logText(contentType, body);
    const bool headerFirst = body.size() >= 8 && (body.at(0) == 1 || body.at(0) == 2) && body.at(1) == 0
        && body.at(2) == 0 && body.at(3) == 0;
    if ((type & 3) || headerFirst) {
        if (text != joined)
            std::abort();
    } else if (text != body) {
        std::abort();
    }
    return 0;
}
