#include "workspaceactions.h"

#include "activitytracker.h"
#include "confirmdialog.h"
#include "dialogwait.h"
#include "renewdialog.h"
#include "workspacetreemodel.h"

#include <QCoroTask>

#include <QAction>
#include <QCheckBox>
#include <QMessageBox>
#include <QProgressDialog>
#include <QWidget>

#include <algorithm>
#include <vector>

using namespace Paddock;

WorkspaceActionController::WorkspaceActionController(QWidget *window, WorkspaceTreeModel *model,
                                                     ActivityTracker *activity, QObject *parent)
    : QObject(parent)
    , m_window(window)
    , m_model(model)
    , m_activity(activity)
{
}

WorkspaceActionController::~WorkspaceActionController() = default;

void WorkspaceActionController::setSession(ProfileSession *session)
{
    m_session = session;
}

bool WorkspaceActionController::fits(WorkspaceAction action, const WorkspaceRecord &record, Capabilities capabilities)
{
    const SandboxState state = record.info.state;
    switch (action) {
    case WorkspaceAction::Close:
    case WorkspaceAction::Pause:
        return state == SandboxState::Running;
    case WorkspaceAction::Resume:
        return state == SandboxState::Paused;
    case WorkspaceAction::Renew:
        // Only a sandbox that expires can be renewed (renewing one that never does is a 409).
        return capabilities.testFlag(Capability::Renew) && record.info.expiresAt.has_value()
            && (state == SandboxState::Running || state == SandboxState::Paused);
    case WorkspaceAction::Kill:
        return state != SandboxState::Terminated;
    }
    return false;
}

ProfileSession *WorkspaceActionController::sessionOf(const QString &profileId) const
{
    if (!m_sessionOf) {
        // One profile shown: its session, for its own rows only (a row of the profile shown
        // before is never acted on through the next one's).
        return m_session && m_session->profileId() == profileId ? m_session.data() : nullptr;
    }
    ProfileSession *session = m_sessionOf(profileId);
    return session && session->profileId() == profileId && !session->profile().readOnly ? session : nullptr;
}

bool WorkspaceActionController::isReadOnlyProfile(const QString &profileId) const
{
    const ProfileSession *session = m_sessionOf ? m_sessionOf(profileId) : nullptr;
    return session && session->profileId() == profileId && session->profile().readOnly;
}

bool WorkspaceActionController::fits(WorkspaceAction action, const WorkspaceRecord &record) const
{
    const ProfileSession *session = sessionOf(record.profile);
    return session && fits(action, record, session->capabilities());
}

bool WorkspaceActionController::stopsInsteadOfPausing(const QList<const WorkspaceRecord *> &records) const
{
    if (records.isEmpty())
        return m_session && m_session->can(Capability::StopInsteadOfPause);
    return std::all_of(records.cbegin(), records.cend(), [this](const WorkspaceRecord *record) {
        return m_model->stopsInsteadOfPausing(record->profile);
    });
}

void WorkspaceActionController::namePauseAction(QAction *pause, bool stops)
{
    pause->setText(stops ? tr("&Stop") : tr("&Pause"));
    pause->setToolTip(stops ? tr("Stop the selected running workspaces: their processes end, their files are kept")
                            : tr("Pause the selected running workspaces"));
}

QCoro::Task<void> WorkspaceActionController::run(WorkspaceAction action, QList<WorkspaceRecord> selected,
                                                 bool alwaysAsk)
{
    if (m_busy)
        co_return;
    // Each action goes only to the workspaces it fits; the rest are skipped and counted.
    QList<WorkspaceRecord> targets;
    QList<WorkspaceRecord> notFitting;
    int readOnlySkipped = 0; // rows of read-only profiles ("All profiles"): said apart
    for (const WorkspaceRecord &record : std::as_const(selected)) {
        if (fits(action, record))
            targets.append(record);
        else if (isReadOnlyProfile(record.profile))
            ++readOnlySkipped;
        else if (action == WorkspaceAction::Renew)
            notFitting.append(record); // the Renew dialog says why each kind is skipped
    }
    if (targets.isEmpty())
        co_return;
    const int count = int(targets.size());
    const int skipped = int(selected.size()) - count - readOnlySkipped;
    const QPointer<WorkspaceActionController> self(this);
    // The run stays with the profiles it started on, even if the user switches profiles
    // meanwhile: each target's session, by profile ("All profiles" has several).
    QHash<QString, QPointer<ProfileSession>> sessions;
    for (const WorkspaceRecord &record : std::as_const(targets))
        sessions.insert(record.profile, sessionOf(record.profile));

    // Renew asks with its own dialog: the duration, and every expiry before and after (and once
    // more before shortening any).
    ActionOptions options;
    if (action == WorkspaceAction::Renew) {
        QPointer<RenewDialog> dialog = new RenewDialog(targets, notFitting, m_window);
        dialog->open();
        // (The window may close meanwhile and take the dialog along: that is an answer too.)
        const int answer = co_await untilFinished(dialog.data());
        if (!self || !dialog)
            co_return;
        options.renew.mode = dialog->mode();
        options.renew.amount = dialog->amount();
        options.renew.allowShorter = dialog->allowsShorter();
        dialog->deleteLater();
        if (answer != QDialog::Accepted || options.renew.amount.count() <= 0)
            co_return;
    }

    // One confirmation that states the counts and lists the workspaces (for a kill, with the data
    // loss, and Cancel as the default). A kill that keeps files (Docker's host folders) keeps
    // them unless the user ticks the box.
    const bool keepsFiles = action == WorkspaceAction::Kill
        && std::any_of(sessions.cbegin(), sessions.cend(), [](const QPointer<ProfileSession> &session) {
                                return session && session->can(Capability::DeleteFilesOnKill);
                            });
    // Pause (and Close, which pauses) stops these workspaces: their processes end, their files stay.
    QList<const WorkspaceRecord *> targeted;
    for (const WorkspaceRecord &record : std::as_const(targets))
        targeted.append(&record);
    const bool stops = stopsInsteadOfPausing(targeted);
    if (action == WorkspaceAction::Kill || (action != WorkspaceAction::Renew && (count > 1 || alwaysAsk))) {
        QString text;
        QString confirm;
        switch (action) {
        case WorkspaceAction::Close:
            text = stops ? tr("Close %n workspace(s)? They are released and their sandboxes stopped: their processes "
                              "end, their files are kept.",
                              nullptr, count)
                         : tr("Close %n workspace(s)? They are released and their sandboxes paused.", nullptr, count);
            confirm = tr("&Close");
            break;
        case WorkspaceAction::Pause:
            text = stops ? tr("Stop %n workspace(s)? Their processes end; their files are kept, and Resume starts them "
                              "again on the same files.",
                              nullptr, count)
                         : tr("Pause %n workspace(s)?", nullptr, count);
            confirm = stops ? tr("&Stop") : tr("&Pause");
            break;
        case WorkspaceAction::Resume:
            text = tr("Resume %n workspace(s)?", nullptr, count);
            confirm = tr("&Resume");
            break;
        case WorkspaceAction::Renew:
            break;
        case WorkspaceAction::Kill:
            text = keepsFiles ? tr("Kill %n workspace(s)? Their containers are removed. Their /workspace folders "
                                   "stay on this computer unless you delete them too. This cannot be undone.",
                                   nullptr, count)
                              : tr("Kill %n workspace(s)? Their sandboxes are deleted with everything in them that "
                                   "is not kept elsewhere. This cannot be undone.",
                                   nullptr, count);
            confirm = tr("&Kill");
            break;
        }
        QPointer<ConfirmDialog> box =
            new ConfirmDialog(action == WorkspaceAction::Kill ? QMessageBox::Warning : QMessageBox::Question,
                              m_window->windowTitle(), text, m_window);
        box->setObjectName(QStringLiteral("confirmAction"));
        QStringList skips;
        if (readOnlySkipped > 0)
            skips.append(
                tr("%n selected workspace(s) are in read-only profiles and are skipped.", nullptr, readOnlySkipped));
        if (skipped > 0)
            skips.append(tr("%n selected workspace(s) do not fit this action and are skipped.", nullptr, skipped));
        if (!skips.isEmpty())
            box->setInformativeText(skips.join(u' '));
        // A kill says, for each workspace, what it deletes when that is more than its sandbox
        // (Kubernetes: its Pod and its PVC, with the workspace's files).
        QList<ConfirmDialog::Row> rows;
        for (const WorkspaceRecord &record : std::as_const(targets)) {
            const QPointer<ProfileSession> session = sessions.value(record.profile);
            const QString warning =
                action == WorkspaceAction::Kill && session ? session->killWarning(record.info) : QString();
            // As the tree says them: no user or agent recorded reads "unknown".
            const QString user = record.info.userId.isEmpty() ? WorkspaceTreeModel::unknownText() : record.info.userId;
            QString agent = WorkspaceTreeModel::agentText(record);
            if (agent.isEmpty())
                agent = WorkspaceTreeModel::unknownText();
            rows.append(
                {record.info.workspaceId, record.info.sandboxId, user, agent, m_model->stateText(record), warning});
        }
        box->setRows(rows);
        box->setConfirmText(confirm);
        box->setCancelIsDefault(action == WorkspaceAction::Kill);
        QCheckBox *deleteBox = keepsFiles
            ? box->addCheckBox(tr("Also &delete their folders on this computer"), QStringLiteral("deleteFoldersBox"))
            : nullptr;
        box->open();
        const int answer = co_await untilFinished(box.data());
        if (!self)
            co_return;
        if (box) {
            options.kill.deleteFiles = deleteBox && deleteBox->isChecked();
            box->deleteLater();
        }
        if (answer != QDialog::Accepted)
            co_return;
    }
    if (std::none_of(sessions.cbegin(), sessions.cend(),
                     [](const QPointer<ProfileSession> &session) { return !session.isNull(); }))
        co_return;

    m_busy = true;
    Q_EMIT busyChanged(true);
    auto cancel = std::make_shared<CancelToken>();
    QString working;
    switch (action) {
    case WorkspaceAction::Close:
        working = tr("Closing %n workspace(s)…", nullptr, count);
        break;
    case WorkspaceAction::Pause:
        working =
            stops ? tr("Stopping %n workspace(s)…", nullptr, count) : tr("Pausing %n workspace(s)…", nullptr, count);
        break;
    case WorkspaceAction::Resume:
        working = tr("Resuming %n workspace(s)…", nullptr, count);
        break;
    case WorkspaceAction::Renew:
        working = tr("Renewing %n workspace(s)…", nullptr, count);
        break;
    case WorkspaceAction::Kill:
        working = tr("Killing %n workspace(s)…", nullptr, count);
        break;
    }
    QPointer<QProgressDialog> progress = new QProgressDialog(working, tr("Cancel"), 0, count, m_window);
    progress->setObjectName(QStringLiteral("actionProgress"));
    progress->setWindowModality(Qt::WindowModal);
    progress->setMinimumDuration(400);
    connect(progress, &QProgressDialog::canceled, this, [cancel] { cancel->cancel(); });
    // Each row shows its transition while its action runs (a pause waits until the server says
    // Paused, which takes a while on Kubernetes); the refresh at the end shows where it settled.
    const auto transition = [action]() -> std::optional<SandboxState> {
        switch (action) {
        case WorkspaceAction::Close:
        case WorkspaceAction::Pause:
            return SandboxState::Pausing;
        case WorkspaceAction::Resume:
            return SandboxState::Resuming;
        case WorkspaceAction::Kill:
            return SandboxState::Stopping;
        case WorkspaceAction::Renew:
            break;
        }
        return std::nullopt;
    }();
    // The targets split by profile, each part through its own session's bulk job, all at once;
    // one progress over them all. (One profile: one part, as before.)
    QStringList profiles;
    QHash<QString, QList<qsizetype>> parts; // profile -> indices in targets
    for (qsizetype i = 0; i < targets.size(); ++i) {
        const QString &profile = targets.at(i).profile;
        if (!parts.contains(profile))
            profiles.append(profile);
        parts[profile].append(i);
    }
    int done = 0;
    std::vector<QCoro::Task<QList<ItemResult>>> runs;
    QList<ItemResult> results;
    for (const QString &profile : std::as_const(profiles)) {
        const QList<qsizetype> part = parts.value(profile);
        const QPointer<ProfileSession> session = sessions.value(profile);
        if (!session) {
            // Its session ended meanwhile (its profile was saved): said per item.
            for (const qsizetype i : part) {
                ItemResult gone;
                gone.sandbox = targets.at(i).info;
                gone.error = Error{Error::Kind::Cancelled, tr("Its profile was closed meanwhile")};
                results.append(gone);
            }
            continue;
        }
        QList<SandboxInfo> items;
        items.reserve(part.size());
        for (const qsizetype i : part)
            items.append(targets.at(i).info);
        BulkProgress callbacks;
        callbacks.cancel = cancel;
        // The window may close during a bulk run: the items not yet started are then cancelled.
        callbacks.started = [self, cancel, transition, &targets, part](qsizetype i) {
            if (!self) {
                cancel->cancel();
                return;
            }
            if (transition)
                self->m_model->setState(targets.at(part.at(i)).key(), *transition);
        };
        // A resume is the console's own access to the workspace.
        callbacks.finished = [&done, progress, self, action, &targets, part](qsizetype i, const ItemResult &result) {
            if (progress)
                progress->setValue(++done);
            if (self && result.ok() && action == WorkspaceAction::Resume)
                self->m_activity->noteAccess(targets.at(part.at(i)).key());
        };
        runs.push_back(session->run(action, items, options, callbacks));
    }
    for (auto &run : runs) {
        const QList<ItemResult> partResults = co_await run;
        results.append(partResults);
    }
    if (progress)
        progress->deleteLater();
    if (!self)
        co_return;
    m_busy = false;

    // A result per item: a summary, and every failure with its workspace.
    QStringList failures;
    int succeeded = 0;
    int cancelled = 0;
    for (const ItemResult &result : results) {
        if (result.ok())
            ++succeeded;
        else if (result.error->kind == Error::Kind::Cancelled)
            ++cancelled;
        else
            failures.append(tr("%1: %2").arg(result.sandbox.workspaceId, result.error->message));
    }
    QString summary = tr("%1 of %n workspace(s) done", nullptr, count).arg(succeeded);
    if (cancelled > 0)
        summary += QStringLiteral("; ") + tr("%n cancelled", nullptr, cancelled);
    if (!failures.isEmpty())
        summary += QStringLiteral("; ") + tr("%n failed", nullptr, int(failures.size()));
    // What was not even tried, said here too: a single workspace is done without a confirmation.
    if (readOnlySkipped > 0)
        summary += QStringLiteral("; ") + tr("%n skipped (read-only profile)", nullptr, readOnlySkipped);
    Q_EMIT busyChanged(false);
    Q_EMIT finished(summary);
    if (!self)
        co_return;
    if (!failures.isEmpty()) {
        auto *report =
            new QMessageBox(QMessageBox::Warning, m_window->windowTitle(), summary, QMessageBox::Close, m_window);
        report->setObjectName(QStringLiteral("actionReport"));
        report->setAttribute(Qt::WA_DeleteOnClose);
        report->setInformativeText(failures.mid(0, 5).join(u'\n'));
        report->setDetailedText(failures.join(u'\n'));
        report->open();
    }
}
