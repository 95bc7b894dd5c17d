#pragma once

// The workspace ids the shell completion offers (__complete, complete.cpp): those of the last
// listing of a backend, kept for a minute in $XDG_CACHE_HOME/paddock/completion/, one file per
// backend and the options that say where its workspaces are. Every successful listing paddockctl
// makes writes it (list, and __complete when the file is missing or older than a minute).

#include "profile.h"
#include "sandbox.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <chrono>
#include <optional>

namespace Paddock::Ctl {

class Session;

// How long a listing's ids are offered without listing again.
constexpr std::chrono::seconds IdCacheLifetime{60};

// The file of a profile's ids: its backend's id and a hash of the options that reach its
// workspaces (BackendFactory::toCommandLine: a server, a folder, a cluster; never a key). Empty
// when there is no cache folder.
QString idCachePath(const Profile &profile);

// Writes the ids of a listing of the session's profile, one a line, atomically, readable by the
// user only. Best effort: a cache that cannot be written is not the listing's failure, and silent.
void rememberWorkspaceIds(const Session &s, const QList<SandboxInfo> &listed);

// The ids of the profile's last listing when it is younger than IdCacheLifetime; nothing when
// there is none, or it is older.
std::optional<QStringList> cachedWorkspaceIds(const Profile &profile);

} // namespace Paddock::Ctl
