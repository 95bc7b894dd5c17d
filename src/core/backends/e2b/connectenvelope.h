#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>

namespace Paddock::E2B {

// Connect RPC's envelopes (reference §4.3): flags (1 byte), length (uint32 big-endian), payload.
// Flags 0x00 a message, 0x02 the end of the stream; 0x01 (compressed) is never asked for, so a
// server that sends it breaks the protocol.
struct Envelope
{
    quint8 flags = 0;
    QByteArray payload;

    static constexpr quint8 Compressed = 0x01;
    static constexpr quint8 EndStream = 0x02;
    bool isEnd() const { return flags & EndStream; }
};

// One envelope as the request body of a server stream.
inline QByteArray envelope(const QByteArray &payload, quint8 flags = 0)
{
    QByteArray out;
    out.reserve(payload.size() + 5);
    const auto length = quint32(payload.size());
    out.append(char(flags));
    out.append(char((length >> 24) & 0xff));
    out.append(char((length >> 16) & 0xff));
    out.append(char((length >> 8) & 0xff));
    out.append(char(length & 0xff));
    out.append(payload);
    return out;
}

// Cuts a stream's body into envelopes as bytes arrive, in pieces cut anywhere (a header split
// over two reads, several envelopes in one). Bytes after the end-stream envelope, a compressed
// envelope or one longer than MaxPayload make it fail for good.
class EnvelopeParser
{
public:
    static constexpr quint32 MaxPayload = 16u * 1024 * 1024; // envd's data chunks are 32 KiB

    // The envelopes completed by these bytes; false (and nothing more, ever) on a broken stream.
    bool feed(QByteArrayView bytes, QList<Envelope> &out)
    {
        if (m_failed)
            return false;
        m_buffer.append(bytes.data(), bytes.size());
        qsizetype at = 0;
        while (m_buffer.size() - at >= 5) {
            if (m_ended)
                return fail();
            const auto *data = reinterpret_cast<const uchar *>(m_buffer.constData() + at);
            const quint8 flags = data[0];
            const quint32 length =
                (quint32(data[1]) << 24) | (quint32(data[2]) << 16) | (quint32(data[3]) << 8) | quint32(data[4]);
            if ((flags & Envelope::Compressed) || length > MaxPayload)
                return fail();
            if (m_buffer.size() - at - 5 < qsizetype(length))
                break;
            out.append({flags, m_buffer.mid(at + 5, qsizetype(length))});
            at += 5 + qsizetype(length);
            if (flags & Envelope::EndStream)
                m_ended = true;
        }
        m_buffer.remove(0, at);
        if (m_ended && !m_buffer.isEmpty())
            return fail();
        return true;
    }

    bool ended() const { return m_ended; }
    bool failed() const { return m_failed; }
    // Bytes of an envelope not complete yet.
    qsizetype pending() const { return m_buffer.size(); }

private:
    bool fail()
    {
        m_failed = true;
        m_buffer.clear();
        return false;
    }

    QByteArray m_buffer;
    bool m_ended = false;
    bool m_failed = false;
};

} // namespace Paddock::E2B
