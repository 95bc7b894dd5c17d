#pragma once

// Runs paddock-fake-kubernetes as a child process on 127.0.0.1 for end-to-end tests. start()
// passes a bearer token (unless the arguments set --token) and --write-kubeconfig into a
// temporary folder it owns, and waits for the base URL on the fake's first stdout line.
// request() makes a QNetworkRequest that trusts the fake's CA and carries the token; control()
// calls its test-only /_fake routes; the destructor stops it with SIGTERM (SIGKILL if it lingers).
// kill() is a crash; start() may be called again after it (or stop()), and writes the kubeconfig
// to the same path.
//
//     PaddockTest::FakeKubernetesProcess fake;
//     QVERIFY2(fake.start({u"--seed"_s, u"10"_s}), qPrintable(fake.error()));
//     // fake.kubeconfigPath(): context paddock-fake (token) and paddock-fake-cert (client certificate),
//     // namespace agentscope; fake.base(): https://127.0.0.1:PORT

#include <QByteArray>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QProcess>
#include <QSignalSpy>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QTemporaryDir>
#include <QUrl>

#include <memory>

#include <csignal>
#include <sys/prctl.h>

#ifndef FAKE_K8S_PATH
#error "FAKE_K8S_PATH must name the paddock-fake-kubernetes executable"
#endif

namespace PaddockTest {

class FakeKubernetesProcess
{
public:
    static constexpr const char *DefaultToken = "paddock-test-token";

    FakeKubernetesProcess() = default;
    ~FakeKubernetesProcess() { stop(); }
    Q_DISABLE_COPY_MOVE(FakeKubernetesProcess)

    // Starts the server; false (with the reason in error()) when it did not print its URL. The
    // fake's stderr goes to this process's stderr.
    bool start(QStringList arguments = {})
    {
        if (!m_dir.isValid()) {
            m_error = QStringLiteral("cannot make a temporary folder: ") + m_dir.errorString();
            return false;
        }
        m_kubeconfig = m_dir.filePath(QStringLiteral("kubeconfig"));
        const qsizetype tokenAt = arguments.indexOf(QStringLiteral("--token"));
        if (tokenAt < 0)
            arguments << QStringLiteral("--token") << QString::fromLatin1(DefaultToken);
        m_token = arguments.value(arguments.indexOf(QStringLiteral("--token")) + 1);
        arguments << QStringLiteral("--write-kubeconfig") << m_kubeconfig;
        m_process = std::make_unique<QProcess>();
        m_process->setProcessChannelMode(QProcess::ForwardedErrorChannel);
        // A test that crashes must not leave its server behind.
        m_process->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
        m_process->start(QStringLiteral(FAKE_K8S_PATH), arguments);
        if (!m_process->waitForStarted()) {
            m_error = m_process->errorString();
            return false;
        }
        while (!m_process->canReadLine()) {
            if (m_process->state() != QProcess::Running || !m_process->waitForReadyRead(60'000)) {
                m_error = QStringLiteral("paddock-fake-kubernetes printed no URL (exit code %1; see its stderr)")
                              .arg(m_process->exitCode());
                return false;
            }
        }
        m_base = QUrl(QString::fromUtf8(m_process->readLine()).trimmed());
        if (!m_base.isValid() || m_base.port() <= 0) {
            m_error = QStringLiteral("unexpected first line: ") + m_base.toString();
            return false;
        }
        QFile file(m_kubeconfig);
        if (!file.open(QIODevice::ReadOnly)) {
            m_error = QStringLiteral("no kubeconfig at ") + m_kubeconfig;
            return false;
        }
        // The fake writes one value per line: "key: base64".
        for (const QByteArray &line : file.readAll().split('\n')) {
            const QByteArray trimmed = line.trimmed();
            const auto value = [&](const char *key) -> QByteArray {
                const QByteArray prefix = QByteArray(key) + ": ";
                return trimmed.startsWith(prefix) ? QByteArray::fromBase64(trimmed.mid(prefix.size())) : QByteArray();
            };
            if (const QByteArray ca = value("certificate-authority-data"); !ca.isEmpty())
                m_ca = QSslCertificate::fromData(ca);
            if (const QByteArray cert = value("client-certificate-data"); !cert.isEmpty())
                m_clientCertificate = QSslCertificate(cert);
            if (const QByteArray key = value("client-key-data"); !key.isEmpty())
                m_clientKey = QSslKey(key, QSsl::Ec);
        }
        return true;
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

    // SIGKILL, as a crash: nothing of it runs on (its containers and commands die with it). With
    // --data-dir, start() again with the same folder (and --port) has its objects back.
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
    QString kubeconfigPath() const { return m_kubeconfig; }
    QString token() const { return m_token; }
    QList<QSslCertificate> caCertificates() const { return m_ca; }
    QSslCertificate clientCertificate() const { return m_clientCertificate; }
    QSslKey clientKey() const { return m_clientKey; }
    QProcess *process() const { return m_process.get(); }

    // The default TLS configuration plus the fake's CA.
    QSslConfiguration sslConfiguration() const
    {
        QSslConfiguration configuration = QSslConfiguration::defaultConfiguration();
        configuration.addCaCertificates(m_ca);
        return configuration;
    }

    // A request for `path` (with its query) on the fake: its CA trusted, the bearer token set
    // unless `withToken` is false.
    QNetworkRequest request(const QString &path, bool withToken = true) const
    {
        QNetworkRequest request(QUrl(m_base.toString() + path));
        request.setSslConfiguration(sslConfiguration());
        if (withToken && !m_token.isEmpty())
            request.setRawHeader("Authorization", "Bearer " + m_token.toUtf8());
        return request;
    }

    // A test-only route (`/_fake/...`, no token needed): its body, empty when it did not answer.
    QByteArray control(const QByteArray &method, const QString &path, const QByteArray &body = {}) const
    {
        QNetworkAccessManager network;
        std::unique_ptr<QNetworkReply> reply(network.sendCustomRequest(request(path, false), method, body));
        QSignalSpy finished(reply.get(), &QNetworkReply::finished);
        if (!reply->isFinished() && !finished.wait(30'000))
            return {};
        return reply->readAll();
    }

    // GET /_fake/stats: request counters ("byVerb": {"list pods": n, ...}), watches, execs, objects.
    QJsonObject stats() const
    {
        return QJsonDocument::fromJson(control("GET", QStringLiteral("/_fake/stats"))).object();
    }
    // GET /_fake/info: port, data folder, CA file, kubeconfig, resourceVersion, historyFloor.
    QJsonObject info() const { return QJsonDocument::fromJson(control("GET", QStringLiteral("/_fake/info"))).object(); }

private:
    QTemporaryDir m_dir;
    std::unique_ptr<QProcess> m_process;
    QUrl m_base;
    QString m_kubeconfig;
    QString m_token;
    QString m_error;
    QList<QSslCertificate> m_ca;
    QSslCertificate m_clientCertificate;
    QSslKey m_clientKey;
};

} // namespace PaddockTest
