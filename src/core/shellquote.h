#pragma once

#include <QString>
#include <QStringList>

namespace Paddock {

// Quote one argument exactly as Python's shlex.quote does: bare when it holds only
// [A-Za-z0-9_@%+=:,./-], '' when empty, otherwise single quotes with ' written as '"'"'.
QString shellQuote(const QString &argument);

// shlex.join: every argument quoted, separated by one space.
QString shellJoin(const QStringList &argv);

} // namespace Paddock
