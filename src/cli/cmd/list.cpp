// list [--output table|json|ids] [--json] [FILTERS] [--fail-empty]: every workspace of the backend
// (or those the filters of selection.h keep), as a table for people (the default), as JSON, or as
// ids for pipes. What each looks like is in output.h.

#include "command.h"
#include "completioncache.h"
#include "output.h"
#include "selection.h"

#include <QCoroTask>

namespace Paddock::Ctl {

QCoro::Task<int> runList(Session &s)
{
    const Result<OutputFormat> format = outputFormat(s);
    if (!format)
        co_return s.usage(format.error().message);
    const auto filters = parseFilters(s);
    if (!filters)
        co_return s.usage(filters.error().message);
    auto all = co_await s.session->list();
    if (!all)
        co_return s.failed({}, all.error());
    rememberWorkspaceIds(s, *all); // for the shell completion's ids
    if (filters->any()) {
        // The filters judge each workspace by its newest sandbox, as the bulk verbs do; without
        // them the listing is shown whole.
        const QDateTime now = QDateTime::currentDateTimeUtc();
        QList<SandboxInfo> kept;
        for (const SandboxInfo &info : newestPerWorkspace(*all)) {
            if (filters->matches(info, now))
                kept.append(info);
        }
        *all = std::move(kept);
        if (all->isEmpty()) {
            // Said on stderr: stdout stays what the format promises (an empty table, [], nothing).
            err(Tr::tr("no workspace matches"));
            if (s.has("fail-empty"))
                co_return Failure;
        }
    }
    switch (*format) {
    case OutputFormat::Json:
        write(stdout, renderJson(*all));
        break;
    case OutputFormat::Ids:
        write(stdout, renderIds(*all));
        break;
    case OutputFormat::Table:
        write(stdout, renderTable(*all, QDateTime::currentDateTimeUtc(), outputWidth()));
        break;
    }
    co_return Success;
}

} // namespace Paddock::Ctl
