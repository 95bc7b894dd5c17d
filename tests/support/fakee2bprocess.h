#pragma once

// Runs paddock-fake-e2b as a child process on 127.0.0.1 for end-to-end tests: start() waits for
// its two stdout lines (the API URL, then envd's: what E2B_API_URL and E2B_SANDBOX_URL take);
// stats() and info() read its /_fake routes, advanceClock() moves its clock, post() calls any
// other /_fake route; the destructor stops it with SIGTERM (and SIGKILL if it lingers).

#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QProcess>
#include <QSignalSpy>
#include <QStringList>
#include <QTest>
#include <QUrl>

#include <memory>

#include <csignal>
#include <sys/prctl.h>

#ifndef FAKE_E2B_PATH
#error "FAKE_E2B_PATH must name the paddock-fake-e2b executable"
#endif

namespace PaddockTest {

class FakeE2bProcess
{
public:
    FakeE2bProcess() = default;
    ~FakeE2bProcess() { stop(); }
    Q_DISABLE_COPY_MOVE(FakeE2bProcess)

    // Starts the server; false (with the reason in error()) when it did not print its URLs.
    bool start(const QStringList &arguments = {})
    {
        m_process = std::make_unique<QProcess>();
        m_process->setProcessChannelMode(QProcess::SeparateChannels);
        m_process->setReadChannel(QProcess::StandardOutput);
        // A test that crashes must not leave its server behind.
        m_process->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
        m_process->start(QStringLiteral(FAKE_E2B_PATH), arguments);
        if (!m_process->waitForStarted()) {
            m_error = m_process->errorString();
            return false;
        }
        QStringList lines;
        while (lines.size() < 2) {
            while (lines.size() < 2 && m_process->canReadLine())
                lines.append(QString::fromUtf8(m_process->readLine()).trimmed());
            if (lines.size() < 2 && (m_process->state() != QProcess::Running || !m_process->waitForReadyRead(30'000))) {
                m_error = QString::fromUtf8(m_process->readAllStandardError());
                return false;
            }
        }
        m_api = QUrl(lines.at(0));
        m_envd = QUrl(lines.at(1));
        return m_api.isValid() && m_api.port() > 0 && m_envd.isValid() && m_envd.port() > 0;
    }

    // Stops it with SIGTERM; returns its exit code (-1 if it had to be killed).
    int stop()
    {
        if (!m_process || m_process->state() == QProcess::NotRunning)
            return m_process ? m_process->exitCode() : 0;
        m_process->terminate();
        if (!m_process->waitForFinished(30'000)) {
            m_process->kill();
            m_process->waitForFinished();
            return -1;
        }
        return m_process->exitStatus() == QProcess::NormalExit ? m_process->exitCode() : -1;
    }

    // SIGKILL, as a crash: nothing of it runs on (its sandboxes' commands die with it).
    void kill()
    {
        if (m_process && m_process->state() != QProcess::NotRunning) {
            m_process->kill();
            m_process->waitForFinished();
        }
    }

    QString error() const { return m_error; }
    QUrl apiUrl() const { return m_api; } // E2B_API_URL
    QUrl envdUrl() const { return m_envd; } // E2B_SANDBOX_URL
    QProcess *process() const { return m_process.get(); }

    // GET /_fake/stats: request counters kept by the server for tests.
    QJsonObject stats() const { return call("GET", QStringLiteral("/_fake/stats")); }
    // GET /_fake/info: its URLs and data directory (sandbox files in <dataDir>/<id>/{home,root,tmp}).
    QJsonObject info() const { return call("GET", QStringLiteral("/_fake/info")); }
    // POST /_fake/clock: moves the fake clock forward (sandboxes due are evicted at once).
    QJsonObject advanceClock(double seconds) const
    {
        return call("POST", QStringLiteral("/_fake/clock"), QJsonObject{{QStringLiteral("advanceSeconds"), seconds}});
    }
    // GET /_fake/sandboxes/<id>: its state, folder, token, times and processes.
    QJsonObject sandbox(const QString &sandboxId) const
    {
        return call("GET", QStringLiteral("/_fake/sandboxes/") + sandboxId);
    }
    // Any other /_fake route, e.g. post("/_fake/sandboxes/<id>/envd", {{"unreachable", true}}).
    QJsonObject post(const QString &path, const QJsonObject &body = {}) const { return call("POST", path, body); }

private:
    QJsonObject call(const QByteArray &method, const QString &path, const QJsonObject &body = {}) const
    {
        QNetworkAccessManager network;
        network.setProxy(QNetworkProxy::NoProxy);
        QNetworkRequest request(QUrl(m_api.toString() + path));
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        const QByteArray data = method == "POST" ? QJsonDocument(body).toJson(QJsonDocument::Compact) : QByteArray();
        std::unique_ptr<QNetworkReply> reply(network.sendCustomRequest(request, method, data));
        QSignalSpy finished(reply.get(), &QNetworkReply::finished);
        if (!reply->isFinished() && !finished.wait(30'000))
            return {};
        return QJsonDocument::fromJson(reply->readAll()).object();
    }

    std::unique_ptr<QProcess> m_process;
    QUrl m_api;
    QUrl m_envd;
    QString m_error;
};

} // namespace PaddockTest
