#pragma once

#include "consoleevent.h"

#include <QAbstractTableModel>
#include <QList>
#include <QSortFilterProxyModel>

#include <optional>

// The event history as a table, oldest first: events are appended in place (beginInsertRows,
// never a reset, so the selection survives), those read from the file go before the ones of this
// run, and once the bound is passed by a tenth of it, the oldest go down to the bound
// (beginRemoveRows at the top).
class EventHistoryModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EventHistoryModel)

public:
    enum Column { TimeColumn, ProfileColumn, WorkspaceColumn, EventColumn, ActorColumn, DetailColumn, ColumnCount };
    enum Role {
        SortRole = Qt::UserRole, // the time (ms since the epoch), then the order of arrival
        ProfileIdRole,
        KindRole, // ConsoleEvent::Kind as int
        ActorRole, // ConsoleEvent::Actor as int
        SandboxIdRole,
        WorkspaceIdRole,
        FilterTextRole, // every text of the row, for the text filter
    };

    explicit EventHistoryModel(int maxEvents = 10'000, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    void append(const ConsoleEvent &event);
    // The same, gathered and inserted together on the next turn of the event loop: a burst of
    // events (a listing in which many rows changed) is one insertion, not one each.
    void appendLater(const ConsoleEvent &event);
    // Inserts what appendLater() gathered now.
    void insertPending();
    // Older events (read from the file) before the ones there are.
    void prepend(const QList<ConsoleEvent> &events);
    const ConsoleEvent &event(int row) const { return m_events.at(row); }
    const QList<ConsoleEvent> &events() const { return m_events; }
    // The profiles seen (id -> the last name seen), for the filter.
    QList<std::pair<QString, QString>> profiles() const;
    // The language changed: every text again.
    void retranslate();

Q_SIGNALS:
    void profilesChanged();

private:
    void trim();
    void noteProfile(const ConsoleEvent &event);

    QList<ConsoleEvent> m_events;
    QList<quint64> m_order; // arrival order (sort ties)
    quint64 m_arrivals = 0;
    int m_maxEvents;
    QList<std::pair<QString, QString>> m_profiles;
    QList<ConsoleEvent> m_pending; // appendLater()'s, until the next turn of the event loop
    bool m_insertQueued = false;
};

// The history's filters: text (any column, the ids, the detail), profile, kind, actor.
class EventHistoryFilter final : public QSortFilterProxyModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EventHistoryFilter)

public:
    explicit EventHistoryFilter(QObject *parent = nullptr);

    void setText(const QString &text);
    void setProfile(const QString &profileId); // empty: all
    void setKind(std::optional<ConsoleEvent::Kind> kind);
    void setActor(std::optional<ConsoleEvent::Actor> actor);
    // The events the filters keep, oldest first (what Export writes).
    QList<ConsoleEvent> shownEvents() const;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    QString m_text;
    QString m_profile;
    std::optional<ConsoleEvent::Kind> m_kind;
    std::optional<ConsoleEvent::Actor> m_actor;
};
