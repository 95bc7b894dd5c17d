#include "keychainsecretstore.h"

#include <QCoroSignal>
#include <QCoroTask>

#include <QCoreApplication>
#include <QLoggingCategory>

#include <qt6keychain/keychain.h>

#include <memory>

Q_LOGGING_CATEGORY(lcKeychain, "paddock.app.keychain", QtInfoMsg)

using namespace Paddock;

namespace {

struct Tr
{
    Q_DECLARE_TR_FUNCTIONS(KeychainSecretStore)
};

struct JobDeleter
{
    void operator()(QKeychain::Job *job) const { job->deleteLater(); }
};

template<typename Job> std::unique_ptr<Job, JobDeleter> makeJob(const QString &account)
{
    std::unique_ptr<Job, JobDeleter> job(new Job(QLatin1String(KeychainSecretStore::Service)));
    job->setAutoDelete(false);
    job->setInsecureFallback(false); // never plain text
    job->setKey(account);
    return job;
}

// A keychain error as the user should read it. Account names are profile ids, not secrets.
Error keychainError(const QKeychain::Job &job, const QString &what)
{
    if (job.error() == QKeychain::AccessDenied || job.error() == QKeychain::AccessDeniedByUser)
        return Error::backend(Tr::tr("The keychain refused access while %1: %2").arg(what, job.errorString()));
    // No backend, or a Secret Service that does not answer on D-Bus (QtKeychain says OtherError).
    return Error::unsupported(Tr::tr("No keychain could be reached while %1 (%2). API keys are only ever kept "
                                     "in the system keychain: start a Secret Service such as GNOME Keyring or "
                                     "KWallet, or use a key for this session only.")
                                  .arg(what, job.errorString()));
}

} // namespace

QCoro::Task<Result<std::optional<QByteArray>>> KeychainSecretStore::read(QString account)
{
    auto job = makeJob<QKeychain::ReadPasswordJob>(account);
    job->start();
    co_await qCoro(job.get(), &QKeychain::Job::finished);
    if (job->error() == QKeychain::EntryNotFound)
        co_return std::optional<QByteArray>();
    if (job->error() != QKeychain::NoError)
        co_return fail(keychainError(*job, Tr::tr("reading the key of %1").arg(account)));
    co_return std::optional<QByteArray>(job->binaryData());
}

QCoro::Task<Result<>> KeychainSecretStore::write(QString account, QByteArray secret)
{
    auto job = makeJob<QKeychain::WritePasswordJob>(account);
    job->setBinaryData(secret);
    job->start();
    co_await qCoro(job.get(), &QKeychain::Job::finished);
    if (job->error() != QKeychain::NoError)
        co_return fail(keychainError(*job, Tr::tr("storing the key of %1").arg(account)));
    qCInfo(lcKeychain).noquote() << "stored the key of" << account;
    co_return Result<>{};
}

QCoro::Task<Result<>> KeychainSecretStore::remove(QString account)
{
    auto job = makeJob<QKeychain::DeletePasswordJob>(account);
    job->start();
    co_await qCoro(job.get(), &QKeychain::Job::finished);
    if (job->error() != QKeychain::NoError && job->error() != QKeychain::EntryNotFound)
        co_return fail(keychainError(*job, Tr::tr("deleting the key of %1").arg(account)));
    co_return Result<>{};
}
