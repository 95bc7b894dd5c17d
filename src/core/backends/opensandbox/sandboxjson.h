#pragma once

#include "../../result.h"
#include "../../sandbox.h"
#include "http.h"

#include <QByteArray>
#include <QList>

namespace Paddock::OpenSandbox {

// One page of a listing.
struct ListPage
{
    QList<SandboxInfo> items;
    bool hasNextPage = false;
    int totalPages = 0;
};

// Reading the server's `Sandbox` objects: the parts the console uses, metadata values decoded
// for display, unknown states kept as they came. A listing parses two timestamps and a few
// strings per sandbox, ten thousand at a time, so this uses RapidJSON rather than QJsonDocument
// (about five times faster here; see paddock-bench-opensandbox).
Result<SandboxInfo> parseSandbox(const QByteArray &json);
Result<SandboxInfo> parseSandboxResponse(const HttpResponse &response);
Result<ListPage> parseListPage(const HttpResponse &response);
// GET /sandboxes/{id} for the inspector's overview (Backend::details): the sandbox exactly as
// parseSandboxResponse reads it, and what the server says beyond it: status.reason and
// status.message as the server wrote them; resourceLimits when the server sends them (the
// lifecycle spec's Sandbox has none, so today's servers do not); and as facts, under translated
// labels, status.lastTransitionAt, the entrypoint (secret-looking arguments masked), platform,
// snapshotId and the pool of allocation. Nothing else of the object is read: no env, no
// extensions, no image credentials.
Result<SandboxDetails> parseSandboxDetails(const HttpResponse &response);

// The error for an answer that is not the JSON object it should be (an HTML page from a proxy,
// a truncated body): what came, and the request id when there is one.
Error notJsonError(const HttpResponse &response);

} // namespace Paddock::OpenSandbox
