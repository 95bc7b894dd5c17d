// The execd side of the fake server: the execd listener (`/<sandboxId>/...`, X-EXECD-ACCESS-TOKEN),
// requests held while a sandbox is paused, and commands (foreground streams, background
// commands with a combined log, status, interrupt), each in its own process group under
// bubblewrap.

#include "fakeopensandbox.h"
#include "sandbox.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPointer>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <csignal>
#include <limits>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace PaddockFake {

namespace {

HttpResponse execdError(int status, const QString &code, const QString &message)
{
    QJsonObject body{{u"code"_s, code}};
    if (!message.isEmpty())
        body.insert(u"message"_s, message);
    return HttpResponse::json(status, body);
}

HttpResponse invalidBody(const QString &why)
{
    return execdError(400, u"INVALID_REQUEST_BODY"_s, u"error parsing request, MAYBE invalid body format. "_s + why);
}

HttpResponse invalidRequest(const QString &why)
{
    return execdError(400, u"INVALID_REQUEST_BODY"_s, u"invalid request, validation error "_s + why);
}

qint64 nowMs()
{
    return nowNs() / 1'000'000;
}

// How many bytes at the end of `bytes` are an incomplete UTF-8 sequence.
qsizetype incompleteUtf8Tail(const QByteArray &bytes)
{
    const qsizetype size = bytes.size();
    for (qsizetype back = 1; back <= 4 && back <= size; ++back) {
        const auto byte = static_cast<unsigned char>(bytes.at(size - back));
        if ((byte & 0xC0) == 0x80)
            continue; // a continuation byte: look further back
        int needed = 1;
        if ((byte & 0xE0) == 0xC0)
            needed = 2;
        else if ((byte & 0xF0) == 0xE0)
            needed = 3;
        else if ((byte & 0xF8) == 0xF0)
            needed = 4;
        return back < needed ? back : 0;
    }
    return 0;
}

const HttpHeaders &eventStreamHeaders()
{
    static const HttpHeaders headers{
        {"Content-Type", "text/event-stream"}, {"Cache-Control", "no-cache"}, {"X-Accel-Buffering", "no"}};
    return headers;
}

QString goJsonTypeError(const QString &field, const QString &goType, const QJsonValue &value)
{
    QString jsonType = u"object"_s;
    if (value.isString())
        jsonType = u"string"_s;
    else if (value.isDouble())
        jsonType = u"number"_s;
    else if (value.isBool())
        jsonType = u"bool"_s;
    else if (value.isArray())
        jsonType = u"array"_s;
    return u"json: cannot unmarshal %1 into Go struct field RunCommandRequest.%2 of type %3"_s.arg(jsonType, field,
                                                                                                   goType);
}

} // namespace

void FakeOpenSandbox::onExecdRequest(HttpConnection *connection, const HttpRequest &request)
{
    ++m_stats.execdRequests;
    if (request.hasHeader("open-sandbox-api-key"))
        ++m_stats.execdRequestsWithApiKey;
    const QList<QByteArray> raw = request.path.split('/');
    const QString id = QString::fromUtf8(QByteArray::fromPercentEncoding(raw.value(1)));
    Sandbox *sandbox = id.isEmpty() ? nullptr : find(id);
    if (!sandbox) {
        // Nothing listens for a sandbox that does not exist.
        connection->abort();
        return;
    }
    HttpRequest forwarded = request;
    forwarded.path = '/' + raw.mid(2).join('/');
    dispatchExecd(sandbox, connection, forwarded, true);
}

void FakeOpenSandbox::dispatchExecd(Sandbox *sandbox, HttpConnection *connection, const HttpRequest &request,
                                    bool checkToken)
{
    if (sandbox->state == u"Paused"_s) {
        // A frozen container answers nothing until it is thawed (or removed).
        sandbox->held.append(HeldCall{connection, request, checkToken});
        return;
    }
    if (checkToken && QString::fromUtf8(request.header("x-execd-access-token")) != sandbox->token) {
        connection->send(HttpResponse::json(
            401, QJsonObject{{u"error"_s, u"Unauthorized: invalid or missing header X-EXECD-ACCESS-TOKEN"_s}}));
        return;
    }
    routeExecd(*sandbox, connection, request);
}

void FakeOpenSandbox::routeExecd(Sandbox &sandbox, HttpConnection *connection, const HttpRequest &request)
{
    if (!ensureDirs(sandbox)) {
        connection->send(execdError(500, u"RUNTIME_ERROR"_s, u"cannot prepare the sandbox directories"_s));
        return;
    }
    const QStringList segments = request.pathSegments();
    const QByteArray &method = request.method;
    const QString first = segments.value(0);
    const qsizetype count = segments.size();
    const auto is = [&](QByteArrayView m, std::initializer_list<const char *> path) {
        if (method != m || count != static_cast<qsizetype>(path.size()))
            return false;
        qsizetype i = 0;
        for (const char *part : path) {
            if (*part != '*' && segments.at(i) != QLatin1StringView(part))
                return false;
            ++i;
        }
        return true;
    };

    if (is("GET", {"ping"}))
        return connection->send(HttpResponse::empty(200));
    if (is("POST", {"command"}))
        return runCommand(sandbox, connection, request);
    if (is("DELETE", {"command"}))
        return connection->send(interruptCommand(sandbox, request));
    if (is("GET", {"command", "status", "*"}))
        return connection->send(commandStatus(sandbox, segments.at(2)));
    if (is("GET", {"command", "*", "logs"}))
        return connection->send(commandLogs(sandbox, segments.at(1), request));
    if (is("GET", {"files", "info"}))
        return connection->send(filesInfo(sandbox, request));
    if (is("DELETE", {"files"}))
        return connection->send(removeFiles(sandbox, request));
    if (is("POST", {"files", "upload"}))
        return connection->send(uploadFiles(sandbox, request));
    if (is("GET", {"files", "download"}))
        return connection->send(downloadFile(sandbox, request));
    if (is("POST", {"files", "mv"}))
        return connection->send(moveFiles(sandbox, request));
    if (is("POST", {"files", "permissions"}))
        return connection->send(chmodFiles(sandbox, request));
    if (is("GET", {"directories", "list"}))
        return connection->send(listDirectory(sandbox, request));
    if (is("POST", {"directories"}))
        return connection->send(makeDirectories(sandbox, request));
    if (is("DELETE", {"directories"}))
        return connection->send(removeDirectories(sandbox, request));
    if (is("GET", {"metrics"}) && m_options.metricsRoute)
        return metrics(connection);
    if (first == u"proxy"_s) {
        // execd's reverse proxy to a port inside the sandbox, where nothing listens.
        return connection->send(HttpResponse::empty(502));
    }
    connection->send(HttpResponse::text(404, "404 page not found"));
}

void FakeOpenSandbox::runCommand(Sandbox &sandbox, HttpConnection *connection, const HttpRequest &request)
{
    QJsonParseError parseError{};
    const QJsonDocument document = QJsonDocument::fromJson(request.body, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return connection->send(invalidBody(parseError.errorString()));
    if (!document.isObject())
        return connection->send(invalidBody(u"json: cannot unmarshal array into Go value of type RunCommandRequest"_s));
    const QJsonObject body = document.object();

    const QJsonValue commandValue = body.value(u"command"_s);
    const QJsonValue argvValue = body.value(u"argv"_s);
    if (!commandValue.isUndefined() && !commandValue.isNull() && !commandValue.isString())
        return connection->send(invalidBody(goJsonTypeError(u"command"_s, u"string"_s, commandValue)));
    QStringList argv;
    if (!argvValue.isUndefined() && !argvValue.isNull()) {
        if (!argvValue.isArray())
            return connection->send(invalidBody(goJsonTypeError(u"argv"_s, u"[]string"_s, argvValue)));
        for (const QJsonValue &arg : argvValue.toArray()) {
            if (!arg.isString())
                return connection->send(invalidBody(u"argv elements must be strings"_s));
            argv.append(arg.toString());
        }
    }
    const bool commandSet = body.contains(u"command"_s);
    const bool argvSet = body.contains(u"argv"_s);
    const QString command = commandValue.toString();
    if (commandSet == argvSet || (commandSet && command.isEmpty()) || (argvSet && !argvValue.isArray()))
        return connection->send(invalidBody(u"exactly one of non-empty command or argv is required"_s));
    if (argvSet && (argv.isEmpty() || argv.first().isEmpty()))
        return connection->send(invalidRequest(u"argv must contain a non-empty executable"_s));

    const QJsonValue cwdValue = body.value(u"cwd"_s);
    if (!cwdValue.isUndefined() && !cwdValue.isNull() && !cwdValue.isString())
        return connection->send(invalidBody(goJsonTypeError(u"cwd"_s, u"string"_s, cwdValue)));
    const QJsonValue backgroundValue = body.value(u"background"_s);
    if (!backgroundValue.isUndefined() && !backgroundValue.isNull() && !backgroundValue.isBool())
        return connection->send(invalidBody(goJsonTypeError(u"background"_s, u"bool"_s, backgroundValue)));
    const bool background = backgroundValue.toBool();
    qint64 timeoutMs = 0;
    const QJsonValue timeoutValue = body.value(u"timeout"_s);
    if (!timeoutValue.isUndefined() && !timeoutValue.isNull()) {
        const double number = timeoutValue.toDouble();
        if (!timeoutValue.isDouble() || number != static_cast<double>(static_cast<qint64>(number)))
            return connection->send(invalidBody(goJsonTypeError(u"timeout"_s, u"int64"_s, timeoutValue)));
        timeoutMs = static_cast<qint64>(number);
        if (timeoutMs < 0) {
            return connection->send(invalidRequest(
                u"Key: 'RunCommandRequest.TimeoutMs' Error:Field validation for 'TimeoutMs' failed on the 'gte' tag"_s));
        }
    }
    for (const QString &field : {u"uid"_s, u"gid"_s}) {
        const QJsonValue id = body.value(field);
        if (!id.isUndefined() && !id.isNull() && (!id.isDouble() || id.toDouble() < 0))
            return connection->send(invalidBody(goJsonTypeError(field, u"uint32"_s, id)));
    }
    if (body.contains(u"gid"_s) && !body.value(u"gid"_s).isNull()
        && (!body.contains(u"uid"_s) || body.value(u"uid"_s).isNull()))
        return connection->send(invalidRequest(u"uid is required when gid is provided"_s));
    QList<QPair<QString, QString>> envs;
    const QJsonValue envsValue = body.value(u"envs"_s);
    if (!envsValue.isUndefined() && !envsValue.isNull()) {
        if (!envsValue.isObject())
            return connection->send(invalidBody(goJsonTypeError(u"envs"_s, u"map[string]string"_s, envsValue)));
        const QJsonObject object = envsValue.toObject();
        for (auto it = object.begin(); it != object.end(); ++it) {
            if (!it.value().isString())
                return connection->send(invalidBody(goJsonTypeError(u"envs"_s, u"string"_s, it.value())));
            envs.append({it.key(), it.value().toString()});
        }
    }

    // The working directory must exist inside the sandbox.
    const QString cwd = cwdValue.toString().isEmpty() ? u"/workspace"_s : cwdValue.toString();
    const std::optional<ResolvedPath> where = resolve(sandbox, cwd, true);
    if (!where || (where->hostPath.isEmpty() && !where->root) || (!where->root && !QFileInfo(where->hostPath).isDir()))
        return connection->send(
            invalidRequest(u"working directory %1 does not exist or is not a directory"_s.arg(cwd)));

    auto *cmd = new Command(this);
    cmd->id = newHexId();
    cmd->content = commandSet ? command : argv.join(u' ');
    cmd->sandboxId = sandbox.id;
    cmd->background = background;
    cmd->startedNs = nowNs();
    auto *process = new QProcess(cmd);
    cmd->process = process;
    const QString dir = sandboxDir(sandbox);
    const QStringList shellArgs = commandSet ? QStringList{m_shell, u"-c"_s, command} : argv;

    QProcessEnvironment environment;
    environment.insert(u"PATH"_s, SandboxSearchPath);
    environment.insert(u"LANG"_s, u"C.UTF-8"_s);
    QList<QPair<QString, QString>> variables;
    for (auto it = sandbox.env.begin(); it != sandbox.env.end(); ++it)
        variables.append({it.key(), it.value()});
    variables += envs;
    if (m_options.bubblewrap) {
        SandboxSpec spec;
        spec.binds = {
            {dir + u"/workspace"_s, u"/workspace"_s}, {dir + u"/root"_s, u"/root"_s}, {dir + u"/tmp"_s, u"/tmp"_s}};
        spec.env = {{u"HOME"_s, u"/root"_s}};
        spec.env += variables;
        spec.cwd = where->sandboxPath;
        const QStringList args = bubblewrapArguments(spec);
        process->setProgram(m_options.bubblewrapPath);
        process->setArguments(args + shellArgs);
        process->setWorkingDirectory(dir);
    } else {
        // Unconfined: the command sees the host; only its working directory and HOME are mapped.
        environment.insert(u"HOME"_s, dir + u"/root"_s);
        environment.insert(u"TMPDIR"_s, dir + u"/tmp"_s);
        for (const auto &[name, value] : variables)
            environment.insert(name, value);
        process->setProgram(shellArgs.first());
        process->setArguments(shellArgs.mid(1));
        process->setWorkingDirectory(where->root ? dir + u"/workspace"_s : where->hostPath);
    }
    process->setProcessEnvironment(environment);
    process->setStandardInputFile(QProcess::nullDevice());
    runInOwnProcessGroup(*process); // pause, timeout, interrupt and delete reach all of it
    if (background) {
        cmd->outputPath = dir + u"/execd/"_s + cmd->id + u".log"_s;
        process->setProcessChannelMode(QProcess::MergedChannels);
        process->setStandardOutputFile(cmd->outputPath);
    } else {
        process->setProcessChannelMode(QProcess::SeparateChannels);
        connect(process, &QProcess::readyReadStandardOutput, cmd,
                [this, cmd] { commandOutput(cmd, 0, cmd->process->readAllStandardOutput(), false); });
        connect(process, &QProcess::readyReadStandardError, cmd,
                [this, cmd] { commandOutput(cmd, 1, cmd->process->readAllStandardError(), false); });
    }
    connect(process, &QProcess::finished, cmd,
            [this, cmd](int exitCode, QProcess::ExitStatus status) { commandFinished(cmd, exitCode, status); });

    process->start();
    const bool started = process->waitForStarted(30'000);
    sandbox.commands.emplace(cmd->id, cmd);
    connection->startStream(200, eventStreamHeaders());
    cmd->stream = connection;
    sendEvent(cmd, QJsonObject{{u"type"_s, u"init"_s}, {u"text"_s, cmd->id}, {u"timestamp"_s, nowMs()}});
    if (!started) {
        const QString message = process->errorString();
        cmd->exitCode = 255;
        cmd->error = message;
        cmd->finishedNs = nowNs();
        sendEvent(cmd,
                  QJsonObject{{u"type"_s, u"error"_s},
                              {u"error"_s,
                               QJsonObject{{u"ename"_s, u"CommandExecError"_s},
                                           {u"evalue"_s, message},
                                           {u"traceback"_s, QJsonArray{message}}}},
                              {u"timestamp"_s, nowMs()}});
        endStreamSoon(connection);
        cmd->stream = nullptr;
        return;
    }
    cmd->running = true;
    cmd->pgid = process->processId();
    if (timeoutMs > 0) {
        cmd->deadline = new QTimer(cmd);
        cmd->deadline->setSingleShot(true);
        connect(cmd->deadline, &QTimer::timeout, this, [this, cmd] {
            cmd->timedOut = true;
            killCommand(cmd);
        });
        cmd->deadline->start(static_cast<int>(std::min<qint64>(timeoutMs, std::numeric_limits<int>::max())));
    }
    if (background) {
        sendEvent(cmd,
                  QJsonObject{{u"type"_s, u"execution_complete"_s},
                              {u"execution_time"_s, (nowNs() - cmd->startedNs) / 1'000'000},
                              {u"timestamp"_s, nowMs()}});
        endStreamSoon(connection);
        cmd->stream = nullptr;
        return;
    }
    // Keep-alive pings while the command runs (the first one straight away, as execd does).
    const auto ping = [this, cmd] {
        if (!cmd->stream) {
            cmd->ping->stop();
            return;
        }
        const Sandbox *current = find(cmd->sandboxId);
        if (current && current->state == u"Paused"_s)
            return;
        sendEvent(cmd, QJsonObject{{u"type"_s, u"ping"_s}, {u"text"_s, u"pong"_s}, {u"timestamp"_s, nowMs()}});
    };
    cmd->ping = new QTimer(cmd);
    connect(cmd->ping, &QTimer::timeout, this, ping);
    cmd->ping->start(std::max(1, m_options.pingIntervalMs));
    ping();
}

void FakeOpenSandbox::sendEvent(Command *command, const QJsonObject &event)
{
    if (command->stream)
        command->stream->writeChunk(compactJson(event) + "\n\n");
}

void FakeOpenSandbox::endStreamSoon(HttpConnection *connection)
{
    const QPointer<HttpConnection> guard(connection);
    QTimer::singleShot(m_options.streamCloseDelayMs, this, [guard] {
        if (guard)
            guard->endStream();
    });
}

void FakeOpenSandbox::commandOutput(Command *command, int channel, const QByteArray &data, bool flush)
{
    QByteArray bytes = command->pendingUtf8[channel] + data;
    command->pendingUtf8[channel].clear();
    if (!flush) {
        // Never split a character between two events.
        const qsizetype tail = incompleteUtf8Tail(bytes);
        command->pendingUtf8[channel] = bytes.right(tail);
        bytes.chop(tail);
    }
    if (bytes.isEmpty())
        return;
    if (Sandbox *sandbox = command->orphaned ? nullptr : find(command->sandboxId))
        appendContainerLog(*sandbox, bytes);
    sendEvent(command,
              QJsonObject{{u"type"_s, channel == 0 ? u"stdout"_s : u"stderr"_s},
                          {u"text"_s, QString::fromUtf8(bytes)},
                          {u"timestamp"_s, nowMs()}});
}

void FakeOpenSandbox::commandFinished(Command *command, int exitCode, QProcess::ExitStatus status)
{
    if (!command->background) {
        commandOutput(command, 0, command->process->readAllStandardOutput(), true);
        commandOutput(command, 1, command->process->readAllStandardError(), true);
    }
    command->running = false;
    command->pgid = 0; // never signal a recycled process group
    command->finishedNs = nowNs();
    // Go's ExitCode(): the exit status, or -1 when a signal ended the process.
    const int code = status == QProcess::NormalExit ? exitCode : -1;
    command->exitCode = code;
    command->error = code == 0           ? QString()
        : status == QProcess::NormalExit ? u"exit status %1"_s.arg(code)
                                         : u"signal: killed"_s;
    if (command->ping)
        command->ping->stop();
    if (command->deadline)
        command->deadline->stop();
    if (command->orphaned) {
        command->deleteLater();
        return;
    }
    if (!command->background) {
        if (code == 0) {
            sendEvent(command,
                      QJsonObject{{u"type"_s, u"execution_complete"_s},
                                  {u"execution_time"_s, (command->finishedNs - command->startedNs) / 1'000'000},
                                  {u"timestamp"_s, nowMs()}});
        } else {
            sendEvent(command,
                      QJsonObject{{u"type"_s, u"error"_s},
                                  {u"error"_s,
                                   QJsonObject{{u"ename"_s, u"CommandExecError"_s},
                                               {u"evalue"_s, QString::number(code)},
                                               {u"traceback"_s, QJsonArray{command->error}}}},
                                  {u"timestamp"_s, nowMs()}});
        }
        if (command->stream)
            endStreamSoon(command->stream);
        command->stream = nullptr;
    }
}

HttpResponse FakeOpenSandbox::interruptCommand(Sandbox &sandbox, const HttpRequest &request)
{
    const QString id = request.queryValue(u"id"_s).value_or(QString());
    if (id.isEmpty())
        return execdError(400, u"MISSING_QUERY"_s, u"missing query parameter 'id'"_s);
    const auto it = sandbox.commands.find(id);
    if (it == sandbox.commands.end()) {
        return execdError(500, u"RUNTIME_ERROR"_s,
                          u"error interruptting code context. command not found: %1"_s.arg(id));
    }
    killCommand(it->second);
    return HttpResponse::empty(200);
}

HttpResponse FakeOpenSandbox::commandStatus(Sandbox &sandbox, const QString &id)
{
    const auto it = sandbox.commands.find(id);
    if (it == sandbox.commands.end())
        return execdError(404, u"INVALID_REQUEST_BODY"_s, u"command not found: %1"_s.arg(id));
    const Command *command = it->second;
    QJsonObject status{
        {u"id"_s, command->id}, {u"running"_s, command->running}, {u"started_at"_s, formatGoTime(command->startedNs)}};
    if (!command->content.isEmpty())
        status.insert(u"content"_s, command->content);
    if (command->exitCode)
        status.insert(u"exit_code"_s, *command->exitCode);
    if (!command->error.isEmpty())
        status.insert(u"error"_s, command->error);
    if (command->finishedNs)
        status.insert(u"finished_at"_s, formatGoTime(command->finishedNs));
    return HttpResponse::json(200, status);
}

HttpResponse FakeOpenSandbox::commandLogs(Sandbox &sandbox, const QString &id, const HttpRequest &request)
{
    const auto it = sandbox.commands.find(id);
    if (it == sandbox.commands.end())
        return execdError(400, u"INVALID_REQUEST_BODY"_s, u"command not found: %1"_s.arg(id));
    const Command *command = it->second;
    if (!command->background)
        return execdError(400, u"INVALID_REQUEST_BODY"_s, u"command %1 is not running in background"_s.arg(id));
    bool ok = false;
    qint64 cursor = request.queryValue(u"cursor"_s).value_or(QString()).toLongLong(&ok);
    if (!ok)
        cursor = 0;
    if (cursor < 0)
        return execdError(400, u"INVALID_REQUEST_BODY"_s, u"cursor cannot be negative"_s);
    QFile file(command->outputPath);
    if (!file.open(QIODevice::ReadOnly)) {
        return execdError(400, u"INVALID_REQUEST_BODY"_s,
                          u"error open combined output file for command %1: %2"_s.arg(id, file.errorString()));
    }
    cursor = std::min(cursor, file.size());
    file.seek(cursor);
    const QByteArray data = file.readAll();
    HttpResponse response = HttpResponse::text(200, data, "text/plain; charset=utf-8");
    response.setHeader("EXECD-COMMANDS-TAIL-CURSOR", QByteArray::number(cursor + data.size()));
    return response;
}

namespace {

// The first line of /proc/stat ("cpu user nice system idle iowait irq softirq steal ..."): every
// jiffy so far, and the idle ones (idle + iowait), as gopsutil counts them.
std::pair<double, double> cpuJiffies()
{
    QFile stat(u"/proc/stat"_s);
    if (!stat.open(QIODevice::ReadOnly))
        return {0, 0};
    const QList<QByteArray> fields = stat.readLine().simplified().split(' ');
    double total = 0;
    double idle = 0;
    // user nice system idle iowait irq softirq steal (guest and guest_nice are in user and nice)
    for (qsizetype i = 1; i < fields.size() && i <= 8; ++i) {
        const double value = fields.at(i).toDouble();
        total += value;
        if (i == 4 || i == 5)
            idle += value;
    }
    return {total, idle};
}

} // namespace

void FakeOpenSandbox::metrics(HttpConnection *connection)
{
    // execd: cpu.Percent(time.Second, false), then mem.VirtualMemory(): the answer comes a second
    // after the request.
    const std::pair<double, double> before = cpuJiffies();
    QPointer<HttpConnection> alive(connection);
    QTimer::singleShot(1000, this, [alive, before] {
        if (!alive)
            return;
        const std::pair<double, double> after = cpuJiffies();
        const double total = after.first - before.first;
        const double busy = total - (after.second - before.second);
        const double percent = total > 0 ? std::clamp(busy / total * 100.0, 0.0, 100.0) : 0.0;
        double totalKib = 0;
        double availableKib = 0;
        QFile meminfo(u"/proc/meminfo"_s);
        if (meminfo.open(QIODevice::ReadOnly)) {
            for (const QByteArray &line : meminfo.readAll().split('\n')) {
                const QList<QByteArray> fields = line.simplified().split(' ');
                if (fields.size() < 2)
                    continue;
                if (fields.at(0) == "MemTotal:")
                    totalKib = fields.at(1).toDouble();
                else if (fields.at(0) == "MemAvailable:")
                    availableKib = fields.at(1).toDouble();
            }
        }
        alive->send(HttpResponse::json(200,
                                       QJsonObject{{u"cpu_count"_s, QThread::idealThreadCount()},
                                                   {u"cpu_used_pct"_s, percent},
                                                   {u"mem_total_mib"_s, totalKib / 1024},
                                                   {u"mem_used_mib"_s, (totalKib - availableKib) / 1024},
                                                   {u"timestamp"_s, nowMs()}}));
    });
}

} // namespace PaddockFake
