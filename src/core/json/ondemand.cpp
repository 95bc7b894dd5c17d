#include "ondemand.h"

namespace Paddock::Json {

od::parser &threadParser()
{
    thread_local od::parser parser;
    return parser;
}

bool startDocument(QByteArray &buffer, od::document &document)
{
    const qsizetype size = buffer.size();
    buffer.reserve(size + qsizetype(simdjson::SIMDJSON_PADDING));
    return !threadParser().iterate(buffer.constData(), size_t(size), size_t(buffer.capacity())).get(document);
}

} // namespace Paddock::Json
