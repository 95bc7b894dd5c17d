#pragma once

#include <QByteArrayView>
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

namespace Paddock::Inspect {

// A SKILL.md as AgentScope reads it: YAML front matter between "---" lines (python-frontmatter),
// of which only name and description count (both required); other keys are ignored by AgentScope.
struct SkillFile
{
    enum class Ignored {
        No,
        NoFrontMatter,
        InvalidFrontMatter,
        MissingName,
        MissingDescription,
    };

    bool hasFrontMatter = false;
    QString name;
    QString description;
    // Every other top-level key with its value as compact text (YAML flow style), in file order.
    QList<QPair<QString, QString>> otherKeys;
    QString body; // the markdown after the front matter
    Ignored ignored = Ignored::No;
    QString ignoredReason; // translated; empty when AgentScope loads it
    int errorLine = -1; // InvalidFrontMatter: 1-based line in the file, when the parser says

    bool loaded() const { return ignored == Ignored::No; }
    QJsonObject toJson() const; // without the body
};

SkillFile parseSkillFile(QByteArrayView bytes);

// A partition's hash index (LocalWorkspace only: skills/<partition>/.index; v2.0.6 and earlier
// skills/.skills): {"skills_dir_mtime": <epoch>, "skills": {"<dir>": {"hash", "skill_name"}}}.
// AgentScope treats an unreadable index as empty and rewrites it.
struct SkillIndex
{
    struct Entry
    {
        QString dir;
        QString hash; // sha256 hex of the SKILL.md bytes
        QString skillName; // the agent-facing name (" (1)" suffixes on clashes)
    };
    bool valid = false;
    QString error; // translated, when not valid; never the file's text
    double dirMtime = 0;
    QList<Entry> skills; // sorted by dir
};
SkillIndex parseSkillIndex(QByteArrayView bytes);

// The hash AgentScope's index records for a SKILL.md.
QString skillFileHash(QByteArrayView skillFile);

// The index against the directory: skill dirs on disk (dir -> skillFileHash of its SKILL.md).
struct SkillIndexDiff
{
    QStringList onlyInIndex; // listed, but no such skill directory now
    QStringList onlyOnDisk; // a skill directory the index does not list
    QStringList changed; // SKILL.md differs from the recorded hash
    bool matches() const { return onlyInIndex.isEmpty() && onlyOnDisk.isEmpty() && changed.isEmpty(); }
};
SkillIndexDiff compareSkillIndex(const SkillIndex &index, const QHash<QString, QString> &diskHashes);

// What one path under skills/ is, in the layouts of reference §7: main's skills/.seed/ plus
// skills/<agent_id>/ partitions, or v2.0.6's flat skills/<dir>/.
struct SkillPath
{
    enum class Kind {
        SkillFile, // <partition>/<dir>/SKILL.md (flat: <dir>/SKILL.md): a skill AgentScope reads
        NestedSkillFile, // a SKILL.md deeper inside a skill: not a second skill
        SkillAsset, // any other file inside a skill directory
        Index, // .index (main, Local only) or .skills (v2.0.6 and earlier)
        Stray, // a file directly in skills/ or in a partition that is not an index
        Transient, // inside <agent_id>.equipping-<pid>/ (a partition being copied from .seed)
        Directory, // a directory entry (ending in '/') of the listing
    };
    QString path; // as given, relative to skills/
    Kind kind = Kind::Stray;
    QString partition; // ".seed", an agent id, a "<id>.equipping-<pid>" name; "" in the flat layout
    QString skillDir; // the skill's directory name; empty for Index/Stray outside a skill
};

struct SkillPartition
{
    QString name; // ".seed", an agent id (the "default" partition when no agent id), or "" (flat)
    bool seed = false;
    bool transient = false; // <agent_id>.equipping-<pid>
    QString indexFile; // ".index", ".skills" or empty
    QStringList skillDirs; // directories holding a SKILL.md, sorted
    QStringList dirsWithoutSkillFile; // directories with files but no SKILL.md (AgentScope ignores them)
};

struct SkillsLayout
{
    enum class Kind {
        Empty,
        Partitioned, // main after v2.0.6
        Flat, // v2.0.6 and earlier
        Mixed, // both at once (the migration shim has not run yet, or was interrupted)
    };
    Kind kind = Kind::Empty;
    QList<SkillPartition> partitions; // .seed first, then agents sorted, then transient ones
    QList<SkillPath> paths; // every input path, classified, in input order
    QJsonObject toJson() const;
};

// paths: files (and, optionally, directories ending in '/') relative to skills/, '/'-separated,
// as a recursive listing gives them. Nothing is read.
SkillsLayout classifySkillPaths(const QStringList &paths);

} // namespace Paddock::Inspect
