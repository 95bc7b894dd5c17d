#pragma once

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcManager)
Q_DECLARE_LOGGING_CATEGORY(lcProvision)
Q_DECLARE_LOGGING_CATEGORY(lcLocal)
Q_DECLARE_LOGGING_CATEGORY(lcBootstrapLog)
