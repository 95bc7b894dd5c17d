// Stored log lines (src/core/bootstraplog.h, logview.h): the bytes as one line of a bootstrap
// log, read by LogLine::parse and by the viewer (splitLogLine, decodeLogLine, searchText), and
// as the first bytes of a longer line (decodeLogLine with more bytes than read). A line that
// LogLine::parse reads with a time serializes to a line that reads the same; where the viewer
// finds the three parts, LogLine::parse finds the same; the text shown has no NUL (shown as ^@,
// flagged) and is flagged as not UTF-8 exactly when its bytes are not; with a line longer than
// what was read, no half character is shown and every byte not shown is counted as hidden.
#include "bootstraplog.h"
#include "logview.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace Paddock;

namespace {

// UTF-8 as RFC 3629 has it: no overlong forms, no surrogates, nothing past U+10FFFF.
bool validUtf8(QByteArrayView bytes)
{
    for (qsizetype i = 0; i < bytes.size();) {
        const uchar c = uchar(bytes.at(i));
        if (c < 0x80) {
            ++i;
            continue;
        }
        qsizetype length = 0;
        uint point = 0;
        if (c >= 0xC2 && c <= 0xDF) {
            length = 2;
            point = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            length = 3;
            point = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            length = 4;
            point = c & 0x07;
        } else {
            return false;
        }
        if (i + length > bytes.size())
            return false;
        for (qsizetype k = 1; k < length; ++k) {
            const uchar next = uchar(bytes.at(i + k));
            if ((next & 0xC0) != 0x80)
                return false;
            point = (point << 6) | (next & 0x3F);
        }
        if ((length == 3 && point < 0x800) || (length == 4 && (point < 0x10000 || point > 0x10FFFF))
            || (point >= 0xD800 && point <= 0xDFFF))
            return false;
        i += length;
    }
    return true;
}

void checkShown(const DisplayLine &shown, QByteArrayView text)
{
    if (shown.text.contains(QChar(0)) || shown.hasNul != text.contains('\0'))
        std::abort();
    if (shown.invalidUtf8 == validUtf8(text))
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray line(reinterpret_cast<const char *>(data), qsizetype(size));

    const LogLine parsed = LogLine::parse(line);
    const QDateTime utc = parsed.time.toUTC();
    if (parsed.time.isValid() && utc.date().year() >= 1 && utc.date().year() <= 9999) {
        const LogLine again = LogLine::parse(parsed.serialize());
        if (again.time != parsed.time || again.kind != parsed.kind || again.text != parsed.text)
            std::abort();
    }

    const LogLineView view = splitLogLine(line);
    if (view.structured) {
        const qsizetype firstSpace = line.indexOf(' ');
        if (view.time != QByteArrayView(line).first(firstSpace))
            std::abort();
        if (line.indexOf(' ', firstSpace + 1) >= 0 && (parsed.kind != view.kind || parsed.text != view.text))
            std::abort();
    } else if (view.text != line || view.kind != LogLine::Kind::Stdout) {
        std::abort();
    }

    const DisplayLine whole = decodeLogLine(line, line.size());
    if (whole.hiddenBytes != 0 || whole.kind != view.kind || (whole.time.isValid() && whole.time.timeSpec() != Qt::UTC))
        std::abort();
    checkShown(whole, view.text);
    if (searchText(line) != whole.text)
        std::abort();

    // The line as the first bytes of one 100 bytes longer: what is shown is a prefix of the text
    // read, ending where a character ends, and the rest is counted.
    const DisplayLine cut = decodeLogLine(line, line.size() + 100);
    if (cut.hiddenBytes < 100 || cut.hiddenBytes > 100 + view.text.size())
        std::abort();
    const QByteArrayView shownText = view.text.first(view.text.size() - (cut.hiddenBytes - 100));
    checkShown(cut, shownText);
    // Only a character cut off by the end of the read is hidden: a lead byte and fewer
    // continuation bytes than it announces.
    const QByteArrayView tail = view.text.last(cut.hiddenBytes - 100);
    if (!tail.isEmpty()) {
        const uchar lead = uchar(tail.at(0));
        const qsizetype length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
        if (lead < 0xC0 || tail.size() >= length)
            std::abort();
        for (qsizetype i = 1; i < tail.size(); ++i) {
            if ((uchar(tail.at(i)) & 0xC0) != 0x80)
                std::abort();
        }
    }
    return 0;
}
