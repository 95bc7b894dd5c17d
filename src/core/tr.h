#pragma once

#include <QCoreApplication>

namespace Paddock {

// Translation context for user-visible text from code that is not a QObject.
struct Tr
{
    Q_DECLARE_TR_FUNCTIONS(Paddock)
};

} // namespace Paddock
