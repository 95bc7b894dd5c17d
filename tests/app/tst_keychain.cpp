// KeychainSecretStore against a real Secret Service: GNOME Keyring in a private D-Bus session
// (tests/support/with-keyring.sh), as CI runs it. A second run with no session bus checks the
// message a user gets when there is no keychain.

#include "keychainsecretstore.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QTest>

using namespace Paddock;

class TestKeychain final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        if (qEnvironmentVariableIsSet("PADDOCK_NO_KEYCHAIN"))
            return;
        if (!qEnvironmentVariableIsSet("PADDOCK_KEYRING_HOME"))
            QSKIP("run through tests/support/with-keyring.sh");
    }

    void storesReadsOverwritesAndRemoves()
    {
        if (qEnvironmentVariableIsSet("PADDOCK_NO_KEYCHAIN"))
            QSKIP("no keychain in this run");
        KeychainSecretStore store;
        const QString account = QStringLiteral("profile-运维-1");
        auto missing = QCoro::waitFor(store.read(account));
        QVERIFY2(missing, qPrintable(missing ? QString() : missing.error().message));
        QVERIFY(!missing->has_value());

        const QByteArray key = "osb-key-\x01\xff-секрет";
        auto written = QCoro::waitFor(store.write(account, key));
        QVERIFY2(written, qPrintable(written ? QString() : written.error().message));
        auto read = QCoro::waitFor(store.read(account));
        QVERIFY(read && read->has_value());
        QCOMPARE(**read, key);

        QVERIFY(QCoro::waitFor(store.write(account, "second")));
        read = QCoro::waitFor(store.read(account));
        QCOMPARE(read->value_or(QByteArray()), QByteArray("second"));

        // Another account is another entry.
        QVERIFY(QCoro::waitFor(store.write(QStringLiteral("other"), "x")));
        QCOMPARE(QCoro::waitFor(store.read(account))->value_or(QByteArray()), QByteArray("second"));

        QVERIFY(QCoro::waitFor(store.remove(account)));
        read = QCoro::waitFor(store.read(account));
        QVERIFY(read && !read->has_value());
        QVERIFY(QCoro::waitFor(store.remove(account))); // removing nothing is fine
    }

    void theKeyLivesInTheKeyringNotInAPlainFile()
    {
        if (qEnvironmentVariableIsSet("PADDOCK_NO_KEYCHAIN"))
            QSKIP("no keychain in this run");
        KeychainSecretStore store;
        const QByteArray key = "plain-text-canary-7f3a9c";
        QVERIFY(QCoro::waitFor(store.write(QStringLiteral("canary"), key)));
        // Nothing under the test's home holds the key in the clear (the keyring file is encrypted).
        QDirIterator files(qEnvironmentVariable("PADDOCK_KEYRING_HOME"), QDir::Files | QDir::Hidden,
                           QDirIterator::Subdirectories);
        int seen = 0;
        while (files.hasNext()) {
            QFile file(files.next());
            if (file.open(QIODevice::ReadOnly)) {
                ++seen;
                QVERIFY2(!file.readAll().contains(key), qPrintable(file.fileName()));
            }
        }
        QVERIFY(seen > 0); // the keyring did write its (encrypted) file
        // A second process reads it back: it is in the Secret Service, not in this process.
        QProcess reader;
        reader.start(QCoreApplication::applicationFilePath(), {QStringLiteral("readCanaryInChild")});
        QVERIFY(reader.waitForFinished(60'000));
        QCOMPARE(reader.exitCode(), 0);
    }

    void readCanaryInChild()
    {
        // Run by the test above in a child process; on its own it just reads nothing wrong.
        KeychainSecretStore store;
        auto read = QCoro::waitFor(store.read(QStringLiteral("canary")));
        if (qEnvironmentVariableIsSet("PADDOCK_NO_KEYCHAIN"))
            QSKIP("no keychain in this run");
        QVERIFY(read);
        if (read->has_value())
            QCOMPARE(**read, QByteArray("plain-text-canary-7f3a9c"));
    }

    void noKeychainIsAClearError()
    {
        if (!qEnvironmentVariableIsSet("PADDOCK_NO_KEYCHAIN"))
            QSKIP("runs as tst_keychain_unavailable, without a session bus");
        KeychainSecretStore store;
        auto written = QCoro::waitFor(store.write(QStringLiteral("profile"), "secret"));
        QVERIFY(!written);
        qInfo().noquote() << "the user reads:" << written.error().message;
        QCOMPARE(written.error().kind, Error::Kind::Unsupported);
        QVERIFY2(written.error().message.contains(QLatin1String("keychain")), qPrintable(written.error().message));
        QVERIFY(!written.error().message.contains(QLatin1String("secret")));
        // And nothing was written in plain text instead.
        auto read = QCoro::waitFor(store.read(QStringLiteral("profile")));
        QVERIFY(!read);
    }
};

QTEST_GUILESS_MAIN(TestKeychain)
#include "tst_keychain.moc"
