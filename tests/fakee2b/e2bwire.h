#pragma once

// Wire helpers of the fake E2B server: Go's time and query-string formats, the API's error body,
// Connect's envelopes and error codes, a multipart/form-data reader, and Go's file mode text.
// Query strings, ids and JSON text shared with the other fakes are in ../fakehttp/httpwire.h.

#include "http.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QMap>
#include <QString>

#include <optional>

namespace PaddockFake::E2b {

// Go's time.Time JSON (RFC 3339, nanoseconds with trailing zeros trimmed), in UTC.
QString formatTime(qint64 epochNs);
// RFC 3339 with 0-9 fractional digits and `Z` or `±hh:mm`; nanoseconds since the epoch.
std::optional<qint64> parseTime(const QString &text);

// Go's url.QueryUnescape: `+` is a space, %XX a byte; a malformed escape is an error.
std::optional<QString> goQueryUnescape(QByteArrayView text);

// The API's error body: {"code": status, "message": message}.
HttpResponse apiError(int status, const QString &message);

// A Connect envelope: flags, big-endian length, payload.
QByteArray envelope(quint8 flags, const QByteArray &payload);
// The HTTP status of a Connect error code (connect-es protocol-connect/http-status.js).
int connectHttpStatus(const QString &code);

struct MultipartPart
{
    QByteArray name;
    std::optional<QByteArray> filename; // decoded: quoted-string escapes and filename*
    QByteArray body;
};
// Parses a multipart/form-data body; nullopt when the content type has no boundary or the body
// is malformed.
std::optional<QList<MultipartPart>> parseMultipart(const QByteArray &contentType, const QByteArray &body);

// Go's fs.FileMode.String() for a file type and permission bits: "-rw-r--r--", "drwxr-xr-x",
// "Lrwxrwxrwx".
QString goModeString(char type, uint permissions);

// The JSON of a string map (keys in order).
QByteArray stringMapJson(const QMap<QString, QString> &map);

} // namespace PaddockFake::E2b
