#include "httpwire.h"

#include <QJsonDocument>
#include <QUuid>

#include <chrono>

namespace PaddockFake {

namespace {

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

} // namespace

qint64 nowNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

qint64 nowUs()
{
    return nowNs() / 1000;
}

QString newUuid()
{
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}

QString newHexId()
{
    return QUuid::createUuid().toString(QUuid::Id128);
}

QString unquotePlus(QByteArrayView text)
{
    QByteArray bytes;
    bytes.reserve(text.size());
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char c = text.at(i);
        if (c == '+') {
            bytes.append(' ');
        } else if (c == '%' && i + 2 < text.size() && hexValue(text.at(i + 1)) >= 0 && hexValue(text.at(i + 2)) >= 0) {
            bytes.append(static_cast<char>(hexValue(text.at(i + 1)) * 16 + hexValue(text.at(i + 2))));
            i += 2;
        } else {
            bytes.append(c);
        }
    }
    return QString::fromUtf8(bytes);
}

std::optional<QueryItems> parseQsl(QByteArrayView text, bool keepBlank, bool strict, QByteArray *badPiece)
{
    QueryItems items;
    qsizetype start = 0;
    for (;;) {
        qsizetype end = text.indexOf('&', start);
        if (end < 0)
            end = text.size();
        const QByteArrayView piece = text.sliced(start, end - start);
        if (!piece.isEmpty() || strict) {
            const qsizetype eq = piece.indexOf('=');
            if (eq < 0) {
                if (strict) {
                    if (badPiece)
                        *badPiece = piece.toByteArray();
                    return std::nullopt;
                }
                if (keepBlank)
                    items.append({unquotePlus(piece), QString()});
            } else if (eq + 1 < piece.size() || keepBlank) {
                items.append({unquotePlus(piece.first(eq)), unquotePlus(piece.sliced(eq + 1))});
            }
        }
        if (end >= text.size())
            break;
        start = end + 1;
    }
    return items;
}

void appendJsonString(QByteArray &out, QStringView text)
{
    static const char hex[] = "0123456789abcdef";
    const QByteArray utf8 = text.toUtf8();
    out += '"';
    for (const char c : utf8) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (byte < 0x20) {
            switch (c) {
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\b':
                out += "\\b";
                break;
            case '\f':
                out += "\\f";
                break;
            default:
                out += "\\u00";
                out += hex[byte >> 4];
                out += hex[byte & 0xf];
            }
        } else {
            out += c;
        }
    }
    out += '"';
}

QByteArray compactJson(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QByteArray compactJson(const QJsonArray &array)
{
    return QJsonDocument(array).toJson(QJsonDocument::Compact);
}

} // namespace PaddockFake
