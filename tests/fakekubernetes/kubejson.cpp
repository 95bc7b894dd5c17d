#include "kubejson.h"

#include <QDateTime>
#include <QHash>
#include <QJsonArray>
#include <QRegularExpression>
#include <QVarLengthArray>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace Qt::StringLiterals;

namespace PaddockFake::Kube {

namespace {

// Go writes struct fields in declaration order; these are the ones a reader of an object meets
// first (their rank). Other keys follow in the object's own (sorted) order.
int keyRank(const QString &key)
{
    static const QHash<QString, int> ranks = [] {
        const QStringList order{
            u"kind"_s,
            u"apiVersion"_s,
            u"metadata"_s,
            u"name"_s,
            u"generateName"_s,
            u"namespace"_s,
            u"uid"_s,
            u"resourceVersion"_s,
            u"generation"_s,
            u"creationTimestamp"_s,
            u"deletionTimestamp"_s,
            u"deletionGracePeriodSeconds"_s,
            u"labels"_s,
            u"annotations"_s,
            u"finalizers"_s,
            u"spec"_s,
            u"status"_s,
        };
        QHash<QString, int> out;
        for (qsizetype i = 0; i < order.size(); ++i)
            out.insert(order.at(i), static_cast<int>(i));
        return out;
    }();
    return ranks.value(key, std::numeric_limits<int>::max());
}

void write(QByteArray &out, const QJsonValue &value);

void writeObject(QByteArray &out, const QJsonObject &object)
{
    QVarLengthArray<std::pair<int, QJsonObject::const_iterator>, 32> members;
    for (auto it = object.constBegin(); it != object.constEnd(); ++it)
        members.append({keyRank(it.key()), it});
    std::stable_sort(members.begin(), members.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    out += '{';
    for (qsizetype i = 0; i < members.size(); ++i) {
        if (i > 0)
            out += ',';
        appendJsonString(out, members.at(i).second.key());
        out += ':';
        write(out, members.at(i).second.value());
    }
    out += '}';
}

void write(QByteArray &out, const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Null:
    case QJsonValue::Undefined:
        out += "null";
        break;
    case QJsonValue::Bool:
        out += value.toBool() ? "true" : "false";
        break;
    case QJsonValue::Double: {
        const double number = value.toDouble();
        if (std::floor(number) == number && std::fabs(number) < 9007199254740992.0)
            out += QByteArray::number(static_cast<qint64>(number));
        else
            out += QByteArray::number(number, 'g', QLocale::FloatingPointShortest);
        break;
    }
    case QJsonValue::String:
        appendJsonString(out, value.toString());
        break;
    case QJsonValue::Array: {
        out += '[';
        const QJsonArray array = value.toArray();
        for (qsizetype i = 0; i < array.size(); ++i) {
            if (i > 0)
                out += ',';
            write(out, array.at(i));
        }
        out += ']';
        break;
    }
    case QJsonValue::Object:
        writeObject(out, value.toObject());
        break;
    }
}

void member(QByteArray &out, bool &first, const char *key, const QString &value)
{
    if (value.isEmpty())
        return;
    if (!first)
        out += ',';
    first = false;
    out += '"';
    out += key;
    out += "\":";
    appendJsonString(out, value);
}

} // namespace

QByteArray writeJson(const QJsonValue &value)
{
    QByteArray out;
    write(out, value);
    return out;
}

QByteArray writeJson(const QJsonObject &object)
{
    QByteArray out;
    out.reserve(1024);
    writeObject(out, object);
    return out;
}

QString formatTime(qint64 epochMs)
{
    return QDateTime::fromMSecsSinceEpoch(epochMs - epochMs % 1000, Qt::UTC).toString(Qt::ISODate);
}

QByteArray formatLogTime(qint64 epochNs)
{
    const qint64 seconds = epochNs / 1'000'000'000;
    const qint64 fraction = epochNs % 1'000'000'000;
    const QString base = QDateTime::fromSecsSinceEpoch(seconds, Qt::UTC).toString(u"yyyy-MM-dd'T'HH:mm:ss"_s);
    return base.toLatin1() + '.' + QByteArray::number(fraction).rightJustified(9, '0') + 'Z';
}

std::optional<qint64> parseTimeNs(const QString &text)
{
    static const QRegularExpression pattern(
        u"^(\\d{4})-(\\d{2})-(\\d{2})[Tt](\\d{2}):(\\d{2}):(\\d{2})(?:\\.(\\d{1,9}))?(?:([Zz])|([+-])(\\d{2}):(\\d{2}))$"_s);
    const QRegularExpressionMatch match = pattern.match(text);
    if (!match.hasMatch())
        return std::nullopt;
    const QDate date(match.captured(1).toInt(), match.captured(2).toInt(), match.captured(3).toInt());
    const QTime time(match.captured(4).toInt(), match.captured(5).toInt(), match.captured(6).toInt());
    if (!date.isValid() || !time.isValid())
        return std::nullopt;
    qint64 seconds = QDateTime(date, time, Qt::UTC).toSecsSinceEpoch();
    if (!match.captured(9).isEmpty()) {
        const qint64 offset = match.captured(10).toInt() * 3600 + match.captured(11).toInt() * 60;
        seconds -= match.captured(9) == u"+"_s ? offset : -offset;
    }
    const qint64 fraction = match.captured(7).leftJustified(9, u'0').toLongLong();
    if (seconds >= std::numeric_limits<qint64>::max() / 1'000'000'000 - 1)
        return std::numeric_limits<qint64>::max(); // past 2262: later than anything
    return seconds * 1'000'000'000 + fraction;
}

QString humanDuration(qint64 ms)
{
    const qint64 seconds = ms / 1000;
    if (seconds < -1)
        return u"<invalid>"_s;
    if (seconds < 0)
        return u"0s"_s;
    if (seconds < 120)
        return u"%1s"_s.arg(seconds);
    const qint64 minutes = seconds / 60;
    if (minutes < 10) {
        const qint64 rest = seconds % 60;
        return rest == 0 ? u"%1m"_s.arg(minutes) : u"%1m%2s"_s.arg(minutes).arg(rest);
    }
    if (minutes < 180)
        return u"%1m"_s.arg(minutes);
    const qint64 hours = minutes / 60;
    if (hours < 8) {
        const qint64 rest = minutes % 60;
        return rest == 0 ? u"%1h"_s.arg(hours) : u"%1h%2m"_s.arg(hours).arg(rest);
    }
    if (hours < 48)
        return u"%1h"_s.arg(hours);
    if (hours < 24 * 8) {
        const qint64 rest = hours % 24;
        return rest == 0 ? u"%1d"_s.arg(hours / 24) : u"%1d%2h"_s.arg(hours / 24).arg(rest);
    }
    if (hours < 24 * 365 * 2)
        return u"%1d"_s.arg(hours / 24);
    if (hours < 24 * 365 * 8) {
        const qint64 days = (hours / 24) % 365;
        return days == 0 ? u"%1y"_s.arg(hours / 24 / 365) : u"%1y%2d"_s.arg(hours / 24 / 365).arg(days);
    }
    return u"%1y"_s.arg(hours / 24 / 365);
}

QByteArray StatusError::json() const
{
    QByteArray out = R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure")";
    bool first = false;
    member(out, first, "message", message);
    member(out, first, "reason", reason);
    const bool details = hasDetails || !name.isEmpty() || !group.isEmpty() || !kind.isEmpty() || !causes.isEmpty()
        || retryAfterSeconds.has_value();
    if (details) {
        out += R"(,"details":{)";
        bool firstDetail = true;
        member(out, firstDetail, "name", name);
        member(out, firstDetail, "group", group);
        member(out, firstDetail, "kind", kind);
        if (!causes.isEmpty()) {
            if (!firstDetail)
                out += ',';
            firstDetail = false;
            out += R"("causes":[)";
            for (qsizetype i = 0; i < causes.size(); ++i) {
                if (i > 0)
                    out += ',';
                out += '{';
                bool firstCause = true;
                member(out, firstCause, "reason", causes.at(i).reason);
                member(out, firstCause, "message", causes.at(i).message);
                member(out, firstCause, "field", causes.at(i).field);
                out += '}';
            }
            out += ']';
        }
        if (retryAfterSeconds) {
            if (!firstDetail)
                out += ',';
            out += R"("retryAfterSeconds":)" + QByteArray::number(*retryAfterSeconds);
        }
        out += '}';
    }
    out += R"(,"code":)" + QByteArray::number(code) + '}';
    return out;
}

HttpResponse StatusError::response() const
{
    HttpResponse response = HttpResponse::json(code, json());
    if (retryAfterSeconds)
        response.setHeader("Retry-After", QByteArray::number(*retryAfterSeconds));
    return response;
}

StatusError notFound(const QString &resource, const QString &name)
{
    StatusError error;
    error.code = 404;
    error.reason = u"NotFound"_s;
    error.message = u"%1 \"%2\" not found"_s.arg(resource, name);
    error.name = name;
    error.kind = resource;
    return error;
}

StatusError alreadyExists(const QString &resource, const QString &name)
{
    StatusError error;
    error.code = 409;
    error.reason = u"AlreadyExists"_s;
    error.message = u"%1 \"%2\" already exists"_s.arg(resource, name);
    error.name = name;
    error.kind = resource;
    return error;
}

StatusError badRequest(const QString &message)
{
    StatusError error;
    error.code = 400;
    error.reason = u"BadRequest"_s;
    error.message = message;
    return error;
}

StatusError methodNotAllowed()
{
    StatusError error;
    error.code = 405;
    error.reason = u"MethodNotAllowed"_s;
    error.message = u"the server does not allow this method on the requested resource"_s;
    error.hasDetails = true;
    return error;
}

StatusError unauthorized()
{
    StatusError error;
    error.code = 401;
    error.reason = u"Unauthorized"_s;
    error.message = u"Unauthorized"_s;
    return error;
}

StatusError forbidden(const QString &message)
{
    StatusError error;
    error.code = 403;
    error.reason = u"Forbidden"_s;
    error.message = message;
    return error;
}

StatusError internalError(const QString &message)
{
    StatusError error;
    error.code = 500;
    error.reason = u"InternalError"_s;
    error.message = u"Internal error occurred: "_s + message;
    error.causes = {StatusCause{QString(), message, QString()}};
    return error;
}

StatusError invalid(const QString &kind, const QString &name, const QList<StatusCause> &causes)
{
    StatusError error;
    error.code = 422;
    error.reason = u"Invalid"_s;
    QStringList parts;
    for (const StatusCause &cause : causes)
        parts.append(cause.field.isEmpty() ? cause.message : cause.field + u": "_s + cause.message);
    const QString list = parts.size() == 1 ? parts.first() : u"["_s + parts.join(u", "_s) + u"]"_s;
    error.message = u"%1 \"%2\" is invalid: %3"_s.arg(kind, name, list);
    error.name = name;
    error.kind = kind;
    error.causes = causes;
    return error;
}

StatusError expired(const QString &message)
{
    StatusError error;
    error.code = 410;
    error.reason = u"Expired"_s;
    error.message = message;
    return error;
}

StatusError conflict(const QString &resource, const QString &name, const QString &why)
{
    StatusError error;
    error.code = 409;
    error.reason = u"Conflict"_s;
    error.message = u"Operation cannot be fulfilled on %1 \"%2\": %3"_s.arg(resource, name, why);
    error.name = name;
    error.kind = resource;
    return error;
}

bool queryBool(const HttpRequest &request, const QString &name)
{
    for (const auto &[key, value] : request.queryItems()) {
        if (key == name) {
            const QString lower = value.toLower();
            return lower != u"false"_s && lower != u"0"_s;
        }
    }
    return false;
}

} // namespace PaddockFake::Kube
