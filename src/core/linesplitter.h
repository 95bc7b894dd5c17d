#pragma once

#include "sandbox.h"

#include <QByteArray>

#include <functional>
#include <utility>

namespace Paddock {

// Cuts one output stream into lines as bytes arrive (a line split across reads is joined
// first, a trailing \r is dropped) and keeps the stream's last MaxKeptOutput bytes for the
// ExecResult. Every backend's exec() uses it, so every backend reports lines the same way.
// `onData` (ExecRequest::onData) gets every piece as it is fed, before its lines.
// A line longer than MaxLine (output that never writes a newline: a progress bar, `tr -d '\n'`)
// is passed on in pieces of at most MaxLine bytes, cut between UTF-8 characters: nothing is lost,
// and what is held waiting for a newline never grows past MaxLine.
class LineSplitter
{
public:
    static constexpr qsizetype MaxKeptOutput = 1 << 20;
    static constexpr qsizetype MaxLine = 256 * 1024;

    LineSplitter(OutputChannel channel, const std::function<void(OutputChannel, const QByteArray &)> &onLine,
                 QByteArray &kept, std::function<void(OutputChannel, const QByteArray &)> onData = {})
        : m_channel(channel)
        , m_onLine(onLine)
        , m_onData(std::move(onData))
        , m_kept(kept)
    {
    }

    void feed(const QByteArray &bytes)
    {
        if (m_onData && !bytes.isEmpty())
            m_onData(m_channel, bytes);
        m_kept += bytes;
        if (m_kept.size() > 2 * MaxKeptOutput)
            m_kept = m_kept.right(MaxKeptOutput);
        if (!m_onLine)
            return;
        // Only the new bytes are searched: what is pending holds no newline.
        qsizetype from = m_pending.size();
        m_pending += bytes;
        qsizetype start = 0;
        for (;;) {
            const qsizetype newline = m_pending.indexOf('\n', from);
            if (newline >= 0 && newline - start <= MaxLine) {
                emitLine(m_pending.sliced(start, newline - start));
                start = newline + 1;
                from = start;
                continue;
            }
            if ((newline < 0 ? m_pending.size() : newline) - start <= MaxLine)
                break;
            // Longer than a line may be: a piece of it, cut before a UTF-8 continuation byte.
            qsizetype cut = start + MaxLine;
            for (int back = 0; back < 3 && (quint8(m_pending.at(cut)) & 0xC0) == 0x80; ++back)
                --cut;
            if ((quint8(m_pending.at(cut)) & 0xC0) == 0x80)
                cut = start + MaxLine; // not UTF-8: cut where the limit is
            emitLine(m_pending.sliced(start, cut - start), false);
            start = cut;
            from = start;
        }
        m_pending.remove(0, start);
    }

    // The stream ended: a last line without its newline still counts.
    void finish()
    {
        if (m_onLine && !m_pending.isEmpty())
            emitLine(std::exchange(m_pending, {}));
        if (m_kept.size() > MaxKeptOutput)
            m_kept = m_kept.right(MaxKeptOutput);
    }

private:
    void emitLine(QByteArray line, bool whole = true)
    {
        if (whole && line.endsWith('\r'))
            line.chop(1);
        m_onLine(m_channel, line);
    }

    OutputChannel m_channel;
    const std::function<void(OutputChannel, const QByteArray &)> &m_onLine;
    std::function<void(OutputChannel, const QByteArray &)> m_onData;
    QByteArray &m_kept;
    QByteArray m_pending;
};

} // namespace Paddock
