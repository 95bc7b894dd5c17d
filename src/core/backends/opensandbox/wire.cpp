#include "wire.h"

#include "../../tr.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTimeZone>

namespace Paddock::OpenSandbox {

std::optional<QDateTime> parseTimestamp(QStringView text)
{
    static const QRegularExpression pattern(QStringLiteral(
        R"(^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$)"));
    const QRegularExpressionMatch match = pattern.match(text);
    if (!match.hasMatch())
        return std::nullopt;
    const auto number = [&match](int group) { return match.capturedView(group).toInt(); };
    const QDate date(number(1), number(2), number(3));
    int milliseconds = 0;
    if (const QStringView fraction = match.capturedView(7); !fraction.isEmpty())
        milliseconds = fraction.left(3).toString().leftJustified(3, u'0').toInt();
    const QTime time(number(4), number(5), number(6), milliseconds);
    if (!date.isValid() || !time.isValid())
        return std::nullopt;
    int offsetSeconds = 0;
    if (match.capturedView(8).isEmpty()) {
        const int hours = number(10);
        const int minutes = number(11);
        if (hours > 23 || minutes > 59)
            return std::nullopt;
        offsetSeconds = (hours * 3600 + minutes * 60) * (match.capturedView(9) == u"-" ? -1 : 1);
    }
    return QDateTime(date, time, QTimeZone(offsetSeconds)).toUTC();
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

} // namespace Paddock::OpenSandbox
