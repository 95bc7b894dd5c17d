// The object store: one global resourceVersion, immutable versions of every object (so a list
// can page through the state of one resourceVersion, and a watch can replay what changed), the
// bounded history of events, lists with selectors and limit/continue, and watch streams.

#include "fakekubernetes.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRandomGenerator>

using namespace Qt::StringLiterals;

namespace PaddockFake::Kube {

namespace {

constexpr std::size_t MaxSnapshots = 32;

const QByteArray TableContentType = "application/json;as=Table;v=v1;g=meta.k8s.io";

QByteArray eventTypeName(WatchEvent::Type type)
{
    switch (type) {
    case WatchEvent::Added:
        return "ADDED";
    case WatchEvent::Modified:
        return "MODIFIED";
    case WatchEvent::Deleted:
        return "DELETED";
    }
    return "ERROR";
}

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

QByteArray continueToken(quint64 rv, const QString &start)
{
    QByteArray json = R"({"v":"meta.k8s.io/v1","rv":)" + QByteArray::number(rv) + R"(,"start":)";
    appendJsonString(json, QString(start + QChar(0)));
    json += '}';
    return json.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
}

bool parseContinueToken(const QString &token, quint64 *rv, QString *start)
{
    const auto decoded = QByteArray::fromBase64Encoding(
        token.toLatin1(), QByteArray::Base64UrlEncoding | QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return false;
    const QJsonObject object = QJsonDocument::fromJson(*decoded).object();
    if (object.value(u"v"_s).toString() != u"meta.k8s.io/v1"_s || !object.value(u"rv"_s).isDouble())
        return false;
    *rv = static_cast<quint64>(object.value(u"rv"_s).toInteger());
    *start = object.value(u"start"_s).toString();
    if (start->endsWith(QChar(0)))
        start->chop(1);
    return true;
}

} // namespace

QString FakeKubernetes::resourceName(Kind kind)
{
    switch (kind) {
    case Kind::Namespace:
        return u"namespaces"_s;
    case Kind::Pod:
        return u"pods"_s;
    case Kind::Pvc:
        return u"persistentvolumeclaims"_s;
    }
    return {};
}

QString FakeKubernetes::kindName(Kind kind)
{
    switch (kind) {
    case Kind::Namespace:
        return u"Namespace"_s;
    case Kind::Pod:
        return u"Pod"_s;
    case Kind::Pvc:
        return u"PersistentVolumeClaim"_s;
    }
    return {};
}

QStringList FakeKubernetes::fieldLabels(Kind kind)
{
    switch (kind) {
    case Kind::Pod:
        return {u"metadata.name"_s,
                u"metadata.namespace"_s,
                u"spec.nodeName"_s,
                u"spec.restartPolicy"_s,
                u"spec.schedulerName"_s,
                u"spec.serviceAccountName"_s,
                u"spec.hostNetwork"_s,
                u"status.phase"_s,
                u"status.podIP"_s,
                u"status.podIPs"_s,
                u"status.nominatedNodeName"_s};
    case Kind::Pvc:
        return {u"metadata.name"_s, u"metadata.namespace"_s};
    case Kind::Namespace:
        return {u"metadata.name"_s, u"status.phase"_s};
    }
    return {};
}

QString FakeKubernetes::fieldValue(const Version &version, const QString &field)
{
    if (field == u"metadata.name"_s)
        return version.name;
    if (field == u"metadata.namespace"_s)
        return version.ns;
    const QString section = field.section(u'.', 0, 0);
    const QString leaf = field.section(u'.', 1);
    const QJsonObject part = version.object.value(section).toObject();
    if (field == u"spec.hostNetwork"_s)
        return part.value(leaf).toBool() ? u"true"_s : u"false"_s;
    if (field == u"status.podIPs"_s)
        return part.value(u"podIPs"_s).toArray().at(0).toObject().value(u"ip"_s).toString();
    return part.value(leaf).toString();
}

Entry *FakeKubernetes::find(Kind kind, const QString &ns, const QString &name)
{
    auto &objects = table(kind);
    const auto it = objects.find(kind == Kind::Namespace ? name : ns + u'/' + name);
    return it == objects.end() ? nullptr : &it->second;
}

VersionPtr FakeKubernetes::commit(Kind kind, const QString &ns, const QString &name, QJsonObject object,
                                  WatchEvent::Type type)
{
    const quint64 rv = ++m_rv;
    QJsonObject metadata = object.value(u"metadata"_s).toObject();
    metadata.insert(u"resourceVersion"_s, QString::number(rv));
    object.insert(u"metadata"_s, metadata);
    auto version = std::make_shared<Version>();
    version->kind = kind;
    version->key = kind == Kind::Namespace ? name : ns + u'/' + name;
    version->ns = ns;
    version->name = name;
    version->rv = rv;
    version->json = writeJson(object);
    version->object = std::move(object);
    auto &objects = table(kind);
    VersionPtr previous;
    if (type == WatchEvent::Deleted) {
        const auto it = objects.find(version->key);
        if (it != objects.end()) {
            previous = it->second.current;
            objects.erase(it);
        }
    } else {
        Entry &entry = objects[version->key];
        previous = entry.current;
        entry.current = version;
    }
    ++m_generation[static_cast<int>(kind)];
    persist(); // before anyone hears of it: a watch event, or the answer that follows
    record(WatchEvent{type, rv, kind, type == WatchEvent::Modified ? previous : VersionPtr(), version});
    return version;
}

VersionPtr FakeKubernetes::modify(Kind kind, const QString &ns, const QString &name,
                                  const std::function<void(QJsonObject &)> &change)
{
    const Entry *entry = find(kind, ns, name);
    if (!entry)
        return {};
    QJsonObject object = entry->current->object;
    change(object);
    return commit(kind, ns, name, std::move(object), WatchEvent::Modified);
}

void FakeKubernetes::remove(Kind kind, const QString &ns, const QString &name)
{
    const Entry *entry = find(kind, ns, name);
    if (entry)
        commit(kind, ns, name, entry->current->object, WatchEvent::Deleted);
}

void FakeKubernetes::record(WatchEvent event)
{
    m_history.push_back(event);
    while (m_history.size() > static_cast<std::size_t>(std::max(0, m_options.watchHistory))) {
        m_historyFloor = m_history.front().rv;
        m_history.pop_front();
    }
    for (Watcher *watcher : std::vector<Watcher *>(m_watchers)) {
        if (watcher->kind != event.kind || (!watcher->ns.isEmpty() && watcher->ns != event.object->ns))
            continue;
        const bool now = matches(*event.object, watcher->labels, watcher->fields);
        switch (event.type) {
        case WatchEvent::Added:
        case WatchEvent::Deleted:
            if (now)
                sendWatchEvent(watcher, event.type, *event.object);
            break;
        case WatchEvent::Modified: {
            const bool before = event.previous && matches(*event.previous, watcher->labels, watcher->fields);
            if (before && now)
                sendWatchEvent(watcher, WatchEvent::Modified, *event.object);
            else if (now)
                sendWatchEvent(watcher, WatchEvent::Added, *event.object);
            else if (before)
                sendWatchEvent(watcher, WatchEvent::Deleted, *event.object);
            break;
        }
        }
    }
}

bool FakeKubernetes::matches(const Version &version, const LabelSelector &labels, const FieldSelector &fields) const
{
    if (!labels.isEmpty()
        && !labels.matches(version.object.value(u"metadata"_s).toObject().value(u"labels"_s).toObject()))
        return false;
    return fields.isEmpty() || fields.matches([&](const QString &field) { return fieldValue(version, field); });
}

std::shared_ptr<const std::vector<VersionPtr>> FakeKubernetes::snapshot(Kind kind)
{
    const int index = static_cast<int>(kind);
    if (!m_latestSnapshot[index] || m_latestSnapshotGeneration[index] != m_generation[index]) {
        auto items = std::make_shared<std::vector<VersionPtr>>();
        items->reserve(table(kind).size());
        for (const auto &[key, entry] : table(kind))
            items->push_back(entry.current);
        m_latestSnapshot[index] = std::move(items);
        m_latestSnapshotGeneration[index] = m_generation[index];
    }
    return m_latestSnapshot[index];
}

HttpResponse FakeKubernetes::objectResponse(const HttpRequest &request, int status, const Version &version) const
{
    if (wantsTable(request)) {
        HttpResponse response =
            HttpResponse::json(status,
                               tableJson(version.kind, {std::make_shared<Version>(version)},
                                         u"{\"resourceVersion\":\"%1\"}"_s.arg(version.rv),
                                         firstQueryValue(request, u"includeObject"_s) != u"None"_s));
        response.setHeader("Content-Type", TableContentType);
        return response;
    }
    return HttpResponse::json(status, version.withType());
}

void FakeKubernetes::listObjects(HttpConnection *connection, const HttpRequest &request, Kind kind, const QString &ns)
{
    QString error;
    const std::optional<LabelSelector> labels =
        LabelSelector::parse(firstQueryValue(request, u"labelSelector"_s), &error);
    if (!labels)
        return connection->send(badRequest(error).response());
    const std::optional<FieldSelector> fields =
        FieldSelector::parse(firstQueryValue(request, u"fieldSelector"_s), fieldLabels(kind), &error);
    if (!fields)
        return connection->send(badRequest(error).response());
    qint64 limit = 0;
    if (hasQuery(request, u"limit"_s)) {
        bool ok = false;
        limit = firstQueryValue(request, u"limit"_s).toLongLong(&ok);
        if (!ok)
            return connection->send(badRequest(u"strconv.ParseInt: parsing \"%1\": invalid syntax"_s.arg(
                                                   firstQueryValue(request, u"limit"_s)))
                                        .response());
        limit = std::max<qint64>(0, limit);
    }
    const QString continueValue = firstQueryValue(request, u"continue"_s);
    const QString rvParam = firstQueryValue(request, u"resourceVersion"_s);
    const QString rvMatch = firstQueryValue(request, u"resourceVersionMatch"_s);
    if (!rvMatch.isEmpty() && rvParam.isEmpty())
        return connection->send(
            invalid(u"ListOptions"_s, QString(),
                    {{u"FieldValueForbidden"_s,
                      u"Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"_s,
                      u"resourceVersionMatch"_s}})
                .response());
    if (!continueValue.isEmpty() && !rvParam.isEmpty() && rvParam != u"0"_s)
        return connection->send(
            badRequest(u"specifying resource version is not allowed when using continue"_s).response());

    std::shared_ptr<const std::vector<VersionPtr>> items;
    quint64 listRv = m_rv;
    QString startAfter; // the key after which this page starts
    if (!continueValue.isEmpty()) {
        quint64 tokenRv = 0;
        QString start;
        if (!parseContinueToken(continueValue, &tokenRv, &start))
            return connection->send(badRequest(u"continue key is not valid: invalid continue token"_s).response());
        const auto it = m_snapshots.find({static_cast<int>(kind), tokenRv});
        if (it == m_snapshots.end() || tokenRv < m_historyFloor) {
            return connection->send(
                expired(u"The provided continue parameter is too old to display a consistent list result. You can "
                        "start a new list without the continue parameter, or use the continue token in this response "
                        "to retrieve the remainder of the results. Continuing with the provided token results in an "
                        "inconsistent list - objects that were created, modified, or deleted between the time the "
                        "first chunk was returned and now may show up in the list."_s)
                    .response());
        }
        items = it->second;
        listRv = tokenRv;
        startAfter = ns.isEmpty() ? start : ns + u'/' + start;
    } else {
        items = snapshot(kind);
        // resourceVersion=0 is served from the watch cache, which (in 1.32) ignores limit.
        if (rvParam == u"0"_s && rvMatch != u"Exact"_s)
            limit = 0;
    }

    const QString lower = ns.isEmpty() ? QString() : ns + u'/';
    const QString upper = ns.isEmpty() ? QString() : ns + u'0'; // '0' follows '/'
    auto it = std::lower_bound(items->begin(), items->end(), startAfter.isEmpty() ? lower : startAfter,
                               [](const VersionPtr &v, const QString &key) { return v->key < key; });
    if (!startAfter.isEmpty() && it != items->end() && (*it)->key == startAfter)
        ++it;
    const auto end = ns.isEmpty()
        ? items->end()
        : std::lower_bound(it, items->end(), upper,
                           [](const VersionPtr &v, const QString &key) { return v->key < key; });
    std::vector<VersionPtr> page;
    auto cursor = it;
    for (; cursor != end; ++cursor) {
        if (limit > 0 && static_cast<qint64>(page.size()) >= limit)
            break;
        if (matches(**cursor, *labels, *fields))
            page.push_back(*cursor);
    }
    QByteArray meta = R"({"resourceVersion":")" + QByteArray::number(listRv) + '"';
    if (limit > 0 && cursor != end && !page.empty()) {
        const QString last = page.back()->key;
        const QString relative = ns.isEmpty() ? last : last.mid(lower.size());
        meta += R"(,"continue":")" + continueToken(listRv, relative) + '"';
        if (labels->isEmpty() && fields->isEmpty())
            meta += R"(,"remainingItemCount":)" + QByteArray::number(static_cast<qint64>(end - cursor));
        m_snapshots[{static_cast<int>(kind), listRv}] = items;
        while (m_snapshots.size() > MaxSnapshots)
            m_snapshots.erase(m_snapshots.begin());
    }
    meta += '}';

    if (wantsTable(request)) {
        HttpResponse response = HttpResponse::json(
            200,
            tableJson(kind, page, QString::fromUtf8(meta), firstQueryValue(request, u"includeObject"_s) != u"None"_s));
        response.setHeader("Content-Type", TableContentType);
        return connection->send(response);
    }
    QByteArray body;
    qsizetype size = 128;
    for (const VersionPtr &version : page)
        size += version->json.size() + 1;
    body.reserve(size);
    body +=
        R"({"kind":")" + kindName(kind).toLatin1() + R"(List","apiVersion":"v1","metadata":)" + meta + R"(,"items":[)";
    for (std::size_t i = 0; i < page.size(); ++i) {
        if (i > 0)
            body += ',';
        body += page[i]->json;
    }
    body += "]}";
    connection->send(HttpResponse::json(200, body));
}

void FakeKubernetes::watchObjects(HttpConnection *connection, const HttpRequest &request, Kind kind, const QString &ns)
{
    QString error;
    const std::optional<LabelSelector> labels =
        LabelSelector::parse(firstQueryValue(request, u"labelSelector"_s), &error);
    if (!labels)
        return connection->send(badRequest(error).response());
    const std::optional<FieldSelector> fields =
        FieldSelector::parse(firstQueryValue(request, u"fieldSelector"_s), fieldLabels(kind), &error);
    if (!fields)
        return connection->send(badRequest(error).response());
    const QString rvParam = firstQueryValue(request, u"resourceVersion"_s);
    quint64 from = 0;
    if (!rvParam.isEmpty() && rvParam != u"0"_s) {
        bool ok = false;
        from = rvParam.toULongLong(&ok);
        if (!ok)
            return connection->send(
                invalid(u"ListOptions"_s, QString(),
                        {invalidCause(u"resourceVersion"_s, rvParam, u"invalid resource version"_s)})
                    .response());
    }
    std::optional<qint64> timeoutSeconds;
    if (hasQuery(request, u"timeoutSeconds"_s)) {
        bool ok = false;
        timeoutSeconds = firstQueryValue(request, u"timeoutSeconds"_s).toLongLong(&ok);
        if (!ok)
            return connection->send(badRequest(u"invalid timeoutSeconds"_s).response());
    }
    const bool bookmarks = queryBool(request, u"allowWatchBookmarks"_s);
    const bool initialEvents = queryBool(request, u"sendInitialEvents"_s);

    auto *watcher = new Watcher(this);
    watcher->connection = connection;
    watcher->kind = kind;
    watcher->ns = ns;
    watcher->labels = *labels;
    watcher->fields = *fields;
    watcher->table = wantsTable(request);
    watcher->includeObject = firstQueryValue(request, u"includeObject"_s) != u"None"_s;
    connection->startStream(200,
                            {{"Content-Type", watcher->table ? TableContentType : QByteArray("application/json")}});

    if (from > 0 && from < m_historyFloor) {
        // Too old: one ERROR event, then the end (the cacher's newErrWatcher).
        const StatusError gone = expired(u"too old resource version: %1 (%2)"_s.arg(from).arg(m_historyFloor + 1));
        connection->writeChunk(R"({"type":"ERROR","object":)" + gone.json() + "}\n");
        connection->endStream();
        watcher->deleteLater();
        return;
    }
    m_watchers.push_back(watcher);
    connect(connection, &QObject::destroyed, watcher, [this, watcher] { endWatch(watcher); });
    if (from == 0) {
        const auto items = snapshot(kind);
        for (const VersionPtr &version : *items) {
            if ((ns.isEmpty() || version->ns == ns) && matches(*version, watcher->labels, watcher->fields))
                sendWatchEvent(watcher, WatchEvent::Added, *version);
        }
        if (initialEvents && bookmarks)
            sendBookmark(watcher, true);
    } else {
        for (const WatchEvent &event : m_history) {
            if (event.rv <= from || event.kind != kind || (!ns.isEmpty() && event.object->ns != ns))
                continue;
            const bool now = matches(*event.object, watcher->labels, watcher->fields);
            const bool before = event.previous && matches(*event.previous, watcher->labels, watcher->fields);
            if (event.type == WatchEvent::Modified) {
                if (before && now)
                    sendWatchEvent(watcher, WatchEvent::Modified, *event.object);
                else if (now)
                    sendWatchEvent(watcher, WatchEvent::Added, *event.object);
                else if (before)
                    sendWatchEvent(watcher, WatchEvent::Deleted, *event.object);
            } else if (now) {
                sendWatchEvent(watcher, event.type, *event.object);
            }
        }
    }
    // Without timeoutSeconds the API server picks 30 to 60 minutes.
    const qint64 timeoutMs =
        timeoutSeconds ? *timeoutSeconds * 1000 : (1800 + QRandomGenerator::global()->bounded(1800)) * qint64(1000);
    watcher->timeout.setSingleShot(true);
    connect(&watcher->timeout, &QTimer::timeout, watcher, [this, watcher] { endWatch(watcher); });
    watcher->timeout.start(static_cast<int>(std::min<qint64>(timeoutMs, std::numeric_limits<int>::max())));
    if (bookmarks) {
        connect(&watcher->bookmark, &QTimer::timeout, watcher, [this, watcher] { sendBookmark(watcher, false); });
        watcher->bookmark.start(std::max(1, m_options.bookmarkMs));
    }
}

void FakeKubernetes::sendWatchEvent(Watcher *watcher, WatchEvent::Type type, const Version &version)
{
    if (!watcher->connection)
        return;
    QByteArray object;
    if (watcher->table) {
        object = tableJson(version.kind, {std::make_shared<Version>(version)},
                           u"{\"resourceVersion\":\"%1\"}"_s.arg(version.rv), watcher->includeObject);
    } else {
        object = version.withType();
    }
    watcher->connection->writeChunk(R"({"type":")" + eventTypeName(type) + R"(","object":)" + object + "}\n");
}

void FakeKubernetes::sendBookmark(Watcher *watcher, bool initialEventsEnd)
{
    if (!watcher->connection)
        return;
    QByteArray object = R"({"kind":")" + kindName(watcher->kind).toLatin1()
        + R"(","apiVersion":"v1","metadata":{"resourceVersion":")" + QByteArray::number(m_rv)
        + R"(","creationTimestamp":null)";
    if (initialEventsEnd)
        object += R"(,"annotations":{"k8s.io/initial-events-end":"true"})";
    object += '}';
    switch (watcher->kind) {
    case Kind::Pod:
        object += R"(,"spec":{"containers":null},"status":{}})";
        break;
    case Kind::Pvc:
        object += R"(,"spec":{"resources":{}},"status":{}})";
        break;
    case Kind::Namespace:
        object += R"(,"spec":{},"status":{}})";
        break;
    }
    watcher->connection->writeChunk(R"({"type":"BOOKMARK","object":)" + object + "}\n");
}

void FakeKubernetes::endWatch(Watcher *watcher)
{
    const auto it = std::find(m_watchers.begin(), m_watchers.end(), watcher);
    if (it == m_watchers.end())
        return;
    m_watchers.erase(it);
    watcher->timeout.stop();
    watcher->bookmark.stop();
    if (watcher->connection)
        watcher->connection->endStream();
    watcher->deleteLater();
}

} // namespace PaddockFake::Kube
