// Connecting as kubectl does: kubeconfig files merged by client-go's rule, relative paths, the
// TLS material, token files that rotate, exec credential plugins (shell scripts written here),
// in-cluster config from an injected folder, the lookup order, every bad-input message, and real
// TLS round trips to a QSslServer on 127.0.0.1 with certificates made by the openssl command.

#include "backends/kubernetes/kubeconfig.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QSslServer>
#include <QSslSocket>
#include <QTemporaryDir>
#include <QTest>

#include <functional>
#include <memory>

using namespace Paddock;
using namespace Paddock::Kubernetes;
using namespace std::chrono_literals;

namespace {

QString writeFile(const QString &path, const QByteArray &text, bool executable = false)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        qFatal("cannot write %s", qPrintable(path));
    file.write(text);
    file.close();
    if (executable)
        file.setPermissions(file.permissions() | QFileDevice::ExeOwner | QFileDevice::ExeUser);
    return path;
}

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// Replaces a file the way the kubelet rotates a projected token: a new file renamed over the old.
void replaceFile(const QString &path, const QByteArray &text)
{
    writeFile(path + QStringLiteral(".new"), text);
    QVERIFY(::rename(QFile::encodeName(path + QStringLiteral(".new")).constData(), QFile::encodeName(path).constData())
            == 0);
}

QByteArray b64(const QByteArray &data)
{
    return data.toBase64();
}

// What a request to the test server saw.
struct Seen
{
    QByteArray request;
    QList<QSslCertificate> peerChain;
};

// A one-request-per-connection HTTPS server on 127.0.0.1.
class TlsServer final : public QObject
{
public:
    explicit TlsServer(const QSslConfiguration &configuration)
    {
        m_server.setSslConfiguration(configuration);
        connect(&m_server, &QTcpServer::pendingConnectionAvailable, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection())
                serve(qobject_cast<QSslSocket *>(socket));
        });
        connect(&m_server, &QSslServer::errorOccurred, this,
                [this](QSslSocket *socket, QAbstractSocket::SocketError) { handshakeErrors << socket->errorString(); });
        if (!m_server.listen(QHostAddress::LocalHost, 0))
            qFatal("cannot listen on 127.0.0.1");
    }

    QUrl url(const QString &path) const
    {
        return QUrl(QStringLiteral("https://127.0.0.1:%1%2").arg(m_server.serverPort()).arg(path));
    }

    // The status line and body for a request (its whole head).
    std::function<std::pair<QByteArray, QByteArray>(const QByteArray &)> respond = [](const QByteArray &) {
        return std::pair<QByteArray, QByteArray>("200 OK", R"({"major":"1","minor":"32"})");
    };
    QList<Seen> seen;
    QStringList handshakeErrors;

private:
    void serve(QSslSocket *socket)
    {
        auto buffer = std::make_shared<QByteArray>();
        const QList<QSslCertificate> chain = socket->peerCertificateChain();
        connect(socket, &QIODevice::readyRead, socket, [this, socket, buffer, chain] {
            *buffer += socket->readAll();
            if (!buffer->contains("\r\n\r\n"))
                return;
            seen.append(Seen{*buffer, chain});
            const auto [status, body] = respond(*buffer);
            socket->write("HTTP/1.1 " + status + "\r\nContent-Type: application/json\r\nContent-Length: "
                          + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
            socket->disconnectFromHost();
        });
        connect(socket, &QAbstractSocket::disconnected, socket, &QObject::deleteLater);
    }

    QSslServer m_server;
};

QSslConfiguration serverConfiguration(const QByteArray &certificate, const QByteArray &key)
{
    QSslConfiguration configuration = QSslConfiguration::defaultConfiguration();
    configuration.setLocalCertificate(QSslCertificate(certificate, QSsl::Pem));
    configuration.setPrivateKey(QSslKey(key, QSsl::Rsa, QSsl::Pem, QSsl::PrivateKey));
    configuration.setPeerVerifyMode(QSslSocket::VerifyNone);
    return configuration;
}

struct ReplyResult
{
    QNetworkReply::NetworkError error = QNetworkReply::NoError;
    QString errorString;
    int status = 0;
    QByteArray body;
};

ReplyResult get(QNetworkAccessManager &network, const QNetworkRequest &request)
{
    std::unique_ptr<QNetworkReply> reply(network.get(request));
    if (!QTest::qWaitFor([&] { return reply->isFinished(); }, 30'000))
        qFatal("no answer from the test server");
    return ReplyResult{reply->error(), reply->errorString(),
                       reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), reply->readAll()};
}

// The error of a failed result, for a QVERIFY2 message (which is evaluated either way).
template<typename T> QString why(const Result<T> &result)
{
    return result ? QString() : result.error().message;
}

Environment emptyEnvironment(const QString &home)
{
    Environment environment;
    environment.home = home;
    environment.serviceAccountDir = home + QStringLiteral("/no-service-account");
    return environment;
}

} // namespace

class TestKubeConfig final : public QObject
{
    Q_OBJECT

    QTemporaryDir m_pkiDir;
    QByteArray m_caPem, m_otherCaPem;
    QByteArray m_serverIpCert, m_serverIpKey, m_serverNamedCert, m_serverNamedKey;
    QByteArray m_clientCert, m_clientKey, m_clientKeyPkcs1, m_clientKeyEncrypted, m_otherKey;
    QByteArray m_ecCert, m_ecKey;

    bool openssl(const QStringList &arguments)
    {
        QProcess process;
        process.setWorkingDirectory(m_pkiDir.path());
        process.setProcessChannelMode(QProcess::MergedChannels);
        process.start(QStringLiteral("openssl"), arguments);
        if (!process.waitForFinished(120'000) || process.exitStatus() != QProcess::NormalExit
            || process.exitCode() != 0) {
            qWarning("openssl %s failed: %s", qPrintable(arguments.join(u' ')), process.readAll().constData());
            return false;
        }
        return true;
    }

    bool makeKeyAndCsr(const QString &name, const QString &subject, bool ec = false)
    {
        QStringList arguments{QStringLiteral("req"), QStringLiteral("-new"), QStringLiteral("-nodes")};
        if (ec)
            arguments << QStringLiteral("-newkey") << QStringLiteral("ec") << QStringLiteral("-pkeyopt")
                      << QStringLiteral("ec_paramgen_curve:prime256v1");
        else
            arguments << QStringLiteral("-newkey") << QStringLiteral("rsa:2048");
        arguments << QStringLiteral("-keyout") << name + QStringLiteral(".key") << QStringLiteral("-out")
                  << name + QStringLiteral(".csr") << QStringLiteral("-subj") << subject;
        return openssl(arguments);
    }

    bool sign(const QString &name, const QString &ca, const QByteArray &extensions)
    {
        writeFile(m_pkiDir.filePath(name + QStringLiteral(".ext")), extensions);
        QStringList arguments{QStringLiteral("x509"),        QStringLiteral("-req"), QStringLiteral("-in"),
                              name + QStringLiteral(".csr"), QStringLiteral("-out"), name + QStringLiteral(".crt"),
                              QStringLiteral("-days"),       QStringLiteral("2"),    QStringLiteral("-extfile"),
                              name + QStringLiteral(".ext")};
        if (ca.isEmpty())
            arguments << QStringLiteral("-signkey") << name + QStringLiteral(".key");
        else
            arguments << QStringLiteral("-CA") << ca + QStringLiteral(".crt") << QStringLiteral("-CAkey")
                      << ca + QStringLiteral(".key") << QStringLiteral("-CAcreateserial");
        return openssl(arguments);
    }

    QByteArray pki(const QString &name) const { return readFile(m_pkiDir.filePath(name)); }

    // A kubeconfig with one context `main` over one cluster and one user, from their YAML bodies.
    static QByteArray oneContext(const QByteArray &cluster, const QByteArray &user, const QByteArray &extra = {})
    {
        return "apiVersion: v1\nkind: Config\ncurrent-context: main\nclusters:\n- name: c\n  cluster:\n" + cluster
            + "users:\n- name: u\n  user:\n" + user
            + "contexts:\n- name: main\n  context: {cluster: c, user: u, namespace: team}\n" + extra;
    }

    QByteArray caData() const { return "    certificate-authority-data: " + b64(m_caPem) + "\n"; }

    // A plugin script that answers with the file `answer` in its folder (and records each run).
    static QString writePlugin(const QString &dir, const QByteArray &body)
    {
        return writeFile(dir + QStringLiteral("/plugin.sh"),
                         "#!/bin/sh\n"
                         "n=$(cat \"$PLUGIN_DIR/count\" 2>/dev/null || echo 0)\n"
                         "n=$((n+1))\n"
                         "echo $n > \"$PLUGIN_DIR/count\"\n"
                         "printf '%s' \"$KUBERNETES_EXEC_INFO\" > \"$PLUGIN_DIR/info.$n\"\n"
                         "echo \"$@\" > \"$PLUGIN_DIR/args\"\n"
                             + body,
                         true);
    }

    static QByteArray execUser(const QString &dir, const QByteArray &apiVersion = "client.authentication.k8s.io/v1",
                               const QByteArray &extra = "      interactiveMode: Never\n")
    {
        return "    exec:\n      apiVersion: " + apiVersion + "\n      command: " + dir.toUtf8()
            + "/plugin.sh\n      args: [get-token, --cluster, prod]\n"
              "      env:\n      - {name: PLUGIN_DIR, value: "
            + dir.toUtf8() + "}\n      - {name: PLUGIN_API, value: " + apiVersion
            + "}\n      installHint: Install the test plugin with apt-get install paddock-test-plugin\n" + extra;
    }

    static QByteArray tokenAnswer(const QByteArray &expiry)
    {
        return "printf '{\"apiVersion\":\"%s\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"tok-%s\"" + expiry
            + "}}' \"$PLUGIN_API\" \"$n\"\n";
    }

    static Result<Connection> resolveText(const QTemporaryDir &dir, const QByteArray &text, const QString &context = {})
    {
        const QString file = writeFile(dir.filePath(QStringLiteral("config")), text);
        auto config = KubeConfig::load({file});
        if (!config)
            return fail(config.error());
        return config->resolve(context);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_pkiDir.isValid());
        QVERIFY2(QSslSocket::supportsSsl(), "Qt has no TLS backend here");
        const QByteArray caExt = "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n"
                                 "subjectKeyIdentifier=hash\n";
        const QByteArray clientExt = "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n";
        QVERIFY(makeKeyAndCsr(QStringLiteral("ca"), QStringLiteral("/CN=paddock-test-ca")));
        QVERIFY(sign(QStringLiteral("ca"), {}, caExt));
        QVERIFY(makeKeyAndCsr(QStringLiteral("other-ca"), QStringLiteral("/CN=paddock-other-ca")));
        QVERIFY(sign(QStringLiteral("other-ca"), {}, caExt));
        QVERIFY(makeKeyAndCsr(QStringLiteral("server-ip"), QStringLiteral("/CN=paddock-test-server")));
        QVERIFY(sign(QStringLiteral("server-ip"), QStringLiteral("ca"),
                     "basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1\n"));
        QVERIFY(makeKeyAndCsr(QStringLiteral("server-named"), QStringLiteral("/CN=api.internal")));
        QVERIFY(sign(QStringLiteral("server-named"), QStringLiteral("ca"),
                     "basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:api.internal\n"));
        QVERIFY(makeKeyAndCsr(QStringLiteral("client"), QStringLiteral("/O=paddock-group/CN=paddock-user")));
        QVERIFY(sign(QStringLiteral("client"), QStringLiteral("ca"), clientExt));
        QVERIFY(makeKeyAndCsr(QStringLiteral("ec"), QStringLiteral("/CN=paddock-ec-user"), true));
        QVERIFY(sign(QStringLiteral("ec"), QStringLiteral("ca"), clientExt));
        QVERIFY(openssl({QStringLiteral("genpkey"), QStringLiteral("-algorithm"), QStringLiteral("RSA"),
                         QStringLiteral("-pkeyopt"), QStringLiteral("rsa_keygen_bits:2048"), QStringLiteral("-out"),
                         QStringLiteral("other.key")}));
        QVERIFY(openssl({QStringLiteral("pkey"), QStringLiteral("-in"), QStringLiteral("client.key"),
                         QStringLiteral("-traditional"), QStringLiteral("-out"), QStringLiteral("client-pkcs1.key")}));
        QVERIFY(openssl({QStringLiteral("pkey"), QStringLiteral("-in"), QStringLiteral("client.key"),
                         QStringLiteral("-aes256"), QStringLiteral("-passout"), QStringLiteral("pass:secret"),
                         QStringLiteral("-out"), QStringLiteral("client-encrypted.key")}));
        m_caPem = pki(QStringLiteral("ca.crt"));
        m_otherCaPem = pki(QStringLiteral("other-ca.crt"));
        m_serverIpCert = pki(QStringLiteral("server-ip.crt"));
        m_serverIpKey = pki(QStringLiteral("server-ip.key"));
        m_serverNamedCert = pki(QStringLiteral("server-named.crt"));
        m_serverNamedKey = pki(QStringLiteral("server-named.key"));
        m_clientCert = pki(QStringLiteral("client.crt"));
        m_clientKey = pki(QStringLiteral("client.key"));
        m_clientKeyPkcs1 = pki(QStringLiteral("client-pkcs1.key"));
        m_clientKeyEncrypted = pki(QStringLiteral("client-encrypted.key"));
        m_otherKey = pki(QStringLiteral("other.key"));
        m_ecCert = pki(QStringLiteral("ec.crt"));
        m_ecKey = pki(QStringLiteral("ec.key"));
        QVERIFY(m_clientKeyPkcs1.contains("BEGIN RSA PRIVATE KEY"));
        QVERIFY(m_clientKey.contains("BEGIN PRIVATE KEY"));
        QVERIFY(m_clientKeyEncrypted.contains("ENCRYPTED"));
    }

    // ---- reading -------------------------------------------------------------------------

    void readsEveryField()
    {
        QTemporaryDir dir;
        const QString file =
            writeFile(dir.filePath(QStringLiteral("config")),
                      "apiVersion: v1\n"
                      "kind: Config\n"
                      "current-context: prod\n"
                      "clusters:\n"
                      "- name: prod\n"
                      "  cluster:\n"
                      "    server: https://api.example:6443\n"
                      "    certificate-authority-data: "
                          + b64(m_caPem)
                          + "\n"
                            "    tls-server-name: api.internal\n"
                            "    insecure-skip-tls-verify: false\n"
                            "    proxy-url: socks5://proxy.example:1080\n"
                            "    extensions:\n"
                            "    - name: client.authentication.k8s.io/exec\n"
                            "      extension: {audience: prod, retries: 3, verbose: true, id: \"007\"}\n"
                            "- name: files\n"
                            "  cluster:\n"
                            "    server: https://files.example\n"
                            "    certificate-authority: certs/ca.crt\n"
                            "    insecure-skip-tls-verify: true\n"
                            "users:\n"
                            "- name: me\n"
                            "  user:\n"
                            "    token: abc\n"
                            "    tokenFile: /abs/token\n"
                            "    client-certificate-data: "
                          + b64(m_clientCert) + "\n    client-key-data: " + b64(m_clientKey)
                          + "\n"
                            "- name: plugin\n"
                            "  user:\n"
                            "    client-certificate: client.crt\n"
                            "    client-key: keys/client.key\n"
                            "    exec:\n"
                            "      apiVersion: client.authentication.k8s.io/v1\n"
                            "      command: aws\n"
                            "      args: [eks, get-token, --cluster-name, prod]\n"
                            "      env: [{name: AWS_PROFILE, value: prod}]\n"
                            "      interactiveMode: Never\n"
                            "      provideClusterInfo: true\n"
                            "      installHint: apt-get install awscli\n"
                            "contexts:\n"
                            "- name: prod\n"
                            "  context: {cluster: prod, user: me, namespace: agentscope}\n"
                            "- name: plain\n"
                            "  context: {cluster: files, user: plugin}\n");
        auto config = KubeConfig::load({file});
        QVERIFY2(config, qPrintable(why(config)));
        QCOMPARE(config->files(), QStringList{file});
        QCOMPARE(config->contextNames(), (QStringList{QStringLiteral("prod"), QStringLiteral("plain")}));
        QCOMPARE(config->currentContext(), QStringLiteral("prod"));

        const KubeCluster *prod = config->cluster(QStringLiteral("prod"));
        QVERIFY(prod);
        QCOMPARE(prod->server, QStringLiteral("https://api.example:6443"));
        QCOMPARE(prod->certificateAuthorityData, m_caPem);
        QCOMPARE(prod->tlsServerName, QStringLiteral("api.internal"));
        QCOMPARE(prod->insecureSkipTlsVerify, false);
        QCOMPARE(prod->proxyUrl, QStringLiteral("socks5://proxy.example:1080"));
        QCOMPARE(prod->file, file);
        QCOMPARE(QJsonDocument(prod->execConfig).toJson(QJsonDocument::Compact),
                 QByteArray(R"({"audience":"prod","id":"007","retries":3,"verbose":true})"));
        const KubeCluster *files = config->cluster(QStringLiteral("files"));
        QVERIFY(files);
        QCOMPARE(files->certificateAuthority, dir.filePath(QStringLiteral("certs/ca.crt")));
        QCOMPARE(files->insecureSkipTlsVerify, true);

        const KubeUser *me = config->user(QStringLiteral("me"));
        QVERIFY(me);
        QCOMPARE(me->token, QByteArray("abc"));
        QCOMPARE(me->tokenFile, QStringLiteral("/abs/token"));
        QCOMPARE(me->clientCertificateData, m_clientCert);
        QCOMPARE(me->clientKeyData, m_clientKey);
        QVERIFY(!me->exec);
        const KubeUser *plugin = config->user(QStringLiteral("plugin"));
        QVERIFY(plugin && plugin->exec);
        QCOMPARE(plugin->clientCertificate, dir.filePath(QStringLiteral("client.crt")));
        QCOMPARE(plugin->clientKey, dir.filePath(QStringLiteral("keys/client.key")));
        QCOMPARE(plugin->exec->apiVersion, QStringLiteral("client.authentication.k8s.io/v1"));
        QCOMPARE(plugin->exec->command, QStringLiteral("aws")); // a bare name stays a PATH lookup
        QCOMPARE(plugin->exec->args,
                 (QStringList{QStringLiteral("eks"), QStringLiteral("get-token"), QStringLiteral("--cluster-name"),
                              QStringLiteral("prod")}));
        QCOMPARE(plugin->exec->env.size(), 1);
        QCOMPARE(plugin->exec->env.first(), (std::pair{QStringLiteral("AWS_PROFILE"), QStringLiteral("prod")}));
        QCOMPARE(plugin->exec->interactiveMode, ExecPlugin::InteractiveMode::Never);
        QCOMPARE(plugin->exec->provideClusterInfo, true);
        QCOMPARE(plugin->exec->installHint, QStringLiteral("apt-get install awscli"));

        const KubeContext *context = config->context(QStringLiteral("prod"));
        QVERIFY(context);
        QCOMPARE(context->cluster, QStringLiteral("prod"));
        QCOMPARE(context->user, QStringLiteral("me"));
        QCOMPARE(context->namespaceName, QStringLiteral("agentscope"));
        QCOMPARE(config->context(QStringLiteral("plain"))->namespaceName, QString());
    }

    void contextsForTheProfileDialog()
    {
        QTemporaryDir dir;
        // A user whose certificate files do not exist: listing contexts reads no credential.
        const QString a = writeFile(dir.filePath(QStringLiteral("a")),
                                    "clusters:\n- name: c1\n  cluster: {server: 'https://one:6443'}\n"
                                    "users:\n- name: u1\n  user: {client-certificate: nope.crt, client-key: nope.key}\n"
                                    "contexts:\n- name: one\n  context: {cluster: c1, user: u1, namespace: ns1}\n"
                                    "- name: dangling\n  context: {cluster: missing, user: u1}\n");
        const QString b = writeFile(dir.filePath(QStringLiteral("b")),
                                    "current-context: two\nclusters:\n- name: c2\n  cluster: {server: 'https://two'}\n"
                                    "contexts:\n- name: two\n  context: {cluster: c2}\n");
        auto list = contextsIn({a, dir.filePath(QStringLiteral("missing")), b});
        QVERIFY2(list, qPrintable(why(list)));
        QCOMPARE(list->currentContext, QStringLiteral("two"));
        QCOMPARE(list->files, (QStringList{a, b}));
        QCOMPARE(list->contexts.size(), 3);
        QCOMPARE(list->contexts.at(0).name, QStringLiteral("one"));
        QCOMPARE(list->contexts.at(0).server, QStringLiteral("https://one:6443"));
        QCOMPARE(list->contexts.at(0).namespaceName, QStringLiteral("ns1"));
        QCOMPARE(list->contexts.at(0).user, QStringLiteral("u1"));
        QCOMPARE(list->contexts.at(0).file, a);
        QCOMPARE(list->contexts.at(1).name, QStringLiteral("dangling"));
        QCOMPARE(list->contexts.at(1).server, QString());
        QCOMPARE(list->contexts.at(2).name, QStringLiteral("two"));
        QCOMPARE(list->contexts.at(2).server, QStringLiteral("https://two"));
        QCOMPARE(list->contexts.at(2).file, b);
    }

    // client-go's loader.go: the first file that defines a name wins it entirely;
    // current-context from the first file that sets one; missing files skipped.
    void mergeRule_data()
    {
        QTest::addColumn<QList<QByteArray>>("files"); // empty entry: a file that does not exist
        QTest::addColumn<QString>("currentContext");
        QTest::addColumn<QStringList>("contexts");
        QTest::addColumn<QString>("server"); // of cluster c
        QTest::addColumn<QString>("namespaceOfX"); // of context x
        QTest::addColumn<bool>("userHasExec"); // user u

        const QByteArray a = "current-context: x\nclusters:\n- name: c\n  cluster: {server: 'https://a'}\n"
                             "users:\n- name: u\n  user: {token: from-a}\n"
                             "contexts:\n- name: x\n  context: {cluster: c, user: u, namespace: from-a}\n";
        const QByteArray b = "current-context: y\nclusters:\n- name: c\n  cluster: {server: 'https://b'}\n"
                             "- name: d\n  cluster: {server: 'https://d'}\n"
                             "users:\n- name: u\n  user:\n    exec: {apiVersion: client.authentication.k8s.io/v1beta1, "
                             "command: p}\n"
                             "contexts:\n- name: x\n  context: {cluster: d, namespace: from-b}\n"
                             "- name: y\n  context: {cluster: d}\n";
        const QByteArray none = "clusters:\n- name: e\n  cluster: {server: 'https://e'}\n";
        QTest::newRow("a then b") << QList<QByteArray>{a, b} << "x" << QStringList{"x", "y"} << "https://a"
                                  << "from-a" << false;
        QTest::newRow("b then a") << QList<QByteArray>{b, a} << "y" << QStringList{"x", "y"} << "https://b"
                                  << "from-b" << true;
        QTest::newRow("missing, then b, a")
            << QList<QByteArray>{{}, b, a} << "y" << QStringList{"x", "y"} << "https://b"
            << "from-b" << true;
        QTest::newRow("current-context from the first that sets it")
            << QList<QByteArray>{none, a, b} << "x" << QStringList{"x", "y"} << "https://a"
            << "from-a" << false;
        QTest::newRow("empty file first") << QList<QByteArray>{"", b} << "y" << QStringList{"x", "y"} << "https://b"
                                          << "from-b" << true;
    }

    void mergeRule()
    {
        QFETCH(QList<QByteArray>, files);
        QFETCH(QString, currentContext);
        QFETCH(QStringList, contexts);
        QFETCH(QString, server);
        QFETCH(QString, namespaceOfX);
        QFETCH(bool, userHasExec);
        QTemporaryDir dir;
        QStringList paths;
        for (qsizetype i = 0; i < files.size(); ++i) {
            const QString path = dir.filePath(QStringLiteral("config-%1").arg(i));
            if (!files.at(i).isNull())
                writeFile(path, files.at(i));
            paths.append(path);
        }
        auto config = KubeConfig::load(paths);
        QVERIFY2(config, qPrintable(why(config)));
        QCOMPARE(config->currentContext(), currentContext);
        QCOMPARE(config->contextNames(), contexts);
        QCOMPARE(config->cluster(QStringLiteral("c"))->server, server);
        QCOMPARE(config->context(QStringLiteral("x"))->namespaceName, namespaceOfX);
        QCOMPARE(bool(config->user(QStringLiteral("u"))->exec), userHasExec);
        // Context x is taken whole from its first file: its cluster and user with it.
        QCOMPARE(config->context(QStringLiteral("x"))->user,
                 namespaceOfX == QLatin1String("from-a") ? QStringLiteral("u") : QString());
    }

    void defaultFilesFromKubeconfigOrHome()
    {
        Environment environment;
        environment.home = QStringLiteral("/home/someone");
        QCOMPARE(KubeConfig::defaultFiles(environment), QStringList{QStringLiteral("/home/someone/.kube/config")});
        environment.kubeconfig = QString();
        QCOMPARE(KubeConfig::defaultFiles(environment), QStringList{QStringLiteral("/home/someone/.kube/config")});
        environment.kubeconfig = QStringLiteral("/a/one::/b/two:/a/one:/a/../a/one");
        QCOMPARE(KubeConfig::defaultFiles(environment),
                 (QStringList{QStringLiteral("/a/one"), QStringLiteral("/b/two")}));
    }

    void relativePathsAreRelativeToTheirFile()
    {
        QTemporaryDir dir;
        // The CA is found next to the file that names it, not next to the first file or the
        // working directory.
        writeFile(dir.filePath(QStringLiteral("second/certs/ca.crt")), m_caPem);
        writeFile(dir.filePath(QStringLiteral("second/creds/client.crt")), m_clientCert);
        writeFile(dir.filePath(QStringLiteral("keys/client.key")), m_clientKey);
        const QString first =
            writeFile(dir.filePath(QStringLiteral("first/config")),
                      "current-context: rel\ncontexts:\n- name: rel\n  context: {cluster: c, user: u}\n");
        const QString second = writeFile(
            dir.filePath(QStringLiteral("second/config")),
            "clusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:6443', certificate-authority: certs/ca.crt}\n"
            "users:\n- name: u\n  user:\n    client-certificate: ./creds/client.crt\n"
            "    client-key: ../keys/client.key\n    tokenFile: creds/token\n"
            "- name: p\n  user:\n    exec: {apiVersion: client.authentication.k8s.io/v1, command: bin/plugin, "
            "interactiveMode: Never}\n");
        auto config = KubeConfig::load({first, second});
        QVERIFY2(config, qPrintable(why(config)));
        QCOMPARE(config->cluster(QStringLiteral("c"))->certificateAuthority,
                 dir.filePath(QStringLiteral("second/certs/ca.crt")));
        const KubeUser *user = config->user(QStringLiteral("u"));
        QCOMPARE(user->clientCertificate, dir.filePath(QStringLiteral("second/creds/client.crt")));
        QCOMPARE(user->clientKey, dir.filePath(QStringLiteral("keys/client.key")));
        QCOMPARE(user->tokenFile, dir.filePath(QStringLiteral("second/creds/token")));
        QCOMPARE(config->user(QStringLiteral("p"))->exec->command, dir.filePath(QStringLiteral("second/bin/plugin")));

        writeFile(dir.filePath(QStringLiteral("second/creds/token")), "file-token\n");
        auto connection = config->resolve();
        QVERIFY2(connection, qPrintable(why(connection)));
        QCOMPARE(connection->ssl.caCertificates(), QSslCertificate::fromData(m_caPem));
        QCOMPARE(connection->ssl.localCertificate(), QSslCertificate(m_clientCert));
        QCOMPARE(connection->description, QStringLiteral("context rel in %1").arg(first));
        const auto auth = QCoro::waitFor(connection->credentials->authorization());
        QVERIFY(auth);
        QCOMPARE(auth->bearerToken, QByteArray("file-token"));
    }

    // ---- resolving ------------------------------------------------------------------------

    void resolvesTlsMaterial()
    {
        QTemporaryDir dir;
        auto connection =
            resolveText(dir,
                        oneContext("    server: https://api.example:6443/prefix\n" + caData()
                                       + "    tls-server-name: api.internal\n",
                                   "    token: static-token\n    client-certificate-data: " + b64(m_clientCert)
                                       + "\n    client-key-data: " + b64(m_clientKeyPkcs1) + "\n"));
        QVERIFY2(connection, qPrintable(why(connection)));
        QCOMPARE(connection->server, QUrl(QStringLiteral("https://api.example:6443/prefix")));
        QCOMPARE(connection->namespaceName, QStringLiteral("team"));
        QCOMPARE(connection->contextName, QStringLiteral("main"));
        QCOMPARE(connection->peerVerifyName, QStringLiteral("api.internal"));
        // The cluster's CA alone, never the system's as well.
        QCOMPARE(connection->ssl.caCertificates(), QSslCertificate::fromData(m_caPem));
        QVERIFY(connection->ssl.peerVerifyMode() != QSslSocket::VerifyNone);
        QCOMPARE(connection->ssl.localCertificate(), QSslCertificate(m_clientCert));
        QVERIFY(!connection->ssl.privateKey().isNull());
        QCOMPARE(connection->ssl.privateKey().algorithm(), QSsl::Rsa);
        QVERIFY(!connection->proxy);
        QCOMPARE(connection->credentials->source(), Credentials::Source::Token);
        const auto auth = QCoro::waitFor(connection->credentials->authorization());
        QVERIFY(auth);
        QCOMPARE(auth->headerValue(), QByteArray("Bearer static-token"));
        QVERIFY(!connection->credentials->reportUnauthorized(*auth)); // nothing to refresh

        QNetworkRequest request(connection->server.resolved(QUrl(QStringLiteral("api/v1/pods"))));
        connection->prepare(request);
        QVERIFY(auth->applyTo(request));
        QCOMPARE(request.rawHeader("Authorization"), QByteArray("Bearer static-token"));
        QCOMPARE(request.peerVerifyName(), QStringLiteral("api.internal"));
        QCOMPARE(request.sslConfiguration().caCertificates(), QSslCertificate::fromData(m_caPem));
    }

    void resolvesOtherForms()
    {
        QTemporaryDir dir;
        writeFile(dir.filePath(QStringLiteral("ca.crt")), m_caPem);
        writeFile(dir.filePath(QStringLiteral("ec.crt")), m_ecCert);
        writeFile(dir.filePath(QStringLiteral("ec.key")), m_ecKey);
        // CA and an EC client identity from files; an http proxy with credentials.
        auto connection = resolveText(dir,
                                      oneContext("    server: https://10.1.2.3\n    certificate-authority: ca.crt\n"
                                                 "    proxy-url: http://who:pw@proxy.example:3128\n",
                                                 "    client-certificate: ec.crt\n    client-key: ec.key\n"));
        QVERIFY2(connection, qPrintable(why(connection)));
        QCOMPARE(connection->ssl.caCertificates(), QSslCertificate::fromData(m_caPem));
        QCOMPARE(connection->ssl.privateKey().algorithm(), QSsl::Ec);
        QCOMPARE(connection->credentials->source(), Credentials::Source::None);
        QVERIFY(connection->proxy);
        QCOMPARE(connection->proxy->type(), QNetworkProxy::HttpProxy);
        QCOMPARE(connection->proxy->hostName(), QStringLiteral("proxy.example"));
        QCOMPARE(connection->proxy->port(), quint16(3128));
        QCOMPARE(connection->proxy->user(), QStringLiteral("who"));
        QCOMPARE(connection->proxy->password(), QStringLiteral("pw"));

        // insecure-skip-tls-verify; a bare host:port gets https when TLS is configured.
        connection = resolveText(
            dir, oneContext("    server: 127.0.0.1:6443\n    insecure-skip-tls-verify: true\n", "    token: t\n"));
        QVERIFY2(connection, qPrintable(why(connection)));
        QCOMPARE(connection->ssl.peerVerifyMode(), QSslSocket::VerifyNone);
        QCOMPARE(connection->server, QUrl(QStringLiteral("https://127.0.0.1:6443")));

        // No CA: the system's, as kubectl uses them.
        connection = resolveText(dir, oneContext("    server: https://api.example\n", "    token: t\n"));
        QVERIFY2(connection, qPrintable(why(connection)));
        QCOMPARE(connection->ssl.caCertificates(), QSslConfiguration::defaultConfiguration().caCertificates());

        // No user at all, over http (kubectl proxy): allowed, since nothing secret is sent.
        connection = resolveText(dir,
                                 "clusters:\n- name: c\n  cluster: {server: 'http://127.0.0.1:8001'}\n"
                                 "contexts:\n- name: proxy\n  context: {cluster: c}\n",
                                 QStringLiteral("proxy"));
        QVERIFY2(connection, qPrintable(why(connection)));
        QCOMPARE(connection->credentials->source(), Credentials::Source::None);
        const auto auth = QCoro::waitFor(connection->credentials->authorization());
        QVERIFY(auth && auth->isEmpty());
        QNetworkRequest request(QUrl(QStringLiteral("http://127.0.0.1:8001/api")));
        QVERIFY(auth->applyTo(request));
        QVERIFY(!request.hasRawHeader("Authorization"));
    }

    void callerTokenOverridesTheUser()
    {
        QTemporaryDir dir;
        writePlugin(dir.path(), tokenAnswer({}));
        const QString file =
            writeFile(dir.filePath(QStringLiteral("config")),
                      oneContext("    server: https://api.example\n" + caData(),
                                 execUser(dir.path()) + "    client-certificate-data: " + b64(m_clientCert)
                                     + "\n    client-key-data: " + b64(m_clientKey) + "\n"));
        auto config = KubeConfig::load({file});
        QVERIFY(config);
        auto connection = config->resolve({}, ResolveOptions{"typed-token"});
        QVERIFY2(connection, qPrintable(why(connection)));
        QCOMPARE(connection->credentials->source(), Credentials::Source::Caller);
        QVERIFY(connection->ssl.localCertificate().isNull()); // the user's certificate is not presented
        const auto auth = QCoro::waitFor(connection->credentials->authorization());
        QVERIFY(auth);
        QCOMPARE(auth->bearerToken, QByteArray("typed-token"));
        QCOMPARE(connection->credentials->pluginRuns(), 0);
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("count"))));

        // Without it, the client certificate wins over the plugin (client-go's precedence).
        connection = config->resolve();
        QVERIFY2(connection, qPrintable(why(connection)));
        QCOMPARE(connection->credentials->source(), Credentials::Source::None);
        QCOMPARE(connection->ssl.localCertificate(), QSslCertificate(m_clientCert));
    }

    // ---- token files ----------------------------------------------------------------------

    void tokenFileRotation()
    {
        QTemporaryDir dir;
        const QString tokenFile = writeFile(dir.filePath(QStringLiteral("token")), "token-1\n");
        auto connection =
            resolveText(dir, oneContext("    server: https://api.example\n" + caData(), "    tokenFile: token\n"));
        QVERIFY2(connection, qPrintable(why(connection)));
        Credentials &credentials = *connection->credentials;
        QCOMPARE(credentials.source(), Credentials::Source::TokenFile);

        auto first = QCoro::waitFor(credentials.authorization());
        QVERIFY(first);
        QCOMPARE(first->bearerToken, QByteArray("token-1"));
        QCOMPARE(credentials.tokenFileReads(), 1);
        auto again = QCoro::waitFor(credentials.authorization());
        QCOMPARE(again->bearerToken, QByteArray("token-1"));
        QCOMPARE(again->generation, first->generation);
        QCOMPARE(credentials.tokenFileReads(), 1); // unchanged: not read again

        // Rotated as the kubelet does it (a new file renamed over the old one).
        replaceFile(tokenFile, "token-2\n");
        auto rotated = QCoro::waitFor(credentials.authorization());
        QCOMPARE(rotated->bearerToken, QByteArray("token-2"));
        QVERIFY(rotated->generation != first->generation);

        // Rewritten in place so that nothing may show it (same size, maybe the same mtime): the
        // 401 for the old token makes it read again.
        {
            QFile file(tokenFile);
            QVERIFY(file.open(QIODevice::ReadWrite));
            QVERIFY(file.seek(6));
            file.write("3");
        }
        QVERIFY(credentials.reportUnauthorized(*rotated));
        auto afterUnauthorized = QCoro::waitFor(credentials.authorization());
        QCOMPARE(afterUnauthorized->bearerToken, QByteArray("token-3"));
        // A 401 for a token that the file still holds: retrying would not help.
        QVERIFY(!credentials.reportUnauthorized(*afterUnauthorized));

        // Missing for a moment (mid-rotation): the token read before is kept.
        QVERIFY(QFile::remove(tokenFile));
        auto kept = QCoro::waitFor(credentials.authorization());
        QVERIFY(kept);
        QCOMPARE(kept->bearerToken, QByteArray("token-3"));
        writeFile(tokenFile, "token-4");
        QCOMPARE(QCoro::waitFor(credentials.authorization())->bearerToken, QByteArray("token-4"));
    }

    // ---- exec credential plugins ----------------------------------------------------------

    void execPluginTokenCachedUntilExpiry()
    {
        QTemporaryDir dir;
        const QByteArray expiry = QDateTime::currentDateTimeUtc().addSecs(3600).toString(Qt::ISODate).toLatin1();
        writePlugin(dir.path(), tokenAnswer(",\"expirationTimestamp\":\"" + expiry + "\""));
        auto connection =
            resolveText(dir, oneContext("    server: https://api.example\n" + caData(), execUser(dir.path())));
        QVERIFY2(connection, qPrintable(why(connection)));
        Credentials &credentials = *connection->credentials;
        QCOMPARE(credentials.source(), Credentials::Source::ExecPlugin);
        QCOMPARE(credentials.pluginRuns(), 0); // resolving runs nothing

        auto first = QCoro::waitFor(credentials.authorization());
        QVERIFY2(first, qPrintable(why(first)));
        QCOMPARE(first->bearerToken, QByteArray("tok-1"));
        QCOMPARE(readFile(dir.filePath(QStringLiteral("args"))).trimmed(), QByteArray("get-token --cluster prod"));
        const QJsonObject info = QJsonDocument::fromJson(readFile(dir.filePath(QStringLiteral("info.1")))).object();
        QCOMPARE(info.value(QLatin1String("apiVersion")).toString(), QStringLiteral("client.authentication.k8s.io/v1"));
        QCOMPARE(info.value(QLatin1String("kind")).toString(), QStringLiteral("ExecCredential"));
        QCOMPARE(info.value(QLatin1String("spec")).toObject().value(QLatin1String("interactive")), QJsonValue(false));
        QVERIFY(!info.value(QLatin1String("spec")).toObject().contains(QLatin1String("cluster")));

        auto cached = QCoro::waitFor(credentials.authorization());
        QCOMPARE(cached->bearerToken, QByteArray("tok-1"));
        QCOMPARE(credentials.pluginRuns(), 1);

        // A 401: the plugin runs again, once, however many requests failed with that token.
        QVERIFY(credentials.reportUnauthorized(*first));
        QVERIFY(credentials.reportUnauthorized(*cached));
        auto refreshed = QCoro::waitFor(credentials.authorization());
        QCOMPARE(refreshed->bearerToken, QByteArray("tok-2"));
        QCOMPARE(credentials.pluginRuns(), 2);
        QVERIFY(credentials.reportUnauthorized(*first)); // an old token's 401 drops nothing new
        QCOMPARE(QCoro::waitFor(credentials.authorization())->bearerToken, QByteArray("tok-2"));
        QCOMPARE(credentials.pluginRuns(), 2);

        // Callers at the same moment share one run.
        QVERIFY(credentials.reportUnauthorized(*refreshed));
        auto a = credentials.authorization();
        auto b = credentials.authorization();
        const auto ra = QCoro::waitFor(std::move(a));
        const auto rb = QCoro::waitFor(std::move(b));
        QCOMPARE(ra->bearerToken, QByteArray("tok-3"));
        QCOMPARE(rb->bearerToken, QByteArray("tok-3"));
        QCOMPARE(credentials.pluginRuns(), 3);
    }

    void execPluginExpiredTokenRunsAgain()
    {
        QTemporaryDir dir;
        writePlugin(dir.path(), tokenAnswer(",\"expirationTimestamp\":\"2020-01-01T00:00:00.123456789Z\""));
        auto connection =
            resolveText(dir, oneContext("    server: https://api.example\n" + caData(), execUser(dir.path())));
        QVERIFY2(connection, qPrintable(why(connection)));
        QCOMPARE(QCoro::waitFor(connection->credentials->authorization())->bearerToken, QByteArray("tok-1"));
        QCOMPARE(QCoro::waitFor(connection->credentials->authorization())->bearerToken, QByteArray("tok-2"));
        QCOMPARE(connection->credentials->pluginRuns(), 2);
    }

    void execPluginV1beta1WithClusterInfo()
    {
        QTemporaryDir dir;
        writePlugin(dir.path(), tokenAnswer({}));
        auto connection = resolveText(
            dir,
            oneContext(
                "    server: https://api.example:6443\n" + caData()
                    + "    tls-server-name: api.internal\n    extensions:\n"
                      "    - name: client.authentication.k8s.io/exec\n      extension: {audience: prod}\n",
                // v1beta1 needs no interactiveMode.
                execUser(dir.path(), "client.authentication.k8s.io/v1beta1", "      provideClusterInfo: true\n")));
        QVERIFY2(connection, qPrintable(why(connection)));
        auto auth = QCoro::waitFor(connection->credentials->authorization());
        QVERIFY2(auth, qPrintable(why(auth)));
        QCOMPARE(auth->bearerToken, QByteArray("tok-1"));
        const QJsonObject info = QJsonDocument::fromJson(readFile(dir.filePath(QStringLiteral("info.1")))).object();
        QCOMPARE(info.value(QLatin1String("apiVersion")).toString(),
                 QStringLiteral("client.authentication.k8s.io/v1beta1"));
        const QJsonObject cluster =
            info.value(QLatin1String("spec")).toObject().value(QLatin1String("cluster")).toObject();
        QCOMPARE(cluster.value(QLatin1String("server")).toString(), QStringLiteral("https://api.example:6443"));
        QCOMPARE(cluster.value(QLatin1String("tls-server-name")).toString(), QStringLiteral("api.internal"));
        QCOMPARE(
            QByteArray::fromBase64(cluster.value(QLatin1String("certificate-authority-data")).toString().toLatin1()),
            m_caPem);
        QCOMPARE(cluster.value(QLatin1String("config")).toObject().value(QLatin1String("audience")).toString(),
                 QStringLiteral("prod"));
        // No expiry: kept until a 401.
        QCOMPARE(QCoro::waitFor(connection->credentials->authorization())->bearerToken, QByteArray("tok-1"));
        QCOMPARE(connection->credentials->pluginRuns(), 1);
    }

    void execPluginClientCertificate()
    {
        QTemporaryDir dir;
        const QJsonObject answer{
            {QStringLiteral("apiVersion"), QStringLiteral("client.authentication.k8s.io/v1")},
            {QStringLiteral("kind"), QStringLiteral("ExecCredential")},
            {QStringLiteral("status"),
             QJsonObject{{QStringLiteral("clientCertificateData"), QString::fromLatin1(m_clientCert)},
                         {QStringLiteral("clientKeyData"), QString::fromLatin1(m_clientKey)}}}};
        writeFile(dir.filePath(QStringLiteral("answer.json")), QJsonDocument(answer).toJson());
        writePlugin(dir.path(), "cat \"$PLUGIN_DIR/answer.json\"\n");
        auto connection =
            resolveText(dir, oneContext("    server: https://api.example\n" + caData(), execUser(dir.path())));
        QVERIFY2(connection, qPrintable(why(connection)));
        auto auth = QCoro::waitFor(connection->credentials->authorization());
        QVERIFY2(auth, qPrintable(why(auth)));
        QVERIFY(auth->bearerToken.isEmpty());
        QCOMPARE(auth->pluginIdentity.chain.value(0), QSslCertificate(m_clientCert));
        QNetworkRequest request(QUrl(QStringLiteral("https://api.example/api")));
        connection->prepare(request);
        QVERIFY(auth->applyTo(request));
        QVERIFY(!request.hasRawHeader("Authorization"));
        QCOMPARE(request.sslConfiguration().localCertificate(), QSslCertificate(m_clientCert));
        QCOMPARE(request.sslConfiguration().caCertificates(), QSslCertificate::fromData(m_caPem));
        QSslConfiguration socketConfiguration = connection->ssl;
        auth->applyTo(socketConfiguration);
        QCOMPARE(socketConfiguration.localCertificate(), QSslCertificate(m_clientCert));
    }

    void execPluginFailures_data()
    {
        QTest::addColumn<QByteArray>("script");
        QTest::addColumn<QStringList>("expected"); // pieces of the message
        QTest::addColumn<Error::Kind>("kind");
        const QStringList named{QStringLiteral("the credential plugin"), QStringLiteral("context main in")};
        const QString hint = QStringLiteral("Install the test plugin with apt-get install paddock-test-plugin");
        QTest::newRow("exit 3 with stderr")
            << QByteArray("echo 'error: no SSO session; run aws sso login' >&2\nexit 3\n")
            << (named
                + QStringList{QStringLiteral("failed (exit 3)"),
                              QStringLiteral("stderr: error: no SSO session; run aws sso login"), hint})
            << Error::Kind::Backend;
        QTest::newRow("not JSON") << QByteArray("echo 'secret-token-not-json'\n")
                                  << (named + QStringList{QStringLiteral("printed no usable ExecCredential")})
                                  << Error::Kind::Backend;
        QTest::newRow("other apiVersion")
            << QByteArray("echo '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"kind\":\"ExecCredential\","
                          "\"status\":{\"token\":\"x\"}}'\n")
            << (named
                + QStringList{QStringLiteral("its apiVersion is client.authentication.k8s.io/v1beta1, but the "
                                             "kubeconfig asks for client.authentication.k8s.io/v1")})
            << Error::Kind::Backend;
        QTest::newRow("no credential")
            << QByteArray("echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
                          "\"status\":{\"clientCertificateData\":\"x\"}}'\n")
            << (named + QStringList{QStringLiteral("neither a token nor a client certificate and key")})
            << Error::Kind::Backend;
        QTest::newRow("bad expiry")
            << QByteArray("echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
                          "\"status\":{\"token\":\"x\",\"expirationTimestamp\":\"tomorrow\"}}'\n")
            << (named + QStringList{QStringLiteral("expirationTimestamp tomorrow is not an RFC 3339 time")})
            << Error::Kind::Backend;
        QTest::newRow("killed") << QByteArray("kill -9 $$\n") << (named + QStringList{QStringLiteral("it crashed")})
                                << Error::Kind::Backend;
    }

    void execPluginFailures()
    {
        QFETCH(QByteArray, script);
        QFETCH(QStringList, expected);
        QFETCH(Error::Kind, kind);
        QTemporaryDir dir;
        writePlugin(dir.path(), script);
        auto connection =
            resolveText(dir, oneContext("    server: https://api.example\n" + caData(), execUser(dir.path())));
        QVERIFY2(connection, qPrintable(why(connection)));
        const auto auth = QCoro::waitFor(connection->credentials->authorization());
        QVERIFY(!auth);
        for (const QString &piece : expected)
            QVERIFY2(auth.error().message.contains(piece), qPrintable(auth.error().message));
        QCOMPARE(auth.error().kind, kind);
        // What the plugin printed on stdout is never shown: it may be a token.
        QVERIFY(!auth.error().message.contains(QLatin1String("secret-token")));
        // A failure is not cached: the next request runs it again.
        QVERIFY(!QCoro::waitFor(connection->credentials->authorization()));
        QCOMPARE(connection->credentials->pluginRuns(), 2);
    }

    void execPluginMissingCommand()
    {
        QTemporaryDir dir;
        // No plugin.sh written.
        auto connection =
            resolveText(dir, oneContext("    server: https://api.example\n" + caData(), execUser(dir.path())));
        QVERIFY2(connection, qPrintable(why(connection)));
        const auto auth = QCoro::waitFor(connection->credentials->authorization());
        QVERIFY(!auth);
        QCOMPARE(auth.error().kind, Error::Kind::NotFound);
        const QString &message = auth.error().message;
        QVERIFY2(
            message.startsWith(
                QStringLiteral("cannot run the credential plugin %1/plugin.sh of context main in").arg(dir.path())),
            qPrintable(message));
        QVERIFY2(message.contains(QLatin1String("Install the test plugin with apt-get install paddock-test-plugin")),
                 qPrintable(message));
    }

    void execPluginTimeoutAndClose()
    {
        QTemporaryDir dir;
        writePlugin(dir.path(), "echo waiting >&2\nexec sleep 60\n");
        auto connection =
            resolveText(dir, oneContext("    server: https://api.example\n" + caData(), execUser(dir.path())));
        QVERIFY2(connection, qPrintable(why(connection)));
        // Long enough for the script to have said something first, even on a busy machine.
        connection->credentials->setPluginTimeout(2s);
        const auto timedOut = QCoro::waitFor(connection->credentials->authorization());
        QVERIFY(!timedOut);
        QCOMPARE(timedOut.error().kind, Error::Kind::Timeout);
        QVERIFY2(timedOut.error().message.contains(QLatin1String("did not finish within 2 s")),
                 qPrintable(timedOut.error().message));
        QVERIFY2(timedOut.error().message.contains(QLatin1String("stderr: waiting")),
                 qPrintable(timedOut.error().message));

        // close() ends a run under way, and the callers waiting on it, before it returns.
        connection->credentials->setPluginTimeout(60s);
        auto first = connection->credentials->authorization();
        auto second = connection->credentials->authorization();
        QTRY_VERIFY(QFile::exists(dir.filePath(QStringLiteral("count")))
                    && readFile(dir.filePath(QStringLiteral("count"))).trimmed() == "2");
        QVERIFY(!first.isReady());
        connection->credentials->close();
        QVERIFY(first.isReady());
        QVERIFY(second.isReady());
        const auto a = QCoro::waitFor(std::move(first));
        const auto b = QCoro::waitFor(std::move(second));
        QCOMPARE(a.error().kind, Error::Kind::Cancelled);
        QCOMPARE(b.error().kind, Error::Kind::Cancelled);
        QCOMPARE(QCoro::waitFor(connection->credentials->authorization()).error().kind, Error::Kind::Cancelled);
    }

    void credentialsFreedWhileAPluginRuns()
    {
        QTemporaryDir dir;
        writePlugin(dir.path(), "exec sleep 60\n");
        auto connection =
            resolveText(dir, oneContext("    server: https://api.example\n" + caData(), execUser(dir.path())));
        QVERIFY2(connection, qPrintable(why(connection)));
        auto pending = connection->credentials->authorization();
        QTRY_VERIFY(QFile::exists(dir.filePath(QStringLiteral("count"))));
        connection->credentials.reset(); // the last owner lets go: the run ends, its caller resumes
        QVERIFY(pending.isReady());
        QCOMPARE(QCoro::waitFor(std::move(pending)).error().kind, Error::Kind::Cancelled);
    }

    // ---- in-cluster and the lookup order --------------------------------------------------

    void inCluster()
    {
        QTemporaryDir dir;
        const QString account = dir.filePath(QStringLiteral("serviceaccount"));
        writeFile(account + QStringLiteral("/token"), "sa-token-1\n");
        writeFile(account + QStringLiteral("/ca.crt"), m_caPem);
        writeFile(account + QStringLiteral("/namespace"), "workspaces\n");
        Environment environment = emptyEnvironment(dir.path());
        environment.serviceHost = QStringLiteral("10.96.0.1");
        environment.servicePort = QStringLiteral("443");
        environment.serviceAccountDir = account;

        auto connection = inClusterConnection(environment);
        QVERIFY2(connection, qPrintable(why(connection)));
        QCOMPARE(connection->server, QUrl(QStringLiteral("https://10.96.0.1:443")));
        QCOMPARE(connection->namespaceName, QStringLiteral("workspaces"));
        QCOMPARE(connection->ssl.caCertificates(), QSslCertificate::fromData(m_caPem));
        QCOMPARE(connection->contextName, QString());
        QVERIFY(connection->description.contains(account));
        Credentials &credentials = *connection->credentials;
        QCOMPARE(credentials.source(), Credentials::Source::ServiceAccount);
        auto first = QCoro::waitFor(credentials.authorization());
        QCOMPARE(first->bearerToken, QByteArray("sa-token-1"));
        replaceFile(account + QStringLiteral("/token"), "sa-token-2\n"); // rotated
        QCOMPARE(QCoro::waitFor(credentials.authorization())->bearerToken, QByteArray("sa-token-2"));

        environment.serviceHost = QStringLiteral("fd00:10:96::1");
        connection = inClusterConnection(environment);
        QVERIFY2(connection, qPrintable(why(connection)));
        QCOMPARE(connection->server.toString(), QStringLiteral("https://[fd00:10:96::1]:443"));

        environment.serviceHost.clear();
        connection = inClusterConnection(environment);
        QVERIFY(!connection);
        QCOMPARE(connection.error().kind, Error::Kind::NotFound);
        QVERIFY(connection.error().message.contains(QLatin1String("KUBERNETES_SERVICE_HOST")));

        environment.serviceHost = QStringLiteral("10.96.0.1");
        QVERIFY(QFile::remove(account + QStringLiteral("/token")));
        connection = inClusterConnection(environment);
        QVERIFY(!connection);
        QVERIFY2(connection.error().message.startsWith(
                     QStringLiteral("cannot read the service account token %1/token: ").arg(account)),
                 qPrintable(connection.error().message));
    }

    void lookupOrder()
    {
        QTemporaryDir dir;
        const QString account = dir.filePath(QStringLiteral("serviceaccount"));
        writeFile(account + QStringLiteral("/token"), "sa-token\n");
        const QByteArray cluster = "    server: https://%1\n    insecure-skip-tls-verify: true\n";
        const QString explicitFile =
            writeFile(dir.filePath(QStringLiteral("explicit")),
                      oneContext(QByteArray(cluster).replace("%1", "explicit.example"), "    token: t\n"));
        writeFile(dir.filePath(QStringLiteral(".kube/config")),
                  oneContext(QByteArray(cluster).replace("%1", "home.example"), "    token: t\n"));
        Environment environment = emptyEnvironment(dir.path());
        environment.serviceHost = QStringLiteral("10.96.0.1");
        environment.servicePort = QStringLiteral("443");
        environment.serviceAccountDir = account;

        // An explicit file first, even in a cluster.
        auto connection = lookupConnection(explicitFile, {}, {}, environment);
        QVERIFY2(connection, qPrintable(why(connection)));
        QCOMPARE(connection->server.host(), QStringLiteral("explicit.example"));
        // Then in-cluster.
        connection = lookupConnection({}, {}, {}, environment);
        QVERIFY2(connection, qPrintable(why(connection)));
        QCOMPARE(connection->server.host(), QStringLiteral("10.96.0.1"));
        // A named context lives in a kubeconfig.
        connection = lookupConnection({}, QStringLiteral("main"), {}, environment);
        QVERIFY2(connection, qPrintable(why(connection)));
        QCOMPARE(connection->server.host(), QStringLiteral("home.example"));
        // In-cluster unusable (no token): the default kubeconfig, as AgentScope falls back.
        QVERIFY(QFile::remove(account + QStringLiteral("/token")));
        connection = lookupConnection({}, {}, {}, environment);
        QVERIFY2(connection, qPrintable(why(connection)));
        QCOMPARE(connection->server.host(), QStringLiteral("home.example"));
        // KUBECONFIG replaces ~/.kube/config.
        environment.kubeconfig = dir.filePath(QStringLiteral("missing")) + QLatin1Char(':') + explicitFile;
        connection = lookupConnection({}, {}, {}, environment);
        QVERIFY2(connection, qPrintable(why(connection)));
        QCOMPARE(connection->server.host(), QStringLiteral("explicit.example"));
    }

    // ---- bad input ------------------------------------------------------------------------

    void badKubeconfigs_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("context");
        QTest::addColumn<QString>("expected"); // %F: the file, %D: its folder

        QTest::newRow("does not parse")
            << QByteArray("apiVersion: v1\nclusters:\n- name: a\n  cluster: {server: https://x\nusers: []\n")
            << QString() << "the kubeconfig %F does not parse: line 5, column 6: end of map flow not found";
        QTest::newRow("bad indentation") << QByteArray("clusters:\n- name: a\n  cluster:\n    server: x\n   bad: y\n")
                                         << QString() << "the kubeconfig %F does not parse: line 5, column";
        QTest::newRow("wrong kind") << QByteArray("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n") << QString()
                                    << "%F is not a kubeconfig: its kind is Pod (a kubeconfig has kind: Config)";
        QTest::newRow("not a map")
            << QByteArray("- just\n- a list\n") << QString()
            << "%F is not a kubeconfig: it holds no map of clusters, users and contexts (line 1)";
        QTest::newRow("wrong apiVersion") << QByteArray("apiVersion: v2\nkind: Config\n") << QString()
                                          << "%F is not a kubeconfig Paddock can read: its apiVersion is v2";
        QTest::newRow("field of the wrong kind")
            << QByteArray("clusters:\n- name: a\n  cluster:\n    server: [x, y]\n") << QString()
            << "the kubeconfig %F is not valid at line 4: clusters[a].cluster.server must be a string";
        QTest::newRow("clusters not a list") << QByteArray("clusters: {a: b}\n") << QString()
                                             << "the kubeconfig %F is not valid at line 1: clusters must be a list";
        QTest::newRow("bad base64")
            << QByteArray("clusters:\n- name: a\n  cluster:\n    certificate-authority-data: '***'\n") << QString()
            << "the kubeconfig %F is not valid at line 4: clusters[a].cluster.certificate-authority-data must be "
               "base64 text";
        QTest::newRow("bad boolean") << QByteArray(
            "clusters:\n- name: a\n  cluster: {insecure-skip-tls-verify: maybe}\n")
                                     << QString()
                                     << "the kubeconfig %F is not valid at line 3: "
                                        "clusters[a].cluster.insecure-skip-tls-verify must be true or false";
        QTest::newRow("a name twice in one file")
            << QByteArray("contexts:\n- name: a\n  context: {}\n- name: a\n  context: {}\n") << QString()
            << "the kubeconfig %F defines contexts a twice (lines 2 and 4)";
        const QByteArray contexts = "clusters:\n- name: c\n  cluster: {server: 'https://x'}\n"
                                    "users:\n- name: u\n  user: {token: t}\n"
                                    "contexts:\n- name: good\n  context: {cluster: c, user: u}\n"
                                    "- name: nocluster\n  context: {cluster: gone, user: u}\n"
                                    "- name: nouser\n  context: {cluster: c, user: gone}\n"
                                    "- name: empty\n  context: {}\n";
        QTest::newRow("unknown context") << contexts << "prod"
                                         << "there is no context prod in %F; it has good, nocluster, nouser, empty";
        QTest::newRow("no current context") << contexts << QString()
                                            << "no context chosen, and %F sets no current-context: choose one (it has "
                                               "good, nocluster, nouser, empty)";
        QTest::newRow("missing cluster") << contexts << "nocluster"
                                         << "context nocluster in %F names the cluster gone, which %F does not define";
        QTest::newRow("missing user") << contexts << "nouser"
                                      << "context nouser in %F names the user gone, which %F does not define";
        QTest::newRow("no cluster named") << contexts << "empty"
                                          << "context empty in %F names no cluster";
        QTest::newRow("no server") << QByteArray("clusters:\n- name: c\n  cluster: {}\ncontexts:\n- name: x\n  "
                                                 "context: {cluster: c}\n")
                                   << "x"
                                   << "cluster c in %F has no server";
        QTest::newRow("server not a URL") << oneContext("    server: 'ftp://x'\n", "    token: t\n") << QString()
                                          << "cluster c in %F: its server ftp://x is not an https:// or http:// URL";
        QTest::newRow("token over http")
            << oneContext("    server: http://127.0.0.1:8080\n", "    token: t\n") << QString()
            << "context main in %F: the server http://127.0.0.1:8080 is http://, and Paddock sends no credentials "
               "without TLS (kubectl does not either): use the server's https:// address";
        QTest::newRow("CA not PEM")
            << oneContext("    server: https://x\n    certificate-authority-data: " + b64("not a certificate") + "\n",
                          "    token: t\n")
            << QString()
            << "the certificate-authority-data of cluster c in %F is not a PEM certificate (a file of -----BEGIN "
               "CERTIFICATE----- blocks)";
        QTest::newRow("CA file missing") << oneContext(
            "    server: https://x\n    certificate-authority: nope/ca.crt\n", "    token: t\n")
                                         << QString()
                                         << "cannot read the certificate authority %D/nope/ca.crt of cluster c in %F: ";
        QTest::newRow("insecure and a CA")
            << oneContext(
                   "    server: https://x\n    certificate-authority: ca.crt\n    insecure-skip-tls-verify: true\n",
                   "    token: t\n")
            << QString()
            << "cluster c in %F sets both insecure-skip-tls-verify and a certificate authority; keep one of them "
               "(kubectl refuses this too)";
        QTest::newRow("token file missing")
            << oneContext("    server: https://x\n", "    tokenFile: secrets/token\n") << QString()
            << "cannot read the token file %D/secrets/token of user u in %F: ";
        QTest::newRow("key file missing")
            << oneContext("    server: https://x\n", "    client-certificate: c.crt\n    client-key: nope.key\n")
            << QString() << "cannot read the client key %D/nope.key of user u in %F: ";
        QTest::newRow("certificate without key")
            << oneContext("    server: https://x\n", "    client-certificate: c.crt\n") << QString()
            << "user u in %F has a client certificate but no client key";
        QTest::newRow("https proxy") << oneContext("    server: https://x\n    proxy-url: https://proxy:3128\n",
                                                   "    token: t\n")
                                     << QString()
                                     << "cluster c in %F: its proxy-url has the scheme https; Paddock supports http:// "
                                        "and socks5:// proxies";
        QTest::newRow("interactive plugin")
            << oneContext("    server: https://x\n",
                          "    exec: {apiVersion: client.authentication.k8s.io/v1, command: kubelogin, "
                          "interactiveMode: Always}\n")
            << QString()
            << "the credential plugin kubelogin of user u in %F has interactiveMode: Always, which cannot work in "
               "Paddock: it runs plugins without a terminal";
        QTest::newRow("v1 plugin without interactiveMode")
            << oneContext("    server: https://x\n",
                          "    exec: {apiVersion: client.authentication.k8s.io/v1, command: p}\n")
            << QString()
            << "the kubeconfig %F is not valid at line 11: users[u].user.exec.interactiveMode must be set for "
               "client.authentication.k8s.io/v1 (Never, IfAvailable or Always)";
        QTest::newRow("v1alpha1 plugin")
            << oneContext("    server: https://x\n",
                          "    exec: {apiVersion: client.authentication.k8s.io/v1alpha1, command: p}\n")
            << QString()
            << "the kubeconfig %F, line 11: the credential plugin's apiVersion client.authentication.k8s.io/v1alpha1 "
               "is "
               "not supported (use client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1)";
        QTest::newRow("auth-provider") << oneContext("    server: https://x\n",
                                                     "    auth-provider: {name: gcp, config: {}}\n")
                                       << QString()
                                       << "user u in %F signs in with the auth-provider gcp, which Paddock does not "
                                          "support";
        QTest::newRow("impersonation") << oneContext("    server: https://x\n", "    token: t\n    as: admin\n")
                                       << QString()
                                       << "user u in %F impersonates another user (as, as-groups), which Paddock "
                                          "does not support";
        QTest::newRow("basic auth") << oneContext("    server: https://x\n", "    username: admin\n    password: pw\n")
                                    << QString()
                                    << "user u in %F signs in with a username and password, which the Kubernetes API "
                                       "server no longer accepts";
    }

    void badKubeconfigs()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, context);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        writeFile(dir.filePath(QStringLiteral("ca.crt")), m_caPem);
        writeFile(dir.filePath(QStringLiteral("c.crt")), m_clientCert);
        const QString file = dir.filePath(QStringLiteral("config"));
        const auto connection = resolveText(dir, text, context);
        QVERIFY(!connection);
        expected.replace(QLatin1String("%F"), file).replace(QLatin1String("%D"), dir.path());
        QVERIFY2(connection.error().message.startsWith(expected),
                 qPrintable(connection.error().message + QStringLiteral("\nexpected: ") + expected));
    }

    void badClientIdentities_data()
    {
        QTest::addColumn<QByteArray>("certificate");
        QTest::addColumn<QByteArray>("key");
        QTest::addColumn<QString>("expected");
        QTest::newRow("certificate not PEM")
            << QByteArray("garbage") << QByteArray()
            << "the client certificate of user u in %F is not a PEM certificate (a file of -----BEGIN CERTIFICATE----- "
               "blocks)";
        QTest::newRow("key not PEM") << QByteArray() << QByteArray("garbage")
                                     << "the client key of user u in %F is not a PEM private key";
        QTest::newRow("key of another certificate")
            << QByteArray() << QByteArray("other")
            << "the client key of user u in %F does not belong to its client certificate (they are not a pair)";
        QTest::newRow("encrypted key") << QByteArray() << QByteArray("encrypted")
                                       << "the client key of user u in %F is encrypted; Paddock cannot ask for its "
                                          "passphrase";
    }

    void badClientIdentities()
    {
        QFETCH(QByteArray, certificate);
        QFETCH(QByteArray, key);
        QFETCH(QString, expected);
        if (certificate.isEmpty())
            certificate = m_clientCert;
        if (key.isEmpty())
            key = m_clientKey;
        else if (key == "other")
            key = m_otherKey;
        else if (key == "encrypted")
            key = m_clientKeyEncrypted;
        QTemporaryDir dir;
        const auto connection = resolveText(dir,
                                            oneContext("    server: https://x\n",
                                                       "    client-certificate-data: " + b64(certificate)
                                                           + "\n    client-key-data: " + b64(key) + "\n"));
        QVERIFY(!connection);
        expected.replace(QLatin1String("%F"), dir.filePath(QStringLiteral("config")));
        QVERIFY2(connection.error().message.startsWith(expected),
                 qPrintable(connection.error().message + QStringLiteral("\nexpected: ") + expected));
    }

    void unreadableFiles()
    {
        QTemporaryDir dir;
        auto config = KubeConfig::load({dir.path()});
        QVERIFY(!config);
        QCOMPARE(config.error().message,
                 QStringLiteral("cannot read the kubeconfig %1: it is a folder").arg(dir.path()));

        config = KubeConfig::loadFile(dir.filePath(QStringLiteral("nope")));
        QVERIFY(!config);
        QCOMPARE(config.error().kind, Error::Kind::NotFound);
        QCOMPARE(config.error().message,
                 QStringLiteral("the kubeconfig %1 does not exist").arg(dir.filePath(QStringLiteral("nope"))));

        config = KubeConfig::load({dir.filePath(QStringLiteral("a")), dir.filePath(QStringLiteral("b"))});
        QVERIFY(!config);
        QCOMPARE(config.error().message,
                 QStringLiteral("no kubeconfig found: none of %1, %2 exists")
                     .arg(dir.filePath(QStringLiteral("a")), dir.filePath(QStringLiteral("b"))));

        // Readable when resolved, gone by the first request: said, naming the file.
        const QString token = writeFile(dir.filePath(QStringLiteral("token")), "t\n");
        auto connection = resolveText(dir, oneContext("    server: https://x\n", "    tokenFile: token\n"));
        QVERIFY2(connection, qPrintable(why(connection)));
        QVERIFY(QFile::remove(token));
        const auto auth = QCoro::waitFor(connection->credentials->authorization());
        QVERIFY(!auth);
        QVERIFY2(auth.error().message.startsWith(QStringLiteral("cannot read the token file %1 of context main in %2: ")
                                                     .arg(token, dir.filePath(QStringLiteral("config")))),
                 qPrintable(auth.error().message));
    }

    void noKubeconfigAtAll()
    {
        QTemporaryDir dir;
        Environment environment = emptyEnvironment(dir.path());
        auto connection = lookupConnection({}, {}, {}, environment);
        QVERIFY(!connection);
        QCOMPARE(connection.error().kind, Error::Kind::NotFound);
        QCOMPARE(connection.error().message,
                 QStringLiteral("no Kubernetes configuration found: KUBECONFIG is not set and %1/.kube/config does not "
                                "exist; in-cluster: not running in a Kubernetes cluster (KUBERNETES_SERVICE_HOST and "
                                "KUBERNETES_SERVICE_PORT are not set). Choose a kubeconfig file, or set KUBECONFIG")
                     .arg(dir.path()));

        environment.kubeconfig = QStringLiteral("/nonexistent/a:/nonexistent/b");
        environment.serviceHost = QStringLiteral("10.96.0.1");
        environment.servicePort = QStringLiteral("443");
        connection = lookupConnection({}, {}, {}, environment);
        QVERIFY(!connection);
        QVERIFY2(connection.error().message.startsWith(
                     QStringLiteral("no Kubernetes configuration found: none of the files in KUBECONFIG "
                                    "(/nonexistent/a:/nonexistent/b) exists; in-cluster: cannot read the service "
                                    "account token %1/no-service-account/token: ")
                         .arg(dir.path())),
                 qPrintable(connection.error().message));
    }

    void credentialsNeverGoOverHttp()
    {
        Authorization auth;
        auth.bearerToken = "secret";
        QNetworkRequest request(QUrl(QStringLiteral("http://user:pw@api.example/api")));
        const auto applied = auth.applyTo(request);
        QVERIFY(!applied);
        QCOMPARE(applied.error().message,
                 QStringLiteral("refusing to send credentials to http://api.example/api: it is not https"));
        QVERIFY(!request.hasRawHeader("Authorization"));
        QNetworkRequest socket(QUrl(QStringLiteral("wss://api.example/api/v1/namespaces/x/pods/y/exec")));
        QVERIFY(auth.applyTo(socket));
        QCOMPARE(socket.rawHeader("Authorization"), QByteArray("Bearer secret"));

        // A typed token with an http:// server is refused when resolving, before any request.
        QTemporaryDir dir;
        const QString file = writeFile(dir.filePath(QStringLiteral("config")),
                                       oneContext("    server: http://api.example\n", QByteArray()));
        auto config = KubeConfig::load({file});
        QVERIFY(config);
        QVERIFY(config->resolve());
        const auto connection = config->resolve({}, ResolveOptions{"typed"});
        QVERIFY(!connection);
        QVERIFY(connection.error().message.contains(QLatin1String("Paddock sends no credentials without TLS")));
    }

    // ---- real TLS ---------------------------------------------------------------------------

    void tlsRoundTrip()
    {
        TlsServer server(serverConfiguration(m_serverIpCert, m_serverIpKey));
        QTemporaryDir dir;
        const QByteArray serverLine = "    server: " + server.url(QString()).toString().toUtf8() + "\n";
        auto connection = resolveText(dir, oneContext(serverLine + caData(), "    token: round-trip-token\n"));
        QVERIFY2(connection, qPrintable(why(connection)));
        const auto auth = QCoro::waitFor(connection->credentials->authorization());
        QVERIFY(auth);
        QNetworkAccessManager network;
        QNetworkRequest request(connection->server.resolved(QUrl(QStringLiteral("/version"))));
        connection->prepare(request);
        QVERIFY(auth->applyTo(request));
        const ReplyResult ok = get(network, request);
        QVERIFY2(ok.error == QNetworkReply::NoError, qPrintable(ok.errorString));
        QCOMPARE(ok.status, 200);
        QCOMPARE(ok.body, QByteArray(R"({"major":"1","minor":"32"})"));
        QCOMPARE(server.seen.size(), 1);
        QVERIFY(server.seen.first().request.startsWith("GET /version HTTP/1.1\r\n"));
        QVERIFY(server.seen.first().request.contains("\r\nAuthorization: Bearer round-trip-token\r\n"));

        // The same server behind another CA's kubeconfig: the handshake fails, and says why.
        connection = resolveText(dir,
                                 oneContext(serverLine + "    certificate-authority-data: " + b64(m_otherCaPem) + "\n",
                                            "    token: round-trip-token\n"));
        QVERIFY2(connection, qPrintable(why(connection)));
        QNetworkAccessManager otherNetwork;
        QNetworkRequest refused(connection->server.resolved(QUrl(QStringLiteral("/version"))));
        connection->prepare(refused);
        QVERIFY(QCoro::waitFor(connection->credentials->authorization())->applyTo(refused));
        const ReplyResult failed = get(otherNetwork, refused);
        QCOMPARE(failed.error, QNetworkReply::SslHandshakeFailedError);
        QVERIFY2(failed.errorString.contains(QLatin1String("certificate"), Qt::CaseInsensitive),
                 qPrintable(failed.errorString));
        QCOMPARE(server.seen.size(), 1); // nothing was sent, the token least of all
    }

    void tlsServerNameAndClientCertificate()
    {
        // A server whose certificate names api.internal only, that asks for a client certificate.
        QSslConfiguration configuration = serverConfiguration(m_serverNamedCert, m_serverNamedKey);
        configuration.setPeerVerifyMode(QSslSocket::VerifyPeer);
        configuration.setCaCertificates(QSslCertificate::fromData(m_caPem));
        TlsServer server(configuration);
        QTemporaryDir dir;
        const QByteArray serverLine = "    server: " + server.url(QString()).toString().toUtf8() + "\n";
        const QByteArray identity =
            "    client-certificate-data: " + b64(m_clientCert) + "\n    client-key-data: " + b64(m_clientKey) + "\n";

        auto connection =
            resolveText(dir, oneContext(serverLine + caData() + "    tls-server-name: api.internal\n", identity));
        QVERIFY2(connection, qPrintable(why(connection)));
        QNetworkAccessManager network;
        QNetworkRequest request(connection->server.resolved(QUrl(QStringLiteral("/api"))));
        connection->prepare(request);
        QVERIFY(QCoro::waitFor(connection->credentials->authorization())->applyTo(request));
        const ReplyResult ok = get(network, request);
        QVERIFY2(ok.error == QNetworkReply::NoError, qPrintable(ok.errorString));
        QCOMPARE(server.seen.size(), 1);
        QCOMPARE(server.seen.first().peerChain.value(0), QSslCertificate(m_clientCert));
        QVERIFY(!server.seen.first().request.contains("Authorization:"));

        // Without tls-server-name the certificate does not name 127.0.0.1.
        connection = resolveText(dir, oneContext(serverLine + caData(), identity));
        QVERIFY2(connection, qPrintable(why(connection)));
        QNetworkAccessManager otherNetwork;
        QNetworkRequest mismatch(connection->server.resolved(QUrl(QStringLiteral("/api"))));
        connection->prepare(mismatch);
        const ReplyResult failed = get(otherNetwork, mismatch);
        QCOMPARE(failed.error, QNetworkReply::SslHandshakeFailedError);
        QVERIFY2(failed.errorString.contains(QLatin1String("host name"), Qt::CaseInsensitive),
                 qPrintable(failed.errorString));
    }

    // The recipe a REST client follows: on a 401, report it and, when that says so, retry once
    // with fresh credentials (here the plugin's second token).
    void unauthorizedRunsThePluginAgain()
    {
        TlsServer server(serverConfiguration(m_serverIpCert, m_serverIpKey));
        server.respond = [](const QByteArray &head) {
            if (head.contains("\r\nAuthorization: Bearer tok-2\r\n"))
                return std::pair<QByteArray, QByteArray>("200 OK", "{}");
            return std::pair<QByteArray, QByteArray>(
                "401 Unauthorized",
                R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"Unauthorized",)"
                R"("reason":"Unauthorized","code":401})");
        };
        QTemporaryDir dir;
        writePlugin(dir.path(), tokenAnswer({}));
        auto connection =
            resolveText(dir,
                        oneContext("    server: " + server.url(QString()).toString().toUtf8() + "\n" + caData(),
                                   execUser(dir.path())));
        QVERIFY2(connection, qPrintable(why(connection)));
        QNetworkAccessManager network;
        const auto send = [&]() -> std::pair<ReplyResult, Authorization> {
            QNetworkRequest request(connection->server.resolved(QUrl(QStringLiteral("/api/v1/namespaces/team/pods"))));
            connection->prepare(request);
            const auto auth = QCoro::waitFor(connection->credentials->authorization());
            if (!auth || !auth->applyTo(request))
                return {};
            return {get(network, request), *auth};
        };
        auto [first, used] = send();
        QCOMPARE(first.status, 401);
        QCOMPARE(used.bearerToken, QByteArray("tok-1"));
        QVERIFY(connection->credentials->reportUnauthorized(used));
        auto [second, fresh] = send();
        QCOMPARE(second.status, 200);
        QCOMPARE(fresh.bearerToken, QByteArray("tok-2"));
        QCOMPARE(connection->credentials->pluginRuns(), 2);
    }
};

QTEST_GUILESS_MAIN(TestKubeConfig)
#include "tst_kubeconfig.moc"
