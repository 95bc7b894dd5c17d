#pragma once

#include "../../canceltoken.h"
#include "../../http/httpclient.h"
#include "../../result.h"
#include "../../sandbox.h"

#include <QCoroFwd>

#include <QByteArray>
#include <QDateTime>
#include <QMap>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QThreadPool>
#include <QUrl>

#include <chrono>
#include <optional>

namespace Paddock::E2B {

using Http::HttpClient;
using Http::HttpRequest;
using Http::HttpResponse;
using Http::RetryPolicy;

inline constexpr QLatin1String DefaultDomain{"e2b.app"};
inline constexpr int EnvdPort = 49983;

// Where the control plane and envd are, and the key, as the official SDKs take them (reference
// §2.1, §2.2): an explicit API URL, else `https://api.<domain>`; envd at an explicit sandbox URL
// (every sandbox on one URL, told apart by the E2b-Sandbox-Id header), else per sandbox from its
// domain.
struct ConnectionConfig
{
    QString domain; // empty: $E2B_DOMAIN, else e2b.app
    QString apiUrl; // empty: $E2B_API_URL, else https://api.<domain>
    QString sandboxUrl; // empty: $E2B_SANDBOX_URL, else from the sandbox's domain
    // Sent as X-API-Key to the control plane only, never to envd, never logged. Never read from
    // the environment here: E2B_API_KEY is paddockctl's key source (and the console's import).
    QByteArray apiKey;
    std::chrono::milliseconds requestTimeout{30'000};

    // Fills the empty fields from the environment (never the key) and the SDKs' defaults.
    ConnectionConfig resolved() const;
    QUrl apiBase() const; // resolved
    // envd's base URL for a sandbox whose create/connect answer named `sandboxDomain` (empty:
    // the configured domain), as JS ConnectionConfig.getSandboxUrl chooses it.
    QUrl envdBase(const QString &sandboxId, const QString &sandboxDomain) const;
};

// The key is `e2b_` and hex, as the server and the Python SDK check it; URLs are http(s) with a
// host and nothing after the path. Checked before anything is sent (InvalidArgument).
Result<> validateKey(const QByteArray &key);
Result<> validateUrl(const QString &url, const QString &what);
Result<> validateDomainName(const QString &domain);

// One sandbox as the control plane reports it (ListedSandbox, SandboxDetail, or the Sandbox of a
// create or connect answer, which has only the ids, envd's version, token and domain).
struct SandboxRecord
{
    SandboxInfo info; // ids from the agentscope.* metadata, state, image = template alias (else ID)
    QString templateId;
    QString alias;
    QDateTime startedAt;
    QDateTime endAt; // Running: the deadline; Paused: when it was paused
    int cpuCount = 0;
    int memoryMB = 0;
    int diskSizeMB = 0;
    QString envdVersion;
    QByteArray envdAccessToken; // never shown, never logged
    QString domain; // the sandbox's domain, when the server names one
    QString onTimeout; // lifecycle: pause or kill
};

// A listed page parsed: the sandboxes and the token of the next page (empty: the last).
struct ListPage
{
    QList<SandboxInfo> sandboxes;
    QByteArray nextToken;
};

// The query of `GET /v2/sandboxes`: the metadata filter in the three layers the server undoes
// (each key and value URI-encoded, the pairs joined, the whole encoded again as the value), the
// states as one comma list, the limit and the page token.
QByteArray listQuery(const QStringList &states, const QMap<QString, QString> &metadata, int limit,
                     const QByteArray &nextToken);
// Parsing (simdjson On Demand, ../../json/ondemand.h; a page of 100 in well under a millisecond).
// Off the caller's thread for lists.
Result<ListPage> parseListPage(const HttpResponse &response);
Result<SandboxRecord> parseSandbox(const QByteArray &json);
// E2B's error body {code, message[, error_code]}: "HTTP 404: Sandbox \"i…\" doesn't exist …";
// 404 NotFound, 409 Conflict, 401/403 InvalidArgument (a key that is wrong is the user's to fix),
// 400 InvalidArgument. The key never appears in it.
Error decodeError(const HttpResponse &response);

// The E2B control plane (reference §3). Every wait goes through `http`, so closing it ends them.
class ControlPlane final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ControlPlane)

public:
    static constexpr int PageSize = 100; // the server's maximum
    static constexpr int MaxPages = 10'000; // a server that always gives a next token cannot hold us

    ControlPlane(HttpClient *http, ConnectionConfig config, QObject *parent = nullptr);

    const ConnectionConfig &config() const { return m_config; }

    // Every page, following X-Next-Token: the next page is asked for as soon as a page has
    // arrived, while that page is parsed on a worker thread.
    QCoro::Task<Result<QList<SandboxInfo>>> list(QStringList states, QMap<QString, QString> metadata);
    // Of the last listing's pages, how many the low-priority thread had not begun when the last
    // one arrived (then parsed on every core at normal priority): for benchmarks and tests.
    int lastListingPagesLeft() const { return m_lastPagesLeft; }
    // Ends the listings under way (and every later one) with a Cancelled error: a server that
    // takes a listing and never answers would hold a closing profile for the request's timeouts.
    void cancelReads() { m_reads->cancel(); }
    QCoro::Task<Result<SandboxRecord>> get(QString sandboxId);
    // POST /v2/sandboxes with an explicit timeout; sent once (a create must not run twice).
    QCoro::Task<Result<SandboxRecord>> create(QString templateName, QMap<QString, QString> metadata,
                                              std::chrono::seconds timeout, QMap<QString, QString> envVars);
    // POST /v2/sandboxes/{id}/connect with an explicit timeout: a running sandbox's deadline is
    // only extended (200), a paused one is resumed with now + timeout (201). `resumed` says which.
    QCoro::Task<Result<SandboxRecord>> connect(QString sandboxId, std::chrono::seconds timeout,
                                               bool *resumed = nullptr);
    // 204; 409 (already paused) is an error of kind Conflict for the caller to judge.
    QCoro::Task<Result<>> pause(QString sandboxId);
    QCoro::Task<Result<>> kill(QString sandboxId);
    // POST /sandboxes/{id}/timeout: endAt = now + timeout (it can shorten; clamped by the server).
    QCoro::Task<Result<>> setTimeout(QString sandboxId, std::chrono::seconds timeout);
    // GET /sandboxes/metrics?sandbox_ids=a,b (at most 100 ids), raw for
    // MetricsWire::parseE2bSandboxesMetrics.
    QCoro::Task<Result<QByteArray>> metrics(QStringList sandboxIds);

private:
    HttpRequest request(const QByteArray &method, const QString &path, const QByteArray &query = {}) const;
    QCoro::Task<Result<SandboxRecord>> sendForSandbox(HttpRequest request, int *status = nullptr);
    QCoro::Task<Result<>> sendForNothing(HttpRequest request);

    HttpClient *m_http;
    ConnectionConfig m_config;
    // Listed pages are parsed here while the fetch goes on, one at a time, at nice 19; the
    // rest, once it is over, in m_finisher (see list()). Their destructors wait for a parse still
    // running.
    QThreadPool m_parser;
    QThreadPool m_finisher;
    int m_lastPagesLeft = 0;
    std::shared_ptr<CancelToken> m_reads = std::make_shared<CancelToken>();
};

} // namespace Paddock::E2B
