// What the engine sends, read without any I/O (declared in dockerclient.h): its containers
// listed and inspected, a log's body, the multiplexed stream of an exec, its times.
#include "dockerclient.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace Paddock::Docker {

namespace {

QMap<QString, QString> labelsOf(const QJsonValue &value)
{
    QMap<QString, QString> labels;
    const QJsonObject object = value.toObject();
    for (auto it = object.begin(); it != object.end(); ++it)
        labels.insert(it.key(), it.value().toString());
    return labels;
}

// "Mounts" of a listing or an inspection: [{"Source": ..., "Destination": ...}, ...].
QMap<QString, QString> mountsOf(const QJsonValue &value)
{
    QMap<QString, QString> mounts;
    for (const QJsonValue &mount : value.toArray()) {
        const QJsonObject object = mount.toObject();
        mounts.insert(object.value(QLatin1String("Destination")).toString(),
                      object.value(QLatin1String("Source")).toString());
    }
    return mounts;
}

// The engine writes "0001-01-01T00:00:00Z" for a time that never was.
QDateTime engineTime(const QJsonValue &value)
{
    const QDateTime time = parseDockerTime(value.toString());
    return time.isValid() && time.date().year() > 1 ? time : QDateTime();
}

// State, RestartCount, the limits of HostConfig and the networks' addresses of an inspection.
// Config (its Env above all) is not read here.
ContainerInfo::Inspected inspectedOf(const QJsonObject &object)
{
    ContainerInfo::Inspected inspected;
    const QJsonObject state = object.value(QLatin1String("State")).toObject();
    inspected.error = state.value(QLatin1String("Error")).toString();
    inspected.exitCode = state.value(QLatin1String("ExitCode")).toInt();
    inspected.oomKilled = state.value(QLatin1String("OOMKilled")).toBool();
    inspected.startedAt = engineTime(state.value(QLatin1String("StartedAt")));
    inspected.finishedAt = engineTime(state.value(QLatin1String("FinishedAt")));
    inspected.restartCount = object.value(QLatin1String("RestartCount")).toInt();
    const QJsonObject host = object.value(QLatin1String("HostConfig")).toObject();
    inspected.nanoCpus = host.value(QLatin1String("NanoCpus")).toInteger();
    inspected.cpuQuota = host.value(QLatin1String("CpuQuota")).toInteger();
    inspected.cpuPeriod = host.value(QLatin1String("CpuPeriod")).toInteger();
    inspected.memory = host.value(QLatin1String("Memory")).toInteger();
    inspected.pidsLimit = host.value(QLatin1String("PidsLimit")).toInteger();
    inspected.networkMode = host.value(QLatin1String("NetworkMode")).toString();
    const QJsonObject networks =
        object.value(QLatin1String("NetworkSettings")).toObject().value(QLatin1String("Networks")).toObject();
    for (auto it = networks.begin(); it != networks.end(); ++it) {
        const QJsonObject network = it.value().toObject();
        for (const char *key : {"IPAddress", "GlobalIPv6Address"}) {
            const QString address = network.value(QLatin1String(key)).toString();
            if (!address.isEmpty())
                inspected.addresses.append({it.key(), address});
        }
    }
    return inspected;
}

} // namespace

QDateTime parseDockerTime(const QString &text)
{
    // Qt reads at most milliseconds: cut the nanoseconds down before parsing.
    static const QRegularExpression fraction(QStringLiteral("\\.(\\d{3})\\d*"));
    QString cut = text;
    cut.replace(fraction, QStringLiteral(".\\1"));
    QDateTime time = QDateTime::fromString(cut, Qt::ISODateWithMs);
    return time.isValid() ? time.toUTC() : QDateTime();
}

void StreamDemuxer::feed(QByteArrayView chunk)
{
    m_pending.append(chunk.data(), chunk.size());
    qsizetype at = 0;
    while (m_pending.size() - at >= 8) {
        const auto *header = reinterpret_cast<const unsigned char *>(m_pending.constData() + at);
        const quint32 size =
            (quint32(header[4]) << 24) | (quint32(header[5]) << 16) | (quint32(header[6]) << 8) | quint32(header[7]);
        if (m_pending.size() - at - 8 < qsizetype(size))
            break;
        // 0 is stdin (never sent back); 1 stdout; 2 stderr.
        const OutputChannel channel = header[0] == 2 ? OutputChannel::Stderr : OutputChannel::Stdout;
        if (size > 0)
            m_sink(channel, QByteArrayView(m_pending.constData() + at + 8, qsizetype(size)));
        at += 8 + qsizetype(size);
    }
    m_pending.remove(0, at);
}

QList<ContainerInfo> parseContainerList(const QByteArray &json)
{
    QList<ContainerInfo> containers;
    const QJsonArray array = QJsonDocument::fromJson(json).array();
    for (const QJsonValue &value : array) {
        const QJsonObject object = value.toObject();
        ContainerInfo info;
        info.id = object.value(QLatin1String("Id")).toString();
        const QString name = object.value(QLatin1String("Names")).toArray().at(0).toString();
        info.name = name.startsWith(u'/') ? name.mid(1) : name;
        info.image = object.value(QLatin1String("Image")).toString();
        info.status = object.value(QLatin1String("State")).toString();
        info.labels = labelsOf(object.value(QLatin1String("Labels")));
        info.created = QDateTime::fromSecsSinceEpoch(object.value(QLatin1String("Created")).toInteger(), Qt::UTC);
        info.mounts = mountsOf(object.value(QLatin1String("Mounts")));
        containers.append(info);
    }
    return containers;
}

ContainerInfo parseContainerInspect(const QByteArray &json)
{
    const QJsonObject object = QJsonDocument::fromJson(json).object();
    const QJsonObject config = object.value(QLatin1String("Config")).toObject();
    ContainerInfo info;
    info.id = object.value(QLatin1String("Id")).toString();
    const QString name = object.value(QLatin1String("Name")).toString();
    info.name = name.startsWith(u'/') ? name.mid(1) : name;
    info.image = config.value(QLatin1String("Image")).toString();
    info.status = object.value(QLatin1String("State")).toObject().value(QLatin1String("Status")).toString();
    info.labels = labelsOf(config.value(QLatin1String("Labels")));
    info.created = parseDockerTime(object.value(QLatin1String("Created")).toString());
    for (const QJsonValue &bind :
         object.value(QLatin1String("HostConfig")).toObject().value(QLatin1String("Binds")).toArray())
        info.binds.append(bind.toString());
    info.mounts = mountsOf(object.value(QLatin1String("Mounts")));
    info.inspected = inspectedOf(object);
    return info;
}

QByteArray logText(const QByteArray &contentType, const QByteArray &body)
{
    // A container without a terminal answers in frames; one with a terminal, as plain text.
    if (contentType.contains("vnd.docker.raw-stream") || contentType.contains("multiplexed")
        || (body.size() >= 8 && (body.at(0) == 1 || body.at(0) == 2) && body.at(1) == 0 && body.at(2) == 0
            && body.at(3) == 0)) {
        QByteArray text;
        StreamDemuxer demuxer(
            [&text](OutputChannel, QByteArrayView bytes) { text.append(bytes.data(), bytes.size()); });
        demuxer.feed(body);
        return text;
    }
    return body;
}

} // namespace Paddock::Docker
