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
class LineSplitter
{
public:
    static constexpr qsizetype MaxKeptOutput = 1 << 20;

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
        m_pending += bytes;
        qsizetype start = 0;
        for (qsizetype newline = m_pending.indexOf('\n'); newline >= 0; newline = m_pending.indexOf('\n', start)) {
            emitLine(m_pending.sliced(start, newline - start));
            start = newline + 1;
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
    void emitLine(QByteArray line)
    {
        if (line.endsWith('\r'))
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
