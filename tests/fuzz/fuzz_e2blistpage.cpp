// E2B's sandbox list pages (E2B::parseListPage, src/core/backends/e2b/e2bapi.h): the bytes as the
// body of a 200 answer; and the same bytes as one sandbox (E2B::parseSandbox).
#include "backends/e2b/e2bapi.h"

#include <cstddef>
#include <cstdint>

using namespace Paddock;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    E2B::HttpResponse response;
    response.status = 200;
    response.body = QByteArray(reinterpret_cast<const char *>(data), qsizetype(size));
    response.headers.insert(QByteArrayLiteral("x-next-token"), QByteArrayLiteral("next"));
    const auto page = E2B::parseListPage(response);
    if (page) {
        for (const SandboxInfo &info : std::as_const(page->sandboxes))
            (void)info.sandboxId.size();
    }
    const auto one = E2B::parseSandbox(response.body);
    (void)one;
    return 0;
}
