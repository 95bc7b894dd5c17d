// RFC 3339 times (src/core/timestamp.h), both overloads: the bytes of a JSON document read in
// place, and the same text as a QString. Any result is UTC, and on ASCII the two agree.
#include "timestamp.h"

#include <QString>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char *>(data), size);
    const auto fromBytes = Paddock::parseTimestamp(bytes);
    const QString text = QString::fromUtf8(bytes.data(), qsizetype(size));
    const auto fromText = Paddock::parseTimestamp(QStringView(text));
    if (fromBytes && (!fromBytes->isValid() || fromBytes->timeSpec() != Qt::UTC))
        std::abort();
    if (fromText && (!fromText->isValid() || fromText->timeSpec() != Qt::UTC))
        std::abort();
    bool ascii = true;
    for (size_t i = 0; i < size; ++i)
        ascii = ascii && data[i] < 0x80;
    if (ascii && (fromBytes.has_value() != fromText.has_value() || (fromBytes && *fromBytes != *fromText)))
        std::abort();
    // Latin-1, every byte one character: the QString overload on what is not UTF-8.
    Paddock::parseTimestamp(QStringView(QString::fromLatin1(bytes.data(), qsizetype(size))));
    return 0;
}
