#pragma once

// Reading JSON with simdjson's On Demand API, for the listings that are large (10,000 Pods or
// sandboxes): the page's structure is indexed with SIMD and only the fields read are visited, so
// a listing costs little more than its fetch. Used by the Kubernetes and E2B backends; every
// object is read field by field in the order the server wrote it, and a value of an unexpected
// type reads as absent.

#include "../timestamp.h"

#include <QByteArray>
#include <QDateTime>
#include <QMap>
#include <QString>

#include <simdjson.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

namespace Paddock::Json {

namespace od = simdjson::ondemand;

inline QString text(std::string_view value)
{
    return QString::fromUtf8(value.data(), qsizetype(value.size()));
}

// One document's reading: a structural error anywhere (not JSON, truncated) marks it failed,
// and what was read is then not used.
class Reader
{
public:
    bool failed = false;

    // Calls f(key, value) for each member of an object; a value that is not an object has none.
    template<typename F> void fields(od::value &value, F &&f)
    {
        od::object object;
        if (value.get_object().get(object))
            return; // not an object (null, a string...): nothing to read
        fields(object, std::forward<F>(f));
    }
    template<typename F> void fields(od::object &object, F &&f)
    {
        for (auto entry : object) {
            od::field field;
            if (std::move(entry).get(field)) {
                failed = true;
                return;
            }
            // The key as written, compared without unescaping it: the names looked up are plain
            // ASCII, which no JSON encoder escapes (a map's keys are unescaped: stringMap).
            const od::raw_json_string key = field.key();
            od::value value = field.value();
            f(key, value);
            if (failed)
                return;
        }
    }
    template<typename F> void elements(od::value &value, F &&f)
    {
        od::array array;
        if (value.get_array().get(array))
            return;
        for (auto entry : array) {
            od::value element;
            if (std::move(entry).get(element)) {
                failed = true;
                return;
            }
            f(element);
            if (failed)
                return;
        }
    }
    QString string(od::value &value) { return text(view(value)); }
    // A string's text, valid while the document is read; empty when the value is not a string.
    // One without escapes (nearly every one) is read where it stands in the document; only one
    // with a backslash is unescaped by simdjson into its string buffer, a copy.
    std::string_view view(od::value &value)
    {
        std::string_view token = value.raw_json_token();
        while (!token.empty() && isJsonSpace(token.back()))
            token.remove_suffix(1);
        if (token.size() >= 2 && token.front() == '"' && token.back() == '"') {
            const std::string_view inside = token.substr(1, token.size() - 2);
            if (inside.find('\\') == std::string_view::npos)
                return inside;
        }
        std::string_view s;
        return value.get_string().get(s) ? std::string_view() : s;
    }
    // A string that many objects of a listing share (a namespace, a label's key or value, an
    // image): made once per document and shared, which saves an allocation for each of 10,000
    // Pods. The first strings seen are kept: values unique to one Pod fill the table only up to
    // its bound.
    QString shared(std::string_view s)
    {
        if (!m_slots)
            m_slots = std::make_unique<Slot[]>(SharedSlots);
        // Open addressing with linear probing, at most half full: a lookup is a hash of a few
        // loads and one comparison.
        for (size_t i = hashOf(s) & (SharedSlots - 1);; i = (i + 1) & (SharedSlots - 1)) {
            Slot &slot = m_slots[i];
            if (slot.used) {
                if (slot.key == s)
                    return slot.value;
                continue;
            }
            QString made = text(s);
            if (m_sharedCount < SharedSlots / 2) {
                slot.used = true;
                slot.key = s;
                slot.value = made;
                ++m_sharedCount;
            }
            return made;
        }
    }
    QString shared(od::value &value)
    {
        const std::string_view s = view(value);
        return s.empty() ? QString() : shared(s);
    }
    int integer(od::value &value, int fallback)
    {
        int64_t n = 0;
        if (value.get_int64().get(n) || n < std::numeric_limits<int>::min() || n > std::numeric_limits<int>::max())
            return fallback;
        return int(n);
    }
    QMap<QString, QString> stringMap(od::value &value)
    {
        QMap<QString, QString> map;
        od::object object;
        if (value.get_object().get(object))
            return map;
        for (auto entry : object) {
            od::field field;
            std::string_view key;
            if (std::move(entry).get(field) || field.unescaped_key().get(key)) {
                failed = true;
                return map;
            }
            od::value v = field.value();
            map.insert(shared(key), shared(v));
        }
        return map;
    }
    std::optional<QDateTime> time(od::value &value)
    {
        const std::string_view s = view(value);
        if (s.empty())
            return std::nullopt;
        return timeFrom(s);
    }
    // RFC 3339 as the servers write it (../timestamp.h), else whatever QDateTime's ISO parser
    // makes of it.
    static std::optional<QDateTime> timeFrom(std::string_view s)
    {
        if (auto parsed = parseTimestamp(s))
            return parsed;
        QDateTime parsed = QDateTime::fromString(text(s), Qt::ISODateWithMs);
        if (!parsed.isValid())
            return std::nullopt;
        return parsed.toUTC();
    }

private:
    static bool isJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
    static constexpr size_t SharedSlots = 1024;
    struct Slot
    {
        bool used = false;
        std::string_view key;
        QString value;
    };
    // The length and the first and last eight bytes (the strings shared are names and ids that
    // differ there); strings alike in all three only probe one slot further.
    static size_t hashOf(std::string_view s)
    {
        uint64_t h = uint64_t(s.size()) * 0x9E3779B97F4A7C15ull;
        if (s.size() >= 8) {
            uint64_t head = 0;
            uint64_t tail = 0;
            std::memcpy(&head, s.data(), 8);
            std::memcpy(&tail, s.data() + s.size() - 8, 8);
            h ^= head * 0xC2B2AE3D27D4EB4Full;
            h = (h ^ (h >> 31)) * 0x165667B19E3779F9ull;
            h ^= tail * 0xC2B2AE3D27D4EB4Full;
        } else {
            for (const char c : s)
                h = (h ^ uint8_t(c)) * 0x100000001B3ull;
        }
        h ^= h >> 29;
        h *= 0xBF58476D1CE4E5B9ull;
        return size_t(h ^ (h >> 32));
    }
    std::unique_ptr<Slot[]> m_slots;
    size_t m_sharedCount = 0;
};

// The calling thread's parser: it keeps its buffers between documents (a page's size); one per
// thread, as the pages of a listing are read on the pool's threads.
od::parser &threadParser();

// Pads `buffer` for simdjson (which reads up to 64 bytes past the end: a copy only when the
// buffer has no room, or is shared) and starts reading it; false when it is not JSON.
bool startDocument(QByteArray &buffer, od::document &document);

// Nothing but whitespace follows the root value read: On Demand reads lazily, and a document
// whose root value ends early ("{}}", "[] x") would otherwise read as that value.
inline bool atEnd(od::document &document)
{
    const char *rest = nullptr;
    return document.current_location().get(rest) == simdjson::OUT_OF_BOUNDS;
}

// Reads the JSON object in `buffer` with f(reader, key, value) for each of its members.
// false: not a JSON object, or broken somewhere (anything after it included).
template<typename F> bool readObjectDocument(QByteArray &buffer, F &&f)
{
    od::document document;
    if (!startDocument(buffer, document))
        return false;
    od::object root;
    if (document.get_object().get(root))
        return false;
    Reader reader;
    reader.fields(root, [&](od::raw_json_string key, od::value &value) { f(reader, key, value); });
    return !reader.failed && atEnd(document);
}

// Reads the JSON array in `buffer` with f(reader, element, start) for each element, `start`
// where the element begins in `buffer`. false: not a JSON array, or broken somewhere (anything
// after it included).
template<typename F> bool readArrayDocument(QByteArray &buffer, F &&f)
{
    od::document document;
    if (!startDocument(buffer, document))
        return false;
    od::array root;
    if (document.get_array().get(root))
        return false;
    Reader reader;
    for (auto entry : root) {
        od::value element;
        if (std::move(entry).get(element))
            return false;
        const char *start = nullptr;
        if (element.current_location().get(start))
            return false;
        f(reader, element, start);
        if (reader.failed)
            return false;
    }
    return !reader.failed && atEnd(document);
}

} // namespace Paddock::Json
