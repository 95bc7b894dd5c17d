#include "wire.h"

#include "../../tr.h"
#include "http.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTimeZone>

namespace Paddock::OpenSandbox {

namespace {

// Digits at [from, from + count) as a number; -1 if any is not a digit.
int digits(QStringView text, qsizetype from, qsizetype count)
{
    if (from + count > text.size())
        return -1;
    int value = 0;
    for (qsizetype i = from; i < from + count; ++i) {
        const char16_t c = text[i].unicode();
        if (c < u'0' || c > u'9')
            return -1;
        value = value * 10 + (c - u'0');
    }
    return value;
}

} // namespace

// By position rather than with a regular expression: a listing parses two per sandbox.
std::optional<QDateTime> parseTimestamp(QStringView text)
{
    // yyyy-MM-ddTHH:mm:ss
    if (text.size() < 20 || text[4] != u'-' || text[7] != u'-' || text[13] != u':' || text[16] != u':')
        return std::nullopt;
    const char16_t separator = text[10].unicode();
    if (separator != u'T' && separator != u't' && separator != u' ')
        return std::nullopt;
    const int year = digits(text, 0, 4);
    const int month = digits(text, 5, 2);
    const int day = digits(text, 8, 2);
    const int hour = digits(text, 11, 2);
    const int minute = digits(text, 14, 2);
    const int second = digits(text, 17, 2);
    if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0)
        return std::nullopt;

    qsizetype at = 19;
    int milliseconds = 0;
    if (text[at] == u'.') {
        const qsizetype start = ++at;
        while (at < text.size() && text[at] >= u'0' && text[at] <= u'9')
            ++at;
        const qsizetype count = at - start;
        if (count < 1 || count > 9)
            return std::nullopt;
        for (qsizetype i = 0; i < 3; ++i)
            milliseconds = milliseconds * 10 + (i < count ? text[start + i].unicode() - u'0' : 0);
    }
    if (at >= text.size())
        return std::nullopt; // a zone is required
    int offsetSeconds = 0;
    const char16_t zone = text[at].unicode();
    if (zone == u'Z' || zone == u'z') {
        if (at + 1 != text.size())
            return std::nullopt;
    } else if (zone == u'+' || zone == u'-') {
        if (at + 6 != text.size() || text[at + 3] != u':')
            return std::nullopt;
        const int hours = digits(text, at + 1, 2);
        const int minutes = digits(text, at + 4, 2);
        if (hours < 0 || minutes < 0 || hours > 23 || minutes > 59)
            return std::nullopt;
        offsetSeconds = (hours * 3600 + minutes * 60) * (zone == u'-' ? -1 : 1);
    } else {
        return std::nullopt;
    }

    const QDate date(year, month, day);
    const QTime time(hour, minute, second, milliseconds);
    if (!date.isValid() || !time.isValid())
        return std::nullopt;
    QDateTime utc(date, time, Qt::UTC);
    if (offsetSeconds != 0)
        utc = utc.addSecs(-offsetSeconds);
    return utc;
}

QString formatTimestamp(const QDateTime &time)
{
    return time.toUTC().toString(Qt::ISODateWithMs);
}

QString ApiError::describe() const
{
    QString text = Tr::tr("HTTP %1").arg(httpStatus);
    if (!code.isEmpty())
        text += u' ' + code;
    if (!message.isEmpty())
        text += QStringLiteral(": ") + message;
    if (!requestId.isEmpty())
        text += u' ' + Tr::tr("(request %1)").arg(requestId);
    return text;
}

ApiError parseApiError(int httpStatus, const QByteArray &body, const QString &requestId)
{
    ApiError error{httpStatus, {}, {}, requestId};
    QJsonParseError parseError{};
    const QJsonDocument document = QJsonDocument::fromJson(body, &parseError);
    const QJsonObject json = document.object();
    if (parseError.error != QJsonParseError::NoError || !document.isObject()) {
        error.message = QString::fromUtf8(body.left(300)).trimmed();
        return error;
    }
    if (json.contains(QLatin1String("code")) || json.contains(QLatin1String("message"))) {
        error.code = json.value(QLatin1String("code")).toString();
        error.message = json.value(QLatin1String("message")).toString();
    } else if (const QJsonValue detail = json.value(QLatin1String("detail")); detail.isArray()) {
        QStringList problems;
        const QJsonArray items = detail.toArray();
        for (const QJsonValue &item : items) {
            QStringList location;
            const QJsonArray loc = item.toObject().value(QLatin1String("loc")).toArray();
            for (const QJsonValue &part : loc)
                location.append(part.isDouble() ? QString::number(part.toInt()) : part.toString());
            const QString msg = item.toObject().value(QLatin1String("msg")).toString();
            problems.append(location.isEmpty() ? msg : location.join(u'.') + QStringLiteral(": ") + msg);
        }
        error.code = QStringLiteral("VALIDATION_ERROR");
        error.message = problems.join(QStringLiteral("; "));
    } else if (detail.isString()) {
        error.message = detail.toString();
    } else if (json.contains(QLatin1String("error"))) {
        error.message = json.value(QLatin1String("error")).toString();
    } else {
        error.message = QString::fromUtf8(body.left(300)).trimmed();
    }
    return error;
}

Error decodeHttpError(const Http::HttpResponse &response)
{
    const ApiError api = parseApiError(response.status, response.body, response.requestId);
    return Error{Http::kindForStatus(response.status), api.describe(), response.status};
}

} // namespace Paddock::OpenSandbox
