// A profile's bootstrap file (parseBootstrapCommands, src/core/provisioner.h), read as
// ProfileSession reads it (UTF-8). One command per line that holds one: each command is a line
// trimmed, not blank, not a comment, without a newline, with the timeout given, in the file's
// order; no other line is lost.
#include "provisioner.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace Paddock;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QString text = QString::fromUtf8(reinterpret_cast<const char *>(data), qsizetype(size));
    const auto timeout = std::chrono::seconds(7);
    const QList<BootstrapCommand> commands = parseBootstrapCommands(text, timeout);
    qsizetype commandLines = 0;
    qsizetype searchFrom = 0;
    for (const QStringView line : QStringView(text).split(u'\n')) {
        const QStringView trimmed = line.trimmed();
        if (trimmed.isEmpty() || trimmed.startsWith(u'#'))
            continue;
        if (commandLines >= commands.size())
            std::abort();
        const BootstrapCommand &command = commands.at(commandLines++);
        if (command.command != trimmed || command.timeout != timeout)
            std::abort();
        const qsizetype at = text.indexOf(command.command, searchFrom);
        if (at < 0)
            std::abort();
        searchFrom = at + command.command.size();
    }
    if (commandLines != commands.size())
        std::abort();
    for (const BootstrapCommand &command : commands) {
        if (command.command.isEmpty() || command.command.contains(u'\n') || command.command.startsWith(u'#')
            || command.command.trimmed() != command.command)
            std::abort();
    }
    return 0;
}
