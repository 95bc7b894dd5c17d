#include "metadatacodec.h"

#include <QByteArray>

#include <algorithm>
#include <array>
#include <optional>

#include <blake2.h>

namespace Paddock::OpenSandbox {

namespace {

constexpr qsizetype MaxLabelValue = 63;
constexpr char Base32Alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
const QLatin1String Base32Prefix("b32-");
const QLatin1String HashPrefix("h-");

bool isAlnum(QChar c)
{
    const char16_t u = c.unicode();
    return (u >= u'a' && u <= u'z') || (u >= u'A' && u <= u'Z') || (u >= u'0' && u <= u'9');
}

QString base32(const QByteArray &bytes)
{
    QString out;
    out.reserve((bytes.size() * 8 + 4) / 5);
    quint32 buffer = 0;
    int bits = 0;
    for (const char byte : bytes) {
        buffer = (buffer << 8) | static_cast<quint8>(byte);
        bits += 8;
        while (bits >= 5) {
            bits -= 5;
            out.append(QLatin1Char(Base32Alphabet[(buffer >> bits) & 0x1f]));
        }
    }
    if (bits > 0)
        out.append(QLatin1Char(Base32Alphabet[(buffer << (5 - bits)) & 0x1f]));
    return out;
}

std::optional<QByteArray> unbase32(QStringView text)
{
    QByteArray out;
    quint32 buffer = 0;
    int bits = 0;
    for (const QChar c : text) {
        const char16_t u = c.unicode();
        int value = -1;
        if (u >= u'a' && u <= u'z')
            value = u - u'a';
        else if (u >= u'2' && u <= u'7')
            value = 26 + (u - u'2');
        if (value < 0)
            return std::nullopt;
        buffer = (buffer << 5) | static_cast<quint32>(value);
        bits += 5;
        if (bits >= 8) {
            bits -= 8;
            out.append(static_cast<char>((buffer >> bits) & 0xff));
        }
    }
    // Leftover bits must be the zero padding of the last group, or the text is not ours.
    if (bits >= 5 || (buffer & ((1u << bits) - 1)) != 0)
        return std::nullopt;
    return out;
}

QString blake2b160Hex(const QByteArray &bytes)
{
    std::array<uint8_t, 20> digest{};
    blake2b(digest.data(), bytes.constData(), nullptr, digest.size(), static_cast<size_t>(bytes.size()), 0);
    return QString::fromLatin1(
        QByteArray::fromRawData(reinterpret_cast<const char *>(digest.data()), digest.size()).toHex());
}

} // namespace

bool isLabelValue(const QString &value)
{
    if (value.isEmpty())
        return true;
    if (value.size() > MaxLabelValue || !isAlnum(value.front()) || !isAlnum(value.back()))
        return false;
    return std::all_of(value.cbegin(), value.cend(),
                       [](QChar c) { return isAlnum(c) || c == u'-' || c == u'_' || c == u'.'; });
}

QString encodeMetadataValue(const QString &value)
{
    if (isLabelValue(value) && !value.startsWith(Base32Prefix) && !value.startsWith(HashPrefix))
        return value;
    const QByteArray utf8 = value.toUtf8();
    const QString encoded = Base32Prefix + base32(utf8);
    if (encoded.size() <= MaxLabelValue)
        return encoded;
    return HashPrefix + blake2b160Hex(utf8);
}

DecodedValue decodeMetadataValue(const QString &stored)
{
    if (stored.startsWith(Base32Prefix)) {
        if (const auto bytes = unbase32(QStringView(stored).mid(Base32Prefix.size()))) {
            const QString text = QString::fromUtf8(*bytes);
            // Only a value that encodes back to the same form is really ours.
            if (encodeMetadataValue(text) == stored)
                return {text, false};
        }
        return {stored, false};
    }
    if (stored.startsWith(HashPrefix) && stored.size() == HashPrefix.size() + 40)
        return {stored, true};
    return {stored, false};
}

} // namespace Paddock::OpenSandbox
