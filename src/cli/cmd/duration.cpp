#include "duration.h"

#include "command.h"

#include <QLocale>

namespace Paddock::Ctl {

std::optional<std::chrono::seconds> parseDuration(QStringView text)
{
    constexpr qint64 Limit = qint64(100) * 366 * 86400;
    text = text.trimmed();
    if (text.isEmpty())
        return std::nullopt;
    qint64 total = 0;
    qsizetype at = 0;
    while (at < text.size()) {
        qint64 number = 0;
        const qsizetype start = at;
        while (at < text.size() && text[at] >= u'0' && text[at] <= u'9') {
            number = number * 10 + (text[at].unicode() - u'0');
            if (number > Limit)
                return std::nullopt;
            ++at;
        }
        if (at == start)
            return std::nullopt; // a unit without a number, a sign, a fraction
        qint64 unit = 1;
        if (at < text.size()) {
            switch (text[at].unicode()) {
            case u's':
                break;
            case u'm':
                unit = 60;
                break;
            case u'h':
                unit = 3600;
                break;
            case u'd':
                unit = 86400;
                break;
            default:
                return std::nullopt;
            }
            ++at;
        } else if (start != 0) {
            return std::nullopt; // "1h30": the last number needs its unit too
        }
        total += number * unit;
        if (total > Limit)
            return std::nullopt;
    }
    return std::chrono::seconds(total);
}

QString durationForms()
{
    return QStringLiteral("90s, 30m, 2h, 1d");
}

QString formatDuration(std::chrono::seconds duration)
{
    const qint64 all = std::max<qint64>(duration.count(), 0);
    const qint64 days = all / 86400;
    const qint64 hours = all % 86400 / 3600;
    const qint64 minutes = all % 3600 / 60;
    const qint64 seconds = all % 60;
    // In the user's language and number format ("5m 3s", "5 分 3 秒").
    const QLocale locale;
    if (days > 0)
        return Tr::tr("%1d %2h").arg(locale.toString(days), locale.toString(hours));
    if (hours > 0)
        return Tr::tr("%1h %2m").arg(locale.toString(hours), locale.toString(minutes));
    if (minutes > 0)
        return Tr::tr("%1m %2s").arg(locale.toString(minutes), locale.toString(seconds));
    return Tr::tr("%1s").arg(locale.toString(seconds));
}

} // namespace Paddock::Ctl
