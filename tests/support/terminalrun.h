#pragma once

// Runs a backend's TerminalCommand as a terminal emulator would, but under `script` (util-linux),
// which gives it a pseudo-terminal (docker exec -it and kubectl exec -it refuse to run without
// one): `input` is typed into it, and what the terminal showed comes back. For tests that prove
// that Open Terminal's command really opens a shell in the workspace.

#include "backend.h"
#include "shellquote.h"

#include <QProcess>
#include <QStandardPaths>

namespace PaddockTest {

// Whether `script` is there to run terminal commands (Debian: util-linux, always installed).
inline bool canRunTerminalCommands()
{
    return !QStandardPaths::findExecutable(QStringLiteral("script")).isEmpty();
}

// What the terminal showed, or an empty array when the command did not end (it is killed).
inline QByteArray runInTerminal(const Paddock::TerminalCommand &command, const QByteArray &input,
                                const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment())
{
    QProcess process;
    process.setProcessEnvironment(environment);
    if (!command.workingDirectory.isEmpty())
        process.setWorkingDirectory(command.workingDirectory);
    process.setProcessChannelMode(QProcess::MergedChannels);
    const QString line = Paddock::shellJoin(QStringList{command.program} + command.arguments);
    process.start(
        QStringLiteral("script"),
        {QStringLiteral("-q"), QStringLiteral("-e"), QStringLiteral("-c"), line, QStringLiteral("/dev/null")});
    if (!process.waitForStarted(30'000))
        return {};
    process.write(input);
    if (!process.waitForFinished(60'000)) {
        process.kill();
        process.waitForFinished();
        return {};
    }
    return process.readAll();
}

} // namespace PaddockTest
