#pragma once

#include "backend.h"
#include "result.h"

#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

// Open Terminal: the desktop's terminal emulator, started with a workspace's TerminalCommand
// (Backend::terminalCommand: a shell in the local folder, `docker exec -it`, `kubectl exec -it`).
// The emulator is found as desktops find it: $TERMINAL, then Debian's x-terminal-emulator, then
// gnome-terminal, konsole, xfce4-terminal and xterm; each takes its command its own way
// (argumentsFor). Nothing here waits for the terminal: it is started detached and lives on its
// own.
class TerminalLauncher final
{
public:
    // Where a program is, as QStandardPaths::findExecutable answers (empty: not found).
    using Which = std::function<QString(const QString &)>;

    TerminalLauncher();
    // For tests: another PATH lookup, another $TERMINAL (empty: unset), and what starts a program.
    using Starter =
        std::function<bool(const QString &program, const QStringList &arguments, const QString &workingDirectory)>;
    TerminalLauncher(Which which, QString terminalVariable, Starter start);

    // The emulators looked for, in order, as the message names them ("$TERMINAL (kitty)" first
    // when the variable is set).
    QStringList lookedFor() const;
    // The first one there (its path), or nothing.
    std::optional<QString> find() const;
    // The arguments that make `emulator` (a path or a name) run `command`: gnome-terminal
    // `--working-directory=DIR -- PROGRAM ARGS`, konsole `--workdir DIR -e PROGRAM ARGS`,
    // xfce4-terminal `--working-directory=DIR -x PROGRAM ARGS`, kitty `--directory DIR PROGRAM
    // ARGS`, alacritty `--working-directory DIR -e PROGRAM ARGS`, wezterm `start --cwd DIR --
    // PROGRAM ARGS`, and for xterm, x-terminal-emulator (Debian policy: `-e` last, then the
    // command) and any other: `-e PROGRAM ARGS`. The working directory is also the emulator's own.
    static QStringList argumentsFor(const QString &emulator, const Paddock::TerminalCommand &command);

    // Starts the terminal with the command. Errors say what is missing: no terminal emulator
    // (naming each one looked for), the command's own program (docker, kubectl) not installed, a
    // terminal that could not be started.
    Paddock::Result<> launch(const Paddock::TerminalCommand &command) const;

private:
    Which m_which;
    QString m_terminal;
    Starter m_start;
};
