// OpenSandbox execd's event stream (OpenSandbox::ExecdStreamParser, src/core/backends/opensandbox/
// execdstream.h), fed in pieces of the sizes the first byte chooses, as reads cut a stream
// anywhere. The events do not depend on where the stream was cut: they are those of the whole
// stream fed at once; every event is of a known type or kept raw (Unknown, Malformed with its
// text); the exit code read from them is -1 or what an error or execution_complete says.
#include "backends/opensandbox/execdstream.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace Paddock::OpenSandbox;

namespace {

bool same(const ExecdEvent &a, const ExecdEvent &b)
{
    return a.type == b.type && a.rawType == b.rawType && a.text == b.text && a.timestamp == b.timestamp
        && a.executionTimeMs == b.executionTimeMs && a.errorName == b.errorName && a.errorValue == b.errorValue;
}

QList<ExecdEvent> whole(const QByteArray &stream)
{
    ExecdStreamParser parser;
    QList<ExecdEvent> events = parser.feed(stream);
    events += parser.finish();
    return events;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    quint32 seed = data[0] * 2654435761u + 1;
    const QByteArray stream(reinterpret_cast<const char *>(data + 1), qsizetype(size - 1));
    ExecdStreamParser parser;
    QList<ExecdEvent> events;
    qsizetype at = 0;
    while (at < stream.size()) {
        seed = seed * 1103515245u + 12345u;
        const qsizetype piece = (seed >> 16) % 8 == 0 ? stream.size() - at : qsizetype((seed >> 16) % 9);
        const qsizetype n = std::min(piece, stream.size() - at);
        events += parser.feed(stream.mid(at, n));
        at += n;
    }
    events += parser.finish();
    // Nothing is kept after finish(): the parser starts over.
    if (!parser.finish().isEmpty())
        std::abort();

    const QList<ExecdEvent> once = whole(stream);
    if (once.size() != events.size())
        std::abort();
    for (qsizetype i = 0; i < events.size(); ++i) {
        if (!same(events.at(i), once.at(i)))
            std::abort();
    }
    for (const ExecdEvent &event : std::as_const(events)) {
        switch (event.type) {
        case ExecdEvent::Type::Malformed:
            if (event.text.isEmpty())
                std::abort();
            break;
        case ExecdEvent::Type::Unknown:
            break;
        default:
            if (event.rawType.isEmpty())
                std::abort();
        }
    }
    const int code = execdExitCode(events);
    const bool hasEnd = std::any_of(events.cbegin(), events.cend(), [](const ExecdEvent &e) {
        return e.type == ExecdEvent::Type::Error || e.type == ExecdEvent::Type::ExecutionComplete;
    });
    if (!hasEnd && code != -1)
        std::abort();
    return 0;
}
