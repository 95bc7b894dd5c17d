// logs ID [--follow]: prints a workspace's bootstrap log; --follow keeps printing whole lines as
// they come, across a log replaced or deleted meanwhile.

#include "command.h"

#include <QCoroTask>
#include <QCoroTimer>

#include <QFile>

namespace Paddock::Ctl {

using namespace std::chrono_literals;

QCoro::Task<int> runLogs(Session &s)
{
    const QString id = s.args.constFirst();
    if (auto valid = validateWorkspaceId(id); !valid)
        co_return s.usage(valid.error().message);
    QFile file(s.logs->path(s.session->instanceKey(), id));
    const bool follow = s.has("follow");
    if (!file.exists() && !follow)
        co_return s.failed({}, Error::notFound(Tr::tr("there is no bootstrap log for workspace %1").arg(id)));

    qint64 offset = 0;
    for (;;) {
        if (!file.isOpen() && file.exists() && !file.open(QIODevice::ReadOnly))
            co_return s.failed({}, Error::io(Tr::tr("cannot read %1: %2").arg(file.fileName(), file.errorString())));
        if (file.isOpen()) {
            if (file.size() < offset)
                offset = 0; // the log was replaced: start over
            file.seek(offset);
            QByteArray chunk = file.readAll();
            if (follow) {
                // Only whole lines: the rest comes with the next read.
                chunk.truncate(chunk.lastIndexOf('\n') + 1);
            }
            offset += chunk.size();
            write(stdout, chunk);
        }
        if (!follow)
            co_return Success;
        co_await QCoro::sleepFor(200ms);
        if (file.isOpen() && !file.exists())
            file.close(); // deleted meanwhile: wait for a new one
    }
}

} // namespace Paddock::Ctl
