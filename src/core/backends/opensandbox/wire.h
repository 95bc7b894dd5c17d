#pragma once

#include "../../timestamp.h"

#include <QByteArray>
#include <QDateTime>
#include <QString>
#include <QStringView>

#include <optional>
#include <string_view>

namespace Paddock::OpenSandbox {

// RFC 3339 times as OpenSandbox servers write them (../../timestamp.h).
using Paddock::parseTimestamp;
// What we send (renew-expiration): UTC, milliseconds, `Z`.
QString formatTimestamp(const QDateTime &time);

// A failed request, from any of the three error bodies the servers send:
//   lifecycle  {"code": "DOCKER::SANDBOX_NOT_FOUND", "message": "…"}
//   FastAPI    422 {"detail": [{"loc": [...], "msg": "…", "type": "…"}]} (or a plain "detail")
//   execd      {"error": "…"}
struct ApiError
{
    int httpStatus = 0;
    QString code;
    QString message;
    QString requestId; // X-Request-ID of the response

    // "HTTP 404 DOCKER::SANDBOX_NOT_FOUND: Sandbox abc not found (request 5f0c…)"
    QString describe() const;
};

ApiError parseApiError(int httpStatus, const QByteArray &body, const QString &requestId = {});

} // namespace Paddock::OpenSandbox
