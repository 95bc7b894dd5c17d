// The state kept across a restart when the server was given a data folder (--data-dir):
// <data-dir>/state.json holds every namespace, Pod and PVC as the API serves it (its
// resourceVersion included), the resourceVersion counter, what the kubelet knows of a Pod that is
// not in the object (a test froze it; its container had started), the next Pod IP and the state
// of the name generator. It is written whole (QSaveFile: a new file renamed over the old one)
// after every change, before the change is answered or reaches a watch, so whatever a client
// was told survives a SIGKILL. Read at start; then the kubelet takes every Pod up where the last
// run left it (kubelet.cpp, resumePod) and the PVC controller every PVC.

#include "fakekubernetes.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <QSet>

#include <sstream>

using namespace Qt::StringLiterals;

namespace PaddockFake::Kube {

namespace {

constexpr int StateFormat = 1;

} // namespace

QString FakeKubernetes::statePath() const
{
    return m_dataDir + u"/state.json"_s;
}

void FakeKubernetes::persist()
{
    if (!m_persist)
        return;
    qsizetype size = 8192;
    for (const auto &objects : m_objects) {
        for (const auto &[key, entry] : objects)
            size += entry.current->json.size() + 80;
    }
    QByteArray out;
    out.reserve(size);
    out += R"({"format":)" + QByteArray::number(StateFormat) + R"(,"resourceVersion":")" + QByteArray::number(m_rv)
        + R"(","nextPodIp":)" + QByteArray::number(m_nextPodIp) + R"(,"names":)";
    std::ostringstream names;
    names << m_names;
    appendJsonString(out, QString::fromStdString(names.str()));
    out += R"(,"objects":[)";
    bool first = true;
    for (int index = 0; index < 3; ++index) {
        const QByteArray kind = kindName(static_cast<Kind>(index)).toLatin1();
        for (const auto &[key, entry] : m_objects[index]) {
            if (!first)
                out += ",\n";
            first = false;
            out += R"({"kind":")" + kind + '"';
            if (entry.pod && entry.pod->frozen)
                out += R"(,"frozen":true)";
            if (entry.pod && entry.pod->containerStarted)
                out += R"(,"containerStarted":true)";
            out += R"(,"object":)" + entry.current->json + '}';
        }
    }
    out += "]}\n";
    QSaveFile file(statePath());
    if (!file.open(QIODevice::WriteOnly) || file.write(out) != out.size() || !file.commit())
        qWarning("cannot write %s: %s", qPrintable(file.fileName()), qPrintable(file.errorString()));
}

bool FakeKubernetes::loadState(QString *error)
{
    QFile file(statePath());
    if (!file.exists())
        return true;
    if (!file.open(QIODevice::ReadOnly)) {
        *error = u"cannot read %1: %2"_s.arg(file.fileName(), file.errorString());
        return false;
    }
    QJsonParseError parseError{};
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &parseError);
    const QJsonObject state = document.object();
    if (parseError.error != QJsonParseError::NoError || state.value(u"format"_s).toInt() != StateFormat) {
        *error = u"%1 is not a state this server wrote (%2); remove it, or start with another --data-dir"_s.arg(
            file.fileName(),
            parseError.error != QJsonParseError::NoError ? parseError.errorString() : u"no \"format\": 1"_s);
        return false;
    }
    quint64 rv = state.value(u"resourceVersion"_s).toString().toULongLong();
    m_nextPodIp = state.value(u"nextPodIp"_s).toInt(m_nextPodIp);
    std::istringstream names(state.value(u"names"_s).toString().toStdString());
    std::mt19937 restored;
    if (names >> restored)
        m_names = restored;
    for (const QJsonValue &value : state.value(u"objects"_s).toArray()) {
        const QJsonObject saved = value.toObject();
        const QString kindText = saved.value(u"kind"_s).toString();
        Kind kind = Kind::Pod;
        if (kindText == kindName(Kind::Namespace))
            kind = Kind::Namespace;
        else if (kindText == kindName(Kind::Pvc))
            kind = Kind::Pvc;
        else if (kindText != kindName(Kind::Pod))
            continue;
        QJsonObject object = saved.value(u"object"_s).toObject();
        const QJsonObject metadata = object.value(u"metadata"_s).toObject();
        auto version = std::make_shared<Version>();
        version->kind = kind;
        version->name = metadata.value(u"name"_s).toString();
        version->ns = kind == Kind::Namespace ? QString() : metadata.value(u"namespace"_s).toString();
        version->key = kind == Kind::Namespace ? version->name : version->ns + u'/' + version->name;
        version->rv = metadata.value(u"resourceVersion"_s).toString().toULongLong();
        if (version->name.isEmpty() || version->rv == 0)
            continue;
        version->json = writeJson(object);
        version->object = std::move(object);
        rv = std::max(rv, version->rv);
        Entry &entry = table(kind)[version->key];
        entry.current = version;
        const QJsonObject &loaded = version->object;
        const QString uid = metadata.value(u"uid"_s).toString();
        if (kind == Kind::Pod) {
            PodState *pod = addPodState(version->key, uid);
            entry.pod = pod;
            const QJsonObject status = loaded.value(u"status"_s).toObject();
            const QJsonObject container = status.value(u"containerStatuses"_s).toArray().at(0).toObject();
            pod->scheduled = !loaded.value(u"spec"_s).toObject().value(u"nodeName"_s).toString().isEmpty();
            pod->frozen = saved.value(u"frozen"_s).toBool();
            pod->containerStarted = saved.value(u"containerStarted"_s).toBool();
            pod->restarts = container.value(u"restartCount"_s).toInt();
            const std::optional<qint64> started = parseTimeNs(
                container.value(u"state"_s).toObject().value(u"running"_s).toObject().value(u"startedAt"_s).toString());
            pod->containerStartedMs = started ? *started / 1'000'000 : 0;
        } else if (kind == Kind::Pvc
                   && loaded.value(u"status"_s).toObject().value(u"phase"_s).toString() == u"Bound"_s) {
            entry.volumeDir = m_dataDir + u"/volumes/pvc-"_s + uid;
        }
    }
    m_rv = rv;
    for (quint64 &generation : m_generation)
        ++generation;
    m_loaded = true;
    return true;
}

void FakeKubernetes::resumeLoaded()
{
    QStringList pods;
    for (const auto &[key, entry] : table(Kind::Pod))
        pods.append(key);
    for (const QString &key : std::as_const(pods))
        resumePod(key);
    QSet<QString> releasing;
    for (auto &[key, entry] : table(Kind::Pvc)) {
        const QJsonObject &object = entry.current->object;
        if (object.value(u"metadata"_s).toObject().contains(u"deletionTimestamp"_s)) {
            releasing.insert(entry.current->ns);
        } else if (entry.volumeDir.isEmpty()) {
            // Not bound yet: the binder takes it up again.
            const QString pvcKey = key;
            entry.timer = new QTimer(this);
            entry.timer->setSingleShot(true);
            connect(entry.timer, &QTimer::timeout, this, [this, pvcKey] { bindPvc(pvcKey); });
            entry.timer->start(std::max(0, m_options.pvcBindMs));
        }
    }
    for (const QString &ns : std::as_const(releasing))
        QTimer::singleShot(0, this, [this, ns] { releasePvcs(ns); });
}

} // namespace PaddockFake::Kube
