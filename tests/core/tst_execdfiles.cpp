// OpenSandbox's file calls (ExecdFiles) against paddock-fake-opensandbox, whose execd resolves
// paths and symlinks inside the sandbox's view as execd does and runs commands under bubblewrap.
// The sandbox's folders are reached from here too (the fake's data directory), for what another
// process in the sandbox may do between two requests of a call: the client's network access
// manager runs a hook as each request goes out. A listing that loses an entry mid-way is
// execd's 500 (its listDirectoryEntries), from a scripted server. The five calls' contract on
// every backend: tests/conformance.

#include "backends/opensandbox/execdfiles.h"
#include "backends/opensandbox/opensandboxbackend.h"
#include "fakeopensandboxprocess.h"
#include "scriptedhttpserver.h"

#ifndef Q_MOC_RUN
#include <QCoroTask>
#endif

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QNetworkAccessManager>
#include <QTemporaryDir>
#include <QTest>

#include <functional>
#include <memory>

using namespace Paddock;
using namespace Paddock::OpenSandbox;
using namespace PaddockTest;
using namespace std::chrono_literals;

namespace {

QString why(const auto &result)
{
    return result ? QString() : result.error().message;
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

// Runs `beforeRequest` with the request's number (from 1) as each request goes out.
class HookedNetwork final : public QNetworkAccessManager
{
public:
    std::function<void(int)> beforeRequest;
    int requests = 0;

protected:
    QNetworkReply *createRequest(Operation operation, const QNetworkRequest &request, QIODevice *data) override
    {
        ++requests;
        if (beforeRequest)
            beforeRequest(requests);
        return QNetworkAccessManager::createRequest(operation, request, data);
    }
};

// ExecdFiles over a client of its own, on a HookedNetwork.
struct HookedFiles
{
    HookedFiles(const ExecdTarget &target, const WorkspaceLayout &layout)
        : http(&network, RetryPolicy{1, 10ms, 2.0, 10ms})
        , client(std::make_shared<ExecdClient>(&network, &http, target))
        , files(client, layout)
    {
    }
    HookedNetwork network;
    HttpClient http;
    std::shared_ptr<ExecdClient> client;
    ExecdFiles files;
};

WorkspaceLayout sandboxLayout()
{
    return {QStringLiteral("/workspace"), QStringLiteral("/root/.agentscope"), {}, {}};
}

} // namespace

class TestExecdFiles final : public QObject
{
    Q_OBJECT

private:
    FakeOpenSandboxProcess m_server;
    std::unique_ptr<OpenSandboxBackend> m_backend;
    SandboxInfo m_sandbox;
    ExecdTarget m_target;
    QString m_sandboxDir; // on this computer: workspace/, root/, tmp/
    int m_case = 0;
    QString m_case_folder; // data/<n> in the workspace, made by prepare()

    // Where a sandbox path is on this computer.
    QString host(const QString &sandboxPath) const
    {
        for (const char *mount : {"/workspace", "/root", "/tmp"}) {
            const QString root = QLatin1String(mount);
            if (sandboxPath == root || sandboxPath.startsWith(root + u'/'))
                return m_sandboxDir + sandboxPath;
        }
        qFatal("not in the sandbox's own folders");
    }
    QString ws(const QString &relative) const { return host(QStringLiteral("/workspace/") + relative); }

    // A fresh data/<n> with a.txt ("hello world"), and /tmp/<n>/ (outside) with f and
    // only-outside ("secret"). Returns data/<n>.
    QString prepare()
    {
        const QString folder = QStringLiteral("data/%1").arg(++m_case);
        const QString out = host(QStringLiteral("/tmp/%1").arg(m_case));
        if (!QDir().mkpath(ws(folder)) || !QDir().mkpath(out)
            || !writeFile(ws(folder + QStringLiteral("/a.txt")), "hello world")
            || !writeFile(out + QStringLiteral("/f"), "secret")
            || !writeFile(out + QStringLiteral("/only-outside"), "secret"))
            return {};
        return folder;
    }
    QString outside() const { return QStringLiteral("/tmp/%1").arg(m_case); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.error()));
        BackendOptions options;
        options.connection.domain = m_server.domain();
        options.connection.requestTimeout = 10s;
        options.retry = {4, 20ms, 2.0, 200ms};
        options.settleTimeout = 10s;
        m_backend = std::make_unique<OpenSandboxBackend>(options);
        const CreateSpec spec{QStringLiteral("execd-files"), QStringLiteral("user"), QStringLiteral("agent"), {}};
        auto made = QCoro::waitFor(m_backend->create(spec));
        QVERIFY2(made, qPrintable(why(made)));
        m_sandbox = *made;
        auto execd = QCoro::waitFor(m_backend->execd(m_sandbox.sandboxId));
        QVERIFY2(execd, qPrintable(why(execd)));
        m_target = (*execd)->target();
        m_sandboxDir = m_server.info().value(QLatin1String("dataDir")).toString() + u'/' + m_sandbox.sandboxId;
        QVERIFY2(QFileInfo(m_sandboxDir + QStringLiteral("/workspace")).isDir(), qPrintable(m_sandboxDir));
        QVERIFY(QDir().mkpath(ws(QStringLiteral("data"))));
    }

    void cleanupTestCase()
    {
        if (m_backend && !m_sandbox.sandboxId.isEmpty())
            QCoro::waitFor(m_backend->kill(m_sandbox.sandboxId, KillOptions{}));
        m_backend.reset();
    }

    // Defect 1: a newline in what a symlink resolves to is part of that path, never the end of
    // it: data/d leads to the file "x\n/workspace/<folder>/l/f" inside, not (split at the
    // newline) through l, a link to a folder outside.
    void aNewlineInAResolvedPathIsPartOfIt()
    {
        const QString folder = prepare();
        QVERIFY(!folder.isEmpty());
        const QString decoy = QStringLiteral("x\n/workspace/") + folder + QStringLiteral("/l");
        QVERIFY(QDir().mkpath(ws(folder + u'/' + decoy)));
        QVERIFY(writeFile(ws(folder + u'/' + decoy + QStringLiteral("/f")), "inside"));
        QVERIFY(QFile::link(outside(), ws(folder + QStringLiteral("/l"))));
        QVERIFY(QFile::link(decoy + QStringLiteral("/f"), ws(folder + QStringLiteral("/d"))));
        HookedFiles hooked(m_target, sandboxLayout());

        auto read = QCoro::waitFor(hooked.files.readFile(folder + QStringLiteral("/d"), 0, 100));
        QVERIFY2(read, qPrintable(why(read)));
        QCOMPARE(read->data, QByteArray("inside"));
        auto link = QCoro::waitFor(hooked.files.stat(folder + QStringLiteral("/d")));
        QVERIFY2(link, qPrintable(why(link)));
        QCOMPARE(link->kind, FileEntry::Kind::Symlink);
        QCOMPARE(link->linkTarget, decoy + QStringLiteral("/f"));
    }

    // Defect 8: a link target that holds a newline (or ends in one) stays with its own link in a
    // listing; the targets after it stay with theirs.
    void linkTargetsStayWithTheirLinks()
    {
        const QString folder = prepare();
        QVERIFY(!folder.isEmpty());
        QVERIFY(QFile::link(QStringLiteral("x\ny"), ws(folder + QStringLiteral("/a"))));
        QVERIFY(QFile::link(QStringLiteral("plain"), ws(folder + QStringLiteral("/b"))));
        QVERIFY(QFile::link(QStringLiteral("z\n"), ws(folder + QStringLiteral("/c"))));
        QVERIFY(QFile::link(QStringLiteral("a.txt"), ws(folder + QStringLiteral("/d"))));
        HookedFiles hooked(m_target, sandboxLayout());
        auto listed = QCoro::waitFor(hooked.files.listFolder(folder));
        QVERIFY2(listed, qPrintable(why(listed)));
        QStringList targets;
        for (const FileEntry &entry : *listed)
            targets.append(entry.name + QStringLiteral(" -> ") + entry.linkTarget);
        QCOMPARE(targets, (QStringList{"a -> x\ny", "a.txt -> ", "b -> plain", "c -> z\n", "d -> a.txt"}));
    }

    // Defect 2: execd's file API cannot check a path and use it in one request, so the last
    // request before the use checks the path it will use again (every folder on it, from the
    // root down). What another process in the sandbox swaps before any request up to that one
    // (a folder on the path for a symlink to a folder outside) never makes the call read, list
    // or write outside. (A swap between that last check and the use itself is the window left:
    // see the backend's README.)
    void nothingIsSwappedBeforeTheLastCheck_data()
    {
        QTest::addColumn<bool>("throughALink"); // the path goes through a link inside
        QTest::newRow("a plain path") << false;
        QTest::newRow("a path through a link") << true;
    }
    void nothingIsSwappedBeforeTheLastCheck()
    {
        QFETCH(bool, throughALink);
        QTemporaryDir local;
        QVERIFY(local.isValid());
        const QString source = local.filePath(QStringLiteral("source"));
        QVERIFY(writeFile(source, "uploaded"));
        const QString copy = local.filePath(QStringLiteral("copy"));
        QString folder;
        const auto setUp = [&] {
            folder = prepare();
            return !folder.isEmpty() && QDir().mkpath(ws(folder + QStringLiteral("/dir")))
                && writeFile(ws(folder + QStringLiteral("/dir/f")), "inside")
                && QFile::link(QStringLiteral("dir"), ws(folder + QStringLiteral("/link")));
        };
        const auto via = [&]() -> QString {
            return folder + (throughALink ? QStringLiteral("/link") : QStringLiteral("/dir"));
        };
        using Call = std::function<QString(ExecdFiles &)>; // what reached outside, else empty
        const QList<std::pair<const char *, Call>> calls{
            {"readFile",
             [&](ExecdFiles &files) {
                 auto read = QCoro::waitFor(files.readFile(via() + QStringLiteral("/f"), 0, 100));
                 return read && read->data == "secret" ? QStringLiteral("read the file outside") : QString();
             }},
            {"download",
             [&](ExecdFiles &files) {
                 QFile::remove(copy);
                 QCoro::waitFor(files.download(via() + QStringLiteral("/f"), copy));
                 return readAll(copy) == "secret" ? QStringLiteral("downloaded the file outside") : QString();
             }},
            {"listFolder",
             [&](ExecdFiles &files) {
                 auto listed = QCoro::waitFor(files.listFolder(via()));
                 return listed
                         && std::any_of(listed->cbegin(), listed->cend(),
                                        [](const FileEntry &entry) { return entry.name == "only-outside"; })
                     ? QStringLiteral("listed the folder outside")
                     : QString();
             }},
            {"upload",
             [&](ExecdFiles &files) {
                 QCoro::waitFor(files.upload(source, via() + QStringLiteral("/f")));
                 return readAll(host(outside() + QStringLiteral("/f"))) != "secret"
                     ? QStringLiteral("wrote over the file outside")
                     : QString();
             }},
        };
        for (const auto &[name, call] : calls) {
            QVERIFY(setUp());
            HookedFiles quiet(m_target, sandboxLayout());
            QCOMPARE(call(quiet.files), QString());
            const int requests = quiet.network.requests;
            QVERIFY(requests >= 2);
            for (int swapAt = 1; swapAt < requests; ++swapAt) {
                QVERIFY(setUp());
                const QString dir = ws(folder + QStringLiteral("/dir"));
                const QString out = outside();
                bool swapped = false;
                HookedFiles hooked(m_target, sandboxLayout());
                hooked.network.beforeRequest = [&](int request) {
                    if (request == swapAt)
                        swapped = QDir().rename(dir, dir + QStringLiteral(".old")) && QFile::link(out, dir);
                };
                const QString reached = call(hooked.files);
                QVERIFY(swapped);
                QVERIFY2(reached.isEmpty(),
                         qPrintable(QStringLiteral("%1, swapped before request %2 of %3: %4")
                                        .arg(QLatin1String(name))
                                        .arg(swapAt)
                                        .arg(requests)
                                        .arg(reached)));
            }
        }
    }

    // Defect 6: a workdir that is itself a symlink (as an image may have it) works: where a path
    // through a link leads is compared with the roots as the sandbox resolves them too. A link
    // out is still refused.
    void aWorkdirBehindASymlinkWorks()
    {
        const QString folder = prepare();
        QVERIFY(!folder.isEmpty());
        const QString workdir = QStringLiteral("/tmp/%1-workdir").arg(m_case);
        QVERIFY(QFile::link(QStringLiteral("/workspace"), host(workdir)));
        QVERIFY(QFile::link(QStringLiteral("a.txt"), ws(folder + QStringLiteral("/link"))));
        QVERIFY(QFile::link(outside(), ws(folder + QStringLiteral("/out"))));
        WorkspaceLayout layout = sandboxLayout();
        layout.workdir = workdir;
        HookedFiles hooked(m_target, layout);

        auto root = QCoro::waitFor(hooked.files.listFolder(QString()));
        QVERIFY2(root, qPrintable(why(root)));
        QVERIFY(std::any_of(root->cbegin(), root->cend(), [](const FileEntry &entry) { return entry.name == "data"; }));
        auto read = QCoro::waitFor(hooked.files.readFile(folder + QStringLiteral("/link"), 0, 100));
        QVERIFY2(read, qPrintable(why(read)));
        QCOMPARE(read->data, QByteArray("hello world"));
        auto statted = QCoro::waitFor(hooked.files.stat(folder + QStringLiteral("/link")));
        QVERIFY2(statted, qPrintable(why(statted)));
        QCOMPARE(statted->linkTarget, QStringLiteral("a.txt"));
        QTemporaryDir local;
        const QString source = local.filePath(QStringLiteral("source"));
        QVERIFY(writeFile(source, "new"));
        auto uploaded = QCoro::waitFor(hooked.files.upload(source, folder + QStringLiteral("/link")));
        QVERIFY2(uploaded, qPrintable(why(uploaded)));
        QCOMPARE(readAll(ws(folder + QStringLiteral("/a.txt"))), QByteArray("new"));

        auto out = QCoro::waitFor(hooked.files.readFile(folder + QStringLiteral("/out/f"), 0, 100));
        QVERIFY2(!out, "a link out was followed");
        QCOMPARE(out.error().kind, Error::Kind::InvalidArgument);
    }

    // Defect 9: roots written with a trailing slash or a dot are the same roots.
    void uncleanRootsAreTheSameRoots()
    {
        const QString folder = prepare();
        QVERIFY(!folder.isEmpty());
        QVERIFY(QFile::link(QStringLiteral("a.txt"), ws(folder + QStringLiteral("/link"))));
        const WorkspaceLayout layout{QStringLiteral("/workspace/./"), QStringLiteral("/root/.agentscope/"), {}, {}};
        HookedFiles hooked(m_target, layout);
        auto read = QCoro::waitFor(hooked.files.readFile(folder + QStringLiteral("/a.txt"), 0, 5));
        QVERIFY2(read, qPrintable(why(read)));
        QCOMPARE(read->data, QByteArray("hello"));
        auto through = QCoro::waitFor(hooked.files.readFile(folder + QStringLiteral("/link"), 6, 5));
        QVERIFY2(through, qPrintable(why(through)));
        QCOMPARE(through->data, QByteArray("world"));
        auto listed = QCoro::waitFor(hooked.files.listFolder(folder));
        QVERIFY2(listed, qPrintable(why(listed)));
        QCOMPARE(listed->size(), 2);
        QTemporaryDir local;
        const QString source = local.filePath(QStringLiteral("source"));
        QVERIFY(writeFile(source, "new"));
        for (const QString &root : QStringList{QString(), QStringLiteral("/root/.agentscope")}) {
            auto onto = QCoro::waitFor(hooked.files.upload(source, root));
            QVERIFY2(!onto, qPrintable(root));
            QCOMPARE(onto.error().kind, Error::Kind::InvalidArgument);
        }
    }

    // Defect 7: a link removed while its folder is listed (before its target is read) is left
    // out; the rest is listed.
    void aLinkThatVanishesMidListingIsLeftOut()
    {
        const QString folder = prepare();
        QVERIFY(!folder.isEmpty());
        QVERIFY(QFile::link(QStringLiteral("a.txt"), ws(folder + QStringLiteral("/gone"))));
        QVERIFY(QFile::link(QStringLiteral("a.txt"), ws(folder + QStringLiteral("/kept"))));
        const QString gone = ws(folder + QStringLiteral("/gone"));
        // The requests of the call on a quiet run: the last one reads the links' targets.
        HookedFiles quiet(m_target, sandboxLayout());
        auto first = QCoro::waitFor(quiet.files.listFolder(folder));
        QVERIFY2(first, qPrintable(why(first)));
        QCOMPARE(first->size(), 3);
        const int readsTargets = quiet.network.requests;
        HookedFiles hooked(m_target, sandboxLayout());
        hooked.network.beforeRequest = [&](int request) {
            if (request == readsTargets)
                QFile::remove(gone);
        };
        auto listed = QCoro::waitFor(hooked.files.listFolder(folder));
        QVERIFY2(listed, qPrintable(why(listed)));
        QVERIFY(!QFileInfo::exists(gone) && !QFileInfo(gone).isSymLink());
        QStringList names;
        for (const FileEntry &entry : *listed)
            names.append(entry.name + QStringLiteral(" -> ") + entry.linkTarget);
        QCOMPARE(names, (QStringList{"a.txt -> ", "kept -> a.txt"}));
    }

    // Defect 7, execd's side: execd answers a listing with a 500 when an entry vanishes between
    // its readdir and its lstat (listDirectoryEntries returns the error); the listing is asked
    // for again (the folder checked again first), and a folder gone by then is NotFound.
    void aListingThatLostAnEntryIsAskedForAgain()
    {
        ScriptedHttpServer server;
        QNetworkAccessManager network;
        HttpClient http(&network, RetryPolicy{1, 10ms, 2.0, 10ms});
        auto client = std::make_shared<ExecdClient>(
            &network, &http,
            ExecdTarget::fromEndpoint(Endpoint{QStringLiteral("127.0.0.1:%1").arg(server.serverPort()), {}},
                                      QStringLiteral("http")));
        ExecdFiles files(client, sandboxLayout());
        const QByteArray folderInfo =
            "{\"/workspace/data\":{\"path\":\"/workspace/data\",\"type\":\"directory\",\"size\":4096,"
            "\"modified_at\":\"2025-06-01T10:00:00Z\",\"mode\":755}}";
        const QByteArray lost = "{\"code\":\"RUNTIME_ERROR\",\"message\":\"error listing directory /workspace/data. "
                                "lstat /workspace/data/b.txt: no such file or directory\"}";
        const QByteArray entries = "[{\"path\":\"/workspace/data/a.txt\",\"type\":\"file\",\"size\":3,"
                                   "\"modified_at\":\"2025-06-01T10:00:00Z\",\"mode\":644}]";
        // The folder, a listing that lost an entry, the folder checked again, the listing.
        server.script.enqueue(ScriptedHttpServer::response(200, folderInfo));
        server.script.enqueue(ScriptedHttpServer::response(500, lost));
        server.script.enqueue(ScriptedHttpServer::response(200, folderInfo));
        server.script.enqueue(ScriptedHttpServer::response(200, entries));
        auto listed = QCoro::waitFor(files.listFolder(QStringLiteral("data")));
        QVERIFY2(listed, qPrintable(why(listed)));
        QCOMPARE(listed->size(), 1);
        QCOMPARE(listed->first().name, QStringLiteral("a.txt"));
        QCOMPARE(server.requests.size(), 4);

        const QByteArray missing = "{\"code\":\"FILE_NOT_FOUND\",\"message\":\"file not found. lstat /workspace/data: "
                                   "no such file or directory\"}";
        server.script.enqueue(ScriptedHttpServer::response(200, folderInfo));
        server.script.enqueue(ScriptedHttpServer::response(500, lost));
        server.script.enqueue(ScriptedHttpServer::response(200, folderInfo));
        server.script.enqueue(ScriptedHttpServer::response(404, missing));
        auto gone = QCoro::waitFor(files.listFolder(QStringLiteral("data")));
        QVERIFY(!gone);
        QCOMPARE(gone.error().kind, Error::Kind::NotFound);
    }
};

QTEST_GUILESS_MAIN(TestExecdFiles)
#include "tst_execdfiles.moc"
