#include "workspacefiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <functional>

using namespace Paddock;

namespace {

WorkspaceLayout sandboxLayout()
{
    return {QStringLiteral("/workspace"), QStringLiteral("/root/.agentscope"), {}, {}};
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("<missing>");
}

QString why(const auto &result)
{
    return result ? QString() : result.error().message;
}

// Runs `swap` once, as the next HostFolderFiles call has walked its path and before it reads,
// lists or writes: what a process in the workspace could do at that moment.
class SwapAfterWalk
{
public:
    explicit SwapAfterWalk(std::function<void()> swap)
    {
        detail::hostFolderFilesWalked = [this, swap = std::move(swap)](const QString &) {
            if (!swapped) {
                swapped = true;
                swap();
            }
        };
    }
    ~SwapAfterWalk() { detail::hostFolderFilesWalked = nullptr; }
    Q_DISABLE_COPY_MOVE(SwapAfterWalk)

    bool swapped = false;
};

} // namespace

class TestWorkspaceFiles : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void confine_data();
    void confine();
    void hostFolderFollowsLinksAsTheSandboxSeesThem();
    void gatewayHomeBesideTheFolder();
    void readIsBounded();
    void downloadLeavesNothingOnFailure();
    void uploadStaysInside();
    void linkedPartsInsideStillWork();
    void swapAfterTheCheckReachesNothingOutside_data();
    void swapAfterTheCheckReachesNothingOutside();
};

void TestWorkspaceFiles::confine_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("expected"); // empty: refused

    QTest::newRow("empty is the workdir") << QString() << QStringLiteral("/workspace");
    QTest::newRow("dot") << QStringLiteral(".") << QStringLiteral("/workspace");
    QTest::newRow("relative") << QStringLiteral("sessions/a.jsonl") << QStringLiteral("/workspace/sessions/a.jsonl");
    QTest::newRow("inner dots") << QStringLiteral("a/../b//c/.") << QStringLiteral("/workspace/b/c");
    QTest::newRow("absolute inside") << QStringLiteral("/workspace/data/x") << QStringLiteral("/workspace/data/x");
    QTest::newRow("gateway home") << QStringLiteral("/root/.agentscope/gateway.log")
                                  << QStringLiteral("/root/.agentscope/gateway.log");
    QTest::newRow("climbs out") << QStringLiteral("../etc/passwd") << QString();
    QTest::newRow("climbs far") << QStringLiteral("../../../../..") << QString();
    QTest::newRow("absolute elsewhere") << QStringLiteral("/etc/passwd") << QString();
    QTest::newRow("prefix is not a parent") << QStringLiteral("/workspace2/x") << QString();
    QTest::newRow("gateway sibling") << QStringLiteral("/root/.ssh/id_rsa") << QString();
    QTest::newRow("out and back into the gateway")
        << QStringLiteral("../root/.agentscope/x") << QStringLiteral("/root/.agentscope/x");
    QTest::newRow("nul") << QStringLiteral("a") + QChar(0) + QStringLiteral("b") << QString();
}

void TestWorkspaceFiles::confine()
{
    QFETCH(QString, path);
    QFETCH(QString, expected);
    const auto confined = confineWorkspacePath(sandboxLayout(), path);
    if (expected.isEmpty()) {
        QVERIFY(!confined);
        QCOMPARE(confined.error().kind, Error::Kind::InvalidArgument);
        QVERIFY(!confined.error().message.isEmpty());
    } else {
        QVERIFY2(confined, qPrintable(confined ? QString() : confined.error().message));
        QCOMPARE(*confined, expected);
    }
}

// A Docker-like mapping: /workspace in the sandbox is a folder here; an absolute link target is
// a sandbox path, never this computer's.
void TestWorkspaceFiles::hostFolderFollowsLinksAsTheSandboxSeesThem()
{
    QTemporaryDir host;
    QVERIFY(host.isValid());
    const WorkspaceLayout layout{QStringLiteral("/workspace"), QStringLiteral("/workspace/.agentscope"), {}, {}};
    const HostFolderFiles files(layout, host.path());
    QVERIFY(QDir(host.path()).mkpath(QStringLiteral("data")));
    QVERIFY(writeFile(host.path() + QStringLiteral("/data/a.txt"), "hello"));
    QVERIFY(QFile::link(QStringLiteral("/workspace/data"), host.path() + QStringLiteral("/abs")));
    QVERIFY(QFile::link(QStringLiteral("data/a.txt"), host.path() + QStringLiteral("/rel")));
    QVERIFY(QFile::link(QStringLiteral("/etc"), host.path() + QStringLiteral("/out")));
    QVERIFY(QFile::link(QStringLiteral("../.."), host.path() + QStringLiteral("/data/up")));
    QVERIFY(QFile::link(QStringLiteral("loop"), host.path() + QStringLiteral("/loop")));

    const auto viaAbsolute = files.readFile(QStringLiteral("abs/a.txt"), 0, 100);
    QVERIFY2(viaAbsolute, qPrintable(viaAbsolute ? QString() : viaAbsolute.error().message));
    QCOMPARE(viaAbsolute->data, QByteArray("hello"));
    const auto viaRelative = files.readFile(QStringLiteral("rel"), 1, 3);
    QVERIFY(viaRelative);
    QCOMPARE(viaRelative->data, QByteArray("ell"));
    QCOMPARE(viaRelative->totalSize, 5);

    // A link is reported as itself.
    const auto link = files.stat(QStringLiteral("out"));
    QVERIFY(link);
    QCOMPARE(link->kind, FileEntry::Kind::Symlink);
    QCOMPARE(link->linkTarget, QStringLiteral("/etc"));
    // ... and never followed out.
    for (const QString &escape : {QStringLiteral("out"), QStringLiteral("out/passwd"), QStringLiteral("data/up/x")}) {
        const auto read = files.readFile(escape, 0, 10);
        QVERIFY2(!read, qPrintable(escape));
        QCOMPARE(read.error().kind, Error::Kind::InvalidArgument);
        QVERIFY2(read.error().message.contains(QLatin1String("outside")), qPrintable(read.error().message));
    }
    const auto listed = files.listFolder(QStringLiteral("out"));
    QVERIFY(!listed);
    QCOMPARE(listed.error().kind, Error::Kind::InvalidArgument);
    const auto looped = files.readFile(QStringLiteral("loop"), 0, 1);
    QVERIFY(!looped);

    const auto missing = files.stat(QStringLiteral("data/none"));
    QVERIFY(!missing);
    QCOMPARE(missing.error().kind, Error::Kind::NotFound);

    const auto root = files.listFolder({});
    QVERIFY(root);
    QStringList names;
    for (const FileEntry &entry : *root)
        names.append(entry.name);
    QCOMPARE(names, (QStringList{"abs", "data", "loop", "out", "rel"}));
}

// A gateway home outside the workdir is reached only where it is a folder on this computer too
// (the local backend in AgentScope's layout keeps it beside the agent's folder).
void TestWorkspaceFiles::gatewayHomeBesideTheFolder()
{
    QTemporaryDir host;
    QVERIFY(host.isValid());
    const QString workdir = host.path() + QStringLiteral("/a1");
    const QString home = host.path() + QStringLiteral("/.paddock/a1/.agentscope");
    QVERIFY(QDir().mkpath(workdir) && QDir().mkpath(home));
    QVERIFY(writeFile(home + QStringLiteral("/gateway.log"), "up\n"));
    QVERIFY(writeFile(host.path() + QStringLiteral("/.paddock/a1/workspace.json"), "{}"));
    QVERIFY(QFile::link(home + QStringLiteral("/gateway.log"), workdir + QStringLiteral("/log")));
    QVERIFY(QFile::link(QStringLiteral(".."), home + QStringLiteral("/parent")));
    const WorkspaceLayout layout{workdir, home, {}, {}};

    const HostFolderFiles beside(layout, workdir, home);
    const auto read = beside.readFile(home + QStringLiteral("/gateway.log"), 0, 10);
    QVERIFY2(read, qPrintable(read ? QString() : read.error().message));
    QCOMPARE(read->data, QByteArray("up\n"));
    const auto viaLink = beside.readFile(QStringLiteral("log"), 0, 10);
    QVERIFY2(viaLink, qPrintable(viaLink ? QString() : viaLink.error().message));
    QCOMPARE(viaLink->data, QByteArray("up\n"));
    QVERIFY(beside.upload(host.path() + QStringLiteral("/.paddock/a1/workspace.json"), home + QStringLiteral("/copy")));
    QVERIFY(QFileInfo::exists(home + QStringLiteral("/copy")));
    // What is beside the gateway home (Paddock's metadata) stays out of reach.
    const QStringList outsides{host.path() + QStringLiteral("/.paddock/a1/workspace.json"),
                               home + QStringLiteral("/parent/workspace.json")};
    for (const QString &outside : outsides) {
        const auto refused = beside.readFile(outside, 0, 10);
        QVERIFY2(!refused, qPrintable(outside));
        QCOMPARE(refused.error().kind, Error::Kind::InvalidArgument);
    }

    // Without it, the gateway home is not reached from here.
    const HostFolderFiles workdirOnly(layout, workdir);
    const auto unsupported = workdirOnly.readFile(home + QStringLiteral("/gateway.log"), 0, 10);
    QVERIFY(!unsupported);
    QCOMPARE(unsupported.error().kind, Error::Kind::Unsupported);
}

void TestWorkspaceFiles::readIsBounded()
{
    QTemporaryDir host;
    const HostFolderFiles files({host.path(), host.path() + QStringLiteral("/.agentscope"), {}, {}}, host.path());
    QVERIFY(writeFile(host.path() + QStringLiteral("/f"), "0123456789"));
    const auto middle = files.readFile(QStringLiteral("f"), 4, 3);
    QVERIFY(middle);
    QCOMPARE(middle->data, QByteArray("456"));
    QCOMPARE(middle->offset, 4);
    const auto past = files.readFile(host.path() + QStringLiteral("/f"), 20, 3);
    QVERIFY(past);
    QCOMPARE(past->data, QByteArray());
    QCOMPARE(past->totalSize, 10);
    QVERIFY(!files.readFile(QStringLiteral("f"), -1, 3));
    const auto folder = files.readFile(QString(), 0, 3);
    QVERIFY(!folder);
    QCOMPARE(folder.error().kind, Error::Kind::InvalidArgument);
}

void TestWorkspaceFiles::downloadLeavesNothingOnFailure()
{
    QTemporaryDir host;
    QTemporaryDir local;
    const HostFolderFiles files({host.path(), host.path() + QStringLiteral("/.agentscope"), {}, {}}, host.path());
    QVERIFY(writeFile(host.path() + QStringLiteral("/f"), "content"));
    const QString target = local.path() + QStringLiteral("/copy");
    QVERIFY(files.download(QStringLiteral("f"), target));
    QFile copy(target);
    QVERIFY(copy.open(QIODevice::ReadOnly));
    QCOMPARE(copy.readAll(), QByteArray("content"));

    const QString other = local.path() + QStringLiteral("/other");
    const auto missing = files.download(QStringLiteral("gone"), other);
    QVERIFY(!missing);
    QCOMPARE(missing.error().kind, Error::Kind::NotFound);
    QCOMPARE(QDir(local.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"copy"});
}

void TestWorkspaceFiles::uploadStaysInside()
{
    QTemporaryDir host;
    QTemporaryDir local;
    const HostFolderFiles files({host.path(), host.path() + QStringLiteral("/.agentscope"), {}, {}}, host.path());
    QVERIFY(writeFile(local.path() + QStringLiteral("/src"), "up"));
    QVERIFY(files.upload(local.path() + QStringLiteral("/src"), QStringLiteral("up.txt")));
    QFile up(host.path() + QStringLiteral("/up.txt"));
    QVERIFY(up.open(QIODevice::ReadOnly));
    QCOMPARE(up.readAll(), QByteArray("up"));

    QVERIFY(QFile::link(local.path(), host.path() + QStringLiteral("/out")));
    const auto escaped = files.upload(local.path() + QStringLiteral("/src"), QStringLiteral("out/planted"));
    QVERIFY(!escaped);
    QCOMPARE(escaped.error().kind, Error::Kind::InvalidArgument);
    QVERIFY(!QFile::exists(local.path() + QStringLiteral("/planted")));
    const auto climbed = files.upload(local.path() + QStringLiteral("/src"), QStringLiteral("../planted"));
    QVERIFY(!climbed);
    QCOMPARE(climbed.error().kind, Error::Kind::InvalidArgument);
    const auto noFolder = files.upload(local.path() + QStringLiteral("/src"), QStringLiteral("no/such/x"));
    QVERIFY(!noFolder);
    QCOMPARE(noFolder.error().kind, Error::Kind::NotFound);
}

// Symlinked folders (and files) that stay inside are followed by every call, a chain of them
// too; an upload through a link writes the file it leads to, and a replaced file keeps its
// permissions.
void TestWorkspaceFiles::linkedPartsInsideStillWork()
{
    QTemporaryDir host;
    QTemporaryDir local;
    QVERIFY(host.isValid() && local.isValid());
    const WorkspaceLayout layout{QStringLiteral("/workspace"), QStringLiteral("/workspace/.agentscope"), {}, {}};
    const HostFolderFiles files(layout, host.path());
    QVERIFY(QDir(host.path()).mkpath(QStringLiteral("deep/data")));
    QVERIFY(writeFile(host.path() + QStringLiteral("/deep/data/a.txt"), "inside"));
    QVERIFY(QFile::link(QStringLiteral("deep/data"), host.path() + QStringLiteral("/rel")));
    QVERIFY(QFile::link(QStringLiteral("/workspace/rel"), host.path() + QStringLiteral("/chain")));
    QVERIFY(QFile::link(QStringLiteral("../deep/data/a.txt"), host.path() + QStringLiteral("/deep/file")));

    for (const QString &folder : {QStringLiteral("rel"), QStringLiteral("chain"), QStringLiteral("/workspace/chain")}) {
        const auto listed = files.listFolder(folder);
        QVERIFY2(listed, qPrintable(why(listed)));
        QCOMPARE(listed->size(), 1);
        QCOMPARE(listed->first().name, QStringLiteral("a.txt"));
        QCOMPARE(listed->first().size, 6);
        const auto read = files.readFile(folder + QStringLiteral("/a.txt"), 0, 100);
        QVERIFY2(read, qPrintable(why(read)));
        QCOMPARE(read->data, QByteArray("inside"));
        const auto statted = files.stat(folder + QStringLiteral("/a.txt"));
        QVERIFY2(statted, qPrintable(why(statted)));
        QCOMPARE(statted->kind, FileEntry::Kind::File);
    }
    const auto viaFile = files.readFile(QStringLiteral("deep/file"), 0, 100);
    QVERIFY2(viaFile, qPrintable(why(viaFile)));
    QCOMPARE(viaFile->data, QByteArray("inside"));
    const QString copy = local.path() + QStringLiteral("/copy");
    const auto downloaded = files.download(QStringLiteral("chain/a.txt"), copy);
    QVERIFY2(downloaded, qPrintable(why(downloaded)));
    QCOMPARE(readAll(copy), QByteArray("inside"));

    QVERIFY(writeFile(local.path() + QStringLiteral("/src"), "uploaded"));
    const auto uploaded = files.upload(local.path() + QStringLiteral("/src"), QStringLiteral("chain/new.txt"));
    QVERIFY2(uploaded, qPrintable(why(uploaded)));
    QCOMPARE(readAll(host.path() + QStringLiteral("/deep/data/new.txt")), QByteArray("uploaded"));
    // Onto a link to a file: the file it leads to is replaced, the link stays, and so do the
    // replaced file's permissions.
    const QFile::Permissions narrow = QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup;
    QVERIFY(QFile::setPermissions(host.path() + QStringLiteral("/deep/data/a.txt"), narrow));
    const auto ontoLink = files.upload(local.path() + QStringLiteral("/src"), QStringLiteral("deep/file"));
    QVERIFY2(ontoLink, qPrintable(why(ontoLink)));
    QVERIFY(QFileInfo(host.path() + QStringLiteral("/deep/file")).isSymLink());
    QCOMPARE(readAll(host.path() + QStringLiteral("/deep/data/a.txt")), QByteArray("uploaded"));
    QCOMPARE(QFile::permissions(host.path() + QStringLiteral("/deep/data/a.txt")) & 0x7077, narrow);
    // Nothing left beside them.
    QCOMPARE(QDir(host.path() + QStringLiteral("/deep/data"))
                 .entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
             (QStringList{"a.txt", "new.txt"}));
}

void TestWorkspaceFiles::swapAfterTheCheckReachesNothingOutside_data()
{
    QTest::addColumn<QString>("call");
    QTest::addColumn<bool>("swapFile"); // the file itself, not its folder

    for (const char *call : {"read", "list", "stat", "download", "upload new", "upload over"})
        QTest::newRow(qPrintable(QStringLiteral("folder, ") + QLatin1String(call)))
            << QString::fromLatin1(call) << false;
    for (const char *call : {"read", "stat", "download", "upload over"})
        QTest::newRow(qPrintable(QStringLiteral("file, ") + QLatin1String(call))) << QString::fromLatin1(call) << true;
}

// What runs in the workspace (a container's root on the bind mount, a local agent) replaces the
// folder a call has just checked (or the file) with a symlink to a folder of this computer
// outside the workspace. The call reads, lists and writes what it checked, or fails: nothing
// outside is read or written.
void TestWorkspaceFiles::swapAfterTheCheckReachesNothingOutside()
{
    QFETCH(QString, call);
    QFETCH(bool, swapFile);
    QTemporaryDir host;
    QTemporaryDir outside;
    QTemporaryDir local;
    QVERIFY(host.isValid() && outside.isValid() && local.isValid());
    const QByteArray secret("ssh-ed25519 host key, never shown");
    QVERIFY(writeFile(outside.path() + QStringLiteral("/sample-secret"), secret));
    QVERIFY(writeFile(outside.path() + QStringLiteral("/a.txt"), secret));
    QVERIFY(QDir(host.path()).mkpath(QStringLiteral("data")));
    QVERIFY(writeFile(host.path() + QStringLiteral("/data/a.txt"), "inside"));
    QVERIFY(writeFile(local.path() + QStringLiteral("/src"), "uploaded"));
    const HostFolderFiles files({QStringLiteral("/workspace"), QStringLiteral("/workspace/.agentscope"), {}, {}},
                                host.path());

    SwapAfterWalk swap([&] {
        if (swapFile) {
            QVERIFY(
                QFile::rename(host.path() + QStringLiteral("/data/a.txt"), host.path() + QStringLiteral("/a.moved")));
            QVERIFY(QFile::link(outside.path() + QStringLiteral("/sample-secret"),
                                host.path() + QStringLiteral("/data/a.txt")));
        } else {
            QVERIFY(QDir(host.path()).rename(QStringLiteral("data"), QStringLiteral("data.moved")));
            QVERIFY(QFile::link(outside.path(), host.path() + QStringLiteral("/data")));
        }
    });
    // Where the checked file is now, inside.
    const QString checked = host.path() + (swapFile ? QStringLiteral("/a.moved") : QStringLiteral("/data.moved/a.txt"));
    const QString copy = local.path() + QStringLiteral("/copy");

    if (call == QLatin1String("read")) {
        const auto read = files.readFile(QStringLiteral("data/a.txt"), 0, 100);
        if (swapFile) { // its name leads elsewhere now: not read
            QVERIFY(!read);
            QCOMPARE(read.error().kind, Error::Kind::NotFound);
        } else {
            QVERIFY2(read, qPrintable(why(read)));
            QCOMPARE(read->data, QByteArray("inside"));
            QCOMPARE(read->totalSize, 6);
        }
    } else if (call == QLatin1String("list")) {
        const auto listed = files.listFolder(QStringLiteral("data"));
        QVERIFY2(listed, qPrintable(why(listed)));
        QCOMPARE(listed->size(), 1);
        QCOMPARE(listed->first().name, QStringLiteral("a.txt"));
        QCOMPARE(listed->first().size, 6);
    } else if (call == QLatin1String("stat")) {
        const auto statted = files.stat(QStringLiteral("data/a.txt"));
        QVERIFY2(statted, qPrintable(why(statted)));
        QCOMPARE(statted->kind, FileEntry::Kind::File);
        QCOMPARE(statted->size, 6);
    } else if (call == QLatin1String("download")) {
        const auto downloaded = files.download(QStringLiteral("data/a.txt"), copy);
        if (swapFile) {
            QVERIFY(!downloaded);
            QCOMPARE(downloaded.error().kind, Error::Kind::NotFound);
            QVERIFY(!QFile::exists(copy));
        } else {
            QVERIFY2(downloaded, qPrintable(why(downloaded)));
            QCOMPARE(readAll(copy), QByteArray("inside"));
        }
    } else if (call == QLatin1String("upload new")) {
        const auto uploaded = files.upload(local.path() + QStringLiteral("/src"), QStringLiteral("data/new.txt"));
        QVERIFY2(uploaded, qPrintable(why(uploaded)));
        QCOMPARE(readAll(host.path() + QStringLiteral("/data.moved/new.txt")), QByteArray("uploaded"));
    } else if (call == QLatin1String("upload over")) {
        const auto uploaded = files.upload(local.path() + QStringLiteral("/src"), QStringLiteral("data/a.txt"));
        QVERIFY2(uploaded, qPrintable(why(uploaded)));
        if (swapFile) { // the link put there is replaced, not written through
            QVERIFY(!QFileInfo(host.path() + QStringLiteral("/data/a.txt")).isSymLink());
            QCOMPARE(readAll(host.path() + QStringLiteral("/data/a.txt")), QByteArray("uploaded"));
        } else {
            QCOMPARE(readAll(checked), QByteArray("uploaded"));
        }
    } else {
        QFAIL(qPrintable(call));
    }
    QVERIFY(swap.swapped);
    if (call != QLatin1String("upload over") || swapFile)
        QCOMPARE(readAll(checked), QByteArray("inside"));
    // Outside: as it was, nothing added.
    QCOMPARE(QDir(outside.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
             (QStringList{"a.txt", "sample-secret"}));
    QCOMPARE(readAll(outside.path() + QStringLiteral("/a.txt")), secret);
    QCOMPARE(readAll(outside.path() + QStringLiteral("/sample-secret")), secret);
    // Nor anything left in the workspace but what the call wrote.
    const QStringList left = QDir(host.path() + (swapFile ? QStringLiteral("/data") : QStringLiteral("/data.moved")))
                                 .entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
    QCOMPARE(left, call == QLatin1String("upload new") ? (QStringList{"a.txt", "new.txt"}) : (QStringList{"a.txt"}));
}

QTEST_GUILESS_MAIN(TestWorkspaceFiles)
#include "tst_workspacefiles.moc"
