#include "json_text.hpp"

#include <rapidjson/encodedstream.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <charconv>
#include <clocale>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <system_error>
#include <vector>

#include "core/error.hpp"
#include "core/utf8.hpp"

namespace bi::io {

namespace {

// Calls visit(i, c, depth) for every bracket and comma of `text` outside its strings, `depth`
// as it is after that byte; stops early when visit returns false.
template <typename Visit>
std::size_t walk_structure(std::string_view text, Visit visit) {
    std::size_t depth = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{' || c == ']' || c == '}' || c == ',') {
            if (c == '[' || c == '{') ++depth;
            if ((c == ']' || c == '}') && depth > 0) --depth;
            if (!visit(i, c, depth)) break;
        }
    }
    return depth;
}

// The offset of the bracket that opens level kMaxJsonDepth + 1, if any. Converting, comparing
// and destroying a core::Json recurse once per level, so nesting from outside is bounded
// before any of that runs (the parse itself is iterative).
std::optional<std::size_t> too_deep_at(std::string_view text) {
    std::optional<std::size_t> found;
    walk_structure(text, [&](std::size_t i, char, std::size_t depth) {
        if (depth > kMaxJsonDepth) found = i;
        return !found;
    });
    return found;
}

// A number as JSON text spells it: an integer that fits int64 stays one, every other number is
// a double. The conversion is ours, not RapidJSON's: 1.1.0's full-precision path misreads a zero
// significand with a large exponent ("0e48" came back as -2.4e-268). strtod_l in the C locale
// rounds correctly whatever locale a plugin may have set.
std::optional<core::Json> number_value(std::string_view text) {
    if (text.find_first_of(".eE") == std::string_view::npos) {
        std::int64_t value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec == std::errc() && end == text.data() + text.size()) return core::Json(value);
    }
    static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", locale_t{});
    const std::string copy(text);
    const double value = strtod_l(copy.c_str(), nullptr, c_locale);
    if (!std::isfinite(value)) return std::nullopt;  // beyond the largest double
    return core::Json(value);
}

// SAX events -> core::Json, with an explicit stack of open containers, so neither the parse
// nor the conversion recurses. Numbers arrive as text (kParseNumbersAsStringsFlag).
class JsonBuilder : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, JsonBuilder> {
public:
    bool Null() { return add(core::Json()); }
    bool Bool(bool value) { return add(core::Json(value)); }
    bool RawNumber(const char* text, rapidjson::SizeType length, bool) {
        auto value = number_value({text, length});
        if (!value) {
            problem_ = "Number too big to be stored in double.";
            return false;
        }
        return add(std::move(*value));
    }
    bool String(const char* text, rapidjson::SizeType length, bool) {
        if (!unicode(text, length)) return false;
        return add(core::Json(std::string(text, length)));
    }
    bool StartObject() { return open(core::Json::object()); }
    bool Key(const char* text, rapidjson::SizeType length, bool) {
        if (!unicode(text, length)) return false;
        Open& top = open_.back();
        top.key.assign(text, length);
        // I-JSON (RFC 7493): an object's names are unique. Readers that keep the first of a
        // repeated key and readers that keep the last see two documents under one digest.
        if (top.container.find(top.key)) {
            problem_ = "the key \"" + top.key + "\" appears twice in one object";
            return false;
        }
        return true;
    }
    bool EndObject(rapidjson::SizeType) { return close(); }
    bool StartArray() { return open(core::Json::array()); }
    bool EndArray(rapidjson::SizeType) { return close(); }

    core::Json take() { return std::move(root_); }
    // Why the builder stopped the parse, when it did.
    const std::string& problem() const { return problem_; }

private:
    struct Open {
        core::Json container;
        std::string key;  // objects: the key of the value that comes next
    };

    // The text was checked to be UTF-8, but a backslash-u escape of a lone surrogate decodes
    // to bytes that are not, so every decoded string is checked again.
    bool unicode(const char* text, rapidjson::SizeType length) {
        if (!core::first_invalid_utf8({text, length})) return true;
        problem_ = "a \\u escape that is not a Unicode character (a lone surrogate)";
        return false;
    }

    bool add(core::Json value) {
        if (open_.empty()) {
            root_ = std::move(value);
        } else if (Open& top = open_.back(); top.container.is_array()) {
            top.container.push_back(std::move(value));
        } else {
            top.container.set(top.key, std::move(value));  // a new key: Key() refused repeats
        }
        return true;
    }
    bool open(core::Json container) {
        open_.push_back({std::move(container), {}});
        return true;
    }
    bool close() {
        core::Json done = std::move(open_.back().container);
        open_.pop_back();
        return add(std::move(done));
    }

    std::vector<Open> open_;
    core::Json root_;
    std::string problem_;
};

// JSON text is UTF-8: a string that is not (bytes a server, plugin or file sent) is never written.
void refuse_invalid_utf8(const std::string& text) {
    if (const auto bad = core::first_invalid_utf8(text))
        throw Error(ErrorCategory::Json, "cannot write a string that is not UTF-8 as JSON (byte " +
                                             std::to_string(*bad) + " of a " +
                                             std::to_string(text.size()) + "-byte string)");
}

template <typename Writer>
void emit(Writer& w, const core::Json& value) {
    using T = core::Json::Type;
    switch (value.type()) {
        case T::Null:
            w.Null();
            break;
        case T::Bool:
            w.Bool(value.as_bool());
            break;
        case T::Int:
            w.Int64(value.as_int());
            break;
        case T::Double:
            if (!std::isfinite(value.as_double()))
                throw Error(ErrorCategory::Json, "cannot write a non-finite number as JSON");
            w.Double(value.as_double());
            break;
        case T::String: {
            const auto& s = value.as_string();
            refuse_invalid_utf8(s);
            w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
            break;
        }
        case T::Array:
            w.StartArray();
            for (const auto& item : value.as_array()) emit(w, item);
            w.EndArray();
            break;
        case T::Object:
            w.StartObject();
            for (const auto& [key, item] : value.as_object()) {
                refuse_invalid_utf8(key);
                w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
                emit(w, item);
            }
            w.EndObject();
            break;
    }
}

}  // namespace

std::optional<std::size_t> top_level_element_at(std::string_view text, std::size_t offset) {
    std::size_t element = 0;
    const std::size_t depth =
        walk_structure(text.substr(0, offset), [&](std::size_t, char c, std::size_t at) {
            if (c == ',' && at == 1) ++element;
            return true;
        });
    if (depth == 0) return std::nullopt;
    return element;
}

core::Json parse_json(std::string_view text, std::string_view what) {
    // RapidJSON reads a NUL byte as the end of the text, so whatever follows it would go unseen.
    if (const auto nul = text.find('\0'); nul != std::string_view::npos)
        throw Error(ErrorCategory::Json, std::string(what) + ": invalid JSON at offset " +
                                             std::to_string(nul) + ": a NUL byte");
    if (const auto bad = core::first_invalid_utf8(text))
        throw Error(ErrorCategory::Json,
                    std::string(what) + ": invalid UTF-8 at byte offset " + std::to_string(*bad));
    if (const auto offset = too_deep_at(text))
        throw Error(ErrorCategory::Json, std::string(what) + ": JSON nested deeper than " +
                                             std::to_string(kMaxJsonDepth) + " levels at offset " +
                                             std::to_string(*offset));
    JsonBuilder builder;
    rapidjson::Reader reader;
    rapidjson::MemoryStream bytes(text.data(), text.size());
    rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> stream(bytes);
    const rapidjson::ParseResult result =
        reader.Parse<rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseIterativeFlag>(
            stream, builder);
    if (result.IsError()) {
        const std::string problem = result.Code() == rapidjson::kParseErrorTermination
                                        ? builder.problem()
                                        : rapidjson::GetParseError_En(result.Code());
        throw Error(ErrorCategory::Json, std::string(what) + ": invalid JSON at offset " +
                                             std::to_string(result.Offset()) + ": " + problem);
    }
    return builder.take();
}

std::string to_json_text(const core::Json& value, bool pretty) {
    rapidjson::StringBuffer buffer;
    if (pretty) {
        rapidjson::PrettyWriter<rapidjson::StringBuffer> writer(buffer);
        writer.SetIndent(' ', 2);
        emit(writer, value);
    } else {
        rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
        emit(writer, value);
    }
    return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace bi::io
