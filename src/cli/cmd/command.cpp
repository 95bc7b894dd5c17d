#include "command.h"

#include <QCoroTask>

namespace Paddock::Ctl {

void write(std::FILE *stream, const QByteArray &bytes)
{
    std::fwrite(bytes.constData(), 1, static_cast<size_t>(bytes.size()), stream);
    std::fflush(stream);
}

void out(const QString &line)
{
    write(stdout, line.toUtf8() + '\n');
}

void err(const QString &line)
{
    write(stderr, QByteArrayLiteral("paddockctl: ") + line.toUtf8() + '\n');
}

QString jsonTime(const QDateTime &time)
{
    return time.isValid() ? time.toUTC().toString(Qt::ISODateWithMs) : QString();
}

std::optional<qint64> parseCount(const QString &text)
{
    bool ok = false;
    const qint64 value = text.toLongLong(&ok);
    if (!ok || value < 0)
        return std::nullopt;
    return value;
}

QString appliesOnlyTo(const QString &option, const QStringList &backends)
{
    if (backends.size() <= 1)
        return Tr::tr("option --%1 applies to the %2 backend only").arg(option, backends.value(0));
    // In the registry's order: "the local and docker backends", "the a, b and c backends".
    return Tr::tr("option --%1 applies to the %2 and %3 backends only")
        .arg(option, backends.first(backends.size() - 1).join(QStringLiteral(", ")), backends.constLast());
}

Result<IsolationPolicy> Session::isolation() const
{
    return has("isolation") ? parseIsolationPolicy(value("isolation"))
                            : Result<IsolationPolicy>(DefaultIsolationPolicy);
}

int Session::usage(const QString &message) const
{
    err(message);
    if (command) {
        write(stderr,
              Tr::tr("usage: paddockctl %1 %2\n")
                  .arg(QLatin1String(command->name), QLatin1String(command->synopsis))
                  .toUtf8());
    } else {
        write(stderr, Tr::tr("Run 'paddockctl --help' for the commands.\n").toUtf8());
    }
    return Usage;
}

int Session::failed(const QString &what, const Error &error) const
{
    err(what.isEmpty() ? error.message : what + QStringLiteral(": ") + error.message);
    return error.kind == Error::Kind::InvalidArgument ? Usage : Failure;
}

} // namespace Paddock::Ctl
