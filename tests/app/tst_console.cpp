// The console's profiles end to end, offscreen: the OPEN_SANDBOX_DOMAIN/KEY import (key to the
// secret store, never to the settings file), switching between the Local profile and
// OpenSandbox profiles served by paddock-fake-opensandbox, a wrong key shown in place with its
// request id while the other profiles keep working, and the last profile remembered.

#include "console.h"
#include "fakeopensandboxprocess.h"
#include "mainwindow.h"
#include "renewdialog.h"
#include "workspacetreemodel.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

using namespace Paddock;

class TestConsole final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void profilesKeysAndSwitching()
    {
        PaddockTest::FakeOpenSandboxProcess server;
        QVERIFY2(server.start({QStringLiteral("--api-key"), QStringLiteral("s3cret"), QStringLiteral("--seed"),
                               QStringLiteral("12")}),
                 qPrintable(server.error()));
        QTemporaryDir dir;
        const QString settingsPath = dir.filePath(QStringLiteral("paddock.ini"));
        qputenv("OPEN_SANDBOX_DOMAIN", server.domain().toUtf8());
        qputenv("OPEN_SANDBOX_API_KEY", "s3cret");
        MemorySecretStore secrets;
        QString importedId;
        {
            QSettings settings(settingsPath, QSettings::IniFormat);
            {
                // The Local profile's folder is this test's.
                ProfileStore store(&settings);
                Profile local = store.profiles().constFirst();
                local.basedir = dir.filePath(QStringLiteral("workspaces"));
                QVERIFY(store.save(local));
            }
            Console console(&settings, &secrets);
            console.window()->show();
            QCoro::waitFor(console.start());
            qunsetenv("OPEN_SANDBOX_API_KEY"); // from here on the key comes from the store only
            MainWindow *window = console.window();
            QCOMPARE(window->profile(), QStringLiteral("local"));

            // The import made a profile and put its key in the secret store.
            QCOMPARE(console.profiles().profiles().size(), 2);
            importedId = console.profiles().profiles().at(1).id;
            QCOMPARE(QCoro::waitFor(secrets.read(importedId))->value_or(QByteArray()), QByteArray("s3cret"));
            auto *box = window->findChild<QComboBox *>(QStringLiteral("profileBox"));
            QCOMPARE(box->count(), 2);

            // Switching shows the server's workspaces.
            QCoro::waitFor(console.switchTo(importedId));
            QCOMPARE(window->profile(), importedId);
            QTRY_COMPARE(window->model()->workspaceCount(), 12);
            QCOMPARE(box->currentData().toString(), importedId);

            // Renew from a group row: the dialog shows each expiry before and after, then applies.
            auto *view = window->findChild<QTreeView *>(QStringLiteral("workspaceView"));
            const QModelIndex group = view->model()->index(0, 0);
            view->selectionModel()->select(group, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            auto *renew = window->findChild<QAction *>(QStringLiteral("actionRenew"));
            QVERIFY(renew->isEnabled());
            renew->trigger();
            RenewDialog *dialog = nullptr;
            QTRY_VERIFY((dialog = window->findChild<RenewDialog *>()) != nullptr && dialog->isVisible());
            dialog->setDuration(std::chrono::minutes(2 * 24 * 60));
            QVERIFY(!dialog->previewBefore(0).isEmpty());
            QVERIFY(dialog->previewAfter(0) != dialog->previewBefore(0));
            dialog->accept();
            QTRY_VERIFY(window->lastActionSummary().contains(QLatin1String("done")));
            QVERIFY2(!window->lastActionSummary().contains(QLatin1String("failed")),
                     qPrintable(window->lastActionSummary()));
            // Every workspace of that user now expires about two days from now.
            const QString user = view->model()->index(0, 0).data().toString();
            int renewed = 0;
            for (int row = 0; row < window->model()->rowCount(); ++row) {
                const QModelIndex userIndex = window->model()->index(row, 0);
                if (userIndex.data().toString() != user)
                    continue;
                for (const WorkspaceRecord *record : window->model()->recordsUnder(userIndex)) {
                    if (record->info.state != SandboxState::Running && record->info.state != SandboxState::Paused)
                        continue;
                    QVERIFY(record->info.expiresAt.has_value());
                    QVERIFY(*record->info.expiresAt > QDateTime::currentDateTimeUtc().addSecs(47 * 3600));
                    ++renewed;
                }
            }
            QVERIFY(renewed > 0);

            // A profile with a wrong key says so in place, with the request id; the others work.
            Profile wrong = console.profiles().profiles().at(1);
            wrong.id = QStringLiteral("wrong");
            wrong.name = QStringLiteral("Wrong key");
            QVERIFY(console.profiles().save(wrong));
            QVERIFY(QCoro::waitFor(secrets.write(QStringLiteral("wrong"), "nope")));
            QCoro::waitFor(console.switchTo(QStringLiteral("wrong")));
            QTRY_VERIFY(window->statusBar()->currentMessage().contains(QLatin1String("HTTP 401 INVALID_API_KEY")));
            QVERIFY(window->statusBar()->currentMessage().contains(QLatin1String("(request ")));
            QCOMPARE(window->model()->workspaceCount(), 0);
            QCoro::waitFor(console.switchTo(importedId));
            QTRY_COMPARE(window->model()->workspaceCount(), 12);
        }
        // The settings file holds profiles, never a key; the last profile is remembered.
        QFile file(settingsPath);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();
        QVERIFY(!text.contains("s3cret"));
        QVERIFY(!text.contains("nope"));
        QSettings settings(settingsPath, QSettings::IniFormat);
        Console again(&settings, &secrets);
        QCoro::waitFor(again.start());
        QCOMPARE(again.window()->profile(), importedId);
        QCOMPARE(again.profiles().profiles().size(), 3); // the import does not run twice
        qunsetenv("OPEN_SANDBOX_DOMAIN");
    }
};

QTEST_MAIN(TestConsole)
#include "tst_console.moc"
