#include "kubetls.h"

#include "../../tr.h"

#include <QScopeGuard>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <algorithm>
#include <memory>

namespace Paddock::Kubernetes {

namespace {

struct BioFree
{
    void operator()(BIO *bio) const { BIO_free(bio); }
};
struct X509Free
{
    void operator()(X509 *x509) const { X509_free(x509); }
};
struct PkeyFree
{
    void operator()(EVP_PKEY *key) const { EVP_PKEY_free(key); }
};

std::unique_ptr<BIO, BioFree> memoryBio(const QByteArray &data)
{
    return std::unique_ptr<BIO, BioFree>(BIO_new_mem_buf(data.constData(), int(data.size())));
}

// Never asks for a passphrase: OpenSSL's default callback would prompt on the terminal.
int noPassphrase(char *, int, int, void *)
{
    return -1;
}

// Why OpenSSL refused, in its own words (the last error), or empty.
QString openSslReason()
{
    unsigned long code = 0;
    unsigned long last = 0;
    while ((code = ERR_get_error()) != 0)
        last = code;
    if (last == 0)
        return {};
    char buffer[256] = {};
    ERR_error_string_n(last, buffer, sizeof buffer);
    return QString::fromLatin1(buffer);
}

} // namespace

Result<QList<QSslCertificate>> parseCertificates(const QByteArray &pem, const QString &what)
{
    const QList<QSslCertificate> certificates = QSslCertificate::fromData(pem, QSsl::Pem);
    if (certificates.isEmpty() || std::any_of(certificates.cbegin(), certificates.cend(), [](const QSslCertificate &c) {
            return c.isNull();
        })) {
        return fail(Error::invalidArgument(
            Tr::tr("%1 is not a PEM certificate (a file of -----BEGIN CERTIFICATE----- blocks)").arg(what)));
    }
    return certificates;
}

Result<ClientIdentity> parseClientIdentity(const QByteArray &certificatePem, const QByteArray &keyPem,
                                           const QString &what)
{
    const auto clearErrors = qScopeGuard([] { ERR_clear_error(); });
    ERR_clear_error();

    auto chain = parseCertificates(certificatePem, Tr::tr("the client certificate of %1").arg(what));
    if (!chain)
        return fail(chain.error());

    const auto certificateBio = memoryBio(certificatePem);
    const std::unique_ptr<X509, X509Free> certificate(
        PEM_read_bio_X509(certificateBio.get(), nullptr, noPassphrase, nullptr));
    if (!certificate) {
        return fail(Error::invalidArgument(
            Tr::tr("the client certificate of %1 cannot be read: %2").arg(what, openSslReason())));
    }

    if (keyPem.contains("ENCRYPTED")) {
        return fail(Error::invalidArgument(
            Tr::tr("the client key of %1 is encrypted; Paddock cannot ask for its passphrase: give it an "
                   "unencrypted key (openssl pkey -in KEY -out PLAIN-KEY)")
                .arg(what)));
    }
    const auto keyBio = memoryBio(keyPem);
    const std::unique_ptr<EVP_PKEY, PkeyFree> key(
        PEM_read_bio_PrivateKey(keyBio.get(), nullptr, noPassphrase, nullptr));
    if (!key) {
        const QString reason = openSslReason();
        return fail(Error::invalidArgument(
            Tr::tr("the client key of %1 is not a PEM private key (-----BEGIN PRIVATE KEY-----, RSA or EC)%2")
                .arg(what, reason.isEmpty() ? QString() : QStringLiteral(": ") + reason)));
    }
    if (X509_check_private_key(certificate.get(), key.get()) != 1) {
        return fail(Error::invalidArgument(
            Tr::tr("the client key of %1 does not belong to its client certificate (they are not a pair)").arg(what)));
    }

    QSsl::KeyAlgorithm algorithm = QSsl::Opaque;
    switch (EVP_PKEY_get_base_id(key.get())) {
    case EVP_PKEY_RSA:
        algorithm = QSsl::Rsa;
        break;
    case EVP_PKEY_EC:
        algorithm = QSsl::Ec;
        break;
    case EVP_PKEY_DSA:
        algorithm = QSsl::Dsa;
        break;
    default:
        return fail(Error::unsupported(
            Tr::tr("the client key of %1 is of a kind Paddock cannot use (only RSA, EC and DSA keys)").arg(what)));
    }
    // Qt reads some PEM forms only under their own header: hand it PKCS#8, which it always reads
    // (through secure memory, which OpenSSL wipes when it is freed).
    const std::unique_ptr<BIO, BioFree> pkcs8(BIO_new(BIO_s_secmem()));
    if (PEM_write_bio_PKCS8PrivateKey(pkcs8.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1) {
        return fail(
            Error::invalidArgument(Tr::tr("the client key of %1 cannot be read: %2").arg(what, openSslReason())));
    }
    char *bytes = nullptr;
    const long length = BIO_get_mem_data(pkcs8.get(), &bytes);
    QByteArray pem(bytes, qsizetype(length));
    const QSslKey sslKey(pem, algorithm, QSsl::Pem, QSsl::PrivateKey);
    pem.fill('\0');
    if (sslKey.isNull()) {
        return fail(Error::invalidArgument(Tr::tr("the client key of %1 cannot be read").arg(what)));
    }
    return ClientIdentity{std::move(*chain), sslKey};
}

} // namespace Paddock::Kubernetes
