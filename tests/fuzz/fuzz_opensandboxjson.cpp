// OpenSandbox's answers (src/core/backends/opensandbox/sandboxjson.h, wire.h): the bytes as one
// Sandbox (OpenSandbox::parseSandbox, and as the body of a 200 answer: parseSandboxResponse,
// parseSandboxDetails), as a page of a listing (parseListPage), and as an error body
// (parseApiError). The three readings of one sandbox agree, and it reads the same as the only
// item of a page ({"items":[...]}); every sandbox is OpenSandbox's, with its fingerprint, its
// times UTC; an error always says something.
#include "backends/opensandbox/sandboxjson.h"
#include "backends/opensandbox/wire.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace Paddock;
using namespace Paddock::OpenSandbox;

namespace {

bool sameTime(const QDateTime &a, const QDateTime &b)
{
    return a.isValid() == b.isValid() && (!a.isValid() || a == b);
}

bool same(const SandboxInfo &a, const SandboxInfo &b)
{
    return a.sandboxId == b.sandboxId && a.workspaceId == b.workspaceId && a.userId == b.userId
        && a.agentId == b.agentId && a.state == b.state && a.rawState == b.rawState && a.backend == b.backend
        && a.image == b.image && sameTime(a.createdAt, b.createdAt)
        && a.expiresAt.has_value() == b.expiresAt.has_value() && (!a.expiresAt || sameTime(*a.expiresAt, *b.expiresAt))
        && a.metadata == b.metadata && a.fingerprint == b.fingerprint;
}

void check(const SandboxInfo &info)
{
    if (info.backend != QLatin1String("opensandbox") || info.fingerprint == 0
        || info.fingerprint != fingerprintOf(info))
        std::abort();
    if (info.createdAt.isValid() && info.createdAt.timeSpec() != Qt::UTC)
        std::abort();
    if (info.expiresAt && (!info.expiresAt->isValid() || info.expiresAt->timeSpec() != Qt::UTC))
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    HttpResponse response;
    response.status = 200;
    response.body = QByteArray(reinterpret_cast<const char *>(data), qsizetype(size));

    if (const auto page = parseListPage(response)) {
        for (const SandboxInfo &info : page->items)
            check(info);
    }
    const auto one = parseSandbox(response.body);
    const auto answered = parseSandboxResponse(response);
    const auto details = parseSandboxDetails(response);
    if (one.has_value() != answered.has_value() || one.has_value() != details.has_value())
        std::abort();
    if (one) {
        check(*one);
        if (!same(*one, *answered) || !same(*one, details->sandbox))
            std::abort();
        // RapidJSON skips a byte order mark at the start of the text (each of its three bytes
        // alone too), which inside a list is an error: such a body is not wrapped.
        const uchar first = response.body.isEmpty() ? 0 : uchar(response.body.at(0));
        if (first != 0xEF && first != 0xBB && first != 0xBF) {
            HttpResponse listed;
            listed.status = 200;
            listed.body = QByteArrayLiteral("{\"items\":[") + response.body + QByteArrayLiteral("]}");
            const auto page = parseListPage(listed);
            if (!page || page->items.size() != 1 || !same(page->items.constFirst(), *one))
                std::abort();
        }
    }

    const ApiError error = parseApiError(404, response.body, QStringLiteral("req-1"));
    if (error.httpStatus != 404 || error.describe().isEmpty())
        std::abort();
    (void)decodeHttpError(Http::HttpResponse{500, response.body, {}, {}});
    return 0;
}
