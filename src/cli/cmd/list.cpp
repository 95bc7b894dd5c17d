// list [--output table|json|ids] [--json]: every workspace of the backend, as a table for people
// (the default), as JSON, or as ids for pipes. What each looks like is in output.h.

#include "command.h"
#include "completioncache.h"
#include "output.h"

#include <QCoroTask>

namespace Paddock::Ctl {

QCoro::Task<int> runList(Session &s)
{
    const Result<OutputFormat> format = outputFormat(s);
    if (!format)
        co_return s.usage(format.error().message);
    auto all = co_await s.session->list();
    if (!all)
        co_return s.failed({}, all.error());
    rememberWorkspaceIds(s, *all); // for the shell completion's ids
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
