#pragma once

#include "secretstore.h"

// The OS keychain through QtKeychain (the Secret Service on Linux, the Keychain on macOS, the
// Credential Manager on Windows): service "paddock", one entry per account. QtKeychain's
// plain-text fallback stays off, so when no keychain answers every call fails with a message
// that says so (Error::Kind::Unsupported), and the caller offers a key for this run only.
class KeychainSecretStore final : public Paddock::SecretStore
{
public:
    static constexpr const char *Service = "paddock";

    QCoro::Task<Paddock::Result<std::optional<QByteArray>>> read(QString account) override;
    QCoro::Task<Paddock::Result<>> write(QString account, QByteArray secret) override;
    QCoro::Task<Paddock::Result<>> remove(QString account) override;
};
