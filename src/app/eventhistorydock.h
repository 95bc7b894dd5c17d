#pragma once

#include "consoleevent.h"

#include <QDockWidget>
#include <QPointer>

class ConsoleEvents;
class EventHistory;
class EventHistoryFilter;
class EventHistoryModel;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTreeView;

// View > Event History: every event of the console (ConsoleEvents) and those kept from earlier
// runs (EventHistory), newest first, filtered by text, profile, kind and who did it; Export CSV…
// writes what the filters show. Double-clicking an event asks for its workspace to be selected
// in the tree (workspaceActivated; the window does it when the workspace is listed).
class EventHistoryDock final : public QDockWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EventHistoryDock)

public:
    explicit EventHistoryDock(QWidget *parent = nullptr);
    ~EventHistoryDock() override;

    // Where the events come from, and where they are kept (either may be null). The dock's
    // table shows the events kept (once read) before those of this run.
    void setSource(ConsoleEvents *events, EventHistory *history);

    EventHistoryModel *model() const { return m_model; }
    EventHistoryFilter *filter() const { return m_filter; }
    QTreeView *view() const { return m_view; }
    QLineEdit *filterEdit() const { return m_text; }
    QComboBox *profileBox() const { return m_profiles; }
    QComboBox *kindBox() const { return m_kinds; }
    QComboBox *actorBox() const { return m_actors; }
    // What the note above the table says (a file that could not be read or written, lines
    // skipped, the clock that changed); empty: nothing.
    QString note() const;

    // Writes what the filters show to `path` as CSV (EventHistory::toCsv) through QSaveFile: all
    // or nothing. An error says why.
    QString exportCsv(const QString &path) const;

Q_SIGNALS:
    void workspaceActivated(const QString &profileId, const QString &sandboxId, const QString &workspaceId);
    void statusMessage(const QString &message);

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslate();
    void fillProfiles();
    void chooseExport();
    void addNote(const QString &note);

    EventHistoryModel *m_model;
    EventHistoryFilter *m_filter;
    QTreeView *m_view;
    QLineEdit *m_text;
    QComboBox *m_profiles;
    QComboBox *m_kinds;
    QComboBox *m_actors;
    QPushButton *m_export;
    QLabel *m_note;
    QStringList m_notes;
    QPointer<ConsoleEvents> m_events;
    QPointer<EventHistory> m_history;
};
