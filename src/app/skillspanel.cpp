#include "skillspanel.h"

#include "colorscheme.h"

#include <QCoroTask>

#include <QHeaderView>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTextBrowser>
#include <QVBoxLayout>

using namespace Paddock;
using namespace Paddock::Inspect;

namespace {

using Tone = InspectorItem::Tone;

InspectorItem row(const QString &key, const QString &name, const QString &value, Tone tone = Tone::Normal)
{
    InspectorItem item;
    item.key = key;
    item.texts = {name, value};
    item.tone = tone;
    return item;
}

} // namespace

SkillsPanel::SkillsPanel(QWidget *parent)
    : InspectorPanel(parent)
    , m_note(new InspectorNote(this))
    , m_view(new InspectorTreeView(this))
    , m_model(new QStandardItemModel(0, 2, this))
    , m_detail(new QTextBrowser(this))
{
    setObjectName(QStringLiteral("skillsPanel"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_note);
    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_view);
    splitter->addWidget(m_detail);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({3, 1});
    splitter->setChildrenCollapsible(false);
    layout->addWidget(splitter, 1);
    m_view->setObjectName(QStringLiteral("skillsView"));
    m_view->setModel(m_model);
    m_view->header()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->header()->resizeSection(0, 220);
    m_detail->setObjectName(QStringLiteral("skillDetail"));
    m_detail->setOpenLinks(false);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, &SkillsPanel::showCurrent);
    retranslate();
}

SkillsPanel::~SkillsPanel() = default;

void SkillsPanel::clearShown()
{
    m_slot.cancel();
    m_skills.reset();
    m_error.reset();
    m_note->clear();
    m_model->removeRows(0, m_model->rowCount());
    m_detail->clear();
}

void SkillsPanel::load()
{
    read();
}

QCoro::Task<void> SkillsPanel::read()
{
    const QPointer<SkillsPanel> self(this);
    const WorkspaceRef ref = m_slot.start(workspace());
    if (!m_skills)
        m_note->setNote(InspectorNote::Kind::Info, tr("Reading skills/…"));
    auto skills = co_await readSkills(ref);
    if (!self || !m_slot.isCurrent(ref))
        co_return;
    if (skills) {
        m_skills = std::move(*skills);
        m_error.reset();
    } else {
        m_error = skills.error();
    }
    render();
}

void SkillsPanel::render()
{
    if (m_error) {
        m_note->setNote(Inspector::noteKind(*m_error),
                        tr("skills/ could not be read: %1").arg(Inspector::errorText(*m_error)));
        if (!m_skills)
            return;
    }
    if (!m_skills)
        return;
    const SkillsView &view = *m_skills;
    QStringList notes;
    InspectorNote::Kind kind = InspectorNote::Kind::Info;
    if (!view.present) {
        notes.append(tr("There is no skills/ folder: this workspace has no skills."));
    } else {
        switch (view.layout.kind) {
        case SkillsLayout::Kind::Partitioned:
            notes.append(tr("Skills are kept per agent: the seed (.seed), copied into an agent's partition on its "
                            "first skill call, and one partition per agent."));
            break;
        case SkillsLayout::Kind::Flat:
            notes.append(tr("The layout of AgentScope 2.0.6 and earlier: one flat skills/ folder shared by every "
                            "agent. Newer versions move it into .seed when they open the workspace."));
            break;
        case SkillsLayout::Kind::Mixed:
            kind = InspectorNote::Kind::Warning;
            notes.append(tr("Both layouts at once: the flat one of AgentScope 2.0.6 and the partitions of later "
                            "versions. The move into .seed has not run, or was interrupted."));
            break;
        case SkillsLayout::Kind::Empty:
            notes.append(tr("skills/ is empty."));
            break;
        }
    }
    if (!view.complete) {
        kind = InspectorNote::Kind::Warning;
        notes.append(tr("skills/ holds more entries than the inspector reads; the rest are not listed."));
    }
    if (!m_error)
        m_note->setNote(kind, notes.join(u'\n'));

    QList<InspectorItem> items;
    for (const SkillPartition &partition : view.layout.partitions) {
        QString label = partition.name.isEmpty() ? tr("skills/") : partition.name;
        QString what;
        if (partition.seed)
            what = tr("the seed: copied into each agent's partition");
        else if (partition.transient)
            what = tr("a partition being copied from the seed (left over if old)");
        else if (!partition.name.isEmpty())
            what = tr("the partition of agent %1").arg(partition.name);
        else
            what = tr("shared by every agent (2.0.6 and earlier)");
        InspectorItem group = row(QStringLiteral("p:") + partition.name, label, what, Tone::Strong);
        group.expand = true;
        for (int i = 0; i < view.skills.size(); ++i) {
            const SkillView &skill = view.skills.at(i);
            if (skill.partition != partition.name)
                continue;
            const SkillFile &file = skill.file;
            InspectorItem entry;
            entry.key = QStringLiteral("s:") + skill.dir;
            entry.data = i;
            entry.toolTip = skill.path;
            if (skill.readError) {
                entry.texts = {skill.dir,
                               tr("SKILL.md could not be read: %1").arg(Inspector::errorText(*skill.readError))};
                entry.tone = Tone::Error;
            } else if (!file.loaded()) {
                entry.texts = {file.name.isEmpty() ? skill.dir : file.name,
                               tr("ignored by AgentScope: %1").arg(file.ignoredReason)};
                entry.tone = Tone::Warning;
            } else {
                entry.texts = {file.name, file.description};
            }
            entry.children.append(row(QStringLiteral("dir"), tr("Folder"), skill.dir));
            for (const auto &[key, value] : file.otherKeys)
                entry.children.append(
                    row(QStringLiteral("k:") + key, key, tr("%1 (AgentScope ignores this key)").arg(value), Tone::Dim));
            for (const SkillPath &path : view.layout.paths) {
                if (path.kind == SkillPath::Kind::NestedSkillFile && path.partition == skill.partition
                    && path.skillDir == skill.dir)
                    entry.children.append(row(QStringLiteral("n:") + path.path, path.path,
                                              tr("a SKILL.md inside a skill: not a skill of its own"), Tone::Warning));
            }
            if (!skill.files.isEmpty())
                entry.children.append(
                    row(QStringLiteral("files"), tr("Files"), skill.files.join(QStringLiteral(", "))));
            group.children.append(entry);
        }
        for (const QString &dir : partition.dirsWithoutSkillFile)
            group.children.append(row(QStringLiteral("d:") + dir, dir + u'/',
                                      tr("no SKILL.md: AgentScope ignores this folder"), Tone::Warning));
        for (const SkillPath &path : view.layout.paths) {
            if (path.kind == SkillPath::Kind::Stray && path.partition == partition.name)
                group.children.append(
                    row(QStringLiteral("x:") + path.path, path.path, tr("a file outside any skill"), Tone::Dim));
        }
        for (const SkillIndexView &index : view.indexes) {
            if (index.partition != partition.name)
                continue;
            InspectorItem entry = row(QStringLiteral("i:") + index.indexFile, index.indexFile, QString());
            if (!index.index.valid) {
                entry.texts[1] =
                    tr("unreadable (%1): AgentScope treats it as empty and writes it again").arg(index.index.error);
                entry.tone = Tone::Warning;
            } else if (index.diff.matches()) {
                entry.texts[1] = tr("the index matches the folder");
                entry.tone = Tone::Dim;
            } else {
                entry.texts[1] = tr("the index differs from the folder; AgentScope brings it up to date when the "
                                    "folder's time changes");
                entry.tone = Tone::Warning;
                if (!index.diff.onlyInIndex.isEmpty())
                    entry.children.append(row(QStringLiteral("onlyIndex"), tr("Only in the index"),
                                              index.diff.onlyInIndex.join(QStringLiteral(", "))));
                if (!index.diff.onlyOnDisk.isEmpty())
                    entry.children.append(row(QStringLiteral("onlyDisk"), tr("Only in the folder"),
                                              index.diff.onlyOnDisk.join(QStringLiteral(", "))));
                if (!index.diff.changed.isEmpty())
                    entry.children.append(row(QStringLiteral("changed"), tr("Changed since indexed"),
                                              index.diff.changed.join(QStringLiteral(", "))));
            }
            group.children.append(entry);
        }
        if (group.children.isEmpty())
            group.children.append(row(QStringLiteral("empty"), tr("(no skills)"),
                                      partition.seed ? QString() : tr("equipped: AgentScope copies the seed only once"),
                                      Tone::Dim));
        items.append(group);
    }
    syncItems(m_model, items, m_view);
    showCurrent();
}

void SkillsPanel::showCurrent()
{
    m_detail->clear();
    if (!m_skills)
        return;
    QModelIndex current = m_view->currentIndex().siblingAtColumn(0);
    // A row under a skill shows its skill.
    while (current.isValid() && !current.data(InspectorItem::DataRole).isValid())
        current = current.parent();
    if (!current.isValid())
        return;
    const int index = current.data(InspectorItem::DataRole).toInt();
    if (index < 0 || index >= m_skills->skills.size())
        return;
    const SkillView &skill = m_skills->skills.at(index);
    QString html =
        QStringLiteral("<p><b>%1</b><br><span style=\"color:gray\">%2</span></p>")
            .arg((skill.file.name.isEmpty() ? skill.dir : skill.file.name).toHtmlEscaped(), skill.path.toHtmlEscaped());
    if (!skill.file.loaded())
        html += QStringLiteral("<p style=\"color:%1\">%2</p>")
                    .arg(Tones::css(Tones::warning()),
                         tr("AgentScope ignores this skill: %1").arg(skill.file.ignoredReason).toHtmlEscaped());
    if (!skill.file.description.isEmpty())
        html += QStringLiteral("<p style=\"white-space:pre-wrap\">%1</p>").arg(skill.file.description.toHtmlEscaped());
    m_detail->setHtml(html);
}

void SkillsPanel::retranslate()
{
    m_model->setHorizontalHeaderLabels({tr("Skill"), tr("Description")});
    if (m_skills || m_error)
        render();
}
