#pragma once

#include "../../result.h"

#include <QByteArray>
#include <QList>
#include <QSslCertificate>
#include <QSslKey>
#include <QString>

namespace Paddock::Kubernetes {

// A client certificate (with any intermediates after it) and the private key that goes with it.
struct ClientIdentity
{
    QList<QSslCertificate> chain; // leaf first
    QSslKey key;

    bool isNull() const { return chain.isEmpty(); }
};

// PEM certificates, at least one. `what` names where they came from in the message ("the
// certificate authority of cluster prod in /home/me/.kube/config").
Result<QList<QSslCertificate>> parseCertificates(const QByteArray &pem, const QString &what);

// A PEM certificate (chain) and a PEM private key (PKCS#1, SEC1 or PKCS#8, unencrypted; RSA,
// EC or DSA, the kinds Qt's QSslKey holds), checked to belong together, as a TLS library would
// at the first handshake, so that a mismatch is said before anything is sent. Encrypted keys are
// refused (there is no one to ask for the passphrase). OpenSSL does the parsing and the check;
// its error queue is left empty for Qt's TLS backend.
Result<ClientIdentity> parseClientIdentity(const QByteArray &certificatePem, const QByteArray &keyPem,
                                           const QString &what);

} // namespace Paddock::Kubernetes
