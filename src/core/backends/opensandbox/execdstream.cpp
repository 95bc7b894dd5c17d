#include "execdstream.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <array>

namespace Paddock::OpenSandbox {

namespace {

constexpr std::array<std::pair<const char *, ExecdEvent::Type>, 6> Types{{
    {"init", ExecdEvent::Type::Init},
    {"stdout", ExecdEvent::Type::Stdout},
    {"stderr", ExecdEvent::Type::Stderr},
    {"ping", ExecdEvent::Type::Ping},
    {"execution_complete", ExecdEvent::Type::ExecutionComplete},
    {"error", ExecdEvent::Type::Error},
}};

} // namespace

QList<ExecdEvent> ExecdStreamParser::feed(const QByteArray &bytes)
{
    m_pending += bytes;
    QList<ExecdEvent> events;
    qsizetype start = 0;
    for (qsizetype newline = m_pending.indexOf('\n'); newline >= 0; newline = m_pending.indexOf('\n', start)) {
        if (auto event = parseLine(m_pending.sliced(start, newline - start)))
            events.append(std::move(*event));
        start = newline + 1;
    }
    m_pending.remove(0, start);
    return events;
}

QList<ExecdEvent> ExecdStreamParser::finish()
{
    QList<ExecdEvent> events;
    if (auto event = parseLine(std::exchange(m_pending, {})))
        events.append(std::move(*event));
    return events;
}

std::optional<ExecdEvent> ExecdStreamParser::parseLine(QByteArray line) const
{
    if (line.endsWith('\r'))
        line.chop(1);
    line = line.trimmed();
    if (line.isEmpty() || line.startsWith(':') || line.startsWith("event:") || line.startsWith("id:")
        || line.startsWith("retry:"))
        return std::nullopt;
    if (line.startsWith("data:"))
        line = line.mid(5).trimmed();
    if (line.isEmpty())
        return std::nullopt;

    ExecdEvent event;
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(line, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject()) {
        event.type = ExecdEvent::Type::Malformed;
        event.text = QString::fromUtf8(line);
        return event;
    }
    const QJsonObject json = document.object();
    event.rawType = json.value(QLatin1String("type")).toString();
    for (const auto &[name, type] : Types) {
        if (event.rawType == QLatin1String(name))
            event.type = type;
    }
    event.text = json.value(QLatin1String("text")).toString();
    event.timestamp = json.value(QLatin1String("timestamp")).toInteger();
    event.executionTimeMs = json.value(QLatin1String("execution_time")).toInteger(-1);
    const QJsonObject failure = json.value(QLatin1String("error")).toObject();
    event.errorName = failure.value(QLatin1String("ename")).toString();
    const QJsonValue value = failure.value(QLatin1String("evalue"));
    event.errorValue = value.isDouble() ? QString::number(value.toInteger()) : value.toString();
    return event;
}

int execdExitCode(const QList<ExecdEvent> &events)
{
    for (const ExecdEvent &event : events) {
        if (event.type == ExecdEvent::Type::Error) {
            bool ok = false;
            const int code = event.errorValue.trimmed().toInt(&ok);
            return ok ? code : -1;
        }
    }
    for (const ExecdEvent &event : events) {
        if (event.type == ExecdEvent::Type::ExecutionComplete)
            return 0;
    }
    return -1;
}

} // namespace Paddock::OpenSandbox
