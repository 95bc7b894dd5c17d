// pods/log: the container's output (what its command writes, plus lines a test adds through
// /_fake/pods/<ns>/<name>/log), with tailLines, timestamps, sinceSeconds/sinceTime, limitBytes,
// previous, and follow (a chunked stream that ends when the container stops or the Pod goes).

#include "fakekubernetes.h"

#include <QJsonArray>

using namespace Qt::StringLiterals;

namespace PaddockFake::Kube {

namespace {

QString firstQueryValue(const HttpRequest &request, const QString &name)
{
    for (const auto &[key, value] : request.queryItems()) {
        if (key == name)
            return value;
    }
    return {};
}

bool hasQuery(const HttpRequest &request, const QString &name)
{
    for (const auto &[key, value] : request.queryItems()) {
        if (key == name)
            return true;
    }
    return false;
}

} // namespace

void FakeKubernetes::controlLog(const QString &ns, const QString &name, bool stderr, const QByteArray &body)
{
    Entry *entry = find(Kind::Pod, ns, name);
    if (!entry || !entry->pod)
        return;
    QList<QByteArray> lines = body.split('\n');
    if (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    for (const QByteArray &line : std::as_const(lines))
        appendLog(entry->pod, stderr, line);
}

void FakeKubernetes::logs(HttpConnection *connection, const HttpRequest &request, const QString &ns,
                          const QString &name)
{
    Entry *entry = find(Kind::Pod, ns, name);
    if (!entry || !entry->pod)
        return connection->send(notFound(u"pods"_s, name).response());
    const Version &version = *entry->current;
    PodState *pod = entry->pod;
    const QString container = firstQueryValue(request, u"container"_s);
    if (std::optional<StatusError> refusal = containerCheck(version, container, false))
        return connection->send(refusal->response());

    QList<StatusCause> causes;
    const auto integer = [&](const QString &field, qint64 minimum, const QString &rule) -> std::optional<qint64> {
        if (!hasQuery(request, field))
            return std::nullopt;
        bool ok = false;
        const qint64 value = firstQueryValue(request, field).toLongLong(&ok);
        if (!ok || value < minimum) {
            causes.append(invalidCause(field, firstQueryValue(request, field), rule));
            return std::nullopt;
        }
        return value;
    };
    const std::optional<qint64> tailLines = integer(u"tailLines"_s, 0, u"must be greater than or equal to 0"_s);
    const std::optional<qint64> limitBytes = integer(u"limitBytes"_s, 1, u"must be greater than 0"_s);
    const std::optional<qint64> sinceSeconds = integer(u"sinceSeconds"_s, 1, u"must be greater than 0"_s);
    std::optional<qint64> sinceNs;
    if (hasQuery(request, u"sinceTime"_s)) {
        sinceNs = parseTimeNs(firstQueryValue(request, u"sinceTime"_s));
        if (!sinceNs)
            return connection->send(
                badRequest(u"parsing time \"%1\" as \"2006-01-02T15:04:05Z07:00\": cannot parse"_s.arg(
                               firstQueryValue(request, u"sinceTime"_s)))
                    .response());
        if (hasQuery(request, u"sinceSeconds"_s)) {
            causes.append({u"FieldValueForbidden"_s,
                           u"Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified"_s, QString()});
        }
    }
    if (!causes.isEmpty())
        return connection->send(invalid(u"PodLogOptions"_s, name, causes).response());
    if (sinceSeconds)
        sinceNs = nowNs() - *sinceSeconds * 1'000'000'000;

    const QJsonObject state = version.object.value(u"status"_s)
                                  .toObject()
                                  .value(u"containerStatuses"_s)
                                  .toArray()
                                  .at(0)
                                  .toObject()
                                  .value(u"state"_s)
                                  .toObject();
    const QString containerName = container.isEmpty() ? version.object.value(u"spec"_s)
                                                            .toObject()
                                                            .value(u"containers"_s)
                                                            .toArray()
                                                            .at(0)
                                                            .toObject()
                                                            .value(u"name"_s)
                                                            .toString()
                                                      : container;
    const bool previous = queryBool(request, u"previous"_s);
    if (previous && pod->restarts == 0) {
        return connection->send(
            badRequest(u"previous terminated container \"%1\" in pod \"%2\" not found"_s.arg(containerName, name))
                .response());
    }
    const QString waiting = state.value(u"waiting"_s).toObject().value(u"reason"_s).toString();
    if (!previous && !waiting.isEmpty() && (waiting != u"CrashLoopBackOff"_s || pod->log.empty())) {
        QString why = waiting;
        if (waiting == u"ErrImagePull"_s)
            why = u"image can't be pulled"_s;
        else if (waiting == u"ImagePullBackOff"_s)
            why = u"trying and failing to pull image"_s;
        if (waiting != u"CrashLoopBackOff"_s) {
            return connection->send(
                badRequest(u"container \"%1\" in pod \"%2\" is waiting to start: %3"_s.arg(containerName, name, why))
                    .response());
        }
    }

    const int run = previous ? pod->restarts - 1 : pod->restarts;
    std::vector<const LogLine *> lines;
    for (const LogLine &line : pod->log) {
        if (line.run == run && (!sinceNs || line.ns >= *sinceNs))
            lines.push_back(&line);
    }
    if (tailLines && static_cast<qint64>(lines.size()) > *tailLines)
        lines.erase(lines.begin(), lines.end() - *tailLines);
    const bool timestamps = queryBool(request, u"timestamps"_s);
    QByteArray body;
    for (const LogLine *line : lines)
        body += (timestamps ? formatLogTime(line->ns) + ' ' : QByteArray()) + line->text + '\n';
    if (limitBytes)
        body = body.left(*limitBytes);

    const QString phase = version.object.value(u"status"_s).toObject().value(u"phase"_s).toString();
    const bool running = state.contains(u"running"_s) && !previous;
    if (!queryBool(request, u"follow"_s) || !running || phase == u"Succeeded"_s || phase == u"Failed"_s)
        return connection->send(HttpResponse::text(200, body, "text/plain"));
    connection->startStream(200, {{"Content-Type", "text/plain"}});
    connection->writeChunk(body);
    if (limitBytes && body.size() >= *limitBytes)
        return connection->endStream();
    LogFollower follower;
    follower.connection = connection;
    follower.timestamps = timestamps;
    if (limitBytes)
        follower.remainingBytes = *limitBytes - body.size();
    pod->followers.erase(std::remove_if(pod->followers.begin(), pod->followers.end(),
                                        [](const LogFollower &f) { return f.connection.isNull(); }),
                         pod->followers.end());
    pod->followers.push_back(follower);
}

} // namespace PaddockFake::Kube
