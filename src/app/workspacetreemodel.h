#pragma once

#include "backend.h"
#include "metrics.h"
#include "sandbox.h"

#include <QAbstractItemModel>
#include <QDateTime>
#include <QHash>
#include <QLocale>
#include <QSet>
#include <QStringList>

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

// One workspace as the console shows it: what its backend reports, plus what only the console
// knows (its profile, when the manager will pause it for idleness, the agents that share it).
struct WorkspaceRecord
{
    QString profile; // the profile it was listed from
    Paddock::SandboxInfo info;
    std::optional<QDateTime> idleDeadline; // when the manager pauses it for idleness (UTC)
    QStringList agents; // agents sharing it (PER_USER); empty: info.agentId
    QString bootstrapFailure; // why its last bootstrap failed (it was paused then); empty: it did not
    qint64 listedActivityMs = 0; // the backend's own lastActivityAt when last listed (ms; 0: none)

    // Rows are keyed by profile and sandbox id: the same id on two servers is two rows.
    QString key() const { return profile + u'\x1f' + info.sandboxId; }
};

// The workspaces of every profile as a tree grouped User > Agent > Workspace, or as a flat list.
//
// update() applies a fresh listing in place: rows that vanished are removed, rows that changed
// get dataChanged (and move only if their user or agent changed), new rows are inserted, groups
// appear and disappear with their rows. The model is never reset by a refresh, so selection,
// the current row, expanded groups and the scroll position survive. (Filling an empty model is
// announced as one reset: there is nothing to keep then, and views lay it out once.) Group rows show how many
// workspaces they hold in each state. Workspaces with no user (or no agent) recorded, as those made
// outside Paddock, are grouped under "unknown".
//
// A profile whose backend stops instead of pausing (setCapabilities(), StopInsteadOfPause) has its
// paused workspaces called Stopped, in its rows and in the groups' counts.
//
// The two countdown columns (idle, expiry) are computed from stored deadlines at data() time;
// tick() (once a second, from one timer) emits dataChanged for those two columns only, and only
// for rows whose countdown text changed.
class WorkspaceTreeModel final : public QAbstractItemModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WorkspaceTreeModel)

public:
    enum Column {
        WorkspaceColumn,
        StateColumn,
        UserColumn,
        AgentColumn,
        BackendColumn,
        IdleColumn, // time until the manager pauses it for idleness
        ExpiryColumn, // time until the server's expiresAt; "never" without one
        LastActivityColumn,
        CreatedColumn,
        ImageColumn,
        SandboxIdColumn,
        CpuColumn, // what the workspace uses now, where its backend reports it (setMetrics)
        MemoryColumn,
        ColumnCount
    };
    enum Role {
        KeyRole = Qt::UserRole, // WorkspaceRecord::key() of a workspace row; empty for groups
        KindRole, // a Kind
        SortRole, // a value that sorts (times as QDateTime, countdowns in seconds)
        StateRole, // Paddock::SandboxState as int, workspace rows
        WorkspaceIdRole,
        ProfileRole,
        DeadlineRole, // the countdown's deadline as QDateTime (invalid: none)
    };
    enum class Kind {
        User,
        Agent,
        Workspace,
        Profile, // "All profiles": one top-level group per profile (setProfileGroups)
    };
    Q_ENUM(Kind)

    using Clock = std::function<QDateTime()>; // UTC now
    // Per state, and one more slot: the paused workspaces of profiles that stop instead of pausing.
    using StateCounts = std::array<int, int(Paddock::SandboxState::Unknown) + 2>;
    static constexpr size_t StoppedSlot = size_t(Paddock::SandboxState::Unknown) + 1;
    using Accept = std::function<bool(const WorkspaceRecord &)>;
    // What a group holds, of the workspaces `accept` takes (all, without one): for its counts and
    // for sorting groups by the most urgent of their rows.
    struct GroupSummary
    {
        StateCounts counts{};
        int shown = 0; // workspaces accepted
        int total = 0; // workspaces in the group
        std::optional<qint64> idleMs; // the soonest idle deadline (ms since the epoch)
        std::optional<qint64> expiryMs; // the soonest expiry
        QDateTime lastActivity; // the newest
        QDateTime created; // the newest
    };

    explicit WorkspaceTreeModel(QObject *parent = nullptr);
    ~WorkspaceTreeModel() override;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    // Workspace rows never have children: a tree view laying out 10,000 rows then asks no more.
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Grouped (the default) or flat. Switching rebuilds the model (a reset); views restore
    // their selection by KeyRole.
    bool isGrouped() const { return m_grouped; }
    void setGrouped(bool grouped);

    // "All profiles": every profile's rows under a top-level group of its own (above the user and
    // agent groups, or the flat list), which shows the profile's name, backend, counts and its
    // own freshness or problem (setProfileGroup). Switching rebuilds the model, as setGrouped().
    bool hasProfileGroups() const { return m_profileGroups; }
    void setProfileGroups(bool on);
    // What a profile's group row says: its name, its backend's name, its freshness ("updated 3 s
    // ago") or problem, whether that is a warning (amber, with a warning icon), and the whole
    // text for its tooltip and accessible description. The group stays while its profile has
    // no rows (a profile whose server is down still shows why). Only the texts that changed are
    // announced (dataChanged with their roles: a second's tick re-sorts nothing).
    struct ProfileGroup
    {
        QString name;
        QString backend;
        QString status;
        QString details; // the tooltip: the problem in full, and when it was listed
        bool warning = false;
        bool operator==(const ProfileGroup &) const = default;
    };
    void setProfileGroup(const QString &profile, const ProfileGroup &group);
    // Drops a profile's group and its rows.
    void removeProfileGroup(const QString &profile);
    QModelIndex indexOfProfileGroup(const QString &profile) const;
    QStringList profileGroups() const { return m_profileInfo.keys(); }

    // Replaces the rows of `profile` with `records` (all of that profile's workspaces), in place.
    // Other profiles' rows are left alone.
    void update(const QString &profile, const QList<WorkspaceRecord> &records);
    // The same from a backend's listing: each sandbox becomes a record of `profile`. A row that is
    // new or whose listing changed takes its data from the listing by move, and `decorate`
    // completes it with what only the console knows (idle deadline, agents, activity, a failed
    // bootstrap; the activity already seen on the row is kept). An unchanged row (the same
    // fingerprint and listed activity) costs a lookup and is left as it is: when what the console
    // knows of it changes, the console says so (markStale(), then a refresh; setLastActivity()).
    struct Decoration
    {
        std::optional<QDateTime> idleDeadline;
        QStringList agents;
        QDateTime lastActivityAt; // the newest known on entry; decorate may put a newer one
        QString bootstrapFailure;
    };
    // What the console knows of these workspaces of a profile changed (one was opened, closed,
    // or failed): the next update() decorates their rows again, whatever the listing says.
    void markStale(const QString &profile, const QSet<QString> &workspaceIds);
    using Decorate = std::function<void(const QString &profile, const Paddock::SandboxInfo &, Decoration &)>;
    void update(const QString &profile, QList<Paddock::SandboxInfo> listing, const Decorate &decorate);
    // Some rows of `profile` as a watch reports them, in place and in one pass, the other rows
    // left alone: each of `changed` (as list() would report it now) is compared, decorated and
    // inserted (into its group), updated (the columns that changed) or moved (its user or agent
    // changed) exactly as a listing's row is; each of `removed` (sandbox ids) goes. Groups come
    // and go as with a listing. A sandbox id in both: the one in `changed` wins.
    void applyChanges(const QString &profile, QList<Paddock::SandboxInfo> changed, const QSet<QString> &removed,
                      const Decorate &decorate);
    // One row of the above.
    void upsertSandbox(const QString &profile, Paddock::SandboxInfo sandbox, const Decorate &decorate = {});
    void removeSandbox(const QString &profile, const QString &sandboxId);
    // Changes one workspace row in place, until the next listing says otherwise: an action's
    // outcome (a pause that is under way), a late read of its activity (kept only when newer).
    // Return false when there is no such row.
    bool setState(const QString &key, Paddock::SandboxState state);
    bool setLastActivity(const QString &key, const QDateTime &time);
    // Drops every row of a profile (it was deleted, or is no longer shown). Not a listing: no
    // diff is reported, and the profile's diffs stop (profileCleared).
    void removeProfile(const QString &profile);

    // What a listing (or a watch's report) changed in a profile's rows, for ObservedChanges:
    // the rows that appeared, the rows whose state changed (with the state they had), the rows
    // that vanished (as last shown). Only the rows the apply touched anyway are looked at: an
    // unchanged row of a listing still costs its lookup and nothing else.
    struct ListingDiff
    {
        struct Change
        {
            Paddock::SandboxState before = Paddock::SandboxState::Unknown;
            Paddock::SandboxInfo after;
        };
        QString profile;
        bool complete = false; // a whole listing (its absent rows vanished), not some rows
        bool collected = false; // the rows below were collected (the profile is observed)
        QList<Paddock::SandboxInfo> appeared;
        QList<Change> changed;
        QList<Paddock::SandboxInfo> vanished;
    };
    // While a profile is observed, every apply of a listing or of a watch's report emits
    // listingApplied with its diff; while not, a complete listing still emits it, empty
    // (collected false), so the observer knows the first listing came (its baseline).
    void setObserved(const QString &profile, bool observed);
    bool isObserved(const QString &profile) const { return m_observed.contains(profile); }
    // The profile's server cannot be reached: its rows show as last listed at `lastSeen`,
    // greyed, their state saying when it was seen. An invalid time: reachable again.
    void setUnreachable(const QString &profile, const QDateTime &lastSeen);
Q_SIGNALS:
    void listingApplied(const WorkspaceTreeModel::ListingDiff &diff);
    // A profile's rows were dropped (removeProfile): its next listing is a baseline again.
    void profileCleared(const QString &profile);

public:
    bool isUnreachable(const QString &profile) const { return m_unreachable.contains(profile); }
    // What a profile's backend can do: with StopInsteadOfPause its paused workspaces read Stopped.
    void setCapabilities(const QString &profile, Paddock::Capabilities capabilities);
    Paddock::Capabilities capabilities(const QString &profile) const { return m_capabilities.value(profile); }
    bool stopsInsteadOfPausing(const QString &profile) const
    {
        return capabilities(profile).testFlag(Paddock::Capability::StopInsteadOfPause);
    }

    // CPU and memory of some workspaces of `profile` (MetricsPoller): each row of `asked` (sandbox
    // ids) takes its figures from `metrics`, or none when they hold none for it (absent, never
    // zero); dataChanged for the two columns of the rows that changed (one per run of neighbouring
    // rows), and nothing else.
    void setMetrics(const QString &profile, const QStringList &asked, const QList<Paddock::SandboxMetrics> &metrics);
    // Why a profile's rows show no figures (the server does not report them): the absent cells'
    // tooltip. Empty: they are absent only until asked.
    void setMetricsNote(const QString &profile, const QString &note);
    const Paddock::SandboxMetrics *metrics(const QString &key) const;
    // "12.5%"; "256 MiB"; "256 MiB / 1 GiB" in the current locale.
    static QString formatCpu(double percent);
    static QString formatBytes(qint64 bytes);
    static QString formatMemory(const Paddock::SandboxMetrics &metrics);

    GroupSummary summarize(const QModelIndex &group, const Accept &accept = {}) const;
    // "3 Running · 1 Paused" (with " of N" when not every workspace is counted).
    QString countsText(const GroupSummary &summary) const;
    // What the expiry column says of a paused sandbox whose timer is stopped (E2B): since when.
    QString timerStoppedText(const Paddock::SandboxInfo &info) const;
    // A group's sort value in a column, from a summary: the most urgent countdown, the newest time.
    static QVariant groupSortValue(const GroupSummary &summary, int column);

    // Countdowns: dataChanged on the two countdown columns of the rows whose countdown text
    // changed since the last tick (every second under an hour, every minute under a day).
    void tick();
    void setClock(Clock clock);
    // The language changed: headers, states, counts, times and countdowns are told again (the
    // layout stays, and so do the selection and expanded groups).
    void retranslate();
    QDateTime now() const;

    const WorkspaceRecord *record(const QModelIndex &index) const;
    QModelIndex indexOfKey(const QString &key, int column = 0) const;
    // A profile's row of a workspace id (the newest, if several sandboxes carry it); null if none.
    const WorkspaceRecord *recordOfWorkspace(const QString &profile, const QString &workspaceId) const;
    // Every workspace row under an index (itself, if it is one): for actions on group rows.
    QList<const WorkspaceRecord *> recordsUnder(const QModelIndex &index) const;
    qsizetype workspaceCount() const { return m_workspaceCount; }

    // A state as the console names it (translated); an unknown state as the server said it. On a
    // backend with StopInsteadOfPause, Paused reads Stopped (and Pausing, Stopping).
    static QString stateText(Paddock::SandboxState state, const QString &raw = {},
                             Paddock::Capabilities capabilities = {});
    // A workspace's state as its row names it (its profile's capabilities say Paused or Stopped).
    QString stateText(const WorkspaceRecord &record) const;
    // The label of a group of workspaces with no user or agent recorded, and why there is none.
    static QString unknownText();
    static QString unknownToolTip(Kind kind);
    // The agent a row shows: its agent, or every agent seen sharing it (PER_USER).
    static QString agentText(const WorkspaceRecord &record) { return agentLabel(record); }
    // "1 h 05 min", "4 min 10 s", "35 s" in the current locale.
    static QString formatCountdown(qint64 seconds);
    // A time in the past as the Last active and Created columns show it: "just now", "3 min ago",
    // "2 h ago", "yesterday", "3 days ago", then the date.
    static QString formatRelative(const QDateTime &when, const QDateTime &now, const QLocale &locale = QLocale());

private:
    struct Node;

    Node *nodeOf(const QModelIndex &index) const;
    Node *nodeOfKey(const QString &key) const;
    QModelIndex indexOf(const Node *node, int column = 0) const;
    Node *groupFor(const WorkspaceRecord &record, bool create);
    // One pass over `count` listed rows: idOf(i) is row i's sandbox id; same(i, node) says
    // whether row i holds exactly what node shows (and may complete it, e.g. its fingerprint),
    // without making a record; make(i, record) makes row i's record for rows that changed or are new.
    // `removed` null: the rows are all of the profile's, and the others vanished; else only the
    // rows listed change, and those of `removed` go.
    void apply(const QString &profile, qsizetype count, const std::function<const QString &(qsizetype)> &idOf,
               const std::function<bool(qsizetype, Node &)> &same,
               const std::function<void(qsizetype, WorkspaceRecord &, const Node *)> &make,
               const QSet<QString> *removed = nullptr);
    // A backend's listing (removed null) or some of its rows (see apply()).
    void applyListing(const QString &profile, QList<Paddock::SandboxInfo> listing, const Decorate &decorate,
                      const QSet<QString> *removed);
    void insertWorkspaces(Node *parent, std::vector<std::unique_ptr<Node>> nodes);
    void removeNode(Node *node);
    // Rows (workspaces or groups) that go, one beginRemoveRows per run of neighbouring rows
    // under each parent.
    void removeNodes(std::vector<Node *> nodes);
    // Of the rows that leave their groups in a pass, those of a group that loses them all (and
    // gains none in `added`) are replaced by their group, and an emptied user group's agent
    // groups by it; `touched` follows.
    void liftEmptiedGroups(std::vector<Node *> &leaving,
                           const std::unordered_map<Node *, std::vector<std::unique_ptr<Node>>> &added,
                           QSet<Node *> &touched);
    void pruneEmptyGroups(Node *group);
    void recount(Node *group);
    void recountGroups(Node *parent); // every group under parent, and dataChanged for their counts
    void recountTree(Node *parent); // every group under parent, without a signal (a reset)
    Node *profileNode(const QString &profile, bool create);
    size_t countSlot(const WorkspaceRecord &record) const; // its slot in StateCounts
    void rebuild();
    QVariant groupData(const Node *node, int column, int role) const;
    QVariant workspaceData(const Node *node, int column, int role) const;
    QVariant metricsData(const Node *node, int column, int role) const;
    static QString agentLabel(const WorkspaceRecord &record);
    static void renumber(std::vector<std::unique_ptr<Node>> &children, size_t from);
    static void setDeadlines(Node *node);
    // The previous and this tick: the time, and the start of its local day.
    struct TickTimes
    {
        qint64 lastMs;
        qint64 nowMs;
        qint64 lastTimesMs; // the previous tick for relative times
        qint64 lastTodayStartMs;
        qint64 todayStartMs;
    };
    void tickChildren(Node *parent, const TickTimes &times);
    void announceRowsOf(Node *parent, const QString &profile); // dataChanged for every row of a profile

    std::unique_ptr<Node> m_root;
    QHash<QString, QHash<QString, Node *>> m_byProfile; // workspace nodes: profile -> sandbox id -> node
    qsizetype m_workspaceCount = 0;
    bool m_grouped = true;
    bool m_rebuilding = false;
    quint64 m_pass = 0; // update() calls so far
    qint64 m_lastTickMs = 0; // 0: every countdown is new to the view
    qint64 m_lastTodayStartMs = 0;
    Clock m_clock;
    QLocale m_locale; // the default locale when the model was made
    QHash<QString, QDateTime> m_unreachable; // profile -> when its rows were last listed
    QHash<QString, Paddock::Capabilities> m_capabilities; // profile -> what its backend can do
    QSet<QString> m_observed; // profiles whose diffs are collected
    bool m_clearing = false; // removeProfile(): not a listing
    QHash<QString, QString> m_metricsNotes; // profile -> why its figures are absent
    bool m_profileGroups = false;
    QHash<QString, ProfileGroup> m_profileInfo; // profile -> what its group row says
};
