#include "json_text.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <optional>

#include "core/error.hpp"
#include "core/utf8.hpp"

namespace bi::io {

namespace {

// The offset of the bracket that opens level kMaxJsonDepth + 1, if any. Converting, comparing
// and destroying a core::Json recurse once per level, so nesting from outside is bounded
// before any of that runs (the parse itself is iterative).
std::optional<std::size_t> too_deep_at(std::string_view text) {
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
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxJsonDepth) return i;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return std::nullopt;
}

// A string RapidJSON decoded: the text was checked to be UTF-8, but a backslash-u escape of a
// lone surrogate decodes to bytes that are not, so every decoded string is checked again.
std::string checked_string(const char* data, rapidjson::SizeType size, std::string_view what) {
    std::string out(data, size);
    if (core::first_invalid_utf8(out))
        throw Error(ErrorCategory::Json,
                    std::string(what) +
                        ": a \\u escape that is not a Unicode character (a lone surrogate)");
    return out;
}

core::Json from_rapidjson(const rapidjson::Value& v, std::string_view what) {
    switch (v.GetType()) {
        case rapidjson::kNullType:
            return {};
        case rapidjson::kFalseType:
            return false;
        case rapidjson::kTrueType:
            return true;
        case rapidjson::kStringType:
            return checked_string(v.GetString(), v.GetStringLength(), what);
        case rapidjson::kNumberType:
            if (v.IsInt64()) return v.GetInt64();
            return v.GetDouble();  // doubles, and integers beyond int64
        case rapidjson::kArrayType: {
            core::Json::Array array;
            array.reserve(v.Size());
            for (const auto& item : v.GetArray()) array.push_back(from_rapidjson(item, what));
            return array;
        }
        case rapidjson::kObjectType: {
            core::Json::Object object;
            for (const auto& member : v.GetObject())
                object.insert_or_assign(
                    checked_string(member.name.GetString(), member.name.GetStringLength(), what),
                    from_rapidjson(member.value, what));
            return object;
        }
    }
    return {};
}

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
    rapidjson::Document doc;
    doc.Parse<rapidjson::kParseFullPrecisionFlag | rapidjson::kParseIterativeFlag>(text.data(),
                                                                                   text.size());
    if (doc.HasParseError())
        throw Error(ErrorCategory::Json, std::string(what) + ": invalid JSON at offset " +
                                             std::to_string(doc.GetErrorOffset()) + ": " +
                                             rapidjson::GetParseError_En(doc.GetParseError()));
    return from_rapidjson(doc, what);
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
