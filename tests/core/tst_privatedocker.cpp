// PrivateDockerEngine, the fixture that Docker backend tests run against: a throwaway dockerd of
// their own with a busybox image imported from busybox-static. A test of the fixture and of the
// machine: where no engine can start it skips with the reason, except under CI=true, where it fails.

#include "privatedocker.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

#include <cerrno>
#include <csignal>

using namespace PaddockTest;

namespace {

bool processGone(qint64 pid)
{
    return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

// Mount points under folder, from /proc/self/mountinfo.
QList<QByteArray> mountsUnder(const QString &folder)
{
    QList<QByteArray> points;
    QFile mountinfo(QStringLiteral("/proc/self/mountinfo"));
    if (!mountinfo.open(QIODevice::ReadOnly))
        return points;
    const QByteArray prefix = folder.toLocal8Bit();
    for (const QByteArray &line : mountinfo.readAll().split('\n')) {
        const QList<QByteArray> fields = line.split(' ');
        if (fields.size() >= 5 && (fields.at(4) == prefix || fields.at(4).startsWith(QByteArray(prefix + '/'))))
            points << fields.at(4);
    }
    return points;
}

} // namespace

class TestPrivateDocker : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        m_engine = std::make_unique<PrivateDockerEngine>();
        PADDOCK_START_PRIVATE_DOCKER(*m_engine);
        QVERIFY(m_engine->socketPath().size() < 100);
        QCOMPARE(m_engine->dockerHost(), QStringLiteral("unix://") + m_engine->socketPath());
        QVERIFY(m_engine->pid() > 0);
        QVERIFY(!m_engine->apiVersion().isEmpty());
        // dockerd 20.10 (API 1.41) keeps its trust key in the engine's folder, not in /etc/docker.
        if (m_engine->apiVersion() == QLatin1String("1.41"))
            QVERIFY(QFileInfo::exists(m_engine->path() + QStringLiteral("/key.json")));
        m_image = m_engine->busyboxImage();
        QVERIFY2(!m_image.isEmpty(), qPrintable(m_engine->error()));
        QCOMPARE(m_image, QStringLiteral("paddock-test/busybox:1"));
        QCOMPARE(m_engine->busyboxImage(), m_image); // imported once
    }

    void cleanupTestCase()
    {
        if (!m_engine)
            return;
        const qint64 pid = m_engine->pid();
        const QString folder = m_engine->path();
        m_engine.reset();
        QVERIFY(pid == 0 || processGone(pid));
        QVERIFY(folder.isEmpty() || !QFileInfo::exists(folder));
    }

    void runReturnsOutputAndExitCode()
    {
        QByteArray out;
        const int code = m_engine->docker({QStringLiteral("run"), QStringLiteral("--rm"), QStringLiteral("--network"),
                                           QStringLiteral("none"), m_image, QStringLiteral("sh"), QStringLiteral("-c"),
                                           QStringLiteral("echo out; echo err >&2; exit 3")},
                                          &out);
        QCOMPARE(code, 3);
        QCOMPARE(out, QByteArray("out\n"));
        QCOMPARE(m_engine->lastStandardError(), QByteArray("err\n"));
    }

    void imageHasTheUsualApplets()
    {
        QByteArray out;
        const QString script = QStringLiteral(
            "for a in sh echo cat ls mkdir sleep printf test tail touch rm stat date true false env find wc head "
            "grep sed tr id kill ps; do command -v $a >/dev/null || echo missing $a; done; "
            "id -un; stat -c %a /tmp; test -d /workspace && echo workspace; echo \"$PATH\"");
        QCOMPARE(m_engine->docker({QStringLiteral("run"), QStringLiteral("--rm"), QStringLiteral("--network"),
                                   QStringLiteral("none"), m_image, QStringLiteral("sh"), QStringLiteral("-c"), script},
                                  &out),
                 0);
        QCOMPARE(out,
                 QByteArray("root\n1777\nworkspace\n/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n"));
    }

    void bindMountAtWorkspace()
    {
        QTemporaryDir host;
        QVERIFY(host.isValid());
        QFile seed(host.filePath(QStringLiteral("from-host")));
        QVERIFY(seed.open(QIODevice::WriteOnly));
        seed.write("seeded\n");
        seed.close();

        QByteArray out;
        QCOMPARE(m_engine->docker({QStringLiteral("run"), QStringLiteral("--rm"), QStringLiteral("--network"),
                                   QStringLiteral("none"), QStringLiteral("--volume"),
                                   host.path() + QStringLiteral(":/workspace"), QStringLiteral("--workdir"),
                                   QStringLiteral("/workspace"), m_image, QStringLiteral("sh"), QStringLiteral("-c"),
                                   QStringLiteral("cat from-host; echo made inside > made-inside")},
                                  &out),
                 0);
        QCOMPARE(out, QByteArray("seeded\n"));
        QFile made(host.filePath(QStringLiteral("made-inside")));
        QVERIFY(made.open(QIODevice::ReadOnly));
        QCOMPARE(made.readAll(), QByteArray("made inside\n"));
    }

    void pauseAndUnpause()
    {
        QByteArray id;
        QCOMPARE(m_engine->docker({QStringLiteral("run"), QStringLiteral("--detach"), QStringLiteral("--network"),
                                   QStringLiteral("none"), m_image, QStringLiteral("sleep"), QStringLiteral("300")},
                                  &id),
                 0);
        const QString container = QString::fromLatin1(id.trimmed());
        QVERIFY(!container.isEmpty());
        QCOMPARE(m_engine->docker({QStringLiteral("pause"), container}), 0);
        QCOMPARE(status(container), QByteArray("paused"));
        QCOMPARE(m_engine->docker({QStringLiteral("unpause"), container}), 0);
        QCOMPARE(status(container), QByteArray("running"));
        QCOMPARE(m_engine->docker({QStringLiteral("rm"), QStringLiteral("--force"), container}), 0);
    }

    // The destructor removes running and paused containers, stops dockerd and its containerd,
    // unmounts what they left and deletes the folder.
    void destructorLeavesNothing()
    {
        qint64 pid = 0;
        QString folder;
        {
            PrivateDockerEngine engine;
            PADDOCK_START_PRIVATE_DOCKER(engine);
            pid = engine.pid();
            folder = engine.path();
            QVERIFY(!engine.busyboxImage().isEmpty());
            QByteArray running;
            QByteArray paused;
            const QStringList run{QStringLiteral("run"),  QStringLiteral("--detach"), QStringLiteral("--network"),
                                  QStringLiteral("none"), engine.busyboxImage(),      QStringLiteral("sleep"),
                                  QStringLiteral("300")};
            QCOMPARE(engine.docker(run, &running), 0);
            QCOMPARE(engine.docker(run, &paused), 0);
            QCOMPARE(engine.docker({QStringLiteral("pause"), QString::fromLatin1(paused.trimmed())}), 0);
            QVERIFY(!PrivateDockerEngine::processesUsing(folder).isEmpty()); // containerd, shims
            QVERIFY(!mountsUnder(folder).isEmpty()); // overlays, shm, netns
        }
        QVERIFY(processGone(pid));
        QVERIFY2(PrivateDockerEngine::processesUsing(folder).isEmpty(), qPrintable(folder));
        QVERIFY(mountsUnder(folder).isEmpty());
        QVERIFY(!QFileInfo::exists(folder));
    }

    // Test binaries run in parallel (ctest -j): engines next to each other do not see each other.
    void twoEnginesAtOnce()
    {
        PrivateDockerEngine first;
        PrivateDockerEngine second;
        PADDOCK_START_PRIVATE_DOCKER(first);
        PADDOCK_START_PRIVATE_DOCKER(second);
        QVERIFY(first.socketPath() != second.socketPath());
        QVERIFY(first.pid() != second.pid());
        QVERIFY2(!first.busyboxImage().isEmpty(), qPrintable(first.error()));
        QVERIFY2(!second.busyboxImage().isEmpty(), qPrintable(second.error()));

        QByteArray id;
        QCOMPARE(first.docker({QStringLiteral("run"), QStringLiteral("--detach"), QStringLiteral("--name"),
                               QStringLiteral("only-in-first"), QStringLiteral("--network"), QStringLiteral("none"),
                               first.busyboxImage(), QStringLiteral("sleep"), QStringLiteral("300")},
                              &id),
                 0);
        QByteArray listed;
        QCOMPARE(first.docker({QStringLiteral("ps"), QStringLiteral("--all"), QStringLiteral("--quiet"),
                               QStringLiteral("--no-trunc")},
                              &listed),
                 0);
        QCOMPARE(listed, id);
        QCOMPARE(second.docker({QStringLiteral("ps"), QStringLiteral("--all"), QStringLiteral("--quiet")}, &listed), 0);
        QCOMPARE(listed, QByteArray());

        QByteArray out;
        QCOMPARE(second.docker({QStringLiteral("run"), QStringLiteral("--rm"), QStringLiteral("--network"),
                                QStringLiteral("none"), second.busyboxImage(), QStringLiteral("echo"),
                                QStringLiteral("second")},
                               &out),
                 0);
        QCOMPARE(out, QByteArray("second\n"));
    }

private:
    QByteArray status(const QString &container)
    {
        QByteArray out;
        m_engine->docker(
            {QStringLiteral("inspect"), QStringLiteral("--format"), QStringLiteral("{{.State.Status}}"), container},
            &out);
        return out.trimmed();
    }

    std::unique_ptr<PrivateDockerEngine> m_engine;
    QString m_image;
};

QTEST_GUILESS_MAIN(TestPrivateDocker)
#include "tst_privatedocker.moc"
