#pragma once

#include "inspectorpanel.h"
#include "inspectorsupport.h"

#include <optional>

class InspectorNote;
class QStandardItemModel;
class QTextBrowser;

// The inspector's Skills: skills/ as AgentScope lays it out (the seed, .seed/, and each agent's
// partition; or v2.0.6's flat folder), every skill's name and description from its SKILL.md, the
// other keys of its front matter and its files, and what AgentScope would ignore and why (no front
// matter, front matter that is not YAML, no name or description, a SKILL.md nested in a skill, a
// folder without one); for local workspaces, each index against the folder.
class SkillsPanel final : public InspectorPanel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SkillsPanel)

public:
    explicit SkillsPanel(QWidget *parent = nullptr);
    ~SkillsPanel() override;

    InspectorTreeView *view() const { return m_view; }
    QStandardItemModel *model() const { return m_model; }
    InspectorNote *note() const { return m_note; }
    QTextBrowser *detail() const { return m_detail; }
    bool isRead() const { return m_skills.has_value() || m_error.has_value(); }

protected:
    void clearShown() override;
    void load() override;
    void retranslate() override;

private:
    QCoro::Task<void> read();
    void render();
    void showCurrent();

    InspectorNote *m_note;
    InspectorTreeView *m_view;
    QStandardItemModel *m_model;
    QTextBrowser *m_detail;
    ReadSlot m_slot;
    std::optional<Paddock::Inspect::SkillsView> m_skills;
    std::optional<Paddock::Error> m_error;
};
