#include "timestamp.h"

#include <QTime>

namespace Paddock {

namespace {

char16_t charAt(QStringView text, qsizetype i)
{
    return text[i].unicode();
}

char16_t charAt(std::string_view text, qsizetype i)
{
    return static_cast<unsigned char>(text[size_t(i)]);
}

// Digits at [from, from + count) as a number; -1 if any is not a digit.
template<typename Text> int digits(Text text, qsizetype from, qsizetype count)
{
    if (from + count > qsizetype(text.size()))
        return -1;
    int value = 0;
    for (qsizetype i = from; i < from + count; ++i) {
        const char16_t c = charAt(text, i);
        if (c < u'0' || c > u'9')
            return -1;
        value = value * 10 + (c - u'0');
    }
    return value;
}

// By position rather than with a regular expression: a listing parses two per sandbox. The
// same for UTF-16 and for the bytes of a JSON document (E2B's listing, read in place).
template<typename Text> std::optional<QDateTime> timestampOf(Text text)
{
    const auto size = qsizetype(text.size());
    const auto c = [&text](qsizetype i) { return charAt(text, i); };
    // yyyy-MM-ddTHH:mm:ss
    if (size < 20 || c(4) != u'-' || c(7) != u'-' || c(13) != u':' || c(16) != u':')
        return std::nullopt;
    const char16_t separator = c(10);
    if (separator != u'T' && separator != u't' && separator != u' ')
        return std::nullopt;
    const int year = digits(text, 0, 4);
    const int month = digits(text, 5, 2);
    const int day = digits(text, 8, 2);
    const int hour = digits(text, 11, 2);
    const int minute = digits(text, 14, 2);
    const int second = digits(text, 17, 2);
    if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0)
        return std::nullopt;

    qsizetype at = 19;
    int milliseconds = 0;
    if (c(at) == u'.') {
        const qsizetype start = ++at;
        while (at < size && c(at) >= u'0' && c(at) <= u'9')
            ++at;
        const qsizetype count = at - start;
        if (count < 1 || count > 9)
            return std::nullopt;
        for (qsizetype i = 0; i < 3; ++i)
            milliseconds = milliseconds * 10 + (i < count ? c(start + i) - u'0' : 0);
    }
    if (at >= size)
        return std::nullopt; // a zone is required
    int offsetSeconds = 0;
    const char16_t zone = c(at);
    if (zone == u'Z' || zone == u'z') {
        if (at + 1 != size)
            return std::nullopt;
    } else if (zone == u'+' || zone == u'-') {
        if (at + 6 != size || c(at + 3) != u':')
            return std::nullopt;
        const int hours = digits(text, at + 1, 2);
        const int minutes = digits(text, at + 4, 2);
        if (hours < 0 || minutes < 0 || hours > 23 || minutes > 59)
            return std::nullopt;
        offsetSeconds = (hours * 3600 + minutes * 60) * (zone == u'-' ? -1 : 1);
    } else {
        return std::nullopt;
    }

    // The Gregorian month's length, without QDate (whose daysInMonth goes through the Julian day
    // and back); there is no year 0, as for QDate.
    static constexpr int MonthDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (year == 0 || month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59)
        return std::nullopt;
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    if (day < 1 || day > (month == 2 && leap ? 29 : MonthDays[month - 1]))
        return std::nullopt;
    // Days since 1970-01-01 by the proleptic Gregorian calendar (H. Hinnant's days_from_civil),
    // then one QDateTime from milliseconds: a listing makes two or three per sandbox, and
    // QDateTime(QDate, QTime) costs several times as much.
    const qint64 y = month <= 2 ? year - 1 : year;
    const qint64 era = (y >= 0 ? y : y - 399) / 400;
    const qint64 yearOfEra = y - era * 400;
    const qint64 dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
    const qint64 dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
    const qint64 days = era * 146097 + dayOfEra - 719468;
    const qint64 msecs = ((days * 86400 + hour * 3600 + minute * 60 + second) - offsetSeconds) * 1000 + milliseconds;
    return QDateTime::fromMSecsSinceEpoch(msecs, Qt::UTC);
}

} // namespace

std::optional<QDateTime> parseTimestamp(QStringView text)
{
    return timestampOf(text);
}

std::optional<QDateTime> parseTimestamp(std::string_view text)
{
    return timestampOf(text);
}

} // namespace Paddock
