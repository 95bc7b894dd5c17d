// The exit status an exec connection ends with (channel 3), read without I/O (declared in
// podexec.h).
#include "podexec.h"

#include "../../tr.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace Paddock::Kubernetes {

Result<int> decodeExecStatus(const QByteArray &status)
{
    QJsonParseError parseError{};
    const QJsonDocument document = QJsonDocument::fromJson(status, &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject()) {
        return fail(Error::backend(Tr::tr("the exec status from the API server is not a JSON object: %1")
                                       .arg(QString::fromUtf8(status.left(200)))));
    }
    const QJsonObject object = document.object();
    const QString state = object.value(QLatin1String("status")).toString();
    if (state == QLatin1String("Success"))
        return 0;
    if (state != QLatin1String("Failure")) {
        return fail(Error::backend(
            Tr::tr("the exec status from the API server is neither Success nor Failure: '%1'").arg(state)));
    }
    const QString reason = object.value(QLatin1String("reason")).toString();
    if (reason == QLatin1String("NonZeroExitCode")) {
        const QJsonArray causes =
            object.value(QLatin1String("details")).toObject().value(QLatin1String("causes")).toArray();
        for (const QJsonValue &value : causes) {
            const QJsonObject cause = value.toObject();
            if (cause.value(QLatin1String("reason")).toString() != QLatin1String("ExitCode"))
                continue;
            const QString code = cause.value(QLatin1String("message")).toString();
            // strconv.ParseUint(code, 10, 8): digits only, at most 255.
            static const QRegularExpression digits(QStringLiteral("^[0-9]+$"));
            bool ok = false;
            const uint exitCode = code.toUInt(&ok);
            if (!digits.match(code).hasMatch() || !ok || exitCode > 255) {
                return fail(Error::backend(
                    Tr::tr("the exec status from the API server gives an invalid exit code '%1'").arg(code)));
            }
            return int(exitCode);
        }
        return fail(Error::backend(
            Tr::tr("the exec status from the API server reports a non-zero exit code without giving it")));
    }
    QString message = object.value(QLatin1String("message")).toString();
    if (message.isEmpty())
        message = reason;
    Error error = Error::backend(Tr::tr("the command could not run in the pod: %1").arg(message));
    error.httpStatus = object.value(QLatin1String("code")).toInt();
    return fail(std::move(error));
}

std::optional<Result<int>> ExecStatusReader::add(QByteArrayView piece)
{
    m_bytes.append(piece.data(), piece.size());
    // One message as a rule; should it come in pieces, the JSON is whole at the last.
    if (!QJsonDocument::fromJson(m_bytes).isObject())
        return std::nullopt;
    return decodeExecStatus(m_bytes);
}

Result<int> ExecStatusReader::decode() const
{
    return decodeExecStatus(m_bytes);
}

} // namespace Paddock::Kubernetes
