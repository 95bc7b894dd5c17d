// The Docker engine's JSON answers (src/core/backends/docker/dockerclient.h): the bytes as the
// body of GET /containers/json (Docker::parseContainerList) and of GET /containers/{id}/json
// (Docker::parseContainerInspect), and as an engine time (Docker::parseDockerTime). A listing has
// one container per element of the array (none for anything but an array); every time read is
// invalid or UTC, and an inspection's start and end are never the engine's "year 1" for never.
#include "backends/docker/dockerclient.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace Paddock::Docker;

namespace {

void checkTime(const QDateTime &time)
{
    if (time.isValid() && time.timeSpec() != Qt::UTC)
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray body(reinterpret_cast<const char *>(data), qsizetype(size));

    const QList<ContainerInfo> listed = parseContainerList(body);
    const QJsonDocument document = QJsonDocument::fromJson(body);
    if (listed.size() != (document.isArray() ? document.array().size() : 0))
        std::abort();
    for (const ContainerInfo &info : listed)
        checkTime(info.created);

    const ContainerInfo inspected = parseContainerInspect(body);
    checkTime(inspected.created);
    for (const QDateTime &time : {inspected.inspected.startedAt, inspected.inspected.finishedAt}) {
        checkTime(time);
        if (time.isValid() && time.date().year() <= 1)
            std::abort();
    }

    if (size <= 64)
        checkTime(parseDockerTime(QString::fromUtf8(body)));
    return 0;
}
