#pragma once

#include <QCoroFwd>

#include <QObject>
#include <QPointer>

#include <optional>

class QAction;
class QActionGroup;
class QMenu;
class QSettings;
class QWidget;

// What happens to the workspaces this console opened when it quits: closed (paused, as
// AgentScope's manager does at shutdown) or left running. Quitting with some open asks once,
// with a box to remember the answer; File > When Quitting shows the choice and changes it.
// Signals (SIGTERM, Ctrl+C in a terminal) do not ask: they close, and say so in the log.
class QuitController final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(QuitController)

public:
    enum class Choice {
        Close,
        LeaveRunning,
    };
    enum class Preference {
        Ask,
        Close,
        LeaveRunning,
    };

    explicit QuitController(QSettings *settings, QObject *parent = nullptr);
    ~QuitController() override;

    Preference preference() const;
    void setPreference(Preference preference);
    // The When Quitting submenu (its actions follow the preference).
    QMenu *menu(QWidget *parent);
    void retranslate();

    // What to do with `openCount` open workspaces: the preference, or the user's answer (nullopt:
    // Cancel, do not quit). Asks only when some are open and nothing is remembered.
    QCoro::Task<std::optional<Choice>> decide(QWidget *parent, int openCount);
    // The question being asked, if any (for tests).
    QWidget *question() const { return m_question; }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QSettings *m_settings;
    QPointer<QMenu> m_menu;
    QActionGroup *m_group;
    QAction *m_ask;
    QAction *m_close;
    QAction *m_leave;
    QPointer<QWidget> m_question;
};
