// renew ID --seconds N [--allow-shorter]: sets the expiry to now + N seconds, and never shortens
// it unless asked.

#include "command.h"

#include "renewal.h"

#include <QCoroTask>

namespace Paddock::Ctl {

QCoro::Task<int> runRenew(Session &s)
{
    const QString id = s.args.constFirst();
    if (auto valid = validateWorkspaceId(id); !valid)
        co_return s.usage(valid.error().message);
    if (!s.has("seconds"))
        co_return s.usage(Tr::tr("renew needs --seconds N"));
    const auto seconds = parseCount(s.value("seconds"));
    if (!seconds || *seconds == 0)
        co_return s.usage(Tr::tr("--seconds takes a positive whole number, not \"%1\"").arg(s.value("seconds")));
    auto sandbox = co_await s.session->find(id);
    if (!sandbox)
        co_return s.failed(QStringLiteral("renew %1").arg(id), sandbox.error());
    // now + N, as the SDKs renew; it may come before the current expiry, which only
    // --allow-shorter may do. The current expiry is the backend's, asked now; the session plans
    // from it once more and refuses a shortening too, but this says why in paddockctl's words.
    auto current = co_await s.session->get(sandbox->sandboxId);
    if (!current)
        co_return s.failed(QStringLiteral("renew %1").arg(id), current.error());
    const Renewal plan = planRenewal(current->expiresAt, QDateTime::currentDateTimeUtc(), RenewMode::FromNow,
                                     std::chrono::seconds(*seconds));
    if (plan.shortens && !s.has("allow-shorter")) {
        err(Tr::tr("renew %1: now + %2 s is %3, earlier than its current expiry %4; nothing was changed "
                   "(give --allow-shorter to shorten it)")
                .arg(id)
                .arg(*seconds)
                .arg(jsonTime(plan.expiresAt), jsonTime(*current->expiresAt)));
        co_return Failure;
    }
    auto renewed = co_await s.session->renew(
        *current, RenewRequest{RenewMode::FromNow, std::chrono::seconds(*seconds), s.has("allow-shorter")});
    if (!renewed)
        co_return s.failed(QStringLiteral("renew %1").arg(id), renewed.error());
    out(Tr::tr("%1 expires at %2").arg(id, renewed->expiresAt ? jsonTime(*renewed->expiresAt) : Tr::tr("never")));
    co_return Success;
}

} // namespace Paddock::Ctl
