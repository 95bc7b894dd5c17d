#pragma once

// The requests a fake server received, for tests that must know what reached which listener
// (tests/cli/tst_secrets_stay_put.cpp: where each API key went). Every fake takes
// `--record-requests FILE` (addRecordRequestsOption, startRecordingRequests): every request that
// any of its HttpServers parsed, before its handler sees it, is appended to FILE as one JSON line
// and flushed at once, so a test can read the file while the fake runs:
//
//     {"listener": "api", "port": 41234, "method": "POST", "target": "/v1/sandboxes?x=1",
//      "headers": [["open-sandbox-api-key", "..."], ...], "body": "<base64>"}
//
// `listener` is the name the fake gives the listener (HttpServer::setRecordAs): "api" for a
// server's own API, "execd" for OpenSandbox's execd, "envd" for E2B's envd (also when envd shares
// the API's port: the name is chosen per request), "fake" for the test-only /_fake routes. Header
// names are in lower case, values and the body as received; a WebSocket upgrade is recorded as
// the HTTP request it starts with (the frames after it are not). A request the server refused
// before parsing it whole (a malformed head) is not recorded.

#include <QByteArray>
#include <QFile>
#include <QString>

class QCommandLineParser;

namespace PaddockFake {

struct HttpRequest;

class RequestLog
{
public:
    // The one log of this process: null until startRecordingRequests() opened one.
    static RequestLog *instance();
    // Opens (creates or appends to) FILE; false with the reason when it cannot.
    static bool open(const QString &path, QString *error);

    void record(const QByteArray &listener, quint16 port, const HttpRequest &request);

private:
    QFile m_file;
};

// `--record-requests FILE`, for a fake's QCommandLineParser.
void addRecordRequestsOption(QCommandLineParser &parser);
// After parser.process(): opens the log when the option was given. False (with the reason) when
// the file cannot be opened.
bool startRecordingRequests(const QCommandLineParser &parser, QString *error);

} // namespace PaddockFake
