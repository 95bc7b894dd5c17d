#pragma once

// Small wire helpers of the fake OpenSandbox server: the timestamp formats of the real server
// (pydantic) and of execd (Go), the Kubernetes label rules, FastAPI's 422 bodies, and a
// multipart/form-data reader. Query strings, ids and JSON text are in ../fakehttp/httpwire.h.

#include "httpwire.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QPair>
#include <QString>

#include <optional>

namespace PaddockFake {

// pydantic v2 JSON for an aware UTC datetime: `2026-06-15T10:46:58.123456Z`; the fraction is
// left out when it is zero, as pydantic does.
QString formatPydanticTime(qint64 epochUs);
// Go's time.Time JSON (RFC 3339 with nanoseconds, trailing zeros trimmed), in UTC.
QString formatGoTime(qint64 epochNs);
// RFC 3339 / ISO 8601 date-time: `T`, `t` or space between date and time, optional seconds,
// 0-9 fractional digits, `Z` or `±hh:mm` (or `±hhmm`); no offset means UTC (pydantic's naive
// datetimes are taken as UTC by the server). Microsecond precision.
std::optional<qint64> parseDateTimeUs(const QString &text);
// The largest instant Python's datetime can represent.
qint64 maxPythonDatetimeUs();

// The Kubernetes label rules the server applies to metadata.
inline constexpr QLatin1StringView ReservedLabelPrefix{"opensandbox.io/"};
bool isValidLabelKey(const QString &key);
bool isValidLabelValue(const QString &value);

// One entry of FastAPI's `{"detail": [...]}` 422 body.
QJsonObject validationError(const QString &type, const QJsonArray &loc, const QString &msg, const QJsonValue &input,
                            const QJsonObject &ctx = {});

struct MultipartPart
{
    QByteArray name;
    std::optional<QByteArray> filename; // set only when Content-Disposition has filename=
    QByteArray contentType;
    QByteArray body;
};
// Parses a multipart/form-data body; nullopt when the content type has no boundary or the body
// is not a well-formed multipart body.
std::optional<QList<MultipartPart>> parseMultipart(const QByteArray &contentType, const QByteArray &body);

} // namespace PaddockFake
