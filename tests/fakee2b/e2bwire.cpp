#include "e2bwire.h"

#include <QDateTime>
#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace PaddockFake::E2b {

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

// A Content-Disposition parameter's value: a token or a quoted-string.
std::optional<QByteArray> dispositionParameter(const QByteArray &header, QByteArrayView name)
{
    qsizetype i = header.indexOf(';');
    while (i >= 0 && i < header.size()) {
        ++i;
        while (i < header.size() && (header.at(i) == ' ' || header.at(i) == '\t'))
            ++i;
        const qsizetype eq = header.indexOf('=', i);
        if (eq < 0)
            return std::nullopt;
        const QByteArray key = header.mid(i, eq - i).trimmed().toLower();
        i = eq + 1;
        QByteArray value;
        if (i < header.size() && header.at(i) == '"') {
            ++i;
            while (i < header.size() && header.at(i) != '"') {
                if (header.at(i) == '\\' && i + 1 < header.size())
                    ++i;
                value += header.at(i);
                ++i;
            }
            ++i; // the closing quote
            i = header.indexOf(';', i);
        } else {
            const qsizetype end = header.indexOf(';', i);
            value = header.mid(i, end < 0 ? -1 : end - i).trimmed();
            i = end;
        }
        if (key == name)
            return value;
        if (i < 0)
            break;
    }
    return std::nullopt;
}

} // namespace

QString formatTime(qint64 epochNs)
{
    qint64 seconds = epochNs / 1'000'000'000;
    qint64 nanos = epochNs % 1'000'000'000;
    if (nanos < 0) {
        nanos += 1'000'000'000;
        --seconds;
    }
    QString text = QDateTime::fromSecsSinceEpoch(seconds, Qt::UTC).toString(u"yyyy-MM-ddTHH:mm:ss"_s);
    if (nanos != 0) {
        QString fraction = u"%1"_s.arg(nanos, 9, 10, QLatin1Char('0'));
        while (fraction.endsWith(u'0'))
            fraction.chop(1);
        text += u'.' + fraction;
    }
    return text + u'Z';
}

std::optional<qint64> parseTime(const QString &text)
{
    // yyyy-MM-ddTHH:mm:ss[.f{1,9}](Z|±hh:mm)
    if (text.size() < 20 || (text.at(10) != u'T' && text.at(10) != u't'))
        return std::nullopt;
    const QDateTime base = QDateTime::fromString(text.left(19) + u'Z', Qt::ISODate);
    if (!base.isValid())
        return std::nullopt;
    qsizetype i = 19;
    qint64 nanos = 0;
    if (i < text.size() && text.at(i) == u'.') {
        ++i;
        int digits = 0;
        while (i < text.size() && text.at(i).isDigit()) {
            if (digits < 9) {
                nanos = nanos * 10 + text.at(i).digitValue();
                ++digits;
            }
            ++i;
        }
        if (digits == 0)
            return std::nullopt;
        for (; digits < 9; ++digits)
            nanos *= 10;
    }
    qint64 offsetSeconds = 0;
    const QString zone = text.mid(i);
    if (zone == u"Z"_s || zone == u"z"_s) {
        offsetSeconds = 0;
    } else if (zone.size() == 6 && (zone.at(0) == u'+' || zone.at(0) == u'-') && zone.at(3) == u':') {
        bool hoursOk = false;
        bool minutesOk = false;
        const int hours = zone.mid(1, 2).toInt(&hoursOk);
        const int minutes = zone.mid(4, 2).toInt(&minutesOk);
        if (!hoursOk || !minutesOk)
            return std::nullopt;
        offsetSeconds = (hours * 3600 + minutes * 60) * (zone.at(0) == u'+' ? 1 : -1);
    } else {
        return std::nullopt;
    }
    return (base.toSecsSinceEpoch() - offsetSeconds) * 1'000'000'000 + nanos;
}

std::optional<QString> goQueryUnescape(QByteArrayView text)
{
    QByteArray bytes;
    bytes.reserve(text.size());
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char c = text.at(i);
        if (c == '+') {
            bytes.append(' ');
        } else if (c == '%') {
            if (i + 2 >= text.size() || hexValue(text.at(i + 1)) < 0 || hexValue(text.at(i + 2)) < 0)
                return std::nullopt;
            bytes.append(static_cast<char>(hexValue(text.at(i + 1)) * 16 + hexValue(text.at(i + 2))));
            i += 2;
        } else {
            bytes.append(c);
        }
    }
    return QString::fromUtf8(bytes);
}

HttpResponse apiError(int status, const QString &message)
{
    QByteArray body = "{\"code\":" + QByteArray::number(status) + ",\"message\":";
    appendJsonString(body, message);
    body += '}';
    return HttpResponse::json(status, body);
}

QByteArray envelope(quint8 flags, const QByteArray &payload)
{
    QByteArray out;
    out.reserve(5 + payload.size());
    out += static_cast<char>(flags);
    const auto size = static_cast<quint32>(payload.size());
    out += static_cast<char>((size >> 24) & 0xff);
    out += static_cast<char>((size >> 16) & 0xff);
    out += static_cast<char>((size >> 8) & 0xff);
    out += static_cast<char>(size & 0xff);
    out += payload;
    return out;
}

int connectHttpStatus(const QString &code)
{
    static const QList<QPair<QLatin1StringView, int>> table{
        {"canceled"_L1, 499},
        {"unknown"_L1, 500},
        {"invalid_argument"_L1, 400},
        {"deadline_exceeded"_L1, 504},
        {"not_found"_L1, 404},
        {"already_exists"_L1, 409},
        {"permission_denied"_L1, 403},
        {"resource_exhausted"_L1, 429},
        {"failed_precondition"_L1, 400},
        {"aborted"_L1, 409},
        {"out_of_range"_L1, 400},
        {"unimplemented"_L1, 501},
        {"internal"_L1, 500},
        {"unavailable"_L1, 503},
        {"data_loss"_L1, 500},
        {"unauthenticated"_L1, 401},
    };
    for (const auto &[name, status] : table) {
        if (code == name)
            return status;
    }
    return 500;
}

std::optional<QList<MultipartPart>> parseMultipart(const QByteArray &contentType, const QByteArray &body)
{
    QByteArray boundary;
    for (const QByteArray &piece : contentType.split(';')) {
        const QByteArray trimmed = piece.trimmed();
        if (trimmed.toLower().startsWith("boundary=")) {
            boundary = trimmed.mid(9);
            if (boundary.size() >= 2 && boundary.startsWith('"') && boundary.endsWith('"'))
                boundary = boundary.mid(1, boundary.size() - 2);
        }
    }
    if (boundary.isEmpty())
        return std::nullopt;
    const QByteArray delimiter = "--" + boundary;
    qsizetype pos = body.indexOf(delimiter);
    if (pos < 0)
        return std::nullopt;
    QList<MultipartPart> parts;
    for (;;) {
        pos += delimiter.size();
        if (body.mid(pos, 2) == "--")
            return parts; // the closing delimiter
        if (body.mid(pos, 2) != "\r\n")
            return std::nullopt;
        pos += 2;
        const qsizetype headersEnd = body.indexOf("\r\n\r\n", pos);
        if (headersEnd < 0)
            return std::nullopt;
        MultipartPart part;
        for (const QByteArray &line : body.mid(pos, headersEnd - pos).split('\n')) {
            const qsizetype colon = line.indexOf(':');
            if (colon <= 0)
                continue;
            if (line.left(colon).trimmed().toLower() != "content-disposition")
                continue;
            const QByteArray value = line.mid(colon + 1).trimmed();
            part.name = dispositionParameter(value, "name").value_or(QByteArray());
            if (const auto star = dispositionParameter(value, "filename*")) {
                // RFC 5987: charset'language'percent-encoded
                const qsizetype quote = star->indexOf('\'', star->indexOf('\'') + 1);
                part.filename = QByteArray::fromPercentEncoding(star->mid(quote + 1));
            } else {
                part.filename = dispositionParameter(value, "filename");
            }
        }
        const qsizetype dataStart = headersEnd + 4;
        const qsizetype next = body.indexOf(QByteArray("\r\n" + delimiter), dataStart);
        if (next < 0)
            return std::nullopt;
        part.body = body.mid(dataStart, next - dataStart);
        parts.append(part);
        pos = next + 2;
    }
}

QString goModeString(char type, uint permissions)
{
    QString text(1, QLatin1Char(type));
    const char *letters = "rwxrwxrwx";
    for (int bit = 8; bit >= 0; --bit)
        text += (permissions & (1u << bit)) ? QLatin1Char(letters[8 - bit]) : QLatin1Char('-');
    return text;
}

QByteArray stringMapJson(const QMap<QString, QString> &map)
{
    QByteArray out = "{";
    for (auto it = map.cbegin(); it != map.cend(); ++it) {
        if (it != map.cbegin())
            out += ',';
        appendJsonString(out, it.key());
        out += ':';
        appendJsonString(out, it.value());
    }
    return out + '}';
}

} // namespace PaddockFake::E2b
