// SKILL.md front matter and the skills/ layout (src/core/inspect/skills.h) on the AgentScope
// workspace fixtures (tests/data/agentscope-workspace) and on hand-made input.
#include "inspect/skills.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTest>

using namespace Paddock::Inspect;

namespace {

const QString Fixtures = QStringLiteral(AGENTSCOPE_FIXTURES);

QByteArray fixture(const QString &relative)
{
    QFile file(Fixtures + QLatin1Char('/') + relative);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read fixture %s", qPrintable(relative));
    return file.readAll();
}

// A recursive listing of a fixture's skills/ folder, as a backend's listing would give it.
QStringList listing(const QString &skillsDir)
{
    const QDir root(Fixtures + QLatin1Char('/') + skillsDir);
    QStringList paths;
    QDirIterator it(root.path(), QDir::Files | QDir::Dirs | QDir::Hidden | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        const QString relative = root.relativeFilePath(it.filePath());
        paths.append(it.fileInfo().isDir() ? relative + QLatin1Char('/') : relative);
    }
    paths.sort();
    return paths;
}

const SkillPartition *partition(const SkillsLayout &layout, const QString &name)
{
    for (const SkillPartition &p : layout.partitions) {
        if (p.name == name)
            return &p;
    }
    return nullptr;
}

SkillPath::Kind kindOf(const SkillsLayout &layout, const QString &path)
{
    for (const SkillPath &p : layout.paths) {
        if (p.path == path)
            return p.kind;
    }
    qFatal("no path %s", qPrintable(path));
}

} // namespace

class TestSkillReader : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void seedSkillWithExtraKeys()
    {
        const SkillFile skill =
            parseSkillFile(fixture(QStringLiteral("sandbox/workspace/skills/.seed/pdf-tools/SKILL.md")));
        QVERIFY(skill.loaded());
        QVERIFY(skill.hasFrontMatter);
        QCOMPARE(skill.name, QStringLiteral("pdf-tools"));
        QVERIFY(skill.description.startsWith(QStringLiteral("Extract text and tables")));
        QCOMPARE(skill.otherKeys.size(), 2);
        QCOMPARE(skill.otherKeys.at(0).first, QStringLiteral("license"));
        QCOMPARE(skill.otherKeys.at(0).second, QStringLiteral("Apache-2.0"));
        QCOMPARE(skill.otherKeys.at(1).first, QStringLiteral("metadata"));
        QVERIFY(skill.otherKeys.at(1).second.contains(QStringLiteral("version")));
        QVERIFY(skill.otherKeys.at(1).second.contains(QStringLiteral("1.2")));
        QVERIFY(skill.body.startsWith(QStringLiteral("\n# PDF tools"))
                || skill.body.startsWith(QStringLiteral("# PDF")));
        QVERIFY(skill.ignoredReason.isEmpty());
    }

    void everyFixtureSkill_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("ignored");
        QTest::addColumn<QString>("name");
        using I = SkillFile::Ignored;
        QTest::newRow("sandbox seed") << "sandbox/workspace/skills/.seed/pdf-tools/SKILL.md" << int(I::No)
                                      << "pdf-tools";
        QTest::newRow("csv-audit") << "sandbox/workspace/skills/agent-1/csv-audit/SKILL.md" << int(I::No)
                                   << "csv-audit";
        QTest::newRow("agent-1 pdf") << "sandbox/workspace/skills/agent-1/pdf-tools/SKILL.md" << int(I::No)
                                     << "pdf-tools";
        QTest::newRow("agent-2 pdf") << "sandbox/workspace/skills/agent-2/pdf-tools/SKILL.md" << int(I::No)
                                     << "pdf-tools";
        QTest::newRow("local seed") << "local/skills/.seed/pdf-tools/SKILL.md" << int(I::No) << "pdf-tools";
        QTest::newRow("release-notes") << "local/skills/agent-1/release-notes/SKILL.md" << int(I::No)
                                       << "release-notes";
        QTest::newRow("legacy") << "legacy-2.0.6/skills/pdf-tools/SKILL.md" << int(I::No) << "pdf-tools";
        QTest::newRow("missing description")
            << "broken/skill-missing-description/SKILL.md" << int(I::MissingDescription) << "half-done";
        QTest::newRow("bad front matter")
            << "broken/skill-bad-front-matter/SKILL.md" << int(I::InvalidFrontMatter) << "";
    }
    void everyFixtureSkill()
    {
        QFETCH(QString, path);
        QFETCH(int, ignored);
        QFETCH(QString, name);
        const SkillFile skill = parseSkillFile(fixture(path));
        QCOMPARE(int(skill.ignored), ignored);
        QCOMPARE(skill.name, name);
        QCOMPARE(skill.ignoredReason.isEmpty(), ignored == int(SkillFile::Ignored::No));
        QCOMPARE(skill.toJson().value(QStringLiteral("loaded")).toBool(), skill.loaded());
    }

    void handMadeFrontMatter_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("ignored");
        using I = SkillFile::Ignored;
        QTest::newRow("no front matter") << QByteArray("# Just markdown\n") << int(I::NoFrontMatter);
        QTest::newRow("not at start") << QByteArray("\n---\nname: a\ndescription: b\n---\n") << int(I::NoFrontMatter);
        QTest::newRow("unclosed") << QByteArray("---\nname: a\ndescription: b\n") << int(I::NoFrontMatter);
        QTest::newRow("empty") << QByteArray("---\n---\nbody\n") << int(I::MissingName);
        QTest::newRow("list") << QByteArray("---\n- a\n- b\n---\n") << int(I::InvalidFrontMatter);
        QTest::newRow("no name") << QByteArray("---\ndescription: d\n---\n") << int(I::MissingName);
        QTest::newRow("null name") << QByteArray("---\nname: ~\ndescription: d\n---\n") << int(I::MissingName);
        QTest::newRow("crlf") << QByteArray("---\r\nname: a\r\ndescription: b\r\n---\r\nbody\r\n") << int(I::No);
        QTest::newRow("bom") << QByteArray("\xEF\xBB\xBF---\nname: a\ndescription: b\n---\n") << int(I::No);
        QTest::newRow("long fence") << QByteArray("----\nname: a\ndescription: b\n----\n") << int(I::No);
        QTest::newRow("unicode") << QByteArray("---\nname: 报表\ndescription: 生成报表\n---\n") << int(I::No);
        QTest::newRow("not utf-8") << QByteArray("---\nname: a\xff\ndescription: b\n---\n") << int(I::No);
    }
    void handMadeFrontMatter()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(int, ignored);
        const SkillFile skill = parseSkillFile(bytes);
        QCOMPARE(int(skill.ignored), ignored);
        if (skill.loaded())
            QVERIFY(!skill.name.isEmpty() && !skill.description.isEmpty());
    }

    void localIndexAgainstDisk()
    {
        const SkillIndex index = parseSkillIndex(fixture(QStringLiteral("local/skills/agent-1/.index")));
        QVERIFY(index.valid);
        QCOMPARE(index.dirMtime, 1787291148.0731645);
        QCOMPARE(index.skills.size(), 2);
        QCOMPARE(index.skills.at(1).dir, QStringLiteral("release-notes"));
        QCOMPARE(index.skills.at(1).skillName, QStringLiteral("release-notes"));
        QHash<QString, QString> disk;
        for (const QString &dir : {QStringLiteral("pdf-tools"), QStringLiteral("release-notes")})
            disk.insert(
                dir,
                skillFileHash(fixture(QStringLiteral("local/skills/agent-1/") + dir + QStringLiteral("/SKILL.md"))));
        QVERIFY(compareSkillIndex(index, disk).matches());

        disk.insert(QStringLiteral("release-notes"), skillFileHash("edited"));
        disk.insert(QStringLiteral("new-one"), skillFileHash("x"));
        disk.remove(QStringLiteral("pdf-tools"));
        const SkillIndexDiff diff = compareSkillIndex(index, disk);
        QCOMPARE(diff.changed, QStringList{"release-notes"});
        QCOMPARE(diff.onlyOnDisk, QStringList{"new-one"});
        QCOMPARE(diff.onlyInIndex, QStringList{"pdf-tools"});

        const SkillIndex legacy = parseSkillIndex(fixture(QStringLiteral("legacy-2.0.6/skills/.skills")));
        QVERIFY(legacy.valid);
        QCOMPARE(legacy.skills.size(), 1);
        QCOMPARE(legacy.skills.at(0).hash,
                 skillFileHash(fixture(QStringLiteral("legacy-2.0.6/skills/pdf-tools/SKILL.md"))));

        QVERIFY(!parseSkillIndex("{\"skills_dir_mtime\": 1, \"ski").valid);
        QVERIFY(!parseSkillIndex("{\"skills_dir_mtime\": 1, \"skills\": []}").valid);
        QVERIFY(!parseSkillIndex("{\"skills_dir_mtime\": 1, \"ski").error.isEmpty());
    }

    void sandboxPartitions()
    {
        const SkillsLayout layout = classifySkillPaths(listing(QStringLiteral("sandbox/workspace/skills")));
        QCOMPARE(layout.kind, SkillsLayout::Kind::Partitioned);
        QCOMPARE(layout.partitions.size(), 3);
        QCOMPARE(layout.partitions.at(0).name, QStringLiteral(".seed"));
        QVERIFY(layout.partitions.at(0).seed);
        QCOMPARE(layout.partitions.at(0).skillDirs, QStringList{"pdf-tools"});
        QCOMPARE(partition(layout, QStringLiteral("agent-1"))->skillDirs, QStringList({"csv-audit", "pdf-tools"}));
        QCOMPARE(partition(layout, QStringLiteral("agent-2"))->skillDirs, QStringList{"pdf-tools"});
        QVERIFY(partition(layout, QStringLiteral("agent-1"))->indexFile.isEmpty());
        QCOMPARE(kindOf(layout, QStringLiteral("agent-1/csv-audit/reference.md")), SkillPath::Kind::SkillAsset);
        QCOMPARE(kindOf(layout, QStringLiteral("agent-1/csv-audit/SKILL.md")), SkillPath::Kind::SkillFile);
        QCOMPARE(kindOf(layout, QStringLiteral("agent-1/")), SkillPath::Kind::Directory);
    }

    void localIndexes()
    {
        const SkillsLayout layout = classifySkillPaths(listing(QStringLiteral("local/skills")));
        QCOMPARE(layout.kind, SkillsLayout::Kind::Partitioned);
        QCOMPARE(partition(layout, QStringLiteral(".seed"))->indexFile, QStringLiteral(".index"));
        QCOMPARE(partition(layout, QStringLiteral("agent-1"))->indexFile, QStringLiteral(".index"));
        QCOMPARE(partition(layout, QStringLiteral("agent-1"))->skillDirs, QStringList({"pdf-tools", "release-notes"}));
        QCOMPARE(kindOf(layout, QStringLiteral("agent-1/.index")), SkillPath::Kind::Index);
    }

    void legacyFlat()
    {
        const SkillsLayout layout = classifySkillPaths(listing(QStringLiteral("legacy-2.0.6/skills")));
        QCOMPARE(layout.kind, SkillsLayout::Kind::Flat);
        QCOMPARE(layout.partitions.size(), 1);
        QCOMPARE(layout.partitions.at(0).name, QString());
        QCOMPARE(layout.partitions.at(0).indexFile, QStringLiteral(".skills"));
        QCOMPARE(layout.partitions.at(0).skillDirs, QStringList{"pdf-tools"});
        QCOMPARE(kindOf(layout, QStringLiteral(".skills")), SkillPath::Kind::Index);
    }

    void handMadeLayouts()
    {
        const SkillsLayout layout = classifySkillPaths({
            ".seed/a/SKILL.md",
            "agent-1/x/sub/SKILL.md",
            "agent-1/x/notes.md",
            "agent-1/notes.txt",
            "agent-1/a/SKILL.md",
            "agent-1/a/deep/SKILL.md",
            "agent-3.equipping-4242/a/SKILL.md",
            "agent-4/",
            "old/SKILL.md",
        });
        QCOMPARE(layout.kind, SkillsLayout::Kind::Mixed);
        QCOMPARE(kindOf(layout, QStringLiteral("agent-1/x/sub/SKILL.md")), SkillPath::Kind::NestedSkillFile);
        QCOMPARE(kindOf(layout, QStringLiteral("agent-1/a/deep/SKILL.md")), SkillPath::Kind::NestedSkillFile);
        QCOMPARE(kindOf(layout, QStringLiteral("agent-1/notes.txt")), SkillPath::Kind::Stray);
        QCOMPARE(kindOf(layout, QStringLiteral("agent-3.equipping-4242/a/SKILL.md")), SkillPath::Kind::Transient);
        QCOMPARE(kindOf(layout, QStringLiteral("old/SKILL.md")), SkillPath::Kind::SkillFile);
        const SkillPartition *agent1 = partition(layout, QStringLiteral("agent-1"));
        QCOMPARE(agent1->skillDirs, QStringList{"a"});
        QCOMPARE(agent1->dirsWithoutSkillFile, QStringList{"x"});
        QVERIFY(partition(layout, QStringLiteral("agent-4")));
        QVERIFY(partition(layout, QStringLiteral("agent-4"))->skillDirs.isEmpty());
        QVERIFY(partition(layout, QStringLiteral("agent-3.equipping-4242"))->transient);
        QCOMPARE(layout.partitions.first().name, QStringLiteral(".seed"));
        QCOMPARE(layout.partitions.last().name, QStringLiteral("agent-3.equipping-4242"));
        QCOMPARE(partition(layout, QString())->skillDirs, QStringList{"old"});

        QCOMPARE(classifySkillPaths({}).kind, SkillsLayout::Kind::Empty);
        QCOMPARE(classifySkillPaths({"default/s/SKILL.md"}).kind, SkillsLayout::Kind::Partitioned);
    }
};

QTEST_GUILESS_MAIN(TestSkillReader)
#include "tst_skillreader.moc"
