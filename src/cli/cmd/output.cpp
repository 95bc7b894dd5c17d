#include "output.h"

#include "command.h"
#include "duration.h"
#include "idlerule.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

#include <algorithm>
#include <array>
#include <vector>

#include <sys/ioctl.h>
#include <unistd.h>

namespace Paddock::Ctl {

namespace {

QJsonValue jsonTimeOrNull(const QDateTime &time)
{
    return time.isValid() ? QJsonValue(jsonTime(time)) : QJsonValue(QJsonValue::Null);
}

// East Asian Wide (W) and Fullwidth (F) code points (Unicode's EastAsianWidth.txt, its main
// ranges: CJK, kana, Hangul, fullwidth forms, the emoji shown wide), sorted.
struct Range
{
    char32_t first;
    char32_t last;
};
constexpr Range Wide[] = {
    {0x1100, 0x115F},   {0x231A, 0x231B},   {0x2329, 0x232A},   {0x23E9, 0x23EC},   {0x23F0, 0x23F0},
    {0x23F3, 0x23F3},   {0x25FD, 0x25FE},   {0x2614, 0x2615},   {0x2648, 0x2653},   {0x267F, 0x267F},
    {0x2693, 0x2693},   {0x26A1, 0x26A1},   {0x26AA, 0x26AB},   {0x26BD, 0x26BE},   {0x26C4, 0x26C5},
    {0x26CE, 0x26CE},   {0x26D4, 0x26D4},   {0x26EA, 0x26EA},   {0x26F2, 0x26F3},   {0x26F5, 0x26F5},
    {0x26FA, 0x26FA},   {0x26FD, 0x26FD},   {0x2705, 0x2705},   {0x270A, 0x270B},   {0x2728, 0x2728},
    {0x274C, 0x274C},   {0x274E, 0x274E},   {0x2753, 0x2755},   {0x2757, 0x2757},   {0x2795, 0x2797},
    {0x27B0, 0x27B0},   {0x27BF, 0x27BF},   {0x2B1B, 0x2B1C},   {0x2B50, 0x2B50},   {0x2B55, 0x2B55},
    {0x2E80, 0x303E},   {0x3041, 0x33FF},   {0x3400, 0x4DBF},   {0x4E00, 0x9FFF},   {0xA000, 0xA4CF},
    {0xA960, 0xA97F},   {0xAC00, 0xD7A3},   {0xF900, 0xFAFF},   {0xFE10, 0xFE19},   {0xFE30, 0xFE6F},
    {0xFF00, 0xFF60},   {0xFFE0, 0xFFE6},   {0x16FE0, 0x16FE4}, {0x17000, 0x18CFF}, {0x1B000, 0x1B2FF},
    {0x1F004, 0x1F004}, {0x1F0CF, 0x1F0CF}, {0x1F18E, 0x1F18E}, {0x1F191, 0x1F19A}, {0x1F200, 0x1F2FF},
    {0x1F300, 0x1F64F}, {0x1F680, 0x1F6FF}, {0x1F7E0, 0x1F7EB}, {0x1F900, 0x1F9FF}, {0x1FA70, 0x1FAFF},
    {0x20000, 0x2FFFD}, {0x30000, 0x3FFFD},
};

int codePointWidth(char32_t c)
{
    if (c < 0x300)
        return 1; // Latin, and the controls printable() replaces
    if (c < 0x1100) {
        const QChar::Category category = QChar::category(c);
        return category == QChar::Mark_NonSpacing || category == QChar::Mark_Enclosing ? 0 : 1;
    }
    if (c >= 0x1160 && c <= 0x11FF)
        return 0; // Hangul vowels and final consonants: part of the syllable before
    const auto it = std::upper_bound(std::cbegin(Wide), std::cend(Wide), c,
                                     [](char32_t value, const Range &range) { return value < range.first; });
    if (it != std::cbegin(Wide) && c <= std::prev(it)->last)
        return 2;
    const QChar::Category category = QChar::category(c);
    return category == QChar::Mark_NonSpacing || category == QChar::Mark_Enclosing || category == QChar::Other_Format
        ? 0
        : 1;
}

// The code point at `at` (a surrogate pair as one), and where the next one starts.
char32_t codePointAt(QStringView text, qsizetype &at)
{
    const QChar c = text[at++];
    if (c.isHighSurrogate() && at < text.size() && text[at].isLowSurrogate())
        return QChar::surrogateToUcs4(c, text[at++]);
    return c.unicode();
}

// What a terminal shows as one piece: a code point with the zero-width ones after it.
struct Cluster
{
    qsizetype begin;
    qsizetype end;
    int width;
};

std::vector<Cluster> clusters(QStringView text)
{
    std::vector<Cluster> result;
    qsizetype at = 0;
    while (at < text.size()) {
        const qsizetype begin = at;
        const int width = codePointWidth(codePointAt(text, at));
        if (width == 0 && !result.empty()) {
            result.back().end = at;
            continue;
        }
        result.push_back({begin, at, width});
    }
    return result;
}

const QString Ellipsis = QStringLiteral("…");

// `text` cut to at most `width` cells (>= 1), "…" where it was cut: in the middle (ids, whose
// two ends tell them apart) or at the end.
QString elided(QStringView text, int width, bool middle)
{
    const std::vector<Cluster> pieces = clusters(text);
    const int room = width - 1; // the ellipsis takes one
    int head = middle ? (room + 1) / 2 : room;
    size_t first = 0;
    while (first < pieces.size() && pieces[first].width <= head)
        head -= pieces[first++].width;
    int tail = middle ? room / 2 + head : 0; // what the head could not use
    size_t last = pieces.size();
    while (last > first && pieces[last - 1].width <= tail)
        tail -= pieces[--last].width;
    QString result = text.first(first == 0 ? 0 : pieces[first - 1].end).toString() + Ellipsis;
    if (last < pieces.size())
        result += text.sliced(pieces[last].begin);
    return result;
}

void appendSpaces(QString &text, int count)
{
    static const QString Spaces(64, u' ');
    while (count > 0) {
        const int now = std::min<int>(count, int(Spaces.size()));
        text += QStringView(Spaces).first(now);
        count -= now;
    }
}

qint64 secondsBetween(const QDateTime &from, qint64 toMs)
{
    return (toMs - from.toMSecsSinceEpoch()) / 1000;
}

} // namespace

QJsonObject jsonRow(const SandboxInfo &info)
{
    QJsonObject metadata;
    for (auto it = info.metadata.cbegin(); it != info.metadata.cend(); ++it)
        metadata.insert(it.key(), it.value());
    return QJsonObject{
        {QStringLiteral("workspaceId"), info.workspaceId},
        {QStringLiteral("sandboxId"), info.sandboxId},
        {QStringLiteral("state"), info.rawState.isEmpty() ? sandboxStateName(info.state) : info.rawState},
        {QStringLiteral("userId"), info.userId},
        {QStringLiteral("agentId"), info.agentId},
        {QStringLiteral("backend"), info.backend},
        {QStringLiteral("createdAt"), jsonTimeOrNull(info.createdAt)},
        {QStringLiteral("expiresAt"), info.expiresAt ? jsonTimeOrNull(*info.expiresAt) : QJsonValue(QJsonValue::Null)},
        // A paused sandbox whose timer is stopped (E2B): since when; null otherwise.
        {QStringLiteral("pausedAt"), jsonTimeOrNull(info.pausedAt)},
        {QStringLiteral("lastActivityAt"), jsonTimeOrNull(info.lastActivityAt)},
        {QStringLiteral("metadata"), metadata},
    };
}

Result<OutputFormat> outputFormat(const Session &s)
{
    const QString accepted = QStringLiteral("table, json, ids");
    if (!s.has("output"))
        return s.has("json") ? OutputFormat::Json : OutputFormat::Table;
    const QString value = s.value("output");
    OutputFormat format;
    if (value == QLatin1String("table"))
        format = OutputFormat::Table;
    else if (value == QLatin1String("json"))
        format = OutputFormat::Json;
    else if (value == QLatin1String("ids"))
        format = OutputFormat::Ids;
    else
        return fail(
            Error::invalidArgument(Tr::tr("--output takes one of %1, not \"%2\"").arg(accepted, printable(value))));
    if (s.has("json") && format != OutputFormat::Json)
        return fail(Error::invalidArgument(Tr::tr("--json means --output json, not --output %1").arg(value)));
    return format;
}

QByteArray renderJson(const QList<SandboxInfo> &rows)
{
    QJsonArray array;
    for (const SandboxInfo &info : rows)
        array.append(jsonRow(info));
    return QJsonDocument(array).toJson(QJsonDocument::Indented);
}

QByteArray renderIds(const QList<SandboxInfo> &rows)
{
    QByteArray text;
    text.reserve(rows.size() * 33);
    QSet<QString> seen;
    seen.reserve(rows.size());
    for (const SandboxInfo &info : rows) {
        if (seen.contains(info.workspaceId))
            continue;
        seen.insert(info.workspaceId);
        text += info.workspaceId.toUtf8();
        text += '\n';
    }
    return text;
}

QByteArray renderTable(const QList<SandboxInfo> &rows, const QDateTime &now, int width)
{
    enum Column { Workspace, State, User, Agent, Idle, ExpiresIn, Backend, Columns };
    // The free-text columns that may be shortened to fit, and how; never the others.
    enum class Cut { Never, Middle, End };
    constexpr std::array<Cut, Columns> Cuts{Cut::Middle, Cut::Never, Cut::End,  Cut::End,
                                            Cut::Never,  Cut::Never, Cut::Never};
    constexpr int Gap = 2;

    // Every cell and its width, row after row, the headers first; each column's widest.
    std::vector<QString> cells;
    std::vector<int> cellWidths;
    cells.reserve(size_t(rows.size() + 1) * Columns);
    cellWidths.reserve(cells.capacity());
    std::array<int, Columns> widths{};
    const auto add = [&](QString text) {
        const int column = int(cells.size() % Columns);
        const int cellWidth = displayWidth(text);
        widths[column] = std::max(widths[column], cellWidth);
        cells.push_back(std::move(text));
        cellWidths.push_back(cellWidth);
    };
    for (const QString &header : {Tr::tr("WORKSPACE"), Tr::tr("STATE"), Tr::tr("USER"), Tr::tr("AGENT"), Tr::tr("IDLE"),
                                  Tr::tr("EXPIRES IN"), Tr::tr("BACKEND")})
        add(header);
    // A header is never cut: it is the narrowest its column gets.
    std::array<int, Columns> narrowest = widths;

    const qint64 nowMs = now.toMSecsSinceEpoch();
    const QString none = QStringLiteral("-");
    const QString expired = Tr::tr("expired");
    const QString stopped = Tr::tr("stopped", "the expiry timer of a paused sandbox");
    for (const SandboxInfo &info : rows) {
        add(printable(info.workspaceId));
        add(printable(info.rawState.isEmpty() ? sandboxStateName(info.state) : info.rawState));
        add(printable(info.userId));
        add(printable(info.agentId));
        const IdleSince idle = idleSince(info);
        add(idle.isKnown() ? formatDuration(std::chrono::seconds(secondsBetween(idle.since, nowMs))) : none);
        if (info.expiresAt && info.expiresAt->isValid()) {
            const qint64 left = -secondsBetween(*info.expiresAt, nowMs);
            add(left > 0 ? formatDuration(std::chrono::seconds(left)) : expired);
        } else {
            add(!info.expiresAt && info.pausedAt.isValid() ? stopped : none);
        }
        add(printable(info.backend));
    }

    // Too wide: the widest column that may be cut loses a cell, until the lines fit or every
    // such column is down to its header.
    if (width > 0) {
        int total = Gap * (Columns - 1);
        for (const int columnWidth : widths)
            total += columnWidth;
        while (total > width) {
            int widest = -1;
            for (int column = 0; column < Columns; ++column) {
                if (Cuts[column] != Cut::Never && widths[column] > narrowest[column]
                    && (widest < 0 || widths[column] > widths[widest]))
                    widest = column;
            }
            if (widest < 0)
                break;
            --widths[widest];
            --total;
        }
    }

    QString text;
    qsizetype lineLength = Gap * (Columns - 1) + 1;
    for (const int columnWidth : widths)
        lineLength += columnWidth;
    text.reserve(lineLength * (rows.size() + 1));
    for (size_t at = 0; at < cells.size(); ++at) {
        const int column = int(at % Columns);
        int cellWidth = cellWidths[at];
        if (cellWidth > widths[column]) {
            const QString cut = elided(cells[at], widths[column], Cuts[column] == Cut::Middle);
            cellWidth = displayWidth(cut);
            text += cut;
        } else {
            text += cells[at];
        }
        if (column == Columns - 1) {
            text += u'\n';
            continue;
        }
        appendSpaces(text, widths[column] - cellWidth + Gap);
    }
    return text.toUtf8();
}

int displayWidth(QStringView text)
{
    int width = 0;
    qsizetype at = 0;
    while (at < text.size()) {
        if (text[at].unicode() < 0x300) { // the usual case: no table to search
            ++width;
            ++at;
            continue;
        }
        width += codePointWidth(codePointAt(text, at));
    }
    return width;
}

QString printable(const QString &text)
{
    const auto control = [](QChar c) { return c.unicode() < 0x20 || (c.unicode() >= 0x7F && c.unicode() < 0xA0); };
    if (std::none_of(text.cbegin(), text.cend(), control))
        return text;
    QString result = text;
    std::replace_if(result.begin(), result.end(), control, QChar(QChar::ReplacementCharacter));
    return result;
}

int outputWidth()
{
    winsize size{};
    if (::isatty(STDOUT_FILENO) && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
        return size.ws_col;
    bool ok = false;
    const int columns = qEnvironmentVariableIntValue("COLUMNS", &ok);
    return ok && columns > 0 ? columns : 0;
}

} // namespace Paddock::Ctl
