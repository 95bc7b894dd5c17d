#include "terminallauncher.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>

using namespace Paddock;

namespace {

// The names after $TERMINAL, in the order they are tried.
const QStringList Known{QStringLiteral("x-terminal-emulator"), QStringLiteral("gnome-terminal"),
                        QStringLiteral("konsole"), QStringLiteral("xfce4-terminal"), QStringLiteral("xterm")};

struct Tr
{
    Q_DECLARE_TR_FUNCTIONS(TerminalLauncher)
};

// "a, b and c"
QString listed(const QStringList &names)
{
    if (names.size() <= 1)
        return names.value(0);
    return Tr::tr("%1 and %2").arg(names.first(names.size() - 1).join(QStringLiteral(", ")), names.constLast());
}

} // namespace

TerminalLauncher::TerminalLauncher()
    : TerminalLauncher([](const QString &name) { return QStandardPaths::findExecutable(name); },
                       qEnvironmentVariable("TERMINAL"),
                       [](const QString &program, const QStringList &arguments, const QString &workingDirectory) {
                           return QProcess::startDetached(program, arguments, workingDirectory);
                       })
{
}

TerminalLauncher::TerminalLauncher(Which which, QString terminalVariable, Starter start)
    : m_which(std::move(which))
    , m_terminal(std::move(terminalVariable))
    , m_start(std::move(start))
{
}

QStringList TerminalLauncher::lookedFor() const
{
    QStringList names;
    names.append(m_terminal.isEmpty() ? Tr::tr("$TERMINAL (not set)")
                                      : QStringLiteral("$TERMINAL (%1)").arg(m_terminal));
    names += Known;
    return names;
}

std::optional<QString> TerminalLauncher::find() const
{
    if (!m_terminal.isEmpty()) {
        // $TERMINAL may name a program with its path, or one on PATH.
        const QString found = QFileInfo(m_terminal).isAbsolute()
            ? (QFileInfo(m_terminal).isExecutable() ? m_terminal : QString())
            : m_which(m_terminal);
        if (!found.isEmpty())
            return found;
    }
    for (const QString &name : Known) {
        const QString found = m_which(name);
        if (!found.isEmpty())
            return found;
    }
    return std::nullopt;
}

QStringList TerminalLauncher::argumentsFor(const QString &emulator, const TerminalCommand &command)
{
    const QString name = QFileInfo(emulator).fileName();
    const QString dir = command.workingDirectory;
    const QStringList run = QStringList{command.program} + command.arguments;
    if (name == QLatin1String("gnome-terminal")) {
        QStringList args;
        if (!dir.isEmpty())
            args << QStringLiteral("--working-directory=") + dir;
        return args << QStringLiteral("--") << run;
    }
    if (name == QLatin1String("konsole")) {
        QStringList args;
        if (!dir.isEmpty())
            args << QStringLiteral("--workdir") << dir;
        return args << QStringLiteral("-e") << run;
    }
    if (name == QLatin1String("xfce4-terminal")) {
        QStringList args;
        if (!dir.isEmpty())
            args << QStringLiteral("--working-directory=") + dir;
        return args << QStringLiteral("-x") << run;
    }
    if (name == QLatin1String("kitty")) {
        QStringList args;
        if (!dir.isEmpty())
            args << QStringLiteral("--directory") << dir;
        return args << run;
    }
    if (name == QLatin1String("alacritty")) {
        QStringList args;
        if (!dir.isEmpty())
            args << QStringLiteral("--working-directory") << dir;
        return args << QStringLiteral("-e") << run;
    }
    if (name == QLatin1String("wezterm")) {
        QStringList args{QStringLiteral("start")};
        if (!dir.isEmpty())
            args << QStringLiteral("--cwd") << dir;
        return args << QStringLiteral("--") << run;
    }
    // xterm, x-terminal-emulator (Debian policy: -e, last, then the command and its arguments),
    // and whatever else $TERMINAL names: the convention nearly every emulator follows.
    return QStringList{QStringLiteral("-e")} + run;
}

Result<> TerminalLauncher::launch(const TerminalCommand &command) const
{
    const std::optional<QString> emulator = find();
    if (!emulator) {
        return fail(Error::notFound(
            Tr::tr("No terminal emulator was found. Paddock looked for %1. Set TERMINAL to your terminal's "
                   "program, or install one of these.")
                .arg(listed(lookedFor()))));
    }
    const QString program = QFileInfo(command.program).isAbsolute() ? command.program : m_which(command.program);
    if (program.isEmpty() || !QFileInfo(program).isExecutable()) {
        return fail(
            Error::notFound(Tr::tr("%1 is not installed on this computer, and the workspace's terminal needs it.")
                                .arg(command.program)));
    }
    const QStringList arguments = argumentsFor(*emulator, command);
    if (!m_start(*emulator, arguments, command.workingDirectory))
        return fail(Error::backend(Tr::tr("The terminal %1 could not be started.").arg(*emulator)));
    return {};
}
