#pragma once

#include "../../canceltoken.h"
#include "../../result.h"
#include "../../sandbox.h"
#include "http.h"
#include "sandboxjson.h"

#include <QCoroFwd>

#include <QJsonObject>
#include <QMap>
#include <QObject>
#include <QStringList>

#include <chrono>
#include <optional>

namespace Paddock::OpenSandbox {

// Where the lifecycle API is and how to authenticate, as the official SDKs take it.
struct ConnectionConfig
{
    QString domain; // host[:port], possibly with a scheme; empty: $OPEN_SANDBOX_DOMAIN or localhost:8080
    QString protocol; // "http" or "https"; a scheme in domain wins
    // Sent as OPEN-SANDBOX-API-KEY to the lifecycle server only; empty: no header. Never taken
    // from the environment here: OPEN_SANDBOX_API_KEY belongs to the server the environment
    // names, so only paddockctl (whose one key source it is) and the console's import of
    // OPEN_SANDBOX_DOMAIN read it, and pass it on explicitly.
    QByteArray apiKey;
    bool useServerProxy = false;
    std::chrono::milliseconds requestTimeout{30'000};

    // Fills an empty domain from the environment, and the SDK defaults (never the key).
    ConnectionConfig resolved() const;
    QUrl baseUrl() const; // <protocol>://<domain>/v1
};

// A domain is host[:port] (optionally after http:// or https://): no path, no query, a port in
// 1..65535. Checked before anything is sent, so a typo gets one clear message.
Result<> validateDomain(const ConnectionConfig &resolved);

struct SandboxCreate
{
    QString image = QStringLiteral("python:3.11-slim");
    QStringList entrypoint{QStringLiteral("tail"), QStringLiteral("-f"), QStringLiteral("/dev/null")};
    std::optional<std::chrono::seconds> timeout = std::chrono::seconds(1800); // nullopt: manual cleanup
    QMap<QString, QString> resourceLimits{{QStringLiteral("cpu"), QStringLiteral("1")},
                                          {QStringLiteral("memory"), QStringLiteral("2Gi")}};
    QMap<QString, QString> env;
    QMap<QString, QString> metadata; // raw values; encoded on the way out
};

struct Endpoint
{
    QString endpoint; // host[:port][/path], no scheme
    QMap<QByteArray, QByteArray> headers;
};

QByteArray createBody(const SandboxCreate &create);
// The whole query of a list request (state repeated, one percent-encoded metadata value).
QByteArray listQuery(const QStringList &states, const QMap<QString, QString> &metadata, int page, int pageSize);

// The OpenSandbox lifecycle API (`/v1/sandboxes…`).
class LifecycleClient final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LifecycleClient)

public:
    static constexpr int PageSize = 200; // the server's maximum
    static constexpr int ListConcurrency = 4; // pages in flight at once after the first

    // Every wait of this client goes through `http` (its requests, its sleeps, its work on other
    // threads), so that closing `http` (HttpClient::abortAll()) ends them all at once, while this
    // client still exists. The destructor closes it, in case its owner did not.
    LifecycleClient(HttpClient *http, ConnectionConfig config, QObject *parent = nullptr);
    ~LifecycleClient() override;

    const ConnectionConfig &config() const { return m_config; }

    // Every page: the first, then the rest ListConcurrency at a time (the first says how many),
    // then any that hasNextPage still announces; each sandbox once. Pages are parsed on a
    // worker thread. Metadata values are matched in their encoded form.
    QCoro::Task<Result<QList<SandboxInfo>>> list(QStringList states, QMap<QString, QString> metadata);
    // Ends the listings under way (and every later one) with a Cancelled error: a server that
    // takes a listing and never answers would hold a closing profile for the request's timeouts.
    void cancelReads() { m_reads->cancel(); }
    QCoro::Task<Result<SandboxInfo>> get(QString sandboxId);
    // The same GET, read for the inspector's overview (parseSandboxDetails).
    QCoro::Task<Result<SandboxDetails>> details(QString sandboxId);
    QCoro::Task<Result<SandboxInfo>> create(SandboxCreate create);
    QCoro::Task<Result<>> remove(QString sandboxId);
    QCoro::Task<Result<>> pause(QString sandboxId);
    QCoro::Task<Result<>> resume(QString sandboxId);
    // expiresAt = now (client clock, UTC) + duration, as the SDKs compute it.
    QCoro::Task<Result<QDateTime>> renew(QString sandboxId, std::chrono::seconds duration);
    // `once`: not sent again after a failure (the overview's look-up, which must not wait out
    // the retries' back-off where a sandbox that is not running has no endpoint).
    QCoro::Task<Result<Endpoint>> endpoint(QString sandboxId, int port, bool once = false);
    // JSON merge patch: a value sets (encoded), nullopt removes the key.
    QCoro::Task<Result<SandboxInfo>> patchMetadata(QString sandboxId, QMap<QString, std::optional<QString>> patch);
    // The legacy `GET /sandboxes/{id}/diagnostics/logs?tail=N` (no scope): the last N lines
    // (clamped to the server's 1..MaxLogTail) of `docker logs --timestamps`, the text/plain body
    // as it came. Safe to repeat; 404 when the sandbox is gone.
    static constexpr int MaxLogTail = 10'000;
    QCoro::Task<Result<QByteArray>> containerLogs(QString sandboxId, int tail);
    // Pause and resume answer 202 at once; this polls GET (0.1 s, x1.5, capped at 1 s) until the
    // state is one of `wanted`, a state that cannot lead there, or the time is up.
    QCoro::Task<Result<SandboxInfo>> waitForState(QString sandboxId, QList<SandboxState> wanted,
                                                  std::chrono::milliseconds limit);

private:
    QCoro::Task<Result<ListPage>> fetchPage(QStringList states, QMap<QString, QString> metadata, int page);
    HttpRequest request(const QByteArray &method, const QString &path, const QByteArray &query = {}) const;
    QCoro::Task<Result<QJsonObject>> sendForJson(HttpRequest request);
    QCoro::Task<Result<>> sendForNothing(HttpRequest request); // 2xx with no body to read

    HttpClient *m_http;
    std::shared_ptr<CancelToken> m_reads = std::make_shared<CancelToken>(); // listings: cancelReads()
    ConnectionConfig m_config;
};

} // namespace Paddock::OpenSandbox
