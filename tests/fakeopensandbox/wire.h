#pragma once

// Small wire helpers shared by the fake OpenSandbox server: the timestamp formats of the real
// server (pydantic) and of execd (Go), Python's query-string parsing, the Kubernetes label
// rules, FastAPI's 422 bodies, and a multipart/form-data reader.

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

using QueryItems = QList<QPair<QString, QString>>;

// Wall clock, UTC.
qint64 nowUs();
qint64 nowNs();

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

QString newUuid(); // 8-4-4-4-12, lower case, no braces
QString newHexId(); // 32 hex digits

// Python's urllib.parse.unquote_plus: `+` is a space, valid %XX escapes are bytes, the bytes
// are UTF-8 (invalid sequences become U+FFFD); a malformed escape stays as it is.
QString unquotePlus(QByteArrayView text);
// Python's parse_qsl(text, keep_blank_values, strict_parsing): pieces split on `&`; with
// `strict`, an empty piece or a piece without `=` is an error (nullopt, the piece in badPiece).
std::optional<QueryItems> parseQsl(QByteArrayView text, bool keepBlank, bool strict, QByteArray *badPiece = nullptr);

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

// Appends `text` as a JSON string literal (UTF-8, like Python's json.dumps(ensure_ascii=False)).
void appendJsonString(QByteArray &out, QStringView text);

QByteArray compactJson(const QJsonObject &object);
QByteArray compactJson(const QJsonArray &array);

} // namespace PaddockFake
