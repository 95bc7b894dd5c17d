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

#include "../../json/ondemand.h"

#include <limits>
#include <string_view>
#include <unordered_map>

namespace Paddock::Kubernetes {

namespace {

namespace od = Json::od;
using Json::Reader;
using Json::readObjectDocument;
using Json::text;

constexpr std::string_view OurContainer(ContainerName.data(), size_t(ContainerName.size()));
constexpr std::string_view GatewayHome(PodGatewayHome.data(), size_t(PodGatewayHome.size()));

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

template<typename View> Result<View> parseObject(QByteArrayView json, const char *what)
{
    QByteArray buffer(json.data(), json.size());
    View view;
    if (!readObjectDocument(
            buffer, [&](Reader &r, od::raw_json_string key, od::value &value) { readMember(r, key, value, view); }))
        return fail(notJson(what));
    return view;
}

template<typename View> Result<ListPage<View>> parseList(QByteArray buffer, const char *what)
{
    ListPage<View> page;
    const bool read = readObjectDocument(buffer, [&](Reader &r, od::raw_json_string key, od::value &value) {
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
    const bool read = readObjectDocument(buffer, [&](Reader &r, od::raw_json_string key, od::value &value) {
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
