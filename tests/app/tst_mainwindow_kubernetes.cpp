// The console window over a Kubernetes profile, against paddock-fake-kubernetes on 127.0.0.1
// (offscreen): what changes on the cluster reaches the tree through the backend's watch, in
// place and without a listing, while the window is shown.

#include "fakekubernetesprocess.h"
#include "liveupdates.h"
#include "mainwindow.h"
#include "profile.h"
#include "profilesession.h"
#include "workspacetreemodel.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QAbstractProxyModel>
#include <QItemSelectionModel>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTest>
#include <QTreeView>

#include <algorithm>

using namespace Paddock;
using namespace std::chrono_literals;

namespace {

// Empty on success, else what went wrong: another client deletes an object.
QByteArray deleteObject(const PaddockTest::FakeKubernetesProcess &fake, const QString &path)
{
    QNetworkAccessManager network;
    QNetworkRequest request = fake.request(path);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    std::unique_ptr<QNetworkReply> reply(
        network.sendCustomRequest(request, "DELETE", QByteArrayLiteral(R"({"gracePeriodSeconds":0})")));
    QSignalSpy finished(reply.get(), &QNetworkReply::finished);
    if (!reply->isFinished() && !finished.wait(30'000))
        return "no answer to DELETE " + path.toUtf8();
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status != 200 && status != 202)
        return "DELETE " + path.toUtf8() + " answered " + QByteArray::number(status) + ": " + reply->readAll();
    return {};
}

int listsOfPods(const PaddockTest::FakeKubernetesProcess &fake)
{
    return fake.stats().value(QLatin1String("byVerb")).toObject().value(QLatin1String("list pods")).toInt();
}

} // namespace

class TestMainWindowKubernetes final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void changesOnTheClusterReachTheTreeLive()
    {
        PaddockTest::FakeKubernetesProcess fake;
        QVERIFY2(fake.start({QStringLiteral("--seed"), QStringLiteral("5"), QStringLiteral("--grace-ms"),
                             QStringLiteral("100")}),
                 qPrintable(fake.error()));
        Profile profile;
        profile.id = QStringLiteral("cluster");
        profile.name = QStringLiteral("Cluster");
        profile.kind = Profile::Kind::Kubernetes;
        profile.kubeconfig = fake.kubeconfigPath();
        profile.kubeNamespace = QStringLiteral("agentscope");
        ProfileSession session(profile, {}, nullptr);
        const auto shutDown = qScopeGuard([&session] { QCoro::waitFor(session.shutdown()); });
        QVERIFY(session.can(Capability::Watch));
        MainWindow window(&session);
        window.setRefreshInterval(0s); // nothing but the first listing: the rest is the watch's
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTRY_COMPARE_WITH_TIMEOUT(window.model()->workspaceCount(), 5, 30'000);
        QVERIFY(session.isWatched());
        QVERIFY(window.liveUpdates()->isLive());
        // The watches of Pods and PVCs are open (each listed first).
        QTRY_COMPARE_WITH_TIMEOUT(fake.stats().value(QLatin1String("watches")).toInt(), 2, 30'000);
        const int lists = listsOfPods(fake);

        QList<const WorkspaceRecord *> rows = window.model()->recordsUnder({});
        QCOMPARE(rows.size(), 5);
        const QString failing = rows.at(0)->info.sandboxId;
        const QString failingKey = rows.at(0)->key();
        // The one to stop is one of Paddock's: its owner is on the PVC too, so it keeps it.
        const auto owned = std::find_if(rows.cbegin() + 1, rows.cend(),
                                        [](const WorkspaceRecord *row) { return !row->info.userId.isEmpty(); });
        QVERIFY(owned != rows.cend());
        const QString stopped = (*owned)->info.sandboxId;
        const QString stoppedKey = (*owned)->key();
        const QString owner = (*owned)->info.userId;
        const QString agent = (*owned)->info.agentId;
        QCOMPARE(rows.at(0)->info.state, SandboxState::Running);
        auto *view = window.findChild<QTreeView *>(QStringLiteral("workspaceView"));
        auto *proxy = static_cast<QAbstractProxyModel *>(view->model());
        const auto selected = [&] {
            return view->selectionModel()->isSelected(proxy->mapFromSource(window.model()->indexOfKey(failingKey)));
        };
        view->selectionModel()->select(proxy->mapFromSource(window.model()->indexOfKey(failingKey)),
                                       QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        QVERIFY(selected());

        // The kubelet reports the Pod Failed: its row says so, still selected.
        fake.control("POST", QStringLiteral("/_fake/pods/agentscope/%1/status").arg(failing), R"({"phase":"Failed"})");
        QTRY_COMPARE_WITH_TIMEOUT(window.model()->record(window.model()->indexOfKey(failingKey))->info.state,
                                  SandboxState::Failed, 10'000);
        QVERIFY(selected());

        // Someone deletes a Pod (the PVC stays: a closed workspace), then its PVC: the row
        // turns Stopped, then goes.
        const QByteArray podDeleted =
            deleteObject(fake, QStringLiteral("/api/v1/namespaces/agentscope/pods/") + stopped);
        QVERIFY2(podDeleted.isEmpty(), podDeleted.constData());
        QTRY_COMPARE_WITH_TIMEOUT(window.model()->record(window.model()->indexOfKey(stoppedKey))->info.state,
                                  SandboxState::Paused, 10'000);
        QCOMPARE(window.model()->record(window.model()->indexOfKey(stoppedKey))->info.userId, owner);
        QCOMPARE(window.model()->record(window.model()->indexOfKey(stoppedKey))->info.agentId, agent);
        QCOMPARE(window.model()->stateText(*window.model()->record(window.model()->indexOfKey(stoppedKey))),
                 QStringLiteral("Stopped"));
        const QByteArray pvcDeleted =
            deleteObject(fake, QStringLiteral("/api/v1/namespaces/agentscope/persistentvolumeclaims/") + stopped);
        QVERIFY2(pvcDeleted.isEmpty(), pvcDeleted.constData());
        QTRY_VERIFY_WITH_TIMEOUT(!window.model()->indexOfKey(stoppedKey).isValid(), 10'000);
        QCOMPARE(window.model()->workspaceCount(), 4);
        QVERIFY(selected());
        QCOMPARE(listsOfPods(fake), lists); // the window listed nothing for it

        // Hidden, the window watches nothing.
        window.hide();
        QVERIFY(!session.isWatched());
        QTRY_COMPARE_WITH_TIMEOUT(fake.stats().value(QLatin1String("watches")).toInt(), 0, 30'000);
    }
};

QTEST_MAIN(TestMainWindowKubernetes)
#include "tst_mainwindow_kubernetes.moc"
