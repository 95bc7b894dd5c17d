// What a Kubernetes exec connection receives (src/core/backends/kubernetes/podexec.h): binary
// messages whose first byte is the channel (1 stdout, 2 stderr, 3 the exit status, anything else
// ignored; shorter than two bytes: the server's "ready"), each cut from the input by a two-byte
// length, handled as PodExecClient's run does, and the Status bodies of channel 3
// (Kubernetes::ExecStatusReader, Kubernetes::decodeExecStatus). Whether the status comes in one
// message or in pieces, it is what decodeExecStatus makes of the pieces so far; an exit code is
// 0-255, and one other than 0 comes only from a NonZeroExitCode Failure; the output of each
// stream is its messages' bytes in order. The whole input is a Status body too.
#include "backends/kubernetes/podexec.h"
#include "linesplitter.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace Paddock;
using namespace Paddock::Kubernetes;

namespace {

bool same(const Result<int> &a, const Result<int> &b)
{
    if (a.has_value() != b.has_value())
        return false;
    if (a)
        return *a == *b;
    return a.error().message == b.error().message && a.error().httpStatus == b.error().httpStatus;
}

void checkStatus(const Result<int> &status, const QByteArray &body)
{
    if (!status)
        return;
    if (*status < 0 || *status > 255)
        std::abort();
    const QJsonObject object = QJsonDocument::fromJson(body).object();
    const QString state = object.value(QLatin1String("status")).toString();
    if (*status == 0 && state != QLatin1String("Success")
        && object.value(QLatin1String("reason")).toString() != QLatin1String("NonZeroExitCode"))
        std::abort();
    if (*status != 0
        && (state != QLatin1String("Failure")
            || object.value(QLatin1String("reason")).toString() != QLatin1String("NonZeroExitCode")))
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray input(reinterpret_cast<const char *>(data), qsizetype(size));
    checkStatus(decodeExecStatus(input), input);

    QByteArray out[2];
    QByteArray lines[2];
    // LineSplitter keeps a reference to its callback.
    const std::function<void(OutputChannel, const QByteArray &)> onLine = [&lines](OutputChannel channel,
                                                                                   const QByteArray &line) {
        lines[channel == OutputChannel::Stderr ? 1 : 0] += line + '\n';
    };
    QByteArray kept[2];
    LineSplitter stdoutLines(OutputChannel::Stdout, onLine, kept[0]);
    LineSplitter stderrLines(OutputChannel::Stderr, onLine, kept[1]);
    ExecStatusReader reader;
    QByteArray statusBytes;
    std::optional<Result<int>> status;
    qsizetype at = 0;
    while (at + 2 <= input.size() && !status) {
        const qsizetype length = qsizetype(uchar(input.at(at))) | (qsizetype(uchar(input.at(at + 1))) << 8);
        at += 2;
        const QByteArray message = input.mid(at, length);
        at += message.size();
        if (message.size() < 2)
            continue;
        const QByteArray piece = message.mid(1);
        switch (message.at(0)) {
        case 1:
            out[0] += piece;
            stdoutLines.feed(piece);
            break;
        case 2:
            out[1] += piece;
            stderrLines.feed(piece);
            break;
        case 3:
            statusBytes += piece;
            status = reader.add(piece);
            if (status) {
                if (!QJsonDocument::fromJson(statusBytes).isObject() || !same(*status, decodeExecStatus(statusBytes)))
                    std::abort();
                checkStatus(*status, statusBytes);
            } else if (QJsonDocument::fromJson(statusBytes).isObject()) {
                std::abort();
            }
            break;
        default:
            break;
        }
    }
    stdoutLines.finish();
    stderrLines.finish();
    if (reader.isEmpty() != statusBytes.isEmpty())
        std::abort();
    if (!status && !reader.isEmpty()) {
        const Result<int> last = reader.decode();
        if (!same(last, decodeExecStatus(statusBytes)))
            std::abort();
        checkStatus(last, statusBytes);
    }
    // Each stream's lines are its bytes (a line's last \r and cut long lines aside: fuzz_linesplitter).
    for (int i = 0; i < 2; ++i) {
        if (!out[i].contains('\r') && out[i].size() < LineSplitter::MaxLine) {
            QByteArray expected = out[i];
            if (!expected.isEmpty() && !expected.endsWith('\n'))
                expected += '\n';
            if (lines[i] != expected)
                std::abort();
        }
    }
    return 0;
}
