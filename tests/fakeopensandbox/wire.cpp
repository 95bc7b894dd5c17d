#include "wire.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace PaddockFake {

namespace {

qint64 floorDiv(qint64 a, qint64 b)
{
    qint64 q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        --q;
    return q;
}

QString formatSeconds(qint64 seconds)
{
    return QDateTime::fromSecsSinceEpoch(seconds, Qt::UTC).toString(u"yyyy-MM-dd'T'HH:mm:ss"_s);
}

bool isAsciiAlnum(QChar c)
{
    const char16_t u = c.unicode();
    return (u >= u'a' && u <= u'z') || (u >= u'A' && u <= u'Z') || (u >= u'0' && u <= u'9');
}

// [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?
bool matchesLabelName(QStringView text)
{
    if (text.isEmpty() || !isAsciiAlnum(text.front()) || !isAsciiAlnum(text.back()))
        return false;
    for (const QChar c : text) {
        if (!isAsciiAlnum(c) && c != u'-' && c != u'_' && c != u'.')
            return false;
    }
    return true;
}

// [a-z0-9]([-a-z0-9]*[a-z0-9])?
bool matchesDnsLabel(QStringView text)
{
    const auto lowerAlnum = [](QChar c) {
        const char16_t u = c.unicode();
        return (u >= u'a' && u <= u'z') || (u >= u'0' && u <= u'9');
    };
    if (text.isEmpty() || !lowerAlnum(text.front()) || !lowerAlnum(text.back()))
        return false;
    for (const QChar c : text) {
        if (!lowerAlnum(c) && c != u'-')
            return false;
    }
    return true;
}

// Splits `a; b="c; d"; e=f` at semicolons outside quotes; returns the parameters (lower-case
// names, unquoted values) after the first token.
QList<QPair<QByteArray, QByteArray>> headerParameters(const QByteArray &value, QByteArray *first)
{
    QList<QByteArray> pieces;
    QByteArray current;
    bool quoted = false;
    for (qsizetype i = 0; i < value.size(); ++i) {
        const char c = value.at(i);
        if (quoted && c == '\\' && i + 1 < value.size()) {
            current.append(c);
            current.append(value.at(++i));
            continue;
        }
        if (c == '"')
            quoted = !quoted;
        if (c == ';' && !quoted) {
            pieces.append(current);
            current.clear();
            continue;
        }
        current.append(c);
    }
    pieces.append(current);
    if (first)
        *first = pieces.value(0).trimmed().toLower();
    QList<QPair<QByteArray, QByteArray>> params;
    for (qsizetype i = 1; i < pieces.size(); ++i) {
        const QByteArray piece = pieces.at(i).trimmed();
        const qsizetype eq = piece.indexOf('=');
        if (eq <= 0)
            continue;
        QByteArray name = piece.left(eq).trimmed().toLower();
        QByteArray val = piece.mid(eq + 1).trimmed();
        if (val.size() >= 2 && val.startsWith('"') && val.endsWith('"')) {
            const QByteArray inner = val.mid(1, val.size() - 2);
            val.clear();
            for (qsizetype k = 0; k < inner.size(); ++k) {
                if (inner.at(k) == '\\' && k + 1 < inner.size())
                    ++k;
                val.append(inner.at(k));
            }
        }
        params.append({name, val});
    }
    return params;
}

} // namespace

QString formatPydanticTime(qint64 epochUs)
{
    const qint64 seconds = floorDiv(epochUs, 1'000'000);
    const qint64 micros = epochUs - seconds * 1'000'000;
    QString text = formatSeconds(seconds);
    if (micros != 0)
        text += u'.' + QString::number(micros).rightJustified(6, u'0');
    return text + u'Z';
}

QString formatGoTime(qint64 epochNs)
{
    const qint64 seconds = floorDiv(epochNs, 1'000'000'000);
    const qint64 nanos = epochNs - seconds * 1'000'000'000;
    QString text = formatSeconds(seconds);
    if (nanos != 0) {
        QString fraction = QString::number(nanos).rightJustified(9, u'0');
        while (fraction.endsWith(u'0'))
            fraction.chop(1);
        text += u'.' + fraction;
    }
    return text + u'Z';
}

std::optional<qint64> parseDateTimeUs(const QString &text)
{
    static const QRegularExpression pattern(
        uR"(^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?$)"_s);
    const QRegularExpressionMatch m = pattern.match(text);
    if (!m.hasMatch())
        return std::nullopt;
    const QDate date(m.captured(1).toInt(), m.captured(2).toInt(), m.captured(3).toInt());
    const int hour = m.captured(4).toInt();
    const int minute = m.captured(5).toInt();
    const int second = m.captured(6).isEmpty() ? 0 : m.captured(6).toInt();
    if (!date.isValid() || hour > 23 || minute > 59 || second > 59)
        return std::nullopt;
    qint64 micros = 0;
    if (!m.captured(7).isEmpty())
        micros = m.captured(7).leftJustified(9, u'0').left(6).toLongLong();
    qint64 offsetSeconds = 0;
    if (!m.captured(9).isEmpty()) {
        const int oh = m.captured(10).toInt();
        const int om = m.captured(11).toInt();
        if (oh > 23 || om > 59)
            return std::nullopt;
        offsetSeconds = (oh * 3600 + om * 60) * (m.captured(9) == u"-"_s ? -1 : 1);
    }
    const qint64 local = QDateTime(date, QTime(hour, minute, second), Qt::UTC).toSecsSinceEpoch();
    return (local - offsetSeconds) * 1'000'000 + micros;
}

qint64 maxPythonDatetimeUs()
{
    return QDateTime(QDate(9999, 12, 31), QTime(23, 59, 59), Qt::UTC).toSecsSinceEpoch() * 1'000'000 + 999'999;
}

bool isValidLabelKey(const QString &key)
{
    QStringView name = key;
    const qsizetype slash = key.indexOf(u'/');
    if (slash >= 0) {
        const QStringView prefix = QStringView(key).first(slash);
        name = QStringView(key).sliced(slash + 1);
        if (prefix.isEmpty() || name.isEmpty() || prefix.size() > 253)
            return false;
        for (const QStringView label : prefix.split(u'.')) {
            if (!matchesDnsLabel(label))
                return false;
        }
    }
    return name.size() <= 63 && matchesLabelName(name);
}

bool isValidLabelValue(const QString &value)
{
    return value.isEmpty() || (value.size() <= 63 && matchesLabelName(value));
}

QJsonObject validationError(const QString &type, const QJsonArray &loc, const QString &msg, const QJsonValue &input,
                            const QJsonObject &ctx)
{
    QJsonObject error{{u"type"_s, type}, {u"loc"_s, loc}, {u"msg"_s, msg}, {u"input"_s, input}};
    if (!ctx.isEmpty())
        error.insert(u"ctx"_s, ctx);
    return error;
}

std::optional<QList<MultipartPart>> parseMultipart(const QByteArray &contentType, const QByteArray &body)
{
    QByteArray mediaType;
    QByteArray boundary;
    for (const auto &[name, value] : headerParameters(contentType, &mediaType)) {
        if (name == "boundary")
            boundary = value;
    }
    if (!mediaType.startsWith("multipart/") || boundary.isEmpty())
        return std::nullopt;
    const QByteArray delimiter = "--" + boundary;
    qsizetype pos = body.indexOf(delimiter);
    if (pos < 0)
        return std::nullopt;
    QList<MultipartPart> parts;
    for (;;) {
        pos += delimiter.size();
        if (body.mid(pos, 2) == "--")
            return parts;
        // Transport padding, then the line break after the delimiter.
        while (pos < body.size() && (body.at(pos) == ' ' || body.at(pos) == '\t'))
            ++pos;
        if (body.mid(pos, 2) == "\r\n")
            pos += 2;
        else if (body.mid(pos, 1) == "\n")
            pos += 1;
        else
            return std::nullopt;
        qsizetype headerEnd = pos;
        qsizetype bodyStart = pos + 2;
        if (body.mid(pos, 2) != "\r\n") { // a part with headers
            headerEnd = body.indexOf("\r\n\r\n", pos);
            if (headerEnd < 0)
                return std::nullopt;
            bodyStart = headerEnd + 4;
        }
        MultipartPart part;
        for (const QByteArray &line : body.mid(pos, headerEnd - pos).split('\n')) {
            const qsizetype colon = line.indexOf(':');
            if (colon <= 0)
                continue;
            const QByteArray name = line.left(colon).trimmed().toLower();
            const QByteArray value = line.mid(colon + 1).trimmed();
            if (name == "content-disposition") {
                for (const auto &[param, paramValue] : headerParameters(value, nullptr)) {
                    if (param == "name")
                        part.name = paramValue;
                    else if (param == "filename")
                        part.filename = paramValue;
                }
            } else if (name == "content-type") {
                part.contentType = value;
            }
        }
        const qsizetype next = body.indexOf(QByteArray("\r\n" + delimiter), bodyStart);
        if (next < 0)
            return std::nullopt;
        part.body = body.mid(bodyStart, next - bodyStart);
        parts.append(part);
        pos = next + 2;
    }
}

} // namespace PaddockFake
