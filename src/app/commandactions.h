#pragma once

#include "commandhistory.h"
#include "result.h"
#include "terminallauncher.h"
#include "workspacetreemodel.h"

#include <QObject>
#include <QPointer>

class QAction;
class QMessageBox;
class QSettings;
class RunDialog;
namespace Paddock {
class ProfileSession;
}

// Workspace > Run Command… and Open Terminal for the window: when they are offered, and what they
// do. Run Command is offered where the profile's backend runs commands and the profile is not
// read-only, for the chosen workspace whatever its state (its dialog says when it is not
// running); Open Terminal where the backend gives a terminal command (not on OpenSandbox) and
// the profile is not read-only, for a running workspace. The window only wires them.
class CommandActions final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CommandActions)

public:
    CommandActions(QAction *runCommand, QAction *openTerminal, QWidget *window);

    void setSession(Paddock::ProfileSession *session);
    void setReadOnly(bool readOnly);
    // Where the command history is kept (the console's settings).
    void setSettings(QSettings *settings);
    void setLauncher(const TerminalLauncher &launcher) { m_launcher = launcher; }
    CommandHistory *history() { return &m_history; }

    // Shows, enables or disables the two actions for the profile shown and the chosen workspace.
    void update(const WorkspaceRecord *chosen);
    // The Run Command dialog over a workspace (non-modal, deleted when closed); null where it is
    // not offered.
    RunDialog *runCommand(const WorkspaceRecord &record);
    // Starts the desktop's terminal with the workspace's terminal command; what goes wrong is
    // said in a message box (and returned).
    Paddock::Result<> openTerminal(const WorkspaceRecord &record);
    // The last message box Open Terminal showed (for tests).
    QMessageBox *lastMessage() const { return m_message; }

private:
    bool owns(const WorkspaceRecord &record) const;
    QAction *m_run;
    QAction *m_terminal;
    QWidget *m_window;
    QPointer<Paddock::ProfileSession> m_session;
    bool m_readOnly = false;
    CommandHistory m_history;
    TerminalLauncher m_launcher;
    QPointer<QMessageBox> m_message;
};
