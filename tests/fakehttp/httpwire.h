#pragma once

// Wire helpers shared by the fake servers (paddockfakehttp): the wall clock, ids, Python's
// query-string parsing (which Starlette and, for the parts the fakes use, Go's net/url agree
// with), and JSON text.

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringView>

#include <optional>

namespace PaddockFake {

using QueryItems = QList<QPair<QString, QString>>;

// Wall clock, UTC.
qint64 nowUs();
qint64 nowNs();

QString newUuid(); // 8-4-4-4-12, lower case, no braces
QString newHexId(); // 32 hex digits

// Python's urllib.parse.unquote_plus: `+` is a space, valid %XX escapes are bytes, the bytes
// are UTF-8 (invalid sequences become U+FFFD); a malformed escape stays as it is.
QString unquotePlus(QByteArrayView text);
// Python's parse_qsl(text, keep_blank_values, strict_parsing): pieces split on `&`; with
// `strict`, an empty piece or a piece without `=` is an error (nullopt, the piece in badPiece).
std::optional<QueryItems> parseQsl(QByteArrayView text, bool keepBlank, bool strict, QByteArray *badPiece = nullptr);

// Appends `text` as a JSON string literal (UTF-8, like Python's json.dumps(ensure_ascii=False)).
void appendJsonString(QByteArray &out, QStringView text);

QByteArray compactJson(const QJsonObject &object);
QByteArray compactJson(const QJsonArray &array);

} // namespace PaddockFake
