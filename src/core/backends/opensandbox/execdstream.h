#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>

namespace Paddock::OpenSandbox {

// One event of execd's `POST /command` stream.
struct ExecdEvent
{
    enum class Type {
        Init, // text = the command id
        Stdout,
        Stderr,
        Ping, // keep-alive, every 3 s
        ExecutionComplete, // exit 0
        Error, // errorValue = the exit code as text, or a start failure's message
        Unknown, // a type this build does not know (rawType keeps it)
        Malformed, // a frame that is not a JSON object (text keeps it)
    };

    Type type = Type::Unknown;
    QString rawType;
    QString text;
    qint64 timestamp = 0; // unix ms
    qint64 executionTimeMs = -1;
    QString errorName;
    QString errorValue;
};

// Cuts execd's event stream into events. Frames are bare JSON objects, one per line, separated
// by blank lines; a `data:` prefix is accepted and stripped, and SSE comment and field lines
// (`:`, `event:`, `id:`, `retry:`) are skipped, as the official SDKs do. Bytes may be split
// anywhere across feed() calls.
class ExecdStreamParser
{
public:
    QList<ExecdEvent> feed(const QByteArray &bytes);
    QList<ExecdEvent> finish(); // the stream ended: a last line without its newline counts

private:
    std::optional<ExecdEvent> parseLine(QByteArray line) const;
    QByteArray m_pending;
};

// The command's exit code from its terminal events, as the SDKs read it: the error's value
// when there is an error, 0 after execution_complete, -1 when neither arrived (unknown).
int execdExitCode(const QList<ExecdEvent> &events);

} // namespace Paddock::OpenSandbox
