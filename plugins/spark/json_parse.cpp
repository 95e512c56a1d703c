// JSON text to spark's values through RapidJSON's reader, bounded because the text is model
// output: iterative parsing keeps deep nesting off the call stack and a depth limit refuses it.
#include "json.hpp"

#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <charconv>
#include <cmath>

namespace spark {

namespace {

constexpr int kMaxDepth = 128;  // containers around a value; one nested deeper is refused

// Numbers arrive as their text and are converted here with std::from_chars, which rounds
// correctly (as kParseFullPrecisionFlag would) and lets an integer stay an integer.
constexpr unsigned kParseFlags =
    rapidjson::kParseIterativeFlag | rapidjson::kParseNumbersAsStringsFlag;

using Document = rapidjson::GenericDocument<rapidjson::UTF8<>, rapidjson::CrtAllocator>;
using Reader =
    rapidjson::GenericReader<rapidjson::UTF8<>, rapidjson::UTF8<>, rapidjson::CrtAllocator>;

// Passes the reader's events on to a Document, typing numbers and counting depth.
class BoundedBuilder : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, BoundedBuilder> {
public:
    explicit BoundedBuilder(Document& document) : document_(document) {}

    bool Null() { return shallow() && document_.Null(); }
    bool Bool(bool value) { return shallow() && document_.Bool(value); }
    bool RawNumber(const char* text, rapidjson::SizeType length, bool) {
        return shallow() && number(std::string_view(text, length));
    }
    bool String(const char* text, rapidjson::SizeType length, bool copy) {
        return shallow() && document_.String(text, length, copy);
    }
    bool Key(const char* text, rapidjson::SizeType length, bool copy) {
        return document_.Key(text, length, copy);
    }
    bool StartObject() { return open() && document_.StartObject(); }
    bool EndObject(rapidjson::SizeType members) {
        --depth_;
        return document_.EndObject(members);
    }
    bool StartArray() { return open() && document_.StartArray(); }
    bool EndArray(rapidjson::SizeType items) {
        --depth_;
        return document_.EndArray(items);
    }
    // Typed number events never come with kParseNumbersAsStringsFlag; refuse them if they do.
    bool Default() { return false; }

private:
    bool shallow() const { return depth_ <= kMaxDepth; }
    bool open() {
        if (!shallow()) return false;
        ++depth_;
        return true;
    }

    bool number(std::string_view text) {
        const char* first = text.data();
        const char* last = first + text.size();
        if (text.find_first_of(".eE") == std::string_view::npos) {
            std::int64_t value = 0;
            const auto result = std::from_chars(first, last, value);
            if (result.ec == std::errc() && result.ptr == last) return document_.Int64(value);
        }
        double value = 0.0;
        const auto result = std::from_chars(first, last, value);
        if (result.ec != std::errc() || result.ptr != last || !std::isfinite(value)) return false;
        return document_.Double(value);
    }

    Document& document_;
    int depth_ = 0;  // containers open around the next value
};

// True when an escape \uDC00-\uDFFF does not directly follow a high surrogate escape. RapidJSON
// 1.1 decodes such a lone low surrogate into bytes that are not UTF-8 instead of refusing it.
// Backslashes outside strings are not looked at closely: the reader refuses that text anyway.
bool has_lone_low_surrogate(std::string_view text) {
    bool after_high = false;  // the escape just read was \uD800-\uDBFF
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '\\') {
            after_high = false;
            continue;
        }
        if (i + 1 < text.size() && text[i + 1] != 'u') {
            after_high = false;
            ++i;  // the escaped character, which may be a backslash
            continue;
        }
        std::uint32_t unit = 0;
        const char* digits = text.data() + i + 2;
        if (i + 6 > text.size() || std::from_chars(digits, digits + 4, unit, 16).ptr != digits + 4)
            return false;  // a malformed escape: the reader refuses it
        if (unit >= 0xDC00 && unit <= 0xDFFF && !after_high) return true;
        after_high = unit >= 0xD800 && unit <= 0xDBFF;
        i += 5;
    }
    return false;
}

}  // namespace

std::optional<Json> parse_json(std::string_view text) {
    // The reader takes a NUL byte for the end of the text. No JSON holds one, inside a string or
    // out, so refuse it here rather than let it cut the text short.
    if (text.find('\0') != std::string_view::npos || has_lone_low_surrogate(text))
        return std::nullopt;
    Document document;
    bool parsed = false;
    auto parse = [&](Document& target) {
        BoundedBuilder builder(target);
        rapidjson::MemoryStream stream(text.data(), text.size());  // no BOM skipping: strict
        Reader reader;
        parsed = !reader.Parse<kParseFlags>(stream, builder).IsError();
        return parsed;
    };
    document.Populate(parse);
    if (!parsed) return std::nullopt;
    Json value;
    value.Swap(document);
    canonicalise(value);
    return value;
}

}  // namespace spark
