#include "shellquote.h"

namespace Paddock {

namespace {

bool isSafe(QChar c)
{
    const char16_t u = c.unicode();
    if ((u >= u'a' && u <= u'z') || (u >= u'A' && u <= u'Z') || (u >= u'0' && u <= u'9'))
        return true;
    switch (u) {
    case u'_':
    case u'@':
    case u'%':
    case u'+':
    case u'=':
    case u':':
    case u',':
    case u'.':
    case u'/':
    case u'-':
        return true;
    default:
        return false;
    }
}

} // namespace

QString shellQuote(const QString &argument)
{
    if (argument.isEmpty())
        return QStringLiteral("''");
    if (std::all_of(argument.cbegin(), argument.cend(), isSafe))
        return argument;
    QString quoted = argument;
    quoted.replace(u'\'', QStringLiteral("'\"'\"'"));
    return u'\'' + quoted + u'\'';
}

QString shellJoin(const QStringList &argv)
{
    QStringList quoted;
    quoted.reserve(argv.size());
    for (const QString &arg : argv)
        quoted.append(shellQuote(arg));
    return quoted.join(u' ');
}

} // namespace Paddock
