#include "commandactions.h"

#include "profilesession.h"
#include "rundialog.h"

#include <QAction>
#include <QMessageBox>

using namespace Paddock;

CommandActions::CommandActions(QAction *runCommand, QAction *openTerminal, QWidget *window)
    : QObject(window)
    , m_run(runCommand)
    , m_terminal(openTerminal)
    , m_window(window)
{
    update(nullptr);
}

void CommandActions::setSession(ProfileSession *session)
{
    m_session = session;
}

void CommandActions::setReadOnly(bool readOnly)
{
    m_readOnly = readOnly;
}

void CommandActions::setSettings(QSettings *settings)
{
    m_history.setSettings(settings);
}

bool CommandActions::owns(const WorkspaceRecord &record) const
{
    // A command runs through the session of the row's own profile only: a row of another
    // profile (the one shown before) is never sent to this one's server.
    return m_session && m_session->profileId() == record.profile;
}

void CommandActions::update(const WorkspaceRecord *chosen)
{
    if (chosen && !owns(*chosen))
        chosen = nullptr;
    const bool live = m_session && !m_session->isShuttingDown() && !m_readOnly;
    const bool canRun = live && m_session->canExec();
    m_run->setVisible(canRun);
    m_run->setEnabled(canRun && chosen);
    // Whether this backend has a terminal at all: asked with the chosen workspace, or any.
    SandboxInfo probe;
    probe.sandboxId = probe.workspaceId = QStringLiteral("paddock-probe");
    const auto terminal = live ? m_session->terminalCommand(chosen ? chosen->info : probe) : std::nullopt;
    const bool hasTerminal = live && m_session->terminalCommand(probe).has_value();
    m_terminal->setVisible(hasTerminal);
    m_terminal->setEnabled(hasTerminal && chosen && chosen->info.state == SandboxState::Running && terminal);
}

RunDialog *CommandActions::runCommand(const WorkspaceRecord &record)
{
    if (!owns(record) || m_readOnly || !m_session->canExec())
        return nullptr;
    auto *dialog = new RunDialog(m_session, record.info, &m_history, m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
    return dialog;
}

Result<> CommandActions::openTerminal(const WorkspaceRecord &record)
{
    // Why there is no terminal, in the user's terms: a row of another profile than the one
    // acted on (the profile shown changed meanwhile), a read-only profile, or a backend that no
    // terminal here can reach.
    Result<> launched;
    if (!owns(record)) {
        launched = fail(Error::invalidArgument(
            tr("Workspace %1 is not in the profile the actions work on now (the profile shown changed): "
               "choose it again.")
                .arg(record.info.workspaceId.isEmpty() ? record.info.sandboxId : record.info.workspaceId)));
    } else if (m_readOnly) {
        launched =
            fail(Error::invalidArgument(tr("This profile is read-only: it opens no terminal into its workspaces.")));
    } else if (const auto command = m_session->terminalCommand(record.info)) {
        launched = m_launcher.launch(*command);
    } else {
        launched = fail(Error::unsupported(tr("This workspace has no terminal command: its backend cannot be "
                                              "reached from a terminal on this computer.")));
    }
    if (!launched) {
        if (m_message)
            m_message->close();
        m_message = new QMessageBox(QMessageBox::Warning, tr("Open Terminal"), launched.error().message,
                                    QMessageBox::Close, m_window);
        m_message->setObjectName(QStringLiteral("terminalMessage"));
        m_message->setAttribute(Qt::WA_DeleteOnClose);
        m_message->open();
    }
    return launched;
}
