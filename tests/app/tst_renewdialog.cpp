// The Renew dialog: it extends by default, marks every row that would expire sooner, and asks
// once more (Cancel first) before shortening any.

#include "renewdialog.h"
#include "workspaceactions.h"

#include <QApplication>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QToolButton>
#include <QTreeWidget>

using namespace Paddock;

namespace {

WorkspaceRecord expiring(const QString &id, const QDateTime &expiresAt)
{
    WorkspaceRecord record;
    record.profile = QStringLiteral("p");
    record.info.sandboxId = id + QStringLiteral("-0b5c3f5e-6c1a-4c2e-9d3f-1a2b3c4d5e6f");
    record.info.workspaceId = id;
    record.info.state = SandboxState::Running;
    record.info.expiresAt = expiresAt;
    return record;
}

} // namespace

class TestRenewDialog final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void extendsByDefaultAndAsksBeforeShortening()
    {
        const QDateTime now(QDate(2026, 12, 1), QTime(12, 0), Qt::UTC);
        // The report's case: 23 h 49 min left; and one that expires in ten minutes.
        const QString longId = QStringLiteral("5f0c2a7e9b1d4c3a8e6f2b9d0a1c3e5f");
        const QList<WorkspaceRecord> records{expiring(longId, now.addSecs(23 * 3600 + 49 * 60)),
                                             expiring(QStringLiteral("soon"), now.addSecs(600))};
        RenewDialog dialog(records, {});
        dialog.setClock([now] { return now; });
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));

        // By default: extend by one hour. Nothing gets shorter.
        QCOMPARE(dialog.mode(), RenewMode::Extend);
        QCOMPARE(dialog.amount(), std::chrono::seconds(3600));
        QCOMPARE(dialog.shorteningCount(), 0);
        QCOMPARE(dialog.renewalFor(0).expiresAt, now.addSecs(24 * 3600 + 49 * 60));
        QCOMPARE(dialog.renewalFor(1).expiresAt, now.addSecs(4200));
        QVERIFY(!dialog.isMarkedShorter(0) && !dialog.isMarkedShorter(1));
        QVERIFY2(dialog.previewChange(0).contains(QLatin1String("later")), qPrintable(dialog.previewChange(0)));

        // Presets: +24 h is a day, in hours.
        dialog.findChild<QToolButton *>(QStringLiteral("oneDayButton"))->click();
        QCOMPARE(dialog.amount(), std::chrono::seconds(24 * 3600));

        // The columns show their whole text: the id and the times are not cut.
        auto *list = dialog.findChild<QTreeWidget *>(QStringLiteral("previewList"));
        const QFontMetrics metrics(list->font());
        QVERIFY(list->header()->sectionSize(0) >= metrics.horizontalAdvance(longId));
        QVERIFY(list->header()->sectionSize(1) >= metrics.horizontalAdvance(dialog.previewBefore(0)));
        QVERIFY(list->header()->sectionSize(2) >= metrics.horizontalAdvance(dialog.previewAfter(0)));

        // Thirty minutes from now shortens the first; it is marked, the second is not.
        dialog.setMode(RenewMode::FromNow);
        dialog.setAmount(30, RenewDialog::Minutes);
        QCOMPARE(dialog.shorteningCount(), 1);
        QVERIFY(dialog.isMarkedShorter(0));
        QVERIFY(!dialog.isMarkedShorter(1));
        QVERIFY2(dialog.previewChange(0).contains(QLatin1String("sooner")), qPrintable(dialog.previewChange(0)));

        // Accepting asks apart, with Cancel as the default; Cancel keeps the dialog open.
        QSignalSpy finished(&dialog, &QDialog::finished);
        dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->click();
        QMessageBox *confirm = nullptr;
        QTRY_VERIFY((confirm = dialog.findChild<QMessageBox *>(QStringLiteral("confirmShorten"))) != nullptr
                    && confirm->isVisible());
        QCOMPARE(confirm->defaultButton(), confirm->button(QMessageBox::Cancel));
        QVERIFY(confirm->detailedText().contains(longId));
        QVERIFY(!confirm->detailedText().contains(QLatin1String("soon")));
        confirm->button(QMessageBox::Cancel)->click();
        QTRY_VERIFY(!dialog.findChild<QMessageBox *>(QStringLiteral("confirmShorten")));
        QVERIFY(dialog.isVisible());
        QCOMPARE(finished.count(), 0);
        QVERIFY(!dialog.allowsShorter());

        // Confirmed: the dialog closes, allowed to shorten.
        dialog.accept();
        QTRY_VERIFY((confirm = dialog.findChild<QMessageBox *>(QStringLiteral("confirmShorten"))) != nullptr
                    && confirm->isVisible());
        confirm->findChild<QPushButton *>(QStringLiteral("shortenButton"))->click();
        QTRY_COMPARE(finished.count(), 1);
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
        QVERIFY(dialog.allowsShorter());
    }

    void extendingNeverAsks()
    {
        const QDateTime now = QDateTime::currentDateTimeUtc();
        WorkspaceRecord forever = expiring(QStringLiteral("f"), now);
        forever.info.expiresAt.reset();
        RenewDialog dialog({expiring(QStringLiteral("a"), now.addSecs(86000))}, {forever, forever});
        dialog.show();
        QSignalSpy finished(&dialog, &QDialog::finished);
        dialog.setAmount(2, RenewDialog::Minutes); // a small extension still extends
        QCOMPARE(dialog.shorteningCount(), 0);
        dialog.accept();
        QCOMPARE(finished.count(), 1);
        QVERIFY(!dialog.findChild<QMessageBox *>());
    }

    // A paused E2B sandbox's timer is stopped (pausedAt, no expiresAt): its server refuses a new
    // timeout (resuming starts one), so Renew does not go to it, and the dialog says why it is
    // skipped, apart from those that never expire; what is renewed is never shortened unasked.
    void aPausedSandboxWithItsTimerStoppedIsSkippedAndSaidSo()
    {
        const QDateTime now(QDate(2026, 12, 1), QTime(12, 0), Qt::UTC);
        WorkspaceRecord stopped = expiring(QStringLiteral("paused"), now);
        stopped.info.expiresAt.reset();
        stopped.info.state = SandboxState::Paused;
        stopped.info.pausedAt = now.addSecs(-600);
        const Capabilities e2b{Capability::Renew, Capability::Files, Capability::Exec};
        QVERIFY(!WorkspaceActionController::fits(WorkspaceAction::Renew, stopped, e2b));
        QVERIFY(WorkspaceActionController::fits(WorkspaceAction::Resume, stopped, e2b));
        const WorkspaceRecord running = expiring(QStringLiteral("running"), now.addSecs(1800));
        QVERIFY(WorkspaceActionController::fits(WorkspaceAction::Renew, running, e2b));
        WorkspaceRecord forever = expiring(QStringLiteral("forever"), now);
        forever.info.expiresAt.reset();

        RenewDialog dialog({running}, {stopped, forever});
        dialog.setClock([now] { return now; });
        dialog.show();
        const QString summary = dialog.findChild<QLabel *>(QStringLiteral("summaryLabel"))->text();
        QVERIFY2(summary.contains(QLatin1String("1 selected workspace(s) never expire and are skipped.")),
                 qPrintable(summary));
        QVERIFY2(summary.contains(QLatin1String("1 selected workspace(s) are paused with their timer stopped and are "
                                                "skipped: resuming one starts a new timeout.")),
                 qPrintable(summary));
        // E2B sets a timeout from now: five minutes from now would shorten the running one's 30.
        dialog.setMode(RenewMode::FromNow);
        dialog.setAmount(5, RenewDialog::Minutes);
        QCOMPARE(dialog.shorteningCount(), 1);
        QVERIFY(dialog.isMarkedShorter(0));
        QCOMPARE(dialog.renewalFor(0).expiresAt, now.addSecs(300));
        QVERIFY(dialog.previewBefore(0) != dialog.previewAfter(0));
    }
};

QTEST_MAIN(TestRenewDialog)
#include "tst_renewdialog.moc"
