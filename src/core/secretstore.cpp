#include "secretstore.h"

#include <QCoroTask>

namespace Paddock {

QCoro::Task<Result<std::optional<QByteArray>>> MemorySecretStore::read(QString account)
{
    const auto it = m_secrets.constFind(account);
    std::optional<QByteArray> secret;
    if (it != m_secrets.cend())
        secret = *it;
    co_return secret;
}

QCoro::Task<Result<>> MemorySecretStore::write(QString account, QByteArray secret)
{
    m_secrets.insert(account, secret);
    co_return Result<>{};
}

QCoro::Task<Result<>> MemorySecretStore::remove(QString account)
{
    m_secrets.remove(account);
    co_return Result<>{};
}

} // namespace Paddock
