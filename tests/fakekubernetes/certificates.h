#pragma once

// The fake's own certificate authority, made at start with the `openssl` command line (Debian:
// openssl): an EC P-256 CA, a server certificate for 127.0.0.1 / localhost / kubernetes[.default
// [.svc]], and a client certificate (CN paddock-fake-user, O system:masters) that the server
// accepts instead of the bearer token. A start on a data folder that has them already reuses them.

#include <QByteArray>
#include <QString>

namespace PaddockFake::Kube {

struct Certificates
{
    QString dir;
    QByteArray caPem;
    QByteArray serverCertPem;
    QByteArray serverKeyPem;
    QByteArray clientCertPem;
    QByteArray clientKeyPem;

    QString caFile() const { return dir + QStringLiteral("/ca.crt"); }
    // Writes the files into `dir` (which must exist); false with the reason in *error.
    static bool generate(const QString &dir, Certificates *out, QString *error);
    // Reads the files an earlier start wrote into `dir` when they are all there and whole (a
    // restart on the same data folder keeps its CA, which the clients' kubeconfigs trust);
    // otherwise generate().
    static bool loadOrGenerate(const QString &dir, Certificates *out, QString *error);
};

} // namespace PaddockFake::Kube
