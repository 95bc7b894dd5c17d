#include "skills.h"

#include "../tr.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMap>
#include <QRegularExpression>
#include <QSet>

#include <yaml-cpp/yaml.h>

#include <string>

namespace Paddock::Inspect {

namespace {

QString fromStd(const std::string &text)
{
    return QString::fromUtf8(text.data(), qsizetype(text.size()));
}

QString nodeText(const YAML::Node &node)
{
    if (node.IsScalar())
        return fromStd(node.Scalar());
    if (node.IsNull())
        return QString();
    YAML::Emitter emitter;
    emitter << YAML::Flow << node;
    return QString::fromUtf8(emitter.c_str(), qsizetype(emitter.size()));
}

QString ignoredName(SkillFile::Ignored ignored)
{
    switch (ignored) {
    case SkillFile::Ignored::No:
        return QStringLiteral("no");
    case SkillFile::Ignored::NoFrontMatter:
        return QStringLiteral("no-front-matter");
    case SkillFile::Ignored::InvalidFrontMatter:
        return QStringLiteral("invalid-front-matter");
    case SkillFile::Ignored::MissingName:
        return QStringLiteral("missing-name");
    case SkillFile::Ignored::MissingDescription:
        return QStringLiteral("missing-description");
    }
    return QString();
}

} // namespace

QJsonObject SkillFile::toJson() const
{
    QJsonObject other;
    QJsonArray otherOrder;
    for (const auto &[key, value] : otherKeys) {
        other.insert(key, value);
        otherOrder.append(key);
    }
    return QJsonObject{
        {QStringLiteral("hasFrontMatter"), hasFrontMatter},
        {QStringLiteral("name"), name},
        {QStringLiteral("description"), description},
        {QStringLiteral("otherKeys"), otherOrder},
        {QStringLiteral("otherValues"), other},
        {QStringLiteral("loaded"), loaded()},
        {QStringLiteral("ignored"), ignoredName(ignored)},
        {QStringLiteral("ignoredReason"), ignoredReason},
    };
}

SkillFile parseSkillFile(QByteArrayView bytes)
{
    SkillFile skill;
    QString text = QString::fromUtf8(bytes);
    if (text.startsWith(QChar(0xFEFF)))
        text.remove(0, 1);
    static thread_local const QRegularExpression boundary(QStringLiteral("^-{3,}[ \\t]*\\r?$"),
                                                          QRegularExpression::MultilineOption);
    const QRegularExpressionMatch open = boundary.match(text);
    if (!open.hasMatch() || open.capturedStart() != 0) {
        skill.body = text;
        skill.ignored = SkillFile::Ignored::NoFrontMatter;
        skill.ignoredReason = Tr::tr("AgentScope ignores this skill: SKILL.md has no front matter (it must start "
                                     "with a \"---\" line)");
        return skill;
    }
    const QRegularExpressionMatch close = boundary.match(text, open.capturedEnd());
    if (!close.hasMatch()) {
        skill.body = text;
        skill.ignored = SkillFile::Ignored::NoFrontMatter;
        skill.ignoredReason = Tr::tr("AgentScope ignores this skill: the front matter is not closed by a \"---\" line");
        return skill;
    }
    skill.hasFrontMatter = true;
    const QString frontMatter = text.mid(open.capturedEnd(), close.capturedStart() - open.capturedEnd());
    skill.body = text.mid(close.capturedEnd());
    if (skill.body.startsWith(QLatin1Char('\n')))
        skill.body.remove(0, 1);

    YAML::Node root;
    try {
        root = YAML::Load(frontMatter.toStdString());
    } catch (const YAML::Exception &error) {
        skill.ignored = SkillFile::Ignored::InvalidFrontMatter;
        // The front matter starts on the file's second line; the mark's line counts from 0 after
        // the opening "---" (which leaves a leading newline in frontMatter).
        skill.errorLine = error.mark.line >= 0 ? error.mark.line + 1 : -1;
        skill.ignoredReason =
            Tr::tr("AgentScope ignores this skill: its front matter is not valid YAML (%1)").arg(fromStd(error.msg));
        return skill;
    }
    if (root.IsNull() || !root.IsDefined()) {
        root = YAML::Node(YAML::NodeType::Map);
    } else if (!root.IsMap()) {
        skill.ignored = SkillFile::Ignored::InvalidFrontMatter;
        skill.ignoredReason = Tr::tr("AgentScope ignores this skill: its front matter is not a mapping of keys");
        return skill;
    }
    try {
        for (const auto &item : root) {
            const QString key = nodeText(item.first);
            if (key == QLatin1String("name"))
                skill.name = item.second.IsScalar() ? nodeText(item.second).trimmed() : QString();
            else if (key == QLatin1String("description"))
                skill.description = item.second.IsScalar() ? nodeText(item.second).trimmed() : QString();
            else
                skill.otherKeys.append({key, nodeText(item.second)});
        }
    } catch (const YAML::Exception &error) {
        skill.ignored = SkillFile::Ignored::InvalidFrontMatter;
        skill.ignoredReason =
            Tr::tr("AgentScope ignores this skill: its front matter is not valid YAML (%1)").arg(fromStd(error.msg));
        return skill;
    }
    if (skill.name.isEmpty()) {
        skill.ignored = SkillFile::Ignored::MissingName;
        skill.ignoredReason = Tr::tr("AgentScope ignores this skill: its front matter has no name");
    } else if (skill.description.isEmpty()) {
        skill.ignored = SkillFile::Ignored::MissingDescription;
        skill.ignoredReason = Tr::tr("AgentScope ignores this skill: its front matter has no description");
    }
    return skill;
}

SkillIndex parseSkillIndex(QByteArrayView bytes)
{
    SkillIndex index;
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(bytes.toByteArray(), &error);
    if (error.error != QJsonParseError::NoError) {
        index.error = Tr::tr("The skill index (%n byte(s)) is not valid JSON; AgentScope treats it as empty and "
                             "rewrites it.",
                             nullptr, int(qMin<qsizetype>(bytes.size(), INT_MAX)));
        return index;
    }
    const QJsonObject root = document.object();
    if (!document.isObject() || !root.value(QStringLiteral("skills")).isObject()) {
        index.error =
            Tr::tr("The skill index has no \"skills\" object; AgentScope treats it as empty and rewrites it.");
        return index;
    }
    index.valid = true;
    index.dirMtime = root.value(QStringLiteral("skills_dir_mtime")).toDouble();
    // Sorted by directory name (QJsonObject sorts its keys), which is how a listing shows them.
    const QJsonObject skills = root.value(QStringLiteral("skills")).toObject();
    for (auto it = skills.constBegin(); it != skills.constEnd(); ++it) {
        const QJsonObject entry = it.value().toObject();
        index.skills.append({it.key(), entry.value(QStringLiteral("hash")).toString(),
                             entry.value(QStringLiteral("skill_name")).toString()});
    }
    return index;
}

QString skillFileHash(QByteArrayView skillFile)
{
    return QString::fromLatin1(QCryptographicHash::hash(skillFile, QCryptographicHash::Sha256).toHex());
}

SkillIndexDiff compareSkillIndex(const SkillIndex &index, const QHash<QString, QString> &diskHashes)
{
    SkillIndexDiff diff;
    QSet<QString> listed;
    for (const SkillIndex::Entry &entry : index.skills) {
        listed.insert(entry.dir);
        const auto disk = diskHashes.constFind(entry.dir);
        if (disk == diskHashes.constEnd())
            diff.onlyInIndex.append(entry.dir);
        else if (disk->compare(entry.hash, Qt::CaseInsensitive) != 0)
            diff.changed.append(entry.dir);
    }
    for (auto it = diskHashes.constBegin(); it != diskHashes.constEnd(); ++it) {
        if (!listed.contains(it.key()))
            diff.onlyOnDisk.append(it.key());
    }
    diff.onlyInIndex.sort();
    diff.onlyOnDisk.sort();
    diff.changed.sort();
    return diff;
}

namespace {

const QLatin1String SkillFileName("SKILL.md");
const QLatin1String SeedName(".seed");

bool isTransientPartition(const QString &name)
{
    return name.contains(QLatin1String(".equipping-"));
}

QString kindName(SkillPath::Kind kind)
{
    switch (kind) {
    case SkillPath::Kind::SkillFile:
        return QStringLiteral("skill");
    case SkillPath::Kind::NestedSkillFile:
        return QStringLiteral("nested-skill-file");
    case SkillPath::Kind::SkillAsset:
        return QStringLiteral("skill-asset");
    case SkillPath::Kind::Index:
        return QStringLiteral("index");
    case SkillPath::Kind::Stray:
        return QStringLiteral("stray");
    case SkillPath::Kind::Transient:
        return QStringLiteral("transient");
    case SkillPath::Kind::Directory:
        return QStringLiteral("directory");
    }
    return QString();
}

} // namespace

SkillsLayout classifySkillPaths(const QStringList &input)
{
    struct Item
    {
        QString path;
        QStringList segments;
        bool directory = false;
    };
    QList<Item> items;
    items.reserve(input.size());
    QSet<QString> flatSkills; // top-level dirs holding SKILL.md directly
    bool flatEvidence = false;
    bool partitionedEvidence = false;
    for (const QString &path : input) {
        Item item;
        item.path = path;
        QString clean = path;
        while (clean.startsWith(QLatin1String("./")))
            clean.remove(0, 2);
        item.directory = clean.endsWith(QLatin1Char('/'));
        item.segments = clean.split(QLatin1Char('/'), Qt::SkipEmptyParts);
        item.segments.removeAll(QStringLiteral("."));
        const QStringList &s = item.segments;
        if (!item.directory && s.size() == 2 && s.at(1) == SkillFileName && !s.at(0).startsWith(QLatin1Char('.'))
            && !isTransientPartition(s.at(0))) {
            flatSkills.insert(s.at(0));
            flatEvidence = true;
        }
        if (!item.directory && s.size() == 1 && s.at(0) == QLatin1String(".skills"))
            flatEvidence = true;
        if (!s.isEmpty() && s.at(0) == SeedName)
            partitionedEvidence = true;
        items.append(item);
    }
    for (const Item &item : std::as_const(items)) {
        const QStringList &s = item.segments;
        if (!item.directory && s.size() == 3 && s.at(2) == SkillFileName && !flatSkills.contains(s.at(0)))
            partitionedEvidence = true;
    }

    SkillsLayout layout;
    if (flatEvidence && partitionedEvidence)
        layout.kind = SkillsLayout::Kind::Mixed;
    else if (flatEvidence)
        layout.kind = SkillsLayout::Kind::Flat;
    else if (partitionedEvidence || !items.isEmpty())
        layout.kind = items.isEmpty() ? SkillsLayout::Kind::Empty : SkillsLayout::Kind::Partitioned;
    const bool flatOnly = layout.kind == SkillsLayout::Kind::Flat;

    QMap<QString, SkillPartition> partitions;
    QMap<QString, QSet<QString>> dirsWithFiles; // partition -> skill dirs that have any file
    auto partitionNamed = [&](const QString &name) -> SkillPartition & {
        auto it = partitions.find(name);
        if (it == partitions.end()) {
            SkillPartition partition;
            partition.name = name;
            partition.seed = name == SeedName;
            partition.transient = isTransientPartition(name);
            it = partitions.insert(name, partition);
        }
        return *it;
    };
    auto addSkillDir = [&](const QString &partition, const QString &dir) {
        QStringList &dirs = partitionNamed(partition).skillDirs;
        if (!dirs.contains(dir))
            dirs.append(dir);
    };

    for (const Item &item : std::as_const(items)) {
        SkillPath path;
        path.path = item.path;
        const QStringList &s = item.segments;
        if (s.isEmpty()) {
            path.kind = SkillPath::Kind::Directory;
            layout.paths.append(path);
            continue;
        }
        const QString &top = s.at(0);
        const bool topIsFlatSkill = top != SeedName && !isTransientPartition(top)
            && (flatSkills.contains(top) || (flatOnly && !top.startsWith(QLatin1Char('.'))));
        if (s.size() == 1 && !item.directory) {
            path.kind = top == QLatin1String(".skills") || top == QLatin1String(".index") ? SkillPath::Kind::Index
                                                                                          : SkillPath::Kind::Stray;
            if (path.kind == SkillPath::Kind::Index && (flatOnly || layout.kind == SkillsLayout::Kind::Mixed))
                partitionNamed(QString()).indexFile = top;
            layout.paths.append(path);
            continue;
        }
        if (topIsFlatSkill) {
            path.partition = QString();
            path.skillDir = top;
            partitionNamed(QString());
            if (item.directory)
                path.kind = SkillPath::Kind::Directory;
            else if (s.size() == 2 && s.at(1) == SkillFileName)
                path.kind = SkillPath::Kind::SkillFile;
            else if (s.last() == SkillFileName)
                path.kind = SkillPath::Kind::NestedSkillFile;
            else
                path.kind = SkillPath::Kind::SkillAsset;
            if (path.kind == SkillPath::Kind::SkillFile)
                addSkillDir(QString(), top);
            else if (!item.directory)
                dirsWithFiles[QString()].insert(top);
            layout.paths.append(path);
            continue;
        }
        path.partition = top;
        SkillPartition &partition = partitionNamed(top);
        if (s.size() == 1) { // the partition's own directory entry
            path.kind = SkillPath::Kind::Directory;
        } else if (s.size() == 2 && !item.directory) {
            const bool index = s.at(1) == QLatin1String(".index") || s.at(1) == QLatin1String(".skills");
            path.kind = partition.transient ? SkillPath::Kind::Transient
                                            : (index ? SkillPath::Kind::Index : SkillPath::Kind::Stray);
            if (index)
                partition.indexFile = s.at(1);
        } else {
            path.skillDir = s.at(1);
            if (item.directory)
                path.kind = SkillPath::Kind::Directory;
            else if (partition.transient)
                path.kind = SkillPath::Kind::Transient;
            else if (s.size() == 3 && s.at(2) == SkillFileName)
                path.kind = SkillPath::Kind::SkillFile;
            else if (s.last() == SkillFileName)
                path.kind = SkillPath::Kind::NestedSkillFile;
            else
                path.kind = SkillPath::Kind::SkillAsset;
            if (path.kind == SkillPath::Kind::SkillFile)
                addSkillDir(top, path.skillDir);
            else if (!item.directory && !partition.transient)
                dirsWithFiles[top].insert(path.skillDir);
        }
        layout.paths.append(path);
    }

    for (auto it = dirsWithFiles.constBegin(); it != dirsWithFiles.constEnd(); ++it) {
        SkillPartition &partition = partitionNamed(it.key());
        for (const QString &dir : it.value()) {
            if (!partition.skillDirs.contains(dir))
                partition.dirsWithoutSkillFile.append(dir);
        }
    }
    QList<SkillPartition> seed, agents, transient;
    for (SkillPartition &partition : partitions) {
        partition.skillDirs.sort();
        partition.dirsWithoutSkillFile.sort();
        if (partition.seed)
            seed.append(partition);
        else if (partition.transient)
            transient.append(partition);
        else
            agents.append(partition);
    }
    layout.partitions = seed + agents + transient;
    return layout;
}

QJsonObject SkillsLayout::toJson() const
{
    static const char *const kinds[] = {"empty", "partitioned", "flat", "mixed"};
    QJsonArray partitionArray;
    for (const SkillPartition &partition : partitions) {
        partitionArray.append(QJsonObject{
            {QStringLiteral("name"), partition.name},
            {QStringLiteral("seed"), partition.seed},
            {QStringLiteral("transient"), partition.transient},
            {QStringLiteral("indexFile"), partition.indexFile},
            {QStringLiteral("skillDirs"), QJsonArray::fromStringList(partition.skillDirs)},
            {QStringLiteral("dirsWithoutSkillFile"), QJsonArray::fromStringList(partition.dirsWithoutSkillFile)},
        });
    }
    QJsonArray pathArray;
    for (const SkillPath &path : paths) {
        pathArray.append(QJsonObject{
            {QStringLiteral("path"), path.path},
            {QStringLiteral("kind"), kindName(path.kind)},
            {QStringLiteral("partition"), path.partition},
            {QStringLiteral("skillDir"), path.skillDir},
        });
    }
    return QJsonObject{
        {QStringLiteral("layout"), QLatin1String(kinds[int(kind)])},
        {QStringLiteral("partitions"), partitionArray},
        {QStringLiteral("paths"), pathArray},
    };
}

} // namespace Paddock::Inspect
