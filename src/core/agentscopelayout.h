#pragma once

// What the local and Docker backends share when they keep workspaces as AgentScope's own managers
// do (Profile::Layout::AgentScope): which folders are AgentScope workspaces, and which user and
// agent ids can name a folder there. The backends' READMEs say what AgentScope does and why.

#include "isolation.h"
#include "result.h"

#include <QString>

namespace Paddock {

// The names of AgentScope's workspace layout (`src/agentscope/workspace/_utils.py`): a folder that
// holds any of them is an AgentScope workspace.
inline constexpr QLatin1String McpFileName{".mcp"};
inline constexpr QLatin1String SkillsFolderName{"skills"};
inline constexpr QLatin1String SessionsFolderName{"sessions"};
inline constexpr QLatin1String DataFolderName{"data"};

// Whether `folder` holds any of `.mcp`, `skills/`, `sessions/`, `data/`. Reads the disk.
bool holdsAgentScopeWorkspace(const QString &folder);

// Whether a user or agent id can be a folder of AgentScope's layout (<basedir>/<agent_id>, or
// <basedir>/<user_id>/<agent_id>): not empty, no NUL, no `/` or `\`, not starting with a dot
// (AgentScope refuses such agent ids for its skill partitions, and `.`, `..` and hidden names would
// leave basedir or meet Paddock's own `.paddock`), and at most 255 bytes of UTF-8 (a folder name).
// InvalidArgument naming the id otherwise.
Result<> validateAgentScopeFolderName(Principal what, const QString &id);

} // namespace Paddock
