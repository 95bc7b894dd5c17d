// The LineSplitter (src/core/linesplitter.h) over one output stream, fed in pieces of the sizes
// the first byte chooses. Bit 0x80 of it repeats the rest until past LineSplitter::MaxLine, so
// the cutting of long lines between UTF-8 characters is reached. Every piece reaches onData, the
// stream is kept, no line is longer than MaxLine, and no byte but a newline or a line's last \r
// is lost.
#include "linesplitter.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace Paddock;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    const uint8_t control = data[0];
    QByteArray stream(reinterpret_cast<const char *>(data + 1), qsizetype(size - 1));
    if (control & 0x80) {
        stream = stream.repeated((LineSplitter::MaxLine + 8) / stream.size() + 1);
    }
    qsizetype lineBytes = 0;
    qsizetype lines = 0;
    const std::function<void(OutputChannel, const QByteArray &)> onLine = [&](OutputChannel channel,
                                                                              const QByteArray &line) {
        if (channel != OutputChannel::Stderr || line.size() > LineSplitter::MaxLine)
            std::abort();
        lineBytes += line.size();
        ++lines;
    };
    QByteArray seen;
    QByteArray kept;
    {
        LineSplitter splitter(OutputChannel::Stderr, onLine, kept,
                              [&](OutputChannel, const QByteArray &piece) { seen += piece; });
        quint32 seed = control * 2654435761u + 7;
        qsizetype at = 0;
        while (at < stream.size()) {
            seed = seed * 1103515245u + 12345u;
            const qsizetype n = std::min(stream.size() - at, qsizetype((seed >> 16) % 4099));
            splitter.feed(stream.mid(at, n));
            at += n;
        }
        splitter.finish();
    }
    const qsizetype newlines = stream.count('\n');
    if (seen != stream || kept != stream.right(LineSplitter::MaxKeptOutput))
        std::abort();
    if (lineBytes > stream.size() - newlines || lineBytes < stream.size() - newlines - lines)
        std::abort();
    return 0;
}
