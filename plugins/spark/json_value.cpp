// Recursive-descent JSON parsing with a depth bound (model output can be hostile), and the
// canonical writer the generator uses for expected answers.
#include "json_value.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace spark {

JsonValue JsonValue::boolean(bool value) {
    JsonValue v;
    v.value_ = value;
    return v;
}
JsonValue JsonValue::integer(std::int64_t value) {
    JsonValue v;
    v.value_ = value;
    return v;
}
JsonValue JsonValue::number(double value) {
    JsonValue v;
    v.value_ = value;
    return v;
}
JsonValue JsonValue::string(std::string value) {
    JsonValue v;
    v.value_ = std::move(value);
    return v;
}
JsonValue JsonValue::array(Array items) {
    JsonValue v;
    v.value_ = std::move(items);
    return v;
}
JsonValue JsonValue::object(Object members) {
    JsonValue v;
    v.value_ = std::move(members);
    return v;
}

namespace {

[[noreturn]] void wrong_type(const char* wanted) {
    throw std::runtime_error(std::string("spark: JSON value is not ") + wanted);
}

}  // namespace

bool JsonValue::as_bool() const {
    if (!is_bool()) wrong_type("a boolean");
    return std::get<bool>(value_);
}

std::int64_t JsonValue::as_int() const {
    if (type() == Type::Int) return std::get<std::int64_t>(value_);
    if (type() == Type::Double) {
        const double d = std::get<double>(value_);
        if (std::floor(d) == d && std::fabs(d) < 9.0e15) return static_cast<std::int64_t>(d);
    }
    wrong_type("an integer");
}

double JsonValue::as_double() const {
    if (type() == Type::Int) return static_cast<double>(std::get<std::int64_t>(value_));
    if (type() == Type::Double) return std::get<double>(value_);
    wrong_type("a number");
}

const std::string& JsonValue::as_string() const {
    if (!is_string()) wrong_type("a string");
    return std::get<std::string>(value_);
}

const JsonValue::Array& JsonValue::as_array() const {
    if (!is_array()) wrong_type("an array");
    return std::get<Array>(value_);
}

const JsonValue::Object& JsonValue::as_object() const {
    if (!is_object()) wrong_type("an object");
    return std::get<Object>(value_);
}

JsonValue::Object& JsonValue::as_object() {
    if (!is_object()) wrong_type("an object");
    return std::get<Object>(value_);
}

const JsonValue* JsonValue::find(std::string_view key) const {
    if (!is_object()) return nullptr;
    const auto& members = std::get<Object>(value_);
    const auto it = members.find(key);
    return it == members.end() ? nullptr : &it->second;
}

JsonValue& JsonValue::set(const std::string& key, JsonValue value) {
    return as_object()[key] = std::move(value);
}

namespace {

constexpr int kMaxDepth = 128;

class Parser {
public:
    explicit Parser(std::string_view text) : text_(text) {}

    std::optional<JsonValue> document() {
        skip_space();
        auto value = parse_value(0);
        skip_space();
        if (!value || at_ != text_.size()) return std::nullopt;
        return value;
    }

private:
    void skip_space() {
        while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t' ||
                                      text_[at_] == '\n' || text_[at_] == '\r'))
            ++at_;
    }

    bool literal(std::string_view word) {
        if (text_.substr(at_, word.size()) != word) return false;
        at_ += word.size();
        return true;
    }

    std::optional<JsonValue> parse_value(int depth) {
        if (depth > kMaxDepth || at_ >= text_.size()) return std::nullopt;
        const char c = text_[at_];
        if (c == '{') return parse_object(depth);
        if (c == '[') return parse_array(depth);
        if (c == '"') {
            auto s = parse_string();
            if (!s) return std::nullopt;
            return JsonValue::string(std::move(*s));
        }
        if (literal("true")) return JsonValue::boolean(true);
        if (literal("false")) return JsonValue::boolean(false);
        if (literal("null")) return JsonValue();
        return parse_number();
    }

    std::optional<JsonValue> parse_object(int depth) {
        ++at_;  // '{'
        JsonValue::Object members;
        skip_space();
        if (at_ < text_.size() && text_[at_] == '}') {
            ++at_;
            return JsonValue::object(std::move(members));
        }
        while (true) {
            skip_space();
            if (at_ >= text_.size() || text_[at_] != '"') return std::nullopt;
            auto key = parse_string();
            if (!key) return std::nullopt;
            skip_space();
            if (at_ >= text_.size() || text_[at_] != ':') return std::nullopt;
            ++at_;
            skip_space();
            auto value = parse_value(depth + 1);
            if (!value) return std::nullopt;
            members[*key] = std::move(*value);  // a repeated key: the last one wins
            skip_space();
            if (at_ >= text_.size()) return std::nullopt;
            if (text_[at_] == ',') {
                ++at_;
                continue;
            }
            if (text_[at_] != '}') return std::nullopt;
            ++at_;
            return JsonValue::object(std::move(members));
        }
    }

    std::optional<JsonValue> parse_array(int depth) {
        ++at_;  // '['
        JsonValue::Array items;
        skip_space();
        if (at_ < text_.size() && text_[at_] == ']') {
            ++at_;
            return JsonValue::array(std::move(items));
        }
        while (true) {
            skip_space();
            auto value = parse_value(depth + 1);
            if (!value) return std::nullopt;
            items.push_back(std::move(*value));
            skip_space();
            if (at_ >= text_.size()) return std::nullopt;
            if (text_[at_] == ',') {
                ++at_;
                continue;
            }
            if (text_[at_] != ']') return std::nullopt;
            ++at_;
            return JsonValue::array(std::move(items));
        }
    }

    std::optional<std::uint32_t> hex4() {
        if (at_ + 4 > text_.size()) return std::nullopt;
        std::uint32_t value = 0;
        for (int i = 0; i < 4; ++i) {
            const char c = text_[at_++];
            value <<= 4;
            if (c >= '0' && c <= '9')
                value |= static_cast<std::uint32_t>(c - '0');
            else if (c >= 'a' && c <= 'f')
                value |= static_cast<std::uint32_t>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                value |= static_cast<std::uint32_t>(c - 'A' + 10);
            else
                return std::nullopt;
        }
        return value;
    }

    static void append_utf8(std::string& out, std::uint32_t code) {
        if (code < 0x80) {
            out += static_cast<char>(code);
        } else if (code < 0x800) {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else if (code < 0x10000) {
            out += static_cast<char>(0xE0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (code >> 18));
            out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        }
    }

    std::optional<std::string> parse_string() {
        ++at_;  // '"'
        std::string out;
        while (at_ < text_.size()) {
            const char c = text_[at_++];
            if (c == '"') return out;
            if (static_cast<unsigned char>(c) < 0x20) return std::nullopt;
            if (c != '\\') {
                out += c;
                continue;
            }
            if (at_ >= text_.size()) return std::nullopt;
            const char e = text_[at_++];
            switch (e) {
                case '"':
                    out += '"';
                    break;
                case '\\':
                    out += '\\';
                    break;
                case '/':
                    out += '/';
                    break;
                case 'b':
                    out += '\b';
                    break;
                case 'f':
                    out += '\f';
                    break;
                case 'n':
                    out += '\n';
                    break;
                case 'r':
                    out += '\r';
                    break;
                case 't':
                    out += '\t';
                    break;
                case 'u': {
                    auto code = hex4();
                    if (!code) return std::nullopt;
                    if (*code >= 0xD800 && *code < 0xDC00) {
                        if (text_.substr(at_, 2) != "\\u") return std::nullopt;
                        at_ += 2;
                        const auto low = hex4();
                        if (!low || *low < 0xDC00 || *low > 0xDFFF) return std::nullopt;
                        code = 0x10000 + ((*code - 0xD800) << 10) + (*low - 0xDC00);
                    } else if (*code >= 0xDC00 && *code <= 0xDFFF) {
                        return std::nullopt;
                    }
                    append_utf8(out, *code);
                    break;
                }
                default:
                    return std::nullopt;
            }
        }
        return std::nullopt;
    }

    std::optional<JsonValue> parse_number() {
        const std::size_t start = at_;
        bool integral = true;
        if (at_ < text_.size() && text_[at_] == '-') ++at_;
        const std::size_t digits = at_;
        while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') ++at_;
        if (at_ == digits) return std::nullopt;
        if (text_[digits] == '0' && at_ - digits > 1) return std::nullopt;  // no leading zeros
        if (at_ < text_.size() && text_[at_] == '.') {
            integral = false;
            const std::size_t frac = ++at_;
            while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') ++at_;
            if (at_ == frac) return std::nullopt;
        }
        if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
            integral = false;
            ++at_;
            if (at_ < text_.size() && (text_[at_] == '+' || text_[at_] == '-')) ++at_;
            const std::size_t exp = at_;
            while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') ++at_;
            if (at_ == exp) return std::nullopt;
        }
        const char* first = text_.data() + start;
        const char* last = text_.data() + at_;
        if (integral) {
            std::int64_t value = 0;
            const auto result = std::from_chars(first, last, value);
            if (result.ec == std::errc() && result.ptr == last) return JsonValue::integer(value);
        }
        double value = 0.0;
        const auto result = std::from_chars(first, last, value);
        if (result.ec != std::errc() || result.ptr != last || !std::isfinite(value))
            return std::nullopt;
        return JsonValue::number(value);
    }

    std::string_view text_;
    std::size_t at_ = 0;
};

void write_string(std::string& out, const std::string& text) {
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

void write(std::string& out, const JsonValue& value) {
    switch (value.type()) {
        case JsonValue::Type::Null:
            out += "null";
            return;
        case JsonValue::Type::Bool:
            out += value.as_bool() ? "true" : "false";
            return;
        case JsonValue::Type::Int:
            out += std::to_string(value.as_int());
            return;
        case JsonValue::Type::Double: {
            char buffer[32];
            const auto result = std::to_chars(buffer, buffer + sizeof buffer, value.as_double());
            std::string text(buffer, result.ptr);
            // Keep a double a double when read back, as the host's writer does.
            if (text.find_first_of(".eE") == std::string::npos) text += ".0";
            out += text;
            return;
        }
        case JsonValue::Type::String:
            write_string(out, value.as_string());
            return;
        case JsonValue::Type::Array: {
            out += '[';
            bool first = true;
            for (const auto& item : value.as_array()) {
                if (!first) out += ',';
                first = false;
                write(out, item);
            }
            out += ']';
            return;
        }
        case JsonValue::Type::Object: {
            out += '{';
            bool first = true;
            for (const auto& [key, member] : value.as_object()) {
                if (!first) out += ',';
                first = false;
                write_string(out, key);
                out += ':';
                write(out, member);
            }
            out += '}';
            return;
        }
    }
}

}  // namespace

std::optional<JsonValue> parse_json(std::string_view text) {
    return Parser(text).document();
}

std::string to_json(const JsonValue& value) {
    std::string out;
    write(out, value);
    return out;
}

bool typed_equal(const JsonValue& a, const JsonValue& b) {
    if (a.type() == JsonValue::Type::Int && b.type() == JsonValue::Type::Int)
        return a.as_int() == b.as_int();
    if (a.is_number() && b.is_number()) return a.as_double() == b.as_double();
    if (a.type() != b.type()) return false;
    switch (a.type()) {
        case JsonValue::Type::Null:
            return true;
        case JsonValue::Type::Bool:
            return a.as_bool() == b.as_bool();
        case JsonValue::Type::String:
            return a.as_string() == b.as_string();
        case JsonValue::Type::Array: {
            const auto& x = a.as_array();
            const auto& y = b.as_array();
            if (x.size() != y.size()) return false;
            for (std::size_t i = 0; i < x.size(); ++i)
                if (!typed_equal(x[i], y[i])) return false;
            return true;
        }
        case JsonValue::Type::Object: {
            const auto& x = a.as_object();
            const auto& y = b.as_object();
            if (x.size() != y.size()) return false;
            for (const auto& [key, value] : x) {
                const auto it = y.find(key);
                if (it == y.end() || !typed_equal(value, it->second)) return false;
            }
            return true;
        }
        default:
            return false;
    }
}

}  // namespace spark
