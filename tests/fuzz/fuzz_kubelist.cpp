// The Kubernetes API server's Pods and PVCs (src/core/backends/kubernetes/kubeobjects.h): the bytes
// as a PodList and a PersistentVolumeClaimList page, as one Pod and one PVC, and as a watch
// event's line of each kind. What parses as one object reads the same inside a list
// ({"items":[...]}) and as the object of an ADDED watch event; every time read is UTC; the
// workspace state made of what was read is one of a workspace's (or gone). (simdjson's On Demand
// reading validates only what it reads, so the readings are compared on valid JSON only.)
#include "backends/kubernetes/kubeobjects.h"

#include <QJsonDocument>

#include <algorithm>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace Paddock;
using namespace Paddock::Kubernetes;

namespace {

bool sameTime(const QDateTime &a, const QDateTime &b)
{
    return a.isValid() == b.isValid() && (!a.isValid() || a == b);
}

bool sameTime(const std::optional<QDateTime> &a, const std::optional<QDateTime> &b)
{
    return a.has_value() == b.has_value() && (!a || sameTime(*a, *b));
}

void checkTime(const QDateTime &time)
{
    if (time.isValid() && time.timeSpec() != Qt::UTC)
        std::abort();
}

bool same(const PodView &a, const PodView &b)
{
    return a.name == b.name && a.ns == b.ns && a.uid == b.uid && a.resourceVersion == b.resourceVersion
        && a.labels == b.labels && a.annotations == b.annotations && a.phase == b.phase
        && sameTime(a.createdAt, b.createdAt) && sameTime(a.deletionTimestamp, b.deletionTimestamp)
        && a.deletionGracePeriodSeconds == b.deletionGracePeriodSeconds
        && a.terminationGracePeriodSeconds == b.terminationGracePeriodSeconds && a.image == b.image
        && a.waitingReason == b.waitingReason && a.waitingMessage == b.waitingMessage
        && a.unschedulableMessage == b.unschedulableMessage && a.hasUnschedulable == b.hasUnschedulable
        && sameTime(a.unschedulableSince, b.unschedulableSince) && a.terminatedReason == b.terminatedReason
        && a.restartCount == b.restartCount && a.mountsGatewayHome == b.mountsGatewayHome;
}

bool same(const PvcView &a, const PvcView &b)
{
    return a.name == b.name && a.uid == b.uid && a.resourceVersion == b.resourceVersion && a.labels == b.labels
        && a.annotations == b.annotations && a.phase == b.phase && sameTime(a.createdAt, b.createdAt)
        && sameTime(a.deletionTimestamp, b.deletionTimestamp) && a.storageClass == b.storageClass
        && a.capacity == b.capacity;
}

void check(const PodView &pod)
{
    checkTime(pod.createdAt);
    checkTime(pod.unschedulableSince);
    if (pod.deletionTimestamp)
        checkTime(*pod.deletionTimestamp);
}

void check(const PvcView &pvc)
{
    checkTime(pvc.createdAt);
    if (pvc.deletionTimestamp)
        checkTime(*pvc.deletionTimestamp);
}

// How deep arrays and objects nest, strings aside.
int depthOf(QByteArrayView json)
{
    int depth = 0;
    int deepest = 0;
    bool inString = false;
    for (qsizetype i = 0; i < json.size(); ++i) {
        const char c = json.at(i);
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            deepest = std::max(deepest, ++depth);
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return deepest;
}

template<typename View, typename ParseOne, typename ParseList>
std::optional<View> one(const QByteArray &body, ParseOne parseOne, ParseList parseList, ObjectKind kind)
{
    const auto page = parseList(body);
    if (page) {
        for (const View &view : page->items)
            check(view);
    }
    const auto parsed = parseOne(body);
    if (!parsed)
        return std::nullopt;
    check(*parsed);
    // On Demand validates only what it reads: malformed JSON in a part one reading skips and the
    // other reads may be refused by one only. Valid JSON, not so deep that wrapping it goes past
    // simdjson's depth limit, reads the same everywhere.
    const QJsonDocument strict = QJsonDocument::fromJson(body);
    if (!strict.isObject() || depthOf(body) > 1000)
        return *parsed;
    const QByteArray list = QByteArrayLiteral("{\"items\":[") + body + QByteArrayLiteral("]}");
    const auto listed = parseList(list);
    if (!listed || listed->items.size() != 1 || !same(listed->items.constFirst(), *parsed))
        std::abort();
    const QByteArray added = QByteArrayLiteral("{\"type\":\"ADDED\",\"object\":") + body + '}';
    const auto event = parseWatchEvent(added, kind);
    if (!event || event->type != WatchEvent::Type::Added)
        std::abort();
    if constexpr (std::is_same_v<View, PodView>) {
        if (!event->pod || !same(*event->pod, *parsed))
            std::abort();
    } else {
        if (!event->pvc || !same(*event->pvc, *parsed))
            std::abort();
    }
    return *parsed;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray body(reinterpret_cast<const char *>(data), qsizetype(size));
    const std::optional<PodView> pod = one<PodView>(body, parsePod, parsePodList, ObjectKind::Pod);
    const std::optional<PvcView> pvc = one<PvcView>(body, parsePvc, parsePvcList, ObjectKind::Pvc);
    for (const ObjectKind kind : {ObjectKind::Pod, ObjectKind::Pvc}) {
        const auto event = parseWatchEvent(body, kind);
        if (event && event->type == WatchEvent::Type::Error && (event->pod || event->pvc))
            std::abort();
    }
    if (pod || pvc) {
        const QDateTime now = QDateTime::fromSecsSinceEpoch(1'800'000'000, Qt::UTC);
        const auto state = workspaceState(pod, pvc, QStringLiteral("agentscope"), std::chrono::seconds(30), now);
        if (state && state->backend.isEmpty())
            std::abort();
    }
    return 0;
}
