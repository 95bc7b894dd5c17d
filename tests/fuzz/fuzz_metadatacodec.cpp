// OpenSandbox's metadata codec (src/core/backends/opensandbox/metadatacodec.h). The bytes as a
// stored label value, decoded; and as a value, encoded: the stored form is a label value, and
// decodes back to the value unless it was hashed.
#include "backends/opensandbox/metadatacodec.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace Paddock::OpenSandbox;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QString text = QString::fromUtf8(reinterpret_cast<const char *>(data), qsizetype(size));
    const DecodedValue decoded = decodeMetadataValue(text);
    if (decoded.hashed && decoded.text != text)
        std::abort();
    const QString stored = encodeMetadataValue(text);
    if (!isLabelValue(stored))
        std::abort();
    const DecodedValue back = decodeMetadataValue(stored);
    if (back.hashed != stored.startsWith(QLatin1String("h-")))
        std::abort();
    if (!back.hashed && back.text != text)
        std::abort();
    return 0;
}
