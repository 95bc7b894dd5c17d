#include "agentscopelayout.h"

#include "tr.h"

#include <QFileInfo>

namespace Paddock {

bool holdsAgentScopeWorkspace(const QString &folder)
{
    const QString base = folder + u'/';
    return QFileInfo::exists(base + McpFileName) || QFileInfo(base + SkillsFolderName).isDir()
        || QFileInfo(base + SessionsFolderName).isDir() || QFileInfo(base + DataFolderName).isDir();
}

Result<> validateAgentScopeFolderName(Principal what, const QString &id)
{
    const bool user = what == Principal::User;
    if (id.isEmpty()) {
        return fail(Error::invalidArgument(
            user ? Tr::tr("a user id is needed: the AgentScope layout keeps each workspace in "
                          "<base folder>/<user id>/<agent id>")
                 : Tr::tr("an agent id is needed: the AgentScope layout keeps each workspace in a folder named "
                          "after its agent")));
    }
    if (id.startsWith(u'.') || id.contains(u'/') || id.contains(u'\\') || id.contains(QChar(u'\0'))) {
        return fail(Error::invalidArgument(
            user ? Tr::tr("the user id \"%1\" cannot name a folder of the AgentScope layout: it starts with a dot or "
                          "holds / or \\, and would leave the base folder")
                       .arg(id)
                 : Tr::tr("the agent id \"%1\" cannot name a folder of the AgentScope layout: AgentScope refuses agent "
                          "ids that start with a dot or hold / or \\")
                       .arg(id)));
    }
    if (id.toUtf8().size() > 255) {
        return fail(Error::invalidArgument(
            user ? Tr::tr("the user id \"%1\" is too long for a folder name (at most 255 bytes)").arg(id)
                 : Tr::tr("the agent id \"%1\" is too long for a folder name (at most 255 bytes)").arg(id)));
    }
    return {};
}

} // namespace Paddock
