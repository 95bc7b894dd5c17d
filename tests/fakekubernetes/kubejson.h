#pragma once

// JSON as the Kubernetes API server writes it: compact, one line, the fields of objects in Go's
// struct order where a client might look (kind, apiVersion, metadata, spec, status), Status
// bodies field for field as apimachinery's metav1.Status, and its time formats.

#include "http.h"

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace PaddockFake::Kube {

// Compact JSON of `value`; objects list the keys of KeyOrder first (in that order), then the
// others in sorted order.
QByteArray writeJson(const QJsonValue &value);
QByteArray writeJson(const QJsonObject &object);

// metav1.Time: RFC 3339 in UTC, whole seconds (`2026-12-01T10:00:00Z`).
QString formatTime(qint64 epochMs);
// The kubelet's log timestamps: RFC 3339 with exactly nine fractional digits.
QByteArray formatLogTime(qint64 epochNs);
// RFC 3339 with an optional fraction and `Z` or an offset; nullopt when it does not parse.
std::optional<qint64> parseTimeNs(const QString &text);
// How kubectl words an age (apimachinery's duration.HumanDuration).
QString humanDuration(qint64 ms);

struct StatusCause
{
    QString reason; // a CauseType, e.g. FieldValueInvalid
    QString message;
    QString field;
};

// A metav1.Status error as the API server sends it.
struct StatusError
{
    int code = 500;
    QString reason;
    QString message;
    // details (only those set are written)
    QString name;
    QString group;
    QString kind;
    QList<StatusCause> causes;
    std::optional<int> retryAfterSeconds;
    bool hasDetails = false; // write "details":{} even when empty

    QByteArray json() const;
    HttpResponse response() const;
};

StatusError notFound(const QString &resource, const QString &name);
StatusError alreadyExists(const QString &resource, const QString &name);
StatusError badRequest(const QString &message);
StatusError methodNotAllowed();
StatusError unauthorized();
StatusError forbidden(const QString &message);
StatusError internalError(const QString &message);
StatusError invalid(const QString &kind, const QString &name, const QList<StatusCause> &causes);
StatusError expired(const QString &message);
StatusError conflict(const QString &resource, const QString &name, const QString &why);

// The query's boolean: absent → false; `0` or any case of `false` → false; anything else
// (even an empty value) → true (apimachinery's runtime conversion).
bool queryBool(const HttpRequest &request, const QString &name);

} // namespace PaddockFake::Kube
