// A bootstrap file read (declared in provisioner.h), apart from the provisioning itself.
#include "provisioner.h"

namespace Paddock {

QList<BootstrapCommand> parseBootstrapCommands(const QString &text, std::chrono::seconds timeout)
{
    QList<BootstrapCommand> commands;
    const auto lines = QStringView(text).split(u'\n');
    for (const QStringView line : lines) {
        const QStringView trimmed = line.trimmed();
        if (trimmed.isEmpty() || trimmed.startsWith(u'#'))
            continue;
        commands.append({trimmed.toString(), timeout});
    }
    return commands;
}

} // namespace Paddock
