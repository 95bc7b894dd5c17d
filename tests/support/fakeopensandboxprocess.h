#pragma once

// Runs paddock-fake-opensandbox as a child process on 127.0.0.1 for end-to-end tests: start()
// waits for the base URL on its first stdout line; stats() reads /_fake/stats; the destructor
// stops it with SIGTERM (and SIGKILL if it lingers).

#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QSignalSpy>
#include <QTest>
#include <QUrl>

#include <memory>

#include <csignal>
#include <sys/prctl.h>

#ifndef FAKE_OSB_PATH
#error "FAKE_OSB_PATH must name the paddock-fake-opensandbox executable"
#endif

namespace PaddockTest {

class FakeOpenSandboxProcess
{
public:
    FakeOpenSandboxProcess() = default;
    ~FakeOpenSandboxProcess() { stop(); }
    Q_DISABLE_COPY_MOVE(FakeOpenSandboxProcess)

    // Starts the server; false (with the reason in error()) when it did not print its URL.
    bool start(const QStringList &arguments = {})
    {
        m_process = std::make_unique<QProcess>();
        m_process->setProcessChannelMode(QProcess::SeparateChannels);
        m_process->setReadChannel(QProcess::StandardOutput);
        // A test that crashes must not leave its server behind.
        m_process->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
        m_process->start(QStringLiteral(FAKE_OSB_PATH), arguments);
        if (!m_process->waitForStarted()) {
            m_error = m_process->errorString();
            return false;
        }
        while (!m_process->canReadLine()) {
            if (m_process->state() != QProcess::Running || !m_process->waitForReadyRead(30'000)) {
                m_error = QString::fromUtf8(m_process->readAllStandardError());
                return false;
            }
        }
        m_base = QUrl(QString::fromUtf8(m_process->readLine()).trimmed());
        return m_base.isValid() && m_base.port() > 0;
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

    void kill()
    {
        if (m_process && m_process->state() != QProcess::NotRunning) {
            m_process->kill();
            m_process->waitForFinished();
        }
    }

    QString error() const { return m_error; }
    QUrl base() const { return m_base; }
    int port() const { return m_base.port(); }
    QString domain() const { return QStringLiteral("127.0.0.1:%1").arg(m_base.port()); }
    QProcess *process() const { return m_process.get(); }

    // GET /_fake/stats: request counters kept by the server for tests.
    QJsonObject stats() const { return fakeRoute(QStringLiteral("/_fake/stats")); }
    // GET /_fake/info: its ports, its data directory (sandbox files in <dataDir>/<id>/{workspace,root,tmp}).
    QJsonObject info() const { return fakeRoute(QStringLiteral("/_fake/info")); }
    // POST /_fake/reset-stats: the counters from zero (maxInflight from what is in flight now).
    QJsonObject resetStats() const { return fakeRoute(QStringLiteral("/_fake/reset-stats"), true); }

private:
    QJsonObject fakeRoute(const QString &path, bool post = false) const
    {
        QNetworkAccessManager network;
        QNetworkRequest request(QUrl(m_base.toString() + path));
        std::unique_ptr<QNetworkReply> reply(post ? network.post(request, QByteArray()) : network.get(request));
        QSignalSpy finished(reply.get(), &QNetworkReply::finished);
        if (!reply->isFinished() && !finished.wait(30'000))
            return {};
        return QJsonDocument::fromJson(reply->readAll()).object();
    }

    std::unique_ptr<QProcess> m_process;
    QUrl m_base;
    QString m_error;
};

} // namespace PaddockTest
