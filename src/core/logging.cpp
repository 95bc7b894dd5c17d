#include "logging.h"

Q_LOGGING_CATEGORY(lcManager, "paddock.core.manager", QtInfoMsg)
Q_LOGGING_CATEGORY(lcSession, "paddock.core.session", QtInfoMsg)
Q_LOGGING_CATEGORY(lcProvision, "paddock.core.provision", QtInfoMsg)
Q_LOGGING_CATEGORY(lcLocal, "paddock.core.local", QtInfoMsg)
Q_LOGGING_CATEGORY(lcBootstrapLog, "paddock.core.bootstraplog", QtInfoMsg)
// Where the translations were found (debug), and that they were not (a warning).
Q_LOGGING_CATEGORY(lcI18n, "paddock.core.i18n", QtInfoMsg)
