#include "kubernetesbackend.h"

#include "../../canceltoken.h"
#include "../../execfiles.h"
#include "../../execgroup.h"
#include "../../linesplitter.h"
#include "../../logging.h"
#include "../../shellquote.h"
#include "../../tr.h"
#include "podexec.h"

#include <QCoroTask>

#include <QDeadlineTimer>
#include <QScopeGuard>
#include <QTimer>

#include <algorithm>
#include <utility>

Q_LOGGING_CATEGORY(lcKube, "paddock.core.kubernetes", QtInfoMsg)

namespace Paddock::Kubernetes {

namespace {

// Every object AgentScope (and so Paddock) makes for a workspace carries this label.
QString managedSelector()
{
    return ManagedByKey + u'=' + ManagedByValue;
}

// A Pod seen Running this recently is still taken as Running without asking again.
constexpr qint64 RunningFreshMs = 5'000;
// How long a Pod that list() read is what connect() takes (an open's next step).
constexpr qint64 RecentMs = 2'000;

} // namespace

KubernetesBackend::KubernetesBackend(BackendOptions options, QObject *parent)
    : Backend(parent)
    , m_options(std::move(options))
    , m_client(std::make_unique<KubeClient>(m_options.cluster, m_options.retry))
    , m_exec(std::make_unique<PodExecClient>())
{
}

KubernetesBackend::~KubernetesBackend()
{
    // Every task of ours ends now, inside this destructor, while the members still exist: the
    // watches and streams are cancelled, every request and wait fails as Cancelled, and each
    // coroutine returns at its next step (m_closing).
    m_closing = true;
    if (m_watchCancel)
        m_watchCancel->cancel();
    m_exec->abortAll();
    m_client->abortAll();
}

QString KubernetesBackend::name() const
{
    return QStringLiteral("kubernetes");
}

QString KubernetesBackend::instanceKey() const
{
    return m_options.cluster.server().toString(QUrl::RemoveUserInfo | QUrl::StripTrailingSlash) + u'/'
        + m_options.cluster.ns;
}

WorkspaceLayout KubernetesBackend::layout(const SandboxInfo &) const
{
    WorkspaceLayout layout;
    layout.workdir = PodWorkdir;
    layout.gatewayHome = PodGatewayHome;
    layout.markerFile = PodGatewayHome + QStringLiteral("/.bootstrap-complete");
    layout.agentscopeMarker = PodGatewayHome + QStringLiteral("/_mcp_gateway_app.py");
    return layout;
}

Result<> KubernetesBackend::checkConfiguration() const
{
    if (!m_options.configurationError)
        return {};
    Error error = *m_options.configurationError;
    error.kind = Error::Kind::InvalidArgument;
    return fail(std::move(error));
}

Capabilities KubernetesBackend::capabilities() const
{
    return Capability::ContainerLog | Capability::ContainerLogStream | Capability::StopInsteadOfPause
        | Capability::Metrics | Capability::Files | Capability::Exec | Capability::Watch;
}

QString KubernetesBackend::killWarning(const SandboxInfo &sandbox) const
{
    return Tr::tr("Deletes the Pod %1 and the PersistentVolumeClaim %1 in the namespace %2, with every file of the "
                  "workspace: its data cannot be recovered.")
        .arg(sandbox.sandboxId, m_options.cluster.ns);
}

SandboxInfo KubernetesBackend::stateOf(const std::optional<PodView> &pod, const std::optional<PvcView> &pvc) const
{
    auto state =
        workspaceState(pod, pvc, m_options.cluster.ns, m_options.unschedulableGrace, QDateTime::currentDateTimeUtc());
    if (state)
        return *state;
    SandboxInfo gone;
    gone.sandboxId = pod ? pod->name : (pvc ? pvc->name : QString());
    gone.backend = name();
    gone.state = SandboxState::Terminated;
    gone.rawState = QStringLiteral("Gone");
    return gone;
}

QCoro::Task<bool> KubernetesBackend::sleep(std::chrono::milliseconds delay)
{
    if (m_closing)
        co_return false;
    const bool open = co_await m_client->http()->sleep(delay);
    co_return open && !m_closing;
}

void KubernetesBackend::noteRunning(const PodView &pod)
{
    m_running.insert(pod.name, QDateTime::currentDateTimeUtc());
}

void KubernetesBackend::forget(const QString &name)
{
    m_recent.remove(name);
    m_running.remove(name);
    m_held.remove(name);
}

QCoro::Task<Result<QList<SandboxInfo>>> KubernetesBackend::list(ListFilter filter)
{
    auto hold = m_tasks.hold();
    if (m_options.configurationError)
        co_return fail(*m_options.configurationError);
    QList<SandboxInfo> found;
    const auto wanted = [&filter](const SandboxInfo &info) {
        return filter.states.isEmpty() || filter.states.contains(info.state);
    };
    if (filter.workspaceId) {
        // By name, as AgentScope finds its objects: one GET, two when there is no Pod.
        const QString workspaceId = *filter.workspaceId;
        const QString objectName = safeName(workspaceId);
        auto pod = co_await m_client->getPod(objectName);
        if (!pod)
            co_return fail(pod.error());
        std::optional<PvcView> pvc;
        if (!*pod || (*pod)->phase != QLatin1String("Running")) {
            auto gotPvc = co_await m_client->getPvc(objectName);
            if (!gotPvc)
                co_return fail(gotPvc.error());
            pvc = *gotPvc;
        }
        // Another id with the same name ("A-B" and "a_b") is not this workspace.
        if (*pod && (*pod)->workspaceId() != workspaceId)
            *pod = std::nullopt;
        // An open asks connect() next: it takes this answer instead of asking again.
        if (*pod)
            m_recent.insert(objectName, Seen{**pod, QDateTime::currentDateTimeUtc()});
        if (pvc && pvc->workspaceId() != workspaceId)
            pvc = std::nullopt;
        if (!*pod && !pvc)
            co_return found;
        const SandboxInfo info = stateOf(*pod, pvc);
        if (info.state != SandboxState::Terminated && wanted(info))
            found.append(info);
        co_return found;
    }

    const QString selector = managedSelector();
    // Both listings at once (a task runs as soon as it is made); each is always waited for.
    QCoro::Task<Result<ListPage<PvcView>>> claims = m_client->listPvcs(selector);
    auto pods = co_await m_client->listPods(selector);
    auto pvcs = co_await std::move(claims);
    if (!pods)
        co_return fail(pods.error());
    if (!pvcs)
        co_return fail(pvcs.error());
    QHash<QString, const PvcView *> pvcByName;
    for (const PvcView &pvc : std::as_const(pvcs->items))
        pvcByName.insert(pvc.name, &pvc);
    QSet<QString> seen;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (const PodView &pod : std::as_const(pods->items)) {
        seen.insert(pod.name);
        const PvcView *pvc = pvcByName.value(pod.name);
        auto info = workspaceState(pod, pvc ? std::optional<PvcView>(*pvc) : std::nullopt, m_options.cluster.ns,
                                   m_options.unschedulableGrace, now);
        if (info && wanted(*info))
            found.append(*info);
    }
    for (const PvcView &pvc : std::as_const(pvcs->items)) {
        if (seen.contains(pvc.name))
            continue;
        auto info = workspaceState(std::nullopt, pvc, m_options.cluster.ns, m_options.unschedulableGrace, now);
        if (info && wanted(*info))
            found.append(*info);
    }
    if (m_watching)
        applyListing(pods->items, pvcs->items, true, true);
    co_return found;
}

QCoro::Task<Result<SandboxInfo>> KubernetesBackend::get(QString sandboxId)
{
    auto hold = m_tasks.hold();
    if (m_options.configurationError)
        co_return fail(*m_options.configurationError);
    auto pod = co_await m_client->getPod(sandboxId);
    if (!pod)
        co_return fail(pod.error());
    auto pvc = co_await m_client->getPvc(sandboxId);
    if (!pvc)
        co_return fail(pvc.error());
    const SandboxInfo info = stateOf(*pod, *pvc);
    if (info.state == SandboxState::Terminated)
        co_return fail(Error::notFound(
            Tr::tr("there is no workspace Pod or PVC %1 in the namespace %2").arg(sandboxId, m_options.cluster.ns)));
    co_return info;
}

QCoro::Task<Result<SandboxDetails>> KubernetesBackend::details(QString sandboxId)
{
    auto hold = m_tasks.hold();
    if (m_options.configurationError)
        co_return fail(*m_options.configurationError);
    // Both at once (a task runs as soon as it is made); each is always waited for.
    QCoro::Task<Result<std::optional<PvcView>>> claim = m_client->getPvc(sandboxId);
    auto pod = co_await m_client->getPodDetails(sandboxId);
    auto pvc = co_await std::move(claim);
    if (!pod)
        co_return fail(pod.error());
    if (!pvc)
        co_return fail(pvc.error());
    std::optional<PodView> view;
    if (*pod)
        view = (*pod)->view;
    SandboxInfo info = stateOf(view, *pvc);
    if (info.state == SandboxState::Terminated)
        co_return fail(Error::notFound(
            Tr::tr("there is no workspace Pod or PVC %1 in the namespace %2").arg(sandboxId, m_options.cluster.ns)));
    co_return workspaceDetails(std::move(info), *pod, *pvc, m_options.cluster.ns, m_options.cluster.server());
}

QCoro::Task<Result<SandboxInfo>> KubernetesBackend::create(CreateSpec spec)
{
    auto hold = m_tasks.hold();
    if (m_options.configurationError)
        co_return fail(*m_options.configurationError);
    if (auto valid = checkWorkspaceId(spec.workspaceId); !valid)
        co_return fail(valid.error());
    QMap<QString, QString> extra = spec.metadata;
    extra.remove(WorkspaceIdKey);
    const Owner owner{spec.userId, spec.agentId, extra};
    co_return co_await openWorkspace(spec.workspaceId, owner);
}

QCoro::Task<Result<SandboxInfo>> KubernetesBackend::resume(QString sandboxId)
{
    auto hold = m_tasks.hold();
    if (m_options.configurationError)
        co_return fail(*m_options.configurationError);
    // The PVC says whose workspace this is (the Pod may be gone).
    auto pvc = co_await m_client->getPvc(sandboxId);
    if (!pvc)
        co_return fail(pvc.error());
    QString workspaceId;
    Owner owner;
    if (*pvc) {
        workspaceId = (*pvc)->workspaceId();
        owner = Owner{(*pvc)->annotations.value(UserIdKey), (*pvc)->annotations.value(AgentIdKey),
                      workspaceAnnotations((*pvc)->annotations)};
    } else {
        auto pod = co_await m_client->getPod(sandboxId);
        if (!pod)
            co_return fail(pod.error());
        if (!*pod)
            co_return fail(Error::notFound(Tr::tr("there is no workspace Pod or PVC %1 in the namespace %2")
                                               .arg(sandboxId, m_options.cluster.ns)));
        workspaceId = (*pod)->workspaceId();
        owner = Owner{(*pod)->annotations.value(UserIdKey), (*pod)->annotations.value(AgentIdKey),
                      workspaceAnnotations((*pod)->annotations)};
    }
    if (workspaceId.isEmpty())
        co_return fail(Error::conflict(
            Tr::tr("%1 has no %2 label: it is not a workspace AgentScope made").arg(sandboxId, WorkspaceIdKey)));
    co_return co_await openWorkspace(workspaceId, owner);
}

QCoro::Task<Result<SandboxInfo>> KubernetesBackend::connect(QString sandboxId)
{
    auto hold = m_tasks.hold();
    if (m_options.configurationError)
        co_return fail(*m_options.configurationError);
    Result<std::optional<PodView>> pod = std::optional<PodView>();
    const Seen recent = m_recent.take(sandboxId);
    if (recent.at.isValid() && recent.at.msecsTo(QDateTime::currentDateTimeUtc()) < RecentMs
        && recent.pod.phase == QLatin1String("Running") && !recent.pod.terminating())
        pod = std::optional<PodView>(recent.pod);
    else
        pod = co_await m_client->getPod(sandboxId);
    if (!pod)
        co_return fail(pod.error());
    if (!*pod) {
        // Stopped (its PVC kept) is a state to resume from; nothing at all is not found.
        auto pvc = co_await m_client->getPvc(sandboxId);
        if (!pvc)
            co_return fail(pvc.error());
        if (*pvc && !(*pvc)->terminating())
            co_return fail(Error::conflict(Tr::tr("workspace %1 is stopped (its Pod was deleted, its PVC kept): "
                                                  "resume it")
                                               .arg(sandboxId)));
        co_return fail(Error::notFound(
            Tr::tr("there is no workspace Pod or PVC %1 in the namespace %2").arg(sandboxId, m_options.cluster.ns)));
    }
    if ((*pod)->terminating())
        co_return fail(Error::conflict(Tr::tr("the Pod of workspace %1 is not running").arg(sandboxId)));
    PodView running = **pod;
    if (running.phase != QLatin1String("Running")) {
        if (running.phase != QLatin1String("Pending"))
            co_return fail(
                Error::conflict(Tr::tr("the Pod of workspace %1 is %2, not running").arg(sandboxId, running.phase)));
        auto waited = co_await waitForRunning(sandboxId);
        if (!waited)
            co_return fail(waited.error());
        running = *waited;
    }
    noteRunning(running);
    m_held.insert(sandboxId);
    co_return stateOf(running, std::nullopt);
}

QCoro::Task<Result<>> KubernetesBackend::ensureNamespace()
{
    if (m_namespaceReady || !m_options.ensureNamespace)
        co_return Result<>{};
    auto exists = co_await m_client->namespaceExists();
    if (!exists) {
        // A role that may not read namespaces: go on; the next call says if it is missing.
        if (exists.error().httpStatus == 403) {
            m_namespaceReady = true;
            co_return Result<>{};
        }
        co_return fail(exists.error());
    }
    if (!*exists) {
        auto created = co_await m_client->createNamespace();
        if (!created) {
            Error error = created.error();
            error.message = Tr::tr("the namespace %1 does not exist and could not be created: %2")
                                .arg(m_options.cluster.ns, error.message);
            co_return fail(std::move(error));
        }
        qCInfo(lcKube).noquote() << "created the namespace" << m_options.cluster.ns;
    }
    m_namespaceReady = true;
    co_return Result<>{};
}

std::chrono::milliseconds KubernetesBackend::terminatingLimit(const PodView &pod) const
{
    const int grace =
        pod.deletionGracePeriodSeconds > 0 ? pod.deletionGracePeriodSeconds : pod.terminationGracePeriodSeconds;
    return std::max(m_options.podTerminatingTimeout,
                    std::chrono::milliseconds(qint64(grace) * 1000) + m_options.terminatingMargin);
}

QCoro::Task<Result<>> KubernetesBackend::waitForPodGone(QString name, std::chrono::milliseconds limit)
{
    const QDeadlineTimer deadline(limit);
    for (;;) {
        auto pod = co_await m_client->getPod(name);
        if (!pod)
            co_return fail(pod.error());
        if (!*pod)
            co_return Result<>{};
        if (deadline.hasExpired())
            co_return fail(Error::timeout(Tr::tr("the Pod %1 did not finish deleting within %2 s")
                                              .arg(name)
                                              .arg(double(limit.count()) / 1000.0)));
        if (!co_await sleep(
                std::chrono::milliseconds(std::min<qint64>(1000, std::max<qint64>(100, deadline.remainingTime())))))
            co_return fail(Http::HttpClient::closedError());
    }
}

QCoro::Task<Result<>> KubernetesBackend::waitForPvcGone(QString name, std::chrono::milliseconds limit)
{
    const QDeadlineTimer deadline(limit);
    for (;;) {
        auto pvc = co_await m_client->getPvc(name);
        if (!pvc)
            co_return fail(pvc.error());
        if (!*pvc)
            co_return Result<>{};
        if (deadline.hasExpired())
            co_return fail(Error::timeout(Tr::tr("the PVC %1 did not finish deleting within %2 s")
                                              .arg(name)
                                              .arg(double(limit.count()) / 1000.0)));
        if (!co_await sleep(std::chrono::milliseconds(1000)))
            co_return fail(Http::HttpClient::closedError());
    }
}

QCoro::Task<Result<PvcView>> KubernetesBackend::ensurePvc(QString workspaceId, Owner owner, bool *created)
{
    const QString objectName = safeName(workspaceId);
    for (int attempt = 0; attempt < CreateAttempts; ++attempt) {
        auto pvc = co_await m_client->getPvc(objectName);
        if (!pvc)
            co_return fail(pvc.error());
        if (*pvc && (*pvc)->workspaceId() != workspaceId)
            co_return fail(Error::conflict(
                Tr::tr("the PVC %1 belongs to the workspace \"%2\", whose name is the same as that of \"%3\" on "
                       "Kubernetes: use another workspace id")
                    .arg(objectName, (*pvc)->workspaceId(), workspaceId)));
        if (*pvc && (*pvc)->terminating()) {
            if (auto gone = co_await waitForPvcGone(objectName, m_options.pvcDeletingTimeout); !gone)
                co_return fail(gone.error());
            continue;
        }
        if (*pvc)
            co_return **pvc; // kept as it is: its size, class and labels are not checked, as upstream
        if (auto ready = co_await ensureNamespace(); !ready)
            co_return fail(ready.error());
        const QJsonObject manifest = pvcManifest(workspaceId, m_options.cluster.ns, m_options.pod, owner);
        auto made = co_await m_client->createPvc(manifest);
        if (made) {
            *created = true;
            co_return *made;
        }
        // Someone else (another replica, AgentScope, our own create whose answer was lost) made
        // it meanwhile: take theirs. No answer at all: look again.
        if (made.error().kind != Error::Kind::Conflict && !outcomeUnknown(made.error()))
            co_return fail(made.error());
    }
    co_return fail(Error::conflict(Tr::tr("the PVC %1 keeps changing; try again").arg(objectName)));
}

QCoro::Task<Result<PodView>> KubernetesBackend::ensurePod(QString workspaceId, Owner owner)
{
    const QString objectName = safeName(workspaceId);
    for (int attempt = 0; attempt < CreateAttempts; ++attempt) {
        auto pod = co_await m_client->getPod(objectName);
        if (!pod)
            co_return fail(pod.error());
        if (*pod && (*pod)->workspaceId() != workspaceId)
            co_return fail(Error::conflict(
                Tr::tr("the Pod %1 belongs to the workspace \"%2\", whose name is the same as that of \"%3\" on "
                       "Kubernetes: use another workspace id")
                    .arg(objectName, (*pod)->workspaceId(), workspaceId)));
        if (*pod) {
            const PodView &existing = **pod;
            if (existing.terminating()) {
                if (auto gone = co_await waitForPodGone(objectName, terminatingLimit(existing)); !gone)
                    co_return fail(gone.error());
                continue;
            }
            if (existing.phase == QLatin1String("Running") || existing.phase == QLatin1String("Pending"))
                co_return existing;
            // Failed, Succeeded, Unknown: made again (errors of the delete are ignored, as upstream).
            qCInfo(lcKube).noquote() << "the Pod" << objectName << "is" << existing.phase << "- making it again";
            m_pausing.insert(objectName);
            co_await m_client->deletePod(objectName, m_options.deleteGracePeriodSeconds);
            if (m_closing)
                co_return fail(Http::HttpClient::closedError());
            if (auto gone = co_await waitForPodGone(objectName, terminatingLimit(existing)); !gone)
                co_return fail(gone.error());
            continue;
        }
        const QJsonObject manifest = podManifest(workspaceId, m_options.cluster.ns, m_options.pod, owner);
        auto made = co_await m_client->createPod(manifest);
        if (made)
            co_return *made;
        // AlreadyExists: made meanwhile (by our own create whose answer was lost, too), or the old
        // one is still terminating; or no answer at all: look again before anything else.
        if (made.error().kind != Error::Kind::Conflict && !outcomeUnknown(made.error()))
            co_return fail(made.error());
    }
    co_return fail(Error::conflict(Tr::tr("the Pod %1 keeps changing; try again").arg(objectName)));
}

QCoro::Task<Result<PodView>> KubernetesBackend::waitForRunning(QString name)
{
    const QDeadlineTimer deadline(m_options.runningTimeout);
    auto delay = m_options.pollFirst;
    QDateTime unschedulableSeen;
    for (;;) {
        auto got = co_await m_client->getPod(name);
        if (!got)
            co_return fail(got.error());
        if (!*got)
            co_return fail(Error::notFound(Tr::tr("the Pod %1 was deleted while it was starting").arg(name)));
        const PodView pod = **got;
        if (pod.phase == QLatin1String("Running") && !pod.terminating())
            co_return pod;
        if (pod.phase == QLatin1String("Failed") || pod.phase == QLatin1String("Unknown")
            || pod.phase == QLatin1String("Succeeded"))
            co_return fail(Error::backend(Tr::tr("the Pod %1 entered the %2 state").arg(name, pod.phase)));
        if (const auto stuck = stuckMessage(pod))
            co_return fail(Error::backend(Tr::tr("the container of the Pod %1 is stuck: %2").arg(name, *stuck)));
        if (pod.hasUnschedulable) {
            const QDateTime now = QDateTime::currentDateTimeUtc();
            // From when this wait first saw it (lastTransitionTime has whole seconds only).
            if (!unschedulableSeen.isValid())
                unschedulableSeen = now;
            if (unschedulableSeen.msecsTo(now) >= qint64(m_options.unschedulableGrace.count()) * 1000) {
                QString message = Tr::tr("the Pod %1 cannot be scheduled: %2").arg(name, pod.unschedulableMessage);
                // A PVC that no volume was bound to is the usual cause: say so.
                auto pvc = co_await m_client->getPvc(name);
                if (pvc && *pvc && (*pvc)->phase == QLatin1String("Pending")) {
                    message += u' ';
                    if ((*pvc)->storageClass.isEmpty())
                        message += Tr::tr("Its PVC %1 is still Pending (no volume is bound to it): check the "
                                          "cluster's default storage class.")
                                       .arg(name);
                    else
                        message += Tr::tr("Its PVC %1 is still Pending (no volume is bound to it): check the storage "
                                          "class %2.")
                                       .arg(name, (*pvc)->storageClass);
                }
                co_return fail(Error::backend(message));
            }
        } else {
            unschedulableSeen = {};
        }
        if (deadline.hasExpired())
            co_return fail(Error::timeout(Tr::tr("the Pod %1 did not become Running within %2 s (it is %3)")
                                              .arg(name)
                                              .arg(double(m_options.runningTimeout.count()) / 1000.0)
                                              .arg(pod.waitingReason.isEmpty() ? pod.phase : pod.waitingReason)));
        if (!co_await sleep(delay))
            co_return fail(Http::HttpClient::closedError());
        delay = std::min(m_options.pollMax,
                         std::chrono::milliseconds(qint64(double(delay.count()) * m_options.pollFactor)));
    }
}

QCoro::Task<Result<SandboxInfo>> KubernetesBackend::openWorkspace(QString workspaceId, Owner owner)
{
    const QString objectName = safeName(workspaceId);
    bool pvcCreated = false;
    auto pvc = co_await ensurePvc(workspaceId, owner, &pvcCreated);
    if (!pvc)
        co_return fail(pvc.error());
    // Owners that only the Pod knew (AgentScope records none): the PVC's annotations, if any.
    if (owner.userId.isEmpty())
        owner.userId = pvc->annotations.value(UserIdKey);
    if (owner.agentId.isEmpty())
        owner.agentId = pvc->annotations.value(AgentIdKey);
    if (owner.metadata.isEmpty())
        owner.metadata = workspaceAnnotations(pvc->annotations);
    auto pod = co_await ensurePod(workspaceId, owner);
    Result<PodView> running = pod;
    if (pod && !(pod->phase == QLatin1String("Running") && !pod->terminating()))
        running = co_await waitForRunning(objectName);
    if (!running) {
        if (m_closing)
            co_return fail(running.error());
        // Nothing stays that the user did not ask for: the Pod goes; a PVC made just now (empty)
        // goes too; one that was there holds the workspace's files and stays, and the message
        // says so.
        Error error = running.error();
        if (pod) {
            m_pausing.insert(objectName);
            co_await m_client->deletePod(objectName, m_options.deleteGracePeriodSeconds);
        }
        if (m_closing)
            co_return fail(error);
        if (pvcCreated) {
            auto removed = co_await m_client->deletePvc(objectName);
            if (!removed)
                error.message += u' '
                    + Tr::tr("The PVC %1 made for it could not be deleted: %2")
                          .arg(objectName, removed.error().message);
        } else {
            error.message += u' ' + Tr::tr("The PVC %1 was kept: it holds the workspace's files.").arg(objectName);
        }
        co_return fail(std::move(error));
    }
    noteRunning(*running);
    m_held.insert(objectName);
    m_pausing.remove(objectName);
    co_return stateOf(*running, *pvc);
}

QCoro::Task<Result<>> KubernetesBackend::pause(QString sandboxId)
{
    auto hold = m_tasks.hold();
    auto requested = co_await requestPause(sandboxId);
    if (!requested)
        co_return fail(requested.error());
    if (*requested)
        co_return Result<>{};
    const std::chrono::milliseconds limit = m_pauseLimits.take(sandboxId);
    co_return co_await waitForPodGone(sandboxId, limit);
}

QCoro::Task<Result<bool>> KubernetesBackend::requestPause(QString sandboxId)
{
    auto hold = m_tasks.hold();
    if (m_options.configurationError)
        co_return fail(*m_options.configurationError);
    // AgentScope's close: the Pod goes, the PVC (the files) stays.
    m_pausing.insert(sandboxId);
    forget(sandboxId);
    auto pod = co_await m_client->getPod(sandboxId);
    if (!pod)
        co_return fail(pod.error());
    if (!*pod) {
        // Stopped already, or not there at all.
        auto pvc = co_await m_client->getPvc(sandboxId);
        if (!pvc)
            co_return fail(pvc.error());
        if (*pvc && !(*pvc)->terminating())
            co_return true;
        co_return fail(Error::notFound(
            Tr::tr("there is no workspace Pod or PVC %1 in the namespace %2").arg(sandboxId, m_options.cluster.ns)));
    }
    auto deleted = co_await m_client->deletePod(sandboxId, m_options.deleteGracePeriodSeconds);
    if (!deleted)
        co_return fail(deleted.error());
    m_pauseLimits.insert(sandboxId, terminatingLimit(**pod));
    co_return false;
}

QCoro::Task<QList<Result<>>> KubernetesBackend::settlePauses(QStringList sandboxIds, PauseSettled settled)
{
    auto hold = m_tasks.hold();
    QList<std::optional<Result<>>> results(sandboxIds.size());
    QHash<QString, QList<qsizetype>> pending; // Pod name -> its indexes
    std::chrono::milliseconds longest{0};
    for (qsizetype i = 0; i < sandboxIds.size(); ++i) {
        pending[sandboxIds.at(i)].append(i);
        longest = std::max(longest, m_pauseLimits.value(sandboxIds.at(i), std::chrono::milliseconds(30'000)));
    }
    const auto finish = [&](const QString &name, const Result<> &outcome) {
        for (const qsizetype index : pending.value(name)) {
            results[index] = outcome;
            if (settled)
                settled(index, outcome);
        }
        m_pauseLimits.remove(name);
    };
    const QDeadlineTimer deadline(longest);
    const QString selector = managedSelector();
    int failedReads = 0;
    while (!pending.isEmpty()) {
        QSet<QString> present; // Pods still there (terminating)
        const QStringList names = pending.keys();
        std::optional<Error> readError;
        if (names.size() <= 4) {
            for (const QString &name : names) {
                auto pod = co_await m_client->getPod(name);
                if (!pod)
                    readError = pod.error();
                else if (*pod)
                    present.insert(name);
            }
        } else {
            auto pods = co_await m_client->listPods(selector);
            if (!pods)
                readError = pods.error();
            else {
                for (const PodView &pod : std::as_const(pods->items))
                    present.insert(pod.name);
            }
        }
        if (readError) {
            // A read that failed says nothing of the Pods: tried again, given up after three.
            if (++failedReads >= 3 || deadline.hasExpired()) {
                for (const QString &name : names)
                    finish(name, fail(*readError));
                pending.clear();
                break;
            }
        } else {
            failedReads = 0;
            for (const QString &name : names) {
                if (!present.contains(name)) {
                    finish(name, Result<>{});
                    pending.remove(name);
                }
            }
            if (pending.isEmpty())
                break;
            if (deadline.hasExpired()) {
                for (auto it = pending.cbegin(); it != pending.cend(); ++it) {
                    const auto limit = m_pauseLimits.value(it.key(), longest);
                    finish(it.key(),
                           fail(Error::timeout(Tr::tr("the Pod %1 did not finish deleting within %2 s")
                                                   .arg(it.key())
                                                   .arg(double(limit.count()) / 1000.0))));
                }
                pending.clear();
                break;
            }
        }
        if (!co_await sleep(
                std::chrono::milliseconds(std::min<qint64>(1000, std::max<qint64>(100, deadline.remainingTime())))))
            break;
    }
    co_return settledResults(results, settled); // what the loop left (closing): not done
}

QCoro::Task<Result<>> KubernetesBackend::kill(QString sandboxId, KillOptions)
{
    auto hold = m_tasks.hold();
    if (m_options.configurationError)
        co_return fail(*m_options.configurationError);
    m_pausing.insert(sandboxId);
    forget(sandboxId);
    auto pod = co_await m_client->deletePod(sandboxId, m_options.deleteGracePeriodSeconds);
    if (!pod)
        co_return fail(pod.error());
    // The PVC stays (its finalizer) until the Pod is gone, then goes on its own.
    auto pvc = co_await m_client->deletePvc(sandboxId);
    if (!pvc)
        co_return fail(pvc.error());
    if (!*pod && !*pvc)
        co_return fail(Error::notFound(
            Tr::tr("there is no workspace Pod or PVC %1 in the namespace %2").arg(sandboxId, m_options.cluster.ns)));
    // Done when the Pod is gone: the PVC then only waits for its finalizer, and the workspace is
    // gone for every reader (§3).
    if (*pod) {
        const std::chrono::milliseconds limit = m_options.podTerminatingTimeout + m_options.terminatingMargin;
        co_return co_await waitForPodGone(sandboxId, limit);
    }
    co_return Result<>{};
}

QCoro::Task<Result<SandboxInfo>> KubernetesBackend::renew(QString sandboxId, std::chrono::seconds)
{
    co_return fail(Error::unsupported(
        Tr::tr("workspace %1 does not expire on Kubernetes, so it cannot be renewed").arg(sandboxId)));
}

QCoro::Task<Result<bool>> KubernetesBackend::isReady(QString sandboxId)
{
    auto hold = m_tasks.hold();
    if (m_options.configurationError)
        co_return fail(*m_options.configurationError);
    const QDateTime seen = m_running.value(sandboxId);
    if (seen.isValid() && seen.msecsTo(QDateTime::currentDateTimeUtc()) < RunningFreshMs)
        co_return true;
    auto pod = co_await m_client->getPod(sandboxId);
    if (!pod)
        co_return fail(pod.error());
    const bool ready = *pod && (*pod)->phase == QLatin1String("Running") && !(*pod)->terminating();
    if (ready)
        noteRunning(**pod);
    co_return ready;
}

QCoro::Task<Result<ExecResult>> KubernetesBackend::exec(QString sandboxId, ExecRequest request)
{
    auto hold = m_tasks.hold();
    if (m_options.configurationError)
        co_return fail(*m_options.configurationError);
    if (request.argv.isEmpty())
        co_return fail(Error::invalidArgument(Tr::tr("there is no command to run")));
    if (request.cancel && request.cancel->isCancelled())
        co_return fail(Error{Error::Kind::Cancelled, Tr::tr("cancelled: the command was not started")});
    // Closing the connection leaves the command running in a real Pod: one that may have to be
    // ended (a cancel, a time limit) says its pid first, and a second exec kills its group.
    const bool stoppable = request.cancel || request.timeout.count() > 0;
    PodExecCommand command;
    command.argv = cwdCommand(request.argv, request.cwd);
    if (stoppable)
        command.argv = announcingPid(command.argv);
    command.container = ContainerName;
    command.timeout = request.timeout;
    const auto letGo = std::make_shared<CancelToken>();
    command.cancel = letGo;

    // The lines are cut here, after the announcement is taken off stderr.
    ExecResult result;
    LineSplitter out(OutputChannel::Stdout, request.onLine, result.stdOut, request.onData);
    LineSplitter err(OutputChannel::Stderr, request.onLine, result.stdErr, request.onData);
    struct Stop
    {
        PidAnnouncement announcement;
        bool cancelled = false; // request.cancel fired
        bool wanted = false; // the command is to be killed (cancelled, or its time is up)
        std::optional<QCoro::Task<Result<>>> killing;
    };
    Stop stop;
    const auto startKill = [this, &stop, &sandboxId, &letGo] {
        if (stop.wanted && !stop.killing && stop.announcement.pid())
            stop.killing.emplace(killGroup(sandboxId, *stop.announcement.pid(), letGo));
    };
    // A cancel before the pid waits for it (it is the command's first output); should none come
    // (the connection is not up yet, say), the connection is let go after a while, which ends a
    // command that has not started.
    QTimer noPid;
    noPid.setSingleShot(true);
    QObject::connect(&noPid, &QTimer::timeout, &noPid, [&letGo] { letGo->cancel(); });
    int cancelId = 0;
    if (request.cancel) {
        cancelId = request.cancel->onCancel([&stop, &startKill, &noPid] {
            stop.cancelled = true;
            stop.wanted = true;
            startKill();
            if (!stop.announcement.pid())
                noPid.start(std::chrono::seconds(5));
        });
    }
    const auto forgetCancel = qScopeGuard([&request, cancelId] {
        if (request.cancel && cancelId != 0)
            request.cancel->remove(cancelId);
    });
    command.onChunk = [&](OutputChannel channel, const QByteArray &data) {
        if (channel == OutputChannel::Stdout) {
            out.feed(data);
            return;
        }
        if (!stoppable) {
            err.feed(data);
            return;
        }
        const bool knew = stop.announcement.pid().has_value();
        err.feed(stop.announcement.feed(data));
        if (!knew && stop.announcement.pid()) {
            noPid.stop();
            startKill(); // a cancel that came before the pid
        }
    };

    auto ran = co_await runInPod(sandboxId, std::move(command));
    noPid.stop();
    err.feed(stop.announcement.finish());
    out.finish();
    err.finish();
    // A time limit that passed leaves the command running in the Pod: it is ended too.
    if (ran && ran->timedOut) {
        stop.wanted = true;
        startKill();
    }
    Result<> killed{};
    if (stop.killing)
        killed = co_await *stop.killing;
    if (stop.cancelled) {
        if (!killed) {
            co_return fail(Error::backend(
                Tr::tr("the command in pod %1 could not be stopped: %2").arg(sandboxId, killed.error().message)));
        }
        if (ran || ran.error().kind == Error::Kind::Cancelled)
            co_return fail(Error{Error::Kind::Cancelled, Tr::tr("cancelled: the command was stopped")});
    } else if (!killed) {
        qCWarning(lcKube).noquote() << "a command that timed out in pod" << sandboxId
                                    << "could not be stopped:" << killed.error().message;
    }
    if (!ran) {
        if (ran.error().kind == Error::Kind::NotFound && m_held.contains(sandboxId) && !m_closing) {
            const QString workspaceId = m_pods.value(sandboxId).workspaceId();
            forget(sandboxId);
            Q_EMIT sandboxLost(sandboxId, workspaceId);
        }
        co_return fail(ran.error());
    }
    result.exitCode = ran->exitCode;
    result.timedOut = ran->timedOut;
    co_return result;
}

QCoro::Task<Result<>> KubernetesBackend::killGroup(QString podName, qint64 pid, std::shared_ptr<CancelToken> letGo)
{
    PodExecCommand command;
    command.argv = killGroupCommand(pid);
    command.container = ContainerName;
    command.timeout = std::chrono::seconds(60);
    auto killed = co_await runInPod(std::move(podName), std::move(command));
    if (!killed)
        co_return fail(killed.error());
    // Its group is dead (or was gone already): what is left of the connection is not waited for.
    letGo->cancel();
    co_return Result<>{};
}

std::optional<TerminalCommand> KubernetesBackend::terminalCommand(const SandboxInfo &sandbox) const
{
    if (m_options.configurationError || sandbox.sandboxId.isEmpty())
        return std::nullopt;
    TerminalCommand command;
    command.program = QStringLiteral("kubectl");
    if (!m_options.kubeconfigFile.isEmpty())
        command.arguments << QStringLiteral("--kubeconfig") << m_options.kubeconfigFile;
    if (!m_options.contextName.isEmpty())
        command.arguments << QStringLiteral("--context") << m_options.contextName;
    command.arguments << QStringLiteral("-n") << m_options.cluster.ns << QStringLiteral("exec") << QStringLiteral("-it")
                      << sandbox.sandboxId << QStringLiteral("-c") << QString(ContainerName) << QStringLiteral("--")
                      << QStringLiteral("sh") << QStringLiteral("-c")
                      << QStringLiteral("cd %1 2>/dev/null; command -v bash >/dev/null 2>&1 && exec bash; exec sh")
                             .arg(shellQuote(layout(sandbox).workdir));
    return command;
}

QCoro::Task<Result<ExecResult>>
KubernetesBackend::execRaw(QString podName, QStringList argv, QByteArray stdinData, std::chrono::milliseconds timeout,
                           std::function<void(OutputChannel, const QByteArray &)> onLine)
{
    PodExecCommand command;
    command.argv = argv;
    command.container = ContainerName;
    command.withStdin = !stdinData.isEmpty();
    command.stdinData = std::move(stdinData);
    command.timeout = timeout;
    command.onLine = std::move(onLine);
    co_return co_await runInPod(std::move(podName), std::move(command));
}

QCoro::Task<Result<ExecResult>> KubernetesBackend::runInPod(QString podName, PodExecCommand command)
{
    auto hold = m_tasks.hold();
    if (m_options.configurationError)
        co_return fail(*m_options.configurationError);
    auto request = co_await m_client->execRequest(podName);
    if (!request)
        co_return fail(request.error());
    if (m_closing)
        co_return fail(Http::HttpClient::closedError());
    auto ran = co_await m_exec->run(*request, std::move(command));
    if (!ran)
        co_return fail(ran.error());
    co_return ran->exec;
}

template<typename T, typename Work> QCoro::Task<Result<T>> KubernetesBackend::onFiles(QString podName, Work work)
{
    auto hold = m_tasks.hold();
    if (m_options.configurationError)
        co_return fail(*m_options.configurationError);
    ExecFiles files(
        [this, podName](ScriptCommand script) {
            PodExecCommand command;
            command.argv = std::move(script.argv);
            command.container = ContainerName;
            command.timeout = script.timeout;
            command.onChunk = std::move(script.onChunk);
            command.withStdin = script.withStdin;
            command.stdinSource = std::move(script.stdinSource);
            return runInPod(podName, std::move(command));
        },
        layout(SandboxInfo()));
    co_return co_await work(files);
}

// The work lambdas are named, never temporaries in a co_await (GCC 12, README.md).
QCoro::Task<Result<QList<FileEntry>>> KubernetesBackend::listFolder(QString sandboxId, QString path)
{
    auto work = [path](ExecFiles &files) { return files.listFolder(path); };
    co_return co_await onFiles<QList<FileEntry>>(std::move(sandboxId), std::move(work));
}

QCoro::Task<Result<FileEntry>> KubernetesBackend::stat(QString sandboxId, QString path)
{
    auto work = [path](ExecFiles &files) { return files.stat(path); };
    co_return co_await onFiles<FileEntry>(std::move(sandboxId), std::move(work));
}

QCoro::Task<Result<FileChunk>> KubernetesBackend::readFile(QString sandboxId, QString path, qint64 offset,
                                                           qint64 length)
{
    auto work = [path, offset, length](ExecFiles &files) { return files.readFile(path, offset, length); };
    co_return co_await onFiles<FileChunk>(std::move(sandboxId), std::move(work));
}

QCoro::Task<Result<>> KubernetesBackend::download(QString sandboxId, QString path, QString localPath)
{
    auto work = [path, localPath](ExecFiles &files) { return files.download(path, localPath); };
    co_return co_await onFiles<void>(std::move(sandboxId), std::move(work));
}

QCoro::Task<Result<>> KubernetesBackend::upload(QString sandboxId, QString localPath, QString path)
{
    auto work = [localPath, path](ExecFiles &files) { return files.upload(localPath, path); };
    co_return co_await onFiles<void>(std::move(sandboxId), std::move(work));
}

QCoro::Task<Result<std::optional<QDateTime>>> KubernetesBackend::sessionsActivity(QString sandboxId)
{
    auto hold = m_tasks.hold();
    if (m_options.configurationError)
        co_return fail(*m_options.configurationError);
    // The newest change time, two levels deep, as the other backends read it (seconds: stat's
    // %Y is the one form GNU and busybox share).
    const QString sessions = PodWorkdir + QStringLiteral("/sessions");
    const QStringList argv{
        QStringLiteral("sh"), QStringLiteral("-c"),
        QStringLiteral("[ -d \"$1\" ] || exit 3; find \"$1\" -maxdepth 2 -exec stat -c %Y {} + 2>/dev/null | sort -n | "
                       "tail -n 1"),
        QStringLiteral("sh"), sessions};
    const QByteArray noInput;
    const std::function<void(OutputChannel, const QByteArray &)> noLines;
    auto result = co_await execRaw(sandboxId, argv, noInput, std::chrono::milliseconds(30'000), noLines);
    if (!result)
        co_return fail(result.error());
    if (result->exitCode == 3)
        co_return std::optional<QDateTime>();
    bool ok = false;
    const qint64 seconds = result->stdOut.trimmed().toLongLong(&ok);
    if (result->exitCode != 0 || !ok)
        co_return fail(Error::backend(
            Tr::tr("cannot read when %1 last changed: %2").arg(sessions, QString::fromUtf8(result->stdErr).trimmed())));
    co_return std::optional<QDateTime>(QDateTime::fromSecsSinceEpoch(seconds, Qt::UTC));
}

QCoro::Task<Result<QList<SandboxMetrics>>> KubernetesBackend::metrics(QStringList sandboxIds)
{
    auto hold = m_tasks.hold();
    if (m_options.configurationError)
        co_return fail(*m_options.configurationError);
    const QString selector = managedSelector();
    const auto body = co_await m_client->podMetrics(selector);
    if (!body) {
        if (Backend::lacksRoute(body.error().httpStatus))
            co_return fail(Backend::metricsNotReported(body.error().httpStatus));
        co_return fail(body.error());
    }
    const QHash<QString, SandboxMetrics> pods = MetricsWire::parsePodMetricsList(*body);
    QList<SandboxMetrics> list;
    for (const QString &id : std::as_const(sandboxIds)) {
        if (const auto it = pods.constFind(id); it != pods.constEnd()) {
            list.append(it.value());
            if (!list.last().sampledAt.isValid())
                list.last().sampledAt = QDateTime::currentDateTimeUtc();
        }
    }
    co_return list;
}

QCoro::Task<Result<QByteArray>> KubernetesBackend::containerLogs(QString sandboxId, int tail)
{
    auto hold = m_tasks.hold();
    if (m_options.configurationError)
        co_return fail(*m_options.configurationError);
    co_return co_await m_client->podLog(sandboxId, tail);
}

QCoro::Task<Result<>> KubernetesBackend::followContainerLog(QString sandboxId, int tail,
                                                            std::function<void(QByteArrayView)> onData,
                                                            std::shared_ptr<CancelToken> cancel)
{
    auto hold = m_tasks.hold();
    if (m_options.configurationError)
        co_return fail(*m_options.configurationError);
    co_return co_await m_client->followPodLog(sandboxId, tail, std::move(onData), std::move(cancel));
}

// Watching ----------------------------------------------------------------------------------

void KubernetesBackend::cancelReads()
{
    if (m_client)
        m_client->cancelReads();
}

void KubernetesBackend::setWatching(bool watching)
{
    if (watching == m_watching || m_closing)
        return;
    m_watching = watching;
    if (!watching) {
        if (m_watchCancel)
            m_watchCancel->cancel();
        m_watchCancel.reset();
        m_pods.clear();
        m_pvcs.clear();
        m_podsListed = false;
        m_pvcsListed = false;
        m_podsWatchUp = false;
        m_pvcsWatchUp = false;
        m_unreported.clear();
        return;
    }
    m_watchCancel = std::make_shared<CancelToken>();
    QCoro::connect(watchLoop(Resource::Pods, m_watchCancel), this, [] {});
    QCoro::connect(watchLoop(Resource::PersistentVolumeClaims, m_watchCancel), this, [] {});
}

bool KubernetesBackend::isWatchLive() const
{
    return m_watching && m_podsWatchUp && m_pvcsWatchUp;
}

QCoro::Task<> KubernetesBackend::watchLoop(Resource resource, std::shared_ptr<CancelToken> cancel)
{
    auto hold = m_tasks.hold();
    if (m_options.configurationError)
        co_return;
    QString resourceVersion;
    auto delay = m_options.pollFirst;
    const QString selector = managedSelector();
    // Up once listed, down while listing or watching fails (refused, say), up again once a watch
    // is accepted.
    bool &up = resource == Resource::Pods ? m_podsWatchUp : m_pvcsWatchUp;
    const std::function<void()> onOpened = [&up, cancel] {
        if (!cancel->isCancelled())
            up = true;
    };
    const std::function<void(const WatchEvent &)> onEvent = [this, &up, cancel](const WatchEvent &event) {
        if (!cancel->isCancelled())
            up = true;
        applyEvent(event);
    };
    while (!cancel->isCancelled() && !m_closing) {
        if (resourceVersion.isEmpty()) {
            // List first: the watch goes on from the list's resourceVersion.
            if (resource == Resource::Pods) {
                auto pods = co_await m_client->listPods(selector);
                if (cancel->isCancelled() || m_closing)
                    co_return;
                if (pods) {
                    applyListing(pods->items, {}, true, false);
                    resourceVersion = pods->resourceVersion;
                }
            } else {
                auto pvcs = co_await m_client->listPvcs(selector);
                if (cancel->isCancelled() || m_closing)
                    co_return;
                if (pvcs) {
                    applyListing({}, pvcs->items, false, true);
                    resourceVersion = pvcs->resourceVersion;
                }
            }
            up = !resourceVersion.isEmpty();
            if (resourceVersion.isEmpty()) {
                if (!co_await sleep(delay))
                    co_return;
                delay = std::min(m_options.pollMax * 10, delay * 2);
                continue;
            }
        }
        auto outcome = co_await m_client->watch(resource, selector, resourceVersion, m_options.watchTimeout, onEvent,
                                                cancel, onOpened);
        if (cancel->isCancelled() || m_closing)
            co_return;
        if (!outcome) {
            up = false;
            qCInfo(lcKube).noquote() << "watch ended:" << outcome.error().message;
            if (!co_await sleep(delay))
                co_return;
            delay = std::min(m_options.pollMax * 10, delay * 2);
            continue;
        }
        up = true;
        delay = m_options.pollFirst;
        // 410: too old; list again. Otherwise the server ended the stream: go on from where it was.
        resourceVersion = outcome->expired ? QString() : outcome->resourceVersion;
    }
}

namespace {

// Replaces what a watch knows of one kind with a listing, and notes every name that appeared,
// changed (another resourceVersion) or went.
template<typename View>
void replaceKnown(QHash<QString, View> &known, const QList<View> &listed, QSet<QString> &touched)
{
    QHash<QString, View> fresh;
    for (const View &view : listed)
        fresh.insert(view.name, view);
    for (auto it = known.cbegin(); it != known.cend(); ++it) {
        if (!fresh.contains(it.key()))
            touched.insert(it.key());
    }
    for (auto it = fresh.cbegin(); it != fresh.cend(); ++it) {
        const auto old = known.constFind(it.key());
        if (old == known.cend() || old->resourceVersion != it->resourceVersion)
            touched.insert(it.key());
    }
    known = std::move(fresh);
}

} // namespace

void KubernetesBackend::applyListing(const QList<PodView> &pods, const QList<PvcView> &pvcs, bool podsKnown,
                                     bool pvcsKnown)
{
    QSet<QString> touched;
    if (podsKnown) {
        replaceKnown(m_pods, pods, touched);
        m_podsListed = true;
    }
    if (pvcsKnown) {
        replaceKnown(m_pvcs, pvcs, touched);
        m_pvcsListed = true;
    }
    if (!m_podsListed || !m_pvcsListed) {
        // Half a workspace is no state to report (every Running one would read Stopped until
        // its Pods are listed): reported once the other kind is known.
        m_unreported.unite(touched);
        return;
    }
    touched.unite(std::exchange(m_unreported, {}));
    for (const QString &name : std::as_const(touched))
        publish(name);
}

void KubernetesBackend::applyEvent(const WatchEvent &event)
{
    QString objectName;
    if (event.pod) {
        objectName = event.pod->name;
        if (event.type == WatchEvent::Type::Deleted) {
            m_pods.remove(objectName);
            m_running.remove(objectName);
            // A Pod we hold, deleted by someone else: the workspace lost its sandbox.
            if (m_held.contains(objectName) && !m_pausing.contains(objectName)) {
                m_held.remove(objectName);
                Q_EMIT sandboxLost(objectName, event.pod->workspaceId());
            }
            m_pausing.remove(objectName);
        } else {
            m_pods.insert(objectName, *event.pod);
        }
    } else if (event.pvc) {
        objectName = event.pvc->name;
        if (event.type == WatchEvent::Type::Deleted)
            m_pvcs.remove(objectName);
        else
            m_pvcs.insert(objectName, *event.pvc);
    }
    if (objectName.isEmpty())
        return;
    if (!m_podsListed || !m_pvcsListed)
        m_unreported.insert(objectName); // reported with the first listing of the other kind
    else
        publish(objectName);
}

void KubernetesBackend::publish(const QString &objectName)
{
    const auto pod = m_pods.constFind(objectName);
    const auto pvc = m_pvcs.constFind(objectName);
    const std::optional<PodView> podView = pod == m_pods.cend() ? std::nullopt : std::optional<PodView>(*pod);
    const std::optional<PvcView> pvcView = pvc == m_pvcs.cend() ? std::nullopt : std::optional<PvcView>(*pvc);
    auto state = workspaceState(podView, pvcView, m_options.cluster.ns, m_options.unschedulableGrace,
                                QDateTime::currentDateTimeUtc());
    if (state)
        Q_EMIT sandboxChanged(*state);
    else
        Q_EMIT sandboxRemoved(objectName);
}

} // namespace Paddock::Kubernetes
