#pragma once

#include "result.h"

#include <QCoroFwd>

#include <QByteArray>
#include <QHash>
#include <QString>

#include <optional>

namespace Paddock {

// Where API keys live. The console's store is the OS keychain (QtKeychain, service "paddock",
// one entry per profile); nothing else ever holds a key, and no store falls back to plain text.
// Accounts are profile ids.
class SecretStore
{
public:
    virtual ~SecretStore() = default;

    // The secret, or nullopt when none is stored for the account.
    virtual QCoro::Task<Result<std::optional<QByteArray>>> read(QString account) = 0;
    virtual QCoro::Task<Result<>> write(QString account, QByteArray secret) = 0;
    // Removing an account that holds nothing succeeds.
    virtual QCoro::Task<Result<>> remove(QString account) = 0;
};

// Secrets held in memory for this run only: what the console offers, with a clear warning, when
// no keychain is available. Nothing is written anywhere.
class MemorySecretStore final : public SecretStore
{
public:
    QCoro::Task<Result<std::optional<QByteArray>>> read(QString account) override;
    QCoro::Task<Result<>> write(QString account, QByteArray secret) override;
    QCoro::Task<Result<>> remove(QString account) override;

private:
    QHash<QString, QByteArray> m_secrets;
};

} // namespace Paddock
