#include "logview.h"

#include "tr.h"

#include <QFile>
#include <QMetaObject>
#include <QtConcurrent>

#include <algorithm>

namespace Paddock {

namespace {

// NUL as less and vim show it: fonts rarely have U+2400 (␀).
const QString NulSymbol = QStringLiteral("^@");

bool looksLikeTime(QByteArrayView token)
{
    // 2026-11-30T11:00:00.000Z: digits, then a date separator; cheap, and parsing waits for display.
    return token.size() >= 19 && token.size() <= 40 && token.at(4) == '-' && token.at(10) == 'T'
        && std::isdigit(static_cast<unsigned char>(token.at(0)));
}

QString decodeText(QByteArrayView bytes, bool *invalid, bool *nul)
{
    QString text = QString::fromUtf8(bytes);
    // Only bad bytes decode to U+FFFD, besides a U+FFFD written as such: then the text no longer
    // encodes to the bytes (but for a leading byte order mark, which fromUtf8 drops).
    if (invalid) {
        *invalid = false;
        if (text.contains(QChar::ReplacementCharacter)) {
            const QByteArray encoded = text.toUtf8();
            *invalid = encoded != bytes && !(bytes.startsWith("\xEF\xBB\xBF") && encoded == bytes.sliced(3));
        }
    }
    if (text.contains(QChar(0))) {
        text.replace(QChar(0), NulSymbol);
        if (nul)
            *nul = true;
    }
    return text;
}

} // namespace

QString decodeForDisplay(QByteArrayView bytes, bool *invalidUtf8, bool *hasNul)
{
    return decodeText(bytes, invalidUtf8, hasNul);
}

LogLineView splitLogLine(QByteArrayView line)
{
    LogLineView view;
    view.text = line;
    const qsizetype firstSpace = line.indexOf(' ');
    if (firstSpace < 0 || !looksLikeTime(line.first(firstSpace)))
        return view;
    const qsizetype secondSpace = line.sliced(firstSpace + 1).indexOf(' ');
    const QByteArrayView tag = secondSpace < 0 ? line.sliced(firstSpace + 1) : line.sliced(firstSpace + 1, secondSpace);
    static constexpr std::pair<const char *, LogLine::Kind> Tags[] = {
        {"out", LogLine::Kind::Stdout},
        {"err", LogLine::Kind::Stderr},
        {"cmd", LogLine::Kind::Command},
        {"sys", LogLine::Kind::Status},
    };
    for (const auto &[name, kind] : Tags) {
        if (tag == QByteArrayView(name)) {
            view.time = line.first(firstSpace);
            view.kind = kind;
            view.text = secondSpace < 0 ? QByteArrayView() : line.sliced(firstSpace + 1 + secondSpace + 1);
            view.structured = true;
            return view;
        }
    }
    return view;
}

DisplayLine decodeLogLine(QByteArrayView raw, qint64 length)
{
    DisplayLine line;
    const LogLineView view = splitLogLine(raw);
    line.kind = view.kind;
    if (view.structured) {
        line.time = QDateTime::fromString(QString::fromLatin1(view.time), Qt::ISODateWithMs);
        if (line.time.isValid())
            line.time = line.time.toUTC();
    }
    QByteArrayView text = view.text;
    line.hiddenBytes = std::max<qint64>(0, length - raw.size());
    if (line.hiddenBytes > 0) {
        // Do not show half of a character where the read stopped: a lead byte followed by fewer
        // continuation bytes than it announces. A whole character there is shown.
        qsizetype end = text.size();
        qsizetype lead = end;
        for (int back = 0; back < 3 && lead > 0 && (static_cast<unsigned char>(text.at(lead - 1)) & 0xC0) == 0x80;
             ++back)
            --lead;
        if (lead > 0) {
            const auto first = static_cast<unsigned char>(text.at(lead - 1));
            const qsizetype length = first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : 2;
            if (first >= 0xC0 && end - (lead - 1) < length)
                end = lead - 1;
        }
        line.hiddenBytes += text.size() - end;
        text = text.first(end);
    }
    line.text = decodeText(text, &line.invalidUtf8, &line.hasNul);
    return line;
}

QString searchText(QByteArrayView line)
{
    return decodeText(splitLogLine(line).text, nullptr, nullptr);
}

Result<LogMatcher> LogMatcher::make(const QString &pattern, bool regex, bool caseSensitive)
{
    LogMatcher matcher;
    matcher.m_pattern = pattern;
    matcher.m_regex = regex;
    matcher.m_caseSensitive = caseSensitive;
    if (regex && !pattern.isEmpty()) {
        QRegularExpression::PatternOptions options = QRegularExpression::UseUnicodePropertiesOption;
        if (!caseSensitive)
            options |= QRegularExpression::CaseInsensitiveOption;
        matcher.m_expression = QRegularExpression(pattern, options);
        if (!matcher.m_expression.isValid()) {
            return fail(Error::invalidArgument(Tr::tr("The regular expression is not valid at character %1: %2")
                                                   .arg(matcher.m_expression.patternErrorOffset() + 1)
                                                   .arg(matcher.m_expression.errorString())));
        }
        matcher.m_expression.optimize();
    }
    return matcher;
}

bool LogMatcher::matches(QStringView text) const
{
    if (m_pattern.isEmpty())
        return false;
    if (!m_regex)
        return text.contains(m_pattern, m_caseSensitive ? Qt::CaseSensitive : Qt::CaseInsensitive);
    return m_expression.match(text).hasMatch();
}

std::vector<std::pair<qsizetype, qsizetype>> LogMatcher::ranges(QStringView text, int limit) const
{
    std::vector<std::pair<qsizetype, qsizetype>> found;
    if (m_pattern.isEmpty())
        return found;
    if (!m_regex) {
        const Qt::CaseSensitivity cs = m_caseSensitive ? Qt::CaseSensitive : Qt::CaseInsensitive;
        for (qsizetype at = text.indexOf(m_pattern, 0, cs); at >= 0 && int(found.size()) < limit;
             at = text.indexOf(m_pattern, at + m_pattern.size(), cs)) {
            found.emplace_back(at, m_pattern.size());
        }
        return found;
    }
    QRegularExpressionMatchIterator it = m_expression.globalMatch(text);
    while (it.hasNext() && int(found.size()) < limit) {
        const QRegularExpressionMatch match = it.next();
        if (match.capturedLength() > 0)
            found.emplace_back(match.capturedStart(), match.capturedLength());
    }
    return found;
}

void LogFilterRows::appendUpTo(qsizetype last)
{
    const qsizetype from = m_rows.empty() ? 0 : m_rows.back() + 1;
    for (qsizetype line = from; line <= last; ++line)
        m_rows.push_back(line);
}

qsizetype LogFilterRows::addMatches(std::span<const qsizetype> matches, qsizetype lineCount)
{
    const size_t before = m_rows.size();
    for (const qsizetype match : matches) {
        if (!m_rows.empty() && match <= m_rows.back()) {
            m_wanted = std::max(m_wanted, match + m_context);
            continue;
        }
        // What the previous match still wants after it, then this one's context before it.
        appendUpTo(std::min({m_wanted, lineCount - 1, match - 1}));
        const qsizetype first = std::max<qsizetype>(match - m_context, m_rows.empty() ? 0 : m_rows.back() + 1);
        if (m_rows.empty() || first > m_rows.back() + 1) {
            for (qsizetype line = first; line <= match; ++line)
                m_rows.push_back(line);
        } else {
            appendUpTo(match);
        }
        m_wanted = std::max(m_wanted, match + m_context);
    }
    appendUpTo(std::min(m_wanted, lineCount - 1));
    return qsizetype(m_rows.size() - before);
}

qsizetype LogFilterRows::grow(qsizetype lineCount)
{
    const size_t before = m_rows.size();
    if (!m_rows.empty())
        appendUpTo(std::min(m_wanted, lineCount - 1));
    return qsizetype(m_rows.size() - before);
}

qsizetype LogFilterRows::rowAtOrAfter(qsizetype line) const
{
    return qsizetype(std::lower_bound(m_rows.begin(), m_rows.end(), line) - m_rows.begin());
}

LogSearch::LogSearch(QObject *parent)
    : QObject(parent)
{
}

LogSearch::~LogSearch()
{
    cancel();
    for (QFuture<void> &worker : m_workers)
        worker.waitForFinished();
}

void LogSearch::cancel()
{
    if (m_cancel)
        m_cancel->store(true);
    m_cancel.reset();
    ++m_generation;
    m_running = false;
}

void LogSearch::start(const QString &path, const LogMatcher &matcher, qsizetype fromLine, qint64 fromOffset,
                      qsizetype toLine)
{
    cancel();
    if (matcher.isEmpty() || fromLine >= toLine) {
        m_running = false;
        QMetaObject::invokeMethod(
            this,
            [this, fromLine, generation = m_generation] {
                if (generation == m_generation)
                    Q_EMIT finished(fromLine);
            },
            Qt::QueuedConnection);
        return;
    }
    auto cancelled = std::make_shared<std::atomic_bool>(false);
    m_cancel = cancelled;
    m_running = true;
    const quint64 generation = m_generation;
    // Results come back as queued calls on this object. The worker only reads `this` to post
    // them; the destructor cancels the workers and waits for them (at most one chunk each).
    const auto post = [this, generation](std::vector<qsizetype> lines, qsizetype searchedTo, bool done, QString error) {
        QMetaObject::invokeMethod(
            this,
            [this, generation, lines = std::move(lines), searchedTo, done, error] {
                if (generation != m_generation)
                    return;
                if (!error.isEmpty()) {
                    m_running = false;
                    Q_EMIT failed(error);
                    return;
                }
                if (!lines.empty())
                    Q_EMIT found(lines, searchedTo);
                if (done) {
                    m_running = false;
                    Q_EMIT finished(searchedTo);
                }
            },
            Qt::QueuedConnection);
    };
    const QString pattern = matcher.pattern();
    const bool regex = matcher.isRegex();
    const bool caseSensitive = matcher.isCaseSensitive();
    std::erase_if(m_workers, [](const QFuture<void> &worker) { return worker.isFinished(); });
    m_workers.push_back(QtConcurrent::run([=] {
        // Its own matcher: the regular expression is compiled on this thread.
        const Result<LogMatcher> own = LogMatcher::make(pattern, regex, caseSensitive);
        QFile file(path);
        if (!own || !file.open(QIODevice::ReadOnly) || !file.seek(fromOffset)) {
            post({}, fromLine, true, Tr::tr("Cannot search the log: %1").arg(file.errorString()));
            return;
        }
        constexpr qint64 Chunk = 1024 * 1024;
        std::vector<qsizetype> lines;
        qsizetype line = fromLine;
        QByteArray buffer;
        QByteArray carry; // the start of a line the previous chunk did not finish
        while (line < toLine && !cancelled->load()) {
            buffer = file.read(Chunk);
            if (buffer.isEmpty())
                break;
            if (!carry.isEmpty()) {
                buffer.prepend(carry);
                carry.clear();
            }
            qsizetype start = 0;
            for (qsizetype end; line < toLine && (end = buffer.indexOf('\n', start)) >= 0; start = end + 1, ++line) {
                if (own->matches(searchText(QByteArrayView(buffer).sliced(start, end - start))))
                    lines.push_back(line);
            }
            if (line < toLine)
                carry = buffer.sliced(start);
            if (!lines.empty())
                post(std::exchange(lines, {}), line, false, {});
        }
        post(std::move(lines), line, true, {});
    }));
}

} // namespace Paddock
