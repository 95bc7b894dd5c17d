// The cluster's controllers, simulated: the scheduler (one node, `node-1`), the kubelet (image
// pulls, the container as a bubblewrap sandbox running the container's command, restarts,
// graceful deletion), the PVC binder and the pvc-protection controller. Every change is a new
// resourceVersion and a watch event.

#include "fakekubernetes.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QRegularExpression>
#include <QSet>

using namespace Qt::StringLiterals;

namespace PaddockFake::Kube {

namespace {

enum Stage { StageNone, StageCreating, StagePull, StagePullBackOff, StageCrashBackOff };

constexpr int MaxBackoffMs = 300'000;
constexpr std::size_t MaxLogLines = 100'000;
const QString NodeName = u"node-1"_s;
const QString HostIp = u"10.0.0.5"_s;

const QJsonObject &nodeLabels()
{
    static const QJsonObject labels{{u"kubernetes.io/hostname"_s, NodeName},
                                    {u"kubernetes.io/os"_s, u"linux"_s},
                                    {u"kubernetes.io/arch"_s, u"amd64"_s},
                                    {u"beta.kubernetes.io/os"_s, u"linux"_s},
                                    {u"beta.kubernetes.io/arch"_s, u"amd64"_s}};
    return labels;
}

QString nowTime()
{
    return formatTime(QDateTime::currentMSecsSinceEpoch());
}

QString notHelpful(const QString &why)
{
    return u"0/1 nodes are available: %1. preemption: 0/1 nodes are available: 1 Preemption is not helpful for "
           "scheduling."_s.arg(why);
}

// docker.io/library/python:3.11-slim for python:3.11-slim, as the kubelet reports images.
QString normalizeImage(const QString &image)
{
    QString name = image;
    const qsizetype slash = name.indexOf(u'/');
    const QString first = slash < 0 ? QString() : name.left(slash);
    const bool hasDomain = slash >= 0 && (first.contains(u'.') || first.contains(u':') || first == u"localhost"_s);
    if (!hasDomain)
        name = u"docker.io/"_s + (slash < 0 ? u"library/"_s : QString()) + name;
    const QString last = name.section(u'/', -1);
    if (!last.contains(u':') && !name.contains(u'@'))
        name += u":latest"_s;
    return name;
}

// Why the kubelet could not parse `image` (InvalidImageName), or empty.
QString invalidImageReason(const QString &image)
{
    static const QRegularExpression reference(
        u"^([A-Za-z0-9.-]+(:[0-9]+)?/)?[a-z0-9]+([._-]+[a-z0-9]+)*(/[a-z0-9]+([._-]+[a-z0-9]+)*)*(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@sha256:[a-f0-9]{64})?$"_s);
    if (reference.match(image).hasMatch())
        return {};
    QString detail = u"invalid reference format"_s;
    const QString repository = image.section(u':', 0, 0);
    if (repository != repository.toLower())
        detail += u": repository name (%1) must be lowercase"_s.arg(repository);
    return u"Failed to apply default image tag \"%1\": couldn't parse image name \"%1\": %2"_s.arg(image, detail);
}

QString fakeDigest(const QString &seed)
{
    return QString::fromLatin1(QCryptographicHash::hash(seed.toUtf8(), QCryptographicHash::Sha256).toHex());
}

QJsonObject condition(const QString &type, bool status, const QString &reason = {}, const QString &message = {})
{
    QJsonObject object{{u"type"_s, type},
                       {u"status"_s, status ? u"True"_s : u"False"_s},
                       {u"lastProbeTime"_s, QJsonValue::Null},
                       {u"lastTransitionTime"_s, nowTime()}};
    if (!reason.isEmpty())
        object.insert(u"reason"_s, reason);
    if (!message.isEmpty())
        object.insert(u"message"_s, message);
    return object;
}

QJsonArray containerNames(const QJsonObject &pod)
{
    QJsonArray names;
    for (const QJsonValue &container : pod.value(u"spec"_s).toObject().value(u"containers"_s).toArray())
        names.append(container.toObject().value(u"name"_s));
    return names;
}

QString unreadyMessage(const QJsonObject &pod)
{
    QStringList names;
    for (const QJsonValue &name : containerNames(pod))
        names.append(name.toString());
    return u"containers with unready status: ["_s + names.join(u' ') + u"]"_s;
}

// Every container of the Pod gets `state` (the Pod's containers share one sandbox here).
QJsonArray containerStatuses(const QJsonObject &pod, const QJsonObject &state, bool ready, int restarts,
                             const QJsonObject &lastState, const QString &containerId)
{
    QJsonArray statuses;
    for (const QJsonValue &value : pod.value(u"spec"_s).toObject().value(u"containers"_s).toArray()) {
        const QJsonObject container = value.toObject();
        const QString image = container.value(u"image"_s).toString();
        QJsonObject status{{u"name"_s, container.value(u"name"_s)},
                           {u"state"_s, state},
                           {u"lastState"_s, lastState},
                           {u"ready"_s, ready},
                           {u"restartCount"_s, restarts},
                           {u"image"_s, state.contains(u"waiting"_s) ? image : normalizeImage(image)},
                           {u"imageID"_s,
                            state.contains(u"waiting"_s)
                                ? QString()
                                : normalizeImage(image).section(u':', 0, -2) + u"@sha256:"_s + fakeDigest(image)},
                           {u"started"_s, state.contains(u"running"_s)}};
        if (!containerId.isEmpty())
            status.insert(u"containerID"_s, containerId);
        statuses.append(status);
    }
    return statuses;
}

void setStatus(QJsonObject &pod, const QJsonObject &status)
{
    pod.insert(u"status"_s, status);
}

} // namespace

bool FakeKubernetes::imageKnown(const QString &image) const
{
    if (m_options.images)
        return m_options.images->contains(image) || m_options.images->contains(normalizeImage(image));
    return !image.endsWith(u":missing"_s);
}

QJsonObject FakeKubernetes::runningStatus(const QJsonObject &pod, qint64 startedMs, int restarts,
                                          const QJsonObject &lastState)
{
    const QJsonObject old = pod.value(u"status"_s).toObject();
    const int index = m_nextPodIp++;
    const QString podIp = old.value(u"podIP"_s).toString().isEmpty()
        ? u"10.244.%1.%2"_s.arg(index / 250).arg(index % 250 + 2)
        : old.value(u"podIP"_s).toString();
    const QString uid = pod.value(u"metadata"_s).toObject().value(u"uid"_s).toString();
    const QJsonObject state{{u"running"_s, QJsonObject{{u"startedAt"_s, formatTime(startedMs)}}}};
    return QJsonObject{
        {u"phase"_s, u"Running"_s},
        {u"conditions"_s,
         QJsonArray{condition(u"PodReadyToStartContainers"_s, true), condition(u"Initialized"_s, true),
                    condition(u"Ready"_s, true), condition(u"ContainersReady"_s, true),
                    condition(u"PodScheduled"_s, true)}},
        {u"hostIP"_s, HostIp},
        {u"hostIPs"_s, QJsonArray{QJsonObject{{u"ip"_s, HostIp}}}},
        {u"podIP"_s, podIp},
        {u"podIPs"_s, QJsonArray{QJsonObject{{u"ip"_s, podIp}}}},
        {u"startTime"_s,
         old.value(u"startTime"_s).toString().isEmpty() ? formatTime(startedMs) : old.value(u"startTime"_s).toString()},
        {u"containerStatuses"_s,
         containerStatuses(pod, state, true, restarts, lastState,
                           u"containerd://"_s + fakeDigest(uid + QString::number(restarts)))},
        {u"qosClass"_s, old.value(u"qosClass"_s).toString(u"BestEffort"_s)}};
}

void FakeKubernetes::schedule(const QString &key)
{
    Entry *entry = table(Kind::Pod).count(key) ? &table(Kind::Pod)[key] : nullptr;
    if (!entry || !entry->pod || entry->pod->frozen || entry->pod->scheduled)
        return;
    const Version &version = *entry->current;
    const QJsonObject &pod = version.object;
    if (pod.value(u"metadata"_s).toObject().contains(u"deletionTimestamp"_s))
        return;
    const QJsonObject spec = pod.value(u"spec"_s).toObject();
    QString why;
    const QJsonObject selector = spec.value(u"nodeSelector"_s).toObject();
    for (auto it = selector.begin(); it != selector.end() && why.isEmpty(); ++it) {
        if (nodeLabels().value(it.key()) != it.value())
            why = u"1 node(s) didn't match Pod's node affinity/selector"_s;
    }
    for (const QJsonValue &volume : spec.value(u"volumes"_s).toArray()) {
        if (!why.isEmpty())
            break;
        const QString claim =
            volume.toObject().value(u"persistentVolumeClaim"_s).toObject().value(u"claimName"_s).toString();
        if (claim.isEmpty())
            continue;
        const Entry *pvc = find(Kind::Pvc, version.ns, claim);
        if (!pvc)
            why = u"persistentvolumeclaim \"%1\" not found"_s.arg(claim);
        else if (pvc->current->object.value(u"metadata"_s).toObject().contains(u"deletionTimestamp"_s))
            why = u"persistentvolumeclaim \"%1\" is being deleted"_s.arg(claim);
        else if (pvc->current->object.value(u"status"_s).toObject().value(u"phase"_s).toString() != u"Bound"_s)
            why = u"pod has unbound immediate PersistentVolumeClaims"_s;
    }
    if (!why.isEmpty()) {
        const QString message = notHelpful(why);
        const QJsonArray conditions = pod.value(u"status"_s).toObject().value(u"conditions"_s).toArray();
        if (conditions.size() == 1 && conditions.at(0).toObject().value(u"message"_s).toString() == message)
            return;
        modify(Kind::Pod, version.ns, version.name, [&](QJsonObject &object) {
            QJsonObject status = object.value(u"status"_s).toObject();
            status.insert(u"conditions"_s,
                          QJsonArray{condition(u"PodScheduled"_s, false, u"Unschedulable"_s, message)});
            setStatus(object, status);
        });
        return;
    }
    entry->pod->scheduled = true;
    modify(Kind::Pod, version.ns, version.name, [&](QJsonObject &object) {
        QJsonObject newSpec = object.value(u"spec"_s).toObject();
        if (newSpec.value(u"nodeName"_s).toString().isEmpty())
            newSpec.insert(u"nodeName"_s, NodeName);
        object.insert(u"spec"_s, newSpec);
        QJsonObject status = object.value(u"status"_s).toObject();
        status.insert(u"conditions"_s, QJsonArray{condition(u"PodScheduled"_s, true)});
        setStatus(object, status);
    });
    entry = find(Kind::Pod, version.ns, version.name);
    entry->pod->stage = StageCreating;
    entry->pod->kubelet.start(0);
}

void FakeKubernetes::setWaiting(const QString &key, const QString &reason, const QString &message)
{
    const Entry *entry = table(Kind::Pod).count(key) ? &table(Kind::Pod)[key] : nullptr;
    if (!entry)
        return;
    const PodState *state = entry->pod;
    modify(Kind::Pod, entry->current->ns, entry->current->name, [&](QJsonObject &object) {
        QJsonObject status = object.value(u"status"_s).toObject();
        QJsonObject waiting{{u"reason"_s, reason}};
        if (!message.isEmpty())
            waiting.insert(u"message"_s, message);
        const QJsonArray old = status.value(u"containerStatuses"_s).toArray();
        const QJsonObject lastState =
            old.isEmpty() ? QJsonObject() : old.at(0).toObject().value(u"lastState"_s).toObject();
        status.insert(u"containerStatuses"_s,
                      containerStatuses(object, QJsonObject{{u"waiting"_s, waiting}}, false,
                                        state ? state->restarts : 0, lastState, QString()));
        const QString unready = unreadyMessage(object);
        const bool started = state && state->containerStarted;
        status.insert(u"conditions"_s,
                      QJsonArray{condition(u"PodReadyToStartContainers"_s, started), condition(u"Initialized"_s, true),
                                 condition(u"Ready"_s, false, u"ContainersNotReady"_s, unready),
                                 condition(u"ContainersReady"_s, false, u"ContainersNotReady"_s, unready),
                                 condition(u"PodScheduled"_s, true)});
        if (!status.contains(u"hostIP"_s)) {
            status.insert(u"hostIP"_s, HostIp);
            status.insert(u"hostIPs"_s, QJsonArray{QJsonObject{{u"ip"_s, HostIp}}});
        }
        if (!status.contains(u"startTime"_s))
            status.insert(u"startTime"_s, nowTime());
        setStatus(object, status);
    });
}

void FakeKubernetes::kubeletStep(const QString &key)
{
    Entry *entry = table(Kind::Pod).count(key) ? &table(Kind::Pod)[key] : nullptr;
    if (!entry || !entry->pod || entry->pod->frozen)
        return;
    PodState *pod = entry->pod;
    const QJsonObject object = entry->current->object;
    if (object.value(u"metadata"_s).toObject().contains(u"deletionTimestamp"_s))
        return;
    const QJsonArray containers = object.value(u"spec"_s).toObject().value(u"containers"_s).toArray();
    const QString image = containers.at(0).toObject().value(u"image"_s).toString();
    switch (pod->stage) {
    case StageCreating: {
        const QString invalidImage = invalidImageReason(image);
        if (!invalidImage.isEmpty()) {
            setWaiting(key, u"InvalidImageName"_s, invalidImage);
            pod->stage = StageNone;
            return;
        }
        setWaiting(key, u"ContainerCreating"_s, {});
        pod->stage = StagePull;
        pod->kubelet.start(std::max(0, m_options.podStartMs));
        return;
    }
    case StagePull:
        if (!imageKnown(image)) {
            const QString ref = normalizeImage(image);
            ++pod->pullFailures;
            setWaiting(key, u"ErrImagePull"_s,
                       u"rpc error: code = NotFound desc = failed to pull and unpack image \"%1\": failed to resolve "
                       "reference \"%1\": %1: not found"_s.arg(ref));
            pod->stage = StagePullBackOff;
            pod->kubelet.start(std::max(0, std::min(m_options.podStartMs, m_options.pullBackoffMs)));
            return;
        }
        startContainer(key);
        return;
    case StagePullBackOff: {
        setWaiting(key, u"ImagePullBackOff"_s, u"Back-off pulling image \"%1\""_s.arg(image));
        pod->stage = StagePull;
        const qint64 backoff = qint64(m_options.pullBackoffMs) << std::min(pod->pullFailures - 1, 16);
        pod->kubelet.start(static_cast<int>(std::min<qint64>(backoff, MaxBackoffMs)));
        return;
    }
    case StageCrashBackOff:
        startContainer(key);
        return;
    default:
        return;
    }
}

QList<SandboxBind> FakeKubernetes::podBinds(const Version &pod, PodState *state) const
{
    QList<SandboxBind> binds{{state->dir + u"/root"_s, u"/root"_s}, {state->dir + u"/tmp"_s, u"/tmp"_s}};
    const QJsonObject spec = pod.object.value(u"spec"_s).toObject();
    QHash<QString, QJsonObject> volumes;
    for (const QJsonValue &volume : spec.value(u"volumes"_s).toArray())
        volumes.insert(volume.toObject().value(u"name"_s).toString(), volume.toObject());
    const QJsonObject container = spec.value(u"containers"_s).toArray().at(0).toObject();
    for (const QJsonValue &value : container.value(u"volumeMounts"_s).toArray()) {
        const QJsonObject mount = value.toObject();
        const QJsonObject volume = volumes.value(mount.value(u"name"_s).toString());
        const QString path = QDir::cleanPath(mount.value(u"mountPath"_s).toString());
        if (volume.contains(u"persistentVolumeClaim"_s)) {
            const QString claim = volume.value(u"persistentVolumeClaim"_s).toObject().value(u"claimName"_s).toString();
            auto &pvcs = const_cast<FakeKubernetes *>(this)->table(Kind::Pvc);
            const auto it = pvcs.find(pod.ns + u'/' + claim);
            if (it != pvcs.end() && !it->second.volumeDir.isEmpty()) {
                // subPath: a folder of the volume (made when missing, as the kubelet does).
                const QString subPath = QDir::cleanPath(mount.value(u"subPath"_s).toString());
                QString host = it->second.volumeDir;
                if (!subPath.isEmpty() && subPath != u"."_s && !subPath.startsWith(u".."_s)
                    && !subPath.startsWith(u'/')) {
                    host += u'/' + subPath;
                    QDir().mkpath(host);
                }
                binds.append({host, path});
            }
        } else if (volume.contains(u"emptyDir"_s)) {
            binds.append({state->dir + u"/volumes/"_s + volume.value(u"name"_s).toString(), path});
        }
    }
    return binds;
}

QString FakeKubernetes::hostPathIn(const Version &pod, PodState *state, const QString &path) const
{
    const QString clean = QDir::cleanPath(path);
    QString best;
    QString host;
    for (const SandboxBind &bind : podBinds(pod, state)) {
        if ((clean == bind.sandboxPath || clean.startsWith(bind.sandboxPath + u'/'))
            && bind.sandboxPath.size() >= best.size()) {
            best = bind.sandboxPath;
            host = bind.hostPath + clean.mid(bind.sandboxPath.size());
        }
    }
    if (!host.isEmpty())
        return host;
    for (const QString &shared : {u"/usr"_s, u"/bin"_s, u"/sbin"_s, u"/lib"_s, u"/lib64"_s, u"/lib32"_s, u"/etc"_s}) {
        if (clean == shared || clean.startsWith(shared + u'/'))
            return clean;
    }
    return {};
}

EnvList FakeKubernetes::containerEnv(const Version &pod) const
{
    EnvList env{{u"PATH"_s, SandboxSearchPath}, {u"HOSTNAME"_s, pod.name}, {u"HOME"_s, u"/root"_s}};
    const QJsonObject container =
        pod.object.value(u"spec"_s).toObject().value(u"containers"_s).toArray().at(0).toObject();
    for (const QJsonValue &value : container.value(u"env"_s).toArray()) {
        const QJsonObject variable = value.toObject();
        if (variable.contains(u"value"_s) || !variable.contains(u"valueFrom"_s))
            env.append({variable.value(u"name"_s).toString(), variable.value(u"value"_s).toString()});
    }
    return env;
}

QString FakeKubernetes::containerWorkingDir(const Version &pod, PodState *state) const
{
    const QString dir = pod.object.value(u"spec"_s)
                            .toObject()
                            .value(u"containers"_s)
                            .toArray()
                            .at(0)
                            .toObject()
                            .value(u"workingDir"_s)
                            .toString();
    if (dir.isEmpty())
        return u"/"_s;
    const QString host = hostPathIn(pod, state, dir);
    if (host.isEmpty())
        return u"/"_s; // a container runtime would make it in the image's file system; there is none here
    QDir().mkpath(host);
    return QFileInfo(host).isDir() ? QDir::cleanPath(dir) : u"/"_s;
}

bool FakeKubernetes::executableExists(const Version &pod, PodState *state, const QString &program,
                                      const QString &cwd) const
{
    const auto runnable = [&](const QString &path) {
        const QString host = hostPathIn(pod, state, path);
        const QFileInfo info(host);
        return !host.isEmpty() && info.isFile() && info.isExecutable();
    };
    if (program.contains(u'/'))
        return runnable(program.startsWith(u'/') ? program : cwd + u'/' + program);
    for (const QString &dir : QString(SandboxSearchPath).split(u':')) {
        if (runnable(dir + u'/' + program))
            return true;
    }
    return false;
}

bool FakeKubernetes::ensureContainer(const QString &key, QString *error)
{
    Entry *entry = table(Kind::Pod).count(key) ? &table(Kind::Pod)[key] : nullptr;
    if (!entry || !entry->pod)
        return false;
    PodState *pod = entry->pod;
    if ((pod->sandbox && pod->sandbox->isRunning()) || (pod->process && pod->process->state() == QProcess::Running))
        return true;
    const Version &version = *entry->current;
    for (const SandboxBind &bind : podBinds(version, pod)) {
        if (bind.hostPath.startsWith(pod->dir))
            QDir().mkpath(bind.hostPath);
    }
    const QJsonObject container =
        version.object.value(u"spec"_s).toObject().value(u"containers"_s).toArray().at(0).toObject();
    QStringList argv;
    for (const QJsonValue &value : container.value(u"command"_s).toArray())
        argv.append(value.toString());
    for (const QJsonValue &value : container.value(u"args"_s).toArray())
        argv.append(value.toString());
    if (argv.isEmpty())
        argv = {u"sleep"_s, u"infinity"_s}; // there is no image to give an entrypoint
    const QString cwd = containerWorkingDir(version, pod);
    if (!executableExists(version, pod, argv.first(), cwd)) {
        *error = u"failed to create containerd task: failed to create shim task: OCI runtime create failed: runc "
                 "create failed: unable to start container process: exec: \"%1\": executable file not found in "
                 "$PATH: unknown"_s.arg(argv.first());
        return false;
    }
    pod->sandbox.reset();
    pod->process.reset();
    QProcess *process = nullptr;
    const QString name = version.name;
    if (!m_bubblewrapPath.isEmpty()) {
        SandboxSpec spec;
        spec.binds = podBinds(version, pod);
        spec.env = containerEnv(version);
        spec.cwd = cwd;
        spec.hostname = name.left(63);
        pod->sandbox = std::make_unique<PersistentSandbox>(m_bubblewrapPath, spec);
        connect(pod->sandbox.get(), &PersistentSandbox::ended, pod, [this, key](int exitCode, QProcess::ExitStatus) {
            QTimer::singleShot(0, this, [this, key, exitCode] { containerExited(key, exitCode); });
        });
        if (!pod->sandbox->start(argv, error))
            return false;
        process = pod->sandbox->process();
    } else {
        pod->process = std::make_unique<QProcess>();
        process = pod->process.get();
        QProcessEnvironment environment;
        for (const auto &[variable, value] : containerEnv(version))
            environment.insert(variable, value);
        environment.insert(u"HOME"_s, pod->dir + u"/root"_s);
        environment.insert(u"TMPDIR"_s, pod->dir + u"/tmp"_s);
        process->setProcessEnvironment(environment);
        process->setProgram(argv.first());
        process->setArguments(argv.mid(1));
        process->setWorkingDirectory(hostPathIn(version, pod, cwd).isEmpty() ? pod->dir
                                                                             : hostPathIn(version, pod, cwd));
        process->setStandardInputFile(QProcess::nullDevice());
        runInOwnProcessGroup(*process);
        connect(process, &QProcess::finished, pod, [this, key](int exitCode, QProcess::ExitStatus status) {
            const int code = status == QProcess::NormalExit ? exitCode : 137;
            QTimer::singleShot(0, this, [this, key, code] { containerExited(key, code); });
        });
        process->start();
        if (!process->waitForStarted(30'000)) {
            *error = process->errorString();
            return false;
        }
    }
    connect(process, &QProcess::readyReadStandardOutput, pod,
            [this, pod, process] { containerOutput(pod, 0, process->readAllStandardOutput()); });
    connect(process, &QProcess::readyReadStandardError, pod,
            [this, pod, process] { containerOutput(pod, 1, process->readAllStandardError()); });
    pod->containerStarted = true;
    pod->containerStartedMs = QDateTime::currentMSecsSinceEpoch();
    return true;
}

void FakeKubernetes::startContainer(const QString &key)
{
    Entry *entry = table(Kind::Pod).count(key) ? &table(Kind::Pod)[key] : nullptr;
    if (!entry || !entry->pod)
        return;
    PodState *pod = entry->pod;
    QString error;
    if (!ensureContainer(key, &error)) {
        containerExited(key, 128, u"StartError"_s, error);
        return;
    }
    pod->stage = StageNone;
    const QJsonArray old = entry->current->object.value(u"status"_s).toObject().value(u"containerStatuses"_s).toArray();
    const QJsonObject lastState = old.isEmpty() ? QJsonObject() : old.at(0).toObject().value(u"lastState"_s).toObject();
    const qint64 started = pod->containerStartedMs;
    const int restarts = pod->restarts;
    modify(Kind::Pod, entry->current->ns, entry->current->name,
           [&](QJsonObject &object) { setStatus(object, runningStatus(object, started, restarts, lastState)); });
}

void FakeKubernetes::containerOutput(PodState *pod, int stream, const QByteArray &data)
{
    QByteArray &partial = pod->partial[stream];
    partial += data;
    qsizetype newline;
    while ((newline = partial.indexOf('\n')) >= 0) {
        appendLog(pod, stream == 1, partial.left(newline));
        partial.remove(0, newline + 1);
    }
}

void FakeKubernetes::appendLog(PodState *pod, bool stderr, const QByteArray &line)
{
    LogLine entry{nowNs(), stderr, pod->restarts, line};
    for (LogFollower &follower : pod->followers) {
        if (!follower.connection)
            continue;
        QByteArray text = (follower.timestamps ? formatLogTime(entry.ns) + ' ' : QByteArray()) + line + '\n';
        if (follower.remainingBytes) {
            text = text.left(*follower.remainingBytes);
            *follower.remainingBytes -= text.size();
        }
        follower.connection->writeChunk(text);
        if (follower.remainingBytes && *follower.remainingBytes <= 0) {
            follower.connection->endStream();
            follower.connection = nullptr;
        }
    }
    pod->log.push_back(std::move(entry));
    if (pod->log.size() > MaxLogLines)
        pod->log.erase(pod->log.begin(), pod->log.begin() + static_cast<std::ptrdiff_t>(pod->log.size() - MaxLogLines));
}

void FakeKubernetes::endFollowers(PodState *pod)
{
    for (int stream = 0; stream < 2; ++stream) {
        if (!pod->partial[stream].isEmpty()) {
            const QByteArray rest = pod->partial[stream];
            pod->partial[stream].clear();
            appendLog(pod, stream == 1, rest);
        }
    }
    for (LogFollower &follower : pod->followers) {
        if (follower.connection)
            follower.connection->endStream();
    }
    pod->followers.clear();
}

void FakeKubernetes::containerExited(const QString &key, int exitCode, const QString &reason, const QString &message)
{
    Entry *entry = table(Kind::Pod).count(key) ? &table(Kind::Pod)[key] : nullptr;
    if (!entry || !entry->pod || entry->pod->frozen)
        return;
    PodState *pod = entry->pod;
    const QJsonObject object = entry->current->object;
    if (object.value(u"metadata"_s).toObject().contains(u"deletionTimestamp"_s))
        return; // its end is the deletion's
    if (pod->process)
        containerOutput(pod, 0, pod->process->readAllStandardOutput());
    endFollowers(pod);
    const QString restartPolicy = object.value(u"spec"_s).toObject().value(u"restartPolicy"_s).toString();
    const QString uid = object.value(u"metadata"_s).toObject().value(u"uid"_s).toString();
    QJsonObject terminated{
        {u"exitCode"_s, exitCode},
        {u"reason"_s,
         !reason.isEmpty()   ? reason
             : exitCode == 0 ? u"Completed"_s
                             : u"Error"_s},
        {u"startedAt"_s, formatTime(pod->containerStartedMs)},
        {u"finishedAt"_s, nowTime()},
        {u"containerID"_s, QString(u"containerd://"_s + fakeDigest(uid + QString::number(pod->restarts)))}};
    if (!message.isEmpty())
        terminated.insert(u"message"_s, message);
    const bool terminal = restartPolicy == u"Never"_s || (restartPolicy == u"OnFailure"_s && exitCode == 0);
    const Version &version = *entry->current;
    if (terminal) {
        pod->stage = StageNone;
        const int restarts = pod->restarts;
        modify(Kind::Pod, version.ns, version.name, [&](QJsonObject &updated) {
            QJsonObject status = updated.value(u"status"_s).toObject();
            const QString phase = exitCode == 0 ? u"Succeeded"_s : u"Failed"_s;
            status.insert(u"phase"_s, phase);
            const QString why = phase == u"Succeeded"_s ? u"PodCompleted"_s : u"PodFailed"_s;
            status.insert(u"conditions"_s,
                          QJsonArray{condition(u"PodReadyToStartContainers"_s, false),
                                     condition(u"Initialized"_s, true), condition(u"Ready"_s, false, why),
                                     condition(u"ContainersReady"_s, false, why), condition(u"PodScheduled"_s, true)});
            status.insert(u"containerStatuses"_s,
                          containerStatuses(updated, QJsonObject{{u"terminated"_s, terminated}}, false, restarts,
                                            QJsonObject(), terminated.value(u"containerID"_s).toString()));
            setStatus(updated, status);
        });
        return;
    }
    // Restarted after a back-off, with a fresh writable layer (only volumes keep their files).
    ++pod->restarts;
    QDir(pod->dir + u"/root"_s).removeRecursively();
    QDir(pod->dir + u"/tmp"_s).removeRecursively();
    const qint64 backoff =
        std::min<qint64>(qint64(m_options.crashBackoffMs) << std::min(pod->restarts - 1, 16), MaxBackoffMs);
    const QString containerName = object.value(u"spec"_s)
                                      .toObject()
                                      .value(u"containers"_s)
                                      .toArray()
                                      .at(0)
                                      .toObject()
                                      .value(u"name"_s)
                                      .toString();
    const QString waitingMessage = u"back-off %1 restarting failed container=%2 pod=%3_%4(%5)"_s.arg(
        humanDuration(backoff), containerName, version.name, version.ns, uid);
    const int restarts = pod->restarts;
    modify(Kind::Pod, version.ns, version.name, [&](QJsonObject &updated) {
        QJsonObject status = updated.value(u"status"_s).toObject();
        if (!status.contains(u"startTime"_s))
            status.insert(u"startTime"_s, nowTime());
        const QString unready = unreadyMessage(updated);
        status.insert(u"conditions"_s,
                      QJsonArray{condition(u"PodReadyToStartContainers"_s, true), condition(u"Initialized"_s, true),
                                 condition(u"Ready"_s, false, u"ContainersNotReady"_s, unready),
                                 condition(u"ContainersReady"_s, false, u"ContainersNotReady"_s, unready),
                                 condition(u"PodScheduled"_s, true)});
        status.insert(u"containerStatuses"_s,
                      containerStatuses(updated,
                                        QJsonObject{{u"waiting"_s,
                                                     QJsonObject{{u"reason"_s, u"CrashLoopBackOff"_s},
                                                                 {u"message"_s, waitingMessage}}}},
                                        false, restarts, QJsonObject{{u"terminated"_s, terminated}},
                                        terminated.value(u"containerID"_s).toString()));
        setStatus(updated, status);
    });
    pod->stage = StageCrashBackOff;
    pod->kubelet.start(static_cast<int>(backoff));
}

void FakeKubernetes::beginPodDeletion(const QString &key, qint64 graceSeconds)
{
    Entry *entry = table(Kind::Pod).count(key) ? &table(Kind::Pod)[key] : nullptr;
    if (!entry || !entry->pod)
        return;
    PodState *pod = entry->pod;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const qint64 deadline = now + graceSeconds * 1000;
    const QJsonObject metadata = entry->current->object.value(u"metadata"_s).toObject();
    if (metadata.contains(u"deletionTimestamp"_s)) {
        // A second delete may only shorten the grace period.
        const std::optional<qint64> current = parseTimeNs(metadata.value(u"deletionTimestamp"_s).toString());
        if (current && *current / 1'000'000 <= deadline)
            return;
    }
    pod->kubelet.stop();
    modify(Kind::Pod, entry->current->ns, entry->current->name, [&](QJsonObject &object) {
        QJsonObject meta = object.value(u"metadata"_s).toObject();
        meta.insert(u"deletionTimestamp"_s, formatTime(deadline));
        meta.insert(u"deletionGracePeriodSeconds"_s, graceSeconds);
        object.insert(u"metadata"_s, meta);
    });
    const qint64 wait = std::min<qint64>(graceSeconds * 1000, std::max(0, m_options.graceMs));
    pod->removal.start(static_cast<int>(wait));
}

void FakeKubernetes::resumePod(const QString &key)
{
    Entry *entry = table(Kind::Pod).count(key) ? &table(Kind::Pod)[key] : nullptr;
    if (!entry || !entry->pod)
        return;
    PodState *pod = entry->pod;
    const QJsonObject &object = entry->current->object;
    const QJsonObject metadata = object.value(u"metadata"_s).toObject();
    if (metadata.contains(u"deletionTimestamp"_s)) {
        // The grace period goes on: what is left of it, at most --grace-ms.
        const std::optional<qint64> deadline = parseTimeNs(metadata.value(u"deletionTimestamp"_s).toString());
        const qint64 left = deadline ? *deadline / 1'000'000 - QDateTime::currentMSecsSinceEpoch() : 0;
        pod->removal.start(static_cast<int>(std::clamp<qint64>(left, 0, std::max(0, m_options.graceMs))));
        return;
    }
    const QJsonObject status = object.value(u"status"_s).toObject();
    const QString phase = status.value(u"phase"_s).toString();
    if (pod->frozen || phase == u"Succeeded"_s || phase == u"Failed"_s)
        return;
    if (!pod->scheduled) {
        QTimer::singleShot(0, pod, [this, key] { schedule(key); });
        return;
    }
    const QJsonObject state =
        status.value(u"containerStatuses"_s).toArray().at(0).toObject().value(u"state"_s).toObject();
    if (state.contains(u"running"_s)) {
        // Its container ended with the last run (with every command in it): it runs again in
        // place, on the same folders, and the Pod stays Running. One that never ran (a seeded
        // Pod never exec'd) starts at its first exec, as before.
        if (pod->containerStarted) {
            QTimer::singleShot(0, pod, [this, key] {
                QString error;
                if (!ensureContainer(key, &error))
                    containerExited(key, 128, u"StartError"_s, error);
            });
        }
        return;
    }
    const QString reason = state.value(u"waiting"_s).toObject().value(u"reason"_s).toString();
    if (reason == u"InvalidImageName"_s)
        return; // it stays so
    if (reason == u"CrashLoopBackOff"_s) {
        pod->stage = StageCrashBackOff;
        pod->kubelet.start(static_cast<int>(std::min<qint64>(
            qint64(m_options.crashBackoffMs) << std::min(std::max(pod->restarts, 1) - 1, 16), MaxBackoffMs)));
        return;
    }
    // Being created, pulling its image, or in the pull's back-off: the kubelet starts over.
    pod->stage = StageCreating;
    pod->kubelet.start(0);
}

void FakeKubernetes::destroyPodState(PodState *pod, bool removeFiles)
{
    pod->kubelet.stop();
    pod->removal.stop();
    endFollowers(pod);
    if (pod->sandbox)
        pod->sandbox->kill();
    if (pod->process && pod->process->state() != QProcess::NotRunning) {
        pod->process->disconnect();
        killProcessGroup(pod->process->processId());
        pod->process->waitForFinished(2000);
    }
    for (const QPointer<QObject> &session : std::as_const(pod->execs)) {
        if (session)
            killExec(session);
    }
    if (removeFiles)
        QDir(pod->dir).removeRecursively();
    pod->deleteLater();
}

void FakeKubernetes::finishPodDeletion(const QString &key)
{
    Entry *entry = table(Kind::Pod).count(key) ? &table(Kind::Pod)[key] : nullptr;
    if (!entry)
        return;
    const QString ns = entry->current->ns;
    const QString name = entry->current->name;
    if (entry->pod) {
        PodState *pod = entry->pod;
        entry->pod = nullptr;
        destroyPodState(pod);
    }
    remove(Kind::Pod, ns, name);
    releasePvcs(ns);
}

void FakeKubernetes::bindPvc(const QString &key)
{
    auto &pvcs = table(Kind::Pvc);
    const auto it = pvcs.find(key);
    if (it == pvcs.end())
        return;
    Entry &entry = it->second;
    const QJsonObject &object = entry.current->object;
    if (object.value(u"metadata"_s).toObject().contains(u"deletionTimestamp"_s))
        return;
    const QJsonObject spec = object.value(u"spec"_s).toObject();
    // Only a class with a provisioner gets a volume (a PVC of another class, or of "", stays Pending).
    if (!m_options.storageClasses.contains(spec.value(u"storageClassName"_s).toString()))
        return;
    const QString uid = object.value(u"metadata"_s).toObject().value(u"uid"_s).toString();
    entry.volumeDir = m_dataDir + u"/volumes/pvc-"_s + uid;
    QDir().mkpath(entry.volumeDir);
    const QString ns = entry.current->ns;
    modify(Kind::Pvc, ns, entry.current->name, [&](QJsonObject &pvc) {
        QJsonObject meta = pvc.value(u"metadata"_s).toObject();
        QJsonObject annotations = meta.value(u"annotations"_s).toObject();
        annotations.insert(u"pv.kubernetes.io/bind-completed"_s, u"yes"_s);
        annotations.insert(u"pv.kubernetes.io/bound-by-controller"_s, u"yes"_s);
        annotations.insert(u"volume.kubernetes.io/storage-provisioner"_s, u"paddock.invalid/fake"_s);
        meta.insert(u"annotations"_s, annotations);
        pvc.insert(u"metadata"_s, meta);
        QJsonObject newSpec = pvc.value(u"spec"_s).toObject();
        newSpec.insert(u"volumeName"_s, QString(u"pvc-"_s + uid));
        pvc.insert(u"spec"_s, newSpec);
        pvc.insert(
            u"status"_s,
            QJsonObject{
                {u"phase"_s, u"Bound"_s},
                {u"accessModes"_s, newSpec.value(u"accessModes"_s)},
                {u"capacity"_s,
                 QJsonObject{
                     {u"storage"_s,
                      newSpec.value(u"resources"_s).toObject().value(u"requests"_s).toObject().value(u"storage"_s)}}}});
    });
    rescheduleWaiting(ns);
}

void FakeKubernetes::rescheduleWaiting(const QString &ns)
{
    QStringList keys;
    for (const auto &[key, entry] : table(Kind::Pod)) {
        if (entry.current->ns == ns && entry.pod && !entry.pod->scheduled && !entry.pod->frozen)
            keys.append(key);
    }
    for (const QString &key : std::as_const(keys))
        schedule(key);
}

void FakeKubernetes::releasePvcs(const QString &ns)
{
    QSet<QString> used;
    for (const auto &[key, entry] : table(Kind::Pod)) {
        if (entry.current->ns != ns)
            continue;
        const QJsonObject &pod = entry.current->object;
        const QString phase = pod.value(u"status"_s).toObject().value(u"phase"_s).toString();
        if (phase == u"Succeeded"_s || phase == u"Failed"_s)
            continue;
        for (const QJsonValue &volume : pod.value(u"spec"_s).toObject().value(u"volumes"_s).toArray()) {
            const QString claim =
                volume.toObject().value(u"persistentVolumeClaim"_s).toObject().value(u"claimName"_s).toString();
            if (!claim.isEmpty())
                used.insert(claim);
        }
    }
    QStringList released;
    for (const auto &[key, entry] : table(Kind::Pvc)) {
        const QJsonObject metadata = entry.current->object.value(u"metadata"_s).toObject();
        if (entry.current->ns == ns && metadata.contains(u"deletionTimestamp"_s) && !used.contains(entry.current->name))
            released.append(entry.current->name);
    }
    for (const QString &name : std::as_const(released)) {
        Entry *entry = find(Kind::Pvc, ns, name);
        QJsonObject object = entry->current->object;
        QJsonObject metadata = object.value(u"metadata"_s).toObject();
        QJsonArray finalizers = metadata.value(u"finalizers"_s).toArray();
        for (qsizetype i = finalizers.size() - 1; i >= 0; --i) {
            if (finalizers.at(i).toString() == u"kubernetes.io/pvc-protection"_s)
                finalizers.removeAt(i);
        }
        metadata.insert(u"finalizers"_s, finalizers);
        if (finalizers.isEmpty())
            metadata.remove(u"finalizers"_s);
        object.insert(u"metadata"_s, metadata);
        const QString dir = entry->volumeDir;
        if (entry->timer)
            entry->timer->deleteLater();
        if (!finalizers.isEmpty()) {
            commit(Kind::Pvc, ns, name, object, WatchEvent::Modified);
            continue;
        }
        // The update that takes the last finalizer off deletes the object: one DELETED event.
        commit(Kind::Pvc, ns, name, object, WatchEvent::Deleted);
        if (!dir.isEmpty())
            QDir(dir).removeRecursively(); // reclaim policy Delete
    }
}

} // namespace PaddockFake::Kube
