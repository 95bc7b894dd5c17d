#include "wire.h"

#include "../../tr.h"
#include "http.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTimeZone>

namespace Paddock::OpenSandbox {

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
