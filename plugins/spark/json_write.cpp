// spark's canonical JSON text. Written here rather than by RapidJSON's Writer because its bytes
// are pinned: they are planted in prompts and compared by the scorer, and the Writer spells
// doubles and control characters differently ("1e21" for 1e+21, "\b" for \u0008).
#include "json.hpp"

#include <charconv>

namespace spark {

namespace {

void write_string(std::string& out, std::string_view text) {
    out += '"';
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (ch == '"')
            out += "\\\"";
        else if (ch == '\\')
            out += "\\\\";
        else if (ch == '\n')
            out += "\\n";
        else if (ch == '\r')
            out += "\\r";
        else if (ch == '\t')
            out += "\\t";
        else if (c < 0x20) {
            static const char kHex[] = "0123456789abcdef";
            out += "\\u00";
            out += kHex[c >> 4];
            out += kHex[c & 0xF];
        } else {
            out += ch;
        }
    }
    out += '"';
}

void write_number(std::string& out, const Json& value) {
    if (!value.IsDouble()) {
        out += std::to_string(value.GetInt64());
        return;
    }
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value.GetDouble());
    std::string text(buffer, result.ptr);
    // Keep a double a double when read back, as the host's writer does.
    if (text.find_first_of(".eE") == std::string::npos) text += ".0";
    out += text;
}

void write(std::string& out, const Json& value) {
    switch (value.GetType()) {
        case rapidjson::kNullType:
            out += "null";
            return;
        case rapidjson::kFalseType:
            out += "false";
            return;
        case rapidjson::kTrueType:
            out += "true";
            return;
        case rapidjson::kNumberType:
            write_number(out, value);
            return;
        case rapidjson::kStringType:
            write_string(out, string_of(value));
            return;
        case rapidjson::kArrayType: {
            out += '[';
            bool first = true;
            for (const auto& item : value.GetArray()) {
                if (!first) out += ',';
                first = false;
                write(out, item);
            }
            out += ']';
            return;
        }
        case rapidjson::kObjectType: {
            out += '{';
            bool first = true;
            for (const auto& member : value.GetObject()) {  // already in key order
                if (!first) out += ',';
                first = false;
                write_string(out, string_of(member.name));
                out += ':';
                write(out, member.value);
            }
            out += '}';
            return;
        }
    }
}

}  // namespace

std::string to_json(const Json& value) {
    std::string out;
    write(out, value);
    return out;
}

}  // namespace spark
