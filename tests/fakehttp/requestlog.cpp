#include "requestlog.h"

#include "http.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <memory>

using namespace Qt::StringLiterals;

namespace PaddockFake {

namespace {

std::unique_ptr<RequestLog> &theLog()
{
    static std::unique_ptr<RequestLog> log;
    return log;
}

const QString OptionName = u"record-requests"_s;

} // namespace

RequestLog *RequestLog::instance()
{
    return theLog().get();
}

bool RequestLog::open(const QString &path, QString *error)
{
    auto log = std::make_unique<RequestLog>();
    log->m_file.setFileName(path);
    if (!log->m_file.open(QIODevice::WriteOnly | QIODevice::Append | QIODevice::Unbuffered)) {
        if (error)
            *error = u"cannot open %1: %2"_s.arg(path, log->m_file.errorString());
        return false;
    }
    theLog() = std::move(log);
    return true;
}

void RequestLog::record(const QByteArray &listener, quint16 port, const HttpRequest &request)
{
    QJsonArray headers;
    for (const auto &[name, value] : request.headers)
        headers.append(QJsonArray{QString::fromLatin1(name), QString::fromLatin1(value)});
    const QJsonObject line{
        {u"listener"_s, QString::fromLatin1(listener)},
        {u"port"_s, port},
        {u"method"_s, QString::fromLatin1(request.method)},
        {u"target"_s, QString::fromLatin1(request.target)},
        {u"headers"_s, headers},
        {u"body"_s, QString::fromLatin1(request.body.toBase64())},
    };
    // One write per line (the file is unbuffered), so a reader never sees half of one.
    m_file.write(QJsonDocument(line).toJson(QJsonDocument::Compact) + '\n');
}

void addRecordRequestsOption(QCommandLineParser &parser)
{
    parser.addOption(QCommandLineOption(
        OptionName,
        u"Append every request received, on every listener, to FILE as one JSON line (listener, port, method, "
        "target, headers, base64 body), flushed at once."_s,
        u"FILE"_s));
}

bool startRecordingRequests(const QCommandLineParser &parser, QString *error)
{
    if (!parser.isSet(OptionName))
        return true;
    return RequestLog::open(parser.value(OptionName), error);
}

} // namespace PaddockFake
