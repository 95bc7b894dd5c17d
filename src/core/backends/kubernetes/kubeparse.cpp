// Reading Pods, PVCs, their lists and watch events (declared in kubeobjects.h).
//
// With simdjson's On Demand API: a listing of 10,000 Pods is 30 MB of JSON, of which Paddock
// reads a few fields per Pod. A DOM (RapidJSON's, before) builds every member of every Pod and
// cost as much CPU as the fetch itself; On Demand indexes the page's structure with SIMD and
// visits only the fields read below, so a listing costs little more than its fetch (README.md,
// Benchmarks). Every object is read field by field in the order the server wrote it, so no order
// is assumed; a value of an unexpected type reads as absent, as the DOM reading did.

#include "kubeobjects.h"

#include "../../tr.h"

#include <simdjson.h>

#include <limits>
#include <string_view>
#include <unordered_map>

namespace Paddock::Kubernetes {

namespace {

namespace od = simdjson::ondemand;

constexpr std::string_view OurContainer(ContainerName.data(), size_t(ContainerName.size()));
constexpr std::string_view GatewayHome(PodGatewayHome.data(), size_t(PodGatewayHome.size()));

QString text(std::string_view value)
{
    return QString::fromUtf8(value.data(), qsizetype(value.size()));
}

// One document's reading: a structural error anywhere (not JSON, truncated) marks it failed,
// and what was read is then not used.
class Reader
{
public:
    bool failed = false;

    // Calls f(key, value) for each member of an object; a value that is not an object has none.
    template<typename F> void fields(od::value &value, F &&f)
    {
        od::object object;
        if (value.get_object().get(object))
            return; // not an object (null, a string...): nothing to read
        fields(object, std::forward<F>(f));
    }
    template<typename F> void fields(od::object &object, F &&f)
    {
        for (auto entry : object) {
            od::field field;
            if (std::move(entry).get(field)) {
                failed = true;
                return;
            }
            // The key as written, compared without unescaping it: the names looked up are plain
            // ASCII, which no JSON encoder escapes (a map's keys are unescaped: stringMap).
            const od::raw_json_string key = field.key();
            od::value value = field.value();
            f(key, value);
            if (failed)
                return;
        }
    }
    template<typename F> void elements(od::value &value, F &&f)
    {
        od::array array;
        if (value.get_array().get(array))
            return;
        for (auto entry : array) {
            od::value element;
            if (std::move(entry).get(element)) {
                failed = true;
                return;
            }
            f(element);
            if (failed)
                return;
        }
    }
    QString string(od::value &value)
    {
        std::string_view s;
        return value.get_string().get(s) ? QString() : text(s);
    }
    // A string as simdjson unescaped it, valid while the document is read; empty when the value
    // is not a string.
    std::string_view view(od::value &value)
    {
        std::string_view s;
        return value.get_string().get(s) ? std::string_view() : s;
    }
    // A string that many objects of a listing share (a namespace, a label's key or value, an
    // image): made once per document and shared, which saves an allocation for each of 10,000
    // Pods. The first strings seen are kept: values unique to one Pod fill the table only up to
    // its bound.
    QString shared(std::string_view s)
    {
        if (const auto it = m_shared.find(s); it != m_shared.end())
            return it->second;
        QString made = text(s);
        if (m_shared.size() < 512)
            m_shared.emplace(s, made);
        return made;
    }
    QString shared(od::value &value)
    {
        std::string_view s;
        return value.get_string().get(s) ? QString() : shared(s);
    }
    int integer(od::value &value, int fallback)
    {
        int64_t n = 0;
        if (value.get_int64().get(n) || n < std::numeric_limits<int>::min() || n > std::numeric_limits<int>::max())
            return fallback;
        return int(n);
    }
    QMap<QString, QString> stringMap(od::value &value)
    {
        QMap<QString, QString> map;
        od::object object;
        if (value.get_object().get(object))
            return map;
        for (auto entry : object) {
            od::field field;
            std::string_view key;
            if (std::move(entry).get(field) || field.unescaped_key().get(key)) {
                failed = true;
                return map;
            }
            od::value v = field.value();
            map.insert(shared(key), shared(v));
        }
        return map;
    }
    std::optional<QDateTime> time(od::value &value)
    {
        std::string_view s;
        if (value.get_string().get(s))
            return std::nullopt;
        return timeFrom(s);
    }
    // Kubernetes writes RFC 3339 in UTC, to the second ("2026-12-01T10:00:00Z"), read here without
    // QDateTime's general parser; fractions and offsets are read too, by that parser.
    static std::optional<QDateTime> timeFrom(std::string_view s)
    {
        const auto digits = [&](size_t at, size_t count) {
            int n = 0;
            for (size_t i = at; i < at + count; ++i) {
                if (s[i] < '0' || s[i] > '9')
                    return -1;
                n = n * 10 + (s[i] - '0');
            }
            return n;
        };
        if (s.size() == 20 && s[4] == '-' && s[7] == '-' && s[10] == 'T' && s[13] == ':' && s[16] == ':'
            && s[19] == 'Z') {
            const QDate date(digits(0, 4), digits(5, 2), digits(8, 2));
            const QTime clock(digits(11, 2), digits(14, 2), digits(17, 2));
            if (date.isValid() && clock.isValid())
                return QDateTime(date, clock, Qt::UTC);
            return std::nullopt;
        }
        QDateTime parsed = QDateTime::fromString(text(s), Qt::ISODateWithMs);
        if (!parsed.isValid())
            return std::nullopt;
        return parsed.toUTC();
    }

private:
    std::unordered_map<std::string_view, QString> m_shared;
};

// Each member of a Pod's "metadata", "spec" and "status" that Paddock reads.
void readPodMetadata(Reader &r, od::value &value, PodView &pod)
{
    r.fields(value, [&](od::raw_json_string key, od::value &v) {
        if (key == "name")
            pod.name = r.string(v);
        else if (key == "namespace")
            pod.ns = r.shared(v);
        else if (key == "uid")
            pod.uid = r.string(v);
        else if (key == "resourceVersion")
            pod.resourceVersion = r.string(v);
        else if (key == "labels")
            pod.labels = r.stringMap(v);
        else if (key == "annotations")
            pod.annotations = r.stringMap(v);
        else if (key == "creationTimestamp") {
            if (const auto created = r.time(v))
                pod.createdAt = *created;
        } else if (key == "deletionTimestamp")
            pod.deletionTimestamp = r.time(v);
        else if (key == "deletionGracePeriodSeconds")
            pod.deletionGracePeriodSeconds = r.integer(v, 0);
    });
}

void readPodSpec(Reader &r, od::value &value, PodView &pod)
{
    r.fields(value, [&](od::raw_json_string key, od::value &v) {
        if (key == "terminationGracePeriodSeconds") {
            pod.terminationGracePeriodSeconds = r.integer(v, 30);
        } else if (key == "containers") {
            // The workspace container's image (else the first container's), and whether it mounts
            // the gateway home; a container's members come in any order, so each is read whole.
            r.elements(v, [&](od::value &element) {
                std::string_view name;
                std::string_view image;
                bool mountsGatewayHome = false;
                r.fields(element, [&](od::raw_json_string field, od::value &c) {
                    if (field == "name") {
                        name = r.view(c);
                    } else if (field == "image") {
                        image = r.view(c);
                    } else if (field == "volumeMounts") {
                        r.elements(c, [&](od::value &mount) {
                            r.fields(mount, [&](od::raw_json_string m, od::value &path) {
                                if (m == "mountPath" && r.view(path) == GatewayHome)
                                    mountsGatewayHome = true;
                            });
                        });
                    }
                });
                const bool ours = name == OurContainer;
                if (pod.image.isEmpty() || ours)
                    pod.image = r.shared(image);
                if (ours && mountsGatewayHome)
                    pod.mountsGatewayHome = true;
            });
        }
    });
}

void readPodStatus(Reader &r, od::value &value, PodView &pod)
{
    bool oursSeen = false;
    r.fields(value, [&](od::raw_json_string key, od::value &v) {
        if (key == "phase") {
            pod.phase = r.shared(v);
        } else if (key == "conditions") {
            r.elements(v, [&](od::value &element) {
                std::string_view type, status, reason, message, since;
                r.fields(element, [&](od::raw_json_string field, od::value &c) {
                    if (field == "type")
                        type = r.view(c);
                    else if (field == "status")
                        status = r.view(c);
                    else if (field == "reason")
                        reason = r.view(c);
                    else if (field == "message")
                        message = r.view(c);
                    else if (field == "lastTransitionTime")
                        since = r.view(c);
                });
                if (type == "PodScheduled" && status == "False" && reason == "Unschedulable") {
                    pod.hasUnschedulable = true;
                    pod.unschedulableMessage = text(message);
                    if (const auto at = Reader::timeFrom(since))
                        pod.unschedulableSince = *at;
                }
            });
        } else if (key == "containerStatuses") {
            // The workspace container's state; until it is found, the first one that waits (or
            // the last one).
            r.elements(v, [&](od::value &element) {
                if (oursSeen)
                    return; // skipped unread
                std::string_view name;
                int restartCount = 0;
                std::optional<std::pair<QString, QString>> waiting;
                std::optional<QString> terminated;
                r.fields(element, [&](od::raw_json_string field, od::value &c) {
                    if (field == "name") {
                        name = r.view(c);
                    } else if (field == "restartCount") {
                        restartCount = r.integer(c, 0);
                    } else if (field == "state") {
                        r.fields(c, [&](od::raw_json_string state, od::value &s) {
                            if (state != "waiting" && state != "terminated")
                                return;
                            QString reason, message;
                            r.fields(s, [&](od::raw_json_string f, od::value &x) {
                                if (f == "reason")
                                    reason = r.string(x);
                                else if (f == "message")
                                    message = r.string(x);
                            });
                            if (state == "waiting")
                                waiting.emplace(reason, message);
                            else
                                terminated = reason;
                        });
                    }
                });
                const bool ours = name == OurContainer;
                if (!ours && !pod.waitingReason.isEmpty())
                    return;
                pod.restartCount = restartCount;
                if (waiting) {
                    pod.waitingReason = waiting->first;
                    pod.waitingMessage = waiting->second;
                }
                if (terminated)
                    pod.terminatedReason = *terminated;
                oursSeen = ours;
            });
        }
    });
}

// One member of a Pod object.
void readPodMember(Reader &r, od::raw_json_string key, od::value &value, PodView &pod)
{
    if (key == "metadata")
        readPodMetadata(r, value, pod);
    else if (key == "spec")
        readPodSpec(r, value, pod);
    else if (key == "status")
        readPodStatus(r, value, pod);
}

void readPvcMember(Reader &r, od::raw_json_string key, od::value &value, PvcView &pvc)
{
    if (key == "metadata") {
        r.fields(value, [&](od::raw_json_string field, od::value &v) {
            if (field == "name")
                pvc.name = r.string(v);
            else if (field == "uid")
                pvc.uid = r.string(v);
            else if (field == "resourceVersion")
                pvc.resourceVersion = r.string(v);
            else if (field == "labels")
                pvc.labels = r.stringMap(v);
            else if (field == "annotations")
                pvc.annotations = r.stringMap(v);
            else if (field == "creationTimestamp") {
                if (const auto created = r.time(v))
                    pvc.createdAt = *created;
            } else if (field == "deletionTimestamp")
                pvc.deletionTimestamp = r.time(v);
        });
    } else if (key == "spec") {
        r.fields(value, [&](od::raw_json_string field, od::value &v) {
            if (field == "storageClassName")
                pvc.storageClass = r.shared(v);
        });
    } else if (key == "status") {
        r.fields(value, [&](od::raw_json_string field, od::value &v) {
            if (field == "phase") {
                pvc.phase = r.shared(v);
            } else if (field == "capacity") {
                r.fields(v, [&](od::raw_json_string resource, od::value &q) {
                    if (resource == "storage")
                        pvc.capacity = r.shared(q);
                });
            }
        });
    }
}

void readMember(Reader &r, od::raw_json_string key, od::value &value, PodView &pod)
{
    readPodMember(r, key, value, pod);
}
void readMember(Reader &r, od::raw_json_string key, od::value &value, PvcView &pvc)
{
    readPvcMember(r, key, value, pvc);
}

Error notJson(const char *what)
{
    return Error::backend(
        Tr::tr("the API server's answer is not a JSON %1 - is this a Kubernetes API server?").arg(QLatin1String(what)));
}

// Reads the JSON object in `buffer` (padded here for simdjson, which reads up to 64 bytes past
// the end: a copy only when the buffer has no room, or is shared) with f(reader, root object).
// false: not a JSON object, or broken somewhere.
template<typename F> bool readDocument(QByteArray &buffer, F &&f)
{
    const qsizetype size = buffer.size();
    buffer.reserve(size + qsizetype(simdjson::SIMDJSON_PADDING));
    // A parser keeps its buffers between documents (a page's size); one per thread, as the pages
    // of a listing are read on the pool's threads.
    thread_local od::parser parser;
    od::document document;
    if (parser.iterate(buffer.constData(), size_t(size), size_t(buffer.capacity())).get(document))
        return false;
    od::object root;
    if (document.get_object().get(root))
        return false;
    Reader reader;
    reader.fields(root, [&](od::raw_json_string key, od::value &value) { f(reader, key, value); });
    return !reader.failed;
}

template<typename View> Result<View> parseObject(QByteArrayView json, const char *what)
{
    QByteArray buffer(json.data(), json.size());
    View view;
    if (!readDocument(buffer,
                      [&](Reader &r, od::raw_json_string key, od::value &value) { readMember(r, key, value, view); }))
        return fail(notJson(what));
    return view;
}

template<typename View> Result<ListPage<View>> parseList(QByteArray buffer, const char *what)
{
    ListPage<View> page;
    const bool read = readDocument(buffer, [&](Reader &r, od::raw_json_string key, od::value &value) {
        if (key == "metadata") {
            r.fields(value, [&](od::raw_json_string field, od::value &v) {
                if (field == "resourceVersion")
                    page.resourceVersion = r.string(v);
                else if (field == "continue")
                    page.continueToken = r.string(v);
            });
        } else if (key == "items") {
            r.elements(value, [&](od::value &item) {
                View &view = page.items.emplace_back();
                r.fields(item, [&](od::raw_json_string member, od::value &v) { readMember(r, member, v, view); });
            });
        }
    });
    if (!read)
        return fail(notJson(what));
    return page;
}

} // namespace

Result<PodView> parsePod(const QByteArray &json)
{
    return parseObject<PodView>(json, "Pod");
}

Result<PvcView> parsePvc(const QByteArray &json)
{
    return parseObject<PvcView>(json, "PersistentVolumeClaim");
}

Result<ListPage<PodView>> parsePodList(QByteArray json)
{
    return parseList<PodView>(std::move(json), "PodList");
}

Result<ListPage<PvcView>> parsePvcList(QByteArray json)
{
    return parseList<PvcView>(std::move(json), "PersistentVolumeClaimList");
}

Result<WatchEvent> parseWatchEvent(QByteArrayView line, ObjectKind kind)
{
    // "object" is read before "type" is known (a server may write either first): as the kind
    // watched and, in case it is an ERROR, as a Status (its top-level code, reason and message).
    QByteArray buffer(line.data(), line.size());
    QString type;
    bool hasObject = false;
    PodView pod;
    PvcView pvc;
    WatchEvent event;
    const bool read = readDocument(buffer, [&](Reader &r, od::raw_json_string key, od::value &value) {
        if (key == "type") {
            type = r.string(value);
        } else if (key == "object") {
            od::object object;
            if (value.get_object().get(object))
                return;
            hasObject = true;
            r.fields(object, [&](od::raw_json_string member, od::value &v) {
                if (member == "code")
                    event.errorCode = r.integer(v, 0);
                else if (member == "reason")
                    event.errorReason = r.string(v);
                else if (member == "message")
                    event.errorMessage = r.string(v);
                else if (kind == ObjectKind::Pod)
                    readPodMember(r, member, v, pod);
                else
                    readPvcMember(r, member, v, pvc);
            });
        }
    });
    if (!read)
        return fail(notJson("watch event"));
    if (type == QLatin1String("ADDED"))
        event.type = WatchEvent::Type::Added;
    else if (type == QLatin1String("MODIFIED"))
        event.type = WatchEvent::Type::Modified;
    else if (type == QLatin1String("DELETED"))
        event.type = WatchEvent::Type::Deleted;
    else if (type == QLatin1String("BOOKMARK"))
        event.type = WatchEvent::Type::Bookmark;
    else if (type == QLatin1String("ERROR"))
        event.type = WatchEvent::Type::Error;
    if (event.type != WatchEvent::Type::Error) {
        event.errorCode = 0;
        event.errorReason.clear();
        event.errorMessage.clear();
    }
    if (!hasObject || event.type == WatchEvent::Type::Error)
        return event;
    event.resourceVersion = kind == ObjectKind::Pod ? pod.resourceVersion : pvc.resourceVersion;
    if (event.type == WatchEvent::Type::Bookmark || event.type == WatchEvent::Type::Unknown)
        return event;
    if (kind == ObjectKind::Pod)
        event.pod = std::move(pod);
    else
        event.pvc = std::move(pvc);
    return event;
}

} // namespace Paddock::Kubernetes
