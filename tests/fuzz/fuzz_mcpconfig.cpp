// A workspace's .mcp (Inspect::parseMcpConfig, src/core/inspect/mcpconfig.h). Read or refused,
// it counts the file's bytes; a refusal says why; a file with a NUL byte is refused. Each entry's
// secret paths are distinct, each reveals its raw value (every one that is not empty is among
// secretValues()), and what is shown in its place (command, URL) is not that raw value; the
// masked JSON reads the same twice.
#include "inspect/mcpconfig.h"

#include <QJsonDocument>
#include <QSet>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace Paddock::Inspect;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArrayView bytes(reinterpret_cast<const char *>(data), qsizetype(size));
    const auto config = parseMcpConfig(bytes);
    if (!config) {
        if (config.error().byteSize != bytes.size() || config.error().message.isEmpty())
            std::abort();
        (void)config.error().toJson();
        return 0;
    }
    // No JSON text holds a raw NUL byte (RapidJSON would take one for the end).
    if (config->byteSize != bytes.size() || bytes.contains('\0'))
        std::abort();
    const QStringList values = config->secretValues();
    for (const McpScope &scope : config->scopes) {
        for (const McpEntry &entry : scope.entries) {
            const QStringList paths = entry.secretPaths();
            if (QSet<QString>(paths.cbegin(), paths.cend()).size() != paths.size())
                std::abort();
            for (const QString &path : paths) {
                const std::optional<QString> raw = entry.reveal(path);
                if (!raw || (!raw->isEmpty() && !values.contains(*raw)))
                    std::abort();
                if (path == QLatin1String("command") && entry.command == *raw)
                    std::abort();
                if (path == QLatin1String("url") && entry.url == *raw)
                    std::abort();
            }
            if (entry.reveal(QStringLiteral("no/such/path")))
                std::abort();
        }
    }
    const QByteArray shown = QJsonDocument(config->toJson()).toJson(QJsonDocument::Compact);
    const auto again = parseMcpConfig(bytes);
    if (!again || QJsonDocument(again->toJson()).toJson(QJsonDocument::Compact) != shown)
        std::abort();
    QString debugText;
    QDebug(&debugText) << *config;
    return 0;
}
