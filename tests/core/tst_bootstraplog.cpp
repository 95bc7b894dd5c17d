#include "bootstraplog.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Paddock;

class TestBootstrapLog final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void defaultRootIsUnderXdgDataHome()
    {
        QTemporaryDir dir;
        qputenv("XDG_DATA_HOME", QFile::encodeName(dir.path()));
        QCOMPARE(BootstrapLogStore::defaultRoot(), dir.path() + QStringLiteral("/paddock/logs"));
        QCOMPARE(BootstrapLogStore().root(), dir.path() + QStringLiteral("/paddock/logs"));
    }

    void appendsAreOnDiskAtOnceAndReadBack()
    {
        QTemporaryDir dir;
        BootstrapLogStore store(dir.path());
        QSignalSpy spy(&store, &BootstrapLogStore::lineAppended);
        QVERIFY(store.append(QStringLiteral("local-1"), QStringLiteral("ws"), LogLine::Kind::Command, "echo 你好"));
        QVERIFY(store.append(QStringLiteral("local-1"), QStringLiteral("ws"), LogLine::Kind::Stdout, "你好"));
        QVERIFY(
            store.append(QStringLiteral("local-1"), QStringLiteral("ws"), LogLine::Kind::Stderr, "bad\nsecond half"));
        QCOMPARE(spy.size(), 3);

        // Another reader sees every line without any flush or close by the writer.
        QFile file(store.path(QStringLiteral("local-1"), QStringLiteral("ws")));
        QCOMPARE(file.fileName(), dir.path() + QStringLiteral("/local-1/ws.log"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QList<QByteArray> raw = file.readAll().split('\n');
        QCOMPARE(raw.size(), 4);
        QVERIFY(raw[1].endsWith(" out 你好"));
        QCOMPARE(raw[3], QByteArray());

        const auto lines = store.read(QStringLiteral("local-1"), QStringLiteral("ws"));
        QVERIFY(lines);
        QCOMPARE(lines->size(), 3);
        QCOMPARE(lines->at(0).kind, LogLine::Kind::Command);
        QCOMPARE(lines->at(1).text, QByteArray("你好"));
        QCOMPARE(lines->at(2).kind, LogLine::Kind::Stderr);
        QCOMPARE(lines->at(2).text, QByteArray("bad"));
        QVERIFY(lines->at(2).time.isValid());
        QCOMPARE(lines->at(2).time.timeSpec(), Qt::UTC);
    }

    void logsAreAppendedAcrossStores()
    {
        QTemporaryDir dir;
        {
            BootstrapLogStore first(dir.path());
            QVERIFY(first.append(QStringLiteral("k"), QStringLiteral("ws"), LogLine::Kind::Status, "first run"));
        }
        BootstrapLogStore second(dir.path());
        QVERIFY(second.append(QStringLiteral("k"), QStringLiteral("ws"), LogLine::Kind::Status, "second run"));
        const auto lines = second.read(QStringLiteral("k"), QStringLiteral("ws"));
        QCOMPARE(lines->size(), 2);
        QCOMPARE(lines->at(0).text, QByteArray("first run"));
    }

    void missingLogIsNotFound()
    {
        QTemporaryDir dir;
        BootstrapLogStore store(dir.path());
        const auto lines = store.read(QStringLiteral("k"), QStringLiteral("none"));
        QVERIFY(!lines);
        QCOMPARE(lines.error().kind, Error::Kind::NotFound);
        QVERIFY(lines.error().message.contains(QLatin1String("none")));
    }

    void unwritableRootIsAnError()
    {
        QTemporaryDir dir;
        QFile blocker(dir.path() + QStringLiteral("/file"));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        BootstrapLogStore store(blocker.fileName());
        const auto opened = store.open(QStringLiteral("k"), QStringLiteral("ws"));
        QVERIFY(!opened);
        QCOMPARE(opened.error().kind, Error::Kind::Io);
        QVERIFY(opened.error().message.contains(blocker.fileName()));
    }

    void serializeRoundTrip()
    {
        const LogLine line{QDateTime(QDate(2026, 11, 30), QTime(3, 1, 17, 123), Qt::UTC), LogLine::Kind::Stdout,
                           "text with  spaces"};
        QCOMPARE(line.serialize(), QByteArray("2026-11-30T03:01:17.123Z out text with  spaces"));
        const LogLine parsed = LogLine::parse(line.serialize());
        QCOMPARE(parsed.time, line.time);
        QCOMPARE(parsed.kind, line.kind);
        QCOMPARE(parsed.text, line.text);
    }
};

QTEST_GUILESS_MAIN(TestBootstrapLog)
#include "tst_bootstraplog.moc"
