#include "certificates.h"

#include <QFile>
#include <QProcess>
#include <QSslCertificate>
#include <QSslKey>
#include <QStandardPaths>

using namespace Qt::StringLiterals;

namespace PaddockFake::Kube {

namespace {

bool run(const QString &openssl, const QString &dir, const QStringList &args, QString *error)
{
    QProcess process;
    process.setWorkingDirectory(dir);
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(openssl, args);
    if (!process.waitForFinished(30'000) || process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        *error = u"openssl %1 failed: %2"_s.arg(args.value(0), QString::fromLocal8Bit(process.readAll()).trimmed());
        return false;
    }
    return true;
}

bool write(const QString &path, const QByteArray &data, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(data) != data.size()) {
        *error = u"cannot write %1: %2"_s.arg(path, file.errorString());
        return false;
    }
    return true;
}

bool read(const QString &path, QByteArray *data, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = u"cannot read %1: %2"_s.arg(path, file.errorString());
        return false;
    }
    *data = file.readAll();
    return true;
}

// A key and a certificate signed by the CA, with the extensions in `extensions`.
bool issue(const QString &openssl, const QString &dir, const QString &name, const QString &subject,
           const QByteArray &extensions, QString *error)
{
    return write(dir + u'/' + name + u".ext"_s, extensions, error)
        && run(openssl, dir,
               {u"req"_s, u"-new"_s, u"-newkey"_s, u"ec"_s, u"-pkeyopt"_s, u"ec_paramgen_curve:prime256v1"_s,
                u"-nodes"_s, u"-keyout"_s, name + u".key"_s, u"-out"_s, name + u".csr"_s, u"-subj"_s, subject},
               error)
        && run(openssl, dir,
               {u"x509"_s, u"-req"_s, u"-in"_s, name + u".csr"_s, u"-CA"_s, u"ca.crt"_s, u"-CAkey"_s, u"ca.key"_s,
                u"-CAcreateserial"_s, u"-CAserial"_s, u"ca.srl"_s, u"-days"_s, u"365"_s, u"-sha256"_s, u"-out"_s,
                name + u".crt"_s, u"-extfile"_s, name + u".ext"_s},
               error);
}

// The files of an earlier start in `dir`, when every one is there and reads as PEM.
bool readBack(const QString &dir, Certificates *out)
{
    QString ignored;
    Certificates found;
    found.dir = dir;
    QByteArray caKey;
    if (!read(dir + u"/ca.crt"_s, &found.caPem, &ignored) || !read(dir + u"/ca.key"_s, &caKey, &ignored)
        || !read(dir + u"/server.crt"_s, &found.serverCertPem, &ignored)
        || !read(dir + u"/server.key"_s, &found.serverKeyPem, &ignored)
        || !read(dir + u"/client.crt"_s, &found.clientCertPem, &ignored)
        || !read(dir + u"/client.key"_s, &found.clientKeyPem, &ignored))
        return false;
    if (QSslCertificate(found.caPem).isNull() || QSslCertificate(found.serverCertPem).isNull()
        || QSslCertificate(found.clientCertPem).isNull() || QSslKey(caKey, QSsl::Ec).isNull()
        || QSslKey(found.serverKeyPem, QSsl::Ec).isNull() || QSslKey(found.clientKeyPem, QSsl::Ec).isNull())
        return false;
    *out = found;
    return true;
}

} // namespace

bool Certificates::loadOrGenerate(const QString &dir, Certificates *out, QString *error)
{
    return readBack(dir, out) || generate(dir, out, error);
}

bool Certificates::generate(const QString &dir, Certificates *out, QString *error)
{
    const QString openssl = QStandardPaths::findExecutable(u"openssl"_s);
    if (openssl.isEmpty()) {
        *error = u"the openssl command is not installed (Debian package openssl); it makes the server's certificates"_s;
        return false;
    }
    out->dir = dir;
    const bool made = run(openssl, dir,
                          {u"req"_s,
                           u"-x509"_s,
                           u"-new"_s,
                           u"-newkey"_s,
                           u"ec"_s,
                           u"-pkeyopt"_s,
                           u"ec_paramgen_curve:prime256v1"_s,
                           u"-nodes"_s,
                           u"-keyout"_s,
                           u"ca.key"_s,
                           u"-out"_s,
                           u"ca.crt"_s,
                           u"-days"_s,
                           u"3650"_s,
                           u"-sha256"_s,
                           u"-subj"_s,
                           u"/CN=paddock-fake-kubernetes-ca"_s,
                           u"-addext"_s,
                           u"basicConstraints=critical,CA:TRUE"_s,
                           u"-addext"_s,
                           u"keyUsage=critical,keyCertSign,cRLSign,digitalSignature"_s},
                          error)
        && issue(openssl, dir, u"server"_s, u"/CN=kube-apiserver"_s,
                 "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
                 "extendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,"
                 "DNS:kubernetes.default,DNS:kubernetes.default.svc\n",
                 error)
        && issue(openssl, dir, u"client"_s, u"/O=system:masters/CN=paddock-fake-user"_s,
                 "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
                 "extendedKeyUsage=clientAuth\n",
                 error);
    return made && read(dir + u"/ca.crt"_s, &out->caPem, error)
        && read(dir + u"/server.crt"_s, &out->serverCertPem, error)
        && read(dir + u"/server.key"_s, &out->serverKeyPem, error)
        && read(dir + u"/client.crt"_s, &out->clientCertPem, error)
        && read(dir + u"/client.key"_s, &out->clientKeyPem, error);
}

} // namespace PaddockFake::Kube
